//! What limits one entry of the bandwidth table, kept as data while the model runs and
//! written out as text only when shown ([`std::fmt::Display`]).

use std::fmt;

use crate::model::PathType;

use super::GraphFacts;

/// The link a graph's per-channel bandwidth comes from: inside the node, or the
/// network between nodes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    pub ty: PathType,
    pub bw: f32,
    pub inter: bool,
}

impl Link {
    pub fn of(g: &GraphFacts, inter: bool) -> Link {
        if inter {
            Link { ty: g.type_inter, bw: g.bw_inter, inter }
        } else {
            Link { ty: g.type_intra, bw: g.bw_intra, inter }
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.inter {
            write!(f, "NET {:.1} GB/s per channel ({})", self.bw, self.ty)
        } else {
            write!(f, "{} {:.1} GB/s per channel", self.ty, self.bw)
        }
    }
}

/// A protocol's share of the links, when that share (not a ceiling) is what binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// Ring LL: half the bandwidth.
    RingLl,
    /// Ring LL128: 92%.
    RingLl128,
    /// Tree LL: 1/3.8.
    TreeLl,
}

/// A fixed per-channel ceiling of NCCL's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ceiling {
    RingLl128,
    Tree,
    TreeLl128,
    NvlsTree,
}

/// What limits a (collective, algorithm, protocol) entry.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Limit {
    /// The entry was not modelled (NCCL leaves it at 0).
    #[default]
    None,
    /// The graph's links times its channels, possibly at a protocol's share.
    Links { link: Link, channels: i32, share: Option<Share> },
    /// NCCL's LL bandwidth ceiling (GB/s).
    LlCeiling(f64),
    /// A per-channel ceiling times the channels (the tree's, possibly at tree LL's share).
    PerChannel { ceiling: Ceiling, gbs: f64, channels: i32, share: Option<Share> },
    /// NVLS inside the node: NVLink bandwidth at NVLS efficiency.
    NvlsIntra { ty: PathType, bw: f32, efficiency: f32, channels: i32 },
    /// NVLS bound by the network.
    NvlsInter { link: Link, channels: i32 },
    /// CollNet allgather/reducescatter: GPUs per node x min(intra, 90% of the network);
    /// `inter` is infinite where the network does not count (before 2.27.3).
    CollNetPerGpu { ppn: f32, intra: f32, inter: f32 },
    /// CollNet direct allreduce: the links, shared by the GPUs behind each NIC.
    CollNetDirect { link: Link, channels: i32, factor: f32 },
}

/// "1 channel", "12 channels".
struct Chans(i32);

impl fmt::Display for Chans {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 1 { f.write_str("1 channel") } else { write!(f, "{} channels", self.0) }
    }
}

fn write_share(f: &mut fmt::Formatter<'_>, share: Option<Share>) -> fmt::Result {
    match share {
        None => Ok(()),
        Some(Share::RingLl) => f.write_str(", LL at 50%"),
        Some(Share::RingLl128) => f.write_str(", LL128 at 92%"),
        Some(Share::TreeLl) => f.write_str(", tree LL at 1/3.8"),
    }
}

impl Limit {
    /// The same limit at a protocol's share.
    pub fn at_share(self, s: Share) -> Limit {
        match self {
            Limit::Links { link, channels, .. } => Limit::Links { link, channels, share: Some(s) },
            Limit::PerChannel { ceiling, gbs, channels, .. } => {
                Limit::PerChannel { ceiling, gbs, channels, share: Some(s) }
            }
            other => other,
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Limit::None => Ok(()),
            Limit::Links { link, channels, share } => {
                write!(f, "{link} x {}", Chans(channels))?;
                write_share(f, share)
            }
            Limit::LlCeiling(gbs) => write!(f, "LL ceiling {gbs:.1} GB/s"),
            Limit::PerChannel { ceiling, gbs, channels, share } => {
                let what = match ceiling {
                    Ceiling::RingLl128 => "LL128 ceiling",
                    Ceiling::Tree => "Tree ceiling",
                    Ceiling::TreeLl128 => "LL128 tree ceiling",
                    Ceiling::NvlsTree => "NVLSTree ceiling",
                };
                write!(f, "{what} {gbs:.1} GB/s per channel x {}", Chans(channels))?;
                write_share(f, share)
            }
            Limit::NvlsIntra { ty, bw, efficiency, channels } => write!(
                f,
                "NVLS: {ty} {bw:.1} GB/s per channel x {:.0}% efficiency x {}",
                efficiency * 100.0,
                Chans(channels)
            ),
            Limit::NvlsInter { link, channels } => write!(f, "NVLS: {link} x {}", Chans(channels)),
            Limit::CollNetPerGpu { ppn, intra, inter } if inter.is_infinite() => {
                write!(f, "CollNet: {ppn} GPUs x intra {intra:.1} GB/s")
            }
            Limit::CollNetPerGpu { ppn, intra, inter } => {
                write!(f, "CollNet: {ppn} GPUs x min(intra {intra:.1}, 90% of NET {inter:.1}) GB/s")
            }
            Limit::CollNetDirect { link, channels, factor } => {
                write!(f, "CollNet: {link} x {}, {factor:.2} GPUs per NIC", Chans(channels))
            }
        }
    }
}
