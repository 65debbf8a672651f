//! NCCL's performance model: for each collective, algorithm and protocol, a latency and a
//! bandwidth derived from the search graphs (`ncclTopoTuneModel`), then, for one message
//! size, the algorithm and protocol with the lowest predicted time (`ncclTopoGetAlgoTime`
//! and `topoGetAlgoInfo`), as NCCL 2.30.7 computes them, or the release `--nccl-version`
//! chooses: its constant tables ([`constants::tables`]) and the model's changes since
//! 2.18 ([`crate::release::Release`] names each; the prediction side is 2.30.7's).
//!
//! ```no_run
//! # fn main() -> Result<(), topo::error::Error> {
//! use topo::tune::{Func, Model};
//! let (xml, _) = topo::fixtures::get("dgx-h100")?.load()?;
//! let an = topo::model::analyze(&xml, "dgx-h100", &Default::default())?;
//! let so = topo::search::SearchOptions::from_analysis(&an);
//! let (graphs, _) = topo::search::run(&an, &so)?;
//! let model = Model::new(&an, &graphs)?;
//! let p = model.predict(Func::AllReduce, 1 << 30)?;
//! println!("{} {} {:.1} us, busbw {:.1} GB/s ({})", p.algo, p.proto, p.time_us, p.busbw_gbs, p.bottleneck);
//! # Ok(()) }
//! ```
//!
//! Everything the model uses comes from the topology, the graphs and the NCCL_* variables,
//! except a few facts only a running job knows; those are fixed and listed in
//! [`Model::assumptions`]: float sum, one collective per launch, no tuner plugin, a
//! host-based network plugin, unregistered buffers, NCCL built with CUDA 12.
//!
//! The pieces, in the order NCCL runs them:
//! - [`comm`]: the communicator facts init leaves (nodes, ranks, the graphs aligned over
//!   every rank, channel counts from [`crate::search::channels`]);
//! - `tuning`: `ncclTopoTuneModel` put together, over [`table`]s indexed by [`Func`],
//!   [`Algo`] and [`Proto`]; `threads` (thread counts and thresholds), `bandwidth` and
//!   `latency` (one function per algorithm), [`enable`] (NCCL_ALGO/NCCL_PROTO, LL128);
//!   [`limit`] says what bounds each bandwidth;
//! - `predict`: for one size, the time of every entry, NCCL's choice and its launch.

mod bandwidth;
mod call;
pub mod comm;
pub mod constants;
mod ctx;
pub mod enable;
pub mod env;
mod latency;
pub mod limit;
pub mod p2p;
mod predict;
pub mod sweep;
pub mod table;
mod threads;
mod tuning;

pub use call::Call;
pub use comm::{Comm, GraphFacts};
pub use predict::Prediction;
pub use predict::short;
pub use sweep::{Sweep, Swept};
pub use tuning::Table;
use tuning::tune;

use crate::error::Error;
use crate::model::Analysis;
use crate::search::Graphs;

use limit::Limit;
use table::PerFuncAlgoProto;

/// Number of collectives, algorithms and protocols in NCCL's tables.
pub const NFUNC: usize = 5;
pub const NALGO: usize = 7;
pub const NPROTO: usize = 3;

/// A collective, in NCCL's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    Broadcast = 0,
    Reduce = 1,
    AllGather = 2,
    ReduceScatter = 3,
    AllReduce = 4,
}

impl Func {
    pub const ALL: [Func; NFUNC] =
        [Func::Broadcast, Func::Reduce, Func::AllGather, Func::ReduceScatter, Func::AllReduce];
    /// NCCL's name (`ncclFuncStr`).
    pub fn name(self) -> &'static str {
        ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"][self as usize]
    }
    /// nccl-tests' bus bandwidth factor for `n` ranks: busbw = algbw x factor.
    pub fn bus_factor(self, n: usize) -> f64 {
        let n = n as f64;
        match self {
            Func::AllReduce => 2.0 * (n - 1.0) / n,
            Func::AllGather | Func::ReduceScatter => (n - 1.0) / n,
            Func::Broadcast | Func::Reduce => 1.0,
        }
    }
}

/// An algorithm, in NCCL's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algo {
    Tree = 0,
    Ring = 1,
    CollNetDirect = 2,
    CollNetChain = 3,
    Nvls = 4,
    NvlsTree = 5,
    Pat = 6,
}

impl Algo {
    pub const ALL: [Algo; NALGO] =
        [Algo::Tree, Algo::Ring, Algo::CollNetDirect, Algo::CollNetChain, Algo::Nvls, Algo::NvlsTree, Algo::Pat];
    /// NCCL's name (`ncclAlgoStr`), as NCCL_ALGO takes it.
    pub fn name(self) -> &'static str {
        ["Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"][self as usize]
    }
}

/// A protocol, in NCCL's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Proto {
    Ll = 0,
    Ll128 = 1,
    Simple = 2,
}

impl Proto {
    pub const ALL: [Proto; NPROTO] = [Proto::Ll, Proto::Ll128, Proto::Simple];
    /// NCCL's name (`ncclProtoStr`), as NCCL_PROTO takes it.
    pub fn name(self) -> &'static str {
        ["LL", "LL128", "Simple"][self as usize]
    }
}

macro_rules! display_by_name {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
    )*};
}
display_by_name!(Func, Algo, Proto);

/// GPU generation, the row of NCCL's per-architecture constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Arch {
    Volta = 0,
    Ampere = 1,
    Hopper = 2,
    Blackwell = 3,
}

impl Arch {
    /// NCCL's compute-capability index: sm100+ Blackwell, sm90 Hopper, sm80 Ampere, else Volta.
    pub fn from_cc(cc: i32) -> Arch {
        if cc >= 100 {
            Arch::Blackwell
        } else if cc >= 90 {
            Arch::Hopper
        } else if cc >= 80 {
            Arch::Ampere
        } else {
            Arch::Volta
        }
    }
    pub fn name(self) -> &'static str {
        ["Volta", "Ampere", "Hopper", "Blackwell"][self as usize]
    }
}

/// The model for one communicator: build once, then ask for any size.
#[derive(Debug, Clone)]
pub struct Model {
    pub comm: Comm,
    pub table: Table,
    /// What limits each (func, algo, proto) entry.
    limits: PerFuncAlgoProto<Limit>,
    /// Values NCCL would misread or correct, and choices the user should know about.
    pub warnings: Vec<String>,
    /// NCCL_ALGO / NCCL_PROTO as given, for error messages.
    pub algo_env: Option<String>,
    pub proto_env: Option<String>,
    /// The element type and reduction of the calls modelled (float sum unless set).
    pub call: Call,
}

pub(crate) fn log2i(n: u64) -> i64 {
    if n == 0 { -1 } else { 63 - n.leading_zeros() as i64 }
}

impl Model {
    /// Build the model from the analysed system and the graphs the search found for it.
    /// Fails when NCCL_ALGO or NCCL_PROTO does not parse (NCCL fails its init then).
    pub fn new(an: &Analysis, gs: &Graphs) -> Result<Model, Error> {
        let env = &an.options.env;
        let mut warnings = Vec::new();
        let comm = comm::comm(an, gs, &mut warnings)?;
        let algo_env = env.tune.algo.clone();
        let proto_env = env.tune.proto.clone();
        let (table, limits) = tune(&comm, env, algo_env.as_deref(), proto_env.as_deref(), &mut warnings)?;
        Ok(Model { comm, table, limits, warnings, algo_env, proto_env, call: Call::FLOAT_SUM })
    }

    /// The model for calls of another element type and reduction (nccl-tests' -d, -o).
    pub fn for_call(mut self, call: Call) -> Model {
        self.call = call;
        self
    }

    /// Whether NVLS can run `func` on the calls modelled: NCCL's multicast reduces only
    /// some types and operators ([`Call::nvls_reduces`]); AllGather reduces nothing, and
    /// from 2.22 NCCL lets it through whatever the type.
    pub fn nvls_runs(&self, func: Func) -> bool {
        self.call.nvls_reduces() || (func == Func::AllGather && self.comm.release.nvls_allgather_any_type())
    }

    /// The facts this model fixes because only a running job knows them.
    pub fn assumptions(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "data type {}, reduction {}, one collective per launch{}",
                self.call.type_name,
                self.call.op,
                if self.call == Call::FLOAT_SUM { " (nccl-tests defaults)" } else { "" }
            ),
            "no tuner plugin, buffers not registered (no symmetric or copy-engine kernels)".to_string(),
            "network plugin host-based (IB verbs or sockets; no GPU-side unpack doubling of channels)".to_string(),
            "NCCL built with CUDA 12 (the CUDA 11.8 Hopper LL128 exception does not apply)".to_string(),
            format!(
                "no SM count or driver version enters NCCL {}'s tuning: the GPUs' compute capability is all it reads",
                self.comm.release
            ),
        ];
        if self.comm.nvls_support {
            v.push("driver exposes NVLink SHARP multicast (CUDA >= 12.1), as the search assumed".to_string());
        }
        if self.comm.collnet_enable {
            v.push(format!(
                "CollNet plugin supports allreduce, allgather and reducescatter on {} {}; {} head(s) per node; chain heads are a subset of direct heads",
                self.call.type_name, self.call.op, self.comm.collnet_heads
            ));
        }
        v
    }

    /// The algorithms the release knows, in NCCL's order: all but PAT before 2.23.
    pub fn algos(&self) -> &'static [Algo] {
        if self.comm.release.has_pat() { &Algo::ALL } else { &Algo::ALL[..NALGO - 1] }
    }

    /// What limits one table entry (its text is NCCL-independent prose: `to_string()`).
    pub fn limit(&self, f: Func, a: Algo, p: Proto) -> Limit {
        self.limits[f][a][p]
    }
}

#[cfg(test)]
mod tests;
