//! AllToAll and SendRecv, which NCCL does not tune: they are grouped ncclSend/ncclRecv
//! calls that go through the P2P, SHM and NET transports, with no algorithm or protocol
//! to pick and no entry in `ncclTopoTuneModel`'s tables. What bounds them is the paths:
//! here, the bus bandwidth they could reach if every transfer ran at the bandwidth of
//! its path (NCCL's path bandwidths), for nccl-tests' patterns. A bound, not a
//! prediction.

use crate::model::system::NodeRef;
use crate::model::{Analysis, NodeType, PathType, paths};

/// The two point-to-point patterns of nccl-tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum P2p {
    /// `alltoall_perf`: every rank sends 1/n of its buffer to every rank.
    AllToAll,
    /// `sendrecv_perf`: rank r sends its buffer to rank r+1 (mod n).
    SendRecv,
}

impl P2p {
    pub fn name(self) -> &'static str {
        match self {
            P2p::AllToAll => "AllToAll",
            P2p::SendRecv => "SendRecv",
        }
    }
}

/// A path that bounds the transfers, as the bound's reason.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Limit {
    /// What the path carries (`GPU to GPU`, `GPU to its NIC`...).
    pub what: String,
    #[serde(rename = "type")]
    pub ty: PathType,
    /// GB/s, as the f32 NCCL keeps prints (370.8).
    pub bw: f64,
}

/// The bound: nccl-tests' bus bandwidth at most, and the paths that set it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Bound {
    pub func: P2p,
    pub n_ranks: usize,
    pub local_ranks: usize,
    /// Bus bandwidth (GB/s) at most, nccl-tests' definition; `None` for one rank.
    pub busbw_gbs: Option<f64>,
    pub limits: Vec<Limit>,
}

/// The bound of `func` on this analysis (rank 0's node; every node alike).
pub fn bound(an: &Analysis, func: P2p) -> Bound {
    let sys = &an.system;
    let local: Vec<i32> = sys.list(NodeType::Gpu).iter().map(|g| g.gpu_rank()).collect();
    let (l, n) = (local.len(), an.n_ranks.max(1));
    let path = |a: i32, b: i32| an.paths.gpu_gpu.iter().find(|p| p.from == Some(a) && p.to == Some(b));
    // Each GPU's path to the NIC it sends through (channel 0's, as NCCL picks it).
    let net = |r: i32| {
        let g = sys.gpu_by_rank(r)?;
        let nt = paths::local_net(sys, &an.params, r, 0)?;
        let p = sys.path(NodeRef::new(NodeType::Gpu, g), NodeRef::new(NodeType::Net, nt));
        Some((p.ty, p.bw))
    };
    let mut limits = Vec::new();
    let mut algbw = f64::INFINITY;
    let nf = n as f64;
    match func {
        P2p::SendRecv => {
            for (i, &r) in local.iter().enumerate() {
                let crosses = i + 1 == l && n > l;
                let hop = if crosses {
                    net(r).map(|(ty, bw)| (format!("GPU{r} to its NIC (to the next node)"), ty, bw))
                } else {
                    let next = local[(i + 1) % l];
                    path(r, next).filter(|_| next != r).map(|p| (format!("GPU{r} to GPU{next}"), p.ty, p.bw))
                };
                if let Some((what, ty, bw)) = hop
                    && (bw as f64) < algbw
                {
                    algbw = bw as f64;
                    limits = vec![Limit { what, ty, bw: super::short(bw) }];
                }
            }
        }
        P2p::AllToAll => {
            for &r in &local {
                let peers: Vec<_> = local.iter().filter(|&&q| q != r).filter_map(|&q| path(r, q)).collect();
                if let (Some(slow), Some(fast)) = (
                    peers.iter().min_by(|a, b| a.bw.total_cmp(&b.bw)),
                    peers.iter().max_by(|a, b| a.bw.total_cmp(&b.bw)),
                ) {
                    // 1/n of the buffer to each peer over its path; (l-1)/n of it through
                    // the GPU's own links, which its widest path spans.
                    let b = (slow.bw as f64 * nf).min(fast.bw as f64 * nf / (l - 1) as f64);
                    if b < algbw {
                        algbw = b;
                        let what = format!("GPU{r} to the other GPUs of its node");
                        limits = vec![Limit { what, ty: slow.ty, bw: super::short(slow.bw) }];
                    }
                }
                if n > l
                    && let Some((ty, bw)) = net(r)
                {
                    // (n-l)/n of the buffer leaves the node through the GPU's NIC.
                    let b = bw as f64 * nf / (n - l) as f64;
                    if b < algbw {
                        algbw = b;
                        limits = vec![Limit {
                            what: format!("GPU{r} to its NIC (to the other nodes)"),
                            ty,
                            bw: super::short(bw),
                        }];
                    }
                }
            }
        }
    }
    let bus = match func {
        P2p::SendRecv => 1.0,
        P2p::AllToAll => (nf - 1.0) / nf,
    };
    let busbw_gbs = (n > 1 && algbw.is_finite()).then(|| super::short((algbw * bus) as f32));
    Bound { func, n_ranks: n, local_ranks: l, busbw_gbs, limits }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis(nodes: usize) -> Analysis {
        let (x, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let opts = crate::model::Options { nodes, ..crate::model::Options::default() };
        crate::model::analyze(&x, "t", &opts).unwrap()
    }

    /// One DGX H100: NVSwitch paths of 370.8 GB/s; two: each GPU's NIC (48 GB/s) carries
    /// half of an AllToAll, and the last GPU's SendRecv.
    #[test]
    fn bounds_on_a_dgx_h100() {
        let one = bound(&analysis(1), P2p::AllToAll);
        let b = one.busbw_gbs.unwrap();
        assert!((b - 370.8 * 8.0 / 7.0 * 7.0 / 8.0).abs() < 0.1, "{one:?}");
        let two = bound(&analysis(2), P2p::AllToAll);
        assert!((two.busbw_gbs.unwrap() - 48.0 * 15.0 / 8.0).abs() < 0.1, "{two:?}");
        assert_eq!(two.limits[0].ty, PathType::Pix);
        let sr = bound(&analysis(2), P2p::SendRecv);
        assert!((sr.busbw_gbs.unwrap() - 48.0).abs() < 0.1, "{sr:?}");
        assert!(sr.limits[0].what.contains("to its NIC"), "{sr:?}");
    }
}
