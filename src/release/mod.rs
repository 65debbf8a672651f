//! The NCCL release topo models, and every question whose answer depends on it.
//!
//! NCCL changed what it decides on the same machine many times between 2.18 and 2.30:
//! constants, path rules, NIC fusion, the search, the graph-dump format, the tuning
//! tables. A [`Release`] is chosen once, at the top (`--nccl-version`, else the default),
//! and passed down by value. Stages never compare versions themselves: they ask a
//! question here (`release.max_devs_per_nic()`, `release.dump_dialect()`), so the
//! boundaries of every behaviour live in this folder, each next to the release that
//! introduced it. Answers are small values or enums; the stage keeps the algorithm and
//! branches only where NCCL's algorithm itself differs.
//!
//! The folder: the release table and reading a version (`table.rs`), the change list
//! (`changes.rs`), then the answers grouped by the stage that asks: XML, detection and
//! variables (`xml.rs`), the model (`model.rs`), the search and channel setup
//! (`search.rs`), the tuning model (`tune.rs`), the graph dump (`dump.rs`).

mod changes;
mod dump;
mod model;
mod search;
mod table;
mod tune;
mod xml;

pub use changes::{CHANGES, Change, Scope};
pub use dump::{DumpDialect, DumpGraph};
pub use model::{C2cLinks, LocalCpuWalk, NicFusion, NvLinkTable, P2pDefault};
pub use search::{ComputeEnd, CrossNicRules, NvlsHeads, NvsNeighbours, RecNetStart, RingPairSwap, SpeedTables};
pub use table::{CHECKED, ParseError, RELEASES, Release};
pub use tune::{Ll128Rule, NvlsBwModel, RingBackup, TuningTables};
pub use xml::{DetectDialect, TrimRule, XmlLimits};

#[cfg(test)]
mod tests;
