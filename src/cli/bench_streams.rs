//! `topo bench allgather | reducescatter | allreduce --streams HCCL_ALGO`: the plan
//! `topo algo plan` prints for the machine, run literally on host threads (a thread per
//! stream, notifies as semaphores, copies and reduces on real data) or, with `--backend
//! cuda`, on CUDA streams with events, in nccl-tests' columns.

use std::path::Path;

use clap::Args;

use super::Ctx;
use super::args::{InputArgs, ModelArgs};
use super::bench_program::{Machine, beside_predicted, predict};
use crate::algo::make::{self, Algo as MakeAlgo};
use crate::algo::plan::{self, Coll};
use crate::algo::program::Collective;
use crate::bench::streams::{Exec, StreamsHost, collective, sweep};
use crate::bench::{self, BackendKind};
use crate::error::Error;
use crate::render;

/// `--streams`: run HCCL's plan instead of NCCL's rings or a program.
#[derive(Debug, Clone, Args)]
pub struct StreamsArgs {
    /// Run `topo algo plan`'s streams for the machine (allgather, reducescatter,
    /// allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for
    /// HCCL's own choice, or HCCL_ALGO's syntax, e.g. "mesh" or "level0:ring;level1:NHR".
    #[arg(long = "streams", value_name = "HCCL_ALGO", conflicts_with = "algo")]
    pub streams: Option<String>,
}

/// HCCL_ALGO as `--streams` takes it: a bare level-0 algorithm, `auto`, or the syntax
/// `algo plan --algo` takes.
fn forced(text: &str, coll: Coll) -> Result<plan::Forced, Error> {
    let full = match text {
        "auto" => String::new(),
        "mesh" | "fullmesh" | "ring" => format!("level0:{text}"),
        t => t.to_string(),
    };
    plan::select::parse(&full, coll).map_err(|m| Error::Usage(format!("--streams {m}")))
}

/// Run the plan of `coll` on the machine `input` names.
pub fn run(
    coll: Collective,
    opts: bench::Options,
    s: &StreamsArgs,
    input: &InputArgs,
    model: &ModelArgs,
    json: Option<&Path>,
    ctx: &mut Ctx,
) -> Result<i32, Error> {
    let text = s.streams.as_deref().unwrap_or("auto");
    let pc = match coll {
        Collective::AllGather => Coll::AllGather,
        Collective::ReduceScatter => Coll::ReduceScatter,
        Collective::AllReduce => Coll::AllReduce,
        other => {
            return Err(Error::Usage(format!(
                "--streams runs the collectives `topo algo plan` covers (allgather, reducescatter, allreduce), not {other}"
            )));
        }
    };
    opts.check()?;
    // Without a GPU, the one line every CUDA bench gives, before any work.
    if opts.backend == BackendKind::Cuda {
        bench::cuda::device_count()?;
    }
    let forced = forced(text, pc)?;
    let (_, an) = super::analyze_input(input, model, ctx)?;
    let p = plan::plan(&an, pc, opts.maxbytes, &forced).map_err(Error::Usage)?;
    let mut h = StreamsHost::new(p)?;
    if let Some(n) = opts.ngpus.filter(|&n| n != h.nranks()) {
        return Err(Error::Usage(format!("the plan on {} is for its {} GPUs, not -g {n}", h.plan.machine, h.nranks())));
    }
    if opts.backend == BackendKind::Cuda {
        // CUDA streams and events: one stream per plan stream, rank r on GPU r.
        let mut warnings = Vec::new();
        let dev =
            bench::cuda::StreamsCuda::new(h.nranks(), super::bench::kernel_cache(&ctx.vars).as_deref(), &mut warnings)?;
        for w in warnings {
            ctx.say(&format!("warning: {w}"))?;
        }
        h.device = Some(Box::new(dev));
        h.exec = Exec::Device;
    }
    let rc = super::bench::run_context(ctx)?;
    let json = super::bench::json_target(json, ctx)?;
    let start_time = (rc.now)();
    ctx.print(&render::bench_streams::header(&h, &opts))?;
    let rows = sweep::run(&opts, &mut h, &mut |r| ctx.print(&render::bench_program::row(r)))?;
    if rows.is_empty() {
        return Err(Error::Usage("no size from -b to -e holds one element a rank".into()));
    }
    let outcome = sweep::outcome(&opts, &h, &rows, &rc, start_time);
    ctx.print(&render::bench_streams::footer(&h, &outcome.summary))?;
    let (predicted, note) = match program_of(&h) {
        Ok((program, algo)) => {
            let so = super::search_options(&an, ctx)?;
            let mach = super::search_with_progress(&an, &so, ctx).map(|(graphs, _)| Machine { an, graphs });
            let label = mach.as_ref().map_or(String::new(), |m| m.label());
            let predicted = match &mach {
                Ok(m) => predict(&program, Some(m), "", &rows),
                Err(e) => Err(format!("{} could not be searched ({e})", h.plan.machine)),
            };
            let note = format!(
                "predicted: topo algo cost of `topo algo make {} --algo {}` (the same data movement) for {label}{}",
                program.header.coll,
                algo.name(),
                if h.exec == Exec::Device { "" } else { " (ranks ran as threads here)" }
            );
            (predicted, note)
        }
        Err(why) => (Err(why), String::new()),
    };
    let note = match &predicted {
        Ok(_) => note,
        Err(why) => format!("no prediction: {why}"),
    };
    beside_predicted(ctx, &outcome, &rc, &rows, &predicted, vec![note], json)?;
    Ok(outcome.status())
}

/// The program `topo algo make` makes for the plan's level-0 algorithm on the same
/// ranks: it moves the same data over the same pairs (mesh: every rank with every other,
/// held equal to the plan on real data by a test; ring: each rank to the next in rank
/// order, reduce-scatter then allgather), so `topo algo cost` of it is the plan's
/// prediction. The notifies and handshakes HCCL adds are not costed.
fn program_of(h: &StreamsHost) -> Result<(crate::algo::Program, MakeAlgo), String> {
    // Across nodes the plan's level 1 moves node shares over the network, which no
    // single-level program of the same ranks does: no prediction rather than a wrong one.
    if h.plan.nodes > 1 {
        return Err(format!(
            "the plan spans {} nodes, and topo algo make has no program of its two levels",
            h.plan.nodes
        ));
    }
    let level0 = h.plan.levels.iter().find(|c| c.level == 0).map(|c| c.algo);
    let algo = match level0 {
        Some(plan::Algo::Mesh) => MakeAlgo::Mesh,
        Some(plan::Algo::Ring) => MakeAlgo::Ring,
        other => {
            let name = other.map_or("none", |a| a.name());
            return Err(format!("topo algo make has no program for level0:{name}"));
        }
    };
    let opts = make::Options::new(collective(h.coll()), algo);
    let shape = make::Shape { nodes: 1, gpus_per_node: h.nranks() as u32, rings: Vec::new(), trees: Vec::new() };
    make::make(&opts, &shape).map(|p| (p, algo))
}
