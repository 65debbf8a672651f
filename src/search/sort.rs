//! The GPU sort of the recursion (`ncclTopoSearchNextGpuSort`), made once per channel
//! visit where the bandwidths allow.

use super::bandwidth::LinkBw;
use super::graph::{Graph, Pattern};
use super::recursion::{NetSort, Search, gpu_pci_bw};
use crate::release::NvsNeighbours;

impl<B: LinkBw> Search<'_, '_, B> {
    /// `ncclTopoSearchNextGpuSort`: the GPUs to try after `gpu`, best first, into
    /// `cands[at..at + ngpus]`; returns how many.
    #[inline]
    pub(super) fn next_gpus(&mut self, g: &Graph, gpu: usize, sort_net: NetSort, at: usize) -> usize {
        let flag = 1u64 << g.n_channels;
        let n = self.ngpus();
        let mut count = 0;
        if self.has_nvs && self.rules.nvs_neighbours == NvsNeighbours::Only {
            // With NVSwitches NCCL keeps only the next (and previous) GPU, moved to the
            // front of the sorted list: the sort itself does not matter, only whether
            // they are candidates at all. Moving each to the front reverses them.
            let prev = (gpu + n - 1) % n;
            let nxt = (gpu + 1) % n;
            let (first, mut len) = match g.pattern {
                Pattern::Ring => ([nxt, prev], 2),
                Pattern::SplitTree | Pattern::BalancedTree => ([prev, nxt], 2),
                _ => ([nxt, nxt], 1),
            };
            if nxt == prev {
                len = 1;
            }
            for &f in first[..len].iter().rev() {
                if f != gpu && self.gpu_gpu[gpu * n + f].0 != 0 && self.used[f] & flag == 0 {
                    self.cands[at + count] = f as u32;
                    count += 1;
                }
            }
            return count;
        }
        let net = if sort_net != NetSort::Off { self.start_net[g.n_channels as usize] } else { None };
        // NCCL sorts the free GPUs by (net->GPU bw desc, GPU PCI bw desc, net->GPU hops,
        // GPU->GPU bw desc, GPU->GPU hops, start index); the start index makes the order
        // total, so any subset keeps the order of a full sort. Only the PCI bandwidth
        // changes during the search: the rest is ranked once.
        match net {
            None => {
                // Without a NET the three first keys are 0: the order is fixed.
                count = keep_free(&self.gpu_order[gpu], &self.used, flag, &mut self.cands[at..at + n]);
            }
            Some(ni) if self.sorts.ok => {
                let c = g.n_channels as usize;
                let pair = gpu * self.nnets + ni;
                if self.sorts.made[pair] != self.sorts.snap_of[c] {
                    self.make_sort(gpu, ni, c);
                }
                let order = &self.sorts.order[pair * n..pair * n + self.gpu_order[gpu].len()];
                count = keep_free(order, &self.used, flag, &mut self.cands[at..at + n]);
            }
            Some(ni) => {
                self.order_for_net(gpu, ni);
                let list = self.net_order[gpu * self.nnets + ni].as_deref().unwrap_or(&[]);
                for (pos, &(group, q)) in list.iter().enumerate() {
                    if self.used[q as usize] & flag == 0 {
                        let key = sort_key(group, gpu_pci_bw(&self.bws, self.gpu_pci[q as usize]), pos);
                        insert_sorted(&mut self.keys, count, key);
                        count += 1;
                    }
                }
                let out = &mut self.cands[at..at + n];
                for (o, &k) in out.iter_mut().zip(&self.keys[..count]) {
                    *o = list[(k & 0xffff) as usize].1;
                }
            }
        }
        if sort_net == NetSort::ToNetReversed && count > 0 {
            // NCCL reverses the list when all candidates are alike seen from `gpu`.
            let paths = &self.gpu_gpu[gpu * n..(gpu + 1) * n];
            let out = &mut self.cands[at..at + count];
            let first = paths[out[0] as usize];
            if self.uniform[gpu] || out.iter().all(|&q| paths[q as usize] == first) {
                out.reverse();
            }
        }
        if self.has_nvs && self.rules.nvs_neighbours == NvsNeighbours::First {
            // 2.19.3 to 2.20.5: the neighbours moved to the front of the sorted list, one
            // after the other (so the last moved comes first); the rest stays.
            let prev = (gpu + n - 1) % n;
            let nxt = (gpu + 1) % n;
            let first: &[usize] = match g.pattern {
                Pattern::Ring => &[nxt, prev],
                Pattern::SplitTree | Pattern::BalancedTree => &[prev, nxt],
                _ => &[nxt],
            };
            let out = &mut self.cands[at..at + count];
            for &f in first {
                if let Some(i) = out.iter().position(|&q| q as usize == f) {
                    out[..=i].rotate_right(1);
                }
            }
        }
        count
    }

    /// The sort of all GPUs `gpu` has a path to, seen from NET `ni`, by the PCI
    /// bandwidths of channel `c`'s visit (see [`SortCache`]).
    #[cold]
    pub(super) fn make_sort(&mut self, gpu: usize, ni: usize, c: usize) {
        let n = self.ngpus();
        self.order_for_net(gpu, ni);
        let pair = gpu * self.nnets + ni;
        let list = self.net_order[pair].as_deref().unwrap_or(&[]);
        let snap = self.sorts.snap_of[c];
        let pci = &self.sorts.snap_pci[snap as usize];
        let keys = &mut self.keys[..list.len()];
        for (pos, &(group, q)) in list.iter().enumerate() {
            insert_sorted(keys, pos, sort_key(group, pci[q as usize], pos));
        }
        for (o, &k) in self.sorts.order[pair * n..].iter_mut().zip(keys.iter()) {
            *o = list[(k & 0xffff) as usize].1;
        }
        self.sorts.made[pair] = snap;
    }

    /// The GPUs `gpu` has a path to, in the order of NCCL's sort seen from NET `ni`
    /// with the PCI bandwidth left out: (NET->GPU bw desc, NET->GPU hops, GPU->GPU bw
    /// desc, GPU->GPU hops, start index), each with the rank of its NET->GPU bandwidth
    /// among the distinct ones. Made once per pair.
    pub(super) fn order_for_net(&mut self, gpu: usize, ni: usize) {
        let n = self.ngpus();
        let pair = gpu * self.nnets + ni;
        if self.net_order[pair].is_some() {
            return;
        }
        let mut qs: Vec<usize> = self.gpu_order[gpu].iter().map(|&q| q as usize).collect();
        let key = |q: usize| {
            let (count, bw) = self.gpu_gpu[gpu * n + q];
            let (net_count, net_bw) = self.net_gpu[ni * n + q];
            (-(net_bw as i64), net_count, -(bw as i64), count, (q + n - gpu) % n)
        };
        qs.sort_unstable_by_key(|&q| key(q));
        let mut list = Vec::with_capacity(qs.len());
        let mut group = 0u16;
        for (i, &q) in qs.iter().enumerate() {
            if i > 0 && self.net_gpu[ni * n + q].1 != self.net_gpu[ni * n + qs[i - 1]].1 {
                group += 1;
            }
            list.push((group, q as u32));
        }
        self.net_order[pair] = Some(list.into());
    }
}

/// The GPU sort's key with a NET: (NET->GPU bw group, PCI bw desc, place in the fixed
/// order); `i32::MAX - x` orders descending and fits in 32 bits.
#[inline]
fn sort_key(group: u16, pci: i32, pos: usize) -> u64 {
    (group as u64) << 48 | ((i32::MAX as i64 - pci as i64) as u64) << 16 | pos as u64
}

/// Put `key` into the sorted `keys[..len]` (insertion sort: the fixed order is usually
/// the final one, so this is mostly one comparison).
#[inline]
fn insert_sorted(keys: &mut [u64], len: usize, key: u64) {
    let mut i = len;
    while i > 0 && keys[i - 1] > key {
        keys[i] = keys[i - 1];
        i -= 1;
    }
    keys[i] = key;
}

/// The GPUs of `order` that channel bit `flag` leaves free, in order, into `out`;
/// returns how many.
#[inline]
fn keep_free(order: &[u32], used: &[u64], flag: u64, out: &mut [u32]) -> usize {
    let mut count = 0;
    for &q in order {
        if used[q as usize] & flag == 0 {
            out[count] = q;
            count += 1;
        }
    }
    count
}
