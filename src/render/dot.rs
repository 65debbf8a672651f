//! `topo paths --dot`: the system as a Graphviz graph (through graphviz-rust), with the
//! path each GPU takes to the NIC NCCL gives its first channel drawn in that GPU's colour.

use std::collections::{BTreeMap, HashMap};

use graphviz_rust::dot_structures::{Attribute, Edge, EdgeTy, Graph, Id, Node, NodeId, Stmt, Vertex};
use graphviz_rust::printer::{DotPrinter, PrinterContext};

use crate::model::analysis::node_label;
use crate::model::system::{Kind, NodeRef, System};
use crate::model::{Analysis, LinkType, NodeType, paths as mpaths};
use crate::render::gbs;

pub(crate) const COLOURS: [&str; 12] = [
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324", "#800000", "#469990",
    "#000075", "#808000",
];

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

pub(crate) fn attr(k: &str, v: &str) -> Attribute {
    Attribute(Id::Plain(k.to_string()), quoted(v))
}

pub(crate) fn vid(s: &str) -> NodeId {
    NodeId(quoted(s), None)
}

/// The node a system node is drawn as: DEV and GPU nodes are one box, keyed by the DEV.
pub(crate) fn key(sys: &System, r: NodeRef) -> NodeRef {
    if r.ty == NodeType::Gpu { sys.node(r).gpu_parent().map_or(r, |d| NodeRef::new(NodeType::Dev, d)) } else { r }
}

/// The graph attributes and one node statement per drawn node.
pub(crate) fn node_stmts(an: &Analysis, title: &str) -> Vec<Stmt> {
    let sys = &an.system;
    let mut stmts = vec![
        Stmt::Attribute(attr("rankdir", "TB")),
        Stmt::Attribute(attr("label", title)),
        Stmt::Attribute(attr("fontname", "Helvetica")),
    ];
    for t in [NodeType::Cpu, NodeType::Pci, NodeType::Nvs, NodeType::Dev, NodeType::Nic, NodeType::Net, NodeType::Cxb] {
        for (i, n) in sys.list(t).iter().enumerate() {
            let r = NodeRef::new(t, i);
            let (label, shape, fill) = match (&n.kind, t) {
                (Kind::Dev { cc, .. }, _) => {
                    let ranks: Vec<String> = n
                        .links
                        .iter()
                        .filter(|l| l.rem.ty == NodeType::Gpu)
                        .map(|l| format!("rank {}", sys.node(l.rem).gpu_rank()))
                        .collect();
                    (
                        format!("GPU {}\\nsm{} {}", n.busid.as_deref().unwrap_or(""), cc, ranks.join(",")),
                        "box",
                        "#c6e5b3",
                    )
                }
                (Kind::Net(info), _) => {
                    (format!("NET{} {}\\n{:.0} Gb/s", info.dev, info.name, info.bw * 8.0), "ellipse", "#fde7b4")
                }
                (_, NodeType::Cpu) => (node_label(sys, r), "box3d", "#cfd8ea"),
                (_, NodeType::Nvs) => ("NVSwitch".into(), "octagon", "#e3d0ef"),
                (_, NodeType::Nic) => (format!("NIC {}", n.busid.as_deref().unwrap_or("")), "component", "#fde7b4"),
                _ => (node_label(sys, r), "box", "#eeeeee"),
            };
            stmts.push(Stmt::Node(Node {
                id: vid(&node_label(sys, r)),
                attributes: vec![
                    attr("label", &label),
                    attr("shape", shape),
                    attr("style", "filled"),
                    attr("fillcolor", fill),
                ],
            }));
        }
    }
    stmts
}

/// One entry per pair of drawn nodes and link type, with the link's bandwidth.
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

/// The drawing style of a link type.
pub(crate) fn link_style(lt: LinkType) -> Option<Attribute> {
    match lt {
        LinkType::Nvl | LinkType::C2c => Some(attr("style", "bold")),
        LinkType::Sys => Some(attr("style", "dashed")),
        _ => None,
    }
}

/// An edge between two drawn nodes.
pub(crate) fn edge(sys: &System, a: NodeRef, b: NodeRef, attributes: Vec<Attribute>) -> Stmt {
    Stmt::Edge(Edge {
        ty: EdgeTy::Pair(Vertex::N(vid(&node_label(sys, a))), Vertex::N(vid(&node_label(sys, b)))),
        attributes,
    })
}

/// Print an undirected graph, with a trailing newline.
pub(crate) fn print(stmts: Vec<Stmt>) -> String {
    let g = Graph::Graph { id: Id::Plain("topo".into()), strict: false, stmts };
    let mut s = g.print(&mut PrinterContext::default());
    s.push('\n');
    s
}

/// The Graphviz text.
pub fn system(an: &Analysis) -> String {
    let sys = &an.system;
    let mut stmts = node_stmts(
        an,
        &format!(
            "{} — NCCL {} model; coloured: each GPU's path to its channel-0 NIC",
            an.input,
            an.options.env.release()
        ),
    );
    let key = |r: NodeRef| key(sys, r);
    // Colour the links on each GPU's path to its channel-0 NIC.
    let mut used: HashMap<(NodeRef, NodeRef), Vec<&str>> = HashMap::new();
    for (g, node) in sys.list(NodeType::Gpu).iter().enumerate() {
        let rank = node.gpu_rank();
        let Some(n) = mpaths::local_net(sys, &an.params, rank, 0) else { continue };
        let p = sys.path(NodeRef::new(NodeType::Gpu, g), NodeRef::new(NodeType::Net, n));
        let colour = COLOURS[g % COLOURS.len()];
        for h in &p.hops {
            let l = sys.link(*h);
            let (a, b) = (key(h.from), key(l.rem));
            if a != b {
                used.entry(if a < b { (a, b) } else { (b, a) }).or_default().push(colour);
            }
        }
    }
    for ((a, b, ty), bw) in link_edges(sys) {
        let lt = link_type(ty);
        let mut attrs = vec![attr("label", &format!("{} {}", lt.name(), gbs(bw))), attr("dir", "none")];
        attrs.extend(link_style(lt));
        if let Some(cs) = used.get(&(a, b)) {
            let mut cs = cs.clone();
            cs.dedup();
            attrs.push(attr("color", &cs.join(":")));
            attrs.push(attr("penwidth", "2"));
        }
        stmts.push(edge(sys, a, b, attrs));
    }
    print(stmts)
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
    fn quoting_keeps_line_breaks() {
        assert_eq!(q("GPU a\\nsm90"), "\"GPU a\\nsm90\"");
        assert_eq!(q("a\\b \"c\""), "\"a\\\\b \\\"c\\\"\"");
    }
}
