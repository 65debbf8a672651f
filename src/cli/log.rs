//! `topo log FILE|-`: an NCCL debug log read, shown, and held against the model.

use std::io::BufReader;
use std::path::PathBuf;

use clap::Args;

use super::args::TermArgs;
use super::{ColorChoice, Ctx, write_atomically};
use crate::error::Error;
use crate::log::compare::{self, CompareOptions, Machine};
use crate::log::{self, LogFacts};
use crate::release::{RELEASES, Release};
use crate::render;

/// Flags of `topo log`.
#[derive(Args, Debug, Clone)]
pub struct LogArgs {
    /// The log (`NCCL_DEBUG=INFO` output, any NCCL from 2.5 to 2.30; one rank or many,
    /// with or without NCCL's line prefixes), or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    pub file: PathBuf,
    /// Print JSON for scripts (the facts, what is unusual, the model's findings).
    #[arg(long, conflicts_with_all = ["xml", "dot"])]
    pub json: bool,
    /// Print the topology rebuilt from the log's system print, as NCCL topology XML
    /// (what the log cannot tell is said on stderr).
    #[arg(long, conflicts_with = "dot")]
    pub xml: bool,
    /// Print the logged rings as Graphviz.
    #[arg(long)]
    pub dot: bool,
    /// Show only this rank's per-rank lines (graphs, trees, connections).
    #[arg(long, value_name = "R")]
    pub rank: Option<u32>,
    /// Do not hold the log against topo's model (by default it is, when the log has a
    /// system print or --topo names the machine).
    #[arg(long)]
    pub no_model: bool,
    /// The machine the log ran on, when the log has no system print (or to check a
    /// topology file against a log).
    #[arg(long, value_name = "FILE")]
    pub topo: Option<PathBuf>,
    /// Count the NCCL lines topo does not know, by first word.
    #[arg(short, long)]
    pub verbose: bool,
    /// Write to FILE instead of standard output (replaced whole, never half-written; the
    /// text unwrapped, as into a pipe, and coloured only with --color always).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub term: TermArgs,
}

/// Open the log. A FIFO blocks in open() until a writer comes: one that does not come
/// within [`crate::fileio::BLOCKING_READ_TIMEOUT`] is an error, not a hang. (A log is
/// read as a stream, whatever its size: it is not capped as topology files are.)
fn open_log(path: &std::path::Path) -> Result<std::fs::File, Error> {
    let io = |e| Error::io(path, e);
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(Error::Input {
            file: path.display().to_string(),
            message: "is a directory, not an NCCL log".into(),
        });
    }
    if meta.is_file() {
        return std::fs::File::open(path).map_err(io);
    }
    let owned = path.to_path_buf();
    let timeout = crate::fileio::BLOCKING_READ_TIMEOUT;
    match crate::fileio::within(timeout, move || std::fs::File::open(owned)) {
        Some(r) => r.map_err(io),
        None => Err(Error::Input {
            file: path.display().to_string(),
            message: format!("no writer after {} s (a FIFO nobody writes?)", timeout.as_secs()),
        }),
    }
}

/// Exit status 0; 1 when the model disagrees with the log.
pub fn run(args: &LogArgs, flag_release: Option<&str>, ctx: &mut Ctx) -> Result<i32, Error> {
    if let Some(p) = &args.output {
        super::io::check_output(p)?;
    }
    let name = args.file.display().to_string();
    let facts = if name == "-" {
        log::read(&mut BufReader::new(std::io::stdin().lock()), "<stdin>")?
    } else {
        let f = open_log(&args.file)?;
        log::read(&mut BufReader::new(f), &name)?
    };
    for w in &facts.warnings {
        ctx.warn(w)?;
    }
    let release = choose(&facts, flag_release, ctx)?;

    if args.xml {
        let print = compare::chosen_print(&facts).ok_or_else(|| Error::Input {
            file: name.clone(),
            message: compare::no_machine_reason(&facts).unwrap_or_else(|| "no system print with a GPU".into()),
        })?;
        if let Some(why) = compare::partial_print(&facts, print) {
            ctx.warn(&format!("{why}; the XML holds what it shows"))?;
        }
        let r = log::rebuild::topology(&facts, print, release)?;
        for a in &r.assumed {
            ctx.note(&format!("assumed: {a}"))?;
        }
        return emit(args, ctx, &crate::xml::write(&r.xml)).map(|_| 0);
    }

    let unusual = compare::unusual(&facts);
    let model = if args.no_model || facts.dialect == log::Dialect::Rccl {
        Err("--no-model".to_string())
    } else {
        model_run(&facts, args, release)
    };
    let model_ref = model.as_ref().map_err(|e| e.clone());
    let report = render::log::Report {
        name: &name,
        facts: &facts,
        rank: args.rank,
        model: model_ref,
        unusual: &unusual,
        verbose: args.verbose,
    };
    let text = if args.json {
        render::to_json_string(&render::log::json(&report))
    } else if args.dot {
        render::dot::log::picture(&report).ok_or_else(|| Error::Input {
            file: name.clone(),
            message: "nothing to draw: the log has no ring order (no `Channel NN/MM :` or `Ring NN :` lines, \
                      which NCCL prints at NCCL_DEBUG=INFO)"
                .into(),
        })?
    } else {
        render::log::text_with(&report, &term(args, ctx))
    };
    emit(args, ctx, &text)?;
    let differ = model.as_ref().is_ok_and(|c| c.findings.iter().any(|f| f.severity == compare::Severity::Warning));
    Ok(if differ { 1 } else { 0 })
}

/// How the text report is laid out: for the terminal, or with --output as for a pipe.
fn term(args: &LogArgs, ctx: &Ctx) -> render::term::Term {
    match &args.output {
        None => ctx.term(args.term.color),
        Some(_) => render::term::Term { width: None, color: args.term.color == ColorChoice::Always },
    }
}

fn emit(args: &LogArgs, ctx: &mut Ctx, text: &str) -> Result<(), Error> {
    match &args.output {
        Some(p) => write_atomically(p, text),
        None => ctx.print(text),
    }
}

/// The model's comparison, or why it could not run.
fn model_run(facts: &LogFacts, args: &LogArgs, release: Release) -> Result<compare::Comparison, String> {
    let machine = match &args.topo {
        Some(p) => {
            let (xml, _) = crate::xml::read_file(p).map_err(|e| e.to_string())?;
            Machine::File { xml, label: p.display().to_string() }
        }
        None => {
            if let Some(why) = compare::no_machine_reason(facts) {
                return Err(why);
            }
            Machine::Print
        }
    };
    compare::compare(facts, &CompareOptions { release, machine }).map_err(|e| e.to_string())
}

/// The release to model: `--nccl-version`, else the log's own when topo models it,
/// else the closest one topo models, said on stderr.
fn choose(facts: &LogFacts, flag: Option<&str>, ctx: &mut Ctx) -> Result<Release, Error> {
    if let Some(v) = flag {
        let r = Release::parse(v).map_err(|e| Error::Usage(format!("--nccl-version: {e}")))?;
        ctx.set_release(r);
        return Ok(r);
    }
    let Some(v) = &facts.nccl_version else {
        let r = Release::NEWEST;
        ctx.warn(&format!("the log does not say which NCCL wrote it: modelling NCCL {r} (--nccl-version to choose)"))?;
        return Ok(r);
    };
    let r = match Release::parse(&v.value) {
        Ok(r) => r,
        Err(_) => {
            let (maj, min, pat) = (v.major, v.minor, v.patch);
            let key = |r: &Release| (r.major as u32, r.minor as u32, r.patch as u32);
            let nearest = RELEASES.iter().rev().find(|r| key(r) <= (maj, min, pat)).copied().unwrap_or(RELEASES[0]);
            ctx.warn(&format!(
                "the log is NCCL {}, which topo does not model (2.18.1 to {}): modelling NCCL {nearest}, the closest",
                v.value,
                Release::NEWEST
            ))?;
            nearest
        }
    };
    ctx.set_release(r);
    Ok(r)
}
