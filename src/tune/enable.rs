//! Which entries of the table a communicator may use: the user's NCCL_ALGO and
//! NCCL_PROTO, the algorithms this communicator cannot run, and LL128's "auto" rule
//! (path types and GPU generations where it is safe).

use crate::error::Error;
use crate::model::PathType;

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

impl Enables {
    /// NCCL_ALGO / NCCL_PROTO as given (`None` when unset); fails as NCCL's init does
    /// when one does not parse.
    pub(super) fn parse(algo_env: Option<&str>, proto_env: Option<&str>) -> Result<Enables, Error> {
        let mut proto = [[1, 2, 1]; super::NFUNC];
        let mut algo = [[1i32; super::NALGO]; super::NFUNC];
        if let Some(v) = proto_env {
            apply_list("NCCL_PROTO", v, &Proto::ALL.map(Proto::name), &mut proto)?;
        }
        if let Some(v) = algo_env {
            apply_list("NCCL_ALGO", v, &Algo::ALL.map(Algo::name), &mut algo)?;
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
/// generation (or all sm90+) no older than Volta.
fn ll128_auto(c: &Comm, ll128_c2c: bool, algo: Algo) -> bool {
    let g = &c.graphs[algo];
    let inter_ok =
        if ll128_c2c && c.min_cc >= 90 { g.type_inter <= PathType::Pxn } else { g.type_inter <= PathType::Pxb };
    inter_ok && g.type_intra <= PathType::Nvb && (c.min_cc == c.max_cc || c.min_cc >= 90) && c.min_cc >= 70
}

/// Zero the bandwidth of every entry the communicator may not use.
pub(super) fn apply(c: &Comm, env: &crate::env::Env, en: &Enables, bandwidth: &mut PerFuncAlgoProto<f32>) {
    let ll128_c2c = env.tune.ll128_c2c;
    for func in Func::ALL {
        for algo in Algo::ALL {
            let algo_on = en.algo[func][algo] != 0 && usable(c, algo);
            for proto in Proto::ALL {
                let mut on = en.proto[func][proto];
                if on == 2 && proto == Proto::Ll128 {
                    on = ll128_auto(c, ll128_c2c, algo) as i32;
                }
                if on == 0 || !algo_on {
                    bandwidth[func][algo][proto] = 0.0;
                }
            }
        }
    }
}
