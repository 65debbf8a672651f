//! NCCL's relaxation of a graph's constraints (the `goto search` / `goto done` flow of
//! `ncclTopoCompute`, `src/graph/search.cc`), as two ordered tables.
//!
//! The search runs in rounds; each round is one recursion over the GPUs with the
//! constraints of the moment, keeping the best graph seen. After a round:
//!
//! * Pass 1, while no optimal graph is found, walks [`RELAX`] from the top. Each step
//!   either loosens its constraint and starts a new round ([`Move::Retry`]), or puts its
//!   constraint back to where it started and hands over to the next step
//!   ([`Move::Next`]): so each step is tried in full for every setting of the steps
//!   below it, as an odometer. A step may also end the pass ([`Move::Stop`]), and so
//!   does running off the end of the table.
//! * The end of pass 1 takes the best graph found (channels duplicated where NCCL
//!   does), and pass 2 tries it again at higher speeds: after every round the first
//!   step of [`RAISE`] that applies raises its speed and starts a new round, until
//!   none applies or a round ran out of steps.

use super::graph::{CrossNic, Graph, Pattern};
use super::limits::{GLOBAL_TIMEOUT, TIMEOUT, TIMEOUT_SAMECHANNELS, TIMEOUT_TREE};
use super::recursion::Budget;
use crate::model::PathType;
use crate::release::{ComputeEnd, CrossNicRules};

/// A step of pass 1, in [`RELAX`]'s order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relax {
    /// Let the channels differ (a round with every channel the same is short). NCCL
    /// keeps them the same on AMD x86 CPUs when the GPUs talk over SYS.
    SameChannelsOff,
    /// Not a constraint: give the global budget back what the round left, and stop
    /// relaxing once it is spent and some graph was found.
    GlobalBudget,
    /// On sm90 and later, try a plain tree instead of a balanced one.
    SimplerTree,
    /// Allow the next worse path type between GPUs (up to the worst the machine has;
    /// between nodes, up to the GPU-NET type of the moment).
    RaiseTypeIntra,
    /// Between nodes, allow the next worse path type between GPUs and NETs.
    RaiseTypeInter,
    /// With NCCL_CROSS_NIC=2, try rings and balanced trees in cross-NIC pairs.
    CrossNic,
    /// Try the next lower speed, unless it is under half of the best graph's.
    LowerSpeed,
}

/// Pass 1, in NCCL's order.
pub const RELAX: [Relax; 7] = [
    Relax::SameChannelsOff,
    Relax::GlobalBudget,
    Relax::SimplerTree,
    Relax::RaiseTypeIntra,
    Relax::RaiseTypeInter,
    Relax::CrossNic,
    Relax::LowerSpeed,
];

/// A step of pass 2, in [`RAISE`]'s order; the first that applies is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raise {
    /// Rings: the next higher speed, both intra and inter.
    RingSpeed,
    /// NVLS: the next higher speed between nodes, same channel count, while the inter
    /// speed is still the best graph's and under twice the intra one.
    NvlsInterSpeed,
    /// Other patterns: the next higher speed within the node, while the intra speed is
    /// still the best graph's and under twice the inter one.
    IntraSpeed,
}

/// Pass 2, in NCCL's order.
pub const RAISE: [Raise; 3] = [Raise::RingSpeed, Raise::NvlsInterSpeed, Raise::IntraSpeed];

/// What a step of [`RELAX`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// The step loosened its constraint: run a new round.
    Retry,
    /// The step put its constraint back: on to the next step.
    Next,
    /// Stop relaxing: on to pass 2.
    Stop,
}

/// Which pass the search is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pass {
    Relax,
    Raise,
}

/// Where the relaxation stands: the constraints of the next round (`tmp`, NCCL's
/// `tmpGraph`) and what the steps need to know.
pub(super) struct Ladder {
    pub(super) tmp: Graph,
    pub(super) pass: Pass,
    /// The speeds the search tries, best first, and the index of the current one.
    pub(super) speeds: &'static [f32],
    pub(super) speed: usize,
    /// Steps all rounds may still take (NCCL's `globalTimeout`).
    pub(super) global_budget: i64,
    /// Whether rounds start with every channel the same (all but NVLS).
    pub(super) try_same: bool,
    /// The cross-NIC mode the graph may use.
    pub(super) cross_nic: CrossNic,
    /// What that mode means in the release.
    pub(super) cross_nic_rules: CrossNicRules,
    /// The release has PATH_C2C (2.26) and PATH_P2C (2.27.3); the types it lacks are
    /// stepped over.
    pub(super) c2c_type: bool,
    pub(super) p2c_type: bool,
    /// P2C ranks after PXN (2.27.3).
    pub(super) p2c_after_pxn: bool,
    /// Where channels are duplicated and what pass 2 raises.
    pub(super) end: ComputeEnd,
    pub(super) min_intra: PathType,
    pub(super) max_intra: PathType,
    pub(super) min_inter: PathType,
    pub(super) max_inter: PathType,
    /// The CPU is an AMD x86 one.
    pub(super) amd_x86: bool,
    pub(super) cc_min: i32,
    /// The system spans nodes (NETs join the search).
    pub(super) inter: bool,
    pub(super) max_bw: f32,
}

impl Ladder {
    /// The budget of the next round, taken from the global one.
    pub(super) fn round_budget(&mut self) -> Budget {
        let steps = if self.tmp.same_channels {
            TIMEOUT_SAMECHANNELS
        } else if self.tmp.pattern == Pattern::Tree {
            TIMEOUT_TREE
        } else {
            TIMEOUT
        };
        self.global_budget -= steps as i64;
        Budget::Left(steps)
    }

    /// After a round that left `budget` with `best` the best graph so far: set up the
    /// next round (true), or end the search (false).
    pub(super) fn next_round(&mut self, best: &mut Graph, mut budget: Budget, total_bw: f32, ngpus: usize) -> bool {
        let optimal = budget == Budget::Found || best.n_channels as f32 * best.bw_inter >= total_bw;
        if self.pass == Pass::Relax && !optimal {
            for step in RELAX {
                match self.relax(step, best, budget) {
                    Move::Retry => return true,
                    Move::Next => {}
                    Move::Stop => break,
                }
            }
        }
        if self.pass == Pass::Relax {
            budget = Budget::Found;
            self.start_raising(best, ngpus);
        }
        if !budget.spent() && self.speed > 0 {
            for step in RAISE {
                if self.raise(step, best) {
                    return true;
                }
            }
        }
        false
    }

    /// Set the speed of the next round (both scopes) to speed `i`.
    fn set_speed(&mut self, i: usize) {
        self.speed = i;
        self.tmp.bw_intra = self.speeds[i];
        self.tmp.bw_inter = self.speeds[i];
    }

    /// The first speed not above `bw` (the last one if all are).
    fn first_speed_within(&self, bw: f32) -> usize {
        let mut i = 0;
        while self.speeds[i] > bw && i < self.speeds.len() - 1 {
            i += 1;
        }
        i
    }

    /// One step of [`RELAX`].
    pub(super) fn relax(&mut self, step: Relax, best: &Graph, budget: Budget) -> Move {
        let types = (self.c2c_type, self.p2c_type);
        let swap = self.p2c_after_pxn;
        let k = |t: PathType| t.rank(swap);
        let t = &mut self.tmp;
        match step {
            Relax::SameChannelsOff => {
                if t.same_channels && !(self.amd_x86 && t.type_intra == PathType::Sys) {
                    t.same_channels = false;
                    return Move::Retry;
                }
                t.same_channels = self.try_same;
            }
            Relax::GlobalBudget => {
                match budget {
                    Budget::Left(n) => self.global_budget += n as i64,
                    Budget::Found => self.global_budget = GLOBAL_TIMEOUT,
                }
                if self.global_budget < 0 && best.n_channels > 0 {
                    return Move::Stop;
                }
            }
            Relax::SimplerTree => {
                if self.cc_min >= 90 && t.pattern == Pattern::BalancedTree {
                    t.pattern = Pattern::Tree;
                    return Move::Retry;
                }
                t.pattern = best.pattern;
            }
            Relax::RaiseTypeIntra => {
                let max = if self.inter { t.type_inter } else { self.max_intra };
                if k(t.type_intra) < k(max) && (best.n_channels == 0 || k(t.type_intra) < k(best.type_intra)) {
                    t.type_intra = next_path_type(t.type_intra, types, swap);
                    if t.type_intra < PathType::Dis {
                        return Move::Retry;
                    }
                }
                t.type_intra = self.min_intra;
            }
            Relax::RaiseTypeInter => {
                if self.inter
                    && k(t.type_inter) < k(self.max_inter)
                    && (best.n_channels == 0
                        || k(t.type_inter) < k(best.type_inter)
                        || k(t.type_inter) < k(PathType::Pxn))
                {
                    t.type_inter = next_path_type(t.type_inter, types, swap);
                    if t.type_inter < PathType::Dis {
                        return Move::Retry;
                    }
                }
                t.type_inter = self.min_inter;
            }
            Relax::CrossNic if self.cross_nic_rules == CrossNicRules::Copy => {
                // 2.18: retry with the variable's value, else back to 0.
                if self.cross_nic != CrossNic::Off && t.cross_nic == CrossNic::Off {
                    t.cross_nic = self.cross_nic;
                    return Move::Retry;
                }
                t.cross_nic = CrossNic::Off;
            }
            Relax::CrossNic => {
                if self.cross_nic == CrossNic::Alternate && t.cross_nic == CrossNic::Off {
                    // Before 2.23 the retry is a plain crossing graph, for any pattern
                    // that may cross.
                    if self.cross_nic_rules != CrossNicRules::RingPairs {
                        t.cross_nic = CrossNic::On;
                        return Move::Retry;
                    }
                    if matches!(best.pattern, Pattern::Ring | Pattern::BalancedTree) {
                        t.cross_nic = CrossNic::Alternate;
                        return Move::Retry;
                    }
                }
                t.cross_nic = if self.cross_nic == CrossNic::On { CrossNic::On } else { CrossNic::Off };
            }
            Relax::LowerSpeed => {
                let i = self.speed;
                if i < self.speeds.len() - 1 && (best.n_channels == 0 || self.speeds[i + 1] / best.bw_inter > 0.49) {
                    self.set_speed(i + 1);
                    return Move::Retry;
                }
                self.set_speed(self.first_speed_within(self.max_bw));
            }
        }
        Move::Next
    }

    /// The end of pass 1: pass 2 starts from the best graph (its channels duplicated
    /// where NCCL does), at the first speed not above its inter speed.
    fn start_raising(&mut self, best: &mut Graph, ngpus: usize) {
        if self.end == ComputeEnd::V2_19_3 {
            dup_channels(best, self.cc_min, ngpus);
        }
        self.tmp = best.clone();
        self.set_speed(self.first_speed_within(best.bw_inter));
        self.tmp.min_channels = best.n_channels;
        self.pass = Pass::Raise;
    }

    /// One step of [`RAISE`]: whether it applied (and set up a new round).
    pub(super) fn raise(&mut self, step: Raise, best: &Graph) -> bool {
        let t = &mut self.tmp;
        // Before 2.19.3 rings are not raised; before 2.19.1 NVLS is raised like a tree.
        let old = self.end != ComputeEnd::V2_19_3;
        let nvls_as_tree = matches!(self.end, ComputeEnd::V2_18_1 | ComputeEnd::V2_18_3);
        match step {
            Raise::RingSpeed if best.pattern == Pattern::Ring && !old => {
                self.set_speed(self.speed - 1);
            }
            Raise::NvlsInterSpeed
                if best.pattern == Pattern::Nvls
                    && !nvls_as_tree
                    && t.bw_inter == best.bw_inter
                    && t.bw_inter < t.bw_intra * 2.0 =>
            {
                t.min_channels = best.n_channels;
                t.max_channels = best.n_channels;
                self.speed -= 1;
                self.tmp.bw_inter = self.speeds[self.speed];
            }
            Raise::IntraSpeed
                if best.pattern != Pattern::Ring
                    && (best.pattern != Pattern::Nvls || nvls_as_tree)
                    && t.bw_intra == best.bw_intra
                    && t.bw_intra < t.bw_inter * 2.0 =>
            {
                self.speed -= 1;
                self.tmp.bw_intra = self.speeds[self.speed];
            }
            _ => return false,
        }
        true
    }
}

/// The next worse path type, of those the release has (`(C2C, P2C)`: whether it has
/// these two), in its order (`swap`: P2C after PXN, 2.27.3).
fn next_path_type(t: PathType, (c2c, p2c): (bool, bool), swap: bool) -> PathType {
    // The rank order is its own inverse: the type at rank r is `from_u8(r).rank(swap)`.
    let at = |r: u8| PathType::from_u8(PathType::from_u8(r).rank(swap));
    let mut r = t.rank(swap) + 1;
    let mut n = at(r);
    while (n == PathType::C2c && !c2c) || (n == PathType::P2c && !p2c) {
        r += 1;
        n = at(r);
    }
    n
}

/// NCCL's `ncclTopoDupChannels`: a fast graph with few channels is run twice over, each
/// copy at a share of the speed.
pub(super) fn dup_channels(g: &mut Graph, ccmin: i32, ngpus: usize) {
    if g.n_channels == 0 || g.pattern == Pattern::Nvls || g.bw_intra < 25.0 {
        return;
    }
    if ccmin > 80 && g.bw_intra < 50.0 && g.n_channels > 4 {
        return;
    }
    dup_always(g, ngpus);
}

/// 2.18.1's duplication, at the end of the search: graphs other than NVLS with an
/// intra speed of 25 (sm 80 and older) or 50 (sm 90 and older).
pub(super) fn dup_channels_2_18_1(g: &mut Graph, ccmin: i32, ngpus: usize) {
    if g.n_channels > 0
        && g.pattern != Pattern::Nvls
        && ((ccmin <= 80 && g.bw_intra >= 25.0) || (ccmin <= 90 && g.bw_intra >= 50.0))
    {
        dup_always(g, ngpus);
    }
}

fn dup_always(g: &mut Graph, ngpus: usize) {
    let n = g.n_channels as usize;
    let dup = (n * 2).min(g.max_channels as usize);
    for i in 0..(dup - n) * ngpus {
        g.intra[n * ngpus + i] = g.intra[i];
    }
    for i in 0..(dup - n) * 2 {
        g.inter[n * 2 + i] = g.inter[i];
    }
    let div = dup.div_ceil(n) as f32;
    g.bw_intra /= div;
    g.bw_inter /= div;
    g.n_channels = dup as i32;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NCCL's order: each later step is tried in full for every setting of the earlier
    /// ones, so the order is the law of the search.
    #[test]
    fn tables_are_in_nccl_order() {
        assert_eq!(
            RELAX,
            [
                Relax::SameChannelsOff,
                Relax::GlobalBudget,
                Relax::SimplerTree,
                Relax::RaiseTypeIntra,
                Relax::RaiseTypeInter,
                Relax::CrossNic,
                Relax::LowerSpeed,
            ]
        );
        assert_eq!(RAISE, [Raise::RingSpeed, Raise::NvlsInterSpeed, Raise::IntraSpeed]);
    }

    fn ladder(pattern: Pattern) -> Ladder {
        let mut tmp = Graph::new(super::super::GraphId::Ring, pattern, 2);
        tmp.same_channels = true;
        tmp.type_intra = PathType::Nvl;
        Ladder {
            tmp,
            pass: Pass::Relax,
            speeds: &[40.0, 30.0, 20.0],
            speed: 0,
            global_budget: GLOBAL_TIMEOUT,
            try_same: true,
            cross_nic: CrossNic::Off,
            cross_nic_rules: CrossNicRules::RingPairs,
            c2c_type: true,
            p2c_type: true,
            p2c_after_pxn: false,
            end: ComputeEnd::V2_19_3,
            min_intra: PathType::Nvl,
            max_intra: PathType::Nvl,
            min_inter: PathType::Pix,
            max_inter: PathType::Sys,
            amd_x86: false,
            cc_min: 90,
            inter: false,
            max_bw: 40.0,
        }
    }

    /// With nothing found, the steps loosen one at a time and reset as an odometer:
    /// same channels off first, then (channels the same again) the plain tree, then
    /// (balanced again) the lower speed.
    #[test]
    fn relaxing_is_an_odometer() {
        let mut l = ladder(Pattern::BalancedTree);
        let mut best = l.tmp.clone();
        let spent = Budget::Left(0);
        assert!(l.next_round(&mut best, spent, 1000.0, 2));
        assert!(!l.tmp.same_channels);
        assert!(l.next_round(&mut best, spent, 1000.0, 2));
        assert!(l.tmp.same_channels);
        assert_eq!(l.tmp.pattern, Pattern::Tree);
        // Tree again with channels that differ, then the lower speed.
        assert!(l.next_round(&mut best, spent, 1000.0, 2));
        assert!(!l.tmp.same_channels);
        assert!(l.next_round(&mut best, spent, 1000.0, 2));
        assert_eq!((l.tmp.pattern, l.tmp.bw_intra, l.tmp.same_channels), (Pattern::BalancedTree, 30.0, true));
    }

    /// A round that found the best graph possible ends pass 1 at once; pass 2 then
    /// raises a ring's speed while there is a higher one.
    #[test]
    fn found_ends_relaxing() {
        let mut l = ladder(Pattern::Ring);
        let mut best = l.tmp.clone();
        best.bw_intra = 40.0;
        best.bw_inter = 40.0;
        assert!(!l.next_round(&mut best, Budget::Found, 1000.0, 2));
        assert_eq!(l.pass, Pass::Raise);
        let mut l = ladder(Pattern::Ring);
        best.bw_intra = 30.0;
        best.bw_inter = 30.0;
        assert!(l.next_round(&mut best, Budget::Found, 1000.0, 2));
        assert_eq!((l.pass, l.tmp.bw_intra, l.tmp.bw_inter), (Pass::Raise, 40.0, 40.0));
        // A round of pass 2 that ran out of steps ends the search.
        assert!(!l.next_round(&mut best, Budget::Left(0), 1000.0, 2));
    }

    /// search.cc ncclTopoCompute at 2.18.6: the retry takes NCCL_CROSS_NIC's value as it
    /// is (2 too), and a failed step puts 0 back even when the variable is 1.
    #[test]
    fn cross_nic_retry_2_18() {
        let best = Graph::new(super::super::GraphId::Ring, Pattern::Ring, 2);
        let mut l = ladder(Pattern::Ring);
        l.cross_nic_rules = CrossNicRules::Copy;
        l.cross_nic = CrossNic::On;
        l.tmp.cross_nic = CrossNic::On;
        assert_eq!(l.relax(Relax::CrossNic, &best, Budget::Left(1)), Move::Next);
        assert_eq!(l.tmp.cross_nic, CrossNic::Off);
        assert_eq!(l.relax(Relax::CrossNic, &best, Budget::Left(1)), Move::Retry);
        assert_eq!(l.tmp.cross_nic, CrossNic::On);
        l.cross_nic = CrossNic::Alternate;
        l.tmp.cross_nic = CrossNic::Off;
        assert_eq!(l.relax(Relax::CrossNic, &best, Budget::Left(1)), Move::Retry);
        assert_eq!(l.tmp.cross_nic, CrossNic::Alternate);
    }

    /// search.cc ncclTopoCompute: NCCL_CROSS_NIC=2 retries with crossNic 1 for any
    /// pattern that may cross until 2.22.3, with crossNic 2 for rings and balanced trees
    /// only from 2.23.4.
    #[test]
    fn cross_nic_retry_by_release() {
        let best = Graph::new(super::super::GraphId::Tree, Pattern::SplitTree, 2);
        for (rules, want) in [
            (CrossNicRules::ZeroThenOnePaired, Move::Retry),
            (CrossNicRules::ZeroThenOne, Move::Retry),
            (CrossNicRules::RingPairs, Move::Next),
        ] {
            let mut l = ladder(Pattern::SplitTree);
            l.cross_nic = CrossNic::Alternate;
            l.cross_nic_rules = rules;
            assert_eq!(l.relax(Relax::CrossNic, &best, Budget::Left(0)), want, "{rules:?}");
            let expect = if want == Move::Retry { CrossNic::On } else { CrossNic::Off };
            assert_eq!(l.tmp.cross_nic, expect);
        }
        let mut l = ladder(Pattern::Ring);
        l.cross_nic = CrossNic::Alternate;
        let ring = Graph::new(super::super::GraphId::Ring, Pattern::Ring, 2);
        assert_eq!(l.relax(Relax::CrossNic, &ring, Budget::Left(0)), Move::Retry);
        assert_eq!(l.tmp.cross_nic, CrossNic::Alternate);
    }

    /// topo.h: PATH_C2C appears in 2.26.2 and PATH_P2C in 2.27.3; before, relaxing a
    /// path type steps from NVB to PIX and from PXN to PHB.
    #[test]
    fn type_steps_skip_types_the_release_lacks() {
        assert_eq!(next_path_type(PathType::Nvb, (false, false), false), PathType::Pix);
        assert_eq!(next_path_type(PathType::Nvb, (true, false), false), PathType::C2c);
        assert_eq!(next_path_type(PathType::Pxb, (true, false), false), PathType::Pxn);
        assert_eq!(next_path_type(PathType::Pxb, (true, true), false), PathType::P2c);
        assert_eq!(next_path_type(PathType::Pxn, (false, false), false), PathType::Phb);
        // 2.27.3: PXB, PXN, P2C, PHB.
        assert_eq!(next_path_type(PathType::Pxb, (true, true), true), PathType::Pxn);
        assert_eq!(next_path_type(PathType::Pxn, (true, true), true), PathType::P2c);
        assert_eq!(next_path_type(PathType::P2c, (true, true), true), PathType::Phb);
    }
}
