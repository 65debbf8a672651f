//! A topology XML rebuilt from a log's system print (`topo log --xml`), so that the
//! rest of topo can analyse the machine the log ran on.
//!
//! The print holds the tree (CPU, PCI switches, GPUs, NICs, NETs), every link's
//! bandwidth, the GPUs' ranks, the CPUs' arch/vendor/model codes (2.6+), the switches'
//! PCI ids (2.9+) and the NETs' guid, port and speed. It does not hold PCI link widths
//! and generations (only their product), GPU compute capabilities, NIC names, NUMA
//! affinity masks, or whether a GPU supports GPUDirect RDMA. Each is filled with the
//! value that gives the printed bandwidth back, or a stated default, and listed in
//! [`Rebuilt::assumed`].

use std::collections::{BTreeMap, BTreeSet};

use super::facts::{LogFacts, SysNode, SystemPrint};
use crate::error::Error;
use crate::model::bw;
use crate::release::Release;
use crate::xml::{self, NodeId, Xml};

/// The rebuilt topology and what had to be assumed.
#[derive(Debug, Clone)]
pub struct Rebuilt {
    pub xml: Xml,
    /// What the print cannot tell, with the value written (one line each).
    pub assumed: Vec<String>,
}

/// PCIe link strings and per-lane speeds (topo's [`xml::PCI_GEN`] units), newest first.
const GENS: [(&str, i32); 6] = [
    ("64.0 GT/s PCIe", 480),
    ("32.0 GT/s PCIe", 240),
    ("16.0 GT/s PCIe", 120),
    ("8.0 GT/s PCIe", 60),
    ("5.0 GT/s PCIe", 30),
    ("2.5 GT/s PCIe", 15),
];

/// A link generation and width that NCCL turns into `bw` (as printed, `%.1f`): x16
/// first, then narrower, then x32. `None` when no combination prints as `bw`.
pub fn pci_link_for(bw: f64) -> Option<(&'static str, i32)> {
    let printed = format!("{bw:.1}");
    for width in [16, 8, 4, 2, 1, 32] {
        for (speed, lane) in GENS {
            let b = ((width as i64 * lane as i64) as f64 / 80.0) as f32;
            if format!("{b:.1}") == printed {
                return Some((speed, width));
            }
        }
    }
    None
}

/// The compute capability whose per-link NVLink bandwidth divides every NVLink of the
/// GPU into a whole number of links, no more in all than NCCL probes for it (4, 6, 12
/// or 18 links).
fn nvlink_cc(bws: &[f64], release: Release) -> Option<i32> {
    if bws.is_empty() {
        return None;
    }
    let table = release.nvlink_table();
    // Hopper first: before 2.25 Blackwell reads Hopper's per-link bandwidth, and a
    // print of those releases is Hopper's.
    [90, 100, 86, 80, 60].into_iter().find(|&cc| {
        let per = bw::nvlink(table, cc) as f64;
        let max_links = match cc {
            60 => 4.0,
            80 | 86 => 12.0,
            _ => 18.0,
        };
        let mut total = 0.0;
        let whole = bws.iter().all(|&b| {
            let n = (b / per).round();
            total += n;
            n >= 1.0 && format!("{:.1}", (n * per) as f32) == format!("{b:.1}")
        });
        whole && total <= max_links
    })
}

/// NCCL's CPU codes as the XML attributes that give them back.
fn cpu_attrs(arch: i64, vendor: i64, model: i64) -> (&'static str, Option<&'static str>, Option<(u32, u32)>) {
    let arch_s = match arch {
        2 => "ppc64",
        3 => "arm64",
        _ => "x86_64",
    };
    if arch_s != "x86_64" {
        return (arch_s, None, None);
    }
    match vendor {
        1 => {
            let m = match model {
                1 => 0x4f,
                3 => 0x8f,
                4 => 0xcf,
                _ => 0x55,
            };
            (arch_s, Some("GenuineIntel"), Some((6, m)))
        }
        2 => (arch_s, Some("AuthenticAMD"), Some((25, 1))),
        3 => (arch_s, Some("CentaurHauls"), Some((7, if model == 1 { 0x5b } else { 0x3b }))),
        _ => (arch_s, Some("GenuineIntel"), Some((6, 0x55))),
    }
}

/// Rebuild the topology of `print` (one of `facts.systems`) as the release that wrote
/// the log would read it.
pub fn topology(facts: &LogFacts, print: &SystemPrint, release: Release) -> Result<Rebuilt, Error> {
    let nodes = &print.nodes;
    if !nodes.iter().any(|n| n.kind == "GPU") {
        return Err(Error::Input {
            file: "log".into(),
            message: "the system print holds no GPU: there is no topology to rebuild".into(),
        });
    }
    let mut assumed = Vec::new();
    let mut x = Xml::new_system();
    let root = x.root().unwrap_or(0);

    // From 2.30.3 a GPU's device is a DEV node of its own, holding the PCIe and NVLink
    // links, with a LOC link to the GPU (rank) node: both stand for one `<gpu>`.
    let mut gpu_of: Vec<usize> = (0..nodes.len()).collect();
    for l in print.links.iter().filter(|l| l.kind == "LOC") {
        match (nodes[l.from].kind.as_str(), nodes[l.to].kind.as_str()) {
            ("DEV", "GPU") => gpu_of[l.from] = l.to,
            ("GPU", "DEV") => gpu_of[l.to] = l.from,
            _ => {}
        }
    }
    let is_gpu = |i: usize| nodes[gpu_of[i]].kind == "GPU";
    // Children by PCI (and NET) links, parents first: the tree of the print.
    let mut children: BTreeMap<usize, Vec<(usize, &str, f64)>> = BTreeMap::new();
    let mut has_parent = vec![false; nodes.len()];
    let mut nvlinks: BTreeMap<usize, Vec<(usize, f64)>> = BTreeMap::new();
    let mut c2c: BTreeMap<usize, f64> = BTreeMap::new();
    for l in &print.links {
        match l.kind.as_str() {
            "PCI" | "NET" if !has_parent[l.to] => {
                has_parent[l.to] = true;
                children.entry(l.from).or_default().push((l.to, l.kind.as_str(), l.bw));
            }
            // The facts keep one link per GPU pair: each GPU lists its own NVLinks.
            "NVL" if is_gpu(l.from) || is_gpu(l.to) => {
                let (f, t) = (gpu_of[l.from], gpu_of[l.to]);
                for (a, b) in [(f, t), (t, f)] {
                    let list = nvlinks.entry(a).or_default();
                    if nodes[a].kind == "GPU" && !list.iter().any(|&(x, _)| x == b) {
                        list.push((b, l.bw));
                    }
                }
            }
            "C2C" if is_gpu(l.from) => {
                c2c.insert(gpu_of[l.from], l.bw);
            }
            _ => {}
        }
    }

    // Compute capability: from the NVLinks when they tell, else from the PCIe generation.
    let mut cc_by_gpu: BTreeMap<usize, i32> = BTreeMap::new();
    let mut guessed_cc = Vec::new();
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.kind == "GPU") {
        let bws: Vec<f64> = nvlinks.get(&i).map(|v| v.iter().map(|&(_, b)| b).collect()).unwrap_or_default();
        // Only Grace Hopper and later have C2C.
        let from_links = if c2c.contains_key(&i) && bws.is_empty() { Some(90) } else { nvlink_cc(&bws, release) };
        let cc = from_links.unwrap_or_else(|| {
            guessed_cc.push(n.id.clone());
            let pci_bw = print.links.iter().find(|l| gpu_of[l.to] == i && l.kind == "PCI").map(|l| l.bw);
            match pci_bw.and_then(pci_link_for) {
                Some((s, _)) if s.starts_with("32") || s.starts_with("64") => 90,
                _ => 80,
            }
        });
        cc_by_gpu.insert(i, cc);
    }
    if !guessed_cc.is_empty() {
        assumed.push(format!(
            "compute capability of {}: not in the log; sm 90 written for PCIe Gen5 and later, else sm 80",
            guessed_cc.join(", ")
        ));
    } else {
        assumed.push("compute capability: from the NVLink bandwidths (a whole number of links per GPU)".into());
    }

    // Names of NETs from `NET/... : Using [i]name` lines of the print's host.
    let names: BTreeMap<u32, String> = facts
        .nets
        .iter()
        .filter(|u| print.host.is_none() || u.host == print.host)
        .flat_map(|u| u.devices.iter().map(|d| (d.index, d.name.clone())))
        .collect();
    // NETs NCCL fused from several devices (2.21+ virtual NICs) have device numbers
    // past the plugin's: give each the devices of the `Using` line that the print does
    // not show, in order, as many each, so that the model fuses them again.
    let printed_devs: BTreeSet<u32> =
        nodes.iter().filter(|n| n.kind == "NET").filter_map(|n| u32::try_from(n.local_id).ok()).collect();
    let mut physical: BTreeMap<u32, (String, Option<u32>)> = BTreeMap::new();
    for u in facts.nets.iter().filter(|u| print.host.is_none() || u.host == print.host) {
        for d in &u.devices {
            physical.entry(d.index).or_insert_with(|| (d.name.clone(), d.port));
        }
    }
    let hidden: Vec<u32> = physical.keys().copied().filter(|d| !printed_devs.contains(d)).collect();
    let virtual_nets: Vec<u32> = printed_devs.iter().copied().filter(|d| !physical.contains_key(d)).collect();
    let mut fused_from: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    if !virtual_nets.is_empty()
        && hidden.len() >= 2 * virtual_nets.len()
        && hidden.len().is_multiple_of(virtual_nets.len())
    {
        let k = hidden.len() / virtual_nets.len();
        for (v, chunk) in virtual_nets.iter().zip(hidden.chunks(k)) {
            fused_from.insert(*v, chunk.to_vec());
        }
        assumed.push(format!(
            "fused NETs {}: split into the devices of the `Using` line the print does not show, {k} each, in \
             order, at an equal share of the bandwidth",
            virtual_nets.iter().map(|v| format!("{v}")).collect::<Vec<_>>().join(", ")
        ));
    }
    let gdr_off: Vec<&str> =
        facts.gdr.iter().filter(|g| !g.enabled && g.gpu.is_none()).map(|g| g.nic.as_str()).collect();

    let mut widths_guessed = Vec::new();
    let mut unnamed = Vec::new();
    let mut cpu_guessed = false;
    let rank_devs: BTreeMap<i64, u32> = facts
        .ranks
        .iter()
        .filter(|r| print.comm.is_none() || Some(r.comm) == print.comm)
        .filter_map(|r| r.nvml_dev.or(r.cuda_dev).map(|d| (r.rank as i64, d)))
        .collect();
    // From 2.30.3 the print names a GPU's rank nowhere (its GPU node hangs off its
    // DEV node by a LOC link, printed without attributes): the comm lines of the
    // print's host give it by bus id; else GPUs are numbered in print order.
    let comm = print.comm.or(facts.primary());
    let rank_by_bus: BTreeMap<i64, i64> = facts
        .ranks
        .iter()
        .filter(|r| comm.is_none() || Some(r.comm) == comm)
        .filter(|r| print.host.is_none() || r.host == print.host)
        .filter_map(|r| Some((xml::busid_to_i64(r.bus_id.as_deref()?), r.rank as i64)))
        .collect();
    let gpu_order: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].kind == "GPU").collect();
    let rank_of_gpu = |i: usize| -> i64 {
        let n = &nodes[i];
        n.rank
            .or_else(|| rank_by_bus.get(&(n.local_id as i64)).copied())
            .unwrap_or_else(|| gpu_order.iter().position(|&g| g == i).unwrap_or(0) as i64)
    };

    // Siblings in bus-id order, as NCCL's detection inserts them (the print orders
    // links by bandwidth): the GPUs' order decides NCCL's GPU indices.
    for list in children.values_mut() {
        list.sort_by_key(|&(c, _, _)| (nodes[c].kind == "NET", nodes[c].local_id));
    }
    let roots: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].kind == "CPU" && !has_parent[i]).collect();
    for &c in &roots {
        let n = &nodes[c];
        let cpu = x.add(Some(root), "cpu");
        let numa = if n.local_id >= 0x00ff_ffff_ffff_ffff { -1 } else { n.local_id as i64 };
        x.set_attr(cpu, "numaid", numa.to_string());
        x.set_attr(cpu, "affinity", "");
        let (arch, vendor, fm) = match n.cpu {
            Some(a) => cpu_attrs(a.arch, a.vendor, a.model),
            None => {
                cpu_guessed = true;
                cpu_attrs(1, 1, 2)
            }
        };
        x.set_attr(cpu, "arch", arch);
        if let Some(v) = vendor {
            x.set_attr(cpu, "vendor", v);
        }
        if let Some((f, m)) = fm {
            x.set_attr(cpu, "familyid", f.to_string());
            x.set_attr(cpu, "modelid", m.to_string());
        }
        let mut stack = vec![(c, cpu)];
        while let Some((parent, px)) = stack.pop() {
            for &(child, kind, link_bw) in children.get(&parent).into_iter().flatten() {
                let cn = &nodes[child];
                match (kind, cn.kind.as_str()) {
                    ("PCI", "PCI" | "GPU" | "DEV" | "NIC" | "NVS") => {
                        let el = pci_element(&mut x, px, cn, link_bw, &mut widths_guessed);
                        match cn.kind.as_str() {
                            "GPU" | "DEV" if is_gpu(child) => {
                                let child = gpu_of[child];
                                let g = x.add(Some(el), "gpu");
                                let rank = rank_of_gpu(child);
                                let dev = rank_devs.get(&rank).map_or(rank, |&d| d as i64);
                                x.set_attr(g, "dev", dev.to_string());
                                x.set_attr(g, "sm", cc_by_gpu.get(&child).copied().unwrap_or(80).to_string());
                                x.set_attr(g, "rank", rank.to_string());
                                x.set_attr(g, "gdr", "1");
                                add_gpu_links(&mut x, g, child, nodes, &nvlinks, &c2c, &cc_by_gpu, release);
                                stack.push((child, el));
                            }
                            "NIC" => {
                                let nic = x.add(Some(el), "nic");
                                stack.push((child, nic));
                            }
                            _ => stack.push((child, el)),
                        }
                    }
                    (_, "NET") => {
                        // A NET under a NIC, or a NIC-less NET under a CPU.
                        let holder = if x.name(px) == "nic" || x.name(px) == "cpu" && cn.net.is_none() {
                            px
                        } else if x.name(px) == "cpu" {
                            x.add(Some(px), "nic")
                        } else {
                            px
                        };
                        let dev = cn.local_id as u32;
                        let a = cn.net.unwrap_or_default();
                        let b = if a.bw > 0.0 { a.bw } else { link_bw };
                        // The devices to write: a fused NET's members at an equal share
                        // of its bandwidth, else the NET itself.
                        let devices: Vec<(String, u32, f64, String)> = match fused_from.get(&dev) {
                            Some(members) => members
                                .iter()
                                .map(|&m| {
                                    let (name, port) = physical.get(&m).cloned().unwrap_or_default();
                                    let port = port.unwrap_or(a.port as u32).to_string();
                                    (name, m, b / members.len() as f64, port)
                                })
                                .collect(),
                            None => {
                                let name = names.get(&dev).cloned().unwrap_or_else(|| {
                                    // NCCL prints some NETs several times (one node per
                                    // socket device of one id): name each once.
                                    if !unnamed.contains(&cn.id) {
                                        unnamed.push(cn.id.clone());
                                    }
                                    format!("net{dev}")
                                });
                                vec![(name, dev, b, a.port.to_string())]
                            }
                        };
                        let mut net = None;
                        for (name, d, bw, port) in devices {
                            let n = x.add(Some(holder), "net");
                            x.set_attr(n, "name", name);
                            x.set_attr(n, "dev", d.to_string());
                            x.set_attr(n, "speed", ((bw * 8000.0).round() as i64).to_string());
                            x.set_attr(n, "port", port);
                            x.set_attr(n, "latency", "0");
                            x.set_attr(n, "guid", format!("{:#x}", a.asic));
                            x.set_attr(n, "maxconn", "65536");
                            let gdr = !gdr_off.iter().any(|h| h.parse::<u32>() == Ok(d));
                            x.set_attr(n, "gdr", if gdr { "1" } else { "0" });
                            net = Some(n);
                        }
                        // The CollNet attribute of a NET printed as itself.
                        let Some(net) = net.filter(|_| !fused_from.contains_key(&dev)) else { continue };
                        if let Some(coll) = a.coll.filter(|&c| c != 0) {
                            x.set_attr(net, "coll", coll.to_string());
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    if cpu_guessed {
        assumed.push("CPU arch/vendor/model: not printed before NCCL 2.6; x86_64 GenuineIntel Skylake written".into());
    }
    assumed.push("CPU affinity masks: not in the print; affinity=\"\" written".into());
    if !widths_guessed.is_empty() {
        assumed.push(format!(
            "PCIe links of {}: no generation and width gives the printed bandwidth; Gen3 x16 written",
            widths_guessed.join(", ")
        ));
    }
    assumed.push(
        "PCIe generations and widths: the print has only their product; x16 (or the widest that fits) at the generation that gives it"
            .into(),
    );
    if !unnamed.is_empty() {
        assumed.push(format!("NIC names of {}: not in the log; netN written", unnamed.join(", ")));
    }
    match gdr_from_paths(&mut x, print, release, facts.nccl_settings()) {
        Some(off) => assumed.push(format!(
            "GPUDirect RDMA: off for {off} (the print routes NET traffic of GPUs under the same PCI switches \
             through the CPU); gdr=\"1\" on the other GPUs and NETs"
        )),
        None => {
            assumed.push("GPUDirect RDMA: gdr=\"1\" on every GPU; on NETs unless the log says it is disabled".into())
        }
    }
    assumed.push("bus ids of the bridges between a CPU and its first device: not printed (none written)".into());
    Ok(Rebuilt { xml: x, assumed })
}

/// Path types through which NCCL reaches a NET with GPUDirect RDMA: a NIC under the
/// GPU's own PCI switches (or NVLink, C2C). With GDR off NCCL routes a GPU's NET
/// traffic through its CPU (paths.cc), and prints PHB or SYS.
const GDR_REACH: [&str; 7] = ["LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C"];

/// GPUDirect RDMA that the print shows off: a NET-GPU path that the rebuilt machine
/// (with GDR on) reaches through PCI switches alone, printed through the CPU. A NET
/// whose every such GPU shows it gets `gdr="0"`, else each GPU that shows it with
/// every such NET. Returns the nodes turned off, in words; None when nothing was.
fn gdr_from_paths(
    x: &mut Xml,
    print: &SystemPrint,
    release: Release,
    settings: Vec<(String, String)>,
) -> Option<String> {
    let norm = |s: &str| s.to_ascii_lowercase().replace("/0-", "/");
    let rank_of: BTreeMap<String, i32> = print
        .nodes
        .iter()
        .filter(|n| n.kind == "GPU")
        .filter_map(|n| Some((norm(&n.id), i32::try_from(n.rank?).ok()?)))
        .collect();
    let dev_of: BTreeMap<String, i32> = print
        .nodes
        .iter()
        .filter(|n| n.kind == "NET")
        .filter_map(|n| Some((norm(&n.id), i32::try_from(n.local_id).ok()?)))
        .collect();
    // (rank, net dev) -> printed type, from the NET rows (and GPU rows' NET entries).
    let mut printed: BTreeMap<(i32, i32), &str> = BTreeMap::new();
    for p in &print.paths {
        let (a, b) = (norm(&p.from), norm(&p.to));
        let key = match (rank_of.get(&a), dev_of.get(&b), dev_of.get(&a), rank_of.get(&b)) {
            (Some(&r), Some(&d), _, _) | (_, _, Some(&d), Some(&r)) => (r, d),
            _ => continue,
        };
        printed.entry(key).or_insert(p.kind.as_str());
    }
    if printed.is_empty() {
        return None;
    }
    let env = crate::env::Env::for_release(release, settings);
    let opts = crate::model::Options { nodes: 1, env, ..crate::model::Options::default() };
    let an = crate::model::analyze(x, "rebuilt", &opts).ok()?;
    // Per pair within GDR reach in the model: whether the print shows GDR off.
    let mut off: BTreeMap<(i32, i32), bool> = BTreeMap::new();
    for r in &an.paths.net_gpu {
        let (Some(rank), Some(dev)) = (r.rank, r.net) else { continue };
        let Some(&kind) = printed.get(&(rank, dev)) else { continue };
        if GDR_REACH.contains(&r.ty.name()) {
            off.insert((rank, dev), matches!(kind, "PHB" | "SYS"));
        }
    }
    let all_off = |pairs: Vec<bool>| !pairs.is_empty() && pairs.iter().all(|&o| o);
    let devs: BTreeSet<i32> = off.keys().map(|k| k.1).collect();
    let ranks: BTreeSet<i32> = off.keys().map(|k| k.0).collect();
    let nets_off: Vec<i32> = devs
        .into_iter()
        .filter(|&d| all_off(off.iter().filter(|(k, _)| k.1 == d).map(|(_, &o)| o).collect()))
        .collect();
    let gpus_off: Vec<i32> = ranks
        .into_iter()
        .filter(|&r| {
            let pairs: Vec<bool> =
                off.iter().filter(|(k, _)| k.0 == r && !nets_off.contains(&k.1)).map(|(_, &o)| o).collect();
            all_off(pairs)
        })
        .collect();
    if nets_off.is_empty() && gpus_off.is_empty() {
        return None;
    }
    let root = x.root()?;
    let mut words = Vec::new();
    for n in x.descendants_named(root, "net") {
        if let Some(d) = x.attr(n, "dev").and_then(|v| v.parse::<i32>().ok())
            && nets_off.contains(&d)
        {
            x.set_attr(n, "gdr", "0");
            words.push(format!("NET {d}"));
        }
    }
    for g in x.descendants_named(root, "gpu") {
        if let Some(r) = x.attr(g, "rank").and_then(|v| v.parse::<i32>().ok())
            && gpus_off.contains(&r)
        {
            x.set_attr(g, "gdr", "0");
            words.push(format!("the GPU of rank {r}"));
        }
    }
    Some(words.join(", "))
}

/// The `<pci>` element of a printed node, with its link to the parent.
fn pci_element(x: &mut Xml, parent: NodeId, n: &SysNode, link_bw: f64, guessed: &mut Vec<String>) -> NodeId {
    let el = x.add(Some(parent), "pci");
    let busid = n.bus_id.clone().unwrap_or_else(|| xml::i64_to_busid(n.local_id as i64));
    x.set_attr(el, "busid", busid);
    let class = match n.kind.as_str() {
        "GPU" | "DEV" => "0x030200",
        "NIC" => "0x020700",
        "NVS" => "0x068000",
        _ => "0x060400",
    };
    x.set_attr(el, "class", class);
    if let Some(d) = n.pci_device {
        for (key, shift) in [("vendor", 48), ("device", 32), ("subsystem_vendor", 16), ("subsystem_device", 0)] {
            x.set_attr(el, key, format!("{:#06x}", (d >> shift) & 0xffff));
        }
    }
    let (speed, width) = pci_link_for(link_bw).unwrap_or_else(|| {
        guessed.push(n.id.clone());
        ("8.0 GT/s PCIe", 16)
    });
    x.set_attr(el, "link_speed", speed);
    x.set_attr(el, "link_width", width.to_string());
    el
}

/// A GPU's `<nvlink>` and `<c2c>` elements from its printed links.
#[allow(clippy::too_many_arguments)]
fn add_gpu_links(
    x: &mut Xml,
    g: NodeId,
    gpu: usize,
    nodes: &[SysNode],
    nvlinks: &BTreeMap<usize, Vec<(usize, f64)>>,
    c2c: &BTreeMap<usize, f64>,
    cc_by_gpu: &BTreeMap<usize, i32>,
    release: Release,
) {
    let cc = cc_by_gpu.get(&gpu).copied().unwrap_or(80);
    let per = bw::nvlink(release.nvlink_table(), cc) as f64;
    for &(to, b) in nvlinks.get(&gpu).into_iter().flatten() {
        let t = &nodes[to];
        let (target, tclass) = match t.kind.as_str() {
            "GPU" => (t.bus_id.clone().unwrap_or_else(|| xml::i64_to_busid(t.local_id as i64)), "0x030200"),
            "CPU" => ("fffffff:ffff:ff".to_string(), "0x068001"),
            _ => ("fffffff:ffff:ff".to_string(), "0x068000"),
        };
        let l = x.add(Some(g), "nvlink");
        x.set_attr(l, "target", target);
        x.set_attr(l, "count", ((b / per).round().max(1.0) as i64).to_string());
        x.set_attr(l, "tclass", tclass);
    }
    if let Some(&b) = c2c.get(&gpu) {
        let l = x.add(Some(g), "c2c");
        x.set_attr(l, "bw", ((b * 1000.0).round() as i64).to_string());
        x.set_attr(l, "count", "1");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_links_give_the_printed_bandwidth_back() {
        assert_eq!(pci_link_for(24.0), Some(("16.0 GT/s PCIe", 16)));
        assert_eq!(pci_link_for(48.0), Some(("32.0 GT/s PCIe", 16)));
        assert_eq!(pci_link_for(12.0), Some(("8.0 GT/s PCIe", 16)));
        // Gen1 x1 is 0.1875 GB/s, printed 0.2.
        assert_eq!(pci_link_for(0.2), Some(("2.5 GT/s PCIe", 1)));
        assert_eq!(pci_link_for(5000.0), None);
    }

    #[test]
    fn nvlink_counts_tell_the_gpu_generation() {
        let r = Release::NEWEST;
        assert_eq!(nvlink_cc(&[370.8], r), Some(90));
        assert_eq!(nvlink_cc(&[48.0], r), Some(86));
        assert_eq!(nvlink_cc(&[200.0, 40.0], r), Some(80));
        // 20 links of 12 GB/s are more than an sm 86 GPU has: 12 A100 links.
        assert_eq!(nvlink_cc(&[240.0], r), Some(80));
        assert_eq!(nvlink_cc(&[], r), None);
    }
}
