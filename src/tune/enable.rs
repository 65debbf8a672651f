//! Which entries of the table a communicator may use: the user's NCCL_ALGO and
//! NCCL_PROTO, the algorithms this communicator cannot run, and LL128's "auto" rule
//! (path types and GPU generations where it is safe); before 2.24, the ring's
//! bandwidths come back for a collective left with nothing.

use crate::error::Error;
use crate::model::PathType;
use crate::release::{Ll128Rule, Release, RingBackup};

use super::env;
use super::table::{PerAlgo, PerFunc, PerFuncAlgoProto, PerProto};
use super::{Algo, Comm, Func, Proto};

/// Per collective: 1 on, 0 off, and for LL128 2 = "auto" (NCCL's default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Enables {
    pub algo: PerFunc<PerAlgo<i32>>,
    pub proto: PerFunc<PerProto<i32>>,
}

/// Apply an NCCL_ALGO/NCCL_PROTO value to per-function enable flags.
fn apply_list<const N: usize>(var: &str, value: &str, elems: &[&str], rows: &mut [[i32; N]]) -> Result<(), Error> {
    let mut flat: Vec<i32> = rows.concat();
    env::parse_list(value, &Func::ALL.map(Func::name), elems, &mut flat)
        .map_err(|e| Error::Usage(format!("{var}: {e}")))?;
    for (row, chunk) in rows.iter_mut().zip(flat.chunks(N)) {
        row.copy_from_slice(chunk);
    }
    Ok(())
}

/// Apply an NCCL_ALGO/NCCL_PROTO value of the older grammar (one list for every
/// collective, unknown names ignored) to the first `elems.len()` flags of each row.
fn apply_global<const N: usize>(value: &str, elems: &[&str], rows: &mut [[i32; N]]) {
    let flags = env::parse_list_global(value, elems);
    for row in rows.iter_mut() {
        row[..flags.len()].copy_from_slice(&flags);
    }
}

impl Enables {
    /// NCCL_ALGO / NCCL_PROTO as given (`None` when unset), in the release's grammar;
    /// fails as NCCL's init does when one does not parse. A release without PAT never
    /// enables it.
    pub(super) fn parse(release: Release, algo_env: Option<&str>, proto_env: Option<&str>) -> Result<Enables, Error> {
        let mut proto = [[1, 2, 1]; super::NFUNC];
        let mut algo = [[1i32; super::NALGO]; super::NFUNC];
        let names: Vec<&str> =
            Algo::ALL.iter().filter(|&&a| a != Algo::Pat || release.has_pat()).map(|a| a.name()).collect();
        if release.algo_proto_per_collective() {
            if let Some(v) = proto_env {
                apply_list("NCCL_PROTO", v, &Proto::ALL.map(Proto::name), &mut proto)?;
            }
            if let Some(v) = algo_env {
                apply_list("NCCL_ALGO", v, &names, &mut algo)?;
            }
        } else {
            if let Some(v) = proto_env {
                apply_global(v, &Proto::ALL.map(Proto::name), &mut proto);
            }
            if let Some(v) = algo_env {
                apply_global(v, &names, &mut algo);
            }
        }
        if !release.has_pat() {
            for row in &mut algo {
                row[Algo::Pat as usize] = 0;
            }
        }
        Ok(Enables { algo: PerFunc(algo.map(PerAlgo)), proto: PerFunc(proto.map(PerProto)) })
    }
}

/// Whether the communicator can run `algo` at all: NVLS-tree needs several nodes,
/// CollNet (and NVLS across nodes) needs CollNet enabled, CollNet direct an NVSwitch.
fn usable(c: &Comm, algo: Algo) -> bool {
    let off = (c.n_nodes == 1 && algo == Algo::NvlsTree)
        || (!c.collnet_enable
            && (matches!(algo, Algo::CollNetDirect | Algo::CollNetChain) || (algo == Algo::Nvls && c.n_nodes > 1)))
        || (c.nvs_count == 0 && algo == Algo::CollNetDirect);
    !off
}

/// LL128 "auto": on where the graph's paths are NVLink-class inside the node and PCIe
/// switch-class (or PXN on sm90+, unless NCCL_LL128_C2C=0) across, on GPUs of one
/// generation (or all sm90+) no older than Volta; the release's rule says which.
fn ll128_auto(c: &Comm, ll128_c2c: bool, algo: Algo) -> bool {
    let g = &c.graphs[algo];
    let sm90 = c.min_cc >= 90;
    let (inter_ok, mixed_ok, cc_ok) = match c.release.ll128_rule() {
        Ll128Rule::CompCaps(ccs) => {
            (g.type_inter <= PathType::Pxb || (sm90 && g.type_inter <= PathType::Pxn), false, ccs.contains(&c.min_cc))
        }
        Ll128Rule::C2cOrPxn => {
            let sm90_limit = if ll128_c2c { PathType::P2c } else { PathType::Pxn };
            // 2.27.3 numbers P2C after PXN, so there the C2C limit takes PXN in too.
            let swap = c.release.p2c_after_pxn();
            let within = g.type_inter.rank(swap) <= sm90_limit.rank(swap);
            (g.type_inter <= PathType::Pxb || (sm90 && within), false, c.min_cc >= 70)
        }
        Ll128Rule::C2cPxnElsePxb { mixed_sm90 } => {
            let limit = if ll128_c2c && sm90 { PathType::Pxn } else { PathType::Pxb };
            (g.type_inter <= limit, mixed_sm90 && sm90, c.min_cc >= 70)
        }
    };
    let intra_limit = if c.release.ll128_through_nvb() { PathType::Nvb } else { PathType::Nvl };
    inter_ok && g.type_intra <= intra_limit && (c.min_cc == c.max_cc || mixed_ok) && cc_ok
}

/// The algorithms one collective may run: the user's choice less what the communicator
/// cannot run; before 2.24, Ring and Tree come back when CollNet is off and nothing of
/// Ring, Tree, NVLS and NVLS tree is left.
fn algos_on(c: &Comm, en: &Enables, func: Func) -> PerAlgo<bool> {
    let mut on = PerAlgo(Algo::ALL.map(|a| en.algo[func][a] != 0 && usable(c, a)));
    if c.release.algo_falls_back_to_ring_tree()
        && !c.collnet_enable
        && ![Algo::Ring, Algo::Tree, Algo::Nvls, Algo::NvlsTree].iter().any(|&a| on[a])
    {
        on[Algo::Ring] = true;
        on[Algo::Tree] = true;
    }
    on
}

/// Zero the bandwidth of every entry the communicator may not use; where the release
/// keeps a ring backup, a collective left with nothing gets the ring's back.
pub(super) fn apply(c: &Comm, env: &crate::env::Env, en: &Enables, bandwidth: &mut PerFuncAlgoProto<f32>) {
    let ll128_c2c = env.tune.ll128_c2c;
    let backup_kind = c.release.ring_backup();
    for func in Func::ALL {
        let mut backup = bandwidth[func][Algo::Ring];
        let algo_on = algos_on(c, en, func);
        for algo in Algo::ALL {
            for proto in Proto::ALL {
                let mut on = en.proto[func][proto];
                if on == 2 && proto == Proto::Ll128 {
                    on = ll128_auto(c, ll128_c2c, algo) as i32;
                }
                if on == 0 && algo == Algo::Ring && backup_kind == RingBackup::EnabledProtocols {
                    backup[proto] = 0.0;
                }
                // 2.18 keeps the ring of every collective but AllReduce whatever NCCL_ALGO says.
                let ring_kept =
                    algo == Algo::Ring && func != Func::AllReduce && c.release.ring_never_off_outside_allreduce();
                let algo_off = !(algo_on[algo] || ring_kept);
                if on == 0 || algo_off {
                    bandwidth[func][algo][proto] = 0.0;
                }
            }
        }
        let left = bandwidth[func].0.iter().any(|row| row.0.iter().any(|&bw| bw != 0.0));
        if backup_kind != RingBackup::None && !left {
            bandwidth[func][Algo::Ring] = backup;
        }
    }
}
