//! Fake machines: a `/sys` + `/proc` tree (hwloc's fsroot layout) and a fake-NVML file
//! made from a topology, so that `topo detect --root DIR` gives the topology back.
//!
//! [`tree_from_xml`] inverts detection: every `<pci>` becomes a device folder under
//! `sys/devices`, a `<pci>` with `<pci>` children becomes a switch (its upstream port,
//! plus one downstream port per child bus), a `<pci>` right under a `<cpu>` hangs below a
//! made-up root port (or directly on a root bus when its link is unknown, as in VMs),
//! `<gpu>`s become entries of `nvml.json`, `<net>`s become `/sys/class/infiniband`
//! ports (or `/sys/class/net` interfaces when `port="0"`), `<cpu>`s become NUMA nodes and
//! `/proc/cpuinfo`. Bus numbers of made-up bridges are picked so that every bridge's
//! secondary bus is its children's bus when the topology leaves room, so hwloc's
//! `lstopo -i DIR` sees the same hierarchy.
//!
//! For every topology `x` that detection produces, `detect(tree(x)) == x` (the
//! `host_hash` aside, which comes from the host name and boot id written here). The
//! [`FakeTree`] can be edited before it is written (extra devices, link states, ACS,
//! IOMMU groups) to make test machines.
//!
//! Test support, not part of the library: the integration tests and
//! `examples/make_fsroot.rs` include it with `#[path = ".../support/fsgen.rs"] mod fsgen;`,
//! and its own tests are in `tests/fsgen.rs`.

// Each including crate uses a different part of it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use topo::discover::cpumap;
use topo::discover::nvml::{C2cLink, GpuFacts, NvLinkFacts, NvmlSnapshot, to_fake_json};
use topo::discover::walk::{HIDDEN_REMOTE, NVSWITCH_CLASS};
use topo::error::Error;
use topo::xml::{NodeId, Xml, strtol, strtoull_hex};

/// One entry of a fake tree.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    File(Vec<u8>),
    Dir,
    /// Symbolic link to a logical absolute path (written relative).
    Link(String),
}

/// A PCI device of the fake tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakePci {
    pub busid: String,
    /// Logical sysfs folder.
    pub path: String,
    pub vendor: u16,
    pub device: u16,
    pub class: u32,
    /// Secondary bus for bridges.
    pub secondary: Option<u8>,
    /// ACS Control register to put in an ACS extended capability (config space then
    /// has 4096 bytes, as root sees it).
    pub acs: Option<u16>,
}

/// A fake `/sys` + `/proc` tree held in memory.
#[derive(Debug, Clone, Default)]
pub struct FakeTree {
    entries: BTreeMap<String, Entry>,
    /// PCI devices by bus id.
    pub pci: BTreeMap<String, FakePci>,
    /// What NVML answers on this machine, written as `/nvml.json` (none: no NVML).
    pub nvml: Option<NvmlSnapshot>,
}

/// What a PCI device looks like, for [`FakeTree::add_pci`].
#[derive(Debug, Clone, Default)]
pub struct PciSpec {
    pub class: String,
    pub vendor: String,
    pub device: String,
    pub subsystem_vendor: Option<String>,
    pub subsystem_device: Option<String>,
    pub max_speed: Option<String>,
    pub max_width: Option<String>,
    pub numa: String,
    pub local_cpus: String,
    pub secondary: Option<u8>,
}

fn hex_u32(s: &str) -> u32 {
    strtoull_hex(s) as u32
}

/// Relative link text from the folder holding a link to a logical target.
pub fn relative(link_dir: &str, target: &str) -> String {
    let a: Vec<&str> = link_dir.split('/').filter(|c| !c.is_empty()).collect();
    let b: Vec<&str> = target.split('/').filter(|c| !c.is_empty()).collect();
    let common = a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<&str> = std::iter::repeat_n("..", a.len() - common).collect();
    parts.extend(&b[common..]);
    if parts.is_empty() { ".".into() } else { parts.join("/") }
}

fn parent_dir(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

impl FakeTree {
    /// Write (or replace) a file; `\n` is appended to text that lacks it.
    pub fn text(&mut self, path: &str, content: &str) {
        let mut s = content.to_string();
        if !s.ends_with('\n') {
            s.push('\n');
        }
        self.entries.insert(path.to_string(), Entry::File(s.into_bytes()));
    }

    /// Write (or replace) a file with raw bytes.
    pub fn bytes(&mut self, path: &str, content: Vec<u8>) {
        self.entries.insert(path.to_string(), Entry::File(content));
    }

    pub fn dir(&mut self, path: &str) {
        self.entries.entry(path.to_string()).or_insert(Entry::Dir);
    }

    /// A symbolic link at `path` to the logical `target`.
    pub fn link(&mut self, path: &str, target: &str) {
        self.entries.insert(path.to_string(), Entry::Link(target.to_string()));
    }

    pub fn remove(&mut self, path: &str) {
        self.entries.remove(path);
    }

    /// Remove everything at or below `prefix`, PCI devices included.
    pub fn remove_tree(&mut self, prefix: &str) {
        let below = format!("{prefix}/");
        self.entries.retain(|k, _| k != prefix && !k.starts_with(&below));
        self.pci.retain(|_, d| d.path != prefix && !d.path.starts_with(&below));
    }

    /// Paths of the regular files (not links or folders), sorted.
    pub fn file_paths(&self) -> Vec<String> {
        self.entries.iter().filter(|(_, e)| matches!(e, Entry::File(_))).map(|(k, _)| k.clone()).collect()
    }

    /// Whether a file or folder was added at `path`.
    pub fn has(&self, path: &str) -> bool {
        self.entries.contains_key(path)
    }

    /// Add a PCI device folder under `parent` (a logical folder such as
    /// `/sys/devices/pci0000:00` or a bridge's folder), with its sysfs files and its
    /// `/sys/bus/pci/devices` link. Returns its folder.
    pub fn add_pci(&mut self, parent: &str, busid: &str, spec: &PciSpec) -> String {
        let path = format!("{parent}/{busid}");
        let f = |n: &str| format!("{path}/{n}");
        self.text(&f("class"), &spec.class);
        self.text(&f("vendor"), &spec.vendor);
        self.text(&f("device"), &spec.device);
        if let Some(v) = &spec.subsystem_vendor {
            self.text(&f("subsystem_vendor"), v);
        }
        if let Some(v) = &spec.subsystem_device {
            self.text(&f("subsystem_device"), v);
        }
        if let Some(s) = &spec.max_speed {
            self.text(&f("max_link_speed"), s);
            self.text(&f("current_link_speed"), s);
        }
        if let Some(w) = &spec.max_width {
            self.text(&f("max_link_width"), w);
            self.text(&f("current_link_width"), w);
        }
        self.text(&f("numa_node"), &spec.numa);
        self.text(&f("local_cpus"), &spec.local_cpus);
        self.link(&f("subsystem"), "/sys/bus/pci");
        self.link(&format!("/sys/bus/pci/devices/{busid}"), &path);
        self.pci.insert(
            busid.to_string(),
            FakePci {
                busid: busid.to_string(),
                path: path.clone(),
                vendor: hex_u32(&spec.vendor) as u16,
                device: hex_u32(&spec.device) as u16,
                class: hex_u32(&spec.class),
                secondary: spec.secondary,
                acs: None,
            },
        );
        path
    }

    /// Set the current (trained) link of a device.
    pub fn set_current_link(&mut self, busid: &str, speed: &str, width: u32) {
        if let Some(p) = self.pci.get(busid).map(|d| d.path.clone()) {
            self.text(&format!("{p}/current_link_speed"), speed);
            self.text(&format!("{p}/current_link_width"), &width.to_string());
        }
    }

    /// Give a bridge an ACS capability with this control register.
    pub fn set_acs(&mut self, busid: &str, ctrl: u16) {
        if let Some(d) = self.pci.get_mut(busid) {
            d.acs = Some(ctrl);
        }
    }

    /// Put a device in an IOMMU group of the given type (`DMA`, `DMA-FQ`, `identity`).
    pub fn set_iommu_group(&mut self, busid: &str, group: u32, kind: &str) {
        let g = format!("/sys/kernel/iommu_groups/{group}");
        self.text(&format!("{g}/type"), kind);
        if let Some(p) = self.pci.get(busid).map(|d| d.path.clone()) {
            self.link(&format!("{p}/iommu_group"), &g);
            self.link(&format!("{g}/devices/{busid}"), &p);
        }
    }

    /// The 64-byte (or, with ACS, 4096-byte) config space of a device.
    fn config(&self, d: &FakePci) -> Vec<u8> {
        let mut c = vec![0u8; if d.acs.is_some() { 4096 } else { 64 }];
        c[0..2].copy_from_slice(&d.vendor.to_le_bytes());
        c[2..4].copy_from_slice(&d.device.to_le_bytes());
        c[9] = (d.class & 0xff) as u8;
        c[10] = ((d.class >> 8) & 0xff) as u8;
        c[11] = ((d.class >> 16) & 0xff) as u8;
        if let Some(sec) = d.secondary {
            c[0x0e] = 0x01;
            let bus = split_busid(&d.busid).map(|b| b.1).unwrap_or(0);
            let prefix = format!("{}/", d.path);
            let sub = self
                .pci
                .values()
                .filter(|o| o.path.starts_with(&prefix))
                .filter_map(|o| split_busid(&o.busid).map(|b| b.1))
                .max()
                .unwrap_or(sec)
                .max(sec);
            c[0x18] = bus;
            c[0x19] = sec;
            c[0x1a] = sub;
        }
        if let Some(ctrl) = d.acs {
            // ACS extended capability (id 0x000d, version 1) at 0x100, last in the list.
            c[0x100..0x104].copy_from_slice(&(0x000du32 | (1 << 16)).to_le_bytes());
            c[0x104..0x106].copy_from_slice(&0x005fu16.to_le_bytes()); // capabilities
            c[0x106..0x108].copy_from_slice(&ctrl.to_le_bytes());
        }
        c
    }

    /// Write the tree under `dir` (which must not hold an older tree).
    pub fn write_to(&self, dir: &Path) -> Result<(), Error> {
        let host = |p: &str| dir.join(p.trim_start_matches('/'));
        let mk = |p: &Path| std::fs::create_dir_all(p).map_err(|e| Error::io(p, e));
        mk(dir)?;
        let mut all = self.entries.clone();
        if let Some(n) = &self.nvml {
            let json = to_fake_json(n, "what NVML answers on this fake machine (see topo::discover::nvml)");
            all.insert("/nvml.json".into(), Entry::File(json.into_bytes()));
        }
        for d in self.pci.values() {
            all.insert(format!("{}/config", d.path), Entry::File(self.config(d)));
        }
        for (path, e) in &all {
            let h = host(path);
            match e {
                Entry::Dir => mk(&h)?,
                Entry::File(b) => {
                    if let Some(p) = h.parent() {
                        mk(p)?;
                    }
                    std::fs::write(&h, b).map_err(|e| Error::io(&h, e))?;
                }
                Entry::Link(target) => {
                    if let Some(p) = h.parent() {
                        mk(p)?;
                    }
                    let rel = relative(parent_dir(path), target);
                    std::os::unix::fs::symlink(&rel, &h).map_err(|e| Error::io(&h, e))?;
                }
            }
        }
        // Link targets that are folders with no file of their own.
        for e in all.values() {
            if let Entry::Link(t) = e {
                let h = host(t);
                if std::fs::symlink_metadata(&h).is_err() {
                    mk(&h)?;
                }
            }
        }
        Ok(())
    }
}

/// Host facts written into a generated tree.
#[derive(Debug, Clone)]
pub struct TreeOptions {
    pub hostname: String,
    pub boot_id: String,
    pub kernel: String,
    pub cmdline: String,
    /// CPUs to make when the topology's affinities name none (4 by default).
    pub ncpus: Option<u32>,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            hostname: "topo-fake".into(),
            boot_id: "5f1c0a4e-2b7d-4c1e-9a53-7e0d8b6c2f10".into(),
            kernel: "6.8.0-topo".into(),
            cmdline: "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro".into(),
            ncpus: None,
        }
    }
}

/// NVML's PCIe generation for a `link_speed` NCCL wrote from NVML.
fn gen_of(speed: &str) -> Option<u32> {
    ["2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"]
        .iter()
        .position(|s| *s == speed)
        .map(|i| i as u32 + 1)
}

struct BusAlloc {
    used: BTreeSet<(u16, u8)>,
}

impl BusAlloc {
    /// A free bus of `dom`, preferably strictly between `lo` and `hi`, closest to
    /// `near`; any free bus of the domain otherwise.
    fn take(&mut self, dom: u16, lo: i32, hi: i32, near: i32) -> u8 {
        let mut cands: Vec<i32> =
            ((lo + 1).max(0)..hi.min(256)).filter(|b| !self.used.contains(&(dom, *b as u8))).collect();
        if cands.is_empty() {
            cands = (0..256).filter(|b| !self.used.contains(&(dom, *b as u8))).collect();
        }
        cands.sort_by_key(|b| (b - near).abs());
        let b = cands.first().copied().unwrap_or(0) as u8;
        self.used.insert((dom, b));
        b
    }
}

fn split_busid(b: &str) -> Option<(u16, u8, u8, u8)> {
    let n = topo::discover::sysfs::normalize_busid(b)?;
    Some((
        u16::from_str_radix(&n[0..4], 16).ok()?,
        u8::from_str_radix(&n[5..7], 16).ok()?,
        u8::from_str_radix(&n[8..10], 16).ok()?,
        u8::from_str_radix(&n[11..12], 16).ok()?,
    ))
}

struct Gen<'a> {
    x: &'a Xml,
    tree: FakeTree,
    buses: BusAlloc,
    /// Next device number per (domain, root bus).
    next_dev: BTreeMap<(u16, u8), u8>,
    ncpus: u32,
    cpu_vendor: String,
    nvml: NvmlSnapshot,
    ifindex: u32,
    platform: u32,
    any_gdr: bool,
}

/// Make a fake machine from a topology. The tree's `/nvml.json` holds the GPU facts.
pub fn tree_from_xml(x: &Xml, opts: &TreeOptions) -> Result<FakeTree, Error> {
    let root = x.root().ok_or_else(|| Error::Input { file: "<topology>".into(), message: "empty document".into() })?;
    if x.name(root) != "system" {
        return Err(Error::Input { file: "<topology>".into(), message: "the top element must be <system>".into() });
    }
    let mut used = BTreeSet::new();
    for n in x.preorder() {
        if let Some((d, b, _, _)) = x.attr(n, "busid").and_then(split_busid) {
            used.insert((d, b));
        }
    }
    let cpus: Vec<NodeId> = x.children_named(root, "cpu").collect();
    let mut all_cpus = BTreeSet::new();
    for &c in &cpus {
        all_cpus.extend(cpumap::parse(x.attr(c, "affinity").unwrap_or("")));
    }
    let ncpus = all_cpus.iter().max().map(|m| m + 1).unwrap_or(opts.ncpus.unwrap_or(4));
    let first = cpus.first().copied();
    let mut g = Gen {
        x,
        tree: FakeTree::default(),
        buses: BusAlloc { used },
        next_dev: BTreeMap::new(),
        ncpus,
        cpu_vendor: first.and_then(|c| x.attr(c, "vendor")).unwrap_or("").to_string(),
        nvml: NvmlSnapshot { driver_version: Some("550.90.07".into()), ..Default::default() },
        ifindex: 2,
        platform: 0,
        any_gdr: false,
    };
    g.host(opts, &cpus, &all_cpus);
    for &c in &cpus {
        let numa = x.attr(c, "numaid").unwrap_or("-1").to_string();
        let local = g.local_cpus(&numa);
        for ch in x.children(c).to_vec() {
            match x.name(ch) {
                "pci" => g.top_pci(ch, &numa, &local),
                "nic" => g.nics(ch, None, &numa, &local),
                _ => {}
            }
        }
    }
    g.nvml.gpus.sort_by_key(|f| f.index);
    if g.any_gdr {
        g.tree.text("/sys/module/nvidia_peermem/version", "1.0");
    }
    if !g.nvml.gpus.is_empty() || !g.nvml.ib_max_qp.is_empty() {
        g.tree.nvml = Some(g.nvml);
    }
    Ok(g.tree)
}

impl Gen<'_> {
    fn local_cpus(&self, numa: &str) -> String {
        let set = self
            .x
            .preorder()
            .into_iter()
            .find(|&n| self.x.name(n) == "cpu" && self.x.attr(n, "numaid") == Some(numa))
            .map(|c| cpumap::parse(self.x.attr(c, "affinity").unwrap_or("")))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| (0..self.ncpus).collect());
        cpumap::format(self.ncpus, set.iter().copied())
    }

    fn host(&mut self, opts: &TreeOptions, cpus: &[NodeId], all_cpus: &BTreeSet<u32>) {
        let x = self.x;
        let t = &mut self.tree;
        t.text("/proc/sys/kernel/hostname", &opts.hostname);
        t.text("/proc/sys/kernel/random/boot_id", &opts.boot_id);
        t.text("/proc/sys/kernel/osrelease", &opts.kernel);
        t.text("/proc/cmdline", &opts.cmdline);
        // NUMA nodes and which CPU belongs to which.
        let mut node_of: BTreeMap<u32, u32> = BTreeMap::new();
        let mut nodes = Vec::new();
        for &c in cpus {
            let id = x.attr(c, "numaid").map(strtol).unwrap_or(-1);
            let aff = x.attr(c, "affinity").unwrap_or("");
            if id < 0 {
                continue;
            }
            let set = cpumap::parse(aff);
            for &p in &set {
                node_of.entry(p).or_insert(id as u32);
            }
            let dir = format!("/sys/devices/system/node/node{id}");
            t.text(&format!("{dir}/cpumap"), aff);
            t.text(&format!("{dir}/cpulist"), &cpumap::ranges(&set));
            nodes.push(id as u32);
        }
        if nodes.is_empty() {
            let set: BTreeSet<u32> = (0..self.ncpus).collect();
            t.text("/sys/devices/system/node/node0/cpumap", &cpumap::format(self.ncpus, set.iter().copied()));
            t.text("/sys/devices/system/node/node0/cpulist", &cpumap::ranges(&set));
            nodes.push(0);
        }
        let nodeset: BTreeSet<u32> = nodes.iter().copied().collect();
        t.text("/sys/devices/system/node/online", &cpumap::ranges(&nodeset));
        t.text("/sys/devices/system/node/possible", &cpumap::ranges(&nodeset));
        let online = format!("0-{}", self.ncpus.saturating_sub(1));
        t.text("/sys/devices/system/cpu/online", &online);
        t.text("/sys/devices/system/cpu/possible", &online);
        let first = cpus.first().copied();
        let arch = first.and_then(|c| x.attr(c, "arch")).unwrap_or("x86_64");
        let vendor = first.and_then(|c| x.attr(c, "vendor"));
        let family = first.and_then(|c| x.attr(c, "familyid")).map(strtol);
        let model = first.and_then(|c| x.attr(c, "modelid")).map(strtol);
        let mut info = String::new();
        for p in 0..self.ncpus {
            let pkg = node_of.get(&p).copied().unwrap_or(0);
            let pkg_set: BTreeSet<u32> =
                (0..self.ncpus).filter(|q| node_of.get(q).copied().unwrap_or(0) == pkg).collect();
            let dir = format!("/sys/devices/system/cpu/cpu{p}/topology");
            t.text(&format!("{dir}/physical_package_id"), &pkg.to_string());
            t.text(&format!("{dir}/core_id"), &p.to_string());
            t.text(&format!("{dir}/package_cpus"), &cpumap::format(self.ncpus, pkg_set.iter().copied()));
            t.text(&format!("{dir}/core_cpus"), &cpumap::format(self.ncpus, [p]));
            info.push_str(&format!("processor\t: {p}\n"));
            match arch {
                "arm64" => info.push_str("BogoMIPS\t: 2000.00\nFeatures\t: fp asimd evtstrm sve\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd4f\n"),
                "ppc64" => info.push_str("cpu\t\t: POWER9 (raw), altivec supported\n"),
                _ => {
                    if let Some(v) = vendor {
                        info.push_str(&format!("vendor_id\t: {v}\n"));
                    }
                    if let Some(f) = family {
                        let display = if f > 15 { 15 + ((f - 15) >> 4) } else { f };
                        info.push_str(&format!("cpu family\t: {display}\n"));
                    }
                    if let Some(m) = model {
                        info.push_str(&format!("model\t\t: {m}\nmodel name\t: topo fake CPU\n"));
                    }
                }
            }
            info.push('\n');
        }
        let _ = all_cpus;
        t.text("/proc/cpuinfo", info.trim_end_matches('\n'));
    }

    fn bridge_ids(&self) -> (&'static str, &'static str) {
        match self.cpu_vendor.as_str() {
            "AuthenticAMD" => ("0x1022", "0x1483"),
            "GenuineIntel" => ("0x8086", "0x352a"),
            _ => ("0x10de", "0x22b2"),
        }
    }

    fn spec_of(&self, n: NodeId, numa: &str, local: &str) -> PciSpec {
        let x = self.x;
        let a = |k: &str| x.attr(n, k).map(str::to_string);
        let speed = a("link_speed").filter(|s| !s.is_empty());
        let width = a("link_width").filter(|w| !w.is_empty() && strtol(w) > 0);
        PciSpec {
            class: a("class").unwrap_or_else(|| "0x000000".into()),
            vendor: a("vendor").map(|v| format!("0x{:04x}", hex_u32(&v))).unwrap_or_else(|| "0x0000".into()),
            device: a("device").map(|v| format!("0x{:04x}", hex_u32(&v))).unwrap_or_else(|| "0x0000".into()),
            subsystem_vendor: a("subsystem_vendor").map(|v| format!("0x{:04x}", hex_u32(&v))),
            subsystem_device: a("subsystem_device").map(|v| format!("0x{:04x}", hex_u32(&v))),
            max_speed: speed.map(|s| if s == "16.0 GT/s" { "16.0 GT/s PCIe".into() } else { s }),
            max_width: width,
            numa: numa.to_string(),
            local_cpus: local.to_string(),
            secondary: None,
        }
    }

    /// A `<pci>` right under a `<cpu>`.
    fn top_pci(&mut self, n: NodeId, numa: &str, local: &str) {
        let x = self.x;
        let busid = x.attr(n, "busid").unwrap_or("").to_ascii_lowercase();
        let Some((dom, bus, _, _)) = split_busid(&busid) else { return };
        let flat = x.attr(n, "link_speed").is_none_or(|s| s.is_empty()) || x.attr(n, "link_width") == Some("0");
        let parent = if flat || bus == 0 {
            format!("/sys/devices/pci{dom:04x}:{bus:02x}")
        } else {
            let rb = self.buses.take(dom, -1, bus as i32, bus as i32 - 1);
            let dev = self.next_dev.entry((dom, rb)).or_insert(1);
            let rp = format!("{dom:04x}:{rb:02x}:{:02x}.0", *dev);
            *dev = dev.wrapping_add(1) % 0x20;
            let (v, d) = self.bridge_ids();
            let spec = self.spec_of(n, numa, local);
            let rp_spec = PciSpec {
                class: "0x060400".into(),
                vendor: v.into(),
                device: d.into(),
                max_speed: spec.max_speed.clone(),
                max_width: spec.max_width.clone(),
                numa: numa.into(),
                local_cpus: local.into(),
                secondary: Some(bus),
                ..Default::default()
            };
            self.tree.add_pci(&format!("/sys/devices/pci{dom:04x}:{rb:02x}"), &rp, &rp_spec)
        };
        self.pci(n, &parent, numa, local);
    }

    /// A `<pci>` placed under the sysfs folder `parent`, with its subtree.
    fn pci(&mut self, n: NodeId, parent: &str, numa: &str, local: &str) {
        let x = self.x;
        let busid = x.attr(n, "busid").unwrap_or("").to_ascii_lowercase();
        let Some((dom, bus, _, _)) = split_busid(&busid) else { return };
        let kids: Vec<NodeId> = x.children_named(n, "pci").collect();
        let mut spec = self.spec_of(n, numa, local);
        // Children grouped by bus, one downstream port per bus.
        let mut by_bus: BTreeMap<u8, Vec<NodeId>> = BTreeMap::new();
        for &k in &kids {
            if let Some((_, b, _, _)) = x.attr(k, "busid").and_then(split_busid) {
                by_bus.entry(b).or_default().push(k);
            }
        }
        let sec = if by_bus.is_empty() {
            None
        } else {
            let lowest = by_bus.keys().next().copied().unwrap_or(255) as i32;
            Some(self.buses.take(dom, bus as i32, lowest, bus as i32 + 1))
        };
        spec.secondary = sec;
        let path = self.tree.add_pci(parent, &busid, &spec);
        if let Some(s) = sec {
            for (i, (b, group)) in by_bus.into_iter().enumerate() {
                let ds = format!("{dom:04x}:{s:02x}:{:02x}.0", i % 0x20);
                let first = group[0];
                let child = self.spec_of(first, numa, local);
                let ds_spec = PciSpec {
                    class: "0x060400".into(),
                    vendor: spec.vendor.clone(),
                    device: spec.device.clone(),
                    max_speed: child.max_speed.clone(),
                    max_width: child.max_width.clone(),
                    numa: numa.into(),
                    local_cpus: local.into(),
                    secondary: Some(b),
                    ..Default::default()
                };
                let ds_path = self.tree.add_pci(&path, &ds, &ds_spec);
                for k in group {
                    self.pci(k, &ds_path, numa, local);
                }
            }
        }
        for ch in x.children(n).to_vec() {
            match x.name(ch) {
                "gpu" => self.gpu(ch, n, &busid),
                "nic" => self.nics(ch, Some((&busid, &path)), numa, local),
                "pcilink" => {
                    if let Some(t) = x.attr(ch, "target") {
                        self.tree.dir(&format!("/sys/kernel/pci_switch_link/virtual_switch_links/{busid}/{t}"));
                    }
                }
                _ => {}
            }
        }
    }

    fn gpu(&mut self, g: NodeId, pci: NodeId, busid: &str) {
        let x = self.x;
        let a = |n: NodeId, k: &str| x.attr(n, k).map(str::to_string);
        let speed = a(pci, "link_speed").unwrap_or_default();
        let (generation, width) = match gen_of(&speed) {
            Some(g) => (Some(g), a(pci, "link_width").map(|w| strtol(&w) as u32)),
            None => (None, None),
        };
        let id = |k: &str| a(pci, k).map(|v| hex_u32(&v));
        let dev_id = match (id("vendor"), id("device")) {
            (Some(v), Some(d)) => Some(v | (d << 16)),
            _ => None,
        };
        let sub_id = match (id("subsystem_vendor"), id("subsystem_device")) {
            (Some(v), Some(d)) => Some(v | (d << 16)),
            _ => None,
        };
        let mut links = Vec::new();
        for l in x.children_named(g, "nvlink") {
            let target = a(l, "target").unwrap_or_default();
            let count = a(l, "count").map(|c| strtol(&c)).unwrap_or(1).max(0);
            let remote = if target == HIDDEN_REMOTE { String::new() } else { target };
            for _ in 0..count {
                links.push(NvLinkFacts {
                    link: links.len() as u32,
                    p2p: true,
                    active: true,
                    remote: Some(remote.clone()),
                });
            }
            // A target that is not a PCI device of the topology and not an NVSwitch
            // needs a device so that its class can be read.
            let tclass = a(l, "tclass").unwrap_or_default();
            let t = a(l, "target").unwrap_or_default();
            let in_topo =
                x.preorder().into_iter().any(|n| x.name(n) == "pci" && x.attr(n, "busid") == Some(t.as_str()));
            if !in_topo
                && tclass != NVSWITCH_CLASS
                && t != HIDDEN_REMOTE
                && !tclass.is_empty()
                && let Some((dom, bus, _, _)) = split_busid(&t)
            {
                let spec = PciSpec {
                    class: tclass.clone(),
                    vendor: "0x1014".into(),
                    device: "0x04ea".into(),
                    numa: "-1".into(),
                    local_cpus: cpumap::format(self.ncpus, 0..self.ncpus),
                    ..Default::default()
                };
                if !self.tree.pci.contains_key(&t) {
                    self.tree.add_pci(&format!("/sys/devices/pci{dom:04x}:{bus:02x}"), &t, &spec);
                }
            }
        }
        let c2c = x.child_named(g, "c2c").map(|c| {
            let n = a(c, "count").map(|v| strtol(&v)).unwrap_or(0).max(0) as usize;
            let bw = a(c, "bw").map(|v| strtol(&v) as u32);
            vec![C2cLink { active: true, bw }; n]
        });
        let mlopart = a(g, "mlopart").map(|v| strtol(&v) as i32).filter(|&m| m != -1);
        self.nvml.gpus.push(GpuFacts {
            index: a(g, "dev").map(|v| strtol(&v) as u32).unwrap_or(0),
            busid: busid.to_string(),
            name: None,
            pci_device_id: dev_id,
            pci_subsystem_id: sub_id,
            sm: a(g, "sm").map(|v| strtol(&v) as u32),
            pcie_gen: generation,
            pcie_width: width,
            pcie_max_gen: generation,
            pcie_max_width: width,
            nvlinks: links,
            c2c,
            gdr: a(g, "gdr").map(|v| v == "1"),
            dmabuf: None,
            mlopart,
            fabric: None,
        });
    }

    /// The `<net>`s of a `<nic>`; `pci` is the owning device (bus id, folder), if any.
    fn nics(&mut self, nic: NodeId, pci: Option<(&str, &str)>, numa: &str, local: &str) {
        let x = self.x;
        let mut nets: Vec<NodeId> = x.children_named(nic, "net").collect();
        nets.sort_by_key(|&n| x.attr(n, "dev").map(strtol).unwrap_or(0));
        let mut ib_index = 0u8;
        for n in nets {
            let a = |k: &str| x.attr(n, k).map(str::to_string);
            let name = a("name").unwrap_or_else(|| "net".into());
            let port = a("port").map(|p| strtol(&p)).unwrap_or(0);
            let speed = a("speed").map(|p| strtol(&p)).unwrap_or(0);
            if a("gdr").as_deref() == Some("1") && port != 0 {
                self.any_gdr = true;
            }
            // The device the interface or IB device belongs to.
            let dev_path = match pci {
                Some((busid, path)) => {
                    if port == 0 || ib_index == 0 {
                        path.to_string()
                    } else {
                        // Another function of the same card.
                        let f = format!("{}.{}", &busid[..busid.len() - 2], ib_index.min(7));
                        match self.tree.pci.get(&f) {
                            Some(d) => d.path.clone(),
                            None => {
                                let base = self.tree.pci.get(busid).cloned();
                                let parent = parent_dir(path).to_string();
                                let spec = match base {
                                    Some(b) => PciSpec {
                                        class: format!("0x{:06x}", b.class),
                                        vendor: format!("0x{:04x}", b.vendor),
                                        device: format!("0x{:04x}", b.device),
                                        max_speed: self.tree_text(&format!("{path}/max_link_speed")),
                                        max_width: self.tree_text(&format!("{path}/max_link_width")),
                                        numa: numa.into(),
                                        local_cpus: local.into(),
                                        ..Default::default()
                                    },
                                    None => {
                                        PciSpec { numa: numa.into(), local_cpus: local.into(), ..Default::default() }
                                    }
                                };
                                self.tree.add_pci(&parent, &f, &spec)
                            }
                        }
                    }
                }
                None => {
                    let p = format!("/sys/devices/platform/vnic{}", self.platform);
                    self.platform += 1;
                    self.tree.link(&format!("{p}/subsystem"), "/sys/bus/platform");
                    self.tree.dir("/sys/bus/platform");
                    p
                }
            };
            if port == 0 {
                let dir = format!("{dev_path}/net/{name}");
                self.tree.text(&format!("{dir}/speed"), &speed.to_string());
                self.tree.text(&format!("{dir}/ifindex"), &self.ifindex.to_string());
                self.tree.text(&format!("{dir}/operstate"), "up");
                self.tree.link(&format!("{dir}/device"), &dev_path);
                self.tree.link(&format!("/sys/class/net/{name}"), &dir);
                self.ifindex += 1;
            } else {
                let port_num = (port - ib_index as i64).max(1);
                let dir = format!("{dev_path}/infiniband/{name}");
                let ll = match pci.and_then(|(b, _)| self.tree.pci.get(b)) {
                    Some(d) if d.class >> 8 == 0x0207 => "InfiniBand",
                    Some(_) => "Ethernet",
                    None => "InfiniBand",
                };
                let guid = a("guid").map(|g| strtoull_hex(&g)).unwrap_or(0);
                let raw = u64::from_be_bytes(guid.to_le_bytes());
                let gs = format!("{raw:016x}");
                let sysguid = format!("{}:{}:{}:{}", &gs[0..4], &gs[4..8], &gs[8..12], &gs[12..16]);
                let pdir = format!("{dir}/ports/{port_num}");
                self.tree.text(&format!("{pdir}/state"), "4: ACTIVE");
                self.tree.text(&format!("{pdir}/phys_state"), "5: LinkUp");
                self.tree.text(&format!("{pdir}/link_layer"), ll);
                let gb = speed as f64 / 1000.0;
                let rate =
                    if gb.fract() == 0.0 { format!("{} Gb/sec (4X)", gb as i64) } else { format!("{gb} Gb/sec (4X)") };
                self.tree.text(&format!("{pdir}/rate"), &rate);
                self.tree.text(&format!("{dir}/sys_image_guid"), &sysguid);
                self.tree.text(&format!("{dir}/node_guid"), &sysguid);
                self.tree.link(&format!("{dir}/device"), &dev_path);
                self.tree.link(&format!("/sys/class/infiniband/{name}"), &dir);
                if let Some(q) = a("maxconn").map(|q| strtol(&q) as u32).filter(|&q| q != 131072) {
                    self.nvml.ib_max_qp.insert(name.clone(), q);
                }
                ib_index += 1;
            }
        }
    }

    fn tree_text(&self, path: &str) -> Option<String> {
        match self.tree.entries.get(path) {
            Some(Entry::File(b)) => Some(String::from_utf8_lossy(b).trim_end().to_string()),
            _ => None,
        }
    }
}
