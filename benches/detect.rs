//! `topo detect --root` against `lstopo-no-graphics -i` on the 8-GPU fake machine.
//!
//! Run with `cargo bench --bench detect`. Three timings, same run, same tree:
//! * `topo detect --root` in process: the whole command (sysfs walk, fake NVML, NCCL
//!   XML, health checks, XML text), a fresh file-system view each time;
//! * `lstopo-no-graphics -i DIR --of xml` as a process (hwloc from Debian), skipped with
//!   a message when it is not installed;
//! * spawning `/bin/true`, the cost of a process start, to read the two above fairly.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use topo::discover::{self, Source};

fn tree() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/fsroot/dgx-h100")
}

fn lstopo_available() -> bool {
    Command::new("lstopo-no-graphics")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("detect dgx-h100");
    g.sample_size(30);
    let source = Source { root: Some(tree()), nvml_fake: None };
    // What `topo detect --xml --root DIR` does, in process: detection, the health checks
    // and the XML writer.
    g.bench_function("topo detect --root (in process)", |b| {
        b.iter(|| {
            let (sys, nvml) = source.open().expect("tree");
            let det = discover::detect(&sys, nvml.as_ref(), &discover::Options::default()).expect("detect");
            let findings = topo::check::run_checks(&sys, &det);
            (topo::xml::write(&det.xml), findings)
        })
    });
    if lstopo_available() {
        g.bench_function("lstopo-no-graphics -i --of xml (process)", |b| {
            b.iter(|| {
                let o = Command::new("lstopo-no-graphics")
                    .arg("-i")
                    .arg(tree())
                    .args(["--of", "xml"])
                    .stderr(Stdio::null())
                    .output()
                    .expect("lstopo");
                assert!(o.status.success());
                o.stdout
            })
        });
    } else {
        eprintln!("lstopo-no-graphics not installed (apt-get install hwloc-nox): lstopo timing skipped");
    }
    g.bench_function("spawn /bin/true (process start cost)", |b| {
        b.iter(|| Command::new("/bin/true").status().expect("true"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
