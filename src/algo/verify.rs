//! A completed symbolic run held against the collective's definition (chunk level):
//! every output chunk of every rank must hold exactly the input symbols the definition
//! names, each once.

use super::program::{Buffer, Collective, Mode, Program};
use super::sim::{Memory, Val, definition_sizes, phys};

/// The first wrong output chunk of one GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongChunk {
    pub gpu: u32,
    pub chunk: u32,
    pub holds: String,
    pub wants: String,
    /// Wrong output chunks on this GPU in all.
    pub wrong: u32,
    pub of: u32,
}

/// What the comparison found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correctness {
    /// Every rank's output is right (for `root`, when the collective has one).
    Right {
        root: Option<u32>,
    },
    Wrong {
        root: Option<u32>,
        chunks: Vec<WrongChunk>,
    },
    /// The collective has no chunk-level definition (custom, send, recv, alltoallv).
    Undefined,
}

fn sum_over_ranks(n: u32, ci: u32, k: u32) -> Vec<u32> {
    (0..n).map(|q| q * ci + k).collect()
}

/// The symbols output chunk `k` of rank `r` must hold, or `None` when unconstrained.
fn expected(coll: Collective, n: u32, ci: u32, b: u32, root: u32, r: u32, k: u32) -> Option<Vec<u32>> {
    Some(match coll {
        Collective::AllReduce => sum_over_ranks(n, ci, k),
        Collective::AllGather => vec![(k / b) * ci + k % b],
        Collective::ReduceScatter => sum_over_ranks(n, ci, r * b + k),
        Collective::AllToAll => vec![(k / b) * ci + r * b + k % b],
        Collective::Broadcast => vec![root * ci + k],
        Collective::Reduce if r == root => sum_over_ranks(n, ci, k),
        Collective::Gather if r == root => vec![(k / b) * ci + k % b],
        Collective::Scatter => vec![root * ci + r * b + k],
        _ => return None,
    })
}

/// Describe a value for a person: `in3[5]`, `in*[5] over all 8 ranks`, `nothing`.
pub fn describe(v: &[u32], n: u32, ci: u32) -> String {
    if v.is_empty() {
        return "an empty sum".into();
    }
    let k0 = v[0] % ci;
    if v.len() == n as usize && v.iter().enumerate().all(|(q, &s)| s == q as u32 * ci + k0) && n > 1 {
        return format!("in*[{k0}] summed over all {n} ranks");
    }
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() && parts.len() < 6 {
        let times = v[i..].iter().take_while(|&&s| s == v[i]).count();
        let t = format!("in{}[{}]", v[i] / ci, v[i] % ci);
        parts.push(if times > 1 { format!("{t} x{times}") } else { t });
        i += times;
    }
    let distinct = {
        let mut d = v.to_vec();
        d.dedup();
        d.len()
    };
    if distinct > parts.len() { format!("{} + ... ({} terms)", parts.join(" + "), v.len()) } else { parts.join(" + ") }
}

fn check_root(p: &Program, mode: Mode, memory: &[Memory], root: u32) -> Vec<WrongChunk> {
    let h = &p.header;
    let n = h.ngpus;
    let (ci, co, b) = definition_sizes(p);
    let mut out = Vec::new();
    for (gi, g) in p.gpus.iter().enumerate() {
        let mut first: Option<WrongChunk> = None;
        let mut wrong = 0;
        for k in 0..co {
            let Some(want) = expected(h.coll, n, ci, b, root, g.id, k) else { continue };
            let (ph, i) = phys(h.coll, mode, g.id, b, Buffer::Output, k);
            let got = memory[gi].get_val(ph, i);
            let ok = matches!(&got, Val::Sum(s) if **s == want);
            if !ok {
                wrong += 1;
                if first.is_none() {
                    let holds = match &got {
                        Val::Uninit => "nothing (never written, or built from chunks never written)".to_string(),
                        Val::Sum(s) => describe(s, n, ci),
                    };
                    first = Some(WrongChunk {
                        gpu: g.id,
                        chunk: k,
                        holds,
                        wants: describe(&want, n, ci),
                        wrong: 0,
                        of: co,
                    });
                }
            }
        }
        if let Some(mut f) = first {
            f.wrong = wrong;
            out.push(f);
        }
    }
    out
}

/// Hold the memory after one iteration against the collective's definition. Rooted
/// collectives (broadcast, reduce, gather, scatter) name no root in the file: the
/// program is right when it is right for some root.
pub fn verify(p: &Program, mode: Mode, memory: &[Memory]) -> Correctness {
    let h = &p.header;
    let rooted =
        matches!(h.coll, Collective::Broadcast | Collective::Reduce | Collective::Gather | Collective::Scatter);
    if matches!(h.coll, Collective::Custom | Collective::Send | Collective::Recv | Collective::AllToAllV) {
        return Correctness::Undefined;
    }
    if !rooted {
        let chunks = check_root(p, mode, memory, 0);
        return if chunks.is_empty() {
            Correctness::Right { root: None }
        } else {
            Correctness::Wrong { root: None, chunks }
        };
    }
    let mut best: Option<(u32, Vec<WrongChunk>)> = None;
    for root in 0..h.ngpus {
        let chunks = check_root(p, mode, memory, root);
        if chunks.is_empty() {
            return Correctness::Right { root: Some(root) };
        }
        let score: u32 = chunks.iter().map(|c| c.wrong).sum();
        if best.as_ref().is_none_or(|(_, b)| score < b.iter().map(|c| c.wrong).sum()) {
            best = Some((root, chunks));
        }
    }
    let (root, chunks) = best.expect("ngpus > 0");
    Correctness::Wrong { root: Some(root), chunks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_read_well() {
        assert_eq!(describe(&[5, 13, 21, 29], 4, 8), "in*[5] summed over all 4 ranks");
        assert_eq!(describe(&[5, 13], 4, 8), "in0[5] + in1[5]");
        assert_eq!(describe(&[5, 5], 4, 8), "in0[5] x2");
    }

    #[test]
    fn definitions() {
        // allgather, 2 ranks, B = 2: rank r's chunk 3 is rank 1's input chunk 1.
        assert_eq!(expected(Collective::AllGather, 2, 2, 2, 0, 0, 3), Some(vec![3]));
        // alltoall, 2 ranks, C = 4, B = 2: rank 1's chunk 1 is rank 0's chunk 1*2+1.
        assert_eq!(expected(Collective::AllToAll, 2, 4, 2, 0, 1, 1), Some(vec![3]));
        // reducescatter: rank 1's chunk 0 is the sum of chunk 2 of every rank.
        assert_eq!(expected(Collective::ReduceScatter, 2, 4, 2, 0, 1, 0), Some(vec![2, 6]));
        assert_eq!(expected(Collective::Reduce, 2, 4, 2, 0, 1, 0), None);
    }
}
