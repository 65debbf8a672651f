//! `topo algo show`: a program's shape per GPU (thread blocks, channels, peers, steps)
//! and per connection (chunks per loop, the thread blocks at both ends), and, placed on
//! a machine (the program's GPU i is the job's rank i), the NCCL path and transport
//! each connection runs over.

use std::collections::{BTreeMap, BTreeSet};

use super::program::{Conn, Program};
use crate::model::Analysis;

/// One GPU of the program.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GpuShape {
    pub id: u32,
    pub tbs: usize,
    pub channels: Vec<u32>,
    pub send_peers: Vec<u32>,
    pub recv_peers: Vec<u32>,
    pub steps: usize,
    /// Steps by type (`s`, `r`, `rrc`, ...).
    pub kinds: BTreeMap<&'static str, usize>,
    pub input_chunks: u32,
    pub output_chunks: u32,
    pub scratch_chunks: u32,
}

/// What a connection runs over on the machine.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Route {
    /// NCCL's path type between the two GPUs (`NVL`, `PIX`, `SYS`, ...), or `NET`
    /// between nodes.
    #[serde(rename = "type")]
    pub ty: String,
    /// The path's bandwidth in GB/s (NCCL's figure; between nodes, the sender's NIC).
    pub bw: f64,
    /// NCCL's transport: P2P, SHM (through the CPU) or NET.
    pub transport: String,
    pub across_nodes: bool,
}

/// One connection of the program.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ConnShape {
    #[serde(flatten)]
    pub conn: Conn,
    /// Chunks sent per loop iteration (the sum of the sending steps' counts).
    pub chunks: u64,
    /// Send-type steps on it.
    pub messages: usize,
    pub send_tbs: Vec<u32>,
    pub recv_tbs: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<Route>,
}

/// The whole picture.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Shown {
    pub gpus: Vec<GpuShape>,
    pub connections: Vec<ConnShape>,
    /// Index into `connections` of the one that carries the most chunks.
    pub busiest: Option<usize>,
    /// The machine it was placed on: label, GPUs per node, nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<(String, usize, usize)>,
}

fn entry(conns: &mut BTreeMap<Conn, ConnShape>, c: Conn) -> &mut ConnShape {
    conns.entry(c).or_insert_with(|| ConnShape {
        conn: c,
        chunks: 0,
        messages: 0,
        send_tbs: Vec::new(),
        recv_tbs: Vec::new(),
        route: None,
    })
}

/// The program's shape, without a machine.
pub fn shape(p: &Program) -> Shown {
    let mut conns: BTreeMap<Conn, ConnShape> = BTreeMap::new();
    let mut gpus = Vec::new();
    for g in &p.gpus {
        let mut kinds: BTreeMap<&'static str, usize> = BTreeMap::new();
        let mut channels = BTreeSet::new();
        let (mut sp, mut rp) = (BTreeSet::new(), BTreeSet::new());
        for t in &g.tbs {
            channels.insert(t.chan);
            for s in &t.steps {
                *kinds.entry(s.kind.xml_name()).or_default() += 1;
            }
            if let Some(to) = t.send {
                sp.insert(to);
                let e = entry(&mut conns, Conn { chan: t.chan, from: g.id, to });
                e.send_tbs.push(t.id);
                for s in t.steps.iter().filter(|s| s.kind.sends()) {
                    e.chunks += u64::from(s.count);
                    e.messages += 1;
                }
            }
            if let Some(from) = t.recv {
                rp.insert(from);
                entry(&mut conns, Conn { chan: t.chan, from, to: g.id }).recv_tbs.push(t.id);
            }
        }
        gpus.push(GpuShape {
            id: g.id,
            tbs: g.tbs.len(),
            channels: channels.into_iter().collect(),
            send_peers: sp.into_iter().collect(),
            recv_peers: rp.into_iter().collect(),
            steps: g.tbs.iter().map(|t| t.steps.len()).sum(),
            kinds,
            input_chunks: g.input_chunks,
            output_chunks: g.output_chunks,
            scratch_chunks: g.scratch_chunks,
        });
    }
    let connections: Vec<ConnShape> = conns.into_values().collect();
    let busiest = (0..connections.len()).max_by_key(|&i| (connections[i].chunks, std::cmp::Reverse(i)));
    Shown { gpus, connections, busiest, machine: None }
}

/// Place the program on a machine of `nodes` identical nodes: rank r is GPU r % G of
/// node r / G. `Err` when the program has more GPUs than the job has ranks.
pub fn place(shown: &mut Shown, p: &Program, an: &Analysis) -> Result<(), String> {
    let per_node = an.gpus.len();
    let nodes = an.options.nodes.max(1);
    let ranks = per_node * nodes;
    if per_node == 0 {
        return Err(format!("{} has no GPU NCCL would use", an.input));
    }
    if p.header.ngpus as usize > ranks {
        let need = (p.header.ngpus as usize).div_ceil(per_node);
        return Err(format!(
            "the program has {} GPUs and {} has {ranks} ({per_node} per node x {nodes} node{}): give --nodes {need}",
            p.header.ngpus,
            an.input,
            if nodes == 1 { "" } else { "s" }
        ));
    }
    let best_net_bw = |local: usize| {
        an.paths
            .gpu_net
            .iter()
            .filter(|r| r.rank == Some(local as i32) || r.from == Some(local as i32))
            .map(|r| f64::from(r.bw))
            .fold(0.0, f64::max)
    };
    for c in &mut shown.connections {
        let (from, to) = (c.conn.from as usize, c.conn.to as usize);
        let (nf, nt) = (from / per_node, to / per_node);
        let (lf, lt) = (from % per_node, to % per_node);
        c.route = Some(if nf != nt {
            Route { ty: "NET".into(), bw: best_net_bw(lf), transport: "NET".into(), across_nodes: true }
        } else {
            let path = an.paths.gpu_gpu.iter().find(|r| r.from == Some(lf as i32) && r.to == Some(lt as i32));
            let transport =
                an.p2p.iter().find(|r| r.from == lf as i32 && r.to == lt as i32).map_or("P2P".to_string(), |r| {
                    serde_json::to_value(r.transport)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                });
            Route {
                ty: path.map_or("?".into(), |r| r.ty.to_string()),
                bw: path.map_or(0.0, |r| f64::from(r.bw)),
                transport,
                across_nodes: false,
            }
        });
    }
    shown.machine = Some((an.input.clone(), per_node, nodes));
    Ok(())
}
