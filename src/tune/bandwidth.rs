//! The bandwidth half of `ncclTopoTuneModel`: for one collective, algorithm and
//! protocol, the bus bandwidth NCCL predicts (GB/s), one function per algorithm family,
//! then the conversion from bus to algorithm bandwidth every entry gets.
//!
//! The arithmetic mixes `float` and `double` exactly where NCCL does; the casts mark it.

use crate::search::pattern;

use super::constants::NVLS_EFFICIENCY;
use super::ctx::Ctx;
use super::limit::{Ceiling, Limit, Link, Share};
use super::{Algo, Func, GraphFacts, Proto};
use crate::release::NvlsBwModel;

/// Whether the collective is AllGather or ReduceScatter.
fn ag_rs(func: Func) -> bool {
    matches!(func, Func::AllGather | Func::ReduceScatter)
}

/// The algorithm bandwidth of one entry and what limits it; `None` where NCCL skips
/// the entry altogether (NVLS with fewer than two channels, from 2.28.3).
pub(super) fn bandwidth(x: &Ctx, func: Func, algo: Algo, proto: Proto) -> Option<(f32, Limit)> {
    let g = &x.c.graphs[algo];
    let r = x.c.release;
    let nch = g.n_channels;
    let is_collnet = matches!(algo, Algo::CollNetDirect | Algo::CollNetChain);
    let inter = !(x.n_nodes <= 2 || is_collnet);
    let model = r.nvls_bw_model();
    let plain = matches!(model, NvlsBwModel::Plain { .. });
    let (bw, why): (f32, Limit) = if matches!(algo, Algo::Nvls | Algo::NvlsTree) && !plain {
        match model {
            NvlsBwModel::Efficiency => nvls_per_channel(x, func, algo, g)?,
            model => nvls_per_channel_min(x, func, algo, g, model),
        }
    } else {
        let bw = if inter { g.bw_inter } else { g.bw_intra };
        (bw, Limit::Links { link: Link::of(g, inter), channels: nch, share: None })
    };
    let bus: f32 = nch as f32 * bw;
    let (mut bus, why) = match algo {
        Algo::Ring => ring(x, func, proto, nch, bus, why),
        Algo::Tree => tree(x, func, proto, nch, bus, why),
        Algo::Pat => ((bus as f64 * r.pat_bw_share()) as f32, why),
        Algo::CollNetDirect | Algo::CollNetChain => collnet(x, func, algo, proto, g, bus, why),
        Algo::Nvls | Algo::NvlsTree => (bus, why),
    };
    if r.collnet_ag_rs_capped_by_network()
        && matches!(algo, Algo::Nvls | Algo::CollNetDirect)
        && proto == Proto::Simple
        && ag_rs(func)
        && x.n_nodes > 1
    {
        // Needs CollNet (whose plugin is assumed to offer allgather and
        // reducescatter) and a CollNet head for every GPU of the node.
        if !x.c.collnet_enable || x.c.local_ranks > x.c.collnet_heads {
            bus = 0.0;
        }
    }
    Some((bus_to_alg(x, func, algo, bus), why))
}

/// Bus to algorithm bandwidth: rings (and NVLS) move `nsteps / nranks` of the data per
/// rank (NVLS 5/6 before 2.28.3; in 2.18 NVLS 3/4 or 5/6 and NVLS tree `0.7 n / 2(n-1)`),
/// trees and the rest half of it; AllGather/ReduceScatter entries other than the ring's
/// (before 2.23, CollNet direct's only) are already algorithm bandwidths.
fn bus_to_alg(x: &Ctx, func: Func, algo: Algo, mut bus: f32) -> f32 {
    let r = x.c.release;
    let already =
        ag_rs(func) && if r.alg_bw_for_non_ring_ag_rs() { algo != Algo::Ring } else { algo == Algo::CollNetDirect };
    if !already {
        let nsteps: i64 = match func {
            Func::AllReduce => 2 * (x.n_ranks as i64 - 1),
            Func::AllGather | Func::ReduceScatter => x.n_ranks as i64 - 1,
            _ => x.n_ranks as i64,
        };
        let mut ratio: f32 = 1.0;
        let nvls = matches!(algo, Algo::Nvls | Algo::NvlsTree);
        let model = r.nvls_bw_model();
        if algo == Algo::Ring || (nvls && model == NvlsBwModel::Efficiency) {
            ratio = (ratio as f64 * ((1.0 * x.n_ranks as f64) / nsteps as f64)) as f32;
        } else if let (true, NvlsBwModel::Plain { nvls_ratio }) = (nvls, model) {
            let n = x.n_nodes as i64;
            // One node makes the tree's ratio infinite; NCCL never enables it there.
            ratio =
                if algo == Algo::Nvls { nvls_ratio as f32 } else { (0.70 * n as f64 / (2 * (n - 1)) as f64) as f32 };
        } else if nvls {
            ratio = (ratio as f64 * (5.0 / 6.0)) as f32;
        } else {
            ratio = (ratio as f64 * 0.5) as f32;
        }
        bus *= ratio;
    }
    bus
}

/// NVLS and NVLS-tree per channel: NVLink at NVLS efficiency (doubled for AllReduce),
/// the network, and for the tree a per-channel ceiling, whichever is lowest.
fn nvls_per_channel(x: &Ctx, func: Func, algo: Algo, g: &GraphFacts) -> Option<(f32, Limit)> {
    let nch = g.n_channels;
    if nch < 2 {
        return None;
    }
    let eff = NVLS_EFFICIENCY[x.arch];
    let mut intra_bw: f32 = g.bw_intra * eff * (nch - 1) as f32 / nch as f32;
    if func == Func::AllReduce {
        intra_bw *= 2.0;
    } else {
        intra_bw *= (x.ppn - 1.0) / x.ppn;
    }
    let inter_bw: f32 = g.bw_inter * if x.n_nodes <= 2 && algo == Algo::NvlsTree { 2.0 } else { 1.0 };
    let cap = if algo == Algo::NvlsTree { x.per_ch_nvls_tree as f32 } else { f32::MAX };
    let bw = intra_bw.min(inter_bw).min(cap);
    let why = if bw == intra_bw {
        Limit::NvlsIntra { ty: g.type_intra, bw: g.bw_intra, efficiency: eff, channels: nch }
    } else if bw == inter_bw {
        Limit::NvlsInter { link: Link::of(g, true), channels: nch }
    } else {
        Limit::PerChannel { ceiling: Ceiling::NvlsTree, gbs: cap as f64, channels: nch, share: None }
    };
    Some((bw, why))
}

/// NVLS and NVLS-tree per channel before 2.28.3: min(intra, inter), the tree halving
/// the network beyond two nodes; from 2.27.3 AllGather/ReduceScatter get the other
/// GPUs' share of NVLink and 90% of the network. Rated even without channels.
fn nvls_per_channel_min(x: &Ctx, func: Func, algo: Algo, g: &GraphFacts, model: NvlsBwModel) -> (f32, Limit) {
    let nch = g.n_channels;
    let intra = Limit::Links { link: Link::of(g, false), channels: nch, share: None };
    let inter = Limit::NvlsInter { link: Link::of(g, true), channels: nch };
    let (a, b) = if algo == Algo::NvlsTree {
        (g.bw_intra, if x.n_nodes <= 2 { g.bw_inter } else { g.bw_inter / 2.0 })
    } else if model == NvlsBwModel::PerCollective && func != Func::AllReduce {
        (g.bw_intra * (x.ppn - 1.0) / x.ppn, g.bw_inter * 0.9)
    } else {
        (g.bw_intra, g.bw_inter)
    };
    if a <= b { (a, intra) } else { (b, inter) }
}

/// Ring: LL gets half the links (before 2.21 a quarter, or a third for Broadcast,
/// AllGather and ReduceScatter on one node) up to the LL ceiling, LL128 92% (70% below
/// two ranks a node, before 2.23) up to its per-channel ceiling, Simple all of it.
fn ring(x: &Ctx, func: Func, proto: Proto, nch: i32, bus: f32, why: Limit) -> (f32, Limit) {
    let base = bus;
    match proto {
        Proto::Ll => {
            let share = if !x.c.release.ring_ll_quarter_or_third() {
                0.5
            } else if x.n_nodes > 1 || matches!(func, Func::AllReduce | Func::Reduce) {
                1.0 / 4.0
            } else {
                1.0 / 3.0
            };
            let bus = x.ll_max_bw.min(bus as f64 * share) as f32;
            let why = if (bus as f64) < base as f64 * share {
                Limit::LlCeiling(x.ll_max_bw)
            } else if share == 0.5 {
                why.at_share(Share::RingLl)
            } else {
                why
            };
            (bus, why)
        }
        Proto::Ll128 => {
            let cap = nch as f64 * x.per_ch_ring_ll128;
            let share = if x.ppn < 2.0 { x.c.release.ring_ll128_share_below_2_ppn() } else { 0.92 };
            let bus = (bus as f64 * share).min(cap) as f32;
            let why = if cap < base as f64 * share {
                Limit::PerChannel { ceiling: Ceiling::RingLl128, gbs: x.per_ch_ring_ll128, channels: nch, share: None }
            } else {
                why.at_share(Share::RingLl128)
            };
            (bus, why)
        }
        Proto::Simple => (bus, why),
    }
}

/// Tree: AllReduce at 92% up to the tree's per-channel ceiling, then LL at 1/3.8 up to
/// the LL ceiling or LL128 at 7/9 (one node) or 120/128 up to its own ceiling; a plain
/// TREE pattern (neither split nor balanced) loses 15% more.
fn tree(x: &Ctx, func: Func, proto: Proto, nch: i32, mut bus: f32, mut why: Limit) -> (f32, Limit) {
    if func == Func::AllReduce {
        let cap = nch as f64 * x.per_ch_tree;
        let before = bus as f64 * 0.92;
        bus = before.min(cap) as f32;
        if cap < before {
            why = Limit::PerChannel { ceiling: Ceiling::Tree, gbs: x.per_ch_tree, channels: nch, share: None };
        }
    }
    if proto == Proto::Ll {
        let before = bus as f64 * 1.0 / 3.8;
        bus = before.min(x.ll_max_bw) as f32;
        why = if x.ll_max_bw < before { Limit::LlCeiling(x.ll_max_bw) } else { why.at_share(Share::TreeLl) };
    }
    if proto == Proto::Ll128 {
        let before = bus as f64 * if x.n_nodes == 1 { 7.0 / 9.0 } else { 120.0 / 128.0 };
        let cap = nch as f64 * x.per_ch_tree_ll128;
        bus = before.min(cap) as f32;
        if cap < before {
            why =
                Limit::PerChannel { ceiling: Ceiling::TreeLl128, gbs: x.per_ch_tree_ll128, channels: nch, share: None };
        }
    }
    if x.c.tree_pattern == pattern::TREE && x.c.release.plain_tree_penalty() {
        bus = (bus as f64 * 0.85) as f32;
    }
    (bus, why)
}

/// CollNet: Simple only. Direct AllGather/ReduceScatter run at the GPUs of a node times
/// min(intra, 90% of the network) (before 2.27.3: times intra, 95% at one GPU a node
/// down to 85% at eight, none without a head for each GPU); direct AllReduce shares each
/// NIC between the GPUs behind it (and loses 15% on Hopper and later).
fn collnet(x: &Ctx, func: Func, algo: Algo, proto: Proto, g: &GraphFacts, mut bus: f32, why: Limit) -> (f32, Limit) {
    if proto != Proto::Simple {
        return (0.0, why);
    }
    if algo != Algo::CollNetDirect {
        return (bus, why);
    }
    let ppn = x.ppn;
    if ag_rs(func) && !x.c.release.collnet_ag_rs_capped_by_network() {
        let mut bus = ppn * g.bw_intra;
        if x.n_nodes > 1 && (!x.c.collnet_enable || ppn > x.c.collnet_heads as f32) {
            bus = 0.0;
        }
        let w: f32 = (ppn - 1.0) / 7.0;
        bus = (bus as f64 * (w as f64 * 0.85 + (1.0 - w) as f64 * 0.95)) as f32;
        return (bus, Limit::CollNetPerGpu { ppn, intra: g.bw_intra, inter: f32::INFINITY });
    }
    if ag_rs(func) {
        let bus = ppn * g.bw_intra.min(g.bw_inter * 0.9f32);
        return (bus, Limit::CollNetPerGpu { ppn, intra: g.bw_intra, inter: g.bw_inter });
    }
    let nch = g.n_channels;
    let mut factor: f32 = (ppn as f64 / (1.0 * nch as f64)) as f32;
    factor -= (factor - 1.0) / 2.0;
    bus /= factor;
    if x.c.min_cc >= 90 {
        bus = (bus as f64 * 0.85) as f32;
    }
    let why = match why {
        Limit::Links { link, channels, .. } => Limit::CollNetDirect { link, channels, factor },
        other => other,
    };
    (bus, why)
}
