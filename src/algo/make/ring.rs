//! Rings: every rank sends to the next and receives from the previous. One lane per
//! ring, each on its own channel (the `ring` algorithm's lanes share one order; the
//! `nccl` algorithm's follow NCCL's channels). Allreduce is reduce-scatter then
//! all-gather around the ring (NCCL's `runRing` shape: send, `rrs` x n-2, `rrcs`,
//! `rcs` x n-2, `r` once fused); allgather and reduce-scatter are the two halves;
//! broadcast is a pipeline from the root along the ring; reduce is NCCL's ring reduce, a
//! chain along the ring that starts after the root and ends at it, each rank adding its
//! input to the partial it receives (kept in scratch: only the root's output is
//! defined) and passing it on.

use super::super::program::Buffer::{Input as I, Output as O, Scratch as S};
use super::super::program::Collective;
use super::dag::{Tracer, at};

/// Chunks one instance needs for `lanes` rings over `n` ranks.
pub fn per(coll: Collective, n: u32, lanes: u32) -> u32 {
    match coll {
        Collective::AllReduce | Collective::Broadcast | Collective::Reduce => n * lanes,
        _ => lanes,
    }
}

/// `root`: the root of broadcast and reduce.
pub fn trace(t: &mut Tracer, coll: Collective, lanes: &[Vec<u32>], root: u32) {
    let r = lanes.len() as u32;
    for (l, order) in lanes.iter().enumerate() {
        let (l, hint) = (l as u32, Some(l as u32));
        let n = order.len() as u32;
        let at_pos = |p: u32| order[(p % n) as usize];
        match coll {
            Collective::AllReduce => {
                for c in 0..n {
                    let idx = c * r + l;
                    let path: Vec<u32> = (0..n).map(|k| at_pos(c + 1 + k)).collect();
                    for k in 1..n as usize {
                        let from = at(path[k - 1], if k == 1 { I } else { O }, idx, 1);
                        t.reduce(at(path[k], O, idx, 1), at(path[k], I, idx, 1), from, hint);
                    }
                    let holders: Vec<u32> = (0..n).map(|k| at_pos(c + k)).collect();
                    for k in 1..n as usize {
                        t.copy(at(holders[k - 1], O, idx, 1), at(holders[k], O, idx, 1), hint);
                    }
                }
            }
            Collective::AllGather => {
                for c in 0..n {
                    let q = at_pos(c);
                    let idx = q * r + l;
                    t.copy(at(q, I, l, 1), at(at_pos(c + 1), O, idx, 1), hint);
                    for k in 1..n - 1 {
                        t.copy(at(at_pos(c + k), O, idx, 1), at(at_pos(c + k + 1), O, idx, 1), hint);
                    }
                    t.copy(at(q, I, l, 1), at(q, O, idx, 1), hint);
                }
            }
            Collective::ReduceScatter => {
                for c in 0..n {
                    let idx = at_pos(c) * r + l;
                    let path: Vec<u32> = (0..n).map(|k| at_pos(c + 1 + k)).collect();
                    for k in 1..n as usize {
                        let from = at(path[k - 1], if k == 1 { I } else { S }, idx, 1);
                        let to = if k == n as usize - 1 { at(path[k], O, l, 1) } else { at(path[k], S, idx, 1) };
                        t.reduce(to, at(path[k], I, idx, 1), from, hint);
                    }
                }
            }
            Collective::Broadcast => {
                let start = order.iter().position(|&x| x == root).unwrap_or(0) as u32;
                for c in 0..n {
                    let idx = c * r + l;
                    t.copy(at(at_pos(start), I, idx, 1), at(at_pos(start + 1), O, idx, 1), hint);
                    for k in 1..n - 1 {
                        t.copy(at(at_pos(start + k), O, idx, 1), at(at_pos(start + k + 1), O, idx, 1), hint);
                    }
                    t.copy(at(at_pos(start), I, idx, 1), at(at_pos(start), O, idx, 1), hint);
                }
            }
            Collective::Reduce => {
                let at_root = order.iter().position(|&x| x == root).unwrap_or(0) as u32;
                let path: Vec<u32> = (1..=n).map(|k| at_pos(at_root + k)).collect();
                for c in 0..n {
                    let idx = c * r + l;
                    for k in 1..n as usize {
                        let from = at(path[k - 1], if k == 1 { I } else { S }, idx, 1);
                        let to = if k == n as usize - 1 { at(path[k], O, idx, 1) } else { at(path[k], S, idx, 1) };
                        t.reduce(to, at(path[k], I, idx, 1), from, hint);
                    }
                }
            }
            _ => {}
        }
    }
}
