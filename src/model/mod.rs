//! NCCL's view of a machine: the node/link system, every path, and the P2P, SHM, NET and
//! GPUDirect-RDMA decisions, as NCCL 2.30.7 makes them.
//!
//! Stages, each in its own file:
//! - [`prepare`]: what NCCL does to the XML before it builds anything (ranks, network
//!   devices and their fusion into virtual NICs, per-rank trimming and fusion of the
//!   ranks' trees);
//! - [`system`]: the XML tree turned into typed nodes and links;
//! - [`paths`]: the shortest-path computation, P2P/GDR checks, PXN, trimming;
//! - [`mnnvl`]: whether NCCL fuses the hosts of a multi-node NVLink clique into one
//!   system (GB200/GB300 NVL racks);
//! - [`validate`]: inputs refused before any of it runs (absurd numbers, NVLinks to
//!   GPUs that are not in the file);
//! - [`analysis`]: all of it gathered for one command, with reasons.
//!
//! Bandwidths are `f32` in GB/s and computed in the same order of operations as NCCL so
//! that results agree to the last bit.

pub mod analysis;
pub mod build;
pub mod mnnvl;
pub mod paths;
pub mod prepare;
pub mod system;
pub mod validate;

pub use analysis::{Analysis, Options, analyze};
pub use system::{NodeRef, System};

pub use crate::types::{GdrMode, LinkType, NodeType, PathType, Transport};

/// Bandwidth constants (GB/s), NCCL 2.30.7 values (and older ones where they differ).
pub mod bw {
    use crate::release::NvLinkTable;

    pub const LOC: f32 = 5000.0;
    pub const MLOPART_LOC: f32 = 2618.0;
    pub const SM60_NVLINK: f32 = 18.0;
    pub const SM70_NVLINK: f32 = 20.0;
    pub const SM80_NVLINK: f32 = 20.0;
    pub const SM90_NVLINK: f32 = 20.6;
    pub const SM86_NVLINK: f32 = 12.0;
    pub const SM100_NVLINK: f32 = 40.1;
    /// Hopper before 2.20.3.
    pub const SM90_NVLINK_2_18: f32 = 20.0;
    /// Blackwell from 2.25.1 to 2.27.3.
    pub const SM100_NVLINK_2_25: f32 = 40.0;
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

    /// Per-link NVLink bandwidth for a compute capability, in a release's table.
    pub fn nvlink(table: NvLinkTable, cc: i32) -> f32 {
        if cc >= 100 {
            match table {
                NvLinkTable::V2_18 => SM90_NVLINK_2_18,
                NvLinkTable::V2_20 => SM90_NVLINK,
                NvLinkTable::V2_25 => SM100_NVLINK_2_25,
                NvLinkTable::V2_27_5 => SM100_NVLINK,
            }
        } else if cc >= 90 {
            if table == NvLinkTable::V2_18 { SM90_NVLINK_2_18 } else { SM90_NVLINK }
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
