//! `topo search`: run NCCL's graph search on a topology and show the graphs, the
//! channels NCCL runs, what a graph file costs, or the channels drawn over the machine.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::cli::{InputArgs, ModelArgs};
use crate::error::Error;
use crate::model::{Analysis, System};
use crate::render::search::{self as view, GraphSel};
use crate::search::{Graphs, SearchOptions, channels, cost};

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print exactly what NCCL writes to NCCL_GRAPH_DUMP_FILE (all graphs).
    #[arg(long, conflicts_with_all = ["json", "dot", "graph"])]
    pub xml: bool,
    /// Print the graphs and the channels NCCL runs (`run`) as JSON.
    #[arg(long, conflicts_with = "dot")]
    pub json: bool,
    /// Print Graphviz of the machine with the channels over it (`| dot -Tsvg > ch.svg`).
    #[arg(long)]
    pub dot: bool,
    /// Graphs to show, comma-separated or repeated [default: all computed].
    #[arg(long, value_enum, value_delimiter = ',', value_name = "GRAPH")]
    pub graph: Vec<GraphSel>,
    /// Show this rank's Ring/Trees log lines instead of rank 0's.
    #[arg(long, value_name = "R")]
    pub rank: Option<usize>,
    /// Load graphs from an NCCL graph file, as NCCL_GRAPH_FILE does (overrides it), and
    /// report what they cost: oversubscribed links and the bandwidth each channel gets.
    #[arg(long, value_name = "FILE")]
    pub graph_file: Option<PathBuf>,
}

/// Run the search, with a spinner on stderr when it takes a while and stderr is a
/// terminal.
pub fn search_with_progress(an: &Analysis, so: &SearchOptions) -> Result<(Graphs, System), Error> {
    if !std::io::stderr().is_terminal() {
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

/// The channels of the job, or why they cannot be modelled.
pub fn run_of(an: &Analysis, gs: &Graphs) -> Result<channels::Run, String> {
    channels::for_analysis(an, gs).map_err(|e| e.to_string())
}

/// `topo search`. Returns the exit status.
pub fn run(a: &SearchArgs, out: &mut dyn Write) -> Result<i32, Error> {
    let (loaded, an) = crate::cli::analyze_input(&a.input, &a.model)?;
    crate::cli::print_warnings(&loaded, Some(&an));
    let mut so = SearchOptions::from_analysis(&an)?;
    if let Some(f) = &a.graph_file {
        let (x, diags) = crate::xml::read_file(f)?;
        for d in diags {
            eprintln!("topo: {d}");
        }
        so.graph_file = Some((f.display().to_string(), x));
    }
    if let Some((file, x)) = &so.graph_file {
        for w in cost::lint_graph_file(x, file, an.system.count(crate::model::NodeType::Gpu)) {
            eprintln!("topo: warning: {w}");
        }
    }
    let (gs, sys) = search_with_progress(&an, &so)?;
    // Graphs from a file skip the search's checks: check them, and replay their cost.
    let cost = match &so.graph_file {
        Some((file, _)) => {
            let loaded: Vec<&crate::search::Graph> =
                view::selected(&gs, &a.graph).into_iter().filter(|g| g.from_file).collect();
            if loaded.is_empty() {
                eprintln!(
                    "topo: warning: {file}: no graph of it was used (none with a ring/tree/CollNet/NVLS id NCCL asks for)"
                );
            }
            Some((file.clone(), cost::replay(&an.system, file, &loaded)?))
        }
        None => None,
    };
    let text = if a.xml {
        crate::search::xml::dump(&sys, &gs)?
    } else {
        let run = run_of(&an, &gs);
        let rank = a.rank.unwrap_or(0);
        if let Some(r) = a.rank {
            match &run {
                Ok(run) => run.check_rank(r)?,
                Err(e) => {
                    return Err(Error::Usage(format!("--rank {r}: the channels are not modelled: {e}")));
                }
            }
        }
        let cost_ref = cost.as_ref().map(|(f, c)| (f.as_str(), c.as_slice()));
        if a.json {
            crate::render::to_json_string(&view::json(&sys, &gs, &a.graph, &run, rank, cost_ref))
        } else if a.dot {
            view::dot(&an, &gs, &a.graph)?
        } else {
            view::text(&an, &gs, &a.graph, &run, rank, cost_ref)
        }
    };
    let io = |e| Error::Io { file: "<stdout>".into(), source: e };
    out.write_all(text.as_bytes()).map_err(io)?;
    out.flush().map_err(io)?;
    Ok(0)
}
