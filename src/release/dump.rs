//! What a release's graph dump (`NCCL_GRAPH_DUMP_FILE`) looks like.

use super::table::Release;

/// How the graph dump (NCCL_GRAPH_DUMP_FILE) of a release looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpDialect {
    /// The graphs written, in order, as (graph, id written).
    pub graphs: &'static [(DumpGraph, i32)],
    /// Channel `<gpu>` elements carry `rank="N"` (2.30.3).
    pub gpu_rank: bool,
    /// Devices written `%#lx` as 64-bit ids, a GPU's with its system id, and an NVLS
    /// channel holding only its head GPU (2.21); before, `%d` device numbers and every GPU.
    pub hex_ids: bool,
    /// A channel's `<net>` hops are written for a multi-node job (`system->inter`,
    /// 2.28.7); before, when the system holds NET nodes, which the trim removes when
    /// every rank is local.
    pub nets_from_inter: bool,
}

/// The graphs a dump can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpGraph {
    Ring,
    Tree,
    CollNetDirect,
    CollNetChain,
    Nvls,
}

impl Release {
    /// The graph-dump format: 2.21 writes four graphs (ring, tree, one CollNet graph as
    /// id 2, NVLS as id 3); 2.22 adds CollNet direct after the tree, numbered 2 like
    /// the chain, and 2.23 renumbers it 4; 2.30.3 adds `rank`. Device numbers are
    /// decimal before 2.21 (see [`DumpDialect`]).
    pub fn dump_dialect(self) -> DumpDialect {
        use DumpGraph::*;
        const FOUR: &[(DumpGraph, i32)] = &[(Ring, 0), (Tree, 1), (CollNetChain, 2), (Nvls, 3)];
        const FIVE_22: &[(DumpGraph, i32)] = &[(Ring, 0), (Tree, 1), (CollNetDirect, 2), (CollNetChain, 2), (Nvls, 3)];
        const FIVE: &[(DumpGraph, i32)] = &[(Ring, 0), (Tree, 1), (CollNetDirect, 4), (CollNetChain, 2), (Nvls, 3)];
        let graphs = if !self.since(2, 22, 0) {
            FOUR
        } else if !self.since(2, 23, 0) {
            FIVE_22
        } else {
            FIVE
        };
        DumpDialect {
            graphs,
            gpu_rank: self.since(2, 30, 3),
            hex_ids: self.graph_dump_hex_ids(),
            nets_from_inter: self.since(2, 28, 7),
        }
    }

    /// A graph dump's `<net dev>` and `<gpu dev>` are the nodes' topology ids written
    /// `%#lx` (2.21: `xmlSetAttrLong`) and a graph file's are read as hex; before, the
    /// device numbers written `%d` (`xmlSetAttrInt`), as in a real 2.18.1 dump, and read
    /// with `strtol` base 0.
    pub fn graph_dump_hex_ids(self) -> bool {
        self.since(2, 21, 0)
    }

    /// A graph dump's NVLS channels name only their head GPU (2.21); before, every GPU
    /// of the channel, like the other graphs.
    pub fn graph_dump_nvls_head_only(self) -> bool {
        self.since(2, 21, 0)
    }
}
