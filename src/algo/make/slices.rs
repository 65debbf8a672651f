//! Slice bookkeeping shared by the HCCL-style algorithms (rhd, nhr, nb): one chunk per
//! rank's slice, where each rank's partial sums live, and moves of several slices that
//! become one multi-chunk step where the chunks are contiguous.

use super::super::program::Buffer::{Input as I, Output as O, Scratch as S};
use super::super::program::Collective;
use super::dag::{Ref, Tracer, at};

/// The most chunks one step moves (below the runtimes' MSCCL_MAX_COUNT of 72).
const MAX_COUNT: u32 = 64;

/// Per rank and slice: whether the rank holds a partial (or final) value yet.
pub struct Slices {
    pub coll: Collective,
    pub p: u32,
    touched: Vec<Vec<bool>>,
}

impl Slices {
    pub fn new(coll: Collective, p: u32) -> Slices {
        Slices { coll, p, touched: vec![vec![false; p as usize]; p as usize] }
    }

    /// Where rank `x` keeps its partial sum (or, gathering, its copy) of slice `s`.
    pub fn home(&self, x: u32, s: u32) -> Ref {
        match self.coll {
            Collective::ReduceScatter if s == x => at(x, O, 0, 1),
            Collective::ReduceScatter => at(x, S, s, 1),
            _ => at(x, O, s, 1),
        }
    }

    /// Rank `x`'s current value of slice `s`.
    pub fn cur(&self, x: u32, s: u32) -> Ref {
        if self.touched[x as usize][s as usize] {
            return self.home(x, s);
        }
        match self.coll {
            Collective::AllGather => at(x, I, 0, 1),
            _ => at(x, I, s, 1),
        }
    }

    pub fn mark(&mut self, x: u32, s: u32) {
        self.touched[x as usize][s as usize] = true;
    }

    /// `to` adds `from`'s values of `slices` to its own.
    pub fn reduce(&mut self, t: &mut Tracer, from: u32, to: u32, slices: &[u32], hint: Option<u32>) {
        let ops: Vec<[Ref; 3]> =
            slices.iter().map(|&s| [self.home(to, s), self.cur(to, s), self.cur(from, s)]).collect();
        for [a, b, c] in merge(&ops) {
            t.reduce(a, b, c, hint);
        }
        for &s in slices {
            self.mark(to, s);
        }
    }

    /// `to` takes `from`'s values of `slices`.
    pub fn copy(&mut self, t: &mut Tracer, from: u32, to: u32, slices: &[u32], hint: Option<u32>) {
        let ops: Vec<[Ref; 2]> = slices.iter().map(|&s| [self.cur(from, s), self.home(to, s)]).collect();
        for [a, b] in merge(&ops) {
            t.copy(a, b, hint);
        }
        for &s in slices {
            self.mark(to, s);
        }
    }

    /// Gathering: every rank's own slice from its input to its output.
    pub fn own(&mut self, t: &mut Tracer, x: u32) {
        let (from, to) = (self.cur(x, x), self.home(x, x));
        t.copy(from, to, None);
        self.mark(x, x);
    }
}

/// Runs of single-chunk references that are contiguous on every side, as multi-chunk
/// references.
fn merge<const K: usize>(ops: &[[Ref; K]]) -> Vec<[Ref; K]> {
    let mut out: Vec<[Ref; K]> = Vec::new();
    for op in ops {
        if let Some(last) = out.last_mut()
            && last[0].count < MAX_COUNT
            && (0..K).all(|k| {
                let (a, b) = (last[k], op[k]);
                a.rank == b.rank && a.buf == b.buf && a.idx + a.count == b.idx
            })
        {
            for r in last.iter_mut() {
                r.count += 1;
            }
            continue;
        }
        out.push(*op);
    }
    out
}
