//! `topo detect`: the machine's topology as NCCL's own detection would write it.
//!
//! Sources: the PCI tree, NUMA nodes and network devices from sysfs ([`sysfs`], live or
//! under `--root DIR`), `/proc/cpuinfo`, and the GPUs' NVML facts from an
//! [`nvml::NvmlSource`] (real NVML, or a fake JSON file for tests). The XML is built the
//! way NCCL 2.30.7 builds `NCCL_TOPO_DUMP_FILE` ([`walk`]): one pass per GPU, as each rank
//! does (its GPU, then every network device, then the trim that drops what nobody
//! uses), the passes fused in rank order. NVSwitches, and with `--all` every PCI device
//! and NUMA node, are added afterwards (NCCL has no use for them, but people do).
//!
//! `--topo-file FILE` seeds every pass with the file, as `NCCL_TOPO_FILE` does:
//! attributes in the file win, detection fills the missing ones, and branches of the
//! file holding no detected GPU or NIC are trimmed. Two NCCL behaviours differ on
//! purpose: NCCL rereads `class` from sysfs even when the file has one (topo keeps the
//! file's), and NCCL replaces every `host_hash` with this host's (topo does too).

pub mod cpumap;
pub mod nccl;
pub mod net;
pub mod nvml;
pub mod sysfs;
pub mod walk;

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::release::Release;
use crate::xml::{self, Xml};
use net::{IdlePort, NetFacts};
use nvml::{FakeNvml, NoNvml, NvmlLoad, NvmlSnapshot, NvmlSource, RealNvml};
use sysfs::{Level, Notice, Sys};
use walk::{CpuInfo, Ctx};

/// Where the machine facts come from: this machine, or a `--root` tree, with NVML's
/// answers from the driver or a fake-NVML JSON file.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// Read DIR/sys and DIR/proc instead of /sys and /proc (hwloc's fsroot layout);
    /// NVML facts then come from DIR/nvml.json when it exists.
    pub root: Option<PathBuf>,
    /// Take NVML's answers from this JSON file instead of libnvidia-ml.
    pub nvml_fake: Option<PathBuf>,
}

impl Source {
    /// Open the file-system view and the NVML source these flags name.
    pub fn open(&self) -> Result<(Sys, Box<dyn NvmlSource>), Error> {
        let sys = match &self.root {
            Some(dir) => Sys::at(dir)?,
            None => Sys::live(),
        };
        let nvml: Box<dyn NvmlSource> = match (&self.nvml_fake, &self.root) {
            (Some(f), _) => Box::new(FakeNvml { path: f.clone() }),
            (None, Some(dir)) if dir.join("nvml.json").is_file() => Box::new(FakeNvml { path: dir.join("nvml.json") }),
            (None, Some(dir)) => Box::new(NoNvml(format!(
                "no NVML for a --root tree ({} has no nvml.json and no --nvml-fake was given)",
                dir.display()
            ))),
            (None, None) => Box::new(RealNvml),
        };
        Ok((sys, nvml))
    }

    /// How the input is named in messages: `detected:this machine` or `detected:DIR`.
    pub fn label(&self) -> String {
        match &self.root {
            Some(r) => format!("detected:{}", r.display()),
            None => "detected:this machine".into(),
        }
    }
}

/// What to detect.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Keep every PCI device and NUMA node, not only what NCCL keeps.
    pub all: bool,
    /// Seed detection with this topology file, as NCCL_TOPO_FILE does.
    pub topo_file: Option<PathBuf>,
    /// NCCL_IB_MERGE_VFS; `None` is NCCL's default (1).
    pub ib_merge_vfs: Option<bool>,
    /// NCCL_HOSTID: replaces host name and boot id in the host hash (live machine only).
    pub host_id: Option<String>,
    /// The NCCL release whose detection is modelled (what it writes differs).
    pub release: Release,
}

impl Options {
    /// Options carrying what detection reads from NCCL's environment, for the release
    /// the environment is read for.
    pub fn with_env(env: &crate::env::Env) -> Options {
        Options {
            ib_merge_vfs: Some(env.detect.ib_merge_vfs),
            host_id: env.detect.host_id.clone(),
            release: env.release(),
            ..Options::default()
        }
    }
}

/// The result of detection.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Detection {
    /// The topology, in NCCL's form.
    #[serde(skip)]
    pub xml: Xml,
    /// `live` or the `--root` folder.
    pub source: String,
    pub nvml: Option<NvmlSnapshot>,
    pub cpu: CpuInfo,
    pub host_hash: String,
    /// NVIDIA display/3D devices in sysfs that NVML does not report (PCI facts only).
    pub gpus_without_nvml: Vec<String>,
    /// NVSwitches (class 0x068000) seen in sysfs.
    pub nvswitches: Vec<String>,
    pub nets: Vec<NetFacts>,
    pub idle_ports: Vec<IdlePort>,
    pub peermem: bool,
    pub dmabuf: bool,
    /// Elements in each rank's XML before fusion (NCCL refuses more than 256); one
    /// entry, the whole XML, before 2.22 (one pass for all ranks).
    pub rank_sizes: Vec<usize>,
    pub notices: Vec<Notice>,
}

impl Detection {
    /// Bus ids of every GPU found, from NVML or sysfs.
    pub fn gpu_busids(&self) -> Vec<String> {
        let mut v: Vec<String> = self.nvml.iter().flat_map(|n| n.gpus.iter().map(|g| g.busid.clone())).collect();
        v.extend(self.gpus_without_nvml.iter().cloned());
        v
    }

    /// One line saying what was found.
    pub fn summary(&self) -> String {
        let n_gpu = self.gpu_busids().len();
        let nvml = match &self.nvml {
            Some(s) => format!("NVML from {}", s.source),
            None => "no NVML".to_string(),
        };
        let kinds = match self.nets.first().map(|n| n.kind) {
            Some(net::NetKind::Ib) => " (IB/RoCE)",
            Some(net::NetKind::Socket) => " (sockets)",
            None => "",
        };
        format!(
            "found {n_gpu} GPU{} ({nvml}), {} network device{}{kinds}, {} NVSwitch{}; {} CPU{} in the XML, {} elements",
            if n_gpu == 1 { "" } else { "s" },
            self.nets.len(),
            if self.nets.len() == 1 { "" } else { "s" },
            self.nvswitches.len(),
            if self.nvswitches.len() == 1 { "" } else { "es" },
            walk::census(&self.xml).get("cpu").copied().unwrap_or(0),
            if walk::census(&self.xml).get("cpu").copied().unwrap_or(0) == 1 { "" } else { "s" },
            self.xml.live_count()
        )
    }
}

/// NCCL's 64-bit hash (`getHash` in bitops.h), written anew.
pub fn nccl_hash(bytes: &[u8]) -> u64 {
    let mut acc: [u64; 2] = [1, 1];
    acc[0] ^= bytes.len() as u64;
    for chunk in bytes.chunks(8) {
        acc[0] = acc[0].wrapping_add(acc[1]);
        acc[1] ^= acc[0];
        acc[0] ^= acc[0] >> 31;
        acc[0] = acc[0].wrapping_mul(0x9de62bbc8cef3ce3);
        acc[1] ^= acc[1] >> 32;
        acc[1] = acc[1].wrapping_mul(0x485cd6311b599e79);
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        acc[0] = acc[0].wrapping_add(u64::from_le_bytes(b));
    }
    let mut h = acc[0];
    h ^= h >> 31;
    h = h.wrapping_mul(0xbac3bd562846de6b);
    h = h.wrapping_add(acc[1]);
    h ^= h >> 32;
    h.wrapping_mul(0x995a187a14e7b445)
}

/// The string NCCL hashes into `host_hash`: the host name followed by the boot id
/// (`NCCL_HOSTID` replaces both on the live machine).
pub fn host_id(sys: &Sys, nccl_hostid: Option<&str>) -> String {
    if sys.is_live()
        && let Some(id) = nccl_hostid
    {
        return id.chars().take(1023).collect();
    }
    let host = match sys.read("/proc/sys/kernel/hostname") {
        Some(h) => h.trim_end().to_string(),
        None => {
            sys.notice(
                Level::Warning,
                Some("/proc/sys/kernel/hostname"),
                "missing; host name 'unknown' used for host_hash",
            );
            "unknown".to_string()
        }
    };
    let boot = sys
        .read("/proc/sys/kernel/random/boot_id")
        .and_then(|b| b.split_whitespace().next().map(str::to_string))
        .unwrap_or_default();
    format!("{host}{boot}")
}

/// `host_hash` as NCCL prints it (`%#lx`).
pub fn host_hash_string(sys: &Sys, nccl_hostid: Option<&str>) -> String {
    let h = nccl_hash(host_id(sys, nccl_hostid).as_bytes());
    if h == 0 { "0".into() } else { format!("{h:#x}") }
}

fn load_seed(sys: &Sys, path: &Path, host_hash: &str, release: Release) -> Result<Xml, Error> {
    let (limits, rewrite_host_hash) = (release.xml_limits(), release.detect_dialect().rewrite_host_hash);
    let (mut seed, diags) = xml::read_file(path)?;
    for d in diags {
        sys.notice(Level::Warning, Some(&path.display().to_string()), d.to_string());
    }
    xml::lint_topology(&seed, Some(path), limits)?;
    // From 2.27 NCCL replaces the host hash of every CPU of a loaded file with its own.
    if rewrite_host_hash {
        let cpus: Vec<_> = seed.preorder().into_iter().filter(|&n| seed.name(n) == "cpu").collect();
        for c in cpus {
            seed.set_attr(c, "host_hash", host_hash);
        }
    }
    Ok(seed)
}

/// Detect the machine behind `sys`, with GPU facts from `source`.
pub fn detect(sys: &Sys, source: &dyn NvmlSource, opts: &Options) -> Result<Detection, Error> {
    let host_hash = host_hash_string(sys, opts.host_id.as_deref());
    let (dialect, limits) = (opts.release.detect_dialect(), opts.release.xml_limits());
    let seed = match &opts.topo_file {
        Some(p) => load_seed(sys, p, &host_hash, opts.release)?,
        None => Xml::new_system(),
    };
    let nvml = match source.load()? {
        NvmlLoad::Loaded(s) => {
            for n in &s.notes {
                sys.notice(Level::Info, None, n.clone());
            }
            Some(s)
        }
        NvmlLoad::Unavailable(why) => {
            sys.notice(
                Level::Warning,
                None,
                format!("{why}: GPU facts from NVML (index, sm, NVLink, C2C, GDR) are not detected; PCI facts only"),
            );
            None
        }
    };
    let fallback = if sys.is_live() { walk::nccl_arch(std::env::consts::ARCH) } else { None };
    let cpu = match sys.read("/proc/cpuinfo") {
        Some(t) => CpuInfo::parse(&t, fallback),
        None => {
            sys.notice(Level::Warning, Some("/proc/cpuinfo"), "missing; CPU vendor and model unknown");
            CpuInfo { arch: fallback.map(str::to_string), ..Default::default() }
        }
    };

    // What sysfs shows on the PCI bus.
    let mut sysfs_gpus = Vec::new();
    let mut nvswitches = Vec::new();
    let mut endpoints = Vec::new();
    let devices = sys.list("/sys/bus/pci/devices");
    if devices.is_empty() {
        sys.notice(Level::Warning, Some("/sys/bus/pci/devices"), "no PCI devices listed");
    }
    for b in &devices {
        let Some(busid) = sysfs::normalize_busid(b) else { continue };
        let class = sys.read(&format!("/sys/bus/pci/devices/{b}/class")).unwrap_or_default();
        let vendor = sys.read(&format!("/sys/bus/pci/devices/{b}/vendor")).unwrap_or_default();
        if vendor == "0x10de" && class.starts_with("0x03") {
            sysfs_gpus.push(busid.clone());
        } else if vendor == "0x10de" && class.starts_with("0x0680") {
            nvswitches.push(busid.clone());
        }
        if !class.starts_with("0x0604") {
            endpoints.push(busid);
        }
    }
    let gpus_without_nvml: Vec<String> =
        sysfs_gpus.iter().filter(|b| nvml.as_ref().is_none_or(|n| n.gpu(b).is_none())).cloned().collect();
    if nvml.is_some() {
        for b in &gpus_without_nvml {
            sys.notice(
                Level::Warning,
                None,
                format!("NVIDIA GPU {b} is in sysfs but NVML does not report it; PCI facts only"),
            );
        }
    }

    let merge_vfs = opts.ib_merge_vfs.unwrap_or(true);
    let (nets, idle_ports) = net::enumerate(sys, nvml.as_ref(), merge_vfs);
    let ctx = Ctx { sys, nvml: nvml.as_ref(), cpu: cpu.clone(), host_hash: host_hash.clone(), dialect };

    // From 2.22, one pass per GPU, as each NCCL rank makes its own XML, then fusion in
    // rank order; before, one pass fills every local GPU in rank order.
    let gpus: Vec<(usize, &nvml::GpuFacts)> =
        nvml.as_ref().map(|n| n.gpus.iter().enumerate().collect()).unwrap_or_default();
    let passes: Vec<&[(usize, &nvml::GpuFacts)]> =
        if dialect.per_rank_passes && !gpus.is_empty() { gpus.chunks(1).collect() } else { vec![&gpus[..]] };
    let mut fused: Option<Xml> = None;
    let mut rank_sizes = Vec::new();
    for pass in passes {
        let mut x = seed.clone();
        for &(rank, g) in pass {
            ctx.fill_gpu(&mut x, g, rank);
        }
        for n in &nets {
            ctx.fill_net(&mut x, n);
        }
        walk::trim(&mut x, dialect.trim);
        let size = x.live_count();
        if size > limits.max_nodes {
            let whose = match pass {
                [(rank, _)] if dialect.per_rank_passes => format!("rank {rank}'s topology"),
                _ => "the topology".to_string(),
            };
            sys.notice(
                Level::Warning,
                None,
                format!("{whose} has {size} elements: NCCL fails above {} ('too many XML nodes')", limits.max_nodes),
            );
        }
        rank_sizes.push(size);
        walk::fuse(&mut fused, &x);
    }
    let mut out = fused.unwrap_or_else(Xml::new_system);

    // Devices NCCL does not detect itself, kept for people.
    let mut extra: Vec<String> = gpus_without_nvml.iter().chain(nvswitches.iter()).cloned().collect();
    if opts.all {
        extra.extend(endpoints.iter().cloned());
    }
    extra.sort();
    extra.dedup();
    for b in &extra {
        let n = ctx.pci_node(&mut out, b);
        ctx.fill_pci(&mut out, n, None);
    }
    if opts.all {
        for node in sys.list("/sys/devices/system/node") {
            let Some(id) = node.strip_prefix("node").filter(|i| i.chars().all(|c| c.is_ascii_digit()) && !i.is_empty())
            else {
                continue;
            };
            if sysfs::node_has_cpus(sys, &node) {
                let c = ctx.cpu_node(&mut out, id);
                ctx.fill_cpu(&mut out, c);
            }
        }
    }

    let total = out.live_count();
    if total > limits.max_nodes {
        sys.notice(
            Level::Warning,
            None,
            format!(
                "the topology has {total} elements: NCCL holds at most {} per rank and would fail to load it",
                limits.max_nodes
            ),
        );
    }
    let empty_speed: Vec<String> = out
        .preorder()
        .into_iter()
        .filter(|&n| out.name(n) == "pci" && out.attr(n, "link_speed") == Some(""))
        .filter_map(|n| out.attr(n, "busid").map(str::to_string))
        .collect();
    if !empty_speed.is_empty() {
        let shown: Vec<&str> = empty_speed.iter().take(4).map(String::as_str).collect();
        sys.notice(
            Level::Warning,
            None,
            format!(
                "{} PCI device{} without max_link_speed in sysfs ({}{}), typical of VMs: link_speed=\"\" is read by NCCL as Gen3 (8 GT/s)",
                empty_speed.len(),
                if empty_speed.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if empty_speed.len() > 4 { ", ..." } else { "" }
            ),
        );
    }
    if nvml.as_ref().is_none_or(|n| n.gpus.is_empty()) && sysfs_gpus.is_empty() {
        sys.notice(Level::Info, None, "no NVIDIA GPU found");
    }
    if nets.is_empty() {
        sys.notice(Level::Info, None, "no network device NCCL could use was found");
    }

    let peermem = net::peermem_loaded(sys);
    let dmabuf = net::dmabuf_usable(sys, nvml.as_ref());
    Ok(Detection {
        xml: out,
        source: if sys.is_live() { "live".into() } else { sys.root().display().to_string() },
        nvml,
        cpu,
        host_hash,
        gpus_without_nvml,
        nvswitches,
        nets,
        idle_ports,
        peermem,
        dmabuf,
        rank_sizes,
        notices: sys.take_notices(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_stable() {
        // Values computed by NCCL's own getHash on the same strings.
        assert_eq!(nccl_hash(b""), 0x75b6431c590e86a2);
        assert_eq!(nccl_hash(b"a"), 0xf67f960500f37951);
        assert_eq!(nccl_hash(b"topo-fake5f1c0a4e-2b7d-4c1e-9a53-7e0d8b6c2f10"), 0xd14a0501cb96ec4e);
    }
}
