//! What a run measured, as data: the header facts, the rows, the summary, the
//! `--compile-only` kernel report, and nccl-tests' JSON document (`-J`, schema
//! version 3). The text of nccl-tests' output is rendered by [`crate::render::bench`];
//! files are written by the command layer.

use serde::Serialize;

use super::{Outcome, RunContext};

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
    /// A program's run: `topo algo cost`'s time for the call (µs), and measured time
    /// over it per placement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_time_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_out_of_place: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_in_place: Option<f64>,
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
                predicted_time_us: None,
                ratio_out_of_place: None,
                ratio_in_place: None,
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

impl JsonDoc {
    /// nccl-tests' JSON document of a finished run, with topo's additions.
    pub fn new(o: &Outcome, ctx: &RunContext) -> JsonDoc {
        JsonDoc {
            version: 3,
            start_time: o.start_time.clone(),
            args: ctx.argv.clone(),
            env: ctx.env.clone(),
            nccl_version: 0,
            config: JsonConfig::from_header(&o.header),
            results: o.rows.iter().map(|r| JsonResult::from_row(r, o.header.iters)).collect(),
            out_of_bounds: JsonOob::new(&o.summary),
            average_bus_bandwidth: JsonAvg::new(&o.summary),
            errors: Vec::new(),
            end_time: o.end_time.clone(),
            topo: JsonTopo {
                version: env!("CARGO_PKG_VERSION").into(),
                backend: o.header.backend.clone(),
                plan: o.plan_lines.clone(),
                prediction: o.prediction,
            },
        }
    }
}

// ---------------------------------------------------------------------------------
// `--compile-only`

/// Resource use of one compiled kernel, from ptxas' report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KernelStats {
    pub name: String,
    pub registers: u32,
    pub stack_bytes: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

/// Every kernel compiled for one architecture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompileReport {
    pub arch: String,
    pub nvrtc_version: (i32, i32),
    /// No architecture was named and no local GPU was found: topo's default targets.
    pub default_targets: bool,
    /// Every kernel of the source, operator by operator, type by type.
    pub kernels: Vec<KernelStats>,
    pub cubin_bytes: usize,
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
    fn utc_format() {
        let s = utc_now();
        assert_eq!(s.len(), 19);
        assert_eq!(&s[4..5], "-");
        assert!(s.starts_with("20"));
    }
}
