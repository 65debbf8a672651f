//! Element types and reduction operators of the allreduce benchmark, the per-element
//! arithmetic both backends share (the CUDA kernels implement the same rules in
//! `kernels/allreduce.cu`), and the data pattern used for validation.
//!
//! Arithmetic rules (identical on host and device):
//! * integers wrap (`sum`, `prod`), compare as their own signedness (`min`, `max`);
//! * `half` and `bfloat16` are computed in `f32` and rounded to nearest even;
//! * `avg` on floating types multiplies each rank's own input by `1/nranks` (in `f32`,
//!   or `f64` for `double`) before summing ("pre-multiply"); on integers it sums and
//!   divides the total by `nranks` once, truncating ("post-divide").

use std::fmt;

/// The element types nccl-tests knows, with its names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DataType {
    Int8,
    Uint8,
    Int32,
    Uint32,
    Int64,
    Uint64,
    Half,
    Float,
    Double,
    Bfloat16,
}

impl DataType {
    /// Every type, in nccl-tests' order (the order `-d all` runs them in).
    pub const ALL: [DataType; 10] = [
        DataType::Int8,
        DataType::Uint8,
        DataType::Int32,
        DataType::Uint32,
        DataType::Int64,
        DataType::Uint64,
        DataType::Half,
        DataType::Float,
        DataType::Double,
        DataType::Bfloat16,
    ];

    /// nccl-tests' name for the type.
    pub fn name(self) -> &'static str {
        match self {
            DataType::Int8 => "int8",
            DataType::Uint8 => "uint8",
            DataType::Int32 => "int32",
            DataType::Uint32 => "uint32",
            DataType::Int64 => "int64",
            DataType::Uint64 => "uint64",
            DataType::Half => "half",
            DataType::Float => "float",
            DataType::Double => "double",
            DataType::Bfloat16 => "bfloat16",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DataType::Int8 | DataType::Uint8 => 1,
            DataType::Half | DataType::Bfloat16 => 2,
            DataType::Int32 | DataType::Uint32 | DataType::Float => 4,
            DataType::Int64 | DataType::Uint64 | DataType::Double => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DataType::Half | DataType::Float | DataType::Double | DataType::Bfloat16)
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reduction operators (nccl-tests' names; `mulsum` is not supported).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedOp {
    Sum,
    Prod,
    Max,
    Min,
    Avg,
}

impl RedOp {
    /// Every operator, in nccl-tests' order.
    pub const ALL: [RedOp; 5] = [RedOp::Sum, RedOp::Prod, RedOp::Max, RedOp::Min, RedOp::Avg];

    pub fn name(self) -> &'static str {
        match self {
            RedOp::Sum => "sum",
            RedOp::Prod => "prod",
            RedOp::Max => "max",
            RedOp::Min => "min",
            RedOp::Avg => "avg",
        }
    }
}

impl fmt::Display for RedOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

pub(crate) const OP_SUM: u8 = 0;
pub(crate) const OP_PROD: u8 = 1;
pub(crate) const OP_MIN: u8 = 2;
pub(crate) const OP_MAX: u8 = 3;
pub(crate) const OP_AVG: u8 = 4;

// ---------------------------------------------------------------------------------
// half and bfloat16

/// IEEE binary16 stored as its bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct F16(pub u16);

/// bfloat16 (the upper half of an `f32`) stored as its bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Bf16(pub u16);

/// `f32` to binary16, rounding to nearest even (what `cvt.rn.f16.f32` does).
pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x007f_ffff;
    if exp == 0xff {
        // Infinity stays infinity; NaN stays a quiet NaN keeping the top payload bits.
        return if man == 0 { sign | 0x7c00 } else { sign | 0x7e00 | (man >> 13) as u16 };
    }
    let e = exp - 127;
    if e > 15 {
        return sign | 0x7c00;
    }
    if e >= -14 {
        // Normal range: drop 13 mantissa bits with round-to-nearest-even. A carry out of
        // the mantissa correctly bumps the exponent (up to infinity).
        let mut h = (((e + 15) as u32) << 10) | (man >> 13);
        let rest = man & 0x1fff;
        if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
            h += 1;
        }
        return sign | h as u16;
    }
    if e < -25 {
        return sign;
    }
    // Subnormal result: count units of 2^-24. The value is sig * 2^(e-23) with the
    // implicit bit restored, so the shift is -(e+1), between 14 and 24.
    let sig = man | 0x0080_0000;
    let shift = (-(e + 1)) as u32;
    let mut h = sig >> shift;
    let rest = sig & ((1 << shift) - 1);
    let halfway = 1u32 << (shift - 1);
    if rest > halfway || (rest == halfway && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

/// binary16 to `f32` (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // Subnormal: normalise the mantissa.
            let mut e: i32 = -14;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | (((e + 127) as u32) << 23) | ((m & 0x3ff) << 13)
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// `f32` to bfloat16, rounding to nearest even; NaN stays a quiet NaN.
pub fn f32_to_bf16(f: f32) -> u16 {
    let x = f.to_bits();
    if f.is_nan() {
        return ((x >> 16) | 0x40) as u16;
    }
    ((x + 0x7fff + ((x >> 16) & 1)) >> 16) as u16
}

/// bfloat16 to `f32` (exact).
pub fn bf16_to_f32(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

impl F16 {
    pub fn from_f32(f: f32) -> F16 {
        F16(f32_to_f16(f))
    }
    pub fn to_f32(self) -> f32 {
        f16_to_f32(self.0)
    }
}

impl Bf16 {
    pub fn from_f32(f: f32) -> Bf16 {
        Bf16(f32_to_bf16(f))
    }
    pub fn to_f32(self) -> f32 {
        bf16_to_f32(self.0)
    }
}

// ---------------------------------------------------------------------------------
// Element arithmetic

/// Scalars an operator needs besides the two operands.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scalars {
    /// `1/nranks` rounded to `f32` (the pre-multiplier of `half`, `bfloat16`, `float`).
    pub inv_f32: f32,
    /// `1/nranks` as `f64` (the pre-multiplier of `double`).
    pub inv_f64: f64,
    /// The post-divisor of integer `avg`.
    pub nranks: u64,
}

impl Scalars {
    pub fn new(nranks: usize) -> Scalars {
        let n = nranks.max(1);
        Scalars { inv_f32: 1.0 / n as f32, inv_f64: 1.0 / n as f64, nranks: n as u64 }
    }
}

/// An element type as the reduction loops see it.
pub(crate) trait Elem: Copy + Send + Sync + 'static {
    const FLOAT: bool;
    /// Significand bits (with the implicit one) of a floating type; 64 for integers.
    const MANT_BITS: u32;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn minimum(self, o: Self) -> Self;
    fn maximum(self, o: Self) -> Self;
    /// Multiply by `1/nranks` (floating types only; integers return `self`).
    fn premul(self, k: &Scalars) -> Self;
    /// Divide by `nranks`, truncating (integers only; floats return `self`).
    fn postdiv(self, k: &Scalars) -> Self;
    /// The raw bits, zero-extended, for the ulp distance used in validation.
    fn bits(self) -> u64;
    /// Integers: the low bits of `r`. Floats: not used.
    fn from_raw(r: u64) -> Self;
    /// A value exactly representable in the type (small integers, powers of two).
    fn from_f64(v: f64) -> Self;
}

macro_rules! int_elem {
    ($t:ty, $u:ty) => {
        impl Elem for $t {
            const FLOAT: bool = false;
            const MANT_BITS: u32 = 64;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            #[inline(always)]
            fn minimum(self, o: Self) -> Self {
                if o < self { o } else { self }
            }
            #[inline(always)]
            fn maximum(self, o: Self) -> Self {
                if o > self { o } else { self }
            }
            #[inline(always)]
            fn premul(self, _k: &Scalars) -> Self {
                self
            }
            #[inline(always)]
            fn postdiv(self, k: &Scalars) -> Self {
                // Divide in 128 bits so that any rank count fits; truncates toward zero.
                ((self as i128) / (k.nranks as i128)) as $t
            }
            #[inline(always)]
            fn bits(self) -> u64 {
                self as $u as u64
            }
            #[inline(always)]
            fn from_raw(r: u64) -> Self {
                r as $t
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }
    };
}

int_elem!(i8, u8);
int_elem!(u8, u8);
int_elem!(i32, u32);
int_elem!(u32, u32);
int_elem!(i64, u64);
int_elem!(u64, u64);

macro_rules! native_float_elem {
    ($t:ty, $bits:expr, $inv:ident) => {
        impl Elem for $t {
            const FLOAT: bool = true;
            const MANT_BITS: u32 = $bits;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self * o
            }
            #[inline(always)]
            fn minimum(self, o: Self) -> Self {
                if o < self { o } else { self }
            }
            #[inline(always)]
            fn maximum(self, o: Self) -> Self {
                if o > self { o } else { self }
            }
            #[inline(always)]
            fn premul(self, k: &Scalars) -> Self {
                self * k.$inv
            }
            #[inline(always)]
            fn postdiv(self, _k: &Scalars) -> Self {
                self
            }
            #[inline(always)]
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn from_raw(r: u64) -> Self {
                r as $t
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }
    };
}

native_float_elem!(f32, 24, inv_f32);
native_float_elem!(f64, 53, inv_f64);

macro_rules! narrow_float_elem {
    ($t:ident, $bits:expr) => {
        impl Elem for $t {
            const FLOAT: bool = true;
            const MANT_BITS: u32 = $bits;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                $t::from_f32(self.to_f32() + o.to_f32())
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                $t::from_f32(self.to_f32() * o.to_f32())
            }
            #[inline(always)]
            fn minimum(self, o: Self) -> Self {
                if o.to_f32() < self.to_f32() { o } else { self }
            }
            #[inline(always)]
            fn maximum(self, o: Self) -> Self {
                if o.to_f32() > self.to_f32() { o } else { self }
            }
            #[inline(always)]
            fn premul(self, k: &Scalars) -> Self {
                $t::from_f32(self.to_f32() * k.inv_f32)
            }
            #[inline(always)]
            fn postdiv(self, _k: &Scalars) -> Self {
                self
            }
            #[inline(always)]
            fn bits(self) -> u64 {
                self.0 as u64
            }
            fn from_raw(r: u64) -> Self {
                $t::from_f32(r as f32)
            }
            fn from_f64(v: f64) -> Self {
                $t::from_f32(v as f32)
            }
        }
    };
}

narrow_float_elem!(F16, 11);
narrow_float_elem!(Bf16, 8);

/// The operator applied to two partial results.
#[inline(always)]
pub(crate) fn combine<T: Elem, const OP: u8>(a: T, b: T) -> T {
    match OP {
        OP_SUM | OP_AVG => a.add(b),
        OP_PROD => a.mul(b),
        OP_MIN => a.minimum(b),
        _ => a.maximum(b),
    }
}

/// What a rank does to its own input before it enters the reduction.
#[inline(always)]
pub(crate) fn own<T: Elem, const OP: u8>(x: T, k: &Scalars) -> T {
    if OP == OP_AVG && T::FLOAT { x.premul(k) } else { x }
}

/// What the rank completing a reduction does to the total.
#[inline(always)]
pub(crate) fn finish<T: Elem, const OP: u8>(x: T, k: &Scalars) -> T {
    if OP == OP_AVG && !T::FLOAT { x.postdiv(k) } else { x }
}

// ---------------------------------------------------------------------------------
// Validation data

/// A 64-bit mixing function (splitmix64's finaliser) used for the input pattern.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The input of `rank` at element `idx`, chosen so that the exact result does not
/// depend on the order in which the ring reduces: integers wrap exactly; floating
/// sums stay integers below 2^mantissa; products are powers of two; `avg` has two
/// contributing ranks per element (which two rotates with the index), so the sum of
/// the pre-multiplied values is one rounding whatever the order.
#[inline]
pub(crate) fn input_value<T: Elem>(op: RedOp, nranks: usize, rank: usize, seed: u64, idx: usize) -> T {
    let r = mix(seed ^ mix((idx as u64) ^ ((rank as u64) << 48)));
    if !T::FLOAT {
        return if op == RedOp::Prod { T::from_raw(r | 1) } else { T::from_raw(r) };
    }
    let n = nranks.max(1) as u64;
    match op {
        RedOp::Sum | RedOp::Min | RedOp::Max => {
            let limit = ((1u64 << (T::MANT_BITS - 1)) / n).clamp(1, 1 << 40);
            let v = (r % (2 * limit + 1)) as i64 - limit as i64;
            T::from_f64(v as f64)
        }
        RedOp::Prod => {
            // |product| stays within 2^±nranks: fine for half up to 14 ranks.
            const CHOICES: [f64; 6] = [1.0, -1.0, 2.0, 0.5, -2.0, -0.5];
            let k = if nranks <= 14 { 6 } else { 2 };
            T::from_f64(CHOICES[(r % k) as usize])
        }
        RedOp::Avg => {
            let first = idx % nranks.max(1);
            let second = (idx + 1) % nranks.max(1);
            if rank == first || rank == second {
                let limit = 1u64 << std::cmp::min(T::MANT_BITS - 2, 40);
                T::from_f64((1 + r % limit) as f64)
            } else {
                T::from_f64(0.0)
            }
        }
    }
}

/// The expected allreduce result at element `idx`: every rank's input in rank order.
#[inline]
pub(crate) fn expected_value<T: Elem, const OP: u8>(op: RedOp, nranks: usize, seed: u64, idx: usize) -> T {
    let k = Scalars::new(nranks);
    let mut acc = own::<T, OP>(input_value::<T>(op, nranks, 0, seed, idx), &k);
    for r in 1..nranks {
        acc = combine::<T, OP>(acc, own::<T, OP>(input_value::<T>(op, nranks, r, seed, idx), &k));
    }
    finish::<T, OP>(acc, &k)
}

/// Allowed distance in units in the last place: 2 for `avg` on floating types
/// (the pre-multiply may be done in another precision on a device), else exact.
pub fn tolerance(dtype: DataType, op: RedOp) -> u64 {
    if dtype.is_float() && op == RedOp::Avg { 2 } else { 0 }
}

/// Number of elements whose bits differ from `expected` by more than `tol` ulps.
pub(crate) fn count_wrong<T: Elem>(got: &[T], expected: &[T], tol: u64) -> u64 {
    got.iter().zip(expected).filter(|(g, e)| g.bits().abs_diff(e.bits()) > tol).count() as u64
}

/// Call `$body` with `$t` bound to the Rust element type of a [`DataType`].
macro_rules! with_elem {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            $crate::bench::dtype::DataType::Int8 => {
                type $t = i8;
                $body
            }
            $crate::bench::dtype::DataType::Uint8 => {
                type $t = u8;
                $body
            }
            $crate::bench::dtype::DataType::Int32 => {
                type $t = i32;
                $body
            }
            $crate::bench::dtype::DataType::Uint32 => {
                type $t = u32;
                $body
            }
            $crate::bench::dtype::DataType::Int64 => {
                type $t = i64;
                $body
            }
            $crate::bench::dtype::DataType::Uint64 => {
                type $t = u64;
                $body
            }
            $crate::bench::dtype::DataType::Half => {
                type $t = $crate::bench::dtype::F16;
                $body
            }
            $crate::bench::dtype::DataType::Float => {
                type $t = f32;
                $body
            }
            $crate::bench::dtype::DataType::Double => {
                type $t = f64;
                $body
            }
            $crate::bench::dtype::DataType::Bfloat16 => {
                type $t = $crate::bench::dtype::Bf16;
                $body
            }
        }
    };
}
pub(crate) use with_elem;

/// Call `$body` with the const `$op` bound to the operator code of a [`RedOp`].
macro_rules! with_op {
    ($redop:expr, $op:ident => $body:expr) => {
        match $redop {
            $crate::bench::dtype::RedOp::Sum => {
                const $op: u8 = $crate::bench::dtype::OP_SUM;
                $body
            }
            $crate::bench::dtype::RedOp::Prod => {
                const $op: u8 = $crate::bench::dtype::OP_PROD;
                $body
            }
            $crate::bench::dtype::RedOp::Min => {
                const $op: u8 = $crate::bench::dtype::OP_MIN;
                $body
            }
            $crate::bench::dtype::RedOp::Max => {
                const $op: u8 = $crate::bench::dtype::OP_MAX;
                $body
            }
            $crate::bench::dtype::RedOp::Avg => {
                const $op: u8 = $crate::bench::dtype::OP_AVG;
                $body
            }
        }
    };
}
pub(crate) use with_op;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_every_value() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert!(f16_to_f32(f32_to_f16(f)).is_nan());
                continue;
            }
            assert_eq!(f32_to_f16(f), h, "half {h:#06x} -> {f} -> back");
        }
    }

    #[test]
    fn f16_known_values_and_rounding() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00, "halfway to 2^16 rounds to infinity");
        assert_eq!(f32_to_f16(65519.0), 0x7bff);
        assert_eq!(f32_to_f16(1e6), 0x7c00);
        assert_eq!(f32_to_f16(f32::INFINITY), 0x7c00);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00);
        // 1 + 3*2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9: goes up.
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(f32_to_f16(2f32.powi(-24)), 0x0001);
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0x0000, "halfway to the smallest subnormal ties to zero");
        assert_eq!(f32_to_f16(1.5 * 2f32.powi(-25)), 0x0001);
        assert_eq!(f32_to_f16(2f32.powi(-14)), 0x0400);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x03ff), 1023.0 * 2f32.powi(-24));
    }

    #[test]
    fn bf16_rounding() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        assert_eq!(bf16_to_f32(0x3f80), 1.0);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even.
        assert_eq!(f32_to_bf16(1.0 + 2f32.powi(-8)), 0x3f80);
        assert_eq!(f32_to_bf16(1.0 + 3.0 * 2f32.powi(-8)), 0x3f82);
        assert_eq!(f32_to_bf16(f32::MAX), 0x7f80, "rounds up to infinity");
        assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
        for b in (0..=u16::MAX).step_by(7) {
            let f = bf16_to_f32(b);
            if !f.is_nan() {
                assert_eq!(f32_to_bf16(f), b);
            }
        }
    }

    #[test]
    fn integer_avg_truncates_and_wraps() {
        let k = Scalars::new(3);
        assert_eq!((-7i32).postdiv(&k), -2);
        assert_eq!(7u8.postdiv(&k), 2);
        assert_eq!(127i8.add(1), -128);
        assert_eq!(finish::<i64, OP_AVG>(9, &k), 3);
        assert_eq!(finish::<f32, OP_AVG>(9.0, &k), 9.0);
        assert_eq!(own::<f32, OP_AVG>(3.0, &k), 1.0);
        assert_eq!(own::<i32, OP_AVG>(3, &k), 3);
    }

    #[test]
    fn patterns_reduce_exactly_in_any_order() {
        // Reversing the rank order must give bit-identical results for every type/op.
        for dtype in DataType::ALL {
            for op in RedOp::ALL {
                with_elem!(dtype, T => with_op!(op, OP => {
                    let n = 7;
                    let k = Scalars::new(n);
                    for idx in 0..200 {
                        let mut fwd = own::<T, OP>(input_value::<T>(op, n, 0, 5, idx), &k);
                        for r in 1..n {
                            fwd = combine::<T, OP>(fwd, own::<T, OP>(input_value::<T>(op, n, r, 5, idx), &k));
                        }
                        let mut rev = own::<T, OP>(input_value::<T>(op, n, n - 1, 5, idx), &k);
                        for r in (0..n - 1).rev() {
                            rev = combine::<T, OP>(own::<T, OP>(input_value::<T>(op, n, r, 5, idx), &k), rev);
                        }
                        assert_eq!(fwd.bits(), rev.bits(), "{dtype} {op} idx {idx}");
                    }
                }));
            }
        }
    }

    #[test]
    fn wrong_counting_uses_ulps() {
        let exp = [1.0f32, 2.0, 3.0];
        let got = [1.0f32, f32::from_bits(2.0f32.to_bits() + 2), f32::from_bits(3.0f32.to_bits() + 3)];
        assert_eq!(count_wrong(&got, &exp, 2), 1);
        assert_eq!(count_wrong(&got, &exp, 0), 2);
        assert_eq!(tolerance(DataType::Half, RedOp::Avg), 2);
        assert_eq!(tolerance(DataType::Int32, RedOp::Avg), 0);
    }
}
