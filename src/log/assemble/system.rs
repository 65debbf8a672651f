//! The system print (K4-K7 records): where a print opens and closes on its stream, and
//! what its lines tell of the release. [`SysBuilder`](super::sysbuilder::SysBuilder)
//! builds each print.

use super::sink::Pending;
use super::state::{Assembler, Outcome};
use super::sysbuilder::{SysBlock, SysBuilder};
use crate::log::classify::system::node_id;
use crate::log::record::{HeaderForm, PathLine, SysHeader, SysLine};
use crate::log::version::Fp;

impl Assembler {
    pub(super) fn sys_header(&mut self, si: usize, h: SysHeader) -> Outcome {
        self.ev.see(match h.form {
            HeaderForm::WidthSpeed => Fp::HeaderWidthSpeed,
            HeaderForm::Width => Fp::HeaderWidth,
            HeaderForm::WidthTotal => Fp::HeaderWidthTotal,
            HeaderForm::Bw => Fp::HeaderBw,
        });
        let host = self.host_name(self.streams[si].host);
        self.streams[si].sys = Some(if self.sink.sys_complete.contains(&host) {
            SysBlock::Skip { ended: false, in_paths: false }
        } else {
            SysBlock::Build(Box::new(SysBuilder::new(Some(h))))
        });
        Outcome::Read
    }

    pub(super) fn sys_line(&mut self, si: usize, l: SysLine<'_>) -> Outcome {
        self.sys_fingerprints(&l);
        let reopen = match &self.streams[si].sys {
            None => true,
            Some(SysBlock::Build(b)) => b.ended || b.in_paths,
            Some(SysBlock::Skip { ended, in_paths }) => *ended || *in_paths,
        };
        if reopen {
            self.close_sys(si);
            self.open_implicit(si);
        }
        if let Some(SysBlock::Build(b)) = &mut self.streams[si].sys {
            b.line(&l);
        }
        Outcome::Read
    }

    pub(super) fn sys_end(&mut self, si: usize) -> Outcome {
        match &mut self.streams[si].sys {
            Some(SysBlock::Build(b)) if !b.in_paths => b.ended = true,
            Some(SysBlock::Skip { ended, in_paths: false }) => *ended = true,
            _ => return Outcome::Skipped,
        }
        Outcome::Read
    }

    pub(super) fn path_line(&mut self, si: usize, p: PathLine<'_>, near_limit: bool) -> Outcome {
        self.path_fingerprints(&p);
        // A row from a head already read starts another print whose tree and
        // header were not in the log.
        if let Some(SysBlock::Build(b)) = &self.streams[si].sys
            && b.has_row(p.head)
        {
            self.close_sys(si);
        }
        if self.streams[si].sys.is_none() {
            self.open_implicit(si);
        }
        match &mut self.streams[si].sys {
            Some(SysBlock::Build(b)) => b.path(&p),
            Some(SysBlock::Skip { in_paths, .. }) => *in_paths = true,
            None => {}
        }
        // Up to 2.28 NCCL cuts records at 1023 bytes; a row that long lost its
        // end even when it stops between two entries.
        if p.truncated || near_limit {
            self.sink.f.lines.truncated += 1;
        }
        Outcome::Read
    }

    fn open_implicit(&mut self, si: usize) {
        let host = self.host_name(self.streams[si].host);
        self.streams[si].sys = Some(if self.sink.sys_complete.contains(&host) {
            SysBlock::Skip { ended: false, in_paths: false }
        } else {
            SysBlock::Build(Box::new(SysBuilder::new(None)))
        });
    }

    pub(super) fn close_sys(&mut self, si: usize) {
        if let Some(SysBlock::Build(b)) = self.streams[si].sys.take() {
            let complete = b.complete();
            if b.overflow {
                self.sink.warn("a system print was larger than topo keeps; the rest was skipped".into());
            }
            let mut print = b.finish();
            print.host = self.host_name(self.streams[si].host);
            self.attribute(si, Pending::System(Box::new(print), complete));
        }
    }

    fn sys_fingerprints(&mut self, l: &SysLine<'_>) {
        let id = &l.node.id;
        let far = matches!(l.link, Some((k, _)) if k != "PCI");
        if far {
            if id.dashed {
                self.ev.see(Fp::FarNodeDashed);
            } else if id.upper || id.kind == "NET" {
                self.ev.see(Fp::FarNodeUpper);
            }
        } else if id.dashed {
            self.ev.see(Fp::TreeNodeDashed);
        } else if id.upper {
            self.ev.see(Fp::TreeNodeUpper);
        }
        if let Some((k, _)) = l.link {
            self.ev.see(if l.int_bw { Fp::IntLinkBw } else { Fp::FloatLinkBw });
            match k {
                "LOC" => self.ev.see(Fp::LocLink),
                "C2C" => self.ev.see(Fp::C2c),
                _ => {}
            }
        }
        match id.kind {
            "CPU" if !far => self.ev.see(if l.node.cpu.is_some() { Fp::CpuAttr } else { Fp::CpuNoAttr }),
            "PCI" if !far => self.ev.see(if l.node.pci_device.is_some() { Fp::PciAttr } else { Fp::PciNoAttr }),
            "NET" => match l.node.net_fields {
                1 => self.ev.see(Fp::NetAttr1),
                3 => self.ev.see(Fp::NetAttr3),
                4 => self.ev.see(Fp::NetAttr4),
                _ => {}
            },
            "GIN" | "DEV" => self.ev.see(Fp::NewNodeTypes),
            "RMA" | "CXB" => self.ev.see(Fp::NewestNodeTypes),
            _ => {}
        }
        if l.node.mlo_part.is_some() {
            self.ev.see(Fp::NewestNodeTypes);
        }
    }

    fn path_fingerprints(&mut self, p: &PathLine<'_>) {
        if let Some((head, _)) = node_id(p.head) {
            if head.dashed {
                self.ev.see(Fp::PathHeadDashed);
            } else if head.upper || p.entries.iter().any(|e| e.to.contains('-')) {
                // An upper-case head proves the case; a head without letters
                // (`NET/5`) before dashed entries is 2.21-2.22 too.
                self.ev.see(Fp::PathHeadUpper);
            }
        }
        if let Some(e) = p.entries.first() {
            self.ev.see(match e.bw_decimals {
                0 => Fp::PathInt,
                1 => Fp::PathF1,
                _ => Fp::PathF6,
            });
        }
        for e in &p.entries {
            match e.kind {
                "C2C" => self.ev.see(Fp::C2c),
                "P2C" => self.ev.see(Fp::P2c),
                "PXN" | "DIS" => self.ev.see(Fp::PxnPath),
                "NVB" => self.ev.see(Fp::NvbPath),
                _ => {}
            }
        }
    }
}
