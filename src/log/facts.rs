//! What an NCCL debug log says, once read: the data `topo log` renders, rebuilds a
//! topology from and holds against the model. Nothing here keeps raw lines: the size
//! of these facts grows with the communicators (ranks x channels), not with the file.
//!
//! Ranks are NCCL's ranks within a communicator (`comm` indexes [`LogFacts::comms`]);
//! a field is `None` where the log does not say. Bus ids are written as topo writes
//! them everywhere (`0000:07:00.0`); node ids of the system print are kept as NCCL
//! printed them, with their numbers decoded beside.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

/// Version of the JSON layout of `topo log --json`.
pub const SCHEMA: u32 = 1;

/// Everything read from one log.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LogFacts {
    /// Whose log this is.
    pub dialect: Dialect,
    /// The NCCL release that wrote the log, and how topo knows.
    pub nccl_version: Option<LogVersion>,
    /// What was read, skipped and cut.
    pub lines: LineCounts,
    pub comms: Vec<Comm>,
    pub ranks: Vec<RankInfo>,
    /// Host names in order of first appearance.
    pub hosts: Vec<String>,
    /// System prints (`=== System : ...`), the first complete one of each host; for a
    /// host whose prints are all incomplete (cut, or without header), those (up to 8).
    pub systems: Vec<SystemPrint>,
    /// Graph summaries (`Pattern ...`) with their channel lines, per printing rank.
    pub graphs: Vec<GraphPrint>,
    /// Ring orders (`Channel NN/MM :  0 1 2 ...`).
    pub rings: Vec<RingOrder>,
    /// Ring neighbours (`Ring NN : prev -> me -> next`).
    pub ring_links: Vec<RingLink>,
    /// Tree links, one per rank and channel (`Trees [c] ...`, `Tree N : ...`).
    pub trees: Vec<TreeLink>,
    /// NVLS heads (`NVLS Head  c: r r ...`).
    pub nvls_heads: Vec<NvlsHead>,
    /// Transport connections (`Channel 00/0 : 0[0] -> 1[1] via P2P/IPC`).
    pub connections: Vec<Connection>,
    /// `NCCL_X set by environment to V` and friends, first value per name and host.
    pub env: Vec<EnvSetting>,
    /// Network plugin and devices in use, per host.
    pub nets: Vec<NetUse>,
    /// GPUDirect RDMA verdicts printed per NIC or per GPU/NIC pair.
    pub gdr: Vec<GdrLine>,
    /// CPU affinity of each GPU's threads (`Setting affinity for GPU ...`).
    pub affinity: Vec<Affinity>,
    /// `Connected all rings` / `Connected all trees` / ... per rank.
    pub connected: Vec<ConnectedMark>,
    /// Other one-line facts: CUDA driver, P2P chunk size, bootstrap interface, launch
    /// mode, init timings, net plugin.
    pub details: Vec<Detail>,
    /// `N coll channels, ...` per rank.
    pub channel_counts: Vec<ChannelCounts>,
    /// `threadThresholds ...` per rank.
    pub thresholds: Vec<Thresholds>,
    /// The tuning table rank 0 prints (INFO TUNING), when present.
    pub tuning: Option<TuningTable>,
    /// `P2P is disabled between connected GPUs a and b`, `Could not get speed ...`,
    /// and other lines that name a problem, as (rank when known, text).
    pub problems: Vec<Problem>,
    /// Reading notices: truncated log, cut lines, conflicting values, formats from
    /// outside the releases topo reads.
    pub warnings: Vec<String>,
    /// nccl-tests' results tables in the log.
    pub perf: Vec<super::perf::PerfTable>,
    /// NVLink fabric registrations (`MNNVL busId ...`), one per GPU and host.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fabric: Vec<FabricLine>,
    /// Multi-node NVLink verdicts (`MNNVL 1 cliqueId ...`), one per rank.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cliques: Vec<CliqueLine>,
    /// Each GPU's rack (`MNNVL rack serial ...`, NCCL_MNNVL_CLIQUE_ID=-2), one per GPU and
    /// host.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub racks: Vec<RackLine>,
}

/// A GPU's rack as NVML's platform info gives it (init.cc, NCCL_MNNVL_CLIQUE_ID=-2):
/// its clique is a hash of `serial`, so the serials a job's GPUs print are its cliques.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct RackLine {
    pub host: Option<String>,
    pub serial: String,
    pub slot: u32,
    pub tray: u32,
    pub host_id: u32,
    pub module_id: u32,
}

impl LogFacts {
    /// The racks the log's GPUs named by serial, in first-seen order, each with its
    /// trays (distinct hosts, or slots where lines name no host).
    pub fn racks_by_serial(&self) -> Vec<(&str, usize)> {
        // A tray: its host, or its slot where the lines name no host.
        type Tray<'a> = (Option<&'a str>, u32);
        let mut out: Vec<(&str, Vec<Tray>)> = Vec::new();
        for r in &self.racks {
            let tray = (r.host.as_deref(), if r.host.is_some() { 0 } else { r.slot });
            match out.iter_mut().find(|(s, _)| *s == r.serial) {
                Some((_, t)) if !t.contains(&tray) => t.push(tray),
                Some(_) => {}
                None => out.push((r.serial.as_str(), vec![tray])),
            }
        }
        out.into_iter().map(|(s, t)| (s, t.len())).collect()
    }
}

/// A GPU's NVLink fabric registration as a rank printed it (init.cc): what NCCL's
/// multi-node NVLink check reads, after NCCL_MNNVL_UUID / NCCL_MNNVL_CLIQUE_ID.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct FabricLine {
    pub host: Option<String>,
    pub bus_id: String,
    /// The cluster UUID as NCCL prints it: its two 64-bit halves, `%lx.%lx`.
    pub cluster_uuid: String,
    pub clique_id: u32,
    /// NVML's fabric state: 0 not supported, 1 not started, 2 in progress, 3 completed.
    pub state: u32,
    pub health_mask: u32,
}

/// A rank's multi-node NVLink verdict (mnnvl.cc), printed when MNNVL is on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct CliqueLine {
    pub host: Option<String>,
    pub comm: Option<usize>,
    pub rank: Option<u32>,
    pub mnnvl: bool,
    pub clique_id: u32,
    pub clique_size: u32,
    pub clique_rank: u32,
    /// Ranks of the same cluster UUID (2.30+).
    pub nvl_domain_size: Option<u32>,
}

/// Whose log this is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    #[default]
    Nccl,
    /// RCCL (AMD's fork): recognised and reported, not read.
    Rccl,
}

/// The release that wrote the log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogVersion {
    /// `2.23.4` (the version line's numbers; a fork's suffix is dropped).
    pub value: String,
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
    /// `12.4` from `+cuda12.4`, when printed.
    pub cuda: Option<String>,
    /// Text after the patch number and before `+cuda` (forks), when any.
    pub suffix: Option<String>,
    pub source: VersionSource,
    /// When dated from formats: the oldest and newest release whose formats fit.
    pub range: Option<(String, String)>,
    /// Other versions printed in the same log (mixed installations).
    pub conflicts: Vec<String>,
}

/// How the version was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionSource {
    /// `NCCL version 2.x.y+cudaA.B`.
    VersionLine,
    /// nccl-tests' `nccl-library=NNNNN` header.
    TestsHeader,
    /// Dated from the formats of the lines read.
    Formats,
}

/// Line tallies.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LineCounts {
    /// Physical lines in the input.
    pub physical: u64,
    /// NCCL records found (a physical line may hold several when processes interleave).
    pub records: u64,
    /// Records read into facts.
    pub read: u64,
    /// NCCL records of kinds topo recognises and does not need.
    pub skipped_known: u64,
    /// NCCL records of kinds topo does not recognise.
    pub unknown: u64,
    /// Records cut mid-way by another process's output on the same line.
    pub cut: u64,
    /// Records cut at NCCL's 1023-byte limit: lists read up to their last whole item
    /// (these count in `read` too), other records left unread.
    pub truncated: u64,
    /// Lines that are not NCCL's (program output, blank lines).
    pub foreign: u64,
    /// Physical lines longer than the reader keeps (64 KiB; the rest was skipped).
    pub overlong: u64,
    /// Unknown NCCL records by first word, for `--verbose`.
    pub unknown_by_word: BTreeMap<String, u64>,
}

/// One communicator.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Comm {
    /// `commId 0x...` (2.16+), when printed.
    pub id: Option<String>,
    pub nranks: u32,
    /// `nNodes` (2.20+), else the number of hosts its ranks run on, when known.
    pub nnodes: Option<u32>,
    /// Where `nnodes` comes from: `log` (nNodes printed) or `hosts`.
    pub nnodes_source: Option<String>,
    pub local_ranks: Option<u32>,
    pub mnnvl: Option<bool>,
    /// The init function (`ncclCommInitRank`, `ncclCommSplit`, ...), when printed.
    pub func: Option<String>,
    /// The communicator the report is about: the one with most ranks (first on ties).
    pub primary: bool,
}

/// One rank of a communicator.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RankInfo {
    pub comm: usize,
    pub rank: u32,
    pub host: Option<String>,
    pub pid: Option<u32>,
    pub bus_id: Option<String>,
    pub cuda_dev: Option<u32>,
    pub nvml_dev: Option<u32>,
    pub local_rank: Option<u32>,
    /// `Init COMPLETE` was read for this rank.
    pub complete: bool,
}

/// A system print (`ncclTopoPrint`) with the path lines after it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SystemPrint {
    pub comm: Option<usize>,
    pub rank: Option<u32>,
    pub host: Option<String>,
    /// `maxBw` (`maxWidth` before 2.14).
    pub max_bw: f64,
    /// `totalBw` (`totalWidth` 2.8-2.13), absent before 2.8.
    pub total_bw: Option<f64>,
    pub nodes: Vec<SysNode>,
    pub links: Vec<SysLink>,
    pub paths: Vec<PathEntry>,
    /// The print ended before its closing line (end of file, or cut).
    pub truncated: bool,
    /// Leading spaces were lost, so who hangs under whom was guessed.
    pub tree_guessed: bool,
}

/// A node of the system print.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SysNode {
    /// As printed: `GPU/0-7000`, `GPU/F000`, `CPU/0-ffffffffffffff`, `NET/0-c`.
    pub id: String,
    /// `GPU`, `CPU`, `PCI`, `NIC`, `NET`, `NVS`, `DEV`, `GIN`, ...
    pub kind: String,
    /// The system id (`0` before 2.21, which prints none).
    pub system_id: u64,
    /// The local id: a bus id number for GPU/PCI/NIC/DEV, the NUMA id for CPUs, the
    /// device number for NETs.
    pub local_id: u64,
    /// For GPUs, PCI switches and NICs, the bus id the local id stands for.
    pub bus_id: Option<String>,
    /// GPU: the rank printed in parentheses.
    pub rank: Option<i64>,
    /// CPU: `(arch/vendor/model)` as NCCL numbers them (2.6+).
    pub cpu: Option<CpuAttrs>,
    /// PCI switch: the 64-bit vendor/device/subsystem number (2.9+).
    pub pci_device: Option<u64>,
    /// NET: what the parentheses hold.
    pub net: Option<NetAttrs>,
    /// 2.30.7 `[MLOPart N]`.
    pub mlo_part: Option<u32>,
}

/// CPU attributes of the system print.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CpuAttrs {
    pub arch: i64,
    pub vendor: i64,
    pub model: i64,
}

/// NET attributes of the system print: `(asic/port/bw)`, 2.24+ `(coll/asic/port/bw)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct NetAttrs {
    pub coll: Option<i64>,
    pub asic: u64,
    pub port: i64,
    /// GB/s.
    pub bw: f64,
}

/// A link of the system print, from the node it is printed under to the far node.
/// PCI links appear once; NVL/SYS/C2C links once per direction, deduplicated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SysLink {
    /// Index into [`SystemPrint::nodes`].
    pub from: usize,
    pub to: usize,
    /// `PCI`, `NVL`, `SYS`, `NET`, `LOC`, `C2C`, `QPI` (2.5).
    pub kind: String,
    /// GB/s.
    pub bw: f64,
}

/// One entry of a path line: `GPU/0-7000 :GPU/0-8000 (1/48.0/NVL) ...`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathEntry {
    /// Node ids as printed.
    pub from: String,
    pub to: String,
    pub hops: u32,
    /// GB/s.
    pub bw: f64,
    /// Path type name (`LOC`, `NVL`, `PIX`, ...; 2.5's link-type index as text).
    pub kind: String,
}

/// A graph summary line and the channel lines printed under it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GraphPrint {
    pub comm: Option<usize>,
    pub rank: Option<u32>,
    pub host: Option<String>,
    /// Position among the graphs this rank printed (0 ring, 1 tree, ...).
    pub index: u32,
    pub pattern: i64,
    pub crossnic: i64,
    pub nchannels: u32,
    /// GB/s (`speed` before 2.14).
    pub bw_intra: f64,
    pub bw_inter: f64,
    pub type_intra: String,
    pub type_inter: String,
    pub same_channels: i64,
    /// 2.5's `nvlink N`.
    pub nvlink: Option<i64>,
    pub channels: Vec<GraphChannel>,
}

/// One channel line of a graph: ` 0 : NET/0 GPU/0 GPU/1 NET/0`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct GraphChannel {
    pub channel: u32,
    /// The NET it starts from and ends at, as printed after `NET/`.
    pub net_in: Option<String>,
    pub net_out: Option<String>,
    /// Ranks in channel order (bus ids mapped to ranks for 2.27.5+ logs; empty when a
    /// bus id could not be mapped). NVLS graphs (pattern 5) hold one GPU per channel:
    /// the zeros NCCL up to 2.27.3 prints after it are padding and are dropped.
    pub gpus: Vec<i64>,
    /// The GPU ids as printed when they are bus ids (2.27.5+).
    pub gpu_ids: Vec<String>,
}

/// A ring order line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct RingOrder {
    pub comm: Option<usize>,
    /// The printing rank (rank 0 in NCCL).
    pub rank: Option<u32>,
    pub channel: u32,
    /// `MM`: channels in all.
    pub nchannels: u32,
    pub order: Vec<i64>,
    /// The order was cut (`...`, or 20 ranks before 2.23).
    pub truncated: bool,
}

/// `Ring NN : prev -> me -> next`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct RingLink {
    pub comm: Option<usize>,
    pub rank: u32,
    pub channel: u32,
    pub prev: i64,
    pub next: i64,
}

/// One rank's place in one channel's tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct TreeLink {
    pub comm: Option<usize>,
    pub rank: u32,
    pub channel: u32,
    pub up: i64,
    /// Three children, `-1` for none.
    pub down: [i64; 3],
    /// 2.5-2.7 double trees: the second tree's up and children.
    pub dn_up: Option<i64>,
    pub dn_down: Option<[i64; 3]>,
    /// `Trees` (INIT), `Tree` (GRAPH) or `NVLS Trees`.
    pub source: TreeSource,
}

/// Which line a tree link comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TreeSource {
    Trees,
    Tree,
    /// `NVLS Trees : ...` (channels 0 and 1 of the NVLS tree).
    Nvls,
}

/// `NVLS Head  c: r r ...`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct NvlsHead {
    pub comm: Option<usize>,
    pub rank: Option<u32>,
    /// The head's index (`NVLS Head N:`).
    pub channel: u32,
    /// The head rank on each node (NCCL prints at most 20 nodes).
    pub heads: Vec<i64>,
}

/// One transport connection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Connection {
    pub comm: Option<usize>,
    pub channel: u32,
    /// `/N` after the channel (connIndex), when printed.
    pub conn: Option<u32>,
    /// Sender and receiver ranks.
    pub from: i64,
    pub to: i64,
    /// The bracketed values, as printed.
    pub from_id: String,
    pub to_id: String,
    /// What the brackets hold: `bus_id`, `nvml_dev` or `cuda_dev`.
    pub id_kind: Option<String>,
    /// `send` or `receive` (NET lines).
    pub side: Option<String>,
    /// `P2P`, `SHM`, `NET`, `COLLNET`.
    pub transport: String,
    /// P2P: `IPC`, `CUMEM`, `MNNVL`, `direct pointer`, `common device`, `indirect`;
    /// SHM: `direct/direct`, ...; NET: the plugin name (`IB`, `Socket`, `AWS Libfabric`).
    pub mode: String,
    pub read: bool,
    pub ce: bool,
    /// NET: device number, PXN proxy rank, GPUDirect RDMA, GDR over PCI, shared.
    pub net_dev: Option<u32>,
    pub proxy_rank: Option<i64>,
    pub gdr: bool,
    pub gdr_pci: bool,
    pub shared: bool,
    /// `ring`, `tree`, `nvls`, `p2p` when it can be told from the other facts.
    pub role: Option<String>,
}

/// An environment setting NCCL printed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct EnvSetting {
    pub name: String,
    pub value: String,
    /// `environment` (`set by environment to`), `set` (`set to`), `plugin`, `config`.
    pub source: String,
    pub host: Option<String>,
}

/// The network in use on a host.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NetUse {
    pub host: Option<String>,
    /// `IB`, `Socket`, or a plugin's name (`Using network X`, `NET/X : Using ...`).
    pub kind: String,
    pub devices: Vec<NetDevice>,
    /// The OOB interface (`OOB ib0:10.0.0.1<0>`), when printed.
    pub oob: Option<String>,
}

/// A device of a `NET/... : Using` line.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NetDevice {
    pub index: u32,
    /// `mlx5_0`, `eno1`; merged devices joined with `+`.
    pub name: String,
    pub port: Option<u32>,
    /// `IB`, `RoCE`, or the socket address.
    pub link: Option<String>,
}

/// A GPUDirect RDMA line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct GdrLine {
    pub host: Option<String>,
    /// The GPU (bus id number or rank, as printed), absent on per-NIC lines.
    pub gpu: Option<String>,
    /// The NIC (HCA index).
    pub nic: String,
    pub nic_name: Option<String>,
    pub enabled: bool,
    /// The rest: distance, mode, why.
    pub detail: String,
}

/// `N coll channels, ...`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ChannelCounts {
    pub comm: Option<usize>,
    pub rank: Option<u32>,
    pub coll: u32,
    pub collnet: Option<u32>,
    pub nvls: Option<u32>,
    pub p2p: u32,
    pub p2p_per_peer: u32,
}

/// `threadThresholds a/b/c | d/e/f | ...`, groups as printed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Thresholds {
    pub comm: Option<usize>,
    pub rank: Option<u32>,
    pub groups: Vec<Vec<i64>>,
}

/// The tuning table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TuningTable {
    pub rank: Option<u32>,
    /// (algorithm, protocol) -> max threads.
    pub max_threads: Vec<(String, String, i64)>,
    pub rows: Vec<TuningRow>,
}

/// One cell of the tuning table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuningRow {
    pub func: String,
    pub algo: String,
    pub proto: String,
    /// Microseconds.
    pub latency: f64,
    /// GB/s.
    pub bw: f64,
}

/// The CPUs a GPU's threads run on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Affinity {
    pub comm: Option<usize>,
    pub rank: Option<u32>,
    pub host: Option<String>,
    /// NCCL's device index of the GPU (as in the topology XML's `<gpu dev=...>`).
    pub gpu: u32,
    /// The affinity set: a hex mask (`ff,ffff0000`, up to 2.27) or CPU ranges (`8-15`,
    /// 2.28+; `empty, ignoring` when none).
    pub mask: String,
    /// 2.28+: the process's own CPU affinity, when printed.
    pub cpu_mask: Option<String>,
}

/// `Connected all rings` and the like: a rank finished connecting a kind of channel.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ConnectedMark {
    pub comm: Option<usize>,
    pub rank: Option<u32>,
    pub host: Option<String>,
    /// `rings`, `trees`, `nvls_tree`, `collnet_chain`.
    pub what: String,
    /// 2.24+ `Connected all rings, use ring PXN n GDR n`.
    pub ring_pxn: Option<i64>,
    pub ring_gdr: Option<i64>,
}

/// A one-line fact: `kind` is `cuda_driver`, `p2p_chunksize`, `bootstrap`,
/// `bootstrap_timings`, `init_timings`, `launch_mode`, `cc`, `net_plugin` or
/// `net_no_device`; `value` is the text NCCL printed after the words naming it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Detail {
    pub host: Option<String>,
    pub rank: Option<u32>,
    pub kind: String,
    pub value: String,
}

/// A line naming a problem.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Problem {
    pub host: Option<String>,
    pub rank: Option<u32>,
    /// `p2p_disabled`, `net_speed_guessed`, `warn` (an NCCL WARN record), ...
    pub kind: String,
    pub text: String,
}

impl LogFacts {
    /// The communicator the report is about, when any.
    pub fn primary(&self) -> Option<usize> {
        self.comms.iter().position(|c| c.primary)
    }

    /// The `NCCL_*` settings the log printed, each name once with its first value, in
    /// the order of the log.
    pub fn nccl_settings(&self) -> Vec<(String, String)> {
        let mut seen = BTreeSet::new();
        self.env
            .iter()
            .filter(|e| e.name.starts_with("NCCL_") && seen.insert(e.name.clone()))
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect()
    }
}
