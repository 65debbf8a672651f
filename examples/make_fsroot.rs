//! Rebuild the fake machines under `fixtures/fsroot/` from their topologies.
//!
//! `cargo run --example make_fsroot` reads each `fixtures/fsroot/<name>.xml` (the
//! topology `topo detect --root fixtures/fsroot/<name>` must give back), makes the
//! `/sys` + `/proc` tree and `nvml.json` with `tests/support/fsgen.rs`, adds what each
//! machine has besides (devices NCCL ignores, link states, ACS, IOMMU groups, modules),
//! and writes `fixtures/fsroot/<name>/`. It also stamps the `host_hash` the tree's host
//! name and boot id give into the topology file.

use std::path::{Path, PathBuf};

#[path = "../tests/support/fsgen.rs"]
mod fsgen;
use fsgen::{FakeTree, PciSpec, TreeOptions, tree_from_xml};
use topo::discover::nvml::NvLinkFacts;
use topo::xml;

const NAMES: &[&str] = &["dgx-h100", "ws-4gpu", "vm-flat", "gh200", "cloud-vm"];

fn main() {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/fsroot");
    for name in NAMES {
        if let Err(e) = make(&base, name) {
            eprintln!("{name}: {e}");
            std::process::exit(2);
        }
        println!("wrote fixtures/fsroot/{name}/");
    }
}

fn options(name: &str) -> TreeOptions {
    let mut o = TreeOptions { hostname: name.to_string(), ..Default::default() };
    match name {
        "dgx-h100" => o.cmdline = "BOOT_IMAGE=/vmlinuz-6.8.0 root=/dev/nvme0n1p2 ro intel_iommu=on iommu=pt".into(),
        "ws-4gpu" => o.cmdline = "BOOT_IMAGE=/vmlinuz-6.8.0 root=/dev/nvme0n1p2 ro amd_iommu=on".into(),
        "vm-flat" => o.ncpus = Some(8),
        "gh200" => o.kernel = "6.5.0-1019-nvidia-64k".into(),
        _ => {}
    }
    o
}

fn make(base: &Path, name: &str) -> Result<(), topo::error::Error> {
    let spec_path = base.join(format!("{name}.xml"));
    let (mut x, _) = xml::read_file(&spec_path)?;
    let opts = options(name);
    // host_hash: NCCL's hash of host name + boot id, as detection computes it.
    let id = format!("{}{}", opts.hostname, opts.boot_id);
    let hash = format!("{:#x}", topo::discover::nccl_hash(id.as_bytes()));
    for n in x.preorder() {
        if x.name(n) == "cpu" {
            x.set_attr(n, "host_hash", hash.clone());
        }
    }
    std::fs::write(&spec_path, xml::write(&x)).map_err(|e| topo::error::Error::io(&spec_path, e))?;

    let mut t = tree_from_xml(&x, &opts)?;
    match name {
        "dgx-h100" => dgx(&mut t),
        "ws-4gpu" => ws(&mut t),
        "vm-flat" => vm(&mut t),
        "gh200" => gh200(&mut t),
        "cloud-vm" => cloud(&mut t),
        _ => {}
    }
    let dir = base.join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| topo::error::Error::io(&dir, e))?;
    }
    t.write_to(&dir)
}

fn spec(
    class: &str,
    vendor: &str,
    device: &str,
    speed: Option<&str>,
    width: Option<u32>,
    numa: &str,
    cpus: &str,
) -> PciSpec {
    PciSpec {
        class: class.into(),
        vendor: vendor.into(),
        device: device.into(),
        subsystem_vendor: Some(vendor.into()),
        subsystem_device: Some("0x0000".into()),
        max_speed: speed.map(str::to_string),
        max_width: width.map(|w| w.to_string()),
        numa: numa.into(),
        local_cpus: cpus.into(),
        secondary: None,
    }
}

fn bridge(vendor: &str, device: &str, speed: &str, width: u32, secondary: u8, numa: &str, cpus: &str) -> PciSpec {
    let mut s = spec("0x060400", vendor, device, Some(speed), Some(width), numa, cpus);
    s.secondary = Some(secondary);
    s
}

fn path_of(t: &FakeTree, busid: &str) -> String {
    t.pci.get(busid).map(|d| d.path.clone()).unwrap_or_else(|| panic!("{busid} not in the tree"))
}

/// An RDMA device with one port, on the PCI device folder `dev`.
fn ib_device(t: &mut FakeTree, dev: &str, name: &str, state: &str, link_layer: &str, rate: &str, guid: &str) {
    let ib = format!("{dev}/infiniband/{name}");
    t.text(&format!("{ib}/ports/1/state"), state);
    t.text(&format!("{ib}/ports/1/link_layer"), link_layer);
    t.text(&format!("{ib}/ports/1/rate"), rate);
    t.text(&format!("{ib}/sys_image_guid"), guid);
    t.link(&format!("{ib}/device"), dev);
    t.link(&format!("/sys/class/infiniband/{name}"), &ib);
}

/// A virtual network interface (skipped by detection, as NCCL's socket plugin does).
fn virtual_if(t: &mut FakeTree, name: &str, ifindex: u32) {
    let dir = format!("/sys/devices/virtual/net/{name}");
    t.text(&format!("{dir}/ifindex"), &ifindex.to_string());
    t.text(&format!("{dir}/operstate"), "unknown");
    t.link(&format!("/sys/class/net/{name}"), &dir);
}

/// The DGX H100 of `fixtures/topologies/dgx-h100.xml` (the built-in `--fixture dgx-h100`):
/// `fixtures/fsroot/dgx-h100.xml` is that machine as NCCL 2.30.7 dumps it.
fn dgx(t: &mut FakeTree) {
    // NUMA node 0's CPUs: 0-55 and 112-167.
    let c0 = "00000000,000000ff,ffffffff,ffff0000,00000000,00ffffff,ffffffff";
    // BMC display (ASPEED): display class, but not an NVIDIA GPU. Buses 01-08 hold the
    // NVSwitches and their root ports: the VGA gets bus 09.
    let rp = t.add_pci(
        "/sys/devices/pci0000:00",
        "0000:00:1c.0",
        &bridge("0x8086", "0x1bb8", "5.0 GT/s PCIe", 1, 0x09, "0", c0),
    );
    t.add_pci(&rp, "0000:09:00.0", &spec("0x030000", "0x1a03", "0x2000", Some("5.0 GT/s PCIe"), Some(1), "0", c0));
    // An NVMe drive on the first switch, through a fifth downstream port.
    let sw = path_of(t, "0000:18:00.0");
    let ds = t.add_pci(&sw, "0000:19:04.0", &bridge("0x1000", "0xc030", "16.0 GT/s PCIe", 4, 0x1e, "0", c0));
    t.add_pci(&ds, "0000:1e:00.0", &spec("0x010802", "0x144d", "0xa824", Some("16.0 GT/s PCIe"), Some(4), "0", c0));
    // Management NIC: a ConnectX-6 Dx in Ethernet mode whose port is down.
    let rp = t.add_pci(
        "/sys/devices/pci0000:50",
        "0000:50:01.0",
        &bridge("0x8086", "0x352a", "16.0 GT/s PCIe", 8, 0x51, "0", c0),
    );
    let nic =
        t.add_pci(&rp, "0000:51:00.0", &spec("0x020000", "0x15b3", "0x101d", Some("16.0 GT/s PCIe"), Some(8), "0", c0));
    ib_device(t, &nic, "mlx5_12", "1: DOWN", "Ethernet", "10 Gb/sec (1X SDR)", "1070:fd03:00c1:5e20");
    let eth = format!("{nic}/net/eno8np0");
    t.text(&format!("{eth}/speed"), "-1");
    t.text(&format!("{eth}/ifindex"), "2");
    t.link(&format!("{eth}/device"), &nic);
    t.link("/sys/class/net/eno8np0", &eth);
    virtual_if(t, "lo", 1);
    // ACS present on the Broadcom switch ports, with only Source Validation: harmless.
    let bcm: Vec<String> =
        t.pci.values().filter(|d| d.vendor == 0x1000 && d.class == 0x060400).map(|d| d.busid.clone()).collect();
    for b in bcm {
        t.set_acs(&b, 0x0001);
    }
    // IOMMU in passthrough for everything that matters.
    let ends: Vec<String> =
        t.pci.values().filter(|d| d.class >> 16 == 0x03 || d.class >> 16 == 0x02).map(|d| d.busid.clone()).collect();
    for (i, b) in ends.iter().enumerate() {
        t.set_iommu_group(b, 20 + i as u32, "identity");
    }
    // One idle GPU has dropped its link to Gen1 to save power.
    t.set_current_link("0000:42:00.0", "2.5 GT/s PCIe", 16);
}

fn ws(t: &mut FakeTree) {
    let c = "ffff";
    t.add_pci("/sys/devices/pci0000:00", "0000:00:00.0", &spec("0x060000", "0x1022", "0x14d8", None, None, "0", c));
    virtual_if(t, "lo", 1);
    virtual_if(t, "docker0", 3);
    // The AMD root ports above the GPUs redirect peer-to-peer traffic (ACS).
    let gpus = ["0000:01:00.0", "0000:21:00.0", "0000:41:00.0", "0000:61:00.0"];
    let rps: Vec<String> = t
        .pci
        .values()
        .filter(|d| {
            d.class == 0x060400
                && gpus.iter().any(|g| t.pci.get(*g).is_some_and(|gd| gd.path.starts_with(&format!("{}/", d.path))))
        })
        .map(|d| d.busid.clone())
        .collect();
    for r in rps {
        t.set_acs(&r, 0x001d);
    }
    // IOMMU translating (amd_iommu=on without iommu=pt).
    for (i, b) in gpus.iter().chain(["0000:45:00.0"].iter()).enumerate() {
        t.set_iommu_group(b, 30 + i as u32, "DMA-FQ");
    }
    // git keeps no empty folder: a file holds this one.
    t.text("/sys/class/iommu/ivhd0/.keep", "1");
    // GPU 3's link trained at x8 only (a real downtrain); GPU 0 idles at Gen1.
    t.set_current_link("0000:61:00.0", "16.0 GT/s PCIe", 8);
    t.set_current_link("0000:01:00.0", "2.5 GT/s PCIe", 16);
    if let Some(n) = &mut t.nvml {
        let ok: Vec<Vec<String>> =
            (0..4).map(|i| (0..4).map(|j| if i == j { "X".to_string() } else { "OK".to_string() }).collect()).collect();
        n.p2p.read = Some(ok.clone());
        n.p2p.write = Some(ok);
        for g in &mut n.gpus {
            g.name = Some("NVIDIA RTX 6000 Ada Generation".into());
        }
    }
}

fn vm(t: &mut FakeTree) {
    // Two NUMA nodes in the guest, but the devices' numa_node is -1.
    t.text("/sys/devices/system/node/node0/cpumap", "0f");
    t.text("/sys/devices/system/node/node0/cpulist", "0-3");
    t.text("/sys/devices/system/node/node1/cpumap", "f0");
    t.text("/sys/devices/system/node/node1/cpulist", "4-7");
    t.text("/sys/devices/system/node/online", "0-1");
    t.text("/sys/devices/system/node/possible", "0-1");
    for p in 4..8 {
        let dir = format!("/sys/devices/system/cpu/cpu{p}/topology");
        t.text(&format!("{dir}/physical_package_id"), "1");
        t.text(&format!("{dir}/package_cpus"), "f0");
    }
    for p in 0..4 {
        t.text(&format!("/sys/devices/system/cpu/cpu{p}/topology/package_cpus"), "0f");
    }
    // QEMU's VGA (display class, not a GPU). The host bridge 0000:00:00.0 comes from the
    // topology: NCCL_IB_MERGE_VFS maps the IB VF at 0000:00:07.0 onto it.
    t.add_pci("/sys/devices/pci0000:00", "0000:00:01.0", &spec("0x030000", "0x1234", "0x1111", None, None, "-1", "ff"));
    let bridge = path_of(t, "0000:00:00.0");
    t.remove_tree(&format!("{bridge}/infiniband"));
    let mut vf = spec("0x020700", "0x15b3", "0x101e", None, None, "-1", "ff");
    vf.subsystem_device = Some("0x0061".into());
    let vf = t.add_pci("/sys/devices/pci0000:00", "0000:00:07.0", &vf);
    ib_device(t, &vf, "mlx5_0", "4: ACTIVE", "InfiniBand", "400 Gb/sec (4X NDR)", "0c42:a103:0062:1f00");
    // Devices on a flat virtual bus have no PCIe link files.
    for b in ["0000:00:05.0", "0000:00:06.0"] {
        let p = path_of(t, b);
        for f in ["max_link_speed", "max_link_width", "current_link_speed", "current_link_width"] {
            t.remove(&format!("{p}/{f}"));
        }
    }
    virtual_if(t, "lo", 1);
    if let Some(n) = &mut t.nvml {
        let m = |c: &str| -> Vec<Vec<String>> {
            (0..2).map(|i| (0..2).map(|j| if i == j { "X".to_string() } else { c.to_string() }).collect()).collect()
        };
        n.p2p.read = Some(m("CNS"));
        n.p2p.write = Some(m("OK"));
        for g in &mut n.gpus {
            g.dmabuf = Some(false);
            g.name = Some("NVIDIA H100 80GB HBM3".into());
        }
    }
}

fn gh200(t: &mut FakeTree) {
    // GPUDirect RDMA through DMA-BUF, no peer-memory module.
    t.remove("/sys/module/nvidia_peermem/version");
    // The GPUs' memory shows up as CPU-less NUMA nodes.
    for n in 4..8 {
        t.text(&format!("/sys/devices/system/node/node{n}/cpumap"), "0000");
        t.text(&format!("/sys/devices/system/node/node{n}/cpulist"), "");
    }
    t.text("/sys/devices/system/node/online", "0-7");
    if let Some(n) = &mut t.nvml {
        for g in &mut n.gpus {
            g.dmabuf = Some(true);
            g.name = Some("NVIDIA GH200 480GB".into());
        }
        // GPU 0's sixth link to GPU 3 is down on its side.
        if let Some(g0) = n.gpus.iter_mut().find(|g| g.index == 0) {
            g0.nvlinks.push(NvLinkFacts { link: 17, p2p: true, active: false, remote: Some("0039:01:00.0".into()) });
        }
    }
}

fn cloud(t: &mut FakeTree) {
    // Replace the generated stand-in NIC by what a KVM guest has: virtio devices only.
    t.remove_tree("/sys/devices/platform");
    t.remove_tree("/sys/bus/platform");
    t.remove("/sys/class/net/eth0");
    let root = "/sys/devices/pci0000:00";
    let cpus = "3";
    let v = |class: &str, dev: &str| {
        let mut s = spec(class, "0x1af4", dev, None, None, "-1", cpus);
        s.subsystem_device = Some("0x1100".into());
        s
    };
    t.add_pci(root, "0000:00:00.0", &spec("0x060000", "0x8086", "0x0d57", None, None, "-1", cpus));
    t.add_pci(root, "0000:00:01.0", &v("0xffff00", "0x1045"));
    t.add_pci(root, "0000:00:02.0", &v("0x018000", "0x1042"));
    let net = t.add_pci(root, "0000:00:03.0", &v("0x020000", "0x1041"));
    t.add_pci(root, "0000:00:04.0", &v("0xffff00", "0x1053"));
    t.add_pci(root, "0000:00:05.0", &v("0xffff00", "0x1044"));
    let virtio = format!("{net}/virtio2");
    t.link(&format!("{virtio}/subsystem"), "/sys/bus/virtio");
    // A file of its own keeps the folder in git (the link above needs it).
    t.text("/sys/bus/virtio/drivers_autoprobe", "1");
    let eth = format!("{virtio}/net/eth0");
    t.text(&format!("{eth}/speed"), "-1");
    t.text(&format!("{eth}/ifindex"), "2");
    t.text(&format!("{eth}/operstate"), "up");
    t.link(&format!("{eth}/device"), &virtio);
    t.link("/sys/class/net/eth0", &eth);
    virtual_if(t, "lo", 1);
    virtual_if(t, "ifb0", 3);
}
