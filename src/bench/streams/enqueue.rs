//! The plan's streams as a device runs them: one device stream per plan stream, every
//! notify a device event, and one host thread enqueueing everything in an order the
//! device can keep.
//!
//! A device's event wait binds to the last record of that event enqueued before it
//! (CUDA's `cudaStreamWaitEvent`; with none, the wait does nothing). So the host must
//! enqueue every Post before the Wait it releases. The k-th Post of a notify releases
//! its k-th Wait (a notify is one-shot) and the pair gets an event of its own; the host
//! walks the streams and enqueues each one's tasks in order, holding a stream at a Wait
//! whose Post is not enqueued yet, and at a Post whose notify is still set (its last
//! Post not waited: the signal would be lost on HCCL's hardware). When every stream is
//! held, the plan deadlocks: reported like the host run, naming every task left waiting.
//!
//! [`Device`] is all a backend provides: streams, events, copies, reduces. The
//! [`fake`](super::fake) device keeps CUDA's stream semantics on host memory, so the
//! order and the data are tested without a GPU.

use super::{Op, Thread, describe};
use crate::bench::{DataType, RedOp};

/// One command for one device stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmd {
    /// Copy `bytes` (a peer copy when the buffers are different ranks').
    Copy { src: *const u8, dst: *mut u8, bytes: usize },
    /// Reduce `elems` elements of `size` bytes of `src` into `dst` (a small kernel on a
    /// GPU).
    Reduce { src: *const u8, dst: *mut u8, elems: usize, size: usize },
    /// Record event `e` on the stream.
    Record(usize),
    /// Make the stream wait for the last record of event `e` enqueued so far.
    Wait(usize),
}

/// What runs a plan's streams: memory per rank, streams and events made up front,
/// commands enqueued on one stream each, then a wait for everything. Addresses are the
/// device's (`u64`, as CUDA's); a command's pointers are such addresses.
pub trait Device {
    /// Memory for buffer `buf` of rank `rank` (on the rank's GPU), at least `bytes`; the
    /// same (rank, buf) again gives the same memory unless it must grow.
    fn alloc(&mut self, rank: usize, buf: usize, bytes: usize) -> Result<u64, String>;
    /// Copy `data` to device address `addr` (synchronously).
    fn upload(&mut self, addr: u64, data: &[u8]) -> Result<(), String>;
    /// Copy from device address `addr` into `out` (synchronously).
    fn download(&mut self, addr: u64, out: &mut [u8]) -> Result<(), String>;
    /// Make one stream per entry of `ranks` (on that rank's GPU) and room for `events`
    /// events, for reduces of `dtype` with `op`.
    fn prepare(&mut self, ranks: &[usize], events: usize, dtype: DataType, op: RedOp) -> Result<(), String>;
    /// Enqueue `cmd` on `stream`; it returns before the command runs.
    fn enqueue(&mut self, stream: usize, cmd: Cmd) -> Result<(), String>;
    /// Wait until every stream has run everything enqueued.
    fn synchronize(&mut self) -> Result<(), String>;
}

/// The commands of one collective in enqueue order (stream index, command), and the
/// events they use.
#[derive(Debug, Clone)]
pub struct Order {
    pub cmds: Vec<(usize, Cmd)>,
    pub events: usize,
}

/// The enqueue order of `threads` (one per stream, as the host run makes them) over
/// `notifies` notifies, reduces on elements of `size` bytes; Err names every task left
/// waiting when there is none.
pub(super) fn order(threads: &[Thread], notifies: usize, size: usize) -> Result<Order, String> {
    // The event of the k-th Post of each notify, made as the Posts are enqueued; a Wait
    // takes the event of the Post it pairs with.
    let mut posted: Vec<Vec<usize>> = vec![Vec::new(); notifies];
    let mut waited = vec![0usize; notifies];
    let mut events = 0;
    let mut at = vec![0usize; threads.len()];
    let mut cmds = Vec::new();
    loop {
        let mut moved = false;
        for (s, t) in threads.iter().enumerate() {
            while let Some(op) = t.ops.get(at[s]) {
                let cmd = match *op {
                    Op::Copy { src, dst, bytes } => Cmd::Copy { src, dst, bytes },
                    Op::Reduce { src, dst, elems, .. } => Cmd::Reduce { src, dst, elems, size },
                    Op::Post(n) => {
                        if posted[n].len() > waited[n] {
                            break;
                        }
                        posted[n].push(events);
                        events += 1;
                        Cmd::Record(events - 1)
                    }
                    Op::Wait(n) => {
                        let Some(&e) = posted[n].get(waited[n]) else { break };
                        waited[n] += 1;
                        Cmd::Wait(e)
                    }
                };
                cmds.push((s, cmd));
                at[s] += 1;
                moved = true;
            }
        }
        if at.iter().zip(threads).all(|(&a, t)| a == t.ops.len()) {
            return Ok(Order { cmds, events });
        }
        if !moved {
            let stuck: Vec<String> = threads
                .iter()
                .enumerate()
                .filter(|(s, t)| at[*s] < t.ops.len())
                .map(|(s, t)| {
                    let i = t.at[at[s]];
                    let why = if matches!(t.ops[at[s]], Op::Post(_)) { ", its notify still set" } else { "" };
                    format!("rank {} {} task {} ({}){why}", t.rank, t.stream, i + 1, describe(t, i))
                })
                .collect();
            let shown = stuck.iter().take(6).cloned().collect::<Vec<_>>().join("; ");
            let more = if stuck.len() > 6 { format!(" and {} more", stuck.len() - 6) } else { String::new() };
            return Err(format!(
                "no order enqueues every Post before its Wait, the plan deadlocks: waiting {shown}{more}"
            ));
        }
    }
}

/// Run `iters` collectives on `dev` (prepared): every iteration's commands enqueued in
/// `order`, then one wait for the device.
pub fn run(dev: &mut dyn Device, order: &Order, iters: usize) -> Result<(), String> {
    for _ in 0..iters {
        for &(s, cmd) in &order.cmds {
            dev.enqueue(s, cmd)?;
        }
    }
    dev.synchronize()
}

/// Host regions and the device memory mirroring them: (host start, bytes, device
/// address), sorted by host start.
#[derive(Debug, Clone, Default)]
pub struct Mirror(Vec<(usize, usize, u64)>);

impl Mirror {
    pub fn new(mut regions: Vec<(usize, usize, u64)>) -> Mirror {
        regions.sort_unstable();
        Mirror(regions)
    }

    /// The device address of host address `p` and the `bytes` after it.
    pub fn map(&self, p: usize, bytes: usize) -> Result<u64, String> {
        let i = self.0.partition_point(|&(start, _, _)| start <= p);
        match i.checked_sub(1).map(|i| self.0[i]) {
            Some((start, len, dev)) if p + bytes <= start + len => Ok(dev + (p - start) as u64),
            _ => Err(format!("host address {p:#x} (+{bytes} bytes) is in no mirrored buffer")),
        }
    }

    /// `cmd` with its host pointers replaced by device addresses.
    pub fn cmd(&self, cmd: Cmd) -> Result<Cmd, String> {
        Ok(match cmd {
            Cmd::Copy { src, dst, bytes } => Cmd::Copy {
                src: self.map(src as usize, bytes)? as *const u8,
                dst: self.map(dst as usize, bytes)? as *mut u8,
                bytes,
            },
            Cmd::Reduce { src, dst, elems, size } => Cmd::Reduce {
                src: self.map(src as usize, elems * size)? as *const u8,
                dst: self.map(dst as usize, elems * size)? as *mut u8,
                elems,
                size,
            },
            c => c,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::plan::Task;

    fn thread(rank: usize, ops: Vec<Op>) -> Thread {
        let n = ops.len();
        let tasks = (0..n).map(|i| Task::Post(format!("t{i}"))).collect();
        Thread { rank, stream: "main".into(), tasks, ops, at: (0..n).collect(), index: 0, main: true }
    }

    #[test]
    fn every_record_comes_before_its_wait() {
        // Stream 0 waits for notify 0 that stream 1 posts after waiting for notify 1,
        // which stream 0 posts first.
        let a = thread(0, vec![Op::Post(1), Op::Wait(0), Op::Post(1), Op::Wait(0)]);
        let b = thread(1, vec![Op::Wait(1), Op::Post(0), Op::Wait(1), Op::Post(0)]);
        let o = order(&[a, b], 2, 4).unwrap();
        assert_eq!(o.events, 4);
        for (i, &(_, c)) in o.cmds.iter().enumerate() {
            if let Cmd::Wait(e) = c {
                assert!(o.cmds[..i].iter().any(|&(_, x)| x == Cmd::Record(e)), "{:?}", o.cmds);
            }
        }
        // The second Post of notify 1 waits for the first to be consumed.
        let first_wait = o.cmds.iter().position(|&(s, c)| s == 1 && c == Cmd::Wait(0)).unwrap();
        let second_post = o.cmds.iter().position(|&(_, c)| c == Cmd::Record(2)).unwrap();
        assert!(first_wait < second_post, "{:?}", o.cmds);
    }

    #[test]
    fn a_mirror_maps_host_addresses_into_device_buffers() {
        let m = Mirror::new(vec![(0x2000, 0x100, 0x9000), (0x1000, 0x80, 0x7000)]);
        assert_eq!(m.map(0x1010, 0x70), Ok(0x7010));
        assert_eq!(m.map(0x20ff, 1), Ok(0x90ff));
        assert!(m.map(0x1010, 0x71).is_err());
        assert!(m.map(0x0fff, 1).is_err());
        assert!(m.map(0x3000, 0).is_err());
        let c = Cmd::Reduce { src: 0x1000 as *const u8, dst: 0x2010 as *mut u8, elems: 4, size: 4 };
        assert_eq!(m.cmd(c), Ok(Cmd::Reduce { src: 0x7000 as *const u8, dst: 0x9010 as *mut u8, elems: 4, size: 4 }));
    }

    #[test]
    fn a_cycle_of_waits_is_a_deadlock_named() {
        let a = thread(0, vec![Op::Wait(0), Op::Post(1)]);
        let b = thread(1, vec![Op::Wait(1), Op::Post(0)]);
        let e = order(&[a, b], 2, 4).unwrap_err();
        assert!(e.contains("the plan deadlocks: waiting rank 0 main task 1 (Post t0); rank 1 main task 1"), "{e}");
        // Two Posts of one notify before anyone waits: the second would be lost.
        let a = thread(0, vec![Op::Post(0), Op::Post(0)]);
        let e = order(&[a], 1, 4).unwrap_err();
        assert!(e.contains("its notify still set"), "{e}");
    }
}
