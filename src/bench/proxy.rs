//! FIFO connections and the proxy thread.
//!
//! A connection carries one ring edge of one channel. Its receiver owns a FIFO of
//! [`FIFO_SLOTS`] slots and a control block: `tail` counts slots filled (written by
//! whoever fills them), `head` counts slots consumed (written by the receiver), and
//! `sizes` holds the byte count of each slot. A sender may fill slot `step % 8` once
//! `head + 8 > step`; a receiver may read it once `tail > step`. Both counters only
//! grow, across collectives.
//!
//! Edges the kernel (or rank thread) cannot drive itself go through the proxy: the
//! sender fills a staging FIFO with the same layout, and a [`StagedCopy`] on the proxy
//! thread copies each filled slot into the receiver's FIFO, then releases the staging
//! slot. How bytes move is a [`SlotMover`] (host memcpy, or a host-to-device copy on
//! the CUDA backend); anything else that can make progress without blocking, a network
//! transport for instance, fits in as another [`ProxyConn`].

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
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

/// Moves the bytes of one slot from a staging FIFO to the receiver's FIFO.
pub trait SlotMover: Send {
    fn move_slot(&mut self, slot: usize, bytes: usize) -> Result<(), Error>;
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

/// Proxy work for one host-staged edge: staging FIFO -> receiver FIFO.
pub struct StagedCopy<M: SlotMover> {
    src: CtrlPtr,
    dst: CtrlPtr,
    moved: u64,
    mover: M,
}

impl<M: SlotMover> StagedCopy<M> {
    /// # Safety
    /// Both control blocks must stay alive while the proxy runs this connection.
    pub unsafe fn new(src: CtrlPtr, dst: CtrlPtr, mover: M) -> Self {
        StagedCopy { src, dst, moved: 0, mover }
    }
}

impl<M: SlotMover> ProxyConn for StagedCopy<M> {
    fn progress(&mut self) -> Result<bool, Error> {
        // SAFETY: guaranteed by the constructor's contract.
        let (src, dst) = unsafe { (self.src.get(), self.dst.get()) };
        let mut any = false;
        while self.moved < src.tail.load(Ordering::Acquire)
            && self.moved < dst.head.load(Ordering::Acquire) + FIFO_SLOTS as u64
        {
            let slot = (self.moved % FIFO_SLOTS as u64) as usize;
            let bytes = src.sizes[slot].load(Ordering::Relaxed);
            self.mover.move_slot(slot, bytes as usize)?;
            dst.sizes[slot].store(bytes, Ordering::Relaxed);
            self.moved += 1;
            dst.tail.store(self.moved, Ordering::Release);
            src.head.store(self.moved, Ordering::Release);
            any = true;
        }
        Ok(any)
    }
}

/// Spin, then yield, while waiting; gives up after `limit` without progress.
pub struct Backoff {
    spins: u32,
    since: Option<Instant>,
}

/// How long a wait may last before the run is declared stuck.
pub const STALL_LIMIT: Duration = Duration::from_secs(60);

impl Backoff {
    pub fn new() -> Backoff {
        Backoff { spins: 0, since: None }
    }

    /// One round of waiting. `Err(elapsed)` once the wait has lasted [`STALL_LIMIT`].
    #[inline]
    pub fn snooze(&mut self) -> Result<(), Duration> {
        self.spins = self.spins.wrapping_add(1);
        if self.spins < 128 {
            std::hint::spin_loop();
            return Ok(());
        }
        std::thread::yield_now();
        if self.spins % 256 == 0 {
            let t0 = *self.since.get_or_insert_with(Instant::now);
            let e = t0.elapsed();
            if e > STALL_LIMIT {
                return Err(e);
            }
        }
        Ok(())
    }

    pub fn reset(&mut self) {
        self.spins = 0;
        self.since = None;
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new()
    }
}

/// The proxy thread: advances its connections until stopped. An error (or a stall)
/// sets `abort` so that the ranks stop waiting too.
pub struct ProxyThread {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    error: Arc<Mutex<Option<Error>>>,
}

impl ProxyThread {
    pub fn spawn(mut conns: Vec<Box<dyn ProxyConn>>, abort: Arc<AtomicBool>) -> Result<ProxyThread, Error> {
        let stop = Arc::new(AtomicBool::new(false));
        let error = Arc::new(Mutex::new(None));
        let (stop2, error2) = (stop.clone(), error.clone());
        let handle = std::thread::Builder::new()
            .name("topo-proxy".into())
            .spawn(move || {
                let mut idle = 0u32;
                while !stop2.load(Ordering::Relaxed) && !abort.load(Ordering::Relaxed) {
                    let mut any = false;
                    for c in conns.iter_mut() {
                        match c.progress() {
                            Ok(p) => any |= p,
                            Err(e) => {
                                *error2.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                                abort.store(true, Ordering::Relaxed);
                                return;
                            }
                        }
                    }
                    if any {
                        idle = 0;
                    } else {
                        // The proxy never gives up on its own: the ranks time out.
                        idle = idle.saturating_add(1);
                        if idle < 64 {
                            std::hint::spin_loop();
                        } else {
                            std::thread::yield_now();
                        }
                    }
                }
            })
            .map_err(|e| Error::Unavailable(format!("cannot start the proxy thread: {e}")))?;
        Ok(ProxyThread { stop, handle: Some(handle), error })
    }

    /// The error the proxy stopped on, if any.
    pub fn take_error(&self) -> Option<Error> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Stop and join the thread.
    pub fn shutdown(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
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
        fn move_slot(&mut self, slot: usize, bytes: usize) -> Result<(), Error> {
            self.0.lock().unwrap().push((slot, bytes));
            Ok(())
        }
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
    fn ctrl_layout_matches_the_kernel() {
        assert_eq!(FIFO_CTRL_BYTES, 192);
        let c = FifoCtrl::default();
        let base = &c as *const _ as usize;
        assert_eq!(&c.head as *const _ as usize - base, 64);
        assert_eq!(&c.sizes as *const _ as usize - base, 128);
    }
}
