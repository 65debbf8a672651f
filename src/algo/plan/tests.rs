use super::tasks::{Level1, Shape, streams};
use super::*;

fn seed_shape() -> Shape {
    Shape { coll: Coll::AllGather, d: 4, m: 1, bytes: 1 << 20, l0: Algo::Mesh, l1: Algo::Single }
}

fn text(s: &Stream) -> Vec<String> {
    s.tasks.iter().map(|t| t.to_string()).collect()
}

/// Seed 001: allgather, 4 ranks in one server, mesh: 3 sub-streams, 6 notifies, and
/// rank 0's task lists in the seed's order.
#[test]
fn the_seed_mesh_allgather_for_rank_0() {
    let s = seed_shape();
    assert_eq!(s.sub_streams(), 3);
    assert_eq!(s.executor(), "CollAllGatherMeshOpbaseExecutor");
    assert_eq!(s.scratch(), 0);
    let (st, peers0, peers1) = streams(&s, 0, &Level1::new(&s).unwrap());
    assert_eq!(st.len(), 4);
    assert_eq!(peers0, vec![1, 2, 3]);
    assert!(peers1.is_empty());
    assert_eq!(
        text(&st[0]),
        [
            "copy UserIn -> CCL_Out+off(0)",
            "Post aux0",
            "Post aux1",
            "Post aux2",
            "copy CCL_Out+off(0) -> UserOut+0*slice",
            "Wait sig0",
            "Wait sig1",
            "Wait sig2"
        ]
    );
    for (k, peer) in [(0, 3), (1, 2), (2, 1)] {
        assert_eq!(st[k + 1].peer, Some(peer));
        assert_eq!(
            text(&st[k + 1]),
            [
                format!("Wait aux{k}"),
                format!("TxAck({peer})"),
                format!("RxAck({peer})"),
                format!("copy rank{peer}.CCL_Out+off({peer}) -> UserOut+{peer}*slice"),
                format!("TxDataSignal({peer})"),
                format!("RxDataSignal({peer})"),
                format!("Post sig{k}"),
            ]
        );
    }
}

/// Every Post of a notify is waited once by the same rank, and every TxAck/TxDataSignal
/// to a peer is matched by the peer's Rx of the same kind from this rank.
#[test]
fn posts_and_waits_pair_up_for_every_shape() {
    for coll in [Coll::AllGather, Coll::ReduceScatter, Coll::AllReduce] {
        for (l0, d) in [(Algo::Mesh, 4), (Algo::Mesh, 8), (Algo::Ring, 4), (Algo::Single, 1)] {
            for (l1, m) in [
                (Algo::Single, 1),
                (Algo::Ring, 3),
                (Algo::Nhr, 5),
                (Algo::Nb, 6),
                (Algo::HalvingDoubling, 4),
                (Algo::HalvingDoubling, 6),
            ] {
                if d * m < 2 {
                    continue;
                }
                let s = Shape { coll, d, m, bytes: 1 << 20, l0, l1 };
                let flow = Level1::new(&s).unwrap();
                let all: Vec<Vec<Stream>> = (0..d * m).map(|r| streams(&s, r, &flow).0).collect();
                let count = |r: usize, want: &dyn Fn(&Task) -> bool| -> usize {
                    all[r].iter().flat_map(|st| &st.tasks).filter(|t| want(t)).count()
                };
                for r in 0..d * m {
                    for k in 0..s.sub_streams() {
                        for n in [format!("aux{k}"), format!("sig{k}")] {
                            let posts = count(r, &|t| *t == Task::Post(n.clone()));
                            let waits = count(r, &|t| *t == Task::Wait(n.clone()));
                            assert_eq!(posts, waits, "{coll:?} {l0} {l1} rank {r} {n}");
                        }
                    }
                    for p in 0..d * m {
                        let (r32, p32) = (r as u32, p as u32);
                        let tx = count(r, &|t| *t == Task::TxAck(p32));
                        let rx = count(p, &|t| *t == Task::RxAck(r32));
                        assert_eq!(tx, rx, "{coll:?} {l0}/{d} {l1}/{m}: TxAck {r}->{p}");
                        let tx = count(r, &|t| *t == Task::TxDataSignal(p32));
                        let rx = count(p, &|t| *t == Task::RxDataSignal(r32));
                        assert_eq!(tx, rx, "{coll:?} {l0}/{d} {l1}/{m}: DataSignal {r}->{p}");
                        let tx = count(r, &|t| *t == Task::TxDataAck(p32));
                        let rx = count(p, &|t| *t == Task::RxDataAck(r32));
                        assert_eq!(tx, rx, "{coll:?} {l0}/{d} {l1}/{m}: DataAck {r}->{p}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_plan_on_a_built_in_machine() {
    let (xml, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
    let an = crate::model::analyze(&xml, "dgx-h100", &Default::default()).unwrap();
    let p = plan(&an, Coll::AllGather, 1 << 20, &Forced::default()).unwrap();
    assert_eq!(p.levels[0].algo, Algo::Mesh);
    assert_eq!(p.ranks.len(), 8);
    assert_eq!((p.ranks[0].sub_streams, p.ranks[0].notifies), (7, 14));
    assert!(p.ranks[0].links.iter().all(|l| l.kind == LinkKind::Sdma && l.notifies == 4));
    let (xml, _) = crate::fixtures::get("workstation-4gpu").unwrap().load().unwrap();
    let opts = crate::model::Options { nodes: 2, ..Default::default() };
    let an = crate::model::analyze(&xml, "ws", &opts).unwrap();
    let p = plan(&an, Coll::AllReduce, 1 << 20, &Forced::default()).unwrap();
    assert_eq!(p.levels[0].algo, Algo::Ring);
    assert_eq!(p.levels[1].algo, Algo::Ring);
    assert_eq!(p.ranks[0].sub_streams, 0);
    assert!(p.ranks[0].links.iter().any(|l| l.kind == LinkKind::Rdma && l.notifies == 6 && l.peer == 4));
}

/// Every level-1 algorithm yields a complete data flow on 2 to 17 nodes (the flow
/// checks that every node gathers every unit and that every partial sum reaches its
/// owner), and the RDMA writes name the peer they go to.
#[test]
fn level1_flows_are_complete_on_two_to_seventeen_nodes() {
    for coll in [Coll::AllGather, Coll::ReduceScatter, Coll::AllReduce] {
        for l1 in [Algo::Ring, Algo::Nhr, Algo::Nb, Algo::HalvingDoubling, Algo::Pipeline] {
            for m in 2..=17 {
                let s = Shape { coll, d: 2, m, bytes: 1 << 20, l0: Algo::Ring, l1 };
                let flow = Level1::new(&s).unwrap_or_else(|e| panic!("{coll:?} {l1} {m}: {e}"));
                let (st, _, peers1) = streams(&s, 1, &flow);
                for t in &st[0].tasks {
                    if let Task::RdmaWrite { dst, .. } = t {
                        assert!(dst.rank.is_some_and(|p| peers1.contains(&(p as usize))), "{t}");
                    }
                }
            }
        }
    }
}

/// A ring between 2 nodes of an allgather: rank 0 writes its node's 4 slices to rank 4
/// and takes rank 4's node's from its CCL_In.
#[test]
fn a_level1_ring_names_its_offsets() {
    let s = Shape { coll: Coll::AllGather, d: 4, m: 2, bytes: 1 << 20, l0: Algo::Ring, l1: Algo::Ring };
    let (st, _, _) = streams(&s, 0, &Level1::new(&s).unwrap());
    let t = text(&st[0]);
    let tail: Vec<&str> = t.iter().rev().take(8).rev().map(|x| x.as_str()).collect();
    assert_eq!(
        tail,
        [
            "TxAck(4)",
            "RxAck(4)",
            "RDMA write UserOut+0*slice -> rank4.CCL_In+0*slice (4 slices)",
            "TxDataSignal(4)",
            "RxDataSignal(4)",
            "TxDataAck(4)",
            "copy CCL_In+4*slice -> UserOut+4*slice",
            "RxDataAck(4)"
        ]
    );
}
