//! Recursive halving-doubling (HCCL's RHD). With b = 2^floor(log2 p) and
//! part1 = 2(p - b), each odd rank below part1 first folds its data into the rank
//! before it; the b remaining ranks ("block ranks": rank/2 for the even ones below
//! part1, rank - part1/2 after) reduce-scatter by recursive halving (the peer at
//! distance b/2, b/4, ... 1 takes the half it keeps) and all-gather by recursive
//! doubling; at the end the folded ranks get their result back from their partner.
//! A block rank owns the slices of the ranks it stands for, so halves are contiguous.

use super::super::program::Collective;
use super::dag::Tracer;
use super::slices::Slices;

pub fn per(coll: Collective, n: u32) -> u32 {
    if coll == Collective::AllReduce { n } else { 1 }
}

struct Block {
    b: u32,
    part1: u32,
}

impl Block {
    fn new(p: u32) -> Block {
        let b = 1 << (31 - p.leading_zeros());
        Block { b, part1: 2 * (p - b) }
    }
    /// The rank a block rank is.
    fn rank(&self, br: u32) -> u32 {
        if br < self.part1 / 2 { 2 * br } else { br + self.part1 / 2 }
    }
    /// The first slice block rank `br` stands for (`br == b`: one past the last).
    fn lo(&self, br: u32) -> u32 {
        if br < self.part1 / 2 { 2 * br } else { br + self.part1 / 2 }
    }
    fn slices(&self, from: u32, to: u32) -> Vec<u32> {
        (self.lo(from)..self.lo(to)).collect()
    }
}

pub fn trace(t: &mut Tracer, coll: Collective, p: u32) {
    let blk = Block::new(p);
    let mut sl = Slices::new(coll, p);
    let all: Vec<u32> = (0..p).collect();
    let folded = |x: u32| x < blk.part1 && x % 2 == 1;
    if coll == Collective::AllGather {
        for x in 0..p {
            if folded(x) {
                sl.copy(t, x, x - 1, &[x], None);
            } else {
                sl.own(t, x);
            }
        }
    } else {
        for x in (0..blk.part1).filter(|&x| x % 2 == 1) {
            sl.reduce(t, x, x - 1, &all, None);
        }
        // Halving: at distance m the peer takes the half of the current range it keeps.
        let mut m = blk.b / 2;
        while m >= 1 {
            for br in 0..blk.b {
                let peer = br ^ m;
                let base = peer & !(m - 1);
                let half = blk.slices(base, base + m);
                sl.reduce(t, blk.rank(br), blk.rank(peer), &half, None);
            }
            m /= 2;
        }
        if coll == Collective::ReduceScatter {
            for x in (0..blk.part1).filter(|&x| x % 2 == 1) {
                sl.copy(t, x - 1, x, &[x], None);
            }
            return;
        }
    }
    // Doubling: at distance m each block rank sends the range it has to its peer.
    let mut m = 1;
    while m < blk.b {
        for br in 0..blk.b {
            let base = br & !(m - 1);
            let mine = blk.slices(base, base + m);
            sl.copy(t, blk.rank(br), blk.rank(br ^ m), &mine, None);
        }
        m *= 2;
    }
    for x in (0..blk.part1).filter(|&x| x % 2 == 1) {
        let missing: Vec<u32> = all.iter().copied().filter(|&s| coll == Collective::AllReduce || s != x).collect();
        sl.copy(t, x - 1, x, &missing, None);
        if coll == Collective::AllGather {
            sl.own(t, x);
        }
    }
}
