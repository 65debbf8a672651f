//! The records: what one NCCL message says, once classified (`classify/`), and what the
//! assembler (`assemble/`) makes facts of. Kinds K1..K25 follow the research note on
//! NCCL's log grammar; the types of each family stand together, in the order of the
//! classifier's files: communicators (K1-K3), the system print (K4-K7), graphs (K8-K9),
//! rings and trees (K10-K14), connections (K15-K16), environment and tuning (K17-K23).

use super::facts::{CpuAttrs, NetAttrs};

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
    /// K3 `MNNVL busId 0x.. fabric UUID a.b cliqueId 0x.. state s healthMask 0x..`: a
    /// rank's NVLink fabric registration (2.20+).
    Fabric(FabricRec),
    /// K3 `MNNVL m cliqueId c cliqueSize n cliqueRank r [nvlDomainSize d]`: a rank's
    /// multi-node NVLink verdict (2.21+; nvlDomainSize from 2.30).
    Clique(CliqueRec),
    /// K3 `MNNVL rack serial S slot n tray n hostId n peerType n moduleId n`: the GPU's
    /// platform as NVML gives it, printed with NCCL_MNNVL_CLIQUE_ID=-2 (2.28.3+), whose
    /// clique is then a hash of the rack serial.
    RackSerial(RackRec<'a>),
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

// ---------------------------------------------------------------------------------------
// Communicators (K1-K3)

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

/// K3, a fabric registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FabricRec {
    pub bus_id: u64,
    /// The cluster UUID's two 64-bit halves, as printed (`%lx.%lx`).
    pub uuid: (u64, u64),
    pub clique_id: u32,
    pub state: u32,
    pub health_mask: u32,
}

/// K3, a GPU's rack (NVML platform info).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RackRec<'a> {
    pub serial: &'a str,
    pub slot: u32,
    pub tray: u32,
    pub host_id: u32,
    pub module_id: u32,
}

/// K3, a multi-node NVLink verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CliqueRec {
    pub mnnvl: u32,
    pub clique_id: u32,
    pub size: u32,
    pub rank: u32,
    pub nvl_domain: Option<u32>,
}

// ---------------------------------------------------------------------------------------
// The system print (K4-K7)

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

/// A node id: `TYPE/XU` (2.5-2.20 and far nodes up to 2.22) or `TYPE/XL-XL` (2.21+).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NodeId<'a> {
    pub kind: &'a str,
    pub system_id: u64,
    pub local_id: u64,
    /// Printed as `system-local`.
    pub dashed: bool,
    /// Hex letters printed in upper case.
    pub upper: bool,
    /// Hex letters printed in lower case.
    pub lower: bool,
}

/// A node as printed, with what its parentheses say.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeText<'a> {
    /// `GPU/0-7000`.
    pub id_text: &'a str,
    pub id: NodeId<'a>,
    pub rank: Option<i64>,
    pub cpu: Option<CpuAttrs>,
    pub pci_device: Option<u64>,
    pub net: Option<NetAttrs>,
    /// How many fields the NET attribute had (1 in 2.5, 3 in 2.6-2.23, 4 in 2.24+).
    pub net_fields: u8,
    pub mlo_part: Option<u32>,
}

// ---------------------------------------------------------------------------------------
// Graphs (K8-K9)

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

// ---------------------------------------------------------------------------------------
// Rings and trees (K10-K14)

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

// ---------------------------------------------------------------------------------------
// Connections (K15-K16)

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

// ---------------------------------------------------------------------------------------
// Environment and tuning (K17-K23)

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
