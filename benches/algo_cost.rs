//! How long `topo algo cost` takes: 64-GPU allreduces (8 nodes of dgx-h100) as `topo algo
//! make` makes them — `nccl` (NCCL's rings, NCCL's channels), `ring` on 8 channels and
//! `hierarchical` — each costed at 24 sizes, 1 KiB to 8 GiB, factor 2. Target: well under
//! a second each (the machine model, search and make run once outside the timing).
//!
//! Run with `cargo bench --bench algo_cost`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

use topo::algo::Runtime;
use topo::algo::cost::{Fabric, cost};
use topo::algo::make::{self, Algo, Options};
use topo::algo::program::{Collective, Protocol};
use topo::model::Options as ModelOptions;
use topo::tune::Model;

fn allreduce_64(c: &mut Criterion) {
    let (xml, _) = topo::fixtures::get("dgx-h100").unwrap().load().unwrap();
    let opts = ModelOptions { nodes: 8, ..ModelOptions::default() };
    let an = topo::model::analyze(&xml, "dgx-h100", &opts).unwrap();
    let so = topo::search::SearchOptions::from_analysis(&an);
    let (graphs, _) = topo::search::run(&an, &so).unwrap();
    let model = Model::new(&an, &graphs).unwrap();
    let fabric = Fabric::new(&an, &model);
    let shape = make::machine::shape_with(&an, &graphs).unwrap();
    let sizes: Vec<u64> = (0..24).map(|i| 1024u64 << i).collect();
    let mut g = c.benchmark_group("algo cost");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let nccl = make::machine::nccl_channels(&shape, Runtime::Executor);
    for (algo, channels) in [(Algo::Nccl, nccl), (Algo::Ring, Some(8)), (Algo::Hierarchical, None)] {
        let opts = Options {
            coll: Collective::AllReduce,
            algo,
            runtime: Runtime::Executor,
            proto: Protocol::Simple,
            instances: 1,
            channels,
        };
        let p = make::make(&opts, &shape).unwrap();
        let name = format!("64-GPU {} allreduce, {} channels, 24 sizes", algo.name(), p.header.nchannels);
        g.bench_function(name, |b| b.iter(|| black_box(cost(&p, Runtime::Executor, &fabric, &sizes).unwrap())));
    }
    g.finish();
}

criterion_group!(benches, allreduce_64);
criterion_main!(benches);
