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

/// The NIC-side link of a route between nodes: the first `-NET->` hop's resource.
fn out_nic(f: &Fabric, from: u32, to: u32, chan: u32) -> String {
    let r = f.route(from, to, chan).unwrap();
    r.links.iter().map(|&l| f.resources[l as usize].name.clone()).find(|n| n.contains("-NET->")).unwrap()
}

/// As the runtime connects a program (no graph), a sender reaches the receiver's
/// device's NIC through a relay GPU where one can relay (PXN): on two DGX H100s, GPU 7
/// sends to rank 8 (device 0) over NVLink into GPU 0 and out of GPU 0's NIC, the NIC
/// rank 0 itself uses; to rank 15 (device 7) through its own.
#[test]
fn a_sender_reaches_the_receivers_device_nic_through_a_pxn_relay() {
    let (f, _, _) = machine("dgx-h100", 2);
    assert_eq!(f.nics, fabric::Nics::Runtime);
    assert_eq!(out_nic(&f, 7, 8, 0), out_nic(&f, 0, 8, 0));
    assert_ne!(out_nic(&f, 7, 8, 0), out_nic(&f, 7, 15, 0));
    let r = f.route(7, 8, 0).unwrap();
    assert!(f.resources[r.links[0] as usize].name.contains("GPU"), "{}", f.resources[r.links[0] as usize].name);
    assert!(r.links.iter().any(|&l| f.resources[l as usize].name.contains("-NVL->")), "the relay is over NVLink");
}

/// NCCL's own ring channels take the NICs their graph names: one node has none to take.
#[test]
fn nccl_ring_nics_need_a_job_across_nodes() {
    for nodes in [1, 2] {
        let (xml, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let opts = crate::model::Options { nodes, ..Default::default() };
        let an = crate::model::analyze(&xml, "dgx-h100", &opts).unwrap();
        let (graphs, _) = crate::search::run(&an, &crate::search::SearchOptions::from_analysis(&an)).unwrap();
        let f = Fabric::new(&an, &Model::new(&an, &graphs).unwrap()).unwrap();
        let rings = f.with_ring_graph(&graphs.ring);
        assert_eq!(rings.is_some(), nodes == 2, "{nodes} nodes");
        if let Some(r) = rings {
            assert!(
                matches!(r.nics, fabric::Nics::RingGraph { ref channels } if channels.len() == graphs.ring.n_channels as usize)
            );
        }
    }
}
