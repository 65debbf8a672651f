//! nccl-tests' text for `topo bench <collective> --algo PROGRAM.xml`: the header, one
//! row per size (with the collective's root and "none" for operators it does not
//! take), and the footer.

use std::fmt::Write as _;

use super::bench::{c_g, perf};
use crate::algo::program::Program;
use crate::bench::Options;
use crate::bench::program::sweep::{ProgramRow, perf_name};
use crate::bench::report::Summary;

/// The lines before the table, and the table header.
pub fn header(p: &Program, file: &str, backend: &str, opts: &Options) -> String {
    let h = &p.header;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# topo {} bench {}, nccl-tests 2.19.6 output format, backend: {backend}",
        env!("CARGO_PKG_VERSION"),
        h.coll
    );
    let _ = writeln!(s, "# Collective test starting: {}", perf_name(h.coll));
    let _ = writeln!(
        s,
        "# Program: {file} ({} ranks, {}, {} chunks per loop, {} channels, at most {} thread blocks per rank)",
        h.ngpus,
        h.proto,
        h.chunks_per_loop,
        h.nchannels,
        p.shape().0
    );
    let (step, kind) = if opts.stepfactor > 1 { (opts.stepfactor, "factor") } else { (opts.stepbytes, "bytes") };
    let _ = writeln!(
        s,
        "# nThread 1 nGpus {} minBytes {} maxBytes {} step: {}({}) warmup iters: {} iters: {} agg iters: 1 validation: {} graph: 0 unalign: 0\n#",
        h.ngpus, opts.minbytes, opts.maxbytes, step, kind, opts.warmup_iters, opts.iters, opts.check
    );
    let titles = ["time", "algbw", "busbw", "#wrong"];
    let units = ["(us)", "(GB/s)", "(GB/s)", ""];
    let _ = writeln!(
        s,
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          ",
        "", "", "", "", ""
    );
    let line = |a: [&str; 5], b: [&str; 4]| {
        format!(
            "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n",
            a[0], a[1], a[2], a[3], a[4], b[0], b[1], b[2], b[3], b[0], b[1], b[2], b[3]
        )
    };
    s += &line(["size", "count", "type", "redop", "root"], titles);
    s += &line(["(B)", "(elements)", "", "", ""], units);
    s
}

/// One table row.
pub fn row(r: &ProgramRow) -> String {
    let op = r.op.map_or("none", |o| o.name());
    let mut s = format!("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", r.bytes, r.count, r.dtype.name(), op, r.root);
    match &r.out_of_place {
        Some(p) => s.push_str(&perf(p)),
        None => s.push_str(&" ".repeat(33)),
    }
    if let Some(p) = &r.in_place {
        s.push_str(&perf(p));
    }
    s.push('\n');
    s
}

/// nccl-tests' footer, for the collective's test.
pub fn footer(p: &Program, s: &Summary, unit: usize) -> String {
    format!(
        "# {:<20} : {} {}\n# {:<20} : {}\n# Sizes run as counts per rank in multiples of {unit} (nchunksperloop {}), as the runtime selects the program\n#\n# Collective test concluded: {}\n#\n\n",
        "Out of bounds values",
        s.errors,
        if s.errors > 0 { "FAILED" } else { "OK" },
        "Avg bus bandwidth",
        c_g(s.avg_busbw),
        p.header.chunks_per_loop,
        perf_name(p.header.coll)
    )
}
