//! `topo algo plan`: HCCL's view of a collective on a machine (`--topo`, `--fixture`,
//! `--root`, `--nodes`): the algorithm per level, resources per rank, task lists per stream.

use clap::Args;

use super::Ctx;
use super::args::{InputArgs, ModelArgs, parse_size};
use crate::algo::plan::{self, Coll};
use crate::error::Error;
use crate::render;

/// The collectives HCCL's plan covers.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum PlanColl {
    Allgather,
    Reducescatter,
    Allreduce,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The collective.
    #[arg(value_enum, value_name = "COLL")]
    pub coll: PlanColl,
    /// Force algorithms with HCCL_ALGO's syntax, e.g. "level0:mesh;level1:ring" or
    /// "allgather=level0:NA;level1:H-D_R/others=level1:NHR" (level0 takes mesh or ring,
    /// level1 ring, H-D_R, NHR, NB or pipeline; NA or null: HCCL's own choice).
    #[arg(long, value_name = "HCCL_ALGO")]
    pub algo: Option<String>,
    /// The call's size in bytes (all ranks' for allgather and reducescatter): level 1's
    /// choice depends on it.
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_size)]
    pub size: u64,
    /// Write JSON (schema topo.algo.plan/1): per rank sub_streams, notifies, links, streams.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

pub fn run(a: &PlanArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let coll = match a.coll {
        PlanColl::Allgather => Coll::AllGather,
        PlanColl::Reducescatter => Coll::ReduceScatter,
        PlanColl::Allreduce => Coll::AllReduce,
    };
    let forced =
        plan::select::parse(a.algo.as_deref().unwrap_or(""), coll).map_err(|m| Error::Usage(format!("--algo {m}")))?;
    let (_, an) = super::analyze_input(&a.input, &a.model, ctx)?;
    let p = plan::plan(&an, coll, a.size, &forced).map_err(Error::Usage)?;
    let text = if a.json { render::algo_plan::plan_json(&p) } else { render::algo_plan::plan_text(&p) };
    ctx.print(&text)?;
    Ok(0)
}
