//! What the tuning model asks (`ncclTopoTuneModel`, tuning.cc): its constant tables,
//! how it rates each algorithm and protocol, and what it enables.

use super::table::Release;

/// Which set of tuning constants a release ships (`tuning.cc`: base and per-hop
/// latencies, LL ceilings, per-channel ceilings), named by the release that introduced
/// it; the numbers live in `tune::constants`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum TuningTables {
    V2_18_1,
    V2_18_3,
    V2_19_1,
    V2_21,
    V2_23,
    V2_25,
    V2_28_3,
    V2_28_7,
    V2_28_9,
    V2_29_2,
    V2_29_7,
    V2_30_3,
}

/// How the tuning model rates NVLS and NVLS-tree bandwidth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NvlsBwModel {
    /// Like every other algorithm (the graph's intra bandwidth up to two nodes, inter
    /// beyond); `nvls_ratio` from bus to algorithm bandwidth for NVLS, `0.7 n / 2(n-1)`
    /// for NVLS tree; latency the base plus network hops only. AllReduce only.
    Plain { nvls_ratio: f64 },
    /// Per channel min(bwIntra, bwInter) for every collective (the tree halves the
    /// network beyond two nodes), no per-channel ceiling, 5/6 from bus to algorithm
    /// bandwidth, and the entry is rated even when the NVLS graph has no channel.
    MinIntraInter,
    /// As [`NvlsBwModel::MinIntraInter`], but AllGather and ReduceScatter get the
    /// other GPUs' share of NVLink and 90% of the network.
    PerCollective,
    /// NVLink at the generation's NVLS efficiency (AllReduce pipelines two
    /// operations), the NVLS-tree per-channel ceiling, `nRanks/nsteps` from bus to
    /// algorithm bandwidth, and nothing at all below two channels.
    Efficiency,
}

/// When LL128 is on by default (the "auto" value of NCCL_PROTO).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ll128Rule {
    /// Across nodes up to PXB (PXN on sm90+), NVB inside, GPUs of one compute
    /// capability, which must be one of the list.
    CompCaps(&'static [i32]),
    /// Across nodes up to PXB, or on sm90+ up to P2C with NCCL_LL128_C2C (PXN
    /// without); NVB inside; one compute capability, at least sm70.
    C2cOrPxn,
    /// Across nodes up to PXN on sm90+ with NCCL_LL128_C2C, else up to PXB; NVB inside;
    /// one compute capability (or, with `mixed_sm90`, any mix of sm90+), at least sm70.
    C2cPxnElsePxb { mixed_sm90: bool },
}

/// What the tuning model does for a collective left with no usable entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingBackup {
    /// Nothing: the collective keeps no entry.
    None,
    /// The ring gets its bandwidths back, every protocol.
    AllProtocols,
    /// The ring gets back the bandwidths of the protocols that were enabled for it.
    EnabledProtocols,
}

impl Release {
    /// The constant tables of the tuning model: 2.18.3 adds per-scale LL128 ceilings;
    /// 2.19 moves CollNet and NVLS latency to hops; 2.21 gives Hopper its own LL row and
    /// NVLS 25 us; 2.23 retunes Tree/Simple; 2.25 adds the Blackwell row; 2.28.3 the
    /// NVLS-tree ceilings; 2.28.7, 2.29.2 and 2.29.7 move Blackwell's ring LL128 ceiling;
    /// 2.28.9 the NVLS-tree network hop and 2.30.3 Blackwell's NVLS-tree ceiling.
    pub fn tuning_tables(self) -> TuningTables {
        use TuningTables::*;
        const STEPS: &[((u8, u8, u8), TuningTables)] = &[
            ((2, 30, 3), V2_30_3),
            ((2, 29, 7), V2_29_7),
            ((2, 29, 2), V2_29_2),
            ((2, 28, 9), V2_28_9),
            ((2, 28, 7), V2_28_7),
            ((2, 28, 3), V2_28_3),
            ((2, 25, 0), V2_25),
            ((2, 23, 0), V2_23),
            ((2, 21, 0), V2_21),
            ((2, 19, 1), V2_19_1),
            ((2, 18, 3), V2_18_3),
        ];
        STEPS.iter().find(|((a, b, c), _)| self.since(*a, *b, *c)).map_or(V2_18_1, |s| s.1)
    }

    /// NVLS AllGather runs whatever the element type and reduction (2.22; before, only
    /// where NVLS can reduce them).
    pub fn nvls_allgather_any_type(self) -> bool {
        self.since(2, 22, 0)
    }

    /// The PAT algorithm exists (2.23); before, NCCL knows six algorithms.
    pub fn has_pat(self) -> bool {
        self.since(2, 23, 0)
    }

    /// PAT's share of the tree graph's bandwidth: 85% in 2.23, 75% from 2.24.
    pub fn pat_bw_share(self) -> f64 {
        if self.since(2, 24, 0) { 0.75 } else { 0.85 }
    }

    /// PAT needs sm60 or newer (2.26); before, any GPU may run it.
    pub fn pat_needs_sm60(self) -> bool {
        self.since(2, 26, 0)
    }

    /// A ring AllReduce crosses the network `2 * nNodes` times (other collectives
    /// `nNodes - 1`) until 2.22; from 2.23 `2 * (nNodes - 1)` times.
    pub fn ring_net_steps_close_the_ring(self) -> bool {
        !self.since(2, 23, 0)
    }

    /// With one rank per node every algorithm pays the tree's network hop (2.23);
    /// before, each its own.
    pub fn one_ppn_pays_tree_net_hop(self) -> bool {
        self.since(2, 23, 0)
    }

    /// Ring LL128's share of the links with fewer than two ranks per node: 70% until
    /// 2.22, then the usual 92%.
    pub fn ring_ll128_share_below_2_ppn(self) -> f64 {
        if self.since(2, 23, 0) { 0.92 } else { 0.7 }
    }

    /// How NVLS and NVLS-tree bandwidth is rated: like the other algorithms (2.18),
    /// min(intra, inter) (2.19), per collective (2.27.3), at NVLS efficiency (2.28.3).
    pub fn nvls_bw_model(self) -> NvlsBwModel {
        if !self.since(2, 18, 3) {
            NvlsBwModel::Plain { nvls_ratio: 0.75 }
        } else if !self.since(2, 19, 0) {
            NvlsBwModel::Plain { nvls_ratio: 5.0 / 6.0 }
        } else if self.since(2, 28, 3) {
            NvlsBwModel::Efficiency
        } else if self.since(2, 27, 3) {
            NvlsBwModel::PerCollective
        } else {
            NvlsBwModel::MinIntraInter
        }
    }

    /// NVLS runs AllGather and ReduceScatter (2.19); before, AllReduce only.
    pub fn nvls_ag_rs_rated(self) -> bool {
        self.since(2, 19, 0)
    }

    /// CollNet direct runs AllGather and ReduceScatter (2.20); before, AllReduce only.
    pub fn collnet_direct_ag_rs_rated(self) -> bool {
        self.since(2, 20, 0)
    }

    /// The arity serialisation CollNet direct pays per local GPU: 0.5 us in 2.18, 0.4 us
    /// from 2.19.
    pub fn collnet_direct_arity_us(self) -> f64 {
        if self.since(2, 19, 0) { 0.4 } else { 0.5 }
    }

    /// Ring LL gets a quarter of the links on several nodes or for AllReduce and Reduce,
    /// a third otherwise, until 2.20; half from 2.21.
    pub fn ring_ll_quarter_or_third(self) -> bool {
        !self.since(2, 21, 0)
    }

    /// A plain TREE pattern (neither split nor balanced) costs the tree 15% (2.18.3).
    pub fn plain_tree_penalty(self) -> bool {
        self.since(2, 18, 3)
    }

    /// AllGather and ReduceScatter bandwidths of every algorithm but the ring are
    /// already algorithm bandwidths (2.23); before, only CollNet direct's.
    pub fn alg_bw_for_non_ring_ag_rs(self) -> bool {
        self.since(2, 23, 0)
    }

    /// CollNet direct AllGather/ReduceScatter run at `ppn * min(bwIntra, 0.9 bwInter)`,
    /// and NVLS and CollNet direct need a CollNet head for every local GPU (2.27.3);
    /// before, `ppn * bwIntra` corrected between 95% (1 ppn) and 85% (8 ppn), the heads
    /// check for CollNet direct only.
    pub fn collnet_ag_rs_capped_by_network(self) -> bool {
        self.since(2, 27, 3)
    }

    /// The tree's 15% penalty for a plain TREE pattern reads the largest pattern of
    /// any node (`maxTreePattern`, 2.26); before, rank 0's own tree graph.
    pub fn tree_penalty_reads_max_pattern(self) -> bool {
        self.since(2, 26, 0)
    }

    /// When LL128 is on by default: a list of compute capabilities until 2.26 (sm100
    /// and sm120 join in 2.25), NCCL_LL128_C2C from 2.27.3 (read the other way round
    /// from 2.27.5), mixed sm90+ GPUs from 2.30.3.
    pub fn ll128_rule(self) -> Ll128Rule {
        if self.since(2, 30, 3) {
            Ll128Rule::C2cPxnElsePxb { mixed_sm90: true }
        } else if self.since(2, 27, 5) {
            Ll128Rule::C2cPxnElsePxb { mixed_sm90: false }
        } else if self.since(2, 27, 3) {
            Ll128Rule::C2cOrPxn
        } else if self.since(2, 25, 0) {
            Ll128Rule::CompCaps(&[70, 80, 90, 100, 120])
        } else {
            Ll128Rule::CompCaps(&[70, 80, 90])
        }
    }

    /// LL128 may cross NVLink through another GPU (NVB) inside the node (2.18.3);
    /// before, direct NVLink only.
    pub fn ll128_through_nvb(self) -> bool {
        self.since(2, 18, 3)
    }

    /// NCCL_ALGO never turns the ring off for collectives other than AllReduce (2.18;
    /// 2.19 has the ring backup instead).
    pub fn ring_never_off_outside_allreduce(self) -> bool {
        !self.since(2, 19, 0)
    }

    /// NCCL_ALGO and NCCL_PROTO take per-collective entries (`allreduce:tree;...`) and
    /// refuse unknown names (2.24); before, one list for every collective whose unknown
    /// names are ignored.
    pub fn algo_proto_per_collective(self) -> bool {
        self.since(2, 24, 0)
    }

    /// Without CollNet, a NCCL_ALGO that leaves none of Ring, Tree, NVLS and NVLS tree
    /// gets Ring and Tree back (until 2.23).
    pub fn algo_falls_back_to_ring_tree(self) -> bool {
        !self.since(2, 24, 0)
    }

    /// What the model does for a collective whose every entry ended disabled: the
    /// ring comes back (2.19), only with its enabled protocols (2.22), not at all
    /// from 2.24.
    pub fn ring_backup(self) -> RingBackup {
        if self.since(2, 24, 0) || !self.since(2, 19, 0) {
            RingBackup::None
        } else if self.since(2, 22, 0) {
            RingBackup::EnabledProtocols
        } else {
            RingBackup::AllProtocols
        }
    }
}
