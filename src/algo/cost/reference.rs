//! The program the cost model is held to: NCCL's ring allreduce written as MSCCL-IR,
//! one program channel per NCCL channel, each following that channel's ring.
//!
//! On every ring of n ranks, rank at position i sends its chunk i, then n-2 times
//! receives, reduces and forwards (`rrs`), reduces the last one into its output and
//! forwards it (`rrcs`), n-2 times receives, copies and forwards (`rcs`), and receives
//! the last chunk (`r`): 2(n-1) messages per connection, as NCCL's ring.

use super::super::program::{Buffer, Collective, Gpu, Header, Program, Protocol, Slot, Step, StepKind, ThreadBlock};
use crate::search::Graph;

/// The ring of every channel: `channels` channels cycling over the ring graph's
/// channels (NCCL duplicates its rings), each ring running through the nodes in order
/// with the graph's order inside each node.
pub fn nccl_rings(ring: &Graph, per_node: usize, nodes: usize, channels: usize) -> Vec<Vec<u32>> {
    let found = (ring.n_channels.max(0) as usize).min(ring.intra.len() / per_node.max(1));
    if found == 0 || per_node == 0 {
        return Vec::new();
    }
    (0..channels)
        .map(|c| {
            let intra = &ring.intra[(c % found) * per_node..(c % found + 1) * per_node];
            (0..nodes).flat_map(|k| intra.iter().map(move |&g| (k * per_node) as u32 + g as u32)).collect()
        })
        .collect()
}

fn step(s: u32, kind: StepKind, src: Option<(Buffer, u32)>, dst: Option<(Buffer, u32)>) -> Step {
    let slot = |x: Option<(Buffer, u32)>| match x {
        Some((buf, off)) => Slot { buf, off: Some(off) },
        None => Slot { buf: Buffer::Input, off: None },
    };
    Step { s, kind, src: slot(src), dst: slot(dst), count: 1, dep: None, has_dep: false, line: 0 }
}

/// A ring allreduce over the given rings (one per channel, all over the same ranks).
pub fn ring_allreduce(rings: &[Vec<u32>], proto: Protocol) -> Program {
    let n = rings.first().map_or(0, Vec::len) as u32;
    let nch = rings.len() as u32;
    let chunks = n * nch;
    let mut gpus: Vec<Gpu> = (0..n)
        .map(|id| Gpu { id, input_chunks: chunks, output_chunks: chunks, scratch_chunks: 0, tbs: Vec::new(), line: 0 })
        .collect();
    for (c, ring) in rings.iter().enumerate() {
        let c = c as u32;
        for (i, &rank) in ring.iter().enumerate() {
            let i = i as u32;
            let at = |k: i64| c * n + (i64::from(i) + k).rem_euclid(i64::from(n)) as u32;
            let (inp, out) = (Buffer::Input, Buffer::Output);
            let mut steps = vec![step(0, StepKind::Send, Some((inp, at(0))), None)];
            for k in 1..i64::from(n) - 1 {
                steps.push(step(0, StepKind::RecvReduceSend, Some((inp, at(-k))), None));
            }
            steps.push(step(0, StepKind::RecvReduceCopySend, Some((inp, at(1))), Some((out, at(1)))));
            for k in 1..i64::from(n) - 1 {
                steps.push(step(0, StepKind::RecvCopySend, None, Some((out, at(1 - k)))));
            }
            steps.push(step(0, StepKind::Recv, None, Some((out, at(2)))));
            for (s, st) in steps.iter_mut().enumerate() {
                st.s = s as u32;
            }
            let next = ring[(i as usize + 1) % n as usize];
            let prev = ring[(i as usize + n as usize - 1) % n as usize];
            gpus[rank as usize].tbs.push(ThreadBlock {
                id: c,
                send: Some(next),
                recv: Some(prev),
                chan: c,
                steps,
                line: 0,
            });
        }
    }
    Program {
        header: Header {
            name: format!("ring allreduce, {n} ranks, {nch} channels"),
            coll: Collective::AllReduce,
            proto,
            nchannels: nch,
            chunks_per_loop: chunks,
            ngpus: n,
            inplace: true,
            outofplace: Some(true),
            min_bytes: Some(0),
            max_bytes: None,
            extra: Vec::new(),
        },
        gpus,
    }
}
