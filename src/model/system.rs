//! The node/link system NCCL builds from a topology XML (`ncclTopoGetSystemFromXml`).
//!
//! Nodes live in one list per [`NodeType`], addressed by `(type, index)` like NCCL's
//! arrays, because several NCCL rules depend on that order (creation order, indices
//! shifting when a node is removed). Links are kept sorted by bandwidth, strongest first,
//! with the same stable insertion NCCL uses.

use crate::model::{LinkType, NodeType, PathType};
use crate::xml::NodeId;

/// A node address: its type and its index in that type's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeRef {
    pub ty: NodeType,
    pub idx: usize,
}

impl NodeRef {
    pub fn new(ty: NodeType, idx: usize) -> NodeRef {
        NodeRef { ty, idx }
    }
}

/// A directed link to another node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    pub ty: LinkType,
    pub bw: f32,
    pub rem: NodeRef,
}

/// One hop of a path: link number `link` of node `from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub from: NodeRef,
    pub link: usize,
}

/// The best path from a node to one node of some type.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub hops: Vec<Hop>,
    pub bw: f32,
    pub ty: PathType,
}

impl Default for Path {
    fn default() -> Path {
        Path { hops: Vec::new(), bw: 0.0, ty: PathType::Dis }
    }
}

impl Path {
    pub fn count(&self) -> usize {
        self.hops.len()
    }
}

/// What a node is, with the facts NCCL keeps per kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Gpu { dev: i32, rank: i32, cc: i32, gdr: i32, mlopart: i32, parent: Option<usize> },
    Dev { device: u64, dev: i32, cc: i32, ngpus: i32 },
    Net(NetInfo),
    Cpu { arch: i32, vendor: i32, model: i32, affinity: Option<String> },
    Pci { device: u64 },
    Other,
}

/// A network device as NCCL models it.
#[derive(Debug, Clone, PartialEq)]
pub struct NetInfo {
    pub dev: i32,
    pub name: String,
    /// A digest of the NIC's PCI bus id (`net.pciId`): equal for the same NIC on identical trays.
    pub pci_id: u64,
    pub asic: u64,
    pub port: i32,
    pub bw: f32,
    pub latency: f32,
    pub gdr: i32,
    pub coll: i32,
    pub max_channels: i32,
    pub local_gpu: i32,
    pub rail: i32,
    pub plane: i32,
}

/// A node of the system.
#[derive(Debug, Clone)]
pub struct Node {
    pub ty: NodeType,
    pub id: i64,
    pub kind: Kind,
    pub links: Vec<Link>,
    /// Best paths to every node of each type (filled by the path computation).
    pub paths: [Vec<Path>; NodeType::COUNT],
    /// The XML element this node was made from, when there is one.
    pub xml: Option<NodeId>,
    /// Bus id text, for people (PCI-like nodes and GPUs).
    pub busid: Option<String>,
}

impl Node {
    pub fn gpu_rank(&self) -> i32 {
        match self.kind {
            Kind::Gpu { rank, .. } => rank,
            _ => -1,
        }
    }
    pub fn gpu_dev(&self) -> i32 {
        match self.kind {
            Kind::Gpu { dev, .. } | Kind::Dev { dev, .. } => dev,
            _ => -1,
        }
    }
    pub fn cc(&self) -> i32 {
        match self.kind {
            Kind::Gpu { cc, .. } | Kind::Dev { cc, .. } => cc,
            _ => -1,
        }
    }
    pub fn gpu_parent(&self) -> Option<usize> {
        match self.kind {
            Kind::Gpu { parent, .. } => parent,
            _ => None,
        }
    }
    pub fn net(&self) -> Option<&NetInfo> {
        match &self.kind {
            Kind::Net(n) => Some(n),
            _ => None,
        }
    }
    pub fn net_mut(&mut self) -> Option<&mut NetInfo> {
        match &mut self.kind {
            Kind::Net(n) => Some(n),
            _ => None,
        }
    }
}

pub const ID_LOCAL_MASK: i64 = 0x00ff_ffff_ffff_ffff;
pub fn topo_id(system_id: i64, local: i64) -> i64 {
    (system_id << 56).wrapping_add(local & ID_LOCAL_MASK)
}
pub fn id_system(id: i64) -> i64 {
    id >> 56
}
pub fn id_local(id: i64) -> i64 {
    id & ID_LOCAL_MASK
}
pub(crate) const MLOPART_MASK: i64 = 0x3;

/// NCCL's system: nodes by type, plus per-system facts.
#[derive(Debug, Clone, Default)]
pub struct System {
    pub nodes: [Vec<Node>; NodeType::COUNT],
    pub host_hashes: Vec<u64>,
    pub system_id: i64,
    pub max_bw: f32,
    pub total_bw: f32,
    pub inter: bool,
}

impl System {
    pub fn list(&self, ty: NodeType) -> &[Node] {
        &self.nodes[ty as usize]
    }
    pub fn count(&self, ty: NodeType) -> usize {
        self.nodes[ty as usize].len()
    }
    pub fn node(&self, r: NodeRef) -> &Node {
        &self.nodes[r.ty as usize][r.idx]
    }
    pub fn node_mut(&mut self, r: NodeRef) -> &mut Node {
        &mut self.nodes[r.ty as usize][r.idx]
    }
    pub fn link(&self, h: Hop) -> &Link {
        &self.node(h.from).links[h.link]
    }
    pub fn find(&self, ty: NodeType, id: i64) -> Option<usize> {
        self.list(ty).iter().position(|n| n.id == id)
    }
    pub fn gpu_by_rank(&self, rank: i32) -> Option<usize> {
        self.list(NodeType::Gpu).iter().position(|n| n.gpu_rank() == rank)
    }
    pub fn net_by_dev(&self, dev: i32) -> Option<usize> {
        self.list(NodeType::Net).iter().position(|n| n.net().is_some_and(|x| x.dev == dev))
    }
    pub fn path(&self, from: NodeRef, to: NodeRef) -> &Path {
        &self.node(from).paths[to.ty as usize][to.idx]
    }

    pub(crate) fn create(&mut self, ty: NodeType, id: i64, kind: Kind) -> usize {
        let list = &mut self.nodes[ty as usize];
        list.push(Node { ty, id, kind, links: Vec::new(), paths: Default::default(), xml: None, busid: None });
        list.len() - 1
    }

    /// NCCL's `ncclTopoConnectNodes`: add bandwidth to an existing link of the same type
    /// to the same node, or append a new one, then move it up past weaker links.
    pub fn connect(&mut self, a: NodeRef, b: NodeRef, ty: LinkType, bw: f32) {
        let links = &mut self.node_mut(a).links;
        let mut i = match links.iter().position(|l| l.rem == b && l.ty == ty) {
            Some(i) => {
                links[i].bw += bw;
                i
            }
            None => {
                links.push(Link { ty, bw, rem: b });
                links.len() - 1
            }
        };
        while i > 0 && links[i - 1].bw < links[i].bw {
            links.swap(i - 1, i);
            i -= 1;
        }
    }

    /// NCCL's `ncclTopoRemoveNode`: drop a node and every link to it; indices of later
    /// nodes of the same type shift down by one.
    pub fn remove_node(&mut self, ty: NodeType, idx: usize) {
        let gone = NodeRef::new(ty, idx);
        for t in 0..NodeType::COUNT {
            for (n, node) in self.nodes[t].iter_mut().enumerate() {
                if t == ty as usize && n == idx {
                    continue;
                }
                node.links.retain(|l| l.rem != gone);
                for l in node.links.iter_mut() {
                    if l.rem.ty == ty && l.rem.idx > idx {
                        l.rem.idx -= 1;
                    }
                }
            }
        }
        if ty == NodeType::Dev {
            for g in self.nodes[NodeType::Gpu as usize].iter_mut() {
                if let Kind::Gpu { parent, .. } = &mut g.kind {
                    match *parent {
                        Some(p) if p == idx => *parent = None,
                        Some(p) if p > idx => *parent = Some(p - 1),
                        _ => {}
                    }
                }
            }
        }
        self.nodes[ty as usize].remove(idx);
    }

    /// DEV nodes whose id equals `base` once the MLOPart bits are masked out.
    pub(crate) fn dev_nodes(&self, base: i64) -> Vec<usize> {
        let masked = base & !MLOPART_MASK;
        (0..self.count(NodeType::Dev)).filter(|&d| self.list(NodeType::Dev)[d].id & !MLOPART_MASK == masked).collect()
    }

    /// NCCL's `findLocalCpu`: climb PCI links until a CPU.
    pub fn local_cpu_of(&self, node: NodeRef, from: Option<NodeRef>) -> Option<NodeRef> {
        if node.ty == NodeType::Cpu {
            return Some(node);
        }
        for l in &self.node(node).links {
            if l.ty == LinkType::Pci
                && Some(l.rem) != from
                && matches!(l.rem.ty, NodeType::Pci | NodeType::Cpu)
                && let Some(c) = self.local_cpu_of(l.rem, Some(node))
            {
                return Some(c);
            }
        }
        None
    }
}
