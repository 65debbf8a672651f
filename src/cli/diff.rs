//! `topo diff A B`: what differs between two topology dumps, and what it does to NCCL.

use std::path::PathBuf;

use clap::Args;

use super::Ctx;
use super::args::ImpactArgs;
use crate::diff::{Ignore, Side, compare};
use crate::error::Error;
use crate::{input, render, xml};

#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// The reference dump (NCCL topology XML, e.g. from `topo detect --xml` or
    /// NCCL_TOPO_DUMP_FILE); `fixture:NAME` names a built-in machine.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The dump compared with it.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
    /// Hide differences in these attributes (comma-separated or repeated), e.g.
    /// host_hash, guid, name, busid, affinity; `nccl` hides the NCCL results.
    #[arg(long, value_name = "ATTR", value_delimiter = ',')]
    pub ignore: Vec<String>,
    #[command(flatten)]
    pub model: ImpactArgs,
}

/// Exit status 0 when the dumps are the same (after `--ignore`), 1 when they differ.
pub fn run(args: &DiffArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let da = input::dump(&args.a)?;
    let db = input::dump(&args.b)?;
    // A file NCCL cannot read at all (wrong root or version) is an error, not a difference.
    xml::lint_topology(&da.xml, Some(&args.a))?;
    xml::lint_topology(&db.xml, Some(&args.b))?;
    ctx.notices(da.diags.iter().chain(&db.diags))?;
    let opts = args.model.options(&ctx.env);
    let graphs = super::fleet::graphs_fn(ctx)?;
    let ignore = Ignore::new(&args.ignore);
    let a = Side::new(&da.label, da.xml, &opts, &graphs);
    let b = Side::new(&db.label, db.xml, &opts, &graphs);
    let (changes, hidden) = compare(&a, &b, &ignore);
    let text = if args.json {
        render::to_json_string(&render::diff::json(&a, &b, &changes, hidden, &ignore))
    } else {
        render::diff::text(&a, &b, &changes, hidden)
    };
    ctx.print(&text)?;
    Ok(if changes.is_empty() { 0 } else { 1 })
}
