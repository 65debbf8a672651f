//! How long `topo algo check` takes on the largest programs, end to end from the file's
//! bytes (tokenizer, reader, lowering, the FIFO simulation at the runtime's depth and
//! the binary search for the smallest depth, the symbolic run in every declared mode,
//! races) — and, apart, the reading alone.
//!
//! Target (issue 22): the largest real programs (64 GPUs, ~30,000 lines, ~3 MB) are
//! checked in well under a second. Two programs:
//! * the largest file of `../shared/fixtures/msccl/` (the 64-GPU hierarchical tree
//!   allreduce, 3.3 MB), under microsoft/msccl's rules, which it was written for (the
//!   executor refuses its header at once, which would time nothing); skipped, with a
//!   message, when `../shared` is absent;
//! * a synthetic 64-GPU ring allreduce made here: 4 ring instances, each a
//!   reduce-scatter block (64 steps) and an all-gather block (64 steps, waiting on the
//!   first) on channels of their own, 256 chunks: 32,768 steps, about 4.7 MB, checked
//!   under msccl-executor-nccl's rules (it is `ok` there).
//!
//! Run with `cargo bench --bench algo`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use topo::algo::program::{Buffer, Collective, Dep, Gpu, Header, Program, Protocol, Slot, Step, StepKind, ThreadBlock};
use topo::algo::{CheckOptions, Runtime, check};

const GPUS: u32 = 64;
const INSTANCES: u32 = 4;

fn slot(buf: Buffer, off: Option<u32>) -> Slot {
    Slot { buf, off }
}

fn step(s: usize, kind: StepKind, src: Slot, dst: Slot, dep: Option<Dep>, has_dep: bool) -> Step {
    Step { s: s as u32, kind, src, dst, count: 1, dep, has_dep, line: 0 }
}

/// The synthetic ring: per instance `p`, chunks `64p..64p+64`; rank r's reduce-scatter
/// block (channel 2p) sends chunk r-1, reduces and forwards chunks r-2, r-3, ... and
/// ends with chunk r whole in its output; the all-gather block (channel 2p+1) waits for
/// that, sends it, and forwards and keeps the 63 others.
fn ring(n: u32) -> Program {
    let c = n * INSTANCES;
    let m = |k: i64| (k.rem_euclid(i64::from(n))) as u32;
    let gpus = (0..n)
        .map(|r| {
            let ri = i64::from(r);
            let (next, prev) = (m(ri + 1), m(ri - 1));
            let mut tbs = Vec::new();
            for p in 0..INSTANCES {
                let base = p * n;
                let i = |k: i64| slot(Buffer::Input, Some(base + m(k)));
                let o = |k: i64| slot(Buffer::Output, Some(base + m(k)));
                let none = |b: Buffer| slot(b, None);
                let last = (n - 1) as usize;
                let mut rs = vec![step(0, StepKind::Send, i(ri - 1), none(Buffer::Output), None, false)];
                for t in 1..last {
                    rs.push(step(t, StepKind::RecvReduceSend, i(ri - 1 - t as i64), none(Buffer::Output), None, false));
                }
                rs.push(step(last, StepKind::RecvReduceCopy, i(ri), o(ri), None, true));
                let rs_id = 2 * p;
                let mut ag = vec![step(
                    0,
                    StepKind::Send,
                    o(ri),
                    none(Buffer::Output),
                    Some(Dep { tb: rs_id, step: last as u32 }),
                    false,
                )];
                for t in 1..last {
                    ag.push(step(t, StepKind::RecvCopySend, none(Buffer::Input), o(ri - t as i64), None, false));
                }
                ag.push(step(last, StepKind::Recv, none(Buffer::Input), o(ri + 1), None, false));
                tbs.push(ThreadBlock {
                    id: rs_id,
                    send: Some(next),
                    recv: Some(prev),
                    chan: 2 * p,
                    steps: rs,
                    line: 0,
                });
                tbs.push(ThreadBlock {
                    id: rs_id + 1,
                    send: Some(next),
                    recv: Some(prev),
                    chan: 2 * p + 1,
                    steps: ag,
                    line: 0,
                });
            }
            Gpu { id: r, input_chunks: c, output_chunks: c, scratch_chunks: 0, tbs, line: 0 }
        })
        .collect();
    Program {
        header: Header {
            name: format!("synthetic ring allreduce, {n} GPUs, {INSTANCES} instances"),
            coll: Collective::AllReduce,
            proto: Protocol::Simple,
            nchannels: 2 * INSTANCES,
            chunks_per_loop: c,
            ngpus: n,
            inplace: true,
            outofplace: Some(true),
            min_bytes: Some(0),
            max_bytes: Some(0),
            extra: Vec::new(),
        },
        gpus,
    }
}

fn bench_one(c: &mut Criterion, name: &str, about: &str, bytes: &[u8], runtime: Runtime) {
    let opts = CheckOptions { runtime, depth: None };
    match check(bytes, opts) {
        Ok(r) => println!(
            "{name}: {about}, {} bytes, verdict {}, smallest depth {:?}, {} findings",
            bytes.len(),
            r.verdict.name(),
            r.min_depth,
            r.findings.len()
        ),
        Err(e) => {
            println!("skipped {name}: {e}");
            return;
        }
    }
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.bench_function("check (end to end)", |b| b.iter(|| check(black_box(bytes), opts).map(|r| r.verdict)));
    g.bench_function("read only", |b| {
        b.iter(|| topo::algo::read::read(black_box(bytes), runtime).map(|r| r.findings.len()))
    });
    g.finish();
}

fn shared_largest(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/msccl");
    let largest = std::fs::read_dir(&dir).ok().and_then(|rd| {
        rd.filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "xml"))
            .max_by_key(|e| e.metadata().map_or(0, |m| m.len()))
    });
    let Some(file) = largest else {
        println!("skipped the largest shared program: {} is absent", dir.display());
        return;
    };
    let bytes = match std::fs::read(file.path()) {
        Ok(b) => b,
        Err(e) => {
            println!("skipped {}: {e}", file.path().display());
            return;
        }
    };
    // The files of the old header (no outofplace) were written for microsoft/msccl.
    let runtime = if String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).contains("outofplace=") {
        Runtime::Executor
    } else {
        Runtime::Legacy
    };
    let name = format!("algo check largest shared ({})", runtime.name());
    bench_one(c, &name, &file.file_name().to_string_lossy(), &bytes, runtime);
}

fn synthetic_ring(c: &mut Criterion) {
    let Some(text) = topo::algo::write::write(&ring(GPUS), Runtime::Executor) else {
        println!("skipped the synthetic ring: the writer has no text for it");
        return;
    };
    let about = "64 GPUs, 4 ring instances, 32,768 steps";
    bench_one(c, "algo check synthetic ring (executor)", about, text.as_bytes(), Runtime::Executor);
}

criterion_group!(benches, shared_largest, synthetic_ring);
criterion_main!(benches);
