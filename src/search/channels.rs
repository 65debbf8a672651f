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
//! - doubles the channels (capped at 64), adds CollNet chain channels, doubles again on
//!   sm90+ multi-node rings faster than 45 GB/s, and applies NCCL_MAX_NCHANNELS /
//!   NCCL_MIN_NCHANNELS (and the NCCL_*_NRINGS, NCCL_*_CTAS variables) the way
//!   `copyChannels` does.
//!
//! Every channel of the final list is a copy of one of `2n` base channels; [`Run`] keeps
//! the base channels' ring and tree links for every rank, and which base each final
//! channel copies.

use crate::env::Env;
use crate::error::Error;
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
        let m = MAXCHANNELS as i64;
        // NCCL_PARAM values are int64, stored into an int.
        let int = |v: i64| v as i32 as i64;
        let mut min = 0i64;
        for k in ["MIN_NRINGS", "MIN_NCHANNELS"] {
            let v = int(env.param(k, -2));
            if v != -2 {
                min = v;
            }
        }
        if min > m {
            notes.push(format!("User asked for a minimum of {min} channels, limiting to {m}"));
            min = m;
        }
        let min = min.max(0);
        let mut max = m;
        for k in ["MAX_NRINGS", "MAX_NCHANNELS"] {
            let v = int(env.param(k, -2));
            if v != -2 {
                max = v;
            }
        }
        if env.get("NCCL_WORK_ARGS_BYTES").is_some() {
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
        let undef = i32::MIN as i64;
        let mut min_ctas = 1i64;
        let mut max_ctas = m;
        let v = int(env.param("MIN_CTAS", undef));
        if v != undef {
            if v <= 0 {
                notes.push(format!("NCCL_MIN_CTAS {v} is too low, leaving it set at {min_ctas}"));
            } else {
                min_ctas = v;
            }
        }
        let v = int(env.param("MAX_CTAS", undef));
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

/// The facts about the job that the channel set-up needs besides the graphs.
#[derive(Debug, Clone)]
pub struct Job {
    /// Identical nodes.
    pub nodes: usize,
    /// GPUs (ranks) a node.
    pub local_ranks: usize,
    /// Smallest compute capability of the GPUs.
    pub min_cc: i32,
    /// CollNet enabled and supported (`--collnet`).
    pub collnet: bool,
    /// NCCL_COLLNET_NODE_THRESHOLD (default 2).
    pub collnet_node_threshold: i64,
    pub limits: Limits,
}

impl Job {
    /// The job an analysis describes.
    pub fn from_analysis(an: &crate::model::Analysis) -> Result<Job, Error> {
        if !an.trimmed.is_empty() {
            return Err(Error::Unavailable(format!(
                "ranks {:?} cannot be reached from rank 0 except through the network; NCCL treats them as separate \
                 nodes with their own graphs, which topo does not model",
                an.trimmed
            )));
        }
        let sys = &an.system;
        let local = sys.count(crate::model::NodeType::Gpu);
        let mut ranks: Vec<i32> = sys.list(crate::model::NodeType::Gpu).iter().map(|g| g.gpu_rank()).collect();
        ranks.sort_unstable();
        if ranks.iter().enumerate().any(|(i, &r)| r != i as i32) {
            return Err(Error::Unavailable(format!(
                "the GPUs' ranks are {ranks:?}, not 0..{local}; cannot lay out the nodes"
            )));
        }
        Ok(Job {
            nodes: an.options.nodes,
            local_ranks: local,
            min_cc: crate::search::cc_min(sys),
            collnet: an.options.collnet,
            collnet_node_threshold: an.options.env.param("COLLNET_NODE_THRESHOLD", 2),
            limits: Limits::from_env(&an.options.env),
        })
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
    pub nodes: usize,
    pub local_ranks: usize,
    pub n_ranks: usize,
    /// Channels of the ring and tree graphs.
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
}

fn bad_graph(msg: String) -> Error {
    Error::Input { file: "<graphs>".into(), message: msg }
}

/// A rank of a channel of `g`, as node `node` sees it; checks that it is a local rank.
fn graph_rank(g: &Graph, name: &str, c: usize, i: usize, local: usize, node: usize) -> Result<i32, Error> {
    // NCCL indexes the flat array, so an index past the channel reads the next channel.
    let r = g.intra.get(c * local + i).copied().unwrap_or(0);
    if r < 0 || r as usize >= local {
        return Err(bad_graph(format!(
            "{name} graph channel {c} names rank {r}, but a node has ranks 0..{}",
            local.saturating_sub(1)
        )));
    }
    Ok(r + (node * local) as i32)
}

/// Set up the channels NCCL runs from the graphs of node 0.
pub fn build(gs: &Graphs, job: &Job) -> Result<Run, Error> {
    let nn = job.nodes;
    let l = job.local_ranks;
    let nr = nn * l;
    if nn == 0 || l == 0 {
        return Err(Error::Usage("a job needs at least one node and one GPU".into()));
    }
    let ring = &gs.ring;
    let tree = &gs.tree;
    let n = (ring.n_channels.min(tree.n_channels)).max(0) as usize;
    if n == 0 {
        return Err(bad_graph("the ring or tree graph has no channel; NCCL cannot set up any".into()));
    }
    if n > MAXCHANNELS / 2 {
        return Err(bad_graph(format!("{n} search channels; NCCL sets up at most {}", MAXCHANNELS / 2)));
    }
    let mut steps = vec![Step {
        what: format!("min(ring {}, tree {}) search channels", ring.n_channels, tree.n_channels),
        n_channels: n,
    }];

    // Rings: each node's chain, then the chains joined node to node.
    let swap = ring.cross_nic == CrossNic::Alternate && n.is_multiple_of(2) && nn > 1;
    let mut ring_prev = vec![vec![-1i32; nr]; n];
    let mut ring_next = vec![vec![-1i32; nr]; n];
    for c in 0..n {
        let mut recv = vec![0i32; nn];
        let mut send = vec![0i32; nn];
        for k in 0..nn {
            let gc = if swap && k % 2 == 1 { c ^ 1 } else { c };
            let chain: Vec<i32> = (0..l).map(|i| graph_rank(ring, "ring", gc, i, l, k)).collect::<Result<_, _>>()?;
            for i in 0..l {
                let r = chain[i] as usize;
                ring_prev[c][r] = if i == 0 { -1 } else { chain[i - 1] };
                ring_next[c][r] = if i == l - 1 { -1 } else { chain[i + 1] };
            }
            recv[k] = chain[0];
            send[k] = chain[l - 1];
        }
        for k in 0..nn {
            ring_prev[c][recv[k] as usize] = send[(k + nn - 1) % nn];
            ring_next[c][send[k] as usize] = recv[(k + 1) % nn];
        }
    }

    // Trees: the intra-node chain on both copies, then the double binary tree.
    let mut tree_up = vec![vec![-1i32; nr]; 2 * n];
    let mut tree_down = vec![vec![[-1i32; MAX_TREE_ARITY]; nr]; 2 * n];
    let child0_index = if tree.pattern == Pattern::Tree { 0 } else { 1 };
    let child1_index = if tree.pattern == Pattern::SplitTree { 1 } else { 0 };
    let mut roles = vec![Vec::with_capacity(nn); n];
    for c in 0..n {
        for k in 0..nn {
            let chain: Vec<i32> = (0..l).map(|i| graph_rank(tree, "tree", c, i, l, k)).collect::<Result<_, _>>()?;
            for i in 0..l {
                let r = chain[i] as usize;
                for b in [c, c + n] {
                    tree_up[b][r] = if i == 0 { -1 } else { chain[i - 1] };
                    tree_down[b][r][0] = if i == l - 1 { -1 } else { chain[i + 1] };
                }
            }
            roles[c].push(Roles {
                parent: chain[0],
                child0: graph_rank(tree, "tree", c, child0_index, l, k)?,
                child1: graph_rank(tree, "tree", c, child1_index, l, k)?,
            });
        }
    }
    for k in 0..nn {
        let (t0, t1) = dtree(nn as i32, k as i32);
        for c in 0..n {
            let ro: Vec<Roles> = roles[c].clone();
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
    let mut source: Vec<usize> = (0..(2 * n).min(MAXCHANNELS)).collect();
    steps.push(Step { what: "duplicated (second tree of the pair), capped at 64".into(), n_channels: source.len() });
    let chain = &gs.collnet_chain;
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
            copy_channels(&mut source, (cur + cur / 2).min(MAXCHANNELS));
            steps.push(Step {
                what: "CollNet chain: +half to saturate intra-node bandwidth (bwIntra > bwInter)".into(),
                n_channels: source.len(),
            });
        }
    }
    if job.min_cc >= 90 && nn > 1 && ring.bw_intra > 45.0 && source.len() < 16 {
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
    let run = Run {
        nodes: nn,
        local_ranks: l,
        n_ranks: nr,
        ring_graph_channels: ring.n_channels.max(0) as usize,
        tree_graph_channels: tree.n_channels.max(0) as usize,
        search_channels: n,
        n_channels: source.len(),
        cross_nic_swap: swap,
        steps,
        notes: lim.notes.clone(),
        source,
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
        let node = rank / self.local_ranks;
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

    /// The `run` object of the JSON documents.
    pub fn to_json(&self, rank: usize) -> serde_json::Value {
        let rings: Vec<serde_json::Value> = (0..self.n_channels).map(|c| self.ring_order(c, 0).into()).collect();
        let trees: Vec<serde_json::Value> = (0..self.n_channels)
            .map(|c| {
                serde_json::json!({
                    "up": (0..self.n_ranks).map(|r| self.tree_up(c, r)).collect::<Vec<_>>(),
                    "down": (0..self.n_ranks).map(|r| self.tree_down(c, r).to_vec()).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::json!({
            "nodes": self.nodes,
            "local_ranks": self.local_ranks,
            "n_ranks": self.n_ranks,
            "ring_graph_channels": self.ring_graph_channels,
            "tree_graph_channels": self.tree_graph_channels,
            "search_channels": self.search_channels,
            "nchannels": self.n_channels,
            "cross_nic_swap": self.cross_nic_swap,
            "steps": self.steps,
            "notes": self.notes,
            "source": self.source,
            "rings": rings,
            "trees": trees,
            "rank": rank,
            "log": {
                "channels": self.channel_lines(),
                "rings": self.ring_lines(rank),
                "trees": self.trees_line(rank),
                "tree_graph": self.tree_lines(rank),
            },
        })
    }
}

/// The channels of an analysed job, from its graphs.
pub fn for_analysis(an: &crate::model::Analysis, gs: &Graphs) -> Result<Run, Error> {
    build(gs, &Job::from_analysis(an)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Graph, GraphId, pattern};

    #[test]
    fn btree_of_fourteen_matches_the_picture() {
        // NCCL's comment: 0-8, 8 has 4 and 12; 4 has 2 and 6; 12 has 10 (and 13 below it).
        assert_eq!(btree(14, 0), (-1, -1, 8, 0));
        assert_eq!(btree(14, 8), (0, 4, 12, 1));
        assert_eq!(btree(14, 4), (8, 2, 6, 0));
        assert_eq!(btree(14, 12), (8, 10, 13, 1));
        assert_eq!(btree(14, 2), (4, 1, 3, 0));
        assert_eq!(btree(14, 13), (12, -1, -1, 1));
        assert_eq!(btree(14, 1), (2, -1, -1, 0));
        assert_eq!(btree(14, 3), (2, -1, -1, 1));
        assert_eq!(btree(1, 0), (-1, -1, -1, 0));
        assert_eq!(btree(2, 0), (-1, -1, 1, 0));
        assert_eq!(btree(2, 1), (0, -1, -1, 1));
        assert_eq!(btree(3, 2), (0, 1, -1, 1));
        assert_eq!(btree(3, 1), (2, -1, -1, 0));
    }

    #[test]
    fn btree_is_a_tree() {
        for n in 1..70 {
            let mut parents = 0;
            for r in 0..n {
                let (u, d0, d1, _) = btree(n, r);
                if u == -1 {
                    assert_eq!(r, 0);
                } else {
                    parents += 1;
                    let (_, pd0, pd1, _) = btree(n, u);
                    assert!(pd0 == r || pd1 == r, "n {n}: {r}'s parent {u} does not list it");
                }
                for d in [d0, d1] {
                    if d != -1 {
                        assert!(d < n);
                        assert_eq!(btree(n, d).0, r);
                    }
                }
            }
            assert_eq!(parents, n - 1);
        }
    }

    #[test]
    fn dtree_mirrors_even_and_shifts_odd() {
        // Even: the second tree is the mirror (NCCL's picture for 12: root 11, 3 under it).
        let (a, b) = dtree(12, 11);
        assert_eq!(a.up, 10);
        assert_eq!((b.up, b.down0, b.down1), (-1, -1, 3));
        let (_, b) = dtree(12, 3);
        assert_eq!((b.up, b.down0, b.down1), (11, 7, 1));
        // Odd: shifted by one (13 nodes: root 1, 9 under it).
        let (_, b) = dtree(13, 1);
        assert_eq!((b.up, b.down0, b.down1), (-1, -1, 9));
        let (_, b) = dtree(13, 9);
        assert_eq!((b.up, b.down0, b.down1), (1, 5, 0));
        // Two nodes: 0 is root of the first tree, 1 of the second.
        let (a, b) = dtree(2, 0);
        assert_eq!((a.up, a.down1, b.up, b.down0), (-1, 1, 1, -1));
        let (a, b) = dtree(2, 1);
        assert_eq!((a.up, b.up, b.down1), (0, -1, 0));
    }

    fn graph(id: i32, pat: i32, l: usize, chans: &[&[i32]]) -> Graph {
        let mut g = Graph::new(GraphId::ALL[id as usize], Pattern::from_number(pat).unwrap(), l);
        g.computed = true;
        g.n_channels = chans.len() as i32;
        for (c, ch) in chans.iter().enumerate() {
            g.intra[c * l..(c + 1) * l].copy_from_slice(ch);
        }
        g.bw_intra = 20.0;
        g.bw_inter = 20.0;
        g
    }

    fn graphs(ring: Graph, tree: Graph) -> Graphs {
        let l = 1;
        Graphs {
            ring,
            tree,
            collnet_chain: Graph::new(GraphId::CollNetChain, Pattern::Tree, l),
            collnet_direct: Graph::new(GraphId::CollNetDirect, Pattern::CollNetDirect, l),
            nvls: Graph::new(GraphId::Nvls, Pattern::Nvls, l),
        }
    }

    fn job(nodes: usize, l: usize) -> Job {
        Job { nodes, local_ranks: l, min_cc: 80, collnet: false, collnet_node_threshold: 2, limits: Limits::default() }
    }

    #[test]
    fn single_node_rings_and_chains() {
        // The A6000 pair of the cuiboyuan log: ring [0 1] x2, tree [0 1] and [1 0].
        let gs = graphs(
            graph(0, pattern::RING, 2, &[&[0, 1], &[0, 1]]),
            graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1], &[1, 0]]),
        );
        let run = build(&gs, &job(1, 2)).unwrap();
        assert_eq!(run.n_channels, 4);
        assert_eq!(
            run.ring_lines(1),
            ["Ring 00 : 0 -> 1 -> 0", "Ring 01 : 0 -> 1 -> 0", "Ring 02 : 0 -> 1 -> 0", "Ring 03 : 0 -> 1 -> 0"]
        );
        assert_eq!(
            run.trees_line(1),
            "Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1 [2] -1/-1/-1->1->0 [3] 0/-1/-1->1->-1"
        );
        assert_eq!(
            run.tree_lines(1),
            [
                "Tree 0 : 0 -> 1 -> -1/-1/-1",
                "Tree 2 : 0 -> 1 -> -1/-1/-1",
                "Tree 1 : -1 -> 1 -> 0/-1/-1",
                "Tree 3 : -1 -> 1 -> 0/-1/-1"
            ]
        );
        assert_eq!(run.channel_lines()[0], "Channel 00/04 : 0 1");
    }

    #[test]
    fn two_nodes_join_rings_and_trees() {
        // 2 nodes of 2 GPUs, one channel: ring 0 1 | 2 3, balanced tree chain 0 1.
        let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 1]]), graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1]]));
        let run = build(&gs, &job(2, 2)).unwrap();
        assert_eq!(run.n_channels, 2);
        assert_eq!(run.ring_order(0, 0), [0, 1, 2, 3]);
        assert_eq!(run.ring_order(1, 2), [2, 3, 0, 1]);
        assert_eq!(run.ring_prev(0, 0), 3);
        assert_eq!(run.ring_next(0, 1), 2);
        // Tree 0: node 0 root; node 1's parent side (rank 2) hangs under node 0's child1
        // side (rank 0, child type 1 as 1 > 0). Balanced: child0 = intra[1], child1 = intra[0].
        assert_eq!(run.tree_up(0, 0), -1);
        assert_eq!(run.tree_down(0, 0), [1, 2, -1]);
        assert_eq!(run.tree_up(0, 2), 0);
        assert_eq!(run.tree_down(0, 2), [3, -1, -1]);
        // Tree 1 (mirror): node 1 root; node 0 is, in mirrored numbering, its second
        // child, so node 0's parent side (rank 0) hangs under node 1's child1 side (rank 2).
        assert_eq!(run.tree_up(1, 2), -1);
        assert_eq!(run.tree_down(1, 2), [3, 0, -1]);
        assert_eq!(run.tree_up(1, 0), 2);
        assert_eq!(run.trees_line(0), "Trees [0] 1/2/-1->0->-1 [1] 1/-1/-1->0->2");
        assert_eq!(run.channel_lines(), ["Channel 00/02 : 0 1 2 3", "Channel 01/02 : 0 1 2 3"]);
    }

    #[test]
    fn cross_nic_two_swaps_channel_pairs_on_odd_nodes() {
        let mut ring = graph(0, pattern::RING, 2, &[&[0, 1], &[1, 0]]);
        ring.cross_nic = CrossNic::Alternate;
        let gs = graphs(ring, graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1], &[1, 0]]));
        let run = build(&gs, &job(2, 2)).unwrap();
        assert!(run.cross_nic_swap);
        // Node 1 runs channel 1's chain (3 2) on channel 0.
        assert_eq!(run.ring_order(0, 0), [0, 1, 3, 2]);
        assert_eq!(run.ring_order(1, 0), [0, 2, 3, 1]);
        // Odd channel count: no swap.
        let mut ring = graph(0, pattern::RING, 2, &[&[0, 1]]);
        ring.cross_nic = CrossNic::Alternate;
        let gs = graphs(ring, graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1]]));
        assert!(!build(&gs, &job(2, 2)).unwrap().cross_nic_swap);
    }

    #[test]
    fn tree_pattern_puts_both_children_on_the_first_rank() {
        let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 1]]), graph(1, pattern::TREE, 2, &[&[0, 1]]));
        let run = build(&gs, &job(3, 2)).unwrap();
        // 3 nodes, tree 0: node 0 root with child 2 (d1 = 2 >> 1 ... btree(3,0) = d1 2).
        assert_eq!(run.tree_down(0, 0), [1, 4, -1]);
        assert_eq!(run.tree_up(0, 4), 0);
        assert_eq!(run.tree_down(0, 4), [5, 2, -1]);
        assert_eq!(run.tree_up(0, 2), 4);
    }

    #[test]
    fn limits_follow_copy_channels() {
        let env = Env::from_pairs([("NCCL_MAX_NCHANNELS", "3"), ("NCCL_MIN_NCHANNELS", "7")]);
        let lim = Limits::from_env(&env);
        assert_eq!((lim.min_nchannels, lim.max_nchannels), (7, 3));
        let gs =
            graphs(graph(0, pattern::RING, 2, &[&[0, 1], &[1, 0]]), graph(1, pattern::TREE, 2, &[&[0, 1], &[1, 0]]));
        let mut j = job(1, 2);
        j.limits = lim;
        let run = build(&gs, &j).unwrap();
        // 2 search channels -> 4 -> max 3 -> min 7 copies of [0 1 2].
        assert_eq!(run.source, [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(run.n_channels, 7);
        assert_eq!(run.ring_order(2, 0), [0, 1]);
        assert_eq!(run.ring_order(1, 0), [0, 1]);
        assert_eq!(run.tree_up(4, 0), 1); // copy of channel 1: chain 1 0
    }

    #[test]
    fn legacy_and_ctas_variables() {
        let lim = Limits::from_env(&Env::from_pairs([("NCCL_MIN_NRINGS", "4"), ("NCCL_MAX_NRINGS", "100")]));
        assert_eq!((lim.min_nchannels, lim.max_nchannels), (4, 64));
        // The new name wins over the legacy one.
        let lim = Limits::from_env(&Env::from_pairs([("NCCL_MIN_NRINGS", "4"), ("NCCL_MIN_NCHANNELS", "2")]));
        assert_eq!(lim.min_nchannels, 2);
        let lim = Limits::from_env(&Env::from_pairs([("NCCL_MAX_NCHANNELS", "0"), ("NCCL_MIN_NCHANNELS", "99")]));
        assert_eq!((lim.min_nchannels, lim.max_nchannels), (64, 1));
        assert_eq!(lim.notes.len(), 2);
        let lim = Limits::from_env(&Env::from_pairs([("NCCL_MIN_CTAS", "40"), ("NCCL_MAX_CTAS", "8")]));
        assert_eq!((lim.min_ctas, lim.max_ctas), (8, 8));
        let lim = Limits::from_env(&Env::from_pairs([("NCCL_MIN_CTAS", "-3")]));
        assert_eq!(lim.min_ctas, 1);
    }

    #[test]
    fn sm90_doubling_and_collnet_extra() {
        let mut ring = graph(0, pattern::RING, 2, &[&[0, 1], &[1, 0]]);
        ring.bw_intra = 48.0;
        let gs = graphs(ring, graph(1, pattern::TREE, 2, &[&[0, 1], &[1, 0]]));
        let mut j = job(2, 2);
        j.min_cc = 90;
        assert_eq!(build(&gs, &j).unwrap().n_channels, 8);
        j.nodes = 1;
        assert_eq!(build(&gs, &j).unwrap().n_channels, 4);
        let mut gs = gs;
        gs.ring.bw_intra = 20.0;
        gs.collnet_chain = graph(2, pattern::TREE, 2, &[&[0, 1], &[1, 0]]);
        gs.collnet_chain.bw_intra = 40.0;
        let mut j = job(2, 2);
        j.collnet = true;
        assert_eq!(build(&gs, &j).unwrap().n_channels, 6);
        j.nodes = 1;
        assert_eq!(build(&gs, &j).unwrap().n_channels, 4);
    }

    #[test]
    fn channel_lines_are_cut_like_nccl() {
        let l = 64;
        let chain: Vec<i32> = (0..l as i32).collect();
        let gs = graphs(graph(0, pattern::RING, l, &[&chain]), graph(1, pattern::TREE, l, &[&chain]));
        let run = build(&gs, &job(1, l)).unwrap();
        let line = &run.channel_lines()[0];
        assert_eq!(line.len(), 127);
        assert!(line.starts_with("Channel 00/02 :  0  1  2"));
        assert!(line.ends_with("..."));
    }

    #[test]
    fn bad_ranks_are_refused() {
        let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 5]]), graph(1, pattern::TREE, 2, &[&[0, 1]]));
        let e = build(&gs, &job(1, 2)).unwrap_err().to_string();
        assert!(e.contains("rank 5"), "{e}");
        let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 0]]), graph(1, pattern::TREE, 2, &[&[0, 1]]));
        let e = build(&gs, &job(1, 2)).unwrap_err().to_string();
        assert!(e.contains("does not"), "{e}");
    }
}
