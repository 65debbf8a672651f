//! What a topology dump can show about a machine's health, without the machine: PCIe
//! links narrower or slower than their siblings', GPUs without a NIC on their CPU socket,
//! GPUDirect RDMA reported off, uneven NVLink counts, NICs of one model at different
//! speeds, Grace-Hopper GPUs without their C2C link, and a dump with no GPU at all.

use std::collections::BTreeMap;

use super::{Finding, Severity};
use crate::xml::{NodeId, Xml, pci_gen_speed, strtol};

fn finding(
    check: &'static str,
    severity: Severity,
    devices: Vec<String>,
    message: String,
    why: &str,
    fix: &str,
) -> Finding {
    Finding { check, severity, devices, message, why: why.into(), fix: fix.into() }
}

/// The `pci` element holding `id` (a `gpu` or `nic`), and its bus id.
fn pci_of(xml: &Xml, id: NodeId) -> Option<(NodeId, String)> {
    let p = xml.ancestor_named(id, "pci")?;
    Some((p, xml.attr(p, "busid").unwrap_or("?").to_string()))
}

/// The CPU (NUMA node) a device hangs under, as its `numaid`.
fn socket_of(xml: &Xml, id: NodeId) -> Option<String> {
    let c = xml.ancestor_named(id, "cpu")?;
    Some(xml.attr(c, "numaid").unwrap_or("?").to_string())
}

/// A GPU's name in findings: its bus id and CUDA device number.
fn gpu_name(xml: &Xml, g: NodeId) -> String {
    let bus = pci_of(xml, g).map_or("?".into(), |p| p.1);
    format!("GPU {bus} (dev {})", xml.attr(g, "dev").unwrap_or("?"))
}

/// Every check of a dump, in a fixed order.
pub fn check_dump(xml: &Xml) -> Vec<Finding> {
    let Some(root) = xml.root() else { return Vec::new() };
    let gpus = xml.descendants_named(root, "gpu");
    let nets = xml.descendants_named(root, "net");
    let mut out = Vec::new();
    if gpus.is_empty() {
        out.push(finding(
            "gpu",
            Severity::Warning,
            vec![],
            "no GPU in this topology: nothing for NCCL to run on".into(),
            "NCCL builds its rings and trees between GPUs; a dump without one is of a machine where the driver found none",
            "dump the topology on a machine whose GPUs the NVIDIA driver sees (nvidia-smi lists them)",
        ));
        return out;
    }
    links(xml, &gpus, &nets, &mut out);
    sockets(xml, &gpus, &nets, &mut out);
    gdr(xml, &gpus, &nets, &mut out);
    nvlinks(xml, &gpus, &mut out);
    nic_speeds(xml, &nets, &mut out);
    c2c(xml, &gpus, &mut out);
    out
}

/// A device's PCIe link: bus id, speed as NCCL reads it, width, speed as written.
type Link = (String, i64, i64, String);

/// PCIe links of GPUs (and of NICs) of one model that are slower or narrower than the
/// fastest of their kind: a card downtrained, in a narrow slot, or behind a bad riser.
fn links(xml: &Xml, gpus: &[NodeId], nets: &[NodeId], out: &mut Vec<Finding>) {
    let mut groups: BTreeMap<(&str, String), Vec<Link>> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for (kind, devs) in [("GPU", gpus), ("NIC", nets)] {
        for &d in devs {
            let Some((p, bus)) = pci_of(xml, d) else { continue };
            if !seen.insert(p) {
                continue;
            }
            let (Some(speed), Some(width)) = (xml.attr(p, "link_speed"), xml.attr(p, "link_width")) else { continue };
            let (Some(s), w) = (pci_gen_speed(speed), strtol(width)) else { continue };
            if w <= 0 || s <= 0 {
                continue;
            }
            let model = format!("{}:{}", xml.attr(p, "vendor").unwrap_or("?"), xml.attr(p, "device").unwrap_or("?"));
            groups.entry((kind, model)).or_default().push((bus, i64::from(s), w, speed.to_string()));
        }
    }
    for ((kind, model), devs) in groups {
        if devs.len() < 2 {
            continue;
        }
        let best_w = devs.iter().map(|d| d.2).max().unwrap_or(0);
        let best_s = devs.iter().map(|d| d.1).max().unwrap_or(0);
        let best_speed = devs.iter().find(|d| d.1 == best_s).map_or(String::new(), |d| d.3.clone());
        for (bus, s, w, speed) in &devs {
            let mut what = Vec::new();
            if *w < best_w {
                what.push(format!("x{w} against x{best_w}"));
            }
            if *s < best_s {
                what.push(format!("{speed} against {best_speed}"));
            }
            if what.is_empty() {
                continue;
            }
            out.push(finding(
                "pcie-link",
                Severity::Warning,
                vec![bus.clone()],
                format!(
                    "{kind} PCIe link {} ({} other {kind}s of this model {model})",
                    what.join(", "),
                    devs.len() - 1
                ),
                "NCCL takes a path's bandwidth from its narrowest link: a downtrained link slows every ring through it",
                "reseat the card or check the slot and riser; `lspci -vv` LnkSta against LnkCap shows the trained link",
            ));
        }
    }
}

/// GPUs with no NIC under their CPU socket while other sockets have NICs: their network
/// traffic crosses the inter-CPU link (or goes through another GPU, PXN).
fn sockets(xml: &Xml, gpus: &[NodeId], nets: &[NodeId], out: &mut Vec<Finding>) {
    if nets.is_empty() {
        return;
    }
    let nic_sockets: std::collections::BTreeSet<String> = nets.iter().filter_map(|&n| socket_of(xml, n)).collect();
    let lonely: Vec<String> = gpus
        .iter()
        .filter(|&&g| socket_of(xml, g).is_some_and(|s| !nic_sockets.contains(&s)))
        .map(|&g| format!("{} on CPU {}", gpu_name(xml, g), socket_of(xml, g).unwrap_or_default()))
        .collect();
    if !lonely.is_empty() {
        out.push(finding(
            "numa",
            Severity::Warning,
            lonely,
            format!(
                "GPUs without a NIC on their CPU socket (NICs are on CPU {})",
                nic_sockets.into_iter().collect::<Vec<_>>().join(", ")
            ),
            "their network traffic crosses the inter-CPU link (path SYS), or goes through another GPU (PXN)",
            "put a NIC on every socket that has GPUs, or check the BIOS NUMA settings if the dump misplaces them",
        ));
    }
}

/// GPUDirect RDMA reported off, by an RDMA NIC (`gdr="0"`) or, where there is one, a GPU.
fn gdr(xml: &Xml, gpus: &[NodeId], nets: &[NodeId], out: &mut Vec<Finding>) {
    // IB/RoCE ports count from 1; the socket transport writes port 0 and never has GDR.
    let rdma: Vec<NodeId> =
        nets.iter().copied().filter(|&n| xml.attr(n, "port").is_some_and(|p| strtol(p) >= 1)).collect();
    let off_nets: Vec<String> = rdma
        .iter()
        .filter(|&&n| xml.attr(n, "gdr").is_some_and(|v| strtol(v) == 0))
        .map(|&n| xml.attr(n, "name").unwrap_or("?").to_string())
        .collect();
    if !off_nets.is_empty() {
        out.push(finding(
            "gdr",
            Severity::Warning,
            off_nets,
            "the network plugin reports no GPUDirect RDMA for these NICs (gdr=0)".into(),
            "without GPUDirect RDMA every network transfer is staged through host memory, at a fraction of the NIC's speed",
            "load nvidia-peermem (or use the kernel's dma-buf support) and check the plugin's log",
        ));
    }
    let off_gpus: Vec<String> = gpus
        .iter()
        .filter(|&&g| xml.attr(g, "gdr").is_some_and(|v| strtol(v) == 0))
        .map(|&g| gpu_name(xml, g))
        .collect();
    if !off_gpus.is_empty() && !rdma.is_empty() {
        out.push(finding(
            "gdr",
            Severity::Warning,
            off_gpus,
            "GPUs report no GPUDirect RDMA support (gdr=0)".into(),
            "NCCL then stages network traffic of these GPUs through host memory",
            "check the driver (nvidia-peermem or dma-buf) and that the GPU supports GPUDirect RDMA",
        ));
    }
}

/// GPUs with fewer NVLinks than the others (a link down, or a board in a wrong slot).
fn nvlinks(xml: &Xml, gpus: &[NodeId], out: &mut Vec<Finding>) {
    let counts: Vec<(NodeId, i64)> = gpus
        .iter()
        .map(|&g| (g, xml.children_named(g, "nvlink").map(|l| xml.attr(l, "count").map_or(1, strtol)).sum()))
        .collect();
    let most = counts.iter().map(|c| c.1).max().unwrap_or(0);
    if most == 0 {
        return;
    }
    for &(g, n) in &counts {
        if n < most {
            out.push(finding(
                "nvlink",
                Severity::Warning,
                vec![gpu_name(xml, g)],
                format!("{n} NVLinks against {most} on another GPU"),
                "NCCL's NVLink bandwidth for a GPU is its link count times the per-link speed: fewer links, slower rings",
                "`nvidia-smi nvlink -s` shows the links down; a reset or reseat may bring them back",
            ));
        }
    }
}

/// NICs of one model (vendor and device) at different speeds.
fn nic_speeds(xml: &Xml, nets: &[NodeId], out: &mut Vec<Finding>) {
    let mut by_model: BTreeMap<String, Vec<(String, i64)>> = BTreeMap::new();
    for &n in nets {
        let Some(speed) = xml.attr(n, "speed").map(strtol).filter(|&s| s > 0) else { continue };
        let model = pci_of(xml, n).map_or("?".into(), |(p, _)| {
            format!("{}:{}", xml.attr(p, "vendor").unwrap_or("?"), xml.attr(p, "device").unwrap_or("?"))
        });
        by_model.entry(model).or_default().push((xml.attr(n, "name").unwrap_or("?").to_string(), speed));
    }
    for (model, ports) in by_model {
        let fastest = ports.iter().map(|p| p.1).max().unwrap_or(0);
        let slow: Vec<String> =
            ports.iter().filter(|p| p.1 < fastest).map(|p| format!("{} ({} Gb/s)", p.0, p.1 / 1000)).collect();
        if !slow.is_empty() {
            out.push(finding(
                "nic-speed",
                Severity::Warning,
                slow,
                format!("NIC ports slower than others of their model {model} ({} Gb/s)", fastest / 1000),
                "NCCL sizes its network channels by the ports' speeds: a slow port slows the rings that use it",
                "check the cable, the switch port and `ibstat` (rate) or `ethtool` (speed)",
            ));
        }
    }
}

/// Grace-Hopper-style GPUs (sm 90 and newer on an Arm CPU) without their C2C link.
fn c2c(xml: &Xml, gpus: &[NodeId], out: &mut Vec<Finding>) {
    let arm = |g: NodeId| {
        xml.ancestor_named(g, "cpu").and_then(|c| xml.attr(c, "arch")).is_some_and(|a| a.eq_ignore_ascii_case("arm64"))
    };
    let with_c2c = gpus.iter().filter(|&&g| xml.child_named(g, "c2c").is_some()).count();
    for &g in gpus {
        let sm = xml.attr(g, "sm").map_or(0, strtol);
        if sm >= 90 && arm(g) && xml.child_named(g, "c2c").is_none() && (with_c2c > 0 || gpus.len() <= 4) {
            out.push(finding(
                "c2c",
                Severity::Warning,
                vec![gpu_name(xml, g)],
                format!("an sm {sm} GPU on an Arm CPU without a C2C link in the dump"),
                "NCCL reaches the CPU and NICs of a Grace-Hopper or Grace-Blackwell GPU over C2C; without it the paths go over PCIe",
                "use an NCCL that reports C2C (2.20 and newer) and a driver that exposes it",
            ));
        }
    }
}
