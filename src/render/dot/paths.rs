//! `topo paths --dot`: the machine as NCCL models it.

use super::graphviz::{graph_attrs, legend_at_bottom, print};
use super::layout::Layout;
use super::machine::{machine_legend_rows, machine_stmts};
use crate::model::{Analysis, NodeType};

/// The title: the machine, the node count and the NCCL release.
fn title(an: &Analysis, what: &str) -> String {
    let sys = &an.system;
    format!(
        "{}\\n{} GPU(s), {} NIC port(s), {} — NCCL {} {what}",
        an.input,
        an.gpus.len(),
        sys.count(NodeType::Net),
        an.nodes_text(),
        an.options.env.release()
    )
}

/// `topo paths --dot`: the machine.
pub fn picture(an: &Analysis) -> String {
    if an.mnnvl.enabled && an.mnnvl.hosts > 1 {
        return super::rack::picture(an, &title(an, "model"));
    }
    let lay = Layout::new(an);
    let mut stmts = graph_attrs(&title(an, "model"));
    stmts.extend(machine_stmts(an, &lay, &|_, _, _| Vec::new()));
    let mut legend = machine_legend_rows(&an.system);
    if !lay.trimmed.is_empty() {
        legend.push((None, "trimmed", "dashed GPU: rank 0 reaches it only through the network"));
    }
    stmts.extend(legend_at_bottom(&legend, &lay.bottom_node(&an.system)));
    print(stmts)
}
