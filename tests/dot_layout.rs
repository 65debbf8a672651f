//! The drawings of `topo paths --dot` and `topo search --dot`, laid out by Graphviz
//! (`dot -Tjson`) and held to the rules people need to read them:
//! - `paths --dot`: every CPU above every GPU, GPUs of one row in rank order left to
//!   right, a legend, and an aspect between 1:3 and 3:1;
//! - `search --dot` (one node, and two so that channels go through the NICs): an aspect
//!   between 1:3 and 3:1 and at most 4 drawn edges a node (but the NVSwitch of the NVLS
//!   graph, one domain that reaches every head GPU);
//! - `search --dot --channel 0`: a ring channel over the machine, held to the laws of
//!   `paths --dot`.
//!
//! Machines: the built-in fixtures, synthetic 72-GPU NVLink domains with 0 to 32 NICs,
//! and every dump of `../shared/fixtures/nccl` when it is there. Without Graphviz the
//! tests skip, visibly; a `../shared/fixtures/nccl` without dumps fails. Each `dot` call
//! has a time limit (tests/common/external.rs). `TOPO_DOT_KEEP=DIR` keeps each drawing's
//! source in DIR.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A machine: its name, the arguments that load it, and whether it can run a job of
/// several nodes (NCCL fails the init of one on a host without a NET).
struct Machine {
    name: String,
    args: Vec<String>,
    multi_node: bool,
}

fn machines(scratch: &Path) -> Vec<Machine> {
    let mut out: Vec<Machine> = topo::fixtures::all()
        .iter()
        .map(|f| Machine { name: f.name.to_string(), args: vec!["--fixture".into(), f.name.into()], multi_node: true })
        .collect();
    // 72 GPUs under 18 PCIe switches, with NIC counts from none to 6 (with more the
    // document holds more elements than NCCL's XML parser, and topo refuses it as NCCL
    // would; 32 NICs are drawn from aws-p5-efa32 among the shared dumps): fixed ones
    // and a few drawn from a fixed-seed generator (the same on every run).
    let mut seed: u64 = 0x05ee_dd07;
    let mut drawn = Vec::new();
    for _ in 0..3 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        drawn.push(((seed >> 33) % 7) as usize);
    }
    for nics in [0, 3, 6].into_iter().chain(drawn) {
        let path = scratch.join(format!("nvl72-{nics}nics.xml"));
        let xml = topo::fixtures::synthetic_nvl72(nics).unwrap();
        std::fs::write(&path, topo::xml::write(&xml)).unwrap();
        out.push(Machine { name: format!("synthetic-nvl72-{nics}nics"), args: topo_arg(&path), multi_node: nics > 0 });
    }
    out
}

fn topo_arg(p: &Path) -> Vec<String> {
    vec!["--topo".into(), p.to_string_lossy().into_owned()]
}

fn shared_dumps() -> Option<Vec<Machine>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    Some(
        files
            .iter()
            .map(|p| Machine {
                name: p.file_stem().unwrap().to_string_lossy().into_owned(),
                args: topo_arg(p),
                multi_node: std::fs::read_to_string(p).is_ok_and(|t| t.contains("<net ")),
            })
            .collect(),
    )
}

fn has_dot() -> bool {
    common::run_external(Command::new("dot").arg("-V"), None, "dot -V").is_ok_and(|o| o.status.success())
}

fn topo_out(args: &[String]) -> String {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("topo");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("NCCL_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd.args(args).output().unwrap();
    assert!(out.status.success(), "topo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A node as Graphviz placed it.
#[derive(Debug, Clone)]
struct Placed {
    x: f64,
    y: f64,
    label: String,
}

/// A drawing as Graphviz laid it out.
#[derive(Debug)]
struct Drawing {
    width: f64,
    height: f64,
    nodes: HashMap<String, Placed>,
    /// Drawn (not invisible) edges per node.
    degree: HashMap<String, usize>,
}

impl Drawing {
    fn aspect(&self) -> f64 {
        self.width / self.height
    }
}

fn layout(src: &str, what: &str) -> Drawing {
    // Bounded: a drawing Graphviz takes minutes on is a failure of its own.
    let out =
        common::run_external(Command::new("dot").arg("-Tjson"), Some(src.as_bytes()), &format!("{what}: dot -Tjson"))
            .expect("dot runs");
    assert!(out.status.success(), "{what}: dot failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{what}: dot warned: {}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bb: Vec<f64> = j["bb"].as_str().unwrap().split(',').map(|v| v.parse().unwrap()).collect();
    let mut nodes = HashMap::new();
    let mut names = HashMap::new();
    for o in j["objects"].as_array().into_iter().flatten() {
        // Clusters have `nodes`; nodes have a position.
        let (Some(pos), None) = (o["pos"].as_str(), o.get("nodes")) else { continue };
        let name = o["name"].as_str().unwrap().to_string();
        let xy: Vec<f64> = pos.split(',').map(|v| v.parse().unwrap()).collect();
        names.insert(o["_gvid"].as_u64().unwrap(), name.clone());
        nodes.insert(name, Placed { x: xy[0], y: xy[1], label: o["label"].as_str().unwrap_or("").to_string() });
    }
    let mut degree: HashMap<String, usize> = HashMap::new();
    for e in j["edges"].as_array().into_iter().flatten() {
        if e["style"].as_str() == Some("invis") {
            continue;
        }
        for end in ["tail", "head"] {
            let n = &names[&e[end].as_u64().unwrap()];
            *degree.entry(n.clone()).or_default() += 1;
        }
    }
    Drawing { width: bb[2] - bb[0], height: bb[3] - bb[1], nodes, degree }
}

fn rank_of(label: &str) -> Option<i64> {
    let i = label.find("rank ")?;
    label[i + 5..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// What is wrong with a machine's `paths --dot` drawing.
fn paths_faults(name: &str, d: &Drawing) -> Vec<String> {
    let mut bad = Vec::new();
    let cpus: Vec<&Placed> = d.nodes.iter().filter(|(n, _)| n.starts_with("CPU/")).map(|(_, p)| p).collect();
    let mut gpus: Vec<(i64, &Placed)> = d
        .nodes
        .iter()
        .filter(|(n, _)| n.starts_with("DEV/") || n.starts_with("GPU/"))
        .filter_map(|(_, p)| rank_of(&p.label).map(|r| (r, p)))
        .collect();
    gpus.sort_by_key(|g| g.0);
    if gpus.is_empty() {
        bad.push(format!("{name}: no GPU labelled `rank N`"));
    }
    // Graphviz's y grows upwards.
    for c in &cpus {
        for (r, g) in &gpus {
            if c.y <= g.y {
                bad.push(format!("{name}: CPU at y {} not above GPU rank {r} at y {}", c.y, g.y));
            }
        }
    }
    // GPUs trimmed from rank 0's system may sit in another socket's box between the
    // others (ranks that alternate between sockets): only the others are in rank order.
    let kept: Vec<&(i64, &Placed)> = gpus.iter().filter(|g| !g.1.label.contains("(trimmed)")).collect();
    for (i, (ra, a)) in kept.iter().map(|g| (g.0, g.1)).enumerate() {
        for (rb, b) in kept[i + 1..].iter().map(|g| (g.0, g.1)) {
            if (a.y - b.y).abs() < 1.0 && a.x > b.x {
                bad.push(format!("{name}: GPU rank {ra} right of rank {rb} on one row"));
            }
        }
    }
    if !d.nodes.contains_key("legend") {
        bad.push(format!("{name}: no legend"));
    }
    if !(1.0 / 3.0..=3.0).contains(&d.aspect()) {
        bad.push(format!("{name}: {:.0} x {:.0} pt, aspect {:.2}", d.width, d.height, d.aspect()));
    }
    bad
}

/// What is wrong with a machine's `search --dot` drawing.
fn search_faults(name: &str, d: &Drawing) -> Vec<String> {
    let mut bad = Vec::new();
    if !(1.0 / 3.0..=3.0).contains(&d.aspect()) {
        bad.push(format!("{name}: {:.0} x {:.0} pt, aspect {:.2}", d.width, d.height, d.aspect()));
    }
    for (n, k) in &d.degree {
        // NVLS is one NVSwitch domain: its switch reaches every head GPU.
        let nvls_switch = n.starts_with("nvls") && n.ends_with(":NVS/0");
        if *k > 4 && !nvls_switch {
            bad.push(format!("{name}: node {n} has {k} edges"));
        }
    }
    bad
}

fn check(machines: &[Machine]) -> Vec<String> {
    let keep = std::env::var_os("TOPO_DOT_KEEP").map(PathBuf::from);
    let mut bad = Vec::new();
    for m in machines {
        // Two nodes: the rings go through the NICs, which the diagrams show.
        for (what, cmd) in [
            ("paths", &["paths", "--dot"][..]),
            ("search", &["search", "--dot"][..]),
            ("search-nodes2", &["search", "--dot", "--nodes", "2"][..]),
            ("search-channel0", &["search", "--dot", "--channel", "0"][..]),
        ] {
            if what == "search-nodes2" && !m.multi_node {
                continue;
            }
            let mut args: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
            args.extend(m.args.iter().cloned());
            let src = topo_out(&args);
            if let Some(dir) = &keep {
                std::fs::write(dir.join(format!("{}.{what}.dot", m.name)), &src).unwrap();
            }
            let d = layout(&src, &format!("{} {what}", m.name));
            eprintln!("{} {what}: {:.0} x {:.0} pt, aspect {:.2}", m.name, d.width, d.height, d.aspect());
            // One channel over the machine is the machine's drawing, with the same laws.
            let name = format!("{} {what}", m.name);
            bad.extend(if what.starts_with("search-channel") || what == "paths" {
                paths_faults(&name, &d)
            } else {
                search_faults(&name, &d)
            });
        }
    }
    bad
}

#[test]
fn built_in_and_synthetic_drawings_are_readable() {
    if !has_dot() {
        common::skip("built_in_and_synthetic_drawings_are_readable", "Graphviz `dot` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bad = check(&machines(dir.path()));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn shared_dump_drawings_are_readable() {
    if !has_dot() {
        common::skip("shared_dump_drawings_are_readable", "Graphviz `dot` is not installed");
        return;
    }
    let Some(dumps) = shared_dumps() else {
        common::skip("shared_dump_drawings_are_readable", "../shared/fixtures/nccl is absent");
        return;
    };
    // A folder without dumps checks nothing: not a pass.
    assert!(!dumps.is_empty(), "../shared/fixtures/nccl holds no .xml dump: no drawing would be checked");
    let bad = check(&dumps);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The laws can fail: a strip of GPUs, CPUs under the GPUs, and a node with five
/// edges are caught.
#[test]
fn the_checks_catch_bad_drawings() {
    let place = |x: f64, y: f64, label: &str| Placed { x, y, label: label.into() };
    let nodes = HashMap::from([
        ("CPU/0".to_string(), place(10.0, 0.0, "CPU/0")),
        ("DEV/a".to_string(), place(50.0, 100.0, "GPU rank 0")),
        ("DEV/b".to_string(), place(20.0, 100.0, "GPU rank 1")),
    ]);
    let d = Drawing { width: 4000.0, height: 300.0, nodes, degree: HashMap::from([("x".to_string(), 5)]) };
    let p = paths_faults("bad", &d).join("\n");
    for needle in ["not above GPU rank 0", "rank 0 right of rank 1", "no legend", "aspect 13.33"] {
        assert!(p.contains(needle), "{p}");
    }
    let s = search_faults("bad", &d).join("\n");
    assert!(s.contains("node x has 5 edges") && s.contains("aspect"), "{s}");
}
