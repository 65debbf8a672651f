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
    /// Write into the peer's CCL buffer over the network.
    RdmaWrite {
        peer: u32,
        slices: u32,
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
            Task::RdmaWrite { peer, slices } => {
                write!(f, "RDMA write {slices} slice{} -> rank{peer}.CCL_In", if *slices == 1 { "" } else { "s" })
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

/// The streams of rank `r`, and its level-0 and level-1 peers.
pub fn streams(s: &Shape, r: usize) -> (Vec<Stream>, Vec<usize>, Vec<usize>) {
    let mut b = Builder {
        main: Vec::new(),
        subs: (0..s.sub_streams()).map(|_| (None, Vec::new())).collect(),
        peers0: Vec::new(),
        peers1: Vec::new(),
    };
    match s.coll {
        Coll::AllGather => {
            level0(s, r, &mut b, Coll::AllGather, true);
            level1(s, r, &mut b, Coll::AllGather);
        }
        Coll::ReduceScatter => {
            level1(s, r, &mut b, Coll::ReduceScatter);
            level0(s, r, &mut b, Coll::ReduceScatter, s.m == 1);
        }
        Coll::AllReduce => {
            level0(s, r, &mut b, Coll::ReduceScatter, true);
            level1(s, r, &mut b, Coll::ReduceScatter);
            level1(s, r, &mut b, Coll::AllGather);
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

/// One level-0 phase. `first`: the user's input enters the CCL buffer here.
fn level0(s: &Shape, r: usize, b: &mut Builder, phase: Coll, first: bool) {
    let d = s.d;
    let base = r / d * d;
    let i = r % d;
    match s.l0 {
        Algo::Single => {
            if first {
                b.main.push(copy(own(UserIn), own(UserOut), Span::one(r)));
            }
        }
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
                        copy(slice(UserOut, out), BufRef::peer(right, CclIn, Off::Start), Span::one(out)),
                        Task::TxDataSignal(right),
                        Task::RxDataSignal(left),
                        copy(own(CclIn), slice(UserOut, inn), Span::one(inn)),
                    ]);
                }
            } else {
                if first {
                    b.main.push(copy(own(UserIn), own(CclIn), Span::all(d)));
                }
                // Each step receives into Scratch and reduces it into the CCL_In slice
                // sent on the next step: a rank's Ack then promises a Scratch nobody
                // still reads.
                for st in 0..d - 1 {
                    let (out, inn) = (slot(st + 1), slot(st + 2));
                    b.main.extend([
                        Task::TxAck(left),
                        Task::RxAck(right),
                        copy(slice(CclIn, out), BufRef::peer(right, Scratch, Off::Start), Span::one(out)),
                        Task::TxDataSignal(right),
                        Task::RxDataSignal(left),
                        reduce(own(Scratch), slice(CclIn, inn), Span::one(inn)),
                    ]);
                }
                b.main.push(copy(slice(CclIn, r), reduced_to(s, r, false), Span::one(r)));
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
    let place = |x: usize| Off::Place(x as u32);
    if phase == Coll::AllGather {
        if first {
            b.main.push(copy(own(UserIn), BufRef::at(CclOut, place(r)), Span::one(r)));
        }
    } else if first {
        b.main.push(copy(own(UserIn), own(CclIn), Span::all(d)));
    }
    // The rank's own slice enters Scratch before the sub-streams reduce into it.
    if phase == Coll::ReduceScatter {
        b.main.push(copy(slice(CclIn, r), own(Scratch), Span::one(r)));
    }
    for k in 0..subs {
        b.main.push(Task::Post(format!("aux{k}")));
    }
    if phase == Coll::AllGather {
        b.main.push(copy(BufRef::at(CclOut, place(r)), slice(UserOut, r), Span::one(r)));
    }
    for j in 1..d {
        let peer = base + (i + d - j) % d;
        b.peers0.push(peer);
        let p = peer as u32;
        let moved = if phase == Coll::AllGather {
            copy(BufRef::peer(p, CclOut, place(peer)), slice(UserOut, peer), Span::one(peer))
        } else {
            reduce(BufRef::peer(p, CclIn, Off::Slice(r as u32)), own(Scratch), Span::one(r))
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
        b.main.push(copy(own(Scratch), reduced_to(s, r, true), Span::one(r)));
    }
}

/// Where a level-0 reduce-scatter leaves rank `r`'s reduced slice: the user's output,
/// or, in an allreduce, where the allgather phase takes it from (the rank's place in
/// CCL_Out after a mesh, its slice of UserOut after a ring).
fn reduced_to(s: &Shape, r: usize, mesh: bool) -> BufRef {
    match (s.coll, mesh) {
        (Coll::AllReduce, true) => BufRef::at(CclOut, Off::Place(r as u32)),
        (Coll::AllReduce, false) => slice(UserOut, r),
        _ => own(UserOut),
    }
}

/// The level-1 exchanges of node position `n` of `m`: per step (send to, receive from,
/// slices sent).
fn schedule(algo: Algo, phase: Coll, n: usize, m: usize) -> Vec<(Option<usize>, Option<usize>, usize)> {
    let k = (usize::BITS - (m - 1).leading_zeros()) as usize;
    let add = |x: usize, dlt: usize| (x + dlt) % m;
    let sub = |x: usize, dlt: usize| (x + m - dlt % m) % m;
    match algo {
        Algo::Nhr => (0..k)
            .map(|j| {
                let (dlt, ag) = if phase == Coll::AllGather { (1 << (k - 1 - j), true) } else { (1 << j, false) };
                let slices = (m - 1 + dlt) / (2 * dlt);
                if ag {
                    (Some(add(n, dlt)), Some(sub(n, dlt)), slices)
                } else {
                    (Some(sub(n, dlt)), Some(add(n, dlt)), slices)
                }
            })
            .collect(),
        Algo::Nb => (0..k)
            .map(|j| {
                let dlt = 1usize << j;
                let slices = if phase == Coll::AllGather {
                    if j + 1 == k && !m.is_power_of_two() { m - (1 << (k - 1)) } else { dlt }
                } else {
                    (m - 1 + dlt) / (2 * dlt)
                };
                (Some(add(n, dlt)), Some(sub(n, dlt)), slices)
            })
            .collect(),
        Algo::HalvingDoubling => halving_doubling(phase, n, m),
        _ => (0..m - 1).map(|_| (Some(add(n, 1)), Some(sub(n, 1)), 1)).collect(),
    }
}

/// Recursive halving-doubling with HCCL's folding of the first 2(m - b) nodes.
fn halving_doubling(phase: Coll, n: usize, m: usize) -> Vec<(Option<usize>, Option<usize>, usize)> {
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
    if odd_in_part1 {
        v.push((Some(n - 1), None, 1));
    } else if even_in_part1 {
        v.push((None, Some(n + 1), 1));
    }
    if !odd_in_part1 {
        let br = block(n);
        for j in 0..steps {
            let dist = if ag { 1 << j } else { 1 << (steps - 1 - j) };
            let peer = node(br ^ dist);
            let slices = if ag { 1 << j } else { 1 << (steps - 1 - j) };
            v.push((Some(peer), Some(peer), slices));
        }
    }
    // Fold out: even part-1 nodes hand the result back.
    if even_in_part1 {
        v.push((Some(n + 1), None, 1));
    } else if odd_in_part1 {
        v.push((None, Some(n - 1), 1));
    }
    v
}

/// One level-1 phase among the same-index GPUs of every node.
fn level1(s: &Shape, r: usize, b: &mut Builder, phase: Coll) {
    if s.m <= 1 {
        return;
    }
    let (d, m) = (s.d, s.m);
    let (n, i) = (r / d, r % d);
    let rank = |node: usize| (node * d + i) as u32;
    for (to, from, slices) in schedule(s.l1, phase, n, m) {
        if let Some(f) = from {
            b.peers1.push(rank(f) as usize);
            b.main.push(Task::TxAck(rank(f)));
        }
        if let Some(t) = to {
            let t = rank(t);
            b.peers1.push(t as usize);
            let write = Task::RdmaWrite { peer: t, slices: slices as u32 };
            b.main.extend([Task::RxAck(t), write, Task::TxDataSignal(t)]);
        }
        if let Some(f) = from {
            let f = rank(f);
            b.main.extend([Task::RxDataSignal(f), Task::TxDataAck(f)]);
            let span = Span { first: 0, n: slices as u32 };
            b.main.push(if phase == Coll::AllGather {
                copy(own(CclIn), own(UserOut), span)
            } else {
                reduce(own(CclIn), own(Scratch), span)
            });
        }
        if let Some(t) = to {
            b.main.push(Task::RxDataAck(rank(t)));
        }
    }
}
