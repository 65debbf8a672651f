//! The machine a program is costed on: every directed link of every node as a shared
//! resource, and for every connection of a program the links it crosses, its latency
//! per protocol and the rate one thread block can push over it.
//!
//! Ranks are placed as `algo show` places them: rank r is GPU r % G of node r / G, all
//! nodes alike. Inside a node a connection follows NCCL's path between the two GPUs;
//! between nodes it leaves through the NIC NCCL gives the sender for the program's
//! channel, crosses the network (assumed non-blocking) and enters through the
//! receiver's NIC for that channel.

use crate::model::analysis::node_label;
use crate::model::{Analysis, NodeRef, NodeType, PathType};
use crate::tune::constants::{HW_NET, HW_NVLINK, HW_PCI, tables};
use crate::tune::{Algo, Arch, Model, Proto};

use super::super::program::Protocol;

/// The tuning model's protocol index of a program protocol.
pub fn proto_index(p: Protocol) -> usize {
    match p {
        Protocol::LL => Proto::Ll as usize,
        Protocol::LL128 => Proto::Ll128 as usize,
        Protocol::Simple => Proto::Simple as usize,
    }
}

/// One directed link of one node.
#[derive(Debug, Clone)]
pub struct Resource {
    /// e.g. `node 1 GPU/0000:1b:00.0 -NVL-> NVS/0`.
    pub name: String,
    pub bw_gbs: f64,
}

/// What one connection (sender rank, receiver rank, channel) runs over.
#[derive(Debug, Clone)]
pub struct Route {
    /// Indices into [`Fabric::resources`].
    pub links: Vec<u32>,
    /// NCCL's path type (`NVL`, `PIX`, `SYS`, ...) or `NET` between nodes.
    pub ty: &'static str,
    /// Per-message latency (µs) by protocol (tuning index: LL, LL128, Simple).
    pub alpha_us: [f64; 3],
    /// Payload rate one thread block reaches on this route by protocol (GB/s).
    pub cap_gbs: [f64; 3],
}

/// The costing view of an analysed machine and its tuning model.
#[derive(Debug, Clone)]
pub struct Fabric {
    pub label: String,
    pub per_node: usize,
    pub nodes: usize,
    /// Resources of node 0 first, then node 1's, ...: `per_node_resources` each.
    pub resources: Vec<Resource>,
    per_node_resources: usize,
    /// (node type, node index, link index) -> local resource index.
    index: Vec<Vec<Vec<u32>>>,
    sys: crate::model::System,
    params: crate::model::paths::Params,
    /// Base latency (µs) once per collective, by protocol (NCCL's ring values).
    pub base_us: [f64; 3],
    /// Per-hop latency (µs) by hardware class (NVLink, PCI, network) and protocol.
    hw_us: [[f64; 3]; 3],
    /// NCCL's ring graph per-channel bandwidth inside a node and across nodes (GB/s).
    ring_intra_gbs: f64,
    ring_inter_gbs: f64,
    latency_inter_us: f64,
    net_overhead_us: f64,
    ll128_per_channel_gbs: f64,
}

/// Protocol efficiencies on the wire: LL carries 8 of 16 bytes, LL128 120 of 128 bytes
/// (NCCL's ring shares 0.5 and 0.92), Simple all.
pub const EFFICIENCY: [f64; 3] = [0.5, 0.92, 1.0];

impl Fabric {
    /// The fabric of an analysis (its `--nodes`) and the tuning model built on it.
    pub fn new(an: &Analysis, model: &Model) -> Fabric {
        let sys = an.system.clone();
        let mut resources = Vec::new();
        let mut index: Vec<Vec<Vec<u32>>> = Vec::new();
        for ty in 0..NodeType::COUNT {
            let mut per_ty = Vec::new();
            for (i, n) in sys.nodes[ty].iter().enumerate() {
                let from = NodeRef::new(n.ty, i);
                let mut per_node = Vec::new();
                for l in &n.links {
                    per_node.push(resources.len() as u32);
                    resources.push(Resource {
                        name: format!("{} -{}-> {}", node_label(&sys, from), l.ty.name(), node_label(&sys, l.rem)),
                        bw_gbs: f64::from(l.bw),
                    });
                }
                per_ty.push(per_node);
            }
            index.push(per_ty);
        }
        let per_node_resources = resources.len();
        let nodes = an.options.nodes.max(1);
        let mut all = Vec::with_capacity(per_node_resources * nodes);
        for k in 0..nodes {
            for r in &resources {
                let name = if nodes > 1 { format!("node {k} {}", r.name) } else { r.name.clone() };
                all.push(Resource { name, bw_gbs: r.bw_gbs });
            }
        }
        let c = &model.comm;
        let t = tables(c.release.tuning_tables());
        let ring = Algo::Ring as usize;
        let mut hw_us = [[0.0; 3]; 3];
        for (hw, row) in hw_us.iter_mut().enumerate() {
            *row = t.hw_latency[hw][ring];
        }
        let arch = Arch::from_cc(c.cc) as usize;
        let scale = match c.n_nodes {
            0 | 1 => 0,
            2 => 1,
            _ => 2,
        };
        let g = &c.graphs[Algo::Ring];
        Fabric {
            label: an.input.clone(),
            per_node: an.gpus.len(),
            nodes,
            resources: all,
            per_node_resources,
            index,
            sys,
            params: an.params.clone(),
            base_us: t.base_latency[ring],
            hw_us,
            ring_intra_gbs: f64::from(g.bw_intra),
            ring_inter_gbs: f64::from(g.bw_inter),
            latency_inter_us: f64::from(g.latency_inter),
            net_overhead_us: f64::from(c.net_overhead_us),
            ll128_per_channel_gbs: t.per_ch_ring_ll128[arch][scale],
        }
    }

    pub fn ranks(&self) -> usize {
        self.per_node * self.nodes
    }

    /// The hops of a path of node `k`, as resource indices.
    fn hops(&self, k: usize, from: NodeRef, to: NodeRef, out: &mut Vec<u32>) -> (f64, PathType) {
        let path = self.sys.path(from, to);
        for h in &path.hops {
            let local = self.index[h.from.ty as usize][h.from.idx][h.link];
            out.push((k * self.per_node_resources) as u32 + local);
        }
        (f64::from(path.bw), path.ty)
    }

    /// The route of one connection, or why there is none.
    pub fn route(&self, from: u32, to: u32, chan: u32) -> Result<Route, String> {
        let g = self.per_node;
        let (from, to) = (from as usize, to as usize);
        if from >= self.ranks() || to >= self.ranks() {
            return Err(format!("rank {} is not on the machine ({} ranks)", from.max(to), self.ranks()));
        }
        let (nf, nt) = (from / g, to / g);
        let gpu = |local: usize| {
            self.sys
                .gpu_by_rank(local as i32)
                .map(|i| NodeRef::new(NodeType::Gpu, i))
                .ok_or_else(|| format!("no GPU of rank {local} in {}", self.label))
        };
        let (a, b) = (gpu(from % g)?, gpu(to % g)?);
        let mut links = Vec::new();
        let multi = self.nodes > 1;
        let simple = Proto::Simple as usize;
        if nf == nt {
            let (bw, ty) = self.hops(nf, a, b, &mut links);
            let hw = if matches!(ty, PathType::Nvl | PathType::Nvb) { HW_NVLINK } else { HW_PCI };
            let mut alpha_us = self.hw_us[hw];
            if multi {
                // NCCL's ring: a step inside the node costs at least the network overhead
                // (three times with Simple) once the job spans nodes.
                for (p, a) in alpha_us.iter_mut().enumerate() {
                    let over = if p == simple { 3.0 * self.net_overhead_us } else { self.net_overhead_us };
                    *a = a.max(over);
                }
            }
            let per_tb = if self.ring_intra_gbs > 0.0 { self.ring_intra_gbs } else { bw };
            return Ok(Route { links, ty: ty.name(), alpha_us, cap_gbs: self.caps(per_tb) });
        }
        let nic = |local: usize| {
            crate::model::paths::local_net(&self.sys, &self.params, local as i32, chan as usize)
                .map(|i| NodeRef::new(NodeType::Net, i))
                .ok_or_else(|| format!("rank {local}'s node has no NIC for a connection across nodes"))
        };
        let (na, nb) = (nic(from % g)?, nic(to % g)?);
        let (bw1, _) = self.hops(nf, a, na, &mut links);
        let (bw2, _) = self.hops(nt, nb, b, &mut links);
        let mut alpha_us = self.hw_us[HW_NET];
        for (p, a) in alpha_us.iter_mut().enumerate() {
            *a += self.latency_inter_us * if p == simple { 2.0 } else { 1.0 };
        }
        let per_tb = if self.ring_inter_gbs > 0.0 { self.ring_inter_gbs } else { bw1.min(bw2) };
        Ok(Route { links, ty: "NET", alpha_us, cap_gbs: self.caps(per_tb) })
    }

    /// One thread block's payload rate per protocol from its Simple rate: LL at half,
    /// LL128 at 92% up to NCCL's per-channel ring LL128 ceiling.
    fn caps(&self, simple: f64) -> [f64; 3] {
        let mut c = [0.0; 3];
        c[Proto::Simple as usize] = simple;
        c[Proto::Ll as usize] = simple * EFFICIENCY[Proto::Ll as usize];
        c[Proto::Ll128 as usize] = (simple * EFFICIENCY[Proto::Ll128 as usize]).min(self.ll128_per_channel_gbs);
        c
    }

    /// A thread block's rate for local copies and reductions (GB/s of bytes read and
    /// written): twice its rate to a peer inside the node.
    pub fn local_gbs(&self) -> f64 {
        let base = if self.ring_intra_gbs > 0.0 { self.ring_intra_gbs } else { 20.0 };
        2.0 * base
    }
}
