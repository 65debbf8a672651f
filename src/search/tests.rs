//! Tests of the whole search: progress reports and the two bookkeepings of link bandwidth.

use super::compute::{Bookkeeping, compute_all_by};
use super::recursion::PROGRESS_EVERY;
use super::{SearchOptions, run, run_with, xml};
use crate::model::NodeType;
use crate::release::Release;

mod progress_tests {
    use super::*;

    #[test]
    fn progress_reports_without_changing_results() {
        let (x, _) = crate::fixtures::get("dgx1-v100").unwrap().load().unwrap();
        let opts = crate::model::Options { nodes: 2, ..Default::default() };
        let an = crate::model::analyze(&x, "dgx1-v100", &opts).unwrap();
        let so = SearchOptions::from_analysis(&an);
        let (plain, sys_a) = run(&an, &so).unwrap();
        let mut calls: Vec<(&str, u64)> = Vec::new();
        let (watched, sys_b) = run_with(&an, &so, &mut |g, s| calls.push((g, s))).unwrap();
        assert_eq!(
            xml::dump(&sys_a, &plain, Release::NEWEST).unwrap(),
            xml::dump(&sys_b, &watched, Release::NEWEST).unwrap()
        );
        assert_eq!(calls.first(), Some(&("ring", 0)));
        assert!(calls.contains(&("tree", 0)));
        // Steps are reported every PROGRESS_EVERY, growing within a graph.
        assert!(calls.iter().any(|&(_, s)| s > 0 && s % PROGRESS_EVERY == 0), "{calls:?}");
    }
}

#[cfg(test)]
mod bookkeeping_tests {
    use super::*;

    /// Both bookkeepings on one analysed machine: the same graphs (as NCCL would dump
    /// them) and the same bits in every link afterwards.
    pub(super) fn same_both_ways(name: &str, an: &crate::model::Analysis) {
        same_both_ways_by(name, an, Bookkeeping::Fastest)
    }

    fn same_both_ways_by(name: &str, an: &crate::model::Analysis, how: Bookkeeping) {
        let so = SearchOptions::from_analysis(an);
        let run_by = |how| {
            let mut sys = an.system.clone();
            let gs = compute_all_by(&mut sys, &an.params, &so, &mut |_, _| {}, how).unwrap();
            let links: Vec<u32> = NodeType::ALL
                .iter()
                .flat_map(|&t| sys.list(t).iter().flat_map(|n| n.links.iter().map(|l| l.bw.to_bits())))
                .collect();
            (xml::dump(&sys, &gs, Release::NEWEST).unwrap(), links)
        };
        let (fast, floats) = (run_by(how), run_by(Bookkeeping::Floats));
        assert_eq!(fast.0, floats.0, "{name}: graphs differ");
        assert!(fast.1 == floats.1, "{name}: link bandwidths differ after the search");
    }

    /// A search thrown away leaves nothing behind: searching again with floats gives
    /// what floats alone give.
    #[test]
    fn a_discarded_search_leaves_nothing() {
        for f in crate::fixtures::all() {
            let (x, _) = f.load().unwrap();
            let opts = crate::model::Options { nodes: 2, ..Default::default() };
            let an = crate::model::analyze(&x, f.name, &opts).unwrap();
            same_both_ways_by(f.name, &an, Bookkeeping::Rerun);
        }
    }

    #[test]
    fn thousandths_search_as_floats_do() {
        for f in crate::fixtures::all() {
            let (x, _) = f.load().unwrap();
            for nodes in [1, 2] {
                let opts = crate::model::Options { nodes, ..Default::default() };
                let an = crate::model::analyze(&x, f.name, &opts).unwrap();
                same_both_ways(&format!("{} x{nodes}", f.name), &an);
            }
        }
    }

    /// The shared machines too, where present (the NCCL checker compares the fast
    /// bookkeeping with NCCL itself; this says the float one agrees).
    #[test]
    fn thousandths_search_as_floats_do_on_shared_machines() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl");
        let Ok(rd) = std::fs::read_dir(&dir) else {
            crate::test_skip::skip(
                "search::tests::thousandths_search_as_floats_do_on_shared_machines",
                &format!("{} is absent", dir.display()),
            );
            return;
        };
        let mut files: Vec<_> =
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "xml")).collect();
        files.sort();
        let mut compared = 0;
        for f in files {
            let Ok((x, _)) = crate::xml::read_file(&f) else { continue };
            let name = f.file_stem().unwrap().to_string_lossy().into_owned();
            // Two nodes: the NICs join the search, and with them the GPU sort by PCI
            // bandwidth.
            let opts = crate::model::Options { nodes: 2, ..Default::default() };
            let Ok(an) = crate::model::analyze(&x, &name, &opts) else { continue };
            same_both_ways(&name, &an);
            compared += 1;
        }
        assert!(compared >= 30, "only {compared} shared machines compared");
    }
}

/// The search forks of releases before 2.27: NCCL 2.21.5's own graph dumps on the
/// shared machines where one rule decides the result, and the rules' invariants on
/// topo's own machines.
mod release_fork_tests {
    use super::*;
    use crate::env::Env;
    use crate::search::{CrossNic, Pattern};

    fn analyze_at(x: &crate::xml::Xml, name: &str, v: &str, nodes: usize, collnet: bool) -> crate::model::Analysis {
        let env = Env::for_release(Release::parse(v).unwrap(), Vec::<(String, String)>::new());
        let opts = crate::model::Options { nodes, collnet, env, ..Default::default() };
        crate::model::analyze(x, name, &opts).unwrap()
    }

    /// topo's graph dump of shared case `case` (its XML and `--nodes N`) next to
    /// NCCL 2.21.5's, or None (with a note) when ../shared is absent.
    fn dumps_2_21_5(test: &str, case: &str, xml_name: &str, nodes: usize) -> Option<(String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
        let want = root.join("versions/2.21.5/expected-graphs").join(format!("{case}.xml"));
        let (Ok(want), Ok((x, _))) =
            (std::fs::read_to_string(&want), crate::xml::read_file(&root.join("nccl").join(xml_name)))
        else {
            crate::test_skip::skip(test, &format!("{} is absent", want.display()));
            return None;
        };
        let an = analyze_at(&x, case, "2.21.5", nodes, false);
        let (gs, sys) = run(&an, &SearchOptions::from_analysis(&an)).unwrap();
        Some((xml::dump(&sys, &gs, an.params.release).unwrap(), want))
    }

    macro_rules! nccl_2_21_5_case {
        ($test:ident, $case:literal, $xml:literal, $nodes:literal) => {
            #[test]
            fn $test() {
                let name = concat!("search::tests::release_fork_tests::", stringify!($test));
                if let Some((got, want)) = dumps_2_21_5(name, $case, $xml, $nodes) {
                    assert_eq!(got, want, "{}", $case);
                }
            }
        };
    }

    // search.cc ncclTopoSearchRecNet until 2.26.6: the last channel is replayed even
    // when channels may differ (channel 1 repeats channel 0's ranks).
    nccl_2_21_5_case!(rec_net_replays_before_2_27, "oci-a100-flattened.n2", "oci-a100-flattened.xml", 2);
    // search.cc until 2.21.5: NVLS heads come from the first NET of the rotated list.
    nccl_2_21_5_case!(nvls_first_net_before_2_22, "aws-p5-efa32.n2", "aws-p5-efa32.xml", 2);
    // search.cc 2.20.3 to 2.22.3: crossNic 1 pairs odd channels with the one before.
    nccl_2_21_5_case!(cross_nic_pairs_before_2_23, "azure-ndv5.n2", "azure-ndv5.xml", 2);
    // search.cc ncclTopoCompute until 2.24.3: path types from NVL/PIX to SYS (the
    // crossNic and RecNet rules above play their part on this machine too).
    nccl_2_21_5_case!(fixed_type_bounds_before_2_25, "alibaba-l20x8-cx8.n2", "alibaba-l20x8-cx8.xml", 2);
    // search.cc: no ncclTopoSplitNvLink before 2.26.2 (one ring channel, not two).
    nccl_2_21_5_case!(no_split_nvlink_before_2_26, "azure-ncv4-2023", "azure-ncv4-2023.xml", 1);
    // device.h: MAXCHANNELS 32 until 2.24.3 (16 ring channels).
    nccl_2_21_5_case!(max_channels_32_before_2_25, "aliyun-a100x1", "aliyun-a100x1.xml", 1);

    /// device.h: MAXCHANNELS is 32 until 2.24.3, so one GPU's ring has 16 channels, and
    /// 64 from 2.25.1 (32 channels).
    #[test]
    fn one_gpu_ring_channels_by_release() {
        let doc = r#"<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:11:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="90" gdr="1"/>
    </pci>
  </cpu>
</system>
"#;
        let x = crate::xml::parse(doc, None).unwrap().0;
        let ring = |v: &str| {
            let an = analyze_at(&x, "one-gpu", v, 1, false);
            run(&an, &SearchOptions::from_analysis(&an)).unwrap().0.ring.n_channels
        };
        assert_eq!(ring("2.24.3"), 16);
        assert_eq!(ring("2.25.1"), 32);
    }

    /// init.cc: one CollNet graph (a tree) serves both CollNet algorithms until 2.21.5;
    /// 2.22.3 searches a CollNet Direct graph of its own.
    #[test]
    fn one_collnet_graph_before_2_22() {
        let (x, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let graphs = |v: &str| {
            let an = analyze_at(&x, "dgx-h100", v, 2, true);
            run(&an, &SearchOptions::from_analysis(&an)).unwrap().0
        };
        let old = graphs("2.21.5");
        assert_eq!(old.collnet_direct.pattern, Pattern::Tree);
        assert_eq!(old.collnet_direct.intra, old.collnet_chain.intra);
        assert_eq!(graphs("2.22.3").collnet_direct.pattern, Pattern::CollNetDirect);
    }

    /// search.cc ncclTopoCompareGraphs until 2.19.4: a graph that crosses NICs must do
    /// 15% better than one that does not to replace it, and one that does not replaces
    /// a crossing one at 85%; 2.20.3 compares bandwidths alone.
    #[test]
    fn crossing_needs_15_percent_more_before_2_20() {
        use super::super::bandwidth::Rounded;
        use super::super::graph::{Graph, GraphId};
        use super::super::recursion::Search;
        let (x, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let copies = |v: &str, new_bw: f32, new_crosses: bool| {
            let an = analyze_at(&x, "dgx-h100", v, 2, false);
            let mut sys = an.system.clone();
            let so = SearchOptions::from_analysis(&an);
            let s = Search::<Rounded>::new(&mut sys, &an.params, &so, None);
            let mut old = Graph::new(GraphId::Ring, Pattern::Ring, 8);
            (old.n_channels, old.min_channels, old.bw_intra) = (1, 1, 10.0);
            old.cross_nic = if new_crosses { CrossNic::Off } else { CrossNic::On };
            let mut new = old.clone();
            new.bw_intra = new_bw;
            new.cross_nic = if new_crosses { CrossNic::On } else { CrossNic::Off };
            s.compare(&new, &old)
        };
        assert!(!copies("2.19.4", 11.5, true));
        assert!(copies("2.19.4", 11.6, true));
        assert!(copies("2.19.4", 8.6, false));
        assert!(copies("2.20.3", 10.5, true));
        assert!(!copies("2.20.3", 9.5, false));
    }

    /// search.cc 2.20.3 to 2.22.3: a graph's crossNic is 0 or 1, and with 1 every odd
    /// channel enters by the NET the channel before left by and leaves by the one it
    /// entered by; the NVLS heads of 2.23.4 on are all different GPUs. Both bookkeepings
    /// agree at these releases too.
    #[test]
    fn old_search_rules_hold_on_own_machines() {
        for f in crate::fixtures::all() {
            let (x, _) = f.load().unwrap();
            for v in ["2.21.5", "2.22.3", "2.23.4"] {
                let an = analyze_at(&x, f.name, v, 2, false);
                let (gs, _) = run(&an, &SearchOptions::from_analysis(&an)).unwrap();
                let ng = an.system.count(NodeType::Gpu);
                for g in [&gs.ring, &gs.tree] {
                    if v == "2.23.4" {
                        continue;
                    }
                    assert_ne!(g.cross_nic, CrossNic::Alternate, "{} {v}", f.name);
                    if g.cross_nic == CrossNic::On && g.pattern == Pattern::Ring {
                        for c in (1..g.n_channels as usize).step_by(2) {
                            assert_eq!(g.inter[c * 2], g.inter[(c - 1) * 2 + 1], "{} {v} channel {c}", f.name);
                            assert_eq!(g.inter[c * 2 + 1], g.inter[(c - 1) * 2], "{} {v} channel {c}", f.name);
                        }
                    }
                }
                if v == "2.23.4" {
                    let heads: Vec<i32> = (0..gs.nvls.n_channels as usize).map(|c| gs.nvls.intra[c * ng]).collect();
                    let mut uniq = heads.clone();
                    uniq.sort_unstable();
                    uniq.dedup();
                    assert_eq!(uniq.len(), heads.len(), "{} {v}: NVLS heads {heads:?}", f.name);
                }
                bookkeeping_tests::same_both_ways(&format!("{} {v}", f.name), &an);
            }
        }
    }
}

/// A job of several nodes on a host without a NET: searched as one node before 2.28.7,
/// across nodes with nothing to cross from 2.28.7, and failing the init from 2.29.2
/// (the fallback graph asks for the GPUs' NETs).
mod netless_host_tests {
    use super::*;
    use crate::env::Env;

    const TWO_PCIE_GPUS: &str = r#"<system version="1">
  <cpu numaid="0" affinity="000000ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
    <pci busid="0000:11:00.0" class="0x030200" vendor="0x10de" device="0x20b0" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="80" rank="0" gdr="0"/>
    </pci>
    <pci busid="0000:12:00.0" class="0x030200" vendor="0x10de" device="0x20b0" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="80" rank="1" gdr="0"/>
    </pci>
  </cpu>
</system>
"#;

    fn analyze_at(v: &str) -> crate::model::Analysis {
        let (x, _) = crate::xml::parse(TWO_PCIE_GPUS, None).unwrap();
        let env = Env::for_release(Release::parse(v).unwrap(), Vec::<(String, String)>::new());
        let opts = crate::model::Options { nodes: 2, env, ..Default::default() };
        crate::model::analyze(&x, "two-pcie-gpus", &opts).unwrap()
    }

    // search.cc ncclTopoSearchInit until 2.28.3: `inter = system->nodes[NET].count`.
    #[test]
    fn searched_as_one_node_before_2_28_7() {
        let an = analyze_at("2.28.3");
        assert!(!an.system.inter);
        assert!(an.system.max_bw > 0.0, "{}", an.system.max_bw);
        let (gs, _) = run(&an, &SearchOptions::from_analysis(&an)).unwrap();
        assert!(gs.ring.n_channels > 0 && gs.ring.bw_intra > 0.1, "{:?}", gs.ring.bw_intra);
    }

    // paths.cc ncclTopoTrimSystem from 2.28.7: `system->inter` from the rank count; the
    // search from no NET finds nothing and 2.28.9's fallback takes NET 0 unchecked.
    #[test]
    fn searched_across_nodes_from_2_28_7() {
        let an = analyze_at("2.28.9");
        assert!(an.system.inter);
        assert_eq!(an.system.max_bw, 0.0);
        let (gs, _) = run(&an, &SearchOptions::from_analysis(&an)).unwrap();
        assert_eq!((gs.ring.n_channels, gs.ring.bw_intra), (1, 0.1));
    }

    // search.cc ncclTopoCompute from 2.29.2: the fallback calls ncclTopoSelectNets,
    // whose ncclTopoGetLocalNet fails on a GPU without a NET.
    #[test]
    fn fallback_fails_the_init_from_2_29_2() {
        for v in ["2.29.2", "2.30.7"] {
            let an = analyze_at(v);
            let err = run(&an, &SearchOptions::from_analysis(&an)).unwrap_err().to_string();
            assert!(err.contains("Could not find any local path from gpu 0 to net."), "{v}: {err}");
        }
    }
}

/// A job on one node: NCCL drops the NETs after trimming before 2.28.7, so that
/// NCCL_CROSS_NIC=1 leaves crossNic 0 (`system->nodes[NET].count > 1` fails); from 2.28.7
/// the NETs stay and crossNic is 1.
mod one_node_nets_tests {
    use super::*;
    use crate::env::Env;

    fn two_gpus_two_nics() -> String {
        let half = |b: u32, d: i32| {
            format!(
                r#"<pci busid="0000:{:02x}:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16"><pci busid="0000:{:02x}:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16"><gpu dev="{d}" sm="80" gdr="1"/></pci><pci busid="0000:{:02x}:00.0" class="0x020000" link_speed="16.0 GT/s PCIe" link_width="16"><nic><net name="mlx5_{d}" dev="{d}" speed="200000" port="1" guid="0x{:x}" maxconn="131072" gdr="1"/></nic></pci></pci>"#,
                b,
                b + 1,
                b + 2,
                0x200 + d
            )
        };
        format!(
            r#"<system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">{}{}</cpu></system>"#,
            half(0x10, 0),
            half(0x20, 1)
        )
    }

    #[test]
    fn cross_nic_by_release() {
        let (x, _) = crate::xml::parse(&two_gpus_two_nics(), None).unwrap();
        let ring = |v: &str| {
            let env = Env::for_release(Release::parse(v).unwrap(), [("NCCL_CROSS_NIC", "1")]);
            let an = crate::model::analyze(&x, "t", &crate::model::Options { env, ..Default::default() }).unwrap();
            let (gs, _) = run(&an, &SearchOptions::from_analysis(&an)).unwrap();
            (an.system.count(NodeType::Net), gs.ring.cross_nic)
        };
        // paths.cc ncclTopoTrimSystem until 2.28.3 removes every NET on one node.
        assert_eq!(ring("2.28.3"), (0, crate::search::CrossNic::Off));
        assert_eq!(ring("2.28.7"), (2, crate::search::CrossNic::On));
    }
}
