//! Which NETs the search tries (`ncclTopoSelectNets` and its helpers) and which pairs of
//! NETs a channel may join (`ncclTopoSearchTryNet`'s checks).

use super::bandwidth::LinkBw;
use super::graph::{CrossNic, Graph, Pattern};
use super::recursion::{LocalGpus, Search};
use crate::model::paths;
use crate::model::system::NodeRef;
use crate::model::{NodeType, PathType};
use crate::release::CrossNicRules;

impl<B: LinkBw> Search<'_, '_, B> {
    pub(super) fn local_net(&self, rank: i32, c: usize) -> Option<usize> {
        paths::local_net(self.sys, self.p, rank, c)
    }

    pub(super) fn pref_nets_channel_first(&self, gpu: Option<usize>, nets: &mut Vec<usize>) {
        for g in 0..self.ngpus() {
            if gpu.is_some_and(|x| x != g) {
                continue;
            }
            let rank = self.sys.list(NodeType::Gpu)[g].gpu_rank();
            let mut local: Vec<usize> = Vec::new();
            for c in 0..self.rules.max_channels {
                let Some(n) = self.local_net(rank, c) else { break };
                if !local.is_empty() && n == local[0] {
                    break;
                }
                local.push(n);
            }
            for n in local {
                if !nets.contains(&n) {
                    nets.push(n);
                }
            }
        }
    }

    pub(super) fn pref_nets_gpu_first(&self, gpu: Option<usize>, nets: &mut Vec<usize>) {
        let mut ids: Vec<Option<usize>> = match gpu {
            Some(x) => vec![Some(x)],
            None => (0..self.ngpus()).map(Some).collect(),
        };
        let mut count = ids.len();
        let mut first = vec![usize::MAX; ids.len()];
        for c in 0..self.rules.max_channels {
            for (k, id) in ids.iter_mut().enumerate() {
                let Some(g) = *id else { continue };
                let rank = self.sys.list(NodeType::Gpu)[g].gpu_rank();
                let Some(n) = self.local_net(rank, c) else { continue };
                if c == 0 {
                    first[k] = n;
                }
                if c > 0 && first[k] == n {
                    *id = None;
                    count -= 1;
                    continue;
                }
                if !nets.contains(&n) {
                    nets.push(n);
                }
            }
            if count == 0 {
                break;
            }
        }
    }

    /// `ncclTopoSelectNets`, remembered: the answer depends only on the paths.
    #[inline]
    pub(super) fn select_nets(&mut self, type_inter: i32, gpu: Option<usize>) -> std::rc::Rc<[usize]> {
        let ng = self.ngpus();
        let key = (type_inter + 1).clamp(0, PathType::Dis as i32 + 1) as usize * (ng + 1) + gpu.map_or(0, |g| g + 1);
        if let Some(Some(v)) = self.nets_cache.get(key) {
            return v.clone();
        }
        let v: std::rc::Rc<[usize]> = self.compute_select_nets(type_inter, gpu).into();
        if key < self.nets_cache.len() {
            self.nets_cache[key] = Some(v.clone());
        }
        v
    }

    /// `ncclTopoGetLocal(NET, GPU)`, remembered.
    #[inline]
    pub(super) fn local_gpus_of_net(&mut self, n: usize) -> LocalGpus {
        if let Some(Some(v)) = self.local_gpus.get(n) {
            return v.clone();
        }
        let v = std::rc::Rc::new(paths::get_local(self.sys, NodeRef::new(NodeType::Net, n), NodeType::Gpu));
        if n < self.local_gpus.len() {
            self.local_gpus[n] = Some(v.clone());
        }
        v
    }

    pub(super) fn compute_select_nets(&self, type_inter: i32, gpu: Option<usize>) -> Vec<usize> {
        let mut nets = Vec::new();
        if self.sys.host_hashes.len() > 1 && self.o.scatter {
            self.pref_nets_gpu_first(gpu, &mut nets);
        } else {
            self.pref_nets_channel_first(gpu, &mut nets);
        }
        let max_dev = match self.p.env.netdevs_policy {
            Some(n) if n > 0 => {
                if gpu.is_none() {
                    n * self.ngpus()
                } else {
                    n
                }
            }
            _ => usize::MAX,
        };
        if nets.len() >= max_dev {
            return nets;
        }
        for t in 0..=type_inter {
            for g in 0..self.ngpus() {
                if gpu.is_some_and(|x| x != g) {
                    continue;
                }
                let paths = &self.sys.list(NodeType::Gpu)[g].paths[NodeType::Net as usize];
                for (n, p) in paths.iter().enumerate().take(self.sys.count(NodeType::Net).min(self.rules.max_channels))
                {
                    if p.ty as i32 == t && !nets.contains(&n) {
                        nets.push(n);
                        if nets.len() >= max_dev {
                            return nets;
                        }
                    }
                }
            }
        }
        nets
    }

    #[inline]
    pub(super) fn check_net(&self, g: &Graph, start: usize, n: usize, step: i32) -> bool {
        let nets = self.sys.list(NodeType::Net);
        let (net, sn) = (&nets[n], &nets[start]);
        let (ni, si) = (net.net().expect("net"), sn.net().expect("net"));
        if self.rules.cross_nic != CrossNicRules::RingPairs {
            // Before 2.23: a graph's crossNic is 0 or 1; without it the way out is on the
            // way in's ASIC port; with it (from 2.20) odd channels leave by the NET the
            // channel before came in by.
            if g.pattern == Pattern::Tree && net.id != sn.id {
                return false;
            }
            if g.cross_nic != CrossNic::On && (ni.asic != si.asic || ni.port != si.port) {
                return false;
            }
            if self.rules.cross_nic == CrossNicRules::ZeroThenOnePaired
                && g.cross_nic != CrossNic::Off
                && g.n_channels & 1 != 0
                && Some(net.id) != g.inter[(g.n_channels as usize - 1) * 2]
            {
                return false;
            }
            return g.pattern != Pattern::BalancedTree
                || step == 0
                || Some(net.id) == g.inter[g.n_channels as usize * 2 + 1];
        }
        if ni.plane != -1 && si.plane != -1 && ni.plane != si.plane {
            return false;
        }
        if g.pattern == Pattern::Tree && net.id != sn.id {
            return false;
        }
        if g.pattern == Pattern::Ring && g.cross_nic == CrossNic::Alternate {
            if g.n_channels & 1 != 0 && Some(net.id) != g.inter[(g.n_channels as usize - 1) * 2] {
                return false;
            }
        } else if g.cross_nic == CrossNic::Off {
            if ni.rail != -1 && si.rail != -1 {
                if ni.rail != si.rail {
                    return false;
                }
            } else if self.o.rail_per_host
                && crate::model::system::id_system(net.id) != crate::model::system::id_system(sn.id)
            {
                if ni.pci_id != si.pci_id || ni.port != si.port {
                    return false;
                }
            } else if ni.asic != si.asic || ni.port != si.port {
                return false;
            }
        }
        if g.pattern == Pattern::BalancedTree && step != 0 && Some(net.id) != g.inter[g.n_channels as usize * 2 + 1] {
            return false;
        }
        true
    }
}
