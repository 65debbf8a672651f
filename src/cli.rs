//! The command line: one clap definition that drives parsing, help, the man page and
//! the shell completions. Each command loads its input into the same XML tree and runs
//! the same model; this layer only chooses what to print.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::env::Env;
use crate::error::Error;
use crate::model::{self, Analysis};
use crate::render;
use crate::xml::{self, Xml};

/// Discover a machine's GPU/NIC topology and analyse it exactly the way NCCL does.
#[derive(Debug, Parser)]
#[command(name = "topo", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths.
    Show(ShowArgs),
    /// Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts.
    Paths(PathsArgs),
    /// Everything the model decides, in one document.
    Analyze(AnalyzeArgs),
    /// NCCL's channel search: ring, tree, NVLS and CollNet graphs, and the channels NCCL runs.
    Search(crate::search::command::SearchArgs),
    /// NCCL's performance model: algorithm, protocol, time and bandwidth per message size.
    Tune(TuneArgs),
    /// What differs between two topology dumps, and what it does to NCCL (exit 0 same, 1 different).
    Diff(crate::diff::DiffArgs),
    /// Group many dumps (one per node) and explain every outlier against the largest group.
    Fleet(crate::diff::FleetArgs),
    /// Measure collectives through topo's own ring kernels along the searched channels.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Detect this machine (or a --root tree) and write it as NCCL topology XML.
    Detect(crate::discover::DetectArgs),
    /// Health checks of this machine for NCCL (exit 1 when a finding is an error).
    Check(crate::check::CheckArgs),
    /// List the machines topo carries built in (for --fixture).
    Fixtures,
    /// Write the shell completions and the man page (used to refresh the committed copies).
    #[command(hide = true)]
    Generate(GenerateArgs),
}

/// Where the topology comes from.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format).
    #[arg(long, value_name = "FILE", global = true, conflicts_with = "fixture")]
    pub topo: Option<PathBuf>,
    /// A machine topo carries built in (see `topo fixtures`).
    #[arg(long, value_name = "NAME", global = true, conflicts_with = "root")]
    pub fixture: Option<String>,
    /// Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine.
    #[arg(long, value_name = "DIR", global = true, conflicts_with = "topo")]
    pub root: Option<PathBuf>,
    /// With live or --root detection: NVML's answers from this JSON file.
    #[arg(long, value_name = "FILE", global = true)]
    pub nvml_fake: Option<PathBuf>,
}

/// Facts about the job and the machine that are not in the XML.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// Model N identical nodes (NCCL then routes rings through the NICs); shows node 0.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub nodes: u32,
    /// The driver reports no peer-to-peer support between GPUs (as on GeForce cards).
    #[arg(long)]
    pub no_p2p_support: bool,
    /// The network plugin does not fuse the ports of a NIC into one virtual device.
    #[arg(long)]
    pub no_nic_fusion: bool,
    /// Every NIC is CollNet (SHARP) capable.
    #[arg(long)]
    pub collnet: bool,
    /// NVLink SHARP (NVLS) is not available.
    #[arg(long)]
    pub no_nvls: bool,
}

impl ModelArgs {
    pub fn options(&self, env: Env) -> model::Options {
        model::Options {
            nodes: self.nodes as usize,
            p2p_support: !self.no_p2p_support,
            nic_fusion: !self.no_nic_fusion,
            collnet: self.collnet,
            nvls: !self.no_nvls,
            env,
        }
    }
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print the topology as normalised NCCL XML instead.
    #[arg(long, conflicts_with = "json")]
    pub xml: bool,
    /// Print the system as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PathsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print JSON (paths, P2P and GDR verdicts with their reasons).
    #[arg(long, conflicts_with_all = ["dot"])]
    pub json: bool,
    /// Give the reason for every P2P, transport and GDR decision, and each path's route.
    #[arg(long)]
    pub explain: bool,
    /// Print Graphviz of the system with the chosen paths (`| dot -Tsvg > topo.svg`).
    #[arg(long)]
    pub dot: bool,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print the JSON document (schema 1) instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TuneArgs {
    /// The collective to model.
    #[arg(value_enum, default_value = "allreduce")]
    pub func: crate::tune::Func,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Smallest size in bytes, as nccl-tests' -b (K, M, G suffixes are powers of 1024).
    #[arg(short = 'b', long = "minbytes", value_name = "SIZE", default_value = "8", value_parser = crate::tune::render::parse_size)]
    pub minbytes: u64,
    /// Largest size in bytes, as nccl-tests' -e.
    #[arg(short = 'e', long = "maxbytes", value_name = "SIZE", default_value = "8G", value_parser = crate::tune::render::parse_size)]
    pub maxbytes: u64,
    /// Multiply the size by this between rows, as nccl-tests' -f (default 2).
    #[arg(short = 'f', long = "stepfactor", value_name = "N", conflicts_with = "stepbytes")]
    pub stepfactor: Option<u64>,
    /// Add this many bytes between rows instead, as nccl-tests' -i.
    #[arg(short = 'i', long = "stepbytes", value_name = "SIZE", value_parser = crate::tune::render::parse_size)]
    pub stepbytes: Option<u64>,
    /// Also print NCCL's tuning table (latency/bandwidth per collective, algorithm and protocol).
    #[arg(long)]
    pub table: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

impl TuneArgs {
    pub fn report(&self) -> crate::tune::render::Report {
        let factor = match (self.stepfactor, self.stepbytes) {
            (None, Some(_)) => None,
            (f, _) => Some(f.unwrap_or(2)),
        };
        crate::tune::render::Report {
            func: self.func,
            sweep: crate::tune::render::Sweep {
                min: self.minbytes,
                max: self.maxbytes,
                factor,
                step: self.stepbytes.unwrap_or(0),
            },
            table: self.table,
            json: self.json,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Allreduce bandwidth probe with nccl-tests' flags and output, set against the model.
    Allreduce(BenchAllreduceArgs),
}

#[derive(Debug, Args)]
pub struct BenchAllreduceArgs {
    #[command(flatten)]
    pub bench: crate::bench::AllreduceArgs,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Folder to write `completions/` and `man/` into.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Never {}

/// A topology loaded from some source, with the warnings met on the way.
pub struct Loaded {
    pub xml: Xml,
    pub label: String,
    pub diags: Vec<xml::Diagnostic>,
}

/// Load the topology the input arguments name.
pub fn load_input(input: &InputArgs) -> Result<Loaded, Error> {
    if let Some(path) = &input.topo {
        let (xml, diags) = xml::read_file(path)?;
        return Ok(Loaded { xml, label: path.display().to_string(), diags });
    }
    if let Some(name) = &input.fixture {
        return load_fixture(name);
    }
    detect_input(input)
}

/// Detect the live machine (or a --root tree) into the same XML tree a file gives.
fn detect_input(input: &InputArgs) -> Result<Loaded, Error> {
    let source = crate::discover::SourceArgs { root: input.root.clone(), nvml_fake: input.nvml_fake.clone() };
    let (sys, nvml) = source.open()?;
    let det = crate::discover::detect(&sys, nvml.as_ref(), &crate::discover::Options::default())?;
    let label = match &input.root {
        Some(r) => format!("detected:{}", r.display()),
        None => "detected:this machine".into(),
    };
    let diags = det
        .notices
        .iter()
        .map(|n| xml::Diagnostic { severity: xml::Severity::Warning, file: None, line: 0, message: n.to_string() })
        .collect();
    Ok(Loaded { xml: det.xml, label, diags })
}

fn load_fixture(name: &str) -> Result<Loaded, Error> {
    let f = crate::fixtures::get(name)?;
    let (xml, diags) = f.load()?;
    Ok(Loaded { xml, label: format!("fixture:{name}"), diags })
}

fn fixtures_list() -> String {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::NOTHING);
    t.set_header(vec!["NAME", "DESCRIPTION"]);
    for f in crate::fixtures::all() {
        t.add_row(vec![f.name, f.description]);
    }
    format!("{t}\n\nUse one with --fixture NAME, e.g. `topo paths --fixture {}`.\n", crate::fixtures::all()[0].name)
}

pub(crate) fn analyze_input(input: &InputArgs, m: &ModelArgs) -> Result<(Loaded, Analysis), Error> {
    let loaded = load_input(input)?;
    let an = model::analyze(&loaded.xml, &loaded.label, &m.options(Env::from_process()))?;
    Ok((loaded, an))
}

pub(crate) fn print_warnings(loaded: &Loaded, an: Option<&Analysis>) {
    let mut seen = std::collections::HashSet::new();
    let all = loaded.diags.iter().chain(an.map(|a| a.diags.iter()).into_iter().flatten());
    for d in all {
        let s = d.to_string();
        if seen.insert(s.clone()) {
            eprintln!("topo: {s}");
        }
    }
}

fn io_err(e: std::io::Error) -> Error {
    Error::Io { file: "<stdout>".into(), source: e }
}

/// Run with explicit arguments (the binary passes `std::env::args_os()`).
pub fn main_with_args<I, T>(args: I) -> Result<i32, Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return Ok(code);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    run(cli, &mut out)
}

/// Run a parsed command, writing its output to `out`. Returns the exit status.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<i32, Error> {
    // Everything is rendered to a string first so that nothing half-written reaches stdout.
    let text = match cli.command {
        Command::Show(a) => {
            let (loaded, an) = analyze_input(&a.input, &a.model)?;
            print_warnings(&loaded, Some(&an));
            if a.xml {
                xml::write(&crate::model::prepare::nccl_view(&loaded.xml))
            } else if a.json {
                render::to_json_string(&render::show::system_json(&an))
            } else {
                render::show::tree(&an)
            }
        }
        Command::Paths(a) => {
            let (loaded, an) = analyze_input(&a.input, &a.model)?;
            print_warnings(&loaded, Some(&an));
            if a.json {
                render::to_json_string(&render::paths::json(&an))
            } else if a.dot {
                render::dot::system(&an)
            } else {
                render::paths::text(&an, a.explain)
            }
        }
        Command::Analyze(a) => {
            let (loaded, an) = analyze_input(&a.input, &a.model)?;
            print_warnings(&loaded, Some(&an));
            if a.json {
                let so = crate::search::SearchOptions::from_analysis(&an)?;
                let (gs, sys) = crate::search::command::search_with_progress(&an, &so)?;
                let mut doc = an.to_json(crate::render::graphs::graphs_json(&sys, &gs));
                let run = crate::search::command::run_of(&an, &gs);
                doc["run"] = render::search::run_json(&run, 0);
                render::to_json_string(&doc)
            } else {
                let mut s = render::show::tree(&an);
                s.push('\n');
                s.push_str(&render::paths::text(&an, false));
                s
            }
        }
        Command::Search(a) => return crate::search::command::run(&a, out),
        Command::Tune(a) => {
            let (loaded, an) = analyze_input(&a.input, &a.model)?;
            print_warnings(&loaded, Some(&an));
            let (text, warnings) = crate::tune::render::report(&an, &a.report())?;
            for w in warnings {
                eprintln!("topo: warning: {w}");
            }
            text
        }
        Command::Diff(a) => return crate::diff::run_with_graphs(&a, out, &searched_graphs),
        Command::Fleet(a) => return crate::diff::fleet::run_with_graphs(&a, out, &searched_graphs),
        Command::Bench(BenchCommand::Allreduce(a)) => return bench_allreduce(&a, out),
        Command::Detect(a) => return crate::discover::run(&a, out),
        Command::Check(a) => return crate::check::run(&a, out),
        Command::Fixtures => fixtures_list(),
        Command::Generate(a) => {
            generate(&a.out)?;
            String::new()
        }
    };
    out.write_all(text.as_bytes()).map_err(io_err)?;
    out.flush().map_err(io_err)?;
    Ok(0)
}

/// `topo bench allreduce`: the rings come from the channel search on the named
/// topology (or on this machine for the CUDA backend), each ring edge uses the transport
/// the model chose (P2P, else host-staged through the proxy), and the tuning model gives
/// the predicted bus bandwidth. A graph file, or the host backend with no topology named,
/// runs the plain rings instead.
fn bench_allreduce(a: &BenchAllreduceArgs, out: &mut dyn Write) -> Result<i32, Error> {
    use crate::bench::{BackendKind, Plan, Prediction, RingChannel, Transport};
    let b = &a.bench;
    let named = a.input.topo.is_some() || a.input.fixture.is_some() || a.input.root.is_some();
    if b.compile_only || b.graph_file.is_some() || (b.backend == BackendKind::Host && !named) {
        return crate::bench::run(b, out);
    }
    let (loaded, an) = analyze_input(&a.input, &a.model)?;
    print_warnings(&loaded, Some(&an));
    let so = crate::search::SearchOptions::from_analysis(&an)?;
    let (gs, sys) = crate::search::run(&an, &so)?;
    let n = sys.count(crate::model::NodeType::Gpu);
    let ring = &gs.ring;
    let rank_of: Vec<i32> = an.system.list(crate::model::NodeType::Gpu).iter().map(|g| g.gpu_rank()).collect();
    let index = |r: i32| rank_of.iter().position(|&x| x == r).unwrap_or(0);
    let channels: Vec<RingChannel> = (0..ring.n_channels.max(1) as usize)
        .map(|c| RingChannel { order: ring.intra[c * n..(c + 1) * n].iter().map(|&r| index(r)).collect() })
        .collect();
    let mut transports = vec![Transport::P2p; n * n];
    for p in &an.p2p {
        let (f, t) = (index(p.from), index(p.to));
        if p.transport != crate::model::Transport::P2p && f < n && t < n {
            transports[f * n + t] = Transport::HostStaged;
        }
    }
    // topo's kernels run rings, so the prediction beside each measurement is NCCL's ring
    // time (best protocol); the report also names what NCCL itself would pick.
    let model = std::sync::Arc::new(crate::tune::Model::new(&an, &gs)?);
    let nccl_pick = model
        .predict(crate::tune::Func::AllReduce, b.maxbytes)
        .map(|p| format!("at {} B NCCL would pick {} {}: {}", b.maxbytes, p.algo.name(), p.proto.name(), p.bottleneck))
        .unwrap_or_else(|e| e.to_string());
    let ring_bw = ring.bw_intra.min(if sys.inter { ring.bw_inter } else { ring.bw_intra });
    let bottleneck = format!("ring {}x{} GB/s {}", ring.n_channels, crate::render::gbs(ring_bw), ring.type_intra);
    let m = model.clone();
    let ranks = n as f64;
    let busbw = move |bytes: u64| {
        let t = m.cost_table(crate::tune::Func::AllReduce, bytes)[crate::tune::Algo::Ring as usize]
            .iter()
            .flatten()
            .copied()
            .filter(|&t| t > 0.0)
            .fold(f32::INFINITY, f32::min);
        if t.is_finite() { bytes as f64 / (t as f64 * 1e3) * 2.0 * (ranks - 1.0) / ranks } else { 0.0 }
    };
    let mut notes = Vec::new();
    if b.backend == BackendKind::Host {
        notes.push(format!(
            "host backend: {n} ranks are threads of this machine; the prediction is NCCL's for {}",
            an.input
        ));
    }
    let plan = Plan {
        nranks: n,
        channels,
        transports,
        prediction: Some(Prediction { busbw_gbs: std::sync::Arc::new(busbw), bottleneck }),
        source: format!(
            "NCCL ring graph of {} ({} channels, {}); predictions are NCCL's ring times ({nccl_pick})",
            an.input, ring.n_channels, ring.type_intra
        ),
        notes,
    };
    crate::bench::run_with_plan(b, plan, out)
}

/// The search's graphs as the analysis JSON has them; all null when the search fails
/// (diff and fleet then compare everything else).
fn searched_graphs(an: &Analysis) -> serde_json::Value {
    crate::search::SearchOptions::from_analysis(an)
        .and_then(|so| crate::search::run(an, &so))
        .map(|(gs, sys)| crate::render::graphs::graphs_json(&sys, &gs))
        .unwrap_or_else(|_| crate::diff::no_graphs(an))
}

/// Write completions for every shell clap_complete knows, and the man page.
pub fn generate(dir: &std::path::Path) -> Result<(), Error> {
    let comp = dir.join("completions");
    let man = dir.join("man");
    std::fs::create_dir_all(&comp).map_err(|e| Error::io(&comp, e))?;
    std::fs::create_dir_all(&man).map_err(|e| Error::io(&man, e))?;
    // Completions offer only the public commands (clap_complete lists hidden ones too).
    let full = Cli::command();
    let public = clap::Command::new("topo")
        .version(env!("CARGO_PKG_VERSION"))
        .about(full.get_about().cloned().unwrap_or_default())
        .propagate_version(true)
        .subcommand_required(true)
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    for shell in [
        clap_complete::Shell::Bash,
        clap_complete::Shell::Zsh,
        clap_complete::Shell::Fish,
        clap_complete::Shell::PowerShell,
        clap_complete::Shell::Elvish,
    ] {
        let mut cmd = public.clone();
        clap_complete::generate_to(shell, &mut cmd, "topo", &comp).map_err(|e| Error::io(&comp, e))?;
    }
    let cmd = Cli::command();
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf).map_err(|e| Error::io(&man, e))?;
    let p = man.join("topo.1");
    std::fs::write(&p, buf).map_err(|e| Error::io(&p, e))?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("topo-{}", sub.get_name());
        let static_name: &'static str = Box::leak(name.clone().into_boxed_str());
        let sub = sub.clone().name(static_name);
        let mut buf = Vec::new();
        clap_mangen::Man::new(sub).render(&mut buf).map_err(|e| Error::io(&man, e))?;
        let p = man.join(format!("{name}.1"));
        std::fs::write(&p, buf).map_err(|e| Error::io(&p, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
