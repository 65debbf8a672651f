//! `topo log`: NCCL's own debug logs (`NCCL_DEBUG=INFO`), of any release from 2.5 to
//! 2.30, read into [`LogFacts`].
//!
//! Reading is one streaming pass (memory grows with the communicators, not the file):
//! physical lines (`reader.rs`), then NCCL records (a line may hold several when
//! processes interleave, `segment.rs`), then one parsed record per message
//! (`classify/`, into the kinds of `record.rs`), then facts assembled per printing
//! stream (`assemble/`); the release comes from the version line or, without one, from
//! the formats read (`version.rs`). Reading never looks at the assembler: records go one
//! way. Both halves are split by the same record families, one file each: `comms`
//! (versions and communicators), `system` (the system print and its paths), `graphs`,
//! `rings` (rings and trees), `connections`, `settings` (environment and tuning). Holding
//! the facts against topo's model is [`compare`]; rebuilding a topology from a system
//! print is [`rebuild`]. Nothing here prints.

mod assemble;
mod classify;
pub mod compare;
pub mod facts;
mod known;
pub mod perf;
pub mod perf_model;
mod rccl;
mod reader;
pub mod rebuild;
mod record;
mod scan;
mod segment;
mod version;

pub use facts::*;

use std::io::BufRead;

use crate::error::Error;

/// Content lines looked at after an `<?xml` declaration to tell which XML it is.
const XML_LOOKAHEAD: usize = 20;

/// Read a log. `name` names it in messages (a path, or `-` for standard input). The
/// results tables of nccl-tests are read too, with or without NCCL lines around them.
///
/// Any text is read without panicking: lines topo does not know are counted, records
/// cut by other processes' output are skipped, a log that ends early gives what it
/// holds and a warning. Errors (exit status 2): input that is binary, an XML file (a
/// topology or graph dump), empty, or holds nothing an NCCL log holds.
pub fn read(input: &mut dyn BufRead, name: &str) -> Result<LogFacts, Error> {
    let err = |message: String| Error::Input { file: name.to_string(), message };
    let mut lines = reader::Lines::new(input);
    let mut asm = assemble::Assembler::new();
    let mut segmenter = segment::Segmenter::default();
    let mut perf = perf::PerfReader::default();
    let mut content = 0usize;
    let mut xml_decl = false;
    let mut xml_like = 0usize;
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => return Err(Error::Io { file: name.to_string(), source: e }),
        };
        let t = line.trim_start_matches('\u{feff}').trim();
        if !t.is_empty() {
            content += 1;
            if t.starts_with('<') {
                xml_like += 1;
            }
            if content == 1 || (xml_decl && content <= XML_LOOKAHEAD) {
                if let Some(kind) = xml_kind(t) {
                    return Err(err(kind.to_string()));
                }
                if t.starts_with("<?xml") {
                    xml_decl = true;
                }
            }
        }
        perf.feed(line);
        match segmenter.split(line) {
            0 => asm.bare(line),
            n => {
                for i in 0..n {
                    asm.segment(&segmenter.get(line, i), n > 1);
                }
            }
        }
        // At once: binary data may be endless (/dev/zero) or have no line end.
        if lines.looks_binary() {
            return Err(err("this is binary data, not an NCCL log".into()));
        }
    }
    if lines.looks_binary() {
        return Err(err("this is binary data, not an NCCL log".into()));
    }
    if xml_decl && content <= XML_LOOKAHEAD {
        return Err(err("this is an XML file, not an NCCL log".into()));
    }
    if content == 0 {
        return Err(err("the input is empty: no NCCL log lines".into()));
    }
    let tables = perf.finish();
    if !asm.nccl_like && tables.is_empty() {
        let mut m = String::from(
            "no NCCL debug lines found (records like `host:pid:tid [dev] NCCL INFO ...`, or NCCL's version line); \
             run the job with NCCL_DEBUG=INFO",
        );
        if xml_like * 2 > content {
            m.push_str("; the input holds XML: a topology or graph file goes to --topo");
        }
        return Err(err(m));
    }
    let (physical, overlong) = (lines.physical, lines.overlong);
    let c = asm.counts();
    c.physical = physical;
    c.overlong = overlong;
    let mut facts = asm.finish();
    facts.perf = tables;
    if overlong > 0 {
        facts.warnings.push(format!("{overlong} lines longer than 64 KiB were cut at that length"));
    }
    Ok(facts)
}

/// Read a log held in memory.
pub fn read_str(text: &str, name: &str) -> Result<LogFacts, Error> {
    read(&mut text.as_bytes(), name)
}

/// The message for an input that starts like an XML file topo knows.
fn xml_kind(t: &str) -> Option<&'static str> {
    if t.starts_with("<system") {
        Some("this is a topology XML (<system>), not an NCCL log: give it to --topo")
    } else if t.starts_with("<graphs") {
        Some("this is a graph XML (<graphs>, NCCL_GRAPH_DUMP_FILE), not an NCCL log; use --topo for the topology")
    } else {
        None
    }
}
