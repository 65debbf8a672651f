//! `ncclTopoTuneModel` put together: the communicator's scale picks rows of NCCL's
//! constant tables ([`Ctx`]), then every (collective, algorithm, protocol) entry NCCL
//! models gets a bandwidth ([`super::bandwidth`]) and a latency ([`super::latency`]),
//! and the enable rules ([`super::enable`]) zero what may not run.

use crate::error::Error;

use super::ctx::Ctx;
use super::enable::{self, Enables};
use super::limit::Limit;
use super::table::{PerAlgo, PerAlgoProto, PerFunc, PerFuncAlgoProto, PerProto};
use super::{Algo, Comm, Func, Proto, bandwidth, latency, threads};

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

/// Whether NCCL models this entry at all (the others stay 0; PAT exists from 2.23, NVLS
/// AllGather/ReduceScatter from 2.19, CollNet direct's from 2.20).
fn modelled(c: &Comm, func: Func, algo: Algo, proto: Proto) -> bool {
    let ag_rs = matches!(func, Func::AllGather | Func::ReduceScatter);
    if matches!(func, Func::Broadcast | Func::Reduce) && algo != Algo::Ring {
        return false;
    }
    if ag_rs && !matches!(algo, Algo::Pat | Algo::Ring | Algo::Nvls | Algo::CollNetDirect) {
        return false;
    }
    if ag_rs
        && ((algo == Algo::Nvls && !c.release.nvls_ag_rs_rated())
            || (algo == Algo::CollNetDirect && !c.release.collnet_direct_ag_rs_rated()))
    {
        return false;
    }
    if algo == Algo::Pat && (func == Func::AllReduce || !c.release.has_pat()) {
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
    let en = Enables::parse(c.release, algo_env, proto_env)?;
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
