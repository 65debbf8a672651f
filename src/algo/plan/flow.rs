//! What each level-1 exchange moves: the units (one per node) a node sends and
//! receives in every round of a level-1 algorithm, derived from who talks to whom.
//!
//! A level-1 algorithm is given as its rounds: per round and node, the node it writes
//! to and the node it receives from (either may be absent: halving-doubling's fold).
//! The data follow from two rules, checked at the end:
//!
//! * gathering: a node sends every unit it holds that the receiver lacks. Ring, Bruck
//!   and recursive doubling then move exactly what the textbook algorithm moves; every
//!   node must end holding every unit;
//! * reducing: a node holds a partial sum of every unit until it passes it on, and
//!   passes unit u to its receiver in the last round from which it could still reach
//!   u's owner itself, provided the receiver can. Every contribution then travels one
//!   path to its owner (ring, recursive halving); every node must end with only its
//!   own unit.
//!
//! Ring, NHR and NB are the same for every node up to a rotation: only node 0 is
//! simulated and the others are its rotations, so a ring of many nodes stays linear in
//! the nodes per round.

/// One round of one node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Round {
    pub to: Option<usize>,
    pub from: Option<usize>,
    /// Units written to `to`, ascending.
    pub send: Vec<usize>,
    /// Units received from `from`, ascending.
    pub recv: Vec<usize>,
}

/// Per round, per node: (to, from). For a rotation-invariant algorithm only node 0's
/// entry is read, as offsets.
pub type Pattern = Vec<Vec<(Option<usize>, Option<usize>)>>;

/// The rounds of every node.
#[derive(Debug, Clone)]
pub struct Flow {
    m: usize,
    cyclic: bool,
    /// Per simulated node (node 0 alone when cyclic), its rounds.
    rounds: Vec<Vec<Round>>,
}

impl Flow {
    /// The rounds of node `n`.
    pub fn node(&self, n: usize) -> Vec<Round> {
        if !self.cyclic {
            return self.rounds[n].clone();
        }
        let m = self.m;
        let sh = |x: usize| (x + n) % m;
        let shift = |v: &[usize]| {
            let mut v: Vec<usize> = v.iter().map(|&u| sh(u)).collect();
            v.sort_unstable();
            v
        };
        self.rounds[0]
            .iter()
            .map(|r| Round { to: r.to.map(sh), from: r.from.map(sh), send: shift(&r.send), recv: shift(&r.recv) })
            .collect()
    }
}

/// The simulation's view of the nodes: node n's set is a rotation of node 0's when
/// cyclic.
struct View<'a> {
    m: usize,
    cyclic: bool,
    pat: &'a Pattern,
}

impl View<'_> {
    fn sim(&self) -> usize {
        if self.cyclic { 1 } else { self.m }
    }
    fn rounds(&self) -> usize {
        self.pat.len()
    }
    fn to(&self, s: usize, n: usize) -> Option<usize> {
        if self.cyclic { self.pat[s][0].0.map(|t| (t + n) % self.m) } else { self.pat[s][n].0 }
    }
    fn from(&self, s: usize, n: usize) -> Option<usize> {
        if self.cyclic { self.pat[s][0].1.map(|t| (t + n) % self.m) } else { self.pat[s][n].1 }
    }
    /// Whether node `n` has unit `u` in `sets` (indexed by simulated node).
    fn has(&self, sets: &[Vec<bool>], n: usize, u: usize) -> bool {
        if self.cyclic { sets[0][(u + self.m - n) % self.m] } else { sets[n][u] }
    }
    /// The units a simulated node `n` gets from `f`, whose sends are `sends`.
    fn received(&self, sends: &[Vec<usize>], s: usize, n: usize, f: usize) -> Result<Vec<usize>, String> {
        if self.to(s, f) != Some(n) {
            return Err(format!("round {s}: node {n} receives from node {f}, which writes elsewhere"));
        }
        Ok(if self.cyclic {
            let mut v: Vec<usize> = sends[0].iter().map(|&u| (u + f + self.m - n) % self.m).collect();
            v.sort_unstable();
            v
        } else {
            sends[f].clone()
        })
    }
    /// Unit `u` as the simulated node `n` stores it (rotated to node 0 when cyclic).
    fn local(&self, n: usize, u: usize) -> usize {
        if self.cyclic { (u + self.m - n) % self.m } else { u }
    }
}

/// What a node sends: (sets, round, node, receiver) to units.
type Pick<'a> = dyn Fn(&[Vec<bool>], usize, usize, usize) -> Vec<usize> + 'a;

/// Run every round: `pick(sets, s, n, to)` gives the units simulated node `n` sends in
/// round `s`; received units join the receiver's set, and sent ones leave it when
/// `drop_sent` (a partial sum passed on).
fn simulate(v: &View, sets: &mut [Vec<bool>], pick: &Pick, drop_sent: bool) -> Result<Vec<Vec<Round>>, String> {
    let mut out = vec![Vec::with_capacity(v.rounds()); v.sim()];
    for s in 0..v.rounds() {
        let sends: Vec<Vec<usize>> =
            (0..v.sim()).map(|n| v.to(s, n).map_or_else(Vec::new, |t| pick(sets, s, n, t))).collect();
        for n in 0..v.sim() {
            let recv = match v.from(s, n) {
                Some(f) => v.received(&sends, s, n, f)?,
                None => Vec::new(),
            };
            if drop_sent {
                for &u in &sends[n] {
                    let l = v.local(n, u);
                    sets[n][l] = false;
                }
            }
            for &u in &recv {
                let l = v.local(n, u);
                sets[n][l] = true;
            }
            out[n].push(Round { to: v.to(s, n), from: v.from(s, n), send: sends[n].clone(), recv });
        }
    }
    Ok(out)
}

/// Gathering over `m` nodes in the rounds of `pat`.
pub fn gather(pat: &Pattern, m: usize, cyclic: bool) -> Result<Flow, String> {
    let v = View { m, cyclic, pat };
    let mut sets: Vec<Vec<bool>> = (0..v.sim()).map(|n| (0..m).map(|u| u == n).collect()).collect();
    let pick = |sets: &[Vec<bool>], _s: usize, n: usize, t: usize| -> Vec<usize> {
        (0..m).filter(|&u| v.has(sets, n, u) && !v.has(sets, t, u)).collect()
    };
    let rounds = simulate(&v, &mut sets, &pick, false)?;
    for (n, set) in sets.iter().enumerate() {
        if let Some(u) = set.iter().position(|&h| !h) {
            return Err(format!("node {n} never gathers unit {u}"));
        }
    }
    Ok(Flow { m, cyclic, rounds })
}

/// Reducing (a reduce-scatter) over `m` nodes in the rounds of `pat`.
pub fn reduce(pat: &Pattern, m: usize, cyclic: bool) -> Result<Flow, String> {
    let v = View { m, cyclic, pat };
    let rounds = v.rounds();
    // reach[s][n][u]: node n can get data to unit u's owner from round s on.
    let mut reach: Vec<Vec<Vec<bool>>> = vec![Vec::new(); rounds + 1];
    reach[rounds] = (0..v.sim()).map(|n| (0..m).map(|u| u == n).collect()).collect();
    for s in (0..rounds).rev() {
        let next = &reach[s + 1];
        let now: Vec<Vec<bool>> = (0..v.sim())
            .map(|n| (0..m).map(|u| next[n][u] || v.to(s, n).is_some_and(|t| v.has(next, t, u))).collect())
            .collect();
        reach[s] = now;
    }
    let mut sets: Vec<Vec<bool>> = (0..v.sim()).map(|_| vec![true; m]).collect();
    let pick = |sets: &[Vec<bool>], s: usize, n: usize, t: usize| -> Vec<usize> {
        let next = &reach[s + 1];
        (0..m).filter(|&u| u != n && v.has(sets, n, u) && !v.has(next, n, u) && v.has(next, t, u)).collect()
    };
    let out = simulate(&v, &mut sets, &pick, true)?;
    for (n, set) in sets.iter().enumerate() {
        for (l, &h) in set.iter().enumerate() {
            if h != (l == n) {
                return Err(format!("node {n} ends {} unit {l}'s partial sum", if h { "holding" } else { "without" }));
            }
        }
    }
    Ok(Flow { m, cyclic, rounds: out })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(m: usize) -> Pattern {
        (0..m - 1).map(|_| vec![(Some(1), Some(m - 1))]).collect()
    }

    #[test]
    fn a_ring_moves_one_unit_a_round() {
        let g = gather(&ring(4), 4, true).unwrap();
        let r = g.node(1);
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].send.clone(), r[0].recv.clone()), (vec![1], vec![0]));
        assert_eq!((r[2].send.clone(), r[2].recv.clone()), (vec![3], vec![2]));
        let rs = reduce(&ring(4), 4, true).unwrap();
        let r = rs.node(0);
        // Node 0 passes on unit 3 first (its left neighbour's), then 2, then 1.
        assert_eq!([r[0].send.clone(), r[1].send.clone(), r[2].send.clone()], [vec![3], vec![2], vec![1]]);
        assert_eq!(r[2].recv, vec![0]);
    }

    #[test]
    fn recursive_doubling_and_halving_on_four() {
        let xor = |d: usize| (0..4).map(|n| (Some(n ^ d), Some(n ^ d))).collect::<Vec<_>>();
        let g = gather(&vec![xor(1), xor(2)], 4, false).unwrap();
        assert_eq!(g.node(0)[1].send, vec![0, 1]);
        let rs = reduce(&vec![xor(2), xor(1)], 4, false).unwrap();
        assert_eq!(rs.node(0)[0].send, vec![2, 3]);
        assert_eq!(rs.node(0)[1].send, vec![1]);
    }

    #[test]
    fn a_broken_pattern_is_an_error() {
        // Everyone writes right and reads from the right: nobody's sender matches.
        let bad: Pattern = vec![vec![(Some(1), Some(1))]; 2];
        assert!(gather(&bad, 3, true).is_err());
        // One round of a ring of 4 cannot gather.
        let short: Pattern = vec![vec![(Some(1), Some(3))]];
        assert!(gather(&short, 4, true).is_err_and(|e| e.contains("never gathers")));
        assert!(reduce(&short, 4, true).is_err_and(|e| e.contains("partial sum")));
    }
}
