//! Host backend bandwidth next to this machine's memcpy bandwidth, measured in the
//! same run. Target: busbw at 64 MiB at least half the memcpy bandwidth.
//!
//!     cargo bench --bench bench_host

use std::time::{Duration, Instant};

use topo::bench::host::{DEFAULT_SLOT_BYTES, HostBackend};
use topo::bench::{Backend, DataType, Plan, RedOp, bandwidths};

const SIZE: usize = 64 << 20;
const REPS: usize = 10;

/// Single-thread memcpy of SIZE bytes: GB/s of bytes copied (best of REPS).
fn memcpy_gbs() -> f64 {
    let src = vec![1u8; SIZE];
    let mut dst = vec![0u8; SIZE];
    dst.copy_from_slice(&src);
    let mut best = Duration::MAX;
    for _ in 0..REPS {
        let t = Instant::now();
        dst.copy_from_slice(std::hint::black_box(&src));
        best = best.min(t.elapsed());
        std::hint::black_box(&dst);
    }
    SIZE as f64 / 1e9 / best.as_secs_f64()
}

/// Host-backend busbw for a 64 MiB float sum (best of REPS runs of 5 iterations).
fn host_busbw(nranks: usize, channels: usize) -> (f64, f64) {
    let mut b = HostBackend::new(&Plan::simple_ring(nranks, channels), DEFAULT_SLOT_BYTES).expect("host backend");
    b.prepare(SIZE).expect("buffers");
    let count = SIZE / 4;
    b.run(DataType::Float, RedOp::Sum, count, false, 2).expect("warm-up");
    let mut best = f64::MAX;
    for _ in 0..REPS {
        let t = b.run(DataType::Float, RedOp::Sum, count, false, 5).expect("run");
        best = best.min(t.as_secs_f64() / 5.0);
    }
    let (alg, bus) = bandwidths(SIZE as u64, best, nranks);
    (alg, bus)
}

fn main() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let memcpy = memcpy_gbs();
    println!("# host backend vs memcpy, 64 MiB float sum, out of place, {cores} cores");
    println!("memcpy (1 thread)            {memcpy:8.2} GB/s");
    for (n, ch) in [(2, 1), (3, 1), (4, 1), (2, 2)] {
        let (alg, bus) = host_busbw(n, ch);
        let ratio = bus / memcpy;
        let verdict = if n == 2 && ch == 1 { if ratio >= 0.5 { "  target >= 0.50: met" } else { "  target >= 0.50: MISSED" } } else { "" };
        println!("{n} ranks, {ch} channel(s)        algbw {alg:6.2}  busbw {bus:6.2} GB/s  = {ratio:.2} x memcpy{verdict}");
    }
}
