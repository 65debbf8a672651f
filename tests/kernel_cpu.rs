//! The ring kernels themselves, run without a GPU: `kernels/allreduce.cu` compiled as
//! C++ for the CPU with a small CUDA shim (`tests/kernel_cpu/`: one OS thread per CUDA
//! thread, a barrier per block), wired with real FIFOs the way the CUDA backend wires
//! them, and checked by the bench's own validation (every element of every rank).
//!
//! The host backend tests the ring protocol; this tests the code that runs on the GPU:
//! the kernels' schedule, chunking, FIFO counters, abort path and arithmetic. Needs a
//! C++17 compiler with `_Float16` (GCC 12, Clang 15); `$CXX` names another. Without
//! one the tests skip, visibly.

mod common;
#[path = "support/made.rs"]
mod made;
#[path = "kernel_cpu/msccl.rs"]
mod msccl;
#[path = "kernel_cpu/streams.rs"]
mod streams;

use std::alloc::Layout;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock, mpsc};
use std::time::{Duration, Instant};

use libloading::Library;
use topo::bench::kernel_abi::{ChannelArgs, ConnArgs, KernelArgs, kernel_name};
use topo::bench::proxy::{CtrlPtr, FIFO_SLOTS, FifoCtrl, ProxyConn, ProxyThread, SlotMover, StagedCopy};
use topo::bench::schedule::RingSchedule;
use topo::bench::{self, Backend, DataType, DeviceInfo, RedOp};
use topo::error::Error;

// ---------------------------------------------------------------------------------
// Building and loading the CPU kernels

/// The kernels as a shared library, built once per test run; None (after a visible
/// skip) when there is no C++ compiler.
fn library(test: &str) -> Option<&'static Library> {
    static LIB: OnceLock<Result<Library, String>> = OnceLock::new();
    let lib = LIB.get_or_init(|| {
        let cxx = std::env::var("CXX").ok().filter(|c| !c.is_empty()).unwrap_or_else(|| "c++".into());
        if common::run_external(Command::new(&cxx).arg("--version"), None, &format!("{cxx} --version")).is_err() {
            return Err(format!("no C++ compiler (`{cxx}`) to build the kernels for the CPU"));
        }
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kernel_cpu");
        std::fs::create_dir_all(&dir).unwrap();
        let so = dir.join(format!("libtopo_kernel_cpu_{}.so", std::process::id()));
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/kernel_cpu/runtime.cpp");
        let mut build = Command::new(&cxx);
        build
            .args(["-std=c++17", "-O2", "-shared", "-fPIC", "-pthread", "-fno-strict-aliasing"])
            .args(["-Wall", "-Wextra", "-Wno-unknown-pragmas", "-o"])
            .arg(&so)
            .arg(&src);
        let out = common::run_external(&mut build, None, &format!("{cxx} building the CPU kernels")).unwrap();
        // A compiler that is there but fails is a failure of the kernel source.
        assert!(
            out.status.success(),
            "{cxx} could not build kernels/allreduce.cu for the CPU:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // SAFETY: our own library, whose initialisers do nothing.
        let lib = unsafe { Library::new(&so) }.unwrap();
        let _ = std::fs::remove_file(&so);
        Ok(lib)
    });
    match lib {
        Ok(l) => Some(l),
        Err(why) => {
            common::skip(test, why);
            None
        }
    }
}

type Kernel = unsafe extern "C" fn(KernelArgs);
type RunFn = unsafe extern "C" fn(Kernel, *const KernelArgs, i32, i32, i32, i32) -> i32;

// ---------------------------------------------------------------------------------
// Memory

/// Zeroed memory aligned for the kernels' 16-byte vectors (64 bytes, like a GPU
/// allocation's cache lines).
struct Mem {
    ptr: *mut u8,
    layout: Layout,
}

impl Mem {
    fn new(bytes: usize) -> Mem {
        let layout = Layout::from_size_align(bytes.max(64), 64).unwrap();
        // SAFETY: a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        assert!(!ptr.is_null());
        Mem { ptr, layout }
    }
    fn addr(&self) -> u64 {
        self.ptr as u64
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

// SAFETY: plain memory; the tests hand it to kernel threads only while they run.
unsafe impl Send for Mem {}

/// A slot mover for staged edges that reports each move finished only on the second
/// time it is asked, so that the proxy has slots in flight as it has with a copy
/// engine. The bytes are copied when the move finishes.
struct LaggingCopy {
    src: u64,
    dst: u64,
    slot_bytes: usize,
    pending: VecDeque<(usize, usize, bool)>,
}

impl SlotMover for LaggingCopy {
    fn start(&mut self, slot: usize, bytes: usize) -> Result<(), Error> {
        assert!(bytes <= self.slot_bytes, "a slot of {bytes} bytes in a {}-byte FIFO", self.slot_bytes);
        self.pending.push_back((slot, bytes, false));
        Ok(())
    }
    fn finished(&mut self, slot: usize) -> Result<bool, Error> {
        let front = self.pending.front_mut().expect("a move to finish");
        assert_eq!(front.0, slot, "moves finish in order");
        if !front.2 {
            front.2 = true;
            return Ok(false);
        }
        let (slot, bytes, _) = self.pending.pop_front().unwrap();
        let off = (slot * self.slot_bytes) as u64;
        // SAFETY: both slots are inside their FIFOs; the counters give them to the proxy.
        unsafe { std::ptr::copy_nonoverlapping((self.src + off) as *const u8, (self.dst + off) as *mut u8, bytes) };
        Ok(true)
    }
}

// ---------------------------------------------------------------------------------
// The backend

/// How one ring edge is wired.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Edge {
    /// As the CUDA backend's P2P edges: `tail` in a block of the receiver, `head` in
    /// one of the sender.
    P2p,
    /// One block for both counters (the receiving side of a host-staged edge).
    OneBlock,
    /// Through a staging FIFO and the proxy thread.
    Staged,
}

struct Setup {
    nranks: usize,
    /// Ring order of each channel.
    orders: Vec<Vec<usize>>,
    nthreads: usize,
    slot_bytes: usize,
    edge: Wiring,
}

/// The wiring of the edge of `channel` that leaves rank `from`.
type Wiring = fn(channel: usize, from: usize) -> Edge;

impl Setup {
    fn new(nranks: usize, nchannels: usize) -> Setup {
        // Channels in different orders, as the search gives them.
        let orders = (0..nchannels)
            .map(|c| {
                let mut o: Vec<usize> = (0..nranks).collect();
                if c % 2 == 1 {
                    o.reverse();
                }
                o.rotate_left(c % nranks.max(1));
                o
            })
            .collect();
        Setup { nranks, orders, nthreads: 8, slot_bytes: 256, edge: |_, _| Edge::P2p }
    }
}

struct CpuKernels {
    lib: &'static Library,
    nranks: usize,
    nchannels: usize,
    nthreads: usize,
    slot_bytes: usize,
    /// Ranks launched (fewer, to make a ring that cannot finish).
    launched: usize,
    /// Each rank's ChannelArgs array (the kernels write their step counters back).
    channels: Vec<Box<[ChannelArgs]>>,
    fifos: Vec<Mem>,
    /// Boxed: the kernels hold their addresses while the vector grows.
    #[allow(clippy::vec_box)]
    ctrls: Vec<Box<FifoCtrl>>,
    /// Each rank's (send, recv) buffers and their size.
    bufs: Vec<(Mem, Mem)>,
    bytes: usize,
    abort_flag: Box<AtomicU32>,
    proxy: Option<ProxyThread>,
    stall: Duration,
}

impl CpuKernels {
    fn new(lib: &'static Library, s: &Setup) -> CpuKernels {
        let (n, nch) = (s.nranks, s.orders.len());
        let mut b = CpuKernels {
            lib,
            nranks: n,
            nchannels: nch,
            nthreads: s.nthreads,
            slot_bytes: s.slot_bytes,
            launched: n,
            channels: vec![vec![ChannelArgs::default(); nch].into_boxed_slice(); n],
            fifos: Vec::new(),
            ctrls: Vec::new(),
            bufs: Vec::new(),
            bytes: 0,
            abort_flag: Box::new(AtomicU32::new(0)),
            proxy: None,
            // Every run here takes well under a second; a stall is a bug.
            stall: Duration::from_secs(20),
        };
        let mut conns: Vec<Box<dyn ProxyConn>> = Vec::new();
        let fifo_bytes = FIFO_SLOTS * s.slot_bytes;
        for (c, order) in s.orders.iter().enumerate() {
            for (p, &r) in order.iter().enumerate() {
                let prev = order[(p + n - 1) % n];
                b.channels[r][c].ring_pos = p as i32;
                let data = b.fifo(fifo_bytes);
                let edge = if n == 1 { Edge::P2p } else { (s.edge)(c, prev) };
                match edge {
                    Edge::P2p => {
                        let (tail, head) = (b.ctrl(), b.ctrl());
                        b.channels[r][c].recv = ConnArgs { data, tail, head };
                        b.channels[prev][c].send = ConnArgs { data, tail, head };
                    }
                    Edge::OneBlock => {
                        let ctrl = b.ctrl();
                        b.channels[r][c].recv = ConnArgs { data, tail: ctrl, head: ctrl };
                        b.channels[prev][c].send = ConnArgs { data, tail: ctrl, head: ctrl };
                    }
                    Edge::Staged => {
                        let (ctrl, st_data, st_ctrl) = (b.ctrl(), b.fifo(fifo_bytes), b.ctrl());
                        b.channels[r][c].recv = ConnArgs { data, tail: ctrl, head: ctrl };
                        b.channels[prev][c].send = ConnArgs { data: st_data, tail: st_ctrl, head: st_ctrl };
                        let mover =
                            LaggingCopy { src: st_data, dst: data, slot_bytes: s.slot_bytes, pending: VecDeque::new() };
                        // SAFETY: the control blocks live in `ctrls` until after the
                        // proxy is joined (Drop).
                        conns.push(Box::new(unsafe {
                            StagedCopy::new(
                                CtrlPtr(st_ctrl as *const FifoCtrl),
                                CtrlPtr(ctrl as *const FifoCtrl),
                                mover,
                            )
                        }));
                    }
                }
            }
        }
        if !conns.is_empty() {
            b.proxy = Some(ProxyThread::spawn(conns, Arc::new(AtomicBool::new(false)), None).unwrap());
        }
        b
    }

    fn fifo(&mut self, bytes: usize) -> u64 {
        self.fifos.push(Mem::new(bytes));
        self.fifos.last().unwrap().addr()
    }

    fn ctrl(&mut self) -> u64 {
        self.ctrls.push(Box::default());
        &**self.ctrls.last().unwrap() as *const FifoCtrl as u64
    }

    fn buffer(&self, rank: usize, in_place: bool) -> (u64, u64) {
        let (s, r) = &self.bufs[rank];
        if in_place { (r.addr(), r.addr()) } else { (s.addr(), r.addr()) }
    }
}

impl Drop for CpuKernels {
    fn drop(&mut self) {
        if let Some(mut p) = self.proxy.take() {
            p.shutdown();
        }
    }
}

impl Backend for CpuKernels {
    fn name(&self) -> &'static str {
        "cpu-kernels"
    }
    fn nranks(&self) -> usize {
        self.nranks
    }
    fn devices(&self) -> Vec<DeviceInfo> {
        Vec::new()
    }
    fn prepare(&mut self, max_bytes: usize) -> Result<(), Error> {
        if self.bytes < max_bytes {
            self.bufs = (0..self.nranks).map(|_| (Mem::new(max_bytes), Mem::new(max_bytes))).collect();
            self.bytes = max_bytes;
        }
        Ok(())
    }
    fn set_input(&mut self, rank: usize, in_place: bool, data: &[u8]) -> Result<(), Error> {
        assert!(data.len() <= self.bytes);
        let (inp, _) = self.buffer(rank, in_place);
        // SAFETY: the buffer holds `bytes` >= data.len(); no kernel runs.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), inp as *mut u8, data.len()) };
        Ok(())
    }
    fn fill_output(&mut self, rank: usize, bytes: usize, value: u8) -> Result<(), Error> {
        assert!(bytes <= self.bytes);
        // SAFETY: as above.
        unsafe { std::ptr::write_bytes(self.bufs[rank].1.ptr, value, bytes) };
        Ok(())
    }
    fn get_output(&mut self, rank: usize, out: &mut [u8]) -> Result<(), Error> {
        assert!(out.len() <= self.bytes);
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(self.bufs[rank].1.ptr, out.as_mut_ptr(), out.len()) };
        Ok(())
    }
    fn run(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        in_place: bool,
        iters: usize,
    ) -> Result<Duration, Error> {
        assert!(count * dtype.size() <= self.bytes);
        let sched = RingSchedule::new(count, dtype.size(), self.nranks, self.nchannels, self.slot_bytes);
        let flag = &*self.abort_flag as *const AtomicU32 as u64;
        let args: Vec<KernelArgs> = (0..self.nranks)
            .map(|r| {
                let (inp, outp) = self.buffer(r, in_place);
                let chans = self.channels[r].as_ptr() as u64;
                KernelArgs::new(
                    inp,
                    outp,
                    count,
                    sched.chunk_elems,
                    self.slot_bytes,
                    chans,
                    flag,
                    self.nranks,
                    self.nchannels,
                )
            })
            .collect();
        let name = kernel_name(op, dtype);
        // SAFETY: symbols of our library with these signatures (kernels/allreduce.cu,
        // tests/kernel_cpu/runtime.cpp); every pointer in `args` is live memory of
        // this backend, and nothing else touches it while the kernels run.
        let rc = unsafe {
            let kernel: libloading::Symbol<Kernel> = self.lib.get(name.as_bytes()).expect("kernel symbol");
            let run: libloading::Symbol<RunFn> = self.lib.get(b"topo_cpu_run").expect("launcher symbol");
            // A stalled ring is stopped the way the CUDA backend stops it: the flag.
            let (done, watch) = mpsc::channel::<()>();
            let abort = flag as usize;
            let stall = self.stall;
            let watchdog = std::thread::spawn(move || {
                if watch.recv_timeout(stall).is_err() {
                    (*(abort as *const AtomicU32)).store(1, Ordering::SeqCst);
                }
            });
            let t0 = Instant::now();
            let rc = run(
                *kernel,
                args.as_ptr(),
                self.launched as i32,
                self.nchannels as i32,
                self.nthreads as i32,
                iters as i32,
            );
            let _ = done.send(());
            watchdog.join().unwrap();
            (rc, t0.elapsed())
        };
        if rc.0 != 0 {
            return Err(Error::Unavailable("the CPU launcher could not start its threads".into()));
        }
        if self.abort_flag.load(Ordering::SeqCst) != 0 {
            return Err(Error::Unavailable(format!("{name}: the ring made no progress for {:?}; aborted", self.stall)));
        }
        Ok(rc.1)
    }
}

// ---------------------------------------------------------------------------------
// The checks

/// Validate every (type, op) of `ops` on `backend` for each count, out of and in
/// place; returns what failed (case and wrong elements, or the error that stopped it).
fn sweep(backend: &mut CpuKernels, types: &[DataType], ops: &[RedOp], counts: &[usize]) -> Vec<String> {
    let max = counts.iter().max().unwrap() * 8;
    backend.prepare(max).unwrap();
    let mut failed = Vec::new();
    let mut seed = 7;
    for &t in types {
        for &op in ops {
            for &count in counts {
                for in_place in [false, true] {
                    seed += 1;
                    let case = format!(
                        "{} {} count {count} {}",
                        op.name(),
                        t.name(),
                        if in_place { "in place" } else { "out of place" }
                    );
                    match bench::validate(backend, t, op, count, in_place, seed) {
                        Ok(0) => {}
                        Ok(w) => failed.push(format!("{case}: {w} wrong")),
                        Err(e) => {
                            // A stalled ring stays stalled: stop at the first.
                            failed.push(format!("{case}: {e}"));
                            return failed;
                        }
                    }
                }
            }
        }
    }
    failed
}

#[test]
fn every_type_and_op_on_three_ranks() {
    let Some(lib) = library("every_type_and_op_on_three_ranks") else { return };
    let mut b = CpuKernels::new(lib, &Setup::new(3, 2));
    // 1003 elements: several loops of 8-slot FIFOs that wrap, chunks that end inside
    // a 16-byte vector, and a last loop shrunk over every channel and rank.
    let failed = sweep(&mut b, &DataType::ALL, &RedOp::ALL, &[1003]);
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn one_two_and_four_ranks() {
    let Some(lib) = library("one_two_and_four_ranks") else { return };
    let mut failed = Vec::new();
    for (n, nch) in [(1, 1), (2, 3), (4, 2)] {
        let mut b = CpuKernels::new(lib, &Setup::new(n, nch));
        for f in sweep(&mut b, &DataType::ALL, &[RedOp::Sum, RedOp::Avg], &[1003]) {
            failed.push(format!("{n} ranks, {nch} channels: {f}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn uneven_sizes_and_thread_counts() {
    let Some(lib) = library("uneven_sizes_and_thread_counts") else { return };
    let types = [DataType::Int8, DataType::Half, DataType::Float, DataType::Double];
    // Fewer elements than ranks x channels, one element, a vector and a bit, and
    // counts that fill whole loops exactly or not; one thread per block, an odd
    // number, and as many threads as a chunk has vectors.
    let counts = [1, 5, 17, 255, 768, 4097];
    let mut failed = Vec::new();
    for (nthreads, slot_bytes) in [(1, 64), (7, 256), (16, 1024)] {
        let mut s = Setup::new(3, 2);
        (s.nthreads, s.slot_bytes) = (nthreads, slot_bytes);
        let mut b = CpuKernels::new(lib, &s);
        for f in sweep(&mut b, &types, &[RedOp::Sum, RedOp::Max], &counts) {
            failed.push(format!("{nthreads} threads, {slot_bytes}-byte slots: {f}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn staged_edges_through_the_proxy_and_one_counter_block() {
    let Some(lib) = library("staged_edges_through_the_proxy_and_one_counter_block") else { return };
    let mut failed = Vec::new();
    let wirings: [(&str, Wiring); 3] = [
        ("every edge staged", |_, _| Edge::Staged),
        ("one edge per channel staged", |c, from| if from == c % 4 { Edge::Staged } else { Edge::P2p }),
        ("one counter block per edge", |_, _| Edge::OneBlock),
    ];
    for (what, edge) in wirings {
        let mut s = Setup::new(4, 2);
        s.edge = edge;
        let mut b = CpuKernels::new(lib, &s);
        let types = [DataType::Uint8, DataType::Int32, DataType::Bfloat16, DataType::Double];
        for f in sweep(&mut b, &types, &[RedOp::Sum, RedOp::Prod, RedOp::Min], &[1003, 33]) {
            failed.push(format!("{what}: {f}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn step_counters_carry_over_between_launches() {
    let Some(lib) = library("step_counters_carry_over_between_launches") else { return };
    let mut b = CpuKernels::new(lib, &Setup::new(3, 2));
    b.prepare(1 << 16).unwrap();
    // Back-to-back launches with different sizes move the counters on by different
    // amounts; a kernel that restarted them, or a FIFO left out of step, breaks the
    // validation after them.
    for (count, iters) in [(1003, 3), (40, 5), (5000, 2)] {
        b.run(DataType::Float, RedOp::Sum, count, false, iters).unwrap();
        let wrong = bench::validate(&mut b, DataType::Int64, RedOp::Sum, 777, false, count as u64).unwrap();
        assert_eq!(wrong, 0, "after {iters} launches of {count} floats");
    }
    let steps: Vec<u64> = b.channels.iter().flat_map(|c| c.iter().map(|a| a.send_step)).collect();
    assert!(steps.iter().all(|&s| s > 8 * FIFO_SLOTS as u64), "the FIFOs wrapped many times: {steps:?}");
}

#[test]
fn a_ring_missing_a_rank_stops_at_the_abort_flag() {
    let Some(lib) = library("a_ring_missing_a_rank_stops_at_the_abort_flag") else { return };
    let mut b = CpuKernels::new(lib, &Setup::new(3, 2));
    b.prepare(1 << 14).unwrap();
    b.launched = 2;
    b.stall = Duration::from_millis(300);
    let t0 = Instant::now();
    let e = b.run(DataType::Float, RedOp::Sum, 1003, false, 1).unwrap_err().to_string();
    assert!(e.contains("no progress"), "{e}");
    // Every thread of the two launched ranks returned: the launcher joined them.
    assert!(t0.elapsed() < Duration::from_secs(20), "the kernels took {:?} to see the flag", t0.elapsed());
}
