//! Which algorithm each level gets, as HCCL decides it, and HCCL_ALGO's syntax to force
//! one.
//!
//! Level 0 (inside a node) follows the machine: a full mesh when every GPU pair has a
//! direct NVLink or NVSwitch path, a ring otherwise. Level 1 (between nodes) follows
//! HCCL's automatic selection for its 910B parts: the pipeline for AllGather when level
//! 0 is a mesh with more than one device and the call is at least 32 KB (AllReduce when
//! each rank's share is at least 1 MB), otherwise the cheapest of ring, NHR and
//! halving-doubling under HCCL's α-β estimates with α = 60 µs and the NIC's bandwidth.

use std::fmt;

/// A level's algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algo {
    /// One device: nothing to do at this level.
    Single,
    Mesh,
    Ring,
    /// Recursive halving-doubling (`H-D_R`).
    HalvingDoubling,
    /// Nonuniform hierarchical ring.
    Nhr,
    /// Nonuniform Bruck.
    Nb,
    Pipeline,
}

impl Algo {
    pub fn name(self) -> &'static str {
        match self {
            Algo::Single => "single",
            Algo::Mesh => "mesh",
            Algo::Ring => "ring",
            Algo::HalvingDoubling => "H-D_R",
            Algo::Nhr => "NHR",
            Algo::Nb => "NB",
            Algo::Pipeline => "pipeline",
        }
    }
}

impl serde::Serialize for Algo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The collectives a plan covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Coll {
    AllGather,
    ReduceScatter,
    AllReduce,
}

impl Coll {
    pub fn name(self) -> &'static str {
        match self {
            Coll::AllGather => "allgather",
            Coll::ReduceScatter => "reducescatter",
            Coll::AllReduce => "allreduce",
        }
    }
    pub fn parse(s: &str) -> Option<Coll> {
        Some(match s {
            "allgather" => Coll::AllGather,
            "reducescatter" => Coll::ReduceScatter,
            "allreduce" => Coll::AllReduce,
            _ => return None,
        })
    }
}

/// HCCL_ALGO as given: per level, a forced algorithm (None: the automatic choice).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Forced {
    pub level0: Option<Algo>,
    pub level1: Option<Algo>,
}

const OPS: [&str; 12] = [
    "broadcast",
    "allreduce",
    "reduce",
    "send",
    "receive",
    "allgather",
    "reducescatter",
    "alltoall",
    "gather",
    "scatter",
    "sendrecv",
    "others",
];

fn token(level: u8, t: &str) -> Result<Option<Algo>, String> {
    Ok(Some(match t {
        "NA" | "null" => return Ok(None),
        "mesh" | "fullmesh" => Algo::Mesh,
        "ring" => Algo::Ring,
        "H-D_R" => Algo::HalvingDoubling,
        "NHR" | "NHR_V1" => Algo::Nhr,
        "NB" => Algo::Nb,
        "pipeline" => Algo::Pipeline,
        other => {
            return Err(format!(
                "level{level}:{other}: not an algorithm topo plans (NA, null, mesh, ring, H-D_R, NHR, NB, pipeline)"
            ));
        }
    }))
}

fn group(g: &str) -> Result<Forced, String> {
    let mut f = Forced::default();
    let mut seen = [false; 4];
    for item in g.split(';').filter(|s| !s.is_empty()) {
        let Some((lv, algo)) = item.split_once(':') else {
            return Err(format!("{item}: expected levelN:ALGO"));
        };
        let n: usize = match lv {
            "level0" => 0,
            "level1" => 1,
            "level2" => 2,
            "level3" => 3,
            _ => return Err(format!("{lv}: expected level0 to level3")),
        };
        if seen[n] {
            return Err(format!("{lv} appears twice"));
        }
        seen[n] = true;
        let a = token(n as u8, algo)?;
        match n {
            0 => {
                if a.is_some_and(|a| !matches!(a, Algo::Mesh | Algo::Ring)) {
                    return Err(format!("level0:{algo}: inside a node topo plans mesh or ring"));
                }
                f.level0 = a;
            }
            1 => {
                if a == Some(Algo::Mesh) {
                    return Err("level1:fullmesh: HCCL ignores a mesh between nodes".into());
                }
                f.level1 = a;
            }
            // Superpods: topo's machines have none.
            _ => {}
        }
    }
    Ok(f)
}

/// HCCL_ALGO's syntax (spaces removed): a global `level0:..;level1:..`, or per-operator
/// groups `op=level0:..;level1:..` separated by `/`, with `others=` for the rest.
pub fn parse(text: &str, coll: Coll) -> Result<Forced, String> {
    let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if s.is_empty() {
        return Ok(Forced::default());
    }
    if s.starts_with('/') || s.ends_with('/') {
        return Err(format!("{text}: a leading or trailing '/'"));
    }
    if !s.contains('=') {
        return group(&s);
    }
    let mut mine = None;
    let mut others = None;
    for g in s.split('/') {
        let Some((op, rest)) = g.split_once('=') else {
            return Err(format!("{g}: mixes a global setting with per-operator ones"));
        };
        if !OPS.contains(&op) {
            return Err(format!("{op}: not an operator HCCL_ALGO names"));
        }
        let f = group(rest)?;
        if op == coll.name() {
            mine = Some(f);
        } else if op == "others" {
            others = Some(f);
        }
    }
    Ok(mine.or(others).unwrap_or_default())
}

/// One level's decision and the reason for it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Choice {
    pub level: u8,
    pub algo: Algo,
    pub why: String,
}

/// HCCL's α (µs) in its level-1 cost comparison.
pub const LATENCY_US: f64 = 60.0;
/// HCCL's CCL buffer (HCCL_BUFFSIZE default, bytes): one loop moves at most this.
pub const CCL_BYTES: u64 = 200 << 20;

/// Level 0 for `d` devices, `all_direct` when every pair has a direct NVLink/NVSwitch path.
pub fn level0(d: usize, all_direct: bool, forced: Option<Algo>) -> Choice {
    if d <= 1 {
        return Choice { level: 0, algo: Algo::Single, why: "one GPU a node".into() };
    }
    if let Some(a) = forced {
        return Choice { level: 0, algo: a, why: "forced by --algo".into() };
    }
    if all_direct {
        Choice { level: 0, algo: Algo::Mesh, why: "every GPU pair has a direct NVLink or NVSwitch path".into() }
    } else {
        Choice { level: 0, algo: Algo::Ring, why: "some GPU pair has no direct NVLink or NVSwitch path".into() }
    }
}

/// Level 1 for `m` nodes of `d` devices, a call of `bytes`, NIC bandwidth `nic_gbs`.
pub fn level1(coll: Coll, m: usize, d: usize, mesh0: bool, bytes: u64, nic_gbs: f64, forced: Option<Algo>) -> Choice {
    if m <= 1 {
        return Choice { level: 1, algo: Algo::Single, why: "one node".into() };
    }
    if let Some(a) = forced {
        return Choice { level: 1, algo: a, why: "forced by --algo".into() };
    }
    if mesh0 && d > 1 {
        match coll {
            Coll::AllGather if bytes >= 32 << 10 => {
                return Choice {
                    level: 1,
                    algo: Algo::Pipeline,
                    why: "allgather of at least 32 KB over a level-0 mesh".into(),
                };
            }
            Coll::AllReduce if bytes / (m * d) as u64 >= 1 << 20 => {
                return Choice {
                    level: 1,
                    algo: Algo::Pipeline,
                    why: "allreduce of at least 1 MB a rank over a level-0 mesh".into(),
                };
            }
            _ => {}
        }
    }
    let s = bytes.min(CCL_BYTES) as f64;
    let p = (m * d) as f64;
    let b = nic_gbs * 1e3; // bytes per µs
    let mf = m as f64;
    let log_ceil = (usize::BITS - (m - 1).leading_zeros()) as f64;
    let pow2 = m.is_power_of_two();
    let (data, twice) = match coll {
        Coll::AllReduce => (s / d as f64, 2.0),
        _ => (s * p, 1.0),
    };
    let bw = (mf - 1.0) / mf * data / b;
    let ring = twice * ((mf - 1.0) * LATENCY_US + bw);
    let nhr = twice * (log_ceil * LATENCY_US + bw);
    let hd = if pow2 {
        twice * (mf.log2() * LATENCY_US + bw)
    } else {
        twice * (log_ceil * LATENCY_US + (2.0 * mf - 1.0) / mf * data / b)
    };
    let (mut algo, mut t) = (Algo::Ring, ring);
    if nhr < ring {
        (algo, t) = (Algo::Nhr, nhr);
    }
    if hd < t {
        algo = Algo::HalvingDoubling;
    }
    Choice {
        level: 1,
        algo,
        why: format!(
            "HCCL's estimate with α {LATENCY_US} µs and {nic_gbs:.1} GB/s: ring {ring:.1} µs, NHR {nhr:.1} µs, H-D_R {hd:.1} µs"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hccl_algo_syntax() {
        let f = parse("level0:mesh;level1:ring", Coll::AllGather).unwrap();
        assert_eq!(f, Forced { level0: Some(Algo::Mesh), level1: Some(Algo::Ring) });
        let f = parse("allgather=level0:NA;level1:H-D_R/others=level1:NB", Coll::AllGather).unwrap();
        assert_eq!(f.level1, Some(Algo::HalvingDoubling));
        let f = parse("allgather=level0:NA;level1:H-D_R/others=level1:NB", Coll::AllReduce).unwrap();
        assert_eq!(f.level1, Some(Algo::Nb));
        assert!(parse("level1:ring/", Coll::AllGather).is_err());
        assert!(parse("level1:ring;level1:NB", Coll::AllGather).is_err());
        assert!(parse("level1:star", Coll::AllGather).is_err());
        assert!(parse("level1:ring/allgather=level1:NB", Coll::AllGather).is_err());
        assert!(parse("bogus=level1:NB", Coll::AllGather).is_err());
    }

    #[test]
    fn level1_ties_go_to_ring_and_nhr_wins_from_five_nodes() {
        assert_eq!(level1(Coll::AllGather, 2, 8, false, 1 << 20, 50.0, None).algo, Algo::Ring);
        assert_eq!(level1(Coll::AllGather, 3, 8, false, 1 << 20, 50.0, None).algo, Algo::Ring);
        assert_eq!(level1(Coll::AllGather, 5, 8, false, 1 << 20, 50.0, None).algo, Algo::Nhr);
        assert_eq!(level1(Coll::AllGather, 4, 8, true, 1 << 20, 50.0, None).algo, Algo::Pipeline);
        assert_eq!(level1(Coll::AllGather, 4, 8, true, 1 << 10, 50.0, None).algo, Algo::Nhr);
    }
}
