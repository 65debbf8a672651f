//! Rings and trees (K10-K14 records): ring orders, ring neighbours, `Trees`/`Tree` lines
//! and NVLS heads and trees become ring and tree facts.

use super::sink::Pending;
use super::state::{Assembler, Outcome};
use crate::log::facts::*;
use crate::log::record::{RingOrderLine, TreesLine};
use crate::log::version::Fp;

impl Assembler {
    pub(super) fn ring_order(&mut self, si: usize, o: RingOrderLine) -> Outcome {
        self.ev.see(if o.padded { Fp::OrderPadded } else { Fp::OrderMinimal });
        // Only rank 0 prints ring orders.
        self.streams[si].hint.get_or_insert(0);
        let truncated = o.ellipsis || (o.padded && o.order.len() >= 20);
        let x =
            RingOrder { comm: None, rank: None, channel: o.channel, nchannels: o.nchannels, order: o.order, truncated };
        self.attribute(si, Pending::Order(x));
        Outcome::Read
    }

    pub(super) fn ring_link(&mut self, si: usize, channel: u32, prev: i64, me: u32, next: i64) -> Outcome {
        self.ev.see(Fp::RingInfo);
        self.streams[si].hint = Some(me);
        self.own_ranked(si, Pending::Link(RingLink { comm: None, rank: me, channel, prev, next }));
        Outcome::Read
    }

    pub(super) fn trees(&mut self, si: usize, t: TreesLine, near_limit: bool) -> Outcome {
        if let Some(first) = t.items.first() {
            self.streams[si].hint = Some(first.me);
            self.ev.see(if first.dn.is_some() { Fp::TreesDouble } else { Fp::TreesSingle });
        }
        for it in &t.items {
            let x = TreeLink {
                comm: None,
                rank: it.me,
                channel: it.channel,
                up: it.up,
                down: it.down,
                dn_up: it.dn.map(|d| d.0),
                dn_down: it.dn.map(|d| d.1),
                source: TreeSource::Trees,
            };
            self.own_ranked(si, Pending::Tree(x));
        }
        if t.truncated || near_limit {
            self.sink.f.lines.truncated += 1;
        }
        Outcome::Read
    }

    pub(super) fn tree(&mut self, si: usize, channel: u32, up: i64, me: u32, down: [i64; 3]) -> Outcome {
        self.ev.see(Fp::TreeGraph);
        self.streams[si].hint = Some(me);
        let x =
            TreeLink { comm: None, rank: me, channel, up, down, dn_up: None, dn_down: None, source: TreeSource::Tree };
        self.own_ranked(si, Pending::Tree(x));
        Outcome::Read
    }

    pub(super) fn nvls_head(&mut self, si: usize, channel: u32, heads: Vec<i64>) -> Outcome {
        self.ev.see(Fp::NvlsHead);
        self.attribute(si, Pending::Head(NvlsHead { comm: None, rank: None, channel, heads }));
        Outcome::Read
    }

    pub(super) fn nvls_trees(&mut self, si: usize, three: bool, items: [([i64; 3], u32, i64); 2]) -> Outcome {
        self.ev.see(if three { Fp::NvlsTrees3 } else { Fp::NvlsTrees2 });
        for (c, (down, me, up)) in items.iter().enumerate() {
            self.streams[si].hint = Some(*me);
            let x = TreeLink {
                comm: None,
                rank: *me,
                channel: c as u32,
                up: *up,
                down: *down,
                dn_up: None,
                dn_down: None,
                source: TreeSource::Nvls,
            };
            self.own_ranked(si, Pending::Tree(x));
        }
        Outcome::Read
    }
}
