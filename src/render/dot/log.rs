//! `topo log --dot`: the rings a log printed, over the GPUs it names.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::render::log::{Report, ranges};

/// The logged rings over the logged GPUs, one small circle per distinct ring order.
pub fn picture(r: &Report) -> String {
    let f = r.facts;
    let primary = f.primary();
    let mut out = String::new();
    let version = f.nccl_version.as_ref().map(|v| format!("NCCL {}", v.value)).unwrap_or_else(|| "NCCL".into());
    let _ = writeln!(out, "digraph nccl_log {{");
    let _ = writeln!(
        out,
        "  graph [label=\"{} — {version} rings as logged (one circle per distinct order)\", labelloc=t, fontname=Helvetica];",
        r.name.replace('"', "'")
    );
    let _ = writeln!(out, "  node [shape=box, style=rounded, fontname=Helvetica];");
    let bus: BTreeMap<u32, String> = f
        .ranks
        .iter()
        .filter(|x| Some(x.comm) == primary)
        .filter_map(|x| x.bus_id.clone().map(|b| (x.rank, b)))
        .collect();
    let mut orders: BTreeMap<Vec<i64>, Vec<u32>> = BTreeMap::new();
    for x in f.rings.iter().filter(|x| x.comm.is_none() || x.comm == primary) {
        orders.entry(x.order.clone()).or_default().push(x.channel);
    }
    if orders.is_empty() {
        // Rebuild orders from Ring lines: follow next from rank 0.
        let mut next: BTreeMap<(u32, i64), i64> = BTreeMap::new();
        for l in f.ring_links.iter().filter(|x| x.comm.is_none() || x.comm == primary) {
            next.insert((l.channel, l.rank as i64), l.next);
        }
        let chans: BTreeSet<u32> = next.keys().map(|k| k.0).collect();
        for c in chans {
            let mut order = vec![0i64];
            while let Some(&n) = next.get(&(c, *order.last().unwrap_or(&0))) {
                if n == 0 || order.len() > 4096 || order.contains(&n) {
                    break;
                }
                order.push(n);
            }
            orders.entry(order).or_default().push(c);
        }
    }
    for (k, (order, chans)) in orders.iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_{k} {{");
        let _ = writeln!(out, "    label=\"channels {}\"; layout=circo;", ranges(chans.clone()));
        for &rank in order {
            let b = bus.get(&(rank as u32)).map(|b| format!("\\n{b}")).unwrap_or_default();
            let _ = writeln!(out, "    \"o{k}r{rank}\" [label=\"GPU rank {rank}{b}\"];");
        }
        for w in order.windows(2) {
            let _ = writeln!(out, "    \"o{k}r{}\" -> \"o{k}r{}\";", w[0], w[1]);
        }
        if order.len() > 1 {
            let _ = writeln!(out, "    \"o{k}r{}\" -> \"o{k}r{}\";", order[order.len() - 1], order[0]);
        }
        let _ = writeln!(out, "  }}");
    }
    out.push_str("}\n");
    out
}
