//! `topo search --dot`: the channels of the searched graphs, one small diagram per
//! distinct order of GPUs; or, with `--channel`, one channel over the drawing of the machine
//! with each link's load per direction.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use graphviz_rust::dot_structures::{Attribute, Stmt};

use super::graphviz::*;
use super::layout::{Layout, id_of, key};
use super::machine::{machine_legend_rows, machine_stmts};
use crate::model::system::{NodeRef, System};
use crate::model::{Analysis, NodeType};
use crate::render::gbs;
use crate::render::search::{GraphSel, selected};
use crate::search::cost;
use crate::search::{Graph, Graphs};

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
pub(super) fn snake(n: usize, cols: usize) -> Vec<Vec<usize>> {
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
pub(super) fn snake_cols(n: usize) -> usize {
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

/// The NICs a drawn chain enters and leaves the node by: one per channel that shares
/// it, each listed once.
type Nets = (Vec<i64>, Vec<i64>);

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
        Stmt::Attribute(attr("label", title)),
        Stmt::Attribute(attr("labelloc", "b")),
        Stmt::Attribute(attr("style", "rounded")),
        Stmt::Attribute(attr("color", "#9aa5b8")),
    ];
    for (i, &r) in ranks.iter().enumerate() {
        stmts.push(node(
            &id(i),
            vec![attr("label", &gpu_text(sys, r)), attr("shape", "box"), attr("fillcolor", FILL_GPU)],
        ));
    }
    for (ri, row) in rows.iter().enumerate() {
        let ids: Vec<String> = row.iter().map(|&i| id(i)).collect();
        stmts.push(same_rank(&format!("{name}{k}row{ri}"), &ids));
        // Rows left to right; an invisible edge also keeps the next row below.
        for w in ids.windows(2) {
            stmts.push(invisible(&w[0], &w[1]));
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
        let mut at = vec![attr("color", col), attr("label", &pt), attr("fontcolor", col)];
        at.push(attr(
            "dir",
            match (two_way, backwards) {
                (true, _) => "both",
                (false, true) => "back",
                (false, false) => "forward",
            },
        ));
        if ra != rb && ra.is_some_and(|x| rb.is_some_and(|y| y < x)) {
            at.push(attr("constraint", "false"));
        }
        edge_ids(&id(x), &id(y), at)
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
        stmts.push(node(
            &in_id,
            vec![attr("label", &nets_text(sys, nin, "in")), attr("shape", "ellipse"), attr("fillcolor", FILL_NET)],
        ));
        stmts.push(edge_ids(&in_id, &id(0), vec![attr("color", link_colour(crate::model::LinkType::Net))]));
        // Where the traffic leaves: the last GPU of a ring, the second of a split tree,
        // else the head.
        let out_from = match g.pattern {
            crate::search::Pattern::Ring => n - 1,
            crate::search::Pattern::SplitTree => 1.min(n - 1),
            _ => 0,
        };
        stmts.push(node(
            &out_id,
            vec![attr("label", &nets_text(sys, nout, "out")), attr("shape", "ellipse"), attr("fillcolor", FILL_NET)],
        ));
        let last_row = rows.iter().position(|r| r.contains(&out_from)).unwrap_or(0);
        if last_row == rows.len() - 1 {
            stmts.push(edge_ids(&id(out_from), &out_id, vec![attr("color", link_colour(crate::model::LinkType::Net))]));
            bottom = out_id;
        } else {
            stmts.push(edge_ids(
                &out_id,
                &id(out_from),
                vec![attr("color", link_colour(crate::model::LinkType::Net)), attr("dir", "back")],
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
        Stmt::Attribute(attr("label", "nvls: head GPUs to the NVSwitch")),
        Stmt::Attribute(attr("labelloc", "b")),
        Stmt::Attribute(attr("style", "rounded")),
        Stmt::Attribute(attr("color", "#9aa5b8")),
        node(&nvs, vec![attr("label", "NVSwitch (NVLS)"), attr("shape", "box"), attr("fillcolor", FILL_NVS)]),
    ];
    let mut ids = Vec::new();
    for (rank, chans) in heads {
        let id = format!("{name}{k}:GPU/rank {rank}");
        stmts.push(node(
            &id,
            vec![
                attr(
                    "label",
                    &format!(
                        "{}\\nhead of channel{} {}",
                        gpu_text(sys, *rank),
                        if chans.len() > 1 { "s" } else { "" },
                        channel_list(chans)
                    ),
                ),
                attr("shape", "box"),
                attr("fillcolor", FILL_GPU),
            ],
        ));
        ids.push(id);
    }
    let rows: Vec<&[String]> = ids.chunks(4).collect();
    for (r, row) in rows.iter().enumerate() {
        stmts.push(same_rank(&format!("{name}{k}heads{r}"), row));
        for w in row.windows(2) {
            stmts.push(invisible(&w[0], &w[1]));
        }
        // Rows 0, 2, 4... above the switch (drawn towards it), 1, 3... below (drawn
        // from it); only the two rows beside the switch place it.
        let above = r % 2 == 0;
        for id in row.iter() {
            let mut at = vec![attr("color", graph_colour(name)), attr("dir", "both")];
            if r > 1 {
                at.push(attr("constraint", "false"));
            }
            stmts.push(if above { edge_ids(id, &nvs, at) } else { edge_ids(&nvs, id, at) });
        }
        if r > 1 {
            // Outer rows beyond the inner ones.
            let inner = &rows[r - 2][0];
            stmts.push(if above { invisible(&row[0], inner) } else { invisible(inner, &row[0]) });
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
        Stmt::Attribute(attr("label", title)),
        Stmt::Attribute(attr("labelloc", "b")),
        Stmt::Attribute(attr("style", "rounded")),
        Stmt::Attribute(attr("color", "#9aa5b8")),
        node(&h, vec![attr("label", &gpu_text(sys, head)), attr("shape", "box"), attr("fillcolor", FILL_GPU)]),
        node(
            &o,
            vec![
                attr("label", &format!("the {others} other GPUs")),
                attr("shape", "box"),
                attr("fillcolor", FILL_GPU),
                attr("style", "filled,dashed"),
            ],
        ),
        edge_ids(&h, &o, vec![attr("color", graph_colour(name)), attr("dir", "both")]),
    ];
    let mut top = h.clone();
    if let Some((nin, nout)) = nets {
        for (id, net, dir) in [(format!("{name}{k}:NET/in"), nin, "in"), (format!("{name}{k}:NET/out"), nout, "out")] {
            stmts.push(node(
                &id,
                vec![attr("label", &nets_text(sys, net, dir)), attr("shape", "ellipse"), attr("fillcolor", FILL_NET)],
            ));
            stmts.push(edge_ids(&id, &h, vec![attr("color", link_colour(crate::model::LinkType::Net))]));
            top = id;
        }
    }
    Diagram { stmts, top, bottom: o, cols: 2, rows: if nets.is_some() { 3 } else { 2 } }
}

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
                let title = format!("{what}: channel{plural} {}", channel_list(chans));
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
pub fn picture(
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
        "{}\\n{} GPU(s), {} — NCCL {} channels: {}\\none diagram per distinct order of GPUs, with the channels that share it",
        an.input,
        sys.count(NodeType::Gpu),
        an.nodes_text(),
        an.options.env.release(),
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    );
    let mut stmts = graph_attrs(&title);
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
        stmts.push(subgraph(&format!("cluster_d{i}"), d.stmts.clone()));
    }
    // The diagrams of one grid row start on one line.
    for (k, row) in diagrams.chunks(cols).enumerate() {
        let tops: Vec<String> = row.iter().map(|(_, d)| d.top.clone()).collect();
        stmts.push(same_rank(&format!("grid{k}"), &tops));
    }
    for (i, (_, d)) in diagrams.iter().enumerate() {
        if i + cols < diagrams.len() {
            let below = &diagrams[i + cols].1;
            stmts.push(edge_ids(
                &d.bottom,
                &below.top,
                vec![attr("style", "invis"), attr("minlen", "2"), attr("weight", "0")],
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
    legend.push((Some(link_colour(crate::model::LinkType::Net)), "NET", "where a channel enters and leaves the node"));
    legend.push((None, "PIX, NVL", "path type between two GPUs of a channel"));
    legend.push((None, "--channel N", "draws one channel over the machine with link loads"));
    let above = diagrams.last().map_or_else(|| "legend".to_string(), |(_, d)| d.bottom.clone());
    stmts.extend(legend_at_bottom(&legend, &above));
    Ok(print_directed(stmts))
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
    let lay = Layout::new(an);
    let tables = crate::search::links::LinkTable::new(sys);
    // Load per drawn pair and direction: (a, b) with a->b the direction.
    let mut load: HashMap<(NodeRef, NodeRef), (f32, f32)> = HashMap::new();
    for cost in &costs {
        for l in &cost.links {
            let (node, k) = tables.owner(l.id);
            let link = sys.node(node).links[k];
            let (a, b) = (key(sys, node), key(sys, link.rem));
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
            return vec![attr("color", "#cccccc")];
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
        let mut v = vec![attr("xlabel", &text), attr("penwidth", "3")];
        if over {
            v.push(attr("fontcolor", "#c0392b"));
            v.push(attr("color", "#c0392b"));
        }
        v
    };
    let title = format!(
        "{}\\n{} channel {c} over the machine — NCCL {} channels\\nlink labels: load per direction of the capacity",
        an.input,
        g.name(),
        an.options.env.release()
    );
    let mut stmts = graph_attrs(&title);
    // The steps cross the socket boxes; straight segments route where splines fail.
    stmts.push(Stmt::Attribute(attr("splines", "polyline")));
    stmts.extend(machine_stmts(an, &lay, &label_for));
    // The channel's steps.
    let col = graph_colour(g.name());
    let legs: Vec<_> = cost::legs(sys, "<graphs>", &one, 0)?
        .into_iter()
        .map(|leg| (key(sys, leg.from), key(sys, leg.to)))
        .filter(|(a, b)| a != b)
        .collect();
    for (i, &(a, b)) in legs.iter().enumerate() {
        let id = |r: NodeRef| match r.ty {
            NodeType::Nvs => {
                lay.fabrics.iter().find(|f| f.nvs == Some(r)).map_or_else(|| id_of(sys, r), |f| f.id.clone())
            }
            _ => id_of(sys, r),
        };
        stmts.push(edge_ids(
            &id(a),
            &id(b),
            vec![
                attr("color", col),
                attr("fontcolor", col),
                attr("style", "dashed"),
                attr("constraint", "false"),
                attr("dir", "forward"),
                // "step 3/8": the order of the steps, never read as a channel number.
                attr("label", &format!("step {}/{}", i + 1, legs.len())),
            ],
        ));
    }
    let mut legend = machine_legend_rows(sys);
    legend.push((Some(col), "- ->", "the channel's steps, in order (step k/n: the k-th of n)"));
    legend.push((None, "↓ x ↑ y of z", "load down and up the link, of its capacity (GB/s)"));
    legend.push((Some("#c0392b"), "red", "more load than the link carries"));
    stmts.extend(legend_at_bottom(&legend, &lay.bottom_node(sys)));
    Ok(print(stmts))
}

/// Names of the GPU ranks of a set of drawn nodes (for tests and labels).
fn channel_list(chans: &BTreeSet<u32>) -> String {
    crate::discover::cpumap::ranges(chans).replace(',', ", ")
}

#[cfg(test)]
mod tests {
    use super::*;

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
