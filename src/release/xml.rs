//! What a release reads and writes before any model: how much topology XML it holds,
//! how its detection writes a machine (`NCCL_TOPO_DUMP_FILE`, what `topo detect`
//! writes), and which `NCCL_*` variables it knows.

use super::table::{Release, r};

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

impl Release {
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
            ("NCCL_MNNVL_CLIQUE_ID", r(2, 23, 4)),
            ("NCCL_MNNVL_UUID", r(2, 25, 1)),
            ("NCCL_NET_GDR_C2C", r(2, 26, 2)),
            ("NCCL_PXN_C2C", r(2, 27, 3)),
            ("NCCL_LL128_C2C", r(2, 27, 3)),
            ("NCCL_MNNVL_ENABLE", r(2, 21, 5)),
            ("NCCL_MNNVL_SCATTER_NETS_ENABLE", r(2, 27, 5)),
            ("NCCL_NETDEVS_POLICY", r(2, 28, 3)),
            ("NCCL_MNNVL_RAIL_PER_HOST", r(2, 28, 7)),
            ("NCCL_MNNVL_CROSS_CLIQUE", r(2, 30, 3)),
            ("NCCL_NET_GDR_MLOPART", r(2, 30, 7)),
            ("NCCL_NET_MERGE_POLICY", r(2, 30, 7)),
            ("NCCL_TOPO_SPLIT_MLOPART", r(2, 30, 7)),
        ];
        NEW.iter().find(|(n, since)| *n == name && self < *since).map(|&(_, since)| since)
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
}
