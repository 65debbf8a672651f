//! The change list: every change of NCCL's decisions topo models, with the release that
//! made it and the machines it can touch (`topo diff --against-version`). Each entry
//! belongs to one of the questions of this folder (or a table one selects).

use super::table::{Release, r};

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
    /// Trays of an NVL rack across nodes, or a job modelled with `--mnnvl`.
    Mnnvl,
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
/// question of this folder's stage files (or a table one selects).
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
        text: "the IB plugin merges the two ports of one NIC (same PCI device and system guid) into one device `a+b`; ports placed under no PCI device stay apart",
    },
    Change {
        since: r(2, 20, 3),
        scope: Scope::Mnnvl,
        text: "multi-node NVLink (NCCL_MNNVL): with one fabric clique holding every rank, rings cross hosts by P2P over NVLink, NVLS is off and tuning counts one node, each host keeping its own system (topo does not model this form: --mnnvl models separate nodes)",
    },
    Change { since: r(2, 20, 3), scope: Scope::Hopper, text: "Hopper NVLink is 20.6 GB/s a link (before: 20)" },
    Change {
        since: r(2, 20, 3),
        scope: Scope::MultiNode,
        text: "a crossing graph (crossNic 1) pairs each odd channel with the one before: in by its way out, out by its way in; a graph that does not cross NICs no longer gets a 15% edge",
    },
    Change {
        since: r(2, 21, 5),
        scope: Scope::Any,
        text: "graph dumps write `dev` as the node's topology id in hex (`0x1`; before, the device number in decimal) and an NVLS channel as its head GPU only",
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
        since: r(2, 21, 5),
        scope: Scope::Mnnvl,
        text: "multi-node NVLink fuses the hosts of each fabric clique into one system searched as one node (ncclTopoFuseXml); on for any clique of two ranks or more, NCCL_MNNVL_ENABLE (0, 1, 2) in place of NCCL_MNNVL",
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
        since: r(2, 23, 4),
        scope: Scope::Mnnvl,
        text: "NCCL_MNNVL_CLIQUE_ID sets the clique id every rank reports",
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
        since: r(2, 25, 1),
        scope: Scope::Mnnvl,
        text: "NCCL_MNNVL_UUID sets the cluster UUID every rank reports; NCCL_MNNVL_ENABLE=1 checks the fabric on a single host too",
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
    Change {
        since: r(2, 27, 3),
        scope: Scope::Mnnvl,
        text: "P2P turned off (NCCL_P2P_LEVEL=LOC, NCCL_P2P_DISABLE=1) keeps multi-node NVLink off unless NCCL_MNNVL_ENABLE=1",
    },
    Change {
        since: r(2, 27, 3),
        scope: Scope::Blackwell,
        text: "NVLS on Blackwell: 24 channels when one node or one MNNVL clique holds the job (32 across nodes or cliques)",
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
        since: r(2, 27, 5),
        scope: Scope::Mnnvl,
        text: "a fused system's NICs are offered to the search channel by channel across its trays (NCCL_MNNVL_SCATTER_NETS_ENABLE); acts only when a job spans several cliques",
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
        since: r(2, 28, 3),
        scope: Scope::Mnnvl,
        text: "NCCL_MNNVL_CLIQUE_ID=-2 names each tray's clique by a hash of its rack's serial number (before: clique 0xfffffffe for every rank)",
    },
    Change {
        since: r(2, 28, 7),
        scope: Scope::MultiNode,
        text: "a job of several nodes is searched across nodes even on a host without a NET (system->inter from the rank count; before, from the NETs left: such a host was searched, rated and tuned as one node)",
    },
    Change {
        since: r(2, 28, 7),
        scope: Scope::Nets,
        text: "a job on one node keeps its NETs after trimming (before: all dropped, so SHM was not refused for a faster NET and NCCL_CROSS_NIC=1 left crossNic 0)",
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
    Change {
        since: r(2, 28, 7),
        scope: Scope::Mnnvl,
        text: "NCCL_MNNVL_RAIL_PER_HOST: with NCCL_CROSS_NIC=0 a channel leaves by a NIC of another tray only on the rail it came in by; acts only when a job spans several cliques",
    },
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
        text: "a graph the search finds nothing for uses NETs picked for its first and last GPU (before: NET 0 both ways); on a host without a NET that fails the init ('Could not find any local path from gpu 0 to net')",
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
    Change {
        since: r(2, 30, 3),
        scope: Scope::Any,
        text: "the search starts from the DEV nodes: the per-channel bottleneck over their paths, which P2P settings never reroute, the total over every DEV's links, a trimmed GPU's too (before: over the GPUs left, their paths through the CPU where P2P is off, without NVLinks to GPUs trimmed away)",
    },
    Change { since: r(2, 30, 3), scope: Scope::Blackwell, text: "Blackwell ladder across nodes gains 86 GB/s" },
    Change {
        since: r(2, 30, 3),
        scope: Scope::Blackwell,
        text: "tuning: Blackwell NVLS-tree ceiling 80 beyond two nodes",
    },
    Change {
        since: r(2, 30, 3),
        scope: Scope::Mnnvl,
        text: "NCCL_MNNVL_CROSS_CLIQUE=1: ranks in different cliques of one NVLink domain (one cluster UUID) use P2P over NVLink with each other",
    },
    Change {
        since: r(2, 30, 7),
        scope: Scope::Any,
        text: "a GPU's local CPU (where traffic without P2P or GPUDirect RDMA goes through) is the one with the best path (before: the fewest hops, the first among equals, so a CPU reached through an NVLink peer)",
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

impl Release {
    /// The changes of behaviour between two releases (either order), oldest first.
    pub fn changes_between(self, other: Release) -> impl Iterator<Item = &'static Change> {
        let (lo, hi) = if self <= other { (self, other) } else { (other, self) };
        CHANGES.iter().filter(move |c| c.since > lo && c.since <= hi)
    }
}
