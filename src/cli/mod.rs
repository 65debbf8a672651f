//! The command layer, the only part of topo that knows clap, the terminal, standard
//! output and error, exit codes and the process environment.
//!
//! One file per subcommand: its clap arguments and a `run` that loads the input (through
//! [`crate::input`]), calls the library, renders with [`crate::render`] and prints.
//! Everything below returns data and typed notices; this layer decides where they go.
//! Each `run` renders its whole output before writing it, so nothing half-written
//! reaches standard output.

mod algo;
mod algo_cost;
mod algo_make;
mod algo_plan;
mod algo_show;
mod analyze;
mod args;
mod bench;
mod bench_program;
mod bench_streams;
mod check;
mod detect;
mod diff;
mod fleet;
mod generate;
mod io;
mod log;
mod paths;
mod search;
mod show;
mod tune;
mod usage;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};

use clap::{Parser, Subcommand};

pub use args::parse_size;
pub use generate::generate;
pub use io::{ColorChoice, Ctx, write_atomically};

use crate::error::Error;
use crate::input::{self, Loaded};
use crate::model::{self, Analysis, System};
use crate::release::Release;
use crate::search::{Graphs, SearchOptions};
use args::{InputArgs, ModelArgs};
use usage::usage_line;

/// `topo --version`: the release of topo and the NCCL releases it models.
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\nmodels NCCL 2.18.1 to 2.30.7 (--nccl-version X.Y.Z or TOPO_NCCL_VERSION; by default the NCCL\n",
    "this machine loads when analysing it live, else 2.30.7):\n",
    "  2.18.1, 2.18.3, 2.18.5, 2.18.6, 2.19.1, 2.19.3, 2.19.4, 2.20.3, 2.20.5, 2.21.5*, 2.22.3, 2.23.4,\n",
    "  2.24.3, 2.25.1, 2.26.2, 2.26.3, 2.26.5, 2.26.6, 2.27.3, 2.27.5*, 2.27.6, 2.27.7, 2.28.3, 2.28.7,\n",
    "  2.28.9*, 2.29.2, 2.29.3, 2.29.7, 2.30.3, 2.30.4, 2.30.7*\n",
    "  * checked against NCCL's own answers; the others are modelled from their source"
);

/// Discover a machine's GPU/NIC topology and analyse it exactly the way NCCL does.
#[derive(Debug, Parser)]
#[command(name = "topo", version, long_version = LONG_VERSION, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The NCCL release whose decisions to model, 2.18.1 to 2.30.7 (`topo --version`
    /// lists them). Default: TOPO_NCCL_VERSION when set; on this machine, the NCCL it
    /// loads (libnccl.so.2, or an nvidia-nccl Python package) when found; else 2.30.7.
    #[arg(long, global = true, value_name = "X.Y.Z")]
    pub nccl_version: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths.
    Show(show::ShowArgs),
    /// Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts.
    Paths(paths::PathsArgs),
    /// Everything the model decides: the system, paths and verdicts, graphs, the channels NCCL runs, tuning.
    Analyze(analyze::AnalyzeArgs),
    /// NCCL's channel search: ring, tree, NVLS and CollNet graphs, and the channels NCCL runs.
    Search(search::SearchArgs),
    /// NCCL's performance model: algorithm, protocol, time and bandwidth per message size.
    Tune(tune::TuneArgs),
    /// What differs between two topology dumps, and what it does to NCCL (exit 0 same, 1 different).
    Diff(diff::DiffArgs),
    /// Group many dumps (one per node) and explain every outlier against the largest group.
    Fleet(fleet::FleetArgs),
    /// Read an NCCL debug log (NCCL_DEBUG=INFO), show what it says, and hold it against the model.
    Log(log::LogArgs),
    /// Measure collectives through topo's own ring kernels along the searched channels.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Collective programs (MSCCL-IR): check and show them, make them for a machine, plan
    /// them as HCCL does, cost and compare them.
    #[command(subcommand)]
    Algo(algo::AlgoCommand),
    /// Detect this machine (or a --root tree) and write it as NCCL topology XML.
    Detect(detect::DetectArgs),
    /// Health checks of this machine for NCCL (exit 1 when a finding is an error).
    Check(check::CheckArgs),
    /// List the machines topo carries built in (for --fixture).
    Fixtures,
    /// Write the shell completions and the man page (used to refresh the committed copies).
    #[command(hide = true)]
    Generate(generate::GenerateArgs),
}

/// Parse `args` and run, on the process's streams and environment. Returns the exit
/// status; errors are the caller's to print (exit status 2).
pub fn main_with_args<I, T>(args: I) -> Result<i32, Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        // --help and --version print their text and succeed.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return Ok(0);
        }
        Err(e) => return Err(Error::Usage(usage_line(&e, &args))),
    };
    let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
    let err_is_terminal = stderr.is_terminal();
    let out_is_terminal = stdout.is_terminal();
    let (mut out, mut err) = (stdout.lock(), stderr.lock());
    let mut ctx = Ctx::new(&mut out, &mut err, std::env::vars().collect(), std::env::args().collect());
    ctx.err_is_terminal = err_is_terminal;
    ctx.out_is_terminal = out_is_terminal;
    run(cli, &mut ctx)
}

/// Run a parsed command. Returns the exit status.
pub fn run(cli: Cli, ctx: &mut Ctx) -> Result<i32, Error> {
    // Bad bench arguments are refused before anything is looked up or said.
    if let Command::Bench(bench::BenchCommand::Allreduce(a)) = &cli.command {
        bench::check_args(a, ctx)?;
    }
    // A log says which NCCL wrote it: `topo log` chooses its release itself.
    if !matches!(cli.command, Command::Log(_) | Command::Algo(algo::AlgoCommand::Check(_))) {
        choose_release(cli.nccl_version.as_deref(), cli.command.models_live_machine(), ctx)?;
    }
    let flag = cli.nccl_version;
    match cli.command {
        Command::Show(a) => show::run(&a, ctx),
        Command::Paths(a) => paths::run(&a, ctx),
        Command::Analyze(a) => analyze::run(&a, ctx),
        Command::Search(a) => search::run(&a, ctx),
        Command::Tune(a) => tune::run(&a, ctx),
        Command::Diff(a) => diff::run(&a, ctx),
        Command::Fleet(a) => fleet::run(&a, ctx),
        Command::Log(a) => log::run(&a, flag.as_deref(), ctx),
        Command::Bench(b) => bench::run(b, ctx),
        Command::Algo(a) => algo::run(a, ctx),
        Command::Detect(a) => detect::run(&a, ctx),
        Command::Check(a) => check::run(&a, ctx),
        Command::Fixtures => {
            let term = ctx.term(ColorChoice::Never);
            ctx.print(&crate::render::show::fixtures_list_with(crate::fixtures::all(), &term))?;
            Ok(0)
        }
        Command::Generate(a) => {
            generate(&a.out)?;
            Ok(0)
        }
    }
}

/// Parse and run with the given streams and environment (for tests and embedding):
/// like the binary, without touching the process's own.
pub fn run_args<I, T>(
    args: I,
    vars: BTreeMap<String, String>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let argv = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let cli = Cli::try_parse_from(&args).map_err(|e| Error::Usage(usage_line(&e, &args)))?;
    let mut ctx = Ctx::new(out, err, vars, argv);
    run(cli, &mut ctx)
}

impl Command {
    /// Whether the command models NCCL on this machine, detected live (no `--topo`,
    /// `--fixture` or `--root`). `topo detect` writes the XML the way the NCCL found
    /// here would.
    fn models_live_machine(&self) -> bool {
        let input = match self {
            Command::Detect(a) => return a.source.root.is_none(),
            Command::Show(a) => &a.input,
            Command::Paths(a) => &a.input,
            Command::Analyze(a) => &a.input,
            Command::Search(a) => &a.input,
            Command::Tune(a) => &a.input,
            Command::Bench(bench::BenchCommand::Allreduce(a)) if a.searches() => &a.input,
            _ => return false,
        };
        !input.named()
    }
}

/// The NCCL release to model: `--nccl-version`, else TOPO_NCCL_VERSION, else, on the
/// live machine, the NCCL it would load, else the newest. A release that is not
/// checked against NCCL's answers, and a release found on the machine, are said on
/// stderr.
fn choose_release(flag: Option<&str>, live: bool, ctx: &mut Ctx) -> Result<(), Error> {
    let (text, from) = match (flag, ctx.vars.get("TOPO_NCCL_VERSION")) {
        (Some(v), _) => (v.to_string(), "--nccl-version"),
        (None, Some(v)) if !v.trim().is_empty() => (v.clone(), "TOPO_NCCL_VERSION"),
        _ if live => return release_of_this_machine(ctx),
        _ => return Ok(()),
    };
    let release = Release::parse(&text).map_err(|e| Error::Usage(format!("{from}: {e}")))?;
    ctx.set_release(release);
    if !release.checked() {
        ctx.note(&release.provenance())?;
    }
    Ok(())
}

/// Model the NCCL this machine would load, when one is found.
fn release_of_this_machine(ctx: &mut Ctx) -> Result<(), Error> {
    use crate::discover::nccl;
    let var = |k: &str| ctx.vars.get(k).map(String::as_str).filter(|v| !v.is_empty());
    let places = nccl::Places::usual(var("VIRTUAL_ENV"), var("CONDA_PREFIX"), var("HOME"));
    let newest = Release::NEWEST;
    let line = match nccl::find(&places) {
        None => format!("no NCCL found on this machine (libnccl.so.2, nvidia-nccl packages): modelling NCCL {newest}"),
        Some(f) => match Release::parse(&f.version) {
            Ok(r) => {
                ctx.set_release(r);
                let checked = if r.checked() { "" } else { "; modelled from its source, not checked" };
                format!("modelling NCCL {r}, found as {}{checked} (--nccl-version to choose another)", f.place)
            }
            Err(_) => format!(
                "found NCCL {} ({}), which topo does not model (2.18.1 to {newest}): modelling NCCL {newest}",
                f.version, f.place
            ),
        },
    };
    ctx.note(&line)
}

/// Load the input, say its notices, and run the model on it.
fn analyze_input(input: &InputArgs, m: &ModelArgs, ctx: &mut Ctx) -> Result<(Loaded, Analysis), Error> {
    let loaded = input::load(&input.source(&ctx.env))?;
    let opts = model::Options { fabric: loaded.fabric.clone(), ..m.options(&ctx.env) };
    let an = model::analyze(&loaded.xml, &loaded.label, &opts)?;
    ctx.notices(loaded.diags.iter().chain(&an.diags))?;
    Ok((loaded, an))
}

/// The search options for an analysis, with NCCL_GRAPH_FILE read when it is set.
fn search_options(an: &Analysis, ctx: &mut Ctx) -> Result<SearchOptions, Error> {
    let mut so = SearchOptions::from_analysis(an);
    so.graph_file = graph_file(None, ctx)?;
    Ok(so)
}

/// The graph file the search loads instead of searching: `named` (`--graph-file`),
/// else NCCL_GRAPH_FILE when it is set; its reading notices are said.
fn graph_file(named: Option<&std::path::Path>, ctx: &mut Ctx) -> Result<Option<(String, crate::xml::Xml)>, Error> {
    let from_env = ctx.env.search.graph_file.as_deref().filter(|f| !f.is_empty()).map(std::path::Path::new);
    let Some(path) = named.or(from_env) else { return Ok(None) };
    let g = input::graph_file(path)?;
    ctx.notices(&g.diags)?;
    Ok(Some((g.name, g.xml)))
}

/// Run the search, with a spinner on stderr when it takes a while and stderr is a
/// terminal.
fn search_with_progress(an: &Analysis, so: &SearchOptions, ctx: &Ctx) -> Result<(Graphs, System), Error> {
    use std::time::{Duration, Instant};
    if !ctx.err_is_terminal {
        return crate::search::run(an, so);
    }
    let start = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let res = crate::search::run_with(an, so, &mut |graph, steps| {
        if bar.is_none() && start.elapsed() > Duration::from_millis(300) {
            let b = indicatif::ProgressBar::new_spinner();
            b.enable_steady_tick(Duration::from_millis(120));
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_message(format!("searching the {graph} graph: {steps} steps"));
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// `topo --version` lists exactly the releases topo accepts, checked ones marked.
    #[test]
    fn long_version_lists_every_release() {
        let listed: String = LONG_VERSION.lines().skip(3).take(3).map(str::trim).collect::<Vec<_>>().join(" ");
        assert_eq!(listed, Release::list());
    }

    #[test]
    fn nccl_version_flag_and_variable() {
        let run = |args: &[&str], vars: &[(&str, &str)]| {
            let vars = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let r = run_args(args, vars, &mut out, &mut err).map_err(|e| e.to_string());
            (r, String::from_utf8(err).unwrap())
        };
        let (r, err) = run(&["topo", "show", "--fixture", "dgx-h100", "--nccl-version", "2.26.2"], &[]);
        assert_eq!(r, Ok(0));
        assert!(err.contains("2.26.2: modelled from its source, not checked"), "{err}");
        let (r, err) = run(&["topo", "show", "--fixture", "dgx-h100", "--nccl-version", "2.28.9"], &[]);
        assert_eq!(r, Ok(0));
        assert!(!err.contains("not checked"), "{err}");
        let (r, _) = run(&["topo", "show", "--fixture", "dgx-h100", "--nccl-version", "2.26.4"], &[]);
        assert!(r.unwrap_err().contains("--nccl-version: NCCL 2.26.4 is not a release topo models"));
        let (r, _) = run(&["topo", "show", "--fixture", "dgx-h100"], &[("TOPO_NCCL_VERSION", "3.0")]);
        assert!(r.unwrap_err().starts_with("TOPO_NCCL_VERSION: '3.0' is not an NCCL version"));
        // The flag wins over the variable.
        let (r, _) =
            run(&["topo", "show", "--fixture", "dgx-h100", "--nccl-version", "2.21.5"], &[("TOPO_NCCL_VERSION", "x")]);
        assert_eq!(r, Ok(0));
    }

    #[test]
    fn runs_with_given_streams() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run_args(["topo", "fixtures"], BTreeMap::new(), &mut out, &mut err).unwrap();
        assert_eq!(code, 0);
        assert!(String::from_utf8(out).unwrap().contains("dgx-h100"));
        let e = run_args(["topo", "shwo"], BTreeMap::new(), &mut Vec::new(), &mut Vec::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unrecognized subcommand 'shwo'; tip: a similar subcommand exists: 'show' (see --help)"
        );
        let e = run_args(["topo", "show", "--nodes", "0"], BTreeMap::new(), &mut Vec::new(), &mut Vec::new());
        assert!(!e.unwrap_err().to_string().contains('\n'));
    }

    /// `topo` and `topo bench` alone say a command is missing and list the commands,
    /// not the tool's description.
    #[test]
    fn a_missing_command_is_named() {
        let err = |args: &[&str]| match run_args(args, BTreeMap::new(), &mut Vec::new(), &mut Vec::new()) {
            Err(Error::Usage(m)) => m,
            other => panic!("{args:?}: {other:?}"),
        };
        assert_eq!(
            err(&["topo"]),
            "a command is missing: topo COMMAND, where COMMAND is one of show, paths, analyze, search, tune, \
             diff, fleet, log, bench, algo, detect, check, fixtures (see topo --help)"
        );
        assert_eq!(
            err(&["topo", "--nccl-version", "2.28.9", "bench"]),
            "a command is missing: topo bench COMMAND, where COMMAND is one of allreduce, allgather, reducescatter, \
             alltoall, broadcast, reduce (see topo bench --help)"
        );
    }
}
