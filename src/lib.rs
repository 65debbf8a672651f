//! topo: a machine's GPU/NIC topology, analysed the way NCCL analyses it.
//!
//! Pipeline, one module a stage: [`xml`] (NCCL's topology XML) -> [`model`] (NCCL's
//! node/link system, paths and P2P/GDR decisions) -> renderers and commands in [`cli`].
//! Every input, a file, a built-in fixture or a live machine, becomes the same XML tree
//! and flows through the same code.

pub mod error;
pub mod xml;
pub mod bench;
