//! The links' remaining bandwidth while the search runs, and the arithmetic of
//! reserving and releasing it. The search sees one interface, [`LinkBw`], with two
//! bookkeepings behind it; this note is the one statement of their law (the other doc
//! comments of this module point here).
//!
//! NCCL keeps each link's bandwidth as a float and, after every reservation or
//! release, rounds it to a thousandth (`roundf((a - b) * 1000) / 1000`). The search is
//! deterministic only if we do exactly the same, so [`Rounded`] performs that float
//! arithmetic bit for bit.
//!
//! **The law.** [`Milli`] is a faster bookkeeping that gives the same bits whenever
//! every value involved is a whole number of thousandths of moderate size, which is the
//! normal case: link bandwidths and the search's speed ladders are all such numbers. Let
//! `a = fl(A/1000)` and `b = fl(B/1000)` for integers `A` and `B` (`fl`: the nearest
//! float). The float `(a - b) * 1000` then differs from the integer `A - B` by at most
//! `3 (|A| + |B|) 2^-24`, which is below one half while `|a| + |b| < 2796`; so the
//! rounding gives `A - B` exactly and the division gives `fl((A - B)/1000)`. In other
//! words NCCL's float arithmetic on such values *is* integer arithmetic on thousandths,
//! comparisons included (distinct thousandths below 8192 are distinct floats), and a
//! reservation released at once gives every link its value back. [`Milli`] keeps the
//! integers; values are limited to `LIMIT` (1024) so that the sums stay far inside the
//! bound.
//!
//! **Large links** (NCCL's 5000 GB/s loopbacks between a GPU and its PCI device, say),
//! from `BIG_MIN` to `BIG_END` (4096 to 8192 GB/s): floats there are multiples of
//! 2^-11, so for an amount that is a multiple of 1/8 (thousandths divisible by 125: 12,
//! 17.5, 22.5, ...) `a - b` is exact, and `(a - b) * 1000` is within 0.25 (the
//! multiplication) + 0.245 (`a`'s own rounding) of the integer: NCCL's rounding gives
//! the integer back. Such a link stays in thousandths while every step on it is of that
//! kind and stays in the range; the first other step turns it into a float link for
//! good.
//!
//! **Everything else**: links of any other value are kept as floats with NCCL's
//! rounding. When [`Milli`] meets an amount it cannot represent (like `bw / 7`), it
//! says so through [`LinkBw::exact`] and the caller runs the search again with
//! [`Rounded`] (`search::compute`).

use crate::search::links::{NONE, PlanHop};

/// In [`Plan::links`]: the hop pays the PCI surcharge (link numbers stay below).
pub(crate) const PCI_HOP: u32 = 1 << 31;

/// How much of a plan the bookkeeping has to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlanKind {
    /// Not made yet.
    Unmade,
    /// No hop with a surcharge or a reverse link: the link numbers say it all.
    Plain,
    /// Some PCI hops pay the surcharge; no reverse links.
    Surcharged,
    /// Reverse links too, or a link met twice: followed hop by hop.
    General,
}

/// The hops of one path, as the bookkeeping charges them.
#[derive(Clone, Copy)]
pub(crate) struct Plan<'p> {
    pub kind: PlanKind,
    /// Where the plan starts among all plans' hops (a key for per-plan memory).
    pub start: usize,
    /// Each hop's link number, with [`PCI_HOP`] set on hops that pay the surcharge.
    pub links: &'p [u32],
    pub hops: &'p [PlanHop],
}

/// Link bandwidths under reservation: the search's one interface to a bookkeeping
/// ([`Rounded`] or [`Milli`]; their law is in the module doc).
pub(crate) trait LinkBw {
    fn new(bw: &[f32]) -> Self;
    /// A plan was made (its hops start at `start` among all plans' hops).
    fn plan_made(&mut self, start: usize, hops: &[PlanHop]);
    /// Reserve `bw` (release, when negative) on all hops of `plan` as NCCL's
    /// `followPath` does; when a hop lacks it, undo the hops before, as NCCL does.
    fn reserve(&mut self, plan: Plan<'_>, bw: f32) -> bool;
    /// `min(up, down)` truncated to an integer, as NCCL's GPU sort reads a GPU's PCI
    /// bandwidth.
    fn pci_bw(&self, up: u32, down: u32) -> i32;
    /// The bandwidth of link `l` now.
    fn value(&self, l: usize) -> f32;
    /// Whether a reservation on link `l` given back always restores its value.
    fn restores(&self, l: u32) -> bool;
    /// Whether everything so far was followed with NCCL's exact results.
    fn exact(&self) -> bool;
}

/// `roundf` without the libm call. From 2^23 up every float is an integer (and NaN and
/// infinities round to themselves); below, add the float just below one half (with x's
/// sign) and truncate. Checked against `f32::round` bit for bit on all 2^32 floats (and
/// in the tests on random ones), signed zeros included.
#[inline]
pub(crate) fn round_half_away(x: f32) -> f32 {
    if x.is_nan() || x.abs() >= 8_388_608.0 {
        return x;
    }
    let t = (x + 0.499_999_97f32.copysign(x)) as i32 as f32;
    if t == 0.0 { 0.0f32.copysign(x) } else { t }
}

/// NCCL's `followPath` on a plan of `n` hops, given a bookkeeping's `follow(steps,
/// bw)` (which charges `bw` on the first `steps` hops and returns how many it could):
/// all hops, or, when one lacks `bw`, the hops before it given back.
#[inline]
fn hop_by_hop(n: usize, bw: f32, mut follow: impl FnMut(usize, f32) -> usize) -> bool {
    let step = follow(n, bw);
    if step < n {
        follow(step, -bw);
        return false;
    }
    true
}

/// NCCL's reservation arithmetic: `a - b` rounded to a thousandth.
#[inline]
pub(crate) fn sub_rounded(a: f32, b: f32) -> f32 {
    round_half_away((a - b) * 1000.0f32) / 1000.0f32
}

fn sub_round(a: &mut f32, b: f32) {
    *a = sub_rounded(*a, b);
}

/// Remembered results of [`sub_rounded`] (and of a reservation released at once),
/// keyed by the operands' bits. The search keeps meeting the same few link values and
/// bandwidths, and a table look-up is much shorter than the rounding's chain of
/// dependent float operations (a division among them). The values are the function's
/// own, so nothing changes but the time.
pub(crate) struct RoundMemo {
    /// `(a bits | b bits << 32, result)`, direct-mapped.
    sub: Box<[(u64, f32)]>,
    /// The same for `sub_rounded(sub_rounded(a, b), -b)`.
    back: Box<[(u64, f32)]>,
}

const MEMO_BITS: u32 = 10;

impl RoundMemo {
    pub(crate) fn new() -> RoundMemo {
        // Every slot starts as the true entry for (0, 0), whose result is 0 both ways.
        let empty = vec![(0u64, 0.0f32); 1 << MEMO_BITS].into_boxed_slice();
        debug_assert_eq!(sub_rounded(0.0, 0.0).to_bits(), 0);
        RoundMemo { sub: empty.clone(), back: empty }
    }

    /// `f(a, b)` from `table`, computed and kept there on a miss.
    #[inline]
    fn cached(table: &mut [(u64, f32)], a: f32, b: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
        let k = a.to_bits() as u64 | (b.to_bits() as u64) << 32;
        let slot = &mut table[(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - MEMO_BITS)) as usize];
        if slot.0 != k {
            *slot = (k, f(a, b));
        }
        slot.1
    }

    /// `sub_rounded(a, b)`.
    #[inline]
    pub(crate) fn sub(&mut self, a: f32, b: f32) -> f32 {
        Self::cached(&mut self.sub, a, b, sub_rounded)
    }

    /// `sub_rounded(sub_rounded(a, b), -b)`: reserved, then released.
    #[inline]
    pub(crate) fn back(&mut self, a: f32, b: f32) -> f32 {
        Self::cached(&mut self.back, a, b, |a, b| sub_rounded(sub_rounded(a, b), -b))
    }
}

/// NCCL's float arithmetic, bit for bit.
pub(crate) struct Rounded {
    bw: Vec<f32>,
    memo: RoundMemo,
    /// Per link, the (value bits, bw bits) last seen to come back unchanged from a
    /// reservation released at once (see `release_unused`); 0 matches no positive bw.
    round_trip: Vec<u64>,
}

impl Rounded {
    /// Reserve (or, with a negative bw, release) bandwidth along the first `max_steps`
    /// hops of a plan; returns how many hops succeeded.
    fn follow(&mut self, p: Plan<'_>, max_steps: usize, bw: f32) -> usize {
        let lbw = &mut self.bw[..];
        if p.kind == PlanKind::Plain {
            for (step, &l) in p.links[..max_steps].iter().enumerate() {
                let cur = lbw[l as usize];
                if cur < bw {
                    return step;
                }
                lbw[l as usize] = self.memo.sub(cur, bw);
            }
            return max_steps;
        }
        let pci_bw = bw * 6.0 / 5.0;
        if p.kind == PlanKind::Surcharged {
            let amounts = [bw, pci_bw];
            for (step, hop) in p.hops[..max_steps].iter().enumerate() {
                let fw = amounts[hop.pci as usize];
                let cur = lbw[hop.link as usize];
                if cur < fw {
                    return step;
                }
                lbw[hop.link as usize] = self.memo.sub(cur, fw);
            }
            return max_steps;
        }
        for (step, hop) in p.hops[..max_steps].iter().enumerate() {
            let (fw, rev_bw) = hop.amounts(bw, pci_bw);
            let rev_ok = rev_bw == 0.0 || lbw[hop.rev as usize] >= rev_bw;
            let cur = lbw[hop.link as usize];
            if cur < fw || !rev_ok {
                return step;
            }
            lbw[hop.link as usize] = self.memo.sub(cur, fw);
            if rev_bw != 0.0 {
                sub_round(&mut lbw[hop.rev as usize], rev_bw);
            }
        }
        max_steps
    }

    /// Link `l` reserved by `bw` and released again at once: NCCL's two roundings.
    /// Most of the time they give the link's value back; `round_trip[l]` remembers the
    /// last (value, bw) operand bits for which they did, so that case costs one compare
    /// (no hashing, no write). Otherwise the memo gives the result, written when it
    /// differs.
    #[inline]
    fn release_unused(memo: &mut RoundMemo, round_trip: &mut [u64], lbw: &mut [f32], l: u32, bw: f32) {
        let cur = lbw[l as usize];
        let key = cur.to_bits() as u64 | (bw.to_bits() as u64) << 32;
        if round_trip[l as usize] == key {
            return;
        }
        let back = memo.back(cur, bw);
        if back.to_bits() != cur.to_bits() {
            lbw[l as usize] = back;
        } else {
            round_trip[l as usize] = key;
        }
    }
}

impl LinkBw for Rounded {
    fn new(bw: &[f32]) -> Rounded {
        Rounded { bw: bw.to_vec(), memo: RoundMemo::new(), round_trip: vec![0; bw.len()] }
    }

    fn plan_made(&mut self, _start: usize, _hops: &[PlanHop]) {}

    /// Plans without reverse links and with distinct links (the only kinds made
    /// `Plain` or `Surcharged`) touch each link once, so whether a hop fails depends
    /// only on the bandwidth before the call: look for the failing hop first, then
    /// apply both roundings (reserve, release) to the hops before it in one go, and
    /// write a link back only when the two roundings changed it. Without the write,
    /// later reads of the link do not wait on the arithmetic. Same operations on the
    /// same values as reserving and releasing hop by hop, hence the same bits.
    #[inline]
    fn reserve(&mut self, p: Plan<'_>, bw: f32) -> bool {
        let n = p.links.len();
        // A release (bw <= 0) or NaN keeps the step-by-step code; so do plans with
        // reverse links.
        if bw.is_nan() || bw <= 0.0 || p.kind == PlanKind::General {
            return hop_by_hop(n, bw, |steps, bw| self.follow(p, steps, bw));
        }
        let lbw = &mut self.bw[..];
        if p.kind == PlanKind::Plain {
            // One pass: the first hop short of bw, and whether every hop before it
            // is known to come back unchanged from a reservation released at once.
            let bw_key = (bw.to_bits() as u64) << 32;
            let mut clean = true;
            let mut short = None;
            for (i, &l) in p.links.iter().enumerate() {
                let cur = lbw[l as usize];
                if cur < bw {
                    short = Some(i);
                    break;
                }
                clean &= self.round_trip[l as usize] == cur.to_bits() as u64 | bw_key;
            }
            match short {
                Some(_) if clean => false,
                None => {
                    for &l in p.links {
                        lbw[l as usize] = self.memo.sub(lbw[l as usize], bw);
                    }
                    true
                }
                Some(k) => {
                    // cur >= bw > 0 on these hops, so the reserved value is >= 0 and
                    // the release never stops early.
                    for &l in &p.links[..k] {
                        Self::release_unused(&mut self.memo, &mut self.round_trip, lbw, l, bw);
                    }
                    false
                }
            }
        } else {
            // bw * 6 / 5 negated is exactly -bw * 6 / 5, what the release charges.
            let amounts = [bw, bw * 6.0 / 5.0];
            match p.hops.iter().position(|h| lbw[h.link as usize] < amounts[h.pci as usize]) {
                None => {
                    for h in p.hops {
                        let fw = amounts[h.pci as usize];
                        lbw[h.link as usize] = self.memo.sub(lbw[h.link as usize], fw);
                    }
                    true
                }
                Some(k) => {
                    for h in &p.hops[..k] {
                        let fw = amounts[h.pci as usize];
                        Self::release_unused(&mut self.memo, &mut self.round_trip, lbw, h.link, fw);
                    }
                    false
                }
            }
        }
    }

    #[inline]
    fn pci_bw(&self, up: u32, down: u32) -> i32 {
        self.bw[up as usize].min(self.bw[down as usize]) as i32
    }

    fn value(&self, l: usize) -> f32 {
        self.bw[l]
    }

    fn restores(&self, _l: u32) -> bool {
        // NCCL's roundings mostly do, not always.
        false
    }

    fn exact(&self) -> bool {
        true
    }
}

/// Largest magnitude, in bandwidth units, of a link value or amount [`Milli`] keeps in
/// thousandths.
const LIMIT: f32 = 1024.0;
/// The same in thousandths, for values that go down without a check (reverse links).
const LIMIT_MILLI: i32 = 1_024_000;
/// In [`Milli::v`]: this link is kept as a float. Below every amount, so the common
/// case costs one comparison.
const FLOAT: i32 = i32::MIN;
/// The large links' range in thousandths, `[BIG_MIN, BIG_END)` (the module doc's
/// "large links").
const BIG_MIN: i32 = 4_096_000;
const BIG_END: i32 = 8_192_000;

/// `x` as a whole number of thousandths, when `x` is exactly the float nearest one
/// (`|x| <= LIMIT`).
pub(crate) fn to_milli(x: f32) -> Option<i32> {
    if x.is_nan() || x.abs() > LIMIT {
        return None;
    }
    let m = round_half_away(x * 1000.0);
    // -0.0 / 1000 is -0.0: signed zeros convert to 0, as amounts they act alike.
    ((m / 1000.0).to_bits() == x.to_bits()).then_some(m as i32)
}

/// `x` in thousandths when it lies in `[BIG_MIN, BIG_END)` and is exactly the float
/// nearest a thousandth.
fn to_milli_big(x: f32) -> Option<i32> {
    if !(4096.0..8192.0).contains(&x) {
        return None;
    }
    let m = round_half_away(x * 1000.0);
    ((m / 1000.0).to_bits() == x.to_bits()).then_some(m as i32)
}

/// What a plan remembers. A failed reservation leaves links in thousandths as they
/// were, and float links too when their round trip is known to: then checking the hop
/// that failed last time is enough (it mostly fails again).
#[derive(Debug, Clone, Copy)]
struct Hint {
    /// The hop that last lacked bandwidth.
    short: u8,
    /// The first two hops over float links (`u8::MAX`: none), as of `epoch`.
    floats: [u8; 2],
    /// [`Milli::float_epoch`] when `floats` was made.
    epoch: u32,
}

/// NCCL's arithmetic as integers in thousandths (see the module's notes), with the
/// links whose value is no such number (odd capacities, large links after a step
/// that is not provably exact) kept as floats with NCCL's own rounding.
pub(crate) struct Milli {
    /// Thousandths, or [`FLOAT`].
    v: Vec<i32>,
    /// The values of the links kept as floats.
    f: Vec<f32>,
    memo: RoundMemo,
    /// Per float link, the (value bits, bw bits) last seen to come back unchanged from
    /// a reservation released at once (as in [`Rounded`]).
    round_trip: Vec<u64>,
    /// Per plan (by start), see [`Hint`].
    hints: Vec<Hint>,
    /// Amounts already converted, `(bits, thousandths)`, direct-mapped.
    conv: [(u32, i32); 32],
    /// The last bandwidth of each sign and its amounts, plain and surcharged (a NaN
    /// float until made); see `amounts`.
    last: [(u32, [(i32, f32); 2]); 2],
    exact: bool,
    /// No link can go below zero: every value starts at 0 or more and no plan has a
    /// reverse link (the only unchecked charge). Then a release never stops early.
    never_negative: bool,
    /// How many large links have turned into float links (plans' hints then look at
    /// their links again).
    float_epoch: u32,
}

impl Milli {
    /// An amount in thousandths (`exact` drops when it has none).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn amount(&mut self, x: f32) -> i32 {
        let bits = x.to_bits();
        let slot = &mut self.conv[(bits.wrapping_mul(0x9E37_79B9) >> 27) as usize];
        if slot.0 == bits {
            return slot.1;
        }
        match to_milli(x) {
            Some(m) => {
                *slot = (bits, m);
                m
            }
            None => {
                self.exact = false;
                0
            }
        }
    }

    /// Whether link `l` has less than the amount (`m` thousandths, `x` as a float).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn short(&self, l: u32, m: i32, x: f32) -> bool {
        let v = self.v[l as usize];
        // FLOAT is below every amount.
        v < m && (v != FLOAT || self.f[l as usize] < x)
    }

    /// NCCL's step on one link: false when the link has less than the amount, else
    /// the amount is taken (given, when negative).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn take(&mut self, l: u32, m: i32, x: f32) -> bool {
        let v = self.v[l as usize];
        if v >= m {
            self.step(l, v, m, x);
            return true;
        }
        v == FLOAT && self.take_float(l, x)
    }

    /// Take `m` (`x` as a float) from link `l`, which holds `v` thousandths.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn step(&mut self, l: u32, v: i32, m: i32, x: f32) {
        if v >= BIG_MIN {
            self.big_step(l, v, m, x);
        } else {
            self.v[l as usize] = v - m;
        }
    }

    /// [`Milli::step`] on a large link (see [`BIG_MIN`]).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn big_step(&mut self, l: u32, v: i32, m: i32, x: f32) {
        let new = v - m;
        if m % 125 == 0 && (BIG_MIN..BIG_END).contains(&new) {
            self.v[l as usize] = new;
            return;
        }
        self.demote(l, v, x);
    }

    /// Not provably exact: from now on link `l` (holding `v` thousandths) is a float
    /// link, with NCCL's rounding, and takes `x`.
    #[cold]
    fn demote(&mut self, l: u32, v: i32, x: f32) {
        self.v[l as usize] = FLOAT;
        self.float_epoch = self.float_epoch.wrapping_add(1);
        self.f[l as usize] = self.memo.sub(v as f32 / 1000.0, x);
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn take_float(&mut self, l: u32, x: f32) -> bool {
        let cur = self.f[l as usize];
        if cur < x {
            return false;
        }
        self.f[l as usize] = self.memo.sub(cur, x);
        true
    }

    /// Take without the check (reverse links, and giving back what was taken).
    #[inline]
    fn force(&mut self, l: u32, m: i32, x: f32) {
        match self.v[l as usize] {
            FLOAT => self.f[l as usize] = self.memo.sub(self.f[l as usize], x),
            v if v >= BIG_MIN => self.big_step(l, v, m, x),
            v => {
                self.v[l as usize] = v - m;
                // Keep it inside the range where thousandths and floats agree.
                if (v - m).abs() > LIMIT_MILLI {
                    self.exact = false;
                }
            }
        }
    }

    /// NCCL's reservation hop by hop, undone hop by hop when it fails.
    fn reserve_general(&mut self, p: Plan<'_>, bw: f32) -> bool {
        hop_by_hop(p.links.len(), bw, |steps, bw| self.follow(p, steps, bw))
    }

    /// The amounts of a plan without reverse links: `(thousandths, float)` for plain
    /// hops and for hops with the PCI surcharge.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn amounts<const SURCHARGED: bool>(&mut self, bw: f32) -> [(i32, f32); 2] {
        // The search reserves and releases the same bandwidth over and over: keep the
        // last amounts of each sign (the surcharged one made when first needed).
        let bits = bw.to_bits();
        let slot = (bits >> 31) as usize;
        if self.last[slot].0 != bits {
            self.last[slot] = (bits, [(self.amount(bw), bw), (0, f32::NAN)]);
        }
        if SURCHARGED && self.last[slot].1[1].1.is_nan() {
            // bw * 6 / 5 negated is exactly -bw * 6 / 5, what the release charges.
            let pci = bw * 6.0 / 5.0;
            self.last[slot].1[1] = (self.amount(pci), pci);
        }
        self.last[slot].1
    }

    /// Reserve `bw > 0` on a plan whose links are distinct and without reverse links,
    /// hop by hop as NCCL does; when a hop lacks it, give the hops before back.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn reserve_distinct<const SURCHARGED: bool>(&mut self, p: Plan<'_>, bw: f32) -> bool {
        let n = p.links.len();
        let am = self.amounts::<SURCHARGED>(bw);
        // (link, thousandths, float) of a hop.
        let at = |e: u32| {
            let (m, x) = am[(SURCHARGED && e & PCI_HOP != 0) as usize];
            (e & !PCI_HOP, m, x)
        };
        let mut hint = self.hints[p.start];
        if hint.epoch != self.float_epoch {
            // Some large link became a float link since: look at the links again.
            hint.floats = self.float_hops(p.links.iter().map(|&e| e & !PCI_HOP));
            hint.epoch = self.float_epoch;
            self.hints[p.start] = hint;
        }
        let h = hint.short as usize;
        if h < n {
            // Such a plan's hops fail on the values before the call alone, and giving
            // back leaves links in thousandths as they were. So when the hop that
            // failed last time fails again and the float links before it (at most
            // one) are known to come back unchanged, NCCL's reserve-and-release leaves
            // everything as it is.
            let (l, m, x) = at(p.links[h]);
            let [f0, f1] = hint.floats.map(|f| f as usize);
            if self.short(l, m, x) && f1 >= h && (f0 >= h || self.round_trips(at(p.links[f0]))) {
                return false;
            }
        }
        for (i, &e) in p.links.iter().enumerate() {
            let (l, m, x) = at(e);
            if !self.take(l, m, x) {
                self.hints[p.start].short = i.min(u8::MAX as usize) as u8;
                for &e in &p.links[..i] {
                    let (l, m, x) = at(e);
                    self.give_back(l, m, x);
                }
                return false;
            }
        }
        true
    }

    /// Release what a reservation just took on link `l` (NCCL's release, which never
    /// stops on a link that held the amount); for a float link whose value comes back,
    /// remember the round trip.
    fn give_back(&mut self, l: u32, m: i32, x: f32) {
        let v = self.v[l as usize];
        if v != FLOAT {
            self.step(l, v, -m, -x);
            return;
        }
        let back = self.memo.sub(self.f[l as usize], -x);
        self.f[l as usize] = back;
        if self.memo.back(back, x).to_bits() == back.to_bits() {
            self.round_trip[l as usize] = back.to_bits() as u64 | (x.to_bits() as u64) << 32;
        }
    }

    /// Release (`bw < 0`) on a plan whose links are distinct and without reverse links.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn release_distinct<const SURCHARGED: bool>(&mut self, p: Plan<'_>, bw: f32) -> bool {
        let am = self.amounts::<SURCHARGED>(bw);
        let at = |e: u32| {
            let (m, x) = am[(SURCHARGED && e & PCI_HOP != 0) as usize];
            (e & !PCI_HOP, m, x)
        };
        if self.never_negative {
            // NCCL checks that each link holds at least -bw: it always does.
            for &e in p.links {
                let (l, m, x) = at(e);
                let v = self.v[l as usize];
                if v != FLOAT {
                    self.step(l, v, m, x);
                } else {
                    self.f[l as usize] = self.memo.sub(self.f[l as usize], x);
                }
            }
            return true;
        }
        for (i, &e) in p.links.iter().enumerate() {
            let (l, m, x) = at(e);
            if !self.take(l, m, x) {
                // A link below zero: NCCL stops here and reserves the hops before
                // again.
                for &e in &p.links[..i] {
                    let (l, m, x) = at(e);
                    self.take(l, -m, -x);
                }
                return false;
            }
        }
        true
    }

    /// The first two of these hops over float links (`u8::MAX`: none).
    fn float_hops(&self, links: impl ExactSizeIterator<Item = u32>) -> [u8; 2] {
        if links.len() >= u8::MAX as usize {
            // Far longer than any real path: as if every hop were a float link, so
            // the short cut is never taken.
            return [0, 0];
        }
        let mut found = links.enumerate().filter(|&(_, l)| self.v[l as usize] == FLOAT).map(|(i, _)| i as u8);
        [found.next().unwrap_or(u8::MAX), found.next().unwrap_or(u8::MAX)]
    }

    /// Whether float link `l` is known to come back unchanged from a reservation of
    /// `x` released at once.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn round_trips(&self, (l, _, x): (u32, i32, f32)) -> bool {
        self.round_trip[l as usize] == self.f[l as usize].to_bits() as u64 | (x.to_bits() as u64) << 32
    }

    /// `follow` of [`Rounded`], link by link: same steps, same results.
    fn follow(&mut self, p: Plan<'_>, max_steps: usize, bw: f32) -> usize {
        let b = self.amount(bw);
        let pci_bw = bw * 6.0 / 5.0;
        let pci = if p.kind == PlanKind::Plain { b } else { self.amount(pci_bw) };
        for (step, hop) in p.hops[..max_steps].iter().enumerate() {
            let (fw_f, rev_f) = hop.amounts(bw, pci_bw);
            let fw = if hop.pci { pci } else { b };
            if hop.rev == NONE {
                if !self.take(hop.link, fw, fw_f) {
                    return step;
                }
                continue;
            }
            let rev = self.amount(rev_f);
            if rev != 0 && self.short(hop.rev, rev, rev_f) || self.short(hop.link, fw, fw_f) {
                return step;
            }
            self.force(hop.link, fw, fw_f);
            if rev != 0 {
                self.force(hop.rev, rev, rev_f);
            }
        }
        max_steps
    }
}

impl LinkBw for Milli {
    fn new(bw: &[f32]) -> Milli {
        let v = bw
            .iter()
            .map(|&x| {
                if x.to_bits() == (-0.0f32).to_bits() {
                    FLOAT
                } else {
                    to_milli(x).or_else(|| to_milli_big(x)).unwrap_or(FLOAT)
                }
            })
            .collect();
        Milli {
            v,
            f: bw.to_vec(),
            memo: RoundMemo::new(),
            round_trip: vec![0; bw.len()],
            hints: Vec::new(),
            conv: [(0, 0); 32],
            // 0.0 and -0.0 with their true amounts.
            last: [(0, [(0, 0.0), (0, f32::NAN)]), ((-0.0f32).to_bits(), [(0, -0.0), (0, f32::NAN)])],
            exact: true,
            never_negative: bw.iter().all(|&x| x >= 0.0),
            float_epoch: 0,
        }
    }

    fn plan_made(&mut self, start: usize, hops: &[PlanHop]) {
        if hops.iter().any(|h| h.rev != NONE) {
            self.never_negative = false;
        }
        let floats = self.float_hops(hops.iter().map(|h| h.link));
        // One entry even for a plan without hops (a node to itself).
        let end = start + hops.len().max(1);
        let hint = Hint { short: 0, floats, epoch: self.float_epoch };
        if self.hints.len() < end {
            self.hints.resize(end, hint);
        }
        self.hints[start] = hint;
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn reserve(&mut self, p: Plan<'_>, bw: f32) -> bool {
        match p.kind {
            PlanKind::Plain if bw > 0.0 => self.reserve_distinct::<false>(p, bw),
            PlanKind::Surcharged if bw > 0.0 => self.reserve_distinct::<true>(p, bw),
            PlanKind::Plain if bw < 0.0 => self.release_distinct::<false>(p, bw),
            PlanKind::Surcharged if bw < 0.0 => self.release_distinct::<true>(p, bw),
            _ => self.reserve_general(p, bw),
        }
    }

    #[inline]
    fn pci_bw(&self, up: u32, down: u32) -> i32 {
        let (a, b) = (self.v[up as usize], self.v[down as usize]);
        if a == FLOAT || b == FLOAT {
            return self.value(up as usize).min(self.value(down as usize)) as i32;
        }
        // Thousandths below the limit never round onto a whole number, so truncating
        // the float is the integer division (both toward zero).
        a.min(b) / 1000
    }

    fn value(&self, l: usize) -> f32 {
        match self.v[l] {
            FLOAT => self.f[l],
            m => m as f32 / 1000.0,
        }
    }

    fn restores(&self, l: u32) -> bool {
        // Large links may turn into float links.
        self.v[l as usize] != FLOAT && self.v[l as usize] < BIG_MIN
    }

    fn exact(&self) -> bool {
        self.exact
    }
}

#[cfg(test)]
mod tests;
