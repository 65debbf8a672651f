//! `topo fleet` over 1000 generated dumps of an 8-GPU server (the built-in dgx-h100,
//! each with its own host hash and NIC GUIDs, three of them with a planted change),
//! written to a temporary directory. Target: under 5 s for the whole run.

use criterion::{Criterion, criterion_group, criterion_main};
use topo::diff::fleet::{FleetOptions, fleet};
use topo::xml::{self, Xml};

const DUMPS: usize = 1000;

fn elements(x: &Xml, name: &str) -> Vec<usize> {
    x.preorder().into_iter().filter(|&i| x.name(i) == name).collect()
}

/// Write the dumps; returns the directory (removed when dropped).
fn generate() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let (base, _) = topo::fixtures::get("dgx-h100").and_then(|f| f.load()).expect("dgx-h100 fixture");
    for i in 0..DUMPS {
        let mut x = base.clone();
        for (k, c) in elements(&x, "cpu").into_iter().enumerate() {
            x.set_attr(c, "host_hash", format!("{:#018x}", 0x5a3c_0000_0000_0000u64 + (i as u64) * 4 + k as u64));
        }
        for (k, n) in elements(&x, "net").into_iter().enumerate() {
            x.set_attr(n, "guid", format!("{:#018x}", 0xa088_c203_0000_0000u64 + ((i as u64) << 8) + k as u64));
        }
        // Three outliers: a GPU at x8, a slow port, a NIC gone.
        if i == 100 {
            let p = elements(&x, "pci").into_iter().find(|&p| x.attr(p, "busid") == Some("0000:1a:00.0")).unwrap();
            x.set_attr(p, "link_width", "8");
        }
        if i == 500 {
            let n = elements(&x, "net").into_iter().find(|&n| x.attr(n, "name") == Some("mlx5_4")).unwrap();
            x.set_attr(n, "speed", "200000");
        }
        if i == 900 {
            let p = elements(&x, "pci").into_iter().find(|&p| x.attr(p, "busid") == Some("0000:c5:00.0")).unwrap();
            x.remove(p);
        }
        std::fs::write(dir.path().join(format!("node{i:04}.xml")), xml::write(&x)).expect("write dump");
    }
    dir
}

fn bench(c: &mut Criterion) {
    let dir = generate();
    let args = FleetOptions::new(vec![dir.path().to_path_buf()]);
    // The command's defaults: each dump one node of a 2-node job, no channel search.
    let opts = topo::model::Options { nodes: 2, ..Default::default() };
    let run = || {
        let r = fleet(&args, &opts, &topo::diff::no_graphs).expect("fleet runs");
        topo::render::fleet::text(&r)
    };
    // One checked run: three outliers against 997 alike.
    let text = run();
    assert!(text.starts_with("1000 dumps, 4 groups"), "{text}");
    assert!(text.contains("reference: 997 dumps"), "{text}");
    let mut g = c.benchmark_group("fleet");
    g.sample_size(10);
    g.bench_function("1000 dgx-h100 dumps", |b| b.iter(run));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
