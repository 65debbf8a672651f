//! The instruction DAG: what an algorithm's trace becomes before it is scheduled.
//!
//! An algorithm describes data movement as copies and reductions between chunk
//! references ([`Tracer`]). Each becomes one or two instructions (a send on one rank and
//! a receive on the other, linked by a communication edge, or one local step), and the
//! chunk slots they touch give the processing edges: a reader after the slot's last
//! writer (read after write), a writer after the slot's readers since that writer, or
//! after the last writer when nobody read it (write after read, write after write).
//! Slots are compared after the collective's in-place aliasing, so one DAG orders the
//! accesses correctly whether or not the buffers alias.
//!
//! Then fusion (a receive and the send of what it produced become one step), depths and
//! reverse depths, and the global topological order the scheduler fills thread blocks in.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use petgraph::Direction;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;

use super::super::program::{Buffer, Slot, StepKind};
use super::layout::Layout;

/// A reference to `count` consecutive chunks of one rank's buffer, in one instance's
/// numbering (the tracer maps it to the program's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ref {
    pub rank: u32,
    pub buf: Buffer,
    pub idx: u32,
    pub count: u32,
}

pub fn at(rank: u32, buf: Buffer, idx: u32, count: u32) -> Ref {
    Ref { rank, buf, idx, count }
}

/// One instruction of the DAG: a step before it has a thread block.
#[derive(Debug, Clone)]
pub struct Instr {
    pub rank: u32,
    pub kind: StepKind,
    pub src: Slot,
    pub dst: Slot,
    pub count: u32,
    pub send_to: Option<u32>,
    pub recv_from: Option<u32>,
    /// The channel the algorithm asked for (its phase), if any.
    pub hint: Option<u32>,
    pub instance: u32,
    /// Hops from a root (a receive counts its send's hop).
    pub depth: u32,
    /// Hops to a leaf.
    pub priority: u32,
}

impl Instr {
    pub fn sends(&self) -> bool {
        self.send_to.is_some()
    }
    pub fn receives(&self) -> bool {
        self.recv_from.is_some()
    }
}

/// A processing edge (same rank, slot order) or a communication edge (send -> receive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Local,
    Comm,
}

#[derive(Debug, Default, Clone)]
struct SlotState {
    writer: Option<NodeIndex>,
    readers: Vec<NodeIndex>,
}

/// The DAG and the state that builds it.
#[derive(Debug)]
pub struct Dag {
    pub g: StableDiGraph<Instr, Edge>,
    slots: HashMap<(u32, Buffer, u32), SlotState>,
}

impl Dag {
    fn new() -> Dag {
        Dag { g: StableDiGraph::new(), slots: HashMap::new() }
    }

    /// The instruction a sending instruction's data goes to.
    pub fn partner(&self, n: NodeIndex) -> Option<NodeIndex> {
        self.g.edges_directed(n, Direction::Outgoing).find(|e| *e.weight() == Edge::Comm).map(|e| e.target())
    }

    /// Same-rank predecessors (distinct).
    pub fn local_preds(&self, n: NodeIndex) -> Vec<NodeIndex> {
        self.local(n, Direction::Incoming)
    }

    fn local_succs(&self, n: NodeIndex) -> Vec<NodeIndex> {
        self.local(n, Direction::Outgoing)
    }

    fn local(&self, n: NodeIndex, dir: Direction) -> Vec<NodeIndex> {
        let mut v: Vec<NodeIndex> = self
            .g
            .edges_directed(n, dir)
            .filter(|e| *e.weight() == Edge::Local)
            .map(|e| if dir == Direction::Incoming { e.source() } else { e.target() })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    fn edge(&mut self, a: NodeIndex, b: NodeIndex, kind: Edge) {
        if a != b && !self.g.edges_connecting(a, b).any(|e| *e.weight() == kind) {
            self.g.add_edge(a, b, kind);
        }
    }

    fn read(&mut self, n: NodeIndex, keys: &[(u32, Buffer, u32)]) {
        for k in keys {
            let st = self.slots.entry(*k).or_default();
            let w = st.writer;
            if !st.readers.contains(&n) {
                st.readers.push(n);
            }
            if let Some(w) = w {
                self.edge(w, n, Edge::Local);
            }
        }
    }

    fn write(&mut self, n: NodeIndex, keys: &[(u32, Buffer, u32)]) {
        for k in keys {
            let st = self.slots.entry(*k).or_default();
            let readers: Vec<NodeIndex> = std::mem::take(&mut st.readers);
            let w = st.writer.replace(n);
            let others: Vec<NodeIndex> = readers.into_iter().filter(|&r| r != n).collect();
            if others.is_empty() {
                if let Some(w) = w {
                    self.edge(w, n, Edge::Local);
                }
            } else {
                for r in others {
                    self.edge(r, n, Edge::Local);
                }
            }
        }
    }
}

/// Records an algorithm's copies and reductions as instructions.
pub struct Tracer<'a> {
    pub dag: Dag,
    layout: &'a Layout,
    /// Cross-rank reductions become `rrc` (else a receive and a local `re`).
    fused: bool,
    instance: u32,
    /// Per rank, the next scratch chunk handed out for staging.
    staging: Vec<u32>,
}

impl<'a> Tracer<'a> {
    pub fn new(layout: &'a Layout, fused: bool) -> Tracer<'a> {
        let staging = vec![layout.scratch_base(); layout.ranks as usize];
        Tracer { dag: Dag::new(), layout, fused, instance: 0, staging }
    }

    pub fn set_instance(&mut self, i: u32) {
        self.instance = i;
    }

    /// `to` <- `from` (same count).
    pub fn copy(&mut self, from: Ref, to: Ref, hint: Option<u32>) {
        for (f, t, _) in self.runs(from, to, None) {
            self.copy_mapped(f, t, hint);
        }
    }

    /// `to` <- `local` (+) `from`, where `to` and `local` are on one rank.
    pub fn reduce(&mut self, to: Ref, local: Ref, from: Ref, hint: Option<u32>) {
        for (f, t, l) in self.runs(from, to, Some(local)) {
            self.reduce_mapped(t, l.unwrap_or(t), f, hint);
        }
    }

    /// The references in the program's numbering, split where the instance mapping
    /// breaks contiguity (all sides split alike).
    fn runs(&self, a: Ref, b: Ref, c: Option<Ref>) -> Vec<(Ref, Ref, Option<Ref>)> {
        let map = |r: Ref, k: u32| self.layout.map(self.instance, r.rank, r.buf, r.idx + k);
        let mut out: Vec<(Ref, Ref, Option<Ref>)> = Vec::new();
        for k in 0..a.count {
            let (ia, ib, ic) = (map(a, k), map(b, k), c.map(|c| map(c, k)));
            if let Some((pa, pb, pc)) = out.last_mut()
                && pa.idx + pa.count == ia
                && pb.idx + pb.count == ib
                && match (pc.as_ref(), ic) {
                    (Some(pc), Some(ic)) => pc.idx + pc.count == ic,
                    _ => true,
                }
            {
                pa.count += 1;
                pb.count += 1;
                if let Some(pc) = pc {
                    pc.count += 1;
                }
                continue;
            }
            out.push((
                Ref { idx: ia, count: 1, ..a },
                Ref { idx: ib, count: 1, ..b },
                c.map(|c| Ref { idx: ic.unwrap_or(0), count: 1, ..c }),
            ));
        }
        out
    }

    fn keys(&self, r: Ref) -> Vec<(u32, Buffer, u32)> {
        (0..r.count)
            .map(|k| {
                let (b, i) = self.layout.alias(r.rank, r.buf, r.idx + k);
                (r.rank, b, i)
            })
            .collect()
    }

    fn add(&mut self, rank: u32, kind: StepKind, src: Ref, dst: Ref, hint: Option<u32>) -> NodeIndex {
        let slot = |r: Ref| Slot { buf: r.buf, off: Some(r.idx) };
        self.dag.g.add_node(Instr {
            rank,
            kind,
            src: slot(src),
            dst: slot(dst),
            count: src.count,
            send_to: None,
            recv_from: None,
            hint,
            instance: self.instance,
            depth: 0,
            priority: 0,
        })
    }

    fn local(&mut self, kind: StepKind, src: Ref, dst: Ref, hint: Option<u32>) {
        let n = self.add(dst.rank, kind, src, dst, hint);
        let (ks, kd) = (self.keys(src), self.keys(dst));
        self.dag.read(n, &ks);
        if kind == StepKind::Reduce {
            self.dag.read(n, &kd);
        }
        self.dag.write(n, &kd);
    }

    /// A send of `from` to `to.rank`; the receiving side is added by the caller.
    fn send(&mut self, from: Ref, to_rank: u32, hint: Option<u32>) -> NodeIndex {
        let n = self.add(from.rank, StepKind::Send, from, from, hint);
        self.dag.g[n].send_to = Some(to_rank);
        let ks = self.keys(from);
        self.dag.read(n, &ks);
        n
    }

    fn recv(&mut self, send: NodeIndex, from_rank: u32, to: Ref, hint: Option<u32>) -> NodeIndex {
        let n = self.add(to.rank, StepKind::Recv, to, to, hint);
        self.dag.g[n].recv_from = Some(from_rank);
        self.dag.edge(send, n, Edge::Comm);
        let kd = self.keys(to);
        self.dag.write(n, &kd);
        n
    }

    fn copy_mapped(&mut self, from: Ref, to: Ref, hint: Option<u32>) {
        if from.rank == to.rank {
            if from != to {
                self.local(StepKind::Copy, from, to, hint);
            }
            return;
        }
        let s = self.send(from, to.rank, hint);
        self.recv(s, from.rank, to, hint);
    }

    fn reduce_mapped(&mut self, to: Ref, local: Ref, from: Ref, hint: Option<u32>) {
        if from.rank == to.rank {
            if to != local {
                self.local(StepKind::Copy, local, to, hint);
            }
            self.local(StepKind::Reduce, from, to, hint);
            return;
        }
        let s = self.send(from, to.rank, hint);
        if self.fused {
            // The receiver's own operand is the local source (never the sender's place).
            let n = self.add(to.rank, StepKind::RecvReduceCopy, local, to, hint);
            self.dag.g[n].recv_from = Some(from.rank);
            self.dag.edge(s, n, Edge::Comm);
            let (kl, kd) = (self.keys(local), self.keys(to));
            self.dag.read(n, &kl);
            self.dag.write(n, &kd);
            return;
        }
        if self.keys(to) != self.keys(local) {
            // Receive straight into the destination, then add the local operand (not
            // when the two are one memory in place: the receive would overwrite it).
            self.recv(s, from.rank, to, hint);
            self.local(StepKind::Reduce, local, to, hint);
        } else {
            let r = self.staging[to.rank as usize];
            self.staging[to.rank as usize] += to.count;
            let stage = Ref { rank: to.rank, buf: Buffer::Scratch, idx: r, count: to.count };
            self.recv(s, from.rank, stage, hint);
            if to != local {
                // Out of place the two are different memory.
                self.local(StepKind::Copy, local, to, hint);
            }
            self.local(StepKind::Reduce, stage, to, hint);
        }
    }
}

/// Fuse a receive with the send of what it produced (MSCCLang's two rules, in its
/// order): `rrc` whose only successor is the send of its result becomes `rrs` (the
/// result is overwritten or never read again) or `rrcs`; then `r` followed by the send
/// of the received chunks becomes `rcs`. Only steps of one phase (equal hints) fuse.
pub fn fuse(dag: &mut Dag) {
    let nodes: Vec<NodeIndex> = dag.g.node_indices().collect();
    for &x in &nodes {
        if !dag.g.contains_node(x) || dag.g[x].kind != StepKind::RecvReduceCopy {
            continue;
        }
        let succ = dag.local_succs(x);
        let [y] = succ.as_slice() else { continue };
        let y = *y;
        if !fusable(dag, x, y) {
            continue;
        }
        let after = dag.local_succs(y);
        let dst = dag.g[x].dst;
        let discard = if after.is_empty() {
            dst.buf == Buffer::Scratch
        } else {
            after.iter().all(|&z| {
                let z = &dag.g[z];
                z.kind.writes_dst() && !z.kind.reduces() && z.dst == dst && z.count == dag.g[x].count
            })
        };
        merge(dag, x, y);
        let i = &mut dag.g[x];
        if discard {
            i.kind = StepKind::RecvReduceSend;
            i.dst = i.src;
        } else {
            i.kind = StepKind::RecvReduceCopySend;
        }
    }
    for &x in &nodes {
        if !dag.g.contains_node(x) || dag.g[x].kind != StepKind::Recv {
            continue;
        }
        let Some(y) = dag.local_succs(x).into_iter().find(|&y| fusable(dag, x, y)) else { continue };
        merge(dag, x, y);
        dag.g[x].kind = StepKind::RecvCopySend;
    }
}

/// Whether `y` is a send of exactly what `x` wrote, in the same phase, reading nothing else.
fn fusable(dag: &Dag, x: NodeIndex, y: NodeIndex) -> bool {
    let (a, b) = (&dag.g[x], &dag.g[y]);
    b.kind == StepKind::Send
        && b.rank == a.rank
        && b.src == a.dst
        && b.count == a.count
        && b.hint == a.hint
        && b.instance == a.instance
        && dag.local_preds(y) == [x]
}

/// `x` takes over `y`'s send: its communication edge and its successors.
fn merge(dag: &mut Dag, x: NodeIndex, y: NodeIndex) {
    let outs: Vec<(NodeIndex, Edge)> =
        dag.g.edges_directed(y, Direction::Outgoing).map(|e| (e.target(), *e.weight())).collect();
    let to = dag.g[y].send_to;
    dag.g.remove_node(y);
    for (t, k) in outs {
        dag.edge(x, t, k);
    }
    dag.g[x].send_to = to;
}

/// Depth (hops from a root) and reverse depth (hops to a leaf) of every instruction;
/// `Err` names a cycle (an algorithm bug).
pub fn complete(dag: &mut Dag) -> Result<(), String> {
    let order = petgraph::algo::toposort(&dag.g, None).map_err(|_| "the instruction graph has a cycle".to_string())?;
    for &n in &order {
        let d = dag.g.neighbors_directed(n, Direction::Incoming).map(|p| dag.g[p].depth + 1).max().unwrap_or(0);
        dag.g[n].depth = d;
    }
    for &n in order.iter().rev() {
        let p = dag.g.neighbors_directed(n, Direction::Outgoing).map(|s| dag.g[s].priority + 1).max().unwrap_or(0);
        dag.g[n].priority = p;
    }
    Ok(())
}

/// The global topological order: of the ready instructions, the shallowest first, then
/// the one with most work after it, then the lowest destination chunk.
pub fn order(dag: &Dag) -> Vec<NodeIndex> {
    type Key = Reverse<(u32, Reverse<u32>, u32, u32, usize)>;
    let key = |n: NodeIndex| -> Key {
        let i = &dag.g[n];
        Reverse((i.depth, Reverse(i.priority), i.dst.off.unwrap_or(0), i.rank, n.index()))
    };
    let mut indeg: HashMap<NodeIndex, usize> = HashMap::with_capacity(dag.g.node_count());
    let mut heap: BinaryHeap<Key> = BinaryHeap::new();
    for n in dag.g.node_indices() {
        let d = dag.g.neighbors_directed(n, Direction::Incoming).count();
        if d == 0 {
            heap.push(key(n));
        } else {
            indeg.insert(n, d);
        }
    }
    let mut out = Vec::with_capacity(dag.g.node_count());
    while let Some(Reverse((.., ix))) = heap.pop() {
        let n = NodeIndex::new(ix);
        out.push(n);
        for s in dag.g.neighbors_directed(n, Direction::Outgoing) {
            if let Some(d) = indeg.get_mut(&s) {
                *d -= 1;
                if *d == 0 {
                    heap.push(key(s));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::program::Collective;
    use super::*;

    fn ring4(fused: bool) -> Dag {
        let l = Layout { coll: Collective::AllReduce, ranks: 4, per: 4, instances: 1 };
        let mut t = Tracer::new(&l, fused);
        super::super::ring::trace(&mut t, Collective::AllReduce, &[vec![0, 1, 2, 3]], 0);
        t.dag
    }

    fn census(d: &Dag) -> Vec<(StepKind, usize)> {
        let kinds = [
            StepKind::Send,
            StepKind::Recv,
            StepKind::RecvReduceCopy,
            StepKind::RecvReduceSend,
            StepKind::RecvReduceCopySend,
            StepKind::RecvCopySend,
        ];
        kinds
            .into_iter()
            .map(|k| (k, d.g.node_weights().filter(|i| i.kind == k).count()))
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    #[test]
    fn ring_allreduce_fuses_as_msccl_tools_counts() {
        // §2.12: 48 instructions before fusion (24 s, 12 rrc, 12 r), 28 after.
        let mut d = ring4(true);
        assert_eq!(census(&d), vec![(StepKind::Send, 24), (StepKind::Recv, 12), (StepKind::RecvReduceCopy, 12)]);
        fuse(&mut d);
        assert_eq!(
            census(&d),
            vec![
                (StepKind::Send, 4),
                (StepKind::Recv, 4),
                (StepKind::RecvReduceSend, 8),
                (StepKind::RecvReduceCopySend, 4),
                (StepKind::RecvCopySend, 8)
            ]
        );
        complete(&mut d).unwrap();
        // Rank 0's instructions in the global order: depth 0..6, priority 6..0.
        let o = order(&d);
        let r0: Vec<(StepKind, u32, u32)> =
            o.iter().map(|&n| &d.g[n]).filter(|i| i.rank == 0).map(|i| (i.kind, i.depth, i.priority)).collect();
        assert_eq!(r0.len(), 7);
        assert_eq!(r0.iter().map(|x| x.1).collect::<Vec<_>>(), (0..7).collect::<Vec<_>>());
        assert_eq!(r0.iter().map(|x| x.2).collect::<Vec<_>>(), (0..7).rev().collect::<Vec<_>>());
    }

    #[test]
    fn without_fusion_a_reduction_is_a_receive_and_a_local_reduce() {
        let d = ring4(false);
        assert!(d.g.node_weights().all(|i| !i.kind.is_fused()));
        assert_eq!(d.g.node_weights().filter(|i| i.kind == StepKind::Reduce).count(), 12);
    }

    #[test]
    fn in_place_aliases_order_a_write_after_the_read_it_would_clobber() {
        // Allgather in place: rank 1's input chunk 0 is its output chunk 1; a write
        // of output chunk 1 must come after the send that reads input chunk 0.
        let l = Layout { coll: Collective::AllGather, ranks: 2, per: 1, instances: 1 };
        let mut t = Tracer::new(&l, true);
        t.copy(at(1, Buffer::Input, 0, 1), at(0, Buffer::Output, 1, 1), None);
        t.copy(at(0, Buffer::Input, 0, 1), at(1, Buffer::Output, 1, 1), None);
        let d = t.dag;
        let send = d.g.node_indices().find(|&n| d.g[n].rank == 1 && d.g[n].kind == StepKind::Send).unwrap();
        let recv = d.g.node_indices().find(|&n| d.g[n].rank == 1 && d.g[n].kind == StepKind::Recv).unwrap();
        assert!(d.g.contains_edge(send, recv));
    }
}
