//! The bandwidths the search tries, per architecture and scope (`search.cc`'s speed
//! arrays), in every form NCCL has shipped them since 2.18.

use crate::release::SpeedTables;

/// One set of ladders: (intra, inter) for pre-Hopper, Hopper and Blackwell. Blackwell's
/// are `None` before NCCL knew it (its GPUs then walk Hopper's).
struct Ladders {
    base: (&'static [f32], &'static [f32]),
    sm90: (&'static [f32], &'static [f32]),
    sm100: Option<(&'static [f32], &'static [f32])>,
}

const INTRA: &[f32] = &[40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0];
const INTER: &[f32] =
    &[48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12];

// Hopper: 2.19.1 adds 50 inside the node, 2.21 adds 11; across nodes 2.18.3 adds 20 and
// 17.5, 2.19.3 adds 22.
const SM90_INTRA_18: &[f32] = &[60.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0];
const SM90_INTRA_19: &[f32] = &[60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0];
const SM90_INTRA: &[f32] = &[60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0];
const SM90_INTER_18_1: &[f32] = &[48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM90_INTER_18_3: &[f32] =
    &[48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM90_INTER: &[f32] =
    &[48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];

// Blackwell (2.25.1): inside the node 2.27.3 adds 18 and 2.29.2 adds 45; across nodes
// the ladder starts as Hopper's, then 47.9 (2.27.3), 48/45.1 (2.27.5), 96 (2.27.6),
// 80 (2.29.7), 86 (2.30.3).
const SM100_INTRA_25: &[f32] = &[90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0];
const SM100_INTRA_27: &[f32] = &[90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0];
const SM100_INTRA: &[f32] = &[90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0];
const SM100_INTER_27_3: &[f32] =
    &[47.9, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM100_INTER_27_5: &[f32] =
    &[48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM100_INTER_27_6: &[f32] =
    &[96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM100_INTER_29_7: &[f32] =
    &[96.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM100_INTER: &[f32] = &[
    96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12,
];

fn ladders(t: SpeedTables) -> Ladders {
    use SpeedTables::*;
    let base = (INTRA, INTER);
    let (sm90, sm100) = match t {
        V2_18_1 => ((SM90_INTRA_18, SM90_INTER_18_1), None),
        V2_18_3 => ((SM90_INTRA_18, SM90_INTER_18_3), None),
        V2_19_1 => ((SM90_INTRA_19, SM90_INTER_18_3), None),
        V2_19_3 => ((SM90_INTRA_19, SM90_INTER), None),
        V2_21 => ((SM90_INTRA, SM90_INTER), None),
        V2_25 => ((SM90_INTRA, SM90_INTER), Some((SM100_INTRA_25, SM90_INTER))),
        V2_27_3 => ((SM90_INTRA, SM90_INTER), Some((SM100_INTRA_27, SM100_INTER_27_3))),
        V2_27_5 => ((SM90_INTRA, SM90_INTER), Some((SM100_INTRA_27, SM100_INTER_27_5))),
        V2_27_6 => ((SM90_INTRA, SM90_INTER), Some((SM100_INTRA_27, SM100_INTER_27_6))),
        V2_29_2 => ((SM90_INTRA, SM90_INTER), Some((SM100_INTRA, SM100_INTER_27_6))),
        V2_29_7 => ((SM90_INTRA, SM90_INTER), Some((SM100_INTRA, SM100_INTER_29_7))),
        V2_30_3 => ((SM90_INTRA, SM90_INTER), Some((SM100_INTRA, SM100_INTER))),
    };
    Ladders { base, sm90, sm100 }
}

/// The bandwidth ladder the search walks for this architecture and scope.
pub fn speed_ladder(tables: SpeedTables, cc_min: i32, inter: bool) -> &'static [f32] {
    let l = ladders(tables);
    let (intra, across) = match l.sm100 {
        Some(sm100) if cc_min >= 100 => sm100,
        _ if cc_min >= 90 => l.sm90,
        _ => l.base,
    };
    if inter { across } else { intra }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Release;

    fn ladder(v: &str, cc: i32, inter: bool) -> &'static [f32] {
        speed_ladder(Release::parse(v).unwrap().speed_tables(), cc, inter)
    }

    /// search.cc at each tag: Blackwell walks Hopper's ladders until 2.25.1; 2.29.2 adds
    /// 45 inside the node; 2.29.7 adds 80 and 2.30.3 86 across nodes.
    #[test]
    fn ladders_by_release() {
        assert_eq!(ladder("2.21.5", 100, false), SM90_INTRA);
        assert_eq!(ladder("2.24.3", 103, true), SM90_INTER);
        assert_eq!(ladder("2.25.1", 100, true), SM90_INTER);
        assert!(!ladder("2.28.9", 100, false).contains(&45.0));
        assert!(ladder("2.29.2", 100, false).contains(&45.0));
        assert!(!ladder("2.29.3", 100, true).contains(&80.0));
        assert!(ladder("2.29.7", 100, true).contains(&80.0));
        assert_eq!(ladder("2.30.7", 100, true)[..3], [96.0, 86.0, 80.0]);
        assert_eq!(ladder("2.18.1", 90, true).len(), 14);
        assert_eq!(ladder("2.30.7", 80, false), INTRA);
    }
}
