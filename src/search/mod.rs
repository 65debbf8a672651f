//! NCCL's channel search (`ncclTopoCompute`): rings, trees, CollNet and NVLS graphs.
//!
//! The search is a depth-first walk over GPUs (and NICs when several nodes are modelled)
//! that reserves bandwidth on every link it crosses, tries bandwidths from a per-
//! architecture ladder, and relaxes its constraints step by step (same channels, tree
//! pattern, path types, cross-NIC, speed) until it finds channels. Its budget is counted
//! in steps, never in time, so results are deterministic. Graphs are computed in NCCL's
//! order on one system, because the rounding of reserved bandwidth carries over from
//! one search to the next exactly as in NCCL.

pub mod bandwidth;
pub mod channels;
pub mod cost;
pub mod links;
pub mod xml;

use std::rc::Rc;

use bandwidth::{LinkBw, Milli, Plan, PlanKind, Rounded};

use crate::error::Error;
use crate::model::paths::{self, Params};
use crate::model::system::{NodeRef, System};
use crate::model::{LinkType, NodeType, PathType, cpu};

pub const MAXCHANNELS: usize = 64;
const MAX_NVLS_ARITY: usize = 32;
const MAX_DIRECT_ARITY: usize = 7;

const GLOBAL_TIMEOUT: i64 = 1 << 19;
const TIMEOUT: i32 = 1 << 14;
const TIMEOUT_TREE: i32 = 1 << 14;
const TIMEOUT_SAMECHANNELS: i32 = 1 << 8;

const FORCED_ORDER_PCI: i32 = 1;
const FORCED_ORDER_REPLAY: i32 = 2;

/// Graph patterns, NCCL's numbering.
pub mod pattern {
    pub const BALANCED_TREE: i32 = 1;
    pub const SPLIT_TREE: i32 = 2;
    pub const TREE: i32 = 3;
    pub const RING: i32 = 4;
    pub const NVLS: i32 = 5;
    pub const COLLNET_DIRECT: i32 = 6;
}

const SPEED_INTRA: [f32; 13] = [40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0];
const SPEED_INTER: [f32; 19] =
    [48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM90_SPEED_INTRA: [f32; 11] = [60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0];
const SM90_SPEED_INTER: [f32; 17] =
    [48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM100_SPEED_INTRA: [f32; 12] = [90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0];
const SM100_SPEED_INTER: [f32; 20] = [
    96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12,
];

/// The bandwidth ladder the search walks for this architecture and scope.
pub fn speed_ladder(cc_min: i32, inter: bool) -> &'static [f32] {
    match (inter, cc_min >= 100, cc_min >= 90) {
        (false, true, _) => &SM100_SPEED_INTRA,
        (false, false, true) => &SM90_SPEED_INTRA,
        (false, false, false) => &SPEED_INTRA,
        (true, true, _) => &SM100_SPEED_INTER,
        (true, false, true) => &SM90_SPEED_INTER,
        (true, false, false) => &SPEED_INTER,
    }
}

/// One graph: the input constraints and the channels found.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub id: i32,
    pub pattern: i32,
    pub cross_nic: i32,
    pub coll_net: bool,
    pub min_channels: i32,
    pub max_channels: i32,
    pub n_channels: i32,
    pub bw_intra: f32,
    pub bw_inter: f32,
    pub latency_inter: f32,
    pub type_intra: PathType,
    pub type_inter: PathType,
    pub same_channels: i32,
    pub n_hops: i32,
    /// Ranks, `ngpus` per channel.
    pub intra: Vec<i32>,
    /// NET node ids, two per channel (in, out); -1 when none.
    pub inter: Vec<i64>,
    /// Whether the search ran (false: not computed for this case).
    pub computed: bool,
    /// Loaded from NCCL_GRAPH_FILE instead of searched.
    pub from_file: bool,
}

impl Graph {
    pub fn new(id: i32, pattern: i32, ngpus: usize) -> Graph {
        Graph {
            id,
            pattern,
            cross_nic: 0,
            coll_net: false,
            min_channels: 0,
            max_channels: 0,
            n_channels: 0,
            bw_intra: 0.0,
            bw_inter: 0.0,
            latency_inter: 0.0,
            type_intra: PathType::Loc,
            type_inter: PathType::Loc,
            same_channels: 0,
            n_hops: 0,
            intra: vec![0; MAXCHANNELS * ngpus.max(1)],
            inter: vec![0; MAXCHANNELS * 2],
            computed: false,
            from_file: false,
        }
    }

    /// NCCL's `ncclTopoPrintGraph` summary line: `Pattern 4, crossNic 0, nChannels 12, bw
    /// 20.000000/20.000000, type NVL/PIX, sameChannels 1`.
    pub fn summary(&self) -> String {
        format!(
            "Pattern {}, crossNic {}, nChannels {}, bw {:.6}/{:.6}, type {}/{}, sameChannels {}",
            self.pattern,
            self.cross_nic,
            self.n_channels,
            self.bw_intra as f64,
            self.bw_inter as f64,
            self.type_intra.name(),
            self.type_inter.name(),
            self.same_channels
        )
    }

    /// NCCL's name of a graph id.
    pub fn name(&self) -> &'static str {
        match self.id {
            0 => "ring",
            1 => "tree",
            2 => "collnet_chain",
            3 => "nvls",
            4 => "collnet_direct",
            _ => "graph",
        }
    }
}

/// The five graphs NCCL computes at init, and the system as the search left it.
#[derive(Debug, Clone)]
pub struct Graphs {
    pub ring: Graph,
    pub tree: Graph,
    pub collnet_chain: Graph,
    pub collnet_direct: Graph,
    pub nvls: Graph,
}

impl Graphs {
    /// In NCCL's dump order: ring, tree, CollNet direct, CollNet chain, NVLS.
    pub fn dump_order(&self) -> [&Graph; 5] {
        [&self.ring, &self.tree, &self.collnet_direct, &self.collnet_chain, &self.nvls]
    }
    pub fn all(&self) -> [&Graph; 5] {
        [&self.ring, &self.tree, &self.nvls, &self.collnet_chain, &self.collnet_direct]
    }
}

/// What the search needs besides the system.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// NCCL_CROSS_NIC (default 2).
    pub cross_nic: i32,
    /// CollNet enabled (`--collnet`).
    pub collnet: bool,
    /// NVLS support reported by the driver (`--no-nvls` turns it off); NCCL_NVLS_ENABLE.
    pub nvls: bool,
    /// NCCL_MNNVL_RAIL_PER_HOST.
    pub rail_per_host: bool,
    /// NCCL_MNNVL_SCATTER_NETS_ENABLE.
    pub scatter: bool,
    /// NCCL_GRAPH_FILE contents, if set.
    pub graph_file: Option<(String, crate::xml::Xml)>,
}

/// Called now and then during a long search with the steps taken so far.
pub type Progress<'a> = &'a mut dyn FnMut(u64);

/// How often (in search steps) the progress callback is called.
const PROGRESS_EVERY: u64 = 1 << 14;

struct Search<'a, 'b, B: LinkBw> {
    sys: &'a mut System,
    p: &'a Params,
    o: &'a SearchOptions,
    used: Vec<u64>,
    /// The GPUs' ranks, by index (the system's, which the search never changes).
    ranks: Vec<i32>,
    /// `ncclTopoSelectNets` results, which depend only on the paths (never on the
    /// bandwidth left), keyed by `(typeInter + 1) * (ngpus + 1) + gpu + 1`.
    nets_cache: Vec<Option<std::rc::Rc<[usize]>>>,
    /// `ncclTopoGetLocal(NET n, GPU)` for every NET, also fixed during the search.
    local_gpus: Vec<Option<LocalGpus>>,
    /// Per GPU, the GPUs it has a path to, in the order of NCCL's sort without a NET
    /// (GPU->GPU bw desc, hops, start index).
    gpu_order: Vec<Box<[u32]>>,
    nnets: usize,
    /// Per GPU, whether all the GPUs it has a path to are alike (hops and bandwidth).
    uniform: Vec<bool>,
    /// Per (GPU, NET) (`gpu * nnets + net`), the GPUs in the order of the sort with a
    /// NET but for the PCI bandwidth (see `order_for_net`); made on first use.
    net_order: Vec<Option<Box<[(u16, u32)]>>>,
    /// Scratch space of `next_gpus`: sort keys.
    keys: Vec<u64>,
    sorts: SortCache,
    /// Per channel, the index of the NET it starts from (`net_index` of
    /// `inter[c * 2]`), set with it.
    start_net: Vec<Option<usize>>,
    /// Per NET, the NETs on the same ASIC port (itself included), whose bandwidth a
    /// channel through it takes.
    asic_peers: Vec<Box<[usize]>>,
    /// The NETs' ids, for `net_index`.
    net_ids: Vec<i64>,
    /// The GPU recursion's candidate lists: `ngpus` entries per (channel, step), so
    /// that each frame has its own while deeper ones fill theirs; grown on use.
    cands: Vec<u32>,
    /// Steps taken (calls to the GPU recursion), for progress reports.
    steps: u64,
    progress: Option<Progress<'b>>,
    /// The links, numbered; their starting bandwidths.
    links: links::LinkTable,
    /// The links' bandwidth while the search runs (written back at the end).
    bws: B,
    /// Per (from, to) slot pair, the path's type and where its plan lies in
    /// `plan_hops`; made on first use. Slots: GPUs, then NETs, then NVSwitches.
    plans: Vec<PathInfo>,
    plan_hops: Vec<links::PlanHop>,
    /// The links of `plan_hops`, alone, marked where they pay the PCI surcharge
    /// (see [`Plan::links`]).
    plan_links: Vec<u32>,
    slots: usize,
    /// First slot of each node type, `usize::MAX` for types the search never follows.
    slot_base: [usize; NodeType::COUNT],
    has_nvs: bool,
    /// GPU to GPU paths (`[from * ngpus + to]`) and NET to GPU paths
    /// (`[net * ngpus + gpu]`): hop count and bandwidth as an integer, as the GPU sort
    /// uses them.
    gpu_gpu: Vec<(i32, i32)>,
    net_gpu: Vec<(i32, i32)>,
    /// Per GPU, the PCI link up from its device and the link back (link numbers).
    gpu_pci: Vec<Option<(u32, u32)>>,
}

/// The GPU sort with a NET, made once per channel visit.
///
/// NCCL sorts the free GPUs by their PCI bandwidth (among fixed keys). A GPU's PCI
/// links carry only paths that start or end at that GPU, unless some path crosses
/// them (PXN does: a NIC reached through another GPU); see `ok`. So while a channel
/// is searched, a GPU not yet in it has the PCI bandwidth it had when the channel's
/// search was entered: reservations of earlier channels stay, and those of this
/// channel's backtracking and of later channels are given back exactly (links in
/// thousandths). The sort of all GPUs by those bandwidths, filtered by the free ones,
/// is then NCCL's sort of the free ones.
struct SortCache {
    /// The above holds: no NVSwitch (a different sort), the GPUs' PCI links come
    /// back exactly from a round trip, and no path made so far crosses another GPU's
    /// PCI links.
    ok: bool,
    /// Per link: the GPU whose PCI bandwidth the sort reads from it, or `u32::MAX`.
    owner: Vec<u32>,
    /// The distinct sets of the GPUs' PCI bandwidths seen when a channel's search was
    /// entered, numbered, and the number of each channel's current one.
    snaps: std::collections::HashMap<Rc<[i32]>, u32>,
    snap_pci: Vec<Rc<[i32]>>,
    snap_of: Vec<u32>,
    /// Per (GPU, NET) pair: the set of bandwidths its order was made with, and the
    /// order (`ngpus` entries per pair).
    made: Vec<u32>,
    order: Vec<u32>,
}

/// More distinct sets than this and the search goes on without the cache.
const MAX_SNAPS: usize = 1 << 14;

/// `ncclTopoGetLocal(NET, GPU)`: the GPUs and their path type.
type LocalGpus = std::rc::Rc<(Vec<usize>, PathType)>;

/// A path as the search follows it.
#[derive(Debug, Clone, Copy)]
struct PathInfo {
    start: u32,
    len: u16,
    ty: PathType,
    kind: PlanKind,
    /// The type of the path back (`to -> from`), which tree patterns also check.
    back_ty: PathType,
}

impl<'a, 'b, B: LinkBw> Search<'a, 'b, B> {
    fn new(sys: &'a mut System, p: &'a Params, o: &'a SearchOptions, progress: Option<Progress<'b>>) -> Self {
        let ngpus = sys.count(NodeType::Gpu);
        let nnets = sys.count(NodeType::Net);
        let slots = ngpus + nnets + sys.count(NodeType::Nvs);
        let links = links::LinkTable::new(sys);
        let counts = |from: NodeType, n: usize| -> Vec<(i32, i32)> {
            (0..n)
                .flat_map(|i| {
                    let ps = &sys.list(from)[i].paths[NodeType::Gpu as usize];
                    (0..ngpus).map(move |q| ps.get(q).map_or((0, 0), |p| (p.count() as i32, p.bw as i32)))
                })
                .collect()
        };
        let gpu_gpu = counts(NodeType::Gpu, ngpus);
        let net_gpu = counts(NodeType::Net, nnets);
        let gpu_pci: Vec<Option<(u32, u32)>> = (0..ngpus).map(|g| gpu_pci_links(sys, &links, g)).collect();
        let bws = B::new(&links.bw);
        let sorts = {
            let mut owner = vec![u32::MAX; links.bw.len()];
            let mut ok = sys.count(NodeType::Nvs) == 0;
            for (g, pl) in gpu_pci.iter().enumerate() {
                if let Some((up, down)) = *pl {
                    owner[up as usize] = g as u32;
                    owner[down as usize] = g as u32;
                    ok &= bws.restores(up) && bws.restores(down);
                }
            }
            SortCache {
                ok,
                owner,
                snaps: Default::default(),
                snap_pci: Vec::new(),
                snap_of: vec![u32::MAX; MAXCHANNELS + 1],
                made: vec![u32::MAX; ngpus * nnets],
                order: vec![0; ngpus * nnets * ngpus],
            }
        };
        let mut gpu_order: Vec<Box<[u32]>> = Vec::with_capacity(ngpus);
        for gpu in 0..ngpus {
            let mut qs: Vec<usize> =
                (1..ngpus).map(|i| (gpu + i) % ngpus).filter(|&q| gpu_gpu[gpu * ngpus + q].0 != 0).collect();
            qs.sort_unstable_by_key(|&q| {
                let (count, bw) = gpu_gpu[gpu * ngpus + q];
                (-(bw as i64), count, (q + ngpus - gpu) % ngpus)
            });
            gpu_order.push(qs.iter().map(|&q| q as u32).collect());
        }
        let uniform = (0..ngpus)
            .map(|g| {
                let row = &gpu_gpu[g * ngpus..(g + 1) * ngpus];
                let mut alike = gpu_order[g].iter().map(|&q| row[q as usize]);
                alike.next().is_none_or(|first| alike.all(|x| x == first))
            })
            .collect();
        Search {
            bws,
            links,
            plans: vec![
                PathInfo { start: 0, len: 0, ty: PathType::Dis, kind: PlanKind::Unmade, back_ty: PathType::Dis };
                slots * slots
            ],
            plan_hops: Vec::new(),
            plan_links: Vec::new(),
            slots,
            slot_base: {
                let mut b = [usize::MAX; NodeType::COUNT];
                b[NodeType::Gpu as usize] = 0;
                b[NodeType::Net as usize] = ngpus;
                b[NodeType::Nvs as usize] = ngpus + nnets;
                b
            },
            has_nvs: sys.count(NodeType::Nvs) > 0,
            gpu_gpu,
            net_gpu,
            gpu_pci,
            used: vec![0; ngpus],
            ranks: sys.list(NodeType::Gpu).iter().map(|x| x.gpu_rank()).collect(),
            nets_cache: vec![None; (PathType::Dis as usize + 2) * (ngpus + 1)],
            local_gpus: vec![None; nnets],
            gpu_order,
            nnets,
            uniform,
            net_order: vec![None; ngpus * nnets],
            keys: vec![0; ngpus],
            sorts,
            start_net: vec![None; MAXCHANNELS + 1],
            asic_peers: {
                let nets = sys.list(NodeType::Net);
                let key = |k: usize| nets[k].net().map(|x| (x.asic, x.port));
                (0..nets.len())
                    .map(|n| (0..nets.len()).filter(|&k| key(n).is_some() && key(k) == key(n)).collect())
                    .collect()
            },
            net_ids: sys.list(NodeType::Net).iter().map(|x| x.id).collect(),
            cands: Vec::new(),
            steps: 0,
            progress,
            sys,
            p,
            o,
        }
    }

    fn ngpus(&self) -> usize {
        self.ranks.len()
    }

    /// `System::gpu_by_rank` on the ranks kept here.
    fn gpu_by_rank(&self, rank: i32) -> Option<usize> {
        self.ranks.iter().position(|&r| r == rank)
    }

    #[inline]
    fn slot(&self, r: NodeRef) -> Option<usize> {
        let b = self.slot_base[r.ty as usize];
        if b == usize::MAX { None } else { Some(b + r.idx) }
    }

    /// The path `from -> to`: its type and where its plan lies in `plan_hops`.
    #[inline]
    fn path_info(&mut self, from: NodeRef, to: NodeRef) -> PathInfo {
        let key = match (self.slot(from), self.slot(to)) {
            (Some(a), Some(b)) => Some(a * self.slots + b),
            _ => None,
        };
        if let Some(k) = key {
            let info = self.plans[k];
            if info.kind != PlanKind::Unmade {
                return info;
            }
        }
        self.make_plan(key, from, to)
    }

    #[cold]
    fn make_plan(&mut self, key: Option<usize>, from: NodeRef, to: NodeRef) -> PathInfo {
        let hops = links::plan(self.sys, &self.links, from, to);
        let endpoint = |g: u32| [from, to].iter().any(|r| r.ty == NodeType::Gpu && r.idx == g as usize);
        if hops
            .iter()
            .any(|h| self.sorts.owner[h.link as usize] != u32::MAX && !endpoint(self.sorts.owner[h.link as usize]))
        {
            self.sorts.ok = false;
        }
        let repeated = hops.iter().enumerate().any(|(i, h)| hops[..i].iter().any(|x| x.link == h.link));
        let kind = if repeated || hops.iter().any(|h| h.rev != links::NONE) {
            PlanKind::General
        } else if hops.iter().any(|h| h.pci) {
            PlanKind::Surcharged
        } else {
            PlanKind::Plain
        };
        let info = PathInfo {
            ty: self.sys.path(from, to).ty,
            // Only the tree patterns look at it, on paths that exist both ways.
            back_ty: self.sys.node(to).paths[from.ty as usize].get(from.idx).map_or(PathType::Dis, |p| p.ty),
            start: self.plan_hops.len() as u32,
            len: hops.len() as u16,
            kind,
        };
        self.plan_links.extend(hops.iter().map(|h| if h.pci { h.link | bandwidth::PCI_HOP } else { h.link }));
        self.plan_hops.extend(hops);
        self.bws.plan_made(info.start as usize, &self.plan_hops[info.start as usize..]);
        if let Some(k) = key {
            self.plans[k] = info;
        }
        info
    }

    /// `ncclTopoFollowPath`: try to go from one node to another; returns the destination
    /// when the bandwidth was reserved (or released, for a negative `mult`).
    #[inline(always)]
    fn follow_path(&mut self, g: &mut Graph, from: Option<NodeRef>, to: NodeRef, mult: f32) -> Option<NodeRef> {
        let Some(from) = from else { return Some(to) };
        let info = self.path_info(from, to);
        let pty = info.ty;
        let intra = matches!(from.ty, NodeType::Gpu | NodeType::Nvs) && matches!(to.ty, NodeType::Gpu | NodeType::Nvs);
        let mut bw = if intra { g.bw_intra } else { g.bw_inter };
        let ty = if intra { g.type_intra } else { g.type_inter };
        if pty >= PathType::Dis {
            return None;
        }
        if mult == 1.0 && pty > ty {
            return None;
        }
        if mult == 1.0
            && matches!(g.pattern, pattern::BALANCED_TREE | pattern::TREE | pattern::SPLIT_TREE)
            && info.back_ty > ty
        {
            return None;
        }
        bw *= mult;
        let n = info.len as usize;
        let start = info.start as usize;
        let plan = Plan {
            kind: info.kind,
            start,
            links: &self.plan_links[start..start + n],
            hops: &self.plan_hops[start..start + n],
        };
        if !self.bws.reserve(plan, bw) {
            return None;
        }
        // NCCL adds in floats; with a multiplier of one it is the integer sum.
        g.n_hops = if mult == 1.0 {
            g.n_hops + n as i32
        } else if mult == -1.0 {
            g.n_hops - n as i32
        } else {
            (g.n_hops as f32 + mult * n as f32) as i32
        };
        Some(to)
    }

    fn net_index(&self, id: i64) -> Option<usize> {
        self.net_ids.iter().position(|&x| x == id)
    }

    /// `ncclTopoSearchNextGpuSort`: the GPUs to try after `gpu`, best first, into
    /// `cands[at..at + ngpus]`; returns how many.
    fn next_gpus(&mut self, g: &Graph, gpu: usize, sort_net: i32, at: usize) -> usize {
        let flag = 1u64 << g.n_channels;
        let n = self.ngpus();
        let mut count = 0;
        if self.has_nvs {
            // With NVSwitches NCCL keeps only the next (and previous) GPU, moved to the
            // front of the sorted list: the sort itself does not matter, only whether
            // they are candidates at all. Moving each to the front reverses them.
            let prev = (gpu + n - 1) % n;
            let nxt = (gpu + 1) % n;
            let (first, mut len) = match g.pattern {
                pattern::RING => ([nxt, prev], 2),
                pattern::SPLIT_TREE | pattern::BALANCED_TREE => ([prev, nxt], 2),
                _ => ([nxt, nxt], 1),
            };
            if nxt == prev {
                len = 1;
            }
            for &f in first[..len].iter().rev() {
                if f != gpu && self.gpu_gpu[gpu * n + f].0 != 0 && self.used[f] & flag == 0 {
                    self.cands[at + count] = f as u32;
                    count += 1;
                }
            }
            return count;
        }
        let net = if sort_net != 0 { self.start_net[g.n_channels as usize] } else { None };
        // NCCL sorts the free GPUs by (net->GPU bw desc, GPU PCI bw desc, net->GPU hops,
        // GPU->GPU bw desc, GPU->GPU hops, start index); the start index makes the order
        // total, so any subset keeps the order of a full sort. Only the PCI bandwidth
        // changes during the search: the rest is ranked once.
        match net {
            None => {
                // Without a NET the three first keys are 0: the order is fixed.
                count = keep_free(&self.gpu_order[gpu], &self.used, flag, &mut self.cands[at..at + n]);
            }
            Some(ni) if self.sorts.ok => {
                let c = g.n_channels as usize;
                let pair = gpu * self.nnets + ni;
                if self.sorts.made[pair] != self.sorts.snap_of[c] {
                    self.make_sort(gpu, ni, c);
                }
                let order = &self.sorts.order[pair * n..pair * n + self.gpu_order[gpu].len()];
                count = keep_free(order, &self.used, flag, &mut self.cands[at..at + n]);
            }
            Some(ni) => {
                self.order_for_net(gpu, ni);
                let list = self.net_order[gpu * self.nnets + ni].as_deref().unwrap_or(&[]);
                for (pos, &(group, q)) in list.iter().enumerate() {
                    if self.used[q as usize] & flag == 0 {
                        let key = sort_key(group, gpu_pci_bw(&self.bws, self.gpu_pci[q as usize]), pos);
                        insert_sorted(&mut self.keys, count, key);
                        count += 1;
                    }
                }
                let out = &mut self.cands[at..at + n];
                for (o, &k) in out.iter_mut().zip(&self.keys[..count]) {
                    *o = list[(k & 0xffff) as usize].1;
                }
            }
        }
        if sort_net == -1 && count > 0 {
            // NCCL reverses the list when all candidates are alike seen from `gpu`.
            let paths = &self.gpu_gpu[gpu * n..(gpu + 1) * n];
            let out = &mut self.cands[at..at + count];
            let first = paths[out[0] as usize];
            if self.uniform[gpu] || out.iter().all(|&q| paths[q as usize] == first) {
                out.reverse();
            }
        }
        count
    }

    /// The sort of all GPUs `gpu` has a path to, seen from NET `ni`, by the PCI
    /// bandwidths of channel `c`'s visit (see [`SortCache`]).
    #[cold]
    fn make_sort(&mut self, gpu: usize, ni: usize, c: usize) {
        let n = self.ngpus();
        self.order_for_net(gpu, ni);
        let pair = gpu * self.nnets + ni;
        let list = self.net_order[pair].as_deref().unwrap_or(&[]);
        let snap = self.sorts.snap_of[c];
        let pci = &self.sorts.snap_pci[snap as usize];
        let keys = &mut self.keys[..list.len()];
        for (pos, &(group, q)) in list.iter().enumerate() {
            insert_sorted(keys, pos, sort_key(group, pci[q as usize], pos));
        }
        for (o, &k) in self.sorts.order[pair * n..].iter_mut().zip(keys.iter()) {
            *o = list[(k & 0xffff) as usize].1;
        }
        self.sorts.made[pair] = snap;
    }

    /// The GPUs `gpu` has a path to, in the order of NCCL's sort seen from NET `ni`
    /// with the PCI bandwidth left out: (NET->GPU bw desc, NET->GPU hops, GPU->GPU bw
    /// desc, GPU->GPU hops, start index), each with the rank of its NET->GPU bandwidth
    /// among the distinct ones. Made once per pair.
    fn order_for_net(&mut self, gpu: usize, ni: usize) {
        let n = self.ngpus();
        let pair = gpu * self.nnets + ni;
        if self.net_order[pair].is_some() {
            return;
        }
        let mut qs: Vec<usize> = self.gpu_order[gpu].iter().map(|&q| q as usize).collect();
        let key = |q: usize| {
            let (count, bw) = self.gpu_gpu[gpu * n + q];
            let (net_count, net_bw) = self.net_gpu[ni * n + q];
            (-(net_bw as i64), net_count, -(bw as i64), count, (q + n - gpu) % n)
        };
        qs.sort_unstable_by_key(|&q| key(q));
        let mut list = Vec::with_capacity(qs.len());
        let mut group = 0u16;
        for (i, &q) in qs.iter().enumerate() {
            if i > 0 && self.net_gpu[ni * n + q].1 != self.net_gpu[ni * n + qs[i - 1]].1 {
                group += 1;
            }
            list.push((group, q as u32));
        }
        self.net_order[pair] = Some(list.into());
    }

    fn replay_gpu(&self, g: &Graph, step: i32) -> Option<usize> {
        if g.n_channels == 0 {
            return None;
        }
        let n = self.ngpus();
        let rank = g.intra[(g.n_channels as usize - 1) * n + (step + 1) as usize];
        self.gpu_by_rank(rank)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn try_gpu(
        &mut self,
        g: &mut Graph,
        save: &mut Graph,
        step: i32,
        back_to_net: i32,
        back_to_first: i32,
        forced: i32,
        time: &mut i32,
        from: Option<NodeRef>,
        gi: usize,
    ) {
        let flag = 1u64 << g.n_channels;
        let to = NodeRef::new(NodeType::Gpu, gi);
        if self.follow_path(g, from, to, 1.0).is_some() {
            self.used[gi] ^= flag;
            self.rec_gpu(g, save, Some(gi), step, back_to_net, back_to_first, forced, time);
            self.used[gi] ^= flag;
            self.follow_path(g, from, to, -1.0);
        }
    }

    fn try_collnet_direct(&mut self, g: &mut Graph, save: &mut Graph, gi: usize, time: &mut i32) {
        let n = self.ngpus();
        let mul = 1.0f32 / (n as f32 - 1.0);
        let me = NodeRef::new(NodeType::Gpu, gi);
        let mut fwd = 0;
        let mut ok;
        loop {
            ok = self.follow_path(g, Some(me), NodeRef::new(NodeType::Gpu, fwd), mul).is_some();
            if !ok {
                break;
            }
            fwd += 1;
            if fwd >= n {
                break;
            }
        }
        if ok {
            let mut bwd = 0;
            loop {
                ok = self.follow_path(g, Some(NodeRef::new(NodeType::Gpu, bwd)), me, mul).is_some();
                if !ok {
                    break;
                }
                bwd += 1;
                if bwd >= n {
                    break;
                }
            }
            if ok {
                let mut step = 1;
                for index in 0..n {
                    if index != gi {
                        g.intra[g.n_channels as usize * n + step] = self.sys.list(NodeType::Gpu)[index].gpu_rank();
                        step += 1;
                    }
                }
                self.rec_gpu(g, save, None, n as i32, -1, -1, 0, time);
            }
            while bwd > 0 {
                bwd -= 1;
                self.follow_path(g, Some(NodeRef::new(NodeType::Gpu, bwd)), me, -mul);
            }
        }
        while fwd > 0 {
            fwd -= 1;
            self.follow_path(g, Some(me), NodeRef::new(NodeType::Gpu, fwd), -mul);
        }
    }

    fn try_nvls(&mut self, g: &mut Graph, save: &mut Graph, gi: usize, time: &mut i32) {
        let n = self.ngpus();
        let nvs = NodeRef::new(NodeType::Nvs, 0);
        let mut d0 = 0;
        let mut ok;
        loop {
            let m = if d0 == gi { 2.0 } else { 1.0 };
            ok = self.follow_path(g, Some(nvs), NodeRef::new(NodeType::Gpu, d0), m).is_some();
            d0 += 1;
            if !(ok && d0 < n) {
                break;
            }
        }
        if !ok {
            d0 -= 1;
        } else {
            let mut d1 = 0;
            loop {
                let m = if d1 == gi { 2.0 } else { 1.0 };
                ok = self.follow_path(g, Some(NodeRef::new(NodeType::Gpu, d1)), nvs, m).is_some();
                d1 += 1;
                if !(ok && d1 < n) {
                    break;
                }
            }
            if !ok {
                d1 -= 1;
            } else {
                self.rec_gpu(g, save, None, n as i32, -1, -1, 0, time);
            }
            while d1 > 0 {
                d1 -= 1;
                let m = if d1 == gi { -2.0 } else { -1.0 };
                self.follow_path(g, Some(NodeRef::new(NodeType::Gpu, d1)), nvs, m);
            }
        }
        while d0 > 0 {
            d0 -= 1;
            let m = if d0 == gi { -2.0 } else { -1.0 };
            self.follow_path(g, Some(nvs), NodeRef::new(NodeType::Gpu, d0), m);
        }
    }

    fn compare(&self, g: &Graph, r: &Graph) -> bool {
        if g.n_channels < g.min_channels {
            return false;
        }
        if g.pattern == pattern::NVLS {
            let mut copy = false;
            if g.n_channels > r.n_channels && g.n_channels as usize <= self.ngpus() {
                copy = true;
            }
            if g.n_channels as f32 * g.bw_inter > r.n_channels as f32 * r.bw_inter {
                copy = true;
            }
            return copy;
        }
        let a = g.n_channels as f32 * g.bw_intra;
        let b = r.n_channels as f32 * r.bw_intra;
        if a > b {
            return true;
        }
        if a < b {
            return false;
        }
        g.pattern == r.pattern && g.cross_nic == r.cross_nic && g.n_hops < r.n_hops
    }

    fn local_net(&self, rank: i32, c: usize) -> Option<usize> {
        paths::local_net(self.sys, self.p, rank, c)
    }

    fn pref_nets_channel_first(&self, gpu: Option<usize>, nets: &mut Vec<usize>) {
        for g in 0..self.ngpus() {
            if gpu.is_some_and(|x| x != g) {
                continue;
            }
            let rank = self.sys.list(NodeType::Gpu)[g].gpu_rank();
            let mut local: Vec<usize> = Vec::new();
            for c in 0..MAXCHANNELS {
                let Some(n) = self.local_net(rank, c) else { break };
                if !local.is_empty() && n == local[0] {
                    break;
                }
                local.push(n);
            }
            for n in local {
                if !nets.contains(&n) {
                    nets.push(n);
                }
            }
        }
    }

    fn pref_nets_gpu_first(&self, gpu: Option<usize>, nets: &mut Vec<usize>) {
        let mut ids: Vec<Option<usize>> = match gpu {
            Some(x) => vec![Some(x)],
            None => (0..self.ngpus()).map(Some).collect(),
        };
        let mut count = ids.len();
        let mut first = vec![usize::MAX; ids.len()];
        for c in 0..MAXCHANNELS {
            for (k, id) in ids.iter_mut().enumerate() {
                let Some(g) = *id else { continue };
                let rank = self.sys.list(NodeType::Gpu)[g].gpu_rank();
                let Some(n) = self.local_net(rank, c) else { continue };
                if c == 0 {
                    first[k] = n;
                }
                if c > 0 && first[k] == n {
                    *id = None;
                    count -= 1;
                    continue;
                }
                if !nets.contains(&n) {
                    nets.push(n);
                }
            }
            if count == 0 {
                break;
            }
        }
    }

    /// `ncclTopoSelectNets`, remembered: the answer depends only on the paths.
    fn select_nets(&mut self, type_inter: i32, gpu: Option<usize>) -> std::rc::Rc<[usize]> {
        let ng = self.ngpus();
        let key = (type_inter + 1).clamp(0, PathType::Dis as i32 + 1) as usize * (ng + 1) + gpu.map_or(0, |g| g + 1);
        if let Some(Some(v)) = self.nets_cache.get(key) {
            return v.clone();
        }
        let v: std::rc::Rc<[usize]> = self.compute_select_nets(type_inter, gpu).into();
        if key < self.nets_cache.len() {
            self.nets_cache[key] = Some(v.clone());
        }
        v
    }

    /// `ncclTopoGetLocal(NET, GPU)`, remembered.
    fn local_gpus_of_net(&mut self, n: usize) -> LocalGpus {
        if let Some(Some(v)) = self.local_gpus.get(n) {
            return v.clone();
        }
        let v = std::rc::Rc::new(paths::get_local(self.sys, NodeRef::new(NodeType::Net, n), NodeType::Gpu));
        if n < self.local_gpus.len() {
            self.local_gpus[n] = Some(v.clone());
        }
        v
    }

    fn compute_select_nets(&self, type_inter: i32, gpu: Option<usize>) -> Vec<usize> {
        let mut nets = Vec::new();
        if self.sys.host_hashes.len() > 1 && self.o.scatter {
            self.pref_nets_gpu_first(gpu, &mut nets);
        } else {
            self.pref_nets_channel_first(gpu, &mut nets);
        }
        let max_dev = match self.p.env.netdevs_policy {
            Some(n) if n > 0 => {
                if gpu.is_none() {
                    n * self.ngpus()
                } else {
                    n
                }
            }
            _ => usize::MAX,
        };
        if nets.len() >= max_dev {
            return nets;
        }
        for t in 0..=type_inter {
            for g in 0..self.ngpus() {
                if gpu.is_some_and(|x| x != g) {
                    continue;
                }
                let paths = &self.sys.list(NodeType::Gpu)[g].paths[NodeType::Net as usize];
                for n in 0..self.sys.count(NodeType::Net).min(MAXCHANNELS) {
                    if paths[n].ty as i32 == t && !nets.contains(&n) {
                        nets.push(n);
                        if nets.len() >= max_dev {
                            return nets;
                        }
                    }
                }
            }
        }
        nets
    }

    fn check_net(&self, g: &Graph, start: usize, n: usize, step: i32) -> bool {
        let nets = self.sys.list(NodeType::Net);
        let (net, sn) = (&nets[n], &nets[start]);
        let (ni, si) = (net.net().expect("net"), sn.net().expect("net"));
        if ni.plane != -1 && si.plane != -1 && ni.plane != si.plane {
            return false;
        }
        if g.pattern == pattern::TREE && net.id != sn.id {
            return false;
        }
        if g.pattern == pattern::RING && g.cross_nic == 2 {
            if g.n_channels & 1 != 0 && net.id != g.inter[(g.n_channels as usize - 1) * 2] {
                return false;
            }
        } else if g.cross_nic == 0 {
            if ni.rail != -1 && si.rail != -1 {
                if ni.rail != si.rail {
                    return false;
                }
            } else if self.o.rail_per_host
                && crate::model::system::id_system(net.id) != crate::model::system::id_system(sn.id)
            {
                if ni.pci_id != si.pci_id || ni.port != si.port {
                    return false;
                }
            } else if ni.asic != si.asic || ni.port != si.port {
                return false;
            }
        }
        if g.pattern == pattern::BALANCED_TREE && step != 0 && net.id != g.inter[g.n_channels as usize * 2 + 1] {
            return false;
        }
        true
    }

    #[allow(clippy::too_many_arguments)]
    fn rec_gpu(
        &mut self,
        g: &mut Graph,
        save: &mut Graph,
        gpu: Option<usize>,
        step: i32,
        back_to_net: i32,
        back_to_first: i32,
        forced: i32,
        time: &mut i32,
    ) {
        if *time <= 0 {
            return;
        }
        *time -= 1;
        self.steps += 1;
        if self.steps.is_multiple_of(PROGRESS_EVERY)
            && let Some(f) = self.progress.as_mut()
        {
            f(self.steps);
        }
        let n = self.ngpus();
        if step as usize == n {
            g.n_channels += 1;
            if self.compare(g, save) {
                *save = g.clone();
                if g.n_channels == g.max_channels {
                    *time = -1;
                }
            }
            if g.n_channels < g.max_channels {
                self.rec(g, save, time);
            }
            g.n_channels -= 1;
            return;
        }
        let Some(gi) = gpu else { return };
        g.intra[g.n_channels as usize * n + step as usize] = self.ranks[gi];
        let me = NodeRef::new(NodeType::Gpu, gi);
        if step == back_to_net {
            if self.sys.inter {
                let Some(start) = self.start_net[g.n_channels as usize] else { return };
                let nets = self.select_nets(g.type_inter as i32, Some(gi));
                for &nidx in nets.iter() {
                    if !self.check_net(g, start, nidx, step) {
                        continue;
                    }
                    let mut next_back = -1;
                    let save_bw = g.bw_inter;
                    if g.pattern == pattern::BALANCED_TREE {
                        if step == 0 {
                            next_back = 1;
                        }
                        g.bw_inter /= 2.0;
                    }
                    let to = NodeRef::new(NodeType::Net, nidx);
                    let got = self.follow_path(g, Some(me), to, 1.0);
                    g.bw_inter = save_bw;
                    if got.is_some() {
                        g.inter[g.n_channels as usize * 2 + 1] = self.sys.list(NodeType::Net)[nidx].id;
                        self.rec_gpu(g, save, Some(gi), step, next_back, back_to_first, forced, time);
                        if g.pattern == pattern::BALANCED_TREE {
                            g.bw_inter /= 2.0;
                        }
                        self.follow_path(g, Some(me), to, -1.0);
                        g.bw_inter = save_bw;
                    }
                }
            }
        } else if g.pattern == pattern::NVLS {
            self.try_nvls(g, save, gi, time);
        } else if g.pattern == pattern::COLLNET_DIRECT {
            self.try_collnet_direct(g, save, gi, time);
        } else if (step as usize) < n - 1 {
            let at = (g.n_channels as usize * n + step as usize) * n;
            if self.cands.len() < at + n {
                self.cands.resize(at + n, 0);
            }
            let count = if forced == FORCED_ORDER_PCI {
                self.cands[at] = (step + 1) as u32;
                1
            } else if forced == FORCED_ORDER_REPLAY {
                match self.replay_gpu(g, step) {
                    Some(q) => {
                        self.cands[at] = q as u32;
                        1
                    }
                    None => 0,
                }
            } else {
                let sort_net = if back_to_net == -1 {
                    0
                } else if back_to_net == step + 1 {
                    1
                } else {
                    -1
                };
                self.next_gpus(g, gi, sort_net, at)
            };
            for i in at..at + count {
                let q = self.cands[i] as usize;
                self.try_gpu(g, save, step + 1, back_to_net, back_to_first, forced, time, Some(me), q);
            }
        } else if step == back_to_first {
            let Some(p) = self.gpu_by_rank(g.intra[g.n_channels as usize * n]) else { return };
            let first = NodeRef::new(NodeType::Gpu, p);
            if self.follow_path(g, Some(me), first, 1.0).is_some() {
                self.rec_gpu(g, save, Some(p), step + 1, back_to_net, -1, forced, time);
                self.follow_path(g, Some(me), first, -1.0);
            }
        } else {
            self.rec_gpu(g, save, Some(gi), n as i32, -1, -1, forced, time);
        }
    }

    fn rec_net(&mut self, g: &mut Graph, save: &mut Graph, back_to_net: i32, back_to_first: i32, time: &mut i32) {
        let bw = g.bw_inter as i32;
        let nets = self.select_nets(g.type_inter as i32, None);
        let count = nets.len();
        let mut found = false;
        for i in 0..count {
            if matches!(g.pattern, pattern::NVLS | pattern::COLLNET_DIRECT) && found {
                break;
            }
            let n = nets[(g.n_channels as usize + i) % count];
            let (id, coll, nbw, lat, local_gpu) = {
                let node = &self.sys.list(NodeType::Net)[n];
                let x = node.net().expect("net");
                (node.id, x.coll, x.bw, x.latency, x.local_gpu)
            };
            if g.coll_net && coll == 0 {
                continue;
            }
            if nbw < bw as f32 {
                continue;
            }
            if g.pattern == pattern::RING
                && g.cross_nic == 2
                && g.n_channels & 1 != 0
                && id != g.inter[(g.n_channels as usize - 1) * 2 + 1]
            {
                continue;
            }
            g.inter[g.n_channels as usize * 2] = id;
            self.start_net[g.n_channels as usize] = self.net_index(id);
            g.latency_inter = lat;
            self.adjust_asic_bw(n, -(bw as f32));
            let from = Some(NodeRef::new(NodeType::Net, n));
            if matches!(g.pattern, pattern::NVLS | pattern::COLLNET_DIRECT) {
                if (g.n_channels as usize) < count && local_gpu != -1 {
                    let rank = self.sys.list(NodeType::Gpu)[local_gpu as usize].gpu_rank();
                    let ng = self.ngpus();
                    let dup = (0..g.n_channels as usize).any(|c| g.intra[c * ng] == rank);
                    if !dup {
                        self.try_gpu(g, save, 0, back_to_net, back_to_first, 0, time, from, local_gpu as usize);
                        found = true;
                    }
                }
            } else if g.n_channels > 0 && g.same_channels == 1 {
                if let Some(q) = self.replay_gpu(g, -1) {
                    self.try_gpu(g, save, 0, back_to_net, back_to_first, FORCED_ORDER_REPLAY, time, from, q);
                }
            } else {
                if g.n_channels == 0 && self.sys.count(NodeType::Nvs) == 0 {
                    let mut t = 1 << 10;
                    self.try_gpu(g, save, 0, back_to_net, back_to_first, FORCED_ORDER_PCI, &mut t, from, 0);
                    if t == -1 {
                        *time = -1;
                    }
                }
                if local_gpu != -1 {
                    self.try_gpu(g, save, 0, back_to_net, back_to_first, 0, time, from, local_gpu as usize);
                }
                let locals = self.local_gpus_of_net(n);
                if locals.1 == PathType::Dis {
                    // NCCL skips this NET without giving its bandwidth back.
                    continue;
                }
                for &q in locals.0.iter() {
                    if q as i32 == local_gpu {
                        continue;
                    }
                    self.try_gpu(g, save, 0, back_to_net, back_to_first, 0, time, from, q);
                }
            }
            self.adjust_asic_bw(n, bw as f32);
        }
    }

    /// Change the bandwidth of every NET on NET `n`'s ASIC port (`n` among them).
    fn adjust_asic_bw(&mut self, n: usize, delta: f32) {
        let nets = &mut self.sys.nodes[NodeType::Net as usize];
        for &k in self.asic_peers[n].iter() {
            if let Some(x) = nets[k].net_mut() {
                x.bw += delta;
            }
        }
    }

    fn params(&self, pat: i32) -> (i32, i32) {
        let n = self.ngpus() as i32;
        if self.sys.inter {
            let btn = match pat {
                pattern::RING => n - 1,
                pattern::SPLIT_TREE => 1,
                _ => 0,
            };
            (btn, -1)
        } else {
            (-1, if pat == pattern::RING { n - 1 } else { -1 })
        }
    }

    fn rec(&mut self, g: &mut Graph, save: &mut Graph, time: &mut i32) {
        let (btn, btf) = self.params(g.pattern);
        if self.sys.inter {
            if self.sorts.ok {
                // A new visit of channel c: the GPUs' PCI bandwidth now is what the
                // sort will read all through it.
                let c = g.n_channels as usize;
                let pci: Rc<[i32]> = self.gpu_pci.iter().map(|&pl| gpu_pci_bw(&self.bws, pl)).collect();
                let sorts = &mut self.sorts;
                match sorts.snaps.get(&pci[..]) {
                    Some(&id) => sorts.snap_of[c] = id,
                    // Searches that go through so many are left uncached.
                    None if sorts.snap_pci.len() >= MAX_SNAPS => sorts.ok = false,
                    None => {
                        let id = sorts.snap_pci.len() as u32;
                        sorts.snap_pci.push(pci.clone());
                        sorts.snaps.insert(pci, id);
                        sorts.snap_of[c] = id;
                    }
                }
            }
            self.rec_net(g, save, btn, btf, time);
            return;
        }
        if g.pattern == pattern::NVLS {
            let q = g.n_channels as usize;
            if q < self.ngpus() {
                self.try_gpu(g, save, 0, btn, btf, 0, time, None, q);
            }
            return;
        } else if g.n_channels == 0 {
            self.try_gpu(g, save, 0, btn, btf, FORCED_ORDER_PCI, time, None, 0);
        } else if let Some(q) = self.replay_gpu(g, -1) {
            self.try_gpu(g, save, 0, btn, btf, FORCED_ORDER_REPLAY, time, None, q);
        }
        if g.same_channels == 0 || g.n_channels == 0 {
            for q in 0..self.ngpus() {
                self.try_gpu(g, save, 0, btn, btf, 0, time, None, q);
            }
        }
    }
}

/// NCCL's `ncclTopoGetGpuPciBw` for a GPU whose PCI links (up, down) are `pl`: -1
/// without them.
#[inline]
fn gpu_pci_bw(bws: &impl LinkBw, pl: Option<(u32, u32)>) -> i32 {
    match pl {
        Some((up, down)) => bws.pci_bw(up, down),
        None => -1,
    }
}

/// The GPU sort's key with a NET: (NET->GPU bw group, PCI bw desc, place in the fixed
/// order); `i32::MAX - x` orders descending and fits in 32 bits.
#[inline]
fn sort_key(group: u16, pci: i32, pos: usize) -> u64 {
    (group as u64) << 48 | ((i32::MAX as i64 - pci as i64) as u64) << 16 | pos as u64
}

/// Put `key` into the sorted `keys[..len]` (insertion sort: the fixed order is usually
/// the final one, so this is mostly one comparison).
#[inline]
fn insert_sorted(keys: &mut [u64], len: usize, key: u64) {
    let mut i = len;
    while i > 0 && keys[i - 1] > key {
        keys[i] = keys[i - 1];
        i -= 1;
    }
    keys[i] = key;
}

/// The GPUs of `order` that channel bit `flag` leaves free, in order, into `out`;
/// returns how many.
#[inline]
fn keep_free(order: &[u32], used: &[u64], flag: u64, out: &mut [u32]) -> usize {
    let mut count = 0;
    for &q in order {
        if used[q as usize] & flag == 0 {
            out[count] = q;
            count += 1;
        }
    }
    count
}

/// The PCI link from a GPU's device up, and the link back down, as the GPU sort reads
/// them (`ncclTopoGetGpuPciBw`: the first PCI link whose far end links back).
fn gpu_pci_links(sys: &System, links: &links::LinkTable, g: usize) -> Option<(u32, u32)> {
    let d = sys.list(NodeType::Gpu)[g].gpu_parent()?;
    let dev = NodeRef::new(NodeType::Dev, d);
    for (i, gl) in sys.node(dev).links.iter().enumerate() {
        if gl.ty != LinkType::Pci {
            continue;
        }
        if let Some(j) = sys.node(gl.rem).links.iter().position(|pl| pl.rem == dev) {
            return Some((links.id(dev, i), links.id(gl.rem, j)));
        }
    }
    None
}

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
enum Bookkeeping {
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

fn compute_all_by(
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

impl SearchOptions {
    /// Options from the model options and the NCCL_* variables. NCCL_GRAPH_FILE names
    /// a file; the caller reads it and sets [`SearchOptions::graph_file`].
    pub fn from_analysis(an: &crate::model::Analysis) -> SearchOptions {
        let env = &an.options.env.search;
        SearchOptions {
            cross_nic: env.cross_nic as i32,
            collnet: an.options.collnet,
            nvls: an.options.nvls && env.nvls_enable != 0,
            rail_per_host: env.rail_per_host,
            scatter: env.scatter_nets,
            graph_file: None,
        }
    }
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

/// The JSON of one graph (schema 1), or null when NCCL does not use it.
pub fn graph_json(sys: &System, g: &Graph) -> serde_json::Value {
    if !g.computed || g.n_channels == 0 {
        return serde_json::Value::Null;
    }
    let ngpus = sys.count(NodeType::Gpu);
    let net_dev = |id: i64| -> i64 {
        sys.find(NodeType::Net, id).and_then(|n| sys.list(NodeType::Net)[n].net().map(|x| x.dev as i64)).unwrap_or(-1)
    };
    let channels: Vec<serde_json::Value> = (0..g.n_channels as usize)
        .map(|c| {
            let mut m = serde_json::Map::new();
            if sys.inter {
                m.insert("net_in".into(), net_dev(g.inter[c * 2]).into());
            }
            if g.pattern == pattern::NVLS {
                m.insert("head".into(), g.intra[c * ngpus].into());
            } else {
                m.insert("ranks".into(), g.intra[c * ngpus..(c + 1) * ngpus].to_vec().into());
            }
            if sys.inter {
                m.insert("net_out".into(), net_dev(g.inter[c * 2 + 1]).into());
            }
            serde_json::Value::Object(m)
        })
        .collect();
    serde_json::json!({
        "pattern": g.pattern,
        "crossnic": g.cross_nic,
        "nchannels": g.n_channels,
        "bw_intra": g.bw_intra,
        "bw_inter": g.bw_inter,
        "latency_inter": g.latency_inter,
        "type_intra": g.type_intra.name(),
        "type_inter": g.type_inter.name(),
        "same_channels": g.same_channels,
        "from_graph_file": g.from_file,
        "channels": channels,
    })
}

/// The `graphs` object of the analysis JSON.
pub fn graphs_json(sys: &System, gs: &Graphs) -> serde_json::Value {
    serde_json::json!({
        "ring": graph_json(sys, &gs.ring),
        "tree": graph_json(sys, &gs.tree),
        "nvls": graph_json(sys, &gs.nvls),
        "collnet_chain": graph_json(sys, &gs.collnet_chain),
        "collnet_direct": graph_json(sys, &gs.collnet_direct),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_nccl_print_graph() {
        let mut g = Graph::new(0, pattern::RING, 2);
        g.n_channels = 12;
        g.bw_intra = 20.0;
        g.bw_inter = 17.5;
        g.type_intra = PathType::Nvl;
        g.type_inter = PathType::Pix;
        g.same_channels = 1;
        assert_eq!(
            g.summary(),
            "Pattern 4, crossNic 0, nChannels 12, bw 20.000000/17.500000, type NVL/PIX, sameChannels 1"
        );
    }
}

#[cfg(test)]
mod progress_tests {
    use super::*;

    #[test]
    fn progress_reports_without_changing_results() {
        let (x, _) = crate::fixtures::get("dgx1-v100").unwrap().load().unwrap();
        let opts = crate::model::Options { nodes: 2, ..Default::default() };
        let an = crate::model::analyze(&x, "dgx1-v100", &opts).unwrap();
        let so = SearchOptions::from_analysis(&an);
        let (plain, sys_a) = run(&an, &so).unwrap();
        let mut calls: Vec<(&str, u64)> = Vec::new();
        let (watched, sys_b) = run_with(&an, &so, &mut |g, s| calls.push((g, s))).unwrap();
        assert_eq!(xml::dump(&sys_a, &plain).unwrap(), xml::dump(&sys_b, &watched).unwrap());
        assert_eq!(calls.first(), Some(&("ring", 0)));
        assert!(calls.contains(&("tree", 0)));
        // Steps are reported every PROGRESS_EVERY, growing within a graph.
        assert!(calls.iter().any(|&(_, s)| s > 0 && s % PROGRESS_EVERY == 0), "{calls:?}");
    }
}

#[cfg(test)]
mod bookkeeping_tests {
    use super::*;

    /// Both bookkeepings on one analysed machine: the same graphs (as NCCL would dump
    /// them) and the same bits in every link afterwards.
    fn same_both_ways(name: &str, an: &crate::model::Analysis) {
        same_both_ways_by(name, an, Bookkeeping::Fastest)
    }

    fn same_both_ways_by(name: &str, an: &crate::model::Analysis, how: Bookkeeping) {
        let so = SearchOptions::from_analysis(an);
        let run_by = |how| {
            let mut sys = an.system.clone();
            let gs = compute_all_by(&mut sys, &an.params, &so, &mut |_, _| {}, how).unwrap();
            let links: Vec<u32> = NodeType::ALL
                .iter()
                .flat_map(|&t| sys.list(t).iter().flat_map(|n| n.links.iter().map(|l| l.bw.to_bits())))
                .collect();
            (xml::dump(&sys, &gs).unwrap(), links)
        };
        let (fast, floats) = (run_by(how), run_by(Bookkeeping::Floats));
        assert_eq!(fast.0, floats.0, "{name}: graphs differ");
        assert!(fast.1 == floats.1, "{name}: link bandwidths differ after the search");
    }

    /// A search thrown away leaves nothing behind: searching again with floats gives
    /// what floats alone give.
    #[test]
    fn a_discarded_search_leaves_nothing() {
        for f in crate::fixtures::all() {
            let (x, _) = f.load().unwrap();
            let opts = crate::model::Options { nodes: 2, ..Default::default() };
            let an = crate::model::analyze(&x, f.name, &opts).unwrap();
            same_both_ways_by(f.name, &an, Bookkeeping::Rerun);
        }
    }

    #[test]
    fn thousandths_search_as_floats_do() {
        for f in crate::fixtures::all() {
            let (x, _) = f.load().unwrap();
            for nodes in [1, 2] {
                let opts = crate::model::Options { nodes, ..Default::default() };
                let an = crate::model::analyze(&x, f.name, &opts).unwrap();
                same_both_ways(&format!("{} x{nodes}", f.name), &an);
            }
        }
    }

    /// The shared machines too, where present (the NCCL checker compares the fast
    /// bookkeeping with NCCL itself; this says the float one agrees).
    #[test]
    fn thousandths_search_as_floats_do_on_shared_machines() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl");
        let Ok(rd) = std::fs::read_dir(&dir) else {
            crate::test_skip::skip(
                "search::tests::thousandths_search_as_floats_do_on_shared_machines",
                &format!("{} is absent", dir.display()),
            );
            return;
        };
        let mut files: Vec<_> =
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "xml")).collect();
        files.sort();
        let mut compared = 0;
        for f in files {
            let Ok((x, _)) = crate::xml::read_file(&f) else { continue };
            let name = f.file_stem().unwrap().to_string_lossy().into_owned();
            // Two nodes: the NICs join the search, and with them the GPU sort by PCI
            // bandwidth.
            let opts = crate::model::Options { nodes: 2, ..Default::default() };
            let Ok(an) = crate::model::analyze(&x, &name, &opts) else { continue };
            same_both_ways(&name, &an);
            compared += 1;
        }
        assert!(compared >= 30, "only {compared} shared machines compared");
    }
}
