//! `topo tune` end to end: the built-in machines, NCCL_* variables, JSON, the tuning
//! table snapshot, and the figures real NCCL logs show (when ../shared is present).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

mod common;

/// The binary with a clean environment (no NCCL_* variables from the caller).
fn topo() -> Command {
    let mut c = Command::cargo_bin("topo").expect("binary built");
    c.env_clear();
    c
}

fn stdout_of(args: &[&str]) -> String {
    let out = topo().args(args).output().expect("runs");
    assert!(out.status.success(), "topo {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The sweep rows (lines that do not start with '#' and have a size first).
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.trim_start().chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn dgx_h100_tuning_table_matches_snapshot() {
    let got = stdout_of(&["tune", "--fixture", "dgx-h100", "--table"]);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tune-dgx-h100-table.txt");
    if common::update_snapshots() {
        std::fs::write(&path, &got).expect("write snapshot");
        common::updated_snapshots(&format!("{} written", path.display()));
    }
    let want = std::fs::read_to_string(&path).expect("snapshot present (TOPO_UPDATE_SNAPSHOTS=1 writes it)");
    if got != want {
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            if g != w {
                panic!("line {}: got\n{g}\nwant\n{w}\n(TOPO_UPDATE_SNAPSHOTS=1 rewrites the snapshot)", i + 1);
            }
        }
        panic!("output has {} lines, snapshot {}", got.lines().count(), want.lines().count());
    }
    // The shape NCCL prints: 3 blocks of Algorithm/Protocol/Max NThreads + 5 functions.
    assert_eq!(got.lines().filter(|l| l.starts_with("  Algorithm   |")).count(), 3);
    assert_eq!(got.lines().filter(|l| l.starts_with(" Max NThreads |")).count(), 3);
    assert_eq!(got.lines().filter(|l| l.starts_with("    AllReduce |")).count(), 3);
}

#[test]
fn workstation_over_two_nodes() {
    let out = stdout_of(&["tune", "--fixture", "workstation-4gpu", "--nodes", "2"]);
    assert!(out.contains("AllReduce on fixture:workstation-4gpu: 8 ranks = 2 nodes x 4 GPUs"), "{out}");
    let r = rows(&out);
    // 8 B to 8 GiB, powers of two.
    assert_eq!(r.len(), 31);
    assert_eq!(r[0][0], "8");
    assert_eq!(r[30][0], "8589934592");
    // Small sizes: the latency-bound tree with LL; large sizes: Simple.
    assert_eq!((r[0][1].as_str(), r[0][2].as_str()), ("Tree", "LL"));
    assert_eq!(r[30][2], "Simple");
    // busbw = algbw x 2(n-1)/n for allreduce.
    for row in &r {
        let algbw: f64 = row[6].parse().unwrap();
        let busbw: f64 = row[7].parse().unwrap();
        assert!((busbw - algbw * 1.75).abs() <= 0.011, "{row:?}");
    }
}

#[test]
fn json_has_every_size_and_the_table() {
    let out = stdout_of(&[
        "tune",
        "allgather",
        "--fixture",
        "dgx-h100",
        "--json",
        "--table",
        "-b",
        "1K",
        "-e",
        "1G",
        "-f",
        "4",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["schema"], 1);
    assert_eq!(v["func"], "AllGather");
    assert_eq!(v["comm"]["n_ranks"], 8);
    let p = v["predictions"].as_array().unwrap();
    assert_eq!(p.len(), 11);
    assert_eq!(p[0]["bytes"], 1024);
    for x in p {
        let (a, b) = (x["algbw_gbs"].as_f64().unwrap(), x["busbw_gbs"].as_f64().unwrap());
        assert!((b - a * 7.0 / 8.0).abs() <= 1e-3 * a.max(1e-3), "{x}");
        assert!(x["time_us"].as_f64().unwrap() > 0.0);
    }
    assert_eq!(
        v["table"]["bandwidth_gbs"]["AllReduce"]["Ring"]["Simple"].as_f64().map(|x| (x * 10.0).round()),
        Some(2057.0)
    );
    assert_eq!(v["table"]["max_threads"]["Ring"]["LL128"], 640);
}

#[test]
fn nccl_variables_change_the_choice() {
    let out = topo()
        .args(["tune", "--fixture", "dgx-h100"])
        .env("NCCL_PROTO", "^LL128")
        .env("NCCL_ALGO", "ring")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for r in rows(&text) {
        assert_eq!(r[1], "Ring", "{r:?}");
        assert_ne!(r[2], "LL128", "{r:?}");
    }
    topo()
        .args(["tune", "--fixture", "dgx-h100"])
        .env("NCCL_ALGO", "ring;tree")
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("NCCL_ALGO").and(predicate::str::contains("prefix")));
    topo()
        .args(["tune", "broadcast", "--fixture", "dgx-h100"])
        .env("NCCL_ALGO", "tree")
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("no algorithm/protocol available for Broadcast"));
    topo()
        .args(["tune", "--fixture", "dgx-h100", "-b", "1M", "-e", "1M"])
        .env("NCCL_NTHREADS", "100")
        .assert()
        .success()
        .stderr(predicate::str::contains("NCCL_NTHREADS=100"));
}

#[test]
fn sizes_follow_nccl_tests_flags() {
    let r = rows(&stdout_of(&["tune", "--fixture", "gh200", "--nodes", "2", "-b", "1K", "-e", "64K", "-f", "4"]));
    let sizes: Vec<&str> = r.iter().map(|x| x[0].as_str()).collect();
    assert_eq!(sizes, ["1024", "4096", "16384", "65536"]);
    let r = rows(&stdout_of(&["tune", "--fixture", "gh200", "--nodes", "2", "-b", "1000", "-e", "4000", "-i", "1000"]));
    assert_eq!(r.len(), 4);
    // AllGather over 8 ranks: sizes below one float per rank are skipped.
    let out = stdout_of(&["tune", "allgather", "--fixture", "dgx-h100", "-b", "8", "-e", "64"]);
    assert!(out.contains("2 size(s) holding less than one float per rank skipped"), "{out}");
    assert_eq!(rows(&out).len(), 2);
    topo().args(["tune", "--fixture", "gh200", "-b", "2x"]).assert().code(2);
    topo()
        .args(["tune", "--fixture", "gh200", "-b", "1M", "-e", "1K"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("larger than -e"));
    topo().args(["tune", "--fixture", "gh200", "-f", "1"]).assert().code(2);
}

fn shared(test: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    if p.is_dir() {
        Some(p)
    } else {
        common::skip(test, "../shared/fixtures is absent");
        None
    }
}

/// `threadThresholds a/b/c | d/e/f | g | h` from a log, cut where the next log line was
/// spliced in, and `N coll channels`.
fn log_facts(log: &str) -> (String, Option<u32>) {
    let t = log.split("threadThresholds ").nth(1).expect("threadThresholds line");
    let t: String = t.chars().take_while(|c| c.is_ascii_digit() || " /|".contains(*c)).collect();
    let ch = log.lines().find_map(|l| {
        let i = l.find(" coll channels")?;
        l[..i].rsplit(' ').next()?.parse().ok()
    });
    (t.trim().to_string(), ch)
}

#[test]
fn thresholds_and_channels_match_real_logs() {
    let Some(dir) = shared("thresholds_and_channels_match_real_logs") else { return };
    // (topology, flags, log, whether the log prints `N coll channels`). The logs are NCCL
    // 2.23.4, 2.28.9 (an excerpt without the channel count) and a 2023 2.17/2.18 run on
    // an H800 of the same platform as h800x8 (no NVLS there).
    let cases: [(&str, &[&str], &str, bool); 3] = [
        ("a6000x2-nvlink-bridge", &[], "cuiboyuan-2xA6000-nvlink-nccl2.23.4.txt", true),
        ("rtx4090x4", &["--no-p2p-support"], "sugarlxn-4x4090-nccl2.28.9.txt", false),
        ("h800x8", &["--no-nvls"], "nccl-892-h800-8gpu.txt", true),
    ];
    for (topo_name, flags, log_name, has_channels) in cases {
        let log = std::fs::read_to_string(dir.join("logs").join(log_name)).expect("log");
        let (want_thr, want_ch) = log_facts(&log);
        let file = dir.join("nccl").join(format!("{topo_name}.xml"));
        let file = file.to_str().unwrap();
        let mut args = vec!["tune", "--topo", file, "--table", "-b", "1K", "-e", "1K"];
        args.extend_from_slice(flags);
        let out = stdout_of(&args);
        let got = out.lines().find_map(|l| l.strip_prefix("threadThresholds ")).expect("thresholds line");
        assert!(got.starts_with(&want_thr), "{topo_name}: got {got}, log says {want_thr}");
        // Every check that does not run is said.
        assert_eq!(want_ch.is_some(), has_channels, "{log_name}: a `coll channels` line found or missing");
        match want_ch {
            Some(ch) => {
                assert!(
                    out.contains(&format!("\n{ch} coll channels")),
                    "{topo_name}: log says {ch} coll channels\n{out}"
                )
            }
            None => common::skip(
                "thresholds_and_channels_match_real_logs",
                &format!("{log_name} prints no `coll channels` line: the channel count of {topo_name} is not checked"),
            ),
        }
    }
}

/// `topo tune` takes every collective nccl-tests runs: alltoall and sendrecv (which NCCL
/// does not tune: their bound from the paths), and -d/-o as bench does (NVLS reduces
/// float only by sum; sizes are whole elements of the type).
#[test]
fn tune_takes_alltoall_sendrecv_and_type_and_op() {
    let run = |args: &[&str]| {
        let out = assert_cmd::cargo::cargo_bin_cmd!("topo").args(args).env_remove("COLUMNS").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let a2a = run(&["tune", "alltoall", "--fixture", "dgx-h100", "--nodes", "2"]);
    assert!(a2a.contains("NCCL has no tuning for it") && a2a.contains("busbw at most 90.0 GB/s"), "{a2a}");
    assert!(a2a.contains("set by GPU0 to its NIC (to the other nodes): PIX 48.0 GB/s"), "{a2a}");
    let j: serde_json::Value =
        serde_json::from_str(&run(&["tune", "sendrecv", "--json", "--fixture", "dgx-h100"])).unwrap();
    assert_eq!((j["tuned"].as_bool(), j["bound"]["busbw_gbs"].as_f64()), (Some(false), Some(370.8)), "{j}");
    let nvls = |args: &[&str]| {
        let t = run(&[&["tune", "allreduce", "--fixture", "dgx-h100", "-b", "1G", "-e", "1G"], args].concat());
        t.lines().last().unwrap().contains(" NVLS ")
    };
    assert!(nvls(&[]) && nvls(&["-d", "bfloat16", "-o", "max"]));
    assert!(!nvls(&["-o", "max"]) && !nvls(&["-o", "avg"]) && !nvls(&["-d", "int8"]));
    let i8 = run(&["tune", "allreduce", "--fixture", "dgx-h100", "-d", "int8", "-b", "1", "-e", "1"]);
    assert!(
        i8.contains("data type int8, reduction sum") && i8.lines().last().unwrap().trim().starts_with("1 "),
        "{i8}"
    );
}
