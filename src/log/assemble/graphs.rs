//! Graphs (K8-K9 records): a `Pattern` line opens a graph on its stream, its channel
//! lines fill it; 2.27.5+ channel lines name GPUs by bus id, mapped to ranks at the end.

use super::sink::Pending;
use super::state::{Assembler, Outcome};
use crate::log::facts::*;
use crate::log::record::{GraphChannelLine, Pattern};
use crate::log::scan;
use crate::log::version::Fp;
use crate::xml::i64_to_busid;

impl Assembler {
    pub(super) fn pattern(&mut self, si: usize, p: Pattern<'_>) -> Outcome {
        self.ev.see(if !p.float {
            Fp::PatternInt
        } else if p.speed {
            Fp::PatternSpeed
        } else {
            Fp::PatternBw
        });
        let s = &mut self.streams[si];
        let g = GraphPrint {
            index: s.graph_index,
            pattern: p.pattern,
            crossnic: p.crossnic,
            nchannels: p.nchannels,
            bw_intra: p.bw_intra,
            bw_inter: p.bw_inter,
            type_intra: p.type_intra.to_string(),
            type_inter: p.type_inter.to_string(),
            same_channels: p.same_channels,
            nvlink: p.nvlink,
            ..GraphPrint::default()
        };
        s.graph_index += 1;
        let mut g = g;
        g.host = self.host_name(self.streams[si].host);
        if p.nchannels == 0 {
            self.attribute(si, Pending::Graph(g));
        } else {
            self.streams[si].graph = Some((g, p.nchannels));
        }
        Outcome::Read
    }

    pub(super) fn graph_channel(&mut self, si: usize, l: GraphChannelLine<'_>) -> Outcome {
        let Some((g, expected)) = &mut self.streams[si].graph else {
            self.orphan_channels += 1;
            return Outcome::Skipped;
        };
        let mut ch = GraphChannel { channel: l.channel, ..GraphChannel::default() };
        let n = l.items.len();
        let mut fps = Vec::new();
        for (i, (net, id)) in l.items.iter().enumerate() {
            if *net {
                if id.contains('-') {
                    fps.push(Fp::GraphNetDashed);
                } else if id.bytes().any(|b| b.is_ascii_alphabetic()) {
                    fps.push(Fp::GraphNetHex);
                }
                if i == 0 {
                    ch.net_in = Some(id.to_string());
                } else if i + 1 == n {
                    ch.net_out = Some(id.to_string());
                }
            } else if id.contains('-') {
                fps.push(Fp::GraphGpuId);
                ch.gpu_ids.push(id.to_string());
            } else {
                fps.push(Fp::GraphGpuRank);
                ch.gpus.push(scan::int(id).filter(|(_, r)| r.is_empty()).map_or(-1, |(v, _)| v));
            }
        }
        if g.pattern == 5 {
            ch.gpus.truncate(1);
            ch.gpu_ids.truncate(1);
        }
        g.channels.push(ch);
        let done = g.channels.len() as u32 >= *expected;
        if done {
            self.close_graph(si);
        }
        for fp in fps {
            self.ev.see(fp);
        }
        Outcome::Read
    }

    pub(super) fn close_graph(&mut self, si: usize) {
        if let Some((g, _)) = self.streams[si].graph.take() {
            self.attribute(si, Pending::Graph(g));
        }
    }
}

/// 2.27.5+ graph channel lines print GPU bus ids: ranks from the system print's
/// `GPU/... (rank)` of the same host, else from the comm lines.
pub(super) fn map_graph_gpus(f: &mut LogFacts) {
    for gi in 0..f.graphs.len() {
        if f.graphs[gi].channels.iter().all(|c| c.gpu_ids.is_empty()) {
            continue;
        }
        let host = f.graphs[gi].host.clone();
        let comm = f.graphs[gi].comm;
        let rank_of = |id: &str| -> Option<i64> {
            let (_, local) = id.split_once('-')?;
            let (local, _) = scan::hex(local)?;
            let from_print = f
                .systems
                .iter()
                .filter(|s| s.host == host)
                .flat_map(|s| s.nodes.iter())
                .find(|n| n.kind == "GPU" && n.local_id == local)
                .and_then(|n| n.rank);
            from_print.or_else(|| {
                let bus = i64_to_busid(i64::try_from(local).ok()?);
                f.ranks
                    .iter()
                    .find(|r| {
                        r.host == host && (comm.is_none() || Some(r.comm) == comm) && r.bus_id.as_deref() == Some(&bus)
                    })
                    .map(|r| i64::from(r.rank))
            })
        };
        let mapped: Vec<Option<Vec<i64>>> = f.graphs[gi]
            .channels
            .iter()
            .map(|c| c.gpu_ids.iter().map(|id| rank_of(id)).collect::<Option<Vec<i64>>>())
            .collect();
        for (c, m) in f.graphs[gi].channels.iter_mut().zip(mapped) {
            if !c.gpu_ids.is_empty() {
                c.gpus = m.unwrap_or_default();
            }
        }
    }
}
