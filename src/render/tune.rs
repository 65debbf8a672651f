//! `topo tune`: NCCL's own tuning table (as `NCCL_DEBUG_SUBSYS=TUNING` prints
//! it), a size sweep in the spirit of nccl-tests, and JSON.

use std::fmt::Write as _;

use crate::model::{Analysis, cpu};
use crate::tune::{Algo, Func, Model, Prediction, Proto, Swept};

/// The lines NCCL prints under `NCCL_DEBUG_SUBSYS=TUNING` (without the log prefix), then
/// its `threadThresholds` line, and when NCCL_ALGO or NCCL_PROTO is set, the
/// "Enabled NCCL Func/Proto/Algo Matrix" it prints.
pub fn nccl_table(m: &Model) -> String {
    let t = &m.table;
    let mut out = String::new();
    if m.comm.n_ranks <= 1 {
        out.push_str("(one rank: NCCL computes no tuning table)\n");
        return out;
    }
    for algos in m.algos().chunks(3) {
        let mut line = String::from("  Algorithm   |");
        for a in algos {
            let _ = write!(line, " {:>14}   {:>14}   {:>14} |", "", a.name(), "");
        }
        out.push_str(&line);
        out.push('\n');
        // NCCL prints three protocol groups even in a block with fewer algorithms.
        let mut line = String::from("  Protocol    |");
        for _ in 0..3 {
            for p in Proto::ALL {
                let _ = write!(line, " {:>14} |", p.name());
            }
        }
        out.push_str(&line);
        out.push('\n');
        let mut line = String::from(" Max NThreads |");
        for a in algos {
            for p in Proto::ALL {
                let _ = write!(line, " {:>14} |", t.max_threads[*a][p]);
            }
        }
        out.push_str(&line);
        out.push('\n');
        for f in Func::ALL {
            let mut line = format!("{:>13} |", f.name());
            for a in algos {
                for p in Proto::ALL {
                    let _ = write!(line, "{:>8.1}/{:>6.1} |", t.latency[f][*a][p], t.bandwidth[f][*a][p]);
                }
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    let th = &t.thread_thresholds;
    let (tr, ri) = (&th[Algo::Tree].0, &th[Algo::Ring].0);
    let _ = writeln!(
        out,
        "threadThresholds {}/{}/{} | {}/{}/{} | {} | {}",
        tr[0],
        tr[1],
        tr[2],
        ri[0],
        ri[1],
        ri[2],
        th[Algo::CollNetDirect][Proto::Simple],
        th[Algo::CollNetChain][Proto::Simple]
    );
    let _ = writeln!(out, "{} coll channels, {} nvls channels", m.comm.n_channels, m.comm.nvls_channels);
    if (m.algo_env.is_some() || m.proto_env.is_some()) && m.comm.release.algo_proto_per_collective() {
        out.push_str("Enabled NCCL Func/Proto/Algo Matrix:\n     Function | ");
        for p in Proto::ALL {
            let _ = write!(out, "{:>8}  ", p.name());
        }
        out.push_str(" | ");
        for a in m.algos() {
            let _ = write!(out, "{:>13}  ", a.name());
        }
        out.push('\n');
        for f in Func::ALL {
            let _ = write!(out, "{:>13} | ", f.name());
            for p in Proto::ALL {
                let _ = write!(out, "{:>8}  ", t.proto_enable[f][p]);
            }
            out.push_str(" | ");
            for &a in m.algos() {
                let _ = write!(out, "{:>13}  ", t.algo_enable[f][a]);
            }
            out.push('\n');
        }
    }
    out
}

fn cpu_text(m: &Model) -> String {
    let v = cpu::vendor_name(m.comm.cpu_vendor);
    let a = cpu::arch_name(m.comm.cpu_arch);
    if v.is_empty() { a.to_string() } else { format!("{a} {v}") }
}

fn graph_line(m: &Model) -> String {
    let g = &m.comm.graphs;
    let mut parts = Vec::new();
    for (name, a) in
        [("ring", Algo::Ring), ("tree", Algo::Tree), ("nvls", Algo::Nvls), ("collnet", Algo::CollNetDirect)]
    {
        let x = &g[a];
        if x.n_channels > 0 {
            parts.push(format!(
                "{name} {}x {:.1}/{:.1} GB/s {}/{}",
                x.n_channels, x.bw_intra, x.bw_inter, x.type_intra, x.type_inter
            ));
        }
    }
    parts.join(", ")
}

/// The header shared by the text report: what was modelled and what was assumed.
pub fn header(m: &Model, input: &str, func: Func) -> String {
    let c = &m.comm;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# topo tune: {} on {input}: {} rank{} = {} node{} x {} GPU{}, NCCL {} tuning model",
        func.name(),
        c.n_ranks,
        if c.n_ranks == 1 { "" } else { "s" },
        c.n_nodes,
        if c.n_nodes == 1 { "" } else { "s" },
        c.local_ranks,
        if c.local_ranks == 1 { "" } else { "s" },
        c.release
    );
    let cc = if c.min_cc == c.max_cc { format!("sm{}", c.min_cc) } else { format!("sm{}-sm{}", c.min_cc, c.max_cc) };
    let _ = writeln!(
        out,
        "# GPUs {cc} ({} constants), CPU {}; {} coll channels, {} NVLS channels; graphs: {}",
        c.arch.name(),
        cpu_text(m),
        c.n_channels,
        c.nvls_channels,
        graph_line(m)
    );
    for a in m.assumptions() {
        let _ = writeln!(out, "# assumed: {a}");
    }
    out
}

/// The size sweep as text, one row per size.
pub fn sweep_text(rows: &[Prediction]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "#{:>11}  {:>13}  {:>6}  {:>8}  {:>7}  {:>10}  {:>11}  {:>11}  bottleneck",
        "size(B)", "algorithm", "proto", "channels", "threads", "time(us)", "algbw(GB/s)", "busbw(GB/s)"
    );
    for p in rows {
        let _ = writeln!(
            out,
            "{:>12}  {:>13}  {:>6}  {:>8}  {:>7}  {:>10.2}  {:>11.2}  {:>11.2}  {}",
            p.bytes,
            p.algo.name(),
            p.proto.name(),
            p.nchannels,
            p.nthreads,
            p.time_us,
            p.algbw_gbs,
            p.busbw_gbs,
            p.bottleneck
        );
    }
    out
}

fn table_json(m: &Model) -> serde_json::Value {
    let t = &m.table;
    let mut lat = serde_json::Map::new();
    let mut bw = serde_json::Map::new();
    for f in Func::ALL {
        let mut la = serde_json::Map::new();
        let mut ba = serde_json::Map::new();
        for &a in m.algos() {
            let mut lp = serde_json::Map::new();
            let mut bp = serde_json::Map::new();
            for p in Proto::ALL {
                lp.insert(p.name().into(), crate::tune::short(t.latency[f][a][p]).into());
                bp.insert(p.name().into(), crate::tune::short(t.bandwidth[f][a][p]).into());
            }
            la.insert(a.name().into(), lp.into());
            ba.insert(a.name().into(), bp.into());
        }
        lat.insert(f.name().into(), la.into());
        bw.insert(f.name().into(), ba.into());
    }
    let per_algo = |x: &dyn Fn(Algo, Proto) -> serde_json::Value| {
        let mut map = serde_json::Map::new();
        for &a in m.algos() {
            let mut p_ = serde_json::Map::new();
            for p in Proto::ALL {
                p_.insert(p.name().into(), x(a, p));
            }
            map.insert(a.name().into(), p_.into());
        }
        serde_json::Value::Object(map)
    };
    serde_json::json!({
        "latency_us": lat,
        "bandwidth_gbs": bw,
        "max_threads": per_algo(&|a, p| t.max_threads[a][p].into()),
        "thread_thresholds": per_algo(&|a, p| t.thread_thresholds[a][p].into()),
    })
}

/// The `tuning` object of `topo analyze --json`: what `ncclTopoTuneModel` leaves in rank
/// 0's communicator (channel counts, threads, thresholds, latency and bandwidth tables).
pub fn tuning_json(m: &Model) -> serde_json::Value {
    let mut v = table_json(m);
    // NCCL logs `comm->nChannels` twice: as coll and as collnet channels.
    v["channels"] =
        serde_json::json!({"coll": m.comm.n_channels, "collnet": m.comm.n_channels, "nvls": m.comm.nvls_channels});
    v
}

/// What `topo tune` prints: the header, NCCL's table when asked, then the sweep; or
/// the same as JSON.
pub fn report(an: &Analysis, m: &Model, func: Func, sweep: &Swept, table: bool, json: bool) -> String {
    if json {
        let mut doc = serde_json::json!({
            "schema": 1,
            "nccl_version": m.comm.release.to_string(),
            "input": an.input,
            "func": func,
            "comm": m.comm,
            "assumptions": m.assumptions(),
            "warnings": m.warnings,
            "predictions": sweep.rows,
        });
        if table {
            doc["table"] = table_json(m);
        }
        return crate::render::to_json_string(&doc);
    }
    let mut s = header(m, &an.input, func);
    if table {
        s.push_str("#\n");
        s.push_str(&nccl_table(m));
    }
    s.push_str("#\n");
    if sweep.skipped > 0 {
        let _ = writeln!(
            s,
            "# {} size(s) holding less than one float per rank skipped (NCCL does nothing for them)",
            sweep.skipped
        );
    }
    s.push_str(&sweep_text(&sweep.rows));
    s
}
