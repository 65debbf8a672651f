//! `topo diff` and `topo fleet` end to end: exit statuses, planted changes on the
//! built-in machines (made at test time), the real OCI H100 dumps when ../shared is
//! there, and a fleet with one planted outlier.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use topo::xml::{self, NodeId, Xml};

mod common;

fn topo() -> Command {
    let mut c = Command::cargo_bin("topo").unwrap();
    // The terminal's width and colour choice shape the text.
    c.env_remove("COLUMNS").env_remove("NO_COLOR");
    c
}

fn fixture(name: &str) -> Xml {
    topo::fixtures::get(name).unwrap().load().unwrap().0
}

fn find(x: &Xml, name: &str, key: &str, value: &str) -> NodeId {
    elements(x, name)
        .into_iter()
        .find(|&i| x.attr(i, key) == Some(value))
        .unwrap_or_else(|| panic!("no <{name} {key}=\"{value}\">"))
}

fn elements(x: &Xml, name: &str) -> Vec<NodeId> {
    x.preorder().into_iter().filter(|&i| x.name(i) == name).collect()
}

fn write(dir: &Path, name: &str, x: &Xml) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, xml::write(x)).unwrap();
    p
}

/// Write the reference and a variant edited by `plant`; run `topo diff` on them.
fn planted(plant: impl FnOnce(&mut Xml)) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    let a = fixture("dgx-h100");
    let mut b = a.clone();
    plant(&mut b);
    let pa = write(dir.path(), "a.xml", &a);
    let pb = write(dir.path(), "b.xml", &b);
    topo().arg("diff").arg(&pa).arg(&pb).assert()
}

#[test]
fn a_file_against_itself_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "a.xml", &fixture("dgx-h100"));
    topo().arg("diff").arg(&p).arg(&p).assert().code(0).stdout(predicate::str::contains("same topology"));
    topo()
        .args(["diff", "fixture:gh200", "fixture:gh200", "--json"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\"equal\": true"));
}

#[test]
fn unreadable_input_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "a.xml", &fixture("gh200"));
    let missing = dir.path().join("missing.xml");
    topo().arg("diff").arg(&good).arg(&missing).assert().code(2).stderr(predicate::str::contains("missing.xml"));
    let bad = dir.path().join("bad.xml");
    std::fs::write(&bad, "<system version=\"1\">\n  <cpu>\n").unwrap();
    topo().arg("diff").arg(&bad).arg(&good).assert().code(2).stderr(predicate::str::contains("bad.xml"));
    let v2 = dir.path().join("v2.xml");
    std::fs::write(&v2, "<system version=\"2\"/>\n").unwrap();
    topo().arg("diff").arg(&good).arg(&v2).assert().code(2).stderr(predicate::str::contains("version"));
    topo().args(["diff", "only-one.xml"]).assert().code(2);
}

#[test]
fn planted_nic_removed() {
    planted(|b| {
        let p = find(b, "pci", "busid", "0000:1b:00.0");
        b.remove(p);
    })
    .code(1)
    .stdout(predicate::str::contains(
        "errors:\n  NIC 0000:1b:00.0 (mlx5_0): removed (was under PCIe switch 0000:18:00.0, CPU 0)",
    ));
}

#[test]
fn planted_gpu_link_at_x8() {
    planted(|b| {
        let p = find(b, "pci", "busid", "0000:9a:00.0");
        b.set_attr(p, "link_width", "8");
    })
    .code(1)
    .stdout(predicate::str::contains("GPU 0000:9a:00.0 (dev 4): PCIe link narrower: x16 -> x8"))
    .stdout(predicate::str::contains("NCCL GPU->NET path: PHB 48.0 GB/s -> PHB 24.0 GB/s"));
}

#[test]
fn planted_nvlink_count_lowered() {
    planted(|b| {
        let g = find(b, "gpu", "dev", "5");
        let l = b.children_named(g, "nvlink").find(|&l| b.attr(l, "count") == Some("5")).unwrap();
        b.set_attr(l, "count", "2");
    })
    .code(1)
    .stdout(predicate::str::is_match(r"GPU 0000:9c:00\.0 \(dev 5\): fewer NVLinks: 18 -> 15 \(NVSwitch links 18 -> 15; to NVSwitch 0000:0[5-8]:00\.0: 5 -> 2\)").unwrap());
}

#[test]
fn planted_nic_speed_halved() {
    planted(|b| {
        let n = find(b, "net", "name", "mlx5_6");
        b.set_attr(n, "speed", "200000");
    })
    .code(1)
    .stdout(predicate::str::contains("NET mlx5_6 (NIC 0000:9b:00.0 port 1): port speed lower: 400 Gb/s -> 200 Gb/s"))
    .stdout(predicate::str::contains("NCCL GPU->NET path: PIX 48.0 GB/s -> PIX 25.0 GB/s"));
}

#[test]
fn planted_cpu_model_changed() {
    planted(|b| {
        let c = find(b, "cpu", "numaid", "0");
        b.set_attr(c, "modelid", "85");
    })
    .code(1)
    .stdout(predicate::str::contains(
        "CPU 0: CPU model changed (inter-CPU bandwidth may change): modelid \"143\" -> \"85\"",
    ));
}

#[test]
fn json_and_ignore() {
    let dir = tempfile::tempdir().unwrap();
    let a = fixture("dgx-h100");
    let mut b = a.clone();
    for c in elements(&b, "cpu") {
        b.set_attr(c, "host_hash", "0x42");
    }
    let n = find(&b, "net", "name", "mlx5_0");
    b.set_attr(n, "name", "ib0");
    let (pa, pb) = (write(dir.path(), "a.xml", &a), write(dir.path(), "b.xml", &b));
    let out = topo().arg("diff").arg(&pa).arg(&pb).arg("--json").assert().code(1).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["equal"], false);
    assert_eq!(v["counts"]["info"], 3);
    let changes = v["changes"].as_array().unwrap();
    let renamed = changes.iter().find(|c| c["attr"] == "name").unwrap();
    assert_eq!(renamed["kind"], "net");
    assert_eq!(renamed["busid"], "0000:1b:00.0");
    assert_eq!(renamed["before"], "mlx5_0");
    assert_eq!(renamed["after"], "ib0");
    topo()
        .arg("diff")
        .arg(&pa)
        .arg(&pb)
        .args(["--ignore", "host_hash,name"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("3 differences hidden"));
}

fn shared_nccl(test: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl");
    if p.is_dir() {
        Some(p)
    } else {
        common::skip(test, &format!("{} is absent", p.display()));
        None
    }
}

#[test]
fn oci_h100_against_its_k8s_dump() {
    let Some(dir) = shared_nccl("oci_h100_against_its_k8s_dump") else { return };
    topo()
        .arg("diff")
        .arg(dir.join("oci-h100.xml"))
        .arg(dir.join("oci-h100-k8s.xml"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("NET mlx5_0 (NIC 0000:0c:00.0 port 1): renamed: \"mlx5_0\" -> \"mlx5_18\""))
        .stdout(predicate::str::contains("16 devices: port speed higher: 180 Gb/s -> 200 Gb/s"))
        .stdout(predicate::str::contains("NCCL GPU->NET path: PIX 45.0 GB/s -> PIX 48.0 GB/s"));
    // The other way round, the slower ports are warnings.
    topo()
        .arg("diff")
        .arg(dir.join("oci-h100-k8s.xml"))
        .arg(dir.join("oci-h100.xml"))
        .args(["--ignore", "name"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("16 devices: port speed lower: 200 Gb/s -> 180 Gb/s"));
}

/// Nine dumps of one machine (different hosts), the seventh with `plant` applied.
fn nine(dir: &Path, plant: impl FnOnce(&mut Xml)) {
    let base = fixture("dgx-h100");
    let mut plant = Some(plant);
    for i in 0..9 {
        let mut x = base.clone();
        for (k, c) in elements(&x, "cpu").into_iter().enumerate() {
            x.set_attr(c, "host_hash", format!("{:#x}", 0x1000 + i * 16 + k));
        }
        for n in elements(&x, "net") {
            let guid = x.attr(n, "guid").unwrap().to_string();
            x.set_attr(n, "guid", format!("{guid}{i}"));
        }
        if i == 6 {
            (plant.take().unwrap())(&mut x);
        }
        write(dir, &format!("node{i:02}.xml"), &x);
    }
}

#[test]
fn fleet_names_the_planted_outlier() {
    let dir = tempfile::tempdir().unwrap();
    nine(dir.path(), |x| {
        let p = find(x, "pci", "busid", "0000:c2:00.0");
        x.set_attr(p, "link_speed", "16.0 GT/s PCIe");
    });
    topo()
        .arg("fleet")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("9 dumps, 2 groups"))
        .stdout(predicate::str::contains("reference: 8 dumps"))
        .stdout(predicate::str::is_match(r"outlier 1 of 1: 1 dump \(signature [0-9a-f]{16}\): \S*node06\.xml").unwrap())
        .stdout(predicate::str::contains(
            "GPU 0000:c2:00.0 (dev 6): PCIe link downgraded: \"32.0 GT/s PCIe\" -> \"16.0 GT/s PCIe\"",
        ))
        .stdout(predicate::str::contains(
            "predicted ring bandwidth 336.0 GB/s against 384.0 GB/s for the reference (-12%)",
        ));
    let out = topo().arg("fleet").arg(dir.path()).arg("--json").assert().code(1).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["reference"]["files"].as_array().unwrap().len(), 8);
    let o = &v["outliers"][0];
    assert!(o["files"][0].as_str().unwrap().ends_with("node06.xml"));
    // The search's ring graph: one channel fewer (7 x 48 against 8 x 48 GB/s).
    assert_eq!(o["ring"]["source"], "search");
    assert_eq!(o["ring_ratio"], 0.875);
}

#[test]
fn fleet_of_alike_dumps_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    nine(dir.path(), |_| {});
    topo().arg("fleet").arg(dir.path()).assert().code(0).stdout(predicate::str::contains("9 dumps: all alike"));
}

#[test]
fn fleet_bad_dump_exits_2_unless_skipped() {
    let dir = tempfile::tempdir().unwrap();
    nine(dir.path(), |_| {});
    std::fs::write(dir.path().join("broken.xml"), "<system version=\"1\">\n  <cpu numaid=\"0\">\n").unwrap();
    topo().arg("fleet").arg(dir.path()).assert().code(2).stderr(predicate::str::contains("broken.xml"));
    topo()
        .arg("fleet")
        .arg(dir.path())
        .arg("--skip-bad")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("skipped 1 dump that could not be read"))
        .stdout(predicate::str::contains("broken.xml"));
    let empty = tempfile::tempdir().unwrap();
    topo().arg("fleet").arg(empty.path()).assert().code(2).stderr(predicate::str::contains("no *.xml"));
}

#[test]
fn fleet_with_a_given_reference() {
    let dir = tempfile::tempdir().unwrap();
    nine(dir.path(), |x| {
        let n = find(x, "net", "name", "mlx5_1");
        x.set_attr(n, "gdr", "0");
    });
    // Against the odd one, the eight others are the outliers.
    topo()
        .arg("fleet")
        .arg(dir.path())
        .arg("--reference")
        .arg(dir.path().join("node06.xml"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("outlier 1 of 1: 8 dumps"))
        .stdout(predicate::str::contains("gdr \"0\" -> \"1\""));
}

#[test]
fn the_exit_status_survives_a_closed_stdout() {
    // `>&-` closes standard output: writing fails with EBADF, and the result still
    // decides the exit status (1: the machines differ).
    let bin = assert_cmd::cargo::cargo_bin("topo");
    let st = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' diff fixture:dgx-h100 fixture:gh200 >&- 2>/dev/null", bin.display()))
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(1));
    // And a reader that goes away before topo writes (a broken pipe) is no error either.
    let mut child = std::process::Command::new(&bin)
        .args(["diff", "fixture:dgx-h100", "fixture:gh200"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

/// The longest run of digits after a decimal point in `text`, and the line it is in.
fn longest_fraction(text: &str) -> (usize, String) {
    let mut best = (0, String::new());
    for line in text.lines() {
        let b = line.as_bytes();
        for i in 1..b.len() {
            if b[i] == b'.' && b[i - 1].is_ascii_digit() {
                let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if n > best.0 {
                    best = (n, line.to_string());
                }
            }
        }
    }
    best
}

#[test]
fn fleet_of_the_shared_dumps_prints_rounded_numbers() {
    let Some(dir) = shared_nccl("fleet_of_the_shared_dumps_prints_rounded_numbers") else { return };
    let out = topo().arg("fleet").arg(&dir).output().unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("ring graph:"), "{text}");
    let (digits, line) = longest_fraction(&text);
    assert!(digits < 7, "a number with {digits} decimals: {line}");
}

/// Nodes are listed in natural order: n1, n2, n10, n100 (not n1, n10, n100, n2).
#[test]
fn fleet_lists_nodes_in_natural_order() {
    let dir = tempfile::tempdir().unwrap();
    let base = fixture("dgx-h100");
    for n in [100, 10, 2, 1] {
        write(dir.path(), &format!("n{n}.xml"), &base);
    }
    let out = topo().arg("fleet").arg(dir.path()).assert().code(0).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let names: Vec<&str> =
        text.split([' ', ',', '\n']).filter_map(|w| w.rsplit('/').next()?.strip_suffix(".xml")).collect();
    assert_eq!(names[..4], ["n1", "n2", "n10", "n100"], "{text}");
}

/// A one-line-per-node table: node, GPUs, NICs, group and what differs, in node order.
#[test]
fn fleet_prints_one_line_per_node() {
    let dir = tempfile::tempdir().unwrap();
    nine(dir.path(), |x| {
        let p = find(x, "pci", "busid", "0000:c2:00.0");
        x.set_attr(p, "link_speed", "16.0 GT/s PCIe");
    });
    let out = topo().arg("fleet").arg(dir.path()).assert().code(1).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1].split_whitespace().collect::<Vec<_>>(), ["NODE", "GPUS", "NICS", "GROUP", "WHAT", "DIFFERS"]);
    assert_eq!(lines[2].split_whitespace().collect::<Vec<_>>(), ["node00", "8", "12", "reference", "-"], "{text}");
    let six = lines.iter().find(|l| l.trim_start().starts_with("node06")).unwrap();
    assert!(
        six.contains(" outlier 1  ring 336.0 GB/s (-12%); GPU 0000:c2:00.0 (dev 6): PCIe link downgraded"),
        "{six}"
    );
    assert_eq!(lines.iter().filter(|l| l.trim_start().starts_with("node")).count(), 9);
    let v: serde_json::Value =
        serde_json::from_slice(&topo().arg("fleet").arg("--json").arg(dir.path()).assert().code(1).get_output().stdout)
            .unwrap();
    assert_eq!(v["nodes"][6]["group"], "outlier 1");
    assert_eq!(v["nodes"][6]["gpus"], 8);
}

#[test]
fn fleet_of_rack_trays_says_whether_they_can_form_one_clique() {
    let dir = tempfile::tempdir().unwrap();
    let tray = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/topologies/gb200-nvl72-tray.xml"),
    )
    .unwrap();
    for i in 1..=3 {
        std::fs::write(dir.path().join(format!("tray{i}.xml")), &tray).unwrap();
    }
    topo()
        .arg("fleet")
        .arg(dir.path())
        .assert()
        .code(0)
        .stdout(predicate::str::contains("NVL rack: all 3 dumps are trays with every GPU on the NVLink fabric"))
        .stdout(predicate::str::contains("--nodes 3 --mnnvl"));
    // One tray's GPU without its NVSwitch links: off the fabric, named.
    let off = tray.replacen("tclass=\"0x068000\"", "tclass=\"0x030200\"", 1);
    std::fs::write(dir.path().join("tray3.xml"), off).unwrap();
    topo().arg("fleet").arg(dir.path()).assert().code(1).stdout(predicate::str::contains(
        "NVL rack: 2 of 3 dumps are trays on the NVLink fabric; off it: tray3.xml (GPU 0008:01:00.0: no NVLink to an NVSwitch)",
    ));
    let out = topo().arg("fleet").arg(dir.path()).arg("--json").assert().code(1).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["rack"]["trays"].as_array().unwrap().len(), 2);
    assert_eq!(v["rack"]["off_fabric"][0]["gpus"], serde_json::json!(["0008:01:00.0"]));
    // A fleet of other machines says nothing of racks.
    let boxes = tempfile::tempdir().unwrap();
    nine(boxes.path(), |_| {});
    let out = topo().arg("fleet").arg(boxes.path()).arg("--json").assert().code(0).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(v["rack"].is_null());
}

#[test]
fn diff_of_two_trays_names_a_gpu_off_the_fabric() {
    let dir = tempfile::tempdir().unwrap();
    let a = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/topologies/gb200-nvl72-tray.xml");
    let off = std::fs::read_to_string(&a).unwrap().replacen("tclass=\"0x068000\"", "tclass=\"0x030200\"", 1);
    let b = dir.path().join("tray7.xml");
    std::fs::write(&b, off).unwrap();
    topo().arg("diff").arg(&a).arg(&b).assert().stdout(predicate::str::contains(
        "NCCL multi-node NVLink: a tray with every GPU on the NVLink fabric -> GPUs off the NVLink fabric \
         (0008:01:00.0: no NVLink to an NVSwitch)",
    ));
    // Two alike trays: nothing about the fabric.
    topo().arg("diff").arg(&a).arg(&a).assert().stdout(predicate::str::contains("multi-node NVLink").not());
}
