//! `topo algo make`: every algorithm x collective it offers, on every built-in machine at
//! 1, 2 and 4 nodes (and without a machine), for every runtime, passes `topo algo
//! check` at the runtime's depth in every mode its header declares, and reads back as
//! the same program.

use topo::algo::make::{self, Algo, COLLECTIVES, Options, Shape};
use topo::algo::program::Protocol;
use topo::algo::{CheckOptions, Runtime, Verdict, check, read, write};

fn machine(name: &str, nodes: usize) -> topo::model::Analysis {
    let (xml, _) = topo::fixtures::get(name).unwrap().load().unwrap();
    let opts = topo::model::Options { nodes, ..Default::default() };
    topo::model::analyze(&xml, name, &opts).unwrap()
}

/// Make, write, check and read back one program; `Ok(None)`: the algorithm does not
/// offer it (the one line it says).
fn made(opts: &Options, shape: &Shape) -> Result<Option<String>, String> {
    if let Err(why) = make::supports(opts, shape) {
        assert!(!why.contains('\n'), "{why}");
        return Ok(Some(why));
    }
    let p = match make::make(opts, shape) {
        Ok(p) => p,
        Err(why) if why.contains("runs at most") || why.contains("channels") => return Ok(Some(why)),
        Err(why) => return Err(why),
    };
    let text = write::write(&p, opts.runtime).ok_or("no text")?;
    let report = check(text.as_bytes(), CheckOptions { runtime: opts.runtime, depth: None })?;
    if report.verdict != Verdict::Ok {
        let f: Vec<String> = report.findings.iter().take(3).map(|f| format!("{f:?}")).collect();
        return Err(format!("verdict {} min depth {:?}: {}", report.verdict.name(), report.min_depth, f.join("; ")));
    }
    let mut back = read::read(text.as_bytes(), opts.runtime)?.program.ok_or("unreadable")?;
    // The reader notes the lines things were on; a made program has none.
    for g in &mut back.gpus {
        g.line = 0;
        for t in &mut g.tbs {
            t.line = 0;
            for s in &mut t.steps {
                s.line = 0;
            }
        }
    }
    if back.header != p.header {
        return Err(format!("read(write(p)) != p: {:?} vs {:?}", back.header, p.header));
    }
    if back != p {
        return Err("read(write(p)) != p (gpus)".into());
    }
    Ok(None)
}

/// Every algorithm x collective x runtime on every shape, on all cores: (made and
/// checked ok, not offered with the reasons, failures).
fn sweep(shapes: &[(String, Shape)], runtimes: &[Runtime]) -> (usize, Vec<String>, Vec<String>) {
    let mut cases = Vec::new();
    for (label, shape) in shapes {
        for rt in runtimes {
            for algo in Algo::ALL {
                for coll in COLLECTIVES {
                    let opts =
                        Options { coll, algo, runtime: *rt, proto: Protocol::Simple, instances: 1, channels: None };
                    cases.push((label.clone(), shape, opts));
                }
            }
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((label, shape, opts)) = cases.get(i) else { break };
                    let r = made(opts, shape);
                    let what = format!("{label} {} {} {}", opts.runtime.name(), opts.algo.name(), opts.coll);
                    results.lock().unwrap().push((what, r));
                }
            });
        }
    });
    let (mut ok, mut refused, mut bad) = (0, Vec::new(), Vec::new());
    for (what, r) in results.into_inner().unwrap() {
        match r {
            Ok(None) => ok += 1,
            Ok(Some(why)) => refused.push(format!("{what}: {why}")),
            Err(e) => bad.push(format!("{what}: {e}")),
        }
    }
    (ok, refused, bad)
}

#[test]
fn every_builtin_machine_every_algorithm_checks_ok() {
    let mut shapes = Vec::new();
    let only = std::env::var("ALGO_MAKE_ONLY").ok();
    for f in topo::fixtures::all() {
        if only.as_deref().is_some_and(|o| o != f.name) {
            continue;
        }
        for nodes in [1, 2, 4] {
            let an = machine(f.name, nodes);
            let mut shape = make::machine::shape(&an, true).unwrap();
            shape.rings.truncate(Runtime::Executor.max_channels() as usize);
            shapes.push((format!("{} x{nodes}", f.name), shape));
        }
    }
    let (ok, refused, bad) = sweep(&shapes, &Runtime::ALL);
    eprintln!("made and checked ok: {ok}, not offered: {}, failed: {}", refused.len(), bad.len());
    if std::env::var_os("ALGO_MAKE_VERBOSE").is_some() {
        eprintln!("{}", refused.join("\n"));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(ok > 100, "{ok}");
}

fn ring4(instances: u32) -> topo::algo::Program {
    let opts = Options {
        coll: topo::algo::program::Collective::AllReduce,
        algo: Algo::Ring,
        runtime: Runtime::Executor,
        proto: Protocol::Simple,
        instances,
        channels: None,
    };
    make::make(&opts, &Shape { nodes: 1, gpus_per_node: 4, rings: Vec::new() }).unwrap()
}

/// §2.12's worked example: one thread block per rank (send r+1, receive r-1, channel
/// 0) with s, rrs, rrs, rrcs, rcs, rcs, r and no dependencies; 4 chunks, 1 channel.
/// The text is kept under tests/snapshots/algo-make/ (TOPO_UPDATE_SNAPSHOTS=1 rewrites it).
#[test]
fn ring_allreduce_on_4_gpus_is_the_worked_example() {
    let p = ring4(1);
    assert_eq!((p.header.nchannels, p.header.chunks_per_loop), (1, 4));
    for g in &p.gpus {
        let [tb] = g.tbs.as_slice() else { panic!("gpu {}: {} thread blocks", g.id, g.tbs.len()) };
        assert_eq!((tb.send, tb.recv, tb.chan), (Some((g.id + 1) % 4), Some((g.id + 3) % 4), 0));
        let kinds: Vec<&str> = tb.steps.iter().map(|s| s.kind.xml_name()).collect();
        assert_eq!(kinds, ["s", "rrs", "rrs", "rrcs", "rcs", "rcs", "r"]);
        assert!(tb.steps.iter().all(|s| s.dep.is_none() && !s.has_dep));
    }
    let text = write::write(&p, Runtime::Executor).unwrap();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/algo-make/ring-allreduce-4gpu.xml");
    if std::env::var_os("TOPO_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(text, std::fs::read_to_string(&path).unwrap());
    // Two instances: two thread blocks per rank on channels 0 and 1, 8 chunks.
    let p2 = ring4(2);
    assert_eq!((p2.header.nchannels, p2.header.chunks_per_loop), (2, 8));
    assert!(p2.gpus.iter().all(|g| g.tbs.iter().map(|t| t.chan).collect::<Vec<_>>() == [0, 1]));
    let r = check(write::write(&p2, Runtime::Executor).unwrap().as_bytes(), CheckOptions::default()).unwrap();
    assert_eq!(r.verdict, Verdict::Ok);
}

#[test]
fn without_a_machine_every_shape_up_to_9_ranks_checks_ok() {
    let mut shapes = Vec::new();
    for nodes in 1..=3u32 {
        for g in 1..=4u32 {
            if nodes * g <= 9 {
                shapes.push((format!("{nodes}x{g}"), Shape { nodes, gpus_per_node: g, rings: Vec::new() }));
            }
        }
    }
    let (ok, _, bad) = sweep(&shapes, &[Runtime::Executor, Runtime::Rccl]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(ok > 100, "{ok}");
}

mod cli {
    use assert_cmd::Command;

    fn topo() -> Command {
        let mut c = Command::cargo_bin("topo").unwrap();
        c.env_remove("NCCL_TOPO_FILE").env_remove("TOPO_NCCL_VERSION");
        c
    }

    #[test]
    fn a_combination_the_algorithm_lacks_is_one_line_and_exit_2() {
        for (args, says) in [
            (
                &["alltoall", "--algo", "nccl", "--fixture", "dgx-h100"][..],
                "`nccl` makes allreduce, allgather, reducescatter and broadcast, not alltoall",
            ),
            (&["allreduce", "--algo", "hierarchical", "--fixture", "dgx-h100"][..], "at least 2 nodes"),
            (&["allreduce", "--algo", "nccl", "--ngpus", "4"][..], "needs a machine"),
            (&["broadcast", "--algo", "ring", "--ngpus", "4", "--runtime", "legacy"][..], "no broadcast"),
        ] {
            let out = topo().arg("algo").arg("make").args(args).assert().code(2).get_output().clone();
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(says), "{err}");
            assert!(out.stdout.is_empty());
        }
    }

    #[test]
    fn output_file_checks_ok_and_rccl_has_no_fused_steps() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("ar.xml");
        topo()
            .args(["algo", "make", "allreduce", "--algo", "hierarchical", "--fixture", "dgx-h100", "--nodes", "2"])
            .args(["--runtime", "rccl", "-o"])
            .arg(&f)
            .assert()
            .success()
            .stdout("");
        let text = std::fs::read_to_string(&f).unwrap();
        for fused in ["\"rcs\"", "\"rrs\"", "\"rrc\"", "\"rrcs\""] {
            assert!(!text.contains(fused), "{fused}");
        }
        topo().args(["algo", "check", "--runtime", "rccl"]).arg(&f).assert().success();
    }
}
