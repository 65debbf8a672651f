//! `topo algo show` as text and JSON (its Graphviz drawing is `render::dot::algo`).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::plural;
use super::term::Term;
use crate::algo::program::Program;
use crate::algo::show::{ConnShape, Shown};

/// GPU pairs listed in text before the rest are counted.
const PAIRS_SHOWN: usize = 24;

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
pub(crate) fn pairs(shown: &Shown) -> BTreeMap<(u32, u32), Vec<&ConnShape>> {
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
            plural(b.chunks as usize, "chunk", "chunks"),
            plural(b.messages, "message", "messages"),
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
