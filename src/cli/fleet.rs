//! `topo fleet FILE...|DIR`: many dumps grouped, every outlier explained against the
//! reference group.

use std::path::PathBuf;

use clap::Args;

use super::Ctx;
use super::args::{ImpactArgs, TermArgs};
use crate::diff::fleet::{FleetOptions, fleet};
use crate::error::Error;
use crate::model::Analysis;
use crate::render;

#[derive(Debug, Clone, Args)]
pub struct FleetArgs {
    /// Topology dumps (one per node), or directories holding them (every `*.xml` file
    /// directly inside); a `topo detect --json` report (`*.json`) also counts, and its
    /// GPUs' fabric registrations tell an NVL rack's cliques apart.
    #[arg(value_name = "FILE|DIR", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
    /// Also ignore these attributes (comma-separated or repeated), e.g. name to ignore
    /// NIC names; host_hash and guid are always ignored.
    #[arg(long, value_name = "ATTR", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Compare with this dump's group instead of the largest group (a file of the fleet,
    /// or any other dump).
    #[arg(long, value_name = "FILE")]
    pub reference: Option<PathBuf>,
    /// Report unreadable dumps and go on, instead of stopping with exit status 2.
    #[arg(long)]
    pub skip_bad: bool,
    #[command(flatten)]
    pub model: ImpactArgs,
    #[command(flatten)]
    pub term: TermArgs,
}

/// Exit status 0 when every dump is alike, 1 when there are outliers or skipped dumps.
pub fn run(args: &FleetArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let opts = FleetOptions {
        inputs: args.inputs.clone(),
        ignore: args.ignore.clone(),
        reference: args.reference.clone(),
        skip_bad: args.skip_bad,
    };
    let graphs = graphs_fn(ctx, false)?;
    let r = fleet(&opts, &args.model.options(&ctx.env), &graphs)?;
    let text = if args.json {
        render::to_json_string(&render::fleet::json(&r))
    } else {
        render::fleet::text_with(&r, &ctx.term(args.term.color))
    };
    ctx.print(&text)?;
    let alike = r.outliers.is_empty() && r.reference_in_fleet && r.skipped.is_empty();
    Ok(if alike { 0 } else { 1 })
}

/// The search's graphs as the analysis JSON has them, for `diff` and `fleet`; all null
/// when the search fails (they then compare everything else). NCCL_GRAPH_FILE, when set,
/// is read once here. With `picks`, also the tuning model's AllReduce picks on them
/// (the `allreduce` member `topo diff` compares).
pub(super) fn graphs_fn(ctx: &mut Ctx, picks: bool) -> Result<impl Fn(&Analysis) -> serde_json::Value + use<>, Error> {
    let file = super::graph_file(None, ctx)?;
    Ok(move |an: &Analysis| {
        let mut so = crate::search::SearchOptions::from_analysis(an);
        so.graph_file = file.clone();
        match crate::search::run(an, &so) {
            Ok((gs, sys)) => {
                let mut v = crate::render::graphs::graphs_json(&sys, &gs);
                if picks && let Some(o) = v.as_object_mut() {
                    o.insert("allreduce".into(), crate::diff::allreduce_picks(an, &gs));
                }
                v
            }
            Err(_) => crate::diff::no_graphs(an),
        }
    })
}
