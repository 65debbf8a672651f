//! The machine drawn from its [`Layout`]: socket boxes and their rows, node labels and
//! shapes, tree edges, the NVLink fabric, C2C and SYS links, and the legend rows of its
//! link kinds. The paths picture is this alone; the search's `--channel` picture draws
//! a channel over it.

use std::collections::{BTreeSet, HashMap};

use graphviz_rust::dot_structures::{Attribute, Edge, EdgeTy, Id, NodeId, Port, Stmt, Vertex};

use super::graphviz::*;
use super::layout::{CELL_W, Fabric, Layout, id_of, is_gpu, is_leaf, key, link_edges, link_type, ranks_of};
use crate::model::analysis::node_label;
use crate::model::system::{Kind, NodeRef, System, id_local};
use crate::model::{Analysis, LinkType, NodeType, paths as mpaths};
use crate::render::gbs;

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

/// The legend of the machine drawings: the kinds of link this machine has, then units.
pub(super) fn machine_legend_rows(sys: &System) -> Vec<(Option<&'static str>, &'static str, &'static str)> {
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
pub(super) fn machine_stmts(
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

#[cfg(test)]
mod tests {
    #[test]
    fn long_names_are_shortened() {
        assert_eq!(super::short_cpu_list("0-55,112-167"), "0-55,112-167");
        assert_eq!(super::short_cpu_list("0,2,4,6,8,10,12,14,16,18,20,22,24,26,28"), "15 of 0..28");
        assert_eq!(super::net_name("mlx5_2+mlx5_3"), "mlx5_2+mlx5_3");
        assert_eq!(super::net_name("a+b+c+d"), "a+…+d");
    }
}
