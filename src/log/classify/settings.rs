//! Environment and tuning (K17-K23): settings, the network in use, GPUDirect RDMA
//! verdicts, CPU affinity, thread thresholds, channel counts and the tuning table.

use crate::log::record::{Counts, Gdr, Rec, TuneLine};
use crate::log::scan::{find, ident, int, int_list, nat32, sp, word};

fn is_env_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_uppercase()
        && b.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
}

/// `4.` (numeric NCCL_PARAM) reads `4`.
fn env_value(v: &str) -> &str {
    match v.strip_suffix('.') {
        Some(n) if int(n).is_some_and(|(_, r)| r.is_empty()) => n,
        _ => v,
    }
}

pub(super) fn env(msg: &str) -> Option<Rec<'_>> {
    for (sep, source) in [(" set by environment to ", "environment"), (" set from environment to ", "environment")] {
        if let Some(i) = find(msg, sep) {
            let name = &msg[..i];
            if is_env_name(name) {
                if name.starts_with("RCCL_") {
                    return Some(Rec::Rccl("RCCL_ variable"));
                }
                return Some(Rec::Env { name, value: env_value(&msg[i + sep.len()..]), source });
            }
        }
    }
    if let Some(i) = find(msg, " set to ") {
        let name = &msg[..i];
        if is_env_name(name) && name.starts_with("NCCL_") {
            return Some(Rec::Env { name, value: &msg[i + " set to ".len()..], source: "set" });
        }
    }
    // Plugins that set NCCL's variables (aws-ofi-nccl: `..., Setting NCCL_TOPO_FILE
    // environment variable to /path`).
    if let Some(i) = find(msg, "Setting NCCL_") {
        let r = &msg[i + "Setting ".len()..];
        let (name, r) = word(r);
        if let Some(v) = r.strip_prefix(" environment variable to ")
            && is_env_name(name)
            && !v.is_empty()
        {
            return Some(Rec::Env { name, value: v, source: "plugin" });
        }
    }
    None
}

/// `Comm config X reset to NCCL_Y=V` (2.27+).
pub(super) fn comm_config(msg: &str) -> Option<Rec<'_>> {
    let i = find(msg, " reset to ")?;
    let (name, value) = msg[i + " reset to ".len()..].split_once('=')?;
    (is_env_name(name) && name.starts_with("NCCL_")).then_some(Rec::Env { name, value, source: "config" })
}

/// After `NET/`: `IB : Using ...`, `Socket : Using ...`, GDR per HCA, `IB : No device found.`.
pub(super) fn net_line(r: &str) -> Option<Rec<'_>> {
    let i = r.find(':')?;
    let kind = r[..i].trim_end();
    if kind.is_empty() {
        return None;
    }
    let rest = &r[i + 1..];
    if let Some(u) = rest.strip_prefix(" Using") {
        return Some(Rec::NetUsing { kind, rest: u });
    }
    if let Some(g) = rest.strip_prefix(" GPU Direct RDMA ") {
        return gdr(g);
    }
    if rest == " No device found." {
        return Some(Rec::Detail { kind: "net_no_device", value: kind });
    }
    None
}

pub(super) fn gdr(r: &str) -> Option<Rec<'_>> {
    let (enabled, r) = if let Some(x) = r.strip_prefix("Enabled for ") {
        (true, x)
    } else {
        (false, r.strip_prefix("Disabled for ")?)
    };
    if let Some(x) = r.strip_prefix("HCA ") {
        // `HCA 0 'eno1'` [` (no module)`]
        let (nic, x) = word(x);
        let x = x.strip_prefix(" '")?;
        let end = x.rfind('\'')?;
        return Some(Rec::Gdr(Gdr { enabled, gpu: None, nic, nic_name: Some(&x[..end]), detail: x[end + 1..].trim() }));
    }
    if let Some(x) = r.strip_prefix("GPU ") {
        // `GPU 7000 / HCA 0 (distance 4 <= 3), read 1 [mode X]`
        let (gpu, x) = word(x);
        let x = x.strip_prefix(" / HCA ")?;
        let (nic, x) = word(x);
        return Some(Rec::Gdr(Gdr { enabled, gpu: Some(gpu), nic, nic_name: None, detail: x.trim() }));
    }
    // 2.29: `GPU/0-7000 (rank 0) - NET/0-1 (...)`
    if r.starts_with("GPU/") {
        let (gpu, x) = word(r);
        let i = x.find("NET/")?;
        let (nic, x) = word(&x[i..]);
        return Some(Rec::Gdr(Gdr { enabled, gpu: Some(gpu), nic, nic_name: None, detail: x.trim() }));
    }
    None
}

pub(super) fn affinity_new(r: &str) -> Option<Rec<'_>> {
    let (gpu, r) = nat32(r)?;
    let r = r.strip_prefix(" is ")?;
    let i = find(r, ". (GPU affinity = ")?;
    let mask = &r[..i];
    let r = &r[i + ". (GPU affinity = ".len()..];
    let r = r.strip_suffix(").")?;
    let cpu = r.split_once(" ; CPU affinity = ").map(|(_, c)| c);
    Some(Rec::Affinity { gpu, mask, cpu, new_form: true })
}

// ---------------------------------------------------------------------------------------
// K21 / K22 / K23

pub(super) fn thresholds(r: &str) -> Option<Rec<'_>> {
    let mut groups = Vec::new();
    for g in r.split(" | ") {
        let mut v = Vec::new();
        let rest = int_list(g, &mut v)?;
        if !rest.is_empty() {
            return None;
        }
        groups.push(v);
    }
    Some(Rec::Thresholds(groups))
}

pub(super) fn counts(msg: &str) -> Option<Counts> {
    let (coll, r) = nat32(msg)?;
    let mut r = r.strip_prefix(" coll channels, ")?;
    let mut nums = Vec::new();
    let mut collnet = None;
    let mut nvls = None;
    loop {
        let (v, x) = nat32(r)?;
        if let Some(y) = x.strip_prefix(" collnet channels, ") {
            collnet = Some(v);
            r = y;
        } else if let Some(y) = x.strip_prefix(" nvls channels, ") {
            nvls = Some(v);
            r = y;
        } else if let Some(y) = x.strip_prefix(" p2p channels, ") {
            nums.push(v);
            r = y;
        } else if x == " p2p channels per peer" {
            nums.push(v);
            break;
        } else {
            return None;
        }
    }
    if nums.len() != 2 {
        return None;
    }
    Some(Counts { coll, collnet, nvls, p2p: nums[0], p2p_per_peer: nums[1] })
}

/// Cells between `|`: the text after the first `|`, split, the empty last one dropped.
fn cells(s: &str) -> Option<(&str, Vec<&str>)> {
    let (head, rest) = s.split_once('|')?;
    let mut v: Vec<&str> = rest.split('|').collect();
    if v.last().is_some_and(|l| l.trim().is_empty()) {
        v.pop();
    }
    Some((head, v))
}

pub(super) fn tuning(msg: &str) -> Option<TuneLine<'_>> {
    let (head, cs) = cells(msg)?;
    if cs.is_empty() {
        return None;
    }
    match head {
        "Latency/AlgBw " => {
            let mut pairs = Vec::new();
            for c in cs {
                let (a, p) = c.trim().split_once('/')?;
                pairs.push((a.trim(), p.trim()));
            }
            Some(TuneLine::Pairs(pairs))
        }
        "  Algorithm   " => {
            let v: Vec<&str> = cs.iter().map(|c| c.trim()).collect();
            v.iter().all(|a| ident(a).is_some_and(|(_, r)| r.is_empty())).then_some(TuneLine::Algos(v))
        }
        "  Protocol    " => {
            let v: Vec<&str> = cs.iter().map(|c| c.trim()).collect();
            v.iter().all(|a| ident(a).is_some_and(|(_, r)| r.is_empty())).then_some(TuneLine::Protos(v))
        }
        " Max NThreads " => {
            let mut v = Vec::new();
            for c in cs {
                let (n, r) = int(c.trim())?;
                if !r.is_empty() {
                    return None;
                }
                v.push(n);
            }
            Some(TuneLine::MaxThreads(v))
        }
        _ => {
            let (func, r) = ident(sp(head))?;
            if r != " " {
                return None;
            }
            let mut v = Vec::new();
            for c in cs {
                let (a, b) = c.trim().split_once('/')?;
                let lat: f64 = a.trim().parse().ok()?;
                let bw: f64 = b.trim().parse().ok()?;
                v.push((lat, bw));
            }
            Some(TuneLine::Row(func, v))
        }
    }
}
