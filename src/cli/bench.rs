//! `topo bench allreduce`: nccl-tests' `all_reduce_perf` through topo's own ring
//! kernels, along the channels the search chose, with the model's prediction beside
//! each measurement.

use clap::{Args, Subcommand};

use super::args::{InputArgs, ModelArgs};
use super::{Ctx, analyze_input, search_options};
use crate::error::Error;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Allreduce bandwidth probe with nccl-tests' flags and output, set against the model.
    Allreduce(BenchAllreduceArgs),
}

#[derive(Debug, Args)]
pub struct BenchAllreduceArgs {
    #[command(flatten)]
    pub bench: crate::bench::AllreduceArgs,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

pub fn run(b: BenchCommand, ctx: &mut Ctx) -> Result<i32, Error> {
    match b {
        BenchCommand::Allreduce(a) => allreduce(&a, ctx),
    }
}

/// `topo bench allreduce`: the rings come from the channel search on the named
/// topology (or on this machine for the CUDA backend), each ring edge uses the transport
/// the model chose (P2P, else host-staged through the proxy), and the tuning model gives
/// the predicted bus bandwidth. A graph file, or the host backend with no topology named,
/// runs the plain rings instead.
fn allreduce(a: &BenchAllreduceArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    use crate::bench::{BackendKind, Plan, Prediction, RingChannel, Transport};
    let b = &a.bench;
    b.check()?;
    let named = a.input.named();
    if b.compile_only || b.graph_file.is_some() || (b.backend == BackendKind::Host && !named) {
        return crate::bench::run(b, ctx.out);
    }
    let (_, an) = analyze_input(&a.input, &a.model, ctx)?;
    let so = search_options(&an, ctx)?;
    let (gs, sys) = crate::search::run(&an, &so)?;
    let n = sys.count(crate::model::NodeType::Gpu);
    let ring = &gs.ring;
    let rank_of: Vec<i32> = an.system.list(crate::model::NodeType::Gpu).iter().map(|g| g.gpu_rank()).collect();
    let index = |r: i32| rank_of.iter().position(|&x| x == r).unwrap_or(0);
    let channels: Vec<RingChannel> = (0..ring.n_channels.max(1) as usize)
        .map(|c| RingChannel { order: ring.intra[c * n..(c + 1) * n].iter().map(|&r| index(r)).collect() })
        .collect();
    let mut transports = vec![Transport::P2p; n * n];
    for p in &an.p2p {
        let (f, t) = (index(p.from), index(p.to));
        if p.transport != crate::model::Transport::P2p && f < n && t < n {
            transports[f * n + t] = Transport::HostStaged;
        }
    }
    // topo's kernels run rings, so the prediction beside each measurement is NCCL's ring
    // time (best protocol); the report also names what NCCL itself would pick.
    let model = std::sync::Arc::new(crate::tune::Model::new(&an, &gs)?);
    let nccl_pick = model
        .predict(crate::tune::Func::AllReduce, b.maxbytes)
        .map(|p| format!("at {} B NCCL would pick {} {}: {}", b.maxbytes, p.algo.name(), p.proto.name(), p.bottleneck))
        .unwrap_or_else(|e| e.to_string());
    let ring_bw = ring.bw_intra.min(if sys.inter { ring.bw_inter } else { ring.bw_intra });
    let bottleneck = format!("ring {}x{} GB/s {}", ring.n_channels, crate::render::gbs(ring_bw), ring.type_intra);
    let m = model.clone();
    let ranks = n as f64;
    let busbw = move |bytes: u64| {
        let t = m.cost_table(crate::tune::Func::AllReduce, bytes)[crate::tune::Algo::Ring as usize]
            .iter()
            .flatten()
            .copied()
            .filter(|&t| t > 0.0)
            .fold(f32::INFINITY, f32::min);
        if t.is_finite() { bytes as f64 / (t as f64 * 1e3) * 2.0 * (ranks - 1.0) / ranks } else { 0.0 }
    };
    let mut notes = Vec::new();
    if b.backend == BackendKind::Host {
        notes.push(format!(
            "host backend: {n} ranks are threads of this machine; the prediction is NCCL's for {}",
            an.input
        ));
    }
    let plan = Plan {
        nranks: n,
        channels,
        transports,
        prediction: Some(Prediction { busbw_gbs: std::sync::Arc::new(busbw), bottleneck }),
        source: format!(
            "NCCL ring graph of {} ({} channels, {}); predictions are NCCL's ring times ({nccl_pick})",
            an.input, ring.n_channels, ring.type_intra
        ),
        notes,
    };
    crate::bench::run_with_plan(b, plan, ctx.out)
}
