//! The programs `topo algo make` makes, as the program tests run them: every
//! (collective, algorithm, ranks) make offers on 2 to 8 ranks, each made for a small
//! job of that many ranks, written and read back as `topo bench --algo NAME` does.
//! Shared by the host interpreter's tests (`tests/bench_program.rs`) and the CUDA
//! interpreter's on CPU threads (`tests/kernel_cpu/msccl.rs`).

#![allow(dead_code)] // each test binary uses part of it

use topo::algo::Runtime;
use topo::algo::make::{self, Algo, COLLECTIVES, Options, Shape};
use topo::algo::program::{Collective, Protocol};
use topo::bench::program::{Loaded, load};

/// The job of `n` ranks for an algorithm: two nodes for `hierarchical` (which needs
/// them), for `nccl` two rings as NCCL's search could give (in order, and backwards),
/// and for `nccl-tree` two chains (rooted at rank 0, and at the last rank).
pub fn shape(algo: Algo, n: u32) -> Option<Shape> {
    let (nodes, per) = match algo {
        Algo::Hierarchical if n.is_multiple_of(2) && n >= 4 => (2, n / 2),
        Algo::Hierarchical => return None,
        _ => (1, n),
    };
    let rings = if algo == Algo::Nccl {
        vec![(0..n).collect(), std::iter::once(0).chain((1..n).rev()).collect()]
    } else {
        Vec::new()
    };
    let trees = if algo == Algo::NcclTree {
        let n = n as i32;
        vec![(0..n).map(|r| r - 1).collect(), (0..n).map(|r| if r + 1 == n { -1 } else { r + 1 }).collect()]
    } else {
        Vec::new()
    };
    Some(Shape { nodes, gpus_per_node: per, rings, trees })
}

/// Make, write and load the program as `topo bench --algo NAME` does.
pub fn made(coll: Collective, algo: Algo, n: u32) -> Option<Loaded> {
    let shape = shape(algo, n)?;
    let runtime = Runtime::default();
    let opts = Options { coll, algo, runtime, proto: Protocol::Simple, instances: 1, channels: None, root: 0 };
    let what = format!("{coll} {} {n} ranks", algo.name());
    let p = make::make(&opts, &shape).unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = topo::algo::write::write(&p, runtime).unwrap_or_else(|| panic!("{what}: not written"));
    Some(load(text.as_bytes(), &what).unwrap_or_else(|e| panic!("{what}: {e}")))
}

/// Every (collective, algorithm, ranks) make offers, 2 to 8 ranks.
pub fn every_program() -> Vec<(Collective, Algo, u32)> {
    let mut all = Vec::new();
    for coll in COLLECTIVES {
        for algo in Algo::ALL.into_iter().filter(|a| a.collectives().contains(&coll)) {
            for n in 2..=8 {
                if shape(algo, n).is_some() {
                    all.push((coll, algo, n));
                }
            }
        }
    }
    all
}
