//! `topo algo cost` and `topo algo compare` on built-in machines.

mod common;

use assert_cmd::Command;
use serde_json::Value;
use topo::algo::cost::reference::ring_allreduce;
use topo::algo::program::Protocol;

fn topo() -> Command {
    let mut c = Command::cargo_bin("topo").unwrap();
    c.env_remove("NCCL_TOPO_FILE").env_remove("TOPO_NCCL_VERSION");
    c
}

/// A ring allreduce over `rings`, written to a file in `dir`.
fn ring_file(dir: &std::path::Path, name: &str, rings: &[Vec<u32>]) -> std::path::PathBuf {
    let p = ring_allreduce(rings, Protocol::Simple);
    let text = topo::algo::write::write(&p, topo::algo::Runtime::Executor).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn json_rows_carry_tune_fields_and_nccl_pick() {
    let dir = common::scratch();
    let rings: Vec<Vec<u32>> =
        (0..8).map(|c| if c % 2 == 0 { (0..8).collect() } else { (0..8).rev().collect() }).collect();
    let f = ring_file(dir.path(), "ring.xml", &rings);
    let out = topo()
        .args(["algo", "cost"])
        .arg(&f)
        .args(["--fixture", "dgx-h100", "-b", "1K", "-e", "1G", "-f", "1024", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["schema"], "topo.algo.cost/1");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for r in rows {
        for k in ["bytes", "time_us", "algbw_gbs", "busbw_gbs", "bottleneck"] {
            assert!(!r[k].is_null(), "{k} in {r}");
        }
        assert!(r["nccl"]["time_us"].as_f64().unwrap() > 0.0);
    }
    let last = &rows[2];
    assert_eq!(last["bytes"], 1u64 << 30);
    let busbw = last["busbw_gbs"].as_f64().unwrap();
    let algbw = last["algbw_gbs"].as_f64().unwrap();
    assert!((busbw / algbw - 14.0 / 8.0).abs() < 1e-9, "allreduce bus factor 2(n-1)/n");
}

#[test]
fn compare_names_the_winner_per_range() {
    let dir = common::scratch();
    let wide: Vec<Vec<u32>> = (0..16).map(|_| (0..8).collect()).collect();
    let a = ring_file(dir.path(), "wide.xml", &wide);
    let b = ring_file(dir.path(), "narrow.xml", &[(0..8).collect()]);
    let out = topo()
        .args(["algo", "compare"])
        .arg(&a)
        .arg(&b)
        .args(["--fixture", "dgx-h100", "-b", "1M", "-e", "1G", "-f", "32"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("winner"), "{text}");
    let last = text.lines().find(|l| l.trim_start().starts_with("1073741824")).unwrap();
    assert!(last.ends_with("[1]"), "{text}");
}

#[test]
fn a_program_larger_than_the_machine_is_one_line_exit_2() {
    let dir = common::scratch();
    let f = ring_file(dir.path(), "ring8.xml", &[(0..8).collect()]);
    let out = topo()
        .args(["algo", "cost"])
        .arg(&f)
        .args(["--fixture", "workstation-4gpu"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--nodes 2"), "{err}");
    topo().args(["algo", "cost", "/nonexistent.xml", "--fixture", "dgx-h100"]).assert().code(2);
}

#[test]
fn the_shared_ring_program_costs_on_eight_nodes() {
    let f = std::path::Path::new("../shared/fixtures/msccl/msccl-tools-lyd__allreduce_ring_Simple_gpu64_ch8_ins1.xml");
    if !f.exists() {
        common::skip("the_shared_ring_program_costs_on_eight_nodes", "../shared/fixtures/msccl is absent");
        return;
    }
    let out = topo()
        .args(["algo", "cost"])
        .arg(f)
        .args(["--fixture", "dgx-h100", "--nodes", "8", "-b", "1M", "-e", "1G", "-f", "1024", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows[1]["busbw_gbs"].as_f64().unwrap() > rows[0]["busbw_gbs"].as_f64().unwrap());
}
