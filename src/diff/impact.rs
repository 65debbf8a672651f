//! The NCCL half of a diff: what the differences do to NCCL's decisions.
//!
//! Two [`Analysis`] results are compared through their reports, with GPUs and network
//! devices named in the reference dump's terms (a GPU by its paired device, a network
//! device by the names of its paired ports), never by rank or device index, which shift
//! when a device is lost. Compared: GPU-GPU and GPU-NET paths (type and bandwidth), each
//! GPU's best NET path, the P2P transport and GDR verdicts, the system bandwidths the
//! channel search starts from, and the channel graphs (`graphs` of the analysis JSON:
//! `nchannels`, `bw_intra`, `bw_inter`, `type_intra`, `type_inter` per graph) when a
//! graphs function provides them.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::diff::inventory::Inventory;
use crate::diff::{Change, Level, What};
use crate::model::{Analysis, GdrMode, PathType, Transport};
use crate::types::gbs;

/// The channel graphs of an analysis, as the `graphs` object of `topo analyze --json`.
/// The search plugs in here; [`no_graphs`] is the stand-in while there is none.
pub type GraphsFn<'a> = &'a dyn Fn(&Analysis) -> Value;

/// The graph names of the analysis JSON, in order.
pub const GRAPH_NAMES: [&str; 5] = ["ring", "tree", "nvls", "collnet_chain", "collnet_direct"];

/// No channel search: every graph is null.
pub fn no_graphs(_: &Analysis) -> Value {
    Value::Object(GRAPH_NAMES.iter().map(|n| (n.to_string(), Value::Null)).collect())
}

/// A GPU or network device in the reference dump's terms: `ord` sorts like the reference.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub ord: usize,
    pub label: String,
}

/// How one analysis names its GPUs (by rank) and network devices (by `dev`).
#[derive(Debug, Clone, Default)]
pub struct Naming {
    pub gpu: BTreeMap<i32, Key>,
    pub net: BTreeMap<i32, Key>,
}

/// Devices only in B sort after every device of A.
const NEW: usize = 1 << 40;

impl Naming {
    /// Name an analysis of the dump behind `inv`; `to_ref` maps its devices to the
    /// reference inventory `reference` (None for the reference itself).
    pub fn new(an: &Analysis, inv: &Inventory, reference: &Inventory, to_ref: Option<&[Option<usize>]>) -> Naming {
        let name = |i: usize| -> Key {
            match to_ref {
                None => Key { ord: i, label: reference.devices[i].label.clone() },
                Some(map) => match map[i] {
                    Some(r) => Key { ord: r, label: reference.devices[r].label.clone() },
                    None => Key { ord: NEW + i, label: format!("{} (new)", inv.devices[i].label) },
                },
            }
        };
        let mut out = Naming::default();
        for g in &an.gpus {
            let key = match inv.gpu(&g.busid, g.dev) {
                Some(i) => name(i),
                None => Key { ord: NEW * 2 + g.rank as usize, label: format!("GPU {} (dev {})", g.busid, g.dev) },
            };
            out.gpu.insert(g.rank, key);
        }
        for n in &an.nets {
            let members: Vec<&str> = if n.is_virtual {
                n.physdevs.iter().filter_map(|&m| an.nets.get(m as usize)).map(|d| d.name.as_str()).collect()
            } else {
                vec![n.name.as_str()]
            };
            let mut ord = usize::MAX;
            let mut names = Vec::new();
            for m in members {
                match inv.net_by_name(m) {
                    Some(i) => {
                        let k = name(i);
                        ord = ord.min(k.ord);
                        let port = match to_ref {
                            None => Some(i),
                            Some(map) => map[i],
                        };
                        names.push(match port.and_then(|p| reference.devices[p].name()) {
                            Some(nm) => nm.to_string(),
                            None => format!("{m} (new)"),
                        });
                    }
                    None => names.push(m.to_string()),
                }
            }
            out.net.insert(n.dev, Key { ord, label: format!("NET {}", names.join("+")) });
        }
        out
    }
}

/// A P2P decision: transport, P2P possible, P2P read.
type P2pVerdict = (Transport, Option<bool>, Option<bool>);

/// What a grouped line says: its kind, level, before and after.
type GroupKey = (String, Level, String, String);

/// The facts compared, keyed by reference names.
#[derive(Debug, Clone, Default)]
struct View {
    gpus: BTreeSet<Key>,
    gpu_gpu: BTreeMap<(Key, Key), (PathType, f32)>,
    gpu_net: BTreeMap<(Key, Key), (PathType, f32)>,
    best_net: BTreeMap<Key, (PathType, f32)>,
    /// How many network devices each GPU reaches with its best path (those NCCL
    /// spreads the GPU's channels over).
    local_nets: BTreeMap<Key, usize>,
    p2p: BTreeMap<(Key, Key), P2pVerdict>,
    gdr: BTreeMap<(Key, Key), (GdrMode, GdrMode)>,
    trimmed: BTreeSet<Key>,
}

fn view(an: &Analysis, n: &Naming) -> View {
    let mut v = View::default();
    let gpu = |r: Option<i32>| r.and_then(|r| n.gpu.get(&r).cloned());
    let net = |d: Option<i32>| d.and_then(|d| n.net.get(&d).cloned());
    for p in &an.paths.gpu_gpu {
        if let (Some(x), Some(y)) = (gpu(p.from), gpu(p.to)) {
            v.gpus.insert(x.clone());
            if x != y {
                v.gpu_gpu.insert((x, y), (p.ty, p.bw));
            }
        }
    }
    for p in &an.paths.gpu_net {
        if let (Some(x), Some(y)) = (gpu(p.rank), net(p.net)) {
            let best = v.best_net.entry(x.clone()).or_insert((PathType::Dis, 0.0));
            if p.bw > best.1 || (p.bw == best.1 && p.ty < best.0) {
                *best = (p.ty, p.bw);
            }
            v.gpu_net.insert((x, y), (p.ty, p.bw));
        }
    }
    for ((x, _), p) in &v.gpu_net {
        if v.best_net.get(x).is_some_and(|b| same(*b, *p)) {
            *v.local_nets.entry(x.clone()).or_default() += 1;
        }
    }
    for p in &an.p2p {
        if let (Some(x), Some(y)) = (gpu(Some(p.from)), gpu(Some(p.to))) {
            v.p2p.insert((x, y), (p.transport, p.p2p, p.read));
        }
    }
    for g in &an.gdr {
        if let (Some(x), Some(y)) = (gpu(Some(g.rank)), net(Some(g.net))) {
            v.gdr.insert((x, y), (g.recv, g.send));
        }
    }
    for &r in &an.trimmed {
        if let Some(k) = gpu(Some(r)) {
            v.trimmed.insert(k);
        }
    }
    v
}

/// Changes of one kind with the same before and after, gathered into one line.
#[derive(Default)]
struct Groups {
    order: Vec<GroupKey>,
    items: BTreeMap<GroupKey, Vec<(Key, Option<Key>)>>,
}

impl Groups {
    fn add(&mut self, what: &str, level: Level, before: String, after: String, x: Key, y: Option<Key>) {
        let k = (what.to_string(), level, before, after);
        if !self.items.contains_key(&k) {
            self.order.push(k.clone());
        }
        self.items.entry(k).or_default().push((x, y));
    }

    fn finish(self, out: &mut Vec<Change>, symmetric: &[&str]) {
        for k in self.order {
            let list = &self.items[&k];
            let (what, level, before, after) = k;
            let both = symmetric.contains(&what.as_str());
            let set: BTreeSet<(&Key, Option<&Key>)> = list.iter().map(|(x, y)| (x, y.as_ref())).collect();
            let mut items = Vec::new();
            for (x, y) in list {
                match y {
                    None => items.push(x.label.clone()),
                    Some(y) => {
                        let reverse = set.contains(&(y, Some(x)));
                        if both && reverse {
                            if x < y {
                                items.push(format!("{} <-> {}", x.label, y.label));
                            }
                        } else {
                            items.push(format!("{} -> {}", x.label, y.label));
                        }
                    }
                }
            }
            out.push(Change {
                level,
                what: What::Nccl,
                subject: format!("NCCL {what}"),
                kind: None,
                busid: None,
                name: None,
                attr: None,
                message: format!("{before} -> {after}"),
                before: Some(before),
                after: Some(after),
                items,
            });
        }
    }
}

fn path_str(p: (PathType, f32)) -> String {
    format!("{} {} GB/s", p.0, gbs(p.1))
}

/// A worse type is an error (a warning when the bandwidth grows with it), lower
/// bandwidth a warning, anything better only a note.
fn path_level(x: (PathType, f32), y: (PathType, f32)) -> Level {
    if y.0 > x.0 {
        if y.1 > x.1 { Level::Warning } else { Level::Error }
    } else if y.1 < x.1 {
        Level::Warning
    } else {
        Level::Info
    }
}

/// Transports from best to worst.
fn transport_rank(t: Transport) -> u8 {
    match t {
        Transport::P2p => 0,
        Transport::Shm => 1,
        Transport::Net => 2,
    }
}

/// A GDR verdict turned off is an error, turned on a note, another mode a warning.
fn gdr_level(x: GdrMode, y: GdrMode) -> Level {
    match (x == GdrMode::Disabled, y == GdrMode::Disabled) {
        (false, true) => Level::Error,
        (true, false) => Level::Info,
        _ => Level::Warning,
    }
}

fn same(x: (PathType, f32), y: (PathType, f32)) -> bool {
    x.0 == y.0 && x.1 == y.1
}

/// Everything NCCL decides differently for `b` than for `a`.
pub fn impact(a: &Analysis, na: &Naming, ga: &Value, b: &Analysis, nb: &Naming, gb: &Value) -> Vec<Change> {
    let (va, vb) = (view(a, na), view(b, nb));
    let mut g = Groups::default();
    let shared = |x: &Key| va.gpus.contains(x) && vb.gpus.contains(x);
    for ((x, y), &pa) in &va.gpu_gpu {
        if let Some(&pb) = vb.gpu_gpu.get(&(x.clone(), y.clone()))
            && !same(pa, pb)
        {
            g.add("GPU-GPU path", path_level(pa, pb), path_str(pa), path_str(pb), x.clone(), Some(y.clone()));
        }
    }
    for ((x, y), &pa) in &va.gpu_net {
        if let Some(&pb) = vb.gpu_net.get(&(x.clone(), y.clone()))
            && !same(pa, pb)
        {
            g.add("GPU->NET path", path_level(pa, pb), path_str(pa), path_str(pb), x.clone(), Some(y.clone()));
        }
    }
    for (x, &pa) in &va.best_net {
        if let Some(&pb) = vb.best_net.get(x) {
            if !same(pa, pb) {
                g.add("best GPU->NET path", path_level(pa, pb), path_str(pa), path_str(pb), x.clone(), None);
            }
        } else if shared(x) {
            g.add("best GPU->NET path", Level::Error, path_str(pa), "no network device".into(), x.clone(), None);
        }
    }
    for (x, &pb) in &vb.best_net {
        if !va.best_net.contains_key(x) && shared(x) {
            g.add("best GPU->NET path", Level::Info, "no network device".into(), path_str(pb), x.clone(), None);
        }
    }
    for (x, &ca) in &va.local_nets {
        if let Some(&cb) = vb.local_nets.get(x)
            && ca != cb
        {
            let level = if cb < ca { Level::Warning } else { Level::Info };
            g.add("network devices at the best path", level, ca.to_string(), cb.to_string(), x.clone(), None);
        }
    }
    let p2p_str = |t: P2pVerdict| {
        let mut s = t.0.name().to_string();
        if t.0 == Transport::P2p && t.2 == Some(true) {
            s.push_str(" (read)");
        }
        s
    };
    for ((x, y), &ta) in &va.p2p {
        let Some(&tb) = vb.p2p.get(&(x.clone(), y.clone())) else { continue };
        if ta == tb {
            continue;
        }
        // Worse transport (or P2P lost): error; P2P read lost: warning; better: note.
        let level = match transport_rank(tb.0).cmp(&transport_rank(ta.0)) {
            std::cmp::Ordering::Greater => Level::Error,
            std::cmp::Ordering::Less => Level::Info,
            std::cmp::Ordering::Equal if ta.1 == Some(true) && tb.1 != Some(true) => Level::Error,
            std::cmp::Ordering::Equal if ta.2 == Some(true) && tb.2 != Some(true) => Level::Warning,
            std::cmp::Ordering::Equal => Level::Info,
        };
        g.add("transport", level, p2p_str(ta), p2p_str(tb), x.clone(), Some(y.clone()));
    }
    let gdr_str = |m: (GdrMode, GdrMode)| format!("GDR recv {} send {}", m.0.name(), m.1.name());
    for ((x, y), &ma) in &va.gdr {
        if let Some(&mb) = vb.gdr.get(&(x.clone(), y.clone()))
            && ma != mb
        {
            let part = |x: GdrMode, y: GdrMode| if x == y { Level::Info } else { gdr_level(x, y) };
            let level = part(ma.0, mb.0).min(part(ma.1, mb.1));
            g.add("GPUDirect RDMA", level, gdr_str(ma), gdr_str(mb), x.clone(), Some(y.clone()));
        }
    }
    for x in vb.trimmed.difference(&va.trimmed).filter(|x| shared(x)) {
        g.add(
            "trimmed GPU",
            Level::Error,
            "in rank 0's domain".into(),
            "trimmed (reached only through the network)".into(),
            x.clone(),
            None,
        );
    }
    let mut out = Vec::new();
    g.finish(&mut out, &["GPU-GPU path", "transport"]);
    system(a, b, &mut out);
    graphs(ga, gb, &mut out);
    picks(ga, gb, &mut out);
    out
}

/// Message sizes at which [`allreduce_picks`] asks the tuning model.
pub const PICK_SIZES: [u64; 4] = [4 << 10, 256 << 10, 16 << 20, 1 << 30];

/// What the tuning model picks for AllReduce at [`PICK_SIZES`], as a JSON array for the
/// `allreduce` member of a graphs object (`null` when the model cannot run).
pub fn allreduce_picks(an: &Analysis, gs: &crate::search::Graphs) -> Value {
    let Ok(m) = crate::tune::Model::new(an, gs) else { return Value::Null };
    let picks: Vec<Value> = PICK_SIZES
        .iter()
        .filter_map(|&b| m.predict(crate::tune::Func::AllReduce, b).ok())
        .map(|p| {
            serde_json::json!({
                "bytes": p.bytes, "algo": p.algo.name(), "proto": p.proto.name(), "busbw_gbs": p.busbw_gbs,
            })
        })
        .collect();
    Value::Array(picks)
}

/// A bandwidth with three significant figures (at least one decimal).
fn bw_text(v: f64) -> String {
    let decimals = if v >= 10.0 {
        1
    } else if v >= 1.0 {
        2
    } else {
        3
    };
    format!("{v:.decimals$}")
}

/// `4 KiB`, `16 MiB`, `1 GiB`: a size as people write message sizes.
fn size_text(b: u64) -> String {
    let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    match units.iter().find(|(u, _)| b >= *u && b.is_multiple_of(*u)) {
        Some((u, name)) => format!("{} {name}", b / u),
        None => format!("{b} B"),
    }
}

/// Compare the tuning model's AllReduce picks (the `allreduce` members), size by size.
fn picks(ga: &Value, gb: &Value, out: &mut Vec<Change>) {
    let (Some(xa), Some(xb)) =
        (ga.get("allreduce").and_then(Value::as_array), gb.get("allreduce").and_then(Value::as_array))
    else {
        return;
    };
    for (pa, pb) in xa.iter().zip(xb) {
        let pick = |p: &Value| {
            format!(
                "{}/{}",
                p.get("algo").and_then(Value::as_str).unwrap_or("?"),
                p.get("proto").and_then(Value::as_str).unwrap_or("?")
            )
        };
        let (ba, bb) = (num(pa, "busbw_gbs").unwrap_or(0.0), num(pb, "busbw_gbs").unwrap_or(0.0));
        let (ka, kb) = (pick(pa), pick(pb));
        // Below 2% the prediction moved, nobody's job did.
        let moved = ba > 0.0 && ((bb - ba) / ba).abs() >= 0.02;
        if ka == kb && !moved {
            continue;
        }
        let size = size_text(num(pa, "bytes").unwrap_or(0.0) as u64);
        let level = if bb < ba * 0.95 { Level::Warning } else { Level::Info };
        let (fa, fb) = (bw_text(ba), bw_text(bb));
        out.push(nccl_change(
            level,
            &format!("AllReduce {size}"),
            format!("{ka} {fa} GB/s"),
            format!("{kb} {fb} GB/s"),
            format!("{ka} {fa} -> {kb} {fb} GB/s bus bandwidth (predicted)"),
        ));
    }
}

fn nccl_change(level: Level, subject: &str, before: String, after: String, message: String) -> Change {
    Change {
        level,
        what: What::Nccl,
        subject: format!("NCCL {subject}"),
        kind: None,
        busid: None,
        name: None,
        attr: None,
        before: Some(before),
        after: Some(after),
        message,
        items: Vec::new(),
    }
}

fn system(a: &Analysis, b: &Analysis, out: &mut Vec<Change>) {
    for (what, x, y) in [
        ("search start bandwidth (max_bw)", a.sys_rec.max_bw, b.sys_rec.max_bw),
        ("search total bandwidth (total_bw)", a.sys_rec.total_bw, b.sys_rec.total_bw),
    ] {
        if x != y {
            let level = if y < x { Level::Warning } else { Level::Info };
            out.push(nccl_change(level, what, gbs(x), gbs(y), format!("{} -> {} GB/s", gbs(x), gbs(y))));
        }
    }
    if a.levels.p2p != b.levels.p2p {
        let (x, y) = (a.levels.p2p.name().to_string(), b.levels.p2p.name().to_string());
        out.push(nccl_change(Level::Warning, "P2P level", x.clone(), y.clone(), format!("{x} -> {y}")));
    }
}

fn num(v: &Value, f: &str) -> Option<f64> {
    v.get(f).and_then(Value::as_f64)
}

/// A graph figure for people: graph bandwidths are `f32`s, so show the shortest text
/// that reads back as the same `f32` (`0.24`, not `0.23999999463558197`).
fn figure(v: f64) -> String {
    (v as f32).to_string()
}

/// Compare the `graphs` objects of two analyses.
fn graphs(ga: &Value, gb: &Value, out: &mut Vec<Change>) {
    let names: Vec<String> = {
        let mut n: Vec<String> = GRAPH_NAMES.iter().map(|s| s.to_string()).collect();
        for g in [ga, gb] {
            if let Some(o) = g.as_object() {
                for k in o.keys() {
                    if !n.contains(k) && k != "allreduce" {
                        n.push(k.clone());
                    }
                }
            }
        }
        n
    };
    for name in names {
        let (x, y) = (ga.get(&name).unwrap_or(&Value::Null), gb.get(&name).unwrap_or(&Value::Null));
        let subject = format!("{name} graph");
        match (x.is_null(), y.is_null()) {
            (true, true) => continue,
            (false, true) => {
                out.push(nccl_change(
                    Level::Warning,
                    &subject,
                    "found".into(),
                    "none".into(),
                    "no graph found any more".into(),
                ));
                continue;
            }
            (true, false) => {
                out.push(nccl_change(
                    Level::Info,
                    &subject,
                    "none".into(),
                    "found".into(),
                    "a graph is found now".into(),
                ));
                continue;
            }
            _ => {}
        }
        for f in ["nchannels", "bw_intra", "bw_inter"] {
            if let (Some(p), Some(q)) = (num(x, f), num(y, f))
                && p != q
            {
                let level = if q < p { Level::Warning } else { Level::Info };
                out.push(nccl_change(
                    level,
                    &format!("{subject} {f}"),
                    figure(p),
                    figure(q),
                    format!("{} -> {}", figure(p), figure(q)),
                ));
            }
        }
        for f in ["type_intra", "type_inter"] {
            let (p, q) = (x.get(f).and_then(Value::as_str), y.get(f).and_then(Value::as_str));
            if p != q {
                let level = match (p.and_then(PathType::from_name), q.and_then(PathType::from_name)) {
                    (Some(p), Some(q)) if q > p => Level::Error,
                    (Some(_), Some(_)) => Level::Info,
                    _ => Level::Warning,
                };
                let (p, q) = (p.unwrap_or("none").to_string(), q.unwrap_or("none").to_string());
                out.push(nccl_change(level, &format!("{subject} {f}"), p.clone(), q.clone(), format!("{p} -> {q}")));
            }
        }
    }
}

/// A predicted ring bandwidth for one node, and where the number comes from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RingEstimate {
    /// GB/s.
    pub bw: f32,
    /// `search` when the ring graph gave it, `proxy` otherwise.
    pub source: &'static str,
    /// How it was computed, for people.
    pub basis: String,
    /// GB/s the node can move through all its network devices at once, from the model
    /// (the sum over network devices of their best GPU path, both directions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net_total: Option<f32>,
}

/// Best bandwidth per key, from (key, bw) pairs.
fn best_by<K: Ord>(pairs: impl Iterator<Item = (K, f32)>) -> BTreeMap<K, f32> {
    let mut out = BTreeMap::new();
    for (k, bw) in pairs {
        let e = out.entry(k).or_insert(0.0f32);
        *e = e.max(bw);
    }
    out
}

/// The ring bandwidth: `bw_inter * nchannels` of the ring graph when the search found
/// one. Otherwise a per-channel proxy from the model: NCCL runs every rank at the speed
/// of the slowest, so the smallest over GPUs of the GPU's best network bandwidth, the
/// lower of its best GPU->NET path (sends, PXN included) and best NET->GPU path
/// (receives). Without network devices, the smallest best GPU->GPU bandwidth.
pub fn ring_estimate(an: &Analysis, graphs: &Value) -> RingEstimate {
    let paths = &an.paths;
    let send = best_by(paths.gpu_net.iter().filter_map(|p| Some((p.rank?, p.bw))));
    let recv = best_by(paths.net_gpu.iter().filter_map(|p| Some((p.rank?, p.bw))));
    let net_send = best_by(paths.gpu_net.iter().filter_map(|p| Some((p.net?, p.bw))));
    let net_recv = best_by(paths.net_gpu.iter().filter_map(|p| Some((p.net?, p.bw))));
    let net_total = if net_send.is_empty() {
        None
    } else {
        Some(net_send.iter().map(|(n, &s)| s.min(net_recv.get(n).copied().unwrap_or(0.0))).sum())
    };
    if let Some(r) = graphs.get("ring").filter(|r| !r.is_null())
        && let (Some(bw), Some(n)) = (num(r, "bw_inter"), num(r, "nchannels"))
    {
        return RingEstimate {
            bw: (bw * n) as f32,
            source: "search",
            basis: format!("ring graph: {n} channels x {} GB/s (bw_inter)", figure(bw)),
            net_total,
        };
    }
    if !send.is_empty() {
        let min = send.iter().map(|(r, &s)| s.min(recv.get(r).copied().unwrap_or(0.0))).fold(f32::INFINITY, f32::min);
        return RingEstimate {
            bw: min,
            source: "proxy",
            basis: "proxy per channel (no channel search): min over GPUs of the best GPU<->NET path bandwidth".into(),
            net_total,
        };
    }
    let peers = best_by(paths.gpu_gpu.iter().filter(|p| p.from != p.to).filter_map(|p| Some((p.from?, p.bw))));
    let bw = if peers.is_empty() { an.sys_rec.max_bw } else { peers.values().copied().fold(f32::INFINITY, f32::min) };
    RingEstimate {
        bw,
        source: "proxy",
        basis: "proxy per channel (no channel search, no network device): min over GPUs of the best GPU->GPU path bandwidth".into(),
        net_total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_figures_read_as_their_f32() {
        assert_eq!(figure(0.24f32 as f64), "0.24");
        assert_eq!(figure(1.2f32 as f64), "1.2");
        assert_eq!(figure(16.0), "16");
    }
    use crate::diff::testutil::{elements, find, fixture, remove_device, side};
    use crate::diff::{Ignore, compare};
    use serde_json::json;

    #[test]
    fn network_devices_are_named_as_in_the_reference() {
        let a = fixture("dgx-h100");
        let mut b = a.clone();
        for n in elements(&b, "net") {
            let name = b.attr(n, "name").unwrap().replace("mlx5_", "ib");
            b.set_attr(n, "name", name);
        }
        let n = find(&b, "net", "name", "ib4");
        b.set_attr(n, "speed", "200000");
        let (sa, sb) = (side("a", a, &no_graphs), side("b", b, &no_graphs));
        let (cs, _) = compare(&sa, &sb, &Ignore::new(["name"]));
        let nccl: Vec<&Change> = cs.iter().filter(|c| c.what == What::Nccl).collect();
        assert!(!nccl.is_empty());
        for c in nccl {
            for i in &c.items {
                assert!(!i.contains("ib") && !i.contains("(new)"), "{i}");
            }
        }
        let p = cs.iter().find(|c| c.subject == "NCCL GPU->NET path" && c.level == Level::Warning).unwrap();
        assert!(p.items.contains(&"GPU 0000:42:00.0 (dev 2) -> NET mlx5_4".to_string()), "{:?}", p.items);
    }

    /// A stand-in search: more channels for more GPUs, and a worse inter-node path on
    /// the second machine.
    fn fake_graphs(an: &Analysis) -> Value {
        let n = an.gpus.len();
        let inter = if n == 8 { "PIX" } else { "SYS" };
        json!({
            "ring": {"nchannels": 2 * n, "bw_intra": 40.0, "bw_inter": 24.0, "type_intra": "NVL", "type_inter": inter},
            "tree": null, "nvls": null, "collnet_chain": null, "collnet_direct": null,
        })
    }

    #[test]
    fn graphs_from_a_search_are_compared_and_give_the_ring_bandwidth() {
        let a = fixture("dgx-h100");
        let mut b = a.clone();
        remove_device(&mut b, "gpu", "dev", "7");
        let (sa, sb) = (side("a", a, &fake_graphs), side("b", b, &fake_graphs));
        let ring = sa.ring().unwrap();
        assert_eq!((ring.bw, ring.source), (384.0, "search"));
        let (cs, _) = compare(&sa, &sb, &Ignore::default());
        let ch = cs.iter().find(|c| c.subject == "NCCL ring graph nchannels").unwrap();
        assert_eq!((ch.level, ch.message.as_str()), (Level::Warning, "16 -> 14"));
        let ty = cs.iter().find(|c| c.subject == "NCCL ring graph type_inter").unwrap();
        assert_eq!((ty.level, ty.message.as_str()), (Level::Error, "PIX -> SYS"));
        assert_eq!(sb.ring().unwrap().bw, 14.0 * 24.0);
    }

    #[test]
    fn ring_proxy_without_search() {
        let s = side("a", fixture("dgx-h100"), &no_graphs);
        let r = s.ring().unwrap();
        assert_eq!((r.bw, r.source), (48.0, "proxy"));
        assert!(r.basis.contains("proxy"));
        // No network device: the GPU-GPU fallback.
        let mut x = fixture("workstation-4gpu");
        for n in elements(&x, "nic") {
            let p = x.parent(n).unwrap();
            x.remove(p);
        }
        let r = side("w", x, &no_graphs).ring().unwrap();
        assert_eq!(r.source, "proxy");
        assert!(r.basis.contains("no network device"), "{}", r.basis);
        assert!(r.net_total.is_none());
    }
}
