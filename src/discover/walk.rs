//! Building NCCL's topology XML from sysfs and NVML facts, the way the chosen NCCL
//! release does it (2.30.7 unless said otherwise; [`DetectDialect`] lists what older
//! releases write differently).
//!
//! The functions here follow the behaviour of NCCL's `ncclTopoGetXmlFromSys`,
//! `ncclTopoGetXmlFromCpu`, `ncclTopoGetXmlFromGpu`, `ncclTopoFillNet`, `ncclTopoTrimXml`
//! and `ncclTopoFuseXml` (written anew from their documented behaviour):
//!
//! * Attributes are only filled when absent, so a seed file (`--topo-file`) wins.
//! * Going up from a device's sysfs realpath, two components are dropped at a time and
//!   the second PCI address becomes the parent: a switch's downstream port and the
//!   device below it collapse, so one `<pci>` stands for one physical switch. A
//!   component that is not a PCI address (`pci0000:00`) ends the walk at the `<cpu>` of
//!   the device's `numa_node`.
//! * A new child is inserted before the first sibling whose bus id sorts after it
//!   (2.18.5; before, appended).
//! * `link_speed`/`link_width`: for a GPU NVML knows, from 2.30.7, its current PCIe
//!   generation and width (fallback `16.0 GT/s`, x16); otherwise, and for every device
//!   before 2.30.7, the smaller of the device's and its upstream port's
//!   `max_link_speed`/`max_link_width`.

use std::collections::BTreeMap;

use crate::discover::net::NetFacts;
use crate::discover::nvml::{GpuFacts, NvmlSnapshot};
use crate::discover::sysfs::{Level, Sys, basename, dirname, is_bdf};
use crate::release::{DetectDialect, TrimRule};
use crate::xml::{NodeId, Xml, strtol};

/// The PCI class NCCL gives NVLink targets it cannot see (NVSwitch).
pub const NVSWITCH_CLASS: &str = "0x068000";
/// Bus id NCCL writes for an NVLink remote that NVML cannot name.
pub const HIDDEN_REMOTE: &str = "fffffff:ffff:ff";

/// The `link_speed` strings NCCL writes for NVML's PCIe generations 1..6.
const GEN_SPEEDS: [&str; 7] =
    ["", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"];

/// What `/proc/cpuinfo` says about the processor detection runs for.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CpuInfo {
    /// NCCL's arch name: `x86_64`, `arm64` or `ppc64`.
    pub arch: Option<String>,
    pub vendor: Option<String>,
    /// CPUID family and model as NCCL computes them (family + extended family << 4).
    pub familyid: Option<u32>,
    pub modelid: Option<u32>,
}

impl CpuInfo {
    /// Parse `/proc/cpuinfo` (first processor). `fallback_arch` is used when the text
    /// does not tell (the running machine's architecture for live detection).
    pub fn parse(text: &str, fallback_arch: Option<&str>) -> CpuInfo {
        let mut info = CpuInfo::default();
        let mut display_family = None;
        let mut model = None;
        let mut arm = false;
        let mut power = false;
        for line in text.lines() {
            if line.trim().is_empty() && (info.vendor.is_some() || arm || power) {
                break; // first processor block only
            }
            let Some((k, v)) = line.split_once(':') else { continue };
            let key = k.trim();
            // The value starts after ": "; keep inner spaces (Zhaoxin's "  Shanghai  ").
            let value = v.strip_prefix(' ').unwrap_or(v);
            match key {
                "vendor_id" => info.vendor = Some(value.to_string()),
                "cpu family" => display_family = value.trim().parse::<u32>().ok(),
                "model" => model = value.trim().parse::<u32>().ok(),
                "CPU implementer" | "CPU architecture" => arm = true,
                "cpu" if value.trim().starts_with("POWER") => power = true,
                _ => {}
            }
        }
        info.arch = if info.vendor.is_some() || display_family.is_some() {
            Some("x86_64".into())
        } else if arm {
            Some("arm64".into())
        } else if power {
            Some("ppc64".into())
        } else {
            fallback_arch.map(str::to_string)
        };
        if info.arch.as_deref() == Some("x86_64") {
            // cpuinfo shows base + extended family; CPUID-based code (NCCL) adds the
            // extended family shifted by 4 instead. Base family is 0xf whenever the
            // extended family is used.
            info.familyid = display_family.map(|f| if f > 15 { 15 + ((f - 15) << 4) } else { f });
            info.modelid = model;
        } else {
            info.vendor = None;
        }
        info
    }
}

/// NCCL's name for a Rust target architecture.
pub fn nccl_arch(rust_arch: &str) -> Option<&'static str> {
    match rust_arch {
        "x86_64" => Some("x86_64"),
        "aarch64" => Some("arm64"),
        "powerpc64" => Some("ppc64"),
        _ => None,
    }
}

/// The facts and sources one detection pass works from.
pub struct Ctx<'a> {
    pub sys: &'a Sys,
    pub nvml: Option<&'a NvmlSnapshot>,
    pub cpu: CpuInfo,
    /// `host_hash` as NCCL prints it (`%#lx`).
    pub host_hash: String,
    /// What the modelled release writes.
    pub dialect: DetectDialect,
}

/// The first live (not removed) element with this name and attribute value.
pub fn find_live(xml: &Xml, name: &str, key: &str, value: &str) -> Option<NodeId> {
    (0..xml.nodes.len())
        .find(|&i| !xml.nodes[i].removed && xml.nodes[i].name == name && xml.attr(i, key) == Some(value))
}

/// Insert `node` under `parent` before the first sibling with a larger bus id.
pub fn insert_sorted(xml: &mut Xml, parent: NodeId, node: NodeId) {
    let new = xml.attr(node, "busid").unwrap_or("").to_string();
    let pos = xml.nodes[parent]
        .children
        .iter()
        .position(|&c| xml.attr(c, "busid").is_some_and(|b| new.as_str() < b))
        .unwrap_or(xml.nodes[parent].children.len());
    xml.nodes[node].parent = Some(parent);
    xml.nodes[parent].children.insert(pos, node);
}

/// Append `node` as the last child of `parent` (releases before 2.18.5).
fn append_child(xml: &mut Xml, parent: NodeId, node: NodeId) {
    xml.nodes[node].parent = Some(parent);
    xml.nodes[parent].children.push(node);
}

/// `sscanf("%f GT/s")` on a link speed: the leading number, or "infinitely fast" when
/// there is none (so that an unreadable side never wins the minimum).
fn gts(s: &str) -> f32 {
    let t = s.trim_start();
    let end = t
        .char_indices()
        .take_while(|&(i, c)| c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0))
        .map(|(i, c)| i + c.len_utf8())
        .last()
        .unwrap_or(0);
    t[..end].parse::<f32>().unwrap_or(f32::MAX)
}

impl Ctx<'_> {
    /// Realpath of a PCI device's sysfs folder (`/sys/bus/pci/devices/<busid>`).
    pub fn pci_path(&self, busid: &str) -> Option<String> {
        let b = busid.to_ascii_lowercase();
        if !is_bdf(&b) {
            return None;
        }
        self.sys.realpath(&format!("/sys/bus/pci/devices/{b}"))
    }

    fn gpu_facts(&self, busid: &str) -> Option<&GpuFacts> {
        self.nvml.and_then(|n| n.gpu(busid))
    }

    /// Hook a detached element under `parent`, where the release puts it.
    fn insert(&self, xml: &mut Xml, parent: NodeId, node: NodeId) {
        if self.dialect.sorted_children { insert_sorted(xml, parent, node) } else { append_child(xml, parent, node) }
    }

    /// The `<pci>` element for a bus id: an existing one, or a new detached one.
    pub fn pci_node(&self, xml: &mut Xml, busid: &str) -> NodeId {
        if let Some(n) = find_live(xml, "pci", "busid", busid) {
            return n;
        }
        let n = xml.add(None, "pci");
        xml.set_attr(n, "busid", busid);
        n
    }

    /// Fill a `<pci>` element and its ancestors from sysfs (and NVML for GPUs), hooking
    /// it into the tree when it has no parent yet. `class_if_unknown` is used when the
    /// class can be read from neither the seed nor sysfs (`0x03` for GPUs, `0x02` NICs).
    pub fn fill_pci(&self, xml: &mut Xml, start: NodeId, class_if_unknown: Option<&str>) {
        let mut node = start;
        let mut placeholder = class_if_unknown;
        // A PCI tree is shallow; the bound only guards against a cyclic seed file.
        for _ in 0..64 {
            let busid = xml.attr(node, "busid").unwrap_or("").to_string();
            let path = self.pci_path(&busid);
            if xml.attr(node, "class").is_none() {
                let c = path.as_ref().and_then(|p| self.sys.read(&format!("{p}/class"))).filter(|c| !c.is_empty());
                if let Some(c) = c.as_deref().or(placeholder) {
                    xml.set_attr(node, "class", c);
                }
            }
            placeholder = None;
            let class = xml.attr(node, "class").unwrap_or("").to_string();
            // NVML fills a GPU's PCI attributes from 2.30.7; before, sysfs does.
            let gpu = if self.dialect.gpu_pci_from_nvml && (class.is_empty() || class.starts_with("0x03")) {
                self.gpu_facts(&busid)
            } else {
                None
            };

            for (key, from_nvml) in [
                ("vendor", gpu.and_then(|g| g.pci_device_id).map(|v| v & 0xffff)),
                ("device", gpu.and_then(|g| g.pci_device_id).map(|v| v >> 16)),
                ("subsystem_vendor", gpu.and_then(|g| g.pci_subsystem_id).map(|v| v & 0xffff)),
                ("subsystem_device", gpu.and_then(|g| g.pci_subsystem_id).map(|v| v >> 16)),
            ] {
                if xml.attr(node, key).is_some() {
                    continue;
                }
                let value = if gpu.is_some() {
                    from_nvml.map(|v| format!("{v:#x}"))
                } else {
                    path.as_ref().and_then(|p| self.sys.read(&format!("{p}/{key}"))).filter(|v| !v.is_empty())
                };
                if let Some(v) = value {
                    xml.set_attr(node, key, v);
                }
            }

            if xml.attr(node, "link_speed").is_none() {
                if let Some(g) = gpu {
                    match g.pcie_gen {
                        Some(g @ 1..=6) => xml.set_attr(node, "link_speed", GEN_SPEEDS[g as usize]),
                        Some(g) if g > 6 => self.sys.notice(
                            Level::Warning,
                            None,
                            format!("GPU {busid}: NVML reports PCIe generation {g}, unknown to NCCL 2.30; link_speed left out"),
                        ),
                        _ => xml.set_attr(node, "link_speed", "16.0 GT/s"),
                    }
                } else if let Some(p) = &path {
                    let dev = self.sys.read(&format!("{p}/max_link_speed")).unwrap_or_default();
                    let port = self.sys.read(&format!("{}/max_link_speed", dirname(p))).unwrap_or_default();
                    let v = if gts(&port) < gts(&dev) { port } else { dev };
                    xml.set_attr(node, "link_speed", v);
                } else {
                    xml.set_attr(node, "link_speed", "");
                }
            }
            if xml.attr(node, "link_width").is_none() {
                if let Some(g) = gpu {
                    let w = g.pcie_width.filter(|&w| w > 0).unwrap_or(16);
                    xml.set_attr(node, "link_width", w.to_string());
                } else if let Some(p) = &path {
                    let dev = strtol(&self.sys.read(&format!("{p}/max_link_width")).unwrap_or_default());
                    let port = strtol(&self.sys.read(&format!("{}/max_link_width", dirname(p))).unwrap_or_default());
                    xml.set_attr(node, "link_width", (dev.min(port) as i32).to_string());
                } else {
                    xml.set_attr(node, "link_width", "");
                }
            }

            if self.dialect.bcm_pcilinks && xml.attr(node, "vendor") == Some("0x1000") {
                self.add_bcm_links(xml, node, &busid);
            }

            let parent = match xml.parent(node) {
                Some(p) => p,
                None => self.attach(xml, node, path.as_deref()),
            };
            match xml.name(parent) {
                "pci" => node = parent,
                "cpu" => {
                    self.fill_cpu(xml, parent);
                    return;
                }
                _ => return,
            }
        }
        self.sys.notice(Level::Warning, None, "PCI hierarchy deeper than 64 levels in the seed file; stopped walking");
    }

    /// Broadcom switches split into virtual switches list their peer-to-peer partners.
    fn add_bcm_links(&self, xml: &mut Xml, node: NodeId, busid: &str) {
        let dir = format!("/sys/kernel/pci_switch_link/virtual_switch_links/{}", busid.to_ascii_lowercase());
        for target in self.sys.list(&dir) {
            if target.len() != 12 || self.pci_path(&target).is_none() {
                continue;
            }
            let exists = xml.children_named(node, "pcilink").any(|c| xml.attr(c, "target") == Some(target.as_str()));
            if !exists {
                let l = xml.add(Some(node), "pcilink");
                xml.set_attr(l, "target", target);
            }
        }
    }

    /// Find or make the parent of a `<pci>` that has none, and insert it there.
    fn attach(&self, xml: &mut Xml, node: NodeId, path: Option<&str>) -> NodeId {
        let parent = match path {
            Some(path) => {
                let numa = match self.sys.read(&format!("{path}/numa_node")).filter(|s| !s.trim().is_empty()) {
                    Some(n) => n.trim().to_string(),
                    None => {
                        self.sys.notice(
                            Level::Warning,
                            Some(&format!("{path}/numa_node")),
                            "missing; the device is placed under an unknown CPU (numaid -1)",
                        );
                        "-1".to_string()
                    }
                };
                let comps: Vec<&str> = path.split('/').collect();
                let n = comps.len();
                if n >= 4 && is_bdf(comps[n - 2]) && is_bdf(comps[n - 3]) {
                    self.pci_node(xml, comps[n - 3])
                } else {
                    self.cpu_node(xml, &numa)
                }
            }
            None => match find_live(xml, "cpu", "numaid", "-1") {
                Some(c) => c,
                None => {
                    let c = self.cpu_node(xml, "-1");
                    self.fill_cpu(xml, c);
                    c
                }
            },
        };
        self.insert(xml, parent, node);
        parent
    }

    /// The `<cpu>` child of `<system>` with this `numaid`, made when missing.
    pub fn cpu_node(&self, xml: &mut Xml, numaid: &str) -> NodeId {
        let top = system(xml);
        if let Some(c) = xml.children_named(top, "cpu").find(|&c| xml.attr(c, "numaid") == Some(numaid)) {
            return c;
        }
        let c = xml.add(Some(top), "cpu");
        if self.dialect.cpu_host_hash {
            xml.set_attr(c, "host_hash", self.host_hash.clone());
        }
        xml.set_attr(c, "numaid", numaid);
        c
    }

    /// Fill a `<cpu>`: affinity from the NUMA node's cpumap, arch, and on x86 the CPUID
    /// vendor, family and model.
    pub fn fill_cpu(&self, xml: &mut Xml, cpu: NodeId) {
        if xml.attr(cpu, "affinity").is_none() {
            let numaid = xml.attr(cpu, "numaid").unwrap_or("").to_string();
            // NCCL reads the id with strtoul into an unsigned int: -1 becomes 4294967295.
            let n = strtol(&numaid) as u32;
            let file = format!("/sys/devices/system/node/node{n}/cpumap");
            let map = self.sys.read(&file).map(|s| s.trim_end_matches(['\n', '\r']).to_string()).unwrap_or_default();
            if map.is_empty() {
                self.sys.notice(
                    Level::Info,
                    Some(&file),
                    format!("no cpumap for NUMA node {numaid}: affinity=\"\" (as NCCL writes it)"),
                );
            }
            xml.set_attr(cpu, "affinity", map);
        }
        if xml.attr(cpu, "arch").is_none() {
            match &self.cpu.arch {
                Some(a) => xml.set_attr(cpu, "arch", a.clone()),
                None => self.sys.notice(
                    Level::Warning,
                    Some("/proc/cpuinfo"),
                    "CPU architecture unknown; <cpu> written without arch (NCCL needs it)",
                ),
            }
        }
        if self.cpu.arch.as_deref() == Some("x86_64") {
            if xml.attr(cpu, "vendor").is_none() {
                match &self.cpu.vendor {
                    Some(v) => xml.set_attr(cpu, "vendor", v.clone()),
                    None => self.sys.notice(Level::Warning, Some("/proc/cpuinfo"), "no vendor_id; <cpu> has no vendor"),
                }
            }
            if xml.attr(cpu, "familyid").is_none() {
                if let (Some(f), Some(m)) = (self.cpu.familyid, self.cpu.modelid) {
                    xml.set_attr(cpu, "familyid", f.to_string());
                    xml.init_attr(cpu, "modelid", m.to_string());
                } else {
                    self.sys.notice(
                        Level::Warning,
                        Some("/proc/cpuinfo"),
                        "no 'cpu family'/'model'; <cpu> has no familyid/modelid",
                    );
                }
            }
        }
    }

    /// NCCL's `ncclTopoFillGpu` + `ncclTopoGetXmlFromGpu` for one GPU, then the
    /// attributes `ncclTopoGetSystem` adds (keep, rank, gdr, mlopart).
    pub fn fill_gpu(&self, xml: &mut Xml, g: &GpuFacts, rank: usize) -> Option<NodeId> {
        let pci = self.pci_node(xml, &g.busid);
        self.fill_pci(xml, pci, Some("0x03"));
        let gpu = match xml.child_named(pci, "gpu") {
            Some(n) => n,
            None => xml.add(Some(pci), "gpu"),
        };
        xml.init_attr(gpu, "dev", g.index.to_string());
        if xml.attr(gpu, "dev").map(strtol) == Some(-1) {
            return None;
        }
        if xml.attr(gpu, "sm").is_none() {
            match g.sm {
                Some(sm) => xml.set_attr(gpu, "sm", sm.to_string()),
                None => self.sys.notice(
                    Level::Warning,
                    None,
                    format!("GPU {}: NVML gives no compute capability; <gpu> has no sm (NCCL needs it)", g.busid),
                ),
            }
        }
        let sm = xml.attr(gpu, "sm").map(strtol).unwrap_or(0);
        if xml.child_named(gpu, "nvlink").is_none() {
            let max_links = match sm {
                s if s < 60 => 0,
                s if s < 70 => 4,
                s if s < 80 => 6,
                s if s < 90 => 12,
                _ => 18,
            };
            for l in g.nvlinks.iter().filter(|l| (l.link as i64) < max_links) {
                if !l.p2p || !l.active {
                    continue;
                }
                let Some(remote) = &l.remote else { continue };
                let target = self.nvlink_target(remote, &g.busid);
                let existing =
                    xml.children_named(gpu, "nvlink").find(|&c| xml.attr(c, "target") == Some(target.as_str()));
                match existing {
                    Some(n) => {
                        let c = xml.attr(n, "count").map(strtol).unwrap_or(0);
                        xml.set_attr(n, "count", (c + 1).to_string());
                    }
                    None => {
                        let n = xml.add(Some(gpu), "nvlink");
                        xml.set_attr(n, "target", target);
                        xml.set_attr(n, "count", "1");
                    }
                }
            }
        }
        if self.dialect.c2c
            && xml.child_named(gpu, "c2c").is_none()
            && sm >= 90
            && let Some(links) = &g.c2c
        {
            let mut bw = 0;
            let mut count = 0;
            for l in links {
                if l.active
                    && let Some(b) = l.bw
                {
                    bw = b;
                    count += 1;
                }
            }
            if count > 0 {
                let c = xml.add(Some(gpu), "c2c");
                xml.set_attr(c, "bw", bw.to_string());
                xml.set_attr(c, "count", count.to_string());
            }
        }
        let links: Vec<NodeId> = xml.children_named(gpu, "nvlink").collect();
        for l in links {
            if xml.attr(l, "tclass").is_some() {
                continue;
            }
            let target = xml.attr(l, "target").unwrap_or("").to_string();
            let class = if target == HIDDEN_REMOTE {
                None
            } else {
                self.pci_path(&target).and_then(|p| self.sys.read(&format!("{p}/class"))).filter(|c| !c.is_empty())
            };
            xml.set_attr(l, "tclass", class.unwrap_or_else(|| NVSWITCH_CLASS.to_string()));
        }
        xml.set_attr(gpu, "keep", "1");
        xml.set_attr(gpu, "rank", rank.to_string());
        match g.gdr {
            Some(v) => xml.init_attr(gpu, "gdr", if v { "1" } else { "0" }),
            None => {
                if xml.attr(gpu, "gdr").is_none() {
                    self.sys.notice(
                        Level::Warning,
                        None,
                        format!(
                            "GPU {}: GPUDirect RDMA support unknown (CUDA driver not loadable); gdr=\"0\" written",
                            g.busid
                        ),
                    );
                }
                xml.init_attr(gpu, "gdr", "0");
            }
        }
        if self.dialect.mlopart {
            xml.set_attr(gpu, "mlopart", g.mlopart.unwrap_or(-1).to_string());
        }
        Some(gpu)
    }

    /// NCCL's `ncclTopoFillNet` plus the attributes `ncclTopoPopulateNics` sets.
    pub fn fill_net(&self, xml: &mut Xml, net: &NetFacts) {
        let node = match find_live(xml, "net", "name", &net.name) {
            Some(n) => n,
            None => {
                let pci_busid = net.pci_path.as_ref().and_then(|p| {
                    let sub = self.sys.realpath(&format!("{p}/subsystem"));
                    if sub.as_deref().map(basename) == Some("pci") {
                        Some(basename(p).to_string())
                    } else {
                        self.sys.notice(
                            Level::Info,
                            None,
                            format!(
                                "network device {} ({p}) is not a PCI device ({}): attached to the first CPU, as NCCL does",
                                net.name,
                                sub.as_deref().map(basename).unwrap_or("no subsystem")
                            ),
                        );
                        None
                    }
                });
                let parent = match pci_busid {
                    Some(b) => {
                        let p = self.pci_node(xml, &b);
                        self.fill_pci(xml, p, Some("0x02"));
                        p
                    }
                    None => match (0..xml.nodes.len()).find(|&i| !xml.nodes[i].removed && xml.nodes[i].name == "cpu") {
                        Some(c) => c,
                        None => {
                            // NCCL makes a bare <cpu numaid="0"> here (it always has a GPU's
                            // CPU already); topo fills it so that the file loads.
                            let c = self.cpu_node(xml, "0");
                            self.fill_cpu(xml, c);
                            c
                        }
                    },
                };
                let nic = match xml.child_named(parent, "nic") {
                    Some(n) => n,
                    None => xml.add(Some(parent), "nic"),
                };
                let n = xml.add(Some(nic), "net");
                xml.set_attr(n, "name", net.name.clone());
                n
            }
        };
        xml.set_attr(node, "keep", "1");
        xml.set_attr(node, "dev", net.dev.to_string());
        // The plugins report no latency; 2.24 writes it as an integer before the speed,
        // older releases as `%f` after the port.
        if self.dialect.net_latency_int {
            xml.init_attr(node, "latency", "0");
        }
        xml.init_attr(node, "speed", net.speed.to_string());
        xml.init_attr(node, "port", net.port.to_string());
        if !self.dialect.net_latency_int {
            xml.init_attr(node, "latency", "0.000000");
        }
        xml.init_attr(node, "guid", format!("0x{:x}", net.guid));
        xml.init_attr(node, "maxconn", net.maxconn.to_string());
        xml.init_attr(node, "gdr", if net.gdr { "1" } else { "0" });
        if self.dialect.net_attr {
            xml.set_attr(node, "net", "1");
        }
    }

    /// The `target` the release writes for an NVLink remote NVML reports.
    fn nvlink_target(&self, remote: &str, gpu: &str) -> String {
        let target = nvlink_target(remote);
        if target != HIDDEN_REMOTE || self.dialect.nvlink_hidden_sentinel {
            return target;
        }
        // Before 2.30.7 NCCL writes NVML's string as it is; an empty one reads as a
        // hidden NVSwitch all the same. Unprintable bytes cannot go into XML: topo
        // writes the 2.30.7 sentinel and says so.
        if remote.is_empty() {
            return String::new();
        }
        self.sys.notice(
            Level::Warning,
            None,
            format!(
                "GPU {gpu}: NVML names an NVLink remote with unprintable bytes; this NCCL writes them into the XML, topo writes {HIDDEN_REMOTE} (a hidden NVSwitch, as NCCL reads it)"
            ),
        );
        target
    }
}

/// The `<system>` element (made when the document is empty).
pub fn system(xml: &mut Xml) -> NodeId {
    match xml.root() {
        Some(r) => r,
        None => {
            let r = xml.add(None, "system");
            xml.set_attr(r, "version", "1");
            r
        }
    }
}

/// How NCCL writes an NVLink remote: lower case, or the sentinel when NVML gives an
/// empty or unprintable bus id. topo also folds NVML's 8-digit domain to NCCL's 4.
pub fn nvlink_target(remote: &str) -> String {
    if remote.is_empty() || remote.chars().any(|c| !(' '..='~').contains(&c)) {
        return HIDDEN_REMOTE.to_string();
    }
    crate::discover::sysfs::normalize_busid(remote).unwrap_or_else(|| remote.to_ascii_lowercase())
}

/// NCCL's `ncclTopoTrimXml`: drop the branches holding no element marked `keep="1"`,
/// and remove the marks. Which elements go depends on the release ([`TrimRule`]).
pub fn trim(xml: &mut Xml, rule: TrimRule) {
    if let Some(r) = xml.root() {
        trim_rec(xml, r, rule);
    }
}

fn trim_rec(xml: &mut Xml, node: NodeId, rule: TrimRule) -> bool {
    if xml.attr(node, "keep") == Some("1") {
        xml.unset_attr(node, "keep");
        return true;
    }
    let children = xml.children(node).to_vec();
    let mut kept = false;
    for c in children {
        kept |= trim_rec(xml, c, rule);
    }
    let remove = match rule {
        // Before 2.22 any element left without children goes, kept or not below.
        TrimRule::EmptyAny => xml.children(node).is_empty(),
        TrimRule::PciCpu => !kept && matches!(xml.name(node), "pci" | "cpu"),
        TrimRule::PciCpuNicNet => !kept && matches!(xml.name(node), "pci" | "cpu" | "nic" | "net"),
    };
    if remove && xml.parent(node).is_some() {
        xml.remove(node);
    }
    kept
}

/// NCCL's `ncclTopoFuseXml`: merge `src` into `dst`. Elements match when they have the
/// same name and exactly the same attributes; the rest is appended.
pub fn fuse(dst: &mut Option<Xml>, src: &Xml) {
    let Some(sr) = src.root() else { return };
    match dst {
        None => {
            let mut d = Xml::default();
            d.copy_tree(None, src, sr);
            *dst = Some(d);
        }
        Some(d) => {
            let Some(dr) = d.root() else { return };
            fuse_rec(d, dr, src, sr);
        }
    }
}

fn fuse_rec(dst: &mut Xml, dparent: NodeId, src: &Xml, sparent: NodeId) {
    for &s in src.children(sparent) {
        let same = |d: &Xml, c: NodeId| {
            d.name(c) == src.name(s)
                && d.nodes[c].attrs.len() == src.nodes[s].attrs.len()
                && src.nodes[s].attrs.iter().all(|(k, v)| d.attr(c, k) == Some(v.as_str()))
        };
        match dst.children(dparent).iter().copied().find(|&c| same(dst, c)) {
            Some(d) => fuse_rec(dst, d, src, s),
            None => {
                dst.copy_tree(Some(dparent), src, s);
            }
        }
    }
}

/// Element counts per name, for messages.
pub fn census(xml: &Xml) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for id in xml.preorder() {
        *m.entry(xml.name(id).to_string()).or_insert(0) += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::{parse, write};

    #[test]
    fn cpuinfo_x86_family_like_cpuid() {
        let amd = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\n";
        let c = CpuInfo::parse(amd, None);
        assert_eq!(c.arch.as_deref(), Some("x86_64"));
        assert_eq!(c.vendor.as_deref(), Some("AuthenticAMD"));
        assert_eq!(c.familyid, Some(175));
        assert_eq!(c.modelid, Some(17));
        let intel = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n";
        assert_eq!(CpuInfo::parse(intel, None).familyid, Some(6));
        let zx = "vendor_id\t:   Shanghai  \ncpu family\t: 7\nmodel\t\t: 91\n";
        assert_eq!(CpuInfo::parse(zx, None).vendor.as_deref(), Some("  Shanghai  "));
    }

    #[test]
    fn cpuinfo_arm_and_power() {
        let arm =
            "processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\n";
        let c = CpuInfo::parse(arm, Some("x86_64"));
        assert_eq!(c.arch.as_deref(), Some("arm64"));
        assert_eq!(c.vendor, None);
        assert_eq!(CpuInfo::parse("processor\t: 0\ncpu\t\t: POWER9 (raw)\n", None).arch.as_deref(), Some("ppc64"));
        assert_eq!(CpuInfo::parse("", Some("arm64")).arch.as_deref(), Some("arm64"));
    }

    #[test]
    fn speed_scan_like_sscanf() {
        assert_eq!(gts("16.0 GT/s PCIe"), 16.0);
        assert_eq!(gts("8 GT/s"), 8.0);
        assert_eq!(gts("Unknown"), f32::MAX);
        assert_eq!(gts(""), f32::MAX);
    }

    /// A `<pci>` holding a kept GPU and a NIC nobody uses: 2.27 drops the NIC, 2.22 to
    /// 2.26 keep it (only pci/cpu go), earlier releases drop every emptied element.
    #[test]
    fn trim_rules_by_release() {
        let text = "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:10:00.0\">\n      <gpu dev=\"0\" keep=\"1\"/>\n      <nic>\n        <net name=\"a\"/>\n      </nic>\n    </pci>\n    <pci busid=\"0000:20:00.0\">\n      <nic/>\n    </pci>\n  </cpu>\n  <cpu numaid=\"1\"/>\n</system>\n";
        let names = |rule| {
            let (mut x, _) = parse(text, None).unwrap();
            trim(&mut x, rule);
            x.preorder().into_iter().map(|n| x.name(n).to_string()).collect::<Vec<_>>().join(" ")
        };
        assert_eq!(names(TrimRule::PciCpuNicNet), "system cpu pci gpu");
        assert_eq!(names(TrimRule::PciCpu), "system cpu pci gpu nic net");
        assert_eq!(names(TrimRule::EmptyAny), "system cpu pci gpu");
        // Before 2.22 an emptied element goes whatever its name; a kept one stays.
        let (mut x, _) = parse("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:10:00.0\">\n      <gpu dev=\"0\"/>\n    </pci>\n  </cpu>\n</system>\n", None).unwrap();
        trim(&mut x, TrimRule::EmptyAny);
        assert_eq!(x.live_count(), 1);
    }

    #[test]
    fn sorted_insertion_by_busid() {
        let (mut x, _) = parse("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:10:00.0\"/>\n    <nic/>\n    <pci busid=\"0000:30:00.0\"/>\n  </cpu>\n</system>\n", None).unwrap();
        let cpu = 1;
        let n = x.add(None, "pci");
        x.set_attr(n, "busid", "0000:20:00.0");
        insert_sorted(&mut x, cpu, n);
        let m = x.add(None, "pci");
        x.set_attr(m, "busid", "0000:40:00.0");
        insert_sorted(&mut x, cpu, m);
        let order: Vec<String> =
            x.children(cpu).iter().map(|&c| x.attr(c, "busid").unwrap_or("nic").to_string()).collect();
        assert_eq!(order, ["0000:10:00.0", "nic", "0000:20:00.0", "0000:30:00.0", "0000:40:00.0"]);
    }

    #[test]
    fn trim_keeps_marked_branches_only() {
        let text = "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\">\n      <gpu dev=\"0\" keep=\"1\"/>\n    </pci>\n    <pci busid=\"0000:02:00.0\"/>\n  </cpu>\n  <cpu numaid=\"1\">\n    <nic>\n      <net name=\"x\"/>\n    </nic>\n  </cpu>\n</system>\n";
        let (mut x, _) = parse(text, None).unwrap();
        trim(&mut x, TrimRule::PciCpuNicNet);
        assert_eq!(
            write(&x),
            "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\">\n      <gpu dev=\"0\"/>\n    </pci>\n  </cpu>\n</system>\n"
        );
    }

    #[test]
    fn fuse_merges_identical_and_appends_new() {
        let a = "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:02:00.0\">\n      <gpu dev=\"0\"/>\n    </pci>\n  </cpu>\n</system>\n";
        let b = "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\">\n      <gpu dev=\"1\"/>\n    </pci>\n  </cpu>\n  <cpu numaid=\"1\"/>\n</system>\n";
        let mut out = None;
        fuse(&mut out, &parse(a, None).unwrap().0);
        fuse(&mut out, &parse(b, None).unwrap().0);
        let text = write(out.as_ref().unwrap());
        assert_eq!(
            text,
            "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:02:00.0\">\n      <gpu dev=\"0\"/>\n    </pci>\n    <pci busid=\"0000:01:00.0\">\n      <gpu dev=\"1\"/>\n    </pci>\n  </cpu>\n  <cpu numaid=\"1\"/>\n</system>\n"
        );
    }

    #[test]
    fn nvlink_targets() {
        assert_eq!(nvlink_target(""), HIDDEN_REMOTE);
        assert_eq!(nvlink_target("00000000:07:00.0"), "0000:07:00.0");
        assert_eq!(nvlink_target("0000:C7:00.0"), "0000:c7:00.0");
        assert_eq!(nvlink_target("ab\u{1}"), HIDDEN_REMOTE);
    }
}
