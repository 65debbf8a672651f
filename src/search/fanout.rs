//! The two patterns that take every GPU of a channel at once: CollNet Direct (each GPU
//! to and from all others, at a share of the bandwidth) and NVLS (each GPU to and from
//! the NVSwitch, the channel's head at twice the bandwidth).

use super::bandwidth::LinkBw;
use super::graph::Graph;
use super::recursion::{Budget, Order, Search};
use crate::model::NodeType;
use crate::model::system::NodeRef;

impl<B: LinkBw> Search<'_, '_, B> {
    #[inline]
    pub(super) fn try_collnet_direct(&mut self, g: &mut Graph, save: &mut Graph, gi: usize, time: &mut Budget) {
        let n = self.ngpus();
        let mul = 1.0f32 / (n as f32 - 1.0);
        let me = NodeRef::new(NodeType::Gpu, gi);
        let mut fwd = 0;
        let mut ok;
        loop {
            ok = self.follow_path(g, Some(me), NodeRef::new(NodeType::Gpu, fwd), mul).is_some();
            if !ok {
                break;
            }
            fwd += 1;
            if fwd >= n {
                break;
            }
        }
        if ok {
            let mut bwd = 0;
            loop {
                ok = self.follow_path(g, Some(NodeRef::new(NodeType::Gpu, bwd)), me, mul).is_some();
                if !ok {
                    break;
                }
                bwd += 1;
                if bwd >= n {
                    break;
                }
            }
            if ok {
                let mut step = 1;
                for index in 0..n {
                    if index != gi {
                        g.intra[g.n_channels as usize * n + step] = self.sys.list(NodeType::Gpu)[index].gpu_rank();
                        step += 1;
                    }
                }
                self.rec_gpu(g, save, None, n as i32, None, None, Order::Sorted, time);
            }
            while bwd > 0 {
                bwd -= 1;
                self.follow_path(g, Some(NodeRef::new(NodeType::Gpu, bwd)), me, -mul);
            }
        }
        while fwd > 0 {
            fwd -= 1;
            self.follow_path(g, Some(me), NodeRef::new(NodeType::Gpu, fwd), -mul);
        }
    }

    #[inline]
    pub(super) fn try_nvls(&mut self, g: &mut Graph, save: &mut Graph, gi: usize, time: &mut Budget) {
        let n = self.ngpus();
        let nvs = NodeRef::new(NodeType::Nvs, 0);
        let mut d0 = 0;
        let mut ok;
        loop {
            let m = if d0 == gi { 2.0 } else { 1.0 };
            ok = self.follow_path(g, Some(nvs), NodeRef::new(NodeType::Gpu, d0), m).is_some();
            d0 += 1;
            if !(ok && d0 < n) {
                break;
            }
        }
        if !ok {
            d0 -= 1;
        } else {
            let mut d1 = 0;
            loop {
                let m = if d1 == gi { 2.0 } else { 1.0 };
                ok = self.follow_path(g, Some(NodeRef::new(NodeType::Gpu, d1)), nvs, m).is_some();
                d1 += 1;
                if !(ok && d1 < n) {
                    break;
                }
            }
            if !ok {
                d1 -= 1;
            } else {
                self.rec_gpu(g, save, None, n as i32, None, None, Order::Sorted, time);
            }
            while d1 > 0 {
                d1 -= 1;
                let m = if d1 == gi { -2.0 } else { -1.0 };
                self.follow_path(g, Some(NodeRef::new(NodeType::Gpu, d1)), nvs, m);
            }
        }
        while d0 > 0 {
            d0 -= 1;
            let m = if d0 == gi { -2.0 } else { -1.0 };
            self.follow_path(g, Some(nvs), NodeRef::new(NodeType::Gpu, d0), m);
        }
    }
}
