use super::*;
use crate::algo::make::{self, Algo, Options, Shape};
use crate::algo::program::Protocol;

/// The fabric, tuning model and job (NCCL's rings with it) of a built-in machine on
/// `nodes` nodes.
fn machine(name: &str, nodes: usize) -> (Fabric, Model, Shape) {
    let (xml, _) = crate::fixtures::get(name).unwrap().load().unwrap();
    let opts = crate::model::Options { nodes, ..Default::default() };
    let an = crate::model::analyze(&xml, name, &opts).unwrap();
    let so = crate::search::SearchOptions::from_analysis(&an);
    let (graphs, _) = crate::search::run(&an, &so).unwrap();
    let model = Model::new(&an, &graphs).unwrap();
    let shape = make::machine::shape_with(&an, &graphs).unwrap();
    (Fabric::new(&an, &model), model, shape)
}

/// An allreduce `make` makes by `algo` on the job, with `channels` rings.
fn allreduce(algo: Algo, shape: &Shape, channels: Option<u32>) -> Program {
    let opts = Options {
        coll: Collective::AllReduce,
        algo,
        runtime: Runtime::Executor,
        proto: Protocol::Simple,
        instances: 1,
        channels: channels.or(make::machine::nccl_channels(shape, Runtime::Executor).filter(|_| algo == Algo::Nccl)),
    };
    make::make(&opts, shape).unwrap()
}

/// `make`'s `nccl` allreduce: NCCL's rings, one program channel per NCCL channel.
fn nccl_ring_program(name: &str, nodes: usize) -> Option<(Program, Fabric, Model)> {
    let (fabric, model, shape) = machine(name, nodes);
    if shape.rings.is_empty() || shape.ranks() < 2 {
        return None;
    }
    Some((allreduce(Algo::Nccl, &shape, None), fabric, model))
}

#[test]
fn a_ring_over_nccl_rings_lands_near_ring_simple_at_1_gib() {
    for (name, nodes) in
        [("dgx-h100", 1), ("dgx1-v100", 1), ("workstation-4gpu", 1), ("gb200-nvl72-tray", 1), ("dgx-h100", 2)]
    {
        let Some((p, fabric, model)) = nccl_ring_program(name, nodes) else { continue };
        let mut c = cost(&p, Runtime::Executor, &fabric, &[1 << 30]).unwrap();
        beside_nccl(&mut c, &model);
        let r = &c.rows[0];
        let ring = r.nccl.as_ref().and_then(|n| n.ring_simple_us).unwrap();
        let ratio = r.time_us / ring;
        eprintln!(
            "{name} x{nodes}: cost {:.1} us, Ring/Simple {:.1} us, ratio {ratio:.3} ({})",
            r.time_us, ring, r.bottleneck
        );
        assert!((0.8..=1.2).contains(&ratio), "{name} x{nodes}: {} vs {ring}", r.time_us);
    }
}

#[test]
fn small_messages_are_chain_bound_and_time_grows_with_size() {
    let (p, fabric, _) = nccl_ring_program("dgx-h100", 1).unwrap();
    let c = cost(&p, Runtime::Executor, &fabric, &[1024, 1 << 20, 1 << 30]).unwrap();
    assert_eq!(c.rows[0].binding, Binding::Chain);
    assert!(c.rows.windows(2).all(|w| w[0].time_us < w[1].time_us));
}

#[test]
fn compare_finds_the_winner_per_range() {
    let (p, fabric, _) = nccl_ring_program("dgx-h100", 1).unwrap();
    // Against one ring on one channel: slower at large sizes.
    let sizes = [1 << 10, 1 << 30];
    let a = cost(&p, Runtime::Executor, &fabric, &sizes).unwrap();
    let (.., shape) = machine("dgx-h100", 1);
    let b = cost(&allreduce(Algo::Ring, &shape, Some(1)), Runtime::Executor, &fabric, &sizes).unwrap();
    let cmp = compare(vec![a, b]);
    assert_eq!(cmp.winners[1], Some(0));
    assert!(!cmp.ranges.is_empty());
}

#[test]
fn a_program_larger_than_the_machine_says_how_many_nodes() {
    let (p, _, _) = nccl_ring_program("dgx-h100", 1).unwrap();
    let (fabric, ..) = machine("workstation-4gpu", 1);
    let e = cost(&p, Runtime::Executor, &fabric, &[1 << 20]).unwrap_err();
    assert!(e.contains("--nodes 2"), "{e}");
}
