//! Output for people and scripts: text trees and tables, JSON, Graphviz.

pub mod algo;
pub mod algo_cost;
pub mod algo_plan;
pub mod algo_show;
pub mod analysis;
pub mod bench;
pub mod bench_program;
pub mod bench_streams;
pub mod detect;
pub mod diff;
pub mod dot;
pub mod fleet;
pub mod graphs;
pub mod log;
pub mod names;
pub mod paths;
pub mod perf;
pub mod search;
pub mod show;
pub mod term;
pub mod tune;

/// "1 error", "3 errors": a count with its noun in the number it takes.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Pretty JSON with a trailing newline.
pub fn to_json_string(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    s.push('\n');
    s
}

pub use crate::types::gbs;
