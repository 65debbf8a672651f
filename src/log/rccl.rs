//! RCCL (AMD's fork of NCCL) writes the same record prefix and mostly the same messages,
//! so its logs would be misread as NCCL's. It is told by its version banner, by the
//! ` comm 0x... nRanks NN` it appends to ring/tree/connection lines, by `XGMI` links and
//! by messages only it prints (the classifier returns those as `Rec::Rccl`). A log found
//! to be RCCL's is reported as such, with its lines counted and no facts.

use super::record::Rec;
use super::scan::{find, hex, nat, ptr};

/// Whether an unprefixed line is part of RCCL's version banner.
pub(crate) fn banner_line(line: &str) -> bool {
    let t = line.trim_start();
    line.contains("RCCL version")
        || t.starts_with("Librccl path")
        || t.starts_with("HIP version  :")
        || t.starts_with("ROCm version :")
}

/// Messages only RCCL prints.
pub(crate) fn rccl_only(msg: &str) -> Option<Rec<'_>> {
    const OPENINGS: &[&str] = &[
        "RCCL version",
        "Kernel version",
        "ROCr version",
        "Hipruntime version",
        "HIP version",
        "ROCm version",
        "Librccl path",
        "Dmabuf feature disabled without NCCL_DMABUF_ENABLE=1",
        "NET/Plugin: No plugin found (librccl-net.so)",
        "NET/Plugin : No plugin found (librccl-net.so)",
        "RCCL enabled same node P2P over network",
        "[RINGS]",
    ];
    if OPENINGS.iter().any(|o| msg.starts_with(o)) {
        return Some(Rec::Rccl("RCCL message"));
    }
    if msg.contains("HSA_FORCE_FINE_GRAIN_PCIE") || msg.contains("Missing \"iommu=pt\"") {
        return Some(Rec::Rccl("RCCL message"));
    }
    None
}

/// RCCL appends ` comm 0x... nRanks NN [busId X]` to messages NCCL ends earlier.
pub(crate) fn rccl_suffix(msg: &str) -> Option<Rec<'_>> {
    let i = find(msg, " comm 0x")?;
    let tail = &msg[i + " comm ".len()..];
    let (_, r) = ptr(tail)?;
    let (_, r) = nat(r.strip_prefix(" nRanks ")?)?;
    let ok = r.is_empty() || r.strip_prefix(" busId ").and_then(hex).is_some_and(|(_, x)| x.is_empty());
    ok.then_some(Rec::Rccl("comm/nRanks suffix"))
}

#[cfg(test)]
mod tests {
    use super::super::classify::classify;
    use super::super::record::Rec;
    use super::banner_line;

    #[test]
    fn rccl_signs() {
        assert!(banner_line("RCCL version : 2.22.3-HEAD:7d8d67c"));
        assert!(banner_line("RCCL version 2.6.4+hip3.5"));
        assert!(banner_line("Librccl path : /opt/rocm/lib/librccl.so.1"));
        assert!(!banner_line("NCCL version 2.23.4+cuda12.4"));
        for m in [
            "Trees [0] 1/-1/-1->0->-1 comm 0x7f nRanks 08 busId 23000",
            "Ring 00 : 7 -> 0 -> 1 comm 0x7f nRanks 08 busId 23000",
            "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC comm 0x7f nRanks 08",
            "Connected all rings comm 0x7f nRanks 08 busId 23000",
            "+ XGMI[40.0] - GPU/0-c000",
            "Pattern 4, crossNic 0, nChannels 1, bw 40.000000/40.000000, type XGMI/PIX, sameChannels 1",
            "RCCL_MSCCLPP_ENABLE set by environment to 1.",
            "Kernel version: 5.15.0",
            "[RINGS] 0 1 2 3",
        ] {
            assert!(matches!(classify(m), Rec::Rccl(_)), "{m}");
        }
        // MSCCL (Microsoft's fork of NVIDIA's NCCL) is not RCCL.
        assert!(!matches!(classify("MSCCL: Initialization finished"), Rec::Rccl(_)));
    }
}
