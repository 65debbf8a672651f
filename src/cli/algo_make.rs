//! `topo algo make`: an MSCCL-IR program for a collective, by a named algorithm, for the
//! machine in front of you (or for N GPUs with `--ngpus`), written for one runtime.

use std::path::PathBuf;

use clap::Args;
use clap::builder::PossibleValuesParser;

use super::Ctx;
use super::args::{InputArgs, ModelArgs, RuntimeArg, parse_size};
use crate::algo::make::{self, Algo, COLLECTIVES, Options, Shape};
use crate::algo::program::{Collective, Protocol};
use crate::error::Error;

/// How a made program is shaped: its rings, copies and protocol (`make`, and `cost
/// COLL --algo NAME`).
#[derive(Debug, Args)]
pub struct ShapeArgs {
    /// Rings (ring: copies of one ring, nccl: the first C of NCCL's channels) or trees
    /// (nccl-tree: the first C of NCCL's channels), one channel each.
    #[arg(long, value_name = "C", value_parser = clap::value_parser!(u32).range(1..=128))]
    pub channels: Option<u32>,
    /// Copies of the whole program on disjoint channels, each on its share of the chunks.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub instances: u32,
    #[command(flatten)]
    pub proto: ProtoArg,
    /// The root rank of broadcast and reduce (nccl-tests' -r).
    #[arg(short = 'r', id = "root_rank", value_name = "RANK", default_value_t = 0)]
    pub root_rank: u32,
}

/// The protocol a made program declares.
#[derive(Debug, Args)]
pub struct ProtoArg {
    /// The protocol the program declares.
    #[arg(long, value_name = "P", default_value = "Simple", value_parser = PossibleValuesParser::new(["Simple", "LL", "LL128"]))]
    pub proto: String,
}

impl ProtoArg {
    pub fn protocol(&self) -> Protocol {
        match self.proto.as_str() {
            "LL" => Protocol::LL,
            "LL128" => Protocol::LL128,
            _ => Protocol::Simple,
        }
    }
}

#[derive(Debug, Args)]
pub struct MakeArgs {
    /// The collective: allreduce, allgather, reducescatter, alltoall, broadcast or reduce
    /// (to the root -r).
    #[arg(value_name = "COLL", value_parser = PossibleValuesParser::new(COLLECTIVES.map(|c| c.xml_name())))]
    pub coll: String,
    /// The algorithm: ring, mesh (all pairs), rhd (recursive halving-doubling), nhr, nb
    /// (HCCL's nonuniform ring and Bruck), hierarchical (intra-node ring reduce-scatter,
    /// inter-node rings, intra-node all-gather), nccl (the rings NCCL chose on the machine),
    /// nccl-tree (allreduce over NCCL's trees on the machine).
    #[arg(long, value_name = "NAME", value_parser = PossibleValuesParser::new(Algo::ALL.map(|a| a.name())))]
    pub algo: String,
    /// Without a machine: GPUs a node (the job is --nodes x N ranks).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub ngpus: Option<u32>,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// The runtime the program is for (rccl: no fused steps; legacy: no outofplace header).
    #[arg(long, value_enum, value_name = "RUNTIME", default_value_t = RuntimeArg::Executor)]
    pub runtime: RuntimeArg,
    /// The smallest call (bytes; K, M, G are powers of 1024) the runtime selects the
    /// program for: the header's minBytes.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub min_bytes: Option<u64>,
    /// The largest call the runtime selects the program for (inclusive): the header's
    /// maxBytes (default: no bound). Bigger calls go to NCCL's own algorithms.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_bytes: Option<u64>,
    /// Write the program here (atomically) instead of to standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// The collective of a command-line name (one of [`COLLECTIVES`]).
pub fn collective(name: &str) -> Option<Collective> {
    COLLECTIVES.into_iter().find(|c| c.xml_name() == name)
}

/// The algorithm of a command-line name.
pub fn algorithm(name: &str) -> Result<Algo, Error> {
    Algo::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Algo::ALL.iter().map(|a| a.name()).collect();
        Error::Usage(format!("no algorithm `{name}` (there are {})", names.join(", ")))
    })
}

/// The options of one program to make; for `nccl` and `nccl-tree` on a job where NCCL runs more channels
/// than the runtime takes and no --channels was given, the runtime's most, said.
pub fn options(
    coll: Collective,
    algo: Algo,
    runtime: crate::algo::Runtime,
    a: &ShapeArgs,
    shape: &Shape,
    ctx: &mut Ctx,
) -> Result<Options, Error> {
    let mut opts = Options {
        coll,
        algo,
        runtime,
        proto: a.proto.protocol(),
        instances: a.instances,
        channels: a.channels,
        root: a.root_rank,
    };
    if algo.needs_machine()
        && opts.channels.is_none()
        && let Some(most) = make::machine::nccl_channels(shape, runtime)
    {
        ctx.warn(&format!(
            "NCCL runs {} channels on this job; {} takes {most}: the program uses the first {most}",
            shape.rings.len(),
            runtime.long_name()
        ))?;
        opts.channels = Some(most);
    }
    if a.channels.is_none()
        && let Some(fit) = make::machine::channels_that_fit(&opts, shape)
    {
        ctx.warn(&format!(
            "the program on {} of NCCL's channels needs more than the {} thread blocks a GPU {} runs: it uses the first {fit}",
            opts.channels.map_or(shape.rings.len(), |c| c as usize),
            runtime.max_tbs(),
            runtime.long_name()
        ))?;
        opts.channels = Some(fit);
    }
    Ok(opts)
}

/// `--min-bytes` and `--max-bytes` into the header (the older runtime's maxBytes is
/// exclusive: one more).
fn size_range(
    p: &mut crate::algo::Program,
    min: Option<u64>,
    max: Option<u64>,
    runtime: crate::algo::Runtime,
) -> Result<(), Error> {
    let bound = |b: u64| i64::try_from(b).map_err(|_| Error::Usage(format!("{b} bytes is past the header's range")));
    if let Some(lo) = min {
        p.header.min_bytes = Some(bound(lo)?);
    }
    if let Some(hi) = max {
        if hi == 0 || min.is_some_and(|lo| lo > hi) {
            return Err(Error::Usage(format!("--max-bytes {hi} must be at least 1 and at least --min-bytes")));
        }
        let end = if runtime.max_bytes_inclusive() { hi } else { hi.saturating_add(1) };
        p.header.max_bytes = Some(bound(end)?);
    }
    Ok(())
}

pub fn run(a: &MakeArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let algo = algorithm(&a.algo)?;
    let runtime = a.runtime.runtime();
    let coll = collective(&a.coll).ok_or_else(|| Error::Usage(format!("no collective `{}`", a.coll)))?;
    let shape = if a.input.named() {
        if a.ngpus.is_some() {
            return Err(Error::Usage("--ngpus is for making without a machine; the machine says how many GPUs".into()));
        }
        let (_, an) = super::analyze_input(&a.input, &a.model, ctx)?;
        make::machine::shape(&an, algo.needs_machine())?
    } else {
        let Some(g) = a.ngpus else {
            return Err(Error::Usage(
                "a machine (--topo, --fixture or --root) or, for algorithms that need none, --ngpus N".into(),
            ));
        };
        Shape { nodes: a.model.nodes, gpus_per_node: g, rings: Vec::new(), trees: Vec::new() }
    };
    let opts = options(coll, algo, runtime, &a.shape, &shape, ctx)?;
    let mut program = make::make(&opts, &shape).map_err(Error::Usage)?;
    size_range(&mut program, a.min_bytes, a.max_bytes, runtime)?;
    let text = crate::algo::write::write(&program, runtime)
        .ok_or_else(|| Error::Usage(format!("{} has no {} collective", runtime.long_name(), opts.coll)))?;
    match &a.output {
        Some(p) => super::write_atomically(p, &text)?,
        None => ctx.print(&text)?,
    }
    Ok(0)
}
