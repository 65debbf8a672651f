//! What NCCL does to the topology XML before it builds a system from it
//! (`ncclTopoGetSystem` up to `ncclTopoGetSystemFromXml`):
//!
//! 1. keep only the elements NCCL's loader reads;
//! 2. give ranks to GPUs (rank r is the GPU with the r-th smallest NVML index);
//! 3. list the network devices as the network plugin would (physical devices first, by
//!    `dev`), fuse the ports of one NIC into virtual devices (`NCCL_NET_MERGE_LEVEL`,
//!    `NCCL_NET_FORCE_MERGE`), and place each virtual device in the tree;
//! 4. for each local rank, trim the tree to what that rank uses, then fuse the ranks'
//!    trees in rank order, which is what fixes the final order of CPUs, switches and
//!    devices.

use crate::error::Error;
use crate::model::PathType;
use crate::release::{NicFusion, Release};
use crate::xml::{self, Diagnostic, NodeId, Severity, Xml};

/// How the network plugin behaves.
#[derive(Debug, Clone)]
pub struct NetOptions {
    /// The plugin can fuse ports (`makeVDevice`); off with `--no-nic-fusion`.
    pub fusion: bool,
    /// Every device is CollNet capable (`--collnet`).
    pub collnet: bool,
    /// NCCL_NET_MERGE_LEVEL (default PORT).
    pub merge_level: PathType,
    /// NCCL_NET_MERGE_POLICY=RAIL.
    pub merge_rail: bool,
    /// NCCL_NET_FORCE_MERGE.
    pub force_merge: Option<String>,
    /// The NCCL release modelled.
    pub release: Release,
}

impl Default for NetOptions {
    fn default() -> NetOptions {
        NetOptions {
            fusion: true,
            collnet: false,
            merge_level: PathType::PORT,
            merge_rail: false,
            force_merge: None,
            release: Release::NEWEST,
        }
    }
}

/// A network device as the plugin lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NetDevice {
    pub dev: i32,
    pub name: String,
    #[serde(rename = "virtual", skip_serializing_if = "std::ops::Not::not")]
    pub is_virtual: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub physdevs: Vec<i32>,
    #[serde(skip)]
    pub speed: i64,
    #[serde(skip)]
    pub port: i64,
    #[serde(skip)]
    pub guid: Option<u64>,
    #[serde(skip)]
    pub maxconn: Option<i64>,
    #[serde(skip)]
    pub gdr: i64,
    #[serde(skip)]
    pub rail: i64,
    #[serde(skip)]
    pub plane: i64,
}

/// A GPU and the rank it gets.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RankedGpu {
    pub rank: i32,
    pub busid: String,
    pub dev: i32,
    pub sm: i32,
    /// The host (tray) the GPU is on, when several hosts are fused into one system
    /// (multi-node NVLink); NCCL's system id of its nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<usize>,
}

/// The prepared tree and what was decided on the way.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The fused tree the system is built from.
    pub xml: Xml,
    pub gpus: Vec<RankedGpu>,
    pub nets: Vec<NetDevice>,
    pub diags: Vec<Diagnostic>,
}

/// Why a file without ranked GPUs cannot be modelled. A file whose GPUs are only PCI
/// devices (class 0x03..., no `<gpu>`) is a skeleton, as the clouds ship for
/// NCCL_TOPO_FILE: NCCL merges it with what it detects, and so does `topo detect`.
fn no_gpu_message(x: &Xml) -> String {
    let gpu_pcis = x.root().map_or(0, |root| {
        x.descendants_named(root, "pci")
            .into_iter()
            .filter(|&p| x.attr(p, "class").is_some_and(|c| c.starts_with("0x03")))
            .count()
    });
    if gpu_pcis == 0 {
        return "no <gpu> with a dev (NVML index) attribute: there is nothing for NCCL to model (on a machine \
                without GPUs, try a built-in one: `topo paths --fixture dgx-h100`)"
            .into();
    }
    format!(
        "a skeleton topology: {gpu_pcis} GPU <pci> devices (class 0x03...) but no <gpu> elements, as the \
         clouds' NCCL_TOPO_FILE files are; NCCL fills them in from the machine it runs on: on that machine, \
         `topo detect --topo-file FILE -o merged.xml`, then `topo paths --topo merged.xml`"
    )
}

/// Run the preparation. `file` names the input in messages.
pub fn prepare(input: &Xml, file: &str, net: &NetOptions) -> Result<Prepared, Error> {
    prepare_hosts(input, file, net, 1)
}

/// Run the preparation for `hosts` identical hosts whose topologies NCCL fuses into one
/// system (multi-node NVLink: every rank of the clique contributes its host's tree).
/// Ranks are numbered host by host; each host's CPUs carry their own `host_hash`, so
/// the build gives each host its own system id. With one host, [`prepare`].
pub fn prepare_hosts(input: &Xml, file: &str, net: &NetOptions, hosts: usize) -> Result<Prepared, Error> {
    let mut diags = Vec::new();
    let mut base = nccl_view(input);
    let root = base.root().ok_or_else(|| Error::Input { file: file.into(), message: "empty document".into() })?;

    // Every CPU is this host's (NCCL overwrites host_hash with the local one).
    for id in base.descendants_named(root, "cpu") {
        if base.attr(id, "host_hash").is_some() {
            base.set_attr(id, "host_hash", "0x0");
        }
    }

    let gpus = rank_gpus(&base, file, &mut diags)?;
    if gpus.is_empty() {
        return Err(Error::Input { file: file.into(), message: no_gpu_message(&base) });
    }
    let mut nets = physical_nets(&base, &mut diags);
    populate(&mut base, &nets, net.collnet);
    let fusion = if net.fusion && !nets.is_empty() { net.release.nic_fusion() } else { NicFusion::None };
    if let NicFusion::IbPorts { mixed_unmerges } = fusion {
        nets = ib_port_merge(&mut base, &nets, mixed_unmerges, net.collnet);
    }
    if fusion == NicFusion::VirtualNics {
        let vnics = make_vnics(&base, &nets, net, file)?;
        let n_phys = nets.len();
        for (k, members) in vnics.iter().enumerate() {
            let d0 = &nets[members[0]];
            let mut rail = d0.rail;
            for &m in members {
                if nets[m].rail == -1 || nets[m].rail != rail {
                    rail = -1;
                }
            }
            nets.push(NetDevice {
                dev: (n_phys + k) as i32,
                name: members.iter().map(|&m| nets[m].name.as_str()).collect::<Vec<_>>().join("+"),
                is_virtual: true,
                physdevs: members.iter().map(|&m| m as i32).collect(),
                speed: members.iter().map(|&m| nets[m].speed).sum(),
                port: d0.port,
                guid: d0.guid,
                maxconn: d0.maxconn,
                gdr: d0.gdr,
                rail,
                plane: -1,
            });
        }
        // The physical ports of a virtual device are no longer used by this plugin.
        for members in &vnics {
            for &m in members {
                if let Some(id) = base.find_tag_kv("net", "name", &nets[m].name) {
                    base.set_attr(id, "net", "0");
                    let gin = base.attr(id, "gin").map_or(0, xml::strtol);
                    let coll = if net.collnet { 0 } else { base.attr(id, "coll").map_or(0, xml::strtol) };
                    if net.collnet {
                        base.set_attr(id, "coll", "0");
                    }
                    if gin == 0 && coll == 0 {
                        base.set_attr(id, "keep", "0");
                    }
                }
            }
        }
        for k in 0..vnics.len() {
            let dev = nets[n_phys + k].clone();
            if base.find_tag_kv("net", "name", &dev.name).is_some() {
                continue;
            }
            let members: Vec<&str> = vnics[k].iter().map(|&m| nets[m].name.as_str()).collect();
            let parent = vnic_parent(&mut base, &members, file)?;
            let nic = match base.child_named(parent, "nic") {
                Some(n) => n,
                None => base.add(Some(parent), "nic"),
            };
            let id = base.add(Some(nic), "net");
            base.set_attr(id, "name", dev.name.clone());
            fill_net_attrs(&mut base, id, &dev, net.collnet);
        }
    }

    if hosts <= 1 {
        let fused = if net.release.per_rank_xml() { fuse_ranks(&base, &gpus) } else { trim_once(&base, &gpus) };
        return Ok(Prepared { xml: fused, gpus: gpus.into_iter().map(|g| g.0).collect(), nets, diags });
    }
    // Every host's copy of the tree, its CPUs marked with the host's hash and its GPUs
    // with their ranks in the clique, fused host after host into one tree.
    let per_host = gpus.len();
    let mut fused = Xml::default();
    let mut all = Vec::with_capacity(per_host * hosts);
    for h in 0..hosts {
        let mut copy = base.clone();
        if let Some(r) = copy.root() {
            for c in copy.descendants_named(r, "cpu") {
                copy.set_attr(c, "host_hash", format!("{h:#x}"));
            }
        }
        let ranked: Vec<(RankedGpu, NodeId)> = gpus
            .iter()
            .map(|(g, el)| {
                let rank = (h * per_host) as i32 + g.rank;
                (RankedGpu { rank, host: Some(h), ..g.clone() }, *el)
            })
            .collect();
        let tree = if net.release.per_rank_xml() { fuse_ranks(&copy, &ranked) } else { trim_once(&copy, &ranked) };
        match (fused.root(), tree.root()) {
            (None, Some(r)) => {
                fused.copy_tree(None, &tree, r);
            }
            (Some(froot), Some(r)) => fuse_rec(&mut fused, froot, &tree, r),
            _ => {}
        }
        all.extend(ranked.into_iter().map(|g| g.0));
    }
    Ok(Prepared { xml: fused, gpus: all, nets, diags })
}

/// The subset of the tree NCCL's loader keeps (unknown elements are skipped).
pub fn nccl_view(input: &Xml) -> Xml {
    fn rec(src: &Xml, id: NodeId, dst: &mut Xml, parent: Option<NodeId>) {
        let me = dst.add(parent, src.name(id));
        dst.nodes[me].attrs = src.nodes[id].attrs.clone();
        dst.nodes[me].line = src.nodes[id].line;
        for &c in src.children(id) {
            if xml::nccl_reads(src.name(id), src.name(c)) {
                rec(src, c, dst, Some(me));
            }
        }
    }
    let mut out = Xml::default();
    if let Some(r) = input.root() {
        rec(input, r, &mut out, None);
    }
    out
}

/// GPUs with their ranks, plus the id of their `<gpu>` element.
fn rank_gpus(x: &Xml, file: &str, diags: &mut Vec<Diagnostic>) -> Result<Vec<(RankedGpu, NodeId)>, Error> {
    let root = x.root().unwrap_or(0);
    let mut found = Vec::new();
    for g in x.descendants_named(root, "gpu") {
        let Some(p) = x.parent(g).filter(|&p| x.name(p) == "pci") else { continue };
        let Some(dev) = x.attr(g, "dev").map(xml::strtol) else { continue };
        if dev < 0 {
            continue;
        }
        let busid = x.attr(p, "busid").unwrap_or("").to_string();
        let sm = match x.attr(g, "sm") {
            Some(s) => xml::strtol(s) as i32,
            None => {
                return Err(Error::Input {
                    file: file.into(),
                    message: format!(
                        "line {}: <gpu dev=\"{dev}\"> has no sm attribute (compute capability)",
                        x.line(g)
                    ),
                });
            }
        };
        found.push((dev as i32, found.len(), busid, sm, g));
    }
    found.sort_by_key(|f| (f.0, f.1));
    for w in found.windows(2) {
        if w[0].0 == w[1].0 {
            diags.push(Diagnostic {
                severity: Severity::Warning,
                file: Some(file.into()),
                line: x.line(w[1].4),
                message: format!(
                    "GPUs {} and {} share NVML index {}: ranks follow file order between them",
                    w[0].2, w[1].2, w[0].0
                ),
            });
        }
    }
    Ok(found
        .into_iter()
        .enumerate()
        .map(|(r, (dev, _, busid, sm, g))| (RankedGpu { rank: r as i32, busid, dev, sm, host: None }, g))
        .collect())
}

/// The physical devices the plugin reports: one per name, ordered by `dev`.
fn physical_nets(x: &Xml, diags: &mut Vec<Diagnostic>) -> Vec<NetDevice> {
    let root = x.root().unwrap_or(0);
    let mut seen: Vec<(i64, usize, NetDevice)> = Vec::new();
    for n in x.descendants_named(root, "net") {
        let Some(dev) = x.attr(n, "dev").map(xml::strtol) else { continue };
        let name = x.attr(n, "name").unwrap_or("").to_string();
        if seen.iter().any(|s| s.2.name == name) {
            continue;
        }
        let int = |k: &str, d: i64| x.attr(n, k).map_or(d, xml::strtol);
        let order = seen.len();
        seen.push((
            dev,
            order,
            NetDevice {
                dev: 0,
                name,
                is_virtual: false,
                physdevs: Vec::new(),
                speed: int("speed", 0),
                port: int("port", 0),
                guid: x.attr(n, "guid").map(xml::strtoull_hex),
                maxconn: x.attr(n, "maxconn").map(xml::strtol),
                gdr: int("gdr", 0),
                rail: int("rail", -1),
                plane: int("plane", -1),
            },
        ));
    }
    seen.sort_by_key(|s| (s.0, s.1));
    let mut out: Vec<NetDevice> = Vec::new();
    for (i, (dev, _, mut d)) in seen.into_iter().enumerate() {
        if dev != i as i64 {
            diags.push(Diagnostic {
                severity: Severity::Warning,
                file: None,
                line: 0,
                message: format!("network device {} has dev=\"{dev}\": NCCL renumbers it {i}", d.name),
            });
        }
        d.dev = i as i32;
        out.push(d);
    }
    out
}

fn fill_net_attrs(x: &mut Xml, id: NodeId, d: &NetDevice, collnet: bool) {
    x.set_attr(id, "keep", "1");
    x.set_attr(id, "dev", d.dev.to_string());
    x.init_attr(id, "latency", "0");
    x.init_attr(id, "speed", d.speed.to_string());
    x.init_attr(id, "port", d.port.to_string());
    if d.rail != -1 {
        x.init_attr(id, "rail", d.rail.to_string());
    }
    if let Some(g) = d.guid {
        x.init_attr(id, "guid", format!("0x{g:x}"));
    }
    if let Some(m) = d.maxconn {
        x.init_attr(id, "maxconn", m.to_string());
    }
    x.init_attr(id, "gdr", d.gdr.to_string());
    x.set_attr(id, "net", "1");
    if collnet {
        x.init_attr(id, "coll", "1");
    }
}

/// `ncclTopoPopulateNics` for the physical devices.
fn populate(x: &mut Xml, nets: &[NetDevice], collnet: bool) {
    for d in nets {
        if let Some(id) = x.find_tag_kv("net", "name", &d.name) {
            fill_net_attrs(x, id, d, collnet);
        }
    }
}

/// Which physical devices go together, in the order the virtual devices are made.
fn make_vnics(x: &Xml, nets: &[NetDevice], opts: &NetOptions, file: &str) -> Result<Vec<Vec<usize>>, Error> {
    let max_devs = opts.release.max_devs_per_nic();
    let n = nets.len();
    let nodes: Vec<Option<NodeId>> = nets.iter().map(|d| x.find_tag_kv("net", "name", &d.name)).collect();
    let mut placed = vec![false; n];
    let mut vnics = Vec::new();
    if let Some(spec) = &opts.force_merge {
        for group in spec.split(';').filter(|g| !g.is_empty()) {
            let wanted: Vec<(&str, Option<i64>)> = group
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| match s.split_once(':') {
                    Some((name, port)) => (name, Some(xml::strtol(port))),
                    None => (s, None),
                })
                .collect();
            let devs: Vec<usize> = (0..n)
                .filter(|&d| {
                    wanted.iter().any(|(name, port)| *name == nets[d].name && port.is_none_or(|p| p == nets[d].port))
                })
                .collect();
            if devs.len() != wanted.len() {
                return Err(Error::Usage(format!(
                    "NCCL_NET_FORCE_MERGE group \"{group}\" matched {} of {} devices (known: {})",
                    devs.len(),
                    wanted.len(),
                    nets.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", ")
                )));
            }
            if devs.len() > max_devs {
                return Err(Error::Usage(format!(
                    "NCCL_NET_FORCE_MERGE group \"{group}\" has {} devices; at most {max_devs} fuse into one (NCCL {})",
                    devs.len(),
                    opts.release
                )));
            }
            for &d in &devs {
                placed[d] = true;
            }
            if devs.len() > 1 {
                vnics.push(devs);
            }
        }
    }
    let mut dist = vec![PathType::Dis; n * n];
    for i in 0..n {
        for j in 0..n {
            if let (Some(a), Some(b)) = (nodes[i], nodes[j]) {
                dist[i * n + j] = common_path(x, &[a, b]).0;
            }
        }
    }
    for i in 0..n {
        if placed[i] {
            continue;
        }
        let mut group = vec![i];
        placed[i] = true;
        for j in 0..n {
            if dist[i * n + j] <= opts.merge_level
                && !placed[j]
                && j != i
                && (!opts.merge_rail || (nets[i].rail != -1 && nets[i].rail == nets[j].rail))
            {
                group.push(j);
                placed[j] = true;
            }
            if group.len() == max_devs {
                break;
            }
        }
        if group.len() > 1 {
            vnics.push(group);
        }
    }
    let _ = file;
    Ok(vnics)
}

/// NCCL's `ncclTopoGetPath` on XML elements: how far apart the devices are, and the
/// element under which a device that fuses them belongs.
pub fn common_path(x: &Xml, nodes: &[NodeId]) -> (PathType, Option<NodeId>) {
    if nodes.len() == 1 {
        return (PathType::Loc, first_pci_parent(x, Some(nodes[0])));
    }
    let stacks: Vec<Vec<NodeId>> = nodes
        .iter()
        .map(|&n| {
            let mut v = vec![n];
            let mut cur = n;
            while x.name(cur) != "system" {
                match x.parent(cur) {
                    Some(p) => {
                        v.push(p);
                        cur = p;
                    }
                    None => break,
                }
            }
            v
        })
        .collect();
    // Compare from the root down; `depth` counts popped levels.
    let mut common = None;
    let mut depth = 0;
    while let Some(i) = stacks[0].len().checked_sub(depth + 1) {
        let top0 = stacks[0][i];
        let mut same = true;
        for s in &stacks[1..] {
            match s.len().checked_sub(depth + 1) {
                Some(i) => same &= s[i] == top0,
                None => {
                    same = false;
                    break;
                }
            }
        }
        if same {
            common = Some(top0);
            depth += 1;
            continue;
        }
        // Ports of one device: bus ids equal but for the last character.
        if let Some(b0) = x.attr(top0, "busid") {
            let mut multiport = true;
            for s in &stacks[1..] {
                if let Some(i) = s.len().checked_sub(depth + 1) {
                    match x.attr(s[i], "busid") {
                        Some(b)
                            if b.len() == b0.len()
                                && b[..b.len().saturating_sub(1)] == b0[..b.len().saturating_sub(1)] => {}
                        _ => {
                            multiport = false;
                            break;
                        }
                    }
                }
            }
            if multiport {
                return (PathType::PORT, first_pci_parent(x, common));
            }
        }
        break;
    }
    let ty = match common {
        None => PathType::Dis,
        Some(c) => match x.name(c) {
            "system" => PathType::Sys,
            "cpu" => PathType::Phb,
            "nic" | "net" => PathType::PORT,
            _ if check_pix(x, c, nodes) => PathType::Pix,
            _ => PathType::Pxb,
        },
    };
    (ty, first_pci_parent(x, common))
}

/// NCCL's `ncclFindFirstPciParent`: the nearest `pci` at or above, unless that walk
/// reaches the system first (then the element is left as it was).
fn first_pci_parent(x: &Xml, node: Option<NodeId>) -> Option<NodeId> {
    let start = node?;
    let mut cur = start;
    while x.name(cur) != "pci" {
        match x.parent(cur) {
            None => return Some(start),
            Some(p) if x.name(p) == "system" => return Some(start),
            Some(p) => cur = p,
        }
    }
    Some(cur)
}

fn check_pix(x: &Xml, common: NodeId, nodes: &[NodeId]) -> bool {
    if x.attr(common, "busid").is_none() {
        return false;
    }
    for &n in nodes {
        if x.name(n) != "net" {
            continue;
        }
        let Some(nic) = x.parent(n) else { return false };
        if x.name(nic) == "nic" {
            let Some(pci) = x.parent(nic) else { return false };
            if x.name(pci) == "pci" && x.parent(pci) != Some(common) {
                return false;
            }
        }
    }
    true
}

fn link_width_rec(x: &Xml, node: NodeId, phys: &[NodeId]) -> (bool, i64) {
    let mine = if x.name(node) == "pci" { x.attr(node, "link_width").map_or(0, xml::strtol) } else { 0 };
    let mut found = phys.contains(&node);
    let mut total = 0;
    for &c in x.children(node) {
        let (f, w) = link_width_rec(x, c, phys);
        if f {
            found = true;
            total += w;
        }
    }
    let width = if !found {
        0
    } else if total == 0 {
        mine
    } else if mine > 0 {
        mine.min(total)
    } else {
        total
    };
    (found, width)
}

/// Where a virtual device goes (`ncclTopoGetVNicParent`); may add a made-up `pci`.
fn vnic_parent(x: &mut Xml, members: &[&str], file: &str) -> Result<NodeId, Error> {
    let phys: Vec<NodeId> = members.iter().filter_map(|m| x.find_tag_kv("net", "name", m)).collect();
    let (path, parent) = common_path(x, &phys);
    let mut parent = parent.ok_or_else(|| Error::Input {
        file: file.into(),
        message: format!("cannot place the fused NIC {}: its ports share no parent", members.join("+")),
    })?;
    let mut aggregate = 0;
    if matches!(path, PathType::Phb | PathType::Pxb | PathType::Pix) {
        aggregate = x.children(parent).iter().map(|&c| link_width_rec(x, c, &phys)).filter(|r| r.0).map(|r| r.1).sum();
    }
    let phys_parent = parent;
    match x.name(parent) {
        "pci" if x.attr(parent, "class") == Some("0x060400") => {
            parent = make_pci_parent(x, parent, phys[0], file)?;
        }
        "cpu" => parent = make_pci_parent(x, parent, phys[0], file)?,
        "system" => {
            return Err(Error::Input {
                file: file.into(),
                message: format!(
                    "fusing {} joins NICs of different NUMA domains, which NCCL refuses (lower NCCL_NET_MERGE_LEVEL)",
                    members.join("+")
                ),
            });
        }
        _ => {}
    }
    if aggregate > 0 {
        let mut node = Some(parent);
        while let Some(n) = node {
            if x.name(n) == "pci" {
                x.set_attr(n, "link_width", aggregate.to_string());
            }
            if n == phys_parent {
                break;
            }
            node = x.parent(n);
        }
    }
    Ok(parent)
}

/// A new `pci` under `parent`, a copy of the first port's PCI device with an unused bus id.
fn make_pci_parent(x: &mut Xml, parent: NodeId, first: NodeId, file: &str) -> Result<NodeId, Error> {
    let pci =
        x.parent(first).and_then(|nic| x.parent(nic)).filter(|&p| x.name(p) == "pci").ok_or_else(|| Error::Input {
            file: file.into(),
            message: format!("cannot find the PCI device of NIC {}", x.attr(first, "name").unwrap_or("?")),
        })?;
    let orig = x.attr(pci, "busid").unwrap_or("0").to_string();
    let mut id = xml::busid_to_i64(&orig);
    for _ in 0..100 {
        id += 1;
        let b = xml::i64_to_busid(id);
        if x.find_tag_kv("pci", "busid", &b).is_none() {
            let n = x.add(Some(parent), "pci");
            x.set_attr(n, "busid", b.clone());
            for (k, v) in x.nodes[pci].attrs.clone() {
                x.set_attr(n, &k, v);
            }
            x.set_attr(n, "busid", b);
            return Ok(n);
        }
    }
    Err(Error::Input { file: file.into(), message: format!("no free bus id near {orig} for a fused NIC") })
}

/// Trim a copy of the tree to one rank, then fuse the ranks' copies in rank order.
fn fuse_ranks(base: &Xml, gpus: &[(RankedGpu, NodeId)]) -> Xml {
    let mut fused = Xml::default();
    let Some(root) = base.root() else { return fused };
    let mut stop = vec![false; base.nodes.len()];
    let mut kept = vec![false; base.nodes.len()];
    for (g, gpu_el) in gpus {
        let mine = rank_tree(base, root, *gpu_el, g.rank, &mut stop, &mut kept);
        match fused.root() {
            None => {
                if let Some(r) = mine.root() {
                    fused.copy_tree(None, &mine, r);
                }
            }
            Some(froot) => {
                if let Some(r) = mine.root() {
                    fuse_rec(&mut fused, froot, &mine, r);
                }
            }
        }
    }
    fused
}

/// One rank's tree: what NCCL gets when it marks the rank's `<gpu>` (keep, rank, gdr,
/// mlopart) in its own copy of the tree and trims that copy (`ncclTopoTrimXmlRec`). Only
/// the elements that survive are copied out of `base`. `stop` and `kept` are scratch.
fn rank_tree(base: &Xml, root: NodeId, gpu_el: NodeId, rank: i32, stop: &mut [bool], kept: &mut [bool]) -> Xml {
    stop.fill(false);
    kept.fill(false);
    let rank_of = |n: NodeId| (n == gpu_el).then_some(rank);
    trim_marks(base, root, &rank_of, Trim::Switches, stop, kept);
    let mut out = Xml::default();
    copy_kept(base, root, None, &rank_of, stop, kept, false, &mut out);
    out
}

/// Before 2.22: one tree where every local GPU is marked (keep, rank, gdr), trimmed
/// once, in which every element without a kept one under it goes; nodes keep the
/// file's order.
fn trim_once(base: &Xml, gpus: &[(RankedGpu, NodeId)]) -> Xml {
    let mut out = Xml::default();
    let Some(root) = base.root() else { return out };
    let mut ranks = vec![None; base.nodes.len()];
    for (g, el) in gpus {
        ranks[*el] = Some(g.rank);
    }
    let rank_of = |n: NodeId| ranks[n];
    let mut stop = vec![false; base.nodes.len()];
    let mut kept = vec![false; base.nodes.len()];
    trim_marks(base, root, &rank_of, Trim::Childless, &mut stop, &mut kept);
    copy_kept(base, root, None, &rank_of, &stop, &kept, false, &mut out);
    out
}

/// Which elements `ncclTopoTrimXmlRec` removes when nothing kept is under them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trim {
    /// PCI devices, CPUs, NICs and NETs (2.22 and later).
    Switches,
    /// Any element left without children (before 2.22).
    Childless,
}

/// The trimming pass without touching the tree: `stop[n]` when the walk stops at `n`
/// because it is marked keep="1" or is a marked GPU (its whole subtree stays),
/// `kept[n]` when `n` survives. Returns whether something kept is at or under `n`.
fn trim_marks(
    x: &Xml,
    node: NodeId,
    rank_of: &dyn Fn(NodeId) -> Option<i32>,
    trim: Trim,
    stop: &mut [bool],
    kept: &mut [bool],
) -> bool {
    if rank_of(node).is_some() || x.attr(node, "keep") == Some("1") {
        stop[node] = true;
        kept[node] = true;
        return true;
    }
    let mut keep = false;
    for &s in x.children(node) {
        keep |= trim_marks(x, s, rank_of, trim, stop, kept);
    }
    kept[node] = keep || (trim == Trim::Switches && !matches!(x.name(node), "pci" | "cpu" | "nic" | "net"));
    keep
}

/// Copy the surviving elements, with the attributes the rank's copy has after trimming.
#[allow(clippy::too_many_arguments)]
fn copy_kept(
    x: &Xml,
    node: NodeId,
    parent: Option<NodeId>,
    rank_of: &dyn Fn(NodeId) -> Option<i32>,
    stop: &[bool],
    kept: &[bool],
    inside_stop: bool,
    out: &mut Xml,
) {
    if !inside_stop && !kept[node] {
        return;
    }
    let me = out.add(parent, x.name(node));
    out.nodes[me].attrs = x.nodes[node].attrs.clone();
    out.nodes[me].line = x.nodes[node].line;
    if let Some(rank) = rank_of(node) {
        out.set_attr(me, "keep", "1");
        out.set_attr(me, "rank", rank.to_string());
        out.init_attr(me, "gdr", "1");
        if out.attr(me, "mlopart").is_none() {
            out.set_attr(me, "mlopart", "-1");
        }
    }
    let inside = inside_stop || stop[node];
    if stop[node] && !inside_stop {
        out.unset_attr(me, "keep");
    }
    for &c in x.children(node) {
        copy_kept(x, c, Some(me), rank_of, stop, kept, inside, out);
    }
}

fn fuse_rec(dst: &mut Xml, dparent: NodeId, src: &Xml, sparent: NodeId) {
    for &s in src.children(sparent) {
        let found = dst.children(dparent).iter().copied().find(|&d| {
            dst.name(d) == src.name(s)
                && dst.nodes[d].attrs.len() == src.nodes[s].attrs.len()
                && src.nodes[s].attrs.iter().all(|(k, v)| dst.attr(d, k) == Some(v.as_str()))
        });
        match found {
            None => {
                dst.copy_tree(Some(dparent), src, s);
            }
            Some(d) => fuse_rec(dst, d, src, s),
        }
    }
}

/// The IB plugin's port merging (2.20 to 2.23, `NCCL_IB_MERGE_NICS`): in device order,
/// a port joins the first device made so far that has one port, whose port sits on the
/// same PCI device once the device and function digits are ignored
/// (`NCCL_IB_MERGE_VFS`) and reports the same system image guid; two ports at most. The
/// devices are numbered densely in the order they were made; a merged device is named
/// `a+b`, has the ports' summed speed and the first port's other properties. With
/// `mixed_unmerges` (2.22, 2.23), a mix of one- and two-port devices lists every port on
/// its own again. In the tree, a single port's `<net>` stays where it is; a merged
/// device's `<net>` is added at the end of its first port's `<nic>` and the ports'
/// `<net>`s lose their keep, so the trim removes them.
fn ib_port_merge(x: &mut Xml, nets: &[NetDevice], mixed_unmerges: bool, collnet: bool) -> Vec<NetDevice> {
    let nodes: Vec<Option<NodeId>> = nets.iter().map(|d| x.find_tag_kv("net", "name", &d.name)).collect();
    // Where a port sits: the element above its PCI device and that device's bus (its
    // bus id without the trailing "dd.f"). A port without a PCI device has no PCI path
    // (the plugin's realpath of its sysfs device fails) and matches no other port.
    let place = |n: Option<NodeId>| -> Option<(Option<NodeId>, String)> {
        let p = n.and_then(|n| x.parent(n)).and_then(|c| x.parent(c)).filter(|&p| x.name(p) == "pci")?;
        let b = x.attr(p, "busid").unwrap_or("");
        Some((x.parent(p), b.get(..b.len().saturating_sub(4)).unwrap_or("").to_ascii_lowercase()))
    };
    let keys: Vec<_> = nets.iter().zip(&nodes).map(|(d, &n)| place(n).map(|p| (p, d.guid))).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..nets.len() {
        match groups.iter_mut().find(|g| g.len() < IB_PORTS_PER_DEVICE && keys[i].is_some() && keys[g[0]] == keys[i]) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    if mixed_unmerges && groups.iter().any(|g| g.len() != groups[0].len()) {
        groups = (0..nets.len()).map(|i| vec![i]).collect();
    }
    let mut out = Vec::with_capacity(groups.len());
    for (k, g) in groups.iter().enumerate() {
        let first = &nets[g[0]];
        let dev = NetDevice {
            dev: k as i32,
            name: g.iter().map(|&m| nets[m].name.as_str()).collect::<Vec<_>>().join("+"),
            is_virtual: false,
            physdevs: Vec::new(),
            speed: g.iter().map(|&m| nets[m].speed).sum(),
            rail: -1,
            plane: -1,
            ..first.clone()
        };
        if let [only] = g[..] {
            if let Some(id) = nodes[only] {
                x.set_attr(id, "dev", k.to_string());
            }
        } else {
            for &m in g {
                if let Some(id) = nodes[m] {
                    x.set_attr(id, "keep", "0");
                }
            }
            if let Some(nic) = nodes[g[0]].and_then(|n| x.parent(n)) {
                let id = x.add(Some(nic), "net");
                x.set_attr(id, "name", dev.name.clone());
                fill_net_attrs(x, id, &dev, collnet);
            }
        }
        out.push(dev);
    }
    out
}

/// Most ports the IB plugin merges into one device (`NCCL_IB_MAX_DEVS_PER_NIC` before
/// 2.24).
const IB_PORTS_PER_DEVICE: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Xml {
        xml::parse(s, None).unwrap().0
    }

    const TWO_PORT: &str = r#"<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="90" rank="0" gdr="1"/>
      </pci>
      <pci busid="0000:12:00.0" class="0x020000" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="mlx5_0" dev="0" speed="200000" port="1" guid="0x1" gdr="1"/>
          <net name="mlx5_1" dev="1" speed="200000" port="2" guid="0x1" gdr="1"/>
        </nic>
      </pci>
      <pci busid="0000:13:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" gdr="1"/>
      </pci>
    </pci>
  </cpu>
</system>
"#;

    /// A cloud skeleton (GPU PCI devices, no `<gpu>`) is named as one, with the merge
    /// that makes a machine of it; a file with no GPU at all says there is nothing.
    #[test]
    fn a_skeleton_is_named_as_one() {
        let skeleton = TWO_PORT
            .replace(r#"<gpu dev="1" sm="90" rank="0" gdr="1"/>"#, "")
            .replace(r#"<gpu dev="0" sm="90" gdr="1"/>"#, "");
        let e = prepare(&parse(&skeleton), "sk.xml", &NetOptions::default()).unwrap_err().to_string();
        assert!(e.contains("a skeleton topology: 2 GPU <pci> devices"), "{e}");
        assert!(e.contains("topo detect --topo-file FILE"), "{e}");
        let none = skeleton.replace("0x030200", "0x020000");
        let e = prepare(&parse(&none), "n.xml", &NetOptions::default()).unwrap_err().to_string();
        assert!(e.contains("nothing for NCCL to model") && !e.contains("skeleton"), "{e}");
    }

    #[test]
    fn ranks_follow_nvml_index() {
        let p = prepare(&parse(TWO_PORT), "t", &NetOptions::default()).unwrap();
        assert_eq!(p.gpus[0].busid, "0000:13:00.0");
        assert_eq!(p.gpus[1].busid, "0000:11:00.0");
    }

    #[test]
    fn ports_of_one_nic_fuse() {
        let p = prepare(&parse(TWO_PORT), "t", &NetOptions::default()).unwrap();
        assert_eq!(p.nets.len(), 3);
        assert_eq!(p.nets[2].name, "mlx5_0+mlx5_1");
        assert_eq!(p.nets[2].physdevs, vec![0, 1]);
        assert_eq!(p.nets[2].speed, 400000);
        // Only the fused device survives in the tree.
        let names: Vec<_> = p
            .xml
            .preorder()
            .into_iter()
            .filter(|&i| p.xml.name(i) == "net")
            .map(|i| p.xml.attr(i, "name").unwrap())
            .collect();
        assert_eq!(names, vec!["mlx5_0+mlx5_1"]);
        let off = prepare(&parse(TWO_PORT), "t", &NetOptions { fusion: false, ..Default::default() }).unwrap();
        assert_eq!(off.nets.len(), 2);
    }

    #[test]
    fn fusion_orders_the_tree_by_rank() {
        let p = prepare(&parse(TWO_PORT), "t", &NetOptions::default()).unwrap();
        let busids: Vec<_> = p.xml.preorder().into_iter().filter_map(|i| p.xml.attr(i, "busid")).collect();
        // Rank 0's GPU (13) comes before the NIC, rank 1's GPU (11) is appended after.
        assert_eq!(busids, vec!["0000:10:00.0", "0000:12:00.0", "0000:13:00.0", "0000:11:00.0"]);
    }

    fn at(v: &str) -> NetOptions {
        NetOptions { release: Release::parse(v).unwrap(), ..Default::default() }
    }

    fn net_names(x: &Xml) -> Vec<&str> {
        x.preorder().into_iter().filter(|&i| x.name(i) == "net").map(|i| x.attr(i, "name").unwrap()).collect()
    }

    /// net_ib.cc (2.20.3 to 2.23.4): the IB plugin pairs the two ports into device 0,
    /// which replaces them in the tree; before 2.20.3 nothing fuses them.
    #[test]
    fn ib_plugin_pairs_ports_before_2_24() {
        let p = prepare(&parse(TWO_PORT), "t", &at("2.21.5")).unwrap();
        assert_eq!(p.nets.len(), 1);
        assert_eq!((p.nets[0].dev, p.nets[0].name.as_str(), p.nets[0].speed), (0, "mlx5_0+mlx5_1", 400000));
        assert!(!p.nets[0].is_virtual && p.nets[0].physdevs.is_empty());
        assert_eq!(net_names(&p.xml), vec!["mlx5_0+mlx5_1"]);
        let p = prepare(&parse(TWO_PORT), "t", &at("2.19.4")).unwrap();
        assert_eq!(p.nets.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), vec!["mlx5_0", "mlx5_1"]);
        // Other guids: nothing merges.
        let p = prepare(
            &parse(
                &TWO_PORT
                    .replace("guid=\"0x1\" gdr=\"1\"/>\n        </nic>", "guid=\"0x2\" gdr=\"1\"/>\n        </nic>"),
            ),
            "t",
            &at("2.21.5"),
        )
        .unwrap();
        assert_eq!(p.nets.len(), 2);
    }

    /// net_ib.cc ncclIbFindMatchingDev (2.20.3 to 2.23.4) pairs ports by PCI path: two
    /// ports of a NIC the topology places under no PCI device stay apart.
    #[test]
    fn ib_plugin_leaves_ports_without_pci_apart() {
        let bare = r#"</pci>
    <nic>
      <net name="mlx5_2" dev="2" speed="200000" port="1" guid="0x3" gdr="1"/>
      <net name="mlx5_3" dev="3" speed="200000" port="2" guid="0x3" gdr="1"/>
    </nic>
  </cpu>"#;
        let doc = TWO_PORT.replacen("</pci>\n  </cpu>", bare, 1);
        assert!(doc.contains("mlx5_3"));
        let p = prepare(&parse(&doc), "t", &at("2.21.5")).unwrap();
        let names: Vec<_> = p.nets.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, vec!["mlx5_0+mlx5_1", "mlx5_2", "mlx5_3"]);
    }

    /// net_ib.cc at 2.22.3: a one-port device next to a two-port one lists every port
    /// on its own; 2.21.5 keeps the pair.
    #[test]
    fn mixed_ports_unmerge_from_2_22() {
        let third = r#"<pci busid="0000:14:00.0" class="0x020000" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="mlx5_2" dev="2" speed="200000" port="1" guid="0x3" gdr="1"/>
        </nic>
      </pci>
    </pci>
  </cpu>"#;
        let doc = TWO_PORT.replacen("    </pci>\n  </cpu>", third, 1);
        let names =
            |v: &str| prepare(&parse(&doc), "t", &at(v)).unwrap().nets.into_iter().map(|d| d.name).collect::<Vec<_>>();
        assert_eq!(names("2.21.5"), vec!["mlx5_0+mlx5_1", "mlx5_2"]);
        assert_eq!(names("2.22.3"), vec!["mlx5_0", "mlx5_1", "mlx5_2"]);
        assert_eq!(names("2.23.4"), vec!["mlx5_0", "mlx5_1", "mlx5_2"]);
    }

    /// topo.cc ncclTopoGetSystem before 2.22: every GPU is marked in the one tree and it
    /// is trimmed once, so the file's order stays (2.22.3 fuses the ranks' trees).
    #[test]
    fn one_trim_keeps_file_order_before_2_22() {
        let busids = |v: &str| {
            let p = prepare(&parse(TWO_PORT), "t", &at(v)).unwrap();
            p.xml.preorder().into_iter().filter_map(|i| p.xml.attr(i, "busid").map(str::to_string)).collect::<Vec<_>>()
        };
        assert_eq!(busids("2.21.5"), vec!["0000:10:00.0", "0000:11:00.0", "0000:12:00.0", "0000:13:00.0"]);
        assert_eq!(busids("2.22.3"), vec!["0000:10:00.0", "0000:12:00.0", "0000:13:00.0", "0000:11:00.0"]);
        // Every GPU got its rank; any element with nothing kept under it goes (a
        // <pcilink> too, which the later trim keeps).
        let doc =
            TWO_PORT.replacen("link_width=\"16\">", "link_width=\"16\">\n      <pcilink target=\"0000:10:00.0\"/>", 1);
        let p = prepare(&parse(&doc), "t", &at("2.21.5")).unwrap();
        let ranks: Vec<_> = p.xml.preorder().into_iter().filter_map(|i| p.xml.attr(i, "rank")).collect();
        assert_eq!(ranks, vec!["1", "0"]);
        assert!(p.xml.find_tag_kv("pcilink", "target", "0000:10:00.0").is_none());
        let p = prepare(&parse(&doc), "t", &at("2.22.3")).unwrap();
        assert!(p.xml.find_tag_kv("pcilink", "target", "0000:10:00.0").is_some());
    }

    #[test]
    fn force_merge_mismatch_is_an_error() {
        let opts = NetOptions { force_merge: Some("mlx5_0,mlx5_9".into()), ..Default::default() };
        let err = prepare(&parse(TWO_PORT), "t", &opts).unwrap_err();
        assert!(err.to_string().contains("matched 1 of 2"), "{err}");
    }
}
