//! The program interpreter kernel (`kernels/msccl.cu`) on CPU threads: one OS thread per
//! CUDA thread of one CUDA block per thread block, real FIFOs and flags wired as the
//! CUDA backend wires them, over our own programs (`fixtures/msccl/`), every program
//! `topo algo make` makes (every collective x algorithm x 2 to 8 ranks) and every real
//! program of `../shared/fixtures/msccl/` that `topo algo check` passes (skipped,
//! visibly, when that folder is absent). Each run is validated against the
//! collective's definition and held byte for byte against the host interpreter's
//! output for the same inputs. Connections are P2P as the CUDA backend wires them, or
//! host-staged through a staging FIFO and the proxy thread (`StagedCopy`), as the CUDA
//! backend stages a connection between GPUs without peer access.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use libloading::Library;
use topo::algo::program::{Collective, Mode};
use topo::bench::kernel_abi::ConnArgs;
use topo::bench::program::image::{self, ConnKey, Image, MsArgs, MsBlock};
use topo::bench::program::reference::{init_inputs, validate};
use topo::bench::program::{Loaded, ProgramBackend, ProgramHost, load, reduces};
use topo::bench::proxy::{CtrlPtr, FifoCtrl, ProxyConn, ProxyThread, StagedCopy};
use topo::bench::{DataType, RedOp};
use topo::error::Error;

use super::made::{every_program, made};
use super::{LaggingCopy, Mem, library};

type MsKernel = unsafe extern "C" fn(MsArgs);
type MsRunFn = unsafe extern "C" fn(MsKernel, *const MsArgs, i32, i32, i32) -> i32;

/// A connection's memory: FIFO data, and the control blocks of `tail` (the receiver's)
/// and `head` (the sender's). A host-staged connection also has the sender's staging
/// FIFO and its one control block; its receiver then uses `tail` for both counters, as
/// the CUDA backend's staged connections do.
struct ConnMem {
    data: Mem,
    tail: Box<FifoCtrl>,
    head: Box<FifoCtrl>,
    staging: Option<(Mem, Box<FifoCtrl>)>,
}

/// Which connections are host-staged: by their index in the image and their key.
type Staging = fn(index: usize, key: &ConnKey) -> bool;

/// The kernel on CPU threads, over a [`ProgramHost`]'s buffers.
struct CpuInterp {
    lib: &'static Library,
    host: ProgramHost,
    nthreads: usize,
    images: [Option<Image>; 2],
    /// Per rank, its blocks (the kernel keeps their step counters there) and flags.
    blocks: Vec<Box<[MsBlock]>>,
    flags: Vec<Box<[u64]>>,
    conns: Vec<ConnMem>,
    fifo_bytes: usize,
    staged: Staging,
    /// The proxy moving the staged connections' slots, and the entry size it moves.
    proxy: Option<ProxyThread>,
    proxy_entry: usize,
    epoch: u64,
    abort_flag: Box<AtomicU32>,
    error: Box<AtomicU32>,
    stall: Duration,
}

impl CpuInterp {
    fn new(lib: &'static Library, loaded: Loaded, nthreads: usize) -> CpuInterp {
        let blocks = loaded.program.gpus.iter().map(|g| vec![MsBlock::default(); g.tbs.len()].into()).collect();
        let flags = loaded.program.gpus.iter().map(|g| vec![0u64; g.tbs.len()].into()).collect();
        CpuInterp {
            lib,
            host: ProgramHost::new(loaded),
            nthreads,
            images: [None, None],
            blocks,
            flags,
            conns: Vec::new(),
            fifo_bytes: 0,
            staged: |_, _| false,
            proxy: None,
            proxy_entry: 0,
            epoch: 1,
            abort_flag: Box::new(AtomicU32::new(0)),
            error: Box::new(AtomicU32::new(0)),
            stall: Duration::from_secs(60),
        }
    }

    /// The image for `mode`, and the blocks wired to FIFOs of `entries` entries of
    /// `entry` bytes; the staged connections' proxy rebuilt when the FIFO memory or
    /// the entry size changed (every entry is consumed between runs).
    fn wire(&mut self, mode: Mode, entries: usize, entry: usize) -> Result<(), Error> {
        let m = usize::from(mode == Mode::InPlace);
        if self.images[m].is_none() {
            self.images[m] = Some(image::build(&self.host.loaded, mode)?);
        }
        let im = self.images[m].as_ref().unwrap();
        let bytes = entries * entry;
        if self.conns.is_empty() || self.fifo_bytes < bytes || self.proxy_entry != entry {
            // The proxy holds the FIFOs' addresses and the entry size: stop it first.
            if let Some(mut p) = self.proxy.take() {
                p.shutdown();
            }
        }
        if self.conns.is_empty() || self.fifo_bytes < bytes {
            // Entries are all consumed between runs: new data memory keeps the counters.
            type Ctrls = (Box<FifoCtrl>, Box<FifoCtrl>, Option<Box<FifoCtrl>>);
            let old: Vec<Ctrls> = self.conns.drain(..).map(|c| (c.tail, c.head, c.staging.map(|s| s.1))).collect();
            let mut old = old.into_iter();
            for (i, key) in im.conns.iter().enumerate() {
                let (tail, head, st) = old.next().unwrap_or_default();
                let staging = (self.staged)(i, key).then(|| (Mem::new(bytes), st.unwrap_or_default()));
                self.conns.push(ConnMem { data: Mem::new(bytes), tail, head, staging });
            }
            self.fifo_bytes = bytes;
        }
        if self.proxy.is_none() && self.conns.iter().any(|c| c.staging.is_some()) {
            let mut work: Vec<Box<dyn ProxyConn>> = Vec::new();
            for c in &self.conns {
                let Some((st_data, st_ctrl)) = &c.staging else { continue };
                let mover = LaggingCopy {
                    src: st_data.addr(),
                    dst: c.data.addr(),
                    slot_bytes: entry,
                    pending: VecDeque::new(),
                };
                // SAFETY: the control blocks and FIFOs stay in `conns` until the proxy
                // is stopped (above, and in Drop).
                work.push(Box::new(unsafe {
                    StagedCopy::resume(CtrlPtr(&**st_ctrl), CtrlPtr(&*c.tail), entries, mover)
                }));
            }
            self.proxy = Some(ProxyThread::spawn(work, Arc::new(AtomicBool::new(false)), None)?);
            self.proxy_entry = entry;
        }
        let ctrl = |c: &FifoCtrl| c as *const FifoCtrl as u64;
        let conn = |c: &ConnMem, sending: bool| match &c.staging {
            None => ConnArgs { data: c.data.addr(), tail: ctrl(&c.tail), head: ctrl(&c.head) },
            Some((st_data, st_ctrl)) if sending => {
                ConnArgs { data: st_data.addr(), tail: ctrl(st_ctrl), head: ctrl(st_ctrl) }
            }
            Some(_) => ConnArgs { data: c.data.addr(), tail: ctrl(&c.tail), head: ctrl(&c.tail) },
        };
        for (r, ri) in im.ranks.iter().enumerate() {
            for (b, (blk, &(s, v))) in ri.blocks.iter().zip(&ri.ends).enumerate() {
                let k = &mut self.blocks[r][b];
                k.first_op = blk.first_op;
                k.nops = blk.nops;
                k.send = s.map(|i| conn(&self.conns[i], true)).unwrap_or_default();
                k.recv = v.map(|i| conn(&self.conns[i], false)).unwrap_or_default();
            }
        }
        Ok(())
    }
}

impl Drop for CpuInterp {
    fn drop(&mut self) {
        if let Some(mut p) = self.proxy.take() {
            p.shutdown();
        }
    }
}

impl ProgramBackend for CpuInterp {
    fn loaded(&self) -> &Loaded {
        &self.host.loaded
    }
    fn name(&self) -> &'static str {
        "cpu-interpreter-kernel"
    }
    fn set_input(&mut self, rank: usize, mode: Mode, dtype: DataType, count: usize, data: &[u8]) -> Result<(), Error> {
        self.host.set_input(rank, mode, dtype, count, data)
    }
    fn fill_output(&mut self, rank: usize, mode: Mode, dtype: DataType, count: usize, value: u8) -> Result<(), Error> {
        self.host.fill_output(rank, mode, dtype, count, value)
    }
    fn get_output(
        &mut self,
        rank: usize,
        mode: Mode,
        dtype: DataType,
        count: usize,
        out: &mut [u8],
    ) -> Result<(), Error> {
        self.host.get_output(rank, mode, dtype, count, out)
    }

    fn run(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, iters: usize) -> Result<Duration, Error> {
        let (g, ptrs) = self.host.memory(dtype, op, count, mode)?;
        if count == 0 || iters == 0 {
            return Ok(Duration::ZERO);
        }
        self.wire(mode, g.entries, g.slice_elems * dtype.size())?;
        let im = self.images[usize::from(mode == Mode::InPlace)].as_ref().unwrap();
        let n = self.host.nranks();
        let abort = &*self.abort_flag as *const AtomicU32 as u64;
        let error = &*self.error as *const AtomicU32 as u64;
        let args: Vec<MsArgs> = (0..n)
            .map(|r| {
                let ri = &im.ranks[r];
                let p = &ptrs[r];
                let mut a = MsArgs::new(&g, dtype, n, ri.blocks.len(), self.epoch);
                a.bufs = p.bufs.map(|(b, _)| b as u64);
                a.blocks = self.blocks[r].as_ptr() as u64;
                a.ops = ri.ops.as_ptr() as u64;
                a.extra = ri.extra.as_ptr() as u64;
                a.flags = self.flags[r].as_ptr() as u64;
                a.abort_flag = abort;
                a.error = error;
                if let Some((d, s)) = p.pre {
                    (a.pre_dst, a.pre_src, a.pre_count) = (d as u64, s as u64, g.send as u64);
                }
                if let Some(q) = p.post {
                    (a.post, a.post_count) = (q as u64, g.recv as u64);
                }
                a
            })
            .collect();
        let name = image::kernel_name(op, dtype);
        // SAFETY: symbols of our library with these signatures (kernels/msccl.cu,
        // tests/kernel_cpu/runtime.cpp); every pointer in `args` is live memory of this
        // backend or its host, and nothing else touches it while the kernels run.
        let (rc, t) = unsafe {
            let kernel: libloading::Symbol<MsKernel> = self.lib.get(name.as_bytes()).expect("kernel symbol");
            let run: libloading::Symbol<MsRunFn> = self.lib.get(b"topo_cpu_run_msccl").expect("launcher symbol");
            let (done, watch) = mpsc::channel::<()>();
            let stall = self.stall;
            let flag = abort as usize;
            let watchdog = std::thread::spawn(move || {
                if watch.recv_timeout(stall).is_err() {
                    (*(flag as *const AtomicU32)).store(1, Ordering::SeqCst);
                }
            });
            let t0 = Instant::now();
            let rc = run(*kernel, args.as_ptr(), n as i32, self.nthreads as i32, iters as i32);
            let _ = done.send(());
            watchdog.join().unwrap();
            (rc, t0.elapsed())
        };
        self.epoch += iters as u64;
        if rc != 0 {
            return Err(Error::Unavailable("the CPU launcher could not start its threads".into()));
        }
        let code = self.error.load(Ordering::SeqCst);
        if code != 0 {
            return Err(Error::Unavailable(format!("{name}: a block stopped with error {code}")));
        }
        if self.abort_flag.load(Ordering::SeqCst) != 0 {
            return Err(Error::Unavailable(format!("{name}: no progress for {:?}; aborted", self.stall)));
        }
        Ok(t)
    }
}

/// Programs of a folder that `topo algo check` passes, loaded.
fn valid_programs(dir: &Path) -> Vec<(String, Loaded)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            load(&std::fs::read(&p).unwrap(), &name).ok().map(|l| (name, l))
        })
        .collect()
}

/// Run one case on the kernel and on the host interpreter with the same inputs:
/// the kernel's wrong elements (against the definition) and its output bytes that
/// differ from the interpreter's, as failure lines.
fn case(
    k: &mut CpuInterp,
    h: &mut ProgramHost,
    what: &str,
    dtype: DataType,
    op: RedOp,
    count: usize,
    mode: Mode,
) -> Vec<String> {
    let seed = count as u64 * 31 + dtype.size() as u64;
    let case = format!("{what} {} {} count={count} {mode}", dtype.name(), op.name());
    let mut failed = Vec::new();
    match validate(k, dtype, op, count, mode, seed) {
        Ok(0) => {}
        Ok(w) => failed.push(format!("{case}: {w} wrong")),
        Err(e) => return vec![format!("{case}: {e}")],
    }
    // The same inputs through both, then every defined output byte compared.
    let op = if reduces(k.loaded().coll()) { op } else { RedOp::Sum };
    let g = k.loaded().geometry(dtype, count).unwrap();
    let both: [&mut dyn ProgramBackend; 2] = [&mut *k, &mut *h];
    let mut outs: Vec<Vec<Vec<u8>>> = Vec::new();
    for b in both {
        let r = init_inputs(b, dtype, op, count, mode, seed + 1).and_then(|_| b.run(dtype, op, count, mode, 1));
        if let Err(e) = r {
            return vec![format!("{case}: {} run: {e}", b.name())];
        }
        let ranks: Vec<usize> = if b.loaded().coll() == Collective::Reduce {
            vec![b.loaded().root as usize]
        } else {
            (0..b.nranks()).collect()
        };
        outs.push(
            ranks
                .into_iter()
                .map(|r| {
                    let mut v = vec![0u8; g.recv * dtype.size()];
                    b.get_output(r, mode, dtype, count, &mut v).unwrap();
                    v
                })
                .collect(),
        );
    }
    let differ: usize =
        outs[0].iter().zip(&outs[1]).map(|(a, b)| a.iter().zip(b).filter(|(x, y)| x != y).count()).sum();
    if differ > 0 {
        failed.push(format!("{case}: {differ} output bytes differ from the host interpreter's"));
    }
    failed
}

/// Every type and (for the collectives that reduce) operator at the smallest count the
/// program runs for, then larger and odd sizes: about 1 KiB, 40 KiB (several LL
/// windows) and `big` bytes per rank.
/// Returns the cases run and the failures.
fn sweep(lib: &'static Library, name: &str, loaded: Loaded, big: usize) -> (usize, Vec<String>) {
    let blocks: usize = loaded.program.gpus.iter().map(|g| g.tbs.len()).sum();
    // OS threads outnumber the cores many times over on the large programs.
    let nthreads = if blocks > 128 { 1 } else { 3 };
    let modes = loaded.program.header.modes();
    let unit = loaded.count_unit();
    let ops: &[RedOp] = if reduces(loaded.coll()) { &RedOp::ALL } else { &[RedOp::Sum] };
    let mut h = ProgramHost::new(loaded.clone());
    let mut k = CpuInterp::new(lib, loaded, nthreads);
    let mut failed = Vec::new();
    let mut cases = Vec::new();
    for &mode in &modes {
        for dtype in DataType::ALL {
            for &op in ops {
                cases.push((dtype, op, unit, mode));
            }
        }
        for (dtype, bytes) in [(DataType::Int8, 1000), (DataType::Half, 40_000), (DataType::Float, big)] {
            let count = (bytes / dtype.size() / unit).max(1) * unit;
            cases.push((dtype, RedOp::Sum, count, mode));
            cases.push((dtype, RedOp::Max, count + unit, mode));
        }
    }
    for &(dtype, op, count, mode) in &cases {
        failed.extend(case(&mut k, &mut h, name, dtype, op, count, mode));
    }
    (cases.len(), failed)
}

#[test]
fn our_programs_run_on_the_interpreter_kernel_with_0_wrong() {
    let Some(lib) = library("msccl::our_programs_run_on_the_interpreter_kernel_with_0_wrong") else { return };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/msccl");
    let programs = valid_programs(&dir);
    assert!(programs.len() >= 10, "{} valid programs in fixtures/msccl", programs.len());
    let mut failed = Vec::new();
    let (mut ran, mut cases) = (0, 0);
    for (name, loaded) in programs {
        let (n, f) = sweep(lib, &name, loaded, 1 << 20);
        (ran, cases) = (ran + 1, cases + n);
        failed.extend(f);
    }
    assert!(failed.is_empty(), "{failed:#?}");
    eprintln!("{ran} programs, {cases} cases on the kernel, 0 wrong, as the host interpreter");
}

/// Every program `topo algo make` makes (every collective x algorithm x 2 to 8 ranks,
/// as `tests/bench_program.rs` makes them for the host interpreter) on the kernel: in
/// every mode its header declares, an odd int8 count, an odd half count and a float
/// size over several chunks a rank, the operators in turn over the programs (every
/// type and operator at the smallest count is the ignored test below), each run
/// validated and held byte for byte against the host interpreter.
#[test]
fn every_made_program_runs_on_the_interpreter_kernel_with_0_wrong() {
    let Some(lib) = library("msccl::every_made_program_runs_on_the_interpreter_kernel_with_0_wrong") else {
        return;
    };
    let (mut ran, mut cases, mut failed) = (0, 0, Vec::new());
    for (k, (coll, algo, n)) in every_program().into_iter().enumerate() {
        let loaded = made(coll, algo, n).expect("a program");
        let name = format!("{coll} {} {n} ranks", algo.name());
        let blocks: usize = loaded.program.gpus.iter().map(|g| g.tbs.len()).sum();
        let unit = loaded.count_unit();
        let modes = loaded.program.header.modes();
        let ops: &[RedOp] = if reduces(coll) { &RedOp::ALL } else { &[RedOp::Sum] };
        let mut h = ProgramHost::new(loaded.clone());
        let mut kern = CpuInterp::new(lib, loaded, if blocks > 128 { 1 } else { 2 });
        for (i, (dtype, bytes)) in
            [(DataType::Int8, 37), (DataType::Half, 2 * 41), (DataType::Float, 24_000)].into_iter().enumerate()
        {
            let count = (bytes / dtype.size() / unit).max(1) * unit + unit * (i % 2);
            let op = ops[(k + i) % ops.len()];
            for &mode in &modes {
                failed.extend(case(&mut kern, &mut h, &name, dtype, op, count, mode));
                cases += 1;
            }
        }
        ran += 1;
    }
    assert!(ran > 150, "{ran} programs");
    assert!(failed.is_empty(), "{failed:#?}");
    eprintln!("{ran} made programs, {cases} cases on the kernel, 0 wrong, as the host interpreter");
}

/// The same programs with every type and operator at the smallest count, and larger
/// and odd sizes up to 1 MiB a rank (the sweep of the real programs above).
#[test]
#[ignore = "minutes: cargo test --release --test kernel_cpu -- --ignored msccl::every_made"]
fn every_made_program_every_type_and_op_on_the_interpreter_kernel() {
    let Some(lib) = library("msccl::every_made_program_every_type_and_op_on_the_interpreter_kernel") else {
        return;
    };
    let (mut ran, mut cases, mut failed) = (0, 0, Vec::new());
    for (coll, algo, n) in every_program() {
        let name = format!("{coll} {} {n} ranks", algo.name());
        let (c, f) = sweep(lib, &name, made(coll, algo, n).expect("a program"), 1 << 20);
        (ran, cases) = (ran + 1, cases + c);
        failed.extend(f);
    }
    assert!(failed.is_empty(), "{failed:#?}");
    eprintln!("{ran} made programs, {cases} cases on the kernel, 0 wrong, as the host interpreter");
}

#[test]
fn every_valid_shared_program_runs_on_the_interpreter_kernel_with_0_wrong() {
    let test = "msccl::every_valid_shared_program_runs_on_the_interpreter_kernel_with_0_wrong";
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/msccl");
    if !dir.is_dir() {
        super::common::skip(test, &format!("{} is absent", dir.display()));
        return;
    }
    let Some(lib) = library(test) else { return };
    let programs = valid_programs(&dir);
    assert!(!programs.is_empty(), "no valid program in {}", dir.display());
    let mut failed = Vec::new();
    let (mut ran, mut cases) = (0, 0);
    for (name, loaded) in programs {
        let (n, f) = sweep(lib, &name, loaded, 256 << 10);
        (ran, cases) = (ran + 1, cases + n);
        failed.extend(f);
    }
    assert!(failed.is_empty(), "{failed:#?}");
    eprintln!("{ran} programs, {cases} cases on the kernel, 0 wrong, as the host interpreter");
}

#[test]
fn a_program_missing_a_rank_stops_at_the_abort_flag() {
    let Some(lib) = library("msccl::a_program_missing_a_rank_stops_at_the_abort_flag") else { return };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/msccl");
    let text = std::fs::read(dir.join("allreduce-ring-4.xml")).unwrap();
    let mut k = CpuInterp::new(lib, load(&text, "allreduce-ring-4.xml").unwrap(), 2);
    k.stall = Duration::from_millis(300);
    // A rank's blocks with no operations: its neighbours wait for ever.
    k.wire(Mode::OutOfPlace, 4, 1 << 14).unwrap();
    let im = k.images[0].as_mut().unwrap();
    for b in &mut im.ranks[2].blocks {
        b.nops = 0;
    }
    let e = k.run(DataType::Float, RedOp::Sum, 4 * 1000, Mode::OutOfPlace, 1).unwrap_err().to_string();
    assert!(e.contains("no progress"), "{e}");
}

/// Connections host-staged through the proxy thread, as the CUDA backend stages those
/// between GPUs without peer access: every connection, then one in two (the others
/// P2P), over a ring allreduce, an allgather, an alltoall, a reduce chain and a made
/// two-node hierarchical allreduce; five types at the smallest count (every operator
/// in turn) and odd sizes over several entries, each run validated and held byte for
/// byte against the host interpreter.
#[test]
fn host_staged_connections_through_the_proxy_with_0_wrong() {
    let Some(lib) = library("msccl::host_staged_connections_through_the_proxy_with_0_wrong") else { return };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/msccl");
    let mut programs: Vec<(String, Loaded)> =
        ["allreduce-ring-4.xml", "allgather-ring-4.xml", "alltoall-direct-4.xml", "reduce-chain-4.xml"]
            .into_iter()
            .map(|f| (f.to_string(), load(&std::fs::read(dir.join(f)).unwrap(), f).unwrap()))
            .collect();
    let hier = topo::algo::make::Algo::Hierarchical;
    programs.push(("allreduce hierarchical 4 ranks".into(), made(Collective::AllReduce, hier, 4).unwrap()));
    let wirings: [(&str, Staging); 2] =
        [("every connection staged", |_, _| true), ("one in two staged", |i, _| i % 2 == 0)];
    let (mut cases, mut staged, mut failed) = (0, 0, Vec::new());
    for (name, loaded) in programs {
        let unit = loaded.count_unit();
        let modes = loaded.program.header.modes();
        let ops: &[RedOp] = if reduces(loaded.coll()) { &RedOp::ALL } else { &[RedOp::Sum] };
        let mut h = ProgramHost::new(loaded.clone());
        for (what, wiring) in wirings {
            let mut k = CpuInterp::new(lib, loaded.clone(), 2);
            k.staged = wiring;
            let what = format!("{name}, {what}");
            let mut runs = Vec::new();
            let types = [DataType::Uint8, DataType::Int32, DataType::Half, DataType::Bfloat16, DataType::Double];
            for (i, dtype) in types.into_iter().enumerate() {
                runs.push((dtype, ops[i % ops.len()], unit));
            }
            for (dtype, bytes) in [(DataType::Int8, 1001), (DataType::Half, 2 * 4001), (DataType::Float, 40_000)] {
                runs.push((dtype, RedOp::Sum, (bytes / dtype.size() / unit).max(1) * unit + unit));
            }
            for &mode in &modes {
                for &(dtype, op, count) in &runs {
                    failed.extend(case(&mut k, &mut h, &what, dtype, op, count, mode));
                    cases += 1;
                }
            }
            let n = k.conns.iter().filter(|c| c.staging.is_some()).count();
            assert!(n > 0 && n * 2 >= k.conns.len(), "{what}: {n} of {} connections staged", k.conns.len());
            staged += n;
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    eprintln!("10 wirings, {staged} staged connections, {cases} cases on the kernel, 0 wrong, as the host interpreter");
}
