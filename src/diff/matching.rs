//! Pairing the devices of two dumps by identity, not by position.
//!
//! Each kind of device has identity keys, strongest first: a bus id, then its role (a
//! GPU's NVML index; a NIC's port GUIDs or names; a port's number, GUID or name within
//! its paired NIC; a switch's place above devices already paired). Keys that name other devices (a port's NIC, the
//! devices under a switch) use the pairing found so far, so kinds are paired in order:
//! CPUs, GPUs, NICs, ports, then switches.
//!
//! For one kind, every key in turn is tried as the first one (the others follow in
//! order on what is left) and the pairing that agrees best with all keys wins, the bus
//! id first on a tie. So identical bus ids pair devices on a bare-metal fleet even when a
//! GPU is lost and the NVML indices behind it shift, while in VMs whose bus ids were
//! renumbered (even when some of the new numbers collide with old ones) the devices pair
//! by role.

use std::collections::{BTreeMap, BTreeSet};

use crate::diff::inventory::{DevKind, Inventory, pci_role};

/// Which device of one dump is which device of the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    pub a_to_b: Vec<Option<usize>>,
    pub b_to_a: Vec<Option<usize>>,
    /// The key that paired each device of A (`bus`, `dev`, `guid`, `above`...).
    pub how: Vec<Option<&'static str>>,
}

impl Matching {
    fn new(na: usize, nb: usize) -> Matching {
        Matching { a_to_b: vec![None; na], b_to_a: vec![None; nb], how: vec![None; na] }
    }

    fn pair(&mut self, a: usize, b: usize, how: &'static str) {
        self.a_to_b[a] = Some(b);
        self.b_to_a[b] = Some(a);
        self.how[a] = Some(how);
    }

    /// The common identity of a device: its A index when it is paired (or is in A).
    fn id(&self, side: Side, idx: usize) -> Option<usize> {
        match side {
            Side::A => self.a_to_b[idx].map(|_| idx),
            Side::B => self.b_to_a[idx],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    A,
    B,
}

/// Pair the devices of two inventories.
pub fn match_devices(a: &Inventory, b: &Inventory) -> Matching {
    let mut m = Matching::new(a.devices.len(), b.devices.len());
    for kind in [DevKind::Cpu, DevKind::Gpu, DevKind::Nic, DevKind::Net, DevKind::Pci] {
        let (names, ka) = keys(a, Side::A, kind, &m);
        let (_, kb) = keys(b, Side::B, kind, &m);
        match_kind(&mut m, &ka, &kb, names);
        if kind == DevKind::Pci {
            match_by_overlap(a, b, &mut m);
        }
    }
    m
}

/// Per device of `kind`: its index and its keys (None where a key does not apply).
type Keyed = Vec<(usize, Vec<Option<String>>)>;

fn keys(inv: &Inventory, side: Side, kind: DevKind, m: &Matching) -> (&'static [&'static str], Keyed) {
    let devs = inv.of(kind);
    let mut out = Vec::with_capacity(devs.len());
    let names: &'static [&'static str] = match kind {
        DevKind::Cpu => &["numa", "order"],
        DevKind::Gpu => &["bus", "dev"],
        DevKind::Nic => &["bus", "guid", "name"],
        DevKind::Net => &["port", "guid", "name"],
        DevKind::Pci => &["bus", "above"],
    };
    let anchors = if kind == DevKind::Pci { anchors(inv, side, m) } else { BTreeMap::new() };
    let mut bare_nics: BTreeMap<Option<usize>, usize> = BTreeMap::new();
    for (order, &i) in devs.iter().enumerate() {
        let d = &inv.devices[i];
        let bus = d.busid.as_ref().map(|b| format!("bus:{b}"));
        let k: Vec<Option<String>> = match kind {
            DevKind::Cpu => vec![d.attr("numaid").map(|n| format!("numa:{n}")), Some(format!("order:{order}"))],
            DevKind::Gpu => {
                let part = d.attr("mlopart").unwrap_or("-1");
                vec![bus.map(|b| format!("{b}/{part}")), d.attr("dev").map(|v| format!("dev:{v}/{part}"))]
            }
            DevKind::Nic => {
                let ports = inv.ports(i);
                let set = |key: &str| -> Option<String> {
                    let mut v: Vec<&str> = ports.iter().filter_map(|&p| inv.devices[p].attr(key)).collect();
                    if v.is_empty() {
                        return None;
                    }
                    v.sort_unstable();
                    v.dedup();
                    Some(format!("{key}:{}", v.join(",")))
                };
                let first = match bus {
                    Some(b) => Some(b),
                    None => {
                        // A NIC straight under a CPU: the k-th such NIC of that CPU.
                        let cpu = d.cpu.and_then(|c| m.id(side, c));
                        let n = bare_nics.entry(cpu).or_insert(0);
                        *n += 1;
                        cpu.map(|c| format!("cpu:{c}/{n}"))
                    }
                };
                vec![first, set("guid"), set("name")]
            }
            DevKind::Net => {
                // Ports pair only within paired NICs: the ports of a NIC that is gone
                // are gone with it.
                let port = d.attr("port").unwrap_or("?");
                match d.parent.and_then(|p| m.id(side, p)) {
                    Some(nic) => vec![
                        Some(format!("nic:{nic}/port:{port}")),
                        d.attr("guid").map(|g| format!("nic:{nic}/guid:{}/port:{port}", g.to_ascii_lowercase())),
                        d.attr("name").map(|n| format!("nic:{nic}/name:{n}")),
                    ],
                    None => vec![None, None, None],
                }
            }
            DevKind::Pci => {
                // Only devices of the same role pair (a PCIe switch is not an NVSwitch
                // that took its bus number).
                let role = pci_role(d.attr("class"));
                let above = anchors
                    .get(&i)
                    .filter(|s| !s.is_empty())
                    .map(|s| format!("above:{role}:{}", s.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")));
                vec![bus.map(|b| format!("{b}/{role}")), above]
            }
        };
        out.push((i, k));
    }
    (names, out)
}

/// For each PCI device (switch, NVSwitch...): the identities of the paired GPUs and
/// NICs under it, and of the paired GPUs whose NVLinks end on it.
fn anchors(inv: &Inventory, side: Side, m: &Matching) -> BTreeMap<usize, BTreeSet<usize>> {
    let mut out: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (i, d) in inv.devices.iter().enumerate() {
        if !matches!(d.kind, DevKind::Gpu | DevKind::Nic) {
            continue;
        }
        let Some(id) = m.id(side, i) else { continue };
        let mut up = d.parent;
        while let Some(p) = up {
            if inv.devices[p].kind == DevKind::Pci {
                out.entry(p).or_default().insert(id);
            }
            up = inv.devices[p].parent;
        }
        for l in &d.nvlinks {
            if let Some(t) = inv.by_own_busid(&l.target).filter(|&t| inv.devices[t].kind == DevKind::Pci) {
                out.entry(t).or_default().insert(id);
            }
        }
    }
    out
}

/// A pairing: (position in A's list, position in B's list, key that paired them).
type Pairs = Vec<(usize, usize, usize)>;

/// Pair what agrees on each key in `order`.
fn run_strategy(ka: &Keyed, kb: &Keyed, order: &[usize]) -> Pairs {
    let mut used_a = vec![false; ka.len()];
    let mut used_b = vec![false; kb.len()];
    let mut pairs = Vec::new();
    for &k in order {
        let mut groups: BTreeMap<&str, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
        for (i, (_, keys)) in ka.iter().enumerate() {
            if let (false, Some(v)) = (used_a[i], &keys[k]) {
                groups.entry(v.as_str()).or_default().0.push(i);
            }
        }
        for (j, (_, keys)) in kb.iter().enumerate() {
            if let (false, Some(v)) = (used_b[j], &keys[k]) {
                groups.entry(v.as_str()).or_default().1.push(j);
            }
        }
        for (xs, ys) in groups.values() {
            for (&i, &j) in xs.iter().zip(ys.iter()) {
                used_a[i] = true;
                used_b[j] = true;
                pairs.push((i, j, k));
            }
        }
    }
    pairs
}

fn match_kind(m: &mut Matching, ka: &Keyed, kb: &Keyed, names: &'static [&'static str]) {
    // Only devices not paired yet take part.
    let ka: Keyed = ka.iter().filter(|(i, _)| m.a_to_b[*i].is_none()).cloned().collect();
    let kb: Keyed = kb.iter().filter(|(j, _)| m.b_to_a[*j].is_none()).cloned().collect();
    if ka.is_empty() || kb.is_empty() {
        return;
    }
    let nkeys = names.len();
    let mut best: Option<(usize, Pairs)> = None;
    for first in 0..nkeys {
        let order: Vec<usize> = std::iter::once(first).chain((0..nkeys).filter(|&k| k != first)).collect();
        let pairs = run_strategy(&ka, &kb, &order);
        let score: usize = pairs
            .iter()
            .map(|&(i, j, _)| 1 + (0..nkeys).filter(|&k| ka[i].1[k].is_some() && ka[i].1[k] == kb[j].1[k]).count())
            .sum();
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, pairs));
        }
    }
    if let Some((_, pairs)) = best {
        for (i, j, k) in pairs {
            m.pair(ka[i].0, kb[j].0, names[k]);
        }
    }
}

/// Switches left over: pair those above the most devices in common, at the closest depth.
fn match_by_overlap(a: &Inventory, b: &Inventory, m: &mut Matching) {
    let an = anchors(a, Side::A, m);
    let bn = anchors(b, Side::B, m);
    let mut cands = Vec::new();
    for (&i, sa) in &an {
        if m.a_to_b[i].is_some() {
            continue;
        }
        for (&j, sb) in &bn {
            if m.b_to_a[j].is_some() {
                continue;
            }
            let same_role = pci_role(a.devices[i].attr("class")) == pci_role(b.devices[j].attr("class"));
            let common = sa.intersection(sb).count();
            if common > 0 && same_role {
                let depth = a.devices[i].depth.abs_diff(b.devices[j].depth);
                cands.push((std::cmp::Reverse(common), depth, i, j));
            }
        }
    }
    cands.sort();
    for (_, _, i, j) in cands {
        if m.a_to_b[i].is_none() && m.b_to_a[j].is_none() {
            m.pair(i, j, "above");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::inventory::inventory;
    use crate::diff::testutil::{elements, renumber};
    use crate::xml::{self, Xml};

    fn dgx() -> Xml {
        crate::fixtures::get("dgx-h100").unwrap().load().unwrap().0
    }

    fn all_paired(a: &Inventory, b: &Inventory, m: &Matching) {
        for (i, d) in a.devices.iter().enumerate() {
            assert!(m.a_to_b[i].is_some(), "{} not paired", d.label);
        }
        for (j, d) in b.devices.iter().enumerate() {
            assert!(m.b_to_a[j].is_some(), "{} not paired", d.label);
        }
    }

    #[test]
    fn same_file_pairs_every_device_by_bus_id() {
        let x = dgx();
        let inv = inventory(&x);
        let m = match_devices(&inv, &inv);
        for i in 0..inv.devices.len() {
            assert_eq!(m.a_to_b[i], Some(i), "{}", inv.devices[i].label);
        }
    }

    #[test]
    fn renumbered_bus_ids_in_a_vm_still_match_by_role() {
        let a = dgx();
        let mut b = a.clone();
        // A VM: every device on a new domain, and the buses renumbered.
        renumber(&mut b, |s| {
            let id = xml::busid_to_i64(s);
            xml::i64_to_busid((id + 0x1_00000) ^ 0x3000)
        });
        let (ia, ib) = (inventory(&a), inventory(&b));
        let m = match_devices(&ia, &ib);
        all_paired(&ia, &ib, &m);
        for (i, d) in ia.devices.iter().enumerate() {
            let j = m.a_to_b[i].unwrap();
            let e = &ib.devices[j];
            assert_eq!(d.kind, e.kind);
            assert_eq!(d.attrs, e.attrs, "{} paired with {}", d.label, e.label);
            if d.kind == DevKind::Gpu {
                assert_eq!(m.how[i], Some("dev"));
            }
        }
    }

    #[test]
    fn colliding_renumbered_bus_ids_prefer_the_role() {
        // The GPUs move one bus up, so each GPU's old bus id is its neighbour's new one.
        let text = |buses: [&str; 3]| {
            let mut s = String::from(
                "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"25\" modelid=\"1\">\n",
            );
            for (i, bus) in buses.iter().enumerate() {
                s.push_str(&format!(
                    "    <pci busid=\"0000:{bus}:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n      <gpu dev=\"{i}\" sm=\"80\" rank=\"{i}\" gdr=\"1\"/>\n    </pci>\n"
                ));
            }
            s.push_str("  </cpu>\n</system>\n");
            xml::parse(&s, None).unwrap().0
        };
        let a = text(["0a", "0b", "0c"]);
        let b = text(["0b", "0c", "0d"]);
        let (ia, ib) = (inventory(&a), inventory(&b));
        let m = match_devices(&ia, &ib);
        for g in ia.of(DevKind::Gpu) {
            let j = m.a_to_b[g].unwrap();
            assert_eq!(ia.devices[g].attr("dev"), ib.devices[j].attr("dev"));
        }
    }

    #[test]
    fn a_lost_gpu_keeps_the_others_paired_by_bus_id() {
        let a = dgx();
        let mut b = a.clone();
        let inv = inventory(&b);
        // Remove GPU dev 2 and renumber the NVML indices behind it, as NVML would.
        let g = inv.gpu("0000:42:00.0", 2).unwrap();
        let pci = b.parent(inv.devices[g].elem).unwrap();
        b.remove(pci);
        for gpu in elements(&b, "gpu") {
            let dev = b.attr(gpu, "dev").map_or(0, xml::strtol);
            if dev > 2 {
                b.set_attr(gpu, "dev", (dev - 1).to_string());
                b.set_attr(gpu, "rank", (dev - 1).to_string());
            }
        }
        let (ia, ib) = (inventory(&a), inventory(&b));
        let m = match_devices(&ia, &ib);
        let lost = ia.gpu("0000:42:00.0", 2).unwrap();
        assert_eq!(m.a_to_b[lost], None);
        for gi in ia.of(DevKind::Gpu).into_iter().filter(|&i| i != lost) {
            let j = m.a_to_b[gi].unwrap();
            assert_eq!(ia.devices[gi].busid, ib.devices[j].busid);
        }
    }

    #[test]
    fn renamed_ports_pair_by_nic_and_port() {
        let a = dgx();
        let mut b = a.clone();
        for n in elements(&b, "net") {
            let name = b.attr(n, "name").unwrap().replace("mlx5_", "ib");
            b.set_attr(n, "name", name);
        }
        let (ia, ib) = (inventory(&a), inventory(&b));
        let m = match_devices(&ia, &ib);
        all_paired(&ia, &ib, &m);
        let p = ia.net_by_name("mlx5_3").unwrap();
        assert_eq!(ib.devices[m.a_to_b[p].unwrap()].attr("name"), Some("ib3"));
    }

    #[test]
    fn a_removed_switch_level_pairs_the_rest_by_place() {
        // The VM shows no PCIe switches above the GPUs: the switches pair with nothing,
        // everything else still pairs.
        let a = dgx();
        let mut b = a.clone();
        let cpu = b.child_named(0, "cpu").unwrap();
        let sw = b.children_named(cpu, "pci").find(|&p| b.attr(p, "busid") == Some("0000:18:00.0")).unwrap();
        let kids: Vec<_> = b.children(sw).to_vec();
        b.remove(sw);
        for k in kids {
            b.nodes[k].parent = Some(cpu);
            b.nodes[cpu].children.push(k);
        }
        let (ia, ib) = (inventory(&a), inventory(&b));
        let m = match_devices(&ia, &ib);
        let s = ia.by_own_busid("0000:18:00.0").unwrap();
        assert_eq!(m.a_to_b[s], None);
        for g in ia.of(DevKind::Gpu) {
            assert!(m.a_to_b[g].is_some());
        }
    }
}
