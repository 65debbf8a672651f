//! Connections (K15-K16 records): each transport connection is given its communicator,
//! at once or at the end of the log; then what its brackets hold and the ring, tree or
//! p2p role it plays.

use std::collections::{HashMap, HashSet};

use super::sink::Pending;
use super::state::{Assembler, InitSeen, Outcome, Unplaced};
use crate::log::facts::*;
use crate::log::record::Conn;
use crate::log::scan;
use crate::log::version::Fp;

/// Whether a connection line's bracketed value (a bus id in hex, or an NVML or CUDA
/// device number, by release) can name this rank's GPU; true when nothing is known.
fn names_device(r: &RankInfo, id: &str) -> bool {
    let known = r.bus_id.is_some() || r.nvml_dev.is_some() || r.cuda_dev.is_some();
    if !known || id.is_empty() {
        return true;
    }
    let hex = i64::from_str_radix(id, 16).ok();
    let dec = id.parse::<u32>().ok();
    r.bus_id.as_deref().is_some_and(|b| Some(crate::xml::busid_to_i64(b)) == hex)
        || (dec.is_some() && (r.nvml_dev == dec || r.cuda_dev == dec))
}

impl Assembler {
    pub(super) fn conn(&mut self, si: usize, c: Conn<'_>) -> Outcome {
        self.conn_fingerprints(&c);
        let x = Connection {
            comm: None,
            channel: c.channel,
            conn: c.conn,
            from: c.from,
            to: c.to,
            from_id: c.from_id.to_string(),
            to_id: c.to_id.to_string(),
            id_kind: None,
            side: c.side.map(str::to_string),
            transport: c.transport.to_string(),
            mode: c.mode.to_string(),
            read: c.read,
            ce: c.ce,
            net_dev: c.net_dev,
            proxy_rank: c.proxy,
            gdr: c.gdr,
            gdr_pci: c.gdr_pci,
            shared: c.shared,
            role: None,
        };
        self.connection(si, x);
        Outcome::Read
    }

    pub(super) fn connected(&mut self, si: usize, what: &str, pxn: Option<i64>, gdr: Option<i64>) -> Outcome {
        match (what, pxn) {
            ("rings", Some(_)) => self.ev.see(Fp::ConnectedRingsPxn),
            ("rings", None) => self.ev.see(Fp::ConnectedRings),
            ("trees", _) => self.ev.see(Fp::ConnectedTrees),
            _ => {}
        }
        let x = ConnectedMark {
            comm: None,
            rank: None,
            host: self.host_name(self.streams[si].host),
            what: what.to_string(),
            ring_pxn: pxn,
            ring_gdr: gdr,
        };
        self.attribute(si, Pending::Mark(x));
        Outcome::Read
    }

    /// A connection line: its communicator is the one its stream runs when that one
    /// holds its ranks; otherwise it is placed at the end, among the communicators
    /// of its process ([`Assembler::place_connections`]).
    fn connection(&mut self, si: usize, x: Connection) {
        let s = &self.streams[si];
        let (host, pid, dev) = (s.host, s.pid, self.dev);
        if let Some(c) = s.comm
            && self.fits(c, &x, host, pid, dev)
        {
            let origin = s.key;
            self.sink.commit(Pending::Conn(x), Some(c), None, origin);
            return;
        }
        let u = Unplaced { host, pid, dev, seq: self.seq, origin: s.key };
        self.unplaced.push((x, u));
    }

    /// Whether a connection line printed by process `pid` of `host` for CUDA device
    /// `dev` can belong to communicator `c`: its ranks are within the size, the
    /// ranks known by then have the devices it names, and the rank that prints it
    /// (the sender; the receiver of a `[receive]` line; either when no side is
    /// printed; the first of a CollNet line) runs in that process on that device.
    fn fits(&self, c: usize, x: &Connection, host: Option<u32>, pid: Option<u32>, dev: Option<u32>) -> bool {
        let n = i64::from(self.sink.f.comms[c].nranks);
        if n > 0 && (x.from >= n || x.to >= n) {
            return false;
        }
        let info = |rank: i64| {
            let rank = u32::try_from(rank).ok()?;
            self.reg.ranks.get(&(c, rank)).map(|&i| &self.sink.f.ranks[i])
        };
        let devices = [(x.from, &x.from_id), (x.to, &x.to_id)]
            .into_iter()
            .all(|(rank, id)| info(rank).is_none_or(|r| names_device(r, id)));
        if !devices {
            return false;
        }
        let host_name = host.map(|i| self.sink.f.hosts[i as usize].as_str());
        let here = |rank: i64| {
            let Some(r) = info(rank) else { return true };
            let process = match pid {
                Some(p) if r.pid.is_some() => r.pid == Some(p) && r.host.as_deref() == host_name,
                _ => true,
            };
            let device = match (dev, r.cuda_dev) {
                (Some(d), Some(cd)) => d == cd,
                _ => true,
            };
            process && device
        };
        match x.side.as_deref() {
            _ if x.transport == "COLLNET" => here(x.from),
            Some("send") => here(x.from),
            Some("receive") => here(x.to),
            _ => here(x.from) || here(x.to),
        }
    }

    /// Give each connection line that its stream could not place a communicator:
    /// among those of its process (of the log when it names no process) that fit
    /// it, one whose init runs at the line; else, until 2.18.1 (no `Init START`,
    /// and a process prints the connections of an init before its `Init
    /// COMPLETE`), the first whose init completes after the line, and from 2.18.3
    /// the last one seen before it; else the first. The other side of a NET
    /// connection settles a choice left open.
    pub(super) fn place_connections(&mut self) {
        type Mirror = (u32, Option<u32>, i64, i64, bool);
        let mirror_key = |x: &Connection, own: bool| -> Option<Mirror> {
            let side = x.side.as_deref()?;
            let send = (side == "send") == own;
            Some((x.channel, x.conn, x.from, x.to, send))
        };
        let unplaced = std::mem::take(&mut self.unplaced);
        // The comm lines of each process, in the order of the log.
        let mut by_process: HashMap<(u32, u32), Vec<&InitSeen>> = HashMap::new();
        for i in &self.inits {
            if let (Some(h), Some(p)) = (i.host, i.pid) {
                by_process.entry((h, p)).or_default().push(i);
            }
        }
        let everyone: Vec<&InitSeen> = self.inits.iter().collect();
        // Each line's choices, in order of preference.
        let mut choices: Vec<Vec<usize>> = Vec::with_capacity(unplaced.len());
        for (x, u) in &unplaced {
            let (host, pid, dev) = (u.host, u.pid, u.dev);
            let of_process: &[&InitSeen] = match (u.host, u.pid) {
                (Some(h), Some(p)) => by_process.get(&(h, p)).map_or(&[], |v| v.as_slice()),
                _ => &everyone,
            };
            let inits: Vec<&InitSeen> = of_process
                .iter()
                .copied()
                // A process driving several GPUs: the inits of the line's GPU.
                .filter(|i| u.dev.is_none_or(|d| d == i.cuda_dev))
                .filter(|i| self.fits(i.comm, x, host, pid, dev))
                .collect();
            let mut order: Vec<usize> = Vec::new();
            // Inits running at the line (started before it, completed after it),
            // latest start first.
            let running = inits
                .iter()
                .rev()
                .filter(|i| !i.complete && i.seq < u.seq)
                .map(|i| i.comm)
                .filter(|&c| inits.iter().any(|j| j.comm == c && j.complete && j.seq > u.seq));
            let after = inits.iter().find(|i| i.complete && i.seq > u.seq).map(|i| i.comm);
            let before = inits.iter().rev().find(|i| i.seq < u.seq).map(|i| i.comm);
            // With `Init START` lines (2.18.3+) a line outside every init comes after
            // one (point-to-point connections made on first use); so does a NET
            // connection with shared buffers or a second connection index, which only
            // point-to-point operations make (net.cc), whatever the release.
            let p2p_op = x.shared || (x.transport == "NET" && x.conn.is_some_and(|c| c > 0));
            let (first, second) =
                if p2p_op || inits.iter().any(|i| !i.complete) { (before, after) } else { (after, before) };
            for c in running.chain(first).chain(second).chain(inits.iter().map(|i| i.comm)) {
                if !order.contains(&c) {
                    order.push(c);
                }
            }
            choices.push(order);
        }
        // A NET line's other side (`[send]` and `[receive]` of one connection, printed
        // by its two ends) settles a choice its own process leaves open.
        let mut settled: HashMap<Mirror, Vec<usize>> = HashMap::new();
        for ((x, _), order) in unplaced.iter().zip(&choices) {
            if order.len() == 1
                && let Some(k) = mirror_key(x, true)
            {
                settled.entry(k).or_default().push(order[0]);
            }
        }
        for ((x, u), order) in unplaced.into_iter().zip(choices) {
            let by_mirror = if order.len() > 1 {
                mirror_key(&x, false)
                    .and_then(|k| settled.get(&k))
                    .and_then(|cs| order.iter().find(|c| cs.contains(c)).copied())
            } else {
                None
            };
            let comm = by_mirror.or_else(|| order.first().copied());
            self.sink.commit(Pending::Conn(x), comm, None, u.origin);
        }
    }

    fn conn_fingerprints(&mut self, c: &Conn<'_>) {
        if c.ring_word {
            self.ev.see(Fp::ConnRingWord);
        }
        match c.transport {
            "P2P" => {
                match c.mode {
                    "common device" => self.ev.see(Fp::CommonDevice),
                    "CUMEM" => self.ev.see(Fp::Cumem),
                    "MNNVL" => self.ev.see(Fp::Mnnvl),
                    _ => {}
                }
                if !c.ring_word {
                    self.ev.see(if c.conn.is_some() { Fp::P2pConn } else { Fp::P2pNoConn });
                }
                if c.read {
                    self.ev.see(Fp::ReadSuffix);
                }
            }
            "SHM" => self.ev.see(if c.mode == "direct shared memory" {
                Fp::DirectShm
            } else if c.shm_one {
                Fp::ShmOne
            } else {
                Fp::ShmTwo
            }),
            "NET" => {
                self.ev.see(if c.conn.is_some() { Fp::NetConn } else { Fp::NetNoConn });
                if c.gdr_pci {
                    self.ev.see(Fp::GdrPci);
                }
            }
            _ => {}
        }
        if c.transport == "P2P" && (c.mode == "CUMEM" || c.mode == "common device") {
            return;
        }
        if c.transport == "P2P" || c.transport == "NET" || c.transport == "SHM" {
            let busy =
                |t: &str| t.bytes().any(|b| b.is_ascii_alphabetic()) || scan::hex(t).is_some_and(|(v, _)| v >= 0x100);
            if busy(c.from_id) || busy(c.to_id) {
                self.ev.see(Fp::BusIdBrackets);
            } else if c.from_id.len() <= 2 && c.to_id.len() <= 2 && !c.ring_word {
                self.ev.see(Fp::DevBrackets);
            }
        }
    }
}

/// What the connection brackets hold: bus ids up to 2.18.1 (CUDA devices for
/// `P2P/common device` and 2.18.1's `P2P/CUMEM`), NVML devices from 2.18.3.
pub(super) fn connection_kinds(f: &mut LogFacts) {
    let code = f.nccl_version.as_ref().and_then(|v| {
        let (lo, hi) = v.range.as_ref()?;
        let c = |s: &str| {
            let mut it = s.split('.').map(|x| x.parse::<u32>().ok());
            Some(it.next()?? * 10000 + it.next()?? * 100 + it.next()??)
        };
        let (lo, hi) = (c(lo)?, c(hi)?);
        if hi <= 21801 {
            Some(false)
        } else if lo >= 21803 {
            Some(true)
        } else {
            None
        }
    });
    for c in &mut f.connections {
        if c.transport == "COLLNET" {
            continue;
        }
        let kind = if c.mode == "common device" {
            "cuda_dev"
        } else {
            match code {
                Some(false) if c.mode == "CUMEM" => "cuda_dev",
                Some(false) => "bus_id",
                Some(true) => "nvml_dev",
                None => {
                    let busy = |t: &str| {
                        t.bytes().any(|b| b.is_ascii_alphabetic()) || scan::hex(t).is_some_and(|(v, _)| v >= 0x100)
                    };
                    if busy(&c.from_id) || busy(&c.to_id) { "bus_id" } else { "nvml_dev" }
                }
            }
        };
        c.id_kind = Some(kind.to_string());
    }
}

/// Ring, tree or p2p: from the ring and tree facts of the same log.
pub(super) fn connection_roles(f: &mut LogFacts) {
    let by_comm = f.comms.len() > 1;
    let k = |comm: Option<usize>| if by_comm { comm } else { None };
    let mut ring: HashSet<(Option<usize>, u32, i64, i64)> = HashSet::new();
    for l in &f.ring_links {
        ring.insert((k(l.comm), l.channel, i64::from(l.rank), l.next));
        ring.insert((k(l.comm), l.channel, l.prev, i64::from(l.rank)));
    }
    for o in &f.rings {
        for w in o.order.windows(2) {
            ring.insert((k(o.comm), o.channel, w[0], w[1]));
        }
        if !o.truncated
            && let (Some(&a), Some(&b)) = (o.order.last(), o.order.first())
        {
            ring.insert((k(o.comm), o.channel, a, b));
        }
    }
    let mut tree: HashSet<(Option<usize>, u32, i64, i64)> = HashSet::new();
    for t in &f.trees {
        let me = i64::from(t.rank);
        let mut peers = vec![t.up];
        peers.extend(t.down);
        if let Some(u) = t.dn_up {
            peers.push(u);
        }
        if let Some(d) = t.dn_down {
            peers.extend(d);
        }
        for p in peers.into_iter().filter(|&p| p >= 0) {
            tree.insert((k(t.comm), t.channel, me, p));
            tree.insert((k(t.comm), t.channel, p, me));
        }
    }
    for c in &mut f.connections {
        let key = (k(c.comm), c.channel, c.from, c.to);
        c.role = if c.conn.is_some_and(|n| n > 0) {
            Some("p2p".into())
        } else if ring.contains(&key) {
            Some("ring".into())
        } else if tree.contains(&key) {
            Some("tree".into())
        } else {
            None
        };
    }
}
