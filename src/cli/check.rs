//! `topo check`: machine problems that make NCCL slow or hang.

use clap::Args;

use super::Ctx;
use super::args::{SourceArgs, TermArgs};
use crate::check::{Severity, check_dump, run_checks};
use crate::discover::{self, detect};
use crate::error::Error;
use crate::input::{self, Source};
use crate::render;

/// Flags of `topo check`.
#[derive(Args, Debug, Clone, Default)]
pub struct CheckArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Check this NCCL topology XML file (a dump) instead of this machine: only what a
    /// file shows (PCIe links against their siblings, NIC and GPU sockets, GDR, NVLink
    /// counts, NIC speeds, C2C).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fixture", "root", "nvml_fake"])]
    pub topo: Option<std::path::PathBuf>,
    /// Check a machine topo carries built in (see `topo fixtures`), as a dump.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["root", "nvml_fake"], value_parser = super::args::FixtureName)]
    pub fixture: Option<String>,
    /// Write the findings as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub term: TermArgs,
}

/// Prints the findings; exit status 1 when one is an error, else 0.
pub fn run(args: &CheckArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let dump = match (&args.topo, &args.fixture) {
        (Some(p), _) => Some(Source::File(p.clone())),
        (None, Some(f)) => Some(Source::Fixture(f.clone())),
        _ => None,
    };
    if let Some(src) = dump {
        let loaded = input::load(&src)?;
        ctx.notices(&loaded.diags)?;
        let findings = check_dump(&loaded.xml);
        let text = if args.json {
            render::detect::check_dump_json(&loaded.label, &findings)
        } else {
            render::detect::check_dump_text(&loaded.label, &loaded.xml, &findings, &ctx.term(args.term.color))
        };
        ctx.print(&text)?;
        return Ok(status(&findings));
    }
    let (sys, nvml) = args.source.source().open()?;
    let det = detect(&sys, nvml.as_ref(), &discover::Options::with_env(&ctx.env))?;
    let findings = run_checks(&sys, &det);
    for n in &det.notices {
        ctx.say(&n.to_string())?;
    }
    let text = if args.json {
        render::detect::check_json(&det, &findings)
    } else {
        render::detect::check_text(&det, &findings, &ctx.term(args.term.color))
    };
    ctx.print(&text)?;
    Ok(status(&findings))
}

/// 1 when a finding is an error, else 0.
fn status(findings: &[crate::check::Finding]) -> i32 {
    if findings.iter().any(|f| f.severity == Severity::Error) { 1 } else { 0 }
}
