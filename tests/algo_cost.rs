//! `topo algo cost` and `topo algo compare` on built-in machines.

mod common;

use assert_cmd::Command;
use serde_json::Value;
use topo::algo::make::{self, Algo, Options, Shape};
use topo::algo::program::{Collective, Protocol};

fn topo() -> Command {
    let mut c = Command::cargo_bin("topo").unwrap();
    c.env_remove("NCCL_TOPO_FILE").env_remove("TOPO_NCCL_VERSION");
    c
}

/// `topo algo make`'s ring allreduce on 8 GPUs with `channels` rings, written to a file
/// in `dir`.
fn ring_file(dir: &std::path::Path, name: &str, channels: u32) -> std::path::PathBuf {
    let opts = Options {
        coll: Collective::AllReduce,
        algo: Algo::Ring,
        runtime: topo::algo::Runtime::Executor,
        proto: Protocol::Simple,
        instances: 1,
        channels: Some(channels),
    };
    let p = make::make(&opts, &Shape { nodes: 1, gpus_per_node: 8, rings: Vec::new() }).unwrap();
    let text = topo::algo::write::write(&p, topo::algo::Runtime::Executor).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn json_rows_carry_tune_fields_and_nccl_pick() {
    let dir = common::scratch();
    let f = ring_file(dir.path(), "ring.xml", 8);
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
    let a = ring_file(dir.path(), "wide.xml", 16);
    let b = ring_file(dir.path(), "narrow.xml", 1);
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
    let f = ring_file(dir.path(), "ring8.xml", 1);
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

#[test]
fn cost_coll_algo_costs_what_make_makes() {
    let dir = common::scratch();
    let f = dir.path().join("nccl.xml");
    topo()
        .args(["algo", "make", "allreduce", "--algo", "nccl", "--fixture", "dgx-h100", "-o"])
        .arg(&f)
        .assert()
        .success();
    let sizes = ["--fixture", "dgx-h100", "-b", "1M", "-e", "1G", "-f", "32", "--json"];
    let by_file = topo().args(["algo", "cost"]).arg(&f).args(sizes).assert().success().get_output().stdout.clone();
    let made = topo()
        .args(["algo", "cost", "allreduce", "--algo", "nccl"])
        .args(sizes)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let (a, b): (Value, Value) = (serde_json::from_slice(&by_file).unwrap(), serde_json::from_slice(&made).unwrap());
    assert_eq!(a["rows"], b["rows"]);
    assert_eq!(b["file"], "nccl");
}

#[test]
fn cost_of_a_collective_needs_an_algorithm_and_files_take_no_shape() {
    for (args, says) in [
        (&["allreduce"][..], "--algo"),
        (&["allreduce", "--algo", "hierarchical"][..], "at least 2 nodes"),
        (&["/nonexistent.xml", "--algo", "ring"][..], "give COLL"),
        (&["/nonexistent.xml", "--instances", "2"][..], "shape a made program"),
    ] {
        let out = topo()
            .args(["algo", "cost"])
            .args(args)
            .args(["--fixture", "dgx-h100"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// `compare COLL` costs every algorithm `make` offers for the collective on the job, and
/// notes the ones it does not offer there.
#[test]
fn compare_coll_lists_every_algorithm_make_offers() {
    let out = topo()
        .args([
            "algo",
            "compare",
            "allreduce",
            "--fixture",
            "dgx-h100",
            "--nodes",
            "2",
            "-b",
            "1K",
            "-e",
            "1G",
            "-f",
            "1024",
        ])
        .args(["--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let algos: Vec<&str> = v["programs"].as_array().unwrap().iter().map(|p| p["algo"].as_str().unwrap()).collect();
    assert_eq!(algos, ["ring", "mesh", "rhd", "nhr", "nb", "hierarchical", "nccl"]);
    assert!(!v["ranges"].as_array().unwrap().is_empty());
    let one = topo()
        .args(["algo", "compare", "alltoall", "--fixture", "dgx-h100", "-b", "1M", "-e", "1M"])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8(one.stdout).unwrap();
    assert!(text.contains("[1] mesh"), "{text}");
    let allreduce_one_node = topo()
        .args(["algo", "compare", "allreduce", "--fixture", "dgx-h100", "-b", "1M", "-e", "1M"])
        .assert()
        .success();
    let err = String::from_utf8(allreduce_one_node.get_output().stderr.clone()).unwrap();
    assert!(err.contains("hierarchical is not compared"), "{err}");
}
