//! `topo bench allreduce --algo NAME|PROGRAM.xml` and `topo bench allgather |
//! reducescatter | alltoall | broadcast | reduce [--algo NAME|PROGRAM.xml]`: a collective
//! program on the host interpreter or the CUDA interpreter kernel, in nccl-tests'
//! columns, with `topo algo cost`'s prediction beside each row.
//!
//! The program is a file, or one `topo algo make` makes for the machine the flags name
//! (without `--algo`: NCCL's own rings, the `nccl` algorithm, or for alltoall, which NCCL
//! runs without rings, the all-pairs `mesh`). A made program is written and read back
//! exactly as a file is, so both run through the same check.

use std::path::Path;

use clap::Args;

use super::Ctx;
use super::algo_make::{ProtoArg, ShapeArgs};
use super::args::{InputArgs, ModelArgs};
use crate::algo::cost::{self, Fabric};
use crate::algo::make::{self, Algo, Shape};
use crate::algo::program::{Collective, Program};
use crate::algo::{Runtime, write};
use crate::bench::program::sweep::ProgramRow;
use crate::bench::program::{ProgramBackend, ProgramHost, load, sweep};
use crate::bench::{self, BackendKind, RedOp};
use crate::error::Error;
use crate::model::Analysis;
use crate::render;
use crate::tune::Model;

/// `--algo`: what runs instead of NCCL's rings.
#[derive(Debug, Clone, Args)]
pub struct ProgramArgs {
    /// Run this program: an MSCCL-IR file (refused with `topo algo check`'s findings
    /// unless it passes), or an algorithm `topo algo make` makes for the machine the
    /// flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a
    /// machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel
    /// (one GPU per rank). A name that is an existing file is the file.
    #[arg(long = "algo", value_name = "NAME|PROGRAM.xml")]
    pub algo: Option<String>,
}

/// The machine a program is made for and predicted on.
pub(super) struct Machine {
    pub an: Analysis,
    pub graphs: crate::search::Graphs,
}

impl Machine {
    /// The input, and its nodes when there are several: `fixture:dgx-h100 x 2 nodes`.
    pub fn label(&self) -> String {
        match self.an.options.nodes {
            0 | 1 => self.an.input.clone(),
            n => format!("{} x {n} nodes", self.an.input),
        }
    }
}

/// What `--algo` names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    File(String),
    /// An algorithm to make, and whether the user named it (else it is NCCL's choice).
    Made(Algo, bool),
}

/// `--algo`'s value: an existing file, else an algorithm name; without one, NCCL's own
/// choice for the collective.
fn source(coll: Collective, algo: Option<&str>) -> Result<Source, Error> {
    let Some(a) = algo else {
        return match coll {
            Collective::AllToAll => Ok(Source::Made(Algo::Mesh, false)),
            c if Algo::Nccl.collectives().contains(&c) => Ok(Source::Made(Algo::Nccl, false)),
            c => Err(Error::Usage(format!(
                "topo bench {c}: no algorithm topo makes defines {c} yet; name a program with --algo PROGRAM.xml"
            ))),
        };
    };
    if Path::new(a).exists() {
        return Ok(Source::File(a.to_string()));
    }
    Algo::parse(a).map(|x| Source::Made(x, true)).ok_or_else(|| {
        let names: Vec<&str> = Algo::ALL.iter().map(|x| x.name()).collect();
        Error::Usage(format!(
            "--algo {a}: no file of that name, and no algorithm topo algo make knows ({})",
            names.join(", ")
        ))
    })
}

/// The machine the flags name: a file, fixture or tree; this machine's GPUs for the CUDA
/// backend; none for host threads with nothing named.
fn machine(input: &InputArgs, m: &ModelArgs, backend: BackendKind, ctx: &mut Ctx) -> Result<Option<Machine>, Error> {
    if !input.named() && backend == BackendKind::Host {
        return Ok(None);
    }
    let (_, an) = super::analyze_input(input, m, ctx)?;
    let so = super::search_options(&an, ctx)?;
    let (graphs, _) = super::search_with_progress(&an, &so, ctx)?;
    Ok(Some(Machine { an, graphs }))
}

/// The ranks of a job on the host backend with no machine: `-g`, else the cores (2 to 8).
fn host_ranks(opts: &bench::Options) -> usize {
    opts.ngpus.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8))
}

/// Make `algo`'s program for the collective on the machine (or on `-g` ranks without
/// one), as `topo algo make` makes it at the bench's defaults (the executor's rules,
/// Simple, one instance; `root` for broadcast and reduce): its text, its name, and where
/// it comes from in words.
#[allow(clippy::too_many_arguments)]
fn made(
    coll: Collective,
    algo: Algo,
    named: bool,
    root: u32,
    mach: Option<&Machine>,
    opts: &bench::Options,
    m: &ModelArgs,
    ctx: &mut Ctx,
) -> Result<(Vec<u8>, String, Option<String>), Error> {
    let runtime = Runtime::default();
    let (shape, place) = match mach {
        Some(x) => {
            let shape = make::machine::shape_with(&x.an, &x.graphs)?;
            if let Some(n) = opts.ngpus.filter(|&n| n != shape.ranks() as usize) {
                return Err(Error::Usage(format!(
                    "-g {n}, but {} has {} ranks (the program is made for the machine the flags name)",
                    x.label(),
                    shape.ranks()
                )));
            }
            (shape, x.label())
        }
        None => {
            let n = host_ranks(opts) as u32;
            let nodes = if m.nodes > 1 && n.is_multiple_of(m.nodes) { m.nodes } else { 1 };
            (Shape { nodes, gpus_per_node: n / nodes, rings: Vec::new(), trees: Vec::new() }, format!("{n} ranks"))
        }
    };
    let algo = if algo == Algo::Nccl && !named && shape.rings.is_empty() {
        ctx.note(&format!(
            "no machine named (--topo, --fixture or --root): NCCL's rings need one, so {coll} runs one ring over ranks 0..{}",
            shape.ranks().saturating_sub(1)
        ))?;
        Algo::Ring
    } else {
        algo
    };
    // The bench's defaults: one instance, Simple, NCCL's channels up to the runtime's most.
    let defaults =
        ShapeArgs { channels: None, instances: 1, proto: ProtoArg { proto: "Simple".into() }, root_rank: root };
    let mo = super::algo_make::options(coll, algo, runtime, &defaults, &shape, ctx)?;
    let program = make::make(&mo, &shape).map_err(|e| Error::Usage(format!("--algo {}: {e}", algo.name())))?;
    let text = write::write(&program, runtime)
        .ok_or_else(|| Error::Usage(format!("{} has no {coll} collective", runtime.long_name())))?;
    let what = match (named, algo) {
        (true, _) => String::new(),
        (false, Algo::Nccl) => {
            format!("NCCL's choice, its {} rings: ", mo.channels.unwrap_or(shape.rings.len() as u32))
        }
        (false, Algo::Mesh) => "NCCL runs alltoall without rings: all pairs, ".into(),
        (false, _) => "one ring: ".into(),
    };
    let r = if root > 0 && matches!(coll, Collective::Broadcast | Collective::Reduce) {
        format!(" -r {root}")
    } else {
        String::new()
    };
    let about = format!("{what}made by `topo algo make {coll} --algo {}{r}` for {place}", algo.name());
    Ok((text.into_bytes(), algo.name().to_string(), Some(about)))
}

/// `topo algo cost`'s time (µs) and bus bandwidth (GB/s) per call size for the
/// program on the machine, or why there is none.
fn predictions(
    p: &Program,
    mach: Option<&Machine>,
    no_machine: &str,
    sizes: &[u64],
) -> Result<std::collections::BTreeMap<u64, (f64, f64)>, String> {
    let Some(x) = mach else { return Err(no_machine.to_string()) };
    let model = Model::new(&x.an, &x.graphs).map_err(|e| e.to_string())?;
    let fabric = Fabric::new(&x.an, &model).map_err(|e| e.to_string())?;
    let c = cost::cost(p, Runtime::default(), &fabric, sizes)?;
    Ok(c.rows.iter().map(|r| (r.bytes, (r.time_us, r.busbw_gbs))).collect())
}

/// Run the program `p` names (or NCCL's choice) for collective `coll`: `opts` are
/// nccl-tests' flags as the bench stage takes them, `root` the `-r` of broadcast and
/// reduce (`None` for allreduce), the machine from `input` and `model`.
#[allow(clippy::too_many_arguments)]
pub fn run(
    coll: Collective,
    opts: bench::Options,
    root: Option<u32>,
    p: &ProgramArgs,
    input: &InputArgs,
    model: &ModelArgs,
    json: Option<&Path>,
    ctx: &mut Ctx,
) -> Result<i32, Error> {
    opts.check()?;
    let src = source(coll, p.algo.as_deref())?;
    if opts.backend == BackendKind::Cuda {
        // No GPU to run on: say so (and point to the host backend) before the program
        // is read or made.
        bench::cuda::device_count()?;
    }
    // A file runs without a machine; one that cannot be had only leaves the prediction
    // column empty, said why.
    let (mach, no_machine) = match (&src, machine(input, model, opts.backend, ctx)) {
        (_, Ok(Some(x))) => (Some(x), String::new()),
        (_, Ok(None)) => (
            None,
            "no machine named (--topo, --fixture or --root): host threads have no model to predict by".to_string(),
        ),
        (Source::File(_), Err(e)) if !input.named() => (None, format!("this machine could not be modelled ({e})")),
        (_, Err(e)) => return Err(e),
    };
    let (text, file, about) = match &src {
        Source::File(f) => (std::fs::read(f).map_err(|e| Error::io(Path::new(f), e))?, f.clone(), None),
        Source::Made(a, named) => made(coll, *a, *named, root.unwrap_or(0), mach.as_ref(), &opts, model, ctx)?,
    };
    let loaded = load(&text, &file)?;
    if loaded.coll() != coll {
        return Err(Error::Input { file, message: format!("a {} program, not {coll}", loaded.coll()) });
    }
    if let Some(n) = opts.ngpus.filter(|&n| n != loaded.nranks()) {
        return Err(Error::Usage(format!("{file}: the program is for {} ranks, not -g {n}", loaded.nranks())));
    }
    if let Some(r) = root.filter(|&r| matches!(coll, Collective::Broadcast | Collective::Reduce) && r != loaded.root) {
        return Err(Error::Usage(format!("{file}: the program is for root {}, not -r {r}", loaded.root)));
    }
    let unit = loaded.count_unit();
    let mut backend: Box<dyn ProgramBackend> = match opts.backend {
        BackendKind::Host => Box::new(ProgramHost::new(loaded)),
        BackendKind::Cuda => {
            let mut warnings = Vec::new();
            let b =
                bench::cuda::ProgramCuda::new(loaded, super::bench::kernel_cache(&ctx.vars).as_deref(), &mut warnings)?;
            for w in warnings {
                ctx.say(&format!("warning: {w}"))?;
            }
            Box::new(b)
        }
    };
    let host = backend.as_mut();
    let rc = super::bench::run_context(ctx)?;
    let json = super::bench::json_target(json, ctx)?;
    let start_time = (rc.now)();
    ctx.print(&render::bench_program::header(&host.loaded().program, &file, about.as_deref(), host.name(), &opts))?;
    let swept = sweep::run(&opts, host, &mut |r| ctx.print(&render::bench_program::row(r)))?;
    let rows = &swept.rows;
    if rows.is_empty() {
        let why = if swept.outside.is_empty() {
            format!("no size from -b to -e holds a count per rank of {unit}, the least the program runs")
        } else {
            format!("no size from -b to -e is one the runtime selects the program for ({})", range(swept.admitted))
        };
        return Err(Error::Usage(format!("{file}: {why}")));
    }
    let outcome = sweep::outcome(&opts, host, rows, &rc, start_time, &file);
    ctx.print(&render::bench_program::footer(&host.loaded().program, &outcome.summary, unit))?;
    let predicted = predict(&host.loaded().program, mach.as_ref(), &no_machine, rows);
    let mut notes = Vec::new();
    match (&predicted, &mach) {
        (Err(why), _) => notes.push(format!("no prediction: {why}")),
        (Ok(_), Some(x)) => notes.push(format!(
            "predicted: topo algo cost for {}{}",
            x.label(),
            if opts.backend == BackendKind::Host { " (ranks ran as threads here)" } else { "" }
        )),
        (Ok(_), None) => {}
    }
    if !swept.outside.is_empty() {
        notes.push(format!(
            "{} size{} not run: MSCCL's executor picks this program only for {}",
            swept.outside.len(),
            if swept.outside.len() == 1 { "" } else { "s" },
            range(swept.admitted)
        ));
    }
    if rows.iter().any(|r| r.op == Some(RedOp::Avg)) {
        notes.push(AVG_NOTE.to_string());
    }
    beside_predicted(ctx, &outcome, &rc, rows, &predicted, notes, json)?;
    Ok(outcome.status())
}

/// Said beside `-o avg` rows. msccl-executor-nccl's own scheduler leaves any call with
/// an operator from ncclAvg on to NCCL (msccl_lifecycle.cc, "doesn't support pre/post
/// op"), while an external scheduler (libmsccl-scheduler) does not look at the operator,
/// and the executor runs avg as a pre-scaled sum (integers: a sum divided after), as
/// the interpreter does here: so the rows are run, and the line says who would run them.
const AVG_NOTE: &str = "avg: MSCCL's executor schedules no program for avg itself (NCCL runs the call); an external libmsccl-scheduler can, as run here";

/// `topo algo cost`'s time (µs) and bus bandwidth (GB/s) of `p` on the machine for each
/// row's call, or why there is none.
pub(super) fn predict(
    p: &Program,
    mach: Option<&Machine>,
    no_machine: &str,
    rows: &[ProgramRow],
) -> Result<Vec<Option<(f64, f64)>>, String> {
    let coll = p.header.coll;
    let n = p.header.ngpus as usize;
    let mut sizes: Vec<u64> = rows.iter().map(|r| r.bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let m = predictions(p, mach, no_machine, &sizes)?;
    Ok(rows.iter().map(|r| m.get(&cost::call_bytes(coll, n, r.bytes)).copied()).collect())
}

/// topo's section after nccl-tests' footer (the notes, and each row beside its
/// prediction), and the `-J` report with the predictions in each result's `topo` object.
pub(super) fn beside_predicted(
    ctx: &mut Ctx,
    outcome: &bench::Outcome,
    rc: &bench::RunContext,
    rows: &[ProgramRow],
    predicted: &Result<Vec<Option<(f64, f64)>>, String>,
    notes: Vec<String>,
    json: Option<std::path::PathBuf>,
) -> Result<(), Error> {
    let none = vec![None; rows.len()];
    let per_row = predicted.as_ref().unwrap_or(&none);
    let times: Vec<Option<f64>> = per_row.iter().map(|p| p.map(|(t, _)| t)).collect();
    ctx.print(&render::bench_program::topo_section(rows, &times, &notes))?;
    if let Some(p) = json {
        let mut doc = bench::report::JsonDoc::new(outcome, rc);
        // nccl-tests prints the root of broadcast and reduce, -1 for the others.
        for ((res, row), pred) in doc.results.iter_mut().zip(rows).zip(per_row) {
            res.root = format!("{:6}", row.root);
            res.topo.predicted_time_us = pred.map(|(t, _)| t);
            res.topo.predicted_bus_bw = pred.map(|(_, bw)| bw);
            let ratio = |p: &Option<bench::report::Perf>| p.zip(*pred).map(|(p, (t, _))| p.time_us / t);
            res.topo.ratio_out_of_place = ratio(&row.out_of_place);
            res.topo.ratio_in_place = ratio(&row.in_place);
        }
        doc.topo.prediction = predicted.is_ok();
        doc.topo.plan.extend(notes);
        super::bench::write_json(&p, &doc)?;
    }
    Ok(())
}

/// "0 to 25599 bytes", "at least 1024 bytes".
fn range((lo, hi): (u64, Option<u64>)) -> String {
    match hi {
        Some(h) => format!("{lo} to {h} bytes"),
        None => format!("at least {lo} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_algo_names() {
        assert_eq!(source(Collective::AllGather, None).unwrap(), Source::Made(Algo::Nccl, false));
        assert_eq!(source(Collective::AllToAll, None).unwrap(), Source::Made(Algo::Mesh, false));
        assert_eq!(source(Collective::Reduce, None).unwrap(), Source::Made(Algo::Nccl, false));
        assert!(source(Collective::Gather, None).unwrap_err().to_string().contains("--algo PROGRAM.xml"));
        assert_eq!(source(Collective::AllReduce, Some("rhd")).unwrap(), Source::Made(Algo::Rhd, true));
        let e = source(Collective::AllReduce, Some("rings")).unwrap_err().to_string();
        assert!(e.contains("no file of that name") && e.contains("hierarchical"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("mesh");
        std::fs::write(&f, "x").unwrap();
        let f = f.display().to_string();
        assert_eq!(source(Collective::AllReduce, Some(&f)).unwrap(), Source::File(f));
    }

    #[test]
    fn size_ranges_in_words() {
        assert_eq!(range((0, Some(25599))), "0 to 25599 bytes");
        assert_eq!(range((1024, None)), "at least 1024 bytes");
    }
}
