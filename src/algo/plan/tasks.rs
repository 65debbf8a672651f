//! Each stream's task list, per rank: HCCL's templates written out.
//!
//! Phases by collective (HCCL's two-level decomposition): AllGather = level 0, then level
//! 1 among the same-index GPUs of every node; ReduceScatter = level 1, then level 0;
//! AllReduce = level-0 reduce-scatter, level-1 allreduce on the node's share, level-0
//! allgather. A pipeline level 1 is written as its ring, after (or before) the level-0
//! phase rather than fused with it.
//!
//! Level-0 mesh (seed 001): the main stream copies the rank's own data and wakes one
//! sub-stream per peer (Post aux_k / Wait aux_k); each sub-stream exchanges Ack with its
//! peer, reads the peer's CCL buffer, exchanges DataSignal and reports back (Post sig_k /
//! Wait sig_k). The peer of sub-stream k is rank - (k+1) (HCCL's BackwardRank); peers
//! left over when the executor has fewer sub-streams run on the main stream. Level-0 ring
//! and level 1 run on the main stream alone; level 1 writes over RDMA and closes every
//! exchange with DataAck.

use std::fmt;

use super::buf::{Buf, BufRef, Off, Span};
use super::flow::{self, Flow, Pattern};
use super::select::{Algo, Coll};

/// One task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Task {
    /// A copy engine copy (local, or reading/writing a peer's buffer over NVLink/PCIe).
    Copy {
        src: BufRef,
        dst: BufRef,
        span: Span,
    },
    /// A copy that reduces into its destination.
    Reduce {
        src: BufRef,
        dst: BufRef,
        span: Span,
    },
    /// Set a local notify.
    Post(String),
    /// Wait for a local notify and reset it.
    Wait(String),
    /// Post the peer's Ack notify (I am ready).
    TxAck(u32),
    /// Wait for my Ack notify from the peer.
    RxAck(u32),
    TxDataSignal(u32),
    RxDataSignal(u32),
    TxDataAck(u32),
    RxDataAck(u32),
    /// Write into the peer's buffer over the network (`dst` names the peer).
    RdmaWrite {
        src: BufRef,
        dst: BufRef,
        span: Span,
    },
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Task::Copy { src, dst, .. } => write!(f, "copy {src} -> {dst}"),
            Task::Reduce { src, dst, .. } => write!(f, "reduce {src} -> {dst}"),
            Task::Post(n) => write!(f, "Post {n}"),
            Task::Wait(n) => write!(f, "Wait {n}"),
            Task::TxAck(p) => write!(f, "TxAck({p})"),
            Task::RxAck(p) => write!(f, "RxAck({p})"),
            Task::TxDataSignal(p) => write!(f, "TxDataSignal({p})"),
            Task::RxDataSignal(p) => write!(f, "RxDataSignal({p})"),
            Task::TxDataAck(p) => write!(f, "TxDataAck({p})"),
            Task::RxDataAck(p) => write!(f, "RxDataAck({p})"),
            Task::RdmaWrite { src, dst, span } => {
                write!(f, "RDMA write {src} -> {dst} ({} slice{})", span.n, if span.n == 1 { "" } else { "s" })
            }
        }
    }
}

impl serde::Serialize for Task {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One stream: the main stream or a sub-stream, with the peer it serves.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Stream {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<u32>,
    pub tasks: Vec<Task>,
}

/// What the task lists depend on.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub coll: Coll,
    /// GPUs a node, nodes.
    pub d: usize,
    pub m: usize,
    pub bytes: u64,
    pub l0: Algo,
    pub l1: Algo,
}

impl Shape {
    /// HCCL's executor for this shape.
    pub fn executor(&self) -> String {
        let op = match self.coll {
            Coll::AllGather => "AllGather",
            Coll::ReduceScatter => "ReduceScatter",
            Coll::AllReduce => "AllReduce",
        };
        let kind = match (self.l0, self.l1) {
            (Algo::Mesh, Algo::Single) if self.coll == Coll::AllGather => "MeshOpbase",
            (_, Algo::Pipeline) => "Pipeline",
            (Algo::Mesh, _) => "Mesh",
            _ => "Ring",
        };
        format!("Coll{op}{kind}Executor")
    }

    /// Sub-streams beside the main stream (HCCL's CalcStreamNum).
    pub fn sub_streams(&self) -> usize {
        match self.l0 {
            Algo::Mesh if self.coll == Coll::AllGather && self.m == 1 => self.d - 1,
            Algo::Mesh => self.d.saturating_sub(2),
            _ => 0,
        }
    }

    /// Scratch: reduce-scatter executors receive into a scratch the size of CCL_In.
    pub fn scratch(&self) -> u64 {
        match self.coll {
            Coll::AllGather => 0,
            _ => super::select::CCL_BYTES,
        }
    }
}

struct Builder {
    main: Vec<Task>,
    subs: Vec<(Option<u32>, Vec<Task>)>,
    peers0: Vec<usize>,
    peers1: Vec<usize>,
}

fn copy(src: BufRef, dst: BufRef, span: Span) -> Task {
    Task::Copy { src, dst, span }
}

fn reduce(src: BufRef, dst: BufRef, span: Span) -> Task {
    Task::Reduce { src, dst, span }
}

use Buf::{CclIn, CclOut, Scratch, UserIn, UserOut};

fn own(b: Buf) -> BufRef {
    BufRef::own(b)
}

fn slice(b: Buf, k: usize) -> BufRef {
    BufRef::at(b, Off::Slice(k as u32))
}

/// The level-1 data flows of a shape: what every round of the gathering and the
/// reducing phase moves (none on one node).
#[derive(Debug, Clone, Default)]
pub struct Level1 {
    gather: Option<Flow>,
    reduce: Option<Flow>,
}

impl Level1 {
    pub fn new(s: &Shape) -> Result<Level1, String> {
        if s.m <= 1 {
            return Ok(Level1::default());
        }
        let flow = |phase: Coll| -> Result<Flow, String> {
            let (pat, cyclic) = pattern(s.l1, phase, s.m);
            let f = if phase == Coll::AllGather {
                flow::gather(&pat, s.m, cyclic)
            } else {
                flow::reduce(&pat, s.m, cyclic)
            };
            f.map_err(|e| format!("level1 {} of {} nodes: {e}", s.l1, s.m))
        };
        let gather = (s.coll != Coll::ReduceScatter).then(|| flow(Coll::AllGather)).transpose()?;
        let reduce = (s.coll != Coll::AllGather).then(|| flow(Coll::ReduceScatter)).transpose()?;
        Ok(Level1 { gather, reduce })
    }
}

/// The streams of rank `r`, and its level-0 and level-1 peers; `l1` is
/// [`Level1::new`] of the same shape.
pub fn streams(s: &Shape, r: usize, l1: &Level1) -> (Vec<Stream>, Vec<usize>, Vec<usize>) {
    let mut b = Builder {
        main: Vec::new(),
        subs: (0..s.sub_streams()).map(|_| (None, Vec::new())).collect(),
        peers0: Vec::new(),
        peers1: Vec::new(),
    };
    match s.coll {
        Coll::AllGather => {
            level0(s, r, &mut b, Coll::AllGather, true);
            level1(s, r, &mut b, Coll::AllGather, l1.gather.as_ref());
        }
        Coll::ReduceScatter => {
            level1(s, r, &mut b, Coll::ReduceScatter, l1.reduce.as_ref());
            level0(s, r, &mut b, Coll::ReduceScatter, s.m == 1);
        }
        Coll::AllReduce => {
            level0(s, r, &mut b, Coll::ReduceScatter, true);
            level1(s, r, &mut b, Coll::ReduceScatter, l1.reduce.as_ref());
            level1(s, r, &mut b, Coll::AllGather, l1.gather.as_ref());
            level0(s, r, &mut b, Coll::AllGather, false);
        }
    }
    let mut out = vec![Stream { name: "main".into(), peer: None, tasks: b.main }];
    for (k, (peer, tasks)) in b.subs.into_iter().enumerate() {
        out.push(Stream { name: format!("sub{k}"), peer, tasks });
    }
    b.peers0.sort_unstable();
    b.peers0.dedup();
    b.peers1.sort_unstable();
    b.peers1.dedup();
    (out, b.peers0, b.peers1)
}

/// The slices a level-0 phase calls rank `x`'s: its share for allgather and
/// reducescatter; for allreduce, the 1/d of the buffer that GPU `x % d` of every node
/// reduces (m consecutive slices of 1/(d m), so level 1 splits it among the nodes).
fn part(s: &Shape, x: usize) -> Span {
    if s.coll == Coll::AllReduce {
        let j = x % s.d;
        Span { first: (j * s.m) as u32, n: s.m as u32 }
    } else {
        Span::one(x)
    }
}

/// The start of `part(s, x)` in buffer `b`.
fn at_part(s: &Shape, b: Buf, x: usize) -> BufRef {
    BufRef::at(b, Off::Slice(part(s, x).first))
}

/// One level-0 phase. `first`: the user's input enters the CCL buffer here.
fn level0(s: &Shape, r: usize, b: &mut Builder, phase: Coll, first: bool) {
    let d = s.d;
    let base = r / d * d;
    let i = r % d;
    let all = Span::all(d * s.m);
    match s.l0 {
        // One GPU a node (more than one node): the level-1 phases do the work.
        Algo::Single => match (s.coll, phase) {
            (Coll::AllGather, _) => b.main.push(copy(own(UserIn), slice(UserOut, r), Span::one(r))),
            (Coll::ReduceScatter, _) => b.main.push(copy(slice(CclIn, r), own(UserOut), Span::one(r))),
            (Coll::AllReduce, Coll::ReduceScatter) => b.main.push(copy(own(UserIn), own(UserOut), all)),
            _ => {}
        },
        Algo::Mesh => mesh(s, r, b, phase, first),
        _ => {
            let right = (base + (i + 1) % d) as u32;
            let left = (base + (i + d - 1) % d) as u32;
            b.peers0.extend([right as usize, left as usize]);
            let slot = |k: usize| base + (i + 2 * d - k) % d;
            if phase == Coll::AllGather {
                if first {
                    b.main.push(copy(own(UserIn), slice(UserOut, r), Span::one(r)));
                }
                for st in 0..d - 1 {
                    let (out, inn) = (slot(st), slot(st + 1));
                    b.main.extend([
                        Task::TxAck(left),
                        Task::RxAck(right),
                        copy(at_part(s, UserOut, out), BufRef::peer(right, CclIn, Off::Start), part(s, out)),
                        Task::TxDataSignal(right),
                        Task::RxDataSignal(left),
                        copy(own(CclIn), at_part(s, UserOut, inn), part(s, inn)),
                    ]);
                }
            } else {
                if first {
                    b.main.push(copy(own(UserIn), own(CclIn), all));
                }
                // Each step receives into Scratch and reduces it into the CCL_In slice
                // sent on the next step: a rank's Ack then promises a Scratch nobody
                // still reads.
                for st in 0..d - 1 {
                    let (out, inn) = (slot(st + 1), slot(st + 2));
                    b.main.extend([
                        Task::TxAck(left),
                        Task::RxAck(right),
                        copy(at_part(s, CclIn, out), BufRef::peer(right, Scratch, Off::Start), part(s, out)),
                        Task::TxDataSignal(right),
                        Task::RxDataSignal(left),
                        reduce(own(Scratch), at_part(s, CclIn, inn), part(s, inn)),
                    ]);
                }
                b.main.push(copy(at_part(s, CclIn, r), reduced_to(s, r, false), part(s, r)));
            }
        }
    }
}

/// The mesh of seed 001 (AllGather) and its reduce-scatter twin.
fn mesh(s: &Shape, r: usize, b: &mut Builder, phase: Coll, first: bool) {
    let d = s.d;
    let base = r / d * d;
    let i = r % d;
    let subs = b.subs.len();
    let place = |x: usize| Off::Place(part(s, x).first);
    if phase == Coll::AllGather {
        if first {
            b.main.push(copy(own(UserIn), BufRef::at(CclOut, place(r)), part(s, r)));
        }
    } else if first {
        b.main.push(copy(own(UserIn), own(CclIn), Span::all(d * s.m)));
    }
    // The rank's own slice enters Scratch before the sub-streams reduce into it.
    if phase == Coll::ReduceScatter {
        b.main.push(copy(at_part(s, CclIn, r), own(Scratch), part(s, r)));
    }
    for k in 0..subs {
        b.main.push(Task::Post(format!("aux{k}")));
    }
    if phase == Coll::AllGather {
        b.main.push(copy(BufRef::at(CclOut, place(r)), at_part(s, UserOut, r), part(s, r)));
    }
    for j in 1..d {
        let peer = base + (i + d - j) % d;
        b.peers0.push(peer);
        let p = peer as u32;
        let moved = if phase == Coll::AllGather {
            copy(BufRef::peer(p, CclOut, place(peer)), at_part(s, UserOut, peer), part(s, peer))
        } else {
            reduce(BufRef::peer(p, CclIn, Off::Slice(part(s, r).first)), own(Scratch), part(s, r))
        };
        let exchange = [Task::TxAck(p), Task::RxAck(p), moved, Task::TxDataSignal(p), Task::RxDataSignal(p)];
        if j - 1 < subs {
            let k = j - 1;
            let (peer_of, tasks) = &mut b.subs[k];
            *peer_of = Some(p);
            tasks.push(Task::Wait(format!("aux{k}")));
            tasks.extend(exchange);
            tasks.push(Task::Post(format!("sig{k}")));
        } else {
            b.main.extend(exchange);
        }
    }
    for k in 0..subs {
        b.main.push(Task::Wait(format!("sig{k}")));
    }
    if phase == Coll::ReduceScatter {
        b.main.push(copy(own(Scratch), reduced_to(s, r, true), part(s, r)));
    }
}

/// Where a level-0 reduce-scatter leaves rank `r`'s reduced slice: the user's output,
/// or, in an allreduce, where the allgather phase takes it from (the rank's place in
/// CCL_Out after a mesh, its slice of UserOut after a ring).
fn reduced_to(s: &Shape, r: usize, mesh: bool) -> BufRef {
    match (s.coll, mesh) {
        (Coll::AllReduce, true) => BufRef::at(CclOut, Off::Place(part(s, r).first)),
        (Coll::AllReduce, false) => at_part(s, UserOut, r),
        _ => own(UserOut),
    }
}

/// The rounds of a level-1 algorithm among `m` nodes, and whether every node's rounds
/// are node 0's rotated (then only node 0's entry is given, as offsets).
fn pattern(algo: Algo, phase: Coll, m: usize) -> (Pattern, bool) {
    if algo == Algo::HalvingDoubling {
        let per_node: Vec<_> = (0..m).map(|n| halving_doubling(phase, n, m)).collect();
        let rounds = per_node[0].len();
        return ((0..rounds).map(|s| per_node.iter().map(|v| v[s]).collect()).collect(), false);
    }
    (schedule(algo, phase, m).into_iter().map(|x| vec![x]).collect(), true)
}

/// The rounds of node 0 of `m` in a rotation-invariant algorithm: (send to, receive
/// from) per round.
fn schedule(algo: Algo, phase: Coll, m: usize) -> Vec<(Option<usize>, Option<usize>)> {
    let k = (usize::BITS - (m - 1).leading_zeros()) as usize;
    let (fwd, back) = (|dlt: usize| dlt % m, |dlt: usize| (m - dlt % m) % m);
    match algo {
        Algo::Nhr => (0..k)
            .map(|j| {
                if phase == Coll::AllGather {
                    let dlt = 1 << (k - 1 - j);
                    (Some(fwd(dlt)), Some(back(dlt)))
                } else {
                    let dlt = 1 << j;
                    (Some(back(dlt)), Some(fwd(dlt)))
                }
            })
            .collect(),
        Algo::Nb => (0..k).map(|j| (Some(fwd(1 << j)), Some(back(1 << j)))).collect(),
        _ => (0..m - 1).map(|_| (Some(fwd(1)), Some(back(1)))).collect(),
    }
}

/// Recursive halving-doubling with HCCL's folding of the first 2(m - b) nodes: the
/// rounds of node `n`, the same number for every node (a fold-in and a fold-out round
/// when m is not a power of two; nodes without a part in a round sit it out).
fn halving_doubling(phase: Coll, n: usize, m: usize) -> Vec<(Option<usize>, Option<usize>)> {
    let b = 1usize << (usize::BITS - 1 - m.leading_zeros());
    let part1 = 2 * (m - b);
    let block = |x: usize| if x < part1 { x / 2 } else { x - part1 / 2 };
    let node = |br: usize| if br < part1 / 2 { 2 * br } else { br + part1 / 2 };
    let steps = b.trailing_zeros() as usize;
    let mut v = Vec::new();
    let odd_in_part1 = n < part1 && n % 2 == 1;
    let even_in_part1 = n < part1 && n.is_multiple_of(2);
    let ag = phase == Coll::AllGather;
    // Fold in: odd part-1 nodes hand their data to their even neighbour.
    if part1 > 0 {
        v.push(if odd_in_part1 {
            (Some(n - 1), None)
        } else if even_in_part1 {
            (None, Some(n + 1))
        } else {
            (None, None)
        });
    }
    for j in 0..steps {
        if odd_in_part1 {
            v.push((None, None));
        } else {
            let dist = if ag { 1 << j } else { 1 << (steps - 1 - j) };
            let peer = node(block(n) ^ dist);
            v.push((Some(peer), Some(peer)));
        }
    }
    // Fold out: even part-1 nodes hand the result back.
    if part1 > 0 {
        v.push(if even_in_part1 {
            (Some(n + 1), None)
        } else if odd_in_part1 {
            (None, Some(n - 1))
        } else {
            (None, None)
        });
    }
    v
}

/// One level-1 phase among the same-index GPUs of every node, moving the units `flow`
/// gives. A unit is node k's share: its d ranks' slices (allgather, reducescatter), or
/// for allreduce slice k of the part this GPU index reduced at level 0. Units stay where
/// they are kept (UserOut for allgather, CCL_In for reducescatter, the level-0 result's
/// buffer for allreduce) and land at the same offsets in the peer's CCL_In (gathering)
/// or Scratch (reducing, then reduced into place).
fn level1(s: &Shape, r: usize, b: &mut Builder, phase: Coll, flow: Option<&Flow>) {
    let Some(flow) = flow else { return };
    let (d, m) = (s.d, s.m);
    let (n, i) = (r / d, r % d);
    let rank = |node: usize| (node * d + i) as u32;
    let keep = match s.coll {
        Coll::AllGather => UserOut,
        Coll::ReduceScatter => CclIn,
        Coll::AllReduce if s.l0 == Algo::Mesh => CclOut,
        Coll::AllReduce => UserOut,
    };
    let land = if phase == Coll::AllGather { CclIn } else { Scratch };
    // Consecutive units as slice spans.
    let spans = |units: &[usize]| -> Vec<Span> {
        let mut out: Vec<Span> = Vec::new();
        for &u in units {
            let (first, len) = if s.coll == Coll::AllReduce { (i * m + u, 1) } else { (u * d, d) };
            match out.last_mut() {
                Some(l) if (l.first + l.n) as usize == first => l.n += len as u32,
                _ => out.push(Span { first: first as u32, n: len as u32 }),
            }
        }
        out
    };
    if s.coll == Coll::ReduceScatter {
        b.main.push(copy(own(UserIn), own(CclIn), Span::all(d * m)));
    }
    for round in flow.node(n) {
        if let Some(f) = round.from {
            b.peers1.push(rank(f) as usize);
            b.main.push(Task::TxAck(rank(f)));
        }
        if let Some(t) = round.to {
            let t = rank(t);
            b.peers1.push(t as usize);
            b.main.push(Task::RxAck(t));
            for sp in spans(&round.send) {
                let (src, dst) = (BufRef::at(keep, Off::Slice(sp.first)), BufRef::peer(t, land, Off::Slice(sp.first)));
                b.main.push(Task::RdmaWrite { src, dst, span: sp });
            }
            b.main.push(Task::TxDataSignal(t));
        }
        if let Some(f) = round.from {
            let f = rank(f);
            b.main.extend([Task::RxDataSignal(f), Task::TxDataAck(f)]);
            for sp in spans(&round.recv) {
                let (src, dst) = (BufRef::at(land, Off::Slice(sp.first)), BufRef::at(keep, Off::Slice(sp.first)));
                b.main.push(if phase == Coll::AllGather { copy(src, dst, sp) } else { reduce(src, dst, sp) });
            }
        }
        if let Some(t) = round.to {
            b.main.push(Task::RxDataAck(rank(t)));
        }
    }
}
