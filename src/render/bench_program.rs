//! nccl-tests' text for `topo bench <collective> --algo PROGRAM.xml`: the header, one
//! row per size (with the collective's root and "none" for operators it does not
//! take), and the footer.

use std::fmt::Write as _;

use super::bench::{c_g, float_str, perf};
use crate::algo::program::{Collective, Program};
use crate::bench::Options;
use crate::bench::program::sweep::{ProgramRow, perf_name};
use crate::bench::report::{Perf, Summary};

/// The lines before the table, and the table header; `about` says where a program
/// `topo` made comes from.
pub fn header(p: &Program, file: &str, about: Option<&str>, backend: &str, opts: &Options) -> String {
    let h = &p.header;
    let mut s = title(h.coll, backend);
    let _ = writeln!(
        s,
        "# Program: {file} ({} ranks, {}, {} chunks per loop, {} channels, at most {} thread blocks per rank)",
        h.ngpus,
        h.proto,
        h.chunks_per_loop,
        h.nchannels,
        p.shape().0
    );
    if let Some(a) = about {
        let _ = writeln!(s, "# {a}");
    }
    s + &table_head(h.ngpus as usize, opts)
}

/// nccl-tests' first lines, with topo's version and the backend.
pub fn title(coll: Collective, backend: &str) -> String {
    format!(
        "# topo {} bench {coll}, nccl-tests 2.19.6 output format, backend: {backend}\n# Collective test starting: {}\n",
        env!("CARGO_PKG_VERSION"),
        perf_name(coll)
    )
}

/// nccl-tests' line of parameters and the table's header, for `ngpus` ranks.
pub fn table_head(ngpus: usize, opts: &Options) -> String {
    let mut s = String::new();
    let (step, kind) = if opts.stepfactor > 1 { (opts.stepfactor, "factor") } else { (opts.stepbytes, "bytes") };
    let _ = writeln!(
        s,
        "# nThread 1 nGpus {} minBytes {} maxBytes {} step: {}({}) warmup iters: {} iters: {} agg iters: 1 validation: {} graph: 0 unalign: 0\n#",
        ngpus, opts.minbytes, opts.maxbytes, step, kind, opts.warmup_iters, opts.iters, opts.check
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
        "{}# Sizes run as counts per rank in multiples of {unit} (nchunksperloop {}), as the runtime selects the program\n{}",
        totals(s),
        p.header.chunks_per_loop,
        concluded(p.header.coll)
    )
}

/// nccl-tests' lines of wrong values and average bus bandwidth.
pub fn totals(s: &Summary) -> String {
    format!(
        "# {:<20} : {} {}\n# {:<20} : {}\n",
        "Out of bounds values",
        s.errors,
        if s.errors > 0 { "FAILED" } else { "OK" },
        "Avg bus bandwidth",
        c_g(s.avg_busbw),
    )
}

/// nccl-tests' last lines.
pub fn concluded(coll: Collective) -> String {
    format!("#\n# Collective test concluded: {}\n#\n\n", perf_name(coll))
}

/// topo's section after the footer: notes, then each row's measured times beside `topo
/// algo cost`'s prediction for the call and measured over predicted (`-` where there is
/// none; no table when no row has one, and the notes say why).
pub fn topo_section(rows: &[ProgramRow], predicted: &[Option<f64>], notes: &[String]) -> String {
    let mut s = String::from("# topo: ---- beyond nccl-tests ----\n");
    for n in notes {
        let _ = writeln!(s, "# topo: {n}");
    }
    if predicted.iter().all(Option::is_none) {
        return s;
    }
    let line = |c: [&str; 8]| {
        format!(
            "# {:>10}  {:>8}  {:>6}  {:>8}  {:>8}  {:>9}  {:>6}  {:>6}\n",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
        )
    };
    s += &line(["size", "type", "redop", "oop time", "ip time", "predicted", "x oop", "x ip"]);
    s += line(["(B)", "", "", "(us)", "(us)", "(us)", "", ""]).trim_end();
    s.push('\n');
    let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for (r, pred) in rows.iter().zip(predicted) {
        let time = |p: &Option<Perf>| dash(p.map(|p| float_str(p.time_us, 8)));
        let ratio = |p: &Option<Perf>| dash(p.zip(*pred).map(|(p, t)| float_str(p.time_us / t, 6)));
        s += &line([
            &r.bytes.to_string(),
            r.dtype.name(),
            r.op.map_or("none", |o| o.name()),
            &time(&r.out_of_place),
            &time(&r.in_place),
            &dash(pred.map(|t| float_str(t, 9))),
            &ratio(&r.out_of_place),
            &ratio(&r.in_place),
        ]);
    }
    s
}
