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

    #[test]
    fn before_2_20_3_there_is_none() {
        let e = Env::for_release(crate::release::Release::parse("2.19.3").unwrap(), Vec::<(String, String)>::new());
        assert_eq!(decide(&e, 2, 4, true), Mnnvl::OFF);
    }
}
