//! NCCL's view of a machine: the node/link system, every path, and the P2P, SHM, NET and
//! GPUDirect-RDMA decisions, as NCCL 2.30.7 makes them.
//!
//! Stages, each in its own file:
//! - [`prepare`]: what NCCL does to the XML before it builds anything (ranks, network
//!   devices and their fusion into virtual NICs, per-rank trimming and fusion of the
//!   ranks' trees);
//! - [`system`]: the XML tree turned into typed nodes and links;
//! - [`paths`]: the shortest-path computation, P2P/GDR checks, PXN, trimming;
//! - [`validate`]: inputs refused before any of it runs (absurd numbers, NVLinks to
//!   GPUs that are not in the file);
//! - [`analysis`]: all of it gathered for one command, with reasons.
//!
//! Bandwidths are `f32` in GB/s and computed in the same order of operations as NCCL so
//! that results agree to the last bit.

pub mod analysis;
pub mod paths;
pub mod prepare;
pub mod system;
pub mod validate;

pub use analysis::{Analysis, Options, analyze};
pub use system::{NodeRef, System};

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

/// Bandwidth constants (GB/s), NCCL 2.30.7 values.
pub mod bw {
    pub const LOC: f32 = 5000.0;
    pub const MLOPART_LOC: f32 = 2618.0;
    pub const SM60_NVLINK: f32 = 18.0;
    pub const SM70_NVLINK: f32 = 20.0;
    pub const SM80_NVLINK: f32 = 20.0;
    pub const SM90_NVLINK: f32 = 20.6;
    pub const SM86_NVLINK: f32 = 12.0;
    pub const SM100_NVLINK: f32 = 40.1;
    pub const PCI: f32 = 12.0;
    pub const AMD: f32 = 16.0;
    pub const BDW_QPI: f32 = 6.0;
    pub const SKL_QPI: f32 = 10.0;
    pub const SRP_QPI: f32 = 22.0;
    pub const ERP_QPI: f32 = 40.0;
    pub const ZPI: f32 = 6.0;
    pub const YONGFENG_ZPI: f32 = 9.0;
    pub const P9: f32 = 32.0;
    pub const ARM: f32 = 6.0;
    pub const NET: f32 = 12.0;

    /// Per-link NVLink bandwidth for a compute capability.
    pub fn nvlink(cc: i32) -> f32 {
        if cc >= 100 {
            SM100_NVLINK
        } else if cc >= 90 {
            SM90_NVLINK
        } else if cc == 86 {
            SM86_NVLINK
        } else if cc >= 80 {
            SM80_NVLINK
        } else if cc >= 70 {
            SM70_NVLINK
        } else if cc >= 60 {
            SM60_NVLINK
        } else {
            SM80_NVLINK
        }
    }
}

/// CPU architecture, vendor and model codes as NCCL numbers them.
pub mod cpu {
    pub const ARCH_X86: i32 = 1;
    pub const ARCH_POWER: i32 = 2;
    pub const ARCH_ARM: i32 = 3;
    pub const VENDOR_INTEL: i32 = 1;
    pub const VENDOR_AMD: i32 = 2;
    pub const VENDOR_ZHAOXIN: i32 = 3;
    pub const MODEL_INTEL_BDW: i32 = 1;
    pub const MODEL_INTEL_SKL: i32 = 2;
    pub const MODEL_INTEL_SRP: i32 = 3;
    pub const MODEL_INTEL_ERP: i32 = 4;
    pub const MODEL_YONGFENG: i32 = 1;

    pub fn arch_name(a: i32) -> &'static str {
        match a {
            ARCH_X86 => "x86_64",
            ARCH_POWER => "ppc64",
            ARCH_ARM => "arm64",
            _ => "unknown",
        }
    }
    pub fn vendor_name(v: i32) -> &'static str {
        match v {
            VENDOR_INTEL => "Intel",
            VENDOR_AMD => "AMD",
            VENDOR_ZHAOXIN => "Zhaoxin",
            _ => "",
        }
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
