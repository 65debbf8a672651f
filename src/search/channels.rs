//! What NCCL's init finally runs once the graphs are known (NCCL 2.30.7 `ncclTopoPreset`,
//! `ncclTopoPostset`, `connectRings`, `connectTrees`, `ncclBuildRings`).
//!
//! The search gives one node's channels. A job of N identical nodes runs them on every
//! node, node n's ranks being node 0's shifted by `n * localRanks`. Init then
//! - keeps `min(ring, tree)` channels,
//! - links each node's ring chain to its neighbours' (`connectRings`), swapping pairs of
//!   channels on odd nodes when the ring search ended with `crossNic == 2`,
//! - builds two trees per channel: the intra-node chain of the tree graph, joined
//!   across nodes by NCCL's double binary tree (`ncclGetDtree`); channel `c` uses the
//!   first tree, channel `c + n` the mirrored (or shifted) one,
//! - doubles the channels (capped at 64, 32 before 2.25), adds CollNet chain channels,
//!   doubles again on sm90+ multi-node rings faster than 45 GB/s, and applies
//!   NCCL_MAX_NCHANNELS / NCCL_MIN_NCHANNELS (and the NCCL_*_NRINGS, NCCL_*_CTAS
//!   variables) the way `copyChannels` does; from 2.20 to 2.27 it then copies channels
//!   up to the NVLS channel count.
//!
//! Every channel of the final list is a copy of one of `2n` base channels; [`Run`] keeps
//! the base channels' ring and tree links for every rank, and which base each final
//! channel copies.

use crate::env::Env;
use crate::error::Error;
use crate::release::{Release, RingPairSwap};
use crate::search::{CrossNic, Graph, Graphs, MAXCHANNELS, Pattern};

/// Children a tree node can have (`NCCL_MAX_TREE_ARITY`).
pub const MAX_TREE_ARITY: usize = 3;

/// One node of NCCL's binary tree over `n` items (`ncclGetBtree`): parent, two
/// children (-1 when none), and whether this node is its parent's first (0) or second
/// (1) child. The root is 0; the tree is built on the bits of the index.
pub fn btree(n: i32, rank: i32) -> (i32, i32, i32, i32) {
    let mut bit = 1;
    while bit < n {
        if bit & rank != 0 {
            break;
        }
        bit <<= 1;
    }
    if rank == 0 {
        let d1 = if n > 1 { bit >> 1 } else { -1 };
        return (-1, -1, d1, 0);
    }
    let mut up = (rank ^ bit) | (bit << 1);
    if up >= n {
        up = rank ^ bit;
    }
    let child_type = if rank < up { 0 } else { 1 };
    let mut low = bit >> 1;
    let d0 = if low == 0 { -1 } else { rank - low };
    let mut d1 = if low == 0 { -1 } else { rank + low };
    // NCCL recomputes with the current bit before halving it, so the first pass through
    // the loop changes nothing; kept as NCCL has it.
    while d1 >= n {
        d1 = if low == 0 { -1 } else { rank + low };
        low >>= 1;
    }
    (up, d0, d1, child_type)
}

/// One tree of the pair: parent, children, and the child type NCCL computes for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeNode {
    pub up: i32,
    pub down0: i32,
    pub down1: i32,
    pub child_type: i32,
}

/// NCCL's double binary tree (`ncclGetDtree`): the binary tree, and a second tree that
/// is its mirror (even `n`) or the same tree shifted by one (odd `n`).
pub fn dtree(n: i32, rank: i32) -> (TreeNode, TreeNode) {
    let (u, d0, d1, t) = btree(n, rank);
    let first = TreeNode { up: u, down0: d0, down1: d1, child_type: t };
    let second = if n % 2 == 1 {
        let shifted = (rank - 1 + n) % n;
        let (u, d0, d1, t) = btree(n, shifted);
        let back = |x: i32| if x == -1 { -1 } else { (x + 1) % n };
        TreeNode { up: back(u), down0: back(d0), down1: back(d1), child_type: t }
    } else {
        let (u, d0, d1, t) = btree(n, n - 1 - rank);
        let back = |x: i32| if x == -1 { -1 } else { n - 1 - x };
        TreeNode { up: back(u), down0: back(d0), down1: back(d1), child_type: t }
    };
    (first, second)
}

/// The channel-count variables NCCL reads, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// `ncclMinNchannels()`: NCCL_MIN_NCHANNELS, else NCCL_MIN_NRINGS, else 0; 0..=64.
    pub min_nchannels: usize,
    /// `ncclMaxNchannels()`: NCCL_MAX_NCHANNELS, else NCCL_MAX_NRINGS, else 64; 1..=64.
    pub max_nchannels: usize,
    /// The communicator's minCTAs (NCCL_MIN_CTAS, default 1).
    pub min_ctas: usize,
    /// The communicator's maxCTAs (NCCL_MAX_CTAS, default 64).
    pub max_ctas: usize,
    /// What NCCL says about the values it adjusted.
    pub notes: Vec<String>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { min_nchannels: 0, max_nchannels: MAXCHANNELS, min_ctas: 1, max_ctas: MAXCHANNELS, notes: vec![] }
    }
}

impl Limits {
    /// Read the variables from the environment snapshot, as NCCL does.
    pub fn from_env(env: &Env) -> Limits {
        let mut notes = Vec::new();
        let m = env.release().max_channels() as i64;
        // NCCL_PARAM values are int64, stored into an int.
        let int = |v: i64| v as i32 as i64;
        let c = &env.channels;
        let mut min = match c.min_channels() {
            -2 => 0,
            v => int(v),
        };
        if min > m {
            notes.push(format!("User asked for a minimum of {min} channels, limiting to {m}"));
            min = m;
        }
        let min = min.max(0);
        let mut max = match c.max_channels() {
            -2 => m,
            v => int(v),
        };
        if c.work_args_bytes {
            notes.push(
                "NCCL_WORK_ARGS_BYTES is set: NCCL may cap the channels further to fit its kernel arguments; not modelled"
                    .into(),
            );
        }
        if max > m {
            max = m;
        }
        if max < 1 {
            notes.push(format!("User asked for a maximum of {max} channels, setting it to 1"));
            max = 1;
        }
        // The communicator config, with the NCCL_MIN_CTAS / NCCL_MAX_CTAS overrides.
        let undef = crate::env::UNDEF_INT;
        let mut min_ctas = 1i64;
        let mut max_ctas = m;
        let v = int(c.min_ctas);
        if v != undef {
            if v <= 0 {
                notes.push(format!("NCCL_MIN_CTAS {v} is too low, leaving it set at {min_ctas}"));
            } else {
                min_ctas = v;
            }
        }
        let v = int(c.max_ctas);
        if v != undef {
            if v <= 0 {
                notes.push(format!("NCCL_MAX_CTAS {v} is too low, leaving it set at {max_ctas}"));
            } else {
                max_ctas = v;
            }
        }
        if min_ctas > m {
            notes.push(format!("minCTAs {min_ctas} is larger than #channels upper limit {m}, cap it to {m}"));
            min_ctas = m;
        }
        if max_ctas > m {
            notes.push(format!("maxCTAs {max_ctas} is larger than #channels upper limit {m}, cap it to {m}"));
            max_ctas = m;
        }
        if min_ctas > max_ctas {
            notes.push(format!("minCTAs {min_ctas} is larger than maxCTAs {max_ctas}, set both to {max_ctas}"));
            min_ctas = max_ctas;
        }
        Limits {
            min_nchannels: min as usize,
            max_nchannels: max as usize,
            min_ctas: min_ctas as usize,
            max_ctas: max_ctas as usize,
            notes,
        }
    }
}

/// One trimming domain of a host: GPUs that reach each other without the network.
///
/// Every rank trims the host's system to its own domain (`ncclTopoTrimSystem`) and
/// searches its own graphs. After the allgather, init numbers the nodes by the first
/// rank of each rank's ring (`ringRecv[0]`), so each domain of each host is a node of its
/// own, with `localRanks` = the domain's GPUs, whatever the host hashes say.
#[derive(Debug, Clone)]
pub struct Domain {
    /// The domain's ranks on the first host, ascending.
    pub ranks: Vec<i32>,
    /// The graphs its ranks searched (channels name ranks of the first host).
    pub graphs: Graphs,
}

/// The facts about the job that the channel set-up needs besides the graphs.
#[derive(Debug, Clone)]
pub struct Job {
    /// Identical hosts (`--nodes`).
    pub nodes: usize,
    /// GPUs (ranks) a host.
    pub local_ranks: usize,
    /// Rank 0's domain: the ranks of the GPUs it kept after trimming, ascending (all of
    /// the host's, `0..local_ranks`, when nothing was trimmed).
    pub ranks: Vec<i32>,
    /// The host's other domains, with their own graphs; empty without trimming.
    pub others: Vec<Domain>,
    /// Smallest compute capability of the GPUs.
    pub min_cc: i32,
    /// Rank 0's compute capability (`comm->compCap`).
    pub cc: i32,
    /// CollNet requested (`--collnet`, unless NCCL_COLLNET_ENABLE=0).
    pub collnet: bool,
    /// NCCL_COLLNET_NODE_THRESHOLD (default 2).
    pub collnet_node_threshold: i64,
    /// NCCL_NVLS_NCHANNELS, when set to a number.
    pub nvls_nchannels: Option<i64>,
    pub limits: Limits,
    /// The NCCL release modelled.
    pub release: Release,
    /// `comm->minLocalRanks`: the fewest ranks of any node.
    pub min_local_ranks: usize,
    /// `comm->minNetBw`: the slowest path any rank has to the NETs it uses, GB/s.
    pub min_net_bw: f32,
}

impl Job {
    /// The job an analysis describes. Where trimming split the host, the other domains'
    /// graphs are searched here, each from its first rank's point of view.
    pub fn from_analysis(an: &crate::model::Analysis) -> Result<Job, Error> {
        let env = &an.options.env;
        let sys = &an.system;
        let host = an.host_gpus();
        let ranks_of = |s: &crate::model::system::System| -> Result<Vec<i32>, Error> {
            let mut ranks: Vec<i32> = s.list(crate::model::NodeType::Gpu).iter().map(|g| g.gpu_rank()).collect();
            ranks.sort_unstable();
            if ranks.iter().any(|&r| r < 0 || r as usize >= host) {
                return Err(Error::Unavailable(format!(
                    "the GPUs' ranks are {ranks:?}, not within 0..{host}; cannot lay out the nodes"
                )));
            }
            Ok(ranks)
        };
        let ranks = ranks_of(sys)?;
        let mut min_net_bw = min_net_bw(sys, &an.params, &ranks);
        let mut min_cc = crate::search::cc_min(sys);
        let mut others = Vec::new();
        let mut left: Vec<i32> = an.trimmed.clone();
        left.sort_unstable();
        if !left.is_empty() {
            let so = crate::search::SearchOptions::from_analysis(an);
            while let Some(&first) = left.first() {
                let (mut dsys, _) = an.system_of_rank(first)?;
                let dranks = ranks_of(&dsys)?;
                min_cc = min_cc.min(crate::search::cc_min(&dsys));
                min_net_bw = min_net_bw.min(self::min_net_bw(&dsys, &an.params, &dranks));
                let graphs = crate::search::compute_all(&mut dsys, &an.params, &so)?;
                left.retain(|r| !dranks.contains(r));
                others.push(Domain { ranks: dranks, graphs });
            }
        }
        let collnet_env = env.tune.collnet_enable;
        let cc = an.gpus.iter().find(|g| g.rank == 0).map_or(min_cc, |g| g.sm);
        let min_local_ranks = others.iter().map(|o| o.ranks.len()).chain([ranks.len()]).min().unwrap_or(0);
        Ok(Job {
            min_local_ranks,
            min_net_bw,
            nodes: an.nccl_nodes(),
            local_ranks: host,
            ranks,
            others,
            min_cc,
            cc,
            collnet: an.options.collnet && collnet_env != Some(0),
            collnet_node_threshold: an.options.env.channels.collnet_node_threshold,
            nvls_nchannels: an.options.env.channels.nvls_nchannels,
            limits: Limits::from_env(&an.options.env),
            release: env.release(),
        })
    }

    /// The host's domains in NCCL's node order (by first rank), with their graphs;
    /// rank 0's is `gs`.
    fn domains<'a>(&'a self, gs: &'a Graphs) -> Vec<(&'a [i32], &'a Graphs)> {
        let mut d: Vec<(&[i32], &Graphs)> = vec![(&self.ranks, gs)];
        d.extend(self.others.iter().map(|o| (o.ranks.as_slice(), &o.graphs)));
        d.sort_by_key(|(r, _)| r.first().copied().unwrap_or(i32::MAX));
        d
    }

    /// NCCL nodes: every domain of every host.
    pub fn n_nodes(&self) -> usize {
        self.nodes * (1 + self.others.len())
    }

    /// Rank 0's `localRanks`: the GPUs of its domain.
    pub fn node_ranks(&self) -> usize {
        self.ranks.len()
    }

    /// The graphs as every rank holds them after init's allgather ("align all ranks so
    /// that the tuning is consistent"): rank 0's graphs with, for each algorithm, the
    /// fewest channels, the lowest `sameChannels` and bandwidths, and the worst path
    /// types and `crossNic` any domain found. Also the largest tree pattern
    /// (`comm->maxTreePattern`).
    pub fn align(&self, gs: &Graphs) -> (Graphs, i32) {
        let mut out = gs.clone();
        let mut tree_pattern = gs.tree.pattern;
        for o in &self.others {
            let pairs = [
                (&mut out.ring, &o.graphs.ring),
                (&mut out.tree, &o.graphs.tree),
                (&mut out.collnet_chain, &o.graphs.collnet_chain),
                (&mut out.collnet_direct, &o.graphs.collnet_direct),
                (&mut out.nvls, &o.graphs.nvls),
            ];
            for (g, h) in pairs {
                g.n_channels = g.n_channels.min(h.n_channels);
                g.same_channels = g.same_channels.min(h.same_channels);
                g.bw_intra = g.bw_intra.min(h.bw_intra);
                g.bw_inter = g.bw_inter.min(h.bw_inter);
                g.type_intra = g.type_intra.max(h.type_intra);
                g.type_inter = g.type_inter.max(h.type_inter);
                g.cross_nic = g.cross_nic.max(h.cross_nic);
            }
            tree_pattern = tree_pattern.max(o.graphs.tree.pattern);
        }
        (out, tree_pattern.number())
    }
}

/// One change to the channel count, in NCCL's order.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Step {
    pub what: String,
    pub n_channels: usize,
}

/// The tree roles of one node for one channel: the ranks that talk to the parent node
/// and to the two child nodes (`treeToParent`, `treeToChild0`, `treeToChild1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Roles {
    parent: i32,
    child0: i32,
    child1: i32,
}

/// The channels NCCL runs, for every rank of the job.
#[derive(Debug, Clone)]
pub struct Run {
    /// NCCL nodes: the hosts, times the trimming domains of a host.
    pub nodes: usize,
    /// Rank 0's `localRanks`.
    pub local_ranks: usize,
    pub n_ranks: usize,
    /// Channels of the ring and tree graphs (the fewest any domain found).
    pub ring_graph_channels: usize,
    pub tree_graph_channels: usize,
    /// `min(ring, tree)`: the search channels every rank sets up.
    pub search_channels: usize,
    /// The final `comm->nChannels`.
    pub n_channels: usize,
    /// Odd nodes swap channel pairs (ring search ended with crossNic 2).
    pub cross_nic_swap: bool,
    /// How the count went from `search_channels` to `n_channels`.
    pub steps: Vec<Step>,
    /// NCCL's remarks on the variables it adjusted.
    pub notes: Vec<String>,
    /// For every final channel, the base channel (0..2*search_channels) it copies.
    pub source: Vec<usize>,
    /// Ring links of the `search_channels` ring bases, `[base][rank]`.
    ring_prev: Vec<Vec<i32>>,
    ring_next: Vec<Vec<i32>>,
    /// Tree links of the `2 * search_channels` bases, `[base][rank]`.
    tree_up: Vec<Vec<i32>>,
    tree_down: Vec<Vec<[i32; MAX_TREE_ARITY]>>,
    /// Per search channel and node, the ranks with inter-node tree roles.
    roles: Vec<Vec<Roles>>,
    /// The node of every rank (`comm->rankToNode`).
    rank_to_node: Vec<usize>,
}

fn bad_graph(msg: String) -> Error {
    Error::Input { file: "<graphs>".into(), message: msg }
}

/// One NCCL node: a domain of one host, its ranks shifted to that host.
struct NodeOf<'a> {
    /// First rank of the host.
    offset: i32,
    /// The domain's ranks on the first host.
    ranks: &'a [i32],
    graphs: &'a Graphs,
}

impl NodeOf<'_> {
    /// The `i`-th rank of channel `c` of `g` (one of this node's graphs), on this node's
    /// host. NCCL indexes the flat array with its own `localRanks`, so an index past the
    /// channel reads the next channel.
    fn rank(&self, g: &Graph, name: &str, c: usize, i: usize) -> Result<i32, Error> {
        let l = self.ranks.len();
        let r = g.intra.get(c * l + i).copied().unwrap_or(0);
        if !self.ranks.contains(&r) {
            return Err(bad_graph(format!(
                "{name} graph channel {c} names rank {r}, but the node has ranks {:?}",
                self.ranks
            )));
        }
        Ok(r + self.offset)
    }
}

/// The collective channels (`comm->nChannels`) NCCL ends up with, without laying out
/// the rings and trees: see [`build`].
pub fn coll_channels(gs: &Graphs, job: &Job) -> usize {
    let (al, _) = job.align(gs);
    let n = al.ring.n_channels.min(al.tree.n_channels).max(0) as usize;
    let (source, _) = postset(&al, job, n);
    source.len()
}

/// `ncclTopoPostset` on the channel count: duplicate, add CollNet and sm90 copies, then
/// apply the user's limits and, from 2.20 to 2.27, raise to the NVLS channel count.
/// Returns which base channel each final channel copies.
fn postset(al: &Graphs, job: &Job, n: usize) -> (Vec<usize>, Vec<Step>) {
    let nn = job.n_nodes();
    let nr = job.nodes * job.local_ranks;
    let max = job.release.max_channels();
    let mut steps = Vec::new();
    let mut source: Vec<usize> = (0..(2 * n).min(max)).collect();
    steps.push(Step {
        what: format!("duplicated (second tree of the pair), capped at {max}"),
        n_channels: source.len(),
    });
    let chain = &al.collnet_chain;
    if job.collnet && chain.computed && chain.n_channels > 0 {
        if (nn as i64) < job.collnet_node_threshold {
            steps.push(Step {
                what: format!(
                    "CollNet off: {nn} node(s), below NCCL_COLLNET_NODE_THRESHOLD {}",
                    job.collnet_node_threshold
                ),
                n_channels: source.len(),
            });
        } else if chain.bw_intra > chain.bw_inter && nr > nn {
            let cur = source.len();
            copy_channels(&mut source, (cur + cur / 2).min(max));
            steps.push(Step {
                what: "CollNet chain: +half to saturate intra-node bandwidth (bwIntra > bwInter)".into(),
                n_channels: source.len(),
            });
        }
    }
    let ring = &al.ring;
    if job.release.doubles_multi_node_channels(job.min_cc)
        && nn > 1
        && ring.bw_intra > 45.0
        && job.release.doubling_room(source.len())
    {
        let cur = source.len();
        copy_channels(&mut source, 2 * cur);
        steps.push(Step {
            what: format!("sm{} multi-node, ring bwIntra {} > 45: doubled", job.min_cc, ring.bw_intra),
            n_channels: source.len(),
        });
    }
    let lim = &job.limits;
    let cap = lim.max_nchannels.min(lim.max_ctas);
    if source.len() > cap {
        source.truncate(cap);
        steps.push(Step { what: limit_name(lim, true), n_channels: source.len() });
    }
    let floor = lim.min_nchannels.max(lim.min_ctas);
    if floor > source.len() {
        copy_channels(&mut source, floor);
        steps.push(Step { what: limit_name(lim, false), n_channels: source.len() });
    }
    if job.release.coll_channels_follow_nvls() {
        let nvls = nvls_channels(job, al.nvls.computed && al.nvls.n_channels > 0);
        if source.len() < nvls {
            copy_channels(&mut source, nvls);
            steps.push(Step { what: format!("raised to the {nvls} NVLS channels"), n_channels: source.len() });
        }
    }
    (source, steps)
}

/// `comm->nvlsChannels` after `ncclNvlsTuning` (0 when NVLS is not in use): the
/// release's default for rank 0's GPU, NCCL_NVLS_NCHANNELS, then the CTA limits. The
/// SM100 multi-node refinement of 2.30.3, which depends on the NIC speed, is not
/// modelled.
pub fn nvls_channels(job: &Job, nvls: bool) -> usize {
    if !nvls {
        return 0;
    }
    let mut n = job.release.nvls_default_channels(job.cc, job.n_nodes() > 1);
    if job.release.nvls_sm100_tuning() && job.min_cc >= 100 && job.n_nodes() > 1 {
        n = sm100_multi_node_nvls(job.n_nodes(), job.min_local_ranks, job.min_net_bw).unwrap_or(n);
    }
    let n = job.nvls_nchannels.unwrap_or(n as i64).max(0) as usize;
    n.min(job.limits.max_ctas).max(job.limits.min_ctas)
}

/// `ncclNvlsTreeSm100Tuning`'s channel count (2.30.3) for sm100+ GPUs on several
/// nodes: 32 on two nodes with NICs of 48 GB/s; with 96 GB/s NICs 24 up to 8 GPUs a
/// node, else 32; with 48 GB/s NICs 24; slower NICs keep the default (`None`). (The
/// GPU-to-NIC path type there only sets chunk sizes.)
pub fn sm100_multi_node_nvls(nodes: usize, ppn: usize, nic_bw: f32) -> Option<usize> {
    if nodes == 2 && nic_bw >= 48.0 {
        Some(32)
    } else if nic_bw >= 96.0 {
        Some(if ppn <= 8 { 24 } else { 32 })
    } else if nic_bw >= 48.0 {
        Some(24)
    } else {
        None
    }
}

/// `ncclTopoGetMinNetBw` over `ranks`: the slowest path from a rank's GPU to the NETs
/// it uses channel after channel (until the first comes round again); 0 without NETs.
fn min_net_bw(sys: &crate::model::system::System, p: &crate::model::paths::Params, ranks: &[i32]) -> f32 {
    use crate::model::NodeType;
    let mut min = f32::MAX;
    for &r in ranks {
        let Some(g) = sys.gpu_by_rank(r) else { continue };
        let mut first = None;
        for c in 0..MAXCHANNELS {
            let Some(net) = crate::model::paths::local_net(sys, p, r, c) else { break };
            match first {
                None => first = Some(net),
                Some(f) if f == net => break,
                _ => {}
            }
            min = min.min(sys.list(NodeType::Gpu)[g].paths[NodeType::Net as usize][net].bw);
        }
    }
    if min == f32::MAX { 0.0 } else { min }
}

/// Set up the channels NCCL runs from the graphs of rank 0 (and, where trimming split
/// the host, those of the other domains in `job`).
pub fn build(gs: &Graphs, job: &Job) -> Result<Run, Error> {
    let hosts = job.nodes;
    let l = job.local_ranks;
    let nr = hosts * l;
    if hosts == 0 || l == 0 || job.ranks.is_empty() {
        return Err(Error::Usage("a job needs at least one node and one GPU".into()));
    }
    let domains = job.domains(gs);
    let nodes: Vec<NodeOf> = (0..hosts)
        .flat_map(|h| domains.iter().map(move |&(ranks, graphs)| NodeOf { offset: (h * l) as i32, ranks, graphs }))
        .collect();
    let nn = nodes.len();
    let mut rank_to_node = vec![usize::MAX; nr];
    for (k, node) in nodes.iter().enumerate() {
        for &r in node.ranks {
            rank_to_node[(r + node.offset) as usize] = k;
        }
    }
    if let Some(r) = rank_to_node.iter().position(|&k| k == usize::MAX) {
        return Err(bad_graph(format!("rank {r} belongs to no node")));
    }
    let (al, _) = job.align(gs);
    let n = (al.ring.n_channels.min(al.tree.n_channels)).max(0) as usize;
    if n == 0 {
        return Err(bad_graph("the ring or tree graph has no channel; NCCL cannot set up any".into()));
    }
    if n > MAXCHANNELS / 2 {
        return Err(bad_graph(format!("{n} search channels; NCCL sets up at most {}", MAXCHANNELS / 2)));
    }
    let what = if job.others.is_empty() {
        format!("min(ring {}, tree {}) search channels", al.ring.n_channels, al.tree.n_channels)
    } else {
        format!(
            "min(ring {}, tree {}) search channels, the fewest of the {} trimming domains",
            al.ring.n_channels,
            al.tree.n_channels,
            domains.len()
        )
    };
    let mut steps = vec![Step { what, n_channels: n }];

    // Rings: each node's chain, then the chains joined node to node. Odd nodes swap
    // channel pairs when their rings cross NICs, as the release decides.
    let even = n.is_multiple_of(2);
    let crossing = |k: usize| nodes[k].graphs.ring.cross_nic;
    let any = |f: &dyn Fn(CrossNic) -> bool| (0..nn).any(|k| f(crossing(k)));
    let swap_all = match job.release.ring_pair_swap() {
        RingPairSwap::Never | RingPairSwap::OwnTwo => false,
        RingPairSwap::AnyCrossNicEvenNodes => nn.is_multiple_of(2) && any(&|c| c != CrossNic::Off),
        RingPairSwap::AnyCrossNic => any(&|c| c != CrossNic::Off),
        RingPairSwap::AllRanksTwo => any(&|c| c == CrossNic::Alternate),
    };
    let own = job.release.ring_pair_swap() == RingPairSwap::OwnTwo;
    let swaps = |k: usize| even && k % 2 == 1 && (swap_all || own && crossing(k) == CrossNic::Alternate);
    let mut ring_prev = vec![vec![-1i32; nr]; n];
    let mut ring_next = vec![vec![-1i32; nr]; n];
    for c in 0..n {
        let mut recv = vec![0i32; nn];
        let mut send = vec![0i32; nn];
        for (k, node) in nodes.iter().enumerate() {
            let gc = if swaps(k) { c ^ 1 } else { c };
            let ll = node.ranks.len();
            let ring = &node.graphs.ring;
            let chain: Vec<i32> = (0..ll).map(|i| node.rank(ring, "ring", gc, i)).collect::<Result<_, _>>()?;
            for i in 0..ll {
                let r = chain[i] as usize;
                ring_prev[c][r] = if i == 0 { -1 } else { chain[i - 1] };
                ring_next[c][r] = if i == ll - 1 { -1 } else { chain[i + 1] };
            }
            recv[k] = chain[0];
            send[k] = chain[ll - 1];
        }
        for k in 0..nn {
            ring_prev[c][recv[k] as usize] = send[(k + nn - 1) % nn];
            ring_next[c][send[k] as usize] = recv[(k + 1) % nn];
        }
    }

    // Trees: the intra-node chain on both copies, then the double binary tree.
    let mut tree_up = vec![vec![-1i32; nr]; 2 * n];
    let mut tree_down = vec![vec![[-1i32; MAX_TREE_ARITY]; nr]; 2 * n];
    let mut roles = vec![Vec::with_capacity(nn); n];
    for (c, roles_c) in roles.iter_mut().enumerate() {
        for node in &nodes {
            let tree = &node.graphs.tree;
            let child0_index = if tree.pattern == Pattern::Tree { 0 } else { 1 };
            let child1_index = if tree.pattern == Pattern::SplitTree { 1 } else { 0 };
            let ll = node.ranks.len();
            let chain: Vec<i32> = (0..ll).map(|i| node.rank(tree, "tree", c, i)).collect::<Result<_, _>>()?;
            for i in 0..ll {
                let r = chain[i] as usize;
                for b in [c, c + n] {
                    tree_up[b][r] = if i == 0 { -1 } else { chain[i - 1] };
                    tree_down[b][r][0] = if i == ll - 1 { -1 } else { chain[i + 1] };
                }
            }
            roles_c.push(Roles {
                parent: chain[0],
                child0: node.rank(tree, "tree", c, child0_index)?,
                child1: node.rank(tree, "tree", c, child1_index)?,
            });
        }
    }
    for k in 0..nn {
        let (t0, t1) = dtree(nn as i32, k as i32);
        for (c, ro) in roles.iter().enumerate() {
            let me = ro[k];
            for (b, t) in [(c, t0), (c + n, t1)] {
                let up_side = |ro: &Roles| if t.child_type == 0 { ro.child0 } else { ro.child1 };
                if t.up != -1 {
                    tree_up[b][me.parent as usize] = up_side(&ro[t.up as usize]);
                }
                for (who, d) in [(me.child0, t.down0), (me.child1, t.down1)] {
                    if d == -1 {
                        continue;
                    }
                    let slots = &mut tree_down[b][who as usize];
                    let Some(x) = slots.iter().position(|&s| s < 0) else {
                        return Err(bad_graph(format!(
                            "tree channel {b}: rank {who} already has {MAX_TREE_ARITY} children ({} {} {})",
                            slots[0], slots[1], slots[2]
                        )));
                    };
                    slots[x] = ro[d as usize].parent;
                }
            }
        }
    }

    // Postset: duplicate, then the extra copies, then the user's limits.
    let (source, more) = postset(&al, job, n);
    steps.extend(more);
    let run = Run {
        nodes: nn,
        local_ranks: job.node_ranks(),
        n_ranks: nr,
        ring_graph_channels: al.ring.n_channels.max(0) as usize,
        tree_graph_channels: al.tree.n_channels.max(0) as usize,
        search_channels: n,
        n_channels: source.len(),
        cross_nic_swap: (0..nn).any(swaps),
        steps,
        notes: job.limits.notes.clone(),
        source,
        rank_to_node,
        ring_prev,
        ring_next,
        tree_up,
        tree_down,
        roles,
    };
    // ncclBuildRings' checks, from every rank's point of view they are the same.
    for c in 0..run.n_channels {
        run.check_ring(c)?;
    }
    Ok(run)
}

fn limit_name(lim: &Limits, max: bool) -> String {
    if max {
        format!("NCCL_MAX_NCHANNELS/NRINGS {} and maxCTAs {}: keep the first channels", lim.max_nchannels, lim.max_ctas)
    } else {
        format!(
            "NCCL_MIN_NCHANNELS/NRINGS {} and minCTAs {}: copies of the first channels",
            lim.min_nchannels, lim.min_ctas
        )
    }
}

/// `copyChannels(start = len, end)`: channel `c` becomes a copy of channel `c - start`.
fn copy_channels(source: &mut Vec<usize>, end: usize) {
    let start = source.len();
    for c in start..end {
        let s = source[c - start];
        source.push(s);
    }
}

/// Digits of `%d`.
fn width(v: usize) -> usize {
    v.to_string().len()
}

impl Run {
    fn ring_base(&self, c: usize) -> usize {
        self.source[c] % self.search_channels
    }

    /// The rank before `rank` on channel `c`'s ring.
    pub fn ring_prev(&self, c: usize, rank: usize) -> i32 {
        self.ring_prev[self.ring_base(c)][rank]
    }
    /// The rank after `rank` on channel `c`'s ring.
    pub fn ring_next(&self, c: usize, rank: usize) -> i32 {
        self.ring_next[self.ring_base(c)][rank]
    }
    /// The tree parent of `rank` on channel `c` (-1 for a root).
    pub fn tree_up(&self, c: usize, rank: usize) -> i32 {
        self.tree_up[self.source[c]][rank]
    }
    /// The tree children of `rank` on channel `c` (-1 for none).
    pub fn tree_down(&self, c: usize, rank: usize) -> [i32; MAX_TREE_ARITY] {
        self.tree_down[self.source[c]][rank]
    }

    /// Channel `c`'s ring as rank `from` walks it (`ncclBuildRings`).
    pub fn ring_order(&self, c: usize, from: usize) -> Vec<i32> {
        let mut out = Vec::with_capacity(self.n_ranks);
        let mut cur = from as i32;
        for _ in 0..self.n_ranks {
            if cur < 0 || cur as usize >= self.n_ranks {
                break;
            }
            out.push(cur);
            cur = self.ring_next(c, cur as usize);
        }
        out
    }

    fn check_ring(&self, c: usize) -> Result<(), Error> {
        let order = self.ring_order(c, 0);
        let last = order.last().map_or(-1, |&r| self.ring_next(c, r as usize));
        if order.len() != self.n_ranks || last != 0 {
            return Err(bad_graph(format!("ring {c} does not loop back to start ({last} != 0)")));
        }
        let mut seen = vec![false; self.n_ranks];
        for &r in &order {
            seen[r as usize] = true;
        }
        if let Some(missing) = seen.iter().position(|s| !s) {
            return Err(bad_graph(format!("ring {c} does not contain rank {missing}")));
        }
        Ok(())
    }

    /// Check a rank given by the user.
    pub fn check_rank(&self, rank: usize) -> Result<(), Error> {
        if rank >= self.n_ranks {
            return Err(Error::Usage(format!(
                "--rank {rank}: the job has {} ranks ({} node(s) x {} GPUs), ranks 0..{}",
                self.n_ranks,
                self.nodes,
                self.local_ranks,
                self.n_ranks - 1
            )));
        }
        Ok(())
    }

    /// NCCL's `Ring %02d : prev -> rank -> next` lines of one rank.
    pub fn ring_lines(&self, rank: usize) -> Vec<String> {
        (0..self.n_channels)
            .map(|c| format!("Ring {c:02} : {} -> {rank} -> {}", self.ring_prev(c, rank), self.ring_next(c, rank)))
            .collect()
    }

    /// NCCL's `Trees [c] d0/d1/d2->rank->up ...` line of one rank (without its 1023-byte
    /// buffer's cut, NCCL's text is at most 1022 characters after `Trees`).
    pub fn trees_line(&self, rank: usize) -> String {
        let mut s = String::new();
        for c in 0..self.n_channels {
            let d = self.tree_down(c, rank);
            let item = format!(" [{c}] {}/{}/{}->{rank}->{}", d[0], d[1], d[2], self.tree_up(c, rank));
            let room = 1022usize.saturating_sub(s.len());
            if item.len() > room {
                s.push_str(&item[..room]);
                break;
            }
            s.push_str(&item);
        }
        format!("Trees{s}")
    }

    /// NCCL's `Tree %d : up -> rank -> d0/d1/d2` lines (NCCL_DEBUG_SUBSYS=GRAPH), which
    /// a rank prints for each search channel where it links its node to others.
    pub fn tree_lines(&self, rank: usize) -> Vec<String> {
        let node = self.rank_to_node[rank];
        let r = rank as i32;
        let mut out = Vec::new();
        for c in 0..self.search_channels {
            let ro = self.roles[c][node];
            if r != ro.parent && r != ro.child0 && r != ro.child1 {
                continue;
            }
            for b in [c, c + self.search_channels] {
                let d = self.tree_down[b][rank];
                out.push(format!("Tree {b} : {} -> {rank} -> {}/{}/{}", self.tree_up[b][rank], d[0], d[1], d[2]));
            }
        }
        out
    }

    /// Rank 0's `Channel %02d/%02d : r r r ...` lines, with NCCL's column width and its
    /// 127-character cut.
    pub fn channel_lines(&self) -> Vec<String> {
        let w = width(self.n_ranks.saturating_sub(1));
        (0..self.n_channels)
            .map(|c| {
                let mut s = format!("Channel {c:02}/{:02} :", self.n_channels);
                for r in self.ring_order(c, 0) {
                    if s.len() >= 127 {
                        break;
                    }
                    s.push_str(&format!(" {r:>w$}"));
                }
                if s.len() >= 128 {
                    s.truncate(124);
                    s.push_str("...");
                }
                s
            })
            .collect()
    }
}

/// The channels of an analysed job, from its graphs.
pub fn for_analysis(an: &crate::model::Analysis, gs: &Graphs) -> Result<Run, Error> {
    build(gs, &Job::from_analysis(an)?)
}

#[cfg(test)]
mod tests;
