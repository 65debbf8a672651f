//! `topo paths --dot`: the machine as a Graphviz graph (through graphviz-rust), laid out
//! the way people draw these machines: one box per CPU socket with its PCIe tree, CPUs
//! on the top row, switches below them, GPUs (in rank order, left to right) and NICs at
//! the bottom, each NIC's ports under it, the NVLink fabric drawn as one bar under the
//! GPUs, and a legend.
//!
//! The layout is computed here and handed to Graphviz as rows (`rank=same`) and an order
//! inside each row (invisible edges), so that the drawing does not depend on Graphviz's
//! own ordering heuristics. A socket with many GPUs or NICs wraps onto several bands of
//! rows so that the drawing stays between 1:3 and 3:1 wide.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use graphviz_rust::dot_structures::{
    Attribute, Edge, EdgeTy, GraphAttributes, Id, Node, NodeId, Port, Stmt, Subgraph, Vertex,
};
use graphviz_rust::printer::{DotPrinter, PrinterContext};

use crate::model::analysis::node_label;
use crate::model::system::{Kind, NodeRef, System, id_local};
use crate::model::{Analysis, LinkType, NodeType, paths as mpaths};
use crate::render::gbs;

/// Fill colours of the node kinds.
pub(crate) const FILL_CPU: &str = "#cfd8ea";
pub(crate) const FILL_PCI: &str = "#eeeeee";
pub(crate) const FILL_GPU: &str = "#c6e5b3";
pub(crate) const FILL_NIC: &str = "#fde7b4";
pub(crate) const FILL_NET: &str = "#fff4dc";
pub(crate) const FILL_NVS: &str = "#e3d0ef";

/// The colour a link type is drawn in.
pub(crate) fn link_colour(lt: LinkType) -> &'static str {
    match lt {
        LinkType::Nvl => "#5e9e00",
        LinkType::C2c => "#8e44ad",
        LinkType::Pci => "#4a6fa5",
        LinkType::Sys => "#c0392b",
        LinkType::Net => "#d35400",
        LinkType::Loc => "#888888",
    }
}

/// A quoted Graphviz string. `\n` (a line break in a label) is kept; any other
/// backslash and every double quote are escaped.
pub(crate) fn quoted(s: &str) -> Id {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'n') => out.push('\\'),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    Id::Escaped(out)
}

/// Text for an HTML-like label: `&`, `<`, `>` and `"` escaped.
pub(crate) fn html_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub(crate) fn attr(k: &str, v: &str) -> Attribute {
    Attribute(Id::Plain(k.to_string()), quoted(v))
}

/// An attribute whose value is an HTML-like label (`<...>`).
pub(crate) fn html_attr(k: &str, html: &str) -> Attribute {
    Attribute(Id::Plain(k.to_string()), Id::Html(format!("<{html}>")))
}

pub(crate) fn vid(s: &str) -> NodeId {
    NodeId(quoted(s), None)
}

/// A node statement.
pub(crate) fn node(id: &str, attributes: Vec<Attribute>) -> Stmt {
    Stmt::Node(Node { id: vid(id), attributes })
}

/// An edge statement between two node ids.
pub(crate) fn edge_ids(a: &str, b: &str, attributes: Vec<Attribute>) -> Stmt {
    Stmt::Edge(Edge { ty: EdgeTy::Pair(Vertex::N(vid(a)), Vertex::N(vid(b))), attributes })
}

/// A subgraph (a cluster when its name starts with `cluster`).
pub(crate) fn subgraph(name: &str, stmts: Vec<Stmt>) -> Stmt {
    Stmt::Subgraph(Subgraph { id: quoted(name), stmts })
}

/// `{rank=same; a; b; ...}`.
pub(crate) fn same_rank(name: &str, ids: &[String]) -> Stmt {
    let mut stmts = vec![Stmt::Attribute(attr("rank", "same"))];
    stmts.extend(ids.iter().map(|id| node(id, vec![])));
    subgraph(name, stmts)
}

/// An invisible edge that keeps `a` left of (or above) `b`.
pub(crate) fn invisible(a: &str, b: &str) -> Stmt {
    edge_ids(a, b, vec![attr("style", "invis")])
}

/// The node a system node is drawn as: DEV and GPU nodes are one box, keyed by the DEV.
pub(crate) fn key(sys: &System, r: NodeRef) -> NodeRef {
    if r.ty == NodeType::Gpu { sys.node(r).gpu_parent().map_or(r, |d| NodeRef::new(NodeType::Dev, d)) } else { r }
}

/// The drawn id of a system node (NCCL-style: `CPU/0`, `PCI/...`, `DEV/...`, `NET/...`).
pub(crate) fn id_of(sys: &System, r: NodeRef) -> String {
    node_label(sys, key(sys, r))
}

/// The ranks of the GPUs a drawn node holds.
pub(crate) fn ranks_of(sys: &System, r: NodeRef) -> Vec<i32> {
    match r.ty {
        NodeType::Gpu => vec![sys.node(r).gpu_rank()],
        NodeType::Dev => {
            let mut v: Vec<i32> = sys
                .node(r)
                .links
                .iter()
                .filter(|l| l.rem.ty == NodeType::Gpu)
                .map(|l| sys.node(l.rem).gpu_rank())
                .collect();
            v.sort_unstable();
            v
        }
        _ => vec![],
    }
}

fn is_gpu(r: NodeRef) -> bool {
    matches!(r.ty, NodeType::Dev | NodeType::Gpu)
}

fn is_leaf(r: NodeRef) -> bool {
    is_gpu(r) || r.ty == NodeType::Nic
}

/// One link between two drawn nodes: its type and bandwidth, one entry per pair and type.
pub(crate) fn link_edges(sys: &System) -> BTreeMap<(NodeRef, NodeRef, u8), f32> {
    let mut edges: BTreeMap<(NodeRef, NodeRef, u8), f32> = BTreeMap::new();
    for t in NodeType::ALL {
        for (i, n) in sys.list(t).iter().enumerate() {
            let a = key(sys, NodeRef::new(t, i));
            for l in &n.links {
                let b = key(sys, l.rem);
                if a == b || l.ty == LinkType::Loc && t == NodeType::Gpu {
                    continue;
                }
                let k = if a < b { (a, b, l.ty as u8) } else { (b, a, l.ty as u8) };
                edges.entry(k).or_insert(l.bw);
            }
        }
    }
    edges
}

/// The link type of a `link_edges` key.
pub(crate) fn link_type(ty: u8) -> LinkType {
    match ty {
        0 => LinkType::Loc,
        1 => LinkType::Nvl,
        3 => LinkType::C2c,
        4 => LinkType::Pci,
        9 => LinkType::Sys,
        _ => LinkType::Net,
    }
}

/// A drawn node of the NVLink fabric: the bar for an NVSwitch (or a piece of it, when
/// the GPUs are on several rows), or the box that holds an NVLink mesh.
#[derive(Debug, Clone)]
pub(crate) struct Fabric {
    pub id: String,
    /// The NVSwitch it stands for; `None` for a mesh of GPU-to-GPU NVLinks.
    pub nvs: Option<NodeRef>,
    /// The GPUs (drawn nodes) joined to it, left to right.
    pub gpus: Vec<NodeRef>,
    /// The socket whose box holds it; `None`: under all of them.
    pub socket: Option<usize>,
    pub row: usize,
    /// How many drawn cells wide the bar is.
    pub span: usize,
    /// The bar's cells from left to right: the GPU above each cell, or none (a NIC
    /// above). Edges from a GPU end on its cell, so they drop straight down.
    pub slots: Vec<Option<NodeRef>>,
}

/// Where every drawn node goes: rows from the top, and per row and socket the nodes
/// from left to right.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// CPUs in drawing order (one box each).
    pub sockets: Vec<NodeRef>,
    /// `rows[row][socket]`: the nodes of that row in that socket's box, left to right.
    pub rows: Vec<Vec<Vec<NodeRef>>>,
    /// Each tree node's parent and the link from the parent.
    pub parent: HashMap<NodeRef, (NodeRef, LinkType, f32)>,
    pub fabrics: Vec<Fabric>,
    /// GPU-to-GPU NVLinks drawn as direct edges (both ends side by side).
    pub direct_nvl: Vec<(NodeRef, NodeRef, f32)>,
    /// Row of each node.
    pub row_of: HashMap<NodeRef, usize>,
    /// Ranks of the GPU boxes whose GPU was trimmed.
    pub trimmed: HashMap<NodeRef, i32>,
}

/// Approximate drawn sizes, in points, used to pick the wrapping.
const CELL_W: f64 = 140.0;
const ROW_H: f64 = 74.0;
const LEGEND_H: f64 = 190.0;
const LEGEND_W: f64 = 560.0;

struct Tree {
    kids: HashMap<NodeRef, Vec<NodeRef>>,
    parent: HashMap<NodeRef, (NodeRef, LinkType, f32)>,
    /// Ranks of GPU boxes whose GPU was trimmed away.
    trimmed: HashMap<NodeRef, i32>,
}

fn build_tree(sys: &System) -> Tree {
    let mut kids: HashMap<NodeRef, Vec<NodeRef>> = HashMap::new();
    let mut parent = HashMap::new();
    let mut seen: HashSet<NodeRef> = HashSet::new();
    for c in 0..sys.count(NodeType::Cpu) {
        let cpu = NodeRef::new(NodeType::Cpu, c);
        seen.insert(cpu);
        let mut stack = vec![cpu];
        while let Some(r) = stack.pop() {
            let mut mine = Vec::new();
            for l in &sys.node(r).links {
                let down = l.ty == LinkType::Pci && !matches!(l.rem.ty, NodeType::Cpu)
                    || l.ty == LinkType::Net && r.ty == NodeType::Nic && l.rem.ty == NodeType::Net;
                let k = key(sys, l.rem);
                if !down || k == r || seen.contains(&k) {
                    continue;
                }
                seen.insert(k);
                parent.insert(k, (r, l.ty, l.bw));
                mine.push(k);
            }
            stack.extend(mine.iter().copied());
            kids.insert(r, mine);
        }
    }
    Tree { kids, parent, trimmed: HashMap::new() }
}

/// The ranks of GPU boxes left without their GPU: trimmed GPUs, which rank 0 reaches
/// only through the network. Found by bus id among the ranked GPUs.
fn trimmed_ranks(sys: &System, gpus: &[crate::model::prepare::RankedGpu]) -> HashMap<NodeRef, i32> {
    let mut out = HashMap::new();
    for (i, n) in sys.list(NodeType::Dev).iter().enumerate() {
        let r = NodeRef::new(NodeType::Dev, i);
        if !ranks_of(sys, r).is_empty() {
            continue;
        }
        if let Some(g) = n.busid.as_ref().and_then(|b| gpus.iter().find(|g| g.busid.eq_ignore_ascii_case(b))) {
            out.insert(r, g.rank);
        }
    }
    out
}

impl Tree {
    fn kids(&self, r: NodeRef) -> &[NodeRef] {
        self.kids.get(&r).map_or(&[], |v| v.as_slice())
    }
    /// The lowest rank under a node (`i32::MAX` when no GPU).
    fn min_rank(&self, sys: &System, r: NodeRef) -> i32 {
        let own = ranks_of(sys, r).into_iter().min().or(self.trimmed.get(&r).copied()).unwrap_or(i32::MAX);
        self.kids(r).iter().map(|&k| self.min_rank(sys, k)).fold(own, i32::min)
    }
    /// Sort every node's children: GPU subtrees by their lowest rank, then the others
    /// (NICs beside the GPUs of their switch) in bus order.
    fn sort(&mut self, sys: &System) {
        let keys: Vec<NodeRef> = self.kids.keys().copied().collect();
        for k in keys {
            let mut v = self.kids[&k].clone();
            v.sort_by_key(|&c| (self.min_rank(sys, c), c.ty == NodeType::Pci, node_label(sys, c)));
            self.kids.insert(k, v);
        }
    }
    fn leaves(&self, r: NodeRef, out: &mut Vec<NodeRef>) {
        if is_leaf(r) {
            out.push(r);
        }
        for &k in self.kids(r) {
            self.leaves(k, out);
        }
    }
    /// Switches (PCI nodes) under `r` with their depth below `r` (1 = child).
    fn switches(&self, r: NodeRef, depth: usize, out: &mut Vec<(NodeRef, usize)>) {
        for &k in self.kids(r) {
            if k.ty == NodeType::Pci {
                out.push((k, depth));
                self.switches(k, depth + 1, out);
            }
        }
    }
}

/// A piece of an NVSwitch bar while rows are laid out: the switch, the socket, its
/// GPUs, whether they are the first leaves of their row, and the leaves above the bar.
type Piece = (NodeRef, usize, Vec<NodeRef>, bool, Vec<Option<NodeRef>>);

/// One socket's share of a band of rows.
#[derive(Default)]
struct BandPart {
    /// Switches by depth (index 0 = depth 1).
    switches: Vec<Vec<NodeRef>>,
    /// Leaves in chunks of at most `per_row`.
    chunks: Vec<Vec<NodeRef>>,
}

impl Layout {
    pub(crate) fn new(an: &Analysis) -> Layout {
        let sys = &an.system;
        let mut tree = build_tree(sys);
        tree.trimmed = trimmed_ranks(sys, &an.gpus);
        tree.sort(sys);
        let mut sockets: Vec<NodeRef> = (0..sys.count(NodeType::Cpu)).map(|c| NodeRef::new(NodeType::Cpu, c)).collect();
        sockets.sort_by_key(|&c| (tree.min_rank(sys, c), c.idx));
        let leaves: usize = sockets
            .iter()
            .map(|&c| {
                let mut v = Vec::new();
                tree.leaves(c, &mut v);
                v.len()
            })
            .max()
            .unwrap_or(1)
            .max(1);
        // The widest rows that keep the drawing at most about 2:1; failing that, the
        // one closest to 3:2.
        let mut best: Option<(f64, Layout)> = None;
        for per_row in (1..=leaves).rev() {
            let lay = Layout::with_row_width(sys, &tree, &sockets, per_row);
            let (w, h) = lay.estimate();
            let aspect = w / h;
            if (0.4..=2.0).contains(&aspect) {
                return lay;
            }
            let score = (aspect / 1.5).ln().abs();
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((score, lay));
            }
        }
        match best {
            Some((_, l)) => l,
            None => Layout::with_row_width(sys, &tree, &sockets, leaves),
        }
    }

    /// The estimated drawing size (points) of a layout.
    fn estimate(&self) -> (f64, f64) {
        let mut width = 0.0;
        for s in 0..self.sockets.len() {
            let cells = self.rows.iter().map(|r| r[s].len()).max().unwrap_or(1).max(1);
            width += f64::max(cells as f64 * CELL_W, 260.0) + 24.0;
        }
        let bar = self.fabrics.iter().any(|f| f.socket.is_none());
        let height = self.rows.len() as f64 * ROW_H + if bar { ROW_H } else { 0.0 } + LEGEND_H + 40.0;
        (f64::max(width, LEGEND_W), height)
    }

    fn with_row_width(sys: &System, tree: &Tree, sockets: &[NodeRef], per_row: usize) -> Layout {
        // Bands of each socket: consecutive top-level subtrees with at most `per_row`
        // leaves together (a bigger subtree is a band alone, its leaves wrapped).
        let mut bands: Vec<Vec<BandPart>> = Vec::new();
        for &cpu in sockets {
            let mut parts: Vec<BandPart> = Vec::new();
            let mut cur: Vec<NodeRef> = Vec::new();
            let mut cur_leaves = 0;
            let flush = |cur: &mut Vec<NodeRef>, parts: &mut Vec<BandPart>| {
                if cur.is_empty() {
                    return;
                }
                let mut part = BandPart::default();
                let mut leaves = Vec::new();
                for &top in cur.iter() {
                    let mut sw = Vec::new();
                    if top.ty == NodeType::Pci {
                        sw.push((top, 1));
                        tree.switches(top, 2, &mut sw);
                    }
                    for (s, d) in sw {
                        if part.switches.len() < d {
                            part.switches.resize(d, Vec::new());
                        }
                        part.switches[d - 1].push(s);
                    }
                    tree.leaves(top, &mut leaves);
                }
                part.chunks = leaves.chunks(per_row).map(|c| c.to_vec()).collect();
                parts.push(part);
                cur.clear();
            };
            for &top in tree.kids(cpu) {
                let mut l = Vec::new();
                tree.leaves(top, &mut l);
                let n = l.len().max(1);
                if !cur.is_empty() && cur_leaves + n > per_row {
                    flush(&mut cur, &mut parts);
                    cur_leaves = 0;
                }
                cur.push(top);
                cur_leaves += n;
            }
            flush(&mut cur, &mut parts);
            bands.push(parts);
        }
        let nsock = sockets.len();
        let nbands = bands.iter().map(Vec::len).max().unwrap_or(0);
        let one_row_of_gpus = bands.iter().all(|b| b.len() <= 1 && b.first().is_none_or(|p| p.chunks.len() <= 1));

        // GPU-to-GPU NVLinks: direct edges when every pair is side by side, else a mesh box.
        let mut nvl_pairs: Vec<(NodeRef, NodeRef, f32)> = Vec::new();
        let mut nvs_gpus: BTreeMap<NodeRef, Vec<NodeRef>> = BTreeMap::new();
        for ((a, b, ty), bw) in link_edges(sys) {
            if link_type(ty) != LinkType::Nvl {
                continue;
            }
            match (is_gpu(a), is_gpu(b)) {
                (true, true) => nvl_pairs.push((a, b, bw)),
                (true, false) if b.ty == NodeType::Nvs => nvs_gpus.entry(b).or_default().push(a),
                (false, true) if a.ty == NodeType::Nvs => nvs_gpus.entry(a).or_default().push(b),
                _ => {}
            }
        }

        let mut rows: Vec<Vec<Vec<NodeRef>>> = vec![sockets.iter().map(|&c| vec![c]).collect()];
        let mut fabrics: Vec<Fabric> = Vec::new();
        let mut leaf_order: Vec<NodeRef> = Vec::new();
        for b in 0..nbands {
            let depth = bands.iter().filter_map(|p| p.get(b)).map(|p| p.switches.len()).max().unwrap_or(0);
            for d in 0..depth {
                rows.push(
                    (0..nsock)
                        .map(|s| bands[s].get(b).and_then(|p| p.switches.get(d)).cloned().unwrap_or_default())
                        .collect(),
                );
            }
            let chunks = bands.iter().filter_map(|p| p.get(b)).map(|p| p.chunks.len()).max().unwrap_or(0);
            for c in 0..chunks {
                let leaves: Vec<Vec<NodeRef>> = (0..nsock)
                    .map(|s| bands[s].get(b).and_then(|p| p.chunks.get(c)).cloned().unwrap_or_default())
                    .collect();
                leaf_order.extend(leaves.iter().flatten().copied());
                let mut under: Vec<Vec<NodeRef>> = leaves
                    .iter()
                    .map(|l| l.iter().filter(|r| r.ty == NodeType::Nic).flat_map(|&n| tree.kids(n).to_vec()).collect())
                    .collect();
                // Where each fabric piece goes: first in the row of NIC ports when its
                // GPUs are the first leaves of the row (the bar is then right under them),
                // else on a row of its own under the ports, as wide as the row.
                let mut pieces: Vec<Piece> = Vec::new();
                if !one_row_of_gpus {
                    for (nvs, gpus) in &nvs_gpus {
                        for (s, l) in leaves.iter().enumerate() {
                            let here: Vec<NodeRef> = l.iter().filter(|g| gpus.contains(g)).copied().collect();
                            if here.is_empty() {
                                continue;
                            }
                            let first = l.iter().take(here.len()).all(|g| here.contains(g));
                            let slots: Vec<Option<NodeRef>> =
                                l.iter().map(|x| here.contains(x).then_some(*x)).collect();
                            pieces.push((*nvs, s, here, first, slots));
                        }
                    }
                }
                let leaf_row = rows.len();
                let under_used = under.iter().any(|u| !u.is_empty()) || pieces.iter().any(|p| p.3);
                let below_row = leaf_row + 1 + usize::from(under_used);
                for (nvs, s, here, first, cells) in pieces.iter().cloned() {
                    let slots = if first { here.iter().map(|g| Some(*g)).collect() } else { cells };
                    let id = if fabrics.iter().any(|f| f.nvs == Some(nvs)) {
                        format!("{} part {}", node_label(sys, nvs), fabrics.len() + 1)
                    } else {
                        node_label(sys, nvs)
                    };
                    let row = if first { leaf_row + 1 } else { below_row };
                    let span = slots.len();
                    fabrics.push(Fabric { id, nvs: Some(nvs), gpus: here, socket: Some(s), row, span, slots });
                    if first {
                        under[s].insert(0, nvs);
                    }
                }
                rows.push(leaves);
                if under_used {
                    rows.push(under);
                }
                if pieces.iter().any(|p| !p.3) {
                    // A row for the bars alone (they are not in `rows`).
                    rows.push(vec![Vec::new(); nsock]);
                }
            }
        }
        // Fabric pieces are not system nodes of their own: keep them out of `rows`.
        for r in rows.iter_mut() {
            for s in r.iter_mut() {
                s.retain(|n| n.ty != NodeType::Nvs);
            }
        }
        let bottom = rows.len();
        if one_row_of_gpus {
            for (nvs, gpus) in &nvs_gpus {
                let mut g = gpus.clone();
                g.sort_by_key(|r| leaf_order.iter().position(|x| x == r));
                let slots: Vec<Option<NodeRef>> = leaf_order.iter().map(|x| g.contains(x).then_some(*x)).collect();
                let span = slots.len();
                fabrics.push(Fabric {
                    id: node_label(sys, *nvs),
                    nvs: Some(*nvs),
                    gpus: g,
                    socket: None,
                    row: bottom,
                    span,
                    slots,
                });
            }
        }
        // Direct NVLinks only between GPUs next to each other in one row.
        let pos = |r: NodeRef| -> Option<(usize, usize, usize)> {
            rows.iter().enumerate().find_map(|(ri, row)| {
                row.iter().enumerate().find_map(|(s, v)| v.iter().position(|x| *x == r).map(|p| (ri, s, p)))
            })
        };
        let gpus_in_order: Vec<NodeRef> = leaf_order.iter().copied().filter(|r| is_gpu(*r)).collect();
        let adjacent = |a: NodeRef, b: NodeRef| {
            let (ia, ib) = (gpus_in_order.iter().position(|x| *x == a), gpus_in_order.iter().position(|x| *x == b));
            match (ia, ib, pos(a), pos(b)) {
                (Some(ia), Some(ib), Some(pa), Some(pb)) => ia.abs_diff(ib) == 1 && pa.0 == pb.0 && pa.1 == pb.1,
                _ => false,
            }
        };
        let mut direct_nvl = Vec::new();
        if nvl_pairs.iter().all(|&(a, b, _)| adjacent(a, b)) {
            direct_nvl = nvl_pairs;
        } else {
            let mut g: Vec<NodeRef> = nvl_pairs.iter().flat_map(|&(a, b, _)| [a, b]).collect();
            g.sort_by_key(|&r| ranks_of(sys, r).first().copied().unwrap_or(i32::MAX));
            g.dedup();
            let row = if fabrics.iter().any(|f| f.socket.is_none()) { bottom + 1 } else { bottom };
            let span = g.len();
            fabrics.push(Fabric {
                id: "NVLINK/mesh".into(),
                nvs: None,
                gpus: g,
                socket: None,
                row,
                span,
                slots: vec![],
            });
        }
        let mut row_of = HashMap::new();
        for (ri, row) in rows.iter().enumerate() {
            for n in row.iter().flatten() {
                row_of.insert(*n, ri);
            }
        }
        Layout {
            sockets: sockets.to_vec(),
            rows,
            parent: tree.parent.clone(),
            fabrics,
            direct_nvl,
            row_of,
            trimmed: tree.trimmed.clone(),
        }
    }

    /// The last row used (fabric bars included).
    fn last_row(&self) -> usize {
        self.fabrics.iter().map(|f| f.row).chain([self.rows.len().saturating_sub(1)]).max().unwrap_or(0)
    }
}

/// NVLinks per link of this GPU generation.
fn nvlink_count(an: &Analysis, r: NodeRef, bw: f32) -> u32 {
    crate::render::names::nvlink_count(an, r, bw)
}

/// A CPU in words, without its CPU list.
fn cpu_words(k: &Kind) -> String {
    let d = crate::render::show::cpu_desc(k);
    d.split(", cpus").next().unwrap_or("").to_string()
}

fn cpu_list(k: &Kind) -> Option<String> {
    match k {
        Kind::Cpu { affinity: Some(a), .. } => Some(crate::render::show::affinity_ranges(a)),
        _ => None,
    }
}

/// A CPU list short enough for a box title: long lists (interleaved sockets) become
/// their count, first and last CPU.
fn short_cpu_list(list: &str) -> String {
    if list.len() <= 32 {
        return list.to_string();
    }
    let cpus: Vec<u32> = list
        .split(',')
        .flat_map(|r| match r.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (a.parse().unwrap_or(0), b.parse().unwrap_or(0));
                (a..=b).collect::<Vec<u32>>()
            }
            None => r.parse().ok().into_iter().collect(),
        })
        .collect();
    match (cpus.first(), cpus.last()) {
        (Some(a), Some(b)) => format!("{} of {a}..{b}", cpus.len()),
        _ => list.chars().take(32).collect(),
    }
}

/// A network device's name; fused devices list their first and last port.
fn net_name(name: &str) -> String {
    let parts: Vec<&str> = name.split('+').collect();
    if parts.len() > 2 { format!("{}+…+{}", parts[0], parts[parts.len() - 1]) } else { name.to_string() }
}

/// The label of a drawn node.
fn label(an: &Analysis, lay: &Layout, r: NodeRef) -> String {
    let sys = &an.system;
    let n = sys.node(r);
    let up = lay.parent.get(&r).map(|&(_, ty, bw)| format!("↑ {} {}", ty.name(), gbs(bw)));
    let mut lines: Vec<String> = Vec::new();
    match (&n.kind, r.ty) {
        (Kind::Cpu { .. }, _) => {
            lines.push(format!("CPU/{}", id_local(n.id)));
            lines.push(cpu_words(&n.kind));
        }
        (Kind::Dev { cc, .. }, _) | (Kind::Gpu { cc, .. }, _) => {
            let ranks: Vec<String> = ranks_of(sys, r).iter().map(|x| format!("rank {x}")).collect();
            match lay.trimmed.get(&r) {
                Some(t) if ranks.is_empty() => lines.push(format!("GPU rank {t} (trimmed) · sm{cc}")),
                _ => lines.push(format!("GPU {} · sm{cc}", ranks.join(", "))),
            }
            lines.push(n.busid.clone().unwrap_or_else(|| node_label(sys, r)));
            lines.extend(crate::render::names::node_pci_label(an, r));
            let mut last = up.clone().unwrap_or_default();
            // The NIC NCCL gives this GPU's channel 0, with the path type.
            if let Some(&rank) = ranks_of(sys, r).first()
                && let Some(g) = sys.gpu_by_rank(rank)
                && let Some(net) = mpaths::local_net(sys, &an.params, rank, 0)
            {
                let p = sys.path(NodeRef::new(NodeType::Gpu, g), NodeRef::new(NodeType::Net, net));
                let dev = sys.list(NodeType::Net)[net].net().map_or(-1, |x| x.dev);
                if !last.is_empty() {
                    last.push_str(" · ");
                }
                last.push_str(&format!("NET {dev} {}", p.ty.name()));
            }
            if !last.is_empty() {
                lines.push(last);
            }
        }
        (Kind::Net(info), _) => {
            lines.push(format!("NET {}: {}", info.dev, net_name(&info.name)));
            let fused = an.nets.iter().find(|d| d.dev == info.dev && d.is_virtual);
            let mut s = format!("{:.0} Gb/s", info.bw as f64 * 8.0);
            if let Some(f) = fused {
                s.push_str(&format!(", {} ports fused", f.physdevs.len()));
            }
            if info.gdr != 0 {
                s.push_str(", GDR");
            }
            lines.push(s);
        }
        (_, NodeType::Nic) => {
            lines.push(format!("NIC {}", n.busid.as_deref().unwrap_or("(no PCI device)")));
            lines.extend(crate::render::names::node_pci_label(an, r));
            lines.extend(up);
        }
        (Kind::Pci { device }, _) => {
            lines.push(format!("PCI switch {}", n.busid.as_deref().unwrap_or("?")));
            if *device != 0 {
                let ids = || format!("{:04x}:{:04x}", device >> 48, (device >> 32) & 0xffff);
                lines.push(crate::render::names::node_pci_label(an, r).unwrap_or_else(ids));
            }
            lines.extend(up);
        }
        _ => lines.push(node_label(sys, r)),
    }
    lines.join("\\n")
}

fn shape(r: NodeRef) -> (&'static str, &'static str) {
    match r.ty {
        NodeType::Cpu => ("box3d", FILL_CPU),
        NodeType::Pci => ("box", FILL_PCI),
        NodeType::Dev | NodeType::Gpu => ("box", FILL_GPU),
        NodeType::Nic => ("component", FILL_NIC),
        NodeType::Net => ("ellipse", FILL_NET),
        NodeType::Nvs => ("box", FILL_NVS),
        _ => ("box", FILL_PCI),
    }
}

/// The graph-wide attributes of every drawing.
pub(crate) fn graph_attrs(title: &str) -> Vec<Stmt> {
    vec![
        Stmt::Attribute(attr("label", title)),
        Stmt::Attribute(attr("labelloc", "t")),
        Stmt::Attribute(attr("fontname", "Helvetica")),
        Stmt::Attribute(attr("fontsize", "16")),
        Stmt::Attribute(attr("newrank", "true")),
        Stmt::Attribute(attr("ordering", "out")),
        // The final crossing pass over the whole graph would undo the order inside the
        // socket boxes.
        Stmt::Attribute(attr("remincross", "false")),
        Stmt::Attribute(attr("nodesep", "0.2")),
        Stmt::Attribute(attr("ranksep", "0.35")),
        Stmt::GAttribute(GraphAttributes::Node(vec![
            attr("fontname", "Helvetica"),
            attr("fontsize", "10"),
            attr("style", "filled"),
            attr("margin", "0.06,0.04"),
        ])),
        Stmt::GAttribute(GraphAttributes::Edge(vec![attr("fontname", "Helvetica"), attr("fontsize", "9")])),
    ]
}

/// The title: the machine, the node count and the NCCL release.
fn title(an: &Analysis, what: &str) -> String {
    let sys = &an.system;
    format!(
        "{}\\n{} GPU(s), {} NIC port(s), {} node(s) — NCCL {} {what}",
        an.input,
        an.gpus.len(),
        sys.count(NodeType::Net),
        an.options.nodes,
        an.options.env.release()
    )
}

/// One legend row: a colour swatch (or none) and its meaning.
fn legend_row(colour: Option<&str>, swatch: &str, text: &str) -> String {
    let cell = match colour {
        Some(c) => format!("<TD BGCOLOR=\"{c}\" WIDTH=\"28\">{}</TD>", html_text(swatch)),
        None => format!("<TD>{}</TD>", html_text(swatch)),
    };
    format!("<TR>{cell}<TD ALIGN=\"LEFT\">{}</TD></TR>", html_text(text))
}

/// The legend node.
pub(crate) fn legend(rows: &[(Option<&str>, &str, &str)]) -> Stmt {
    let mut html = String::from(
        "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\"><TR><TD COLSPAN=\"2\"><B>Legend</B></TD></TR>",
    );
    for (c, s, t) in rows {
        html.push_str(&legend_row(*c, s, t));
    }
    html.push_str("</TABLE>");
    node("legend", vec![attr("shape", "plaintext"), attr("style", ""), html_attr("label", &html)])
}

/// The legend of the machine drawings: the kinds of link this machine has, then units.
pub(crate) fn machine_legend_rows(sys: &System) -> Vec<(Option<&'static str>, &'static str, &'static str)> {
    let kinds: BTreeSet<LinkType> = link_edges(sys).keys().map(|k| link_type(k.2)).collect();
    let mut rows = vec![
        (Some(link_colour(LinkType::Nvl)), "NVL", "NVLink; the bar under the GPUs: the NVSwitch fabric"),
        (Some(link_colour(LinkType::C2c)), "C2C", "NVLink-C2C between a GPU and its CPU"),
        (Some(link_colour(LinkType::Pci)), "PCI", "PCIe link; ↑ GB/s in a box: its link to the box above"),
        (Some(link_colour(LinkType::Sys)), "- -", "dashed: SYS, the link between CPU sockets"),
        (Some(link_colour(LinkType::Net)), "NET", "a NIC and its network ports (fused ports: one)"),
        (None, "GB/s", "NCCL's model bandwidth, each direction"),
        (None, "NET n PIX", "the NIC NCCL gives the GPU's channel 0, path type"),
    ];
    let colours: Vec<(LinkType, &str)> = [LinkType::Nvl, LinkType::C2c, LinkType::Pci, LinkType::Sys, LinkType::Net]
        .into_iter()
        .map(|l| (l, link_colour(l)))
        .collect();
    rows.retain(|(c, _, _)| match c {
        Some(c) => colours.iter().any(|(l, lc)| lc == c && kinds.contains(l)),
        None => true,
    });
    rows
}

/// The statements that draw the machine: socket boxes, rows, tree edges, fabric,
/// C2C and SYS links. `edge_attrs` may add to (or replace) the attributes of an
/// edge between two drawn nodes, given its link type.
pub(crate) fn machine_stmts(
    an: &Analysis,
    lay: &Layout,
    edge_attrs: &dyn Fn(NodeRef, NodeRef, LinkType) -> Vec<Attribute>,
) -> Vec<Stmt> {
    let sys = &an.system;
    let id = |r: NodeRef| id_of(sys, r);
    let mut stmts = Vec::new();
    let node_stmt = |r: NodeRef| {
        let (shape, fill) = shape(r);
        let mut a = vec![attr("label", &label(an, lay, r)), attr("shape", shape), attr("fillcolor", fill)];
        if is_leaf(r) {
            a.push(attr("width", "1.3"));
        }
        if lay.trimmed.contains_key(&r) {
            a.push(attr("style", "filled,dashed"));
        }
        node(&id(r), a)
    };
    // One box per socket, holding its rows.
    for (s, &cpu) in lay.sockets.iter().enumerate() {
        let n = sys.node(cpu);
        let numa = id_local(n.id);
        let mut title = format!("NUMA {numa}");
        if let Some(c) = cpu_list(&n.kind) {
            title.push_str(&format!(": cpus {}", short_cpu_list(&c)));
        }
        let mut inner = vec![
            Stmt::Attribute(attr("label", &title)),
            Stmt::Attribute(attr("style", "rounded")),
            Stmt::Attribute(attr("color", "#9aa5b8")),
            Stmt::Attribute(attr("fontsize", "11")),
        ];
        for row in &lay.rows {
            for &r in &row[s] {
                inner.push(node_stmt(r));
            }
        }
        for f in lay.fabrics.iter().filter(|f| f.socket == Some(s)) {
            inner.push(fabric_node(an, f));
        }
        stmts.push(subgraph(&format!("cluster_socket{s}"), inner));
    }
    for f in lay.fabrics.iter().filter(|f| f.socket.is_none()) {
        stmts.push(fabric_node(an, f));
    }
    // Rows, and the order inside each row.
    let last = lay.last_row();
    for ri in 0..=last {
        let mut ids: Vec<String> = Vec::new();
        let mut ordered: Vec<Vec<String>> = Vec::new();
        for s in 0..lay.sockets.len() {
            let mut v: Vec<String> =
                lay.rows.get(ri).map(|r| r[s].iter().map(|&n| id(n)).collect()).unwrap_or_default();
            for f in lay.fabrics.iter().filter(|f| f.row == ri && f.socket == Some(s)) {
                v.insert(0, f.id.clone());
            }
            ids.extend(v.iter().cloned());
            ordered.push(v);
        }
        ids.extend(lay.fabrics.iter().filter(|f| f.row == ri && f.socket.is_none()).map(|f| f.id.clone()));
        if ids.is_empty() {
            continue;
        }
        stmts.push(same_rank(&format!("row{ri}"), &ids));
        let flat: Vec<&String> = ordered.iter().flatten().collect();
        for w in flat.windows(2) {
            // The CPUs' own SYS link already orders them.
            if ri == 0 && lay.sockets.len() == 2 && link_edges(sys).keys().any(|k| link_type(k.2) == LinkType::Sys) {
                continue;
            }
            stmts.push(invisible(w[0], w[1]));
        }
    }
    // Tree edges, parent above child.
    let order: HashMap<NodeRef, usize> =
        lay.rows.iter().flat_map(|r| r.iter().flatten()).enumerate().map(|(i, &n)| (n, i)).collect();
    let mut tree_edges: Vec<(NodeRef, NodeRef, LinkType)> =
        lay.parent.iter().map(|(&c, &(p, ty, _))| (p, c, ty)).collect();
    tree_edges.sort_by_key(|&(p, c, _)| (order.get(&p).copied(), order.get(&c).copied()));
    // Each edge spans exactly the rows between its ends, which fixes every row.
    let span = |a: NodeRef, b: NodeRef| -> String {
        let (ra, rb) = (lay.row_of.get(&a).copied().unwrap_or(0), lay.row_of.get(&b).copied().unwrap_or(0));
        rb.saturating_sub(ra).to_string()
    };
    for (p, c, ty) in tree_edges {
        let mut a = vec![attr("color", link_colour(ty)), attr("minlen", &span(p, c))];
        a.extend(edge_attrs(p, c, ty));
        stmts.push(edge_ids(&id(p), &id(c), a));
    }
    // The fabric: one edge per GPU, labelled with its links (once, in the bar, when
    // every GPU has the same).
    for f in &lay.fabrics {
        let links = fabric_links(an, f);
        let uniform = links.windows(2).all(|w| w[0] == w[1]);
        for (&g, &(count, bw)) in f.gpus.iter().zip(&links) {
            let rows = f.row.saturating_sub(lay.row_of.get(&g).copied().unwrap_or(0));
            let mut a = vec![
                attr("color", link_colour(LinkType::Nvl)),
                attr("penwidth", "2"),
                attr("minlen", &rows.to_string()),
            ];
            if !uniform {
                a.push(attr("xlabel", &format!("{count} NVL, {} GB/s", gbs(bw))));
            }
            a.extend(edge_attrs(g, f.nvs.unwrap_or(g), LinkType::Nvl));
            let head = match f.slots.iter().position(|x| *x == Some(g)) {
                Some(i) => NodeId(quoted(&f.id), Some(Port(Some(Id::Plain(format!("g{i}"))), Some("n".into())))),
                None => vid(&f.id),
            };
            stmts.push(Stmt::Edge(Edge { ty: EdgeTy::Pair(Vertex::N(vid(&id(g))), Vertex::N(head)), attributes: a }));
        }
    }
    for &(a, b, bw) in &lay.direct_nvl {
        let mut at = vec![
            attr("color", link_colour(LinkType::Nvl)),
            attr("penwidth", "2"),
            attr("label", &format!("{} NVL, {} GB/s", nvlink_count(an, a, bw), gbs(bw))),
        ];
        at.extend(edge_attrs(a, b, LinkType::Nvl));
        stmts.push(edge_ids(&id(a), &id(b), at));
    }
    // C2C, SYS and any other link outside the tree. With more than two sockets, the
    // SYS links meet in one node above the CPUs instead of crossing the top row.
    let cpus = sys.count(NodeType::Cpu);
    let sys_hub = cpus > 2;
    if sys_hub {
        let mut bws: Vec<String> = link_edges(sys)
            .iter()
            .filter(|((_, _, t), _)| link_type(*t) == LinkType::Sys)
            .map(|(_, bw)| gbs(*bw))
            .collect();
        bws.sort();
        bws.dedup();
        stmts.push(node(
            "SYS/interconnect",
            vec![
                attr("label", &format!("CPU interconnect\\nSYS {} GB/s between sockets", bws.join(", "))),
                attr("shape", "box"),
                attr("style", "rounded,dashed"),
                attr("color", link_colour(LinkType::Sys)),
            ],
        ));
        for &c in &lay.sockets {
            stmts.push(edge_ids(
                "SYS/interconnect",
                &id(c),
                vec![attr("color", link_colour(LinkType::Sys)), attr("style", "dashed")],
            ));
        }
    }
    for ((a, b, ty), bw) in link_edges(sys) {
        let lt = link_type(ty);
        if sys_hub && lt == LinkType::Sys && a.ty == NodeType::Cpu && b.ty == NodeType::Cpu {
            continue;
        }
        let in_tree = lay.parent.get(&b).is_some_and(|p| p.0 == a && p.1 == lt)
            || lay.parent.get(&a).is_some_and(|p| p.0 == b && p.1 == lt);
        if in_tree || lt == LinkType::Nvl || a.ty == NodeType::Nvs || b.ty == NodeType::Nvs || lt == LinkType::Loc {
            continue;
        }
        let (top, bottom) =
            if lay.row_of.get(&a).unwrap_or(&0) <= lay.row_of.get(&b).unwrap_or(&0) { (a, b) } else { (b, a) };
        let mut at = vec![attr("color", link_colour(lt)), attr("xlabel", &format!("{} {}", lt.name(), gbs(bw)))];
        match lt {
            LinkType::Sys => at.push(attr("style", "dashed")),
            LinkType::C2c => at.push(attr("penwidth", "2")),
            _ => {}
        }
        if lay.row_of.get(&a) == lay.row_of.get(&b) || lt != LinkType::C2c {
            at.push(attr("constraint", "false"));
        } else {
            at.push(attr("minlen", &span(top, bottom)));
        }
        at.extend(edge_attrs(top, bottom, lt));
        stmts.push(edge_ids(&id(top), &id(bottom), at));
    }
    stmts
}

/// The links of the GPU nodes a drawn node holds.
fn gpu_links(sys: &System, r: NodeRef) -> impl Iterator<Item = &crate::model::system::Link> {
    let gpus: Vec<NodeRef> = if r.ty == NodeType::Dev {
        sys.node(r).links.iter().filter(|l| l.rem.ty == NodeType::Gpu).map(|l| l.rem).collect()
    } else {
        vec![r]
    };
    gpus.into_iter().flat_map(move |g| sys.node(g).links.iter())
}

/// Each GPU's NVLinks to a fabric node: (link count, GB/s).
fn fabric_links(an: &Analysis, f: &Fabric) -> Vec<(u32, f32)> {
    let sys = &an.system;
    f.gpus
        .iter()
        .map(|&g| {
            let bw = match f.nvs {
                Some(nvs) => sys
                    .node(g)
                    .links
                    .iter()
                    .chain(gpu_links(sys, g))
                    .filter(|l| key(sys, l.rem) == nvs)
                    .map(|l| l.bw)
                    .fold(0.0, f32::max),
                None => link_edges(sys)
                    .iter()
                    .filter(|((a, b, t), _)| {
                        link_type(*t) == LinkType::Nvl && (*a == g || *b == g) && is_gpu(*a) && is_gpu(*b)
                    })
                    .map(|(_, bw)| *bw)
                    .sum(),
            };
            (nvlink_count(an, g, bw), bw)
        })
        .collect()
}

fn fabric_node(an: &Analysis, f: &Fabric) -> Stmt {
    let sys = &an.system;
    let width = format!("{:.2}", (f.span.max(1) as f64 * CELL_W - 14.0) / 72.0);
    match f.nvs {
        Some(_) => {
            let continued = if f.id.contains(" part ") { " (continued)" } else { "" };
            let links = fabric_links(an, f);
            let each = match links.first() {
                Some(&(count, bw)) if links.windows(2).all(|w| w[0] == w[1]) => {
                    format!("\n{count} NVLinks, {} GB/s a GPU", gbs(bw))
                }
                _ => String::new(),
            };
            // A row of empty cells (one under each leaf above, for the edges to end
            // on), then the name across them.
            let title = html_text(&format!("NVSwitch fabric{continued}{each}")).replace('\n', "<BR/>");
            let n = f.slots.len().max(1);
            let cell_w = ((CELL_W - 14.0) as usize).max(40);
            let mut html =
                String::from("<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"2\"><TR>");
            for i in 0..n {
                html.push_str(&format!("<TD PORT=\"g{i}\" WIDTH=\"{cell_w}\" HEIGHT=\"4\"></TD>"));
            }
            html.push_str(&format!("</TR><TR><TD COLSPAN=\"{n}\">{title}</TD></TR></TABLE>"));
            let _ = width;
            node(
                &f.id,
                vec![html_attr("label", &html), attr("shape", "box"), attr("fillcolor", FILL_NVS), attr("margin", "0")],
            )
        }
        None => {
            // The mesh as a matrix of NVLink counts between ranks.
            let ranks: Vec<(NodeRef, i32)> =
                f.gpus.iter().map(|&g| (g, ranks_of(sys, g).first().copied().unwrap_or(-1))).collect();
            let edges = link_edges(sys);
            let mut html = String::from(
                "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"2\"><TR><TD COLSPAN=\"99\">NVLink mesh: links between ranks</TD></TR><TR><TD></TD>",
            );
            for (_, r) in &ranks {
                html.push_str(&format!("<TD><B>{r}</B></TD>"));
            }
            html.push_str("</TR>");
            for &(a, ra) in &ranks {
                html.push_str(&format!("<TR><TD><B>{ra}</B></TD>"));
                for &(b, _) in &ranks {
                    let k = if a < b { (a, b, LinkType::Nvl as u8) } else { (b, a, LinkType::Nvl as u8) };
                    let cell = match edges.get(&k) {
                        Some(&bw) if a != b => nvlink_count(an, a, bw).to_string(),
                        _ if a == b => "·".to_string(),
                        _ => String::new(),
                    };
                    html.push_str(&format!("<TD>{cell}</TD>"));
                }
                html.push_str("</TR>");
            }
            html.push_str("</TABLE>");
            node(&f.id, vec![attr("shape", "box"), attr("fillcolor", FILL_NVS), html_attr("label", &html)])
        }
    }
}

/// Print an undirected graph, with a trailing newline.
pub(crate) fn print(stmts: Vec<Stmt>) -> String {
    let g = graphviz_rust::dot_structures::Graph::Graph { id: Id::Plain("topo".into()), strict: false, stmts };
    let mut s = g.print(&mut PrinterContext::default());
    s.push('\n');
    s
}

/// Print a directed graph, with a trailing newline.
pub(crate) fn print_directed(stmts: Vec<Stmt>) -> String {
    let g = graphviz_rust::dot_structures::Graph::DiGraph { id: Id::Plain("topo".into()), strict: false, stmts };
    let mut s = g.print(&mut PrinterContext::default());
    s.push('\n');
    s
}

/// The legend, on a row of its own under `above` (a node of the last row).
pub(crate) fn legend_at_bottom(rows: &[(Option<&str>, &str, &str)], above: &str) -> Vec<Stmt> {
    vec![
        legend(rows),
        subgraph("legendrow", vec![Stmt::Attribute(attr("rank", "sink")), node("legend", vec![])]),
        edge_ids(above, "legend", vec![attr("style", "invis")]),
    ]
}

impl Layout {
    /// A node of the bottom row, to hang the legend under.
    pub(crate) fn bottom_node(&self, sys: &System) -> String {
        let last = self.last_row();
        if let Some(f) = self.fabrics.iter().find(|f| f.row == last) {
            return f.id.clone();
        }
        self.rows
            .iter()
            .rev()
            .find_map(|r| r.iter().flatten().next())
            .map_or_else(|| "legend".to_string(), |&n| id_of(sys, n))
    }
}

/// `topo paths --dot`: the machine.
pub fn system(an: &Analysis) -> String {
    let lay = Layout::new(an);
    let mut stmts = graph_attrs(&title(an, "model"));
    stmts.extend(machine_stmts(an, &lay, &|_, _, _| Vec::new()));
    let mut legend = machine_legend_rows(&an.system);
    if !lay.trimmed.is_empty() {
        legend.push((None, "trimmed", "dashed GPU: rank 0 reaches it only through the network"));
    }
    stmts.extend(legend_at_bottom(&legend, &lay.bottom_node(&an.system)));
    print(stmts)
}

/// Names of the GPU ranks of a set of drawn nodes (for tests and labels).
pub(crate) fn channel_list(chans: &BTreeSet<u32>) -> String {
    crate::discover::cpumap::ranges(chans).replace(',', ", ")
}

#[cfg(test)]
mod tests {
    use graphviz_rust::dot_structures::Id;

    fn q(s: &str) -> String {
        match super::quoted(s) {
            Id::Escaped(e) => e,
            _ => String::new(),
        }
    }

    #[test]
    fn long_names_are_shortened() {
        assert_eq!(super::short_cpu_list("0-55,112-167"), "0-55,112-167");
        assert_eq!(super::short_cpu_list("0,2,4,6,8,10,12,14,16,18,20,22,24,26,28"), "15 of 0..28");
        assert_eq!(super::net_name("mlx5_2+mlx5_3"), "mlx5_2+mlx5_3");
        assert_eq!(super::net_name("a+b+c+d"), "a+…+d");
    }

    /// dgx-h100: sockets by their lowest rank, every row's GPUs in rank order, each
    /// NIC port on the row under its NIC, and the NVSwitch drawn once per row of GPUs.
    #[test]
    fn dgx_h100_layout() {
        use crate::model::{NodeType, system::NodeRef};
        let (xml, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let an = crate::model::analyze(&xml, "dgx-h100", &crate::model::Options::default()).unwrap();
        let lay = super::Layout::new(&an);
        let sys = &an.system;
        assert_eq!(lay.sockets, vec![NodeRef::new(NodeType::Cpu, 0), NodeRef::new(NodeType::Cpu, 1)]);
        let mut seen = Vec::new();
        for row in &lay.rows {
            for socket in row {
                let ranks: Vec<i32> = socket.iter().flat_map(|&r| super::ranks_of(sys, r)).collect();
                assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
                seen.extend(ranks);
            }
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..8).collect::<Vec<_>>());
        for (i, n) in sys.list(NodeType::Net).iter().enumerate() {
            let net = NodeRef::new(NodeType::Net, i);
            let nic = lay.parent[&net].0;
            assert_eq!(lay.row_of[&net], lay.row_of[&nic] + 1, "{:?}", n.net());
        }
        let bars: Vec<usize> = lay.fabrics.iter().map(|f| f.gpus.len()).collect();
        assert_eq!(bars.iter().sum::<usize>(), 8, "{bars:?}");
        assert!(lay.fabrics.iter().all(|f| f.nvs.is_some()));
    }

    #[test]
    fn quoting_keeps_line_breaks() {
        assert_eq!(q("GPU a\\nsm90"), "\"GPU a\\nsm90\"");
        assert_eq!(q("a\\b \"c\""), "\"a\\\\b \\\"c\\\"\"");
    }
}
