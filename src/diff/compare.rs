//! The structural half of a diff: devices added, removed or moved, and attribute
//! changes of paired devices, each with a severity.

use std::collections::BTreeMap;

use crate::diff::inventory::{DevKind, Device, Inventory};
use crate::diff::matching::Matching;
use crate::diff::{Change, Level, What};
use crate::model::NodeType;
use crate::model::build::class_type;
use crate::xml;

/// Attributes that are compared another way, or are the device's identity.
const SPECIAL: &[&str] = &["busid"];

/// Every structural change from `a` to `b`.
pub fn structural(a: &Inventory, b: &Inventory, m: &Matching) -> Vec<Change> {
    let mut out = Vec::new();
    for kind in [DevKind::Cpu, DevKind::Pci, DevKind::Gpu, DevKind::Nic, DevKind::Net] {
        for i in a.of(kind) {
            match m.a_to_b[i] {
                None => one_sided(a, &m.a_to_b, i, What::Removed, &mut out),
                Some(j) => paired(a, b, m, i, j, &mut out),
            }
        }
        for j in b.of(kind) {
            if m.b_to_a[j].is_none() {
                one_sided(b, &m.b_to_a, j, What::Added, &mut out);
            }
        }
    }
    out
}

fn base(d: &Device, level: Level, what: What, attr: Option<&str>, message: String) -> Change {
    Change {
        level,
        what,
        subject: d.label.clone(),
        kind: Some(d.kind),
        busid: d.busid.clone(),
        name: d.name().map(str::to_string),
        attr: attr.map(str::to_string),
        before: None,
        after: None,
        message,
        items: Vec::new(),
    }
}

fn place(inv: &Inventory, d: &Device) -> String {
    let parent = d.parent.map(|p| &inv.devices[p]);
    match (parent, d.cpu) {
        (Some(p), Some(c)) if p.kind != DevKind::Cpu && d.kind != DevKind::Net => {
            format!("under {}, {}", p.label, inv.devices[c].label)
        }
        (Some(p), _) => format!("under {}", p.label),
        _ => "at the top".into(),
    }
}

/// A device on one side only: `partner` is that side's pairing map. The ports of a NIC
/// that is gone (or new) are named in the NIC's line.
fn one_sided(inv: &Inventory, partner: &[Option<usize>], i: usize, what: What, out: &mut Vec<Change>) {
    let d = &inv.devices[i];
    if d.kind == DevKind::Net && d.parent.is_some_and(|p| partner[p].is_none()) {
        return;
    }
    let (level, message) = match (what, d.kind) {
        (What::Removed, DevKind::Pci) => (Level::Warning, format!("removed (was {})", place(inv, d))),
        (What::Removed, _) => (Level::Error, format!("removed (was {})", place(inv, d))),
        (_, DevKind::Pci) => (Level::Info, format!("added ({})", place(inv, d))),
        _ => (Level::Warning, format!("added ({})", place(inv, d))),
    };
    out.push(base(d, level, what, None, message));
}

fn paired(a: &Inventory, b: &Inventory, m: &Matching, i: usize, j: usize, out: &mut Vec<Change>) {
    let (da, db) = (&a.devices[i], &b.devices[j]);
    // Moved: the device above it is not the one paired with the device above it before.
    if da.kind != DevKind::Cpu {
        let pa = da.parent;
        let pb = db.parent;
        if pa.and_then(|p| m.a_to_b[p]) != pb || (pa.is_none() != pb.is_none()) {
            let was = pa.map_or("nothing".to_string(), |p| a.devices[p].label.clone());
            let now = pb.map_or("nothing".to_string(), |p| b.devices[p].label.clone());
            let cpu_a = da.cpu.map(|c| a.devices[c].label.clone());
            let cpu_b = db.cpu.map(|c| b.devices[c].label.clone());
            let cpu_moved = da.cpu.and_then(|c| m.a_to_b[c]) != db.cpu;
            let mut msg = format!("moved: now under {now} (was under {was})");
            if cpu_moved && da.kind != DevKind::Net {
                msg.push_str(&format!(
                    "; now on {} (was {})",
                    cpu_b.as_deref().unwrap_or("no CPU"),
                    cpu_a.as_deref().unwrap_or("no CPU")
                ));
            }
            let mut c = base(da, Level::Warning, What::Moved, Some("parent"), msg);
            c.before = Some(was);
            c.after = Some(now);
            out.push(c);
        }
    }
    if da.busid != db.busid && da.kind != DevKind::Net {
        let (x, y) = (da.busid.as_deref().unwrap_or("none"), db.busid.as_deref().unwrap_or("none"));
        let mut c = base(da, Level::Info, What::Attribute, Some("busid"), format!("bus id {x} -> {y} (renumbered)"));
        c.before = Some(x.into());
        c.after = Some(y.into());
        out.push(c);
    }
    // Plain attributes, A's order first, then those only B has.
    let mut keys: Vec<&str> = da.attrs.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in &db.attrs {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    for key in keys {
        if SPECIAL.contains(&key) {
            continue;
        }
        let (x, y) = (da.attr(key), db.attr(key));
        if same_value(key, x, y) {
            continue;
        }
        let (level, message) = judge(da.kind, key, x, y);
        let mut c = base(da, level, What::Attribute, Some(key), message);
        c.before = x.map(str::to_string);
        c.after = y.map(str::to_string);
        out.push(c);
    }
    if da.kind == DevKind::Gpu {
        nvlinks(a, b, m, i, j, out);
        c2c(da, db, out);
    }
    if da.kind == DevKind::Pci && da.pcilinks != db.pcilinks {
        let mut c =
            base(da, Level::Info, What::Attribute, Some("pcilink"), "PCI links to other switches differ".into());
        c.before = Some(da.pcilinks.join(","));
        c.after = Some(db.pcilinks.join(","));
        out.push(c);
    }
}

/// What NCCL reads when an attribute is absent, where that is a plain value.
const DEFAULTS: &[(&str, &str)] = &[("mlopart", "-1"), ("net", "1"), ("gin", "0"), ("rma", "0"), ("coll", "0")];

/// Whether two values mean the same to NCCL: equal text, the same number written
/// differently (`0x10DE` and `0x10de`, `0` and `0.000000` for latency), or an absent
/// attribute and its default.
fn same_value(key: &str, x: Option<&str>, y: Option<&str>) -> bool {
    if x == y {
        return true;
    }
    let default = DEFAULTS.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let (Some(x), Some(y)) = (x.or(default), y.or(default)) else { return false };
    if key == "latency" {
        return xml::strtof(x) == xml::strtof(y);
    }
    match (xml::parse_c_int(x), xml::parse_c_int(y)) {
        (Some(a), Some(b)) => a == b,
        _ => x == y,
    }
}

fn show(v: Option<&str>) -> String {
    match v {
        Some(s) => format!("\"{s}\""),
        None => "absent".into(),
    }
}

/// Compare two numbers: lower is a warning, higher only worth noting.
fn lower_is_worse(x: Option<i64>, y: Option<i64>) -> Level {
    match (x, y) {
        (Some(x), Some(y)) if y > x => Level::Info,
        _ => Level::Warning,
    }
}

fn gbps(mbps: Option<&str>) -> String {
    match mbps.and_then(xml::parse_c_int) {
        Some(v) => format!("{} Gb/s", v as f64 / 1000.0),
        None => show(mbps),
    }
}

/// The severity and words for one attribute change.
fn judge(kind: DevKind, key: &str, x: Option<&str>, y: Option<&str>) -> (Level, String) {
    let int = |v: Option<&str>| v.and_then(xml::parse_c_int);
    let change = format!("{} -> {}", show(x), show(y));
    match key {
        "link_speed" => {
            // NCCL reads an unknown speed as Gen3 (8 GT/s); compare what NCCL reads.
            let sx = x.and_then(xml::pci_gen_speed).unwrap_or(60);
            let sy = y.and_then(xml::pci_gen_speed).unwrap_or(60);
            if sy < sx {
                (Level::Warning, format!("PCIe link downgraded: {change}"))
            } else if sy > sx {
                (Level::Info, format!("PCIe link faster: {change}"))
            } else {
                (Level::Info, format!("PCIe link speed written differently (same for NCCL): {change}"))
            }
        }
        "link_width" => {
            // NCCL reads 0 as x16.
            let w = |v: Option<&str>| int(v).map(|w| if w == 0 { 16 } else { w });
            let (wx, wy) = (w(x), w(y));
            let lvl = lower_is_worse(wx, wy);
            let fmt = |v: Option<i64>| v.map_or("absent".to_string(), |v| format!("x{v}"));
            let what = if lvl == Level::Warning { "PCIe link narrower" } else { "PCIe link wider" };
            (lvl, format!("{what}: {} -> {}", fmt(wx), fmt(wy)))
        }
        "speed" if kind == DevKind::Net => {
            let lvl = lower_is_worse(int(x), int(y));
            let what = if lvl == Level::Warning { "port speed lower" } else { "port speed higher" };
            (lvl, format!("{what}: {} -> {}", gbps(x), gbps(y)))
        }
        "gdr" => {
            if int(x).unwrap_or(0) != 0 && int(y).unwrap_or(0) == 0 {
                (Level::Warning, format!("GPUDirect RDMA support lost (gdr {change})"))
            } else {
                (Level::Info, format!("gdr {change}"))
            }
        }
        "sm" => (Level::Warning, format!("compute capability changed (another GPU architecture): sm {change}")),
        "mlopart" => (Level::Warning, format!("MLOPart partitioning changed: mlopart {change}")),
        "vendor" | "device" if matches!(kind, DevKind::Gpu | DevKind::Nic) && x.is_some() && y.is_some() => {
            (Level::Warning, format!("another device model: PCI {key} id {change}"))
        }
        "class" if kind != DevKind::Pci && x.is_some() && y.is_some() => {
            (Level::Warning, format!("PCI class {change}"))
        }
        "arch" | "vendor" | "familyid" | "modelid" if kind == DevKind::Cpu => {
            (Level::Warning, format!("CPU model changed (inter-CPU bandwidth may change): {key} {change}"))
        }
        "affinity" => (Level::Info, format!("CPU affinity differs (same NUMA node): {change}")),
        "numaid" => (Level::Info, format!("NUMA id {change}")),
        "host_hash" => (Level::Info, format!("host hash {change} (another host)")),
        "coll" | "maxconn" if kind == DevKind::Net => (Level::Warning, format!("{key} {change}")),
        "name" if kind == DevKind::Net => (Level::Info, format!("renamed: {change}")),
        "dev" | "rank" => (Level::Info, format!("{key} {change} (renumbered)")),
        _ => (Level::Info, format!("{key} {change}")),
    }
}

/// How a GPU's NVLink target reads in A's terms: (class, identity).
fn nvlink_target(
    inv: &Inventory,
    other: &Inventory,
    map: &[Option<usize>],
    target: &str,
    tclass: &str,
    in_a: bool,
) -> (String, Option<String>) {
    let class = match class_type(tclass) {
        NodeType::Gpu => "GPU",
        NodeType::Nvs => "NVSwitch",
        NodeType::Cpu => "CPU",
        _ => "other",
    };
    let id = inv.by_own_busid(target).map(|t| {
        if in_a {
            inv.devices[t].label.clone()
        } else {
            match map[t] {
                Some(ta) => other.devices[ta].label.clone(),
                None => format!("{} (new)", inv.devices[t].label),
            }
        }
    });
    (class.to_string(), id)
}

fn nvlinks(a: &Inventory, b: &Inventory, m: &Matching, i: usize, j: usize, out: &mut Vec<Change>) {
    let (da, db) = (&a.devices[i], &b.devices[j]);
    let tally = |inv: &Inventory, other: &Inventory, map: &[Option<usize>], d: &Device, in_a: bool| {
        let mut per_class: BTreeMap<String, i64> = BTreeMap::new();
        let mut per_target: BTreeMap<String, i64> = BTreeMap::new();
        let mut raw: BTreeMap<String, i64> = BTreeMap::new();
        for l in &d.nvlinks {
            let (class, id) = nvlink_target(inv, other, map, &l.target, &l.tclass, in_a);
            *per_class.entry(class).or_default() += l.count;
            match id {
                Some(id) => *per_target.entry(id).or_default() += l.count,
                None => *raw.entry(l.target.clone()).or_default() += l.count,
            }
        }
        (per_class, per_target, raw)
    };
    let (ca, ta, ra) = tally(a, b, &m.b_to_a, da, true);
    let (cb, tb, rb) = tally(b, a, &m.b_to_a, db, false);
    if ca == cb && ta == tb && ra == rb {
        return;
    }
    let total = |c: &BTreeMap<String, i64>| c.values().sum::<i64>();
    let mut worse = false;
    let mut details = Vec::new();
    for class in ca.keys().chain(cb.keys().filter(|k| !ca.contains_key(*k))) {
        let (x, y) = (ca.get(class).copied().unwrap_or(0), cb.get(class).copied().unwrap_or(0));
        if x != y {
            worse |= y < x;
            details.push(format!("{class} links {x} -> {y}"));
        }
    }
    for t in ta.keys().chain(tb.keys().filter(|k| !ta.contains_key(*k))) {
        let (x, y) = (ta.get(t).copied().unwrap_or(0), tb.get(t).copied().unwrap_or(0));
        if x != y {
            worse |= y < x;
            details.push(format!("to {t}: {x} -> {y}"));
        }
    }
    let (x, y) = (total(&ca), total(&cb));
    let (level, head) = if worse {
        (Level::Warning, if y < x { "fewer NVLinks" } else { "NVLinks redistributed, some peers get fewer" })
    } else if y > x {
        (Level::Info, "more NVLinks")
    } else {
        (Level::Info, "NVLink targets renumbered")
    };
    let msg = if details.is_empty() {
        format!("{head}: {x} -> {y}")
    } else {
        format!("{head}: {x} -> {y} ({})", details.join("; "))
    };
    let mut c = base(da, level, What::Attribute, Some("nvlink"), msg);
    c.before = Some(x.to_string());
    c.after = Some(y.to_string());
    out.push(c);
}

fn c2c(da: &Device, db: &Device, out: &mut Vec<Change>) {
    if da.c2c == db.c2c {
        return;
    }
    let total = |v: &[(i64, i64)]| v.iter().map(|&(bw, n)| bw * n).sum::<i64>();
    let fmt = |v: &[(i64, i64)]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter().map(|(bw, n)| format!("{n} x {bw} MB/s")).collect::<Vec<_>>().join(" + ")
        }
    };
    let (x, y) = (total(&da.c2c), total(&db.c2c));
    let level = if y < x { Level::Warning } else { Level::Info };
    let head = if y < x {
        "less NVLink-C2C bandwidth"
    } else if y > x {
        "more NVLink-C2C bandwidth"
    } else {
        "NVLink-C2C written differently"
    };
    let mut c = base(da, level, What::Attribute, Some("c2c"), format!("{head}: {} -> {}", fmt(&da.c2c), fmt(&db.c2c)));
    c.before = Some(x.to_string());
    c.after = Some(y.to_string());
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_equal_for_nccl_are_no_change() {
        assert!(same_value("mlopart", Some("-1"), None));
        assert!(same_value("vendor", Some("0x10DE"), Some("0x10de")));
        assert!(same_value("latency", Some("0"), Some("0.000000")));
        assert!(!same_value("speed", Some("400000"), None));
        assert!(!same_value("name", Some("mlx5_0"), Some("mlx5_1")));
    }

    #[test]
    fn severities_of_attribute_changes() {
        assert_eq!(judge(DevKind::Gpu, "link_width", Some("16"), Some("8")).0, Level::Warning);
        assert_eq!(judge(DevKind::Gpu, "link_width", Some("8"), Some("0")).0, Level::Info);
        assert_eq!(judge(DevKind::Pci, "link_speed", Some("32.0 GT/s PCIe"), Some("8.0 GT/s PCIe")).0, Level::Warning);
        // NCCL reads an unknown speed as Gen3.
        assert_eq!(judge(DevKind::Pci, "link_speed", Some("8 GT/s"), Some("Unknown")).0, Level::Info);
        assert_eq!(judge(DevKind::Net, "speed", Some("400000"), Some("200000")).0, Level::Warning);
        assert_eq!(judge(DevKind::Net, "gdr", Some("1"), Some("0")).0, Level::Warning);
        assert_eq!(judge(DevKind::Gpu, "device", None, Some("0x2330")).0, Level::Info);
        assert_eq!(judge(DevKind::Cpu, "affinity", Some("ff"), Some("0f")).0, Level::Info);
        assert_eq!(judge(DevKind::Cpu, "host_hash", Some("0x1"), Some("0x2")).0, Level::Info);
    }
}
