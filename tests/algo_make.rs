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

fn sweep(shapes: &[(String, Shape)], runtimes: &[Runtime]) -> (usize, usize, Vec<String>) {
    let (mut ok, mut refused, mut bad) = (0, 0, Vec::new());
    for (label, shape) in shapes {
        for rt in runtimes {
            for algo in Algo::ALL {
                for coll in COLLECTIVES {
                    let opts =
                        Options { coll, algo, runtime: *rt, proto: Protocol::Simple, instances: 1, channels: None };
                    match made(&opts, shape) {
                        Ok(None) => ok += 1,
                        Ok(Some(_)) => refused += 1,
                        Err(e) => bad.push(format!("{label} {} {} {coll}: {e}", rt.name(), algo.name())),
                    }
                }
            }
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
    eprintln!("made and checked ok: {ok}, not offered: {refused}, failed: {}", bad.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(ok > 100, "{ok}");
}
