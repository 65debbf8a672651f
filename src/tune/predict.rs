//! For one message size: the time NCCL predicts for every algorithm and protocol
//! (`ncclTopoGetAlgoTime`), the one it picks, and the channels and threads it launches
//! (`topoGetAlgoInfo`).

use crate::error::Error;
use crate::model::cpu;

use super::constants::*;
use super::{Algo, Func, Model, NALGO, NPROTO, Proto, log2i};

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
pub fn short(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(v as f64)
}

impl Model {
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
                && (!c.nvls_support
                    || !self.nvls_runs(func)
                    || (func != Func::AllReduce && c.local_ranks > MAX_NVLS_ARITY))
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
        let pi = p as usize;
        let mut bw = self.table.bandwidth[func][a][p];
        let mut lat = self.table.latency[func][a][p];
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
            let mut msg =
                format!("no algorithm/protocol available for {} with datatype {}.", func.name(), self.call.type_name);
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
        let mut nt = self.table.max_threads[a][p] as i64;
        let mut thr = self.table.thread_thresholds[a][p];
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
