//! The communicator facts NCCL's tuning reads (`ncclComm` fields set by init), from
//! the analysed system, rank 0's graphs and the channel set-up of `search::channels`.

use crate::error::Error;
use crate::model::{Analysis, NodeType, PathType, cpu};
use crate::release::Release;
use crate::search::channels::{self, Job};
use crate::search::{Graph, Graphs, pattern};

use super::constants::tables;
use super::table::PerAlgo;
use super::{Algo, Arch, NALGO};

/// The part of a search graph the tuning reads, after NCCL aligns ring and tree.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GraphFacts {
    pub pattern: i32,
    pub n_channels: i32,
    pub same_channels: i32,
    pub bw_intra: f32,
    pub bw_inter: f32,
    pub type_intra: PathType,
    pub type_inter: PathType,
    pub latency_inter: f32,
}

impl GraphFacts {
    /// A graph NCCL did not compute: all zero, as after its `memset`.
    pub(super) fn zero(pattern: i32) -> GraphFacts {
        GraphFacts {
            pattern,
            n_channels: 0,
            same_channels: 0,
            bw_intra: 0.0,
            bw_inter: 0.0,
            type_intra: PathType::Loc,
            type_inter: PathType::Loc,
            latency_inter: 0.0,
        }
    }
    pub(super) fn of(g: &Graph) -> GraphFacts {
        if !g.computed {
            return GraphFacts::zero(g.pattern.number());
        }
        GraphFacts {
            pattern: g.pattern.number(),
            n_channels: g.n_channels,
            same_channels: g.same_channels as i32,
            bw_intra: g.bw_intra,
            bw_inter: g.bw_inter,
            type_intra: g.type_intra,
            type_inter: g.type_inter,
            latency_inter: g.latency_inter,
        }
    }
}

/// The communicator facts NCCL's tuning reads (fields of `ncclComm` set by init).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Comm {
    pub n_ranks: usize,
    pub n_nodes: usize,
    /// Rank 0's `localRanks`: the GPUs of its node, i.e. of its trimming domain (the
    /// whole host unless some GPUs reach each other only through the network).
    pub local_ranks: usize,
    pub min_cc: i32,
    pub max_cc: i32,
    /// Rank 0's compute capability (`comm->compCap`).
    pub cc: i32,
    pub arch: Arch,
    /// CPU 0's architecture and vendor (NCCL's codes; see `model::cpu`).
    pub cpu_arch: i32,
    pub cpu_vendor: i32,
    /// `comm->nChannels`, the channels ring and tree collectives can use.
    pub n_channels: usize,
    /// `comm->nvlsChannels`.
    pub nvls_channels: usize,
    pub nvls_support: bool,
    pub collnet_enable: bool,
    /// CollNet heads per node (`collNetHeadsNum`), 0 without CollNet.
    pub collnet_heads: usize,
    pub nvs_count: usize,
    /// The tree pattern the bandwidth model reads: the largest of any node
    /// (`comm->maxTreePattern`), before 2.26 rank 0's own tree graph's.
    pub tree_pattern: i32,
    pub pat_enable: bool,
    /// Network post overhead (µs), NCCL_NET_OVERHEAD or the CPU's default.
    pub net_overhead_us: f32,
    /// The NCCL release modelled.
    #[serde(skip)]
    pub release: Release,
    /// Per-algorithm graph facts, indexed by [`Algo`] (JSON: keyed by algorithm name).
    #[serde(serialize_with = "by_algo_name")]
    pub graphs: PerAlgo<GraphFacts>,
}

fn by_algo_name<S: serde::Serializer>(g: &PerAlgo<GraphFacts>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(NALGO))?;
    for a in Algo::ALL {
        m.serialize_entry(a.name(), &g[a])?;
    }
    m.end()
}

fn distinct_heads(g: &Graph, ngpus: usize) -> usize {
    if !g.computed || ngpus == 0 {
        return 0;
    }
    let mut heads: Vec<i32> = (0..g.n_channels.max(0) as usize).map(|c| g.intra[c * ngpus]).collect();
    heads.sort_unstable();
    heads.dedup();
    heads.len()
}

/// Everything [`Comm`] holds, as init leaves it on rank 0. Reports what the user should
/// know about through `warnings`.
pub(super) fn comm(an: &Analysis, gs: &Graphs, warnings: &mut Vec<String>) -> Result<Comm, Error> {
    let env = &an.options.env;
    let release = env.release();
    let sys = &an.system;

    // The nodes as init numbers them: every trimming domain of every host is one.
    let job = Job::from_analysis(an)?;
    let local_ranks = job.node_ranks().max(1);
    let n_ranks = an.n_ranks.max(1);
    let n_nodes = job.n_nodes().max(1);
    let ccs: Vec<i32> = an.gpus.iter().map(|g| g.sm).collect();
    let min_cc = ccs.iter().copied().min().unwrap_or(0);
    let max_cc = ccs.iter().copied().max().unwrap_or(0);
    let cc = an.gpus.iter().find(|g| g.rank == 0).map_or(min_cc, |g| g.sm);
    let (cpu_arch, cpu_vendor) = match sys.list(NodeType::Cpu).first().map(|n| &n.kind) {
        Some(crate::model::system::Kind::Cpu { arch, vendor, .. }) => (*arch, *vendor),
        _ => (0, 0),
    };

    // CollNet: `--collnet` stands for a SHARP-capable network with NCCL_COLLNET_ENABLE=1.
    let collnet_requested = job.collnet;
    // The graphs, aligned across the ranks as init.cc does, then ring and tree get
    // min(ring, tree) channels.
    let (al, max_tree_pattern) = job.align(gs);
    let tree_pattern =
        if release.tree_penalty_reads_max_pattern() { max_tree_pattern } else { gs.tree.pattern.number() };
    let nvls_support = al.nvls.computed && al.nvls.n_channels > 0;
    let mut tree = GraphFacts::of(&al.tree);
    let mut ring = GraphFacts::of(&al.ring);
    let aligned = ring.n_channels.min(tree.n_channels);
    ring.n_channels = aligned;
    tree.n_channels = aligned;
    let (direct, chain) = if collnet_requested {
        (GraphFacts::of(&al.collnet_direct), GraphFacts::of(&al.collnet_chain))
    } else {
        (GraphFacts::zero(pattern::COLLNET_DIRECT), GraphFacts::zero(pattern::TREE))
    };
    let nvls = GraphFacts::of(&al.nvls);
    let graphs = PerAlgo([tree, ring, direct, chain, nvls, nvls, tree]);

    let mut collnet_enable = collnet_requested && chain.n_channels > 0;
    let threshold = env.channels.collnet_node_threshold;
    if collnet_enable && (n_nodes as i64) < threshold {
        collnet_enable = false;
        warnings.push(format!("CollNet is off: {n_nodes} node(s) is below NCCL_COLLNET_NODE_THRESHOLD ({threshold})"));
    }
    let collnet_heads = if !collnet_enable {
        0
    } else if nvls_support {
        distinct_heads(&gs.nvls, local_ranks)
    } else {
        distinct_heads(&gs.collnet_direct, local_ranks)
    };

    let n_channels = channels::coll_channels(gs, &job);
    let nvls_channels = channels::nvls_channels(&job, nvls_support);

    let pat_param = env.tune.pat_enable;
    let pat_enable = if min_cc < 60 && release.pat_needs_sm60() {
        false
    } else if pat_param != 2 {
        pat_param != 0
    } else {
        n_nodes == n_ranks
    };
    let net_overhead_us = match env.tune.net_overhead {
        -2 if cpu_arch == cpu::ARCH_X86 && cpu_vendor == cpu::VENDOR_AMD => 2.0,
        -2 => 1.0,
        ns => (ns as f64 * 0.001) as f32,
    };

    let comm = Comm {
        n_ranks,
        n_nodes,
        local_ranks,
        min_cc,
        max_cc,
        cc,
        arch: match Arch::from_cc(min_cc) {
            Arch::Blackwell if !tables(release.tuning_tables()).blackwell_row => Arch::Hopper,
            arch => arch,
        },
        cpu_arch,
        cpu_vendor,
        n_channels,
        nvls_channels,
        nvls_support,
        collnet_enable,
        collnet_heads,
        nvs_count: sys.count(NodeType::Nvs),
        tree_pattern,
        pat_enable,
        net_overhead_us,
        release,
        graphs,
    };
    Ok(comm)
}
