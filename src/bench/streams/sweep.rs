//! `topo bench COLL --streams`: nccl-tests' sweep over a plan's streams, in the program
//! bench's rows (sizes, counts, bus-bandwidth factors of each collective), each result
//! validated against the collective's definition.

use super::{StreamsHost, collective, reduces, sizes};
use crate::algo::program::Collective;
use crate::algo::program::Mode;
use crate::bench::dtype::{self, input_value};
use crate::bench::program::reference::expected;
use crate::bench::program::sweep::{Call, Measured, ProgramRow, measure, wanted_modes};
use crate::bench::report::{HeaderInfo, Row, Summary};
use crate::bench::{DataType, Options, Outcome, RedOp, RunContext, as_bytes, as_bytes_mut};
use crate::error::Error;
use std::time::Duration;

/// Byte written over out-of-place outputs before a validation run.
const POISON: u8 = 0xa5;

/// One validation run: fresh inputs, poisoned outputs (out of place), one collective,
/// every output compared with its definition; `skip` leaves one task out (rank,
/// stream, task index). Returns the wrong elements.
pub fn validate(
    h: &mut StreamsHost,
    dtype: DataType,
    op: RedOp,
    count: usize,
    mode: Mode,
    seed: u64,
    skip: Option<(usize, usize, usize)>,
) -> Result<u64, Error> {
    let n = h.nranks();
    let coll = collective(h.coll());
    let op = if reduces(h.coll()) { op } else { RedOp::Sum };
    let (send, _) = sizes(h.coll(), n, count);
    dtype::with_elem!(dtype, T => {
        for r in 0..n {
            let v: Vec<T> = (0..send).map(|i| input_value::<T>(op, n, r, seed, i)).collect();
            h.set_input(r, mode, dtype, count, as_bytes(&v))?;
        }
    });
    if mode == Mode::OutOfPlace {
        for r in 0..n {
            h.fill_output(r, mode, dtype, count, POISON)?;
        }
    }
    h.run_skipping(dtype, op, count, mode, 1, skip)?;
    let tol = dtype::tolerance(dtype, op);
    let mut wrong = 0;
    dtype::with_elem!(dtype, T => dtype::with_op!(op, OP => {
        for r in 0..n {
            let Some(exp) = expected::<T, OP>(coll, op, n, r, 0, seed, count) else { continue };
            let mut got = exp.clone();
            h.get_output(r, mode, dtype, count, as_bytes_mut(&mut got))?;
            wrong += dtype::count_wrong(&got, &exp, tol);
        }
    }));
    Ok(wrong)
}

/// nccl-tests' per-rank count for a message of `bytes`: divided by the ranks with
/// 16-byte alignment for allgather and reducescatter.
pub fn param_count(h: &StreamsHost, dtype: DataType, bytes: u64) -> usize {
    let total = bytes as usize / dtype.size();
    if h.coll() == crate::algo::plan::Coll::AllReduce {
        return total;
    }
    (total / h.nranks()) & !((16 / dtype.size()).max(1) - 1)
}

impl Measured for StreamsHost {
    fn coll(&self) -> Collective {
        collective(StreamsHost::coll(self))
    }
    fn nranks(&self) -> usize {
        StreamsHost::nranks(self)
    }
    /// Sizes under one element a rank are skipped.
    fn call(&self, dtype: DataType, bytes: u64) -> Result<Call, Error> {
        let count = param_count(self, dtype, bytes);
        if count == 0 {
            return Ok(Call::Skip);
        }
        let (s, r) = sizes(StreamsHost::coll(self), StreamsHost::nranks(self), count);
        Ok(Call::Run { count, elems: s.max(r) })
    }
    fn time(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, iters: usize) -> Result<Duration, Error> {
        self.run(dtype, op, count, mode, iters)
    }
    fn validate(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, seed: u64) -> Result<u64, Error> {
        validate(self, dtype, op, count, mode, seed, None)
    }
}

/// Run the sweep; `on` hears of each row as it is measured. Sizes under one element a
/// rank are left out.
pub fn run(
    args: &Options,
    h: &mut StreamsHost,
    on: &mut dyn FnMut(&ProgramRow) -> Result<(), Error>,
) -> Result<Vec<ProgramRow>, Error> {
    args.check()?;
    Ok(measure(args, h, &wanted_modes(args), -1, on)?.0)
}

/// The finished sweep as the ring bench's outcome (what its `-J` report is made of).
pub fn outcome(args: &Options, h: &StreamsHost, rows: &[ProgramRow], ctx: &RunContext, start_time: String) -> Outcome {
    let plain: Vec<Row> = rows.iter().map(|r| r.as_row()).collect();
    Outcome {
        header: HeaderInfo::new(args, ctx, "host", h.nranks(), Vec::new()),
        summary: Summary::from_rows(&plain, ctx.min_bw),
        rows: plain,
        plan_lines: vec![describe(h)],
        prediction: false,
        start_time,
        end_time: (ctx.now)(),
    }
}

/// One line naming what ran: the levels, the executor, the streams.
pub fn describe(h: &StreamsHost) -> String {
    let p = &h.plan;
    let levels: Vec<String> = p.levels.iter().map(|c| format!("level{}:{}", c.level, c.algo.name())).collect();
    let subs = p.ranks.first().map_or(0, |r| r.sub_streams);
    format!(
        "streams of {} on {}: {} ({}), {} ranks, main + {subs} sub-stream{} a rank",
        p.coll.name(),
        p.machine,
        p.executor,
        levels.join(";"),
        h.nranks(),
        if subs == 1 { "" } else { "s" }
    )
}
