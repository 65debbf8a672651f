//! Helpers of the benchmarks that interleave samples and keep the best of each.

use std::time::Duration;

/// The best (shortest) sample, in seconds.
pub fn best(v: &[Duration]) -> f64 {
    v.iter().min().copied().unwrap_or(Duration::MAX).as_secs_f64()
}

/// The three load averages, for the report: a loaded machine explains a slow sample.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
