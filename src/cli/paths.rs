//! `topo paths`: every GPU/NIC path and the P2P and GDR verdicts, as a table, JSON or
//! Graphviz.

use clap::Args;

use super::args::{InputArgs, ModelArgs};
use super::{ColorChoice, Ctx, analyze_input};
use crate::error::Error;
use crate::render;

#[derive(Debug, Args)]
pub struct PathsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print JSON (paths, P2P and GDR verdicts with their reasons).
    #[arg(long, conflicts_with_all = ["dot"])]
    pub json: bool,
    /// Give the reason for every P2P, transport and GDR decision, and each path's route.
    #[arg(long)]
    pub explain: bool,
    /// Colour path types and verdicts: auto (on a terminal, unless NO_COLOR is set),
    /// always or never. Tables fit the terminal's width (or COLUMNS when set); into a
    /// pipe without COLUMNS they are printed whole, one matrix.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print Graphviz of the system with the chosen paths (`| dot -Tsvg > topo.svg`).
    #[arg(long)]
    pub dot: bool,
}

pub fn run(a: &PathsArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let (_, an) = analyze_input(&a.input, &a.model, ctx)?;
    let text = if a.json {
        render::to_json_string(&render::paths::json(&an))
    } else if a.dot {
        render::dot::paths::picture(&an)
    } else {
        let opts = render::paths::TextOptions { explain: a.explain, term: ctx.term(a.color) };
        render::paths::text_with(&an, &opts)
    };
    ctx.print(&text)?;
    Ok(0)
}
