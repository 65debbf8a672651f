//! HCCL-style streams run literally on host threads: `topo algo plan`'s task lists
//! executed on real data, so that the plan and the MSCCL-IR program of one algorithm
//! can be held against each other.
//!
//! * every rank's main stream and each sub-stream is one OS thread running its tasks in
//!   order, `iters` times back to back;
//! * a notify is a one-shot semaphore: `Post` sets it, `Wait` waits for it and resets
//!   it. A Post on a notify that is still set would lose a signal on the real hardware:
//!   the run stops with an error naming the task;
//! * link handshakes are the peer's notifies: `TxAck(p)` posts p's Ack notify from this
//!   rank and `RxAck(p)` waits for this rank's Ack notify from p; DataSignal and DataAck
//!   likewise;
//! * copies are memmoves between the ranks' buffers (UserIn, UserOut, CCL_In, CCL_Out,
//!   Scratch); reduces combine into their destination under a lock of that buffer, as a
//!   copy engine's inline reduce is atomic at the memory;
//! * a wait with no progress for the timeout stops the run, naming every rank, stream
//!   and task left waiting.
//!
//! * an RDMA write between nodes is a copy into the peer's buffer, like a copy engine's
//!   (the host has one memory; the handshakes around it are the link's notifies).
//!
//! Plans of several nodes run whole: level 0 in each node, level 1 among the same-index
//! GPUs of every node, every rank a set of threads.

pub mod enqueue;
pub mod fake;
pub mod kernel;
pub mod sweep;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::algo::plan::{Buf, BufRef, Coll, Plan, Span, Stream, Task};
use crate::algo::program::{Collective, Mode};
use crate::bench::dtype::{self, Elem, Scalars, combine, finish, own};
use crate::bench::host::AlignedBuf;
use crate::bench::{DataType, RedOp};
use crate::error::Error;

/// How long a wait may see no progress before the run is stopped.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The MSCCL-IR collective of a plan's.
pub fn collective(c: Coll) -> Collective {
    match c {
        Coll::AllGather => Collective::AllGather,
        Coll::ReduceScatter => Collective::ReduceScatter,
        Coll::AllReduce => Collective::AllReduce,
    }
}

/// Whether the collective reduces.
pub fn reduces(c: Coll) -> bool {
    c != Coll::AllGather
}

/// The five buffers in a fixed order.
const BUFS: [Buf; 5] = [Buf::UserIn, Buf::UserOut, Buf::CclIn, Buf::CclOut, Buf::Scratch];

fn buf_index(b: Buf) -> usize {
    match b {
        Buf::UserIn => 0,
        Buf::UserOut => 1,
        Buf::CclIn => 2,
        Buf::CclOut => 3,
        Buf::Scratch => 4,
    }
}

/// A one-shot semaphore.
#[derive(Default)]
struct Notify {
    set: Mutex<bool>,
    cv: Condvar,
}

/// What names a notify: a rank's own (by name), or a link's (kind: 0 Ack, 1 DataSignal,
/// 2 DataAck; from, to).
#[derive(PartialEq, Eq, Hash)]
enum Key {
    Own(usize, String),
    Link(u8, usize, usize),
}

/// A task ready to run: buffers resolved to pointers, notifies to indices.
#[derive(Clone, Copy)]
enum Op {
    Copy { src: *const u8, dst: *mut u8, bytes: usize },
    Reduce { src: *const u8, dst: *mut u8, elems: usize, lock: usize },
    Post(usize),
    Wait(usize),
}

/// One thread's work.
struct Thread {
    rank: usize,
    stream: String,
    tasks: Vec<Task>,
    ops: Vec<Op>,
    /// The plan's index of each op's task (a planted bug leaves one out).
    at: Vec<usize>,
    /// The stream's index on its rank (0: main).
    index: usize,
    main: bool,
}

// SAFETY: the pointers are into buffers that outlive the run; the plan's notifies order
// every access to a region another thread writes (a plan that does not is what the
// validation finds).
unsafe impl Send for Thread {}
unsafe impl Sync for Thread {}

/// One rank's memory: the user's buffers (one when in place), CCL_In, CCL_Out, Scratch,
/// and the staging copy a floating `avg` pre-multiplies the input into.
struct RankMem {
    user_in: AlignedBuf,
    user_out: AlignedBuf,
    ccl_in: AlignedBuf,
    ccl_out: AlignedBuf,
    scratch: AlignedBuf,
    staging: AlignedBuf,
}

/// What runs the streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exec {
    /// One host thread per stream, notifies as semaphores.
    Threads,
    /// The device path's enqueue order on the [`fake::FakeDevice`] (streams interleaved
    /// by `seed`); `ignore_waits` plants the bug of waits bound to nothing.
    Fake { seed: u64, ignore_waits: bool },
    /// The device path on [`StreamsHost::device`] (a GPU).
    Device,
}

/// A plan with its buffers: what `topo bench COLL --streams` runs on the host.
pub struct StreamsHost {
    pub plan: Plan,
    /// Ranks, every node's.
    n: usize,
    mem: Vec<RankMem>,
    pub timeout: Duration,
    pub exec: Exec,
    /// The fake device's reduce of (type, operator, src, dst, elements) when set (the
    /// CPU-compiled `kernels/streams.cu` in tests/kernel_cpu); else the host's.
    pub device_reduce: Option<DeviceReduce>,
    /// The device [`Exec::Device`] runs on.
    pub device: Option<Box<dyn enqueue::Device>>,
}

/// A reduce kernel as the fake device runs it.
pub type DeviceReduce = std::sync::Arc<dyn Fn(DataType, RedOp, *const u8, *mut u8, usize) + Send + Sync>;

/// Elements of the send and receive buffers of one rank for a per-rank `count`.
pub fn sizes(coll: Coll, n: usize, count: usize) -> (usize, usize) {
    match coll {
        Coll::AllGather => (count, n * count),
        Coll::ReduceScatter => (n * count, count),
        Coll::AllReduce => (count, count),
    }
}

impl StreamsHost {
    /// A plan ready to run (buffers are made at the first run).
    pub fn new(plan: Plan) -> Result<StreamsHost, Error> {
        let n = plan.ranks.len();
        Ok(StreamsHost {
            n,
            plan,
            mem: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            exec: Exec::Threads,
            device_reduce: None,
            device: None,
        })
    }

    pub fn nranks(&self) -> usize {
        self.n
    }

    pub fn coll(&self) -> Coll {
        self.plan.coll
    }

    /// Element offset of slice `k` for a per-rank `count`: a rank's share for allgather
    /// and reducescatter, 1/n of the buffer (floored) for allreduce over n ranks.
    fn slice_start(&self, count: usize, k: usize) -> usize {
        match self.plan.coll {
            Coll::AllReduce => k * count / self.n,
            _ => k * count,
        }
    }

    fn ensure(&mut self, dtype: DataType, count: usize) -> Result<(), Error> {
        let ts = dtype.size();
        let (s, r) = sizes(self.plan.coll, self.n, count);
        let big = s.max(r) * ts;
        for q in 0..self.n {
            if self.mem.len() <= q || self.mem[q].ccl_in.len() < big {
                let b = big.next_power_of_two();
                let m = RankMem {
                    user_in: AlignedBuf::zeroed(b)?,
                    user_out: AlignedBuf::zeroed(b)?,
                    ccl_in: AlignedBuf::zeroed(b)?,
                    ccl_out: AlignedBuf::zeroed(b)?,
                    scratch: AlignedBuf::zeroed(b)?,
                    staging: AlignedBuf::zeroed(b)?,
                };
                if self.mem.len() <= q {
                    self.mem.push(m);
                } else {
                    self.mem[q] = m;
                }
            }
        }
        Ok(())
    }

    /// The user's send (`recv` false) or receive buffer of rank `q` in `mode`: pointer
    /// and elements. In place, nccl-tests' aliasing: allgather sends from its share of
    /// the receive buffer, reducescatter receives into its share of the send buffer.
    fn user(&self, q: usize, mode: Mode, dtype: DataType, count: usize, recv: bool) -> (*mut u8, usize) {
        let ts = dtype.size();
        let (s, r) = sizes(self.plan.coll, self.n, count);
        let m = &self.mem[q];
        let len = if recv { r } else { s };
        let p = match (mode, recv) {
            (Mode::OutOfPlace, false) => m.user_in.as_ptr(),
            (Mode::OutOfPlace, true) => m.user_out.as_ptr(),
            (Mode::InPlace, _) => {
                let shift = match (self.plan.coll, recv) {
                    (Coll::AllGather, false) | (Coll::ReduceScatter, true) => q * count * ts,
                    _ => 0,
                };
                // SAFETY: the buffer holds n * count elements.
                unsafe { m.user_out.as_ptr().add(shift) }
            }
        };
        (p, len)
    }

    /// Each buffer of rank `q` as the tasks see it: pointer and elements.
    fn regions(&self, q: usize, mode: Mode, dtype: DataType, op: RedOp, count: usize) -> [(*mut u8, usize); 5] {
        let (s, r) = sizes(self.plan.coll, self.n, count);
        let big = s.max(r);
        let m = &self.mem[q];
        let mut input = self.user(q, mode, dtype, count, false);
        if premultiplies(self.plan.coll, dtype, op) && mode == Mode::OutOfPlace {
            input.0 = m.staging.as_ptr();
        }
        [
            input,
            self.user(q, mode, dtype, count, true),
            (m.ccl_in.as_ptr(), big),
            (m.ccl_out.as_ptr(), big),
            (m.scratch.as_ptr(), big),
        ]
    }

    /// The threads of a run, every task resolved, and the notifies they share.
    fn threads(
        &self,
        mode: Mode,
        dtype: DataType,
        op: RedOp,
        count: usize,
        skip: Option<(usize, usize, usize)>,
    ) -> Result<(Vec<Thread>, usize), Error> {
        let ts = dtype.size();
        let regions: Vec<_> = (0..self.n).map(|q| self.regions(q, mode, dtype, op, count)).collect();
        // Every notify by what names it: a rank's own by name, a link's by kind and ends.
        let mut notifies: HashMap<Key, usize> = HashMap::new();
        let mut out = Vec::new();
        for (q, rp) in self.plan.ranks.iter().enumerate() {
            for (si, st) in rp.streams.iter().enumerate() {
                let Stream { name, tasks, .. } = st;
                let mut ops = Vec::with_capacity(tasks.len());
                let mut at_task = Vec::with_capacity(tasks.len());
                for (ti, t) in tasks.iter().enumerate() {
                    if skip == Some((q, si, ti)) {
                        continue;
                    }
                    let place = |what: &str| format!("rank {q} {name} task {} ({t}): {what}", ti + 1);
                    let mut index = |k: Key| {
                        let next = notifies.len();
                        *notifies.entry(k).or_insert(next)
                    };
                    let mut link = |kind: u8, from: usize, to: usize| index(Key::Link(kind, from, to));
                    let op = match t {
                        Task::Post(x) => Op::Post(index(Key::Own(q, x.clone()))),
                        Task::Wait(x) => Op::Wait(index(Key::Own(q, x.clone()))),
                        Task::TxAck(p) => Op::Post(link(0, q, *p as usize)),
                        Task::RxAck(p) => Op::Wait(link(0, *p as usize, q)),
                        Task::TxDataSignal(p) => Op::Post(link(1, q, *p as usize)),
                        Task::RxDataSignal(p) => Op::Wait(link(1, *p as usize, q)),
                        Task::TxDataAck(p) => Op::Post(link(2, q, *p as usize)),
                        Task::RxDataAck(p) => Op::Wait(link(2, *p as usize, q)),
                        Task::Copy { src, dst, span }
                        | Task::Reduce { src, dst, span }
                        | Task::RdmaWrite { src, dst, span } => {
                            let (a, b) = (self.slice_start(count, span.first as usize), span_end(self, count, *span));
                            let len = b - a;
                            let at = |r: &BufRef| -> Result<(*mut u8, usize), Error> {
                                let owner = r.rank.map_or(q, |p| p as usize);
                                let Some(reg) = regions.get(owner) else {
                                    return Err(Error::Usage(place(&format!("rank {owner} is not in the plan"))));
                                };
                                let (base, cap) = reg[buf_index(r.buf)];
                                let off = self.slice_start(count, r.off.slice() as usize);
                                if off + len > cap {
                                    return Err(Error::Usage(place(&format!(
                                        "{r} with {len} elements runs past the buffer's {cap}"
                                    ))));
                                }
                                // SAFETY: within the buffer, checked above.
                                Ok((unsafe { base.add(off * ts) }, owner * BUFS.len() + buf_index(r.buf)))
                            };
                            let ((s, _), (dp, lock)) = (at(src)?, at(dst)?);
                            if matches!(t, Task::Reduce { .. }) {
                                Op::Reduce { src: s, dst: dp, elems: len, lock }
                            } else {
                                Op::Copy { src: s, dst: dp, bytes: len * ts }
                            }
                        }
                    };
                    ops.push(op);
                    at_task.push(ti);
                }
                let stream = name.clone();
                out.push(Thread { rank: q, stream, tasks: tasks.clone(), ops, at: at_task, index: si, main: si == 0 });
            }
        }
        Ok((out, notifies.len()))
    }

    /// Run `iters` collectives back to back; the wall time from the moment every thread
    /// is ready until the last one is done.
    pub fn run(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        mode: Mode,
        iters: usize,
    ) -> Result<Duration, Error> {
        self.run_skipping(dtype, op, count, mode, iters, None)
    }

    /// [`Self::run`] with task `skip` (rank, stream, task index) left out: a planted bug.
    pub fn run_skipping(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        mode: Mode,
        iters: usize,
        skip: Option<(usize, usize, usize)>,
    ) -> Result<Duration, Error> {
        self.ensure(dtype, count)?;
        if count == 0 || iters == 0 {
            return Ok(Duration::ZERO);
        }
        let (threads, notifies) = self.threads(mode, dtype, op, count, skip)?;
        let scal = Scalars::new(self.n);
        let avg: Vec<Avg> = (0..self.n)
            .map(|q| {
                let (s, r) = sizes(self.plan.coll, self.n, count);
                let input = self.user(q, mode, dtype, count, false).0;
                let staged = self.regions(q, mode, dtype, op, count)[0].0;
                Avg {
                    pre: premultiplies(self.plan.coll, dtype, op).then_some((input, staged, s)),
                    post: (reduces(self.plan.coll) && op == RedOp::Avg && !dtype.is_float())
                        .then_some((self.user(q, mode, dtype, count, true).0, r)),
                }
            })
            .collect();
        if self.exec != Exec::Threads {
            let order = enqueue::order(&threads, notifies, dtype.size())
                .map_err(|message| Error::Input { file: self.plan.machine.clone(), message })?;
            let ranks: Vec<usize> = threads.iter().map(|t| t.rank).collect();
            let done = dtype::with_elem!(dtype, T => dtype::with_op!(op, OP => {
                avg.iter().for_each(|a| pre_scale::<T, OP>(a, &scal));
                let r = match self.exec {
                    Exec::Fake { seed, ignore_waits } => {
                        let reduce: fake::ReduceFn = match self.device_reduce.clone() {
                            Some(k) => Box::new(move |s, d, n| k(dtype, op, s, d, n)),
                            // SAFETY: the fake device passes buffers of `n` elements of `T`.
                            None => Box::new(|s, d, n| unsafe { reduce_into::<T, OP>(s, d, n) }),
                        };
                        let mut dev = fake::FakeDevice::new(seed, reduce);
                        dev.ignore_waits = ignore_waits;
                        self.run_device(&mut dev, &ranks, &order, dtype, op, iters)
                    }
                    _ => match self.device.take() {
                        Some(mut dev) => {
                            let r = self.run_device(dev.as_mut(), &ranks, &order, dtype, op, iters);
                            self.device = Some(dev);
                            r
                        }
                        None => Err("no device to run on".to_string()),
                    },
                };
                avg.iter().for_each(|a| post_scale::<T, OP>(a, &scal));
                r
            }));
            return done.map_err(|message| Error::Input { file: self.plan.machine.clone(), message });
        }
        let locks: Vec<Mutex<()>> = (0..self.n * BUFS.len()).map(|_| Mutex::new(())).collect();
        let sh = Shared {
            notifies: (0..notifies).map(|_| Notify::default()).collect(),
            locks,
            abort: AtomicBool::new(false),
            error: Mutex::new(None),
            stuck: Mutex::new(Vec::new()),
            timeout: self.timeout,
            barrier: Barrier::new(threads.len() + 1),
            done: Barrier::new(threads.len() + 1),
        };
        let start = dtype::with_elem!(dtype, T => dtype::with_op!(op, OP => {
            std::thread::scope(|sc| {
                for t in &threads {
                    let (sh, avg, scal) = (&sh, &avg[t.rank], &scal);
                    sc.spawn(move || {
                        sh.barrier.wait();
                        for _ in 0..iters {
                            if !run_thread::<T, OP>(t, sh, avg, scal) {
                                break;
                            }
                        }
                        sh.done.wait();
                    });
                }
                sh.barrier.wait();
                let start = Instant::now();
                sh.done.wait();
                start.elapsed()
            })
        }));
        let error = sh.error.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut stuck = sh.stuck.into_inner().unwrap_or_else(|e| e.into_inner());
        let message = match error {
            Some(e) => e,
            None if stuck.is_empty() => return Ok(start),
            None => {
                stuck.sort();
                let shown: Vec<&str> = stuck.iter().take(6).map(|s| s.2.as_str()).collect();
                let more = if stuck.len() > 6 { format!(" and {} more", stuck.len() - 6) } else { String::new() };
                format!(
                    "no progress in {} s, the plan deadlocks: waiting {}{more}",
                    self.timeout.as_secs_f64(),
                    shown.join("; ")
                )
            }
        };
        Err(Error::Input { file: self.plan.machine.clone(), message })
    }

    /// Run `order` on `dev`: every rank's buffers mirrored on the device (uploaded,
    /// the commands' host pointers mapped to their device addresses), `iters`
    /// collectives timed from the first enqueue to the device's end, the receive
    /// buffers read back.
    fn run_device(
        &self,
        dev: &mut dyn enqueue::Device,
        ranks: &[usize],
        order: &enqueue::Order,
        dtype: DataType,
        op: RedOp,
        iters: usize,
    ) -> Result<Duration, String> {
        let mut regions = Vec::new();
        for (q, m) in self.mem.iter().enumerate() {
            let bufs = [&m.user_in, &m.user_out, &m.ccl_in, &m.ccl_out, &m.scratch, &m.staging];
            for (b, buf) in bufs.into_iter().enumerate() {
                let addr = dev.alloc(q, b, buf.len())?;
                // SAFETY: the buffer's own bytes.
                dev.upload(addr, unsafe { std::slice::from_raw_parts(buf.as_ptr(), buf.len()) })?;
                regions.push((buf.as_ptr() as usize, buf.len(), addr));
            }
        }
        let mirror = enqueue::Mirror::new(regions);
        let cmds = order.cmds.iter().map(|&(s, c)| Ok((s, mirror.cmd(c)?))).collect::<Result<Vec<_>, String>>()?;
        let order = enqueue::Order { cmds, events: order.events };
        dev.prepare(ranks, order.events, dtype, op)?;
        let start = Instant::now();
        enqueue::run(dev, &order, iters)?;
        let took = start.elapsed();
        for m in &self.mem {
            let out = &m.user_out;
            let addr = mirror.map(out.as_ptr() as usize, out.len())?;
            // SAFETY: the buffer's own bytes; no thread runs.
            dev.download(addr, unsafe { std::slice::from_raw_parts_mut(out.as_ptr(), out.len()) })?;
        }
        Ok(took)
    }

    /// Put `data` at the start of rank `q`'s send buffer.
    pub fn set_input(&mut self, q: usize, mode: Mode, dtype: DataType, count: usize, data: &[u8]) -> Result<(), Error> {
        self.ensure(dtype, count)?;
        let (p, len) = self.user(q, mode, dtype, count, false);
        let n = data.len().min(len * dtype.size());
        // SAFETY: the region holds `len` elements.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, n) };
        Ok(())
    }

    /// Fill rank `q`'s receive buffer with `value`.
    pub fn fill_output(&mut self, q: usize, mode: Mode, dtype: DataType, count: usize, value: u8) -> Result<(), Error> {
        self.ensure(dtype, count)?;
        let (p, len) = self.user(q, mode, dtype, count, true);
        // SAFETY: the region holds `len` elements.
        unsafe { std::ptr::write_bytes(p, value, len * dtype.size()) };
        Ok(())
    }

    /// Read rank `q`'s receive buffer.
    pub fn get_output(
        &mut self,
        q: usize,
        mode: Mode,
        dtype: DataType,
        count: usize,
        out: &mut [u8],
    ) -> Result<(), Error> {
        self.ensure(dtype, count)?;
        let (p, len) = self.user(q, mode, dtype, count, true);
        let n = out.len().min(len * dtype.size());
        // SAFETY: the region holds `len` elements.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), n) };
        Ok(())
    }
}

fn span_end(h: &StreamsHost, count: usize, s: Span) -> usize {
    h.slice_start(count, (s.first + s.n) as usize)
}

/// Whether floating `avg` pre-multiplies the inputs by 1/n.
fn premultiplies(coll: Coll, dtype: DataType, op: RedOp) -> bool {
    reduces(coll) && op == RedOp::Avg && dtype.is_float()
}

/// A rank's avg scalings: pre-multiply (input, staged copy, elements) before its main
/// stream's first task, post-divide (output, elements) after its last.
struct Avg {
    pre: Option<(*mut u8, *mut u8, usize)>,
    post: Option<(*mut u8, usize)>,
}

// SAFETY: only the rank's main stream thread touches these, before and after the tasks.
unsafe impl Send for Avg {}
unsafe impl Sync for Avg {}

struct Shared {
    notifies: Vec<Notify>,
    /// One lock per (rank, buffer), held by reduces.
    locks: Vec<Mutex<()>>,
    abort: AtomicBool,
    error: Mutex<Option<String>>,
    /// The waits a deadlock stopped: (rank, stream index, text).
    stuck: Mutex<Vec<(usize, usize, String)>>,
    timeout: Duration,
    barrier: Barrier,
    done: Barrier,
}

impl Shared {
    fn fail(&self, msg: String) {
        let mut e = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if e.is_none() {
            *e = Some(msg);
        }
        self.abort.store(true, Ordering::SeqCst);
    }
}

/// One pass over a thread's tasks; false when the run was stopped.
fn run_thread<T: Elem, const OP: u8>(t: &Thread, sh: &Shared, avg: &Avg, k: &Scalars) -> bool {
    if t.main {
        pre_scale::<T, OP>(avg, k);
    }
    for (&i, op) in t.at.iter().zip(&t.ops) {
        match *op {
            Op::Copy { src, dst, bytes } => {
                // SAFETY: both in bounds (checked when resolved); may overlap in place.
                unsafe { std::ptr::copy(src, dst, bytes) };
            }
            Op::Reduce { src, dst, elems, lock } => {
                let _g = sh.locks[lock].lock().unwrap_or_else(|e| e.into_inner());
                let (s, d) = (src as *const T, dst as *mut T);
                for e in 0..elems {
                    // SAFETY: both in bounds (checked when resolved).
                    unsafe { d.add(e).write(combine::<T, OP>(d.add(e).read(), s.add(e).read())) };
                }
            }
            Op::Post(n) => {
                let nt = &sh.notifies[n];
                let mut set = nt.set.lock().unwrap_or_else(|e| e.into_inner());
                if *set {
                    sh.fail(format!(
                        "rank {} {} task {} ({}): posts a notify that is still set; the signal would be lost",
                        t.rank,
                        t.stream,
                        i + 1,
                        describe(t, i)
                    ));
                    return false;
                }
                *set = true;
                nt.cv.notify_all();
            }
            Op::Wait(n) => {
                let nt = &sh.notifies[n];
                let began = Instant::now();
                let mut set = nt.set.lock().unwrap_or_else(|e| e.into_inner());
                while !*set {
                    let stop = sh.abort.load(Ordering::SeqCst);
                    if stop || began.elapsed() >= sh.timeout {
                        drop(set);
                        let me = format!("rank {} {} task {} ({})", t.rank, t.stream, i + 1, describe(t, i));
                        sh.stuck.lock().unwrap_or_else(|e| e.into_inner()).push((t.rank, t.index, me));
                        sh.abort.store(true, Ordering::SeqCst);
                        return false;
                    }
                    set = nt.cv.wait_timeout(set, Duration::from_millis(20)).unwrap_or_else(|e| e.into_inner()).0;
                }
                *set = false;
            }
        }
    }
    if t.main {
        post_scale::<T, OP>(avg, k);
    }
    true
}

/// A rank's avg pre-multiply, before its main stream's first task.
fn pre_scale<T: Elem, const OP: u8>(avg: &Avg, k: &Scalars) {
    if let Some((input, staged, n)) = avg.pre {
        let (s, d) = (input as *const T, staged as *mut T);
        for i in 0..n {
            // SAFETY: both hold `n` elements; nothing else touches them yet.
            unsafe { d.add(i).write(own::<T, OP>(s.add(i).read(), k)) };
        }
    }
}

/// A rank's avg post-divide, after its main stream's last task.
fn post_scale<T: Elem, const OP: u8>(avg: &Avg, k: &Scalars) {
    if let Some((out, n)) = avg.post {
        let d = out as *mut T;
        for i in 0..n {
            // SAFETY: `n` elements; the main stream's last wait covered the sub-streams.
            unsafe { d.add(i).write(finish::<T, OP>(d.add(i).read(), k)) };
        }
    }
}

/// Reduce `elems` elements of `src` into `dst` (the fake device's reduce kernel).
///
/// # Safety
/// Both hold `elems` elements of `T`.
unsafe fn reduce_into<T: Elem, const OP: u8>(src: *const u8, dst: *mut u8, elems: usize) {
    let (s, d) = (src as *const T, dst as *mut T);
    for e in 0..elems {
        // SAFETY: the caller's promise.
        unsafe { d.add(e).write(combine::<T, OP>(d.add(e).read(), s.add(e).read())) };
    }
}

/// The task an op came from, as the plan prints it.
fn describe(t: &Thread, i: usize) -> String {
    t.tasks.get(i).map_or_else(|| "?".into(), |x| x.to_string())
}
