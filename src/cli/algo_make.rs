//! `topo algo make`: an MSCCL-IR program for a collective, by a named algorithm, for the
//! machine in front of you (or for N GPUs with `--ngpus`), written for one runtime.

use std::path::PathBuf;

use clap::Args;
use clap::builder::PossibleValuesParser;

use super::Ctx;
use super::args::RuntimeArg;
use super::args::{InputArgs, ModelArgs};
use crate::algo::make::{self, Algo, COLLECTIVES, Options, Shape};
use crate::algo::program::{Collective, Protocol};
use crate::error::Error;

#[derive(Debug, Args)]
pub struct MakeArgs {
    /// The collective: allreduce, allgather, reducescatter, alltoall or broadcast (root 0).
    #[arg(value_name = "COLL", value_parser = PossibleValuesParser::new(COLLECTIVES.map(|c| c.xml_name())))]
    pub coll: String,
    /// The algorithm: ring, mesh (all pairs), rhd (recursive halving-doubling), nhr, nb
    /// (HCCL's nonuniform ring and Bruck), hierarchical (intra-node ring reduce-scatter,
    /// inter-node rings, intra-node all-gather), nccl (the rings NCCL chose on the machine).
    #[arg(long, value_name = "NAME", value_parser = PossibleValuesParser::new(Algo::ALL.map(|a| a.name())))]
    pub algo: String,
    /// Without a machine: GPUs a node (the job is --nodes x N ranks).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub ngpus: Option<u32>,
    /// Rings (ring: copies of one ring, nccl: the first C of NCCL's channels), one channel each.
    #[arg(long, value_name = "C", value_parser = clap::value_parser!(u32).range(1..=128))]
    pub channels: Option<u32>,
    /// Copies of the whole program on disjoint channels, each on its share of the chunks.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub instances: u32,
    /// The protocol the program declares.
    #[arg(long, value_name = "P", default_value = "Simple", value_parser = PossibleValuesParser::new(["Simple", "LL", "LL128"]))]
    pub proto: String,
    /// The runtime the program is for (rccl: no fused steps; legacy: no outofplace header).
    #[arg(long, value_enum, value_name = "RUNTIME", default_value_t = RuntimeArg::Executor)]
    pub runtime: RuntimeArg,
    /// Write the program here (atomically) instead of to standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

fn collective(name: &str) -> Collective {
    COLLECTIVES.into_iter().find(|c| c.xml_name() == name).unwrap_or(Collective::AllReduce)
}

fn protocol(name: &str) -> Protocol {
    match name {
        "LL" => Protocol::LL,
        "LL128" => Protocol::LL128,
        _ => Protocol::Simple,
    }
}

pub fn run(a: &MakeArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let algo = Algo::parse(&a.algo).ok_or_else(|| Error::Usage(format!("no algorithm `{}`", a.algo)))?;
    let runtime = a.runtime.runtime();
    let mut opts = Options {
        coll: collective(&a.coll),
        algo,
        runtime,
        proto: protocol(&a.proto),
        instances: a.instances,
        channels: a.channels,
    };
    let shape = if a.input.named() {
        if a.ngpus.is_some() {
            return Err(Error::Usage("--ngpus is for making without a machine; the machine says how many GPUs".into()));
        }
        let (_, an) = super::analyze_input(&a.input, &a.model, ctx)?;
        let shape = make::machine::shape(&an, algo.needs_machine())?;
        if algo.needs_machine() {
            let most = runtime.max_channels() as usize;
            if opts.channels.is_none() && shape.rings.len() > most {
                ctx.warn(&format!(
                    "NCCL runs {} channels on this job; {} takes {most}: the program uses the first {most}",
                    shape.rings.len(),
                    runtime.long_name()
                ))?;
                opts.channels = Some(most as u32);
            }
        }
        shape
    } else {
        let Some(g) = a.ngpus else {
            return Err(Error::Usage(
                "a machine (--topo, --fixture or --root) or, for algorithms that need none, --ngpus N".into(),
            ));
        };
        Shape { nodes: a.model.nodes, gpus_per_node: g, rings: Vec::new() }
    };
    let program = make::make(&opts, &shape).map_err(Error::Usage)?;
    let text = crate::algo::write::write(&program, runtime)
        .ok_or_else(|| Error::Usage(format!("{} has no {} collective", runtime.long_name(), opts.coll)))?;
    match &a.output {
        Some(p) => super::write_atomically(p, &text)?,
        None => ctx.print(&text)?,
    }
    Ok(0)
}
