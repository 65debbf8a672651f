//! The job a modelled machine gives: nodes, GPUs a node, and NCCL's rings (the `nccl`
//! algorithm's channels) from the search and NCCL's channel set-up.

use super::Shape;
use crate::error::Error;
use crate::model::Analysis;

/// The job of an analysis; with `rings`, NCCL's rings on it, one rank order (from rank
/// 0) per channel NCCL runs.
pub fn shape(an: &Analysis, rings: bool) -> Result<Shape, Error> {
    let mut s = Shape { nodes: an.options.nodes as u32, gpus_per_node: an.host_gpus() as u32, rings: Vec::new() };
    if rings {
        let so = crate::search::options::SearchOptions::from_analysis(an);
        let (graphs, _) = crate::search::run(an, &so)?;
        let run = crate::search::channels::for_analysis(an, &graphs)?;
        s.rings = (0..run.n_channels).map(|c| run.ring_order(c, 0).into_iter().map(|r| r as u32).collect()).collect();
    }
    Ok(s)
}
