//! The renderers' output on the built-in fixtures, compared with the copies stored under
//! `tests/snapshots/render/`. After a deliberate change to an output, refresh them with
//!
//! ```text
//! TOPO_UPDATE_SNAPSHOTS=1 cargo test --test snapshots
//! ```
//!
//! and review the diff (the run writes, compares nothing and fails, so that it never
//! reads as a pass; `.ci/run` refuses to run with the variable set). Outputs are produced by the binary with no NCCL_* variable set
//! (except where a case sets one), so they do not depend on the machine.

use std::path::{Path, PathBuf};

mod common;

/// A snapshot: its name, the arguments and the NCCL variables set.
type Case = (String, Vec<String>, Vec<(&'static str, &'static str)>);

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let all: Vec<&str> = topo::fixtures::all().iter().map(|f| f.name).collect();
    let small = ["gh200", "gb200-nvl72-tray", "workstation-4gpu"];
    let text: &[(&str, &[&str])] = &[
        ("show", &["show"]),
        ("show-xml", &["show", "--xml"]),
        ("paths", &["paths"]),
        ("paths-explain", &["paths", "--explain"]),
        ("paths-dot", &["paths", "--dot"]),
        ("search-dot", &["search", "--dot"]),
        // NCCL_GRAPH_DUMP_FILE's text; on two nodes each channel opens and closes with
        // a NET.
        ("search-xml", &["search", "--xml"]),
        ("nodes2.search-xml", &["search", "--xml", "--nodes", "2"]),
    ];
    let json: &[(&str, &[&str])] = &[("show-json", &["show", "--json"]), ("analyze-json", &["analyze", "--json"])];
    for f in &all {
        for (what, args) in text.iter().chain(if small.contains(f) { json } else { &[] }) {
            let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            a.extend(["--fixture".to_string(), f.to_string()]);
            // Two GB200 trays as two nodes over their NICs: MNNVL off said in so many
            // words (without it topo notes that NCCL would fuse the trays).
            let env = if *f == "gb200-nvl72-tray" && what.starts_with("nodes2") {
                vec![("NCCL_MNNVL_ENABLE", "0")]
            } else {
                vec![]
            };
            out.push((format!("{f}.{what}"), a, env));
        }
    }
    let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    out.push((
        "dgx-h100.search-dot-channel0".into(),
        args(&["search", "--dot", "--channel", "0", "--fixture", "dgx-h100"]),
        vec![],
    ));
    out.push(("dgx-h100.columns80.paths".into(), args(&["paths", "--fixture", "dgx-h100"]), vec![("COLUMNS", "80")]));
    out.push((
        "gb200-nvl72-tray.columns100.paths-explain".into(),
        args(&["paths", "--explain", "--fixture", "gb200-nvl72-tray"]),
        vec![("COLUMNS", "100")],
    ));
    // Multi-node NVLink: two trays fused into one node (the graph dump has no NET), and
    // the picture of a full NVL72 rack.
    out.push((
        "gb200-nvl72-tray.mnnvl2.search-xml".into(),
        args(&["search", "--xml", "--nodes", "2", "--mnnvl", "--fixture", "gb200-nvl72-tray"]),
        vec![],
    ));
    out.push((
        "gb200-nvl72-tray.mnnvl18.paths-dot".into(),
        args(&["paths", "--dot", "--nodes", "18", "--mnnvl", "--fixture", "gb200-nvl72-tray"]),
        vec![],
    ));
    out.push(("gh200.paths-json".into(), args(&["paths", "--json", "--fixture", "gh200"]), vec![]));
    out.push(("dgx-h100.nodes2.show".into(), args(&["show", "--nodes", "2", "--fixture", "dgx-h100"]), vec![]));
    out.push((
        "workstation-4gpu.p2p-sys.paths".into(),
        args(&["paths", "--fixture", "workstation-4gpu"]),
        vec![("NCCL_P2P_LEVEL", "SYS")],
    ));
    out.push((
        "dgx1-v100.no-nic-fusion.nodes2.paths".into(),
        args(&["paths", "--no-nic-fusion", "--nodes", "2", "--fixture", "dgx1-v100"]),
        vec![],
    ));
    // NCCL_CROSS_NIC=1: rings that leave the node on another NET than the one they came
    // in on (the closing `<net>` of a channel is not its opening one).
    out.push((
        "dgx-h100.cross-nic.nodes2.search-xml".into(),
        args(&["search", "--xml", "--nodes", "2", "--fixture", "dgx-h100"]),
        vec![("NCCL_CROSS_NIC", "1")],
    ));
    // PCIe switches two levels deep (not a built-in machine).
    let cascaded = "fixtures/pcie/cascaded-switches.xml";
    for (what, a) in [
        ("paths", &["paths"][..]),
        ("paths-explain", &["paths", "--explain"]),
        ("nodes2.search-xml", &["search", "--xml", "--nodes", "2"]),
    ] {
        let mut a = args(a);
        a.extend(["--topo".to_string(), cascaded.to_string()]);
        out.push((format!("pcie-cascaded-switches.{what}"), a, vec![]));
    }
    out
}

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/render")
}

fn run(args: &[String], env: &[(&str, &str)]) -> String {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("topo");
    // `--topo` paths are relative to the repository.
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, _) in std::env::vars_os() {
        let k_ = k.to_string_lossy();
        // The terminal's width and colour choice shape the text; snapshots set them.
        if k_.starts_with("NCCL_") || k_ == "COLUMNS" || k_ == "NO_COLOR" {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().unwrap();
    assert!(out.status.success(), "topo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "topo {args:?} warned: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Where two texts first differ, for the failure message.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i).copied().unwrap_or("<end>"), g.get(i).copied().unwrap_or("<end>"));
        if a != b {
            return format!("line {}:\n  stored: {a}\n  now:    {b}", i + 1);
        }
    }
    "only line endings differ".into()
}

#[test]
fn renderer_outputs_match_the_stored_snapshots() {
    let dir = snapshot_dir();
    let update = common::update_snapshots();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut failures = Vec::new();
    let mut names = Vec::new();
    for (name, args, env) in cases() {
        let got = run(&args, &env);
        let path = dir.join(format!("{name}.txt"));
        names.push(format!("{name}.txt"));
        if update {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Err(_) => failures.push(format!("{name}: no stored snapshot at {}", path.display())),
            Ok(want) if want != got => {
                failures.push(format!("{name} (topo {}): {}", args.join(" "), first_difference(&want, &got)))
            }
            Ok(_) => {}
        }
    }
    // No stale snapshots left behind.
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let f = e.file_name().to_string_lossy().to_string();
            if f.ends_with(".txt") && !names.contains(&f) {
                if update {
                    std::fs::remove_file(e.path()).unwrap();
                } else {
                    failures.push(format!("{f}: stored but no longer produced"));
                }
            }
        }
    }
    if update {
        common::updated_snapshots(&format!("{} snapshots written to {}", names.len(), dir.display()));
    }
    assert!(
        failures.is_empty(),
        "{} snapshot(s) differ:\n{}\n\nIf the change is intended: TOPO_UPDATE_SNAPSHOTS=1 cargo test --test snapshots, then review `git diff tests/snapshots/render`.",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn outputs_are_deterministic() {
    for (name, args, env) in cases().into_iter().filter(|c| c.0.starts_with("dgx-h100.")) {
        assert_eq!(run(&args, &env), run(&args, &env), "{name}");
    }
}
