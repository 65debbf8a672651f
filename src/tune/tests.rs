//! Tests of the tuning model on the built-in machines: hand-checked table entries,
//! internal consistency over sizes, and the NCCL_* variables.

use super::*;
use crate::env::Env;
use crate::model::{self, Options, cpu};
use crate::search::pattern;

fn model_with(name: &str, nodes: usize, collnet: bool, env: &[(&str, &str)]) -> Result<Model, Error> {
    let (xml, _) = crate::fixtures::get(name)?.load()?;
    let opts = Options { nodes, collnet, env: Env::from_pairs(env.iter().copied()), ..Options::default() };
    let an = model::analyze(&xml, name, &opts)?;
    let so = crate::search::SearchOptions::from_analysis(&an);
    let (gs, _) = crate::search::run(&an, &so)?;
    Model::new(&an, &gs)
}

fn model(name: &str, nodes: usize) -> Model {
    model_with(name, nodes, false, &[]).expect("model builds")
}

fn cell(m: &Model, f: Func, a: Algo, p: Proto) -> (String, String) {
    (format!("{:.1}", m.table.latency[f][a][p]), format!("{:.1}", m.table.bandwidth[f][a][p]))
}

fn pow2_sizes() -> impl Iterator<Item = u64> {
    (3..=33).map(|k| 1u64 << k)
}

#[test]
fn dgx_h100_table_follows_nccl_formulas() {
    let m = model("dgx-h100", 1);
    assert_eq!((m.comm.n_ranks, m.comm.n_nodes, m.comm.arch), (8, 1, Arch::Hopper));
    // Ring and tree: 12 search channels of 30 GB/s over NVLink, doubled to 24.
    assert_eq!(m.comm.graphs[Algo::Ring].n_channels, 12);
    assert_eq!(m.comm.n_channels, 24);
    assert_eq!(m.comm.nvls_channels, 16);
    let c = |f, a, p| cell(&m, f, a, p);
    // Ring AllReduce: 6.6 + 14 x 0.6 us; LL at min(141, 360 / 2) x 8/14.
    assert_eq!(c(Func::AllReduce, Algo::Ring, Proto::Ll), ("15.0".into(), "80.6".into()));
    // Simple: 8.4 + 14 x 3.4 us; 360 x 8/14 GB/s.
    assert_eq!(c(Func::AllReduce, Algo::Ring, Proto::Simple), ("56.0".into(), "205.7".into()));
    // Tree: 8.4 + 2 x 7 x 4.0 us; min(360 x 0.92, 12 x 38.7) / 2.
    assert_eq!(c(Func::AllReduce, Algo::Tree, Proto::Simple), ("64.4".into(), "165.6".into()));
    assert_eq!(c(Func::AllReduce, Algo::Tree, Proto::Ll), ("15.2".into(), "43.6".into()));
    assert_eq!(c(Func::AllReduce, Algo::Tree, Proto::Ll128), ("31.5".into(), "128.8".into()));
    // NVLS: 25 us; min(40 x 0.85 x 7/8 x 2, 60) x 8 channels x 8/14.
    assert_eq!(c(Func::AllReduce, Algo::Nvls, Proto::Simple), ("25.0".into(), "272.0".into()));
    assert_eq!(c(Func::AllGather, Algo::Nvls, Proto::Simple), ("25.0".into(), "208.2".into()));
    // NVLSTree is off on one node, CollNet without --collnet: latency only.
    assert_eq!(c(Func::AllReduce, Algo::NvlsTree, Proto::Simple), ("25.0".into(), "0.0".into()));
    assert_eq!(c(Func::AllReduce, Algo::CollNetDirect, Proto::Simple), ("44.0".into(), "0.0".into()));
    // Broadcast rings with sameChannels pay one hop.
    assert_eq!(c(Func::Broadcast, Algo::Ring, Proto::Ll), ("7.2".into(), "141.0".into()));
    // Nothing but rings for broadcast and reduce, no PAT with 8 GPUs per node.
    for a in [Algo::Tree, Algo::Nvls, Algo::Pat] {
        assert_eq!(c(Func::Reduce, a, Proto::Simple), ("0.0".into(), "0.0".into()));
    }
    assert_eq!(c(Func::AllGather, Algo::Pat, Proto::Simple), ("0.0".into(), "0.0".into()));
    assert_eq!(m.table.max_threads[Algo::Ring], [512, 640, 512]);
    assert_eq!(m.table.max_threads[Algo::Pat], [0, 0, 0]);
}

#[test]
fn pcie_multi_node_uses_network_latency_and_cpu_overhead() {
    let m = model("workstation-4gpu", 2);
    assert_eq!((m.comm.n_ranks, m.comm.n_nodes, m.comm.local_ranks), (8, 2, 4));
    // AMD CPU: 2 us net overhead per step (x3 for Simple), 2 inter-node steps of 2.7 us.
    assert_eq!(m.comm.net_overhead_us, 2.0);
    let c = |f, a, p| cell(&m, f, a, p);
    assert_eq!(c(Func::AllReduce, Algo::Ring, Proto::Ll).0, "36.0");
    assert_eq!(c(Func::AllReduce, Algo::Ring, Proto::Simple).0, "108.4");
    // LL128 needs NVLink inside the node.
    assert_eq!(c(Func::AllReduce, Algo::Ring, Proto::Ll128).1, "0.0");
    // A ring below PCIe Gen3 x16 speed gets 256 Simple threads.
    assert_eq!(m.table.max_threads[Algo::Ring][Proto::Simple], 256);
    let n = m.comm.n_ranks as i64;
    assert_eq!(m.table.thread_thresholds[Algo::Ring], [8 * n, 8, 64]);
}

#[test]
fn one_gpu_per_node_enables_pat() {
    let m = model("gh200", 4);
    assert!(m.comm.pat_enable);
    // 8 + log2(4) x 14 / 3.5 + 4 x 2.8 us.
    assert_eq!(cell(&m, Func::AllGather, Algo::Pat, Proto::Simple).0, "27.2");
    let m = model_with("gh200", 4, false, &[("NCCL_PAT_ENABLE", "0")]).unwrap();
    assert_eq!(cell(&m, Func::AllGather, Algo::Pat, Proto::Simple), ("0.0".into(), "0.0".into()));
}

#[test]
fn one_rank_costs_nothing() {
    let m = model("gh200", 1);
    let p = m.predict(Func::AllReduce, 1 << 20).unwrap();
    assert_eq!((p.algo, p.proto, p.time_us, p.busbw_gbs), (Algo::Ring, Proto::Simple, 0.0, 0.0));
    assert_eq!((p.nchannels, p.nthreads), (0, 0));
}

#[test]
fn predictions_are_consistent_over_sizes() {
    // Every machine on one node, and the multi-node shapes whose search is quick in a
    // debug build (gb200-nvl72-tray across nodes takes many seconds).
    let mut cases: Vec<(&str, usize, bool)> = crate::fixtures::all().iter().map(|f| (f.name, 1, false)).collect();
    cases.extend([
        ("dgx-h100", 2, false),
        ("dgx-h100", 2, true),
        ("dgx-h100", 4, false),
        ("dgx-h100", 4, true),
        ("dgx1-v100", 2, false),
        ("gh200", 2, false),
        ("gh200", 4, false),
        ("workstation-4gpu", 2, false),
        ("workstation-4gpu", 4, false),
    ]);
    for (name, nodes, collnet) in cases {
        let m = model_with(name, nodes, collnet, &[]).unwrap();
        let n = m.comm.n_ranks;
        for func in Func::ALL {
            let mut last = 0.0;
            for b in pow2_sizes() {
                let p = m.predict(func, b).unwrap();
                let what = format!("{name} nodes={nodes} collnet={collnet} {func} {b}");
                assert!(p.time_us >= last, "{what}: time went down {last} -> {}", p.time_us);
                last = p.time_us;
                if n > 1 {
                    assert!(p.time_us > 0.0, "{what}");
                    let algbw = b as f64 / p.time_us / 1e3;
                    assert!((p.algbw_gbs - algbw).abs() <= 1e-9 * algbw, "{what}");
                    let bus = algbw * func.bus_factor(n);
                    assert!((p.busbw_gbs - bus).abs() <= 1e-9 * bus.max(1e-12), "{what}");
                    assert!(!p.bottleneck.is_empty(), "{what}");
                    assert!(p.nchannels >= 1 && p.nthreads >= 96 && p.nthreads <= 640, "{what}: {p:?}");
                }
                // The choice is the cheapest entry of the cost table.
                let table = m.cost_table(func, b);
                let t = table[p.algo as usize][p.proto as usize].unwrap();
                assert_eq!(t as f64, p.time_us, "{what}");
                assert!(table.iter().flatten().flatten().all(|&x| x >= t), "{what}");
            }
        }
    }
}

#[test]
fn bus_factors_match_nccl_tests() {
    assert_eq!(Func::AllReduce.bus_factor(8), 1.75);
    assert_eq!(Func::AllGather.bus_factor(8), 0.875);
    assert_eq!(Func::ReduceScatter.bus_factor(4), 0.75);
    assert_eq!(Func::Broadcast.bus_factor(8), 1.0);
    assert_eq!(Func::Reduce.bus_factor(2), 1.0);
}

/// (first size, algorithm, protocol) each time the choice changes.
fn switch_points(m: &Model, func: Func) -> Vec<(u64, Algo, Proto)> {
    let mut out: Vec<(u64, Algo, Proto)> = Vec::new();
    for b in pow2_sizes() {
        let p = m.predict(func, b).unwrap();
        if out.last().is_none_or(|&(_, a, q)| (a, q) != (p.algo, p.proto)) {
            out.push((b, p.algo, p.proto));
        }
    }
    out
}

#[test]
fn switch_points_are_deterministic() {
    let a = switch_points(&model("dgx-h100", 1), Func::AllReduce);
    let b = switch_points(&model("dgx-h100", 1), Func::AllReduce);
    assert_eq!(a, b);
    assert_eq!(a, vec![(8, Algo::Ring, Proto::Ll), (2 << 20, Algo::Nvls, Proto::Simple)]);
    let w = switch_points(&model("workstation-4gpu", 2), Func::AllReduce);
    assert_eq!(w, switch_points(&model("workstation-4gpu", 2), Func::AllReduce));
    assert_eq!(w.first().map(|x| (x.1, x.2)), Some((Algo::Tree, Proto::Ll)));
}

#[test]
fn nccl_proto_and_algo_restrict_the_choice() {
    let m = model_with("dgx-h100", 1, false, &[("NCCL_PROTO", "^LL128")]).unwrap();
    for f in Func::ALL {
        for a in Algo::ALL {
            assert_eq!(m.table.bandwidth[f][a][Proto::Ll128], 0.0);
        }
    }
    let m = model_with("dgx-h100", 1, false, &[("NCCL_ALGO", "ring;allreduce:tree")]).unwrap();
    assert_eq!(m.predict(Func::AllReduce, 1 << 30).unwrap().algo, Algo::Tree);
    assert_eq!(m.predict(Func::AllGather, 1 << 30).unwrap().algo, Algo::Ring);
    // Trees cannot broadcast: NCCL fails the call.
    let m = model_with("dgx-h100", 1, false, &[("NCCL_ALGO", "tree")]).unwrap();
    let e = m.predict(Func::Broadcast, 1024).unwrap_err().to_string();
    assert!(
        e.contains("no algorithm/protocol available for Broadcast") && e.contains("NCCL_ALGO was set to tree"),
        "{e}"
    );
    let e = model_with("dgx-h100", 1, false, &[("NCCL_ALGO", "ring;nvls")]).unwrap_err().to_string();
    assert!(e.contains("NCCL_ALGO") && e.contains("prefix"), "{e}");
    // A negated protocol list forces LL128 on even where the default would not use it.
    let m = model_with("workstation-4gpu", 1, false, &[("NCCL_PROTO", "^LL")]).unwrap();
    assert!(m.table.bandwidth[Func::AllReduce][Algo::Ring][Proto::Ll128] > 0.0);
}

#[test]
fn thread_variables_are_honoured() {
    let m = model_with("dgx-h100", 1, false, &[("NCCL_NTHREADS", "128"), ("NCCL_LL128_NTHREADS", "320")]).unwrap();
    assert_eq!(m.table.max_threads[Algo::Ring], [128, 320, 128]);
    assert_eq!(m.table.max_threads[Algo::Tree], [128, 320, 128]);
    let m = model_with("dgx-h100", 1, false, &[("NCCL_NTHREADS", "100")]).unwrap();
    assert_eq!(m.table.max_threads[Algo::Ring][Proto::Simple], 512);
    assert!(m.warnings.iter().any(|w| w.contains("NCCL_NTHREADS=100")), "{:?}", m.warnings);
    let m = model_with("dgx-h100", 1, false, &[("NCCL_THREAD_THRESHOLDS", "1 2 3 4")]).unwrap();
    assert_eq!(m.table.thread_thresholds[Algo::Tree], [1, 2, 3]);
    assert_eq!(m.table.thread_thresholds[Algo::Ring], [4, 8, 64]);
}

#[test]
fn net_overhead_and_ll128_c2c() {
    let base = model("workstation-4gpu", 2);
    let m = model_with("workstation-4gpu", 2, false, &[("NCCL_NET_OVERHEAD", "500")]).unwrap();
    assert_eq!(m.comm.net_overhead_us, 0.5);
    // Intra-node PCI hops (1.0 us) now dominate the 0.5 us overhead.
    assert_eq!(cell(&m, Func::AllReduce, Algo::Ring, Proto::Ll).0, "24.0");
    assert_ne!(cell(&base, Func::AllReduce, Algo::Ring, Proto::Ll).0, "24.0");
    // gh200 over the network: P2C paths allow LL128 on Hopper unless NCCL_LL128_C2C=0.
    let m = model("gh200", 2);
    assert!(m.table.bandwidth[Func::AllReduce][Algo::Ring][Proto::Ll128] > 0.0);
    let m = model_with("gh200", 2, false, &[("NCCL_LL128_C2C", "0")]).unwrap();
    assert_eq!(m.table.bandwidth[Func::AllReduce][Algo::Ring][Proto::Ll128], 0.0);
}

#[test]
fn nvls_needs_collnet_across_nodes() {
    let m = model("dgx-h100", 2);
    let a = Func::AllReduce;
    assert_eq!(m.table.bandwidth[a][Algo::Nvls][Proto::Simple], 0.0);
    assert!(m.table.bandwidth[a][Algo::NvlsTree][Proto::Simple] > 0.0);
    let m = model_with("dgx-h100", 2, true, &[]).unwrap();
    assert!(m.comm.collnet_enable);
    assert!(m.table.bandwidth[a][Algo::Nvls][Proto::Simple] > 0.0);
    let m = model_with("dgx-h100", 2, true, &[("NCCL_COLLNET_NODE_THRESHOLD", "4")]).unwrap();
    assert!(!m.comm.collnet_enable);
    let m = model_with("dgx-h100", 1, false, &[("NCCL_NVLS_ENABLE", "0")]).unwrap();
    assert!(!m.comm.nvls_support);
    assert_eq!(m.comm.nvls_channels, 0);
}

#[test]
fn comm_facts_steer_the_table() {
    let m = model("workstation-4gpu", 4);
    let env = Env::default();
    let retune = |f: &dyn Fn(&mut Comm)| {
        let mut c = m.comm.clone();
        f(&mut c);
        tune(&c, &env, None, None, &mut Vec::new()).unwrap().0
    };
    let (ar, tree, ring) = (Func::AllReduce, Algo::Tree, Algo::Ring);
    let s = Proto::Simple;
    // A plain TREE pattern (no split/balanced tree) costs 15% of tree bandwidth.
    let t = retune(&|c| c.tree_pattern = pattern::TREE);
    let want = m.table.bandwidth[ar][tree][s] * 0.85;
    assert!((t.bandwidth[ar][tree][s] - want).abs() < 1e-4 * want, "{} vs {want}", t.bandwidth[ar][tree][s]);
    // On POWER, tree Simple over PCI is charged the ring's PCI hop latency (5.7 us, not 4.0).
    let t = retune(&|c| c.cpu_arch = cpu::ARCH_POWER);
    let (base, power) = (m.table.latency[ar][tree][s], t.latency[ar][tree][s]);
    assert!((power - base - 2.0 * 3.0 * 1.7).abs() < 1e-3, "{base} -> {power}");
    // Across nodes the LL ceiling follows the CPU vendor: AMD row (19.0 at 4 nodes) vs
    // Intel (20.4); a fast ring makes the ceiling bind (broadcast: algbw = busbw).
    assert_eq!(m.comm.cpu_vendor, cpu::VENDOR_AMD);
    let fast = |c: &mut Comm| c.graphs[ring].bw_inter = 100.0;
    let bc = Func::Broadcast;
    let ll = Proto::Ll;
    assert_eq!(retune(&fast).bandwidth[bc][ring][ll], 19.0);
    let t = retune(&|c| {
        fast(c);
        c.cpu_vendor = cpu::VENDOR_INTEL;
    });
    assert_eq!(t.bandwidth[bc][ring][ll], 20.4);
}

#[test]
fn trimmed_ranks_count_as_nodes_of_their_own() {
    // Without P2P or shared memory each GPU reaches the others only through the network:
    // every rank trims the host to itself, so NCCL's tuning sees one rank per node (and
    // the network's latency and per-node scale), not one node of 4 GPUs.
    let env = [("NCCL_P2P_DISABLE", "1"), ("NCCL_SHM_DISABLE", "1")];
    let m = model_with("workstation-4gpu", 1, false, &env).expect("model builds");
    assert_eq!((m.comm.n_ranks, m.comm.n_nodes, m.comm.local_ranks), (4, 4, 1));
    let two_hosts = model_with("workstation-4gpu", 2, false, &env).expect("model builds");
    assert_eq!((two_hosts.comm.n_ranks, two_hosts.comm.n_nodes, two_hosts.comm.local_ranks), (8, 8, 1));
    // One rank per node: PAT is on by default, and a ring's every step crosses the network.
    assert!(m.comm.pat_enable);
    let plain = model("workstation-4gpu", 1);
    assert!(!plain.comm.pat_enable);
}

#[test]
fn one_rank_keeps_zero_thread_thresholds() {
    // NCCL returns from its tuning model before setting the thresholds when there is a
    // single rank; the thread limits are set before that and stay.
    let m = model("gh200", 1);
    assert_eq!(m.comm.n_ranks, 1);
    for a in Algo::ALL {
        assert_eq!(m.table.thread_thresholds[a], [0, 0, 0], "{a}");
    }
    assert_eq!(m.table.max_threads[Algo::Ring], [512, 640, 512]);
}

fn model_at(release: &str, name: &str, nodes: usize, env: &[(&str, &str)]) -> Result<Model, Error> {
    let (xml, _) = crate::fixtures::get(name)?.load()?;
    let rel = crate::release::Release::parse(release).expect("a release topo models");
    let opts = Options { nodes, env: Env::for_release(rel, env.iter().copied()), ..Options::default() };
    let an = model::analyze(&xml, name, &opts)?;
    let so = crate::search::SearchOptions::from_analysis(&an);
    let (gs, _) = crate::search::run(&an, &so)?;
    Model::new(&an, &gs)
}

/// graph/tuning.cc at v2.21.5-1 and v2.27.5-1 on one DGX H100 (8 NVLS channels of
/// 40/60 GB/s, 12 tree channels of 30 GB/s).
#[test]
fn dgx_h100_table_of_older_releases() {
    let m = model_at("2.21.5", "dgx-h100", 1, &[]).unwrap();
    let c = |f, a, p| cell(&m, f, a, p);
    // Tree/Simple: no base, 28 us a hop: 2 x 7 x 28.
    assert_eq!(c(Func::AllReduce, Algo::Tree, Proto::Simple), ("392.0".into(), "165.6".into()));
    // NVLS: min(40, 60) x 8 channels, converted at 5/6 even for AllGather.
    assert_eq!(c(Func::AllGather, Algo::Nvls, Proto::Simple), ("25.0".into(), "266.7".into()));
    assert_eq!(c(Func::AllReduce, Algo::Nvls, Proto::Simple), ("25.0".into(), "266.7".into()));
    // No PAT: six algorithms.
    assert_eq!(m.algos().len(), 6);
    assert!(!m.algos().contains(&Algo::Pat));
    let m = model_at("2.27.5", "dgx-h100", 1, &[]).unwrap();
    let c = |f, a, p| cell(&m, f, a, p);
    assert_eq!(c(Func::AllReduce, Algo::Tree, Proto::Simple).0, "64.4");
    // AllGather: min(40 x 7/8, 0.9 x 60) x 8, already an algorithm bandwidth.
    assert_eq!(c(Func::AllGather, Algo::Nvls, Proto::Simple).1, "280.0");
    assert_eq!(c(Func::AllReduce, Algo::Nvls, Proto::Simple).1, "266.7");
    assert_eq!(m.algos().len(), 7);
}

/// graph/tuning.cc at v2.21.5-1 (`nInterSteps = 2*nNodes`), v2.27.5-1 (NVLS rated
/// without a graph) and v2.28.9-1 (skipped below two channels), on two PCIe hosts.
#[test]
fn multi_node_latencies_of_older_releases() {
    let m = model_at("2.21.5", "workstation-4gpu", 2, &[]).unwrap();
    // 6.6 + (14 - 4) x 2.0 (AMD overhead) + 4 x 2.7; 2.30.7: 2 network steps, 36.0.
    assert_eq!(cell(&m, Func::AllReduce, Algo::Ring, Proto::Ll).0, "37.4");
    // Tree/Simple: 2 x (3 x 28 + 1 x 28).
    assert_eq!(cell(&m, Func::AllReduce, Algo::Tree, Proto::Simple).0, "224.0");
    // No NVLS graph: a PCI-class NVLS hop (0) plus the network's 18 us all the same.
    assert_eq!(cell(&m, Func::AllGather, Algo::Nvls, Proto::Simple), ("18.0".into(), "0.0".into()));
    let m = model_at("2.27.5", "workstation-4gpu", 2, &[]).unwrap();
    assert_eq!(cell(&m, Func::AllGather, Algo::Nvls, Proto::Simple).0, "18.0");
    // NVLS tree: 0 + 2 x log2(2) x 14 us.
    assert_eq!(cell(&m, Func::AllReduce, Algo::NvlsTree, Proto::Simple).0, "28.0");
    let m = model_at("2.28.9", "workstation-4gpu", 2, &[]).unwrap();
    assert_eq!(cell(&m, Func::AllGather, Algo::Nvls, Proto::Simple).0, "0.0");
    assert_eq!(cell(&m, Func::AllReduce, Algo::NvlsTree, Proto::Simple).0, "0.0");
}

/// graph/tuning.cc: no Blackwell row and LL128 only on sm70/80/90 at v2.21.5-1; ring
/// LL128 ceiling 2 x 36.7 at v2.28.9-1, 40 at v2.30.7-1; transport/nvls.cc channel
/// defaults 16, 32 (v2.25.1-1), 24 on one node (v2.27.5-1).
#[test]
fn blackwell_by_release() {
    let (bc, ring) = (Func::Broadcast, Algo::Ring);
    let m = model_at("2.21.5", "gb200-nvl72-tray", 1, &[]).unwrap();
    assert_eq!(m.comm.arch, Arch::Hopper);
    assert_eq!(m.table.bandwidth[bc][ring][Proto::Ll128], 0.0);
    assert_eq!(m.table.bandwidth[bc][ring][Proto::Ll], 141.0);
    assert_eq!(m.comm.nvls_channels, 16);
    let m = model_at("2.25.1", "gb200-nvl72-tray", 1, &[]).unwrap();
    assert_eq!((m.comm.arch, m.comm.nvls_channels), (Arch::Blackwell, 32));
    assert_eq!(m.table.bandwidth[bc][ring][Proto::Ll], 282.0);
    // 16 channels x 45 GB/s x 0.92 below 16 x 73.4; 2.30.7 caps at 16 x 40.
    let m = model_at("2.28.9", "gb200-nvl72-tray", 1, &[]).unwrap();
    assert_eq!(m.comm.nvls_channels, 24);
    assert_eq!(cell(&m, bc, ring, Proto::Ll128).1, "662.4");
    let m = model_at("2.30.7", "gb200-nvl72-tray", 1, &[]).unwrap();
    assert_eq!(cell(&m, bc, ring, Proto::Ll128).1, "640.0");
}

/// graph/connect.cc ncclTopoPostset at v2.27.5-1 copies channels up to nvlsChannels
/// after NCCL_MAX_NCHANNELS; v2.28.3-1 no longer does.
#[test]
fn coll_channels_follow_nvls_before_2_28() {
    let env = [("NCCL_MAX_NCHANNELS", "4")];
    let m = model_at("2.27.5", "dgx-h100", 1, &env).unwrap();
    assert_eq!((m.comm.n_channels, m.comm.nvls_channels), (16, 16));
    let m = model_at("2.28.9", "dgx-h100", 1, &env).unwrap();
    assert_eq!((m.comm.n_channels, m.comm.nvls_channels), (4, 16));
}

/// graph/tuning.cc at v2.21.5-1: one NCCL_ALGO list, unknown names ignored, Ring and
/// Tree back when nothing is left, the ring's bandwidths back for a collective left
/// with none; v2.22.3-1 restores only the protocols enabled.
#[test]
fn enables_of_older_releases() {
    let (bc, ring) = (Func::Broadcast, Algo::Ring);
    let m = model_at("2.21.5", "dgx-h100", 1, &[("NCCL_ALGO", "tree")]).unwrap();
    assert_eq!(m.table.bandwidth[bc][ring], [141.0, 331.2, 360.0].map(|x: f64| x as f32));
    assert_eq!(m.predict(bc, 1 << 20).unwrap().algo, Algo::Ring);
    let m = model_at("2.22.3", "dgx-h100", 1, &[("NCCL_ALGO", "tree"), ("NCCL_PROTO", "LL")]).unwrap();
    assert_eq!(m.table.bandwidth[bc][ring], [141.0, 0.0, 0.0]);
    // A prefixed entry is one unknown name to the older grammar: nothing listed, so
    // Ring and Tree come back (CollNet is off).
    let m = model_at("2.21.5", "dgx-h100", 1, &[("NCCL_ALGO", "allreduce:nvls")]).unwrap();
    assert!(m.table.bandwidth[Func::AllReduce][Algo::Tree][Proto::Simple] > 0.0);
    assert_eq!(m.table.bandwidth[Func::AllReduce][Algo::Nvls][Proto::Simple], 0.0);
    assert!(model_at("2.21.5", "dgx-h100", 1, &[("NCCL_ALGO", "rings")]).is_ok());
    assert!(model_at("2.24.3", "dgx-h100", 1, &[("NCCL_ALGO", "rings")]).is_err());
}

/// graph/tuning.cc at v2.18.1-1 (NVLS rated like the other algorithms: bus x 0.75,
/// base 23 us; no NVLS AllGather; ring LL a quarter or a third; NCCL_ALGO never turns
/// off a Broadcast ring), v2.18.6-1 (NVLS tree 0.7 n / 2(n-1), 23 + 2(n-1) x 19 us;
/// graph/connect.cc doubling while 2n fits 32 channels) and v2.20.5-1.
#[test]
fn tables_of_2_18() {
    let m = model_at("2.18.1", "dgx-h100", 1, &[]).unwrap();
    let c = |f, a, p| cell(&m, f, a, p);
    assert_eq!(c(Func::AllReduce, Algo::Nvls, Proto::Simple), ("23.0".into(), "240.0".into()));
    assert_eq!(c(Func::AllGather, Algo::Nvls, Proto::Simple), ("0.0".into(), "0.0".into()));
    // Broadcast LL: min(87.7, 360 / 3); AllReduce LL: min(87.7, 360 / 4) x 8/14.
    assert_eq!(c(Func::Broadcast, Algo::Ring, Proto::Ll).1, "87.7");
    assert_eq!(c(Func::AllReduce, Algo::Ring, Proto::Ll).1, "50.1");
    let m = model_at("2.18.1", "dgx-h100", 1, &[("NCCL_ALGO", "tree")]).unwrap();
    assert!(m.table.bandwidth[Func::Broadcast][Algo::Ring][Proto::Simple] > 0.0);
    assert_eq!(m.table.bandwidth[Func::AllReduce][Algo::Ring][Proto::Simple], 0.0);
    let m = model_at("2.18.6", "dgx-h100", 2, &[]).unwrap();
    assert_eq!(cell(&m, Func::AllReduce, Algo::NvlsTree, Proto::Simple), ("61.0".into(), "224.0".into()));
    // 8 search channels at 48 GB/s: 16, doubled on sm90 to 32 (2.20: only below 16).
    assert_eq!(m.comm.n_channels, 32);
    assert_eq!(model_at("2.20.5", "dgx-h100", 2, &[]).unwrap().comm.n_channels, 16);
}
