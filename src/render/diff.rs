//! `topo diff` as text and JSON: the changes grouped by level, alike device changes on
//! one line.

use serde_json::{Value, json};

use crate::diff::{Change, Ignore, Level, RingEstimate, Side, What, counts};
use crate::release;

pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "2 errors, 1 warning, 3 info".
pub fn summary(changes: &[Change]) -> String {
    let [e, w, i] = counts(changes);
    format!("{}, {}, {i} info", plural(e, "error", "errors"), plural(w, "warning", "warnings"))
}

/// Most items of a grouped NCCL line printed before "and N more".
const MAX_ITEMS: usize = 6;

/// `first; second; ...; and N more`, on a continuation line.
fn item_line(indent: &str, items: &[&str]) -> String {
    let shown = items.iter().take(MAX_ITEMS).copied().collect::<Vec<_>>().join("; ");
    let more = items.len().saturating_sub(MAX_ITEMS);
    let tail = if more > 0 { format!("; and {more} more") } else { String::new() };
    format!("\n{indent}      {shown}{tail}")
}

/// The changes as text, grouped by level, each line indented by `indent`. Device
/// changes that read the same (the same speed change on 16 ports) share one line.
pub fn render_changes(changes: &[Change], indent: &str) -> String {
    let mut s = String::new();
    for level in [Level::Error, Level::Warning, Level::Info] {
        let of: Vec<&Change> = changes.iter().filter(|c| c.level == level).collect();
        if of.is_empty() {
            continue;
        }
        let head = match level {
            Level::Error => "errors",
            Level::Warning => "warnings",
            Level::Info => "info",
        };
        s.push_str(&format!("{indent}{head}:\n"));
        let mut done = vec![false; of.len()];
        for (k, c) in of.iter().enumerate() {
            if done[k] {
                continue;
            }
            let alike: Vec<usize> = if c.what == What::Nccl {
                vec![k]
            } else {
                (k..of.len()).filter(|&o| !done[o] && of[o].what == c.what && of[o].message == c.message).collect()
            };
            for &o in &alike {
                done[o] = true;
            }
            if alike.len() > 1 {
                let subjects: Vec<&str> = alike.iter().map(|&o| of[o].subject.as_str()).collect();
                s.push_str(&format!("{indent}  {} devices: {}", alike.len(), c.message));
                s.push_str(&item_line(indent, &subjects));
            } else {
                s.push_str(&format!("{indent}  {}: {}", c.subject, c.message));
                if !c.items.is_empty() {
                    let items: Vec<&str> = c.items.iter().map(String::as_str).collect();
                    s.push_str(&item_line(indent, &items));
                }
            }
            s.push('\n');
        }
    }
    s
}

/// The text report of `topo diff`.
pub fn text(a: &Side, b: &Side, changes: &[Change], hidden: usize, why: &[&release::Change]) -> String {
    let mut s = String::new();
    let hidden_note = if hidden > 0 {
        format!(" ({} hidden by --ignore)", plural(hidden, "difference", "differences"))
    } else {
        String::new()
    };
    if changes.is_empty() {
        let same = if a.release == b.release { "same topology" } else { "same decisions" };
        s.push_str(&format!("{} and {}: {same}{hidden_note}\n", a.label, b.label));
    } else {
        s.push_str(&format!("{} -> {}: {}{hidden_note}\n", a.label, b.label, summary(changes)));
        s.push_str(&render_changes(changes, ""));
    }
    if a.release != b.release {
        s.push_str(&release_notes(a.release, b.release, why));
    }
    s
}

/// What NCCL changed between the two releases that can touch this machine: the reasons
/// behind the differences above.
fn release_notes(ra: release::Release, rb: release::Release, why: &[&release::Change]) -> String {
    let mut s = format!("\nwhat NCCL changed from {ra} to {rb} that applies to this machine:\n");
    if why.is_empty() {
        s.push_str("  nothing topo models (the differences, if any, follow from the tuning tables)\n");
    }
    for c in why {
        let dir = if ra < rb { "" } else { " (undone going back)" };
        s.push_str(&format!("  {:<7} {}{dir}\n", c.since.to_string(), c.text));
    }
    s
}

pub(crate) fn ring_json(r: Option<RingEstimate>) -> Value {
    match r {
        Some(r) => json!(r),
        None => Value::Null,
    }
}

/// The JSON report of `topo diff` (schema 1).
pub fn json(a: &Side, b: &Side, changes: &[Change], hidden: usize, ignore: &Ignore, why: &[&release::Change]) -> Value {
    let [e, w, i] = counts(changes);
    json!({
        "schema": 1,
        "a": a.label,
        "b": b.label,
        "nccl": {"a": a.release.to_string(), "b": b.release.to_string(), "changes": why},
        "equal": changes.is_empty(),
        "counts": {"error": e, "warning": w, "info": i},
        "hidden": hidden,
        "ignore": ignore.0,
        "ring": {"a": ring_json(a.ring()), "b": ring_json(b.ring())},
        "changes": changes,
    })
}
