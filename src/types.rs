//! NCCL's vocabulary, shared by every stage: node, link and path types, GPUDirect RDMA
//! modes and transports, with NCCL's numbering and names.
//!
//! It sits below everything else (the environment reader needs path types to read
//! `NCCL_P2P_LEVEL`); [`crate::model`] re-exports it.

/// Node kinds, NCCL's numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[repr(usize)]
pub enum NodeType {
    Gpu = 0,
    Pci = 1,
    Nvs = 2,
    Cpu = 3,
    Nic = 4,
    Net = 5,
    Gin = 6,
    Rma = 7,
    Dev = 8,
    Cxb = 9,
}

impl NodeType {
    pub const COUNT: usize = 10;
    pub const ALL: [NodeType; 10] = [
        NodeType::Gpu,
        NodeType::Pci,
        NodeType::Nvs,
        NodeType::Cpu,
        NodeType::Nic,
        NodeType::Net,
        NodeType::Gin,
        NodeType::Rma,
        NodeType::Dev,
        NodeType::Cxb,
    ];
    pub fn name(self) -> &'static str {
        ["GPU", "PCI", "NVS", "CPU", "NIC", "NET", "GIN", "RMA", "DEV", "CXB"][self as usize]
    }
}

/// Link kinds; their values match the path type they start a path with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[repr(u8)]
pub enum LinkType {
    Loc = 0,
    Nvl = 1,
    C2c = 3,
    Pci = 4,
    Sys = 9,
    Net = 10,
}

impl LinkType {
    pub fn name(self) -> &'static str {
        match self {
            LinkType::Loc => "LOC",
            LinkType::Nvl => "NVL",
            LinkType::C2c => "C2C",
            LinkType::Pci => "PCI",
            LinkType::Sys => "SYS",
            LinkType::Net => "NET",
        }
    }
    /// The path type a path starts with when its first hop is this link.
    pub fn as_path(self) -> PathType {
        match self {
            LinkType::Loc | LinkType::Net => PathType::Loc,
            LinkType::Nvl => PathType::Nvl,
            LinkType::C2c => PathType::C2c,
            LinkType::Pci => PathType::Pix,
            LinkType::Sys => PathType::Sys,
        }
    }
}

/// Path kinds, NCCL 2.30 numbering (the order is the preference order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum PathType {
    Loc = 0,
    Nvl = 1,
    Nvb = 2,
    C2c = 3,
    Pix = 4,
    Pxb = 5,
    P2c = 6,
    Pxn = 7,
    Phb = 8,
    Sys = 9,
    Net = 10,
    Dis = 11,
}

impl PathType {
    pub const ALL: [PathType; 12] = [
        PathType::Loc,
        PathType::Nvl,
        PathType::Nvb,
        PathType::C2c,
        PathType::Pix,
        PathType::Pxb,
        PathType::P2c,
        PathType::Pxn,
        PathType::Phb,
        PathType::Sys,
        PathType::Net,
        PathType::Dis,
    ];
    /// NCCL's `PATH_PORT`, used only for NIC fusion distances.
    pub const PORT: PathType = PathType::Nvl;

    pub fn name(self) -> &'static str {
        ["LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS"][self as usize]
    }
    /// The type's rank in the preference order of a release: NCCL 2.27.3 numbers P2C
    /// after PXN (7 and 6); every other release with P2C before it. Comparisons of path
    /// types that can meet both go through this.
    #[inline(always)]
    pub fn rank(self, p2c_after_pxn: bool) -> u8 {
        match self {
            PathType::P2c if p2c_after_pxn => PathType::Pxn as u8,
            PathType::Pxn if p2c_after_pxn => PathType::P2c as u8,
            t => t as u8,
        }
    }
    pub fn from_u8(v: u8) -> PathType {
        PathType::ALL[(v as usize).min(11)]
    }
    pub fn from_name(s: &str) -> Option<PathType> {
        PathType::ALL.iter().copied().find(|t| t.name() == s)
    }
    /// What the type means, for people.
    pub fn meaning(self) -> &'static str {
        match self {
            PathType::Loc => "same device",
            PathType::Nvl => "direct NVLink (or through NVSwitch)",
            PathType::Nvb => "NVLink through one intermediate GPU",
            PathType::C2c => "chip-to-chip link between GPU and CPU",
            PathType::Pix => "at most one PCIe switch",
            PathType::Pxb => "several PCIe switches, no host bridge",
            PathType::P2c => "GPU to CPU over C2C, then PCIe to the device",
            PathType::Pxn => "through another GPU over NVLink, then PCIe",
            PathType::Phb => "through a CPU host bridge",
            PathType::Sys => "across the inter-CPU link (QPI/UPI/xGMI)",
            PathType::Net => "through the network",
            PathType::Dis => "disconnected",
        }
    }
}

impl serde::Serialize for PathType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl std::fmt::Display for PathType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// GPUDirect RDMA mode, NCCL's `ncclTopoGdrMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum GdrMode {
    Disabled,
    Default,
    #[serde(rename = "PCI")]
    Pci,
}

impl GdrMode {
    pub fn name(self) -> &'static str {
        match self {
            GdrMode::Disabled => "Disabled",
            GdrMode::Default => "Default",
            GdrMode::Pci => "PCI",
        }
    }
}

/// Transport NCCL picks between two GPUs of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Transport {
    #[serde(rename = "P2P")]
    P2p,
    #[serde(rename = "SHM")]
    Shm,
    #[serde(rename = "NET")]
    Net,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::P2p => "P2P",
            Transport::Shm => "SHM",
            Transport::Net => "NET",
        }
    }
}

/// A bandwidth the way NCCL prints it (`%.1f`), GB/s.
pub fn gbs(bw: f32) -> String {
    format!("{bw:.1}")
}
