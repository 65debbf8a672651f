//! `ncclTopoCompute`: the rounds of the search for one graph, its relaxation, and the
//! graphs NCCL computes at init.

use super::bandwidth::{self, LinkBw, Milli, Rounded};
use super::graph::{CrossNic, Graph, GraphId, Graphs, Pattern};
use super::ladder::{Ladder, Pass};
use super::limits::{GLOBAL_TIMEOUT, MAX_DIRECT_ARITY, MAX_NVLS_ARITY};
use super::options::SearchOptions;
use super::recursion::{Progress, Search};
use super::speeds::speed_ladder;
use super::xml;
use crate::error::Error;
use crate::model::paths::Params;
use crate::model::system::System;
use crate::model::{NodeType, PathType, cpu};
use crate::release::{C2cLinks, ComputeEnd};

/// The best and worst path types from the GPUs to every node of a type, in the
/// release's order of types (`p2c_after_pxn`: 2.27.3).
fn gpu_min_max_path(sys: &System, ty: NodeType, p2c_after_pxn: bool) -> (PathType, PathType) {
    let mut min = PathType::Sys;
    let mut max = PathType::Loc;
    let key = |t: PathType| t.rank(p2c_after_pxn);
    for (i, g) in sys.list(NodeType::Gpu).iter().enumerate() {
        let paths = &g.paths[ty as usize];
        for (j, p) in paths.iter().enumerate().take(sys.count(ty)) {
            if ty == NodeType::Gpu && i == j {
                continue;
            }
            if key(p.ty) < key(min) {
                min = p.ty;
            }
            if key(p.ty) > key(max) {
                max = p.ty;
            }
        }
    }
    (min, max)
}

fn split_nvlink(sys: &System) -> bool {
    let n = sys.count(NodeType::Gpu);
    let mut dom: Vec<usize> = (0..n).collect();
    for g in 0..n {
        let d = dom[g];
        let paths = &sys.list(NodeType::Gpu)[g].paths[NodeType::Gpu as usize];
        for (q, dq) in dom.iter_mut().enumerate().skip(g + 1) {
            if paths[q].ty == PathType::Nvl {
                *dq = d;
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
    if (how == Bookkeeping::Fastest || rerun) && amounts_in_thousandths(sys, p, graph) {
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
fn amounts_in_thousandths(sys: &System, p: &Params, graph: &Graph) -> bool {
    let ngpus = sys.count(NodeType::Gpu);
    let mults: &[f32] = match graph.pattern {
        Pattern::Nvls => &[1.0, 2.0],
        Pattern::CollNetDirect if ngpus > 1 => &[1.0, 1.0 / (ngpus as f32 - 1.0)],
        _ => &[1.0],
    };
    let halves = if graph.pattern == Pattern::BalancedTree { 2 } else { 1 };
    speed_ladder(p.release.speed_tables(), cc_min(sys), sys.inter).iter().all(|&s| {
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
        && matches!(graph.pattern, Pattern::Ring | Pattern::BalancedTree | Pattern::SplitTree)
    {
        CrossNic::from_env(o.cross_nic)
    } else {
        CrossNic::Off
    };
    graph.cross_nic = if cross_nic == CrossNic::On { CrossNic::On } else { CrossNic::Off };
    graph.bw_intra = 0.0;
    graph.bw_inter = 0.0;
    graph.latency_inter = 0.0;
    let (mut min_intra, mut max_intra) = (PathType::Loc, PathType::Sys);
    let (mut min_inter, mut max_inter) = (PathType::Pix, PathType::Sys);
    if ngpus > 1 {
        (min_intra, max_intra) = gpu_min_max_path(sys, NodeType::Gpu, p.release.p2c_after_pxn());
    }
    if sys.inter {
        (min_inter, max_inter) = gpu_min_max_path(sys, NodeType::Net, p.release.p2c_after_pxn());
        max_intra = max_inter;
    }
    if ccmin < 90 {
        max_inter = PathType::Sys;
    }
    let types_from_paths = p.release.search_types_from_paths();
    if !types_from_paths {
        min_intra = if ngpus == 1 { PathType::Loc } else { PathType::Nvl };
        (max_intra, min_inter, max_inter) = (PathType::Sys, PathType::Pix, PathType::Sys);
    }
    graph.type_intra = min_intra;
    graph.type_inter = min_inter;
    graph.n_channels = 0;
    let try_same = graph.pattern != Pattern::Nvls;
    graph.same_channels = try_same;
    let (cpu_arch, cpu_vendor) = match sys.list(NodeType::Cpu).first().map(|c| &c.kind) {
        Some(crate::model::system::Kind::Cpu { arch, vendor, .. }) => (*arch, *vendor),
        _ => (0, 0),
    };

    if let Some((file, gx)) = &o.graph_file {
        let n = xml::load_graph(gx, file, sys, graph, o.cross_nic, p.release)?;
        if n > 0 && graph.n_channels > 0 {
            graph.from_file = true;
            return Ok(true);
        }
    }
    if graph.pattern == Pattern::Nvls && (sys.count(NodeType::Nvs) == 0 || ccmin < 90) {
        return Ok(true);
    }
    // Heads: at most one per GPU, and (2.25) the algorithm's arity.
    if graph.pattern == Pattern::Nvls {
        graph.max_channels = if types_from_paths { (MAX_NVLS_ARITY as i32).min(ngpus as i32) } else { ngpus as i32 };
    }
    if graph.pattern == Pattern::CollNetDirect {
        graph.max_channels =
            if types_from_paths { (MAX_DIRECT_ARITY as i32 + 1).min(ngpus as i32) } else { ngpus as i32 };
    }
    if ngpus == 1 && graph.pattern != Pattern::Ring {
        graph.pattern = Pattern::Tree;
    }
    if !sys.inter && graph.pattern == Pattern::Nvls {
        graph.min_channels = graph.max_channels;
    }
    if graph.pattern == Pattern::Ring
        && p.release.split_nvlink()
        && split_nvlink(sys)
        && graph.max_channels >= 2
        && graph.min_channels == 1
    {
        graph.min_channels = 2;
    }
    let speeds = speed_ladder(p.release.speed_tables(), ccmin, sys.inter);
    let mut total_bw = sys.total_bw;
    if ndevs > 1 && graph.pattern != Pattern::Ring {
        total_bw = (total_bw as f64 * (ndevs as f64 * 1.0 / (ndevs as f64 - 1.0))) as f32;
    }
    let mut speed = 0;
    while (speeds[speed] > sys.max_bw || speeds[speed] * graph.min_channels as f32 > total_bw)
        && speed < speeds.len() - 1
    {
        speed += 1;
    }
    let mut ladder = Ladder {
        tmp: graph.clone(),
        pass: Pass::Relax,
        speeds,
        speed,
        global_budget: GLOBAL_TIMEOUT,
        try_same,
        cross_nic,
        cross_nic_rules: p.release.cross_nic_rules(),
        c2c_type: p.release.c2c_links() == C2cLinks::C2c,
        p2c_type: p.release.p2c_paths(),
        p2c_after_pxn: p.release.p2c_after_pxn(),
        end: p.release.compute_end(),
        min_intra,
        max_intra,
        min_inter,
        max_inter,
        amd_x86: cpu_arch == cpu::ARCH_X86 && cpu_vendor == cpu::VENDOR_AMD,
        cc_min: ccmin,
        inter: sys.inter,
        max_bw: sys.max_bw,
    };
    ladder.tmp.bw_intra = speeds[speed];
    ladder.tmp.bw_inter = speeds[speed];
    // The optimum the rounds stop at: every channel's inter bandwidth adds up to the
    // system's (not the total adjusted above, as in NCCL).
    let optimum = sys.total_bw;
    let mut search = Search::<B>::new(sys, p, o, progress);
    loop {
        let mut budget = ladder.round_budget();
        ladder.tmp.n_channels = 0;
        search.rec(&mut ladder.tmp, graph, &mut budget);
        if !ladder.next_round(graph, budget, optimum, ngpus) {
            break;
        }
    }
    if let Some(f) = search.progress.as_mut() {
        f(search.steps);
    }
    if !search.bws.exact() || discard {
        return Ok(false);
    }
    // Before 2.19.3 channels are duplicated after pass 2 (the fallback graph below, if
    // any, is too slow to be).
    match p.release.compute_end() {
        ComputeEnd::V2_18_1 => super::ladder::dup_channels_2_18_1(graph, ccmin, ngpus),
        ComputeEnd::V2_18_3 | ComputeEnd::V2_19_1 => super::ladder::dup_channels(graph, ccmin, ngpus),
        ComputeEnd::V2_19_3 => {}
    }
    for (l, bw) in search.links.bw.iter_mut().enumerate() {
        *bw = search.bws.value(l);
    }
    search.links.write_back(search.sys);
    let sys = search.sys;
    if graph.n_channels == 0 && !graph.coll_net && graph.pattern != Pattern::Nvls && !p.release.fallback_selects_nets()
    {
        // Before 2.29.2: the GPUs in index order, NET id 0 both ways.
        for i in 0..ngpus {
            graph.intra[i] = sys.list(NodeType::Gpu)[i].gpu_rank();
        }
        let net0 = sys.inter.then_some(0);
        (graph.inter[0], graph.inter[1]) = (net0, net0);
        (graph.bw_intra, graph.bw_inter) = (0.1, 0.1);
        (graph.type_intra, graph.type_inter) = (PathType::Sys, PathType::Sys);
        graph.n_channels = 1;
    }
    if graph.n_channels == 0 && !graph.coll_net && graph.pattern != Pattern::Nvls {
        for i in 0..ngpus {
            graph.intra[i] = sys.list(NodeType::Gpu)[i].gpu_rank();
        }
        graph.bw_intra = 0.1;
        graph.type_intra = PathType::Sys;
        let mut s = Search::<Rounded>::new(sys, p, o, None);
        // ncclTopoSelectNets starts from the NETs ncclTopoGetLocalNet gives each GPU
        // asked for, and that fails the init when the GPU has none (no NET at all).
        for g in [0, ngpus.saturating_sub(1)] {
            if s.local_net(s.sys.list(NodeType::Gpu)[g].gpu_rank(), 0).is_none() {
                return Err(no_local_net(g));
            }
        }
        let first = s.select_nets(-1, Some(0)).first().map(|&n| s.sys.list(NodeType::Net)[n].id);
        let last = s.select_nets(-1, Some(ngpus.saturating_sub(1))).first().map(|&n| s.sys.list(NodeType::Net)[n].id);
        match (first, last) {
            (Some(a), Some(b)) => {
                graph.inter[0] = Some(a);
                graph.inter[1] = Some(b);
                graph.bw_inter = 0.1;
                graph.type_inter = PathType::Sys;
            }
            _ => {
                graph.inter[0] = None;
                graph.inter[1] = None;
                graph.bw_inter = 0.0;
                graph.type_inter = PathType::Dis;
            }
        }
        graph.n_channels = 1;
    }
    Ok(true)
}

/// NCCL's init failure when a GPU reaches no NET (`ncclTopoGetLocalNet`); `g` is the
/// GPU's index in the system, as NCCL names it.
fn no_local_net(g: usize) -> Error {
    Error::Input {
        file: "<graphs>".into(),
        message: format!(
            "GPU index {g} reaches no NET, and the search found no graph: its fallback asks for the GPU's NETs and \
             NCCL's init fails ('Could not find any local path from gpu {g} to net.')"
        ),
    }
}

/// Compute the graphs NCCL computes at init, in its order, on one system.
pub fn compute_all(sys: &mut System, p: &Params, o: &SearchOptions) -> Result<Graphs, Error> {
    compute_all_with(sys, p, o, &mut |_, _| {})
}

/// [`compute_all`], telling `progress` which graph is being searched and the steps taken
/// in it so far: once with 0 when a graph starts, every few thousand steps, and with
/// the total when a search pass ends (a graph may take several passes, each counting
/// from 0).
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
    let max_channels = p.release.max_channels() as i32;
    let mut ring = Graph::new(GraphId::Ring, Pattern::Ring, ngpus);
    ring.min_channels = 1;
    ring.max_channels = max_channels / 2;
    compute(sys, &mut ring)?;
    let mut tree = Graph::new(GraphId::Tree, Pattern::BalancedTree, ngpus);
    tree.min_channels = ring.n_channels;
    tree.max_channels = ring.n_channels;
    compute(sys, &mut tree)?;
    let mut chain = Graph::new(GraphId::CollNetChain, Pattern::Tree, ngpus);
    chain.coll_net = true;
    chain.min_channels = ring.n_channels;
    chain.max_channels = ring.n_channels;
    let mut direct = Graph::new(GraphId::CollNetDirect, Pattern::CollNetDirect, ngpus);
    direct.coll_net = true;
    direct.min_channels = 1;
    direct.max_channels = max_channels;
    if o.collnet {
        compute(sys, &mut chain)?;
        if p.release.collnet_direct_graph() {
            compute(sys, &mut direct)?;
        } else {
            // Before 2.22 the one CollNet graph (a tree) serves both algorithms.
            direct = chain.clone();
        }
    }
    let mut nvls = Graph::new(GraphId::Nvls, Pattern::Nvls, ngpus);
    nvls.min_channels = 1;
    nvls.max_channels = max_channels;
    // NVLink SHARP needs multicast, which the driver offers only for Hopper and later
    // GPUs behind NVSwitches; NCCL does not even run the search otherwise.
    if o.nvls && ngpus >= p.release.nvls_min_gpus() && sys.count(NodeType::Nvs) > 0 && cc_min(sys) >= 90 {
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
