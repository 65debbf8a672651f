//! Real NCCL logs against topo's channel set-up: every `Ring NN : a -> b -> c`, `Trees
//! [c] ...`, `Tree N : ...` and rank-0 `Channel NN/NN : ...` line found in a log must be
//! what topo computes for the same machine and job. The logs live in ../shared (not part
//! of the project); without it the test says so and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use topo::env::Env;
use topo::log::TreeSource;
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

/// What a log says, keyed by rank (and channel), from `topo::log::read_str`.
#[derive(Debug, Default)]
struct Log {
    rings: BTreeMap<(usize, usize), (i32, i32)>,
    /// Tree entries of `Trees` lines: (rank, channel) -> (down, up).
    trees: BTreeMap<(usize, usize), ([i32; 3], i32)>,
    /// Ranks whose `Trees` line was read, with its channel count.
    trees_complete: BTreeMap<usize, usize>,
    /// `Tree N : up -> rank -> d0/d1/d2` lines, as NCCL prints them.
    tree_graph: Vec<(usize, String)>,
    /// Rank 0's ring orders (`Channel NN/MM : r r r`): channel, channels, order, cut.
    channels: Vec<(usize, usize, Vec<i32>, bool)>,
    /// `Pattern ...` summary lines, in order.
    patterns: Vec<String>,
}

fn i(v: i64) -> i32 {
    i32::try_from(v).expect("a rank")
}

fn parse_log(text: &str) -> Log {
    let f = topo::log::read_str(text, "log").expect("an NCCL log");
    let mut log = Log::default();
    for l in &f.ring_links {
        log.rings.insert((l.rank as usize, l.channel as usize), (i(l.prev), i(l.next)));
    }
    for t in &f.trees {
        let (rank, c) = (t.rank as usize, t.channel as usize);
        let down = t.down.map(i);
        match t.source {
            TreeSource::Trees => {
                log.trees.insert((rank, c), (down, i(t.up)));
                *log.trees_complete.entry(rank).or_default() += 1;
            }
            TreeSource::Tree => log
                .tree_graph
                .push((rank, format!("Tree {c} : {} -> {rank} -> {}/{}/{}", t.up, down[0], down[1], down[2]))),
            TreeSource::Nvls => {}
        }
    }
    for o in &f.rings {
        log.channels.push((
            o.channel as usize,
            o.nchannels as usize,
            o.order.iter().map(|&r| i(r)).collect(),
            o.truncated,
        ));
    }
    for g in &f.graphs {
        log.patterns.push(format!(
            "Pattern {}, crossNic {}, nChannels {}, bw {:.6}/{:.6}, type {}/{}, sameChannels {}",
            g.pattern, g.crossnic, g.nchannels, g.bw_intra, g.bw_inter, g.type_intra, g.type_inter, g.same_channels
        ));
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
    for (c, n, order, cut) in &log.channels {
        checked += 1;
        let ours = run.ring_order(*c, 0);
        let same = if *cut { ours.starts_with(order) } else { ours == *order };
        if *n != run.n_channels || !same {
            diffs.push(format!("rank 0 Channel {c:02}/{n:02}: log {order:?}, topo {}/{ours:?}", run.n_channels));
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
    assert_eq!(log.channels, [(0, 2, vec![0, 1], false)]);
}
