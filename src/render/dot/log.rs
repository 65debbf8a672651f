//! `topo log --dot`: the rings a log printed, over the GPUs it names.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::render::log::{Report, ranges};

/// The ring orders of the log's first communicator, each with the channels that run it:
/// from the `Channel xx/yy :` lines, else followed from rank 0 along the `Ring` lines.
fn ring_orders(r: &Report) -> BTreeMap<Vec<i64>, Vec<u32>> {
    let f = r.facts;
    let primary = f.primary();
    let mut orders: BTreeMap<Vec<i64>, Vec<u32>> = BTreeMap::new();
    for x in f.rings.iter().filter(|x| x.comm.is_none() || x.comm == primary) {
        orders.entry(x.order.clone()).or_default().push(x.channel);
    }
    if orders.is_empty() {
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
    orders
}

/// The logged rings over the logged GPUs, one small loop per distinct ring order;
/// `None` when the log holds no ring order to draw.
pub fn picture(r: &Report) -> Option<String> {
    let f = r.facts;
    let orders = ring_orders(r);
    if orders.is_empty() {
        return None;
    }
    let mut out = String::new();
    let version = f.nccl_version.as_ref().map(|v| format!("NCCL {}", v.value)).unwrap_or_else(|| "NCCL".into());
    let _ = writeln!(out, "digraph nccl_log {{");
    let _ = writeln!(
        out,
        "  graph [label=\"{} — {version} rings as logged (one loop per distinct order)\", labelloc=t, fontname=Helvetica];",
        r.name.replace('"', "'")
    );
    let _ = writeln!(out, "  node [shape=box, style=rounded, fontname=Helvetica];");
    let primary = f.primary();
    let bus: BTreeMap<u32, String> = f
        .ranks
        .iter()
        .filter(|x| Some(x.comm) == primary)
        .filter_map(|x| x.bus_id.clone().map(|b| (x.rank, b)))
        .collect();
    for (k, (order, chans)) in orders.iter().enumerate() {
        ring_cluster(&mut out, k, order, &ranges(chans.clone()), &bus);
    }
    out.push_str("}\n");
    Some(out)
}

/// One ring order as a cluster laid out by `dot` itself: a snake of rows (the first
/// left to right, the next right to left, ...) closed by the step from the last GPU back
/// to the first. Only `rank=same` rows and edge directions shape it, which every Graphviz
/// from 2.42 lays out (a cluster's `layout=` attribute is not: 2.43 fails on it).
fn ring_cluster(out: &mut String, k: usize, order: &[i64], chans: &str, bus: &BTreeMap<u32, String>) {
    let n = order.len();
    let id = |i: usize| format!("o{k}i{i}");
    let _ = writeln!(out, "  subgraph cluster_{k} {{");
    let _ = writeln!(out, "    label=\"channels {chans}\";");
    for (i, &rank) in order.iter().enumerate() {
        let b = u32::try_from(rank).ok().and_then(|r| bus.get(&r)).map(|b| format!("\\n{b}")).unwrap_or_default();
        let _ = writeln!(out, "    \"{}\" [label=\"GPU rank {rank}{b}\"];", id(i));
    }
    let rows = super::search::snake(n, super::search::snake_cols(n));
    let row_of = |i: usize| rows.iter().position(|r| r.contains(&i));
    for row in &rows {
        let ids: Vec<String> = row.iter().map(|&i| format!("\"{}\"", id(i))).collect();
        let _ = writeln!(out, "    {{rank=same; {}}}", ids.join("; "));
        // Keep each row in its order, left to right.
        for w in ids.windows(2) {
            let _ = writeln!(out, "    {} -> {} [style=invis];", w[0], w[1]);
        }
    }
    let mut step = |a: usize, b: usize| {
        let (ra, rb) = (row_of(a), row_of(b));
        if ra == rb && ra.is_some_and(|r| r % 2 == 1) {
            // A right-to-left row: drawn from its left end, the arrow pointing back.
            let _ = writeln!(out, "    \"{}\" -> \"{}\" [dir=back];", id(b), id(a));
        } else if ra.zip(rb).is_some_and(|(x, y)| y < x) {
            // The step back up to the first row closes the loop without pulling rows.
            let _ = writeln!(out, "    \"{}\" -> \"{}\" [constraint=false];", id(a), id(b));
        } else {
            let _ = writeln!(out, "    \"{}\" -> \"{}\";", id(a), id(b));
        }
    };
    for i in 1..n {
        step(i - 1, i);
    }
    if n > 1 {
        step(n - 1, 0);
    }
    let _ = writeln!(out, "  }}");
}
