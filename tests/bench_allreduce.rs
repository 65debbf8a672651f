//! End-to-end runs of `topo bench allreduce` through the command layer, with the
//! given streams and an empty environment.

use std::collections::BTreeMap;

mod common;

#[cfg(feature = "cuda")]
use topo::bench;

fn run(argv: &[&str]) -> (Result<i32, topo::error::Error>, String) {
    let args = ["topo", "bench", "allreduce"].into_iter().chain(argv.iter().copied());
    let mut out = Vec::new();
    let r = topo::cli::run_args(args, BTreeMap::new(), &mut out, &mut Vec::new());
    (r, String::from_utf8(out).expect("utf-8 output"))
}

/// Whether the flags are refused by the command line parser.
fn refused(argv: &[&str]) -> bool {
    matches!(run(argv).0, Err(topo::error::Error::Usage(_)))
}

/// The data rows: (size, #wrong out-of-place, #wrong in-place).
fn rows(text: &str) -> Vec<(u64, String, String)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 13, "nccl-tests row has 13 columns: {l}");
            (f[0].parse().unwrap(), f[8].to_string(), f[12].to_string())
        })
        .collect()
}

#[test]
fn host_backend_four_ranks_sweep() {
    let (r, text) = run(&["--backend", "host", "-g", "4", "-b", "1K", "-e", "256K", "-f", "4", "-n", "2"]);
    assert_eq!(r.unwrap(), 0, "{text}");
    let rows = rows(&text);
    assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), vec![1024, 4096, 16384, 65536, 262144]);
    assert!(rows.iter().all(|r| r.1 == "0" && r.2 == "0"), "{text}");
    assert!(text.contains("# nThread 1 nGpus 4 minBytes 1024 maxBytes 262144 step: 4(factor)"), "{text}");
    assert!(text.contains("# Out of bounds values : 0 OK"), "{text}");
    assert!(text.contains("# Avg bus bandwidth    : "), "{text}");
    assert!(text.contains("# topo: backend host"), "{text}");
}

#[test]
fn graph_file_rings_and_staged_edges() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("graph.xml");
    std::fs::write(
        &g,
        r#"<graphs version="1">
  <graph id="0" pattern="4" crossnic="0" nchannels="2" speedintra="20" speedinter="20" latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="0">
    <channel>
      <gpu dev="0" rank="0"/>
      <gpu dev="2" rank="2"/>
      <gpu dev="1" rank="1"/>
      <gpu dev="3" rank="3"/>
    </channel>
    <channel>
      <gpu dev="3" rank="3"/>
      <gpu dev="1" rank="1"/>
      <gpu dev="2" rank="2"/>
      <gpu dev="0" rank="0"/>
    </channel>
  </graph>
</graphs>
"#,
    )
    .unwrap();
    let gs = g.to_str().unwrap();
    let (r, text) = run(&[
        "--backend",
        "host",
        "--graph-file",
        gs,
        "-b",
        "999",
        "-e",
        "99999",
        "-f",
        "10",
        "-n",
        "1",
        "-d",
        "all",
        "-o",
        "avg",
        "--transport",
        "host-staged",
        "--slot-bytes",
        "1K",
    ]);
    assert_eq!(r.unwrap(), 0, "{text}");
    assert!(text.contains("# topo: channel 0: ring 0 -> 2 -> 1 -> 3"), "{text}");
    assert!(text.contains("# topo: channel 1: ring 3 -> 1 -> 2 -> 0"), "{text}");
    assert!(text.contains("host-staged (proxy thread)"), "{text}");
    let rows = rows(&text);
    assert_eq!(rows.len(), 30, "3 sizes x 10 types");
    assert!(rows.iter().all(|r| r.1 == "0" && r.2 == "0"), "{text}");

    // -g must agree with the graph file.
    let (r, _) = run(&["--backend", "host", "--graph-file", gs, "-g", "3"]);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("graph.xml:3") && e.contains("expected 3 ranks"), "{e}");
}

#[test]
fn bad_flags_are_usage_errors() {
    let (r, _) = run(&["--backend", "host", "-b", "1M", "-e", "1K"]);
    assert!(matches!(r, Err(topo::error::Error::Usage(_))));
    assert!(refused(&["-d", "float8"]));
    assert!(refused(&["-o", "mulsum"]));
    assert!(refused(&["--arch", "sm_90"]), "--arch needs --compile-only");
    assert!(refused(&["--in-place", "--out-of-place"]));
    // Every count is bounded before anything runs or is allocated.
    for (flag, value, says) in [
        ("-n", "4294967296", "between 1 and 1000000"),
        ("-w", "1000000000000", "at most 10000"),
        ("-c", "1000000000000", "at most 1000"),
        ("-g", "10000", "between 1 and 256"),
        ("--channels", "100000", "between 1 and 64"),
    ] {
        let (r, out) = run(&["--backend", "host", "-b", "1K", "-e", "1K", flag, value]);
        let e = r.unwrap_err().to_string();
        assert!(e.contains(says), "{flag} {value}: {e}");
        assert!(out.is_empty(), "{flag} {value}: nothing printed before the refusal");
    }
    // A report that cannot be written is refused before the table is printed.
    let (r, out) = run(&["--backend", "host", "-g", "2", "-b", "1K", "-e", "1K", "-J", "/nonexistent/dir/b.json"]);
    assert!(r.unwrap_err().to_string().contains("/nonexistent/dir/b.json"));
    assert!(out.is_empty());
}

/// (A build without the `cuda` feature answers `a_build_without_cuda_says_so_and_exits_2`.)
#[test]
#[cfg(feature = "cuda")]
fn cuda_backend_without_driver_points_to_host() {
    if bench::cuda::driver_present() {
        common::skip("cuda_backend_without_driver_points_to_host", "this machine has a CUDA driver");
        return;
    }
    let (r, _) = run(&["-g", "2", "-b", "1K", "-e", "1K"]);
    let e = r.unwrap_err();
    assert!(matches!(e, topo::error::Error::Unavailable(_)));
    let text = e.to_string();
    assert!(text.contains("no CUDA driver/GPU here") && text.contains("--backend host"), "{e}");
    assert!(text.contains("--compile-only"), "{e}");
    // From the command line: exit status 2, the advice on stderr.
    let out = assert_cmd::cargo::cargo_bin_cmd!("topo")
        .args(["bench", "allreduce", "--fixture", "dgx-h100", "-b", "1K", "-e", "1K"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no CUDA driver/GPU here") && err.contains("use --backend host"), "{err}");
}

/// The CUDA backend itself, wherever a GPU is: one rank per GPU (up to 4) on the
/// machine's own topology, a sweep whose results are checked (0 wrong). Skipped
/// visibly on machines without a CUDA driver, GPU or NVRTC, so the first machine with a
/// GPU runs it.
#[test]
#[cfg(feature = "cuda")]
fn cuda_backend_runs_where_a_gpu_is() {
    let why = if !bench::cuda::driver_present() {
        Some("no CUDA driver here".to_string())
    } else if !bench::cuda::nvrtc_present() {
        Some("libnvrtc not found (the kernels are compiled at run time)".to_string())
    } else {
        match bench::cuda::device_count() {
            Ok(0) | Err(_) => Some("the CUDA driver sees no GPU".to_string()),
            Ok(_) => None,
        }
    };
    if let Some(why) = why {
        common::skip("cuda_backend_runs_where_a_gpu_is", &why);
        return;
    }
    let n = bench::cuda::device_count().unwrap().min(4).to_string();
    let (r, text) = run(&["--backend", "cuda", "-g", &n, "-b", "1K", "-e", "4M", "-f", "4", "-n", "2"]);
    assert_eq!(r.unwrap(), 0, "{text}");
    let rows = rows(&text);
    assert!(!rows.is_empty(), "{text}");
    assert!(rows.iter().all(|r| r.1 == "0" && r.2 == "0"), "{text}");
    assert!(text.contains("# topo: backend cuda"), "{text}");
}

#[test]
#[cfg(feature = "cuda")]
fn compile_only_builds_every_kernel() {
    if !bench::cuda::nvrtc_present() {
        common::skip(
            "compile_only_builds_every_kernel",
            "libnvrtc not found (pip install nvidia-cuda-nvrtc-cu12 and put its lib directory on \
             LD_LIBRARY_PATH, or run ci/compile-kernels.sh)",
        );
        return;
    }
    let (r, text) = run(&["--compile-only", "--arch", "sm_80"]);
    assert_eq!(r.unwrap(), 0, "{text}");
    // The ring kernels, the program interpreter's and the streams' reduces.
    let names = bench::cuda::all_kernel_names();
    assert_eq!(names.len(), 160);
    for k in names {
        assert!(text.lines().any(|l| l.split_whitespace().next() == Some(&k)), "{k} missing:\n{text}");
    }
    assert!(text.contains("sm_80: 160 kernels compiled"), "{text}");
}

#[test]
#[cfg(not(feature = "cuda"))]
fn a_build_without_cuda_says_so_and_exits_2() {
    use predicates::prelude::*;
    for argv in [&["bench", "allreduce", "--compile-only"][..], &["bench", "allreduce", "--backend", "cuda", "-g", "2"]]
    {
        assert_cmd::cargo::cargo_bin_cmd!("topo")
            .args(argv)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("no CUDA support").and(predicates::str::contains("`cuda` feature")));
    }
    let (r, text) = run(&["--backend", "host", "-g", "2", "-b", "1K", "-e", "1K", "-n", "1"]);
    assert_eq!(r.unwrap(), 0, "the host backend works without CUDA: {text}");
}
