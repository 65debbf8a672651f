//! Connections (K15-K16): transport connections between ranks (`Channel 00/0 : 0[0] ->
//! 1[1] via P2P/IPC`, CollNet lines) and the `Connected all ...` marks.

use crate::log::record::{Conn, Rec};
use crate::log::scan::{hex, int, nat, nat32};

pub(super) fn conn(msg: &str) -> Option<Rec<'_>> {
    let (ring_word, s) = match msg.strip_prefix("Ring ") {
        Some(r) => (true, r),
        None => (false, msg.strip_prefix("Channel ")?),
    };
    let (channel, mut r) = nat32(s)?;
    let mut c = Conn { ring_word, channel, ..Conn::default() };
    if let Some(x) = r.strip_prefix('/') {
        let (v, x) = nat32(x)?;
        c.conn = Some(v);
        r = x;
    }
    let (from, r) = int(r.strip_prefix(" : ")?)?;
    let r = r.strip_prefix('[')?;
    let end = r.find(']')?;
    let (from_id, r) = r.split_at(end);
    let (to, r) = int(r.strip_prefix("] -> ")?)?;
    let r = r.strip_prefix('[')?;
    let end = r.find(']')?;
    let (to_id, mut r) = r.split_at(end);
    r = &r[1..];
    let hexy = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit());
    if !hexy(from_id) || !hexy(to_id) {
        return None;
    }
    c.from = from;
    c.to = to;
    c.from_id = from_id;
    c.to_id = to_id;
    if let Some(x) = r.strip_prefix(" [send]") {
        c.side = Some("send");
        r = x;
    } else if let Some(x) = r.strip_prefix(" [receive]") {
        c.side = Some("receive");
        r = x;
    }
    via(r.strip_prefix(" via ")?, &mut c)?;
    Some(Rec::Conn(c))
}

/// The transport after ` via `; fills `c` and checks the text ends.
fn via<'a>(s: &'a str, c: &mut Conn<'a>) -> Option<()> {
    if let Some(r) = s.strip_prefix("P2P/") {
        c.transport = "P2P";
        let modes = ["IPC", "CUMEM", "MNNVL", "direct pointer", "common device"];
        let mut r = if let Some(x) = r.strip_prefix("indirect/") {
            c.mode = "indirect";
            let (_, x) = nat(x)?;
            let x = x.strip_prefix('[')?;
            let (_, x) = hex(x)?;
            x.strip_prefix(']')?
        } else {
            let m = modes.iter().find(|m| r.starts_with(**m))?;
            c.mode = &r[..m.len()];
            &r[m.len()..]
        };
        loop {
            if let Some(x) = r.strip_prefix("/read") {
                c.read = true;
                r = x;
            } else if let Some(x) = r.strip_prefix("/CE") {
                c.ce = true;
                r = x;
            } else {
                break;
            }
        }
        return r.is_empty().then_some(());
    }
    if let Some(r) = s.strip_prefix("SHM/") {
        c.transport = "SHM";
        let side = |x: &'a str| x.strip_prefix("direct").or_else(|| x.strip_prefix("CE"));
        let r1 = side(r)?;
        if r1.is_empty() {
            c.mode = r;
            c.shm_one = true;
            return Some(());
        }
        let r2 = side(r1.strip_prefix('/')?)?;
        c.mode = r;
        c.ce = r.contains("CE");
        return r2.is_empty().then_some(());
    }
    if s == "direct shared memory" {
        c.transport = "SHM";
        c.mode = s;
        return Some(());
    }
    let r = s.strip_prefix("NET/")?;
    c.transport = "NET";
    // Parse from the right: `/dev` `(proxy)`? `/GDRDMA`? `(PCI)`? `/Shared`?
    let mut t = r;
    if let Some(x) = t.strip_suffix("/Shared") {
        c.shared = true;
        t = x;
    }
    if let Some(x) = t.strip_suffix("(PCI)") {
        c.gdr_pci = true;
        t = x;
    }
    if let Some(x) = t.strip_suffix("/GDRDMA") {
        c.gdr = true;
        t = x;
    }
    if let Some(x) = t.strip_suffix(')') {
        let open = x.rfind('(')?;
        let (v, rest) = int(&x[open + 1..])?;
        if !rest.is_empty() {
            return None;
        }
        c.proxy = Some(v);
        t = &x[..open];
    }
    let slash = t.rfind('/')?;
    let (dev, rest) = nat32(&t[slash + 1..])?;
    if !rest.is_empty() || slash == 0 {
        return None;
    }
    c.net_dev = Some(dev);
    c.mode = &t[..slash];
    Some(())
}

/// `Coll 00 : 3 [send] via COLLNET/SHARP/0` (2.6-2.8), `CollNet 00[/c] : ...` (2.9+).
pub(super) fn collnet(msg: &str) -> Option<Rec<'_>> {
    let s = msg.strip_prefix("CollNet ").or_else(|| msg.strip_prefix("Coll "))?;
    let (channel, mut r) = nat32(s)?;
    let mut c = Conn { channel, transport: "COLLNET", to: -1, ..Conn::default() };
    if let Some(x) = r.strip_prefix('/') {
        let (v, x) = nat32(x)?;
        c.conn = Some(v);
        r = x;
    }
    let (rank, r) = int(r.strip_prefix(" : ")?)?;
    c.from = rank;
    let r = if let Some(x) = r.strip_prefix(" [send]") {
        c.side = Some("send");
        x
    } else {
        c.side = Some("receive");
        r.strip_prefix(" [receive]")?
    };
    let mut t = r.strip_prefix(" via COLLNET/")?;
    if let Some(x) = t.strip_suffix("(PCI)") {
        c.gdr_pci = true;
        t = x;
    }
    if let Some(x) = t.strip_suffix("/GDRDMA") {
        c.gdr = true;
        t = x;
    }
    let slash = t.rfind('/')?;
    let (dev, rest) = nat32(&t[slash + 1..])?;
    if !rest.is_empty() {
        return None;
    }
    c.net_dev = Some(dev);
    c.mode = &t[..slash];
    Some(Rec::Conn(c))
}

pub(super) fn connected(r: &str) -> Option<Rec<'_>> {
    if let Some(x) = r.strip_prefix("all rings") {
        if x.is_empty() {
            return Some(Rec::Connected { what: "rings", pxn: None, gdr: None });
        }
        let (pxn, x) = int(x.strip_prefix(", use ring PXN ")?)?;
        let (gdr, x) = int(x.strip_prefix(" GDR ")?)?;
        return x.is_empty().then_some(Rec::Connected { what: "rings", pxn: Some(pxn), gdr: Some(gdr) });
    }
    let what = match r {
        "all trees" => "trees",
        "NVLS tree" => "nvls_tree",
        "collnet + chain" => "collnet_chain",
        _ if r.starts_with("Collnet Chains") => "collnet_chain",
        _ => return None,
    };
    Some(Rec::Connected { what, pxn: None, gdr: None })
}
