//! HCCL's logarithmic algorithms for any rank count (§4.4): NHR (nonuniform
//! hierarchical ring) and NB (nonuniform Bruck). Both run K = ceil(log2 p) steps, each
//! rank sending to one peer and receiving from another; allreduce is reduce-scatter
//! then all-gather. Slice indices follow HCCL's rules (identity order, as standalone
//! reduce-scatter and all-gather keep them).

use super::super::program::Collective;
use super::dag::Tracer;
use super::slices::Slices;

/// Which of the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Nhr,
    Nb,
}

pub fn per(coll: Collective, n: u32) -> u32 {
    if coll == Collective::AllReduce { n } else { 1 }
}

/// ceil(log2 p): the bit length of p - 1.
fn steps(p: u32) -> u32 {
    32 - (p - 1).leading_zeros()
}

/// `m` slices from `start`, stepping by `stride` (mod p; stride may be negative).
fn walk(p: u32, start: i64, stride: i64, m: u32) -> Vec<u32> {
    (0..m as i64).map(|k| (start + k * stride).rem_euclid(p as i64) as u32).collect()
}

pub fn trace(t: &mut Tracer, coll: Collective, p: u32, kind: Kind) {
    let mut sl = Slices::new(coll, p);
    let k = steps(p);
    let pi = p as i64;
    if coll != Collective::AllGather {
        for j in 0..k {
            let d = 1i64 << j;
            let m = (p - 1 + (1 << j)) >> (j + 1);
            for r in 0..pi {
                let (to, sent) = match kind {
                    Kind::Nhr => ((r - d).rem_euclid(pi), walk(p, r - d, -2 * d, m)),
                    Kind::Nb => ((r + d).rem_euclid(pi), walk(p, r + d, 2 * d, m)),
                };
                sl.reduce(t, r as u32, to as u32, &sent, None);
            }
        }
        if coll == Collective::ReduceScatter {
            return;
        }
    } else {
        for r in 0..p {
            sl.own(t, r);
        }
    }
    for j in 0..k {
        for r in 0..pi {
            let (to, sent) = match kind {
                Kind::Nhr => {
                    let d = 1i64 << (k - 1 - j);
                    let m = ((pi - 1 + d) / (2 * d)) as u32;
                    ((r + d).rem_euclid(pi), walk(p, r, -2 * d, m))
                }
                Kind::Nb => {
                    let d = 1i64 << j;
                    let m = if j == k - 1 && !p.is_power_of_two() { p - (1 << (k - 1)) } else { 1 << j };
                    ((r + d).rem_euclid(pi), walk(p, r, -1, m))
                }
            };
            sl.copy(t, r as u32, to as u32, &sent, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_examples_of_the_reference() {
        // NHR p = 5, rank 0 reduce-scatter: {4, 2} to 4 first.
        assert_eq!(walk(5, -1, -2, 2), vec![4, 2]);
        // NB p = 6, rank 0 reduce-scatter step 0: {1, 3, 5} to 1.
        assert_eq!(walk(6, 1, 2, 3), vec![1, 3, 5]);
        assert_eq!(steps(5), 3);
        assert_eq!(steps(8), 3);
        assert_eq!(steps(2), 1);
    }
}
