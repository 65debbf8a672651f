//! The devices of one topology dump, as `topo diff` and `topo fleet` compare them.
//!
//! A dump's tree is read into a flat list of devices: CPUs, PCI devices that are neither
//! GPUs nor NICs (PCIe switches, NVSwitches, bridges), GPUs, NICs and their network ports.
//! A GPU or NIC takes the attributes of the `<pci>` element that holds it (link speed and
//! width, PCI ids), so that a GPU's PCIe link is an attribute of the GPU. Each device
//! knows the device above it (a switch or a CPU), which is what "moved" compares.

use std::collections::HashMap;

use crate::model::NodeType;
use crate::model::build::class_type;
use crate::xml::{self, NodeId, Xml};

/// What a device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DevKind {
    Cpu,
    Gpu,
    Nic,
    Net,
    Pci,
}

impl DevKind {
    pub fn name(self) -> &'static str {
        match self {
            DevKind::Cpu => "cpu",
            DevKind::Gpu => "gpu",
            DevKind::Nic => "nic",
            DevKind::Net => "net",
            DevKind::Pci => "pci",
        }
    }
}

/// One NVLink of a GPU, as written in the dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvLink {
    /// Lower-case bus id of the remote end (`fffffff:ffff:ff` when NVML could not name it).
    pub target: String,
    pub count: i64,
    pub tclass: String,
}

/// One device of a dump.
#[derive(Debug, Clone)]
pub struct Device {
    pub kind: DevKind,
    /// The element the device is read from (`cpu`, `pci`, `gpu`, `nic`, `net`).
    pub elem: NodeId,
    /// Lower-case bus id (GPUs and NICs: the bus id of their `<pci>`; ports: their NIC's).
    pub busid: Option<String>,
    /// The device above this one: a switch or a CPU (for a port: its NIC).
    pub parent: Option<usize>,
    /// The CPU (NUMA node) the device hangs from.
    pub cpu: Option<usize>,
    /// Depth under its CPU (a CPU is 0).
    pub depth: usize,
    /// Attributes in file order, the holding `<pci>`'s first; the bus id is not among them.
    pub attrs: Vec<(String, String)>,
    /// GPUs only.
    pub nvlinks: Vec<NvLink>,
    /// GPUs only: (bw in MB/s per link, link count) of each `<c2c>`.
    pub c2c: Vec<(i64, i64)>,
    /// Bus ids of `<pcilink>` targets (PCI devices only).
    pub pcilinks: Vec<String>,
    /// A short name for people: `GPU 0000:0f:00.0 (dev 0)`, `NET mlx5_0 (NIC 0000:0c:00.0 port 1)`.
    pub label: String,
}

impl Device {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    /// An attribute as an integer (C `strtol` rules), when present and numeric.
    pub fn int(&self, key: &str) -> Option<i64> {
        self.attr(key).and_then(xml::parse_c_int)
    }
    /// The `<net>` name, for ports.
    pub fn name(&self) -> Option<&str> {
        if self.kind == DevKind::Net { self.attr("name") } else { None }
    }
}

/// The devices of a dump.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    pub devices: Vec<Device>,
    /// Lower-case bus id -> devices with it (a GPU split in MLOPart partitions has two).
    pub by_busid: HashMap<String, Vec<usize>>,
}

impl Inventory {
    /// Devices of one kind, in document order.
    pub fn of(&self, kind: DevKind) -> Vec<usize> {
        (0..self.devices.len()).filter(|&i| self.devices[i].kind == kind).collect()
    }
    /// The ports of a NIC.
    pub fn ports(&self, nic: usize) -> Vec<usize> {
        (0..self.devices.len())
            .filter(|&i| self.devices[i].kind == DevKind::Net && self.devices[i].parent == Some(nic))
            .collect()
    }
    /// The GPU with this bus id and NVML index.
    pub fn gpu(&self, busid: &str, dev: i32) -> Option<usize> {
        let list = self.by_busid.get(&busid.to_ascii_lowercase())?;
        let gpus: Vec<usize> = list.iter().copied().filter(|&i| self.devices[i].kind == DevKind::Gpu).collect();
        gpus.iter().copied().find(|&i| self.devices[i].int("dev") == Some(dev as i64)).or(gpus.first().copied())
    }
    /// The first port with this name (NCCL also takes the first one).
    pub fn net_by_name(&self, name: &str) -> Option<usize> {
        (0..self.devices.len())
            .find(|&i| self.devices[i].kind == DevKind::Net && self.devices[i].attr("name") == Some(name))
    }
    /// The device whose own bus id this is (a switch, GPU or NIC), not a port.
    pub fn by_own_busid(&self, busid: &str) -> Option<usize> {
        self.by_busid.get(&busid.to_ascii_lowercase())?.iter().copied().find(|&i| self.devices[i].kind != DevKind::Net)
    }
}

/// What a `<pci>` of a given class is, for labels.
pub fn pci_role(class: Option<&str>) -> &'static str {
    let Some(c) = class else { return "PCI device" };
    if c.starts_with("0x0604") {
        "PCIe switch"
    } else {
        match class_type(c) {
            NodeType::Nvs => "NVSwitch",
            NodeType::Cpu => "CPU bridge",
            _ => "PCI device",
        }
    }
}

/// Read the devices of a dump.
pub fn inventory(x: &Xml) -> Inventory {
    let mut inv = Inventory::default();
    let Some(root) = x.root() else { return inv };
    for cpu in x.children_named(root, "cpu").collect::<Vec<_>>() {
        let numa = x.attr(cpu, "numaid").unwrap_or("?");
        let idx = push(
            &mut inv,
            Device {
                kind: DevKind::Cpu,
                elem: cpu,
                busid: None,
                parent: None,
                cpu: None,
                depth: 0,
                attrs: x.nodes[cpu].attrs.clone(),
                nvlinks: Vec::new(),
                c2c: Vec::new(),
                pcilinks: Vec::new(),
                label: format!("CPU {numa}"),
            },
        );
        inv.devices[idx].cpu = Some(idx);
        for &c in x.children(cpu) {
            match x.name(c) {
                "pci" => walk_pci(x, &mut inv, c, idx, idx, 1),
                "nic" => add_nic(x, &mut inv, c, None, idx, idx, 1),
                _ => {}
            }
        }
    }
    inv
}

fn push(inv: &mut Inventory, d: Device) -> usize {
    let i = inv.devices.len();
    if let Some(b) = &d.busid {
        inv.by_busid.entry(b.clone()).or_default().push(i);
    }
    inv.devices.push(d);
    i
}

fn busid_of(x: &Xml, id: NodeId) -> Option<String> {
    x.attr(id, "busid").map(|b| b.to_ascii_lowercase())
}

/// Attributes of a holding `<pci>` without its bus id, then the element's own.
fn merged_attrs(x: &Xml, pci: Option<NodeId>, own: Option<NodeId>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    if let Some(p) = pci {
        out.extend(x.nodes[p].attrs.iter().filter(|(k, _)| k != "busid").cloned());
    }
    if let Some(o) = own {
        for (k, v) in &x.nodes[o].attrs {
            if !out.iter().any(|(ok, _)| ok == k) {
                out.push((k.clone(), v.clone()));
            }
        }
    }
    out
}

fn walk_pci(x: &Xml, inv: &mut Inventory, p: NodeId, parent: usize, cpu: usize, depth: usize) {
    let busid = busid_of(x, p);
    let gpus: Vec<NodeId> = x.children_named(p, "gpu").collect();
    let nic = x.child_named(p, "nic");
    let mut below = parent;
    if !gpus.is_empty() {
        for g in gpus {
            let mut nvlinks = Vec::new();
            let mut c2c = Vec::new();
            for &l in x.children(g) {
                match x.name(l) {
                    "nvlink" => nvlinks.push(NvLink {
                        target: x.attr(l, "target").unwrap_or("").to_ascii_lowercase(),
                        count: x.attr(l, "count").map_or(0, xml::strtol),
                        tclass: x.attr(l, "tclass").unwrap_or("").to_string(),
                    }),
                    "c2c" => {
                        c2c.push((x.attr(l, "bw").map_or(0, xml::strtol), x.attr(l, "count").map_or(0, xml::strtol)))
                    }
                    _ => {}
                }
            }
            let dev = x.attr(g, "dev").unwrap_or("?");
            let part = match x.attr(g, "mlopart") {
                Some(m) if xml::strtol(m) >= 0 => format!(" part {m}"),
                _ => String::new(),
            };
            push(
                inv,
                Device {
                    kind: DevKind::Gpu,
                    elem: g,
                    busid: busid.clone(),
                    parent: Some(parent),
                    cpu: Some(cpu),
                    depth,
                    attrs: merged_attrs(x, Some(p), Some(g)),
                    nvlinks,
                    c2c,
                    pcilinks: Vec::new(),
                    label: format!("GPU {} (dev {dev}{part})", busid.as_deref().unwrap_or("?")),
                },
            );
        }
    } else if let Some(n) = nic {
        add_nic(x, inv, n, Some(p), parent, cpu, depth);
    } else {
        let role = pci_role(x.attr(p, "class"));
        let pcilinks = x
            .children_named(p, "pcilink")
            .filter_map(|l| x.attr(l, "target"))
            .map(|t| t.to_ascii_lowercase())
            .collect();
        below = push(
            inv,
            Device {
                kind: DevKind::Pci,
                elem: p,
                busid: busid.clone(),
                parent: Some(parent),
                cpu: Some(cpu),
                depth,
                attrs: merged_attrs(x, Some(p), None),
                nvlinks: Vec::new(),
                c2c: Vec::new(),
                pcilinks,
                label: format!("{role} {}", busid.as_deref().unwrap_or("?")),
            },
        );
    }
    for c in x.children_named(p, "pci").collect::<Vec<_>>() {
        walk_pci(x, inv, c, below, cpu, depth + 1);
    }
}

fn add_nic(x: &Xml, inv: &mut Inventory, nic: NodeId, pci: Option<NodeId>, parent: usize, cpu: usize, depth: usize) {
    let busid = pci.and_then(|p| busid_of(x, p));
    let nets: Vec<NodeId> = x.children_named(nic, "net").collect();
    let names: Vec<&str> = nets.iter().map(|&n| x.attr(n, "name").unwrap_or("?")).collect();
    let place = match &busid {
        Some(b) => b.clone(),
        None => format!("on {}", inv.devices[cpu].label),
    };
    let label = if names.is_empty() { format!("NIC {place}") } else { format!("NIC {place} ({})", names.join(", ")) };
    let me = push(
        inv,
        Device {
            kind: DevKind::Nic,
            elem: pci.unwrap_or(nic),
            busid: busid.clone(),
            parent: Some(parent),
            cpu: Some(cpu),
            depth,
            attrs: merged_attrs(x, pci, Some(nic)),
            nvlinks: Vec::new(),
            c2c: Vec::new(),
            pcilinks: Vec::new(),
            label,
        },
    );
    for n in nets {
        let name = x.attr(n, "name").unwrap_or("?");
        let port = x.attr(n, "port").unwrap_or("?");
        let label = match &busid {
            Some(b) => format!("NET {name} (NIC {b} port {port})"),
            None => format!("NET {name} (port {port})"),
        };
        push(
            inv,
            Device {
                kind: DevKind::Net,
                elem: n,
                busid: busid.clone(),
                parent: Some(me),
                cpu: Some(cpu),
                depth: depth + 1,
                attrs: x.nodes[n].attrs.clone(),
                nvlinks: Vec::new(),
                c2c: Vec::new(),
                pcilinks: Vec::new(),
                label,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_device_of_a_fixture() {
        let (x, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let inv = inventory(&x);
        assert_eq!(inv.of(DevKind::Cpu).len(), 2);
        assert_eq!(inv.of(DevKind::Gpu).len(), 8);
        assert_eq!(inv.of(DevKind::Nic).len(), 10);
        assert_eq!(inv.of(DevKind::Net).len(), 12);
        let g = inv.gpu("0000:1a:00.0", 0).unwrap();
        let d = &inv.devices[g];
        assert_eq!(d.label, "GPU 0000:1a:00.0 (dev 0)");
        assert_eq!(d.attr("link_width"), Some("16"));
        assert_eq!(d.nvlinks.iter().map(|l| l.count).sum::<i64>(), 18);
        let parent = d.parent.unwrap();
        assert_eq!(inv.devices[parent].label, "PCIe switch 0000:18:00.0");
        let n = inv.net_by_name("mlx5_3").unwrap();
        assert_eq!(inv.devices[n].label, "NET mlx5_3 (NIC 0000:2a:00.0 port 2)");
        assert_eq!(inv.ports(inv.devices[n].parent.unwrap()).len(), 2);
        let nvs = inv.by_own_busid("0000:05:00.0").unwrap();
        assert_eq!(inv.devices[nvs].label, "NVSwitch 0000:05:00.0");
    }
}
