//! `topo tune`: NCCL's performance model over a sweep of message sizes, nccl-tests style.

use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};

use super::args::{InputArgs, ModelArgs, TermArgs, parse_size};
use super::{Ctx, analyze_input, search_options, search_with_progress};
use crate::bench::{DataType, RedOp};
use crate::error::Error;
use crate::tune::p2p::P2p;
use crate::tune::{self, Call, Func, Model, Sweep};

/// What `topo tune` models: a collective NCCL tunes, or one of nccl-tests'
/// point-to-point patterns, which NCCL does not tune (bounded by the paths instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuneFunc {
    Coll(Func),
    P2p(P2p),
}

impl ValueEnum for TuneFunc {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            TuneFunc::Coll(Func::Broadcast),
            TuneFunc::Coll(Func::Reduce),
            TuneFunc::Coll(Func::AllGather),
            TuneFunc::Coll(Func::ReduceScatter),
            TuneFunc::Coll(Func::AllReduce),
            TuneFunc::P2p(P2p::AllToAll),
            TuneFunc::P2p(P2p::SendRecv),
        ]
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        match self {
            TuneFunc::Coll(f) => f.to_possible_value(),
            TuneFunc::P2p(P2p::AllToAll) => Some(PossibleValue::new("alltoall")),
            TuneFunc::P2p(P2p::SendRecv) => Some(PossibleValue::new("sendrecv")),
        }
    }
}

/// One element type (`-d`), as nccl-tests names them; `topo tune` models one at a time.
fn parse_type(s: &str) -> Result<DataType, String> {
    DataType::from_str(s, false).map_err(|_| {
        let names: Vec<_> = DataType::ALL.iter().map(|t| t.name()).collect();
        format!("'{s}' is not a datatype topo tune models (one of {})", names.join(", "))
    })
}

/// One reduction (`-o`), as nccl-tests names them.
fn parse_op(s: &str) -> Result<RedOp, String> {
    RedOp::from_str(s, false)
        .map_err(|_| format!("'{s}' is not a reduction topo tune models (sum, prod, min, max or avg)"))
}

#[derive(Debug, Args)]
pub struct TuneArgs {
    /// The collective to model: one NCCL tunes, or alltoall/sendrecv, which NCCL runs as
    /// point-to-point sends without tuning (their bound from the paths is given).
    #[arg(value_enum, value_name = "FUNC", default_value = "allreduce")]
    pub func: TuneFunc,
    /// Element type, as nccl-tests' -d (int8, uint8, int32, uint32, int64, uint64, half,
    /// float, double, bfloat16): sizes become whole elements of it, and NVLS runs only
    /// the types it can reduce.
    #[arg(short = 'd', long = "datatype", value_name = "TYPE", default_value = "float", value_parser = parse_type)]
    pub datatype: DataType,
    /// Reduction, as nccl-tests' -o (sum, prod, min, max, avg): NVLS reduces only some.
    #[arg(short = 'o', long = "op", value_name = "OP", default_value = "sum", value_parser = parse_op)]
    pub op: RedOp,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Smallest size in bytes, as nccl-tests' -b (K, M, G suffixes are powers of 1024).
    #[arg(short = 'b', long = "minbytes", value_name = "SIZE", default_value = "8", value_parser = parse_size)]
    pub minbytes: u64,
    /// Largest size in bytes, as nccl-tests' -e.
    #[arg(short = 'e', long = "maxbytes", value_name = "SIZE", default_value = "8G", value_parser = parse_size)]
    pub maxbytes: u64,
    /// Multiply the size by this between rows, as nccl-tests' -f (default 2).
    #[arg(short = 'f', long = "stepfactor", value_name = "N", conflicts_with = "stepbytes")]
    pub stepfactor: Option<u64>,
    /// Add this many bytes between rows instead, as nccl-tests' -i.
    #[arg(short = 'i', long = "stepbytes", value_name = "SIZE", value_parser = parse_size)]
    pub stepbytes: Option<u64>,
    /// Also print NCCL's tuning table (latency/bandwidth per collective, algorithm and protocol).
    #[arg(long)]
    pub table: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub term: TermArgs,
}

impl TuneArgs {
    fn sweep(&self) -> Sweep {
        let factor = match (self.stepfactor, self.stepbytes) {
            (None, Some(_)) => None,
            (f, _) => Some(f.unwrap_or(2)),
        };
        Sweep { min: self.minbytes, max: self.maxbytes, factor, step: self.stepbytes.unwrap_or(0) }
    }
}

pub fn run(a: &TuneArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let (_, an) = analyze_input(&a.input, &a.model, ctx)?;
    let func = match a.func {
        TuneFunc::Coll(f) => f,
        TuneFunc::P2p(p) => {
            let b = tune::p2p::bound(&an, p);
            let text = crate::render::tune::p2p_report(&an, &b, a.json, &ctx.term(a.term.color));
            ctx.print(&text)?;
            return Ok(0);
        }
    };
    let so = search_options(&an, ctx)?;
    let (graphs, _) = search_with_progress(&an, &so, ctx)?;
    let call = Call { type_name: a.datatype.name(), op: a.op.name(), elem_bytes: a.datatype.size() as u64 };
    let m = Model::new(&an, &graphs)?.for_call(call);
    let swept = tune::sweep::sweep(&m, func, &a.sweep())?;
    let text = crate::render::tune::report(&an, &m, func, &swept, a.table, a.json, &ctx.term(a.term.color));
    for w in &m.warnings {
        ctx.warn(w)?;
    }
    ctx.print(&text)?;
    Ok(0)
}
