//! What the search asks: the speed ladders, how channels cross NICs and start after a
//! NET, how `ncclTopoCompute` ends, which graphs it makes, and how the channels are set
//! after it (`ncclTopoPostset`, `ncclNvlsInit`).

use super::table::Release;

/// Which set of search speed ladders a release ships (`search.cc`), named by the
/// release that introduced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum SpeedTables {
    V2_18_1,
    V2_18_3,
    V2_19_1,
    V2_19_3,
    V2_21,
    V2_25,
    V2_27_3,
    V2_27_5,
    V2_27_6,
    V2_29_2,
    V2_29_7,
    V2_30_3,
}

/// What NCCL_CROSS_NIC means to the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossNicRules {
    /// 2.18: the graph starts with NCCL_CROSS_NIC as it is (2 read as 0); the relaxing
    /// step retries with the variable's value (1, or 2, which leaves by the way-in's
    /// port all the same) and otherwise puts 0 back, even when the variable is 1.
    Copy,
    /// A graph's crossNic is 0 or 1; NCCL_CROSS_NIC=2 searches with 0 first, then 1.
    /// Crossing lets a channel leave by any NET.
    ZeroThenOne,
    /// As [`CrossNicRules::ZeroThenOne`], and a crossing graph's odd channels pair with
    /// the channel before: in by the NET it left by, out by the NET it came in by (any
    /// pattern).
    ZeroThenOnePaired,
    /// crossNic 2 stays 2 in the graph and pairs channels only in rings; balanced trees
    /// may cross too (the retry with 2 is for rings and balanced trees only).
    RingPairs,
}

/// Which GPUs `ncclTopoSearchRecNet` starts a channel from, after a NET.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecNetStart {
    /// The last channel's first GPU again (whenever there is a last channel), then,
    /// for a first channel or when channels may differ, PCI order and the GPUs with the
    /// best path to the NET, rotated by the channel number.
    BestPaths,
    /// The replay as [`RecNetStart::BestPaths`]; then PCI order and the GPUs
    /// `ncclTopoGetLocal` gives for the NET (a NET without any is skipped, its
    /// bandwidth not given back).
    LocalGpus,
    /// Replay only when channels must be the same; otherwise as
    /// [`RecNetStart::LocalGpus`], the NET's own local GPU tried first.
    LocalGpuFirst,
}

/// How `ncclTopoCompute` ends (see [`Release::compute_end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputeEnd {
    /// Pass 2 raises the intra speed of every non-ring graph (NVLS too); channels are
    /// duplicated after it, for graphs not NVLS with intra speed at least 25 (sm 80 and
    /// older) or 50 (sm 90 and older).
    V2_18_1,
    /// As 2.18.1, with `ncclTopoDupChannels`' gate: not NVLS, intra speed at least 25,
    /// and not (sm over 80, intra under 50, more than 4 channels).
    V2_18_3,
    /// As 2.18.3; pass 2 leaves NVLS out, and a third pass raises NVLS's inter speed.
    V2_19_1,
    /// Channels duplicated at the end of pass 1; pass 2 raises rings (both speeds),
    /// NVLS (inter) and the others (intra).
    V2_19_3,
}

/// How the GPU sort treats GPUs behind NVSwitches (see [`Release::nvs_neighbours`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvsNeighbours {
    NotSpecial,
    /// The sorted list, with the neighbours moved to its front.
    First,
    /// The neighbours alone.
    Only,
}

/// How the NVLS and CollNet Direct searches pick a head for a channel from the NETs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvlsHeads {
    /// Only the first NET of the rotated list; its local GPU, even one already a head.
    FirstNet,
    /// NETs in turn until one gives a local GPU; a GPU already a head is passed over
    /// without the NET's bandwidth given back, and a NET without a local GPU still ends
    /// the loop.
    FirstNewHeadLeaky,
    /// NETs in turn until one gives a local GPU that is not yet a head.
    FirstNewHead,
}

/// Which nodes swap ring channel pairs after the search (see [`Release::ring_pair_swap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingPairSwap {
    Never,
    /// Odd nodes, when the node count is even and the ring crosses NICs (crossNic 1 or 2).
    AnyCrossNicEvenNodes,
    /// Odd nodes, when the ring crosses NICs.
    AnyCrossNic,
    /// Odd nodes, when any rank's ring ended with crossNic 2 (the graphs' maximum).
    AllRanksTwo,
    /// Odd nodes whose own ring ended with crossNic 2.
    OwnTwo,
}

// ---- search -----------------------------------------------------------------------

impl Release {
    /// The NICs of a system fused from several hosts (MNNVL) are offered to the search
    /// channel by channel across the GPUs, spreading them over the trays
    /// (`ncclTopoPrefNetsGpuFirst`, under NCCL_MNNVL_SCATTER_NETS_ENABLE), from 2.27.5;
    /// before, GPU by GPU, as on any system.
    pub fn mnnvl_scatter_nets(self) -> bool {
        self.since(2, 27, 5)
    }

    /// The speed ladders the search walks.
    pub fn speed_tables(self) -> SpeedTables {
        use SpeedTables::*;
        const STEPS: &[((u8, u8, u8), SpeedTables)] = &[
            ((2, 30, 3), V2_30_3),
            ((2, 29, 7), V2_29_7),
            ((2, 29, 2), V2_29_2),
            ((2, 27, 6), V2_27_6),
            ((2, 27, 5), V2_27_5),
            ((2, 27, 3), V2_27_3),
            ((2, 25, 0), V2_25),
            ((2, 21, 0), V2_21),
            ((2, 19, 3), V2_19_3),
            ((2, 19, 1), V2_19_1),
            ((2, 18, 3), V2_18_3),
        ];
        STEPS.iter().find(|((a, b, c), _)| self.since(*a, *b, *c)).map_or(V2_18_1, |s| s.1)
    }

    /// The search's path types range over what the machine's paths span (2.25.1), and
    /// NVLS and CollNet Direct graphs are capped at their arity; before, GPU to GPU
    /// types run from NVL (LOC for one GPU) to SYS, GPU to NET from PIX to SYS, and the
    /// caps are the GPU count.
    pub fn search_types_from_paths(self) -> bool {
        self.since(2, 25, 0)
    }

    /// Two NVLink islands joined by a slower link make rings ask for two channels
    /// (`ncclTopoSplitNvLink`, 2.26.2).
    pub fn split_nvlink(self) -> bool {
        self.since(2, 26, 0)
    }

    /// What NCCL_CROSS_NIC means: 0/1 graphs tried in that order from 2.19.1 (2.18 is
    /// modelled the same), the odd channels paired from 2.20.3, ring-only pairs with
    /// crossNic kept at 2 from 2.23.4.
    pub fn cross_nic_rules(self) -> CrossNicRules {
        if self.since(2, 23, 0) {
            CrossNicRules::RingPairs
        } else if self.since(2, 20, 0) {
            CrossNicRules::ZeroThenOnePaired
        } else if self.since(2, 19, 0) {
            CrossNicRules::ZeroThenOne
        } else {
            CrossNicRules::Copy
        }
    }

    /// `ncclTopoCompareGraphs` gives a graph that does not cross NICs a 15% edge over
    /// one that does (until 2.19.4; 2.20.3 drops it).
    pub fn cross_nic_bonus(self) -> bool {
        !self.since(2, 20, 0)
    }

    /// How a channel starts after its NET: best paths with an unconditional replay until
    /// 2.26.6, `ncclTopoGetLocal` in 2.27.3, the NET's local GPU first from 2.27.5.
    pub fn rec_net_start(self) -> RecNetStart {
        if self.since(2, 27, 5) {
            RecNetStart::LocalGpuFirst
        } else if self.since(2, 27, 3) {
            RecNetStart::LocalGpus
        } else {
            RecNetStart::BestPaths
        }
    }

    /// How `ncclTopoCompute` ends: where channels are duplicated and what pass 2 raises.
    pub fn compute_end(self) -> ComputeEnd {
        if !self.since(2, 18, 3) {
            ComputeEnd::V2_18_1
        } else if !self.since(2, 19, 0) {
            ComputeEnd::V2_18_3
        } else if !self.since(2, 19, 3) {
            ComputeEnd::V2_19_1
        } else {
            ComputeEnd::V2_19_3
        }
    }

    /// How the GPU sort treats GPUs behind NVSwitches (`ncclTopoSearchNextGpuSort`):
    /// no differently until 2.19.1; the neighbours (next, and previous for rings and
    /// trees) moved to the front of the sorted list from 2.19.3; only the neighbours
    /// from 2.21.5.
    pub fn nvs_neighbours(self) -> NvsNeighbours {
        if !self.since(2, 19, 3) {
            NvsNeighbours::NotSpecial
        } else if !self.since(2, 21, 0) {
            NvsNeighbours::First
        } else {
            NvsNeighbours::Only
        }
    }

    /// A first channel from a NET tries PCI order even on a machine with NVSwitches
    /// (until 2.19.1); from 2.19.3 only without them.
    pub fn pci_order_with_nvs(self) -> bool {
        !self.since(2, 19, 3)
    }

    /// A NET's best-path GPUs are tried in index order, first those whose PCI link
    /// still has bandwidth left, then the others (2.18, "tryGpuBidir"); from 2.19.1 in
    /// one pass from the channel's number on.
    pub fn best_gpus_free_pci_first(self) -> bool {
        !self.since(2, 19, 0)
    }

    /// NVLS (and, from 2.22.3, CollNet Direct) heads: the first NET only until 2.21.5;
    /// 2.22.3 tries NETs until a new head, leaking the bandwidth of a NET whose GPU is
    /// already one; 2.23.4 gives it back.
    pub fn nvls_heads(self) -> NvlsHeads {
        if self.since(2, 23, 0) {
            NvlsHeads::FirstNewHead
        } else if self.since(2, 22, 0) {
            NvlsHeads::FirstNewHeadLeaky
        } else {
            NvlsHeads::FirstNet
        }
    }

    /// A graph the search found nothing for falls back to NETs `ncclTopoSelectNets`
    /// picks for the first and last GPU (2.29.2), which fails the init when a GPU has
    /// no NET; before, to NET id 0 both ways.
    pub fn fallback_selects_nets(self) -> bool {
        self.since(2, 29, 2)
    }

    /// The fewest GPUs NVLink SHARP is set up for (`ncclNvlsInit`): three until 2.28.3,
    /// two from 2.28.7.
    pub fn nvls_min_gpus(self) -> usize {
        if self.since(2, 28, 7) { 2 } else { 3 }
    }

    /// Whether the search makes a separate CollNet-direct graph (2.22); before, one
    /// CollNet graph (tree pattern) serves both algorithms.
    pub fn collnet_direct_graph(self) -> bool {
        self.since(2, 22, 0)
    }
}

// ---- channels (ncclTopoPostset, ncclNvlsInit) ----------------------------------------

impl Release {
    /// Which nodes swap ring channel pairs (connect.cc `ncclTopoPostset`, "alternate
    /// rings to avoid crossing rails"): none before 2.20.3; odd nodes of an even node
    /// count when the ring crosses NICs at all (2.20.3); odd nodes when it crosses NICs
    /// (2.21); only when the (all-ranks) ring ended with crossNic 2 (2.26); each node by
    /// its own ring's crossNic 2 (2.28.3). Always with an even channel count.
    pub fn ring_pair_swap(self) -> RingPairSwap {
        if !self.since(2, 20, 3) {
            RingPairSwap::Never
        } else if !self.since(2, 21, 0) {
            RingPairSwap::AnyCrossNicEvenNodes
        } else if !self.since(2, 26, 0) {
            RingPairSwap::AnyCrossNic
        } else if !self.since(2, 28, 0) {
            RingPairSwap::AllRanksTwo
        } else {
            RingPairSwap::OwnTwo
        }
    }

    /// `MAXCHANNELS`: 32 until 2.24, 64 from 2.25 (also the search's: rings get half,
    /// and the NET and GPU choices loop over this many channels).
    pub fn max_channels(self) -> usize {
        if self.since(2, 25, 0) { 64 } else { 32 }
    }

    /// Multi-node rings faster than 45 GB/s double their channels on sm90 (`==`) until
    /// 2.24, on sm90 and newer from 2.25.
    pub fn doubles_multi_node_channels(self, min_cc: i32) -> bool {
        if self.since(2, 25, 0) { min_cc >= 90 } else { min_cc == 90 }
    }

    /// Whether the multi-node doubling still applies to `channels` channels: while
    /// under 16 (2.20), before while the double fits in MAXCHANNELS.
    pub fn doubling_room(self, channels: usize) -> bool {
        if self.since(2, 20, 0) { channels < 16 } else { 2 * channels <= self.max_channels() }
    }

    /// The collective channels are raised to the NVLS channel count (2.20 to 2.27).
    pub fn coll_channels_follow_nvls(self) -> bool {
        self.since(2, 20, 0) && !self.since(2, 28, 3)
    }

    /// On sm100+ GPUs across nodes the NVLS channels follow the node count, the GPUs a
    /// node and the slowest NIC (`ncclNvlsTreeSm100Tuning`, 2.30.3).
    pub fn nvls_sm100_tuning(self) -> bool {
        self.since(2, 30, 3)
    }

    /// NVLS channels when NCCL_NVLS_NCHANNELS is unset: 16 until 2.24; rank 0's sm100+
    /// GPU 32 (2.25), 24 on a single node (2.27).
    pub fn nvls_default_channels(self, cc: i32, multi_node: bool) -> usize {
        if cc >= 100 && self.since(2, 27, 0) {
            if multi_node { 32 } else { 24 }
        } else if cc >= 100 && self.since(2, 25, 0) {
            32
        } else {
            16
        }
    }
}
