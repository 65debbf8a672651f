//! `topo log`: what an NCCL log says, per section, and how it compares with the model.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::log::compare::{Comparison, Finding, Severity};
use crate::log::{LogFacts, SystemPrint, VersionSource};
use crate::render::term::{Term, Tone, visible_len};

/// What the text and JSON reports hold besides the facts.
pub struct Report<'a> {
    pub name: &'a str,
    pub facts: &'a LogFacts,
    /// `--rank R`: only this rank's per-rank lines.
    pub rank: Option<u32>,
    /// The comparison with the model, or why there is none.
    pub model: Result<&'a Comparison, String>,
    pub unusual: &'a [Finding],
    pub verbose: bool,
}

fn fmt_bw(b: f64) -> String {
    format!("{b:.1}")
}

fn version_line(f: &LogFacts) -> String {
    match &f.nccl_version {
        None => "NCCL release unknown (no version line, formats too few to date it)".into(),
        Some(v) => {
            let cuda = v.cuda.as_ref().map(|c| format!("+cuda{c}")).unwrap_or_default();
            let how = match v.source {
                VersionSource::VersionLine => "version line".to_string(),
                VersionSource::TestsHeader => "nccl-tests header".to_string(),
                VersionSource::Formats => match &v.range {
                    Some((a, b)) if a != b => format!("dated from its formats: {a} to {b}"),
                    _ => "dated from its formats".to_string(),
                },
            };
            let mut s = format!("NCCL {}{}{cuda} ({how})", v.value, v.suffix.clone().unwrap_or_default());
            if !v.conflicts.is_empty() {
                let _ = write!(s, "; also printed: {}", v.conflicts.join(", "));
            }
            s
        }
    }
}

/// The system print as a tree, the way NCCL prints it; lines wrap under themselves.
fn system_text(s: &SystemPrint, term: &Term, out: &mut String) {
    let who = match (&s.host, s.rank) {
        (Some(h), Some(r)) => format!("rank {r} on {h}"),
        (Some(h), None) => h.clone(),
        (None, Some(r)) => format!("rank {r}"),
        _ => "one rank".into(),
    };
    let total = s.total_bw.map(|t| format!(", total {} GB/s", fmt_bw(t))).unwrap_or_default();
    let _ = writeln!(out, "{}", term.wrap(&format!("System ({who}): max {} GB/s{total}", fmt_bw(s.max_bw)), "  "));
    let mut kids: BTreeMap<usize, Vec<(usize, &str, f64, bool)>> = BTreeMap::new();
    let mut has_parent = vec![false; s.nodes.len()];
    for l in &s.links {
        let tree = matches!(l.kind.as_str(), "PCI" | "NET") && !has_parent[l.to];
        if tree {
            has_parent[l.to] = true;
        }
        kids.entry(l.from).or_default().push((l.to, &l.kind, l.bw, tree));
    }
    let label = |i: usize| {
        let n = &s.nodes[i];
        let mut t = n.id.clone();
        if let Some(r) = n.rank {
            let _ = write!(t, " (rank {r})");
        }
        if let Some(a) = &n.net {
            let _ = write!(t, " ({} GB/s, port {})", fmt_bw(a.bw), a.port);
        }
        t
    };
    fn rec(
        i: usize,
        depth: usize,
        kids: &BTreeMap<usize, Vec<(usize, &str, f64, bool)>>,
        label: &dyn Fn(usize) -> String,
        term: &Term,
        out: &mut String,
    ) {
        for &(c, kind, bw, tree) in kids.get(&i).into_iter().flatten() {
            let line = format!("{}+ {kind}[{}] - {}", "  ".repeat(depth), fmt_bw(bw), label(c));
            let _ = writeln!(out, "{}", term.wrap_more(&line, 4));
            if tree && depth < 64 {
                rec(c, depth + 1, kids, label, term, out);
            }
        }
    }
    for i in (0..s.nodes.len()).filter(|&i| !has_parent[i] && s.nodes[i].kind == "CPU") {
        let _ = writeln!(out, "{}", term.wrap_more(&format!("  {}", label(i)), 4));
        rec(i, 2, &kids, &label, term, out);
    }
    if s.truncated {
        let _ = writeln!(out, "  (the print ends early: the log is cut here)");
    }
    if s.tree_guessed {
        let _ = writeln!(out, "  (indentation lost: who hangs under whom is guessed)");
    }
}

fn in_rank(rank: Option<u32>, r: Option<u32>) -> bool {
    rank.is_none() || r.is_none() || rank == r
}

/// Channel numbers as ranges: `0-3, 8`.
pub(crate) fn ranges(mut v: Vec<u32>) -> String {
    v.sort_unstable();
    v.dedup();
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
    out.join(", ")
}

/// A finding: `!` for a warning (yellow when colours are on), `-` for a note; what the
/// model says and why, wrapped under their labels.
fn finding_text(f: &Finding, term: &Term, out: &mut String) {
    let mark = if f.severity == Severity::Warning { term.paint("!", Tone::Warn) } else { "-".to_string() };
    let ch = f.channel.map(|c| format!(" channel {c}")).unwrap_or_default();
    let _ = writeln!(out, "{}", term.wrap(&format!("  {mark} [{}]{ch} {}", f.kind, f.log), "      "));
    let under = " ".repeat(13);
    if !f.model.is_empty() {
        let _ = writeln!(out, "{}", term.wrap(&format!("      model: {}", f.model), &under));
    }
    if !f.cause.is_empty() {
        let _ = writeln!(out, "{}", term.wrap(&format!("      why:   {}", f.cause), &under));
    }
}

/// The text report, as wide as it takes.
pub fn text(r: &Report) -> String {
    text_with(r, &Term::default())
}

/// Spaces as wide as `head`: the indent of the lines that go on after it.
fn under(head: &str) -> String {
    " ".repeat(visible_len(head))
}

/// The text report, laid out as `term` says: lines wrap at the width (lists of ranks,
/// devices, trees and connections between their items, under their label); warnings in
/// yellow, a model that agrees with the log in green, when colours are on.
pub fn text_with(r: &Report, term: &Term) -> String {
    let f = r.facts;
    let mut out = String::new();
    let l = &f.lines;
    let _ = writeln!(out, "{}", term.wrap(&format!("NCCL log {}: {}", r.name, version_line(f)), "  "));
    let counts = format!(
        "  {} lines, {} NCCL records: {} read, {} known and not needed, {} unknown, {} cut by other output, {} truncated",
        l.physical, l.records, l.read, l.skipped_known, l.unknown, l.cut, l.truncated
    );
    let _ = writeln!(out, "{}", term.wrap(&counts, "    "));
    if r.verbose && !l.unknown_by_word.is_empty() {
        let words: Vec<String> = l.unknown_by_word.iter().map(|(w, n)| format!("{w} {n}")).collect();
        let _ = writeln!(out, "{}", term.wrap_items("  unknown records by first word: ", &words, ", ", "    "));
    }
    for w in &f.warnings {
        let _ = writeln!(out, "{}", term.wrap(&format!("  {}: {w}", term.paint("warning", Tone::Warn)), "    "));
    }
    if f.dialect == crate::log::Dialect::Rccl {
        let rccl = "RCCL log: dialect not read yet (RCCL is AMD's fork; its lines differ from NCCL's).";
        let _ = writeln!(out, "\n{}", term.wrap(rccl, "  "));
        return out;
    }
    for (i, c) in f.comms.iter().enumerate() {
        let nodes = c.nnodes.map(|n| format!(" on {n} node{}", if n == 1 { "" } else { "s" })).unwrap_or_default();
        let id = c.id.as_ref().map(|x| format!(" {x}")).unwrap_or_default();
        let func = c.func.as_ref().map(|x| format!(" ({x})")).unwrap_or_default();
        let primary = if c.primary && f.comms.len() > 1 { "  <- this report" } else { "" };
        let line = format!("  communicator {i}{id}: {} ranks{nodes}{func}{primary}", c.nranks);
        let _ = writeln!(out, "{}", term.wrap(&line, "    "));
    }
    if let Some(line) = mnnvl_line(f) {
        let _ = writeln!(out, "{}", term.wrap(&line, "    "));
    }

    let primary = f.primary();
    let ranks: Vec<_> = f.ranks.iter().filter(|x| Some(x.comm) == primary && in_rank(r.rank, Some(x.rank))).collect();
    if !ranks.is_empty() {
        let _ = writeln!(out, "\nRanks\n  rank  host                  pid       bus id        cuda  nvml");
        for x in ranks {
            let o = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
            let line = format!(
                "  {:<5} {:<21} {:<9} {:<13} {:<5} {}",
                x.rank,
                x.host.as_deref().unwrap_or("-"),
                o(x.pid),
                x.bus_id.as_deref().unwrap_or("-"),
                o(x.cuda_dev),
                o(x.nvml_dev)
            );
            let _ = writeln!(out, "{}", term.wrap(&line, "        "));
        }
    }
    for s in &f.systems {
        out.push('\n');
        system_text(s, term, &mut out);
    }
    let nets: Vec<_> = f.nets.iter().collect();
    if !nets.is_empty() {
        let _ = writeln!(out, "\nNetwork");
        for u in nets {
            let devs: Vec<String> = u
                .devices
                .iter()
                .map(|d| format!("[{}] {}{}", d.index, d.name, d.port.map(|p| format!(":{p}")).unwrap_or_default()))
                .collect();
            let head = format!("  {} {}: ", u.host.as_deref().unwrap_or("-"), u.kind);
            let _ = writeln!(out, "{}", term.wrap_items(&head, &devs, " ", "    "));
        }
    }
    let graphs: Vec<_> = f.graphs.iter().filter(|g| in_rank(r.rank, g.rank)).collect();
    if !graphs.is_empty() {
        let _ = writeln!(out, "\nGraphs");
        let mut last = None;
        for g in graphs {
            if last != Some((g.rank, g.host.clone())) {
                let who = g.rank.map(|x| format!("rank {x}")).unwrap_or_else(|| "a rank".into());
                let host = g.host.as_ref().map(|h| format!(" on {h}")).unwrap_or_default();
                let _ = writeln!(out, "{}", term.wrap(&format!("  printed by {who}{host}"), "    "));
                last = Some((g.rank, g.host.clone()));
            }
            let line = format!(
                "    Pattern {}, crossNic {}, nChannels {}, bw {}/{}, type {}/{}, sameChannels {}",
                g.pattern,
                g.crossnic,
                g.nchannels,
                fmt_bw(g.bw_intra),
                fmt_bw(g.bw_inter),
                g.type_intra,
                g.type_inter,
                g.same_channels
            );
            let _ = writeln!(out, "{}", term.wrap(&line, "      "));
            for ch in &g.channels {
                let gpus: Vec<String> = ch.gpus.iter().map(|x| x.to_string()).collect();
                let line = format!(
                    "      {:>2} : {}{}{}",
                    ch.channel,
                    ch.net_in.as_ref().map(|n| format!("NET/{n} ")).unwrap_or_default(),
                    gpus.join(" "),
                    ch.net_out.as_ref().map(|n| format!(" NET/{n}")).unwrap_or_default()
                );
                let _ = writeln!(out, "{}", term.wrap_hanging(&line));
            }
        }
    }
    // Ring orders: distinct orders with their channels.
    let mut orders: BTreeMap<Vec<i64>, Vec<u32>> = BTreeMap::new();
    let mut cut = false;
    for x in f.rings.iter().filter(|x| x.comm.is_none() || x.comm == primary) {
        orders.entry(x.order.clone()).or_default().push(x.channel);
        cut |= x.truncated;
    }
    if !orders.is_empty() {
        let _ = writeln!(out, "\nRings (rank 0's orders{})", if cut { "; cut after 20 ranks or at '...'" } else { "" });
        for (order, chans) in &orders {
            let o: Vec<String> = order.iter().map(|x| x.to_string()).collect();
            let _ = writeln!(
                out,
                "{}",
                term.wrap_hanging(&format!("  channels {}: {}", ranges(chans.clone()), o.join(" ")))
            );
        }
    }
    let trees: Vec<_> = f
        .trees
        .iter()
        .filter(|t| (t.comm.is_none() || t.comm == primary) && in_rank(r.rank, Some(t.rank)))
        .filter(|t| t.source == crate::log::TreeSource::Trees)
        .collect();
    if !trees.is_empty() {
        let _ = writeln!(out, "\nTrees (children -> rank -> parent)");
        let mut by_rank: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for t in trees {
            by_rank
                .entry(t.rank)
                .or_default()
                .push(format!("[{}] {}/{}/{}->{}->{}", t.channel, t.down[0], t.down[1], t.down[2], t.rank, t.up));
        }
        for (rank, items) in by_rank {
            let head = format!("  rank {rank}: ");
            let _ = writeln!(out, "{}", term.wrap_items(&head, &items, " ", &under(&head)));
        }
    }
    if !f.nvls_heads.is_empty() {
        let _ = writeln!(out, "\nNVLS heads");
        for h in &f.nvls_heads {
            let v: Vec<String> = h.heads.iter().map(|x| x.to_string()).collect();
            let _ = writeln!(out, "{}", term.wrap_hanging(&format!("  channel {}: {}", h.channel, v.join(" "))));
        }
    }
    let conns: Vec<_> = f
        .connections
        .iter()
        .filter(|x| {
            (x.comm.is_none() || x.comm == primary)
                && (r.rank.is_none()
                    || r.rank.map(|q| q as i64) == Some(x.from)
                    || r.rank.map(|q| q as i64) == Some(x.to))
        })
        .collect();
    if !conns.is_empty() {
        let _ = writeln!(out, "\nConnections (transport: sender -> receiver, channels)");
        let mut groups: BTreeMap<(String, i64, i64), Vec<u32>> = BTreeMap::new();
        for x in conns {
            let mut t = format!("{}/{}", x.transport, x.mode);
            if x.read {
                t.push_str("/read");
            }
            if x.gdr {
                t.push_str("/GDRDMA");
            }
            groups.entry((t, x.from, x.to)).or_default().push(x.channel);
        }
        let mut by_t: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for ((t, a, b), ch) in groups {
            by_t.entry(t).or_default().push(format!("{a}->{b} [{}]", ranges(ch)));
        }
        for (t, v) in by_t {
            let head = format!("  {t}: ");
            let _ = writeln!(out, "{}", term.wrap_items(&head, &v, ", ", &under(&head)));
        }
    }
    if let Some(c) = f.channel_counts.iter().find(|c| c.comm.is_none() || c.comm == primary) {
        let line = format!(
            "Channels: {} coll{}{}, {} p2p, {} p2p per peer",
            c.coll,
            c.collnet.map(|n| format!(", {n} collnet")).unwrap_or_default(),
            c.nvls.map(|n| format!(", {n} nvls")).unwrap_or_default(),
            c.p2p,
            c.p2p_per_peer
        );
        let _ = writeln!(out, "\n{}", term.wrap(&line, "  "));
    }
    if !f.env.is_empty() {
        let _ = writeln!(out, "\nEnvironment");
        let mut seen = BTreeSet::new();
        for e in &f.env {
            if seen.insert((e.name.clone(), e.value.clone())) {
                let _ = writeln!(out, "{}", term.wrap(&format!("  {}={}", e.name, e.value), "    "));
            }
        }
    }
    if let Some(t) = &f.tuning {
        let line = format!("Tuning table: {} cells (latency us / bandwidth GB/s)", t.rows.len());
        let _ = writeln!(out, "\n{}", term.wrap(&line, "  "));
    }
    if !r.unusual.is_empty() {
        let _ = writeln!(out, "\nWhat is unusual");
        for u in r.unusual {
            finding_text(u, term, &mut out);
        }
    }
    out.push('\n');
    match &r.model {
        Err(why) => {
            let _ = writeln!(out, "{}", term.wrap(&format!("Model: not run ({why})"), "  "));
        }
        Ok(c) => {
            let line = format!(
                "Model: NCCL {}, {} node{}, machine {}{}",
                c.release,
                c.nodes,
                if c.nodes == 1 { "" } else { "s" },
                c.machine,
                if c.p2p_support { "" } else { ", no P2P between local GPUs" }
            );
            let _ = writeln!(out, "{}", term.wrap(&line, "  "));
            if !c.env.is_empty() {
                let env: Vec<String> = c.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = writeln!(out, "{}", term.wrap_items("  with the log's settings: ", &env, " ", "    "));
            }
            let checked: Vec<String> = c.checked.iter().map(|(k, n)| format!("{n} {k}")).collect();
            let total: usize = c.checked.values().sum();
            let differ = c.findings.iter().filter(|x| x.severity == Severity::Warning).count();
            let line = if total == 0 && differ == 0 {
                "  nothing to compare: the log prints no graph, path, ring, tree or connection of this communicator"
                    .to_string()
            } else if differ == 0 {
                format!(
                    "  {} on every fact compared ({total}: {})",
                    term.paint("agrees with the log", Tone::Good),
                    checked.join(", ")
                )
            } else {
                let differences = format!("{differ} difference{}", if differ == 1 { "" } else { "s" });
                format!(
                    "  {} in {total} facts compared ({}):",
                    term.paint(&differences, Tone::Warn),
                    checked.join(", ")
                )
            };
            let _ = writeln!(out, "{}", term.wrap(&line, "    "));
            for x in &c.findings {
                finding_text(x, term, &mut out);
            }
            if !c.assumed.is_empty() {
                let _ = writeln!(out, "  the rebuilt machine assumes:");
                for a in &c.assumed {
                    let _ = writeln!(out, "{}", term.wrap(&format!("    {a}"), "      "));
                }
            }
        }
    }
    if !f.perf.is_empty() {
        let model = r.model.as_ref().map(|c| c.perf.as_slice()).map_err(String::as_str);
        out.push_str(&crate::render::perf::text(&f.perf, model, term));
    }
    out
}

/// The JSON report (schema: [`crate::log::SCHEMA`]).
pub fn json(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r.facts).unwrap_or_default();
    let f = r.facts;
    if let Some(o) = v.as_object_mut() {
        o.insert("schema".into(), crate::log::SCHEMA.into());
        let system = crate::log::compare::chosen_print(f).or(f.systems.first());
        o.insert("system".into(), serde_json::to_value(system).unwrap_or_default());
        o.insert("unusual".into(), serde_json::to_value(r.unusual).unwrap_or_default());
        let (model, findings) = match &r.model {
            Ok(c) => {
                (serde_json::to_value(c).unwrap_or_default(), serde_json::to_value(&c.findings).unwrap_or_default())
            }
            Err(why) => (serde_json::json!({ "not_run": why }), serde_json::json!([])),
        };
        o.insert("model".into(), model);
        o.insert("findings".into(), findings);
        if let Some(rank) = r.rank {
            for key in ["graphs", "trees", "ring_links"] {
                if let Some(a) = o.get_mut(key).and_then(|x| x.as_array_mut()) {
                    a.retain(|e| e.get("rank").and_then(|x| x.as_u64()).is_none_or(|x| x == rank as u64));
                }
            }
        }
    }
    v
}

/// One line on multi-node NVLink, when the log speaks of it: the registrations read
/// (by fabric state) and the clique NCCL formed.
fn mnnvl_line(f: &crate::log::LogFacts) -> Option<String> {
    if f.fabric.is_empty() && f.cliques.is_empty() && f.racks.is_empty() {
        return None;
    }
    const STATES: [&str; 4] = ["not supported", "not started", "in progress", "completed"];
    let mut by_state: std::collections::BTreeMap<u32, usize> = Default::default();
    for x in &f.fabric {
        *by_state.entry(x.state).or_default() += 1;
    }
    let states: Vec<String> = by_state
        .iter()
        .map(|(s, n)| format!("{n} {}", STATES.get(*s as usize).copied().unwrap_or("in an unknown state")))
        .collect();
    let mut parts = Vec::new();
    if !states.is_empty() {
        let cliques: std::collections::BTreeSet<(&str, u32)> =
            f.fabric.iter().map(|x| (x.cluster_uuid.as_str(), x.clique_id)).collect();
        let where_ = match cliques.iter().next() {
            Some((u, c)) if cliques.len() == 1 => format!(" (cluster {u}, clique {c:#x})"),
            _ => format!(" ({} clusters/cliques)", cliques.len()),
        };
        parts.push(format!("fabric registrations {}{where_}", states.join(", ")));
    }
    let racks = f.racks_by_serial();
    if !racks.is_empty() {
        let each: Vec<String> =
            racks.iter().map(|(s, t)| format!("{s} ({t} tray{})", if *t == 1 { "" } else { "s" })).collect();
        parts.push(format!("cliques by rack serial (NCCL_MNNVL_CLIQUE_ID=-2): {}", each.join(", ")));
    }
    match f.cliques.iter().find(|c| c.mnnvl) {
        Some(c) => parts.push(format!(
            "on, clique {:#x} of {} ranks{}",
            c.clique_id,
            c.clique_size,
            c.nvl_domain_size.map(|d| format!(", NVLink domain of {d}")).unwrap_or_default()
        )),
        None if f.comms.iter().any(|c| c.mnnvl == Some(true)) => parts.push("on".into()),
        None => parts.push("off".into()),
    }
    Some(format!("  multi-node NVLink (MNNVL): {}", parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{Connection, EnvSetting, NetDevice, NetUse, RingOrder, TreeLink, TreeSource};
    use crate::render::term::check::{coloured, fits, same_text};

    /// The facts of a log of 64 ranks on hosts with 32 NICs: long ring orders, trees,
    /// device lists and connection lists.
    fn big_log() -> LogFacts {
        let mut f = LogFacts::default();
        f.warnings.push("the log ends in the middle of a record: the last line is cut and is not read".into());
        f.nets.push(NetUse {
            host: Some("a-rather-long-host-name-0042".into()),
            kind: "IB".into(),
            devices: (0..32)
                .map(|i| NetDevice { index: i, name: format!("rdmap{}s0", 79 + i), port: Some(1), link: None })
                .collect(),
            oob: None,
        });
        for c in 0..4 {
            let order = (0..64).map(|r| (r * (c + 1)) % 64).collect();
            f.rings.push(RingOrder { channel: c as u32, nchannels: 4, order, ..RingOrder::default() });
        }
        for c in 0..32 {
            f.trees.push(TreeLink {
                comm: None,
                rank: 0,
                channel: c,
                up: -1,
                down: [1, 8, -1],
                dn_up: None,
                dn_down: None,
                source: TreeSource::Trees,
            });
        }
        for r in 0..63 {
            let c = Connection {
                from: r,
                to: r + 1,
                transport: "P2P".into(),
                mode: "CUMEM".into(),
                read: true,
                ..Connection::default()
            };
            f.connections.push(c);
        }
        f.env.push(EnvSetting {
            name: "NCCL_TOPO_FILE".into(),
            value: "/a/very/long/path/to/a/folder/of/topology/files/for/this/cluster/node-0042.xml".into(),
            source: "environment".into(),
            host: None,
        });
        f
    }

    #[test]
    fn text_fits_the_width() {
        let facts = big_log();
        let unusual = [Finding {
            kind: "gdr_disabled".into(),
            severity: Severity::Warning,
            ranks: vec![0],
            channel: Some(3),
            log: "GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module or not supported by GPU)".into(),
            model: String::new(),
            cause: "the nvidia-peermem module is not loaded, or the GPU and the NIC are not under one PCIe switch"
                .into(),
        }];
        let report = |rank| Report {
            name: "/a/long/path/to/logs/of/a/job/nccl-debug-node0042.log",
            facts: &facts,
            rank,
            model: Err("--no-model".into()),
            unusual: &unusual,
            verbose: false,
        };
        let whole = text(&report(None));
        assert!(whole.lines().any(|l| l.len() > 150), "nothing to wrap:\n{whole}");
        for width in [60, 80, 100] {
            let t = text_with(&report(None), &Term { width: Some(width), color: false });
            fits(&t, width, "log");
            same_text(&whole, &t, "log");
        }
        assert!(!coloured(&whole));
        assert!(coloured(&text_with(&report(None), &Term { width: None, color: true })), "warnings in yellow");
    }
}
