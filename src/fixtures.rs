//! Built-in machines: the topologies that `topo --fixture NAME` loads and `topo fixtures`
//! lists, plus a generator for a large synthetic NVLink domain used by the benchmarks.
//!
//! Each fixture is an NCCL topology XML file under `fixtures/topologies/`, written in
//! NCCL's own dump form so that reading and writing it gives the same bytes back.
//! `fixtures/README.md` says what each machine is and which public facts it follows.

use std::path::Path;

use crate::discover::cpumap;
use crate::error::Error;
use crate::xml::{self, Diagnostic, NodeId, Xml};

/// One built-in machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fixture {
    /// The name given to `--fixture`.
    pub name: &'static str,
    /// One line for `topo fixtures`.
    pub description: &'static str,
    /// The topology, NCCL topology XML text.
    pub xml: &'static str,
}

impl Fixture {
    /// Parse the fixture. Messages name it `fixture:NAME`.
    pub fn load(&self) -> Result<(Xml, Vec<Diagnostic>), Error> {
        let label = format!("fixture:{}", self.name);
        xml::parse(self.xml, Some(Path::new(&label)))
    }
}

static FIXTURES: &[Fixture] = &[
    Fixture {
        name: "dgx-h100",
        description: "8x H100 SXM on NVSwitch (4 visible switches, 18 links a GPU), 2x Sapphire Rapids, \
                      4 PCIe Gen5 switches, 8x 400G IB + 2 dual-port storage NICs",
        xml: include_str!("../fixtures/topologies/dgx-h100.xml"),
    },
    Fixture {
        name: "dgx1-v100",
        description: "8x V100 SXM2 in the DGX-1 hybrid cube-mesh (6 NVLinks a GPU), 2x Broadwell, \
                      4 PCIe Gen3 switches each with 2 GPUs and one EDR InfiniBand NIC",
        xml: include_str!("../fixtures/topologies/dgx1-v100.xml"),
    },
    Fixture {
        name: "gb200-nvl72-tray",
        description: "One GB200 NVL72 compute tray: 2 Grace CPUs, 4 B200 with NVLink-C2C and 18 NVLinks \
                      to the rack's NVSwitches (not visible), 4x 400G NICs",
        xml: include_str!("../fixtures/topologies/gb200-nvl72-tray.xml"),
    },
    Fixture {
        name: "gh200",
        description: "Grace Hopper node: one Grace CPU, one H100 joined by NVLink-C2C, 2x 400G NICs",
        xml: include_str!("../fixtures/topologies/gh200.xml"),
    },
    Fixture {
        name: "workstation-4gpu",
        description: "PCIe workstation: 4x RTX A6000 on CPU root ports (Gen4 x16, no NVLink), \
                      one Threadripper PRO socket, one 100 GbE NIC",
        xml: include_str!("../fixtures/topologies/workstation-4gpu.xml"),
    },
];

/// Every built-in machine, sorted by name.
pub fn all() -> &'static [Fixture] {
    FIXTURES
}

/// The built-in machine called `name`, or an error listing the known names.
pub fn get(name: &str) -> Result<&'static Fixture, Error> {
    FIXTURES.iter().find(|f| f.name == name).ok_or_else(|| {
        let known: Vec<&str> = FIXTURES.iter().map(|f| f.name).collect();
        Error::Usage(format!("unknown fixture '{name}'; the built-in machines are: {}", known.join(", ")))
    })
}

/// GPUs in the synthetic NVLink domain.
pub const SYNTHETIC_GPUS: usize = 72;
/// PCIe switches in the synthetic domain (4 GPUs each).
const SYNTHETIC_SWITCHES: usize = 18;
/// NIC slots under one synthetic PCIe switch (device numbers on one bus).
const NIC_SLOTS_PER_SWITCH: usize = 32;
/// Largest NIC count [`synthetic_nvl72`] accepts.
pub const SYNTHETIC_MAX_NICS: usize = SYNTHETIC_SWITCHES * NIC_SLOTS_PER_SWITCH;

/// A synthetic 72-GPU NVSwitch domain in one system, for benchmarks: two Sapphire Rapids
/// sockets, each with 9 PCIe Gen5 switches; every switch holds 4 GPUs (sm 100, 18 NVLinks
/// to an NVSwitch that is not visible) and its share of `nics` 400 Gb/s NICs, handed out
/// in order so that NIC k sits under switch `k * 18 / nics`. Each switch has its own PCI
/// domain. With more than 6 NICs the document has more elements than NCCL's XML parser
/// holds (256): NCCL would refuse it as a topology file, and so does topo's model (the
/// larger ones serve the XML writer's tests).
pub fn synthetic_nvl72(nics: usize) -> Result<Xml, Error> {
    if nics > SYNTHETIC_MAX_NICS {
        return Err(Error::Usage(format!(
            "synthetic NVL72 domain: {nics} NICs asked, at most {SYNTHETIC_MAX_NICS} fit ({NIC_SLOTS_PER_SWITCH} per PCIe switch)"
        )));
    }
    const SOCKETS: usize = 2;
    const CPUS_PER_SOCKET: u32 = 56;
    let ncpus = SOCKETS as u32 * CPUS_PER_SOCKET * 2;
    let mut doc = Xml::new_system();
    let root = doc.root().unwrap_or(0);
    let switches_per_socket = SYNTHETIC_SWITCHES / SOCKETS;
    let gpus_per_switch = SYNTHETIC_GPUS / SYNTHETIC_SWITCHES;
    let mut gpu = 0usize;
    let mut nic = 0usize;
    for socket in 0..SOCKETS {
        let cpu = doc.add(Some(root), "cpu");
        // Logical CPUs: the socket's cores, then their hyper-thread siblings.
        let first = socket as u32 * CPUS_PER_SOCKET;
        let sibling = SOCKETS as u32 * CPUS_PER_SOCKET + first;
        let mask = cpumap::format(ncpus, (first..first + CPUS_PER_SOCKET).chain(sibling..sibling + CPUS_PER_SOCKET));
        set_attrs(
            &mut doc,
            cpu,
            &[
                ("host_hash", "0x6b2f0d94c1e873a5"),
                ("numaid", &socket.to_string()),
                ("affinity", &mask),
                ("arch", "x86_64"),
                ("vendor", "GenuineIntel"),
                ("familyid", "6"),
                ("modelid", "143"),
            ],
        );
        for s in 0..switches_per_socket {
            let switch = socket * switches_per_socket + s;
            let domain = format!("{switch:04x}");
            let sw = add_pci(
                &mut doc,
                cpu,
                &format!("{domain}:01:00.0"),
                "0x060400",
                ["0x1000", "0xc030", "0x1000", "0x100b"],
            );
            for g in 0..gpus_per_switch {
                let p = add_pci(
                    &mut doc,
                    sw,
                    &format!("{domain}:{:02x}:00.0", 3 + g),
                    "0x030200",
                    ["0x10de", "0x2901", "0x10de", "0x1999"],
                );
                let dev = doc.add(Some(p), "gpu");
                let n = gpu.to_string();
                set_attrs(&mut doc, dev, &[("dev", &n), ("sm", "100"), ("rank", &n), ("gdr", "1")]);
                let link = doc.add(Some(dev), "nvlink");
                set_attrs(&mut doc, link, &[("target", "fffffff:ffff:ff"), ("count", "18"), ("tclass", "0x068000")]);
                gpu += 1;
            }
            let mut slot = 0usize;
            while nic < nics && nic * SYNTHETIC_SWITCHES / nics == switch {
                let bus = 3 + gpus_per_switch;
                let busid = format!("{domain}:{bus:02x}:{slot:02x}.0");
                let p = add_pci(&mut doc, sw, &busid, "0x020700", ["0x15b3", "0x1021", "0x15b3", "0x0041"]);
                let group = doc.add(Some(p), "nic");
                let net = doc.add(Some(group), "net");
                let n = nic.to_string();
                let guid = format!("{:#x}", 0xa088_c203_0000_0000u64 | ((nic as u64) << 8) | 0x5c);
                set_attrs(
                    &mut doc,
                    net,
                    &[
                        ("name", &format!("mlx5_{nic}")),
                        ("dev", &n),
                        ("speed", "400000"),
                        ("port", "1"),
                        ("latency", "0.000000"),
                        ("guid", &guid),
                        ("maxconn", "131072"),
                        ("gdr", "1"),
                    ],
                );
                nic += 1;
                slot += 1;
            }
        }
    }
    Ok(doc)
}

fn set_attrs(doc: &mut Xml, id: NodeId, attrs: &[(&str, &str)]) {
    for (k, v) in attrs {
        doc.set_attr(id, k, *v);
    }
}

fn add_pci(doc: &mut Xml, parent: NodeId, busid: &str, class: &str, ids: [&str; 4]) -> NodeId {
    let p = doc.add(Some(parent), "pci");
    set_attrs(
        doc,
        p,
        &[
            ("busid", busid),
            ("class", class),
            ("vendor", ids[0]),
            ("device", ids[1]),
            ("subsystem_vendor", ids[2]),
            ("subsystem_device", ids[3]),
            ("link_speed", "32.0 GT/s PCIe"),
            ("link_width", "16"),
        ],
    );
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    const INVISIBLE: &str = "fffffff:ffff:ff";

    /// (name, GPUs, `nic` elements, `net` elements).
    const EXPECTED: &[(&str, usize, usize, usize)] = &[
        ("dgx-h100", 8, 10, 12),
        ("dgx1-v100", 8, 4, 4),
        ("gb200-nvl72-tray", 4, 4, 4),
        ("gh200", 1, 2, 2),
        ("workstation-4gpu", 4, 1, 1),
    ];

    fn count(doc: &Xml, name: &str) -> usize {
        doc.preorder().into_iter().filter(|&i| doc.name(i) == name).count()
    }

    fn named(doc: &Xml, name: &str) -> Vec<NodeId> {
        doc.preorder().into_iter().filter(|&i| doc.name(i) == name).collect()
    }

    /// Checks shared by the fixtures and the synthetic domain; returns bus id -> class.
    fn check_structure(label: &str, doc: &Xml) -> HashMap<String, String> {
        let mut classes = HashMap::new();
        for p in named(doc, "pci") {
            let busid = doc.attr(p, "busid").expect("pci without busid").to_string();
            let class = doc.attr(p, "class").unwrap_or("").to_string();
            assert!(classes.insert(busid.clone(), class).is_none(), "{label}: bus id {busid} used twice");
        }
        for link in named(doc, "nvlink") {
            let target = doc.attr(link, "target").expect("nvlink without target");
            let tclass = doc.attr(link, "tclass").expect("nvlink without tclass");
            if target == INVISIBLE {
                assert_eq!(tclass, "0x068000", "{label}: invisible target must be an NVSwitch");
                continue;
            }
            let class =
                classes.get(target).unwrap_or_else(|| panic!("{label}: nvlink target {target} is not a pci device"));
            assert_eq!(class, tclass, "{label}: tclass of nvlink to {target}");
        }
        // GPU dev/rank and net dev are 0..n-1, each once, in document order.
        let gpus = named(doc, "gpu");
        for (i, &g) in gpus.iter().enumerate() {
            assert_eq!(doc.attr(g, "dev"), Some(i.to_string().as_str()), "{label}: gpu dev order");
            assert_eq!(doc.attr(g, "rank"), Some(i.to_string().as_str()), "{label}: gpu rank order");
        }
        let nets = named(doc, "net");
        let mut names = HashSet::new();
        for (i, &n) in nets.iter().enumerate() {
            assert_eq!(doc.attr(n, "dev"), Some(i.to_string().as_str()), "{label}: net dev order");
            assert!(names.insert(doc.attr(n, "name").unwrap_or("")), "{label}: net name repeated");
        }
        classes
    }

    #[test]
    fn fixtures_are_sorted_and_named_like_their_files() {
        let names: Vec<&str> = all().iter().map(|f| f.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert_eq!(names, EXPECTED.iter().map(|e| e.0).collect::<Vec<_>>());
        for f in all() {
            assert!(!f.description.is_empty());
            assert!(!f.description.contains("  "), "{}: description has a double space", f.name);
        }
    }

    #[test]
    fn every_fixture_parses_lints_clean_and_round_trips() {
        for f in all() {
            let (doc, diags) = f.load().unwrap_or_else(|e| panic!("{}: {e}", f.name));
            assert!(diags.is_empty(), "{}: parse diagnostics {diags:?}", f.name);
            let lint = xml::lint_topology(&doc, None, Default::default()).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            assert!(lint.is_empty(), "{}: lint {:?}", f.name, lint.iter().map(|d| d.to_string()).collect::<Vec<_>>());
            assert_eq!(xml::write(&doc), f.xml, "{}: not in NCCL's writer form", f.name);
            assert!(f.xml.starts_with("<system version=\"1\">\n"));
            assert!(f.xml.ends_with("</system>\n") && !f.xml.ends_with("\n\n"));
            assert!(!f.xml.contains("<!--") && !f.xml.contains('\t') && !f.xml.contains("<?xml"));
        }
    }

    #[test]
    fn every_fixture_has_the_expected_devices_and_consistent_links() {
        for &(name, gpus, nics, nets) in EXPECTED {
            let (doc, _) = get(name).unwrap().load().unwrap();
            assert_eq!(count(&doc, "gpu"), gpus, "{name}: GPUs");
            assert_eq!(count(&doc, "nic"), nics, "{name}: NICs");
            assert_eq!(count(&doc, "net"), nets, "{name}: NIC ports");
            check_structure(name, &doc);
        }
    }

    #[test]
    fn nvlink_counts_match_each_machine() {
        // Links a GPU has, over all its nvlink entries.
        let per_gpu = |name: &str| -> Vec<u32> {
            let (doc, _) = get(name).unwrap().load().unwrap();
            named(&doc, "gpu")
                .into_iter()
                .map(|g| {
                    doc.children_named(g, "nvlink").map(|l| doc.attr(l, "count").unwrap().parse::<u32>().unwrap()).sum()
                })
                .collect()
        };
        assert_eq!(per_gpu("dgx-h100"), vec![18; 8]);
        assert_eq!(per_gpu("dgx1-v100"), vec![6; 8]);
        assert_eq!(per_gpu("gb200-nvl72-tray"), vec![18; 4]);
        assert_eq!(per_gpu("gh200"), vec![0]);
        assert_eq!(per_gpu("workstation-4gpu"), vec![0; 4]);
    }

    #[test]
    fn dgx1_cube_mesh_is_symmetric() {
        let (doc, _) = get("dgx1-v100").unwrap().load().unwrap();
        let mut links: HashMap<(String, String), String> = HashMap::new();
        for g in named(&doc, "gpu") {
            let me = doc.attr(doc.parent(g).unwrap(), "busid").unwrap().to_string();
            let peers: Vec<NodeId> = doc.children_named(g, "nvlink").collect();
            assert_eq!(peers.len(), 4, "{me}: NVLink peers");
            for l in peers {
                links.insert((me.clone(), doc.attr(l, "target").unwrap().into()), doc.attr(l, "count").unwrap().into());
            }
        }
        for ((a, b), n) in &links {
            assert_eq!(links.get(&(b.clone(), a.clone())), Some(n), "{a} -> {b}");
        }
    }

    #[test]
    fn dgx_h100_gpus_split_their_links_5_5_4_4_over_four_visible_switches() {
        let (doc, _) = get("dgx-h100").unwrap().load().unwrap();
        let switches: Vec<&str> = named(&doc, "pci")
            .into_iter()
            .filter(|&p| doc.attr(p, "class") == Some("0x068000"))
            .map(|p| doc.attr(p, "busid").unwrap())
            .collect();
        assert_eq!(switches.len(), 4);
        for g in named(&doc, "gpu") {
            let mut counts: Vec<(&str, &str)> = doc
                .children_named(g, "nvlink")
                .map(|l| (doc.attr(l, "target").unwrap(), doc.attr(l, "count").unwrap()))
                .collect();
            counts.sort();
            let targets: Vec<&str> = counts.iter().map(|c| c.0).collect();
            assert_eq!(targets, switches);
            let mut n: Vec<&str> = counts.iter().map(|c| c.1).collect();
            n.sort();
            assert_eq!(n, vec!["4", "4", "5", "5"]);
        }
    }

    #[test]
    fn grace_gpus_have_c2c_and_arm_cpus_have_no_vendor() {
        for (name, bw_gbs) in [("gh200", 450), ("gb200-nvl72-tray", 225)] {
            let (doc, _) = get(name).unwrap().load().unwrap();
            for g in named(&doc, "gpu") {
                let c = doc.child_named(g, "c2c").unwrap_or_else(|| panic!("{name}: GPU without c2c"));
                assert_eq!(doc.nodes[c].attrs.iter().map(|a| a.0.as_str()).collect::<Vec<_>>(), ["bw", "count"]);
                let bw: u64 = doc.attr(c, "bw").unwrap().parse().unwrap();
                let n: u64 = doc.attr(c, "count").unwrap().parse().unwrap();
                assert_eq!(bw * n / 1000, bw_gbs, "{name}: C2C GB/s");
            }
            for c in named(&doc, "cpu") {
                assert_eq!(doc.attr(c, "arch"), Some("arm64"));
                assert!(doc.attr(c, "vendor").is_none() && doc.attr(c, "familyid").is_none());
            }
        }
    }

    #[test]
    fn attribute_order_matches_real_nccl_dumps() {
        // Real dumps live outside the project; compare against them when they are there.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            crate::test_skip::skip(
                "fixtures::tests::attribute_order_matches_real_nccl_dumps",
                &format!("{} is absent", dir.display()),
            );
            return;
        };
        // Element name -> attribute key sequences seen in the dumps.
        let mut seen: HashMap<String, HashSet<Vec<String>>> = HashMap::new();
        for e in entries.flatten() {
            let Ok(text) = std::fs::read_to_string(e.path()) else { continue };
            let Ok((doc, _)) = xml::parse(&text, None) else { continue };
            for id in doc.preorder() {
                let keys = doc.nodes[id].attrs.iter().map(|a| a.0.clone()).collect();
                seen.entry(doc.name(id).to_string()).or_default().insert(keys);
            }
        }
        let mut compared = 0;
        for f in all() {
            let (doc, _) = f.load().unwrap();
            for id in doc.preorder() {
                let keys: Vec<String> = doc.nodes[id].attrs.iter().map(|a| a.0.clone()).collect();
                let set: HashSet<&String> = keys.iter().collect();
                let Some(orders) = seen.get(doc.name(id)) else { continue };
                let same_set: Vec<&Vec<String>> =
                    orders.iter().filter(|o| o.iter().collect::<HashSet<_>>() == set).collect();
                if same_set.is_empty() {
                    continue;
                }
                assert!(
                    same_set.contains(&&keys),
                    "{}: <{}> attribute order {keys:?}, dumps have {same_set:?}",
                    f.name,
                    doc.name(id)
                );
                compared += 1;
            }
        }
        println!("{compared} elements compared with real dumps");
        assert!(compared > 100);
    }

    #[test]
    fn unknown_fixture_error_lists_the_names() {
        let err = get("dgx-a100").unwrap_err().to_string();
        assert!(err.contains("dgx-a100"), "{err}");
        for f in all() {
            assert!(err.contains(f.name), "{err}");
        }
        assert!(get("").is_err());
        assert_eq!(get("gh200").unwrap().name, "gh200");
    }

    #[test]
    fn synthetic_domain_has_72_gpus_and_the_nics_asked_for() {
        for nics in [0, 1, 18, 72, 100] {
            let doc = synthetic_nvl72(nics).unwrap();
            assert_eq!(count(&doc, "gpu"), SYNTHETIC_GPUS);
            assert_eq!(count(&doc, "net"), nics);
            assert_eq!(count(&doc, "nvlink"), SYNTHETIC_GPUS);
            check_structure("synthetic", &doc);
            // Written in NCCL's form, it reads back to the same bytes.
            let text = xml::write(&doc);
            let (back, diags) = xml::parse(&text, None).unwrap();
            assert!(diags.is_empty());
            assert_eq!(xml::write(&back), text);
            // The only possible lint finding is the element count NCCL would refuse.
            let lint = xml::lint_topology(&back, None, Default::default()).unwrap();
            assert_eq!(lint.len(), usize::from(back.live_count() > xml::NCCL_MAX_NODES), "{lint:?}");
            assert!(lint.iter().all(|d| d.message.contains("256")), "{lint:?}");
        }
    }

    #[test]
    fn synthetic_nics_spread_evenly_over_the_switches() {
        let doc = synthetic_nvl72(18).unwrap();
        for sw in named(&doc, "pci").into_iter().filter(|&p| doc.attr(p, "class") == Some("0x060400")) {
            assert_eq!(doc.descendants_named(sw, "gpu").len(), 4);
            assert_eq!(doc.descendants_named(sw, "net").len(), 1);
        }
        assert!(synthetic_nvl72(SYNTHETIC_MAX_NICS).is_ok());
        let err = synthetic_nvl72(SYNTHETIC_MAX_NICS + 1).unwrap_err().to_string();
        assert!(err.contains(&SYNTHETIC_MAX_NICS.to_string()), "{err}");
    }
}
