//! `topo paths`: a matrix like `nvidia-smi topo -m`, in NCCL's terms (path type and
//! bandwidth for every GPU/NIC pair), CPU and NUMA affinity columns, a NIC legend, then
//! the P2P, transport and GPUDirect RDMA verdicts.

use std::fmt::Write;

use comfy_table::{Cell, CellAlignment, Table, presets};

use crate::model::system::{NodeRef, id_local};
use crate::model::{Analysis, NodeType, PathType, paths as mpaths};
use crate::render::gbs;
use crate::render::show::affinity_ranges;

fn cell(ty: PathType, bw: f32) -> String {
    if ty == PathType::Loc { "X".into() } else { format!("{ty} {}", gbs(bw)) }
}

pub(crate) fn new_table() -> Table {
    let mut t = Table::new();
    t.load_style(presets::NOTHING);
    t.set_content_arrangement(comfy_table::ContentArrangement::Disabled);
    t
}

/// The text report.
pub fn text(an: &Analysis, explain: bool) -> String {
    let sys = &an.system;
    let mut out = String::new();
    let gpus: Vec<(usize, i32)> = sys.list(NodeType::Gpu).iter().enumerate().map(|(i, g)| (i, g.gpu_rank())).collect();
    let nets: Vec<usize> = (0..sys.count(NodeType::Net)).collect();
    let net_name = |n: usize| format!("NET{}", sys.list(NodeType::Net)[n].net().map_or(-1, |x| x.dev));

    let mut t = new_table();
    let mut header = vec![Cell::new("")];
    header.extend(gpus.iter().map(|(_, r)| Cell::new(format!("GPU{r}"))));
    header.extend(nets.iter().map(|&n| Cell::new(net_name(n))));
    header.push(Cell::new("CPU affinity"));
    header.push(Cell::new("NUMA"));
    t.set_header(header);
    let cpu_cols = |from: NodeRef| -> (String, String) {
        let c = if from.ty == NodeType::Gpu {
            mpaths::local_cpu(sys, from.idx)
        } else {
            mpaths::get_local(sys, from, NodeType::Cpu).0.first().copied()
        };
        match c {
            Some(c) => {
                let n = &sys.list(NodeType::Cpu)[c];
                let aff = match &n.kind {
                    crate::model::system::Kind::Cpu { affinity: Some(a), .. } => affinity_ranges(a),
                    _ => "-".into(),
                };
                (aff, id_local(n.id).to_string())
            }
            None => ("-".into(), "-".into()),
        }
    };
    for &(g, r) in &gpus {
        let from = NodeRef::new(NodeType::Gpu, g);
        let mut row = vec![Cell::new(format!("GPU{r}"))];
        for &(q, _) in &gpus {
            let p = sys.path(from, NodeRef::new(NodeType::Gpu, q));
            row.push(Cell::new(cell(p.ty, p.bw)).set_alignment(CellAlignment::Left));
        }
        for &n in &nets {
            let p = sys.path(from, NodeRef::new(NodeType::Net, n));
            row.push(Cell::new(cell(p.ty, p.bw)));
        }
        let (aff, numa) = cpu_cols(from);
        row.push(Cell::new(aff));
        row.push(Cell::new(numa));
        t.add_row(row);
    }
    for &n in &nets {
        let from = NodeRef::new(NodeType::Net, n);
        let mut row = vec![Cell::new(net_name(n))];
        for &(q, _) in &gpus {
            let p = sys.path(from, NodeRef::new(NodeType::Gpu, q));
            row.push(Cell::new(cell(p.ty, p.bw)));
        }
        for &m in &nets {
            let p = sys.path(from, NodeRef::new(NodeType::Net, m));
            row.push(Cell::new(cell(p.ty, p.bw)));
        }
        let (aff, numa) = cpu_cols(from);
        row.push(Cell::new(aff));
        row.push(Cell::new(numa));
        t.add_row(row);
    }
    let _ = writeln!(out, "Paths (NCCL path type and bandwidth in GB/s, from row to column):");
    let _ = writeln!(out, "{t}");
    out.push('\n');
    if !an.nets.is_empty() {
        let _ = writeln!(out, "Network devices:");
        for d in &an.nets {
            let in_sys = sys.net_by_dev(d.dev).is_some();
            let _ = writeln!(
                out,
                "  NET{:<3} {}{}{}",
                d.dev,
                d.name,
                if d.is_virtual { format!(" (fused from {:?})", d.physdevs) } else { String::new() },
                if in_sys { "" } else { " (not in the system: fused into a virtual device or unused)" }
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "Legend:");
    // Every type but LOC (the diagonal) and DIS.
    for &ty in &PathType::ALL[1..11] {
        let _ = writeln!(out, "  {:<4} {}", ty.name(), ty.meaning());
    }
    out.push('\n');

    let _ = writeln!(
        out,
        "P2P level {} ({}); GDR level {} ({})",
        an.levels.p2p, an.levels.p2p_source, an.levels.gdr, an.levels.gdr_source
    );
    let mut t = new_table();
    t.set_header(vec!["from", "to", "transport", "p2p", "read", "via", "why"]);
    for p in &an.p2p {
        if !explain && p.from > p.to {
            continue;
        }
        t.add_row(vec![
            p.from.to_string(),
            p.to.to_string(),
            p.transport.name().to_string(),
            p.p2p.map_or("-".into(), |b| if b { "yes".into() } else { "no".into() }),
            p.read.map_or("-".into(), |b| if b { "yes".into() } else { "no".into() }),
            p.intermediate.filter(|&i| i >= 0).map_or("-".into(), |i| format!("rank {i}")),
            if explain { p.reason.clone() } else { String::new() },
        ]);
    }
    let _ = writeln!(out, "Between GPUs{}:", if explain { "" } else { " (one line per pair; --explain for reasons)" });
    let _ = writeln!(out, "{t}");
    if !an.gdr.is_empty() {
        out.push('\n');
        let mut t = new_table();
        t.set_header(vec!["rank", "net", "recv (GDR write)", "send (GDR read)", "proxy rank", "why"]);
        for g in &an.gdr {
            t.add_row(vec![
                g.rank.to_string(),
                format!("NET{}", g.net),
                g.recv.name().to_string(),
                g.send.name().to_string(),
                g.proxy_rank.to_string(),
                if explain {
                    if g.recv_reason == g.send_reason {
                        g.recv_reason.clone()
                    } else {
                        format!("recv: {}; send: {}", g.recv_reason, g.send_reason)
                    }
                } else {
                    String::new()
                },
            ]);
        }
        let _ = writeln!(out, "GPUDirect RDMA:");
        let _ = writeln!(out, "{t}");
    }
    if explain {
        out.push_str("\nRoutes:\n");
        for p in an.paths.gpu_gpu.iter().chain(an.paths.gpu_net.iter()) {
            if p.hops == 0 {
                continue;
            }
            let _ = writeln!(out, "  {} {} ({} hops): {}", p.ty, gbs(p.bw), p.hops, p.route.join(" "));
        }
    }
    out
}

/// The JSON of `topo paths --json`.
pub fn json(an: &Analysis) -> serde_json::Value {
    serde_json::json!({
        "input": an.input,
        "levels": an.levels,
        "nets": an.nets,
        "paths": an.paths,
        "p2p": an.p2p,
        "gdr": an.gdr,
        "trimmed": an.trimmed,
    })
}
