//! What the model asks: how a release builds the system from the XML (CPUs, NVLink and
//! C2C links, NICs and their fusion) and the paths between its nodes (P2P, GDR, PXN).

use super::table::Release;

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

/// NCCL_P2P_LEVEL's default (`ncclTopoCheckP2p`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P2pDefault {
    /// SYS, but PXB on ARM, Intel and Zhaoxin CPUs.
    SysButPxbOnArmIntelZhaoxin,
    /// PXB, but SYS on AMD CPUs with at most two GPUs.
    PxbButSysOnSmallAmd,
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

// ---- system -----------------------------------------------------------------------

impl Release {
    /// A NIC's guid is read as hex whatever its form (`strtoull`, 2.28.7); before, only
    /// as `0x...` (`sscanf "0x%lx"`), and a NIC without one took its dev as ASIC.
    pub fn net_guid_any_hex(self) -> bool {
        self.since(2, 28, 7)
    }

    /// A job spans nodes when the node holds fewer GPUs than the job has ranks
    /// (`system->inter`, set by `ncclTopoTrimSystem` from 2.28.7), and the NETs stay on
    /// one node; before, the trim drops every NET when the node holds every rank (so a
    /// one-node job searches, checks P2P/SHM and crosses NICs without NETs) and a job
    /// spans nodes when any NET is left (so one of several nodes on a host without a NET
    /// is searched as one node).
    pub fn inter_from_ranks(self) -> bool {
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

    /// Multi-node NVLink as topo models it (2.21.5): ranks whose GPUs share one fabric
    /// clique fuse their hosts' topologies into one system (`ncclTopoFuseXml`) and talk
    /// P2P over NVLink across hosts; a clique of two ranks or more turns it on
    /// (NCCL_MNNVL_ENABLE).
    pub fn mnnvl(self) -> bool {
        self.since(2, 21, 0)
    }

    /// 2.20's multi-node NVLink (NCCL_MNNVL), which topo does not model: on only when one
    /// clique holds every rank, and then each host keeps its own system (its NICs
    /// removed), rings cross hosts by P2P over NVLink, NVLS is off and tuning counts one
    /// node.
    pub fn mnnvl_unfused(self) -> bool {
        self.since(2, 20, 0) && !self.mnnvl()
    }

    /// NCCL_MNNVL_ENABLE=1 runs the fabric check on a single host too (2.25.1,
    /// `ncclMnnvlCheck`); before, only across hosts.
    pub fn mnnvl_forced_on_one_host(self) -> bool {
        self.since(2, 25, 0)
    }

    /// P2P turned off (NCCL_P2P_LEVEL=LOC, NCCL_P2P_DISABLE=1) keeps the fabric check
    /// from running (2.27.3); before, MNNVL came on regardless.
    pub fn mnnvl_needs_p2p(self) -> bool {
        self.since(2, 27, 0)
    }

    /// NCCL_MNNVL_CLIQUE_ID=-2 names the clique by a hash of the rack's serial number
    /// (2.28.3); before, -2 is taken as the clique id itself (0xfffffffe), the same for
    /// every rank.
    pub fn mnnvl_rack_serial_clique(self) -> bool {
        self.since(2, 28, 0)
    }

    /// NCCL_MNNVL_CROSS_CLIQUE: ranks of different cliques of one NVLink domain (one
    /// cluster UUID) may use CUDA P2P over NVLink (2.30.3).
    pub fn mnnvl_cross_clique(self) -> bool {
        self.since(2, 30, 0)
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
}

// ---- paths ------------------------------------------------------------------------

impl Release {
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

    /// A GPU's physical device is a node of its own (DEV, joined to the GPU by a LOC
    /// link) from 2.30.3; before, the GPU node holds the PCIe and NVLink links itself,
    /// so NCCL's paths count two hops fewer between GPUs (one to a NIC or CPU). topo
    /// always builds DEV nodes (the decisions are the same) and reports paths as the
    /// release counts them.
    pub fn dev_nodes(self) -> bool {
        self.since(2, 30, 3)
    }

    /// A GPU's local CPU (`ncclGetLocalCpu`, through which P2P and GDR traffic is
    /// diverted) is the one with the best path, fewest hops among equals, from 2.30.7
    /// (`ncclTopoGetLocal`); before, the CPU the fewest hops away, the first among
    /// equals, even when that is through an NVLink peer and the other socket.
    pub fn local_cpu_by_path(self) -> bool {
        self.since(2, 30, 7)
    }

    /// `ncclTopoSearchInit` walks the DEV nodes (2.30.3): the per-channel bottleneck
    /// over their paths, which the P2P and GDR rules never reroute, the total over the
    /// links of every DEV, a trimmed GPU's too. Before, it walks the GPUs left after
    /// trimming: their paths (through the CPU where P2P is off) and their links, those to
    /// the GPUs trimmed away gone.
    pub fn search_init_over_devs(self) -> bool {
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
}

// ---- NIC fusion -------------------------------------------------------------------

impl Release {
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
}
