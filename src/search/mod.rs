//! NCCL's channel search (`ncclTopoCompute`): rings, trees, CollNet and NVLS graphs.
//!
//! The search is a depth-first walk over GPUs (and NICs when several nodes are modelled)
//! that reserves bandwidth on every link it crosses, tries bandwidths from a per-
//! architecture ladder, and relaxes its constraints step by step (same channels, tree
//! pattern, path types, cross-NIC, speed) until it finds channels. Its budget is counted
//! in steps, never in time, so results are deterministic. Graphs are computed in NCCL's
//! order on one system, because the rounding of reserved bandwidth carries over from
//! one search to the next exactly as in NCCL.

pub mod bandwidth;
pub mod channels;
pub mod cost;
pub mod links;
pub mod xml;

mod compute;
mod fanout;
pub mod graph;
pub mod ladder;
pub mod limits;
mod nets;
pub mod options;
mod recursion;
mod sort;
mod sortcache;
pub mod speeds;
#[cfg(test)]
mod tests;

pub use compute::{cc_min, compute, compute_all, compute_all_with, compute_with, run, run_with};
pub use graph::{CrossNic, Graph, GraphId, Graphs, Pattern, pattern};
pub use limits::MAXCHANNELS;
pub use options::SearchOptions;
pub use recursion::Progress;
pub use speeds::speed_ladder;
