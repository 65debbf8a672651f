//! `topo paths --dot`: the system as a Graphviz graph (through graphviz-rust), with the
//! path each GPU takes to the NIC NCCL gives its first channel drawn in that GPU's colour.

use std::collections::{BTreeMap, HashMap};

use graphviz_rust::dot_structures::{Attribute, Edge, EdgeTy, Graph, Id, Node, NodeId, Stmt, Vertex};
use graphviz_rust::printer::{DotPrinter, PrinterContext};

use crate::model::analysis::node_label;
use crate::model::system::{id_local, Kind, NodeRef};
use crate::model::{paths as mpaths, Analysis, LinkType, NodeType, PathType};
use crate::render::gbs;
use crate::render::show::cpu_desc;

const COLOURS: [&str; 12] = [
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324", "#800000", "#469990",
    "#000075", "#808000",
];

/// A quoted DOT string; a newline in `s` becomes DOT's `\n` line break.
fn quoted(s: &str) -> Id {
    Id::Escaped(format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")))
}

fn attr(k: &str, v: &str) -> Attribute {
    Attribute(Id::Plain(k.to_string()), quoted(v))
}

fn vid(s: &str) -> NodeId {
    NodeId(quoted(s), None)
}

/// The Graphviz text.
pub fn system(an: &Analysis) -> String {
    let sys = &an.system;
    let mut stmts = vec![
        Stmt::Attribute(attr("rankdir", "TB")),
        Stmt::Attribute(attr("label", &format!("{} — NCCL 2.30.7 model; coloured: each GPU's path to its channel-0 NIC", an.input))),
        Stmt::Attribute(attr("fontname", "Helvetica")),
        Stmt::Attribute(attr("labelloc", "t")),
    ];
    // DEV and GPU nodes are drawn as one box, keyed by the DEV node.
    let key = |r: NodeRef| -> NodeRef {
        if r.ty == NodeType::Gpu {
            sys.node(r).gpu_parent().map_or(r, |d| NodeRef::new(NodeType::Dev, d))
        } else {
            r
        }
    };
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
                    (format!("GPU {}\nsm{} {}", n.busid.as_deref().unwrap_or(""), cc, ranks.join(",")), "box", "#c6e5b3")
                }
                (Kind::Net(info), _) => (format!("NET{} {}\n{:.0} Gb/s", info.dev, info.name, info.bw * 8.0), "ellipse", "#fde7b4"),
                (k @ Kind::Cpu { .. }, _) => (format!("CPU {}\n{}", id_local(n.id), cpu_desc(k)), "box3d", "#cfd8ea"),
                (Kind::Pci { .. }, _) => (format!("PCIe switch\n{}", n.busid.as_deref().unwrap_or("")), "box", "#eeeeee"),
                (_, NodeType::Nvs) => ("NVSwitch".into(), "octagon", "#e3d0ef"),
                (_, NodeType::Nic) => (format!("NIC {}", n.busid.as_deref().unwrap_or("")), "component", "#fde7b4"),
                _ => (node_label(sys, r), "box", "#eeeeee"),
            };
            stmts.push(Stmt::Node(Node {
                id: vid(&node_label(sys, r)),
                attributes: vec![attr("label", &label), attr("shape", shape), attr("style", "filled"), attr("fillcolor", fill)],
            }));
        }
    }
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
    // One edge per pair of nodes and link type, with the bandwidth.
    let mut edges: BTreeMap<(NodeRef, NodeRef, u8), f32> = BTreeMap::new();
    for t in NodeType::ALL {
        for (i, n) in sys.list(t).iter().enumerate() {
            let a = key(NodeRef::new(t, i));
            for l in &n.links {
                let b = key(l.rem);
                if a == b || l.ty == LinkType::Loc && t == NodeType::Gpu {
                    continue;
                }
                let k = if a < b { (a, b, l.ty as u8) } else { (b, a, l.ty as u8) };
                edges.entry(k).or_insert(l.bw);
            }
        }
    }
    // Graphviz ranks a tail above its head: write each edge from the end nearer a CPU, and
    // let links between peers (CPU-CPU, GPU-GPU) not push the ranks apart.
    let level = |r: NodeRef| -> usize {
        if r.ty == NodeType::Cpu {
            return 0;
        }
        let to_cpu = sys.node(r).paths[NodeType::Cpu as usize].iter().filter(|p| p.ty != PathType::Dis);
        // Not reachable from a CPU by NCCL's paths (an NVSwitch): below everything.
        to_cpu.map(|p| p.count()).min().unwrap_or(usize::MAX)
    };
    for ((a, b, ty), bw) in edges {
        let (la, lb) = (level(a), level(b));
        let (a, b) = if lb < la { (b, a) } else { (a, b) };
        let lt = match ty {
            0 => LinkType::Loc,
            1 => LinkType::Nvl,
            3 => LinkType::C2c,
            4 => LinkType::Pci,
            9 => LinkType::Sys,
            _ => LinkType::Net,
        };
        // A peer edge carries an external label: dot cannot fit a plain one on an edge
        // within one rank and warns.
        let text = format!("{} {}", lt.name(), gbs(bw));
        let mut attrs = if la == lb {
            vec![attr("xlabel", &text), attr("constraint", "false")]
        } else {
            vec![attr("label", &text)]
        };
        match lt {
            LinkType::Nvl => attrs.push(attr("style", "bold")),
            LinkType::Sys => attrs.push(attr("style", "dashed")),
            LinkType::C2c => attrs.push(attr("style", "bold")),
            _ => {}
        }
        if let Some(cs) = used.get(&if a < b { (a, b) } else { (b, a) }) {
            let mut cs = cs.clone();
            cs.dedup();
            attrs.push(attr("color", &cs.join(":")));
            attrs.push(attr("penwidth", "2"));
        }
        stmts.push(Stmt::Edge(Edge {
            ty: EdgeTy::Pair(Vertex::N(vid(&node_label(sys, a))), Vertex::N(vid(&node_label(sys, b)))),
            attributes: attrs,
        }));
    }
    let g = Graph::Graph { id: Id::Plain("topo".into()), strict: false, stmts };
    let mut s = g.print(&mut PrinterContext::default());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(name: &str) -> String {
        let (x, _) = crate::fixtures::get(name).unwrap().load().unwrap();
        system(&crate::model::analyze(&x, "t", &crate::model::Options::default()).unwrap())
    }

    #[test]
    fn labels_break_lines_the_dot_way() {
        let d = dot("dgx-h100");
        assert!(d.contains(r#"label="GPU 0000:1a:00.0\nsm90 rank 0""#), "{d}");
        assert!(!d.contains(r"\\n"), "{d}");
        let Id::Escaped(q) = quoted("a\"b\\c\nd") else { panic!("not escaped") };
        assert_eq!(q, r#""a\"b\\c\nd""#);
    }

    #[test]
    fn edges_go_down_from_the_cpus_and_peers_do_not_rank() {
        let d = dot("dgx-h100");
        assert!(d.contains(r#""CPU/0" -- "PCI/0000:18:00.0""#), "{d}");
        assert!(d.contains(r#""NIC/0000:1b:00.0" -- "NET/mlx5_0""#), "{d}");
        assert!(d.contains(r#""DEV/0000:1a:00.0" -- "NVS/0""#), "{d}");
        let sys_edge = d.lines().find(|l| l.contains(r#""CPU/0" -- "CPU/1""#)).unwrap();
        assert!(sys_edge.contains(r#"constraint="false""#) && sys_edge.contains("xlabel"), "{sys_edge}");
    }
}
