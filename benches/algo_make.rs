//! `topo algo make`: a 64-GPU hierarchical allreduce (8 nodes x 8 GPUs), made from the
//! algorithm to the program (trace, DAG, fusion, order, schedule), and its text.

use criterion::{Criterion, criterion_group, criterion_main};
use topo::algo::make::{self, Algo, Options, Shape};
use topo::algo::program::{Collective, Protocol};
use topo::algo::{Runtime, write};

fn bench(c: &mut Criterion) {
    let shape = Shape { nodes: 8, gpus_per_node: 8, rings: Vec::new(), trees: Vec::new() };
    for (name, algo, coll, runtime) in [
        ("hierarchical allreduce 64 GPUs", Algo::Hierarchical, Collective::AllReduce, Runtime::Executor),
        ("hierarchical allreduce 64 GPUs rccl", Algo::Hierarchical, Collective::AllReduce, Runtime::Rccl),
        ("nhr allreduce 64 GPUs", Algo::Nhr, Collective::AllReduce, Runtime::Executor),
    ] {
        let opts = Options { coll, algo, runtime, proto: Protocol::Simple, instances: 1, channels: None, root: 0 };
        c.bench_function(&format!("make {name}"), |b| {
            b.iter(|| {
                let p = make::make(&opts, &shape).unwrap();
                write::write(&p, runtime).unwrap().len()
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
