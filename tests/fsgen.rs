//! The fake-machine writer of the tests (`tests/support/fsgen.rs`) on its own.

#[path = "support/fsgen.rs"]
mod fsgen;

use fsgen::{FakeTree, relative};
use topo::discover::cpumap;

#[test]
fn relative_links() {
    assert_eq!(
        relative("/sys/bus/pci/devices", "/sys/devices/pci0000:00/0000:00:01.0"),
        "../../../devices/pci0000:00/0000:00:01.0"
    );
    assert_eq!(relative("/sys/devices/pci0000:00/0000:00:01.0", "/sys/bus/pci"), "../../../bus/pci");
}

#[test]
fn numa_nodes_hold_the_affinity_in_both_kernel_formats() {
    let (x, _) = topo::fixtures::get("dgx-h100").unwrap().load().unwrap();
    let t: FakeTree = fsgen::tree_from_xml(&x, &fsgen::TreeOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    t.write_to(dir.path()).unwrap();
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap().trim_end().to_string();
    let cpus: Vec<_> = x.preorder().into_iter().filter(|&n| x.name(n) == "cpu").collect();
    assert!(!cpus.is_empty());
    for c in cpus {
        let numa = x.attr(c, "numaid").unwrap();
        let affinity = x.attr(c, "affinity").unwrap();
        let map = read(&format!("sys/devices/system/node/node{numa}/cpumap"));
        assert_eq!(map, affinity);
        let list = read(&format!("sys/devices/system/node/node{numa}/cpulist"));
        assert_eq!(list, cpumap::ranges(&cpumap::parse(affinity)));
        assert!(!list.is_empty());
    }
}
