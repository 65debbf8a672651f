//! `topo log` as a user runs it: synthetic logs printed from topo's own model
//! (tests/support/nccl_log.rs) are held against the model and agree; the rebuilt
//! topology loads and holds the print's GPUs, NICs and NVLinks; inputs that are not logs
//! exit 2.

use std::process::Command;

#[path = "support/nccl_log.rs"]
mod nccl_log;
use nccl_log::*;

mod common;

fn topo() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_topo"));
    // The terminal's width and colour choice shape the text.
    c.env_remove("COLUMNS").env_remove("NO_COLOR");
    c
}

fn write_log(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A log printed from the model of a machine, held against the model rebuilt from its
/// own system print, agrees (exit 0) for every era topo models.
#[test]
fn logs_printed_from_the_model_agree_with_it() {
    let d = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (fixture, nodes) in [("dgx-h100", 1), ("dgx-h100", 2), ("workstation-4gpu", 1)] {
        for era in ["2.18.1", "2.21.5", "2.23.4", "2.28.9", "2.30.7"] {
            let log = write(&Spec::new(fixture, nodes, Era::parse(era)), &Envelope::default());
            let f = write_log(d.path(), &format!("{fixture}-{nodes}-{era}.log"), &log.text);
            let out = topo().arg("log").arg(&f).output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            if out.status.code() != Some(0) || !text.contains("agrees with the log") {
                let model: String =
                    text.lines().skip_while(|l| !l.starts_with("Model")).take(12).collect::<Vec<_>>().join("\n");
                failures.push(format!("{fixture} x{nodes} {era}: exit {:?}\n{model}", out.status.code()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `--xml` rebuilds a topology `topo show` reads, with the print's GPUs and NVLinks.
#[test]
fn rebuilt_topology_loads_with_the_prints_gpus() {
    let d = tempfile::tempdir().unwrap();
    let log = write(&Spec::new("dgx-h100", 1, Era::parse("2.28.9")), &Envelope::default());
    let f = write_log(d.path(), "dgx.log", &log.text);
    let out = topo().args(["log", "--xml"]).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let xml = d.path().join("rebuilt.xml");
    std::fs::write(&xml, &out.stdout).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("<gpu ").count(), 8);
    assert_eq!(text.matches("<nvlink ").count(), 8, "each GPU's link to the NVSwitches");
    assert!(String::from_utf8_lossy(&out.stderr).contains("assumed:"), "what the print cannot tell is said");
    let show = topo().args(["show", "--topo"]).arg(&xml).output().unwrap();
    assert_eq!(show.status.code(), Some(0), "{}", String::from_utf8_lossy(&show.stderr));
    let analyze = topo().args(["analyze", "--json", "--topo"]).arg(&xml).output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&analyze.stdout).unwrap();
    let nvl = j["paths"]["gpu_gpu"].as_array().unwrap().iter().filter(|p| p["type"] == "NVL").count();
    assert_eq!(nvl, 8 * 7, "every GPU pair over NVLink");
}

/// `--json` holds the schema's members; `--dot` draws the rings; `--rank` filters.
#[test]
fn json_dot_and_rank() {
    let d = tempfile::tempdir().unwrap();
    let log = write(&Spec::new("dgx-h100", 2, Era::parse("2.23.4")), &Envelope::default());
    let f = write_log(d.path(), "two.log", &log.text);
    let out = topo().args(["log", "--json"]).arg(&f).output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "schema",
        "nccl_version",
        "ranks",
        "system",
        "graphs",
        "rings",
        "trees",
        "connections",
        "env",
        "tuning",
        "findings",
        "model",
        "unusual",
    ] {
        assert!(j.get(key).is_some(), "--json lacks {key}");
    }
    assert_eq!(j["nccl_version"]["value"], "2.23.4");
    let ranked = topo().args(["log", "--json", "--rank", "3"]).arg(&f).output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&ranked.stdout).unwrap();
    assert!(j["trees"].as_array().unwrap().iter().all(|t| t["rank"] == 3));
    let dot = topo().args(["log", "--dot"]).arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&dot.stdout);
    assert!(text.starts_with("digraph") && text.contains("GPU rank 0") && text.contains("channels"));
}

/// `--dot` lays out on every Graphviz from 2.42 (Debian 12 and Ubuntu 22.04 ship 2.43,
/// which fails on a cluster's `layout=` attribute): no layout engine is named, and the
/// installed `dot` draws it (skipped visibly without Graphviz).
#[test]
fn dot_draws_on_old_graphviz() {
    let d = tempfile::tempdir().unwrap();
    let log = write(&Spec::new("dgx-h100", 1, Era::parse("2.28.9")), &Envelope::default());
    let f = write_log(d.path(), "one.log", &log.text);
    let out = topo().args(["log", "--dot"]).arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("GPU rank 7"), "{text}");
    assert!(!text.contains("layout="), "a layout engine named in the drawing:\n{text}");
    let Ok(mut dot) = Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        common::skip("dot_draws_on_old_graphviz", "no Graphviz `dot` on PATH: the drawing is not laid out");
        return;
    };
    use std::io::Write;
    dot.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let drawn = dot.wait_with_output().unwrap();
    assert!(drawn.status.success(), "dot: {}", String::from_utf8_lossy(&drawn.stderr));
    assert!(String::from_utf8_lossy(&drawn.stdout).contains("GPU rank 7"));
}

/// `--dot` on a log without ring orders says there is nothing to draw (exit 2, nothing
/// on stdout), not an empty drawing.
#[test]
fn dot_without_rings_says_nothing_to_draw() {
    let d = tempfile::tempdir().unwrap();
    let log = write(&Spec::new("dgx-h100", 1, Era::parse("2.28.9")), &Envelope::default());
    let text: String = log
        .text
        .lines()
        .filter(|l| {
            let ring_line = l.contains(" Ring ") || (l.contains("Channel ") && l.contains(" : "));
            !ring_line
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let f = write_log(d.path(), "norings.log", &text);
    let out = topo().args(["log", "--dot"]).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("norings.log") && err.contains("nothing to draw"), "{err}");
}

/// Binary bytes, a topology XML and an empty file exit 2 naming the file.
#[test]
fn inputs_that_are_not_logs_exit_2() {
    let d = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("bin.log", vec![0u8, 159, 146, 150, 0, 1, 2, 3]),
        ("topo.xml", b"<system version=\"1\">\n  <cpu numaid=\"0\"/>\n</system>\n".to_vec()),
        ("empty.log", Vec::new()),
    ] {
        let p = d.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let out = topo().arg("log").arg(&p).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(name), "{name}: the message names the file");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
    }
}

/// The shared real logs held against the model, as a user runs `topo log`: agreement
/// where the log holds the machine (with the log's release), and a named cause where
/// it cannot (a partial print, a release older than topo models, nothing printed to
/// compare).
#[test]
fn real_logs_agree_or_name_the_cause() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/logs");
    if !dir.is_dir() {
        common::skip("real_logs_agree_or_name_the_cause", &format!("{} is absent", dir.display()));
        return;
    }
    let run = |file: &str, args: &[&str]| {
        let out = topo().arg("log").arg(dir.join(file)).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    // Agreement with the release the log was written by.
    for (file, version) in [
        ("cuiboyuan-2xA6000-nvlink-nccl2.23.4.txt", None),
        ("panlichen-8x3090-nccl2.18.1.txt", Some("2.18.1")),
        ("sugarlxn-4x4090-nccl2.28.9.txt", Some("2.28.9")),
    ] {
        let args: Vec<&str> = version.map(|v| vec!["--nccl-version", v]).unwrap_or_default();
        let (code, text) = run(file, &args);
        assert_eq!(code, Some(0), "{file}:\n{text}");
        assert!(text.contains("agrees with the log on every fact compared"), "{file}:\n{text}");
    }
    // The 3090s have GPUDirect RDMA off: the print routes NET traffic through the CPU.
    let (_, text) = run("panlichen-8x3090-nccl2.18.1.txt", &["--nccl-version", "2.18.1"]);
    assert!(text.contains("GPUDirect RDMA: off for NET 0"), "{text}");
    // Excerpts of a system print: no model on part of a machine.
    for (file, shows) in [
        ("nccl-1189-h20-2gpu-9nic.txt", "shows 1 GPU, the GPUs its path rows name 2"),
        ("nccl-1519-h100-8gpu-8nic.txt", "shows 2 GPUs, its communicator's localRanks 8"),
        ("nccl-tests-100-hgx-a100-8gpu.txt", "shows 1 GPU, the GPUs its path rows name 8"),
    ] {
        let (code, text) = run(file, &[]);
        assert_eq!(code, Some(0), "{file}:\n{text}");
        assert!(text.contains("Model: not run (the system print") && text.contains(shows), "{file}:\n{text}");
    }
    // A 2.6-2.7 log: its one difference is put down to its release.
    let (code, text) = run("nccl-601-2node-4gpu-pcie-socketnic.txt", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("1 difference in 1 facts") && text.contains("2 nodes"), "{text}");
    assert!(text.contains("older than every release topo models"), "{text}");
    // `--xml` rebuilds what the print shows, in a form `topo show` reads.
    for (file, gpus, nets, nvlinks) in [
        ("panlichen-8x3090-nccl2.18.1.txt", 8, 1, 0),
        ("cuiboyuan-2xA6000-nvlink-nccl2.23.4.txt", 2, 0, 2),
        ("nccl-tests-256-h200-baremetal-and-vm.txt", 8, 8, 8),
    ] {
        let out = topo().arg("log").arg(dir.join(file)).arg("--xml").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{file}: {}", String::from_utf8_lossy(&out.stderr));
        let xml = String::from_utf8_lossy(&out.stdout).into_owned();
        let count = |tag: &str| xml.matches(tag).count();
        assert_eq!((count("<gpu "), count("<net "), count("<nvlink ")), (gpus, nets, nvlinks), "{file}:\n{xml}");
        let d = tempfile::tempdir().unwrap();
        let f = write_log(d.path(), "m.xml", &xml);
        let show = topo().args(["show", "--topo"]).arg(&f).output().unwrap();
        assert_eq!(show.status.code(), Some(0), "{file}: {}", String::from_utf8_lossy(&show.stderr));
    }
    // A system print and nothing else of the job.
    let (code, text) = run("nccl-tests-256-h200-baremetal-and-vm.txt", &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("nothing to compare"), "{text}");
}

/// The tuning table is held against the model's too: agreement on a log printed from
/// the model, and a finding naming the algorithm and protocol when one cell differs.
#[test]
fn tuning_tables_are_compared() {
    let d = tempfile::tempdir().unwrap();
    let log = write(&Spec::new("dgx-h100", 2, Era::parse("2.30.7")), &Envelope::default());
    let f = write_log(d.path(), "agree.log", &log.text);
    let out = topo().arg("log").arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(" tuning)"), "tuning cells are counted: {text}");
    // Tree/LL of AllReduce, changed in rank 0's first block.
    let line = log.text.lines().find(|l| l.contains("NCCL INFO     AllReduce |")).expect("a tuning row").to_string();
    let cells: Vec<&str> = line.split('|').collect();
    let changed = format!("{}| {:>7}/{:>6} |{}", cells[0], "999.9", "1.0", cells[2..].join("|"));
    let f = write_log(d.path(), "differ.log", &log.text.replacen(&line, &changed, 1));
    let out = topo().arg("log").arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("[tuning] Tree/LL latency us/bandwidth GB/s: AllReduce 999.9/1.0"), "{text}");
}

/// nccl-tests' results table (any version's columns), beside the model's prediction for
/// the machine and size, with the share the run reached.
const TESTS_TABLE: &str = "\
# nThread 1 nGpus 8 minBytes 1048576 maxBytes 1073741824 step: 1024(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576        262144     float     sum      -1    60.12   17.44   30.52      0    59.80   17.53   30.68      0
  1073741824     268435456     float     sum      -1   6100.5  176.01  308.02      0   6090.1  176.31  308.54      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 169.27
";

#[test]
fn nccl_tests_results_beside_the_model() {
    let d = tempfile::tempdir().unwrap();
    let log = write(&Spec::new("dgx-h100", 1, Era::parse("2.28.9")), &Envelope::default());
    let f = write_log(d.path(), "with-tests.log", &format!("{}{TESTS_TABLE}", log.text));
    let out = topo().args(["log"]).arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("nccl-tests results: allreduce, 8 ranks, float sum"), "{text}");
    // The model's busbw at 1 GiB is topo tune's.
    let tune = assert_cmd::cargo::cargo_bin_cmd!("topo")
        .args(["tune", "--fixture", "dgx-h100", "--nccl-version", "2.28.9", "-b", "1G", "-e", "1G"])
        .output()
        .unwrap();
    let tune = String::from_utf8_lossy(&tune.stdout).into_owned();
    let model: f64 = tune.lines().last().unwrap().split_whitespace().nth(7).unwrap().parse().unwrap();
    let pct = 308.02 / model * 100.0;
    let verdict = format!("your 8-GPU allreduce reaches {pct:.0}% of what this topology allows at 1 GiB");
    assert!(text.contains(&verdict), "{verdict}\n{text}");
    let j: serde_json::Value =
        serde_json::from_slice(&topo().args(["log", "--json"]).arg(&f).output().unwrap().stdout).unwrap();
    assert_eq!(j["perf"][0]["rows"][1]["oop"][2], 308.02);
    assert_eq!(j["model"]["perf"][0]["rows"][1]["measured_busbw"], 308.02);

    // The table alone (no NCCL lines), with the machine given.
    let alone = write_log(d.path(), "alone.log", TESTS_TABLE);
    let machine = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/topologies/dgx-h100.xml");
    let out = topo().args(["log", "--nccl-version", "2.28.9", "--topo"]).arg(&machine).arg(&alone).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(&verdict), "{text}");
}

/// The lines a 2.30.7 rank prints about multi-node NVLink on an NVL rack of `trays`
/// GB200 trays (4 GPUs each): its fabric registration, its clique verdict and the
/// communicator's node count. `state` is every registration's NVML fabric state;
/// `on` whether NCCL turned MNNVL on.
fn mnnvl_log(trays: usize, state: u32, on: bool) -> String {
    let buses = ["801000", "901000", "1801000", "1901000"];
    let n = trays * 4;
    let mut s = String::new();
    for r in 0..n {
        let (tray, local) = (r / 4, r % 4);
        let p = format!("tray{tray}:{}:{} [{local}] NCCL INFO ", 100 + r, 200 + r);
        let bus = buses[local];
        s += &format!("{p}NCCL version 2.30.7+cuda12.9\n");
        s += &format!(
            "{p}ncclCommInitRank comm 0xa{r} rank {r} nranks {n} cudaDev {local} nvmlDev {local} busId {bus} commId 0xfeed - Init START\n"
        );
        s += &format!(
            "{p}MNNVL busId 0x{bus} fabric UUID 8e4b437a1c5e2f9d.514c2d0b6f3ec0a1 cliqueId 0x7ffe state {state} healthMask 0x0\n"
        );
        let (nodes, local_ranks, local_rank) = if on { (1, n, r) } else { (trays, 4, local) };
        if on {
            s += &format!("{p}MNNVL 1 cliqueId 7ffe cliqueSize {n} cliqueRank {r} nvlDomainSize {n}\n");
        }
        s += &format!(
            "{p}comm 0xa{r} rank {r} nRanks {n} nNodes {nodes} localRanks {local_ranks} localRank {local_rank} MNNVL {}\n",
            u8::from(on)
        );
    }
    s
}

#[test]
fn mnnvl_lines_are_read_and_held_against_the_fused_model() {
    let d = tempfile::tempdir().unwrap();
    let tray = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/topologies/gb200-nvl72-tray.xml");
    let run = |name: &str, text: &str| {
        let f = write_log(d.path(), name, text);
        let out = topo().args(["log", "--json", "--topo"]).arg(&tray).arg(&f).output().unwrap();
        assert!(out.status.code().is_some(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let mnnvl_findings = |j: &serde_json::Value| -> Vec<String> {
        j["model"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"].as_str().unwrap().starts_with("mnnvl"))
            .map(|f| format!("{}: log {} / model {}", f["kind"], f["log"], f["model"]))
            .collect()
    };

    // Four trays in one clique: the facts are read, and the model agrees (one node of 16).
    let j = run("on.log", &mnnvl_log(4, 3, true));
    assert_eq!(j["fabric"].as_array().unwrap().len(), 16);
    assert_eq!(j["fabric"][1]["bus_id"], "0009:01:00.0");
    assert_eq!(j["fabric"][1]["cluster_uuid"], "8e4b437a1c5e2f9d.514c2d0b6f3ec0a1");
    assert_eq!(j["fabric"][1]["state"], 3);
    assert_eq!(j["cliques"][5]["clique_size"], 16);
    assert_eq!(j["cliques"][5]["nvl_domain_size"], 16);
    assert_eq!(j["comms"][0]["mnnvl"], true);
    assert_eq!(j["model"]["nodes"], 4);
    assert!(j["model"]["checked"]["mnnvl"].as_u64().unwrap() >= 4, "{}", j["model"]["checked"]);
    assert_eq!(mnnvl_findings(&j), Vec::<String>::new());
    // A clique NCCL cut in two (another clique id on two trays, say): each count differs.
    let half = mnnvl_log(4, 3, true).replace("cliqueSize 16", "cliqueSize 8").replace("nNodes 1", "nNodes 2");
    let found = mnnvl_findings(&run("half.log", &half));
    assert_eq!(
        found,
        [
            "\"mnnvl_clique_size\": log \"cliqueSize 8\" / model \"cliqueSize 16\"",
            "\"mnnvl_nnodes\": log \"nNodes 2\" / model \"nNodes 1\""
        ],
        "{found:?}"
    );

    // A registration still in progress: NCCL kept MNNVL off, and so does the model.
    let j = run("pending.log", &mnnvl_log(2, 2, false));
    assert_eq!(j["model"]["nodes"], 2);
    assert_eq!(mnnvl_findings(&j), Vec::<String>::new());

    // Registrations complete but MNNVL off (no IMEX): a difference, with its likely cause.
    let j = run("no-imex.log", &mnnvl_log(2, 3, false));
    let found = mnnvl_findings(&j);
    assert_eq!(found, ["\"mnnvl_enabled\": log \"MNNVL 0\" / model \"MNNVL 1\""], "{found:?}");
    let f = j["model"]["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "mnnvl_enabled").unwrap();
    assert!(f["cause"].as_str().unwrap().contains("IMEX"), "{f}");
}

/// NCCL_MNNVL_CLIQUE_ID=-2 (2.28.3+): each rank prints its rack's serial, and its clique
/// is that rack. Four trays in two racks of two: the log's cliques (8 ranks each, two
/// nodes of 8 local ranks) held against the model of two cliques read from the serials.
#[test]
fn rack_serial_lines_make_the_cliques_of_the_model() {
    let d = tempfile::tempdir().unwrap();
    let tray = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/topologies/gb200-nvl72-tray.xml");
    let buses = ["801000", "901000", "1801000", "1901000"];
    let mut s = String::new();
    for r in 0..16 {
        let (t, local) = (r / 4, r % 4);
        let (rack, clique) = (t / 2, 0x1000 + t / 2);
        let p = format!("tray{t}:{}:{} [{local}] NCCL INFO ", 100 + r, 200 + r);
        s += &format!("{p}NCCL version 2.30.7+cuda12.9\n");
        s += &format!(
            "{p}ncclCommInitRank comm 0xa{r} rank {r} nranks 16 cudaDev {local} nvmlDev {local} busId {} commId 0xfeed - Init START\n",
            buses[local]
        );
        s += &format!("{p}MNNVL rack serial 1821X0{rack} slot {t} tray {t} hostId 0 peerType 0 moduleId {local}\n");
        s += &format!(
            "{p}MNNVL busId 0x{} fabric UUID 8e4b437a1c5e2f9d.514c2d0b6f3ec0a1 cliqueId {clique:#x} state 3 healthMask 0x0\n",
            buses[local]
        );
        s += &format!("{p}MNNVL 1 cliqueId {clique:x} cliqueSize 8 cliqueRank {} nvlDomainSize 16\n", r % 8);
        s += &format!("{p}comm 0xa{r} rank {r} nRanks 16 nNodes 2 localRanks 8 localRank {} MNNVL 1\n", r % 8);
    }
    let f = write_log(d.path(), "racks.log", &s);
    let out = topo().args(["log", "--json", "--topo"]).arg(&tray).arg(&f).output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["racks"].as_array().unwrap().len(), 16);
    assert_eq!(j["racks"][5]["serial"], "1821X00");
    let found: Vec<String> = j["model"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"].as_str().unwrap().starts_with("mnnvl"))
        .map(|f| format!("{}: log {} / model {}", f["kind"], f["log"], f["model"]))
        .collect();
    assert_eq!(found, Vec::<String>::new());
    assert!(j["model"]["checked"]["mnnvl"].as_u64().unwrap() >= 5, "{}", j["model"]["checked"]);
}
