//! The NCCL release topo models, and every question whose answer depends on it.
//!
//! NCCL changed what it decides on the same machine many times between 2.18 and 2.30:
//! constants, path rules, NIC fusion, the search, the graph-dump format, the tuning
//! tables. A [`Release`] is chosen once, at the top (`--nccl-version`, else the default),
//! and passed down by value. Stages never compare versions themselves: they ask a
//! question here (`release.max_devs_per_nic()`, `release.dump_dialect()`), so the
//! boundaries of every behaviour live in this one file, each next to the release that
//! introduced it. Answers are small values or enums; the stage keeps the algorithm and
//! branches only where NCCL's algorithm itself differs.

use std::fmt;

/// One NCCL release (a `vX.Y.Z-1` tag of NVIDIA/nccl).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    pub major: u8,
    pub minor: u8,
    pub patch: u8,
}

/// Every release topo accepts, oldest first: the NCCL tags from 2.18.1 to 2.30.7.
pub const RELEASES: &[Release] = &[
    r(2, 18, 1),
    r(2, 18, 3),
    r(2, 18, 5),
    r(2, 18, 6),
    r(2, 19, 1),
    r(2, 19, 3),
    r(2, 19, 4),
    r(2, 20, 3),
    r(2, 20, 5),
    r(2, 21, 5),
    r(2, 22, 3),
    r(2, 23, 4),
    r(2, 24, 3),
    r(2, 25, 1),
    r(2, 26, 2),
    r(2, 26, 3),
    r(2, 26, 5),
    r(2, 26, 6),
    r(2, 27, 3),
    r(2, 27, 5),
    r(2, 27, 6),
    r(2, 27, 7),
    r(2, 28, 3),
    r(2, 28, 7),
    r(2, 28, 9),
    r(2, 29, 2),
    r(2, 29, 3),
    r(2, 29, 7),
    r(2, 30, 3),
    r(2, 30, 4),
    r(2, 30, 7),
];

/// The releases whose answers on the shared machines were computed by NCCL itself and
/// are checked exactly.
pub const CHECKED: &[Release] = &[r(2, 21, 5), r(2, 27, 5), r(2, 28, 9), r(2, 30, 7)];

const fn r(major: u8, minor: u8, patch: u8) -> Release {
    Release { major, minor, patch }
}

/// Why a version string is not a release topo models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not of the form X.Y.Z.
    Form(String),
    /// Well formed, but not a release topo knows.
    Unknown(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let range = format!("{} to {}", RELEASES[0], Release::NEWEST);
        match self {
            ParseError::Form(s) => write!(f, "'{s}' is not an NCCL version (X.Y.Z, e.g. 2.21.5); topo models {range}"),
            ParseError::Unknown(s) => write!(
                f,
                "NCCL {s} is not a release topo models; supported: {range} ({}), see `topo --version`",
                Release::list()
            ),
        }
    }
}

impl std::error::Error for ParseError {}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Default for Release {
    fn default() -> Release {
        Release::NEWEST
    }
}

/// How the graph dump (NCCL_GRAPH_DUMP_FILE) of a release looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpDialect {
    /// The graphs written, in order, as (graph, id written).
    pub graphs: &'static [(DumpGraph, i32)],
    /// Channel `<gpu>` elements carry `rank="N"` (2.30.3).
    pub gpu_rank: bool,
}

/// Which machines a change of behaviour can touch (for `topo diff` across releases).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Every machine.
    Any,
    /// Machines with network devices (or jobs of several nodes).
    Nets,
    /// Jobs of several nodes.
    MultiNode,
    /// GPUs behind NVSwitches.
    NvSwitch,
    /// Blackwell GPUs (compute capability 10.0 and up).
    Blackwell,
    /// Hopper and later GPUs.
    Hopper,
    /// GPUs joined to their CPU by C2C (Grace).
    C2c,
    /// Two CPU sockets or more.
    MultiSocket,
    /// Machines with AMD CPUs.
    Amd,
    /// Two GPUs behind NVSwitches.
    TwoGpuNvSwitch,
    /// A NIC whose guid is not written `0x...`.
    BareGuid,
}

/// One change of NCCL's decisions, as topo models it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Change {
    /// The first release that behaves the new way.
    #[serde(serialize_with = "as_text")]
    pub since: Release,
    pub scope: Scope,
    /// What changed, in words.
    pub text: &'static str,
}

fn as_text<S: serde::Serializer>(r: &Release, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(r)
}

/// Every change of behaviour topo models, oldest first. Each line belongs to a
/// predicate below (or a table it selects).
pub const CHANGES: &[Change] = &[
    Change { since: r(2, 19, 1), scope: Scope::Hopper, text: "Hopper search ladder inside the node gains 50 GB/s" },
    Change { since: r(2, 19, 3), scope: Scope::Hopper, text: "Hopper search ladder across nodes gains 22 GB/s" },
    Change { since: r(2, 21, 5), scope: Scope::Hopper, text: "Hopper search ladder inside the node gains 11 GB/s" },
    Change {
        since: r(2, 25, 1),
        scope: Scope::Blackwell,
        text: "Blackwell gets its own search ladders (before, it walked Hopper's)",
    },
    Change {
        since: r(2, 26, 2),
        scope: Scope::C2c,
        text: "NCCL_NET_GDR_C2C appears (default 0): GPUDirect RDMA to a NIC reached over C2C",
    },
    Change {
        since: r(2, 27, 3),
        scope: Scope::C2c,
        text: "NCCL_NET_GDR_C2C defaults to 1; NCCL_PXN_C2C appears (default 0)",
    },
    Change {
        since: r(2, 27, 3),
        scope: Scope::Blackwell,
        text: "Blackwell ladders gain 18 GB/s inside the node, start at 47.9 across nodes",
    },
    Change { since: r(2, 27, 5), scope: Scope::Blackwell, text: "Blackwell ladder across nodes starts at 48, 45.1" },
    Change {
        since: r(2, 27, 6),
        scope: Scope::Nets,
        text: "PXN is also used when the GPU's own path to the NIC is worse than PXN (before: worse than the PXN type)",
    },
    Change { since: r(2, 27, 6), scope: Scope::Blackwell, text: "Blackwell ladder across nodes gains 96 GB/s" },
    Change {
        since: r(2, 28, 3),
        scope: Scope::C2c,
        text: "NCCL_PXN_C2C defaults to 1: a C2C-attached GPU relays to its NIC (PXN)",
    },
    Change {
        since: r(2, 28, 7),
        scope: Scope::TwoGpuNvSwitch,
        text: "NVLink SHARP (NVLS) is set up with two GPUs (before: three)",
    },
    Change {
        since: r(2, 28, 7),
        scope: Scope::BareGuid,
        text: "a NIC guid without `0x` is read as hex (before, such NICs all looked like one ASIC and shared one channel's bandwidth)",
    },
    Change {
        since: r(2, 29, 2),
        scope: Scope::C2c,
        text: "P2C (C2C then PCIe) only towards a GPU's closest NICs; the default GDR level becomes P2C",
    },
    Change { since: r(2, 29, 2), scope: Scope::Blackwell, text: "Blackwell ladder inside the node gains 45 GB/s" },
    Change { since: r(2, 29, 7), scope: Scope::Blackwell, text: "Blackwell ladder across nodes gains 80 GB/s" },
    Change {
        since: r(2, 30, 3),
        scope: Scope::Nets,
        text: "a virtual NIC fuses up to 8 ports (before: 4); a PXN relay GPU must be able to use GPUDirect RDMA",
    },
    Change { since: r(2, 30, 3), scope: Scope::Blackwell, text: "Blackwell ladder across nodes gains 86 GB/s" },
    Change {
        since: r(2, 30, 7),
        scope: Scope::Nets,
        text: "each GPU starts at NIC (device mod GPUs per NIC group), spreading GPUs over their NICs",
    },
];

/// Which set of search speed ladders a release ships (`search.cc`), named by the
/// release that introduced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum SpeedTables {
    V2_18_1,
    V2_18_3,
    V2_19_1,
    V2_19_3,
    V2_21,
    V2_25,
    V2_27_3,
    V2_27_5,
    V2_27_6,
    V2_29_2,
    V2_29_7,
    V2_30_3,
}

/// The graphs a dump can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpGraph {
    Ring,
    Tree,
    CollNetDirect,
    CollNetChain,
    Nvls,
}

impl Release {
    /// The newest release topo models, and the default for files and fixtures.
    pub const NEWEST: Release = r(2, 30, 7);

    /// Reads `2.21.5` (a leading `v`, a `-1` tag suffix and a `+cuda…` build suffix are
    /// accepted, as logs and package names print them).
    pub fn parse(s: &str) -> Result<Release, ParseError> {
        let t = s.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let t = t.split('+').next().unwrap_or(t);
        let t = t.strip_suffix("-1").unwrap_or(t);
        let parts: Vec<&str> = t.split('.').collect();
        let num = |p: &str| -> Option<u8> {
            if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse().ok()
        };
        let [a, b, c] = parts[..] else { return Err(ParseError::Form(s.trim().to_string())) };
        let (Some(major), Some(minor), Some(patch)) = (num(a), num(b), num(c)) else {
            return Err(ParseError::Form(s.trim().to_string()));
        };
        let rel = r(major, minor, patch);
        if RELEASES.contains(&rel) { Ok(rel) } else { Err(ParseError::Unknown(rel.to_string())) }
    }

    /// NCCL's own number for it (`NCCL_VERSION_CODE`: 22105 for 2.21.5).
    pub fn code(self) -> u32 {
        self.major as u32 * 10000 + self.minor as u32 * 100 + self.patch as u32
    }

    /// Reads NCCL's version code (`ncclGetVersion`).
    pub fn from_code(code: u32) -> Result<Release, ParseError> {
        let rel = Release { major: (code / 10000) as u8, minor: (code / 100 % 100) as u8, patch: (code % 100) as u8 };
        if RELEASES.contains(&rel) { Ok(rel) } else { Err(ParseError::Unknown(rel.to_string())) }
    }

    /// Whether NCCL's own answers for this release were checked exactly.
    pub fn checked(self) -> bool {
        CHECKED.contains(&self)
    }

    /// One line on how far to trust the answers for this release.
    pub fn provenance(self) -> String {
        if self.checked() {
            format!("NCCL {self}: checked against NCCL's own answers")
        } else {
            format!("NCCL {self}: modelled from its source, not checked against reference answers")
        }
    }

    /// The supported releases, comma-separated, the checked ones marked with `*`.
    pub fn list() -> String {
        RELEASES
            .iter()
            .map(|r| if r.checked() { format!("{r}*") } else { r.to_string() })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The changes of behaviour between two releases (either order), oldest first.
    pub fn changes_between(self, other: Release) -> impl Iterator<Item = &'static Change> {
        let (lo, hi) = if self <= other { (self, other) } else { (other, self) };
        CHANGES.iter().filter(move |c| c.since > lo && c.since <= hi)
    }

    /// At least release `major.minor.patch` (the boundary a behaviour appeared in).
    const fn since(self, major: u8, minor: u8, patch: u8) -> bool {
        let a = (self.major as u32) << 16 | (self.minor as u32) << 8 | self.patch as u32;
        let b = (major as u32) << 16 | (minor as u32) << 8 | patch as u32;
        a >= b
    }

    // ---- NCCL_* variables -------------------------------------------------------------

    /// When the variable `name` is one topo reads that appeared after this release: the
    /// release that introduced it (NCCL ignores it before). `None` when this release
    /// reads it, or topo does not know it.
    pub fn variable_since(self, name: &str) -> Option<Release> {
        // The first tag whose source names the variable.
        const NEW: &[(&str, Release)] = &[
            ("NCCL_WORK_ARGS_BYTES", r(2, 22, 3)),
            ("NCCL_PAT_ENABLE", r(2, 23, 4)),
            ("NCCL_NET_MERGE_LEVEL", r(2, 24, 3)),
            ("NCCL_NET_FORCE_MERGE", r(2, 24, 3)),
            ("NCCL_NET_GDR_C2C", r(2, 26, 2)),
            ("NCCL_PXN_C2C", r(2, 27, 3)),
            ("NCCL_LL128_C2C", r(2, 27, 3)),
            ("NCCL_MNNVL_SCATTER_NETS_ENABLE", r(2, 27, 5)),
            ("NCCL_NETDEVS_POLICY", r(2, 28, 3)),
            ("NCCL_MNNVL_RAIL_PER_HOST", r(2, 28, 7)),
            ("NCCL_NET_GDR_MLOPART", r(2, 30, 7)),
            ("NCCL_NET_MERGE_POLICY", r(2, 30, 7)),
            ("NCCL_TOPO_SPLIT_MLOPART", r(2, 30, 7)),
        ];
        NEW.iter().find(|(n, since)| *n == name && self < *since).map(|&(_, since)| since)
    }

    // ---- graph dump -------------------------------------------------------------------

    /// The graph-dump format: 2.21 writes four graphs (ring, tree, one CollNet graph as
    /// id 2, NVLS as id 3); 2.22 adds CollNet direct after the tree, numbered 2 like
    /// the chain, and 2.23 renumbers it 4; 2.30.3 adds `rank`.
    pub fn dump_dialect(self) -> DumpDialect {
        use DumpGraph::*;
        const FOUR: &[(DumpGraph, i32)] = &[(Ring, 0), (Tree, 1), (CollNetChain, 2), (Nvls, 3)];
        const FIVE_22: &[(DumpGraph, i32)] = &[(Ring, 0), (Tree, 1), (CollNetDirect, 2), (CollNetChain, 2), (Nvls, 3)];
        const FIVE: &[(DumpGraph, i32)] = &[(Ring, 0), (Tree, 1), (CollNetDirect, 4), (CollNetChain, 2), (Nvls, 3)];
        let graphs = if !self.since(2, 22, 0) {
            FOUR
        } else if !self.since(2, 23, 0) {
            FIVE_22
        } else {
            FIVE
        };
        DumpDialect { graphs, gpu_rank: self.since(2, 30, 3) }
    }

    /// Whether the search makes a separate CollNet-direct graph (2.22); before, one
    /// CollNet graph (tree pattern) serves both algorithms.
    pub fn collnet_direct_graph(self) -> bool {
        self.since(2, 22, 0)
    }

    // ---- system -----------------------------------------------------------------------

    /// A NIC's guid is read as hex whatever its form (`strtoull`, 2.28.7); before, only
    /// as `0x...` (`sscanf "0x%lx"`), and a NIC without one took its dev as ASIC.
    pub fn net_guid_any_hex(self) -> bool {
        self.since(2, 28, 7)
    }

    // ---- paths ------------------------------------------------------------------------

    /// A GPU's path to a NIC becomes P2C (C2C to the CPU, then PCIe) only for the GPU's
    /// closest NICs (2.29.2); before, for every NIC so placed.
    pub fn p2c_local_nets_only(self) -> bool {
        self.since(2, 29, 2)
    }

    /// The default GDR level is P2C when NCCL_NET_GDR_C2C is on (2.29.2); before, it is
    /// PXB and a P2C distance counts as C2C.
    pub fn gdr_level_from_c2c(self) -> bool {
        self.since(2, 29, 2)
    }

    /// A GPU relays another's traffic to a NIC (PXN) only when it can use GPUDirect
    /// RDMA to that NIC itself (2.30.3).
    pub fn pxn_needs_gdr(self) -> bool {
        self.since(2, 30, 3)
    }

    /// PXN's last condition, "or our own path goes through the CPU", compares with PXN
    /// from 2.27.6; in 2.27.3 and 2.27.5 with the PXN type (P2C or PXB).
    pub fn pxn_avoids_cpu_past_pxn(self) -> bool {
        self.since(2, 27, 6)
    }

    /// NCCL_PXN_C2C's default: 0 in 2.27, 1 from 2.28.3 (the variable appears in 2.27.3).
    pub fn pxn_c2c_default(self) -> i64 {
        if self.since(2, 28, 3) { 1 } else { 0 }
    }

    /// NCCL_NET_GDR_C2C's default: 0 in 2.26 (where it appears), 1 from 2.27.3.
    pub fn gdr_c2c_default(self) -> i64 {
        if self.since(2, 27, 3) { 1 } else { 0 }
    }

    // ---- search -----------------------------------------------------------------------

    /// The speed ladders the search walks.
    pub fn speed_tables(self) -> SpeedTables {
        use SpeedTables::*;
        const STEPS: &[((u8, u8, u8), SpeedTables)] = &[
            ((2, 30, 3), V2_30_3),
            ((2, 29, 7), V2_29_7),
            ((2, 29, 2), V2_29_2),
            ((2, 27, 6), V2_27_6),
            ((2, 27, 5), V2_27_5),
            ((2, 27, 3), V2_27_3),
            ((2, 25, 0), V2_25),
            ((2, 21, 0), V2_21),
            ((2, 19, 3), V2_19_3),
            ((2, 19, 1), V2_19_1),
            ((2, 18, 3), V2_18_3),
        ];
        STEPS.iter().find(|((a, b, c), _)| self.since(*a, *b, *c)).map_or(V2_18_1, |s| s.1)
    }

    /// The fewest GPUs NVLink SHARP is set up for (`ncclNvlsInit`): three until 2.28.3,
    /// two from 2.28.7.
    pub fn nvls_min_gpus(self) -> usize {
        if self.since(2, 28, 7) { 2 } else { 3 }
    }

    // ---- NIC fusion -------------------------------------------------------------------

    /// The most physical ports one virtual NIC may fuse: `NCCL_NET_MAX_DEVS_PER_NIC` (4)
    /// until 2.30.0; from 2.30.3 the plugin's own limit, 8 for the built-in IB plugin.
    pub fn max_devs_per_nic(self) -> usize {
        if self.since(2, 30, 3) { 8 } else { 4 }
    }

    /// `ncclTopoGetLocalNet` starts a GPU's NETs at its device number taken modulo the
    /// GPUs sharing those NETs (2.30.7); before, at the device number itself (its low
    /// bits mirrored when the NET count is a power of two).
    pub fn local_net_start_wraps(self) -> bool {
        self.since(2, 30, 7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tags_and_refuses_the_rest() {
        assert_eq!(Release::parse("2.21.5"), Ok(r(2, 21, 5)));
        assert_eq!(Release::parse("v2.28.9-1"), Ok(r(2, 28, 9)));
        assert_eq!(Release::parse("2.21.5+cuda12.4"), Ok(r(2, 21, 5)));
        // 2.26.4 was never released: no nearest match.
        assert!(matches!(Release::parse("2.26.4"), Err(ParseError::Unknown(_))));
        assert!(matches!(Release::parse("2.17.1"), Err(ParseError::Unknown(_))));
        assert!(matches!(Release::parse("2.21"), Err(ParseError::Form(_))));
        assert!(matches!(Release::parse("2.21.x"), Err(ParseError::Form(_))));
        assert!(matches!(Release::parse(""), Err(ParseError::Form(_))));
        let msg = Release::parse("2.26.4").unwrap_err().to_string();
        assert!(msg.contains("2.18.1 to 2.30.7"), "{msg}");
    }

    #[test]
    fn list_is_sorted_and_codes_round_trip() {
        assert!(RELEASES.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(*RELEASES.last().unwrap(), Release::NEWEST);
        for &rel in RELEASES {
            assert_eq!(Release::from_code(rel.code()), Ok(rel));
            assert_eq!(Release::parse(&rel.to_string()), Ok(rel));
        }
        assert_eq!(r(2, 21, 5).code(), 22105);
        assert!(CHECKED.iter().all(|c| RELEASES.contains(c)));
    }

    #[test]
    fn changes_are_sorted_and_between_is_half_open() {
        assert!(CHANGES.windows(2).all(|w| w[0].since <= w[1].since));
        assert!(CHANGES.iter().all(|c| RELEASES.contains(&c.since)));
        let n = r(2, 28, 3).changes_between(r(2, 28, 7)).count();
        assert_eq!(n, r(2, 28, 7).changes_between(r(2, 28, 3)).count());
        assert!(r(2, 28, 3).changes_between(r(2, 28, 7)).all(|c| c.since == r(2, 28, 7)));
        assert_eq!(r(2, 30, 7).changes_between(r(2, 30, 7)).count(), 0);
    }

    /// 2.22.3 (init.cc) added the CollNet-direct graph as id 2; 2.23.4 moved it to id 4;
    /// 2.30.3 (graph/xml dump) added `rank`.
    #[test]
    fn dump_dialect_boundaries() {
        assert_eq!(r(2, 21, 5).dump_dialect().graphs.len(), 4);
        assert_eq!(r(2, 22, 3).dump_dialect().graphs[2], (DumpGraph::CollNetDirect, 2));
        assert_eq!(r(2, 23, 4).dump_dialect().graphs[2], (DumpGraph::CollNetDirect, 4));
        assert!(!r(2, 29, 7).dump_dialect().gpu_rank);
        assert!(r(2, 30, 3).dump_dialect().gpu_rank);
    }

    /// paths.cc at 2.29.2: ncclTopoComputePaths asks ncclTopoGetLocal for the P2C
    /// rewrite; ncclTopoCheckGdr's level follows NCCL_NET_GDR_C2C.
    #[test]
    fn p2c_boundaries() {
        assert!(!r(2, 28, 9).p2c_local_nets_only() && !r(2, 28, 9).gdr_level_from_c2c());
        assert!(r(2, 29, 2).p2c_local_nets_only() && r(2, 29, 2).gdr_level_from_c2c());
    }

    /// paths.cc ncclTopoComputePaths: PXN_C2C defaults to 0 at 2.27.5, 1 at 2.28.3;
    /// condition (4) reads `> PATH_PXN` from 2.27.6; the GDR check on the relay is 2.30.3's.
    #[test]
    fn pxn_boundaries() {
        assert_eq!(r(2, 27, 7).pxn_c2c_default(), 0);
        assert_eq!(r(2, 28, 3).pxn_c2c_default(), 1);
        assert_eq!(r(2, 26, 6).gdr_c2c_default(), 0);
        assert_eq!(r(2, 27, 3).gdr_c2c_default(), 1);
        assert!(!r(2, 27, 5).pxn_avoids_cpu_past_pxn() && r(2, 27, 6).pxn_avoids_cpu_past_pxn());
        assert!(!r(2, 29, 7).pxn_needs_gdr() && r(2, 30, 3).pxn_needs_gdr());
    }

    /// topo.cc ncclTopoAddNet: sscanf "0x%lx" at 2.28.3, strtoull at 2.28.7.
    #[test]
    fn guid_boundary() {
        assert!(!r(2, 28, 3).net_guid_any_hex() && r(2, 28, 7).net_guid_any_hex());
    }

    /// The first tag whose src/ names each variable (NCCL_PARAM or getenv).
    #[test]
    fn variables_by_release() {
        assert_eq!(r(2, 21, 5).variable_since("NCCL_NET_MERGE_LEVEL"), Some(r(2, 24, 3)));
        assert_eq!(r(2, 24, 3).variable_since("NCCL_NET_MERGE_LEVEL"), None);
        assert_eq!(r(2, 28, 3).variable_since("NCCL_MNNVL_RAIL_PER_HOST"), Some(r(2, 28, 7)));
        assert_eq!(r(2, 18, 1).variable_since("NCCL_P2P_LEVEL"), None);
        assert_eq!(r(2, 18, 1).variable_since("NCCL_NOT_A_THING"), None);
    }

    /// nvls.cc ncclNvlsInit: `gpuCount <= 2` turns NVLS off until 2.28.3, `< 2` from 2.28.7.
    #[test]
    fn nvls_gpu_count_boundary() {
        assert_eq!(r(2, 28, 3).nvls_min_gpus(), 3);
        assert_eq!(r(2, 28, 7).nvls_min_gpus(), 2);
    }

    /// topo.cc ncclTopoGetLocalNet: `dev % localGpuCount` first appears in 2.30.7.
    #[test]
    fn local_net_start_boundary() {
        assert!(!r(2, 30, 4).local_net_start_wraps());
        assert!(r(2, 30, 7).local_net_start_wraps());
    }

    /// nccl_net.h: NCCL_NET_MAX_DEVS_PER_NIC 4 until 2.30.0; 2.30.3 asks the plugin (8).
    #[test]
    fn vnic_size_boundary() {
        assert_eq!(r(2, 28, 9).max_devs_per_nic(), 4);
        assert_eq!(r(2, 30, 3).max_devs_per_nic(), 8);
    }
}
