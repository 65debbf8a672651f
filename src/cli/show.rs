//! `topo show`: the system NCCL builds, as a tree, normalised XML or JSON.

use clap::Args;

use super::args::{InputArgs, ModelArgs, TermArgs};
use super::{Ctx, analyze_input};
use crate::error::Error;
use crate::render;

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print the topology as normalised NCCL XML instead.
    #[arg(long, conflicts_with = "json")]
    pub xml: bool,
    /// Print the system as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub term: TermArgs,
}

pub fn run(a: &ShowArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let (loaded, an) = analyze_input(&a.input, &a.model, ctx)?;
    let text = if a.xml {
        crate::xml::write(&crate::model::prepare::nccl_view(&loaded.xml))
    } else if a.json {
        render::to_json_string(&render::show::system_json(&an))
    } else {
        render::show::tree_with(&an, &ctx.term(a.term.color))
    };
    ctx.print(&text)?;
    Ok(0)
}
