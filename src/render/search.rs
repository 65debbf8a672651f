//! `topo search`: each graph as NCCL prints it (`ncclTopoPrintGraph`'s summary line) with
//! a table of its channels, then the channels NCCL finally runs with its own log lines;
//! the JSON form; the Graphviz drawing of the channels over the machine; and the cost
//! report of graphs loaded from a graph file.

use std::collections::BTreeMap;
use std::fmt::Write;

use comfy_table::{Cell, CellAlignment};

use crate::model::system::{NodeRef, System};
use crate::model::{Analysis, NodeType};
use crate::render::dot;
use crate::render::paths::new_table;
use crate::search::channels::Run;
use crate::search::cost::{self, Cost};
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

fn net_cell(sys: &System, id: i64) -> String {
    match sys.find(NodeType::Net, id) {
        Some(n) => {
            let x = sys.list(NodeType::Net)[n].net();
            format!("NET/{} {}", x.map_or(-1, |x| x.dev), x.map_or("", |x| x.name.as_str()))
        }
        None => format!("NET {id:#x}?"),
    }
}

/// One graph: the summary line and its channels.
fn graph_text(an: &Analysis, g: &Graph, out: &mut String) {
    let sys = &an.system;
    let from = if g.from_file { " (loaded from the graph file)" } else { "" };
    let _ = writeln!(out, "{} graph{from}", g.name());
    if !g.computed || g.n_channels == 0 {
        let _ = writeln!(out, "  none: {}\n", absent_reason(an, g));
        return;
    }
    let _ = writeln!(out, "  {}", g.summary());
    let n = sys.count(NodeType::Gpu);
    let mut t = new_table();
    let mut header = vec![Cell::new("CH")];
    if sys.inter {
        header.push(Cell::new("NET IN"));
    }
    header.push(Cell::new(if g.pattern == crate::search::Pattern::Nvls { "HEAD GPU" } else { "GPUS (rank bus)" }));
    if sys.inter {
        header.push(Cell::new("NET OUT"));
    }
    t.set_header(header);
    for c in 0..g.n_channels as usize {
        let ranks = &g.intra[c * n..(c + 1) * n];
        let width = if g.pattern == crate::search::Pattern::Nvls { 1 } else { n };
        let gpus: Vec<String> = ranks[..width].iter().map(|&r| gpu_cell(sys, r)).collect();
        let mut row = vec![Cell::new(c).set_alignment(CellAlignment::Right)];
        if sys.inter {
            row.push(Cell::new(net_cell(sys, g.inter_number(c * 2))));
        }
        row.push(Cell::new(gpus.join("  ")));
        if sys.inter {
            row.push(Cell::new(net_cell(sys, g.inter_number(c * 2 + 1))));
        }
        t.add_row(row);
    }
    for line in t.to_string().lines() {
        let _ = writeln!(out, "  {}", line.trim_end());
    }
    out.push('\n');
}

/// The "Channels NCCL runs" section.
fn run_text(run: &Run, rank: usize, out: &mut String) {
    let _ = writeln!(
        out,
        "Channels NCCL runs ({} node(s) x {} GPUs = {} ranks): nChannels {}",
        run.nodes, run.local_ranks, run.n_ranks, run.n_channels
    );
    for s in &run.steps {
        let _ = writeln!(out, "  {:>3}  {}", s.n_channels, s.what);
    }
    if run.cross_nic_swap {
        let _ = writeln!(out, "  odd nodes swap channel pairs (their rings cross NICs)");
    }
    for n in &run.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    let _ = writeln!(out, "\n  Rings, as rank 0 logs them:");
    for l in run.channel_lines() {
        let _ = writeln!(out, "    {l}");
    }
    let _ = writeln!(out, "\n  Rank {rank}'s log lines:");
    for l in run.ring_lines(rank) {
        let _ = writeln!(out, "    {l}");
    }
    let _ = writeln!(out, "    {}", run.trees_line(rank));
    for l in run.tree_lines(rank) {
        let _ = writeln!(out, "    {l}");
    }
}

/// The cost of the graphs loaded from a graph file.
pub fn cost_text(file: &str, costs: &[Cost], out: &mut String) {
    let _ = writeln!(
        out,
        "What the graphs of {file} cost (each channel's paths replayed over the links, one graph at a time):"
    );
    let f = |v: Option<f32>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    for cost in costs {
        let _ = writeln!(out, "\n  {} graph", cost.graph);
        let mut t = new_table();
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
            let _ = writeln!(out, "    No link is oversubscribed.");
            continue;
        }
        let _ = writeln!(out, "    Oversubscribed links (GB/s):");
        let mut t = new_table();
        t.set_header(vec!["LINK", "CAPACITY", "DEMAND", "CHANNELS"]);
        for l in over {
            t.add_row(vec![
                Cell::new(&l.link),
                Cell::new(format!("{:.1}", l.capacity)).set_alignment(CellAlignment::Right),
                Cell::new(format!("{:.1}", l.demand)).set_alignment(CellAlignment::Right),
                Cell::new(l.channels.join(" ")),
            ]);
        }
        for line in t.to_string().lines() {
            let _ = writeln!(out, "    {}", line.trim_end());
        }
    }
}

/// Everything `topo search` prints by default.
pub fn text(
    an: &Analysis,
    gs: &Graphs,
    sel: &[GraphSel],
    run: &Result<Run, String>,
    rank: usize,
    cost: Option<(&str, &[Cost])>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} node(s) x {} GPUs; graphs as NCCL {} computes them\n",
        an.input,
        an.options.nodes,
        an.system.count(NodeType::Gpu),
        an.options.env.release()
    );
    for g in selected(gs, sel) {
        graph_text(an, g, &mut out);
    }
    if let Some((file, c)) = cost {
        cost_text(file, c, &mut out);
        out.push('\n');
    }
    match run {
        Ok(r) => run_text(r, rank, &mut out),
        Err(e) => {
            let _ = writeln!(out, "Channels NCCL runs: not modelled: {e}");
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

/// `--dot`: the machine with the selected graphs' channels over it. Every channel has
/// its own colour (trees dotted); the links the channels load are drawn in their
/// channels' colours and labelled with the bandwidth used (both directions summed).
pub fn dot(an: &Analysis, gs: &Graphs, sel: &[GraphSel]) -> Result<String, crate::error::Error> {
    let sys = &an.system;
    let graphs: Vec<&Graph> = selected(gs, sel).into_iter().filter(|g| g.computed && g.n_channels > 0).collect();
    let names: Vec<&str> = graphs.iter().map(|g| g.name()).collect();
    let mut stmts = dot::node_stmts(
        an,
        &format!(
            "{} — NCCL {} channels: {}; links: bandwidth, then what each graph's channels use (both ways)",
            an.input,
            an.options.env.release(),
            names.join(", ")
        ),
    );
    // GPU nodes are drawn as their DEV box; NET and NVS as themselves.
    let drawn = |r: NodeRef| dot::key(sys, r);
    let costs = cost::replay(sys, "<graphs>", &graphs)?;
    // Load per graph and colours, per drawn pair.
    type Load<'a> = (BTreeMap<&'a str, f32>, Vec<String>);
    let mut used: BTreeMap<(NodeRef, NodeRef, u8), Load> = BTreeMap::new();
    let colour_of = |graph: &str, c: usize| -> String {
        let base = match graph {
            "ring" => 0,
            "tree" => 3,
            "nvls" => 6,
            _ => 9,
        };
        dot::COLOURS[(base + c) % dot::COLOURS.len()].to_string()
    };
    let tables = crate::search::links::LinkTable::new(sys);
    for cost in &costs {
        for l in &cost.links {
            let (node, k) = tables.owner(l.id);
            let link = sys.node(node).links[k];
            let (a, b) = (drawn(node), drawn(link.rem));
            if a == b {
                continue;
            }
            let key = if a < b { (a, b, link.ty as u8) } else { (b, a, link.ty as u8) };
            let e = used.entry(key).or_default();
            *e.0.entry(cost.graph).or_default() += l.demand;
            for ch in &l.channels {
                let col = colour_of(cost.graph, ch.parse().unwrap_or(0));
                if !e.1.contains(&col) {
                    e.1.push(col);
                }
            }
        }
    }
    for ((a, b, ty), bw) in dot::link_edges(sys) {
        let lt = dot::link_type(ty);
        let mut attrs = vec![dot::attr("dir", "none")];
        attrs.extend(dot::link_style(lt));
        match used.get(&(a, b, ty)) {
            Some((loads, cols)) => {
                let loads: Vec<String> = loads.iter().map(|(g, v)| format!("{g} {}", crate::render::gbs(*v))).collect();
                attrs.push(dot::attr(
                    "label",
                    &format!("{} {}\\nused: {}", lt.name(), crate::render::gbs(bw), loads.join(", ")),
                ));
                attrs.push(dot::attr("color", &cols.join(":")));
                attrs.push(dot::attr("penwidth", "2"));
            }
            None => {
                attrs.push(dot::attr("label", &format!("{} {}", lt.name(), crate::render::gbs(bw))));
                attrs.push(dot::attr("color", "#bbbbbb"));
            }
        }
        stmts.push(dot::edge(sys, a, b, attrs));
    }
    // The channels themselves: GPU to GPU (and NIC) arrows, one colour a channel.
    for g in &graphs {
        for c in 0..g.n_channels as usize {
            let col = colour_of(g.name(), c);
            let style = if g.name() == "ring" { "dashed" } else { "dotted" };
            for leg in cost::legs(sys, "<graphs>", g, c)? {
                let (a, b) = (drawn(leg.from), drawn(leg.to));
                if a == b {
                    continue;
                }
                stmts.push(dot::edge(
                    sys,
                    a,
                    b,
                    vec![
                        dot::attr("dir", "forward"),
                        dot::attr("color", &col),
                        dot::attr("fontcolor", &col),
                        dot::attr("style", style),
                        dot::attr("constraint", "false"),
                        dot::attr("label", &format!("{} {c}", g.name())),
                    ],
                ));
            }
        }
    }
    Ok(dot::print(stmts))
}
