//! `topo algo`: collective programs (MSCCL-IR) checked and shown.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::Ctx;
use super::algo_show::{self, ShowArgs};
use super::args::{RuntimeArg, TermArgs};
use crate::algo::read::MAX_PROGRAM_BYTES;
use crate::algo::{self, CheckOptions, Verdict};
use crate::error::Error;
use crate::render;

#[derive(Debug, Subcommand)]
pub enum AlgoCommand {
    /// Check MSCCL-IR programs: the runtime's rules, connection pairing, deadlocks at the
    /// real FIFO depth, the result against the collective's definition, data races
    /// (exit 0 ok, 1 findings, 2 unreadable input).
    Check(CheckArgs),
    /// A program's thread blocks, channels, peers and connections, and with a machine
    /// the path each connection runs over.
    Show(ShowArgs),
    /// Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the
    /// MSCCLang compiler does, for the machine (or --ngpus) and a runtime.
    Make(super::algo_make::MakeArgs),
    /// HCCL's view of a collective on a machine: algorithm per level, resources per rank
    /// (sub-streams, notifies, links, scratch) and each stream's task list.
    Plan(super::algo_plan::PlanArgs),
    /// A program's time, algbw and busbw per message size from a timed run over the
    /// machine's links, the bottleneck, and NCCL's own pick beside it.
    Cost(super::algo_cost::CostArgs),
    /// Programs of one collective costed side by side per size, with the winner per size range.
    Compare(super::algo_cost::CompareArgs),
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// MSCCL-IR files, or folders whose files are all checked (as MSCCL_ALGO_DIR is read:
    /// every file, in sorted order).
    #[arg(value_name = "PROGRAM", required = true)]
    pub programs: Vec<PathBuf>,
    /// Whose rules: executor (msccl-executor-nccl), rccl or legacy (microsoft/msccl).
    #[arg(long, value_enum, value_name = "RUNTIME", default_value_t = RuntimeArg::Executor)]
    pub runtime: RuntimeArg,
    /// FIFO slots per connection to hold the program to (default 8, the runtimes'
    /// NCCL_STEPS; a Simple call takes 4 slots, an LL or LL128 call 1).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub depth: Option<u32>,
    /// Write the report as JSON (schema topo.algo.check/1; several files: topo.algo.check-many/1).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub term: TermArgs,
}

pub fn run(cmd: AlgoCommand, ctx: &mut Ctx) -> Result<i32, Error> {
    match cmd {
        AlgoCommand::Check(a) => check(&a, ctx),
        AlgoCommand::Show(a) => algo_show::run(&a, ctx),
        AlgoCommand::Make(a) => super::algo_make::run(&a, ctx),
        AlgoCommand::Plan(a) => super::algo_plan::run(&a, ctx),
        AlgoCommand::Cost(a) => super::algo_cost::run_cost(&a, ctx),
        AlgoCommand::Compare(a) => super::algo_cost::run_compare(&a, ctx),
    }
}

/// The files a list of paths names: files as given, folders as their files in sorted order.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Error::io(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(Error::Input {
                    file: p.display().to_string(),
                    message: "a folder with no files in it".into(),
                });
            }
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Read and check one file.
pub fn check_file(path: &Path, opts: CheckOptions) -> Result<algo::Report, Error> {
    let bytes = crate::fileio::read_capped(path, MAX_PROGRAM_BYTES, "an MSCCL-IR program")?;
    algo::check(&bytes, opts).map_err(|message| Error::Input { file: path.display().to_string(), message })
}

fn check(a: &CheckArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let files = expand(&a.programs)?;
    let opts = CheckOptions { runtime: a.runtime.runtime(), depth: a.depth };
    let term = ctx.term(a.term.color);
    if let [only] = files.as_slice() {
        let report = check_file(only, opts)?;
        let name = only.display().to_string();
        let text = if a.json {
            render::algo::check_json(&[(name, Ok(report.clone()))])
        } else {
            render::algo::check_text(&name, &report, &term)
        };
        ctx.print(&text)?;
        return Ok(if report.verdict == Verdict::Ok { 0 } else { 1 });
    }
    let mut rows = Vec::new();
    for f in &files {
        let r = check_file(f, opts).map_err(|e| match e {
            Error::Input { message, .. } => message,
            other => other.to_string(),
        });
        rows.push((f.display().to_string(), r));
    }
    let folder = a.programs.len() == 1 && a.programs[0].is_dir();
    let text =
        if a.json { render::algo::check_json(&rows) } else { render::algo::check_summary_text(&rows, folder, &term) };
    ctx.print(&text)?;
    if rows.iter().any(|(_, r)| r.is_err()) {
        return Ok(2);
    }
    Ok(if rows.iter().all(|(_, r)| r.as_ref().is_ok_and(|r| r.verdict == Verdict::Ok)) { 0 } else { 1 })
}
