use super::system::parse_node;
use super::*;
use crate::log::facts::NetAttrs;
use crate::log::record::*;

fn kind(msg: &str) -> String {
    let r = classify(msg);
    let s = format!("{r:?}");
    s.split(['(', ' ', '{']).next().unwrap_or_default().to_string()
}

#[test]
fn version_lines() {
    let Rec::Version(v) = classify("NCCL version 2.23.4+cuda12.4") else { panic!() };
    assert_eq!((v.major, v.minor, v.patch, v.suffix, v.cuda), (2, 23, 4, "", Some("12.4")));
    let Rec::Version(v) = classify("NCCL version 2.18.3-msccl+cuda11.7") else { panic!() };
    assert_eq!((v.suffix, v.cuda), ("-msccl", Some("11.7")));
    assert_eq!(kind("NCCL version 2.23.4+cuda12.4 and more"), "Unknown");
    assert_eq!(kind("NCCL git version master v2.29.2-1-g1234"), "GitVersion");
}

#[test]
fn init_lines_of_every_release() {
    // 2.5-2.15
    let Rec::Init(i) = classify("comm 0x7f00 rank 1 nranks 4 cudaDev 1 busId 7000 - Init COMPLETE") else { panic!() };
    assert_eq!((i.rank, i.nranks, i.bus_id, i.comm_id, i.phase), (1, 4, 0x7000, None, InitPhase::Complete));
    // 2.16-2.18.1
    let Rec::Init(i) = classify("comm 0x7f00 rank 1 nranks 4 cudaDev 1 busId 101c0 commId 0xabc - Init COMPLETE")
    else {
        panic!()
    };
    assert_eq!((i.bus_id, i.comm_id), (0x101c0, Some(0xabc)));
    // 2.18.3-2.20
    let Rec::Init(i) = classify("comm 0x7f00 rank 0 nranks 8 cudaDev 0 nvmlDev 2 busId 18000 commId 0x1 - Init START")
    else {
        panic!()
    };
    assert_eq!((i.nvml_dev, i.phase), (Some(2), InitPhase::Start));
    // 2.21+ with a function name, split forms (note 2.23's missing space before `-`)
    let Rec::Init(i) = classify(
        "ncclCommInitRankConfig comm 0x5733 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 8000 commId 0x4ba8 - Init START",
    ) else {
        panic!()
    };
    assert_eq!(i.func, Some("ncclCommInitRankConfig"));
    let Rec::Init(i) = classify(
        "ncclCommSplit comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 7000 parent 0x2 splitCount 1 color 3 key -1- Init START",
    ) else {
        panic!()
    };
    assert_eq!(i.parent, Some(2));
    let Rec::Init(i) = classify(
        "[Rank 3] ncclCommInitRank comm 0x1 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId c000 commId 0x9 - Init START",
    ) else {
        panic!()
    };
    assert_eq!(i.rank_prefix, Some(3));
    assert_eq!(kind("comm 0x1 rank 0 nranks 2 cudaDev 0 busId 7000 - Destroy COMPLETE"), "CommEnd");
    assert_eq!(kind("comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE"), "Old");
    let Rec::Nodes(n) = classify("comm 0x55 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0") else {
        panic!()
    };
    assert_eq!((n.nranks, n.nnodes, n.local_ranks), (16, 2, 8));
}

#[test]
fn mnnvl_lines() {
    let m =
        "MNNVL busId 0x1901000 fabric UUID 8e4b437a1c5e2f9d.514c2d0b6f3ec0a1 cliqueId 0x7ffe state 3 healthMask 0x0";
    let Rec::Fabric(f) = classify(m) else { panic!("{:?}", classify(m)) };
    assert_eq!(
        (f.bus_id, f.uuid, f.clique_id, f.state),
        (0x1901000, (0x8e4b437a1c5e2f9d, 0x514c2d0b6f3ec0a1), 0x7ffe, 3)
    );
    // 2.30 adds nvlDomainSize; 2.21-2.24 end in a space.
    let c = |m: &str| match classify(m) {
        Rec::Clique(c) => (c.mnnvl, c.clique_id, c.size, c.rank, c.nvl_domain),
        other => panic!("{other:?}"),
    };
    assert_eq!(c("MNNVL 1 cliqueId 7ffe cliqueSize 72 cliqueRank 5 nvlDomainSize 72"), (1, 0x7ffe, 72, 5, Some(72)));
    assert_eq!(c("MNNVL 1 cliqueId 7ffe cliqueSize 8 cliqueRank 0 "), (1, 0x7ffe, 8, 0, None));
    assert_eq!(c("MNNVL 1 cliqueId 0 cliqueSize 8 cliqueRank 0"), (1, 0, 8, 0, None));
    // Anchored at both ends; the other MNNVL lines stay known and unread.
    assert_eq!(kind("MNNVL 1 cliqueId 7ffe cliqueSize 8 cliqueRank 0 extra"), "Unknown");
    let Rec::RackSerial(r) = classify("MNNVL rack serial 1321A 0042 slot 1 tray 2 hostId 3 peerType 0 moduleId 4")
    else {
        panic!()
    };
    assert_eq!((r.serial, r.slot, r.tray, r.host_id, r.module_id), ("1321A 0042", 1, 2, 3, 4));
    assert_eq!(kind("MNNVL rack serial 1234 slot 1 tray 2 hostId 3 peerType 0"), "Known");
}

#[test]
fn system_headers() {
    let h = |m: &str| match classify(m) {
        Rec::SysHeader(h) => (h.max_bw, h.total_bw, h.form),
        other => panic!("{other:?}"),
    };
    assert_eq!(h("=== System : maxWidth  6 maxSpeed 12 ==="), (6.0, None, HeaderForm::WidthSpeed));
    assert_eq!(h("=== System : maxWidth 1.2 ==="), (1.2, None, HeaderForm::Width));
    assert_eq!(h("=== System : maxWidth 252.0 totalWidth 252.0 ==="), (252.0, Some(252.0), HeaderForm::WidthTotal));
    assert_eq!(h("=== System : maxBw 48.0 totalBw 370.8 ==="), (48.0, Some(370.8), HeaderForm::Bw));
    assert_eq!(kind("=========================================="), "SysEnd");
}

#[test]
fn system_lines() {
    let Rec::SysLine(l) = classify("              + NVL[48.0] - GPU/0-8000") else { panic!() };
    assert_eq!((l.col, l.node_col, l.link), (14, 28, Some(("NVL", 48.0))));
    let Rec::SysLine(l) = classify("+ PCI[ 6] - GPU/8C000 (3)") else { panic!() };
    assert!(l.int_bw);
    assert_eq!(l.node.rank, Some(3));
    let Rec::SysLine(l) = classify("CPU/0-ffffffffffffff (1/2/-1)") else { panic!() };
    assert!(l.link.is_none());
    assert_eq!(kind("+ XGMI[40.0] - GPU/0-8000"), "Rccl");
    assert_eq!(kind("CPU/0 (1/1/2) trailing"), "Unknown");
}

#[test]
fn node_texts() {
    let (n, r) = parse_node("GPU/0-7000 (0)").unwrap();
    assert_eq!((n.id.kind, n.id.system_id, n.id.local_id, n.rank, r), ("GPU", 0, 0x7000, Some(0), ""));
    let (n, _) = parse_node("CPU/FFFFFFFFFFFFFFFF").unwrap();
    assert_eq!(n.id.local_id, u64::MAX);
    assert!(n.id.upper && !n.id.dashed);
    let (n, _) = parse_node("NET/0-c (0/d4f9fc0003ae6d94/1/50.000000)").unwrap();
    assert_eq!(n.net, Some(NetAttrs { coll: Some(0), asic: 0xd4f9fc0003ae6d94, port: 1, bw: 50.0 }));
    let (n, _) = parse_node("NET/3 (aa24210003bd70c4/1/50.000000)").unwrap();
    assert_eq!((n.net_fields, n.net.unwrap().coll), (3, None));
    let (n, _) = parse_node("PCI/82000 (10b5879610b58796)").unwrap();
    assert_eq!(n.pci_device, Some(0x10b5879610b58796));
    let (n, _) = parse_node("GPU/0-1b000 (4) [MLOPart 1]").unwrap();
    assert_eq!(n.mlo_part, Some(1));
    assert!(parse_node("XYZ/1").is_none());
    assert!(parse_node("GPU/zz").is_none());
    assert!(parse_node("CPU/0 (1/2)").is_none());
}

#[test]
fn path_lines() {
    let Rec::Path(p) =
        classify("GPU/0-7000 :GPU/0-7000 (0/5000.0/LOC) GPU/0-8000 (1/48.0/NVL) CPU/0-ffffffffffffff (1/24.0/PHB) ")
    else {
        panic!()
    };
    assert_eq!(p.head, "GPU/0-7000");
    assert_eq!(p.entries.len(), 3);
    assert!(!p.truncated);
    assert_eq!(
        (p.entries[1].to, p.entries[1].hops, p.entries[1].bw, p.entries[1].kind),
        ("GPU/0-8000", 1, 48.0, "NVL")
    );
    let Rec::Path(p) = classify("NET/0-1 :GPU/0-26000 (3/1.2/PHB) NET/0-1 (0/5000.0/L") else { panic!() };
    assert_eq!((p.entries.len(), p.truncated), (1, true));
    let Rec::Path(p) = classify("GPU/F000 :GPU/F000 (0/5000.000000/LOC) GPU/10000 (4/24.000000/PHB) ") else {
        panic!()
    };
    assert_eq!(p.entries[1].bw_decimals, 6);
    // 2.5: integer width and link-type index.
    let Rec::Path(p) = classify("GPU/7000 :GPU/7000 (0/0/0) GPU/8000 (1/21/1) ") else { panic!() };
    assert_eq!(p.entries[1].kind, "1");
}

#[test]
fn patterns_and_channels() {
    let Rec::Pattern(p) =
        classify("Pattern 4, crossNic 0, nChannels 4, speed 1.200000/1.200000, type SYS/SYS, sameChannels 0")
    else {
        panic!()
    };
    assert!(p.speed && p.float);
    let Rec::Pattern(p) = classify("Pattern 2, crossNic 0, nChannels 2, speed 21/21, nvlink 1, type 1, sameChannels 1")
    else {
        panic!()
    };
    assert_eq!((p.nvlink, p.type_intra, p.float), (Some(1), "1", false));
    assert_eq!(kind("Pattern 4, crossNic 0, Bw 1/1, type NVL/PIX"), "Unknown");
    let Rec::GraphChannel(g) = classify(" 0 : NET/3 GPU/0 GPU/1 NET/2") else { panic!() };
    assert_eq!(g.items, vec![(true, "3"), (false, "0"), (false, "1"), (true, "2")]);
    let Rec::GraphChannel(g) = classify("12 : GPU/0-26000 GPU/0-41000") else { panic!() };
    assert_eq!(g.channel, 12);
    assert_eq!(kind("0 "), "Unknown");
}

#[test]
fn rings_and_trees() {
    let Rec::RingOrder(o) = classify("Channel 00/02 :    0   1   2   3") else { panic!() };
    assert!(o.padded);
    assert_eq!(o.order, vec![0, 1, 2, 3]);
    let Rec::RingOrder(o) = classify("Channel 01/16 :  0  3  1 15") else { panic!() };
    assert!(!o.padded);
    let Rec::RingOrder(o) = classify("Channel 00/02 : 0 1 2 3 4 5...") else { panic!() };
    assert!(o.ellipsis);
    assert_eq!(kind("Ring 03 : 15 -> 0 -> 1"), "RingLink");
    assert_eq!(kind("Ring 00 : 34 -> 33 [send] via NET/Socket/0"), "Old");
    assert_eq!(kind("Ring 00 : 1 -> 2 -> 3 comm 0x55 nRanks 04 busId 23000"), "Rccl");
    let Rec::Trees(t) = classify("Trees [0] 14/-1/-1->13->12|12->13->14/-1/-1 [1] -1/-1/-1->13->12|12->13->-1/-1/-1")
    else {
        panic!()
    };
    assert_eq!(t.items[1].dn, Some((12, [-1, -1, -1])));
    let Rec::Trees(t) = classify("Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1 [2] 0/-1/-1->1") else { panic!() };
    assert_eq!((t.items.len(), t.truncated), (2, true));
    assert_eq!(kind("Trees [0] 26->25->-1/-1/-1"), "Old");
    assert_eq!(kind("Trees [0] 1/-1/-1->0->-1 comm 0x1 nRanks 08 busId 23000"), "Rccl");
    assert_eq!(kind("Tree 1 : -1 -> 1 -> 0/-1/-1"), "Tree");
    let Rec::NvlsHead { channel, heads } = classify("NVLS Head  3:  3 11") else { panic!() };
    assert_eq!((channel, heads), (3, vec![3, 11]));
    assert_eq!(
        classify("NVLS Trees : 1/2->0->-1 3/4->0->-1"),
        Rec::NvlsTrees { three: false, items: [([1, 2, -1], 0, -1), ([3, 4, -1], 0, -1)] }
    );
    assert!(matches!(classify("NVLS Trees : 1/2/-1->0->-1 3/4/-1->0->-1"), Rec::NvlsTrees { three: true, .. }));
}

#[test]
fn connections() {
    fn c(m: &str) -> Conn<'_> {
        match classify(m) {
            Rec::Conn(c) => c,
            other => panic!("{m}: {other:?}"),
        }
    }
    let x = c("Channel 00 : 8[101c0] -> 9[101d0] via P2P/IPC/read");
    assert_eq!((x.transport, x.mode, x.read, x.conn), ("P2P", "IPC", true, None));
    let x = c("Channel 01 : 7[a01d0] -> 8[101c0] [send] via NET/AWS Libfabric/0/GDRDMA");
    assert_eq!((x.mode, x.net_dev, x.gdr, x.side), ("AWS Libfabric", Some(0), true, Some("send")));
    let x = c("Channel 02/1 : 3[3] -> 9[1] [send] via NET/IB/1(2)/GDRDMA(PCI)/Shared");
    assert_eq!((x.proxy, x.gdr, x.gdr_pci, x.shared, x.conn), (Some(2), true, true, true, Some(1)));
    let x = c("Channel 00 : 2[2] -> 3[3] via SHM/direct/direct");
    assert!(!x.shm_one);
    assert!(c("Channel 00 : 2[2] -> 3[3] via SHM/direct").shm_one);
    assert_eq!(c("Ring 00 : 0[6000] -> 1[7000] via P2P/common device").mode, "common device");
    assert_eq!(c("Ring 00 : 0[6000] -> 1[7000] via direct shared memory").transport, "SHM");
    assert!(c("Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read/CE").ce);
    assert_eq!(c("Channel 00 : 1[7000] -> 0[6000] via P2P/indirect/2[a000]").mode, "indirect");
    assert_eq!(c("CollNet 00/1 : 3 [send] via COLLNET/SHARP/0/GDRDMA").transport, "COLLNET");
    assert_eq!(kind("Channel 00 : 1[1] -> 0[0] via P2P/IPC comm 0x1 nRanks 08"), "Rccl");
}

#[test]
fn settings_and_counts() {
    assert_eq!(
        classify("NCCL_MIN_NCHANNELS set by environment to 4."),
        Rec::Env { name: "NCCL_MIN_NCHANNELS", value: "4", source: "environment" }
    );
    assert_eq!(
        classify("NCCL_ALGO set by environment to Tree,Ring,,NVLS"),
        Rec::Env { name: "NCCL_ALGO", value: "Tree,Ring,,NVLS", source: "environment" }
    );
    assert_eq!(
        classify("NET/OFI Running on X, Setting NCCL_TOPO_FILE environment variable to /a/b.xml"),
        Rec::Env { name: "NCCL_TOPO_FILE", value: "/a/b.xml", source: "plugin" }
    );
    assert_eq!(
        classify("Comm config minCTAs reset to NCCL_MIN_CTAS=4"),
        Rec::Env { name: "NCCL_MIN_CTAS", value: "4", source: "config" }
    );
    assert_eq!(kind("RCCL_MSCCL_ENABLE set by environment to 0."), "Rccl");
    let Rec::Counts(c) =
        classify("4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 4 p2p channels per peer")
    else {
        panic!()
    };
    assert_eq!((c.coll, c.collnet, c.nvls, c.p2p, c.p2p_per_peer), (4, Some(4), Some(0), 4, 4));
    assert_eq!(
        classify("threadThresholds 8/8/64 | 16/8/64 | 512 | 512"),
        Rec::Thresholds(vec![vec![8, 8, 64], vec![16, 8, 64], vec![512], vec![512]])
    );
    assert_eq!(kind("Using network AWS Libfabric"), "UsingNetwork");
    assert_eq!(kind("NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>"), "NetUsing");
    let Rec::Gdr(g) = classify("NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eno1'") else { panic!() };
    assert_eq!((g.enabled, g.nic, g.nic_name), (false, "0", Some("eno1")));
    let Rec::Gdr(g) = classify("GPU Direct RDMA Enabled for GPU 7000 / HCA 0 (distance 4 <= 5), read 1") else {
        panic!()
    };
    assert_eq!(g.gpu, Some("7000"));
    let Rec::Affinity { mask, cpu, .. } =
        classify("ncclTopoGetCpuAffinity: Affinity for GPU 2 is 8-15. (GPU affinity = 8-15 ; CPU affinity = 8-15).")
    else {
        panic!()
    };
    assert_eq!((mask, cpu), ("8-15", Some("8-15")));
    assert_eq!(kind("Setting affinity for GPU 5 to ffffff00,0000ffff"), "Affinity");
    let Rec::Gdr(g) =
        classify("GPU Direct RDMA Enabled for GPU/0-7000 (rank 0) - NET/0-1 (distance 3 <= 4), read 1 mode Default")
    else {
        panic!()
    };
    assert_eq!((g.gpu, g.nic), (Some("GPU/0-7000"), "NET/0-1"));
    let Rec::Gdr(g) = classify("NET/IB : GPU Direct RDMA Disabled for GPU 7000 / HCA 0 (distance 4 >= 3)") else {
        panic!()
    };
    assert_eq!((g.enabled, g.gpu, g.nic), (false, Some("7000"), "0"));
    let Rec::Affinity { mask, cpu, .. } = classify(
        "ncclTopoGetCpuAffinity: Affinity for GPU 0 is empty, ignoring. (GPU affinity = 0-7 ; CPU affinity = 8-15).",
    ) else {
        panic!()
    };
    assert_eq!((mask, cpu), ("empty, ignoring", Some("8-15")));
    assert_eq!(kind("Connected all rings, use ring PXN 0 GDR 1"), "Connected");
    assert_eq!(kind("Connected all trees"), "Connected");
}

#[test]
fn tuning_tables() {
    assert_eq!(
        classify("Latency/AlgBw |    Tree/    LL |    Tree/ LL128 |"),
        Rec::Tuning(TuneLine::Pairs(vec![("Tree", "LL"), ("Tree", "LL128")]))
    );
    assert_eq!(
        classify("  Algorithm   |                   Tree                   |"),
        Rec::Tuning(TuneLine::Algos(vec!["Tree"]))
    );
    assert_eq!(
        classify("  Protocol    |             LL |          LL128 |         Simple |"),
        Rec::Tuning(TuneLine::Protos(vec!["LL", "LL128", "Simple"]))
    );
    assert_eq!(
        classify(" Max NThreads |            512 |            640 |            512 |"),
        Rec::Tuning(TuneLine::MaxThreads(vec![512, 640, 512]))
    );
    assert_eq!(
        classify("    AllReduce |    10.4/   1.2 |    12.0/   0.0 |"),
        Rec::Tuning(TuneLine::Row("AllReduce", vec![(10.4, 1.2), (12.0, 0.0)]))
    );
    // 2.5 rows have no space before `|`.
    assert_eq!(classify("    AllReduce |    4.4/  5.0|"), Rec::Tuning(TuneLine::Row("AllReduce", vec![(4.4, 5.0)])));
    assert_eq!(
        classify("ReduceScatter |    6.3/  9.1 |    0.0/  0.0 |"),
        Rec::Tuning(TuneLine::Row("ReduceScatter", vec![(6.3, 9.1), (0.0, 0.0)]))
    );
}

#[test]
fn known_unknown_and_rccl() {
    assert_eq!(kind("init.cc:1714 Cuda Host Alloc Size 4 pointer 0x7582"), "Known");
    assert_eq!(kind("Node Type: GPU, ID: 0000:3b:00.0"), "Unknown");
    assert_eq!(kind("RCCL version 2.6.4+hip3.5"), "Rccl");
    assert_eq!(kind("Kernel version: 5.15"), "Rccl");
    assert_eq!(kind(""), "Empty");
    assert_eq!(kind("   "), "Empty");
    assert_eq!(kind("P2P Chunksize set to 524288"), "Detail");
    assert_eq!(kind("P2P is disabled between connected GPUs 1 and 0. This should not be the case"), "Problem");
}
