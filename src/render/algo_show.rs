//! `topo algo show` as text, JSON and a Graphviz drawing.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::term::Term;
use crate::algo::program::Program;
use crate::algo::show::{ConnShape, Shown};

/// GPU pairs listed in text before the rest are counted.
const PAIRS_SHOWN: usize = 24;

fn plural(n: u64, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// `0-3,8,10-11` for a sorted list.
pub fn ranges(v: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if j > i { format!("{}-{}", v[i], v[j]) } else { v[i].to_string() });
        i = j + 1;
    }
    if out.is_empty() { "-".into() } else { out.join(",") }
}

/// Connections grouped by ordered GPU pair.
fn pairs(shown: &Shown) -> BTreeMap<(u32, u32), Vec<&ConnShape>> {
    let mut m: BTreeMap<(u32, u32), Vec<&ConnShape>> = BTreeMap::new();
    for c in &shown.connections {
        m.entry((c.conn.from, c.conn.to)).or_default().push(c);
    }
    m
}

fn route_text(c: &ConnShape) -> String {
    match &c.route {
        Some(r) if r.across_nodes => format!("NET (another node) {:.1} GB/s", r.bw),
        Some(r) => format!("{} {:.1} GB/s {}", r.ty, r.bw, r.transport),
        None => String::new(),
    }
}

pub fn show_text(file: &str, p: &Program, shown: &Shown, term: &Term) -> String {
    let h = &p.header;
    let mut out = String::new();
    let modes: Vec<String> = h.modes().iter().map(ToString::to_string).collect();
    let head = format!(
        "{file}: {} {}, {} GPUs, {} channels, {} chunks per loop, {}",
        h.coll,
        h.proto,
        h.ngpus,
        h.nchannels,
        h.chunks_per_loop,
        if modes.is_empty() { "no mode".into() } else { modes.join(" and ") }
    );
    out.push_str(&term.wrap_more(&head, 2));
    out.push('\n');
    let mut t = term.table();
    t.set_header(vec!["GPU", "blocks", "channels", "sends to", "receives from", "steps", "by type", "chunks i/o/s"]);
    for g in &shown.gpus {
        let kinds: Vec<String> = g.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        t.add_row(vec![
            g.id.to_string(),
            g.tbs.to_string(),
            ranges(&g.channels),
            ranges(&g.send_peers),
            ranges(&g.recv_peers),
            g.steps.to_string(),
            kinds.join(", "),
            format!("{}/{}/{}", g.input_chunks, g.output_chunks, g.scratch_chunks),
        ]);
    }
    out.push_str(&super::term::trim_lines(&t.to_string()));
    out.push('\n');
    let _ = writeln!(out, "{} connections", shown.connections.len());
    if let Some(b) = shown.busiest.map(|i| &shown.connections[i]) {
        let line = format!(
            "busiest connection: {}: {} per loop in {} (tb {} -> tb {}){}",
            b.conn,
            plural(b.chunks, "chunk"),
            plural(b.messages as u64, "message"),
            ranges(&b.send_tbs),
            ranges(&b.recv_tbs),
            if b.route.is_some() { format!(", over {}", route_text(b)) } else { String::new() }
        );
        out.push_str(&term.wrap_more(&line, 2));
        out.push('\n');
    }
    if let Some((label, per_node, nodes)) = &shown.machine {
        let _ = writeln!(
            out,
            "\non {label} ({per_node} GPUs per node, {nodes} node{}; program GPU i is rank i):",
            if *nodes == 1 { "" } else { "s" }
        );
        let mut by_route: BTreeMap<String, (usize, u64)> = BTreeMap::new();
        for c in &shown.connections {
            let e = by_route.entry(route_text(c)).or_default();
            e.0 += 1;
            e.1 += c.chunks;
        }
        for (r, (n, chunks)) in &by_route {
            let _ = writeln!(out, "  {r}: {n} connections, {chunks} chunks per loop");
        }
        let shm = shown.connections.iter().filter(|c| c.route.as_ref().is_some_and(|r| r.transport == "SHM")).count();
        let net = shown.connections.iter().filter(|c| c.route.as_ref().is_some_and(|r| r.transport == "NET")).count();
        let _ = writeln!(
            out,
            "  through the CPU (SHM): {}; over the network: {}",
            if shm == 0 { "none".into() } else { shm.to_string() },
            if net == 0 { "none".into() } else { net.to_string() }
        );
    }
    let pairs = pairs(shown);
    let _ = writeln!(
        out,
        "\nGPU pairs (from -> to: channels, chunks per loop{}):",
        if shown.machine.is_some() { ", path" } else { "" }
    );
    for ((from, to), cs) in pairs.iter().take(PAIRS_SHOWN) {
        let chans: Vec<u32> = cs.iter().map(|c| c.conn.chan).collect();
        let chunks: u64 = cs.iter().map(|c| c.chunks).sum();
        let line = format!("  {from} -> {to}: channels {}, {chunks} chunks  {}", ranges(&chans), route_text(cs[0]));
        out.push_str(&term.wrap_more(line.trim_end(), 4));
        out.push('\n');
    }
    if pairs.len() > PAIRS_SHOWN {
        let _ = writeln!(out, "  ... {} more pairs (--json lists every connection)", pairs.len() - PAIRS_SHOWN);
    }
    out
}

pub fn show_json(file: &str, p: &Program, shown: &Shown) -> String {
    let h = &p.header;
    let v = serde_json::json!({
        "schema": "topo.algo.show/1",
        "file": file,
        "program": {
            "name": h.name, "coll": h.coll, "proto": h.proto, "ngpus": h.ngpus, "nchannels": h.nchannels,
            "chunks_per_loop": h.chunks_per_loop, "modes": h.modes(), "min_bytes": h.min_bytes, "max_bytes": h.max_bytes,
        },
        "machine": shown.machine.as_ref().map(|(l, g, n)| serde_json::json!({"label": l, "gpus_per_node": g, "nodes": n})),
        "gpus": shown.gpus,
        "connections": shown.connections,
        "busiest": shown.busiest.map(|i| &shown.connections[i]),
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

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
pub fn show_dot(file: &str, p: &Program, shown: &Shown) -> String {
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
