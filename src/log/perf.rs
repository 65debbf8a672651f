//! nccl-tests' results in a log: the `#  size  count  type  redop  root  time  algbw
//! busbw  #wrong ...` table of any nccl-tests version (`root` from 2.10, `#wrong` where
//! older ones said `error`), with or without NCCL_DEBUG lines around it, and with a
//! launcher's prefix on each line (`0: `, `[1,0]<stdout>: `). Which test ran comes from
//! its command line when the log holds it (`all_reduce_perf -b 8 ...`), else from the
//! table itself (see [`PerfTable::func`]).

use serde::Serialize;

/// One row of the table: a message size, out of place and in place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerfRow {
    /// nccl-tests' `size` column (bytes).
    pub bytes: u64,
    pub count: u64,
    #[serde(rename = "type")]
    pub dtype: String,
    pub redop: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<i64>,
    /// Out of place: time (µs), algbw and busbw (GB/s).
    pub oop: [f64; 3],
    /// In place, when printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip: Option<[f64; 3]>,
}

/// One nccl-tests run: its table and what the lines around it say.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PerfTable {
    /// The test binary named on its command line (`all_reduce_perf`), when the log has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// Ranks: the `#  Rank  N ...` device lines, else `nGpus` x `nThread` of the header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<u32>,
    pub rows: Vec<PerfRow>,
    /// `# Avg bus bandwidth : X`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_busbw: Option<f64>,
}

/// The collectives of nccl-tests, by the name of their binary.
pub const BINARIES: [(&str, &str); 9] = [
    ("all_reduce_perf", "allreduce"),
    ("all_gather_perf", "allgather"),
    ("reduce_scatter_perf", "reducescatter"),
    ("broadcast_perf", "broadcast"),
    ("reduce_perf", "reduce"),
    ("alltoall_perf", "alltoall"),
    ("sendrecv_perf", "sendrecv"),
    ("scatter_perf", "scatter"),
    ("gather_perf", "gather"),
];

impl PerfTable {
    /// The collective, as `topo tune` names it: from the binary when the log names it,
    /// else from the table: a root (>= 0) means broadcast or reduce (a reduction op:
    /// reduce); no reduction means allgather (or alltoall, which the table cannot tell
    /// from it); a reduction means allreduce, or reducescatter when busbw is algbw x
    /// (n-1)/n rather than 2(n-1)/n.
    pub fn func(&self) -> Option<&'static str> {
        if let Some(b) = &self.binary {
            return BINARIES.iter().find(|(bin, _)| bin == b).map(|(_, f)| *f);
        }
        let row = self.rows.iter().rev().find(|r| r.oop[1] > 0.0)?;
        let reduces = row.redop != "none";
        if row.root.is_some_and(|r| r >= 0) {
            return Some(if reduces { "reduce" } else { "broadcast" });
        }
        if !reduces {
            return Some("allgather");
        }
        let ratio = row.oop[2] / row.oop[1];
        Some(if ratio < 1.0 && self.ranks.is_some_and(|n| n > 2) { "reducescatter" } else { "allreduce" })
    }
}

/// Reads nccl-tests' output line by line, beside the NCCL log reader.
#[derive(Debug, Default)]
pub struct PerfReader {
    tables: Vec<PerfTable>,
    /// The columns of the table being read: whether it has `root`.
    open: Option<bool>,
    /// Read before the table: the binary, the header's ranks, the device lines.
    binary: Option<String>,
    header_ranks: Option<u32>,
    device_lines: u32,
}

/// The text after a launcher's prefix that ends in `: ` (`0: `, `[1,0]<stdout>: `,
/// `host: `), when the line has one before a `#` or a digit.
fn content(line: &str) -> &str {
    let t = line.trim();
    if t.starts_with('#') || t.starts_with(|c: char| c.is_ascii_digit()) && !t.contains(": ") {
        return t;
    }
    match t.split_once(": ") {
        Some((_, rest)) if rest.trim_start().starts_with(['#', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']) => {
            rest.trim()
        }
        _ => t,
    }
}

fn number_after(t: &str, key: &str) -> Option<u32> {
    let i = t.find(key)? + key.len();
    t[i..].split_whitespace().next()?.parse().ok()
}

impl PerfReader {
    /// Read one line of the log.
    pub fn feed(&mut self, line: &str) {
        if line.len() > 4096 {
            return;
        }
        if let Some(b) = line.split(|c: char| c.is_whitespace() || c == '/').find(|w| w.ends_with("_perf"))
            && BINARIES.iter().any(|(bin, _)| *bin == b)
        {
            self.binary = Some(b.to_string());
        }
        let t = content(line);
        if let Some(h) = t.strip_prefix('#') {
            let words: Vec<&str> = h.split_whitespace().collect();
            if words.first() == Some(&"size") && words.contains(&"busbw") && words.contains(&"algbw") {
                self.open = Some(words.contains(&"root"));
                let ranks = if self.device_lines > 0 { Some(self.device_lines) } else { self.header_ranks };
                self.tables.push(PerfTable { binary: self.binary.clone(), ranks, ..PerfTable::default() });
                return;
            }
            if let (Some(g), Some(th)) = (number_after(h, "nGpus"), number_after(h, "nThread")) {
                self.header_ranks = Some(g * th);
                self.device_lines = 0;
            }
            if words.first() == Some(&"Rank") && h.contains(" device ") {
                self.device_lines += 1;
            }
            if let Some(v) = h.trim().strip_prefix("Avg bus bandwidth")
                && let Some(t) = self.tables.last_mut()
            {
                t.avg_busbw = v.trim_start_matches([' ', ':']).split_whitespace().next().and_then(|x| x.parse().ok());
            }
            // `(B) (elements)` and the out-of-place/in-place titles stay in the table.
            if !(h.contains("(B)") || h.contains("out-of-place")) {
                self.open = None;
            }
            return;
        }
        let Some(root) = self.open else { return };
        match parse_row(t, root) {
            Some(r) => {
                if let Some(tab) = self.tables.last_mut() {
                    tab.rows.push(r);
                }
            }
            None if !t.is_empty() && !t.contains("NCCL ") => self.open = None,
            None => {}
        }
    }

    /// The tables read, those with rows.
    pub fn finish(self) -> Vec<PerfTable> {
        self.tables.into_iter().filter(|t| !t.rows.is_empty()).collect()
    }
}

/// A row: size count type redop [root] then time algbw busbw wrong, out of place and
/// (when printed) in place. `N/A` where nccl-tests did not check.
fn parse_row(t: &str, root: bool) -> Option<PerfRow> {
    let w: Vec<&str> = t.split_whitespace().collect();
    let head = if root { 5 } else { 4 };
    if w.len() < head + 3 {
        return None;
    }
    let num = |s: &str| s.parse::<f64>().ok();
    let triple =
        |at: usize| -> Option<[f64; 3]> { Some([num(w.get(at)?)?, num(w.get(at + 1)?)?, num(w.get(at + 2)?)?]) };
    let oop = triple(head)?;
    let ip = triple(head + 4);
    Some(PerfRow {
        bytes: w[0].parse().ok()?,
        count: w[1].parse().ok()?,
        dtype: w[2].to_string(),
        redop: w[3].to_string(),
        root: if root { w[4].parse().ok() } else { None },
        oop,
        ip,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: &str = "\
# nThread 1 nGpus 8 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  1234 on     node1 device  0 [0x1a] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  1234 on     node1 device  1 [0x1c] NVIDIA H100 80GB HBM3
node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    28.52    0.00    0.00      0    27.81    0.00    0.00      0
  1073741824     268435456     float     sum      -1   4720.5  227.46  398.06      0   4712.1  227.87  398.77    N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 87.2354
";

    #[test]
    fn reads_a_table_of_any_version() {
        let mut r = PerfReader::default();
        for l in NEW.lines() {
            r.feed(l);
        }
        let t = r.finish();
        assert_eq!(t.len(), 1);
        assert_eq!((t[0].ranks, t[0].rows.len(), t[0].avg_busbw), (Some(2), 2, Some(87.2354)));
        assert_eq!(t[0].rows[1].oop, [4720.5, 227.46, 398.06]);
        assert_eq!(t[0].rows[1].root, Some(-1));
        assert_eq!(t[0].func(), Some("allreduce"));
        // An old table (no root, `error`), behind an srun prefix, named by its command line.
        let old = "$ mpirun -np 8 ./build/all_gather_perf -b 8 -e 128M\n\
                   0: #       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n\
                   0:    134217728       4194304     float    none   1234.5  108.72   95.13  0e+00   1230.1  109.11   95.47  0e+00\n";
        let mut r = PerfReader::default();
        for l in old.lines() {
            r.feed(l);
        }
        let t = r.finish();
        assert_eq!(t[0].rows[0].bytes, 134217728);
        assert_eq!(t[0].rows[0].oop[2], 95.13);
        assert_eq!(t[0].func(), Some("allgather"));
    }
}
