//! Environment and tuning (K17-K23 records): settings, the network and its devices,
//! GPUDirect RDMA verdicts, CPU affinity, thread thresholds, channel counts and the
//! tuning table.

use super::sink::Pending;
use super::state::{Assembler, Outcome, Tune};
use crate::log::facts::*;
use crate::log::record::{Counts, Gdr, TuneLine};
use crate::log::scan;
use crate::log::version::Fp;

impl Assembler {
    pub(super) fn env(&mut self, si: usize, name: &str, value: &str, source: &str) -> Outcome {
        let x = EnvSetting {
            name: name.to_string(),
            value: value.to_string(),
            source: source.to_string(),
            host: self.host_name(self.streams[si].host),
        };
        if self.sink.once(21, &x, None) {
            self.sink.f.env.push(x);
        }
        Outcome::Read
    }

    pub(super) fn net_using(&mut self, si: usize, kind: &str, rest: &str, near_limit: bool) -> Outcome {
        let (devices, oob, truncated) = net_devices(rest, near_limit);
        if truncated {
            self.sink.f.lines.truncated += 1;
        }
        let host = self.host_name(self.streams[si].host);
        let i = self.net(host, kind);
        let n = &mut self.sink.f.nets[i];
        if n.devices.is_empty() {
            n.devices = devices;
        }
        if n.oob.is_none() {
            n.oob = oob;
        }
        Outcome::Read
    }

    pub(super) fn using_network(&mut self, si: usize, name: &str) -> Outcome {
        self.ev.see(Fp::UsingNetwork);
        let host = self.host_name(self.streams[si].host);
        self.net(host, name);
        Outcome::Read
    }

    pub(super) fn gdr(&mut self, si: usize, g: Gdr<'_>) -> Outcome {
        let x = GdrLine {
            host: self.host_name(self.streams[si].host),
            gpu: g.gpu.map(str::to_string),
            nic: g.nic.to_string(),
            nic_name: g.nic_name.map(str::to_string),
            enabled: g.enabled,
            detail: g.detail.to_string(),
        };
        if self.sink.once(22, &x, None) {
            self.sink.f.gdr.push(x);
        }
        Outcome::Read
    }

    pub(super) fn affinity(&mut self, si: usize, gpu: u32, mask: &str, cpu: Option<&str>, new_form: bool) -> Outcome {
        self.ev.see(if new_form { Fp::AffinityNew } else { Fp::AffinityOld });
        let x = Affinity {
            comm: None,
            rank: None,
            host: self.host_name(self.streams[si].host),
            gpu,
            mask: mask.to_string(),
            cpu_mask: cpu.map(str::to_string),
        };
        self.attribute(si, Pending::Aff(x));
        Outcome::Read
    }

    pub(super) fn thresholds(&mut self, si: usize, groups: Vec<Vec<i64>>) -> Outcome {
        let fp = match groups.len() {
            2 => Some(Fp::Thresholds2),
            3 => Some(Fp::Thresholds3),
            4 => Some(Fp::Thresholds4),
            _ => None,
        };
        if let Some(fp) = fp {
            self.ev.see(fp);
        }
        self.attribute(si, Pending::Thr(Thresholds { comm: None, rank: None, groups }));
        Outcome::Read
    }

    pub(super) fn channel_counts(&mut self, si: usize, c: Counts) -> Outcome {
        self.ev.see(match (c.collnet, c.nvls) {
            (Some(_), _) => Fp::Counts5,
            (None, Some(_)) => Fp::Counts4,
            (None, None) => Fp::Counts3,
        });
        let x = ChannelCounts {
            comm: None,
            rank: None,
            coll: c.coll,
            collnet: c.collnet,
            nvls: c.nvls,
            p2p: c.p2p,
            p2p_per_peer: c.p2p_per_peer,
        };
        self.attribute(si, Pending::Counts(x));
        Outcome::Read
    }

    pub(super) fn tuning_line(&mut self, si: usize, t: TuneLine<'_>) -> Outcome {
        // Only rank 0 prints the tuning table.
        self.streams[si].hint.get_or_insert(0);
        self.tuning(si, t);
        Outcome::Read
    }

    fn net(&mut self, host: Option<String>, kind: &str) -> usize {
        let key = (host.clone(), kind.to_string());
        if let Some(&i) = self.sink.nets.get(&key) {
            return i;
        }
        self.sink.f.nets.push(NetUse { host, kind: kind.to_string(), ..NetUse::default() });
        let i = self.sink.f.nets.len() - 1;
        self.sink.nets.insert(key, i);
        i
    }

    fn tuning(&mut self, si: usize, t: TuneLine<'_>) {
        let s = &mut self.streams[si];
        let tune = s.tune.get_or_insert_with(Tune::default);
        match t {
            TuneLine::Pairs(p) => {
                self.ev.see(Fp::TuneLatency);
                tune.columns = p.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
            }
            TuneLine::Algos(a) => {
                self.ev.see(Fp::TuneAlgorithm);
                tune.algos = a.iter().map(|x| x.to_string()).collect();
                tune.columns.clear();
            }
            TuneLine::Protos(p) => {
                // Three protocols per algorithm (the last block of 2.24+ prints nine
                // headers over one algorithm).
                tune.columns.clear();
                for (ai, a) in tune.algos.iter().enumerate() {
                    for pr in p.iter().skip(ai * 3).take(3) {
                        tune.columns.push((a.clone(), pr.to_string()));
                    }
                }
            }
            TuneLine::MaxThreads(v) => {
                for ((a, p), n) in tune.columns.iter().zip(v) {
                    tune.table.max_threads.push((a.clone(), p.clone(), n));
                }
            }
            TuneLine::Row(func, cells) => {
                for ((a, p), (lat, bw)) in tune.columns.iter().zip(cells) {
                    tune.table.rows.push(TuningRow {
                        func: func.to_string(),
                        algo: a.clone(),
                        proto: p.clone(),
                        latency: lat,
                        bw,
                    });
                }
            }
        }
    }

    pub(super) fn close_tune(&mut self, si: usize) {
        if let Some(t) = self.streams[si].tune.take()
            && !t.table.rows.is_empty()
        {
            self.attribute(si, Pending::Tuning(t.table));
        }
    }
}

/// Devices of `NET/X : Using ...`: IB ` [0]mlx5_0:1/IB`, merged ` [0]={[0] a:1/IB, [1]
/// b:1/IB}`, socket ` [0]eno1:10.0.0.1<0>`; then ` [RO]` and `; OOB if:addr`.
pub(super) fn net_devices(rest: &str, near_limit: bool) -> (Vec<NetDevice>, Option<String>, bool) {
    let (list, oob) = match rest.find("; OOB ") {
        Some(i) => (&rest[..i], Some(rest[i + "; OOB ".len()..].to_string())),
        None => (rest, None),
    };
    let mut devices = Vec::new();
    let mut r = list;
    let mut truncated = false;
    loop {
        let t = r.trim_start();
        if t.is_empty() || t == "[RO]" {
            break;
        }
        let Some(x) = t.strip_prefix('[') else {
            truncated = true;
            break;
        };
        let Some((index, x)) = scan::nat32(x) else {
            truncated = true;
            break;
        };
        let Some(x) = x.strip_prefix(']') else {
            truncated = true;
            break;
        };
        // The item runs to the next ` [N]` (merged items hold `, [N] ` inside braces).
        let end = if x.starts_with("={") { x.find('}').map(|i| i + 1) } else { next_item(x) }.unwrap_or(x.len());
        let body = x[..end].trim_end();
        r = &x[end..];
        devices.push(net_device(index, body));
    }
    if (near_limit && oob.is_none()) || truncated {
        if !truncated {
            devices.pop();
        }
        return (devices, oob, true);
    }
    (devices, oob, false)
}

fn next_item(x: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = x[from..].find(" [") {
        let at = from + i;
        let t = &x[at + 2..];
        if scan::nat(t).is_some_and(|(_, r)| r.starts_with(']')) || t.starts_with("RO]") {
            return Some(at);
        }
        from = at + 2;
    }
    None
}

fn net_device(index: u32, body: &str) -> NetDevice {
    if let Some(inner) = body.strip_prefix("={").and_then(|b| b.strip_suffix('}')) {
        let parts: Vec<NetDevice> = inner
            .split(", ")
            .filter_map(|p| {
                let p = p.strip_prefix('[')?;
                let (_, p) = scan::nat32(p)?;
                Some(net_device(index, p.strip_prefix("] ")?))
            })
            .collect();
        return NetDevice {
            index,
            name: parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join("+"),
            port: parts.first().and_then(|p| p.port),
            link: parts.first().and_then(|p| p.link.clone()),
        };
    }
    let Some((name, rest)) = body.split_once(':') else {
        return NetDevice { index, name: body.to_string(), port: None, link: None };
    };
    // IB: `mlx5_0:1/IB` (2.30.3+ `mlx5_0:1:rail:plane/IB`); socket: `eno1:10.0.0.1<0>`.
    if let Some((port, r)) = scan::nat32(rest)
        && let Some(i) = r.find('/')
        && r[..i].bytes().all(|b| b == b':' || b.is_ascii_digit())
    {
        return NetDevice { index, name: name.to_string(), port: Some(port), link: Some(r[i + 1..].to_string()) };
    }
    NetDevice { index, name: name.to_string(), port: None, link: Some(rest.to_string()) }
}
