//! One system print being read (`ncclTopoPrint`, K4-K6, and the path lines after it,
//! K7): the tree the indentation draws, links deduplicated, paths.
//!
//! NCCL prints each CPU as a root and, under it, one line per link: `+ LINK[bw] - NODE`,
//! indented to the column where the parent's node text starts. It recurses after PCI
//! links only; after NVL/SYS/NET/C2C/LOC links it prints the far node alone, and 2.6+
//! prints those links from both ends.

use std::collections::{HashMap, HashSet};

use crate::log::classify::system::type_code;
use crate::log::facts::{PathEntry, SysLink, SysNode, SystemPrint};
use crate::log::record::{NodeText, PathLine, SysHeader, SysLine};
use crate::xml::i64_to_busid;

/// Most nodes, links and path entries one print may hold (a print never ends on its own
/// when its closing line was lost; these bound the memory it takes).
const MAX_NODES: usize = 8192;
const MAX_LINKS: usize = 65536;
const MAX_PATHS: usize = 262144;

/// The system print a stream is reading.
#[derive(Debug)]
pub(super) enum SysBlock {
    Build(Box<SysBuilder>),
    /// A print of a host whose complete print was already kept: read, not stored.
    Skip {
        ended: bool,
        in_paths: bool,
    },
}

/// One system print being read.
#[derive(Debug)]
pub(crate) struct SysBuilder {
    pub print: SystemPrint,
    /// (column where a node's text starts, node index): the nodes lines may hang under.
    stack: Vec<(usize, usize)>,
    by_id: HashMap<(u8, u64, u64), usize>,
    links: HashSet<(usize, usize, String)>,
    last_nic: Option<usize>,
    header: bool,
    /// The closing line was read.
    pub ended: bool,
    /// Path lines have started.
    pub in_paths: bool,
    /// Entries or nodes dropped at the memory bounds.
    pub overflow: bool,
    /// Heads of the path rows read.
    heads: HashSet<String>,
}

impl SysBuilder {
    /// A print opened by its header, or (`None`) one whose header was not in the log.
    pub fn new(header: Option<SysHeader>) -> SysBuilder {
        let mut print = SystemPrint::default();
        if let Some(h) = header {
            print.max_bw = h.max_bw;
            print.total_bw = h.total_bw;
        }
        SysBuilder {
            print,
            stack: Vec::new(),
            by_id: HashMap::new(),
            links: HashSet::new(),
            last_nic: None,
            header: header.is_some(),
            ended: false,
            in_paths: false,
            overflow: false,
            heads: HashSet::new(),
        }
    }

    fn node(&mut self, n: &NodeText<'_>, fresh: bool) -> Option<usize> {
        let key = (type_code(n.id.kind), n.id.system_id, n.id.local_id);
        if !fresh && let Some(&i) = self.by_id.get(&key) {
            let node = &mut self.print.nodes[i];
            node.rank = node.rank.or(n.rank);
            node.cpu = node.cpu.or(n.cpu);
            node.pci_device = node.pci_device.or(n.pci_device);
            node.net = node.net.or(n.net);
            node.mlo_part = node.mlo_part.or(n.mlo_part);
            return Some(i);
        }
        if self.print.nodes.len() >= MAX_NODES {
            self.overflow = true;
            return None;
        }
        let bus_id = match n.id.kind {
            "GPU" | "PCI" | "NIC" | "DEV" => i64::try_from(n.id.local_id).ok().map(i64_to_busid),
            _ => None,
        };
        self.print.nodes.push(SysNode {
            id: n.id_text.to_string(),
            kind: n.id.kind.to_string(),
            system_id: n.id.system_id,
            local_id: n.id.local_id,
            bus_id,
            rank: n.rank,
            cpu: n.cpu,
            pci_device: n.pci_device,
            net: n.net,
            mlo_part: n.mlo_part,
        });
        let i = self.print.nodes.len() - 1;
        if !fresh {
            self.by_id.insert(key, i);
        }
        Some(i)
    }

    fn link(&mut self, a: usize, b: usize, kind: &str, bw: f64) {
        let (x, y) = if a <= b { (a, b) } else { (b, a) };
        if self.links.len() >= MAX_LINKS {
            self.overflow = true;
            return;
        }
        if self.links.insert((x, y, kind.to_string())) {
            self.print.links.push(SysLink { from: a, to: b, kind: kind.to_string(), bw });
        }
    }

    /// A root or child line (K5).
    pub fn line(&mut self, l: &SysLine<'_>) {
        let Some((link, bw)) = l.link else {
            if let Some(i) = self.node(&l.node, false) {
                self.stack.clear();
                self.stack.push((0, i));
            }
            return;
        };
        while self.stack.last().is_some_and(|&(c, _)| c > l.col) {
            self.stack.pop();
        }
        let mut parent = match self.stack.last() {
            Some(&(c, p)) => {
                if c != l.col {
                    self.print.tree_guessed = true;
                }
                Some(p)
            }
            None => None,
        };
        // NETs hang under NICs, never at column 0: the indentation was lost.
        if link == "NET" && l.col == 0 {
            self.print.tree_guessed = true;
            parent = self.last_nic.or(parent);
        }
        // A NET node is reached only from its NIC, and NCCL may print several with the
        // same id (virtual NICs): each NET line is a node of its own.
        let Some(child) = self.node(&l.node, l.node.id.kind == "NET") else { return };
        if let Some(p) = parent
            && p != child
        {
            self.link(p, child, link, bw);
        }
        if link == "PCI" {
            self.stack.push((l.node_col, child));
        }
        if l.node.id.kind == "NIC" {
            self.last_nic = Some(child);
        }
    }

    /// Whether this print already has a path row from `head` (a second one starts
    /// another print).
    pub fn has_row(&self, head: &str) -> bool {
        self.heads.contains(head)
    }

    /// A path line (K7).
    pub fn path(&mut self, p: &PathLine<'_>) {
        self.in_paths = true;
        if self.heads.len() < MAX_NODES {
            self.heads.insert(p.head.to_string());
        }
        for e in &p.entries {
            if self.print.paths.len() >= MAX_PATHS {
                self.overflow = true;
                return;
            }
            self.print.paths.push(PathEntry {
                from: p.head.to_string(),
                to: e.to.to_string(),
                hops: e.hops,
                bw: e.bw,
                kind: e.kind.to_string(),
            });
        }
    }

    /// Whether the print was read from its header to its closing line.
    pub fn complete(&self) -> bool {
        self.header && self.ended
    }

    pub fn finish(mut self) -> SystemPrint {
        self.print.truncated = !self.complete();
        self.print
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::classify::classify;
    use crate::log::facts::CpuAttrs;
    use crate::log::record::Rec;

    fn feed(b: &mut SysBuilder, msg: &str) {
        match classify(msg) {
            Rec::SysLine(l) => b.line(&l),
            Rec::Path(p) => b.path(&p),
            Rec::SysEnd => b.ended = true,
            other => panic!("{msg}: {other:?}"),
        }
    }

    /// A print in the 2.23 form: two GPUs joined by NVLink, NVL links printed both ways.
    #[test]
    fn tree_from_indentation() {
        let mut b = SysBuilder::new(None);
        for m in [
            "CPU/0-ffffffffffffff (1/2/-1)",
            "+ PCI[5000.0] - NIC/0-0",
            "+ PCI[24.0] - PCI/0-3000 (1000c0301000100b)",
            "              + PCI[24.0] - GPU/0-7000 (0)",
            "                            + NVL[48.0] - GPU/0-8000",
            "              + PCI[24.0] - GPU/0-8000 (1)",
            "                            + NVL[48.0] - GPU/0-7000",
            "              + PCI[24.0] - NIC/0-9000",
            "                            + NET[12.5] - NET/0-0 (0/abc/1/12.500000)",
            "+ SYS[10.0] - CPU/0-1",
            "CPU/0-1 (1/2/-1)",
            "+ SYS[10.0] - CPU/0-ffffffffffffff",
            "==========================================",
            "GPU/0-7000 :GPU/0-7000 (0/5000.0/LOC) GPU/0-8000 (1/48.0/NVL) ",
        ] {
            feed(&mut b, m);
        }
        let p = b.finish();
        assert!(p.truncated, "no header was read");
        let ids: Vec<&str> = p.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "CPU/0-ffffffffffffff",
                "NIC/0-0",
                "PCI/0-3000",
                "GPU/0-7000",
                "GPU/0-8000",
                "NIC/0-9000",
                "NET/0-0",
                "CPU/0-1"
            ]
        );
        let links: Vec<(usize, usize, &str)> = p.links.iter().map(|l| (l.from, l.to, l.kind.as_str())).collect();
        assert_eq!(
            links,
            [
                (0, 1, "PCI"),
                (0, 2, "PCI"),
                (2, 3, "PCI"),
                (3, 4, "NVL"),
                (2, 4, "PCI"),
                (2, 5, "PCI"),
                (5, 6, "NET"),
                (0, 7, "SYS")
            ]
        );
        assert_eq!(p.nodes[4].rank, Some(1));
        assert_eq!(p.nodes[3].bus_id.as_deref(), Some("0000:07:00.0"));
        assert_eq!(p.nodes[7].cpu, Some(CpuAttrs { arch: 1, vendor: 2, model: -1 }));
        assert_eq!(p.paths.len(), 2);
        assert!(!p.tree_guessed);
    }

    /// 2.21-2.22 print PCI-reached nodes as `system-local` but far nodes in the old
    /// upper-case form: both name one node.
    #[test]
    fn mixed_id_forms_are_one_node() {
        let mut b = SysBuilder::new(None);
        for m in [
            "CPU/0-0 (1/1/2)",
            "+ PCI[24.0] - GPU/0-b000 (0)",
            "              + NVL[48.0] - GPU/C000",
            "+ PCI[24.0] - GPU/0-c000 (1)",
            "              + NVL[48.0] - GPU/B000",
        ] {
            feed(&mut b, m);
        }
        let p = b.finish();
        assert_eq!(p.nodes.len(), 3);
        assert_eq!(p.links.iter().filter(|l| l.kind == "NVL").count(), 1);
        assert_eq!(p.nodes[2].rank, Some(1));
    }

    #[test]
    fn lost_indentation_is_guessed() {
        let mut b = SysBuilder::new(None);
        for m in ["CPU/0 (1/1/1)", "+ PCI[3.0] - NIC/1000", "+ NET[1.2] - NET/0 (0/0/1.250000)"] {
            feed(&mut b, m);
        }
        let p = b.finish();
        assert!(p.tree_guessed);
        assert_eq!((p.links[1].from, p.links[1].to), (1, 2));
    }

    #[test]
    fn repeated_net_ids_stay_apart() {
        let mut b = SysBuilder::new(None);
        for m in [
            "CPU/0-2 (1/2/-1)",
            "+ PCI[5000.0] - NIC/0-0",
            "                + NET[1.2] - NET/0-1 (0/1/0/1.250000)",
            "                + NET[1.2] - NET/0-1 (0/1/0/1.250000)",
        ] {
            feed(&mut b, m);
        }
        assert_eq!(b.finish().nodes.len(), 4);
    }
}
