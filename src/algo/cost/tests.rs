use super::*;
use crate::algo::make::{self, Algo, Options, Shape};
use crate::algo::program::Protocol;

/// The fabric, tuning model and job (NCCL's rings with it) of a built-in machine on
/// `nodes` nodes.
fn machine(name: &str, nodes: usize) -> (Fabric, Model, Shape) {
    let (xml, _) = crate::fixtures::get(name).unwrap().load().unwrap();
    machine_of(&xml, name, nodes)
}

/// The same for a machine's XML.
fn machine_of(xml: &crate::xml::Xml, name: &str, nodes: usize) -> (Fabric, Model, Shape) {
    let opts = crate::model::Options { nodes, ..Default::default() };
    let an = crate::model::analyze(xml, name, &opts).unwrap();
    let so = crate::search::SearchOptions::from_analysis(&an);
    let (graphs, _) = crate::search::run(&an, &so).unwrap();
    let model = Model::new(&an, &graphs).unwrap();
    let shape = make::machine::shape_with(&an, &graphs).unwrap();
    (Fabric::new(&an, &model).unwrap(), model, shape)
}

/// An allreduce `make` makes by `algo` on the job, with `channels` rings.
fn allreduce(algo: Algo, shape: &Shape, channels: Option<u32>) -> Program {
    let opts = Options {
        coll: Collective::AllReduce,
        algo,
        runtime: Runtime::Executor,
        proto: Protocol::Simple,
        instances: 1,
        channels: channels.or(make::machine::nccl_channels(shape, Runtime::Executor).filter(|_| algo.needs_machine())),
        root: 0,
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

/// `fixtures/pcie/split-domains.xml`: trimming splits the host into two domains of two
/// GPUs. Each rank is costed on its own domain's system (before, every rank looked for
/// its GPU in rank 0's and ranks 2 and 3 had none), and the domains talk over the
/// network, which NCCL's ring crosses twice a lap.
#[test]
fn a_host_split_into_domains_costs_each_domain_and_the_network_between() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pcie/split-domains.xml");
    let (xml, _) = crate::xml::parse(&std::fs::read_to_string(&path).unwrap(), Some(&path)).unwrap();
    let (fabric, model, shape) = machine_of(&xml, "split-domains", 1);
    assert_eq!((fabric.domains, fabric.ranks(), model.comm.n_nodes), (2, 4, 2));
    let (a, b) = (fabric.route(0, 1, 0).unwrap(), fabric.route(2, 3, 0).unwrap());
    assert!(a.ty != "NET" && b.ty != "NET", "{} {}", a.ty, b.ty);
    assert!(a.links.iter().all(|l| !b.links.contains(l)), "the two domains' switches are apart");
    let across = fabric.route(1, 2, 0).unwrap();
    assert_eq!(across.ty, "NET");
    let names: Vec<&str> = across.links.iter().map(|&l| fabric.resources[l as usize].name.as_str()).collect();
    assert!(names.iter().any(|n| n.contains("mlx5_0")) && names.iter().any(|n| n.contains("mlx5_1")), "{names:?}");
    let p = allreduce(Algo::Nccl, &shape, None);
    let mut c = cost(&p, Runtime::Executor, &fabric, &[1 << 30]).unwrap();
    beside_nccl(&mut c, &model);
    let r = &c.rows[0];
    let ratio = r.time_us / r.nccl.as_ref().and_then(|n| n.ring_simple_us).unwrap();
    assert!((0.8..=1.2).contains(&ratio), "{ratio}: {}", r.bottleneck);
}
