//! Host backend bandwidth next to this machine's memcpy bandwidth, measured in the
//! same run. Target: busbw at 64 MiB at least half the memcpy bandwidth.
//!
//!     cargo bench --bench bench_host
//!
//! Samples of memcpy and of each allreduce configuration are interleaved and the best
//! of each is kept, so that both see the same machine (other processes competing for
//! the cores slow a ring far more than a single memcpy thread).

use std::time::{Duration, Instant};

use topo::bench::host::{DEFAULT_SLOT_BYTES, HostBackend};
use topo::bench::{Backend, DataType, Plan, RedOp, bandwidths, validate};

const SIZE: usize = 64 << 20;
const ROUNDS: usize = 12;

#[path = "support/samples.rs"]
mod samples;
use samples::{best, load_average};

fn main() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let configs = [(2, 1), (3, 1), (4, 1), (2, 2)];
    let count = SIZE / 4;
    let mut backends: Vec<HostBackend> = configs
        .iter()
        .map(|&(n, ch)| {
            let mut b = HostBackend::new(&Plan::simple_ring(n, ch), DEFAULT_SLOT_BYTES).expect("host backend");
            b.prepare(SIZE).expect("buffers");
            // Real data in the inputs (untouched buffers would all map the kernel's zero
            // page, which reads from cache), checked once.
            let wrong = validate(&mut b, DataType::Float, RedOp::Sum, count, false, 1).expect("validation run");
            assert_eq!(wrong, 0, "{n} ranks: wrong results");
            b
        })
        .collect();
    let src = vec![1u8; SIZE];
    let mut dst = vec![0u8; SIZE];
    let (mut s2, mut d2) = (vec![2u8; SIZE], vec![0u8; SIZE]);
    dst.copy_from_slice(&src);
    d2.copy_from_slice(&s2);

    let load_before = load_average();
    let mut t_memcpy = Vec::new();
    let mut t_memcpy2 = Vec::new();
    let mut t_ar: Vec<Vec<Duration>> = vec![Vec::new(); configs.len()];
    for _ in 0..ROUNDS {
        let t = Instant::now();
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut dst);
        t_memcpy.push(t.elapsed());
        // Two threads copying at once: what two ranks streaming together can expect.
        let t = Instant::now();
        std::thread::scope(|s| {
            s.spawn(|| std::hint::black_box(&mut dst).copy_from_slice(std::hint::black_box(&src)));
            std::hint::black_box(&mut d2).copy_from_slice(std::hint::black_box(&s2));
        });
        t_memcpy2.push(t.elapsed());
        s2[0] = s2[0].wrapping_add(1);
        for (b, t) in backends.iter_mut().zip(t_ar.iter_mut()) {
            t.push(b.run(DataType::Float, RedOp::Sum, count, false, 1).expect("allreduce"));
        }
    }
    let memcpy = SIZE as f64 / 1e9 / best(&t_memcpy);
    println!(
        "# host backend vs memcpy: 64 MiB, float sum, out of place; {cores} cores; best of {ROUNDS} interleaved samples"
    );
    println!("# load average before: {load_before}, after: {}", load_average());
    println!("memcpy, 1 thread                 {memcpy:7.2} GB/s");
    println!("memcpy, 2 threads at once        {:7.2} GB/s per thread", SIZE as f64 / 1e9 / best(&t_memcpy2));
    for (&(n, ch), t) in configs.iter().zip(&t_ar) {
        let (alg, bus) = bandwidths(SIZE as u64, best(t), n);
        let ratio = bus / memcpy;
        let verdict = match (n, ch) {
            (2, 1) if ratio >= 0.5 => "   target >= 0.50: met",
            (2, 1) => "   target >= 0.50: MISSED",
            _ => "",
        };
        println!(
            "allreduce, {n} ranks, {ch} channel(s)  algbw {alg:6.2}  busbw {bus:6.2} GB/s = {ratio:.2} x memcpy{verdict}"
        );
    }
}
