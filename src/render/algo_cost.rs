//! `topo algo cost` and `topo algo compare` as text and JSON.

use std::fmt::Write;

use crate::algo::cost::{Comparison, Costed, Fabric};

fn header(out: &mut String, what: &str, fabric: &Fabric) {
    let _ = writeln!(
        out,
        "# topo algo {what} on {}: {} node{} x {} GPUs{}; a timed run over the machine's links (README: \"Costing a program\")",
        fabric.label,
        fabric.nodes,
        if fabric.nodes == 1 { "" } else { "s" },
        fabric.per_node,
        if fabric.domains > 1 {
            format!(" ({} trimming domains a node, joined by the network)", fabric.domains)
        } else {
            String::new()
        }
    );
}

/// One program's rows, with NCCL's pick beside each.
pub fn cost_text(file: &str, fabric: &Fabric, c: &Costed) -> String {
    let mut out = String::new();
    header(&mut out, "cost", fabric);
    let _ = writeln!(out, "# {file}: \"{}\", {}, {} GPUs, {}", c.name, c.coll, c.ngpus, c.proto);
    if c.left_out > 0 {
        let hi = c.max_bytes.map_or("unbounded".to_string(), |h| h.to_string());
        let _ = writeln!(
            out,
            "# the header admits {}..{hi} bytes: {} size{} outside it left out",
            c.min_bytes,
            c.left_out,
            if c.left_out == 1 { "" } else { "s" }
        );
    }
    let _ = writeln!(
        out,
        "# {:>10} {:>11} {:>11} {:>11}   {:>20} {:>11} {:>11}   bottleneck",
        "size(B)", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "NCCL pick", "time(us)", "busbw(GB/s)"
    );
    for r in &c.rows {
        let (pick, t, b) = match &r.nccl {
            Some(n) => (format!("{}/{}", n.algo, n.proto), format!("{:.2}", n.time_us), format!("{:.2}", n.busbw_gbs)),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let _ = writeln!(
            out,
            "  {:>10} {:>11.2} {:>11.2} {:>11.2}   {pick:>20} {t:>11} {b:>11}   {}",
            r.bytes, r.time_us, r.algbw_gbs, r.busbw_gbs, r.bottleneck
        );
    }
    out
}

/// One program as JSON (schema topo.algo.cost/1).
pub fn cost_json(file: &str, fabric: &Fabric, c: &Costed) -> String {
    let v = serde_json::json!({
        "schema": "topo.algo.cost/1",
        "file": file,
        "machine": { "input": fabric.label, "nodes": fabric.nodes, "gpus_per_node": fabric.per_node },
        "program": { "name": c.name, "coll": c.coll, "ngpus": c.ngpus, "proto": c.proto },
        "rows": c.rows,
    });
    super::to_json_string(&v)
}

fn size(b: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
    for (u, s) in UNITS {
        if b >= u && b.is_multiple_of(u) {
            return format!("{}{s}", b / u);
        }
    }
    b.to_string()
}

/// Programs side by side: time per size, the winner, and the winner per size range.
pub fn compare_text(names: &[String], fabric: &Fabric, cmp: &Comparison) -> String {
    let mut out = String::new();
    header(&mut out, "compare", fabric);
    for (i, (n, c)) in names.iter().zip(&cmp.programs).enumerate() {
        let _ = writeln!(out, "# [{}] {n}: \"{}\", {} GPUs, {}", i + 1, c.name, c.ngpus, c.proto);
    }
    let mut head = format!("# {:>10}", "size(B)");
    for i in 0..cmp.programs.len() {
        let _ = write!(head, " {:>12}", format!("[{}] us", i + 1));
    }
    let _ = writeln!(out, "{head}  winner");
    let sizes: Vec<u64> = cmp.programs.first().map(|c| c.rows.iter().map(|r| r.bytes).collect()).unwrap_or_default();
    for (row, &b) in sizes.iter().enumerate() {
        let mut line = format!("  {b:>10}");
        for c in &cmp.programs {
            match c.rows.iter().find(|r| r.bytes == b) {
                Some(r) => {
                    let _ = write!(line, " {:>12.2}", r.time_us);
                }
                None => {
                    let _ = write!(line, " {:>12}", "-");
                }
            }
        }
        let w = cmp.winners[row].map_or("-".to_string(), |w| format!("[{}]", w + 1));
        let _ = writeln!(out, "{line}  {w}");
    }
    let _ = writeln!(out, "#");
    for &(lo, hi, w) in &cmp.ranges {
        let _ = writeln!(out, "# {:>6} .. {:<6} [{}] {}", size(lo), size(hi), w + 1, names[w]);
    }
    out
}

/// The comparison as JSON (schema topo.algo.compare/1): each program by its `file`, or
/// (`made`) by the `algo` that made it.
pub fn compare_json(names: &[String], made: bool, fabric: &Fabric, cmp: &Comparison) -> String {
    let key = if made { "algo" } else { "file" };
    let programs: Vec<serde_json::Value> = names
        .iter()
        .zip(&cmp.programs)
        .map(|(n, c)| serde_json::json!({ key: n, "name": c.name, "ngpus": c.ngpus, "proto": c.proto, "rows": c.rows }))
        .collect();
    let ranges: Vec<serde_json::Value> = cmp
        .ranges
        .iter()
        .map(|&(lo, hi, w)| serde_json::json!({ "from_bytes": lo, "to_bytes": hi, "winner": names[w] }))
        .collect();
    let v = serde_json::json!({
        "schema": "topo.algo.compare/1",
        "machine": { "input": fabric.label, "nodes": fabric.nodes, "gpus_per_node": fabric.per_node },
        "programs": programs,
        "ranges": ranges,
    });
    super::to_json_string(&v)
}
