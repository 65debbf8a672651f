//! `topo check`: machine problems that make NCCL slow or hang.

use clap::Args;

use super::Ctx;
use super::args::SourceArgs;
use crate::check::{Severity, run_checks};
use crate::discover::{self, detect};
use crate::error::Error;
use crate::render;

/// Flags of `topo check`.
#[derive(Args, Debug, Clone, Default)]
pub struct CheckArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Write the findings as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Prints the findings; exit status 1 when one is an error, else 0.
pub fn run(args: &CheckArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let (sys, nvml) = args.source.source().open()?;
    let det = detect(&sys, nvml.as_ref(), &discover::Options::with_env(&ctx.env))?;
    let findings = run_checks(&sys, &det);
    for n in &det.notices {
        ctx.say_raw(&n.to_string())?;
    }
    let text = if args.json {
        render::detect::check_json(&det, &findings)
    } else {
        render::detect::check_text(&det, &findings)
    };
    ctx.print(&text)?;
    Ok(if findings.iter().any(|f| f.severity == Severity::Error) { 1 } else { 0 })
}
