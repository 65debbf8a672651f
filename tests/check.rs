//! `topo check`: every health check has a fake machine that triggers it.

use std::path::Path;

use topo::check::{self, Finding, Severity};
#[path = "support/fsgen.rs"]
mod fsgen;
use fsgen::{TreeOptions, tree_from_xml};
use topo::discover::{Options, Source, detect};
use topo::xml;

mod common;
use common::{fixtures, scratch};

fn findings(dir: &Path) -> Vec<Finding> {
    let (sys, src) = Source { root: Some(dir.to_path_buf()), nvml_fake: None }.open().unwrap();
    let det = detect(&sys, src.as_ref(), &Options::default()).unwrap();
    check::run_checks(&sys, &det)
}

fn has(f: &[Finding], check: &str, sev: Severity, text: &str) -> bool {
    f.iter().any(|x| x.check == check && x.severity == sev && x.message.contains(text))
}

/// `topo check --root DIR [EXTRA]` in process: (exit status, stdout).
fn check_cmd(name: &str, extra: &[&str]) -> (i32, Vec<u8>) {
    let root = fixtures().join(name);
    let argv = ["topo", "check", "--root", root.to_str().unwrap()].into_iter().chain(extra.iter().copied());
    let mut out = Vec::new();
    let code = topo::cli::run_args(argv, Default::default(), &mut out, &mut Vec::new()).unwrap();
    (code, out)
}

fn exit_code(name: &str) -> (i32, String) {
    let (code, out) = check_cmd(name, &[]);
    (code, String::from_utf8(out).unwrap())
}

#[test]
fn pcie_downtrain_acs_and_iommu_on_the_workstation() {
    let f = findings(&fixtures().join("ws-4gpu"));
    assert!(has(&f, "pcie-link", Severity::Error, "x8, both ends support x16"), "{f:#?}");
    assert!(has(&f, "pcie-link", Severity::Info, "power-saving downclock"), "{f:#?}");
    assert!(has(&f, "acs", Severity::Error, "ReqRedir"), "{f:#?}");
    assert!(has(&f, "iommu", Severity::Warning, "DMA-FQ"), "{f:#?}");
    let acs = f.iter().find(|x| x.check == "acs" && x.severity == Severity::Error).unwrap();
    assert!(acs.devices.contains(&"0000:61:00.0".to_string()) && acs.devices.contains(&"enp69s0f0".to_string()));
    assert!(!acs.why.is_empty() && !acs.fix.is_empty());
    let (code, text) = exit_code("ws-4gpu");
    assert_eq!(code, 1, "an error finding makes topo check exit 1");
    assert!(text.contains("why:") && text.contains("fix:"), "{text}");
}

#[test]
fn numa_gdr_and_p2p_in_the_vm() {
    let f = findings(&fixtures().join("vm-flat"));
    assert!(has(&f, "numa", Severity::Warning, "2 NUMA nodes"), "{f:#?}");
    assert!(has(&f, "gdr", Severity::Warning, "no nvidia_peermem"), "{f:#?}");
    assert!(has(&f, "p2p", Severity::Warning, "CNS"), "{f:#?}");
    assert_eq!(exit_code("vm-flat").0, 0, "warnings only");
}

#[test]
fn asymmetric_nvlinks_on_grace_hopper() {
    let f = findings(&fixtures().join("gh200"));
    assert!(has(&f, "nvlink", Severity::Warning, "fewer active NVLinks"), "{f:#?}");
    assert!(has(&f, "nvlink", Severity::Warning, "5 NVLinks from 0009:01:00.0 to 0039:01:00.0 but 6 back"), "{f:#?}");
    // GDR works there through DMA-BUF: no gdr finding.
    assert!(!f.iter().any(|x| x.check == "gdr"));
}

#[test]
fn healthy_server_has_notes_only() {
    let f = findings(&fixtures().join("dgx-h100"));
    // ACS present with Source Validation only, IOMMU in passthrough, peermem loaded.
    assert!(!f.iter().any(|x| x.severity != Severity::Info), "{f:#?}");
    assert!(has(&f, "pcie-link", Severity::Info, "2.5 GT/s"), "{f:#?}");
    assert_eq!(exit_code("dgx-h100").0, 0);
    // A machine without a GPU: said, as a warning, not "no problem found".
    let f = findings(&fixtures().join("cloud-vm"));
    assert_eq!(f.len(), 1, "{f:#?}");
    assert!(has(&f, "gpu", Severity::Warning, "no NVIDIA GPU found"), "{f:#?}");
    let (code, out) = exit_code("cloud-vm");
    assert_eq!(code, 0);
    assert!(out.contains("warning [gpu]") && !out.contains("no problem found"), "{out}");
}

#[test]
fn json_output_has_every_field() {
    let (code, out) = check_cmd("ws-4gpu", &["--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let f = v["findings"].as_array().unwrap();
    assert!(!f.is_empty());
    for x in f {
        for k in ["check", "severity", "devices", "message", "why", "fix"] {
            assert!(!x[k].is_null(), "{k} missing in {x}");
        }
    }
}

#[test]
fn acs_needs_root_to_be_read() {
    // The generated bridges expose 64 bytes of config space, as sysfs does for non-root.
    let f = findings(&fixtures().join("gh200"));
    assert!(has(&f, "acs", Severity::Info, "only 64 bytes"), "{f:#?}");
}

#[test]
fn iommu_without_group_types_falls_back_to_the_command_line() {
    let (x, _) = xml::parse(&std::fs::read_to_string(fixtures().join("ws-4gpu.xml")).unwrap(), None).unwrap();
    let mut t = tree_from_xml(&x, &TreeOptions::default()).unwrap();
    t.dir("/sys/class/iommu/dmar0");
    let d = scratch();
    t.write_to(d.path()).unwrap();
    let f = findings(d.path());
    assert!(has(&f, "iommu", Severity::Warning, "no iommu=pt"), "{f:#?}");
    let mut t2 =
        tree_from_xml(&x, &TreeOptions { cmdline: "ro intel_iommu=on iommu=pt".into(), ..Default::default() }).unwrap();
    t2.dir("/sys/class/iommu/dmar0");
    let d2 = scratch();
    t2.write_to(d2.path()).unwrap();
    assert!(!findings(d2.path()).iter().any(|x| x.check == "iommu"));
}

/// `topo check ARGS` in process: (exit status, stdout).
fn check_args(args: &[&str]) -> (i32, String) {
    let argv = ["topo", "check"].into_iter().chain(args.iter().copied());
    let mut out = Vec::new();
    let code = topo::cli::run_args(argv, Default::default(), &mut out, &mut Vec::new()).unwrap();
    (code, String::from_utf8(out).unwrap())
}

#[test]
fn a_healthy_fixture_as_a_dump() {
    for name in ["dgx-h100", "gh200", "gb200-nvl72-tray", "dgx1-v100", "workstation-4gpu"] {
        let (code, out) = check_args(&["--fixture", name]);
        assert_eq!(code, 0, "{name}: {out}");
        assert!(out.contains("no problem found"), "{name}: {out}");
    }
}

#[test]
fn what_a_dump_shows() {
    let x = topo::fixtures::get("dgx-h100").unwrap().load().unwrap().0;
    let root = x.root().unwrap();
    let mut x2 = x.clone();
    // GPU 0's link downtrained to x8 Gen4, one NVLink of GPU 1 gone, one port at half
    // speed, GDR off on another.
    let gpus = x2.descendants_named(root, "gpu");
    let pci0 = x2.ancestor_named(gpus[0], "pci").unwrap();
    x2.set_attr(pci0, "link_width", "8");
    x2.set_attr(pci0, "link_speed", "16.0 GT/s PCIe");
    let link = x2.children_named(gpus[1], "nvlink").next().unwrap();
    x2.remove(link);
    let nets = x2.descendants_named(root, "net");
    x2.set_attr(nets[0], "speed", "200000");
    x2.set_attr(nets[1], "gdr", "0");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sick.xml");
    std::fs::write(&file, xml::write(&x2)).unwrap();
    let f = check::check_dump(&x2);
    assert!(has(&f, "pcie-link", Severity::Warning, "x8 against x16"), "{f:#?}");
    assert!(has(&f, "pcie-link", Severity::Warning, "16.0 GT/s PCIe against 32.0 GT/s PCIe"), "{f:#?}");
    assert!(has(&f, "nvlink", Severity::Warning, "NVLinks against"), "{f:#?}");
    assert!(has(&f, "nic-speed", Severity::Warning, "slower than others"), "{f:#?}");
    assert!(has(&f, "gdr", Severity::Warning, "gdr=0"), "{f:#?}");
    let (code, out) = check_args(&["--topo", file.to_str().unwrap()]);
    assert_eq!(code, 0, "warnings only: {out}");
    assert!(out.contains("a dump") && out.contains("[pcie-link]") && !out.contains("no problem found"), "{out}");
    let (_, json) = check_args(&["--json", "--topo", file.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 4, "{json}");

    // GPUs on a socket with no NIC.
    let mut x3 = x.clone();
    for n in x3.descendants_named(root, "net") {
        let cpu = x3.ancestor_named(n, "cpu").unwrap();
        if x3.attr(cpu, "numaid") == Some("1") {
            let nic = x3.ancestor_named(n, "pci").unwrap();
            x3.remove(nic);
        }
    }
    assert!(has(&check::check_dump(&x3), "numa", Severity::Warning, "without a NIC on their CPU socket"));
}

#[test]
fn a_dump_without_gpus_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("nogpu.xml");
    std::fs::write(&file, "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"85\"/>\n</system>\n").unwrap();
    let (code, out) = check_args(&["--topo", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning [gpu] no GPU") && !out.contains("no problem found"), "{out}");
}

#[test]
fn every_shared_dump_can_be_checked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl");
    if !dir.is_dir() {
        common::skip("every_shared_dump_can_be_checked", &format!("{} is absent", dir.display()));
        return;
    }
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "xml") {
            continue;
        }
        let (code, out) = check_args(&["--topo", p.to_str().unwrap()]);
        assert!(code == 0 || code == 1, "{}: exit {code}", p.display());
        assert!(out.starts_with("topo check: "), "{}: {out}", p.display());
        n += 1;
    }
    assert!(n >= 30, "only {n} dumps");
}
