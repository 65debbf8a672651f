//! One NCCL message (the text after the record prefix) to one parsed kind. Every parser
//! is anchored at both ends: a message matches a kind whole or not at all, so prose that
//! quotes a log line, or a line of a modified NCCL that starts like an upstream one, is
//! not misread. Kinds K1..K25 follow the research note on NCCL's log grammar.

use super::known;
use super::scan::{find, float, hex, ident, int, int_list, nat, nat32, ptr, sp, sp1, upper, word};
use super::system::{self, NodeText};

/// A parsed message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rec<'a> {
    /// Nothing after the prefix.
    Empty,
    /// K1 `NCCL version 2.23.4+cuda12.4`.
    Version(VersionLine<'a>),
    /// K1 `NCCL git version <branch> <describe>` (2.29+).
    GitVersion,
    /// K2 `... comm 0x.. rank r nranks n ... - Init START|COMPLETE`.
    Init(Init<'a>),
    /// K2 `comm ... - Abort COMPLETE` / `Destroy COMPLETE`.
    CommEnd,
    /// K3 `comm 0x.. rank r nRanks n nNodes n localRanks n localRank n MNNVL n`.
    Nodes(Nodes),
    /// K4 `=== System : ... ===`.
    SysHeader(SysHeader),
    /// K5 a system print line: a CPU root or a `+ LINK[bw] - NODE` child.
    SysLine(SysLine<'a>),
    /// K6 `=====...`.
    SysEnd,
    /// K7 `GPU/0-7000 :GPU/0-8000 (1/48.0/NVL) ...`.
    Path(PathLine<'a>),
    /// K8 `Pattern 4, crossNic 0, nChannels 2, bw 20/20, type NVL/PIX, sameChannels 1`.
    Pattern(Pattern<'a>),
    /// K9 ` 0 : NET/0 GPU/0 GPU/1 NET/0`.
    GraphChannel(GraphChannelLine<'a>),
    /// K10 `Channel 00/02 : 0 1 2 3`.
    RingOrder(RingOrderLine),
    /// K11 `Ring 00 : 0 -> 1 -> 2`.
    RingLink { channel: u32, prev: i64, me: u32, next: i64 },
    /// K12 `Trees [0] a/b/c->me->up ...`.
    Trees(TreesLine),
    /// K13 `Tree 0 : up -> me -> d0/d1/d2`.
    Tree { channel: u32, up: i64, me: u32, down: [i64; 3] },
    /// K14 `NVLS Head  0:  0  8`.
    NvlsHead { channel: u32, heads: Vec<i64> },
    /// K14 `NVLS Trees : ...` (channels 0 and 1: children, rank, parent), with two
    /// (2.18-2.20) or three children per tree.
    NvlsTrees { three: bool, items: [([i64; 3], u32, i64); 2] },
    /// K15 a transport connection.
    Conn(Conn<'a>),
    /// K16 `Connected all rings` and friends.
    Connected { what: &'a str, pxn: Option<i64>, gdr: Option<i64> },
    /// K17 an environment setting.
    Env { name: &'a str, value: &'a str, source: &'static str },
    /// K18 `NET/IB : Using [0]mlx5_0:1/IB ... ; OOB ib0:...`.
    NetUsing { kind: &'a str, rest: &'a str },
    /// K18 GPUDirect RDMA verdicts.
    Gdr(Gdr<'a>),
    /// K19 `Using network IB`.
    UsingNetwork(&'a str),
    /// K20 `Setting affinity for GPU 3 to ff,ffff0000` / 2.28+ `ncclTopoGetCpuAffinity: ...`.
    Affinity { gpu: u32, mask: &'a str, cpu: Option<&'a str>, new_form: bool },
    /// K21 `threadThresholds 8/8/64 | 16/8/64 | 512 | 512`.
    Thresholds(Vec<Vec<i64>>),
    /// K22 `4 coll channels, ... p2p channels per peer`.
    Counts(Counts),
    /// K23 a tuning table line.
    Tuning(TuneLine<'a>),
    /// K23 2.24+ `Enabled NCCL Func/Proto/Algo Matrix:` (unprefixed rows follow).
    MatrixStart,
    /// K24 a detail worth keeping (`cudaDriverVersion 12040`, `P2P Chunksize set to ...`).
    Detail { kind: &'static str, value: &'a str },
    /// K24 a line that names a problem.
    Problem { kind: &'static str, text: &'a str },
    /// K25 a format from before NCCL 2.5.
    Old(&'static str),
    /// A line only RCCL prints.
    Rccl(&'static str),
    /// A known NCCL message topo does not read.
    Known,
    /// Not a message topo knows.
    Unknown,
}

/// K1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VersionLine<'a> {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
    pub suffix: &'a str,
    pub cuda: Option<&'a str>,
}

/// Init START or COMPLETE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InitPhase {
    Start,
    Complete,
}

/// K2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Init<'a> {
    /// 2.29+ `[Rank N]` before the function name.
    pub rank_prefix: Option<u32>,
    pub func: Option<&'a str>,
    pub ptr: u64,
    pub rank: u32,
    pub nranks: u32,
    pub cuda_dev: u32,
    pub nvml_dev: Option<u32>,
    pub bus_id: u64,
    /// Split: parent pointer, the split's number when printed (`splitCount`,
    /// `childCount`), and its color.
    pub parent: Option<u64>,
    pub split_count: Option<u64>,
    pub color: Option<i64>,
    pub comm_id: Option<u64>,
    pub phase: InitPhase,
}

/// K3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Nodes {
    pub ptr: u64,
    pub rank: u32,
    pub nranks: u32,
    pub nnodes: u32,
    pub local_ranks: u32,
    pub local_rank: u32,
    pub mnnvl: u32,
}

/// Which header form (for dating).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderForm {
    /// 2.5 `maxWidth N maxSpeed N`.
    WidthSpeed,
    /// 2.6-2.7 `maxWidth F`.
    Width,
    /// 2.8-2.13 `maxWidth F totalWidth F`.
    WidthTotal,
    /// 2.14+ `maxBw F totalBw F`.
    Bw,
}

/// K4.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SysHeader {
    pub max_bw: f64,
    pub total_bw: Option<f64>,
    pub form: HeaderForm,
}

/// K5: a root (no link) or a child.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SysLine<'a> {
    /// Column of the `+` (0 for roots).
    pub col: usize,
    /// Column where the node text starts.
    pub node_col: usize,
    /// Link type and bandwidth; `None` for a root.
    pub link: Option<(&'a str, f64)>,
    /// The bandwidth was printed as an integer (2.5).
    pub int_bw: bool,
    pub node: NodeText<'a>,
}

/// K7.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PathLine<'a> {
    pub head: &'a str,
    pub entries: Vec<PathItem<'a>>,
    /// The last entry was cut (1023-byte limit).
    pub truncated: bool,
}

/// One K7 entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PathItem<'a> {
    pub to: &'a str,
    pub hops: u32,
    pub bw: f64,
    pub bw_decimals: usize,
    pub kind: &'a str,
}

/// K8.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pattern<'a> {
    pub pattern: i64,
    pub crossnic: i64,
    pub nchannels: u32,
    /// `speed` (before 2.14) rather than `bw`.
    pub speed: bool,
    /// The numbers had decimals (2.6+).
    pub float: bool,
    pub bw_intra: f64,
    pub bw_inter: f64,
    pub nvlink: Option<i64>,
    pub type_intra: &'a str,
    pub type_inter: &'a str,
    pub same_channels: i64,
}

/// K9.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GraphChannelLine<'a> {
    pub channel: u32,
    /// (`true` for NET, `false` for GPU, the id as printed).
    pub items: Vec<(bool, &'a str)>,
}

/// K10.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RingOrderLine {
    pub channel: u32,
    pub nchannels: u32,
    pub order: Vec<i64>,
    /// 2.5-2.22 fixed 4-wide columns.
    pub padded: bool,
    /// Ended with `...` (2.23+).
    pub ellipsis: bool,
}

/// K12.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TreesLine {
    pub items: Vec<TreesItem>,
    /// The line ended in the middle of an item.
    pub truncated: bool,
}

/// One K12 item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TreesItem {
    pub channel: u32,
    pub me: u32,
    pub up: i64,
    pub down: [i64; 3],
    /// 2.5-2.7: the second tree (`|up->me->d0/d1/d2`).
    pub dn: Option<(i64, [i64; 3])>,
}

/// K15.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Conn<'a> {
    /// `Ring NN :` (2.5-2.6) rather than `Channel NN`.
    pub ring_word: bool,
    pub channel: u32,
    pub conn: Option<u32>,
    pub from: i64,
    pub to: i64,
    pub from_id: &'a str,
    pub to_id: &'a str,
    pub side: Option<&'a str>,
    pub transport: &'static str,
    pub mode: &'a str,
    pub read: bool,
    pub ce: bool,
    pub net_dev: Option<u32>,
    pub proxy: Option<i64>,
    pub gdr: bool,
    pub gdr_pci: bool,
    pub shared: bool,
    /// SHM with one field (`SHM/direct`, 2.30.7).
    pub shm_one: bool,
}

/// K18 GPUDirect RDMA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Gdr<'a> {
    pub enabled: bool,
    pub gpu: Option<&'a str>,
    pub nic: &'a str,
    pub nic_name: Option<&'a str>,
    pub detail: &'a str,
}

/// K22.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub coll: u32,
    pub collnet: Option<u32>,
    pub nvls: Option<u32>,
    pub p2p: u32,
    pub p2p_per_peer: u32,
}

/// K23 lines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TuneLine<'a> {
    /// 2.5-2.17 `Latency/AlgBw | Tree/LL | ...`.
    Pairs(Vec<(&'a str, &'a str)>),
    /// 2.18+ `  Algorithm   |  Tree  |  Ring  | ...`.
    Algos(Vec<&'a str>),
    /// 2.18+ `  Protocol    |  LL | LL128 | Simple | ...`.
    Protos(Vec<&'a str>),
    /// ` Max NThreads |  512 | ...`.
    MaxThreads(Vec<i64>),
    /// `    AllReduce |  6.8/ 22.4 | ...`.
    Row(&'a str, Vec<(f64, f64)>),
}

/// Classify one message.
pub(crate) fn classify(msg: &str) -> Rec<'_> {
    let Some(&c0) = msg.as_bytes().first() else { return Rec::Empty };
    if msg.bytes().all(|b| b == b' ' || b == b'\t') {
        return Rec::Empty;
    }
    let parsed = match c0 {
        b' ' => leading_space(msg),
        b'=' => system_header(msg),
        b'+' => sys_line(msg),
        b'0'..=b'9' => digits_first(msg),
        b'[' => bracket_first(msg),
        _ => word_first(msg),
    };
    if let Some(r) = parsed {
        return r;
    }
    if let Some(r) = rccl_only(msg) {
        return r;
    }
    if known::is_known(msg) { Rec::Known } else { Rec::Unknown }
}

/// Messages that start with spaces: system children, graph channels `%2d :`, tuning rows.
fn leading_space(msg: &str) -> Option<Rec<'_>> {
    let t = sp(msg);
    match t.as_bytes().first()? {
        b'+' => sys_line(msg),
        b'0'..=b'9' => graph_channel(msg).map(Rec::GraphChannel),
        _ => tuning(msg).map(Rec::Tuning),
    }
}

fn digits_first(msg: &str) -> Option<Rec<'_>> {
    if let Some(c) = counts(msg) {
        return Some(Rec::Counts(c));
    }
    graph_channel(msg).map(Rec::GraphChannel)
}

fn bracket_first(msg: &str) -> Option<Rec<'_>> {
    if msg.starts_with("[Rank ") {
        return init(msg);
    }
    if msg.starts_with("[RINGS]") {
        return Some(Rec::Rccl("[RINGS] lines"));
    }
    None
}

fn word_first(msg: &str) -> Option<Rec<'_>> {
    let b = msg.as_bytes();
    // Node ids of the system print and the path lines.
    if b.len() > 4
        && b[3] == b'/'
        && system::is_node_type(&msg[..3])
        && let Some(r) = sys_line(msg).or_else(|| path_line(msg))
    {
        return Some(r);
    }
    match b[0] {
        b'C' => {
            if let Some(r) = msg.strip_prefix("Channel ") {
                return ring_order(r).map(Rec::RingOrder).or_else(|| conn(msg)).or_else(|| rccl_suffix(msg));
            }
            if msg.starts_with("Coll ") || msg.starts_with("CollNet ") {
                return collnet(msg);
            }
            if let Some(r) = msg.strip_prefix("Connected ") {
                return connected(r).or_else(|| rccl_suffix(msg));
            }
            if let Some(r) = msg.strip_prefix("CC ") {
                return Some(Rec::Detail { kind: "cc", value: r });
            }
            if msg.starts_with("Could not get speed from ") {
                return Some(Rec::Problem { kind: "net_speed_guessed", text: msg });
            }
            if msg.starts_with("Comm config ") {
                return comm_config(msg);
            }
        }
        b'R' => {
            if let Some(r) = msg.strip_prefix("Ring ") {
                return ring_link(r).or_else(|| conn(msg)).or_else(|| old_ring(r)).or_else(|| rccl_suffix(msg));
            }
            if msg.starts_with("RCCL") {
                return Some(Rec::Rccl("RCCL version or setting"));
            }
            // The one function name as wide as the tuning table's `%13s` column.
            if msg.starts_with("ReduceScatter |") {
                return tuning(msg).map(Rec::Tuning);
            }
        }
        b'T' => {
            if let Some(r) = msg.strip_prefix("Trees") {
                return trees(r).or_else(|| rccl_suffix(msg));
            }
            if let Some(r) = msg.strip_prefix("Tree ") {
                return tree(r);
            }
        }
        b'P' => {
            if let Some(r) = msg.strip_prefix("Pattern ") {
                return pattern(r);
            }
            if let Some(r) = msg.strip_prefix("P2P Chunksize set to ") {
                return nat(r).filter(|(_, x)| x.is_empty()).map(|_| Rec::Detail { kind: "p2p_chunksize", value: r });
            }
            if msg.starts_with("P2P is disabled between connected GPUs ") {
                return Some(Rec::Problem { kind: "p2p_disabled", text: msg });
            }
        }
        b'N' => {
            if let Some(r) = msg.strip_prefix("NCCL version ") {
                return version(r).map(Rec::Version);
            }
            if let Some(r) = msg.strip_prefix("NCCL git version ") {
                let (a, r) = word(r);
                let (b2, r) = word(sp1(r)?);
                return (!a.is_empty() && !b2.is_empty() && r.is_empty()).then_some(Rec::GitVersion);
            }
            if let Some(r) = msg.strip_prefix("NVLS Head") {
                return nvls_head(r);
            }
            if let Some(r) = msg.strip_prefix("NVLS Trees : ") {
                return nvls_trees(r);
            }
            if let Some(r) = msg.strip_prefix("NET/")
                && let Some(x) = net_line(r)
            {
                return Some(x);
            }
        }
        b'c' => {
            if let Some(r) = msg.strip_prefix("cudaDriverVersion ") {
                return nat(r).filter(|(_, x)| x.is_empty()).map(|_| Rec::Detail { kind: "cuda_driver", value: r });
            }
            if msg.starts_with("comm ") {
                return nodes(msg).map(Rec::Nodes).or_else(|| init(msg));
            }
        }
        b'n' => {
            if let Some(r) = msg.strip_prefix("ncclTopoGetCpuAffinity: Affinity for GPU ") {
                return affinity_new(r);
            }
            if msg.starts_with("nccl")
                && let Some(r) = init(msg)
            {
                return Some(r);
            }
        }
        b'S' => {
            if let Some(r) = msg.strip_prefix("Setting affinity for GPU ") {
                let (gpu, r) = nat32(r)?;
                let mask = r.strip_prefix(" to ")?;
                return (!mask.is_empty() && !mask.contains(' ')).then_some(Rec::Affinity {
                    gpu,
                    mask,
                    cpu: None,
                    new_form: false,
                });
            }
        }
        b'U' => {
            if let Some(r) = msg.strip_prefix("Using network ") {
                return (!r.trim().is_empty()).then_some(Rec::UsingNetwork(r));
            }
        }
        b't' => {
            if let Some(r) = msg.strip_prefix("threadThresholds ") {
                return thresholds(r);
            }
        }
        b'B' => {
            if let Some(r) = msg.strip_prefix("Bootstrap : Using").or_else(|| msg.strip_prefix("Bootstrap: Using")) {
                return Some(Rec::Detail { kind: "bootstrap", value: r.trim_start() });
            }
            if let Some(r) = msg.strip_prefix("Bootstrap timings ") {
                return Some(Rec::Detail { kind: "bootstrap_timings", value: r });
            }
        }
        b'I' => {
            if let Some(r) = msg.strip_prefix("Init timings") {
                return Some(Rec::Detail { kind: "init_timings", value: r.trim_start_matches([' ', ':', '-']) });
            }
        }
        b'L' => {
            if let Some(r) = msg.strip_prefix("Launch mode ") {
                return Some(Rec::Detail { kind: "launch_mode", value: r });
            }
            if msg.starts_with("Latency/AlgBw |") {
                return tuning(msg).map(Rec::Tuning);
            }
        }
        b'A' => {
            if let Some(r) = msg.strip_prefix("Assigned NET plugin ") {
                return Some(Rec::Detail { kind: "net_plugin", value: r });
            }
        }
        b'E' if msg == "Enabled NCCL Func/Proto/Algo Matrix:" => return Some(Rec::MatrixStart),
        b'G' => {
            if let Some(r) = msg.strip_prefix("GPU Direct RDMA ") {
                return gdr(r);
            }
        }
        _ => {}
    }
    env(msg)
}

// ---------------------------------------------------------------------------------------
// K1

fn version(s: &str) -> Option<VersionLine<'_>> {
    let (major, r) = nat32(s)?;
    let (minor, r) = nat32(r.strip_prefix('.')?)?;
    let (patch, r) = nat32(r.strip_prefix('.')?)?;
    let end = r.find(['+', ' ', '\t']).unwrap_or(r.len());
    let (suffix, r) = r.split_at(end);
    let cuda = match r.strip_prefix("+cuda") {
        Some(c) => {
            let (_, x) = nat(c)?;
            let (_, x) = nat(x.strip_prefix('.')?)?;
            if !x.is_empty() {
                return None;
            }
            Some(c)
        }
        None if r.is_empty() => None,
        None => return None,
    };
    if major != 2 {
        return None;
    }
    Some(VersionLine { major, minor, patch, suffix, cuda })
}

/// Parse the text after `NCCL version ` (shared with the bare-line reader).
pub(crate) fn version_text(s: &str) -> Option<VersionLine<'_>> {
    version(s)
}

// ---------------------------------------------------------------------------------------
// K2 / K3

fn init(msg: &str) -> Option<Rec<'_>> {
    let mut s = msg;
    let mut rank_prefix = None;
    if let Some(r) = s.strip_prefix("[Rank ") {
        let (v, r) = nat32(r)?;
        s = r.strip_prefix("] ")?;
        rank_prefix = Some(v);
    }
    let mut func = None;
    if !s.starts_with("comm ") {
        let (f, r) = ident(s)?;
        if !f.starts_with("nccl") {
            return None;
        }
        func = Some(f);
        s = r.strip_prefix(' ')?;
    }
    let (p, r) = ptr(s.strip_prefix("comm ")?)?;
    let (rank, r) = nat32(r.strip_prefix(" rank ")?)?;
    let (nranks, r) = nat32(r.strip_prefix(" nranks ")?)?;
    let (cuda_dev, mut r) = nat32(r.strip_prefix(" cudaDev ")?)?;
    let mut nvml_dev = None;
    if let Some(x) = r.strip_prefix(" nvmlDev ") {
        let (v, x) = nat32(x)?;
        nvml_dev = Some(v);
        r = x;
        if r == " - Init COMPLETE" {
            return Some(Rec::Old("comm line without busId"));
        }
    }
    let (bus_id, mut r) = hex(r.strip_prefix(" busId ")?)?;
    let (mut parent, mut split_count, mut color) = (None, None, None);
    if let Some(x) = r.strip_prefix(" parent ") {
        let (p, mut x) = ptr(x)?;
        parent = Some(p);
        if let Some(y) = x.strip_prefix(" splitCount ").or_else(|| x.strip_prefix(" childCount ")) {
            let (n, y) = nat(y)?;
            split_count = Some(n);
            x = y;
        }
        let (c, x) = int(x.strip_prefix(" color ")?)?;
        color = Some(c);
        let (_, x) = int(x.strip_prefix(" key ")?)?;
        r = x;
    }
    let mut comm_id = None;
    if let Some(x) = r.strip_prefix(" commId 0x") {
        let (v, x) = hex(x)?;
        comm_id = Some(v);
        r = x;
    }
    let r = r.strip_prefix(' ').unwrap_or(r);
    let phase = match r.strip_prefix("- ")? {
        "Init START" => InitPhase::Start,
        "Init COMPLETE" => InitPhase::Complete,
        "Abort COMPLETE" | "Destroy COMPLETE" => return Some(Rec::CommEnd),
        _ => return None,
    };
    Some(Rec::Init(Init {
        rank_prefix,
        func,
        ptr: p,
        rank,
        nranks,
        cuda_dev,
        nvml_dev,
        bus_id,
        parent,
        split_count,
        color,
        comm_id,
        phase,
    }))
}

fn nodes(msg: &str) -> Option<Nodes> {
    let (p, r) = ptr(msg.strip_prefix("comm ")?)?;
    let (rank, r) = nat32(r.strip_prefix(" rank ")?)?;
    let (nranks, r) = nat32(r.strip_prefix(" nRanks ")?)?;
    let (nnodes, r) = nat32(r.strip_prefix(" nNodes ")?)?;
    let (local_ranks, r) = nat32(r.strip_prefix(" localRanks ")?)?;
    let (local_rank, r) = nat32(r.strip_prefix(" localRank ")?)?;
    let (mnnvl, r) = nat32(r.strip_prefix(" MNNVL ")?)?;
    r.is_empty().then_some(Nodes { ptr: p, rank, nranks, nnodes, local_ranks, local_rank, mnnvl })
}

// ---------------------------------------------------------------------------------------
// K4 / K5 / K6 / K7

fn system_header(msg: &str) -> Option<Rec<'_>> {
    if msg.len() >= 20 && msg.bytes().all(|b| b == b'=') {
        return Some(Rec::SysEnd);
    }
    let s = msg.strip_prefix("=== System : ")?;
    let h = if let Some(r) = s.strip_prefix("maxWidth") {
        let (w, dec, r) = float(sp1(r)?)?;
        if let Some(x) = r.strip_prefix(" maxSpeed") {
            let (_, x) = nat(sp1(x)?)?;
            (dec == 0 && x == " ===").then_some(SysHeader {
                max_bw: w,
                total_bw: None,
                form: HeaderForm::WidthSpeed,
            })?
        } else if let Some(x) = r.strip_prefix(" totalWidth") {
            let (t, _, x) = float(sp1(x)?)?;
            (x == " ===").then_some(SysHeader { max_bw: w, total_bw: Some(t), form: HeaderForm::WidthTotal })?
        } else {
            (r == " ===").then_some(SysHeader { max_bw: w, total_bw: None, form: HeaderForm::Width })?
        }
    } else {
        let (w, _, r) = float(sp1(s.strip_prefix("maxBw")?)?)?;
        let (t, _, r) = float(sp1(r.strip_prefix(" totalBw")?)?)?;
        (r == " ===").then_some(SysHeader { max_bw: w, total_bw: Some(t), form: HeaderForm::Bw })?
    };
    Some(Rec::SysHeader(h))
}

fn sys_line(msg: &str) -> Option<Rec<'_>> {
    let t = sp(msg);
    let col = msg.len() - t.len();
    if let Some(r) = t.strip_prefix("+ ") {
        let (link, r) = upper(r)?;
        let r = sp(r.strip_prefix('[')?);
        let (bw, dec, r) = float(r)?;
        let r = r.strip_prefix("] - ")?;
        let node_col = msg.len() - r.len();
        let (node, rest) = system::parse_node(r)?;
        if !rest.is_empty() {
            return None;
        }
        if link == "XGMI" {
            return Some(Rec::Rccl("XGMI link"));
        }
        Some(Rec::SysLine(SysLine { col, node_col, link: Some((link, bw)), int_bw: dec == 0, node }))
    } else {
        if col != 0 {
            return None;
        }
        let (node, rest) = system::parse_node(t)?;
        if !rest.is_empty() {
            return None;
        }
        Some(Rec::SysLine(SysLine { col: 0, node_col: 0, link: None, int_bw: false, node }))
    }
}

fn path_line(msg: &str) -> Option<Rec<'_>> {
    let (_, r) = system::node_id(msg)?;
    let head = &msg[..msg.len() - r.len()];
    let mut r = r.strip_prefix(" :")?;
    let mut entries = Vec::new();
    let mut truncated = false;
    while !r.is_empty() {
        match path_item(r) {
            Some((item, rest)) => {
                entries.push(item);
                r = rest;
            }
            None => {
                if r.contains("/XGMI)") {
                    return Some(Rec::Rccl("XGMI path"));
                }
                truncated = true;
                break;
            }
        }
    }
    Some(Rec::Path(PathLine { head, entries, truncated }))
}

/// `TYPE/ID (h/bw/type) ` with the trailing space optional at the very end.
fn path_item(s: &str) -> Option<(PathItem<'_>, &str)> {
    let (_, r) = system::node_id(s)?;
    let to = &s[..s.len() - r.len()];
    let r = r.strip_prefix(" (")?;
    let (hops, r) = nat32(r)?;
    let (bw, bw_decimals, r) = float(r.strip_prefix('/')?)?;
    let r = r.strip_prefix('/')?;
    let n = r.bytes().take_while(|b| b.is_ascii_alphanumeric()).count();
    if n == 0 {
        return None;
    }
    let (kind, r) = r.split_at(n);
    let r = r.strip_prefix(')')?;
    let r = match r.strip_prefix(' ') {
        Some(x) => x,
        None if r.is_empty() => r,
        None => return None,
    };
    Some((PathItem { to, hops, bw, bw_decimals, kind }, r))
}

// ---------------------------------------------------------------------------------------
// K8 / K9

fn pattern(s: &str) -> Option<Rec<'_>> {
    let (pat, r) = int(s)?;
    let (crossnic, r) = int(r.strip_prefix(", crossNic ")?)?;
    let (nchannels, r) = nat32(r.strip_prefix(", nChannels ")?)?;
    let (speed, r) =
        if let Some(x) = r.strip_prefix(", speed ") { (true, x) } else { (false, r.strip_prefix(", bw ")?) };
    let (bw_intra, d1, r) = float(r)?;
    let (bw_inter, d2, r) = float(r.strip_prefix('/')?)?;
    let mut nvlink = None;
    let mut r = r;
    if let Some(x) = r.strip_prefix(", nvlink ") {
        let (v, x) = int(x)?;
        nvlink = Some(v);
        r = x;
    }
    let r = r.strip_prefix(", type ")?;
    let end = find(r, ", sameChannels ")?;
    let (types, r) = r.split_at(end);
    let (type_intra, type_inter) = match types.split_once('/') {
        Some((a, b)) => (a, b),
        None => (types, types),
    };
    let ok = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric());
    if !ok(type_intra) || !ok(type_inter) {
        return None;
    }
    let (same_channels, r) = int(&r[", sameChannels ".len()..])?;
    if !r.is_empty() {
        return None;
    }
    if type_intra == "XGMI" || type_inter == "XGMI" {
        return Some(Rec::Rccl("XGMI graph"));
    }
    Some(Rec::Pattern(Pattern {
        pattern: pat,
        crossnic,
        nchannels,
        speed,
        float: d1 > 0 || d2 > 0,
        bw_intra,
        bw_inter,
        nvlink,
        type_intra,
        type_inter,
        same_channels,
    }))
}

fn graph_channel(msg: &str) -> Option<GraphChannelLine<'_>> {
    let (channel, mut r) = nat32(sp(msg))?;
    r = r.strip_prefix(" :")?;
    let mut items = Vec::new();
    while !r.is_empty() {
        let x = r.strip_prefix(' ')?;
        let (net, x) = if let Some(y) = x.strip_prefix("NET/") { (true, y) } else { (false, x.strip_prefix("GPU/")?) };
        let (id, rest) = word(x);
        let valid = !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
        if !valid {
            return None;
        }
        items.push((net, id));
        r = rest;
    }
    if items.is_empty() {
        return None;
    }
    Some(GraphChannelLine { channel, items })
}

// ---------------------------------------------------------------------------------------
// K10 / K11 / K12 / K13 / K14

fn ring_order(s: &str) -> Option<RingOrderLine> {
    let (channel, r) = nat32(s)?;
    let (nchannels, r) = nat32(r.strip_prefix('/')?)?;
    let mut r = r.strip_prefix(" :")?;
    let lead = r.len() - sp(r).len();
    let mut order = Vec::new();
    let mut gaps = Vec::new();
    let mut ellipsis = false;
    loop {
        let t = sp(r);
        let gap = r.len() - t.len();
        if t.is_empty() {
            break;
        }
        if t == "..." {
            ellipsis = true;
            break;
        }
        if gap == 0 {
            // `...` can follow a cut number directly.
            if t.ends_with("...") && t[..t.len() - 3].bytes().all(|b| b.is_ascii_digit()) {
                ellipsis = true;
                break;
            }
            return None;
        }
        let (v, x) = nat(t)?;
        order.push(i64::try_from(v).ok()?);
        gaps.push(gap);
        r = x;
    }
    if order.is_empty() {
        return None;
    }
    // 2.5-2.22: `Channel NN/MM :` then ` %3d` at 4-byte steps: rank 0 (always first)
    // stands after 4 spaces and the next rank below 1000 after 3.
    let padded = lead == 4 && gaps.get(1).is_none_or(|&g| g <= 3);
    Some(RingOrderLine { channel, nchannels, order, padded, ellipsis })
}

fn ring_link(s: &str) -> Option<Rec<'_>> {
    let (channel, r) = nat32(s)?;
    let (prev, r) = int(r.strip_prefix(" : ")?)?;
    let (me, r) = nat32(r.strip_prefix(" -> ")?)?;
    let (next, r) = int(r.strip_prefix(" -> ")?)?;
    r.is_empty().then_some(Rec::RingLink { channel, prev, me, next })
}

/// Pre-2.5 `Ring 00 : 34 -> 33 [send] via NET/Socket/0`.
fn old_ring(s: &str) -> Option<Rec<'_>> {
    let (_, r) = nat32(s)?;
    let (_, r) = int(r.strip_prefix(" : ")?)?;
    let (_, r) = int(r.strip_prefix(" -> ")?)?;
    (r.starts_with(" [send] via ") || r.starts_with(" [receive] via ") || r.starts_with(" via "))
        .then_some(Rec::Old("ring connection without bus ids"))
}

fn three(s: &str) -> Option<([i64; 3], &str)> {
    let (a, r) = int(s)?;
    let (b, r) = int(r.strip_prefix('/')?)?;
    let (c, r) = int(r.strip_prefix('/')?)?;
    Some(([a, b, c], r))
}

fn trees(s: &str) -> Option<Rec<'_>> {
    let mut items = Vec::new();
    let mut r = s;
    let mut truncated = false;
    loop {
        if r.is_empty() {
            break;
        }
        match trees_item(r) {
            Some((it, rest)) => {
                items.push(it);
                r = rest;
            }
            None => {
                if items.is_empty() && old_trees_item(r) {
                    return Some(Rec::Old("Trees line up->me->down"));
                }
                if r.contains(" comm 0x") {
                    return None;
                }
                // A cut item: only the start of ` [c] ...` or of its numbers may remain.
                truncated = true;
                break;
            }
        }
    }
    // 2.5-2.7 print both trees of a channel in each item (`a/b/c->r->p|p->r->a/b/c`): an
    // item without its `|` half after items with one was cut at the end of NCCL's
    // 1023-byte record.
    if items.len() > 1 && items.last().is_some_and(|it| it.dn.is_none()) && items.iter().any(|it| it.dn.is_some()) {
        items.pop();
        truncated = true;
    }
    if items.is_empty() && !truncated {
        return None;
    }
    if items.is_empty() && !r.starts_with(" [") && !r.starts_with(' ') {
        return None;
    }
    Some(Rec::Trees(TreesLine { items, truncated }))
}

fn trees_item(s: &str) -> Option<(TreesItem, &str)> {
    let (channel, r) = nat32(s.strip_prefix(" [")?)?;
    let r = r.strip_prefix("] ")?;
    let (down, r) = three(r)?;
    let (me, r) = nat32(r.strip_prefix("->")?)?;
    let (up, r) = int(r.strip_prefix("->")?)?;
    let mut item = TreesItem { channel, me, up, down, dn: None };
    if let Some(x) = r.strip_prefix('|') {
        let (dn_up, x) = int(x)?;
        let (me2, x) = nat32(x.strip_prefix("->")?)?;
        let (dn_down, x) = three(x.strip_prefix("->")?)?;
        if me2 != me {
            return None;
        }
        item.dn = Some((dn_up, dn_down));
        return Some((item, x));
    }
    // The item ends at the next item or at the end.
    if r.is_empty() || r.starts_with(" [") { Some((item, r)) } else { None }
}

/// Pre-2.5 ` [0] 26->25->-1/-1/-1`.
fn old_trees_item(s: &str) -> bool {
    (|| {
        let (_, r) = nat32(s.strip_prefix(" [")?)?;
        let (_, r) = int(r.strip_prefix("] ")?)?;
        let (_, r) = nat32(r.strip_prefix("->")?)?;
        let (_, r) = three(r.strip_prefix("->")?)?;
        Some(r.is_empty() || r.starts_with(" ["))
    })()
    .unwrap_or(false)
}

fn tree(s: &str) -> Option<Rec<'_>> {
    let (channel, r) = nat32(s)?;
    let (up, r) = int(r.strip_prefix(" : ")?)?;
    let (me, r) = nat32(r.strip_prefix(" -> ")?)?;
    let (down, r) = three(r.strip_prefix(" -> ")?)?;
    r.is_empty().then_some(Rec::Tree { channel, up, me, down })
}

fn nvls_head(s: &str) -> Option<Rec<'_>> {
    let (channel, r) = nat32(sp1(s)?)?;
    let mut r = r.strip_prefix(':')?;
    let mut heads = Vec::new();
    while !r.is_empty() {
        let (v, x) = int(sp1(r)?)?;
        heads.push(v);
        r = x;
    }
    Some(Rec::NvlsHead { channel, heads })
}

fn nvls_trees(s: &str) -> Option<Rec<'_>> {
    // Channels 0 and 1: `d/d[/d]->me->up` each.
    let mut three_children = None;
    let mut items = [([-1i64; 3], 0u32, -1i64); 2];
    let mut r = s;
    for (i, item) in items.iter_mut().enumerate() {
        if i == 1 {
            r = r.strip_prefix(' ')?;
        }
        let mut v = Vec::new();
        r = int_list(r, &mut v)?;
        let (me, x) = nat32(r.strip_prefix("->")?)?;
        let (up, x) = int(x.strip_prefix("->")?)?;
        r = x;
        let is3 = match v.len() {
            2 => false,
            3 => true,
            _ => return None,
        };
        if *three_children.get_or_insert(is3) != is3 {
            return None;
        }
        for (k, d) in v.iter().enumerate() {
            item.0[k] = *d;
        }
        item.1 = me;
        item.2 = up;
    }
    r.is_empty().then_some(Rec::NvlsTrees { three: three_children?, items })
}

// ---------------------------------------------------------------------------------------
// K15 / K16

fn conn(msg: &str) -> Option<Rec<'_>> {
    let (ring_word, s) = match msg.strip_prefix("Ring ") {
        Some(r) => (true, r),
        None => (false, msg.strip_prefix("Channel ")?),
    };
    let (channel, mut r) = nat32(s)?;
    let mut c = Conn { ring_word, channel, ..Conn::default() };
    if let Some(x) = r.strip_prefix('/') {
        let (v, x) = nat32(x)?;
        c.conn = Some(v);
        r = x;
    }
    let (from, r) = int(r.strip_prefix(" : ")?)?;
    let r = r.strip_prefix('[')?;
    let end = r.find(']')?;
    let (from_id, r) = r.split_at(end);
    let (to, r) = int(r.strip_prefix("] -> ")?)?;
    let r = r.strip_prefix('[')?;
    let end = r.find(']')?;
    let (to_id, mut r) = r.split_at(end);
    r = &r[1..];
    let hexy = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit());
    if !hexy(from_id) || !hexy(to_id) {
        return None;
    }
    c.from = from;
    c.to = to;
    c.from_id = from_id;
    c.to_id = to_id;
    if let Some(x) = r.strip_prefix(" [send]") {
        c.side = Some("send");
        r = x;
    } else if let Some(x) = r.strip_prefix(" [receive]") {
        c.side = Some("receive");
        r = x;
    }
    via(r.strip_prefix(" via ")?, &mut c)?;
    Some(Rec::Conn(c))
}

/// The transport after ` via `; fills `c` and checks the text ends.
fn via<'a>(s: &'a str, c: &mut Conn<'a>) -> Option<()> {
    if let Some(r) = s.strip_prefix("P2P/") {
        c.transport = "P2P";
        let modes = ["IPC", "CUMEM", "MNNVL", "direct pointer", "common device"];
        let mut r = if let Some(x) = r.strip_prefix("indirect/") {
            c.mode = "indirect";
            let (_, x) = nat(x)?;
            let x = x.strip_prefix('[')?;
            let (_, x) = hex(x)?;
            x.strip_prefix(']')?
        } else {
            let m = modes.iter().find(|m| r.starts_with(**m))?;
            c.mode = &r[..m.len()];
            &r[m.len()..]
        };
        loop {
            if let Some(x) = r.strip_prefix("/read") {
                c.read = true;
                r = x;
            } else if let Some(x) = r.strip_prefix("/CE") {
                c.ce = true;
                r = x;
            } else {
                break;
            }
        }
        return r.is_empty().then_some(());
    }
    if let Some(r) = s.strip_prefix("SHM/") {
        c.transport = "SHM";
        let side = |x: &'a str| x.strip_prefix("direct").or_else(|| x.strip_prefix("CE"));
        let r1 = side(r)?;
        if r1.is_empty() {
            c.mode = r;
            c.shm_one = true;
            return Some(());
        }
        let r2 = side(r1.strip_prefix('/')?)?;
        c.mode = r;
        c.ce = r.contains("CE");
        return r2.is_empty().then_some(());
    }
    if s == "direct shared memory" {
        c.transport = "SHM";
        c.mode = s;
        return Some(());
    }
    let r = s.strip_prefix("NET/")?;
    c.transport = "NET";
    // Parse from the right: `/dev` `(proxy)`? `/GDRDMA`? `(PCI)`? `/Shared`?
    let mut t = r;
    if let Some(x) = t.strip_suffix("/Shared") {
        c.shared = true;
        t = x;
    }
    if let Some(x) = t.strip_suffix("(PCI)") {
        c.gdr_pci = true;
        t = x;
    }
    if let Some(x) = t.strip_suffix("/GDRDMA") {
        c.gdr = true;
        t = x;
    }
    if let Some(x) = t.strip_suffix(')') {
        let open = x.rfind('(')?;
        let (v, rest) = int(&x[open + 1..])?;
        if !rest.is_empty() {
            return None;
        }
        c.proxy = Some(v);
        t = &x[..open];
    }
    let slash = t.rfind('/')?;
    let (dev, rest) = nat32(&t[slash + 1..])?;
    if !rest.is_empty() || slash == 0 {
        return None;
    }
    c.net_dev = Some(dev);
    c.mode = &t[..slash];
    Some(())
}

/// `Coll 00 : 3 [send] via COLLNET/SHARP/0` (2.6-2.8), `CollNet 00[/c] : ...` (2.9+).
fn collnet(msg: &str) -> Option<Rec<'_>> {
    let s = msg.strip_prefix("CollNet ").or_else(|| msg.strip_prefix("Coll "))?;
    let (channel, mut r) = nat32(s)?;
    let mut c = Conn { channel, transport: "COLLNET", to: -1, ..Conn::default() };
    if let Some(x) = r.strip_prefix('/') {
        let (v, x) = nat32(x)?;
        c.conn = Some(v);
        r = x;
    }
    let (rank, r) = int(r.strip_prefix(" : ")?)?;
    c.from = rank;
    let r = if let Some(x) = r.strip_prefix(" [send]") {
        c.side = Some("send");
        x
    } else {
        c.side = Some("receive");
        r.strip_prefix(" [receive]")?
    };
    let mut t = r.strip_prefix(" via COLLNET/")?;
    if let Some(x) = t.strip_suffix("(PCI)") {
        c.gdr_pci = true;
        t = x;
    }
    if let Some(x) = t.strip_suffix("/GDRDMA") {
        c.gdr = true;
        t = x;
    }
    let slash = t.rfind('/')?;
    let (dev, rest) = nat32(&t[slash + 1..])?;
    if !rest.is_empty() {
        return None;
    }
    c.net_dev = Some(dev);
    c.mode = &t[..slash];
    Some(Rec::Conn(c))
}

fn connected(r: &str) -> Option<Rec<'_>> {
    if let Some(x) = r.strip_prefix("all rings") {
        if x.is_empty() {
            return Some(Rec::Connected { what: "rings", pxn: None, gdr: None });
        }
        let (pxn, x) = int(x.strip_prefix(", use ring PXN ")?)?;
        let (gdr, x) = int(x.strip_prefix(" GDR ")?)?;
        return x.is_empty().then_some(Rec::Connected { what: "rings", pxn: Some(pxn), gdr: Some(gdr) });
    }
    let what = match r {
        "all trees" => "trees",
        "NVLS tree" => "nvls_tree",
        "collnet + chain" => "collnet_chain",
        _ if r.starts_with("Collnet Chains") => "collnet_chain",
        _ => return None,
    };
    Some(Rec::Connected { what, pxn: None, gdr: None })
}

/// RCCL appends ` comm 0x... nRanks NN [busId X]` to messages NCCL ends earlier.
fn rccl_suffix(msg: &str) -> Option<Rec<'_>> {
    let i = find(msg, " comm 0x")?;
    let tail = &msg[i + " comm ".len()..];
    let (_, r) = ptr(tail)?;
    let (_, r) = nat(r.strip_prefix(" nRanks ")?)?;
    let ok = r.is_empty() || r.strip_prefix(" busId ").and_then(hex).is_some_and(|(_, x)| x.is_empty());
    ok.then_some(Rec::Rccl("comm/nRanks suffix"))
}

// ---------------------------------------------------------------------------------------
// K17 / K18 / K19 / K20

fn is_env_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_uppercase()
        && b.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
}

/// `4.` (numeric NCCL_PARAM) reads `4`.
fn env_value(v: &str) -> &str {
    match v.strip_suffix('.') {
        Some(n) if int(n).is_some_and(|(_, r)| r.is_empty()) => n,
        _ => v,
    }
}

fn env(msg: &str) -> Option<Rec<'_>> {
    for (sep, source) in [(" set by environment to ", "environment"), (" set from environment to ", "environment")] {
        if let Some(i) = find(msg, sep) {
            let name = &msg[..i];
            if is_env_name(name) {
                if name.starts_with("RCCL_") {
                    return Some(Rec::Rccl("RCCL_ variable"));
                }
                return Some(Rec::Env { name, value: env_value(&msg[i + sep.len()..]), source });
            }
        }
    }
    if let Some(i) = find(msg, " set to ") {
        let name = &msg[..i];
        if is_env_name(name) && name.starts_with("NCCL_") {
            return Some(Rec::Env { name, value: &msg[i + " set to ".len()..], source: "set" });
        }
    }
    // Plugins that set NCCL's variables (aws-ofi-nccl: `..., Setting NCCL_TOPO_FILE
    // environment variable to /path`).
    if let Some(i) = find(msg, "Setting NCCL_") {
        let r = &msg[i + "Setting ".len()..];
        let (name, r) = word(r);
        if let Some(v) = r.strip_prefix(" environment variable to ")
            && is_env_name(name)
            && !v.is_empty()
        {
            return Some(Rec::Env { name, value: v, source: "plugin" });
        }
    }
    None
}

/// `Comm config X reset to NCCL_Y=V` (2.27+).
fn comm_config(msg: &str) -> Option<Rec<'_>> {
    let i = find(msg, " reset to ")?;
    let (name, value) = msg[i + " reset to ".len()..].split_once('=')?;
    (is_env_name(name) && name.starts_with("NCCL_")).then_some(Rec::Env { name, value, source: "config" })
}

/// After `NET/`: `IB : Using ...`, `Socket : Using ...`, GDR per HCA, `IB : No device found.`.
fn net_line(r: &str) -> Option<Rec<'_>> {
    let i = r.find(':')?;
    let kind = r[..i].trim_end();
    if kind.is_empty() {
        return None;
    }
    let rest = &r[i + 1..];
    if let Some(u) = rest.strip_prefix(" Using") {
        return Some(Rec::NetUsing { kind, rest: u });
    }
    if let Some(g) = rest.strip_prefix(" GPU Direct RDMA ") {
        return gdr(g);
    }
    if rest == " No device found." {
        return Some(Rec::Detail { kind: "net_no_device", value: kind });
    }
    None
}

fn gdr(r: &str) -> Option<Rec<'_>> {
    let (enabled, r) = if let Some(x) = r.strip_prefix("Enabled for ") {
        (true, x)
    } else {
        (false, r.strip_prefix("Disabled for ")?)
    };
    if let Some(x) = r.strip_prefix("HCA ") {
        // `HCA 0 'eno1'` [` (no module)`]
        let (nic, x) = word(x);
        let x = x.strip_prefix(" '")?;
        let end = x.rfind('\'')?;
        return Some(Rec::Gdr(Gdr { enabled, gpu: None, nic, nic_name: Some(&x[..end]), detail: x[end + 1..].trim() }));
    }
    if let Some(x) = r.strip_prefix("GPU ") {
        // `GPU 7000 / HCA 0 (distance 4 <= 3), read 1 [mode X]`
        let (gpu, x) = word(x);
        let x = x.strip_prefix(" / HCA ")?;
        let (nic, x) = word(x);
        return Some(Rec::Gdr(Gdr { enabled, gpu: Some(gpu), nic, nic_name: None, detail: x.trim() }));
    }
    // 2.29: `GPU/0-7000 (rank 0) - NET/0-1 (...)`
    if r.starts_with("GPU/") {
        let (gpu, x) = word(r);
        let i = x.find("NET/")?;
        let (nic, x) = word(&x[i..]);
        return Some(Rec::Gdr(Gdr { enabled, gpu: Some(gpu), nic, nic_name: None, detail: x.trim() }));
    }
    None
}

fn affinity_new(r: &str) -> Option<Rec<'_>> {
    let (gpu, r) = nat32(r)?;
    let r = r.strip_prefix(" is ")?;
    let i = find(r, ". (GPU affinity = ")?;
    let mask = &r[..i];
    let r = &r[i + ". (GPU affinity = ".len()..];
    let r = r.strip_suffix(").")?;
    let cpu = r.split_once(" ; CPU affinity = ").map(|(_, c)| c);
    Some(Rec::Affinity { gpu, mask, cpu, new_form: true })
}

// ---------------------------------------------------------------------------------------
// K21 / K22 / K23

fn thresholds(r: &str) -> Option<Rec<'_>> {
    let mut groups = Vec::new();
    for g in r.split(" | ") {
        let mut v = Vec::new();
        let rest = int_list(g, &mut v)?;
        if !rest.is_empty() {
            return None;
        }
        groups.push(v);
    }
    Some(Rec::Thresholds(groups))
}

fn counts(msg: &str) -> Option<Counts> {
    let (coll, r) = nat32(msg)?;
    let mut r = r.strip_prefix(" coll channels, ")?;
    let mut nums = Vec::new();
    let mut collnet = None;
    let mut nvls = None;
    loop {
        let (v, x) = nat32(r)?;
        if let Some(y) = x.strip_prefix(" collnet channels, ") {
            collnet = Some(v);
            r = y;
        } else if let Some(y) = x.strip_prefix(" nvls channels, ") {
            nvls = Some(v);
            r = y;
        } else if let Some(y) = x.strip_prefix(" p2p channels, ") {
            nums.push(v);
            r = y;
        } else if x == " p2p channels per peer" {
            nums.push(v);
            break;
        } else {
            return None;
        }
    }
    if nums.len() != 2 {
        return None;
    }
    Some(Counts { coll, collnet, nvls, p2p: nums[0], p2p_per_peer: nums[1] })
}

/// Cells between `|`: the text after the first `|`, split, the empty last one dropped.
fn cells(s: &str) -> Option<(&str, Vec<&str>)> {
    let (head, rest) = s.split_once('|')?;
    let mut v: Vec<&str> = rest.split('|').collect();
    if v.last().is_some_and(|l| l.trim().is_empty()) {
        v.pop();
    }
    Some((head, v))
}

fn tuning(msg: &str) -> Option<TuneLine<'_>> {
    let (head, cs) = cells(msg)?;
    if cs.is_empty() {
        return None;
    }
    match head {
        "Latency/AlgBw " => {
            let mut pairs = Vec::new();
            for c in cs {
                let (a, p) = c.trim().split_once('/')?;
                pairs.push((a.trim(), p.trim()));
            }
            Some(TuneLine::Pairs(pairs))
        }
        "  Algorithm   " => {
            let v: Vec<&str> = cs.iter().map(|c| c.trim()).collect();
            v.iter().all(|a| ident(a).is_some_and(|(_, r)| r.is_empty())).then_some(TuneLine::Algos(v))
        }
        "  Protocol    " => {
            let v: Vec<&str> = cs.iter().map(|c| c.trim()).collect();
            v.iter().all(|a| ident(a).is_some_and(|(_, r)| r.is_empty())).then_some(TuneLine::Protos(v))
        }
        " Max NThreads " => {
            let mut v = Vec::new();
            for c in cs {
                let (n, r) = int(c.trim())?;
                if !r.is_empty() {
                    return None;
                }
                v.push(n);
            }
            Some(TuneLine::MaxThreads(v))
        }
        _ => {
            let (func, r) = ident(sp(head))?;
            if r != " " {
                return None;
            }
            let mut v = Vec::new();
            for c in cs {
                let (a, b) = c.trim().split_once('/')?;
                let lat: f64 = a.trim().parse().ok()?;
                let bw: f64 = b.trim().parse().ok()?;
                v.push((lat, bw));
            }
            Some(TuneLine::Row(func, v))
        }
    }
}

// ---------------------------------------------------------------------------------------
// RCCL

/// Messages only RCCL prints.
fn rccl_only(msg: &str) -> Option<Rec<'_>> {
    const OPENINGS: &[&str] = &[
        "RCCL version",
        "Kernel version",
        "ROCr version",
        "Hipruntime version",
        "HIP version",
        "ROCm version",
        "Librccl path",
        "Dmabuf feature disabled without NCCL_DMABUF_ENABLE=1",
        "NET/Plugin: No plugin found (librccl-net.so)",
        "NET/Plugin : No plugin found (librccl-net.so)",
        "RCCL enabled same node P2P over network",
        "[RINGS]",
    ];
    if OPENINGS.iter().any(|o| msg.starts_with(o)) {
        return Some(Rec::Rccl("RCCL message"));
    }
    if msg.contains("HSA_FORCE_FINE_GRAIN_PCIE") || msg.contains("Missing \"iommu=pt\"") {
        return Some(Rec::Rccl("RCCL message"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(msg: &str) -> String {
        let r = classify(msg);
        let s = format!("{r:?}");
        s.split(['(', ' ', '{']).next().unwrap_or_default().to_string()
    }

    #[test]
    fn version_lines() {
        let Rec::Version(v) = classify("NCCL version 2.23.4+cuda12.4") else { panic!() };
        assert_eq!((v.major, v.minor, v.patch, v.suffix, v.cuda), (2, 23, 4, "", Some("12.4")));
        let Rec::Version(v) = classify("NCCL version 2.18.3-msccl+cuda11.7") else { panic!() };
        assert_eq!((v.suffix, v.cuda), ("-msccl", Some("11.7")));
        assert_eq!(kind("NCCL version 2.23.4+cuda12.4 and more"), "Unknown");
        assert_eq!(kind("NCCL git version master v2.29.2-1-g1234"), "GitVersion");
    }

    #[test]
    fn init_lines_of_every_release() {
        // 2.5-2.15
        let Rec::Init(i) = classify("comm 0x7f00 rank 1 nranks 4 cudaDev 1 busId 7000 - Init COMPLETE") else {
            panic!()
        };
        assert_eq!((i.rank, i.nranks, i.bus_id, i.comm_id, i.phase), (1, 4, 0x7000, None, InitPhase::Complete));
        // 2.16-2.18.1
        let Rec::Init(i) = classify("comm 0x7f00 rank 1 nranks 4 cudaDev 1 busId 101c0 commId 0xabc - Init COMPLETE")
        else {
            panic!()
        };
        assert_eq!((i.bus_id, i.comm_id), (0x101c0, Some(0xabc)));
        // 2.18.3-2.20
        let Rec::Init(i) =
            classify("comm 0x7f00 rank 0 nranks 8 cudaDev 0 nvmlDev 2 busId 18000 commId 0x1 - Init START")
        else {
            panic!()
        };
        assert_eq!((i.nvml_dev, i.phase), (Some(2), InitPhase::Start));
        // 2.21+ with a function name, split forms (note 2.23's missing space before `-`)
        let Rec::Init(i) = classify(
            "ncclCommInitRankConfig comm 0x5733 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 8000 commId 0x4ba8 - Init START",
        ) else {
            panic!()
        };
        assert_eq!(i.func, Some("ncclCommInitRankConfig"));
        let Rec::Init(i) = classify(
            "ncclCommSplit comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 7000 parent 0x2 splitCount 1 color 3 key -1- Init START",
        ) else {
            panic!()
        };
        assert_eq!(i.parent, Some(2));
        let Rec::Init(i) = classify(
            "[Rank 3] ncclCommInitRank comm 0x1 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId c000 commId 0x9 - Init START",
        ) else {
            panic!()
        };
        assert_eq!(i.rank_prefix, Some(3));
        assert_eq!(kind("comm 0x1 rank 0 nranks 2 cudaDev 0 busId 7000 - Destroy COMPLETE"), "CommEnd");
        assert_eq!(kind("comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE"), "Old");
        let Rec::Nodes(n) = classify("comm 0x55 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0") else {
            panic!()
        };
        assert_eq!((n.nranks, n.nnodes, n.local_ranks), (16, 2, 8));
    }

    #[test]
    fn system_headers() {
        let h = |m: &str| match classify(m) {
            Rec::SysHeader(h) => (h.max_bw, h.total_bw, h.form),
            other => panic!("{other:?}"),
        };
        assert_eq!(h("=== System : maxWidth  6 maxSpeed 12 ==="), (6.0, None, HeaderForm::WidthSpeed));
        assert_eq!(h("=== System : maxWidth 1.2 ==="), (1.2, None, HeaderForm::Width));
        assert_eq!(h("=== System : maxWidth 252.0 totalWidth 252.0 ==="), (252.0, Some(252.0), HeaderForm::WidthTotal));
        assert_eq!(h("=== System : maxBw 48.0 totalBw 370.8 ==="), (48.0, Some(370.8), HeaderForm::Bw));
        assert_eq!(kind("=========================================="), "SysEnd");
    }

    #[test]
    fn system_lines() {
        let Rec::SysLine(l) = classify("              + NVL[48.0] - GPU/0-8000") else { panic!() };
        assert_eq!((l.col, l.node_col, l.link), (14, 28, Some(("NVL", 48.0))));
        let Rec::SysLine(l) = classify("+ PCI[ 6] - GPU/8C000 (3)") else { panic!() };
        assert!(l.int_bw);
        assert_eq!(l.node.rank, Some(3));
        let Rec::SysLine(l) = classify("CPU/0-ffffffffffffff (1/2/-1)") else { panic!() };
        assert!(l.link.is_none());
        assert_eq!(kind("+ XGMI[40.0] - GPU/0-8000"), "Rccl");
        assert_eq!(kind("CPU/0 (1/1/2) trailing"), "Unknown");
    }

    #[test]
    fn path_lines() {
        let Rec::Path(p) = classify(
            "GPU/0-7000 :GPU/0-7000 (0/5000.0/LOC) GPU/0-8000 (1/48.0/NVL) CPU/0-ffffffffffffff (1/24.0/PHB) ",
        ) else {
            panic!()
        };
        assert_eq!(p.head, "GPU/0-7000");
        assert_eq!(p.entries.len(), 3);
        assert!(!p.truncated);
        assert_eq!(
            (p.entries[1].to, p.entries[1].hops, p.entries[1].bw, p.entries[1].kind),
            ("GPU/0-8000", 1, 48.0, "NVL")
        );
        let Rec::Path(p) = classify("NET/0-1 :GPU/0-26000 (3/1.2/PHB) NET/0-1 (0/5000.0/L") else { panic!() };
        assert_eq!((p.entries.len(), p.truncated), (1, true));
        let Rec::Path(p) = classify("GPU/F000 :GPU/F000 (0/5000.000000/LOC) GPU/10000 (4/24.000000/PHB) ") else {
            panic!()
        };
        assert_eq!(p.entries[1].bw_decimals, 6);
        // 2.5: integer width and link-type index.
        let Rec::Path(p) = classify("GPU/7000 :GPU/7000 (0/0/0) GPU/8000 (1/21/1) ") else { panic!() };
        assert_eq!(p.entries[1].kind, "1");
    }

    #[test]
    fn patterns_and_channels() {
        let Rec::Pattern(p) =
            classify("Pattern 4, crossNic 0, nChannels 4, speed 1.200000/1.200000, type SYS/SYS, sameChannels 0")
        else {
            panic!()
        };
        assert!(p.speed && p.float);
        let Rec::Pattern(p) =
            classify("Pattern 2, crossNic 0, nChannels 2, speed 21/21, nvlink 1, type 1, sameChannels 1")
        else {
            panic!()
        };
        assert_eq!((p.nvlink, p.type_intra, p.float), (Some(1), "1", false));
        assert_eq!(kind("Pattern 4, crossNic 0, Bw 1/1, type NVL/PIX"), "Unknown");
        let Rec::GraphChannel(g) = classify(" 0 : NET/3 GPU/0 GPU/1 NET/2") else { panic!() };
        assert_eq!(g.items, vec![(true, "3"), (false, "0"), (false, "1"), (true, "2")]);
        let Rec::GraphChannel(g) = classify("12 : GPU/0-26000 GPU/0-41000") else { panic!() };
        assert_eq!(g.channel, 12);
        assert_eq!(kind("0 "), "Unknown");
    }

    #[test]
    fn rings_and_trees() {
        let Rec::RingOrder(o) = classify("Channel 00/02 :    0   1   2   3") else { panic!() };
        assert!(o.padded);
        assert_eq!(o.order, vec![0, 1, 2, 3]);
        let Rec::RingOrder(o) = classify("Channel 01/16 :  0  3  1 15") else { panic!() };
        assert!(!o.padded);
        let Rec::RingOrder(o) = classify("Channel 00/02 : 0 1 2 3 4 5...") else { panic!() };
        assert!(o.ellipsis);
        assert_eq!(kind("Ring 03 : 15 -> 0 -> 1"), "RingLink");
        assert_eq!(kind("Ring 00 : 34 -> 33 [send] via NET/Socket/0"), "Old");
        assert_eq!(kind("Ring 00 : 1 -> 2 -> 3 comm 0x55 nRanks 04 busId 23000"), "Rccl");
        let Rec::Trees(t) =
            classify("Trees [0] 14/-1/-1->13->12|12->13->14/-1/-1 [1] -1/-1/-1->13->12|12->13->-1/-1/-1")
        else {
            panic!()
        };
        assert_eq!(t.items[1].dn, Some((12, [-1, -1, -1])));
        let Rec::Trees(t) = classify("Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1 [2] 0/-1/-1->1") else { panic!() };
        assert_eq!((t.items.len(), t.truncated), (2, true));
        assert_eq!(kind("Trees [0] 26->25->-1/-1/-1"), "Old");
        assert_eq!(kind("Trees [0] 1/-1/-1->0->-1 comm 0x1 nRanks 08 busId 23000"), "Rccl");
        assert_eq!(kind("Tree 1 : -1 -> 1 -> 0/-1/-1"), "Tree");
        let Rec::NvlsHead { channel, heads } = classify("NVLS Head  3:  3 11") else { panic!() };
        assert_eq!((channel, heads), (3, vec![3, 11]));
        assert_eq!(
            classify("NVLS Trees : 1/2->0->-1 3/4->0->-1"),
            Rec::NvlsTrees { three: false, items: [([1, 2, -1], 0, -1), ([3, 4, -1], 0, -1)] }
        );
        assert!(matches!(classify("NVLS Trees : 1/2/-1->0->-1 3/4/-1->0->-1"), Rec::NvlsTrees { three: true, .. }));
    }

    #[test]
    fn connections() {
        fn c(m: &str) -> Conn<'_> {
            match classify(m) {
                Rec::Conn(c) => c,
                other => panic!("{m}: {other:?}"),
            }
        }
        let x = c("Channel 00 : 8[101c0] -> 9[101d0] via P2P/IPC/read");
        assert_eq!((x.transport, x.mode, x.read, x.conn), ("P2P", "IPC", true, None));
        let x = c("Channel 01 : 7[a01d0] -> 8[101c0] [send] via NET/AWS Libfabric/0/GDRDMA");
        assert_eq!((x.mode, x.net_dev, x.gdr, x.side), ("AWS Libfabric", Some(0), true, Some("send")));
        let x = c("Channel 02/1 : 3[3] -> 9[1] [send] via NET/IB/1(2)/GDRDMA(PCI)/Shared");
        assert_eq!((x.proxy, x.gdr, x.gdr_pci, x.shared, x.conn), (Some(2), true, true, true, Some(1)));
        let x = c("Channel 00 : 2[2] -> 3[3] via SHM/direct/direct");
        assert!(!x.shm_one);
        assert!(c("Channel 00 : 2[2] -> 3[3] via SHM/direct").shm_one);
        assert_eq!(c("Ring 00 : 0[6000] -> 1[7000] via P2P/common device").mode, "common device");
        assert_eq!(c("Ring 00 : 0[6000] -> 1[7000] via direct shared memory").transport, "SHM");
        assert!(c("Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read/CE").ce);
        assert_eq!(c("Channel 00 : 1[7000] -> 0[6000] via P2P/indirect/2[a000]").mode, "indirect");
        assert_eq!(c("CollNet 00/1 : 3 [send] via COLLNET/SHARP/0/GDRDMA").transport, "COLLNET");
        assert_eq!(kind("Channel 00 : 1[1] -> 0[0] via P2P/IPC comm 0x1 nRanks 08"), "Rccl");
    }

    #[test]
    fn settings_and_counts() {
        assert_eq!(
            classify("NCCL_MIN_NCHANNELS set by environment to 4."),
            Rec::Env { name: "NCCL_MIN_NCHANNELS", value: "4", source: "environment" }
        );
        assert_eq!(
            classify("NCCL_ALGO set by environment to Tree,Ring,,NVLS"),
            Rec::Env { name: "NCCL_ALGO", value: "Tree,Ring,,NVLS", source: "environment" }
        );
        assert_eq!(
            classify("NET/OFI Running on X, Setting NCCL_TOPO_FILE environment variable to /a/b.xml"),
            Rec::Env { name: "NCCL_TOPO_FILE", value: "/a/b.xml", source: "plugin" }
        );
        assert_eq!(
            classify("Comm config minCTAs reset to NCCL_MIN_CTAS=4"),
            Rec::Env { name: "NCCL_MIN_CTAS", value: "4", source: "config" }
        );
        assert_eq!(kind("RCCL_MSCCL_ENABLE set by environment to 0."), "Rccl");
        let Rec::Counts(c) =
            classify("4 coll channels, 4 collnet channels, 0 nvls channels, 4 p2p channels, 4 p2p channels per peer")
        else {
            panic!()
        };
        assert_eq!((c.coll, c.collnet, c.nvls, c.p2p, c.p2p_per_peer), (4, Some(4), Some(0), 4, 4));
        assert_eq!(
            classify("threadThresholds 8/8/64 | 16/8/64 | 512 | 512"),
            Rec::Thresholds(vec![vec![8, 8, 64], vec![16, 8, 64], vec![512], vec![512]])
        );
        assert_eq!(kind("Using network AWS Libfabric"), "UsingNetwork");
        assert_eq!(kind("NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>"), "NetUsing");
        let Rec::Gdr(g) = classify("NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eno1'") else { panic!() };
        assert_eq!((g.enabled, g.nic, g.nic_name), (false, "0", Some("eno1")));
        let Rec::Gdr(g) = classify("GPU Direct RDMA Enabled for GPU 7000 / HCA 0 (distance 4 <= 5), read 1") else {
            panic!()
        };
        assert_eq!(g.gpu, Some("7000"));
        let Rec::Affinity { mask, cpu, .. } = classify(
            "ncclTopoGetCpuAffinity: Affinity for GPU 2 is 8-15. (GPU affinity = 8-15 ; CPU affinity = 8-15).",
        ) else {
            panic!()
        };
        assert_eq!((mask, cpu), ("8-15", Some("8-15")));
        assert_eq!(kind("Setting affinity for GPU 5 to ffffff00,0000ffff"), "Affinity");
        let Rec::Gdr(g) = classify(
            "GPU Direct RDMA Enabled for GPU/0-7000 (rank 0) - NET/0-1 (distance 3 <= 4), read 1 mode Default",
        ) else {
            panic!()
        };
        assert_eq!((g.gpu, g.nic), (Some("GPU/0-7000"), "NET/0-1"));
        let Rec::Gdr(g) = classify("NET/IB : GPU Direct RDMA Disabled for GPU 7000 / HCA 0 (distance 4 >= 3)") else {
            panic!()
        };
        assert_eq!((g.enabled, g.gpu, g.nic), (false, Some("7000"), "0"));
        let Rec::Affinity { mask, cpu, .. } = classify(
            "ncclTopoGetCpuAffinity: Affinity for GPU 0 is empty, ignoring. (GPU affinity = 0-7 ; CPU affinity = 8-15).",
        ) else {
            panic!()
        };
        assert_eq!((mask, cpu), ("empty, ignoring", Some("8-15")));
        assert_eq!(kind("Connected all rings, use ring PXN 0 GDR 1"), "Connected");
        assert_eq!(kind("Connected all trees"), "Connected");
    }

    #[test]
    fn tuning_tables() {
        assert_eq!(
            classify("Latency/AlgBw |    Tree/    LL |    Tree/ LL128 |"),
            Rec::Tuning(TuneLine::Pairs(vec![("Tree", "LL"), ("Tree", "LL128")]))
        );
        assert_eq!(
            classify("  Algorithm   |                   Tree                   |"),
            Rec::Tuning(TuneLine::Algos(vec!["Tree"]))
        );
        assert_eq!(
            classify("  Protocol    |             LL |          LL128 |         Simple |"),
            Rec::Tuning(TuneLine::Protos(vec!["LL", "LL128", "Simple"]))
        );
        assert_eq!(
            classify(" Max NThreads |            512 |            640 |            512 |"),
            Rec::Tuning(TuneLine::MaxThreads(vec![512, 640, 512]))
        );
        assert_eq!(
            classify("    AllReduce |    10.4/   1.2 |    12.0/   0.0 |"),
            Rec::Tuning(TuneLine::Row("AllReduce", vec![(10.4, 1.2), (12.0, 0.0)]))
        );
        // 2.5 rows have no space before `|`.
        assert_eq!(
            classify("    AllReduce |    4.4/  5.0|"),
            Rec::Tuning(TuneLine::Row("AllReduce", vec![(4.4, 5.0)]))
        );
        assert_eq!(
            classify("ReduceScatter |    6.3/  9.1 |    0.0/  0.0 |"),
            Rec::Tuning(TuneLine::Row("ReduceScatter", vec![(6.3, 9.1), (0.0, 0.0)]))
        );
    }

    #[test]
    fn known_unknown_and_rccl() {
        assert_eq!(kind("init.cc:1714 Cuda Host Alloc Size 4 pointer 0x7582"), "Known");
        assert_eq!(kind("Node Type: GPU, ID: 0000:3b:00.0"), "Unknown");
        assert_eq!(kind("RCCL version 2.6.4+hip3.5"), "Rccl");
        assert_eq!(kind("Kernel version: 5.15"), "Rccl");
        assert_eq!(kind(""), "Empty");
        assert_eq!(kind("   "), "Empty");
        assert_eq!(kind("P2P Chunksize set to 524288"), "Detail");
        assert_eq!(kind("P2P is disabled between connected GPUs 1 and 0. This should not be the case"), "Problem");
    }
}
