//! Where facts go, deduplicated: a fact is committed with its communicator and rank once
//! they are known, and kept once however often the log repeats it.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use crate::log::facts::*;

pub(super) const NONE: u32 = u32::MAX;

/// Incomplete system prints kept per host when no complete one was read.
const MAX_PARTIAL_PRINTS: usize = 8;
/// Warnings kept.
const MAX_WARNINGS: usize = 200;

/// A printing stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Key {
    pub(super) host: u32,
    pub(super) pid: u32,
    pub(super) tid: u32,
    pub(super) dev: u32,
}

/// A fact waiting for its communicator and rank.
#[derive(Debug)]
pub(super) enum Pending {
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
pub(super) struct Sink {
    pub(super) f: LogFacts,
    pub(super) seen: KeySet,
    /// Per host: a complete system print was kept; incomplete ones kept.
    pub(super) sys_complete: HashSet<Option<String>>,
    pub(super) sys_partial: HashMap<Option<String>, usize>,
    pub(super) nets: HashMap<(Option<String>, String), usize>,
    pub(super) warned: HashSet<String>,
}

/// A fast hasher for the keys facts are deduplicated by (multiply-rotate, as
/// rustc's FxHash, with a final mix): 64-bit keys of a few thousand facts.
#[derive(Default)]
pub(super) struct Fx(u64);

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
pub(super) struct Identity(u64);

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

pub(super) type KeySet = HashSet<u64, BuildHasherDefault<Identity>>;
pub(super) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

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
    pub(super) fn warn(&mut self, w: String) {
        if self.f.warnings.len() < MAX_WARNINGS && self.warned.insert(w.clone()) {
            self.f.warnings.push(w);
        }
    }

    pub(super) fn once<T: Hash>(&mut self, tag: u8, v: &T, origin: Option<Key>) -> bool {
        self.seen.insert(hash_of(tag, v, origin))
    }

    /// Store a fact with its communicator and rank (fields the fact already has win).
    pub(super) fn commit(&mut self, p: Pending, comm: Option<usize>, rank: Option<u32>, origin: Option<Key>) {
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
