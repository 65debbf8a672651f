//! Properties of detection on generated machines: what detection writes, regenerated,
//! is detected again unchanged; and no sysfs content makes detection or the checks fail.

use std::path::Path;

use proptest::prelude::*;
use topo::check;
#[path = "support/fsgen.rs"]
mod fsgen;
use fsgen::{FakeTree, TreeOptions, tree_from_xml};
use topo::discover::{Options, Source, detect};
use topo::xml::{self, Xml};

mod common;
use common::scratch;

/// A tiny deterministic generator (xorshift) driving the topology shape.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random machine: 1-2 CPUs, switches (one or two levels), GPUs, IB NICs (one or two
/// ports), NVLinks between GPUs.
fn random_topology(seed: u64) -> Xml {
    let mut r = Rng(seed | 1);
    let mut s = String::from("<system version=\"1\">\n");
    let mut bus = 0x10u32;
    let mut gpu = 0u32;
    let mut net = 0u32;
    let mut gpus = Vec::new();
    let ncpu = 1 + r.below(2) as u32;
    let mut body = Vec::new();
    for c in 0..ncpu {
        let mut kids = String::new();
        for _ in 0..1 + r.below(3) {
            bus += 3;
            let top = bus;
            let leaf = |r: &mut Rng, bus: &mut u32, gpu: &mut u32, net: &mut u32, gpus: &mut Vec<String>| -> String {
                *bus += 3;
                let b = format!("0000:{:02x}:00.0", *bus);
                if r.below(3) == 0 {
                    let ports = 1 + r.below(2) as u32;
                    let mut n = format!(
                        "<pci busid=\"{b}\" class=\"0x020700\" vendor=\"0x15b3\" device=\"0x1021\" subsystem_vendor=\"0x15b3\" subsystem_device=\"0x0041\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"><nic>"
                    );
                    for p in 0..ports {
                        n += &format!(
                            "<net name=\"mlx5_{}\" dev=\"{}\" latency=\"0\" speed=\"200000\" port=\"{}\" guid=\"0x{:x}\" maxconn=\"131072\" gdr=\"1\" net=\"1\"/>",
                            *net,
                            *net,
                            p + 1,
                            0x1000 + *bus
                        );
                        *net += 1;
                    }
                    n + "</nic></pci>"
                } else {
                    let sm = if r.below(2) == 0 { 80 } else { 90 };
                    gpus.push(b.clone());
                    let g = format!(
                        "<pci busid=\"{b}\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" subsystem_vendor=\"0x10de\" subsystem_device=\"0x16c1\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"><gpu dev=\"{}\" sm=\"{sm}\" rank=\"{}\" gdr=\"1\" mlopart=\"-1\">LINKS{}</gpu></pci>",
                        *gpu, *gpu, *gpu
                    );
                    *gpu += 1;
                    g
                }
            };
            if r.below(2) == 0 {
                kids += &leaf(&mut r, &mut bus, &mut gpu, &mut net, &mut gpus);
            } else {
                let mut inner = String::new();
                for _ in 0..1 + r.below(3) {
                    if r.below(3) == 0 {
                        bus += 3;
                        let sub = bus;
                        let l = leaf(&mut r, &mut bus, &mut gpu, &mut net, &mut gpus);
                        inner += &format!(
                            "<pci busid=\"0000:{sub:02x}:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\" subsystem_vendor=\"0x1000\" subsystem_device=\"0x100b\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">{l}</pci>"
                        );
                    } else {
                        inner += &leaf(&mut r, &mut bus, &mut gpu, &mut net, &mut gpus);
                    }
                }
                kids += &format!(
                    "<pci busid=\"0000:{top:02x}:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\" subsystem_vendor=\"0x1000\" subsystem_device=\"0x100b\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">{inner}</pci>"
                );
            }
        }
        body.push(format!("<cpu host_hash=\"0x1\" numaid=\"{c}\" affinity=\"{:x}\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\">{kids}</cpu>", 0xfu32 << (4 * c)));
    }
    s += &body.concat();
    s += "</system>\n";
    // NVLinks: each GPU to the next one, a random count.
    for (i, _) in gpus.clone().iter().enumerate() {
        let links = if gpus.len() > 1 {
            let t = &gpus[(i + 1) % gpus.len()];
            format!("<nvlink target=\"{t}\" count=\"{}\" tclass=\"0x030200\"/>", 1 + r.below(4))
        } else {
            String::new()
        };
        s = s.replacen(&format!("LINKS{i}"), &links, 1);
    }
    xml::parse(&s, None).unwrap().0
}

fn detect_tree(t: &FakeTree) -> Xml {
    let d = scratch();
    t.write_to(d.path()).unwrap();
    let (sys, src) = Source { root: Some(d.path().to_path_buf()), nvml_fake: None }.open().unwrap();
    detect(&sys, src.as_ref(), &Options::default()).unwrap().xml
}

fn count(x: &Xml, name: &str) -> usize {
    x.preorder().into_iter().filter(|&n| x.name(n) == name).count()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// x1 = detect(tree(x)); then detect(tree(x1)) == x1, and nothing is lost.
    #[test]
    fn detection_of_a_generated_machine_is_a_fixed_point(seed in any::<u64>()) {
        let x = random_topology(seed);
        let opts = TreeOptions::default();
        let x1 = detect_tree(&tree_from_xml(&x, &opts).unwrap());
        let x2 = detect_tree(&tree_from_xml(&x1, &opts).unwrap());
        prop_assert_eq!(xml::write(&x1), xml::write(&x2));
        for name in ["gpu", "net", "nvlink"] {
            prop_assert_eq!(count(&x, name), count(&x1, name), "{}", name);
        }
        prop_assert!(xml::lint_topology(&x1, None, Default::default()).unwrap().is_empty());
    }

    /// Garbage in sysfs files (empty, binary, huge or negative numbers) never makes
    /// detection or the checks fail.
    #[test]
    fn odd_sysfs_values_never_break_detection(seed in any::<u64>(), which in 0usize..2) {
        let name = ["ws-4gpu", "vm-flat"][which];
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/fsroot/{name}.xml"))).unwrap();
        let x = xml::parse(&text, None).unwrap().0;
        let mut t = tree_from_xml(&x, &TreeOptions::default()).unwrap();
        let files = t.file_paths();
        let mut r = Rng(seed | 1);
        let junk: [&[u8]; 8] = [b"", b"\xff\xfe\x00garbage", b"-1\n", b"99999999999999999999\n", b"0x\n", b"Unknown\n", b"16.0 GT/s PCIe\n", b"0000:zz:00.0\n"];
        for _ in 0..40 {
            let f = &files[r.below(files.len() as u64) as usize];
            t.bytes(f, junk[r.below(junk.len() as u64) as usize].to_vec());
        }
        // A folder where a file should be, and a link loop.
        t.dir("/sys/bus/pci/devices/0000:00:00.7/class");
        t.link("/sys/class/net/loop0", "/sys/class/net/loop1");
        t.link("/sys/class/net/loop1", "/sys/class/net/loop0");
        let d = scratch();
        t.write_to(d.path()).unwrap();
        let (sys, src) = Source { root: Some(d.path().to_path_buf()), nvml_fake: None }.open().unwrap();
        let det = detect(&sys, src.as_ref(), &Options { all: true, ..Default::default() });
        prop_assert!(det.is_ok(), "{:?}", det.err());
        let det = det.unwrap();
        let _ = check::run_checks(&sys, &det);
        let out = xml::write(&det.xml);
        prop_assert!(xml::parse(&out, None).is_ok());
    }
}
