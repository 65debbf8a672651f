//! Threads per channel (`comm->maxThreads`) and the per-thread work thresholds below
//! which NCCL launches fewer channels and threads (`comm->threadThresholds`).

use super::constants::*;
use super::env;
use super::table::{PerAlgoProto, PerProto};
use super::{Algo, Comm, Proto};

/// `maxThreads`: NCCL_NTHREADS (rings with little bandwidth get 256 Simple threads by
/// default), NCCL_LL128_NTHREADS, and the fixed maximum for CollNet and NVLS Simple.
/// Values NCCL would correct are reported through `warn`.
pub(super) fn max_threads(c: &Comm, env: &crate::env::Env, warn: &mut dyn FnMut(Option<String>)) -> PerAlgoProto<i32> {
    let ring = &c.graphs[Algo::Ring];
    let mut max_threads = PerAlgoProto::splat(PerProto::splat(0i32));
    let nthreads_env = env.tune.nthreads;
    let simple_default =
        if ring.bw_intra * ring.n_channels as f32 <= crate::model::bw::PCI { 256 } else { SIMPLE_MAX_NTHREADS };
    let (nt, w) = env::nthreads("NCCL_NTHREADS", nthreads_env, 2 * WARP_SIZE, SIMPLE_MAX_NTHREADS, simple_default);
    warn(w);
    max_threads[Algo::Ring][Proto::Simple] = nt;
    let (nt, w) = env::nthreads("NCCL_NTHREADS", nthreads_env, 2 * WARP_SIZE, SIMPLE_MAX_NTHREADS, SIMPLE_MAX_NTHREADS);
    warn(w);
    max_threads[Algo::Tree][Proto::Simple] = nt;
    for a in [Algo::CollNetDirect, Algo::CollNetChain, Algo::Nvls, Algo::NvlsTree] {
        max_threads[a][Proto::Simple] = MAX_NTHREADS;
    }
    let (nt, w) = env::nthreads("NCCL_NTHREADS", nthreads_env, 2 * WARP_SIZE, LL_MAX_NTHREADS, LL_MAX_NTHREADS);
    warn(w);
    max_threads[Algo::Ring][Proto::Ll] = nt;
    max_threads[Algo::Tree][Proto::Ll] = nt;
    let (nt, w) = env::nthreads(
        "NCCL_LL128_NTHREADS",
        env.tune.ll128_nthreads,
        LL128_MAX_NTHREADS / 4,
        LL128_MAX_NTHREADS,
        LL128_MAX_NTHREADS,
    );
    warn(w);
    max_threads[Algo::Ring][Proto::Ll128] = nt;
    max_threads[Algo::Tree][Proto::Ll128] = nt;
    max_threads
}

/// `threadThresholds`: the defaults (ring LL scaled by the rank count, CollNet Simple
/// 512), then NCCL_THREAD_THRESHOLDS.
pub(super) fn thread_thresholds(c: &Comm, env: &crate::env::Env) -> PerAlgoProto<i64> {
    let mut thread_thresholds =
        PerAlgoProto::splat(PerProto([LL_THREAD_THRESHOLD, LL128_THREAD_THRESHOLD, SIMPLE_THREAD_THRESHOLD]));
    thread_thresholds[Algo::Ring][Proto::Ll] *= c.n_ranks as i64;
    thread_thresholds[Algo::CollNetDirect][Proto::Simple] = 512;
    thread_thresholds[Algo::CollNetChain][Proto::Simple] = 512;
    if let Some(v) = &env.tune.thread_thresholds {
        let t = env::thread_thresholds(v);
        for (i, x) in t.iter().enumerate() {
            if let Some(x) = x.filter(|&x| x >= 0) {
                thread_thresholds[Algo::ALL[i / 3]][Proto::ALL[i % 3]] = x;
            }
        }
    }
    thread_thresholds
}
