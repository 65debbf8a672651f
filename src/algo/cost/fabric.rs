//! The machine a program is costed on: every directed link of every node as a shared
//! resource, and for every connection of a program the links it crosses, its latency
//! per protocol and the rate one thread block can push over it.
//!
//! Ranks are placed as `algo show` places them: rank r is GPU r % G of node r / G, all
//! nodes alike. Inside a node a connection follows NCCL's path between the two GPUs;
//! between nodes it leaves through the sender's NIC for the channel, crosses the
//! network (assumed non-blocking) and enters through the receiver's NIC for that
//! channel. Which NICs those are depends on who set the connection up ([`Nics`]): an
//! MSCCL runtime connects a program's peers with no graph, and NCCL's rule for that
//! (`ncclTopoGetNetDev` without a graph) gives each GPU its own NIC for the channel, or
//! the NIC of the receiver's device through a relay GPU (PXN); NCCL's own ring
//! channels take the NICs their ring graph names (`graph->inter`). The two differ
//! where a ring leaves a GPU through a NIC that is not that GPU's own.
//!
//! Where trimming splits a host into domains (GPUs with no path to each other but
//! through the network: NCCL trims each rank's system to what it reaches without the
//! NET and counts every domain as a node), each rank's paths are those of its own
//! domain's system ([`Analysis::system_of_rank`]), and a connection between two
//! domains of one host goes over the network as one between hosts does. A link that
//! two domains' systems both hold (a CPU's, a shared switch's) is one resource.

use std::collections::HashMap;

use crate::error::Error;
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

/// Which NICs a connection between nodes goes through.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Nics {
    /// As an MSCCL runtime sets a program's connections up (msccl-executor-nccl and
    /// RCCL connect with no graph): `ncclTopoGetNetDev`'s rule without a graph. The
    /// receiver takes its own NIC for the channel (`ncclTopoGetLocalNet`); the sender
    /// takes the NIC of the local GPU with the receiver's device number for the channel
    /// when the GPU that NIC belongs to can relay for it (NVLink to the sender, PXB or
    /// better to the NIC, GPUDirect RDMA where the release asks: PXN), else its own.
    #[default]
    Runtime,
    /// As NCCL's own ring channels: channel c uses the ring graph's channel c modulo the
    /// graph's channels, the channel's first GPU its in NIC, every other GPU its out NIC
    /// (`graph->inter`), relayed where the GPU's path to that NIC is a PXN path.
    RingGraph {
        /// Per graph channel: the first GPU's rank, and the (in, out) NET indices.
        channels: Vec<(i32, usize, usize)>,
    },
}

/// The costing view of an analysed machine and its tuning model.
#[derive(Debug, Clone)]
pub struct Fabric {
    pub label: String,
    pub per_node: usize,
    pub nodes: usize,
    /// Trimming domains of a host (1 where nothing was trimmed).
    pub domains: usize,
    /// Resources of node 0 first, then node 1's, ...: `per_node_resources` each.
    pub resources: Vec<Resource>,
    per_node_resources: usize,
    /// The host's domains: rank 0's first, then by first rank.
    doms: Vec<Domain>,
    /// The domain of each GPU rank of a host.
    dom_of: Vec<usize>,
    /// The job spans NCCL nodes (hosts, or domains of one host).
    multi: bool,
    params: crate::model::paths::Params,
    /// Who picks the NICs of connections between nodes.
    pub nics: Nics,
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

/// One trimming domain: the system its ranks search on, and its links as resources.
#[derive(Debug, Clone)]
struct Domain {
    sys: crate::model::System,
    /// (node type, node index, link index) -> local resource index (within a host).
    index: Vec<Vec<Vec<u32>>>,
}

/// The systems of a host's trimming domains: rank 0's (the analysis's own), then, for
/// each rank it trimmed away, the system that rank's init ends up with, one per domain.
fn domain_systems(an: &Analysis) -> Result<Vec<crate::model::System>, Error> {
    let mut out = vec![an.system.clone()];
    let mut left: Vec<i32> = an.trimmed.clone();
    left.sort_unstable();
    while let Some(&first) = left.first() {
        let (sys, _) = an.system_of_rank(first)?;
        let ranks: Vec<i32> = sys.list(NodeType::Gpu).iter().map(|g| g.gpu_rank()).collect();
        left.retain(|r| *r != first && !ranks.contains(r));
        out.push(sys);
    }
    Ok(out)
}

/// Protocol efficiencies on the wire: LL carries 8 of 16 bytes, LL128 120 of 128 bytes
/// (NCCL's ring shares 0.5 and 0.92), Simple all.
pub const EFFICIENCY: [f64; 3] = [0.5, 0.92, 1.0];

impl Fabric {
    /// The fabric of an analysis (its `--nodes`) and the tuning model built on it.
    /// `Err` where another domain's system cannot be worked out.
    pub fn new(an: &Analysis, model: &Model) -> Result<Fabric, Error> {
        let systems = domain_systems(an)?;
        let host = an.host_gpus();
        let mut resources: Vec<Resource> = Vec::new();
        let mut by_name: HashMap<String, u32> = HashMap::new();
        let mut doms = Vec::with_capacity(systems.len());
        let mut dom_of = vec![0usize; host];
        for (d, sys) in systems.into_iter().enumerate() {
            for g in sys.list(NodeType::Gpu) {
                if let Some(slot) = usize::try_from(g.gpu_rank()).ok().and_then(|r| dom_of.get_mut(r)) {
                    *slot = d;
                }
            }
            // Only links another domain already holds are shared: inside one system
            // every link is its own resource, whatever its name.
            let mut added: Vec<(String, u32)> = Vec::new();
            let mut index: Vec<Vec<Vec<u32>>> = Vec::new();
            for ty in 0..NodeType::COUNT {
                let mut per_ty = Vec::new();
                for (i, n) in sys.nodes[ty].iter().enumerate() {
                    let from = NodeRef::new(n.ty, i);
                    let mut per_node = Vec::new();
                    for l in &n.links {
                        let name = format!("{} -{}-> {}", node_label(&sys, from), l.ty.name(), node_label(&sys, l.rem));
                        let at = match by_name.get(&name) {
                            Some(&at) => at,
                            None => {
                                added.push((name.clone(), resources.len() as u32));
                                resources.push(Resource { name, bw_gbs: f64::from(l.bw) });
                                resources.len() as u32 - 1
                            }
                        };
                        per_node.push(at);
                    }
                    per_ty.push(per_node);
                }
                index.push(per_ty);
            }
            by_name.extend(added);
            doms.push(Domain { sys, index });
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
        Ok(Fabric {
            label: an.input.clone(),
            per_node: host,
            nodes,
            domains: doms.len(),
            resources: all,
            per_node_resources,
            doms,
            dom_of,
            multi: c.n_nodes > 1,
            params: an.params.clone(),
            nics: Nics::Runtime,
            base_us: t.base_latency[ring],
            hw_us,
            ring_intra_gbs: f64::from(g.bw_intra),
            ring_inter_gbs: f64::from(g.bw_inter),
            latency_inter_us: f64::from(g.latency_inter),
            net_overhead_us: f64::from(c.net_overhead_us),
            ll128_per_channel_gbs: t.per_ch_ring_ll128[arch][scale],
        })
    }

    pub fn ranks(&self) -> usize {
        self.per_node * self.nodes
    }

    /// The hops of a path of domain `d` of node `k`, as resource indices.
    fn hops(&self, k: usize, d: usize, from: NodeRef, to: NodeRef, out: &mut Vec<u32>) -> (f64, PathType) {
        let dom = &self.doms[d];
        let path = dom.sys.path(from, to);
        for h in &path.hops {
            let local = dom.index[h.from.ty as usize][h.from.idx][h.link];
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
        let (df, dt) = (self.dom_of[from % g], self.dom_of[to % g]);
        let gpu = |local: usize, d: usize| {
            self.doms[d]
                .sys
                .gpu_by_rank(local as i32)
                .map(|i| NodeRef::new(NodeType::Gpu, i))
                .ok_or_else(|| format!("no GPU of rank {local} in {}", self.label))
        };
        let (a, b) = (gpu(from % g, df)?, gpu(to % g, dt)?);
        let mut links = Vec::new();
        let multi = self.multi;
        let simple = Proto::Simple as usize;
        if nf == nt && df == dt {
            let (bw, ty) = self.hops(nf, df, a, b, &mut links);
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
        let none = |local: usize| format!("rank {local}'s node has no NIC for a connection across nodes");
        let (na, relay) = self.send_nic(from % g, df, to % g, dt, chan).ok_or_else(|| none(from % g))?;
        let nb = self.recv_nic(to % g, dt, chan).ok_or_else(|| none(to % g))?;
        let (na, nb) = (NodeRef::new(NodeType::Net, na), NodeRef::new(NodeType::Net, nb));
        let bw1 = match relay {
            // PXN: over NVLink into the relay GPU's memory, which the NIC reads.
            Some(r) => {
                let r = NodeRef::new(NodeType::Gpu, r);
                let (bw0, _) = self.hops(nf, df, a, r, &mut links);
                bw0.min(self.hops(nf, df, r, na, &mut links).0)
            }
            None => self.hops(nf, df, a, na, &mut links).0,
        };
        let (bw2, _) = self.hops(nt, dt, nb, b, &mut links);
        let mut alpha_us = self.hw_us[HW_NET];
        for (p, a) in alpha_us.iter_mut().enumerate() {
            *a += self.latency_inter_us * if p == simple { 2.0 } else { 1.0 };
        }
        let per_tb = if self.ring_inter_gbs > 0.0 { self.ring_inter_gbs } else { bw1.min(bw2) };
        Ok(Route { links, ty: "NET", alpha_us, cap_gbs: self.caps(per_tb) })
    }

    /// The NET index a receiver of node rank `local` (domain `d`) takes on `chan`.
    fn recv_nic(&self, local: usize, d: usize, chan: u32) -> Option<usize> {
        let sys = &self.doms[d].sys;
        match &self.nics {
            Nics::RingGraph { channels } if !channels.is_empty() && self.doms.len() == 1 => {
                let (first, inn, out) = channels[chan as usize % channels.len()];
                Some(if first == local as i32 { inn } else { out })
            }
            // The receiver asks for its own device's NIC (and relays nothing).
            _ => crate::model::paths::local_net(sys, &self.params, local as i32, chan as usize),
        }
    }

    /// The NET index a sender of node rank `local` (domain `d`) takes on `chan` to
    /// node rank `peer` (domain `pd`), and the GPU (index) that relays for it (PXN).
    fn send_nic(&self, local: usize, d: usize, peer: usize, pd: usize, chan: u32) -> Option<(usize, Option<usize>)> {
        use crate::model::paths::{check_gdr, local_gpu_of_net, local_net};
        let sys = &self.doms[d].sys;
        let p = &self.params;
        if let Nics::RingGraph { .. } = self.nics
            && self.doms.len() == 1
        {
            // The path to the graph's NIC is NCCL's, through a relay where it is PXN.
            return self.recv_nic(local, d, chan).map(|n| (n, None));
        }
        let own = local_net(sys, p, local as i32, chan as usize)?;
        if p.env.pxn_disable {
            return Some((own, None));
        }
        // The local GPU with the peer's device number, its NIC for the channel, and the
        // GPU that NIC belongs to.
        let me = sys.gpu_by_rank(local as i32)?;
        let gpus = sys.list(NodeType::Gpu);
        let peer_dev =
            self.doms[pd].sys.gpu_by_rank(peer as i32).map(|i| self.doms[pd].sys.list(NodeType::Gpu)[i].gpu_dev());
        // On the sender's own system (a fused MNNVL system holds every tray's GPUs).
        let here = crate::model::system::id_system(gpus[me].id);
        let Some(twin) =
            gpus.iter().find(|x| crate::model::system::id_system(x.id) == here && Some(x.gpu_dev()) == peer_dev)
        else {
            return Some((own, None));
        };
        let Some(net) = local_net(sys, p, twin.gpu_rank(), chan as usize) else {
            return Some((own, None));
        };
        let Some(relay) = local_gpu_of_net(sys, p, net) else {
            return Some((own, None));
        };
        let order = p.release.p2c_after_pxn();
        let pxn_ty = if p.env.pxn_c2c { PathType::P2c } else { PathType::Pxb };
        let r = &gpus[relay];
        let gdr = !p.release.pxn_needs_gdr()
            || check_gdr(sys, p, r.gpu_rank(), net, false).0 != crate::model::GdrMode::Disabled;
        if r.paths[NodeType::Gpu as usize][me].ty <= PathType::Nvl
            && r.paths[NodeType::Net as usize][net].ty.rank(order) <= pxn_ty.rank(order)
            && gdr
        {
            return Some((net, (relay != me).then_some(relay)));
        }
        Some((own, None))
    }

    /// The same fabric with NCCL's own ring channels' NICs ([`Nics::RingGraph`]), for
    /// costing the data movement NCCL itself does over its rings; `None` where the job
    /// has one node, a host split into domains (each has its own graph) or a ring
    /// graph without NICs.
    pub fn with_ring_graph(&self, ring: &crate::search::Graph) -> Option<Fabric> {
        if !self.multi || self.doms.len() != 1 || ring.n_channels <= 0 {
            return None;
        }
        let sys = &self.doms[0].sys;
        let nets = sys.list(NodeType::Net);
        let index = |id: Option<i64>| id.and_then(|id| nets.iter().position(|n| n.id == id));
        // `intra` holds room for every channel NCCL can have, the GPUs of the system each.
        let ngpus = sys.count(NodeType::Gpu);
        let mut channels = Vec::new();
        for c in 0..ring.n_channels as usize {
            let first = *ring.intra.get(c * ngpus)?;
            let inn = index(*ring.inter.get(2 * c)?)?;
            let out = index(*ring.inter.get(2 * c + 1)?)?;
            channels.push((first, inn, out));
        }
        Some(Fabric { nics: Nics::RingGraph { channels }, ..self.clone() })
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
