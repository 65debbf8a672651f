//! Communicators (K1-K3 records): which communicator and rank each `Init` and `comm ...
//! nNodes` line names, and the node counts the log leaves out.

use std::collections::HashSet;

use super::sink::NONE;
use super::state::{Assembler, InitSeen, Outcome, SplitOf};
use crate::log::facts::*;
use crate::log::record::{CliqueRec, FabricRec, Init, InitPhase, Nodes, RackRec};
use crate::log::version::Fp;
use crate::xml::i64_to_busid;

impl Assembler {
    pub(super) fn nodes(&mut self, si: usize, n: Nodes) -> Outcome {
        self.ev.see(Fp::NodesLine);
        let host = self.streams[si].host.unwrap_or(NONE);
        let pid = self.streams[si].pid.unwrap_or(NONE);
        let comm = match self.reg.by_ptr.get(&(host, pid, n.ptr)) {
            Some(&c) => c,
            None => self.comm_for(si, None, n.ptr, n.nranks, n.rank, None),
        };
        let c = &mut self.sink.f.comms[comm];
        c.nnodes = Some(n.nnodes);
        c.nnodes_source = Some("log".into());
        c.local_ranks = Some(n.local_ranks);
        c.mnnvl = Some(n.mnnvl != 0);
        self.rank_info(si, comm, n.rank).local_rank = Some(n.local_rank);
        let s = &mut self.streams[si];
        s.rank = Some(n.rank);
        if s.comm.is_none() {
            s.comm = Some(comm);
            self.flush_pending(si, Some(comm), Some(n.rank));
        }
        self.note_pid_comm(si, comm);
        Outcome::Read
    }

    pub(super) fn fabric(&mut self, si: usize, f: FabricRec) -> Outcome {
        let x = FabricLine {
            host: self.host_name(self.streams[si].host),
            bus_id: i64_to_busid(f.bus_id as i64),
            cluster_uuid: format!("{:x}.{:x}", f.uuid.0, f.uuid.1),
            clique_id: f.clique_id,
            state: f.state,
            health_mask: f.health_mask,
        };
        if self.sink.once(26, &x, None) {
            self.sink.f.fabric.push(x);
        }
        Outcome::Read
    }

    pub(super) fn rack(&mut self, si: usize, r: RackRec<'_>) -> Outcome {
        let x = RackLine {
            host: self.host_name(self.streams[si].host),
            serial: r.serial.to_string(),
            slot: r.slot,
            tray: r.tray,
            host_id: r.host_id,
            module_id: r.module_id,
        };
        if self.sink.once(28, &x, None) {
            self.sink.f.racks.push(x);
        }
        Outcome::Read
    }

    pub(super) fn clique(&mut self, si: usize, c: CliqueRec) -> Outcome {
        let s = &self.streams[si];
        let x = CliqueLine {
            host: self.host_name(s.host),
            comm: s.comm,
            rank: s.rank,
            mnnvl: c.mnnvl != 0,
            clique_id: c.clique_id,
            clique_size: c.size,
            clique_rank: c.rank,
            nvl_domain_size: c.nvl_domain,
        };
        if self.sink.once(27, &x, None) {
            self.sink.f.cliques.push(x);
        }
        Outcome::Read
    }

    pub(super) fn init(&mut self, si: usize, i: &Init<'_>) {
        self.ev.see(match (i.nvml_dev, i.comm_id, i.phase) {
            (Some(_), _, _) | (_, _, InitPhase::Start) => Fp::InitNvml,
            (None, Some(_), _) => Fp::InitNoNvml,
            (None, None, _) => Fp::InitNoCommId,
        });
        if let Some(f) = i.func {
            self.ev.see(Fp::InitFunc);
            if f != "ncclCommInitRank" && f != "ncclCommSplit" {
                self.ev.see(Fp::InitAnyFunc);
            }
        }
        if i.rank_prefix.is_some() {
            self.ev.see(Fp::InitRankPrefix);
        }
        let split = match (i.parent, i.color) {
            (Some(parent), Some(color)) => Some(SplitOf { parent, count: i.split_count, color }),
            _ => None,
        };
        let comm = self.comm_for(si, i.comm_id, i.ptr, i.nranks, i.rank, split);
        let s = &self.streams[si];
        self.inits.push(InitSeen {
            host: s.host,
            pid: s.pid,
            cuda_dev: i.cuda_dev,
            seq: self.seq,
            comm,
            complete: i.phase == InitPhase::Complete,
        });
        {
            let c = &mut self.sink.f.comms[comm];
            if c.func.is_none() {
                c.func = i.func.map(str::to_string);
            }
        }
        let bus = i64::try_from(i.bus_id).ok().map(i64_to_busid);
        let r = self.rank_info(si, comm, i.rank);
        r.bus_id = r.bus_id.take().or(bus);
        r.cuda_dev = Some(i.cuda_dev);
        r.nvml_dev = r.nvml_dev.or(i.nvml_dev);
        self.note_pid_comm(si, comm);
        match i.phase {
            InitPhase::Start => {
                // A new init on this stream: what waits belongs to the one before.
                let (c, r) = (self.streams[si].comm, self.streams[si].rank.or(self.streams[si].hint));
                self.flush_pending(si, c, r);
                let s = &mut self.streams[si];
                s.comm = Some(comm);
                s.rank = Some(i.rank);
                s.hint = None;
                s.started = true;
                s.graph_index = 0;
                if let (Some(h), Some(p)) = (s.host, s.pid) {
                    self.pid_started.insert((h, p), comm);
                }
            }
            InitPhase::Complete => {
                self.rank_info(si, comm, i.rank).complete = true;
                self.flush_pending(si, Some(comm), Some(i.rank));
                let s = &mut self.streams[si];
                if !s.started || s.comm != Some(comm) {
                    // Before 2.18.3 the next init on this thread starts unannounced.
                    s.comm = None;
                    s.rank = None;
                    s.hint = None;
                    s.started = false;
                    s.graph_index = 0;
                }
            }
        }
    }

    pub(super) fn note_pid_comm(&mut self, si: usize, comm: usize) {
        let s = &self.streams[si];
        if let (Some(h), Some(p)) = (s.host, s.pid) {
            let e = self.pid_comms.entry((h, p)).or_insert((comm, false));
            if e.0 != comm {
                *e = (comm, true);
            }
        }
    }

    /// The communicator a comm line names.
    fn comm_for(
        &mut self,
        si: usize,
        id: Option<u64>,
        ptr: u64,
        nranks: u32,
        rank: u32,
        split: Option<SplitOf>,
    ) -> usize {
        let (host, pid) = (self.streams[si].host.unwrap_or(NONE), self.streams[si].pid.unwrap_or(NONE));
        let comms = &mut self.sink.f.comms;
        // A split of a known parent: its communicator is the parent's, the split's
        // number and the color.
        let split_key = split.and_then(|sp| {
            let parent = *self.reg.by_ptr.get(&(host, pid, sp.parent))?;
            let n = match sp.count {
                Some(n) => n,
                None => {
                    let started = self.reg.splits_started.entry((host, pid, sp.parent)).or_insert(0);
                    if !self.reg.by_ptr.contains_key(&(host, pid, ptr)) {
                        *started += 1;
                    }
                    *started
                }
            };
            Some((parent, n, sp.color))
        });
        let c = if let Some(id) = id {
            *self.reg.by_id.entry(id).or_insert_with(|| {
                comms.push(Comm { id: Some(format!("0x{id:x}")), nranks, ..Comm::default() });
                comms.len() - 1
            })
        } else if let Some(&c) = self.reg.by_ptr.get(&(host, pid, ptr)) {
            c
        } else if let Some(key) = split_key {
            *self.reg.by_split.entry(key).or_insert_with(|| {
                comms.push(Comm { nranks, ..Comm::default() });
                comms.len() - 1
            })
        } else {
            // Before commIds: join the ranks of other processes by size, a rank seen
            // twice starts another communicator. Latest first.
            let found = (0..comms.len()).rev().find(|&c| {
                comms[c].id.is_none() && comms[c].nranks == nranks && !self.reg.ranks.contains_key(&(c, rank))
            });
            match found {
                Some(c) => c,
                None => {
                    comms.push(Comm { nranks, ..Comm::default() });
                    comms.len() - 1
                }
            }
        };
        if ptr != 0 {
            self.reg.by_ptr.insert((host, pid, ptr), c);
        }
        c
    }

    /// The rank of a communicator (created on first sight).
    fn rank_info(&mut self, si: usize, comm: usize, rank: u32) -> &mut RankInfo {
        let s = &self.streams[si];
        let host = s.host.map(|i| self.sink.f.hosts[i as usize].clone());
        let pid = s.pid;
        let ranks = &mut self.sink.f.ranks;
        let i = *self.reg.ranks.entry((comm, rank)).or_insert_with(|| {
            ranks.push(RankInfo { comm, rank, host, pid, ..RankInfo::default() });
            ranks.len() - 1
        });
        &mut self.sink.f.ranks[i]
    }
}

/// Node counts from hosts where NCCL did not print them; the primary communicator.
pub(super) fn finish_comms(f: &mut LogFacts) {
    for (ci, c) in f.comms.iter_mut().enumerate() {
        if c.nnodes.is_none() {
            let hosts: HashSet<&str> =
                f.ranks.iter().filter(|r| r.comm == ci).filter_map(|r| r.host.as_deref()).collect();
            if !hosts.is_empty() {
                c.nnodes = Some(hosts.len() as u32);
                c.nnodes_source = Some("hosts".into());
            }
        }
    }
    if let Some(best) = (0..f.comms.len()).max_by_key(|&i| (f.comms[i].nranks, std::cmp::Reverse(i))) {
        f.comms[best].primary = true;
    }
}
