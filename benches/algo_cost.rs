//! How long `topo algo cost` takes on programs as `topo algo make` makes them, each costed at
//! 24 sizes, 1 KiB to 8 GiB, factor 2: the 64-GPU `hierarchical` allreduce (8 nodes of
//! dgx-h100), and the largest `nccl` ring allreduce the runtime takes (4 nodes, 32 GPUs: 63
//! steps a thread block, NCCL's channels; at 64 GPUs a ring needs 127 steps and
//! msccl-executor-nccl runs 64). Target: well under a second each (the machine model, search
//! and make run once outside the timing).
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

/// The machine model of `nodes` dgx-h100 nodes, its fabric and job.
fn machine(nodes: usize) -> (Fabric, make::Shape) {
    let (xml, _) = topo::fixtures::get("dgx-h100").unwrap().load().unwrap();
    let opts = ModelOptions { nodes, ..ModelOptions::default() };
    let an = topo::model::analyze(&xml, "dgx-h100", &opts).unwrap();
    let so = topo::search::SearchOptions::from_analysis(&an);
    let (graphs, _) = topo::search::run(&an, &so).unwrap();
    let model = Model::new(&an, &graphs).unwrap();
    (Fabric::new(&an, &model).unwrap(), make::machine::shape_with(&an, &graphs).unwrap())
}

fn allreduce(c: &mut Criterion) {
    let sizes: Vec<u64> = (0..24).map(|i| 1024u64 << i).collect();
    let mut g = c.benchmark_group("algo cost");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (algo, nodes) in [(Algo::Hierarchical, 8), (Algo::Nccl, 4)] {
        let (fabric, shape) = machine(nodes);
        let channels = if algo == Algo::Nccl { make::machine::nccl_channels(&shape, Runtime::Executor) } else { None };
        let opts = Options {
            coll: Collective::AllReduce,
            algo,
            runtime: Runtime::Executor,
            proto: Protocol::Simple,
            instances: 1,
            channels,
            root: 0,
        };
        let p = make::make(&opts, &shape).unwrap();
        let name =
            format!("{}-GPU {} allreduce, {} channels, 24 sizes", shape.ranks(), algo.name(), p.header.nchannels);
        g.bench_function(name, |b| b.iter(|| black_box(cost(&p, Runtime::Executor, &fabric, &sizes).unwrap())));
    }
    g.finish();
}

criterion_group!(benches, allreduce);
criterion_main!(benches);
