//! The job a modelled machine gives: nodes, GPUs a node, and NCCL's rings and trees (the
//! `nccl` and `nccl-tree` algorithms' channels) from the search and NCCL's channel set-up.

use super::{Algo, Options, Shape};
use crate::algo::program::Collective;
use crate::algo::{Program, Runtime};
use crate::error::Error;
use crate::model::Analysis;
use crate::search::Graphs;

/// The job of an analysis; with `rings`, NCCL's rings on it, one rank order (from rank
/// 0) per channel NCCL runs (the search runs here).
pub fn shape(an: &Analysis, rings: bool) -> Result<Shape, Error> {
    if !rings {
        return Ok(bare(an));
    }
    let so = crate::search::options::SearchOptions::from_analysis(an);
    let (graphs, _) = crate::search::run(an, &so)?;
    shape_with(an, &graphs)
}

/// The job without NCCL's rings: NCCL's nodes, which are the trimming domains of each
/// host where trimming splits it (NCCL trims each rank's system to what it reaches
/// without the network and counts every domain as a node), when the domains are blocks
/// of consecutive ranks of one size (rank r is then GPU r % G of NCCL's node r / G, as
/// for hosts); else the hosts.
fn bare(an: &Analysis) -> Shape {
    let host = an.host_gpus() as u32;
    let hosts = an.options.nodes as u32;
    let (nodes, gpus_per_node) = match domain_size(an) {
        Some(g) if g > 0 && host.is_multiple_of(g) => (hosts * (host / g), g),
        _ => (hosts, host),
    };
    Shape { nodes, gpus_per_node, rings: Vec::new(), trees: Vec::new() }
}

/// Where trimming splits a host, the GPUs of each domain when every domain is a block of
/// consecutive ranks of that size; `None` otherwise (or where nothing was trimmed).
fn domain_size(an: &Analysis) -> Option<u32> {
    let ranks_of = |sys: &crate::model::System| -> Vec<i32> {
        let mut r: Vec<i32> = sys.list(crate::model::NodeType::Gpu).iter().map(|g| g.gpu_rank()).collect();
        r.sort_unstable();
        r
    };
    if an.trimmed.is_empty() {
        return None;
    }
    let mut blocks = vec![ranks_of(&an.system)];
    let mut left = an.trimmed.clone();
    left.sort_unstable();
    while let Some(&first) = left.first() {
        let (sys, _) = an.system_of_rank(first).ok()?;
        let ranks = ranks_of(&sys);
        left.retain(|r| *r != first && !ranks.contains(r));
        blocks.push(ranks);
    }
    let g = blocks[0].len();
    blocks.sort_unstable();
    let consecutive = blocks
        .iter()
        .enumerate()
        .all(|(k, b)| b.len() == g && b.iter().enumerate().all(|(i, &r)| usize::try_from(r).ok() == Some(k * g + i)));
    consecutive.then_some(g as u32)
}

/// The job of an analysis with NCCL's rings and trees from graphs already searched.
pub fn shape_with(an: &Analysis, graphs: &Graphs) -> Result<Shape, Error> {
    let mut s = bare(an);
    let run = crate::search::channels::for_analysis(an, graphs)?;
    s.rings = (0..run.n_channels).map(|c| run.ring_order(c, 0).into_iter().map(|r| r as u32).collect()).collect();
    s.trees = (0..run.n_channels).map(|c| (0..run.n_ranks).map(|r| run.tree_up(c, r)).collect()).collect();
    Ok(s)
}

/// The `nccl` algorithm's channel count under a runtime: NCCL's, or the runtime's most
/// when NCCL runs more (`Some(most)`, to be said to the user).
pub fn nccl_channels(shape: &Shape, runtime: Runtime) -> Option<u32> {
    let most = runtime.max_channels();
    (shape.rings.len() > most as usize).then_some(most)
}

/// For `nccl` and `nccl-tree`: where the program on `opts.channels` of NCCL's channels
/// (all of them when `None`) needs more thread blocks a GPU than the runtime runs, the
/// most channels whose program fits (the first ones, as `--channels` takes them); `None`
/// when it fits already, or when not even one channel does.
pub fn channels_that_fit(opts: &Options, shape: &Shape) -> Option<u32> {
    let all = opts.channels.unwrap_or(shape.rings.len().max(shape.trees.len()) as u32);
    let fits = |c: u32| {
        let o = Options { channels: Some(c), ..*opts };
        super::build(&o, shape).is_ok_and(|p| p.shape().0 as u32 <= opts.runtime.max_tbs())
    };
    if !opts.algo.needs_machine() || all <= 1 || fits(all) {
        return None;
    }
    // Thread blocks grow with the channels: the largest count that fits, by halving.
    let (mut lo, mut hi) = (0u32, all);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo > 0).then_some(lo)
}

/// Every algorithm `make` offers for a collective on a job, each made (in
/// [`Algo::ALL`]'s order), or the one line saying why it is not offered. `nccl` and
/// `nccl-tree` take as many of NCCL's channels as the runtime runs, and as many as fit
/// its thread blocks.
pub fn every(
    coll: Collective,
    shape: &Shape,
    runtime: Runtime,
    proto: crate::algo::program::Protocol,
) -> Vec<(Algo, Result<Program, String>)> {
    Algo::ALL
        .into_iter()
        .filter(|a| a.collectives().contains(&coll))
        .map(|algo| {
            let channels = if algo.needs_machine() { nccl_channels(shape, runtime) } else { None };
            let mut opts = Options { coll, algo, runtime, proto, instances: 1, channels, root: 0 };
            if let Some(c) = channels_that_fit(&opts, shape) {
                opts.channels = Some(c);
            }
            (algo, super::make(&opts, shape))
        })
        .collect()
}
