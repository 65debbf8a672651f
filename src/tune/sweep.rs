//! The sizes `topo tune` models, nccl-tests style, and the model run over them.

use crate::error::Error;
use crate::tune::{Func, Model, Prediction};

/// The sizes to model, nccl-tests style.
#[derive(Debug, Clone, Copy)]
pub struct Sweep {
    pub min: u64,
    pub max: u64,
    /// Multiply by this between sizes (`-f`); when `None`, add `step` (`-i`).
    pub factor: Option<u64>,
    pub step: u64,
}

/// Most rows a sweep may have (a typo in `-i` should not print a billion lines).
pub const MAX_ROWS: usize = 100_000;

impl Sweep {
    /// Every size from `min` to `max`, or a usage error.
    pub fn sizes(&self) -> Result<Vec<u64>, Error> {
        if self.min > self.max {
            return Err(Error::Usage(format!("-b {} is larger than -e {}", self.min, self.max)));
        }
        match self.factor {
            Some(f) if f < 2 => return Err(Error::Usage(format!("-f {f}: the step factor must be at least 2"))),
            Some(_) if self.min == 0 => {
                return Err(Error::Usage("-b 0 with a step factor never grows; give -b 1 or more".into()));
            }
            None if self.step == 0 => return Err(Error::Usage("-i 0: the step must be at least 1 byte".into())),
            _ => {}
        }
        let mut out = Vec::new();
        let mut s = self.min;
        while s <= self.max {
            if out.len() == MAX_ROWS {
                return Err(Error::Usage(format!("more than {MAX_ROWS} sizes; use a larger -f or -i")));
            }
            out.push(s);
            let next = match self.factor {
                Some(f) => s.checked_mul(f),
                None => s.checked_add(self.step),
            };
            match next {
                Some(n) => s = n,
                None => break,
            }
        }
        Ok(out)
    }
}

/// The bytes NCCL sees for a size nccl-tests asks for with elements of `elem` bytes:
/// whole elements, and for AllGather/ReduceScatter whole elements per rank.
pub fn nccl_tests_bytes(func: Func, n_ranks: usize, size: u64, elem: u64) -> u64 {
    let count = size / elem.max(1);
    match func {
        Func::AllGather | Func::ReduceScatter => count / n_ranks as u64 * n_ranks as u64 * elem,
        _ => count * elem,
    }
}

/// The predictions of a sweep.
#[derive(Debug, Clone)]
pub struct Swept {
    pub rows: Vec<Prediction>,
    /// Sizes that hold less than one element per rank (NCCL does nothing for them).
    pub skipped: usize,
}

/// Predict `func` at every size of the sweep, as nccl-tests would ask NCCL for it.
pub fn sweep(m: &Model, func: Func, sweep: &Sweep) -> Result<Swept, Error> {
    let sizes = sweep.sizes()?;
    let n = m.comm.n_ranks;
    let mut rows = Vec::with_capacity(sizes.len());
    let mut skipped = 0;
    for s in sizes {
        let b = nccl_tests_bytes(func, n, s, m.call.elem_bytes);
        if b == 0 {
            skipped += 1;
            continue;
        }
        rows.push(m.predict(func, b)?);
    }
    Ok(Swept { rows, skipped })
}
