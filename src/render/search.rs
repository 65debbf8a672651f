//! `topo search`: each graph as NCCL prints it (`ncclTopoPrintGraph`'s summary line) with
//! a table of its channels, then the channels NCCL finally runs with its own log lines;
//! the JSON form; the Graphviz drawings of the channels (one small diagram per distinct
//! channel, or one channel over the machine); and the cost
//! report of graphs loaded from a graph file.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

use comfy_table::{Cell, CellAlignment};
use graphviz_rust::dot_structures::{Attribute, Stmt};

use crate::model::system::{NodeRef, System};
use crate::model::{Analysis, NodeType};
use crate::render::term::{Term, Tone, new_table, wrap_items};
use crate::render::{dot, gbs};
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
        "{}: {} node(s) x {} GPUs; graphs as NCCL {} computes them",
        an.input,
        an.options.nodes,
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

/// A drawn diagram of `--dot`: a few GPUs and what joins them, for a set of channels.
struct Diagram {
    /// The statements inside its box.
    stmts: Vec<Stmt>,
    /// Node ids of its top row and bottom row (to stack diagrams).
    top: String,
    bottom: String,
    /// Size in cells (columns, rows).
    cols: usize,
    rows: usize,
}

/// The colour of a graph's arrows.
fn graph_colour(graph: &str) -> &'static str {
    match graph {
        "ring" => "#1f5fbf",
        "tree" => "#2e8b57",
        "nvls" => "#8e44ad",
        _ => "#b9770e",
    }
}

/// The rows of a snake of `n` GPUs `cols` wide: row 0 left to right, row 1 right to
/// left, and so on.
pub(crate) fn snake(n: usize, cols: usize) -> Vec<Vec<usize>> {
    let cols = cols.max(1);
    let mut rows: Vec<Vec<usize>> = (0..n).collect::<Vec<_>>().chunks(cols).map(|c| c.to_vec()).collect();
    for (i, r) in rows.iter_mut().enumerate() {
        if i % 2 == 1 {
            r.reverse();
        }
    }
    rows
}

/// Columns of the snake for `n` GPUs: an even number of rows, about twice as wide as tall.
pub(crate) fn snake_cols(n: usize) -> usize {
    if n <= 2 {
        return 1;
    }
    let rows = 2 * ((n as f64 / 8.0).sqrt().ceil() as usize).max(1);
    n.div_ceil(rows)
}

fn gpu_text(sys: &System, rank: i32) -> String {
    let bus = sys
        .gpu_by_rank(rank)
        .and_then(|g| sys.list(NodeType::Gpu)[g].busid.clone())
        .map(|b| b.strip_prefix("0000:").map(str::to_string).unwrap_or(b))
        .unwrap_or_else(|| "?".into());
    format!("GPU rank {rank}\\n{bus}")
}

fn net_text(sys: &System, id: i64, dir: &str) -> String {
    match sys.find(NodeType::Net, id).and_then(|n| sys.list(NodeType::Net)[n].net()) {
        Some(x) => format!("NET {}: {} {dir}", x.dev, x.name),
        None => format!("NET {id:#x} {dir}"),
    }
}

/// The NICs where a drawn chain enters or leaves the node: one NET, or the NETs of the
/// channels that share the chain (`NET 0, 8, 16 in`, one a channel).
fn nets_text(sys: &System, ids: &[i64], dir: &str) -> String {
    match ids {
        [one] => net_text(sys, *one, dir),
        _ => {
            let devs: Vec<String> = ids
                .iter()
                .map(|&id| match sys.find(NodeType::Net, id).and_then(|n| sys.list(NodeType::Net)[n].net()) {
                    Some(x) => x.dev.to_string(),
                    None => format!("{id:#x}"),
                })
                .collect();
            format!("NET {} {dir}\\n(one a channel)", devs.join(", "))
        }
    }
}

/// The path type between two ranks' GPUs.
fn path_type(sys: &System, a: i32, b: i32) -> String {
    match (sys.gpu_by_rank(a), sys.gpu_by_rank(b)) {
        (Some(x), Some(y)) => {
            sys.path(NodeRef::new(NodeType::Gpu, x), NodeRef::new(NodeType::Gpu, y)).ty.name().to_string()
        }
        _ => String::new(),
    }
}

/// A ring (closed unless it goes through the network) or a chain, as a snake of GPUs.
fn chain_diagram(sys: &System, g: &Graph, k: usize, ranks: &[i32], nets: Option<&Nets>, title: &str) -> Diagram {
    let name = g.name();
    let col = graph_colour(name);
    let ring = g.pattern == crate::search::Pattern::Ring;
    let id = |i: usize| format!("{name}{k}:GPU/rank {}", ranks[i]);
    let n = ranks.len();
    let cols = snake_cols(n);
    let rows = snake(n, cols);
    let mut stmts = vec![
        Stmt::Attribute(dot::attr("label", title)),
        Stmt::Attribute(dot::attr("labelloc", "b")),
        Stmt::Attribute(dot::attr("style", "rounded")),
        Stmt::Attribute(dot::attr("color", "#9aa5b8")),
    ];
    for (i, &r) in ranks.iter().enumerate() {
        stmts.push(dot::node(
            &id(i),
            vec![
                dot::attr("label", &gpu_text(sys, r)),
                dot::attr("shape", "box"),
                dot::attr("fillcolor", dot::FILL_GPU),
            ],
        ));
    }
    for (ri, row) in rows.iter().enumerate() {
        let ids: Vec<String> = row.iter().map(|&i| id(i)).collect();
        stmts.push(dot::same_rank(&format!("{name}{k}row{ri}"), &ids));
        // Rows left to right; an invisible edge also keeps the next row below.
        for w in ids.windows(2) {
            stmts.push(dot::invisible(&w[0], &w[1]));
        }
    }
    // The chain's steps: along a row (drawn from the left node, pointing the way the
    // row goes), or down to the next row.
    let two_way = !ring;
    let step = |a: usize, b: usize| -> Stmt {
        let pt = path_type(sys, ranks[a], ranks[b]);
        let (ra, rb) = (rows.iter().position(|r| r.contains(&a)), rows.iter().position(|r| r.contains(&b)));
        let backwards = ra == rb && ra.is_some_and(|r| r % 2 == 1);
        let (x, y) = if backwards { (b, a) } else { (a, b) };
        let mut at = vec![dot::attr("color", col), dot::attr("label", &pt), dot::attr("fontcolor", col)];
        at.push(dot::attr(
            "dir",
            match (two_way, backwards) {
                (true, _) => "both",
                (false, true) => "back",
                (false, false) => "forward",
            },
        ));
        if ra != rb && ra.is_some_and(|x| rb.is_some_and(|y| y < x)) {
            at.push(dot::attr("constraint", "false"));
        }
        dot::edge_ids(&id(x), &id(y), at)
    };
    for i in 1..n {
        stmts.push(step(i - 1, i));
    }
    if ring && nets.is_none() && n > 2 {
        stmts.push(step(n - 1, 0));
    }
    let mut top = id(rows[0][0]);
    let mut bottom = id(rows[rows.len() - 1][0]);
    let mut extra_rows = 0;
    if let Some((nin, nout)) = nets {
        let in_id = format!("{name}{k}:NET/in");
        let out_id = format!("{name}{k}:NET/out");
        stmts.push(dot::node(
            &in_id,
            vec![
                dot::attr("label", &nets_text(sys, nin, "in")),
                dot::attr("shape", "ellipse"),
                dot::attr("fillcolor", dot::FILL_NET),
            ],
        ));
        stmts.push(dot::edge_ids(
            &in_id,
            &id(0),
            vec![dot::attr("color", dot::link_colour(crate::model::LinkType::Net))],
        ));
        // Where the traffic leaves: the last GPU of a ring, the second of a split tree,
        // else the head.
        let out_from = match g.pattern {
            crate::search::Pattern::Ring => n - 1,
            crate::search::Pattern::SplitTree => 1.min(n - 1),
            _ => 0,
        };
        stmts.push(dot::node(
            &out_id,
            vec![
                dot::attr("label", &nets_text(sys, nout, "out")),
                dot::attr("shape", "ellipse"),
                dot::attr("fillcolor", dot::FILL_NET),
            ],
        ));
        let last_row = rows.iter().position(|r| r.contains(&out_from)).unwrap_or(0);
        if last_row == rows.len() - 1 {
            stmts.push(dot::edge_ids(
                &id(out_from),
                &out_id,
                vec![dot::attr("color", dot::link_colour(crate::model::LinkType::Net))],
            ));
            bottom = out_id;
        } else {
            stmts.push(dot::edge_ids(
                &out_id,
                &id(out_from),
                vec![dot::attr("color", dot::link_colour(crate::model::LinkType::Net)), dot::attr("dir", "back")],
            ));
        }
        top = in_id;
        extra_rows = 2;
    }
    Diagram { stmts, top, bottom, cols: cols.max(1), rows: rows.len() + extra_rows }
}

/// NVLS: every head GPU to the one NVSwitch domain, each with its channels; heads in
/// rows of at most four, the first above the switch, the second below it, and so on.
fn nvls_diagram(sys: &System, g: &Graph, k: usize, heads: &[(i32, BTreeSet<u32>)]) -> Diagram {
    let name = g.name();
    let nvs = format!("{name}{k}:NVS/0");
    let mut stmts = vec![
        Stmt::Attribute(dot::attr("label", "nvls: head GPUs to the NVSwitch")),
        Stmt::Attribute(dot::attr("labelloc", "b")),
        Stmt::Attribute(dot::attr("style", "rounded")),
        Stmt::Attribute(dot::attr("color", "#9aa5b8")),
        dot::node(
            &nvs,
            vec![
                dot::attr("label", "NVSwitch (NVLS)"),
                dot::attr("shape", "box"),
                dot::attr("fillcolor", dot::FILL_NVS),
            ],
        ),
    ];
    let mut ids = Vec::new();
    for (rank, chans) in heads {
        let id = format!("{name}{k}:GPU/rank {rank}");
        stmts.push(dot::node(
            &id,
            vec![
                dot::attr(
                    "label",
                    &format!(
                        "{}\\nhead of channel{} {}",
                        gpu_text(sys, *rank),
                        if chans.len() > 1 { "s" } else { "" },
                        dot::channel_list(chans)
                    ),
                ),
                dot::attr("shape", "box"),
                dot::attr("fillcolor", dot::FILL_GPU),
            ],
        ));
        ids.push(id);
    }
    let rows: Vec<&[String]> = ids.chunks(4).collect();
    for (r, row) in rows.iter().enumerate() {
        stmts.push(dot::same_rank(&format!("{name}{k}heads{r}"), row));
        for w in row.windows(2) {
            stmts.push(dot::invisible(&w[0], &w[1]));
        }
        // Rows 0, 2, 4... above the switch (drawn towards it), 1, 3... below (drawn
        // from it); only the two rows beside the switch place it.
        let above = r % 2 == 0;
        for id in row.iter() {
            let mut at = vec![dot::attr("color", graph_colour(name)), dot::attr("dir", "both")];
            if r > 1 {
                at.push(dot::attr("constraint", "false"));
            }
            stmts.push(if above { dot::edge_ids(id, &nvs, at) } else { dot::edge_ids(&nvs, id, at) });
        }
        if r > 1 {
            // Outer rows beyond the inner ones.
            let inner = &rows[r - 2][0];
            stmts.push(if above { dot::invisible(&row[0], inner) } else { dot::invisible(inner, &row[0]) });
        }
    }
    let top = rows.iter().step_by(2).next_back().map_or(nvs.clone(), |r| r[0].clone());
    let bottom = rows.iter().skip(1).step_by(2).next_back().map_or(nvs.clone(), |r| r[0].clone());
    let cols = heads.len().min(4);
    Diagram { stmts, top, bottom, cols, rows: rows.len() + 1 }
}

/// CollNet Direct: the head GPU and the other GPUs it reaches directly.
fn direct_diagram(
    sys: &System,
    g: &Graph,
    k: usize,
    head: i32,
    others: usize,
    nets: Option<&Nets>,
    title: &str,
) -> Diagram {
    let name = g.name();
    let h = format!("{name}{k}:GPU/rank {head}");
    let o = format!("{name}{k}:GPU/others");
    let mut stmts = vec![
        Stmt::Attribute(dot::attr("label", title)),
        Stmt::Attribute(dot::attr("labelloc", "b")),
        Stmt::Attribute(dot::attr("style", "rounded")),
        Stmt::Attribute(dot::attr("color", "#9aa5b8")),
        dot::node(
            &h,
            vec![
                dot::attr("label", &gpu_text(sys, head)),
                dot::attr("shape", "box"),
                dot::attr("fillcolor", dot::FILL_GPU),
            ],
        ),
        dot::node(
            &o,
            vec![
                dot::attr("label", &format!("the {others} other GPUs")),
                dot::attr("shape", "box"),
                dot::attr("fillcolor", dot::FILL_GPU),
                dot::attr("style", "filled,dashed"),
            ],
        ),
        dot::edge_ids(&h, &o, vec![dot::attr("color", graph_colour(name)), dot::attr("dir", "both")]),
    ];
    let mut top = h.clone();
    if let Some((nin, nout)) = nets {
        for (id, net, dir) in [(format!("{name}{k}:NET/in"), nin, "in"), (format!("{name}{k}:NET/out"), nout, "out")] {
            stmts.push(dot::node(
                &id,
                vec![
                    dot::attr("label", &nets_text(sys, net, dir)),
                    dot::attr("shape", "ellipse"),
                    dot::attr("fillcolor", dot::FILL_NET),
                ],
            ));
            stmts.push(dot::edge_ids(&id, &h, vec![dot::attr("color", dot::link_colour(crate::model::LinkType::Net))]));
            top = id;
        }
    }
    Diagram { stmts, top, bottom: o, cols: 2, rows: if nets.is_some() { 3 } else { 2 } }
}

/// The NICs a drawn chain enters and leaves the node by: one per channel that shares
/// it, each listed once.
type Nets = (Vec<i64>, Vec<i64>);

/// The diagrams of one graph: one per distinct channel (same GPUs in the same order),
/// listing the channels that share it and the NICs they use.
fn graph_diagrams(sys: &System, g: &Graph, first: usize) -> Vec<Diagram> {
    use crate::search::Pattern;
    let n = sys.count(NodeType::Gpu);
    let nets = |c: usize| sys.inter.then(|| (g.inter_number(c * 2), g.inter_number(c * 2 + 1)));
    let mut out = Vec::new();
    match g.pattern {
        Pattern::Nvls => {
            let mut heads: BTreeMap<i32, BTreeSet<u32>> = BTreeMap::new();
            for c in 0..g.n_channels as usize {
                heads.entry(g.intra[c * n]).or_default().insert(c as u32);
            }
            let heads: Vec<(i32, BTreeSet<u32>)> = heads.into_iter().collect();
            out.push(nvls_diagram(sys, g, first, &heads));
        }
        _ => {
            // One diagram per distinct order of GPUs, whatever NICs its channels use.
            let mut groups: Vec<(Vec<i32>, BTreeSet<u32>, Option<Nets>)> = Vec::new();
            for c in 0..g.n_channels as usize {
                let ranks = g.intra[c * n..(c + 1) * n].to_vec();
                let k = match groups.iter().position(|(r, _, _)| *r == ranks) {
                    Some(k) => k,
                    None => {
                        groups.push((ranks, BTreeSet::new(), nets(c).map(|_| (Vec::new(), Vec::new()))));
                        groups.len() - 1
                    }
                };
                groups[k].1.insert(c as u32);
                if let (Some((i, o)), Some((ins, outs))) = (nets(c), groups[k].2.as_mut()) {
                    if !ins.contains(&i) {
                        ins.push(i);
                    }
                    if !outs.contains(&o) {
                        outs.push(o);
                    }
                }
            }
            for (i, (ranks, chans, nets)) in groups.iter().enumerate() {
                let what = match g.pattern {
                    Pattern::Ring => "ring",
                    Pattern::CollNetDirect => "collnet_direct",
                    _ if g.name() == "collnet_chain" => "collnet chain",
                    _ => "tree chain",
                };
                let plural = if chans.len() > 1 { "s" } else { "" };
                let title = format!("{what}: channel{plural} {}", dot::channel_list(chans));
                let d = if g.pattern == Pattern::CollNetDirect {
                    direct_diagram(sys, g, first + i, ranks[0], n.saturating_sub(1), nets.as_ref(), &title)
                } else {
                    chain_diagram(sys, g, first + i, ranks, nets.as_ref(), &title)
                };
                out.push(d);
            }
        }
    }
    out
}

/// `--dot`: the channels of the selected graphs, one small diagram per distinct
/// channel; or, with `channel`, that channel of the one selected graph over the
/// drawing of the machine, each link labelled with its load in each direction against
/// its capacity.
pub fn dot(
    an: &Analysis,
    gs: &Graphs,
    sel: &[GraphSel],
    channel: Option<usize>,
) -> Result<String, crate::error::Error> {
    let sys = &an.system;
    let graphs: Vec<&Graph> = selected(gs, sel).into_iter().filter(|g| g.computed && g.n_channels > 0).collect();
    if let Some(c) = channel {
        return channel_dot(an, &graphs, c);
    }
    let names: Vec<&str> = graphs.iter().map(|g| g.name()).collect();
    let title = format!(
        "{}\\n{} GPU(s), {} node(s) — NCCL {} channels: {}\\none diagram per distinct order of GPUs, with the channels that share it",
        an.input,
        sys.count(NodeType::Gpu),
        an.options.nodes,
        an.options.env.release(),
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    );
    let mut stmts = dot::graph_attrs(&title);
    let mut diagrams: Vec<(String, Diagram)> = Vec::new();
    for g in &graphs {
        let first = diagrams.len();
        for d in graph_diagrams(sys, g, first) {
            diagrams.push((g.name().to_string(), d));
        }
    }
    // Diagrams in rows, as many a row as keep the whole about 3:2.
    let cols = pick_columns(&diagrams.iter().map(|(_, d)| (d.cols, d.rows)).collect::<Vec<_>>());
    for (i, (_, d)) in diagrams.iter().enumerate() {
        stmts.push(dot::subgraph(&format!("cluster_d{i}"), d.stmts.clone()));
    }
    // The diagrams of one grid row start on one line.
    for (k, row) in diagrams.chunks(cols).enumerate() {
        let tops: Vec<String> = row.iter().map(|(_, d)| d.top.clone()).collect();
        stmts.push(dot::same_rank(&format!("grid{k}"), &tops));
    }
    for (i, (_, d)) in diagrams.iter().enumerate() {
        if i + cols < diagrams.len() {
            let below = &diagrams[i + cols].1;
            stmts.push(dot::edge_ids(
                &d.bottom,
                &below.top,
                vec![dot::attr("style", "invis"), dot::attr("minlen", "2"), dot::attr("weight", "0")],
            ));
        }
    }
    let mut legend = vec![
        (Some(graph_colour("ring")), "ring", "ring: each GPU sends to the next (arrows)"),
        (Some(graph_colour("tree")), "tree", "tree: a chain of GPUs, data both ways"),
    ];
    if names.contains(&"nvls") {
        legend.push((Some(graph_colour("nvls")), "nvls", "NVLS: the head GPU of each channel to the NVSwitch"));
    }
    if names.iter().any(|n| n.starts_with("collnet")) {
        legend.push((Some(graph_colour("collnet_chain")), "collnet", "CollNet: chain, or head to every GPU"));
    }
    legend.push((
        Some(dot::link_colour(crate::model::LinkType::Net)),
        "NET",
        "where a channel enters and leaves the node",
    ));
    legend.push((None, "PIX, NVL", "path type between two GPUs of a channel"));
    legend.push((None, "--channel N", "draws one channel over the machine with link loads"));
    let above = diagrams.last().map_or_else(|| "legend".to_string(), |(_, d)| d.bottom.clone());
    stmts.extend(dot::legend_at_bottom(&legend, &above));
    Ok(dot::print_directed(stmts))
}

/// How many diagrams a row: the count that keeps the estimated drawing nearest 3:2.
fn pick_columns(sizes: &[(usize, usize)]) -> usize {
    const W: f64 = 100.0;
    const H: f64 = 70.0;
    let mut best = (f64::MAX, 1);
    for cols in 1..=sizes.len().max(1) {
        let mut width: f64 = 0.0;
        let mut height = 0.0;
        for row in sizes.chunks(cols) {
            width = width.max(row.iter().map(|s| s.0 as f64 * W + 40.0).sum::<f64>());
            height += row.iter().map(|s| s.1 as f64 * H + 50.0).fold(0.0, f64::max);
        }
        let width = width.max(520.0);
        height += 200.0;
        let score = (width / height / 1.5).ln().abs();
        if score < best.0 {
            best = (score, cols);
        }
    }
    best.1
}

/// One channel of one graph over the machine.
fn channel_dot(an: &Analysis, graphs: &[&Graph], c: usize) -> Result<String, crate::error::Error> {
    use crate::error::Error;
    let sys = &an.system;
    let g = match graphs {
        [g] => *g,
        [] => return Err(Error::Usage("--channel: the graph picked has no channels".into())),
        _ => {
            return Err(Error::Usage(
                "--channel draws one graph: pick it with --graph ring, tree, nvls, collnet-chain or collnet-direct"
                    .into(),
            ));
        }
    };
    if c >= g.n_channels as usize {
        return Err(Error::Usage(format!(
            "--channel {c}: the {} graph has channels 0 to {}",
            g.name(),
            g.n_channels - 1
        )));
    }
    let n = sys.count(NodeType::Gpu);
    // The channel alone, as channel 0 of a copy of the graph.
    let mut one = g.clone();
    one.intra.copy_within(c * n..(c + 1) * n, 0);
    one.inter.copy_within(c * 2..c * 2 + 2, 0);
    one.n_channels = 1;
    let costs = cost::replay(sys, "<graphs>", &[&one])?;
    let lay = dot::Layout::new(an);
    let tables = crate::search::links::LinkTable::new(sys);
    // Load per drawn pair and direction: (a, b) with a->b the direction.
    let mut load: HashMap<(NodeRef, NodeRef), (f32, f32)> = HashMap::new();
    for cost in &costs {
        for l in &cost.links {
            let (node, k) = tables.owner(l.id);
            let link = sys.node(node).links[k];
            let (a, b) = (dot::key(sys, node), dot::key(sys, link.rem));
            if a == b {
                continue;
            }
            let e = load.entry((a, b)).or_insert((0.0, l.capacity));
            e.0 += l.demand;
        }
    }
    let label_for = |top: NodeRef, bottom: NodeRef, lt: crate::model::LinkType| -> Vec<Attribute> {
        let down = load.get(&(top, bottom));
        let up = load.get(&(bottom, top));
        if down.is_none() && up.is_none() {
            return vec![dot::attr("color", "#cccccc")];
        }
        let cap = down.or(up).map_or(0.0, |x| x.1);
        let mut parts = Vec::new();
        let (dn, upn) = if lt == crate::model::LinkType::Sys { ("→", "←") } else { ("↓", "↑") };
        if let Some(d) = down {
            parts.push(format!("{dn} {}", gbs(d.0)));
        }
        if let Some(u) = up {
            parts.push(format!("{upn} {}", gbs(u.0)));
        }
        let over = down.is_some_and(|d| d.0 > d.1) || up.is_some_and(|u| u.0 > u.1);
        let text = format!("{} of {} GB/s", parts.join(" "), gbs(cap));
        let mut v = vec![dot::attr("xlabel", &text), dot::attr("penwidth", "3")];
        if over {
            v.push(dot::attr("fontcolor", "#c0392b"));
            v.push(dot::attr("color", "#c0392b"));
        }
        v
    };
    let title = format!(
        "{}\\n{} channel {c} over the machine — NCCL {} channels\\nlink labels: load per direction of the capacity",
        an.input,
        g.name(),
        an.options.env.release()
    );
    let mut stmts = dot::graph_attrs(&title);
    // The steps cross the socket boxes; straight segments route where splines fail.
    stmts.push(Stmt::Attribute(dot::attr("splines", "polyline")));
    stmts.extend(dot::machine_stmts(an, &lay, &label_for));
    // The channel's steps.
    let col = graph_colour(g.name());
    let legs: Vec<_> = cost::legs(sys, "<graphs>", &one, 0)?
        .into_iter()
        .map(|leg| (dot::key(sys, leg.from), dot::key(sys, leg.to)))
        .filter(|(a, b)| a != b)
        .collect();
    for (i, &(a, b)) in legs.iter().enumerate() {
        let id = |r: NodeRef| match r.ty {
            NodeType::Nvs => {
                lay.fabrics.iter().find(|f| f.nvs == Some(r)).map_or_else(|| dot::id_of(sys, r), |f| f.id.clone())
            }
            _ => dot::id_of(sys, r),
        };
        stmts.push(dot::edge_ids(
            &id(a),
            &id(b),
            vec![
                dot::attr("color", col),
                dot::attr("fontcolor", col),
                dot::attr("style", "dashed"),
                dot::attr("constraint", "false"),
                dot::attr("dir", "forward"),
                // "step 3/8": the order of the steps, never read as a channel number.
                dot::attr("label", &format!("step {}/{}", i + 1, legs.len())),
            ],
        ));
    }
    let mut legend = dot::machine_legend_rows(sys);
    legend.push((Some(col), "- ->", "the channel's steps, in order (step k/n: the k-th of n)"));
    legend.push((None, "↓ x ↑ y of z", "load down and up the link, of its capacity (GB/s)"));
    legend.push((Some("#c0392b"), "red", "more load than the link carries"));
    stmts.extend(dot::legend_at_bottom(&legend, &lay.bottom_node(sys)));
    Ok(dot::print(stmts))
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

    /// A snake of GPUs: rows alternate direction, so each step is to a neighbour.
    #[test]
    fn snakes_turn_at_the_ends() {
        assert_eq!(snake(8, 4), vec![vec![0, 1, 2, 3], vec![7, 6, 5, 4]]);
        assert_eq!(snake_cols(8), 4);
        assert_eq!(snake_cols(2), 1);
        assert_eq!(snake_cols(72), 12);
        assert_eq!(snake(3, 2), vec![vec![0, 1], vec![2]]);
    }
}
