//! A program run as the runtime runs it, on symbols instead of numbers.
//!
//! Every thread block is a sequential process; connections are FIFOs of the protocol's
//! slots (Simple moves a call as 2 slices of 2 slots, LL and LL128 as 1 slice of 1
//! slot; the runtime has 8 slots); dependencies wait on one flag per thread block
//! holding its last published (iteration, step). Such a system is a Kahn process
//! network: whether it completes does not depend on the order the blocks run in, and
//! a run that completes with K slots completes with more. So one run per depth decides
//! a deadlock, and a binary search finds the smallest depth that completes.
//!
//! Data are symbols: every input chunk of every rank is one symbol, a chunk holds a
//! multiset of them, and reductions add multisets. Each loop iteration has its own
//! memory (iterations touch disjoint element windows of every chunk).

use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use super::lower::{Lowered, Op};
use super::program::{Buffer, Collective, Conn, Mode, Program, StepKind};
use super::runtime::Runtime;

/// Loop iterations simulated at most: two, so that a connection also carries the next
/// iteration's messages and flags compare across iterations.
pub const ITERATIONS: u32 = 2;

/// How the runtime cuts a program's steps into primitive calls at one message size:
/// when the whole message fits one loop iteration, a step of `cnt` chunks is
/// ceil(cnt / chunks_per_call) calls; otherwise every chunk is its own call and the
/// step list runs once per iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Regime {
    /// The message size this regime is for (`None`: unbounded, the largest sizes).
    pub bytes: Option<u64>,
    pub chunks_per_call: u32,
    pub iterations: u32,
}

impl Regime {
    /// Per-chunk calls over several iterations: the regime of large messages.
    pub const LARGE: Regime = Regime { bytes: None, chunks_per_call: 1, iterations: ITERATIONS };

    /// The regime at the largest message the header admits (the one that puts the
    /// most calls through every connection), with the default NCCL buffer sizes.
    pub fn largest(p: &Program, runtime: super::runtime::Runtime) -> Regime {
        let h = &p.header;
        let max = match (runtime.max_bytes_inclusive(), h.max_bytes) {
            (true, None | Some(0)) => return Regime::LARGE,
            (true, Some(m)) => m,
            (false, None) => runtime.default_max_bytes() - 1,
            (false, Some(m)) => m - 1,
        };
        if max <= 0 {
            return Regime::LARGE;
        }
        let (window, effective) = call_bytes(h.proto, h.coll);
        let chunk = (max as u64).div_ceil(u64::from(h.chunks_per_loop.max(1))).max(1);
        let iterations = chunk.div_ceil(window).clamp(1, u64::from(ITERATIONS)) as u32;
        let per_call = (effective / chunk).clamp(1, u64::from(runtime.max_count() - 1)) as u32;
        Regime { bytes: Some(max as u64), chunks_per_call: per_call, iterations }
    }

    pub fn calls(&self, count: u32) -> u32 {
        count.div_ceil(self.chunks_per_call.max(1))
    }
}

/// A chunk's content: nothing written yet, or a multiset of input symbols (sorted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Val {
    Uninit,
    Sum(Rc<Vec<u32>>),
}

impl Val {
    fn plus(&self, other: &Val) -> Val {
        match (self, other) {
            (Val::Sum(a), Val::Sum(b)) => {
                let mut v = Vec::with_capacity(a.len() + b.len());
                let (mut i, mut j) = (0, 0);
                while i < a.len() && j < b.len() {
                    if a[i] <= b[j] {
                        v.push(a[i]);
                        i += 1;
                    } else {
                        v.push(b[j]);
                        j += 1;
                    }
                }
                v.extend_from_slice(&a[i..]);
                v.extend_from_slice(&b[j..]);
                Val::Sum(Rc::new(v))
            }
            _ => Val::Uninit,
        }
    }
}

/// Bytes of the kernel's loop window and of the payload one call may carry, with
/// NCCL's default buffers (Simple 4 MiB in 8 steps of 512 KiB, 4 steps per call, 1 for
/// reduce and broadcast on the host side; LL 512 KiB of which half is flags; LL128
/// 4,915,200 B with 120 of 128 bytes data).
fn call_bytes(proto: super::program::Protocol, coll: Collective) -> (u64, u64) {
    use super::program::Protocol;
    match proto {
        Protocol::Simple => {
            let step = 512 << 10;
            let host_steps = if matches!(coll, Collective::Reduce | Collective::Broadcast) { 1 } else { 4 };
            (4 * step, host_steps * step)
        }
        Protocol::LL => (32 << 10, 32 << 10),
        Protocol::LL128 => (576_000, 576_000),
    }
}

/// The buffers one rank really has, after in-place aliasing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phys {
    In,
    Out,
    Scratch,
}

/// Where (buffer, chunk) of the program lands in a rank's memory in a mode.
pub fn phys(coll: Collective, mode: Mode, rank: u32, per_rank: u32, buf: Buffer, off: u32) -> (Phys, u32) {
    match (mode, buf) {
        (_, Buffer::Scratch) => (Phys::Scratch, off),
        (Mode::OutOfPlace, Buffer::Input) => (Phys::In, off),
        (Mode::OutOfPlace, Buffer::Output) => (Phys::Out, off),
        (Mode::InPlace, Buffer::Input) => match coll {
            Collective::AllGather | Collective::Gather => (Phys::Out, rank * per_rank + off),
            _ => (Phys::In, off),
        },
        (Mode::InPlace, Buffer::Output) => match coll {
            Collective::ReduceScatter | Collective::Scatter => (Phys::In, rank * per_rank + off),
            Collective::AllGather | Collective::Gather => (Phys::Out, off),
            _ => (Phys::In, off),
        },
    }
}

/// One rank's memory in one iteration.
#[derive(Debug, Clone)]
pub struct Memory {
    pub input: Vec<Val>,
    pub output: Vec<Val>,
    pub scratch: Vec<Val>,
}

impl Memory {
    pub fn get_val(&self, p: Phys, i: u32) -> Val {
        let v = match p {
            Phys::In => &self.input,
            Phys::Out => &self.output,
            Phys::Scratch => &self.scratch,
        };
        v.get(i as usize).cloned().unwrap_or(Val::Uninit)
    }

    fn set(&mut self, p: Phys, i: u32, val: Val) {
        let v = match p {
            Phys::In => &mut self.input,
            Phys::Out => &mut self.output,
            Phys::Scratch => &mut self.scratch,
        };
        if let Some(slot) = v.get_mut(i as usize) {
            *slot = val;
        }
    }
}

/// Chunk counts of the collective's definition: input chunks per rank, output chunks
/// per rank, and the per-rank part B = C / n.
pub fn definition_sizes(p: &Program) -> (u32, u32, u32) {
    let h = &p.header;
    let c = h.chunks_per_loop;
    let b = (c / h.ngpus.max(1)).max(1);
    match h.coll {
        Collective::AllGather | Collective::Gather => (b, c, b),
        Collective::ReduceScatter | Collective::Scatter => (c, b, b),
        _ => (c, c, b),
    }
}

/// What a blocked thread block waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// A message on its receive connection.
    Recv(Conn),
    /// Room on its send connection.
    Send(Conn),
    /// Thread block `tb` (index into the GPU's blocks) to publish `step` of `iter`.
    Flag { tb: usize, iter: u32, step: u32 },
}

/// A thread block that could not go on.
#[derive(Debug, Clone)]
pub struct Blocked {
    pub gpu: usize,
    pub tb: usize,
    pub iter: u32,
    /// The runtime operation it is in (index into the lowered blocks).
    pub op: usize,
    pub wait: Wait,
}

/// A read of a chunk nothing had written (first occurrence per place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UninitRead {
    pub gpu: usize,
    pub tb: usize,
    pub op: usize,
    pub buf: Buffer,
    pub chunk: u32,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Every block finished; with data, each rank's memory after iteration 0.
    Completed {
        memory: Option<Vec<Memory>>,
        uninit: Vec<UninitRead>,
    },
    Deadlock(Vec<Blocked>),
}

/// What a run tracks.
#[derive(Debug, Clone, Copy)]
pub struct RunConfig {
    /// FIFO slots per connection; `None` for unbounded.
    pub depth: Option<u32>,
    /// Symbolic data in this mode, or only the flow of messages.
    pub data: Option<Mode>,
}

#[derive(Debug, Clone)]
struct Slice {
    payload: Option<Vec<Val>>,
}

#[derive(Default)]
struct Fifo {
    queue: VecDeque<Slice>,
    recv_waiters: Vec<usize>,
    send_waiters: Vec<usize>,
}

#[derive(Default, Clone)]
struct TbState {
    iter: u32,
    op: usize,
    call: u32,
    slice: u32,
    waited: bool,
    done: bool,
    /// The value of the call in flight (fused steps forward it slice by slice).
    carry: Option<Vec<Val>>,
}

struct Block {
    gpu: usize,
    tb: usize,
    send: Option<usize>,
    recv: Option<usize>,
}

/// A prepared program: blocks, connections and their indices.
pub struct Machine<'a> {
    p: &'a Program,
    regime: Regime,
    runtime: Runtime,
    lowered: &'a [Lowered],
    blocks: Vec<Block>,
    /// Global block index of (gpu index, tb index).
    index: Vec<Vec<usize>>,
    conns: Vec<Conn>,
}

impl<'a> Machine<'a> {
    pub fn new(p: &'a Program, lowered: &'a [Lowered], regime: Regime, runtime: Runtime) -> Machine<'a> {
        let mut conn_ix: BTreeMap<Conn, usize> = BTreeMap::new();
        let mut conns = Vec::new();
        let mut blocks = Vec::new();
        let mut index = Vec::new();
        let mut conn = |c: Conn, conns: &mut Vec<Conn>| {
            *conn_ix.entry(c).or_insert_with(|| {
                conns.push(c);
                conns.len() - 1
            })
        };
        for (gi, g) in p.gpus.iter().enumerate() {
            let mut row = Vec::new();
            for (ti, t) in g.tbs.iter().enumerate() {
                let send = t.send.map(|to| conn(Conn { chan: t.chan, from: g.id, to }, &mut conns));
                let recv = t.recv.map(|from| conn(Conn { chan: t.chan, from, to: g.id }, &mut conns));
                row.push(blocks.len());
                blocks.push(Block { gpu: gi, tb: ti, send, recv });
            }
            index.push(row);
        }
        Machine { p, regime, runtime, lowered, blocks, index, conns }
    }

    pub fn conns(&self) -> &[Conn] {
        &self.conns
    }

    fn ops(&self, b: usize) -> &[Op] {
        let bl = &self.blocks[b];
        &self.lowered[bl.gpu].tbs[bl.tb]
    }

    /// Slots pushed on each connection over the simulated iterations: the depth at
    /// which no sender ever waits for room.
    pub fn slots_sent(&self) -> Vec<u64> {
        let proto = self.p.header.proto;
        let per_call = u64::from(proto.slices_per_call() * proto.slots_per_slice());
        let mut v = vec![0u64; self.conns.len()];
        for (b, bl) in self.blocks.iter().enumerate() {
            if let Some(c) = bl.send {
                let calls: u64 =
                    self.ops(b).iter().filter(|o| o.kind.sends()).map(|o| u64::from(self.regime.calls(o.count))).sum();
                v[c] += calls * per_call * u64::from(self.regime.iterations);
            }
        }
        v
    }

    fn initial_memory(&self, mode: Mode) -> Vec<Memory> {
        let h = &self.p.header;
        let (ci, co, b) = definition_sizes(self.p);
        self.p
            .gpus
            .iter()
            .map(|g| {
                let in_len = g.input_chunks.max(
                    if mode == Mode::InPlace && matches!(h.coll, Collective::ReduceScatter | Collective::Scatter) {
                        h.chunks_per_loop
                    } else {
                        ci
                    },
                );
                let out_len = g.output_chunks.max(co);
                let mut m = Memory {
                    input: vec![Val::Uninit; in_len as usize],
                    output: vec![Val::Uninit; out_len as usize],
                    scratch: vec![Val::Uninit; g.scratch_chunks as usize],
                };
                for k in 0..ci {
                    let (p, i) = phys(h.coll, mode, g.id, b, Buffer::Input, k);
                    m.set(p, i, Val::Sum(Rc::new(vec![g.id * ci + k])));
                }
                m
            })
            .collect()
    }

    /// Run the program once.
    pub fn run(&self, cfg: RunConfig) -> Outcome {
        let h = &self.p.header;
        let sps = h.proto.slots_per_slice();
        let slices = h.proto.slices_per_call();
        let cap = cfg.depth.map(|d| d.max(sps));
        let (_, _, per_rank) = definition_sizes(self.p);
        let mut memory: Vec<Vec<Memory>> = match cfg.data {
            Some(mode) => (0..self.regime.iterations).map(|_| self.initial_memory(mode)).collect(),
            None => Vec::new(),
        };
        let mut uninit: Vec<UninitRead> = Vec::new();
        let mut fifos: Vec<Fifo> = (0..self.conns.len()).map(|_| Fifo::default()).collect();
        let mut state = vec![TbState::default(); self.blocks.len()];
        let mut flags: Vec<Option<(u32, u32)>> = vec![None; self.blocks.len()];
        let mut flag_waiters: Vec<Vec<usize>> = vec![Vec::new(); self.blocks.len()];
        let mut blocked: Vec<Option<Wait>> = vec![None; self.blocks.len()];
        let mut ready: VecDeque<usize> = (0..self.blocks.len()).collect();
        let mut queued = vec![true; self.blocks.len()];
        let coll = h.coll;
        let wake = |list: &mut Vec<usize>, ready: &mut VecDeque<usize>, queued: &mut Vec<bool>| {
            for b in list.drain(..) {
                if !queued[b] {
                    queued[b] = true;
                    ready.push_back(b);
                }
            }
        };
        while let Some(b) = ready.pop_front() {
            queued[b] = false;
            let bl = &self.blocks[b];
            let gpu = &self.p.gpus[bl.gpu];
            let ops = self.ops(b);
            blocked[b] = None;
            loop {
                let st = &mut state[b];
                if st.done {
                    break;
                }
                if st.op == ops.len() {
                    st.iter += 1;
                    st.op = 0;
                    if st.iter == self.regime.iterations {
                        st.done = true;
                        break;
                    }
                    continue;
                }
                let op = &ops[st.op];
                if !st.waited {
                    let mut wait = None;
                    for w in &op.waits {
                        let Some(t) = gpu.tbs.iter().position(|x| x.id == w.tb) else {
                            // A wait on a block that does not exist never ends.
                            wait = Some(Wait::Flag { tb: usize::MAX, iter: st.iter, step: w.step });
                            break;
                        };
                        let target = self.index[bl.gpu][t];
                        if flags[target].is_none_or(|f| f < (st.iter, w.step)) {
                            wait = Some(Wait::Flag { tb: t, iter: st.iter, step: w.step });
                            if !flag_waiters[target].contains(&b) {
                                flag_waiters[target].push(b);
                            }
                            break;
                        }
                    }
                    if let Some(w) = wait {
                        blocked[b] = Some(w);
                        break;
                    }
                    st.waited = true;
                }
                let iter = st.iter as usize;
                let with_data = cfg.data.is_some();
                let at = |slot: super::program::Slot, j: u32| {
                    slot.off
                        .map(|o| phys(coll, cfg.data.unwrap_or(Mode::OutOfPlace), gpu.id, per_rank, slot.buf, o + j))
                };
                let read = |memory: &Vec<Vec<Memory>>,
                            uninit: &mut Vec<UninitRead>,
                            slot: super::program::Slot,
                            j: u32,
                            opi: usize|
                 -> Val {
                    let Some((p, i)) = at(slot, j) else { return Val::Uninit };
                    let v = memory[iter][bl.gpu].get_val(p, i);
                    if v == Val::Uninit && iter == 0 && uninit.len() < 64 {
                        uninit.push(UninitRead {
                            gpu: bl.gpu,
                            tb: bl.tb,
                            op: opi,
                            buf: slot.buf,
                            chunk: slot.off.unwrap_or(0) + j,
                        });
                    }
                    v
                };
                match op.kind {
                    StepKind::Copy | StepKind::Reduce => {
                        if with_data {
                            for j in 0..op.count {
                                let v = if op.kind == StepKind::Copy {
                                    read(&memory, &mut uninit, op.src, j, st.op)
                                } else {
                                    // What the kernel really reads (Simple drops operands
                                    // past the 16th, the destination first).
                                    let reads = self.runtime.fused_reduce_reads(h.proto, op.reduce_srcs.len());
                                    let mut acc = if reads.destination {
                                        read(&memory, &mut uninit, op.dst, j, st.op)
                                    } else {
                                        Val::Sum(Rc::new(Vec::new()))
                                    };
                                    for &o in op.reduce_srcs.iter().take(reads.sources) {
                                        let s = super::program::Slot { buf: op.src.buf, off: Some(o) };
                                        acc = acc.plus(&read(&memory, &mut uninit, s, j, st.op));
                                    }
                                    acc
                                };
                                if let Some((p, i)) = at(op.dst, j) {
                                    memory[iter][bl.gpu].set(p, i, v);
                                }
                            }
                        }
                    }
                    StepKind::Nop | StepKind::ResAdd => {}
                    k => {
                        let (recv, send) = (bl.recv.filter(|_| k.receives()), bl.send.filter(|_| k.sends()));
                        let mut stuck = None;
                        let calls = self.regime.calls(op.count);
                        let m = self.regime.chunks_per_call.max(1);
                        while st.call < calls {
                            if let Some(c) = recv
                                && fifos[c].queue.is_empty()
                            {
                                stuck = Some(Wait::Recv(self.conns[c]));
                                fifos[c].recv_waiters.push(b);
                                break;
                            }
                            if let Some(c) = send
                                && let Some(cap) = cap
                                && (fifos[c].queue.len() as u32 + 1) * sps > cap
                            {
                                stuck = Some(Wait::Send(self.conns[c]));
                                fifos[c].send_waiters.push(b);
                                break;
                            }
                            let mut payload = None;
                            if let Some(c) = recv {
                                let s = fifos[c].queue.pop_front().expect("checked non-empty");
                                payload = s.payload;
                                let mut w = std::mem::take(&mut fifos[c].send_waiters);
                                wake(&mut w, &mut ready, &mut queued);
                            }
                            if st.slice == 0 && with_data {
                                let chunks = st.call * m..((st.call + 1) * m).min(op.count);
                                let got = payload.unwrap_or_default();
                                let mut vals = Vec::with_capacity(chunks.len());
                                for (x, j) in chunks.enumerate() {
                                    let g = got.get(x).cloned().unwrap_or(Val::Uninit);
                                    let v = match k {
                                        StepKind::Send => read(&memory, &mut uninit, op.src, j, st.op),
                                        StepKind::Recv | StepKind::RecvCopySend => g,
                                        _ => g.plus(&read(&memory, &mut uninit, op.src, j, st.op)),
                                    };
                                    if k.writes_dst()
                                        && let Some((p, i)) = at(op.dst, j)
                                    {
                                        memory[iter][bl.gpu].set(p, i, v.clone());
                                    }
                                    vals.push(v);
                                }
                                st.carry = Some(vals);
                            }
                            if let Some(c) = send {
                                let payload = if st.slice == 0 { st.carry.take() } else { None };
                                fifos[c].queue.push_back(Slice { payload });
                                let mut w = std::mem::take(&mut fifos[c].recv_waiters);
                                wake(&mut w, &mut ready, &mut queued);
                            }
                            st.slice += 1;
                            if st.slice == slices {
                                st.slice = 0;
                                st.call += 1;
                            }
                        }
                        if let Some(w) = stuck {
                            blocked[b] = Some(w);
                            break;
                        }
                    }
                }
                if op.publish {
                    flags[b] = Some((st.iter, op.number));
                    let mut w = std::mem::take(&mut flag_waiters[b]);
                    wake(&mut w, &mut ready, &mut queued);
                }
                st.op += 1;
                st.call = 0;
                st.slice = 0;
                st.waited = false;
            }
        }
        let stuck: Vec<Blocked> = state
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.done)
            .map(|(b, s)| Blocked {
                gpu: self.blocks[b].gpu,
                tb: self.blocks[b].tb,
                iter: s.iter,
                op: s.op,
                wait: blocked[b].unwrap_or(Wait::Flag { tb: usize::MAX, iter: s.iter, step: 0 }),
            })
            .collect();
        if !stuck.is_empty() {
            return Outcome::Deadlock(stuck);
        }
        let memory = cfg.data.map(|_| memory.swap_remove(0));
        Outcome::Completed { memory, uninit }
    }

    /// The smallest FIFO depth (slots per connection) at which the program completes,
    /// or `None` when it deadlocks however deep the FIFOs are.
    pub fn min_depth(&self) -> Option<u32> {
        let sps = self.p.header.proto.slots_per_slice();
        let unbounded = RunConfig { depth: None, data: None };
        if matches!(self.run(unbounded), Outcome::Deadlock(_)) {
            return None;
        }
        let hi = self.slots_sent().into_iter().max().unwrap_or(0).max(u64::from(sps)).min(u64::from(u32::MAX)) as u32;
        let (mut lo, mut hi) = (sps, hi.max(sps));
        if self.completes(lo) {
            return Some(lo);
        }
        // completes(hi) holds: no sender ever waits at that depth.
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.completes(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }

    pub fn completes(&self, depth: u32) -> bool {
        matches!(self.run(RunConfig { depth: Some(depth), data: None }), Outcome::Completed { .. })
    }
}
