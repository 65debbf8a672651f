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
    // Reduce: no algorithm topo makes defines it, so it needs a program file.
    let (r, _) = run(&["reduce", "--backend", "host"]);
    assert!(r.unwrap_err().to_string().contains("--algo PROGRAM.xml"));
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
