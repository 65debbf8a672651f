//! Data races: two thread blocks of one GPU touching the same chunk, at least one
//! writing, with nothing ordering them.
//!
//! Happens-before is a graph over the operations of one loop iteration: program order
//! inside a thread block, a dependency from the operation whose publication releases
//! the wait, and a message from the send that produced it to the receive that
//! consumes it (so order can travel through other GPUs). Iterations touch disjoint
//! element windows, so one iteration suffices. The graph's topological order gives,
//! per GPU, a vector clock for every operation; two accesses race when neither clock
//! knows the other.

use std::collections::BTreeMap;

use petgraph::algo::toposort;
use petgraph::graph::{DiGraph, NodeIndex};

use super::lower::Lowered;
use super::program::{Buffer, Mode, Program, Slot, StepKind};
use super::sim::{Phys, definition_sizes, phys};

/// One race: two operations (gpu, tb id, XML step) and the chunk they share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Race {
    pub mode: Mode,
    pub gpu: u32,
    pub first: (u32, u32, bool),
    pub second: (u32, u32, bool),
    pub buf: &'static str,
    pub chunk: u32,
    pub line: u32,
}

/// An access to a chunk: (thread block index, operation index, whether it writes).
type Access = (usize, usize, bool);

struct Node {
    gpu: usize,
    tb: usize,
    op: usize,
}

/// Races in the declared mode; `None` when the happens-before graph has a cycle (the
/// program deadlocks; the deadlock is the finding then).
pub fn races(p: &Program, lowered: &[Lowered], mode: Mode, limit: usize) -> Option<(Vec<Race>, usize)> {
    let mut g: DiGraph<Node, ()> = DiGraph::new();
    let mut ids: Vec<Vec<Vec<NodeIndex>>> = Vec::new();
    for (gi, gpu) in p.gpus.iter().enumerate() {
        let mut per_tb = Vec::new();
        for (ti, _) in gpu.tbs.iter().enumerate() {
            let nodes: Vec<NodeIndex> =
                (0..lowered[gi].tbs[ti].len()).map(|op| g.add_node(Node { gpu: gi, tb: ti, op })).collect();
            for w in nodes.windows(2) {
                g.add_edge(w[0], w[1], ());
            }
            per_tb.push(nodes);
        }
        ids.push(per_tb);
    }
    // Dependencies.
    for (gi, gpu) in p.gpus.iter().enumerate() {
        for (ti, ops) in lowered[gi].tbs.iter().enumerate() {
            for (oi, op) in ops.iter().enumerate() {
                for &w in &op.waits {
                    let from = match lowered[gi].release(gpu, w) {
                        Some((t, o)) => ids[gi][t][o],
                        // Released by the next iteration: everything of that block in
                        // this one comes first.
                        None => match gpu.tbs.iter().position(|t| t.id == w.tb).and_then(|t| ids[gi][t].last()) {
                            Some(&n) => n,
                            None => continue,
                        },
                    };
                    g.add_edge(from, ids[gi][ti][oi], ());
                }
            }
        }
    }
    // Messages: the k-th call sent on a connection is the k-th call received on it.
    let mut sends: BTreeMap<(u32, u32, u32), Vec<NodeIndex>> = BTreeMap::new();
    let mut recvs: BTreeMap<(u32, u32, u32), Vec<NodeIndex>> = BTreeMap::new();
    for (gi, gpu) in p.gpus.iter().enumerate() {
        for (ti, t) in gpu.tbs.iter().enumerate() {
            for (oi, op) in lowered[gi].tbs[ti].iter().enumerate() {
                for _ in 0..op.count {
                    if op.kind.sends()
                        && let Some(to) = t.send
                    {
                        sends.entry((t.chan, gpu.id, to)).or_default().push(ids[gi][ti][oi]);
                    }
                    if op.kind.receives()
                        && let Some(from) = t.recv
                    {
                        recvs.entry((t.chan, from, gpu.id)).or_default().push(ids[gi][ti][oi]);
                    }
                }
            }
        }
    }
    for (conn, s) in &sends {
        if let Some(r) = recvs.get(conn) {
            let mut last = None;
            for (&a, &b) in s.iter().zip(r) {
                if last != Some((a, b)) {
                    g.add_edge(a, b, ());
                    last = Some((a, b));
                }
            }
        }
    }
    let order = toposort(&g, None).ok()?;
    let (_, _, per_rank) = definition_sizes(p);
    let coll = p.header.coll;
    let mut found = Vec::new();
    let mut total = 0usize;
    for (gi, gpu) in p.gpus.iter().enumerate() {
        // Accesses of this GPU's operations, by physical chunk.
        let mut access: BTreeMap<(Phys, u32), Vec<Access>> = BTreeMap::new();
        for (ti, ops) in lowered[gi].tbs.iter().enumerate() {
            for (oi, op) in ops.iter().enumerate() {
                let mut touch = |slot: Slot, write: bool| {
                    let Some(off) = slot.off else { return };
                    for j in 0..op.count {
                        let at = phys(coll, mode, gpu.id, per_rank, slot.buf, off + j);
                        access.entry(at).or_default().push((ti, oi, write));
                    }
                };
                if op.kind == StepKind::Reduce {
                    for &o in &op.reduce_srcs {
                        touch(Slot { buf: op.src.buf, off: Some(o) }, false);
                    }
                } else if op.kind.reads_src() {
                    touch(op.src, false);
                }
                if op.kind.writes_dst() {
                    touch(op.dst, true);
                }
            }
        }
        let candidates: Vec<_> =
            access.iter().filter(|(_, v)| v.iter().any(|a| a.2) && v.iter().any(|a| a.0 != v[0].0)).collect();
        if candidates.is_empty() {
            continue;
        }
        // Vector clocks over this GPU's thread blocks: the last operation of each known
        // to come before (or be) a node.
        let m = gpu.tbs.len();
        let mut clock = vec![-1i32; g.node_count() * m];
        for &n in &order {
            let i = n.index();
            let preds: Vec<NodeIndex> = g.neighbors_directed(n, petgraph::Direction::Incoming).collect();
            for pr in preds {
                let pi = pr.index();
                for t in 0..m {
                    let v = clock[pi * m + t];
                    if v > clock[i * m + t] {
                        clock[i * m + t] = v;
                    }
                }
            }
            let node = &g[n];
            if node.gpu == gi {
                clock[i * m + node.tb] = clock[i * m + node.tb].max(node.op as i32);
            }
        }
        let before = |a: (usize, usize), b: (usize, usize)| clock[ids[gi][b.0][b.1].index() * m + a.0] >= a.1 as i32;
        for ((ph, chunk), v) in candidates {
            for (x, a) in v.iter().enumerate() {
                for b in &v[x + 1..] {
                    if a.0 == b.0 || !(a.2 || b.2) {
                        continue;
                    }
                    if before((a.0, a.1), (b.0, b.1)) || before((b.0, b.1), (a.0, a.1)) {
                        continue;
                    }
                    total += 1;
                    if found.len() < limit {
                        let oa = &lowered[gi].tbs[a.0][a.1];
                        let ob = &lowered[gi].tbs[b.0][b.1];
                        let buf = match ph {
                            Phys::In => "input",
                            Phys::Out => "output",
                            Phys::Scratch => "scratch",
                        };
                        found.push(Race {
                            mode,
                            gpu: gpu.id,
                            first: (gpu.tbs[a.0].id, oa.first as u32, a.2),
                            second: (gpu.tbs[b.0].id, ob.first as u32, b.2),
                            buf,
                            chunk: *chunk,
                            line: oa.line,
                        });
                    }
                }
            }
        }
    }
    let _ = Buffer::Input;
    Some((found, total))
}
