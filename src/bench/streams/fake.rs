//! A device with CUDA's stream semantics on host memory, to test the enqueue order and
//! the data without a GPU.
//!
//! * every stream is a FIFO: a command starts when the one before it on that stream is
//!   done;
//! * a record marks the event's next occurrence done when the stream reaches it;
//! * a wait binds, when it is enqueued, to the last record of its event enqueued so far
//!   and holds its stream until that record is done; with no record it does nothing (as
//!   `cudaStreamWaitEvent` on an event never recorded);
//! * streams advance in an order drawn from a seed among those that can, so different
//!   seeds interleave them differently: a copy that a wait does not order against a
//!   write on another stream is seen as wrong data under some seed.

use super::enqueue::{Cmd, Device};
use crate::bench::{DataType, RedOp};

/// A reduce of `elems` elements of the first buffer into the second, for one type and
/// operator (the caller promises both hold them).
pub type ReduceFn = Box<dyn Fn(*const u8, *mut u8, usize)>;

/// A queued command: waits carry the record they bound to (0: none).
#[derive(Clone, Copy)]
enum Queued {
    Cmd(Cmd),
    Record(usize, u64),
    Wait(usize, u64),
}

/// The fake device.
pub struct FakeDevice {
    /// Memory by (rank, buffer): 16-byte words, so that every element is aligned.
    mem: std::collections::HashMap<(usize, usize), Vec<u128>>,
    queues: Vec<std::collections::VecDeque<Queued>>,
    /// Per event, records enqueued and records done.
    enqueued: Vec<u64>,
    done: Vec<u64>,
    reduce: ReduceFn,
    rng: u64,
    /// A planted bug: every wait binds to nothing.
    pub ignore_waits: bool,
}

impl FakeDevice {
    pub fn new(seed: u64, reduce: ReduceFn) -> FakeDevice {
        FakeDevice {
            mem: Default::default(),
            queues: Vec::new(),
            enqueued: Vec::new(),
            done: Vec::new(),
            reduce,
            rng: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            ignore_waits: false,
        }
    }

    fn next(&mut self) -> u64 {
        // xorshift64
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng = x;
        x
    }

    /// `addr` and the `bytes` after it as a pointer into one allocation.
    fn check(&mut self, addr: u64, bytes: usize) -> Result<*mut u8, String> {
        let a = addr as usize;
        self.mem
            .values_mut()
            .find(|m| {
                let start = m.as_ptr() as usize;
                a >= start && a + bytes <= start + m.len() * 16
            })
            .map(|m| m.as_mut_ptr().cast::<u8>().wrapping_add(a - m.as_ptr() as usize))
            .ok_or_else(|| format!("address {a:#x} (+{bytes} bytes) is in no allocation"))
    }

    fn ready(&self, q: &Queued) -> bool {
        match *q {
            Queued::Wait(e, seq) => self.done[e] >= seq,
            _ => true,
        }
    }
}

impl Device for FakeDevice {
    fn alloc(&mut self, rank: usize, buf: usize, bytes: usize) -> Result<u64, String> {
        let m = self.mem.entry((rank, buf)).or_default();
        if m.len() * 16 < bytes {
            *m = vec![0; bytes.div_ceil(16)];
        }
        Ok(m.as_ptr() as u64)
    }

    fn upload(&mut self, addr: u64, data: &[u8]) -> Result<(), String> {
        let p = self.check(addr, data.len())?;
        // SAFETY: within one allocation (checked).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        Ok(())
    }

    fn download(&mut self, addr: u64, out: &mut [u8]) -> Result<(), String> {
        let p = self.check(addr, out.len())?;
        // SAFETY: within one allocation (checked).
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    fn prepare(&mut self, ranks: &[usize], events: usize, _: DataType, _: RedOp) -> Result<(), String> {
        self.queues = (0..ranks.len()).map(|_| Default::default()).collect();
        self.enqueued = vec![0; events];
        self.done = vec![0; events];
        Ok(())
    }

    fn enqueue(&mut self, stream: usize, cmd: Cmd) -> Result<(), String> {
        let events = self.enqueued.len();
        let bad = |e: usize| format!("event {e} of {events}");
        let q = match cmd {
            Cmd::Record(e) => {
                let n = self.enqueued.get_mut(e).ok_or_else(|| bad(e))?;
                *n += 1;
                Queued::Record(e, *n)
            }
            Cmd::Wait(e) => {
                let n = *self.enqueued.get(e).ok_or_else(|| bad(e))?;
                Queued::Wait(e, if self.ignore_waits { 0 } else { n })
            }
            c => Queued::Cmd(c),
        };
        let streams = self.queues.len();
        self.queues.get_mut(stream).ok_or_else(|| format!("stream {stream} of {streams}"))?.push_back(q);
        Ok(())
    }

    fn synchronize(&mut self) -> Result<(), String> {
        loop {
            let ready: Vec<usize> =
                (0..self.queues.len()).filter(|&s| self.queues[s].front().is_some_and(|q| self.ready(q))).collect();
            if ready.is_empty() {
                let held = self.queues.iter().filter(|q| !q.is_empty()).count();
                if held == 0 {
                    return Ok(());
                }
                return Err(format!("the device hangs: {held} streams wait for records that never run"));
            }
            let s = ready[(self.next() % ready.len() as u64) as usize];
            let Some(q) = self.queues[s].pop_front() else { continue };
            match q {
                Queued::Record(e, seq) => self.done[e] = self.done[e].max(seq),
                Queued::Wait(..) => {}
                Queued::Cmd(Cmd::Copy { src, dst, bytes }) => {
                    // SAFETY: the host resolved both within their buffers.
                    unsafe { std::ptr::copy(src, dst, bytes) }
                }
                Queued::Cmd(Cmd::Reduce { src, dst, elems, .. }) => {
                    // Both resolved within their buffers, as for copies.
                    (self.reduce)(src, dst, elems)
                }
                Queued::Cmd(Cmd::Record(_) | Cmd::Wait(_)) => {}
            }
        }
    }
}
