//! Real NCCL logs against topo's channel set-up: every `Ring NN : a -> b -> c`, `Trees
//! [c] ...`, `Tree N : ...` and rank-0 `Channel NN/NN : ...` line found in a log must be
//! what topo computes for the same machine and job. The logs live in ../shared (not part
//! of the project); without it the test says so and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use topo::env::Env;
use topo::model::{self, Options};
use topo::release::Release;
use topo::search::{self, SearchOptions, channels};

mod common;

fn shared(test: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    if p.join("logs").is_dir() {
        Some(p)
    } else {
        common::skip(test, "../shared/fixtures/logs is absent");
        None
    }
}

/// What a log says, keyed by rank (and channel).
#[derive(Debug, Default)]
struct Log {
    rings: BTreeMap<(usize, usize), (i32, i32)>,
    /// Tree entries of `Trees` lines: (rank, channel) -> (down, up).
    trees: BTreeMap<(usize, usize), ([i32; 3], i32)>,
    /// Ranks whose `Trees` line was read to its end, with its channel count.
    trees_complete: BTreeMap<usize, usize>,
    /// `Tree N : up -> rank -> d0/d1/d2` lines.
    tree_graph: Vec<(usize, String)>,
    /// Rank 0's ring orders, `Channel NN/NN : r r r` lines.
    channels: Vec<String>,
    /// `Pattern ...` summary lines, in order.
    patterns: Vec<String>,
}

fn int(s: &str) -> Option<i32> {
    s.trim().parse().ok()
}

/// The leading integer of `s` (with an optional minus sign) and the rest.
fn lead_int(s: &str) -> Option<(i32, &str)> {
    let end =
        s.char_indices().find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-'))).map_or(s.len(), |(i, _)| i);
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// `NN : a -> b -> c` (the text after `Ring `).
fn ring_item(s: &str) -> Option<(usize, i32, i32, i32)> {
    let (c, rest) = lead_int(s)?;
    let rest = rest.strip_prefix(" : ")?;
    let (a, rest) = lead_int(rest)?;
    let (b, rest) = lead_int(rest.strip_prefix(" -> ")?)?;
    let (n, _) = lead_int(rest.strip_prefix(" -> ")?)?;
    Some((c as usize, a, b, n))
}

/// ` [c] d0/d1/d2->me->up` items; returns them and whether the text ended cleanly.
/// One ` [c] d0/d1/d2->me->up` item: channel, children, rank, parent.
type TreesItem = (usize, [i32; 3], i32, i32);

fn trees_items(mut s: &str) -> (Vec<TreesItem>, bool) {
    let mut out = Vec::new();
    loop {
        if s.trim().is_empty() {
            return (out, true);
        }
        let Some(r) = s.strip_prefix(" [") else { return (out, false) };
        let item = (|| {
            let (c, r) = lead_int(r)?;
            let r = r.strip_prefix("] ")?;
            let (d0, r) = lead_int(r)?;
            let (d1, r) = lead_int(r.strip_prefix('/')?)?;
            let (d2, r) = lead_int(r.strip_prefix('/')?)?;
            let (me, r) = lead_int(r.strip_prefix("->")?)?;
            let (up, r) = lead_int(r.strip_prefix("->")?)?;
            Some(((c as usize, [d0, d1, d2], me, up), r))
        })();
        match item {
            Some((it, rest)) => {
                out.push(it);
                s = rest;
            }
            None => return (out, false),
        }
    }
}

fn parse_log(text: &str) -> Log {
    let mut log = Log::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        for (i, _) in line.match_indices("NCCL INFO ") {
            let s = &line[i + "NCCL INFO ".len()..];
            if let Some(r) = s.strip_prefix("Ring ") {
                if let Some((c, prev, me, next)) = ring_item(r) {
                    log.rings.insert((me as usize, c), (prev, next));
                }
            } else if let Some(r) = s.strip_prefix("Trees") {
                let (items, complete) = trees_items(r);
                let mut me = None;
                for (c, d, rank, up) in &items {
                    log.trees.insert((*rank as usize, *c), (*d, *up));
                    me = Some(*rank as usize);
                }
                if let (true, Some(me)) = (complete, me) {
                    log.trees_complete.insert(me, items.len());
                }
            } else if let Some(r) = s.strip_prefix("Tree ") {
                // `N : up -> me -> d0/d1/d2`
                if let Some((_, _, me, _)) = ring_item(r) {
                    log.tree_graph.push((me as usize, format!("Tree {}", r.trim_end())));
                }
            } else if s.starts_with("Channel ") {
                // Rank 0's ring orders carry nothing but numbers after the colon.
                if let Some((_, order)) = s.split_once(" : ")
                    && order.split_whitespace().all(|t| int(t).is_some() || t == "...")
                {
                    log.channels.push(s.trim_end().to_string());
                }
            } else if s.starts_with("Pattern ") {
                log.patterns.push(s.trim_end().to_string());
            }
        }
    }
    log
}

struct Case {
    log: &'static str,
    /// The NCCL release that wrote the log: topo models that one.
    release: &'static str,
    topo: &'static str,
    nodes: usize,
    p2p_support: bool,
}

fn compute(root: &Path, case: &Case) -> (search::Graphs, channels::Run) {
    let (x, _) = topo::xml::read_file(&root.join(case.topo)).expect("topology");
    let release = Release::parse(case.release).expect("a release topo models");
    let env = Env::for_release(release, std::iter::empty::<(String, String)>());
    let opts = Options { nodes: case.nodes, p2p_support: case.p2p_support, env, ..Options::default() };
    let an = model::analyze(&x, case.topo, &opts).expect("analysis");
    let so = SearchOptions::from_analysis(&an);
    let (gs, _) = search::run(&an, &so).expect("search");
    let run = channels::for_analysis(&an, &gs).expect("channels");
    (gs, run)
}

/// Compare one log with topo; returns the differences.
fn check(root: &Path, case: &Case) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(root.join("logs").join(case.log)).expect("log");
    let log = parse_log(&text);
    let (gs, run) = compute(root, case);
    let mut diffs = Vec::new();
    let mut checked = 0;
    // The log's own graph summary lines, for the graphs it prints (ring, then tree).
    for (line, g) in log.patterns.iter().zip([&gs.ring, &gs.tree]) {
        checked += 1;
        if *line != g.summary() {
            diffs.push(format!("{}: log `{line}`, topo `{}`", g.name(), g.summary()));
        }
    }
    for (&(rank, c), &(prev, next)) in &log.rings {
        checked += 1;
        if rank >= run.n_ranks || c >= run.n_channels {
            diffs.push(format!(
                "log has Ring {c:02} for rank {rank}; topo has {} channels, {} ranks",
                run.n_channels, run.n_ranks
            ));
            continue;
        }
        let ours = (run.ring_prev(c, rank), run.ring_next(c, rank));
        if ours != (prev, next) {
            diffs.push(format!(
                "rank {rank} Ring {c:02}: log {prev} -> {rank} -> {next}, topo {} -> {rank} -> {}",
                ours.0, ours.1
            ));
        }
    }
    for (&(rank, c), &(down, up)) in &log.trees {
        checked += 1;
        if rank >= run.n_ranks || c >= run.n_channels {
            diffs.push(format!("log has Trees [{c}] for rank {rank}; topo has {} channels", run.n_channels));
            continue;
        }
        let ours = (run.tree_down(c, rank), run.tree_up(c, rank));
        if ours != (down, up) {
            diffs.push(format!("rank {rank} Trees [{c}]: log {down:?}->{up}, topo {:?}->{}", ours.0, ours.1));
        }
    }
    for (&rank, &n) in &log.trees_complete {
        checked += 1;
        if n != run.n_channels {
            diffs.push(format!("rank {rank}: log Trees line has {n} channels, topo runs {}", run.n_channels));
        }
    }
    let mut by_rank: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (rank, l) in &log.tree_graph {
        by_rank.entry(*rank).or_default().push(l.clone());
    }
    for (rank, lines) in by_rank {
        checked += 1;
        if lines != run.tree_lines(rank) {
            diffs.push(format!("rank {rank} Tree lines: log {lines:?}, topo {:?}", run.tree_lines(rank)));
        }
    }
    if !log.channels.is_empty() {
        checked += 1;
        if log.channels != run.channel_lines() {
            diffs.push(format!("rank 0 Channel lines: log {:?}, topo {:?}", log.channels, run.channel_lines()));
        }
    }
    (checked, diffs)
}

const CASES: [Case; 3] = [
    // 2x RTX A6000 with an NVLink bridge, one node, rank 1's log (NCCL 2.23.4).
    Case {
        log: "cuiboyuan-2xA6000-nvlink-nccl2.23.4.txt",
        release: "2.23.4",
        topo: "nccl/a6000x2-nvlink-bridge.xml",
        nodes: 1,
        p2p_support: true,
    },
    // 8x RTX 3090 on 2 nodes (NCCL 2.18.1). GeForce: no P2P; the log's `bw 4/4` ring is the
    // no-P2P search result (with P2P the search finds bw 7).
    Case {
        log: "panlichen-8x3090-nccl2.18.1.txt",
        release: "2.18.1",
        topo: "nccl/rtx3090x8.xml",
        nodes: 2,
        p2p_support: false,
    },
    // 4x RTX 4090, one node, SHM between GPUs (NCCL 2.28.9).
    Case {
        log: "sugarlxn-4x4090-nccl2.28.9.txt",
        release: "2.28.9",
        topo: "nccl/rtx4090x4.xml",
        nodes: 1,
        p2p_support: false,
    },
];

#[test]
fn logs_match_topo_channels() {
    let Some(root) = shared("logs_match_topo_channels") else { return };
    let mut failures = Vec::new();
    for case in &CASES {
        if !root.join("logs").join(case.log).is_file() || !root.join(case.topo).is_file() {
            common::skip("logs_match_topo_channels", &format!("case {}: its log or topology is absent", case.log));
            continue;
        }
        let (checked, diffs) = check(&root, case);
        eprintln!("{}: {checked} log facts checked, {} differ", case.log, diffs.len());
        assert!(checked >= 3, "{}: found too few Ring/Trees lines ({checked})", case.log);
        for d in diffs {
            failures.push(format!("{}: {d}", case.log));
        }
    }
    assert!(failures.is_empty(), "differences:\n{}", failures.join("\n"));
}

#[test]
fn parser_reads_spliced_lines() {
    let text = "a:1:1 [2] NCCL INFO Trees [0] b:1:1 [1] NCCL INFO Ring 00 : 0 -> 1 -> 2\n\
                b:1:1 [1] NCCL INFO Trees [0] 2/-1/-1->1->0 [1] 2/-1/-1->1->0\n\
                c:1:1 [0] NCCL INFO Channel 00/02 :    0   1\n\
                c:1:1 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM\n";
    let log = parse_log(text);
    assert_eq!(log.rings.get(&(1, 0)), Some(&(0, 2)));
    assert_eq!(log.trees.len(), 2);
    assert_eq!(log.trees_complete.get(&1), Some(&2));
    assert_eq!(log.channels, ["Channel 00/02 :    0   1"]);
}
