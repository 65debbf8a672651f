//! `topo paths`: a matrix like `nvidia-smi topo -m`, in NCCL's terms (path type and
//! bandwidth for every GPU/NIC pair), CPU and NUMA affinity columns, a NIC legend, then
//! the P2P, transport and GPUDirect RDMA verdicts.

use std::fmt::Write;

use comfy_table::{Cell, CellAlignment};

use crate::model::system::{NodeRef, id_local};
use crate::model::{Analysis, NodeType, PathType, paths as mpaths};
use crate::render::show::affinity_ranges;
use crate::render::term::{Term, Tone, fit, new_table, styled, table_text, trim_lines, wrap};
use crate::render::{gbs, names};
use crate::types::GdrMode;

fn cell(ty: PathType, bw: f32) -> String {
    if ty == PathType::Loc { "X".into() } else { format!("{ty} {}", gbs(bw)) }
}

/// The tone of a path type: green for NVLink and short PCIe, yellow through a host
/// bridge or another GPU, red across CPUs or the network.
pub(crate) fn path_tone(ty: PathType) -> Option<Tone> {
    match ty {
        PathType::Loc | PathType::Dis => None,
        PathType::Nvl | PathType::Nvb | PathType::C2c | PathType::Pix | PathType::Pxb | PathType::P2c => {
            Some(Tone::Good)
        }
        PathType::Pxn | PathType::Phb => Some(Tone::Warn),
        PathType::Sys | PathType::Net => Some(Tone::Bad),
    }
}

/// How `topo paths` lays its text out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// The reasons and routes too.
    pub explain: bool,
    /// Width and colours. With a width the matrix is split into GPU x GPU and GPU x NIC
    /// tables, each cut into blocks of columns; without, one matrix, as wide as it takes
    /// (for scripts). Colours mark verdicts and path types.
    pub term: Term,
}

/// A cell, coloured by its path type when colours are on.
fn path_cell(ty: PathType, bw: f32, color: bool) -> Cell {
    let c = Cell::new(cell(ty, bw));
    match path_tone(ty) {
        Some(t) if color => c.fg(t.color()),
        _ => c,
    }
}

fn yes_no(v: Option<bool>, color: bool) -> Cell {
    match v {
        None => Cell::new("-"),
        Some(true) if color => Cell::new("yes").fg(Tone::Good.color()),
        Some(false) if color => Cell::new("no").fg(Tone::Bad.color()),
        Some(b) => Cell::new(if b { "yes" } else { "no" }),
    }
}

/// A GPUDirect RDMA verdict in words: NCCL's `Default` mode is GDR on.
fn gdr_word(m: GdrMode) -> &'static str {
    match m {
        GdrMode::Default => "on",
        GdrMode::Pci => "on (PCI)",
        GdrMode::Disabled => "off",
    }
}

fn gdr_cell(m: GdrMode, color: bool) -> Cell {
    let c = Cell::new(gdr_word(m));
    match m {
        _ if !color => c,
        GdrMode::Disabled => c.fg(Tone::Bad.color()),
        GdrMode::Default | GdrMode::Pci => c.fg(Tone::Good.color()),
    }
}

/// Cut a matrix into blocks of columns that each fit in `width` columns (the row label
/// repeated in each). Each column takes its longest text plus two spaces.
fn blocks(
    corner: &str,
    rows: &[String],
    cols: &[String],
    cells: &[Vec<Cell>],
    texts: &[Vec<String>],
    width: usize,
    color: bool,
) -> String {
    let label_w = rows.iter().map(String::len).chain([corner.len()]).max().unwrap_or(0) + 2;
    let col_w: Vec<usize> = (0..cols.len())
        .map(|j| texts.iter().map(|r| r[j].len()).chain([cols[j].len()]).max().unwrap_or(0) + 2)
        .collect();
    let mut out = String::new();
    let mut j = 0;
    while j < cols.len() {
        let mut end = j + 1;
        let mut used = label_w + col_w[j];
        while end < cols.len() && used + col_w[end] <= width {
            used += col_w[end];
            end += 1;
        }
        let mut t = styled(color);
        let mut header = vec![Cell::new(corner)];
        header.extend(cols[j..end].iter().map(Cell::new));
        t.set_header(header);
        for (i, r) in rows.iter().enumerate() {
            let mut row = vec![Cell::new(r)];
            row.extend(cells[i][j..end].iter().cloned());
            t.add_row(row);
        }
        if j > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", trim_lines(&t.to_string()));
        j = end;
    }
    out
}

/// The text report, one matrix wide as it takes.
pub fn text(an: &Analysis, explain: bool) -> String {
    text_with(an, &TextOptions { explain, ..TextOptions::default() })
}

/// A NET device by number; one of another tray of a fused multi-node NVLink system
/// carries its tray (`NET0@t1`).
fn net_label(dev: i32, host: Option<i64>) -> String {
    match host {
        Some(h) if h != 0 => format!("NET{dev}@t{h}"),
        _ => format!("NET{dev}"),
    }
}

/// The text report, laid out as `opts` says.
pub fn text_with(an: &Analysis, opts: &TextOptions) -> String {
    let (explain, color, width) = (opts.explain, opts.term.color, opts.term.width);
    let sys = &an.system;
    let mut out = String::new();
    let gpus: Vec<(usize, i32)> = sys.list(NodeType::Gpu).iter().enumerate().map(|(i, g)| (i, g.gpu_rank())).collect();
    let dev = |n: usize| sys.list(NodeType::Net)[n].net().map_or(-1, |x| x.dev);
    // NCCL's order of NET nodes is its order of discovery; people read them by number.
    let mut nets: Vec<usize> = (0..sys.count(NodeType::Net)).collect();
    // A fused multi-node NVLink system: each tray's NETs together, rank 0's first.
    let host = |n: usize| crate::model::system::id_system(sys.list(NodeType::Net)[n].id);
    nets.sort_by_key(|&n| (host(n), dev(n), n));
    let net_name = |n: usize| net_label(dev(n), Some(host(n)));

    let cpu_cols = |from: NodeRef| -> (String, String) {
        let c = if from.ty == NodeType::Gpu {
            mpaths::local_cpu(sys, from.idx, an.params.release)
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
    let gpu_refs: Vec<(NodeRef, String)> =
        gpus.iter().map(|&(g, r)| (NodeRef::new(NodeType::Gpu, g), format!("GPU{r}"))).collect();
    let net_refs: Vec<(NodeRef, String)> =
        nets.iter().map(|&n| (NodeRef::new(NodeType::Net, n), net_name(n))).collect();

    let title = "Paths (NCCL path type and bandwidth in GB/s, from row to column):";
    let _ = writeln!(out, "{}", wrap(title, width, ""));
    match width {
        None => {
            let mut t = styled(color);
            let mut header = vec![Cell::new("")];
            header.extend(gpu_refs.iter().chain(&net_refs).map(|(_, name)| Cell::new(name)));
            header.push(Cell::new("CPU affinity"));
            header.push(Cell::new("NUMA"));
            t.set_header(header);
            for (from, name) in gpu_refs.iter().chain(&net_refs) {
                let mut row = vec![Cell::new(name)];
                for (to, _) in gpu_refs.iter().chain(&net_refs) {
                    let p = sys.path(*from, *to);
                    row.push(path_cell(p.ty, p.bw, color).set_alignment(CellAlignment::Left));
                }
                let (aff, numa) = cpu_cols(*from);
                row.push(Cell::new(aff));
                row.push(Cell::new(numa));
                t.add_row(row);
            }
            let _ = writeln!(out, "{t}");
        }
        Some(width) => {
            let matrix = |rows: &[(NodeRef, String)], cols: &[(NodeRef, String)], corner: &str| -> String {
                let mut cells = Vec::new();
                let mut texts = Vec::new();
                for (from, _) in rows {
                    let (mut c, mut t) = (Vec::new(), Vec::new());
                    for (to, _) in cols {
                        let p = sys.path(*from, *to);
                        c.push(path_cell(p.ty, p.bw, color));
                        t.push(cell(p.ty, p.bw));
                    }
                    cells.push(c);
                    texts.push(t);
                }
                let rn: Vec<String> = rows.iter().map(|r| r.1.clone()).collect();
                let cn: Vec<String> = cols.iter().map(|c| c.1.clone()).collect();
                blocks(corner, &rn, &cn, &cells, &texts, width, color)
            };
            out.push_str(&matrix(&gpu_refs, &gpu_refs, "GPU"));
            // The rows of the NICs too: what the whole matrix holds, in tables that fit.
            if !net_refs.is_empty() {
                for (rows, cols, corner) in
                    [(&gpu_refs, &net_refs, "GPU"), (&net_refs, &gpu_refs, "NET"), (&net_refs, &net_refs, "NET")]
                {
                    out.push('\n');
                    out.push_str(&matrix(rows, cols, corner));
                }
            }
            out.push('\n');
            let mut t = new_table();
            fit(&mut t, Some(width));
            t.set_header(vec!["", "CPU affinity", "NUMA"]);
            for (from, name) in gpu_refs.iter().chain(&net_refs) {
                let (aff, numa) = cpu_cols(*from);
                t.add_row(vec![name.clone(), aff, numa]);
            }
            let _ = writeln!(out, "{}", trim_lines(&t.to_string()));
        }
    }
    out.push('\n');
    let legend = "Legend (NCCL's path type, then nvidia-smi topo -m's name for it):";
    let _ = writeln!(out, "{}", wrap(legend, width, "  "));
    let _ = writeln!(out, "  X    X         same device");
    // Every type but LOC (the diagonal) and DIS.
    for &ty in &PathType::ALL[1..11] {
        let nv = if ty == PathType::Nvl { "; # = NVLinks" } else { "" };
        let line = format!("  {:<4} {:<8}  {}{nv}", ty.name(), names::smi(ty), ty.meaning());
        let _ = writeln!(out, "{}", wrap(&line, width, "                 "));
    }
    let unit = "  The number after the type is the path's bandwidth in GB/s (its narrowest link).";
    let _ = writeln!(out, "{}", wrap(unit, width, "  "));
    if let Some(nv) = nvlink_counts(an) {
        let _ = writeln!(out, "{}", wrap(&format!("  NVL paths here: {nv}."), width, "  "));
    }
    out.push('\n');
    if !an.nets.is_empty() {
        let _ = writeln!(out, "Network devices:");
        for d in &an.nets {
            let in_sys = sys.net_by_dev(d.dev).is_some();
            let line = format!(
                "  NET{:<3} {}{}{}",
                d.dev,
                d.name,
                if d.is_virtual { format!(" (fused from {:?})", d.physdevs) } else { String::new() },
                if in_sys { "" } else { " (not in the system: fused into a virtual device or unused)" }
            );
            let _ = writeln!(out, "{}", wrap(&line, width, "         "));
        }
        out.push('\n');
    }

    let levels = format!(
        "P2P level {} ({}); GDR level {} ({})",
        an.levels.p2p, an.levels.p2p_source, an.levels.gdr, an.levels.gdr_source
    );
    let _ = writeln!(out, "{}", wrap(&levels, width, "  "));
    let mut t = styled(color);
    fit(&mut t, width);
    t.set_header(vec!["from", "to", "transport", "p2p", "read", "via", "why"]);
    for p in &an.p2p {
        if !explain && p.from > p.to {
            continue;
        }
        t.add_row(vec![
            Cell::new(p.from),
            Cell::new(p.to),
            Cell::new(p.transport.name()),
            yes_no(p.p2p, color),
            yes_no(p.read, color),
            Cell::new(p.intermediate.filter(|&i| i >= 0).map_or("-".into(), |i| format!("rank {i}"))),
            Cell::new(if explain { p.reason.clone() } else { String::new() }),
        ]);
    }
    let _ = writeln!(out, "Between GPUs{}:", if explain { "" } else { " (one line per pair; --explain for reasons)" });
    let _ = writeln!(out, "{}", table_text(&t, width));
    if !an.gdr.is_empty() {
        out.push('\n');
        let mut t = styled(color);
        fit(&mut t, width);
        t.set_header(vec!["rank", "net", "recv (GDR write)", "send (GDR read)", "proxy rank", "why"]);
        let mut rows: Vec<&crate::model::analysis::GdrRec> = an.gdr.iter().collect();
        rows.sort_by_key(|g| (g.rank, g.net_host, g.net));
        for g in rows {
            t.add_row(vec![
                Cell::new(g.rank),
                Cell::new(net_label(g.net, g.net_host)),
                gdr_cell(g.recv, color),
                gdr_cell(g.send, color),
                Cell::new(g.proxy_rank),
                Cell::new(if explain {
                    if g.recv_reason == g.send_reason {
                        g.recv_reason.clone()
                    } else {
                        format!("recv: {}; send: {}", g.recv_reason, g.send_reason)
                    }
                } else {
                    String::new()
                }),
            ]);
        }
        let _ = writeln!(out, "GPUDirect RDMA:");
        let _ = writeln!(out, "{}", table_text(&t, width));
        let words = "  on: the NIC reads and writes GPU memory directly (NCCL's mode Default); on (PCI): the same, \
                     mapped through PCIe on a C2C machine (mode PCI); off: staged through host memory (mode Disabled).";
        let _ = writeln!(out, "{}", wrap(words, width, "  "));
    }
    if explain {
        out.push_str(&routes_text(an, width));
    }
    out
}

/// The NVLink counts of the GPU-to-GPU NVL paths, as nvidia-smi writes them (`NV18`).
fn nvlink_counts(an: &Analysis) -> Option<String> {
    let mut counts: Vec<u32> = an
        .paths
        .gpu_gpu
        .iter()
        .filter(|p| p.ty == PathType::Nvl)
        .filter_map(|p| {
            let g = an.system.gpu_by_rank(p.from?)?;
            Some(names::nvlink_count(an, NodeRef::new(NodeType::Gpu, g), p.bw))
        })
        .collect();
    counts.sort_unstable();
    counts.dedup();
    let nv: Vec<String> = counts.iter().map(|c| format!("NV{c}")).collect();
    (!nv.is_empty()).then(|| format!("{} (NVLinks per GPU pair, as nvidia-smi counts them)", nv.join(", ")))
}

/// `--explain`'s routes: each GPU-to-GPU and GPU-to-NIC path, its ends named, then the
/// nodes it goes through.
fn routes_text(an: &Analysis, width: Option<usize>) -> String {
    let sys = &an.system;
    let names = names::RouteNames::new(sys);
    let mut out = String::from("\nRoutes:\n");
    let mut dev = false;
    for p in an.paths.gpu_gpu.iter().chain(an.paths.gpu_net.iter()) {
        if p.hops == 0 {
            continue;
        }
        let ends = match (p.from, p.to, p.rank, p.net) {
            (Some(a), Some(b), _, _) => format!("GPU{a} -> GPU{b}"),
            (_, _, Some(r), Some(n)) => format!("GPU{r} -> {}", net_label(n, p.net_host)),
            _ => String::new(),
        };
        let route = names.route(&p.route, sys);
        dev |= route.contains("DEV of GPU");
        let line = format!("  {ends}: {} {}, {} hops: {route}", p.ty, gbs(p.bw), p.hops);
        let _ = writeln!(out, "{}", wrap(&line, width, "      "));
    }
    if dev {
        let _ = writeln!(out, "{}", wrap(&format!("  {}.", names::DEV_NOTE), width, "  "));
    }
    out
}

/// The JSON of `topo paths --json`.
pub fn json(an: &Analysis) -> serde_json::Value {
    serde_json::json!({
        "schema": 1,
        "input": an.input,
        "levels": an.levels,
        "nets": an.nets,
        "paths": an.paths,
        "p2p": an.p2p,
        "gdr": an.gdr,
        "trimmed": an.trimmed,
    })
}
