//! The links' bandwidth in one flat array, and what following a path costs on each of
//! its links (`ncclTopoFollowPath`'s rules), worked out once per path.
//!
//! The search reserves and releases bandwidth millions of times; walking the system's
//! nodes for every hop is most of its time. A [`Plan`] holds, for one path, each hop's
//! link number in the flat array, whether the hop is a PCI link that pays NCCL's 6/5
//! Intel host-bridge surcharge, and the reverse link it also loads (GPUs older than
//! sm80 seen from a NIC, POWER CPUs over NVLink). The arithmetic on the bandwidths is
//! exactly the search's, in the same order, so results do not change.

use crate::model::system::{Kind, NodeRef, System};
use crate::model::{LinkType, NodeType, PathType, cpu};

/// No reverse link.
pub const NONE: u32 = u32::MAX;

/// One hop of a path, ready to be charged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanHop {
    /// The link, index into [`LinkTable::bw`].
    pub link: u32,
    /// A PCI link of a GPU path through an Intel host bridge: charged `bw * 6 / 5`.
    pub pci: bool,
    /// The reverse link also charged, or [`NONE`].
    pub rev: u32,
    /// The reverse link is charged an eighth (else the full amount).
    pub rev_eighth: bool,
}

impl PlanHop {
    /// The amounts this hop takes from its link and from its reverse link, for `bw` on
    /// the path (`pci_bw` being `bw * 6 / 5`): `(forward, reverse)`; the reverse amount
    /// is 0 when there is no reverse link.
    #[inline]
    pub fn amounts(&self, bw: f32, pci_bw: f32) -> (f32, f32) {
        let fw = if self.pci { pci_bw } else { bw };
        let rev = if self.rev == NONE {
            0.0
        } else if self.rev_eighth {
            fw / 8.0
        } else {
            fw
        };
        (fw, rev)
    }
}

/// Every link's bandwidth, numbered node by node.
#[derive(Debug, Clone)]
pub struct LinkTable {
    base: [Vec<u32>; NodeType::COUNT],
    owner: Vec<(NodeRef, usize)>,
    pub bw: Vec<f32>,
}

impl LinkTable {
    pub fn new(sys: &System) -> LinkTable {
        let mut base: [Vec<u32>; NodeType::COUNT] = Default::default();
        let mut owner = Vec::new();
        let mut bw = Vec::new();
        for t in NodeType::ALL {
            for (i, n) in sys.list(t).iter().enumerate() {
                base[t as usize].push(bw.len() as u32);
                for (k, l) in n.links.iter().enumerate() {
                    owner.push((NodeRef::new(t, i), k));
                    bw.push(l.bw);
                }
            }
        }
        LinkTable { base, owner, bw }
    }

    /// The number of link `link` of `node`.
    #[inline]
    pub fn id(&self, node: NodeRef, link: usize) -> u32 {
        self.base[node.ty as usize][node.idx] + link as u32
    }

    /// The node and link index of a link number.
    pub fn owner(&self, id: u32) -> (NodeRef, usize) {
        self.owner[id as usize]
    }

    /// Copy the bandwidths back into the system's links.
    pub fn write_back(&self, sys: &mut System) {
        for (id, &(node, k)) in self.owner.iter().enumerate() {
            sys.node_mut(node).links[k].bw = self.bw[id];
        }
    }
}

fn rev_link(sys: &System, node: NodeRef, rem: NodeRef, ty: LinkType) -> Option<usize> {
    sys.node(rem).links.iter().position(|l| l.rem == node && l.ty == ty)
}

/// The plan of the path from `from` to `to` (as the system's paths have it).
pub fn plan(sys: &System, table: &LinkTable, from: NodeRef, to: NodeRef) -> Vec<PlanHop> {
    let path = sys.path(from, to);
    let intel_phb = path.ty == PathType::Phb
        && from.ty == NodeType::Gpu
        && path.hops.iter().any(|h| {
            let n = sys.link(*h).rem;
            n.ty == NodeType::Cpu
                && matches!(sys.node(n).kind, Kind::Cpu { arch, vendor, .. }
                    if arch == cpu::ARCH_X86 && vendor == cpu::VENDOR_INTEL)
        });
    let mut node = from;
    let mut out = Vec::with_capacity(path.hops.len());
    for h in &path.hops {
        let link = *sys.link(*h);
        let mut hop = PlanHop {
            link: table.id(h.from, h.link),
            pci: intel_phb && link.ty == LinkType::Pci,
            rev: NONE,
            rev_eighth: false,
        };
        if from.ty != NodeType::Gpu && link.rem.ty == NodeType::Dev && sys.node(link.rem).cc() < 80 {
            hop.rev_eighth = true;
            if let Some(r) = rev_link(sys, node, link.rem, link.ty) {
                hop.rev = table.id(link.rem, r);
            }
        } else if link.rem.ty == NodeType::Cpu
            && link.ty == LinkType::Nvl
            && matches!(sys.node(link.rem).kind, Kind::Cpu { arch, .. } if arch == cpu::ARCH_POWER)
            && let Some(r) = rev_link(sys, node, link.rem, link.ty)
        {
            hop.rev = table.id(link.rem, r);
        }
        out.push(hop);
        node = link.rem;
    }
    out
}
