//! How long the model takes once the XML is parsed (`topo::model::analyze`).
//!
//! Targets: the largest shared case (`aws-p5-efa32.xml`, 4 nodes) under 5 ms, and a
//! synthetic 72-GPU NVSwitch domain with 6 NICs (the most NCCL's XML parser holds) under
//! 50 ms. The shared case is skipped, with a message, when `../shared` is absent.
//!
//! A full GB200 NVL72 rack (`gb200-nvl72-tray` at `--nodes 18 --mnnvl`: 18 trays fused
//! into one 72-GPU system, as NCCL's multi-node NVLink does), model, search of every
//! graph and the tuning model together: under 1 s (NCCL's own code takes minutes and
//! 742 MB, every rank fusing 72 topologies).
//!
//! Run with `cargo bench --bench model`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};

use topo::model::{Options, analyze};

fn shared_case(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl/aws-p5-efa32.xml");
    if !path.exists() {
        println!("skipped aws-p5-efa32: {} is absent", path.display());
        return;
    }
    let (xml, _) = match topo::xml::read_file(&path) {
        Ok(x) => x,
        Err(e) => {
            println!("skipped aws-p5-efa32: {e}");
            return;
        }
    };
    let opts = Options { nodes: 4, ..Options::default() };
    c.bench_function("analyze aws-p5-efa32 nodes=4", |b| {
        b.iter(|| analyze(black_box(&xml), "aws-p5-efa32.xml", &opts).map(|a| a.n_ranks))
    });
}

fn synthetic_nvl72(c: &mut Criterion) {
    let xml = match topo::fixtures::synthetic_nvl72(6) {
        Ok(x) => x,
        Err(e) => {
            println!("skipped synthetic NVL72: {e}");
            return;
        }
    };
    let opts = Options::default();
    c.bench_function("analyze synthetic nvl72 6 nics", |b| {
        b.iter(|| analyze(black_box(&xml), "synthetic-nvl72", &opts).map(|a| a.n_ranks))
    });
}

fn gb200_rack(c: &mut Criterion) {
    let xml = match topo::fixtures::get("gb200-nvl72-tray").and_then(|f| f.load()) {
        Ok((x, _)) => x,
        Err(e) => {
            println!("skipped gb200 rack: {e}");
            return;
        }
    };
    let opts = Options { nodes: 18, mnnvl: true, ..Options::default() };
    c.bench_function("gb200 nvl72 rack (18 trays, mnnvl): model, search, tuning", |b| {
        b.iter(|| {
            let an = analyze(black_box(&xml), "gb200-nvl72-tray", &opts).expect("model");
            let so = topo::search::SearchOptions::from_analysis(&an);
            let (gs, _) = topo::search::run(&an, &so).expect("search");
            topo::tune::Model::new(&an, &gs).map(|m| m.comm.n_ranks)
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = shared_case, synthetic_nvl72, gb200_rack
}
criterion_main!(benches);
