//! Where every drawn node of the machine goes, the way people draw these machines: one
//! box per CPU socket with its PCIe tree, CPUs on the top row, switches below them, GPUs
//! (in rank order, left to right) and NICs at the bottom, each NIC's ports under it, the
//! NVLink fabric drawn as one bar under the GPUs.
//!
//! The layout is computed here and handed to Graphviz as rows (`rank=same`) and an order
//! inside each row (invisible edges), so that the drawing does not depend on Graphviz's
//! own ordering heuristics. A socket with many GPUs or NICs wraps onto several bands of
//! rows so that the drawing stays between 1:3 and 3:1 wide.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::model::analysis::node_label;
use crate::model::system::{NodeRef, System};
use crate::model::{Analysis, LinkType, NodeType};

/// The node a system node is drawn as: DEV and GPU nodes are one box, keyed by the DEV.
pub(super) fn key(sys: &System, r: NodeRef) -> NodeRef {
    if r.ty == NodeType::Gpu { sys.node(r).gpu_parent().map_or(r, |d| NodeRef::new(NodeType::Dev, d)) } else { r }
}

/// The drawn id of a system node (NCCL-style: `CPU/0`, `PCI/...`, `DEV/...`, `NET/...`).
pub(super) fn id_of(sys: &System, r: NodeRef) -> String {
    node_label(sys, key(sys, r))
}

/// The ranks of the GPUs a drawn node holds.
pub(super) fn ranks_of(sys: &System, r: NodeRef) -> Vec<i32> {
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

pub(super) fn is_gpu(r: NodeRef) -> bool {
    matches!(r.ty, NodeType::Dev | NodeType::Gpu)
}

pub(super) fn is_leaf(r: NodeRef) -> bool {
    is_gpu(r) || r.ty == NodeType::Nic
}

/// One link between two drawn nodes: its type and bandwidth, one entry per pair and type.
pub(super) fn link_edges(sys: &System) -> BTreeMap<(NodeRef, NodeRef, u8), f32> {
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
pub(super) fn link_type(ty: u8) -> LinkType {
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
pub(super) struct Fabric {
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
pub(super) struct Layout {
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
pub(super) const CELL_W: f64 = 140.0;
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
    pub(super) fn new(an: &Analysis) -> Layout {
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
    pub(super) fn last_row(&self) -> usize {
        self.fabrics.iter().map(|f| f.row).chain([self.rows.len().saturating_sub(1)]).max().unwrap_or(0)
    }
}

impl Layout {
    /// A node of the bottom row, to hang the legend under.
    pub(super) fn bottom_node(&self, sys: &System) -> String {
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

#[cfg(test)]
mod tests {
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
}
