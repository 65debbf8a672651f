//! The system print (K4-K7): its header and closing line, the CPU roots and `+ LINK[bw]
//! - NODE` children, the path lines after it, and the node texts they are made of.

use crate::log::facts::{CpuAttrs, NetAttrs};
use crate::log::record::{HeaderForm, NodeId, NodeText, PathItem, PathLine, Rec, SysHeader, SysLine};
use crate::log::scan::{float, hex, int, nat, nat32, sp, sp1, upper};

/// Node types NCCL prints (2.5 to 2.30.7).
const NODE_TYPES: [&str; 10] = ["GPU", "PCI", "NVS", "CPU", "NIC", "NET", "DEV", "GIN", "RMA", "CXB"];

pub(super) fn is_node_type(s: &str) -> bool {
    NODE_TYPES.contains(&s)
}

/// Read a node id; returns it and the rest.
pub(crate) fn node_id(s: &str) -> Option<(NodeId<'_>, &str)> {
    let kind = s.get(..3)?;
    if !is_node_type(kind) {
        return None;
    }
    let r = s[3..].strip_prefix('/')?;
    let id_start = s.len() - r.len();
    let (a, r) = hex(r)?;
    let (system_id, local_id, dashed, r) = match r.strip_prefix('-') {
        Some(x) => {
            let (b, x) = hex(x)?;
            (a, b, true, x)
        }
        None => (0, a, false, r),
    };
    let text = &s[id_start..s.len() - r.len()];
    let upper = text.bytes().any(|b| b.is_ascii_uppercase());
    let lower = text.bytes().any(|b| b.is_ascii_lowercase());
    Some((NodeId { kind, system_id, local_id, dashed, upper, lower }, r))
}

/// Read a node text: `TYPE/ID`, an optional ` (ATTR)`, an optional ` [MLOPart N]`.
pub(super) fn parse_node(s: &str) -> Option<(NodeText<'_>, &str)> {
    let (id, mut r) = node_id(s)?;
    let id_text = &s[..s.len() - r.len()];
    let mut n =
        NodeText { id_text, id, rank: None, cpu: None, pci_device: None, net: None, net_fields: 0, mlo_part: None };
    if let Some(x) = r.strip_prefix(" (") {
        let end = x.find(')')?;
        attrs(&mut n, &x[..end])?;
        r = &x[end + 1..];
    }
    if let Some(x) = r.strip_prefix(" [MLOPart ") {
        let (v, x) = nat32(x)?;
        n.mlo_part = Some(v);
        r = x.strip_prefix(']')?;
    }
    Some((n, r))
}

fn attrs(n: &mut NodeText<'_>, a: &str) -> Option<()> {
    let fields: Vec<&str> = a.split('/').collect();
    let whole_int = |t: &str| int(t).filter(|(_, r)| r.is_empty()).map(|(v, _)| v);
    match n.id.kind {
        "GPU" => n.rank = Some(whole_int(a)?),
        "CPU" => {
            if fields.len() != 3 {
                return None;
            }
            n.cpu = Some(CpuAttrs {
                arch: whole_int(fields[0])?,
                vendor: whole_int(fields[1])?,
                model: whole_int(fields[2])?,
            });
        }
        "PCI" | "DEV" => n.pci_device = Some(hex(a).filter(|(_, r)| r.is_empty())?.0),
        "NET" => {
            let bw = |t: &str| float(t).filter(|(_, _, r)| r.is_empty()).map(|(v, _, _)| v);
            let asic = |t: &str| hex(t).filter(|(_, r)| r.is_empty()).map(|(v, _)| v);
            n.net_fields = fields.len() as u8;
            n.net = Some(match fields.len() {
                // 2.5 prints the network device index there (it keeps it in the node's
                // rank), which is the NET's own number: nothing about its port.
                1 => {
                    whole_int(fields[0])?;
                    return Some(());
                }
                3 => NetAttrs { coll: None, asic: asic(fields[0])?, port: whole_int(fields[1])?, bw: bw(fields[2])? },
                4 => NetAttrs {
                    coll: Some(whole_int(fields[0])?),
                    asic: asic(fields[1])?,
                    port: whole_int(fields[2])?,
                    bw: bw(fields[3])?,
                },
                _ => return None,
            });
        }
        _ => {}
    }
    Some(())
}

pub(crate) fn type_code(kind: &str) -> u8 {
    NODE_TYPES.iter().position(|t| *t == kind).map_or(u8::MAX, |i| i as u8)
}

pub(super) fn system_header(msg: &str) -> Option<Rec<'_>> {
    if msg.len() >= 20 && msg.bytes().all(|b| b == b'=') {
        return Some(Rec::SysEnd);
    }
    let s = msg.strip_prefix("=== System : ")?;
    let h = if let Some(r) = s.strip_prefix("maxWidth") {
        let (w, dec, r) = float(sp1(r)?)?;
        if let Some(x) = r.strip_prefix(" maxSpeed") {
            let (_, x) = nat(sp1(x)?)?;
            (dec == 0 && x == " ===").then_some(SysHeader {
                max_bw: w,
                total_bw: None,
                form: HeaderForm::WidthSpeed,
            })?
        } else if let Some(x) = r.strip_prefix(" totalWidth") {
            let (t, _, x) = float(sp1(x)?)?;
            (x == " ===").then_some(SysHeader { max_bw: w, total_bw: Some(t), form: HeaderForm::WidthTotal })?
        } else {
            (r == " ===").then_some(SysHeader { max_bw: w, total_bw: None, form: HeaderForm::Width })?
        }
    } else {
        let (w, _, r) = float(sp1(s.strip_prefix("maxBw")?)?)?;
        let (t, _, r) = float(sp1(r.strip_prefix(" totalBw")?)?)?;
        (r == " ===").then_some(SysHeader { max_bw: w, total_bw: Some(t), form: HeaderForm::Bw })?
    };
    Some(Rec::SysHeader(h))
}

pub(super) fn sys_line(msg: &str) -> Option<Rec<'_>> {
    let t = sp(msg);
    let col = msg.len() - t.len();
    if let Some(r) = t.strip_prefix("+ ") {
        let (link, r) = upper(r)?;
        let r = sp(r.strip_prefix('[')?);
        let (bw, dec, r) = float(r)?;
        let r = r.strip_prefix("] - ")?;
        let node_col = msg.len() - r.len();
        let (node, rest) = parse_node(r)?;
        if !rest.is_empty() {
            return None;
        }
        if link == "XGMI" {
            return Some(Rec::Rccl("XGMI link"));
        }
        Some(Rec::SysLine(SysLine { col, node_col, link: Some((link, bw)), int_bw: dec == 0, node }))
    } else {
        if col != 0 {
            return None;
        }
        let (node, rest) = parse_node(t)?;
        if !rest.is_empty() {
            return None;
        }
        Some(Rec::SysLine(SysLine { col: 0, node_col: 0, link: None, int_bw: false, node }))
    }
}

pub(super) fn path_line(msg: &str) -> Option<Rec<'_>> {
    let (_, r) = node_id(msg)?;
    let head = &msg[..msg.len() - r.len()];
    let mut r = r.strip_prefix(" :")?;
    let mut entries = Vec::new();
    let mut truncated = false;
    while !r.is_empty() {
        match path_item(r) {
            Some((item, rest)) => {
                entries.push(item);
                r = rest;
            }
            None => {
                if r.contains("/XGMI)") {
                    return Some(Rec::Rccl("XGMI path"));
                }
                truncated = true;
                break;
            }
        }
    }
    Some(Rec::Path(PathLine { head, entries, truncated }))
}

/// `TYPE/ID (h/bw/type) ` with the trailing space optional at the very end.
fn path_item(s: &str) -> Option<(PathItem<'_>, &str)> {
    let (_, r) = node_id(s)?;
    let to = &s[..s.len() - r.len()];
    let r = r.strip_prefix(" (")?;
    let (hops, r) = nat32(r)?;
    let (bw, bw_decimals, r) = float(r.strip_prefix('/')?)?;
    let r = r.strip_prefix('/')?;
    let n = r.bytes().take_while(|b| b.is_ascii_alphanumeric()).count();
    if n == 0 {
        return None;
    }
    let (kind, r) = r.split_at(n);
    let r = r.strip_prefix(')')?;
    let r = match r.strip_prefix(' ') {
        Some(x) => x,
        None if r.is_empty() => r,
        None => return None,
    };
    Some((PathItem { to, hops, bw, bw_decimals, kind }, r))
}
