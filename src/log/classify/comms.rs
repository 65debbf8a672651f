//! Communicators (K1-K3): the version line, `Init START`/`COMPLETE` and the
//! `comm ... nNodes` line.

use crate::log::record::{CliqueRec, FabricRec, Init, InitPhase, Nodes, RackRec, Rec, VersionLine};
use crate::log::scan::{hex, ident, int, nat, nat32, ptr};

pub(super) fn version(s: &str) -> Option<VersionLine<'_>> {
    let (major, r) = nat32(s)?;
    let (minor, r) = nat32(r.strip_prefix('.')?)?;
    let (patch, r) = nat32(r.strip_prefix('.')?)?;
    let end = r.find(['+', ' ', '\t']).unwrap_or(r.len());
    let (suffix, r) = r.split_at(end);
    let cuda = match r.strip_prefix("+cuda") {
        Some(c) => {
            let (_, x) = nat(c)?;
            let (_, x) = nat(x.strip_prefix('.')?)?;
            if !x.is_empty() {
                return None;
            }
            Some(c)
        }
        None if r.is_empty() => None,
        None => return None,
    };
    if major != 2 {
        return None;
    }
    Some(VersionLine { major, minor, patch, suffix, cuda })
}

/// Parse the text after `NCCL version ` (shared with the bare-line reader).
pub(crate) fn version_text(s: &str) -> Option<VersionLine<'_>> {
    version(s)
}

// ---------------------------------------------------------------------------------------
// K2 / K3

pub(super) fn init(msg: &str) -> Option<Rec<'_>> {
    let mut s = msg;
    let mut rank_prefix = None;
    if let Some(r) = s.strip_prefix("[Rank ") {
        let (v, r) = nat32(r)?;
        s = r.strip_prefix("] ")?;
        rank_prefix = Some(v);
    }
    let mut func = None;
    if !s.starts_with("comm ") {
        let (f, r) = ident(s)?;
        if !f.starts_with("nccl") {
            return None;
        }
        func = Some(f);
        s = r.strip_prefix(' ')?;
    }
    let (p, r) = ptr(s.strip_prefix("comm ")?)?;
    let (rank, r) = nat32(r.strip_prefix(" rank ")?)?;
    let (nranks, r) = nat32(r.strip_prefix(" nranks ")?)?;
    let (cuda_dev, mut r) = nat32(r.strip_prefix(" cudaDev ")?)?;
    let mut nvml_dev = None;
    if let Some(x) = r.strip_prefix(" nvmlDev ") {
        let (v, x) = nat32(x)?;
        nvml_dev = Some(v);
        r = x;
        if r == " - Init COMPLETE" {
            return Some(Rec::Old("comm line without busId"));
        }
    }
    let (bus_id, mut r) = hex(r.strip_prefix(" busId ")?)?;
    let (mut parent, mut split_count, mut color) = (None, None, None);
    if let Some(x) = r.strip_prefix(" parent ") {
        let (p, mut x) = ptr(x)?;
        parent = Some(p);
        if let Some(y) = x.strip_prefix(" splitCount ").or_else(|| x.strip_prefix(" childCount ")) {
            let (n, y) = nat(y)?;
            split_count = Some(n);
            x = y;
        }
        let (c, x) = int(x.strip_prefix(" color ")?)?;
        color = Some(c);
        let (_, x) = int(x.strip_prefix(" key ")?)?;
        r = x;
    }
    let mut comm_id = None;
    if let Some(x) = r.strip_prefix(" commId 0x") {
        let (v, x) = hex(x)?;
        comm_id = Some(v);
        r = x;
    }
    let r = r.strip_prefix(' ').unwrap_or(r);
    let phase = match r.strip_prefix("- ")? {
        "Init START" => InitPhase::Start,
        "Init COMPLETE" => InitPhase::Complete,
        "Abort COMPLETE" | "Destroy COMPLETE" => return Some(Rec::CommEnd),
        _ => return None,
    };
    Some(Rec::Init(Init {
        rank_prefix,
        func,
        ptr: p,
        rank,
        nranks,
        cuda_dev,
        nvml_dev,
        bus_id,
        parent,
        split_count,
        color,
        comm_id,
        phase,
    }))
}

pub(super) fn nodes(msg: &str) -> Option<Nodes> {
    let (p, r) = ptr(msg.strip_prefix("comm ")?)?;
    let (rank, r) = nat32(r.strip_prefix(" rank ")?)?;
    let (nranks, r) = nat32(r.strip_prefix(" nRanks ")?)?;
    let (nnodes, r) = nat32(r.strip_prefix(" nNodes ")?)?;
    let (local_ranks, r) = nat32(r.strip_prefix(" localRanks ")?)?;
    let (local_rank, r) = nat32(r.strip_prefix(" localRank ")?)?;
    let (mnnvl, r) = nat32(r.strip_prefix(" MNNVL ")?)?;
    r.is_empty().then_some(Nodes { ptr: p, rank, nranks, nnodes, local_ranks, local_rank, mnnvl })
}

/// `MNNVL busId 0x%lx fabric UUID %lx.%lx cliqueId 0x%x state %d healthMask 0x%x`
/// (init.cc) or `MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d[ nvlDomainSize %d]`
/// (mnnvl.cc; a trailing space in 2.21-2.24).
pub(super) fn mnnvl(msg: &str) -> Option<Rec<'_>> {
    let r = msg.strip_prefix("MNNVL ")?;
    if let Some(r) = r.strip_prefix("rack serial ") {
        // `%s` may hold spaces: the serial ends at the last ` slot `.
        let at = r.rfind(" slot ")?;
        let (serial, r) = (&r[..at], &r[at..]);
        let (slot, r) = nat32(r.strip_prefix(" slot ")?)?;
        let (tray, r) = nat32(r.strip_prefix(" tray ")?)?;
        let (host_id, r) = nat32(r.strip_prefix(" hostId ")?)?;
        let (_peer, r) = nat32(r.strip_prefix(" peerType ")?)?;
        let (module_id, r) = nat32(r.strip_prefix(" moduleId ")?)?;
        return r.is_empty().then_some(Rec::RackSerial(RackRec { serial, slot, tray, host_id, module_id }));
    }
    if let Some(r) = r.strip_prefix("busId ") {
        let (bus_id, r) = ptr(r)?;
        let (lo, r) = hex(r.strip_prefix(" fabric UUID ")?)?;
        let (hi, r) = hex(r.strip_prefix('.')?)?;
        let (clique_id, r) = ptr(r.strip_prefix(" cliqueId ")?)?;
        let (state, r) = nat32(r.strip_prefix(" state ")?)?;
        let (health_mask, r) = ptr(r.strip_prefix(" healthMask ")?)?;
        return r.is_empty().then_some(Rec::Fabric(FabricRec {
            bus_id,
            uuid: (lo, hi),
            clique_id: u32::try_from(clique_id).ok()?,
            state,
            health_mask: u32::try_from(health_mask).ok()?,
        }));
    }
    let (mnnvl, r) = nat32(r)?;
    let (clique_id, r) = hex(r.strip_prefix(" cliqueId ")?)?;
    let (size, r) = nat32(r.strip_prefix(" cliqueSize ")?)?;
    let (rank, r) = nat32(r.strip_prefix(" cliqueRank ")?)?;
    let (nvl_domain, r) = match r.strip_prefix(" nvlDomainSize ") {
        Some(r) => {
            let (d, r) = nat32(r)?;
            (Some(d), r)
        }
        None => (None, r),
    };
    (r.is_empty() || r == " ").then_some(Rec::Clique(CliqueRec {
        mnnvl,
        clique_id: u32::try_from(clique_id).ok()?,
        size,
        rank,
        nvl_domain,
    }))
}
