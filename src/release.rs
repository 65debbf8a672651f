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
    /// Devices written `%#lx` as 64-bit ids, a GPU's with its system id, and an NVLS
    /// channel holding only its head GPU (2.21); before, `%d` device numbers and every GPU.
    pub hex_ids: bool,
    /// A channel's `<net>` hops are written for a multi-node job (`system->inter`,
    /// 2.28.7); before, when the system holds NET nodes, which the trim removes when
    /// every rank is local.
    pub nets_from_inter: bool,
}

/// How much topology XML a release holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XmlLimits {
    /// Elements in one rank's XML (`NCCL_TOPO_XML_MAX_NODES`; `MAX_NODES` before 2.21).
    pub max_nodes: usize,
    /// Children of one element (`MAX_SUBS`).
    pub max_subs: usize,
    /// Whether more children fail cleanly (2.21) rather than overrun memory.
    pub subs_checked: bool,
    /// Nodes of one type in the system NCCL builds (`NCCL_TOPO_MAX_NODES`).
    pub max_nodes_per_type: usize,
    /// Whether an attribute value too long for NCCL's 256-byte buffer fails the init
    /// (2.27.3) rather than being written past the buffer's end.
    pub values_checked: bool,
}

impl Default for XmlLimits {
    fn default() -> XmlLimits {
        Release::NEWEST.xml_limits()
    }
}

/// Which nodes swap ring channel pairs after the search (see [`Release::ring_pair_swap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingPairSwap {
    Never,
    /// Odd nodes, when the node count is even and the ring crosses NICs (crossNic 1 or 2).
    AnyCrossNicEvenNodes,
    /// Odd nodes, when the ring crosses NICs.
    AnyCrossNic,
    /// Odd nodes, when any rank's ring ended with crossNic 2 (the graphs' maximum).
    AllRanksTwo,
    /// Odd nodes whose own ring ended with crossNic 2.
    OwnTwo,
}

/// How a release's detection writes the topology XML (`NCCL_TOPO_DUMP_FILE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetectDialect {
    /// A new PCI child goes before the first sibling with a larger bus id (2.18.5);
    /// before, children are appended in the order they are found.
    pub sorted_children: bool,
    /// GPUs get a `<c2c>` element from NVML's C2C fields (2.19).
    pub c2c: bool,
    /// A `<cpu>` made by detection carries `host_hash` (2.21).
    pub cpu_host_hash: bool,
    /// Each rank detects its own GPU and the NICs, and the ranks' XMLs are fused in
    /// rank order (2.22); before, one pass fills every local GPU, then the NICs.
    pub per_rank_passes: bool,
    /// Broadcom PCIe switches get `<pcilink>` children from
    /// `/sys/kernel/pci_switch_link` (2.22).
    pub bcm_pcilinks: bool,
    /// Which elements the trim removes when nothing under them is kept.
    pub trim: TrimRule,
    /// `<net latency>` is written as an integer after `dev` (2.24); before, as `%f`
    /// after `port`.
    pub net_latency_int: bool,
    /// Every `<cpu>`'s `host_hash` is set to this host's, those of a seed file too
    /// (2.27); before, only CPUs detection makes get one.
    pub rewrite_host_hash: bool,
    /// Populated `<net>` elements carry `net="1"` (2.29.7).
    pub net_attr: bool,
    /// A GPU's PCI ids, link speed and width come from NVML (current generation and
    /// width, 2.30.7); before, from sysfs like any device (maximum speed and width).
    pub gpu_pci_from_nvml: bool,
    /// An NVLink remote NVML cannot name is written as `fffffff:ffff:ff` (2.30.7);
    /// before, as whatever NVML returned, lower-cased.
    pub nvlink_hidden_sentinel: bool,
    /// GPUs carry `mlopart` (2.30.7).
    pub mlopart: bool,
}

/// Which elements `ncclTopoTrimXml` removes when no element under them is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimRule {
    /// Any element left with no children (before 2.22).
    EmptyAny,
    /// `<pci>` and `<cpu>` (2.22 to 2.26).
    PciCpu,
    /// `<pci>`, `<cpu>`, `<nic>` and `<net>` (2.27).
    PciCpuNicNet,
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
    Change {
        since: r(2, 18, 3),
        scope: Scope::Any,
        text: "channels are duplicated by ncclTopoDupChannels' gate (intra speed 25, not sm 80+ under 50 with more than 4 channels); 2.18.1 never on GPUs newer than sm 90",
    },
    Change { since: r(2, 19, 1), scope: Scope::Hopper, text: "Hopper search ladder inside the node gains 50 GB/s" },
    Change {
        since: r(2, 19, 1),
        scope: Scope::Nets,
        text: "NCCL_CROSS_NIC=2 retries with crossNic 1 (2.18: with 2, which does not cross), and NCCL_CROSS_NIC=1 stays 1 through the relaxation (2.18 put 0 back)",
    },
    Change {
        since: r(2, 19, 1),
        scope: Scope::NvSwitch,
        text: "NVLS graphs: a third pass raises the speed between nodes (before: the speed within the node, like trees)",
    },
    Change {
        since: r(2, 19, 1),
        scope: Scope::NvSwitch,
        text: "NVLS bandwidth rated min(intra, inter) at 5/6 (before: like the other algorithms)",
    },
    Change {
        since: r(2, 19, 1),
        scope: Scope::C2c,
        text: "`<c2c>` is read: a GPU's C2C link to its CPU, as an NVLink until 2.25",
    },
    Change {
        since: r(2, 19, 1),
        scope: Scope::Amd,
        text: "AMD sockets are joined at 16 GB/s (before: at LOC_BW, as an unknown CPU)",
    },
    Change {
        since: r(2, 19, 1),
        scope: Scope::Nets,
        text: "a NET's best-path GPUs are tried from the channel's number on (2.18: in index order, those whose PCIe link has bandwidth left first)",
    },
    Change {
        since: r(2, 19, 3),
        scope: Scope::Any,
        text: "channels are duplicated before the second pass, which now also raises rings' speed (before: duplicated at the very end, rings never raised)",
    },
    Change {
        since: r(2, 19, 3),
        scope: Scope::NvSwitch,
        text: "behind NVSwitches the search tries a GPU's neighbours (next, previous) first, and a first channel skips the PCI order",
    },
    Change { since: r(2, 19, 3), scope: Scope::Hopper, text: "Hopper search ladder across nodes gains 22 GB/s" },
    Change {
        since: r(2, 20, 3),
        scope: Scope::MultiNode,
        text: "with an even node count, odd nodes swap ring channel pairs when the ring crosses NICs",
    },
    Change { since: r(2, 20, 3), scope: Scope::NvSwitch, text: "collective channels raised to the NVLS channel count" },
    Change {
        since: r(2, 20, 3),
        scope: Scope::Nets,
        text: "the IB plugin merges the two ports of one NIC (same PCI device and system guid) into one device `a+b`",
    },
    Change { since: r(2, 20, 3), scope: Scope::Hopper, text: "Hopper NVLink is 20.6 GB/s a link (before: 20)" },
    Change {
        since: r(2, 20, 3),
        scope: Scope::MultiNode,
        text: "a crossing graph (crossNic 1) pairs each odd channel with the one before: in by its way out, out by its way in; a graph that does not cross NICs no longer gets a 15% edge",
    },
    Change { since: r(2, 21, 5), scope: Scope::Hopper, text: "Hopper search ladder inside the node gains 11 GB/s" },
    Change {
        since: r(2, 21, 5),
        scope: Scope::NvSwitch,
        text: "behind NVSwitches the search tries only a GPU's neighbours (2.19.3: them first, then the others)",
    },
    Change {
        since: r(2, 21, 5),
        scope: Scope::MultiNode,
        text: "odd nodes swap ring channel pairs when the ring crosses NICs, whatever the node count",
    },
    Change {
        since: r(2, 21, 5),
        scope: Scope::Hopper,
        text: "tuning: Hopper gets its own LL ceilings; NVLS latency 25 us",
    },
    Change {
        since: r(2, 22, 3),
        scope: Scope::Any,
        text: "per-rank topology fusion: GPUs numbered in the order ranks fuse their trees (before: file order)",
    },
    Change {
        since: r(2, 22, 3),
        scope: Scope::C2c,
        text: "findLocalCpu follows only links to PCI switches and CPUs (before: any PCI link, so that a GPU under a switch no faster than its link up crashed NCCL)",
    },
    Change { since: r(2, 22, 3), scope: Scope::Any, text: "`<pcilink>` links between PCI switches are read" },
    Change {
        since: r(2, 22, 3),
        scope: Scope::Nets,
        text: "the IB plugin lists every port on its own when one- and two-port NICs mix",
    },
    Change {
        since: r(2, 22, 3),
        scope: Scope::MultiNode,
        text: "NVLS heads: NETs are tried until one yields a GPU not yet a head (before: only the first NET, heads may repeat); CollNet Direct gets a graph of its own",
    },
    Change {
        since: r(2, 23, 4),
        scope: Scope::Any,
        text: "tuning: Tree/Simple base latency 8.4 us and 4/14 us a hop (before 0 and 28); rings pay nNodes-1 network steps; PAT algorithm appears",
    },
    Change {
        since: r(2, 23, 4),
        scope: Scope::Any,
        text: "P2P level PXB for every CPU but AMD with two GPUs (before: SYS, PXB only on Intel/ARM/Zhaoxin)",
    },
    Change {
        since: r(2, 23, 4),
        scope: Scope::MultiNode,
        text: "NCCL_CROSS_NIC=2 keeps crossNic 2: only rings pair channels, and only rings and balanced trees retry crossing",
    },
    Change {
        since: r(2, 23, 4),
        scope: Scope::MultiNode,
        text: "NVLS: a NET whose GPU is already a head gives its bandwidth back (2.22.3 kept it)",
    },
    Change {
        since: r(2, 24, 3),
        scope: Scope::Nets,
        text: "NCCL fuses NIC ports into virtual NICs itself (before: the IB plugin merged two ports of one device)",
    },
    Change {
        since: r(2, 24, 3),
        scope: Scope::Nets,
        text: "a NIC node per PCI function and NUMA node (before: one per PCI device, without the function digit)",
    },
    Change {
        since: r(2, 25, 1),
        scope: Scope::Blackwell,
        text: "Blackwell gets its own search ladders (before, it walked Hopper's)",
    },
    Change { since: r(2, 25, 1), scope: Scope::Any, text: "64 channels (before 32)" },
    Change {
        since: r(2, 25, 1),
        scope: Scope::Blackwell,
        text: "tuning: Blackwell row of the tables, NVLS 32 channels on Blackwell",
    },
    Change {
        since: r(2, 25, 1),
        scope: Scope::Any,
        text: "the search's path types range over the machine's own paths (before: NVL/PIX to SYS); NVLS and CollNet Direct heads capped at their arity",
    },
    Change {
        since: r(2, 25, 1),
        scope: Scope::Blackwell,
        text: "Blackwell NVLink is 40 GB/s a link (before: Hopper's 20.6)",
    },
    Change {
        since: r(2, 26, 2),
        scope: Scope::MultiNode,
        text: "odd nodes swap ring channel pairs only when the ring ended with crossNic 2 (not 1)",
    },
    Change {
        since: r(2, 26, 2),
        scope: Scope::C2c,
        text: "NCCL_NET_GDR_C2C appears (default 0): GPUDirect RDMA to a NIC reached over C2C",
    },
    Change {
        since: r(2, 26, 2),
        scope: Scope::MultiSocket,
        text: "Sapphire/Emerald Rapids inter-socket bandwidth 22/40 GB/s (before 10)",
    },
    Change {
        since: r(2, 26, 2),
        scope: Scope::Any,
        text: "trees rated with the largest tree pattern of any node (before: rank 0's)",
    },
    Change {
        since: r(2, 26, 2),
        scope: Scope::C2c,
        text: "C2C is a link and path type of its own (before: an NVLink); findLocalCpu never walks back",
    },
    Change {
        since: r(2, 26, 2),
        scope: Scope::MultiSocket,
        text: "two NVLink islands joined by a slower link make rings ask for two channels",
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
    Change {
        since: r(2, 27, 3),
        scope: Scope::Any,
        text: "LL128 on for every GPU from Volta (before: a list of compute capabilities)",
    },
    Change { since: r(2, 27, 3), scope: Scope::NvSwitch, text: "NVLS AllGather/ReduceScatter rated per collective" },
    Change {
        since: r(2, 27, 3),
        scope: Scope::Any,
        text: "an XML attribute value of 254 bytes or more fails the init (before: written past a 256-byte buffer)",
    },
    Change {
        since: r(2, 27, 3),
        scope: Scope::C2c,
        text: "a GPU's path to a NIC over C2C then PCIe is P2C (before: PHB)",
    },
    Change {
        since: r(2, 27, 3),
        scope: Scope::MultiNode,
        text: "a channel starts from the GPUs ncclTopoGetLocal gives for its NET (before: the GPUs with the NET's best path)",
    },
    Change { since: r(2, 27, 5), scope: Scope::Blackwell, text: "Blackwell ladder across nodes starts at 48, 45.1" },
    Change { since: r(2, 27, 5), scope: Scope::Blackwell, text: "Blackwell NVLink is 40.1 GB/s a link" },
    Change {
        since: r(2, 27, 5),
        scope: Scope::C2c,
        text: "P2C is numbered before PXN (2.27.3: after): the search tries a GPU's own C2C-and-PCIe way to a NIC before a relay through a peer, and NCCL_NET_GDR_LEVEL=PXN takes P2C in",
    },
    Change {
        since: r(2, 27, 5),
        scope: Scope::MultiNode,
        text: "a channel tries its NET's own GPU first, and replays the last channel only when channels must be the same",
    },
    Change {
        since: r(2, 27, 6),
        scope: Scope::Nets,
        text: "PXN is also used when the GPU's own path to the NIC is worse than PXN (before: worse than the PXN type)",
    },
    Change { since: r(2, 27, 6), scope: Scope::Blackwell, text: "Blackwell ladder across nodes gains 96 GB/s" },
    Change {
        since: r(2, 28, 3),
        scope: Scope::MultiNode,
        text: "each odd node swaps ring channel pairs by its own ring's crossNic 2, not the job's",
    },
    Change {
        since: r(2, 28, 3),
        scope: Scope::C2c,
        text: "NCCL_PXN_C2C defaults to 1: a C2C-attached GPU relays to its NIC (PXN)",
    },
    Change {
        since: r(2, 28, 3),
        scope: Scope::NvSwitch,
        text: "NVLS tuning model rated at NVLS efficiency, needs two channels; collective channels no longer raised to the NVLS count",
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
    Change { since: r(2, 28, 7), scope: Scope::Blackwell, text: "tuning: Blackwell ring LL128 ceilings 73.4/34.6" },
    Change { since: r(2, 28, 9), scope: Scope::NvSwitch, text: "tuning: NVLS-tree network hop 20.9 us (before 14)" },
    Change {
        since: r(2, 29, 2),
        scope: Scope::C2c,
        text: "P2C (C2C then PCIe) only towards a GPU's closest NICs; the default GDR level becomes P2C",
    },
    Change { since: r(2, 29, 2), scope: Scope::Blackwell, text: "Blackwell ladder inside the node gains 45 GB/s" },
    Change {
        since: r(2, 29, 2),
        scope: Scope::Any,
        text: "a graph the search finds nothing for uses NETs picked for its first and last GPU (before: NET 0 both ways)",
    },
    Change { since: r(2, 29, 7), scope: Scope::Blackwell, text: "Blackwell ladder across nodes gains 80 GB/s" },
    Change { since: r(2, 29, 7), scope: Scope::Blackwell, text: "tuning: Blackwell ring LL128 ceiling 40" },
    Change {
        since: r(2, 30, 3),
        scope: Scope::Blackwell,
        text: "NVLS channels on Blackwell across nodes follow the nodes, GPUs a node and NIC speed: 24 (not 32) beyond two nodes with 400G NICs",
    },
    Change {
        since: r(2, 30, 3),
        scope: Scope::Any,
        text: "a GPU's physical device becomes a DEV node of its own: paths between GPUs count two hops more (one more to a NIC or CPU)",
    },
    Change {
        since: r(2, 30, 3),
        scope: Scope::Nets,
        text: "a virtual NIC fuses up to 8 ports (before: 4); a PXN relay GPU must be able to use GPUDirect RDMA",
    },
    Change { since: r(2, 30, 3), scope: Scope::Blackwell, text: "Blackwell ladder across nodes gains 86 GB/s" },
    Change {
        since: r(2, 30, 3),
        scope: Scope::Blackwell,
        text: "tuning: Blackwell NVLS-tree ceiling 80 beyond two nodes",
    },
    Change {
        since: r(2, 30, 7),
        scope: Scope::Nets,
        text: "each GPU starts at NIC (device mod GPUs per NIC group), spreading GPUs over their NICs",
    },
    Change {
        since: r(2, 30, 7),
        scope: Scope::Nets,
        text: "a NET's rail and plane attributes are read: a channel leaves by a NET of the rail and plane it came in by",
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

/// Which set of tuning constants a release ships (`tuning.cc`: base and per-hop
/// latencies, LL ceilings, per-channel ceilings), named by the release that introduced
/// it; the numbers live in `tune::constants`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum TuningTables {
    V2_18_1,
    V2_18_3,
    V2_19_1,
    V2_21,
    V2_23,
    V2_25,
    V2_28_3,
    V2_28_7,
    V2_28_9,
    V2_29_2,
    V2_29_7,
    V2_30_3,
}

/// How the tuning model rates NVLS and NVLS-tree bandwidth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NvlsBwModel {
    /// Like every other algorithm (the graph's intra bandwidth up to two nodes, inter
    /// beyond); `nvls_ratio` from bus to algorithm bandwidth for NVLS, `0.7 n / 2(n-1)`
    /// for NVLS tree; latency the base plus network hops only. AllReduce only.
    Plain { nvls_ratio: f64 },
    /// Per channel min(bwIntra, bwInter) for every collective (the tree halves the
    /// network beyond two nodes), no per-channel ceiling, 5/6 from bus to algorithm
    /// bandwidth, and the entry is rated even when the NVLS graph has no channel.
    MinIntraInter,
    /// As [`NvlsBwModel::MinIntraInter`], but AllGather and ReduceScatter get the
    /// other GPUs' share of NVLink and 90% of the network.
    PerCollective,
    /// NVLink at the generation's NVLS efficiency (AllReduce pipelines two
    /// operations), the NVLS-tree per-channel ceiling, `nRanks/nsteps` from bus to
    /// algorithm bandwidth, and nothing at all below two channels.
    Efficiency,
}

/// When LL128 is on by default (the "auto" value of NCCL_PROTO).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ll128Rule {
    /// Across nodes up to PXB (PXN on sm90+), NVB inside, GPUs of one compute
    /// capability, which must be one of the list.
    CompCaps(&'static [i32]),
    /// Across nodes up to PXB, or on sm90+ up to P2C with NCCL_LL128_C2C (PXN
    /// without); NVB inside; one compute capability, at least sm70.
    C2cOrPxn,
    /// Across nodes up to PXN on sm90+ with NCCL_LL128_C2C, else up to PXB; NVB inside;
    /// one compute capability (or, with `mixed_sm90`, any mix of sm90+), at least sm70.
    C2cPxnElsePxb { mixed_sm90: bool },
}

/// What the tuning model does for a collective left with no usable entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingBackup {
    /// Nothing: the collective keeps no entry.
    None,
    /// The ring gets its bandwidths back, every protocol.
    AllProtocols,
    /// The ring gets back the bandwidths of the protocols that were enabled for it.
    EnabledProtocols,
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

/// Who fuses the ports of one NIC into one network device, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NicFusion {
    /// Every port is its own device (no fusion anywhere).
    None,
    /// The built-in IB plugin pairs ports of one PCI device with the same system image
    /// guid (`NCCL_IB_MERGE_NICS`); with `mixed_unmerges`, a machine where some devices
    /// end up with one port and others with two is listed again unmerged.
    IbPorts { mixed_unmerges: bool },
    /// The core makes virtual NICs (`NCCL_NET_MERGE_LEVEL`, `NCCL_NET_FORCE_MERGE`).
    VirtualNics,
}

/// How `findLocalCpu` walks from a GPU to its CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalCpuWalk {
    /// Depth first through every PCI link, with no memory of where it came from: it
    /// takes each node's first PCI link and never returns if that leads back down.
    AnyPciLink,
    /// The same, following only links to PCI switches and CPUs.
    SwitchLinks,
    /// Up the tree, never back to the node it came from: always finds the CPU.
    Up,
}

/// What a `<c2c>` element (a GPU's chip-to-chip link to its CPU) becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum C2cLinks {
    /// Nothing: the element is not read.
    Ignored,
    /// An NVLink between the GPU and its CPU.
    AsNvLink,
    /// A C2C link (and C2C paths).
    C2c,
}

/// The per-link NVLink bandwidth table (`ncclTopoNVLinkBw`), named by the release that
/// introduced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum NvLinkTable {
    /// Hopper and later at 20 GB/s a link.
    V2_18,
    /// Hopper and later at 20.6.
    V2_20,
    /// Blackwell at 40.
    V2_25,
    /// Blackwell at 40.1.
    V2_27_5,
}

/// NCCL_P2P_LEVEL's default (`ncclTopoCheckP2p`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P2pDefault {
    /// SYS, but PXB on ARM, Intel and Zhaoxin CPUs.
    SysButPxbOnArmIntelZhaoxin,
    /// PXB, but SYS on AMD CPUs with at most two GPUs.
    PxbButSysOnSmallAmd,
}

/// What NCCL_CROSS_NIC means to the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossNicRules {
    /// 2.18: the graph starts with NCCL_CROSS_NIC as it is (2 read as 0); the relaxing
    /// step retries with the variable's value (1, or 2, which leaves by the way-in's
    /// port all the same) and otherwise puts 0 back, even when the variable is 1.
    Copy,
    /// A graph's crossNic is 0 or 1; NCCL_CROSS_NIC=2 searches with 0 first, then 1.
    /// Crossing lets a channel leave by any NET.
    ZeroThenOne,
    /// As [`CrossNicRules::ZeroThenOne`], and a crossing graph's odd channels pair with
    /// the channel before: in by the NET it left by, out by the NET it came in by (any
    /// pattern).
    ZeroThenOnePaired,
    /// crossNic 2 stays 2 in the graph and pairs channels only in rings; balanced trees
    /// may cross too (the retry with 2 is for rings and balanced trees only).
    RingPairs,
}

/// Which GPUs `ncclTopoSearchRecNet` starts a channel from, after a NET.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecNetStart {
    /// The last channel's first GPU again (whenever there is a last channel), then,
    /// for a first channel or when channels may differ, PCI order and the GPUs with the
    /// best path to the NET, rotated by the channel number.
    BestPaths,
    /// The replay as [`RecNetStart::BestPaths`]; then PCI order and the GPUs
    /// `ncclTopoGetLocal` gives for the NET (a NET without any is skipped, its
    /// bandwidth not given back).
    LocalGpus,
    /// Replay only when channels must be the same; otherwise as
    /// [`RecNetStart::LocalGpus`], the NET's own local GPU tried first.
    LocalGpuFirst,
}

/// How `ncclTopoCompute` ends (see [`Release::compute_end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputeEnd {
    /// Pass 2 raises the intra speed of every non-ring graph (NVLS too); channels are
    /// duplicated after it, for graphs not NVLS with intra speed at least 25 (sm 80 and
    /// older) or 50 (sm 90 and older).
    V2_18_1,
    /// As 2.18.1, with `ncclTopoDupChannels`' gate: not NVLS, intra speed at least 25,
    /// and not (sm over 80, intra under 50, more than 4 channels).
    V2_18_3,
    /// As 2.18.3; pass 2 leaves NVLS out, and a third pass raises NVLS's inter speed.
    V2_19_1,
    /// Channels duplicated at the end of pass 1; pass 2 raises rings (both speeds),
    /// NVLS (inter) and the others (intra).
    V2_19_3,
}

/// How the GPU sort treats GPUs behind NVSwitches (see [`Release::nvs_neighbours`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvsNeighbours {
    NotSpecial,
    /// The sorted list, with the neighbours moved to its front.
    First,
    /// The neighbours alone.
    Only,
}

/// How the NVLS and CollNet Direct searches pick a head for a channel from the NETs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvlsHeads {
    /// Only the first NET of the rotated list; its local GPU, even one already a head.
    FirstNet,
    /// NETs in turn until one gives a local GPU; a GPU already a head is passed over
    /// without the NET's bandwidth given back, and a NET without a local GPU still ends
    /// the loop.
    FirstNewHeadLeaky,
    /// NETs in turn until one gives a local GPU that is not yet a head.
    FirstNewHead,
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
    /// the chain, and 2.23 renumbers it 4; 2.30.3 adds `rank`. Device numbers are
    /// decimal before 2.21 (see [`DumpDialect`]).
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
        DumpDialect {
            graphs,
            gpu_rank: self.since(2, 30, 3),
            hex_ids: self.since(2, 21, 0),
            nets_from_inter: self.since(2, 28, 7),
        }
    }

    /// How much topology the release holds (xml.h, topo.h). Before 2.21 a document
    /// holds 1024 elements and an element 32 children, unchecked (more overruns the
    /// array); 2.21 sizes a rank's XML for 256 elements and fails above 128 children;
    /// 2.29.7 raises that to 640. Nodes of one type: 256, 576 from 2.27, 640 from 2.29.7.
    pub fn xml_limits(self) -> XmlLimits {
        let max_nodes_per_type = if !self.since(2, 27, 0) {
            256
        } else if !self.since(2, 29, 7) {
            576
        } else {
            640
        };
        let (max_nodes, max_subs, subs_checked) = if !self.since(2, 21, 0) {
            (1024, 32, false)
        } else if !self.since(2, 29, 7) {
            (256, 128, true)
        } else {
            (256, 640, true)
        };
        let values_checked = self.since(2, 27, 3);
        XmlLimits { max_nodes, max_subs, subs_checked, max_nodes_per_type, values_checked }
    }

    // ---- topology dump (NCCL_TOPO_DUMP_FILE, what `topo detect` writes) -------------------

    /// How the release detects a machine into topology XML and writes it (xml.cc
    /// `ncclTopoGetXmlFromSys`/`FromGpu`, topo.cc `ncclTopoGetSystem`/`ncclTopoFillNet`).
    pub fn detect_dialect(self) -> DetectDialect {
        let trim = if !self.since(2, 22, 0) {
            TrimRule::EmptyAny
        } else if !self.since(2, 27, 0) {
            TrimRule::PciCpu
        } else {
            TrimRule::PciCpuNicNet
        };
        DetectDialect {
            sorted_children: self.since(2, 18, 5),
            c2c: self.since(2, 19, 0),
            cpu_host_hash: self.since(2, 21, 0),
            per_rank_passes: self.since(2, 22, 0),
            bcm_pcilinks: self.since(2, 22, 0),
            trim,
            net_latency_int: self.since(2, 24, 0),
            rewrite_host_hash: self.since(2, 27, 0),
            net_attr: self.since(2, 29, 7),
            gpu_pci_from_nvml: self.since(2, 30, 7),
            nvlink_hidden_sentinel: self.since(2, 30, 7),
            mlopart: self.since(2, 30, 7),
        }
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

    /// A `<net>`'s `rail` and `plane` attributes are read (2.30.7); before, NETs have
    /// neither and the search never compares them.
    pub fn net_rails(self) -> bool {
        self.since(2, 30, 7)
    }

    /// Each local rank trims the topology to itself and the ranks' trees are fused in
    /// rank order (2.22.3); before, one tree holds every local GPU and is trimmed once,
    /// so nodes keep the file's order.
    pub fn per_rank_xml(self) -> bool {
        self.since(2, 22, 0)
    }

    /// Intel CPUs are told apart as Sapphire Rapids and Emerald Rapids (2.26.2), with
    /// their own inter-socket bandwidth; before, anything from model 0x55 is Skylake.
    pub fn intel_rapids_models(self) -> bool {
        self.since(2, 26, 0)
    }

    /// AMD sockets are joined at `AMD_BW` (2.19.1); before, at `LOC_BW`, as any CPU
    /// NCCL did not know.
    pub fn amd_inter_cpu_bw(self) -> bool {
        self.since(2, 19, 0)
    }

    /// The NVLink bandwidth table: Hopper's 20 becomes 20.6 in 2.20.3, Blackwell gets
    /// its own 40 in 2.25.1 and 40.1 in 2.27.5.
    pub fn nvlink_table(self) -> NvLinkTable {
        if self.since(2, 27, 5) {
            NvLinkTable::V2_27_5
        } else if self.since(2, 25, 0) {
            NvLinkTable::V2_25
        } else if self.since(2, 20, 0) {
            NvLinkTable::V2_20
        } else {
            NvLinkTable::V2_18
        }
    }

    /// How `findLocalCpu` walks: every PCI link until 2.21.5; only links to PCI switches
    /// and CPUs from 2.22.3; never back where it came from from 2.26.2.
    pub fn local_cpu_walk(self) -> LocalCpuWalk {
        if self.since(2, 26, 0) {
            LocalCpuWalk::Up
        } else if self.since(2, 22, 0) {
            LocalCpuWalk::SwitchLinks
        } else {
            LocalCpuWalk::AnyPciLink
        }
    }

    /// `<c2c>` is read from 2.19.1, as an NVLink to the CPU; LINK_C2C and PATH_C2C
    /// appear in 2.26.2.
    pub fn c2c_links(self) -> C2cLinks {
        if self.since(2, 26, 0) {
            C2cLinks::C2c
        } else if self.since(2, 19, 0) {
            C2cLinks::AsNvLink
        } else {
            C2cLinks::Ignored
        }
    }

    /// `<pcilink>` elements (links between PCI switches) are read (2.22.3).
    pub fn pci_links(self) -> bool {
        self.since(2, 22, 0)
    }

    /// A NIC node is known by its NUMA node and full bus id (2.24.3); before, by its
    /// bus id without the function digit, and every `<nic>` right under a `<cpu>` is the
    /// one NIC node 0.
    pub fn nic_id_by_numa(self) -> bool {
        self.since(2, 24, 0)
    }

    // ---- paths ------------------------------------------------------------------------

    /// `ncclTopoSetPaths` keeps the path of the better type, then more bandwidth, then
    /// fewer hops (2.30.7); before, it replaced a path by a faster one that was no
    /// longer, whatever the types.
    pub fn paths_type_first(self) -> bool {
        self.since(2, 30, 7)
    }

    /// PATH_P2C exists (2.27.3): a GPU's path to a NIC over C2C then PCIe is P2C.
    /// Before (2.26), that path stays PHB and the GDR check counts it as C2C itself.
    pub fn p2c_paths(self) -> bool {
        self.since(2, 27, 3)
    }

    /// NCCL_P2P_LEVEL's default: SYS (PXB on ARM, Intel, Zhaoxin) until 2.22.3; PXB (SYS
    /// on AMD with at most two GPUs) from 2.23.4.
    pub fn p2p_default(self) -> P2pDefault {
        if self.since(2, 23, 0) { P2pDefault::PxbButSysOnSmallAmd } else { P2pDefault::SysButPxbOnArmIntelZhaoxin }
    }

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

    /// NVLS AllGather runs whatever the element type and reduction (2.22; before, only
    /// where NVLS can reduce them).
    pub fn nvls_allgather_any_type(self) -> bool {
        self.since(2, 22, 0)
    }

    /// A GPU's physical device is a node of its own (DEV, joined to the GPU by a LOC
    /// link) from 2.30.3; before, the GPU node holds the PCIe and NVLink links itself,
    /// so NCCL's paths count two hops fewer between GPUs (one to a NIC or CPU). topo
    /// always builds DEV nodes (the decisions are the same) and reports paths as the
    /// release counts them.
    pub fn dev_nodes(self) -> bool {
        self.since(2, 30, 3)
    }

    /// A GPU relays another's traffic to a NIC (PXN) only when it can use GPUDirect
    /// RDMA to that NIC itself (2.30.3).
    pub fn pxn_needs_gdr(self) -> bool {
        self.since(2, 30, 3)
    }

    /// NCCL 2.27.3 numbers PATH_P2C after PATH_PXN (7 and 6); 2.27.5 swapped them, so
    /// there a GPU's P2C path to a NIC is preferred to a PXN relay, and the search,
    /// the GDR level and the LL128 rule compare them the other way.
    pub fn p2c_after_pxn(self) -> bool {
        self.since(2, 27, 3) && !self.since(2, 27, 5)
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

    /// The search's path types range over what the machine's paths span (2.25.1), and
    /// NVLS and CollNet Direct graphs are capped at their arity; before, GPU to GPU
    /// types run from NVL (LOC for one GPU) to SYS, GPU to NET from PIX to SYS, and the
    /// caps are the GPU count.
    pub fn search_types_from_paths(self) -> bool {
        self.since(2, 25, 0)
    }

    /// Two NVLink islands joined by a slower link make rings ask for two channels
    /// (`ncclTopoSplitNvLink`, 2.26.2).
    pub fn split_nvlink(self) -> bool {
        self.since(2, 26, 0)
    }

    /// What NCCL_CROSS_NIC means: 0/1 graphs tried in that order from 2.19.1 (2.18 is
    /// modelled the same), the odd channels paired from 2.20.3, ring-only pairs with
    /// crossNic kept at 2 from 2.23.4.
    pub fn cross_nic_rules(self) -> CrossNicRules {
        if self.since(2, 23, 0) {
            CrossNicRules::RingPairs
        } else if self.since(2, 20, 0) {
            CrossNicRules::ZeroThenOnePaired
        } else if self.since(2, 19, 0) {
            CrossNicRules::ZeroThenOne
        } else {
            CrossNicRules::Copy
        }
    }

    /// `ncclTopoCompareGraphs` gives a graph that does not cross NICs a 15% edge over
    /// one that does (until 2.19.4; 2.20.3 drops it).
    pub fn cross_nic_bonus(self) -> bool {
        !self.since(2, 20, 0)
    }

    /// How a channel starts after its NET: best paths with an unconditional replay until
    /// 2.26.6, `ncclTopoGetLocal` in 2.27.3, the NET's local GPU first from 2.27.5.
    pub fn rec_net_start(self) -> RecNetStart {
        if self.since(2, 27, 5) {
            RecNetStart::LocalGpuFirst
        } else if self.since(2, 27, 3) {
            RecNetStart::LocalGpus
        } else {
            RecNetStart::BestPaths
        }
    }

    /// How `ncclTopoCompute` ends: where channels are duplicated and what pass 2 raises.
    pub fn compute_end(self) -> ComputeEnd {
        if !self.since(2, 18, 3) {
            ComputeEnd::V2_18_1
        } else if !self.since(2, 19, 0) {
            ComputeEnd::V2_18_3
        } else if !self.since(2, 19, 3) {
            ComputeEnd::V2_19_1
        } else {
            ComputeEnd::V2_19_3
        }
    }

    /// How the GPU sort treats GPUs behind NVSwitches (`ncclTopoSearchNextGpuSort`):
    /// no differently until 2.19.1; the neighbours (next, and previous for rings and
    /// trees) moved to the front of the sorted list from 2.19.3; only the neighbours
    /// from 2.21.5.
    pub fn nvs_neighbours(self) -> NvsNeighbours {
        if !self.since(2, 19, 3) {
            NvsNeighbours::NotSpecial
        } else if !self.since(2, 21, 0) {
            NvsNeighbours::First
        } else {
            NvsNeighbours::Only
        }
    }

    /// A first channel from a NET tries PCI order even on a machine with NVSwitches
    /// (until 2.19.1); from 2.19.3 only without them.
    pub fn pci_order_with_nvs(self) -> bool {
        !self.since(2, 19, 3)
    }

    /// A NET's best-path GPUs are tried in index order, first those whose PCI link
    /// still has bandwidth left, then the others (2.18, "tryGpuBidir"); from 2.19.1 in
    /// one pass from the channel's number on.
    pub fn best_gpus_free_pci_first(self) -> bool {
        !self.since(2, 19, 0)
    }

    /// NVLS (and, from 2.22.3, CollNet Direct) heads: the first NET only until 2.21.5;
    /// 2.22.3 tries NETs until a new head, leaking the bandwidth of a NET whose GPU is
    /// already one; 2.23.4 gives it back.
    pub fn nvls_heads(self) -> NvlsHeads {
        if self.since(2, 23, 0) {
            NvlsHeads::FirstNewHead
        } else if self.since(2, 22, 0) {
            NvlsHeads::FirstNewHeadLeaky
        } else {
            NvlsHeads::FirstNet
        }
    }

    /// A graph the search found nothing for falls back to NETs `ncclTopoSelectNets`
    /// picks for the first and last GPU (2.29.2); before, to NET id 0 both ways.
    pub fn fallback_selects_nets(self) -> bool {
        self.since(2, 29, 2)
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

    /// Who fuses NIC ports: nobody before 2.20.3; the IB plugin from 2.20.3 (two ports at
    /// most, `NCCL_IB_MERGE_NICS`), which from 2.22.3 undoes it on a mix of single- and
    /// multi-port devices; the core's virtual NICs from 2.24.3.
    pub fn nic_fusion(self) -> NicFusion {
        if self.since(2, 24, 0) {
            NicFusion::VirtualNics
        } else if self.since(2, 20, 0) {
            NicFusion::IbPorts { mixed_unmerges: self.since(2, 22, 0) }
        } else {
            NicFusion::None
        }
    }

    /// `ncclTopoGetLocalNet` starts a GPU's NETs at its device number taken modulo the
    /// GPUs sharing those NETs (2.30.7); before, at the device number itself (its low
    /// bits mirrored when the NET count is a power of two).
    pub fn local_net_start_wraps(self) -> bool {
        self.since(2, 30, 7)
    }

    // ---- tuning (ncclTopoTuneModel, tuning.cc) --------------------------------------

    /// The constant tables of the tuning model: 2.18.3 adds per-scale LL128 ceilings;
    /// 2.19 moves CollNet and NVLS latency to hops; 2.21 gives Hopper its own LL row and
    /// NVLS 25 us; 2.23 retunes Tree/Simple; 2.25 adds the Blackwell row; 2.28.3 the
    /// NVLS-tree ceilings; 2.28.7, 2.29.2 and 2.29.7 move Blackwell's ring LL128 ceiling;
    /// 2.28.9 the NVLS-tree network hop and 2.30.3 Blackwell's NVLS-tree ceiling.
    pub fn tuning_tables(self) -> TuningTables {
        use TuningTables::*;
        const STEPS: &[((u8, u8, u8), TuningTables)] = &[
            ((2, 30, 3), V2_30_3),
            ((2, 29, 7), V2_29_7),
            ((2, 29, 2), V2_29_2),
            ((2, 28, 9), V2_28_9),
            ((2, 28, 7), V2_28_7),
            ((2, 28, 3), V2_28_3),
            ((2, 25, 0), V2_25),
            ((2, 23, 0), V2_23),
            ((2, 21, 0), V2_21),
            ((2, 19, 1), V2_19_1),
            ((2, 18, 3), V2_18_3),
        ];
        STEPS.iter().find(|((a, b, c), _)| self.since(*a, *b, *c)).map_or(V2_18_1, |s| s.1)
    }

    /// The PAT algorithm exists (2.23); before, NCCL knows six algorithms.
    pub fn has_pat(self) -> bool {
        self.since(2, 23, 0)
    }

    /// PAT's share of the tree graph's bandwidth: 85% in 2.23, 75% from 2.24.
    pub fn pat_bw_share(self) -> f64 {
        if self.since(2, 24, 0) { 0.75 } else { 0.85 }
    }

    /// PAT needs sm60 or newer (2.26); before, any GPU may run it.
    pub fn pat_needs_sm60(self) -> bool {
        self.since(2, 26, 0)
    }

    /// A ring AllReduce crosses the network `2 * nNodes` times (other collectives
    /// `nNodes - 1`) until 2.22; from 2.23 `2 * (nNodes - 1)` times.
    pub fn ring_net_steps_close_the_ring(self) -> bool {
        !self.since(2, 23, 0)
    }

    /// With one rank per node every algorithm pays the tree's network hop (2.23);
    /// before, each its own.
    pub fn one_ppn_pays_tree_net_hop(self) -> bool {
        self.since(2, 23, 0)
    }

    /// Ring LL128's share of the links with fewer than two ranks per node: 70% until
    /// 2.22, then the usual 92%.
    pub fn ring_ll128_share_below_2_ppn(self) -> f64 {
        if self.since(2, 23, 0) { 0.92 } else { 0.7 }
    }

    /// How NVLS and NVLS-tree bandwidth is rated: like the other algorithms (2.18),
    /// min(intra, inter) (2.19), per collective (2.27.3), at NVLS efficiency (2.28.3).
    pub fn nvls_bw_model(self) -> NvlsBwModel {
        if !self.since(2, 18, 3) {
            NvlsBwModel::Plain { nvls_ratio: 0.75 }
        } else if !self.since(2, 19, 0) {
            NvlsBwModel::Plain { nvls_ratio: 5.0 / 6.0 }
        } else if self.since(2, 28, 3) {
            NvlsBwModel::Efficiency
        } else if self.since(2, 27, 3) {
            NvlsBwModel::PerCollective
        } else {
            NvlsBwModel::MinIntraInter
        }
    }

    /// NVLS runs AllGather and ReduceScatter (2.19); before, AllReduce only.
    pub fn nvls_ag_rs_rated(self) -> bool {
        self.since(2, 19, 0)
    }

    /// CollNet direct runs AllGather and ReduceScatter (2.20); before, AllReduce only.
    pub fn collnet_direct_ag_rs_rated(self) -> bool {
        self.since(2, 20, 0)
    }

    /// The arity serialisation CollNet direct pays per local GPU: 0.5 us in 2.18, 0.4 us
    /// from 2.19.
    pub fn collnet_direct_arity_us(self) -> f64 {
        if self.since(2, 19, 0) { 0.4 } else { 0.5 }
    }

    /// Ring LL gets a quarter of the links on several nodes or for AllReduce and Reduce,
    /// a third otherwise, until 2.20; half from 2.21.
    pub fn ring_ll_quarter_or_third(self) -> bool {
        !self.since(2, 21, 0)
    }

    /// A plain TREE pattern (neither split nor balanced) costs the tree 15% (2.18.3).
    pub fn plain_tree_penalty(self) -> bool {
        self.since(2, 18, 3)
    }

    /// AllGather and ReduceScatter bandwidths of every algorithm but the ring are
    /// already algorithm bandwidths (2.23); before, only CollNet direct's.
    pub fn alg_bw_for_non_ring_ag_rs(self) -> bool {
        self.since(2, 23, 0)
    }

    /// CollNet direct AllGather/ReduceScatter run at `ppn * min(bwIntra, 0.9 bwInter)`,
    /// and NVLS and CollNet direct need a CollNet head for every local GPU (2.27.3);
    /// before, `ppn * bwIntra` corrected between 95% (1 ppn) and 85% (8 ppn), the heads
    /// check for CollNet direct only.
    pub fn collnet_ag_rs_capped_by_network(self) -> bool {
        self.since(2, 27, 3)
    }

    /// The tree's 15% penalty for a plain TREE pattern reads the largest pattern of
    /// any node (`maxTreePattern`, 2.26); before, rank 0's own tree graph.
    pub fn tree_penalty_reads_max_pattern(self) -> bool {
        self.since(2, 26, 0)
    }

    /// When LL128 is on by default: a list of compute capabilities until 2.26 (sm100
    /// and sm120 join in 2.25), NCCL_LL128_C2C from 2.27.3 (read the other way round
    /// from 2.27.5), mixed sm90+ GPUs from 2.30.3.
    pub fn ll128_rule(self) -> Ll128Rule {
        if self.since(2, 30, 3) {
            Ll128Rule::C2cPxnElsePxb { mixed_sm90: true }
        } else if self.since(2, 27, 5) {
            Ll128Rule::C2cPxnElsePxb { mixed_sm90: false }
        } else if self.since(2, 27, 3) {
            Ll128Rule::C2cOrPxn
        } else if self.since(2, 25, 0) {
            Ll128Rule::CompCaps(&[70, 80, 90, 100, 120])
        } else {
            Ll128Rule::CompCaps(&[70, 80, 90])
        }
    }

    /// LL128 may cross NVLink through another GPU (NVB) inside the node (2.18.3);
    /// before, direct NVLink only.
    pub fn ll128_through_nvb(self) -> bool {
        self.since(2, 18, 3)
    }

    /// NCCL_ALGO never turns the ring off for collectives other than AllReduce (2.18;
    /// 2.19 has the ring backup instead).
    pub fn ring_never_off_outside_allreduce(self) -> bool {
        !self.since(2, 19, 0)
    }

    /// NCCL_ALGO and NCCL_PROTO take per-collective entries (`allreduce:tree;...`) and
    /// refuse unknown names (2.24); before, one list for every collective whose unknown
    /// names are ignored.
    pub fn algo_proto_per_collective(self) -> bool {
        self.since(2, 24, 0)
    }

    /// Without CollNet, a NCCL_ALGO that leaves none of Ring, Tree, NVLS and NVLS tree
    /// gets Ring and Tree back (until 2.23).
    pub fn algo_falls_back_to_ring_tree(self) -> bool {
        !self.since(2, 24, 0)
    }

    /// What the model does for a collective whose every entry ended disabled: the
    /// ring comes back (2.19), only with its enabled protocols (2.22), not at all
    /// from 2.24.
    pub fn ring_backup(self) -> RingBackup {
        if self.since(2, 24, 0) || !self.since(2, 19, 0) {
            RingBackup::None
        } else if self.since(2, 22, 0) {
            RingBackup::EnabledProtocols
        } else {
            RingBackup::AllProtocols
        }
    }

    // ---- channels (ncclTopoPostset, ncclNvlsInit) ----------------------------------------
    /// Which nodes swap ring channel pairs (connect.cc `ncclTopoPostset`, "alternate
    /// rings to avoid crossing rails"): none before 2.20.3; odd nodes of an even node
    /// count when the ring crosses NICs at all (2.20.3); odd nodes when it crosses NICs
    /// (2.21); only when the (all-ranks) ring ended with crossNic 2 (2.26); each node by
    /// its own ring's crossNic 2 (2.28.3). Always with an even channel count.
    pub fn ring_pair_swap(self) -> RingPairSwap {
        if !self.since(2, 20, 3) {
            RingPairSwap::Never
        } else if !self.since(2, 21, 0) {
            RingPairSwap::AnyCrossNicEvenNodes
        } else if !self.since(2, 26, 0) {
            RingPairSwap::AnyCrossNic
        } else if !self.since(2, 28, 0) {
            RingPairSwap::AllRanksTwo
        } else {
            RingPairSwap::OwnTwo
        }
    }

    /// `MAXCHANNELS`: 32 until 2.24, 64 from 2.25 (also the search's: rings get half,
    /// and the NET and GPU choices loop over this many channels).
    pub fn max_channels(self) -> usize {
        if self.since(2, 25, 0) { 64 } else { 32 }
    }

    /// Multi-node rings faster than 45 GB/s double their channels on sm90 (`==`) until
    /// 2.24, on sm90 and newer from 2.25.
    pub fn doubles_multi_node_channels(self, min_cc: i32) -> bool {
        if self.since(2, 25, 0) { min_cc >= 90 } else { min_cc == 90 }
    }

    /// Whether the multi-node doubling still applies to `channels` channels: while
    /// under 16 (2.20), before while the double fits in MAXCHANNELS.
    pub fn doubling_room(self, channels: usize) -> bool {
        if self.since(2, 20, 0) { channels < 16 } else { 2 * channels <= self.max_channels() }
    }

    /// The collective channels are raised to the NVLS channel count (2.20 to 2.27).
    pub fn coll_channels_follow_nvls(self) -> bool {
        self.since(2, 20, 0) && !self.since(2, 28, 3)
    }

    /// On sm100+ GPUs across nodes the NVLS channels follow the node count, the GPUs a
    /// node and the slowest NIC (`ncclNvlsTreeSm100Tuning`, 2.30.3).
    pub fn nvls_sm100_tuning(self) -> bool {
        self.since(2, 30, 3)
    }

    /// NVLS channels when NCCL_NVLS_NCHANNELS is unset: 16 until 2.24; rank 0's sm100+
    /// GPU 32 (2.25), 24 on a single node (2.27).
    pub fn nvls_default_channels(self, cc: i32, multi_node: bool) -> usize {
        if cc >= 100 && self.since(2, 27, 0) {
            if multi_node { 32 } else { 24 }
        } else if cc >= 100 && self.since(2, 25, 0) {
            32
        } else {
            16
        }
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

    /// search.cc ncclTopoCompute: dup gate by sm at 2.18.1, ncclTopoDupChannels' gate at
    /// 2.18.3, pass 3 for NVLS at 2.19.1, dup at the end of pass 1 and ring raise at 2.19.3.
    #[test]
    fn compute_end_boundaries() {
        use ComputeEnd::*;
        let e = |a, b, c| r(a, b, c).compute_end();
        assert_eq!((e(2, 18, 1), e(2, 18, 3), e(2, 18, 6)), (V2_18_1, V2_18_3, V2_18_3));
        assert_eq!((e(2, 19, 1), e(2, 19, 3), e(2, 30, 7)), (V2_19_1, V2_19_3, V2_19_3));
    }

    /// search.cc: no NVS neighbours and PCI order with NVSwitches at 2.19.1, neighbours
    /// first at 2.19.3 (to 2.20.5), neighbours only at 2.21.5; tryGpuBidir at 2.18.6,
    /// gone at 2.19.1.
    #[test]
    fn search_start_boundaries() {
        use NvsNeighbours::*;
        assert_eq!((r(2, 19, 1).nvs_neighbours(), r(2, 19, 3).nvs_neighbours()), (NotSpecial, First));
        assert_eq!((r(2, 20, 5).nvs_neighbours(), r(2, 21, 5).nvs_neighbours()), (First, Only));
        assert!(r(2, 19, 1).pci_order_with_nvs() && !r(2, 19, 3).pci_order_with_nvs());
        assert!(r(2, 18, 6).best_gpus_free_pci_first() && !r(2, 19, 1).best_gpus_free_pci_first());
    }

    /// topo.h: PATH_PXN 6 and PATH_P2C 7 at 2.27.3; P2C 6, PXN 7 from 2.27.5.
    #[test]
    fn p2c_pxn_order_boundaries() {
        assert!(r(2, 27, 3).p2c_after_pxn());
        assert!(!r(2, 26, 6).p2c_after_pxn() && !r(2, 27, 5).p2c_after_pxn());
        use crate::types::PathType;
        assert!(PathType::P2c.rank(true) > PathType::Pxn.rank(true));
        assert!(PathType::P2c.rank(false) < PathType::Pxn.rank(false));
    }

    /// connect.cc ncclTopoPostset at each tag: no swap to 2.19.4; `crossNic &&
    /// nNodes%2==0` at 2.20.3; `crossNic` at 2.21.5 to 2.25.1; `crossNic == 2` at 2.26.2
    /// to 2.27.7; per rank `crossNicRing == 2` from 2.28.3.
    #[test]
    fn ring_pair_swap_boundaries() {
        use RingPairSwap::*;
        let s = |a, b, c| r(a, b, c).ring_pair_swap();
        assert_eq!((s(2, 19, 4), s(2, 20, 3)), (Never, AnyCrossNicEvenNodes));
        assert_eq!((s(2, 20, 5), s(2, 21, 5)), (AnyCrossNicEvenNodes, AnyCrossNic));
        assert_eq!((s(2, 25, 1), s(2, 26, 2)), (AnyCrossNic, AllRanksTwo));
        assert_eq!((s(2, 27, 7), s(2, 28, 3)), (AllRanksTwo, OwnTwo));
    }

    /// xml.h: MAX_SUBS 32 and MAX_NODES 1024 until 2.20.5; 256 elements and 128
    /// children (checked) at 2.21.5; 640 children at 2.29.7 (2.29.3 still 128).
    /// topo.h NCCL_TOPO_MAX_NODES: 256 until 2.26.6, 576 at 2.27.3, 640 at 2.29.7.
    #[test]
    fn xml_limit_boundaries() {
        assert_eq!((r(2, 20, 5).xml_limits().max_subs, r(2, 20, 5).xml_limits().max_nodes), (32, 1024));
        assert!(!r(2, 20, 5).xml_limits().subs_checked && r(2, 21, 5).xml_limits().subs_checked);
        assert_eq!((r(2, 21, 5).xml_limits().max_subs, r(2, 21, 5).xml_limits().max_nodes), (128, 256));
        assert_eq!(r(2, 29, 3).xml_limits().max_subs, 128);
        assert_eq!(r(2, 29, 7).xml_limits().max_subs, 640);
        let per_type = |a, b, c| r(a, b, c).xml_limits().max_nodes_per_type;
        assert_eq!((per_type(2, 26, 6), per_type(2, 27, 3)), (256, 576));
        assert_eq!((per_type(2, 29, 3), per_type(2, 29, 7)), (576, 640));
    }

    /// xml.cc: sorted PCI insertion at 2.18.5, `<c2c>` at 2.19.3, `host_hash` at
    /// 2.21.5, per-rank XML fused and `<pcilink>` and the pci/cpu trim at 2.22.3, integer
    /// latency at 2.24.3, nic/net trim and host-hash rewrite at 2.27.3, `net="1"` at
    /// 2.29.7 (not 2.29.2), NVML-filled GPU PCI attributes and `mlopart` at 2.30.7.
    #[test]
    fn detect_dialect_boundaries() {
        let d = |a, b, c| r(a, b, c).detect_dialect();
        assert!(!d(2, 18, 3).sorted_children && d(2, 18, 5).sorted_children);
        assert!(!d(2, 18, 5).c2c && d(2, 19, 3).c2c);
        assert!(!d(2, 20, 5).cpu_host_hash && d(2, 21, 5).cpu_host_hash);
        assert!(!d(2, 21, 5).per_rank_passes && d(2, 22, 3).per_rank_passes);
        assert!(!d(2, 21, 5).bcm_pcilinks && d(2, 22, 3).bcm_pcilinks);
        assert_eq!((d(2, 21, 5).trim, d(2, 22, 3).trim), (TrimRule::EmptyAny, TrimRule::PciCpu));
        assert_eq!((d(2, 26, 6).trim, d(2, 27, 3).trim), (TrimRule::PciCpu, TrimRule::PciCpuNicNet));
        assert!(!d(2, 23, 4).net_latency_int && d(2, 24, 3).net_latency_int);
        assert!(!d(2, 26, 6).rewrite_host_hash && d(2, 27, 3).rewrite_host_hash);
        assert!(!d(2, 29, 2).net_attr && d(2, 29, 7).net_attr);
        let (old, new) = (d(2, 30, 4), d(2, 30, 7));
        assert!(!old.gpu_pci_from_nvml && !old.nvlink_hidden_sentinel && !old.mlopart);
        assert!(new.gpu_pci_from_nvml && new.nvlink_hidden_sentinel && new.mlopart);
    }

    /// paths.cc ncclTopoSetPaths: the type-first update is 2.30.7's.
    #[test]
    fn path_update_boundary() {
        assert!(!r(2, 30, 4).paths_type_first() && r(2, 30, 7).paths_type_first());
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

    /// net_ib.cc: NCCL_IB_MERGE_NICS appears in 2.20.3, the mixed-port check in 2.22.3;
    /// topo.cc ncclTopoMakeVNics takes over in 2.24.3.
    #[test]
    fn nic_fusion_boundaries() {
        assert_eq!(r(2, 19, 4).nic_fusion(), NicFusion::None);
        assert_eq!(r(2, 20, 3).nic_fusion(), NicFusion::IbPorts { mixed_unmerges: false });
        assert_eq!(r(2, 21, 5).nic_fusion(), NicFusion::IbPorts { mixed_unmerges: false });
        assert_eq!(r(2, 22, 3).nic_fusion(), NicFusion::IbPorts { mixed_unmerges: true });
        assert_eq!(r(2, 23, 4).nic_fusion(), NicFusion::IbPorts { mixed_unmerges: true });
        assert_eq!(r(2, 24, 3).nic_fusion(), NicFusion::VirtualNics);
    }

    /// topo.cc ncclTopoGetSystem: one FillGpu per local rank into one tree until 2.21.5;
    /// each rank's own tree, gathered and fused, from 2.22.3.
    #[test]
    fn per_rank_xml_boundary() {
        assert!(!r(2, 21, 5).per_rank_xml() && r(2, 22, 3).per_rank_xml());
    }

    /// topo.h/topo.cc: SRP_QPI_BW and ERP_QPI_BW with their models in 2.26.2; AMD_BW in
    /// 2.19.1; SM90_NVLINK_BW 20.6 in 2.20.3, SM100_NVLINK_BW 40.0 in 2.25.1 and 40.1 in
    /// 2.27.5.
    #[test]
    fn system_constant_boundaries() {
        assert!(!r(2, 25, 1).intel_rapids_models() && r(2, 26, 2).intel_rapids_models());
        assert!(!r(2, 18, 6).amd_inter_cpu_bw() && r(2, 19, 1).amd_inter_cpu_bw());
        assert_eq!(r(2, 19, 4).nvlink_table(), NvLinkTable::V2_18);
        assert_eq!(r(2, 20, 3).nvlink_table(), NvLinkTable::V2_20);
        assert_eq!(r(2, 24, 3).nvlink_table(), NvLinkTable::V2_20);
        assert_eq!(r(2, 25, 1).nvlink_table(), NvLinkTable::V2_25);
        assert_eq!(r(2, 27, 3).nvlink_table(), NvLinkTable::V2_25);
        assert_eq!(r(2, 27, 5).nvlink_table(), NvLinkTable::V2_27_5);
    }

    /// topo.cc findLocalCpu: any PCI link at 2.21.5, PCI/CPU targets at 2.22.3, the
    /// `from` argument at 2.26.2; ncclTopoAddC2c at 2.19.1, LINK_C2C at 2.26.2;
    /// ncclTopoAddPciLinks at 2.22.3; NCCL_TOPO_LOCAL_NIC_ID at 2.24.3; ncclTopoAddNet
    /// reads rail and plane at 2.30.7.
    #[test]
    fn system_walk_boundaries() {
        assert!(!r(2, 30, 4).net_rails() && r(2, 30, 7).net_rails());
        assert_eq!(r(2, 21, 5).local_cpu_walk(), LocalCpuWalk::AnyPciLink);
        assert_eq!(r(2, 22, 3).local_cpu_walk(), LocalCpuWalk::SwitchLinks);
        assert_eq!(r(2, 25, 1).local_cpu_walk(), LocalCpuWalk::SwitchLinks);
        assert_eq!(r(2, 26, 2).local_cpu_walk(), LocalCpuWalk::Up);
        assert_eq!(r(2, 18, 6).c2c_links(), C2cLinks::Ignored);
        assert_eq!(r(2, 19, 1).c2c_links(), C2cLinks::AsNvLink);
        assert_eq!(r(2, 25, 1).c2c_links(), C2cLinks::AsNvLink);
        assert_eq!(r(2, 26, 2).c2c_links(), C2cLinks::C2c);
        assert!(!r(2, 21, 5).pci_links() && r(2, 22, 3).pci_links());
        assert!(!r(2, 23, 4).nic_id_by_numa() && r(2, 24, 3).nic_id_by_numa());
    }

    /// topo.h: PATH_P2C at 2.27.3; paths.cc ncclTopoCheckP2p: the PXB default with the
    /// AMD exception at 2.23.4.
    #[test]
    fn path_boundaries() {
        assert!(!r(2, 26, 6).p2c_paths() && r(2, 27, 3).p2c_paths());
        assert_eq!(r(2, 22, 3).p2p_default(), P2pDefault::SysButPxbOnArmIntelZhaoxin);
        assert_eq!(r(2, 23, 4).p2p_default(), P2pDefault::PxbButSysOnSmallAmd);
    }

    /// search.cc ncclTopoCompute: ncclTopoGetGpuMinPath bounds at 2.25.1,
    /// ncclTopoSplitNvLink at 2.26.2, the SelectNets fallback at 2.29.2; init.cc: the
    /// CollNet Direct graph at 2.22.3.
    #[test]
    fn search_limit_boundaries() {
        assert!(!r(2, 24, 3).search_types_from_paths() && r(2, 25, 1).search_types_from_paths());
        assert!(!r(2, 25, 1).split_nvlink() && r(2, 26, 2).split_nvlink());
        assert!(!r(2, 28, 9).fallback_selects_nets() && r(2, 29, 2).fallback_selects_nets());
        assert!(!r(2, 21, 5).collnet_direct_graph() && r(2, 22, 3).collnet_direct_graph());
    }

    /// search.cc: crossNic 0/1 from 2.19.1, odd channels paired (RecGpu and RecNet) and
    /// the 15% bonus of ncclTopoCompareGraphs gone from 2.20.3, ring-only pairs with
    /// crossNic 2 from 2.23.4.
    #[test]
    fn cross_nic_boundaries() {
        assert!(r(2, 19, 4).cross_nic_bonus() && !r(2, 20, 3).cross_nic_bonus());
        assert_eq!(r(2, 18, 6).cross_nic_rules(), CrossNicRules::Copy);
        assert_eq!(r(2, 19, 1).cross_nic_rules(), CrossNicRules::ZeroThenOne);
        assert_eq!(r(2, 19, 4).cross_nic_rules(), CrossNicRules::ZeroThenOne);
        assert_eq!(r(2, 20, 3).cross_nic_rules(), CrossNicRules::ZeroThenOnePaired);
        assert_eq!(r(2, 22, 3).cross_nic_rules(), CrossNicRules::ZeroThenOnePaired);
        assert_eq!(r(2, 23, 4).cross_nic_rules(), CrossNicRules::RingPairs);
    }

    /// search.cc ncclTopoSearchRecNet: maxBw/minHops GPUs through 2.26.6, ncclTopoGetLocal
    /// at 2.27.3, localGpu first and replay only with sameChannels at 2.27.5; NVLS heads:
    /// `i>0` skipped at 2.21.5, the duplicate-head `continue` at 2.22.3, inside `gpu != -1`
    /// with `break` at 2.23.4.
    #[test]
    fn rec_net_boundaries() {
        assert_eq!(r(2, 26, 6).rec_net_start(), RecNetStart::BestPaths);
        assert_eq!(r(2, 27, 3).rec_net_start(), RecNetStart::LocalGpus);
        assert_eq!(r(2, 27, 5).rec_net_start(), RecNetStart::LocalGpuFirst);
        assert_eq!(r(2, 21, 5).nvls_heads(), NvlsHeads::FirstNet);
        assert_eq!(r(2, 22, 3).nvls_heads(), NvlsHeads::FirstNewHeadLeaky);
        assert_eq!(r(2, 23, 4).nvls_heads(), NvlsHeads::FirstNewHead);
    }

    /// nccl_net.h: NCCL_NET_MAX_DEVS_PER_NIC 4 until 2.30.0; 2.30.3 asks the plugin (8).
    #[test]
    fn vnic_size_boundary() {
        assert_eq!(r(2, 28, 9).max_devs_per_nic(), 4);
        assert_eq!(r(2, 30, 3).max_devs_per_nic(), 8);
    }

    /// graph/tuning.cc table boundaries: Tree/Simple hop 28 at 2.22.3, 4 at 2.23.4; Blackwell
    /// row at 2.25.1; perChMaxNVLSTreeBws at 2.28.3; the NVLS-tree network hop 20.9 at 2.28.9.
    #[test]
    fn tuning_tables_boundaries() {
        use TuningTables::*;
        let t = |a, b, c| r(a, b, c).tuning_tables();
        assert_eq!(
            (t(2, 18, 1), t(2, 18, 3), t(2, 18, 6), t(2, 19, 1), t(2, 20, 5)),
            (V2_18_1, V2_18_3, V2_18_3, V2_19_1, V2_19_1)
        );
        assert_eq!(
            (t(2, 21, 5), t(2, 22, 3), t(2, 23, 4), t(2, 24, 3), t(2, 25, 1), t(2, 27, 7)),
            (V2_21, V2_21, V2_23, V2_23, V2_25, V2_25)
        );
        assert_eq!(
            (t(2, 28, 3), t(2, 28, 7), t(2, 28, 9), t(2, 29, 2), t(2, 29, 3)),
            (V2_28_3, V2_28_7, V2_28_9, V2_29_2, V2_29_2)
        );
        assert_eq!((t(2, 29, 7), t(2, 30, 3), t(2, 30, 7)), (V2_29_7, V2_30_3, V2_30_3));
    }

    /// graph/tuning.cc ncclTopoTuneModel: NCCL_ALGO_PAT arrives at 2.23.4 (busBw *= .85),
    /// .75 at 2.24.3; ncclPatEnable's sm60 test at 2.26.2.
    #[test]
    fn pat_boundaries() {
        assert!(!r(2, 22, 3).has_pat() && r(2, 23, 4).has_pat());
        assert_eq!((r(2, 23, 4).pat_bw_share(), r(2, 24, 3).pat_bw_share()), (0.85, 0.75));
        assert!(!r(2, 25, 1).pat_needs_sm60() && r(2, 26, 2).pat_needs_sm60());
    }

    /// graph/tuning.cc: nInterSteps `2*nNodes`, `ppn < 2 ? 0.7`, no ppn==1 tree hop and
    /// CollNet-direct-only AG/RS conversion at 2.22.3; all gone at 2.23.4.
    #[test]
    fn tuning_2_23_boundaries() {
        let (old, new) = (r(2, 22, 3), r(2, 23, 4));
        assert!(old.ring_net_steps_close_the_ring() && !new.ring_net_steps_close_the_ring());
        assert!(!old.one_ppn_pays_tree_net_hop() && new.one_ppn_pays_tree_net_hop());
        assert_eq!((old.ring_ll128_share_below_2_ppn(), new.ring_ll128_share_below_2_ppn()), (0.7, 0.92));
        assert!(!old.alg_bw_for_non_ring_ag_rs() && new.alg_bw_for_non_ring_ag_rs());
    }

    /// graph/tuning.cc at 2.18.1 (ll128MaxBwPerCh, NVLS ratio .75, no tree-pattern
    /// penalty, LL128 `<= PATH_NVL`), 2.18.3, 2.19.1 (NVLS AllGather, arity 0.4, ring
    /// backup instead of "never disable ring"), 2.20.3 (CollNet direct AllGather),
    /// 2.21.5 (ring LL `* .5`).
    #[test]
    fn tuning_2_18_to_2_21_boundaries() {
        assert_eq!(r(2, 18, 1).nvls_bw_model(), NvlsBwModel::Plain { nvls_ratio: 0.75 });
        assert_eq!(r(2, 18, 6).nvls_bw_model(), NvlsBwModel::Plain { nvls_ratio: 5.0 / 6.0 });
        assert_eq!(r(2, 19, 1).nvls_bw_model(), NvlsBwModel::MinIntraInter);
        assert!(!r(2, 18, 1).plain_tree_penalty() && r(2, 18, 3).plain_tree_penalty());
        assert!(!r(2, 18, 1).ll128_through_nvb() && r(2, 18, 3).ll128_through_nvb());
        assert!(!r(2, 18, 6).nvls_ag_rs_rated() && r(2, 19, 1).nvls_ag_rs_rated());
        assert_eq!((r(2, 18, 6).collnet_direct_arity_us(), r(2, 19, 1).collnet_direct_arity_us()), (0.5, 0.4));
        assert!(r(2, 18, 6).ring_never_off_outside_allreduce() && !r(2, 19, 1).ring_never_off_outside_allreduce());
        assert!(!r(2, 19, 4).collnet_direct_ag_rs_rated() && r(2, 20, 3).collnet_direct_ag_rs_rated());
        assert!(r(2, 20, 5).ring_ll_quarter_or_third() && !r(2, 21, 5).ring_ll_quarter_or_third());
    }

    /// graph/tuning.cc: per-collective NVLS and the CollNet AG/RS `0.9f` at 2.27.3,
    /// nvlsEfficiency at 2.28.3; maxTreePattern at 2.26.2.
    #[test]
    fn nvls_collnet_tree_model_boundaries() {
        assert_eq!(r(2, 26, 6).nvls_bw_model(), NvlsBwModel::MinIntraInter);
        assert_eq!(r(2, 27, 3).nvls_bw_model(), NvlsBwModel::PerCollective);
        assert_eq!(r(2, 27, 7).nvls_bw_model(), NvlsBwModel::PerCollective);
        assert_eq!(r(2, 28, 3).nvls_bw_model(), NvlsBwModel::Efficiency);
        assert!(!r(2, 26, 6).collnet_ag_rs_capped_by_network() && r(2, 27, 3).collnet_ag_rs_capped_by_network());
        assert!(!r(2, 25, 1).tree_penalty_reads_max_pattern() && r(2, 26, 2).tree_penalty_reads_max_pattern());
    }

    /// graph/tuning.cc LL128 block: `case 90:` list at 2.24.3, `case 100:` at 2.25.1,
    /// `PATH_P2C : PATH_PXN` at 2.27.3, `ncclParamLl128C2c() && minCompCap >= 90` at
    /// 2.27.5, `|| minCompCap >= 90` for mixed GPUs at 2.30.3.
    #[test]
    fn ll128_rule_boundaries() {
        assert_eq!(r(2, 24, 3).ll128_rule(), Ll128Rule::CompCaps(&[70, 80, 90]));
        assert_eq!(r(2, 26, 6).ll128_rule(), Ll128Rule::CompCaps(&[70, 80, 90, 100, 120]));
        assert_eq!(r(2, 27, 3).ll128_rule(), Ll128Rule::C2cOrPxn);
        assert_eq!(r(2, 27, 5).ll128_rule(), Ll128Rule::C2cPxnElsePxb { mixed_sm90: false });
        assert_eq!(r(2, 29, 7).ll128_rule(), Ll128Rule::C2cPxnElsePxb { mixed_sm90: false });
        assert_eq!(r(2, 30, 3).ll128_rule(), Ll128Rule::C2cPxnElsePxb { mixed_sm90: true });
    }

    /// graph/tuning.cc: parseList with per-function prefixes at 2.24.3; ringbdw backup
    /// from 2.19.1, `pEnable == 0` clears it at 2.22.3, gone at 2.24.3 with the
    /// Ring/Tree fallback.
    #[test]
    fn enable_boundaries() {
        assert!(!r(2, 23, 4).algo_proto_per_collective() && r(2, 24, 3).algo_proto_per_collective());
        assert!(r(2, 23, 4).algo_falls_back_to_ring_tree() && !r(2, 24, 3).algo_falls_back_to_ring_tree());
        assert_eq!(r(2, 18, 6).ring_backup(), RingBackup::None);
        assert_eq!(r(2, 19, 1).ring_backup(), RingBackup::AllProtocols);
        assert_eq!(r(2, 21, 5).ring_backup(), RingBackup::AllProtocols);
        assert_eq!(r(2, 22, 3).ring_backup(), RingBackup::EnabledProtocols);
        assert_eq!(r(2, 23, 4).ring_backup(), RingBackup::EnabledProtocols);
        assert_eq!(r(2, 24, 3).ring_backup(), RingBackup::None);
    }

    /// include/device.h MAXCHANNELS 32 at 2.24.3, 64 at 2.25.1; graph/connect.cc
    /// ncclTopoPostset: `minCompCap == 90` doubling until 2.24.3 (`>= 90` at 2.25.1), the
    /// copy up to nvlsChannels from 2.20.3 to 2.27.7, the doubling's room.
    #[test]
    fn postset_boundaries() {
        assert_eq!((r(2, 24, 3).max_channels(), r(2, 25, 1).max_channels()), (32, 64));
        assert!(!r(2, 24, 3).doubles_multi_node_channels(100) && r(2, 24, 3).doubles_multi_node_channels(90));
        assert!(r(2, 25, 1).doubles_multi_node_channels(100));
        assert!(!r(2, 19, 4).coll_channels_follow_nvls() && r(2, 20, 3).coll_channels_follow_nvls());
        assert!(r(2, 27, 7).coll_channels_follow_nvls() && !r(2, 28, 3).coll_channels_follow_nvls());
        // `2*nChannels <= MAXCHANNELS` at 2.19.4, `nChannels < 16` at 2.20.3.
        assert!(r(2, 19, 4).doubling_room(16) && !r(2, 20, 3).doubling_room(16));
        assert!(r(2, 20, 3).doubling_room(15) && !r(2, 19, 4).doubling_room(17));
    }

    /// transport/nvls.cc: NVLS_NCHANNELS 16 at 2.24.3, NVLS_NCHANNELS_SM100 32 at 2.25.1,
    /// NVLS_NCHANNELS_SM100_NVL 24 on one node at 2.27.3.
    #[test]
    fn nvls_channel_default_boundaries() {
        assert_eq!(r(2, 24, 3).nvls_default_channels(100, true), 16);
        assert_eq!(r(2, 26, 6).nvls_default_channels(100, false), 32);
        assert_eq!(r(2, 27, 3).nvls_default_channels(100, false), 24);
        assert_eq!(r(2, 27, 3).nvls_default_channels(100, true), 32);
        assert_eq!(r(2, 30, 7).nvls_default_channels(90, true), 16);
        // nvls.cc ncclNvlsTreeSm100Tuning appears at 2.30.3.
        assert!(!r(2, 29, 7).nvls_sm100_tuning() && r(2, 30, 3).nvls_sm100_tuning());
    }
}
