//! `topo bench <collective> --algo PROGRAM.xml`: nccl-tests' sweep over a program on
//! the interpreter, with nccl-tests' sizes, counts and bus-bandwidth factors for each
//! collective.

use super::reference::validate;
use super::{ProgramBackend, reduces};
use crate::algo::program::{Collective, Mode};
use crate::bench::report::{HeaderInfo, Perf, Row, Summary};
use crate::bench::{DataType, OpSel, Options, Outcome, RedOp, RunContext, TypeSel};
use crate::error::Error;
use std::time::Duration;

/// One row: nccl-tests' columns.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramRow {
    /// max(send, receive) bytes of one rank, and that buffer's elements.
    pub bytes: u64,
    pub count: u64,
    pub dtype: DataType,
    /// `None` for the collectives that do not reduce (nccl-tests prints "none").
    pub op: Option<RedOp>,
    /// The root of broadcast and reduce; -1 for the others.
    pub root: i64,
    pub out_of_place: Option<Perf>,
    pub in_place: Option<Perf>,
}

impl ProgramRow {
    /// As the allreduce bench's row, for its summary.
    pub fn as_row(&self) -> Row {
        Row {
            bytes: self.bytes,
            count: self.count,
            dtype: self.dtype.name(),
            op: self.op.map_or("none", |o| o.name()),
            out_of_place: self.out_of_place,
            in_place: self.in_place,
            predicted_busbw: None,
            bottleneck: None,
        }
    }
}

/// nccl-tests' name of the collective's test binary.
pub fn perf_name(coll: Collective) -> &'static str {
    match coll {
        Collective::AllGather => "all_gather_perf",
        Collective::ReduceScatter => "reduce_scatter_perf",
        Collective::AllToAll => "alltoall_perf",
        Collective::Broadcast => "broadcast_perf",
        Collective::Reduce => "reduce_perf",
        _ => "all_reduce_perf",
    }
}

/// nccl-tests' bus bandwidth factor.
pub fn bus_factor(coll: Collective, n: usize) -> f64 {
    let n = n as f64;
    match coll {
        Collective::AllReduce => 2.0 * (n - 1.0) / n,
        Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => (n - 1.0) / n,
        _ => 1.0,
    }
}

/// The per-rank count (nccl-tests' paramcount) for a message of `bytes`: nccl-tests'
/// division by the ranks with 16-byte alignment for the collectives that split a
/// buffer, then down to a count the runtime runs the program for.
pub fn param_count(host: &dyn ProgramBackend, dtype: DataType, bytes: u64) -> usize {
    let coll = host.loaded().coll();
    let n = host.nranks();
    let total = bytes as usize / dtype.size();
    let base = match coll {
        Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => {
            (total / n) & !((16 / dtype.size()).max(1) - 1)
        }
        _ => total,
    };
    let unit = host.loaded().count_unit();
    base / unit * unit
}

/// What a sweep ran, and the sizes it did not run because the program's header does
/// not admit them (MSCCL's executor selects a program by the call's bytes: outside
/// `minBytes..maxBytes` the runtime runs NCCL's own algorithms instead).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Swept {
    pub rows: Vec<ProgramRow>,
    /// Sizes (bytes) left out, below minBytes or above maxBytes, in sweep order.
    pub outside: Vec<u64>,
    /// The call sizes the header admits (inclusive), as the runtime reads them.
    pub admitted: (u64, Option<u64>),
}

/// What one size of a sweep runs, as a bench reads nccl-tests' message size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Call {
    /// Too small for one element (or count unit) a rank: not a row, not counted.
    Skip,
    /// Not run because the runtime would not select this program for the call's bytes.
    Outside(u64),
    /// Run with the per-rank `count`; `elems` is max(send, receive) elements of a rank.
    Run { count: usize, elems: usize },
}

/// What the measuring loop needs of a bench: the collective, how a size becomes a
/// call, timed runs, and a validation run.
pub trait Measured {
    fn coll(&self) -> Collective;
    fn nranks(&self) -> usize;
    /// The call for a message of `bytes` of `dtype`.
    fn call(&self, dtype: DataType, bytes: u64) -> Result<Call, Error>;
    /// Run `iters` collectives back to back; the wall time they took.
    fn time(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, iters: usize) -> Result<Duration, Error>;
    /// One validation run with inputs from `seed`; the wrong elements.
    fn validate(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, seed: u64) -> Result<u64, Error>;
}

/// The placements `-p`/`-o`... ask for: in-place only, out-of-place only, or both.
pub fn wanted_modes(args: &Options) -> Vec<Mode> {
    match (args.in_place, args.out_of_place) {
        (true, _) => vec![Mode::InPlace],
        (_, true) => vec![Mode::OutOfPlace],
        _ => vec![Mode::OutOfPlace, Mode::InPlace],
    }
}

/// nccl-tests' measuring loop, for every type, operator and size the options name:
/// warm-up, the timed iterations, algbw and busbw, `-c` validation rounds (stopping at
/// the first with a wrong element), one row per size handed to `on` as it is measured.
/// Returns the rows and the sizes left out as [`Call::Outside`].
pub fn measure(
    args: &Options,
    m: &mut dyn Measured,
    modes: &[Mode],
    root: i64,
    on: &mut dyn FnMut(&ProgramRow) -> Result<(), Error>,
) -> Result<(Vec<ProgramRow>, Vec<u64>), Error> {
    let coll = m.coll();
    let n = m.nranks();
    let types = match args.datatype {
        TypeSel::All => DataType::ALL.to_vec(),
        TypeSel::One(t) => vec![t],
    };
    let ops: Vec<Option<RedOp>> = match (reduces(coll), args.op) {
        (false, _) => vec![None],
        (true, OpSel::All) => RedOp::ALL.iter().copied().map(Some).collect(),
        (true, OpSel::One(o)) => vec![Some(o)],
    };
    let (mut rows, mut outside) = (Vec::new(), Vec::new());
    let mut seed = 0u64;
    for &dtype in &types {
        for &op in &ops {
            let redop = op.unwrap_or(RedOp::Sum);
            for size in args.sizes() {
                let (count, elems) = match m.call(dtype, size)? {
                    Call::Skip => continue,
                    Call::Outside(call) => {
                        outside.push(call);
                        continue;
                    }
                    Call::Run { count, elems } => (count, elems),
                };
                let bytes = (elems * dtype.size()) as u64;
                let mut row =
                    ProgramRow { bytes, count: elems as u64, dtype, op, root, out_of_place: None, in_place: None };
                for &mode in modes {
                    if args.warmup_iters > 0 {
                        m.time(dtype, redop, count, mode, args.warmup_iters)?;
                    }
                    let t = m.time(dtype, redop, count, mode, args.iters)?;
                    let sec = t.as_secs_f64() / args.iters as f64;
                    let algbw = bytes as f64 / 1e9 / sec;
                    let wrong = if args.check > 0 {
                        let mut w = 0;
                        for _ in 0..args.check {
                            seed += 1;
                            w = m.validate(dtype, redop, count, mode, seed)?;
                            if w > 0 {
                                break;
                            }
                        }
                        Some(w)
                    } else {
                        None
                    };
                    let perf = Perf { time_us: sec * 1e6, algbw, busbw: algbw * bus_factor(coll, n), wrong };
                    match mode {
                        Mode::InPlace => row.in_place = Some(perf),
                        Mode::OutOfPlace => row.out_of_place = Some(perf),
                    }
                }
                on(&row)?;
                rows.push(row);
            }
        }
    }
    Ok((rows, outside))
}

/// A program backend in the measuring loop, with the call sizes its header admits.
struct ProgramSweep<'a> {
    host: &'a mut dyn ProgramBackend,
    admitted: (u64, Option<u64>),
}

impl Measured for ProgramSweep<'_> {
    fn coll(&self) -> Collective {
        self.host.loaded().coll()
    }
    fn nranks(&self) -> usize {
        self.host.nranks()
    }
    /// Sizes too small for one count unit of the program are skipped; sizes outside the
    /// header's minBytes and maxBytes are left out (the runtime would not pick the
    /// program there).
    fn call(&self, dtype: DataType, bytes: u64) -> Result<Call, Error> {
        let count = param_count(self.host, dtype, bytes);
        if count == 0 {
            return Ok(Call::Skip);
        }
        let g = self.host.loaded().geometry(dtype, count)?;
        // The executor's nBytes: count x type size x the collective's size multiplier.
        let h = &self.host.loaded().program.header;
        let call = count as u64 * dtype.size() as u64 * h.coll.size_multiplier(h.ngpus);
        let (lo, hi) = self.admitted;
        if call < lo || hi.is_some_and(|h| call > h) {
            return Ok(Call::Outside(call));
        }
        Ok(Call::Run { count, elems: g.send.max(g.recv) })
    }
    fn time(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, iters: usize) -> Result<Duration, Error> {
        self.host.run(dtype, op, count, mode, iters)
    }
    fn validate(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, seed: u64) -> Result<u64, Error> {
        validate(self.host, dtype, op, count, mode, seed)
    }
}

/// Run the sweep; `on` hears of each row as it is measured. Sizes too small for one
/// count unit of the program are left out, and so are sizes outside the header's
/// minBytes and maxBytes (the runtime would not pick the program there).
pub fn run(
    args: &Options,
    host: &mut dyn ProgramBackend,
    on: &mut dyn FnMut(&ProgramRow) -> Result<(), Error>,
) -> Result<Swept, Error> {
    args.check()?;
    let declared = host.loaded().program.header.modes();
    let modes: Vec<Mode> = wanted_modes(args).into_iter().filter(|m| declared.contains(m)).collect();
    if modes.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the program is for {} calls only",
            host.loaded().file,
            declared.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" and ")
        )));
    }
    let coll = host.loaded().coll();
    let root =
        if matches!(coll, Collective::Broadcast | Collective::Reduce) { i64::from(host.loaded().root) } else { -1 };
    let admitted = crate::algo::cost::admitted(&host.loaded().program, crate::algo::Runtime::default());
    let (rows, outside) = measure(args, &mut ProgramSweep { host, admitted }, &modes, root, on)?;
    Ok(Swept { rows, outside, admitted })
}

/// The finished sweep as the ring bench's outcome (what its `-J` report is made of):
/// nccl-tests' header and rows, the summary, and the program in place of the rings.
pub fn outcome(
    args: &Options,
    backend: &dyn ProgramBackend,
    rows: &[ProgramRow],
    ctx: &RunContext,
    start_time: String,
    file: &str,
) -> Outcome {
    let plain: Vec<Row> = rows.iter().map(|r| r.as_row()).collect();
    let h = &backend.loaded().program.header;
    Outcome {
        header: HeaderInfo::new(args, ctx, backend.name(), backend.nranks(), Vec::new()),
        summary: Summary::from_rows(&plain, ctx.min_bw),
        rows: plain,
        plan_lines: vec![format!(
            "backend {}; program {file}: {} over {} ranks, {}, {} chunks per loop, {} channel(s)",
            backend.name(),
            h.coll,
            h.ngpus,
            h.proto,
            h.chunks_per_loop,
            h.nchannels
        )],
        prediction: false,
        start_time,
        end_time: (ctx.now)(),
    }
}
