//! How many channels a communicator ends up with, as `init.cc` and `connect.cc` decide
//! after the search: the collective channels (`comm->nChannels`) and the NVLS channels
//! (`comm->nvlsChannels`).
//!
//! TODO(channels): a colleague is porting this part in full (with the reason for each
//! step) as `search::channels`; switch to it once it lands and delete this file.

use crate::env::Env;

use super::constants::{MAXCHANNELS, NVLS_NCHANNELS_SM90, NVLS_NCHANNELS_SM100, NVLS_NCHANNELS_SM100_NVL};

/// What the channel count depends on besides the graphs.
#[derive(Debug, Clone, Copy)]
pub struct ChannelInputs {
    pub ring_channels: i32,
    pub tree_channels: i32,
    pub ring_bw_intra: f32,
    /// CollNet is in use and its chain graph has more bandwidth inside the node than out.
    pub collnet_more_intra: bool,
    pub n_ranks: usize,
    pub n_nodes: usize,
    pub min_cc: i32,
    /// This rank's compute capability (`comm->compCap`).
    pub cc: i32,
}

/// NCCL_MIN_NCHANNELS (legacy NCCL_MIN_NRINGS), clamped to [0, 64].
fn min_nchannels(env: &Env) -> usize {
    let v = match env.channels.min_channels() {
        -2 => 0,
        v => v,
    };
    v.clamp(0, MAXCHANNELS as i64) as usize
}

/// NCCL_MAX_NCHANNELS (legacy NCCL_MAX_NRINGS), clamped to [1, 64].
fn max_nchannels(env: &Env) -> usize {
    let v = match env.channels.max_channels() {
        -2 => MAXCHANNELS as i64,
        v => v,
    };
    v.clamp(1, MAXCHANNELS as i64) as usize
}

/// NCCL_MIN_CTAS / NCCL_MAX_CTAS as the communicator config sees them (defaults 1 and 64;
/// values <= 0 are ignored; both capped at 64; min above max becomes max).
fn ctas(env: &Env) -> (usize, usize) {
    let read = |v: i64, default: usize| {
        if v <= 0 { default } else { (v as usize).min(MAXCHANNELS) }
    };
    let max = read(env.channels.max_ctas, MAXCHANNELS);
    let min = read(env.channels.min_ctas, 1).min(max);
    (min, max)
}

/// `comm->nChannels` after `ncclTopoPostset`: min(ring, tree), doubled, +50% for CollNet,
/// doubled again on Hopper+ multi-node rings faster than 45 GB/s, then the user's limits.
/// The network is assumed host-based (no "unpack" doubling).
pub fn coll_channels(c: &ChannelInputs, env: &Env) -> usize {
    let mut n = c.ring_channels.min(c.tree_channels).max(0) as usize;
    n = (n * 2).min(MAXCHANNELS);
    if c.collnet_more_intra && c.n_ranks > c.n_nodes {
        n = n.max((n + n / 2).min(MAXCHANNELS));
    }
    if c.min_cc >= 90 && c.n_nodes > 1 && c.ring_bw_intra > 45.0 && n < 16 {
        n *= 2;
    }
    let (min_ctas, max_ctas) = ctas(env);
    n = n.min(max_nchannels(env)).min(max_ctas);
    n.max(min_nchannels(env).max(min_ctas))
}

/// `comm->nvlsChannels` after `ncclNvlsTuning` (0 when NVLS is not in use). The SM100
/// multi-node refinement, which depends on the NIC speed, is not modelled.
pub fn nvls_channels(c: &ChannelInputs, env: &Env, nvls: bool) -> usize {
    if !nvls {
        return 0;
    }
    let mut n = if c.cc >= 100 {
        if c.n_nodes > 1 { NVLS_NCHANNELS_SM100 } else { NVLS_NCHANNELS_SM100_NVL }
    } else {
        NVLS_NCHANNELS_SM90
    };
    n = env.channels.nvls_nchannels.unwrap_or(n as i64).max(0) as usize;
    let (min_ctas, max_ctas) = ctas(env);
    n.min(max_ctas).max(min_ctas)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> ChannelInputs {
        ChannelInputs {
            ring_channels: 2,
            tree_channels: 2,
            ring_bw_intra: 20.0,
            collnet_more_intra: false,
            n_ranks: 2,
            n_nodes: 1,
            min_cc: 86,
            cc: 86,
        }
    }

    #[test]
    fn doubles_then_applies_limits() {
        let e = Env::default();
        // 2x RTX A6000 with an NVLink bridge: NCCL 2.23.4 logs "4 coll channels".
        assert_eq!(coll_channels(&inputs(), &e), 4);
        let e = Env::from_pairs([("NCCL_MAX_NCHANNELS", "3")]);
        assert_eq!(coll_channels(&inputs(), &e), 3);
        let e = Env::from_pairs([("NCCL_MIN_NCHANNELS", "12")]);
        assert_eq!(coll_channels(&inputs(), &e), 12);
        let e = Env::from_pairs([("NCCL_MIN_NRINGS", "8"), ("NCCL_MIN_NCHANNELS", "6")]);
        assert_eq!(coll_channels(&inputs(), &e), 6);
    }

    #[test]
    fn hopper_multi_node_doubles_again() {
        let c = ChannelInputs {
            ring_channels: 4,
            tree_channels: 4,
            ring_bw_intra: 48.0,
            n_nodes: 2,
            n_ranks: 16,
            min_cc: 90,
            cc: 90,
            ..inputs()
        };
        assert_eq!(coll_channels(&c, &Env::default()), 16);
        let c = ChannelInputs { n_nodes: 1, ..c };
        assert_eq!(coll_channels(&c, &Env::default()), 8);
    }

    #[test]
    fn nvls_defaults_by_generation() {
        let c = ChannelInputs { cc: 90, ..inputs() };
        assert_eq!(nvls_channels(&c, &Env::default(), true), 16);
        assert_eq!(nvls_channels(&c, &Env::default(), false), 0);
        let c = ChannelInputs { cc: 100, ..inputs() };
        assert_eq!(nvls_channels(&c, &Env::default(), true), 24);
        let e = Env::from_pairs([("NCCL_NVLS_NCHANNELS", "8")]);
        assert_eq!(nvls_channels(&c, &e, true), 8);
    }
}
