//! NCCL records in a physical line. A record starts with a prefix,
//! `host:pid:tid [dev] NCCL INFO ` (WARN, TRACE and CALL records have their own forms),
//! possibly behind a foreign prefix (Open MPI `[1,0]<stdout>:`, `srun -l`'s `0: `, a
//! timestamp). When several processes write to the same stream, their records can be
//! spliced into one physical line: every record followed by another one on the same
//! line was cut short and is only counted; the last one is parsed.

use super::scan::{float, nat32};

/// Record level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Info,
    Warn,
    Trace,
    Call,
}

/// One record found in a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seg<'a> {
    /// The host as printed (may still carry the tail of a spliced record, see
    /// [`Seg::host_mid_line`]).
    pub host: Option<&'a str>,
    /// The host text does not start the line: a splice may have glued text before it.
    pub host_mid_line: bool,
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    /// The CUDA device of the printing thread (`[dev]`), not a rank.
    pub dev: Option<u32>,
    pub level: Level,
    /// The message: the text after `NCCL INFO `, leading spaces kept.
    pub msg: &'a str,
    /// Another record follows on the same line: this one was cut.
    pub cut: bool,
    /// Bytes from the record's start to the end of the line (NCCL up to 2.28 cuts
    /// records at 1023).
    pub len: usize,
}

#[derive(Debug, Clone, Copy)]
struct Marker {
    start: usize,
    msg_start: usize,
    /// Byte range of the host in the line.
    host: Option<(usize, usize)>,
    host_mid_line: bool,
    pid: Option<u32>,
    tid: Option<u32>,
    dev: Option<u32>,
    level: Level,
}

/// Finds the records of one line at a time, without allocating per line.
#[derive(Debug, Default)]
pub(crate) struct Segmenter {
    markers: Vec<Marker>,
}

impl Segmenter {
    /// Find the records of `line`; returns how many there are.
    pub fn split(&mut self, line: &str) -> usize {
        self.markers.clear();
        let mut from = 0;
        // `contains` runs a vectorised search; most lines hold one prefix near their
        // start, and the rest of the line is checked in one pass.
        while line[from..].contains("NCCL ") {
            // `find(char)` runs on memchr; a `&str` pattern would build a searcher.
            let Some(i) = line[from..].find('N') else { break };
            let m = from + i;
            from = m + 1;
            if !line[m..].starts_with("NCCL ") {
                continue;
            }
            from = m + 5;
            let after = &line[m + 5..];
            let (level, word_len) = if after.starts_with("INFO") {
                (Level::Info, 4)
            } else if after.starts_with("WARN") {
                (Level::Warn, 4)
            } else if after.starts_with("TRACE") {
                (Level::Trace, 5)
            } else if after.starts_with("CALL") {
                (Level::Call, 4)
            } else {
                continue;
            };
            let end = m + 5 + word_len;
            let msg_start = match line.as_bytes().get(end) {
                None => end,
                Some(b' ') => end + 1,
                Some(_) => continue,
            };
            let floor = self.markers.last().map_or(0, |p| p.msg_start);
            if let Some(mk) = prefix(line, m, level, floor, msg_start) {
                self.markers.push(mk);
            }
        }
        self.markers.len()
    }

    /// Record `i` of `line`, the line last given to [`Segmenter::split`].
    pub fn get<'a>(&self, line: &'a str, i: usize) -> Seg<'a> {
        let mk = self.markers[i];
        let end = self.markers.get(i + 1).map_or(line.len(), |n| n.start);
        let msg = if mk.msg_start <= end { &line[mk.msg_start..end] } else { "" };
        Seg {
            host: mk.host.map(|(a, b)| &line[a..b]),
            host_mid_line: mk.host_mid_line,
            pid: mk.pid,
            tid: mk.tid,
            dev: mk.dev,
            level: mk.level,
            msg,
            cut: i + 1 < self.markers.len(),
            len: line.len() - mk.start,
        }
    }
}

/// The records of `line`, in order; empty when the line holds none.
#[cfg(test)]
pub(crate) fn segments<'a>(line: &'a str, out: &mut Vec<Seg<'a>>) {
    let mut s = Segmenter::default();
    let n = s.split(line);
    out.clear();
    out.extend((0..n).map(|i| s.get(line, i)));
}

/// Parse the prefix before the marker at `m` backwards; `floor` is where the previous
/// record's message starts (a prefix never reaches before it).
fn prefix(line: &str, m: usize, level: Level, floor: usize, msg_start: usize) -> Option<Marker> {
    let pre = &line[floor..m];
    let base = Marker { start: m, msg_start, host: None, host_mid_line: false, pid: None, tid: None, dev: None, level };
    let Some(mut p) = pre.strip_suffix(' ') else {
        // `NCCL INFO` glued to a foreign tag (`[1,0]<stdout>:NCCL INFO`) or at the start.
        return stripped_ok(pre, level).then_some(base);
    };
    match level {
        Level::Warn => {
            // `[dev] FILE:LINE (FUNC) NCCL WARN` (2.30.7) or `[dev] FILE:LINE NCCL WARN`.
            if p.ends_with(')')
                && let Some(open) = p.rfind(" (")
            {
                p = &p[..open];
            }
            p = strip_file_line(p)?;
        }
        Level::Trace => {
            p = strip_file_line(p)?;
            let t = p.rfind(' ').map_or(0, |i| i + 1);
            float(&p[t..]).filter(|(_, _, r)| r.is_empty())?;
            p = p[..t].strip_suffix(' ').unwrap_or(&p[..t]);
        }
        Level::Call => {
            let (start, host, pid, tid) = host_pid_tid(p)?;
            return Some(Marker {
                start: floor + start,
                host: Some((floor + start, floor + start + host.len())),
                host_mid_line: floor + start > 0,
                pid: Some(pid),
                tid: Some(tid),
                ..base
            });
        }
        Level::Info => {}
    }
    // `[dev]`
    if let Some(q) = p.strip_suffix(']')
        && let Some(open) = q.rfind('[')
        && let Some((dev, "")) = nat32(&q[open + 1..])
    {
        let before = &p[..open];
        let mut mk = Marker { start: floor + open, dev: Some(dev), ..base };
        if let Some(b) = before.strip_suffix(' ')
            && let Some((start, host, pid, tid)) = host_pid_tid(b)
        {
            mk.start = floor + start;
            mk.host = Some((mk.start, mk.start + host.len()));
            mk.host_mid_line = mk.start > 0;
            mk.pid = Some(pid);
            mk.tid = Some(tid);
        }
        return Some(mk);
    }
    // A prefix whose host and device were stripped (`NCCL INFO Channel ...` pastes):
    // only after nothing, or after a foreign tag ending in `:` or `>`; never after
    // prose that quotes a log (`channel \` NCCL INFO ...`).
    (level == Level::Info && stripped_ok(pre, level)).then_some(base)
}

fn stripped_ok(pre: &str, level: Level) -> bool {
    let t = pre.trim_end();
    level == Level::Info && (t.is_empty() || t.ends_with(':') || t.ends_with('>'))
}

/// Remove a trailing `FILE:LINE` token (and the space before it, when any).
fn strip_file_line(p: &str) -> Option<&str> {
    let t = p.rfind(' ').map_or(0, |i| i + 1);
    let tok = &p[t..];
    let (file, line) = tok.rsplit_once(':')?;
    if file.is_empty() || nat32(line).filter(|(_, r)| r.is_empty()).is_none() {
        return None;
    }
    Some(p[..t].strip_suffix(' ').unwrap_or(&p[..t]))
}

/// `HOST:PID:TID` at the end of `p`: (offset of HOST in `p`, host, pid, tid). HOST is
/// the text after the last space or `:` (so `[1,0]<stdout>:host:1:2` gives `host`).
fn host_pid_tid(p: &str) -> Option<(usize, &str, u32, u32)> {
    let t = p.rfind([' ', '\t']).map_or(0, |i| i + 1);
    let tok = &p[t..];
    let (rest, tid) = tok.rsplit_once(':')?;
    let (rest, pid) = rest.rsplit_once(':')?;
    let (tid, r1) = nat32(tid)?;
    let (pid, r2) = nat32(pid)?;
    if !r1.is_empty() || !r2.is_empty() {
        return None;
    }
    let h = rest.rfind(':').map_or(0, |i| i + 1);
    let host = &rest[h..];
    if host.is_empty() {
        return None;
    }
    Some((t + h, host, pid, tid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(line: &str) -> Vec<Seg<'_>> {
        let mut v = Vec::new();
        segments(line, &mut v);
        v
    }

    #[test]
    fn plain_record() {
        let v = segs("h-1:12:34 [3] NCCL INFO  0 : GPU/0 GPU/1");
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].host, v[0].pid, v[0].tid, v[0].dev), (Some("h-1"), Some(12), Some(34), Some(3)));
        assert_eq!(v[0].msg, " 0 : GPU/0 GPU/1");
        assert!(!v[0].cut && !v[0].host_mid_line);
    }

    #[test]
    fn foreign_prefixes() {
        let v = segs("[1,0]<stdout>:box:1:2 [0] NCCL INFO Using network IB");
        assert_eq!((v[0].host, v[0].msg), (Some("box"), "Using network IB"));
        let v = segs("0: box:1:2 [0] NCCL INFO x");
        assert_eq!(v[0].host, Some("box"));
        let v = segs("[default0]:box:1:2 [0] NCCL INFO x");
        assert_eq!(v[0].host, Some("box"));
        let v = segs("[2025-01-01 10:00:00] box:1:2 [0] NCCL INFO x");
        assert_eq!(v[0].host, Some("box"));
        let v = segs("[5] NCCL INFO Trees [0] 6/-1/-1->5->4");
        assert_eq!((v[0].host, v[0].dev), (None, Some(5)));
        let v = segs("NCCL INFO Channel 00 : 0[101c0] -> 8[101c0] [receive] via NET/IB/0");
        assert_eq!(
            (v[0].host, v[0].dev, v[0].msg),
            (None, None, "Channel 00 : 0[101c0] -> 8[101c0] [receive] via NET/IB/0")
        );
        // Prose quoting a log line is not a record.
        assert!(segs("How do channel ` NCCL INFO Channel 01/08 :    0   3` look?").is_empty());
        assert!(segs("the NCCL version is 2.18").is_empty());
    }

    #[test]
    fn other_levels() {
        let v = segs("h:1:2 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]");
        assert_eq!((v[0].level, v[0].host, v[0].msg), (Level::Warn, Some("h"), "Failed to open libibverbs.so[.1]"));
        let v = segs("[2025-01-01 10:00:00] h:1:2 [0] init.cc:10 (ncclX) NCCL WARN oops");
        assert_eq!((v[0].level, v[0].host), (Level::Warn, Some("h")));
        let v = segs("h:1:2 [0] 12.345678 transport.cc:90 NCCL TRACE x");
        assert_eq!((v[0].level, v[0].host), (Level::Trace, Some("h")));
        let v = segs("h:1:2 NCCL CALL ncclGroupStart()");
        assert_eq!((v[0].level, v[0].dev, v[0].host), (Level::Call, None, Some("h")));
    }

    #[test]
    fn splices() {
        let v = segs("a:1:1 [2] NCCL INFO Trees [0] b:1:1 [1] NCCL INFO Ring 00 : 0 -> 1 -> 2");
        assert_eq!(v.len(), 2);
        assert!(v[0].cut && !v[1].cut);
        assert_eq!((v[0].msg, v[1].msg, v[1].host), ("Trees [0] ", "Ring 00 : 0 -> 1 -> 2", Some("b")));
        assert!(v[1].host_mid_line);
        // The first prefix itself cut: only the second one is a record.
        let v = segs("lm2:5:6 [3] NClm2:7:8 [0] NCCL INFO Setting affinity for GPU 0 to ff");
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].host, Some("NClm2"));
        // A CALL record glued to a message.
        let v = segs("s:1:1 [1] NCCL INFO Init timings connections:1:1 NCCL CALL ncclGroupStart()");
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].host, Some("connections"));
    }

    #[test]
    fn odd_text_is_safe() {
        for l in [
            "NCCL ",
            "NCCL INFO",
            "é NCCL INFO é",
            "[é] NCCL INFO x",
            "a:b:c [1] NCCL INFO",
            "]] NCCL WARN x",
            ":: NCCL CALL",
        ] {
            let _ = segs(l);
        }
        let v = segs("h:1:2 [0] NCCL INFO");
        assert_eq!(v[0].msg, "");
    }
}
