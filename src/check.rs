//! `topo check`: machine problems that make NCCL slow or hang, found in sysfs and NVML.
//!
//! Each [`Finding`] has a severity, the devices concerned, why it matters for NCCL and
//! what to do. `topo check` exits 1 when one is an error; `topo detect` prints them as
//! warnings. The checks:
//!
//! * `pcie-link`: a link trained below what both ends support (`current_link_*` against
//!   the smaller `max_link_*` of the device and its upstream port). Fewer lanes is a real
//!   downtrain (error). A slower generation on a GPU's own link is usually the GPU saving
//!   power while idle (info); elsewhere it is a warning.
//! * `numa`: a GPU or NIC whose `numa_node` is -1.
//! * `acs`: ACS redirection (P2P request/completion redirect, upstream forwarding, egress
//!   control) enabled on a bridge between two GPUs or between a GPU and a NIC. Read from
//!   the ACS extended capability in the bridge's `config` file; sysfs shows only the
//!   first 64 bytes of `config` to non-root users, so without root the state is reported
//!   unknown (info) instead.
//! * `iommu`: GPUs or NICs in an IOMMU group that translates DMA (`type` `DMA`/`DMA-FQ`),
//!   or an IOMMU present without `iommu=pt` on the kernel command line.
//! * `gdr`: RDMA NICs but no peer-memory module and no usable DMA-BUF: NCCL disables
//!   GPUDirect RDMA.
//! * `nvlink`: GPUs with fewer active NVLinks than their peers, or a pair whose link
//!   counts differ by direction.
//! * `p2p`: GPU pairs NVML reports as not P2P capable.
//! * `fabric`: the GPUs' NVLink fabric registration (NVML's GPU fabric info, which NCCL
//!   reads to decide multi-node NVLink): a GPU with NVLinks to NVSwitches whose
//!   registration is not completed (or failed) while others are, or is still under way;
//!   GPUs of this machine registered in different clusters or cliques; and, as info, the
//!   clique a machine whose every GPU is registered belongs to.

use std::collections::{BTreeMap, BTreeSet};

use crate::discover::Detection;
use crate::discover::sysfs::{Sys, basename, dirname, is_bdf, node_has_cpus};
use crate::xml::strtol;

mod dump;
pub use dump::check_dump;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// Which check (`gpu`, `pcie-link`, `numa`, `acs`, `iommu`, `gdr`, `nvlink`, `p2p`, and
    /// of a dump `nic-speed` and `c2c`).
    pub check: &'static str,
    pub severity: Severity,
    /// PCI bus ids (or NIC names) concerned.
    pub devices: Vec<String>,
    pub message: String,
    /// Why it matters for NCCL.
    pub why: String,
    /// What to do.
    pub fix: String,
}

/// Every check, in a fixed order.
pub fn run_checks(sys: &Sys, det: &Detection) -> Vec<Finding> {
    let ends = Endpoints::new(sys, det);
    let mut out = Vec::new();
    if det.gpu_busids().is_empty() {
        out.push(Finding {
            check: "gpu",
            severity: Severity::Warning,
            devices: vec![],
            message: "no NVIDIA GPU found on this machine: nothing here for NCCL to run on, and nothing to check"
                .into(),
            why: "the checks look at the PCIe links, NUMA placement, ACS, IOMMU, GPUDirect RDMA and NVLinks of GPUs"
                .into(),
            fix: "run on a machine whose GPUs the driver sees, or check a dump with `topo check --topo FILE`".into(),
        });
    }
    check_links(sys, &ends, &mut out);
    check_numa(sys, &ends, &mut out);
    check_acs(sys, &ends, &mut out);
    check_iommu(sys, &ends, &mut out);
    check_gdr(det, &ends, &mut out);
    check_nvlink(det, &mut out);
    check_p2p(det, &mut out);
    check_fabric(det, &mut out);
    out
}

/// The GPUs and NICs with their sysfs paths.
struct Endpoints {
    /// (bus id, realpath) of each GPU present in sysfs.
    gpus: Vec<(String, String)>,
    /// (name, realpath) of each network device on PCI.
    nics: Vec<(String, String)>,
}

impl Endpoints {
    fn new(sys: &Sys, det: &Detection) -> Endpoints {
        let mut gpus = Vec::new();
        let mut seen = BTreeSet::new();
        for b in det.gpu_busids() {
            if seen.insert(b.clone())
                && let Some(p) = sys.realpath(&format!("/sys/bus/pci/devices/{b}"))
            {
                gpus.push((b, p));
            }
        }
        let mut nics = Vec::new();
        for n in &det.nets {
            if let Some(p) = &n.device_path
                && is_bdf(basename(p))
            {
                nics.push((n.name.clone(), p.clone()));
            }
        }
        Endpoints { gpus, nics }
    }

    /// Every GPU/NIC path, deduplicated (ports of one card share a device).
    fn all(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self.gpus.to_vec();
        let mut seen: BTreeSet<String> = v.iter().map(|(_, p)| p.clone()).collect();
        for (n, p) in &self.nics {
            if seen.insert(p.clone()) {
                v.push((n.clone(), p.clone()));
            }
        }
        v
    }
}

/// The PCI devices on a path from the root complex down to the device, in order.
fn chain(path: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut acc = String::new();
    for c in path.split('/').filter(|c| !c.is_empty()) {
        acc.push('/');
        acc.push_str(c);
        if is_bdf(c) {
            v.push(acc.clone());
        }
    }
    v
}

fn gts(s: &str) -> Option<f32> {
    let num: String = s.trim().chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    num.parse().ok()
}

fn check_links(sys: &Sys, ends: &Endpoints, out: &mut Vec<Finding>) {
    let gpu_paths: BTreeSet<&str> = ends.gpus.iter().map(|(_, p)| p.as_str()).collect();
    let mut done = BTreeSet::new();
    for (_, path) in ends.all() {
        for dev in chain(&path) {
            if !done.insert(dev.clone()) {
                continue;
            }
            let read = |p: &str, f: &str| sys.read(&format!("{p}/{f}"));
            let (Some(cur_s), Some(cur_w)) = (read(&dev, "current_link_speed"), read(&dev, "current_link_width"))
            else {
                continue;
            };
            let Some(max_s) = read(&dev, "max_link_speed") else { continue };
            let max_w = read(&dev, "max_link_width").map(|w| strtol(&w)).unwrap_or(0);
            let up = dirname(&dev);
            let (up_s, up_w) = if is_bdf(basename(up)) {
                (read(up, "max_link_speed").and_then(|s| gts(&s)), read(up, "max_link_width").map(|w| strtol(&w)))
            } else {
                (None, None)
            };
            let exp_s = match (gts(&max_s), up_s) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let exp_w = match up_w {
                Some(u) if u > 0 && max_w > 0 => max_w.min(u),
                _ => max_w,
            };
            let busid = basename(&dev).to_string();
            let cw = strtol(&cur_w);
            if cw == 0 && exp_w > 0 {
                out.push(Finding {
                    check: "pcie-link",
                    severity: Severity::Error,
                    devices: vec![busid.clone()],
                    message: format!("link is down (current width 0, speed '{cur_s}')"),
                    why: "NCCL reads the capability, not the trained link, so it plans for bandwidth that is not there"
                        .into(),
                    fix: "reseat the card or riser, check the slot in the BIOS, look at `dmesg` for PCIe errors".into(),
                });
                continue;
            }
            if exp_w > 0 && cw > 0 && cw < exp_w {
                out.push(Finding {
                    check: "pcie-link",
                    severity: Severity::Error,
                    devices: vec![busid.clone()],
                    message: format!("link trained at x{cw}, both ends support x{exp_w} ({cur_s})"),
                    why: format!(
                        "lanes are lost: PCIe bandwidth through this link is {}% of what NCCL's topology assumes, slowing GPU-GPU over PCIe and GPUDirect RDMA",
                        cw * 100 / exp_w
                    ),
                    fix: "reseat the card, cable or riser; check the slot's bifurcation setting in the BIOS; `lspci -vv` shows LnkSta '(downgraded)'".into(),
                });
            }
            if let (Some(c), Some(e)) = (gts(&cur_s), exp_s)
                && c + 0.01 < e
            {
                let is_gpu = gpu_paths.contains(dev.as_str());
                let (severity, message, fix) = if is_gpu {
                    (
                            Severity::Info,
                            format!("GPU link at {cur_s}, capable of {e} GT/s: may be power-saving downclock while idle"),
                            "check again while the GPU is busy (e.g. during `topo bench` or nvidia-smi -q -d PCIE under load); if it stays low, treat it as a downtrain".to_string(),
                        )
                } else {
                    (
                            Severity::Warning,
                            format!("link at {cur_s}, both ends support {e} GT/s"),
                            "check `lspci -vv` LnkSta; a link that stays slow under load needs reseating, a BIOS setting (PCIe speed forced to a lower Gen) or a firmware update".to_string(),
                        )
                };
                out.push(Finding {
                    check: "pcie-link",
                    severity,
                    devices: vec![busid.clone()],
                    message,
                    why:
                        "a slower generation lowers PCIe bandwidth below the link_speed NCCL uses for paths and tuning"
                            .into(),
                    fix,
                });
            }
        }
    }
}

fn check_numa(sys: &Sys, ends: &Endpoints, out: &mut Vec<Finding>) {
    let nodes_with_cpus =
        sys.list("/sys/devices/system/node").iter().filter(|n| n.starts_with("node") && node_has_cpus(sys, n)).count();
    let mut lost = Vec::new();
    for (name, path) in ends.all() {
        if sys.read(&format!("{path}/numa_node")).map(|s| strtol(&s)) == Some(-1) {
            lost.push(name);
        }
    }
    if lost.is_empty() {
        return;
    }
    let multi = nodes_with_cpus > 1;
    out.push(Finding {
        check: "numa",
        severity: if multi { Severity::Warning } else { Severity::Info },
        devices: lost,
        message: format!(
            "no NUMA node (numa_node -1){}",
            if multi { format!(" on a machine with {nodes_with_cpus} NUMA nodes") } else { String::new() }
        ),
        why: "NCCL hangs these devices under an unknown CPU (numaid -1): it cannot pin its threads near them, and GPU-NIC distances through the CPU are guessed".into(),
        fix: if multi {
            "enable NUMA/SRAT reporting in the BIOS or hypervisor (for VMs, expose the guest NUMA topology and pass devices with their node), or give NCCL an NCCL_TOPO_FILE".into()
        } else {
            "harmless on a one-node machine or VM; with several nodes, expose the NUMA affinity of the devices".into()
        },
    });
}

/// ACS Control bits that send peer-to-peer traffic up to the root complex.
const ACS_REDIRECT: u16 = 0x04 | 0x08 | 0x10 | 0x20;

/// What a bridge's config space says about ACS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acs {
    /// Only the first 64 bytes are visible (not root).
    Unknown,
    /// No ACS capability (or no extended config space).
    Absent,
    /// The ACS Control register.
    Control(u16),
}

/// Find the ACS extended capability (id 0x000D) in a config space dump.
pub fn parse_acs(config: &[u8]) -> Acs {
    if config.len() <= 64 {
        return Acs::Unknown;
    }
    if config.len() < 0x104 {
        return Acs::Absent;
    }
    let mut off = 0x100usize;
    for _ in 0..64 {
        if off + 8 > config.len() || off < 0x100 {
            break;
        }
        let hdr = u32::from_le_bytes([config[off], config[off + 1], config[off + 2], config[off + 3]]);
        if hdr == 0 || hdr == 0xffff_ffff {
            break;
        }
        if hdr & 0xffff == 0x000d {
            return Acs::Control(u16::from_le_bytes([config[off + 6], config[off + 7]]));
        }
        off = ((hdr >> 20) & 0xffc) as usize;
        if off == 0 {
            break;
        }
    }
    Acs::Absent
}

fn acs_bits(c: u16) -> String {
    let names = [
        (0x01, "SrcValid"),
        (0x02, "TransBlk"),
        (0x04, "ReqRedir"),
        (0x08, "CmpltRedir"),
        (0x10, "UpstreamFwd"),
        (0x20, "EgressCtrl"),
        (0x40, "DirectTrans"),
    ];
    names.iter().filter(|(b, _)| c & b != 0).map(|(_, n)| *n).collect::<Vec<_>>().join("+")
}

fn check_acs(sys: &Sys, ends: &Endpoints, out: &mut Vec<Finding>) {
    // Bridges between each pair, with the pairs they sit between.
    let mut bridges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut add_pair = |a: &(String, String), b: &(String, String)| {
        let ca = chain(&a.1);
        let cb = chain(&b.1);
        let common = ca.iter().zip(cb.iter()).take_while(|(x, y)| x == y).count();
        let between = ca[common..ca.len().saturating_sub(1).max(common)]
            .iter()
            .chain(cb[common..cb.len().saturating_sub(1).max(common)].iter());
        for br in between {
            let e = bridges.entry(br.clone()).or_default();
            e.insert(a.0.clone());
            e.insert(b.0.clone());
        }
    };
    for (i, a) in ends.gpus.iter().enumerate() {
        for b in &ends.gpus[i + 1..] {
            add_pair(a, b);
        }
        for n in &ends.nics {
            add_pair(a, n);
        }
    }
    let mut unknown = Vec::new();
    let mut redirecting: BTreeMap<u16, (Vec<String>, BTreeSet<String>)> = BTreeMap::new();
    for (br, devs) in &bridges {
        let Some(cfg) = sys.read_bytes(&format!("{br}/config")) else { continue };
        match parse_acs(&cfg) {
            Acs::Unknown => unknown.push(basename(br).to_string()),
            Acs::Absent => {}
            Acs::Control(c) if c & ACS_REDIRECT != 0 => {
                let e = redirecting.entry(c).or_default();
                e.0.push(basename(br).to_string());
                e.1.extend(devs.iter().cloned());
            }
            Acs::Control(_) => {}
        }
    }
    for (c, (brs, devs)) in redirecting {
        let mut devices = brs.clone();
        devices.extend(devs);
        out.push(Finding {
            check: "acs",
            severity: Severity::Error,
            devices,
            message: format!(
                "ACS redirection enabled (ACSCtl {}) on {} bridge{} between GPUs/NICs: {}",
                acs_bits(c),
                brs.len(),
                if brs.len() == 1 { "" } else { "s" },
                brs.join(", ")
            ),
            why: "peer-to-peer traffic between the GPUs and NICs below is sent up to the root complex: P2P and GPUDirect RDMA get slow, and with the IOMMU translating they can hang NCCL".into(),
            fix: format!(
                "disable ACS redirection on bare metal (BIOS 'ACS' option, or `setpci -s <bridge> ECAP_ACS+6.w=0000` at boot, e.g. for {}); keep it only where VM isolation needs it",
                brs[0]
            ),
        });
    }
    if !unknown.is_empty() {
        out.push(Finding {
            check: "acs",
            severity: Severity::Info,
            devices: unknown,
            message: "ACS state unknown: only 64 bytes of config space are readable without root".into(),
            why: "ACS redirection on these bridges would route GPU peer-to-peer and GPUDirect RDMA traffic through the root complex".into(),
            fix: "run `topo check` as root (or `sudo lspci -vvv | grep ACSCtl`)".into(),
        });
    }
}

fn check_iommu(sys: &Sys, ends: &Endpoints, out: &mut Vec<Finding>) {
    let mut translated = Vec::new();
    let mut any_group = false;
    for (name, path) in ends.all() {
        let Some(group) = sys.realpath(&format!("{path}/iommu_group")) else { continue };
        any_group = true;
        let ty = sys.read(&format!("{group}/type")).unwrap_or_default();
        if ty == "DMA" || ty == "DMA-FQ" {
            translated.push((name, ty));
        }
    }
    let cmdline = sys.read("/proc/cmdline").unwrap_or_default();
    let pt = cmdline.split_whitespace().any(|w| w == "iommu=pt" || w == "iommu.passthrough=1");
    let why = "with the IOMMU translating, every GPU peer-to-peer and GPUDirect RDMA access is remapped: bandwidth drops, and together with ACS, P2P can fail or hang".to_string();
    if !translated.is_empty() {
        let kinds: BTreeSet<&str> = translated.iter().map(|(_, t)| t.as_str()).collect();
        out.push(Finding {
            check: "iommu",
            severity: Severity::Warning,
            devices: translated.iter().map(|(n, _)| n.clone()).collect(),
            message: format!("IOMMU translates DMA for these devices (group type {})", kinds.into_iter().collect::<Vec<_>>().join("/")),
            why,
            fix: "boot with iommu=pt (intel_iommu=on iommu=pt, or amd_iommu=on iommu=pt) so host devices use identity mapping".into(),
        });
    } else if !any_group && !ends.gpus.is_empty() {
        let units = sys.list("/sys/class/iommu");
        if !units.is_empty() && !pt {
            out.push(Finding {
                check: "iommu",
                severity: Severity::Warning,
                devices: units,
                message: "an IOMMU is present and the kernel command line has no iommu=pt (group types not readable)"
                    .into(),
                why,
                fix: "check /sys/kernel/iommu_groups/*/type; boot with iommu=pt if the GPUs' groups are DMA/DMA-FQ"
                    .into(),
            });
        }
    }
}

fn check_gdr(det: &Detection, ends: &Endpoints, out: &mut Vec<Finding>) {
    let rdma: Vec<String> =
        det.nets.iter().filter(|n| n.kind == crate::discover::net::NetKind::Ib).map(|n| n.name.clone()).collect();
    if rdma.is_empty() || ends.gpus.is_empty() || det.peermem || det.dmabuf {
        return;
    }
    let dmabuf_state = match &det.nvml {
        None => "DMA-BUF support unknown (no NVML/CUDA facts)".to_string(),
        Some(n) if n.gpus.iter().any(|g| g.dmabuf != Some(true)) => "the GPUs do not report DMA-BUF support".into(),
        Some(_) => "the kernel is older than 5.12 (no DMA-BUF registration for RDMA)".into(),
    };
    out.push(Finding {
        check: "gdr",
        severity: Severity::Warning,
        devices: rdma,
        message: format!("RDMA NICs but no nvidia_peermem/nv_peer_mem module, and {dmabuf_state}"),
        why: "NCCL disables GPUDirect RDMA ('GPU Direct RDMA Disabled for HCA'): inter-node traffic is staged through host memory, costing bandwidth and CPU".into(),
        fix: "load the module (`modprobe nvidia_peermem`), or use an open GPU kernel module with CUDA 11.7+ and a 5.12+ kernel for DMA-BUF".into(),
    });
}

fn check_nvlink(det: &Detection, out: &mut Vec<Finding>) {
    let xml = &det.xml;
    // Per GPU bus id: total links, links per target.
    let mut per: BTreeMap<String, (i64, BTreeMap<String, i64>, String)> = BTreeMap::new();
    for g in xml.preorder().into_iter().filter(|&n| xml.name(n) == "gpu") {
        let Some(pci) = xml.parent(g) else { continue };
        let busid = xml.attr(pci, "busid").unwrap_or("").to_string();
        let kind = format!("{}:{}", xml.attr(pci, "device").unwrap_or("?"), xml.attr(g, "sm").unwrap_or("?"));
        let mut targets = BTreeMap::new();
        let mut total = 0;
        for l in xml.children_named(g, "nvlink") {
            let c = xml.attr(l, "count").map(strtol).unwrap_or(0);
            total += c;
            *targets.entry(xml.attr(l, "target").unwrap_or("").to_string()).or_insert(0) += c;
        }
        per.insert(busid, (total, targets, kind));
    }
    // Fewer links than peers of the same kind.
    let mut by_kind: BTreeMap<&str, Vec<(&String, i64)>> = BTreeMap::new();
    for (b, (t, _, k)) in &per {
        by_kind.entry(k.as_str()).or_default().push((b, *t));
    }
    for group in by_kind.values() {
        let max = group.iter().map(|(_, t)| *t).max().unwrap_or(0);
        if max == 0 {
            continue;
        }
        let low: Vec<String> = group.iter().filter(|(_, t)| *t < max).map(|(b, t)| format!("{b} ({t})")).collect();
        if !low.is_empty() {
            out.push(Finding {
                check: "nvlink",
                severity: Severity::Warning,
                devices: low,
                message: format!("fewer active NVLinks than the other GPUs of the same model ({max})"),
                why: "NCCL sizes NVLink bandwidth per GPU from its link count: rings and trees through this GPU run slower, and NVLS/NVSwitch collectives are limited by the weakest GPU".into(),
                fix: "check `nvidia-smi nvlink -s` for inactive links; reset the GPU or fabric manager, or have the board serviced".into(),
            });
        }
    }
    // Direction asymmetry between GPU pairs.
    let busids: Vec<&String> = per.keys().collect();
    for (i, a) in busids.iter().enumerate() {
        for b in &busids[i + 1..] {
            let ab = per[*a].1.get(*b).copied().unwrap_or(0);
            let ba = per[*b].1.get(*a).copied().unwrap_or(0);
            if ab != ba {
                out.push(Finding {
                    check: "nvlink",
                    severity: Severity::Warning,
                    devices: vec![(*a).clone(), (*b).clone()],
                    message: format!("{ab} NVLinks from {a} to {b} but {ba} back"),
                    why: "NCCL builds its graph from each GPU's own view: the pair gets different bandwidth in each direction and ring/tree search may pick a worse pattern".into(),
                    fix: "check `nvidia-smi nvlink -s` on both GPUs; a link down on one side needs a reset or service".into(),
                });
            }
        }
    }
}

fn check_p2p(det: &Detection, out: &mut Vec<Finding>) {
    let Some(n) = &det.nvml else { return };
    let Some(m) = n.p2p.read.as_ref().or(n.p2p.write.as_ref()) else { return };
    let mut bad: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, row) in m.iter().enumerate() {
        for (j, code) in row.iter().enumerate() {
            if i < j
                && code != "OK"
                && code != "X"
                && let (Some(a), Some(b)) = (n.gpus.get(i), n.gpus.get(j))
            {
                bad.entry(code.clone()).or_default().push(format!("{}<->{}", a.busid, b.busid));
            }
        }
    }
    for (code, pairs) in bad {
        out.push(Finding {
            check: "p2p",
            severity: Severity::Warning,
            devices: pairs,
            message: format!("NVML reports P2P status {code} between these GPUs"),
            why: "NCCL cannot use direct P2P between them and falls back to shared host memory (SHM), which is slower".into(),
            fix: "TNS/CNS: the PCIe topology or chipset blocks P2P (GPUs behind different CPUs or ACS); check ACS and the BIOS; DBR: P2P was disabled by a driver registry key".into(),
        });
    }
}

/// Bus ids of the GPUs of the detected XML with an NVLink to an NVSwitch.
fn gpus_on_nvswitch(det: &Detection) -> BTreeSet<String> {
    let xml = &det.xml;
    xml.preorder()
        .into_iter()
        .filter(|&g| xml.name(g) == "gpu")
        .filter(|&g| {
            xml.children_named(g, "nvlink")
                .any(|l| xml.attr(l, "tclass").is_some_and(|c| c.eq_ignore_ascii_case("0x068000")))
        })
        .filter_map(|g| xml.parent(g).and_then(|p| xml.attr(p, "busid")).map(str::to_ascii_lowercase))
        .collect()
}

fn check_fabric(det: &Detection, out: &mut Vec<Finding>) {
    use crate::discover::nvml::FabricState;
    let Some(n) = det.nvml.as_ref().filter(|n| n.fabric_known) else { return };
    let on_switch = gpus_on_nvswitch(det);
    let state = |g: &crate::discover::nvml::GpuFacts| g.fabric.as_ref().map_or(FabricState::NotSupported, |f| f.state);
    // A machine none of whose GPUs registers has no fabric to join (a PCIe or
    // NVLink-bridge box, an HGX board of an older generation): nothing to say.
    let any_registers = n.gpus.iter().any(|g| state(g) != FabricState::NotSupported);
    let mut by_state: BTreeMap<FabricState, Vec<String>> = BTreeMap::new();
    for g in &n.gpus {
        let s = state(g);
        let listed = on_switch.contains(&g.busid.to_ascii_lowercase());
        if s == FabricState::InProgress
            || s == FabricState::NotStarted
            || (s == FabricState::NotSupported && any_registers && listed)
        {
            by_state.entry(s).or_default().push(g.busid.clone());
        }
    }
    for (s, devices) in by_state {
        out.push(Finding {
            check: "fabric",
            severity: Severity::Warning,
            devices,
            message: format!("NVLink fabric registration {} (NVML GPU fabric state)", s.as_str().replace('_', " ")),
            why: "NCCL turns multi-node NVLink (MNNVL) on only when every rank's registration is completed: one GPU \
                  short keeps the whole job's trays apart, joined by their NICs instead of the NVLink fabric"
                .into(),
            fix:
                "check `nvidia-smi -q | grep -A6 Fabric`; the registration completes once the fabric manager / NVLink \
                  subnet manager of the rack has the GPU (restart nvidia-fabricmanager or the IMEX service, or reset \
                  the GPU)"
                    .into(),
        });
    }
    let failed: Vec<String> = n
        .gpus
        .iter()
        .filter(|g| g.fabric.as_ref().is_some_and(|f| f.state == FabricState::Completed && f.status != 0))
        .map(|g| g.busid.clone())
        .collect();
    if !failed.is_empty() {
        out.push(Finding {
            check: "fabric",
            severity: Severity::Warning,
            devices: failed,
            message: "NVLink fabric registration completed with a failure status".into(),
            why:
                "the GPU's registration did not succeed: its NVLinks to the rack's other trays may not carry traffic, \
                  though NCCL looks only at the state and would still count it in the clique"
                    .into(),
            fix: "check `nvidia-smi -q | grep -A6 Fabric` (Status) and the fabric manager's log".into(),
        });
    }
    // Completed registrations: one cluster and clique, or not.
    let done: Vec<(&str, &crate::discover::nvml::FabricInfo)> = n
        .gpus
        .iter()
        .filter_map(|g| g.fabric.as_ref().filter(|f| f.state == FabricState::Completed).map(|f| (g.busid.as_str(), f)))
        .collect();
    let mut groups: BTreeMap<(String, u32), Vec<String>> = BTreeMap::new();
    for (b, f) in &done {
        groups.entry((f.cluster_uuid.clone(), f.clique_id)).or_default().push((*b).to_string());
    }
    if groups.len() > 1 {
        let parts: Vec<String> = groups
            .iter()
            .map(|((u, c), gs)| {
                format!("{} GPU{} in cluster {u} clique {c:#x}", gs.len(), if gs.len() == 1 { "" } else { "s" })
            })
            .collect();
        out.push(Finding {
            check: "fabric",
            severity: Severity::Warning,
            devices: done.iter().map(|(b, _)| (*b).to_string()).collect(),
            message: format!(
                "the GPUs of this machine are registered in different NVLink cliques: {}",
                parts.join(", ")
            ),
            why: "NCCL's multi-node NVLink joins only ranks of one cluster UUID and clique id: the GPUs of one tray \
                  end up in different cliques, and traffic between the cliques goes over the network"
                .into(),
            fix: "check the rack's partition configuration in the fabric manager (NVLink partitions), or set \
                  NCCL_MNNVL_CLIQUE_ID to group them"
                .into(),
        });
    } else if let Some(((u, c), gs)) = groups.iter().next()
        && gs.len() == n.gpus.len()
    {
        let zero = crate::discover::nvml::parse_uuid(u).is_some_and(|b| b == [0; 16]);
        out.push(Finding {
            check: "fabric",
            severity: Severity::Info,
            devices: vec![],
            message: if zero {
                "every GPU's NVLink fabric registration is completed, with a zero cluster UUID: no multi-node NVLink \
                 fabric"
                    .into()
            } else {
                format!("every GPU is registered with NVLink fabric cluster {u}, clique {c:#x}")
            },
            why: if zero {
                "NCCL keeps multi-node NVLink off: each machine is its own node".into()
            } else {
                "NCCL fuses the machines of this clique into one node over NVLink (MNNVL), when CUDA's FABRIC \
                 handles work (IMEX)"
                    .into()
            },
            fix: if zero {
                "nothing to do".into()
            } else {
                "model a job on N such machines with `--nodes N --mnnvl`".into()
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with_acs(ctrl: u16) -> Vec<u8> {
        let mut c = vec![0u8; 0x120];
        // AER at 0x100 pointing to ACS at 0x110.
        c[0x100..0x104].copy_from_slice(&(0x0001u32 | (1 << 16) | (0x110 << 20)).to_le_bytes());
        c[0x110..0x114].copy_from_slice(&(0x000du32 | (1 << 16)).to_le_bytes());
        c[0x116..0x118].copy_from_slice(&ctrl.to_le_bytes());
        c
    }

    #[test]
    fn acs_parsing() {
        assert_eq!(parse_acs(&[0u8; 64]), Acs::Unknown);
        assert_eq!(parse_acs(&[0u8; 256]), Acs::Absent);
        assert_eq!(parse_acs(&config_with_acs(0x1d)), Acs::Control(0x1d));
        assert_eq!(acs_bits(0x1d), "SrcValid+ReqRedir+CmpltRedir+UpstreamFwd");
        let mut loopy = vec![0u8; 0x110];
        loopy[0x100..0x104].copy_from_slice(&(0x0001u32 | (0x100 << 20)).to_le_bytes());
        assert_eq!(parse_acs(&loopy), Acs::Absent);
    }

    #[test]
    fn chains() {
        assert_eq!(
            chain("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"),
            vec![
                "/sys/devices/pci0000:00/0000:00:01.0".to_string(),
                "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0".to_string()
            ]
        );
    }
}
