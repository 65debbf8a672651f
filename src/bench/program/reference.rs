//! What each collective must leave in every rank's receive buffer, computed from the
//! inputs alone (nccl-tests' definitions), and the validation run that compares.
//!
//! With `count` elements per rank (nccl-tests' paramcount) and ranks q:
//! * allreduce: out_r[i] = (+)_q in_q[i]
//! * reducescatter: out_r[j] = (+)_q in_q[r*count + j]
//! * reduce (root p): out_p[i] = (+)_q in_q[i]; other ranks' outputs are not defined
//! * allgather: out_r[q*count + j] = in_q[j]
//! * alltoall: out_r[q*count + j] = in_q[r*count + j]
//! * broadcast (root p): out_r[i] = in_p[i]

use super::{ProgramBackend, reduces};
use crate::algo::program::{Collective, Mode};
use crate::bench::dtype::{self, Elem, expected_value, input_value};
use crate::bench::{DataType, RedOp, as_bytes, as_bytes_mut};
use crate::error::Error;

/// Byte written over out-of-place outputs before a validation run, so that an element
/// nobody wrote is caught.
const POISON: u8 = 0xa5;

/// Rank `rank`'s send buffer.
fn input<T: Elem>(op: RedOp, n: usize, rank: usize, seed: u64, len: usize) -> Vec<T> {
    (0..len).map(|i| input_value::<T>(op, n, rank, seed, i)).collect()
}

/// Rank `rank`'s expected receive buffer; `None` where the collective leaves it undefined.
pub(crate) fn expected<T: Elem, const OP: u8>(
    coll: Collective,
    op: RedOp,
    n: usize,
    rank: usize,
    root: usize,
    seed: u64,
    count: usize,
) -> Option<Vec<T>> {
    let reduced = |i: usize| expected_value::<T, OP>(op, n, seed, i);
    let from = |q: usize, i: usize| input_value::<T>(op, n, q, seed, i);
    Some(match coll {
        Collective::AllReduce => (0..count).map(reduced).collect(),
        Collective::Reduce if rank == root => (0..count).map(reduced).collect(),
        Collective::Reduce => return None,
        Collective::ReduceScatter => (0..count).map(|j| reduced(rank * count + j)).collect(),
        Collective::AllGather => (0..n * count).map(|k| from(k / count, k % count)).collect(),
        Collective::AllToAll => (0..n * count).map(|k| from(k / count, rank * count + k % count)).collect(),
        Collective::Broadcast => (0..count).map(|i| from(root, i)).collect(),
        _ => return None,
    })
}

/// Put every rank's validation input in place.
pub fn init_inputs(
    host: &mut dyn ProgramBackend,
    dtype: DataType,
    op: RedOp,
    count: usize,
    mode: Mode,
    seed: u64,
) -> Result<(), Error> {
    let n = host.nranks();
    let g = host.loaded().geometry(dtype, count)?;
    dtype::with_elem!(dtype, T => {
        for r in 0..n {
            let v: Vec<T> = input::<T>(op, n, r, seed, g.send);
            host.set_input(r, mode, dtype, count, as_bytes(&v))?;
        }
    });
    Ok(())
}

/// One validation run: fresh inputs, poisoned out-of-place outputs, one collective,
/// every defined output compared with its definition. Returns the wrong elements.
/// Operators other than the first apply only to the collectives that reduce.
pub fn validate(
    host: &mut dyn ProgramBackend,
    dtype: DataType,
    op: RedOp,
    count: usize,
    mode: Mode,
    seed: u64,
) -> Result<u64, Error> {
    let n = host.nranks();
    let coll = host.loaded().coll();
    let root = host.loaded().root as usize;
    let op = if reduces(coll) { op } else { RedOp::Sum };
    init_inputs(host, dtype, op, count, mode, seed)?;
    if mode == Mode::OutOfPlace {
        for r in 0..n {
            host.fill_output(r, mode, dtype, count, POISON)?;
        }
    }
    host.run(dtype, op, count, mode, 1)?;
    let tol = dtype::tolerance(dtype, op);
    let mut wrong = 0;
    dtype::with_elem!(dtype, T => dtype::with_op!(op, OP => {
        // Every rank expects the same of an allreduce, allgather or broadcast: made once.
        let same = matches!(coll, Collective::AllReduce | Collective::AllGather | Collective::Broadcast);
        let mut shared: Option<Vec<T>> = None;
        let mut got: Vec<T> = Vec::new();
        for r in 0..n {
            let mine;
            let exp = match &shared {
                Some(e) => e,
                None => {
                    let Some(e) = expected::<T, OP>(coll, op, n, r, root, seed, count) else { continue };
                    mine = e;
                    if same {
                        shared = Some(mine);
                        shared.as_ref().unwrap_or_else(|| unreachable!())
                    } else {
                        &mine
                    }
                }
            };
            got.clear();
            got.extend_from_slice(exp);
            host.get_output(r, mode, dtype, count, as_bytes_mut(&mut got))?;
            wrong += dtype::count_wrong(&got, exp, tol);
        }
    }));
    Ok(wrong)
}
