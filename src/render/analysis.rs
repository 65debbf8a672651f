//! `topo analyze --json` (schema 1): every decision of the model in one document; the
//! command layer adds the graphs, the channels NCCL runs and the tuning tables.

use crate::model::Analysis;

/// The JSON document of `topo analyze --json` (schema 1).
pub fn json(an: &Analysis, graphs: serde_json::Value) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "schema": 1,
        "nccl_version": an.options.env.release().to_string(),
        "nccl_checked": an.options.env.release().checked(),
        "input": an.input,
        "nodes": an.options.nodes,
        "env": an.options.env.vars(),
        "flags": {
            "p2p_support": an.options.p2p_support,
            "nic_fusion": an.options.nic_fusion,
            "collnet": an.options.collnet,
            "nvls": an.options.nvls,
        },
        "gpus": an.gpus,
        "nets": an.nets,
        "system": an.sys_rec,
        "levels": an.levels,
        "trimmed": an.trimmed,
        "paths": an.paths,
        "p2p": an.p2p,
        "gdr": an.gdr,
        "graphs": graphs,
        "warnings": an.diags.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
    });
    // Only where it was asked for (`--mnnvl` or NCCL_MNNVL_ENABLE=1): the schema's
    // documents without it stay as they were.
    if an.options.mnnvl || an.options.env.mnnvl.enable == 1 {
        doc["mnnvl"] = serde_json::to_value(an.mnnvl).unwrap_or_default();
    }
    doc
}
