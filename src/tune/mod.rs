//! NCCL's performance model: for each collective, algorithm and protocol, a latency and a
//! bandwidth derived from the search graphs (`ncclTopoTuneModel`), then, for one message
//! size, the algorithm and protocol with the lowest predicted time (`ncclTopoGetAlgoTime`
//! and `topoGetAlgoInfo`), as NCCL 2.30.7 computes them.
//!
//! ```no_run
//! # fn main() -> Result<(), topo::error::Error> {
//! use topo::tune::{Func, Model};
//! let (xml, _) = topo::fixtures::get("dgx-h100")?.load()?;
//! let an = topo::model::analyze(&xml, "dgx-h100", &Default::default())?;
//! let so = topo::search::SearchOptions::from_analysis(&an)?;
//! let (graphs, _) = topo::search::run(&an, &so)?;
//! let model = Model::new(&an, &graphs)?;
//! let p = model.predict(Func::AllReduce, 1 << 30)?;
//! println!("{} {} {:.1} us, busbw {:.1} GB/s ({})", p.algo, p.proto, p.time_us, p.busbw_gbs, p.bottleneck);
//! # Ok(()) }
//! ```
//!
//! Everything the model uses comes from the topology, the graphs and the NCCL_* variables,
//! except a few facts only a running job knows; those are fixed and listed in
//! [`Model::assumptions`]: float sum, one collective per launch, no tuner plugin, a
//! host-based network plugin, unregistered buffers, NCCL built with CUDA 12.

pub mod channels;
pub mod constants;
pub mod env;
pub mod render;

use crate::error::Error;
use crate::model::{Analysis, NodeType, PathType, cpu};
use crate::search::{Graph, Graphs, pattern};

use constants::*;

/// Number of collectives, algorithms and protocols in NCCL's tables.
pub const NFUNC: usize = 5;
pub const NALGO: usize = 7;
pub const NPROTO: usize = 3;

/// A collective, in NCCL's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum Func {
    Broadcast = 0,
    Reduce = 1,
    #[value(name = "allgather")]
    AllGather = 2,
    #[value(name = "reducescatter")]
    ReduceScatter = 3,
    #[value(name = "allreduce")]
    AllReduce = 4,
}

impl Func {
    pub const ALL: [Func; NFUNC] =
        [Func::Broadcast, Func::Reduce, Func::AllGather, Func::ReduceScatter, Func::AllReduce];
    /// NCCL's name (`ncclFuncStr`).
    pub fn name(self) -> &'static str {
        ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"][self as usize]
    }
    /// nccl-tests' bus bandwidth factor for `n` ranks: busbw = algbw x factor.
    pub fn bus_factor(self, n: usize) -> f64 {
        let n = n as f64;
        match self {
            Func::AllReduce => 2.0 * (n - 1.0) / n,
            Func::AllGather | Func::ReduceScatter => (n - 1.0) / n,
            Func::Broadcast | Func::Reduce => 1.0,
        }
    }
}

/// An algorithm, in NCCL's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algo {
    Tree = 0,
    Ring = 1,
    CollNetDirect = 2,
    CollNetChain = 3,
    Nvls = 4,
    NvlsTree = 5,
    Pat = 6,
}

impl Algo {
    pub const ALL: [Algo; NALGO] =
        [Algo::Tree, Algo::Ring, Algo::CollNetDirect, Algo::CollNetChain, Algo::Nvls, Algo::NvlsTree, Algo::Pat];
    /// NCCL's name (`ncclAlgoStr`), as NCCL_ALGO takes it.
    pub fn name(self) -> &'static str {
        ["Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"][self as usize]
    }
}

/// A protocol, in NCCL's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Proto {
    Ll = 0,
    Ll128 = 1,
    Simple = 2,
}

impl Proto {
    pub const ALL: [Proto; NPROTO] = [Proto::Ll, Proto::Ll128, Proto::Simple];
    /// NCCL's name (`ncclProtoStr`), as NCCL_PROTO takes it.
    pub fn name(self) -> &'static str {
        ["LL", "LL128", "Simple"][self as usize]
    }
}

macro_rules! display_by_name {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
    )*};
}
display_by_name!(Func, Algo, Proto);

/// GPU generation, the row of NCCL's per-architecture constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Arch {
    Volta = 0,
    Ampere = 1,
    Hopper = 2,
    Blackwell = 3,
}

impl Arch {
    /// NCCL's compute-capability index: sm100+ Blackwell, sm90 Hopper, sm80 Ampere, else Volta.
    pub fn from_cc(cc: i32) -> Arch {
        if cc >= 100 {
            Arch::Blackwell
        } else if cc >= 90 {
            Arch::Hopper
        } else if cc >= 80 {
            Arch::Ampere
        } else {
            Arch::Volta
        }
    }
    pub fn name(self) -> &'static str {
        ["Volta", "Ampere", "Hopper", "Blackwell"][self as usize]
    }
}

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
    fn zero(pattern: i32) -> GraphFacts {
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
    fn of(g: &Graph) -> GraphFacts {
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
    /// GPUs per node (`localRanks`, the same on every node here).
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
    /// The tree graph's pattern (`comm->maxTreePattern`).
    pub tree_pattern: i32,
    pub pat_enable: bool,
    /// Network post overhead (µs), NCCL_NET_OVERHEAD or the CPU's default.
    pub net_overhead_us: f32,
    /// Per-algorithm graph facts, indexed by [`Algo`] (JSON: keyed by algorithm name).
    #[serde(serialize_with = "by_algo_name")]
    pub graphs: [GraphFacts; NALGO],
}

fn by_algo_name<S: serde::Serializer>(g: &[GraphFacts; NALGO], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(NALGO))?;
    for a in Algo::ALL {
        m.serialize_entry(a.name(), &g[a as usize])?;
    }
    m.end()
}

/// NCCL's tuning table: what `NCCL_DEBUG_SUBSYS=TUNING` prints, plus thread settings.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Table {
    /// Latency (µs) by [`Func`], [`Algo`], [`Proto`].
    pub latency: [[[f32; NPROTO]; NALGO]; NFUNC],
    /// Algorithm bandwidth (GB/s), 0 when unusable, same indices.
    pub bandwidth: [[[f32; NPROTO]; NALGO]; NFUNC],
    /// `comm->maxThreads` by algorithm and protocol.
    pub max_threads: [[i32; NPROTO]; NALGO],
    /// `comm->threadThresholds` by algorithm and protocol.
    pub thread_thresholds: [[i64; NPROTO]; NALGO],
    /// NCCL_ALGO / NCCL_PROTO after parsing (1 on, 0 off, 2 = LL128 "auto").
    pub algo_enable: [[i32; NALGO]; NFUNC],
    pub proto_enable: [[i32; NPROTO]; NFUNC],
}

/// What NCCL would do for one collective of one size.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Prediction {
    pub func: Func,
    /// NCCL's nBytes: the buffer for AllReduce/Broadcast/Reduce, the total (all ranks)
    /// for AllGather/ReduceScatter, i.e. nccl-tests' `size` column.
    pub bytes: u64,
    pub algo: Algo,
    pub proto: Proto,
    /// Predicted time (µs).
    #[serde(serialize_with = "short_float")]
    pub time_us: f64,
    /// bytes / time, GB/s.
    #[serde(serialize_with = "short_float")]
    pub algbw_gbs: f64,
    /// algbw x nccl-tests' bus factor for this collective.
    #[serde(serialize_with = "short_float")]
    pub busbw_gbs: f64,
    /// Channels (thread blocks) NCCL launches for this size (0 for a single rank).
    pub nchannels: usize,
    /// Threads per channel (0 for a single rank).
    pub nthreads: usize,
    /// What limits this algorithm's bandwidth, e.g. "NVL 20.6 GB/s per channel x 24 channels".
    pub bottleneck: String,
}

/// Serialize a figure with the precision it has (it comes from `f32` arithmetic).
fn short_float<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(short(*v as f32))
}

/// An `f32` as the `f64` of its shortest decimal form, so that JSON (which widens to
/// `f64`) shows 15.2 rather than 15.200000762939453.
pub(crate) fn short(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(v as f64)
}

/// The model for one communicator: build once, then ask for any size.
#[derive(Debug, Clone)]
pub struct Model {
    pub comm: Comm,
    pub table: Table,
    /// What limits each (func, algo, proto) entry.
    limits: Vec<String>,
    /// Values NCCL would misread or correct, and choices the user should know about.
    pub warnings: Vec<String>,
    /// NCCL_ALGO / NCCL_PROTO as given, for error messages.
    algo_env: Option<String>,
    proto_env: Option<String>,
}

/// NCCL's code for CPUs of several vendors in one job (never the case with identical nodes).
const CPU_VENDOR_MIXED: i32 = 4;

fn log2i(n: u64) -> i64 {
    if n == 0 { -1 } else { 63 - n.leading_zeros() as i64 }
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

impl Model {
    /// Build the model from the analysed system and the graphs the search found for it.
    /// Fails when NCCL_ALGO or NCCL_PROTO does not parse (NCCL fails its init then).
    pub fn new(an: &Analysis, gs: &Graphs) -> Result<Model, Error> {
        let env = &an.options.env;
        let sys = &an.system;
        let mut warnings = Vec::new();

        let local_ranks = sys.count(NodeType::Gpu).max(1);
        let n_ranks = an.n_ranks.max(1);
        let n_nodes = n_ranks.div_ceil(local_ranks);
        if !n_ranks.is_multiple_of(local_ranks) {
            warnings.push(format!(
                "{n_ranks} ranks do not split evenly into nodes of {local_ranks} GPUs; the model assumes {n_nodes} nodes"
            ));
        }
        let ccs: Vec<i32> = an.gpus.iter().map(|g| g.sm).collect();
        let min_cc = ccs.iter().copied().min().unwrap_or(0);
        let max_cc = ccs.iter().copied().max().unwrap_or(0);
        let cc = an.gpus.iter().find(|g| g.rank == 0).map_or(min_cc, |g| g.sm);
        let (cpu_arch, cpu_vendor) = match sys.list(NodeType::Cpu).first().map(|n| &n.kind) {
            Some(crate::model::system::Kind::Cpu { arch, vendor, .. }) => (*arch, *vendor),
            _ => (0, 0),
        };

        // CollNet: `--collnet` stands for a SHARP-capable network with NCCL_COLLNET_ENABLE=1.
        let collnet_env = env.get("NCCL_COLLNET_ENABLE").map(crate::xml::strtol);
        let collnet_requested = an.options.collnet && collnet_env != Some(0);
        let nvls_support = gs.nvls.computed && gs.nvls.n_channels > 0;

        // The graphs, aligned as init.cc does: ring and tree get min(ring, tree) channels.
        let mut tree = GraphFacts::of(&gs.tree);
        let mut ring = GraphFacts::of(&gs.ring);
        let aligned = ring.n_channels.min(tree.n_channels);
        ring.n_channels = aligned;
        tree.n_channels = aligned;
        let (direct, chain) = if collnet_requested {
            (GraphFacts::of(&gs.collnet_direct), GraphFacts::of(&gs.collnet_chain))
        } else {
            (GraphFacts::zero(pattern::COLLNET_DIRECT), GraphFacts::zero(pattern::TREE))
        };
        let nvls = GraphFacts::of(&gs.nvls);
        let graphs = [tree, ring, direct, chain, nvls, nvls, tree];

        let mut collnet_enable = collnet_requested && chain.n_channels > 0;
        let threshold = env.param("COLLNET_NODE_THRESHOLD", 2);
        if collnet_enable && (n_nodes as i64) < threshold {
            collnet_enable = false;
            warnings
                .push(format!("CollNet is off: {n_nodes} node(s) is below NCCL_COLLNET_NODE_THRESHOLD ({threshold})"));
        }
        let collnet_heads = if !collnet_enable {
            0
        } else if nvls_support {
            distinct_heads(&gs.nvls, local_ranks)
        } else {
            distinct_heads(&gs.collnet_direct, local_ranks)
        };

        let ch_in = channels::ChannelInputs {
            ring_channels: ring.n_channels,
            tree_channels: tree.n_channels,
            ring_bw_intra: ring.bw_intra,
            collnet_more_intra: collnet_enable && chain.bw_intra > chain.bw_inter,
            n_ranks,
            n_nodes,
            min_cc,
            cc,
        };
        let n_channels = channels::coll_channels(&ch_in, env);
        let nvls_channels = channels::nvls_channels(&ch_in, env, nvls_support);

        let pat_param = env.param("PAT_ENABLE", 2);
        let pat_enable = if min_cc < 60 {
            false
        } else if pat_param != 2 {
            pat_param != 0
        } else {
            n_nodes == n_ranks
        };
        let net_overhead_us = match env.param("NET_OVERHEAD", -2) {
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
            arch: Arch::from_cc(min_cc),
            cpu_arch,
            cpu_vendor,
            n_channels,
            nvls_channels,
            nvls_support,
            collnet_enable,
            collnet_heads,
            nvs_count: sys.count(NodeType::Nvs),
            tree_pattern: tree.pattern,
            pat_enable,
            net_overhead_us,
            graphs,
        };
        let algo_env = env.get("NCCL_ALGO").map(str::to_string);
        let proto_env = env.get("NCCL_PROTO").map(str::to_string);
        let (table, limits) = tune(&comm, env, algo_env.as_deref(), proto_env.as_deref(), &mut warnings)?;
        for w in env.warnings() {
            if !an.diags.iter().any(|d| d.message == w) && !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        Ok(Model { comm, table, limits, warnings, algo_env, proto_env })
    }

    /// The facts this model fixes because only a running job knows them.
    pub fn assumptions(&self) -> Vec<String> {
        let mut v = vec![
            "data type float, reduction sum, one collective per launch (nccl-tests defaults)".to_string(),
            "no tuner plugin, buffers not registered (no symmetric or copy-engine kernels)".to_string(),
            "network plugin host-based (IB verbs or sockets; no GPU-side unpack doubling of channels)".to_string(),
            "NCCL built with CUDA 12 (the CUDA 11.8 Hopper LL128 exception does not apply)".to_string(),
            "no SM count or driver version enters NCCL 2.30.7's tuning: the GPUs' compute capability is all it reads"
                .to_string(),
        ];
        if self.comm.nvls_support {
            v.push("driver exposes NVLink SHARP multicast (CUDA >= 12.1), as the search assumed".to_string());
        }
        if self.comm.collnet_enable {
            v.push(format!(
                "CollNet plugin supports allreduce, allgather and reducescatter on float sum; {} head(s) per node; chain heads are a subset of direct heads",
                self.comm.collnet_heads
            ));
        }
        v
    }

    /// Bandwidth limit text for one table entry.
    pub fn limit(&self, f: Func, a: Algo, p: Proto) -> &str {
        &self.limits[(f as usize * NALGO + a as usize) * NPROTO + p as usize]
    }

    /// Predicted time (µs) of every algorithm and protocol NCCL considers for this call,
    /// `None` where NCCL ignores the entry or its bandwidth is 0 (`updateCollCostTable`).
    pub fn cost_table(&self, func: Func, bytes: u64) -> [[Option<f32>; NPROTO]; NALGO] {
        let c = &self.comm;
        let mut out = [[None; NPROTO]; NALGO];
        if c.n_ranks == 1 {
            out[Algo::Ring as usize][Proto::Simple as usize] = Some(0.0);
            return out;
        }
        let collnet_support = c.collnet_enable;
        for a in Algo::ALL {
            let max_local = c.local_ranks;
            if matches!(a, Algo::CollNetDirect | Algo::CollNetChain)
                && (!collnet_support || max_local > MAX_DIRECT_ARITY + 1)
            {
                continue;
            }
            if matches!(a, Algo::Nvls | Algo::NvlsTree)
                && (!c.nvls_support || (func != Func::AllReduce && c.local_ranks > MAX_NVLS_ARITY))
            {
                continue;
            }
            if a == Algo::Nvls && !collnet_support && c.n_nodes > 1 {
                continue;
            }
            for p in Proto::ALL {
                out[a as usize][p as usize] = self.algo_time(func, a, p, bytes);
            }
        }
        out
    }

    /// `ncclTopoGetAlgoTime` for one pipelined operation.
    fn algo_time(&self, func: Func, a: Algo, p: Proto, bytes: u64) -> Option<f32> {
        let c = &self.comm;
        let (f, ai, pi) = (func as usize, a as usize, p as usize);
        let mut bw = self.table.bandwidth[f][ai][pi];
        let mut lat = self.table.latency[f][ai][pi];
        if bw == 0.0 {
            return None;
        }
        let log_size = log2i(bytes >> 6);
        if a == Algo::Tree && func == Func::AllReduce && (0..23).contains(&log_size) {
            bw *= TREE_CORRECTION[pi][log_size as usize];
        }
        if a == Algo::NvlsTree
            && func == Func::AllReduce
            && (0..24).contains(&log_size)
            && c.min_cc >= 100
            && c.cpu_arch == cpu::ARCH_X86
        {
            bw *= TREE_CORRECTION[pi][log_size as usize];
        }
        if a == Algo::Ring
            && p == Proto::Simple
            && c.n_nodes > 1
            && func == Func::AllReduce
            && bytes / (c.n_channels.max(1) * c.n_ranks) as u64 >= 64
        {
            lat = (lat as f64 * if c.min_cc < 80 { 1.9 } else { 1.4 }) as f32;
        }
        Some(lat + bytes as f32 / (1000.0f32 * bw))
    }

    /// What NCCL picks for `func` on `bytes` (NCCL's nBytes, see [`Prediction::bytes`]):
    /// the fastest entry of [`Model::cost_table`] (first one on ties, in NCCL's order),
    /// with the channels and threads NCCL then launches. Fails, as NCCL does, when
    /// NCCL_ALGO/NCCL_PROTO leave nothing usable for this collective.
    pub fn predict(&self, func: Func, bytes: u64) -> Result<Prediction, Error> {
        let c = &self.comm;
        let table = self.cost_table(func, bytes);
        let mut best: Option<(Algo, Proto, f32)> = None;
        for a in Algo::ALL {
            for p in Proto::ALL {
                if let Some(t) = table[a as usize][p as usize]
                    && t >= 0.0
                    && best.is_none_or(|(_, _, b)| t < b)
                {
                    best = Some((a, p, t));
                }
            }
        }
        let Some((algo, proto, time)) = best else {
            let mut msg = format!("no algorithm/protocol available for {} with datatype float.", func.name());
            if let Some(v) = &self.algo_env {
                msg.push_str(&format!(" NCCL_ALGO was set to {v}."));
            }
            if let Some(v) = &self.proto_env {
                msg.push_str(&format!(" NCCL_PROTO was set to {v}."));
            }
            return Err(Error::Usage(msg));
        };
        // One rank launches no kernel: NCCL copies the buffer locally.
        let (nchannels, nthreads) = if c.n_ranks == 1 { (0, 0) } else { self.launch(algo, proto, bytes) };
        let time_us = time as f64;
        let algbw = if time_us > 0.0 { bytes as f64 / time_us / 1e3 } else { 0.0 };
        let bottleneck = if c.n_ranks == 1 {
            "one rank: nothing crosses a link".to_string()
        } else {
            self.limit(func, algo, proto).to_string()
        };
        Ok(Prediction {
            func,
            bytes,
            algo,
            proto,
            time_us,
            algbw_gbs: algbw,
            busbw_gbs: algbw * func.bus_factor(c.n_ranks),
            nchannels,
            nthreads,
            bottleneck,
        })
    }

    /// Channels and threads for a chosen algorithm and protocol (`topoGetAlgoInfo`).
    fn launch(&self, a: Algo, p: Proto, bytes: u64) -> (usize, usize) {
        let c = &self.comm;
        let mut nc = c.n_channels as i64;
        let mut nt = self.table.max_threads[a as usize][p as usize] as i64;
        let mut thr = self.table.thread_thresholds[a as usize][p as usize];
        let b = bytes as i64;
        match a {
            Algo::CollNetDirect => {
                let heads = c.collnet_heads.max(1) as i64;
                let mut sw = 16;
                let mut more = true;
                while sw >= 1 && more {
                    loop {
                        more = b < nc * nt * heads * thr;
                        if !(more && nc > sw) {
                            break;
                        }
                        if nc == sw + sw / 2 {
                            thr /= 2;
                        }
                        nc -= 1;
                    }
                    sw /= 2;
                }
            }
            Algo::Nvls | Algo::NvlsTree => {
                nc = if c.n_nodes > 1 && a == Algo::Nvls {
                    c.nvls_channels.min(c.n_channels) as i64
                } else {
                    c.nvls_channels as i64
                };
            }
            _ => {
                while b < nc * nt * thr && nc >= 2 {
                    nc -= 1;
                }
            }
        }
        if !matches!(a, Algo::Nvls | Algo::NvlsTree | Algo::CollNetDirect) {
            while b < nc * nt * thr && nt % 128 == 0 {
                nt /= 2;
            }
        }
        if p == Proto::Simple {
            if a == Algo::Ring {
                nt += WARP_SIZE as i64;
            }
            if a == Algo::Tree {
                nt += 4 * WARP_SIZE as i64;
            }
        }
        if nt / (WARP_SIZE as i64) < 3 {
            nt = 3 * WARP_SIZE as i64;
        }
        if matches!(a, Algo::Tree | Algo::Pat) {
            nt = MAX_NTHREADS as i64;
        }
        (nc.max(0) as usize, nt as usize)
    }
}

/// "1 channel", "12 channels".
fn chans(n: i32) -> String {
    if n == 1 { "1 channel".into() } else { format!("{n} channels") }
}

/// Describe where a graph's per-channel bandwidth comes from.
fn link_text(g: &GraphFacts, inter: bool) -> String {
    if inter {
        format!("NET {:.1} GB/s per channel ({})", g.bw_inter, g.type_inter)
    } else {
        format!("{} {:.1} GB/s per channel", g.type_intra, g.bw_intra)
    }
}

/// Apply an NCCL_ALGO/NCCL_PROTO value to per-function enable flags.
fn apply_list<const N: usize>(
    var: &str,
    value: &str,
    elems: &[&str],
    rows: &mut [[i32; N]; NFUNC],
) -> Result<(), Error> {
    let mut flat: Vec<i32> = rows.concat();
    env::parse_list(value, &Func::ALL.map(Func::name), elems, &mut flat)
        .map_err(|e| Error::Usage(format!("{var}: {e}")))?;
    for (row, chunk) in rows.iter_mut().zip(flat.chunks(N)) {
        row.copy_from_slice(chunk);
    }
    Ok(())
}

/// `ncclTopoTuneModel`: fill the latency/bandwidth table, then apply the enable rules
/// and the user's NCCL_ALGO/NCCL_PROTO. Also returns, per entry, what limits it.
fn tune(
    c: &Comm,
    env: &crate::env::Env,
    algo_env: Option<&str>,
    proto_env: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<(Table, Vec<String>), Error> {
    let ring = &c.graphs[Algo::Ring as usize];
    let mut max_threads = [[0i32; NPROTO]; NALGO];
    let mut warn = |w: Option<String>| {
        if let Some(w) = w
            && !warnings.contains(&w)
        {
            warnings.push(w);
        }
    };
    let nthreads_env = env.param("NTHREADS", -2);
    let simple_default = if ring.bw_intra * ring.n_channels as f32 <= PCI_BW { 256 } else { SIMPLE_MAX_NTHREADS };
    let (nt, w) = env::nthreads("NCCL_NTHREADS", nthreads_env, 2 * WARP_SIZE, SIMPLE_MAX_NTHREADS, simple_default);
    warn(w);
    max_threads[Algo::Ring as usize][Proto::Simple as usize] = nt;
    let (nt, w) = env::nthreads("NCCL_NTHREADS", nthreads_env, 2 * WARP_SIZE, SIMPLE_MAX_NTHREADS, SIMPLE_MAX_NTHREADS);
    warn(w);
    max_threads[Algo::Tree as usize][Proto::Simple as usize] = nt;
    for a in [Algo::CollNetDirect, Algo::CollNetChain, Algo::Nvls, Algo::NvlsTree] {
        max_threads[a as usize][Proto::Simple as usize] = MAX_NTHREADS;
    }
    let (nt, w) = env::nthreads("NCCL_NTHREADS", nthreads_env, 2 * WARP_SIZE, LL_MAX_NTHREADS, LL_MAX_NTHREADS);
    warn(w);
    max_threads[Algo::Ring as usize][Proto::Ll as usize] = nt;
    max_threads[Algo::Tree as usize][Proto::Ll as usize] = nt;
    let (nt, w) = env::nthreads(
        "NCCL_LL128_NTHREADS",
        env.param("LL128_NTHREADS", -2),
        LL128_MAX_NTHREADS / 4,
        LL128_MAX_NTHREADS,
        LL128_MAX_NTHREADS,
    );
    warn(w);
    max_threads[Algo::Ring as usize][Proto::Ll128 as usize] = nt;
    max_threads[Algo::Tree as usize][Proto::Ll128 as usize] = nt;

    let mut latency = [[[0f32; NPROTO]; NALGO]; NFUNC];
    let mut bandwidth = [[[0f32; NPROTO]; NALGO]; NFUNC];
    let mut limits = vec![String::new(); NFUNC * NALGO * NPROTO];

    // Thread thresholds do not depend on the rank count being > 1.
    let mut thread_thresholds = [[0i64; NPROTO]; NALGO];
    for row in thread_thresholds.iter_mut() {
        *row = [LL_THREAD_THRESHOLD, LL128_THREAD_THRESHOLD, SIMPLE_THREAD_THRESHOLD];
    }
    thread_thresholds[Algo::Ring as usize][Proto::Ll as usize] *= c.n_ranks as i64;
    thread_thresholds[Algo::CollNetDirect as usize][Proto::Simple as usize] = 512;
    thread_thresholds[Algo::CollNetChain as usize][Proto::Simple as usize] = 512;
    if let Some(v) = env.get("NCCL_THREAD_THRESHOLDS") {
        let t = env::thread_thresholds(v);
        for (i, x) in t.iter().enumerate() {
            if let Some(x) = x.filter(|&x| x >= 0) {
                thread_thresholds[i / 3][i % 3] = x;
            }
        }
    }

    let mut algo_enable = [[1i32; NALGO]; NFUNC];
    let mut proto_enable = [[1, 2, 1]; NFUNC];
    if let Some(v) = proto_env {
        apply_list("NCCL_PROTO", v, &Proto::ALL.map(Proto::name), &mut proto_enable)?;
    }
    if let Some(v) = algo_env {
        apply_list("NCCL_ALGO", v, &Algo::ALL.map(Algo::name), &mut algo_enable)?;
    }

    if c.n_ranks <= 1 {
        // NCCL returns before modelling anything: one rank never communicates.
        let table = Table { latency, bandwidth, max_threads, thread_thresholds, algo_enable, proto_enable };
        return Ok((table, limits));
    }

    let n_nodes = c.n_nodes;
    let n_ranks = c.n_ranks;
    let arch = c.arch as usize;
    let scale = if n_nodes <= 2 { n_nodes - 1 } else { 2 };
    let ll_row = if n_nodes == 1 {
        arch
    } else if c.cpu_vendor == cpu::VENDOR_AMD || c.cpu_vendor == CPU_VENDOR_MIXED {
        1
    } else {
        0
    };
    let ll_max_bw = LL_MAX_BW[ll_row][scale];
    let per_ch_tree = PER_CH_MAX_TREE_BW[arch][scale];
    let per_ch_ring_ll128 = PER_CH_MAX_RING_LL128_BW[arch][scale];
    let per_ch_tree_ll128 = PER_CH_MAX_TREE_LL128_BW[arch][scale];
    let per_ch_nvls_tree = PER_CH_MAX_NVLS_TREE_BW[arch][scale];
    let mut hw_lat = HW_LATENCY;
    if c.cpu_arch == cpu::ARCH_POWER {
        hw_lat[HW_PCI][Algo::Tree as usize][Proto::Simple as usize] =
            hw_lat[HW_PCI][Algo::Ring as usize][Proto::Simple as usize];
    }
    let ppn = n_ranks as f32 / n_nodes as f32;
    let intra_hw: [usize; NALGO] =
        std::array::from_fn(|a| if c.graphs[a].type_intra == PathType::Nvl { HW_NVLINK } else { HW_PCI });
    let hw: [usize; NALGO] = std::array::from_fn(|a| if n_nodes == 1 { intra_hw[a] } else { HW_NET });
    let log_nodes = log2i(n_nodes as u64);

    for func in Func::ALL {
        let f = func as usize;
        let ag_rs = matches!(func, Func::AllGather | Func::ReduceScatter);
        let nsteps: i64 = match func {
            Func::AllReduce => 2 * (n_ranks as i64 - 1),
            Func::AllGather | Func::ReduceScatter => n_ranks as i64 - 1,
            _ => n_ranks as i64,
        };
        for algo in Algo::ALL {
            let a = algo as usize;
            if matches!(func, Func::Broadcast | Func::Reduce) && algo != Algo::Ring {
                continue;
            }
            if ag_rs && !matches!(algo, Algo::Pat | Algo::Ring | Algo::Nvls | Algo::CollNetDirect) {
                continue;
            }
            if func == Func::AllReduce && algo == Algo::Pat {
                continue;
            }
            let g = &c.graphs[a];
            let nch = g.n_channels;
            for proto in Proto::ALL {
                let p = proto as usize;
                if matches!(algo, Algo::Nvls | Algo::NvlsTree) && proto != Proto::Simple {
                    continue;
                }
                if ag_rs && algo == Algo::Pat && (proto != Proto::Simple || !c.pat_enable) {
                    continue;
                }
                let collnet = matches!(algo, Algo::CollNetDirect | Algo::CollNetChain);
                let inter = !(n_nodes <= 2 || collnet);
                let mut bw: f32 = if inter { g.bw_inter } else { g.bw_intra };
                let mut why = format!("{} x {}", link_text(g, inter), chans(nch));
                if matches!(algo, Algo::Nvls | Algo::NvlsTree) {
                    if nch < 2 {
                        continue;
                    }
                    let eff = NVLS_EFFICIENCY[arch];
                    let mut intra_bw: f32 = g.bw_intra * eff * (nch - 1) as f32 / nch as f32;
                    if func == Func::AllReduce {
                        intra_bw *= 2.0;
                    } else {
                        intra_bw *= (ppn - 1.0) / ppn;
                    }
                    let inter_bw: f32 = g.bw_inter * if n_nodes <= 2 && algo == Algo::NvlsTree { 2.0 } else { 1.0 };
                    let cap = if algo == Algo::NvlsTree { per_ch_nvls_tree as f32 } else { f32::MAX };
                    bw = intra_bw.min(inter_bw).min(cap);
                    why = if bw == intra_bw {
                        format!(
                            "NVLS: {} {:.1} GB/s per channel x {:.0}% efficiency x {}",
                            g.type_intra,
                            g.bw_intra,
                            eff * 100.0,
                            chans(nch)
                        )
                    } else if bw == inter_bw {
                        format!("NVLS: {} x {}", link_text(g, true), chans(nch))
                    } else {
                        format!("NVLSTree ceiling {cap:.1} GB/s per channel x {}", chans(nch))
                    };
                }
                let mut bus: f32 = nch as f32 * bw;
                let base = bus;

                if algo == Algo::Ring && proto == Proto::Ll {
                    bus = ll_max_bw.min(bus as f64 * 0.5) as f32;
                    why = if (bus as f64) < base as f64 * 0.5 {
                        format!("LL ceiling {ll_max_bw:.1} GB/s")
                    } else {
                        format!("{why}, LL at 50%")
                    };
                }
                if algo == Algo::Ring && proto == Proto::Ll128 {
                    let cap = nch as f64 * per_ch_ring_ll128;
                    bus = (bus as f64 * 0.92).min(cap) as f32;
                    why = if cap < base as f64 * 0.92 {
                        format!("LL128 ceiling {per_ch_ring_ll128:.1} GB/s per channel x {}", chans(nch))
                    } else {
                        format!("{why}, LL128 at 92%")
                    };
                }
                if algo == Algo::Tree && func == Func::AllReduce {
                    let cap = nch as f64 * per_ch_tree;
                    let before = bus as f64 * 0.92;
                    bus = before.min(cap) as f32;
                    if cap < before {
                        why = format!("Tree ceiling {per_ch_tree:.1} GB/s per channel x {}", chans(nch));
                    }
                }
                if algo == Algo::Tree && proto == Proto::Ll {
                    let before = bus as f64 * 1.0 / 3.8;
                    bus = before.min(ll_max_bw) as f32;
                    why = if ll_max_bw < before {
                        format!("LL ceiling {ll_max_bw:.1} GB/s")
                    } else {
                        format!("{why}, tree LL at 1/3.8")
                    };
                }
                if algo == Algo::Tree && proto == Proto::Ll128 {
                    let before = bus as f64 * if n_nodes == 1 { 7.0 / 9.0 } else { 120.0 / 128.0 };
                    let cap = nch as f64 * per_ch_tree_ll128;
                    bus = before.min(cap) as f32;
                    if cap < before {
                        why = format!("LL128 tree ceiling {per_ch_tree_ll128:.1} GB/s per channel x {}", chans(nch));
                    }
                }
                if algo == Algo::Tree && c.tree_pattern == pattern::TREE {
                    bus = (bus as f64 * 0.85) as f32;
                }
                if algo == Algo::Pat {
                    bus = (bus as f64 * 0.75) as f32;
                }
                if collnet && proto != Proto::Simple {
                    bus = 0.0;
                }
                if algo == Algo::CollNetDirect && proto == Proto::Simple {
                    if ag_rs {
                        bus = ppn * g.bw_intra.min(g.bw_inter * 0.9f32);
                        why = format!(
                            "CollNet: {ppn} GPUs x min(intra {:.1}, 90% of NET {:.1}) GB/s",
                            g.bw_intra, g.bw_inter
                        );
                    } else {
                        let mut factor: f32 = (ppn as f64 / (1.0 * nch as f64)) as f32;
                        factor -= (factor - 1.0) / 2.0;
                        bus /= factor;
                        if c.min_cc >= 90 {
                            bus = (bus as f64 * 0.85) as f32;
                        }
                        why = format!("CollNet: {why}, {factor:.2} GPUs per NIC");
                    }
                }
                if matches!(algo, Algo::Nvls | Algo::CollNetDirect) && proto == Proto::Simple && ag_rs && n_nodes > 1 {
                    // Needs CollNet (whose plugin is assumed to offer allgather and
                    // reducescatter) and a CollNet head for every GPU of the node.
                    if !c.collnet_enable || c.local_ranks > c.collnet_heads {
                        bus = 0.0;
                    }
                }
                if !(algo != Algo::Ring && ag_rs) {
                    let mut ratio: f32 = 1.0;
                    if matches!(algo, Algo::Ring | Algo::Nvls | Algo::NvlsTree) {
                        ratio = (ratio as f64 * ((1.0 * n_ranks as f64) / nsteps as f64)) as f32;
                    } else {
                        ratio = (ratio as f64 * 0.5) as f32;
                    }
                    bus *= ratio;
                }
                bandwidth[f][a][p] = bus;
                limits[(f * NALGO + a) * NPROTO + p] = why;

                let mut lat: f32 = BASE_LATENCY[a][p] as f32;
                let mut intra_lat: f32 = hw_lat[intra_hw[a]][a][p] as f32;
                let mut inter_lat: f32 = if ppn == 1.0 {
                    hw_lat[HW_NET][Algo::Tree as usize][p] as f32
                } else {
                    hw_lat[HW_NET][a][p] as f32
                };
                inter_lat += g.latency_inter;
                if proto == Proto::Simple {
                    inter_lat += g.latency_inter;
                }
                let local_minus_one = (n_ranks / n_nodes) as i64 - 1;
                match algo {
                    Algo::Ring => {
                        let mut l: f32 = hw_lat[hw[a]][a][p] as f32;
                        if matches!(func, Func::Reduce | Func::Broadcast) {
                            if g.same_channels != 0 {
                                lat += l;
                            } else {
                                if proto == Proto::Simple {
                                    l = hw_lat[hw[a]][Algo::Tree as usize][p] as f32;
                                }
                                lat += nsteps as f32 * l;
                            }
                        } else {
                            let mut overhead: f32 = 0.0;
                            if n_nodes > 1 {
                                overhead = c.net_overhead_us;
                                if proto == Proto::Simple {
                                    overhead *= 3.0;
                                }
                            }
                            intra_lat = intra_lat.max(overhead);
                            let inter_steps: i64 = if n_nodes == 1 {
                                0
                            } else if func == Func::AllReduce {
                                2 * (n_nodes as i64 - 1)
                            } else {
                                n_nodes as i64 - 1
                            };
                            lat += (nsteps - inter_steps) as f32 * intra_lat + inter_steps as f32 * inter_lat;
                        }
                    }
                    Algo::Tree => {
                        if func == Func::AllReduce {
                            lat += 2.0 * (local_minus_one as f32 * intra_lat + log_nodes as f32 * inter_lat);
                        }
                    }
                    Algo::CollNetDirect => {
                        // int x float stays float in C; the 0.4 makes the rest double.
                        let hop = local_minus_one.min(1) as f32 * intra_lat;
                        let x = 2.0 * (hop as f64 + local_minus_one as f64 * 0.4) + inter_lat as f64;
                        lat = (lat as f64 + x) as f32;
                    }
                    Algo::CollNetChain => {
                        lat += 2.0 * local_minus_one as f32 * intra_lat + inter_lat;
                    }
                    Algo::Nvls => {
                        lat = intra_lat;
                        if n_nodes > 1 {
                            lat += inter_lat;
                        }
                    }
                    Algo::NvlsTree => {
                        lat += intra_lat + 2.0 * log_nodes as f32 * inter_lat;
                    }
                    Algo::Pat => {
                        if ag_rs {
                            let x = log_nodes as f64 * (inter_lat as f64 / 3.5) + n_ranks as f64 * 2.8;
                            lat = (lat as f64 + x) as f32;
                        }
                    }
                }
                latency[f][a][p] = lat;
            }
        }
    }

    // Algorithms the communicator cannot run (after NCCL_ALGO, which NCCL prints as parsed).
    let mut usable = algo_enable;
    for row in usable.iter_mut() {
        for algo in Algo::ALL {
            let off = (n_nodes == 1 && algo == Algo::NvlsTree)
                || (!c.collnet_enable
                    && (matches!(algo, Algo::CollNetDirect | Algo::CollNetChain)
                        || (algo == Algo::Nvls && n_nodes > 1)))
                || (c.nvs_count == 0 && algo == Algo::CollNetDirect);
            if off {
                row[algo as usize] = 0;
            }
        }
    }
    let ll128_c2c = env.param("LL128_C2C", 1) != 0;
    for func in Func::ALL {
        let f = func as usize;
        for algo in Algo::ALL {
            let a = algo as usize;
            let g = &c.graphs[a];
            for proto in Proto::ALL {
                let p = proto as usize;
                let mut on = proto_enable[f][p];
                if on == 2 && proto == Proto::Ll128 {
                    let inter_ok = if ll128_c2c && c.min_cc >= 90 {
                        g.type_inter <= PathType::Pxn
                    } else {
                        g.type_inter <= PathType::Pxb
                    };
                    let ok = inter_ok
                        && g.type_intra <= PathType::Nvb
                        && (c.min_cc == c.max_cc || c.min_cc >= 90)
                        && c.min_cc >= 70;
                    on = ok as i32;
                }
                if on == 0 || usable[f][a] == 0 {
                    bandwidth[f][a][p] = 0.0;
                }
            }
        }
    }
    let table = Table { latency, bandwidth, max_threads, thread_thresholds, algo_enable, proto_enable };
    Ok((table, limits))
}

#[cfg(test)]
mod tests;
