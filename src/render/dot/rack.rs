//! `topo paths --dot` for a multi-node NVLink rack (`--nodes N --mnnvl`): the trays NCCL
//! fused into one system, each one box (its CPUs, its GPUs with their ranks, its NICs),
//! around the one NVLink fabric that joins them. Half the trays in a column left of the
//! fabric, half right of it, so 18 trays (a full NVL72) stay readable; the per-node drawing of the machine
//! (`machine.rs`) is for one tray at a time.

use std::fmt::Write as _;

use graphviz_rust::dot_structures::Stmt;

use super::graphviz::{
    FILL_CPU, FILL_GPU, FILL_NET, FILL_NVS, attr, edge_ids, graph_attrs, html_attr, html_text, invisible,
    legend_at_bottom, link_colour, node, print, same_rank,
};
use crate::model::system::{Kind, id_local, id_system};
use crate::model::{Analysis, LinkType, NodeRef, NodeType};

/// One tray's facts, read from the fused system.
struct Tray {
    host: i64,
    /// CPU NUMA ids.
    cpus: Vec<i64>,
    /// (rank, bus id, GB/s to the fabric).
    gpus: Vec<(i32, String, f32)>,
    /// (device, name, GB/s).
    nets: Vec<(i32, String, f32)>,
}

fn trays(an: &Analysis) -> Vec<Tray> {
    let sys = &an.system;
    let mut out: Vec<Tray> = (0..an.mnnvl.hosts as i64)
        .map(|host| Tray { host, cpus: Vec::new(), gpus: Vec::new(), nets: Vec::new() })
        .collect();
    for n in sys.list(NodeType::Cpu) {
        if let Some(t) = out.get_mut(id_system(n.id) as usize) {
            t.cpus.push(id_local(n.id));
        }
    }
    for (g, n) in sys.list(NodeType::Gpu).iter().enumerate() {
        let Some(t) = out.get_mut(id_system(n.id) as usize) else { continue };
        // The GPU's NVLink bandwidth to the fabric: its path to the NVSwitch.
        let nvs = if sys.count(NodeType::Nvs) > 0 {
            sys.path(NodeRef::new(NodeType::Gpu, g), NodeRef::new(NodeType::Nvs, 0)).bw
        } else {
            0.0
        };
        t.gpus.push((n.gpu_rank(), n.busid.clone().unwrap_or_default(), nvs));
    }
    for n in sys.list(NodeType::Net) {
        let (Some(t), Kind::Net(info)) = (out.get_mut(id_system(n.id) as usize), &n.kind) else { continue };
        t.nets.push((info.dev, info.name.clone(), info.bw));
    }
    for t in out.iter_mut() {
        t.gpus.sort_by_key(|g| g.0);
        t.nets.sort_by_key(|n| n.0);
    }
    out
}

fn tray_label(t: &Tray) -> String {
    let cols = t.gpus.len().max(t.nets.len()).max(t.cpus.len()).max(1);
    let mut h = String::from("<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\">");
    let first = t.gpus.first().map_or(0, |g| g.0);
    let last = t.gpus.last().map_or(0, |g| g.0);
    let _ = write!(h, "<TR><TD COLSPAN=\"{cols}\"><B>tray {}</B> · ranks {first}-{last}</TD></TR>", t.host);
    let row = |h: &mut String, cells: Vec<(String, &str)>| {
        h.push_str("<TR>");
        let n = cells.len().max(1);
        for (i, (text, fill)) in cells.iter().enumerate() {
            // Spread the cells over the columns: the last one takes what is left.
            let span = if i + 1 == n { cols - (n - 1) * (cols / n) } else { cols / n };
            let _ = write!(h, "<TD COLSPAN=\"{span}\" BGCOLOR=\"{fill}\">{text}</TD>");
        }
        h.push_str("</TR>");
    };
    row(&mut h, t.cpus.iter().map(|c| (format!("CPU {c}"), FILL_CPU)).collect());
    row(
        &mut h,
        t.gpus
            .iter()
            .map(|(r, b, _)| (format!("<B>{r}</B><BR/><FONT POINT-SIZE=\"8\">{}</FONT>", html_text(b)), FILL_GPU))
            .collect(),
    );
    if !t.nets.is_empty() {
        row(
            &mut h,
            t.nets.iter().map(|(_, name, bw)| (format!("{}<BR/>{bw} GB/s", html_text(name)), FILL_NET)).collect(),
        );
    }
    h.push_str("</TABLE>");
    h
}

/// The rack picture. Only for an analysis with multi-node NVLink on several trays.
pub(super) fn picture(an: &Analysis, title: &str) -> String {
    let ts = trays(an);
    let mut stmts: Vec<Stmt> = graph_attrs(title);
    // Left to right: the first half's column, the fabric, the second half's column.
    stmts.push(Stmt::Attribute(attr("rankdir", "LR")));
    stmts.push(Stmt::Attribute(attr("nodesep", "0.15")));
    stmts.push(Stmt::Attribute(attr("ranksep", "1.2")));
    let n_gpus: usize = ts.iter().map(|t| t.gpus.len()).sum();
    let per_gpu = ts.iter().flat_map(|t| t.gpus.iter().map(|g| g.2)).fold(0.0f32, f32::max);
    let fabric = format!(
        "<TABLE BORDER=\"0\" CELLBORDER=\"0\"><TR><TD><B>NVLink fabric</B> (NCCL: one NVSwitch node)</TD></TR>\
         <TR><TD>{n_gpus} GPUs of {} trays, {per_gpu} GB/s each · one node for NCCL (MNNVL)</TD></TR></TABLE>",
        ts.len()
    );
    stmts.push(node(
        "fabric",
        vec![
            attr("shape", "box"),
            attr("style", "rounded,filled"),
            attr("fillcolor", FILL_NVS),
            html_attr("label", &fabric),
        ],
    ));
    let half = ts.len().div_ceil(2);
    let mut top = Vec::new();
    let mut bottom = Vec::new();
    for (i, t) in ts.iter().enumerate() {
        let id = format!("tray{}", t.host);
        stmts.push(node(&id, vec![attr("shape", "plaintext"), attr("style", ""), html_attr("label", &tray_label(t))]));
        let label = format!("{}×{} GB/s", t.gpus.len(), t.gpus.first().map_or(0.0, |g| g.2));
        let look = vec![attr("color", link_colour(LinkType::Nvl)), attr("penwidth", "2"), attr("label", &label)];
        if i < half {
            stmts.push(edge_ids(&id, "fabric", look));
            top.push(id);
        } else {
            stmts.push(edge_ids("fabric", &id, look));
            bottom.push(id);
        }
    }
    // Each half in one column, in tray order.
    stmts.push(same_rank("top", &top));
    stmts.push(same_rank("bottom", &bottom));
    for row in [&top, &bottom] {
        for w in row.windows(2) {
            stmts.push(invisible(&w[0], &w[1]));
        }
    }
    let rows = [
        (
            Some(link_colour(LinkType::Nvl)),
            "NVL",
            "a tray's GPUs to the fabric: GPUs × NCCL's GB/s each, each direction",
        ),
        (Some(FILL_GPU), "n", "a GPU: its rank in the clique (tray × GPUs per tray + local rank), bus id"),
        (
            Some(FILL_NET),
            "NIC",
            "the tray's own network devices: another tray's GPU reaches them only over the network",
        ),
        (None, "MNNVL", "NCCL fuses the trays' topologies into one system and searches them as one node"),
    ];
    let above = bottom.last().or(top.last()).cloned().unwrap_or_else(|| "fabric".into());
    stmts.extend(legend_at_bottom(&rows, &above));
    print(stmts)
}
