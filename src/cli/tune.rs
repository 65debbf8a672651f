//! `topo tune`: NCCL's performance model over a sweep of message sizes, nccl-tests style.

use clap::Args;

use super::args::{InputArgs, ModelArgs, TermArgs, parse_size};
use super::{Ctx, analyze_input, search_options, search_with_progress};
use crate::error::Error;
use crate::tune::{self, Func, Model, Sweep};

#[derive(Debug, Args)]
pub struct TuneArgs {
    /// The collective to model.
    #[arg(value_enum, default_value = "allreduce")]
    pub func: Func,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Smallest size in bytes, as nccl-tests' -b (K, M, G suffixes are powers of 1024).
    #[arg(short = 'b', long = "minbytes", value_name = "SIZE", default_value = "8", value_parser = parse_size)]
    pub minbytes: u64,
    /// Largest size in bytes, as nccl-tests' -e.
    #[arg(short = 'e', long = "maxbytes", value_name = "SIZE", default_value = "8G", value_parser = parse_size)]
    pub maxbytes: u64,
    /// Multiply the size by this between rows, as nccl-tests' -f (default 2).
    #[arg(short = 'f', long = "stepfactor", value_name = "N", conflicts_with = "stepbytes")]
    pub stepfactor: Option<u64>,
    /// Add this many bytes between rows instead, as nccl-tests' -i.
    #[arg(short = 'i', long = "stepbytes", value_name = "SIZE", value_parser = parse_size)]
    pub stepbytes: Option<u64>,
    /// Also print NCCL's tuning table (latency/bandwidth per collective, algorithm and protocol).
    #[arg(long)]
    pub table: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub term: TermArgs,
}

impl TuneArgs {
    fn sweep(&self) -> Sweep {
        let factor = match (self.stepfactor, self.stepbytes) {
            (None, Some(_)) => None,
            (f, _) => Some(f.unwrap_or(2)),
        };
        Sweep { min: self.minbytes, max: self.maxbytes, factor, step: self.stepbytes.unwrap_or(0) }
    }
}

pub fn run(a: &TuneArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let (_, an) = analyze_input(&a.input, &a.model, ctx)?;
    let so = search_options(&an, ctx)?;
    let (graphs, _) = search_with_progress(&an, &so, ctx)?;
    let m = Model::new(&an, &graphs)?;
    let swept = tune::sweep::sweep(&m, a.func, &a.sweep())?;
    let text = crate::render::tune::report(&an, &m, a.func, &swept, a.table, a.json, &ctx.term(a.term.color));
    for w in &m.warnings {
        ctx.warn(w)?;
    }
    ctx.print(&text)?;
    Ok(0)
}
