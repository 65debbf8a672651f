//! Network devices as NCCL's built-in network plugins list them.
//!
//! * **IB/RoCE** (`/sys/class/infiniband`): one device per *active* port whose link layer
//!   is InfiniBand or Ethernet, as NCCL's IB plugin. Speed from the port's `rate`
//!   (`400 Gb/sec (4X NDR)` -> 400000 Mb/s), GUID from `sys_image_guid` printed the way
//!   NCCL prints the raw (big-endian) value on a little-endian host. The PCI path used for
//!   placement has its function digit (and, as `NCCL_IB_MERGE_VFS=1` does, its device
//!   digits) set to `0`, so the ports and VFs of one card share one `<pci>`; `port` is the
//!   port number plus the count of earlier devices on that same path. Devices are ordered
//!   by PCI bus id, as `NCCL_IB_DEVICE_PCI_ORDER=1` does. `maxconn` (the verbs `max_qp`)
//!   is not in sysfs: the fake-NVML file may give it, else 131072 (ConnectX) is written.
//! * **Sockets** (`/sys/class/net`), used only when no IB port is active, as NCCL falls
//!   back to its socket plugin: interfaces under `/sys/devices/virtual` (lo, bridges,
//!   veth, ifb, bonds) are skipped; `ib*` interfaces are preferred, then all others but
//!   `docker*`/`virbr*`, in ifindex order. A `speed` of -1 or an unreadable one becomes
//!   10000 Mb/s, as in NCCL.
//!
//! AWS EFA devices (PCI vendor 0x1d0f) are placed at their own PCI address with their own
//! port number, as the aws-ofi-nccl plugin that drives them on AWS reports them.
//!
//! `gdr` on an IB device is NCCL's rule: a peer-memory module is loaded
//! (`nvidia_peermem` or the legacy `nv_peer_mem`), or DMA-BUF works (every GPU reports
//! it and the kernel is 5.12 or newer).

use crate::discover::nvml::NvmlSnapshot;
use crate::discover::sysfs::{Level, Sys, basename};
use crate::xml::{busid_to_i64, strtol};

/// Which NCCL plugin lists the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NetKind {
    Ib,
    Socket,
}

/// One network device (one NCCL `net`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NetFacts {
    pub name: String,
    pub kind: NetKind,
    /// NCCL's network device index.
    pub dev: usize,
    /// IB port number in the device (1-based); 0 for sockets.
    pub port_num: u32,
    /// `port` as NCCL writes it.
    pub port: u32,
    /// Mb/s, as NCCL writes it.
    pub speed: i64,
    pub guid: u64,
    pub maxconn: u32,
    pub gdr: bool,
    pub link_layer: Option<String>,
    /// Realpath of the device (`.../0000:18:00.1`); `None` for a device without one.
    pub device_path: Option<String>,
    /// The path NCCL places the device by.
    pub pci_path: Option<String>,
}

/// IB ports seen but not used (down, or an unknown link layer), for messages.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IdlePort {
    pub name: String,
    pub port: u32,
    pub state: String,
    pub link_layer: String,
}

/// Whether a kernel peer-memory module for GPUDirect RDMA is loaded (NCCL's test).
pub fn peermem_loaded(sys: &Sys) -> bool {
    [
        "/sys/kernel/mm/memory_peers/nv_mem/version",
        "/sys/kernel/mm/memory_peers/nv_mem_nc/version",
        "/sys/module/nvidia_peermem/version",
    ]
    .iter()
    .any(|p| sys.exists(p))
}

/// The kernel release (`/proc/sys/kernel/osrelease`) as (major, minor).
pub fn kernel_version(sys: &Sys) -> Option<(u32, u32)> {
    let r = sys.read("/proc/sys/kernel/osrelease")?;
    let mut it = r.trim().split(|c: char| !c.is_ascii_digit());
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

/// Whether DMA-BUF registration would work: every GPU supports it and the kernel can
/// register DMA-BUF memory with RDMA devices (5.12+).
pub fn dmabuf_usable(sys: &Sys, nvml: Option<&NvmlSnapshot>) -> bool {
    let gpus_ok = nvml.is_some_and(|n| !n.gpus.is_empty() && n.gpus.iter().all(|g| g.dmabuf == Some(true)));
    gpus_ok && kernel_version(sys).is_some_and(|v| v >= (5, 12))
}

/// PCI vendor id of Amazon (EFA).
const EFA_VENDOR: &str = "0x1d0f";

fn is_efa(sys: &Sys, n: &NetFacts) -> bool {
    n.device_path.as_deref().and_then(|p| sys.read(&format!("{p}/vendor"))).as_deref() == Some(EFA_VENDOR)
}

/// Parse a `rate` file into Mb/s.
pub fn parse_rate(rate: &str) -> Option<i64> {
    let num: String = rate.trim().chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let gbps: f64 = num.parse().ok()?;
    if !rate.contains("Gb/sec") {
        return None;
    }
    Some((gbps * 1000.0).round() as i64)
}

/// Parse `sys_image_guid` (`58a2:e103:00b1:7ca8`) into the value NCCL prints.
pub fn parse_guid(s: &str) -> Option<u64> {
    let hex: String = s.trim().chars().filter(|&c| c != ':').collect();
    if hex.len() != 16 {
        return None;
    }
    let raw = u64::from_str_radix(&hex, 16).ok()?;
    // ibverbs keeps GUIDs in network byte order; NCCL prints the integer as stored.
    Some(u64::from_le_bytes(raw.to_be_bytes()))
}

/// NCCL's path rewrite that merges the ports (function digit) and, with
/// `NCCL_IB_MERGE_VFS=1`, the VFs (device digits) of one card.
fn merged_path(full: &str, merge_vfs: bool) -> String {
    let mut b = full.as_bytes().to_vec();
    let n = b.len();
    if n >= 4 {
        b[n - 1] = b'0';
        if merge_vfs {
            b[n - 3] = b'0';
            b[n - 4] = b'0';
        }
    }
    String::from_utf8(b).unwrap_or_else(|_| full.to_string())
}

/// Whether two merged paths name the same card (NCCL compares all but the last 4
/// bytes, or all but the last one without VF merging).
fn same_card(a: &str, b: &str, merge_vfs: bool) -> bool {
    let k = if merge_vfs { 4 } else { 1 };
    let n = a.len().saturating_sub(k);
    a.len() >= k && b.len() >= n && a.as_bytes()[..n] == b.as_bytes()[..n]
}

/// List the network devices NCCL would use, in NCCL's device order.
pub fn enumerate(sys: &Sys, nvml: Option<&NvmlSnapshot>, merge_vfs: bool) -> (Vec<NetFacts>, Vec<IdlePort>) {
    let (ib, idle) = infiniband(sys, nvml, merge_vfs);
    if !ib.is_empty() {
        return (ib, idle);
    }
    (sockets(sys), idle)
}

fn infiniband(sys: &Sys, nvml: Option<&NvmlSnapshot>, merge_vfs: bool) -> (Vec<NetFacts>, Vec<IdlePort>) {
    let gdr = peermem_loaded(sys) || dmabuf_usable(sys, nvml);
    let mut out: Vec<(i64, NetFacts)> = Vec::new();
    let mut idle = Vec::new();
    let mut assumed_qp = false;
    for name in sys.list("/sys/class/infiniband") {
        let base = format!("/sys/class/infiniband/{name}");
        let mut ports: Vec<u32> = sys.list(&format!("{base}/ports")).iter().filter_map(|p| p.parse().ok()).collect();
        ports.sort_unstable();
        if ports.is_empty() {
            sys.notice(Level::Warning, Some(&format!("{base}/ports")), "IB device without ports; skipped");
        }
        for p in ports {
            let pdir = format!("{base}/ports/{p}");
            let state = sys.read(&format!("{pdir}/state")).unwrap_or_default();
            let ll = sys.read(&format!("{pdir}/link_layer")).unwrap_or_default();
            let active = state.split(':').nth(1).map(str::trim) == Some("ACTIVE") || state.trim() == "ACTIVE";
            if !active || !(ll == "InfiniBand" || ll == "Ethernet") {
                idle.push(IdlePort { name: name.clone(), port: p, state: state.clone(), link_layer: ll.clone() });
                continue;
            }
            let rate_file = format!("{pdir}/rate");
            let speed = match sys.read(&rate_file).as_deref().and_then(parse_rate) {
                Some(s) => s,
                None => {
                    sys.notice(
                        Level::Warning,
                        Some(&rate_file),
                        "no readable rate; speed 0 written (NCCL reads 10 Gb/s)",
                    );
                    0
                }
            };
            let guid_file = format!("{base}/sys_image_guid");
            let guid = match sys.read(&guid_file).as_deref().and_then(parse_guid) {
                Some(g) => g,
                None => {
                    sys.notice(Level::Warning, Some(&guid_file), "no readable GUID; guid 0x0 written");
                    0
                }
            };
            let device_path = sys.realpath(&format!("{base}/device"));
            if device_path.is_none() {
                sys.notice(
                    Level::Warning,
                    Some(&format!("{base}/device")),
                    "cannot resolve the device; placed under a CPU",
                );
            }
            let maxconn = match nvml.and_then(|n| n.ib_max_qp.get(&name)) {
                Some(&q) => q,
                None => {
                    assumed_qp = true;
                    131072
                }
            };
            let key = device_path.as_deref().map(|p| busid_to_i64(basename(p))).unwrap_or(i64::MAX);
            // AWS EFA devices are driven by the aws-ofi-nccl plugin, which reports the
            // device's own PCI path; NCCL's IB plugin rewrite applies to the others.
            let efa =
                device_path.as_deref().and_then(|p| sys.read(&format!("{p}/vendor"))).as_deref() == Some(EFA_VENDOR);
            if efa {
                sys.notice(
                    Level::Info,
                    None,
                    "EFA devices are placed at their own PCI address, as the aws-ofi-nccl plugin reports them",
                );
            }
            out.push((
                key,
                NetFacts {
                    name: name.clone(),
                    kind: NetKind::Ib,
                    dev: 0,
                    port_num: p,
                    port: p,
                    speed,
                    guid,
                    maxconn,
                    gdr,
                    link_layer: Some(ll),
                    pci_path: if efa {
                        device_path.clone()
                    } else {
                        device_path.as_deref().map(|p| merged_path(p, merge_vfs))
                    },
                    device_path,
                },
            ));
        }
    }
    out.sort_by_key(|(k, _)| *k);
    let mut nets: Vec<NetFacts> = out.into_iter().map(|(_, n)| n).collect();
    for d in 0..nets.len() {
        let real = match nets[d]
            .pci_path
            .as_ref()
            .filter(|_| nets[d].pci_path != nets[d].device_path || !is_efa(sys, &nets[d]))
        {
            Some(p) => {
                nets[..d].iter().filter(|o| o.pci_path.as_deref().is_some_and(|q| same_card(p, q, merge_vfs))).count()
            }
            None => 0,
        };
        nets[d].dev = d;
        nets[d].port = nets[d].port_num + real as u32;
    }
    for n in &nets {
        warn_merged_elsewhere(sys, n);
    }
    if assumed_qp && !nets.is_empty() {
        sys.notice(
            Level::Info,
            None,
            "the IB verbs max_qp is not in sysfs: maxconn=\"131072\" (the ConnectX value) written for IB devices",
        );
    }
    for i in &idle {
        sys.notice(
            Level::Info,
            None,
            format!(
                "IB device {} port {} not used by NCCL (state '{}', link layer '{}')",
                i.name, i.port, i.state, i.link_layer
            ),
        );
    }
    (nets, idle)
}

/// NCCL's path rewrite can land on another device (VFs on a flat VM bus land on the host
/// bridge at device 0) or on none: say so, since NCCL then places the NIC there.
fn warn_merged_elsewhere(sys: &Sys, n: &NetFacts) {
    let (Some(full), Some(merged)) = (&n.device_path, &n.pci_path) else { return };
    if full == merged {
        return;
    }
    let ids = |p: &str| (sys.read(&format!("{p}/vendor")), sys.read(&format!("{p}/device")));
    let (from, to) = (basename(full), basename(merged));
    if !sys.exists(merged) {
        sys.notice(
            Level::Warning,
            None,
            format!("NCCL_IB_MERGE_VFS=1 places {} ({from}) at {to}, which does not exist: NCCL attaches it to an unknown CPU; NCCL_IB_MERGE_VFS=0 avoids it", n.name),
        );
    } else if ids(full) != ids(merged) {
        sys.notice(
            Level::Warning,
            None,
            format!(
                "NCCL_IB_MERGE_VFS=1 places {} ({from}) under {to}, a different device: NCCL reports the NIC there (its class and link); NCCL_IB_MERGE_VFS=0 avoids it",
                n.name
            ),
        );
    }
}

fn sockets(sys: &Sys) -> Vec<NetFacts> {
    let mut cands: Vec<(i64, String, Option<String>)> = Vec::new();
    for name in sys.list("/sys/class/net") {
        let real = sys.realpath(&format!("/sys/class/net/{name}"));
        if real.as_deref().is_some_and(|r| r.starts_with("/sys/devices/virtual/")) {
            continue;
        }
        let ifindex = sys.read(&format!("/sys/class/net/{name}/ifindex")).map(|s| strtol(&s)).unwrap_or(i64::MAX);
        let dev = sys.realpath(&format!("/sys/class/net/{name}/device"));
        cands.push((ifindex, name, dev));
    }
    cands.sort();
    let ib: Vec<_> = cands.iter().filter(|c| c.1.starts_with("ib")).cloned().collect();
    let chosen = if ib.is_empty() {
        cands.into_iter().filter(|c| !c.1.starts_with("docker") && !c.1.starts_with("virbr")).collect()
    } else {
        ib
    };
    let mut nets = Vec::new();
    for (i, (_, name, dev)) in chosen.into_iter().enumerate() {
        let file = format!("/sys/class/net/{name}/speed");
        let raw = sys.read(&file);
        let mut speed = raw.as_deref().map(strtol).unwrap_or(0);
        if speed <= 0 {
            sys.notice(
                Level::Info,
                Some(&file),
                format!(
                    "speed {}: NCCL takes 10000 Mb/s for {name}",
                    raw.as_deref().map(|s| format!("'{s}'")).unwrap_or_else(|| "unreadable".into())
                ),
            );
            speed = 10000;
        }
        nets.push(NetFacts {
            name,
            kind: NetKind::Socket,
            dev: i,
            port_num: 0,
            port: 0,
            speed,
            guid: i as u64,
            maxconn: 65536,
            gdr: false,
            link_layer: None,
            pci_path: dev.clone(),
            device_path: dev,
        });
    }
    nets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_guids() {
        assert_eq!(parse_rate("400 Gb/sec (4X NDR)"), Some(400000));
        assert_eq!(parse_rate("2.5 Gb/sec (1X SDR)"), Some(2500));
        assert_eq!(parse_rate("junk"), None);
        assert_eq!(parse_guid("58a2:e103:00b1:7ca8"), Some(0xa87cb10003e1a258));
        assert_eq!(parse_guid("58a2:e103"), None);
    }

    #[test]
    fn card_merging_like_nccl() {
        assert_eq!(merged_path("/sys/devices/pci0000:00/0000:18:00.1", true), "/sys/devices/pci0000:00/0000:18:00.0");
        assert_eq!(merged_path("/sys/devices/pci0000:00/0000:18:02.3", true), "/sys/devices/pci0000:00/0000:18:00.0");
        assert_eq!(merged_path("/sys/devices/pci0000:00/0000:18:02.3", false), "/sys/devices/pci0000:00/0000:18:02.0");
        assert!(same_card("/x/0000:18:00.0", "/x/0000:18:00.0", true));
        assert!(same_card("/x/0000:18:01.0", "/x/0000:18:00.0", true));
        assert!(!same_card("/x/0000:18:01.0", "/x/0000:18:00.0", false));
        assert!(!same_card("/x/0000:18:00.0", "/x/0000:19:00.0", true));
    }
}
