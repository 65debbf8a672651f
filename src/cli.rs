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
    #[arg(long, value_name = "NAME", global = true)]
    pub fixture: Option<String>,
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
    Err(Error::Usage(
        "live detection of this machine is not available in this build; pass --topo FILE (an NCCL topology XML) or --fixture NAME (see `topo fixtures`)"
            .into(),
    ))
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

fn analyze_input(input: &InputArgs, m: &ModelArgs) -> Result<(Loaded, Analysis), Error> {
    let loaded = load_input(input)?;
    let an = model::analyze(&loaded.xml, &loaded.label, &m.options(Env::from_process()))?;
    Ok((loaded, an))
}

fn print_warnings(loaded: &Loaded, an: Option<&Analysis>) {
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
                render::to_json_string(&an.to_json(empty_graphs()))
            } else {
                let mut s = render::show::tree(&an);
                s.push('\n');
                s.push_str(&render::paths::text(&an, false));
                s
            }
        }
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

fn empty_graphs() -> serde_json::Value {
    serde_json::json!({"ring": null, "tree": null, "nvls": null, "collnet_chain": null, "collnet_direct": null})
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
