//! `topo search`: each graph as NCCL prints it (`ncclTopoPrintGraph`'s summary line) with
//! a table of its channels, then the channels NCCL finally runs with its own log lines;
//! the JSON form; the Graphviz drawings of the channels (one small diagram per distinct
//! channel, or one channel over the machine); and the cost
//! report of graphs loaded from a graph file.

use std::fmt::Write;

use comfy_table::{Cell, CellAlignment};

use crate::model::system::System;
use crate::model::{Analysis, NodeType};
use crate::render::term::{Term, Tone, new_table, wrap_items};

use crate::search::channels::Run;
use crate::search::cost::Cost;
use crate::search::{Graph, Graphs};

/// A graph `--graph` can pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphSel {
    Ring,
    Tree,
    Nvls,
    CollnetChain,
    CollnetDirect,
    All,
}

/// The graphs picked, in NCCL's computing order.
pub fn selected<'a>(gs: &'a Graphs, sel: &[GraphSel]) -> Vec<&'a Graph> {
    let all = sel.is_empty() || sel.contains(&GraphSel::All);
    let want = |s: GraphSel| all || sel.contains(&s);
    let mut out = Vec::new();
    for (s, g) in [
        (GraphSel::Ring, &gs.ring),
        (GraphSel::Tree, &gs.tree),
        (GraphSel::CollnetChain, &gs.collnet_chain),
        (GraphSel::CollnetDirect, &gs.collnet_direct),
        (GraphSel::Nvls, &gs.nvls),
    ] {
        if want(s) {
            out.push(g);
        }
    }
    out
}

/// Why NCCL has no channels in a graph.
fn absent_reason(an: &Analysis, g: &Graph) -> &'static str {
    let sys = &an.system;
    match g.id.number() {
        2 | 4 if !an.options.collnet => "CollNet is off (--collnet turns it on)",
        3 if !an.options.nvls => "NVLS is off (--no-nvls)",
        3 if an.options.env.search.nvls_enable == 0 => "NVLS is off (NCCL_NVLS_ENABLE=0)",
        3 if sys.count(NodeType::Nvs) == 0 => "no NVSwitch",
        3 if crate::search::cc_min(sys) < 90 => "NVLS needs sm90 or later",
        3 if sys.count(NodeType::Gpu) < 2 => "a single GPU",
        _ if g.computed => "the search found no channel",
        _ => "not computed",
    }
}

/// `GPU rank (bus id)` for a rank.
fn gpu_cell(sys: &System, rank: i32) -> String {
    let bus = sys
        .gpu_by_rank(rank)
        .and_then(|g| sys.list(NodeType::Gpu)[g].busid.clone())
        .map(|b| b.strip_prefix("0000:").map(str::to_string).unwrap_or(b))
        .unwrap_or_else(|| "?".into());
    format!("{rank} {bus}")
}

/// `NET/dev name`; a NET of another tray of a fused multi-node NVLink system carries
/// its tray (`NET/0@t1 mlx5_0`).
fn net_cell(sys: &System, id: i64) -> String {
    match sys.find(NodeType::Net, id) {
        Some(n) => {
            let x = sys.list(NodeType::Net)[n].net();
            let tray = match crate::model::system::id_system(id) {
                0 => String::new(),
                h => format!("@t{h}"),
            };
            format!("NET/{}{tray} {}", x.map_or(-1, |x| x.dev), x.map_or("", |x| x.name.as_str()))
        }
        None => format!("NET {id:#x}?"),
    }
}

/// One graph: the summary line and its channels. With a width, each channel's GPUs
/// wrap inside their column.
fn graph_text(an: &Analysis, g: &Graph, term: &Term, out: &mut String) {
    let sys = &an.system;
    let from = if g.from_file { " (loaded from the graph file)" } else { "" };
    let _ = writeln!(out, "{} graph{from}", g.name());
    if !g.computed || g.n_channels == 0 {
        let why = absent_reason(an, g);
        let why = if g.computed { term.paint(why, Tone::Warn) } else { why.to_string() };
        let _ = writeln!(out, "{}\n", term.wrap(&format!("  none: {why}"), "        "));
        return;
    }
    let _ = writeln!(out, "{}", term.wrap(&format!("  {}", g.summary()), "    "));
    let n = sys.count(NodeType::Gpu);
    let nvls = g.pattern == crate::search::Pattern::Nvls;
    // Each channel: its NET in, its GPUs, its NET out.
    let rows: Vec<(String, Vec<String>, String)> = (0..g.n_channels as usize)
        .map(|c| {
            let ranks = &g.intra[c * n..(c + 1) * n];
            let gpus = ranks[..if nvls { 1 } else { n }].iter().map(|&r| gpu_cell(sys, r)).collect();
            let (nin, nout) = if sys.inter {
                (net_cell(sys, g.inter_number(c * 2)), net_cell(sys, g.inter_number(c * 2 + 1)))
            } else {
                Default::default()
            };
            (nin, gpus, nout)
        })
        .collect();
    let gpus_title = if nvls { "HEAD GPU" } else { "GPUS (rank bus)" };
    // The GPUs' room: the width less the table's indent and the other columns, each its
    // longest text and a space either side.
    let room = term.width.map(|w| {
        let longest =
            |title: &str, texts: &mut dyn Iterator<Item = usize>| texts.chain([title.len()]).max().unwrap_or(0) + 2;
        let mut others = 2 + longest("CH", &mut std::iter::once((g.n_channels as usize - 1).to_string().len())) + 2;
        if sys.inter {
            others += longest("NET IN", &mut rows.iter().map(|r| r.0.len()));
            others += longest("NET OUT", &mut rows.iter().map(|r| r.2.len()));
        }
        w.saturating_sub(others).max(gpus_title.len())
    });
    let mut t = new_table();
    let mut header = vec![Cell::new("CH")];
    if sys.inter {
        header.push(Cell::new("NET IN"));
    }
    header.push(Cell::new(gpus_title));
    if sys.inter {
        header.push(Cell::new("NET OUT"));
    }
    t.set_header(header);
    for (c, (nin, gpus, nout)) in rows.iter().enumerate() {
        let mut row = vec![Cell::new(c).set_alignment(CellAlignment::Right)];
        if sys.inter {
            row.push(Cell::new(nin));
        }
        let gpus = wrap_items("", gpus, "  ", room, "");
        // NET OUT beside the last GPUs: the ring leaves the node after them.
        let below = gpus.lines().count().saturating_sub(1);
        row.push(Cell::new(gpus));
        if sys.inter {
            row.push(Cell::new(format!("{}{nout}", "\n".repeat(below))));
        }
        t.add_row(row);
    }
    for line in t.to_string().lines() {
        let _ = writeln!(out, "  {}", line.trim_end());
    }
    out.push('\n');
}

/// The "Channels NCCL runs" section. With a width, NCCL's log lines wrap: ring orders
/// under their first rank, trees between channels.
fn run_text(run: &Run, rank: usize, term: &Term, out: &mut String) {
    let title = format!(
        "Channels NCCL runs ({} node(s) x {} GPUs = {} ranks): nChannels {}",
        run.nodes, run.local_ranks, run.n_ranks, run.n_channels
    );
    let _ = writeln!(out, "{}", term.wrap(&title, "  "));
    for s in &run.steps {
        let _ = writeln!(out, "{}", term.wrap(&format!("  {:>3}  {}", s.n_channels, s.what), "       "));
    }
    if run.cross_nic_swap {
        let _ = writeln!(out, "  odd nodes swap channel pairs (their rings cross NICs)");
    }
    for n in &run.notes {
        let _ = writeln!(out, "{}", term.wrap_hanging(&format!("  note: {n}")));
    }
    let _ = writeln!(out, "\n  Rings, as rank 0 logs them:");
    for l in run.channel_lines() {
        let _ = writeln!(out, "{}", term.wrap_hanging(&format!("    {l}")));
    }
    let _ = writeln!(out, "\n  Rank {rank}'s log lines:");
    for l in run.ring_lines(rank) {
        let _ = writeln!(out, "{}", term.wrap_hanging(&format!("    {l}")));
    }
    let _ = writeln!(out, "{}", trees_line(&run.trees_line(rank), term));
    for l in run.tree_lines(rank) {
        let _ = writeln!(out, "{}", term.wrap_hanging(&format!("    {l}")));
    }
}

/// NCCL's `Trees [0] a/b/c->r->p [1] ...` line, broken only between channels.
fn trees_line(line: &str, term: &Term) -> String {
    let Some(rest) = line.strip_prefix("Trees ") else { return term.wrap_more(&format!("    {line}"), 6) };
    let mut parts = rest.split(" [");
    let items: Vec<String> =
        parts.next().map(str::to_string).into_iter().chain(parts.map(|p| format!("[{p}"))).collect();
    term.wrap_items("    Trees ", &items, " ", "          ")
}

/// The cost of the graphs loaded from a graph file: tables fitted to the width, the
/// oversubscribed links in red when colours are on.
pub fn cost_text(file: &str, costs: &[Cost], term: &Term, out: &mut String) {
    let title =
        format!("What the graphs of {file} cost (each channel's paths replayed over the links, one graph at a time):");
    let _ = writeln!(out, "{}", term.wrap(&title, "  "));
    let f = |v: Option<f32>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    // The tables are indented by four.
    let inner = Term { width: term.width.map(|w| w.saturating_sub(4)), ..*term };
    for cost in costs {
        let _ = writeln!(out, "\n  {} graph", cost.graph);
        let mut t = inner.table();
        t.set_header(vec!["CH", "ASKS intra/inter", "GETS intra/inter", "LIMITED BY"]);
        for c in &cost.channels {
            t.add_row(vec![
                Cell::new(c.channel).set_alignment(CellAlignment::Right),
                Cell::new(format!("{:.1}/{:.1}", c.bw_intra, c.bw_inter)),
                Cell::new(format!("{}/{}", f(c.got_intra), f(c.got_inter))),
                Cell::new(c.bottleneck.as_deref().unwrap_or("")),
            ]);
        }
        for line in t.to_string().lines() {
            let _ = writeln!(out, "    {}", line.trim_end());
        }
        let over: Vec<_> = cost.oversubscribed().collect();
        if over.is_empty() {
            let _ = writeln!(out, "    {}", term.paint("No link is oversubscribed.", Tone::Good));
            continue;
        }
        let _ = writeln!(out, "    {}", term.paint("Oversubscribed links (GB/s):", Tone::Bad));
        let mut t = inner.table();
        t.set_header(vec!["LINK", "CAPACITY", "DEMAND", "CHANNELS"]);
        for l in over {
            let demand = Cell::new(format!("{:.1}", l.demand)).set_alignment(CellAlignment::Right);
            t.add_row(vec![
                Cell::new(&l.link),
                Cell::new(format!("{:.1}", l.capacity)).set_alignment(CellAlignment::Right),
                if term.color { demand.fg(Tone::Bad.color()) } else { demand },
                Cell::new(l.channels.join(" ")),
            ]);
        }
        for line in t.to_string().lines() {
            let _ = writeln!(out, "    {}", line.trim_end());
        }
    }
}

/// What `topo search` prints by default: the selected graphs, what the graph file's
/// graphs cost (when one was given), and the channels NCCL runs, laid out as `term` says.
pub fn text(
    an: &Analysis,
    gs: &Graphs,
    sel: &[GraphSel],
    run: &Result<Run, String>,
    rank: usize,
    cost: Option<(&str, &[Cost])>,
    term: &Term,
) -> String {
    let mut out = String::new();
    let title = format!(
        "{}: {} x {} GPUs; graphs as NCCL {} computes them",
        an.input,
        an.nodes_text(),
        an.system.count(NodeType::Gpu),
        an.options.env.release()
    );
    let _ = writeln!(out, "{}\n", term.wrap(&title, "  "));
    for g in selected(gs, sel) {
        graph_text(an, g, term, &mut out);
    }
    if let Some((file, c)) = cost {
        cost_text(file, c, term, &mut out);
        out.push('\n');
    }
    match run {
        Ok(r) => run_text(r, rank, term, &mut out),
        Err(e) => {
            let line = format!("Channels NCCL runs: {}: {e}", term.paint("not modelled", Tone::Warn));
            let _ = writeln!(out, "{}", term.wrap(&line, "  "));
        }
    }
    out
}

/// The `--json` document: the selected graphs, `run`, and `graph_file` when one was given.
pub fn json(
    sys: &System,
    gs: &Graphs,
    sel: &[GraphSel],
    run: &Result<Run, String>,
    rank: usize,
    cost: Option<(&str, &[Cost])>,
) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("schema".into(), 1.into());
    for g in selected(gs, sel) {
        m.insert(g.name().into(), crate::render::graphs::graph_json(sys, g));
    }
    m.insert("run".into(), run_json(run, rank));
    if let Some((file, costs)) = cost {
        let graphs: Vec<serde_json::Value> = costs
            .iter()
            .map(|c| {
                serde_json::json!({
                    "graph": c.graph,
                    "channels": c.channels,
                    "links": c.links,
                    "oversubscribed": c.oversubscribed().map(|l| l.link.clone()).collect::<Vec<_>>(),
                })
            })
            .collect();
        m.insert("graph_file".into(), serde_json::json!({ "file": file, "graphs": graphs }));
    }
    serde_json::Value::Object(m)
}

/// The `run` object, or `{"error": ...}` when the channels cannot be modelled.
pub fn run_json(run: &Result<Run, String>, rank: usize) -> serde_json::Value {
    match run {
        Ok(r) => run_object(r, rank),
        Err(e) => serde_json::json!({ "error": e }),
    }
}

/// The `run` object of the JSON documents.
fn run_object(run: &Run, rank: usize) -> serde_json::Value {
    let rings: Vec<serde_json::Value> = (0..run.n_channels).map(|c| run.ring_order(c, 0).into()).collect();
    let trees: Vec<serde_json::Value> = (0..run.n_channels)
        .map(|c| {
            serde_json::json!({
                "up": (0..run.n_ranks).map(|r| run.tree_up(c, r)).collect::<Vec<_>>(),
                "down": (0..run.n_ranks).map(|r| run.tree_down(c, r).to_vec()).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "nodes": run.nodes,
        "local_ranks": run.local_ranks,
        "n_ranks": run.n_ranks,
        "ring_graph_channels": run.ring_graph_channels,
        "tree_graph_channels": run.tree_graph_channels,
        "search_channels": run.search_channels,
        "nchannels": run.n_channels,
        "cross_nic_swap": run.cross_nic_swap,
        "steps": run.steps,
        "notes": run.notes,
        "source": run.source,
        "rings": rings,
        "trees": trees,
        "rank": rank,
        "log": {
            "channels": run.channel_lines(),
            "rings": run.ring_lines(rank),
            "trees": run.trees_line(rank),
            "tree_graph": run.tree_lines(rank),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::term::check::{coloured, fits, same_words};

    /// The channel tables and NCCL's log lines fit the width, and say what the whole
    /// text says.
    #[test]
    fn text_fits_the_width() {
        for (name, nodes) in [("dgx-h100", 2), ("gb200-nvl72-tray", 4), ("dgx1-v100", 1)] {
            let (x, _) = crate::fixtures::get(name).unwrap().load().unwrap();
            let opts = crate::model::Options { nodes, ..crate::model::Options::default() };
            let an = crate::model::analyze(&x, name, &opts).unwrap();
            let (gs, _) = crate::search::run(&an, &crate::search::SearchOptions::from_analysis(&an)).unwrap();
            let run = crate::search::channels::for_analysis(&an, &gs).map_err(|e| e.to_string());
            let whole = text(&an, &gs, &[], &run, 0, None, &Term::default());
            assert!(whole.lines().any(|l| l.len() > 100), "{name}: nothing to wrap");
            for width in [80, 100] {
                let t = text(&an, &gs, &[], &run, 0, None, &Term { width: Some(width), color: false });
                fits(&t, width, name);
                same_words(&whole, &t, name);
            }
            assert!(!coloured(&whole));
        }
    }
}
