//! `topo diff` as text and JSON: the changes grouped by level, alike device changes on
//! one line.

use serde_json::{Value, json};

use crate::diff::{Change, Ignore, Level, RingEstimate, Side, What, counts};
use crate::release;
use crate::render::term::{Term, Tone};

use super::plural;

/// "2 errors, 1 warning, 3 info", errors in red and warnings in yellow when there are
/// some and colours are on.
pub fn summary(changes: &[Change], term: &Term) -> String {
    let [e, w, i] = counts(changes);
    let paint = |n: usize, text: String, tone: Tone| if n > 0 { term.paint(&text, tone) } else { text };
    format!(
        "{}, {}, {i} info",
        paint(e, plural(e, "error", "errors"), Tone::Bad),
        paint(w, plural(w, "warning", "warnings"), Tone::Warn)
    )
}

/// Most items of a grouped NCCL line printed before "and N more".
const MAX_ITEMS: usize = 6;

/// `first; second; ...; and N more`, on a continuation line (wrapped between items).
fn item_line(indent: &str, items: &[&str], term: &Term) -> String {
    let mut shown: Vec<String> = items.iter().take(MAX_ITEMS).map(|s| s.to_string()).collect();
    let more = items.len().saturating_sub(MAX_ITEMS);
    if more > 0 {
        shown.push(format!("and {more} more"));
    }
    let head = format!("{indent}      ");
    format!("\n{}", term.wrap_items(&head, &shown, "; ", &head))
}

/// The changes as text, grouped by level, each line indented by `indent`. Device
/// changes that read the same (the same speed change on 16 ports) share one line. Lines
/// wrap at `term`'s width, under their subject; the errors' title is red and the
/// warnings' yellow when colours are on.
pub fn render_changes(changes: &[Change], indent: &str, term: &Term) -> String {
    let mut s = String::new();
    let more = format!("{indent}    ");
    for level in [Level::Error, Level::Warning, Level::Info] {
        let of: Vec<&Change> = changes.iter().filter(|c| c.level == level).collect();
        if of.is_empty() {
            continue;
        }
        let head = match level {
            Level::Error => term.paint("errors", Tone::Bad),
            Level::Warning => term.paint("warnings", Tone::Warn),
            Level::Info => "info".to_string(),
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
                s.push_str(&term.wrap(&format!("{indent}  {} devices: {}", alike.len(), c.message), &more));
                s.push_str(&item_line(indent, &subjects, term));
            } else {
                s.push_str(&term.wrap(&format!("{indent}  {}: {}", c.subject, c.message), &more));
                if !c.items.is_empty() {
                    let items: Vec<&str> = c.items.iter().map(String::as_str).collect();
                    s.push_str(&item_line(indent, &items, term));
                }
            }
            s.push('\n');
        }
    }
    s
}

/// The text report of `topo diff`, as wide as it takes.
pub fn text(a: &Side, b: &Side, changes: &[Change], hidden: usize, why: &[&release::Change]) -> String {
    text_with(a, b, changes, hidden, why, &Term::default())
}

/// The text report of `topo diff`, laid out as `term` says: lines wrapped at the width;
/// the same dumps in green, errors in red and warnings in yellow when colours are on.
pub fn text_with(
    a: &Side,
    b: &Side,
    changes: &[Change],
    hidden: usize,
    why: &[&release::Change],
    term: &Term,
) -> String {
    let mut s = String::new();
    let hidden_note = if hidden > 0 {
        format!(" ({} hidden by --ignore)", plural(hidden, "difference", "differences"))
    } else {
        String::new()
    };
    let title = if changes.is_empty() {
        let same = if a.release == b.release { "same topology" } else { "same decisions" };
        format!("{} and {}: {}{hidden_note}", a.label, b.label, term.paint(same, Tone::Good))
    } else {
        format!("{} -> {}: {}{hidden_note}", a.label, b.label, summary(changes, term))
    };
    s.push_str(&term.wrap(&title, "  "));
    s.push('\n');
    s.push_str(&render_changes(changes, "", term));
    if a.release != b.release {
        s.push_str(&release_notes(a.release, b.release, why, term));
    }
    s
}

/// What NCCL changed between the two releases that can touch this machine: the reasons
/// behind the differences above.
fn release_notes(ra: release::Release, rb: release::Release, why: &[&release::Change], term: &Term) -> String {
    let mut s = format!("\nwhat NCCL changed from {ra} to {rb} that applies to this machine:\n");
    if why.is_empty() {
        s.push_str("  nothing topo models (the differences, if any, follow from the tuning tables)\n");
    }
    for c in why {
        let dir = if ra < rb { "" } else { " (undone going back)" };
        let line = format!("  {:<7} {}{dir}", c.since.to_string(), c.text);
        s.push_str(&term.wrap(&line, "          "));
        s.push('\n');
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::testutil::{fixture, side};
    use crate::diff::{compare, no_graphs, release_changes};
    use crate::render::term::check::{coloured, fits, same_text};

    /// Two different machines: long change lines and lists of devices wrap at the width,
    /// nothing is lost; errors red, warnings yellow, the same machine green.
    #[test]
    fn text_fits_the_width() {
        let label = |m: &str| format!("/a/long/path/to/the/dumps/of/the/cluster/{m}-node-0042.xml");
        let a = side(&label("dgx-h100"), fixture("dgx-h100"), &no_graphs);
        let b = side(&label("dgx1-v100"), fixture("dgx1-v100"), &no_graphs);
        let (changes, hidden) = compare(&a, &b, &Ignore::new(&[] as &[String]));
        let why = release_changes(&a, &b);
        let whole = text(&a, &b, &changes, hidden, &why);
        assert!(whole.lines().any(|l| l.len() > 150), "{whole}");
        for width in [60, 80, 100] {
            let t = text_with(&a, &b, &changes, hidden, &why, &Term { width: Some(width), color: false });
            fits(&t, width, "diff");
            same_text(&whole, &t, "diff");
        }
        assert!(!coloured(&whole));
        let c = text_with(&a, &b, &changes, hidden, &why, &Term { width: None, color: true });
        assert!(c.contains("\x1b[38;5;9merrors\x1b[39m:\n") && c.contains("\x1b[38;5;11mwarnings\x1b[39m:\n"), "{c}");
        let (same, _) = compare(&a, &a, &Ignore::new(&[] as &[String]));
        let c = text_with(&a, &a, &same, 0, &[], &Term { width: None, color: true });
        assert!(c.contains("\x1b[38;5;10msame topology\x1b[39m"), "{c}");
    }
}
