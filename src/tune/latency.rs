//! The latency half of `ncclTopoTuneModel`: for one collective, algorithm and protocol,
//! the base latency plus the per-hop costs each algorithm pays inside the node and across
//! the network (µs), one function per algorithm.

use super::constants::HW_NET;
use super::ctx::Ctx;
use super::{Algo, Func, Proto};
use crate::release::NvlsBwModel;

/// The hop costs of one entry.
struct Hops {
    /// Base latency of the algorithm and protocol.
    base: f32,
    /// One hop inside the node (NVLink or PCI).
    intra: f32,
    /// One hop across the network, with the graph's network latency.
    inter: f32,
    /// Ranks a node, minus one.
    local_minus_one: i64,
}

/// Latency (µs) of one entry.
pub(super) fn latency(x: &Ctx, func: Func, algo: Algo, proto: Proto) -> f32 {
    let (a, p) = (algo as usize, proto as usize);
    let g = &x.c.graphs[algo];
    // One rank a node exposes the whole network latency: the tree's hop (from 2.23).
    let net_row = if x.ppn == 1.0 && x.c.release.one_ppn_pays_tree_net_hop() { Algo::Tree as usize } else { a };
    let mut inter: f32 = x.hw_lat[HW_NET][net_row][p] as f32;
    inter += g.latency_inter;
    if proto == Proto::Simple {
        inter += g.latency_inter;
    }
    let h = Hops {
        base: x.base_lat[a][p] as f32,
        intra: x.hw_lat[x.intra_hw[a]][a][p] as f32,
        inter,
        local_minus_one: (x.n_ranks / x.n_nodes) as i64 - 1,
    };
    let ag_rs = matches!(func, Func::AllGather | Func::ReduceScatter);
    if matches!(algo, Algo::Nvls | Algo::NvlsTree) && matches!(x.c.release.nvls_bw_model(), NvlsBwModel::Plain { .. }) {
        // 2.18: the base and the network's own hops, nothing inside the node.
        let hop = x.hw_lat[HW_NET][a][p] as f32;
        let n = x.n_nodes as i64;
        return match algo {
            Algo::Nvls if n > 1 => h.base + hop,
            Algo::Nvls => h.base,
            _ => h.base + (2 * (n - 1)) as f32 * hop,
        };
    }
    match algo {
        Algo::Ring => ring(x, func, proto, h),
        Algo::Tree => {
            if func == Func::AllReduce {
                h.base + 2.0 * (h.local_minus_one as f32 * h.intra + x.log_nodes as f32 * h.inter)
            } else {
                h.base
            }
        }
        Algo::CollNetDirect => {
            // int x float stays float in C; the 0.4 (0.5 in 2.18) makes the rest double.
            let hop = h.local_minus_one.min(1) as f32 * h.intra;
            let arity = x.c.release.collnet_direct_arity_us();
            let more = 2.0 * (hop as f64 + h.local_minus_one as f64 * arity) + h.inter as f64;
            (h.base as f64 + more) as f32
        }
        Algo::CollNetChain => h.base + (2.0 * h.local_minus_one as f32 * h.intra + h.inter),
        Algo::Nvls => {
            if x.n_nodes > 1 {
                h.intra + h.inter
            } else {
                h.intra
            }
        }
        Algo::NvlsTree => h.base + (h.intra + 2.0 * x.log_nodes as f32 * h.inter),
        Algo::Pat => {
            if ag_rs {
                let more = x.log_nodes as f64 * (h.inter as f64 / 3.5) + x.n_ranks as f64 * 2.8;
                (h.base as f64 + more) as f32
            } else {
                h.base
            }
        }
    }
}

/// Ring: Broadcast and Reduce pay one hop when every channel is the same ring, else one
/// per step; the others pay each step inside the node (at least the network overhead
/// on several nodes) and each node crossing at the network's cost.
fn ring(x: &Ctx, func: Func, proto: Proto, h: Hops) -> f32 {
    let (a, p) = (Algo::Ring as usize, proto as usize);
    let g = &x.c.graphs[Algo::Ring];
    let nsteps: i64 = match func {
        Func::AllReduce => 2 * (x.n_ranks as i64 - 1),
        Func::AllGather | Func::ReduceScatter => x.n_ranks as i64 - 1,
        _ => x.n_ranks as i64,
    };
    let mut lat = h.base;
    if matches!(func, Func::Reduce | Func::Broadcast) {
        let mut l: f32 = x.hw_lat[x.hw[a]][a][p] as f32;
        if g.same_channels != 0 {
            lat += l;
        } else {
            if proto == Proto::Simple {
                l = x.hw_lat[x.hw[a]][Algo::Tree as usize][p] as f32;
            }
            lat += nsteps as f32 * l;
        }
        return lat;
    }
    let mut overhead: f32 = 0.0;
    if x.n_nodes > 1 {
        overhead = x.c.net_overhead_us;
        if proto == Proto::Simple {
            overhead *= 3.0;
        }
    }
    let intra = h.intra.max(overhead);
    let n = x.n_nodes as i64;
    // Before 2.23 an AllReduce ring is charged every node twice on several nodes, and
    // the intra-node steps left may go negative (NCCL keeps them).
    let inter_steps: i64 = if x.c.release.ring_net_steps_close_the_ring() {
        if func == Func::AllReduce { if n > 1 { 2 * n } else { 0 } } else { n - 1 }
    } else if n == 1 {
        0
    } else if func == Func::AllReduce {
        2 * (n - 1)
    } else {
        n - 1
    };
    lat + ((nsteps - inter_steps) as f32 * intra + inter_steps as f32 * h.inter)
}
