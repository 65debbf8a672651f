//! NCCL_* environment variables, read once into a typed configuration.
//!
//! The command layer takes a snapshot of the process environment and hands it to
//! [`Env::from_pairs`]; every variable any stage needs is parsed there, with NCCL's
//! grammar and NCCL's default, into the typed groups below ([`PathEnv`], [`NetEnv`],
//! [`SearchEnv`], [`ChannelEnv`], [`TuneEnv`]). Stages read fields, never names: this
//! file is the only place that knows a variable's spelling.
//!
//! Where NCCL would silently fall back to its default for a malformed value, we do the
//! same and keep a warning ([`Env::warnings`]), so the user hears what NCCL would not say.
//! Integer parameters are `i64` with NCCL's own default, sentinel values included (NCCL
//! declares, for example, `NCCL_MIN_NCHANNELS` with default -2 meaning "not set"); the
//! stage that reads one applies NCCL's logic to it.

use std::collections::BTreeMap;

use crate::release::Release;
use crate::types::PathType;
use crate::xml::{parse_c_int, strtol};

/// NCCL's "undefined" value of an integer communicator setting (`NCCL_CONFIG_UNDEF_INT`).
pub const UNDEF_INT: i64 = i32::MIN as i64;

/// The NCCL_* variables in force, parsed.
#[derive(Debug, Clone)]
pub struct Env {
    /// The NCCL release whose variables and defaults these are.
    release: Release,
    vars: BTreeMap<String, String>,
    warnings: Vec<String>,
    /// What the path stage reads (`paths.cc`).
    pub paths: PathEnv,
    /// Network devices: NIC fusion and the system build.
    pub nets: NetEnv,
    /// The channel search (`search.cc`).
    pub search: SearchEnv,
    /// Channel counts after the search (`init.cc`, `connect.cc`).
    pub channels: ChannelEnv,
    /// The performance model (`tuning.cc`).
    pub tune: TuneEnv,
    /// What detection reads.
    pub detect: DetectEnv,
    /// Multi-node NVLink (`init.cc`, `mnnvl.cc`).
    pub mnnvl: MnnvlEnv,
}

/// The multi-node NVLink variables.
#[derive(Debug, Clone, PartialEq)]
pub struct MnnvlEnv {
    /// NCCL_MNNVL_ENABLE (2): 0 never checks the fabric, 1 checks it even on one node,
    /// 2 checks it when the job spans several hosts and P2P is not disabled.
    pub enable: i64,
    /// NCCL_MNNVL_UUID (-1: the fabric's): the cluster UUID every GPU reports; 0 means
    /// no fabric information, so MNNVL stays off.
    pub uuid: i64,
    /// NCCL_MNNVL_CLIQUE_ID (-1: the fabric's; -2: a hash of the rack serial number).
    pub clique_id: i64,
    /// NCCL_MNNVL_CROSS_CLIQUE (0): CUDA P2P between cliques of one NVLink domain.
    pub cross_clique: bool,
}

/// The path stage's variables.
#[derive(Debug, Clone, PartialEq)]
pub struct PathEnv {
    /// NCCL_NVB_DISABLE (0): no NVLink paths through another GPU.
    pub nvb_disable: bool,
    /// NCCL_PXN_DISABLE (0; only 1 disables).
    pub pxn_disable: bool,
    /// NCCL_PXN_C2C (1; 0 in 2.27): PXN through a C2C-attached GPU.
    pub pxn_c2c: bool,
    /// NCCL_P2P_LEVEL, or LOC when NCCL_P2P_DISABLE=1.
    pub p2p_level: Option<PathType>,
    /// NCCL_IGNORE_DISABLED_P2P (0).
    pub ignore_disabled_p2p: i64,
    /// NCCL_NET_GDR_LEVEL.
    pub gdr_level: Option<PathType>,
    /// NCCL_NET_GDR_READ (-2: the default for the GPU).
    pub gdr_read: i64,
    /// NCCL_NET_GDR_C2C (1; 0 in 2.26).
    pub gdr_c2c: bool,
    /// NCCL_NET_GDR_MLOPART (0).
    pub gdr_mlopart: bool,
    /// NCCL_SHM_DISABLE (0; only 1 disables).
    pub shm_disable: bool,
    /// NCCL_NET_DISABLE_INTRA (0; only 1 disables).
    pub net_disable_intra: bool,
    /// NCCL_P2P_USE_CUDA_MEMCPY (0).
    pub p2p_use_cuda_memcpy: bool,
    /// NCCL_NETDEVS_POLICY: None = AUTO, Some(0) = ALL, Some(n) = MAX:n.
    pub netdevs_policy: Option<usize>,
}

/// How network devices are merged and the system is built.
#[derive(Debug, Clone, PartialEq)]
pub struct NetEnv {
    /// NCCL_NET_MERGE_LEVEL (PORT): the farthest two ports may be and still be fused.
    pub merge_level: PathType,
    /// NCCL_NET_MERGE_POLICY=RAIL.
    pub merge_rail: bool,
    /// NCCL_NET_FORCE_MERGE: explicit groups of devices to fuse.
    pub force_merge: Option<String>,
    /// NCCL_TOPO_SPLIT_MLOPART (1).
    pub split_mlopart: bool,
}

/// The channel search's variables.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchEnv {
    /// NCCL_GRAPH_FILE: graphs to load instead of searching (the file is read by the
    /// command layer).
    pub graph_file: Option<String>,
    /// NCCL_CROSS_NIC (2).
    pub cross_nic: i64,
    /// NCCL_NVLS_ENABLE (2).
    pub nvls_enable: i64,
    /// NCCL_MNNVL_RAIL_PER_HOST (0).
    pub rail_per_host: bool,
    /// NCCL_MNNVL_SCATTER_NETS_ENABLE (1; from 2.27.5, before which the NICs are never
    /// scattered).
    pub scatter_nets: bool,
}

/// The variables that limit channel counts. Integers keep NCCL's defaults: -2 for "not
/// set", [`UNDEF_INT`] for the communicator settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelEnv {
    /// NCCL_MIN_NRINGS (legacy name of the minimum), -2.
    pub min_nrings: i64,
    /// NCCL_MIN_NCHANNELS, -2.
    pub min_nchannels: i64,
    /// NCCL_MAX_NRINGS (legacy name of the maximum), -2.
    pub max_nrings: i64,
    /// NCCL_MAX_NCHANNELS, -2.
    pub max_nchannels: i64,
    /// NCCL_MIN_CTAS, [`UNDEF_INT`].
    pub min_ctas: i64,
    /// NCCL_MAX_CTAS, [`UNDEF_INT`].
    pub max_ctas: i64,
    /// NCCL_WORK_ARGS_BYTES is set (not modelled; reported).
    pub work_args_bytes: bool,
    /// NCCL_COLLNET_NODE_THRESHOLD (2).
    pub collnet_node_threshold: i64,
    /// NCCL_NVLS_NCHANNELS, when set to a number.
    pub nvls_nchannels: Option<i64>,
}

impl ChannelEnv {
    /// The minimum channel count asked for (the later name wins), or -2.
    pub fn min_channels(&self) -> i64 {
        if self.min_nchannels != -2 { self.min_nchannels } else { self.min_nrings }
    }
    /// The maximum channel count asked for (the later name wins), or -2.
    pub fn max_channels(&self) -> i64 {
        if self.max_nchannels != -2 { self.max_nchannels } else { self.max_nrings }
    }
}

/// The performance model's variables.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneEnv {
    /// NCCL_ALGO, as written (its grammar is the tuning model's).
    pub algo: Option<String>,
    /// NCCL_PROTO, as written.
    pub proto: Option<String>,
    /// NCCL_COLLNET_ENABLE, read with `strtol`.
    pub collnet_enable: Option<i64>,
    /// NCCL_PAT_ENABLE (2).
    pub pat_enable: i64,
    /// NCCL_NET_OVERHEAD in ns (-2: the CPU's default).
    pub net_overhead: i64,
    /// NCCL_NTHREADS (-2).
    pub nthreads: i64,
    /// NCCL_LL128_NTHREADS (-2).
    pub ll128_nthreads: i64,
    /// NCCL_THREAD_THRESHOLDS, as written.
    pub thread_thresholds: Option<String>,
    /// NCCL_LL128_C2C (1).
    pub ll128_c2c: bool,
}

/// What detection reads.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectEnv {
    /// NCCL_HOSTID: replaces the host name in the host hash.
    pub host_id: Option<String>,
    /// NCCL_IB_MERGE_VFS (1): virtual functions of one NIC count as one device.
    pub ib_merge_vfs: bool,
}

impl Default for Env {
    fn default() -> Env {
        Env::from_pairs(std::iter::empty::<(String, String)>())
    }
}

impl Env {
    /// Parse a set of NCCL_* variables as the newest release reads them.
    pub fn from_pairs<K: Into<String>, V: Into<String>>(pairs: impl IntoIterator<Item = (K, V)>) -> Env {
        Env::for_release(Release::NEWEST, pairs)
    }

    /// Parse a set of NCCL_* variables as `release` reads them: its defaults (other
    /// names are kept for reports but not read).
    pub fn for_release<K: Into<String>, V: Into<String>>(
        release: Release,
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Env {
        let vars: BTreeMap<String, String> = pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        // A variable this release does not know is ignored, as NCCL ignores it; say so.
        let mut warnings = Vec::new();
        let mut known = vars.clone();
        known.retain(|name, _| match release.variable_since(name) {
            Some(since) => {
                warnings.push(format!(
                    "{name} is set, but NCCL {release} does not read it (it appeared in {since}): ignored"
                ));
                false
            }
            None => true,
        });
        let mut r = Reader { vars: &known, warnings };
        let paths = PathEnv {
            nvb_disable: r.param("NVB_DISABLE", 0) != 0,
            pxn_disable: r.param("PXN_DISABLE", 0) == 1,
            pxn_c2c: r.param("PXN_C2C", release.pxn_c2c_default()) != 0,
            p2p_level: r.level(Some("NCCL_P2P_DISABLE"), "NCCL_P2P_LEVEL"),
            ignore_disabled_p2p: r.param("IGNORE_DISABLED_P2P", 0),
            gdr_level: r.level(None, "NCCL_NET_GDR_LEVEL"),
            gdr_read: r.param("NET_GDR_READ", -2),
            gdr_c2c: r.param("NET_GDR_C2C", release.gdr_c2c_default()) != 0,
            gdr_mlopart: r.param("NET_GDR_MLOPART", 0) != 0,
            shm_disable: r.param("SHM_DISABLE", 0) == 1,
            net_disable_intra: r.param("NET_DISABLE_INTRA", 0) == 1,
            p2p_use_cuda_memcpy: r.param("P2P_USE_CUDA_MEMCPY", 0) != 0,
            netdevs_policy: netdevs_policy(r.get("NCCL_NETDEVS_POLICY")),
        };
        let nets = NetEnv {
            merge_level: r.get("NCCL_NET_MERGE_LEVEL").map_or(PathType::PORT, merge_level),
            merge_rail: r.get("NCCL_NET_MERGE_POLICY").is_some_and(|v| v.eq_ignore_ascii_case("RAIL")),
            force_merge: r.get("NCCL_NET_FORCE_MERGE").map(str::to_string),
            split_mlopart: r.param("TOPO_SPLIT_MLOPART", 1) != 0,
        };
        let search = SearchEnv {
            graph_file: r.get("NCCL_GRAPH_FILE").map(str::to_string),
            cross_nic: r.param("CROSS_NIC", 2),
            nvls_enable: r.param("NVLS_ENABLE", 2),
            rail_per_host: r.param("MNNVL_RAIL_PER_HOST", 0) != 0,
            scatter_nets: r.param("MNNVL_SCATTER_NETS_ENABLE", 1) != 0 && release.mnnvl_scatter_nets(),
        };
        let channels = ChannelEnv {
            min_nrings: r.param("MIN_NRINGS", -2),
            min_nchannels: r.param("MIN_NCHANNELS", -2),
            max_nrings: r.param("MAX_NRINGS", -2),
            max_nchannels: r.param("MAX_NCHANNELS", -2),
            min_ctas: r.param("MIN_CTAS", UNDEF_INT),
            max_ctas: r.param("MAX_CTAS", UNDEF_INT),
            work_args_bytes: r.get("NCCL_WORK_ARGS_BYTES").is_some(),
            collnet_node_threshold: r.param("COLLNET_NODE_THRESHOLD", 2),
            nvls_nchannels: r.param_opt("NVLS_NCHANNELS"),
        };
        let tune = TuneEnv {
            algo: r.get("NCCL_ALGO").map(str::to_string),
            proto: r.get("NCCL_PROTO").map(str::to_string),
            collnet_enable: r.get("NCCL_COLLNET_ENABLE").map(strtol),
            pat_enable: r.param("PAT_ENABLE", 2),
            net_overhead: r.param("NET_OVERHEAD", -2),
            nthreads: r.param("NTHREADS", -2),
            ll128_nthreads: r.param("LL128_NTHREADS", -2),
            thread_thresholds: r.get("NCCL_THREAD_THRESHOLDS").map(str::to_string),
            ll128_c2c: r.param("LL128_C2C", 1) != 0,
        };
        let detect = DetectEnv {
            host_id: r.get("NCCL_HOSTID").map(str::to_string),
            ib_merge_vfs: r.get("NCCL_IB_MERGE_VFS").is_none_or(|v| strtol(v) != 0),
        };
        let mnnvl = MnnvlEnv {
            enable: r.param("MNNVL_ENABLE", 2),
            uuid: r.param("MNNVL_UUID", -1),
            clique_id: r.param("MNNVL_CLIQUE_ID", -1),
            cross_clique: r.param("MNNVL_CROSS_CLIQUE", 0) != 0,
        };
        let warnings = r.warnings;
        Env { release, vars, warnings, paths, nets, search, channels, tune, detect, mnnvl }
    }

    /// The NCCL release modelled.
    pub fn release(&self) -> Release {
        self.release
    }

    /// The variables that are set, as given, for reports.
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }

    /// Values NCCL would ignore or misread, one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// Reads variables by name and collects the warnings; lives only while parsing.
struct Reader<'a> {
    vars: &'a BTreeMap<String, String>,
    warnings: Vec<String>,
}

impl Reader<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(|s| s.as_str())
    }

    fn warn(&mut self, msg: String) {
        if !self.warnings.contains(&msg) {
            self.warnings.push(msg);
        }
    }

    /// An integer parameter as `NCCL_PARAM` reads it: `strtoll(value, &end, 0)`, the
    /// default when unset or when the whole value is not a number.
    fn param(&mut self, short: &str, default: i64) -> i64 {
        self.int(short, &default.to_string()).unwrap_or(default)
    }

    /// The same, `None` when unset or unreadable (the caller applies the default).
    fn param_opt(&mut self, short: &str) -> Option<i64> {
        self.int(short, "its default")
    }

    fn int(&mut self, short: &str, default: &str) -> Option<i64> {
        let name = format!("NCCL_{short}");
        let v = self.get(&name)?.to_string();
        let x = parse_c_int(&v);
        if x.is_none() {
            self.warn(format!("{name}={v:?} is not an integer: NCCL ignores it and uses {default}"));
        }
        x
    }

    /// A path-type level as NCCL's `ncclGetLevel` reads it: a path name (LOC..SYS), or a
    /// legacy integer 0..5 (mapped LOC, PIX, PXB, PHB, SYS, SYS), optionally preceded by
    /// a `disable` variable whose value 1 means LOC. `None` when unset or unreadable.
    fn level(&mut self, disable: Option<&str>, name: &str) -> Option<PathType> {
        if let Some(d) = disable
            && let Some(v) = self.get(d)
            && strtol(v) == 1
        {
            return Some(PathType::Loc);
        }
        let v = self.get(name)?.to_string();
        if let Some(t) = PathType::ALL.iter().take(PathType::Sys as usize + 1).find(|t| v == t.name()) {
            return Some(*t);
        }
        if v.as_bytes().first().is_some_and(|c| c.is_ascii_digit()) {
            const OLD: [PathType; 6] =
                [PathType::Loc, PathType::Pix, PathType::Pxb, PathType::Phb, PathType::Sys, PathType::Sys];
            let old = strtol(&v).clamp(0, 5) as usize;
            return Some(OLD[old]);
        }
        self.warn(format!(
            "{name}={v:?} is neither a path type (LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS) nor a legacy integer: NCCL ignores it"
        ));
        None
    }
}

/// NCCL_NETDEVS_POLICY: `ALL`, `MAX:n` (n > 0), anything else AUTO.
fn netdevs_policy(v: Option<&str>) -> Option<usize> {
    match v {
        Some(v) if v.eq_ignore_ascii_case("ALL") => Some(0),
        Some(v) if v.len() > 4 && v.is_char_boundary(4) && v[..4].eq_ignore_ascii_case("MAX:") => {
            let n = strtol(&v[4..]);
            if n > 0 { Some(n as usize) } else { None }
        }
        _ => None,
    }
}

/// NCCL_NET_MERGE_LEVEL: the first level name the value starts with, LOC otherwise.
fn merge_level(v: &str) -> PathType {
    const LEVELS: [(&str, PathType); 8] = [
        ("LOC", PathType::Loc),
        ("PORT", PathType::PORT),
        ("PIX", PathType::Pix),
        ("PXB", PathType::Pxb),
        ("P2C", PathType::P2c),
        ("PXN", PathType::Pxn),
        ("PHB", PathType::Phb),
        ("SYS", PathType::Sys),
    ];
    LEVELS.iter().find(|(k, _)| v.starts_with(k)).map_or(PathType::Loc, |&(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p2p(pairs: &[(&str, &str)]) -> (Option<PathType>, usize) {
        let e = Env::from_pairs(pairs.iter().copied());
        (e.paths.p2p_level, e.warnings().len())
    }

    #[test]
    fn levels_parse_like_nccl() {
        assert_eq!(p2p(&[("NCCL_P2P_LEVEL", "PHB")]), (Some(PathType::Phb), 0));
        assert_eq!(p2p(&[("NCCL_P2P_LEVEL", "2")]), (Some(PathType::Pxb), 0));
        assert_eq!(p2p(&[("NCCL_P2P_LEVEL", "9")]), (Some(PathType::Sys), 0));
        assert_eq!(p2p(&[("NCCL_P2P_DISABLE", "1"), ("NCCL_P2P_LEVEL", "SYS")]), (Some(PathType::Loc), 0));
        assert_eq!(p2p(&[("NCCL_P2P_LEVEL", "nvlink")]), (None, 1));
    }

    #[test]
    fn params_fall_back_with_a_warning() {
        let e = Env::from_pairs([("NCCL_PXN_DISABLE", "yes"), ("NCCL_NVB_DISABLE", "0x1")]);
        assert!(!e.paths.pxn_disable);
        assert!(e.paths.nvb_disable);
        assert_eq!(e.search.cross_nic, 2);
        assert_eq!(e.warnings().len(), 1);
        assert!(e.warnings()[0].contains("NCCL_PXN_DISABLE"));
    }

    #[test]
    fn defaults_are_nccls() {
        let e = Env::default();
        assert_eq!(e.channels.min_channels(), -2);
        assert_eq!(e.channels.max_ctas, UNDEF_INT);
        assert_eq!(e.nets.merge_level, PathType::PORT);
        assert!(e.detect.ib_merge_vfs && e.nets.split_mlopart && e.tune.ll128_c2c);
        assert!(e.warnings().is_empty());
    }

    #[test]
    fn the_later_channel_name_wins() {
        let e = Env::from_pairs([("NCCL_MIN_NRINGS", "8"), ("NCCL_MIN_NCHANNELS", "6"), ("NCCL_MAX_NRINGS", "3")]);
        assert_eq!(e.channels.min_channels(), 6);
        assert_eq!(e.channels.max_channels(), 3);
    }

    #[test]
    fn policies_and_merge_levels() {
        assert_eq!(netdevs_policy(Some("all")), Some(0));
        assert_eq!(netdevs_policy(Some("MAX:2")), Some(2));
        assert_eq!(netdevs_policy(Some("MAX:0")), None);
        assert_eq!(netdevs_policy(Some("MAXé")), None);
        assert_eq!(merge_level("PXB"), PathType::Pxb);
        assert_eq!(merge_level("bogus"), PathType::Loc);
    }
}
