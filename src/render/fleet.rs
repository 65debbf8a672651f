//! `topo fleet` as text and JSON: the reference group, then each outlier with its
//! differences and predicted ring bandwidth.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::diff::fleet::{FleetReport, Group};
use crate::diff::{RingEstimate, counts};
use crate::render::diff::{render_changes, ring_json, summary};
use crate::render::gbs;

/// Most file names listed for one group in the text output.
const MAX_FILES: usize = 8;

fn file_list(files: &[PathBuf]) -> String {
    let mut s = files.iter().take(MAX_FILES).map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ");
    if files.len() > MAX_FILES {
        s.push_str(&format!(" and {} more", files.len() - MAX_FILES));
    }
    s
}

fn dumps(n: usize) -> String {
    format!("{n} dump{}", if n == 1 { "" } else { "s" })
}

fn ring_text(r: &Option<RingEstimate>, reference: &Option<RingEstimate>) -> String {
    let Some(r) = r else { return "predicted ring bandwidth: none (the model cannot run on this dump)".into() };
    let pct = |x: f32, base: f32| (x as f64 / base as f64 - 1.0) * 100.0;
    let mut s = format!("predicted ring bandwidth {} GB/s", gbs(r.bw));
    if let Some(b) = reference.as_ref().filter(|b| b.bw > 0.0) {
        s.push_str(&format!(" against {} GB/s for the reference ({:+.0}%)", gbs(b.bw), pct(r.bw, b.bw)));
    }
    s.push_str(&format!(", {}", r.basis));
    if let Some(t) = r.net_total {
        s.push_str(&format!("; all network devices together {} GB/s", gbs(t)));
        if let Some(bt) = reference.as_ref().and_then(|b| b.net_total).filter(|&bt| bt > 0.0 && bt != t) {
            s.push_str(&format!(" against {} GB/s ({:+.0}%)", gbs(bt), pct(t, bt)));
        }
    }
    s
}

/// The text report.
pub fn text(r: &FleetReport) -> String {
    let mut s = String::new();
    let ngroups = r.outliers.len() + usize::from(r.reference_in_fleet);
    let ignored: Vec<&str> = r.ignore.0.iter().map(String::as_str).collect();
    if r.outliers.is_empty() && r.reference_in_fleet {
        s.push_str(&format!(
            "{}: all alike (signature {:016x}; ignoring {})\n",
            dumps(r.dumps - r.skipped.len()),
            r.reference.signature,
            ignored.join(", ")
        ));
    } else {
        s.push_str(&format!(
            "{}, {ngroups} groups (ignoring {})\n",
            dumps(r.dumps - r.skipped.len()),
            ignored.join(", ")
        ));
    }
    let how = if r.reference_in_fleet { "" } else { " (given with --reference, not one of the fleet)" };
    s.push_str(&format!(
        "reference: {} (signature {:016x}){how}: {}\n  {}\n",
        dumps(r.reference.files.len()),
        r.reference.signature,
        file_list(&r.reference.files),
        ring_text(&r.reference_ring, &None)
    ));
    for (k, o) in r.outliers.iter().enumerate() {
        s.push_str(&format!(
            "\noutlier {} of {}: {} (signature {:016x}): {}\n",
            k + 1,
            r.outliers.len(),
            dumps(o.group.files.len()),
            o.group.signature,
            file_list(&o.group.files)
        ));
        if let Some(e) = &o.error {
            s.push_str(&format!("  cannot compare: {e}\n"));
            continue;
        }
        s.push_str(&format!("  {}\n", ring_text(&o.ring, &r.reference_ring)));
        if o.changes.is_empty() {
            s.push_str(
                "  no difference topo compares (only in elements NCCL does not read, or in ignored attributes)\n",
            );
        } else {
            s.push_str(&format!("  {}\n", summary(&o.changes)));
            s.push_str(&render_changes(&o.changes, "  "));
        }
    }
    if !r.skipped.is_empty() {
        s.push_str(&format!("\nskipped {} that could not be read:\n", dumps(r.skipped.len())));
        for (_, e) in &r.skipped {
            s.push_str(&format!("  {e}\n"));
        }
    }
    s
}

/// The JSON report.
pub fn json(r: &FleetReport) -> Value {
    let files = |g: &Group| g.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>();
    json!({
        "schema": 1,
        "dumps": r.dumps,
        "ignore": r.ignore.0,
        "reference": {
            "signature": format!("{:016x}", r.reference.signature),
            "in_fleet": r.reference_in_fleet,
            "files": files(&r.reference),
            "ring": ring_json(r.reference_ring.clone()),
        },
        "outliers": r.outliers.iter().map(|o| {
            let [e, w, i] = counts(&o.changes);
            json!({
                "signature": format!("{:016x}", o.group.signature),
                "files": files(&o.group),
                "ring": ring_json(o.ring.clone()),
                "ring_ratio": match (&o.ring, &r.reference_ring) {
                    (Some(x), Some(b)) if b.bw > 0.0 => json!(x.bw / b.bw),
                    _ => Value::Null,
                },
                "error": o.error,
                "counts": {"error": e, "warning": w, "info": i},
                "hidden": o.hidden,
                "changes": o.changes,
            })
        }).collect::<Vec<_>>(),
        "skipped": r.skipped.iter().map(|(f, e)| json!({"file": f.display().to_string(), "error": e})).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::testutil::{find, fixture};

    #[test]
    fn fleet_names_the_outlier() {
        let dir = tempfile::tempdir().unwrap();
        let a = fixture("gh200");
        for i in 0..5 {
            let mut x = a.clone();
            let cpu = find(&x, "cpu", "numaid", "0");
            x.set_attr(cpu, "host_hash", format!("{i:#x}"));
            if i == 3 {
                let p = find(&x, "pci", "busid", "0009:01:00.0");
                x.set_attr(p, "link_width", "8");
            }
            std::fs::write(dir.path().join(format!("node{i}.xml")), crate::xml::write(&x)).unwrap();
        }
        let args = crate::diff::fleet::FleetOptions::new(vec![dir.path().to_path_buf()]);
        let opts = crate::model::Options { nodes: 2, ..crate::model::Options::default() };
        let r = crate::diff::fleet::fleet(&args, &opts, &crate::diff::no_graphs).unwrap();
        assert_eq!(r.reference.files.len(), 4);
        assert_eq!(r.outliers.len(), 1);
        assert!(r.outliers[0].group.files[0].ends_with("node3.xml"));
        assert!(r.outliers[0].changes.iter().any(|c| c.attr.as_deref() == Some("link_width")));
        let t = text(&r);
        assert!(t.contains("outlier 1 of 1: 1 dump"), "{t}");
    }
}
