//! `ncclTopoTuneModel` put together: the communicator's scale picks rows of NCCL's
//! constant tables ([`Ctx`]), then every (collective, algorithm, protocol) entry NCCL
//! models gets a bandwidth ([`super::bandwidth`]) and a latency ([`super::latency`]),
//! and the enable rules ([`super::enable`]) zero what may not run.

use crate::error::Error;
use crate::model::{PathType, cpu};

use super::constants::*;
use super::enable::{self, Enables};
use super::limit::Limit;
use super::table::{PerAlgo, PerAlgoProto, PerFunc, PerFuncAlgoProto, PerProto};
use super::{Algo, Comm, Func, NALGO, NPROTO, Proto, bandwidth, latency, threads};

/// NCCL's code for CPUs of several vendors in one job (never the case with identical nodes).
const CPU_VENDOR_MIXED: i32 = 4;

/// NCCL's tuning table: what `NCCL_DEBUG_SUBSYS=TUNING` prints, plus thread settings.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Table {
    /// Latency (µs) by [`Func`], [`Algo`], [`Proto`].
    pub latency: PerFuncAlgoProto<f32>,
    /// Algorithm bandwidth (GB/s), 0 when unusable, same indices.
    pub bandwidth: PerFuncAlgoProto<f32>,
    /// `comm->maxThreads` by algorithm and protocol.
    pub max_threads: PerAlgoProto<i32>,
    /// `comm->threadThresholds` by algorithm and protocol.
    pub thread_thresholds: PerAlgoProto<i64>,
    /// NCCL_ALGO / NCCL_PROTO after parsing (1 on, 0 off, 2 = LL128 "auto").
    pub algo_enable: PerFunc<PerAlgo<i32>>,
    pub proto_enable: PerFunc<PerProto<i32>>,
}

/// What every entry of one communicator shares: its scale and the rows of NCCL's
/// constant tables that scale selects.
pub(super) struct Ctx<'a> {
    pub c: &'a Comm,
    pub n_nodes: usize,
    pub n_ranks: usize,
    /// GPU generation row.
    pub arch: usize,
    /// Ranks per node, as a `float`.
    pub ppn: f32,
    pub log_nodes: i64,
    pub ll_max_bw: f64,
    pub per_ch_tree: f64,
    pub per_ch_ring_ll128: f64,
    pub per_ch_tree_ll128: f64,
    pub per_ch_nvls_tree: f64,
    /// Hop latencies, with the POWER correction.
    pub hw_lat: [[[f64; NPROTO]; NALGO]; 3],
    /// Per algorithm: the hardware class of a hop inside the node, and of a ring hop.
    pub intra_hw: [usize; NALGO],
    pub hw: [usize; NALGO],
}

impl Ctx<'_> {
    fn new(c: &Comm) -> Ctx<'_> {
        let n_nodes = c.n_nodes;
        let arch = c.arch as usize;
        let scale = if n_nodes <= 2 { n_nodes - 1 } else { 2 };
        let ll_row = if n_nodes == 1 {
            arch
        } else if c.cpu_vendor == cpu::VENDOR_AMD || c.cpu_vendor == CPU_VENDOR_MIXED {
            1
        } else {
            0
        };
        let mut hw_lat = HW_LATENCY;
        if c.cpu_arch == cpu::ARCH_POWER {
            hw_lat[HW_PCI][Algo::Tree as usize][Proto::Simple as usize] =
                hw_lat[HW_PCI][Algo::Ring as usize][Proto::Simple as usize];
        }
        let intra_hw: [usize; NALGO] =
            std::array::from_fn(|a| if c.graphs.0[a].type_intra == PathType::Nvl { HW_NVLINK } else { HW_PCI });
        Ctx {
            c,
            n_nodes,
            n_ranks: c.n_ranks,
            arch,
            ppn: c.n_ranks as f32 / n_nodes as f32,
            log_nodes: super::log2i(n_nodes as u64),
            ll_max_bw: LL_MAX_BW[ll_row][scale],
            per_ch_tree: PER_CH_MAX_TREE_BW[arch][scale],
            per_ch_ring_ll128: PER_CH_MAX_RING_LL128_BW[arch][scale],
            per_ch_tree_ll128: PER_CH_MAX_TREE_LL128_BW[arch][scale],
            per_ch_nvls_tree: PER_CH_MAX_NVLS_TREE_BW[arch][scale],
            hw_lat,
            intra_hw,
            hw: std::array::from_fn(|a| if n_nodes == 1 { intra_hw[a] } else { HW_NET }),
        }
    }
}

/// Whether NCCL models this entry at all (the others stay 0).
fn modelled(c: &Comm, func: Func, algo: Algo, proto: Proto) -> bool {
    let ag_rs = matches!(func, Func::AllGather | Func::ReduceScatter);
    if matches!(func, Func::Broadcast | Func::Reduce) && algo != Algo::Ring {
        return false;
    }
    if ag_rs && !matches!(algo, Algo::Pat | Algo::Ring | Algo::Nvls | Algo::CollNetDirect) {
        return false;
    }
    if func == Func::AllReduce && algo == Algo::Pat {
        return false;
    }
    if matches!(algo, Algo::Nvls | Algo::NvlsTree) && proto != Proto::Simple {
        return false;
    }
    !(ag_rs && algo == Algo::Pat && (proto != Proto::Simple || !c.pat_enable))
}

/// `ncclTopoTuneModel`: fill the latency/bandwidth table, then apply the enable rules
/// and the user's NCCL_ALGO/NCCL_PROTO. Also returns, per entry, what limits it.
pub(super) fn tune(
    c: &Comm,
    env: &crate::env::Env,
    algo_env: Option<&str>,
    proto_env: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<(Table, PerFuncAlgoProto<Limit>), Error> {
    let mut warn = |w: Option<String>| {
        if let Some(w) = w
            && !warnings.contains(&w)
        {
            warnings.push(w);
        }
    };
    let max_threads = threads::max_threads(c, env, &mut warn);
    let en = Enables::parse(algo_env, proto_env)?;
    // NCCL sets the thresholds at the end of the model, after a single rank has returned:
    // one rank keeps the communicator's zeroed ones.
    let thread_thresholds =
        if c.n_ranks <= 1 { PerAlgo::splat(PerProto::splat(0)) } else { threads::thread_thresholds(c, env) };

    let mut lat = PerFunc::splat(PerAlgo::splat(PerProto::splat(0f32)));
    let mut bws = lat;
    let mut limits = PerFunc::splat(PerAlgo::splat(PerProto::splat(Limit::None)));
    let table = |latency, bandwidth| Table {
        latency,
        bandwidth,
        max_threads,
        thread_thresholds,
        algo_enable: en.algo,
        proto_enable: en.proto,
    };
    if c.n_ranks <= 1 {
        // NCCL returns before modelling anything: one rank never communicates.
        return Ok((table(lat, bws), limits));
    }

    let x = Ctx::new(c);
    for func in Func::ALL {
        for algo in Algo::ALL {
            for proto in Proto::ALL {
                if !modelled(c, func, algo, proto) {
                    continue;
                }
                let Some((bw, why)) = bandwidth::bandwidth(&x, func, algo, proto) else {
                    continue;
                };
                bws[func][algo][proto] = bw;
                limits[func][algo][proto] = why;
                lat[func][algo][proto] = latency::latency(&x, func, algo, proto);
            }
        }
    }
    enable::apply(c, env, &en, &mut bws);
    Ok((table(lat, bws), limits))
}
