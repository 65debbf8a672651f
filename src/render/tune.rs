//! `topo tune`: NCCL's own tuning table (as `NCCL_DEBUG_SUBSYS=TUNING` prints
//! it), a size sweep in the spirit of nccl-tests, and JSON.

use std::fmt::Write as _;

use crate::model::{Analysis, PathType, cpu};
use crate::render::paths::path_tone;
use crate::render::term::{Term, Tone, visible_len};
use crate::tune::{Algo, Func, Model, Prediction, Proto, Swept};

/// The lines NCCL prints under `NCCL_DEBUG_SUBSYS=TUNING` (without the log prefix), then
/// its `threadThresholds` line, and when NCCL_ALGO or NCCL_PROTO is set, the
/// "Enabled NCCL Func/Proto/Algo Matrix" it prints.
pub fn nccl_table(m: &Model) -> String {
    nccl_table_with(m, &Term::default())
}

/// Columns of the tuning table before the algorithms, and of each algorithm (three
/// protocols).
const TABLE_LABEL: usize = 15;
const TABLE_ALGO: usize = 51;

/// NCCL's tuning table as [`nccl_table`] prints it, three algorithms a block; with a
/// width, as many a block as fit (each block then has as many protocol groups as
/// algorithms), and the enabled matrix with its algorithms in blocks too.
pub fn nccl_table_with(m: &Model, term: &Term) -> String {
    let t = &m.table;
    let mut out = String::new();
    if m.comm.n_ranks <= 1 {
        out.push_str("(one rank: NCCL computes no tuning table)\n");
        return out;
    }
    let per_block = term.width.map_or(3, |w| (w.saturating_sub(TABLE_LABEL) / TABLE_ALGO).clamp(1, 3));
    for algos in m.algos().chunks(per_block) {
        let mut line = String::from("  Algorithm   |");
        for a in algos {
            let _ = write!(line, " {:>14}   {:>14}   {:>14} |", "", a.name(), "");
        }
        out.push_str(&line);
        out.push('\n');
        // NCCL prints three protocol groups even in a block with fewer algorithms.
        let groups = if term.width.is_some() { algos.len() } else { 3 };
        let mut line = String::from("  Protocol    |");
        for _ in 0..groups {
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
        out.push_str("Enabled NCCL Func/Proto/Algo Matrix:\n");
        // "     Function | " and the protocols take 49 columns, each algorithm 15: too
        // wide, the protocols come on their own, then the algorithms in blocks.
        let algos = m.algos();
        match term.width.filter(|&w| 49 + 15 * algos.len() > w) {
            None => enabled_matrix(m, true, algos, false, &mut out),
            Some(w) => {
                enabled_matrix(m, true, &[], true, &mut out);
                for block in algos.chunks((w.saturating_sub(16) / 15).max(1)) {
                    enabled_matrix(m, false, block, true, &mut out);
                }
            }
        }
    }
    out
}

/// NCCL's enabled matrix, one line per collective: the protocols when `protos`, then
/// `algos`; `trim`: without the spaces NCCL ends its lines with.
fn enabled_matrix(m: &Model, protos: bool, algos: &[Algo], trim: bool, out: &mut String) {
    let t = &m.table;
    let mut lines = vec![String::from("     Function | ")];
    lines.extend(Func::ALL.iter().map(|f| format!("{:>13} | ", f.name())));
    for (k, line) in lines.iter_mut().enumerate() {
        let f = k.checked_sub(1).map(|i| Func::ALL[i]);
        if protos {
            for p in Proto::ALL {
                let _ = match f {
                    None => write!(line, "{:>8}  ", p.name()),
                    Some(f) => write!(line, "{:>8}  ", t.proto_enable[f][p]),
                };
            }
            if !algos.is_empty() {
                line.push_str(" | ");
            }
        }
        for &a in algos {
            let _ = match f {
                None => write!(line, "{:>13}  ", a.name()),
                Some(f) => write!(line, "{:>13}  ", t.algo_enable[f][a]),
            };
        }
        out.push_str(if trim { line.trim_end() } else { line });
        out.push('\n');
    }
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
pub fn header(m: &Model, input: &str, func: Func, term: &Term) -> String {
    let c = &m.comm;
    let mut lines = vec![format!(
        "# topo tune: {} on {input}: {} rank{} = {} node{} x {} GPU{}, NCCL {} tuning model",
        func.name(),
        c.n_ranks,
        if c.n_ranks == 1 { "" } else { "s" },
        c.n_nodes,
        if c.n_nodes == 1 { "" } else { "s" },
        c.local_ranks,
        if c.local_ranks == 1 { "" } else { "s" },
        c.release
    )];
    let cc = if c.min_cc == c.max_cc { format!("sm{}", c.min_cc) } else { format!("sm{}-sm{}", c.min_cc, c.max_cc) };
    lines.push(format!(
        "# GPUs {cc} ({} constants), CPU {}; {} coll channels, {} NVLS channels; graphs: {}",
        c.arch.name(),
        cpu_text(m),
        c.n_channels,
        c.nvls_channels,
        graph_line(m)
    ));
    lines.extend(m.assumptions().iter().map(|a| format!("# assumed: {a}")));
    let mut out = String::new();
    for l in lines {
        let _ = writeln!(out, "{}", term.wrap(&l, "#   "));
    }
    out
}

/// A bottleneck with its path types (`NVL`, `SYS`...) coloured as `topo paths` colours
/// them, when colours are on.
fn paint_types(text: &str, term: &Term) -> String {
    if !term.color {
        return text.to_string();
    }
    let word = |w: &str| match PathType::from_name(w).and_then(path_tone) {
        Some(tone) => term.paint(w, tone),
        None => w.to_string(),
    };
    text.split(' ').map(word).collect::<Vec<_>>().join(" ")
}

/// The tone of a bottleneck: that of its first path type.
fn bottleneck_tone(text: &str) -> Option<Tone> {
    text.split(' ').find_map(|w| PathType::from_name(w).and_then(path_tone))
}

/// The size sweep as text, one row per size, nccl-tests style. With a width the rows
/// cannot fit with their bottlenecks, the columns shrink to their texts (with short
/// titles if they must) and each row names its bottleneck by a note under the table.
pub fn sweep_text(rows: &[Prediction], term: &Term) -> String {
    let mut out = String::new();
    let mut lines = vec![format!(
        "#{:>11}  {:>13}  {:>6}  {:>8}  {:>7}  {:>10}  {:>11}  {:>11}  bottleneck",
        "size(B)", "algorithm", "proto", "channels", "threads", "time(us)", "algbw(GB/s)", "busbw(GB/s)"
    )];
    for p in rows {
        lines.push(format!(
            "{:>12}  {:>13}  {:>6}  {:>8}  {:>7}  {:>10.2}  {:>11.2}  {:>11.2}  {}",
            p.bytes,
            p.algo.name(),
            p.proto.name(),
            p.nchannels,
            p.nthreads,
            p.time_us,
            p.algbw_gbs,
            p.busbw_gbs,
            paint_types(&p.bottleneck, term)
        ));
    }
    match term.width {
        Some(w) if lines.iter().any(|l| visible_len(l) > w) => return sweep_notes(rows, w, term),
        _ => {}
    }
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    out
}

/// The sweep in columns as wide as their texts, bottlenecks as notes `[1]`, `[2]`...
/// listed under the table (numbered in order of first use).
fn sweep_notes(rows: &[Prediction], width: usize, term: &Term) -> String {
    let full = ["size(B)", "algorithm", "proto", "channels", "threads", "time(us)", "algbw(GB/s)", "busbw(GB/s)"];
    let short = ["size(B)", "algo", "proto", "ch", "thr", "time(us)", "algbw", "busbw"];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|p| {
            [
                p.bytes.to_string(),
                p.algo.name().to_string(),
                p.proto.name().to_string(),
                p.nchannels.to_string(),
                p.nthreads.to_string(),
                format!("{:.2}", p.time_us),
                format!("{:.2}", p.algbw_gbs),
                format!("{:.2}", p.busbw_gbs),
            ]
        })
        .collect();
    let mut notes: Vec<&str> = Vec::new();
    let marks: Vec<usize> = rows
        .iter()
        .map(|p| match notes.iter().position(|n| *n == p.bottleneck) {
            Some(k) => k + 1,
            None => {
                notes.push(&p.bottleneck);
                notes.len()
            }
        })
        .collect();
    let mark_w = format!("[{}]", notes.len()).len().max("bottleneck".len());
    // Each column as wide as its title (the first after `# `) and its texts.
    let widths = |titles: &[&str; 8]| -> [usize; 8] {
        std::array::from_fn(|i| {
            let title = titles[i].len() + if i == 0 { 2 } else { 0 };
            cells.iter().map(|c| c[i].len()).chain([title]).max().unwrap_or(0)
        })
    };
    let total = |w: &[usize; 8]| w.iter().sum::<usize>() + 2 * 8 + mark_w;
    let (titles, w) = if total(&widths(&full)) <= width { (full, widths(&full)) } else { (short, widths(&short)) };
    let mut out = String::new();
    let mut head = format!("#{:>1$}", titles[0], w[0] - 1);
    for i in 1..8 {
        let _ = write!(head, "  {:>1$}", titles[i], w[i]);
    }
    let _ = writeln!(out, "{head}  bottleneck");
    for (c, mark) in cells.iter().zip(&marks) {
        let mut line = String::new();
        for i in 0..8 {
            let _ = write!(line, "{}{:>2$}", if i == 0 { "" } else { "  " }, c[i], w[i]);
        }
        let note = format!("[{mark}]");
        let note = match bottleneck_tone(notes[mark - 1]) {
            Some(tone) => term.paint(&note, tone),
            None => note,
        };
        let _ = writeln!(out, "{line}  {note}");
    }
    let units = if titles == short { " (algbw and busbw in GB/s)" } else { "" };
    let _ = writeln!(out, "#\n# bottlenecks{units}:");
    for (k, n) in notes.iter().enumerate() {
        let mark = format!("[{}]", k + 1);
        let line = format!("# {mark:<4} {}", paint_types(n, term));
        let _ = writeln!(out, "{}", term.wrap(&line, &format!("#{}", " ".repeat(6))));
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

/// What `topo tune` prints: the header, NCCL's table when asked, then the sweep, laid
/// out as `term` says; or the same as JSON.
/// `topo analyze`'s tuning section: NCCL's AllReduce picks at a few sizes, with the
/// predicted time and bandwidths, as `topo tune` prints them.
pub fn summary_text(m: &Model, sweep: &Swept, term: &Term) -> String {
    let title = format!(
        "Tuning (NCCL {}'s AllReduce picks, {} ranks; topo tune for every collective and size):",
        m.comm.release, m.comm.n_ranks
    );
    let mut s = format!("{}\n", term.wrap(&title, "  "));
    s.push_str(&sweep_text(&sweep.rows, term));
    s
}

/// `topo tune alltoall|sendrecv`: why NCCL has no tuning for it, and its bound from the
/// paths, as text or JSON.
pub fn p2p_report(an: &Analysis, b: &crate::tune::p2p::Bound, json: bool, term: &Term) -> String {
    let why = "NCCL has no tuning for it: it runs as grouped ncclSend/ncclRecv through the P2P, SHM and NET \
               transports, with no algorithm or protocol to pick";
    if json {
        let doc = serde_json::json!({
            "schema": 1,
            "nccl_version": an.options.env.release().to_string(),
            "input": an.input,
            "func": b.func.name(),
            "tuned": false,
            "why": why,
            "bound": b,
        });
        return crate::render::to_json_string(&doc);
    }
    let mut s = String::new();
    let mut line = |l: String| {
        let _ = writeln!(s, "{}", term.wrap(&l, "#   "));
    };
    line(format!(
        "# topo tune: {} on {}: {} ranks = {} x {} GPUs, NCCL {}",
        b.func.name(),
        an.input,
        b.n_ranks,
        b.n_ranks / b.local_ranks.max(1),
        b.local_ranks,
        an.options.env.release()
    ));
    line(format!("# {why}."));
    match b.busbw_gbs {
        None => line("# one rank: nothing crosses a link".into()),
        Some(bus) => {
            let pattern = match b.func {
                crate::tune::p2p::P2p::AllToAll => "every rank sending 1/n of its buffer to every rank",
                crate::tune::p2p::P2p::SendRecv => "rank r sending its buffer to rank r+1",
            };
            line(format!(
                "# bound from the paths ({pattern}, each transfer at its path's bandwidth): busbw at most {} GB/s",
                crate::render::gbs(bus as f32)
            ));
            for l in &b.limits {
                line(format!("#   set by {}: {} {} GB/s", l.what, l.ty, crate::render::gbs(l.bw as f32)));
            }
        }
    }
    s
}

pub fn report(an: &Analysis, m: &Model, func: Func, sweep: &Swept, table: bool, json: bool, term: &Term) -> String {
    if json {
        let mut doc = serde_json::json!({
            "schema": 1,
            "nccl_version": m.comm.release.to_string(),
            "input": an.input,
            "func": func,
            "call": m.call,
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
    let mut s = header(m, &an.input, func, term);
    if table {
        s.push_str("#\n");
        s.push_str(&nccl_table_with(m, term));
    }
    s.push_str("#\n");
    if sweep.skipped > 0 {
        let line = format!(
            "# {} size(s) holding less than one {} per rank skipped (NCCL does nothing for them)",
            sweep.skipped, m.call.type_name
        );
        let _ = writeln!(s, "{}", term.wrap(&line, "#   "));
    }
    s.push_str(&sweep_text(&sweep.rows, term));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::term::check::{coloured, fits};
    use crate::tune::Sweep;

    fn model(name: &str, nodes: usize, vars: &[(&str, &str)]) -> (Analysis, Model) {
        let (x, _) = crate::fixtures::get(name).unwrap().load().unwrap();
        let env = crate::env::Env::for_release(
            crate::release::Release::NEWEST,
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())),
        );
        let opts = crate::model::Options { nodes, env, ..crate::model::Options::default() };
        let an = crate::model::analyze(&x, "a/long/path/to/the/topology/file/of/this/machine.xml", &opts).unwrap();
        let (gs, _) = crate::search::run(&an, &crate::search::SearchOptions::from_analysis(&an)).unwrap();
        let m = Model::new(&an, &gs).unwrap();
        (an, m)
    }

    /// At a width, the header wraps, NCCL's table comes in narrower blocks and the sweep
    /// names its bottlenecks by notes: every line fits, and nothing is lost.
    #[test]
    fn report_fits_the_width() {
        for (name, nodes, vars) in
            [("dgx-h100", 2, &[][..]), ("gb200-nvl72-tray", 4, &[][..]), ("dgx-h100", 1, &[("NCCL_ALGO", "ring,tree")])]
        {
            let (an, m) = model(name, nodes, vars);
            let sweep = Sweep { min: 8, max: 8 << 30, factor: Some(2), step: 0 };
            let swept = crate::tune::sweep::sweep(&m, Func::AllReduce, &sweep).unwrap();
            let whole = report(&an, &m, Func::AllReduce, &swept, true, false, &Term::default());
            assert!(whole.contains(&nccl_table(&m)), "{name}: NCCL's own table, piped");
            assert!(whole.lines().any(|l| l.len() > 150), "{name}: nothing to fit");
            for width in [80, 100] {
                let t =
                    report(&an, &m, Func::AllReduce, &swept, true, false, &Term { width: Some(width), color: false });
                fits(&t, width, name);
                // A row per size, and each bottleneck said, in its row or in a note.
                let rows = t
                    .lines()
                    .filter(|l| l.split_whitespace().next().and_then(|w| w.parse::<u64>().ok()).is_some())
                    .filter(|l| l.split_whitespace().nth(1).is_some_and(|w| m.algos().iter().any(|a| a.name() == w)))
                    .count();
                assert_eq!(rows, swept.rows.len(), "{name}:\n{t}");
                let words = t.split_whitespace().filter(|w| *w != "#").collect::<Vec<_>>().join(" ");
                for p in &swept.rows {
                    assert!(words.contains(&p.bottleneck), "{name}: {}:\n{t}", p.bottleneck);
                }
                // Every number of NCCL's table is still there, in blocks of fewer algorithms.
                let numbers = |s: &str| {
                    let mut v: Vec<String> = s
                        .split(|c: char| c == '|' || c.is_whitespace())
                        .filter(|w| w.contains(|c: char| c.is_ascii_digit()) && *w != "LL128")
                        .map(str::to_string)
                        .collect();
                    v.sort();
                    v
                };
                let table = nccl_table_with(&m, &Term { width: Some(width), color: false });
                fits(&table, width, name);
                assert_eq!(numbers(&table), numbers(&nccl_table(&m)), "{name}");
            }
            assert!(!coloured(&whole));
            // Path types in bottlenecks are coloured, when there are some.
            let typed = swept.rows.iter().any(|p| bottleneck_tone(&p.bottleneck).is_some());
            let c = report(&an, &m, Func::AllReduce, &swept, false, false, &Term { width: None, color: true });
            assert_eq!(coloured(&c), typed, "{name}");
        }
    }
}
