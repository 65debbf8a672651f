//! `topo detect`: this machine (or a `--root` tree) as NCCL topology XML, or a JSON
//! report of everything found.

use std::path::PathBuf;

use clap::Args;

use super::args::SourceArgs;
use super::{Ctx, write_atomically};
use crate::discover::{self, detect};
use crate::error::Error;
use crate::render;

/// Flags of `topo detect`.
#[derive(Args, Debug, Clone, Default)]
pub struct DetectArgs {
    /// Write NCCL topology XML (the default).
    #[arg(long, conflicts_with = "json")]
    pub xml: bool,
    /// Write a JSON report instead: the XML, the detected facts, notices and health findings.
    #[arg(long)]
    pub json: bool,
    /// Write to FILE instead of standard output (replaced whole, never half-written).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub source: SourceArgs,
    /// Seed detection with a topology file, as NCCL_TOPO_FILE does: its attributes win.
    #[arg(long, value_name = "FILE")]
    pub topo_file: Option<PathBuf>,
    /// Keep every PCI device and NUMA node, not only GPUs, NICs, NVSwitches and the
    /// bridges above them (the file may then exceed NCCL's 256 elements per rank).
    #[arg(long)]
    pub all: bool,
    /// Skip the health checks (`topo check`) that detect prints as warnings.
    #[arg(long)]
    pub no_check: bool,
}

/// Exit status 0; problems found are printed as warnings.
pub fn run(args: &DetectArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    // A place the output cannot go is said before anything is detected.
    if let Some(p) = &args.output {
        super::io::check_output(p)?;
    }
    let (sys, nvml) = args.source.source().open()?;
    let opts =
        discover::Options { all: args.all, topo_file: args.topo_file.clone(), ..discover::Options::with_env(&ctx.env) };
    let det = detect(&sys, nvml.as_ref(), &opts)?;
    let findings = if args.no_check { Vec::new() } else { crate::check::run_checks(&sys, &det) };
    let text = if args.json { render::detect::detect_json(&det, &findings) } else { crate::xml::write(&det.xml) };
    // A file written first: a write that fails (/dev/full) is the one line said.
    if let Some(p) = &args.output {
        write_atomically(p, &text)?;
    }
    for n in &det.notices {
        ctx.say(&n.to_string())?;
    }
    for line in render::detect::finding_notes(&det, &findings) {
        ctx.say(&line)?;
    }
    ctx.note(&det.summary())?;
    if args.output.is_none() {
        ctx.print(&text)?;
    }
    Ok(0)
}
