//! Output for people and scripts: text trees and tables, JSON, Graphviz.

pub mod dot;
pub mod graphs;
pub mod paths;
pub mod search;
pub mod show;

/// Pretty JSON with a trailing newline.
pub fn to_json_string(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    s.push('\n');
    s
}

/// A bandwidth the way NCCL prints it (`%.1f`), GB/s.
pub fn gbs(bw: f32) -> String {
    format!("{bw:.1}")
}
