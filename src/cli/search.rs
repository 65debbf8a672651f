//! `topo search`: run NCCL's graph search on a topology and show the graphs, the
//! channels NCCL runs, what a graph file costs, or the channels drawn over the machine.

use std::path::PathBuf;

use clap::Args;

use super::args::{InputArgs, ModelArgs, TermArgs};
use super::{Ctx, analyze_input, graph_file, search_with_progress};
use crate::error::Error;
use crate::render::dot;
use crate::render::search::{self as view, GraphSel};
use crate::search::{channels, cost};

#[derive(Debug, Args)]
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
    /// Print Graphviz of the channels, one small diagram per distinct channel (`| dot -Tsvg > ch.svg`).
    #[arg(long)]
    pub dot: bool,
    /// With --dot: draw channel N of one graph (--graph, default ring) over the machine,
    /// with each link's load per direction.
    #[arg(long, value_name = "N", requires = "dot")]
    pub channel: Option<usize>,
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
    #[command(flatten)]
    pub term: TermArgs,
}

pub fn run(a: &SearchArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let (_, an) = analyze_input(&a.input, &a.model, ctx)?;
    let mut so = crate::search::SearchOptions::from_analysis(&an);
    so.graph_file = graph_file(a.graph_file.as_deref(), ctx)?;
    if let Some((file, x)) = &so.graph_file {
        for w in cost::lint_graph_file(x, file, an.system.count(crate::model::NodeType::Gpu)) {
            ctx.warn(&w)?;
        }
    }
    let (gs, sys) = search_with_progress(&an, &so, ctx)?;
    // Graphs from a file skip the search's checks: check them, and replay their cost.
    let cost = match so.graph_file.take() {
        Some((file, _)) => {
            let loaded: Vec<&crate::search::Graph> =
                view::selected(&gs, &a.graph).into_iter().filter(|g| g.from_file).collect();
            if loaded.is_empty() {
                ctx.warn(&format!(
                    "{file}: no graph of it was used (none with a ring/tree/CollNet/NVLS id NCCL asks for)"
                ))?;
            }
            let c = cost::replay(&an.system, &file, &loaded)?;
            Some((file, c))
        }
        None => None,
    };
    let text = if a.xml {
        crate::search::xml::dump(&sys, &gs, ctx.release())?
    } else {
        let run = channels::for_analysis(&an, &gs).map_err(|e| e.to_string());
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
            let graph = if a.channel.is_some() && a.graph.is_empty() { vec![GraphSel::Ring] } else { a.graph.clone() };
            dot::search::picture(&an, &gs, &graph, a.channel)?
        } else {
            view::text(&an, &gs, &a.graph, &run, rank, cost_ref, &ctx.term(a.term.color))
        }
    };
    ctx.print(&text)?;
    Ok(0)
}
