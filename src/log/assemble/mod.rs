//! Records to facts. State is kept per printing stream, `(host, pid, tid)` (or the
//! device, or nothing, for prefix-stripped logs): the system print, a graph and its
//! channel lines, a tuning table are blocks on one stream; other streams' lines never
//! close them, so interleaved processes and threads stay apart.
//!
//! Ranks: a stream's communicator and rank come from its `Init START` line (2.18.3+).
//! Before 2.18.3 there is no START line, so records that need a rank (system print,
//! graphs, ring orders, channel counts...) wait on their stream until its
//! `Init COMPLETE` (or, 2.20+, its `comm ... nNodes` line) names them; a `Ring`/`Trees`/
//! `Tree` line on the stream tells the rank earlier. Connection, ring and tree lines
//! carry their own ranks. Communicators are told apart by commId (2.16+), else by
//! `(host, pid, comm pointer)`; before 2.16 the ranks of different processes are joined
//! into one communicator by size (a rank seen twice starts another one).
//!
//! Facts are deduplicated as they are committed, so a log that repeats its init (or a
//! 100 MB log of many jobs on the same ranks) takes memory for its distinct facts only.
//!
//! This file takes each record and hands it to its family's file: communicators
//! (`comms.rs`), the system print (`system.rs`, each print built by `sysbuilder.rs`),
//! graphs (`graphs.rs`), rings and trees (`rings.rs`), connections (`connections.rs`),
//! environment and tuning (`settings.rs`). What a stream holds and how facts find their
//! communicator is `state.rs`; where they go, deduplicated, `sink.rs`.

mod comms;
mod connections;
mod graphs;
mod rings;
mod settings;
mod sink;
mod state;
mod sysbuilder;
mod system;

pub(crate) use state::Assembler;

use crate::log::classify;
use crate::log::facts::*;
use crate::log::record::Rec;
use crate::log::segment::{Level, Seg};
use crate::log::version::Fp;
use crate::log::{rccl, scan};
use comms::finish_comms;
use connections::{connection_kinds, connection_roles};
use graphs::map_graph_gpus;
use sink::{Key, NONE};
use state::Outcome;
use sysbuilder::SysBlock;

/// Kinds that identify themselves: accepted on lines whose prefix was stripped.
fn strong(r: &Rec<'_>) -> bool {
    matches!(
        r,
        Rec::Version(_)
            | Rec::Init(_)
            | Rec::Nodes(_)
            | Rec::Fabric(_)
            | Rec::Clique(_)
            | Rec::RackSerial(_)
            | Rec::SysHeader(_)
            | Rec::Pattern(_)
            | Rec::RingOrder(_)
            | Rec::RingLink { .. }
            | Rec::Trees(_)
            | Rec::Tree { .. }
            | Rec::NvlsHead { .. }
            | Rec::NvlsTrees { .. }
            | Rec::Conn(_)
            | Rec::Connected { .. }
            | Rec::Env { .. }
            | Rec::UsingNetwork(_)
            | Rec::Thresholds(_)
            | Rec::Counts(_)
    )
}

/// Kinds that only continue a block.
fn weak(r: &Rec<'_>) -> bool {
    matches!(r, Rec::SysLine(_) | Rec::SysEnd | Rec::Path(_) | Rec::GraphChannel(_) | Rec::Tuning(_))
}

impl Assembler {
    /// One record with its prefix. `spliced`: the physical line held several.
    pub fn segment(&mut self, seg: &Seg<'_>, spliced: bool) {
        let c = &mut self.sink.f.lines;
        c.records += 1;
        if seg.cut {
            c.cut += 1;
            return;
        }
        self.nccl_like = true;
        let host = seg.host.map(|h| self.intern(h, seg.host_mid_line));
        let key = match host {
            Some(h) => Key { host: h, pid: seg.pid.unwrap_or(NONE), tid: seg.tid.unwrap_or(NONE), dev: NONE },
            None => Key { host: NONE, pid: NONE, tid: NONE, dev: seg.dev.unwrap_or(NONE) },
        };
        self.matrix_rows = 0;
        self.dev = seg.dev;
        let outcome = match seg.level {
            Level::Info => {
                let rec = classify::classify(seg.msg);
                if matches!(rec, Rec::MatrixStart) {
                    self.matrix_rows = 12;
                }
                self.handle(key, rec, seg.len)
            }
            Level::Warn => {
                let si = self.stream(key);
                self.close_blocks(si);
                let rank = self.streams[si].rank.or(self.streams[si].hint);
                let p =
                    Problem { host: self.host_name(host), rank, kind: "warn".into(), text: seg.msg.trim().to_string() };
                if self.sink.once(24, &(&p.host, &p.kind, &p.text), None) {
                    self.sink.f.problems.push(p);
                }
                Outcome::Read
            }
            Level::Trace | Level::Call => Outcome::Skipped,
        };
        self.tally(outcome, seg.msg, spliced);
    }

    fn tally(&mut self, outcome: Outcome, msg: &str, spliced: bool) {
        let c = &mut self.sink.f.lines;
        match outcome {
            Outcome::Read => c.read += 1,
            Outcome::Skipped => c.skipped_known += 1,
            Outcome::Truncated => c.truncated += 1,
            // The last record of a spliced line may have lost bytes too.
            Outcome::Unknown if spliced => c.cut += 1,
            Outcome::Unknown => {
                c.unknown += 1;
                let w = unknown_word(msg);
                if let Some(n) = c.unknown_by_word.get_mut(w) {
                    *n += 1;
                } else if c.unknown_by_word.len() < 1000 {
                    c.unknown_by_word.insert(w.to_string(), 1);
                }
            }
        }
    }

    /// A line without any record prefix.
    pub fn bare(&mut self, line: &str) {
        let t = line.trim();
        if t.is_empty() {
            self.sink.f.lines.foreign += 1;
            return;
        }
        if t.starts_with('#') {
            if let Some(i) = t.find("nccl-library=")
                && let Some((n, _)) = scan::nat32(&t[i + "nccl-library=".len()..])
            {
                self.ev.tests_header(n);
            }
            self.sink.f.lines.foreign += 1;
            return;
        }
        if self.matrix_rows > 0 {
            if t.contains('|') {
                self.matrix_rows -= 1;
                self.sink.f.lines.records += 1;
                self.sink.f.lines.skipped_known += 1;
                return;
            }
            self.matrix_rows = 0;
        }
        // The bare version line (2.5-2.21 stdout, or NCCL_DEBUG=VERSION), possibly
        // behind a foreign tag.
        if let Some(i) = scan::find(line, "NCCL version ")
            && let Some(v) = classify::version_text(&line[i + "NCCL version ".len()..])
        {
            self.nccl_like = true;
            self.sink.f.lines.records += 1;
            self.sink.f.lines.read += 1;
            self.ev.version_line(v.major, v.minor, v.patch, v.suffix, v.cuda);
            return;
        }
        if rccl::banner_line(line) {
            self.nccl_like = true;
            self.sink.f.lines.records += 1;
            self.sink.f.lines.read += 1;
            self.rccl.get_or_insert("RCCL version banner");
            return;
        }
        let rec = classify::classify(line);
        let key = Key { host: NONE, pid: NONE, tid: NONE, dev: NONE };
        let continues = weak(&rec) && {
            let si = self.stream(key);
            let s = &self.streams[si];
            match rec {
                Rec::GraphChannel(_) => s.graph.is_some(),
                Rec::Tuning(_) => s.tune.is_some(),
                _ => s.sys.is_some(),
            }
        };
        if strong(&rec) || continues {
            self.nccl_like = true;
            self.sink.f.lines.records += 1;
            let o = self.handle(key, rec, 0);
            self.tally(o, line, false);
        } else {
            self.sink.f.lines.foreign += 1;
        }
    }

    /// Close the open blocks of a stream.
    fn close_blocks(&mut self, si: usize) {
        self.close_sys(si);
        self.close_graph(si);
        self.close_tune(si);
    }

    /// Process one classified record on stream `key`.
    fn handle(&mut self, key: Key, rec: Rec<'_>, len: usize) -> Outcome {
        let si = self.stream(key);
        self.seq += 1;
        // Blocks continue only with their own kinds; a line topo cannot read (cut, or
        // a modified NCCL's own print) leaves them open.
        let s = &self.streams[si];
        let neutral = matches!(rec, Rec::Unknown | Rec::Empty);
        let keep_sys = neutral || matches!(rec, Rec::SysLine(_) | Rec::SysEnd | Rec::Path(_));
        let keep_graph = neutral || matches!(rec, Rec::GraphChannel(_));
        let keep_tune = neutral || matches!(rec, Rec::Tuning(_));
        if s.sys.is_some() && !keep_sys {
            self.close_sys(si);
        }
        if self.streams[si].graph.is_some() && !keep_graph {
            self.close_graph(si);
        }
        if self.streams[si].tune.is_some() && !keep_tune {
            self.close_tune(si);
        }
        if self.rccl.is_some() {
            // An RCCL log: recognised, counted, not read.
            return match rec {
                Rec::Unknown => Outcome::Unknown,
                Rec::Known | Rec::Empty => Outcome::Skipped,
                _ => Outcome::Read,
            };
        }
        let near_limit = (1020..=1024).contains(&len);
        match rec {
            Rec::Empty | Rec::Known | Rec::GitVersion | Rec::CommEnd | Rec::MatrixStart => {
                if matches!(rec, Rec::GitVersion) {
                    self.ev.see(Fp::GitVersion);
                }
                Outcome::Skipped
            }
            Rec::Unknown => {
                if near_limit {
                    Outcome::Truncated
                } else {
                    Outcome::Unknown
                }
            }
            Rec::Rccl(why) => {
                self.rccl.get_or_insert(why);
                Outcome::Read
            }
            Rec::Old(why) => {
                self.old.get_or_insert(why);
                Outcome::Skipped
            }
            // Communicators (comms.rs).
            Rec::Version(v) => {
                self.ev.version_line(v.major, v.minor, v.patch, v.suffix, v.cuda);
                Outcome::Read
            }
            Rec::Init(i) => {
                self.init(si, &i);
                Outcome::Read
            }
            Rec::Nodes(n) => self.nodes(si, n),
            Rec::Fabric(f) => self.fabric(si, f),
            Rec::Clique(c) => self.clique(si, c),
            Rec::RackSerial(r) => self.rack(si, r),
            // The system print (system.rs).
            Rec::SysHeader(h) => self.sys_header(si, h),
            Rec::SysLine(l) => self.sys_line(si, l),
            Rec::SysEnd => self.sys_end(si),
            Rec::Path(p) => self.path_line(si, p, near_limit),
            // Graphs (graphs.rs).
            Rec::Pattern(p) => self.pattern(si, p),
            Rec::GraphChannel(l) => self.graph_channel(si, l),
            // Rings and trees (rings.rs).
            Rec::RingOrder(o) => self.ring_order(si, o),
            Rec::RingLink { channel, prev, me, next } => self.ring_link(si, channel, prev, me, next),
            Rec::Trees(t) => self.trees(si, t, near_limit),
            Rec::Tree { channel, up, me, down } => self.tree(si, channel, up, me, down),
            Rec::NvlsHead { channel, heads } => self.nvls_head(si, channel, heads),
            Rec::NvlsTrees { three, items } => self.nvls_trees(si, three, items),
            // Connections (connections.rs).
            Rec::Conn(c) => self.conn(si, c),
            Rec::Connected { what, pxn, gdr } => self.connected(si, what, pxn, gdr),
            // Environment and tuning (settings.rs).
            Rec::Env { name, value, source } => self.env(si, name, value, source),
            Rec::NetUsing { kind, rest } => self.net_using(si, kind, rest, near_limit),
            Rec::UsingNetwork(name) => self.using_network(si, name),
            Rec::Gdr(g) => self.gdr(si, g),
            Rec::Affinity { gpu, mask, cpu, new_form } => self.affinity(si, gpu, mask, cpu, new_form),
            Rec::Thresholds(groups) => self.thresholds(si, groups),
            Rec::Counts(c) => self.channel_counts(si, c),
            Rec::Tuning(t) => self.tuning_line(si, t),
            // Details and problems, of any family.
            Rec::Detail { kind, value } => {
                match kind {
                    "p2p_chunksize" => self.ev.see(Fp::P2pChunksize),
                    "cuda_driver" => self.ev.see(Fp::CudaDriver),
                    "init_timings" => self.ev.see(Fp::InitTimings),
                    "bootstrap_timings" => self.ev.see(Fp::BootstrapTimings),
                    "cc" => self.ev.see(Fp::CcLine),
                    _ => {}
                }
                // Timings differ in every run: one per stream is enough.
                let s = &self.streams[si];
                let x = Detail {
                    host: self.host_name(s.host),
                    rank: s.rank.or(s.hint),
                    kind: kind.to_string(),
                    value: value.to_string(),
                };
                let fresh = if kind.ends_with("timings") {
                    self.sink.once(23, &(kind, &x.host, x.rank), s.key)
                } else {
                    self.sink.once(23, &x, None)
                };
                if fresh {
                    self.sink.f.details.push(x);
                }
                Outcome::Read
            }
            Rec::Problem { kind, text } => {
                let s = &self.streams[si];
                let x = Problem {
                    host: self.host_name(s.host),
                    rank: s.rank.or(s.hint),
                    kind: kind.to_string(),
                    text: text.to_string(),
                };
                if self.sink.once(24, &(&x.host, &x.kind, &x.text), None) {
                    self.sink.f.problems.push(x);
                }
                Outcome::Read
            }
        }
    }

    /// The end of the input: close every block, attribute what still waits, and work
    /// out what needs the whole log.
    pub fn finish(mut self) -> LogFacts {
        for si in 0..self.streams.len() {
            let s = &self.streams[si];
            let host = self.host_name(s.host).unwrap_or_else(|| "?".into());
            match &s.sys {
                Some(SysBlock::Build(b)) if !b.complete() && !b.in_paths => {
                    self.sink.warn(format!("the log ends inside a system print of host {host} (truncated log?)"));
                }
                _ => {}
            }
            if let Some((g, n)) = &s.graph
                && (g.channels.len() as u32) < *n
            {
                self.sink.warn(format!(
                    "the log ends inside a graph of host {host}: {} of {n} channel lines (truncated log?)",
                    g.channels.len()
                ));
            }
            self.close_blocks(si);
            let s = &self.streams[si];
            let fallback = match (s.host, s.pid) {
                (Some(h), Some(p)) => match self.pid_comms.get(&(h, p)) {
                    Some(&(c, false)) => Some(c),
                    _ => None,
                },
                _ => None,
            };
            let (c, r) = (s.comm.or(fallback), s.rank.or(s.hint));
            self.flush_pending(si, c, r);
        }
        self.place_connections();
        if self.orphan_channels > 0 {
            self.sink
                .warn(format!("{} graph channel lines without their Pattern line were skipped", self.orphan_channels));
        }
        let mut warnings = Vec::new();
        self.sink.f.nccl_version = self.ev.result(&mut warnings);
        for w in warnings {
            self.sink.warn(w);
        }
        if let Some(why) = self.old {
            self.sink.warn(format!("lines in the formats of NCCL before 2.5 ({why}): not read"));
        }
        if let Some(v) = &self.sink.f.nccl_version
            && v.source != VersionSource::Formats
            && (v.major, v.minor) < (2, 5)
        {
            // Before 2.5 some lines look like later ones (2.4's `Ring 00 : a[d] -> b[d]`
            // has CUDA devices in the brackets): read as later formats they would be
            // wrong facts. Keep who ran, drop what was printed about the topology.
            let v = v.value.clone();
            let f = &mut self.sink.f;
            let dropped = f.systems.len()
                + f.graphs.len()
                + f.rings.len()
                + f.ring_links.len()
                + f.trees.len()
                + f.nvls_heads.len()
                + f.connections.len();
            f.systems.clear();
            f.graphs.clear();
            f.rings.clear();
            f.ring_links.clear();
            f.trees.clear();
            f.nvls_heads.clear();
            f.connections.clear();
            f.connected.clear();
            f.channel_counts.clear();
            f.tuning = None;
            self.sink.warn(format!(
                "NCCL {v} is older than 2.5, whose formats are the oldest topo reads: its topology lines are not \
                 read ({dropped} set aside); versions, ranks and settings are"
            ));
        }
        let mut f = self.sink.f;
        if let Some(why) = self.rccl {
            let keep_lines = std::mem::take(&mut f.lines);
            let hosts = std::mem::take(&mut f.hosts);
            let mut warnings = std::mem::take(&mut f.warnings);
            warnings.insert(0, format!("an RCCL log (AMD's fork of NCCL; {why}): recognised, not read"));
            return LogFacts { dialect: Dialect::Rccl, lines: keep_lines, hosts, warnings, ..LogFacts::default() };
        }
        finish_comms(&mut f);
        map_graph_gpus(&mut f);
        connection_kinds(&mut f);
        connection_roles(&mut f);
        for o in &mut f.rings {
            if o.truncated && o.order.len() == 20 && !o.order.is_empty() {
                let n = o.comm.and_then(|c| f.comms.get(c)).map(|c| c.nranks);
                if n == Some(20) {
                    o.truncated = false;
                }
            }
        }
        f
    }
}

fn unknown_word(msg: &str) -> &str {
    let t = msg.trim_start();
    let end = t.find([' ', ':', '\t']).unwrap_or(t.len());
    let w = &t[..end];
    // Keep the tally's keys short.
    match w.char_indices().nth(32) {
        Some((i, _)) => &w[..i],
        None => w,
    }
}

#[cfg(test)]
mod tests;
