//! One NCCL message (the text after the record prefix) to one [`Rec`]. Every parser
//! is anchored at both ends: a message matches a kind whole or not at all, so prose that
//! quotes a log line, or a line of a modified NCCL that starts like an upstream one, is
//! not misread. This file picks the parser by the message's first characters; the
//! parsers stand by record family, as the assembler's files do: communicators
//! (`comms.rs`, K1-K3), the system print (`system.rs`, K4-K7), graphs (`graphs.rs`,
//! K8-K9), rings and trees (`rings.rs`, K10-K14), connections (`connections.rs`,
//! K15-K16), environment and tuning (`settings.rs`, K17-K23); what only RCCL prints is
//! told by `rccl.rs`.

mod comms;
mod connections;
mod graphs;
mod rings;
mod settings;
pub(crate) mod system;

pub(crate) use comms::version_text;

use super::known;
use super::rccl::{rccl_only, rccl_suffix};
use super::record::Rec;
use super::scan::{nat, nat32, sp, sp1, word};
use comms::{init, mnnvl, nodes, version};
use connections::{collnet, conn, connected};
use graphs::{graph_channel, pattern};
use rings::{nvls_head, nvls_trees, old_ring, ring_link, ring_order, tree, trees};
use settings::{affinity_new, comm_config, counts, env, gdr, net_line, thresholds, tuning};
use system::{path_line, sys_line, system_header};

/// Classify one message.
pub(crate) fn classify(msg: &str) -> Rec<'_> {
    let Some(&c0) = msg.as_bytes().first() else { return Rec::Empty };
    if msg.bytes().all(|b| b == b' ' || b == b'\t') {
        return Rec::Empty;
    }
    let parsed = match c0 {
        b' ' => leading_space(msg),
        b'=' => system_header(msg),
        b'+' => sys_line(msg),
        b'0'..=b'9' => digits_first(msg),
        b'[' => bracket_first(msg),
        _ => word_first(msg),
    };
    if let Some(r) = parsed {
        return r;
    }
    if let Some(r) = rccl_only(msg) {
        return r;
    }
    if known::is_known(msg) { Rec::Known } else { Rec::Unknown }
}

/// Messages that start with spaces: system children, graph channels `%2d :`, tuning rows.
fn leading_space(msg: &str) -> Option<Rec<'_>> {
    let t = sp(msg);
    match t.as_bytes().first()? {
        b'+' => sys_line(msg),
        b'0'..=b'9' => graph_channel(msg).map(Rec::GraphChannel),
        _ => tuning(msg).map(Rec::Tuning),
    }
}

fn digits_first(msg: &str) -> Option<Rec<'_>> {
    if let Some(c) = counts(msg) {
        return Some(Rec::Counts(c));
    }
    graph_channel(msg).map(Rec::GraphChannel)
}

fn bracket_first(msg: &str) -> Option<Rec<'_>> {
    if msg.starts_with("[Rank ") {
        return init(msg);
    }
    if msg.starts_with("[RINGS]") {
        return Some(Rec::Rccl("[RINGS] lines"));
    }
    None
}

fn word_first(msg: &str) -> Option<Rec<'_>> {
    let b = msg.as_bytes();
    // Node ids of the system print and the path lines.
    if b.len() > 4
        && b[3] == b'/'
        && system::is_node_type(&msg[..3])
        && let Some(r) = sys_line(msg).or_else(|| path_line(msg))
    {
        return Some(r);
    }
    match b[0] {
        b'M' if msg.starts_with("MNNVL ") => {
            if let Some(r) = mnnvl(msg) {
                return Some(r);
            }
        }
        b'C' => {
            if let Some(r) = msg.strip_prefix("Channel ") {
                return ring_order(r).map(Rec::RingOrder).or_else(|| conn(msg)).or_else(|| rccl_suffix(msg));
            }
            if msg.starts_with("Coll ") || msg.starts_with("CollNet ") {
                return collnet(msg);
            }
            if let Some(r) = msg.strip_prefix("Connected ") {
                return connected(r).or_else(|| rccl_suffix(msg));
            }
            if let Some(r) = msg.strip_prefix("CC ") {
                return Some(Rec::Detail { kind: "cc", value: r });
            }
            if msg.starts_with("Could not get speed from ") {
                return Some(Rec::Problem { kind: "net_speed_guessed", text: msg });
            }
            if msg.starts_with("Comm config ") {
                return comm_config(msg);
            }
        }
        b'R' => {
            if let Some(r) = msg.strip_prefix("Ring ") {
                return ring_link(r).or_else(|| conn(msg)).or_else(|| old_ring(r)).or_else(|| rccl_suffix(msg));
            }
            if msg.starts_with("RCCL") {
                return Some(Rec::Rccl("RCCL version or setting"));
            }
            // The one function name as wide as the tuning table's `%13s` column.
            if msg.starts_with("ReduceScatter |") {
                return tuning(msg).map(Rec::Tuning);
            }
        }
        b'T' => {
            if let Some(r) = msg.strip_prefix("Trees") {
                return trees(r).or_else(|| rccl_suffix(msg));
            }
            if let Some(r) = msg.strip_prefix("Tree ") {
                return tree(r);
            }
        }
        b'P' => {
            if let Some(r) = msg.strip_prefix("Pattern ") {
                return pattern(r);
            }
            if let Some(r) = msg.strip_prefix("P2P Chunksize set to ") {
                return nat(r).filter(|(_, x)| x.is_empty()).map(|_| Rec::Detail { kind: "p2p_chunksize", value: r });
            }
            if msg.starts_with("P2P is disabled between connected GPUs ") {
                return Some(Rec::Problem { kind: "p2p_disabled", text: msg });
            }
        }
        b'N' => {
            if let Some(r) = msg.strip_prefix("NCCL version ") {
                return version(r).map(Rec::Version);
            }
            if let Some(r) = msg.strip_prefix("NCCL git version ") {
                let (a, r) = word(r);
                let (b2, r) = word(sp1(r)?);
                return (!a.is_empty() && !b2.is_empty() && r.is_empty()).then_some(Rec::GitVersion);
            }
            if let Some(r) = msg.strip_prefix("NVLS Head") {
                return nvls_head(r);
            }
            if let Some(r) = msg.strip_prefix("NVLS Trees : ") {
                return nvls_trees(r);
            }
            if let Some(r) = msg.strip_prefix("NET/")
                && let Some(x) = net_line(r)
            {
                return Some(x);
            }
        }
        b'c' => {
            if let Some(r) = msg.strip_prefix("cudaDriverVersion ") {
                return nat(r).filter(|(_, x)| x.is_empty()).map(|_| Rec::Detail { kind: "cuda_driver", value: r });
            }
            if msg.starts_with("comm ") {
                return nodes(msg).map(Rec::Nodes).or_else(|| init(msg));
            }
        }
        b'n' => {
            if let Some(r) = msg.strip_prefix("ncclTopoGetCpuAffinity: Affinity for GPU ") {
                return affinity_new(r);
            }
            if msg.starts_with("nccl")
                && let Some(r) = init(msg)
            {
                return Some(r);
            }
        }
        b'S' => {
            if let Some(r) = msg.strip_prefix("Setting affinity for GPU ") {
                let (gpu, r) = nat32(r)?;
                let mask = r.strip_prefix(" to ")?;
                return (!mask.is_empty() && !mask.contains(' ')).then_some(Rec::Affinity {
                    gpu,
                    mask,
                    cpu: None,
                    new_form: false,
                });
            }
        }
        b'U' => {
            if let Some(r) = msg.strip_prefix("Using network ") {
                return (!r.trim().is_empty()).then_some(Rec::UsingNetwork(r));
            }
        }
        b't' => {
            if let Some(r) = msg.strip_prefix("threadThresholds ") {
                return thresholds(r);
            }
        }
        b'B' => {
            if let Some(r) = msg.strip_prefix("Bootstrap : Using").or_else(|| msg.strip_prefix("Bootstrap: Using")) {
                return Some(Rec::Detail { kind: "bootstrap", value: r.trim_start() });
            }
            if let Some(r) = msg.strip_prefix("Bootstrap timings ") {
                return Some(Rec::Detail { kind: "bootstrap_timings", value: r });
            }
        }
        b'I' => {
            if let Some(r) = msg.strip_prefix("Init timings") {
                return Some(Rec::Detail { kind: "init_timings", value: r.trim_start_matches([' ', ':', '-']) });
            }
        }
        b'L' => {
            if let Some(r) = msg.strip_prefix("Launch mode ") {
                return Some(Rec::Detail { kind: "launch_mode", value: r });
            }
            if msg.starts_with("Latency/AlgBw |") {
                return tuning(msg).map(Rec::Tuning);
            }
        }
        b'A' => {
            if let Some(r) = msg.strip_prefix("Assigned NET plugin ") {
                return Some(Rec::Detail { kind: "net_plugin", value: r });
            }
        }
        b'E' if msg == "Enabled NCCL Func/Proto/Algo Matrix:" => return Some(Rec::MatrixStart),
        b'G' => {
            if let Some(r) = msg.strip_prefix("GPU Direct RDMA ") {
                return gdr(r);
            }
        }
        _ => {}
    }
    env(msg)
}

#[cfg(test)]
mod tests;
