//! The `graphs` object of the analysis JSON (schema 1): each graph's channels.

use crate::model::NodeType;
use crate::model::system::System;
use crate::search::{Graph, Graphs, Pattern};

/// The JSON of one graph (schema 1), or null when NCCL does not use it.
pub fn graph_json(sys: &System, g: &Graph) -> serde_json::Value {
    if !g.computed || g.n_channels == 0 {
        return serde_json::Value::Null;
    }
    let ngpus = sys.count(NodeType::Gpu);
    let net_dev = |id: Option<i64>| -> i64 {
        id.and_then(|id| sys.find(NodeType::Net, id))
            .and_then(|n| sys.list(NodeType::Net)[n].net().map(|x| x.dev as i64))
            .unwrap_or(-1)
    };
    let channels: Vec<serde_json::Value> = (0..g.n_channels as usize)
        .map(|c| {
            let mut m = serde_json::Map::new();
            // A NET of another tray of a fused system names its host (schema: omitted for 0).
            let host = |id: Option<i64>| id.map(crate::model::system::id_system).filter(|&h| h != 0);
            if sys.inter {
                m.insert("net_in".into(), net_dev(g.inter[c * 2]).into());
                if let Some(h) = host(g.inter[c * 2]) {
                    m.insert("net_in_host".into(), h.into());
                }
            }
            if g.pattern == Pattern::Nvls {
                m.insert("head".into(), g.intra[c * ngpus].into());
            } else {
                m.insert("ranks".into(), g.intra[c * ngpus..(c + 1) * ngpus].to_vec().into());
            }
            if sys.inter {
                m.insert("net_out".into(), net_dev(g.inter[c * 2 + 1]).into());
                if let Some(h) = host(g.inter[c * 2 + 1]) {
                    m.insert("net_out_host".into(), h.into());
                }
            }
            serde_json::Value::Object(m)
        })
        .collect();
    serde_json::json!({
        "pattern": g.pattern.number(),
        "crossnic": g.cross_nic.number(),
        "nchannels": g.n_channels,
        "bw_intra": g.bw_intra,
        "bw_inter": g.bw_inter,
        "latency_inter": g.latency_inter,
        "type_intra": g.type_intra.name(),
        "type_inter": g.type_inter.name(),
        "same_channels": g.same_channels as i32,
        "from_graph_file": g.from_file,
        "channels": channels,
    })
}

/// The `graphs` object of the analysis JSON.
pub fn graphs_json(sys: &System, gs: &Graphs) -> serde_json::Value {
    serde_json::json!({
        "ring": graph_json(sys, &gs.ring),
        "tree": graph_json(sys, &gs.tree),
        "nvls": graph_json(sys, &gs.nvls),
        "collnet_chain": graph_json(sys, &gs.collnet_chain),
        "collnet_direct": graph_json(sys, &gs.collnet_direct),
    })
}
