//! Multi-node NVLink (MNNVL): whether NCCL turns it on for a job of identical hosts
//! whose GPUs share one NVLink fabric (the trays of a GB200/GB300 NVL rack), and what it
//! reports (`init.cc`, `mnnvl.cc`).
//!
//! The fabric facts NCCL reads from NVML (registration state, cluster UUID, clique id)
//! are not in a topology file: `--mnnvl` says every GPU with an NVLink to an NVSwitch is
//! registered, all with one cluster UUID and one clique id. A GPU without such an NVLink
//! has no fabric registration, and then NCCL keeps MNNVL off for the whole job.

use crate::env::Env;
use crate::types::PathType;
use crate::xml::{self, Xml};

/// NVML's PCI class of an NVSwitch, as an `<nvlink tclass>` names it.
const NVSWITCH_CLASS: &str = "0x068000";

/// What NCCL decided, as rank 0 sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Mnnvl {
    /// `comm->MNNVL`.
    pub enabled: bool,
    /// Ranks in rank 0's clique (0 when the check did not complete).
    pub clique_size: usize,
    /// Rank 0's index in its clique (-1 when off).
    pub clique_rank: i32,
    /// Ranks on rank 0's NVLink fabric, same cluster UUID (0 when not checked).
    pub nvl_domain_size: usize,
    /// Hosts whose topology rank 0's system holds (`system->nHosts`).
    pub hosts: usize,
}

impl Mnnvl {
    /// MNNVL off: one host, nothing counted.
    pub const OFF: Mnnvl = Mnnvl { enabled: false, clique_size: 0, clique_rank: -1, nvl_domain_size: 0, hosts: 1 };
}

/// Whether every GPU of the file has an NVLink to an NVSwitch (and so a fabric
/// registration on an NVL rack). False for a file without GPUs.
pub fn every_gpu_on_fabric(x: &Xml) -> bool {
    let Some(root) = x.root() else { return false };
    let gpus: Vec<_> = x
        .descendants_named(root, "gpu")
        .into_iter()
        .filter(|&g| x.attr(g, "dev").is_some_and(|d| xml::strtol(d) >= 0))
        .collect();
    !gpus.is_empty()
        && gpus.iter().all(|&g| {
            x.children(g).iter().any(|&l| {
                x.name(l) == "nvlink" && x.attr(l, "tclass").is_some_and(|c| c.eq_ignore_ascii_case(NVSWITCH_CLASS))
            })
        })
}

/// GPUs not on the fabric (no NVLink to an NVSwitch), by bus id: each of them keeps
/// MNNVL off for the whole job.
pub fn gpus_off_fabric(x: &Xml) -> Vec<String> {
    let Some(root) = x.root() else { return Vec::new() };
    x.descendants_named(root, "gpu")
        .into_iter()
        .filter(|&g| x.attr(g, "dev").is_some_and(|d| xml::strtol(d) >= 0))
        .filter(|&g| {
            !x.children(g).iter().any(|&l| {
                x.name(l) == "nvlink" && x.attr(l, "tclass").is_some_and(|c| c.eq_ignore_ascii_case(NVSWITCH_CLASS))
            })
        })
        .map(|g| x.parent(g).and_then(|p| x.attr(p, "busid")).unwrap_or("?").to_string())
        .collect()
}

/// What to tell the user about multi-node NVLink for this job, if anything: a tray of
/// an NVL rack (every GPU on an NVSwitch and joined to its Grace CPU by C2C) modelled as
/// separate nodes, or `--mnnvl` on GPUs NCCL would not fuse.
pub fn note(x: &Xml, env: &Env, nodes: usize, asked: bool, decided: &Mnnvl) -> Option<String> {
    if !env.release().mnnvl() {
        return asked
            .then(|| format!("--mnnvl: NCCL {} has no multi-node NVLink (2.20.3 and later): ignored", env.release()));
    }
    if asked {
        let off = gpus_off_fabric(x);
        if let Some(first) = off.first() {
            return Some(format!(
                "--mnnvl: GPU {first}{} has no NVLink to an NVSwitch, so no fabric registration: NCCL keeps MNNVL off \
                 and models {nodes} separate node(s)",
                if off.len() > 1 { format!(" (and {} more)", off.len() - 1) } else { String::new() }
            ));
        }
        if nodes == 1 && !decided.enabled && env.mnnvl.enable != 1 {
            return Some(
                "--mnnvl with --nodes 1: NCCL checks the fabric only across hosts (NCCL_MNNVL_ENABLE=1 forces it \
                 on one)"
                    .into(),
            );
        }
        return None;
    }
    let root = x.root()?;
    let every_gpu_c2c = x
        .descendants_named(root, "gpu")
        .into_iter()
        .filter(|&g| x.attr(g, "dev").is_some_and(|d| xml::strtol(d) >= 0))
        .all(|g| x.children(g).iter().any(|&l| x.name(l) == "c2c"));
    (nodes > 1 && env.mnnvl.enable != 0 && every_gpu_on_fabric(x) && every_gpu_c2c).then(|| {
        format!(
            "every GPU's NVLinks lead to an NVSwitch and its CPU is joined by C2C, as on the trays of a GB200/GB300 NVL \
             rack: there NCCL fuses the {nodes} trays into one system (MNNVL) and searches them as one node over \
             NVLink; this models {nodes} separate nodes joined by their NICs (add --mnnvl to model the rack)"
        )
    })
}

/// NCCL's decision for `hosts` identical hosts of `gpus_per_host` GPUs each.
/// `registered`: the fabric registration of every GPU is complete, one cluster UUID and
/// one clique id (`--mnnvl` on a file where [`every_gpu_on_fabric`]).
pub fn decide(env: &Env, hosts: usize, gpus_per_host: usize, registered: bool) -> Mnnvl {
    if !env.release().mnnvl() {
        return Mnnvl::OFF;
    }
    let m = &env.mnnvl;
    // init.cc: the check runs across hosts unless NCCL_MNNVL_ENABLE=0 or P2P is off
    // (NCCL_P2P_LEVEL=LOC, NCCL_P2P_DISABLE=1), and always with NCCL_MNNVL_ENABLE=1.
    let p2p_off = env.paths.p2p_level == Some(PathType::Loc);
    let checks = (hosts > 1 && m.enable != 0 && !p2p_off) || m.enable == 1;
    // mnnvl.cc: every rank registered, and a cluster UUID that is not zero.
    if !checks || !registered || m.uuid == 0 {
        return Mnnvl::OFF;
    }
    // One clique (NCCL_MNNVL_CLIQUE_ID is the same for every rank): every rank is in it.
    let n = hosts * gpus_per_host;
    if n <= 1 {
        return Mnnvl::OFF;
    }
    Mnnvl { enabled: true, clique_size: n, clique_rank: 0, nvl_domain_size: n, hosts }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        Env::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn on_across_hosts_off_when_disabled() {
        let on = decide(&env(&[]), 2, 4, true);
        assert_eq!((on.enabled, on.clique_size, on.nvl_domain_size, on.hosts), (true, 8, 8, 2));
        assert_eq!(decide(&env(&[("NCCL_MNNVL_ENABLE", "0")]), 2, 4, true), Mnnvl::OFF);
        assert_eq!(decide(&env(&[("NCCL_P2P_DISABLE", "1")]), 2, 4, true), Mnnvl::OFF);
        assert_eq!(decide(&env(&[("NCCL_P2P_LEVEL", "LOC")]), 2, 4, true), Mnnvl::OFF);
        assert_eq!(decide(&env(&[("NCCL_MNNVL_UUID", "0")]), 2, 4, true), Mnnvl::OFF);
        assert_eq!(decide(&env(&[]), 2, 4, false), Mnnvl::OFF);
    }

    #[test]
    fn one_host_only_when_forced() {
        assert_eq!(decide(&env(&[]), 1, 4, true), Mnnvl::OFF);
        let forced = decide(&env(&[("NCCL_MNNVL_ENABLE", "1")]), 1, 4, true);
        assert_eq!((forced.enabled, forced.clique_size, forced.hosts), (true, 4, 1));
        assert_eq!(decide(&env(&[("NCCL_MNNVL_ENABLE", "1")]), 1, 1, true), Mnnvl::OFF);
    }

    const TRAY: &str = r#"<system version="1"><cpu numaid="0" arch="arm64"><pci busid="0000:01:00.0" class="0x030200">
<gpu dev="0" sm="100" rank="0"><nvlink target="0000:00:00.0" count="18" tclass="0x068000"/><c2c bw="40000" count="9"/></gpu>
</pci></cpu></system>"#;

    #[test]
    fn a_rack_tray_as_separate_nodes_is_noted() {
        let x = xml::parse(TRAY, None).unwrap().0;
        let e = env(&[]);
        assert!(note(&x, &e, 2, false, &Mnnvl::OFF).is_some_and(|n| n.contains("--mnnvl")));
        assert_eq!(note(&x, &e, 1, false, &Mnnvl::OFF), None);
        assert_eq!(note(&x, &env(&[("NCCL_MNNVL_ENABLE", "0")]), 2, false, &Mnnvl::OFF), None);
        assert_eq!(note(&x, &e, 2, true, &decide(&e, 2, 1, true)), None);
        let lone = xml::parse(&TRAY.replace("0x068000", "0x030200"), None).unwrap().0;
        assert!(gpus_off_fabric(&lone) == ["0000:01:00.0"]);
        assert!(note(&lone, &e, 2, true, &Mnnvl::OFF).is_some_and(|n| n.contains("no NVLink to an NVSwitch")));
        assert_eq!(note(&lone, &e, 2, false, &Mnnvl::OFF), None);
    }

    #[test]
    fn before_2_20_3_there_is_none() {
        let e = Env::for_release(crate::release::Release::parse("2.19.3").unwrap(), Vec::<(String, String)>::new());
        assert_eq!(decide(&e, 2, 4, true), Mnnvl::OFF);
    }
}
