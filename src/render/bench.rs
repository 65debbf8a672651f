//! `topo bench allreduce`: nccl-tests' text output (same lines, columns and printf
//! widths as nccl-tests 2.19.6), topo's own section after it, and the `--compile-only`
//! kernel report.
//!
//! Everything topo adds to the text output is on lines starting with `#`, after the
//! nccl-tests footer, so that tools parsing nccl-tests output read the same table.
//! A run is printed as it goes: [`header`] once the backend is ready, a [`row`] as each
//! size finishes, then [`conclusion`].

use std::fmt::Write as _;

use crate::bench::Outcome;
use crate::bench::report::{CompileReport, HeaderInfo, Perf, Row, Summary};

/// nccl-tests' `getFloatStr`: `%.2f`, else `%.1f`, else `%.0f`, else `%.1e` (or
/// `%.0e` under 7 columns), the first that fits `width`.
pub fn float_str(value: f64, width: usize) -> String {
    for prec in [2, 1, 0] {
        let s = c_fixed(value, prec, width);
        if s.len() <= width {
            return s;
        }
    }
    let s = c_exp(value, if width >= 7 { 1 } else { 0 });
    let s = format!("{s:>width$}");
    // snprintf truncates to the buffer; so do we.
    s.chars().take(width).collect()
}

/// C's `%*.{prec}f`.
fn c_fixed(v: f64, prec: usize, width: usize) -> String {
    if !v.is_finite() {
        return format!("{:>width$}", c_nonfinite(v));
    }
    format!("{v:>width$.prec$}")
}

fn c_nonfinite(v: f64) -> &'static str {
    if v.is_nan() {
        if v.is_sign_negative() { "-nan" } else { "nan" }
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// C's `%.{prec}e`: the exponent has a sign and at least two digits.
fn c_exp(v: f64, prec: usize) -> String {
    if !v.is_finite() {
        return c_nonfinite(v).into();
    }
    let s = format!("{v:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// C's `%g` (precision 6).
pub fn c_g(v: f64) -> String {
    if !v.is_finite() {
        return c_nonfinite(v).into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    const P: i32 = 6;
    let s = format!("{v:.5e}");
    let x: i32 = s.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    if !(-4..P).contains(&x) {
        let e = c_exp(v, (P - 1) as usize);
        let (mant, exp) = e.split_once('e').unwrap_or((&e, ""));
        format!("{}e{exp}", strip_zeros(mant))
    } else {
        strip_zeros(&format!("{v:.prec$}", prec = (P - 1 - x) as usize)).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

/// The lines nccl-tests prints before the table, and the table header.
pub fn header(h: &HeaderInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# topo {} bench allreduce, nccl-tests 2.19.6 output format, backend: {}",
        h.topo_version, h.backend
    );
    s.push_str("# Collective test starting: all_reduce_perf\n");
    let (step, kind) = if h.step_factor > 1 { (h.step_factor, "factor") } else { (h.step_bytes, "bytes") };
    let _ = writeln!(
        s,
        "# nThread 1 nGpus {} minBytes {} maxBytes {} step: {}({}) warmup iters: {} iters: {} agg iters: 1 validation: {} graph: 0 unalign: 0",
        h.nranks, h.min_bytes, h.max_bytes, step, kind, h.warmup_iters, h.iters, h.check
    );
    s.push_str("#\n# Using devices\n");
    for d in &h.devices {
        let _ = writeln!(
            s,
            "#  Rank {:2} Group {:2} Pid {:6} on {:>10} device {:2} [{}] {}",
            d.rank, 0, h.pid, h.hostname, d.device, d.bus, d.name
        );
    }
    s.push_str("#\n");
    let _ = writeln!(
        s,
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          ",
        "", "", "", "", ""
    );
    let _ = writeln!(
        s,
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} ",
        "size",
        "count",
        "type",
        "redop",
        "root",
        "time",
        "algbw",
        "busbw",
        "#wrong",
        "time",
        "algbw",
        "busbw",
        "#wrong"
    );
    let _ = writeln!(
        s,
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} ",
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""
    );
    s
}

/// The line that announces the JSON report (`-J`), before the header.
pub fn json_destination(path: &std::path::Path) -> String {
    format!("# Writing JSON output to {}\n", path.display())
}

/// One table row, as nccl-tests prints it (root is -1 for allreduce).
pub fn row(r: &Row) -> String {
    let mut s = format!("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", r.bytes, r.count, r.dtype, r.op, format!("{:6}", -1));
    match &r.out_of_place {
        Some(p) => s.push_str(&perf(p)),
        None => s.push_str(&" ".repeat(32)),
    }
    if let Some(p) = &r.in_place {
        s.push_str(&perf(p));
    }
    s.push('\n');
    s
}

pub(crate) fn perf(p: &Perf) -> String {
    let (t, a, b) = (float_str(p.time_us, 7), float_str(p.algbw, 6), float_str(p.busbw, 6));
    match p.wrong {
        Some(w) => format!("  {t:>7}  {a:>6}  {b:>6}  {:>6}", c_g(w as f64)),
        None => format!("  {t:>7}  {a:>6}  {b:>6}    N/A"),
    }
}

/// nccl-tests' footer.
pub fn footer(s: &Summary) -> String {
    let bw_verdict = match s.bw_ok() {
        None => "",
        Some(true) => "OK",
        Some(false) => "FAILED",
    };
    format!(
        "# {:<20} : {} {}\n# {:<20} : {} {}\n#\n# Collective test concluded: all_reduce_perf\n#\n\n",
        "Out of bounds values",
        s.errors,
        if s.errors > 0 { "FAILED" } else { "OK" },
        "Avg bus bandwidth",
        c_g(s.avg_busbw),
        bw_verdict
    )
}

/// topo's section: the plan, and the measurement beside the model's prediction.
pub fn topo_section(rows: &[Row], plan_lines: &[String], have_prediction: bool) -> String {
    let mut s = String::from("# topo: ---- beyond nccl-tests ----\n");
    for l in plan_lines {
        let _ = writeln!(s, "# topo: {l}");
    }
    if !have_prediction {
        s.push_str("# topo: no model prediction (no channel search result for this run); measured bandwidth only\n");
    }
    let _ = writeln!(
        s,
        "# {:>10}  {:>8}  {:>6}  {:>9}  {:>9}  {:>9}  {:>7}  {:>7}  bottleneck",
        "size", "type", "redop", "oop busbw", "ip busbw", "predicted", "eff-oop", "eff-ip"
    );
    let _ = writeln!(
        s,
        "# {:>10}  {:>8}  {:>6}  {:>9}  {:>9}  {:>9}  {:>7}  {:>7}",
        "(B)", "", "", "(GB/s)", "(GB/s)", "(GB/s)", "(%)", "(%)"
    );
    let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for r in rows {
        let eff = |p: &Option<Perf>| match (p, r.predicted_busbw) {
            (Some(p), Some(pred)) if pred > 0.0 => Some(float_str(100.0 * p.busbw / pred, 7)),
            _ => None,
        };
        let _ = writeln!(
            s,
            "# {:>10}  {:>8}  {:>6}  {:>9}  {:>9}  {:>9}  {:>7}  {:>7}  {}",
            r.bytes,
            r.dtype,
            r.op,
            dash(r.out_of_place.map(|p| float_str(p.busbw, 9))),
            dash(r.in_place.map(|p| float_str(p.busbw, 9))),
            dash(r.predicted_busbw.map(|v| float_str(v, 9))),
            dash(eff(&r.out_of_place)),
            dash(eff(&r.in_place)),
            dash(r.bottleneck.clone())
        );
    }
    s
}

/// What follows the last row: nccl-tests' footer, then topo's section.
pub fn conclusion(o: &Outcome) -> String {
    footer(&o.summary) + &topo_section(&o.rows, &o.plan_lines, o.prediction)
}

/// `--compile-only`: per architecture, every kernel's registers, stack and spills.
pub fn compile_only(reports: &[CompileReport]) -> String {
    let mut s = String::new();
    for c in reports {
        let _ = writeln!(
            s,
            "# topo bench allreduce --compile-only: kernels/allreduce.cu, msccl.cu and streams.cu with NVRTC {}.{} for {}{}",
            c.nvrtc_version.0,
            c.nvrtc_version.1,
            c.arch,
            if c.default_targets { " (no local GPU: default targets)" } else { "" }
        );
        let _ = writeln!(
            s,
            "# {:<32}  {:>9}  {:>11}  {:>12}  {:>11}",
            "kernel", "registers", "stack (B)", "spill st (B)", "spill ld (B)"
        );
        for k in &c.kernels {
            let _ = writeln!(
                s,
                "  {:<32}  {:>9}  {:>11}  {:>12}  {:>11}",
                k.name, k.registers, k.stack_bytes, k.spill_stores, k.spill_loads
            );
        }
        let spilling = c.kernels.iter().filter(|k| k.spill_stores > 0 || k.spill_loads > 0).count();
        let _ = writeln!(
            s,
            "# {}: {} kernels compiled, {} with spills, max {} registers, cubin {} bytes",
            c.arch,
            c.kernels.len(),
            spilling,
            c.kernels.iter().map(|k| k.registers).max().unwrap_or(0),
            c.cubin_bytes
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::report::KernelStats;

    #[test]
    fn float_str_falls_back_like_nccl_tests() {
        assert_eq!(float_str(8.49, 7), "   8.49");
        assert_eq!(float_str(12345.678, 7), "12345.7");
        assert_eq!(float_str(123456.7, 7), " 123457");
        assert_eq!(float_str(12345678.0, 7), "1.2e+07");
        assert_eq!(float_str(0.0, 6), "  0.00");
        assert_eq!(float_str(1234.5, 6), "1234.5");
        assert_eq!(float_str(123456.0, 6), "123456");
        assert_eq!(float_str(1234567.0, 6), " 1e+06");
    }

    #[test]
    fn g_format() {
        assert_eq!(c_g(0.0), "0");
        assert_eq!(c_g(6.6), "6.6");
        assert_eq!(c_g(17.0), "17");
        assert_eq!(c_g(123456.0), "123456");
        assert_eq!(c_g(1234567.0), "1.23457e+06");
        assert_eq!(c_g(0.0001234), "0.0001234");
        assert_eq!(c_g(0.00001234), "1.234e-05");
        assert_eq!(c_g(42.123456789), "42.1235");
        assert_eq!(c_g(999999.5), "1e+06");
    }

    #[test]
    fn row_widths() {
        let r = Row {
            bytes: 8,
            count: 2,
            dtype: "float",
            op: "sum",
            out_of_place: Some(Perf { time_us: 8.49, algbw: 0.0, busbw: 0.0, wrong: Some(0) }),
            in_place: Some(Perf { time_us: 8.37, algbw: 0.0, busbw: 0.0, wrong: None }),
            predicted_busbw: None,
            bottleneck: None,
        };
        assert_eq!(
            row(&r),
            "           8             2     float     sum      -1     8.49    0.00    0.00       0     8.37    0.00    0.00    N/A\n"
        );
    }

    #[test]
    fn compile_report_lines() {
        let k = |name: &str, registers, spill| KernelStats {
            name: name.into(),
            registers,
            stack_bytes: 8,
            spill_stores: spill,
            spill_loads: 0,
        };
        let text = compile_only(&[CompileReport {
            arch: "sm_90".into(),
            nvrtc_version: (12, 8),
            default_targets: true,
            kernels: vec![k("allreduce_sum_float", 72, 0), k("allreduce_sum_half", 80, 4)],
            cubin_bytes: 1234,
        }]);
        assert!(text.starts_with("# topo bench allreduce --compile-only: kernels/allreduce.cu, msccl.cu and streams.cu with NVRTC 12.8 for sm_90 (no local GPU: default targets)\n"), "{text}");
        assert!(
            text.contains("\n  allreduce_sum_float                      72            8             0            0\n"),
            "{text}"
        );
        assert!(
            text.ends_with("# sm_90: 2 kernels compiled, 1 with spills, max 80 registers, cubin 1234 bytes\n"),
            "{text}"
        );
    }
}
