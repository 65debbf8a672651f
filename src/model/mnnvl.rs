//! Multi-node NVLink (MNNVL): whether NCCL turns it on for a job of identical hosts
//! whose GPUs share one NVLink fabric (the trays of a GB200/GB300 NVL rack), and what it
//! reports (`init.cc`, `mnnvl.cc`).
//!
//! The fabric facts NCCL reads from NVML (registration state, cluster UUID, clique id)
//! are not in a topology file: `--mnnvl` says every GPU with an NVLink to an NVSwitch is
//! registered, all with one cluster UUID and one clique id. A GPU without such an NVLink
//! has no fabric registration, and then NCCL keeps MNNVL off for the whole job. On a
//! detected machine the registrations NVML gave are used instead ([`detected_clique`]),
//! with NCCL_MNNVL_UUID and NCCL_MNNVL_CLIQUE_ID overriding them as in `init.cc`.

use crate::discover::nvml::{FabricInfo, FabricState, format_uuid};
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
    /// Cliques the job spans (`--mnnvl-cliques`): NCCL's nodes when MNNVL is on.
    pub cliques: usize,
    /// Ranks of different cliques of one NVLink domain connect by CUDA P2P over NVLink
    /// (`comm->p2pCrossClique`, NCCL_MNNVL_CROSS_CLIQUE, 2.30.3).
    pub cross_clique: bool,
}

impl Mnnvl {
    /// MNNVL off: one host, nothing counted.
    pub const OFF: Mnnvl = Mnnvl {
        enabled: false,
        clique_size: 0,
        clique_rank: -1,
        nvl_domain_size: 0,
        hosts: 1,
        cliques: 1,
        cross_clique: false,
    };
}

/// How the job's hosts fall into NVLink cliques, as the user states it (NVML's clique
/// ids are per GPU and not in a topology file): `cliques` equal cliques of consecutive
/// hosts (`--mnnvl-cliques`), each its own NVLink domain (cluster UUID) unless
/// `one_domain` (`--mnnvl-one-domain`: partitions of one domain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub cliques: usize,
    pub one_domain: bool,
}

impl Layout {
    /// One clique holds every host.
    pub const ONE: Layout = Layout { cliques: 1, one_domain: false };

    /// The layout NCCL ends up with once NCCL_MNNVL_UUID and NCCL_MNNVL_CLIQUE_ID have
    /// replaced what NVML says (`init.cc`): one UUID for every rank makes one domain, and
    /// one clique id for every rank in one domain makes one clique. The note says when
    /// a variable overrode the layout stated.
    pub fn effective(self, env: &Env) -> (Layout, Option<String>) {
        let m = &env.mnnvl;
        let one_domain = self.one_domain || m.uuid != -1;
        let same_id = m.clique_id != -1 && !(m.clique_id == -2 && env.release().mnnvl_rack_serial_clique());
        if self.cliques > 1 && one_domain && same_id {
            let why = format!(
                "NCCL_MNNVL_CLIQUE_ID={} gives every rank one clique id in one NVLink domain, so NCCL fuses the \
                 {} cliques stated (--mnnvl-cliques) into one",
                m.clique_id, self.cliques
            );
            return (Layout { cliques: 1, one_domain }, Some(why));
        }
        (Layout { cliques: self.cliques, one_domain }, None)
    }
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

/// Whether a topology looks like a tray of a GB200/GB300 NVL rack: every GPU has an
/// NVLink to an NVSwitch and is joined to its CPU by C2C. A heuristic: the XML cannot
/// tell a rack's switches from those of one box.
pub fn rack_tray(x: &Xml) -> bool {
    let Some(root) = x.root() else { return false };
    every_gpu_on_fabric(x)
        && x.descendants_named(root, "gpu")
            .into_iter()
            .filter(|&g| x.attr(g, "dev").is_some_and(|d| xml::strtol(d) >= 0))
            .all(|g| x.children(g).iter().any(|&l| x.name(l) == "c2c"))
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

/// The cluster UUID and clique id NCCL puts in a rank's fabric info (`init.cc`): NVML's,
/// unless NCCL_MNNVL_UUID (both 64-bit halves) or NCCL_MNNVL_CLIQUE_ID replaces them.
/// With NCCL_MNNVL_CLIQUE_ID=-2 the clique is a hash of the rack's serial number, the
/// same for every GPU of a tray: `None` stands for it.
fn effective(env: &Env, f: &FabricInfo) -> ([u8; 16], Option<u32>) {
    let m = &env.mnnvl;
    let uuid = if m.uuid != -1 {
        let half = (m.uuid as u64).to_le_bytes();
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&half);
        b[8..].copy_from_slice(&half);
        b
    } else {
        f.uuid_bytes()
    };
    let clique = match m.clique_id {
        -2 if env.release().mnnvl_rack_serial_clique() => None,
        -1 => Some(f.clique_id),
        c => Some(c as u32),
    };
    (uuid, clique)
}

/// Whether the fabric registrations of one node's GPUs (as detection read them from
/// NVML; `None`: not supported) let NCCL fuse identical nodes into one clique
/// (`mnnvl.cc`): every registration completed, a cluster UUID that is not zero, and
/// every GPU in the same cluster and clique. The error says why not.
pub fn detected_clique(env: &Env, fabric: &[Option<FabricInfo>]) -> Result<(), String> {
    if fabric.is_empty() {
        return Err("no GPU reports a fabric registration".into());
    }
    for (i, f) in fabric.iter().enumerate() {
        let state = f.as_ref().map_or(FabricState::NotSupported, |f| f.state);
        if state != FabricState::Completed {
            return Err(format!(
                "GPU {i}'s NVLink fabric registration is {} (NVML), not completed",
                state.as_str().replace('_', " ")
            ));
        }
    }
    let ids: Vec<([u8; 16], Option<u32>)> = fabric.iter().flatten().map(|f| effective(env, f)).collect();
    if ids[0].0 == [0; 16] {
        return Err("the cluster UUID is zero (no multi-node fabric)".into());
    }
    if let Some((i, (u, c))) = ids.iter().enumerate().find(|(_, id)| **id != ids[0]) {
        let what = if *u != ids[0].0 {
            format!("cluster {} against GPU 0's {}", format_uuid(u), format_uuid(&ids[0].0))
        } else {
            format!("clique {:#x} against GPU 0's {:#x}", c.unwrap_or(0), ids[0].1.unwrap_or(0))
        };
        return Err(format!(
            "GPU {i} is registered in another clique than GPU 0 ({what}): NCCL would fuse only each GPU's own clique, \
             which topo does not model"
        ));
    }
    Ok(())
}

/// What to tell the user about multi-node NVLink for this job, if anything: a tray of
/// an NVL rack (every GPU on an NVSwitch and joined to its Grace CPU by C2C, or, on a
/// detected machine, registered with one fabric) modelled as separate nodes, or
/// `--mnnvl` on GPUs NCCL would not fuse. `detected`: the verdict of
/// [`detected_clique`] on the machine's registrations, when they are known.
pub fn note(
    x: &Xml,
    env: &Env,
    nodes: usize,
    asked: bool,
    decided: &Mnnvl,
    detected: Option<&Result<(), String>>,
) -> Option<String> {
    let rel = env.release();
    if rel.mnnvl_unfused() {
        return asked.then(|| {
            format!(
                "--mnnvl: NCCL {rel}'s multi-node NVLink (NCCL_MNNVL) does not fuse the trays: it comes on only when \
                 one clique holds every rank, each host then searches its own GPUs without NICs, rings cross hosts \
                 by P2P over NVLink, NVLS is off and tuning counts one node; topo does not model it (2.21.5 and \
                 later fuse) and models {nodes} separate node(s)"
            )
        });
    }
    if !rel.mnnvl() {
        return asked.then(|| format!("--mnnvl: NCCL {rel} has no multi-node NVLink (2.20.3 and later): ignored"));
    }
    if asked {
        if let Some(Err(why)) = detected {
            return Some(format!(
                "--mnnvl on this machine: {why}, so NCCL keeps MNNVL off and models {nodes} separate node(s)"
            ));
        }
        let off = if detected.is_some() { Vec::new() } else { gpus_off_fabric(x) };
        if let Some(first) = off.first() {
            return Some(format!(
                "--mnnvl: GPU {first}{} has no NVLink to an NVSwitch, so no fabric registration: NCCL keeps MNNVL off \
                 and models {nodes} separate node(s)",
                if off.len() > 1 { format!(" (and {} more)", off.len() - 1) } else { String::new() }
            ));
        }
        if nodes == 1 && !decided.enabled && (env.mnnvl.enable != 1 || !rel.mnnvl_forced_on_one_host()) {
            let forced = if rel.mnnvl_forced_on_one_host() {
                "NCCL_MNNVL_ENABLE=1 forces it on one".to_string()
            } else {
                format!("in NCCL {rel} even with NCCL_MNNVL_ENABLE=1; 2.25.1 and later check one host when forced")
            };
            return Some(format!("--mnnvl with --nodes 1: NCCL checks the fabric only across hosts ({forced})"));
        }
        return None;
    }
    if let Some(d) = detected {
        return (nodes > 1 && env.mnnvl.enable != 0 && d.is_ok()).then(|| {
            format!(
                "this machine's GPUs are registered with one NVLink fabric clique (NVML): on {nodes} such trays \
                 NCCL fuses them into one system (MNNVL) and searches them as one node over NVLink; this models \
                 {nodes} separate nodes joined by their NICs (add --mnnvl to model the clique)"
            )
        });
    }
    (nodes > 1 && env.mnnvl.enable != 0 && rack_tray(x)).then(|| {
        format!(
            "every GPU's NVLinks lead to an NVSwitch and its CPU is joined by C2C, as on the trays of a GB200/GB300 NVL \
             rack: there NCCL fuses the {nodes} trays into one system (MNNVL) and searches them as one node over \
             NVLink; this models {nodes} separate nodes joined by their NICs (add --mnnvl to model the rack)"
        )
    })
}

/// The MNNVL variables that are set but change nothing in this job, each with why.
/// NCCL_MNNVL_SCATTER_NETS_ENABLE and NCCL_MNNVL_RAIL_PER_HOST act only in the search of
/// a system fused from several hosts that still goes through the network (`inter`: the
/// job spans more than one clique); `hosts` is the fused system's, `inter` its verdict.
pub fn idle_variables(env: &Env, hosts: usize, inter: bool) -> Vec<String> {
    const WHAT: &[(&str, &str)] = &[
        ("NCCL_MNNVL_SCATTER_NETS_ENABLE", "orders the NICs the search tries"),
        ("NCCL_MNNVL_RAIL_PER_HOST", "pairs a channel's NICs on different trays (with NCCL_CROSS_NIC=0)"),
    ];
    let why = if hosts <= 1 {
        "this system is not fused from several hosts (MNNVL is off)"
    } else if !inter {
        "the clique holds the whole job, so the search stays on NVLink and never goes through a NIC"
    } else {
        return Vec::new();
    };
    WHAT.iter()
        .filter(|(name, _)| env.vars().contains_key(*name) && env.release().variable_since(name).is_none())
        .map(|(name, what)| {
            format!(
                "{name} is set but changes nothing here: it {what} in a system fused from several trays (MNNVL) \
                 whose search goes through the network, and {why}"
            )
        })
        .collect()
}

/// NCCL's decision for `hosts` identical hosts of `gpus_per_host` GPUs each, one
/// clique holding them all. `registered`: the fabric registration of every GPU is
/// complete, one cluster UUID and one clique id (`--mnnvl` on a file where
/// [`every_gpu_on_fabric`]).
pub fn decide(env: &Env, hosts: usize, gpus_per_host: usize, registered: bool) -> Mnnvl {
    decide_in(env, hosts, gpus_per_host, registered, Layout::ONE)
}

/// [`decide`] for hosts that fall into `layout.cliques` equal cliques (a divisor of
/// `hosts`; the layout after [`Layout::effective`]). Rank 0's clique is the first
/// `hosts / cliques` hosts. Derived from `mnnvl.cc` and `init.cc` at 2.30.7 (no NCCL
/// answers exist for several cliques): each rank counts its clique (same UUID and
/// clique id) and its NVLink domain (same UUID); MNNVL is on for a clique of two
/// ranks or more (from 2.30.3 also for a domain of two or more); each rank fuses
/// only its clique's hosts, so NCCL's nodes are the cliques.
pub fn decide_in(env: &Env, hosts: usize, gpus_per_host: usize, registered: bool, layout: Layout) -> Mnnvl {
    if !env.release().mnnvl() {
        return Mnnvl::OFF;
    }
    let m = &env.mnnvl;
    // init.cc: the check runs across hosts unless NCCL_MNNVL_ENABLE=0 or (2.27.3) P2P is
    // off (NCCL_P2P_LEVEL=LOC, NCCL_P2P_DISABLE=1), and with NCCL_MNNVL_ENABLE=1 also on
    // one host (2.25.1).
    let rel = env.release();
    let p2p_off = env.paths.p2p_level == Some(PathType::Loc) && rel.mnnvl_needs_p2p();
    let checks =
        (hosts > 1 && m.enable != 0 && !p2p_off) || (m.enable == 1 && (hosts > 1 || rel.mnnvl_forced_on_one_host()));
    // mnnvl.cc: every rank registered, and a cluster UUID that is not zero.
    if !checks || !registered || m.uuid == 0 {
        return Mnnvl::OFF;
    }
    let cliques = layout.cliques.max(1);
    let per_clique = hosts / cliques;
    let clique_size = per_clique * gpus_per_host;
    let nvl_domain_size = if layout.one_domain || cliques == 1 { hosts * gpus_per_host } else { clique_size };
    let rel = env.release();
    if clique_size <= 1 && !(rel.mnnvl_cross_clique() && nvl_domain_size > 1) {
        return Mnnvl::OFF;
    }
    // init.cc (2.30.3): cross-clique P2P only where the domain is larger than the clique.
    let cross_clique = rel.mnnvl_cross_clique() && m.cross_clique && nvl_domain_size > clique_size;
    Mnnvl { enabled: true, clique_size, clique_rank: 0, nvl_domain_size, hosts: per_clique, cliques, cross_clique }
}

/// What a job spanning several cliques does that the graphs and tuning do not show:
/// ranks in different cliques of one NVLink domain connect by P2P over NVLink
/// (NCCL_MNNVL_CROSS_CLIQUE), or the variable is set and changes nothing. `None`: they
/// connect over the network, as the graphs say.
pub fn cliques_note(env: &Env, decided: &Mnnvl) -> Option<String> {
    if !decided.enabled || decided.cliques <= 1 {
        return None;
    }
    if decided.cross_clique {
        return Some(format!(
            "NCCL_MNNVL_CROSS_CLIQUE=1 in one NVLink domain of {} ranks: ranks in different cliques connect by P2P \
             over NVLink (paths.cc ncclTopoCheckMNNVL), not by the NICs the graphs leave each clique through; the \
             search and tuning still count {} nodes and rate the NICs",
            decided.nvl_domain_size, decided.cliques
        ));
    }
    (env.mnnvl.cross_clique && env.release().mnnvl_cross_clique()).then(|| {
        "NCCL_MNNVL_CROSS_CLIQUE=1 changes nothing here: each clique is its own NVLink domain (add \
         --mnnvl-one-domain for partitions of one domain)"
            .to_string()
    })
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
        assert!(note(&x, &e, 2, false, &Mnnvl::OFF, None).is_some_and(|n| n.contains("--mnnvl")));
        assert_eq!(note(&x, &e, 1, false, &Mnnvl::OFF, None), None);
        assert_eq!(note(&x, &env(&[("NCCL_MNNVL_ENABLE", "0")]), 2, false, &Mnnvl::OFF, None), None);
        assert_eq!(note(&x, &e, 2, true, &decide(&e, 2, 1, true), None), None);
        let lone = xml::parse(&TRAY.replace("0x068000", "0x030200"), None).unwrap().0;
        assert!(gpus_off_fabric(&lone) == ["0000:01:00.0"]);
        assert!(note(&lone, &e, 2, true, &Mnnvl::OFF, None).is_some_and(|n| n.contains("no NVLink to an NVSwitch")));
        assert_eq!(note(&lone, &e, 2, false, &Mnnvl::OFF, None), None);
        // Detected registrations decide instead of the NVLinks.
        let no: Result<(), String> = Err("GPU 0's NVLink fabric registration is in progress".into());
        assert!(note(&x, &e, 2, true, &Mnnvl::OFF, Some(&no)).is_some_and(|n| n.contains("in progress")));
        assert_eq!(note(&x, &e, 2, false, &Mnnvl::OFF, Some(&no)), None);
        assert!(note(&lone, &e, 2, false, &Mnnvl::OFF, Some(&Ok(()))).is_some_and(|n| n.contains("registered")));
    }

    fn reg(state: FabricState, uuid: &str, clique: u32) -> Option<FabricInfo> {
        Some(FabricInfo { state, status: 0, cluster_uuid: uuid.into(), clique_id: clique })
    }

    const U1: &str = "9d2f5e1c-7a43-4b8e-a1c0-3e6f0b2d4c51";
    const U2: &str = "00000000-0000-0000-0000-000000000007";
    const ZERO: &str = "00000000-0000-0000-0000-000000000000";

    #[test]
    fn detected_registrations_as_nccl_reads_them() {
        use FabricState::*;
        let e = env(&[]);
        let one = [reg(Completed, U1, 7), reg(Completed, U1, 7)];
        assert_eq!(detected_clique(&e, &one), Ok(()));
        let pending = [reg(Completed, U1, 7), reg(InProgress, U1, 7)];
        assert!(
            detected_clique(&e, &pending).unwrap_err().contains("GPU 1's NVLink fabric registration is in progress")
        );
        assert!(detected_clique(&e, &[reg(Completed, U1, 7), None]).unwrap_err().contains("not supported"));
        assert!(detected_clique(&e, &[reg(Completed, ZERO, 7)]).unwrap_err().contains("zero"));
        let split = [reg(Completed, U1, 7), reg(Completed, U1, 8)];
        assert!(detected_clique(&e, &split).unwrap_err().contains("clique 0x8 against GPU 0's 0x7"));
        let two = [reg(Completed, U1, 7), reg(Completed, U2, 7)];
        assert!(detected_clique(&e, &two).unwrap_err().contains("cluster 00000000-"));
        // NCCL_MNNVL_UUID and NCCL_MNNVL_CLIQUE_ID replace what NVML says (init.cc).
        assert_eq!(detected_clique(&env(&[("NCCL_MNNVL_UUID", "5")]), &two), Ok(()));
        assert!(detected_clique(&env(&[("NCCL_MNNVL_UUID", "0")]), &one).unwrap_err().contains("zero"));
        assert_eq!(detected_clique(&env(&[("NCCL_MNNVL_CLIQUE_ID", "3")]), &split), Ok(()));
        assert_eq!(detected_clique(&env(&[("NCCL_MNNVL_CLIQUE_ID", "-2")]), &split), Ok(()));
        assert_eq!(detected_clique(&env(&[("NCCL_MNNVL_UUID", "5")]), &[reg(Completed, ZERO, 1)]), Ok(()));
    }

    #[test]
    fn scatter_and_rail_variables_say_when_they_are_idle() {
        let e = env(&[("NCCL_MNNVL_SCATTER_NETS_ENABLE", "0"), ("NCCL_MNNVL_RAIL_PER_HOST", "1")]);
        let one = idle_variables(&e, 1, true);
        assert_eq!(one.len(), 2);
        assert!(one[0].contains("NCCL_MNNVL_SCATTER_NETS_ENABLE") && one[0].contains("not fused"), "{one:?}");
        assert!(idle_variables(&e, 4, false)[1].contains("the clique holds the whole job"));
        assert!(idle_variables(&e, 4, true).is_empty());
        assert!(idle_variables(&env(&[]), 1, false).is_empty());
        // A release that does not read the variable already says so.
        let old = Env::for_release(crate::release::Release::parse("2.27.3").unwrap(), e.vars().clone());
        assert!(idle_variables(&old, 1, false).is_empty());
        assert!(!old.search.scatter_nets, "no scatter before 2.27.5");
        assert!(env(&[]).search.scatter_nets);
    }

    fn at(v: &str, pairs: &[(&str, &str)]) -> Env {
        let vars: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Env::for_release(crate::release::Release::parse(v).unwrap(), vars)
    }

    /// init.cc 2.21.5 to 2.24.3 checks the fabric only when `nNodes > 1`; mnnvl.cc's
    /// caller (2.25.1) also when NCCL_MNNVL_ENABLE=1 on one host.
    #[test]
    fn forced_on_one_host_from_2_25_1() {
        let forced = [("NCCL_MNNVL_ENABLE", "1")];
        assert_eq!(decide(&at("2.24.3", &forced), 1, 4, true), Mnnvl::OFF);
        assert!(decide(&at("2.25.1", &forced), 1, 4, true).enabled);
        assert!(decide(&at("2.24.3", &forced), 2, 4, true).enabled);
        let x = xml::parse(TRAY, None).unwrap().0;
        let old = at("2.24.3", &forced);
        assert!(note(&x, &old, 1, true, &Mnnvl::OFF, None).is_some_and(|n| n.contains("2.25.1 and later")));
    }

    /// init.cc 2.27.3 adds `p2pLevel != 0` to the check's condition.
    #[test]
    fn p2p_off_keeps_it_off_from_2_27_3() {
        for off in [("NCCL_P2P_DISABLE", "1"), ("NCCL_P2P_LEVEL", "LOC")] {
            assert!(decide(&at("2.26.6", &[off]), 2, 4, true).enabled, "{off:?}");
            assert_eq!(decide(&at("2.27.3", &[off]), 2, 4, true), Mnnvl::OFF, "{off:?}");
            assert!(decide(&at("2.27.3", &[off, ("NCCL_MNNVL_ENABLE", "1")]), 2, 4, true).enabled);
        }
    }

    /// 2.20's MNNVL (NCCL_MNNVL) fuses nothing: topo says it does not model it.
    #[test]
    fn unfused_2_20_is_said_not_modelled() {
        let e = at("2.20.5", &[]);
        assert_eq!(decide(&e, 2, 4, true), Mnnvl::OFF);
        let x = xml::parse(TRAY, None).unwrap().0;
        assert!(note(&x, &e, 2, true, &Mnnvl::OFF, None).is_some_and(|n| n.contains("does not fuse")));
        assert!(decide(&at("2.21.5", &[]), 2, 4, true).enabled);
    }

    /// NCCL_MNNVL_CLIQUE_ID=-2 is the rack serial's hash from 2.28.3; before, the id
    /// 0xfffffffe itself: either way one clique for every GPU of the tray.
    #[test]
    fn rack_serial_clique_from_2_28_3() {
        let f = FabricInfo { state: FabricState::Completed, status: 0, cluster_uuid: U1.into(), clique_id: 7 };
        assert_eq!(effective(&at("2.28.3", &[("NCCL_MNNVL_CLIQUE_ID", "-2")]), &f).1, None);
        assert_eq!(effective(&at("2.27.7", &[("NCCL_MNNVL_CLIQUE_ID", "-2")]), &f).1, Some(0xffff_fffe));
    }

    /// mnnvl.cc 2.30.7: each rank's clique is the ranks with its UUID and clique id, its
    /// NVLink domain those with its UUID; cross-clique P2P where the domain is larger.
    #[test]
    fn several_cliques_count_each_and_its_domain() {
        let e = env(&[]);
        let two = Layout { cliques: 2, one_domain: false };
        let m = decide_in(&e, 4, 4, true, two);
        assert_eq!((m.enabled, m.clique_size, m.nvl_domain_size, m.hosts, m.cliques), (true, 8, 8, 2, 2));
        assert!(!m.cross_clique);
        let x = env(&[("NCCL_MNNVL_CROSS_CLIQUE", "1")]);
        let shared = Layout { cliques: 2, one_domain: true };
        let m = decide_in(&x, 4, 4, true, shared);
        assert_eq!((m.nvl_domain_size, m.cross_clique), (16, true));
        assert!(cliques_note(&x, &m).is_some_and(|n| n.contains("P2P over NVLink")));
        assert!(!decide_in(&x, 4, 4, true, two).cross_clique);
        assert!(cliques_note(&x, &decide_in(&x, 4, 4, true, two)).is_some_and(|n| n.contains("changes nothing")));
        assert_eq!(cliques_note(&e, &decide_in(&e, 4, 4, true, two)), None);
        // A clique of one GPU: off until 2.30.3, on from then when the domain is larger.
        let ones = Layout { cliques: 4, one_domain: true };
        assert_eq!(decide_in(&at("2.29.7", &[]), 4, 1, true, ones), Mnnvl::OFF);
        assert!(decide_in(&at("2.30.3", &[]), 4, 1, true, ones).enabled);
    }

    /// init.cc: NCCL_MNNVL_UUID makes one domain, NCCL_MNNVL_CLIQUE_ID one clique id; -2
    /// (2.28.3) is each rack's serial, as stated.
    #[test]
    fn variables_reshape_the_stated_layout() {
        let two = Layout { cliques: 2, one_domain: false };
        assert_eq!(two.effective(&env(&[])).0, two);
        assert!(two.effective(&env(&[("NCCL_MNNVL_UUID", "3")])).0.one_domain);
        assert_eq!(two.effective(&env(&[("NCCL_MNNVL_CLIQUE_ID", "1")])).0.cliques, 2);
        let (one, why) = two.effective(&env(&[("NCCL_MNNVL_CLIQUE_ID", "1"), ("NCCL_MNNVL_UUID", "3")]));
        assert_eq!(one.cliques, 1);
        assert!(why.is_some_and(|w| w.contains("into one")));
        let shared = Layout { cliques: 2, one_domain: true };
        assert_eq!(shared.effective(&env(&[("NCCL_MNNVL_CLIQUE_ID", "-2")])).0.cliques, 2);
        assert_eq!(shared.effective(&at("2.27.7", &[("NCCL_MNNVL_CLIQUE_ID", "-2")])).0.cliques, 1);
    }

    #[test]
    fn before_2_20_3_there_is_none() {
        let e = Env::for_release(crate::release::Release::parse("2.19.3").unwrap(), Vec::<(String, String)>::new());
        assert_eq!(decide(&e, 2, 4, true), Mnnvl::OFF);
    }
}
