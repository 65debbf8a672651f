//! `topo analyze`: everything the model and the search decide, in one document.

use clap::Args;

use super::args::{InputArgs, ModelArgs, TermArgs};
use super::{Ctx, analyze_input, search_options, search_with_progress};
use crate::error::Error;
use crate::render;

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print the JSON document (schema 1) instead of the human summary.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub term: TermArgs,
}

pub fn run(a: &AnalyzeArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let (_, an) = analyze_input(&a.input, &a.model, ctx)?;
    let so = search_options(&an, ctx)?;
    let (gs, sys) = search_with_progress(&an, &so, ctx)?;
    let run = crate::search::channels::for_analysis(&an, &gs).map_err(|e| e.to_string());
    let text = if a.json {
        let mut doc = render::analysis::json(&an, render::graphs::graphs_json(&sys, &gs));
        doc["run"] = render::search::run_json(&run, 0);
        // NCCL's init fails when its tuning does (a bad NCCL_ALGO, say): so does this.
        let m = crate::tune::Model::new(&an, &gs)?;
        for w in &m.warnings {
            ctx.warn(w)?;
        }
        doc["tuning"] = render::tune::tuning_json(&m);
        render::to_json_string(&doc)
    } else {
        // The system, its paths and verdicts, the graphs and the channels NCCL runs, and
        // what NCCL's tuning picks for AllReduce.
        let term = ctx.term(a.term.color);
        let mut s = render::show::tree_with(&an, &term);
        s.push('\n');
        let opts = render::paths::TextOptions { explain: false, term };
        s.push_str(&render::paths::text_with(&an, &opts));
        s.push('\n');
        s.push_str(&render::search::text(&an, &gs, &[], &run, 0, None, &term));
        let m = crate::tune::Model::new(&an, &gs)?;
        for w in &m.warnings {
            ctx.warn(w)?;
        }
        let sweep = crate::tune::Sweep { min: 1 << 10, max: 1 << 30, factor: Some(32), step: 0 };
        let swept = crate::tune::sweep::sweep(&m, crate::tune::Func::AllReduce, &sweep)?;
        s.push('\n');
        s.push_str(&render::tune::summary_text(&m, &swept, &term));
        s
    };
    ctx.print(&text)?;
    Ok(0)
}
