//! `topo bench allreduce`: nccl-tests' `all_reduce_perf`, run by topo itself over the
//! rings of a [`Plan`], with the model's prediction beside each measurement.
//!
//! Two backends run the same ring protocol (see [`schedule`] and [`proxy`]):
//! [`cuda`] drives every local GPU from one process with kernels compiled at run time
//! by NVRTC; [`host`] plays each rank with CPU threads, which is how the protocol is
//! tested on machines without a GPU. A build without the `cuda` feature has no CUDA
//! backend: `cuda` is then a stand-in (`no_cuda.rs`) whose every entry point says so.
//!
//! A run is three steps, so that the caller can say what each one has to say before
//! the next: [`adjust_plan`] (the plan's notes are warnings), [`open_backend`] (the
//! backend's warnings and notes), [`run_with_backend`] (each header and row reported
//! through an [`Event`] as it is ready; the footer's data in the returned [`Outcome`]).
//! Nothing here prints or reads the process environment: the caller fills [`Options`]
//! and [`RunContext`].

#[cfg(feature = "cuda")]
pub mod cuda;
#[cfg(not(feature = "cuda"))]
#[path = "no_cuda.rs"]
pub mod cuda;
pub mod dtype;
pub mod host;
pub mod kernel_abi;
pub mod plan;
pub mod program;
pub mod proxy;
pub mod report;
pub mod schedule;
pub mod streams;

use std::path::PathBuf;
use std::time::Duration;

use crate::error::Error;
pub use dtype::{DataType, RedOp};
pub use plan::{Plan, Prediction, RingChannel, Transport};
pub use report::DeviceInfo;
use report::{HeaderInfo, Perf, Row, Summary};

/// Which implementation runs the collectives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// What to run (nccl-tests' settings, plus topo's). The JSON report (`-J`) is the
/// caller's to write: see [`report::JsonDoc::new`].
#[derive(Debug, Clone)]
pub struct Options {
    /// Smallest message size in bytes.
    pub minbytes: u64,
    /// Largest message size in bytes.
    pub maxbytes: u64,
    /// Size increment between steps, when no step factor is given.
    pub stepbytes: u64,
    /// Multiply the size by this factor at each step (over 1 takes precedence).
    pub stepfactor: u64,
    /// Timed iterations per size.
    pub iters: usize,
    /// Warm-up iterations per size (sizes doubling from min to max), before timing.
    pub warmup_iters: usize,
    /// Validation runs per measurement (0: no validation).
    pub check: usize,
    pub datatype: TypeSel,
    pub op: OpSel,
    /// Number of ranks (default: every local GPU; host backend: CPU cores, 2 to 8).
    pub ngpus: Option<usize>,
    pub backend: BackendKind,
    /// Channels (rings) to run; repeats or trims the plan's rings.
    pub channels: Option<usize>,
    /// Run the ring channels (graph 0) of this NCCL graph XML file.
    pub graph_file: Option<PathBuf>,
    /// This transport on every ring edge instead of the plan's.
    pub transport: Option<Transport>,
    /// Bytes per FIFO slot (one pipelined chunk).
    pub slot_bytes: Option<u64>,
    /// Only the in-place measurement.
    pub in_place: bool,
    /// Only the out-of-place measurement.
    pub out_of_place: bool,
    /// Compile every kernel with NVRTC and report registers and spills ([`cuda::compile_only`]).
    pub compile_only: bool,
    /// Target architectures for `compile_only`.
    pub arch: Vec<String>,
    /// Where the CUDA backend caches compiled kernels (none: compile every run).
    pub kernel_cache: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
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
            backend: BackendKind::Cuda,
            channels: None,
            graph_file: None,
            transport: None,
            slot_bytes: None,
            in_place: false,
            out_of_place: false,
            compile_only: false,
            arch: Vec::new(),
            kernel_cache: None,
        }
    }
}

/// Most timed iterations per size (`-n`).
pub const MAX_ITERS: usize = 1_000_000;
/// Most warm-up iterations per size (`-w`).
pub const MAX_WARMUP_ITERS: usize = 10_000;
/// Most validation runs per measurement (`-c`).
pub const MAX_CHECKS: usize = 1_000;
/// Most message sizes in one sweep (`-b`, `-e`, `-i`, `-f`).
pub const MAX_SIZES: usize = 4096;
/// Most ranks (`-g`): a node's GPUs, or the host backend's threads.
pub const MAX_RANKS: usize = 256;

impl Options {
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
        if self.size_steps().take(MAX_SIZES + 1).count() > MAX_SIZES {
            return Err(Error::Usage(format!(
                "-b {} -e {} {} makes more than {MAX_SIZES} message sizes: give a larger -i/--stepbytes or a -f/--stepfactor",
                self.minbytes,
                self.maxbytes,
                if self.stepfactor > 1 { format!("-f {}", self.stepfactor) } else { format!("-i {}", self.stepbytes) }
            )));
        }
        if !(1..=MAX_ITERS).contains(&self.iters) {
            return Err(Error::Usage(format!("-n/--iters must be between 1 and {MAX_ITERS}")));
        }
        if self.warmup_iters > MAX_WARMUP_ITERS {
            return Err(Error::Usage(format!("-w/--warmup_iters must be at most {MAX_WARMUP_ITERS}")));
        }
        if self.check > MAX_CHECKS {
            return Err(Error::Usage(format!("-c/--check must be at most {MAX_CHECKS}")));
        }
        if self.ngpus.is_some_and(|g| !(1..=MAX_RANKS).contains(&g)) {
            return Err(Error::Usage(format!("-g/--ngpus must be between 1 and {MAX_RANKS}")));
        }
        if self.channels.is_some_and(|c| !(1..=crate::search::MAXCHANNELS).contains(&c)) {
            return Err(Error::Usage(format!(
                "--channels must be between 1 and {} (NCCL's channel limit)",
                crate::search::MAXCHANNELS
            )));
        }
        if self.slot_bytes.is_some_and(|s| !(64..=(64 << 20)).contains(&s)) {
            return usage("--slot-bytes must be between 64 bytes and 64M");
        }
        Ok(())
    }

    /// The message sizes of the sweep.
    pub fn sizes(&self) -> Vec<u64> {
        self.size_steps().collect()
    }

    /// The message sizes of the sweep, one at a time (a bad `-i` can make billions).
    fn size_steps(&self) -> impl Iterator<Item = u64> + '_ {
        let mut next = Some(self.minbytes);
        std::iter::from_fn(move || {
            let s = next.filter(|&s| s <= self.maxbytes)?;
            let n =
                if self.stepfactor > 1 { s.saturating_mul(self.stepfactor) } else { s.saturating_add(self.stepbytes) };
            next = (n != s).then_some(n);
            Some(s)
        })
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
    /// What went wrong without stopping the run (e.g. the kernel cache not writable).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The environment of a run: things that differ between runs and that tests fix.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub pid: u32,
    /// The host name up to its first dot, as nccl-tests prints it.
    pub hostname: String,
    /// Command line and environment for the JSON report.
    pub argv: Vec<String>,
    pub env: Vec<String>,
    /// `NCCL_TESTS_MIN_BW`: the average bus bandwidth must reach 90% of it.
    pub min_bw: Option<f64>,
    pub now: fn() -> String,
}

/// The plan used when the caller has no search result: the graph file's rings, or
/// identity rings over the default number of ranks.
pub fn default_plan(args: &Options) -> Result<Plan, Error> {
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

/// The plan as the options change it (`--channels`, `--transport`), checked against
/// them. Its `notes` are warnings for the caller to give.
pub fn adjust_plan(args: &Options, plan: Plan) -> Result<Plan, Error> {
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
    Ok(plan)
}

/// The backend the options name, set up for `plan`. Its [`Backend::warnings`] and
/// [`Backend::notes`] are for the caller to give.
pub fn open_backend(args: &Options, plan: &Plan) -> Result<Box<dyn Backend>, Error> {
    Ok(match args.backend {
        BackendKind::Host => {
            let slot = args.slot_bytes.map_or(host::DEFAULT_SLOT_BYTES, |s| s as usize);
            Box::new(host::HostBackend::new(plan, slot)?)
        }
        BackendKind::Cuda => {
            let slot = args.slot_bytes.map_or(cuda::DEFAULT_SLOT_BYTES, |s| s as usize);
            Box::new(cuda::CudaBackend::new(plan, slot, args.kernel_cache.as_deref())?)
        }
    })
}

/// What a run reports while it goes, in this order: `Started` once, then per size a
/// `Measuring`/`Measured` pair per placement and the finished `Row`.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// The backend is ready: the header facts, and how many measurements follow.
    Started { header: &'a HeaderInfo, measurements: u64 },
    /// One measurement (a size, type, operator and placement) begins.
    Measuring { bytes: u64, dtype: DataType, op: RedOp, in_place: bool },
    /// That measurement is done.
    Measured,
    /// A row is complete (nccl-tests prints it now).
    Row(&'a Row),
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub header: HeaderInfo,
    pub rows: Vec<Row>,
    pub summary: Summary,
    /// The plan and the backend, described for topo's section of the report.
    pub plan_lines: Vec<String>,
    /// The rows carry the model's prediction.
    pub prediction: bool,
    pub start_time: String,
    pub end_time: String,
}

impl Outcome {
    /// The exit status: 0, or 1 when a result was wrong (or the average bus bandwidth
    /// below `NCCL_TESTS_MIN_BW`).
    pub fn status(&self) -> i32 {
        if self.summary.passed() { 0 } else { 1 }
    }
}

impl HeaderInfo {
    /// The header of a run of `args` on `nranks` ranks of `backend`.
    pub fn new(args: &Options, ctx: &RunContext, backend: &str, nranks: usize, devices: Vec<DeviceInfo>) -> HeaderInfo {
        HeaderInfo {
            topo_version: env!("CARGO_PKG_VERSION").into(),
            backend: backend.into(),
            nranks,
            min_bytes: args.minbytes,
            max_bytes: args.maxbytes,
            step_bytes: args.stepbytes,
            step_factor: args.stepfactor,
            warmup_iters: args.warmup_iters,
            iters: args.iters,
            check: args.check,
            pid: ctx.pid,
            hostname: ctx.hostname.clone(),
            devices,
        }
    }
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

/// The benchmark proper, on any backend; `on` hears of each step as it happens.
pub fn run_with_backend(
    args: &Options,
    plan: &Plan,
    backend: &mut dyn Backend,
    ctx: &RunContext,
    on: &mut dyn FnMut(Event<'_>) -> Result<(), Error>,
) -> Result<Outcome, Error> {
    args.check()?;
    let n = backend.nranks();
    let sizes = args.sizes();
    let start_time = (ctx.now)();
    backend.prepare(args.maxbytes as usize)?;
    let header = HeaderInfo::new(args, ctx, backend.name(), n, backend.devices());
    let placements: Vec<bool> = match (args.in_place, args.out_of_place) {
        (true, _) => vec![true],
        (_, true) => vec![false],
        _ => vec![false, true],
    };
    let combos: Vec<(DataType, RedOp)> =
        args.types().into_iter().flat_map(|t| args.ops().into_iter().map(move |o| (t, o))).collect();
    on(Event::Started { header: &header, measurements: (combos.len() * sizes.len() * placements.len()) as u64 })?;
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
                on(Event::Measuring { bytes, dtype, op, in_place })?;
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
                on(Event::Measured)?;
            }
            on(Event::Row(&row))?;
            rows.push(row);
        }
    }
    let summary = Summary::from_rows(&rows, ctx.min_bw);
    let mut plan_lines = plan_lines(plan, backend.name());
    plan_lines.extend(backend.notes());
    Ok(Outcome {
        header,
        rows,
        summary,
        plan_lines,
        prediction: plan.prediction.is_some(),
        start_time,
        end_time: (ctx.now)(),
    })
}

/// View a slice of plain elements as bytes.
pub(crate) fn as_bytes<T: dtype::Elem>(v: &[T]) -> &[u8] {
    // SAFETY: every `Elem` is a plain integer, float or `u16` wrapper: no padding, any
    // byte pattern is valid.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

pub(crate) fn as_bytes_mut<T: dtype::Elem>(v: &mut [T]) -> &mut [u8] {
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
            argv: vec!["topo".into()],
            env: vec![],
            min_bw: None,
            now: || "2026-01-01 00:00:00".into(),
        }
    }

    /// A run as the command line prints it: the header and rows as they come, then
    /// the conclusion.
    fn run_text(args: &Options, plan: &Plan, b: &mut dyn Backend) -> (Outcome, String) {
        use crate::render::bench as r;
        let mut text = String::new();
        let o = run_with_backend(args, plan, b, &fixed_ctx(), &mut |e| {
            match e {
                Event::Started { header, .. } => text.push_str(&r::header(header)),
                Event::Row(row) => text.push_str(&r::row(row)),
                Event::Measuring { .. } | Event::Measured => {}
            }
            Ok(())
        })
        .unwrap();
        text.push_str(&r::conclusion(&o));
        (o, text)
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
        let args = Options {
            minbytes: 1024,
            maxbytes: 1 << 20,
            stepfactor: 32,
            iters: 3,
            backend: BackendKind::Host,
            ..Default::default()
        };
        let plan = Plan::simple_ring(4, 1);
        let mut b = FixedTime(host::HostBackend::new(&plan, 4096).unwrap());
        let (o, text) = run_text(&args, &plan, &mut b);
        assert_eq!(o.status(), 0);
        let text = text.replace(env!("CARGO_PKG_VERSION"), "VERSION");
        assert_eq!(text, SNAPSHOT, "got:\n{text}");
    }

    #[test]
    fn prediction_and_json() {
        let args = Options {
            minbytes: 4096,
            maxbytes: 8192,
            stepbytes: 4096,
            iters: 2,
            backend: BackendKind::Host,
            datatype: TypeSel::All,
            op: OpSel::One(RedOp::Max),
            ..Default::default()
        };
        let mut plan = Plan::simple_ring(3, 2);
        plan.prediction = Some(Prediction {
            busbw_gbs: std::sync::Arc::new(|b| b as f64 / 1e4),
            bottleneck: "GPU0->GPU1 NVL".into(),
        });
        let mut b = FixedTime(host::HostBackend::new(&plan, 1024).unwrap());
        let (o, text) = run_text(&args, &plan, &mut b);
        assert_eq!(o.status(), 0);
        assert!(text.contains("# topo: model bottleneck: GPU0->GPU1 NVL"), "{text}");
        assert!(text.contains("bfloat16"), "{text}");
        // 4096 B: predicted 0.41 GB/s, measured 4096/(5000+1024 ns)*4/3 = 0.906 GB/s.
        let fields = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
        let line =
            text.lines().map(fields).find(|f| f.len() > 3 && f[0] == "#" && f[1] == "4096" && f[2] == "int8").unwrap();
        assert_eq!(&line[6..], ["0.41", "221.34", "212.52", "GPU0->GPU1", "NVL"]);
        let doc = serde_json::to_value(report::JsonDoc::new(&o, &fixed_ctx())).unwrap();
        assert_eq!(doc["version"], 3);
        assert_eq!(doc["results"].as_array().unwrap().len(), 20);
        assert_eq!(doc["results"][0]["root"], "    -1");
        assert_eq!(doc["results"][0]["out_of_place"]["nwrong"], 0.0);
        assert_eq!(doc["config"]["devices"].as_array().unwrap().len(), 3);
        assert_eq!(doc["out_of_bounds"]["okay"], "true");
        assert!(doc["results"][0]["topo"]["efficiency_out_of_place"].as_f64().unwrap() > 1.0);
        assert_eq!(doc["start_time"], "2026-01-01 00:00:00");
        assert_eq!(doc["topo"]["backend"], "host");
    }

    #[test]
    fn unchecked_runs_print_na_and_in_place_only() {
        let args = Options {
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
        let (_, text) = run_text(&args, &plan, &mut b);
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
        let a = Options { minbytes: 1024, maxbytes: 16 << 20, stepfactor: 4, ..Default::default() };
        assert_eq!(a.sizes().len(), 8);
        let a = Options { minbytes: 0, maxbytes: 3, stepbytes: 1, ..Default::default() };
        assert_eq!(a.sizes(), vec![0, 1, 2, 3]);
        let bad = Options { minbytes: 10, maxbytes: 5, ..Default::default() };
        assert!(bad.check().is_err());
        // A sweep of a billion sizes is refused before any is listed.
        let host = Options { backend: BackendKind::Host, ..Default::default() };
        let huge = Options { minbytes: 1, maxbytes: 1 << 30, stepbytes: 1, ..host.clone() };
        let e = huge.check().unwrap_err().to_string();
        assert!(e.contains("more than 4096 message sizes"), "{e}");
        let most = Options { minbytes: 1, maxbytes: MAX_SIZES as u64, stepbytes: 1, ..host.clone() };
        most.check().unwrap();
        assert_eq!(most.sizes().len(), MAX_SIZES);
        let doubling = Options { minbytes: 1, maxbytes: u64::MAX, stepfactor: 2, ..host };
        doubling.check().unwrap();
        let (alg, bus) = bandwidths(1_000_000_000, 1.0, 4);
        assert_eq!((alg, bus), (1.0, 1.5));
    }
}
