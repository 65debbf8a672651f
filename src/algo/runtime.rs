//! The three runtimes that execute MSCCL-IR, and every rule in which they differ.
//!
//! msccl-executor-nccl (NCCL 2.23 with MSCCL, the default), RCCL's MSCCL and the older
//! microsoft/msccl (NCCL 2.12) share one hand-written tokenizer and most of one
//! loader; they differ in limits, in the collectives and header attributes they know,
//! and in what their kernels can run. The other modules of the stage ask here and
//! never compare runtimes themselves.

use super::program::{Collective, Protocol};

/// The operands a fused reduction really reads: the destination's value or not, and
/// how many of its sources (the first ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReduceReads {
    pub destination: bool,
    pub sources: usize,
}

/// Whose rules a program is read and checked by (`--runtime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// Azure/msccl-executor-nccl.
    #[default]
    Executor,
    /// ROCm/rccl's MSCCL.
    Rccl,
    /// microsoft/msccl, the NCCL 2.12 fork.
    Legacy,
}

/// FIFO slots per connection (NCCL_STEPS), the same in every runtime.
pub const NCCL_STEPS: u32 = 8;

impl Runtime {
    pub const ALL: [Runtime; 3] = [Runtime::Executor, Runtime::Rccl, Runtime::Legacy];

    pub fn name(self) -> &'static str {
        match self {
            Runtime::Executor => "executor",
            Runtime::Rccl => "rccl",
            Runtime::Legacy => "legacy",
        }
    }

    /// The project a user knows the runtime by.
    pub fn long_name(self) -> &'static str {
        match self {
            Runtime::Executor => "msccl-executor-nccl",
            Runtime::Rccl => "RCCL's MSCCL",
            Runtime::Legacy => "microsoft/msccl",
        }
    }

    pub fn parse(s: &str) -> Option<Runtime> {
        Runtime::ALL.into_iter().find(|r| r.name() == s)
    }

    /// MSCCL_MAX_NUM_STEPS: the bound on `s` (and the step numbers a flag encodes).
    pub fn max_steps(self) -> u32 {
        match self {
            Runtime::Executor | Runtime::Rccl => 64,
            Runtime::Legacy => 256,
        }
    }

    /// MSCCL_MAX_NUM_THREAD_BLOCKS: the bound on thread block ids.
    pub fn max_tbs(self) -> u32 {
        match self {
            Runtime::Executor => 1024,
            Runtime::Rccl => 64,
            Runtime::Legacy => 216,
        }
    }

    /// Sending (and, separately, receiving) thread blocks one channel may hold.
    pub fn max_tbs_per_channel(self) -> u32 {
        32
    }

    /// MAXCHANNELS: `chan` may be 0 to this value inclusive (the parser's off-by-one).
    pub fn max_channels(self) -> u32 {
        match self {
            Runtime::Executor | Runtime::Legacy => 32,
            Runtime::Rccl => 128,
        }
    }

    /// MSCCL_MAX_COUNT: `cnt` must be below it.
    pub fn max_count(self) -> u32 {
        72
    }

    /// MSCCL_MAX_REDUCE_FUSION: consecutive `re` steps fused into one reduction.
    pub fn max_reduce_fusion(self) -> u32 {
        16
    }

    /// What a fused reduction of `n` sources reads at the message sizes that fill a
    /// chunk with at least a block's threads worth of elements (the kernels' vector
    /// path). Under Simple the destination is appended as source `n + 1` and the
    /// reduction reads at most MSCCL_MAX_REDUCE_FUSION operands (executor and RCCL:
    /// prims_simple.h `srcs[nsrcs] = dsts[0]`, reduceCopy's `s < MaxSrcs`; microsoft/msccl:
    /// ReduceOrCopyMulti copies `MAXSRCS` pointers), so from 16 sources on the
    /// destination's own value is dropped, and sources past the 16th with it. LL and
    /// LL128 load the destination apart and read every source. The same in all three.
    pub fn fused_reduce_reads(self, proto: Protocol, n: usize) -> ReduceReads {
        let max = self.max_reduce_fusion() as usize;
        match proto {
            Protocol::Simple if n + 1 > max => ReduceReads { destination: false, sources: n.min(max) },
            _ => ReduceReads { destination: true, sources: n },
        }
    }

    /// Elements the parser stores per rank (the algo, every gpu, the rank's own thread
    /// blocks and steps) before "XML parser is limited to ... nodes".
    pub fn max_nodes(self) -> u32 {
        match self {
            Runtime::Executor | Runtime::Rccl => 4096,
            Runtime::Legacy => 1024,
        }
    }

    /// Children one stored element may hold: the runtime's table is not bounds-checked.
    pub fn max_subs(self) -> u32 {
        1024
    }

    /// Whether the header must carry `outofplace`, `minBytes` and `maxBytes`.
    pub fn needs_size_range(self) -> bool {
        !matches!(self, Runtime::Legacy)
    }

    /// Whether the header must carry `name`.
    pub fn needs_name(self) -> bool {
        matches!(self, Runtime::Legacy)
    }

    /// Whether `maxBytes` is inclusive with 0 meaning unbounded (executor, RCCL), or
    /// exclusive with a default of 128 MiB (legacy).
    pub fn max_bytes_inclusive(self) -> bool {
        !matches!(self, Runtime::Legacy)
    }

    /// The default `maxBytes` when the header has none (legacy only).
    pub fn default_max_bytes(self) -> i64 {
        1 << 27
    }

    /// Whether the kernels can run `rcs`, `rrs`, `rrc` and `rrcs` (RCCL's are built
    /// without them since its "Improve MSCCL algorithms" change).
    pub fn runs_fused_steps(self) -> bool {
        !matches!(self, Runtime::Rccl)
    }

    /// Whether the parser checks peers against the communicator size.
    pub fn checks_peer_range(self) -> bool {
        matches!(self, Runtime::Legacy)
    }

    /// Whether the parser holds `i_chunks`/`o_chunks` against `nchunksperloop`.
    pub fn checks_chunk_counts(self) -> bool {
        matches!(self, Runtime::Legacy)
    }

    /// Bits of the channel id the runtime stores (a wider value wraps).
    pub fn channel_bits(self) -> u32 {
        match self {
            Runtime::Executor | Runtime::Rccl => 16,
            Runtime::Legacy => 8,
        }
    }

    /// Whether the parser accepts `type="ra"` (which no interpreter executes).
    pub fn accepts_res_add(self) -> bool {
        matches!(self, Runtime::Legacy)
    }

    /// The collective a `coll` value names for this runtime, or `None` when the runtime
    /// refuses it ("unsupported collective").
    pub fn collective(self, name: &str) -> Option<Collective> {
        let c = match (self, name) {
            (_, "allreduce") => Collective::AllReduce,
            (_, "allgather") => Collective::AllGather,
            (_, "alltoall") => Collective::AllToAll,
            (Runtime::Legacy, "reduce_scatter") => Collective::ReduceScatter,
            (Runtime::Legacy, "custom") => Collective::Custom,
            (Runtime::Legacy, _) => return None,
            (_, "reducescatter") => Collective::ReduceScatter,
            (_, "broadcast") => Collective::Broadcast,
            (_, "reduce") => Collective::Reduce,
            (_, "send") => Collective::Send,
            (_, "recv") => Collective::Recv,
            (_, "gather") => Collective::Gather,
            (_, "scatter") => Collective::Scatter,
            (_, "alltoallv") => Collective::AllToAllV,
            _ => return None,
        };
        Some(c)
    }

    /// How this runtime spells a collective (`None`: it has no such collective).
    pub fn collective_name(self, coll: Collective) -> Option<&'static str> {
        match (self, coll) {
            (Runtime::Legacy, Collective::ReduceScatter) => Some("reduce_scatter"),
            (
                Runtime::Legacy,
                Collective::AllReduce | Collective::AllGather | Collective::AllToAll | Collective::Custom,
            ) => Some(coll.xml_name()),
            (Runtime::Legacy, _) => None,
            (_, Collective::Custom) => None,
            _ => Some(coll.xml_name()),
        }
    }

    /// Threads per block the runtime launches for a protocol (the residency question).
    pub fn threads_per_block(self, simple: bool) -> u32 {
        match (self, simple) {
            (Runtime::Rccl, _) => 256,
            (_, true) => 544,
            (_, false) => 640,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in Runtime::ALL {
            assert_eq!(Runtime::parse(r.name()), Some(r));
        }
        assert_eq!(Runtime::parse("nccl"), None);
    }

    #[test]
    fn collective_spellings_differ_by_runtime() {
        assert_eq!(Runtime::Executor.collective("reducescatter"), Some(Collective::ReduceScatter));
        assert_eq!(Runtime::Executor.collective("reduce_scatter"), None);
        assert_eq!(Runtime::Legacy.collective("reduce_scatter"), Some(Collective::ReduceScatter));
        assert_eq!(Runtime::Legacy.collective("broadcast"), None);
        assert_eq!(Runtime::Rccl.collective("custom"), None);
        for r in Runtime::ALL {
            for c in [Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll] {
                let name = r.collective_name(c).unwrap();
                assert_eq!(r.collective(name), Some(c), "{r:?} {c:?}");
            }
        }
    }

    #[test]
    fn simple_reductions_read_sixteen_operands() {
        use super::super::program::Protocol;
        let r = Runtime::Executor;
        assert_eq!(r.fused_reduce_reads(Protocol::Simple, 15), ReduceReads { destination: true, sources: 15 });
        assert_eq!(r.fused_reduce_reads(Protocol::Simple, 16), ReduceReads { destination: false, sources: 16 });
        assert_eq!(r.fused_reduce_reads(Protocol::Simple, 18), ReduceReads { destination: false, sources: 16 });
        assert_eq!(r.fused_reduce_reads(Protocol::LL, 18), ReduceReads { destination: true, sources: 18 });
        assert_eq!(r.fused_reduce_reads(Protocol::LL128, 16), ReduceReads { destination: true, sources: 16 });
    }

    #[test]
    fn limits_follow_the_runtimes() {
        assert_eq!(Runtime::Executor.max_steps(), 64);
        assert_eq!(Runtime::Legacy.max_steps(), 256);
        assert_eq!(Runtime::Rccl.max_tbs(), 64);
        assert_eq!(Runtime::Rccl.max_channels(), 128);
        assert!(!Runtime::Rccl.runs_fused_steps());
    }
}
