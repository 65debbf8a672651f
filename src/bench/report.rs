//! nccl-tests' text output (same lines, columns and printf widths as nccl-tests
//! 2.19.6), its JSON output (`-J`, schema version 3), and topo's own section.
//!
//! Everything topo adds to the text output is on lines starting with `#`, after the
//! nccl-tests footer, so that tools parsing nccl-tests output read the same table.

use std::io::Write;

use serde::Serialize;

use crate::error::Error;

/// One device line of the "Using devices" list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    pub rank: usize,
    /// Device index on this machine.
    pub device: usize,
    /// What goes between the brackets: a PCI id `dddd:bb:dd`, or `host`.
    pub bus: String,
    pub name: String,
}

/// One timed run (one placement of one size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Perf {
    pub time_us: f64,
    pub algbw: f64,
    pub busbw: f64,
    /// `None` when not validated (`-c 0`).
    pub wrong: Option<u64>,
}

/// One output row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub bytes: u64,
    pub count: u64,
    pub dtype: &'static str,
    pub op: &'static str,
    pub out_of_place: Option<Perf>,
    pub in_place: Option<Perf>,
    pub predicted_busbw: Option<f64>,
    pub bottleneck: Option<String>,
}

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

/// Settings echoed in the header.
#[derive(Debug, Clone)]
pub struct HeaderInfo {
    pub topo_version: String,
    pub backend: String,
    pub nranks: usize,
    pub min_bytes: u64,
    pub max_bytes: u64,
    pub step_bytes: u64,
    pub step_factor: u64,
    pub warmup_iters: usize,
    pub iters: usize,
    pub check: usize,
    pub pid: u32,
    pub hostname: String,
    pub devices: Vec<DeviceInfo>,
}

/// The lines nccl-tests prints before the table, and the table header.
pub fn write_header(out: &mut dyn Write, h: &HeaderInfo) -> Result<(), Error> {
    let mut s = String::new();
    s.push_str(&format!(
        "# topo {} bench allreduce, nccl-tests 2.19.6 output format, backend: {}\n",
        h.topo_version, h.backend
    ));
    s.push_str("# Collective test starting: all_reduce_perf\n");
    let (step, kind) = if h.step_factor > 1 { (h.step_factor, "factor") } else { (h.step_bytes, "bytes") };
    s.push_str(&format!(
        "# nThread 1 nGpus {} minBytes {} maxBytes {} step: {}({}) warmup iters: {} iters: {} agg iters: 1 validation: {} graph: 0 unalign: 0\n",
        h.nranks, h.min_bytes, h.max_bytes, step, kind, h.warmup_iters, h.iters, h.check
    ));
    s.push_str("#\n# Using devices\n");
    for d in &h.devices {
        s.push_str(&format!(
            "#  Rank {:2} Group {:2} Pid {:6} on {:>10} device {:2} [{}] {}\n",
            d.rank, 0, h.pid, h.hostname, d.device, d.bus, d.name
        ));
    }
    s.push_str("#\n");
    s.push_str(&format!(
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          \n",
        "", "", "", "", ""
    ));
    s.push_str(&format!(
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n",
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
    ));
    s.push_str(&format!(
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n",
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""
    ));
    put(out, &s)
}

/// One table row, as nccl-tests prints it (root is -1 for allreduce).
pub fn format_row(r: &Row) -> String {
    let mut s = format!("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", r.bytes, r.count, r.dtype, r.op, format!("{:6}", -1));
    match &r.out_of_place {
        Some(p) => s.push_str(&format_perf(p)),
        None => s.push_str(&" ".repeat(32)),
    }
    if let Some(p) = &r.in_place {
        s.push_str(&format_perf(p));
    }
    s.push('\n');
    s
}

fn format_perf(p: &Perf) -> String {
    let (t, a, b) = (float_str(p.time_us, 7), float_str(p.algbw, 6), float_str(p.busbw, 6));
    match p.wrong {
        Some(w) => format!("  {t:>7}  {a:>6}  {b:>6}  {:>6}", c_g(w as f64)),
        None => format!("  {t:>7}  {a:>6}  {b:>6}    N/A"),
    }
}

/// Summary numbers of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Measurements (size x placement) with any wrong element.
    pub errors: u64,
    /// Mean busbw over every measurement, nccl-tests' "Avg bus bandwidth".
    pub avg_busbw: f64,
    /// `NCCL_TESTS_MIN_BW`, when set: the average must reach 90% of it.
    pub min_bw: Option<f64>,
}

impl Summary {
    pub fn from_rows(rows: &[Row], min_bw: Option<f64>) -> Summary {
        let perfs: Vec<&Perf> = rows.iter().flat_map(|r| r.out_of_place.iter().chain(r.in_place.iter())).collect();
        let errors = perfs.iter().filter(|p| p.wrong.unwrap_or(0) > 0).count() as u64;
        let avg_busbw = perfs.iter().map(|p| p.busbw).sum::<f64>() / perfs.len() as f64;
        Summary { errors, avg_busbw, min_bw }
    }

    pub fn bw_ok(&self) -> Option<bool> {
        self.min_bw.map(|m| self.avg_busbw >= 0.9 * m)
    }

    pub fn passed(&self) -> bool {
        self.errors == 0 && self.bw_ok() != Some(false)
    }
}

/// nccl-tests' footer.
pub fn write_footer(out: &mut dyn Write, s: &Summary) -> Result<(), Error> {
    let bw_verdict = match s.bw_ok() {
        None => "",
        Some(true) => "OK",
        Some(false) => "FAILED",
    };
    put(
        out,
        &format!(
            "# {:<20} : {} {}\n# {:<20} : {} {}\n#\n# Collective test concluded: all_reduce_perf\n#\n\n",
            "Out of bounds values",
            s.errors,
            if s.errors > 0 { "FAILED" } else { "OK" },
            "Avg bus bandwidth",
            c_g(s.avg_busbw),
            bw_verdict
        ),
    )
}

/// topo's section: the plan, and the measurement beside the model's prediction.
pub fn write_topo_section(
    out: &mut dyn Write,
    rows: &[Row],
    plan_lines: &[String],
    have_prediction: bool,
) -> Result<(), Error> {
    let mut s = String::from("# topo: ---- beyond nccl-tests ----\n");
    for l in plan_lines {
        s.push_str(&format!("# topo: {l}\n"));
    }
    if !have_prediction {
        s.push_str("# topo: no model prediction (no channel search result for this run); measured bandwidth only\n");
    }
    s.push_str(&format!(
        "# {:>10}  {:>8}  {:>6}  {:>9}  {:>9}  {:>9}  {:>7}  {:>7}  {}\n",
        "size", "type", "redop", "oop busbw", "ip busbw", "predicted", "eff-oop", "eff-ip", "bottleneck"
    ));
    s.push_str(&format!(
        "# {:>10}  {:>8}  {:>6}  {:>9}  {:>9}  {:>9}  {:>7}  {:>7}\n",
        "(B)", "", "", "(GB/s)", "(GB/s)", "(GB/s)", "(%)", "(%)"
    ));
    let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for r in rows {
        let eff = |p: &Option<Perf>| match (p, r.predicted_busbw) {
            (Some(p), Some(pred)) if pred > 0.0 => Some(float_str(100.0 * p.busbw / pred, 7)),
            _ => None,
        };
        s.push_str(&format!(
            "# {:>10}  {:>8}  {:>6}  {:>9}  {:>9}  {:>9}  {:>7}  {:>7}  {}\n",
            r.bytes,
            r.dtype,
            r.op,
            dash(r.out_of_place.map(|p| float_str(p.busbw, 9))),
            dash(r.in_place.map(|p| float_str(p.busbw, 9))),
            dash(r.predicted_busbw.map(|v| float_str(v, 9))),
            dash(eff(&r.out_of_place)),
            dash(eff(&r.in_place)),
            dash(r.bottleneck.clone())
        ));
    }
    put(out, &s)
}

fn put(out: &mut dyn Write, s: &str) -> Result<(), Error> {
    out.write_all(s.as_bytes()).and_then(|_| out.flush()).map_err(|e| Error::Io { file: "<output>".into(), source: e })
}

// ---------------------------------------------------------------------------------
// JSON (`-J`), mirroring nccl-tests' schema version 3. Booleans are the strings
// "true"/"false" and `root` is the padded "%6i" string, as nccl-tests writes them.
// topo adds a "topo" object at the top level and in each result.

#[derive(Debug, Serialize)]
pub struct JsonDoc {
    pub version: u32,
    pub start_time: String,
    pub args: Vec<String>,
    pub env: Vec<String>,
    pub nccl_version: u32,
    pub config: JsonConfig,
    pub results: Vec<JsonResult>,
    pub out_of_bounds: JsonOob,
    pub average_bus_bandwidth: JsonAvg,
    pub errors: Vec<String>,
    pub end_time: String,
    pub topo: JsonTopo,
}

#[derive(Debug, Serialize)]
pub struct JsonConfig {
    pub nthreads: u32,
    pub ngpus: usize,
    pub minimum_bytes: u64,
    pub maximum_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_factor: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_bytes: Option<u64>,
    pub warmup_iters: usize,
    pub iterations: usize,
    pub aggregated_iterations: u32,
    pub validation: usize,
    pub graph: u32,
    pub blocking_collectives: &'static str,
    pub per_iter_timing: &'static str,
    pub per_iter_skip: u32,
    pub parallel_init: &'static str,
    pub devices: Vec<JsonDevice>,
}

#[derive(Debug, Serialize)]
pub struct JsonDevice {
    pub rank: usize,
    pub group: u32,
    pub pid: u32,
    pub hostname: String,
    pub device: usize,
    pub device_hex: String,
    pub device_info: String,
}

#[derive(Debug, Serialize)]
pub struct JsonPerf {
    pub time: f64,
    pub alg_bw: f64,
    pub bus_bw: f64,
    pub nwrong: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct JsonRowTopo {
    pub predicted_bus_bw: Option<f64>,
    pub efficiency_out_of_place: Option<f64>,
    pub efficiency_in_place: Option<f64>,
    pub bottleneck: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct JsonResult {
    pub size: u64,
    pub count: u64,
    #[serde(rename = "type")]
    pub dtype: String,
    pub redop: String,
    pub root: String,
    pub out_of_place: Option<JsonPerf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_place: Option<JsonPerf>,
    pub actual_iterations: usize,
    pub experiment_name: String,
    pub topo: JsonRowTopo,
}

#[derive(Debug, Serialize)]
pub struct JsonOob {
    pub count: u64,
    pub okay: &'static str,
}

#[derive(Debug, Serialize)]
pub struct JsonAvg {
    pub bandwidth: f64,
    pub okay: &'static str,
}

#[derive(Debug, Serialize)]
pub struct JsonTopo {
    pub version: String,
    pub backend: String,
    pub plan: Vec<String>,
    pub prediction: bool,
}

fn tf(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

impl JsonResult {
    pub fn from_row(r: &Row, iters: usize) -> JsonResult {
        let perf = |p: &Perf| JsonPerf {
            time: p.time_us,
            alg_bw: p.algbw,
            bus_bw: p.busbw,
            nwrong: p.wrong.map(|w| w as f64),
        };
        let eff = |p: &Option<Perf>| match (p, r.predicted_busbw) {
            (Some(p), Some(pred)) if pred > 0.0 => Some(p.busbw / pred),
            _ => None,
        };
        JsonResult {
            size: r.bytes,
            count: r.count,
            dtype: r.dtype.into(),
            redop: r.op.into(),
            root: format!("{:6}", -1),
            out_of_place: r.out_of_place.as_ref().map(perf),
            in_place: r.in_place.as_ref().map(perf),
            actual_iterations: iters,
            experiment_name: String::new(),
            topo: JsonRowTopo {
                predicted_bus_bw: r.predicted_busbw,
                efficiency_out_of_place: eff(&r.out_of_place),
                efficiency_in_place: eff(&r.in_place),
                bottleneck: r.bottleneck.clone(),
            },
        }
    }
}

impl JsonConfig {
    pub fn from_header(h: &HeaderInfo) -> JsonConfig {
        JsonConfig {
            nthreads: 1,
            ngpus: h.nranks,
            minimum_bytes: h.min_bytes,
            maximum_bytes: h.max_bytes,
            step_factor: (h.step_factor > 1).then_some(h.step_factor),
            step_bytes: (h.step_factor <= 1).then_some(h.step_bytes),
            warmup_iters: h.warmup_iters,
            iterations: h.iters,
            aggregated_iterations: 1,
            validation: h.check,
            graph: 0,
            blocking_collectives: tf(false),
            per_iter_timing: tf(false),
            per_iter_skip: 0,
            parallel_init: tf(false),
            devices: h
                .devices
                .iter()
                .map(|d| JsonDevice {
                    rank: d.rank,
                    group: 0,
                    pid: h.pid,
                    hostname: h.hostname.clone(),
                    device: d.device,
                    device_hex: d.bus.clone(),
                    device_info: d.name.clone(),
                })
                .collect(),
        }
    }
}

impl JsonOob {
    pub fn new(s: &Summary) -> JsonOob {
        JsonOob { count: s.errors, okay: tf(s.errors == 0) }
    }
}

impl JsonAvg {
    pub fn new(s: &Summary) -> JsonAvg {
        JsonAvg { bandwidth: s.avg_busbw, okay: s.bw_ok().map_or("unchecked", tf) }
    }
}

/// nccl-tests never overwrites a JSON file: it tries `FILE`, then `FILE.0`, `FILE.1`...
pub fn json_destination(path: &std::path::Path) -> std::path::PathBuf {
    if !path.exists() {
        return path.to_path_buf();
    }
    (0..)
        .map(|i| std::path::PathBuf::from(format!("{}.{i}", path.display())))
        .find(|p| !p.exists())
        .unwrap_or_else(|| path.to_path_buf())
}

/// Write `doc` to `path` all at once, never replacing an existing file.
pub fn write_json(path: &std::path::Path, doc: &JsonDoc) -> Result<(), Error> {
    let text = serde_json::to_string(doc).map_err(|e| Error::Usage(format!("JSON output: {e}")))?;
    let tmp = std::path::PathBuf::from(format!("{}.tmp-{}", path.display(), std::process::id()));
    std::fs::write(&tmp, text + "\n").map_err(|e| Error::io(&tmp, e))?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    linked.map_err(|e| Error::io(path, e))
}

/// `YYYY-MM-DD HH:MM:SS` in UTC (nccl-tests uses local time; topo has no time zone
/// database and says UTC in the JSON's `topo` section).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86400, secs % 86400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            format_row(&r),
            "           8             2     float     sum      -1     8.49    0.00    0.00       0     8.37    0.00    0.00    N/A\n"
        );
    }

    #[test]
    fn json_destination_does_not_clobber() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        assert_eq!(json_destination(&p), p);
        std::fs::write(&p, "x").unwrap();
        assert_eq!(json_destination(&p), d.path().join("r.json.0"));
    }

    #[test]
    fn utc_format() {
        let s = utc_now();
        assert_eq!(s.len(), 19);
        assert_eq!(&s[4..5], "-");
        assert!(s.starts_with("20"));
    }
}
