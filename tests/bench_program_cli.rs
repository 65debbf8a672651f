//! `topo bench <collective> --algo PROGRAM.xml --backend host` through the command
//! layer: nccl-tests' columns, the root and redop columns per collective, the
//! header's modes, and the refusals.

use std::collections::BTreeMap;
use std::path::Path;

mod common;

fn run(argv: &[&str]) -> (Result<i32, topo::error::Error>, String) {
    let args = ["topo", "bench"].into_iter().chain(argv.iter().copied());
    let mut out = Vec::new();
    let r = topo::cli::run_args(args, BTreeMap::new(), &mut out, &mut Vec::new());
    (r, String::from_utf8(out).expect("utf-8 output"))
}

/// The data rows, split in columns.
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// A 2-rank allgather: copy into place, send own chunk, receive the other's.
const ALLGATHER: &str = r#"<algo name="ag2" proto="LL" nchannels="1" nchunksperloop="2" ngpus="2" coll="allgather" inplace="1" outofplace="1" minBytes="0" maxBytes="0">
  <gpu id="0" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="-1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="2" type="r" srcbuf="i" srcoff="-1" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="s" srcbuf="o" srcoff="1" dstbuf="o" dstoff="-1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="2" type="r" srcbuf="i" srcoff="-1" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn allgather_program_rows_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "ag.xml", ALLGATHER);
    let (r, text) = run(&[
        "allgather",
        "--algo",
        &f,
        "--backend",
        "host",
        "-b",
        "8",
        "-e",
        "100K",
        "-f",
        "7",
        "-n",
        "2",
        "-d",
        "int8",
    ]);
    assert_eq!(r.unwrap(), 0, "{text}");
    assert!(text.contains("# Collective test starting: all_gather_perf"), "{text}");
    let rows = rows(&text);
    // 8 bytes is 4 int8 per rank, aligned down to 16 bytes: nothing; then 56, 392...
    assert_eq!(rows.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(), ["32", "384", "2720", "19200"], "{text}");
    for r in &rows {
        assert_eq!(r.len(), 13, "{r:?}");
        assert_eq!((r[3].as_str(), r[4].as_str(), r[8].as_str(), r[12].as_str()), ("none", "-1", "0", "0"), "{r:?}");
        // busbw = algbw x (n-1)/n.
        let (alg, bus): (f64, f64) = (r[6].parse().unwrap(), r[7].parse().unwrap());
        assert!((bus - alg / 2.0).abs() <= 0.011 + alg * 0.01, "{r:?}");
    }
    assert!(text.contains("# Out of bounds values : 0 OK"), "{text}");
}

#[test]
fn refusals() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "ag.xml", ALLGATHER);
    // The wrong collective, the CUDA backend without a driver, the wrong rank count.
    let (r, _) = run(&["allreduce", "--algo", &f, "--backend", "host", "-b", "1K", "-e", "1K"]);
    assert!(r.unwrap_err().to_string().contains("allgather program, not allreduce"));
    let (r, _) = run(&["allgather", "--algo", &f, "-b", "1K", "-e", "1K"]);
    assert!(r.unwrap_err().to_string().contains("--backend host"));
    let (r, _) = run(&["allgather", "--algo", &f, "--backend", "host", "-g", "4", "-b", "1K", "-e", "1K"]);
    assert!(r.unwrap_err().to_string().contains("2 ranks"));
    // Reduce to a root the job does not have: make's one line.
    let (r, _) = run(&["reduce", "--backend", "host", "-g", "4", "-r", "4"]);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("root rank 4 for a job of 4 ranks") && !e.contains('\n'), "{e}");
    // Neither a file nor an algorithm: one line with the names (an error: exit 2).
    let (r, _) = run(&["allgather", "--algo", "rings", "--backend", "host"]);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("no file of that name") && e.contains("ring, mesh") && !e.contains('\n'), "{e}");
    // A program algo check finds wrong: each rank keeps its own chunk.
    let broken = ALLGATHER.replace(
        r#"type="r" srcbuf="i" srcoff="-1" dstbuf="o" dstoff="1""#,
        r#"type="r" srcbuf="i" srcoff="-1" dstbuf="o" dstoff="0""#,
    );
    let f = write(dir.path(), "bad.xml", &broken);
    let (r, text) = run(&["allgather", "--algo", &f, "--backend", "host", "-b", "1K", "-e", "1K"]);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("bad.xml") && e.contains("not run"), "{e}");
    assert!(text.is_empty(), "nothing half-written: {text}");
}

#[test]
fn allreduce_with_a_shared_program() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/msccl/teccl-msccl__test.xml");
    if !f.is_file() {
        common::skip("allreduce_with_a_shared_program", &format!("{} is absent", f.display()));
        return;
    }
    let f = f.display().to_string();
    let (r, text) = run(&[
        "allreduce",
        "--algo",
        &f,
        "--backend",
        "host",
        "-b",
        "1K",
        "-e",
        "64K",
        "-f",
        "8",
        "-o",
        "all",
        "-n",
        "1",
    ]);
    assert_eq!(r.unwrap(), 0, "{text}");
    let rows = rows(&text);
    assert_eq!(rows.len(), 3 * 5, "{text}");
    assert!(rows.iter().all(|r| r[4] == "-1" && r.iter().skip(8).step_by(4).all(|w| w == "0")), "{text}");
    assert_eq!(rows.iter().map(|r| r[3].as_str()).collect::<Vec<_>>()[..4], ["sum", "sum", "sum", "prod"]);
}

#[test]
fn json_report_of_a_program() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "ag.xml", ALLGATHER);
    let json = dir.path().join("r.json");
    let j = json.display().to_string();
    let (r, text) =
        run(&["allgather", "--algo", &f, "--backend", "host", "-b", "1K", "-e", "4K", "-f", "2", "-n", "2", "-J", &j]);
    assert_eq!(r.unwrap(), 0, "{text}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("-J wrote nothing: {e}")))
            .unwrap();
    // The ring bench's shape: nccl-tests' document with topo's section.
    assert_eq!(doc["version"], 3);
    assert_eq!(doc["config"]["ngpus"], 2);
    assert_eq!(doc["topo"]["backend"], "host");
    let results = doc["results"].as_array().unwrap();
    let rows = rows(&text);
    assert_eq!(results.len(), rows.len(), "{text}");
    for (res, row) in results.iter().zip(&rows) {
        assert_eq!(res["size"].to_string(), row[0]);
        assert_eq!(res["redop"], "none");
        assert_eq!(res["out_of_place"]["nwrong"], 0.0);
        assert_eq!(res["in_place"]["nwrong"], 0.0);
    }
    assert_eq!(doc["out_of_bounds"]["count"], 0);
    assert!(text.contains(&j), "the report names where the JSON went: {text}");
}

/// The lines of topo's section after nccl-tests' footer.
fn topo_section(text: &str) -> Vec<&str> {
    text.lines().skip_while(|l| !l.starts_with("# topo: ----")).collect()
}

#[test]
fn nccl_choice_on_a_machine_with_predictions() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("r.json").display().to_string();
    let (r, text) = run(&[
        "allgather",
        "--backend",
        "host",
        "--fixture",
        "dgx-h100",
        "-b",
        "1K",
        "-e",
        "64K",
        "-f",
        "64",
        "-n",
        "1",
        "-w",
        "0",
        "-J",
        &j,
    ]);
    assert_eq!(r.unwrap(), 0, "{text}");
    assert!(text.contains("# Program: nccl (8 ranks"), "{text}");
    assert!(text.contains("NCCL's choice, its 24 rings: made by `topo algo make allgather --algo nccl`"), "{text}");
    let data = rows(&text);
    assert_eq!(data.len(), 2, "{text}");
    assert!(data.iter().all(|r| r[8] == "0" && r[12] == "0"), "{text}");
    let section = topo_section(&text);
    assert!(section.iter().any(|l| l.contains("predicted: topo algo cost for fixture:dgx-h100")), "{text}");
    let table: Vec<Vec<&str>> = section
        .iter()
        .filter(|l| l.starts_with("#  ") && !l.contains('('))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(table.len(), 1 + 2, "{text}");
    for (t, d) in table[1..].iter().zip(&data) {
        assert_eq!(t[1], d[0], "{text}");
        let (oop, pred, ratio): (f64, f64, f64) = (t[4].parse().unwrap(), t[6].parse().unwrap(), t[7].parse().unwrap());
        assert!(pred > 0.0 && (oop / pred - ratio).abs() <= 0.01 * ratio.max(1.0), "{text}");
    }
    assert!(section.iter().filter(|l| l.starts_with("#  ")).all(|l| l.len() <= 80), "80 columns: {text}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    for res in doc["results"].as_array().unwrap() {
        let t = &res["topo"];
        let pred = t["predicted_time_us"].as_f64().unwrap();
        let ratio = t["ratio_in_place"].as_f64().unwrap();
        assert!((res["in_place"]["time"].as_f64().unwrap() / pred - ratio).abs() < 1e-9, "{res}");
        assert!(t["predicted_bus_bw"].as_f64().unwrap() > 0.0);
        assert_eq!(res["in_place"]["nwrong"], 0.0, "nccl-tests' fields as they are");
    }
    assert_eq!(doc["topo"]["prediction"], true);
}

#[test]
fn named_algorithms_and_alltoall_without_a_machine() {
    // alltoall without --algo: NCCL has no rings for it, so all pairs, said in the header.
    let (r, text) = run(&["alltoall", "--backend", "host", "-g", "3", "-b", "8", "-e", "4K", "-f", "8", "-n", "1"]);
    assert_eq!(r.unwrap(), 0, "{text}");
    assert!(text.contains("# Program: mesh (3 ranks") && text.contains("without rings: all pairs"), "{text}");
    // No machine: the prediction column's absence is said once, and no table of dashes.
    let section = topo_section(&text);
    assert_eq!(section.iter().filter(|l| l.contains("no prediction: no machine named")).count(), 1, "{text}");
    assert!(!section.iter().any(|l| l.contains("predicted")), "{text}");
    assert!(rows(&text).iter().all(|r| r[8] == "0" && r[12] == "0"), "{text}");
    // --algo NAME for -g ranks, odd ones too, every op.
    for algo in ["rhd", "nb", "ring", "mesh"] {
        let (r, text) = run(&[
            "allreduce",
            "--algo",
            algo,
            "--backend",
            "host",
            "-g",
            "5",
            "-b",
            "100",
            "-e",
            "2K",
            "-f",
            "4",
            "-o",
            "all",
            "-n",
            "1",
        ]);
        assert_eq!(r.unwrap(), 0, "{algo}: {text}");
        assert!(text.contains(&format!("# Program: {algo} (5 ranks")), "{text}");
        let data = rows(&text);
        assert!(!data.is_empty() && data.iter().all(|r| r[8] == "0" && r[12] == "0"), "{text}");
    }
    // Without a machine the nccl default falls back to one ring, said; a named nccl needs one.
    let mut out = Vec::new();
    let mut err = Vec::new();
    let args = ["topo", "bench", "reducescatter", "--backend", "host", "-g", "4", "-b", "1K", "-e", "1K", "-n", "1"];
    let r = topo::cli::run_args(args, BTreeMap::new(), &mut out, &mut err);
    let (text, err) = (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap());
    assert_eq!(r.unwrap(), 0, "{text}{err}");
    assert!(err.contains("NCCL's rings need one") && text.contains("# Program: ring (4 ranks"), "{text}{err}");
    let (r, _) = run(&["allgather", "--algo", "nccl", "--backend", "host", "-g", "4"]);
    assert!(r.unwrap_err().to_string().contains("needs a machine"));
    // -g against a machine's ranks, and an algorithm that does not make the collective.
    let (r, _) = run(&["allgather", "--algo", "ring", "--backend", "host", "--fixture", "dgx-h100", "-g", "4"]);
    assert!(r.unwrap_err().to_string().contains("-g 4, but fixture:dgx-h100 has 8 ranks"));
    let (r, _) = run(&["broadcast", "--algo", "rhd", "--backend", "host", "-g", "4"]);
    assert!(r.unwrap_err().to_string().contains("not broadcast"));
}

#[test]
fn sizes_outside_the_headers_range_are_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "ag.xml",
        &ALLGATHER.replace(r#"minBytes="0" maxBytes="0""#, r#"minBytes="64" maxBytes="4096""#),
    );
    let (r, text) = run(&["allgather", "--algo", &f, "--backend", "host", "-b", "8", "-e", "1M", "-f", "4", "-n", "1"]);
    assert_eq!(r.unwrap(), 0, "{text}");
    let sizes: Vec<u64> = rows(&text).iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(sizes, [128, 512, 2048], "{text}");
    let notes: Vec<&str> = text.lines().filter(|l| l.contains("not run")).collect();
    assert_eq!(
        notes,
        ["# topo: 5 sizes not run: MSCCL's executor picks this program only for 64 to 4096 bytes"],
        "{text}"
    );
    // Nothing in range: one line, no table.
    let (r, text) = run(&["allgather", "--algo", &f, "--backend", "host", "-b", "8K", "-e", "1M", "-f", "4"]);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("no size from -b to -e is one the runtime selects the program for (64 to 4096 bytes)"), "{e}");
    assert!(rows(&text).is_empty(), "{text}");
}

/// msccl-executor-nccl's own scheduler picks no program for avg: a made program's avg
/// rows still run (an external scheduler would run them), and one line says so, in the
/// text and in -J; without avg rows there is no such line.
#[test]
fn avg_rows_say_the_executor_does_not_schedule_them() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("avg.json").display().to_string();
    let base = ["allreduce", "--algo", "ring", "-g", "2", "--backend", "host", "-b", "64", "-e", "64", "-n", "1"];
    let (r, text) = run(&[&base[..], &["-d", "float", "-o", "avg", "-J", &json]].concat());
    assert_eq!(r.unwrap(), 0, "{text}");
    let said: Vec<&str> = text.lines().filter(|l| l.contains("schedules no program for avg")).collect();
    assert_eq!(said.len(), 1, "{text}");
    assert!(said[0].starts_with("# topo: ") && said[0].contains("libmsccl-scheduler"), "{text}");
    assert!(rows(&text).iter().all(|r| r[3] == "avg" && r[8] == "0"), "{text}");
    let doc = std::fs::read_to_string(&json).unwrap();
    assert!(doc.contains("schedules no program for avg"), "{doc}");
    let (r, text) = run(&[&base[..], &["-d", "float", "-o", "sum"]].concat());
    assert_eq!(r.unwrap(), 0, "{text}");
    assert!(!text.contains("for avg"), "{text}");
}
