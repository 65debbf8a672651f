//! topo: a machine's GPU/NIC topology, analysed the way NCCL analyses it.
//!
//! ```text
//!                        cli  (clap, terminal, stdout/stderr, exit codes, process env)
//!                         |
//!   input ---------------+---------------- render (pure: data -> text, JSON, DOT)
//!     |    discover -> check                  |
//!     |       |          \                    |
//!     +-- xml <-----------+-- model -> search -> tune -> algo -> bench      diff, log beside them
//!                              |
//!                   env (NCCL_* typed)   types (NCCL's vocabulary)   release   notice   error
//! ```
//!
//! Every input, a topology file, a built-in fixture, a `--root` tree or the live machine,
//! becomes the same XML tree ([`input`]) and flows through the same stages. Dependencies
//! point down only; stages return data and typed notices ([`notice`]) and never print.
//!
//! | module | what it holds |
//! |---|---|
//! | [`cli`] | the command layer: one file per subcommand, its arguments and its `run` |
//! | [`input`] | `--topo` / `--fixture` / `--root` / live detection -> XML tree + notices |
//! | [`discover`] | live detection from sysfs, /proc and NVML, as NCCL's own detection writes it |
//! | [`check`] | health checks of a detected machine (PCIe links, ACS, IOMMU, GDR, NVLink) |
//! | [`xml`] | NCCL's topology XML: reading, writing, linting |
//! | [`env`] | the NCCL_* variables, parsed once into typed groups |
//! | [`model`] | NCCL's node/link system, paths, P2P/SHM/NET and GDR decisions, trimming |
//! | [`search`] | NCCL's channel search: ring, tree, NVLS and CollNet graphs; the channels NCCL runs |
//! | [`tune`] | NCCL's performance model: algorithm and protocol per size |
//! | [`diff`] | topology dumps compared, device by device and NCCL result by result; fleets |
//! | [`log`] | NCCL debug logs read into facts (lines -> records -> facts, by record family), a topology rebuilt from them, held against the model |
//! | [`algo`] | collective programs (MSCCL-IR): read and written as the MSCCL runtimes do, checked, shown over a machine, made (MSCCLang's scheduler, HCCL's algorithms), planned and costed on its links |
//! | [`bench`] | collectives measured: allreduce through topo's own ring kernels, any MSCCL-IR program step by step, HCCL's plan as streams (host threads, or CUDA streams and events), against the model |
//! | [`render`] | every output format: tables, trees, JSON, nccl-tests reports; `render::dot`, one Graphviz picture a file |
//! | [`fixtures`] | the machines topo carries built in |
//! | [`release`] | the NCCL release modelled (`--nccl-version`), the change list, and every behaviour that depends on it, by the stage that asks |
//! | [`types`], [`notice`], [`error`], [`fileio`], [`ansi`] | the vocabulary, notices, errors, bounded file reading and terminal escapes every stage shares |

pub mod algo;
pub mod ansi;
pub mod bench;
pub mod check;
pub mod cli;
pub mod diff;
pub mod discover;
pub mod env;
pub mod error;
pub mod fileio;
pub mod fixtures;
pub mod input;
pub mod log;
pub mod model;
pub mod notice;
pub mod release;
pub mod render;
pub mod search;
pub mod tune;
pub mod types;
pub mod xml;

/// Skips of the unit tests go to the same tally as the integration tests' skips.
#[cfg(test)]
#[path = "../tests/common/skip.rs"]
mod test_skip;
