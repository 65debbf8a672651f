//! `topo algo plan` as text and JSON.

use std::fmt::Write;

use crate::algo::plan::Plan;

/// The plan for people: levels and why, then per rank its resources and streams.
pub fn plan_text(p: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# topo algo plan: {} of {} bytes on {}, {} node{} x {} GPU{} (HCCL's view)",
        p.coll.name(),
        p.bytes,
        p.machine,
        p.nodes,
        if p.nodes == 1 { "" } else { "s" },
        p.per_node,
        if p.per_node == 1 { "" } else { "s" }
    );
    for c in &p.levels {
        let _ = writeln!(out, "level{}: {:<9} {}", c.level, c.algo.name(), c.why);
    }
    let _ = writeln!(out, "executor: {}", p.executor);
    for r in &p.ranks {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "rank {}: {} sub-stream{}, {} notifies, scratch {} bytes",
            r.rank,
            r.sub_streams,
            if r.sub_streams == 1 { "" } else { "s" },
            r.notifies,
            r.scratch_bytes
        );
        for l in &r.links {
            let kind = match l.kind {
                crate::algo::plan::LinkKind::Sdma => "SDMA",
                crate::algo::plan::LinkKind::Rdma => "RDMA",
            };
            let _ =
                writeln!(out, "  link to {}: level{} {kind} over {}, {} notifies", l.peer, l.level, l.over, l.notifies);
        }
        for s in &r.streams {
            let who = s.peer.map_or(String::new(), |p| format!(" (peer {p})"));
            let _ = writeln!(out, "  {}{who}:", s.name);
            for (i, t) in s.tasks.iter().enumerate() {
                let _ = writeln!(out, "    {:>3}  {t}", i + 1);
            }
        }
    }
    out
}

/// The plan as JSON (schema topo.algo.plan/1).
pub fn plan_json(p: &Plan) -> String {
    let mut v = serde_json::to_value(p).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("schema".into(), "topo.algo.plan/1".into());
    }
    super::to_json_string(&v)
}
