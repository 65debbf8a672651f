//! A [`Program`] as MSCCL-IR text in the canonical form msccl-tools writes: no
//! prolog, one element per line, two-space indentation, double quotes, single spaces,
//! self-closing steps, and every attribute the chosen runtime requires. Reading a
//! canonical file and writing it again gives the same bytes.

use std::fmt::Write;

use super::program::Program;
use super::runtime::Runtime;

/// The runtime's tokenizer ends a value at the first `"`; nothing else needs escaping
/// (it decodes no entities).
fn clean(v: &str) -> String {
    v.replace('"', "'")
}

/// The program as the chosen runtime reads it. `None` when that runtime has no name
/// for the program's collective (a broadcast for the older runtime).
pub fn write(p: &Program, runtime: Runtime) -> Option<String> {
    let h = &p.header;
    let coll = runtime.collective_name(h.coll)?;
    let mut out = String::with_capacity(128 * p.steps().count() + 256);
    let _ = write!(
        out,
        "<algo name=\"{}\" proto=\"{}\" nchannels=\"{}\" nchunksperloop=\"{}\" ngpus=\"{}\" coll=\"{coll}\" inplace=\"{}\"",
        clean(&h.name),
        h.proto,
        h.nchannels,
        h.chunks_per_loop,
        h.ngpus,
        u8::from(h.inplace)
    );
    if runtime.needs_size_range() {
        // A header from the older runtime has no outofplace and an exclusive maxBytes
        // defaulting to 128 MiB: keep what it meant.
        let outofplace = h.outofplace.unwrap_or(false);
        let min = h.min_bytes.unwrap_or(0);
        let max = match (h.outofplace, h.max_bytes) {
            (None, None) => runtime.default_max_bytes() - 1,
            (None, Some(m)) if m > 0 => m - 1,
            (_, m) => m.unwrap_or(0),
        };
        let _ = write!(out, " outofplace=\"{}\" minBytes=\"{min}\" maxBytes=\"{max}\"", u8::from(outofplace));
    } else {
        if let Some(o) = h.outofplace {
            let _ = write!(out, " outofplace=\"{}\"", u8::from(o));
        }
        if let Some(m) = h.min_bytes {
            let _ = write!(out, " minBytes=\"{m}\"");
        }
        if let Some(m) = h.max_bytes {
            let _ = write!(out, " maxBytes=\"{m}\"");
        }
    }
    // Extra attributes the runtime keeps: XML names only, and no more than leave the
    // element at the 16 attributes its tokenizer keeps (more would push out the last).
    let written = out.matches("=\"").count();
    let is_name = |k: &str| {
        k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && k.chars().all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c))
    };
    for (k, v) in h.extra.iter().filter(|(k, _)| is_name(k)).take(16usize.saturating_sub(written)) {
        let _ = write!(out, " {k}=\"{}\"", clean(v));
    }
    out.push_str(">\n");
    let num = |o: Option<u32>| o.map_or(-1, i64::from);
    for g in &p.gpus {
        let _ = writeln!(
            out,
            "  <gpu id=\"{}\" i_chunks=\"{}\" o_chunks=\"{}\" s_chunks=\"{}\">",
            g.id, g.input_chunks, g.output_chunks, g.scratch_chunks
        );
        for t in &g.tbs {
            let _ = writeln!(
                out,
                "    <tb id=\"{}\" send=\"{}\" recv=\"{}\" chan=\"{}\">",
                t.id,
                num(t.send),
                num(t.recv),
                t.chan
            );
            for s in &t.steps {
                let (depid, deps) = s.dep.map_or((-1, -1), |d| (i64::from(d.tb), i64::from(d.step)));
                let _ = writeln!(
                    out,
                    "      <step s=\"{}\" type=\"{}\" srcbuf=\"{}\" srcoff=\"{}\" dstbuf=\"{}\" dstoff=\"{}\" cnt=\"{}\" depid=\"{depid}\" deps=\"{deps}\" hasdep=\"{}\"/>",
                    s.s,
                    s.kind,
                    s.src.buf.letter(),
                    num(s.src.off),
                    s.dst.buf.letter(),
                    num(s.dst.off),
                    s.count,
                    u8::from(s.has_dep)
                );
            }
            out.push_str("    </tb>\n");
        }
        out.push_str("  </gpu>\n");
    }
    out.push_str("</algo>\n");
    Some(out)
}
