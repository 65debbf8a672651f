//! topo: a machine's GPU/NIC topology, analysed the way NCCL analyses it.
//!
//! Pipeline, one module a stage: [`xml`] (NCCL's topology XML) -> [`model`] (NCCL's
//! node/link system, paths and P2P/GDR decisions) -> [`render`] (tables, JSON, Graphviz)
//! with the command layer in [`cli`]. Every input, a file, a built-in fixture or a live
//! machine, becomes the same XML tree and flows through the same code.

pub mod bench;
pub mod check;
pub mod cli;
pub mod diff;
pub mod discover;
pub mod env;
pub mod error;
pub mod fixtures;
pub mod model;
pub mod render;
pub mod search;
pub mod tune;
pub mod xml;

/// Skips of the unit tests go to the same tally as the integration tests' skips.
#[cfg(test)]
#[path = "../tests/common/skip.rs"]
mod test_skip;
