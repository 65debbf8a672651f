//! Graphs (K8-K9): the `Pattern ...` line of a searched graph and its channel lines.

use crate::log::record::{GraphChannelLine, Pattern, Rec};
use crate::log::scan::{find, float, int, nat32, sp, word};

pub(super) fn pattern(s: &str) -> Option<Rec<'_>> {
    let (pat, r) = int(s)?;
    let (crossnic, r) = int(r.strip_prefix(", crossNic ")?)?;
    let (nchannels, r) = nat32(r.strip_prefix(", nChannels ")?)?;
    let (speed, r) =
        if let Some(x) = r.strip_prefix(", speed ") { (true, x) } else { (false, r.strip_prefix(", bw ")?) };
    let (bw_intra, d1, r) = float(r)?;
    let (bw_inter, d2, r) = float(r.strip_prefix('/')?)?;
    let mut nvlink = None;
    let mut r = r;
    if let Some(x) = r.strip_prefix(", nvlink ") {
        let (v, x) = int(x)?;
        nvlink = Some(v);
        r = x;
    }
    let r = r.strip_prefix(", type ")?;
    let end = find(r, ", sameChannels ")?;
    let (types, r) = r.split_at(end);
    let (type_intra, type_inter) = match types.split_once('/') {
        Some((a, b)) => (a, b),
        None => (types, types),
    };
    let ok = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric());
    if !ok(type_intra) || !ok(type_inter) {
        return None;
    }
    let (same_channels, r) = int(&r[", sameChannels ".len()..])?;
    if !r.is_empty() {
        return None;
    }
    if type_intra == "XGMI" || type_inter == "XGMI" {
        return Some(Rec::Rccl("XGMI graph"));
    }
    Some(Rec::Pattern(Pattern {
        pattern: pat,
        crossnic,
        nchannels,
        speed,
        float: d1 > 0 || d2 > 0,
        bw_intra,
        bw_inter,
        nvlink,
        type_intra,
        type_inter,
        same_channels,
    }))
}

pub(super) fn graph_channel(msg: &str) -> Option<GraphChannelLine<'_>> {
    let (channel, mut r) = nat32(sp(msg))?;
    r = r.strip_prefix(" :")?;
    let mut items = Vec::new();
    while !r.is_empty() {
        let x = r.strip_prefix(' ')?;
        let (net, x) = if let Some(y) = x.strip_prefix("NET/") { (true, y) } else { (false, x.strip_prefix("GPU/")?) };
        let (id, rest) = word(x);
        let valid = !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
        if !valid {
            return None;
        }
        items.push((net, id));
        r = rest;
    }
    if items.is_empty() {
        return None;
    }
    Some(GraphChannelLine { channel, items })
}
