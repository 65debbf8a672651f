//! nccl-tests' results found in a log (`topo log`), each size beside the model's
//! prediction for the machine, with a one-line verdict people can paste: "your 8-GPU
//! allreduce reaches 61% of what this topology allows at 1 GiB".

use std::fmt::Write;

use crate::log::perf::PerfTable;
use crate::log::perf_model::PerfComparison;
use crate::render::term::{Term, Tone};

/// A size as people say it: `8 B`, `64 KiB`, `1 GiB`, `1.5 MiB`.
fn size(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 { format!("{v:.0} {}", UNITS[u]) } else { format!("{v:.1} {}", UNITS[u]) }
}

/// The nccl-tests section of `topo log`'s text: each table, against the model when it
/// ran (`model`: its comparisons, or why it did not run).
pub fn text(tables: &[PerfTable], model: Result<&[PerfComparison], &str>, term: &Term) -> String {
    let mut out = String::new();
    for (k, t) in tables.iter().enumerate() {
        let what = t.binary.clone().or_else(|| t.func().map(str::to_string)).unwrap_or_else(|| "nccl-tests".into());
        let ranks = t.ranks.map(|n| format!(", {n} ranks")).unwrap_or_default();
        let first = &t.rows[0];
        let title =
            format!("nccl-tests results: {what}{ranks}, {} {} (busbw out of place, GB/s)", first.dtype, first.redop);
        let _ = writeln!(out, "\n{}", term.wrap(&title, "  "));
        let cmp = match model {
            Ok(c) => c.get(k).filter(|c| c.rows.len() == t.rows.len()),
            Err(_) => None,
        };
        match cmp {
            None => {
                let why = match model {
                    Err(why) => format!("no model to hold it against ({why})"),
                    Ok(_) => "no model to hold it against: the model's job has another number of ranks, or topo \
                              has no model of this test"
                        .into(),
                };
                let _ = writeln!(out, "{:>12}  {:>9}", "size", "busbw");
                for r in &t.rows {
                    let _ = writeln!(out, "{:>12}  {:>9.2}", r.bytes, r.oop[2]);
                }
                let _ = writeln!(out, "{}", term.wrap(&format!("  {why}"), "    "));
            }
            Some(c) => {
                // The bottleneck beside its row when it has room, else under it.
                let beside = term.width.is_none_or(|w| w >= 62 + 40);
                let head =
                    format!("{:>12}  {:>9}  {:>9}  {:>6}  {:<16}", "size", "busbw", "model", "share", "NCCL's pick");
                let _ = writeln!(out, "{}", format!("{head}{}", if beside { "  bottleneck" } else { "" }).trim_end());
                for v in &c.rows {
                    let share = format!("{:.0}%", v.percent);
                    let row = format!(
                        "{:>12}  {:>9.2}  {:>9.2}  {:>6}  {:<16}",
                        v.bytes, v.measured_busbw, v.model_busbw, share, v.pick
                    );
                    if beside {
                        let _ = writeln!(out, "{}", term.wrap(&format!("{row}  {}", v.bottleneck), &" ".repeat(62)));
                    } else {
                        let _ = writeln!(out, "{}", row.trim_end());
                        let _ = writeln!(out, "{}", term.wrap(&format!("    bottleneck: {}", v.bottleneck), "      "));
                    }
                }
                if let Some(v) = c.rows.iter().rev().find(|v| v.model_busbw > 0.0) {
                    let tone = if v.percent >= 80.0 { Tone::Good } else { Tone::Warn };
                    let verdict = format!(
                        "your {}-GPU {} reaches {} of what this topology allows at {} ({:.1} of {:.1} GB/s busbw; {})",
                        c.ranks,
                        c.func,
                        term.paint(&format!("{:.0}%", v.percent), tone),
                        size(v.bytes),
                        v.measured_busbw,
                        v.model_busbw,
                        v.bottleneck
                    );
                    let _ = writeln!(out, "{}", term.wrap(&verdict, "  "));
                    if v.percent > 105.0 {
                        let more = "  more than the model allows: the machine, the release or the settings are not the \
                                    ones the model ran (--topo, --nccl-version, the log's NCCL_* lines)";
                        let _ = writeln!(out, "{}", term.wrap(more, "    "));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_as_people_say_them() {
        assert_eq!(super::size(8), "8 B");
        assert_eq!(super::size(1 << 30), "1 GiB");
        assert_eq!(super::size(3 << 19), "1.5 MiB");
    }
}
