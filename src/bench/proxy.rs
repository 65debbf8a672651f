//! FIFO connections and the proxy thread.
//!
//! A connection carries one ring edge of one channel. Its receiver owns a FIFO of
//! [`FIFO_SLOTS`] slots; two counters drive it: `tail` counts slots filled (written by
//! whoever fills them), `head` counts slots consumed (written by the receiver), and
//! `sizes` holds the byte count of each slot. A sender may fill slot `step % 8` once
//! `head + 8 > step`; a receiver may read it once `tail > step`. Both counters only
//! grow, across collectives. Counters sit in [`FifoCtrl`] blocks; where the two sides
//! are in different memories (GPUs), `tail` and `sizes` are read from a block in the
//! receiver's memory and `head` from one in the sender's, so that each side polls its
//! own memory. On the host, and between a kernel and the proxy, one block holds both.
//!
//! Edges the kernel (or rank thread) cannot drive itself go through the proxy: the
//! sender fills a staging FIFO with the same layout, and a [`StagedCopy`] on the proxy
//! thread copies each filled slot into the receiver's FIFO, then releases the staging
//! slot. How bytes move is a [`SlotMover`] (host memcpy, or an asynchronous
//! host-to-device copy on the CUDA backend, several slots in flight); anything else
//! that can make progress without blocking, a network transport for instance, fits in
//! as another [`ProxyConn`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

use crate::error::Error;

/// Slots per FIFO (NCCL's `NCCL_STEPS`).
pub const FIFO_SLOTS: usize = 8;

/// The control block of a FIFO. The layout is shared with the CUDA kernels
/// (`struct FifoCtrl` in `kernels/allreduce.cu`): the two counters on their own
/// 64-byte lines, then the slot sizes.
#[repr(C, align(64))]
#[derive(Default)]
pub struct FifoCtrl {
    pub tail: AtomicU64,
    _pad0: [u64; 7],
    pub head: AtomicU64,
    _pad1: [u64; 7],
    pub sizes: [AtomicU64; FIFO_SLOTS],
}

pub const FIFO_CTRL_BYTES: usize = std::mem::size_of::<FifoCtrl>();

/// Moves the bytes of one slot from a staging FIFO to the receiver's FIFO. A move may
/// finish later than [`SlotMover::start`] returns (a copy engine); moves finish in the
/// order they started.
pub trait SlotMover: Send {
    /// Start moving `bytes` of `slot`.
    fn start(&mut self, slot: usize, bytes: usize) -> Result<(), Error>;
    /// Whether the move of `slot`, the oldest one started and not yet reported
    /// finished, has finished. Never blocks.
    fn finished(&mut self, _slot: usize) -> Result<bool, Error> {
        Ok(true)
    }
    /// Called after the proxy published new counters (to wake sleeping threads).
    fn published(&mut self) {}
}

/// Something the proxy thread advances.
pub trait ProxyConn: Send {
    /// Move whatever is ready without blocking; `Ok(true)` when something moved.
    fn progress(&mut self) -> Result<bool, Error>;
}

/// A raw pointer to a control block that outlives the proxy (the owner joins the
/// proxy thread before freeing it).
#[derive(Clone, Copy)]
pub struct CtrlPtr(pub *const FifoCtrl);
// SAFETY: the control block holds only atomics, and its owner keeps it alive while
// any thread holding this pointer runs.
unsafe impl Send for CtrlPtr {}
unsafe impl Sync for CtrlPtr {}

impl CtrlPtr {
    /// # Safety
    /// The pointee must be alive.
    unsafe fn get(&self) -> &FifoCtrl {
        unsafe { &*self.0 }
    }
}

/// Proxy work for one host-staged edge: staging FIFO -> receiver FIFO. Slots are
/// started as soon as they are filled and the receiver has room (up to `entries`, at
/// most [`FIFO_SLOTS`], in flight), and published, in order, once their move has
/// finished.
pub struct StagedCopy<M: SlotMover> {
    src: CtrlPtr,
    dst: CtrlPtr,
    /// Slots of both FIFOs: step `s` fills slot `s % entries`.
    entries: u64,
    /// Slots whose move has started.
    started: u64,
    /// Slots moved and published to the receiver (and released to the sender).
    moved: u64,
    mover: M,
}

impl<M: SlotMover> StagedCopy<M> {
    /// # Safety
    /// Both control blocks must stay alive while the proxy runs this connection.
    pub unsafe fn new(src: CtrlPtr, dst: CtrlPtr, mover: M) -> Self {
        StagedCopy { src, dst, entries: FIFO_SLOTS as u64, started: 0, moved: 0, mover }
    }

    /// An edge whose FIFOs hold `entries` slots (1 to [`FIFO_SLOTS`]; a program's
    /// connections hold `NCCL_STEPS / slots_per_slice`), resumed at the receiver's
    /// `tail`: every slot filled so far must have been moved and consumed (a proxy
    /// rebuilt between runs, over new FIFO memory or another slot size).
    ///
    /// # Safety
    /// As [`StagedCopy::new`].
    pub unsafe fn resume(src: CtrlPtr, dst: CtrlPtr, entries: usize, mover: M) -> Self {
        // SAFETY: the caller's contract.
        let at = unsafe { dst.get() }.tail.load(Ordering::SeqCst);
        let entries = entries.clamp(1, FIFO_SLOTS) as u64;
        StagedCopy { src, dst, entries, started: at, moved: at, mover }
    }
}

impl<M: SlotMover> ProxyConn for StagedCopy<M> {
    fn progress(&mut self) -> Result<bool, Error> {
        // SAFETY: guaranteed by the constructor's contract.
        let (src, dst) = unsafe { (self.src.get(), self.dst.get()) };
        let mut any = false;
        while self.started < src.tail.load(Ordering::SeqCst)
            && self.started < dst.head.load(Ordering::SeqCst) + self.entries
        {
            let slot = (self.started % self.entries) as usize;
            let bytes = src.sizes[slot].load(Ordering::Relaxed);
            self.mover.start(slot, bytes as usize)?;
            dst.sizes[slot].store(bytes, Ordering::Relaxed);
            self.started += 1;
            any = true;
        }
        let mut published = false;
        while self.moved < self.started && self.mover.finished((self.moved % self.entries) as usize)? {
            self.moved += 1;
            dst.tail.store(self.moved, Ordering::SeqCst);
            src.head.store(self.moved, Ordering::SeqCst);
            published = true;
        }
        if published {
            self.mover.published();
        }
        Ok(any || published)
    }
}

/// A thread that may sleep while it waits for a counter, with the flag its publishers
/// check: a publisher stores the counter, then calls [`Waiter::wake`]; a waiter sets
/// `sleeping`, checks the counter once more, then parks. Both sides use sequentially
/// consistent operations, so one of them always sees the other.
#[derive(Default)]
pub struct Waiter {
    sleeping: AtomicBool,
    thread: OnceLock<Thread>,
}

impl Waiter {
    /// Make the calling thread the one this waiter wakes.
    pub fn register_current(&self) {
        let _ = self.thread.set(std::thread::current());
    }

    /// Wake the thread if it sleeps (call after publishing a counter).
    #[inline]
    pub fn wake(&self) {
        if self.sleeping.load(Ordering::SeqCst)
            && let Some(t) = self.thread.get()
        {
            t.unpark();
        }
    }

    /// Sleep until woken (or a short timeout), unless `ready` holds after announcing it.
    pub fn sleep(&self, ready: &dyn Fn() -> bool) {
        self.sleeping.store(true, Ordering::SeqCst);
        if !ready() {
            std::thread::park_timeout(SLEEP_SLICE);
        }
        self.sleeping.store(false, Ordering::SeqCst);
    }
}

/// How long a wait may last before the run is declared stuck.
pub const STALL_LIMIT: Duration = Duration::from_secs(60);
/// Spin this long, then yield until [`YIELD_PHASE`], then sleep (the proxy's idle
/// loop); rank threads count rounds instead of reading the clock.
const SPIN_PHASE: Duration = Duration::from_micros(10);
const YIELD_PHASE: Duration = Duration::from_micros(50);
const SPIN_ROUNDS: u32 = 512;
const YIELD_ROUNDS: u32 = 32;
/// Longest sleep without a wake-up (a safety net; wakes are explicit).
const SLEEP_SLICE: Duration = Duration::from_micros(500);
/// A proxy without a waiter naps this long once idle for `IDLE_NAP_AFTER`.
const IDLE_NAP_AFTER: Duration = Duration::from_millis(1);
const IDLE_NAP: Duration = Duration::from_micros(20);

/// Waiting strategy: spin briefly (the common case when every thread has a core),
/// then yield, then sleep on a [`Waiter`] so that oversubscribed threads leave the
/// cores to the ones that can progress.
pub struct Backoff {
    rounds: u32,
    spin: u32,
    since: Option<Instant>,
}

impl Backoff {
    pub fn new() -> Backoff {
        Backoff { rounds: 0, spin: SPIN_ROUNDS, since: None }
    }

    /// For threads that outnumber the cores: spinning only delays the thread being
    /// waited for, so go to yielding and sleeping almost at once.
    pub fn oversubscribed() -> Backoff {
        Backoff { rounds: 0, spin: 8, since: None }
    }

    /// One round of waiting for `ready`. `Err(elapsed)` once the wait has lasted
    /// [`STALL_LIMIT`].
    #[inline]
    pub fn snooze(&mut self, waiter: Option<&Waiter>, ready: &dyn Fn() -> bool) -> Result<(), Duration> {
        self.rounds = self.rounds.saturating_add(1);
        if self.rounds <= self.spin {
            std::hint::spin_loop();
            return Ok(());
        }
        match waiter {
            Some(w) if self.rounds > self.spin + YIELD_ROUNDS => w.sleep(ready),
            _ => std::thread::yield_now(),
        }
        if self.rounds.is_multiple_of(64) {
            let e = self.since.get_or_insert_with(Instant::now).elapsed();
            if e > STALL_LIMIT {
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new()
    }
}

/// The proxy thread: advances its connections until stopped. An error sets `abort`
/// so that the ranks stop waiting too. With a `waiter`, it sleeps when idle and its
/// publishers wake it.
pub struct ProxyThread {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    error: Arc<Mutex<Option<Error>>>,
    waiter: Option<Arc<Waiter>>,
}

impl ProxyThread {
    pub fn spawn(
        mut conns: Vec<Box<dyn ProxyConn>>,
        abort: Arc<AtomicBool>,
        waiter: Option<Arc<Waiter>>,
    ) -> Result<ProxyThread, Error> {
        let stop = Arc::new(AtomicBool::new(false));
        let error = Arc::new(Mutex::new(None));
        let (stop2, error2, waiter2) = (stop.clone(), error.clone(), waiter.clone());
        let handle = std::thread::Builder::new()
            .name("topo-proxy".into())
            .spawn(move || {
                if let Some(w) = &waiter2 {
                    w.register_current();
                }
                let mut idle: Option<Instant> = None;
                let round = |conns: &mut Vec<Box<dyn ProxyConn>>| -> Result<bool, Error> {
                    let mut any = false;
                    for c in conns.iter_mut() {
                        any |= c.progress()?;
                    }
                    Ok(any)
                };
                while !stop2.load(Ordering::Relaxed) && !abort.load(Ordering::Relaxed) {
                    let moved = match round(&mut conns) {
                        Ok(m) => m,
                        Err(e) => {
                            *error2.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                            abort.store(true, Ordering::Relaxed);
                            return;
                        }
                    };
                    if moved {
                        idle = None;
                        continue;
                    }
                    // The proxy never gives up on its own: the ranks time out.
                    let e = idle.get_or_insert_with(Instant::now).elapsed();
                    match &waiter2 {
                        _ if e < SPIN_PHASE => std::hint::spin_loop(),
                        Some(w) if e >= YIELD_PHASE => {
                            // Announce the sleep, then look once more before parking.
                            w.sleeping.store(true, Ordering::SeqCst);
                            let again = round(&mut conns).unwrap_or(true);
                            if !again && !stop2.load(Ordering::Relaxed) {
                                std::thread::park_timeout(SLEEP_SLICE);
                            }
                            w.sleeping.store(false, Ordering::SeqCst);
                            if again {
                                idle = None;
                            }
                        }
                        // No waiter (publishers on a GPU cannot wake it): nap when
                        // idle for long, e.g. between runs.
                        None if e >= IDLE_NAP_AFTER => std::thread::sleep(IDLE_NAP),
                        _ => std::thread::yield_now(),
                    }
                }
            })
            .map_err(|e| Error::Unavailable(format!("cannot start the proxy thread: {e}")))?;
        Ok(ProxyThread { stop, handle: Some(handle), error, waiter })
    }

    /// The error the proxy stopped on, if any.
    pub fn take_error(&self) -> Option<Error> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Stop and join the thread.
    pub fn shutdown(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            if let Some(w) = &self.waiter {
                w.sleeping.store(true, Ordering::SeqCst);
                w.wake();
            }
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

impl Drop for ProxyThread {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Recorder(Arc<Mutex<Vec<(usize, usize)>>>);
    impl SlotMover for Recorder {
        fn start(&mut self, slot: usize, bytes: usize) -> Result<(), Error> {
            self.0.lock().unwrap().push((slot, bytes));
            Ok(())
        }
    }

    /// A mover whose moves finish only when the test says so.
    struct Deferred {
        started: Arc<Mutex<Vec<usize>>>,
        done: Arc<AtomicU64>,
        checked: u64,
    }
    impl SlotMover for Deferred {
        fn start(&mut self, slot: usize, _bytes: usize) -> Result<(), Error> {
            self.started.lock().unwrap().push(slot);
            Ok(())
        }
        fn finished(&mut self, slot: usize) -> Result<bool, Error> {
            assert_eq!(slot as u64, self.checked % FIFO_SLOTS as u64, "moves are reported in order");
            let done = self.checked < self.done.load(Ordering::SeqCst);
            if done {
                self.checked += 1;
            }
            Ok(done)
        }
    }

    #[test]
    fn staged_copy_publishes_a_slot_only_once_its_move_finished() {
        let src = FifoCtrl::default();
        let dst = FifoCtrl::default();
        let started = Arc::new(Mutex::new(Vec::new()));
        let done = Arc::new(AtomicU64::new(0));
        let mover = Deferred { started: started.clone(), done: done.clone(), checked: 0 };
        let mut c = unsafe { StagedCopy::new(CtrlPtr(&src), CtrlPtr(&dst), mover) };
        src.tail.store(5, Ordering::SeqCst);
        assert!(c.progress().unwrap(), "five moves start");
        assert_eq!(started.lock().unwrap().len(), 5, "every filled slot is in flight at once");
        assert_eq!(dst.tail.load(Ordering::SeqCst), 0, "nothing is published before its move finished");
        assert_eq!(src.head.load(Ordering::SeqCst), 0, "nor released to the sender");
        done.store(2, Ordering::SeqCst);
        assert!(c.progress().unwrap());
        assert_eq!(dst.tail.load(Ordering::SeqCst), 2);
        assert_eq!(src.head.load(Ordering::SeqCst), 2);
        assert!(!c.progress().unwrap(), "nothing new: no progress reported");
        // The receiver has room for 8 slots past its head (0): three more may start.
        src.tail.store(12, Ordering::SeqCst);
        assert!(c.progress().unwrap());
        assert_eq!(started.lock().unwrap().len(), 8);
        done.store(12, Ordering::SeqCst);
        dst.head.store(4, Ordering::SeqCst);
        assert!(c.progress().unwrap());
        assert_eq!(started.lock().unwrap().len(), 12);
        assert_eq!(dst.tail.load(Ordering::SeqCst), 12);
        assert_eq!(*started.lock().unwrap(), vec![0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3]);
    }

    #[test]
    fn staged_copy_respects_both_counters() {
        let src = FifoCtrl::default();
        let dst = FifoCtrl::default();
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut c = unsafe { StagedCopy::new(CtrlPtr(&src), CtrlPtr(&dst), Recorder(log.clone())) };
        assert!(!c.progress().unwrap(), "nothing filled yet");
        for i in 0..10u64 {
            src.sizes[(i % 8) as usize].store(100 + i, Ordering::Relaxed);
        }
        src.tail.store(10, Ordering::Release);
        assert!(c.progress().unwrap());
        // The receiver has consumed nothing: only 8 slots may be in flight.
        assert_eq!(dst.tail.load(Ordering::Acquire), 8);
        assert_eq!(src.head.load(Ordering::Acquire), 8);
        dst.head.store(3, Ordering::Release);
        assert!(c.progress().unwrap());
        assert_eq!(dst.tail.load(Ordering::Acquire), 10);
        assert_eq!(dst.sizes[1].load(Ordering::Relaxed), 109);
        let log = log.lock().unwrap();
        assert_eq!(log.len(), 10);
        assert_eq!(log[9], (1, 109));
    }

    #[test]
    fn a_resumed_copy_with_four_entries_wraps_at_four_and_keeps_four_in_flight() {
        let src = FifoCtrl::default();
        let dst = FifoCtrl::default();
        // Six slots moved and consumed by an earlier proxy.
        for c in [&src.tail, &src.head, &dst.tail, &dst.head] {
            c.store(6, Ordering::SeqCst);
        }
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut c = unsafe { StagedCopy::resume(CtrlPtr(&src), CtrlPtr(&dst), 4, Recorder(log.clone())) };
        assert!(!c.progress().unwrap(), "nothing new since the earlier proxy");
        src.sizes[2].store(7, Ordering::Relaxed);
        src.tail.store(12, Ordering::SeqCst);
        assert!(c.progress().unwrap());
        assert_eq!(dst.tail.load(Ordering::SeqCst), 10, "the receiver has room for 4 slots past its head (6)");
        assert_eq!(dst.sizes[2].load(Ordering::Relaxed), 7);
        dst.head.store(10, Ordering::SeqCst);
        assert!(c.progress().unwrap());
        assert_eq!(src.head.load(Ordering::SeqCst), 12);
        let slots: Vec<usize> = log.lock().unwrap().iter().map(|&(s, _)| s).collect();
        assert_eq!(slots, [2, 3, 0, 1, 2, 3]);
    }

    #[test]
    fn ctrl_layout_matches_the_kernel() {
        assert_eq!(FIFO_CTRL_BYTES, 192);
        let c = FifoCtrl::default();
        let base = &c as *const _ as usize;
        assert_eq!(&c.head as *const _ as usize - base, 64);
        assert_eq!(&c.sizes as *const _ as usize - base, 128);
    }
}
