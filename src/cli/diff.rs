//! `topo diff A B`: what differs between two topology dumps, and what it does to NCCL.

use std::path::PathBuf;

use clap::Args;

use super::Ctx;
use super::args::{ImpactArgs, TermArgs};
use crate::diff::{self, Ignore, Side, compare};
use crate::error::Error;
use crate::release::Release;
use crate::{input, model, render, xml};

#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// The reference dump (NCCL topology XML, e.g. from `topo detect --xml` or
    /// NCCL_TOPO_DUMP_FILE, or a `topo detect --json` report, whose fabric registrations
    /// tell NVLink cliques apart); `fixture:NAME` names a built-in machine.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The dump compared with it (default: A again, with `--against-version`).
    #[arg(value_name = "B", required_unless_present = "against_version")]
    pub b: Option<PathBuf>,
    /// Model B as this NCCL release (A stays at --nccl-version): what changes on the
    /// same machine when NCCL is upgraded, e.g. `topo diff m.xml --nccl-version 2.21.5
    /// --against-version 2.28.9`.
    #[arg(long, value_name = "X.Y.Z")]
    pub against_version: Option<String>,
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
    /// Hide differences in these attributes (comma-separated or repeated), e.g.
    /// host_hash, guid, name, busid, affinity; `nccl` hides the NCCL results.
    #[arg(long, value_name = "ATTR", value_delimiter = ',')]
    pub ignore: Vec<String>,
    #[command(flatten)]
    pub model: ImpactArgs,
    #[command(flatten)]
    pub term: TermArgs,
}

/// Exit status 0 when the dumps are the same (after `--ignore`), 1 when they differ.
pub fn run(args: &DiffArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let b_path = args.b.as_ref().unwrap_or(&args.a);
    // A `detect --json` report is its topology, with the NVLink clique its GPUs registered in.
    let load = |p: &std::path::Path| -> Result<(input::Loaded, Option<(String, u32)>), Error> {
        if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("json")) && p.exists() {
            let (xml, clique) = diff::fleet::read_dump(p)?;
            let loaded = input::Loaded { xml, label: p.display().to_string(), diags: Vec::new(), fabric: None };
            return Ok((loaded, clique.and_then(Result::ok)));
        }
        Ok((input::dump(p)?, None))
    };
    let (da, clique_a) = load(&args.a)?;
    let (db, clique_b) = load(b_path)?;
    // A file NCCL cannot read at all (wrong root or version) is an error, not a difference.
    xml::lint_topology(&da.xml, Some(&args.a), ctx.env.release().xml_limits())?;
    xml::lint_topology(&db.xml, Some(b_path), ctx.env.release().xml_limits())?;
    ctx.notices(da.diags.iter().chain(&db.diags))?;
    let opts_a = args.model.options(&ctx.env);
    let (mut label_a, mut label_b) = (da.label.clone(), db.label.clone());
    let opts_b = match &args.against_version {
        None => opts_a.clone(),
        Some(v) => {
            let rb = Release::parse(v).map_err(|e| Error::Usage(format!("--against-version: {e}")))?;
            if !rb.checked() {
                ctx.note(&rb.provenance())?;
            }
            label_a = format!("{label_a} (NCCL {})", ctx.release());
            label_b = format!("{label_b} (NCCL {rb})");
            let env_b = ctx.env_for(rb);
            ctx.notices(&env_b.warnings().iter().map(crate::notice::Diagnostic::warning).collect::<Vec<_>>())?;
            model::Options { env: env_b, ..opts_a.clone() }
        }
    };
    // The graphs, and the tuning model's AllReduce picks on them: what an upgrade does
    // to the algorithm NCCL runs.
    let graphs_and_picks = super::fleet::graphs_fn(ctx, true)?;
    let ignore = Ignore::new(&args.ignore);
    let a = Side::new(&label_a, da.xml, &opts_a, &graphs_and_picks);
    let b = Side::new(&label_b, db.xml, &opts_b, &graphs_and_picks);
    let (mut changes, hidden) = compare(&a, &b, &ignore);
    changes.extend(diff::clique_change(clique_a.as_ref(), clique_b.as_ref()));
    changes.sort_by_key(|c| c.level);
    let why = diff::release_changes(&a, &b);
    let text = if args.json {
        render::to_json_string(&render::diff::json(&a, &b, &changes, hidden, &ignore, &why))
    } else {
        render::diff::text_with(&a, &b, &changes, hidden, &why, &ctx.term(args.term.color))
    };
    ctx.print(&text)?;
    Ok(if changes.is_empty() { 0 } else { 1 })
}
