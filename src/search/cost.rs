//! What a set of channels costs the machine: replay every path of every channel over a
//! fresh copy of the system's links, charging each link what the search would reserve
//! on it (the graph's bwIntra between GPUs, bwInter to and from NICs, with NCCL's PCI
//! surcharge and reverse-link rules), but never refusing: the result is each link's
//! demand against its capacity, and the bandwidth each channel gets when every
//! oversubscribed link is shared in proportion to demand.
//!
//! This is what `topo search --graph-file` reports for graphs NCCL loads from
//! NCCL_GRAPH_FILE (which skip the search and its bandwidth checks), and what
//! `--dot` draws.

use std::collections::BTreeMap;

use crate::error::Error;
use crate::model::analysis::node_label;
use crate::model::system::{NodeRef, System};
use crate::model::{LinkType, NodeType};
use crate::search::links::{self, LinkTable};
use crate::search::{Graph, Pattern};

/// One path of a channel: where it goes and the bandwidth it carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leg {
    pub from: NodeRef,
    pub to: NodeRef,
    /// The channel's bandwidth on this path (bwIntra or bwInter).
    pub bw: f32,
    /// How many times over the path is charged (NVLS heads 2, CollNet direct 1/(n-1)).
    pub mult: f32,
}

/// A link some channel loads.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LinkLoad {
    /// `NODE -TYPE-> NODE`.
    pub link: String,
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub capacity: f32,
    pub demand: f32,
    #[serde(skip)]
    pub id: u32,
    /// The channels on it.
    pub channels: Vec<String>,
}

impl LinkLoad {
    pub fn oversubscribed(&self) -> bool {
        self.demand > self.capacity * (1.0 + 1e-6) + 1e-6
    }
}

/// What one channel asks for and gets.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ChannelCost {
    pub graph: &'static str,
    pub channel: usize,
    pub bw_intra: f32,
    pub bw_inter: f32,
    /// What its GPU-to-GPU paths get (None when it has none).
    pub got_intra: Option<f32>,
    /// What its NIC paths get.
    pub got_inter: Option<f32>,
    /// The link that limits it most, when it gets less than it asks.
    pub bottleneck: Option<String>,
}

/// The replay of one graph (NCCL runs one algorithm's channels at a time, and the
/// search starts each graph from the links' full bandwidth, so graphs are replayed
/// apart).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Cost {
    pub graph: &'static str,
    /// Every loaded link, most loaded (demand / capacity) first.
    pub links: Vec<LinkLoad>,
    pub channels: Vec<ChannelCost>,
}

impl Cost {
    pub fn oversubscribed(&self) -> impl Iterator<Item = &LinkLoad> {
        self.links.iter().filter(|l| l.oversubscribed())
    }
}

/// A node's name in link labels: GPUs by bus id and rank, others as the model names them.
fn node_name(sys: &System, r: NodeRef) -> String {
    let n = sys.node(r);
    if r.ty == NodeType::Dev {
        let rank = n.links.iter().find(|l| l.rem.ty == NodeType::Gpu).map(|l| sys.node(l.rem).gpu_rank());
        return format!(
            "GPU/{}{}",
            n.busid.as_deref().unwrap_or("?"),
            rank.map_or(String::new(), |r| format!(" (rank {r})"))
        );
    }
    if r.ty == NodeType::Gpu {
        return format!("GPU/{} (rank {})", n.busid.as_deref().unwrap_or("?"), n.gpu_rank());
    }
    node_label(sys, r)
}

fn bad(file: &str, msg: String) -> Error {
    Error::Input { file: file.into(), message: msg }
}

/// The GPU of a rank, or an error naming the graph and channel.
fn gpu(sys: &System, file: &str, g: &Graph, c: usize, rank: i32) -> Result<NodeRef, Error> {
    sys.gpu_by_rank(rank).map(|i| NodeRef::new(NodeType::Gpu, i)).ok_or_else(|| {
        let ranks: Vec<i32> = sys.list(NodeType::Gpu).iter().map(|n| n.gpu_rank()).collect();
        bad(file, format!("{} graph channel {c}: rank {rank} is not a GPU of this system (ranks {ranks:?})", g.name()))
    })
}

fn net(sys: &System, file: &str, g: &Graph, c: usize, id: Option<i64>) -> Result<NodeRef, Error> {
    id.and_then(|id| sys.find(NodeType::Net, id)).map(|i| NodeRef::new(NodeType::Net, i)).ok_or_else(|| {
        let id = id.unwrap_or(-1);
        bad(file, format!("{} graph channel {c}: NET {id:#x} is not a network device of this system", g.name()))
    })
}

/// Check that a graph only names GPUs and NETs of the system, and that ring and tree
/// channels hold every GPU once. `file` names the graph's source in errors.
pub fn validate(sys: &System, file: &str, g: &Graph) -> Result<(), Error> {
    let n = sys.count(NodeType::Gpu);
    for c in 0..g.n_channels.max(0) as usize {
        let ranks = &g.intra[c * n..(c + 1) * n];
        let width = if g.pattern == Pattern::Nvls { 1 } else { n };
        for &r in &ranks[..width] {
            gpu(sys, file, g, c, r)?;
        }
        if !matches!(g.pattern, Pattern::Nvls | Pattern::CollNetDirect) {
            let mut seen = ranks.to_vec();
            seen.sort_unstable();
            if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
                return Err(bad(file, format!("{} graph channel {c} holds rank {} twice: {ranks:?}", g.name(), w[0])));
            }
        }
        if sys.inter {
            net(sys, file, g, c, g.inter[c * 2])?;
            net(sys, file, g, c, g.inter[c * 2 + 1])?;
        }
    }
    Ok(())
}

/// The paths of one channel, as the search reserves them.
pub fn legs(sys: &System, file: &str, g: &Graph, c: usize) -> Result<Vec<Leg>, Error> {
    let n = sys.count(NodeType::Gpu);
    let ranks = &g.intra[c * n..(c + 1) * n];
    let gpus: Vec<NodeRef> = match g.pattern {
        Pattern::Nvls => vec![gpu(sys, file, g, c, ranks[0])?],
        _ => ranks.iter().map(|&r| gpu(sys, file, g, c, r)).collect::<Result<_, _>>()?,
    };
    let (bi, be) = (g.bw_intra, g.bw_inter);
    let leg = |from, to, bw, mult| Leg { from, to, bw, mult };
    let mut out = Vec::new();
    let head = gpus[0];
    match g.pattern {
        Pattern::Nvls => {
            let nvs = NodeRef::new(NodeType::Nvs, 0);
            if sys.count(NodeType::Nvs) == 0 {
                return Err(bad(file, format!("nvls graph channel {c}: this system has no NVSwitch")));
            }
            for q in 0..n {
                let m = if NodeRef::new(NodeType::Gpu, q) == head { 2.0 } else { 1.0 };
                out.push(leg(nvs, NodeRef::new(NodeType::Gpu, q), bi, m));
                out.push(leg(NodeRef::new(NodeType::Gpu, q), nvs, bi, m));
            }
        }
        Pattern::CollNetDirect => {
            if n > 1 {
                let m = 1.0 / (n as f32 - 1.0);
                for q in 0..n {
                    let other = NodeRef::new(NodeType::Gpu, q);
                    if other != head {
                        out.push(leg(head, other, bi, m));
                        out.push(leg(other, head, bi, m));
                    }
                }
            }
        }
        _ => {
            for w in gpus.windows(2) {
                out.push(leg(w[0], w[1], bi, 1.0));
            }
            if !sys.inter && g.pattern == Pattern::Ring && n > 1 {
                out.push(leg(gpus[n - 1], gpus[0], bi, 1.0));
            }
        }
    }
    if sys.inter {
        let nin = net(sys, file, g, c, g.inter[c * 2])?;
        let nout = net(sys, file, g, c, g.inter[c * 2 + 1])?;
        out.push(leg(nin, head, be, 1.0));
        let (back, bw) = match g.pattern {
            Pattern::Ring => (gpus[gpus.len() - 1], be),
            Pattern::SplitTree => (gpus[1.min(gpus.len() - 1)], be),
            Pattern::BalancedTree => (head, be / 2.0),
            _ => (head, be),
        };
        out.push(leg(back, nout, bw, 1.0));
    }
    Ok(out)
}

/// Replay the channels of each graph over a fresh copy of `sys`'s links.
pub fn replay(sys: &System, file: &str, graphs: &[&Graph]) -> Result<Vec<Cost>, Error> {
    graphs.iter().map(|g| replay_one(sys, file, g)).collect()
}

fn replay_one(sys: &System, file: &str, g: &Graph) -> Result<Cost, Error> {
    let table = LinkTable::new(sys);
    let capacity = table.bw.clone();
    let mut demand = vec![0.0f32; capacity.len()];
    let mut users: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    // Per channel: every (link, amount, intra?, leg) it uses.
    type Uses = Vec<(u32, f32, bool, usize)>;
    let mut uses: Vec<(usize, Uses)> = Vec::new();
    let mut channels = Vec::new();
    {
        validate(sys, file, g)?;
        for c in 0..g.n_channels.max(0) as usize {
            let mut used = Vec::new();
            for (li, l) in legs(sys, file, g, c)?.iter().enumerate() {
                let intra = l.from.ty != NodeType::Net && l.to.ty != NodeType::Net;
                let bw = l.bw * l.mult;
                let pci_bw = bw * 6.0 / 5.0;
                for hop in links::plan(sys, &table, l.from, l.to) {
                    let (fw, rev) = hop.amounts(bw, pci_bw);
                    demand[hop.link as usize] += fw;
                    used.push((hop.link, fw, intra, li));
                    if rev != 0.0 {
                        demand[hop.rev as usize] += rev;
                        used.push((hop.rev, rev, intra, li));
                    }
                }
            }
            for &(id, _, _, _) in &used {
                let v = users.entry(id).or_default();
                let name = format!("{c}");
                if !v.contains(&name) {
                    v.push(name);
                }
            }
            uses.push((channels.len(), used));
            channels.push(ChannelCost {
                graph: g.name(),
                channel: c,
                bw_intra: g.bw_intra,
                bw_inter: g.bw_inter,
                got_intra: None,
                got_inter: None,
                bottleneck: None,
            });
        }
    }
    let scale = |id: u32| -> f32 {
        let (d, cap) = (demand[id as usize], capacity[id as usize]);
        if d > cap && d > 0.0 { (cap / d).max(0.0) } else { 1.0 }
    };
    let label = |id: u32| -> (String, &'static str) {
        let (node, k) = table.owner(id);
        let l = sys.node(node).links[k];
        (format!("{} -{}-> {}", node_name(sys, node), l.ty.name(), node_name(sys, l.rem)), link_name(l.ty))
    };
    for (ci, used) in uses {
        let ch = &mut channels[ci];
        let mut worst: Option<(f32, u32)> = None;
        for &(id, _, intra, _) in &used {
            let s = scale(id);
            let (want, slot) = if intra { (ch.bw_intra, &mut ch.got_intra) } else { (ch.bw_inter, &mut ch.got_inter) };
            let got = want * s;
            *slot = Some(slot.map_or(got, |v: f32| v.min(got)));
            if s < 1.0 && worst.is_none_or(|(w, _)| s < w) {
                worst = Some((s, id));
            }
        }
        ch.bottleneck = worst.map(|(_, id)| label(id).0);
    }
    let mut links: Vec<LinkLoad> = users
        .into_iter()
        .map(|(id, chans)| {
            let (name, ty) = label(id);
            LinkLoad {
                link: name,
                ty,
                capacity: capacity[id as usize],
                demand: demand[id as usize],
                id,
                channels: chans,
            }
        })
        .collect();
    links.sort_by(|a, b| {
        let ra = a.demand / a.capacity.max(1e-9);
        let rb = b.demand / b.capacity.max(1e-9);
        rb.total_cmp(&ra).then(a.link.cmp(&b.link))
    });
    Ok(Cost { graph: g.name(), links, channels })
}

fn link_name(t: LinkType) -> &'static str {
    t.name()
}

/// Warnings about a graph file NCCL would read without complaint but not as meant:
/// channels with more or fewer GPUs than the node has (NCCL ignores the extra ones and
/// leaves rank 0 in the missing places), `nchannels` different from the channels listed.
pub fn lint_graph_file(gx: &crate::xml::Xml, file: &str, ngpus: usize) -> Vec<String> {
    let mut out = Vec::new();
    let Some(root) = gx.root() else { return out };
    for &g in gx.children(root) {
        if gx.name(g) != "graph" {
            continue;
        }
        let id = gx.attr(g, "id").unwrap_or("?");
        let pat = gx.attr(g, "pattern").map(crate::xml::strtol).unwrap_or(0) as i32;
        let chans: Vec<usize> = gx.children(g).iter().copied().filter(|&c| gx.name(c) == "channel").collect();
        if let Some(n) = gx.attr(g, "nchannels").map(crate::xml::strtol)
            && n != chans.len() as i64
        {
            out.push(format!(
                "{file}:{}: graph id {id} says nchannels=\"{n}\" but lists {} channels; NCCL uses {n}{}",
                gx.line(g),
                chans.len(),
                if n > chans.len() as i64 { ", the missing ones all rank 0" } else { "" }
            ));
        }
        if pat == Pattern::Nvls.number() {
            continue;
        }
        for (c, &ch) in chans.iter().enumerate() {
            let k = gx.children(ch).iter().filter(|&&x| gx.name(x) == "gpu").count();
            if k != ngpus {
                out.push(format!(
                    "{file}:{}: graph id {id} channel {c} lists {k} GPUs, the node has {ngpus}; NCCL {}",
                    gx.line(ch),
                    if k > ngpus { "ignores the extra ones" } else { "fills the missing places with rank 0" }
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(text: &str) -> System {
        let (x, _) = crate::xml::parse(text, None).unwrap();
        let an = crate::model::analyze(&x, "t", &crate::model::Options::default()).unwrap();
        an.system
    }

    // Two GPUs on one PCIe switch under one CPU.
    const TWO: &str = r#"<system version="1">
  <cpu host_hash="0x1" numaid="0" affinity="ff" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1">
    <pci busid="0000:01:00.0" class="0x060400" vendor="0x1000" device="0xc010" subsystem_vendor="0x1000" subsystem_device="0x100b" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:02:00.0" class="0x030000" vendor="0x10de" device="0x2230" subsystem_vendor="0x10de" subsystem_device="0x1459" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="86" rank="0" gdr="1"/>
      </pci>
      <pci busid="0000:03:00.0" class="0x030000" vendor="0x10de" device="0x2230" subsystem_vendor="0x10de" subsystem_device="0x1459" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="86" rank="1" gdr="1"/>
      </pci>
    </pci>
  </cpu>
</system>
"#;

    fn ring(chans: &[&[i32]], bw: f32) -> Graph {
        let mut g = Graph::new(crate::search::GraphId::Ring, Pattern::Ring, 2);
        g.n_channels = chans.len() as i32;
        g.bw_intra = bw;
        g.bw_inter = bw;
        for (c, ch) in chans.iter().enumerate() {
            g.intra[c * 2..c * 2 + 2].copy_from_slice(ch);
        }
        g
    }

    #[test]
    fn one_channel_within_capacity() {
        let sys = system(TWO);
        let cost = replay_one(&sys, "g.xml", &ring(&[&[0, 1]], 10.0)).unwrap();
        assert_eq!(cost.oversubscribed().count(), 0);
        assert_eq!(cost.channels[0].got_intra, Some(10.0));
        assert!(cost.links.iter().all(|l| l.demand == 10.0), "{:?}", cost.links);
        // 0 -> 1 and 1 -> 0: GPU to its device (LOC), up to the switch, down, to the GPU.
        assert_eq!(cost.links.len(), 8);
        assert_eq!(cost.links.iter().filter(|l| l.ty == "PCI").count(), 4);
    }

    #[test]
    fn three_channels_overload_pcie() {
        let sys = system(TWO);
        let cost = replay_one(&sys, "g.xml", &ring(&[&[0, 1], &[1, 0], &[0, 1]], 12.0)).unwrap();
        let over: Vec<&LinkLoad> = cost.oversubscribed().collect();
        assert_eq!(over.len(), 4, "{:?}", cost.links);
        let l = over[0];
        assert_eq!((l.capacity, l.demand), (24.0, 36.0));
        let got = cost.channels[0].got_intra.unwrap();
        assert!((got - 8.0).abs() < 1e-4, "{got}");
        let b = cost.channels[0].bottleneck.clone().unwrap_or_default();
        assert!(b.contains("-PCI->") && b.contains("(rank "), "{b}");
    }

    #[test]
    fn unknown_rank_is_an_error() {
        let sys = system(TWO);
        let e = replay(&sys, "g.xml", &[&ring(&[&[0, 7]], 10.0)]).unwrap_err().to_string();
        assert!(e.contains("g.xml") && e.contains("rank 7"), "{e}");
        let e = replay(&sys, "g.xml", &[&ring(&[&[1, 1]], 10.0)]).unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
    }

    #[test]
    fn graph_file_lint() {
        let (x, _) = crate::xml::parse(
            "<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" nchannels=\"2\">\n    <channel>\n      <gpu dev=\"0\"/>\n    </channel>\n  </graph>\n</graphs>\n",
            None,
        )
        .unwrap();
        let w = lint_graph_file(&x, "g.xml", 2);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("nchannels=\"2\" but lists 1"));
        assert!(w[1].contains("lists 1 GPUs, the node has 2"));
    }
}
