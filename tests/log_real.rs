//! `topo::log::read` on the real NCCL logs of ../shared/fixtures/logs (excerpts from
//! issue threads and repositories, 2.6 to 2.28): the release found, how many facts of
//! each kind, a few concrete values, and that no NCCL record of a kind topo reads is
//! left unknown. The logs are not part of the project; without them each test says so
//! and passes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use topo::log::{LogFacts, TreeSource, VersionSource};

mod common;

fn path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/logs").join(file)
}

/// The log read, or `None` (and a visible skip) when ../shared is absent.
fn load(test: &str, file: &str) -> Option<LogFacts> {
    let p = path(file);
    if !p.is_file() {
        common::skip(test, &format!("{} is absent", p.display()));
        return None;
    }
    let text = std::fs::read_to_string(&p).expect("log");
    Some(topo::log::read_str(&text, file).unwrap_or_else(|e| panic!("{file}: {e}")))
}

/// Facts per kind: rings, ring_links, trees, graphs, connections.
fn counts(f: &LogFacts) -> [usize; 5] {
    [f.rings.len(), f.ring_links.len(), f.trees.len(), f.graphs.len(), f.connections.len()]
}

fn range(f: &LogFacts) -> (String, String) {
    f.nccl_version.as_ref().and_then(|v| v.range.clone()).expect("a version range")
}

fn from_formats(f: &LogFacts, lo: &str, hi: &str) {
    let v = f.nccl_version.as_ref().expect("a version");
    assert_eq!(v.source, VersionSource::Formats);
    assert_eq!(range(f), (lo.to_string(), hi.to_string()));
}

fn no_unknown(f: &LogFacts) {
    assert_eq!(f.lines.unknown, 0, "unknown records: {:?}", f.lines.unknown_by_word);
}

#[test]
fn aws_p4d_2_7_8() {
    let Some(f) = load("aws_p4d_2_7_8", "aws-ofi-nccl-64-65-p4d-nccl2.7.8.txt") else { return };
    // 2.7's double trees, 3-group thresholds and `Channel NN :` connections; the 2.9.9
    // excerpt at the end adds `Connected all trees` (2.8+), set aside and reported.
    from_formats(&f, "2.7.3", "2.7.8");
    assert!(f.warnings.iter().any(|w| w.contains("Connected all trees")), "{:?}", f.warnings);
    assert_eq!(counts(&f), [0, 0, 24, 0, 24]);
    no_unknown(&f);
    // Two runs: ranks 0, 8, 9 of the 2.7.8 job on two hosts; rank 8 of the 2.9.9 excerpt.
    assert_eq!(f.comms.len(), 2);
    assert_eq!((f.comms[0].nranks, f.comms[0].nnodes, f.comms[0].primary), (16, Some(2), true));
    let r8 = f.ranks.iter().find(|r| r.comm == 0 && r.rank == 8).expect("rank 8");
    assert_eq!((r8.host.as_deref(), r8.bus_id.as_deref()), (Some("ip-172-31-6-104"), Some("0000:10:1c.0")));
    // Rank 13's double tree on channel 0: 14->13->12 up, 12->13->14 down.
    let t = f.trees.iter().find(|t| t.rank == 13 && t.channel == 0).expect("tree");
    assert_eq!((t.up, t.down, t.dn_up, t.dn_down), (12, [14, -1, -1], Some(12), Some([14, -1, -1])));
    let net: Vec<_> = f.connections.iter().filter(|c| c.transport == "NET").collect();
    assert!(net.iter().all(|c| c.mode == "AWS Libfabric" && c.net_dev == Some(0)));
    assert_eq!(net.iter().filter(|c| c.gdr).count(), 5);
    assert!(f.connections.iter().all(|c| c.id_kind.as_deref() == Some("bus_id")));
    assert!(f.env.iter().any(|e| e.name == "NCCL_TOPO_FILE" && e.source == "plugin"));
    assert!(f.env.iter().any(|e| e.name == "NCCL_MIN_NCHANNELS" && e.value == "4"));
    assert_eq!(f.affinity.len(), 7);
}

#[test]
fn cuiboyuan_a6000_2_23_4() {
    let Some(f) = load("cuiboyuan_a6000_2_23_4", "cuiboyuan-2xA6000-nvlink-nccl2.23.4.txt") else { return };
    let v = f.nccl_version.as_ref().unwrap();
    assert_eq!((v.value.as_str(), v.source, v.cuda.as_deref()), ("2.23.4", VersionSource::VersionLine, Some("12.4")));
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    assert_eq!(counts(&f), [0, 4, 8, 2, 4]);
    no_unknown(&f);
    assert_eq!(f.comms.len(), 1);
    let c = &f.comms[0];
    assert_eq!(
        (c.id.as_deref(), c.nranks, c.nnodes, c.nnodes_source.as_deref()),
        (Some("0x4ba8a621792881c2"), 2, Some(1), Some("log"))
    );
    assert_eq!(f.ranks[0].bus_id.as_deref(), Some("0000:08:00.0"));
    let s = &f.systems[0];
    assert_eq!((s.rank, s.nodes.len(), s.links.len(), s.paths.len(), s.truncated), (Some(1), 4, 4, 6, false));
    let nvl = s.links.iter().find(|l| l.kind == "NVL").expect("NVLink");
    assert_eq!(nvl.bw, 48.0);
    // Rank 1's graphs: ring, then tree with the second channel reversed.
    assert_eq!(f.graphs[1].channels[1].gpus, [1, 0]);
    assert!(f.graphs.iter().all(|g| g.rank == Some(1) && g.comm == Some(0)));
    assert!(f.connections.iter().all(|c| c.mode == "CUMEM"
        && c.id_kind.as_deref() == Some("nvml_dev")
        && c.role.as_deref() == Some("ring")
        && c.comm == Some(0)));
    assert_eq!(f.trees.iter().filter(|t| t.source == TreeSource::Tree).count(), 4);
    assert_eq!(f.channel_counts[0].coll, 4);
    assert_eq!(f.nets[0].kind, "Socket");
}

#[test]
fn nccl_1189_h20() {
    let Some(f) = load("nccl_1189_h20", "nccl-1189-h20-2gpu-9nic.txt") else { return };
    from_formats(&f, "2.14.3", "2.20.5");
    assert_eq!(counts(&f), [0, 0, 0, 1, 0]);
    no_unknown(&f);
    let g = &f.graphs[0];
    assert_eq!((g.pattern, g.crossnic, g.nchannels, g.bw_intra), (4, 1, 4, 24.0));
    assert_eq!(
        (g.channels[0].net_in.as_deref(), g.channels[0].gpus.as_slice(), g.channels[0].net_out.as_deref()),
        (Some("3"), &[0, 1][..], Some("2"))
    );
    // Rank 0's system print is cut by the excerpt; its NET path rows follow.
    let s = &f.systems[0];
    assert!(s.truncated);
    assert_eq!((s.max_bw, s.total_bw, s.paths.len()), (48.0, Some(370.8), 39));
    assert!(s.nodes.iter().any(|n| n.kind == "NVS"));
    let net3 = s.nodes.iter().find(|n| n.id == "NET/3").unwrap();
    let a = net3.net.unwrap();
    assert_eq!((a.coll, a.asic, a.port, a.bw), (None, 0xaa24210003bd70c4, 1, 50.0));
}

#[test]
fn nccl_1505_is_not_a_log() {
    let p = path("nccl-1505-dgx-a100-40gb-topology-partial.txt");
    if !p.is_file() {
        common::skip("nccl_1505_is_not_a_log", "the log is absent");
        return;
    }
    // A topology XML fragment with comment lines: nothing NCCL-like.
    let text = std::fs::read_to_string(&p).unwrap();
    let e = topo::log::read_str(&text, "x.txt").unwrap_err().to_string();
    assert!(e.contains("no NCCL debug lines") && e.contains("--topo"), "{e}");
}

#[test]
fn nccl_1519_h100() {
    let Some(f) = load("nccl_1519_h100", "nccl-1519-h100-8gpu-8nic.txt") else { return };
    // Turn 0 is 2.20 (upper-case ids, `%f` paths, nNodes lines); turn 3's path rows
    // (`%.1f`) are 2.21-2.22: set aside and reported.
    from_formats(&f, "2.20.3", "2.20.5");
    assert!(f.warnings.iter().any(|w| w.contains("%.1f")), "{:?}", f.warnings);
    assert_eq!(counts(&f), [0, 0, 0, 1, 0]);
    no_unknown(&f);
    let c = &f.comms[0];
    assert_eq!((c.nranks, c.nnodes, c.local_ranks, c.nnodes_source.as_deref()), (16, Some(2), Some(8), Some("log")));
    assert_eq!(f.nvls_heads.len(), 6);
    assert_eq!(f.nvls_heads[0].heads, [0, 8]);
    // The NVLS graph: one GPU per channel (NCCL's padding zeros dropped).
    let g = &f.graphs[0];
    assert_eq!((g.pattern, g.nchannels, g.rank, g.type_inter.as_str()), (5, 7, Some(0), "PHB"));
    assert_eq!((g.channels[1].gpus.as_slice(), g.channels[1].net_in.as_deref()), (&[1][..], Some("3")));
    // Three partial prints: the cut tree of pid 14492 and the path rows of two others.
    assert_eq!(f.systems.len(), 3);
    assert!(f.systems.iter().all(|s| s.truncated));
    let tree = &f.systems[0];
    assert!(tree.links.iter().any(|l| l.kind == "NVL" && l.bw == 370.8));
    assert_eq!(tree.nodes.iter().find(|n| n.id == "PCI/82000").unwrap().pci_device, Some(0x10b5879610b58796));
}

#[test]
fn nccl_507_dgx2_stripped() {
    let Some(f) = load("nccl_507_dgx2_stripped", "nccl-507-dgx2-v100-8of16gpu.txt") else { return };
    // `[5] NCCL INFO Trees ...`: single trees only say 2.8+.
    from_formats(&f, "2.8.3", "2.30.7");
    assert_eq!(counts(&f), [0, 0, 48, 0, 0]);
    no_unknown(&f);
    assert!(f.hosts.is_empty());
    let t = f.trees.iter().find(|t| t.rank == 5 && t.channel == 11).unwrap();
    assert_eq!((t.up, t.down), (4, [6, -1, -1]));
}

#[test]
fn nccl_601_two_nodes_2_6() {
    let Some(f) = load("nccl_601_two_nodes_2_6", "nccl-601-2node-4gpu-pcie-socketnic.txt") else { return };
    from_formats(&f, "2.6.4", "2.7.8");
    assert_eq!(counts(&f), [0, 0, 0, 3, 0]);
    no_unknown(&f);
    // `Attribute coll of node net not found` x3.
    assert_eq!(f.lines.skipped_known, 3);
    // Two hosts' graph lines interleave; each stream keeps its own.
    let g24 = f.graphs.iter().find(|g| g.host.as_deref() == Some("gpu24")).unwrap();
    assert_eq!(g24.channels.len(), 4);
    assert_eq!(g24.channels[3].gpus, [6, 7, 4, 5]);
    assert!(f.graphs.iter().all(|g| g.bw_intra == 1.2 && g.type_intra == "SYS"));
    let s = f.systems.iter().find(|s| s.host.as_deref() == Some("gpu23")).unwrap();
    assert_eq!(s.max_bw, 1.2);
    assert_eq!(s.nodes.iter().filter(|n| n.kind == "NET").count(), 4);
    // NIC/1000 carries NET/0 and NET/1.
    let nic = s.nodes.iter().position(|n| n.id == "NIC/1000").unwrap();
    assert_eq!(s.links.iter().filter(|l| l.from == nic && l.kind == "NET").count(), 2);
    assert!(f.warnings.iter().any(|w| w.contains("ends inside a graph")));
}

#[test]
fn nccl_671_dgx1() {
    let Some(f) = load("nccl_671_dgx1", "nccl-671-dgx1-v100-4gpu.txt") else { return };
    from_formats(&f, "2.8.3", "2.13.4");
    // The question quoting `NCCL INFO Channel 01/08 : ...` is prose, not read.
    assert_eq!(counts(&f), [0, 0, 8, 0, 16]);
    no_unknown(&f);
    assert_eq!(f.comms.len(), 1);
    assert_eq!(f.ranks.len(), 4);
    let r2 = f.ranks.iter().find(|r| r.rank == 2).unwrap();
    assert_eq!((r2.bus_id.as_deref(), r2.cuda_dev, r2.complete), (Some("0000:0a:00.0"), Some(2), true));
    assert!(f.connections.iter().all(|c| c.mode == "direct pointer" && c.id_kind.as_deref() == Some("bus_id")));
    assert!(f.trees.iter().all(|t| t.rank == 0 && t.comm == Some(0)));
}

#[test]
fn nccl_892_h800() {
    let Some(f) = load("nccl_892_h800", "nccl-892-h800-8gpu.txt") else { return };
    // Padded orders, channel counts with nvls, 4-part thresholds.
    from_formats(&f, "2.18.3", "2.19.4");
    assert_eq!(counts(&f), [1, 0, 48, 0, 2]);
    no_unknown(&f);
    assert_eq!(
        (f.rings[0].nchannels, f.rings[0].order.as_slice(), f.rings[0].rank),
        (16, &[0, 3, 1, 2, 4, 7, 5, 6][..], Some(0))
    );
    // Both connections are tree edges (rank 4's parent 2, rank 7's parent 4).
    assert!(f.connections.iter().all(|c| c.role.as_deref() == Some("tree")));
    let t = f.trees.iter().find(|t| t.rank == 4 && t.channel == 0).unwrap();
    assert_eq!((t.up, t.down), (2, [7, -1, -1]));
    assert_eq!(f.env[0].value, "Tree,Ring,,CollnetDirect,CollnetChain,NVLS");
    assert_eq!(f.channel_counts[0].nvls, Some(0));
}

#[test]
fn nccl_tests_100_hgx_a100() {
    let Some(f) = load("nccl_tests_100_hgx_a100", "nccl-tests-100-hgx-a100-8gpu.txt") else { return };
    // PCI switches without a device attribute: 2.8.
    from_formats(&f, "2.8.3", "2.8.4");
    assert_eq!(counts(&f), [5, 0, 24, 0, 4]);
    no_unknown(&f);
    assert!(f.rings.iter().all(|r| r.nchannels == 24 && r.order == [0, 1, 2, 3, 4, 5, 6, 7]));
    let s = &f.systems[0];
    assert_eq!((s.max_bw, s.total_bw), (252.0, Some(252.0)));
    // PCI/1000 -> 6000 -> C000 -> GPU/E000: a chain drawn by indentation only.
    let id = |x: &str| s.nodes.iter().position(|n| n.id == x).unwrap();
    assert!(s.links.iter().any(|l| l.from == id("PCI/C000") && l.to == id("GPU/E000")));
    assert!(s.paths.iter().any(|p| p.from == "GPU/4F000" && p.to == "GPU/E000" && p.kind == "NVL" && p.bw == 252.0));
    assert_eq!(f.nets[0].devices.len(), 4);
    assert!(f.problems.iter().any(|p| p.kind == "warn" && p.text.contains("libibverbs")));
}

#[test]
fn nccl_tests_256_h200_vm() {
    let Some(f) = load("nccl_tests_256_h200_vm", "nccl-tests-256-h200-baremetal-and-vm.txt") else { return };
    // 4-field NET attributes: 2.24+.
    from_formats(&f, "2.24.3", "2.30.7");
    assert_eq!(counts(&f), [0, 0, 0, 0, 2]);
    no_unknown(&f);
    let s = &f.systems[0];
    assert!(!s.truncated);
    let gpus: Vec<i64> = s.nodes.iter().filter(|n| n.kind == "GPU").filter_map(|n| n.rank).collect();
    assert_eq!(gpus, [8, 9, 10, 11, 12, 13, 14, 15]);
    assert_eq!(s.links.iter().filter(|l| l.kind == "PCI" && l.bw == 0.2).count(), 8);
    let c = &f.connections[0];
    assert_eq!(
        (c.transport.as_str(), c.mode.as_str(), c.net_dev, c.gdr, c.side.as_deref()),
        ("NET", "IB", Some(11), true, Some("receive"))
    );
}

#[test]
fn nccl_tests_307_4090() {
    let Some(f) = load("nccl_tests_307_4090", "nccl-tests-307-8x4090-pcie.txt") else { return };
    from_formats(&f, "2.18.3", "2.27.3");
    assert_eq!(counts(&f), [0, 3, 4, 6, 9]);
    no_unknown(&f);
    // The excerpt opens with a graph channel line whose Pattern line is cut away.
    assert_eq!(f.lines.skipped_known, 1);
    assert!(f.connections.iter().all(|c| c.transport == "SHM" && c.mode == "direct/direct"));
    // Thread 1936513 says `Ring 00 : 7 -> 0 -> 1`: its graphs are rank 0's.
    assert_eq!(f.graphs.iter().filter(|g| g.rank == Some(0)).count(), 2);
}

#[test]
fn panlichen_3090_2_18_1() {
    let Some(f) = load("panlichen_3090_2_18_1", "panlichen-8x3090-nccl2.18.1.txt") else { return };
    // No version line in the excerpt; 2.18.1 is in the range.
    from_formats(&f, "2.14.3", "2.20.5");
    assert_eq!(counts(&f), [0, 16, 0, 2, 0]);
    no_unknown(&f);
    let s = &f.systems[0];
    assert_eq!((s.nodes.len(), s.paths.len(), s.truncated, s.rank), (14, 99, false, Some(4)));
    assert_eq!(s.nodes.iter().find(|n| n.id == "NET/0").unwrap().net.unwrap().bw, 7.0);
    let g = &f.graphs[0];
    assert_eq!((g.pattern, g.bw_intra, g.channels[0].net_in.as_deref()), (4, 4.0, Some("0")));
    let l = f.ring_links.iter().find(|l| l.rank == 0 && l.channel == 1).unwrap();
    assert_eq!((l.prev, l.next), (15, 1));
}

#[test]
fn sugarlxn_4090_2_28_9() {
    let Some(f) = load("sugarlxn_4090_2_28_9", "sugarlxn-4x4090-nccl2.28.9.txt") else { return };
    // No version line in the excerpt; the new affinity line is 2.28+.
    from_formats(&f, "2.28.3", "2.30.7");
    assert_eq!(counts(&f), [0, 3, 2, 2, 0]);
    // One record of the Inspector profiler plugin (`NCCL Inspector enabled ...`): a
    // plugin's message, not NCCL's.
    assert_eq!(f.lines.unknown_by_word, BTreeMap::from([("NCCL".to_string(), 1)]));
    // 12 spliced lines; 65 path rows at NCCL's 1023-byte limit.
    assert_eq!((f.lines.cut, f.lines.truncated), (25, 65));
    let s = &f.systems[0];
    assert_eq!((s.nodes.len(), s.nodes.iter().filter(|n| n.kind == "NET").count()), (71, 61));
    // 2.28 graph channels print bus ids; the system print maps them to ranks.
    let g = &f.graphs[0];
    assert_eq!(g.channels[0].gpu_ids, ["0-26000", "0-41000", "0-61000", "0-81000"]);
    assert_eq!(g.channels[0].gpus, [0, 1, 2, 3]);
    // The tree graph's channel line was lost in a splice.
    assert!(f.graphs[1].channels.is_empty());
    assert_eq!(f.comms[0].id.as_deref(), Some("0x1d7e31d334637d6d"));
    assert_eq!(f.ranks[0].nvml_dev, Some(2));
    assert_eq!(f.affinity[0].mask, "8-15");
}

#[test]
fn yccl_msccl_modified() {
    let Some(f) = load("yccl_msccl_modified", "yccl-4xA6000-msccl2.23.4-modified.txt") else { return };
    from_formats(&f, "2.23.4", "2.27.7");
    assert_eq!(counts(&f), [2, 0, 2, 0, 0]);
    // The author's own prints (path dumps, `Link N: ...`, bare numbers) and MSCCL's
    // messages are not NCCL's: they stay unknown. Upstream lines are all read.
    let words: BTreeMap<String, u64> = [
        ("->", 16),
        ("0", 253),
        ("1", 1),
        ("2", 1),
        ("3", 1),
        ("Channel", 1),
        ("Hop", 24),
        ("Intra-node", 1),
        ("Link", 32),
        ("MSCCL", 3),
        ("Node", 8),
        ("Total", 16),
        ("Using", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(f.lines.unknown_by_word, words);
    assert_eq!(f.rings[0].order, [0, 1, 2, 3]);
    assert_eq!((f.comms[0].nnodes, f.ranks[0].local_rank), (Some(1), Some(0)));
    assert!(f.env.iter().any(|e| e.name == "NCCL_ALGO" && e.value == "MSCCL"));
    assert_eq!(f.nets[0].devices.len(), 10);
    assert_eq!(f.nets[0].devices[9].name, "vethe6e34fe");
    // The spliced first prefix (`[3] NClm2:...`) does not make a host of its own.
    assert_eq!(f.hosts, ["lm2"]);
}

#[test]
fn xml_files_are_refused() {
    for file in ["azure-ncv4-graph-file.xml", "rtx3090x8-graph-dump-nccl2.18.1.xml"] {
        let p = path(file);
        if !p.is_file() {
            common::skip("xml_files_are_refused", &format!("{file} is absent"));
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let e = topo::log::read_str(&text, file).unwrap_err().to_string();
        assert!(e.contains("graph XML") && e.contains("--topo"), "{file}: {e}");
    }
}

/// Every shared log is covered by a test above.
#[test]
fn every_shared_log_has_a_test() {
    let dir = path("");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        common::skip("every_shared_log_has_a_test", "../shared/fixtures/logs is absent");
        return;
    };
    let mut names: Vec<String> =
        entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let covered = [
        "aws-ofi-nccl-64-65-p4d-nccl2.7.8.txt",
        "azure-ncv4-graph-file.xml",
        "cuiboyuan-2xA6000-nvlink-nccl2.23.4.txt",
        "nccl-1189-h20-2gpu-9nic.txt",
        "nccl-1505-dgx-a100-40gb-topology-partial.txt",
        "nccl-1519-h100-8gpu-8nic.txt",
        "nccl-507-dgx2-v100-8of16gpu.txt",
        "nccl-601-2node-4gpu-pcie-socketnic.txt",
        "nccl-671-dgx1-v100-4gpu.txt",
        "nccl-892-h800-8gpu.txt",
        "nccl-tests-100-hgx-a100-8gpu.txt",
        "nccl-tests-256-h200-baremetal-and-vm.txt",
        "nccl-tests-307-8x4090-pcie.txt",
        "panlichen-8x3090-nccl2.18.1.txt",
        "rtx3090x8-graph-dump-nccl2.18.1.xml",
        "sugarlxn-4x4090-nccl2.28.9.txt",
        "yccl-4xA6000-msccl2.23.4-modified.txt",
    ];
    for n in &names {
        assert!(covered.contains(&n.as_str()), "{n} has no test in tests/log_real.rs");
    }
}
