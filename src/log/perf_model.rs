//! nccl-tests' measurements held against the model: for each size of a table, the bus
//! bandwidth NCCL's tuning model predicts on the machine the log ran on (for the test's
//! collective, element type and reduction), and the share of it the run reached.
//! AllToAll and SendRecv, which NCCL does not tune, are held against their bound from
//! the paths ([`crate::tune::p2p`]).

use serde::Serialize;

use super::perf::PerfTable;
use crate::model::Analysis;
use crate::search::Graphs;
use crate::tune::p2p::{self, P2p};
use crate::tune::{Call, Func, Model};

/// One size: measured against the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerfVerdict {
    pub bytes: u64,
    /// Out-of-place busbw the run measured (GB/s).
    pub measured_busbw: f64,
    /// busbw the model predicts, or the paths allow (AllToAll, SendRecv).
    pub model_busbw: f64,
    /// measured / model, in percent.
    pub percent: f64,
    /// NCCL's pick (`Ring/Simple`), or `bound` for what NCCL does not tune.
    pub pick: String,
    /// What limits the model's figure.
    pub bottleneck: String,
}

/// A table held against the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerfComparison {
    /// The collective (`allreduce`...), as `topo tune` names it.
    pub func: String,
    pub ranks: usize,
    #[serde(rename = "type")]
    pub dtype: String,
    pub redop: String,
    pub rows: Vec<PerfVerdict>,
}

/// The element size of an nccl-tests type name, with the name as NCCL's model takes it.
fn call(dtype: &str, redop: &str) -> Option<Call> {
    const TYPES: [(&str, u64); 10] = [
        ("int8", 1),
        ("uint8", 1),
        ("int32", 4),
        ("uint32", 4),
        ("int64", 8),
        ("uint64", 8),
        ("half", 2),
        ("float", 4),
        ("double", 8),
        ("bfloat16", 2),
    ];
    const OPS: [&str; 5] = ["sum", "prod", "max", "min", "avg"];
    let &(type_name, elem_bytes) = TYPES.iter().find(|(t, _)| *t == dtype)?;
    let op = OPS.iter().find(|&&o| o == redop).copied().unwrap_or("sum");
    Some(Call { type_name, op, elem_bytes })
}

fn func_of(name: &str) -> Option<Result<Func, P2p>> {
    Some(match name {
        "allreduce" => Ok(Func::AllReduce),
        "allgather" => Ok(Func::AllGather),
        "reducescatter" => Ok(Func::ReduceScatter),
        "broadcast" => Ok(Func::Broadcast),
        "reduce" => Ok(Func::Reduce),
        "alltoall" => Err(P2p::AllToAll),
        "sendrecv" => Err(P2p::SendRecv),
        _ => return None,
    })
}

/// Each table of the log against the model of `an` (the model's ranks; a table of
/// another size of job is left out: it ran on another number of GPUs).
pub fn against(tables: &[PerfTable], an: &Analysis, gs: &Graphs) -> Vec<PerfComparison> {
    let mut out = Vec::new();
    for t in tables {
        let Some(name) = t.func() else { continue };
        let Some(kind) = func_of(name) else { continue };
        if t.ranks.is_some_and(|n| n as usize != an.n_ranks) {
            continue;
        }
        let Some(first) = t.rows.first() else { continue };
        let Some(c) = call(&first.dtype, &first.redop) else { continue };
        let rows: Vec<PerfVerdict> = match kind {
            Ok(func) => {
                let Ok(m) = Model::new(an, gs) else { continue };
                let m = m.for_call(c);
                t.rows
                    .iter()
                    .filter_map(|r| {
                        let bytes = crate::tune::sweep::nccl_tests_bytes(func, an.n_ranks, r.bytes, c.elem_bytes);
                        let p = m.predict(func, bytes).ok()?;
                        Some(verdict(
                            r.bytes,
                            r.oop[2],
                            p.busbw_gbs,
                            format!("{}/{}", p.algo.name(), p.proto.name()),
                            p.bottleneck,
                        ))
                    })
                    .collect()
            }
            Err(kind) => {
                let b = p2p::bound(an, kind);
                let Some(bus) = b.busbw_gbs else { continue };
                let why = b.limits.first().map(|l| format!("{}: {} {} GB/s", l.what, l.ty, l.bw)).unwrap_or_default();
                t.rows.iter().map(|r| verdict(r.bytes, r.oop[2], bus, "bound".into(), why.clone())).collect()
            }
        };
        out.push(PerfComparison {
            func: name.to_string(),
            ranks: an.n_ranks,
            dtype: c.type_name.to_string(),
            redop: first.redop.clone(),
            rows,
        });
    }
    out
}

fn verdict(bytes: u64, measured: f64, model: f64, pick: String, bottleneck: String) -> PerfVerdict {
    let percent = if model > 0.0 { measured / model * 100.0 } else { 0.0 };
    PerfVerdict { bytes, measured_busbw: measured, model_busbw: model, percent, pick, bottleneck }
}
