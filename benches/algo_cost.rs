//! How long `topo algo cost` takes: a 64-GPU ring allreduce over NCCL's rings (8 nodes of
//! dgx-h100; 8 channels, and NCCL's 24) costed at 24 sizes, 1 KiB to 8 GiB, factor 2. Target: well
//! under a second (the machine model and search run once outside the timing).
//!
//! Run with `cargo bench --bench algo_cost`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

use topo::algo::Runtime;
use topo::algo::cost::{Fabric, cost, reference};
use topo::algo::program::Protocol;
use topo::model::Options;
use topo::tune::Model;

fn ring_64(c: &mut Criterion) {
    let (xml, _) = topo::fixtures::get("dgx-h100").unwrap().load().unwrap();
    let opts = Options { nodes: 8, ..Options::default() };
    let an = topo::model::analyze(&xml, "dgx-h100", &opts).unwrap();
    let so = topo::search::SearchOptions::from_analysis(&an);
    let (graphs, _) = topo::search::run(&an, &so).unwrap();
    let model = Model::new(&an, &graphs).unwrap();
    let fabric = Fabric::new(&an, &model);
    let sizes: Vec<u64> = (0..24).map(|i| 1024u64 << i).collect();
    let mut g = c.benchmark_group("algo cost");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for channels in [8, model.comm.n_channels] {
        let rings = reference::nccl_rings(&graphs.ring, an.gpus.len(), 8, channels);
        let p = reference::ring_allreduce(&rings, Protocol::Simple);
        g.bench_function(format!("64-GPU ring allreduce, {channels} channels, 24 sizes"), |b| {
            b.iter(|| black_box(cost(&p, Runtime::Executor, &fabric, &sizes).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, ring_64);
criterion_main!(benches);
