//! Paths between GPUs, NICs and CPUs, and the decisions NCCL takes from them
//! (`paths.cc`): P2P between GPUs, the P2P/SHM/NET transport, GPUDirect RDMA, PXN,
//! GPU trimming and the per-channel bandwidth limits the search starts from.

use crate::env::{Env, PathEnv};
use crate::error::Error;
use crate::model::system::{Hop, Kind, NodeRef, Path, System, id_system};
use crate::model::{GdrMode, LinkType, NodeType, PathType, bw, cpu};
use crate::release::{P2pDefault, Release};

/// What the path stage reads: NCCL's variables and the fact NCCL would get from NVML.
#[derive(Debug, Clone)]
pub struct Params {
    /// The path stage's NCCL_* variables.
    pub env: PathEnv,
    /// The driver reports peer-to-peer support between GPUs (false on GeForce).
    pub p2p_support: bool,
    /// The NCCL release modelled.
    pub release: Release,
}

impl Params {
    pub fn new(env: &Env, p2p_support: bool) -> Params {
        Params { env: env.paths.clone(), p2p_support, release: env.release() }
    }
}

impl Default for Params {
    fn default() -> Params {
        Params::new(&Env::default(), true)
    }
}

fn merge_path_type(a: PathType, b: PathType) -> PathType {
    let (max, min) = if a >= b { (a, b) } else { (b, a) };
    if max == PathType::Phb && min == PathType::C2c { PathType::P2c } else { max }
}

/// Breadth-first search from `base` setting every node's best path to it
/// (`ncclTopoSetPaths`): type first, then bandwidth, then hop count (2.30.7); before,
/// fewer hops then more bandwidth.
fn set_paths(sys: &mut System, base: NodeRef, p: &Params) {
    let type_first = p.release.paths_type_first();
    let bt = base.ty as usize;
    let n_base = sys.count(base.ty);
    for t in NodeType::ALL {
        for node in sys.nodes[t as usize].iter_mut() {
            if node.paths[bt].len() != n_base {
                node.paths[bt] = vec![Path::default(); n_base];
            }
        }
    }
    {
        let bp = &mut sys.node_mut(base).paths[bt][base.idx];
        bp.hops.clear();
        bp.bw = bw::LOC;
        bp.ty = PathType::Loc;
    }
    let max_len = if base.ty == NodeType::Gpu { 2 } else { 1 };
    let base_dev = if base.ty == NodeType::Gpu {
        sys.node(base).gpu_parent().map(|d| NodeRef::new(NodeType::Dev, d))
    } else {
        Some(base)
    };
    // `queued` says which nodes are already in `next` (kept in step with it).
    let mut queued: [Vec<bool>; NodeType::COUNT] = std::array::from_fn(|t| vec![false; sys.nodes[t].len()]);
    let mut list = vec![base];
    while !list.is_empty() {
        let mut next: Vec<NodeRef> = Vec::new();
        for &node in &list {
            // The path to `node` does not change while its links are followed (a link back
            // to itself never improves it), so its hops are borrowed out and put back after.
            let (path_ty, path_bw, path_hops) = {
                let pth = &mut sys.node_mut(node).paths[bt][base.idx];
                (pth.ty, pth.bw, std::mem::take(&mut pth.hops))
            };
            let nlinks = sys.node(node).links.len();
            for l in 0..nlinks {
                let link = sys.node(node).links[l];
                let rem = link.rem;
                let b = path_bw.min(link.bw);
                if Some(node) != base_dev
                    && node.ty == NodeType::Dev
                    && (link.ty != LinkType::Loc || rem.ty != NodeType::Gpu)
                    && (p.env.nvb_disable
                        || link.ty != LinkType::Nvl
                        || rem.ty != NodeType::Dev
                        || path_hops.len() > max_len)
                {
                    continue;
                }
                let mut new_ty = link.ty.as_path();
                if node.ty == NodeType::Pci && rem.ty == NodeType::Pci {
                    new_ty = PathType::Pxb;
                }
                if link.ty == LinkType::Pci && (node.ty == NodeType::Cpu || rem.ty == NodeType::Cpu) {
                    new_ty = PathType::Phb;
                }
                if node.ty == NodeType::Dev
                    && path_ty == PathType::Nvl
                    && new_ty == PathType::Nvl
                    && path_hops.len() == max_len
                {
                    new_ty = PathType::Nvb;
                }
                let new_ty = new_ty.max(path_ty);
                let rp = &sys.node(rem).paths[bt][base.idx];
                let better = if type_first {
                    new_ty < rp.ty
                        || (new_ty == rp.ty && rp.bw < b)
                        || (new_ty == rp.ty && rp.bw == b && rp.hops.len() > path_hops.len() + 1)
                } else {
                    // Before 2.30.7: a path not yet found or longer than ours, if ours is
                    // faster; its type follows whatever path won.
                    (rp.bw == 0.0 || rp.hops.len() > path_hops.len()) && rp.bw < b
                };
                if better {
                    let Some(rev) = sys.node(rem).links.iter().position(|rl| rl.rem == node && rl.ty == link.ty) else {
                        continue;
                    };
                    let mut hops = Vec::with_capacity(path_hops.len() + 1);
                    hops.push(Hop { from: rem, link: rev });
                    hops.extend_from_slice(&path_hops);
                    let rp = &mut sys.node_mut(rem).paths[bt][base.idx];
                    rp.hops = hops;
                    rp.bw = b;
                    rp.ty = new_ty;
                    let q = &mut queued[rem.ty as usize][rem.idx];
                    if !*q {
                        *q = true;
                        next.push(rem);
                    }
                }
            }
            sys.node_mut(node).paths[bt][base.idx].hops = path_hops;
        }
        for r in &next {
            queued[r.ty as usize][r.idx] = false;
        }
        list = next;
    }
}

/// `addInterStep`: route the path from `src` to `dst` through `via`.
fn add_inter_step(sys: &mut System, via: NodeRef, src: NodeRef, dst: NodeRef) {
    let first = sys.path(src, via);
    let second = sys.path(via, dst);
    let mut hops = Vec::with_capacity(first.hops.len() + second.hops.len());
    hops.extend_from_slice(&first.hops);
    hops.extend_from_slice(&second.hops);
    let mut ty = merge_path_type(first.ty, second.ty);
    if via.ty == NodeType::Gpu {
        ty = PathType::Pxn;
    }
    let bw = first.bw.min(second.bw);
    let p = &mut sys.node_mut(src).paths[dst.ty as usize][dst.idx];
    p.hops = hops;
    p.ty = ty;
    p.bw = bw;
}

/// `ncclTopoGetLocal`: the nodes of `result` closest to `from` (best bandwidth, then type).
pub fn get_local(sys: &System, from: NodeRef, result: NodeType) -> (Vec<usize>, PathType) {
    let paths = &sys.node(from).paths[result as usize];
    let mut min_ty = PathType::Dis;
    let mut max_bw = 0.0f32;
    let mut out = Vec::new();
    for (i, p) in paths.iter().enumerate().take(sys.count(result)) {
        if p.bw > max_bw || (p.bw == max_bw && p.ty < min_ty) {
            max_bw = p.bw;
            min_ty = p.ty;
            out.clear();
        }
        if p.bw == max_bw && p.ty == min_ty {
            out.push(i);
        }
    }
    (out, min_ty)
}

/// `ncclGetLocalCpu`: the closest CPU, fewest hops among equals.
pub fn local_cpu(sys: &System, gpu: usize) -> Option<usize> {
    let from = NodeRef::new(NodeType::Gpu, gpu);
    let (cpus, _) = get_local(sys, from, NodeType::Cpu);
    let paths = &sys.node(from).paths[NodeType::Cpu as usize];
    let mut best = *cpus.first()?;
    for &c in &cpus[1..] {
        if paths[c].count() < paths[best].count() {
            best = c;
        }
    }
    Some(best)
}

fn is_pow2(v: usize) -> bool {
    v & v.wrapping_sub(1) == 0
}

fn mirror_bits(val: usize, pow2: usize) -> usize {
    let mut mirror = 0;
    let mut b = 1;
    let mut mb = pow2 >> 1;
    while b < pow2 {
        if val & b != 0 {
            mirror |= mb;
        }
        b <<= 1;
        mb >>= 1;
    }
    mirror
}

/// `ncclTopoGetLocalNet`: the NET index a rank uses for a channel.
pub fn local_net(sys: &System, p: &Params, rank: i32, channel: usize) -> Option<usize> {
    LocalNets::of(sys, p, rank).map(|l| l.for_channel(channel))
}

/// What [`local_net`] works out for one rank before it looks at the channel.
struct LocalNets {
    nets: Vec<usize>,
    first: usize,
    per_gpu: usize,
}

impl LocalNets {
    fn for_channel(&self, channel: usize) -> usize {
        self.nets[(self.first + channel % self.per_gpu) % self.nets.len()]
    }

    fn of(sys: &System, p: &Params, rank: i32) -> Option<LocalNets> {
        let g = sys.gpu_by_rank(rank)?;
        let (nets, _) = get_local(sys, NodeRef::new(NodeType::Gpu, g), NodeType::Net);
        if nets.is_empty() {
            return None;
        }
        let (gpus, _) = get_local(sys, NodeRef::new(NodeType::Net, nets[0]), NodeType::Gpu);
        let ngpus = gpus.len().max(1);
        let per_gpu = match p.env.netdevs_policy {
            None => nets.len().div_ceil(ngpus),
            Some(0) => nets.len(),
            Some(n) => n.min(nets.len()),
        }
        .max(1);
        let dev = sys.list(NodeType::Gpu)[g].gpu_dev().max(0) as usize;
        let mut net = if p.release.local_net_start_wraps() { dev % ngpus } else { dev };
        if is_pow2(nets.len()) {
            net = mirror_bits(net, nets.len());
        }
        Some(LocalNets { nets, first: net, per_gpu })
    }
}

/// `ncclTopoGetLocalGpu`: the GPU that drives a NET, or None.
pub fn local_gpu_of_net(sys: &System, p: &Params, net: usize) -> Option<usize> {
    let (gpus, _) = get_local(sys, NodeRef::new(NodeType::Net, net), NodeType::Gpu);
    // Each GPU's NETs, worked out the first time the channel loop reaches that GPU.
    let mut plans: Vec<Option<Option<LocalNets>>> = gpus.iter().map(|_| None).collect();
    for c in 0..p.release.max_channels() {
        for (&g, plan) in gpus.iter().zip(plans.iter_mut()) {
            let plan = plan.get_or_insert_with(|| LocalNets::of(sys, p, sys.list(NodeType::Gpu)[g].gpu_rank()));
            if plan.as_ref().map(|l| l.for_channel(c)) == Some(net) {
                return Some(g);
            }
        }
    }
    None
}

fn dev_to_rank(sys: &System, system_id: i64, dev: i32) -> Option<i32> {
    sys.list(NodeType::Gpu).iter().find(|g| id_system(g.id) == system_id && g.gpu_dev() == dev).map(|g| g.gpu_rank())
}

/// Outcome of NCCL's P2P check between two ranks.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct P2pCheck {
    pub p2p: bool,
    pub read: bool,
    pub intermediate: i32,
    pub reason: String,
}

/// The P2P level in force and where it comes from.
pub fn p2p_level(sys: &System, p: &Params) -> (PathType, &'static str) {
    if let Some(l) = p.env.p2p_level {
        return (l, "NCCL_P2P_LEVEL/NCCL_P2P_DISABLE");
    }
    let (arch, vendor) = match sys.list(NodeType::Cpu).first().map(|n| &n.kind) {
        Some(Kind::Cpu { arch, vendor, .. }) => (*arch, *vendor),
        _ => (0, 0),
    };
    match p.release.p2p_default() {
        P2pDefault::PxbButSysOnSmallAmd => {
            if arch == cpu::ARCH_X86 && vendor == cpu::VENDOR_AMD && sys.count(NodeType::Dev) <= 2 {
                return (PathType::Sys, "default SYS on AMD CPUs with at most two GPUs");
            }
            (PathType::Pxb, "default PXB")
        }
        P2pDefault::SysButPxbOnArmIntelZhaoxin => {
            if arch == cpu::ARCH_ARM
                || (arch == cpu::ARCH_X86 && (vendor == cpu::VENDOR_INTEL || vendor == cpu::VENDOR_ZHAOXIN))
            {
                return (PathType::Pxb, "default PXB on ARM, Intel and Zhaoxin CPUs (before 2.23)");
            }
            (PathType::Sys, "default SYS (before 2.23)")
        }
    }
}

/// `ncclTopoCheckP2p` for two ranks of this node.
pub fn check_p2p(sys: &System, p: &Params, r1: i32, r2: i32) -> Result<P2pCheck, Error> {
    check_p2p_why(sys, p, r1, r2, true, None)
}

/// Lookups the path computation makes thousands of times, prepared once for a loop in
/// which the GPU list and the GPU-to-NET paths do not change.
struct Fast {
    /// Rank -> GPU index, the first GPU with that rank as [`System::gpu_by_rank`] finds it.
    ranks: std::collections::HashMap<i32, usize>,
    /// Per GPU, the best bandwidth to a NET within PXB ([`check_net`]'s figure).
    net_bw: Vec<f32>,
}

impl Fast {
    fn new(sys: &System) -> Fast {
        let mut ranks = std::collections::HashMap::new();
        for (i, g) in sys.list(NodeType::Gpu).iter().enumerate() {
            ranks.entry(g.gpu_rank()).or_insert(i);
        }
        let net_bw = (0..sys.count(NodeType::Gpu)).map(|g| best_net_bw(sys, g)).collect();
        Fast { ranks, net_bw }
    }
}

fn gpu_of(sys: &System, fast: Option<&Fast>, rank: i32) -> Option<usize> {
    match fast {
        Some(f) => f.ranks.get(&rank).copied(),
        None => sys.gpu_by_rank(rank),
    }
}

/// A reason, worded only when `explain` is set (the path computation asks for verdicts
/// thousands of times and never reads the words).
fn why(explain: bool, words: impl FnOnce() -> String) -> String {
    if explain { words() } else { String::new() }
}

fn check_p2p_why(
    sys: &System,
    p: &Params,
    r1: i32,
    r2: i32,
    explain: bool,
    fast: Option<&Fast>,
) -> Result<P2pCheck, Error> {
    let mut out = P2pCheck { p2p: false, read: false, intermediate: -1, reason: String::new() };
    let Some(g1) = gpu_of(sys, fast, r1) else {
        return Err(Error::Usage(format!("rank {r1} is not a GPU of this system")));
    };
    let Some(g2) = gpu_of(sys, fast, r2) else {
        out.reason = why(explain, || format!("rank {r2} is not in this system"));
        return Ok(out);
    };
    let gpu1 = NodeRef::new(NodeType::Gpu, g1);
    let path = sys.path(gpu1, NodeRef::new(NodeType::Gpu, g2));
    let mut inter_idx = None;
    if path.count() == 4 {
        let n = sys.link(path.hops[1]).rem;
        if n.ty == NodeType::Dev {
            let d = sys.node(n);
            if let Some(r) = dev_to_rank(sys, id_system(d.id), d.gpu_dev()) {
                out.intermediate = r;
                inter_idx = gpu_of(sys, fast, r);
            }
        }
    }
    let (level, source) = p2p_level(sys, p);
    if path.ty <= level {
        out.p2p = true;
        out.reason = why(explain, || format!("path {} is within the P2P level {} ({source})", path.ty, level));
    } else {
        out.reason = why(explain, || format!("path {} is above the P2P level {} ({source})", path.ty, level));
    }
    let gl = sys.list(NodeType::Gpu);
    let check_nvml = p.env.ignore_disabled_p2p != 2 && gl[g1].gpu_parent() != gl[g2].gpu_parent();
    if out.p2p && check_nvml && !p.p2p_support {
        if p.env.ignore_disabled_p2p == 0 && path.ty <= PathType::Nvb {
            let chain: Vec<i32> = [Some(g1), inter_idx, Some(g2)].iter().flatten().map(|&g| gl[g].gpu_dev()).collect();
            return Err(Error::Input {
                file: "<driver>".into(),
                message: format!(
                    "P2P is disabled between NVLink-connected GPUs {} and {}: NCCL stops here (hardware issue?); set NCCL_IGNORE_DISABLED_P2P=1 to go on",
                    chain[0],
                    chain[chain.len() - 1]
                ),
            });
        }
        out.p2p = false;
        out.reason = why(explain, || "the driver reports no peer-to-peer support between these GPUs".into());
    }
    if path.ty == PathType::Nvl {
        let (c1, c2) = (gl[g1].cc(), gl[g2].cc());
        if c1 == c2 && c1 == 80 {
            out.read = true;
        }
    }
    Ok(out)
}

/// `ncclTopoCheckNet`: whether the network would beat P2P/SHM between two local GPUs.
pub fn check_net(sys: &System, p: &Params, r1: i32, r2: i32) -> bool {
    check_net_fast(sys, p, r1, r2, None)
}

fn check_net_fast(sys: &System, p: &Params, r1: i32, r2: i32, fast: Option<&Fast>) -> bool {
    if p.env.net_disable_intra {
        return false;
    }
    let (Some(g1), Some(g2)) = (gpu_of(sys, fast, r1), gpu_of(sys, fast, r2)) else { return false };
    let speed = sys.list(NodeType::Gpu)[g1].paths[NodeType::Gpu as usize][g2].bw;
    let (s1, s2) = match fast {
        Some(f) => (f.net_bw[g1], f.net_bw[g2]),
        None => (best_net_bw(sys, g1), best_net_bw(sys, g2)),
    };
    s1 > speed && s2 > speed
}

/// The best bandwidth from a GPU to a NET at most PXB away, 0 when none.
fn best_net_bw(sys: &System, g: usize) -> f32 {
    let mut best = 0.0f32;
    for path in sys.list(NodeType::Gpu)[g].paths[NodeType::Net as usize].iter().take(sys.count(NodeType::Net)) {
        if path.ty <= PathType::Pxb && path.bw > best {
            best = path.bw;
        }
    }
    best
}

/// P2P transport's `canConnect`.
pub fn p2p_can_connect(sys: &System, p: &Params, r1: i32, r2: i32) -> Result<(bool, String), Error> {
    p2p_can_connect_why(sys, p, r1, r2, true, None)
}

fn p2p_can_connect_why(
    sys: &System,
    p: &Params,
    r1: i32,
    r2: i32,
    explain: bool,
    fast: Option<&Fast>,
) -> Result<(bool, String), Error> {
    let c = check_p2p_why(sys, p, r1, r2, explain, fast)?;
    if !c.p2p {
        return Ok((false, c.reason));
    }
    if c.intermediate != -1 {
        if p.env.p2p_use_cuda_memcpy {
            return Ok((
                false,
                why(explain, || "NCCL_P2P_USE_CUDA_MEMCPY forbids P2P through an intermediate GPU".into()),
            ));
        }
        return Ok((true, why(explain, || format!("P2P through GPU rank {} over NVLink", c.intermediate))));
    }
    if check_net_fast(sys, p, r1, r2, fast) {
        return Ok((false, why(explain, || "the network is faster than the GPU-to-GPU path".into())));
    }
    if !p.p2p_support && r1 != r2 {
        return Ok((false, why(explain, || "the driver reports no peer access between these GPUs".into())));
    }
    Ok((true, c.reason))
}

/// SHM transport's `canConnect`.
pub fn shm_can_connect(sys: &System, p: &Params, r1: i32, r2: i32) -> (bool, String) {
    let (ok, reason) = shm_verdict(sys, p, r1, r2, None);
    (ok, reason.into())
}

fn shm_verdict(sys: &System, p: &Params, r1: i32, r2: i32, fast: Option<&Fast>) -> (bool, &'static str) {
    if p.env.shm_disable {
        return (false, "NCCL_SHM_DISABLE=1");
    }
    if check_net_fast(sys, p, r1, r2, fast) {
        return (false, "the network is faster than going through host memory");
    }
    (true, "shared host memory")
}

/// `ncclTopoGetIntermediateRank`: the rank that talks to a NET for `rank` (PXN).
pub fn intermediate_rank(sys: &System, rank: i32, net: usize) -> Option<i32> {
    let g = sys.gpu_by_rank(rank)?;
    let path = sys.path(NodeRef::new(NodeType::Gpu, g), NodeRef::new(NodeType::Net, net));
    if path.ty != PathType::Pxn {
        return Some(rank);
    }
    let mut i = 1;
    while i < path.count() && sys.link(path.hops[i]).rem.ty == NodeType::Nvs {
        i += 1;
    }
    let mut node = sys.link(*path.hops.get(i)?).rem;
    if node.ty == NodeType::Dev
        && let Some(l) = sys.node(node).links.iter().find(|l| l.rem.ty == NodeType::Gpu)
    {
        node = l.rem;
    }
    if node.ty != NodeType::Gpu {
        return None;
    }
    let n = sys.node(node);
    dev_to_rank(sys, id_system(n.id), n.gpu_dev())
}

/// The GDR level in force and where it comes from.
pub fn gdr_level(p: &Params) -> (PathType, &'static str) {
    match p.env.gdr_level {
        Some(l) => (l, "NCCL_NET_GDR_LEVEL"),
        None if p.env.gdr_c2c && p.release.gdr_level_from_c2c() => (PathType::P2c, "default P2C (NCCL_NET_GDR_C2C=1)"),
        None => (PathType::Pxb, "default PXB"),
    }
}

/// `ncclTopoCheckGdr`, with the reason for the verdict.
pub fn check_gdr(sys: &System, p: &Params, rank: i32, net: usize, read: bool) -> (GdrMode, String) {
    check_gdr_why(sys, p, rank, net, read, true)
}

fn check_gdr_why(sys: &System, p: &Params, rank: i32, net: usize, read: bool, explain: bool) -> (GdrMode, String) {
    let Some(mut g) = sys.gpu_by_rank(rank) else {
        return (GdrMode::Disabled, why(explain, || "rank not in system".into()));
    };
    let nnode = &sys.list(NodeType::Net)[net];
    let ninfo = nnode.net().expect("NET node");
    let gpu = &sys.list(NodeType::Gpu)[g];
    let (ggdr, gmlo) = match gpu.kind {
        Kind::Gpu { gdr, mlopart, .. } => (gdr, mlopart),
        _ => (0, -1),
    };
    if ninfo.gdr == 0 {
        return (
            GdrMode::Disabled,
            why(explain, || format!("NIC {} does not support GPUDirect RDMA (gdr=0)", ninfo.name)),
        );
    }
    if ggdr == 0 {
        return (GdrMode::Disabled, why(explain, || "the GPU does not support GPUDirect RDMA (gdr=0)".into()));
    }
    if gmlo != -1 && !p.env.gdr_mlopart {
        return (GdrMode::Disabled, why(explain, || "MLOPart GPU and NCCL_NET_GDR_MLOPART=0".into()));
    }
    if read {
        if p.env.gdr_read == 0 {
            return (GdrMode::Disabled, why(explain, || "NCCL_NET_GDR_READ=0".into()));
        }
        if p.env.gdr_read < 0 && gpu.cc() < 80 {
            let gpu_paths = &gpu.paths[NodeType::Gpu as usize];
            let nvlink = sys.count(NodeType::Gpu) == 1
                || (0..sys.count(NodeType::Gpu)).any(|i| i != g && gpu_paths[i].ty == PathType::Nvl);
            if !nvlink {
                return (
                    GdrMode::Disabled,
                    why(explain, || "GDR reads are off before Ampere without an NVLink peer".into()),
                );
            }
        }
    }
    let (level, source) = gdr_level(p);
    let mut distance = gpu.paths[NodeType::Net as usize][net].ty;
    let mut via = String::new();
    if distance == PathType::Pxn
        && let Some(proxy) = intermediate_rank(sys, rank, net)
        && let Some(pg) = sys.gpu_by_rank(proxy)
    {
        g = pg;
        distance = sys.list(NodeType::Gpu)[g].paths[NodeType::Net as usize][net].ty;
        via = why(explain, || format!(" (through rank {proxy} by PXN)"));
    }
    // Before 2.29.2 the level stays PXB and a NIC reached over C2C then PCIe counts as
    // C2C when NCCL_NET_GDR_C2C is on (in 2.26, where that path is still PHB, when the
    // GPU reaches its CPU over C2C).
    let old_c2c = !p.release.gdr_level_from_c2c();
    let over_c2c = if p.release.p2c_paths() {
        distance == PathType::P2c
    } else {
        distance == PathType::Phb
            && local_cpu(sys, g)
                .is_some_and(|c| sys.list(NodeType::Gpu)[g].paths[NodeType::Cpu as usize][c].ty == PathType::C2c)
    };
    if old_c2c && p.env.gdr_c2c && over_c2c {
        distance = PathType::C2c;
        via.push_str(&why(explain, || " (counted as C2C: NCCL_NET_GDR_C2C=1)".into()));
    }
    if distance.rank(p.release.p2c_after_pxn()) > level.rank(p.release.p2c_after_pxn()) {
        return (
            GdrMode::Disabled,
            why(explain, || {
                format!("GPU to {} is {distance}{via}, above the GDR level {level} ({source})", ninfo.name)
            }),
        );
    }
    let Some(c) = local_cpu(sys, g) else { return (GdrMode::Default, why(explain, || "no local CPU".into())) };
    let direct = if old_c2c { PathType::C2c } else { PathType::P2c };
    if sys.list(NodeType::Gpu)[g].paths[NodeType::Cpu as usize][c].ty == PathType::C2c && distance != direct {
        (
            GdrMode::Pci,
            why(explain, || format!("GPU to {} is {distance}{via} on a C2C system: PCIe mapping forced", ninfo.name)),
        )
    } else {
        (
            GdrMode::Default,
            why(explain, || {
                format!("GPU to {} is {distance}{via}, within the GDR level {level} ({source})", ninfo.name)
            }),
        )
    }
}

/// `ncclTopoComputePaths`. `n_ranks` is the communicator size (all nodes).
pub fn compute_paths(sys: &mut System, p: &Params) -> Result<(), Error> {
    for t in NodeType::ALL {
        for n in sys.nodes[t as usize].iter_mut() {
            n.paths = Default::default();
        }
    }
    for t in [NodeType::Cpu, NodeType::Dev, NodeType::Gpu, NodeType::Net, NodeType::Gin, NodeType::Rma, NodeType::Nvs] {
        for i in 0..sys.count(t) {
            set_paths(sys, NodeRef::new(t, i), p);
        }
    }
    // Make sure every node has path tables for every type, reached or not.
    for t in NodeType::ALL {
        let n = sys.count(t);
        for ty in NodeType::ALL {
            for node in sys.nodes[ty as usize].iter_mut() {
                if node.paths[t as usize].len() != n {
                    node.paths[t as usize] = vec![Path::default(); n];
                }
            }
        }
    }
    let ngpus = sys.count(NodeType::Gpu);
    // Only GPU-to-GPU paths change in this loop.
    let fast = Fast::new(sys);
    for g in 0..ngpus {
        let rg = sys.list(NodeType::Gpu)[g].gpu_rank();
        for q in 0..ngpus {
            let rq = sys.list(NodeType::Gpu)[q].gpu_rank();
            if !check_p2p_why(sys, p, rq, rg, false, Some(&fast))?.p2p
                && let Some(c) = local_cpu(sys, g)
            {
                add_inter_step(
                    sys,
                    NodeRef::new(NodeType::Cpu, c),
                    NodeRef::new(NodeType::Gpu, q),
                    NodeRef::new(NodeType::Gpu, g),
                );
            }
        }
        for q in 0..ngpus {
            if q == g {
                continue;
            }
            let rq = sys.list(NodeType::Gpu)[q].gpu_rank();
            if !p2p_can_connect_why(sys, p, rq, rg, false, Some(&fast))?.0
                && !shm_verdict(sys, p, rq, rg, Some(&fast)).0
            {
                sys.nodes[NodeType::Gpu as usize][q].paths[NodeType::Gpu as usize][g].ty = PathType::Net;
            }
        }
    }
    // GPU to NIC over C2C then PCIe (P2C, 2.27.3): from 2.29.2 only towards the closest
    // NICs, before towards every NIC.
    for g in 0..if p.release.p2c_paths() { ngpus } else { 0 } {
        let Some(c) = local_cpu(sys, g) else { continue };
        let nets = if p.release.p2c_local_nets_only() {
            get_local(sys, NodeRef::new(NodeType::Gpu, g), NodeType::Net).0
        } else {
            (0..sys.count(NodeType::Net)).collect()
        };
        for n in nets {
            let gc = sys.list(NodeType::Gpu)[g].paths[NodeType::Cpu as usize][c].ty;
            let nc = sys.list(NodeType::Net)[n].paths[NodeType::Cpu as usize][c].ty;
            if merge_path_type(gc, nc) == PathType::P2c {
                let gp = &mut sys.nodes[NodeType::Gpu as usize][g].paths[NodeType::Net as usize][n];
                gp.ty = gp.ty.min(PathType::P2c);
                let np = &mut sys.nodes[NodeType::Net as usize][n].paths[NodeType::Gpu as usize][g];
                np.ty = np.ty.min(PathType::P2c);
            }
        }
    }
    for n in 0..sys.count(NodeType::Net) {
        // NCCL asks for the NET's local GPU once per GPU; the answer depends only on the
        // paths, so it is recomputed only after a path was rerouted.
        let mut local_gpu: Option<Option<usize>> = None;
        for g in 0..ngpus {
            if !p.env.pxn_disable {
                let lg = *local_gpu.get_or_insert_with(|| local_gpu_of_net(sys, p, n));
                if let Some(peer) = lg
                    && peer != g
                {
                    let peer_rank = sys.list(NodeType::Gpu)[peer].gpu_rank();
                    // From 2.30.3 the relay must be able to use GPUDirect RDMA.
                    let gdr_ok = !p.release.pxn_needs_gdr()
                        || check_gdr_why(sys, p, peer_rank, n, true, false).0 != GdrMode::Disabled;
                    let pxn_ty = if p.env.pxn_c2c { PathType::P2c } else { PathType::Pxb };
                    // Going through the CPU: past PXN from 2.27.6, past the PXN type before.
                    let past = if p.release.pxn_avoids_cpu_past_pxn() { PathType::Pxn } else { pxn_ty };
                    let gl = sys.list(NodeType::Gpu);
                    let pn = &gl[peer].paths[NodeType::Net as usize][n];
                    let gn = &gl[g].paths[NodeType::Net as usize][n];
                    if pn.ty <= pxn_ty
                        && gdr_ok
                        && gl[peer].paths[NodeType::Gpu as usize][g].ty <= PathType::Nvl
                        && id_system(gl[peer].id) == id_system(gl[g].id)
                        && (pn.bw > gn.bw
                            || gn.ty.rank(p.release.p2c_after_pxn()) > past.rank(p.release.p2c_after_pxn()))
                    {
                        add_inter_step(
                            sys,
                            NodeRef::new(NodeType::Gpu, peer),
                            NodeRef::new(NodeType::Gpu, g),
                            NodeRef::new(NodeType::Net, n),
                        );
                        local_gpu = None;
                    }
                }
            }
            if sys.list(NodeType::Gpu)[g].paths[NodeType::Net as usize][n].ty < PathType::Phb {
                let rank = sys.list(NodeType::Gpu)[g].gpu_rank();
                if check_gdr_why(sys, p, rank, n, false, false).0 == GdrMode::Disabled
                    && let Some(c) = local_cpu(sys, g)
                {
                    let cpu = NodeRef::new(NodeType::Cpu, c);
                    add_inter_step(sys, cpu, NodeRef::new(NodeType::Net, n), NodeRef::new(NodeType::Gpu, g));
                    add_inter_step(sys, cpu, NodeRef::new(NodeType::Gpu, g), NodeRef::new(NodeType::Net, n));
                    local_gpu = None;
                }
            }
        }
    }
    for n in 0..sys.count(NodeType::Net) {
        let lg = local_gpu_of_net(sys, p, n).map_or(-1, |g| g as i32);
        if let Some(info) = sys.nodes[NodeType::Net as usize][n].net_mut() {
            info.local_gpu = lg;
        }
    }
    Ok(())
}

/// `ncclTopoTrimSystem`: drop GPUs rank `my_rank` cannot reach without the network.
/// Returns the ranks removed.
pub fn trim_system(sys: &mut System, my_rank: i32, n_ranks: usize) -> Vec<i32> {
    let ngpus = sys.count(NodeType::Gpu);
    let (domains, my_domain) = gpu_domains(sys, my_rank);
    let ids: Vec<i64> = sys.list(NodeType::Gpu).iter().map(|g| g.id).collect();
    let mut removed = Vec::new();
    for i in 0..ngpus {
        if domains[i] == my_domain {
            continue;
        }
        if let Some(g) = sys.find(NodeType::Gpu, ids[i]) {
            removed.push(sys.list(NodeType::Gpu)[g].gpu_rank());
            sys.remove_node(NodeType::Gpu, g);
        }
    }
    sys.inter = sys.count(NodeType::Gpu) != n_ranks;
    removed
}

/// Each GPU's domain (the GPUs it reaches without the network, named by the lowest
/// index among them), and the domain of `my_rank`'s GPU.
fn gpu_domains(sys: &System, my_rank: i32) -> (Vec<usize>, usize) {
    let ngpus = sys.count(NodeType::Gpu);
    let mut domains: Vec<usize> = (0..ngpus).collect();
    let mut my_domain = 0;
    for g in 0..ngpus {
        for q in 0..g {
            if sys.list(NodeType::Gpu)[g].paths[NodeType::Gpu as usize][q].ty < PathType::Net {
                domains[g] = domains[g].min(domains[q]);
            }
        }
        if sys.list(NodeType::Gpu)[g].gpu_rank() == my_rank {
            my_domain = domains[g];
        }
    }
    (domains, my_domain)
}

/// Whether [`trim_system`] for `my_rank` would remove any GPU.
pub fn trims_any(sys: &System, my_rank: i32) -> bool {
    let (domains, mine) = gpu_domains(sys, my_rank);
    domains.iter().any(|&d| d != mine)
}

/// `ncclTopoSearchInit`: the per-channel and total bandwidth the search starts from.
pub fn search_init(sys: &mut System) {
    sys.max_bw = 0.0;
    sys.total_bw = 0.0;
    if !sys.inter && sys.count(NodeType::Gpu) == 1 {
        sys.max_bw = bw::LOC;
        sys.total_bw = bw::LOC;
        return;
    }
    let target = if sys.inter { NodeType::Net } else { NodeType::Dev };
    let mut max_bw = 0.0f32;
    let mut total = 0.0f32;
    for d in sys.list(NodeType::Dev) {
        let mut m = 0.0f32;
        for p in d.paths[target as usize].iter().take(sys.count(target)) {
            if p.count() == 0 {
                continue;
            }
            m = m.max(p.bw);
        }
        max_bw = max_bw.max(m);
        let mut nvl = 0.0f32;
        let mut pci = 0.0f32;
        for l in &d.links {
            if l.ty == LinkType::Nvl {
                nvl += l.bw;
            }
            if l.ty == LinkType::Pci {
                pci = l.bw;
            }
        }
        total = total.max(pci.max(nvl));
    }
    sys.max_bw = max_bw;
    sys.total_bw = total;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_bits_reverses_low_bits() {
        assert_eq!(mirror_bits(1, 8), 4);
        assert_eq!(mirror_bits(3, 8), 6);
        assert_eq!(mirror_bits(0, 1), 0);
        assert!(is_pow2(8) && !is_pow2(6));
    }

    /// paths.cc ncclTopoCheckP2p: until 2.22.3 the default level is SYS, PXB on ARM,
    /// Intel and Zhaoxin; from 2.23.4 PXB, SYS on AMD with at most two GPUs.
    #[test]
    fn p2p_default_level_by_release() {
        let gpu = |b: &str, d: i32| {
            format!(
                r#"<pci busid="0000:{b}:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16"><gpu dev="{d}" sm="80" gdr="1"/></pci>"#
            )
        };
        let doc = |cpu: &str, n: i32| {
            let gpus: String = (0..n).map(|d| gpu(&format!("{:02x}", 0x10 + d), d)).collect();
            format!(r#"<system version="1"><cpu numaid="0" {cpu}>{gpus}</cpu></system>"#)
        };
        let amd = r#"arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1""#;
        let intel = r#"arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143""#;
        let level = |cpu: &str, n: i32, v: &str| {
            let x = crate::xml::parse(&doc(cpu, n), None).unwrap().0;
            let env = Env::for_release(Release::parse(v).unwrap(), Vec::<(String, String)>::new());
            let an = crate::model::analyze(&x, "t", &crate::model::Options { env, ..Default::default() }).unwrap();
            p2p_level(&an.system, &an.params).0
        };
        assert_eq!(level(amd, 4, "2.22.3"), PathType::Sys);
        assert_eq!(level(amd, 4, "2.23.4"), PathType::Pxb);
        assert_eq!(level(amd, 2, "2.23.4"), PathType::Sys);
        assert_eq!(level(intel, 4, "2.22.3"), PathType::Pxb);
        assert_eq!(level(r#"arch="arm64""#, 4, "2.21.5"), PathType::Pxb);
    }

    /// An NVLink of a test GPU: target busid, count, target class.
    type Link = (&'static str, i32, &'static str);
    /// A test GPU: its sm and NVLinks.
    type TestGpu = (i32, &'static [Link]);

    /// GPUs on root ports of one Intel socket, each `(sm, nvlinks)` with NVLinks as
    /// `(target busid, count, tclass)`; GPU `i` has bus `0000:1i:00.0`. NVSwitches
    /// named as targets (`0000:0n:00.0`) are listed as PCI leaves of the socket.
    fn p2p_of(gpus: &[TestGpu], vars: &[(&str, &str)], r1: i32, r2: i32) -> P2pCheck {
        let mut nvs = std::collections::BTreeSet::new();
        let mut body = String::new();
        for (d, (sm, links)) in gpus.iter().enumerate() {
            let links: String = links
                .iter()
                .map(|(t, c, class)| {
                    if *class == "0x068000" {
                        nvs.insert(t.to_string());
                    }
                    format!(r#"<nvlink target="{t}" count="{c}" tclass="{class}"/>"#)
                })
                .collect();
            body += &format!(
                r#"<pci busid="0000:1{d}:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16"><gpu dev="{d}" sm="{sm}" rank="{d}" gdr="1">{links}</gpu></pci>"#
            );
        }
        for b in nvs {
            body += &format!(r#"<pci busid="{b}" class="0x068000" link_speed="16.0 GT/s PCIe" link_width="2"/>"#);
        }
        let doc = format!(
            r#"<system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">{body}</cpu></system>"#
        );
        let x = crate::xml::parse(&doc, None).unwrap().0;
        let env = Env::for_release(Release::parse("2.30.7").unwrap(), vars.iter().map(|&(k, v)| (k, v)));
        let an = crate::model::analyze(&x, "t", &crate::model::Options { env, ..Default::default() }).unwrap();
        check_p2p(&an.system, &an.params, r1, r2).unwrap()
    }

    const GPU: &str = "0x030200";
    const NVS: &str = "0x068000";

    /// paths.cc ncclTopoCheckP2p: P2P read only on a direct NVLink path (NVL) between two
    /// GPUs of compute capability 8.0 (Ampere's A100/A800/A30).
    #[test]
    fn p2p_read_on_nvlink_between_sm80_gpus() {
        let pair = |sm: i32| -> [TestGpu; 2] { [(sm, &[("0000:11:00.0", 4, GPU)]), (sm, &[("0000:10:00.0", 4, GPU)])] };
        let c = p2p_of(&pair(80), &[], 0, 1);
        assert!(c.p2p && c.read, "{c:?}");
        assert!(p2p_of(&pair(80), &[], 1, 0).read, "both ways");
        // Hopper, Volta and the GA10x (8.6) write.
        for sm in [90, 70, 86] {
            let c = p2p_of(&pair(sm), &[], 0, 1);
            assert!(c.p2p && !c.read, "sm {sm}: {c:?}");
        }
        // Both GPUs must be 8.0.
        let mixed: [TestGpu; 2] = [(80, &[("0000:11:00.0", 4, GPU)]), (86, &[("0000:10:00.0", 4, GPU)])];
        assert!(!p2p_of(&mixed, &[], 0, 1).read);
    }

    #[test]
    fn p2p_read_through_an_nvswitch() {
        let gpus: [TestGpu; 2] = [(80, &[("0000:05:00.0", 12, NVS)]), (80, &[("0000:05:00.0", 12, NVS)])];
        let c = p2p_of(&gpus, &[], 0, 1);
        assert!(c.p2p && c.read, "{c:?}");
    }

    /// Not NVL: over PCIe only, or NVLink through a third GPU (NVB).
    #[test]
    fn no_p2p_read_without_a_direct_nvlink() {
        let pcie: [TestGpu; 2] = [(80, &[]), (80, &[])];
        let c = p2p_of(&pcie, &[], 0, 1);
        assert!(!c.read, "{c:?}");
        // 0 - 1 - 2: GPUs 0 and 2 meet through GPU 1.
        let chain: [TestGpu; 3] = [
            (80, &[("0000:11:00.0", 2, GPU)]),
            (80, &[("0000:10:00.0", 2, GPU), ("0000:12:00.0", 2, GPU)]),
            (80, &[("0000:11:00.0", 2, GPU)]),
        ];
        let c = p2p_of(&chain, &[], 0, 2);
        assert!(c.p2p && !c.read && c.intermediate == 1, "{c:?}");
        assert!(p2p_of(&chain, &[], 0, 1).read);
    }

    /// P2P off by NCCL_P2P_LEVEL: the path is diverted through the CPU (paths.cc
    /// ncclTopoComputePaths adds a CPU step), so it is no longer NVL and nothing is read.
    #[test]
    fn no_p2p_read_once_p2p_is_off() {
        let gpus: [TestGpu; 2] = [(80, &[("0000:11:00.0", 4, GPU)]), (80, &[("0000:10:00.0", 4, GPU)])];
        let c = p2p_of(&gpus, &[("NCCL_P2P_LEVEL", "LOC")], 0, 1);
        assert!(!c.p2p && !c.read, "{c:?}");
        assert!(c.reason.starts_with("path PHB"), "{c:?}");
    }

    #[test]
    fn p2c_merges_c2c_and_phb() {
        assert_eq!(merge_path_type(PathType::C2c, PathType::Phb), PathType::P2c);
        assert_eq!(merge_path_type(PathType::Pix, PathType::Phb), PathType::Phb);
    }
}
