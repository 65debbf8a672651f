//! Tests of the channel set-up: NCCL's trees, rings across nodes, the channel-count
//! steps, and trimmed ranks as nodes of their own.

use super::*;
use crate::search::{Graph, GraphId, pattern};

#[test]
fn btree_of_fourteen_matches_the_picture() {
    // NCCL's comment: 0-8, 8 has 4 and 12; 4 has 2 and 6; 12 has 10 (and 13 below it).
    assert_eq!(btree(14, 0), (-1, -1, 8, 0));
    assert_eq!(btree(14, 8), (0, 4, 12, 1));
    assert_eq!(btree(14, 4), (8, 2, 6, 0));
    assert_eq!(btree(14, 12), (8, 10, 13, 1));
    assert_eq!(btree(14, 2), (4, 1, 3, 0));
    assert_eq!(btree(14, 13), (12, -1, -1, 1));
    assert_eq!(btree(14, 1), (2, -1, -1, 0));
    assert_eq!(btree(14, 3), (2, -1, -1, 1));
    assert_eq!(btree(1, 0), (-1, -1, -1, 0));
    assert_eq!(btree(2, 0), (-1, -1, 1, 0));
    assert_eq!(btree(2, 1), (0, -1, -1, 1));
    assert_eq!(btree(3, 2), (0, 1, -1, 1));
    assert_eq!(btree(3, 1), (2, -1, -1, 0));
}

#[test]
fn btree_is_a_tree() {
    for n in 1..70 {
        let mut parents = 0;
        for r in 0..n {
            let (u, d0, d1, _) = btree(n, r);
            if u == -1 {
                assert_eq!(r, 0);
            } else {
                parents += 1;
                let (_, pd0, pd1, _) = btree(n, u);
                assert!(pd0 == r || pd1 == r, "n {n}: {r}'s parent {u} does not list it");
            }
            for d in [d0, d1] {
                if d != -1 {
                    assert!(d < n);
                    assert_eq!(btree(n, d).0, r);
                }
            }
        }
        assert_eq!(parents, n - 1);
    }
}

#[test]
fn dtree_mirrors_even_and_shifts_odd() {
    // Even: the second tree is the mirror (NCCL's picture for 12: root 11, 3 under it).
    let (a, b) = dtree(12, 11);
    assert_eq!(a.up, 10);
    assert_eq!((b.up, b.down0, b.down1), (-1, -1, 3));
    let (_, b) = dtree(12, 3);
    assert_eq!((b.up, b.down0, b.down1), (11, 7, 1));
    // Odd: shifted by one (13 nodes: root 1, 9 under it).
    let (_, b) = dtree(13, 1);
    assert_eq!((b.up, b.down0, b.down1), (-1, -1, 9));
    let (_, b) = dtree(13, 9);
    assert_eq!((b.up, b.down0, b.down1), (1, 5, 0));
    // Two nodes: 0 is root of the first tree, 1 of the second.
    let (a, b) = dtree(2, 0);
    assert_eq!((a.up, a.down1, b.up, b.down0), (-1, 1, 1, -1));
    let (a, b) = dtree(2, 1);
    assert_eq!((a.up, b.up, b.down1), (0, -1, 0));
}

fn graph(id: i32, pat: i32, l: usize, chans: &[&[i32]]) -> Graph {
    let mut g = Graph::new(GraphId::ALL[id as usize], Pattern::from_number(pat).unwrap(), l);
    g.computed = true;
    g.n_channels = chans.len() as i32;
    for (c, ch) in chans.iter().enumerate() {
        g.intra[c * l..(c + 1) * l].copy_from_slice(ch);
    }
    g.bw_intra = 20.0;
    g.bw_inter = 20.0;
    g
}

fn graphs(ring: Graph, tree: Graph) -> Graphs {
    let l = 1;
    Graphs {
        ring,
        tree,
        collnet_chain: Graph::new(GraphId::CollNetChain, Pattern::Tree, l),
        collnet_direct: Graph::new(GraphId::CollNetDirect, Pattern::CollNetDirect, l),
        nvls: Graph::new(GraphId::Nvls, Pattern::Nvls, l),
    }
}

fn job(nodes: usize, l: usize) -> Job {
    Job {
        nodes,
        local_ranks: l,
        ranks: (0..l as i32).collect(),
        others: vec![],
        min_cc: 80,
        cc: 80,
        collnet: false,
        collnet_node_threshold: 2,
        nvls_nchannels: None,
        limits: Limits::default(),
        release: Default::default(),
        min_local_ranks: l,
        min_net_bw: 0.0,
    }
}

#[test]
fn single_node_rings_and_chains() {
    // The A6000 pair of the cuiboyuan log: ring [0 1] x2, tree [0 1] and [1 0].
    let gs = graphs(
        graph(0, pattern::RING, 2, &[&[0, 1], &[0, 1]]),
        graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1], &[1, 0]]),
    );
    let run = build(&gs, &job(1, 2)).unwrap();
    assert_eq!(run.n_channels, 4);
    assert_eq!(
        run.ring_lines(1),
        ["Ring 00 : 0 -> 1 -> 0", "Ring 01 : 0 -> 1 -> 0", "Ring 02 : 0 -> 1 -> 0", "Ring 03 : 0 -> 1 -> 0"]
    );
    assert_eq!(run.trees_line(1), "Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1 [2] -1/-1/-1->1->0 [3] 0/-1/-1->1->-1");
    assert_eq!(
        run.tree_lines(1),
        [
            "Tree 0 : 0 -> 1 -> -1/-1/-1",
            "Tree 2 : 0 -> 1 -> -1/-1/-1",
            "Tree 1 : -1 -> 1 -> 0/-1/-1",
            "Tree 3 : -1 -> 1 -> 0/-1/-1"
        ]
    );
    assert_eq!(run.channel_lines()[0], "Channel 00/04 : 0 1");
}

#[test]
fn two_nodes_join_rings_and_trees() {
    // 2 nodes of 2 GPUs, one channel: ring 0 1 | 2 3, balanced tree chain 0 1.
    let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 1]]), graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1]]));
    let run = build(&gs, &job(2, 2)).unwrap();
    assert_eq!(run.n_channels, 2);
    assert_eq!(run.ring_order(0, 0), [0, 1, 2, 3]);
    assert_eq!(run.ring_order(1, 2), [2, 3, 0, 1]);
    assert_eq!(run.ring_prev(0, 0), 3);
    assert_eq!(run.ring_next(0, 1), 2);
    // Tree 0: node 0 root; node 1's parent side (rank 2) hangs under node 0's child1
    // side (rank 0, child type 1 as 1 > 0). Balanced: child0 = intra[1], child1 = intra[0].
    assert_eq!(run.tree_up(0, 0), -1);
    assert_eq!(run.tree_down(0, 0), [1, 2, -1]);
    assert_eq!(run.tree_up(0, 2), 0);
    assert_eq!(run.tree_down(0, 2), [3, -1, -1]);
    // Tree 1 (mirror): node 1 root; node 0 is, in mirrored numbering, its second
    // child, so node 0's parent side (rank 0) hangs under node 1's child1 side (rank 2).
    assert_eq!(run.tree_up(1, 2), -1);
    assert_eq!(run.tree_down(1, 2), [3, 0, -1]);
    assert_eq!(run.tree_up(1, 0), 2);
    assert_eq!(run.trees_line(0), "Trees [0] 1/2/-1->0->-1 [1] 1/-1/-1->0->2");
    assert_eq!(run.channel_lines(), ["Channel 00/02 : 0 1 2 3", "Channel 01/02 : 0 1 2 3"]);
}

#[test]
fn cross_nic_two_swaps_channel_pairs_on_odd_nodes() {
    let mut ring = graph(0, pattern::RING, 2, &[&[0, 1], &[1, 0]]);
    ring.cross_nic = CrossNic::Alternate;
    let gs = graphs(ring, graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1], &[1, 0]]));
    let run = build(&gs, &job(2, 2)).unwrap();
    assert!(run.cross_nic_swap);
    // Node 1 runs channel 1's chain (3 2) on channel 0.
    assert_eq!(run.ring_order(0, 0), [0, 1, 3, 2]);
    assert_eq!(run.ring_order(1, 0), [0, 2, 3, 1]);
    // Odd channel count: no swap.
    let mut ring = graph(0, pattern::RING, 2, &[&[0, 1]]);
    ring.cross_nic = CrossNic::Alternate;
    let gs = graphs(ring, graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1]]));
    assert!(!build(&gs, &job(2, 2)).unwrap().cross_nic_swap);
}

#[test]
fn tree_pattern_puts_both_children_on_the_first_rank() {
    let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 1]]), graph(1, pattern::TREE, 2, &[&[0, 1]]));
    let run = build(&gs, &job(3, 2)).unwrap();
    // 3 nodes, tree 0: node 0 root with child 2 (d1 = 2 >> 1 ... btree(3,0) = d1 2).
    assert_eq!(run.tree_down(0, 0), [1, 4, -1]);
    assert_eq!(run.tree_up(0, 4), 0);
    assert_eq!(run.tree_down(0, 4), [5, 2, -1]);
    assert_eq!(run.tree_up(0, 2), 4);
}

#[test]
fn limits_follow_copy_channels() {
    let env = Env::from_pairs([("NCCL_MAX_NCHANNELS", "3"), ("NCCL_MIN_NCHANNELS", "7")]);
    let lim = Limits::from_env(&env);
    assert_eq!((lim.min_nchannels, lim.max_nchannels), (7, 3));
    let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 1], &[1, 0]]), graph(1, pattern::TREE, 2, &[&[0, 1], &[1, 0]]));
    let mut j = job(1, 2);
    j.limits = lim;
    let run = build(&gs, &j).unwrap();
    // 2 search channels -> 4 -> max 3 -> min 7 copies of [0 1 2].
    assert_eq!(run.source, [0, 1, 2, 0, 1, 2, 0]);
    assert_eq!(run.n_channels, 7);
    assert_eq!(run.ring_order(2, 0), [0, 1]);
    assert_eq!(run.ring_order(1, 0), [0, 1]);
    assert_eq!(run.tree_up(4, 0), 1); // copy of channel 1: chain 1 0
}

#[test]
fn legacy_and_ctas_variables() {
    let lim = Limits::from_env(&Env::from_pairs([("NCCL_MIN_NRINGS", "4"), ("NCCL_MAX_NRINGS", "100")]));
    assert_eq!((lim.min_nchannels, lim.max_nchannels), (4, 64));
    // The new name wins over the legacy one.
    let lim = Limits::from_env(&Env::from_pairs([("NCCL_MIN_NRINGS", "4"), ("NCCL_MIN_NCHANNELS", "2")]));
    assert_eq!(lim.min_nchannels, 2);
    let lim = Limits::from_env(&Env::from_pairs([("NCCL_MAX_NCHANNELS", "0"), ("NCCL_MIN_NCHANNELS", "99")]));
    assert_eq!((lim.min_nchannels, lim.max_nchannels), (64, 1));
    assert_eq!(lim.notes.len(), 2);
    let lim = Limits::from_env(&Env::from_pairs([("NCCL_MIN_CTAS", "40"), ("NCCL_MAX_CTAS", "8")]));
    assert_eq!((lim.min_ctas, lim.max_ctas), (8, 8));
    let lim = Limits::from_env(&Env::from_pairs([("NCCL_MIN_CTAS", "-3")]));
    assert_eq!(lim.min_ctas, 1);
}

#[test]
fn sm90_doubling_and_collnet_extra() {
    let mut ring = graph(0, pattern::RING, 2, &[&[0, 1], &[1, 0]]);
    ring.bw_intra = 48.0;
    let gs = graphs(ring, graph(1, pattern::TREE, 2, &[&[0, 1], &[1, 0]]));
    let mut j = job(2, 2);
    j.min_cc = 90;
    assert_eq!(build(&gs, &j).unwrap().n_channels, 8);
    j.nodes = 1;
    assert_eq!(build(&gs, &j).unwrap().n_channels, 4);
    let mut gs = gs;
    gs.ring.bw_intra = 20.0;
    gs.collnet_chain = graph(2, pattern::TREE, 2, &[&[0, 1], &[1, 0]]);
    gs.collnet_chain.bw_intra = 40.0;
    let mut j = job(2, 2);
    j.collnet = true;
    assert_eq!(build(&gs, &j).unwrap().n_channels, 6);
    j.nodes = 1;
    assert_eq!(build(&gs, &j).unwrap().n_channels, 4);
}

#[test]
fn channel_lines_are_cut_like_nccl() {
    let l = 64;
    let chain: Vec<i32> = (0..l as i32).collect();
    let gs = graphs(graph(0, pattern::RING, l, &[&chain]), graph(1, pattern::TREE, l, &[&chain]));
    let run = build(&gs, &job(1, l)).unwrap();
    let line = &run.channel_lines()[0];
    assert_eq!(line.len(), 127);
    assert!(line.starts_with("Channel 00/02 :  0  1  2"));
    assert!(line.ends_with("..."));
}

#[test]
fn bad_ranks_are_refused() {
    let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 5]]), graph(1, pattern::TREE, 2, &[&[0, 1]]));
    let e = build(&gs, &job(1, 2)).unwrap_err().to_string();
    assert!(e.contains("rank 5"), "{e}");
    let gs = graphs(graph(0, pattern::RING, 2, &[&[0, 0]]), graph(1, pattern::TREE, 2, &[&[0, 1]]));
    let e = build(&gs, &job(1, 2)).unwrap_err().to_string();
    assert!(e.contains("does not"), "{e}");
}

#[test]
fn trimmed_domains_are_nodes_in_first_rank_order() {
    // A host of 4 GPUs split by trimming into {0, 2} (rank 0's) and {1, 3}; each
    // domain searched its own ring. The other domain found fewer channels: the job
    // gets the fewest (init's alignment), and domain {1, 3} is node 1 of each host.
    let mut j = job(2, 4);
    j.ranks = vec![0, 2];
    let ring = graph(0, pattern::RING, 2, &[&[0, 2], &[2, 0]]);
    let tree = graph(1, pattern::BALANCED_TREE, 2, &[&[0, 2], &[2, 0]]);
    let gs = graphs(ring, tree);
    let other = graphs(graph(0, pattern::RING, 2, &[&[3, 1]]), graph(1, pattern::BALANCED_TREE, 2, &[&[1, 3]]));
    j.others = vec![Domain { ranks: vec![1, 3], graphs: other }];
    assert_eq!((j.n_nodes(), j.node_ranks()), (4, 2));
    assert_eq!(coll_channels(&gs, &j), 2);
    let run = build(&gs, &j).unwrap();
    assert_eq!((run.nodes, run.local_ranks, run.n_ranks, run.search_channels), (4, 2, 8, 1));
    // Nodes: host 0 {0 2}, host 0 {1 3}, host 1 {4 6}, host 1 {5 7}.
    assert_eq!(run.ring_order(0, 0), [0, 2, 3, 1, 4, 6, 7, 5]);
    assert_eq!(run.rank_to_node, [0, 1, 0, 1, 2, 3, 2, 3]);
    // Binary tree over 4 nodes: node 1 hangs under node 2 as its first child, so
    // node 1's parent-side rank (1) goes up to node 2's child0-side rank (intra[1]: 6).
    assert_eq!(run.tree_up(0, 1), 6);
    assert!(run.tree_lines(1).iter().any(|l| l.starts_with("Tree 0 : 6 -> 1 ->")), "{:?}", run.tree_lines(1));
}

#[test]
fn alignment_takes_the_worst_of_every_domain() {
    let mut j = job(1, 4);
    j.ranks = vec![0, 1];
    let mut ring = graph(0, pattern::RING, 2, &[&[0, 1], &[1, 0]]);
    ring.bw_intra = 24.0;
    ring.cross_nic = CrossNic::Off;
    let gs = graphs(ring, graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1], &[1, 0]]));
    let mut oring = graph(0, pattern::RING, 2, &[&[2, 3]]);
    oring.bw_intra = 12.0;
    oring.type_intra = crate::model::PathType::Phb;
    oring.cross_nic = CrossNic::On;
    let other = graphs(oring, graph(1, pattern::TREE, 2, &[&[2, 3], &[3, 2]]));
    j.others = vec![Domain { ranks: vec![2, 3], graphs: other }];
    let (al, tree_pattern) = j.align(&gs);
    assert_eq!((al.ring.n_channels, al.tree.n_channels), (1, 2));
    assert_eq!(
        (al.ring.bw_intra, al.ring.type_intra, al.ring.cross_nic),
        (12.0, crate::model::PathType::Phb, CrossNic::On)
    );
    assert_eq!(tree_pattern, pattern::TREE);
}

#[test]
fn ranks_reaching_each_other_only_through_the_network_run_as_separate_nodes() {
    // Without P2P or shared memory every GPU reaches the others only through the
    // network: each rank trims the host to itself and searches alone, and init makes
    // every GPU a node of its own (nNodes from the rings' first ranks).
    let (xml, _) = crate::fixtures::get("workstation-4gpu").unwrap().load().unwrap();
    let env = Env::from_pairs([("NCCL_P2P_DISABLE", "1"), ("NCCL_SHM_DISABLE", "1")]);
    let opts = crate::model::Options { nodes: 2, env, ..Default::default() };
    let an = crate::model::analyze(&xml, "workstation-4gpu", &opts).unwrap();
    assert_eq!(an.trimmed, [1, 2, 3]);
    let so = crate::search::SearchOptions::from_analysis(&an);
    let (gs, _) = crate::search::run(&an, &so).unwrap();
    let job = Job::from_analysis(&an).unwrap();
    assert_eq!(job.others.iter().map(|d| d.ranks.clone()).collect::<Vec<_>>(), [[1], [2], [3]]);
    let run = build(&gs, &job).unwrap();
    assert_eq!((run.nodes, run.local_ranks, run.n_ranks), (8, 1, 8));
    assert_eq!(run.ring_order(0, 0), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(run.rank_to_node, [0, 1, 2, 3, 4, 5, 6, 7]);
}

/// graph/connect.cc ncclTopoPostset at v2.27.5-1 copies the channels up to
/// nvlsChannels (v2.28.3-1 does not); include/device.h MAXCHANNELS is 32 at v2.24.3-1;
/// transport/nvls.cc gives sm100 24 NVLS channels on one node at v2.27.3-1.
#[test]
fn postset_by_release() {
    let at = |v: &str| {
        let mut j = job(1, 2);
        j.release = crate::release::Release::parse(v).unwrap();
        (j.cc, j.min_cc) = (100, 100);
        j
    };
    let ring = graph(0, pattern::RING, 2, &[&[0, 1]]);
    let tree = graph(1, pattern::BALANCED_TREE, 2, &[&[0, 1]]);
    let mut gs = graphs(ring, tree);
    gs.nvls = graph(3, pattern::NVLS, 2, &[&[0, 1], &[1, 0]]);
    assert_eq!((coll_channels(&gs, &at("2.27.5")), nvls_channels(&at("2.27.5"), true)), (24, 24));
    assert_eq!((coll_channels(&gs, &at("2.28.3")), nvls_channels(&at("2.28.3"), true)), (2, 24));
    // The channels run are copies of the two base channels.
    let run = build(&gs, &at("2.27.5")).unwrap();
    assert_eq!(run.source.len(), 24);
    // 20 search channels double to 40, or to MAXCHANNELS = 32 before 2.25.
    let chans: Vec<&[i32]> = (0..20).map(|_| &[0, 1][..]).collect();
    let gs = graphs(graph(0, pattern::RING, 2, &chans), graph(1, pattern::BALANCED_TREE, 2, &chans));
    assert_eq!((coll_channels(&gs, &at("2.24.3")), coll_channels(&gs, &at("2.25.1"))), (32, 40));
}

/// nvls.cc ncclNvlsTreeSm100Tuning's channel table.
#[test]
fn sm100_multi_node_nvls_table() {
    assert_eq!(sm100_multi_node_nvls(2, 8, 50.0), Some(32));
    assert_eq!(sm100_multi_node_nvls(2, 8, 25.0), None);
    assert_eq!(sm100_multi_node_nvls(4, 8, 100.0), Some(24));
    assert_eq!(sm100_multi_node_nvls(4, 16, 100.0), Some(32));
    assert_eq!(sm100_multi_node_nvls(4, 4, 50.0), Some(24));
    assert_eq!(sm100_multi_node_nvls(8, 4, 12.5), None);
}
