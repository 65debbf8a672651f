//! What NVML (and the CUDA driver) say about the GPUs, behind one trait.
//!
//! Detection never talks to NVML directly: it gets an [`NvmlSnapshot`] from an
//! [`NvmlSource`]. [`RealNvml`] loads `libnvidia-ml` at run time through nvml-wrapper
//! (and asks the CUDA driver, through cudarc, for the two GPUDirect attributes NVML does
//! not have); [`FakeNvml`] reads a JSON file that says what NVML would answer. The
//! snapshot keeps NVML's raw answers (every NVLink, with its P2P capability, state and
//! remote bus id); NCCL's rules for turning them into `<nvlink>` and `<c2c>` elements
//! are applied by the detection code, the same for both sources. [`RealNvml`] needs the
//! `nvml` cargo feature (on by default); without it, it is an error and the fake file is
//! the only source.
//!
//! # The fake-NVML file
//!
//! A JSON object (unknown keys are refused, so typos are caught):
//!
//! ```json
//! {
//!   "comment": "any text",
//!   "driver_version": "550.90.07",
//!   "gpus": [
//!     {
//!       "index": 0,                          // NVML index (becomes <gpu dev=...>)
//!       "busid": "0000:18:00.0",             // any domain width, any case
//!       "name": "NVIDIA H100 80GB HBM3",     // optional
//!       "pci": {"vendor": "0x10de", "device": "0x2330",
//!               "subsystem_vendor": "0x10de", "subsystem_device": "0x16c1"},
//!       "sm": 90,                            // compute capability x 10
//!       "pcie": {"gen": 5, "width": 16, "max_gen": 5, "max_width": 16},
//!       "nvlinks": [                         // links in order: link 0, 1, ...
//!         {"remote": "0000:05:00.0", "count": 5},           // 5 links to that device
//!         {"remote": "0000:06:00.0", "count": 1, "active": false},
//!         {"remote": "", "count": 1},                       // remote not visible
//!         {"remote": null, "count": 1}                      // remote query fails
//!       ],
//!       "c2c": {"count": 10, "bw": 40000, "down": 0},      // bw per link in MB/s
//!       "gdr": true,                         // CUDA's GPUDirect RDMA attribute
//!       "dmabuf": true,                      // CUDA's DMA-BUF attribute
//!       "mlopart": -1,
//!       "fabric": {"state": "completed", "status": 0,          // NVML's GPU fabric info
//!                  "cluster_uuid": "9d2f5e1c-7a43-4b8e-a1c0-3e6f0b2d4c51",
//!                  "clique_id": 32766}
//!     }
//!   ],
//!   "p2p": {"read": [["X", "OK"], ["OK", "X"]], "write": [["X", "OK"], ["OK", "X"]]},
//!   "ib": [{"name": "mlx5_0", "max_qp": 131072}]
//! }
//! ```
//!
//! * `pcie.gen`/`width` are the *current* link (what NCCL 2.30 writes for a GPU); leave
//!   `pcie` out and NCCL's fallback (`16.0 GT/s`, x16) applies, as when NVML fails.
//! * Each `nvlinks` entry stands for `count` consecutive links (default 1) with the same
//!   remote; `p2p` and `active` default to true. NCCL only looks at the first 4/6/12/18
//!   links depending on `sm`.
//! * `p2p` matrices are indexed by position in `gpus`, with nvidia-smi's codes: `OK`,
//!   `CNS` (chipset not supported), `GNS` (GPU not supported), `TNS` (topology not
//!   supported), `DBR` (disabled by regkey), `NS` (not supported), `U` (unknown), `X`.
//! * `ib` gives facts the IB verbs library would answer that sysfs does not have
//!   (`max_qp`, written as `maxconn`); optional.
//! * `fabric` is the GPU's registration with an NVLink fabric
//!   (`nvmlDeviceGetGpuFabricInfoV`), which NCCL reads to decide multi-node NVLink:
//!   `state` is `not_supported`, `not_started`, `in_progress` or `completed`; `status` is
//!   the registration's NVML return code (0, success, by default); `cluster_uuid` is 16
//!   bytes as 32 hex digits, dashes allowed; `clique_id` a 32-bit number. A file where
//!   no GPU has `fabric` says nothing about the fabric (as an NVML too old to have the
//!   call); in a file where one GPU has it, a GPU without it is `not_supported`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::discover::sysfs::normalize_busid;
use crate::error::Error;

/// One NVLink as NVML reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NvLinkFacts {
    pub link: u32,
    /// `NVML_NVLINK_CAP_P2P_SUPPORTED` (false when the query fails).
    pub p2p: bool,
    /// Link state (field `NVLINK_GET_STATE` on sm90+, `GetNvLinkState` before).
    pub active: bool,
    /// Remote PCI bus id as NVML gives it; `None` when the query fails.
    pub remote: Option<String>,
}

/// One C2C link.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct C2cLink {
    pub active: bool,
    /// `C2C_LINK_GET_MAX_BW`, MB/s.
    pub bw: Option<u32>,
}

/// NVML's answers for one GPU.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct GpuFacts {
    pub index: u32,
    /// Canonical `dddd:bb:dd.f`.
    pub busid: String,
    pub name: Option<String>,
    /// `pciDeviceId`: vendor in the low 16 bits, device in the high 16.
    pub pci_device_id: Option<u32>,
    /// `pciSubSystemId`: subsystem vendor low, subsystem device high.
    pub pci_subsystem_id: Option<u32>,
    /// Compute capability x 10.
    pub sm: Option<u32>,
    pub pcie_gen: Option<u32>,
    pub pcie_width: Option<u32>,
    pub pcie_max_gen: Option<u32>,
    pub pcie_max_width: Option<u32>,
    pub nvlinks: Vec<NvLinkFacts>,
    /// `None` when NVML has no C2C fields for this GPU.
    pub c2c: Option<Vec<C2cLink>>,
    pub gdr: Option<bool>,
    pub dmabuf: Option<bool>,
    pub mlopart: Option<i32>,
    /// The GPU's fabric registration; `None` when NVML did not answer (not supported).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fabric: Option<FabricInfo>,
}

/// `nvmlGpuFabricState_t`: how far the GPU's registration with the NVLink fabric got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FabricState {
    NotSupported,
    NotStarted,
    InProgress,
    Completed,
}

impl FabricState {
    /// From NVML's number (`NVML_GPU_FABRIC_STATE_*`); unknown numbers are not supported.
    pub fn from_nvml(v: u8) -> FabricState {
        match v {
            1 => FabricState::NotStarted,
            2 => FabricState::InProgress,
            3 => FabricState::Completed,
            _ => FabricState::NotSupported,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FabricState::NotSupported => "not_supported",
            FabricState::NotStarted => "not_started",
            FabricState::InProgress => "in_progress",
            FabricState::Completed => "completed",
        }
    }
}

/// One GPU's registration with the NVLink fabric, as `nvmlDeviceGetGpuFabricInfoV`
/// gives it (what NCCL keeps in `peerInfo.fabricInfo`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FabricInfo {
    pub state: FabricState,
    /// The registration's NVML return code (0: success).
    pub status: u32,
    /// The cluster (NVLink domain) UUID, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    pub cluster_uuid: String,
    pub clique_id: u32,
}

impl FabricInfo {
    /// A registration from NVML's raw fields.
    pub fn from_raw(state: u8, status: u32, uuid: [u8; 16], clique_id: u32) -> FabricInfo {
        FabricInfo { state: FabricState::from_nvml(state), status, cluster_uuid: format_uuid(&uuid), clique_id }
    }

    /// The UUID's 16 bytes (zero when it cannot be read).
    pub fn uuid_bytes(&self) -> [u8; 16] {
        parse_uuid(&self.cluster_uuid).unwrap_or([0; 16])
    }

    /// The UUID as NCCL prints it (`fabric UUID %lx.%lx`): its two halves read as
    /// little-endian 64-bit numbers.
    pub fn uuid_halves(&self) -> (u64, u64) {
        uuid_halves(&self.uuid_bytes())
    }
}

/// 16 bytes as NCCL reads them: two little-endian 64-bit halves.
pub fn uuid_halves(b: &[u8; 16]) -> (u64, u64) {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&b[..8]);
    hi.copy_from_slice(&b[8..]);
    (u64::from_le_bytes(lo), u64::from_le_bytes(hi))
}

/// `8-4-4-4-12` lowercase hex, as nvidia-smi shows a cluster UUID.
pub fn format_uuid(b: &[u8; 16]) -> String {
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// 32 hex digits, dashes anywhere allowed; `None` otherwise.
pub fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let h: Vec<u8> = s.bytes().filter(|&c| c != b'-').collect();
    if h.len() != 32 || !h.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, pair) in h.chunks(2).enumerate() {
        out[i] = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(out)
}

/// NVML's P2P status matrices, indexed by position in [`NvmlSnapshot::gpus`].
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct P2pMatrix {
    pub read: Option<Vec<Vec<String>>>,
    pub write: Option<Vec<Vec<String>>>,
}

/// Everything detection needs from NVML, gathered once.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct NvmlSnapshot {
    /// `nvml` or `fake:PATH`.
    pub source: String,
    pub driver_version: Option<String>,
    /// In NVML index order.
    pub gpus: Vec<GpuFacts>,
    pub p2p: P2pMatrix,
    /// IB verbs facts by device name (`max_qp`); only from a fake file.
    pub ib_max_qp: BTreeMap<String, u32>,
    /// Whether NVML was asked for the GPUs' fabric registration (a driver with the call,
    /// or a fake file giving it for some GPU); without it, nothing is known of it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fabric_known: bool,
    /// What detection should say about NVML's answers (an old driver without a call).
    #[serde(skip)]
    pub notes: Vec<String>,
}

impl NvmlSnapshot {
    pub fn gpu(&self, busid: &str) -> Option<&GpuFacts> {
        let b = normalize_busid(busid)?;
        self.gpus.iter().find(|g| g.busid == b)
    }
}

/// The result of asking a source.
#[derive(Debug)]
pub enum NvmlLoad {
    Loaded(NvmlSnapshot),
    /// NVML cannot be used here; the reason, for the one notice detection prints.
    Unavailable(String),
}

/// Where GPU facts come from.
pub trait NvmlSource {
    /// Gather the snapshot. A source that is simply absent answers `Unavailable`; `Err`
    /// is for input the user gave that is wrong (a malformed fake file).
    fn load(&self) -> Result<NvmlLoad, Error>;
}

/// No NVML at all (a `--root` tree without `nvml.json`).
pub struct NoNvml(pub String);

impl NvmlSource for NoNvml {
    fn load(&self) -> Result<NvmlLoad, Error> {
        Ok(NvmlLoad::Unavailable(self.0.clone()))
    }
}

// ---------------------------------------------------------------------------------------
// Fake NVML
// ---------------------------------------------------------------------------------------

/// NVML answers read from a JSON file (format in the module documentation).
pub struct FakeNvml {
    pub path: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakeFile {
    #[serde(default)]
    #[allow(dead_code)]
    comment: Option<String>,
    #[serde(default)]
    driver_version: Option<String>,
    #[serde(default)]
    gpus: Vec<FakeGpu>,
    #[serde(default)]
    p2p: Option<FakeP2p>,
    #[serde(default)]
    ib: Vec<FakeIb>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakeGpu {
    index: u32,
    busid: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    pci: Option<FakePci>,
    #[serde(default)]
    sm: Option<u32>,
    #[serde(default)]
    pcie: Option<FakePcie>,
    #[serde(default)]
    nvlinks: Vec<FakeLink>,
    #[serde(default)]
    c2c: Option<FakeC2c>,
    #[serde(default)]
    gdr: Option<bool>,
    #[serde(default)]
    dmabuf: Option<bool>,
    #[serde(default)]
    mlopart: Option<i32>,
    #[serde(default)]
    fabric: Option<FakeFabric>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakeFabric {
    state: FabricState,
    #[serde(default)]
    status: u32,
    #[serde(default)]
    cluster_uuid: Option<String>,
    #[serde(default)]
    clique_id: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakePci {
    vendor: String,
    device: String,
    #[serde(default)]
    subsystem_vendor: Option<String>,
    #[serde(default)]
    subsystem_device: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakePcie {
    #[serde(default, rename = "gen")]
    generation: Option<u32>,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    max_gen: Option<u32>,
    #[serde(default)]
    max_width: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakeLink {
    remote: Option<String>,
    #[serde(default = "one")]
    count: u32,
    #[serde(default = "yes")]
    active: bool,
    #[serde(default = "yes")]
    p2p: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakeC2c {
    count: u32,
    bw: u32,
    #[serde(default)]
    down: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakeP2p {
    #[serde(default)]
    read: Option<Vec<Vec<String>>>,
    #[serde(default)]
    write: Option<Vec<Vec<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FakeIb {
    name: String,
    max_qp: u32,
}

fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}

/// Most GPUs a fake file may list (NCCL's limit of nodes of one type).
pub const MAX_GPUS: usize = 256;
/// Most NVLinks NVML can report per GPU (NCCL probes at most 18).
pub const MAX_LINKS: u32 = 18;
/// Most C2C links of one GPU in a fake file (GH200 has 10; room for later parts).
pub const MAX_C2C_LINKS: u32 = 64;

/// Newest PCIe generation a fake file may give (PCIe 7.0).
pub const MAX_PCIE_GEN: u32 = 7;
/// Widest PCIe link a fake file may give (the XML's limit too).
pub const MAX_PCIE_WIDTH: i64 = 32;
/// Compute capabilities (major * 10 + minor) a fake file may give (the XML's range too).
pub const SM_RANGE: std::ops::RangeInclusive<i64> = 10..=200;
/// Fastest single C2C link a fake file may give, MB/s (1 TB/s, the XML's limit too).
pub const MAX_C2C_BW: i64 = 1_000_000;

/// Largest fake-NVML file read (a 72-GPU domain with every link takes well under 1 MiB).
pub const MAX_FAKE_BYTES: u64 = 16 << 20;

/// P2P status codes accepted in a fake file (nvidia-smi's).
pub const P2P_CODES: &[&str] = &["OK", "CNS", "GNS", "TNS", "DBR", "NS", "U", "X"];

impl NvmlSource for FakeNvml {
    fn load(&self) -> Result<NvmlLoad, Error> {
        let bytes = crate::fileio::read_capped(&self.path, MAX_FAKE_BYTES, "a fake-NVML file")?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Input { file: self.path.display().to_string(), message: "not UTF-8 text".into() })?;
        parse_fake(&text, &self.path).map(NvmlLoad::Loaded)
    }
}

/// Parse a fake-NVML file; errors name the file, line and what is wrong.
pub fn parse_fake(text: &str, path: &Path) -> Result<NvmlSnapshot, Error> {
    let file = path.display().to_string();
    let bad = |message: String| Error::Input { file: file.clone(), message };
    let f: FakeFile =
        serde_json::from_str(text).map_err(|e| bad(format!("line {} column {}: {e}", e.line(), e.column())))?;
    let mut snap =
        NvmlSnapshot { source: format!("fake:{file}"), driver_version: f.driver_version, ..Default::default() };
    let hex16 = |what: &str, s: &str, gpu: u32| -> Result<u32, Error> {
        let t = s.trim();
        let h = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
        u32::from_str_radix(h, 16)
            .ok()
            .filter(|v| *v <= 0xffff)
            .ok_or_else(|| bad(format!("gpu index {gpu}: pci.{what} \"{s}\" is not a 16-bit hex number")))
    };
    if f.gpus.len() > MAX_GPUS {
        return Err(bad(format!("{} GPUs: NCCL handles at most {MAX_GPUS} on a node", f.gpus.len())));
    }
    for g in f.gpus {
        let links: u64 = g.nvlinks.iter().map(|l| l.count as u64).sum();
        if links > MAX_LINKS as u64 {
            return Err(bad(format!(
                "gpu index {}: {links} NVLinks; NVML reports at most {MAX_LINKS} per GPU (a number no machine has)",
                g.index
            )));
        }
        if let Some(c) = &g.c2c
            && (c.count > MAX_C2C_LINKS || c.down > c.count)
        {
            return Err(bad(format!(
                "gpu index {}: c2c count {} (down {}): at most {MAX_C2C_LINKS} links, and no more down than there are",
                g.index, c.count, c.down
            )));
        }
        if let Some(c) = &g.c2c
            && c.bw as i64 > MAX_C2C_BW
        {
            return Err(bad(format!(
                "gpu index {}: c2c bw {} MB/s per link: at most {} (a number no machine has)",
                g.index, c.bw, MAX_C2C_BW
            )));
        }
        if let Some(sm) = g.sm
            && !SM_RANGE.contains(&(sm as i64))
        {
            return Err(bad(format!(
                "gpu index {}: sm {sm} is not a compute capability ({} to {}, major * 10 + minor)",
                g.index,
                SM_RANGE.start(),
                SM_RANGE.end()
            )));
        }
        if let Some(p) = &g.pcie {
            for (what, v) in [("gen", p.generation), ("max_gen", p.max_gen)] {
                if let Some(v) = v.filter(|v| *v > MAX_PCIE_GEN) {
                    return Err(bad(format!(
                        "gpu index {}: pcie.{what} {v}: PCIe generations go up to {MAX_PCIE_GEN}",
                        g.index
                    )));
                }
            }
            for (what, v) in [("width", p.width), ("max_width", p.max_width)] {
                if let Some(v) = v.filter(|&v| v as i64 > MAX_PCIE_WIDTH || !v.is_power_of_two() && v != 0) {
                    return Err(bad(format!(
                        "gpu index {}: pcie.{what} {v}: a PCIe link is 1, 2, 4, 8, 16 or 32 lanes wide",
                        g.index
                    )));
                }
            }
        }
        let busid = normalize_busid(&g.busid)
            .ok_or_else(|| bad(format!("gpu index {}: busid \"{}\" is not a PCI bus id", g.index, g.busid)))?;
        if snap.gpus.iter().any(|o| o.index == g.index) {
            return Err(bad(format!("gpu index {} appears twice", g.index)));
        }
        if snap.gpus.iter().any(|o| o.busid == busid) {
            return Err(bad(format!("bus id {busid} appears twice")));
        }
        let (mut dev_id, mut sub_id) = (None, None);
        if let Some(p) = &g.pci {
            dev_id = Some(hex16("vendor", &p.vendor, g.index)? | (hex16("device", &p.device, g.index)? << 16));
            if let (Some(sv), Some(sd)) = (&p.subsystem_vendor, &p.subsystem_device) {
                sub_id =
                    Some(hex16("subsystem_vendor", sv, g.index)? | (hex16("subsystem_device", sd, g.index)? << 16));
            }
        }
        let mut nvlinks = Vec::new();
        for l in &g.nvlinks {
            if let Some(r) = &l.remote
                && !r.is_empty()
                && normalize_busid(r).is_none()
                && r != "fffffff:ffff:ff"
            {
                return Err(bad(format!("gpu index {}: nvlink remote \"{r}\" is not a PCI bus id", g.index)));
            }
            for _ in 0..l.count {
                nvlinks.push(NvLinkFacts {
                    link: nvlinks.len() as u32,
                    p2p: l.p2p,
                    active: l.active,
                    remote: l.remote.clone(),
                });
            }
        }
        let c2c = g.c2c.as_ref().map(|c| {
            (0..c.count)
                .map(|i| C2cLink { active: i < c.count.saturating_sub(c.down), bw: Some(c.bw) })
                .collect::<Vec<_>>()
        });
        let pcie = g.pcie.unwrap_or(FakePcie { generation: None, width: None, max_gen: None, max_width: None });
        let fabric = match g.fabric {
            None => None,
            Some(f) => {
                let uuid = match f.cluster_uuid.as_deref() {
                    None => [0; 16],
                    Some(u) => parse_uuid(u).ok_or_else(|| {
                        bad(format!("gpu index {}: fabric.cluster_uuid \"{u}\" is not 32 hex digits", g.index))
                    })?,
                };
                snap.fabric_known = true;
                Some(FabricInfo {
                    state: f.state,
                    status: f.status,
                    cluster_uuid: format_uuid(&uuid),
                    clique_id: f.clique_id,
                })
            }
        };
        snap.gpus.push(GpuFacts {
            index: g.index,
            busid,
            name: g.name,
            pci_device_id: dev_id,
            pci_subsystem_id: sub_id,
            sm: g.sm,
            pcie_gen: pcie.generation,
            pcie_width: pcie.width,
            pcie_max_gen: pcie.max_gen,
            pcie_max_width: pcie.max_width,
            nvlinks,
            c2c,
            gdr: g.gdr,
            dmabuf: g.dmabuf,
            mlopart: g.mlopart,
            fabric,
        });
    }
    snap.gpus.sort_by_key(|g| g.index);
    if let Some(p) = f.p2p {
        let n = snap.gpus.len();
        for (what, m) in [("read", &p.read), ("write", &p.write)] {
            if let Some(m) = m {
                if m.len() != n || m.iter().any(|r| r.len() != n) {
                    return Err(bad(format!("p2p.{what} must be a {n}x{n} matrix (one row and column per GPU)")));
                }
                if let Some(c) = m.iter().flatten().find(|c| !P2P_CODES.contains(&c.as_str())) {
                    return Err(bad(format!(
                        "p2p.{what}: unknown status \"{c}\" (use one of {})",
                        P2P_CODES.join(", ")
                    )));
                }
            }
        }
        snap.p2p = P2pMatrix { read: p.read, write: p.write };
    }
    for ib in f.ib {
        snap.ib_max_qp.insert(ib.name, ib.max_qp);
    }
    Ok(snap)
}

/// Write a snapshot back as a fake-NVML file (used to build fake machines).
pub fn to_fake_json(snap: &NvmlSnapshot, comment: &str) -> String {
    use serde_json::{Map, Value, json};
    let mut gpus = Vec::new();
    for g in &snap.gpus {
        let mut o = Map::new();
        o.insert("index".into(), json!(g.index));
        o.insert("busid".into(), json!(g.busid));
        if let Some(n) = &g.name {
            o.insert("name".into(), json!(n));
        }
        if let Some(id) = g.pci_device_id {
            let mut p = Map::new();
            p.insert("vendor".into(), json!(format!("0x{:04x}", id & 0xffff)));
            p.insert("device".into(), json!(format!("0x{:04x}", id >> 16)));
            if let Some(s) = g.pci_subsystem_id {
                p.insert("subsystem_vendor".into(), json!(format!("0x{:04x}", s & 0xffff)));
                p.insert("subsystem_device".into(), json!(format!("0x{:04x}", s >> 16)));
            }
            o.insert("pci".into(), Value::Object(p));
        }
        if let Some(sm) = g.sm {
            o.insert("sm".into(), json!(sm));
        }
        let mut pcie = Map::new();
        for (k, v) in
            [("gen", g.pcie_gen), ("width", g.pcie_width), ("max_gen", g.pcie_max_gen), ("max_width", g.pcie_max_width)]
        {
            if let Some(v) = v {
                pcie.insert(k.into(), json!(v));
            }
        }
        if !pcie.is_empty() {
            o.insert("pcie".into(), Value::Object(pcie));
        }
        // Group consecutive identical links.
        let mut links: Vec<Value> = Vec::new();
        let mut i = 0;
        while i < g.nvlinks.len() {
            let l = &g.nvlinks[i];
            let mut n = 1;
            while i + n < g.nvlinks.len() {
                let m = &g.nvlinks[i + n];
                if m.remote == l.remote && m.active == l.active && m.p2p == l.p2p {
                    n += 1;
                } else {
                    break;
                }
            }
            let mut e = Map::new();
            e.insert("remote".into(), json!(l.remote));
            e.insert("count".into(), json!(n));
            if !l.active {
                e.insert("active".into(), json!(false));
            }
            if !l.p2p {
                e.insert("p2p".into(), json!(false));
            }
            links.push(Value::Object(e));
            i += n;
        }
        if !links.is_empty() {
            o.insert("nvlinks".into(), Value::Array(links));
        }
        if let Some(c) = &g.c2c {
            let up = c.iter().filter(|l| l.active).count();
            let bw = c.iter().rev().find(|l| l.active).and_then(|l| l.bw).or_else(|| c.first().and_then(|l| l.bw));
            o.insert("c2c".into(), json!({"count": c.len(), "bw": bw.unwrap_or(0), "down": c.len() - up}));
        }
        for (k, v) in [("gdr", g.gdr), ("dmabuf", g.dmabuf)] {
            if let Some(v) = v {
                o.insert(k.into(), json!(v));
            }
        }
        if let Some(m) = g.mlopart {
            o.insert("mlopart".into(), json!(m));
        }
        if let Some(f) = &g.fabric {
            o.insert(
                "fabric".into(),
                json!({"state": f.state.as_str(), "status": f.status, "cluster_uuid": f.cluster_uuid,
                       "clique_id": f.clique_id}),
            );
        }
        gpus.push(Value::Object(o));
    }
    let mut top = Map::new();
    top.insert("comment".into(), json!(comment));
    if let Some(d) = &snap.driver_version {
        top.insert("driver_version".into(), json!(d));
    }
    top.insert("gpus".into(), Value::Array(gpus));
    if snap.p2p.read.is_some() || snap.p2p.write.is_some() {
        let mut p = Map::new();
        if let Some(r) = &snap.p2p.read {
            p.insert("read".into(), json!(r));
        }
        if let Some(w) = &snap.p2p.write {
            p.insert("write".into(), json!(w));
        }
        top.insert("p2p".into(), Value::Object(p));
    }
    if !snap.ib_max_qp.is_empty() {
        let v: Vec<Value> = snap.ib_max_qp.iter().map(|(n, q)| json!({"name": n, "max_qp": q})).collect();
        top.insert("ib".into(), Value::Array(v));
    }
    let mut s = serde_json::to_string_pretty(&Value::Object(top)).unwrap_or_default();
    s.push('\n');
    s
}

// ---------------------------------------------------------------------------------------
// Real NVML
// ---------------------------------------------------------------------------------------

/// NVML through nvml-wrapper, loaded at run time. In a build without the `nvml`
/// feature, asking it is an error that says so.
pub struct RealNvml;

/// What [`RealNvml`] answers in a build without the `nvml` feature.
#[cfg(not(feature = "nvml"))]
pub fn unsupported() -> Error {
    Error::Unavailable(
        "this build of topo has no NVML support (built without the `nvml` feature): \
         give NVML's answers with --nvml-fake FILE (or --root DIR holding an nvml.json), \
         detect from sysfs alone with --root /, or rebuild with `cargo install --path . --features nvml`"
            .into(),
    )
}

#[cfg(not(feature = "nvml"))]
impl NvmlSource for RealNvml {
    fn load(&self) -> Result<NvmlLoad, Error> {
        Err(unsupported())
    }
}

#[cfg(feature = "nvml")]
impl NvmlSource for RealNvml {
    fn load(&self) -> Result<NvmlLoad, Error> {
        let nvml = match nvml_wrapper::Nvml::init() {
            Ok(n) => n,
            Err(e) => return Ok(NvmlLoad::Unavailable(format!("NVML not available ({e})"))),
        };
        let count = match nvml.device_count() {
            Ok(c) => c,
            Err(e) => return Ok(NvmlLoad::Unavailable(format!("NVML cannot count GPUs ({e})"))),
        };
        let mut snap = NvmlSnapshot {
            source: "nvml".into(),
            driver_version: nvml.sys_driver_version().ok(),
            ..Default::default()
        };
        let mut devices = Vec::new();
        for i in 0..count {
            let Ok(dev) = nvml.device_by_index(i) else { continue };
            let Ok(pci) = dev.pci_info() else { continue };
            let Some(busid) = normalize_busid(&pci.bus_id) else { continue };
            let sm = dev.cuda_compute_capability().ok().map(|c| (c.major * 10 + c.minor) as u32);
            let mut g = GpuFacts {
                index: dev.index().unwrap_or(i),
                busid,
                name: dev.name().ok(),
                pci_device_id: Some(pci.pci_device_id),
                pci_subsystem_id: pci.pci_sub_system_id,
                sm,
                pcie_gen: dev.current_pcie_link_gen().ok(),
                pcie_width: dev.current_pcie_link_width().ok(),
                pcie_max_gen: dev.max_pcie_link_gen().ok(),
                pcie_max_width: dev.max_pcie_link_width().ok(),
                ..Default::default()
            };
            g.nvlinks = real_nvlinks(&dev, sm.unwrap_or(0));
            if sm.unwrap_or(0) >= 90 {
                g.c2c = real_c2c(&dev);
            }
            // NCCL reads the registration through the versioned call only: without it,
            // every GPU is "not supported", which is known too.
            snap.fabric_known = true;
            match real_fabric(&dev) {
                Some(f) => g.fabric = f,
                None if snap.notes.is_empty() => snap.notes.push(
                    "this NVML has no nvmlDeviceGetGpuFabricInfoV (a driver older than R530): the GPUs' NVLink \
                     fabric registration is not known, and NCCL sees none (no multi-node NVLink)"
                        .into(),
                ),
                None => {}
            }
            let (gdr, dmabuf) = cuda_gpudirect(&g.busid);
            g.gdr = gdr;
            g.dmabuf = dmabuf;
            snap.gpus.push(g);
            devices.push(dev);
        }
        let n = devices.len();
        if n > 1 {
            use nvml_wrapper::enum_wrappers::device::P2pCapabilitiesIndex as Idx;
            let matrix = |idx: Idx| -> Vec<Vec<String>> {
                (0..n)
                    .map(|a| {
                        (0..n)
                            .map(|b| {
                                if a == b {
                                    "X".to_string()
                                } else {
                                    match devices[a].p2p_status(&devices[b], idx) {
                                        Ok(s) => p2p_code(&format!("{s:?}")).to_string(),
                                        Err(_) => "U".to_string(),
                                    }
                                }
                            })
                            .collect()
                    })
                    .collect()
            };
            snap.p2p = P2pMatrix { read: Some(matrix(Idx::Read)), write: Some(matrix(Idx::Write)) };
        }
        Ok(NvmlLoad::Loaded(snap))
    }
}

/// nvidia-smi's short code for an NVML P2P status (matched on the variant name).
#[cfg(feature = "nvml")]
fn p2p_code(variant: &str) -> &'static str {
    match variant {
        "Ok" => "OK",
        "ChipsetNotSupported" => "CNS",
        "GpuNotSupported" => "GNS",
        "IohTopologyNotSupported" => "TNS",
        "DisabledByRegkey" => "DBR",
        "NotSupported" => "NS",
        _ => "U",
    }
}

#[cfg(feature = "nvml")]
fn real_nvlinks(dev: &nvml_wrapper::Device<'_>, sm: u32) -> Vec<NvLinkFacts> {
    use nvml_wrapper::enum_wrappers::nv_link::Capability;
    let mut out = Vec::new();
    for l in 0..MAX_LINKS {
        let link = dev.link_wrapper_for(l);
        let p2p = link.has_capability(Capability::P2p).unwrap_or(false);
        let active = if sm >= 90 {
            raw_field(dev, FI_NVLINK_GET_STATE, l).map(|v| v == 1).unwrap_or(false)
        } else {
            link.is_active().unwrap_or(false)
        };
        let remote = link.remote_pci_info().ok().map(|p| p.bus_id);
        out.push(NvLinkFacts { link: l, p2p, active, remote });
    }
    out
}

#[cfg(feature = "nvml")]
fn real_c2c(dev: &nvml_wrapper::Device<'_>) -> Option<Vec<C2cLink>> {
    let n = raw_field(dev, FI_C2C_LINK_COUNT, 0)?;
    Some(
        (0..n.min(64))
            .map(|l| C2cLink {
                active: raw_field(dev, FI_C2C_LINK_GET_STATUS, l) == Some(1),
                bw: raw_field(dev, FI_C2C_LINK_GET_MAX_BW, l),
            })
            .collect(),
    )
}

// NVML field ids (nvml.h; unaffected by nvml-wrapper's renumbering of ids 251-273).
#[cfg(feature = "nvml")]
const FI_NVLINK_GET_STATE: u32 = 165;
#[cfg(feature = "nvml")]
const FI_C2C_LINK_COUNT: u32 = 170;
#[cfg(feature = "nvml")]
const FI_C2C_LINK_GET_STATUS: u32 = 171;
#[cfg(feature = "nvml")]
const FI_C2C_LINK_GET_MAX_BW: u32 = 172;

/// `nvmlFieldValue_t`, laid out as in nvml.h. nvml-wrapper's `field_values_for` cannot
/// set `scopeId` (the link number), which NCCL's per-link queries need.
#[cfg(feature = "nvml")]
#[repr(C)]
struct RawFieldValue {
    field_id: u32,
    scope_id: u32,
    timestamp: i64,
    latency_usec: i64,
    value_type: u32,
    nvml_return: u32,
    value: u64,
}

/// `nvmlGpuFabricInfo_v2_t`, laid out as in nvml.h; NCCL asks for this version.
#[cfg(feature = "nvml")]
#[repr(C)]
struct RawFabricInfoV2 {
    version: u32,
    cluster_uuid: [u8; 16],
    status: u32,
    clique_id: u32,
    state: u8,
    health_mask: u32,
}

/// `nvmlGpuFabricInfoV_t` (version 3), the buffer the versioned call is given: the v2
/// answer fits in it.
#[cfg(feature = "nvml")]
#[repr(C)]
struct RawFabricInfoV {
    v2: RawFabricInfoV2,
    health_summary: u8,
}

#[cfg(feature = "nvml")]
fn pointee_size_1<D, T, R>(_f: unsafe extern "C" fn(D, *mut T) -> R) -> usize {
    std::mem::size_of::<T>()
}

/// The GPU's fabric registration as NCCL reads it (`ncclNvmlDeviceGetGpuFabricInfoV`,
/// version 2; a failed call leaves it not supported). `None` when this NVML has no
/// versioned call (NCCL uses no other, so it sees no registration either).
#[cfg(feature = "nvml")]
fn real_fabric(dev: &nvml_wrapper::Device<'_>) -> Option<Option<FabricInfo>> {
    let sym = *dev.nvml().lib().nvmlDeviceGetGpuFabricInfoV.as_ref().ok()?;
    if pointee_size_1(sym) != std::mem::size_of::<RawFabricInfoV>() {
        return Some(None);
    }
    let version = std::mem::size_of::<RawFabricInfoV2>() as u32 | (2 << 24);
    let mut v = RawFabricInfoV {
        v2: RawFabricInfoV2 { version, cluster_uuid: [0; 16], status: 0, clique_id: 0, state: 0, health_mask: 0 },
        health_summary: 0,
    };
    // SAFETY: the handle comes from a live Device; the buffer has the C layout of
    // nvmlGpuFabricInfoV_t (size checked above) and asks for the smaller version 2.
    let ret = unsafe { sym(dev.handle(), (&mut v as *mut RawFabricInfoV).cast()) };
    let f = &v.v2;
    Some((ret == 0).then(|| FabricInfo::from_raw(f.state, f.status, f.cluster_uuid, f.clique_id)))
}

#[cfg(feature = "nvml")]
fn pointee_size<D, T, R>(_f: unsafe extern "C" fn(D, std::ffi::c_int, *mut T) -> R) -> usize {
    std::mem::size_of::<T>()
}

/// One scoped field value as an unsigned int, `None` on any failure.
#[cfg(feature = "nvml")]
fn raw_field(dev: &nvml_wrapper::Device<'_>, field: u32, scope: u32) -> Option<u32> {
    let sym = *dev.nvml().lib().nvmlDeviceGetFieldValues.as_ref().ok()?;
    if pointee_size(sym) != std::mem::size_of::<RawFieldValue>() {
        return None;
    }
    let mut v = RawFieldValue {
        field_id: field,
        scope_id: scope,
        timestamp: 0,
        latency_usec: 0,
        value_type: 0,
        nvml_return: 0,
        value: 0,
    };
    // SAFETY: the handle comes from a live Device; the struct has the C layout of
    // nvmlFieldValue_t (size checked above) and NVML writes only inside it.
    let ret = unsafe { sym(dev.handle(), 1, (&mut v as *mut RawFieldValue).cast()) };
    if ret != 0 || v.nvml_return != 0 {
        return None;
    }
    // uiVal is the low 32 bits of the value union on little-endian machines.
    let bytes = v.value.to_ne_bytes();
    Some(u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// CUDA's GPUDirect RDMA and DMA-BUF attributes of the GPU at `busid` (what NCCL reads
/// through cudaDeviceGetAttribute); `None` when the CUDA driver cannot be loaded.
#[cfg(feature = "nvml")]
fn cuda_gpudirect(busid: &str) -> (Option<bool>, Option<bool>) {
    use cudarc::driver::{result, sys};
    // SAFETY: only probes whether the shared library can be opened.
    if !unsafe { sys::is_culib_present() } {
        return (None, None);
    }
    if result::init().is_err() {
        return (None, None);
    }
    let Ok(c) = std::ffi::CString::new(busid) else { return (None, None) };
    let mut dev: sys::CUdevice = 0;
    // SAFETY: dev is a valid out pointer and c a NUL-terminated string.
    if unsafe { sys::cuDeviceGetByPCIBusId(&mut dev, c.as_ptr()) } != sys::CUresult::CUDA_SUCCESS {
        return (None, None);
    }
    // SAFETY: dev was returned by the driver.
    let attr = |a| unsafe { result::device::get_attribute(dev, a) }.ok().map(|v| v != 0);
    (
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED),
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAKE: &str = r#"{
      "gpus": [
        {"index": 1, "busid": "00000000:3B:00.0", "sm": 80,
         "pci": {"vendor": "0x10de", "device": "0x20b0", "subsystem_vendor": "0x10de", "subsystem_device": "0x134f"},
         "nvlinks": [{"remote": "0000:07:00.0", "count": 2}, {"remote": "", "active": false}],
         "c2c": {"count": 4, "bw": 30000, "down": 1}},
        {"index": 0, "busid": "0000:18:00.0"}
      ],
      "p2p": {"read": [["X","OK"],["OK","X"]]}
    }"#;

    #[test]
    fn fake_file_parses_and_expands_links() {
        let s = parse_fake(FAKE, Path::new("n.json")).unwrap();
        assert_eq!(s.gpus[0].index, 0);
        let g = &s.gpus[1];
        assert_eq!(g.busid, "0000:3b:00.0");
        assert_eq!(g.pci_device_id, Some(0x20b010de));
        assert_eq!(g.pci_subsystem_id, Some(0x134f10de));
        assert_eq!(g.nvlinks.len(), 3);
        assert_eq!(g.nvlinks[1].link, 1);
        assert!(!g.nvlinks[2].active);
        let c = g.c2c.as_ref().unwrap();
        assert_eq!(c.iter().filter(|l| l.active).count(), 3);
        assert!(s.gpu("0000:3B:00.0").is_some());
    }

    #[test]
    fn fake_file_round_trips_through_writer() {
        let s = parse_fake(FAKE, Path::new("n.json")).unwrap();
        let text = to_fake_json(&s, "x");
        let mut t = parse_fake(&text, Path::new("n.json")).unwrap();
        t.source = s.source.clone();
        assert_eq!(s, t);
    }

    #[test]
    fn fabric_registrations_read_and_round_trip() {
        let text = r#"{"gpus": [
          {"index": 0, "busid": "0000:01:00.0",
           "fabric": {"state": "completed", "cluster_uuid": "9D2F5E1C7A434B8EA1C03E6F0B2D4C51", "clique_id": 5}},
          {"index": 1, "busid": "0000:02:00.0"}]}"#;
        let s = parse_fake(text, Path::new("n.json")).unwrap();
        assert!(s.fabric_known);
        let f = s.gpus[0].fabric.clone().unwrap();
        assert_eq!((f.state, f.status, f.clique_id), (FabricState::Completed, 0, 5));
        assert_eq!(f.cluster_uuid, "9d2f5e1c-7a43-4b8e-a1c0-3e6f0b2d4c51");
        // NCCL prints the UUID as its two little-endian 64-bit halves.
        assert_eq!(f.uuid_halves(), (0x8e4b437a1c5e2f9d, 0x514c2d0b6f3ec0a1));
        assert_eq!(s.gpus[1].fabric, None);
        let mut t = parse_fake(&to_fake_json(&s, "x"), Path::new("n.json")).unwrap();
        t.source = s.source.clone();
        assert_eq!(s, t);
        // A file without fabric keys knows nothing of it; bad values are named.
        assert!(!parse_fake(FAKE, Path::new("n.json")).unwrap().fabric_known);
        let bad = |f: &str| {
            let t = format!("{{\"gpus\": [{{\"index\": 0, \"busid\": \"0000:01:00.0\", \"fabric\": {f}}}]}}");
            parse_fake(&t, Path::new("f.json")).unwrap_err().to_string()
        };
        assert!(bad(r#"{"state": "completed", "cluster_uuid": "12"}"#).contains("fabric.cluster_uuid \"12\""));
        assert!(bad(r#"{"state": "done"}"#).contains("unknown variant `done`"));
        assert_eq!(FabricState::from_nvml(3), FabricState::Completed);
        assert_eq!(FabricState::from_nvml(9), FabricState::NotSupported);
    }

    #[test]
    fn fake_file_errors_name_the_problem() {
        let e = parse_fake("{\"gpus\": [{\"index\": 0, \"busid\": \"zz\"}]}", Path::new("f.json")).unwrap_err();
        assert!(e.to_string().contains("f.json") && e.to_string().contains("zz"), "{e}");
        let e = parse_fake("{\"gpus\": [], \"bogus\": 1}", Path::new("f.json")).unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        let e = parse_fake(
            "{\"gpus\": [{\"index\": 0, \"busid\": \"0000:01:00.0\"}], \"p2p\": {\"read\": [[\"X\", \"OK\"]]}}",
            Path::new("f.json"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("1x1"), "{e}");
        // Counts no NVML gives are refused before anything is allocated for them.
        let gpu = |links: &str| format!("{{\"gpus\": [{{\"index\": 0, \"busid\": \"0000:01:00.0\", {links}}}]}}");
        let e = parse_fake(&gpu("\"nvlinks\": [{\"remote\": \"\", \"count\": 2147483648}]"), Path::new("f.json"));
        assert!(e.unwrap_err().to_string().contains("NVML reports at most 18"));
        let e = parse_fake(&gpu("\"c2c\": {\"count\": 2147483648, \"bw\": 1, \"down\": 0}"), Path::new("f.json"));
        assert!(e.unwrap_err().to_string().contains("c2c count 2147483648"));
        assert!(parse_fake(&gpu("\"nvlinks\": [{\"remote\": \"\", \"count\": 18}]"), Path::new("f.json")).is_ok());
        // So are the other numbers no machine has, each naming its field.
        for (field, needle) in [
            ("\"c2c\": {\"count\": 10, \"bw\": 4000000000, \"down\": 0}", "c2c bw 4000000000"),
            ("\"sm\": 4000000000", "sm 4000000000"),
            ("\"sm\": 0", "sm 0 is not a compute capability"),
            ("\"pcie\": {\"gen\": 99}", "pcie.gen 99"),
            ("\"pcie\": {\"max_gen\": 4294967295}", "pcie.max_gen 4294967295"),
            ("\"pcie\": {\"width\": 12}", "pcie.width 12"),
            ("\"pcie\": {\"max_width\": 64}", "pcie.max_width 64"),
        ] {
            let e = parse_fake(&gpu(field), Path::new("f.json")).unwrap_err().to_string();
            assert!(e.starts_with("f.json: gpu index 0: ") && e.contains(needle), "{field}: {e}");
        }
        let ok = "\"sm\": 90, \"pcie\": {\"gen\": 5, \"width\": 16, \"max_gen\": 5, \"max_width\": 16}, \"c2c\": {\"count\": 10, \"bw\": 45000}";
        parse_fake(&gpu(ok), Path::new("f.json")).unwrap();
    }

    #[test]
    #[cfg(feature = "nvml")]
    fn real_nvml_absent_is_a_notice_not_an_error() {
        // On machines without libnvidia-ml this is Unavailable; with one, Loaded. Never Err.
        assert!(RealNvml.load().is_ok());
    }

    #[test]
    #[cfg(not(feature = "nvml"))]
    fn real_nvml_in_a_build_without_it_is_an_error_naming_the_feature() {
        let e = RealNvml.load().unwrap_err().to_string();
        assert!(e.contains("`nvml` feature") && e.contains("--nvml-fake"), "{e}");
    }
}
