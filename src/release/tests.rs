use super::table::r;
use super::*;

#[test]
fn parses_tags_and_refuses_the_rest() {
    assert_eq!(Release::parse("2.21.5"), Ok(r(2, 21, 5)));
    assert_eq!(Release::parse("v2.28.9-1"), Ok(r(2, 28, 9)));
    assert_eq!(Release::parse("2.21.5+cuda12.4"), Ok(r(2, 21, 5)));
    // 2.26.4 was never released: no nearest match.
    assert!(matches!(Release::parse("2.26.4"), Err(ParseError::Unknown(_))));
    assert!(matches!(Release::parse("2.17.1"), Err(ParseError::Unknown(_))));
    assert!(matches!(Release::parse("2.21"), Err(ParseError::Form(_))));
    assert!(matches!(Release::parse("2.21.x"), Err(ParseError::Form(_))));
    assert!(matches!(Release::parse(""), Err(ParseError::Form(_))));
    let msg = Release::parse("2.26.4").unwrap_err().to_string();
    assert!(msg.contains("2.18.1 to 2.30.7"), "{msg}");
}

#[test]
fn list_is_sorted_and_codes_round_trip() {
    assert!(RELEASES.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(*RELEASES.last().unwrap(), Release::NEWEST);
    for &rel in RELEASES {
        assert_eq!(Release::from_code(rel.code()), Ok(rel));
        assert_eq!(Release::parse(&rel.to_string()), Ok(rel));
    }
    assert_eq!(r(2, 21, 5).code(), 22105);
    assert!(CHECKED.iter().all(|c| RELEASES.contains(c)));
}

#[test]
fn changes_are_sorted_and_between_is_half_open() {
    assert!(CHANGES.windows(2).all(|w| w[0].since <= w[1].since));
    assert!(CHANGES.iter().all(|c| RELEASES.contains(&c.since)));
    let n = r(2, 28, 3).changes_between(r(2, 28, 7)).count();
    assert_eq!(n, r(2, 28, 7).changes_between(r(2, 28, 3)).count());
    assert!(r(2, 28, 3).changes_between(r(2, 28, 7)).all(|c| c.since == r(2, 28, 7)));
    assert_eq!(r(2, 30, 7).changes_between(r(2, 30, 7)).count(), 0);
}

/// 2.22.3 (init.cc) added the CollNet-direct graph as id 2; 2.23.4 moved it to id 4;
/// 2.30.3 (graph/xml dump) added `rank`.
#[test]
fn dump_dialect_boundaries() {
    assert_eq!(r(2, 21, 5).dump_dialect().graphs.len(), 4);
    assert_eq!(r(2, 22, 3).dump_dialect().graphs[2], (DumpGraph::CollNetDirect, 2));
    assert_eq!(r(2, 23, 4).dump_dialect().graphs[2], (DumpGraph::CollNetDirect, 4));
    assert!(!r(2, 29, 7).dump_dialect().gpu_rank);
    assert!(r(2, 30, 3).dump_dialect().gpu_rank);
}

/// search.cc ncclTopoCompute: dup gate by sm at 2.18.1, ncclTopoDupChannels' gate at
/// 2.18.3, pass 3 for NVLS at 2.19.1, dup at the end of pass 1 and ring raise at 2.19.3.
#[test]
fn compute_end_boundaries() {
    use ComputeEnd::*;
    let e = |a, b, c| r(a, b, c).compute_end();
    assert_eq!((e(2, 18, 1), e(2, 18, 3), e(2, 18, 6)), (V2_18_1, V2_18_3, V2_18_3));
    assert_eq!((e(2, 19, 1), e(2, 19, 3), e(2, 30, 7)), (V2_19_1, V2_19_3, V2_19_3));
}

/// search.cc: no NVS neighbours and PCI order with NVSwitches at 2.19.1, neighbours
/// first at 2.19.3 (to 2.20.5), neighbours only at 2.21.5; tryGpuBidir at 2.18.6,
/// gone at 2.19.1.
#[test]
fn search_start_boundaries() {
    use NvsNeighbours::*;
    assert_eq!((r(2, 19, 1).nvs_neighbours(), r(2, 19, 3).nvs_neighbours()), (NotSpecial, First));
    assert_eq!((r(2, 20, 5).nvs_neighbours(), r(2, 21, 5).nvs_neighbours()), (First, Only));
    assert!(r(2, 19, 1).pci_order_with_nvs() && !r(2, 19, 3).pci_order_with_nvs());
    assert!(r(2, 18, 6).best_gpus_free_pci_first() && !r(2, 19, 1).best_gpus_free_pci_first());
}

/// topo.h: PATH_PXN 6 and PATH_P2C 7 at 2.27.3; P2C 6, PXN 7 from 2.27.5.
#[test]
fn p2c_pxn_order_boundaries() {
    assert!(r(2, 27, 3).p2c_after_pxn());
    assert!(!r(2, 26, 6).p2c_after_pxn() && !r(2, 27, 5).p2c_after_pxn());
    use crate::types::PathType;
    assert!(PathType::P2c.rank(true) > PathType::Pxn.rank(true));
    assert!(PathType::P2c.rank(false) < PathType::Pxn.rank(false));
}

/// connect.cc ncclTopoPostset at each tag: no swap to 2.19.4; `crossNic &&
/// nNodes%2==0` at 2.20.3; `crossNic` at 2.21.5 to 2.25.1; `crossNic == 2` at 2.26.2
/// to 2.27.7; per rank `crossNicRing == 2` from 2.28.3.
#[test]
fn ring_pair_swap_boundaries() {
    use RingPairSwap::*;
    let s = |a, b, c| r(a, b, c).ring_pair_swap();
    assert_eq!((s(2, 19, 4), s(2, 20, 3)), (Never, AnyCrossNicEvenNodes));
    assert_eq!((s(2, 20, 5), s(2, 21, 5)), (AnyCrossNicEvenNodes, AnyCrossNic));
    assert_eq!((s(2, 25, 1), s(2, 26, 2)), (AnyCrossNic, AllRanksTwo));
    assert_eq!((s(2, 27, 7), s(2, 28, 3)), (AllRanksTwo, OwnTwo));
}

/// xml.h: MAX_SUBS 32 and MAX_NODES 1024 until 2.20.5; 256 elements and 128
/// children (checked) at 2.21.5; 640 children at 2.29.7 (2.29.3 still 128).
/// topo.h NCCL_TOPO_MAX_NODES: 256 until 2.26.6, 576 at 2.27.3, 640 at 2.29.7.
#[test]
fn xml_limit_boundaries() {
    assert_eq!((r(2, 20, 5).xml_limits().max_subs, r(2, 20, 5).xml_limits().max_nodes), (32, 1024));
    assert!(!r(2, 20, 5).xml_limits().subs_checked && r(2, 21, 5).xml_limits().subs_checked);
    assert_eq!((r(2, 21, 5).xml_limits().max_subs, r(2, 21, 5).xml_limits().max_nodes), (128, 256));
    assert_eq!(r(2, 29, 3).xml_limits().max_subs, 128);
    assert_eq!(r(2, 29, 7).xml_limits().max_subs, 640);
    let per_type = |a, b, c| r(a, b, c).xml_limits().max_nodes_per_type;
    assert_eq!((per_type(2, 26, 6), per_type(2, 27, 3)), (256, 576));
    assert_eq!((per_type(2, 29, 3), per_type(2, 29, 7)), (576, 640));
}

/// xml.cc: sorted PCI insertion at 2.18.5, `<c2c>` at 2.19.3, `host_hash` at
/// 2.21.5, per-rank XML fused and `<pcilink>` and the pci/cpu trim at 2.22.3, integer
/// latency at 2.24.3, nic/net trim and host-hash rewrite at 2.27.3, `net="1"` at
/// 2.29.7 (not 2.29.2), NVML-filled GPU PCI attributes and `mlopart` at 2.30.7.
#[test]
fn detect_dialect_boundaries() {
    let d = |a, b, c| r(a, b, c).detect_dialect();
    assert!(!d(2, 18, 3).sorted_children && d(2, 18, 5).sorted_children);
    assert!(!d(2, 18, 5).c2c && d(2, 19, 3).c2c);
    assert!(!d(2, 20, 5).cpu_host_hash && d(2, 21, 5).cpu_host_hash);
    assert!(!d(2, 21, 5).per_rank_passes && d(2, 22, 3).per_rank_passes);
    assert!(!d(2, 21, 5).bcm_pcilinks && d(2, 22, 3).bcm_pcilinks);
    assert_eq!((d(2, 21, 5).trim, d(2, 22, 3).trim), (TrimRule::EmptyAny, TrimRule::PciCpu));
    assert_eq!((d(2, 26, 6).trim, d(2, 27, 3).trim), (TrimRule::PciCpu, TrimRule::PciCpuNicNet));
    assert!(!d(2, 23, 4).net_latency_int && d(2, 24, 3).net_latency_int);
    assert!(!d(2, 26, 6).rewrite_host_hash && d(2, 27, 3).rewrite_host_hash);
    assert!(!d(2, 29, 2).net_attr && d(2, 29, 7).net_attr);
    let (old, new) = (d(2, 30, 4), d(2, 30, 7));
    assert!(!old.gpu_pci_from_nvml && !old.nvlink_hidden_sentinel && !old.mlopart);
    assert!(new.gpu_pci_from_nvml && new.nvlink_hidden_sentinel && new.mlopart);
}

/// paths.cc ncclTopoTrimSystem sets `system->inter` from 2.28.7 (search.cc
/// ncclTopoSearchInit read the NET count until 2.28.3).
#[test]
fn inter_boundary() {
    assert!(!r(2, 28, 3).inter_from_ranks() && r(2, 28, 7).inter_from_ranks());
}

/// search.cc ncclTopoSearchInit walks DEV nodes from 2.30.3 (GPUs in 2.29.7).
#[test]
fn search_init_boundary() {
    assert!(!r(2, 29, 7).search_init_over_devs() && r(2, 30, 3).search_init_over_devs());
}

/// paths.cc ncclGetLocalCpu asks ncclTopoGetLocal from 2.30.7 (hop count in 2.30.4).
#[test]
fn local_cpu_boundary() {
    assert!(!r(2, 30, 4).local_cpu_by_path() && r(2, 30, 7).local_cpu_by_path());
}

/// search.cc ncclTopoGetXmlFromChannel: xmlSetAttrInt until 2.20.5, xmlSetAttrLong
/// and the NVLS head-only break from 2.21.5.
#[test]
fn graph_dump_writer_boundaries() {
    assert!(!r(2, 20, 5).graph_dump_hex_ids() && r(2, 21, 5).graph_dump_hex_ids());
    assert!(!r(2, 20, 5).graph_dump_nvls_head_only() && r(2, 21, 5).graph_dump_nvls_head_only());
}

/// paths.cc ncclTopoSetPaths: the type-first update is 2.30.7's.
#[test]
fn path_update_boundary() {
    assert!(!r(2, 30, 4).paths_type_first() && r(2, 30, 7).paths_type_first());
}

/// paths.cc at 2.29.2: ncclTopoComputePaths asks ncclTopoGetLocal for the P2C
/// rewrite; ncclTopoCheckGdr's level follows NCCL_NET_GDR_C2C.
#[test]
fn p2c_boundaries() {
    assert!(!r(2, 28, 9).p2c_local_nets_only() && !r(2, 28, 9).gdr_level_from_c2c());
    assert!(r(2, 29, 2).p2c_local_nets_only() && r(2, 29, 2).gdr_level_from_c2c());
}

/// paths.cc ncclTopoComputePaths: PXN_C2C defaults to 0 at 2.27.5, 1 at 2.28.3;
/// condition (4) reads `> PATH_PXN` from 2.27.6; the GDR check on the relay is 2.30.3's.
#[test]
fn pxn_boundaries() {
    assert_eq!(r(2, 27, 7).pxn_c2c_default(), 0);
    assert_eq!(r(2, 28, 3).pxn_c2c_default(), 1);
    assert_eq!(r(2, 26, 6).gdr_c2c_default(), 0);
    assert_eq!(r(2, 27, 3).gdr_c2c_default(), 1);
    assert!(!r(2, 27, 5).pxn_avoids_cpu_past_pxn() && r(2, 27, 6).pxn_avoids_cpu_past_pxn());
    assert!(!r(2, 29, 7).pxn_needs_gdr() && r(2, 30, 3).pxn_needs_gdr());
}

/// topo.cc ncclTopoAddNet: sscanf "0x%lx" at 2.28.3, strtoull at 2.28.7.
#[test]
fn guid_boundary() {
    assert!(!r(2, 28, 3).net_guid_any_hex() && r(2, 28, 7).net_guid_any_hex());
}

/// The first tag whose src/ names each variable (NCCL_PARAM or getenv).
#[test]
fn variables_by_release() {
    assert_eq!(r(2, 21, 5).variable_since("NCCL_NET_MERGE_LEVEL"), Some(r(2, 24, 3)));
    assert_eq!(r(2, 24, 3).variable_since("NCCL_NET_MERGE_LEVEL"), None);
    assert_eq!(r(2, 28, 3).variable_since("NCCL_MNNVL_RAIL_PER_HOST"), Some(r(2, 28, 7)));
    assert_eq!(r(2, 18, 1).variable_since("NCCL_P2P_LEVEL"), None);
    assert_eq!(r(2, 18, 1).variable_since("NCCL_NOT_A_THING"), None);
    // search.cc: the scatter of a fused system's NICs came with its variable (2.27.5).
    assert_eq!(r(2, 27, 3).variable_since("NCCL_MNNVL_SCATTER_NETS_ENABLE"), Some(r(2, 27, 5)));
    assert!(!r(2, 27, 3).mnnvl_scatter_nets() && r(2, 27, 5).mnnvl_scatter_nets());
}

/// nvls.cc ncclNvlsInit: `gpuCount <= 2` turns NVLS off until 2.28.3, `< 2` from 2.28.7.
#[test]
fn nvls_gpu_count_boundary() {
    assert_eq!(r(2, 28, 3).nvls_min_gpus(), 3);
    assert_eq!(r(2, 28, 7).nvls_min_gpus(), 2);
}

/// topo.cc ncclTopoGetLocalNet: `dev % localGpuCount` first appears in 2.30.7.
#[test]
fn local_net_start_boundary() {
    assert!(!r(2, 30, 4).local_net_start_wraps());
    assert!(r(2, 30, 7).local_net_start_wraps());
}

/// net_ib.cc: NCCL_IB_MERGE_NICS appears in 2.20.3, the mixed-port check in 2.22.3;
/// topo.cc ncclTopoMakeVNics takes over in 2.24.3.
#[test]
fn nic_fusion_boundaries() {
    assert_eq!(r(2, 19, 4).nic_fusion(), NicFusion::None);
    assert_eq!(r(2, 20, 3).nic_fusion(), NicFusion::IbPorts { mixed_unmerges: false });
    assert_eq!(r(2, 21, 5).nic_fusion(), NicFusion::IbPorts { mixed_unmerges: false });
    assert_eq!(r(2, 22, 3).nic_fusion(), NicFusion::IbPorts { mixed_unmerges: true });
    assert_eq!(r(2, 23, 4).nic_fusion(), NicFusion::IbPorts { mixed_unmerges: true });
    assert_eq!(r(2, 24, 3).nic_fusion(), NicFusion::VirtualNics);
}

/// topo.cc ncclTopoGetSystem: one FillGpu per local rank into one tree until 2.21.5;
/// each rank's own tree, gathered and fused, from 2.22.3.
#[test]
fn per_rank_xml_boundary() {
    assert!(!r(2, 21, 5).per_rank_xml() && r(2, 22, 3).per_rank_xml());
}

/// topo.h/topo.cc: SRP_QPI_BW and ERP_QPI_BW with their models in 2.26.2; AMD_BW in
/// 2.19.1; SM90_NVLINK_BW 20.6 in 2.20.3, SM100_NVLINK_BW 40.0 in 2.25.1 and 40.1 in
/// 2.27.5.
#[test]
fn system_constant_boundaries() {
    assert!(!r(2, 25, 1).intel_rapids_models() && r(2, 26, 2).intel_rapids_models());
    assert!(!r(2, 18, 6).amd_inter_cpu_bw() && r(2, 19, 1).amd_inter_cpu_bw());
    assert_eq!(r(2, 19, 4).nvlink_table(), NvLinkTable::V2_18);
    assert_eq!(r(2, 20, 3).nvlink_table(), NvLinkTable::V2_20);
    assert_eq!(r(2, 24, 3).nvlink_table(), NvLinkTable::V2_20);
    assert_eq!(r(2, 25, 1).nvlink_table(), NvLinkTable::V2_25);
    assert_eq!(r(2, 27, 3).nvlink_table(), NvLinkTable::V2_25);
    assert_eq!(r(2, 27, 5).nvlink_table(), NvLinkTable::V2_27_5);
}

/// topo.cc findLocalCpu: any PCI link at 2.21.5, PCI/CPU targets at 2.22.3, the
/// `from` argument at 2.26.2; ncclTopoAddC2c at 2.19.1, LINK_C2C at 2.26.2;
/// ncclTopoAddPciLinks at 2.22.3; NCCL_TOPO_LOCAL_NIC_ID at 2.24.3; ncclTopoAddNet
/// reads rail and plane at 2.30.7.
#[test]
fn system_walk_boundaries() {
    assert!(!r(2, 30, 4).net_rails() && r(2, 30, 7).net_rails());
    assert_eq!(r(2, 21, 5).local_cpu_walk(), LocalCpuWalk::AnyPciLink);
    assert_eq!(r(2, 22, 3).local_cpu_walk(), LocalCpuWalk::SwitchLinks);
    assert_eq!(r(2, 25, 1).local_cpu_walk(), LocalCpuWalk::SwitchLinks);
    assert_eq!(r(2, 26, 2).local_cpu_walk(), LocalCpuWalk::Up);
    assert_eq!(r(2, 18, 6).c2c_links(), C2cLinks::Ignored);
    assert_eq!(r(2, 19, 1).c2c_links(), C2cLinks::AsNvLink);
    assert_eq!(r(2, 25, 1).c2c_links(), C2cLinks::AsNvLink);
    assert_eq!(r(2, 26, 2).c2c_links(), C2cLinks::C2c);
    assert!(!r(2, 21, 5).pci_links() && r(2, 22, 3).pci_links());
    assert!(!r(2, 23, 4).nic_id_by_numa() && r(2, 24, 3).nic_id_by_numa());
}

/// topo.h: PATH_P2C at 2.27.3; paths.cc ncclTopoCheckP2p: the PXB default with the
/// AMD exception at 2.23.4.
#[test]
fn path_boundaries() {
    assert!(!r(2, 26, 6).p2c_paths() && r(2, 27, 3).p2c_paths());
    assert_eq!(r(2, 22, 3).p2p_default(), P2pDefault::SysButPxbOnArmIntelZhaoxin);
    assert_eq!(r(2, 23, 4).p2p_default(), P2pDefault::PxbButSysOnSmallAmd);
}

/// search.cc ncclTopoCompute: ncclTopoGetGpuMinPath bounds at 2.25.1,
/// ncclTopoSplitNvLink at 2.26.2, the SelectNets fallback at 2.29.2; init.cc: the
/// CollNet Direct graph at 2.22.3.
#[test]
fn search_limit_boundaries() {
    assert!(!r(2, 24, 3).search_types_from_paths() && r(2, 25, 1).search_types_from_paths());
    assert!(!r(2, 25, 1).split_nvlink() && r(2, 26, 2).split_nvlink());
    assert!(!r(2, 28, 9).fallback_selects_nets() && r(2, 29, 2).fallback_selects_nets());
    assert!(!r(2, 21, 5).collnet_direct_graph() && r(2, 22, 3).collnet_direct_graph());
}

/// search.cc: crossNic 0/1 from 2.19.1, odd channels paired (RecGpu and RecNet) and
/// the 15% bonus of ncclTopoCompareGraphs gone from 2.20.3, ring-only pairs with
/// crossNic 2 from 2.23.4.
#[test]
fn cross_nic_boundaries() {
    assert!(r(2, 19, 4).cross_nic_bonus() && !r(2, 20, 3).cross_nic_bonus());
    assert_eq!(r(2, 18, 6).cross_nic_rules(), CrossNicRules::Copy);
    assert_eq!(r(2, 19, 1).cross_nic_rules(), CrossNicRules::ZeroThenOne);
    assert_eq!(r(2, 19, 4).cross_nic_rules(), CrossNicRules::ZeroThenOne);
    assert_eq!(r(2, 20, 3).cross_nic_rules(), CrossNicRules::ZeroThenOnePaired);
    assert_eq!(r(2, 22, 3).cross_nic_rules(), CrossNicRules::ZeroThenOnePaired);
    assert_eq!(r(2, 23, 4).cross_nic_rules(), CrossNicRules::RingPairs);
}

/// search.cc ncclTopoSearchRecNet: maxBw/minHops GPUs through 2.26.6, ncclTopoGetLocal
/// at 2.27.3, localGpu first and replay only with sameChannels at 2.27.5; NVLS heads:
/// `i>0` skipped at 2.21.5, the duplicate-head `continue` at 2.22.3, inside `gpu != -1`
/// with `break` at 2.23.4.
#[test]
fn rec_net_boundaries() {
    assert_eq!(r(2, 26, 6).rec_net_start(), RecNetStart::BestPaths);
    assert_eq!(r(2, 27, 3).rec_net_start(), RecNetStart::LocalGpus);
    assert_eq!(r(2, 27, 5).rec_net_start(), RecNetStart::LocalGpuFirst);
    assert_eq!(r(2, 21, 5).nvls_heads(), NvlsHeads::FirstNet);
    assert_eq!(r(2, 22, 3).nvls_heads(), NvlsHeads::FirstNewHeadLeaky);
    assert_eq!(r(2, 23, 4).nvls_heads(), NvlsHeads::FirstNewHead);
}

/// nccl_net.h: NCCL_NET_MAX_DEVS_PER_NIC 4 until 2.30.0; 2.30.3 asks the plugin (8).
#[test]
fn vnic_size_boundary() {
    assert_eq!(r(2, 28, 9).max_devs_per_nic(), 4);
    assert_eq!(r(2, 30, 3).max_devs_per_nic(), 8);
}

/// graph/tuning.cc table boundaries: Tree/Simple hop 28 at 2.22.3, 4 at 2.23.4; Blackwell
/// row at 2.25.1; perChMaxNVLSTreeBws at 2.28.3; the NVLS-tree network hop 20.9 at 2.28.9.
#[test]
fn tuning_tables_boundaries() {
    use TuningTables::*;
    let t = |a, b, c| r(a, b, c).tuning_tables();
    assert_eq!(
        (t(2, 18, 1), t(2, 18, 3), t(2, 18, 6), t(2, 19, 1), t(2, 20, 5)),
        (V2_18_1, V2_18_3, V2_18_3, V2_19_1, V2_19_1)
    );
    assert_eq!(
        (t(2, 21, 5), t(2, 22, 3), t(2, 23, 4), t(2, 24, 3), t(2, 25, 1), t(2, 27, 7)),
        (V2_21, V2_21, V2_23, V2_23, V2_25, V2_25)
    );
    assert_eq!(
        (t(2, 28, 3), t(2, 28, 7), t(2, 28, 9), t(2, 29, 2), t(2, 29, 3)),
        (V2_28_3, V2_28_7, V2_28_9, V2_29_2, V2_29_2)
    );
    assert_eq!((t(2, 29, 7), t(2, 30, 3), t(2, 30, 7)), (V2_29_7, V2_30_3, V2_30_3));
}

/// graph/tuning.cc ncclTopoTuneModel: NCCL_ALGO_PAT arrives at 2.23.4 (busBw *= .85),
/// .75 at 2.24.3; ncclPatEnable's sm60 test at 2.26.2.
#[test]
fn pat_boundaries() {
    assert!(!r(2, 22, 3).has_pat() && r(2, 23, 4).has_pat());
    assert_eq!((r(2, 23, 4).pat_bw_share(), r(2, 24, 3).pat_bw_share()), (0.85, 0.75));
    assert!(!r(2, 25, 1).pat_needs_sm60() && r(2, 26, 2).pat_needs_sm60());
}

/// graph/tuning.cc: nInterSteps `2*nNodes`, `ppn < 2 ? 0.7`, no ppn==1 tree hop and
/// CollNet-direct-only AG/RS conversion at 2.22.3; all gone at 2.23.4.
#[test]
fn tuning_2_23_boundaries() {
    let (old, new) = (r(2, 22, 3), r(2, 23, 4));
    assert!(old.ring_net_steps_close_the_ring() && !new.ring_net_steps_close_the_ring());
    assert!(!old.one_ppn_pays_tree_net_hop() && new.one_ppn_pays_tree_net_hop());
    assert_eq!((old.ring_ll128_share_below_2_ppn(), new.ring_ll128_share_below_2_ppn()), (0.7, 0.92));
    assert!(!old.alg_bw_for_non_ring_ag_rs() && new.alg_bw_for_non_ring_ag_rs());
}

/// graph/tuning.cc at 2.18.1 (ll128MaxBwPerCh, NVLS ratio .75, no tree-pattern
/// penalty, LL128 `<= PATH_NVL`), 2.18.3, 2.19.1 (NVLS AllGather, arity 0.4, ring
/// backup instead of "never disable ring"), 2.20.3 (CollNet direct AllGather),
/// 2.21.5 (ring LL `* .5`).
#[test]
fn tuning_2_18_to_2_21_boundaries() {
    assert_eq!(r(2, 18, 1).nvls_bw_model(), NvlsBwModel::Plain { nvls_ratio: 0.75 });
    assert_eq!(r(2, 18, 6).nvls_bw_model(), NvlsBwModel::Plain { nvls_ratio: 5.0 / 6.0 });
    assert_eq!(r(2, 19, 1).nvls_bw_model(), NvlsBwModel::MinIntraInter);
    assert!(!r(2, 18, 1).plain_tree_penalty() && r(2, 18, 3).plain_tree_penalty());
    assert!(!r(2, 18, 1).ll128_through_nvb() && r(2, 18, 3).ll128_through_nvb());
    assert!(!r(2, 18, 6).nvls_ag_rs_rated() && r(2, 19, 1).nvls_ag_rs_rated());
    assert_eq!((r(2, 18, 6).collnet_direct_arity_us(), r(2, 19, 1).collnet_direct_arity_us()), (0.5, 0.4));
    assert!(r(2, 18, 6).ring_never_off_outside_allreduce() && !r(2, 19, 1).ring_never_off_outside_allreduce());
    assert!(!r(2, 19, 4).collnet_direct_ag_rs_rated() && r(2, 20, 3).collnet_direct_ag_rs_rated());
    assert!(r(2, 20, 5).ring_ll_quarter_or_third() && !r(2, 21, 5).ring_ll_quarter_or_third());
}

/// graph/tuning.cc: per-collective NVLS and the CollNet AG/RS `0.9f` at 2.27.3,
/// nvlsEfficiency at 2.28.3; maxTreePattern at 2.26.2.
#[test]
fn nvls_collnet_tree_model_boundaries() {
    assert_eq!(r(2, 26, 6).nvls_bw_model(), NvlsBwModel::MinIntraInter);
    assert_eq!(r(2, 27, 3).nvls_bw_model(), NvlsBwModel::PerCollective);
    assert_eq!(r(2, 27, 7).nvls_bw_model(), NvlsBwModel::PerCollective);
    assert_eq!(r(2, 28, 3).nvls_bw_model(), NvlsBwModel::Efficiency);
    assert!(!r(2, 26, 6).collnet_ag_rs_capped_by_network() && r(2, 27, 3).collnet_ag_rs_capped_by_network());
    assert!(!r(2, 25, 1).tree_penalty_reads_max_pattern() && r(2, 26, 2).tree_penalty_reads_max_pattern());
}

/// graph/tuning.cc LL128 block: `case 90:` list at 2.24.3, `case 100:` at 2.25.1,
/// `PATH_P2C : PATH_PXN` at 2.27.3, `ncclParamLl128C2c() && minCompCap >= 90` at
/// 2.27.5, `|| minCompCap >= 90` for mixed GPUs at 2.30.3.
#[test]
fn ll128_rule_boundaries() {
    assert_eq!(r(2, 24, 3).ll128_rule(), Ll128Rule::CompCaps(&[70, 80, 90]));
    assert_eq!(r(2, 26, 6).ll128_rule(), Ll128Rule::CompCaps(&[70, 80, 90, 100, 120]));
    assert_eq!(r(2, 27, 3).ll128_rule(), Ll128Rule::C2cOrPxn);
    assert_eq!(r(2, 27, 5).ll128_rule(), Ll128Rule::C2cPxnElsePxb { mixed_sm90: false });
    assert_eq!(r(2, 29, 7).ll128_rule(), Ll128Rule::C2cPxnElsePxb { mixed_sm90: false });
    assert_eq!(r(2, 30, 3).ll128_rule(), Ll128Rule::C2cPxnElsePxb { mixed_sm90: true });
}

/// graph/tuning.cc: parseList with per-function prefixes at 2.24.3; ringbdw backup
/// from 2.19.1, `pEnable == 0` clears it at 2.22.3, gone at 2.24.3 with the
/// Ring/Tree fallback.
#[test]
fn enable_boundaries() {
    assert!(!r(2, 23, 4).algo_proto_per_collective() && r(2, 24, 3).algo_proto_per_collective());
    assert!(r(2, 23, 4).algo_falls_back_to_ring_tree() && !r(2, 24, 3).algo_falls_back_to_ring_tree());
    assert_eq!(r(2, 18, 6).ring_backup(), RingBackup::None);
    assert_eq!(r(2, 19, 1).ring_backup(), RingBackup::AllProtocols);
    assert_eq!(r(2, 21, 5).ring_backup(), RingBackup::AllProtocols);
    assert_eq!(r(2, 22, 3).ring_backup(), RingBackup::EnabledProtocols);
    assert_eq!(r(2, 23, 4).ring_backup(), RingBackup::EnabledProtocols);
    assert_eq!(r(2, 24, 3).ring_backup(), RingBackup::None);
}

/// include/device.h MAXCHANNELS 32 at 2.24.3, 64 at 2.25.1; graph/connect.cc
/// ncclTopoPostset: `minCompCap == 90` doubling until 2.24.3 (`>= 90` at 2.25.1), the
/// copy up to nvlsChannels from 2.20.3 to 2.27.7, the doubling's room.
#[test]
fn postset_boundaries() {
    assert_eq!((r(2, 24, 3).max_channels(), r(2, 25, 1).max_channels()), (32, 64));
    assert!(!r(2, 24, 3).doubles_multi_node_channels(100) && r(2, 24, 3).doubles_multi_node_channels(90));
    assert!(r(2, 25, 1).doubles_multi_node_channels(100));
    assert!(!r(2, 19, 4).coll_channels_follow_nvls() && r(2, 20, 3).coll_channels_follow_nvls());
    assert!(r(2, 27, 7).coll_channels_follow_nvls() && !r(2, 28, 3).coll_channels_follow_nvls());
    // `2*nChannels <= MAXCHANNELS` at 2.19.4, `nChannels < 16` at 2.20.3.
    assert!(r(2, 19, 4).doubling_room(16) && !r(2, 20, 3).doubling_room(16));
    assert!(r(2, 20, 3).doubling_room(15) && !r(2, 19, 4).doubling_room(17));
}

/// transport/nvls.cc: NVLS_NCHANNELS 16 at 2.24.3, NVLS_NCHANNELS_SM100 32 at 2.25.1,
/// NVLS_NCHANNELS_SM100_NVL 24 on one node at 2.27.3.
#[test]
fn nvls_channel_default_boundaries() {
    assert_eq!(r(2, 24, 3).nvls_default_channels(100, true), 16);
    assert_eq!(r(2, 26, 6).nvls_default_channels(100, false), 32);
    assert_eq!(r(2, 27, 3).nvls_default_channels(100, false), 24);
    assert_eq!(r(2, 27, 3).nvls_default_channels(100, true), 32);
    assert_eq!(r(2, 30, 7).nvls_default_channels(90, true), 16);
    // nvls.cc ncclNvlsTreeSm100Tuning appears at 2.30.3.
    assert!(!r(2, 29, 7).nvls_sm100_tuning() && r(2, 30, 3).nvls_sm100_tuning());
}

/// Multi-node NVLink, read at every tag from 2.20.3 (init.cc, mnnvl.cc, topo.cc,
/// p2p.cc): each boundary on both sides, and each change named by the change list.
#[test]
fn mnnvl_boundaries() {
    // 2.20.3/2.20.5: NCCL_MNNVL without fusion (not modelled); 2.21.5 fuses a clique.
    assert!(!r(2, 19, 4).mnnvl_unfused() && !r(2, 19, 4).mnnvl());
    assert!(r(2, 20, 3).mnnvl_unfused() && r(2, 20, 5).mnnvl_unfused() && !r(2, 20, 5).mnnvl());
    assert!(r(2, 21, 5).mnnvl() && !r(2, 21, 5).mnnvl_unfused());
    // mnnvl.cc (2.25.1): NCCL_MNNVL_ENABLE=1 checks one host; before, nNodes > 1 only.
    assert!(!r(2, 24, 3).mnnvl_forced_on_one_host() && r(2, 25, 1).mnnvl_forced_on_one_host());
    // init.cc (2.27.3): `p2pLevel != 0` joins the check's condition.
    assert!(!r(2, 26, 6).mnnvl_needs_p2p() && r(2, 27, 3).mnnvl_needs_p2p());
    // init.cc (2.28.3): NCCL_MNNVL_CLIQUE_ID=-2 hashes the chassis serial number.
    assert!(!r(2, 27, 7).mnnvl_rack_serial_clique() && r(2, 28, 3).mnnvl_rack_serial_clique());
    // paths.cc (2.30.3): ncclTopoCheckMNNVL matches other cliques under p2pCrossClique.
    assert!(!r(2, 29, 7).mnnvl_cross_clique() && r(2, 30, 3).mnnvl_cross_clique());
    // The variables, from the first tag whose source names each.
    for (name, first, before) in [
        ("NCCL_MNNVL_ENABLE", r(2, 21, 5), r(2, 20, 5)),
        ("NCCL_MNNVL_CLIQUE_ID", r(2, 23, 4), r(2, 22, 3)),
        ("NCCL_MNNVL_UUID", r(2, 25, 1), r(2, 24, 3)),
        ("NCCL_MNNVL_SCATTER_NETS_ENABLE", r(2, 27, 5), r(2, 27, 3)),
        ("NCCL_MNNVL_RAIL_PER_HOST", r(2, 28, 7), r(2, 28, 3)),
        ("NCCL_MNNVL_CROSS_CLIQUE", r(2, 30, 3), r(2, 29, 7)),
    ] {
        assert_eq!(before.variable_since(name), Some(first), "{name}");
        assert_eq!(first.variable_since(name), None, "{name}");
    }
    // Every boundary is a line of `topo diff --against-version`.
    for (since, word) in [
        (r(2, 20, 3), "NCCL_MNNVL"),
        (r(2, 21, 5), "ncclTopoFuseXml"),
        (r(2, 23, 4), "NCCL_MNNVL_CLIQUE_ID"),
        (r(2, 25, 1), "NCCL_MNNVL_UUID"),
        (r(2, 25, 1), "single host"),
        (r(2, 27, 3), "P2P turned off"),
        (r(2, 27, 3), "one MNNVL clique"),
        (r(2, 27, 5), "NCCL_MNNVL_SCATTER_NETS_ENABLE"),
        (r(2, 28, 3), "serial number"),
        (r(2, 28, 7), "NCCL_MNNVL_RAIL_PER_HOST"),
        (r(2, 30, 3), "NCCL_MNNVL_CROSS_CLIQUE"),
    ] {
        assert!(CHANGES.iter().any(|c| c.since == since && c.text.contains(word)), "{since}: {word}");
    }
}
