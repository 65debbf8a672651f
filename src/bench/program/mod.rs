//! The host backend of collective programs: an interpreter of MSCCL-IR on CPU threads,
//! run as the MSCCL runtime runs a program, on real data.
//!
//! * one OS thread per thread block per rank, each running its operations in the
//!   order [`crate::algo::lower`] gives them (nops folded into waits, `re` chains fused,
//!   the kernel's step numbers);
//! * one bounded FIFO per connection (channel, sender, receiver) of NCCL's 8 slots:
//!   a Simple call moves 2 slices of 2 slots (so 4 slices fit), an LL or LL128 call
//!   1 slice of 1 slot (8 fit); fused steps go slice by slice;
//! * one dependency flag per thread block holding the last (collective, iteration,
//!   step) it published; a wait ends when the flag has reached its target;
//! * steps are cut into calls as the runtime cuts them at the message size: when a
//!   chunk fits one loop iteration, a step of `cnt` chunks is ceil(cnt / m) calls of up
//!   to m whole chunks; otherwise every iteration moves one window of every chunk;
//! * in-place aliasing as the runtime defines it ([`crate::algo::sim::phys`]).
//!
//! A program is run only when `topo algo check` finds it ok ([`load`]). Validation is
//! against each collective's definition computed from the inputs alone
//! ([`reference`]), never from the program.

mod exec;
pub mod image;
pub mod reference;
pub mod sweep;
#[cfg(test)]
mod tests;

use std::time::Duration;

use crate::algo::lower::{Lowered, lower};
use crate::algo::program::{Buffer, Collective, Mode, Program, Protocol};
use crate::algo::sim::{Phys, definition_sizes, phys};
use crate::algo::{CheckOptions, Runtime, Verdict, check, read::read};
use crate::bench::host::AlignedBuf;
use crate::bench::{DataType, RedOp};
use crate::error::Error;
pub use exec::RankPtrs;

/// A program that `topo algo check` passed, ready to run.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub program: Program,
    pub lowered: Vec<Lowered>,
    /// The root of a broadcast or reduce (the one the checker found it right for).
    pub root: u32,
    /// Where the program came from, for messages.
    pub file: String,
}

/// The collectives the interpreter runs and validates.
pub fn runnable(coll: Collective) -> bool {
    matches!(
        coll,
        Collective::AllReduce
            | Collective::AllGather
            | Collective::ReduceScatter
            | Collective::AllToAll
            | Collective::Broadcast
            | Collective::Reduce
    )
}

/// Whether the collective reduces (takes a reduction operator).
pub fn reduces(coll: Collective) -> bool {
    matches!(coll, Collective::AllReduce | Collective::ReduceScatter | Collective::Reduce)
}

/// Read and check a program; refuse it with the checker's errors unless its verdict is ok.
pub fn load(text: &[u8], file: &str) -> Result<Loaded, Error> {
    let input = |message: String| Error::Input { file: file.to_string(), message };
    let report = check(text, CheckOptions::default()).map_err(input)?;
    if report.verdict != Verdict::Ok {
        let errors: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.is_error())
            .map(|f| format!("  {} [{}] {}", f.place, f.kind.name(), f.message))
            .collect();
        return Err(input(format!(
            "topo algo check says {}: the program is not run\n{}",
            report.verdict.name(),
            errors.join("\n")
        )));
    }
    let reading = read(text, Runtime::default()).map_err(input)?;
    let program = reading.program.ok_or_else(|| input("the header could not be read".into()))?;
    if !runnable(program.header.coll) {
        return Err(input(format!("{} programs have no definition to run and validate", program.header.coll)));
    }
    // One thread block per connection end: two writers (or readers) of one FIFO would
    // interleave their messages in an order nothing defines.
    let mut ends = std::collections::BTreeSet::new();
    for g in &program.gpus {
        for t in &g.tbs {
            let dirs = [t.send.map(|to| (t.chan, g.id, to, 's')), t.recv.map(|from| (t.chan, from, g.id, 'r'))];
            for end in dirs.into_iter().flatten() {
                if !ends.insert(end) {
                    return Err(input(format!(
                        "gpu {} tb {}: a second thread block on connection gpu {} -> gpu {} on channel {}; the interpreter needs one per end",
                        g.id, t.id, end.1, end.2, end.0
                    )));
                }
            }
        }
    }
    let lowered = program.gpus.iter().map(|g| lower(g, Runtime::default()).0).collect();
    Ok(Loaded { root: report.root.unwrap_or(0), program, lowered, file: file.to_string() })
}

/// How one message size is laid out and cut into calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// The user's per-rank count (nccl-tests' paramcount).
    pub count: usize,
    /// Elements per chunk (S = count x size multiplier / nchunksperloop).
    pub chunk: usize,
    /// Elements of the user's send and receive buffers of one rank.
    pub send: usize,
    pub recv: usize,
    /// Loop iterations of the kernel, and elements of a chunk each one moves.
    pub iterations: usize,
    pub window: usize,
    /// Whole chunks one call may carry (single-iteration case).
    pub per_call: usize,
    /// Slices per call, FIFO entries per connection, elements per entry.
    pub slices: usize,
    pub entries: usize,
    pub slice_elems: usize,
}

/// Bytes of the kernel's loop window and of the payload one call may carry, with NCCL's
/// default buffers (see the reference's section 1.8).
fn window_and_payload(proto: Protocol, coll: Collective) -> (usize, usize) {
    const STEP: usize = 512 << 10;
    match proto {
        Protocol::Simple if matches!(coll, Collective::Reduce | Collective::Broadcast) => (4 * STEP, STEP),
        Protocol::Simple => (4 * STEP, 4 * STEP),
        Protocol::LL => (32 << 10, 32 << 10),
        Protocol::LL128 => (576_000, 576_000),
    }
}

impl Loaded {
    pub fn nranks(&self) -> usize {
        self.program.header.ngpus as usize
    }

    pub fn coll(&self) -> Collective {
        self.program.header.coll
    }

    /// The per-rank counts the runtime selects the program for are multiples of this.
    pub fn count_unit(&self) -> usize {
        let h = &self.program.header;
        let c = h.chunks_per_loop.max(1) as u64;
        let m = h.coll.size_multiplier(h.ngpus);
        (c / gcd(c, m)) as usize
    }

    /// The layout of a message of `count` elements per rank.
    pub fn geometry(&self, dtype: DataType, count: usize) -> Result<Geometry, Error> {
        let h = &self.program.header;
        let n = h.ngpus as usize;
        let c = h.chunks_per_loop.max(1) as usize;
        let large = count * h.coll.size_multiplier(h.ngpus) as usize;
        if !large.is_multiple_of(c) {
            return Err(Error::Usage(format!(
                "{}: a count of {count} is not one the runtime runs this program for ({} x {count} is not a multiple of nchunksperloop {c}); use a multiple of {}",
                self.file,
                large / count.max(1),
                self.count_unit()
            )));
        }
        let ts = dtype.size();
        let chunk = large / c;
        let (window_bytes, payload) = window_and_payload(h.proto, h.coll);
        let window = (window_bytes / ts).max(1);
        let iterations = chunk.div_ceil(window).max(1);
        let max_count = Runtime::default().max_count() as usize - 1;
        let per_call = if iterations == 1 { (payload / (chunk * ts).max(1)).clamp(1, max_count) } else { 1 };
        let call = if iterations == 1 { per_call * chunk } else { window };
        let slices = h.proto.slices_per_call() as usize;
        let entries = (crate::algo::runtime::NCCL_STEPS / h.proto.slots_per_slice()) as usize;
        let (send, recv) = match h.coll {
            Collective::AllGather => (count, count * n),
            Collective::ReduceScatter => (count * n, count),
            Collective::AllToAll => (count * n, count * n),
            _ => (count, count),
        };
        Ok(Geometry {
            count,
            chunk,
            send,
            recv,
            iterations,
            window,
            per_call,
            slices,
            entries,
            slice_elems: call.div_ceil(slices).max(1),
        })
    }

    /// Chunks of each physical buffer of a rank (input, output, scratch).
    fn phys_chunks(&self, rank: usize, mode: Mode) -> [usize; 3] {
        let h = &self.program.header;
        let g = &self.program.gpus[rank];
        let (ci, co, _) = definition_sizes(&self.program);
        let inplace_rs = mode == Mode::InPlace && h.coll == Collective::ReduceScatter;
        let input = g.input_chunks.max(ci).max(if inplace_rs { h.chunks_per_loop } else { 0 });
        [input as usize, g.output_chunks.max(co) as usize, g.scratch_chunks as usize]
    }

    /// A rank's memory for a message of geometry `g` in `mode`: bytes of its physical
    /// input, output and scratch and of the input's staging copy (floating `avg`), and
    /// where its user send and receive buffers lie in them.
    pub fn layout(&self, rank: usize, mode: Mode, g: &Geometry, ts: usize) -> RankLayout {
        let chunks = self.phys_chunks(rank, mode);
        let b = |c: usize| c * g.chunk * ts;
        let at = |buf: Buffer| {
            let (p, chunk) = self.place(rank, mode, buf, 0);
            (phys_index(p), chunk * g.chunk * ts)
        };
        RankLayout {
            bytes: [b(chunks[0]), b(chunks[1]), b(chunks[2]), b(chunks[0])],
            send: at(Buffer::Input),
            recv: at(Buffer::Output),
            send_bytes: g.send * ts,
            recv_bytes: g.recv * ts,
        }
    }

    /// Where (buffer, chunk) of rank `rank` lands: physical buffer and chunk index.
    pub(crate) fn place(&self, rank: usize, mode: Mode, buf: Buffer, off: u32) -> (Phys, usize) {
        let (_, _, b) = definition_sizes(&self.program);
        let (p, i) = phys(self.coll(), mode, rank as u32, b, buf, off);
        (p, i as usize)
    }
}

/// See [`Loaded::layout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankLayout {
    /// Physical input, output, scratch, and the input's staging copy.
    pub bytes: [usize; 4],
    /// Physical buffer index and byte offset of the user's send and receive buffers.
    pub send: (usize, usize),
    pub recv: (usize, usize),
    pub send_bytes: usize,
    pub recv_bytes: usize,
}

/// Where the avg scalings of a run read and write, given a rank's physical buffers
/// (`bufs`, with the staging copy fourth) and its layout: the pre-multiplication's
/// (destination, source) and the input buffer the program then reads, and the
/// post-division's buffer. Floating avg pre-multiplies every input by 1/n (out of place
/// into the staging copy, which stands for the input buffer); integer avg divides the
/// sum once.
pub fn avg_places(
    coll: Collective,
    dtype: DataType,
    op: RedOp,
    mode: Mode,
    bufs: [u64; 4],
    l: &RankLayout,
) -> (Option<(u64, u64)>, u64, Option<u64>) {
    let avg = op == RedOp::Avg && reduces(coll);
    let send = bufs[l.send.0] + l.send.1 as u64;
    let recv = bufs[l.recv.0] + l.recv.1 as u64;
    let pre = (avg && dtype.is_float()).then_some(match mode {
        Mode::OutOfPlace => (bufs[3], send),
        Mode::InPlace => (send, send),
    });
    let input = if matches!((pre, mode), (Some(_), Mode::OutOfPlace)) { bufs[3] } else { bufs[0] };
    (pre, input, (avg && !dtype.is_float()).then_some(recv))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

pub(crate) fn phys_index(p: Phys) -> usize {
    match p {
        Phys::In => 0,
        Phys::Out => 1,
        Phys::Scratch => 2,
    }
}

/// What runs a loaded program on real data: the host interpreter ([`ProgramHost`]), the
/// CUDA interpreter kernel, or that kernel on CPU threads (the execution test). Ranks'
/// buffers are addressed as the user's send and receive buffers of a call in `mode`.
pub trait ProgramBackend {
    fn loaded(&self) -> &Loaded;
    /// `host`, `cuda`, ...
    fn name(&self) -> &'static str;
    fn nranks(&self) -> usize {
        self.loaded().nranks()
    }
    /// Put `data` at the start of rank's send buffer (as the mode aliases it).
    fn set_input(&mut self, rank: usize, mode: Mode, dtype: DataType, count: usize, data: &[u8]) -> Result<(), Error>;
    /// Fill rank's whole receive buffer with `value`.
    fn fill_output(&mut self, rank: usize, mode: Mode, dtype: DataType, count: usize, value: u8) -> Result<(), Error>;
    /// Read the start of rank's receive buffer.
    fn get_output(
        &mut self,
        rank: usize,
        mode: Mode,
        dtype: DataType,
        count: usize,
        out: &mut [u8],
    ) -> Result<(), Error>;
    /// Run `iters` collectives back to back; the wall time they took.
    fn run(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, iters: usize) -> Result<Duration, Error>;
}

/// One rank's memory: the physical input, output and scratch buffers, and the staging
/// copy an out-of-place floating `avg` pre-multiplies into.
struct RankMem {
    bufs: [AlignedBuf; 4],
}

/// A program with its buffers: what `topo bench --algo PROGRAM --backend host` runs.
pub struct ProgramHost {
    pub loaded: Loaded,
    mem: Vec<RankMem>,
    /// FIFO memory of the connections, kept between runs.
    fifos: Vec<AlignedBuf>,
}

impl ProgramHost {
    pub fn new(loaded: Loaded) -> ProgramHost {
        ProgramHost { loaded, mem: Vec::new(), fifos: Vec::new() }
    }

    pub fn nranks(&self) -> usize {
        self.loaded.nranks()
    }

    /// Make every rank's buffers large enough for `count` elements of `dtype` in `mode`.
    fn ensure(&mut self, dtype: DataType, count: usize, mode: Mode) -> Result<Geometry, Error> {
        let g = self.loaded.geometry(dtype, count)?;
        for r in 0..self.nranks() {
            let need = self.loaded.layout(r, mode, &g, dtype.size()).bytes;
            if self.mem.len() <= r {
                self.mem.push(RankMem {
                    bufs: [
                        AlignedBuf::zeroed(need[0])?,
                        AlignedBuf::zeroed(need[1])?,
                        AlignedBuf::zeroed(need[2])?,
                        AlignedBuf::zeroed(need[3])?,
                    ],
                });
                continue;
            }
            for (i, &bytes) in need.iter().enumerate() {
                if self.mem[r].bufs[i].len() < bytes {
                    self.mem[r].bufs[i] = AlignedBuf::zeroed(bytes.next_power_of_two())?;
                }
            }
        }
        Ok(g)
    }

    /// The user's send (`recv` false) or receive region of a rank: pointer and bytes.
    fn region(&self, rank: usize, mode: Mode, g: &Geometry, ts: usize, recv: bool) -> (*mut u8, usize) {
        let l = self.loaded.layout(rank, mode, g, ts);
        let ((p, off), len) = if recv { (l.recv, l.recv_bytes) } else { (l.send, l.send_bytes) };
        // SAFETY: `ensure` sized the buffer for the whole region.
        (unsafe { self.mem[rank].bufs[p].as_ptr().add(off) }, len)
    }

    /// Every rank's memory for a run of `count` elements of `dtype` in `mode` with
    /// `op`: the physical buffers (the input replaced by the staging copy where a
    /// floating `avg` pre-multiplies out of place) and the places of the avg scalings.
    pub fn memory(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        mode: Mode,
    ) -> Result<(Geometry, Vec<RankPtrs>), Error> {
        let g = self.ensure(dtype, count, mode)?;
        let ts = dtype.size();
        let mut ranks = Vec::new();
        for r in 0..self.nranks() {
            let l = self.loaded.layout(r, mode, &g, ts);
            let m = &self.mem[r];
            let ptrs = [0, 1, 2, 3].map(|i| m.bufs[i].as_ptr() as u64);
            let (pre, input, post) = avg_places(self.loaded.coll(), dtype, op, mode, ptrs, &l);
            let mut bufs = [0, 1, 2].map(|i| (m.bufs[i].as_ptr(), l.bytes[i] / ts));
            bufs[0].0 = input as *mut u8;
            let pre = pre.map(|(d, s)| (d as *mut u8, s as *mut u8));
            ranks.push(exec::RankPtrs { bufs, pre, post: post.map(|p| p as *mut u8) });
        }
        Ok((g, ranks))
    }
}

impl ProgramBackend for ProgramHost {
    fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    fn name(&self) -> &'static str {
        "host"
    }

    /// Put `data` at the start of rank's send buffer (as the mode aliases it).
    fn set_input(&mut self, rank: usize, mode: Mode, dtype: DataType, count: usize, data: &[u8]) -> Result<(), Error> {
        let g = self.ensure(dtype, count, mode)?;
        let (p, len) = self.region(rank, mode, &g, dtype.size(), false);
        if data.len() > len {
            return Err(Error::Usage(format!("input of {} bytes for a send buffer of {len}", data.len())));
        }
        // SAFETY: the region holds `len` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        Ok(())
    }

    /// Fill rank's whole receive buffer with `value`.
    fn fill_output(&mut self, rank: usize, mode: Mode, dtype: DataType, count: usize, value: u8) -> Result<(), Error> {
        let g = self.ensure(dtype, count, mode)?;
        let (p, len) = self.region(rank, mode, &g, dtype.size(), true);
        // SAFETY: the region holds `len` bytes.
        unsafe { std::ptr::write_bytes(p, value, len) };
        Ok(())
    }

    /// Read the start of rank's receive buffer.
    fn get_output(
        &mut self,
        rank: usize,
        mode: Mode,
        dtype: DataType,
        count: usize,
        out: &mut [u8],
    ) -> Result<(), Error> {
        let g = self.ensure(dtype, count, mode)?;
        let (p, len) = self.region(rank, mode, &g, dtype.size(), true);
        let n = out.len().min(len);
        // SAFETY: the region holds `len` bytes.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), n) };
        Ok(())
    }

    /// Run `iters` collectives back to back; the wall time from the moment every thread
    /// is ready until the last one is done.
    fn run(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, iters: usize) -> Result<Duration, Error> {
        if count == 0 || iters == 0 {
            self.ensure(dtype, count, mode)?;
            return Ok(Duration::ZERO);
        }
        let (g, ranks) = self.memory(dtype, op, count, mode)?;
        crate::bench::dtype::with_elem!(dtype, T => crate::bench::dtype::with_op!(op, OP => {
            exec::run::<T, OP>(&self.loaded, &g, mode, &ranks, iters, &mut self.fifos)
        }))
    }
}
