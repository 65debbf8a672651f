//! The timed run: a program's thread blocks as processes on a clock, moving slices over
//! their connections' routes.
//!
//! A thread block runs its operations in order, each loop iteration again. A transfer is
//! cut into the runtime's calls (called slices here); a slice starts when the block is
//! free, its dependencies have been published, the slice it receives has arrived and its
//! send connection has room (8 slots; a Simple call takes 4, LL and LL128 1). It then runs at the lowest of the
//! block's rate on the route and, on every link of the route, the link's bandwidth
//! divided among the slices on that link when it starts (the protocol's efficiency
//! applied), and arrives one route latency after it ends. A receiver frees the slot
//! when it has consumed the slice. Local copies and reductions run at the block's local
//! rate. Events are taken in time order, so a link's sharing is the sharing at that time.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use super::super::lower::{Lowered, Op};
use super::super::program::{Program, Protocol, StepKind};
use super::super::runtime::Runtime;
use super::fabric::{EFFICIENCY, Fabric, Route, proto_index};

/// FIFO slots per connection (NCCL_STEPS).
pub const DEPTH_SLOTS: u32 = 8;
/// Loop iterations simulated at most: a larger message is simulated in this many
/// iterations of proportionally larger pieces (the pipeline is full by then).
pub const MAX_ITERATIONS: u64 = 4;
/// Latency of a local copy or reduction (µs).
pub const LOCAL_ALPHA_US: f64 = 0.2;

/// Bytes per chunk the runtime moves per loop iteration, by protocol (NCCL's default
/// buffers: Simple 4 MiB in 8 slots, a call of 2 slices of 2 slots; LL 32 KiB a call;
/// LL128 576,000 bytes a call).
fn window(proto: Protocol) -> f64 {
    match proto {
        Protocol::Simple => 2.0 * 1048576.0,
        Protocol::LL => 32768.0,
        Protocol::LL128 => 576000.0,
    }
}

/// The most bytes one call carries (Simple: 4 slots of 512 KiB, 1 for reduce and
/// broadcast).
fn call_window(proto: Protocol, coll: super::super::program::Collective) -> f64 {
    use super::super::program::Collective;
    match (proto, coll) {
        (Protocol::Simple, Collective::Reduce | Collective::Broadcast) => 524288.0,
        _ => window(proto),
    }
}

/// What one timed run found.
#[derive(Debug, Clone)]
pub struct Timing {
    /// From the first slice to the last, without the collective's base latency (µs).
    pub span_us: f64,
    /// Payload bytes that crossed each resource (indexed like `Fabric::resources`).
    pub link_bytes: Vec<f64>,
    /// Time slices spent limited by each resource (µs summed over slices).
    pub link_limited_us: Vec<f64>,
    /// Time slices spent limited by the thread block's own rate (µs summed).
    pub cap_limited_us: f64,
    /// The most transfer time one thread block spent (µs).
    pub busiest_block_us: f64,
    /// The most time one thread block spent sending at its own rate, no link slower
    /// (µs): how long the block rate alone holds the program up.
    pub block_rate_us: f64,
    pub slices: u64,
}

#[derive(Clone, Copy)]
enum Ev {
    Try(usize),
    End(usize),
}

struct Event {
    t: f64,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: the heap pops the earliest.
        o.t.total_cmp(&self.t).then(o.seq.cmp(&self.seq))
    }
}

/// The run's events: a heap for later times, a FIFO for the time being processed.
struct Queue {
    heap: BinaryHeap<Event>,
    at_now: VecDeque<Ev>,
    now: f64,
    seq: u64,
}

impl Queue {
    fn push(&mut self, t: f64, ev: Ev) {
        if t <= self.now {
            self.at_now.push_back(ev);
        } else {
            self.seq += 1;
            self.heap.push(Event { t, seq: self.seq, ev });
        }
    }

    fn pop(&mut self) -> Option<(f64, Ev)> {
        if self.heap.peek().is_none_or(|e| e.t > self.now)
            && let Some(ev) = self.at_now.pop_front()
        {
            return Some((self.now, ev));
        }
        let e = self.heap.pop()?;
        self.now = e.t;
        Some((e.t, e.ev))
    }
}

#[derive(Default)]
struct Conn {
    route: usize,
    /// Slots taken by slices sent and not yet consumed.
    taken: u32,
    /// Arrival times of slices not yet taken by the receiver.
    arrived: VecDeque<f64>,
    recv_waiter: Option<usize>,
    send_waiter: Option<usize>,
}

#[derive(Default, Clone)]
struct Block {
    gpu: usize,
    tb: usize,
    send: Option<usize>,
    recv: Option<usize>,
    iter: u64,
    op: usize,
    slice: u64,
    waited: bool,
    busy: bool,
    done: bool,
    /// The slice in flight: whether it sends, receives, and its rate's links.
    sending: bool,
    receiving: bool,
    transfer_us: f64,
    /// Of which at the block's own rate.
    cap_us: f64,
}

/// The blocks, connections and routes of a program on a fabric: made once, run for
/// every size.
pub struct Prepared<'a> {
    p: &'a Program,
    runtime: Runtime,
    lowered: &'a [Lowered],
    blocks: Vec<Block>,
    conns: Vec<(super::super::program::Conn, usize)>,
    pub routes: Vec<Route>,
    /// Per block, per operation: the global blocks and steps it waits on.
    waits: Vec<Vec<Vec<(usize, u32)>>>,
}

impl<'a> Prepared<'a> {
    pub fn new(
        p: &'a Program,
        runtime: Runtime,
        lowered: &'a [Lowered],
        fabric: &Fabric,
    ) -> Result<Prepared<'a>, String> {
        use std::collections::BTreeMap;
        let mut conn_ix: BTreeMap<super::super::program::Conn, usize> = BTreeMap::new();
        let mut conns = Vec::new();
        let mut routes = Vec::new();
        let mut blocks = Vec::new();
        let mut index = Vec::new();
        let mut conn = |c: super::super::program::Conn| -> Result<usize, String> {
            if let Some(&i) = conn_ix.get(&c) {
                return Ok(i);
            }
            routes.push(fabric.route(c.from, c.to, c.chan)?);
            conns.push((c, routes.len() - 1));
            conn_ix.insert(c, conns.len() - 1);
            Ok(conns.len() - 1)
        };
        for (gi, g) in p.gpus.iter().enumerate() {
            let mut row = Vec::new();
            for (ti, t) in g.tbs.iter().enumerate() {
                let send =
                    t.send.map(|to| conn(super::super::program::Conn { chan: t.chan, from: g.id, to })).transpose()?;
                let recv = t
                    .recv
                    .map(|from| conn(super::super::program::Conn { chan: t.chan, from, to: g.id }))
                    .transpose()?;
                row.push(blocks.len());
                blocks.push(Block { gpu: gi, tb: ti, send, recv, ..Block::default() });
            }
            index.push(row);
        }
        let mut waits = Vec::with_capacity(blocks.len());
        for bl in &blocks {
            let g = &p.gpus[bl.gpu];
            let mut per_op = Vec::new();
            for op in &lowered[bl.gpu].tbs[bl.tb] {
                let mut v = Vec::with_capacity(op.waits.len());
                for w in &op.waits {
                    let Some(ti) = g.tbs.iter().position(|x| x.id == w.tb) else {
                        return Err(format!(
                            "gpu {} thread block {} waits on thread block {}, which does not exist",
                            g.id, g.tbs[bl.tb].id, w.tb
                        ));
                    };
                    v.push((index[bl.gpu][ti], w.step));
                }
                per_op.push(v);
            }
            waits.push(per_op);
        }
        Ok(Prepared { p, runtime, lowered, blocks, conns, routes, waits })
    }

    pub fn conn(&self, i: usize) -> super::super::program::Conn {
        self.conns[i].0
    }

    /// Indices of the connections whose route crosses resource `r`.
    pub fn conns_on(&self, r: u32) -> Vec<usize> {
        (0..self.conns.len()).filter(|&i| self.routes[self.conns[i].1].links.contains(&r)).collect()
    }

    fn ops(&self, b: usize) -> &'a [Op] {
        let bl = &self.blocks[b];
        &self.lowered[bl.gpu].tbs[bl.tb]
    }

    /// Run the program for a call of `bytes` (the larger buffer's bytes: what nccl-tests
    /// calls the size). `Err` when it cannot complete at the runtime's FIFO depth.
    pub fn run(&self, fabric: &Fabric, bytes: u64) -> Result<Timing, String> {
        let h = &self.p.header;
        let pi = proto_index(h.proto);
        let eff = EFFICIENCY[pi];
        // A call moves as one unit here: its slots (Simple 2 slices of 2, LL and LL128 1).
        let sps = h.proto.slots_per_slice() * h.proto.slices_per_call();
        let chunk = bytes as f64 / f64::from(h.chunks_per_loop.max(1));
        let win = window(h.proto);
        let iterations = ((chunk / win).ceil() as u64).clamp(1, MAX_ITERATIONS);
        let piece = chunk / iterations as f64;
        // A message that fits one iteration moves several chunks per call.
        let per_call = if iterations == 1 && chunk > 0.0 {
            ((call_window(h.proto, h.coll) / chunk) as u64).clamp(1, u64::from(self.runtime.max_count() - 1))
        } else {
            1
        };
        let local_gbs = fabric.local_gbs();

        let mut blocks = self.blocks.clone();
        let mut conns: Vec<Conn> = self.conns.iter().map(|&(_, r)| Conn { route: r, ..Conn::default() }).collect();
        let nres = fabric.resources.len();
        let mut active = vec![0u32; nres];
        let mut link_bytes = vec![0.0; nres];
        let mut link_limited_us = vec![0.0; nres];
        let mut cap_limited_us = 0.0;
        let mut flags: Vec<Option<(u64, u32)>> = vec![None; blocks.len()];
        let mut flag_waiters: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
        // Events in (time, order pushed) order. Most are pushed for the time being
        // processed (a block free again, a waiter woken): those wait in `at_now`, in the
        // order pushed, behind the heap's events for that time (pushed earlier), which is
        // the order the heap alone would give, without its cost.
        let mut queue = Queue { heap: BinaryHeap::new(), at_now: VecDeque::new(), now: 0.0, seq: 0 };
        for b in 0..blocks.len() {
            queue.push(0.0, Ev::Try(b));
        }
        let mut now = 0.0f64;
        let mut slices = 0u64;
        let slices_of = |op: &Op| -> (u64, f64) {
            let total = f64::from(op.count) * piece;
            if !(op.kind.sends() || op.kind.receives()) {
                return (1, total);
            }
            // The runtime's calls.
            let n = u64::from(op.count).div_ceil(per_call).max(1);
            (n, total / n as f64)
        };
        while let Some((t, ev)) = queue.pop() {
            now = t;
            match ev {
                Ev::Try(b) => {
                    let ops = self.ops(b);
                    let bl = &mut blocks[b];
                    if bl.busy || bl.done {
                        continue;
                    }
                    while bl.op == ops.len() {
                        bl.iter += 1;
                        bl.op = 0;
                        if bl.iter == iterations {
                            bl.done = true;
                            break;
                        }
                    }
                    if bl.done {
                        continue;
                    }
                    let op = &ops[bl.op];
                    if !bl.waited {
                        let mut blocked = false;
                        for &(target, step) in &self.waits[b][bl.op] {
                            if flags[target].is_none_or(|f| f < (bl.iter, step)) {
                                if !flag_waiters[target].contains(&b) {
                                    flag_waiters[target].push(b);
                                }
                                blocked = true;
                                break;
                            }
                        }
                        if blocked {
                            continue;
                        }
                        bl.waited = true;
                    }
                    let (_, slice_bytes) = slices_of(op);
                    let recv = bl.recv.filter(|_| op.kind.receives());
                    let send = bl.send.filter(|_| op.kind.sends());
                    if let Some(c) = recv {
                        match conns[c].arrived.front() {
                            None => {
                                conns[c].recv_waiter = Some(b);
                                continue;
                            }
                            Some(&at) if at > now => {
                                queue.push(at, Ev::Try(b));
                                continue;
                            }
                            Some(_) => {}
                        }
                    }
                    if let Some(c) = send
                        && conns[c].taken + sps > DEPTH_SLOTS
                    {
                        conns[c].send_waiter = Some(b);
                        continue;
                    }
                    if let Some(c) = recv {
                        conns[c].arrived.pop_front();
                    }
                    let dur = if let Some(c) = send {
                        conns[c].taken += sps;
                        let route = &self.routes[conns[c].route];
                        let cap = route.cap_gbs[pi];
                        let mut rate = cap;
                        let mut limit: Option<u32> = None;
                        for &l in &route.links {
                            let share = eff * fabric.resources[l as usize].bw_gbs / f64::from(active[l as usize] + 1);
                            if share < rate {
                                rate = share;
                                limit = Some(l);
                            }
                        }
                        let dur = if rate > 0.0 { slice_bytes / (rate * 1e3) } else { f64::INFINITY };
                        for &l in &route.links {
                            active[l as usize] += 1;
                            link_bytes[l as usize] += slice_bytes;
                        }
                        match limit {
                            Some(l) => link_limited_us[l as usize] += dur,
                            None => {
                                cap_limited_us += dur;
                                bl.cap_us += dur;
                            }
                        }
                        bl.transfer_us += dur;
                        dur
                    } else if op.kind == StepKind::ResAdd {
                        0.0
                    } else {
                        // Bytes read and written by a local copy, reduction or receive.
                        let reads = match op.kind {
                            StepKind::Reduce => op.reduce_srcs.len().max(1) as f64 + 1.0,
                            k if k.reduces() => 2.0,
                            _ => 1.0,
                        };
                        LOCAL_ALPHA_US + slice_bytes * (reads + 1.0) / (local_gbs * 1e3)
                    };
                    if !dur.is_finite() {
                        return Err("a connection's route has no bandwidth".into());
                    }
                    bl.sending = send.is_some();
                    bl.receiving = recv.is_some();
                    bl.busy = true;
                    slices += 1;
                    queue.push(now + dur, Ev::End(b));
                }
                Ev::End(b) => {
                    let ops = self.ops(b);
                    let (sending, receiving) = (blocks[b].sending, blocks[b].receiving);
                    if sending && let Some(c) = blocks[b].send {
                        let route = &self.routes[conns[c].route];
                        for &l in &route.links {
                            active[l as usize] -= 1;
                        }
                        let at = now + route.alpha_us[pi];
                        conns[c].arrived.push_back(at);
                        if let Some(w) = conns[c].recv_waiter.take() {
                            queue.push(at, Ev::Try(w));
                        }
                    }
                    if receiving && let Some(c) = blocks[b].recv {
                        conns[c].taken -= sps;
                        if let Some(w) = conns[c].send_waiter.take() {
                            queue.push(now, Ev::Try(w));
                        }
                    }
                    let bl = &mut blocks[b];
                    bl.busy = false;
                    bl.slice += 1;
                    let op = &ops[bl.op];
                    let (n, _) = slices_of(op);
                    if bl.slice == n {
                        bl.slice = 0;
                        bl.waited = false;
                        bl.op += 1;
                        if op.publish {
                            flags[b] = Some((bl.iter, op.number));
                            for w in std::mem::take(&mut flag_waiters[b]) {
                                queue.push(now, Ev::Try(w));
                            }
                        }
                    }
                    queue.push(now, Ev::Try(b));
                }
            }
        }
        if let Some(b) = blocks.iter().find(|b| !b.done) {
            let g = &self.p.gpus[b.gpu];
            return Err(format!(
                "the program does not complete at the runtime's FIFO depth ({DEPTH_SLOTS} slots): gpu {} thread block {} stops in iteration {} at its operation {} (topo algo check says why)",
                g.id, g.tbs[b.tb].id, b.iter, b.op
            ));
        }
        let busiest_block_us = blocks.iter().map(|b| b.transfer_us).fold(0.0, f64::max);
        let block_rate_us = blocks.iter().map(|b| b.cap_us).fold(0.0, f64::max);
        Ok(Timing {
            span_us: now,
            link_bytes,
            link_limited_us,
            cap_limited_us,
            busiest_block_us,
            block_rate_us,
            slices,
        })
    }
}
