//! All-pairs (HCCL's server mesh): every rank talks to every other directly, each pair
//! on its own connection. Allreduce: rank r reduces chunk r from every peer, then sends
//! the result to all; all-to-all stages through scratch so that it is right in place.

use super::super::program::Buffer::{Input as I, Output as O, Scratch as S};
use super::super::program::Collective;
use super::dag::{Tracer, at};

pub fn per(coll: Collective, n: u32) -> u32 {
    match coll {
        Collective::AllReduce => n,
        _ => 1,
    }
}

/// `root`: the root of broadcast.
pub fn trace(t: &mut Tracer, coll: Collective, n: u32, root: u32) {
    let peers = |r: u32| (1..n).map(move |d| (r + d) % n);
    match coll {
        Collective::AllGather => {
            for q in 0..n {
                for r in peers(q) {
                    t.copy(at(q, I, 0, 1), at(r, O, q, 1), None);
                }
                t.copy(at(q, I, 0, 1), at(q, O, q, 1), None);
            }
        }
        Collective::ReduceScatter => {
            for r in 0..n {
                for (k, q) in peers(r).enumerate() {
                    let local = if k == 0 { at(r, I, r, 1) } else { at(r, O, 0, 1) };
                    t.reduce(at(r, O, 0, 1), local, at(q, I, r, 1), None);
                }
            }
        }
        Collective::AllReduce => {
            for r in 0..n {
                for (k, q) in peers(r).enumerate() {
                    let local = if k == 0 { at(r, I, r, 1) } else { at(r, O, r, 1) };
                    t.reduce(at(r, O, r, 1), local, at(q, I, r, 1), None);
                }
                for q in peers(r) {
                    t.copy(at(r, O, r, 1), at(q, O, r, 1), None);
                }
            }
        }
        Collective::AllToAll => {
            for r in 0..n {
                for q in peers(r) {
                    t.copy(at(r, I, q, 1), at(q, S, r, 1), None);
                }
            }
            for q in 0..n {
                for r in peers(q) {
                    t.copy(at(q, S, r, 1), at(q, O, r, 1), None);
                }
                t.copy(at(q, I, q, 1), at(q, O, q, 1), None);
            }
        }
        Collective::Broadcast => {
            for q in peers(root) {
                t.copy(at(root, I, 0, 1), at(q, O, 0, 1), None);
            }
            t.copy(at(root, I, 0, 1), at(root, O, 0, 1), None);
        }
        _ => {}
    }
}
