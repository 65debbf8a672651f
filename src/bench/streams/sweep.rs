//! `topo bench COLL --streams`: nccl-tests' sweep over a plan's streams, in the program
//! bench's rows (sizes, counts, bus-bandwidth factors of each collective), each result
//! validated against the collective's definition.

use super::{StreamsHost, collective, reduces, sizes};
use crate::algo::program::Mode;
use crate::bench::dtype::{self, input_value};
use crate::bench::program::reference::expected;
use crate::bench::program::sweep::{ProgramRow, bus_factor};
use crate::bench::report::{HeaderInfo, Perf, Row, Summary};
use crate::bench::{DataType, OpSel, Options, Outcome, RedOp, RunContext, TypeSel, as_bytes, as_bytes_mut};
use crate::error::Error;

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

/// Run the sweep; `on` hears of each row as it is measured. Sizes under one element a
/// rank are left out.
pub fn run(
    args: &Options,
    h: &mut StreamsHost,
    on: &mut dyn FnMut(&ProgramRow) -> Result<(), Error>,
) -> Result<Vec<ProgramRow>, Error> {
    args.check()?;
    let n = h.nranks();
    let modes = match (args.in_place, args.out_of_place) {
        (true, _) => vec![Mode::InPlace],
        (_, true) => vec![Mode::OutOfPlace],
        _ => vec![Mode::OutOfPlace, Mode::InPlace],
    };
    let types = match args.datatype {
        TypeSel::All => DataType::ALL.to_vec(),
        TypeSel::One(t) => vec![t],
    };
    let ops: Vec<Option<RedOp>> = match (reduces(h.coll()), args.op) {
        (false, _) => vec![None],
        (true, OpSel::All) => RedOp::ALL.iter().copied().map(Some).collect(),
        (true, OpSel::One(o)) => vec![Some(o)],
    };
    let mut rows = Vec::new();
    let mut seed = 0u64;
    for &dtype in &types {
        for &op in &ops {
            let redop = op.unwrap_or(RedOp::Sum);
            for size in args.sizes() {
                let count = param_count(h, dtype, size);
                if count == 0 {
                    continue;
                }
                let (s, r) = sizes(h.coll(), n, count);
                let elems = s.max(r);
                let bytes = (elems * dtype.size()) as u64;
                let mut row =
                    ProgramRow { bytes, count: elems as u64, dtype, op, root: -1, out_of_place: None, in_place: None };
                for &mode in &modes {
                    if args.warmup_iters > 0 {
                        h.run(dtype, redop, count, mode, args.warmup_iters)?;
                    }
                    let t = h.run(dtype, redop, count, mode, args.iters)?;
                    let sec = t.as_secs_f64() / args.iters as f64;
                    let algbw = bytes as f64 / 1e9 / sec;
                    let wrong = if args.check > 0 {
                        let mut w = 0;
                        for _ in 0..args.check {
                            seed += 1;
                            w = validate(h, dtype, redop, count, mode, seed, None)?;
                            if w > 0 {
                                break;
                            }
                        }
                        Some(w)
                    } else {
                        None
                    };
                    let perf =
                        Perf { time_us: sec * 1e6, algbw, busbw: algbw * bus_factor(collective(h.coll()), n), wrong };
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
    Ok(rows)
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
