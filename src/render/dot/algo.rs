//! `topo algo show --dot`: a program's GPUs on a circle and its connections between them.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::algo::program::Program;
use crate::algo::show::{ConnShape, Shown};
use crate::render::algo_show::{pairs, ranges};

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The colour a connection's path is drawn in.
fn route_colour(c: &ConnShape) -> &'static str {
    match c.route.as_ref().map(|r| (r.ty.as_str(), r.transport.as_str())) {
        None => "#4a6fa5",
        Some((_, "NET")) => "#d35400",
        Some((_, "SHM")) => "#c0392b",
        Some(("NVL" | "NVB", _)) => "#5e9e00",
        Some(("C2C", _)) => "#8e44ad",
        Some(_) => "#4a6fa5",
    }
}

/// GPUs on a circle (pinned, for neato, so the drawing is the same on every Graphviz),
/// one arrow per ordered GPU pair labelled with its channels and chunks per loop, as
/// thick as its share of the busiest pair; coloured by path when placed on a machine.
pub fn picture(file: &str, p: &Program, shown: &Shown) -> String {
    let n = shown.gpus.len().max(1);
    let radius = (n as f64 * 0.55).max(1.6);
    let mut out = String::new();
    let h = &p.header;
    let title = format!(
        "{} — {} {}, {} GPUs, {} channels{}",
        file,
        h.coll,
        h.proto,
        h.ngpus,
        h.nchannels,
        shown.machine.as_ref().map(|(l, ..)| format!(", on {l}")).unwrap_or_default()
    );
    let _ = writeln!(out, "digraph algo {{");
    let _ = writeln!(
        out,
        "  graph [layout=neato, overlap=false, splines=true, outputorder=edgesfirst, label=\"{}\", labelloc=t, fontname=\"Helvetica\", fontsize=14];",
        esc(&title)
    );
    let _ = writeln!(
        out,
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#c6e5b3\", fontname=\"Helvetica\", fontsize=12];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.6];");
    let per_node = shown.machine.as_ref().filter(|m| m.2 > 1).map(|m| m.1.max(1));
    for (i, g) in shown.gpus.iter().enumerate() {
        let a = std::f64::consts::TAU * i as f64 / n as f64 - std::f64::consts::FRAC_PI_2;
        let (x, y) = (radius * a.cos(), -radius * a.sin());
        let (node, fill) = match per_node {
            Some(pn) => {
                let k = g.id as usize / pn;
                (format!(" (node {k})"), if k.is_multiple_of(2) { "#c6e5b3" } else { "#cfd8ea" })
            }
            None => (String::new(), "#c6e5b3"),
        };
        let _ = writeln!(
            out,
            "  g{} [label=\"GPU {}{node}\\n{} blocks, ch {}\", fillcolor=\"{fill}\", pos=\"{:.2},{:.2}!\"];",
            g.id,
            g.id,
            g.tbs,
            esc(&ranges(&g.channels)),
            x,
            y
        );
    }
    let pairs = pairs(shown);
    let max = pairs.values().map(|cs| cs.iter().map(|c| c.chunks).sum::<u64>()).max().unwrap_or(1).max(1);
    // Label the arrows of sparse pictures (rings, trees); a dense one (all-pairs) reads
    // by its widths and colours.
    let labelled = pairs.len() <= 2 * n;
    for ((from, to), cs) in &pairs {
        let chans: Vec<u32> = cs.iter().map(|c| c.conn.chan).collect();
        let chunks: u64 = cs.iter().map(|c| c.chunks).sum();
        let width = 0.8 + 3.2 * chunks as f64 / max as f64;
        let label = if labelled {
            format!(", label=\"ch {}\\n{} chunks\"", esc(&ranges(&chans)), chunks)
        } else {
            String::new()
        };
        let _ = writeln!(out, "  g{from} -> g{to} [penwidth={width:.2}, color=\"{}\"{label}];", route_colour(cs[0]));
    }
    // A legend of the colours used.
    let mut used: BTreeMap<&'static str, String> = BTreeMap::new();
    for c in &shown.connections {
        let name = match &c.route {
            None => "connection".to_string(),
            Some(r) if r.across_nodes => "network (another node)".into(),
            Some(r) => format!("{} ({})", r.ty, r.transport),
        };
        used.entry(route_colour(c)).or_insert(name);
    }
    let rows: String = used
        .iter()
        .map(|(colour, name)| {
            format!(
                "<TR><TD><FONT COLOR=\"{colour}\">&#9472;&#9472;&#9654;</FONT></TD><TD ALIGN=\"LEFT\">{}</TD></TR>",
                name.replace('&', "&amp;").replace('<', "&lt;")
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "  legend [shape=plaintext, style=\"\", pos=\"{:.2},{:.2}!\", label=<<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"2\"><TR><TD COLSPAN=\"2\"><B>arrow: sender to receiver; width: chunks per loop</B></TD></TR>{rows}</TABLE>>];",
        radius + 2.4,
        -radius
    );
    out.push_str("}\n");
    out
}
