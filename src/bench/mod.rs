//! `topo bench allreduce`: nccl-tests' `all_reduce_perf`, run by topo itself over the
//! rings of a [`Plan`], with the model's prediction beside each measurement.
//!
//! Two backends run the same ring protocol (see [`schedule`] and [`proxy`]):
//! [`cuda`] drives every local GPU from one process with kernels compiled at run time
//! by NVRTC; [`host`] plays each rank with CPU threads, which is how the protocol is
//! tested on machines without a GPU. A build without the `cuda` feature has no CUDA
//! backend: `cuda` is then a stand-in (`no_cuda.rs`) whose every entry point says so.

#[cfg(feature = "cuda")]
pub mod cuda;
#[cfg(not(feature = "cuda"))]
#[path = "no_cuda.rs"]
pub mod cuda;
pub mod dtype;
pub mod host;
pub mod plan;
pub mod proxy;
pub mod report;
pub mod schedule;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use crate::error::Error;
pub use dtype::{DataType, RedOp};
pub use plan::{Plan, Prediction, RingChannel, Transport};
pub use report::DeviceInfo;
use report::{HeaderInfo, Perf, Row, Summary};

/// Which implementation runs the collectives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    /// CUDA kernels on the local GPUs.
    Cuda,
    /// CPU threads (one per rank and channel): the same protocol, host measurements.
    Host,
}

/// A `-d` value: one type or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeSel {
    All,
    One(DataType),
}

/// A `-o` value: one operator or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpSel {
    All,
    One(RedOp),
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

/// nccl-tests' size syntax: a number with an optional K, M or G (powers of 1024),
/// optionally followed by B or iB.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split =
        t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num.parse().map_err(|_| format!("'{s}' is not a size (e.g. 8, 1K, 32M, 1.5G)"))?;
    let mult = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1u64,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(format!("'{s}': unknown size unit '{unit}' (K, M or G)")),
    };
    let bytes = v * mult as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > (1u64 << 50) as f64 {
        return Err(format!("'{s}': size out of range"));
    }
    Ok(bytes as u64)
}

/// Flags of `topo bench allreduce` (nccl-tests' names and meanings, plus topo's).
#[derive(Debug, Clone, clap::Args)]
pub struct AllreduceArgs {
    /// Smallest message size in bytes (K, M, G suffixes).
    #[arg(short = 'b', long = "minbytes", default_value = "32M", value_parser = parse_size)]
    pub minbytes: u64,
    /// Largest message size in bytes.
    #[arg(short = 'e', long = "maxbytes", default_value = "32M", value_parser = parse_size)]
    pub maxbytes: u64,
    /// Size increment between steps, when no step factor is given.
    #[arg(short = 'i', long = "stepbytes", default_value = "1M", value_parser = parse_size)]
    pub stepbytes: u64,
    /// Multiply the size by this factor at each step (over 1 takes precedence over -i).
    #[arg(short = 'f', long = "stepfactor", default_value_t = 1)]
    pub stepfactor: u64,
    /// Timed iterations per size.
    #[arg(short = 'n', long = "iters", default_value_t = 20)]
    pub iters: usize,
    /// Warm-up iterations per size (sizes doubling from min to max), before timing.
    #[arg(short = 'w', long = "warmup_iters", default_value_t = 1)]
    pub warmup_iters: usize,
    /// Validation runs per measurement (0: no validation, #wrong is N/A).
    #[arg(short = 'c', long = "check", default_value_t = 1)]
    pub check: usize,
    /// Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all.
    #[arg(short = 'd', long = "datatype", default_value = "float", value_parser = parse_type)]
    pub datatype: TypeSel,
    /// Reduction: sum, prod, min, max, avg, or all.
    #[arg(short = 'o', long = "op", default_value = "sum", value_parser = parse_op)]
    pub op: OpSel,
    /// Number of ranks (default: every local GPU; host backend: CPU cores, 2 to 8).
    #[arg(short = 'g', long = "ngpus")]
    pub ngpus: Option<usize>,
    /// Also write nccl-tests' JSON report here (never overwritten: FILE.0, FILE.1... instead).
    #[arg(short = 'J', long = "output_file")]
    pub output_file: Option<PathBuf>,
    /// Run on the GPUs (cuda) or on CPU threads (host).
    #[arg(long, value_enum, default_value = "cuda")]
    pub backend: BackendKind,
    /// Channels (rings) to run; repeats or trims the plan's rings (default: the plan's;
    /// without a search 8 on CUDA and 1 on the host backend).
    #[arg(long)]
    pub channels: Option<usize>,
    /// Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format).
    #[arg(long = "graph-file")]
    pub graph_file: Option<PathBuf>,
    /// Use this transport on every ring edge instead of the plan's (P2P when there is no model).
    #[arg(long, value_enum)]
    pub transport: Option<Transport>,
    /// Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA.
    #[arg(long = "slot-bytes", value_parser = parse_size)]
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
    #[arg(long, requires = "compile_only")]
    pub arch: Vec<String>,
}

impl Default for AllreduceArgs {
    fn default() -> Self {
        AllreduceArgs {
            minbytes: 32 << 20,
            maxbytes: 32 << 20,
            stepbytes: 1 << 20,
            stepfactor: 1,
            iters: 20,
            warmup_iters: 1,
            check: 1,
            datatype: TypeSel::One(DataType::Float),
            op: OpSel::One(RedOp::Sum),
            ngpus: None,
            output_file: None,
            backend: BackendKind::Cuda,
            channels: None,
            graph_file: None,
            transport: None,
            slot_bytes: None,
            in_place: false,
            out_of_place: false,
            compile_only: false,
            arch: Vec::new(),
        }
    }
}

impl AllreduceArgs {
    /// Refuse flags that cannot work (before any detection or search is spent on them).
    pub fn check(&self) -> Result<(), Error> {
        #[cfg(not(feature = "cuda"))]
        if self.compile_only || self.backend == BackendKind::Cuda {
            return Err(cuda::unsupported());
        }
        let usage = |m: &str| Err(Error::Usage(m.into()));
        if self.minbytes > self.maxbytes {
            return Err(Error::Usage(format!(
                "invalid sizes: minbytes {} > maxbytes {}",
                self.minbytes, self.maxbytes
            )));
        }
        if self.stepfactor <= 1 && self.stepbytes == 0 && self.minbytes < self.maxbytes {
            return usage("step of 0 bytes: give -i/--stepbytes > 0 or -f/--stepfactor > 1");
        }
        if self.iters == 0 {
            return usage("-n/--iters must be at least 1");
        }
        if self.ngpus == Some(0) {
            return usage("-g/--ngpus must be at least 1");
        }
        if self.channels == Some(0) {
            return usage("--channels must be at least 1");
        }
        if self.slot_bytes.is_some_and(|s| !(64..=(64 << 20)).contains(&s)) {
            return usage("--slot-bytes must be between 64 bytes and 64M");
        }
        Ok(())
    }

    /// The message sizes of the sweep.
    pub fn sizes(&self) -> Vec<u64> {
        let mut out = Vec::new();
        let mut s = self.minbytes;
        while s <= self.maxbytes {
            out.push(s);
            let next =
                if self.stepfactor > 1 { s.saturating_mul(self.stepfactor) } else { s.saturating_add(self.stepbytes) };
            if next == s {
                break;
            }
            s = next;
        }
        out
    }

    fn types(&self) -> Vec<DataType> {
        match self.datatype {
            TypeSel::All => DataType::ALL.to_vec(),
            TypeSel::One(t) => vec![t],
        }
    }

    fn ops(&self) -> Vec<RedOp> {
        match self.op {
            OpSel::All => RedOp::ALL.to_vec(),
            OpSel::One(o) => vec![o],
        }
    }
}

/// What a backend offers the benchmark driver. Buffers are per rank: an input buffer
/// and an output buffer (the output is the input when in place).
pub trait Backend {
    fn name(&self) -> &'static str;
    fn nranks(&self) -> usize;
    fn devices(&self) -> Vec<DeviceInfo>;
    /// Make room for messages of up to `max_bytes`.
    fn prepare(&mut self, max_bytes: usize) -> Result<(), Error>;
    /// Put `data` at the start of `rank`'s input (its output buffer when in place).
    fn set_input(&mut self, rank: usize, in_place: bool, data: &[u8]) -> Result<(), Error>;
    /// Fill the first `bytes` of `rank`'s output buffer with `value`.
    fn fill_output(&mut self, rank: usize, bytes: usize, value: u8) -> Result<(), Error>;
    /// Read the start of `rank`'s output buffer.
    fn get_output(&mut self, rank: usize, out: &mut [u8]) -> Result<(), Error>;
    /// Run `iters` allreduces back to back; the elapsed wall time.
    fn run(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        in_place: bool,
        iters: usize,
    ) -> Result<Duration, Error>;
    /// What the backend changed or wants said (e.g. an edge it had to host-stage).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The environment of a run: things that differ between runs and that tests fix.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub pid: u32,
    pub hostname: String,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Command line and environment for the JSON report.
    pub argv: Vec<String>,
    pub env: Vec<String>,
    /// `NCCL_TESTS_MIN_BW`.
    pub min_bw: Option<f64>,
    pub now: fn() -> String,
}

impl RunContext {
    /// The real environment of this process.
    pub fn from_process() -> Result<RunContext, Error> {
        let min_bw = match std::env::var("NCCL_TESTS_MIN_BW") {
            Ok(v) => Some(
                v.trim()
                    .parse::<f64>()
                    .map_err(|_| Error::Usage(format!("NCCL_TESTS_MIN_BW='{v}' is not a number (GB/s)")))?,
            ),
            Err(_) => None,
        };
        Ok(RunContext {
            pid: std::process::id(),
            hostname: hostname(),
            progress: std::io::stderr().is_terminal(),
            argv: std::env::args().collect(),
            env: std::env::vars()
                .filter(|(k, _)| k.starts_with("NCCL_") || k.starts_with("CUDA_") || k.starts_with("TOPO_"))
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
            min_bw,
            now: report::utc_now,
        })
    }
}

/// The host name up to its first dot, as nccl-tests prints it.
fn hostname() -> String {
    let h = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .unwrap_or_else(|_| "localhost".into());
    h.trim().split('.').next().unwrap_or("localhost").to_string()
}

/// `topo bench allreduce` with the rings from `--graph-file`, or identity rings.
/// Returns the exit status: 0, or 1 when a result was wrong (or below
/// `NCCL_TESTS_MIN_BW`).
pub fn run(args: &AllreduceArgs, out: &mut dyn Write) -> Result<i32, Error> {
    args.check()?;
    if args.compile_only {
        return cuda::compile_only(&args.arch, out);
    }
    let plan = default_plan(args)?;
    run_with_plan(args, plan, out)
}

/// The plan used when the caller has no search result: the graph file's rings, or
/// identity rings over the default number of ranks.
pub fn default_plan(args: &AllreduceArgs) -> Result<Plan, Error> {
    let plan = if let Some(g) = &args.graph_file {
        Plan::from_graph_file(g, args.ngpus)?
    } else {
        let n = match (args.ngpus, args.backend) {
            (Some(n), _) => n,
            (None, BackendKind::Host) => std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8),
            (None, BackendKind::Cuda) => cuda::device_count()?,
        };
        let ch = match args.backend {
            BackendKind::Host => 1,
            BackendKind::Cuda => cuda::DEFAULT_CHANNELS,
        };
        Plan::simple_ring(n, ch)
    };
    Ok(plan)
}

/// Run the benchmark over `plan` (e.g. the channel search's rings and transports).
pub fn run_with_plan(args: &AllreduceArgs, plan: Plan, out: &mut dyn Write) -> Result<i32, Error> {
    args.check()?;
    let mut plan = match args.channels {
        Some(c) => plan.with_channels(c),
        None => plan,
    };
    if let Some(t) = args.transport {
        plan.set_all_transports(t);
    }
    plan.validate()?;
    if let Some(n) = args.ngpus
        && n != plan.nranks
    {
        return Err(Error::Usage(format!("-g {n} but the plan has {} ranks", plan.nranks)));
    }
    let ctx = RunContext::from_process()?;
    for n in &plan.notes {
        eprintln!("warning: {n}");
    }
    let mut backend: Box<dyn Backend> = match args.backend {
        BackendKind::Host => {
            let slot = args.slot_bytes.map_or(host::DEFAULT_SLOT_BYTES, |s| s as usize);
            Box::new(host::HostBackend::new(&plan, slot)?)
        }
        BackendKind::Cuda => {
            let slot = args.slot_bytes.map_or(cuda::DEFAULT_SLOT_BYTES, |s| s as usize);
            Box::new(cuda::CudaBackend::new(&plan, slot)?)
        }
    };
    for n in backend.notes() {
        eprintln!("note: {n}");
    }
    run_with_backend(args, &plan, backend.as_mut(), &ctx, out)
}

/// Describe the plan for the report.
fn plan_lines(plan: &Plan, backend: &str) -> Vec<String> {
    let mut v = vec![format!(
        "backend {backend}{}; rings from {}; {} channel(s)",
        if backend == "host" { " (ranks are CPU threads: host memory bandwidth, not GPU measurements)" } else { "" },
        plan.source,
        plan.channels.len()
    )];
    for (c, ch) in plan.channels.iter().enumerate() {
        let order: Vec<String> = ch.order.iter().map(|r| r.to_string()).collect();
        v.push(format!("channel {c}: ring {}", order.join(" -> ")));
    }
    let edges = plan.ring_edges();
    let staged: Vec<String> = edges
        .iter()
        .filter(|&&(a, b)| plan.transport(a, b) == Transport::HostStaged)
        .map(|(a, b)| format!("{a}->{b}"))
        .collect();
    if staged.is_empty() {
        v.push("transports: P2P on every ring edge".into());
    } else {
        v.push(format!("transports: host-staged (proxy thread) on {}; P2P elsewhere", staged.join(", ")));
    }
    if let Some(p) = &plan.prediction {
        v.push(format!("model bottleneck: {}", p.bottleneck));
    }
    v
}

/// nccl-tests' bandwidths: algbw = bytes / time, busbw = algbw * 2(n-1)/n.
pub fn bandwidths(bytes: u64, seconds: f64, nranks: usize) -> (f64, f64) {
    let alg = bytes as f64 / 1e9 / seconds;
    let n = nranks as f64;
    (alg, alg * 2.0 * (n - 1.0) / n)
}

/// The benchmark proper, on any backend.
pub fn run_with_backend(
    args: &AllreduceArgs,
    plan: &Plan,
    backend: &mut dyn Backend,
    ctx: &RunContext,
    out: &mut dyn Write,
) -> Result<i32, Error> {
    args.check()?;
    let n = backend.nranks();
    let sizes = args.sizes();
    let json_path = args.output_file.as_deref().map(report::json_destination);
    let start_time = (ctx.now)();
    if let Some(p) = &json_path {
        writeln!(out, "# Writing JSON output to {}", p.display()).map_err(|e| Error::io(p, e))?;
    }
    backend.prepare(args.maxbytes as usize)?;
    let header = HeaderInfo {
        topo_version: env!("CARGO_PKG_VERSION").into(),
        backend: backend.name().into(),
        nranks: n,
        min_bytes: args.minbytes,
        max_bytes: args.maxbytes,
        step_bytes: args.stepbytes,
        step_factor: args.stepfactor,
        warmup_iters: args.warmup_iters,
        iters: args.iters,
        check: args.check,
        pid: ctx.pid,
        hostname: ctx.hostname.clone(),
        devices: backend.devices(),
    };
    report::write_header(out, &header)?;

    let placements: Vec<bool> = match (args.in_place, args.out_of_place) {
        (true, _) => vec![true],
        (_, true) => vec![false],
        _ => vec![false, true],
    };
    let combos: Vec<(DataType, RedOp)> =
        args.types().into_iter().flat_map(|t| args.ops().into_iter().map(move |o| (t, o))).collect();
    let bar = progress_bar(ctx.progress, (combos.len() * sizes.len() * placements.len()) as u64);
    let mut rows = Vec::new();
    let mut rep = 0u64;
    for &(dtype, op) in &combos {
        // Warm-up over sizes doubling from min to max, as nccl-tests does.
        let mut s = args.minbytes;
        while s <= args.maxbytes && args.warmup_iters > 0 {
            backend.run(dtype, op, s as usize / dtype.size(), false, args.warmup_iters)?;
            if s == 0 {
                s = 1;
            } else if s.checked_mul(2).is_none() {
                break;
            } else {
                s *= 2;
            }
        }
        for &size in &sizes {
            let count = size as usize / dtype.size();
            let bytes = (count * dtype.size()) as u64;
            let mut row = Row {
                bytes,
                count: count as u64,
                dtype: dtype.name(),
                op: op.name(),
                out_of_place: None,
                in_place: None,
                predicted_busbw: plan.prediction.as_ref().map(|p| (p.busbw_gbs)(bytes)),
                bottleneck: plan.prediction.as_ref().map(|p| p.bottleneck.clone()),
            };
            for &in_place in &placements {
                if let Some(b) = &bar {
                    b.set_message(format!(
                        "{} {dtype} {op} {}",
                        report_size(bytes),
                        if in_place { "in-place" } else { "out-of-place" }
                    ));
                }
                if args.check > 0 {
                    init_inputs(backend, dtype, op, count, in_place, 0x99)?;
                }
                backend.run(dtype, op, count, in_place, 1)?;
                let t = backend.run(dtype, op, count, in_place, args.iters)?;
                let sec = t.as_secs_f64() / args.iters as f64;
                let (algbw, busbw) = bandwidths(bytes, sec, n);
                let wrong = if args.check > 0 {
                    let mut w = 0;
                    for _ in 0..args.check {
                        rep += 1;
                        w = validate(backend, dtype, op, count, in_place, rep)?;
                        if w > 0 {
                            break;
                        }
                    }
                    Some(w)
                } else {
                    None
                };
                let perf = Perf { time_us: sec * 1e6, algbw, busbw, wrong };
                if in_place {
                    row.in_place = Some(perf);
                } else {
                    row.out_of_place = Some(perf);
                }
                if let Some(b) = &bar {
                    b.inc(1);
                }
            }
            let line = report::format_row(&row);
            match &bar {
                Some(b) => b.suspend(|| out.write_all(line.as_bytes())),
                None => out.write_all(line.as_bytes()),
            }
            .map_err(|e| Error::Io { file: "<output>".into(), source: e })?;
            rows.push(row);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let summary = Summary::from_rows(&rows, ctx.min_bw);
    report::write_footer(out, &summary)?;
    let mut lines = plan_lines(plan, backend.name());
    lines.extend(backend.notes());
    report::write_topo_section(out, &rows, &lines, plan.prediction.is_some())?;

    if let Some(p) = json_path {
        let doc = report::JsonDoc {
            version: 3,
            start_time,
            args: ctx.argv.clone(),
            env: ctx.env.clone(),
            nccl_version: 0,
            config: report::JsonConfig::from_header(&header),
            results: rows.iter().map(|r| report::JsonResult::from_row(r, args.iters)).collect(),
            out_of_bounds: report::JsonOob::new(&summary),
            average_bus_bandwidth: report::JsonAvg::new(&summary),
            errors: Vec::new(),
            end_time: (ctx.now)(),
            topo: report::JsonTopo {
                version: env!("CARGO_PKG_VERSION").into(),
                backend: backend.name().into(),
                plan: lines,
                prediction: plan.prediction.is_some(),
            },
        };
        report::write_json(&p, &doc)?;
    }
    Ok(if summary.passed() { 0 } else { 1 })
}

fn report_size(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{}G", b >> 30),
        b if b >= 1 << 20 => format!("{}M", b >> 20),
        b if b >= 1 << 10 => format!("{}K", b >> 10),
        b => format!("{b}B"),
    }
}

fn progress_bar(enabled: bool, total: u64) -> Option<indicatif::ProgressBar> {
    if !enabled {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    Some(bar)
}

/// View a slice of plain elements as bytes.
fn as_bytes<T: dtype::Elem>(v: &[T]) -> &[u8] {
    // SAFETY: every `Elem` is a plain integer, float or `u16` wrapper: no padding, any
    // byte pattern is valid.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

fn as_bytes_mut<T: dtype::Elem>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: as above.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, std::mem::size_of_val(v)) }
}

/// Put every rank's validation input in place.
fn init_inputs(
    backend: &mut dyn Backend,
    dtype: DataType,
    op: RedOp,
    count: usize,
    in_place: bool,
    seed: u64,
) -> Result<(), Error> {
    let n = backend.nranks();
    dtype::with_elem!(dtype, T => {
        for r in 0..n {
            let v: Vec<T> = (0..count).map(|i| dtype::input_value::<T>(op, n, r, seed, i)).collect();
            backend.set_input(r, in_place, as_bytes(&v))?;
        }
    });
    Ok(())
}

/// Byte written over out-of-place outputs before a validation run, so that an
/// element nobody wrote is caught.
const POISON: u8 = 0xa5;

/// One validation run, as nccl-tests does it: fresh inputs, one allreduce, every
/// rank's output compared with the expected result. Returns the wrong elements.
pub fn validate(
    backend: &mut dyn Backend,
    dtype: DataType,
    op: RedOp,
    count: usize,
    in_place: bool,
    seed: u64,
) -> Result<u64, Error> {
    let n = backend.nranks();
    init_inputs(backend, dtype, op, count, in_place, seed)?;
    if !in_place {
        for r in 0..n {
            backend.fill_output(r, count * dtype.size(), POISON)?;
        }
    }
    backend.run(dtype, op, count, in_place, 1)?;
    let tol = dtype::tolerance(dtype, op);
    let mut wrong = 0;
    dtype::with_elem!(dtype, T => dtype::with_op!(op, OP => {
        let expected: Vec<T> = (0..count).map(|i| dtype::expected_value::<T, OP>(op, n, seed, i)).collect();
        let mut got = expected.clone();
        for r in 0..n {
            backend.get_output(r, as_bytes_mut(&mut got))?;
            wrong += dtype::count_wrong(&got, &expected, tol);
        }
    }));
    Ok(wrong)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host backend for data, with fixed timings so the output is deterministic.
    struct FixedTime(host::HostBackend);

    impl Backend for FixedTime {
        fn name(&self) -> &'static str {
            "host"
        }
        fn nranks(&self) -> usize {
            self.0.nranks()
        }
        fn devices(&self) -> Vec<DeviceInfo> {
            self.0.devices()
        }
        fn prepare(&mut self, max_bytes: usize) -> Result<(), Error> {
            self.0.prepare(max_bytes)
        }
        fn set_input(&mut self, rank: usize, in_place: bool, data: &[u8]) -> Result<(), Error> {
            self.0.set_input(rank, in_place, data)
        }
        fn fill_output(&mut self, rank: usize, bytes: usize, value: u8) -> Result<(), Error> {
            self.0.fill_output(rank, bytes, value)
        }
        fn get_output(&mut self, rank: usize, out: &mut [u8]) -> Result<(), Error> {
            self.0.get_output(rank, out)
        }
        fn run(
            &mut self,
            dtype: DataType,
            op: RedOp,
            count: usize,
            in_place: bool,
            iters: usize,
        ) -> Result<Duration, Error> {
            self.0.run(dtype, op, count, in_place, iters)?;
            let per = 5_000 + (count * dtype.size()) as u64 / 4 + if in_place { 250 } else { 0 };
            Ok(Duration::from_nanos(per * iters as u64))
        }
    }

    fn fixed_ctx() -> RunContext {
        RunContext {
            pid: 4242,
            hostname: "testhost".into(),
            progress: false,
            argv: vec!["topo".into()],
            env: vec![],
            min_bw: None,
            now: || "2026-01-01 00:00:00".into(),
        }
    }

    const SNAPSHOT: &str = "\
# topo VERSION bench allreduce, nccl-tests 2.19.6 output format, backend: host
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 4 minBytes 1024 maxBytes 1048576 step: 32(factor) warmup iters: 1 iters: 3 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4242 on   testhost device  0 [host] CPU threads (1 channel(s)), host backend
#  Rank  1 Group  0 Pid   4242 on   testhost device  1 [host] CPU threads (1 channel(s)), host backend
#  Rank  2 Group  0 Pid   4242 on   testhost device  2 [host] CPU threads (1 channel(s)), host backend
#  Rank  3 Group  0 Pid   4242 on   testhost device  3 [host] CPU threads (1 channel(s)), host backend
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
        1024           256     float     sum      -1     5.26    0.19    0.29       0     5.51    0.19    0.28       0
       32768          8192     float     sum      -1    13.19    2.48    3.73       0    13.44    2.44    3.66       0
     1048576        262144     float     sum      -1   267.14    3.93    5.89       0   267.39    3.92    5.88       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 3.28727 
#
# Collective test concluded: all_reduce_perf
#

# topo: ---- beyond nccl-tests ----
# topo: backend host (ranks are CPU threads: host memory bandwidth, not GPU measurements); rings from identity ring (no channel search); 1 channel(s)
# topo: channel 0: ring 0 -> 1 -> 2 -> 3
# topo: transports: P2P on every ring edge
# topo: no model prediction (no channel search result for this run); measured bandwidth only
#       size      type   redop  oop busbw   ip busbw  predicted  eff-oop   eff-ip  bottleneck
#        (B)                       (GB/s)     (GB/s)     (GB/s)      (%)      (%)
#       1024     float     sum       0.29       0.28          -        -        -  -
#      32768     float     sum       3.73       3.66          -        -        -  -
#    1048576     float     sum       5.89       5.88          -        -        -  -
";

    #[test]
    fn output_snapshot() {
        let args = AllreduceArgs {
            minbytes: 1024,
            maxbytes: 1 << 20,
            stepfactor: 32,
            iters: 3,
            backend: BackendKind::Host,
            ..Default::default()
        };
        let plan = Plan::simple_ring(4, 1);
        let mut b = FixedTime(host::HostBackend::new(&plan, 4096).unwrap());
        let mut out = Vec::new();
        let status = run_with_backend(&args, &plan, &mut b, &fixed_ctx(), &mut out).unwrap();
        assert_eq!(status, 0);
        let text = String::from_utf8(out).unwrap().replace(env!("CARGO_PKG_VERSION"), "VERSION");
        assert_eq!(text, SNAPSHOT, "got:\n{text}");
    }

    #[test]
    fn prediction_and_json() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("out.json");
        let args = AllreduceArgs {
            minbytes: 4096,
            maxbytes: 8192,
            stepbytes: 4096,
            iters: 2,
            backend: BackendKind::Host,
            datatype: TypeSel::All,
            op: OpSel::One(RedOp::Max),
            output_file: Some(json.clone()),
            ..Default::default()
        };
        let mut plan = Plan::simple_ring(3, 2);
        plan.prediction = Some(Prediction {
            busbw_gbs: std::sync::Arc::new(|b| b as f64 / 1e4),
            bottleneck: "GPU0->GPU1 NVL".into(),
        });
        let mut b = FixedTime(host::HostBackend::new(&plan, 1024).unwrap());
        let mut out = Vec::new();
        assert_eq!(run_with_backend(&args, &plan, &mut b, &fixed_ctx(), &mut out).unwrap(), 0);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("# topo: model bottleneck: GPU0->GPU1 NVL"), "{text}");
        assert!(text.contains("bfloat16"), "{text}");
        // 4096 B: predicted 0.41 GB/s, measured 4096/(5000+1024 ns)*4/3 = 0.906 GB/s.
        let fields = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
        let line =
            text.lines().map(fields).find(|f| f.len() > 3 && f[0] == "#" && f[1] == "4096" && f[2] == "int8").unwrap();
        assert_eq!(&line[6..], ["0.41", "221.34", "212.52", "GPU0->GPU1", "NVL"]);
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["version"], 3);
        assert_eq!(doc["results"].as_array().unwrap().len(), 20);
        assert_eq!(doc["results"][0]["root"], "    -1");
        assert_eq!(doc["results"][0]["out_of_place"]["nwrong"], 0.0);
        assert_eq!(doc["config"]["devices"].as_array().unwrap().len(), 3);
        assert_eq!(doc["out_of_bounds"]["okay"], "true");
        assert!(doc["results"][0]["topo"]["efficiency_out_of_place"].as_f64().unwrap() > 1.0);
        // A second run does not overwrite the first file.
        let mut out = Vec::new();
        run_with_backend(&args, &plan, &mut b, &fixed_ctx(), &mut out).unwrap();
        assert!(dir.path().join("out.json.0").exists());
    }

    #[test]
    fn unchecked_runs_print_na_and_in_place_only() {
        let args = AllreduceArgs {
            minbytes: 100,
            maxbytes: 100,
            iters: 1,
            check: 0,
            in_place: true,
            backend: BackendKind::Host,
            ..Default::default()
        };
        let plan = Plan::simple_ring(2, 1);
        let mut b = FixedTime(host::HostBackend::new(&plan, 1024).unwrap());
        let mut out = Vec::new();
        run_with_backend(&args, &plan, &mut b, &fixed_ctx(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let row = text.lines().find(|l| !l.starts_with('#') && !l.is_empty()).unwrap();
        assert_eq!(
            row,
            format!(
                "{}{}{}",
                "         100            25     float     sum      -1",
                " ".repeat(32),
                "     5.28    0.02    0.02    N/A"
            )
        );
    }

    #[test]
    fn sizes_and_flags() {
        let a = AllreduceArgs { minbytes: 1024, maxbytes: 16 << 20, stepfactor: 4, ..Default::default() };
        assert_eq!(a.sizes().len(), 8);
        let a = AllreduceArgs { minbytes: 0, maxbytes: 3, stepbytes: 1, ..Default::default() };
        assert_eq!(a.sizes(), vec![0, 1, 2, 3]);
        assert_eq!(parse_size("1K").unwrap(), 1024);
        assert_eq!(parse_size("16M").unwrap(), 16 << 20);
        assert_eq!(parse_size("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_size("8").unwrap(), 8);
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("x").is_err());
        assert_eq!(parse_type("bf16").unwrap(), TypeSel::One(DataType::Bfloat16));
        assert_eq!(parse_type("all").unwrap(), TypeSel::All);
        assert!(parse_op("mulsum").unwrap_err().contains("not supported"));
        let bad = AllreduceArgs { minbytes: 10, maxbytes: 5, ..Default::default() };
        assert!(bad.check().is_err());
        let (alg, bus) = bandwidths(1_000_000_000, 1.0, 4);
        assert_eq!((alg, bus), (1.0, 1.5));
    }
}
