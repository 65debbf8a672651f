//! `topo search` end to end: the default text, --graph, --rank, --json, --dot,
//! --graph-file and its errors, and the `run` object of `topo analyze --json`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

mod common;

fn topo() -> Command {
    let mut c = Command::cargo_bin("topo").expect("binary");
    // The graph file variable of the developer's shell must not leak into the tests, nor
    // the terminal's width and colour choice.
    c.env_remove("NCCL_GRAPH_FILE").env_remove("COLUMNS").env_remove("NO_COLOR");
    c
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn stdout(c: &mut Command) -> String {
    let out = c.assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn default_output_has_graphs_and_channels() {
    let s = stdout(topo().args(["search", "--fixture", "dgx-h100"]));
    assert!(s.contains("ring graph\n  Pattern 4, crossNic 0, nChannels "), "{s}");
    assert!(s.contains("tree graph\n  Pattern "), "{s}");
    assert!(s.contains("nvls graph\n  Pattern 5, "), "{s}");
    assert!(s.contains("collnet_chain graph\n  none: CollNet is off"), "{s}");
    assert!(s.contains("Channels NCCL runs (1 node(s) x 8 GPUs = 8 ranks)"), "{s}");
    assert!(s.contains("Channel 00/"), "{s}");
    assert!(s.contains("Ring 00 : "), "{s}");
    assert!(s.contains("Trees [0] "), "{s}");
    // Bus ids in the channel table.
    assert!(s.contains("  1 1c:00.0  "), "{s}");
}

#[test]
fn graph_selects_graphs() {
    let s = stdout(topo().args(["search", "--fixture", "dgx-h100", "--graph", "ring"]));
    assert!(s.contains("ring graph"));
    assert!(!s.contains("tree graph") && !s.contains("nvls graph"), "{s}");
    let s = stdout(topo().args(["search", "--fixture", "dgx-h100", "--graph", "tree,nvls"]));
    assert!(!s.contains("ring graph") && s.contains("tree graph") && s.contains("nvls graph"), "{s}");
    let s = stdout(topo().args(["search", "--fixture", "dgx-h100", "--graph", "collnet-direct", "--collnet"]));
    assert!(s.contains("collnet_direct graph\n  Pattern 6"), "{s}");
    topo().args(["search", "--fixture", "dgx-h100", "--graph", "rings"]).assert().code(2);
}

#[test]
fn rank_shows_that_ranks_lines() {
    let s = stdout(topo().args(["search", "--fixture", "dgx1-v100", "--nodes", "2", "--rank", "11"]));
    assert!(s.contains("Rank 11's log lines:"), "{s}");
    assert!(s.contains("Ring 00 : ") && s.contains(" -> 11 -> "), "{s}");
    assert!(s.contains("->11->"), "{s}");
    topo()
        .args(["search", "--fixture", "dgx1-v100", "--rank", "8"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--rank 8").and(predicate::str::contains("ranks 0..7")));
}

#[test]
fn json_has_graphs_and_run() {
    let s = stdout(topo().args(["search", "--fixture", "dgx1-v100", "--nodes", "2", "--json", "--rank", "3"]));
    let v: serde_json::Value = serde_json::from_str(&s).expect("json");
    assert!(v["ring"]["nchannels"].as_i64().unwrap_or(0) > 0);
    let run = &v["run"];
    assert_eq!(run["n_ranks"], 16);
    let n = run["nchannels"].as_u64().expect("nchannels") as usize;
    assert_eq!(run["rings"].as_array().map(|a| a.len()), Some(n));
    assert_eq!(run["rings"][0].as_array().map(|a| a.len()), Some(16));
    assert_eq!(run["log"]["rings"].as_array().map(|a| a.len()), Some(n));
    assert!(run["log"]["trees"].as_str().unwrap_or("").starts_with("Trees [0] "));
    assert!(run["log"]["rings"][0].as_str().unwrap_or("").contains(" -> 3 -> "));
    let s = stdout(topo().args(["search", "--fixture", "dgx1-v100", "--json", "--graph", "tree"]));
    let v: serde_json::Value = serde_json::from_str(&s).expect("json");
    assert!(v.get("ring").is_none() && v.get("tree").is_some());
}

#[test]
fn analyze_json_has_run() {
    let s = stdout(topo().args(["analyze", "--fixture", "workstation-4gpu", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&s).expect("json");
    assert_eq!(v["run"]["nchannels"], 4);
    assert_eq!(v["run"]["log"]["channels"][0], "Channel 00/04 : 0 1 2 3");
}

#[test]
fn min_max_channels_from_the_environment() {
    let s = stdout(topo().args(["search", "--fixture", "workstation-4gpu", "--json"]).env("NCCL_MAX_NCHANNELS", "1"));
    let v: serde_json::Value = serde_json::from_str(&s).expect("json");
    assert_eq!(v["run"]["nchannels"], 1);
    let s = stdout(topo().args(["search", "--fixture", "workstation-4gpu", "--json"]).env("NCCL_MIN_NRINGS", "7"));
    let v: serde_json::Value = serde_json::from_str(&s).expect("json");
    assert_eq!(v["run"]["nchannels"], 7);
    assert_eq!(v["run"]["source"], serde_json::json!([0, 1, 2, 3, 0, 1, 2]));
}

#[test]
fn xml_is_unchanged_by_the_run() {
    let s = stdout(topo().args(["search", "--fixture", "workstation-4gpu", "--xml"]));
    assert!(s.starts_with("<graphs version=\"1\">\n"));
    topo().args(["search", "--fixture", "workstation-4gpu", "--xml", "--graph", "ring"]).assert().code(2);
}

#[test]
fn dot_draws_each_distinct_channel_once() {
    let s = stdout(topo().args(["search", "--fixture", "dgx1-v100", "--dot"]));
    assert!(s.starts_with("digraph topo {"), "{s}");
    assert!(s.contains("ring: channels "), "{s}");
    assert!(s.contains("tree chain: channels "), "{s}");
    assert!(s.contains("\"legend\""), "{s}");
    // A line break in a label stays a Graphviz line break.
    assert!(s.contains("GPU rank 0\\n") && !s.contains("\\\\n"), "{s}");
}

#[test]
fn dot_channel_draws_one_channel_with_loads_per_direction() {
    let s = stdout(topo().args(["search", "--fixture", "dgx-h100", "--dot", "--channel", "1", "--graph", "ring"]));
    assert!(s.starts_with("graph topo {"), "{s}");
    assert!(s.contains("ring channel 1 over the machine"), "{s}");
    assert!(s.contains("↓ 30.0 ↑ 30.0 of 370.8 GB/s"), "{s}");
    assert!(s.contains("label=\"step 1/8\""), "{s}");
    // One graph at a time, a channel that exists, and only with --dot.
    topo()
        .args(["search", "--fixture", "dgx-h100", "--dot", "--channel", "0", "--graph", "ring,tree"])
        .assert()
        .code(2);
    topo().args(["search", "--fixture", "dgx-h100", "--dot", "--channel", "99"]).assert().code(2);
    topo().args(["search", "--fixture", "dgx-h100", "--channel", "0"]).assert().code(2);
}

#[test]
fn graph_file_reports_oversubscription() {
    let f = root().join("fixtures/graphs/workstation-4gpu-ring4.xml");
    let s = stdout(topo().args(["search", "--fixture", "workstation-4gpu", "--graph-file"]).arg(&f));
    assert!(s.contains("ring graph (loaded from the graph file)"), "{s}");
    assert!(s.contains("Oversubscribed links (GB/s):"), "{s}");
    assert!(s.contains("GPU/0000:01:00.0 (rank 0) -PCI-> CPU/0      24.0    48.0  0 1 2 3"), "{s}");
    assert!(s.contains("      0  12.0/12.0         6.0/-"), "{s}");
    // The tree graph of the file fits.
    assert!(s.contains("  tree graph\n") && s.contains("No link is oversubscribed."), "{s}");
    // min(ring 4, tree 2) = 2 search channels, 4 after duplication.
    assert!(s.contains("nChannels 4\n    2  min(ring 4, tree 2)"), "{s}");
    // The same through the environment, and as JSON.
    let s = stdout(topo().args(["search", "--fixture", "workstation-4gpu", "--json"]).env("NCCL_GRAPH_FILE", &f));
    let v: serde_json::Value = serde_json::from_str(&s).expect("json");
    let g = &v["graph_file"]["graphs"][0];
    assert_eq!(g["graph"], "ring");
    assert_eq!(g["oversubscribed"].as_array().map(|a| a.len()), Some(8));
    assert_eq!(g["channels"][0]["got_intra"], 6.0);
    assert_eq!(v["ring"]["from_graph_file"], true);
}

#[test]
fn graph_file_errors_exit_2() {
    topo()
        .args(["search", "--fixture", "workstation-4gpu", "--graph-file", "/nonexistent/graph.xml"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("/nonexistent/graph.xml"));
    let dir = tempfile::tempdir().expect("tmp");
    let bad = dir.path().join("bad.xml");
    std::fs::write(
        &bad,
        "<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"1\" speedintra=\"12\" \
         speedinter=\"12\" latencyinter=\"0\" typeintra=\"PHB\" typeinter=\"PIX\" samechannels=\"0\">\n    <channel>\n      \
         <gpu dev=\"0\" rank=\"0\"/>\n      <gpu dev=\"0x1\" rank=\"1\"/>\n      <gpu dev=\"0x2\" rank=\"2\"/>\n      \
         <gpu dev=\"0x9\" rank=\"9\"/>\n    </channel>\n  </graph>\n</graphs>\n",
    )
    .expect("write");
    topo()
        .args(["search", "--fixture", "workstation-4gpu", "--graph-file"])
        .arg(&bad)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("bad.xml").and(predicate::str::contains("rank 9 is not a GPU")));
    // A topology file is not a graph file.
    topo()
        .args(["search", "--fixture", "workstation-4gpu", "--graph-file"])
        .arg(root().join("fixtures/topologies/workstation-4gpu.xml"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("expected <graphs>"));
    // A channel with a GPU missing: NCCL leaves rank 0 in its place (which here happens
    // to complete the ring); topo says so.
    let short = dir.path().join("short.xml");
    std::fs::write(
        &short,
        "<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"1\" speedintra=\"12\" \
         speedinter=\"12\" latencyinter=\"0\" typeintra=\"PHB\" typeinter=\"PIX\" samechannels=\"0\">\n    <channel>\n      \
         <gpu dev=\"0x1\" rank=\"1\"/>\n      <gpu dev=\"0x2\" rank=\"2\"/>\n      <gpu dev=\"0x3\" rank=\"3\"/>\n    \
         </channel>\n  </graph>\n</graphs>\n",
    )
    .expect("write");
    topo()
        .args(["search", "--fixture", "workstation-4gpu", "--graph-file"])
        .arg(&short)
        .assert()
        .success()
        .stderr(predicate::str::contains("lists 3 GPUs, the node has 4"));
}

/// The graph file of a real Azure NCv4 run (../shared, skipped when absent): NCCL runs
/// it without checks; topo shows it oversubscribes every GPU's PCIe link.
#[test]
fn azure_ncv4_graph_file() {
    let shared = root().join("../shared/fixtures");
    let (topo_file, graph) = (shared.join("nccl/azure-ncv4.xml"), shared.join("logs/azure-ncv4-graph-file.xml"));
    if !topo_file.is_file() || !graph.is_file() {
        common::skip("azure_ncv4_graph_file", "../shared/fixtures (azure-ncv4) is absent");
        return;
    }
    let s = stdout(topo().arg("search").arg("--topo").arg(&topo_file).arg("--graph-file").arg(&graph));
    assert!(s.contains("ring graph (loaded from the graph file)\n  Pattern 4, crossNic 0, nChannels 2, bw 12.000000/12.000000, type SYS/PIX, sameChannels 0"), "{s}");
    assert!(s.contains("tree graph (loaded from the graph file)\n  Pattern 1, crossNic 0, nChannels 4"), "{s}");
    // Two ring channels at 12 GB/s through each GPU's 12 GB/s PCIe link: 24 demanded.
    assert!(s.contains("CPU/0 -PCI-> GPU/0001:00:00.0 (rank 0)      12.0    24.0  0 1"), "{s}");
    assert!(s.contains("      0  12.0/12.0         6.0/-"), "{s}");
    assert!(s.contains("    2  min(ring 2, tree 4) search channels"), "{s}");
    assert!(s.contains("Channel 01/04 : 0 3 2 1"), "{s}");
}

/// 16 L20s whose two halves reach each other only through the network (../shared,
/// skipped when absent): each half trims the other away and searches alone, and NCCL
/// runs them as two nodes of 8 ranks whose rings join through the NICs.
#[test]
fn trimmed_halves_run_as_two_nodes() {
    let topo_file = root().join("../shared/fixtures/nccl/l20x16-bf3.xml");
    if !topo_file.is_file() {
        common::skip("trimmed_halves_run_as_two_nodes", "../shared/fixtures (l20x16-bf3) is absent");
        return;
    }
    let s = stdout(topo().env_clear().arg("search").arg("--topo").arg(&topo_file).args(["--rank", "2"]));
    assert!(!s.contains("not modelled"), "{s}");
    assert!(s.contains("Channels NCCL runs (2 node(s) x 8 GPUs = 16 ranks): nChannels 2"), "{s}");
    assert!(s.contains("Channel 00/02 :  0  1  4  5  8  9 12 13  2  3  6  7 10 11 14 15"), "{s}");
    assert!(s.contains("Ring 00 : 13 -> 2 -> 3"), "{s}");
}

/// The graph dump's device numbers as each release writes them: `%d` device numbers
/// and every GPU of an NVLS channel before 2.21, `%#lx` 64-bit ids and the NVLS head
/// only from 2.21 (NVIDIA/nccl src/graph/search.cc, ncclTopoGetXmlFromChannel).
#[test]
fn graph_dump_devices_by_release() {
    let dump = |v: &str| {
        stdout(topo().args(["search", "--xml", "--fixture", "dgx-h100", "--nodes", "2", "--nccl-version", v]))
    };
    let old = dump("2.20.5");
    assert!(old.contains(r#"<gpu dev="7"/>"#) && !old.contains("0x"), "{old}");
    let new = dump("2.21.5");
    assert!(new.contains(r#"<gpu dev="0x7"/>"#), "{new}");
    let nvls_gpus = |text: &str| {
        let nvls = text.split(r#"<graph id="3""#).nth(1).unwrap_or("");
        let first = nvls.split("</channel>").next().unwrap_or("");
        first.matches("<gpu ").count()
    };
    assert_eq!(nvls_gpus(&old), 8, "before 2.21 an NVLS channel lists every GPU:\n{old}");
    assert_eq!(nvls_gpus(&new), 1, "from 2.21 only its head:\n{new}");
}

/// The graph dump of a real NCCL 2.18.1 run (2 nodes of 8 RTX 3090, no P2P between
/// GeForce cards), byte for byte.
#[test]
fn graph_dump_of_nccl_2_18_1() {
    let shared = root().join("../shared/fixtures");
    let (machine, dump) = (shared.join("nccl/rtx3090x8.xml"), shared.join("logs/rtx3090x8-graph-dump-nccl2.18.1.xml"));
    if !machine.exists() || !dump.exists() {
        common::skip("graph_dump_of_nccl_2_18_1", "../shared/fixtures (rtx3090x8) is absent");
        return;
    }
    let ours = stdout(
        topo()
            .args(["search", "--xml", "--nodes", "2", "--no-p2p-support", "--nccl-version", "2.18.1"])
            .arg("--topo")
            .arg(&machine),
    );
    assert_eq!(ours, std::fs::read_to_string(&dump).unwrap());
}

/// A channel wrapped over several lines keeps the ring readable in order: NET IN, the
/// GPUs, then NET OUT on the line of the last GPUs.
#[test]
fn wrapped_channels_end_with_net_out() {
    let s = stdout(topo().env("COLUMNS", "100").args([
        "search",
        "--graph",
        "ring",
        "--fixture",
        "dgx-h100",
        "--nodes",
        "2",
    ]));
    let lines: Vec<&str> = s.lines().collect();
    let first = lines.iter().position(|l| l.trim_start().starts_with("0  NET/0 mlx5_0")).expect(&s);
    assert_eq!(lines[first].matches("mlx5_0").count(), 1, "NET OUT not on the first line:\n{s}");
    assert!(lines[first + 1].trim_end().ends_with("NET/0 mlx5_0"), "NET OUT after the last GPUs:\n{s}");
}

/// Pictures a person can follow: the NVLS graph is one NVSwitch domain (one switch for
/// every head), the steps of `--channel N` read `step k/n` (not `ring k`, which reads
/// as a channel), and channels that share an order of GPUs share one diagram, whatever
/// NICs they use.
#[test]
fn dot_pictures_read_as_they_should() {
    let nvls = stdout(topo().args(["search", "--dot", "--graph", "nvls", "--fixture", "dgx-h100"]));
    assert_eq!(nvls.matches("label=\"NVSwitch (NVLS)\"").count(), 1, "{nvls}");
    assert_eq!(nvls.matches("head of channel").count(), 8, "{nvls}");
    let ch = stdout(topo().args(["search", "--dot", "--channel", "0", "--fixture", "dgx1-v100"]));
    assert!(ch.contains("label=\"step 1/8\"") && ch.contains("label=\"step 8/8\""), "{ch}");
    assert!(!ch.contains("label=\"ring 1\""), "{ch}");
    let file = root().join("../shared/fixtures/nccl/aws-p5-efa32.xml");
    if !file.exists() {
        common::skip("dot_pictures_read_as_they_should", "../shared/fixtures/nccl/aws-p5-efa32.xml is absent");
        return;
    }
    let args = ["search", "--graph", "ring", "--nodes", "2", "--topo", file.to_str().unwrap()];
    let j: serde_json::Value = serde_json::from_str(&stdout(topo().args(args).arg("--json"))).unwrap();
    let orders: std::collections::BTreeSet<String> =
        j["ring"]["channels"].as_array().unwrap().iter().map(|c| c["ranks"].to_string()).collect();
    let dot = stdout(topo().args(args).arg("--dot"));
    assert_eq!(dot.matches("label=\"ring: channel").count(), orders.len(), "{dot}");
    assert!(orders.len() < j["ring"]["nchannels"].as_u64().unwrap() as usize);
    assert!(dot.contains("(one a channel)"), "the NICs of the channels that share a diagram: {dot}");
}
