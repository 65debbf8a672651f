//! NCCL's trees for allreduce (the `nccl-tree` algorithm): per NCCL channel, every rank
//! reduces what its children send into its own chunk and passes the sum to its parent;
//! the root then holds the total and it is broadcast back down the same tree. The trees
//! are the ones NCCL's channel set-up builds from the search's tree graph: a chain inside
//! each node and the double binary tree across nodes (odd channels the mirror tree), as
//! `topo search` prints them. Each channel's share of the buffer is cut into
//! [`PIECES`] chunks, so the reduction of one piece climbs the tree while the next one
//! follows it (NCCL pipelines its tree the same way, chunk by chunk).
//!
//! A chain's rank has one child inside the node and, where it heads the node's chain,
//! up to two more across nodes; it receives from each on its own thread block (one per
//! sender and channel), so a channel takes a few more blocks than a ring's.

use super::super::program::Buffer::{Input as I, Output as O};
use super::dag::{Tracer, at};

/// Chunks each channel's share is cut into, to pipeline up and down the tree: eight,
/// NCCL_STEPS, the slots NCCL keeps in flight on each connection of a channel. Fewer
/// pieces leave the chain's hops idle while one piece climbs (the cost at 1 GiB on a
/// DGX H100 is 1.70x the tuning model's Tree/Simple with one piece, 1.32x with two,
/// 1.04x with eight).
pub const PIECES: u32 = 8;

/// Chunks one instance needs for `lanes` trees.
pub fn per(lanes: u32) -> u32 {
    PIECES * lanes
}

/// Ranks in the order their sums are ready: deepest first (a rank after all of its
/// descendants), ties by rank. `None` when the parents do not form one tree.
pub fn bottom_up(parent: &[i32]) -> Option<Vec<u32>> {
    let n = parent.len();
    let mut depth = vec![0usize; n];
    let mut roots = 0;
    for (r, d) in depth.iter_mut().enumerate() {
        let mut cur = r;
        while parent[cur] >= 0 {
            cur = parent[cur] as usize;
            *d += 1;
            if cur >= n || *d > n {
                return None;
            }
        }
        roots += usize::from(parent[r] < 0);
    }
    if roots != 1 {
        return None;
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&r| (std::cmp::Reverse(depth[r as usize]), r));
    Some(order)
}

/// Trace the allreduce over `trees` (per channel, the parent of every rank; -1 for the
/// root), already checked by [`bottom_up`].
pub fn trace(t: &mut Tracer, trees: &[Vec<i32>]) {
    let lanes = trees.len() as u32;
    for (l, parent) in trees.iter().enumerate() {
        let Some(up) = bottom_up(parent) else { continue };
        let hint = Some(l as u32);
        // Children in the order their sums arrive.
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); parent.len()];
        for &q in &up {
            if parent[q as usize] >= 0 {
                children[parent[q as usize] as usize].push(q);
            }
        }
        for k in 0..PIECES {
            let idx = k * lanes + l as u32;
            for &q in &up {
                let Ok(p) = u32::try_from(parent[q as usize]) else { continue };
                let from = if children[q as usize].is_empty() { at(q, I, idx, 1) } else { at(q, O, idx, 1) };
                let local = if children[p as usize][0] == q { at(p, I, idx, 1) } else { at(p, O, idx, 1) };
                t.reduce(at(p, O, idx, 1), local, from, hint);
            }
            for &q in up.iter().rev() {
                if let Ok(p) = u32::try_from(parent[q as usize]) {
                    t.copy(at(p, O, idx, 1), at(q, O, idx, 1), hint);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_come_before_parents_and_one_root_is_required() {
        // 0 <- 1 <- 2, 0 <- 3: 2 is deepest, then 1 and 3, then the root.
        assert_eq!(bottom_up(&[-1, 0, 1, 0]), Some(vec![2, 1, 3, 0]));
        assert_eq!(bottom_up(&[-1, -1]), None);
        assert_eq!(bottom_up(&[1, 0]), None);
        assert_eq!(bottom_up(&[-1, 5]), None);
    }
}
