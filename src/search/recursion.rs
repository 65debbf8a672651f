//! The recursion of NCCL's channel search (`ncclTopoSearchRec` and what it calls): a
//! depth-first walk over GPUs (and NETs between nodes) that reserves bandwidth on each
//! link it crosses and keeps the best graph seen.

use std::rc::Rc;

use super::bandwidth::{self, LinkBw, Plan, PlanKind};
use super::graph::{CrossNic, Graph, Pattern};
use super::limits::{FORCED_PCI_STEPS, MAXCHANNELS};
use super::links;
use super::options::SearchOptions;
use super::sortcache::{MAX_SNAPS, SortCache};
use crate::model::paths::Params;
use crate::model::system::{NodeRef, System};
use crate::model::{LinkType, NodeType, PathType};
use crate::release::{CrossNicRules, NvlsHeads, NvsNeighbours, RecNetStart};

/// The release's rules the recursion follows, read once per graph search.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules {
    pub(super) cross_nic: CrossNicRules,
    pub(super) rec_net: RecNetStart,
    pub(super) nvls_heads: NvlsHeads,
    /// `MAXCHANNELS`.
    pub(super) max_channels: usize,
    /// A graph that does not cross NICs gets a 15% edge (until 2.19.4).
    pub(super) cross_nic_bonus: bool,
    /// P2C ranks after PXN (2.27.3).
    pub(super) p2c_after_pxn: bool,
    /// How the GPU sort treats GPUs behind NVSwitches.
    pub(super) nvs_neighbours: NvsNeighbours,
    /// A first channel tries PCI order even with NVSwitches (until 2.19.1).
    pub(super) pci_order_with_nvs: bool,
    /// A NET's best-path GPUs: those with PCI bandwidth left first, in index order (2.18).
    pub(super) best_gpus_free_pci_first: bool,
}

/// How the GPU recursion picks the next GPU (NCCL's `forcedOrder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// The GPUs sorted by bandwidth (`ncclTopoSearchNextGpuSort`).
    Sorted,
    /// The GPUs in PCI order: the next index (`FORCED_ORDER_PCI`).
    Pci,
    /// The GPUs of the channel before, in its order (`FORCED_ORDER_REPLAY`).
    Replay,
}

/// What is left of a round's step budget: NCCL's `time`, which counts steps down to 0
/// and is set to -1 when the best graph possible was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Budget {
    /// Steps left; 0 when spent (NCCL's 0: the round ends, the graph may still improve).
    Left(u32),
    /// A graph with as many channels as asked for was found (NCCL's -1): the round
    /// stops, and the graph is not improved further in this pass.
    Found,
}

impl Budget {
    /// Take one step; false when none is left (spent, or the search is over).
    #[inline(always)]
    pub(super) fn take_step(&mut self) -> bool {
        match self {
            Budget::Left(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// The steps were all spent before the best graph was found.
    pub(super) fn spent(self) -> bool {
        self == Budget::Left(0)
    }
}

/// Called now and then during a long search with the steps taken so far.
pub type Progress<'a> = &'a mut dyn FnMut(u64);

/// How often (in search steps) the progress callback is called.
pub(super) const PROGRESS_EVERY: u64 = 1 << 14;

/// How the next GPUs are sorted (NCCL's `sortNet`): without the NET (0), by the way
/// back to the channel's NET (1), or by it and reversed when all are alike (-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NetSort {
    Off,
    ToNet,
    ToNetReversed,
}

/// GPUs in the order of the sort with one NET: (group, GPU index) pairs.
pub(super) type NetOrder = Box<[(u16, u32)]>;

pub(super) struct Search<'a, 'b, B: LinkBw> {
    pub(super) sys: &'a mut System,
    pub(super) p: &'a Params,
    pub(super) o: &'a SearchOptions,
    pub(super) used: Vec<u64>,
    /// The GPUs' ranks, by index (the system's, which the search never changes).
    pub(super) ranks: Vec<i32>,
    /// `ncclTopoSelectNets` results, which depend only on the paths (never on the
    /// bandwidth left), keyed by `(typeInter + 1) * (ngpus + 1) + gpu + 1`.
    pub(super) nets_cache: Vec<Option<std::rc::Rc<[usize]>>>,
    /// `ncclTopoGetLocal(NET n, GPU)` for every NET, also fixed during the search.
    pub(super) local_gpus: Vec<Option<LocalGpus>>,
    /// Per GPU, the GPUs it has a path to, in the order of NCCL's sort without a NET
    /// (GPU->GPU bw desc, hops, start index).
    pub(super) gpu_order: Vec<Box<[u32]>>,
    pub(super) nnets: usize,
    /// Per GPU, whether all the GPUs it has a path to are alike (hops and bandwidth).
    pub(super) uniform: Vec<bool>,
    /// Per (GPU, NET) (`gpu * nnets + net`), the GPUs in the order of the sort with a
    /// NET but for the PCI bandwidth (see `order_for_net`); made on first use.
    pub(super) net_order: Vec<Option<NetOrder>>,
    /// Scratch space of `next_gpus`: sort keys.
    pub(super) keys: Vec<u64>,
    pub(super) sorts: SortCache,
    /// Per channel, the index of the NET it starts from (`net_index` of
    /// `inter[c * 2]`), set with it.
    pub(super) start_net: Vec<Option<usize>>,
    /// Per NET, the NETs on the same ASIC port (itself included), whose bandwidth a
    /// channel through it takes.
    pub(super) asic_peers: Vec<Box<[usize]>>,
    /// The NETs' ids, for `net_index`.
    pub(super) net_ids: Vec<i64>,
    /// The GPU recursion's candidate lists: `ngpus` entries per (channel, step), so
    /// that each frame has its own while deeper ones fill theirs; grown on use.
    pub(super) cands: Vec<u32>,
    /// Steps taken (calls to the GPU recursion), for progress reports.
    pub(super) steps: u64,
    pub(super) progress: Option<Progress<'b>>,
    /// The links, numbered; their starting bandwidths.
    pub(super) links: links::LinkTable,
    /// The links' bandwidth while the search runs (written back at the end).
    pub(super) bws: B,
    /// Per (from, to) slot pair, the path's type and where its plan lies in
    /// `plan_hops`; made on first use. Slots: GPUs, then NETs, then NVSwitches.
    pub(super) plans: Vec<PathInfo>,
    pub(super) plan_hops: Vec<links::PlanHop>,
    /// The links of `plan_hops`, alone, marked where they pay the PCI surcharge
    /// (see [`Plan::links`]).
    pub(super) plan_links: Vec<u32>,
    pub(super) slots: usize,
    /// First slot of each node type, `usize::MAX` for types the search never follows.
    pub(super) slot_base: [usize; NodeType::COUNT],
    pub(super) has_nvs: bool,
    /// GPU to GPU paths (`[from * ngpus + to]`) and NET to GPU paths
    /// (`[net * ngpus + gpu]`): hop count and bandwidth as an integer, as the GPU sort
    /// uses them.
    pub(super) gpu_gpu: Vec<(i32, i32)>,
    pub(super) net_gpu: Vec<(i32, i32)>,
    /// Per GPU, the PCI link up from its device and the link back (link numbers).
    pub(super) gpu_pci: Vec<Option<(u32, u32)>>,
    pub(super) rules: Rules,
    /// Per NET, the best bandwidth of its paths to GPUs and the GPUs with that
    /// bandwidth and the fewest hops (the start GPUs of [`RecNetStart::BestPaths`]);
    /// made on first use.
    pub(super) best_gpus: Vec<Option<BestGpus>>,
}

/// A NET's best paths to GPUs: their bandwidth and the GPUs, by index.
pub(super) type BestGpus = Rc<(f32, Vec<usize>)>;

/// `ncclTopoGetLocal(NET, GPU)`: the GPUs and their path type.
pub(super) type LocalGpus = std::rc::Rc<(Vec<usize>, PathType)>;

/// A path as the search follows it.
#[derive(Debug, Clone, Copy)]
pub(super) struct PathInfo {
    pub(super) start: u32,
    pub(super) len: u16,
    pub(super) ty: PathType,
    pub(super) kind: PlanKind,
    /// The type of the path back (`to -> from`), which tree patterns also check.
    pub(super) back_ty: PathType,
}

impl<'a, 'b, B: LinkBw> Search<'a, 'b, B> {
    pub(super) fn new(
        sys: &'a mut System,
        p: &'a Params,
        o: &'a SearchOptions,
        progress: Option<Progress<'b>>,
    ) -> Self {
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
            rules: Rules {
                cross_nic: p.release.cross_nic_rules(),
                rec_net: p.release.rec_net_start(),
                nvls_heads: p.release.nvls_heads(),
                max_channels: p.release.max_channels(),
                cross_nic_bonus: p.release.cross_nic_bonus(),
                p2c_after_pxn: p.release.p2c_after_pxn(),
                nvs_neighbours: p.release.nvs_neighbours(),
                pci_order_with_nvs: p.release.pci_order_with_nvs(),
                best_gpus_free_pci_first: p.release.best_gpus_free_pci_first(),
            },
            best_gpus: vec![None; nnets],
            cands: Vec::new(),
            steps: 0,
            progress,
            sys,
            p,
            o,
        }
    }

    pub(super) fn ngpus(&self) -> usize {
        self.ranks.len()
    }

    /// `System::gpu_by_rank` on the ranks kept here.
    pub(super) fn gpu_by_rank(&self, rank: i32) -> Option<usize> {
        self.ranks.iter().position(|&r| r == rank)
    }

    #[inline]
    pub(super) fn slot(&self, r: NodeRef) -> Option<usize> {
        let b = self.slot_base[r.ty as usize];
        if b == usize::MAX { None } else { Some(b + r.idx) }
    }

    /// The path `from -> to`: its type and where its plan lies in `plan_hops`.
    #[inline]
    pub(super) fn path_info(&mut self, from: NodeRef, to: NodeRef) -> PathInfo {
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
    pub(super) fn make_plan(&mut self, key: Option<usize>, from: NodeRef, to: NodeRef) -> PathInfo {
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
    pub(super) fn follow_path(
        &mut self,
        g: &mut Graph,
        from: Option<NodeRef>,
        to: NodeRef,
        mult: f32,
    ) -> Option<NodeRef> {
        let Some(from) = from else { return Some(to) };
        let info = self.path_info(from, to);
        let pty = info.ty;
        let intra = matches!(from.ty, NodeType::Gpu | NodeType::Nvs) && matches!(to.ty, NodeType::Gpu | NodeType::Nvs);
        let mut bw = if intra { g.bw_intra } else { g.bw_inter };
        let ty = if intra { g.type_intra } else { g.type_inter };
        if pty >= PathType::Dis {
            return None;
        }
        let swap = self.rules.p2c_after_pxn;
        if mult == 1.0 && pty.rank(swap) > ty.rank(swap) {
            return None;
        }
        if mult == 1.0
            && matches!(g.pattern, Pattern::BalancedTree | Pattern::Tree | Pattern::SplitTree)
            && info.back_ty.rank(swap) > ty.rank(swap)
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

    pub(super) fn net_index(&self, id: i64) -> Option<usize> {
        self.net_ids.iter().position(|&x| x == id)
    }

    pub(super) fn replay_gpu(&self, g: &Graph, step: i32) -> Option<usize> {
        if g.n_channels == 0 {
            return None;
        }
        let n = self.ngpus();
        let rank = g.intra[(g.n_channels as usize - 1) * n + (step + 1) as usize];
        self.gpu_by_rank(rank)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn try_gpu(
        &mut self,
        g: &mut Graph,
        save: &mut Graph,
        step: i32,
        back_to_net: Option<i32>,
        back_to_first: Option<i32>,
        forced: Order,
        time: &mut Budget,
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

    pub(super) fn compare(&self, g: &Graph, r: &Graph) -> bool {
        if g.n_channels < g.min_channels {
            return false;
        }
        if g.pattern == Pattern::Nvls {
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
        let mut b = r.n_channels as f32 * r.bw_intra;
        if self.rules.cross_nic_bonus && g.cross_nic != r.cross_nic {
            // Until 2.19.4 the graph that crosses NICs must do 15% better.
            b *= (1.0 - (r.cross_nic.number() - g.cross_nic.number()) as f64 * 0.15) as f32;
        }
        if a > b {
            return true;
        }
        if a < b {
            return false;
        }
        g.pattern == r.pattern && g.cross_nic == r.cross_nic && g.n_hops < r.n_hops
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn rec_gpu(
        &mut self,
        g: &mut Graph,
        save: &mut Graph,
        gpu: Option<usize>,
        step: i32,
        back_to_net: Option<i32>,
        back_to_first: Option<i32>,
        forced: Order,
        time: &mut Budget,
    ) {
        if !time.take_step() {
            return;
        }
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
                    *time = Budget::Found;
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
        if back_to_net == Some(step) {
            if self.sys.inter {
                let Some(start) = self.start_net[g.n_channels as usize] else { return };
                let nets = self.select_nets(g.type_inter as i32, Some(gi));
                for &nidx in nets.iter() {
                    if !self.check_net(g, start, nidx, step) {
                        continue;
                    }
                    let mut next_back = None;
                    let save_bw = g.bw_inter;
                    if g.pattern == Pattern::BalancedTree {
                        if step == 0 {
                            next_back = Some(1);
                        }
                        g.bw_inter /= 2.0;
                    }
                    let to = NodeRef::new(NodeType::Net, nidx);
                    let got = self.follow_path(g, Some(me), to, 1.0);
                    g.bw_inter = save_bw;
                    if got.is_some() {
                        g.inter[g.n_channels as usize * 2 + 1] = Some(self.sys.list(NodeType::Net)[nidx].id);
                        self.rec_gpu(g, save, Some(gi), step, next_back, back_to_first, forced, time);
                        if g.pattern == Pattern::BalancedTree {
                            g.bw_inter /= 2.0;
                        }
                        self.follow_path(g, Some(me), to, -1.0);
                        g.bw_inter = save_bw;
                    }
                }
            }
        } else if g.pattern == Pattern::Nvls {
            self.try_nvls(g, save, gi, time);
        } else if g.pattern == Pattern::CollNetDirect {
            self.try_collnet_direct(g, save, gi, time);
        } else if (step as usize) < n - 1 {
            let at = (g.n_channels as usize * n + step as usize) * n;
            if self.cands.len() < at + n {
                self.cands.resize(at + n, 0);
            }
            let count = if forced == Order::Pci {
                self.cands[at] = (step + 1) as u32;
                1
            } else if forced == Order::Replay {
                match self.replay_gpu(g, step) {
                    Some(q) => {
                        self.cands[at] = q as u32;
                        1
                    }
                    None => 0,
                }
            } else {
                let sort_net = match back_to_net {
                    None => NetSort::Off,
                    Some(b) if b == step + 1 => NetSort::ToNet,
                    Some(_) => NetSort::ToNetReversed,
                };
                self.next_gpus(g, gi, sort_net, at)
            };
            for i in at..at + count {
                let q = self.cands[i] as usize;
                self.try_gpu(g, save, step + 1, back_to_net, back_to_first, forced, time, Some(me), q);
            }
        } else if back_to_first == Some(step) {
            let Some(p) = self.gpu_by_rank(g.intra[g.n_channels as usize * n]) else { return };
            let first = NodeRef::new(NodeType::Gpu, p);
            if self.follow_path(g, Some(me), first, 1.0).is_some() {
                self.rec_gpu(g, save, Some(p), step + 1, back_to_net, None, forced, time);
                self.follow_path(g, Some(me), first, -1.0);
            }
        } else {
            self.rec_gpu(g, save, Some(gi), n as i32, None, None, forced, time);
        }
    }

    pub(super) fn rec_net(
        &mut self,
        g: &mut Graph,
        save: &mut Graph,
        back_to_net: Option<i32>,
        back_to_first: Option<i32>,
        time: &mut Budget,
    ) {
        let bw = g.bw_inter as i32;
        let nets = self.select_nets(g.type_inter as i32, None);
        let count = nets.len();
        let heads = matches!(g.pattern, Pattern::Nvls | Pattern::CollNetDirect);
        let mut found = false;
        for i in 0..count {
            if heads && (found || (self.rules.nvls_heads == NvlsHeads::FirstNet && i > 0)) {
                break;
            }
            let n = nets[(g.n_channels as usize + i) % count];
            let (id, coll, nbw, lat, local_gpu) = {
                let node = &self.sys.list(NodeType::Net)[n];
                let x = node.net().expect("net");
                // NCCL's -1 (no local GPU) becomes none.
                (node.id, x.coll, x.bw, x.latency, usize::try_from(x.local_gpu).ok())
            };
            if g.coll_net && coll == 0 {
                continue;
            }
            if nbw < bw as f32 {
                continue;
            }
            // An odd channel starts from the NET the channel before ended at.
            let paired = match self.rules.cross_nic {
                CrossNicRules::RingPairs => g.pattern == Pattern::Ring && g.cross_nic == CrossNic::Alternate,
                CrossNicRules::ZeroThenOnePaired => g.cross_nic != CrossNic::Off,
                CrossNicRules::ZeroThenOne | CrossNicRules::Copy => false,
            };
            if paired && g.n_channels & 1 != 0 && Some(id) != g.inter[(g.n_channels as usize - 1) * 2 + 1] {
                continue;
            }
            g.inter[g.n_channels as usize * 2] = Some(id);
            self.start_net[g.n_channels as usize] = self.net_index(id);
            g.latency_inter = lat;
            self.adjust_asic_bw(n, -(bw as f32));
            let from = Some(NodeRef::new(NodeType::Net, n));
            if heads {
                if (g.n_channels as usize) < count {
                    match local_gpu {
                        Some(local_gpu) => {
                            let rank = self.ranks[local_gpu];
                            let ng = self.ngpus();
                            let dup = self.rules.nvls_heads != NvlsHeads::FirstNet
                                && (0..g.n_channels as usize).any(|c| g.intra[c * ng] == rank);
                            if !dup {
                                self.try_gpu(
                                    g,
                                    save,
                                    0,
                                    back_to_net,
                                    back_to_first,
                                    Order::Sorted,
                                    time,
                                    from,
                                    local_gpu,
                                );
                                found = true;
                            } else if self.rules.nvls_heads == NvlsHeads::FirstNewHeadLeaky {
                                // 2.22 moves on without giving this NET's bandwidth back.
                                continue;
                            }
                        }
                        // 2.22 stops at a NET without a local GPU all the same.
                        None => found = self.rules.nvls_heads == NvlsHeads::FirstNewHeadLeaky,
                    }
                }
            } else if self.rules.rec_net == RecNetStart::BestPaths {
                self.start_best_paths(g, save, n, bw, back_to_net, back_to_first, time);
            } else if g.n_channels > 0 && (g.same_channels || self.rules.rec_net != RecNetStart::LocalGpuFirst) {
                if let Some(q) = self.replay_gpu(g, -1) {
                    self.try_gpu(g, save, 0, back_to_net, back_to_first, Order::Replay, time, from, q);
                }
                if !g.same_channels && !self.start_local_gpus(g, save, n, None, back_to_net, back_to_first, time) {
                    continue;
                }
            } else {
                let first = if self.rules.rec_net == RecNetStart::LocalGpuFirst { local_gpu } else { None };
                if !self.start_local_gpus(g, save, n, first, back_to_net, back_to_first, time) {
                    continue;
                }
            }
            self.adjust_asic_bw(n, bw as f32);
        }
    }

    /// The start of a channel from NET `n` before 2.27 ([`RecNetStart::BestPaths`]):
    /// the last channel's order again; then, for a first channel or when channels may
    /// differ, PCI order (a first channel without NVSwitch, on its own small budget) and
    /// every GPU with the NET's best path (when that is fast enough), from the channel's
    /// number on.
    #[allow(clippy::too_many_arguments)]
    fn start_best_paths(
        &mut self,
        g: &mut Graph,
        save: &mut Graph,
        n: usize,
        bw: i32,
        back_to_net: Option<i32>,
        back_to_first: Option<i32>,
        time: &mut Budget,
    ) {
        let from = Some(NodeRef::new(NodeType::Net, n));
        if g.n_channels > 0
            && let Some(q) = self.replay_gpu(g, -1)
        {
            self.try_gpu(g, save, 0, back_to_net, back_to_first, Order::Replay, time, from, q);
        }
        if g.n_channels == 0 || !g.same_channels {
            self.start_pci_order(g, save, n, back_to_net, back_to_first, time);
            let best = self.best_gpus_of_net(n);
            if best.0 >= bw as f32 {
                let ng = self.ngpus();
                if self.rules.best_gpus_free_pci_first {
                    // 2.18: GPUs whose PCI link still has bandwidth, then the others.
                    for pass in 0..2 {
                        for q in 0..ng {
                            let used = gpu_pci_bw(&self.bws, self.gpu_pci[q]) <= 0;
                            if best.1.contains(&q) && used == (pass == 1) {
                                self.try_gpu(g, save, 0, back_to_net, back_to_first, Order::Sorted, time, from, q);
                            }
                        }
                    }
                } else {
                    for k in 0..ng {
                        let q = (g.n_channels as usize + k) % ng;
                        if best.1.contains(&q) {
                            self.try_gpu(g, save, 0, back_to_net, back_to_first, Order::Sorted, time, from, q);
                        }
                    }
                }
            }
        }
    }

    /// The start of a channel from NET `n` from 2.27 on, when no replay is due (or after
    /// it, in 2.27.3): PCI order as above, the NET's local GPU `first` if given, then
    /// the GPUs `ncclTopoGetLocal` gives. False when the NET reaches no GPU: NCCL skips
    /// it without giving its bandwidth back.
    #[allow(clippy::too_many_arguments)]
    fn start_local_gpus(
        &mut self,
        g: &mut Graph,
        save: &mut Graph,
        n: usize,
        first: Option<usize>,
        back_to_net: Option<i32>,
        back_to_first: Option<i32>,
        time: &mut Budget,
    ) -> bool {
        let from = Some(NodeRef::new(NodeType::Net, n));
        self.start_pci_order(g, save, n, back_to_net, back_to_first, time);
        if let Some(q) = first {
            self.try_gpu(g, save, 0, back_to_net, back_to_first, Order::Sorted, time, from, q);
        }
        let locals = self.local_gpus_of_net(n);
        if locals.1 == PathType::Dis {
            return false;
        }
        for &q in locals.0.iter() {
            if Some(q) != first {
                self.try_gpu(g, save, 0, back_to_net, back_to_first, Order::Sorted, time, from, q);
            }
        }
        true
    }

    /// A first channel without NVSwitch tries PCI order first from NET `n`, on its own
    /// small budget (ending the round if it finds every channel asked for).
    fn start_pci_order(
        &mut self,
        g: &mut Graph,
        save: &mut Graph,
        n: usize,
        back_to_net: Option<i32>,
        back_to_first: Option<i32>,
        time: &mut Budget,
    ) {
        if g.n_channels == 0 && (!self.has_nvs || self.rules.pci_order_with_nvs) {
            let mut t = Budget::Left(FORCED_PCI_STEPS);
            let from = Some(NodeRef::new(NodeType::Net, n));
            self.try_gpu(g, save, 0, back_to_net, back_to_first, Order::Pci, &mut t, from, 0);
            if t == Budget::Found {
                *time = Budget::Found;
            }
        }
    }

    /// NET `n`'s best paths to GPUs (see [`Search::best_gpus`]), remembered.
    fn best_gpus_of_net(&mut self, n: usize) -> BestGpus {
        if let Some(Some(v)) = self.best_gpus.get(n) {
            return v.clone();
        }
        let net = NodeRef::new(NodeType::Net, n);
        let paths: Vec<(f32, usize)> = (0..self.ngpus())
            .map(|q| {
                let p = self.sys.path(net, NodeRef::new(NodeType::Gpu, q));
                (p.bw, p.count())
            })
            .collect();
        let mut max_bw = 0.0f32;
        let mut min_hops = usize::MAX;
        for &(b, hops) in &paths {
            if b > max_bw {
                max_bw = b;
                min_hops = hops;
            } else if b == max_bw && hops < min_hops {
                min_hops = hops;
            }
        }
        let gpus = paths.iter().enumerate().filter(|(_, p)| **p == (max_bw, min_hops)).map(|(q, _)| q).collect();
        let v: BestGpus = Rc::new((max_bw, gpus));
        self.best_gpus[n] = Some(v.clone());
        v
    }

    /// Change the bandwidth of every NET on NET `n`'s ASIC port (`n` among them).
    pub(super) fn adjust_asic_bw(&mut self, n: usize, delta: f32) {
        let nets = &mut self.sys.nodes[NodeType::Net as usize];
        for &k in self.asic_peers[n].iter() {
            if let Some(x) = nets[k].net_mut() {
                x.bw += delta;
            }
        }
    }

    /// The steps at which a channel goes back to a NET, or back to its first GPU
    /// (NCCL's `backToNet` and `backToFirstRank`; none where NCCL has -1).
    pub(super) fn params(&self, pat: Pattern) -> (Option<i32>, Option<i32>) {
        let n = self.ngpus() as i32;
        if self.sys.inter {
            let btn = match pat {
                Pattern::Ring => n - 1,
                Pattern::SplitTree => 1,
                _ => 0,
            };
            (Some(btn), None)
        } else {
            (None, (pat == Pattern::Ring).then_some(n - 1))
        }
    }

    pub(super) fn rec(&mut self, g: &mut Graph, save: &mut Graph, time: &mut Budget) {
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
        if g.pattern == Pattern::Nvls {
            let q = g.n_channels as usize;
            if q < self.ngpus() {
                self.try_gpu(g, save, 0, btn, btf, Order::Sorted, time, None, q);
            }
            return;
        } else if g.n_channels == 0 {
            self.try_gpu(g, save, 0, btn, btf, Order::Pci, time, None, 0);
        } else if let Some(q) = self.replay_gpu(g, -1) {
            self.try_gpu(g, save, 0, btn, btf, Order::Replay, time, None, q);
        }
        if !g.same_channels || g.n_channels == 0 {
            for q in 0..self.ngpus() {
                self.try_gpu(g, save, 0, btn, btf, Order::Sorted, time, None, q);
            }
        }
    }
}

/// NCCL's `ncclTopoGetGpuPciBw` for a GPU whose PCI links (up, down) are `pl`: -1
/// without them.
#[inline]
pub(super) fn gpu_pci_bw(bws: &impl LinkBw, pl: Option<(u32, u32)>) -> i32 {
    match pl {
        Some((up, down)) => bws.pci_bw(up, down),
        None => -1,
    }
}

/// The PCI link from a GPU's device up, and the link back down, as the GPU sort reads
/// them (`ncclTopoGetGpuPciBw`: the first PCI link whose far end links back).
pub(super) fn gpu_pci_links(sys: &System, links: &links::LinkTable, g: usize) -> Option<(u32, u32)> {
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
