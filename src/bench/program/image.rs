//! A program flattened for the interpreter kernel (`kernels/msccl.cu`): per rank, one
//! [`MsBlock`] per thread block with its operations ([`MsOp`]) in the order the runtime
//! runs them ([`crate::algo::lower`]), buffer places resolved for the call's mode, and
//! the connections the blocks send and receive on. The CUDA backend fills in the
//! memory; the CPU execution test (tests/kernel_cpu_msccl.rs) does the same for the
//! kernel compiled as C++. The kernel checks the sizes with `static_assert`, this
//! module with `const` assertions.

use std::collections::BTreeMap;

use super::{Geometry, Loaded, phys_index};
use crate::algo::program::{Mode, Slot, StepKind};
use crate::bench::dtype::{DataType, RedOp};
use crate::bench::kernel_abi::ConnArgs;
use crate::error::Error;

/// Kernel name for an (operator, type).
pub fn kernel_name(op: RedOp, dtype: DataType) -> String {
    format!("msccl_{}_{}", op.name(), dtype.name())
}

/// Every interpreter kernel in `kernels/msccl.cu`.
pub fn kernel_names() -> Vec<String> {
    RedOp::ALL.iter().flat_map(|&o| DataType::ALL.iter().map(move |&t| kernel_name(o, t))).collect()
}

/// One operation (`struct MsOp`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MsOp {
    pub kind: u32,
    /// Chunks.
    pub count: u32,
    /// Physical buffer (0 input, 1 output, 2 scratch) and chunk index of the source.
    pub src_buf: u32,
    pub src_chunk: u32,
    pub dst_buf: u32,
    pub dst_chunk: u32,
    /// `re`: operands, chunk indices in `src_buf`, at `extra[red_at..]`.
    pub nred: u32,
    pub red_at: u32,
    /// Waits: (block index, step number) pairs at `extra[wait_at..]`.
    pub nwait: u32,
    pub wait_at: u32,
    pub publish: u32,
    pub number: u32,
}

/// One thread block of one rank (`struct MsBlock`); the step counters carry over from
/// one launch to the next.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MsBlock {
    pub send: ConnArgs,
    pub recv: ConnArgs,
    pub send_step: u64,
    pub recv_step: u64,
    pub first_op: u32,
    pub nops: u32,
}

/// The one argument of every interpreter kernel (`struct MsArgs`), passed by value.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MsArgs {
    /// Physical input, output and scratch.
    pub bufs: [u64; 3],
    /// This rank's [`MsBlock`]s, [`MsOp`]s and `u32` extras.
    pub blocks: u64,
    pub ops: u64,
    pub extra: u64,
    /// One `u64` per block, zeroed once.
    pub flags: u64,
    /// A `u32` raised to stop every block (by the host after a stall, by a block on error).
    pub abort_flag: u64,
    /// A `u32`: the first error a block saw ([`MS_ERR_SLICE`]).
    pub error: u64,
    /// Floating avg: `pre_dst[i] = pre_src[i] / nranks` before the program.
    pub pre_dst: u64,
    pub pre_src: u64,
    pub pre_count: u64,
    /// Integer avg: `post[i] /= nranks` after it.
    pub post: u64,
    pub post_count: u64,
    pub chunk: u64,
    pub window: u64,
    pub iterations: u64,
    pub per_call: u64,
    pub slices: u64,
    pub entries: u64,
    pub slice_elems: u64,
    pub entry_bytes: u64,
    /// Launch number: greater than 0 and greater than every earlier launch's.
    pub epoch: u64,
    pub nblocks: u32,
    pub inv_f32: f32,
    pub inv_f64: f64,
    pub nranks_u64: u64,
}

/// Error code of a slice whose size is not what the receiving step expects.
pub const MS_ERR_SLICE: u32 = 1;

const _: () = assert!(std::mem::size_of::<MsOp>() == 48);
const _: () = assert!(std::mem::size_of::<MsBlock>() == 72);
const _: () = assert!(std::mem::size_of::<MsArgs>() == 208);

impl MsArgs {
    /// The geometry and scalars of one message (pointers left to the backend).
    pub fn new(g: &Geometry, dtype: DataType, nranks: usize, nblocks: usize, epoch: u64) -> MsArgs {
        MsArgs {
            chunk: g.chunk as u64,
            window: g.window as u64,
            iterations: g.iterations as u64,
            per_call: g.per_call as u64,
            slices: g.slices as u64,
            entries: g.entries as u64,
            slice_elems: g.slice_elems as u64,
            entry_bytes: (g.slice_elems * dtype.size()) as u64,
            epoch,
            nblocks: nblocks as u32,
            inv_f32: 1.0 / nranks.max(1) as f32,
            inv_f64: 1.0 / nranks.max(1) as f64,
            nranks_u64: nranks.max(1) as u64,
            ..MsArgs::default()
        }
    }
}

/// A connection: channel, sending rank, receiving rank (indices of `program.gpus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ConnKey {
    pub chan: u32,
    pub from: usize,
    pub to: usize,
}

/// One rank's part.
#[derive(Debug, Clone, Default)]
pub struct RankImage {
    /// Connections unset; the index in [`Image::conns`] of each block's send and
    /// receive connection is in `ends`.
    pub blocks: Vec<MsBlock>,
    pub ends: Vec<(Option<usize>, Option<usize>)>,
    pub ops: Vec<MsOp>,
    pub extra: Vec<u32>,
}

/// A program ready for the kernel, in one mode.
#[derive(Debug, Clone, Default)]
pub struct Image {
    pub ranks: Vec<RankImage>,
    pub conns: Vec<ConnKey>,
}

fn kind_code(k: StepKind) -> u32 {
    match k {
        StepKind::Send => 0,
        StepKind::Recv => 1,
        StepKind::RecvCopySend => 2,
        StepKind::RecvReduceSend => 3,
        StepKind::RecvReduceCopy => 4,
        StepKind::RecvReduceCopySend => 5,
        StepKind::Copy => 6,
        StepKind::Reduce => 7,
        StepKind::Nop | StepKind::ResAdd => 8,
    }
}

/// Flatten `loaded` for calls in `mode`. Every place an operation touches is checked
/// against the buffers' chunk counts here, once, so that the kernel need not.
pub fn build(loaded: &Loaded, mode: Mode) -> Result<Image, Error> {
    let p = &loaded.program;
    let rank_of: BTreeMap<u32, usize> = p.gpus.iter().enumerate().map(|(r, g)| (g.id, r)).collect();
    let mut conn_ix: BTreeMap<ConnKey, usize> = BTreeMap::new();
    let mut image = Image::default();
    for (r, gpu) in p.gpus.iter().enumerate() {
        let chunks = loaded.phys_chunks(r, mode);
        let mut ri = RankImage::default();
        for (ti, t) in gpu.tbs.iter().enumerate() {
            let tbid = t.id;
            let fail = |m: String| Error::Unavailable(format!("{}: gpu {} tb {tbid}: {m}", loaded.file, gpu.id));
            let mut conn = |peer: u32, send: bool| -> Result<usize, Error> {
                let q = *rank_of.get(&peer).ok_or_else(|| fail(format!("no gpu {peer}")))?;
                let key = if send {
                    ConnKey { chan: t.chan, from: r, to: q }
                } else {
                    ConnKey { chan: t.chan, from: q, to: r }
                };
                let next = conn_ix.len();
                Ok(*conn_ix.entry(key).or_insert(next))
            };
            let send = t.send.map(|to| conn(to, true)).transpose()?;
            let recv = t.recv.map(|from| conn(from, false)).transpose()?;
            let ops = &loaded.lowered[r].tbs[ti];
            let first_op = ri.ops.len() as u32;
            for op in ops {
                let k = op.kind;
                // A place the kind uses: its physical buffer and chunk index, in bounds.
                let place = |slot: Slot, used: bool| -> Result<(u32, u32), Error> {
                    if !used {
                        return Ok((0, 0));
                    }
                    let off = slot.off.ok_or_else(|| fail(format!("a {} step uses an offset of -1", k.xml_name())))?;
                    let (ph, c) = loaded.place(r, mode, slot.buf, off);
                    let b = phys_index(ph);
                    if c + op.count as usize > chunks[b] {
                        return Err(fail(format!(
                            "{} chunks {}..{} run past the end of the buffer",
                            slot.buf.name(),
                            off,
                            off + op.count
                        )));
                    }
                    Ok((b as u32, c as u32))
                };
                let is_re = k == StepKind::Reduce;
                let (src_buf, src_chunk) = place(op.src, k.reads_src() && !is_re)?;
                let (dst_buf, dst_chunk) = place(op.dst, k.writes_dst())?;
                if (k.sends() && send.is_none()) || (k.receives() && recv.is_none()) {
                    return Err(fail(format!("a {} step without the connection it needs", k.xml_name())));
                }
                let red_at = ri.extra.len() as u32;
                let mut red_buf = src_buf;
                if is_re {
                    for &o in &op.reduce_srcs {
                        let (b, c) = place(Slot { buf: op.src.buf, off: Some(o) }, true)?;
                        red_buf = b;
                        ri.extra.push(c);
                    }
                }
                let wait_at = ri.extra.len() as u32;
                for d in &op.waits {
                    let tb = gpu
                        .tbs
                        .iter()
                        .position(|x| x.id == d.tb)
                        .ok_or_else(|| fail(format!("waits on a missing tb {}", d.tb)))?;
                    ri.extra.extend([tb as u32, d.step]);
                }
                ri.ops.push(MsOp {
                    kind: kind_code(k),
                    count: op.count,
                    src_buf: if is_re { red_buf } else { src_buf },
                    src_chunk,
                    dst_buf,
                    dst_chunk,
                    nred: if is_re { op.reduce_srcs.len() as u32 } else { 0 },
                    red_at,
                    nwait: op.waits.len() as u32,
                    wait_at,
                    publish: u32::from(op.publish),
                    number: op.number,
                });
            }
            ri.blocks.push(MsBlock { first_op, nops: ops.len() as u32, ..MsBlock::default() });
            ri.ends.push((send, recv));
        }
        image.ranks.push(ri);
    }
    let mut conns = vec![ConnKey { chan: 0, from: 0, to: 0 }; conn_ix.len()];
    for (k, i) in conn_ix {
        conns[i] = k;
    }
    image.conns = conns;
    Ok(image)
}

/// Bytes of FIFO data one connection needs for a message of this geometry.
pub fn fifo_bytes(g: &Geometry, dtype: DataType) -> usize {
    g.entries * g.slice_elems * dtype.size()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::program::load;
    use crate::bench::program::tests::ring_allreduce;

    #[test]
    fn a_ring_flattens_to_one_block_per_rank_and_one_connection_per_edge() {
        let xml = ring_allreduce(4, "Simple");
        let loaded = load(xml.as_bytes(), "ring.xml").unwrap();
        let im = build(&loaded, Mode::OutOfPlace).unwrap();
        assert_eq!(im.ranks.len(), 4);
        assert_eq!(im.conns.len(), 4);
        for (r, ri) in im.ranks.iter().enumerate() {
            assert_eq!(ri.blocks.len(), 1);
            let (s, v) = ri.ends[0];
            assert_eq!(im.conns[s.unwrap()], ConnKey { chan: 0, from: r, to: (r + 1) % 4 });
            assert_eq!(im.conns[v.unwrap()], ConnKey { chan: 0, from: (r + 3) % 4, to: r });
            // s, rrs x2, rrcs, rcs x2, r
            let kinds: Vec<u32> = ri.ops.iter().map(|o| o.kind).collect();
            assert_eq!(kinds, [0, 3, 3, 5, 2, 2, 1]);
            assert!(ri.ops.iter().all(|o| o.src_chunk < 4 && o.dst_chunk < 4));
        }
    }

    #[test]
    fn every_name_is_a_kernel_of_the_source() {
        let src = crate::bench::kernel_abi::KERNEL_SOURCE;
        assert_eq!(kernel_names().len(), 50);
        assert!(src.contains("msccl_##OPNAME##_##TNAME"));
        assert!(src.contains("\nTOPO_EACH_OP(MSCCL_KERNEL)\n"));
        for (name, size) in [
            ("MsOp", std::mem::size_of::<MsOp>()),
            ("MsBlock", std::mem::size_of::<MsBlock>()),
            ("MsArgs", std::mem::size_of::<MsArgs>()),
        ] {
            let line = format!("static_assert(sizeof({name}) == {size}, ");
            assert!(src.contains(&line), "kernels/msccl.cu should say {line}");
        }
    }
}
