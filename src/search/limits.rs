//! NCCL's fixed sizes and the search's step budgets (`src/include/device.h`,
//! `src/graph/search.cc`). Defined once here; `tune` and `channels` use these.

/// Most channels a communicator holds (`MAXCHANNELS`).
pub const MAXCHANNELS: usize = 64;
/// Most GPUs an NVLS graph spans (`NCCL_MAX_NVLS_ARITY`).
pub const MAX_NVLS_ARITY: usize = 32;
/// Most peers a CollNet Direct channel reaches (`NCCL_MAX_DIRECT_ARITY`).
pub const MAX_DIRECT_ARITY: usize = 7;

/// Steps all rounds of one graph's search may take before it settles for what it has
/// (`NCCL_SEARCH_GLOBAL_TIMEOUT`).
pub const GLOBAL_TIMEOUT: i64 = 1 << 19;
/// Steps of one round (`NCCL_SEARCH_TIMEOUT`).
pub const TIMEOUT: u32 = 1 << 14;
/// Steps of one round with the plain tree pattern (`NCCL_SEARCH_TIMEOUT_TREE`).
pub const TIMEOUT_TREE: u32 = 1 << 14;
/// Steps of one round that asks every channel to be the same (`NCCL_SEARCH_TIMEOUT_SAMECHANNELS`).
pub const TIMEOUT_SAMECHANNELS: u32 = 1 << 8;
/// Steps of the try in PCI order that starts each round between nodes (NCCL's `1 << 10`
/// in `ncclTopoSearchRecNet`).
pub const FORCED_PCI_STEPS: u32 = 1 << 10;
