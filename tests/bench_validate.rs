//! The benchmark's validation (`bench::validate`, the `#wrong` column) shown wrong and
//! right results it did not compute itself:
//! - [`Independent`], a backend that reduces with its own arithmetic (written from the
//!   rules of `bench::dtype`'s documentation, none of its functions): its results must
//!   validate, so the reference the host backend shares is checked from outside;
//! - [`Corrupt`], a backend that hands back one element changed on one rank: every
//!   rank's output must be checked, and the one element counted.

use std::time::Duration;

use topo::bench::{self, Backend, DataType, DeviceInfo, RedOp};
use topo::error::Error;

// ---------------------------------------------------------------------------------------
// Element codecs and arithmetic of our own

/// How a type's bytes hold a number.
#[derive(Debug, Clone, Copy)]
enum Ty {
    Int { bytes: usize, signed: bool },
    Half,
    Bf16,
    Float,
    Double,
}

fn ty(d: DataType) -> Ty {
    match d {
        DataType::Int8 => Ty::Int { bytes: 1, signed: true },
        DataType::Uint8 => Ty::Int { bytes: 1, signed: false },
        DataType::Int32 => Ty::Int { bytes: 4, signed: true },
        DataType::Uint32 => Ty::Int { bytes: 4, signed: false },
        DataType::Int64 => Ty::Int { bytes: 8, signed: true },
        DataType::Uint64 => Ty::Int { bytes: 8, signed: false },
        DataType::Half => Ty::Half,
        DataType::Bfloat16 => Ty::Bf16,
        DataType::Float => Ty::Float,
        DataType::Double => Ty::Double,
    }
}

fn le(buf: &[u8], at: usize, n: usize) -> u64 {
    buf[at..at + n].iter().rev().fold(0u64, |v, &b| (v << 8) | b as u64)
}

fn put_le(buf: &mut [u8], at: usize, n: usize, v: u64) {
    for k in 0..n {
        buf[at + k] = (v >> (8 * k)) as u8;
    }
}

/// `v` cut to `bytes` bytes, read back with the type's signedness (two's complement wrap).
fn wrap(v: i128, bytes: usize, signed: bool) -> i128 {
    let bits = 8 * bytes as u32;
    let low = (v as u128) & (u128::MAX >> (128 - bits));
    if signed && low >> (bits - 1) == 1 { low as i128 - (1i128 << bits) } else { low as i128 }
}

/// IEEE half to double (every half is exact in a double).
fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + frac) * 2f64.powi(exp - 25),
    }
}

/// Double to IEEE half, to nearest, ties to even (finite values in half's range).
fn f64_to_half(v: f64) -> u16 {
    let sign: u16 = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    if a == 0.0 {
        return sign;
    }
    // Units of the last place: 2^-24 below 2^-14 (subnormals), else 2^(e-10).
    // The binary exponent, from the double's own bits (every value here is normal there).
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let ulp = 2f64.powi(e.max(-14) - 10);
    let q = a / ulp;
    let mut m = q.round();
    if (q - q.trunc() - 0.5).abs() == 0.0 && m % 2.0 != 0.0 {
        m -= 1.0;
    }
    let (mut e, mut m) = (e.max(-14), m as u32);
    if e == -14 && m < 1024 {
        return sign | m as u16;
    }
    if m == 2048 {
        e += 1;
        m = 1024;
    }
    sign | (((e + 15) as u16) << 10) | (m - 1024) as u16
}

fn bf16_to_f64(b: u16) -> f64 {
    f32::from_bits((b as u32) << 16) as f64
}

/// Float to bfloat16, to nearest, ties to even.
fn f32_to_bf16(f: f32) -> u16 {
    let b = f.to_bits();
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

/// A floating type's value as a double, and back (rounded to the type).
fn float_get(t: Ty, buf: &[u8], i: usize) -> f64 {
    match t {
        Ty::Half => half_to_f64(le(buf, 2 * i, 2) as u16),
        Ty::Bf16 => bf16_to_f64(le(buf, 2 * i, 2) as u16),
        Ty::Float => f32::from_bits(le(buf, 4 * i, 4) as u32) as f64,
        Ty::Double => f64::from_bits(le(buf, 8 * i, 8)),
        Ty::Int { .. } => unreachable!(),
    }
}

/// `v` rounded to the type (narrow types through `f32`, as they compute).
fn round_to(t: Ty, v: f64) -> f64 {
    match t {
        Ty::Half => half_to_f64(f64_to_half(v as f32 as f64)),
        Ty::Bf16 => bf16_to_f64(f32_to_bf16(v as f32)),
        Ty::Float => v as f32 as f64,
        Ty::Double => v,
        Ty::Int { .. } => unreachable!(),
    }
}

fn float_put(t: Ty, buf: &mut [u8], i: usize, v: f64) {
    match t {
        Ty::Half => put_le(buf, 2 * i, 2, f64_to_half(v as f32 as f64) as u64),
        Ty::Bf16 => put_le(buf, 2 * i, 2, f32_to_bf16(v as f32) as u64),
        Ty::Float => put_le(buf, 4 * i, 4, (v as f32).to_bits() as u64),
        Ty::Double => put_le(buf, 8 * i, 8, v.to_bits()),
        Ty::Int { .. } => unreachable!(),
    }
}

/// Element `i` of the allreduce of `ins` (one buffer per rank, in rank order), into `out`.
fn reduce_element(t: Ty, op: RedOp, ins: &[&[u8]], out: &mut [Vec<u8>], i: usize) {
    let n = ins.len();
    match t {
        Ty::Int { bytes, signed } => {
            let get = |b: &[u8]| wrap(le(b, bytes * i, bytes) as i128, bytes, signed);
            let vals: Vec<i128> = ins.iter().map(|b| get(b)).collect();
            let sum = || wrap(vals.iter().sum::<i128>(), bytes, signed);
            let r = match op {
                RedOp::Sum => sum(),
                RedOp::Prod => vals.iter().fold(1i128, |a, &v| wrap(a.wrapping_mul(v), bytes, signed)),
                RedOp::Min => *vals.iter().min().unwrap(),
                RedOp::Max => *vals.iter().max().unwrap(),
                // Integers: the wrapped sum divided once, toward zero.
                RedOp::Avg => sum() / n as i128,
            };
            for o in out.iter_mut() {
                put_le(o, bytes * i, bytes, r as u64);
            }
        }
        _ => {
            let vals: Vec<f64> = ins.iter().map(|b| float_get(t, b, i)).collect();
            let r = match op {
                // The inputs keep every partial sum and product exact: one rounding.
                RedOp::Sum => round_to(t, vals.iter().sum()),
                RedOp::Prod => round_to(t, vals.iter().product()),
                RedOp::Min => vals.iter().copied().fold(f64::INFINITY, f64::min),
                RedOp::Max => vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                // Each rank's input times 1/n (in f32, in f64 for double), rounded to
                // the type, then summed in rank order.
                RedOp::Avg => {
                    let scaled: Vec<f64> = match t {
                        Ty::Double => vals.iter().map(|v| v * (1.0 / n as f64)).collect(),
                        _ => vals.iter().map(|&v| round_to(t, (v as f32 * (1.0 / n as f32)) as f64)).collect(),
                    };
                    scaled.iter().fold(0.0, |a, &v| if matches!(t, Ty::Double) { a + v } else { round_to(t, a + v) })
                }
            };
            for o in out.iter_mut() {
                float_put(t, o, i, r);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The backends

/// Reduces with the arithmetic above, rank by rank, no threads.
struct Independent {
    n: usize,
    input: Vec<Vec<u8>>,
    output: Vec<Vec<u8>>,
}

impl Independent {
    fn new(n: usize) -> Independent {
        Independent { n, input: vec![Vec::new(); n], output: vec![Vec::new(); n] }
    }
}

impl Backend for Independent {
    fn name(&self) -> &'static str {
        "independent"
    }
    fn nranks(&self) -> usize {
        self.n
    }
    fn devices(&self) -> Vec<DeviceInfo> {
        (0..self.n).map(|r| DeviceInfo { rank: r, device: r, bus: "host".into(), name: "test".into() }).collect()
    }
    fn prepare(&mut self, max_bytes: usize) -> Result<(), Error> {
        for b in self.input.iter_mut().chain(self.output.iter_mut()) {
            b.resize(max_bytes, 0);
        }
        Ok(())
    }
    fn set_input(&mut self, rank: usize, in_place: bool, data: &[u8]) -> Result<(), Error> {
        let b = if in_place { &mut self.output[rank] } else { &mut self.input[rank] };
        b[..data.len()].copy_from_slice(data);
        Ok(())
    }
    fn fill_output(&mut self, rank: usize, bytes: usize, value: u8) -> Result<(), Error> {
        self.output[rank][..bytes].fill(value);
        Ok(())
    }
    fn get_output(&mut self, rank: usize, out: &mut [u8]) -> Result<(), Error> {
        out.copy_from_slice(&self.output[rank][..out.len()]);
        Ok(())
    }
    fn run(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        in_place: bool,
        iters: usize,
    ) -> Result<Duration, Error> {
        let t = ty(dtype);
        for _ in 0..iters {
            let src = if in_place { self.output.clone() } else { self.input.clone() };
            let ins: Vec<&[u8]> = src.iter().map(Vec::as_slice).collect();
            for i in 0..count {
                reduce_element(t, op, &ins, &mut self.output, i);
            }
        }
        Ok(Duration::from_micros(10 * iters as u64))
    }
}

/// Another backend whose output on `rank` comes back with element `elem` changed (its
/// most significant byte flipped: a large error in every type).
struct Corrupt<B: Backend> {
    inner: B,
    rank: usize,
    elem: usize,
    size: usize,
}

impl<B: Backend> Backend for Corrupt<B> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn nranks(&self) -> usize {
        self.inner.nranks()
    }
    fn devices(&self) -> Vec<DeviceInfo> {
        self.inner.devices()
    }
    fn prepare(&mut self, max_bytes: usize) -> Result<(), Error> {
        self.inner.prepare(max_bytes)
    }
    fn set_input(&mut self, rank: usize, in_place: bool, data: &[u8]) -> Result<(), Error> {
        self.inner.set_input(rank, in_place, data)
    }
    fn fill_output(&mut self, rank: usize, bytes: usize, value: u8) -> Result<(), Error> {
        self.inner.fill_output(rank, bytes, value)
    }
    fn get_output(&mut self, rank: usize, out: &mut [u8]) -> Result<(), Error> {
        self.inner.get_output(rank, out)?;
        let at = (self.elem + 1) * self.size - 1;
        if rank == self.rank && at < out.len() {
            out[at] ^= 0x40;
        }
        Ok(())
    }
    fn run(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        in_place: bool,
        iters: usize,
    ) -> Result<Duration, Error> {
        self.size = dtype.size();
        self.inner.run(dtype, op, count, in_place, iters)
    }
}

fn host(n: usize) -> bench::host::HostBackend {
    bench::host::HostBackend::new(&bench::Plan::simple_ring(n, 1), 4096).unwrap()
}

fn validate(b: &mut dyn Backend, dtype: DataType, op: RedOp, count: usize, in_place: bool) -> u64 {
    b.prepare(count * dtype.size()).unwrap();
    bench::validate(b, dtype, op, count, in_place, 7).unwrap()
}

// ---------------------------------------------------------------------------------------
// Tests

#[test]
fn the_codecs_round_trip() {
    for h in (0u16..=0xffff).filter(|h| (h >> 10) & 0x1f != 0x1f) {
        assert_eq!(f64_to_half(half_to_f64(h)), h, "half {h:#06x}");
    }
    assert_eq!(f64_to_half(1.0 + 2f64.powi(-11)), 0x3c00, "a tie goes to even");
    assert_eq!(f64_to_half(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02, "a tie goes to even");
    assert_eq!(f32_to_bf16(1.0 + 2f32.powi(-8)), 0x3f80, "a tie goes to even");
    assert_eq!(wrap(200, 1, true), -56);
    assert_eq!(wrap(-1, 8, false), u64::MAX as i128);
}

/// Validate every type, operator and placement on `b`; the cases whose count of wrong
/// elements is not `want`, said.
fn validate_all(b: &mut dyn Backend, count: usize, want: u64, what: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for dtype in DataType::ALL {
        for op in RedOp::ALL {
            for in_place in [false, true] {
                let w = validate(b, dtype, op, count, in_place);
                if w != want {
                    bad.push(format!("{what}, {dtype} {}, in place {in_place}: {w} wrong", op.name()));
                }
            }
        }
    }
    bad
}

/// Results computed without topo's arithmetic validate, for every type and operator,
/// odd rank counts too, in and out of place.
#[test]
fn an_independent_reduction_validates() {
    let mut bad = Vec::new();
    for n in [2, 3, 5] {
        bad.extend(validate_all(&mut Independent::new(n), 1001, 0, &format!("{n} ranks")));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// One element wrong on one rank, whichever rank: validation counts exactly one.
#[test]
fn one_wrong_element_on_any_rank_is_counted() {
    let n = 4;
    let mut bad = Vec::new();
    for rank in 0..n {
        let mut b = Corrupt { inner: Independent::new(n), rank, elem: 123, size: 1 };
        bad.extend(validate_all(&mut b, 300, 1, &format!("element 123 of rank {rank} changed")));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The host backend's own output, changed on its last rank.
    let mut b = Corrupt { inner: host(n), rank: n - 1, elem: 0, size: 1 };
    assert_eq!(validate(&mut b, DataType::Float, RedOp::Sum, 1000, false), 1);
    assert_eq!(validate(&mut b, DataType::Int8, RedOp::Max, 1000, true), 1);
}

/// A run whose last rank gets one element wrong: `#wrong` says 1 in every measurement,
/// the footer FAILED, the exit status 1.
#[test]
fn a_wrong_result_fails_the_run() {
    let n = 3;
    let args = bench::Options {
        minbytes: 1024,
        maxbytes: 4096,
        stepfactor: 4,
        iters: 1,
        warmup_iters: 0,
        backend: bench::BackendKind::Host,
        ..bench::Options::default()
    };
    let plan = bench::Plan::simple_ring(n, 1);
    let mut b = Corrupt { inner: host(n), rank: n - 1, elem: 5, size: 1 };
    let ctx = bench::RunContext {
        pid: 1,
        hostname: "test".into(),
        argv: vec![],
        env: vec![],
        min_bw: None,
        now: || "now".into(),
    };
    let mut text = String::new();
    let outcome = bench::run_with_backend(&args, &plan, &mut b, &ctx, &mut |e| {
        if let bench::Event::Row(r) = e {
            text.push_str(&topo::render::bench::row(r));
        }
        Ok(())
    })
    .unwrap();
    for r in &outcome.rows {
        assert_eq!((r.out_of_place.unwrap().wrong, r.in_place.unwrap().wrong), (Some(1), Some(1)), "{r:?}");
    }
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!((f[8], f[12]), ("1", "1"), "#wrong columns of {l}");
    }
    assert_eq!(outcome.summary.errors, 4);
    assert_eq!(outcome.status(), 1);
    assert!(topo::render::bench::conclusion(&outcome).contains("# Out of bounds values : 4 FAILED"));
}
