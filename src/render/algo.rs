//! `topo algo check` and `topo algo show` as text, JSON and Graphviz.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::json;

use super::plural;
use super::term::{Term, Tone};
use crate::algo::check::{Report, Verdict};
use crate::algo::finding::{Finding, Kind, Severity};
use crate::algo::runtime::NCCL_STEPS;

/// Findings of one kind shown in text before the rest are counted.
const SHOWN_PER_KIND: usize = 10;

fn tone(v: Verdict) -> Tone {
    if v == Verdict::Ok { Tone::Good } else { Tone::Bad }
}

fn bytes_range(min: Option<i64>, max: Option<i64>) -> String {
    match (min, max) {
        (None, None) => "any size".into(),
        (lo, Some(0)) => format!("from {} bytes", lo.unwrap_or(0)),
        (lo, Some(hi)) => format!("{}..{hi} bytes", lo.unwrap_or(0)),
        (Some(lo), None) => format!("from {lo} bytes"),
    }
}

/// The depth line: the smallest depth and the runtime's.
fn depth_line(r: &Report) -> String {
    let unit = |n: u32| if n == 1 { "slot" } else { "slots" };
    match r.min_depth {
        Some(d) if d <= r.depth => format!(
            "completes with FIFOs of {d} {} per connection or more (held to {} {})",
            unit(d),
            r.depth,
            if r.depth == NCCL_STEPS {
                format!("slots, {}'s depth", r.runtime.long_name())
            } else {
                "slots, --depth".into()
            }
        ),
        Some(d) => format!(
            "needs {d} {} per connection and gets {} ({}): it deadlocks",
            unit(d),
            r.depth,
            r.runtime.long_name()
        ),
        None => "deadlocks at any FIFO depth".into(),
    }
}

/// The message size the depth is for, and how steps become calls there.
fn regime_text(r: &Report) -> String {
    let Some(g) = r.regime else { return String::new() };
    let iters =
        if g.iterations == 1 { "one loop iteration".to_string() } else { "several loop iterations".to_string() };
    let calls = if g.chunks_per_call == 1 {
        "a call per chunk".to_string()
    } else {
        format!("up to {} chunks per call", g.chunks_per_call)
    };
    match g.bytes {
        Some(b) => format!(" at {b} bytes, the largest the header admits ({iters}, {calls})"),
        None => format!(" at large sizes ({iters}, {calls})"),
    }
}

/// One file's report as text.
pub fn check_text(file: &str, r: &Report, term: &Term) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", file, term.paint(r.verdict.name(), tone(r.verdict)));
    if let Some(p) = &r.program {
        let modes: Vec<String> = p.modes.iter().map(ToString::to_string).collect();
        let modes = if modes.is_empty() { "no mode (never selected)".to_string() } else { modes.join(" and ") };
        let line = format!(
            "  {} {}, {} GPUs, {}, {} per loop, {modes}, {}; at most {} per GPU and {} per block, {}",
            p.coll,
            p.proto,
            p.ngpus,
            plural(p.nchannels as usize, "channel", "channels"),
            plural(p.chunks_per_loop as usize, "chunk", "chunks"),
            bytes_range(p.min_bytes, p.max_bytes),
            plural(p.max_tbs, "thread block", "thread blocks"),
            plural(p.max_steps, "step", "steps"),
            plural(p.connections, "connection", "connections")
        );
        out.push_str(&term.wrap_more(&line, 2));
        out.push('\n');
        if r.skipped.iter().all(|s| !s.starts_with("simulation")) {
            out.push_str(&term.wrap_more(&format!("  FIFO{}: {}", regime_text(r), depth_line(r)), 2));
            out.push('\n');
        }
        if let Some(root) = r.root {
            let _ = writeln!(out, "  right for root {root} (a rooted program names its root nowhere in the file)");
        }
    }
    for s in &r.skipped {
        out.push_str(&term.wrap_more(&format!("  not checked: {s}"), 2));
        out.push('\n');
    }
    let mut by_kind: BTreeMap<Kind, Vec<&Finding>> = BTreeMap::new();
    for f in &r.findings {
        by_kind.entry(f.kind).or_default().push(f);
    }
    for (kind, list) in by_kind {
        let errors = list.iter().filter(|f| f.is_error()).count();
        let warnings = list.len() - errors;
        let count = match (errors, warnings) {
            (e, 0) => format!("{e} error{}", if e == 1 { "" } else { "s" }),
            (0, w) => format!("{w} warning{}", if w == 1 { "" } else { "s" }),
            (e, w) => {
                format!("{e} error{}, {w} warning{}", if e == 1 { "" } else { "s" }, if w == 1 { "" } else { "s" })
            }
        };
        let _ = writeln!(out, "{} ({count}):", kind.name());
        for f in list.iter().take(SHOWN_PER_KIND) {
            let sev = match f.severity {
                Severity::Error => term.paint("error", Tone::Bad),
                Severity::Warning => term.paint("warning", Tone::Warn),
            };
            let at = f.place.to_string();
            let at = if at.is_empty() { String::new() } else { format!("{at}: ") };
            out.push_str(&term.wrap_more(&format!("  {sev}: {at}{}", f.message), 4));
            out.push('\n');
        }
        if list.len() > SHOWN_PER_KIND {
            let _ = writeln!(out, "  ... {} more (--json lists every finding)", list.len() - SHOWN_PER_KIND);
        }
    }
    out
}

/// One line per file, then the tally, for `algo check` over many files; for a folder,
/// where the runtime's scan of it stops.
pub fn check_summary_text(rows: &[(String, Result<Report, String>)], folder: bool, term: &Term) -> String {
    let mut out = String::new();
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    for (file, r) in rows {
        match r {
            Ok(r) => {
                *tally.entry(r.verdict.name()).or_default() += 1;
                let depth = r.min_depth.map_or("-".to_string(), |d| d.to_string());
                let first = r.findings.iter().find(|f| f.is_error()).map(|f| {
                    let at = f.place.to_string();
                    if at.is_empty() { f.message.clone() } else { format!("{at}: {}", f.message) }
                });
                let line = format!(
                    "{:<8} depth {:>3}  {file}{}",
                    term.paint(r.verdict.name(), tone(r.verdict)),
                    depth,
                    first.map(|m| format!(": {m}")).unwrap_or_default()
                );
                out.push_str(&term.wrap_more(&line, 16));
            }
            Err(e) => {
                *tally.entry("unreadable").or_default() += 1;
                out.push_str(
                    &term.wrap_more(&format!("{:<8} depth   -  {file}: {e}", term.paint("unreadable", Tone::Bad)), 16),
                );
            }
        }
        out.push('\n');
    }
    let parts: Vec<String> = tally.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let _ = writeln!(out, "{} files: {}", rows.len(), parts.join(", "));
    let stop = rows.iter().find_map(|(f, r)| match r {
        Ok(r) => r.scan_error.as_ref().map(|e| (f, e.clone(), r.runtime)),
        Err(e) => Some((f, e.clone(), crate::algo::Runtime::Executor)),
    });
    if folder && let Some((file, why, runtime)) = stop {
        let order = if runtime == crate::algo::Runtime::Rccl {
            "in directory order (RCCL does not sort)"
        } else {
            "in sorted order"
        };
        let line = format!(
            "{}: {} reads every file's header {order} and stops at {file} ({why}): MSCCL is not set up, and no program of the folder runs",
            term.paint("note", Tone::Warn),
            runtime.long_name()
        );
        out.push_str(&term.wrap_more(&line, 2));
        out.push('\n');
    }
    out
}

/// The JSON of one report (`schema` topo.algo.check/1).
pub fn check_value(file: &str, r: &Report) -> serde_json::Value {
    json!({
        "schema": "topo.algo.check/1",
        "file": file,
        "runtime": r.runtime,
        "verdict": r.verdict,
        "min_depth": r.min_depth,
        "depth": r.depth,
        "root": r.root,
        "regime": r.regime,
        "folder_scan_error": r.scan_error,
        "program": r.program,
        "skipped": r.skipped,
        "findings": r.findings,
    })
}

/// `--json` for one file (the report) or many (`files`, and a tally of verdicts).
pub fn check_json(rows: &[(String, Result<Report, String>)]) -> String {
    let value = if let [(file, Ok(r))] = rows {
        check_value(file, r)
    } else {
        let files: Vec<serde_json::Value> = rows
            .iter()
            .map(|(file, r)| match r {
                Ok(r) => check_value(file, r),
                Err(e) => json!({"schema": "topo.algo.check/1", "file": file, "verdict": "unreadable", "error": e}),
            })
            .collect();
        json!({"schema": "topo.algo.check-many/1", "files": files})
    };
    let mut s = serde_json::to_string_pretty(&value).unwrap_or_default();
    s.push('\n');
    s
}
