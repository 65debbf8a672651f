//! `topo fleet` as text and JSON: the reference group, then each outlier with its
//! differences and predicted ring bandwidth.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::diff::fleet::{FleetReport, Group, Outlier, natural_cmp};
use crate::diff::{RingEstimate, What, counts};
use crate::render::diff::{render_changes, ring_json, summary};
use crate::render::gbs;
use crate::render::term::{Term, Tone};

/// Most file names listed for one group in the text output.
const MAX_FILES: usize = 8;

/// The files of a group, at most [`MAX_FILES`] of them, the last with "and N more".
fn file_list(files: &[PathBuf]) -> Vec<String> {
    let mut v: Vec<String> = files.iter().take(MAX_FILES).map(|f| f.display().to_string()).collect();
    if files.len() > MAX_FILES
        && let Some(last) = v.last_mut()
    {
        last.push_str(&format!(" and {} more", files.len() - MAX_FILES));
    }
    v
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

/// One node of the fleet: its dump, its group's GPU and network-device counts, its group
/// and, for an outlier, what differs from the reference in a few words.
struct NodeRow {
    file: String,
    node: String,
    gpus: usize,
    nets: usize,
    group: String,
    differs: String,
}

/// What differs for an outlier, in one line: the predicted ring bandwidth against the
/// reference's, then the gravest hardware difference (else the gravest NCCL result), and
/// how many more there are.
fn differs(o: &Outlier, reference: &Option<RingEstimate>) -> String {
    if let Some(e) = &o.error {
        return format!("cannot compare: {e}");
    }
    let mut parts = Vec::new();
    if let (Some(x), Some(b)) = (&o.ring, reference.as_ref().filter(|b| b.bw > 0.0))
        && x.bw != b.bw
    {
        parts.push(format!("ring {} GB/s ({:+.0}%)", gbs(x.bw), (x.bw as f64 / b.bw as f64 - 1.0) * 100.0));
    }
    let first = o
        .changes
        .iter()
        .min_by_key(|c| (c.what == What::Nccl, c.level))
        .map(|c| format!("{}: {}", c.subject, c.message));
    match first {
        Some(f) if o.changes.len() > 1 => parts.push(format!("{f} (and {} more)", o.changes.len() - 1)),
        Some(f) => parts.push(f),
        None => parts.push("only elements NCCL does not read, or ignored attributes".into()),
    }
    parts.join("; ")
}

/// Every node of the fleet, in natural order of its dump's name.
fn node_rows(r: &FleetReport) -> Vec<NodeRow> {
    let row = |f: &PathBuf, g: &Group, group: String, differs: String| NodeRow {
        file: f.display().to_string(),
        node: f.file_stem().map_or_else(|| f.display().to_string(), |s| s.to_string_lossy().into_owned()),
        gpus: g.gpus,
        nets: g.nets,
        group,
        differs,
    };
    let mut rows: Vec<NodeRow> = Vec::new();
    if r.reference_in_fleet {
        rows.extend(r.reference.files.iter().map(|f| row(f, &r.reference, "reference".into(), "-".into())));
    }
    for (k, o) in r.outliers.iter().enumerate() {
        let what = differs(o, &r.reference_ring);
        rows.extend(o.group.files.iter().map(|f| row(f, &o.group, format!("outlier {}", k + 1), what.clone())));
    }
    rows.sort_by(|a, b| natural_cmp(&a.file, &b.file));
    rows
}

/// The one-line-per-node table: node, GPUs, NICs (network devices), group, what
/// differs; the last column wraps under itself.
fn node_table(r: &FleetReport, term: &Term) -> String {
    let rows = node_rows(r);
    let w = |f: &dyn Fn(&NodeRow) -> usize, title: &str| rows.iter().map(f).chain([title.len()]).max().unwrap_or(0);
    let (wn, wg) = (w(&|x| x.node.chars().count(), "NODE"), w(&|x| x.group.len(), "GROUP"));
    let lead = |node: &str, gpus: &str, nets: &str, group: &str| {
        format!("  {node:<wn$}  {gpus:>4}  {nets:>4}  {group:<wg$}  ")
    };
    let indent = " ".repeat(lead("", "", "", "").len());
    let mut s = format!("{}WHAT DIFFERS\n", lead("NODE", "GPUS", "NICS", "GROUP"));
    for x in &rows {
        let line = format!("{}{}", lead(&x.node, &x.gpus.to_string(), &x.nets.to_string(), &x.group), x.differs);
        let tone = if x.group == "reference" { None } else { Some(Tone::Warn) };
        let text = term.wrap(&line, &indent);
        s.push_str(&match tone {
            Some(t) => text.replacen(&x.group, &term.paint(&x.group, t), 1),
            None => text,
        });
        s.push('\n');
    }
    s
}

/// The text report, as wide as it takes.
pub fn text(r: &FleetReport) -> String {
    text_with(r, &Term::default())
}

/// The text report, laid out as `term` says: lines and file lists wrapped at the width;
/// a fleet all alike in green, outliers in yellow, errors in red when colours are on.
pub fn text_with(r: &FleetReport, term: &Term) -> String {
    let mut s = String::new();
    let line = |s: &mut String, text: &str, indent: &str| {
        s.push_str(&term.wrap(text, indent));
        s.push('\n');
    };
    let ngroups = r.outliers.len() + usize::from(r.reference_in_fleet);
    let ignored: Vec<&str> = r.ignore.0.iter().map(String::as_str).collect();
    if r.outliers.is_empty() && r.reference_in_fleet {
        let title = format!(
            "{}: {} (signature {:016x}; ignoring {})",
            dumps(r.dumps - r.skipped.len()),
            term.paint("all alike", Tone::Good),
            r.reference.signature,
            ignored.join(", ")
        );
        line(&mut s, &title, "  ");
    } else {
        let title = format!("{}, {ngroups} groups (ignoring {})", dumps(r.dumps - r.skipped.len()), ignored.join(", "));
        line(&mut s, &title, "  ");
    }
    s.push_str(&node_table(r, term));
    s.push('\n');
    if let Some(text) = rack_text(r) {
        line(&mut s, &text, "  ");
        s.push('\n');
    }
    let how = if r.reference_in_fleet { "" } else { " (given with --reference, not one of the fleet)" };
    let head =
        format!("reference: {} (signature {:016x}){how}: ", dumps(r.reference.files.len()), r.reference.signature);
    s.push_str(&term.wrap_items(&head, &file_list(&r.reference.files), ", ", "  "));
    s.push('\n');
    line(&mut s, &format!("  {}", ring_text(&r.reference_ring, &None)), "    ");
    for (k, o) in r.outliers.iter().enumerate() {
        let head = format!(
            "{}: {} (signature {:016x}): ",
            term.paint(&format!("outlier {} of {}", k + 1, r.outliers.len()), Tone::Warn),
            dumps(o.group.files.len()),
            o.group.signature
        );
        s.push('\n');
        s.push_str(&term.wrap_items(&head, &file_list(&o.group.files), ", ", "  "));
        s.push('\n');
        if let Some(e) = &o.error {
            line(&mut s, &format!("  {}: {e}", term.paint("cannot compare", Tone::Bad)), "    ");
            continue;
        }
        line(&mut s, &format!("  {}", ring_text(&o.ring, &r.reference_ring)), "    ");
        if o.changes.is_empty() {
            line(
                &mut s,
                "  no difference topo compares (only in elements NCCL does not read, or in ignored attributes)",
                "    ",
            );
        } else {
            line(&mut s, &format!("  {}", summary(&o.changes, term)), "    ");
            s.push_str(&render_changes(&o.changes, "  ", term));
        }
    }
    if !r.skipped.is_empty() {
        let title = term.paint(&format!("skipped {} that could not be read:", dumps(r.skipped.len())), Tone::Bad);
        s.push_str(&format!("\n{title}\n"));
        for (_, e) in &r.skipped {
            line(&mut s, &format!("  {e}"), "    ");
        }
    }
    s
}

/// What the dumps say as trays of NVL racks, when some are: all on the NVLink fabric,
/// or which ones are off it.
fn rack_text(r: &FleetReport) -> Option<String> {
    let rack = r.rack.as_ref()?;
    let n = rack.trays.len();
    let nodes = |k: usize| format!("--nodes {k} --mnnvl");
    let name = |f: &std::path::Path| {
        f.file_name().map_or_else(|| f.display().to_string(), |x| x.to_string_lossy().into_owned())
    };
    // Reports carry the registrations: the cliques they form.
    if rack.off.is_empty() && !rack.cliques.is_empty() {
        let each: Vec<String> = rack
            .cliques
            .iter()
            .map(|(u, c, fs)| format!("clique {c:#x} of cluster {u}: {} tray(s) ({})", fs.len(), name(&fs[0])))
            .collect();
        let equal = rack.cliques.iter().all(|k| k.2.len() == rack.cliques[0].2.len());
        let model = match rack.cliques.len() {
            1 => {
                format!("NCCL fuses them into one node (MNNVL); model the job with {}", nodes(rack.cliques[0].2.len()))
            }
            k if equal => format!(
                "NCCL fuses each clique into one node and joins them over the network; model the job with {} \
                 --mnnvl-cliques {k}",
                nodes(rack.cliques.iter().map(|c| c.2.len()).sum())
            ),
            _ => "NCCL fuses each clique into one node and joins them over the network (cliques of different \
                  sizes, which topo does not model)"
                .to_string(),
        };
        let unreg: Vec<String> = rack.unregistered.iter().map(|(f, w)| format!("{} ({w})", name(f))).collect();
        return Some(format!(
            "NVL rack: {n} dumps are trays on the NVLink fabric, registered in {} clique(s): {}{}. {model}",
            rack.cliques.len(),
            each.join("; "),
            if unreg.is_empty() { String::new() } else { format!("; not registered in one: {}", unreg.join(", ")) }
        ));
    }
    if rack.off.is_empty() {
        return Some(format!(
            "NVL rack: {} every GPU on the NVLink fabric (NVSwitch, C2C to its CPU): NCCL fuses them into one node \
             (MNNVL) when their fabric registrations form one clique, which a dump does not hold (`topo check` on \
             each tray shows its registration); model the job with {}",
            if n == 1 { "the dump is a tray with".to_string() } else { format!("all {n} dumps are trays with") },
            nodes(n)
        ));
    }
    let off: Vec<String> = rack
        .off
        .iter()
        .map(|(f, gpus)| {
            let name = f.file_name().map_or_else(|| f.display().to_string(), |x| x.to_string_lossy().into_owned());
            match gpus.first() {
                Some(g) if gpus.len() > 1 => {
                    format!("{name} (GPU {g} and {} more: no NVLink to an NVSwitch)", gpus.len() - 1)
                }
                Some(g) => format!("{name} (GPU {g}: no NVLink to an NVSwitch)"),
                None => format!("{name} (no C2C: not a tray's topology)"),
            }
        })
        .collect();
    Some(format!(
        "NVL rack: {n} of {} dumps are trays on the NVLink fabric; off it: {}. A job that includes a dump off the \
         fabric runs without MNNVL (NCCL keeps it off for every rank): its trays talk over their NICs",
        n + rack.off.len(),
        off.join(", ")
    ))
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
        "rack": r.rack.as_ref().map(|k| json!({
            "trays": k.trays.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "off_fabric": k.off.iter().map(|(f, g)| json!({"file": f.display().to_string(), "gpus": g})).collect::<Vec<_>>(),
            "cliques": k.cliques.iter().map(|(u, c, fs)| json!({"cluster_uuid": u, "clique_id": c,
                "trays": fs.iter().map(|f| f.display().to_string()).collect::<Vec<_>>()})).collect::<Vec<_>>(),
            "unregistered": k.unregistered.iter().map(|(f, w)| json!({"file": f.display().to_string(), "why": w})).collect::<Vec<_>>(),
        })),
        "nodes": node_rows(r).iter().map(|x| json!({
            "file": x.file, "node": x.node, "gpus": x.gpus, "nets": x.nets, "group": x.group, "differs": x.differs,
        })).collect::<Vec<_>>(),
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

    /// Long file lists, ring lines and changes wrap at the width; nothing is lost.
    #[test]
    fn text_fits_the_width() {
        use crate::render::term::check::{coloured, fits, same_text};
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("dumps-of-every-node-of-the-cluster-taken-after-the-firmware-update");
        std::fs::create_dir(&folder).unwrap();
        for i in 0..12 {
            let name = if i < 10 {
                "dgx-h100"
            } else if i == 10 {
                "dgx1-v100"
            } else {
                "gb200-nvl72-tray"
            };
            let mut x = fixture(name);
            let cpu = find(&x, "cpu", "numaid", "0");
            x.set_attr(cpu, "host_hash", format!("{i:#x}"));
            std::fs::write(folder.join(format!("node-{i:04}.xml")), crate::xml::write(&x)).unwrap();
        }
        let args = crate::diff::fleet::FleetOptions::new(vec![folder]);
        let opts = crate::model::Options { nodes: 2, ..crate::model::Options::default() };
        let r = crate::diff::fleet::fleet(&args, &opts, &crate::diff::no_graphs).unwrap();
        let whole = text(&r);
        assert!(whole.contains("and 2 more") && whole.lines().any(|l| l.len() > 150), "{whole}");
        for width in [60, 80, 100] {
            let t = text_with(&r, &Term { width: Some(width), color: false });
            fits(&t, width, "fleet");
            same_text(&whole, &t, "fleet");
        }
        assert!(!coloured(&whole));
        let c = text_with(&r, &Term { width: None, color: true });
        assert!(c.contains("\x1b[38;5;11moutlier 1 of 2\x1b[39m") && c.contains("\x1b[38;5;9merrors\x1b[39m:"), "{c}");
    }
}
