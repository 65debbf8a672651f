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

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use super::classify::{self, system};
use super::facts::*;
use super::record::{self, Conn, InitPhase, Rec, TuneLine};
use super::segment::{Level, Seg};
use super::system::SysBuilder;
use super::version::{Evidence, Fp};
use crate::xml::i64_to_busid;

const NONE: u32 = u32::MAX;

/// Records kept waiting on one stream for their rank, at most (one init of one rank
/// prints a few hundred); beyond, they are stored with what is known.
const MAX_PENDING: usize = 512;
/// Incomplete system prints kept per host when no complete one was read.
const MAX_PARTIAL_PRINTS: usize = 8;
/// Warnings kept.
const MAX_WARNINGS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    host: u32,
    pid: u32,
    tid: u32,
    dev: u32,
}

#[derive(Debug)]
enum SysBlock {
    Build(Box<SysBuilder>),
    /// A print of a host whose complete print was already kept: read, not stored.
    Skip {
        ended: bool,
        in_paths: bool,
    },
}

#[derive(Debug, Default)]
struct Tune {
    columns: Vec<(String, String)>,
    algos: Vec<String>,
    table: TuningTable,
}

#[derive(Debug, Default)]
struct Stream {
    key: Option<Key>,
    host: Option<u32>,
    pid: Option<u32>,
    sys: Option<SysBlock>,
    graph: Option<(GraphPrint, u32)>,
    tune: Option<Tune>,
    graph_index: u32,
    comm: Option<usize>,
    rank: Option<u32>,
    started: bool,
    hint: Option<u32>,
    pending: Vec<Pending>,
}

/// A fact waiting for its communicator and rank.
#[derive(Debug)]
enum Pending {
    System(Box<SystemPrint>, bool),
    Graph(GraphPrint),
    Order(RingOrder),
    Link(RingLink),
    Tree(TreeLink),
    Head(NvlsHead),
    Conn(Connection),
    Counts(ChannelCounts),
    Thr(Thresholds),
    Aff(Affinity),
    Mark(ConnectedMark),
    Tuning(TuningTable),
}

/// Where facts go, deduplicated.
#[derive(Debug, Default)]
struct Sink {
    f: LogFacts,
    seen: KeySet,
    /// Per host: a complete system print was kept; incomplete ones kept.
    sys_complete: HashSet<Option<String>>,
    sys_partial: HashMap<Option<String>, usize>,
    nets: HashMap<(Option<String>, String), usize>,
    warned: HashSet<String>,
}

/// A fast hasher for the keys facts are deduplicated by (multiply-rotate, as
/// rustc's FxHash, with a final mix): 64-bit keys of a few thousand facts.
#[derive(Default)]
struct Fx(u64);

impl Fx {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
    }
    fn write_u8(&mut self, v: u8) {
        self.add(u64::from(v));
    }
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
    fn write_i64(&mut self, v: i64) {
        self.add(v as u64);
    }
    fn finish(&self) -> u64 {
        // splitmix64's finaliser: every input bit reaches every output bit.
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The keys are hashes already: the set uses them as they are.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type KeySet = HashSet<u64, BuildHasherDefault<Identity>>;
type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

fn hash_of<T: Hash>(tag: u8, v: &T, origin: Option<Key>) -> u64 {
    let mut h = Fx::default();
    tag.hash(&mut h);
    v.hash(&mut h);
    origin.hash(&mut h);
    h.finish()
}

/// A graph's identity: who printed it and what it says (not its position, so a graph
/// printed again by a later init of the same rank is the same fact).
fn graph_hash(g: &GraphPrint, origin: Option<Key>) -> u64 {
    let mut h = Fx::default();
    (g.comm, g.rank, &g.host, g.index, g.pattern, g.crossnic, g.nchannels).hash(&mut h);
    (g.bw_intra.to_bits(), g.bw_inter.to_bits(), &g.type_intra, &g.type_inter, g.same_channels, g.nvlink).hash(&mut h);
    g.channels.hash(&mut h);
    if g.rank.is_none() {
        origin.hash(&mut h);
    }
    h.finish()
}

impl Sink {
    fn warn(&mut self, w: String) {
        if self.f.warnings.len() < MAX_WARNINGS && self.warned.insert(w.clone()) {
            self.f.warnings.push(w);
        }
    }

    fn once<T: Hash>(&mut self, tag: u8, v: &T, origin: Option<Key>) -> bool {
        self.seen.insert(hash_of(tag, v, origin))
    }

    /// Store a fact with its communicator and rank (fields the fact already has win).
    fn commit(&mut self, p: Pending, comm: Option<usize>, rank: Option<u32>, origin: Option<Key>) {
        // Facts with no rank are kept per stream (two threads printing the same graph
        // are two facts); facts with a rank are one per rank.
        let o = |r: Option<u32>| if r.is_none() { origin } else { None };
        match p {
            Pending::System(mut s, complete) => {
                s.comm = s.comm.or(comm);
                s.rank = s.rank.or(rank);
                let host = s.host.clone();
                if self.sys_complete.contains(&host) {
                    return;
                }
                if complete {
                    self.sys_complete.insert(host.clone());
                    self.f.systems.retain(|x| x.host != host);
                    self.sys_partial.remove(&host);
                    self.f.systems.push(*s);
                } else {
                    let n = self.sys_partial.entry(host).or_default();
                    if *n < MAX_PARTIAL_PRINTS {
                        *n += 1;
                        self.f.systems.push(*s);
                    }
                }
            }
            Pending::Graph(mut g) => {
                g.comm = g.comm.or(comm);
                g.rank = g.rank.or(rank);
                if self.seen.insert(graph_hash(&g, origin)) {
                    self.f.graphs.push(g);
                }
            }
            Pending::Order(mut x) => {
                x.comm = x.comm.or(comm);
                x.rank = x.rank.or(rank);
                if self.once(1, &x, o(x.rank)) {
                    self.f.rings.push(x);
                }
            }
            Pending::Link(mut x) => {
                x.comm = x.comm.or(comm);
                if self.once(2, &x, None) {
                    self.f.ring_links.push(x);
                }
            }
            Pending::Tree(mut x) => {
                x.comm = x.comm.or(comm);
                if self.once(3, &x, None) {
                    self.f.trees.push(x);
                }
            }
            Pending::Head(mut x) => {
                x.comm = x.comm.or(comm);
                x.rank = x.rank.or(rank);
                if self.once(4, &x, o(x.rank)) {
                    self.f.nvls_heads.push(x);
                }
            }
            Pending::Conn(mut x) => {
                x.comm = x.comm.or(comm);
                if self.once(5, &x, None) {
                    self.f.connections.push(x);
                }
            }
            Pending::Counts(mut x) => {
                x.comm = x.comm.or(comm);
                x.rank = x.rank.or(rank);
                if self.once(6, &x, o(x.rank)) {
                    self.f.channel_counts.push(x);
                }
            }
            Pending::Thr(mut x) => {
                x.comm = x.comm.or(comm);
                x.rank = x.rank.or(rank);
                if self.once(7, &x, o(x.rank)) {
                    self.f.thresholds.push(x);
                }
            }
            Pending::Aff(mut x) => {
                x.comm = x.comm.or(comm);
                x.rank = x.rank.or(rank);
                if self.once(8, &x, o(x.rank)) {
                    self.f.affinity.push(x);
                }
            }
            Pending::Mark(mut x) => {
                x.comm = x.comm.or(comm);
                x.rank = x.rank.or(rank);
                if self.once(9, &x, o(x.rank)) {
                    self.f.connected.push(x);
                }
            }
            Pending::Tuning(mut t) => {
                t.rank = t.rank.or(rank);
                if self.f.tuning.is_none() {
                    self.f.tuning = Some(t);
                }
            }
        }
    }
}

/// Communicators.
#[derive(Debug, Default)]
struct Registry {
    by_id: FxMap<u64, usize>,
    by_ptr: FxMap<(u32, u32, u64), usize>,
    ranks: FxMap<(usize, u32), usize>,
    /// Split communicators without a commId (2.23+ prints none for them), by parent
    /// communicator, split number and color: ranks that split one parent the same
    /// number of times with one color are one communicator (init.cc hashes the
    /// parent's id with the split count and the color).
    by_split: FxMap<(usize, u64, i64), usize>,
    /// How many splits each process's parent pointer has started.
    splits_started: FxMap<(u32, u32, u64), u64>,
}

/// How a split line names its communicator: parent pointer, split number when
/// printed, color.
#[derive(Debug, Clone, Copy)]
struct SplitOf {
    parent: u64,
    count: Option<u64>,
    color: i64,
}

/// What a record came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Read,
    Skipped,
    Unknown,
    /// Not readable and as long as NCCL's record limit: cut by NCCL.
    Truncated,
}

/// Reading state.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    sink: Sink,
    host_ids: FxMap<String, u32>,
    keys: FxMap<Key, usize>,
    streams: Vec<Stream>,
    last: Option<(Key, usize)>,
    reg: Registry,
    pid_started: FxMap<(u32, u32), usize>,
    pid_comms: FxMap<(u32, u32), (usize, bool)>,
    ev: Evidence,
    rccl: Option<&'static str>,
    old: Option<&'static str>,
    matrix_rows: u8,
    orphan_channels: u64,
    /// Records handled so far: the order of the log.
    seq: u64,
    /// The CUDA device of the record being handled (`[d]` of its prefix).
    dev: Option<u32>,
    /// Comm lines in the order of the log.
    inits: Vec<InitSeen>,
    /// Connection lines left to place at the end.
    unplaced: Vec<(Connection, Unplaced)>,
    /// NCCL records or strong kinds on unprefixed lines were found.
    pub nccl_like: bool,
}

/// A comm line, where it was.
#[derive(Debug, Clone, Copy)]
struct InitSeen {
    host: Option<u32>,
    pid: Option<u32>,
    cuda_dev: u32,
    seq: u64,
    comm: usize,
    complete: bool,
}

/// Where a connection line that waits for its communicator was.
#[derive(Debug, Clone, Copy)]
struct Unplaced {
    host: Option<u32>,
    pid: Option<u32>,
    dev: Option<u32>,
    seq: u64,
    origin: Option<Key>,
}

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

/// Kinds that identify themselves: accepted on lines whose prefix was stripped.
fn strong(r: &Rec<'_>) -> bool {
    matches!(
        r,
        Rec::Version(_)
            | Rec::Init(_)
            | Rec::Nodes(_)
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
    pub fn new() -> Assembler {
        Assembler::default()
    }

    pub fn counts(&mut self) -> &mut LineCounts {
        &mut self.sink.f.lines
    }

    fn intern(&mut self, host: &str, mid_line: bool) -> u32 {
        if let Some(&i) = self.host_ids.get(host) {
            return i;
        }
        // A splice can glue the end of another record to a host name
        // (`nNodesstone:1:2`): take the longest known host it ends with.
        if mid_line {
            let best = self
                .host_ids
                .iter()
                .filter(|(h, _)| host.len() > h.len() && host.ends_with(h.as_str()))
                .max_by_key(|(h, _)| h.len())
                .map(|(_, &i)| i);
            if let Some(i) = best {
                return i;
            }
        }
        let i = self.sink.f.hosts.len() as u32;
        self.sink.f.hosts.push(host.to_string());
        self.host_ids.insert(host.to_string(), i);
        i
    }

    fn stream(&mut self, key: Key) -> usize {
        if let Some((k, i)) = self.last
            && k == key
        {
            return i;
        }
        let i = match self.keys.get(&key) {
            Some(&i) => i,
            None => {
                let i = self.streams.len();
                self.streams.push(Stream {
                    key: Some(key),
                    host: (key.host != NONE).then_some(key.host),
                    pid: (key.pid != NONE).then_some(key.pid),
                    ..Stream::default()
                });
                self.keys.insert(key, i);
                i
            }
        };
        self.last = Some((key, i));
        i
    }

    fn host_name(&self, h: Option<u32>) -> Option<String> {
        h.map(|i| self.sink.f.hosts[i as usize].clone())
    }

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
                && let Some((n, _)) = super::scan::nat32(&t[i + "nccl-library=".len()..])
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
        if let Some(i) = super::scan::find(line, "NCCL version ")
            && let Some(v) = classify::version_text(&line[i + "NCCL version ".len()..])
        {
            self.nccl_like = true;
            self.sink.f.lines.records += 1;
            self.sink.f.lines.read += 1;
            self.ev.version_line(v.major, v.minor, v.patch, v.suffix, v.cuda);
            return;
        }
        if super::rccl::banner_line(line) {
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

    fn close_sys(&mut self, si: usize) {
        if let Some(SysBlock::Build(b)) = self.streams[si].sys.take() {
            let complete = b.complete();
            if b.overflow {
                self.sink.warn("a system print was larger than topo keeps; the rest was skipped".into());
            }
            let mut print = b.finish();
            print.host = self.host_name(self.streams[si].host);
            self.attribute(si, Pending::System(Box::new(print), complete));
        }
    }

    fn close_graph(&mut self, si: usize) {
        if let Some((g, _)) = self.streams[si].graph.take() {
            self.attribute(si, Pending::Graph(g));
        }
    }

    fn close_tune(&mut self, si: usize) {
        if let Some(t) = self.streams[si].tune.take()
            && !t.table.rows.is_empty()
        {
            self.attribute(si, Pending::Tuning(t.table));
        }
    }

    /// A fact that takes the stream's communicator and rank: now, or when they are known.
    fn attribute(&mut self, si: usize, p: Pending) {
        let s = &mut self.streams[si];
        let origin = s.key;
        if s.comm.is_some() {
            let (c, r) = (s.comm, s.rank.or(s.hint));
            self.sink.commit(p, c, r, origin);
            return;
        }
        if s.pending.len() >= MAX_PENDING {
            let r = s.rank.or(s.hint);
            self.flush_pending(si, None, r);
        }
        self.streams[si].pending.push(p);
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
    fn place_connections(&mut self) {
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

    /// A fact with its own ranks: it needs the communicator only.
    fn own_ranked(&mut self, si: usize, p: Pending) {
        let s = &self.streams[si];
        let comm = s.comm.or_else(|| {
            let (h, pid) = (s.host?, s.pid?);
            self.pid_started.get(&(h, pid)).copied()
        });
        match comm {
            Some(c) => {
                let origin = s.key;
                self.sink.commit(p, Some(c), None, origin)
            }
            None => self.attribute(si, p),
        }
    }

    fn flush_pending(&mut self, si: usize, comm: Option<usize>, rank: Option<u32>) {
        let pending = std::mem::take(&mut self.streams[si].pending);
        let origin = self.streams[si].key;
        for p in pending {
            self.sink.commit(p, comm, rank, origin);
        }
    }

    fn note_pid_comm(&mut self, si: usize, comm: usize) {
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
            Rec::Version(v) => {
                self.ev.version_line(v.major, v.minor, v.patch, v.suffix, v.cuda);
                Outcome::Read
            }
            Rec::Init(i) => {
                self.init(si, &i);
                Outcome::Read
            }
            Rec::Nodes(n) => {
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
            Rec::SysHeader(h) => {
                self.ev.see(match h.form {
                    record::HeaderForm::WidthSpeed => Fp::HeaderWidthSpeed,
                    record::HeaderForm::Width => Fp::HeaderWidth,
                    record::HeaderForm::WidthTotal => Fp::HeaderWidthTotal,
                    record::HeaderForm::Bw => Fp::HeaderBw,
                });
                let host = self.host_name(self.streams[si].host);
                self.streams[si].sys = Some(if self.sink.sys_complete.contains(&host) {
                    SysBlock::Skip { ended: false, in_paths: false }
                } else {
                    SysBlock::Build(Box::new(SysBuilder::new(Some(h))))
                });
                Outcome::Read
            }
            Rec::SysLine(l) => {
                self.sys_fingerprints(&l);
                let reopen = match &self.streams[si].sys {
                    None => true,
                    Some(SysBlock::Build(b)) => b.ended || b.in_paths,
                    Some(SysBlock::Skip { ended, in_paths }) => *ended || *in_paths,
                };
                if reopen {
                    self.close_sys(si);
                    self.open_implicit(si);
                }
                if let Some(SysBlock::Build(b)) = &mut self.streams[si].sys {
                    b.line(&l);
                }
                Outcome::Read
            }
            Rec::SysEnd => {
                match &mut self.streams[si].sys {
                    Some(SysBlock::Build(b)) if !b.in_paths => b.ended = true,
                    Some(SysBlock::Skip { ended, in_paths: false }) => *ended = true,
                    _ => return Outcome::Skipped,
                }
                Outcome::Read
            }
            Rec::Path(p) => {
                self.path_fingerprints(&p);
                // A row from a head already read starts another print whose tree and
                // header were not in the log.
                if let Some(SysBlock::Build(b)) = &self.streams[si].sys
                    && b.has_row(p.head)
                {
                    self.close_sys(si);
                }
                if self.streams[si].sys.is_none() {
                    self.open_implicit(si);
                }
                match &mut self.streams[si].sys {
                    Some(SysBlock::Build(b)) => b.path(&p),
                    Some(SysBlock::Skip { in_paths, .. }) => *in_paths = true,
                    None => {}
                }
                // Up to 2.28 NCCL cuts records at 1023 bytes; a row that long lost its
                // end even when it stops between two entries.
                if p.truncated || near_limit {
                    self.sink.f.lines.truncated += 1;
                }
                Outcome::Read
            }
            Rec::Pattern(p) => {
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
            Rec::GraphChannel(l) => {
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
                        ch.gpus.push(super::scan::int(id).filter(|(_, r)| r.is_empty()).map_or(-1, |(v, _)| v));
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
            Rec::RingOrder(o) => {
                self.ev.see(if o.padded { Fp::OrderPadded } else { Fp::OrderMinimal });
                // Only rank 0 prints ring orders.
                self.streams[si].hint.get_or_insert(0);
                let truncated = o.ellipsis || (o.padded && o.order.len() >= 20);
                let x = RingOrder {
                    comm: None,
                    rank: None,
                    channel: o.channel,
                    nchannels: o.nchannels,
                    order: o.order,
                    truncated,
                };
                self.attribute(si, Pending::Order(x));
                Outcome::Read
            }
            Rec::RingLink { channel, prev, me, next } => {
                self.ev.see(Fp::RingInfo);
                self.streams[si].hint = Some(me);
                self.own_ranked(si, Pending::Link(RingLink { comm: None, rank: me, channel, prev, next }));
                Outcome::Read
            }
            Rec::Trees(t) => {
                if let Some(first) = t.items.first() {
                    self.streams[si].hint = Some(first.me);
                    self.ev.see(if first.dn.is_some() { Fp::TreesDouble } else { Fp::TreesSingle });
                }
                for it in &t.items {
                    let x = TreeLink {
                        comm: None,
                        rank: it.me,
                        channel: it.channel,
                        up: it.up,
                        down: it.down,
                        dn_up: it.dn.map(|d| d.0),
                        dn_down: it.dn.map(|d| d.1),
                        source: TreeSource::Trees,
                    };
                    self.own_ranked(si, Pending::Tree(x));
                }
                if t.truncated || near_limit {
                    self.sink.f.lines.truncated += 1;
                }
                Outcome::Read
            }
            Rec::Tree { channel, up, me, down } => {
                self.ev.see(Fp::TreeGraph);
                self.streams[si].hint = Some(me);
                let x = TreeLink {
                    comm: None,
                    rank: me,
                    channel,
                    up,
                    down,
                    dn_up: None,
                    dn_down: None,
                    source: TreeSource::Tree,
                };
                self.own_ranked(si, Pending::Tree(x));
                Outcome::Read
            }
            Rec::NvlsHead { channel, heads } => {
                self.ev.see(Fp::NvlsHead);
                self.attribute(si, Pending::Head(NvlsHead { comm: None, rank: None, channel, heads }));
                Outcome::Read
            }
            Rec::NvlsTrees { three, items } => {
                self.ev.see(if three { Fp::NvlsTrees3 } else { Fp::NvlsTrees2 });
                for (c, (down, me, up)) in items.iter().enumerate() {
                    self.streams[si].hint = Some(*me);
                    let x = TreeLink {
                        comm: None,
                        rank: *me,
                        channel: c as u32,
                        up: *up,
                        down: *down,
                        dn_up: None,
                        dn_down: None,
                        source: TreeSource::Nvls,
                    };
                    self.own_ranked(si, Pending::Tree(x));
                }
                Outcome::Read
            }
            Rec::Conn(c) => {
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
            Rec::Connected { what, pxn, gdr } => {
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
            Rec::Env { name, value, source } => {
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
            Rec::NetUsing { kind, rest } => {
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
            Rec::UsingNetwork(name) => {
                self.ev.see(Fp::UsingNetwork);
                let host = self.host_name(self.streams[si].host);
                self.net(host, name);
                Outcome::Read
            }
            Rec::Gdr(g) => {
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
            Rec::Affinity { gpu, mask, cpu, new_form } => {
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
            Rec::Thresholds(groups) => {
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
            Rec::Counts(c) => {
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
            Rec::Tuning(t) => {
                // Only rank 0 prints the tuning table.
                self.streams[si].hint.get_or_insert(0);
                self.tuning(si, t);
                Outcome::Read
            }
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

    fn open_implicit(&mut self, si: usize) {
        let host = self.host_name(self.streams[si].host);
        self.streams[si].sys = Some(if self.sink.sys_complete.contains(&host) {
            SysBlock::Skip { ended: false, in_paths: false }
        } else {
            SysBlock::Build(Box::new(SysBuilder::new(None)))
        });
    }

    fn init(&mut self, si: usize, i: &record::Init<'_>) {
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

    fn sys_fingerprints(&mut self, l: &record::SysLine<'_>) {
        let id = &l.node.id;
        let far = matches!(l.link, Some((k, _)) if k != "PCI");
        if far {
            if id.dashed {
                self.ev.see(Fp::FarNodeDashed);
            } else if id.upper || id.kind == "NET" {
                self.ev.see(Fp::FarNodeUpper);
            }
        } else if id.dashed {
            self.ev.see(Fp::TreeNodeDashed);
        } else if id.upper {
            self.ev.see(Fp::TreeNodeUpper);
        }
        if let Some((k, _)) = l.link {
            self.ev.see(if l.int_bw { Fp::IntLinkBw } else { Fp::FloatLinkBw });
            match k {
                "LOC" => self.ev.see(Fp::LocLink),
                "C2C" => self.ev.see(Fp::C2c),
                _ => {}
            }
        }
        match id.kind {
            "CPU" if !far => self.ev.see(if l.node.cpu.is_some() { Fp::CpuAttr } else { Fp::CpuNoAttr }),
            "PCI" if !far => self.ev.see(if l.node.pci_device.is_some() { Fp::PciAttr } else { Fp::PciNoAttr }),
            "NET" => match l.node.net_fields {
                1 => self.ev.see(Fp::NetAttr1),
                3 => self.ev.see(Fp::NetAttr3),
                4 => self.ev.see(Fp::NetAttr4),
                _ => {}
            },
            "GIN" | "DEV" => self.ev.see(Fp::NewNodeTypes),
            "RMA" | "CXB" => self.ev.see(Fp::NewestNodeTypes),
            _ => {}
        }
        if l.node.mlo_part.is_some() {
            self.ev.see(Fp::NewestNodeTypes);
        }
    }

    fn path_fingerprints(&mut self, p: &record::PathLine<'_>) {
        if let Some((head, _)) = system::node_id(p.head) {
            if head.dashed {
                self.ev.see(Fp::PathHeadDashed);
            } else if head.upper || p.entries.iter().any(|e| e.to.contains('-')) {
                // An upper-case head proves the case; a head without letters
                // (`NET/5`) before dashed entries is 2.21-2.22 too.
                self.ev.see(Fp::PathHeadUpper);
            }
        }
        if let Some(e) = p.entries.first() {
            self.ev.see(match e.bw_decimals {
                0 => Fp::PathInt,
                1 => Fp::PathF1,
                _ => Fp::PathF6,
            });
        }
        for e in &p.entries {
            match e.kind {
                "C2C" => self.ev.see(Fp::C2c),
                "P2C" => self.ev.see(Fp::P2c),
                "PXN" | "DIS" => self.ev.see(Fp::PxnPath),
                "NVB" => self.ev.see(Fp::NvbPath),
                _ => {}
            }
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
            let busy = |t: &str| {
                t.bytes().any(|b| b.is_ascii_alphabetic()) || super::scan::hex(t).is_some_and(|(v, _)| v >= 0x100)
            };
            if busy(c.from_id) || busy(c.to_id) {
                self.ev.see(Fp::BusIdBrackets);
            } else if c.from_id.len() <= 2 && c.to_id.len() <= 2 && !c.ring_word {
                self.ev.see(Fp::DevBrackets);
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

/// Devices of `NET/X : Using ...`: IB ` [0]mlx5_0:1/IB`, merged ` [0]={[0] a:1/IB, [1]
/// b:1/IB}`, socket ` [0]eno1:10.0.0.1<0>`; then ` [RO]` and `; OOB if:addr`.
fn net_devices(rest: &str, near_limit: bool) -> (Vec<NetDevice>, Option<String>, bool) {
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
        let Some((index, x)) = super::scan::nat32(x) else {
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
        if super::scan::nat(t).is_some_and(|(_, r)| r.starts_with(']')) || t.starts_with("RO]") {
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
                let (_, p) = super::scan::nat32(p)?;
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
    if let Some((port, r)) = super::scan::nat32(rest)
        && let Some(i) = r.find('/')
        && r[..i].bytes().all(|b| b == b':' || b.is_ascii_digit())
    {
        return NetDevice { index, name: name.to_string(), port: Some(port), link: Some(r[i + 1..].to_string()) };
    }
    NetDevice { index, name: name.to_string(), port: None, link: Some(rest.to_string()) }
}

/// Node counts from hosts where NCCL did not print them; the primary communicator.
fn finish_comms(f: &mut LogFacts) {
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

/// 2.27.5+ graph channel lines print GPU bus ids: ranks from the system print's
/// `GPU/... (rank)` of the same host, else from the comm lines.
fn map_graph_gpus(f: &mut LogFacts) {
    for gi in 0..f.graphs.len() {
        if f.graphs[gi].channels.iter().all(|c| c.gpu_ids.is_empty()) {
            continue;
        }
        let host = f.graphs[gi].host.clone();
        let comm = f.graphs[gi].comm;
        let rank_of = |id: &str| -> Option<i64> {
            let (_, local) = id.split_once('-')?;
            let (local, _) = super::scan::hex(local)?;
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

/// What the connection brackets hold: bus ids up to 2.18.1 (CUDA devices for
/// `P2P/common device` and 2.18.1's `P2P/CUMEM`), NVML devices from 2.18.3.
fn connection_kinds(f: &mut LogFacts) {
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
                        t.bytes().any(|b| b.is_ascii_alphabetic())
                            || super::scan::hex(t).is_some_and(|(v, _)| v >= 0x100)
                    };
                    if busy(&c.from_id) || busy(&c.to_id) { "bus_id" } else { "nvml_dev" }
                }
            }
        };
        c.id_kind = Some(kind.to_string());
    }
}

/// Ring, tree or p2p: from the ring and tree facts of the same log.
fn connection_roles(f: &mut LogFacts) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_device_lists() {
        let (d, oob, t) = net_devices(" [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:10.0.0.1<0>", false);
        assert!(!t);
        assert_eq!(oob.as_deref(), Some("ib0:10.0.0.1<0>"));
        assert_eq!((d[1].name.as_str(), d[1].port, d[1].link.as_deref()), ("mlx5_1", Some(1), Some("RoCE")));
        let (d, _, _) =
            net_devices(" [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB} [1]mlx5_2:1/IB ; OOB eth0:1.2.3.4<0>", false);
        assert_eq!(d[0].name, "mlx5_0+mlx5_1");
        assert_eq!(d[1].name, "mlx5_2");
        let (d, oob, _) = net_devices(" [0]eno1:104.171.202.216<0> [1]veth:fe80::1%veth<0>", false);
        assert_eq!((d[1].name.as_str(), d[1].link.as_deref(), oob), ("veth", Some("fe80::1%veth<0>"), None));
        let (d, _, t) = net_devices(" [0]eno1:10.0.0.1<0> [1]br-x:172.2", true);
        assert!(t);
        assert_eq!(d.len(), 1);
        let (d, _, _) = net_devices(" [0]mlx5_0:1:2:0/IB ; OOB x", false);
        assert_eq!((d[0].port, d[0].link.as_deref()), (Some(1), Some("IB")));
    }

    #[test]
    fn unknown_words() {
        assert_eq!(unknown_word("Node Type: GPU"), "Node");
        assert_eq!(unknown_word("  -> Dest"), "->");
        assert_eq!(unknown_word("é".repeat(40).as_str()).chars().count(), 32);
    }
}
