//! Tables indexed by NCCL's enums instead of bare numbers: one value per protocol
//! ([`PerProto`]), per algorithm ([`PerAlgo`]) or per collective ([`PerFunc`]), nested as
//! NCCL nests its arrays, so `table.latency[func][algo][proto]` reads like NCCL's
//! `comm->latencies[f][a][p]`. They serialize as the plain arrays they wrap.

use std::ops::{Index, IndexMut};

use super::{Algo, Func, NALGO, NFUNC, NPROTO, Proto};

macro_rules! enum_table {
    ($(#[$doc:meta])* $name:ident, $key:ty, $n:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct $name<T>(pub [T; $n]);

        impl<T: Copy> $name<T> {
            /// Every entry `v`.
            pub const fn splat(v: T) -> Self {
                $name([v; $n])
            }
        }

        impl<T> Index<$key> for $name<T> {
            type Output = T;
            fn index(&self, k: $key) -> &T {
                &self.0[k as usize]
            }
        }

        impl<T> IndexMut<$key> for $name<T> {
            fn index_mut(&mut self, k: $key) -> &mut T {
                &mut self.0[k as usize]
            }
        }

        impl<T: PartialEq> PartialEq<[T; $n]> for $name<T> {
            fn eq(&self, other: &[T; $n]) -> bool {
                self.0 == *other
            }
        }

        impl<T: serde::Serialize> serde::Serialize for $name<T> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(s)
            }
        }
    };
}

enum_table!(
    /// One value per protocol (LL, LL128, Simple).
    PerProto,
    Proto,
    NPROTO
);
enum_table!(
    /// One value per algorithm, in NCCL's order.
    PerAlgo,
    Algo,
    NALGO
);
enum_table!(
    /// One value per collective, in NCCL's order.
    PerFunc,
    Func,
    NFUNC
);

/// One value per algorithm and protocol: `t[algo][proto]`.
pub type PerAlgoProto<T> = PerAlgo<PerProto<T>>;

impl<T: Copy> PerAlgoProto<T> {
    /// A table from NCCL's nested array.
    pub const fn from_rows(rows: [[T; NPROTO]; NALGO]) -> Self {
        let mut out = [PerProto(rows[0]); NALGO];
        let mut a = 1;
        while a < NALGO {
            out[a] = PerProto(rows[a]);
            a += 1;
        }
        PerAlgo(out)
    }
}

impl<T> Index<(Algo, Proto)> for PerAlgoProto<T> {
    type Output = T;
    fn index(&self, (a, p): (Algo, Proto)) -> &T {
        &self[a][p]
    }
}

impl<T> IndexMut<(Algo, Proto)> for PerAlgoProto<T> {
    fn index_mut(&mut self, (a, p): (Algo, Proto)) -> &mut T {
        &mut self[a][p]
    }
}

/// One value per collective, algorithm and protocol: `t[func][algo][proto]`.
pub type PerFuncAlgoProto<T> = PerFunc<PerAlgoProto<T>>;

impl<T> Index<(Func, Algo, Proto)> for PerFuncAlgoProto<T> {
    type Output = T;
    fn index(&self, (f, a, p): (Func, Algo, Proto)) -> &T {
        &self[f][a][p]
    }
}

impl<T> IndexMut<(Func, Algo, Proto)> for PerFuncAlgoProto<T> {
    fn index_mut(&mut self, (f, a, p): (Func, Algo, Proto)) -> &mut T {
        &mut self[f][a][p]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_indices_reach_nccls_slots() {
        let mut t: PerFuncAlgoProto<i32> = PerFunc::splat(PerAlgo::splat(PerProto::splat(0)));
        t[(Func::AllGather, Algo::Pat, Proto::Simple)] = 7;
        assert_eq!(t.0[2].0[6].0[2], 7);
        assert_eq!(t[Func::AllGather][Algo::Pat], [0, 0, 7]);
        let rows = PerAlgoProto::from_rows([[1, 2, 3]; NALGO]);
        assert_eq!(rows[(Algo::Ring, Proto::Ll128)], 2);
        assert_eq!(serde_json::to_string(&PerProto([1, 2, 3])).unwrap(), "[1,2,3]");
    }
}
