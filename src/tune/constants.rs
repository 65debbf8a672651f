//! The numbers NCCL's tuning model starts from (`ncclTunerConstants` defaults and the
//! few tables that live beside them in `tuning.cc`): the constants below are 2.30.7's,
//! [`tables`] gives any release's.
//!
//! Indices follow NCCL's numbering everywhere: algorithms Tree, Ring, CollNetDirect,
//! CollNetChain, NVLS, NVLSTree, PAT; protocols LL, LL128, Simple; hardware NVLink, PCI,
//! network; GPU generations Volta, Ampere, Hopper, Blackwell; scales 1 node, 2 nodes,
//! more. Values are `f64` because NCCL keeps them as `double` (releases before 2.28 keep
//! the latencies as `float`, but read them as `float` anyway).

use super::{Algo, Arch, NALGO, NPROTO, Proto};
use crate::release::TuningTables;

/// Hardware classes of the latency table.
pub const HW_NVLINK: usize = 0;
pub const HW_PCI: usize = 1;
pub const HW_NET: usize = 2;

/// Fixed cost per operation (µs) by algorithm and protocol.
pub const BASE_LATENCY: [[f64; NPROTO]; NALGO] = [
    [6.8, 14.0, 8.4], // Tree
    [6.6, 14.0, 8.4], // Ring
    [0.0, 0.0, 0.0],  // CollNetDirect
    [0.0, 0.0, 0.0],  // CollNetChain
    [0.0, 0.0, 0.0],  // NVLS
    [0.0, 0.0, 0.0],  // NVLSTree
    [8.0, 8.0, 8.0],  // PAT
];

/// Cost per hop (µs) by hardware class, algorithm and protocol.
pub const HW_LATENCY: [[[f64; NPROTO]; NALGO]; 3] = [
    // NVLink
    [
        [0.6, 1.25, 4.0],
        [0.6, 1.9, 3.4],
        [0.0, 0.0, 3.7],
        [0.0, 0.0, 2.8],
        [0.0, 0.0, 25.0],
        [0.0, 0.0, 25.0],
        [0.0, 0.0, 4.0],
    ],
    // PCI
    [
        [1.0, 1.9, 4.0],
        [1.0, 2.5, 5.7],
        [0.0, 0.0, 3.7],
        [0.0, 0.0, 2.8],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 4.0],
    ],
    // Network
    [
        [5.0, 8.5, 14.0],
        [2.7, 4.0, 14.0],
        [0.0, 0.0, 31.0],
        [0.0, 0.0, 30.0],
        [0.0, 0.0, 18.0],
        [0.0, 0.0, 20.9],
        [0.0, 0.0, 14.0],
    ],
];

/// LL bandwidth ceilings (GB/s). On one node the row is the GPU generation; on several
/// nodes row 0 serves Intel CPUs and row 1 AMD (or mixed) CPUs. Columns: 1, 2, more nodes.
pub const LL_MAX_BW: [[f64; 3]; 4] = [[39.0, 39.0, 20.4], [87.7, 22.5, 19.0], [141.0, 45.0, 35.0], [282.0, 90.0, 70.0]];

/// Ring LL128 ceiling per channel (GB/s), by generation and scale.
pub const PER_CH_MAX_RING_LL128_BW: [[f64; 3]; 4] =
    [[20.0, 20.0, 20.0], [20.0, 20.0, 20.0], [36.7, 36.7, 36.7], [40.0, 40.0, 40.0]];

/// Tree LL128 ceiling per channel (GB/s).
pub const PER_CH_MAX_TREE_LL128_BW: [[f64; 3]; 4] =
    [[20.0, 20.0, 20.0], [20.0, 20.0, 20.0], [36.7, 36.7, 29.0], [55.6, 31.67, 20.0]];

/// Tree ceiling per channel (GB/s).
pub const PER_CH_MAX_TREE_BW: [[f64; 3]; 4] =
    [[26.5, 18.5, 10.0], [24.0, 23.6, 17.8], [38.7, 41.4, 36.0], [70.0, 42.8, 24.0]];

/// NVLS-tree ceiling per channel (GB/s).
pub const PER_CH_MAX_NVLS_TREE_BW: [[f64; 3]; 4] =
    [[26.5, 18.5, 10.0], [24.0, 23.6, 17.8], [0.0, 57.7, 45.5], [0.0, 96.0, 80.0]];

/// Share of the NVLink bandwidth NVLS achieves, by generation (`float` in NCCL).
pub const NVLS_EFFICIENCY: [f32; 4] = [0.0, 0.0, 0.85, 0.74];

/// The constant tables of one release, as [`tables`] gives them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tables {
    pub base_latency: [[f64; NPROTO]; NALGO],
    pub hw_latency: [[[f64; NPROTO]; NALGO]; 3],
    pub ll_max_bw: [[f64; 3]; 4],
    pub per_ch_ring_ll128: [[f64; 3]; 4],
    pub per_ch_tree_ll128: [[f64; 3]; 4],
    pub per_ch_tree: [[f64; 3]; 4],
    /// Infinite (no ceiling) before 2.28.3.
    pub per_ch_nvls_tree: [[f64; 3]; 4],
    /// Whether the tables have a Blackwell row (2.25); without one, sm100 and newer GPUs
    /// read Hopper's, which the Blackwell row then repeats.
    pub blackwell_row: bool,
}

/// The constant tables a release ships: 2.30.7's, with each older change undone,
/// newest first.
pub fn tables(t: TuningTables) -> Tables {
    use TuningTables::*;
    const S: usize = Proto::Simple as usize;
    const HOPPER: usize = Arch::Hopper as usize;
    const BLACKWELL: usize = Arch::Blackwell as usize;
    let (tree, direct, chain) = (Algo::Tree as usize, Algo::CollNetDirect as usize, Algo::CollNetChain as usize);
    let (nvls, nvls_tree, pat) = (Algo::Nvls as usize, Algo::NvlsTree as usize, Algo::Pat as usize);
    let mut x = Tables {
        base_latency: BASE_LATENCY,
        hw_latency: HW_LATENCY,
        ll_max_bw: LL_MAX_BW,
        per_ch_ring_ll128: PER_CH_MAX_RING_LL128_BW,
        per_ch_tree_ll128: PER_CH_MAX_TREE_LL128_BW,
        per_ch_tree: PER_CH_MAX_TREE_BW,
        per_ch_nvls_tree: PER_CH_MAX_NVLS_TREE_BW,
        blackwell_row: true,
    };
    // Blackwell's NVLS-tree ceiling beyond two nodes: 43.1 (2.28.3), 43.8 (2.28.9), 80 (2.30.3).
    match t {
        V2_30_3 => {}
        V2_28_9 | V2_29_2 | V2_29_7 => x.per_ch_nvls_tree[BLACKWELL][2] = 43.8,
        _ => x.per_ch_nvls_tree[BLACKWELL][2] = 43.1,
    }
    // Blackwell's ring LL128 ceiling: twice Hopper's (2.25), 34.6 on two nodes (2.28.7),
    // about 34.5 everywhere (2.29.2), 40 (2.29.7).
    x.per_ch_ring_ll128[BLACKWELL] = match t {
        V2_29_7 | V2_30_3 => [40.0, 40.0, 40.0],
        V2_29_2 => [34.5, 34.6, 34.5],
        V2_28_7 | V2_28_9 => [73.4, 34.6, 73.4],
        _ => [73.4, 73.4, 73.4],
    };
    // The NVLS-tree network hop: 19 us (2.18), 14 (2.19), 20.9 (2.28.9).
    x.hw_latency[HW_NET][nvls_tree][S] = match t {
        V2_18_1 | V2_18_3 => 19.0,
        V2_19_1 | V2_21 | V2_23 | V2_25 | V2_28_3 | V2_28_7 => 14.0,
        _ => 20.9,
    };
    // Before 2.28.3: Blackwell's tree ceilings are twice Hopper's, there is no NVLS-tree
    // ceiling, and PAT has no hop row (its 8 us base is written into its formula).
    if matches!(t, V2_18_1 | V2_18_3 | V2_19_1 | V2_21 | V2_23 | V2_25) {
        x.per_ch_tree_ll128[BLACKWELL] = [73.4, 73.4, 58.0];
        x.per_ch_tree[BLACKWELL] = [77.4, 82.8, 72.0];
        x.per_ch_nvls_tree = [[f64::INFINITY; 3]; 4];
        for hw in &mut x.hw_latency {
            hw[pat] = [0.0; NPROTO];
        }
    }
    // Before 2.25: no Blackwell row.
    if matches!(t, V2_18_1 | V2_18_3 | V2_19_1 | V2_21 | V2_23) {
        x.blackwell_row = false;
    }
    // Before 2.23: Tree/Simple costs no base but 28 us a hop everywhere (2.18.3 tried
    // 4, 6 and 14 us).
    if matches!(t, V2_18_1 | V2_18_3 | V2_19_1 | V2_21) {
        x.base_latency[tree][S] = 0.0;
        let hops = if t == V2_18_3 { [4.0, 6.0, 14.0] } else { [28.0, 28.0, 28.0] };
        for (hw, lat) in x.hw_latency.iter_mut().zip(hops) {
            hw[tree][S] = lat;
        }
    }
    // Before 2.21: Hopper's LL ceilings are Ampere's, an NVLS NVLink hop costs 23 us.
    if matches!(t, V2_18_1 | V2_18_3 | V2_19_1) {
        x.ll_max_bw[HOPPER] = [87.7, 22.5, 19.0];
        x.hw_latency[HW_NVLINK][nvls][S] = 23.0;
        x.hw_latency[HW_NVLINK][nvls_tree][S] = 23.0;
    }
    // 2.18: CollNet and NVLS cost a base latency, CollNet's hops are priced differently,
    // NVLS pays no NVLink hop.
    if matches!(t, V2_18_1 | V2_18_3) {
        x.base_latency[direct] = [6.8, 14.0, 0.0];
        x.base_latency[chain] = [6.8, 14.0, 0.0];
        x.base_latency[nvls] = [0.0, 0.0, 23.0];
        x.base_latency[nvls_tree] = [0.0, 0.0, 23.0];
        for (hw, (d, c)) in x.hw_latency.iter_mut().zip([(8.0, 4.75), (8.0, 8.0), (10.7, 14.0)]) {
            hw[direct][S] = d;
            hw[chain][S] = c;
        }
        x.hw_latency[HW_NVLINK][nvls][S] = 0.0;
        x.hw_latency[HW_NVLINK][nvls_tree][S] = 0.0;
    }
    // 2.18.1: one LL128 ceiling per generation, whatever the scale, for ring and tree;
    // Hopper's tree ceiling beyond two nodes is 33.
    if t == V2_18_1 {
        let ll128 = [[20.0; 3], [20.0; 3], [36.7; 3], [36.7; 3]];
        x.per_ch_ring_ll128 = ll128;
        x.per_ch_tree_ll128 = ll128;
        x.per_ch_tree[HOPPER][2] = 33.0;
    }
    if !x.blackwell_row {
        for table in [&mut x.ll_max_bw, &mut x.per_ch_ring_ll128, &mut x.per_ch_tree_ll128, &mut x.per_ch_tree] {
            table[BLACKWELL] = table[HOPPER];
        }
    }
    x
}

/// Bandwidth correction for trees at medium sizes, per protocol and log2(bytes / 64).
pub const TREE_CORRECTION: [[f32; 24]; NPROTO] = [
    [
        1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0,
        1.0, 1.0,
    ],
    [
        1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0,
        1.0, 1.0,
    ],
    [
        0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9,
        0.9, 0.9,
    ],
];

/// Thread limits and per-thread work thresholds (`device.h`, `comm.h`).
pub const WARP_SIZE: i32 = 32;
pub const MAX_NTHREADS: i32 = 640;
pub const SIMPLE_MAX_NTHREADS: i32 = 512;
pub const LL_MAX_NTHREADS: i32 = 512;
pub const LL128_MAX_NTHREADS: i32 = 640;
pub const LL_THREAD_THRESHOLD: i64 = 8;
pub const LL128_THREAD_THRESHOLD: i64 = 8;
pub const SIMPLE_THREAD_THRESHOLD: i64 = 64;

/// Arity limits (`device.h`), defined once in the search.
pub use crate::search::limits::{MAX_DIRECT_ARITY, MAX_NVLS_ARITY};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Release;

    fn at(v: &str) -> Tables {
        tables(Release::parse(v).unwrap().tuning_tables())
    }

    /// graph/tuning.cc of each tag: the entries that changed, read at both sides of
    /// the change.
    #[test]
    fn tables_by_release() {
        let (t, s, b) = (Algo::Tree as usize, Proto::Simple as usize, Arch::Blackwell as usize);
        let tree_simple = |x: &Tables| (x.base_latency[t][s], x.hw_latency.map(|h| h[t][s]));
        assert_eq!(tree_simple(&at("2.18.3")), (0.0, [4.0, 6.0, 14.0]));
        assert_eq!(tree_simple(&at("2.21.5")), (0.0, [28.0, 28.0, 28.0]));
        assert_eq!(tree_simple(&at("2.23.4")), (8.4, [4.0, 4.0, 14.0]));
        let nvls_tree_net = |v| at(v).hw_latency[HW_NET][Algo::NvlsTree as usize][s];
        assert_eq!([nvls_tree_net("2.18.6"), nvls_tree_net("2.27.5"), nvls_tree_net("2.28.9")], [19.0, 14.0, 20.9]);
        assert_eq!(at("2.20.5").ll_max_bw[Arch::Hopper as usize], [87.7, 22.5, 19.0]);
        assert_eq!(at("2.21.5").hw_latency[HW_NVLINK][Algo::Nvls as usize][s], 25.0);
        assert!(!at("2.24.3").blackwell_row && at("2.25.1").blackwell_row);
        let ring_ll128 = |v| at(v).per_ch_ring_ll128[b];
        assert_eq!(ring_ll128("2.27.5"), [73.4; 3]);
        assert_eq!(ring_ll128("2.28.9"), [73.4, 34.6, 73.4]);
        assert_eq!(ring_ll128("2.29.3"), [34.5, 34.6, 34.5]);
        assert_eq!(ring_ll128("2.30.7"), PER_CH_MAX_RING_LL128_BW[b]);
        assert_eq!(at("2.27.5").per_ch_tree[b], [77.4, 82.8, 72.0]);
        assert_eq!(at("2.28.3").per_ch_tree[b], PER_CH_MAX_TREE_BW[b]);
        assert!(at("2.27.7").per_ch_nvls_tree[b][2].is_infinite());
        let nvls_tree_n4 = |v| at(v).per_ch_nvls_tree[b][2];
        assert_eq!([nvls_tree_n4("2.28.7"), nvls_tree_n4("2.28.9"), nvls_tree_n4("2.30.3")], [43.1, 43.8, 80.0]);
        assert_eq!(at("2.30.7"), at("2.30.3"));
    }
}
