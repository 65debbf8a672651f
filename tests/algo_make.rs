//! `topo algo make`: every algorithm x collective it offers, on every built-in machine at
//! 1, 2 and 4 nodes (and without a machine), for every runtime, passes `topo algo
//! check` at the runtime's depth in every mode its header declares, and reads back as
//! the same program (and its text as the same text). The same on every shared machine
//! (`../shared/fixtures`, 1 node, and 2 and 4 where it has NICs) is the ignored test
//! `every_shared_machine_every_algorithm_checks_ok`, which CI runs with --release.

mod common;

use topo::algo::make::{self, Algo, COLLECTIVES, Options, Shape};
use topo::algo::program::Protocol;
use topo::algo::{CheckOptions, Runtime, Verdict, check, read, write};

/// Make, write, check and read back one program; `Ok(None)`: the algorithm does not
/// offer it (the one line it says).
fn made(opts: &Options, shape: &Shape) -> Result<Option<String>, String> {
    // NCCL's channels, as many as fit the runtime's thread blocks (as make and compare
    // take them).
    let mut opts = *opts;
    if let Some(c) = make::machine::channels_that_fit(&opts, shape) {
        opts.channels = Some(c);
    }
    let opts = &opts;
    if let Err(why) = make::supports(opts, shape) {
        assert!(!why.contains('\n'), "{why}");
        return Ok(Some(why));
    }
    let p = match make::make(opts, shape) {
        Ok(p) => p,
        // The runtime's limits (steps, thread blocks, XML elements, channels): said, not made.
        Err(why)
            if ["runs at most", "holds fewer than", "moves fewer than", "the runtime's limit"]
                .iter()
                .any(|l| why.contains(l)) =>
        {
            return Ok(Some(why));
        }
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
    if write::write(&back, opts.runtime).as_deref() != Some(text.as_str()) {
        return Err("write(read(write(p))) != write(p)".into());
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
                    let opts = Options {
                        coll,
                        algo,
                        runtime: *rt,
                        proto: Protocol::Simple,
                        instances: 1,
                        channels: None,
                        root: 0,
                    };
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

/// The jobs of a machine: 1 node, and 2 and 4 where it has NICs (a job of several nodes
/// needs the network); NCCL's rings cut to the channels the runtimes take. `Err`: the
/// machine model refuses the machine (as NCCL's init fails on it), said, not a failure of
/// make; a job whose rings cannot be had is a failure.
fn jobs(xml: &topo::xml::Xml, label: &str, shapes: &mut Vec<(String, Shape)>) -> Result<(), String> {
    for nodes in [1, 2, 4] {
        let opts = topo::model::Options { nodes, ..Default::default() };
        let an = topo::model::analyze(xml, label, &opts).map_err(|e| format!("{label} x{nodes}: {e}"))?;
        if nodes > 1 && an.nets.is_empty() {
            break;
        }
        let mut shape = make::machine::shape(&an, true).unwrap_or_else(|e| panic!("{label} x{nodes}: {e}"));
        shape.rings.truncate(Runtime::Executor.max_channels() as usize);
        shapes.push((format!("{label} x{nodes}"), shape));
    }
    Ok(())
}

/// Sweep the shapes on every runtime and fail on any program that does not make, check
/// or read back; `ALGO_MAKE_VERBOSE=1` lists what is not offered and why.
fn sweep_all(shapes: &[(String, Shape)], min_ok: usize) {
    let started = std::time::Instant::now();
    let (ok, refused, bad) = sweep(shapes, &Runtime::ALL);
    eprintln!(
        "{} jobs: made and checked ok: {ok}, not offered: {}, failed: {} ({:.1} s)",
        shapes.len(),
        refused.len(),
        bad.len(),
        started.elapsed().as_secs_f64()
    );
    if std::env::var_os("ALGO_MAKE_VERBOSE").is_some() {
        eprintln!("{}", refused.join("\n"));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(ok > min_ok, "{ok}");
}

#[test]
fn every_builtin_machine_every_algorithm_checks_ok() {
    let mut shapes = Vec::new();
    let only = std::env::var("ALGO_MAKE_ONLY").ok();
    for f in topo::fixtures::all() {
        if only.as_deref().is_some_and(|o| o != f.name) {
            continue;
        }
        let (xml, _) = f.load().unwrap();
        jobs(&xml, f.name, &mut shapes).unwrap();
    }
    sweep_all(&shapes, 100);
}

/// Every shared machine: the real dumps, the synthetic Grace nodes and the multi-node
/// NVLink trays. Long in a debug build: CI runs it with `cargo test --release --test
/// algo_make -- --ignored`.
#[test]
#[ignore = "the full sweep over ../shared/fixtures: cargo test --release --test algo_make -- --ignored"]
fn every_shared_machine_every_algorithm_checks_ok() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    if !root.is_dir() {
        common::skip("every_shared_machine_every_algorithm_checks_ok", &format!("{} is absent", root.display()));
        return;
    }
    let only = std::env::var("ALGO_MAKE_ONLY").ok();
    let mut shapes = Vec::new();
    let mut failed = Vec::new();
    let mut machines = 0;
    for (label, f) in common::shared_machines(&root) {
        if only.as_deref().is_some_and(|o| !label.contains(o)) {
            continue;
        }
        let (xml, _) = topo::xml::parse(&std::fs::read_to_string(&f).unwrap(), Some(&f)).unwrap();
        machines += 1;
        if let Err(e) = jobs(&xml, &label, &mut shapes) {
            failed.push(e);
        }
    }
    // A machine the model refuses (NCCL's init fails on it too) has no job.
    eprintln!("{machines} shared machines, {} jobs; refused by the model: {}", shapes.len(), failed.len());
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(only.is_some() || machines >= 40, "only {machines} shared machines");
    sweep_all(&shapes, 1000);
}

fn ring4(instances: u32) -> topo::algo::Program {
    let opts = Options {
        coll: topo::algo::program::Collective::AllReduce,
        algo: Algo::Ring,
        runtime: Runtime::Executor,
        proto: Protocol::Simple,
        instances,
        channels: None,
        root: 0,
    };
    make::make(&opts, &Shape { nodes: 1, gpus_per_node: 4, rings: Vec::new(), trees: Vec::new() }).unwrap()
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
                shapes.push((
                    format!("{nodes}x{g}"),
                    Shape { nodes, gpus_per_node: g, rings: Vec::new(), trees: Vec::new() },
                ));
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
                "`nccl` makes allreduce, allgather, reducescatter, broadcast and reduce, not alltoall",
            ),
            (&["allreduce", "--algo", "hierarchical", "--fixture", "dgx-h100"][..], "at least 2 nodes"),
            (&["allreduce", "--algo", "nccl", "--ngpus", "4"][..], "needs a machine"),
            (
                &["allgather", "--algo", "nccl-tree", "--fixture", "dgx-h100"][..],
                "`nccl-tree` makes allreduce, not allgather",
            ),
            (&["allreduce", "--algo", "nccl-tree", "--ngpus", "4"][..], "needs a machine"),
            (&["broadcast", "--algo", "ring", "--ngpus", "4", "--runtime", "legacy"][..], "no broadcast"),
            (&["reduce", "--algo", "ring", "--ngpus", "4", "--runtime", "legacy"][..], "no reduce"),
            (&["reduce", "--algo", "ring", "--ngpus", "4", "-r", "4"][..], "root rank 4 for a job of 4 ranks"),
            (&["reduce", "--algo", "mesh", "--ngpus", "4"][..], "`mesh` makes"),
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

    /// `nccl-tree`: NCCL's trees on two DGX H100 nodes, one program channel per NCCL
    /// channel (all 16; for RCCL, whose kernels run no fused steps and so need more thread
    /// blocks, the first ones that fit its 64, said), checked by each runtime's rules.
    #[test]
    fn nccl_tree_makes_nccls_trees_and_checks_ok() {
        let d = tempfile::tempdir().unwrap();
        for rt in ["executor", "legacy", "rccl"] {
            let f = d.path().join(format!("tree-{rt}.xml"));
            let out = topo()
                .args(["algo", "make", "allreduce", "--algo", "nccl-tree", "--fixture", "dgx-h100", "--nodes", "2"])
                .args(["--runtime", rt, "-o"])
                .arg(&f)
                .assert()
                .success()
                .get_output()
                .clone();
            let err = String::from_utf8(out.stderr).unwrap();
            let text = std::fs::read_to_string(&f).unwrap();
            let header = text.lines().next().unwrap_or("").to_string();
            if rt == "rccl" {
                assert!(err.contains("thread blocks a GPU RCCL's MSCCL runs"), "{err}");
                assert!(!header.contains("nchannels=\"16\""), "{header}");
            } else {
                assert!(header.contains("nchannels=\"16\""), "{rt}: {header}");
            }
            topo().args(["algo", "check", "--runtime", rt]).arg(&f).assert().success();
        }
    }

    /// `topo algo make allreduce --algo mesh --ngpus 4` with more arguments.
    fn mesh4(more: &[&str]) -> assert_cmd::assert::Assert {
        topo().args(["algo", "make", "allreduce", "--algo", "mesh", "--ngpus", "4"]).args(more).assert()
    }

    /// The header line of a made program.
    fn header(a: assert_cmd::assert::Assert) -> String {
        let text = String::from_utf8(a.success().get_output().stdout.clone()).unwrap();
        text.lines().find(|l| l.starts_with("<algo")).unwrap().to_string()
    }

    #[test]
    fn the_size_range_goes_into_the_header() {
        let algo = header(mesh4(&["--min-bytes", "1K", "--max-bytes", "32K"]));
        assert!(algo.contains("minBytes=\"1024\"") && algo.contains("maxBytes=\"32768\""), "{algo}");
        mesh4(&["--max-bytes", "1K", "--min-bytes", "2K"]).code(2);
        // The older runtime's maxBytes is exclusive.
        let legacy = header(mesh4(&["--max-bytes", "1K", "--runtime", "legacy"]));
        assert!(legacy.contains("maxBytes=\"1025\""), "{legacy}");
    }
}
