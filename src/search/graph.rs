//! A graph: the constraints the search starts from and the channels it found.

use crate::model::PathType;
use crate::search::limits::MAXCHANNELS;

/// Graph patterns, NCCL's numbering.
pub mod pattern {
    pub const BALANCED_TREE: i32 = 1;
    pub const SPLIT_TREE: i32 = 2;
    pub const TREE: i32 = 3;
    pub const RING: i32 = 4;
    pub const NVLS: i32 = 5;
    pub const COLLNET_DIRECT: i32 = 6;
}

/// One graph: the input constraints and the channels found.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub id: i32,
    pub pattern: i32,
    pub cross_nic: i32,
    pub coll_net: bool,
    pub min_channels: i32,
    pub max_channels: i32,
    pub n_channels: i32,
    pub bw_intra: f32,
    pub bw_inter: f32,
    pub latency_inter: f32,
    pub type_intra: PathType,
    pub type_inter: PathType,
    pub same_channels: i32,
    pub n_hops: i32,
    /// Ranks, `ngpus` per channel.
    pub intra: Vec<i32>,
    /// NET node ids, two per channel (in, out); -1 when none.
    pub inter: Vec<i64>,
    /// Whether the search ran (false: not computed for this case).
    pub computed: bool,
    /// Loaded from NCCL_GRAPH_FILE instead of searched.
    pub from_file: bool,
}

impl Graph {
    pub fn new(id: i32, pattern: i32, ngpus: usize) -> Graph {
        Graph {
            id,
            pattern,
            cross_nic: 0,
            coll_net: false,
            min_channels: 0,
            max_channels: 0,
            n_channels: 0,
            bw_intra: 0.0,
            bw_inter: 0.0,
            latency_inter: 0.0,
            type_intra: PathType::Loc,
            type_inter: PathType::Loc,
            same_channels: 0,
            n_hops: 0,
            intra: vec![0; MAXCHANNELS * ngpus.max(1)],
            inter: vec![0; MAXCHANNELS * 2],
            computed: false,
            from_file: false,
        }
    }

    /// NCCL's `ncclTopoPrintGraph` summary line: `Pattern 4, crossNic 0, nChannels 12, bw
    /// 20.000000/20.000000, type NVL/PIX, sameChannels 1`.
    pub fn summary(&self) -> String {
        format!(
            "Pattern {}, crossNic {}, nChannels {}, bw {:.6}/{:.6}, type {}/{}, sameChannels {}",
            self.pattern,
            self.cross_nic,
            self.n_channels,
            self.bw_intra as f64,
            self.bw_inter as f64,
            self.type_intra.name(),
            self.type_inter.name(),
            self.same_channels
        )
    }

    /// NCCL's name of a graph id.
    pub fn name(&self) -> &'static str {
        match self.id {
            0 => "ring",
            1 => "tree",
            2 => "collnet_chain",
            3 => "nvls",
            4 => "collnet_direct",
            _ => "graph",
        }
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
    /// In NCCL's dump order: ring, tree, CollNet direct, CollNet chain, NVLS.
    pub fn dump_order(&self) -> [&Graph; 5] {
        [&self.ring, &self.tree, &self.collnet_direct, &self.collnet_chain, &self.nvls]
    }
    pub fn all(&self) -> [&Graph; 5] {
        [&self.ring, &self.tree, &self.nvls, &self.collnet_chain, &self.collnet_direct]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_nccl_print_graph() {
        let mut g = Graph::new(0, pattern::RING, 2);
        g.n_channels = 12;
        g.bw_intra = 20.0;
        g.bw_inter = 17.5;
        g.type_intra = PathType::Nvl;
        g.type_inter = PathType::Pix;
        g.same_channels = 1;
        assert_eq!(
            g.summary(),
            "Pattern 4, crossNic 0, nChannels 12, bw 20.000000/17.500000, type NVL/PIX, sameChannels 1"
        );
    }
}
