//! A graph: the constraints the search starts from and the channels it found.

use crate::model::PathType;
use crate::search::limits::MAXCHANNELS;

/// The shape of a graph's channels (NCCL's `NCCL_TOPO_PATTERN_*`); the numbers are
/// NCCL's, which its log lines and graph XML print. They order as NCCL's numbers do
/// (init aligns ranks' graphs by the larger number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    /// Tree whose top GPU splits the NETs: one in, one out (`BALANCED_TREE`).
    BalancedTree = 1,
    /// Tree whose NET goes in at one GPU and out at the next (`SPLIT_TREE`).
    SplitTree = 2,
    /// Tree in and out through the same GPU (`TREE`).
    Tree = 3,
    Ring = 4,
    /// NVLink SHARP: every GPU to and from the NVSwitch.
    Nvls = 5,
    /// CollNet Direct: every GPU to every other one.
    CollNetDirect = 6,
}

impl Pattern {
    pub const ALL: [Pattern; 6] = [
        Pattern::BalancedTree,
        Pattern::SplitTree,
        Pattern::Tree,
        Pattern::Ring,
        Pattern::Nvls,
        Pattern::CollNetDirect,
    ];

    /// NCCL's number for it.
    pub const fn number(self) -> i32 {
        self as i32
    }

    /// The pattern NCCL numbers `n`.
    pub fn from_number(n: i32) -> Option<Pattern> {
        Pattern::ALL.into_iter().find(|p| p.number() == n)
    }

    /// The three tree patterns (whose paths are also checked on the way back).
    pub fn is_tree(self) -> bool {
        matches!(self, Pattern::BalancedTree | Pattern::SplitTree | Pattern::Tree)
    }
}

/// NCCL's pattern numbers, for code that keeps patterns as numbers (`tune`).
pub mod pattern {
    use super::Pattern;
    pub const BALANCED_TREE: i32 = Pattern::BalancedTree.number();
    pub const SPLIT_TREE: i32 = Pattern::SplitTree.number();
    pub const TREE: i32 = Pattern::Tree.number();
    pub const RING: i32 = Pattern::Ring.number();
    pub const NVLS: i32 = Pattern::Nvls.number();
    pub const COLLNET_DIRECT: i32 = Pattern::CollNetDirect.number();
}

/// Which NETs a channel may leave by (NCCL_CROSS_NIC, and a graph's `crossNic`); ordered
/// as NCCL's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CrossNic {
    /// Out by a NET on the rail (or ASIC port) it came in by (0).
    Off = 0,
    /// Out by any NET (1).
    On = 1,
    /// Rings in pairs: an odd channel comes in by the NET its even neighbour left by and
    /// leaves by the one it came in by; other patterns by any NET (2).
    Alternate = 2,
}

impl CrossNic {
    /// NCCL's number for it.
    pub const fn number(self) -> i32 {
        self as i32
    }

    /// The mode NCCL numbers `n`.
    pub fn from_number(n: i32) -> Option<CrossNic> {
        [CrossNic::Off, CrossNic::On, CrossNic::Alternate].into_iter().find(|c| c.number() == n)
    }

    /// NCCL_CROSS_NIC as the search reads it: 1 and 2 are modes, anything else is off.
    pub fn from_env(n: i32) -> CrossNic {
        match n {
            1 => CrossNic::On,
            2 => CrossNic::Alternate,
            _ => CrossNic::Off,
        }
    }
}

/// The graphs NCCL computes, by its numbering (`NCCL_ALGO_*`'s graph slots), which the
/// graph XML prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphId {
    Ring = 0,
    Tree = 1,
    CollNetChain = 2,
    Nvls = 3,
    CollNetDirect = 4,
}

impl GraphId {
    pub const ALL: [GraphId; 5] =
        [GraphId::Ring, GraphId::Tree, GraphId::CollNetChain, GraphId::Nvls, GraphId::CollNetDirect];

    /// NCCL's number for it.
    pub const fn number(self) -> i32 {
        self as i32
    }

    /// NCCL's name of the graph.
    pub fn name(self) -> &'static str {
        match self {
            GraphId::Ring => "ring",
            GraphId::Tree => "tree",
            GraphId::CollNetChain => "collnet_chain",
            GraphId::Nvls => "nvls",
            GraphId::CollNetDirect => "collnet_direct",
        }
    }
}

/// One graph: the input constraints and the channels found.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub id: GraphId,
    pub pattern: Pattern,
    pub cross_nic: CrossNic,
    pub coll_net: bool,
    pub min_channels: i32,
    pub max_channels: i32,
    pub n_channels: i32,
    pub bw_intra: f32,
    pub bw_inter: f32,
    pub latency_inter: f32,
    pub type_intra: PathType,
    pub type_inter: PathType,
    /// Every channel the same GPUs in the same order (the first's, replayed).
    pub same_channels: bool,
    pub n_hops: i32,
    /// Ranks, `ngpus` per channel.
    pub intra: Vec<i32>,
    /// NET node ids, two per channel (in, out); `None` when the system has no NET to
    /// give (NCCL's -1, which the outputs print).
    pub inter: Vec<Option<i64>>,
    /// Whether the search ran (false: not computed for this case).
    pub computed: bool,
    /// Loaded from NCCL_GRAPH_FILE instead of searched.
    pub from_file: bool,
}

impl Graph {
    pub fn new(id: GraphId, pattern: Pattern, ngpus: usize) -> Graph {
        Graph {
            id,
            pattern,
            cross_nic: CrossNic::Off,
            coll_net: false,
            min_channels: 0,
            max_channels: 0,
            n_channels: 0,
            bw_intra: 0.0,
            bw_inter: 0.0,
            latency_inter: 0.0,
            type_intra: PathType::Loc,
            type_inter: PathType::Loc,
            same_channels: false,
            n_hops: 0,
            intra: vec![0; MAXCHANNELS * ngpus.max(1)],
            inter: vec![None; MAXCHANNELS * 2],
            computed: false,
            from_file: false,
        }
    }

    /// NET id `i` of `inter` as NCCL holds it: -1 for none.
    pub fn inter_number(&self, i: usize) -> i64 {
        self.inter[i].unwrap_or(-1)
    }

    /// NCCL's `ncclTopoPrintGraph` summary line: `Pattern 4, crossNic 0, nChannels 12, bw
    /// 20.000000/20.000000, type NVL/PIX, sameChannels 1`.
    pub fn summary(&self) -> String {
        format!(
            "Pattern {}, crossNic {}, nChannels {}, bw {:.6}/{:.6}, type {}/{}, sameChannels {}",
            self.pattern.number(),
            self.cross_nic.number(),
            self.n_channels,
            self.bw_intra as f64,
            self.bw_inter as f64,
            self.type_intra.name(),
            self.type_inter.name(),
            self.same_channels as i32
        )
    }

    /// NCCL's name of the graph.
    pub fn name(&self) -> &'static str {
        self.id.name()
    }
}

/// The five graphs NCCL computes at init, and the system as the search left it.
#[derive(Debug, Clone)]
pub struct Graphs {
    pub ring: Graph,
    pub tree: Graph,
    pub collnet_chain: Graph,
    pub collnet_direct: Graph,
    pub nvls: Graph,
}

impl Graphs {
    pub fn all(&self) -> [&Graph; 5] {
        [&self.ring, &self.tree, &self.nvls, &self.collnet_chain, &self.collnet_direct]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_nccl_print_graph() {
        let mut g = Graph::new(GraphId::Ring, Pattern::Ring, 2);
        g.n_channels = 12;
        g.bw_intra = 20.0;
        g.bw_inter = 17.5;
        g.type_intra = PathType::Nvl;
        g.type_inter = PathType::Pix;
        g.same_channels = true;
        assert_eq!(
            g.summary(),
            "Pattern 4, crossNic 0, nChannels 12, bw 20.000000/17.500000, type NVL/PIX, sameChannels 1"
        );
    }

    /// NCCL's numbers, which the outputs print, survive the round trip.
    #[test]
    fn numbers_are_nccl_and_round_trip() {
        let numbers: Vec<i32> = Pattern::ALL.iter().map(|p| p.number()).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
        for p in Pattern::ALL {
            assert_eq!(Pattern::from_number(p.number()), Some(p));
        }
        assert_eq!(Pattern::from_number(0), None);
        assert_eq!(Pattern::from_number(7), None);
        assert_eq!([pattern::BALANCED_TREE, pattern::TREE, pattern::RING], [1, 3, 4]);
        for c in [CrossNic::Off, CrossNic::On, CrossNic::Alternate] {
            assert_eq!(CrossNic::from_number(c.number()), Some(c));
            assert_eq!(CrossNic::from_env(c.number()), c);
        }
        assert_eq!(CrossNic::from_env(3), CrossNic::Off);
        assert_eq!(CrossNic::from_number(3), None);
        let ids: Vec<(i32, &str)> = GraphId::ALL.iter().map(|g| (g.number(), g.name())).collect();
        assert_eq!(ids, [(0, "ring"), (1, "tree"), (2, "collnet_chain"), (3, "nvls"), (4, "collnet_direct")]);
    }
}
