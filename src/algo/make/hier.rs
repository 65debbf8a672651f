//! Hierarchical allreduce over N nodes of G GPUs (the MSCCLang paper's example, §2.13):
//! rank n*G + g; N*G chunks a loop, chunk group k (chunks k*N .. k*N+N-1) owned by
//! local GPU k.
//!
//! 1. intra-node reduce-scatter: for each offset o in 0..N a ring over each node's GPUs
//!    on chunks k*N + o; local GPU g ends with its node's sum of chunks g*N .. g*N+N-1;
//! 2. inter-node reduce-scatter: for each g a ring over the nodes' GPU g on chunks
//!    g*N + m; node m ends with the global sum of chunk g*N + m;
//! 3. inter-node all-gather on the same rings;
//! 4. intra-node all-gather, the rings of step 1 in reverse roles.
//!
//! The paper schedules step 1 on channel 0 parallelized N ways, steps 2-3 on channel 1
//! and step 4 on channel 2; here `parallelize(N)` is explicit: step 1's offset o runs
//! on channel o, steps 2-3 on channel N, step 4's offset o on channel N + 1 + o. One
//! chunk a step: an N-chunk step is N calls at large sizes, and a ring whose every
//! rank sends N >= 3 calls before receiving fills its FIFOs (8 slots, 2 Simple calls)
//! and deadlocks.

use super::super::program::Buffer::{Input as I, Output as O};
use super::dag::{Tracer, at};

pub fn per(nodes: u32, g: u32) -> u32 {
    nodes * g
}

pub fn trace(t: &mut Tracer, nodes: u32, g: u32) {
    let nn = nodes;
    let rank = |n: u32, l: u32| n * g + l;
    let inter = Some(nn);
    for o in 0..nn {
        for n in 0..nn {
            for k in 0..g {
                let idx = k * nn + o;
                let path: Vec<u32> = (0..g).map(|j| rank(n, (k + 1 + j) % g)).collect();
                for j in 1..g as usize {
                    let from = at(path[j - 1], if j == 1 { I } else { O }, idx, 1);
                    t.reduce(at(path[j], O, idx, 1), at(path[j], I, idx, 1), from, Some(o));
                }
            }
        }
    }
    for l in 0..g {
        for m in 0..nn {
            let idx = l * nn + m;
            let path: Vec<u32> = (0..nn).map(|j| rank((m + 1 + j) % nn, l)).collect();
            for j in 1..nn as usize {
                t.reduce(at(path[j], O, idx, 1), at(path[j], O, idx, 1), at(path[j - 1], O, idx, 1), inter);
            }
            for j in 0..nn - 1 {
                t.copy(at(rank((m + j) % nn, l), O, idx, 1), at(rank((m + j + 1) % nn, l), O, idx, 1), inter);
            }
        }
    }
    for o in 0..nn {
        for n in 0..nn {
            for k in 0..g {
                let idx = k * nn + o;
                for j in 0..g - 1 {
                    let (a, b) = (rank(n, (k + j) % g), rank(n, (k + j + 1) % g));
                    t.copy(at(a, O, idx, 1), at(b, O, idx, 1), Some(nn + 1 + o));
                }
            }
        }
    }
}
