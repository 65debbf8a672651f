//! Rings and trees (K10-K14): ring orders, `Ring` neighbours, `Trees` and `Tree` lines,
//! NVLS heads and trees.

use crate::log::record::{Rec, RingOrderLine, TreesItem, TreesLine};
use crate::log::scan::{int, int_list, nat, nat32, sp, sp1};

pub(super) fn ring_order(s: &str) -> Option<RingOrderLine> {
    let (channel, r) = nat32(s)?;
    let (nchannels, r) = nat32(r.strip_prefix('/')?)?;
    let mut r = r.strip_prefix(" :")?;
    let lead = r.len() - sp(r).len();
    let mut order = Vec::new();
    let mut gaps = Vec::new();
    let mut ellipsis = false;
    loop {
        let t = sp(r);
        let gap = r.len() - t.len();
        if t.is_empty() {
            break;
        }
        if t == "..." {
            ellipsis = true;
            break;
        }
        if gap == 0 {
            // `...` can follow a cut number directly.
            if t.ends_with("...") && t[..t.len() - 3].bytes().all(|b| b.is_ascii_digit()) {
                ellipsis = true;
                break;
            }
            return None;
        }
        let (v, x) = nat(t)?;
        order.push(i64::try_from(v).ok()?);
        gaps.push(gap);
        r = x;
    }
    if order.is_empty() {
        return None;
    }
    // 2.5-2.22: `Channel NN/MM :` then ` %3d` at 4-byte steps: rank 0 (always first)
    // stands after 4 spaces and the next rank below 1000 after 3.
    let padded = lead == 4 && gaps.get(1).is_none_or(|&g| g <= 3);
    Some(RingOrderLine { channel, nchannels, order, padded, ellipsis })
}

pub(super) fn ring_link(s: &str) -> Option<Rec<'_>> {
    let (channel, r) = nat32(s)?;
    let (prev, r) = int(r.strip_prefix(" : ")?)?;
    let (me, r) = nat32(r.strip_prefix(" -> ")?)?;
    let (next, r) = int(r.strip_prefix(" -> ")?)?;
    r.is_empty().then_some(Rec::RingLink { channel, prev, me, next })
}

/// Pre-2.5 `Ring 00 : 34 -> 33 [send] via NET/Socket/0`.
pub(super) fn old_ring(s: &str) -> Option<Rec<'_>> {
    let (_, r) = nat32(s)?;
    let (_, r) = int(r.strip_prefix(" : ")?)?;
    let (_, r) = int(r.strip_prefix(" -> ")?)?;
    (r.starts_with(" [send] via ") || r.starts_with(" [receive] via ") || r.starts_with(" via "))
        .then_some(Rec::Old("ring connection without bus ids"))
}

fn three(s: &str) -> Option<([i64; 3], &str)> {
    let (a, r) = int(s)?;
    let (b, r) = int(r.strip_prefix('/')?)?;
    let (c, r) = int(r.strip_prefix('/')?)?;
    Some(([a, b, c], r))
}

pub(super) fn trees(s: &str) -> Option<Rec<'_>> {
    let mut items = Vec::new();
    let mut r = s;
    let mut truncated = false;
    loop {
        if r.is_empty() {
            break;
        }
        match trees_item(r) {
            Some((it, rest)) => {
                items.push(it);
                r = rest;
            }
            None => {
                if items.is_empty() && old_trees_item(r) {
                    return Some(Rec::Old("Trees line up->me->down"));
                }
                if r.contains(" comm 0x") {
                    return None;
                }
                // A cut item: only the start of ` [c] ...` or of its numbers may remain.
                truncated = true;
                break;
            }
        }
    }
    // 2.5-2.7 print both trees of a channel in each item (`a/b/c->r->p|p->r->a/b/c`): an
    // item without its `|` half after items with one was cut at the end of NCCL's
    // 1023-byte record.
    if items.len() > 1 && items.last().is_some_and(|it| it.dn.is_none()) && items.iter().any(|it| it.dn.is_some()) {
        items.pop();
        truncated = true;
    }
    if items.is_empty() && !truncated {
        return None;
    }
    if items.is_empty() && !r.starts_with(" [") && !r.starts_with(' ') {
        return None;
    }
    Some(Rec::Trees(TreesLine { items, truncated }))
}

fn trees_item(s: &str) -> Option<(TreesItem, &str)> {
    let (channel, r) = nat32(s.strip_prefix(" [")?)?;
    let r = r.strip_prefix("] ")?;
    let (down, r) = three(r)?;
    let (me, r) = nat32(r.strip_prefix("->")?)?;
    let (up, r) = int(r.strip_prefix("->")?)?;
    let mut item = TreesItem { channel, me, up, down, dn: None };
    if let Some(x) = r.strip_prefix('|') {
        let (dn_up, x) = int(x)?;
        let (me2, x) = nat32(x.strip_prefix("->")?)?;
        let (dn_down, x) = three(x.strip_prefix("->")?)?;
        if me2 != me {
            return None;
        }
        item.dn = Some((dn_up, dn_down));
        return Some((item, x));
    }
    // The item ends at the next item or at the end.
    if r.is_empty() || r.starts_with(" [") { Some((item, r)) } else { None }
}

/// Pre-2.5 ` [0] 26->25->-1/-1/-1`.
fn old_trees_item(s: &str) -> bool {
    (|| {
        let (_, r) = nat32(s.strip_prefix(" [")?)?;
        let (_, r) = int(r.strip_prefix("] ")?)?;
        let (_, r) = nat32(r.strip_prefix("->")?)?;
        let (_, r) = three(r.strip_prefix("->")?)?;
        Some(r.is_empty() || r.starts_with(" ["))
    })()
    .unwrap_or(false)
}

pub(super) fn tree(s: &str) -> Option<Rec<'_>> {
    let (channel, r) = nat32(s)?;
    let (up, r) = int(r.strip_prefix(" : ")?)?;
    let (me, r) = nat32(r.strip_prefix(" -> ")?)?;
    let (down, r) = three(r.strip_prefix(" -> ")?)?;
    r.is_empty().then_some(Rec::Tree { channel, up, me, down })
}

pub(super) fn nvls_head(s: &str) -> Option<Rec<'_>> {
    let (channel, r) = nat32(sp1(s)?)?;
    let mut r = r.strip_prefix(':')?;
    let mut heads = Vec::new();
    while !r.is_empty() {
        let (v, x) = int(sp1(r)?)?;
        heads.push(v);
        r = x;
    }
    Some(Rec::NvlsHead { channel, heads })
}

pub(super) fn nvls_trees(s: &str) -> Option<Rec<'_>> {
    // Channels 0 and 1: `d/d[/d]->me->up` each.
    let mut three_children = None;
    let mut items = [([-1i64; 3], 0u32, -1i64); 2];
    let mut r = s;
    for (i, item) in items.iter_mut().enumerate() {
        if i == 1 {
            r = r.strip_prefix(' ')?;
        }
        let mut v = Vec::new();
        r = int_list(r, &mut v)?;
        let (me, x) = nat32(r.strip_prefix("->")?)?;
        let (up, x) = int(x.strip_prefix("->")?)?;
        r = x;
        let is3 = match v.len() {
            2 => false,
            3 => true,
            _ => return None,
        };
        if *three_children.get_or_insert(is3) != is3 {
            return None;
        }
        for (k, d) in v.iter().enumerate() {
            item.0[k] = *d;
        }
        item.1 = me;
        item.2 = up;
    }
    r.is_empty().then_some(Rec::NvlsTrees { three: three_children?, items })
}
