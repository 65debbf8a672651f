//! `ncclTopoCompute`: the rounds of the search for one graph, its relaxation, and the
//! graphs NCCL computes at init.

use super::bandwidth::{self, LinkBw, Milli, Rounded};
use super::graph::{Graph, Graphs, pattern};
use super::limits::*;
use super::options::SearchOptions;
use super::recursion::{Progress, Search};
use super::speeds::speed_ladder;
use super::xml;
use crate::error::Error;
use crate::model::paths::Params;
use crate::model::system::System;
use crate::model::{NodeType, PathType, cpu};

fn gpu_min_max_path(sys: &System, ty: NodeType) -> (PathType, PathType) {
    let mut min = PathType::Sys;
    let mut max = PathType::Loc;
    for (i, g) in sys.list(NodeType::Gpu).iter().enumerate() {
        let paths = &g.paths[ty as usize];
        for (j, p) in paths.iter().enumerate().take(sys.count(ty)) {
            if ty == NodeType::Gpu && i == j {
                continue;
            }
            min = min.min(p.ty);
            max = max.max(p.ty);
        }
    }
    (min, max)
}

fn split_nvlink(sys: &System) -> bool {
    let n = sys.count(NodeType::Gpu);
    let mut dom: Vec<usize> = (0..n).collect();
    for g in 0..n {
        let d = dom[g];
        for q in g + 1..n {
            if sys.list(NodeType::Gpu)[g].paths[NodeType::Gpu as usize][q].ty == PathType::Nvl {
                dom[q] = d;
            }
        }
    }
    let mut count = vec![0; n];
    for g in 0..n {
        count[dom[g]] += 1;
    }
    count.iter().filter(|&&c| c > 1).count() == 2
}

/// Smallest compute capability of the GPUs (NCCL's `minCompCap` for one node).
pub fn cc_min(sys: &System) -> i32 {
    sys.list(NodeType::Dev).iter().map(|d| d.cc()).min().unwrap_or(0)
}

fn add_path_type(t: PathType, d: u8) -> PathType {
    PathType::from_u8(t as u8 + d)
}

/// `ncclTopoCompute` for one graph.
pub fn compute(sys: &mut System, p: &Params, o: &SearchOptions, graph: &mut Graph) -> Result<(), Error> {
    compute_with(sys, p, o, graph, None)
}

/// [`compute`], calling `progress` with the steps taken every so often.
///
/// The search first keeps the links' bandwidths in thousandths ([`Milli`]), which is
/// faster and gives NCCL's float results exactly on the values machines have; if it
/// meets a value it cannot represent, the graph is searched again with NCCL's float
/// arithmetic ([`Rounded`]) from the same start.
pub fn compute_with(
    sys: &mut System,
    p: &Params,
    o: &SearchOptions,
    graph: &mut Graph,
    progress: Option<Progress<'_>>,
) -> Result<(), Error> {
    compute_graph(sys, p, o, graph, progress, Bookkeeping::Fastest)
}

/// Which bookkeeping of link bandwidths a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bookkeeping {
    /// [`Milli`] where it is exact, else [`Rounded`].
    Fastest,
    /// [`Rounded`] only (the tests compare both).
    #[cfg(test)]
    Floats,
    /// [`Milli`], its result thrown away as if it had not been exact, then
    /// [`Rounded`]: the tests check that nothing of the first search remains.
    #[cfg(test)]
    Rerun,
}

fn compute_graph(
    sys: &mut System,
    p: &Params,
    o: &SearchOptions,
    graph: &mut Graph,
    mut progress: Option<Progress<'_>>,
    how: Bookkeeping,
) -> Result<(), Error> {
    #[cfg(test)]
    let rerun = how == Bookkeeping::Rerun;
    #[cfg(not(test))]
    let rerun = false;
    if (how == Bookkeeping::Fastest || rerun) && amounts_in_thousandths(sys, graph) {
        let start = graph.clone();
        let nets: Vec<f32> = sys.list(NodeType::Net).iter().map(|n| n.net().map_or(0.0, |x| x.bw)).collect();
        if search_graph::<Milli>(sys, p, o, graph, progress.as_mut().map(|f| &mut **f as &mut dyn FnMut(u64)), rerun)? {
            return Ok(());
        }
        *graph = start;
        for (node, bw) in sys.nodes[NodeType::Net as usize].iter_mut().zip(nets) {
            if let Some(x) = node.net_mut() {
                x.bw = bw;
            }
        }
    }
    search_graph::<Rounded>(sys, p, o, graph, progress, false).map(|_| ())
}

/// Whether the amounts this graph's search reserves (each speed of its ladder, halved
/// between NICs for balanced trees, times the NVLS or CollNet multiplier, with the PCI
/// surcharge) are whole numbers of thousandths. Rarer amounts (a reverse link's
/// eighth) are checked as they come.
fn amounts_in_thousandths(sys: &System, graph: &Graph) -> bool {
    let ngpus = sys.count(NodeType::Gpu);
    let mults: &[f32] = match graph.pattern {
        pattern::NVLS => &[1.0, 2.0],
        pattern::COLLNET_DIRECT if ngpus > 1 => &[1.0, 1.0 / (ngpus as f32 - 1.0)],
        _ => &[1.0],
    };
    let halves = if graph.pattern == pattern::BALANCED_TREE { 2 } else { 1 };
    speed_ladder(cc_min(sys), sys.inter).iter().all(|&s| {
        [s, s / 2.0][..halves].iter().all(|&x| {
            mults.iter().all(|&m| {
                let bw = x * m;
                bandwidth::to_milli(bw).is_some() && bandwidth::to_milli(bw * 6.0 / 5.0).is_some()
            })
        })
    })
}

/// One graph's search with the given bookkeeping of link bandwidths; false when that
/// bookkeeping could not follow NCCL exactly (nothing is written back then), or when
/// told to act as if (`discard`, for the tests).
fn search_graph<B: LinkBw>(
    sys: &mut System,
    p: &Params,
    o: &SearchOptions,
    graph: &mut Graph,
    progress: Option<Progress<'_>>,
    discard: bool,
) -> Result<bool, Error> {
    let ccmin = cc_min(sys);
    let ngpus = sys.count(NodeType::Gpu);
    let ndevs = sys.count(NodeType::Dev);
    graph.computed = true;
    let cross_nic = if sys.count(NodeType::Net) > 1
        && matches!(graph.pattern, pattern::RING | pattern::BALANCED_TREE | pattern::SPLIT_TREE)
    {
        o.cross_nic
    } else {
        0
    };
    graph.cross_nic = if cross_nic == 1 { 1 } else { 0 };
    graph.bw_intra = 0.0;
    graph.bw_inter = 0.0;
    graph.latency_inter = 0.0;
    let (mut min_intra, mut max_intra) = (PathType::Loc, PathType::Sys);
    let (mut min_inter, mut max_inter) = (PathType::Pix, PathType::Sys);
    if ngpus > 1 {
        (min_intra, max_intra) = gpu_min_max_path(sys, NodeType::Gpu);
    }
    if sys.inter {
        (min_inter, max_inter) = gpu_min_max_path(sys, NodeType::Net);
        max_intra = max_inter;
    }
    if ccmin < 90 {
        max_inter = PathType::Sys;
    }
    graph.type_intra = min_intra;
    graph.type_inter = min_inter;
    graph.n_channels = 0;
    let try_same = if graph.pattern == pattern::NVLS { 0 } else { 1 };
    graph.same_channels = try_same;
    let (cpu_arch, cpu_vendor) = match sys.list(NodeType::Cpu).first().map(|c| &c.kind) {
        Some(crate::model::system::Kind::Cpu { arch, vendor, .. }) => (*arch, *vendor),
        _ => (0, 0),
    };

    if let Some((file, gx)) = &o.graph_file {
        let n = xml::load_graph(gx, file, sys, graph, o.cross_nic)?;
        if n > 0 && graph.n_channels > 0 {
            graph.from_file = true;
            return Ok(true);
        }
    }
    if graph.pattern == pattern::NVLS && (sys.count(NodeType::Nvs) == 0 || ccmin < 90) {
        return Ok(true);
    }
    if graph.pattern == pattern::NVLS {
        graph.max_channels = (MAX_NVLS_ARITY as i32).min(ngpus as i32);
    }
    if graph.pattern == pattern::COLLNET_DIRECT {
        graph.max_channels = (MAX_DIRECT_ARITY as i32 + 1).min(ngpus as i32);
    }
    if ngpus == 1 && graph.pattern != pattern::RING {
        graph.pattern = pattern::TREE;
    }
    if !sys.inter && graph.pattern == pattern::NVLS {
        graph.min_channels = graph.max_channels;
    }
    if graph.pattern == pattern::RING && split_nvlink(sys) && graph.max_channels >= 2 && graph.min_channels == 1 {
        graph.min_channels = 2;
    }
    let mut tmp = graph.clone();
    let speeds = speed_ladder(ccmin, sys.inter);
    let nspeeds = speeds.len();
    let mut pass = 1;
    let mut si = 0usize;
    let max_bw = sys.max_bw;
    let mut total_bw = sys.total_bw;
    if ndevs > 1 && graph.pattern != pattern::RING {
        total_bw = (total_bw as f64 * (ndevs as f64 * 1.0 / (ndevs as f64 - 1.0))) as f32;
    }
    while (speeds[si] > max_bw || speeds[si] * graph.min_channels as f32 > total_bw) && si < nspeeds - 1 {
        si += 1;
    }
    tmp.bw_intra = speeds[si];
    tmp.bw_inter = speeds[si];
    let mut global_timeout = GLOBAL_TIMEOUT;
    let mut search = Search::<B>::new(sys, p, o, progress);

    'search: loop {
        let mut time = if tmp.same_channels != 0 {
            TIMEOUT_SAMECHANNELS
        } else if tmp.pattern == pattern::TREE {
            TIMEOUT_TREE
        } else {
            TIMEOUT
        };
        tmp.n_channels = 0;
        global_timeout -= time as i64;
        search.rec(&mut tmp, graph, &mut time);

        let done = time == -1 || graph.n_channels as f32 * graph.bw_inter >= search.sys.total_bw;
        if !done && pass == 1 {
            if tmp.same_channels == 1
                && !(cpu_arch == cpu::ARCH_X86 && cpu_vendor == cpu::VENDOR_AMD && tmp.type_intra == PathType::Sys)
            {
                tmp.same_channels = 0;
                continue 'search;
            }
            tmp.same_channels = try_same;
            if time != -1 {
                global_timeout += time as i64;
            } else {
                global_timeout = GLOBAL_TIMEOUT;
            }
            let give_up = global_timeout < 0 && graph.n_channels > 0;
            if !give_up {
                if ccmin >= 90 && tmp.pattern == pattern::BALANCED_TREE {
                    tmp.pattern = pattern::TREE;
                    continue 'search;
                }
                tmp.pattern = graph.pattern;
                let max_i = if search.sys.inter { tmp.type_inter } else { max_intra };
                if tmp.type_intra < max_i && (graph.n_channels == 0 || tmp.type_intra < graph.type_intra) {
                    tmp.type_intra = add_path_type(tmp.type_intra, 1);
                    if tmp.type_intra < PathType::Dis {
                        continue 'search;
                    }
                }
                tmp.type_intra = min_intra;
                if search.sys.inter
                    && tmp.type_inter < max_inter
                    && (graph.n_channels == 0 || tmp.type_inter < graph.type_inter || tmp.type_inter < PathType::Pxn)
                {
                    tmp.type_inter = add_path_type(tmp.type_inter, 1);
                    if tmp.type_inter < PathType::Dis {
                        continue 'search;
                    }
                }
                tmp.type_inter = min_inter;
                if cross_nic == 2
                    && tmp.cross_nic == 0
                    && matches!(graph.pattern, pattern::RING | pattern::BALANCED_TREE)
                {
                    tmp.cross_nic = 2;
                    continue 'search;
                }
                tmp.cross_nic = if cross_nic == 1 { 1 } else { 0 };
                if si < nspeeds - 1 && (graph.n_channels == 0 || speeds[si + 1] / graph.bw_inter > 0.49) {
                    si += 1;
                    tmp.bw_inter = speeds[si];
                    tmp.bw_intra = speeds[si];
                    continue 'search;
                }
                si = 0;
                while speeds[si] > max_bw && si < nspeeds - 1 {
                    si += 1;
                }
                tmp.bw_intra = speeds[si];
                tmp.bw_inter = speeds[si];
            }
        }
        // done:
        if pass == 1 {
            time = -1;
            dup_channels(graph, ccmin, ngpus);
            tmp = graph.clone();
            si = 0;
            while speeds[si] > graph.bw_inter && si < nspeeds - 1 {
                si += 1;
            }
            tmp.bw_intra = speeds[si];
            tmp.bw_inter = speeds[si];
            tmp.min_channels = graph.n_channels;
            pass = 2;
        }
        if pass == 2 {
            if time != 0 && si > 0 {
                if graph.pattern == pattern::RING {
                    si -= 1;
                    tmp.bw_intra = speeds[si];
                    tmp.bw_inter = speeds[si];
                    continue 'search;
                } else if graph.pattern == pattern::NVLS
                    && tmp.bw_inter == graph.bw_inter
                    && tmp.bw_inter < tmp.bw_intra * 2.0
                {
                    tmp.min_channels = graph.n_channels;
                    tmp.max_channels = graph.n_channels;
                    si -= 1;
                    tmp.bw_inter = speeds[si];
                    continue 'search;
                } else if tmp.bw_intra == graph.bw_intra && tmp.bw_intra < tmp.bw_inter * 2.0 {
                    si -= 1;
                    tmp.bw_intra = speeds[si];
                    continue 'search;
                }
            }
        }
        break;
    }
    if !search.bws.exact() || discard {
        return Ok(false);
    }
    for (l, bw) in search.links.bw.iter_mut().enumerate() {
        *bw = search.bws.value(l);
    }
    search.links.write_back(search.sys);
    let sys = search.sys;
    if graph.n_channels == 0 && !graph.coll_net && graph.pattern != pattern::NVLS {
        for i in 0..ngpus {
            graph.intra[i] = sys.list(NodeType::Gpu)[i].gpu_rank();
        }
        graph.bw_intra = 0.1;
        graph.type_intra = PathType::Sys;
        let mut s = Search::<Rounded>::new(sys, p, o, None);
        let first = s.select_nets(-1, Some(0)).first().map(|&n| s.sys.list(NodeType::Net)[n].id);
        let last = s.select_nets(-1, Some(ngpus.saturating_sub(1))).first().map(|&n| s.sys.list(NodeType::Net)[n].id);
        match (first, last) {
            (Some(a), Some(b)) => {
                graph.inter[0] = a;
                graph.inter[1] = b;
                graph.bw_inter = 0.1;
                graph.type_inter = PathType::Sys;
            }
            _ => {
                graph.inter[0] = -1;
                graph.inter[1] = -1;
                graph.bw_inter = 0.0;
                graph.type_inter = PathType::Dis;
            }
        }
        graph.n_channels = 1;
    }
    Ok(true)
}

fn dup_channels(g: &mut Graph, ccmin: i32, ngpus: usize) {
    if g.n_channels == 0 || g.pattern == pattern::NVLS || g.bw_intra < 25.0 {
        return;
    }
    if ccmin > 80 && g.bw_intra < 50.0 && g.n_channels > 4 {
        return;
    }
    let n = g.n_channels as usize;
    let dup = (n * 2).min(g.max_channels as usize);
    for i in 0..(dup - n) * ngpus {
        g.intra[n * ngpus + i] = g.intra[i];
    }
    for i in 0..(dup - n) * 2 {
        g.inter[n * 2 + i] = g.inter[i];
    }
    let div = dup.div_ceil(n) as f32;
    g.bw_intra /= div;
    g.bw_inter /= div;
    g.n_channels = dup as i32;
}

/// Compute the graphs NCCL computes at init, in its order, on one system.
pub fn compute_all(sys: &mut System, p: &Params, o: &SearchOptions) -> Result<Graphs, Error> {
    compute_all_with(sys, p, o, &mut |_, _| {})
}

/// [`compute_all`], telling `progress` which graph is being searched and the steps taken
/// in it so far (every few thousand steps, and once with 0 when a graph starts).
pub fn compute_all_with(
    sys: &mut System,
    p: &Params,
    o: &SearchOptions,
    progress: &mut dyn FnMut(&'static str, u64),
) -> Result<Graphs, Error> {
    compute_all_by(sys, p, o, progress, Bookkeeping::Fastest)
}

pub(super) fn compute_all_by(
    sys: &mut System,
    p: &Params,
    o: &SearchOptions,
    progress: &mut dyn FnMut(&'static str, u64),
    how: Bookkeeping,
) -> Result<Graphs, Error> {
    let mut compute = |sys: &mut System, g: &mut Graph| -> Result<(), Error> {
        let name = g.name();
        progress(name, 0);
        compute_graph(sys, p, o, g, Some(&mut |steps| progress(name, steps)), how)
    };
    let ngpus = sys.count(NodeType::Gpu);
    let mut ring = Graph::new(0, pattern::RING, ngpus);
    ring.min_channels = 1;
    ring.max_channels = (MAXCHANNELS / 2) as i32;
    compute(sys, &mut ring)?;
    let mut tree = Graph::new(1, pattern::BALANCED_TREE, ngpus);
    tree.min_channels = ring.n_channels;
    tree.max_channels = ring.n_channels;
    compute(sys, &mut tree)?;
    let mut chain = Graph::new(2, pattern::TREE, ngpus);
    chain.coll_net = true;
    chain.min_channels = ring.n_channels;
    chain.max_channels = ring.n_channels;
    let mut direct = Graph::new(4, pattern::COLLNET_DIRECT, ngpus);
    direct.coll_net = true;
    direct.min_channels = 1;
    direct.max_channels = MAXCHANNELS as i32;
    if o.collnet {
        compute(sys, &mut chain)?;
        compute(sys, &mut direct)?;
    }
    let mut nvls = Graph::new(3, pattern::NVLS, ngpus);
    nvls.min_channels = 1;
    nvls.max_channels = MAXCHANNELS as i32;
    // NVLink SHARP needs multicast, which the driver offers only for Hopper and later
    // GPUs behind NVSwitches; NCCL does not even run the search otherwise.
    if o.nvls && ngpus >= 2 && sys.count(NodeType::Nvs) > 0 && cc_min(sys) >= 90 {
        compute(sys, &mut nvls)?;
    }
    Ok(Graphs { ring, tree, collnet_chain: chain, collnet_direct: direct, nvls })
}

/// Run the search on a copy of the analysed system. Returns the graphs and the system
/// as the search left it (link bandwidths reduced by rounding, as in NCCL).
pub fn run(an: &crate::model::Analysis, o: &SearchOptions) -> Result<(Graphs, System), Error> {
    run_with(an, o, &mut |_, _| {})
}

/// [`run`] with progress reports (see [`compute_all_with`]).
pub fn run_with(
    an: &crate::model::Analysis,
    o: &SearchOptions,
    progress: &mut dyn FnMut(&'static str, u64),
) -> Result<(Graphs, System), Error> {
    let mut sys = an.system.clone();
    let gs = compute_all_with(&mut sys, &an.params, o, progress)?;
    Ok((gs, sys))
}
