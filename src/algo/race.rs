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
use super::program::{Mode, Program, Slot, StepKind};
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
    // Predecessors as plain lists, read once per GPU below.
    let preds: Vec<Vec<u32>> = (0..g.node_count())
        .map(|i| {
            g.neighbors_directed(NodeIndex::new(i), petgraph::Direction::Incoming).map(|n| n.index() as u32).collect()
        })
        .collect();
    let order: Vec<usize> = order.into_iter().map(|n| n.index()).collect();
    let nodes: Vec<(usize, usize, usize)> = g.node_weights().map(|n| (n.gpu, n.tb, n.op)).collect();
    let ctx = Ctx { p, lowered, mode, ids: &ids, order: &order, preds: &preds, nodes: &nodes };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(p.gpus.len()).max(1);
    let results: Vec<(Vec<Race>, usize)> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let ctx = &ctx;
                sc.spawn(move || {
                    let mut found = Vec::new();
                    let mut total = 0;
                    for gi in (w..ctx.p.gpus.len()).step_by(workers) {
                        let (f, t) = ctx.gpu(gi, limit);
                        found.extend(f);
                        total += t;
                    }
                    (found, total)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let total = results.iter().map(|r| r.1).sum();
    let mut found: Vec<Race> = results.into_iter().flat_map(|r| r.0).collect();
    found.sort_by_key(|r| (r.gpu, r.first, r.second, r.chunk));
    found.truncate(limit);
    Some((found, total))
}

/// What every GPU's race pass reads.
struct Ctx<'a> {
    p: &'a Program,
    lowered: &'a [Lowered],
    mode: Mode,
    ids: &'a [Vec<Vec<NodeIndex>>],
    order: &'a [usize],
    preds: &'a [Vec<u32>],
    /// (gpu, tb, op) of every node.
    nodes: &'a [(usize, usize, usize)],
}

impl Ctx<'_> {
    /// The races of one GPU: up to `limit`, and how many in all.
    fn gpu(&self, gi: usize, limit: usize) -> (Vec<Race>, usize) {
        let (p, lowered, mode) = (self.p, self.lowered, self.mode);
        let gpu = &p.gpus[gi];
        let (_, _, per_rank) = definition_sizes(p);
        let coll = p.header.coll;
        let mut found = Vec::new();
        let mut total = 0usize;
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
            return (found, total);
        }
        // Vector clocks over this GPU's thread blocks: per node, for each block, 1 + the
        // last of its operations known to come before (or be) the node; 0 for none.
        let m = gpu.tbs.len();
        let mut clock = vec![0u16; self.nodes.len() * m];
        let mut row = vec![0u16; m];
        for &i in self.order {
            row.fill(0);
            for &pr in &self.preds[i] {
                let src = &clock[pr as usize * m..(pr as usize + 1) * m];
                for (r, &v) in row.iter_mut().zip(src) {
                    *r = (*r).max(v);
                }
            }
            let (g, t, o) = self.nodes[i];
            if g == gi {
                row[t] = row[t].max(o.min(u16::MAX as usize - 1) as u16 + 1);
            }
            clock[i * m..(i + 1) * m].copy_from_slice(&row);
        }
        let ids = self.ids;
        let before =
            |a: (usize, usize), b: (usize, usize)| usize::from(clock[ids[gi][b.0][b.1].index() * m + a.0]) > a.1;
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
        (found, total)
    }
}
