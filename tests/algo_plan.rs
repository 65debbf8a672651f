//! `topo algo plan`: HCCL's view of a collective on a built-in machine.

use assert_cmd::Command;
use serde_json::Value;

fn topo() -> Command {
    let mut c = Command::cargo_bin("topo").unwrap();
    c.env_remove("NCCL_TOPO_FILE").env_remove("TOPO_NCCL_VERSION");
    c
}

fn plan_json(args: &[&str]) -> Value {
    let out = topo().args(["algo", "plan"]).args(args).arg("--json").assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

/// Seed 001: allgather, 4 ranks in one server fully connected: mesh, 3 sub-streams, 6
/// notifies, rank 0's streams in the seed's order.
#[test]
fn the_seed_example_on_a_four_gpu_nvlink_tray() {
    let v = plan_json(&["allgather", "--fixture", "gb200-nvl72-tray"]);
    assert_eq!(v["schema"], "topo.algo.plan/1");
    assert_eq!(v["levels"][0]["algo"], "mesh");
    assert_eq!(v["executor"], "CollAllGatherMeshOpbaseExecutor");
    let r0 = &v["ranks"][0];
    assert_eq!(r0["sub_streams"], 3);
    assert_eq!(r0["notifies"], 6);
    assert_eq!(r0["scratch_bytes"], 0);
    let peers: Vec<u64> = r0["links"].as_array().unwrap().iter().map(|l| l["peer"].as_u64().unwrap()).collect();
    assert_eq!(peers, [1, 2, 3]);
    assert!(r0["links"].as_array().unwrap().iter().all(|l| l["kind"] == "SDMA" && l["notifies"] == 4));
    let main: Vec<&str> = r0["streams"][0]["tasks"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(
        main,
        [
            "copy UserIn -> CCL_Out+off(0)",
            "Post aux0",
            "Post aux1",
            "Post aux2",
            "copy CCL_Out+off(0) -> UserOut+0*slice",
            "Wait sig0",
            "Wait sig1",
            "Wait sig2"
        ]
    );
    let s0 = &r0["streams"][1];
    assert_eq!(s0["peer"], 3);
    let s0: Vec<&str> = s0["tasks"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(
        s0,
        [
            "Wait aux0",
            "TxAck(3)",
            "RxAck(3)",
            "copy rank3.CCL_Out+off(3) -> UserOut+3*slice",
            "TxDataSignal(3)",
            "RxDataSignal(3)",
            "Post sig0"
        ]
    );
}

#[test]
fn a_pcie_box_gets_a_ring_and_nodes_get_rdma_links() {
    let v = plan_json(&["allreduce", "--fixture", "workstation-4gpu", "--nodes", "2", "--size", "1M"]);
    assert_eq!(v["levels"][0]["algo"], "ring");
    assert_eq!(v["levels"][1]["algo"], "ring");
    let links = v["ranks"][0]["links"].as_array().unwrap();
    assert!(links.iter().any(|l| l["kind"] == "RDMA" && l["notifies"] == 6 && l["peer"] == 4));
    let tasks = v["ranks"][0]["streams"][0]["tasks"].as_array().unwrap();
    assert!(tasks.iter().any(|t| t == "TxDataAck(4)"));
}

#[test]
fn hccl_algo_forces_a_level_and_bad_tokens_are_one_line() {
    let v = plan_json(&["allgather", "--fixture", "dgx-h100", "--nodes", "4", "--algo", "level0:ring;level1:NB"]);
    assert_eq!(v["levels"][0]["algo"], "ring");
    assert_eq!(v["levels"][1]["algo"], "NB");
    let out = topo()
        .args(["algo", "plan", "allgather", "--fixture", "dgx-h100", "--algo", "level1:star"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("level1:star"), "{err}");
}

#[test]
fn text_names_levels_and_streams() {
    let out = topo().args(["algo", "plan", "allgather", "--fixture", "gb200-nvl72-tray"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("level0: mesh"), "{text}");
    assert!(text.contains("rank 0: 3 sub-streams, 6 notifies"), "{text}");
    assert!(text.contains("sub0 (peer 3):"), "{text}");
}

/// `topo bench COLL --streams`: the plan run on host threads, in nccl-tests' columns,
/// every row validated.
#[test]
fn bench_runs_the_plan_streams_in_nccl_tests_columns() {
    for coll in ["allgather", "reducescatter", "allreduce"] {
        let out = topo()
            .args(["bench", coll, "--streams", "mesh", "--fixture", "gb200-nvl72-tray", "--backend", "host"])
            .args(["-b", "1K", "-e", "4K", "-f", "4", "-n", "1", "-d", "int32"])
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(text.contains("# Plan: streams of"), "{text}");
        assert!(text.contains("main + "), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
        assert_eq!(rows.len(), 2, "{text}");
        for r in rows {
            let cols: Vec<&str> = r.split_whitespace().collect();
            assert_eq!(cols.len(), 13, "{r}");
            assert_eq!((cols[8], cols[12]), ("0", "0"), "{r}");
        }
        assert!(text.contains("# Out of bounds values : 0 OK"), "{text}");
    }
}

/// `--streams` rows beside `topo algo cost` of the program `topo algo make` makes for
/// the plan's level-0 algorithm: the line naming it, each row's prediction the same as
/// `algo cost`'s for that size, and the -J fields.
#[test]
fn bench_streams_rows_beside_the_made_program_cost() {
    for (coll, algo, fixture) in [("allgather", "mesh", "dgx-h100"), ("reducescatter", "ring", "workstation-4gpu")] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("s.json");
        let out = topo()
            .args(["bench", coll, "--streams", algo, "--fixture", fixture, "--backend", "host"])
            .args(["-b", "4K", "-e", "4K", "-n", "1", "-d", "float", "-o", "sum", "-J"])
            .arg(&json)
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let said = format!("# topo: predicted: topo algo cost of `topo algo make {coll} --algo {algo}`");
        assert!(text.contains(&said), "{text}");
        let row = text.lines().find(|l| l.starts_with("#       4096")).unwrap_or_else(|| panic!("{text}"));
        let predicted: f64 = row.split_whitespace().nth(6).unwrap().parse().unwrap();
        let cost = topo()
            .args(["algo", "cost", coll, "--algo", algo, "--fixture", fixture, "-b", "4K", "-e", "4K"])
            .assert()
            .success();
        let cost = String::from_utf8(cost.get_output().stdout.clone()).unwrap();
        let line = cost.lines().find(|l| l.trim_start().starts_with("4096 ")).unwrap_or_else(|| panic!("{cost}"));
        let costed: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!((predicted - costed).abs() < 0.011, "{row} vs {line}");
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let t = &doc["results"][0]["topo"];
        assert!((t["predicted_time_us"].as_f64().unwrap() - costed).abs() < 0.011, "{t}");
        assert!(t["ratio_out_of_place"].as_f64().unwrap() > 0.0, "{t}");
        assert_eq!(doc["topo"]["prediction"], true);
    }
}

/// Several nodes: the level-1 RDMA tasks run too, every collective validated.
#[test]
fn bench_runs_the_plan_streams_across_nodes() {
    for (coll, nodes, algo) in
        [("allgather", "2", "mesh"), ("reducescatter", "2", "level1:NHR"), ("allreduce", "4", "level1:H-D_R")]
    {
        let out = topo()
            .args(["bench", coll, "--streams", algo, "--fixture", "dgx-h100", "--nodes", nodes, "--backend", "host"])
            .args(["-b", "4K", "-e", "4K", "-n", "1", "-w", "0", "-d", "int32"])
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let ranks = if nodes == "2" { "16 ranks" } else { "32 ranks" };
        assert!(text.contains(ranks), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
        assert_eq!(rows.len(), 1, "{text}");
        let cols: Vec<&str> = rows[0].split_whitespace().collect();
        assert_eq!((cols[8], cols[12]), ("0", "0"), "{coll}: {}", rows[0]);
    }
}

#[test]
fn bench_streams_refusals_are_one_line() {
    for (args, want) in [
        // No GPU here: the CUDA backend's one line ("no CUDA driver/GPU here ... use
        // --backend host"); a build without the cuda feature says so, naming --backend
        // host too.
        (&["allgather", "--streams", "mesh", "--fixture", "dgx-h100"][..], "--backend host"),
        (&["alltoall", "--streams", "mesh", "--fixture", "dgx-h100", "--backend", "host"][..], "not alltoall"),
        (&["allgather", "--streams", "level1:star", "--fixture", "dgx-h100", "--backend", "host"][..], "level1:star"),
    ] {
        let out = topo().arg("bench").args(args).assert().code(2).get_output().stderr.clone();
        let err = String::from_utf8(out).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
