//! `topo bench allreduce`: nccl-tests' `all_reduce_perf` through topo's own ring
//! kernels, along the channels the search chose, with the model's prediction beside
//! each measurement.
//!
//! The run streams as nccl-tests' does: the header once the backend is ready, each row
//! the moment its size is measured (with a progress bar on a terminal's stderr), then
//! the footer and topo's section.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::args::{InputArgs, ModelArgs, parse_size};
use super::bench_program::{self, ProgramArgs};
use super::bench_streams::{self, StreamsArgs};
use super::{Ctx, analyze_input, search_options};
use crate::algo::program::Collective;
use crate::bench::{self, BackendKind, DataType, Event, OpSel, Plan, RedOp, RunContext, Transport, TypeSel};
use crate::error::Error;
use crate::render;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Allreduce bandwidth probe with nccl-tests' flags and output, set against the model.
    Allreduce(BenchAllreduceArgs),
    /// Allgather by NCCL's rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in all_gather_perf's columns.
    Allgather(CollectiveArgs),
    /// Reduce-scatter by NCCL's rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_scatter_perf's columns.
    Reducescatter(CollectiveArgs),
    /// Alltoall by all pairs (mesh) or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in alltoall_perf's columns.
    Alltoall(CollectiveArgs),
    /// Broadcast by NCCL's rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in broadcast_perf's columns.
    Broadcast(CollectiveArgs),
    /// Reduce to the root -r by NCCL's rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_perf's columns.
    Reduce(CollectiveArgs),
}

#[derive(Debug, Args)]
pub struct BenchAllreduceArgs {
    #[command(flatten)]
    pub bench: AllreduceArgs,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub program: ProgramArgs,
    #[command(flatten)]
    pub streams: StreamsArgs,
}

/// Flags of `topo bench allgather|reducescatter|alltoall|broadcast|reduce`.
#[derive(Debug, Args)]
pub struct CollectiveArgs {
    #[command(flatten)]
    pub bench: AllreduceArgs,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Root rank of broadcast and reduce (a program file is for the root it was written
    /// for; a made one is made for -r; -r only: --root names a machine's sysfs root).
    #[arg(short = 'r', id = "root_rank", value_name = "RANK", default_value_t = 0)]
    pub root: u32,
    #[command(flatten)]
    pub program: ProgramArgs,
    #[command(flatten)]
    pub streams: StreamsArgs,
}

/// Flags of `topo bench allreduce` (nccl-tests' names and meanings, plus topo's).
#[derive(Debug, Clone, Args)]
pub struct AllreduceArgs {
    /// Smallest message size in bytes (K, M, G suffixes).
    #[arg(short = 'b', long = "minbytes", value_name = "SIZE", default_value = "32M", value_parser = parse_size)]
    pub minbytes: u64,
    /// Largest message size in bytes.
    #[arg(short = 'e', long = "maxbytes", value_name = "SIZE", default_value = "32M", value_parser = parse_size)]
    pub maxbytes: u64,
    /// Size increment between steps, when no step factor is given (a sweep holds at
    /// most 4096 sizes).
    #[arg(short = 'i', long = "stepbytes", value_name = "SIZE", default_value = "1M", value_parser = parse_size)]
    pub stepbytes: u64,
    /// Multiply the size by this factor at each step (over 1 takes precedence over -i).
    #[arg(short = 'f', long = "stepfactor", value_name = "N", default_value_t = 1)]
    pub stepfactor: u64,
    /// Timed iterations per size (1 to 1000000).
    #[arg(short = 'n', long = "iters", value_name = "N", default_value_t = 20)]
    pub iters: usize,
    /// Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000).
    #[arg(short = 'w', long = "warmup_iters", value_name = "N", default_value_t = 1)]
    pub warmup_iters: usize,
    /// Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000).
    #[arg(short = 'c', long = "check", value_name = "N", default_value_t = 1)]
    pub check: usize,
    /// Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all.
    #[arg(short = 'd', long = "datatype", value_name = "TYPE", default_value = "float", value_parser = parse_type)]
    pub datatype: TypeSel,
    /// Reduction: sum, prod, min, max, avg, or all.
    #[arg(short = 'o', long = "op", value_name = "OP", default_value = "sum", value_parser = parse_op)]
    pub op: OpSel,
    /// Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8).
    #[arg(short = 'g', long = "ngpus", value_name = "N")]
    pub ngpus: Option<usize>,
    /// Also write nccl-tests' JSON report here (never overwritten: FILE.0, FILE.1...
    /// instead, said on stderr).
    #[arg(short = 'J', long = "output_file", value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Run on the GPUs (cuda) or on CPU threads (host).
    #[arg(long, value_enum, value_name = "BACKEND", default_value = "cuda")]
    pub backend: BackendKind,
    /// Channels (rings) to run, 1 to 64; repeats or trims the plan's rings (default: the
    /// plan's; without a search 8 on CUDA and 1 on the host backend).
    #[arg(long, value_name = "N")]
    pub channels: Option<usize>,
    /// Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format).
    #[arg(long = "graph-file", value_name = "FILE")]
    pub graph_file: Option<PathBuf>,
    /// Use this transport on every ring edge instead of the plan's (P2P when there is no model).
    #[arg(long, value_enum, value_name = "TRANSPORT")]
    pub transport: Option<Transport>,
    /// Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA.
    #[arg(long = "slot-bytes", value_name = "SIZE", value_parser = parse_size)]
    pub slot_bytes: Option<u64>,
    /// Only the in-place measurement.
    #[arg(long = "in-place", conflicts_with = "out_of_place")]
    pub in_place: bool,
    /// Only the out-of-place measurement.
    #[arg(long = "out-of-place")]
    pub out_of_place: bool,
    /// Compile every kernel with NVRTC and report registers and spills; no GPU needed.
    #[arg(long = "compile-only")]
    pub compile_only: bool,
    /// Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs', else sm_80 and sm_90).
    #[arg(long, value_name = "ARCH", requires = "compile_only")]
    pub arch: Vec<String>,
}

impl AllreduceArgs {
    /// The bench stage's options; the kernel cache folder comes from the environment.
    pub(super) fn options(&self, vars: &BTreeMap<String, String>) -> bench::Options {
        bench::Options {
            minbytes: self.minbytes,
            maxbytes: self.maxbytes,
            stepbytes: self.stepbytes,
            stepfactor: self.stepfactor,
            iters: self.iters,
            warmup_iters: self.warmup_iters,
            check: self.check,
            datatype: self.datatype,
            op: self.op,
            ngpus: self.ngpus,
            backend: self.backend,
            channels: self.channels,
            graph_file: self.graph_file.clone(),
            transport: self.transport,
            slot_bytes: self.slot_bytes,
            in_place: self.in_place,
            out_of_place: self.out_of_place,
            compile_only: self.compile_only,
            arch: self.arch.clone(),
            kernel_cache: kernel_cache(vars),
        }
    }
}

fn parse_type(s: &str) -> Result<TypeSel, String> {
    if s == "all" {
        return Ok(TypeSel::All);
    }
    <DataType as clap::ValueEnum>::from_str(s, false).map(TypeSel::One).map_err(|_| {
        let names: Vec<_> = DataType::ALL.iter().map(|t| t.name()).collect();
        format!("unknown datatype '{s}' (one of {}, or all)", names.join(", "))
    })
}

fn parse_op(s: &str) -> Result<OpSel, String> {
    if s == "all" {
        return Ok(OpSel::All);
    }
    <RedOp as clap::ValueEnum>::from_str(s, false).map(OpSel::One).map_err(|_| {
        if s == "mulsum" {
            "op 'mulsum' (pre-multiplied sum with a per-rank scalar) is not supported; use sum, prod, min, max, avg or all".into()
        } else {
            format!("unknown op '{s}' (sum, prod, min, max, avg or all)")
        }
    })
}

/// `$XDG_CACHE_HOME/topo`, else `$HOME/.cache/topo`: where compiled kernels are kept.
pub(super) fn kernel_cache(vars: &BTreeMap<String, String>) -> Option<PathBuf> {
    let var = |k: &str| vars.get(k).filter(|v| !v.is_empty());
    if let Some(x) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("topo"));
    }
    var("HOME").map(|h| PathBuf::from(h).join(".cache").join("topo"))
}

/// This process, this machine and the environment, as the report shows them.
pub(super) fn run_context(ctx: &Ctx) -> Result<RunContext, Error> {
    let min_bw = match ctx.vars.get("NCCL_TESTS_MIN_BW") {
        Some(v) => Some(
            v.trim()
                .parse::<f64>()
                .map_err(|_| Error::Usage(format!("NCCL_TESTS_MIN_BW='{v}' is not a number (GB/s)")))?,
        ),
        None => None,
    };
    Ok(RunContext {
        pid: std::process::id(),
        hostname: hostname(),
        argv: ctx.argv.clone(),
        env: ctx
            .vars
            .iter()
            .filter(|(k, _)| k.starts_with("NCCL_") || k.starts_with("CUDA_") || k.starts_with("TOPO_"))
            .map(|(k, v)| format!("{k}={v}"))
            .collect(),
        min_bw,
        now: bench::report::utc_now,
    })
}

/// The host name up to its first dot, as nccl-tests prints it.
fn hostname() -> String {
    let h = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .unwrap_or_else(|_| "localhost".into());
    h.trim().split('.').next().unwrap_or("localhost").to_string()
}

/// nccl-tests never overwrites a JSON file: it tries `FILE`, then `FILE.0`, `FILE.1`...
/// A device or FIFO (`-J /dev/stdout`) is written as it is.
fn json_destination(path: &Path) -> PathBuf {
    if !path.exists() || super::io::is_special(path) {
        return path.to_path_buf();
    }
    (0..)
        .map(|i| PathBuf::from(format!("{}.{i}", path.display())))
        .find(|p| !p.exists())
        .unwrap_or_else(|| path.to_path_buf())
}

/// The bench's arguments within their documented bounds, and the `-J` file's folder
/// writable, before any detection, search or run.
pub fn check_args(a: &BenchAllreduceArgs, ctx: &Ctx) -> Result<(), Error> {
    a.bench.options(&ctx.vars).check()?;
    match &a.bench.output_file {
        Some(p) => super::io::check_output(p),
        None => Ok(()),
    }
}

impl BenchAllreduceArgs {
    /// Whether the rings come from the channel search on a machine (named, or this
    /// one for CUDA); otherwise a graph file's or the plain rings, which need no model.
    pub fn searches(&self) -> bool {
        !self.bench.compile_only
            && self.bench.graph_file.is_none()
            && (self.bench.backend != BackendKind::Host || self.input.named())
    }
}

pub fn run(b: BenchCommand, ctx: &mut Ctx) -> Result<i32, Error> {
    match b {
        BenchCommand::Allreduce(a) if a.program.algo.is_some() => {
            let opts = a.bench.options(&ctx.vars);
            let json = a.bench.output_file.as_deref();
            bench_program::run(Collective::AllReduce, opts, None, &a.program, &a.input, &a.model, json, ctx)
        }
        BenchCommand::Allreduce(a) if a.streams.streams.is_some() => {
            let opts = a.bench.options(&ctx.vars);
            let json = a.bench.output_file.as_deref();
            bench_streams::run(Collective::AllReduce, opts, &a.streams, &a.input, &a.model, json, ctx)
        }
        BenchCommand::Allreduce(a) => allreduce(&a, ctx),
        BenchCommand::Allgather(a) => collective(Collective::AllGather, &a, ctx),
        BenchCommand::Reducescatter(a) => collective(Collective::ReduceScatter, &a, ctx),
        BenchCommand::Alltoall(a) => collective(Collective::AllToAll, &a, ctx),
        BenchCommand::Broadcast(a) => collective(Collective::Broadcast, &a, ctx),
        BenchCommand::Reduce(a) => collective(Collective::Reduce, &a, ctx),
    }
}

/// `topo bench allgather | reducescatter | alltoall | broadcast | reduce`: a program
/// (`--algo`), else NCCL's own choice made as a program.
fn collective(coll: Collective, a: &CollectiveArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let opts = a.bench.options(&ctx.vars);
    if let Some(p) = &a.bench.output_file {
        super::io::check_output(p)?;
    }
    let json = a.bench.output_file.as_deref();
    if a.streams.streams.is_some() {
        return bench_streams::run(coll, opts, &a.streams, &a.input, &a.model, json, ctx);
    }
    bench_program::run(coll, opts, Some(a.root), &a.program, &a.input, &a.model, json, ctx)
}

/// `topo bench allreduce`: the rings come from the channel search on the named
/// topology (or on this machine for the CUDA backend), each ring edge uses the transport
/// the model chose (P2P, else host-staged through the proxy), and the tuning model gives
/// the predicted bus bandwidth. A graph file, or the host backend with no topology named,
/// runs the plain rings instead. Exit status 1 when a result was wrong (or below
/// `NCCL_TESTS_MIN_BW`).
fn allreduce(a: &BenchAllreduceArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let opts = a.bench.options(&ctx.vars); // checked by check_args before the command ran
    if opts.compile_only {
        let reports = bench::cuda::compile_only(&opts.arch)?;
        ctx.print(&render::bench::compile_only(&reports))?;
        return Ok(0);
    }
    let plan = if !a.searches() {
        bench::default_plan(&opts)?
    } else {
        if opts.backend == BackendKind::Cuda {
            // No GPU to run on: say so (and point to the host backend) before any
            // detection or search is spent.
            bench::cuda::device_count()?;
        }
        searched_plan(a, &opts, ctx)?
    };
    run_plan(&opts, a.bench.output_file.as_deref(), plan, ctx)
}

/// The rings and transports of NCCL's ring graph on the named topology, with the
/// tuning model's ring prediction.
fn searched_plan(a: &BenchAllreduceArgs, opts: &bench::Options, ctx: &mut Ctx) -> Result<Plan, Error> {
    use crate::bench::{Prediction, RingChannel};
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
        .predict(crate::tune::Func::AllReduce, opts.maxbytes)
        .map(|p| {
            format!("at {} B NCCL would pick {} {}: {}", opts.maxbytes, p.algo.name(), p.proto.name(), p.bottleneck)
        })
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
    if opts.backend == BackendKind::Host {
        notes.push(format!(
            "host backend: {n} ranks are threads of this machine; the prediction is NCCL's for {}",
            an.input
        ));
    }
    Ok(Plan {
        nranks: n,
        channels,
        transports,
        prediction: Some(Prediction { busbw_gbs: std::sync::Arc::new(busbw), bottleneck }),
        source: format!(
            "NCCL ring graph of {} ({} channels, {}); predictions are NCCL's ring times ({nccl_pick})",
            an.input, ring.n_channels, ring.type_intra
        ),
        notes,
    })
}

/// The host backend's buffers (input and output per rank, FIFO slots per rank and
/// channel) fit in the memory this machine has available, or the run is refused
/// before it allocates anything.
fn fits_in_memory(opts: &bench::Options, plan: &Plan) -> Result<(), Error> {
    let slot = opts.slot_bytes.unwrap_or(bench::host::DEFAULT_SLOT_BYTES as u64);
    let ranks = plan.nranks as u64;
    let chans = plan.channels.len() as u64;
    let need = ranks.saturating_mul(opts.maxbytes.saturating_mul(2)).saturating_add(
        ranks.saturating_mul(chans).saturating_mul(slot.saturating_mul(2 * bench::proxy::FIFO_SLOTS as u64)),
    );
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    match available {
        Some(avail) if need > avail => Err(Error::Usage(format!(
            "the host backend needs about {} MiB for {ranks} ranks x {chans} channels at -e {} bytes, more than the {} MiB available",
            need >> 20,
            opts.maxbytes,
            avail >> 20
        ))),
        _ => Ok(()),
    }
}

/// Run over `plan`, streaming the report to stdout; the JSON report to `json` when given.
fn run_plan(opts: &bench::Options, json: Option<&Path>, plan: Plan, ctx: &mut Ctx) -> Result<i32, Error> {
    let plan = bench::adjust_plan(opts, plan)?;
    if opts.backend == BackendKind::Host {
        fits_in_memory(opts, &plan)?;
    }
    let rc = run_context(ctx)?;
    for n in &plan.notes {
        ctx.say(&format!("warning: {n}"))?;
    }
    let mut backend = bench::open_backend(opts, &plan)?;
    for w in backend.warnings() {
        ctx.say(&format!("warning: {w}"))?;
    }
    for n in backend.notes() {
        ctx.note(&n)?;
    }
    let json = json_target(json, ctx)?;
    let progress = ctx.err_is_terminal;
    let mut bar: Option<indicatif::ProgressBar> = None;
    let outcome = bench::run_with_backend(opts, &plan, backend.as_mut(), &rc, &mut |e| {
        match e {
            Event::Started { header, measurements } => {
                ctx.print(&render::bench::header(header))?;
                bar = progress.then(|| progress_bar(measurements));
            }
            Event::Measuring { bytes, dtype, op, in_place } => {
                if let Some(b) = &bar {
                    let placement = if in_place { "in-place" } else { "out-of-place" };
                    b.set_message(format!("{} {dtype} {op} {placement}", short_size(bytes)));
                }
            }
            Event::Measured => {
                if let Some(b) = &bar {
                    b.inc(1);
                }
            }
            Event::Row(row) => {
                let line = render::bench::row(row);
                match &bar {
                    Some(b) => b.suspend(|| ctx.print(&line))?,
                    None => ctx.print(&line)?,
                }
            }
        }
        Ok(())
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let outcome = outcome?;
    ctx.print(&render::bench::conclusion(&outcome))?;
    if let Some(p) = json {
        write_json(&p, &bench::report::JsonDoc::new(&outcome, &rc))?;
    }
    Ok(outcome.status())
}

/// Where `-J` writes (nccl-tests' rule: never over an existing report), said on stdout,
/// with a warning when that is not the file given.
pub(super) fn json_target(given: Option<&Path>, ctx: &mut Ctx) -> Result<Option<PathBuf>, Error> {
    let Some(given) = given else { return Ok(None) };
    let p = json_destination(given);
    if p != given {
        ctx.say(&format!(
            "warning: {} exists: the JSON report goes to {} instead (nccl-tests never replaces a report; \
             remove it or give -J a new name to write there)",
            given.display(),
            p.display()
        ))?;
    }
    ctx.print(&render::bench::json_destination(&p))?;
    Ok(Some(p))
}

/// Write the JSON report.
pub(super) fn write_json(p: &Path, doc: &bench::report::JsonDoc) -> Result<(), Error> {
    let text = serde_json::to_string(doc).map_err(|e| Error::Usage(format!("JSON output: {e}")))?;
    super::io::write_new(p, &(text + "\n"))
}

/// A size for the progress bar: 4K, 16M, 8G.
fn short_size(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{}G", b >> 30),
        b if b >= 1 << 20 => format!("{}M", b >> 20),
        b if b >= 1 << 10 => format!("{}K", b >> 10),
        b => format!("{b}B"),
    }
}

fn progress_bar(total: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_and_op_flags() {
        assert_eq!(parse_type("bf16").unwrap(), TypeSel::One(DataType::Bfloat16));
        assert_eq!(parse_type("all").unwrap(), TypeSel::All);
        assert!(parse_type("float8").unwrap_err().contains("or all"));
        assert_eq!(parse_op("avg").unwrap(), OpSel::One(RedOp::Avg));
        assert!(parse_op("mulsum").unwrap_err().contains("not supported"));
    }

    #[test]
    fn sizes_as_nccl_tests_reads_them() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            a: AllreduceArgs,
        }
        let a = Cli::try_parse_from(["t", "-b", "1K", "-e", "16M", "-f", "4", "--slot-bytes", "4KiB"]).unwrap().a;
        let o = a.options(&BTreeMap::new());
        assert_eq!((o.minbytes, o.maxbytes, o.slot_bytes), (1024, 16 << 20, Some(4096)));
        assert_eq!(o.sizes().len(), 8);
        // nccl-tests refuses decimals; so does topo.
        assert!(Cli::try_parse_from(["t", "-e", "1.5G"]).is_err());
        assert!(Cli::try_parse_from(["t", "-b", "12Q"]).is_err());
    }

    #[test]
    fn kernel_cache_from_the_environment() {
        let vars = |kv: &[(&str, &str)]| kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(kernel_cache(&vars(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])), Some("/x/topo".into()));
        assert_eq!(kernel_cache(&vars(&[("XDG_CACHE_HOME", ""), ("HOME", "/h")])), Some("/h/.cache/topo".into()));
        assert_eq!(kernel_cache(&vars(&[])), None);
    }

    #[test]
    fn json_destination_does_not_clobber() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        assert_eq!(json_destination(&p), p);
        super::super::io::write_new(&p, "x").unwrap();
        assert_eq!(json_destination(&p), d.path().join("r.json.0"));
        assert!(super::super::io::write_new(&p, "y").is_err());
        // A device is written as it is, not beside it.
        assert_eq!(json_destination(Path::new("/dev/null")), Path::new("/dev/null"));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "x");
    }

    #[test]
    fn min_bw_must_be_a_number() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let vars = [("NCCL_TESTS_MIN_BW".to_string(), "fast".to_string())].into_iter().collect();
        let ctx = Ctx::new(&mut out, &mut err, vars, vec![]);
        assert!(run_context(&ctx).unwrap_err().to_string().contains("NCCL_TESTS_MIN_BW"));
    }
}
