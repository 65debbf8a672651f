//! The host backend: the CUDA backend's ring protocol on CPU threads.
//!
//! One thread per rank and channel plays the part of the channel's CTA: it walks the
//! [`RingSchedule`], waits on the FIFO counters, combines and copies slots with
//! vectorisable slice loops, and publishes its counters. Host-staged edges go through
//! a staging FIFO and the [`ProxyThread`], as on the device. Threads are persistent: a
//! run posts a job (a number of back-to-back collectives, like kernels queued on a
//! stream) and waits until every thread has finished it.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::dtype::{DataType, Elem, OP_AVG, RedOp, Scalars, combine, finish, own, with_elem, with_op};
use super::plan::{Plan, Transport};
use super::proxy::{Backoff, CtrlPtr, FIFO_SLOTS, FifoCtrl, ProxyConn, ProxyThread, SlotMover, StagedCopy, Waiter};
use super::schedule::RingSchedule;
use super::{Backend, DeviceInfo};
use crate::error::Error;

/// Default FIFO slot size of the host backend: large steps keep the synchronisation
/// rare, and eight of them per connection still fit the last-level cache.
pub const DEFAULT_SLOT_BYTES: usize = 512 * 1024;

/// A zeroed, 64-byte aligned byte buffer shared between threads through raw pointers.
pub(crate) struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the buffer is plain memory; every concurrent access goes through raw
// pointers ordered by the FIFO counters.
unsafe impl Send for AlignedBuf {}
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    pub fn zeroed(len: usize) -> Result<AlignedBuf, Error> {
        let layout = Layout::from_size_align(len.max(64), 64)
            .map_err(|e| Error::Usage(format!("buffer of {len} bytes: {e}")))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) })
            .ok_or_else(|| Error::Unavailable(format!("out of memory allocating {len} bytes")))?;
        Ok(AlignedBuf { ptr, layout })
    }
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    pub fn len(&self) -> usize {
        self.layout.size()
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `zeroed`.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// A FIFO in host memory, with the threads that wait on its two counters.
struct HostFifo {
    ctrl: Box<FifoCtrl>,
    data: AlignedBuf,
    slot_bytes: usize,
    /// Waits for `tail` (the receiver, or the proxy for a staging FIFO).
    tail_waiter: Arc<Waiter>,
    /// Waits for `head` (the sender, or the proxy for a proxy-fed FIFO).
    head_waiter: Arc<Waiter>,
}

impl HostFifo {
    fn new(slot_bytes: usize, tail_waiter: Arc<Waiter>, head_waiter: Arc<Waiter>) -> Result<HostFifo, Error> {
        Ok(HostFifo {
            ctrl: Box::default(),
            data: AlignedBuf::zeroed(slot_bytes * FIFO_SLOTS)?,
            slot_bytes,
            tail_waiter,
            head_waiter,
        })
    }
    fn slot(&self, step: u64) -> *mut u8 {
        // SAFETY: the offset stays inside the FIFO's data.
        unsafe { self.data.as_ptr().add((step % FIFO_SLOTS as u64) as usize * self.slot_bytes) }
    }
}

/// The proxy's mover for the host backend: a memcpy between the two FIFOs.
struct HostCopy {
    src: *const u8,
    dst: *mut u8,
    slot_bytes: usize,
    /// The receiver (waits for the destination's tail) and the sender (waits for the
    /// staging FIFO's head).
    wake: [Arc<Waiter>; 2],
}
// SAFETY: both FIFOs outlive the proxy thread (it is joined before they are freed).
unsafe impl Send for HostCopy {}

impl SlotMover for HostCopy {
    fn start(&mut self, slot: usize, bytes: usize) -> Result<(), Error> {
        if bytes > self.slot_bytes {
            return Err(Error::Unavailable(format!(
                "proxy: slot of {bytes} bytes is larger than the FIFO's {}",
                self.slot_bytes
            )));
        }
        // SAFETY: both slots are inside their FIFOs and the counters give the proxy
        // exclusive use of them until it publishes the new tail and head.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.src.add(slot * self.slot_bytes),
                self.dst.add(slot * self.slot_bytes),
                bytes,
            )
        };
        Ok(())
    }

    fn published(&mut self) {
        self.wake.iter().for_each(|w| w.wake());
    }
}

// ---------------------------------------------------------------------------------
// Step kernels

/// The buffers one step touches (null when unused).
struct StepPtrs {
    out: *mut u8,
    send: *mut u8,
    recv: *const u8,
    input: *const u8,
}

type StepFn = unsafe fn(&StepPtrs, usize, &Scalars);

/// The step kernels of one (type, operator).
#[derive(Clone, Copy)]
struct Kernels {
    /// send = own(input)
    send_own: StepFn,
    /// send = recv (op) own(input)
    reduce_send: StepFn,
    /// send = finish(recv (op) own(input)); `input` may be the output (in place)
    finish_send: StepFn,
    /// out = finish(own(input)) (one rank)
    single_oop: StepFn,
    /// out = finish(own(out)) (one rank, in place)
    single_ip: StepFn,
    esize: usize,
}

unsafe fn sl<'a, T>(p: *const u8, len: usize) -> &'a [T] {
    unsafe { std::slice::from_raw_parts(p as *const T, len) }
}
#[allow(clippy::mut_from_ref)]
unsafe fn sl_mut<'a, T>(p: *mut u8, len: usize) -> &'a mut [T] {
    unsafe { std::slice::from_raw_parts_mut(p as *mut T, len) }
}

unsafe fn k_send_own<T: Elem, const OP: u8>(p: &StepPtrs, len: usize, k: &Scalars) {
    let (dst, src) = unsafe { (sl_mut::<T>(p.send, len), sl::<T>(p.input, len)) };
    if OP == OP_AVG && T::FLOAT {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = own::<T, OP>(*s, k);
        }
    } else {
        dst.copy_from_slice(src);
    }
}

unsafe fn k_reduce_send<T: Elem, const OP: u8>(p: &StepPtrs, len: usize, k: &Scalars) {
    let (dst, a, b) = unsafe { (sl_mut::<T>(p.send, len), sl::<T>(p.recv, len), sl::<T>(p.input, len)) };
    for ((d, a), b) in dst.iter_mut().zip(a).zip(b) {
        *d = combine::<T, OP>(*a, own::<T, OP>(*b, k));
    }
}

unsafe fn k_finish_send<T: Elem, const OP: u8>(p: &StepPtrs, len: usize, k: &Scalars) {
    let (send, a, b) = unsafe { (sl_mut::<T>(p.send, len), sl::<T>(p.recv, len), sl::<T>(p.input, len)) };
    for ((s, a), b) in send.iter_mut().zip(a).zip(b) {
        *s = finish::<T, OP>(combine::<T, OP>(*a, own::<T, OP>(*b, k)), k);
    }
}

unsafe fn k_single_oop<T: Elem, const OP: u8>(p: &StepPtrs, len: usize, k: &Scalars) {
    let (out, src) = unsafe { (sl_mut::<T>(p.out, len), sl::<T>(p.input, len)) };
    for (o, s) in out.iter_mut().zip(src) {
        *o = finish::<T, OP>(own::<T, OP>(*s, k), k);
    }
}

unsafe fn k_single_ip<T: Elem, const OP: u8>(p: &StepPtrs, len: usize, k: &Scalars) {
    let out = unsafe { sl_mut::<T>(p.out, len) };
    for o in out.iter_mut() {
        *o = finish::<T, OP>(own::<T, OP>(*o, k), k);
    }
}

fn kernels_for<T: Elem, const OP: u8>() -> Kernels {
    Kernels {
        send_own: k_send_own::<T, OP>,
        reduce_send: k_reduce_send::<T, OP>,
        finish_send: k_finish_send::<T, OP>,
        single_oop: k_single_oop::<T, OP>,
        single_ip: k_single_ip::<T, OP>,
        esize: std::mem::size_of::<T>(),
    }
}

fn kernels(dtype: DataType, op: RedOp) -> Kernels {
    with_elem!(dtype, T => with_op!(op, OP => kernels_for::<T, OP>()))
}

// ---------------------------------------------------------------------------------
// Threads

#[derive(Clone, Copy)]
struct Ptr(*mut u8);
// SAFETY: each rank's buffers are touched only by that rank's threads, each thread
// on its own chunks.
unsafe impl Send for Ptr {}
unsafe impl Sync for Ptr {}

struct Job {
    count: usize,
    iters: usize,
    nranks_scalars: Scalars,
    kernels: Kernels,
    inputs: Vec<Ptr>,
    outputs: Vec<Ptr>,
}

#[derive(Default)]
struct Control {
    generation: u64,
    job: Option<Arc<Job>>,
    remaining: usize,
    shutdown: bool,
}

struct Shared {
    nranks: usize,
    nchannels: usize,
    slot_bytes: usize,
    /// `[c * n + r]`: the FIFO rank `r` receives on in channel `c`.
    recv_fifos: Vec<HostFifo>,
    /// `[c * n + r]`: rank `r`'s staging FIFO in channel `c` when its edge is staged.
    staging: Vec<Option<HostFifo>>,
    /// `[c * n + r]`: ring position and next rank.
    pos: Vec<usize>,
    next: Vec<usize>,
    /// `[c * n + r]`: the thread of rank `r` in channel `c`.
    waiters: Vec<Arc<Waiter>>,
    ctl: Mutex<Control>,
    start: Condvar,
    done: Condvar,
    abort: Arc<AtomicBool>,
    error: Mutex<Option<Error>>,
    /// More rank threads (and proxy) than cores.
    oversubscribed: bool,
}

/// The host backend.
pub struct HostBackend {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    proxy: Option<ProxyThread>,
    /// Per rank: send buffer, receive buffer.
    bufs: Vec<(AlignedBuf, AlignedBuf)>,
    staged_edges: usize,
}

impl HostBackend {
    /// Threads and FIFOs for `plan`, with FIFO slots of `slot_bytes`.
    pub fn new(plan: &Plan, slot_bytes: usize) -> Result<HostBackend, Error> {
        plan.validate()?;
        let n = plan.nranks;
        let nch = plan.channels.len();
        let slot_bytes = slot_bytes.max(64) / 16 * 16;
        let mut recv_fifos = Vec::with_capacity(nch * n);
        let mut staging = Vec::with_capacity(nch * n);
        let mut pos = vec![0; nch * n];
        let mut next = vec![0; nch * n];
        let waiters: Vec<Arc<Waiter>> = (0..nch * n).map(|_| Arc::new(Waiter::default())).collect();
        let proxy_waiter = Arc::new(Waiter::default());
        for (c, ch) in plan.channels.iter().enumerate() {
            for r in 0..n {
                let p = ch.position(r).ok_or_else(|| Error::Usage(format!("rank {r} missing from channel {c}")))?;
                pos[c * n + r] = p;
                next[c * n + r] = ch.order[(p + 1) % n];
                let prev = ch.order[(p + n - 1) % n];
                let fed_by_proxy = n > 1 && plan.transport(prev, r) == Transport::HostStaged;
                let head_waiter = if fed_by_proxy { proxy_waiter.clone() } else { waiters[c * n + prev].clone() };
                recv_fifos.push(HostFifo::new(slot_bytes, waiters[c * n + r].clone(), head_waiter)?);
                let staged = n > 1 && plan.transport(r, next[c * n + r]) == Transport::HostStaged;
                staging.push(if staged {
                    Some(HostFifo::new(slot_bytes, proxy_waiter.clone(), waiters[c * n + r].clone())?)
                } else {
                    None
                });
            }
        }
        let abort = Arc::new(AtomicBool::new(false));
        let staging_any = staging.iter().any(Option::is_some);
        let shared = Arc::new(Shared {
            nranks: n,
            nchannels: nch,
            slot_bytes,
            recv_fifos,
            staging,
            pos,
            next,
            waiters,
            ctl: Mutex::new(Control::default()),
            start: Condvar::new(),
            done: Condvar::new(),
            abort: abort.clone(),
            error: Mutex::new(None),
            oversubscribed: nch * n + usize::from(staging_any)
                > std::thread::available_parallelism().map_or(1, |c| c.get()),
        });

        let mut conns: Vec<Box<dyn ProxyConn>> = Vec::new();
        for i in 0..nch * n {
            if let Some(st) = &shared.staging[i] {
                let c = i / n;
                let dst = &shared.recv_fifos[c * n + shared.next[i]];
                let wake = [dst.tail_waiter.clone(), st.head_waiter.clone()];
                let mover = HostCopy { src: st.data.as_ptr(), dst: dst.data.as_ptr(), slot_bytes, wake };
                // SAFETY: `shared` (holding both FIFOs) outlives the proxy: `Drop` joins
                // the proxy thread first.
                conns.push(Box::new(unsafe { StagedCopy::new(CtrlPtr(&*st.ctrl), CtrlPtr(&*dst.ctrl), mover) }));
            }
        }
        let staged_edges = conns.len();
        let proxy = if conns.is_empty() { None } else { Some(ProxyThread::spawn(conns, abort, Some(proxy_waiter))?) };

        let mut workers = Vec::with_capacity(nch * n);
        for c in 0..nch {
            for r in 0..n {
                let sh = shared.clone();
                let h = std::thread::Builder::new()
                    .name(format!("topo-rank{r}-ch{c}"))
                    .spawn(move || worker(sh, r, c))
                    .map_err(|e| Error::Unavailable(format!("cannot start a rank thread: {e}")))?;
                workers.push(h);
            }
        }
        Ok(HostBackend { shared, workers, proxy, bufs: Vec::new(), staged_edges })
    }

    /// Number of edges (per channel) moved by the proxy thread.
    pub fn staged_edges(&self) -> usize {
        self.staged_edges
    }

    /// Run `iters` allreduces back to back on caller-provided buffers (one input and
    /// one output per rank; the same pointer for in place) and return the wall time.
    ///
    /// # Safety
    /// Every pointer must be valid for `count` elements of `dtype` and stay untouched
    /// by the caller until this returns; inputs and outputs of different ranks must
    /// not overlap, and an output must not partly overlap its rank's input.
    pub unsafe fn allreduce_raw(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        iters: usize,
    ) -> Result<Duration, Error> {
        let sh = &self.shared;
        if sh.abort.load(Ordering::Relaxed) {
            return Err(self.failure());
        }
        if inputs.len() != sh.nranks || outputs.len() != sh.nranks {
            return Err(Error::Usage(format!("{} ranks but {} buffers", sh.nranks, inputs.len())));
        }
        let job = Arc::new(Job {
            count,
            iters,
            nranks_scalars: Scalars::new(sh.nranks),
            kernels: kernels(dtype, op),
            inputs: inputs.iter().map(|&p| Ptr(p as *mut u8)).collect(),
            outputs: outputs.iter().map(|&p| Ptr(p)).collect(),
        });
        let t0 = Instant::now();
        let mut ctl = sh.ctl.lock().unwrap_or_else(|p| p.into_inner());
        ctl.generation += 1;
        ctl.job = Some(job);
        ctl.remaining = sh.nranks * sh.nchannels;
        sh.start.notify_all();
        while ctl.remaining > 0 {
            ctl = sh.done.wait(ctl).unwrap_or_else(|p| p.into_inner());
        }
        let elapsed = t0.elapsed();
        ctl.job = None;
        drop(ctl);
        if sh.abort.load(Ordering::Relaxed) {
            return Err(self.failure());
        }
        Ok(elapsed)
    }

    fn failure(&self) -> Error {
        if let Some(e) = self.proxy.as_ref().and_then(|p| p.take_error()) {
            return e;
        }
        self.shared.error.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_else(|| {
            Error::Unavailable("host backend: an earlier run failed; the ring is no longer usable".into())
        })
    }

    fn buffers(&self, rank: usize, in_place: bool) -> (*const u8, *mut u8) {
        let (s, r) = &self.bufs[rank];
        if in_place { (r.as_ptr(), r.as_ptr()) } else { (s.as_ptr(), r.as_ptr()) }
    }
}

impl Drop for HostBackend {
    fn drop(&mut self) {
        {
            let mut ctl = self.shared.ctl.lock().unwrap_or_else(|p| p.into_inner());
            ctl.shutdown = true;
            self.shared.start.notify_all();
        }
        self.shared.abort.store(true, Ordering::Relaxed);
        for h in self.workers.drain(..) {
            h.thread().unpark();
            let _ = h.join();
        }
        if let Some(mut p) = self.proxy.take() {
            p.shutdown();
        }
    }
}

impl Backend for HostBackend {
    fn name(&self) -> &'static str {
        "host"
    }

    fn nranks(&self) -> usize {
        self.shared.nranks
    }

    fn devices(&self) -> Vec<DeviceInfo> {
        (0..self.shared.nranks)
            .map(|r| DeviceInfo {
                rank: r,
                device: r,
                bus: "host".into(),
                name: format!("CPU threads ({} channel(s)), host backend", self.shared.nchannels),
            })
            .collect()
    }

    fn prepare(&mut self, max_bytes: usize) -> Result<(), Error> {
        if self.bufs.first().is_some_and(|(s, _)| s.len() >= max_bytes) {
            return Ok(());
        }
        self.bufs.clear();
        for _ in 0..self.shared.nranks {
            self.bufs.push((AlignedBuf::zeroed(max_bytes)?, AlignedBuf::zeroed(max_bytes)?));
        }
        Ok(())
    }

    fn set_input(&mut self, rank: usize, in_place: bool, data: &[u8]) -> Result<(), Error> {
        let (inp, _) = self.buffers(rank, in_place);
        check_len(data.len(), self.bufs[rank].0.len())?;
        // SAFETY: the buffer holds at least `data.len()` bytes and no job runs.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), inp as *mut u8, data.len()) };
        Ok(())
    }

    fn fill_output(&mut self, rank: usize, bytes: usize, value: u8) -> Result<(), Error> {
        check_len(bytes, self.bufs[rank].1.len())?;
        // SAFETY: as above.
        unsafe { std::ptr::write_bytes(self.bufs[rank].1.as_ptr(), value, bytes) };
        Ok(())
    }

    fn get_output(&mut self, rank: usize, out: &mut [u8]) -> Result<(), Error> {
        check_len(out.len(), self.bufs[rank].1.len())?;
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(self.bufs[rank].1.as_ptr(), out.as_mut_ptr(), out.len()) };
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
        let n = self.shared.nranks;
        check_len(count * dtype.size(), self.bufs.first().map_or(0, |b| b.0.len()))?;
        let (inputs, outputs): (Vec<_>, Vec<_>) = (0..n).map(|r| self.buffers(r, in_place)).unzip();
        // SAFETY: the buffers are ours, large enough, distinct per rank.
        unsafe { self.allreduce_raw(dtype, op, count, &inputs, &outputs, iters) }
    }
}

fn check_len(need: usize, have: usize) -> Result<(), Error> {
    if need > have {
        return Err(Error::Usage(format!("{need} bytes do not fit the {have}-byte buffers (call prepare first)")));
    }
    Ok(())
}

/// Running counters of one rank thread.
struct Steps {
    send: u64,
    recv: u64,
}

fn worker(sh: Arc<Shared>, rank: usize, channel: usize) {
    sh.waiters[channel * sh.nranks + rank].register_current();
    let mut seen = 0u64;
    let mut steps = Steps { send: 0, recv: 0 };
    loop {
        let job = {
            let mut ctl = sh.ctl.lock().unwrap_or_else(|p| p.into_inner());
            while !ctl.shutdown && ctl.generation == seen {
                ctl = sh.start.wait(ctl).unwrap_or_else(|p| p.into_inner());
            }
            if ctl.shutdown {
                return;
            }
            seen = ctl.generation;
            ctl.job.clone()
        };
        if let Some(job) = job {
            for _ in 0..job.iters {
                if let Err(e) = collective(&sh, rank, channel, &job, &mut steps) {
                    let mut slot = sh.error.lock().unwrap_or_else(|p| p.into_inner());
                    if slot.is_none() {
                        *slot = Some(e);
                    }
                    sh.abort.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        let mut ctl = sh.ctl.lock().unwrap_or_else(|p| p.into_inner());
        ctl.remaining -= 1;
        if ctl.remaining == 0 {
            sh.done.notify_all();
        }
    }
}

/// Wait until `ready()`, sleeping on `waiter` if it takes long; fails when the run is
/// aborted or stalls.
#[inline]
fn wait(sh: &Shared, waiter: &Waiter, ready: impl Fn() -> bool, what: impl Fn() -> String) -> Result<(), Error> {
    let mut b = if sh.oversubscribed { Backoff::oversubscribed() } else { Backoff::new() };
    while !ready() {
        if sh.abort.load(Ordering::Relaxed) {
            return Err(Error::Unavailable(format!("host backend aborted while {}", what())));
        }
        if let Err(t) = b.snooze(Some(waiter), &ready) {
            return Err(Error::Unavailable(format!("host backend stalled for {:.0?} while {}", t, what())));
        }
    }
    Ok(())
}

/// One allreduce as seen by one rank in one channel.
fn collective(sh: &Shared, rank: usize, c: usize, job: &Job, st: &mut Steps) -> Result<(), Error> {
    let n = sh.nranks;
    let kern = &job.kernels;
    let es = kern.esize;
    let k = &job.nranks_scalars;
    let sched = RingSchedule::new(job.count, es, n, sh.nchannels, sh.slot_bytes);
    let pos = sh.pos[c * n + rank];
    let recv_fifo = &sh.recv_fifos[c * n + rank];
    let send_fifo = match &sh.staging[c * n + rank] {
        Some(f) => f,
        None => &sh.recv_fifos[c * n + sh.next[c * n + rank]],
    };
    let input = job.inputs[rank].0 as *const u8;
    let output = job.outputs[rank].0;
    let in_place = std::ptr::eq(input, output);
    // Large outputs bypass the caches (like memcpy does), small ones stay in them.
    let out_copy: unsafe fn(*mut u8, *const u8, usize) =
        if job.count * es >= STREAM_MIN_BYTES { stream_copy } else { plain_copy };
    for l in 0..sched.nloops() {
        let lp = sched.loop_at(l);
        for s in 0..sched.nsteps() {
            let step = sched.step(s);
            let (off, len) = sched.chunk_range(lp, c, sched.chunk_at(pos, s));
            // SAFETY: `off <= count`, inside the caller's buffers.
            let mut p = unsafe {
                StepPtrs {
                    out: output.add(off * es),
                    send: std::ptr::null_mut(),
                    recv: std::ptr::null(),
                    input: input.add(off * es),
                }
            };
            if step.recv {
                let want = st.recv;
                wait(
                    sh,
                    &recv_fifo.tail_waiter,
                    || recv_fifo.ctrl.tail.load(Ordering::SeqCst) > want,
                    || format!("rank {rank} channel {c} waited for slot {want} from its previous rank"),
                )?;
                p.recv = recv_fifo.slot(want);
            }
            if step.send {
                let want = st.send;
                wait(
                    sh,
                    &send_fifo.head_waiter,
                    || send_fifo.ctrl.head.load(Ordering::SeqCst) + FIFO_SLOTS as u64 > want,
                    || format!("rank {rank} channel {c} waited for a free slot {want} at its next rank"),
                )?;
                p.send = send_fifo.slot(want);
            }
            // SAFETY: the pointers cover `len` elements each: user chunks inside the
            // buffers, FIFO slots of `slot_bytes >= chunk bytes`; the counters give
            // this thread exclusive use of both slots. Results are computed into the
            // send slot (in cache) and then streamed to the output.
            unsafe {
                match (step.recv, step.reduce, step.finish, step.send) {
                    (false, _, _, true) => (kern.send_own)(&p, len, k),
                    (false, _, _, false) if in_place => (kern.single_ip)(&p, len, k),
                    (false, _, _, false) => (kern.single_oop)(&p, len, k),
                    (true, true, false, _) => (kern.reduce_send)(&p, len, k),
                    (true, _, true, _) => {
                        (kern.finish_send)(&p, len, k);
                        out_copy(p.out, p.send, len * es);
                    }
                    (true, false, false, send) => {
                        if send {
                            std::ptr::copy_nonoverlapping(p.recv, p.send, len * es);
                        }
                        out_copy(p.out, p.recv, len * es);
                    }
                }
            }
            if step.send {
                let slot = (st.send % FIFO_SLOTS as u64) as usize;
                send_fifo.ctrl.sizes[slot].store((len * es) as u64, Ordering::Relaxed);
                st.send += 1;
                send_fifo.ctrl.tail.store(st.send, Ordering::SeqCst);
                send_fifo.tail_waiter.wake();
            }
            if step.recv {
                st.recv += 1;
                recv_fifo.ctrl.head.store(st.recv, Ordering::SeqCst);
                recv_fifo.head_waiter.wake();
            }
        }
    }
    store_fence();
    Ok(())
}

/// Messages from this size on are written to the output with non-temporal stores.
const STREAM_MIN_BYTES: usize = 4 << 20;

unsafe fn plain_copy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, n) }
}

/// Copy with non-temporal stores: the output is not read again by this thread, so
/// writing around the caches saves the read-for-ownership traffic.
#[cfg(target_arch = "x86_64")]
unsafe fn stream_copy(dst: *mut u8, src: *const u8, n: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    // SAFETY: `dst` and `src` are valid for `n` bytes (the caller's); stores go to
    // 16-byte aligned addresses only.
    unsafe {
        let head = dst.align_offset(16).min(n);
        std::ptr::copy_nonoverlapping(src, dst, head);
        let mut i = head;
        while i + 64 <= n {
            for j in (0..64).step_by(16) {
                let v = _mm_loadu_si128(src.add(i + j) as *const __m128i);
                _mm_stream_si128(dst.add(i + j) as *mut __m128i, v);
            }
            i += 64;
        }
        while i + 16 <= n {
            _mm_stream_si128(dst.add(i) as *mut __m128i, _mm_loadu_si128(src.add(i) as *const __m128i));
            i += 16;
        }
        std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), n - i);
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn stream_copy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's.
    unsafe { plain_copy(dst, src, n) }
}

/// Order the non-temporal stores before anything published after them.
fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Check the host backend against [`dtype::fill_expected`] for one configuration;
/// returns the number of wrong elements over all ranks. Used by tests.
pub fn check_once(
    backend: &mut HostBackend,
    dtype: DataType,
    op: RedOp,
    count: usize,
    in_place: bool,
    seed: u64,
) -> Result<u64, Error> {
    super::validate(backend, dtype, op, count, in_place, seed)
}

#[cfg(test)]
mod tests;
