//! Collective programs: MSCCL-IR read and written as the MSCCL runtimes do, and checked.
//!
//! ```text
//!   lexer (the runtimes' tokenizer; XML when it refuses) -> read (typed Program + the
//!   runtime's rules) -> lower (steps as the interpreter runs them) -> sim (FIFOs,
//!   flags, symbolic data) -> verify (the collective's definition), race (happens-before)
//!                                  check: all of it, one Report       write: canonical text
//! ```
//!
//! | module | what it holds |
//! |---|---|
//! | [`program`] | the typed model: header, GPUs, thread blocks, steps, connections |
//! | [`runtime`] | msccl-executor-nccl, RCCL and microsoft/msccl: every limit and rule in which they differ |
//! | [`lexer`] | the runtimes' tokenizer, its quirks, `strtol`; a lenient XML reading after a refusal |
//! | [`read`] | elements and attributes into the model, with the runtime's refusals and silent misreadings |
//! | [`lower`] | nops folded into waits, `re` chains fused, the kernel's step numbering |
//! | [`make`] | `topo algo make`: algorithms traced into an instruction DAG, fused, scheduled into a program |
//! | [`sim`] | the Kahn-network run: FIFO depth, flags, symbolic chunk values; the smallest depth that completes |
//! | [`verify`] | chunk-level definitions of the collectives, in-place aliasing |
//! | [`race`] | happens-before (petgraph) and vector clocks: unordered accesses to one chunk |
//! | [`check`] | `topo algo check`: verdict, smallest depth, findings |
//! | [`cost`] | `topo algo cost` / `compare`: a timed run of a program over the machine's links |
//! | [`plan`] | `topo algo plan`: HCCL's view: algorithm per level, resources per rank, task lists per stream |
//! | [`show`] | `topo algo show`: thread blocks, connections, and the machine's paths under them |
//! | [`write`] | the canonical MSCCL-IR text |

pub mod check;
pub mod cost;
pub mod finding;
pub mod lexer;
pub mod lower;
pub mod make;
pub mod plan;
pub mod program;
pub mod race;
pub mod read;
pub mod runtime;
pub mod show;
pub mod sim;
pub mod verify;
pub mod write;

pub use check::{CheckOptions, Report, Verdict, check};
pub use finding::{Finding, Kind, Place};
pub use program::Program;
pub use runtime::Runtime;
