//! Synthetic NCCL debug logs (`NCCL_DEBUG=INFO`), written from topo's own model, in the
//! formats of each era of NCCL releases from 2.5 to 2.30, with the facts they hold.
//!
//! [`write`] runs topo's model and search on a topology (a built-in fixture or any
//! topology XML) for a job of `nodes` identical hosts and prints, for every rank, the
//! lines NCCL of the chosen [`Era`] prints when it decides as topo does: the version
//! line, the communicator lines, the system print and its path lines, the graphs with
//! their channels, ring orders, ring and tree neighbours, NVLS heads, the transport
//! connections (P2P, SHM or NET by topo's verdicts), environment and network lines,
//! channel counts, thread thresholds and the tuning table. Every format follows the
//! printf of that release in NCCL's source (file named next to each writer below).
//!
//! An [`Envelope`] then decides what the log looks like on disk: how the ranks' lines
//! interleave (one host file after another, or mixed), the prefix form (NCCL's own,
//! stripped, or behind Open MPI / srun / torchrun tags), CRLF line ends, ANSI colour,
//! records spliced into one physical line, and program output in between.
//!
//! Beside the text, [`write`] returns the [`LogFacts`] the log holds (what a reader
//! must find): [`differences`] holds them against what `topo::log` read, after putting
//! both in a canonical order. Facts are computed from the records that survive the
//! envelope: a record cut by a splice, or the items NCCL's 1023-byte buffers cut off,
//! are not expected.
//!
//! The writer models one process per GPU, no trimming domains (every GPU of a host
//! reaches the others without the network), and identical hosts. Releases before 2.18.1
//! are printed in their own formats but with the facts of topo's 2.18.1 model (topo
//! models nothing older).
//!
//! Test support, not part of the library: included by `tests/log_synthetic.rs` with
//! `#[path = "support/nccl_log.rs"] mod nccl_log;`.

// Each including crate uses a different part of it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use topo::env::Env;
use topo::log::{
    Affinity, ChannelCounts, Comm, ConnectedMark, Connection, CpuAttrs, Detail, Dialect, EnvSetting, GraphChannel,
    GraphPrint, LogFacts, LogVersion, NetAttrs, NetDevice, NetUse, NvlsHead, PathEntry, RankInfo, RingLink, RingOrder,
    SysLink, SysNode, SystemPrint, Thresholds, TreeLink, TreeSource, TuningRow, TuningTable, VersionSource,
};
use topo::model::system::{self as msys, Kind, NodeRef, System};
use topo::model::{self, Analysis, GdrMode, LinkType, NodeType, PathType, Transport};
use topo::release::{RELEASES, Release};
use topo::search::{self, Graph, GraphId, Graphs, SearchOptions, channels};
use topo::tune::{Algo, Func, Proto};

// ---------------------------------------------------------------------------------------
// Eras

/// A release whose formats the log is printed in (`NCCL version 2.<minor>.<patch>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Era {
    pub minor: u32,
    pub patch: u32,
}

/// The eras the tests cover: one release of each set of formats.
pub const ERAS: &[Era] = &[
    Era::new(5, 6),
    Era::new(7, 8),
    Era::new(12, 12),
    Era::new(18, 1),
    Era::new(20, 5),
    Era::new(21, 5),
    Era::new(22, 3),
    Era::new(23, 4),
    Era::new(24, 3),
    Era::new(25, 1),
    Era::new(26, 6),
    Era::new(27, 5),
    Era::new(28, 9),
    Era::new(29, 7),
    Era::new(30, 7),
];

impl Era {
    pub const fn new(minor: u32, patch: u32) -> Era {
        Era { minor, patch }
    }

    /// `2.23.4`.
    pub fn name(self) -> String {
        format!("2.{}.{}", self.minor, self.patch)
    }

    /// The era called `2.x.y`.
    pub fn parse(s: &str) -> Era {
        let mut it = s.split('.').skip(1).map(|p| p.parse::<u32>().unwrap());
        Era::new(it.next().unwrap(), it.next().unwrap())
    }

    /// At least 2.`minor`.`patch`.
    pub fn since(self, minor: u32, patch: u32) -> bool {
        (self.minor, self.patch) >= (minor, patch)
    }

    /// The CUDA version a build of this release typically names.
    pub fn cuda(self) -> &'static str {
        match self.minor {
            0..=5 => "10.2",
            6..=7 => "11.0",
            8..=13 => "11.6",
            14..=18 => "12.1",
            19..=20 => "12.3",
            21 => "12.4",
            22 => "12.5",
            23 => "12.6",
            24..=26 => "12.8",
            27 => "12.9",
            28..=29 => "13.0",
            _ => "13.1",
        }
    }

    /// The release topo models for it: the newest one not after it, 2.18.1 for older.
    pub fn model(self) -> Release {
        let me = (2u8, self.minor as u8, self.patch as u8);
        RELEASES.iter().copied().rfind(|r| (r.major, r.minor, r.patch) <= me).unwrap_or(RELEASES[0])
    }
}

// ---------------------------------------------------------------------------------------
// What to write

/// The machine.
#[derive(Debug, Clone)]
pub enum Topology {
    /// A built-in fixture of `topo::fixtures`.
    Fixture(&'static str),
    /// Any topology XML, with a name for messages.
    Xml { name: String, text: String },
}

/// Which network plugin the job uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Net {
    /// IB when the machine has NICs, else sockets.
    Auto,
    Ib,
    Socket,
}

/// The job and what NCCL prints of it.
#[derive(Debug, Clone)]
pub struct Spec {
    pub topology: Topology,
    pub nodes: usize,
    pub era: Era,
    /// `NCCL_DEBUG_SUBSYS` has GRAPH: system print, paths, graphs, `Ring`/`Tree` lines.
    pub graph: bool,
    /// `NCCL_DEBUG_SUBSYS` has TUNING: rank 0's tuning table.
    pub tuning: bool,
    /// NCCL_* variables set (the model runs with them, the log prints them).
    pub env: Vec<(String, String)>,
    pub net: Net,
    /// Every rank also splits the communicator by `rank % 2` (lines of the split
    /// communicators' init only; 2.16+, before nothing in the log tells the two apart).
    pub split: bool,
    /// The init function named from 2.23 (`ncclCommInitRank`, `ncclCommInitRankConfig`).
    pub func: &'static str,
    /// One WARN record per host (timestamped from 2.26).
    pub warn: bool,
    /// Every NIC is CollNet capable (topo's `--collnet`): CollNet graphs and the
    /// `CollNet NN : r [send] via COLLNET/...` lines of their heads (2.6+).
    pub collnet: bool,
    /// First part of the host names (`<base>-<n>`).
    pub host_base: String,
    /// Connection formats topo's model does not decide on these machines, forced.
    pub variants: Variants,
}

/// Forced connection formats (NCCL decides them from things topo does not model: the
/// process layout, copy-engine variables, NIC placement, multi-node NVLink).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Variants {
    /// One process drives every GPU of a host, one thread each (nccl-tests `-t`):
    /// `P2P/direct pointer`; version, environment and network lines once per process.
    pub single_process: bool,
    /// NCCL_P2P_USE_CUDA_MEMCPY=1 and NCCL_SHM_USE_CUDA_MEMCPY=1: `/CE` (2.13+).
    pub copy_engine: bool,
    /// P2P read (`/read`, 2.7+) on every P2P connection.
    pub read: bool,
    /// NET sends through the GPU next to the NIC (PXN, `NET/IB/d(proxy)`, 2.12+).
    pub pxn: bool,
    /// GPUDirect RDMA over PCI (`/GDRDMA(PCI)`, 2.26+).
    pub gdr_pci: bool,
    /// Multi-node NVLink: peers on other hosts over `P2P/MNNVL` (2.20+), `MNNVL 1`.
    pub mnnvl: bool,
    /// Point-to-point operations after init: connection index 1, NET `/Shared`.
    pub p2p_ops: bool,
}

impl Spec {
    pub fn new(fixture: &'static str, nodes: usize, era: Era) -> Spec {
        Spec {
            topology: Topology::Fixture(fixture),
            nodes,
            era,
            graph: true,
            tuning: true,
            env: vec![("NCCL_IB_TIMEOUT".into(), "22".into()), ("NCCL_SOCKET_IFNAME".into(), "eth0".into())],
            net: Net::Auto,
            split: false,
            func: "ncclCommInitRank",
            warn: false,
            collnet: false,
            host_base: "gpu-node".into(),
            variants: Variants::default(),
        }
    }
}

/// How ranks' lines are put together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Rank 0's lines, then rank 1's, ...
    Sequential,
    /// One host after another (each host's log file concatenated), ranks of a host mixed.
    Hosts,
    /// Every rank's lines mixed at random (one shared output).
    Mixed,
}

/// The record prefix as it reaches the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    /// `host:pid:tid [dev] NCCL INFO `.
    Nccl,
    /// `NCCL INFO ` only (host, pid, tid and device removed).
    Stripped,
    /// `[dev] NCCL INFO ` (host, pid and tid removed).
    DevOnly,
    /// Open MPI `--tag-output`: `[1,<rank>]<stdout>:` before NCCL's prefix.
    OpenMpi,
    /// `srun -l`: `<rank>: `.
    Srun,
    /// torchrun: `[default<local rank>]:`.
    Torchrun,
}

/// What the log looks like on disk.
#[derive(Debug, Clone)]
pub struct Envelope {
    pub seed: u64,
    pub order: Order,
    pub prefix: Prefix,
    pub crlf: bool,
    pub ansi: bool,
    /// Records cut by another record written onto the same line.
    pub splices: usize,
    /// Lines of other programs in between.
    pub foreign: usize,
}

impl Default for Envelope {
    fn default() -> Envelope {
        Envelope {
            seed: 1,
            order: Order::Sequential,
            prefix: Prefix::Nccl,
            crlf: false,
            ansi: false,
            splices: 0,
            foreign: 0,
        }
    }
}

/// A synthetic log and the facts it holds.
#[derive(Debug, Clone)]
pub struct Log {
    pub text: String,
    pub expected: LogFacts,
    /// Facts that may be read or not (the last item of a record cut at NCCL's buffer
    /// size, which a reader cannot tell complete): tree links (rank, channel) and path
    /// entries (host, from, to).
    pub optional_trees: BTreeSet<(u32, u32)>,
    pub optional_paths: BTreeSet<(String, String, String)>,
    /// Records written, cut by splices, and filled or cut by NCCL's buffers.
    pub records: usize,
    pub spliced: usize,
    pub truncated: usize,
    /// The era written, whether split communicators were, and the forced formats.
    pub era: Era,
    pub split: bool,
    pub collnet: bool,
    pub variants: Variants,
    /// Graph channels name GPUs by bus id (2.27.5+) on several hosts and the log does
    /// not say which host printed them (stripped prefixes): their ranks are not
    /// compared.
    pub gpu_ranks_ambiguous: bool,
    /// The log lost NCCL's host:pid:tid prefix (stripped forms).
    pub stripped: bool,
}

// ---------------------------------------------------------------------------------------
// A small deterministic generator

#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

// ---------------------------------------------------------------------------------------
// The model run

struct World {
    spec: Spec,
    era: Era,
    an: Analysis,
    gs: Graphs,
    run: channels::Run,
    tune: Option<topo::tune::Model>,
    /// GPUs (ranks) per host.
    local: usize,
    nranks: usize,
    hosts: Vec<String>,
    procs: Vec<Proc>,
    net: NetKind,
    /// The network ports of the topology (name, port), by `dev`: what the IB plugin lists.
    phys_nets: Vec<(String, i64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NetKind {
    Ib,
    Socket,
}

impl NetKind {
    fn name(self) -> &'static str {
        match self {
            NetKind::Ib => "IB",
            NetKind::Socket => "Socket",
        }
    }
}

/// One process (one rank of the primary communicator).
#[derive(Debug, Clone)]
struct Proc {
    rank: usize,
    host: usize,
    local: usize,
    pid: u32,
    /// The init thread and the thread that sets up connections.
    tid: u32,
    ctid: u32,
    /// CUDA device (also the NVML index here, and the `[dev]` of the prefix).
    dev: u32,
    busid: String,
    busid_num: i64,
}

fn world(spec: &Spec) -> World {
    let era = spec.era;
    let release = era.model();
    let (x, name) = match &spec.topology {
        Topology::Fixture(n) => (topo::fixtures::get(n).unwrap().load().unwrap().0, n.to_string()),
        Topology::Xml { name, text } => (topo::xml::parse(text, None).unwrap().0, name.clone()),
    };
    let env = Env::for_release(release, spec.env.iter().cloned());
    let opts = model::Options { nodes: spec.nodes, env, collnet: spec.collnet, ..model::Options::default() };
    let an = model::analyze(&x, &name, &opts).unwrap();
    assert!(an.trimmed.is_empty(), "{name}: the writer does not model trimming domains");
    let so = SearchOptions::from_analysis(&an);
    let (gs, _) = search::run(&an, &so).unwrap();
    let run = channels::for_analysis(&an, &gs).unwrap();
    let tune = topo::tune::Model::new(&an, &gs).ok();
    let local = an.gpus.len();
    let nranks = local * spec.nodes;
    let hosts: Vec<String> = (0..spec.nodes).map(|h| format!("{}-{h}", spec.host_base)).collect();
    let mut procs = Vec::new();
    for r in 0..nranks {
        let (h, l) = (r / local, r % local);
        let g = an.gpus.iter().find(|g| g.rank == l as i32).unwrap();
        let single = spec.variants.single_process;
        let pid = if single { 41000 + 1000 * h as u32 } else { 41000 + 1000 * h as u32 + 37 * l as u32 };
        procs.push(Proc {
            rank: r,
            host: h,
            local: l,
            pid,
            tid: if single { pid + 1 + l as u32 } else { pid },
            ctid: if single { pid + 101 + l as u32 } else { pid + 11 },
            dev: g.dev as u32,
            busid: g.busid.clone(),
            busid_num: topo::xml::busid_to_i64(&g.busid),
        });
    }
    let has_nets = !an.nets.is_empty();
    let net = match spec.net {
        Net::Ib => NetKind::Ib,
        Net::Socket => NetKind::Socket,
        Net::Auto if has_nets => NetKind::Ib,
        Net::Auto => NetKind::Socket,
    };
    let mut phys: Vec<(i64, String, i64)> = Vec::new();
    if let Some(root) = x.root() {
        for n in x.descendants_named(root, "net") {
            let a = |k: &str| x.attr(n, k).map(str::to_string);
            let dev = a("dev").and_then(|v| v.parse().ok()).unwrap_or(phys.len() as i64);
            let port = a("port").and_then(|v| v.parse().ok()).unwrap_or(1);
            phys.push((dev, a("name").unwrap_or_else(|| format!("mlx5_{dev}")), port));
        }
    }
    phys.sort();
    let phys_nets = phys.into_iter().map(|(_, n, p)| (n, p)).collect();
    World { spec: spec.clone(), era, an, gs, run, tune, local, nranks, hosts, procs, net, phys_nets }
}

impl World {
    fn offset(&self, host: usize) -> i64 {
        (host * self.local) as i64
    }
    /// Whether the printed system keeps its NET nodes (NCCL removed them on one node
    /// before 2.28.9).
    fn nets_printed(&self) -> bool {
        self.an.system.count(NodeType::Net) > 0 && (self.spec.nodes > 1 || self.era.since(28, 9))
    }
}

// ---------------------------------------------------------------------------------------
// Records

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Info,
    Warn,
    /// Printed with `printf`, no prefix (the version line before 2.22).
    Bare,
}

/// A fact a record holds, by kind; assembled into [`LogFacts`] for the records that
/// survive.
#[derive(Debug, Clone)]
enum Fact {
    None,
    Version,
    Rank { comm: usize, rank: u32, complete: bool },
    Nodes { comm: usize, rank: u32, nnodes: u32, local_ranks: u32, local_rank: u32 },
    System(Box<SystemPrint>),
    Graph(Box<GraphPrint>),
    Ring(RingOrder),
    RingLink(RingLink),
    Trees(Vec<TreeLink>),
    Tree(TreeLink),
    Nvls(NvlsHead),
    Conn(Connection),
    Env(EnvSetting),
    NetUsing(NetUse),
    UsingNetwork(String),
    Counts(ChannelCounts),
    Thresholds(Thresholds),
    Tuning(Box<TuningTable>),
    Affinity(Affinity),
    Connected(ConnectedMark),
    Detail(Detail),
}

#[derive(Debug, Clone)]
struct Rec {
    proc_: usize,
    tid: u32,
    level: Level,
    /// For WARN: `file:line` shown in the prefix.
    origin: &'static str,
    msg: String,
    fact: Fact,
    /// Part of a multi-line block (system print, paths, a graph, the tuning table).
    block: bool,
    /// May be cut by a splice (its loss changes no other fact).
    victim: bool,
    /// Items that might be read or not, for [`Log::optional_trees`] and `optional_paths`.
    opt_trees: Vec<(u32, u32)>,
    /// Tree items cut mid-way: a reader that cannot see NCCL's prefix (stripped logs)
    /// cannot tell them cut.
    cut_trees: Vec<(u32, u32)>,
    /// NCCL's buffer cut the text (or it fills the buffer to its last byte).
    cut: bool,
    opt_paths: Vec<(String, String, String)>,
}

impl Rec {
    fn info(p: &Proc, msg: String, fact: Fact) -> Rec {
        Rec {
            proc_: p.rank,
            tid: p.tid,
            level: Level::Info,
            origin: "",
            msg,
            fact,
            block: false,
            victim: false,
            opt_trees: Vec::new(),
            cut_trees: Vec::new(),
            cut: false,
            opt_paths: Vec::new(),
        }
    }
    fn block(mut self) -> Rec {
        self.block = true;
        self
    }
    fn victim(mut self) -> Rec {
        self.victim = true;
        self
    }
    fn on(mut self, tid: u32) -> Rec {
        self.tid = tid;
        self
    }
}

/// NCCL's own prefix of an INFO record.
fn info_prefix(host: &str, p: &Proc, tid: u32) -> String {
    format!("{host}:{}:{tid} [{}] NCCL INFO ", p.pid, p.dev)
}

/// The longest message NCCL's logger lets through after `prefix` (it formats a record
/// into 1024 bytes until 2.28: debug.cc `char buffer[1024]`), or none (2.29+).
fn logger_room(era: Era, prefix: &str) -> Option<usize> {
    if era.since(29, 0) { None } else { Some(1023usize.saturating_sub(prefix.len())) }
}

/// A message made of a head and items, cut at `room` bytes.
struct Cut {
    /// The text reaches the room: cut, or whole but no reader can tell.
    full: bool,
    text: String,
    /// Items kept whole (and readable as whole).
    keep: usize,
    /// The last whole item ends exactly at the cut: a reader cannot tell it whole.
    edge: Option<usize>,
    /// The item the cut falls in.
    straddle: Option<usize>,
}

fn cut_items(head: &str, items: &[String], room: Option<usize>) -> Cut {
    let mut s = head.to_string();
    let mut ends = Vec::new();
    for it in items {
        s.push_str(it);
        ends.push(s.len());
    }
    match room {
        Some(room) if s.len() >= room => {
            let mut keep = ends.iter().filter(|&&e| e <= room).count();
            let edge = (keep > 0 && ends[keep - 1] == room).then(|| keep - 1);
            let straddle =
                (keep < items.len() && ends[keep] > room && (keep == 0 || ends[keep - 1] < room)).then_some(keep);
            let mut c = room.min(s.len());
            while !s.is_char_boundary(c) {
                c -= 1;
            }
            s.truncate(c);
            if edge.is_some() {
                keep -= 1;
            }
            Cut { full: true, text: s, keep, edge, straddle }
        }
        _ => Cut { full: false, text: s, keep: items.len(), edge: None, straddle: None },
    }
}

/// `%f` of a float, as C prints it (the float widened to double).
fn f6(x: f32) -> String {
    format!("{:.6}", x as f64)
}
/// `%.1f` / `%2.1f`.
fn f1(x: f32) -> String {
    format!("{:.1}", x as f64)
}
/// The value a reader gets back from a printed number.
fn back(s: &str) -> f64 {
    s.trim().parse().unwrap()
}

/// A comm pointer as `%p` prints it. Every rank has its own `ncclComm` (init.cc allocates
/// one per rank), also the ranks one process drives from its threads: their pointers
/// differ. (They once did not, and a process's split lines before 2.24, which print no
/// split count, then named one parent for all its threads' splits.)
fn comm_ptr(p: &Proc, comm: usize) -> String {
    let base = 0x55d3_5c3a_0000u64 + (p.pid as u64) * 0x1_0000 + 0x9ec0;
    format!("0x{:x}", base + (p.local as u64) * 0x100 + comm as u64 * 0x2_0000_0000)
}

/// A commId hash as `0x%llx` prints it.
fn comm_hash(comm: usize) -> String {
    format!("0x{:x}", 0x4ba8_a621_7928_81c2u64 ^ ((comm as u64 + 1) * 0x1000_0000_0100_0001))
}

// ---------------------------------------------------------------------------------------
// Communicators

struct CommDef {
    /// Global ranks (primary numbering) in the communicator's rank order.
    members: Vec<usize>,
    /// Split: (color, key) and parent comm.
    split: Option<(i32, i32, usize)>,
}

fn comm_defs(w: &World) -> Vec<CommDef> {
    let mut v = vec![CommDef { members: (0..w.nranks).collect(), split: None }];
    // Before 2.16 nothing the log prints tells apart communicators of the same size
    // (no commId, no color): splits are written from 2.16 only.
    if w.spec.split && w.nranks >= 2 && w.era.since(16, 0) {
        for color in 0..2 {
            let members: Vec<usize> = (0..w.nranks).filter(|r| r % 2 == color).collect();
            v.push(CommDef { members, split: Some((color as i32, 0, 0)) });
        }
    }
    v
}

/// The version text.
fn version_text(era: Era) -> String {
    format!("NCCL version {}+cuda{}", era.name(), era.cuda())
}

/// The `comm ...` init line (init.cc `ncclCommInitRank*` / `ncclCommSplit` INFO).
fn comm_line(w: &World, p: &Proc, comms: &[CommDef], c: usize, start: bool) -> Option<String> {
    let era = w.era;
    let def = &comms[c];
    let rank = def.members.iter().position(|&m| m == p.rank)?;
    let nranks = def.members.len();
    let ptr = comm_ptr(p, c);
    let what = if start { "START" } else { "COMPLETE" };
    let bus = format!("{:x}", p.busid_num);
    let base = |nvml: bool| {
        let mut s = format!("comm {ptr} rank {rank} nranks {nranks} cudaDev {}", p.dev);
        if nvml {
            let _ = write!(s, " nvmlDev {}", p.dev);
        }
        let _ = write!(s, " busId {bus}");
        s
    };
    if start && !era.since(18, 3) {
        return None;
    }
    if !era.since(16, 0) {
        return Some(format!("{} - Init {what}", base(false)));
    }
    if !era.since(21, 0) {
        return Some(format!("{} commId {} - Init {what}", base(era.since(18, 3)), comm_hash(c)));
    }
    let parent = def.split.map(|(color, key, pc)| (color, key, comm_ptr(p, pc)));
    if !era.since(23, 0) {
        return Some(match parent {
            Some((color, key, pp)) => format!(
                "ncclCommSplit {} parent {pp} color {color} key {key} commId {} - Init {what}",
                base(true),
                comm_hash(c)
            ),
            None => format!("ncclCommInitRank {} commId {} - Init {what}", base(true), comm_hash(c)),
        });
    }
    Some(match parent {
        Some((color, key, pp)) => {
            let count = if era.since(29, 0) {
                " childCount 1"
            } else if era.since(24, 0) {
                " splitCount 1"
            } else {
                ""
            };
            let sep = if start { "" } else { " " };
            format!("ncclCommSplit {} parent {pp}{count} color {color} key {key}{sep}- Init {what}", base(true))
        }
        None if start && era.since(29, 0) => {
            format!("[Rank {rank}] {} {} commId {} - Init START", w.spec.func, base(true), comm_hash(c))
        }
        None => format!("{} {} commId {} - Init {what}", w.spec.func, base(true), comm_hash(c)),
    })
}

// ---------------------------------------------------------------------------------------
// The system print (graph/topo.cc ncclTopoPrint, ncclTopoPrintRec; graph/paths.cc
// printNodePaths)

/// A node of the system as the era prints it: before 2.30.3 a GPU is one node with its
/// device's links (topo models 2.30's GPU/DEV pair); NETs are gone on one node before
/// 2.28.9.
struct View {
    nodes: Vec<VNode>,
    /// Index of every node of the model's system in `nodes`.
    map: BTreeMap<NodeRef, usize>,
    cpus: Vec<usize>,
}

struct VNode {
    r: NodeRef,
    ty: NodeType,
    id: i64,
    links: Vec<(LinkType, f32, usize)>,
}

fn view(w: &World, sys: &System) -> View {
    let dev_nodes = w.era.since(30, 3);
    let nets = w.nets_printed();
    let mut v = View { nodes: Vec::new(), map: BTreeMap::new(), cpus: Vec::new() };
    let keep = |t: NodeType| match t {
        NodeType::Net => nets,
        NodeType::Dev | NodeType::Gin | NodeType::Rma | NodeType::Cxb => dev_nodes,
        _ => true,
    };
    for t in NodeType::ALL {
        if !keep(t) {
            continue;
        }
        for i in 0..sys.count(t) {
            let r = NodeRef::new(t, i);
            v.map.insert(r, v.nodes.len());
            v.nodes.push(VNode { r, ty: t, id: sys.node(r).id, links: Vec::new() });
            if t == NodeType::Cpu {
                v.cpus.push(v.nodes.len() - 1);
            }
        }
    }
    if !dev_nodes {
        // A device stands for its (first) GPU.
        for d in 0..sys.count(NodeType::Dev) {
            let dr = NodeRef::new(NodeType::Dev, d);
            if let Some(l) = sys.node(dr).links.iter().find(|l| l.ty == LinkType::Loc && l.rem.ty == NodeType::Gpu) {
                let g = v.map[&l.rem];
                v.map.insert(dr, g);
            }
        }
    }
    for i in 0..v.nodes.len() {
        let r = v.nodes[i].r;
        // Before 2.30.3 a GPU's links are its device's.
        let src = if !dev_nodes && r.ty == NodeType::Gpu {
            match sys.node(r).gpu_parent() {
                Some(d) => NodeRef::new(NodeType::Dev, d),
                None => r,
            }
        } else {
            r
        };
        let mut links = Vec::new();
        for l in &sys.node(src).links {
            let Some(&to) = v.map.get(&l.rem) else { continue };
            if to == i {
                continue;
            }
            if !dev_nodes && l.ty == LinkType::Loc && matches!(l.rem.ty, NodeType::Gpu | NodeType::Dev) {
                continue;
            }
            links.push((l.ty, l.bw, to));
        }
        v.nodes[i].links = links;
    }
    v
}

/// `TYPE/id` as a node id is printed: `%lX` before 2.21 (or where `upper`), `%lx-%lx` after.
fn node_id(era: Era, ty: NodeType, id: i64, hyphen: bool) -> String {
    let sys_id = msys::id_system(id);
    let local = msys::id_local(id);
    if hyphen {
        format!("{}/{:x}-{:x}", ty.name(), sys_id, local)
    } else if !era.since(21, 0) && ty == NodeType::Cpu && local == msys::ID_LOCAL_MASK {
        // The NUMA id -1 of NCCL's own CPU id, `%lX`.
        format!("{}/FFFFFFFFFFFFFFFF", ty.name())
    } else {
        format!("{}/{:X}", ty.name(), id as u64)
    }
}

/// The id of a node's own line and of the head of its path line.
fn own_id(era: Era, ty: NodeType, id: i64) -> String {
    node_id(era, ty, id, era.since(21, 0))
}
/// The id of a far node (after a non-PCI link), and of a path head before 2.23.
fn far_id(era: Era, ty: NodeType, id: i64) -> String {
    node_id(era, ty, id, era.since(23, 0))
}

/// The (kind, system id, local id) key of a printed id.
fn id_key(s: &str) -> (String, u64, u64) {
    let (k, rest) = s.split_once('/').unwrap();
    match rest.split_once('-') {
        Some((a, b)) => (k.into(), u64::from_str_radix(a, 16).unwrap(), u64::from_str_radix(b, 16).unwrap()),
        None => (k.into(), 0, u64::from_str_radix(rest, 16).unwrap()),
    }
}

/// The 2.5 number of a path type (the largest link type on the way: LOC 0, NVL 1,
/// PCI 2, QPI 3; a CPU on the way counts as QPI).
fn path_code_2_5(t: PathType) -> i32 {
    match t {
        PathType::Loc => 0,
        PathType::Nvl | PathType::Nvb => 1,
        PathType::C2c | PathType::Pix | PathType::Pxb | PathType::P2c | PathType::Pxn => 2,
        _ => 3,
    }
}

/// The name a path type is printed with: NCCL 2.12 to 2.20 print `PATH_NET` as `DIS`
/// (their name table stops one short).
fn path_name(era: Era, t: PathType) -> String {
    if !era.since(6, 0) {
        return path_code_2_5(t).to_string();
    }
    if t == PathType::Net && era.since(12, 0) && !era.since(21, 0) {
        return "DIS".into();
    }
    t.name().to_string()
}

/// What the system print of one host holds, before it is cut into records.
struct SysOut {
    /// The header, the tree lines and the closing line.
    lines: Vec<String>,
    print: SystemPrint,
    /// Path lines: head text, then (entry text, entry) items.
    paths: Vec<(String, Vec<(String, PathEntry)>)>,
}

struct Printer<'a> {
    era: Era,
    sys: &'a System,
    v: &'a View,
    off: i64,
    lines: Vec<String>,
    print: SystemPrint,
    index: BTreeMap<(String, u64, u64), usize>,
    /// Undirected links: (lower, upper, kind) -> (from, to, bw) as first printed.
    links: BTreeMap<(usize, usize, String), (usize, usize, f64)>,
}

impl Printer<'_> {
    fn text(&self, n: usize, own: bool) -> String {
        let era = self.era;
        let vn = &self.v.nodes[n];
        let id = if own { own_id(era, vn.ty, vn.id) } else { far_id(era, vn.ty, vn.id) };
        match &self.sys.node(vn.r).kind {
            Kind::Gpu { rank, mlopart, .. } if own => {
                let mlo =
                    if era.since(30, 7) && *mlopart != -1 { format!(" [MLOPart {mlopart}]") } else { String::new() };
                format!("{id} ({}){mlo}", *rank as i64 + self.off)
            }
            Kind::Cpu { arch, vendor, model, .. } if own && era.since(6, 0) => {
                format!("{id} ({arch}/{vendor}/{model})")
            }
            Kind::Pci { device } if own && era.since(9, 0) => format!("{id} ({device:x})"),
            Kind::Dev { device, .. } if own => format!("{id} ({device:x})"),
            Kind::Net(info) if !own => {
                if !era.since(6, 0) {
                    format!("{id} ({})", info.dev)
                } else if era.since(24, 0) {
                    format!("{id} ({}/{:x}/{}/{})", info.coll, info.asic, info.port, f6(info.bw))
                } else {
                    format!("{id} ({:x}/{}/{})", info.asic, info.port, f6(info.bw))
                }
            }
            _ => id,
        }
    }

    /// Record a printed node (its own line, or as a far node) and return its index.
    fn node(&mut self, n: usize, text: &str, own: bool) -> usize {
        let era = self.era;
        let vn = &self.v.nodes[n];
        let id = text.split(' ').next().unwrap().to_string();
        let key = id_key(&id);
        let print = &mut self.print;
        let i = *self.index.entry(key.clone()).or_insert_with(|| {
            print.nodes.push(SysNode {
                id: id.clone(),
                kind: key.0.clone(),
                system_id: key.1,
                local_id: key.2,
                ..SysNode::default()
            });
            print.nodes.len() - 1
        });
        let out = &mut self.print.nodes[i];
        if matches!(vn.ty, NodeType::Gpu | NodeType::Pci | NodeType::Nic) {
            out.bus_id = Some(topo::xml::i64_to_busid(msys::id_local(vn.id)));
        }
        match &self.sys.node(vn.r).kind {
            Kind::Gpu { rank, .. } if own => out.rank = Some(*rank as i64 + self.off),
            Kind::Cpu { arch, vendor, model, .. } if own && era.since(6, 0) => {
                out.cpu = Some(CpuAttrs { arch: *arch as i64, vendor: *vendor as i64, model: *model as i64 })
            }
            Kind::Pci { device } if own && era.since(9, 0) => out.pci_device = Some(*device),
            Kind::Net(info) if !own && era.since(6, 0) => {
                out.net = Some(NetAttrs {
                    coll: era.since(24, 0).then_some(info.coll as i64),
                    asic: info.asic,
                    port: info.port as i64,
                    bw: back(&f6(info.bw)),
                })
            }
            _ => {}
        }
        i
    }

    fn link(&mut self, from: usize, to: usize, kind: &str, bw: f64) {
        let k = (from.min(to), from.max(to), kind.to_string());
        self.links.entry(k).or_insert((from, to, bw));
    }

    fn bw(&self, bw: f32) -> String {
        if self.era.since(6, 0) { f1(bw) } else { format!("{:2}", bw as i32) }
    }

    /// ncclTopoPrintRec: the node's line (after `lead`), then each link in order: a PCI
    /// link to a node other than the one it came from recurses, other links print the
    /// far node only; LOC links are skipped until 2.22 and printed after.
    fn rec(&mut self, n: usize, prev: Option<usize>, lead: &str) -> usize {
        let text = self.text(n, true);
        self.lines.push(format!("{lead}{text}"));
        let me = self.node(n, &text, true);
        let pad = " ".repeat(lead.len());
        let links = self.v.nodes[n].links.clone();
        for (lt, bw, to) in links {
            let b = self.bw(bw);
            if lt == LinkType::Loc {
                if !self.era.since(22, 0) {
                    continue;
                }
                let t = far_id(self.era, self.v.nodes[to].ty, self.v.nodes[to].id);
                self.lines.push(format!("{pad}+ LOC[{b}] - {t}"));
                let j = self.node(to, &t, false);
                self.link(me, j, "LOC", back(&b));
                continue;
            }
            if lt == LinkType::Pci && Some(to) == prev {
                continue;
            }
            let name = if !self.era.since(6, 0) && lt == LinkType::Sys { "QPI" } else { lt.name() };
            let head = format!("{pad}+ {name}[{b}] - ");
            if lt == LinkType::Pci {
                let j = self.rec(to, Some(n), &head);
                self.link(me, j, name, back(&b));
            } else {
                let t = self.text(to, false);
                self.lines.push(format!("{head}{t}"));
                let j = self.node(to, &t, false);
                self.link(me, j, name, back(&b));
            }
        }
        me
    }
}

/// The system print and path lines of host `p.host` (every rank of a host prints the
/// same, its GPUs named with their ranks).
fn system_print(w: &World, p: &Proc) -> SysOut {
    let era = w.era;
    let sys = &w.an.system;
    let v = view(w, sys);
    let off = w.offset(p.host);
    let mut pr = Printer {
        era,
        sys,
        v: &v,
        off,
        lines: Vec::new(),
        print: SystemPrint {
            comm: Some(0),
            rank: Some(p.rank as u32),
            host: Some(w.hosts[p.host].clone()),
            ..SystemPrint::default()
        },
        index: BTreeMap::new(),
        links: BTreeMap::new(),
    };
    let (mx, tot) = (sys.max_bw, sys.total_bw);
    let header = if !era.since(6, 0) {
        pr.print.max_bw = (mx as i32) as f64;
        format!("=== System : maxWidth {:2} maxSpeed {:2} ===", mx as i32, tot as i32)
    } else if !era.since(8, 0) {
        pr.print.max_bw = back(&f1(mx));
        format!("=== System : maxWidth {} ===", f1(mx))
    } else {
        pr.print.max_bw = back(&f1(mx));
        pr.print.total_bw = Some(back(&f1(tot)));
        let (a, b) = if era.since(14, 0) { ("maxBw", "totalBw") } else { ("maxWidth", "totalWidth") };
        format!("=== System : {a} {} {b} {} ===", f1(mx), f1(tot))
    };
    pr.lines.push(header);
    for c in v.cpus.clone() {
        pr.rec(c, None, "");
    }
    pr.lines.push("=".repeat(42));
    let mut print = pr.print;
    print.links = pr.links.values().map(|&(from, to, bw)| SysLink { from, to, kind: String::new(), bw }).collect();
    for (l, (_, _, kind)) in print.links.iter_mut().zip(pr.links.keys()) {
        l.kind = kind.clone();
    }
    let lines = pr.lines;

    // Path lines: every GPU, then every NET (and GIN, RMA from 2.30.3).
    let mut types = vec![NodeType::Gpu];
    if era.since(18, 0) {
        types.push(NodeType::Nvs);
    }
    types.push(NodeType::Cpu);
    if w.nets_printed() {
        types.push(NodeType::Net);
    }
    if era.since(30, 3) {
        types.extend([NodeType::Gin, NodeType::Rma, NodeType::Dev]);
    }
    let mut heads = vec![NodeType::Gpu];
    if w.nets_printed() {
        heads.push(NodeType::Net);
    }
    if era.since(30, 3) {
        heads.extend([NodeType::Gin, NodeType::Rma]);
    }
    let mut paths = Vec::new();
    for &ht in &heads {
        for i in 0..sys.count(ht) {
            let from = NodeRef::new(ht, i);
            let fid = sys.node(from).id;
            let head_text = format!("{} :", far_id(era, ht, fid));
            let from_id = far_id(era, ht, fid);
            let mut items = Vec::new();
            for &t in &types {
                for j in 0..sys.count(t) {
                    let to = NodeRef::new(t, j);
                    let path = sys.path(from, to);
                    let hops = if era.since(30, 3) {
                        path.count()
                    } else {
                        path.hops
                            .iter()
                            .filter(|h| {
                                let l = sys.link(**h);
                                !(l.ty == LinkType::Loc
                                    && matches!(
                                        (h.from.ty, l.rem.ty),
                                        (NodeType::Gpu, NodeType::Dev) | (NodeType::Dev, NodeType::Gpu)
                                    ))
                            })
                            .count()
                    };
                    let tid = own_id(era, t, sys.node(to).id);
                    let (bw_s, bw) = if !era.since(6, 0) {
                        let b = (path.bw as i32).to_string();
                        (b.clone(), back(&b))
                    } else if era.since(21, 0) {
                        (f1(path.bw), back(&f1(path.bw)))
                    } else {
                        (f6(path.bw), back(&f6(path.bw)))
                    };
                    // Until 2.20 a path never set stays as allocated: 0 hops, 0 bw, type 0 (LOC).
                    let unset = path.ty == PathType::Dis && path.bw == 0.0 && path.count() == 0;
                    let kind = if unset && !era.since(21, 0) {
                        path_name(era, PathType::Loc)
                    } else {
                        path_name(era, path.ty)
                    };
                    let text = format!("{tid} ({hops}/{bw_s}/{kind}) ");
                    items.push((text, PathEntry { from: from_id.clone(), to: tid, hops: hops as u32, bw, kind }));
                }
            }
            paths.push((head_text, items));
        }
    }
    SysOut { lines, print, paths }
}

// ---------------------------------------------------------------------------------------
// Graphs (graph/search.cc ncclTopoPrintGraph)

/// The graphs a rank prints, in order (init.cc: tree then ring in 2.5; ring, tree and
/// CollNet always in 2.6 to 2.17; CollNet and NVLS only when supported from 2.18; two
/// CollNet graphs from 2.22).
fn printed_graphs(w: &World) -> Vec<&Graph> {
    let gs = &w.gs;
    let era = w.era;
    if !era.since(6, 0) {
        return vec![&gs.tree, &gs.ring];
    }
    if !era.since(18, 0) {
        return vec![&gs.ring, &gs.tree, &gs.collnet_chain];
    }
    let mut v = vec![&gs.ring, &gs.tree];
    if gs.collnet_chain.computed {
        v.push(&gs.collnet_chain);
        if era.since(22, 0) {
            v.push(&gs.collnet_direct);
        }
    }
    if gs.nvls.computed {
        v.push(&gs.nvls);
    }
    v
}

/// The NET device of a NET node id.
fn net_dev(sys: &System, id: i64) -> i32 {
    sys.find(NodeType::Net, id).and_then(|n| sys.list(NodeType::Net)[n].net().map(|x| x.dev)).unwrap_or(-1)
}

fn graph_lines(w: &World, p: &Proc, g: &Graph, index: u32) -> (Vec<String>, GraphPrint) {
    let era = w.era;
    let sys = &w.an.system;
    let off = w.offset(p.host);
    let ngpus = sys.count(NodeType::Gpu);
    let (ti, te) = (path_name(era, g.type_intra), path_name(era, g.type_inter));
    let mut out = GraphPrint {
        comm: Some(0),
        rank: Some(p.rank as u32),
        host: Some(w.hosts[p.host].clone()),
        index,
        pattern: g.pattern.number() as i64,
        crossnic: g.cross_nic.number() as i64,
        nchannels: g.n_channels as u32,
        same_channels: g.same_channels as i64,
        ..GraphPrint::default()
    };
    let summary = if !era.since(6, 0) {
        let (a, b) = (g.bw_intra as i32, g.bw_inter as i32);
        let nvlink = (g.type_intra == PathType::Nvl) as i64;
        let t = path_code_2_5(g.type_intra).to_string();
        out.bw_intra = a as f64;
        out.bw_inter = b as f64;
        out.type_intra = t.clone();
        out.type_inter = t.clone();
        out.nvlink = Some(nvlink);
        format!(
            "Pattern {}, crossNic {}, nChannels {}, speed {a}/{b}, nvlink {nvlink}, type {t}, sameChannels {}",
            out.pattern, out.crossnic, out.nchannels, out.same_channels
        )
    } else {
        let word = if era.since(14, 0) { "bw" } else { "speed" };
        out.bw_intra = back(&f6(g.bw_intra));
        out.bw_inter = back(&f6(g.bw_inter));
        out.type_intra = ti.clone();
        out.type_inter = te.clone();
        format!(
            "Pattern {}, crossNic {}, nChannels {}, {word} {}/{}, type {ti}/{te}, sameChannels {}",
            out.pattern,
            out.crossnic,
            out.nchannels,
            f6(g.bw_intra),
            f6(g.bw_inter),
            out.same_channels
        )
    };
    let mut lines = vec![summary];
    let nets = if era.since(28, 9) { sys.inter } else { w.nets_printed() };
    let net_text = |i: usize, local_of: Option<usize>| -> String {
        let id = g.inter_number(i);
        if !era.since(21, 0) {
            net_dev(sys, id).to_string()
        } else if !era.since(23, 0) {
            format!("{:x}", id as u64)
        } else {
            // 2.23 prints the closing NET with the opening one's local id.
            let local = msys::id_local(g.inter_number(local_of.unwrap_or(i)));
            format!("{:x}-{:x}", msys::id_system(id), local)
        }
    };
    for c in 0..g.n_channels.max(0) as usize {
        let mut s = format!("{c:2} :");
        let mut ch = GraphChannel { channel: c as u32, ..GraphChannel::default() };
        if nets {
            let t = net_text(2 * c, None);
            let _ = write!(s, " NET/{t}");
            ch.net_in = Some(t);
        }
        for i in 0..ngpus {
            let raw = g.intra[c * ngpus + i];
            let real = g.id != GraphId::Nvls || i == 0;
            let rank = if real { raw as i64 + off } else { raw as i64 };
            if era.since(27, 5) {
                let gpu = sys.gpu_by_rank(raw).map(|x| sys.list(NodeType::Gpu)[x].id).unwrap_or(0);
                let id = format!("{:x}-{:x}", msys::id_system(gpu), msys::id_local(gpu));
                let _ = write!(s, " GPU/{id}");
                ch.gpu_ids.push(id);
                ch.gpus.push(rank);
                if g.id == GraphId::Nvls {
                    break;
                }
            } else {
                let _ = write!(s, " GPU/{rank}");
                // The zeros after an NVLS channel's head are padding, not GPUs.
                if real {
                    ch.gpus.push(rank);
                }
            }
        }
        if nets {
            let t = net_text(2 * c + 1, (era.since(23, 0) && !era.since(24, 0)).then_some(2 * c));
            let _ = write!(s, " NET/{t}");
            ch.net_out = Some(t);
        }
        lines.push(s);
        out.channels.push(ch);
    }
    (lines, out)
}

/// Rank 0's ring orders (graph/rings.cc dumpLine): 4-wide columns after a 15-character
/// prefix and at most 20 ranks until 2.22; from 2.23 the digits of nranks-1, the line
/// cut at 127 characters with `...`.
fn ring_order_lines(w: &World) -> Vec<(String, RingOrder)> {
    let run = &w.run;
    let n = run.n_channels;
    let nranks = w.nranks;
    let mut out = Vec::new();
    for c in 0..n {
        let order = run.ring_order(c, 0);
        let (line, kept, truncated) = if !w.era.since(23, 0) {
            let prefix = format!("Channel {c:02}/{n:02} : ");
            let mut line = prefix.chars().take(15).collect::<String>();
            while line.len() < prefix.len() {
                line.push(' ');
            }
            let kept: Vec<i64> = order.iter().take(20).map(|&r| r as i64).collect();
            for r in &kept {
                let _ = write!(line, " {r:3}");
            }
            (line, kept, nranks > 20)
        } else {
            let width = (nranks.saturating_sub(1)).to_string().len();
            let mut line = format!("Channel {c:02}/{n:02} :");
            let mut kept = Vec::new();
            let mut would = line.len();
            for &r in &order {
                if would >= 127 {
                    break;
                }
                let item = format!(" {r:>width$}");
                would += item.len();
                line.push_str(&item);
                kept.push((r as i64, line.len()));
            }
            if would >= 128 {
                line.truncate(124);
                line.push_str("...");
                // A number glued to `...` may be cut: only those before a space count.
                let kept: Vec<i64> = kept.iter().filter(|&&(_, end)| end < 124).map(|&(r, _)| r).collect();
                (line, kept, true)
            } else {
                let all = kept.len() == nranks;
                (line, kept.iter().map(|&(r, _)| r).collect(), !all)
            }
        };
        let ro =
            RingOrder { comm: Some(0), rank: Some(0), channel: c as u32, nchannels: n as u32, order: kept, truncated };
        out.push((line, ro));
    }
    out
}

// ---------------------------------------------------------------------------------------
// Connections (transport/p2p.cc, shm.cc, net.cc setup INFO lines)

/// The bracketed id of a rank in connection lines: the bus id until 2.18.1, the NVML
/// index after.
fn bracket(w: &World, rank: usize) -> String {
    let p = &w.procs[rank];
    if w.era.since(18, 3) { p.dev.to_string() } else { format!("{:x}", p.busid_num) }
}

/// The channel tag of a connection line: `Ring NN` until 2.6, then `Channel NN`, with
/// the connection index where the release prints one.
fn conn_tag(era: Era, c: usize, with_index: bool, conn: u32) -> String {
    if !era.since(7, 0) {
        format!("Ring {c:02}")
    } else if with_index {
        format!("Channel {c:02}/{conn}")
    } else {
        format!("Channel {c:02}")
    }
}

/// The NET device rank `rank` uses on channel `c` of graph `g` (ncclTopoGetNetDev:
/// the channel's first GPU uses the NET it comes in by, the others the one it leaves by).
fn net_of(w: &World, g: &Graph, c: usize, rank: usize) -> i32 {
    let sys = &w.an.system;
    let l = w.local;
    if g.n_channels <= 0 {
        return 0;
    }
    let ch = c % g.n_channels as usize;
    let local = (rank % l) as i32;
    let index = if g.intra[ch * l] == local { 0 } else { 1 };
    net_dev(sys, g.inter_number(2 * ch + index)).max(0)
}

/// A connection: (channel, sending rank, receiving rank).
type Edge = (usize, usize, usize);

struct ConnOut {
    recs: Vec<Rec>,
    pxn: bool,
    gdr: bool,
}

/// The connection lines rank `p` prints for the edges it sends on (P2P, SHM, NET) and
/// receives on (NET), per channel.
fn connections(w: &World, p: &Proc, edges: &[Edge], g: &Graph, conn: u32) -> ConnOut {
    let era = w.era;
    let vars = w.spec.variants;
    let mut out = ConnOut { recs: Vec::new(), pxn: false, gdr: false };
    let net_name = w.net.name();
    for &(c, a, b) in edges {
        let (pa, pb) = (&w.procs[a], &w.procs[b]);
        let same_host = pa.host == pb.host;
        let rec =
            same_host.then(|| w.an.p2p.iter().find(|r| r.from == pa.local as i32 && r.to == pb.local as i32)).flatten();
        let mnnvl = !same_host && vars.mnnvl && era.since(20, 0);
        let transport = if mnnvl { Transport::P2p } else { rec.map_or(Transport::Net, |r| r.transport) };
        let (ia, ib) = (bracket(w, a), bracket(w, b));
        let id_kind = Some(if era.since(18, 3) { "nvml_dev" } else { "bus_id" }.to_string());
        let base = Connection {
            comm: Some(0),
            channel: c as u32,
            from: a as i64,
            to: b as i64,
            from_id: ia.clone(),
            to_id: ib.clone(),
            id_kind,
            ..Connection::default()
        };
        let ce = vars.copy_engine && era.since(13, 0);
        match transport {
            // P2P: printed by the sender (p2p.cc p2pSendSetup).
            Transport::P2p if a == p.rank => {
                let read = era.since(7, 0) && (vars.read || rec.is_some_and(|r| r.read == Some(true)));
                let read_s = if read { "/read" } else { "" };
                let inter = rec.and_then(|r| r.intermediate).filter(|&i| i >= 0);
                let same_process = vars.single_process && same_host;
                let ce_s = if ce { "/CE" } else { "" };
                let (via, mode, ce) = match inter {
                    Some(i) => {
                        let ir = i as usize + pa.host * w.local;
                        (format!("P2P/indirect/{ir}[{}]{read_s}", bracket(w, ir)), "indirect", false)
                    }
                    None if same_process && !ce => (format!("P2P/direct pointer{read_s}"), "direct pointer", false),
                    None if mnnvl => (format!("P2P/MNNVL{read_s}{ce_s}"), "MNNVL", ce),
                    None if era.since(19, 0) => (format!("P2P/CUMEM{read_s}{ce_s}"), "CUMEM", ce),
                    None => (format!("P2P/IPC{read_s}{ce_s}"), "IPC", ce),
                };
                let tag = conn_tag(era, c, era.since(14, 0), conn);
                let f = Connection {
                    conn: era.since(14, 0).then_some(conn),
                    transport: "P2P".into(),
                    mode: mode.into(),
                    read,
                    ce,
                    ..base
                };
                let msg = format!("{tag} : {a}[{ia}] -> {b}[{ib}] via {via}");
                out.recs.push(Rec::info(p, msg, Fact::Conn(f)).on(p.ctid).victim());
            }
            // SHM: printed by the sender (shm.cc shmSendSetup).
            Transport::Shm if a == p.rank => {
                let (via, mode) = if !era.since(13, 0) {
                    ("direct shared memory".to_string(), "direct shared memory".to_string())
                } else if !era.since(30, 7) {
                    let side = if ce { "CE" } else { "direct" };
                    (format!("SHM/{side}/{side}"), format!("{side}/{side}"))
                } else {
                    ("SHM/direct".into(), "direct".into())
                };
                let tag = conn_tag(era, c, false, conn);
                let f = Connection { transport: "SHM".into(), mode, ce: ce && !era.since(30, 7), ..base };
                let msg = format!("{tag} : {a}[{ia}] -> {b}[{ib}] via {via}");
                out.recs.push(Rec::info(p, msg, Fact::Conn(f)).on(p.ctid).victim());
            }
            // NET: printed by both sides (net.cc sendSetup, recvSetup).
            Transport::Net => {
                let send = a == p.rank;
                let me = if send { a } else { b };
                let dev = net_of(w, g, c, me);
                let me_p = &w.procs[me];
                let gdr_rec = w.an.gdr.iter().find(|r| r.rank == me_p.local as i32 && r.net == dev);
                let mode = gdr_rec.map_or(GdrMode::Disabled, |r| if send { r.send } else { r.recv });
                let gdr = mode != GdrMode::Disabled;
                let pci = gdr && (mode == GdrMode::Pci || vars.gdr_pci) && era.since(26, 0);
                let mut proxy = gdr_rec.map_or(me as i64, |r| r.proxy_rank as i64 + w.offset(me_p.host));
                if vars.pxn {
                    // The GPU next to the NIC forwards (PXN), when it is another one.
                    let sys = &w.an.system;
                    let local = sys.net_by_dev(dev).and_then(|n| sys.list(NodeType::Net)[n].net()).map(|x| x.local_gpu);
                    if let Some(l) = local.filter(|&l| l >= 0) {
                        proxy = l as i64 + w.offset(me_p.host);
                    }
                }
                let show_proxy = send && era.since(12, 0) && proxy != me as i64;
                let shared = conn > 0 && era.since(8, 0);
                out.pxn |= show_proxy;
                out.gdr |= gdr;
                let tag = conn_tag(era, c, era.since(12, 0), conn);
                let side = if send { "send" } else { "receive" };
                let mut via = format!("NET/{net_name}/{dev}");
                if show_proxy {
                    let _ = write!(via, "({proxy})");
                }
                if gdr {
                    via.push_str("/GDRDMA");
                }
                if pci {
                    via.push_str("(PCI)");
                }
                if shared {
                    via.push_str("/Shared");
                }
                let f = Connection {
                    conn: era.since(12, 0).then_some(conn),
                    side: Some(side.into()),
                    transport: "NET".into(),
                    mode: net_name.into(),
                    net_dev: Some(dev as u32),
                    proxy_rank: show_proxy.then_some(proxy),
                    gdr,
                    gdr_pci: pci,
                    shared,
                    ..base
                };
                let msg = format!("{tag} : {a}[{ia}] -> {b}[{ib}] [{side}] via {via}");
                out.recs.push(Rec::info(p, msg, Fact::Conn(f)).on(p.ctid).victim());
            }
            _ => {}
        }
    }
    out
}

/// The CollNet connections of the channels rank `p` heads on its node
/// (transport/coll_net.cc sendSetup, recvSetup): `Coll NN` 2.6 to 2.8, `CollNet NN`
/// 2.9 to 2.13, `CollNet NN/c` after.
fn collnet_records(w: &World, p: &Proc) -> Vec<Rec> {
    let era = w.era;
    let g = &w.gs.collnet_chain;
    let mut v = Vec::new();
    if !w.spec.collnet || !era.since(6, 0) || !g.computed || w.spec.nodes < 2 {
        return v;
    }
    for c in 0..g.n_channels.max(0) as usize {
        if g.intra[c * w.local] != p.local as i32 {
            continue;
        }
        let dev = net_of(w, g, c, p.rank);
        let gdr_rec = w.an.gdr.iter().find(|r| r.rank == p.local as i32 && r.net == dev);
        for side in ["send", "receive"] {
            let mode = gdr_rec.map_or(GdrMode::Disabled, |r| if side == "send" { r.send } else { r.recv });
            let gdr = mode != GdrMode::Disabled;
            let pci = gdr && (mode == GdrMode::Pci || w.spec.variants.gdr_pci) && era.since(26, 0);
            let tag = if !era.since(9, 0) {
                format!("Coll {c:02}")
            } else if !era.since(14, 0) {
                format!("CollNet {c:02}")
            } else {
                format!("CollNet {c:02}/0")
            };
            let mut via = format!("COLLNET/SHARP/{dev}");
            if gdr {
                via.push_str("/GDRDMA");
            }
            if pci {
                via.push_str("(PCI)");
            }
            let f = Connection {
                comm: Some(0),
                channel: c as u32,
                conn: era.since(14, 0).then_some(0),
                from: p.rank as i64,
                to: -1,
                side: Some(side.into()),
                transport: "COLLNET".into(),
                mode: "SHARP".into(),
                net_dev: Some(dev as u32),
                gdr,
                gdr_pci: pci,
                ..Connection::default()
            };
            v.push(Rec::info(p, format!("{tag} : {} [{side}] via {via}", p.rank), Fact::Conn(f)).on(p.ctid).victim());
        }
    }
    v
}

/// The edges of the ring phase and of the tree phase for rank `p`: (channel, from, to)
/// for every connection it sets up (sends, and receives), a peer connected by the
/// ring not again by the tree (ncclTransportP2pSetup skips connected peers).
fn edges(w: &World, p: &Proc) -> (Vec<Edge>, Vec<Edge>) {
    let run = &w.run;
    let r = p.rank;
    let mut ring = Vec::new();
    let mut tree = Vec::new();
    for c in 0..run.n_channels {
        let next = run.ring_next(c, r) as usize;
        let prev = run.ring_prev(c, r) as usize;
        ring.push((c, r, next));
        ring.push((c, prev, r));
    }
    for c in 0..run.n_channels {
        let next = run.ring_next(c, r);
        let prev = run.ring_prev(c, r);
        let up = run.tree_up(c, r);
        let mut peers: Vec<i32> = run.tree_down(c, r).into_iter().filter(|&d| d >= 0).collect();
        if up >= 0 {
            peers.push(up);
        }
        let mut sent = BTreeSet::new();
        let mut got = BTreeSet::new();
        for q in peers {
            if q != next && sent.insert(q) {
                tree.push((c, r, q as usize));
            }
            if q != prev && got.insert(q) {
                tree.push((c, q as usize, r));
            }
        }
    }
    (ring, tree)
}

// ---------------------------------------------------------------------------------------
// One rank's records

fn next_pow2(v: usize) -> usize {
    let mut p = 1;
    while p < v {
        p <<= 1;
    }
    p
}

/// `comm->p2pnChannels` and `p2pnChannelsPerPeer` (graph/paths.cc
/// ncclTopoComputeP2pChannels, without user limits; NICs by bandwidth not counted).
fn p2p_channels(w: &World) -> (usize, usize) {
    let sys = &w.an.system;
    let p2p = next_pow2(w.run.n_channels.min(w.era.model().max_channels()));
    let mut min = p2p;
    for g in 0..sys.count(NodeType::Gpu) {
        let cc = sys.list(NodeType::Gpu)[g].cc();
        for q in 0..sys.count(NodeType::Gpu) {
            if q == g {
                continue;
            }
            let path = sys.path(NodeRef::new(NodeType::Gpu, q), NodeRef::new(NodeType::Gpu, g));
            let n = if path.ty == PathType::Nvl {
                let nvl = model::bw::nvlink(w.era.model().nvlink_table(), cc);
                2 * ((path.bw / nvl) as usize).max(1)
            } else {
                2
            };
            min = min.min(n);
        }
        if w.spec.nodes > 1 {
            let mut n = 2;
            while n * w.nranks > p2p * 4 && n > 1 {
                n /= 2;
            }
            min = min.min(n);
        }
    }
    (p2p, next_pow2(min))
}

/// The CPUs of a mask written as topology XMLs hold it (`ffffff00,0000ffff`, 32-bit
/// groups, most significant first).
fn mask_bits(mask: &str) -> Vec<usize> {
    let groups: Vec<u32> = mask.split(',').map(|g| u32::from_str_radix(g, 16).unwrap_or(0)).collect();
    let mut bits = Vec::new();
    for (i, g) in groups.iter().rev().enumerate() {
        for b in 0..32 {
            if g >> b & 1 == 1 {
                bits.push(i * 32 + b);
            }
        }
    }
    bits
}

/// CPUs as ranges `8-31,40` (misc/cpuset.h ncclCpusetToRangeStr); empty for none.
fn cpu_ranges(bits: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bits.len() {
        let mut j = i;
        while j + 1 < bits.len() && bits[j + 1] == bits[j] + 1 {
            j += 1;
        }
        out.push(if i == j { bits[i].to_string() } else { format!("{}-{}", bits[i], bits[j]) });
        i = j + 1;
    }
    out.join(",")
}

/// CPUs as NCCL's hex mask (cpuset.h ncclCpusetToStr): bytes from the most significant
/// set one, a comma every 4 bytes.
fn cpu_hex(bits: &[usize]) -> String {
    let Some(&top) = bits.iter().max() else { return String::new() };
    let nbytes = top / 8 + 1;
    let mut bytes = vec![0u8; nbytes.div_ceil(4) * 4];
    for &b in bits {
        bytes[b / 8] |= 1 << (b % 8);
    }
    let mut s = String::new();
    for o in (0..nbytes).rev() {
        let _ = write!(s, "{:02x}", bytes[o]);
        if o > 0 && o % 4 == 0 {
            s.push(',');
        }
    }
    s
}

fn detail(w: &World, p: &Proc, kind: &str, value: &str) -> Fact {
    Fact::Detail(Detail {
        host: Some(w.hosts[p.host].clone()),
        rank: Some(p.rank as u32),
        kind: kind.into(),
        value: value.into(),
    })
}

/// The affinity line (init.cc; graph/topo.cc ncclTopoGetCpuAffinity from 2.28).
fn affinity_line(w: &World, p: &Proc) -> Option<(String, Affinity)> {
    let sys = &w.an.system;
    let g = sys.gpu_by_rank(p.local as i32)?;
    let dev = sys.list(NodeType::Gpu)[g].gpu_parent().map(|d| NodeRef::new(NodeType::Dev, d))?;
    let cpu = sys.local_cpu_of(dev, None)?;
    let Kind::Cpu { affinity: Some(mask), .. } = &sys.node(cpu).kind else { return None };
    // The process may run anywhere: its mask is every CPU of the host.
    let mut all: Vec<usize> = sys
        .list(NodeType::Cpu)
        .iter()
        .filter_map(|c| match &c.kind {
            Kind::Cpu { affinity: Some(m), .. } => Some(mask_bits(m)),
            _ => None,
        })
        .flatten()
        .collect();
    all.sort_unstable();
    all.dedup();
    let bits = mask_bits(mask);
    let era = w.era;
    let mut a = Affinity {
        comm: Some(0),
        rank: Some(p.rank as u32),
        host: Some(w.hosts[p.host].clone()),
        gpu: p.dev,
        mask: String::new(),
        cpu_mask: None,
    };
    if era.since(28, 0) {
        let fin = if bits.is_empty() { "empty, ignoring".to_string() } else { cpu_ranges(&bits) };
        let (gpu_s, cpu_s) = (cpu_ranges(&bits), cpu_ranges(&all));
        a.mask = fin.clone();
        a.cpu_mask = Some(cpu_s.clone());
        let msg = format!(
            "ncclTopoGetCpuAffinity: Affinity for GPU {} is {fin}. (GPU affinity = {gpu_s} ; CPU affinity = {cpu_s}).",
            p.dev
        );
        return Some((msg, a));
    }
    // Until 2.27 the line is printed only for a non-empty set; as ranges from 2.27.
    if bits.is_empty() {
        return None;
    }
    a.mask = if era.since(27, 0) { cpu_ranges(&bits) } else { cpu_hex(&bits) };
    Some((format!("Setting affinity for GPU {} to {}", p.dev, a.mask), a))
}

fn env_line(era: Era, name: &str, value: &str) -> Option<(String, String)> {
    if matches!(name, "NCCL_P2P_LEVEL" | "NCCL_NET_GDR_LEVEL") {
        if !era.since(6, 0) {
            return None;
        }
        let t = match value.parse::<usize>() {
            Ok(i) => PathType::ALL.get(i).map(|t| t.name()).unwrap_or("SYS").to_string(),
            Err(_) => value.to_string(),
        };
        return Some((format!("{name} set by environment to {t}"), t));
    }
    if let Ok(v) = value.parse::<i64>() {
        return Some((format!("{name} set by environment to {v}."), v.to_string()));
    }
    if !era.since(7, 0) {
        return None;
    }
    Some((format!("{name} set by environment to {value}"), value.to_string()))
}

/// The NET/IB or NET/Socket `Using` line of a host (transport/net_ib.cc ncclIbInit,
/// net_socket.cc ncclNetSocketInit).
fn net_using(w: &World, p: &Proc) -> (String, NetUse) {
    let era = w.era;
    let host = &w.hosts[p.host];
    // The host's address: the same for every process of the host.
    let addr = format!("10.{}.0.1<0>", p.host);
    match w.net {
        NetKind::Socket => {
            let dev = NetDevice { index: 0, name: "eth0".into(), port: None, link: Some(addr.clone()) };
            let nu = NetUse { host: Some(host.clone()), kind: "Socket".into(), devices: vec![dev], oob: None };
            (format!("NET/Socket : Using [0]eth0:{addr}"), nu)
        }
        NetKind::Ib => {
            let nets = &w.an.nets;
            let mut s = String::new();
            let mut devices = Vec::new();
            let phys = &w.phys_nets;
            let index = |name: &str| phys.iter().position(|(n, _)| n == name).unwrap_or(0);
            let port = |name: &str| phys.iter().find(|(n, _)| n == name).map_or(1, |(_, p)| *p);
            if era.since(20, 0) && !era.since(24, 0) {
                // 2.20 to 2.23: the IB plugin's own devices, ports of one NIC merged
                // (`[d]={[i] a:1/IB, [j] b:2/IB}`).
                for (d, n) in nets.iter().filter(|n| !n.is_virtual).enumerate() {
                    let parts: Vec<&str> = n.name.split('+').collect();
                    if parts.len() > 1 {
                        let inner: Vec<String> =
                            parts.iter().map(|x| format!("[{}] {x}:{}/IB", index(x), port(x))).collect();
                        let _ = write!(s, " [{d}]={{{}}}", inner.join(", "));
                    } else {
                        let _ = write!(s, " [{d}]{}:{}/IB", n.name, port(&n.name));
                    }
                    devices.push(NetDevice {
                        index: d as u32,
                        name: n.name.clone(),
                        port: Some(port(parts[0]) as u32),
                        link: Some("IB".into()),
                    });
                }
            } else {
                for (d, (name, p)) in phys.iter().enumerate() {
                    let _ = write!(s, " [{d}]{name}:{p}");
                    if era.since(30, 3)
                        && let Some(n) = nets.iter().find(|n| n.name == *name)
                    {
                        if n.rail >= 0 {
                            let _ = write!(s, ":{}", n.rail);
                        } else if n.plane >= 0 {
                            s.push(':');
                        }
                        if n.plane >= 0 {
                            let _ = write!(s, ":{}", n.plane);
                        }
                    }
                    s.push_str("/IB");
                    devices.push(NetDevice {
                        index: d as u32,
                        name: name.clone(),
                        port: Some(*p as u32),
                        link: Some("IB".into()),
                    });
                }
            }
            let oob = format!("ib0:{addr}");
            let ro = if era.since(24, 0) { "[RO]" } else { "" };
            let msg = if era.since(12, 0) {
                format!("NET/IB : Using{s} {ro}; OOB {oob}")
            } else {
                format!("NET/IB : Using{s} ; OOB {oob}")
            };
            let nu = NetUse { host: Some(host.clone()), kind: "IB".into(), devices, oob: Some(oob) };
            (msg, nu)
        }
    }
}

/// Everything rank `p` prints, in order.
fn rank_records(w: &World, comms: &[CommDef], p: &Proc) -> Vec<Rec> {
    let era = w.era;
    let mut v: Vec<Rec> = Vec::new();
    let r = p.rank as u32;

    // One process may drive several GPUs: some lines are printed once per process.
    let first_in_process = !w.spec.variants.single_process || p.local == 0;
    // Version (init.cc showVersion): printf by rank 0 until 2.21, INFO by every process after.
    if !era.since(22, 0) {
        if p.rank == 0 {
            let mut rec = Rec::info(p, version_text(era), Fact::Version);
            rec.level = Level::Bare;
            v.push(rec);
        }
    } else if first_in_process {
        v.push(Rec::info(p, version_text(era), Fact::Version));
        if era.since(29, 2) {
            v.push(Rec::info(p, format!("NCCL git version master {:07x}", 0x3b8f1a2 + era.minor), Fact::None));
        }
    }
    if first_in_process {
        v.extend(process_records(w, p));
    }
    if era.since(13, 0) {
        v.push(Rec::info(p, "cudaDriverVersion 12040".into(), detail(w, p, "cuda_driver", "12040")).victim());
    }
    if era.since(6, 0) {
        v.push(Rec::info(p, format!("Using network {}", w.net.name()), Fact::UsingNetwork(w.net.name().into())));
    }
    if let Some(m) = comm_line(w, p, comms, 0, true) {
        v.push(Rec::info(p, m, Fact::Rank { comm: 0, rank: r, complete: false }));
    }
    if let Some((m, a)) = affinity_line(w, p) {
        v.push(Rec::info(p, m, Fact::Affinity(a)).victim());
    }
    rank_init_records(w, comms, p, v)
}

/// What a process prints once: bootstrap, environment and network lines.
fn process_records(w: &World, p: &Proc) -> Vec<Rec> {
    let era = w.era;
    let host = &w.hosts[p.host];
    let mut v = Vec::new();
    let boot = format!("eth0:10.{}.0.1<0>", p.host);
    // bootstrap.cc: `Bootstrap : Using` until 2.23, `Bootstrap: Using` from 2.24.
    let word = if era.since(24, 0) { "Bootstrap:" } else { "Bootstrap :" };
    v.push(Rec::info(p, format!("{word} Using {boot}"), detail(w, p, "bootstrap", &boot)).victim());
    let mut env = w.spec.env.clone();
    if w.spec.variants.copy_engine {
        env.push(("NCCL_P2P_USE_CUDA_MEMCPY".into(), "1".into()));
        env.push(("NCCL_SHM_USE_CUDA_MEMCPY".into(), "1".into()));
    }
    for (name, value) in &env {
        if let Some((msg, val)) = env_line(era, name, value) {
            let f =
                EnvSetting { name: name.clone(), value: val, source: "environment".into(), host: Some(host.clone()) };
            v.push(Rec::info(p, msg, Fact::Env(f)).victim());
        }
    }
    let (msg, nu) = net_using(w, p);
    v.push(Rec::info(p, msg, Fact::NetUsing(nu)));
    v
}

/// The rest of a rank's init, from the system print to `Init COMPLETE`.
fn rank_init_records(w: &World, comms: &[CommDef], p: &Proc, mut v: Vec<Rec>) -> Vec<Rec> {
    let era = w.era;
    let run = &w.run;
    let host = &w.hosts[p.host];
    let prefix = info_prefix(host, p, p.tid);
    let r = p.rank as u32;

    // System print and paths (INFO GRAPH).
    if w.spec.graph {
        let so = system_print(w, p);
        let mut sp = so.print;
        let mut optional = Vec::new();
        let mut path_recs = Vec::new();
        for (head, items) in &so.paths {
            let texts: Vec<String> = items.iter().map(|(t, _)| t.clone()).collect();
            let mut room = logger_room(era, &prefix);
            if era.since(21, 0) {
                room = Some(room.map_or(1023, |r| r.min(1023)));
            }
            let cut = cut_items(head, &texts, room);
            sp.paths.extend(items[..cut.keep].iter().map(|(_, e)| e.clone()));
            if let Some(i) = cut.edge {
                let e = &items[i].1;
                optional.push((host.clone(), e.from.clone(), e.to.clone()));
            }
            path_recs.push((cut.text, cut.full));
        }
        let mut first = true;
        for line in so.lines {
            let fact = if first { Fact::System(Box::new(sp.clone())) } else { Fact::None };
            first = false;
            v.push(Rec::info(p, line, fact).block());
        }
        for (i, (msg, full)) in path_recs.into_iter().enumerate() {
            let mut rec = Rec::info(p, msg, Fact::None).block();
            rec.cut = full;
            if i == 0 {
                rec.opt_paths = optional.clone();
            }
            v.push(rec);
        }
        for (i, g) in printed_graphs(w).into_iter().enumerate() {
            let (lines, gp) = graph_lines(w, p, g, i as u32);
            let mut first = true;
            for line in lines {
                let fact = if first { Fact::Graph(Box::new(gp.clone())) } else { Fact::None };
                first = false;
                v.push(Rec::info(p, line, fact).block());
            }
        }
    }

    // Nodes (init.cc, 2.20+).
    let local_ranks = w.local as u32;
    if era.since(20, 0) {
        let msg = format!(
            "comm {} rank {} nRanks {} nNodes {} localRanks {} localRank {} MNNVL {}",
            comm_ptr(p, 0),
            p.rank,
            w.nranks,
            w.spec.nodes,
            local_ranks,
            p.local,
            w.spec.variants.mnnvl as i32
        );
        let f = Fact::Nodes { comm: 0, rank: r, nnodes: w.spec.nodes as u32, local_ranks, local_rank: p.local as u32 };
        v.push(Rec::info(p, msg, f));
    }

    // Ring orders, rank 0 only (graph/rings.cc).
    if p.rank == 0 {
        for (line, ro) in ring_order_lines(w) {
            v.push(Rec::info(p, line, Fact::Ring(ro)));
        }
    }

    // NVLS heads (graph/connect.cc, 2.18+, node 0 of a multi-node job).
    let nvls = &w.gs.nvls;
    if era.since(18, 0) && w.spec.nodes > 1 && nvls.computed && nvls.n_channels > 0 {
        if p.host == 0 {
            for h in 0..nvls.n_channels as usize {
                let head = nvls.intra[h * w.local] as i64;
                let heads: Vec<i64> = (0..w.spec.nodes.min(20)).map(|n| head + w.offset(n)).collect();
                let mut line = format!("NVLS Head {h:2}:");
                for x in &heads {
                    let _ = write!(line, " {x:2}");
                }
                let f = NvlsHead { comm: Some(0), rank: Some(r), channel: h as u32, heads };
                v.push(Rec::info(p, line, Fact::Nvls(f)));
            }
        }
        if w.spec.graph {
            let (line, links) = nvls_trees(w, p);
            v.push(Rec::info(p, line, Fact::Trees(links)).victim());
        }
    }

    // Tree N (graph/connect.cc, 2.8+, GRAPH), then Ring NN (2.10+, GRAPH) and Trees.
    if w.spec.graph && era.since(8, 0) {
        for line in run.tree_lines(p.rank) {
            let t = parse_tree_line(&line, r);
            v.push(Rec::info(p, line, Fact::Tree(t)).victim());
        }
    }
    if w.spec.graph && era.since(10, 0) {
        for c in 0..run.n_channels {
            let (prev, next) = (run.ring_prev(c, p.rank), run.ring_next(c, p.rank));
            let f = RingLink { comm: Some(0), rank: r, channel: c as u32, prev: prev as i64, next: next as i64 };
            v.push(Rec::info(p, format!("Ring {c:02} : {prev} -> {} -> {next}", p.rank), Fact::RingLink(f)).victim());
        }
    }
    v.push(trees_record(w, p, &prefix));

    // Tuning table (rank 0, INFO TUNING) and thread thresholds (graph/tuning.cc).
    if let Some(m) = &w.tune {
        let algo_set = w.spec.env.iter().any(|(k, _)| k == "NCCL_ALGO" || k == "NCCL_PROTO");
        if era.since(24, 0) && algo_set && p.rank == 0 {
            v.push(matrix_record(p, m));
        }
        if w.spec.tuning && p.rank == 0 {
            v.extend(tuning_records(w, p, m));
        }
        let (msg, th) = thresholds(w, p, m);
        v.push(Rec::info(p, msg, Fact::Thresholds(th)));
    }
    let counts = channel_counts(w, p);
    if era.since(7, 0) && !era.since(17, 0) {
        v.push(counts.clone());
    }

    // Connections.
    let (ring_e, tree_e) = edges(w, p);
    let ring_c = connections(w, p, &ring_e, &w.gs.ring, 0);
    v.extend(ring_c.recs);
    let mark = |what: &str, pxn: Option<i64>, gdr: Option<i64>| {
        Fact::Connected(ConnectedMark {
            comm: Some(0),
            rank: Some(r),
            host: Some(host.clone()),
            what: what.into(),
            ring_pxn: pxn,
            ring_gdr: gdr,
        })
    };
    if era.since(24, 0) {
        let (pxn, gdr) = (ring_c.pxn as i64, ring_c.gdr as i64);
        let msg = format!("Connected all rings, use ring PXN {pxn} GDR {gdr}");
        v.push(Rec::info(p, msg, mark("rings", Some(pxn), Some(gdr))));
    } else if era.since(8, 0) {
        v.push(Rec::info(p, "Connected all rings".into(), mark("rings", None, None)));
    }
    let tree_c = connections(w, p, &tree_e, &w.gs.tree, 0);
    v.extend(tree_c.recs);
    if era.since(8, 0) {
        v.push(Rec::info(p, "Connected all trees".into(), mark("trees", None, None)));
    }
    v.extend(collnet_records(w, p));
    if era.since(17, 0) {
        v.push(counts);
    }
    if era.since(16, 0) {
        v.push(Rec::info(p, "P2P Chunksize set to 524288".into(), detail(w, p, "p2p_chunksize", "524288")).victim());
    }
    let m = comm_line(w, p, comms, 0, false).unwrap();
    v.push(Rec::info(p, m, Fact::Rank { comm: 0, rank: r, complete: true }));

    // Point-to-point operations after init (connection index 1, shared NET buffers).
    if w.spec.variants.p2p_ops && era.since(8, 0) && w.nranks > 1 {
        let n = w.nranks;
        let mut e = Vec::new();
        for peer in [w.local % n, 1] {
            if peer == 0 {
                continue;
            }
            for c in 0..2usize.min(w.run.n_channels) {
                e.push((c, p.rank, (p.rank + peer) % n));
                e.push((c, (p.rank + n - peer) % n, p.rank));
            }
        }
        v.extend(connections(w, p, &e, &w.gs.ring, 1).recs);
    }

    // Split communicators: their init lines only.
    for c in 1..comms.len() {
        let Some(rank) = comms[c].members.iter().position(|&m| m == p.rank) else { continue };
        if let Some(m) = comm_line(w, p, comms, c, true) {
            v.push(Rec::info(p, m, Fact::Rank { comm: c, rank: rank as u32, complete: false }));
        }
        if era.since(20, 0) {
            let mine: Vec<usize> = comms[c].members.iter().copied().filter(|&m| w.procs[m].host == p.host).collect();
            let hosts: BTreeSet<usize> = comms[c].members.iter().map(|&m| w.procs[m].host).collect();
            let lr = mine.iter().position(|&m| m == p.rank).unwrap();
            let msg = format!(
                "comm {} rank {rank} nRanks {} nNodes {} localRanks {} localRank {lr} MNNVL 0",
                comm_ptr(p, c),
                comms[c].members.len(),
                hosts.len(),
                mine.len()
            );
            let f = Fact::Nodes {
                comm: c,
                rank: rank as u32,
                nnodes: hosts.len() as u32,
                local_ranks: mine.len() as u32,
                local_rank: lr as u32,
            };
            v.push(Rec::info(p, msg, f));
        }
        let m = comm_line(w, p, comms, c, false).unwrap();
        v.push(Rec::info(p, m, Fact::Rank { comm: c, rank: rank as u32, complete: true }));
    }

    if w.spec.warn && p.local == 0 {
        let mut rec = Rec::info(p, "NET/IB : Got async event : port active".into(), Fact::None);
        rec.level = Level::Warn;
        rec.origin = "transport/net_ib.cc:97";
        v.push(rec);
    }
    v
}

/// `Tree b : up -> rank -> d0/d1/d2`, as topo prints it.
fn parse_tree_line(line: &str, rank: u32) -> TreeLink {
    let rest = line.strip_prefix("Tree ").unwrap();
    let (b, rest) = rest.split_once(" : ").unwrap();
    let parts: Vec<&str> = rest.split(" -> ").collect();
    let d: Vec<i64> = parts[2].split('/').map(|x| x.parse().unwrap()).collect();
    TreeLink {
        comm: Some(0),
        rank,
        channel: b.parse().unwrap(),
        up: parts[0].parse().unwrap(),
        down: [d[0], d[1], d[2]],
        dn_up: None,
        dn_down: None,
        source: TreeSource::Tree,
    }
}

/// The `Trees` line (init.cc): `[c] d0/d1/d2->me->up` from 2.8, two trees per channel
/// before (`up tree|down tree`); items in a 1023-byte buffer, the record in the logger's.
fn trees_record(w: &World, p: &Proc, prefix: &str) -> Rec {
    let run = &w.run;
    let era = w.era;
    let r = p.rank;
    let n = run.n_channels;
    let mut items = Vec::new();
    let mut links = Vec::new();
    for c in 0..n {
        let d = run.tree_down(c, r);
        let up = run.tree_up(c, r);
        let mut t = TreeLink {
            comm: Some(0),
            rank: r as u32,
            channel: c as u32,
            up: up as i64,
            down: [d[0] as i64, d[1] as i64, d[2] as i64],
            dn_up: None,
            dn_down: None,
            source: TreeSource::Trees,
        };
        if era.since(8, 0) {
            items.push(format!(" [{c}] {}/{}/{}->{r}->{up}", d[0], d[1], d[2]));
        } else {
            let c2 = (c + run.search_channels) % n;
            let (du, dd) = (run.tree_up(c2, r), run.tree_down(c2, r));
            items
                .push(format!(" [{c}] {}/{}/{}->{r}->{up}|{du}->{r}->{}/{}/{}", d[0], d[1], d[2], dd[0], dd[1], dd[2]));
            t.dn_up = Some(du as i64);
            t.dn_down = Some([dd[0] as i64, dd[1] as i64, dd[2] as i64]);
        }
        links.push(t);
    }
    // The items' own buffer keeps 1022 characters; the logger then keeps 1023 bytes.
    let room = logger_room(era, prefix).map_or(5 + 1022, |r| r.min(5 + 1022));
    let cut = cut_items("Trees", &items, Some(room));
    let kept: Vec<TreeLink> = links[..cut.keep].to_vec();
    let msg = cut.text;
    let mut rec = Rec::info(p, msg, Fact::Trees(kept));
    rec.cut = cut.full;
    rec.opt_trees = cut.edge.iter().map(|&i| (r as u32, links[i].channel)).collect();
    rec.cut_trees = cut.straddle.iter().map(|&i| (r as u32, links[i].channel)).collect();
    rec
}

/// `NVLS Trees : ...` (graph/connect.cc connectNvls, GRAPH): channels 0 and 1, each
/// `down0/down1[/down2]->me->up` with the children packed after the NVLS down link.
fn nvls_trees(w: &World, p: &Proc) -> (String, Vec<TreeLink>) {
    let nvls = &w.gs.nvls;
    let nn = w.spec.nodes as i32;
    let node = p.host as i32;
    let (t0, t1) = channels::dtree(nn, node);
    let heads: Vec<i32> = (0..nvls.n_channels as usize).map(|h| nvls.intra[h * w.local]).collect();
    let head_rank = heads.iter().position(|&h| h == p.local as i32);
    let down = w.nranks as i64 + 1 + head_rank.map_or(-1, |h| h as i64);
    let at = |n: i32| match head_rank {
        Some(h) if n >= 0 => heads[h] as i64 + n as i64 * w.local as i64,
        _ => -1,
    };
    let mut parts = Vec::new();
    let mut links = Vec::new();
    for (c, t) in [t0, t1].iter().enumerate() {
        let up = at(t.up);
        let mut d = [down, -1, -1];
        let mut ix = 1;
        for x in [at(t.down0), at(t.down1)] {
            if x != -1 {
                d[ix] = x;
                ix += 1;
            }
        }
        if !w.era.since(21, 0) {
            d[2] = -1;
        }
        parts.push(if w.era.since(21, 0) {
            format!("{}/{}/{}->{}->{up}", d[0], d[1], d[2], p.rank)
        } else {
            format!("{}/{}->{}->{up}", d[0], d[1], p.rank)
        });
        links.push(TreeLink {
            comm: Some(0),
            rank: p.rank as u32,
            channel: c as u32,
            up,
            down: d,
            dn_up: None,
            dn_down: None,
            source: TreeSource::Nvls,
        });
    }
    (format!("NVLS Trees : {} {}", parts[0], parts[1]), links)
}

/// The algorithms of the era's tuning table, with the model's algorithm whose numbers
/// stand for each (CollNet before 2.14 is CollNet Direct).
fn tuning_algos(w: &World, m: &topo::tune::Model) -> Vec<(&'static str, Algo)> {
    let era = w.era;
    if !era.since(6, 0) {
        vec![("Tree", Algo::Tree), ("Ring", Algo::Ring)]
    } else if !era.since(14, 0) {
        vec![("Tree", Algo::Tree), ("Ring", Algo::Ring), ("CollNet", Algo::CollNetDirect)]
    } else if !era.since(18, 0) {
        [Algo::Tree, Algo::Ring, Algo::CollNetDirect, Algo::CollNetChain].iter().map(|&a| (a.name(), a)).collect()
    } else {
        m.algos().iter().map(|&a| (a.name(), a)).collect()
    }
}

/// Rank 0's tuning table (graph/tuning.cc ncclTopoTuneModel, INFO TUNING): one
/// `Latency/AlgBw` block until 2.17 (with `Max NThreads` from 2.6), blocks of three
/// algorithms with `Algorithm`/`Protocol` headers from 2.18 (two blocks of
/// NUM_ALGORITHMS/2 until 2.22).
fn tuning_records(w: &World, p: &Proc, m: &topo::tune::Model) -> Vec<Rec> {
    let era = w.era;
    let t = &m.table;
    let algos = tuning_algos(w, m);
    let mut lines = Vec::new();
    let mut table = TuningTable { rank: Some(p.rank as u32), ..TuningTable::default() };
    let cell = |f: Func, a: Algo, pr: Proto| (t.latency[(f, a, pr)], t.bandwidth[(f, a, pr)]);
    if !era.since(18, 0) {
        let mut h = String::from("Latency/AlgBw |");
        for (name, _) in &algos {
            for pr in Proto::ALL {
                if era.since(6, 0) {
                    let _ = write!(h, " {name:>7}/{:>6} |", pr.name());
                } else {
                    let _ = write!(h, " {name:>4}/{:>6} |", pr.name());
                }
            }
        }
        lines.push(h);
        if era.since(6, 0) {
            let mut s = String::from(" Max NThreads |");
            for (name, a) in &algos {
                for pr in Proto::ALL {
                    let n = t.max_threads[(*a, pr)];
                    let _ = write!(s, " {n:>14} |");
                    table.max_threads.push((name.to_string(), pr.name().into(), n as i64));
                }
            }
            lines.push(s);
        }
        for f in Func::ALL {
            let mut s = format!("{:>13} |", f.name());
            for (name, a) in &algos {
                for pr in Proto::ALL {
                    let (lat, bw) = cell(f, *a, pr);
                    let (ls, bs) = if era.since(6, 0) {
                        let (ls, bs) = (format!("{:8.1}", lat as f64), format!("{:6.1}", bw as f64));
                        let _ = write!(s, "{ls}/{bs} |");
                        (ls, bs)
                    } else {
                        let (ls, bs) = (format!("{:7.1}", lat as f64), format!("{:5.1}", bw as f64));
                        let _ = write!(s, "{ls}/{bs}|");
                        (ls, bs)
                    };
                    table.rows.push(TuningRow {
                        func: f.name().into(),
                        algo: name.to_string(),
                        proto: pr.name().into(),
                        latency: back(&ls),
                        bw: back(&bs),
                    });
                }
            }
            lines.push(s);
        }
    } else {
        let per = if era.since(23, 0) { 3 } else { algos.len() / 2 };
        for block in algos.chunks(per) {
            let mut s = String::from("  Algorithm   |");
            for (name, _) in block {
                let _ = write!(s, " {:>14}   {name:>14}   {:>14} |", "", "");
            }
            lines.push(s);
            let mut s = String::from("  Protocol    |");
            for _ in 0..per {
                for pr in Proto::ALL {
                    let _ = write!(s, " {:>14} |", pr.name());
                }
            }
            lines.push(s);
            let mut s = String::from(" Max NThreads |");
            for (name, a) in block {
                for pr in Proto::ALL {
                    let n = t.max_threads[(*a, pr)];
                    let _ = write!(s, " {n:>14} |");
                    table.max_threads.push((name.to_string(), pr.name().into(), n as i64));
                }
            }
            lines.push(s);
            for f in Func::ALL {
                let mut s = format!("{:>13} |", f.name());
                for (name, a) in block {
                    for pr in Proto::ALL {
                        let (lat, bw) = cell(f, *a, pr);
                        let (ls, bs) = (format!("{:8.1}", lat as f64), format!("{:6.1}", bw as f64));
                        let _ = write!(s, "{ls}/{bs} |");
                        table.rows.push(TuningRow {
                            func: f.name().into(),
                            algo: name.to_string(),
                            proto: pr.name().into(),
                            latency: back(&ls),
                            bw: back(&bs),
                        });
                    }
                }
                lines.push(s);
            }
        }
    }
    let mut out = Vec::new();
    let mut fact = Some(Fact::Tuning(Box::new(table)));
    for l in lines {
        out.push(Rec::info(p, l, fact.take().unwrap_or(Fact::None)).block());
    }
    out
}

/// The multi-line `Enabled NCCL Func/Proto/Algo Matrix:` record (graph/tuning.cc, 2.24+,
/// rank 0 when NCCL_ALGO or NCCL_PROTO is set): one INFO record whose rows follow on
/// lines of their own, without a prefix, and an empty line last.
fn matrix_record(p: &Proc, m: &topo::tune::Model) -> Rec {
    let t = &m.table;
    let mut s = String::from("Enabled NCCL Func/Proto/Algo Matrix:\n     Function | ");
    for pr in Proto::ALL {
        let _ = write!(s, "{:>8}  ", pr.name());
    }
    s.push_str(" | ");
    for a in m.algos() {
        let _ = write!(s, "{:>13}  ", a.name());
    }
    s.push('\n');
    for f in Func::ALL {
        let _ = write!(s, "{:>13} | ", f.name());
        for pr in Proto::ALL {
            let _ = write!(s, "{:>8}  ", t.proto_enable[f][pr]);
        }
        s.push_str(" | ");
        for &a in m.algos() {
            let _ = write!(s, "{:>13}  ", t.algo_enable[f][a]);
        }
        s.push('\n');
    }
    Rec::info(p, s, Fact::None).block()
}

/// `threadThresholds ...` (graph/tuning.cc): tree | ring in 2.5, with CollNet's three
/// until 2.13, then CollNet Direct and Chain Simple only.
fn thresholds(w: &World, p: &Proc, m: &topo::tune::Model) -> (String, Thresholds) {
    let th = &m.table.thread_thresholds;
    let era = w.era;
    let three = |a: Algo| Proto::ALL.iter().map(|&pr| th[(a, pr)]).collect::<Vec<i64>>();
    let mut groups = vec![three(Algo::Tree), three(Algo::Ring)];
    if era.since(14, 0) {
        groups.push(vec![th[(Algo::CollNetDirect, Proto::Simple)]]);
        groups.push(vec![th[(Algo::CollNetChain, Proto::Simple)]]);
    } else if era.since(6, 0) {
        groups.push(three(Algo::CollNetDirect));
    }
    let text = groups
        .iter()
        .map(|g| g.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("/"))
        .collect::<Vec<_>>()
        .join(" | ");
    (format!("threadThresholds {text}"), Thresholds { comm: Some(0), rank: Some(p.rank as u32), groups })
}

/// `N coll channels, ...` (graph/paths.cc until 2.16, init.cc after): 3 numbers, then
/// NVLS (2.17), then CollNet (2.20; comm->nChannels from 2.21).
fn channel_counts(w: &World, p: &Proc) -> Rec {
    let era = w.era;
    let (p2p, per_peer) = p2p_channels(w);
    let coll = w.run.n_channels as u32;
    let nvls = w.tune.as_ref().map_or(0, |m| m.comm.nvls_channels) as u32;
    let collnet = if era.since(21, 0) {
        coll
    } else if w.spec.collnet && w.gs.collnet_chain.computed && w.spec.nodes > 1 {
        w.gs.collnet_chain.n_channels.max(0) as u32
    } else {
        0
    };
    let mut c = ChannelCounts {
        comm: Some(0),
        rank: Some(p.rank as u32),
        coll,
        collnet: None,
        nvls: None,
        p2p: p2p as u32,
        p2p_per_peer: per_peer as u32,
    };
    let msg = if !era.since(17, 0) {
        format!("{coll} coll channels, {p2p} p2p channels, {per_peer} p2p channels per peer")
    } else if !era.since(20, 0) {
        c.nvls = Some(nvls);
        format!("{coll} coll channels, {nvls} nvls channels, {p2p} p2p channels, {per_peer} p2p channels per peer")
    } else {
        c.nvls = Some(nvls);
        c.collnet = Some(collnet);
        format!(
            "{coll} coll channels, {collnet} collnet channels, {nvls} nvls channels, {p2p} p2p channels, {per_peer} p2p channels per peer"
        )
    };
    Rec::info(p, msg, Fact::Counts(c))
}

// ---------------------------------------------------------------------------------------
// The log on disk

/// One physical line: its text and the record it carries (none for blank and foreign
/// lines).
struct Line {
    text: String,
    rec: Option<usize>,
    /// May take a splice from the line before it (a complete prefixed INFO record).
    spliceable: bool,
    /// A further line of a multi-line record (nothing can come between).
    cont: bool,
}

const FOREIGN: &[&str] = &[
    "[trainer] step 10 loss=2.3171 lr=0.0003",
    "# nccl-tests version 2.13.9 nccl-headers=21805 nccl-library=21805",
    "Using 8 GPUs for data parallel training",
    "torch.distributed: initialising the NCCL backend (this may take a while)",
    "#  Rank  0 Group  0 Pid  41000 on gpu-node-0 device  0 [0x1a] NVIDIA H100 80GB HBM3",
    "WARNING: the requested number of threads is larger than the number of cores",
    "Epoch 1/3: 100%|##########| 500/500 [00:42<00:00, 11.8it/s]",
];

/// Write the log of a job.
pub fn write(spec: &Spec, env: &Envelope) -> Log {
    let w = world(spec);
    let comms = comm_defs(&w);
    let per_proc: Vec<Vec<Rec>> = w.procs.iter().map(|p| rank_records(&w, &comms, p)).collect();
    let mut rng = Rng::new(env.seed);
    let stripped = matches!(env.prefix, Prefix::Stripped | Prefix::DevOnly);
    let order = if stripped { Order::Sequential } else { env.order };

    // Flatten in the chosen order: (proc, index) of every record.
    let mut seq: Vec<(usize, usize)> = Vec::new();
    let merge = |procs: &[usize], rng: &mut Rng, seq: &mut Vec<(usize, usize)>| {
        let mut at: Vec<usize> = vec![0; procs.len()];
        loop {
            let live: Vec<usize> = (0..procs.len()).filter(|&i| at[i] < per_proc[procs[i]].len()).collect();
            if live.is_empty() {
                break;
            }
            let i = live[rng.below(live.len())];
            let burst = 1 + rng.below(4);
            for _ in 0..burst {
                if at[i] < per_proc[procs[i]].len() {
                    seq.push((procs[i], at[i]));
                    at[i] += 1;
                }
            }
        }
    };
    match order {
        Order::Sequential => {
            for (p, recs) in per_proc.iter().enumerate() {
                seq.extend((0..recs.len()).map(|i| (p, i)));
            }
        }
        Order::Hosts => {
            for h in 0..w.hosts.len() {
                let procs: Vec<usize> = w.procs.iter().filter(|p| p.host == h).map(|p| p.rank).collect();
                merge(&procs, &mut rng, &mut seq);
            }
        }
        Order::Mixed => {
            let procs: Vec<usize> = (0..w.procs.len()).collect();
            merge(&procs, &mut rng, &mut seq);
        }
    }

    // Physical lines.
    let era = w.era;
    let mut recs: Vec<&Rec> = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    for &(p, i) in &seq {
        let rec = &per_proc[p][i];
        let proc_ = &w.procs[rec.proc_];
        let host = &w.hosts[proc_.host];
        let tag = match env.prefix {
            Prefix::OpenMpi => format!("[1,{}]<stdout>:", proc_.rank),
            Prefix::Srun => format!("{}: ", proc_.rank),
            Prefix::Torchrun => format!("[default{}]:", proc_.local),
            _ => String::new(),
        };
        let id = recs.len();
        recs.push(rec);
        match rec.level {
            Level::Bare => {
                lines.push(Line { text: format!("{tag}{}", rec.msg), rec: Some(id), spliceable: false, cont: false })
            }
            Level::Info => {
                let level = if env.ansi { "\x1b[32mNCCL INFO\x1b[0m".to_string() } else { "NCCL INFO".to_string() };
                // A message with newlines (the 2.24+ enable matrix) goes out in one write:
                // its further lines carry no prefix (but the launcher's tag).
                let mut parts = rec.msg.split('\n');
                let first = parts.next().unwrap_or_default();
                let text = match env.prefix {
                    Prefix::Stripped => format!("{level} {first}"),
                    Prefix::DevOnly => format!("[{}] {level} {first}", proc_.dev),
                    _ => format!("{tag}{host}:{}:{} [{}] {level} {first}", proc_.pid, rec.tid, proc_.dev),
                };
                let more: Vec<&str> = parts.collect();
                lines.push(Line { text, rec: Some(id), spliceable: !stripped && more.is_empty(), cont: false });
                for m in more {
                    lines.push(Line { text: format!("{tag}{m}"), rec: None, spliceable: false, cont: true });
                }
            }
            Level::Warn => {
                if stripped {
                    continue;
                }
                lines.push(Line { text: tag.clone(), rec: None, spliceable: false, cont: false });
                let ts = if era.since(26, 0) {
                    format!("[2025-03-14 10:02:{:02}] ", 10 + proc_.host)
                } else {
                    String::new()
                };
                let mut text = format!(
                    "{tag}{ts}{host}:{}:{} [{}] {} NCCL WARN {}",
                    proc_.pid, rec.tid, proc_.dev, rec.origin, rec.msg
                );
                if env.ansi {
                    text = format!("\x1b[1;31m{text}\x1b[0m");
                }
                // The empty line and the record are one write.
                lines.push(Line { text, rec: Some(id), spliceable: false, cont: true });
            }
        }
    }

    // Program output in between.
    if !stripped {
        for k in 0..env.foreign {
            let mut at = rng.below(lines.len() + 1);
            while at < lines.len() && lines[at].cont {
                at += 1;
            }
            let tag = match env.prefix {
                Prefix::OpenMpi => "[1,0]<stdout>:".to_string(),
                Prefix::Srun => "0: ".to_string(),
                Prefix::Torchrun => "[default0]:".to_string(),
                _ => String::new(),
            };
            let text = format!("{tag}{}", FOREIGN[(k + rng.below(FOREIGN.len())) % FOREIGN.len()]);
            lines.insert(at, Line { text, rec: None, spliceable: false, cont: false });
        }
    }

    // Splices: a record cut after a space of its message, the next record on the same line.
    let mut lost: BTreeSet<usize> = BTreeSet::new();
    if !stripped {
        for _ in 0..env.splices {
            let cands: Vec<usize> = (0..lines.len().saturating_sub(1))
                .filter(|&i| {
                    lines[i].rec.is_some_and(|r| recs[r].victim && !lost.contains(&r))
                        && lines[i + 1].spliceable
                        && lines[i + 1].rec.is_some_and(|r| !lost.contains(&r))
                })
                .collect();
            if cands.is_empty() {
                break;
            }
            let i = cands[rng.below(cands.len())];
            let text = &lines[i].text;
            let msg_at = text.rfind("NCCL INFO").unwrap() + "NCCL INFO".len() + 1;
            let cuts: Vec<usize> = (msg_at + 1..text.len()).filter(|&k| text.as_bytes()[k - 1] == b' ').collect();
            let Some(&cut) = cuts.get(rng.below(cuts.len().max(1))) else { continue };
            let next = lines.remove(i + 1);
            let merged = format!("{}{}", &lines[i].text[..cut], next.text);
            lost.insert(lines[i].rec.unwrap());
            lines[i] = Line { text: merged, rec: next.rec, spliceable: false, cont: false };
        }
    }

    let nl = if env.crlf { "\r\n" } else { "\n" };
    let mut text = String::new();
    for l in &lines {
        text.push_str(&l.text);
        text.push_str(nl);
    }

    // The facts of the records that survived, in file order.
    let mut order_recs: Vec<usize> = Vec::new();
    for l in &lines {
        if let Some(r) = l.rec {
            order_recs.push(r);
        }
    }
    let mut log = Log {
        text,
        expected: LogFacts::default(),
        optional_trees: BTreeSet::new(),
        optional_paths: BTreeSet::new(),
        records: recs.len(),
        spliced: lost.len(),
        truncated: 0,
        era: w.era,
        split: comms.len() > 1,
        collnet: w.spec.collnet,
        variants: w.spec.variants,
        gpu_ranks_ambiguous: stripped && w.spec.nodes > 1 && era.since(27, 5),
        stripped,
    };
    let survivors: Vec<&Rec> = order_recs.iter().filter(|r| !lost.contains(r)).map(|&r| recs[r]).collect();
    log.truncated = survivors.iter().filter(|r| r.cut).count();
    log.expected = assemble(&w, &comms, &survivors, env, &mut log);
    log
}

fn assemble(w: &World, comms: &[CommDef], recs: &[&Rec], env: &Envelope, log: &mut Log) -> LogFacts {
    let era = w.era;
    let hosts_known = !matches!(env.prefix, Prefix::Stripped | Prefix::DevOnly);
    let host_of = |r: &Rec| hosts_known.then(|| w.hosts[w.procs[r.proc_].host].clone());
    let mut f = LogFacts { dialect: Dialect::Nccl, ..LogFacts::default() };
    f.nccl_version = Some(LogVersion {
        value: era.name(),
        major: 2,
        minor: era.minor,
        patch: era.patch,
        cuda: Some(era.cuda().to_string()),
        suffix: None,
        source: VersionSource::VersionLine,
        range: None,
        conflicts: Vec::new(),
    });
    // Communicators.
    for (c, def) in comms.iter().enumerate() {
        let split = def.split.is_some();
        let hosts: BTreeSet<usize> = def.members.iter().map(|&m| w.procs[m].host).collect();
        let id = (era.since(16, 0) && !(split && era.since(23, 0))).then(|| comm_hash(c));
        let func = if !era.since(21, 0) {
            None
        } else if split {
            Some("ncclCommSplit".to_string())
        } else if !era.since(23, 0) {
            Some("ncclCommInitRank".to_string())
        } else {
            Some(w.spec.func.to_string())
        };
        let local = def.members.iter().filter(|&&m| w.procs[m].host == 0).count() as u32;
        let (nnodes, source) = if era.since(20, 0) {
            (Some(hosts.len() as u32), Some("log".to_string()))
        } else if hosts_known {
            (Some(hosts.len() as u32), Some("hosts".to_string()))
        } else {
            (None, None)
        };
        f.comms.push(Comm {
            id,
            nranks: def.members.len() as u32,
            nnodes,
            nnodes_source: source,
            local_ranks: era.since(20, 0).then_some(local),
            mnnvl: era.since(20, 0).then_some(c == 0 && w.spec.variants.mnnvl),
            func,
            primary: c == 0,
        });
    }
    let mut ranks: BTreeMap<(usize, u32), RankInfo> = BTreeMap::new();
    let mut systems: BTreeMap<Option<String>, SystemPrint> = BTreeMap::new();
    let mut trees: Vec<TreeLink> = Vec::new();
    let mut env_seen = BTreeSet::new();
    let mut nets: BTreeMap<Option<String>, NetUse> = BTreeMap::new();
    let mut hosts = Vec::new();
    for r in recs {
        let p = &w.procs[r.proc_];
        if let Some(h) = host_of(r)
            && r.level != Level::Bare
            && !hosts.contains(&h)
        {
            hosts.push(h);
        }
        log.optional_trees.extend(r.opt_trees.iter().copied());
        if !hosts_known {
            log.optional_trees.extend(r.cut_trees.iter().copied());
        }
        for (h, a, b) in &r.opt_paths {
            log.optional_paths.insert((if hosts_known { h.clone() } else { String::new() }, a.clone(), b.clone()));
        }
        match &r.fact {
            Fact::Rank { comm, rank, complete } => {
                let e = ranks.entry((*comm, *rank)).or_insert_with(|| RankInfo {
                    comm: *comm,
                    rank: *rank,
                    host: host_of(r),
                    pid: hosts_known.then_some(p.pid),
                    bus_id: Some(p.busid.clone()),
                    cuda_dev: Some(p.dev),
                    nvml_dev: era.since(18, 3).then_some(p.dev),
                    local_rank: None,
                    complete: false,
                });
                e.complete |= *complete;
            }
            Fact::Nodes { comm, rank, local_rank, .. } => {
                if let Some(e) = ranks.get_mut(&(*comm, *rank)) {
                    e.local_rank = Some(*local_rank);
                }
            }
            Fact::System(s) => {
                let mut s = (**s).clone();
                s.host = host_of(r);
                systems.entry(s.host.clone()).or_insert(s);
            }
            Fact::Graph(g) => {
                let mut g = (**g).clone();
                g.host = host_of(r);
                f.graphs.push(g);
            }
            Fact::Ring(x) => f.rings.push(x.clone()),
            Fact::RingLink(x) => f.ring_links.push(x.clone()),
            Fact::Trees(items) => trees.extend(items.iter().cloned()),
            Fact::Tree(t) => trees.push(t.clone()),
            Fact::Nvls(x) => f.nvls_heads.push(x.clone()),
            Fact::Conn(x) => f.connections.push(x.clone()),
            Fact::Env(x) => {
                let mut x = x.clone();
                x.host = host_of(r);
                if env_seen.insert((x.name.clone(), x.host.clone())) {
                    f.env.push(x);
                }
            }
            Fact::NetUsing(x) => {
                let mut x = x.clone();
                x.host = host_of(r);
                nets.entry(x.host.clone()).or_insert(x);
            }
            Fact::UsingNetwork(_) | Fact::None | Fact::Version => {}
            Fact::Counts(x) => f.channel_counts.push(x.clone()),
            Fact::Thresholds(x) => f.thresholds.push(x.clone()),
            Fact::Tuning(t) => f.tuning = Some((**t).clone()),
            Fact::Affinity(a) => {
                let mut a = a.clone();
                a.host = host_of(r);
                f.affinity.push(a);
            }
            Fact::Connected(m) => {
                let mut m = m.clone();
                m.host = host_of(r);
                f.connected.push(m);
            }
            Fact::Detail(d) => {
                let mut d = d.clone();
                d.host = host_of(r);
                f.details.push(d);
            }
        }
    }
    f.trees = trees;
    f.ranks = ranks.into_values().collect();
    f.systems = systems.into_values().collect();
    f.nets = nets.into_values().collect();
    f.hosts = hosts;
    f
}

// ---------------------------------------------------------------------------------------
// Comparing

/// A communicator's identity that does not depend on the order a reader lists them
/// in: the (host, pid, bus id) of its ranks, else its size and id.
fn comm_keys(f: &LogFacts) -> Vec<String> {
    (0..f.comms.len())
        .map(|c| {
            let mut members: Vec<String> = f
                .ranks
                .iter()
                .filter(|r| r.comm == c)
                .filter_map(|r| Some(format!("{}:{}:{}", r.host.as_ref()?, r.pid?, r.bus_id.as_deref().unwrap_or("?"))))
                .collect();
            members.sort();
            if members.is_empty() {
                return format!("n{}:{:?}", f.comms[c].nranks, f.comms[c].id);
            }
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            members.hash(&mut h);
            format!("comm#{:08x}(n={})", h.finish() as u32, members.len())
        })
        .collect()
}

fn ck(keys: &[String], c: Option<usize>) -> String {
    c.map_or("-".into(), |c| keys.get(c).cloned().unwrap_or_else(|| format!("#{c}?")))
}

/// What differs between two sets of canonical facts, at most a few lines per kind.
fn diff_sets(what: &str, exp: &BTreeSet<String>, got: &BTreeSet<String>, out: &mut Vec<String>) {
    let missing: Vec<&String> = exp.difference(got).collect();
    let extra: Vec<&String> = got.difference(exp).collect();
    if missing.is_empty() && extra.is_empty() {
        return;
    }
    let mut s = format!("{what}: {} expected not read, {} read not expected", missing.len(), extra.len());
    for m in missing.iter().take(4) {
        let _ = write!(s, "\n    expected: {m}");
    }
    for e in extra.iter().take(4) {
        let _ = write!(s, "\n    read:     {e}");
    }
    out.push(s);
}

fn set<T, F: Fn(&T) -> String>(v: &[T], f: F) -> BTreeSet<String> {
    v.iter().map(f).collect()
}

fn node_canon(n: &SysNode) -> String {
    let bus = if matches!(n.kind.as_str(), "GPU" | "PCI" | "NIC") { n.bus_id.clone() } else { None };
    let dev = if n.kind == "PCI" { n.pci_device } else { None };
    let key = id_key(&n.id);
    format!(
        "{}/{}-{} id-key={:?} bus={bus:?} rank={:?} cpu={:?} pci={dev:?} net={:?} mlo={:?}",
        n.kind, n.system_id, n.local_id, key, n.rank, n.cpu, n.net, n.mlo_part
    )
}

fn system_canon(s: &SystemPrint) -> (String, BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let head = format!(
        "host={:?} max_bw={} total_bw={:?} truncated={} guessed={}",
        s.host, s.max_bw, s.total_bw, s.truncated, s.tree_guessed
    );
    let nodes = set(&s.nodes, node_canon);
    let key =
        |i: usize| s.nodes.get(i).map_or(format!("#{i}?"), |n| format!("{}/{}-{:x}", n.kind, n.system_id, n.local_id));
    let links = set(&s.links, |l| {
        let (a, b) = (key(l.from), key(l.to));
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        format!("{a} ~ {b} {} {}", l.kind, l.bw)
    });
    let paths =
        set(&s.paths, |p| format!("{:?} -> {:?} ({}/{}/{})", id_key(&p.from), id_key(&p.to), p.hops, p.bw, p.kind));
    (head, nodes, links, paths)
}

/// The differences between the facts a log holds and the facts read from it (empty when
/// they agree). Order does not matter; line tallies, problems and warnings are not
/// compared.
pub fn differences(log: &Log, got: &LogFacts) -> Vec<String> {
    let exp = &log.expected;
    let mut out = Vec::new();
    let (ke, kg) = (comm_keys(exp), comm_keys(got));
    if exp.dialect != got.dialect {
        out.push(format!("dialect: expected {:?}, read {:?}", exp.dialect, got.dialect));
    }
    let ver = |f: &LogFacts| {
        f.nccl_version.as_ref().map(|v| {
            format!(
                "{} {}.{}.{} cuda={:?} suffix={:?} source={:?}",
                v.value, v.major, v.minor, v.patch, v.cuda, v.suffix, v.source
            )
        })
    };
    if ver(exp) != ver(got) {
        out.push(format!("nccl_version: expected {:?}, read {:?}", ver(exp), ver(got)));
    }
    let comm = |f: &LogFacts, k: &[String]| {
        set(&f.comms.iter().enumerate().collect::<Vec<_>>(), |(i, c)| {
            format!(
                "{} id={:?} nranks={} nnodes={:?} source={:?} local={:?} mnnvl={:?} func={:?} primary={}",
                k[*i], c.id, c.nranks, c.nnodes, c.nnodes_source, c.local_ranks, c.mnnvl, c.func, c.primary
            )
        })
    };
    diff_sets("comms", &comm(exp, &ke), &comm(got, &kg), &mut out);
    let rank = |f: &LogFacts, k: &[String]| {
        set(&f.ranks, |r| {
            format!(
                "{} rank={} host={:?} pid={:?} bus={:?} cuda={:?} nvml={:?} local={:?} complete={}",
                ck(k, Some(r.comm)),
                r.rank,
                r.host,
                r.pid,
                r.bus_id,
                r.cuda_dev,
                r.nvml_dev,
                r.local_rank,
                r.complete
            )
        })
    };
    diff_sets("ranks", &rank(exp, &ke), &rank(got, &kg), &mut out);
    let hs = |f: &LogFacts| f.hosts.iter().cloned().collect::<BTreeSet<_>>();
    diff_sets("hosts", &hs(exp), &hs(got), &mut out);

    // Systems: one per host; the printing rank must be one of the host's.
    if exp.systems.len() != got.systems.len() {
        out.push(format!("systems: expected {}, read {}", exp.systems.len(), got.systems.len()));
    }
    for es in &exp.systems {
        let Some(gs) = got.systems.iter().find(|g| g.host == es.host) else {
            out.push(format!("systems: none read for host {:?}", es.host));
            continue;
        };
        let host_ranks: BTreeSet<u32> =
            exp.ranks.iter().filter(|r| r.comm == 0 && r.host == es.host).map(|r| r.rank).collect();
        if let Some(r) = gs.rank
            && !host_ranks.is_empty()
            && !host_ranks.contains(&r)
        {
            out.push(format!("system of {:?}: printed by rank {r}, not a rank of that host", es.host));
        }
        let (eh, en, el, ep) = system_canon(es);
        let (gh, gn, gl, mut gp) = system_canon(gs);
        if eh != gh {
            out.push(format!("system of {:?}: expected {eh}, read {gh}", es.host));
        }
        diff_sets(&format!("system nodes of {:?}", es.host), &en, &gn, &mut out);
        diff_sets(&format!("system links of {:?}", es.host), &el, &gl, &mut out);
        // Path entries that ended at NCCL's buffer size may be read or not.
        let host = es.host.clone().unwrap_or_default();
        let opt: BTreeSet<String> = log
            .optional_paths
            .iter()
            .filter(|(h, _, _)| *h == host)
            .map(|(_, a, b)| format!("{:?} -> {:?} (", id_key(a), id_key(b)))
            .collect();
        gp.retain(|p| !opt.iter().any(|o| p.starts_with(o.as_str())) || ep.contains(p));
        diff_sets(&format!("system paths of {:?}", es.host), &ep, &gp, &mut out);
    }

    let graph = |f: &LogFacts, k: &[String]| {
        set(&f.graphs, |g| {
            format!(
                "{} rank={:?} host={:?} #{} pattern={} crossnic={} nch={} bw={}/{} type={}/{} same={} nvlink={:?} channels={:?}",
                ck(k, g.comm),
                g.rank,
                g.host,
                g.index,
                g.pattern,
                g.crossnic,
                g.nchannels,
                g.bw_intra,
                g.bw_inter,
                g.type_intra,
                g.type_inter,
                g.same_channels,
                g.nvlink,
                g.channels
                    .iter()
                    .map(|c| {
                        let gpus = if log.gpu_ranks_ambiguous { &[][..] } else { &c.gpus[..] };
                        (c.channel, &c.net_in, gpus, &c.gpu_ids, &c.net_out)
                    })
                    .collect::<Vec<_>>()
            )
        })
    };
    diff_sets("graphs", &graph(exp, &ke), &graph(got, &kg), &mut out);
    let rings = |f: &LogFacts, k: &[String]| {
        set(&f.rings, |r| {
            format!(
                "{} rank={:?} ch={}/{} order={:?} truncated={}",
                ck(k, r.comm),
                r.rank,
                r.channel,
                r.nchannels,
                r.order,
                r.truncated
            )
        })
    };
    diff_sets("rings", &rings(exp, &ke), &rings(got, &kg), &mut out);
    let links = |f: &LogFacts, k: &[String]| {
        set(&f.ring_links, |r| format!("{} rank={} ch={} {} -> {}", ck(k, r.comm), r.rank, r.channel, r.prev, r.next))
    };
    diff_sets("ring_links", &links(exp, &ke), &links(got, &kg), &mut out);
    let trees = |f: &LogFacts, k: &[String]| {
        let v: Vec<&TreeLink> = f
            .trees
            .iter()
            .filter(|t| t.source != TreeSource::Trees || !log.optional_trees.contains(&(t.rank, t.channel)))
            .collect();
        set(&v, |t| {
            format!(
                "{} rank={} ch={} up={} down={:?} dn={:?}/{:?} source={:?}",
                ck(k, t.comm),
                t.rank,
                t.channel,
                t.up,
                t.down,
                t.dn_up,
                t.dn_down,
                t.source
            )
        })
    };
    diff_sets("trees", &trees(exp, &ke), &trees(got, &kg), &mut out);
    let nvls = |f: &LogFacts, k: &[String]| {
        set(&f.nvls_heads, |h| format!("{} rank={:?} ch={} heads={:?}", ck(k, h.comm), h.rank, h.channel, h.heads))
    };
    diff_sets("nvls_heads", &nvls(exp, &ke), &nvls(got, &kg), &mut out);
    let conns = |f: &LogFacts, k: &[String]| {
        set(&f.connections, |c| {
            format!(
                "{} ch={}/{:?} {}[{}] -> {}[{}] ids={:?} side={:?} {}/{} read={} ce={} dev={:?} proxy={:?} gdr={} pci={} shared={}",
                ck(k, c.comm),
                c.channel,
                c.conn,
                c.from,
                c.from_id,
                c.to,
                c.to_id,
                c.id_kind,
                c.side,
                c.transport,
                c.mode,
                c.read,
                c.ce,
                c.net_dev,
                c.proxy_rank,
                c.gdr,
                c.gdr_pci,
                c.shared
            )
        })
    };
    diff_sets("connections", &conns(exp, &ke), &conns(got, &kg), &mut out);
    let envs = |f: &LogFacts| set(&f.env, |e| format!("{}={} ({}) host={:?}", e.name, e.value, e.source, e.host));
    diff_sets("env", &envs(exp), &envs(got), &mut out);
    let nets = |f: &LogFacts| {
        set(&f.nets, |n| {
            format!(
                "host={:?} {} devices={:?} oob={:?}",
                n.host,
                n.kind,
                n.devices.iter().map(|d| (d.index, &d.name, d.port, &d.link)).collect::<Vec<_>>(),
                n.oob
            )
        })
    };
    diff_sets("nets", &nets(exp), &nets(got), &mut out);
    let counts = |f: &LogFacts, k: &[String]| {
        set(&f.channel_counts, |c| {
            format!(
                "{} rank={:?} coll={} collnet={:?} nvls={:?} p2p={} per_peer={}",
                ck(k, c.comm),
                c.rank,
                c.coll,
                c.collnet,
                c.nvls,
                c.p2p,
                c.p2p_per_peer
            )
        })
    };
    diff_sets("channel_counts", &counts(exp, &ke), &counts(got, &kg), &mut out);
    let th = |f: &LogFacts, k: &[String]| {
        set(&f.thresholds, |t| format!("{} rank={:?} {:?}", ck(k, t.comm), t.rank, t.groups))
    };
    diff_sets("thresholds", &th(exp, &ke), &th(got, &kg), &mut out);
    let tuning = |f: &LogFacts| {
        let mut s = BTreeSet::new();
        if let Some(t) = &f.tuning {
            s.insert(format!("rank={:?}", t.rank));
            for (a, p, n) in &t.max_threads {
                s.insert(format!("threads {a}/{p} = {n}"));
            }
            for r in &t.rows {
                s.insert(format!("{} {}/{} = {}/{}", r.func, r.algo, r.proto, r.latency, r.bw));
            }
        }
        s
    };
    diff_sets("tuning", &tuning(exp), &tuning(got), &mut out);
    let aff = |f: &LogFacts, k: &[String]| {
        set(&f.affinity, |a| {
            format!(
                "{} rank={:?} host={:?} gpu={} {} cpu={:?}",
                ck(k, a.comm),
                a.rank,
                a.host,
                a.gpu,
                a.mask,
                a.cpu_mask
            )
        })
    };
    diff_sets("affinity", &aff(exp, &ke), &aff(got, &kg), &mut out);
    let marks = |f: &LogFacts, k: &[String]| {
        set(&f.connected, |m| {
            format!(
                "{} rank={:?} host={:?} {} pxn={:?} gdr={:?}",
                ck(k, m.comm),
                m.rank,
                m.host,
                m.what,
                m.ring_pxn,
                m.ring_gdr
            )
        })
    };
    diff_sets("connected", &marks(exp, &ke), &marks(got, &kg), &mut out);
    // Details: which rank printed a line before its init names it is not compared.
    let details = |f: &LogFacts| set(&f.details, |d| format!("host={:?} {}={}", d.host, d.kind, d.value));
    diff_sets("details", &details(exp), &details(got), &mut out);
    // Every record the writer prints is one of NCCL's: none may be unknown to a reader.
    if got.lines.unknown > 0 {
        out.push(format!("unknown records: {} ({:?})", got.lines.unknown, got.lines.unknown_by_word));
    }
    out
}

// ---------------------------------------------------------------------------------------
// Logs that are not NCCL 2.5+ logs

/// An RCCL log (ROCm's fork): the multi-line version banner RCCL prints, XGMI links in
/// the system print, and the ` comm 0x... nRanks NN busId ...` RCCL appends to ring,
/// tree, connection and `Connected` lines (RCCL src/init.cc, transport/*.cc).
pub fn rccl_log(banner: bool, xgmi: bool) -> String {
    let host = "mi300x-0";
    let busids = [0x0c000i64, 0x22000, 0x38000, 0x5c000];
    let mut s = String::new();
    if banner {
        s.push_str("RCCL version : 2.20.5-HEAD:0cbce2a\nHIP version  : 6.2.41133-dd7f95766\n");
        s.push_str(
            "ROCm version : 6.2.0.0-66-1a5d2a6\nHostname     : mi300x-0\nLibrccl path : /opt/rocm/lib/librccl.so.1\n",
        );
    }
    for (r, &bus) in busids.iter().enumerate() {
        let pid = 7100 + r as u32;
        let ptr = format!("0x{:x}", 0x5606_a3b0_0000u64 + r as u64 * 0x10000);
        let pre = format!("{host}:{pid}:{pid} [{r}] NCCL INFO ");
        let link = if xgmi { "XGMI" } else { "PCI" };
        let _ = writeln!(s, "{pre}=== System : maxBw 64.0 totalBw 192.0 ===");
        let _ = writeln!(s, "{pre}CPU/0-0 (1/2/-1)");
        for &b in &busids {
            let _ = writeln!(s, "{pre}+ PCI[32.0] - GPU/0-{b:x} ({})", busids.iter().position(|&x| x == b).unwrap());
            for &o in busids.iter().filter(|&&o| o != b) {
                if xgmi {
                    let _ = writeln!(s, "{pre}              + XGMI[64.0] - GPU/0-{o:x}");
                }
            }
        }
        let _ = writeln!(s, "{pre}==========================================");
        let _ = writeln!(
            s,
            "{pre}Pattern 4, crossNic 0, nChannels 2, bw 64.000000/64.000000, type {link}/PIX, sameChannels 1"
        );
        for c in 0..2 {
            let (prev, next) = ((r + 3) % 4, (r + 1) % 4);
            let _ = writeln!(s, "{pre}Ring {c} : {prev} -> {r} -> {next} comm {ptr} nRanks 04 busId {bus:x}");
        }
        let _ = writeln!(
            s,
            "{pre}Trees [0] {}/-1/-1->{r}->{} [1] {}/-1/-1->{r}->{} comm {ptr} nRanks 04 busId {bus:x}",
            if r < 3 { r as i64 + 1 } else { -1 },
            r as i64 - 1,
            if r < 3 { r as i64 + 1 } else { -1 },
            r as i64 - 1
        );
        let next = (r + 1) % 4;
        for c in 0..2 {
            let _ = writeln!(
                s,
                "{host}:{pid}:{} [{r}] NCCL INFO Channel {c:02}/0 : {r}[{bus:x}] -> {next}[{:x}] via P2P/IPC comm {ptr} nRanks 04",
                pid + 9,
                busids[next]
            );
        }
        let _ = writeln!(s, "{pre}Connected all rings comm {ptr} nRanks 04 busId {bus:x}");
        let _ = writeln!(
            s,
            "{pre}comm {ptr} rank {r} nranks 4 cudaDev {r} busId {bus:x} commId 0x1f2e3d4c5b6a7988 localSize 4 used 1234567 bytes - Init COMPLETE"
        );
    }
    s
}

/// A log of NCCL 2.4 (before the formats `topo log` reads): bare version line, ring
/// orders without channel count, `Ring 00 : a -> b [send] via NET/...` connections
/// without ids, trees `up->me->down`, `nvmlDev` without `busId` (src/init.cc,
/// transport/*.cc of v2.4.8-1).
pub fn nccl_2_4_log() -> String {
    let mut s = String::from("NCCL version 2.4.8+cuda10.1\n");
    let hosts = ["dgx1-a", "dgx1-b"];
    for r in 0..16u32 {
        let h = hosts[(r / 8) as usize];
        let l = r % 8;
        let pid = 5200 + r;
        let pre = format!("{h}:{pid}:{pid} [{l}] NCCL INFO ");
        let _ = writeln!(s, "{pre}NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.1.{}.{}<0>", r / 8, 1 + l);
        if r == 0 {
            for c in 0..2 {
                let mut line = format!("Channel {c:02} : ");
                for x in 0..16 {
                    let _ = write!(line, " {x:3}");
                }
                let _ = writeln!(s, "{pre}{line}");
            }
        }
        let next = (r + 1) % 16;
        for c in 0..2 {
            if r % 8 == 7 {
                let _ = writeln!(s, "{pre}Ring {c:02} : {r} -> {next} [send] via NET/IB/{c}");
            } else {
                let _ = writeln!(s, "{pre}Ring {c:02} : {r}[{l}] -> {next}[{}] via P2P/IPC", l + 1);
            }
        }
        let up = if l == 0 { -1 } else { r as i64 - 1 };
        let down = if l == 7 { -1 } else { r as i64 + 1 };
        let _ = writeln!(s, "{pre}Trees [0] {up}->{r}->{down}/-1/-1 [1] {up}->{r}->{down}/-1/-1");
        if r == 0 {
            let _ = writeln!(s, "{pre}Using 256 threads, Min Comp Cap 7, Trees enabled up to size 1048576");
        }
        let _ = writeln!(
            s,
            "{pre}comm 0x{:x} rank {r} nranks 16 cudaDev {l} nvmlDev {l} - Init COMPLETE",
            0x7f2a_5c00_0000u64 + r as u64 * 0x1000
        );
    }
    s
}

/// Inputs that are not NCCL logs at all, by name.
pub fn non_logs() -> Vec<(&'static str, Vec<u8>)> {
    let mut binary: Vec<u8> = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
    binary.extend((0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
    let xml = topo::fixtures::get("workstation-4gpu").unwrap().xml.as_bytes().to_vec();
    let prose = "We see a hang at init on 2 nodes. Rank 0 prints the ring order and then nothing.\n\
                 How do channel ` NCCL INFO Channel 01/08 :    0   3   2   1` 's trees look?\n\
                 The NCCL_DEBUG=INFO output is attached below (not pasted here).\n"
        .as_bytes()
        .to_vec();
    vec![
        ("empty", Vec::new()),
        ("blank", b"\n\n   \n".to_vec()),
        ("binary", binary),
        ("topology-xml", xml),
        ("prose", prose),
    ]
}
