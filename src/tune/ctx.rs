//! The rows of the release's constant tables one communicator's scale selects, shared by the
//! latency and bandwidth of every entry of the tuning model.

use crate::model::{PathType, cpu};

use super::constants::*;
use super::{Algo, Comm, NALGO, NPROTO, Proto};

/// NCCL's code for CPUs of several vendors in one job (never the case with identical nodes).
const CPU_VENDOR_MIXED: i32 = 4;

/// What every entry of one communicator shares: its scale and the rows of NCCL's
/// constant tables that scale selects.
pub(super) struct Ctx<'a> {
    pub c: &'a Comm,
    pub n_nodes: usize,
    pub n_ranks: usize,
    /// GPU generation row.
    pub arch: usize,
    /// Ranks per node, as a `float`.
    pub ppn: f32,
    pub log_nodes: i64,
    pub ll_max_bw: f64,
    pub per_ch_tree: f64,
    pub per_ch_ring_ll128: f64,
    pub per_ch_tree_ll128: f64,
    pub per_ch_nvls_tree: f64,
    /// Base latencies of the release.
    pub base_lat: [[f64; NPROTO]; NALGO],
    /// Hop latencies of the release, with the POWER correction.
    pub hw_lat: [[[f64; NPROTO]; NALGO]; 3],
    /// Per algorithm: the hardware class of a hop inside the node, and of a ring hop.
    pub intra_hw: [usize; NALGO],
    pub hw: [usize; NALGO],
}

impl Ctx<'_> {
    pub(super) fn new(c: &Comm) -> Ctx<'_> {
        let n_nodes = c.n_nodes;
        let arch = c.arch as usize;
        let scale = if n_nodes <= 2 { n_nodes - 1 } else { 2 };
        let ll_row = if n_nodes == 1 {
            arch
        } else if c.cpu_vendor == cpu::VENDOR_AMD || c.cpu_vendor == CPU_VENDOR_MIXED {
            1
        } else {
            0
        };
        let t = tables(c.release.tuning_tables());
        let mut hw_lat = t.hw_latency;
        if c.cpu_arch == cpu::ARCH_POWER {
            hw_lat[HW_PCI][Algo::Tree as usize][Proto::Simple as usize] =
                hw_lat[HW_PCI][Algo::Ring as usize][Proto::Simple as usize];
        }
        let intra_hw: [usize; NALGO] =
            std::array::from_fn(|a| if c.graphs.0[a].type_intra == PathType::Nvl { HW_NVLINK } else { HW_PCI });
        Ctx {
            c,
            n_nodes,
            n_ranks: c.n_ranks,
            arch,
            ppn: c.n_ranks as f32 / n_nodes as f32,
            log_nodes: super::log2i(n_nodes as u64),
            ll_max_bw: t.ll_max_bw[ll_row][scale],
            per_ch_tree: t.per_ch_tree[arch][scale],
            per_ch_ring_ll128: t.per_ch_ring_ll128[arch][scale],
            per_ch_tree_ll128: t.per_ch_tree_ll128[arch][scale],
            per_ch_nvls_tree: t.per_ch_nvls_tree[arch][scale],
            base_lat: t.base_latency,
            hw_lat,
            intra_hw,
            hw: std::array::from_fn(|a| if n_nodes == 1 { intra_hw[a] } else { HW_NET }),
        }
    }
}
