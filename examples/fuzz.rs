//! topo's own fuzzer: mutates the project's fixtures (topology XML, graph files,
//! fake-NVML JSON) and runs the library's entry points on each mutant in process, the
//! way the commands do (read, model, search, tuning, renderers), for a time budget.
//!
//! ```text
//! cargo run --release --example fuzz -- --seconds 60            # what .ci/run does
//! cargo run --release --example fuzz -- --seconds 3600 --seed 42  # an hour, reproducibly
//! ```
//!
//! Each run prints its seed. A mutant that panics, or that takes longer than the
//! per-input limit (a hang), is written to `target/fuzz-failures/` with the seed and
//! the iteration, and the run exits 1. An abort (stack overflow, allocation failure)
//! kills the process; the input it was working on is in `target/fuzz-failures/current.*`
//! and the exit status is not 0. Errors (exit 2 in the CLI) are the expected outcome
//! for most mutants and are counted, not reported.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest one input may take before it counts as a hang.
const PER_INPUT_LIMIT: Duration = Duration::from_secs(20);

/// xorshift64*: small, fast, and the same sequence for the same seed everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Topology,
    GraphFile,
    Nvml,
}

impl Kind {
    fn ext(self) -> &'static str {
        match self {
            Kind::Topology | Kind::GraphFile => "xml",
            Kind::Nvml => "json",
        }
    }
}

/// Values no machine has, and text that has broken parsers before.
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1",
    "65",
    "255",
    "256",
    "4294967296",
    "-2147483648",
    "9223372036854775807",
    "1e308",
    "nan",
    "inf",
    "0x",
    "",
    " ",
    "\u{663}",
    "&amp;&amp;&amp;",
    "ffffffff:ff:ff.f",
    "0000:00:00.0",
    "fffffff:ffff:ff",
    "SYS",
    "LOC",
];

fn corpus(root: &Path) -> Vec<(Kind, String)> {
    let mut out = Vec::new();
    for f in topo::fixtures::all() {
        if let Ok((x, _)) = f.load() {
            out.push((Kind::Topology, topo::xml::write(&x)));
        }
    }
    let read_dir = |dir: PathBuf, ext: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == ext))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    for p in read_dir(root.join("fixtures/fsroot"), "xml") {
        if let Ok(t) = std::fs::read_to_string(&p) {
            out.push((Kind::Topology, t));
        }
        let nvml = p.with_extension("").join("nvml.json");
        if let Ok(t) = std::fs::read_to_string(&nvml) {
            out.push((Kind::Nvml, t));
        }
    }
    for p in read_dir(root.join("fixtures/graphs"), "xml") {
        if let Ok(t) = std::fs::read_to_string(&p) {
            out.push((Kind::GraphFile, t));
        }
    }
    out
}

/// One mutation of `text`, chosen by `rng`.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let b = text.as_bytes();
    let at = rng.below(b.len() + 1);
    let mut out: Vec<u8> = match rng.below(9) {
        // A byte flipped, inserted or removed.
        0 => {
            let mut v = b.to_vec();
            if at < v.len() {
                v[at] ^= 1 << rng.below(8);
            }
            v
        }
        1 => {
            let mut v = b.to_vec();
            v.insert(at, *rng.pick(b"<>/\"=&;x0 \n\t\xff"));
            v
        }
        2 => {
            let mut v = b.to_vec();
            let end = (at + rng.below(64)).min(v.len());
            v.drain(at..end);
            v
        }
        // Cut short.
        3 => b[..at].to_vec(),
        // An attribute value replaced by an extreme one.
        4 => {
            let quotes: Vec<usize> = b.iter().enumerate().filter(|(_, c)| **c == b'"').map(|(i, _)| i).collect();
            if quotes.len() >= 2 {
                let k = rng.below(quotes.len() / 2) * 2;
                let (s, e) = (quotes[k], quotes[k + 1]);
                let mut v = b[..=s].to_vec();
                v.extend_from_slice(rng.pick(EXTREMES).as_bytes());
                v.extend_from_slice(&b[e..]);
                v
            } else {
                b.to_vec()
            }
        }
        // A huge attribute value.
        5 => {
            let mut v = b.to_vec();
            if let Some(q) = b.iter().position(|&c| c == b'"') {
                let n = 1 << (8 + rng.below(12));
                let filler = rng.pick(&["a", "0", "&amp;", "\u{663}"]).repeat(n);
                v.splice(q + 1..q + 1, filler.into_bytes());
            }
            v
        }
        // Deep nesting around the document's first line break.
        6 => {
            let depth = 1 << rng.below(15);
            let name = rng.pick(&["pci", "foo", "cpu", "graph"]);
            let mut v = b[..at].to_vec();
            v.extend_from_slice(format!("<{name}>").repeat(depth).as_bytes());
            v.extend_from_slice(format!("</{name}>").repeat(depth).as_bytes());
            v.extend_from_slice(&b[at..]);
            v
        }
        // A chunk duplicated (more devices, repeated ids).
        7 => {
            let end = (at + rng.below(2048)).min(b.len());
            let mut v = b[..end].to_vec();
            v.extend_from_slice(&b[at..end]);
            v.extend_from_slice(&b[end..]);
            v
        }
        // A number anywhere replaced by an extreme one.
        _ => {
            let digits: Vec<usize> = b.iter().enumerate().filter(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i).collect();
            if digits.is_empty() {
                b.to_vec()
            } else {
                let d = *rng.pick(&digits);
                let mut e = d;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                let mut v = b[..d].to_vec();
                v.extend_from_slice(rng.pick(EXTREMES).as_bytes());
                v.extend_from_slice(&b[e..]);
                v
            }
        }
    };
    out.truncate(16 << 20);
    String::from_utf8_lossy(&out).into_owned()
}

/// Everything a command would do with this input, in process. Errors are fine.
fn run_one(kind: Kind, text: &str, base: &topo::xml::Xml) {
    use topo::{model, render, search, tune, xml};
    let analyze_all = |x: &xml::Xml, graph_file: Option<xml::Xml>| {
        // One pass as the newest release, one as another release (chosen by the input,
        // so that a failure replays).
        let other = topo::release::RELEASES[text.len() % topo::release::RELEASES.len()];
        for (nodes, release) in [(1, topo::release::Release::NEWEST), (2, other)] {
            let env = topo::env::Env::for_release(release, std::iter::empty::<(String, String)>());
            let opts = model::Options { nodes, env, ..Default::default() };
            let Ok(an) = model::analyze(x, "fuzz.xml", &opts) else { continue };
            let _ = render::paths::text(&an, true);
            let _ = render::show::tree(&an);
            let _ = render::dot::system(&an);
            let mut so = search::SearchOptions::from_analysis(&an);
            so.graph_file = graph_file.clone().map(|g| ("fuzz-graph.xml".to_string(), g));
            let Ok((gs, sys)) = search::run(&an, &so) else { continue };
            let _ = render::graphs::graphs_json(&sys, &gs);
            let _ = search::xml::dump(&sys, &gs, release);
            let run = search::channels::for_analysis(&an, &gs).map_err(|e| e.to_string());
            let _ = render::search::text(&an, &gs, &[], &run, 0, None);
            if let Ok(m) = tune::Model::new(&an, &gs) {
                let _ = m.predict(tune::Func::AllReduce, 1 << 20);
            }
        }
    };
    match kind {
        Kind::Topology => {
            if let Ok((x, _)) = xml::parse(text, None) {
                let _ = xml::write(&x);
                analyze_all(&x, None);
            }
        }
        Kind::GraphFile => {
            if let Ok((g, _)) = xml::parse(text, None) {
                analyze_all(base, Some(g));
            }
        }
        Kind::Nvml => {
            let _ = topo::discover::nvml::parse_fake(text, Path::new("fuzz.json"));
        }
    }
}

fn main() {
    let mut seconds = 60u64;
    let mut seed =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out_dir = root.join("target/fuzz-failures");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().unwrap_or_default();
        match a.as_str() {
            "--seconds" => seconds = v.parse().unwrap_or(seconds),
            "--seed" => seed = v.parse().unwrap_or(seed),
            "--out" => out_dir = PathBuf::from(v),
            _ => {
                eprintln!("usage: fuzz [--seconds N] [--seed S] [--out DIR]");
                std::process::exit(2);
            }
        }
    }
    let seed = seed.max(1);
    println!("fuzz: seed {seed}, {seconds} s, failures to {}", out_dir.display());
    let _ = std::fs::create_dir_all(&out_dir);
    let corpus = corpus(&root);
    let base =
        topo::fixtures::get("workstation-4gpu").and_then(|f| f.load()).map(|(x, _)| x).expect("built-in fixture");
    let mut rng = Rng(seed);

    // A watchdog: an input that runs past the limit is a hang, reported from here.
    let started = Arc::new(AtomicU64::new(u64::MAX));
    let clock = Instant::now();
    let current: Arc<Mutex<(u64, Kind, String)>> = Arc::new(Mutex::new((0, Kind::Topology, String::new())));
    {
        let (started, current, out_dir) = (started.clone(), current.clone(), out_dir.clone());
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let s = started.load(Ordering::Relaxed);
                if s != u64::MAX && clock.elapsed().as_millis() as u64 - s > PER_INPUT_LIMIT.as_millis() as u64 {
                    let (iter, kind, text) =
                        current.lock().map(|c| c.clone()).unwrap_or((0, Kind::Topology, String::new()));
                    let name = format!("hang-seed{seed}-iter{iter}.{}", kind.ext());
                    let _ = std::fs::write(out_dir.join(&name), text);
                    eprintln!("fuzz: HANG: input {iter} ran over {PER_INPUT_LIMIT:?}; saved as {name} (seed {seed})");
                    std::process::exit(1);
                }
            }
        });
    }

    // Panics are caught and reported below; keep their default message off the output.
    std::panic::set_hook(Box::new(|_| {}));
    let deadline = Duration::from_secs(seconds);
    let (mut runs, mut iter) = (0u64, 0u64);
    while clock.elapsed() < deadline {
        iter += 1;
        let (kind, text) = rng.pick(&corpus).clone();
        let mut input = text;
        for _ in 0..1 + rng.below(3) {
            input = mutate(&mut rng, &input);
        }
        // Kept on disk while it runs: an abort leaves it there.
        let cur = out_dir.join(format!("current.{}", kind.ext()));
        let _ = std::fs::write(&cur, &input);
        if let Ok(mut c) = current.lock() {
            *c = (iter, kind, input.clone());
        }
        started.store(clock.elapsed().as_millis() as u64, Ordering::Relaxed);
        let res = std::panic::catch_unwind(|| run_one(kind, &input, &base));
        started.store(u64::MAX, Ordering::Relaxed);
        runs += 1;
        if let Err(p) = res {
            let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
            let name = format!("panic-seed{seed}-iter{iter}.{}", kind.ext());
            let _ = std::fs::write(out_dir.join(&name), &input);
            eprintln!(
                "fuzz: PANIC on input {iter} ({kind:?}): {}; saved as {name} (seed {seed})",
                msg.unwrap_or_default()
            );
            std::process::exit(1);
        }
    }
    let _ = std::fs::remove_file(out_dir.join("current.xml"));
    let _ = std::fs::remove_file(out_dir.join("current.json"));
    println!("fuzz: {runs} executions in {:.0} s, seed {seed}: no panic, abort or hang", clock.elapsed().as_secs_f64());
}
