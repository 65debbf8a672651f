//! The bandwidths the search tries, per architecture and scope (`search.cc`'s speed arrays).

const SPEED_INTRA: [f32; 13] = [40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0];
const SPEED_INTER: [f32; 19] =
    [48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM90_SPEED_INTRA: [f32; 11] = [60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0];
const SM90_SPEED_INTER: [f32; 17] =
    [48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12];
const SM100_SPEED_INTRA: [f32; 12] = [90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0];
const SM100_SPEED_INTER: [f32; 20] = [
    96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12,
];

/// The bandwidth ladder the search walks for this architecture and scope.
pub fn speed_ladder(cc_min: i32, inter: bool) -> &'static [f32] {
    match (inter, cc_min >= 100, cc_min >= 90) {
        (false, true, _) => &SM100_SPEED_INTRA,
        (false, false, true) => &SM90_SPEED_INTRA,
        (false, false, false) => &SPEED_INTRA,
        (true, true, _) => &SM100_SPEED_INTER,
        (true, false, true) => &SM90_SPEED_INTER,
        (true, false, false) => &SPEED_INTER,
    }
}
