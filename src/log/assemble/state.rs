//! The assembler's state: its printing streams, the communicators met so far, and
//! how a fact is given the communicator and rank of the stream that printed it.

use super::sink::{FxMap, Key, NONE, Pending, Sink};
use super::sysbuilder::SysBlock;
use crate::log::facts::*;
use crate::log::version::Evidence;

/// Records kept waiting on one stream for their rank, at most (one init of one rank
/// prints a few hundred); beyond, they are stored with what is known.
const MAX_PENDING: usize = 512;

/// A tuning table being read.
#[derive(Debug, Default)]
pub(super) struct Tune {
    pub(super) columns: Vec<(String, String)>,
    pub(super) algos: Vec<String>,
    pub(super) table: TuningTable,
}

/// One printing stream: its open blocks, its communicator and rank, and the facts that
/// wait for them.
#[derive(Debug, Default)]
pub(super) struct Stream {
    pub(super) key: Option<Key>,
    pub(super) host: Option<u32>,
    pub(super) pid: Option<u32>,
    pub(super) sys: Option<SysBlock>,
    pub(super) graph: Option<(GraphPrint, u32)>,
    pub(super) tune: Option<Tune>,
    pub(super) graph_index: u32,
    pub(super) comm: Option<usize>,
    pub(super) rank: Option<u32>,
    pub(super) started: bool,
    pub(super) hint: Option<u32>,
    pub(super) pending: Vec<Pending>,
}

/// Communicators.
#[derive(Debug, Default)]
pub(super) struct Registry {
    pub(super) by_id: FxMap<u64, usize>,
    pub(super) by_ptr: FxMap<(u32, u32, u64), usize>,
    pub(super) ranks: FxMap<(usize, u32), usize>,
    /// Split communicators without a commId (2.23+ prints none for them), by parent
    /// communicator, split number and color: ranks that split one parent the same
    /// number of times with one color are one communicator (init.cc hashes the
    /// parent's id with the split count and the color).
    pub(super) by_split: FxMap<(usize, u64, i64), usize>,
    /// How many splits each process's parent pointer has started.
    pub(super) splits_started: FxMap<(u32, u32, u64), u64>,
}

/// How a split line names its communicator: parent pointer, split number when
/// printed, color.
#[derive(Debug, Clone, Copy)]
pub(super) struct SplitOf {
    pub(super) parent: u64,
    pub(super) count: Option<u64>,
    pub(super) color: i64,
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
    pub(super) sink: Sink,
    pub(super) host_ids: FxMap<String, u32>,
    pub(super) keys: FxMap<Key, usize>,
    pub(super) streams: Vec<Stream>,
    pub(super) last: Option<(Key, usize)>,
    pub(super) reg: Registry,
    pub(super) pid_started: FxMap<(u32, u32), usize>,
    pub(super) pid_comms: FxMap<(u32, u32), (usize, bool)>,
    pub(super) ev: Evidence,
    pub(super) rccl: Option<&'static str>,
    pub(super) old: Option<&'static str>,
    pub(super) matrix_rows: u8,
    pub(super) orphan_channels: u64,
    /// Records handled so far: the order of the log.
    pub(super) seq: u64,
    /// The CUDA device of the record being handled (`[d]` of its prefix).
    pub(super) dev: Option<u32>,
    /// Comm lines in the order of the log.
    pub(super) inits: Vec<InitSeen>,
    /// Connection lines left to place at the end.
    pub(super) unplaced: Vec<(Connection, Unplaced)>,
    /// NCCL records or strong kinds on unprefixed lines were found.
    pub nccl_like: bool,
}

/// A comm line, where it was.
#[derive(Debug, Clone, Copy)]
pub(super) struct InitSeen {
    pub(super) host: Option<u32>,
    pub(super) pid: Option<u32>,
    pub(super) cuda_dev: u32,
    pub(super) seq: u64,
    pub(super) comm: usize,
    pub(super) complete: bool,
}

/// Where a connection line that waits for its communicator was.
#[derive(Debug, Clone, Copy)]
pub(super) struct Unplaced {
    pub(super) host: Option<u32>,
    pub(super) pid: Option<u32>,
    pub(super) dev: Option<u32>,
    pub(super) seq: u64,
    pub(super) origin: Option<Key>,
}

impl Assembler {
    pub fn new() -> Assembler {
        Assembler::default()
    }

    pub fn counts(&mut self) -> &mut LineCounts {
        &mut self.sink.f.lines
    }

    pub(super) fn intern(&mut self, host: &str, mid_line: bool) -> u32 {
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

    pub(super) fn stream(&mut self, key: Key) -> usize {
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

    pub(super) fn host_name(&self, h: Option<u32>) -> Option<String> {
        h.map(|i| self.sink.f.hosts[i as usize].clone())
    }

    /// A fact that takes the stream's communicator and rank: now, or when they are known.
    pub(super) fn attribute(&mut self, si: usize, p: Pending) {
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

    /// A fact with its own ranks: it needs the communicator only.
    pub(super) fn own_ranked(&mut self, si: usize, p: Pending) {
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

    pub(super) fn flush_pending(&mut self, si: usize, comm: Option<usize>, rank: Option<u32>) {
        let pending = std::mem::take(&mut self.streams[si].pending);
        let origin = self.streams[si].key;
        for p in pending {
            self.sink.commit(p, comm, rank, origin);
        }
    }
}
