//! The numbers NCCL 2.30.7's tuning model starts from (`ncclTunerConstants` defaults and
//! the few tables that live beside them in `tuning.cc`).
//!
//! Indices follow NCCL's numbering everywhere: algorithms Tree, Ring, CollNetDirect,
//! CollNetChain, NVLS, NVLSTree, PAT; protocols LL, LL128, Simple; hardware NVLink, PCI,
//! network; GPU generations Volta, Ampere, Hopper, Blackwell; scales 1 node, 2 nodes,
//! more. Values are `f64` because NCCL keeps them as `double`.

use super::{NALGO, NPROTO};

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
