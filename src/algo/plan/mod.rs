//! `topo algo plan`: HCCL's view of a collective on the machine. Per level, the
//! algorithm HCCL would run ([`select`]); per rank, the resources its executor asks for
//! (sub-streams beside the main stream, notifies for main/sub synchronisation, links per
//! level, scratch) and each stream's task list ([`tasks`]).
//!
//! Links: inside a node SDMA-like (NVLink or PCIe; 4 notifies, Ack and DataSignal at
//! each end), between nodes RDMA-like (6 notifies, DataAck too). Link notifies come
//! with the links and are not counted in the executor's `notifies`. What each level-1
//! round moves follows from who talks to whom ([`flow`]).

pub mod buf;
pub mod flow;
pub mod select;
pub mod tasks;

use crate::model::{Analysis, PathType};

pub use buf::{Buf, BufRef, Off, Span};
pub use select::{Algo, Choice, Coll, Forced};
pub use tasks::{Stream, Task};

/// What a link is built as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum LinkKind {
    /// A copy engine over NVLink or PCIe.
    #[serde(rename = "SDMA")]
    Sdma,
    /// RDMA over the network.
    #[serde(rename = "RDMA")]
    Rdma,
}

/// One transport link of a rank.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Link {
    pub peer: u32,
    pub level: u8,
    pub kind: LinkKind,
    /// NCCL's path type to the peer (`NVL`, `PIX`, `SYS`, ...) or `NET`.
    pub over: String,
    /// Notifies the link owns (4 SDMA, 6 RDMA).
    pub notifies: u32,
}

/// One rank's resources and streams.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RankPlan {
    pub rank: u32,
    pub sub_streams: u32,
    /// Main/sub synchronisation notifies (2 per sub-stream).
    pub notifies: u32,
    pub scratch_bytes: u64,
    pub links: Vec<Link>,
    /// The main stream first, then the sub-streams.
    pub streams: Vec<Stream>,
}

/// The whole plan.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    pub coll: Coll,
    pub machine: String,
    pub nodes: usize,
    pub per_node: usize,
    pub bytes: u64,
    pub levels: Vec<Choice>,
    pub executor: String,
    pub ranks: Vec<RankPlan>,
}

/// The best NIC bandwidth of GPU `local` (GB/s), 0 without a NIC.
fn nic_gbs(an: &Analysis, local: usize) -> f64 {
    an.paths
        .gpu_net
        .iter()
        .filter(|r| r.rank == Some(local as i32) || r.from == Some(local as i32))
        .map(|r| f64::from(r.bw))
        .fold(0.0, f64::max)
}

fn path_type(an: &Analysis, a: usize, b: usize) -> Option<PathType> {
    an.paths.gpu_gpu.iter().find(|r| r.from == Some(a as i32) && r.to == Some(b as i32)).map(|r| r.ty)
}

/// Plan `coll` of `bytes` (the call's size: all ranks' for allgather/reducescatter) on an
/// analysed machine of `an.options.nodes` nodes.
pub fn plan(an: &Analysis, coll: Coll, bytes: u64, forced: &Forced) -> Result<Plan, String> {
    let d = an.gpus.len();
    let m = an.options.nodes.max(1);
    if d == 0 {
        return Err(format!("{} has no GPU NCCL would use", an.input));
    }
    if m == 1 && d == 1 {
        return Err(format!("{} has one GPU: nothing to plan (give --nodes 2 or more)", an.input));
    }
    let all_direct = (0..d).all(|a| (0..d).all(|b| a == b || path_type(an, a, b) == Some(PathType::Nvl)));
    let l0 = select::level0(d, all_direct, forced.level0);
    let l1 = select::level1(coll, m, d, l0.algo == Algo::Mesh, bytes, nic_gbs(an, 0), forced.level1);
    if m > 1 && l1.algo == Algo::Single {
        return Err("level1 NA between nodes: give ring, H-D_R, NHR, NB or pipeline".into());
    }
    let shape = tasks::Shape { coll, d, m, bytes, l0: l0.algo, l1: l1.algo };
    let executor = shape.executor();
    let l1_flow = tasks::Level1::new(&shape)?;
    let mut ranks = Vec::with_capacity(d * m);
    for r in 0..d * m {
        let (streams, peers0, peers1) = tasks::streams(&shape, r, &l1_flow);
        let sub_streams = streams.len() as u32 - 1;
        let mut links = Vec::new();
        for p in peers0 {
            let over = path_type(an, r % d, p % d).map_or("?".to_string(), |t| t.name().to_string());
            links.push(Link { peer: p as u32, level: 0, kind: LinkKind::Sdma, over, notifies: 4 });
        }
        for p in peers1 {
            links.push(Link { peer: p as u32, level: 1, kind: LinkKind::Rdma, over: "NET".into(), notifies: 6 });
        }
        ranks.push(RankPlan {
            rank: r as u32,
            sub_streams,
            notifies: 2 * sub_streams,
            scratch_bytes: shape.scratch(),
            links,
            streams,
        });
    }
    Ok(Plan { coll, machine: an.input.clone(), nodes: m, per_node: d, bytes, levels: vec![l0, l1], executor, ranks })
}

#[cfg(test)]
mod tests;
