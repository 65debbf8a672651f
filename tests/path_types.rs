//! Path types and bandwidths of the model (paths.cc's rules) on machines of the project
//! itself, so that `cargo test` guards them without `../shared`:
//! - `fixtures/pcie/cascaded-switches.xml`: PCIe switches two levels deep, where a hop
//!   from one switch to another makes a path PXB, and Broadcom's two-level switches,
//!   which NCCL folds into one (so the same hops are PIX);
//! - every built-in machine: the type and bandwidth of every GPU-GPU and GPU-NET path,
//!   counted by kind.

use std::collections::BTreeMap;
use std::fmt::Write;

use topo::model::{self, Analysis, GdrMode, Transport};

fn analyze(xml: &str, vars: &[(&str, &str)]) -> Analysis {
    let (x, _) = topo::xml::parse(xml, None).expect("the topology reads");
    let release = topo::release::Release::parse("2.30.7").unwrap();
    let env = topo::env::Env::for_release(release, vars.iter().map(|&(k, v)| (k, v)));
    topo::model::analyze(&x, "test", &model::Options { env, ..model::Options::default() }).expect("the model runs")
}

fn cascaded() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pcie/cascaded-switches.xml");
    std::fs::read_to_string(path).unwrap()
}

/// The same machine with Broadcom Gen4 switches (PEX88000, `1000:c010`, subsystem
/// `1000:a0xx`): NCCL folds the second level into the first (ncclTopoFlattenBcmSwitches).
fn cascaded_broadcom() -> String {
    let plx = r#"vendor="0x10b5" device="0x8796" subsystem_vendor="0x10b5" subsystem_device="0x8796""#;
    let bcm = r#"vendor="0x1000" device="0xc010" subsystem_vendor="0x1000" subsystem_device="0xa064""#;
    let text = cascaded();
    assert_eq!(text.matches(plx).count(), 3);
    text.replace(plx, bcm)
}

/// Every path from a GPU as `TYPE bw` per column (GPUs by rank, then NETs), a row per
/// GPU, as `topo paths` prints them.
fn matrix(an: &Analysis) -> String {
    let mut rows: BTreeMap<i32, BTreeMap<(u8, i32), String>> = BTreeMap::new();
    for p in &an.paths.gpu_gpu {
        let cell = format!("{} {:.1}", p.ty.name(), p.bw);
        rows.entry(p.from.unwrap()).or_default().insert((0, p.to.unwrap()), cell);
    }
    for p in &an.paths.gpu_net {
        let cell = format!("{} {:.1}", p.ty.name(), p.bw);
        rows.entry(p.rank.unwrap()).or_default().insert((1, p.net.unwrap()), cell);
    }
    let mut out = String::new();
    for (rank, cells) in rows {
        let cells: Vec<String> = cells
            .into_iter()
            .map(|((kind, to), c)| if kind == 0 && to == rank { "X".to_string() } else { c })
            .collect();
        let _ = writeln!(out, "GPU{rank}: {}", cells.join(" | "));
    }
    out
}

/// The GPU pairs that use P2P, and the ranks whose NET reads with GPUDirect RDMA.
fn p2p_and_gdr(an: &Analysis) -> (Vec<(i32, i32)>, Vec<i32>) {
    let p2p = an.p2p.iter().filter(|p| p.from < p.to && p.transport == Transport::P2p).map(|p| (p.from, p.to));
    let gdr = an.gdr.iter().filter(|g| g.recv != GdrMode::Disabled).map(|g| g.rank);
    (p2p.collect(), gdr.collect())
}

fn assert_text(what: &str, got: &str, want: &str) {
    assert_eq!(got, want, "{what}: got\n{got}\nwant\n{want}");
}

/// GPUs 0 and 1 and the NIC under one switch, GPUs 2 and 3 under a second switch (with
/// a Gen3 x16 uplink, 12 GB/s), both switches below a top switch on the CPU, GPU 4 on a
/// root port. A GPU-to-GPU or GPU-to-NIC hop through the top switch goes from one PCI
/// switch to another: PXB, at the narrowest link's bandwidth; within one switch PIX.
#[test]
fn cascaded_switches_make_pxb_paths() {
    let an = analyze(&cascaded(), &[]);
    assert_text(
        "cascaded switches",
        &matrix(&an),
        "\
GPU0: X | PIX 24.0 | PXB 12.0 | PXB 12.0 | PHB 24.0 | PIX 12.5
GPU1: PIX 24.0 | X | PXB 12.0 | PXB 12.0 | PHB 24.0 | PIX 12.5
GPU2: PXB 12.0 | PXB 12.0 | X | PIX 24.0 | PHB 12.0 | PXB 12.0
GPU3: PXB 12.0 | PXB 12.0 | PIX 24.0 | X | PHB 12.0 | PXB 12.0
GPU4: PHB 24.0 | PHB 24.0 | PHB 12.0 | PHB 12.0 | X | PHB 12.5
",
    );
    // The NET's own view back to the GPUs.
    let back: Vec<String> = an.paths.net_gpu.iter().map(|p| format!("{} {:.1}", p.ty.name(), p.bw)).collect();
    assert_eq!(back, ["PIX 12.5", "PIX 12.5", "PXB 12.0", "PXB 12.0", "PHB 12.5"]);
    // Intel CPU, 2.30.7: P2P up to PXB, so across the two lower switches but not
    // through the CPU (SHM to GPU 4); GPUDirect RDMA for every GPU below the top switch.
    let (p2p, gdr) = p2p_and_gdr(&an);
    assert_eq!(p2p, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
    assert_eq!(gdr, [0, 1, 2, 3]);
}

/// NCCL_P2P_LEVEL=PIX and NCCL_NET_GDR_LEVEL=PIX: the PXB paths lose P2P and GDR, the
/// PIX ones keep them.
#[test]
fn pix_levels_stop_at_the_second_switch() {
    let an = analyze(&cascaded(), &[("NCCL_P2P_LEVEL", "PIX"), ("NCCL_NET_GDR_LEVEL", "PIX")]);
    let (p2p, gdr) = p2p_and_gdr(&an);
    assert_eq!(p2p, [(0, 1), (2, 3)]);
    assert_eq!(gdr, [0, 1]);
}

/// Broadcom's second level is folded into the first: one switch, every path below it
/// PIX, each GPU at its own link's bandwidth.
#[test]
fn broadcom_switches_fold_into_one() {
    let an = analyze(&cascaded_broadcom(), &[]);
    assert_text(
        "Broadcom cascade",
        &matrix(&an),
        "\
GPU0: X | PIX 24.0 | PIX 24.0 | PIX 24.0 | PHB 24.0 | PIX 12.5
GPU1: PIX 24.0 | X | PIX 24.0 | PIX 24.0 | PHB 24.0 | PIX 12.5
GPU2: PIX 24.0 | PIX 24.0 | X | PIX 24.0 | PHB 24.0 | PIX 12.5
GPU3: PIX 24.0 | PIX 24.0 | PIX 24.0 | X | PHB 24.0 | PIX 12.5
GPU4: PHB 24.0 | PHB 24.0 | PHB 24.0 | PHB 24.0 | X | PHB 12.5
",
    );
}

/// Paths of one kind counted by type and bandwidth: `GPU-GPU NVL 370.8 x56`.
fn census(an: &Analysis) -> Vec<String> {
    let mut n: BTreeMap<String, usize> = BTreeMap::new();
    for p in an.paths.gpu_gpu.iter().filter(|p| p.from != p.to) {
        *n.entry(format!("GPU-GPU {} {:.1}", p.ty.name(), p.bw)).or_default() += 1;
    }
    for p in &an.paths.gpu_net {
        *n.entry(format!("GPU-NET {} {:.1}", p.ty.name(), p.bw)).or_default() += 1;
    }
    n.into_iter().map(|(k, v)| format!("{k} x{v}")).collect()
}

/// The built-in machines, alone and as one of two nodes (where NICs join the paths).
#[test]
fn built_in_machines_path_census() {
    let want: &[(&str, &[&str])] = &[
        // 18 NVLinks of 20.6 GB/s to NVSwitch; 10 NETs (the two dual-port storage NICs
        // fused): the two compute NICs of a GPU's switch, the storage NIC of its socket
        // (Gen5 x16, 48 GB/s) or of the other one (Sapphire Rapids UPI, 22 GB/s), the
        // other compute NICs through a GPU of their switch (PXN).
        (
            "dgx-h100",
            &[
                "GPU-GPU NVL 370.8 x56",
                "GPU-NET PHB 48.0 x8",
                "GPU-NET PIX 48.0 x16",
                "GPU-NET PXN 48.0 x48",
                "GPU-NET SYS 22.0 x8",
            ],
        ),
        // The hybrid cube-mesh: one or two NVLinks of 20 GB/s, or one hop through a
        // third GPU (NVB); Gen3 switches (12 GB/s), Broadwell QPI (6 GB/s).
        (
            "dgx1-v100",
            &[
                "GPU-GPU NVB 20.0 x16",
                "GPU-GPU NVB 40.0 x8",
                "GPU-GPU NVL 20.0 x16",
                "GPU-GPU NVL 40.0 x16",
                "GPU-NET PIX 12.0 x8",
                "GPU-NET PXN 12.0 x12",
                "GPU-NET SYS 6.0 x12",
            ],
        ),
        // 18 NVLinks of 40.1 GB/s; NICs on the Grace over C2C then PCIe (P2C).
        ("gb200-nvl72-tray", &["GPU-GPU NVL 721.8 x12", "GPU-NET P2C 48.0 x8", "GPU-NET PXN 48.0 x8"]),
        ("gh200", &["GPU-NET P2C 48.0 x2"]),
        // Every GPU on its own root port (Gen4 x16, 24 GB/s), the 100 GbE NIC too.
        ("workstation-4gpu", &["GPU-GPU PHB 24.0 x12", "GPU-NET PHB 12.5 x4"]),
    ];
    let mut bad = Vec::new();
    for &(name, expected) in want {
        let fixture = topo::fixtures::get(name).unwrap();
        let an = analyze(fixture.xml, &[]);
        let got = census(&an);
        if got != expected {
            bad.push(format!("{name}: got\n  {}\nwant\n  {}", got.join("\n  "), expected.join("\n  ")));
        }
    }
    assert!(topo::fixtures::all().len() == want.len(), "a built-in machine without its census");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
