//! `topo algo make`: collective programs designed for a machine, scheduled the way the
//! MSCCLang compiler schedules them (reference §2), written for one runtime.
//!
//! ```text
//!   algorithm (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree) -> trace: copies and
//!   reductions of chunks (dag::Tracer) -> instruction DAG (petgraph) -> fusion (rcs,
//!   rrs, rrcs; none for RCCL) -> depths and priorities -> topological order ->
//!   channels, thread blocks, dependencies (schedule) -> Program
//! ```
//!
//! Differences from msccl-tools, on purpose (§2.11): a cross-rank reduction reads the
//! receiver's own operand; a local step with no predecessor is still scheduled;
//! `nchunksperloop` and the buffer sizes come from the collective, not from the chunks
//! touched; the header carries `outofplace`, `minBytes` and `maxBytes`; a thread
//! block's other side is never forced onto it (a conflict moves the flow to another
//! channel instead of failing). For RCCL, whose kernels run no fused steps, a reduction
//! arrives as a receive and a local `re`, and forwarding is a receive and a send.

pub mod dag;
pub mod hccl;
pub mod hier;
pub mod layout;
pub mod machine;
pub mod mesh;
pub mod rhd;
pub mod ring;
pub mod schedule;
pub mod slices;
pub mod tree;

use super::program::{Collective, Gpu, Header, Program, Protocol};
use super::runtime::Runtime;
use layout::Layout;

/// The algorithms topo makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algo {
    Ring,
    Mesh,
    Rhd,
    Nhr,
    Nb,
    Hierarchical,
    Nccl,
    /// NCCL's trees (allreduce).
    NcclTree,
}

impl Algo {
    pub const ALL: [Algo; 8] =
        [Algo::Ring, Algo::Mesh, Algo::Rhd, Algo::Nhr, Algo::Nb, Algo::Hierarchical, Algo::Nccl, Algo::NcclTree];

    pub fn name(self) -> &'static str {
        match self {
            Algo::Ring => "ring",
            Algo::Mesh => "mesh",
            Algo::Rhd => "rhd",
            Algo::Nhr => "nhr",
            Algo::Nb => "nb",
            Algo::Hierarchical => "hierarchical",
            Algo::Nccl => "nccl",
            Algo::NcclTree => "nccl-tree",
        }
    }

    pub fn parse(s: &str) -> Option<Algo> {
        Algo::ALL.into_iter().find(|a| a.name() == s)
    }

    /// The collectives the algorithm defines.
    pub fn collectives(self) -> &'static [Collective] {
        use Collective::*;
        match self {
            Algo::Ring | Algo::Nccl => &[AllReduce, AllGather, ReduceScatter, Broadcast, Reduce],
            Algo::Mesh => &[AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast],
            Algo::Rhd | Algo::Nhr | Algo::Nb => &[AllReduce, AllGather, ReduceScatter],
            Algo::Hierarchical | Algo::NcclTree => &[AllReduce],
        }
    }

    /// Whether the algorithm needs the machine (NCCL's rings or trees).
    pub fn needs_machine(self) -> bool {
        matches!(self, Algo::Nccl | Algo::NcclTree)
    }
}

/// The collectives `make` knows, by their command-line names.
pub const COLLECTIVES: [Collective; 6] = [
    Collective::AllReduce,
    Collective::AllGather,
    Collective::ReduceScatter,
    Collective::AllToAll,
    Collective::Broadcast,
    Collective::Reduce,
];

/// The job a program is made for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub nodes: u32,
    pub gpus_per_node: u32,
    /// NCCL's rings for the job, one rank order per channel (the `nccl` algorithm).
    pub rings: Vec<Vec<u32>>,
    /// NCCL's trees for the job, per channel the parent of every rank, -1 for the root
    /// (the `nccl-tree` algorithm).
    pub trees: Vec<Vec<i32>>,
}

impl Shape {
    pub fn ranks(&self) -> u32 {
        self.nodes * self.gpus_per_node
    }
}

/// What to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub coll: Collective,
    pub algo: Algo,
    pub runtime: Runtime,
    pub proto: Protocol,
    /// Copies of the program on disjoint channels (MSCCLang's `instances`).
    pub instances: u32,
    /// Rings (`ring`, `nccl`) or trees (`nccl-tree`): how many; `None`: one for
    /// `ring`, NCCL's for `nccl` and `nccl-tree`.
    pub channels: Option<u32>,
    /// The root rank of broadcast and reduce (nccl-tests' `-r`; the others ignore it).
    pub root: u32,
}

impl Options {
    /// `algo`'s program for `coll` at make's defaults: the default runtime, Simple, one
    /// instance, the algorithm's own channels, root 0.
    pub fn new(coll: Collective, algo: Algo) -> Options {
        Options {
            coll,
            algo,
            runtime: Runtime::default(),
            proto: Protocol::Simple,
            instances: 1,
            channels: None,
            root: 0,
        }
    }
}

/// "a, b and c".
fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Whether the algorithm can make the collective for the job; `Err` is the one line
/// saying what it does make.
pub fn supports(opts: &Options, shape: &Shape) -> Result<(), String> {
    let a = opts.algo;
    if !a.collectives().contains(&opts.coll) {
        let names: Vec<&str> = a.collectives().iter().map(|c| c.xml_name()).collect();
        return Err(format!("`{}` makes {}, not {}", a.name(), list(&names), opts.coll));
    }
    if opts.runtime.collective_name(opts.coll).is_none() {
        return Err(format!("{} has no {} collective", opts.runtime.long_name(), opts.coll));
    }
    let n = shape.ranks();
    if n < 2 {
        return Err(format!("`{}` needs at least 2 ranks; this job has {n}", a.name()));
    }
    if matches!(opts.coll, Collective::Broadcast | Collective::Reduce) && opts.root >= n {
        return Err(format!("root rank {} for a job of {n} ranks", opts.root));
    }
    if a == Algo::Hierarchical && (shape.nodes < 2 || shape.gpus_per_node < 2) {
        return Err(format!(
            "`hierarchical` needs at least 2 nodes of at least 2 GPUs (this job: {} x {}); use --nodes",
            shape.nodes, shape.gpus_per_node
        ));
    }
    if a == Algo::Nccl && shape.rings.is_empty() {
        return Err("`nccl` needs a machine (--topo, --fixture or --root) for NCCL's rings".into());
    }
    if a == Algo::NcclTree && shape.trees.is_empty() {
        return Err("`nccl-tree` needs a machine (--topo, --fixture or --root) for NCCL's trees".into());
    }
    if opts.channels.is_some() && !matches!(a, Algo::Ring | Algo::Nccl | Algo::NcclTree) {
        return Err(format!("`{}` takes no --channels (only ring, nccl and nccl-tree do); use --instances", a.name()));
    }
    if opts.instances == 0 || opts.channels == Some(0) {
        return Err("--instances and --channels must be at least 1".into());
    }
    Ok(())
}

/// Make the program. `Err` is one line for the user.
pub fn make(opts: &Options, shape: &Shape) -> Result<Program, String> {
    let p = build(opts, shape)?;
    within_limits(&p, opts.runtime)?;
    Ok(p)
}

/// The program, before the runtime's limits are held against it.
fn build(opts: &Options, shape: &Shape) -> Result<Program, String> {
    supports(opts, shape)?;
    let n = shape.ranks();
    let coll = opts.coll;
    let lanes: Vec<Vec<u32>> = match opts.algo {
        Algo::Ring => vec![(0..n).collect(); opts.channels.unwrap_or(1) as usize],
        Algo::Nccl => {
            let k = opts.channels.map_or(shape.rings.len(), |c| c as usize);
            if k > shape.rings.len() {
                return Err(format!("--channels {k}: NCCL runs {} channels on this job", shape.rings.len()));
            }
            shape.rings[..k].to_vec()
        }
        _ => Vec::new(),
    };
    if let Some(bad) = lanes.iter().find(|o| o.len() != n as usize) {
        return Err(format!("a ring of {} ranks for a job of {n}", bad.len()));
    }
    let trees: &[Vec<i32>] = match opts.algo {
        Algo::NcclTree => {
            let k = opts.channels.map_or(shape.trees.len(), |c| c as usize);
            if k > shape.trees.len() {
                return Err(format!("--channels {k}: NCCL runs {} channels on this job", shape.trees.len()));
            }
            &shape.trees[..k]
        }
        _ => &[],
    };
    if let Some((c, bad)) =
        trees.iter().enumerate().find(|(_, p)| p.len() != n as usize || tree::bottom_up(p).is_none())
    {
        return Err(format!("NCCL's tree of channel {c} is not one tree over the job's {n} ranks ({bad:?})"));
    }
    let per = match opts.algo {
        Algo::Ring | Algo::Nccl => ring::per(coll, n, lanes.len() as u32),
        Algo::Mesh => mesh::per(coll, n),
        Algo::Rhd => rhd::per(coll, n),
        Algo::Nhr | Algo::Nb => hccl::per(coll, n),
        Algo::Hierarchical => hier::per(shape.nodes, shape.gpus_per_node),
        Algo::NcclTree => tree::per(trees.len() as u32),
    };
    let layout = Layout { coll, ranks: n, per, instances: opts.instances };
    let rt = opts.runtime;
    let mut t = dag::Tracer::new(&layout, rt.runs_fused_steps());
    for i in 0..opts.instances {
        t.set_instance(i);
        match opts.algo {
            Algo::Ring | Algo::Nccl => ring::trace(&mut t, coll, &lanes, opts.root),
            Algo::Mesh => mesh::trace(&mut t, coll, n, opts.root),
            Algo::Rhd => rhd::trace(&mut t, coll, n),
            Algo::Nhr => hccl::trace(&mut t, coll, n, hccl::Kind::Nhr),
            Algo::Nb => hccl::trace(&mut t, coll, n, hccl::Kind::Nb),
            Algo::Hierarchical => hier::trace(&mut t, shape.nodes, shape.gpus_per_node),
            Algo::NcclTree => tree::trace(&mut t, trees),
        }
    }
    let mut g = t.dag;
    if rt.runs_fused_steps() {
        dag::fuse(&mut g);
    }
    dag::complete(&mut g)?;
    let order = dag::order(&g);
    let limits = schedule::Limits { channels: rt.max_channels(), tbs_per_channel: rt.max_tbs_per_channel() };
    let sched = schedule::schedule(&g, &order, n, limits)?;
    let gpus: Vec<Gpu> = sched
        .gpus
        .into_iter()
        .map(|mut gpu| {
            gpu.input_chunks = layout.input_chunks();
            gpu.output_chunks = layout.output_chunks();
            gpu
        })
        .collect();
    let legacy = !rt.needs_size_range();
    let header = Header {
        name: format!("topo {} {} {n} ranks", opts.algo.name(), coll),
        coll,
        proto: opts.proto,
        nchannels: sched.nchannels,
        chunks_per_loop: layout.chunks_per_loop(),
        ngpus: n,
        inplace: !legacy,
        outofplace: (!legacy).then_some(true),
        min_bytes: (!legacy).then_some(0),
        max_bytes: (!legacy).then_some(0),
        extra: Vec::new(),
    };
    Ok(Program { header, gpus })
}

/// The runtime's limits on thread blocks, steps and counts.
fn within_limits(p: &Program, rt: Runtime) -> Result<(), String> {
    let (tbs, steps) = p.shape();
    let who = rt.long_name();
    if tbs as u32 > rt.max_tbs() {
        return Err(format!("the program needs {tbs} thread blocks on a GPU; {who} runs at most {}", rt.max_tbs()));
    }
    if steps as u32 > rt.max_steps() {
        return Err(format!(
            "the program needs {steps} steps in a thread block; {who} runs at most {} (fewer ranks, or another algorithm)",
            rt.max_steps()
        ));
    }
    for g in &p.gpus {
        let elements = 1 + p.gpus.len() + g.tbs.len() + g.tbs.iter().map(|t| t.steps.len()).sum::<usize>();
        if elements as u32 >= rt.max_nodes() {
            return Err(format!(
                "gpu {} needs {elements} XML elements; {who}'s parser holds fewer than {} (fewer channels or ranks)",
                g.id,
                rt.max_nodes()
            ));
        }
    }
    if let Some((_, _, _, s)) = p.steps().find(|(.., s)| s.count >= rt.max_count()) {
        return Err(format!("a step moves {} chunks; {who} moves fewer than {}", s.count, rt.max_count()));
    }
    Ok(())
}
