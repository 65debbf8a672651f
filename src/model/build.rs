//! Building the node/link system from a topology XML (`ncclTopoGetSystemFromXml`):
//! CPUs, PCI switches, GPUs, NICs and NETs in NCCL's creation order, then NVLink, C2C
//! and PCI links, Broadcom switch flattening, the CPUs joined, and links sorted.

use crate::error::Error;
use crate::model::system::{Kind, MLOPART_MASK, NetInfo, NodeRef, System, id_system, topo_id};
use crate::model::{LinkType, NodeType, bw, cpu};
use crate::release::{C2cLinks, LocalCpuWalk, Release};
use crate::xml::{self, NodeId, Xml};

/// Reads attributes off one element, turning NCCL's hard failures into errors that name
/// the file and line.
struct Attrs<'a> {
    xml: &'a Xml,
    file: &'a str,
    release: Release,
}

impl<'a> Attrs<'a> {
    fn req(&self, id: NodeId, key: &str) -> Result<&'a str, Error> {
        self.xml.attr(id, key).ok_or_else(|| Error::Input {
            file: self.file.to_string(),
            message: format!(
                "line {}: <{}> has no '{key}' attribute, which NCCL requires here",
                self.xml.line(id),
                self.xml.name(id)
            ),
        })
    }
    fn int(&self, id: NodeId, key: &str) -> Result<i32, Error> {
        Ok(xml::strtol(self.req(id, key)?) as i32)
    }
    fn int_or(&self, id: NodeId, key: &str, default: i32) -> i32 {
        self.xml.attr(id, key).map_or(default, |v| xml::strtol(v) as i32)
    }
}

/// Look up NCCL's PCI class dictionary (prefix match, PCI by default).
pub fn class_type(class: &str) -> NodeType {
    const CLASSES: [(&str, NodeType); 6] = [
        ("0x060400", NodeType::Pci),
        ("0x080100", NodeType::Pci),
        ("0x068000", NodeType::Nvs),
        ("0x068001", NodeType::Cpu),
        ("0x03", NodeType::Gpu),
        ("0x02", NodeType::Nic),
    ];
    CLASSES.iter().find(|(p, _)| class.starts_with(p)).map_or(NodeType::Pci, |&(_, t)| t)
}

fn int_device(x: &Xml, id: NodeId) -> u64 {
    let mut ret: u64 = 0;
    for (key, shift) in [("vendor", 48), ("device", 32), ("subsystem_vendor", 16), ("subsystem_device", 0)] {
        if let Some(s) = x.attr(id, key) {
            ret = ret.wrapping_add((xml::strtol(s) as u64).wrapping_shl(shift));
        }
    }
    ret
}

fn bcm_gen(id: u64, level: u64) -> i32 {
    if id & 0xffff_ffff_ffff_f000 == 0x1000_c010_1000_a000 {
        return 4;
    }
    if id & 0xffff_ffff_ffff_f000 == (0x1000_c030_1000_0000 | (level * 0x1000)) {
        return 5;
    }
    0
}

/// How to turn a prepared XML into a system.
#[derive(Debug, Clone, Copy)]
pub struct BuildOptions {
    /// NCCL_TOPO_SPLIT_MLOPART (default 1).
    pub split_mlopart: bool,
    /// The NCCL release modelled.
    pub release: Release,
}

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions { split_mlopart: true, release: Release::NEWEST }
    }
}

/// Build the system from a prepared XML, as `ncclTopoGetSystemFromXml` does.
pub fn build(x: &Xml, file: &str, opts: BuildOptions) -> Result<System, Error> {
    let a = Attrs { xml: x, file, release: opts.release };
    let mut sys = System::default();
    let top = x
        .root()
        .filter(|&r| x.name(r) == "system")
        .ok_or_else(|| Error::Input { file: file.into(), message: "no <system> element".into() })?;
    for &c in x.children(top) {
        if x.name(c) == "cpu" {
            add_cpu(&a, &mut sys, c, opts)?;
        }
    }
    // This host is the first one the tree names (rank 0's, after preparation).
    sys.system_id = 0;
    add_nvlinks(&a, &mut sys, top, opts)?;
    add_c2c(&a, &mut sys, top, opts)?;
    if a.release.pci_links() {
        add_pcilinks(&a, &mut sys, top)?;
    }
    flatten_bcm(&mut sys);
    connect_cpus(&mut sys, a.release);
    for c in 0..sys.count(NodeType::Cpu) {
        sort_links(&mut sys, NodeRef::new(NodeType::Cpu, c), None);
    }
    Ok(sys)
}

fn system_id(sys: &mut System, x: &Xml, cpu: NodeId) -> i64 {
    let hash = x.attr(cpu, "host_hash").map_or(0, xml::strtoull_hex);
    match sys.host_hashes.iter().position(|&h| h == hash) {
        Some(i) => i as i64,
        None => {
            sys.host_hashes.push(hash);
            sys.host_hashes.len() as i64 - 1
        }
    }
}

fn add_cpu(a: &Attrs, sys: &mut System, c: NodeId, opts: BuildOptions) -> Result<(), Error> {
    let x = a.xml;
    let numa = a.int(c, "numaid")?;
    let sid = system_id(sys, x, c);
    let arch_s = a.req(c, "arch")?;
    let arch = [("x86_64", cpu::ARCH_X86), ("arm64", cpu::ARCH_ARM), ("ppc64", cpu::ARCH_POWER)]
        .iter()
        .find(|(p, _)| arch_s.starts_with(p))
        .map_or(0, |&(_, v)| v);
    let mut vendor = -1;
    let mut model = -1;
    if arch == cpu::ARCH_X86 {
        let v = a.req(c, "vendor")?;
        vendor = [
            ("GenuineIntel", cpu::VENDOR_INTEL),
            ("AuthenticAMD", cpu::VENDOR_AMD),
            ("CentaurHauls", cpu::VENDOR_ZHAOXIN),
            ("  Shanghai  ", cpu::VENDOR_ZHAOXIN),
        ]
        .iter()
        .find(|(p, _)| v.starts_with(p))
        .map_or(0, |&(_, v)| v);
        if vendor == cpu::VENDOR_INTEL {
            let fam = a.int(c, "familyid")?;
            let m = a.int(c, "modelid")?;
            let rapids = a.release.intel_rapids_models();
            model = if rapids && fam == 6 && m >= 0xCF {
                cpu::MODEL_INTEL_ERP
            } else if rapids && fam == 6 && m >= 0x8F {
                cpu::MODEL_INTEL_SRP
            } else if fam == 6 && m >= 0x55 {
                cpu::MODEL_INTEL_SKL
            } else {
                cpu::MODEL_INTEL_BDW
            };
        } else if vendor == cpu::VENDOR_ZHAOXIN {
            let fam = a.int(c, "familyid")?;
            let m = a.int(c, "modelid")?;
            if fam == 7 && m == 0x5B {
                model = cpu::MODEL_YONGFENG;
            }
        }
    }
    let affinity = x.attr(c, "affinity").map(str::to_string);
    let idx = sys.create(NodeType::Cpu, topo_id(sid, numa as i64), Kind::Cpu { arch, vendor, model, affinity });
    sys.nodes[NodeType::Cpu as usize][idx].xml = Some(c);
    let cpu_ref = NodeRef::new(NodeType::Cpu, idx);
    for &s in x.children(c) {
        match x.name(s) {
            "pci" => add_pci(a, sys, s, cpu_ref, sid, numa as i64, opts)?,
            "nic" => {
                // Before 2.24 every <nic> right under a CPU is NIC node 0.
                let local = if a.release.nic_id_by_numa() { (numa as i64) << 56 } else { 0 };
                let id = topo_id(sid, local);
                let nic = match sys.find(NodeType::Nic, id) {
                    Some(n) => n,
                    None => {
                        let n = sys.create(NodeType::Nic, id, Kind::Other);
                        let r = NodeRef::new(NodeType::Nic, n);
                        sys.connect(cpu_ref, r, LinkType::Pci, bw::LOC);
                        sys.connect(r, cpu_ref, LinkType::Pci, bw::LOC);
                        n
                    }
                };
                add_nic(a, sys, s, nic, sid)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn add_pci(
    a: &Attrs,
    sys: &mut System,
    p: NodeId,
    parent: NodeRef,
    sid: i64,
    numa: i64,
    opts: BuildOptions,
) -> Result<(), Error> {
    let x = a.xml;
    let mut ty = class_type(a.req(p, "class")?);
    let busid_s = a.req(p, "busid")?;
    let busid = xml::busid_to_i64(busid_s);
    let mut width = a.int(p, "link_width")?;
    let speed_s = a.req(p, "link_speed")?;
    if width == 0 {
        width = 16;
    }
    let speed = xml::pci_gen_speed(speed_s).unwrap_or(60);
    let link_bw = ((width as i64 * speed as i64) as f64 / 80.0) as f32;

    for g in x.children_named(p, "gpu").collect::<Vec<_>>() {
        if x.attr(g, "rank").is_none() {
            return Ok(());
        }
        add_gpu(a, sys, p, g, parent, sid, busid, busid_s, link_bw, opts)?;
    }

    let mut created: Option<NodeRef> = None;
    if let Some(nic_x) = x.child_named(p, "nic") {
        ty = NodeType::Nic;
        // Before 2.24 the ports of a NIC (bus ids differing in the function digit) are
        // one NIC node, and the NUMA node plays no part.
        let local = if a.release.nic_id_by_numa() { (numa << 56).wrapping_add(busid) } else { busid & !0xf };
        let id = topo_id(sid, local);
        let nic = match sys.find(ty, id) {
            Some(n) => n,
            None => {
                let n = sys.create(ty, id, Kind::Other);
                sys.nodes[ty as usize][n].xml = Some(p);
                sys.nodes[ty as usize][n].busid = Some(busid_s.to_string());
                created = Some(NodeRef::new(ty, n));
                n
            }
        };
        add_nic(a, sys, nic_x, nic, sid)?;
    } else if ty == NodeType::Pci {
        let n = sys.create(ty, topo_id(sid, busid), Kind::Pci { device: int_device(x, p) });
        sys.nodes[ty as usize][n].xml = Some(p);
        sys.nodes[ty as usize][n].busid = Some(busid_s.to_string());
        let me = NodeRef::new(ty, n);
        created = Some(me);
        for &s in x.children(p) {
            if x.name(s) != "pcilink" && x.name(s) == "pci" {
                add_pci(a, sys, s, me, sid, numa, opts)?;
            }
        }
    }
    if let Some(node) = created {
        sys.connect(node, parent, LinkType::Pci, link_bw);
        sys.connect(parent, node, LinkType::Pci, link_bw);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn add_gpu(
    a: &Attrs,
    sys: &mut System,
    p: NodeId,
    g: NodeId,
    parent: NodeRef,
    sid: i64,
    busid: i64,
    busid_s: &str,
    link_bw: f32,
    opts: BuildOptions,
) -> Result<(), Error> {
    if busid & MLOPART_MASK != 0 {
        return Err(Error::Input {
            file: a.file.into(),
            message: format!(
                "line {}: bus id {busid_s} has its lowest two bits set, which NCCL reserves for MLOPart partitions",
                a.xml.line(p)
            ),
        });
    }
    let mlopart = a.int_or(g, "mlopart", -1);
    let cc = a.int(g, "sm")?;
    let mut dev_busid = busid;
    if mlopart != -1 && opts.split_mlopart {
        if mlopart >= 2 {
            return Err(Error::Input {
                file: a.file.into(),
                message: format!("line {}: mlopart=\"{mlopart}\" is out of range (0 or 1)", a.xml.line(g)),
            });
        }
        dev_busid = busid | ((((mlopart as i64) << 1) | 1) & MLOPART_MASK);
    }
    let dev_id = topo_id(sid, dev_busid);
    let dev_idx = match sys.find(NodeType::Dev, dev_id) {
        Some(d) => d,
        None => {
            let nvml = a.int(g, "dev")?;
            let d =
                sys.create(NodeType::Dev, dev_id, Kind::Dev { device: int_device(a.xml, p), dev: nvml, cc, ngpus: 0 });
            sys.nodes[NodeType::Dev as usize][d].xml = Some(p);
            sys.nodes[NodeType::Dev as usize][d].busid = Some(busid_s.to_string());
            let me = NodeRef::new(NodeType::Dev, d);
            sys.connect(me, parent, LinkType::Pci, link_bw);
            sys.connect(parent, me, LinkType::Pci, link_bw);
            for sib in sys.dev_nodes(dev_id) {
                if sib == d {
                    continue;
                }
                let s = NodeRef::new(NodeType::Dev, sib);
                sys.connect(me, s, LinkType::Loc, bw::MLOPART_LOC);
                sys.connect(s, me, LinkType::Loc, bw::MLOPART_LOC);
            }
            d
        }
    };
    let ngpus = match sys.list(NodeType::Dev)[dev_idx].kind {
        Kind::Dev { ngpus, .. } => ngpus,
        _ => 0,
    };
    let local = ((ngpus as u64) << 40 | (dev_busid as u64 & ((1u64 << 40) - 1))) as i64;
    let rank = a.int(g, "rank")?;
    let gdr = a.int(g, "gdr")?;
    let nvml = a.int(g, "dev")?;
    let gi = sys.create(
        NodeType::Gpu,
        topo_id(sid, local),
        Kind::Gpu { dev: nvml, rank, cc, gdr, mlopart, parent: Some(dev_idx) },
    );
    sys.nodes[NodeType::Gpu as usize][gi].xml = Some(g);
    sys.nodes[NodeType::Gpu as usize][gi].busid = Some(busid_s.to_string());
    let dref = NodeRef::new(NodeType::Dev, dev_idx);
    let gref = NodeRef::new(NodeType::Gpu, gi);
    sys.connect(dref, gref, LinkType::Loc, bw::LOC);
    sys.connect(gref, dref, LinkType::Loc, bw::LOC);
    if let Kind::Dev { ngpus, .. } = &mut sys.nodes[NodeType::Dev as usize][dev_idx].kind {
        *ngpus += 1;
    }
    Ok(())
}

fn add_nic(a: &Attrs, sys: &mut System, nic_x: NodeId, nic: usize, sid: i64) -> Result<(), Error> {
    let x = a.xml;
    for &n in x.children(nic_x) {
        if x.name(n) != "net" || x.attr(n, "dev").is_none() {
            continue;
        }
        let is_net = a.int_or(n, "net", 1);
        let gin = a.int_or(n, "gin", 0);
        let rma = a.int_or(n, "rma", 0);
        if is_net != 0 {
            add_net(a, sys, n, nic, sid, NodeType::Net)?;
        }
        if gin != 0 {
            add_net(a, sys, n, nic, sid, NodeType::Gin)?;
        }
        if rma != 0 {
            add_net(a, sys, n, nic, sid, NodeType::Rma)?;
        }
    }
    Ok(())
}

fn add_net(a: &Attrs, sys: &mut System, n: NodeId, nic: usize, sid: i64, ty: NodeType) -> Result<(), Error> {
    let x = a.xml;
    let dev = a.int(n, "dev")?;
    let id = topo_id(sid, dev as i64);
    let mut mbps = a.int_or(n, "speed", 0);
    if mbps <= 0 {
        mbps = 10000;
    }
    let bw = (mbps as f64 / 8000.0) as f32;
    // The NIC's ASIC, which the search keeps from serving two channels at once: the
    // guid read as hex; before 2.28.7 only a guid written `0x...` reads (others give 0,
    // so every such NIC looks like one ASIC) and a NIC without one gets its dev.
    let asic = match (x.attr(n, "guid"), a.release.net_guid_any_hex()) {
        (Some(g), true) => xml::strtoull_hex(g),
        (None, true) => id as u64,
        (Some(g), false) => xml::scan_prefixed_hex(g).unwrap_or(0),
        (None, false) => dev as u64,
    };
    // The NIC's PCI identity (topo.cc, 2.28.7; only compared for equality, by
    // NCCL_MNNVL_RAIL_PER_HOST): a digest of the nearest `<pci>` ancestor's busid, or of
    // the ASIC where there is none. Identical trays give a NIC the same one on each.
    let pci_id = {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        let mut up = x.parent(n);
        while let Some(p) = up.filter(|&p| x.name(p) != "pci") {
            up = x.parent(p);
        }
        match up.and_then(|p| x.attr(p, "busid")) {
            Some(b) => b.hash(&mut h),
            None => asic.hash(&mut h),
        }
        h.finish()
    };
    let info = NetInfo {
        dev,
        name: x.attr(n, "name").unwrap_or("").to_string(),
        pci_id,
        asic,
        port: a.int_or(n, "port", 0),
        bw,
        latency: x.attr(n, "latency").map_or(0.0, xml::strtof),
        gdr: a.int_or(n, "gdr", 0),
        coll: a.int_or(n, "coll", 0),
        max_channels: a.int_or(n, "maxconn", 64),
        local_gpu: -1,
        rail: if a.release.net_rails() { a.int_or(n, "rail", -1) } else { -1 },
        plane: if a.release.net_rails() { a.int_or(n, "plane", -1) } else { -1 },
    };
    let idx = sys.create(ty, id, Kind::Net(info));
    sys.nodes[ty as usize][idx].xml = Some(n);
    if ty == NodeType::Net {
        // Keep the NIC's bus id for people.
        let pci = x.ancestor_named(n, "pci").and_then(|p| x.attr(p, "busid")).map(str::to_string);
        sys.nodes[ty as usize][idx].busid = pci;
    }
    let me = NodeRef::new(ty, idx);
    let nicr = NodeRef::new(NodeType::Nic, nic);
    sys.connect(nicr, me, LinkType::Net, bw);
    sys.connect(me, nicr, LinkType::Net, bw);
    Ok(())
}

/// Walk the tree carrying the nearest bus id and the system id of the CPU above, as
/// NCCL's second passes do (`ncclGetSystemId` at each `<cpu>`).
struct Found<'x> {
    el: NodeId,
    busid: Option<&'x str>,
    sid: i64,
}

fn walk_with_busid<'x>(
    x: &'x Xml,
    hashes: &[u64],
    node: NodeId,
    parent_busid: Option<&'x str>,
    sid: i64,
    out: &mut Vec<Found<'x>>,
    leaf: &str,
) {
    if x.name(node) == leaf {
        out.push(Found { el: node, busid: parent_busid, sid });
        return;
    }
    let sid = if x.name(node) == "cpu" {
        let hash = x.attr(node, "host_hash").map_or(0, xml::strtoull_hex);
        hashes.iter().position(|&h| h == hash).map_or(sid, |i| i as i64)
    } else {
        sid
    };
    let b = x.attr(node, "busid").or(parent_busid);
    for &c in x.children(node) {
        walk_with_busid(x, hashes, c, b, sid, out, leaf);
    }
}

/// Whether `gpu` is the first `<gpu>` of its `<pci>` for its DEV node.
fn primary_gpu_for_dev(x: &Xml, gpu: NodeId, opts: BuildOptions) -> bool {
    let Some(p) = x.parent(gpu) else { return true };
    let mine = x.attr(gpu, "mlopart").map_or(-1, xml::strtol);
    for &s in x.children(p) {
        if s == gpu {
            break;
        }
        if x.name(s) != "gpu" {
            continue;
        }
        let theirs = x.attr(s, "mlopart").map_or(-1, xml::strtol);
        if theirs == mine || !opts.split_mlopart {
            return false;
        }
    }
    true
}

fn gpu_dev_node(a: &Attrs, sys: &System, gpu: NodeId, busid: &str, sid: i64, opts: BuildOptions) -> Option<usize> {
    let raw = xml::busid_to_i64(busid);
    let mlo = a.int_or(gpu, "mlopart", -1);
    let dev_busid =
        if mlo != -1 && opts.split_mlopart { raw | ((((mlo as i64) << 1) | 1) & MLOPART_MASK) } else { raw };
    sys.find(NodeType::Dev, topo_id(sid, dev_busid))
}

/// The `leaf` elements (`nvlink`, `c2c`) under the first `<gpu>` of each DEV node,
/// with that DEV node and the system id it is in, as NCCL's second passes visit them.
fn gpu_link_elements(
    a: &Attrs,
    sys: &System,
    top: NodeId,
    leaf: &str,
    opts: BuildOptions,
) -> Result<Vec<(NodeId, usize, i64)>, Error> {
    let x = a.xml;
    let mut found = Vec::new();
    walk_with_busid(x, &sys.host_hashes, top, None, 0, &mut found, leaf);
    let mut out = Vec::new();
    for Found { el, busid, sid } in found {
        let Some(gpu) = x.parent(el) else { continue };
        if x.name(gpu) != "gpu" || !primary_gpu_for_dev(x, gpu, opts) {
            continue;
        }
        let busid = busid.unwrap_or("");
        let Some(d) = gpu_dev_node(a, sys, gpu, busid, sid, opts) else {
            return Err(Error::Input {
                file: a.file.into(),
                message: format!("line {}: <{leaf}> of GPU {busid}, which is not in the system", x.line(el)),
            });
        };
        out.push((el, d, sid));
    }
    Ok(out)
}

fn add_nvlinks(a: &Attrs, sys: &mut System, top: NodeId, opts: BuildOptions) -> Result<(), Error> {
    for (nl, d, sid) in gpu_link_elements(a, sys, top, "nvlink", opts)? {
        let dref = NodeRef::new(NodeType::Dev, d);
        let local_devs = sys.dev_nodes(sys.list(NodeType::Dev)[d].id).len() as f32;
        let count = a.int(nl, "count")?;
        let target_ty = class_type(a.req(nl, "tclass")?);
        let nvl_bw = bw::nvlink(a.release.nvlink_table(), sys.list(NodeType::Dev)[d].cc());
        if target_ty == NodeType::Gpu {
            let target = a.req(nl, "target")?;
            let rem = sys.dev_nodes(topo_id(sid, xml::busid_to_i64(target)));
            let n = rem.len() as f32;
            for r in rem {
                sys.connect(
                    dref,
                    NodeRef::new(NodeType::Dev, r),
                    LinkType::Nvl,
                    count as f32 * nvl_bw / n / local_devs,
                );
            }
        } else {
            let remote = if target_ty == NodeType::Cpu {
                local_cpu(a, sys, dref, nl)?
            } else {
                if sys.count(NodeType::Nvs) == 0 {
                    sys.create(NodeType::Nvs, 0, Kind::Other);
                }
                Some(NodeRef::new(NodeType::Nvs, 0))
            };
            if let Some(r) = remote {
                let b = count as f32 * nvl_bw / local_devs;
                sys.connect(dref, r, LinkType::Nvl, b);
                sys.connect(r, dref, LinkType::Nvl, b);
            }
        }
    }
    Ok(())
}

fn add_c2c(a: &Attrs, sys: &mut System, top: NodeId, opts: BuildOptions) -> Result<(), Error> {
    let kind = a.release.c2c_links();
    if kind == C2cLinks::Ignored {
        return Ok(());
    }
    for (c, d, _) in gpu_link_elements(a, sys, top, "c2c", opts)? {
        let dref = NodeRef::new(NodeType::Dev, d);
        let dev_id = sys.list(NodeType::Dev)[d].id;
        let sibs = sys.dev_nodes(dev_id).len();
        let count = a.int(c, "count")?;
        let per = a.int(c, "bw")?;
        let c2c_bw = ((per as i64 * count as i64) as f64 / 1000.0) as f32;
        let Some(cpu) = local_cpu(a, sys, dref, c)? else { continue };
        if kind == C2cLinks::AsNvLink {
            sys.connect(dref, cpu, LinkType::Nvl, c2c_bw);
            sys.connect(cpu, dref, LinkType::Nvl, c2c_bw);
            continue;
        }
        if sibs > 1 {
            let xid = dev_id & !MLOPART_MASK;
            let xb = match sys.find(NodeType::Cxb, xid) {
                Some(i) => i,
                None => {
                    let i = sys.create(NodeType::Cxb, xid, Kind::Other);
                    let r = NodeRef::new(NodeType::Cxb, i);
                    sys.connect(r, cpu, LinkType::C2c, c2c_bw);
                    sys.connect(cpu, r, LinkType::C2c, c2c_bw);
                    i
                }
            };
            let r = NodeRef::new(NodeType::Cxb, xb);
            sys.connect(dref, r, LinkType::C2c, c2c_bw);
            sys.connect(r, dref, LinkType::C2c, c2c_bw);
        } else {
            sys.connect(dref, cpu, LinkType::C2c, c2c_bw);
            sys.connect(cpu, dref, LinkType::C2c, c2c_bw);
        }
    }
    Ok(())
}

/// NCCL's `findLocalCpu` from a GPU, as the release walks (for the `<nvlink>` or `<c2c>`
/// element `el`). Before 2.26 the walk follows each node's first PCI link (to a PCI
/// switch or CPU only, from 2.22) with no memory of where it came from: when that link
/// leads back to a node already seen, NCCL recurses until its stack overflows, which
/// is an error here.
fn local_cpu(a: &Attrs, sys: &System, gpu: NodeRef, el: NodeId) -> Result<Option<NodeRef>, Error> {
    let switches_only = match a.release.local_cpu_walk() {
        LocalCpuWalk::Up => return Ok(sys.local_cpu_of(gpu, None)),
        LocalCpuWalk::SwitchLinks => true,
        LocalCpuWalk::AnyPciLink => false,
    };
    let mut seen: Vec<NodeRef> = Vec::new();
    let mut at = gpu;
    while at.ty != NodeType::Cpu {
        if seen.contains(&at) {
            // The walk went down from a switch whose first PCI link (links are sorted
            // by bandwidth, and its link up was made last) is to a device below it:
            // the node met again is that switch, or the GPU right under it.
            let switch = if at.ty == NodeType::Pci { at } else { seen.last().copied().unwrap_or(at) };
            return Err(Error::Input {
                file: a.file.into(),
                message: format!(
                    "line {}: ncclTopoGetSystem crashed (signal 11, SIGSEGV) in NCCL {}: findLocalCpu never returns: from GPU {} it follows the first PCI link of each node, and PCI switch {}'s first link leads down rather than up (a link below it is at least as fast as its link up), so the walk loops until the stack overflows",
                    a.xml.line(el),
                    a.release,
                    sys.node(gpu).busid.as_deref().unwrap_or("?"),
                    sys.node(switch).busid.as_deref().unwrap_or("?"),
                ),
            });
        }
        seen.push(at);
        let next =
            sys.node(at).links.iter().find(|l| {
                l.ty == LinkType::Pci && (!switches_only || matches!(l.rem.ty, NodeType::Pci | NodeType::Cpu))
            });
        match next {
            Some(l) => at = l.rem,
            // Nothing to follow: no CPU (NCCL returns without one).
            None => return Ok(None),
        }
    }
    Ok(Some(at))
}

fn add_pcilinks(a: &Attrs, sys: &mut System, top: NodeId) -> Result<(), Error> {
    let x = a.xml;
    let mut links = Vec::new();
    walk_with_busid(x, &sys.host_hashes, top, None, 0, &mut links, "pcilink");
    for Found { el: pl, busid, sid } in links {
        let busid = busid.unwrap_or("");
        let Some(p) = sys.find(NodeType::Pci, topo_id(sid, xml::busid_to_i64(busid))) else {
            return Err(Error::Input {
                file: a.file.into(),
                message: format!(
                    "line {}: <pcilink> under {busid}, which is not a PCI switch of the system",
                    x.line(pl)
                ),
            });
        };
        let target = a.req(pl, "target")?;
        if let Some(r) = sys.find(NodeType::Pci, topo_id(sid, xml::busid_to_i64(target))) {
            sys.connect(NodeRef::new(NodeType::Pci, p), NodeRef::new(NodeType::Pci, r), LinkType::Loc, bw::LOC);
        }
    }
    Ok(())
}

/// NCCL's `ncclTopoFlattenBcmSwitches`: fold the second level of Broadcom Gen4/Gen5
/// switches into the first.
fn flatten_bcm(sys: &mut System) {
    let mut s = 0;
    while s < sys.count(NodeType::Pci) {
        let dev = match sys.list(NodeType::Pci)[s].kind {
            Kind::Pci { device } => device,
            _ => 0,
        };
        let generation = bcm_gen(dev, 0);
        if generation == 0 {
            s += 1;
            continue;
        }
        let me = NodeRef::new(NodeType::Pci, s);
        let mut subs = Vec::new();
        let mut l = 0;
        while l < sys.node(me).links.len() {
            let rem = sys.node(me).links[l].rem;
            let sub_dev = match sys.node(rem).kind {
                Kind::Pci { device } => device,
                _ => 0,
            };
            if rem.ty == NodeType::Pci && bcm_gen(sub_dev, 1) == generation {
                subs.push(sys.node(rem).id);
                sys.node_mut(me).links.remove(l);
            } else {
                l += 1;
            }
        }
        let mut me = me;
        for sub_id in subs {
            let Some(si) = sys.find(NodeType::Pci, sub_id) else { continue };
            let sub = NodeRef::new(NodeType::Pci, si);
            let sub_links = sys.node(sub).links.clone();
            for link in sub_links {
                if link.rem == me {
                    continue;
                }
                sys.node_mut(me).links.push(link);
                let rem_links = &mut sys.node_mut(link.rem).links;
                if let Some(rl) = rem_links.iter_mut().find(|rl| rl.rem == sub) {
                    rl.rem = me;
                }
            }
            let my_id = sys.node(me).id;
            sys.remove_node(NodeType::Pci, si);
            me = NodeRef::new(NodeType::Pci, sys.find(NodeType::Pci, my_id).unwrap_or(me.idx));
        }
        if let Kind::Pci { device } = &mut sys.node_mut(me).kind {
            *device |= 0xffff;
        }
        s = 0;
    }
}

fn inter_cpu_bw(k: &Kind, release: Release) -> f32 {
    let Kind::Cpu { arch, vendor, model, .. } = *k else { return bw::LOC };
    if arch == cpu::ARCH_POWER {
        return bw::P9;
    }
    if arch == cpu::ARCH_ARM {
        return bw::ARM;
    }
    let mut b = bw::LOC;
    if arch == cpu::ARCH_X86 && vendor == cpu::VENDOR_INTEL {
        b = match model {
            cpu::MODEL_INTEL_ERP => bw::ERP_QPI,
            cpu::MODEL_INTEL_SRP => bw::SRP_QPI,
            cpu::MODEL_INTEL_SKL => bw::SKL_QPI,
            _ => bw::BDW_QPI,
        };
    }
    if arch == cpu::ARCH_X86 && vendor == cpu::VENDOR_AMD && release.amd_inter_cpu_bw() {
        b = bw::AMD;
    }
    if arch == cpu::ARCH_X86 && vendor == cpu::VENDOR_ZHAOXIN {
        b = if model == cpu::MODEL_YONGFENG { bw::YONGFENG_ZPI } else { bw::ZPI };
    }
    b
}

fn connect_cpus(sys: &mut System, release: Release) {
    let n = sys.count(NodeType::Cpu);
    for i in 0..n {
        for j in 0..n {
            let (a, b) = (&sys.list(NodeType::Cpu)[i], &sys.list(NodeType::Cpu)[j]);
            if i == j || id_system(a.id) != id_system(b.id) {
                continue;
            }
            let bw = inter_cpu_bw(&a.kind, release);
            sys.connect(NodeRef::new(NodeType::Cpu, i), NodeRef::new(NodeType::Cpu, j), LinkType::Sys, bw);
        }
    }
}

/// NCCL's `ncclTopoSort`: the link towards the parent goes last, recursively down PCI.
fn sort_links(sys: &mut System, node: NodeRef, up: Option<NodeRef>) {
    if let Some(up) = up {
        let links = &mut sys.node_mut(node).links;
        if let Some(l) = links.iter().position(|l| l.rem == up) {
            let link = links.remove(l);
            links.push(link);
        }
    }
    let n = sys.node(node).links.len();
    for l in 0..n {
        let link = sys.node(node).links[l];
        if link.ty == LinkType::Pci && Some(link.rem) != up {
            sort_links(sys, link.rem, Some(node));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::prepare::{NetOptions, prepare};

    fn build_at(doc: &str, v: &str) -> Result<System, Error> {
        let x = xml::parse(doc, None).unwrap().0;
        let release = Release::parse(v).unwrap();
        let prep = prepare(&x, "t", &NetOptions { release, ..Default::default() })?;
        build(&prep.xml, "t", BuildOptions { release, ..Default::default() })
    }

    /// A Grace-like GPU under a switch as fast as its link up, with a C2C link.
    const C2C_UNDER_SWITCH: &str = r#"<system version="1">
  <cpu numaid="0" arch="arm64">
    <pci busid="0000:10:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" gdr="1">
          <c2c bw="40000" count="10"/>
        </gpu>
      </pci>
    </pci>
  </cpu>
</system>
"#;

    /// A slow switch whose child switch is faster than its link up; the GPU below.
    const SWITCH_UNDER_SWITCH: &str = r#"<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
        <pci busid="0000:12:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
          <gpu dev="0" sm="90" gdr="1">
            <c2c bw="40000" count="10"/>
          </gpu>
        </pci>
      </pci>
    </pci>
  </cpu>
</system>
"#;

    fn crashed(r: Result<System, Error>) -> bool {
        match r {
            Ok(_) => false,
            Err(e) => {
                let m = e.to_string();
                assert!(m.contains("ncclTopoGetSystem crashed (signal 11, SIGSEGV)"), "{m}");
                true
            }
        }
    }

    /// topo.cc findLocalCpu: until 2.21.5 the walk goes back down to the GPU under a
    /// switch whose link down sorts first; from 2.22.3 it skips GPUs but still loops
    /// between switches; from 2.26.2 it never goes back. Before 2.19.1 <c2c> is not read.
    #[test]
    fn find_local_cpu_by_release() {
        assert!(crashed(build_at(C2C_UNDER_SWITCH, "2.21.5")));
        assert!(!crashed(build_at(C2C_UNDER_SWITCH, "2.22.3")));
        for v in ["2.19.1", "2.21.5", "2.22.3", "2.25.1"] {
            assert!(crashed(build_at(SWITCH_UNDER_SWITCH, v)), "{v}");
        }
        for v in ["2.18.6", "2.26.2", "2.30.7"] {
            assert!(!crashed(build_at(SWITCH_UNDER_SWITCH, v)), "{v}");
        }
    }

    /// topo.cc ncclTopoAddC2c: an NVLink to the CPU until 2.25.1, LINK_C2C from 2.26.2.
    #[test]
    fn c2c_link_type_by_release() {
        let ty = |v: &str| {
            let sys = build_at(C2C_UNDER_SWITCH, v).unwrap();
            let dev = NodeRef::new(NodeType::Dev, 0);
            sys.node(dev).links.iter().find(|l| l.rem.ty == NodeType::Cpu).map(|l| (l.ty, l.bw))
        };
        assert_eq!(ty("2.22.3"), Some((LinkType::Nvl, 400.0)));
        assert_eq!(ty("2.26.2"), Some((LinkType::C2c, 400.0)));
    }

    const TWO_SOCKETS: &str = r#"<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="VENDOR" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="80" gdr="1"/>
    </pci>
    <pci busid="0000:12:00.0" class="0x020000" link_speed="16.0 GT/s PCIe" link_width="16">
      <nic><net name="mlx5_0" dev="0" speed="200000" port="1" guid="0x1" gdr="1"/></nic>
    </pci>
    <pci busid="0000:12:00.1" class="0x020000" link_speed="16.0 GT/s PCIe" link_width="16">
      <nic><net name="mlx5_1" dev="1" speed="200000" port="1" guid="0x2" gdr="1"/></nic>
    </pci>
  </cpu>
  <cpu numaid="1" arch="x86_64" vendor="VENDOR" familyid="6" modelid="143">
    <pci busid="0000:90:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="80" gdr="1"/>
    </pci>
  </cpu>
</system>
"#;

    fn socket_bw(vendor: &str, v: &str) -> f32 {
        let sys = build_at(&TWO_SOCKETS.replace("VENDOR", vendor), v).unwrap();
        let cpu = NodeRef::new(NodeType::Cpu, 0);
        sys.node(cpu).links.iter().find(|l| l.rem.ty == NodeType::Cpu).unwrap().bw
    }

    /// topo.cc ncclTopoGetInterCpuBw: a Sapphire Rapids (model 0x8F) is Skylake to NCCL
    /// until 2.25.1 (10 GB/s) and itself from 2.26.2 (22); AMD sockets are LOC_BW until
    /// 2.18.6 and AMD_BW (16) from 2.19.1.
    #[test]
    fn inter_socket_bw_by_release() {
        assert_eq!(socket_bw("GenuineIntel", "2.25.1"), bw::SKL_QPI);
        assert_eq!(socket_bw("GenuineIntel", "2.26.2"), bw::SRP_QPI);
        assert_eq!(socket_bw("AuthenticAMD", "2.18.6"), bw::LOC);
        assert_eq!(socket_bw("AuthenticAMD", "2.19.1"), bw::AMD);
    }

    /// topo.cc ncclTopoAddPci: the two functions of one NIC are one NIC node until
    /// 2.23.4 (bus id without its function digit), two from 2.24.3 (NUMA node and bus id).
    #[test]
    fn nic_node_per_function_from_2_24() {
        let nics = |v: &str| {
            let x = xml::parse(&TWO_SOCKETS.replace("VENDOR", "GenuineIntel"), None).unwrap().0;
            let release = Release::parse(v).unwrap();
            // Without fusion, so that both ports reach the system at every release.
            let prep = prepare(&x, "t", &NetOptions { release, fusion: false, ..Default::default() }).unwrap();
            build(&prep.xml, "t", BuildOptions { release, ..Default::default() }).unwrap().count(NodeType::Nic)
        };
        assert_eq!(nics("2.23.4"), 1);
        assert_eq!(nics("2.24.3"), 2);
    }

    /// topo.cc ncclTopoAddNet: a NET's rail and plane come from the XML from 2.30.7;
    /// before, NCCL has no such attributes.
    #[test]
    fn rails_read_from_2_30_7() {
        let doc = TWO_SOCKETS
            .replace("VENDOR", "GenuineIntel")
            .replace("guid=\"0x1\"", "guid=\"0x1\" rail=\"3\" plane=\"1\"");
        let rail = |v: &str| {
            let x = xml::parse(&doc, None).unwrap().0;
            let release = Release::parse(v).unwrap();
            let prep = prepare(&x, "t", &NetOptions { release, fusion: false, ..Default::default() }).unwrap();
            let sys = build(&prep.xml, "t", BuildOptions { release, ..Default::default() }).unwrap();
            sys.list(NodeType::Net)
                .iter()
                .find_map(|n| n.net().filter(|x| x.dev == 0).map(|x| (x.rail, x.plane)))
                .unwrap()
        };
        assert_eq!(rail("2.30.4"), (-1, -1));
        assert_eq!(rail("2.30.7"), (3, 1));
    }

    /// topo.h ncclTopoNVLinkBw: Hopper 20 until 2.19.4, 20.6 from 2.20.3; Blackwell as
    /// Hopper until 2.24.3, 40 from 2.25.1, 40.1 from 2.27.5.
    #[test]
    fn nvlink_bw_by_release() {
        let at = |v: &str, cc| bw::nvlink(Release::parse(v).unwrap().nvlink_table(), cc);
        assert_eq!(at("2.19.4", 90), 20.0);
        assert_eq!(at("2.20.3", 90), 20.6);
        assert_eq!(at("2.24.3", 100), 20.6);
        assert_eq!(at("2.25.1", 100), 40.0);
        assert_eq!(at("2.27.5", 100), 40.1);
        assert_eq!(at("2.18.1", 80), 20.0);
    }

    /// topo.cc ncclTopoAddPciLinks (2.22.3): a <pcilink> joins two switches with a LOC
    /// link; before, it is not read.
    #[test]
    fn pci_links_from_2_22() {
        let doc = r#"<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
      <pcilink target="0000:20:00.0"/>
      <pci busid="0000:11:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" gdr="1"/>
      </pci>
    </pci>
    <pci busid="0000:20:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
      <pcilink target="0000:10:00.0"/>
      <pci busid="0000:21:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="90" gdr="1"/>
      </pci>
    </pci>
  </cpu>
</system>
"#;
        let loc_links = |v: &str| {
            let sys = build_at(doc, v).unwrap();
            (0..sys.count(NodeType::Pci))
                .map(|i| {
                    sys.node(NodeRef::new(NodeType::Pci, i)).links.iter().filter(|l| l.ty == LinkType::Loc).count()
                })
                .sum::<usize>()
        };
        assert_eq!(loc_links("2.21.5"), 0);
        assert_eq!(loc_links("2.22.3"), 2);
    }
}
