//! The program interpreter (`topo bench allreduce --algo PROGRAM --backend host`) next
//! to the ring bench's host backend on the same collective and size, measured in the
//! same run. Target (issue 24): a program's host run no slower than half the ring
//! bench's, i.e. at most twice its time, for the ring program `topo algo make` writes.
//!
//!     cargo bench --bench bench_program
//!
//! Samples of the two are interleaved and the best of each kept, so that both see the
//! same machine (other processes competing for the cores slow either many times over).

use topo::algo::Runtime;
use topo::algo::make::{self, Algo, Options, Shape};
use topo::algo::program::{Collective, Mode, Protocol};
use topo::bench::host::{DEFAULT_SLOT_BYTES, HostBackend};
use topo::bench::program::reference::validate as validate_program;
use topo::bench::program::{ProgramBackend, ProgramHost, load};
use topo::bench::{Backend, DataType, Plan, RedOp, validate};

const ROUNDS: usize = 7;
const ITERS: usize = 5;

#[path = "support/samples.rs"]
mod samples;
use samples::{best, load_average};

/// The ring allreduce `topo algo make allreduce --algo ring --ngpus n` writes, loaded.
fn ring_program(n: u32) -> ProgramHost {
    let opts = Options {
        coll: Collective::AllReduce,
        algo: Algo::Ring,
        runtime: Runtime::Executor,
        proto: Protocol::Simple,
        instances: 1,
        channels: None,
        root: 0,
    };
    let shape = Shape { nodes: 1, gpus_per_node: n, rings: Vec::new(), trees: Vec::new() };
    let p = make::make(&opts, &shape).expect("ring program");
    let text = topo::algo::write::write(&p, Runtime::Executor).expect("program text");
    ProgramHost::new(load(text.as_bytes(), "ring.xml").expect("a valid program"))
}

fn main() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "# program interpreter vs ring bench, host backend: allreduce float sum, out of place, one ring; \
         {cores} cores; best of {ROUNDS} interleaved samples of {ITERS} iterations"
    );
    println!("# load average before: {}", load_average());
    for n in [2u32, 4, 8] {
        let mut prog = ring_program(n);
        let mut ring = HostBackend::new(&Plan::simple_ring(n as usize, 1), DEFAULT_SLOT_BYTES).expect("host backend");
        for size in [64usize << 10, 1 << 20, 16 << 20] {
            let unit = prog.loaded().count_unit();
            let count = size / 4 / unit * unit;
            ring.prepare(size).expect("buffers");
            // Real data in both, checked once.
            assert_eq!(validate(&mut ring, DataType::Float, RedOp::Sum, count, false, 1).expect("ring run"), 0);
            let w = validate_program(&mut prog, DataType::Float, RedOp::Sum, count, Mode::OutOfPlace, 1);
            assert_eq!(w.expect("program run"), 0);
            let (mut tr, mut tp) = (Vec::new(), Vec::new());
            for _ in 0..ROUNDS {
                tr.push(ring.run(DataType::Float, RedOp::Sum, count, false, ITERS).expect("ring run"));
                tp.push(prog.run(DataType::Float, RedOp::Sum, count, Mode::OutOfPlace, ITERS).expect("program run"));
            }
            let (r, p) = (best(&tr) / ITERS as f64, best(&tp) / ITERS as f64);
            let ratio = p / r;
            println!(
                "{n} ranks {:>8} B: ring bench {:9.1} us, program {:9.1} us = {ratio:5.2} x   target <= 2: {}",
                count * 4,
                r * 1e6,
                p * 1e6,
                if ratio <= 2.0 { "met" } else { "MISSED" }
            );
        }
    }
    println!("# load average after: {}", load_average());
}
