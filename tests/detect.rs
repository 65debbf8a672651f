//! `topo detect` on the fake machines of fixtures/fsroot, generated trees, seeds and the
//! live machine.

use std::path::Path;

#[path = "support/fsgen.rs"]
mod fsgen;
use fsgen::{FakeTree, TreeOptions, tree_from_xml};
use topo::discover::net::NetKind;
use topo::discover::sysfs::Sys;
use topo::discover::{Detection, Options, Source, detect, nvml};
use topo::xml::{self, Xml};

mod common;
use common::{fixtures, scratch};

const NAMES: &[&str] = &["dgx-h100", "ws-4gpu", "vm-flat", "gh200", "cloud-vm"];

fn expected(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(format!("{name}.xml"))).unwrap()
}

fn detect_at(dir: &Path, opts: &Options) -> Detection {
    let (sys, src) = Source { root: Some(dir.to_path_buf()), nvml_fake: None }.open().unwrap();
    detect(&sys, src.as_ref(), opts).unwrap()
}

fn write_tree(t: &FakeTree) -> tempfile::TempDir {
    let d = scratch();
    t.write_to(d.path()).unwrap();
    d
}

fn tree_of(name: &str) -> FakeTree {
    let (x, _) = xml::parse(&expected(name), None).unwrap();
    tree_from_xml(&x, &TreeOptions { hostname: name.to_string(), ..Default::default() }).unwrap()
}

#[test]
fn each_fixture_tree_gives_its_topology() {
    for name in NAMES {
        let det = detect_at(&fixtures().join(name), &Options::default());
        assert_eq!(xml::write(&det.xml), expected(name), "fixtures/fsroot/{name}");
    }
}

#[test]
fn generated_trees_give_the_topology_back() {
    // detect(tree(x)) == x for every fixture topology (host name and boot id as stamped).
    for name in NAMES {
        let d = write_tree(&tree_of(name));
        let det = detect_at(d.path(), &Options::default());
        assert_eq!(xml::write(&det.xml), expected(name), "tree({name})");
    }
}

#[test]
fn fixture_topologies_load_in_nccl() {
    for name in NAMES {
        let (x, diags) = xml::parse(&expected(name), None).unwrap();
        assert!(diags.is_empty(), "{name}: {diags:?}");
        let lint = xml::lint_topology(&x, None, Default::default()).unwrap();
        // The VM's NIC sits on a bridge without a PCIe link: NCCL reads "" as Gen3.
        let real: Vec<_> = lint
            .iter()
            .filter(|d| !d.message.contains("link_speed \"\"") && !d.message.contains("link_width=\"0\""))
            .collect();
        assert!(real.is_empty(), "{name}: {real:?}");
        assert!(x.live_count() <= xml::NCCL_MAX_NODES);
    }
}

#[test]
fn fake_nvml_gpu_sources() {
    let dgx = detect_at(&fixtures().join("dgx-h100"), &Options::default());
    let x = &dgx.xml;
    let gpus: Vec<_> = x.preorder().into_iter().filter(|&n| x.name(n) == "gpu").collect();
    assert_eq!(gpus.len(), 8);
    for (i, &g) in gpus.iter().enumerate() {
        // NVML index order gives the ranks; sm from the compute capability.
        assert_eq!(x.attr(g, "sm"), Some("90"));
        let links: Vec<_> = x.children_named(g, "nvlink").collect();
        // 18 links on the 4 NVSwitches: 5 to two of them, 4 to the other two.
        let mut counts: Vec<&str> = links.iter().map(|&l| x.attr(l, "count").unwrap()).collect();
        counts.sort();
        assert_eq!(counts, ["4", "4", "5", "5"], "gpu {i}");
        // tclass read from the NVSwitch's sysfs class.
        assert!(links.iter().all(|&l| x.attr(l, "tclass") == Some("0x068000")));
    }
    assert_eq!(dgx.nvswitches.len(), 4);
    assert!(dgx.peermem && !dgx.dmabuf);

    // C2C links, GPU-to-GPU NVLink classes, a link down, GDR through DMA-BUF.
    let gh = detect_at(&fixtures().join("gh200"), &Options::default());
    let x = &gh.xml;
    let c2c: Vec<_> = x.preorder().into_iter().filter(|&n| x.name(n) == "c2c").collect();
    assert_eq!(c2c.len(), 4);
    assert!(c2c.iter().all(|&c| x.attr(c, "bw") == Some("45000") && x.attr(c, "count") == Some("10")));
    let tclasses: Vec<&str> =
        x.preorder().into_iter().filter(|&n| x.name(n) == "nvlink").map(|n| x.attr(n, "tclass").unwrap()).collect();
    assert!(tclasses.iter().all(|&t| t == "0x030200"));
    assert!(!gh.peermem && gh.dmabuf);
    assert!(gh.nets.iter().all(|n| n.gdr));

    // Hidden NVSwitch (VM), P2P matrix, no GDR at all.
    let vm = detect_at(&fixtures().join("vm-flat"), &Options::default());
    let x = &vm.xml;
    let targets: Vec<&str> =
        x.preorder().into_iter().filter(|&n| x.name(n) == "nvlink").map(|n| x.attr(n, "target").unwrap()).collect();
    assert_eq!(targets, ["fffffff:ffff:ff", "fffffff:ffff:ff"]);
    let p2p = vm.nvml.as_ref().unwrap().p2p.read.as_ref().unwrap();
    assert_eq!(p2p[0][1], "CNS");
    assert!(vm.nets.iter().all(|n| !n.gdr));
}

/// The fake DGX H100 tree and the built-in `dgx-h100` are one machine: `topo diff`
/// between the built-in and what detection reads from the tree finds no difference at
/// all (exit 0), modelled as one node and as two.
#[test]
fn dgx_tree_is_the_builtin_dgx_h100() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("detected.xml");
    let det = detect_at(&fixtures().join("dgx-h100"), &Options::default());
    std::fs::write(&f, xml::write(&det.xml)).unwrap();
    for nodes in ["1", "2"] {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let argv = ["topo", "diff", "fixture:dgx-h100", f.to_str().unwrap(), "--nodes", nodes];
        let code = topo::cli::run_args(argv, Default::default(), &mut out, &mut err).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(code, 0, "--nodes {nodes}:\n{text}{}", String::from_utf8_lossy(&err));
        assert!(text.contains("same topology"), "{text}");
    }
}

#[test]
fn nvlinks_beyond_what_nccl_probes_are_ignored() {
    // A Volta (sm70) GPU: NCCL looks at links 0..5 only.
    let text = "<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"f\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"85\">\n    <pci busid=\"0000:17:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x1db5\" subsystem_vendor=\"0x10de\" subsystem_device=\"0x1249\" link_speed=\"8.0 GT/s PCIe\" link_width=\"16\">\n      <gpu dev=\"0\" sm=\"70\" rank=\"0\" gdr=\"1\" mlopart=\"-1\"/>\n    </pci>\n  </cpu>\n</system>\n";
    let (x, _) = xml::parse(text, None).unwrap();
    let mut t = tree_from_xml(&x, &TreeOptions::default()).unwrap();
    let g = &mut t.nvml.as_mut().unwrap().gpus[0];
    for l in 0..8 {
        let active = l != 1;
        let p2p = l != 2;
        g.nvlinks.push(nvml::NvLinkFacts { link: l, p2p, active, remote: Some("0000:18:00.0".into()) });
    }
    let d = write_tree(&t);
    let det = detect_at(d.path(), &Options::default());
    let x = &det.xml;
    let l = x.preorder().into_iter().find(|&n| x.name(n) == "nvlink").unwrap();
    // Links 0, 3, 4, 5 count: 1 is down, 2 cannot do P2P, 6 and 7 are beyond sm70's six.
    assert_eq!(x.attr(l, "count"), Some("4"));
    // The remote is not in sysfs: NCCL assumes an NVSwitch.
    assert_eq!(x.attr(l, "tclass"), Some("0x068000"));
}

#[test]
fn nic_sources() {
    // IB and RoCE: active ports only, rate, GUID, dual-port numbering, PCI order.
    let dgx = detect_at(&fixtures().join("dgx-h100"), &Options::default());
    let names: Vec<&str> = dgx.nets.iter().map(|n| n.name.as_str()).collect();
    let all: Vec<String> = (0..12).map(|i| format!("mlx5_{i}")).collect();
    assert_eq!(names, all);
    assert!(dgx.nets.iter().all(|n| n.kind == NetKind::Ib && n.speed == 400000));
    // The 8 compute NICs have one port; the storage NIC mlx5_2+mlx5_3 has two.
    assert_eq!((dgx.nets[0].port, dgx.nets[2].port, dgx.nets[3].port), (1, 1, 2));
    assert_ne!(dgx.nets[0].guid, dgx.nets[1].guid);
    assert_eq!(dgx.nets[2].guid, dgx.nets[3].guid);
    assert_eq!(dgx.nets[2].guid, 0x5ce2550003c288a0);
    assert_eq!(dgx.idle_ports.len(), 1, "mlx5_12's port is down");
    assert!(dgx.notices.iter().any(|n| n.message.contains("mlx5_12 port 1 not used")));
    // Sockets: only without IB; virtual interfaces skipped; speed -1 read as 10000.
    let cloud = detect_at(&fixtures().join("cloud-vm"), &Options::default());
    assert_eq!(cloud.nets.len(), 1);
    assert_eq!((cloud.nets[0].name.as_str(), cloud.nets[0].speed), ("eth0", 10000));
    assert!(cloud.notices.iter().any(|n| n.message.contains("not a PCI device (virtio)")));
    let ws = detect_at(&fixtures().join("ws-4gpu"), &Options::default());
    let names: Vec<&str> = ws.nets.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["enp69s0f0"], "lo and docker0 are virtual");
    assert_eq!(ws.nets[0].kind, NetKind::Socket);
}

#[test]
fn ib_interfaces_are_preferred_by_the_socket_plugin() {
    let text = "<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"f\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"85\">\n    <pci busid=\"0000:17:00.0\" class=\"0x020000\" vendor=\"0x8086\" device=\"0x1572\" subsystem_vendor=\"0x8086\" subsystem_device=\"0x0000\" link_speed=\"8.0 GT/s PCIe\" link_width=\"8\">\n      <nic>\n        <net name=\"eth0\" dev=\"0\" latency=\"0\" speed=\"25000\" port=\"0\" guid=\"0x0\" maxconn=\"65536\" gdr=\"0\" net=\"1\"/>\n      </nic>\n    </pci>\n    <pci busid=\"0000:27:00.0\" class=\"0x020700\" vendor=\"0x15b3\" device=\"0x101b\" subsystem_vendor=\"0x15b3\" subsystem_device=\"0x0007\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n      <nic>\n        <net name=\"ib0\" dev=\"1\" latency=\"0\" speed=\"100000\" port=\"0\" guid=\"0x1\" maxconn=\"65536\" gdr=\"0\" net=\"1\"/>\n      </nic>\n    </pci>\n  </cpu>\n</system>\n";
    let (x, _) = xml::parse(text, None).unwrap();
    let d = write_tree(&tree_from_xml(&x, &TreeOptions::default()).unwrap());
    let det = detect_at(d.path(), &Options::default());
    let names: Vec<&str> = det.nets.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["ib0"]);
}

#[test]
fn without_nvml_pci_facts_are_still_written() {
    let mut t = tree_of("dgx-h100");
    t.nvml = None;
    let d = write_tree(&t);
    let det = detect_at(d.path(), &Options::default());
    let x = &det.xml;
    let nvml_notes = det.notices.iter().filter(|n| n.message.contains("no NVML")).count();
    assert_eq!(nvml_notes, 1, "{:?}", det.notices);
    let gpu_pci =
        x.preorder().into_iter().filter(|&n| x.name(n) == "pci" && x.attr(n, "class") == Some("0x030200")).count();
    assert_eq!(gpu_pci, 8);
    assert!(x.find_tag("gpu").is_none());
    assert_eq!(det.gpus_without_nvml.len(), 8);
    assert_eq!(det.nets.len(), 12);
}

#[test]
fn all_keeps_every_pci_device() {
    let det = detect_at(&fixtures().join("cloud-vm"), &Options { all: true, ..Default::default() });
    let x = &det.xml;
    let busids: Vec<&str> =
        x.preorder().into_iter().filter(|&n| x.name(n) == "pci").filter_map(|n| x.attr(n, "busid")).collect();
    assert_eq!(
        busids,
        ["0000:00:00.0", "0000:00:01.0", "0000:00:02.0", "0000:00:03.0", "0000:00:04.0", "0000:00:05.0"]
    );
    let dgx = detect_at(&fixtures().join("dgx-h100"), &Options { all: true, ..Default::default() });
    let x = &dgx.xml;
    for b in ["0000:09:00.0", "0000:1e:00.0", "0000:51:00.0"] {
        assert!(x.preorder().into_iter().any(|n| x.attr(n, "busid") == Some(b)), "{b}");
    }
    // Without --all they are not there.
    let plain = detect_at(&fixtures().join("dgx-h100"), &Options::default());
    assert!(!plain.xml.preorder().into_iter().any(|n| plain.xml.attr(n, "busid") == Some("0000:1e:00.0")));
}

#[test]
fn seed_attributes_win_and_detection_fills_the_rest() {
    let (mut seed, _) = xml::parse(&expected("dgx-h100"), None).unwrap();
    let gpu0 = seed.find_tag_kv("pci", "busid", "0000:1a:00.0").unwrap();
    seed.set_attr(gpu0, "link_speed", "8.0 GT/s PCIe");
    let top = seed.find_tag_kv("pci", "busid", "0000:18:00.0").unwrap();
    for k in ["vendor", "device", "subsystem_vendor", "subsystem_device"] {
        seed.unset_attr(top, k);
    }
    let cpu = seed.find_tag("cpu").unwrap();
    seed.set_attr(cpu, "host_hash", "0x1234");
    // A branch that this machine does not have is trimmed, as NCCL does.
    let ghost = seed.add(Some(cpu), "pci");
    seed.set_attr(ghost, "busid", "0000:ee:00.0");
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("seed.xml");
    std::fs::write(&f, xml::write(&seed)).unwrap();
    let det = detect_at(&fixtures().join("dgx-h100"), &Options { topo_file: Some(f), ..Default::default() });
    let x = &det.xml;
    let g = x.find_tag_kv("pci", "busid", "0000:1a:00.0").unwrap();
    assert_eq!(x.attr(g, "link_speed"), Some("8.0 GT/s PCIe"), "the file wins");
    let t = x.find_tag_kv("pci", "busid", "0000:18:00.0").unwrap();
    assert_eq!(x.attr(t, "vendor"), Some("0x1000"), "detection fills");
    assert!(x.find_tag_kv("pci", "busid", "0000:ee:00.0").is_none_or(|n| x.nodes[n].removed));
    let c = x.find_tag("cpu").unwrap();
    assert_ne!(x.attr(c, "host_hash"), Some("0x1234"), "NCCL replaces host_hash");
}

#[test]
fn bad_seed_files_are_clear_errors() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("bad.xml");
    std::fs::write(&f, "<system version=\"2\"/>\n").unwrap();
    let (sys, src) = Source { root: Some(fixtures().join("cloud-vm")), nvml_fake: None }.open().unwrap();
    let err = detect(&sys, src.as_ref(), &Options { topo_file: Some(f.clone()), ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("version"), "{err}");
    std::fs::write(&f, "<system version=\"1\">\n  <cpu>\n</system>\n").unwrap();
    let err = detect(&sys, src.as_ref(), &Options { topo_file: Some(f), ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("bad.xml:3"), "{err}");
}

/// The cloud skeletons of ../shared: on a fake VM whose devices have the skeleton's
/// bus ids, detection keeps the skeleton's tree and fills GPUs and NICs into it.
#[test]
fn cloud_skeletons_seed_detection() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    if !shared.join("skeleton").is_dir() {
        common::skip("cloud_skeletons_seed_detection", "../shared/fixtures/skeleton is absent");
        return;
    }
    let mut names: Vec<String> = std::fs::read_dir(shared.join("skeleton"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".xml"))
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for name in names {
        let skeleton = shared.join("skeleton").join(&name);
        // On this machine: works, and trims what is not here.
        let live = topo::discover::detect(
            &Sys::live(),
            &nvml::NoNvml("test".into()),
            &Options { topo_file: Some(skeleton.clone()), ..Default::default() },
        );
        let live = live.unwrap_or_else(|e| panic!("{name} on the live machine: {e}"));
        xml::lint_topology(&live.xml, None, Default::default()).unwrap();

        // On a VM carrying the filled file's GPUs and NICs.
        let (filled, _) = xml::read_file(&shared.join("nccl").join(&name)).unwrap();
        let vm = vm_view(&filled, name.starts_with("aws"));
        let d = write_tree(&tree_from_xml(&vm, &TreeOptions::default()).unwrap());
        // Cloud VMs pass NIC VFs at any device number: NCCL_IB_MERGE_VFS=0 keeps them there.
        let det = detect_at(
            d.path(),
            &Options { topo_file: Some(skeleton.clone()), ib_merge_vfs: Some(false), ..Default::default() },
        );
        let x = &det.xml;
        for g in filled.preorder().into_iter().filter(|&n| filled.name(n) == "gpu") {
            let pci = filled.parent(g).unwrap();
            let busid = filled.attr(pci, "busid").unwrap();
            let ours = x.preorder().into_iter().find(|&n| x.name(n) == "pci" && x.attr(n, "busid") == Some(busid));
            let ours = ours.unwrap_or_else(|| panic!("{name}: GPU {busid} missing"));
            assert_eq!(chain(x, ours), chain(&filled, pci), "{name}: GPU {busid} placed elsewhere");
            let og = x.child_named(ours, "gpu").unwrap();
            assert_eq!(x.attr(og, "dev"), filled.attr(g, "dev"), "{name}: {busid}");
            assert_eq!(links(x, og), links(&filled, g), "{name}: {busid} NVLinks");
            // Attributes of the skeleton are kept.
            for (k, v) in &filled.nodes[pci].attrs {
                assert_eq!(x.attr(ours, k), Some(v.as_str()), "{name}: {busid} {k}");
            }
        }
        for n in filled.preorder().into_iter().filter(|&n| filled.name(n) == "net") {
            let net = filled.attr(n, "name").unwrap();
            let ours = x.preorder().into_iter().find(|&m| x.name(m) == "net" && x.attr(m, "name") == Some(net));
            let ours = ours.unwrap_or_else(|| panic!("{name}: NIC {net} missing"));
            assert_eq!(chain(x, ours), chain(&filled, n), "{name}: NIC {net} placed elsewhere");
        }
        let lint = xml::lint_topology(x, None, Default::default()).unwrap();
        assert!(lint.iter().all(|d| !d.message.contains("without")), "{name}: {lint:?}");
        // With NCCL's default NCCL_IB_MERGE_VFS=1, a VF NIC at a device number other
        // than 0 is moved to device 0: detection says so.
        let moved = filled.preorder().into_iter().any(|n| {
            filled.name(n) == "nic"
                && filled.parent(n).and_then(|p| filled.attr(p, "busid")).is_some_and(|b| !b.ends_with(":00.0"))
        });
        if moved && !name.starts_with("aws") {
            let det = detect_at(
                d.path(),
                &Options { topo_file: Some(skeleton.clone()), ib_merge_vfs: Some(true), ..Default::default() },
            );
            assert!(det.notices.iter().any(|n| n.message.contains("NCCL_IB_MERGE_VFS=0 avoids it")), "{name}");
        }
    }
}

/// Bus ids (and the NUMA id) from the top down to `n`.
fn chain(x: &Xml, n: usize) -> Vec<String> {
    let mut v = Vec::new();
    let mut cur = Some(n);
    while let Some(c) = cur {
        match x.name(c) {
            "pci" => v.push(x.attr(c, "busid").unwrap_or("").to_string()),
            "cpu" => v.push(format!("numa {}", x.attr(c, "numaid").unwrap_or(""))),
            _ => {}
        }
        cur = x.parent(c);
    }
    v.reverse();
    v
}

fn links(x: &Xml, g: usize) -> Vec<(String, String)> {
    x.children_named(g, "nvlink")
        .map(|l| (x.attr(l, "target").unwrap_or("").to_string(), x.attr(l, "count").unwrap_or("").to_string()))
        .collect()
}

/// What a VM built from a filled cloud topology shows: each GPU and NIC flat on its own
/// bus, under the CPU of its NUMA node (NICs are EFA devices on AWS).
fn vm_view(filled: &Xml, efa: bool) -> Xml {
    let mut out = Xml::new_system();
    let top = out.root().unwrap();
    for cpu in filled.preorder().into_iter().filter(|&n| filled.name(n) == "cpu") {
        let c = out.add(Some(top), "cpu");
        out.nodes[c].attrs = filled.nodes[cpu].attrs.clone();
        for leaf in filled.descendants_named(cpu, "pci") {
            if filled.child_named(leaf, "gpu").is_none() && filled.child_named(leaf, "nic").is_none() {
                continue;
            }
            let p = out.add(Some(c), "pci");
            for k in ["busid", "class", "vendor", "device"] {
                if let Some(v) = filled.attr(leaf, k) {
                    out.set_attr(p, k, v);
                }
            }
            if efa && filled.child_named(leaf, "nic").is_some() {
                out.set_attr(p, "vendor", "0x1d0f");
            }
            out.set_attr(p, "link_speed", "");
            out.set_attr(p, "link_width", "0");
            for &ch in filled.children(leaf) {
                if matches!(filled.name(ch), "gpu" | "nic") {
                    out.copy_tree(Some(p), filled, ch);
                }
            }
        }
    }
    // NICs of a VM are IB devices (port 1).
    for n in out.preorder() {
        if out.name(n) == "net" && out.attr(n, "port") == Some("0") {
            out.set_attr(n, "port", "1");
        }
    }
    out
}

/// `topo detect ARGS` in process, with an empty environment: (exit status, stdout, stderr).
fn detect_cmd(args: &[&str]) -> Result<(i32, Vec<u8>, String), topo::error::Error> {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = ["topo", "detect"].iter().chain(args).map(|s| s.to_string());
    let code = topo::cli::run_args(argv, Default::default(), &mut out, &mut err)?;
    Ok((code, out, String::from_utf8(err).unwrap()))
}

fn detect_live(args: &[&str]) -> Result<(), topo::error::Error> {
    let (code, out, msg) = detect_cmd(&[&["--xml"], args].concat())?;
    assert_eq!(code, 0);
    let text = String::from_utf8(out).unwrap();
    let (x, _) = xml::parse(&text, None).unwrap();
    xml::lint_topology(&x, None, Default::default()).unwrap();
    assert!(msg.contains("topo: note: found"), "{msg}");
    Ok(())
}

#[test]
fn live_machine_detects_and_says_what_it_found() {
    // NVML's answers from a file: works in every build.
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("n.json");
    std::fs::write(&f, "{\"gpus\": []}").unwrap();
    detect_live(&["--nvml-fake", f.to_str().unwrap()]).unwrap();
    // Real NVML (absent NVML is a notice); a build without it says so.
    let real = detect_live(&[]);
    if cfg!(feature = "nvml") {
        real.unwrap();
    } else {
        let e = real.unwrap_err().to_string();
        assert!(e.contains("no NVML support") && e.contains("`nvml` feature"), "{e}");
    }
}

#[test]
fn run_writes_files_whole_and_json() {
    let d = tempfile::tempdir().unwrap();
    let out_file = d.path().join("topo.xml");
    let root = fixtures().join("gh200");
    let (root, out_path) = (root.to_str().unwrap(), out_file.to_str().unwrap());
    let (code, out, msg) = detect_cmd(&["--root", root, "-o", out_path]).unwrap();
    assert_eq!(code, 0);
    assert!(out.is_empty());
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), expected("gh200"));
    assert!(msg.contains("topo: warning: [nvlink]"), "detect prints the health findings: {msg}");

    let (_, out, _) = detect_cmd(&["--json", "--root", root]).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["topology"].as_str().unwrap(), expected("gh200"));
    assert_eq!(v["nets"].as_array().unwrap().len(), 4);
    assert!(v["findings"].as_array().unwrap().iter().any(|f| f["check"] == "nvlink"));

    // A --root that is not a tree is an error, and nothing is written.
    let nope = d.path().join("nope");
    let x = d.path().join("x.xml");
    assert!(detect_cmd(&["--root", nope.to_str().unwrap(), "-o", x.to_str().unwrap()]).is_err());
    assert!(!x.exists());
}

#[test]
fn nvml_fake_flag_overrides_the_tree() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("n.json");
    std::fs::write(&f, "{\"gpus\": []}").unwrap();
    let (sys, src) = Source { root: Some(fixtures().join("gh200")), nvml_fake: Some(f.clone()) }.open().unwrap();
    let det = detect(&sys, src.as_ref(), &Options::default()).unwrap();
    assert!(det.xml.find_tag("gpu").is_none());
    assert_eq!(det.gpus_without_nvml.len(), 4);
    std::fs::write(&f, "{\"gpus\": [{\"index\": 0}]}").unwrap();
    let (sys, src) = Source { root: Some(fixtures().join("gh200")), nvml_fake: Some(f) }.open().unwrap();
    let err = detect(&sys, src.as_ref(), &Options::default()).unwrap_err();
    assert!(err.to_string().contains("n.json") && err.to_string().contains("busid"), "{err}");
}

#[test]
#[cfg(not(feature = "nvml"))]
fn a_build_without_nvml_exits_2_when_asked_for_real_nvml() {
    assert_cmd::cargo::cargo_bin_cmd!("topo")
        .arg("detect")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("`nvml` feature"));
}

#[test]
fn concurrent_writers_leave_one_whole_file() {
    // 16 `topo detect -o same.xml` at once: the file is always one whole document, and
    // no temporary file is left behind.
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("same.xml");
    let bin = assert_cmd::cargo::cargo_bin("topo");
    let root = fixtures().join("ws-4gpu");
    let children: Vec<_> = (0..16)
        .map(|_| {
            std::process::Command::new(&bin)
                .args(["detect", "--root"])
                .arg(&root)
                .arg("-o")
                .arg(&out)
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected("ws-4gpu"));
    let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

/// Detection of a fixture tree as release `v` writes it.
fn detect_release(name: &str, v: &str) -> Xml {
    let opts = Options { release: topo::release::Release::parse(v).unwrap(), ..Options::default() };
    detect_at(&fixtures().join(name), &opts).xml
}

fn elements<'a>(x: &'a Xml, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    x.preorder().into_iter().filter(move |&n| x.name(n) == name)
}

fn attr_names(x: &Xml, n: usize) -> Vec<&str> {
    x.nodes[n].attrs.iter().map(|(k, _)| k.as_str()).collect()
}

/// Whether every element's `<pci>` children are in bus-id order.
fn pci_children_sorted(x: &Xml) -> bool {
    x.preorder().into_iter().all(|p| {
        let ids: Vec<&str> = x.children_named(p, "pci").filter_map(|c| x.attr(c, "busid")).collect();
        ids.windows(2).all(|w| w[0] <= w[1])
    })
}

/// Each boundary of the topology dump's form, on our own machines: the element or
/// attribute appears at the release whose source first writes it.
#[test]
fn detect_writes_each_releases_form() {
    let dgx = |v| detect_release("dgx-h100", v);
    // 2.29.7 writes net="1" on populated nets; 2.29.2 does not.
    assert!(elements(&dgx("2.29.7"), "net").all(|n| dgx("2.29.7").attr(n, "net") == Some("1")));
    let x = dgx("2.29.2");
    assert!(elements(&x, "net").all(|n| x.attr(n, "net").is_none()));
    // 2.30.7 writes mlopart on GPUs; 2.30.4 does not.
    let (new, old) = (dgx("2.30.7"), dgx("2.30.4"));
    assert!(elements(&new, "gpu").all(|g| new.attr(g, "mlopart") == Some("-1")));
    assert!(elements(&old, "gpu").all(|g| old.attr(g, "mlopart").is_none()));
    // 2.24 writes latency as an integer before speed; 2.23 as %f after port.
    let x = dgx("2.24.3");
    let n = elements(&x, "net").next().unwrap();
    assert_eq!(attr_names(&x, n), ["name", "dev", "latency", "speed", "port", "guid", "maxconn", "gdr"]);
    assert_eq!(x.attr(n, "latency"), Some("0"));
    let x = dgx("2.23.4");
    let n = elements(&x, "net").next().unwrap();
    assert_eq!(attr_names(&x, n), ["name", "dev", "speed", "port", "latency", "guid", "maxconn", "gdr"]);
    assert_eq!(x.attr(n, "latency"), Some("0.000000"));
    // 2.21 puts host_hash on the CPUs it makes; 2.20 does not.
    let x = dgx("2.21.5");
    assert!(elements(&x, "cpu").all(|c| x.attr(c, "host_hash").is_some()));
    let x = dgx("2.20.5");
    assert!(elements(&x, "cpu").all(|c| x.attr(c, "host_hash").is_none()));
    // Before 2.22 one pass fills every GPU into one sorted tree; from 2.22 the ranks'
    // trees are fused, the later ranks' branches appended.
    assert!(pci_children_sorted(&dgx("2.21.5")));
    assert!(!pci_children_sorted(&dgx("2.22.3")));
    // Before 2.18.5 children are appended as found (the NIC after the GPUs).
    assert!(!pci_children_sorted(&detect_release("ws-4gpu", "2.18.3")));
    assert!(pci_children_sorted(&detect_release("ws-4gpu", "2.18.5")));
    // 2.19 writes <c2c> for Grace Hopper; 2.18 does not.
    assert!(elements(&detect_release("gh200", "2.19.3"), "c2c").count() > 0);
    assert_eq!(elements(&detect_release("gh200", "2.18.6"), "c2c").count(), 0);
    // 2.30.7 takes a GPU's PCI link from NVML and names a hidden NVSwitch with its
    // sentinel; 2.30.4 reads sysfs (empty in this VM) and writes NVML's empty name.
    let (new, old) = (detect_release("vm-flat", "2.30.7"), detect_release("vm-flat", "2.30.4"));
    let gpu_pci = |x: &Xml| x.parent(elements(x, "gpu").next().unwrap()).unwrap();
    assert_eq!(new.attr(gpu_pci(&new), "link_speed"), Some("32.0 GT/s PCIe"));
    assert_eq!(old.attr(gpu_pci(&old), "link_speed"), Some(""));
    assert!(elements(&new, "nvlink").all(|l| new.attr(l, "target") == Some("fffffff:ffff:ff")));
    assert!(elements(&old, "nvlink").all(|l| old.attr(l, "target") == Some("")));
}

/// The form a release writes never changes what topo models from it: every fixture
/// tree detected as release R and analysed as R gives the analysis of the 2.30.7 dump
/// analysed as R. Only the order of the per-NIC lists may differ: NCCL numbers its NET
/// nodes in the order the dump lists the NICs, and a dump before 2.18.5 lists elements
/// as found, the GPUs' branches first, so a NIC on a root port of its own (the DGX's
/// storage NICs) comes after the GPUs' switches. Those lists are compared in
/// (rank, net) order, and the NIC-to-NIC paths in (from, to) order.
#[test]
fn each_releases_dump_models_like_the_newest() {
    let d = scratch();
    let analyze = |file: &Path, v: &str| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let argv = ["topo", "analyze", "--json", "--topo", file.to_str().unwrap(), "--nccl-version", v];
        let code = topo::cli::run_args(argv, Default::default(), &mut out, &mut err).unwrap();
        assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
        let mut j: serde_json::Value = serde_json::from_slice(&out).unwrap();
        for k in ["input", "warnings"] {
            j.as_object_mut().unwrap().remove(k);
        }
        for p in ["/gdr", "/paths/gpu_net", "/paths/net_gpu"] {
            if let Some(list) = j.pointer_mut(p).and_then(|l| l.as_array_mut()) {
                list.sort_by_key(|e| (e["rank"].as_i64(), e["net"].as_i64()));
            }
        }
        if let Some(list) = j.pointer_mut("/paths/net_net").and_then(|l| l.as_array_mut()) {
            list.sort_by_key(|e| (e["from"].as_i64(), e["to"].as_i64()));
        }
        // A link's own bandwidth follows the form the release writes (a GPU's PCIe link
        // from sysfs or from NVML); the paths' bandwidths, which NCCL decides by, may not.
        for list in ["gpu_gpu", "gpu_net", "net_gpu", "net_net"] {
            for p in j["paths"][list].as_array_mut().into_iter().flatten() {
                p.as_object_mut().unwrap().remove("steps");
            }
        }
        j
    };
    for name in NAMES.iter().filter(|&&n| n != "cloud-vm") {
        let newest = d.path().join(format!("{name}-newest.xml"));
        std::fs::write(&newest, xml::write(&detect_release(name, "2.30.7"))).unwrap();
        for v in ["2.18.1", "2.20.5", "2.21.5", "2.23.4", "2.27.5", "2.30.4"] {
            let own = d.path().join(format!("{name}-{v}.xml"));
            std::fs::write(&own, xml::write(&detect_release(name, v))).unwrap();
            assert_eq!(analyze(&own, v), analyze(&newest, v), "{name} detected as {v}");
        }
    }
}

/// A GB200 NVL72 tray (the built-in topology) as a fake machine whose GPUs report the
/// fabric registrations `fabric` gives, by NVML index.
fn gb200_tray(fabric: impl Fn(usize) -> Option<nvml::FabricInfo>) -> tempfile::TempDir {
    let (x, _) = topo::fixtures::get("gb200-nvl72-tray").unwrap().load().unwrap();
    let mut t = tree_from_xml(&x, &TreeOptions { hostname: "tray".into(), ..Default::default() }).unwrap();
    for (i, g) in t.nvml.as_mut().unwrap().gpus.iter_mut().enumerate() {
        g.fabric = fabric(i);
    }
    write_tree(&t)
}

fn registered(state: nvml::FabricState, clique: u32) -> Option<nvml::FabricInfo> {
    Some(nvml::FabricInfo {
        state,
        status: 0,
        cluster_uuid: "9d2f5e1c-7a43-4b8e-a1c0-3e6f0b2d4c51".into(),
        clique_id: clique,
    })
}

/// `topo ARGS` with NCCL_* variables `vars`: exit status, stdout, stderr.
fn topo_cmd(args: &[&str], vars: &[(&str, &str)]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = std::iter::once("topo").chain(args.iter().copied()).map(str::to_string);
    let vars = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let code = topo::cli::run_args(argv, vars, &mut out, &mut err).unwrap();
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

#[test]
fn fabric_registration_is_detected_and_reported() {
    use nvml::FabricState::*;
    let d = gb200_tray(|_| registered(Completed, 0x7ffe));
    let root = d.path().to_str().unwrap();
    let (_, out, _) = topo_cmd(&["detect", "--json", "--root", root], &[]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let gpus = v["nvml"]["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 4);
    assert_eq!(
        gpus[2]["fabric"],
        serde_json::json!({"state": "completed", "status": 0,
                           "cluster_uuid": "9d2f5e1c-7a43-4b8e-a1c0-3e6f0b2d4c51", "clique_id": 0x7ffe})
    );
    let fabric: Vec<&serde_json::Value> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["check"] == "fabric").collect();
    assert_eq!(fabric.len(), 1, "{fabric:?}");
    assert_eq!(fabric[0]["severity"], "info");
    assert!(fabric[0]["message"].as_str().unwrap().contains("clique 0x7ffe"));

    // One GPU still registering: a warning naming it; MNNVL stays off.
    let d = gb200_tray(|i| registered(if i == 1 { InProgress } else { Completed }, 0x7ffe));
    let root = d.path().to_str().unwrap();
    let (code, out, _) = topo_cmd(&["check", "--json", "--root", root], &[]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["check"] == "fabric").cloned().unwrap();
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["devices"].as_array().unwrap().len(), 1);
    assert!(f["message"].as_str().unwrap().contains("in progress"), "{f}");

    // GPUs of one tray in two cliques.
    let d = gb200_tray(|i| registered(Completed, if i < 2 { 1 } else { 2 }));
    let (_, out, _) = topo_cmd(&["check", "--json", "--root", d.path().to_str().unwrap()], &[]);
    assert!(out.contains("registered in different NVLink cliques: 2 GPUs in cluster"), "{out}");

    // A machine without any registration (older boards): nothing said.
    let (_, out, _) = topo_cmd(&["check", "--json", "--root", fixtures().join("dgx-h100").to_str().unwrap()], &[]);
    assert!(!out.contains("\"fabric\""), "{out}");
}

#[test]
fn detected_registrations_decide_mnnvl() {
    use nvml::FabricState::*;
    let mnnvl_of = |d: &tempfile::TempDir, extra: &[&str], vars: &[(&str, &str)]| {
        let args = [&["analyze", "--json", "--root", d.path().to_str().unwrap(), "--nodes", "2"][..], extra].concat();
        let (code, out, err) = topo_cmd(&args, vars);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (v["mnnvl"].clone(), err)
    };
    let good = gb200_tray(|_| registered(Completed, 3));
    let (m, _) = mnnvl_of(&good, &["--mnnvl"], &[]);
    assert_eq!(m["enabled"], true);
    assert_eq!(m["clique_size"], 8);
    // Without --mnnvl, the registrations say what NCCL would do.
    let (_, err) = mnnvl_of(&good, &[], &[]);
    assert!(err.contains("registered with one NVLink fabric clique"), "{err}");
    // A GPU whose registration is not complete keeps it off, and says which.
    let pending = gb200_tray(|i| registered(if i == 3 { NotStarted } else { Completed }, 3));
    let (m, err) = mnnvl_of(&pending, &["--mnnvl"], &[]);
    assert_eq!(m["enabled"], false);
    assert!(err.contains("GPU 3's NVLink fabric registration is not started"), "{err}");
    // Two cliques in a tray: off, unless NCCL_MNNVL_CLIQUE_ID puts them in one.
    let split = gb200_tray(|i| registered(Completed, i as u32 % 2));
    assert_eq!(mnnvl_of(&split, &["--mnnvl"], &[]).0["enabled"], false);
    assert_eq!(mnnvl_of(&split, &["--mnnvl"], &[("NCCL_MNNVL_CLIQUE_ID", "9")]).0["enabled"], true);
    // NCCL_MNNVL_UUID=0: no fabric, whatever NVML says.
    assert_eq!(mnnvl_of(&good, &["--mnnvl"], &[("NCCL_MNNVL_UUID", "0")]).0["enabled"], false);
}

/// NCCL's topology XML holds no fabric registration (2.30.7 writes none), so `fleet`
/// takes `detect --json` reports, which do: four trays, two in each of two cliques, are
/// told apart, and the model to run is named.
#[test]
fn fleet_tells_cliques_apart_from_detect_reports() {
    use nvml::FabricState::*;
    let out_dir = tempfile::tempdir().unwrap();
    let mut roots = Vec::new();
    for t in 0..4 {
        let d = gb200_tray(|_| registered(Completed, 0x10 + t / 2));
        let (_, out, _) = topo_cmd(&["detect", "--json", "--no-check", "--root", d.path().to_str().unwrap()], &[]);
        std::fs::write(out_dir.path().join(format!("tray{t}.json")), out).unwrap();
        roots.push(d);
    }
    let dir = out_dir.path().to_str().unwrap();
    let (_, out, err) = topo_cmd(&["fleet", "--json", dir], &[]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let cliques = v["rack"]["cliques"].as_array().unwrap();
    assert_eq!(cliques.len(), 2, "{}", v["rack"]);
    assert_eq!((cliques[0]["clique_id"].as_u64(), cliques[0]["trays"].as_array().unwrap().len()), (Some(0x10), 2));
    let (_, text, _) = topo_cmd(&["fleet", dir], &[]);
    assert!(
        text.contains("registered in 2 clique(s)") && text.contains("--nodes 4 --mnnvl --mnnvl-cliques 2"),
        "{text}"
    );
    // diff of two reports: trays of two cliques are a warning; of one clique, the same tray.
    let tray = |t: usize| out_dir.path().join(format!("tray{t}.json")).to_str().unwrap().to_string();
    let (code, text, _) = topo_cmd(&["diff", &tray(0), &tray(2)], &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("registered in different NVLink cliques (clique 0x10 of cluster"), "{text}");
    let (code, text, _) = topo_cmd(&["diff", &tray(0), &tray(1)], &[]);
    assert_eq!(code, 0, "{text}");
    // A tray still registering is named.
    let d = gb200_tray(|i| registered(if i == 3 { InProgress } else { Completed }, 0x10));
    let (_, out, _) = topo_cmd(&["detect", "--json", "--no-check", "--root", d.path().to_str().unwrap()], &[]);
    std::fs::write(out_dir.path().join("tray4.json"), out).unwrap();
    let (_, out, _) = topo_cmd(&["fleet", "--json", dir], &[]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["rack"]["unregistered"][0]["why"].as_str().unwrap().contains("GPU 3's registration is in progress"));
}
