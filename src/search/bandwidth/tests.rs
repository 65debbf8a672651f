//! The bookkeepings against NCCL's float arithmetic (the law in the module doc).

use super::*;

#[test]
fn rounding_matches_roundf() {
    for x in [
        0.0f32,
        -0.0,
        -0.3,
        0.49999997,
        1.4999999,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.49999997,
        4_194_303.5,
        -4_194_303.5,
        4_194_304.0,
        1e9,
        2_147_483_520.0,
        -2_147_483_648.0,
        8_388_607.5,
        f32::NAN,
    ] {
        let (a, b) = (round_half_away(x), x.round());
        assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{x}: {a} != {b}");
    }
}

proptest::proptest! {
    #[test]
    fn rounding_matches_roundf_everywhere(x in proptest::num::f32::ANY) {
        let (a, b) = (round_half_away(x), x.round());
        proptest::prop_assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
    }
}

proptest::proptest! {
    #[test]
    fn memo_gives_the_rounding_itself(pairs in proptest::collection::vec((0u32..4000, 0usize..6), 1..400)) {
        // Few distinct operands, so entries are hit, evicted and hit again.
        let bws = [10.0f32, 0.1, 12.5, -10.0, 6.0 * 1.2, 24.0 / 7.0];
        let mut m = RoundMemo::new();
        for (a, b) in pairs {
            let (a, b) = (a as f32 / 7.0, bws[b]);
            proptest::prop_assert_eq!(m.sub(a, b).to_bits(), sub_rounded(a, b).to_bits());
            proptest::prop_assert_eq!(m.back(a, b).to_bits(), sub_rounded(sub_rounded(a, b), -b).to_bits());
        }
    }
}

/// The law the whole of `Milli` rests on: on whole thousandths within the limit,
/// NCCL's rounded float subtraction is the integer subtraction.
#[test]
fn thousandths_are_exact_near_the_limit() {
    let lim = (LIMIT * 1000.0) as i32;
    let edges = [0, 1, 2, 499, 500, 501, 999, 1000, 1001, 12_345, 100_000, 999_999, lim - 1, lim];
    for &a in &edges {
        for &b in &edges {
            for (a, b) in [(a, b), (-a, b), (a, -b), (-a, -b)] {
                check_pair(a, b);
            }
        }
    }
}

fn check_pair(a: i32, b: i32) {
    let (fa, fb) = (a as f32 / 1000.0, b as f32 / 1000.0);
    assert_eq!(to_milli(fa), Some(a), "{a}");
    let want = (a - b) as f32 / 1000.0;
    assert_eq!(sub_rounded(fa, fb).to_bits(), want.to_bits(), "{a} - {b}");
    assert_eq!(fa < fb, a < b, "{a} < {b}");
    assert_eq!(fa as i32, a / 1000, "{a} truncated");
}

proptest::proptest! {
    #[test]
    fn thousandths_are_exact(a in -1_024_000i32..=1_024_000, b in -1_024_000i32..=1_024_000) {
        check_pair(a, b);
    }

    /// The law behind large links: from 4096 to 8192, steps by multiples of 1/8
    /// that stay in the range are exact too.
    #[test]
    fn large_thousandths_are_exact_by_eighths(a in BIG_MIN..BIG_END, k in -8192i32..=8192) {
        let b = 125 * k;
        let (fa, fb) = (a as f32 / 1000.0, b as f32 / 1000.0);
        proptest::prop_assert_eq!(to_milli_big(fa), Some(a));
        if (BIG_MIN..BIG_END).contains(&(a - b)) {
            proptest::prop_assert_eq!(sub_rounded(fa, fb).to_bits(), ((a - b) as f32 / 1000.0).to_bits());
        }
    }

    #[test]
    fn odd_values_are_refused(x in proptest::num::f32::ANY) {
        if let Some(m) = to_milli(x) {
            proptest::prop_assert_eq!((m as f32 / 1000.0).to_bits() | (1 << 31), x.to_bits() | (1 << 31));
        }
    }
}

/// A random plan over 6 links: hops, and the kind the search would give it.
fn plan_of(spec: &[(u32, bool, u32, bool)]) -> (Vec<PlanHop>, PlanKind) {
    let hops: Vec<PlanHop> = spec
        .iter()
        .map(|&(link, pci, rev, eighth)| PlanHop {
            link,
            pci,
            rev: if rev < 6 { rev } else { NONE },
            rev_eighth: eighth,
        })
        .collect();
    let repeated = hops.iter().enumerate().any(|(i, h)| hops[..i].iter().any(|x| x.link == h.link));
    let kind = if repeated || hops.iter().any(|h| h.rev != NONE) {
        PlanKind::General
    } else if hops.iter().any(|h| h.pci) {
        PlanKind::Surcharged
    } else {
        PlanKind::Plain
    };
    (hops, kind)
}

fn hop_spec() -> impl proptest::strategy::Strategy<Value = Vec<(u32, bool, u32, bool)>> {
    // Reverse links on one hop in eight or so.
    proptest::collection::vec((0u32..6, proptest::bool::weighted(0.3), 0u32..48, proptest::bool::ANY), 1..6)
}

proptest::proptest! {
    /// Both bookkeepings, driven through the same reservations and releases,
    /// agree on every result and every link's bits for as long as `Milli` says it
    /// is exact; it must stay exact on values and amounts in thousandths.
    #[test]
    fn milli_follows_nccl(
        init in proptest::collection::vec((0u32..60_000, 0u8..8), 6),
        ops in proptest::collection::vec((hop_spec(), 0usize..8, proptest::bool::ANY), 1..60),
    ) {
        // Thousandths mostly; now and then an odd value, a loopback's 5000 or a
        // large value just above 4096 (whose steps down leave the range).
        let init: Vec<f32> = init
            .iter()
            .map(|&(m, k)| match k {
                0 => m as f32 / 7000.0,
                1 => 5000.0,
                2 => (4_096_000 + m) as f32 / 1000.0,
                _ => m as f32 / 1000.0,
            })
            .collect();
        let speeds = [12.0f32, 10.0, 2.4, 0.24, 48.0, 16.0, 17.5, 45.1];
        let (mut r, mut m) = (Rounded::new(&init), Milli::new(&init));
        let mut held: Vec<(Vec<PlanHop>, PlanKind, f32)> = Vec::new();
        let mut starts = 0;
        for (spec, s, give_back) in ops {
            let (hops, kind) = plan_of(&spec);
            let links: Vec<u32> = hops.iter().map(|h| if h.pci { h.link | PCI_HOP } else { h.link }).collect();
            m.plan_made(starts, &hops);
            let p = Plan { kind, start: starts, links: &links, hops: &hops };
            starts += hops.len();
            let bw = speeds[s];
            let (a, b) = (r.reserve(p, bw), m.reserve(p, bw));
            if !m.exact() {
                // 17.5 / 8 and 45.1 * 6 / 5 are no thousandths: only those may
                // end the comparison.
                proptest::prop_assert!(s >= 6);
                break;
            }
            proptest::prop_assert_eq!(a, b);
            if a {
                held.push((hops.clone(), kind, bw));
            }
            if give_back && let Some((hops, kind, bw)) = held.pop() {
                let links: Vec<u32> = hops.iter().map(|h| if h.pci { h.link | PCI_HOP } else { h.link }).collect();
                m.plan_made(starts, &hops);
                let p = Plan { kind, start: starts, links: &links, hops: &hops };
                starts += hops.len();
                proptest::prop_assert_eq!(r.reserve(p, -bw), m.reserve(p, -bw));
            }
            proptest::prop_assert!(m.exact());
            for l in 0..init.len() {
                proptest::prop_assert_eq!(r.value(l).to_bits(), m.value(l).to_bits(), "link {}", l);
                proptest::prop_assert_eq!(r.pci_bw(l as u32, 0), m.pci_bw(l as u32, 0));
            }
        }
    }
}

#[test]
fn milli_refuses_amounts_it_cannot_represent() {
    let init = [10.0, 1.0 / 3.0, 5000.0];
    let hop = |link| PlanHop { link, pci: false, rev: NONE, rev_eighth: false };
    let hops = [hop(0), hop(1), hop(2)];
    let (mut m, mut r) = (Milli::new(&init), Rounded::new(&init));
    m.plan_made(0, &hops);
    let p = Plan { kind: PlanKind::Plain, start: 0, links: &[0, 1, 2], hops: &hops };
    // Odd link values are kept as floats, with NCCL's rounding.
    assert!(!m.reserve(p, 2.0) && !r.reserve(p, 2.0));
    assert!(m.reserve(p, 0.25) && r.reserve(p, 0.25));
    for l in 0..3 {
        assert_eq!(m.value(l).to_bits(), r.value(l).to_bits(), "link {l}");
    }
    assert!(m.exact());
    // An amount that is no whole number of thousandths.
    m.reserve(p, 1.0 / 70.0);
    assert!(!m.exact());
}
