//! nccl-tests' text for `topo bench COLL --streams`: the header naming the plan that
//! runs, the rows of the program bench ([`super::bench_program::row`]), the footer.

use std::fmt::Write as _;

use super::bench::c_g;
use crate::bench::Options;
use crate::bench::program::sweep::perf_name;
use crate::bench::report::Summary;
use crate::bench::streams::{Exec, StreamsHost, collective, sweep};

/// The lines before the table, and the table header.
pub fn header(h: &StreamsHost, opts: &Options) -> String {
    let coll = collective(h.coll());
    let mut s = String::new();
    let backend = if h.exec == Exec::Device { "cuda (streams and events)" } else { "host" };
    let _ = writeln!(
        s,
        "# topo {} bench {coll}, nccl-tests 2.19.6 output format, backend: {backend}",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(s, "# Collective test starting: {}", perf_name(coll));
    let _ = writeln!(s, "# Plan: {}", sweep::describe(h));
    let (step, kind) = if opts.stepfactor > 1 { (opts.stepfactor, "factor") } else { (opts.stepbytes, "bytes") };
    let _ = writeln!(
        s,
        "# nThread 1 nGpus {} minBytes {} maxBytes {} step: {}({}) warmup iters: {} iters: {} agg iters: 1 validation: {} graph: 0 unalign: 0\n#",
        h.nranks(),
        opts.minbytes,
        opts.maxbytes,
        step,
        kind,
        opts.warmup_iters,
        opts.iters,
        opts.check
    );
    let _ = writeln!(
        s,
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          ",
        "", "", "", "", ""
    );
    for (a, b) in [
        (["size", "count", "type", "redop", "root"], ["time", "algbw", "busbw", "#wrong"]),
        (["(B)", "(elements)", "", "", ""], ["(us)", "(GB/s)", "(GB/s)", ""]),
    ] {
        let _ = writeln!(
            s,
            "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} ",
            a[0], a[1], a[2], a[3], a[4], b[0], b[1], b[2], b[3], b[0], b[1], b[2], b[3]
        );
    }
    s
}

/// nccl-tests' footer.
pub fn footer(h: &StreamsHost, s: &Summary) -> String {
    let name = perf_name(collective(h.coll()));
    format!(
        "# {:<20} : {} {}\n# {:<20} : {}\n#\n# Collective test concluded: {name}\n#\n\n",
        "Out of bounds values",
        s.errors,
        if s.errors > 0 { "FAILED" } else { "OK" },
        "Avg bus bandwidth",
        c_g(s.avg_busbw),
    )
}
