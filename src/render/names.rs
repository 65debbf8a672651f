//! The names people know devices and paths by: GPUs by number with their bus id
//! (`GPU3 (0000:44:00.0)`), a GPU's DEV node by its GPU, PCI devices by the PCI ID
//! Repository's vendor and device names (through the `pci-ids` crate, which carries the
//! database), NVLink counts as `nvidia-smi topo -m` writes them (`NV18`), and NCCL's path
//! types beside nvidia-smi's.

use std::collections::HashMap;

use pci_ids::FromId;

use crate::model::system::{Kind, NodeRef, System};
use crate::model::{Analysis, NodeType, PathType};
use crate::xml::Xml;

/// A vendor's short name: the bracketed part of the database's name when it has one
/// (`Advanced Micro Devices, Inc. [AMD/ATI]` -> `AMD/ATI`), else its first word
/// (`NVIDIA Corporation` -> `NVIDIA`, `Mellanox Technologies` -> `Mellanox`).
fn short_vendor(name: &str) -> &str {
    if let Some((_, rest)) = name.split_once('[')
        && let Some((inner, _)) = rest.split_once(']')
    {
        return inner;
    }
    name.split([' ', ',']).next().unwrap_or(name)
}

/// A device's name: the marketing name in brackets when the database gives one
/// (`GH100 [H100 SXM5 80GB]` -> `H100 SXM5 80GB`, `MT2910 Family [ConnectX-7]` ->
/// `ConnectX-7`), else the whole name.
fn short_device(name: &str) -> &str {
    if let Some((_, rest)) = name.rsplit_once('[')
        && let Some((inner, _)) = rest.split_once(']')
        && !inner.is_empty()
    {
        return inner;
    }
    name
}

/// `vendor device` as people call it (`NVIDIA H100 SXM5 80GB`, `Mellanox ConnectX-7`),
/// from the PCI ids; `None` when the database does not know the vendor.
pub fn pci_name(vendor: u16, device: u16) -> Option<String> {
    let v = pci_ids::Vendor::from_id(vendor)?;
    let vn = short_vendor(v.name());
    match pci_ids::Device::from_vid_pid(vendor, device) {
        Some(d) => Some(format!("{vn} {}", short_device(d.name()))),
        None => Some(format!("{vn} device {device:04x}")),
    }
}

/// The name of the PCI device of an XML element (`<pci vendor= device=>`, or the `<pci>`
/// above a `<gpu>` or `<nic>`), when its ids are there and known.
pub fn xml_pci_name(x: &Xml, id: usize) -> Option<String> {
    let pci = if x.name(id) == "pci" { id } else { x.ancestor_named(id, "pci")? };
    let hex = |k: &str| -> Option<u16> {
        let v = x.attr(pci, k)?;
        u16::from_str_radix(v.trim().trim_start_matches("0x").trim_start_matches("0X"), 16).ok()
    };
    let (v, d) = (hex("vendor")?, hex("device")?);
    // NCCL's skeletons and virtual switches write 0xffff for "none".
    if v == 0xffff || v == 0 {
        return None;
    }
    pci_name(v, d)
}

/// The PCI name of a node of the analysed system (a GPU, its DEV node, a NIC, a
/// switch), from the element it was built from.
pub fn node_pci_name(an: &Analysis, r: NodeRef) -> Option<String> {
    let n = an.system.node(r);
    match (&n.kind, n.xml) {
        (Kind::Dev { device, .. } | Kind::Pci { device }, _) if *device != 0 => {
            let (v, d) = ((device >> 48) as u16, ((device >> 32) & 0xffff) as u16);
            if v == 0xffff { None } else { pci_name(v, d) }
        }
        (_, Some(x)) if matches!(r.ty, NodeType::Gpu | NodeType::Nic | NodeType::Dev | NodeType::Pci) => {
            xml_pci_name(&an.prepared, x)
        }
        _ => None,
    }
}

/// A PCI name short enough for a box of a picture: up to the first `,` or ` (`, and at
/// most 26 characters, cut between words (`…` marks the cut).
pub fn compact(name: &str) -> String {
    const MAX: usize = 26;
    let head = name.split(", ").next().unwrap_or(name);
    let head = head.split(" (").next().unwrap_or(head).trim();
    if head.chars().count() <= MAX {
        return head.to_string();
    }
    let mut out = String::new();
    for w in head.split(' ') {
        if out.chars().count() + w.chars().count() + 1 > MAX - 1 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    if out.is_empty() {
        out = head.chars().take(MAX - 1).collect();
    }
    out.push('…');
    out
}

/// [`node_pci_name`], [`compact`] for a picture.
pub fn node_pci_label(an: &Analysis, r: NodeRef) -> Option<String> {
    node_pci_name(an, r).map(|n| compact(&n))
}

/// `GPU3 (0000:44:00.0)`: a GPU by its number (rank in the model, NVML index in
/// detection), with its bus id.
pub fn gpu(number: i32, busid: &str) -> String {
    format!("GPU{number} ({busid})")
}

/// The GPUs of a topology file by bus id (lower case): their NVML index (`<gpu dev>`)
/// and the name of their PCI device.
pub fn xml_gpus(x: &Xml) -> HashMap<String, (i32, Option<String>)> {
    let mut out = HashMap::new();
    let Some(root) = x.root() else { return out };
    for g in x.descendants_named(root, "gpu") {
        let Some(pci) = x.ancestor_named(g, "pci") else { continue };
        let (Some(busid), Some(dev)) = (x.attr(pci, "busid"), x.attr(g, "dev")) else { continue };
        let Ok(dev) = dev.trim().parse::<i32>() else { continue };
        out.insert(busid.to_ascii_lowercase(), (dev, xml_pci_name(x, pci)));
    }
    out
}

/// Names for the nodes of a system's routes and links: a GPU as `GPU3 (busid)`, its
/// DEV node as `DEV of GPU3`, a NET as `NET4 (mlx5_4)`; other nodes keep NCCL's label.
pub struct RouteNames {
    gpus: HashMap<String, i32>,
}

impl RouteNames {
    pub fn new(sys: &System) -> RouteNames {
        let gpus = sys
            .list(NodeType::Gpu)
            .iter()
            .filter_map(|g| Some((g.busid.clone()?.to_ascii_lowercase(), g.gpu_rank())))
            .collect();
        RouteNames { gpus }
    }

    /// The name of a node label (`GPU/0000:1a:00.0`, `DEV/...`, `NET/mlx5_0`).
    pub fn node(&self, label: &str, sys: &System) -> String {
        let Some((ty, key)) = label.split_once('/') else { return label.to_string() };
        let rank = || self.gpus.get(&key.to_ascii_lowercase()).copied();
        match ty {
            "GPU" => rank().map_or_else(|| label.to_string(), |r| gpu(r, key)),
            "DEV" => rank().map_or_else(|| label.to_string(), |r| format!("DEV of GPU{r}")),
            "NET" => sys
                .list(NodeType::Net)
                .iter()
                .filter_map(|n| n.net())
                .find(|x| x.name == key)
                .map_or_else(|| label.to_string(), |x| format!("NET{} ({key})", x.dev)),
            _ => label.to_string(),
        }
    }

    /// A route (node labels and `-LINK->` arrows) with people's names.
    pub fn route(&self, route: &[std::sync::Arc<str>], sys: &System) -> String {
        route
            .iter()
            .map(|s| if s.starts_with('-') { s.to_string() } else { self.node(s, sys) })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The NVLinks behind an NVLink of `bw` GB/s from node `r` (a GPU or its DEV node):
/// the link's bandwidth over one NVLink's bandwidth for its GPU generation, as NCCL
/// made it from the XML's `count`.
pub fn nvlink_count(an: &Analysis, r: NodeRef, bw: f32) -> u32 {
    let per = crate::model::bw::nvlink(an.options.env.release().nvlink_table(), an.system.node(r).cc());
    if per > 0.0 { (bw / per).round().max(1.0) as u32 } else { 1 }
}

/// What `nvidia-smi topo -m` writes for an NCCL path type, `-` where it has no name
/// for it (NVB and PXN show their PCIe path there, C2C and P2C are Grace's).
pub fn smi(ty: PathType) -> &'static str {
    match ty {
        PathType::Loc => "X",
        PathType::Nvl => "NV#",
        PathType::Pix => "PIX",
        PathType::Pxb => "PXB",
        PathType::Phb => "PHB/NODE",
        PathType::Sys => "SYS",
        PathType::Nvb | PathType::C2c | PathType::P2c | PathType::Pxn | PathType::Net | PathType::Dis => "-",
    }
}

/// What a DEV node is, said where one is first shown.
pub const DEV_NOTE: &str = "DEV of GPUn: the GPU's physical device, a node of its own in NCCL from 2.30.3: \
    its PCIe and NVLink links hang from it and the GPU joins it by a LOC link (before 2.30.3 the GPU holds \
    them itself, and paths count two hops fewer)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_pci_id_repository() {
        assert_eq!(pci_name(0x10de, 0x2330).as_deref(), Some("NVIDIA H100 SXM5 80GB"));
        assert_eq!(pci_name(0x15b3, 0x1021).as_deref(), Some("Mellanox ConnectX-7"));
        assert_eq!(pci_name(0x1000, 0xc030).as_deref(), Some("Broadcom PEX890xx PCIe Gen 5 Switch"));
        assert_eq!(pci_name(0x10de, 0xfffe).as_deref(), Some("NVIDIA device fffe"));
        assert_eq!(short_vendor("Advanced Micro Devices, Inc. [AMD/ATI]"), "AMD/ATI");
        assert_eq!(compact("PLX PEX 8764 64-Lane, 16-Port PCI Express Gen 3 (8 GT/s) Switch"), "PLX PEX 8764 64-Lane");
        assert_eq!(
            compact("Mellanox MT43244 BlueField-3 integrated ConnectX-7 network controller"),
            "Mellanox MT43244…"
        );
        assert_eq!(compact("NVIDIA H100 SXM5 80GB"), "NVIDIA H100 SXM5 80GB");
    }

    #[test]
    fn routes_name_gpus_dev_nodes_and_nets() {
        let (x, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let an = crate::model::analyze(&x, "t", &crate::model::Options::default()).unwrap();
        let names = RouteNames::new(&an.system);
        let p = an.paths.gpu_gpu.iter().find(|p| p.from == Some(0) && p.to == Some(1)).unwrap();
        assert_eq!(
            names.route(&p.route, &an.system),
            "GPU0 (0000:1a:00.0) -LOC-> DEV of GPU0 -NVL-> NVS/0 -NVL-> DEV of GPU1 -LOC-> GPU1 (0000:1c:00.0)"
        );
        assert_eq!(names.node("NET/mlx5_4", &an.system), "NET4 (mlx5_4)");
        let gpu0 = NodeRef::new(NodeType::Gpu, 0);
        assert_eq!(node_pci_name(&an, gpu0).as_deref(), Some("NVIDIA H100 SXM5 80GB"));
    }
}
