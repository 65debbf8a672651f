use std::time::Duration;

use super::sweep::validate;
use super::*;
use crate::algo::plan::tasks::{Level1, Shape, streams};
use crate::algo::plan::{Algo, Choice, Plan, RankPlan};

/// The plan of one node of `d` GPUs at level 0 `l0`, without a machine.
fn plan_of(coll: Coll, d: usize, l0: Algo) -> Plan {
    plan_of_nodes(coll, d, l0, 1, Algo::Single)
}

/// The plan of `m` nodes of `d` GPUs, `l0` inside a node and `l1` between nodes.
fn plan_of_nodes(coll: Coll, d: usize, l0: Algo, m: usize, l1: Algo) -> Plan {
    let s = Shape { coll, d, m, bytes: 1 << 20, l0, l1 };
    let flow = Level1::new(&s).unwrap();
    let ranks = (0..d * m)
        .map(|r| {
            let (st, _, _) = streams(&s, r, &flow);
            let subs = st.len() as u32 - 1;
            RankPlan {
                rank: r as u32,
                sub_streams: subs,
                notifies: 2 * subs,
                scratch_bytes: 0,
                links: vec![],
                streams: st,
            }
        })
        .collect();
    let levels =
        vec![Choice { level: 0, algo: l0, why: String::new() }, Choice { level: 1, algo: l1, why: String::new() }];
    Plan { coll, machine: "test".into(), nodes: m, per_node: d, bytes: 1 << 20, levels, executor: s.executor(), ranks }
}

const COLLS: [Coll; 3] = [Coll::AllGather, Coll::ReduceScatter, Coll::AllReduce];
const MODES: [Mode; 2] = [Mode::OutOfPlace, Mode::InPlace];

fn wrong(h: &mut StreamsHost, dtype: DataType, op: RedOp, count: usize, mode: Mode) -> u64 {
    validate(h, dtype, op, count, mode, count as u64 ^ 0x5eed, None)
        .unwrap_or_else(|e| panic!("{} {dtype} {op} count {count} {mode}: {e}", super::sweep::describe(h)))
}

/// Every collective the plan covers, mesh and ring, 2 to 8 ranks, odd counts (an
/// allreduce of fewer elements than ranks leaves some slices empty), both modes.
#[test]
fn every_collective_on_two_to_eight_ranks_is_right() {
    for coll in COLLS {
        for l0 in [Algo::Mesh, Algo::Ring] {
            for d in 2..=8 {
                let mut h = StreamsHost::new(plan_of(coll, d, l0)).unwrap();
                for count in [1, 7, 61] {
                    for mode in MODES {
                        let w = wrong(&mut h, DataType::Float, RedOp::Sum, count, mode);
                        assert_eq!(w, 0, "{coll:?} {l0} d={d} count={count} {mode}");
                    }
                }
            }
        }
    }
}

/// Every type and operator on a mesh of 3 and a ring of 5.
#[test]
fn every_type_and_op() {
    for (l0, d) in [(Algo::Mesh, 3), (Algo::Ring, 5)] {
        for coll in COLLS {
            let mut h = StreamsHost::new(plan_of(coll, d, l0)).unwrap();
            let ops: &[RedOp] = if reduces(coll) { &RedOp::ALL } else { &[RedOp::Sum] };
            for dtype in DataType::ALL {
                for &op in ops {
                    for mode in MODES {
                        assert_eq!(wrong(&mut h, dtype, op, 13, mode), 0, "{coll:?} {l0} {dtype} {op} {mode}");
                    }
                }
            }
        }
    }
}

/// The plans of built-in machines: an NVSwitch box (mesh of 8) and a PCIe workstation
/// (ring of 4).
#[test]
fn plans_of_built_in_machines() {
    for (name, algo) in [("dgx-h100", Algo::Mesh), ("workstation-4gpu", Algo::Ring)] {
        let (xml, _) = crate::fixtures::get(name).unwrap().load().unwrap();
        let an = crate::model::analyze(&xml, name, &Default::default()).unwrap();
        for coll in COLLS {
            let p = crate::algo::plan::plan(&an, coll, 1 << 20, &Default::default()).unwrap();
            assert_eq!(p.levels[0].algo, algo);
            let mut h = StreamsHost::new(p).unwrap();
            for mode in MODES {
                assert_eq!(wrong(&mut h, DataType::Int32, RedOp::Sum, 37, mode), 0, "{name} {coll:?} {mode}");
            }
        }
    }
}

/// Several nodes: every level-1 algorithm on 2 to 6 nodes (halving-doubling folds at
/// 3, 5 and 6), under a mesh, a ring and one GPU a node, every collective, both modes.
#[test]
fn every_level1_algorithm_across_nodes_is_right() {
    let l1s = [Algo::Ring, Algo::Nhr, Algo::Nb, Algo::HalvingDoubling, Algo::Pipeline];
    for coll in COLLS {
        for (l0, d) in [(Algo::Mesh, 3), (Algo::Ring, 2), (Algo::Single, 1)] {
            for l1 in l1s {
                for m in 2..=6 {
                    let mut h = StreamsHost::new(plan_of_nodes(coll, d, l0, m, l1)).unwrap();
                    for count in [1, 7] {
                        for mode in MODES {
                            let w = wrong(&mut h, DataType::Int32, RedOp::Sum, count, mode);
                            assert_eq!(w, 0, "{coll:?} {l0}/{d} {l1}/{m} count={count} {mode}");
                        }
                    }
                }
            }
        }
    }
}

/// Every type and operator across 3 nodes (ring and NHR between them).
#[test]
fn every_type_and_op_across_nodes() {
    for (l0, d, l1) in [(Algo::Mesh, 2, Algo::Nhr), (Algo::Ring, 3, Algo::HalvingDoubling)] {
        for coll in COLLS {
            let mut h = StreamsHost::new(plan_of_nodes(coll, d, l0, 3, l1)).unwrap();
            let ops: &[RedOp] = if reduces(coll) { &RedOp::ALL } else { &[RedOp::Sum] };
            for dtype in DataType::ALL {
                for &op in ops {
                    let w = wrong(&mut h, dtype, op, 11, Mode::OutOfPlace);
                    assert_eq!(w, 0, "{coll:?} {l0}/{d} {l1}/3 {dtype} {op}");
                }
            }
        }
    }
}

/// The plans of an 8-GPU NVSwitch box on 2 and 4 nodes with HCCL's own choices, and
/// with every level-1 algorithm forced.
#[test]
fn plans_of_dgx_h100_on_two_and_four_nodes() {
    use crate::algo::plan::Forced;
    let (xml, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
    for nodes in [2, 4] {
        let opts = crate::model::Options { nodes, ..Default::default() };
        let an = crate::model::analyze(&xml, "dgx-h100", &opts).unwrap();
        let forced = [None, Some(Algo::Ring), Some(Algo::Nhr), Some(Algo::Nb), Some(Algo::HalvingDoubling)];
        for coll in COLLS {
            for l1 in forced {
                let f = Forced { level0: None, level1: l1 };
                let p = crate::algo::plan::plan(&an, coll, 1 << 20, &f).unwrap();
                assert_eq!((p.nodes, p.ranks.len()), (nodes, 8 * nodes));
                let mut h = StreamsHost::new(p).unwrap();
                for mode in MODES {
                    assert_eq!(
                        wrong(&mut h, DataType::Float, RedOp::Sum, 29, mode),
                        0,
                        "{nodes} {coll:?} {l1:?} {mode}"
                    );
                }
            }
        }
    }
}

/// The device path without a GPU: the enqueue order on the fake device (CUDA's stream
/// and event semantics, streams interleaved by a seed) moves the same data as the
/// threads, on one node and across nodes, for every collective.
#[test]
fn the_device_order_on_the_fake_device_is_right() {
    let shapes = [
        (Algo::Mesh, 4, 1, Algo::Single),
        (Algo::Ring, 5, 1, Algo::Single),
        (Algo::Mesh, 8, 1, Algo::Single),
        (Algo::Mesh, 3, 2, Algo::Ring),
        (Algo::Ring, 2, 3, Algo::HalvingDoubling),
        (Algo::Mesh, 2, 5, Algo::Nhr),
        (Algo::Single, 1, 4, Algo::Nb),
    ];
    for coll in COLLS {
        for (l0, d, m, l1) in shapes {
            let mut h = StreamsHost::new(plan_of_nodes(coll, d, l0, m, l1)).unwrap();
            for seed in 1..=3 {
                h.exec = Exec::Fake { seed, ignore_waits: false };
                for (count, mode) in [(1, Mode::InPlace), (13, Mode::OutOfPlace), (13, Mode::InPlace)] {
                    let w = wrong(&mut h, DataType::Float, RedOp::Sum, count, mode);
                    assert_eq!(w, 0, "{coll:?} {l0}/{d} {l1}/{m} seed {seed} count {count} {mode}");
                }
            }
            if reduces(coll) {
                h.exec = Exec::Fake { seed: 9, ignore_waits: false };
                for (dtype, op) in
                    [(DataType::Int8, RedOp::Prod), (DataType::Half, RedOp::Avg), (DataType::Int32, RedOp::Avg)]
                {
                    assert_eq!(
                        wrong(&mut h, dtype, op, 11, Mode::OutOfPlace),
                        0,
                        "{coll:?} {l0}/{d} {l1}/{m} {dtype} {op}"
                    );
                }
            }
        }
    }
}

/// The fake device can fail: waits bound to nothing (what a Wait enqueued before its
/// Post gets on CUDA) race, and some seed sees wrong data; a Post left out is a
/// deadlock the enqueue order names before anything runs.
#[test]
fn the_fake_device_sees_unordered_streams_and_deadlocks() {
    let mut h = StreamsHost::new(plan_of_nodes(Coll::AllReduce, 4, Algo::Mesh, 2, Algo::Ring)).unwrap();
    let mut worst = 0;
    for seed in 1..=8 {
        h.exec = Exec::Fake { seed, ignore_waits: true };
        worst = worst.max(wrong(&mut h, DataType::Int32, RedOp::Sum, 16, Mode::OutOfPlace));
    }
    assert!(worst > 0, "no seed saw the race");
    let mut h = StreamsHost::new(plan_of(Coll::AllGather, 4, Algo::Mesh)).unwrap();
    h.exec = Exec::Fake { seed: 1, ignore_waits: false };
    let post = h.plan.ranks[1].streams[0].tasks.iter().position(|t| *t == Task::Post("aux0".into())).unwrap();
    let e = validate(&mut h, DataType::Float, RedOp::Sum, 4, Mode::OutOfPlace, 1, Some((1, 0, post)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no order enqueues every Post before its Wait, the plan deadlocks: waiting rank 0"), "{e}");
    assert!(e.contains("rank 1 sub0 task 1 (Wait aux0)"), "{e}");
}

/// A planted bug is seen: a copy left out is counted wrong; a Post left out stops the
/// run at the wait that never ends, named.
#[test]
fn a_dropped_copy_is_wrong_and_a_dropped_post_is_named() {
    let mut h = StreamsHost::new(plan_of(Coll::AllGather, 4, Algo::Mesh)).unwrap();
    // Rank 0's sub0 task 4: copy rank3.CCL_Out+off(3) -> UserOut+3*slice.
    assert!(matches!(h.plan.ranks[0].streams[1].tasks[3], Task::Copy { .. }));
    let w = validate(&mut h, DataType::Float, RedOp::Sum, 9, Mode::OutOfPlace, 1, Some((0, 1, 3))).unwrap();
    assert_eq!(w, 9);
    // Rank 2's ring step reduces nothing: its slices come out short of one input.
    let mut h = StreamsHost::new(plan_of(Coll::ReduceScatter, 3, Algo::Ring)).unwrap();
    let at = h.plan.ranks[2].streams[0].tasks.iter().position(|t| matches!(t, Task::Reduce { .. })).unwrap();
    let w = validate(&mut h, DataType::Int32, RedOp::Sum, 5, Mode::InPlace, 1, Some((2, 0, at))).unwrap();
    assert!(w > 0);
    // Across 2 nodes, rank 5's RDMA write to rank 1 is left out: rank 1 lacks a node's
    // slices.
    let mut h = StreamsHost::new(plan_of_nodes(Coll::AllGather, 4, Algo::Mesh, 2, Algo::Ring)).unwrap();
    let at = h.plan.ranks[5].streams[0].tasks.iter().position(|t| matches!(t, Task::RdmaWrite { .. })).unwrap();
    let w = validate(&mut h, DataType::Float, RedOp::Sum, 3, Mode::OutOfPlace, 1, Some((5, 0, at))).unwrap();
    assert_eq!(w, 4 * 3);
    // Rank 1's main stream never posts aux0: its sub0 waits in vain.
    let mut h = StreamsHost::new(plan_of(Coll::AllGather, 4, Algo::Mesh)).unwrap();
    h.timeout = Duration::from_millis(200);
    let post = h.plan.ranks[1].streams[0].tasks.iter().position(|t| *t == Task::Post("aux0".into())).unwrap();
    let e = validate(&mut h, DataType::Float, RedOp::Sum, 4, Mode::OutOfPlace, 1, Some((1, 0, post)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no progress in 0.2 s, the plan deadlocks: waiting rank 0 main task 8 (Wait sig2)"), "{e}");
    assert!(
        e.contains("rank 0 sub2 task 3 (RxAck(1)); rank 1 main task 6 (Wait sig0); rank 1 sub0 task 1 (Wait aux0)"),
        "{e}"
    );
}

/// The plan's streams and the MSCCL-IR program `topo algo make --algo mesh` makes move
/// the same data: byte-identical outputs from the same inputs.
#[test]
fn the_plan_and_the_mesh_program_agree_on_real_data() {
    use crate::algo::make::{self, Algo as MakeAlgo, Options, Shape as Job};
    use crate::algo::program::Protocol;
    use crate::algo::runtime::Runtime;
    use crate::bench::program::{ProgramBackend, ProgramHost, load, reference};
    for coll in COLLS {
        for n in [2u32, 3, 4] {
            let opts = Options {
                coll: collective(coll),
                algo: MakeAlgo::Mesh,
                runtime: Runtime::default(),
                proto: Protocol::Simple,
                instances: 1,
                channels: None,
                root: 0,
            };
            let job = Job { nodes: 1, gpus_per_node: n, rings: vec![], trees: vec![] };
            let program = make::make(&opts, &job).unwrap();
            let text = crate::algo::write::write(&program, Runtime::default()).unwrap();
            let mut prog = ProgramHost::new(load(text.as_bytes(), "mesh").unwrap());
            let mut h = StreamsHost::new(plan_of(coll, n as usize, Algo::Mesh)).unwrap();
            let count = 5 * prog.loaded().count_unit();
            for (dtype, op) in
                [(DataType::Float, RedOp::Sum), (DataType::Int8, RedOp::Prod), (DataType::Half, RedOp::Max)]
            {
                let op = if reduces(coll) { op } else { RedOp::Sum };
                let mode = Mode::OutOfPlace;
                let seed = 42;
                reference::init_inputs(&mut prog, dtype, op, count, mode, seed).unwrap();
                prog.run(dtype, op, count, mode, 1).unwrap();
                assert_eq!(validate(&mut h, dtype, op, count, mode, seed, None).unwrap(), 0);
                let (_, recv) = sizes(coll, n as usize, count);
                for r in 0..n as usize {
                    let mut a = vec![0u8; recv * dtype.size()];
                    let mut b = a.clone();
                    prog.get_output(r, mode, dtype, count, &mut a).unwrap();
                    h.get_output(r, mode, dtype, count, &mut b).unwrap();
                    assert!(a == b, "{coll:?} n={n} {dtype} {op} rank {r}: the plan and the program differ");
                }
            }
        }
    }
}

/// The long sweep: every collective, mesh and ring, 2 to 8 ranks, counts from 1 to a
/// few million (float, and int8 prod / half avg at one large size), both modes; then
/// every level-1 algorithm on 2 to 9 nodes of 4 GPUs, on threads and on the fake
/// device. Run with `cargo test --release --lib bench::streams -- --ignored`.
#[test]
#[ignore]
fn long_sweep_every_shape_and_size() {
    for coll in COLLS {
        for l0 in [Algo::Mesh, Algo::Ring] {
            for d in 2..=8 {
                let mut h = StreamsHost::new(plan_of(coll, d, l0)).unwrap();
                let big = (64 << 20) / 4 / if coll == Coll::AllReduce { 1 } else { d };
                for count in [1, 2, 3, 255, 4097, 65_537, 1_000_003, big] {
                    for mode in MODES {
                        let w = wrong(&mut h, DataType::Float, RedOp::Sum, count, mode);
                        assert_eq!(w, 0, "{coll:?} {l0} d={d} count={count} {mode}");
                    }
                }
                for (dtype, op) in [(DataType::Int8, RedOp::Prod), (DataType::Half, RedOp::Avg)] {
                    assert_eq!(wrong(&mut h, dtype, op, 100_003, Mode::InPlace), 0, "{coll:?} {l0} d={d} {dtype} {op}");
                }
            }
        }
        // Across nodes: every level-1 algorithm on 2 to 9 nodes of 4 (mesh and ring).
        for l0 in [Algo::Mesh, Algo::Ring] {
            for l1 in [Algo::Ring, Algo::Nhr, Algo::Nb, Algo::HalvingDoubling] {
                for m in 2..=9 {
                    let mut h = StreamsHost::new(plan_of_nodes(coll, 4, l0, m, l1)).unwrap();
                    for count in [1, 3, 4097, 65_537] {
                        for mode in MODES {
                            let w = wrong(&mut h, DataType::Float, RedOp::Sum, count, mode);
                            assert_eq!(w, 0, "{coll:?} {l0}/4 {l1}/{m} count={count} {mode}");
                        }
                    }
                    h.exec = Exec::Fake { seed: m as u64, ignore_waits: false };
                    assert_eq!(
                        wrong(&mut h, DataType::Int32, RedOp::Sum, 4097, Mode::OutOfPlace),
                        0,
                        "fake {coll:?} {l1}/{m}"
                    );
                }
            }
        }
    }
}
