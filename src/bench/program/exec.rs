//! The interpreter proper: thread blocks as threads, connections as bounded FIFOs of
//! slices, one dependency flag per thread block.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::{Geometry, Loaded, phys_index};
use crate::algo::lower::Op;
use crate::algo::program::{Mode, Slot, StepKind};
use crate::bench::dtype::{Elem, Scalars, combine, finish, own};
use crate::bench::host::AlignedBuf;
use crate::bench::proxy::Waiter;
use crate::error::Error;

/// One rank's memory as the threads see it.
pub struct RankPtrs {
    /// Physical input, output and scratch: base pointer and length in elements.
    pub bufs: [(*mut u8, usize); 3],
    /// Floating `avg`: pre-multiply `send` elements from the second pointer into the first.
    pub pre: Option<(*mut u8, *mut u8)>,
    /// Integer `avg`: divide the receive buffer at this pointer once the program is done.
    pub post: Option<*mut u8>,
}

// SAFETY: the pointers are into buffers that outlive the run; threads of one rank touch
// disjoint element ranges between their synchronisations (the checker found no race),
// and those synchronisations (FIFO counters, flags, barriers) are release/acquire.
unsafe impl Send for RankPtrs {}
unsafe impl Sync for RankPtrs {}

/// A connection's FIFO: `entries` slices of `slice_elems` elements.
struct Fifo {
    /// Slices posted by the sender, and freed by the receiver.
    tail: AtomicU64,
    head: AtomicU64,
    /// Elements in each entry, so that a receiver sees a size disagreement.
    lens: Box<[AtomicUsize]>,
    data: *mut u8,
}

// SAFETY: `data` points into a buffer of the pool that outlives the run; an entry is
// written by the sender before it publishes `tail` and read by the receiver after it
// sees it (release/acquire), and reused only after the receiver publishes `head`.
unsafe impl Sync for Fifo {}

/// A barrier that gives up when the run aborts; the last to arrive wakes the members
/// (global block indices) that sleep at it.
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
    members: Vec<usize>,
}

impl SpinBarrier {
    fn new(n: usize, members: Vec<usize>) -> SpinBarrier {
        SpinBarrier { n, count: AtomicUsize::new(0), generation: AtomicUsize::new(0), members }
    }

    /// Wait as block `me` (global index), or as the main thread (`None`, which never
    /// sleeps on a waiter).
    fn wait(&self, sh: &Shared<'_>, me: Option<usize>) -> Result<(), Error> {
        let g = self.generation.load(Ordering::SeqCst);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::SeqCst);
            for &m in &self.members {
                sh.waiters[m].wake();
            }
            return Ok(());
        }
        sh.wait(me, || self.generation.load(Ordering::SeqCst) != g, || "at a barrier".into())
    }
}

/// How long a wait may last before the run is declared stuck.
const STALL_LIMIT: Duration = Duration::from_secs(60);
/// Yields before a wait goes to sleep.
const YIELDS: u32 = 8;

/// The value a flag holds once (collective `w`, iteration `it`, step `step`) is published.
fn flag(w: usize, it: usize, step: u32) -> u64 {
    ((w as u64) << 40) | ((it as u64) << 16) | (u64::from(step) + 1)
}

struct Shared<'a> {
    loaded: &'a Loaded,
    g: &'a Geometry,
    mode: Mode,
    ranks: &'a [RankPtrs],
    fifos: Vec<Fifo>,
    /// Per FIFO: the sending and the receiving block (global indices), woken when the
    /// other side publishes.
    ends: Vec<(usize, usize)>,
    /// Per rank, per thread block (index in the GPU's blocks).
    flags: Vec<Vec<AtomicU64>>,
    /// Per rank, per thread block: the blocks that wait on its flag (global indices).
    dependents: Vec<Vec<Vec<usize>>>,
    /// Per rank: the kernel boundary between back-to-back collectives.
    barriers: Vec<SpinBarrier>,
    go: SpinBarrier,
    abort: AtomicBool,
    scalars: Scalars,
    /// Per block (global index): where it sleeps when a wait lasts.
    waiters: Vec<Waiter>,
    /// More blocks than cores: waits go to sleep almost at once.
    oversubscribed: bool,
}

impl Shared<'_> {
    /// Wake block `ix` if it sleeps (a FIFO's end that no block holds is `usize::MAX`).
    fn wake(&self, ix: usize) {
        if let Some(w) = self.waiters.get(ix) {
            w.wake();
        }
    }

    /// Wait until `ready()` as block `me`: spin (hardly at all when the blocks outnumber
    /// the cores), yield a few times, then sleep until a publisher wakes it (every
    /// publish of a counter, flag or barrier this block can wait on wakes it; a sleep
    /// also ends by itself after half a millisecond). Thread blocks usually outnumber
    /// the cores many times over: a waiting block must leave them to the ones that can
    /// progress, and be back as soon as it can. Publishers store with `SeqCst` and
    /// `ready` loads with `SeqCst`, as [`Waiter`] requires. The main thread (`None`)
    /// naps instead of sleeping on a waiter.
    fn wait(&self, me: Option<usize>, ready: impl Fn() -> bool, what: impl Fn() -> String) -> Result<(), Error> {
        let spin = if self.oversubscribed { 8 } else { 64 };
        let (mut round, mut since) = (0u32, None::<Instant>);
        while !ready() {
            if self.abort.load(Ordering::Relaxed) {
                return Err(Error::Unavailable(format!("program run aborted while {}", what())));
            }
            round = round.saturating_add(1);
            if round <= spin {
                std::hint::spin_loop();
                continue;
            }
            if round <= spin + YIELDS {
                std::thread::yield_now();
                continue;
            }
            match me {
                Some(i) => self.waiters[i].sleep(&ready),
                None => std::thread::sleep(Duration::from_micros(10)),
            }
            let t = since.get_or_insert_with(Instant::now).elapsed();
            if t > STALL_LIMIT {
                self.abort.store(true, Ordering::Relaxed);
                for w in &self.waiters {
                    w.wake();
                }
                return Err(Error::Unavailable(format!("program run stalled for {t:.0?} while {}", what())));
            }
        }
        Ok(())
    }
}

/// A thread block's place: rank, block index, its global index, its FIFOs.
#[derive(Clone, Copy)]
struct Block {
    rank: usize,
    tb: usize,
    ix: usize,
    send: Option<usize>,
    recv: Option<usize>,
}

pub(crate) fn run<T: Elem, const OP: u8>(
    loaded: &Loaded,
    g: &Geometry,
    mode: Mode,
    ranks: &[RankPtrs],
    iters: usize,
    pool: &mut Vec<AlignedBuf>,
) -> Result<Duration, Error> {
    let mut conn_ix: BTreeMap<(u32, u32, u32), usize> = BTreeMap::new();
    let mut blocks = Vec::new();
    let mut base = Vec::new();
    for (r, gpu) in loaded.program.gpus.iter().enumerate() {
        base.push(blocks.len());
        for (ti, t) in gpu.tbs.iter().enumerate() {
            let mut ix = |k: (u32, u32, u32)| {
                let next = conn_ix.len();
                *conn_ix.entry(k).or_insert(next)
            };
            let send = t.send.map(|to| ix((t.chan, gpu.id, to)));
            let recv = t.recv.map(|from| ix((t.chan, from, gpu.id)));
            blocks.push(Block { rank: r, tb: ti, ix: blocks.len(), send, recv });
        }
    }
    let mut ends = vec![(usize::MAX, usize::MAX); conn_ix.len()];
    for b in &blocks {
        if let Some(f) = b.send {
            ends[f].0 = b.ix;
        }
        if let Some(f) = b.recv {
            ends[f].1 = b.ix;
        }
    }
    // Who waits on whose flag, among the blocks of a rank.
    let mut dependents: Vec<Vec<Vec<usize>>> =
        loaded.program.gpus.iter().map(|gp| vec![Vec::new(); gp.tbs.len()]).collect();
    for b in &blocks {
        let gpu = &loaded.program.gpus[b.rank];
        for op in &loaded.lowered[b.rank].tbs[b.tb] {
            for d in &op.waits {
                if let Some(t) = gpu.tbs.iter().position(|t| t.id == d.tb)
                    && !dependents[b.rank][t].contains(&b.ix)
                {
                    dependents[b.rank][t].push(b.ix);
                }
            }
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let entry_bytes = g.slice_elems * std::mem::size_of::<T>();
    // FIFO memory is kept between runs: touching fresh pages would cost more than the
    // collective itself.
    for i in 0..conn_ix.len() {
        if pool.len() <= i {
            pool.push(AlignedBuf::zeroed(entry_bytes * g.entries)?);
        } else if pool[i].len() < entry_bytes * g.entries {
            pool[i] = AlignedBuf::zeroed(entry_bytes * g.entries)?;
        }
    }
    let fifos: Vec<Fifo> = pool[..conn_ix.len()]
        .iter()
        .map(|buf| Fifo {
            tail: AtomicU64::new(0),
            head: AtomicU64::new(0),
            lens: (0..g.entries).map(|_| AtomicUsize::new(0)).collect(),
            data: buf.as_ptr(),
        })
        .collect();
    let sh = Shared {
        loaded,
        g,
        mode,
        ranks,
        fifos,
        ends,
        flags: loaded.program.gpus.iter().map(|gp| gp.tbs.iter().map(|_| AtomicU64::new(0)).collect()).collect(),
        dependents,
        barriers: loaded
            .program
            .gpus
            .iter()
            .enumerate()
            .map(|(r, gp)| SpinBarrier::new(gp.tbs.len(), (base[r]..base[r] + gp.tbs.len()).collect()))
            .collect(),
        go: SpinBarrier::new(blocks.len() + 1, (0..blocks.len()).collect()),
        abort: AtomicBool::new(false),
        scalars: Scalars::new(loaded.nranks()),
        waiters: (0..blocks.len()).map(|_| Waiter::default()).collect(),
        oversubscribed: blocks.len() > cores,
    };
    std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(blocks.len());
        for &b in &blocks {
            let sh = &sh;
            let spawned = std::thread::Builder::new()
                .name(format!("r{}tb{}", b.rank, b.tb))
                .stack_size(256 << 10)
                .spawn_scoped(s, move || {
                    sh.waiters[b.ix].register_current();
                    let r = worker::<T, OP>(sh, b, iters);
                    if r.is_err() {
                        sh.abort.store(true, Ordering::Relaxed);
                        for w in &sh.waiters {
                            w.wake();
                        }
                    }
                    r
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    sh.abort.store(true, Ordering::Relaxed);
                    for h in handles {
                        let _ = h.join();
                    }
                    return Err(Error::Unavailable(format!("cannot start a thread per thread block: {e}")));
                }
            }
        }
        // The clock starts as the workers are let go: once every one of them is at the
        // barrier, this thread arrives last. (Reading the clock after the barrier let a
        // descheduled main thread start it after the workers had finished.)
        sh.wait(
            None,
            || sh.go.count.load(Ordering::Acquire) + 1 == sh.go.n,
            || "waiting for the thread blocks to start".into(),
        )?;
        let t0 = Instant::now();
        sh.go.wait(&sh, None)?;
        let mut first_err = None;
        for h in handles {
            let r = h.join().unwrap_or_else(|_| Err(Error::Unavailable("a thread block panicked".into())));
            if let Err(e) = r {
                // The first error is the cause; the others are "aborted while ...".
                if first_err.is_none() || matches!(&first_err, Some(Error::Unavailable(m)) if m.contains("aborted")) {
                    first_err = Some(e);
                }
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(t0.elapsed()),
        }
    })
}

fn worker<T: Elem, const OP: u8>(sh: &Shared<'_>, b: Block, iters: usize) -> Result<(), Error> {
    let gpu = &sh.loaded.program.gpus[b.rank];
    let ops = &sh.loaded.lowered[b.rank].tbs[b.tb];
    let rp = &sh.ranks[b.rank];
    let g = sh.g;
    // Waits name thread block ids; flags are indexed by position.
    let dep_ix: Vec<Vec<usize>> = ops
        .iter()
        .map(|op| op.waits.iter().map(|d| gpu.tbs.iter().position(|t| t.id == d.tb).unwrap_or(usize::MAX)).collect())
        .collect();
    let (mut sent, mut got) = (0u64, 0u64);
    sh.go.wait(sh, Some(b.ix))?;
    for w in 0..iters {
        sh.barriers[b.rank].wait(sh, Some(b.ix))?;
        if let Some((dst, src)) = rp.pre {
            if b.tb == 0 {
                let (d, s) = (dst as *mut T, src as *const T);
                for i in 0..g.send {
                    // SAFETY: both regions hold `send` elements.
                    unsafe { d.add(i).write(own::<T, OP>(s.add(i).read(), &sh.scalars)) };
                }
            }
            sh.barriers[b.rank].wait(sh, Some(b.ix))?;
        }
        for it in 0..g.iterations {
            for (oi, op) in ops.iter().enumerate() {
                for (d, &t) in op.waits.iter().zip(&dep_ix[oi]) {
                    let Some(f) = sh.flags[b.rank].get(t) else {
                        return Err(Error::Unavailable(format!("gpu {} waits on a missing tb {}", gpu.id, d.tb)));
                    };
                    let goal = flag(w, it, d.step);
                    sh.wait(
                        Some(b.ix),
                        || f.load(Ordering::SeqCst) >= goal,
                        || format!("gpu {} tb {} waited on tb {} step {}", gpu.id, gpu.tbs[b.tb].id, d.tb, d.step),
                    )?;
                }
                let mut ctx = OpCtx { sh, b, it, sent: &mut sent, got: &mut got };
                ctx.exec::<T, OP>(op)?;
                if op.publish {
                    sh.flags[b.rank][b.tb].store(flag(w, it, op.number), Ordering::SeqCst);
                    for &d in &sh.dependents[b.rank][b.tb] {
                        sh.waiters[d].wake();
                    }
                }
            }
        }
        if let Some(recv) = rp.post {
            sh.barriers[b.rank].wait(sh, Some(b.ix))?;
            if b.tb == 0 {
                let d = recv as *mut T;
                for i in 0..g.recv {
                    // SAFETY: the receive region holds `recv` elements.
                    unsafe { d.add(i).write(finish::<T, OP>(d.add(i).read(), &sh.scalars)) };
                }
            }
        }
    }
    Ok(())
}

/// One call of an operation: chunks from `rel` (relative to the step's offsets),
/// elements from `within` the first chunk, `len` elements in a row.
#[derive(Clone, Copy)]
struct Call {
    rel: u32,
    within: usize,
    len: usize,
}

fn calls(g: &Geometry, count: u32, it: usize) -> impl Iterator<Item = Call> + '_ {
    let single = g.iterations == 1;
    let m = if single { g.per_call as u32 } else { 1 };
    let within = it * g.window;
    let len = g.window.min(g.chunk - within.min(g.chunk));
    (0..count.div_ceil(m)).map(move |i| {
        let rel = i * m;
        if single {
            Call { rel, within: 0, len: (m.min(count - rel) as usize) * g.chunk }
        } else {
            Call { rel, within, len }
        }
    })
}

struct OpCtx<'s, 'a> {
    sh: &'s Shared<'a>,
    b: Block,
    it: usize,
    sent: &'s mut u64,
    got: &'s mut u64,
}

impl OpCtx<'_, '_> {
    /// The element at (slot, call) in this rank's memory, bounds-checked for `len`.
    fn at<T>(&self, slot: Slot, c: Call) -> Result<*mut T, Error> {
        let gpu = &self.sh.loaded.program.gpus[self.b.rank];
        let off = slot.off.ok_or_else(|| {
            Error::Unavailable(format!("gpu {} tb {}: a step uses an offset of -1", gpu.id, gpu.tbs[self.b.tb].id))
        })?;
        let (p, chunk) = self.sh.loaded.place(self.b.rank, self.sh.mode, slot.buf, off + c.rel);
        let (base, len) = self.sh.ranks[self.b.rank].bufs[phys_index(p)];
        let i = chunk * self.sh.g.chunk + c.within;
        if i + c.len > len {
            return Err(Error::Unavailable(format!(
                "gpu {} tb {}: {} chunk {} runs past the end of the buffer",
                gpu.id,
                gpu.tbs[self.b.tb].id,
                slot.buf.name(),
                off + c.rel
            )));
        }
        // SAFETY: checked against the buffer's length just above.
        Ok(unsafe { (base as *mut T).add(i) })
    }

    fn exec<T: Elem, const OP: u8>(&mut self, op: &Op) -> Result<(), Error> {
        let g = self.sh.g;
        match op.kind {
            StepKind::Nop | StepKind::ResAdd => Ok(()),
            StepKind::Copy => {
                for c in calls(g, op.count, self.it) {
                    let (s, d) = (self.at::<T>(op.src, c)?, self.at::<T>(op.dst, c)?);
                    // SAFETY: both ranges are in bounds; `copy` allows overlap.
                    unsafe { std::ptr::copy(s, d, c.len) };
                }
                Ok(())
            }
            StepKind::Reduce => {
                for c in calls(g, op.count, self.it) {
                    let d = self.at::<T>(op.dst, c)?;
                    for &o in &op.reduce_srcs {
                        let s = self.at::<T>(Slot { buf: op.src.buf, off: Some(o) }, c)?;
                        // SAFETY: in bounds.
                        unsafe { reduce::<T, OP>(d, d, s, c.len) };
                    }
                }
                Ok(())
            }
            k => {
                for c in calls(g, op.count, self.it) {
                    self.transfer::<T, OP>(op, k, c)?;
                }
                Ok(())
            }
        }
    }

    /// One call of a step that receives, sends or both, slice by slice.
    fn transfer<T: Elem, const OP: u8>(&mut self, op: &Op, k: StepKind, c: Call) -> Result<(), Error> {
        let sh = self.sh;
        let g = sh.g;
        let gpu = &sh.loaded.program.gpus[self.b.rank];
        let tbid = gpu.tbs[self.b.tb].id;
        let recv = if k.receives() { self.b.recv } else { None };
        let send = if k.sends() { self.b.send } else { None };
        let src = if k.reads_src() { Some(self.at::<T>(op.src, c)?) } else { None };
        let dst = if k.writes_dst() { Some(self.at::<T>(op.dst, c)?) } else { None };
        let entries = g.entries as u64;
        for s in 0..g.slices {
            let a = (s * g.slice_elems).min(c.len);
            let n = (a + g.slice_elems).min(c.len) - a;
            let inp = match recv {
                Some(f) => {
                    let fifo = &sh.fifos[f];
                    let want = *self.got + 1;
                    sh.wait(
                        Some(self.b.ix),
                        || fifo.tail.load(Ordering::SeqCst) >= want,
                        || format!("gpu {} tb {tbid} waited to receive", gpu.id),
                    )?;
                    let e = (*self.got % entries) as usize;
                    let has = fifo.lens[e].load(Ordering::Relaxed);
                    if has != n {
                        sh.abort.store(true, Ordering::Relaxed);
                        return Err(Error::Unavailable(format!(
                            "gpu {} tb {tbid}: received a slice of {has} elements where the step expects {n}",
                            gpu.id
                        )));
                    }
                    // SAFETY: entry `e` holds `slice_elems` elements.
                    Some(unsafe { (fifo.data as *mut T).add(e * g.slice_elems) })
                }
                None => None,
            };
            let out = match send {
                Some(f) => {
                    let fifo = &sh.fifos[f];
                    let sent = *self.sent;
                    sh.wait(
                        Some(self.b.ix),
                        || fifo.head.load(Ordering::SeqCst) + entries > sent,
                        || format!("gpu {} tb {tbid} waited for room to send", gpu.id),
                    )?;
                    let e = (sent % entries) as usize;
                    // SAFETY: as above.
                    Some((e, unsafe { (fifo.data as *mut T).add(e * g.slice_elems) }))
                }
                None => None,
            };
            // SAFETY: every pointer is valid for `n` elements from `a` (the call's range
            // was bounds-checked, the entries hold a whole slice).
            unsafe {
                let (src, dst) = (src.map(|p| p.add(a)), dst.map(|p| p.add(a)));
                match (k, inp, out, src, dst) {
                    (StepKind::Send, _, Some((_, o)), Some(s), _) => std::ptr::copy_nonoverlapping(s, o, n),
                    (StepKind::Recv, Some(i), _, _, Some(d)) => std::ptr::copy_nonoverlapping(i, d, n),
                    (StepKind::RecvCopySend, Some(i), Some((_, o)), _, Some(d)) => {
                        std::ptr::copy_nonoverlapping(i, d, n);
                        std::ptr::copy_nonoverlapping(i, o, n);
                    }
                    (StepKind::RecvReduceSend, Some(i), Some((_, o)), Some(s), _) => reduce::<T, OP>(o, i, s, n),
                    (StepKind::RecvReduceCopy, Some(i), _, Some(s), Some(d)) => reduce::<T, OP>(d, i, s, n),
                    (StepKind::RecvReduceCopySend, Some(i), Some((_, o)), Some(s), Some(d)) => {
                        reduce::<T, OP>(d, i, s, n);
                        std::ptr::copy_nonoverlapping(d, o, n);
                    }
                    _ => {
                        sh.abort.store(true, Ordering::Relaxed);
                        return Err(Error::Unavailable(format!(
                            "gpu {} tb {tbid}: a {} step without the connection it needs",
                            gpu.id,
                            k.xml_name()
                        )));
                    }
                }
            }
            if let (Some(f), Some((e, _))) = (send, out) {
                let fifo = &sh.fifos[f];
                fifo.lens[e].store(n, Ordering::Relaxed);
                *self.sent += 1;
                fifo.tail.store(*self.sent, Ordering::SeqCst);
                sh.wake(sh.ends[f].1);
            }
            if let Some(f) = recv {
                *self.got += 1;
                sh.fifos[f].head.store(*self.got, Ordering::SeqCst);
                sh.wake(sh.ends[f].0);
            }
        }
        Ok(())
    }
}

/// `d[i] = a[i] (+) b[i]`; `d` may be `a` or `b`.
///
/// # Safety
/// All three pointers valid for `n` elements.
#[inline]
unsafe fn reduce<T: Elem, const OP: u8>(d: *mut T, a: *const T, b: *const T, n: usize) {
    for i in 0..n {
        // SAFETY: the caller's contract.
        unsafe { d.add(i).write(combine::<T, OP>(a.add(i).read(), b.add(i).read())) };
    }
}
