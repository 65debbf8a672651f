//! MSCCL-IR into the typed [`Program`], reading every element and attribute exactly as
//! the chosen runtime's loader does, and saying where the runtime refuses the file or
//! silently reads something other than what is written.
//!
//! The runtime loads a program once per rank and interprets only that rank's `<gpu>`;
//! topo reads every `<gpu>` once, as its own rank would, so a rule the runtime applies
//! to "my rank" is applied here to each GPU with its id as the rank.

use std::collections::{BTreeMap, BTreeSet};

use super::finding::{Finding, Kind, Place};
use super::lexer::{self, Close, Element};
use super::program::{Buffer, Collective, Dep, Gpu, Header, Program, Protocol, Slot, Step, StepKind, ThreadBlock};
use super::runtime::Runtime;

/// The largest program file topo reads (the largest real ones are a few MB).
pub const MAX_PROGRAM_BYTES: u64 = 64 << 20;
/// The largest program topo models: more GPUs or chunks than any runtime can run, and
/// whose simulation would take memory out of proportion to the file.
pub const MAX_GPUS: i64 = 4096;
pub const MAX_CHUNKS: i64 = 1 << 20;
const MAX_TOTAL_CHUNKS: i64 = 1 << 24;
/// Attributes the runtime's tokenizer keeps per element.
const MAX_ATTRS: usize = 16;

/// What the reader made of a file.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The program, when the header could be read. Thread blocks or steps the reader
    /// could not type are left out, and `complete` is false.
    pub program: Option<Program>,
    pub complete: bool,
    pub findings: Vec<Finding>,
    /// Why the runtime's folder scan (which reads only the first element's attributes
    /// of every file in MSCCL_ALGO_DIR) fails on this file, ending MSCCL's set-up.
    pub scan_error: Option<String>,
}

/// What the folder scan of msccl-executor-nccl and RCCL needs of a file's first
/// element: an `<algo>` with these attributes among its first 16, and a collective it knows.
fn scan_error(roots: &[Element], runtime: Runtime) -> Option<String> {
    if runtime == Runtime::Legacy {
        return None;
    }
    let first = roots.first()?;
    let needed = ["nchunksperloop", "nchannels", "ngpus", "coll", "minBytes", "maxBytes", "inplace", "outofplace"];
    for key in needed {
        if !matches!(lookup(first, key), Lookup::Found(_)) {
            return Some(format!("Attribute {key} of node {} not found", first.name));
        }
    }
    match lookup(first, "coll") {
        Lookup::Found(c) if runtime.collective(c).is_none() => Some(format!("unsupported collective {c}")),
        _ => None,
    }
}

/// Read an MSCCL-IR file's bytes. `Err` is one line saying why the bytes are not an
/// MSCCL-IR program at all (or one too large to model); everything the runtime would
/// refuse or misread in a program is a finding.
pub fn read(text: &[u8], runtime: Runtime) -> Result<Reading, String> {
    if text.iter().take(1 << 16).any(|&b| b == 0) {
        return Err("binary data (NUL bytes): not an MSCCL-IR program".into());
    }
    let lexed = lexer::lex(text).map_err(|e| format!("not an MSCCL-IR program: line {}: {}", e.line, e.message))?;
    let Some(algo_at) = lexed.roots.iter().position(|e| e.name == "algo") else {
        return Err(not_a_program(&lexed.roots));
    };
    let mut r = Reader { runtime, findings: Vec::new(), complete: true, said: BTreeSet::new() };
    if let Some(e) = &lexed.runtime_error {
        r.invalid(
            Place::line(e.line),
            format!(
                "{}'s tokenizer refuses the file: {} (read on as XML for the other checks)",
                runtime.long_name(),
                e.message
            ),
        );
    }
    for (line, attr, len) in &lexed.long_values {
        r.invalid(
            Place::line(*line),
            format!("{attr} is {len} bytes: the runtime copies values into a 256-byte buffer without a bound (memory corruption)"),
        );
    }
    for extra in lexed.roots.iter().skip(algo_at + 1).filter(|e| e.name == "algo") {
        r.warn(Place::line(extra.line), "a second <algo>: the runtime parses it and uses only the first".into());
    }
    let algo = &lexed.roots[algo_at];
    r.structure(&lexed.roots, algo);
    let program = r.program(algo)?;
    Ok(Reading { program, complete: r.complete, findings: r.findings, scan_error: scan_error(&lexed.roots, runtime) })
}

fn not_a_program(roots: &[Element]) -> String {
    match roots.first().map(|e| e.name.as_str()) {
        None => "no elements: not an MSCCL-IR program (empty file?)".into(),
        Some("system") => "an NCCL topology file (<system>), not an MSCCL-IR program (<algo>)".into(),
        Some("graphs") => "an NCCL graph file (<graphs>), not an MSCCL-IR program (<algo>)".into(),
        Some(other) => format!("line {}: <{other}> where an MSCCL-IR program starts with <algo>", roots[0].line),
    }
}

/// An attribute as the runtime finds it.
enum Lookup<'a> {
    Found(&'a str),
    /// Present, but after the 16th attribute: the runtime dropped it.
    Dropped(usize),
    Missing,
}

fn lookup<'a>(e: &'a Element, key: &str) -> Lookup<'a> {
    match e.attrs.iter().position(|(k, _)| k == key) {
        Some(i) if i < MAX_ATTRS => Lookup::Found(&e.attrs[i].1),
        Some(i) => Lookup::Dropped(i + 1),
        None => Lookup::Missing,
    }
}

struct Reader {
    runtime: Runtime,
    findings: Vec<Finding>,
    complete: bool,
    /// Refusals the runtime would repeat on every later step of the same kind, said once
    /// per (gpu, thread block or channel, what).
    said: BTreeSet<(u32, u32, &'static str)>,
}

/// A `<step>`'s numbers as the runtime reads them, before typing.
struct RawStep {
    s: i32,
    kind: StepKind,
    src: (Buffer, i32),
    dst: (Buffer, i32),
    count: i32,
    depid: i32,
    deps: i32,
    hasdep: i32,
}

impl Reader {
    fn invalid(&mut self, place: Place, message: String) {
        self.findings.push(Finding::error(Kind::Invalid, place, message));
    }

    /// An error said only the first time for `key`.
    fn invalid_once(&mut self, key: (u32, u32, &'static str), place: Place, message: String) {
        if self.said.insert(key) {
            self.invalid(place, message);
        }
    }

    fn warn(&mut self, place: Place, message: String) {
        self.findings.push(Finding::warning(Kind::Invalid, place, message));
    }

    fn text<'a>(&mut self, e: &'a Element, key: &str, place: Place) -> Option<&'a str> {
        match lookup(e, key) {
            Lookup::Found(v) => Some(v),
            Lookup::Dropped(n) => {
                self.invalid(
                    place,
                    format!(
                        "Attribute {key} of node {} not found: it is attribute {n}, and the runtime keeps only the first {MAX_ATTRS}",
                        e.name
                    ),
                );
                None
            }
            Lookup::Missing => {
                self.invalid(place, format!("Attribute {key} of node {} not found", e.name));
                None
            }
        }
    }

    fn int(&mut self, e: &Element, key: &str, place: Place) -> Option<i32> {
        let v = self.text(e, key, place)?;
        if let Some(why) = lexer::surprising_number(v) {
            self.warn(place, format!("{key}={why}"));
        }
        Some(lexer::c_int(v))
    }

    fn long(&mut self, e: &Element, key: &str, place: Place) -> Option<i64> {
        let v = self.text(e, key, place)?;
        if let Some(why) = lexer::surprising_number(v).filter(|w| !w.contains("does not fit an int")) {
            self.warn(place, format!("{key}={why}"));
        }
        Some(lexer::c_long(v))
    }

    /// Element-level rules that depend on which rank reads the file: closing tags the
    /// runtime compares, elements it stores, children it ignores.
    fn structure(&mut self, roots: &[Element], algo: &Element) {
        for e in roots.iter().chain(algo.children.iter()).chain(algo.children.iter().flat_map(|g| &g.children)) {
            if e.attrs.len() > MAX_ATTRS {
                let dropped: Vec<&str> = e.attrs[MAX_ATTRS..].iter().map(|(k, _)| k.as_str()).collect();
                self.warn(
                    Place::line(e.line),
                    format!(
                        "<{}> has {} attributes: the runtime keeps the first {MAX_ATTRS} and drops {}",
                        e.name,
                        e.attrs.len(),
                        dropped.join(", ")
                    ),
                );
            }
        }
        self.close_matches(algo);
        let gpus: Vec<&Element> = algo.children.iter().filter(|e| e.name == "gpu").collect();
        let stored_per_rank = 1 + gpus.len() as u64;
        if gpus.len() as u32 > self.runtime.max_subs() {
            self.invalid(
                Place::line(algo.line),
                format!(
                    "{} <gpu> elements: the runtime's parser holds {} children per element and writes past its table",
                    gpus.len(),
                    self.runtime.max_subs()
                ),
            );
        }
        for e in algo.children.iter().filter(|e| e.name != "gpu") {
            self.warn(
                Place::line(e.line),
                format!("<{}> is not MSCCL-IR: the runtime ignores it and everything inside it", e.name),
            );
        }
        let mut per_rank: BTreeMap<String, u64> = BTreeMap::new();
        for g in &gpus {
            self.close_matches(g);
            let id = match lookup(g, "id") {
                Lookup::Found(v) => v.to_string(),
                _ => continue,
            };
            let mut stored = 0u64;
            let tbs: Vec<&Element> = g.children.iter().filter(|e| e.name == "tb").collect();
            for e in g.children.iter().filter(|e| e.name != "tb") {
                self.warn(
                    Place::line(e.line),
                    format!("<{}> is not MSCCL-IR: the runtime ignores it and everything inside it", e.name),
                );
            }
            if tbs.len() as u32 > self.runtime.max_subs() {
                self.invalid(
                    Place::line(g.line),
                    format!("{} <tb> elements: more than the parser's {} children", tbs.len(), self.runtime.max_subs()),
                );
            }
            for tb in tbs {
                stored += 1;
                self.close_matches(tb);
                let steps: Vec<&Element> = tb.children.iter().filter(|e| e.name == "step").collect();
                if steps.len() as u32 > self.runtime.max_subs() {
                    self.invalid(
                        Place::line(tb.line),
                        format!(
                            "{} <step> elements: more than the parser's {} children",
                            steps.len(),
                            self.runtime.max_subs()
                        ),
                    );
                }
                for e in tb.children.iter().filter(|e| e.name != "step") {
                    self.warn(
                        Place::line(e.line),
                        format!("<{}> is not MSCCL-IR: the runtime ignores it and everything inside it", e.name),
                    );
                }
                for st in steps {
                    stored += 1;
                    self.close_matches(st);
                    if let Some(child) = st.children.first() {
                        self.invalid(
                            Place::line(child.line),
                            format!(
                                "<{}> inside a <step>: the runtime's parser has no handler table there and crashes",
                                child.name
                            ),
                        );
                    }
                }
            }
            *per_rank.entry(id).or_default() += stored;
        }
        for (id, stored) in per_rank {
            if stored_per_rank + stored >= u64::from(self.runtime.max_nodes()) {
                self.invalid(
                    Place::line(algo.line),
                    format!(
                        "rank {id} stores {} elements: the runtime's parser holds fewer than {} (\"XML parser is limited to 1024 nodes\")",
                        stored_per_rank + stored,
                        self.runtime.max_nodes()
                    ),
                );
            }
        }
    }

    fn close_matches(&mut self, e: &Element) {
        if let Close::Tag { name, line } = &e.close
            && name != &e.name
        {
            self.invalid(Place::line(*line), format!("XML Mismatch : {} / {name}", e.name));
        }
    }

    fn header(&mut self, algo: &Element) -> Result<Option<Header>, String> {
        let at = Place::line(algo.line);
        let rt = self.runtime;
        let name = match lookup(algo, "name") {
            Lookup::Found(v) => v.to_string(),
            _ if rt.needs_name() => {
                self.text(algo, "name", at);
                String::new()
            }
            _ => String::new(),
        };
        let chunks = self.int(algo, "nchunksperloop", at);
        let nchannels = self.int(algo, "nchannels", at);
        let ngpus = self.int(algo, "ngpus", at);
        let proto = self.text(algo, "proto", at).and_then(|p| match p {
            "Simple" => Some(Protocol::Simple),
            "LL" => Some(Protocol::LL),
            "LL128" => Some(Protocol::LL128),
            other => {
                self.invalid(
                    at,
                    format!("MSCCL: protocol {other} is not supported. (Simple, LL or LL128, case-sensitive)"),
                );
                None
            }
        });
        let coll = self.text(algo, "coll", at).and_then(|c| match rt.collective(c) {
            Some(c) => Some(c),
            None => {
                let known = lexer::collective_names(rt).join(", ");
                let other = Runtime::ALL.into_iter().find(|o| o.collective(c).is_some());
                let hint = other.map(|o| format!("; \"{c}\" is {}'s spelling", o.long_name())).unwrap_or_default();
                self.invalid(
                    at,
                    format!("MSCCL: unsupported collective: {c} ({} knows {known}{hint})", rt.long_name()),
                );
                None
            }
        });
        let (min_bytes, max_bytes, outofplace) = if rt.needs_size_range() {
            (
                self.long(algo, "minBytes", at),
                self.long(algo, "maxBytes", at),
                self.int(algo, "outofplace", at).map(|v| v != 0),
            )
        } else {
            let opt = |key| match lookup(algo, key) {
                Lookup::Found(v) => Some(lexer::c_long(v)),
                _ => None,
            };
            (opt("minBytes"), opt("maxBytes"), None)
        };
        let inplace = self.int(algo, "inplace", at).map(|v| v != 0);
        for (key, v) in [("nchunksperloop", chunks), ("ngpus", ngpus)] {
            if let Some(v) = v
                && v <= 0
            {
                self.invalid(at, format!("{key}={v}: a program needs at least one (the runtime divides by nchunksperloop and compares ngpus with the communicator)"));
            }
        }
        if let Some(n) = nchannels
            && n <= 0
        {
            self.invalid(at, format!("nchannels={n}: the runtime sets up no channel for the program"));
        }
        for (key, v, max) in [("ngpus", ngpus, MAX_GPUS), ("nchunksperloop", chunks, MAX_CHUNKS)] {
            if let Some(v) = v
                && i64::from(v) > max
            {
                let written = match lookup(algo, key) {
                    Lookup::Found(t) if t.trim() != v.to_string() => format!("\"{t}\" (read as {v})"),
                    _ => format!("\"{v}\""),
                };
                return Err(format!("line {}: {key}={written} is more than topo models (at most {max})", algo.line));
            }
        }
        if let (Some(lo), Some(hi)) = (min_bytes, max_bytes) {
            if lo < 0 || hi < 0 {
                self.warn(at, format!("minBytes={lo} maxBytes={hi}: a negative bound (the older runtime refuses it)"));
            } else if rt.max_bytes_inclusive() && hi != 0 && lo > hi {
                self.warn(at, format!("minBytes={lo} > maxBytes={hi}: the runtime never selects this program"));
            }
        }
        let extra = algo
            .attrs
            .iter()
            .take(MAX_ATTRS)
            .filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "name"
                        | "proto"
                        | "nchannels"
                        | "nchunksperloop"
                        | "ngpus"
                        | "coll"
                        | "inplace"
                        | "outofplace"
                        | "minBytes"
                        | "maxBytes"
                )
            })
            .cloned()
            .collect();
        let (Some(coll), Some(proto), Some(c), Some(n), Some(ch)) = (coll, proto, chunks, ngpus, nchannels) else {
            return Ok(None);
        };
        if c <= 0 || n <= 0 || ch <= 0 {
            return Ok(None);
        }
        if matches!(
            coll,
            Collective::AllGather
                | Collective::ReduceScatter
                | Collective::AllToAll
                | Collective::Gather
                | Collective::Scatter
        ) && c % n != 0
        {
            self.invalid(at, format!("nchunksperloop={c} is not a multiple of ngpus={n}: a {coll}'s per-rank part is no whole number of chunks"));
        }
        Ok(Some(Header {
            name,
            coll,
            proto,
            nchannels: ch as u32,
            chunks_per_loop: c as u32,
            ngpus: n as u32,
            inplace: inplace.unwrap_or(false),
            outofplace,
            min_bytes,
            max_bytes,
            extra,
        }))
    }

    fn program(&mut self, algo: &Element) -> Result<Option<Program>, String> {
        let header = self.header(algo)?;
        let mut gpus: Vec<Gpu> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut total: i64 = 0;
        for g in algo.children.iter().filter(|e| e.name == "gpu") {
            let at = Place::line(g.line);
            let Some(id) = self.int(g, "id", at) else {
                self.complete = false;
                continue;
            };
            let Some(h) = &header else { continue };
            if id < 0 || id as u32 >= h.ngpus {
                self.warn(
                    at,
                    format!(
                        "<gpu id=\"{id}\">: no rank of a {}-rank communicator has this id, so no rank interprets it",
                        h.ngpus
                    ),
                );
                continue;
            }
            let id = id as u32;
            if !seen.insert(id) {
                self.invalid(
                    at,
                    format!("a second <gpu id=\"{id}\">: rank {id} interprets both, the second's thread blocks overwriting the first's (topo models the first)"),
                );
                continue;
            }
            let at = Place::gpu(g.line, id);
            let (i, o, s) = (self.int(g, "i_chunks", at), self.int(g, "o_chunks", at), self.int(g, "s_chunks", at));
            let (Some(i), Some(o), Some(s)) = (i, o, s) else {
                self.complete = false;
                continue;
            };
            if s < 0 {
                self.invalid(at, format!("MSCCL: nScratchChunks must be not negative. nScratchChunks: {s}"));
            }
            for (key, v) in [("i_chunks", i), ("o_chunks", o)] {
                if v < 0 {
                    self.invalid(at, format!("{key}={v}: negative, so every offset check in this buffer fails"));
                }
            }
            for (key, v) in [("i_chunks", i), ("o_chunks", o), ("s_chunks", s)] {
                if i64::from(v) > MAX_CHUNKS {
                    return Err(format!(
                        "line {}: {key}=\"{v}\" is more than topo models (at most {MAX_CHUNKS})",
                        g.line
                    ));
                }
                total += i64::from(v.max(0));
            }
            if total > MAX_TOTAL_CHUNKS {
                return Err(format!(
                    "line {}: the GPUs' buffers hold more than {MAX_TOTAL_CHUNKS} chunks in all, more than topo models",
                    g.line
                ));
            }
            let mut gpu = Gpu {
                id,
                input_chunks: i.max(0) as u32,
                output_chunks: o.max(0) as u32,
                scratch_chunks: s.max(0) as u32,
                tbs: Vec::new(),
                line: g.line,
            };
            self.thread_blocks(g, h, &mut gpu);
            gpu.tbs.sort_by_key(|t| t.id);
            gpus.push(gpu);
        }
        let Some(header) = header else {
            self.complete = false;
            return Ok(None);
        };
        for r in 0..header.ngpus {
            if !seen.contains(&r) {
                self.invalid(
                    Place::line(algo.line),
                    format!(
                        "no <gpu id=\"{r}\">: the runtime runs no thread block on rank {r}, and its peers wait for it"
                    ),
                );
            }
        }
        gpus.sort_by_key(|g| g.id);
        let program = Program { header, gpus };
        self.dependencies(&program);
        Ok(Some(program))
    }

    fn thread_blocks(&mut self, g: &Element, h: &Header, gpu: &mut Gpu) {
        let rt = self.runtime;
        let id = gpu.id;
        let mut exists = BTreeSet::new();
        // Per channel, the thread blocks with a send (receive) peer parsed so far: the
        // runtime counts them as it goes and checks at each send (receive) step.
        let mut senders: BTreeMap<u32, u32> = BTreeMap::new();
        let mut receivers: BTreeMap<u32, u32> = BTreeMap::new();
        let mut users: BTreeMap<(u32, u32, bool), u32> = BTreeMap::new();
        for t in g.children.iter().filter(|e| e.name == "tb") {
            let at = Place::gpu(t.line, id);
            let (bid, recv, send, chan) =
                (self.int(t, "id", at), self.int(t, "recv", at), self.int(t, "send", at), self.int(t, "chan", at));
            let (Some(bid), Some(recv), Some(send), Some(chan)) = (bid, recv, send, chan) else {
                self.complete = false;
                continue;
            };
            if bid < 0 {
                self.invalid(at, format!("MSCCL: bid must be not negative. bid: {bid}"));
                self.complete = false;
                continue;
            }
            let at = Place::tb(t.line, id, bid as u32);
            if bid as u32 >= rt.max_tbs() {
                self.invalid(
                    at,
                    format!("MSCCL: too many thread blocks are requested. Max thread blocks: {}", rt.max_tbs()),
                );
                self.complete = false;
                continue;
            }
            if !exists.insert(bid as u32) {
                self.invalid(at, format!("MSCCL: duplicate thread block id {bid} for MSCCL"));
                self.complete = false;
                continue;
            }
            let mut ok = true;
            if recv == id as i32 || send == id as i32 {
                self.invalid(at, format!("MSCCL: peer ({recv},{send}) and gpu id ({id}) must be different"));
                ok = false;
            }
            if recv < -1 || send < -1 {
                self.invalid(
                    at,
                    format!("MSCCL: wrong recvPeer ({recv}) or sendPeer ({send}) in thread block {bid} on gpu {id}"),
                );
                ok = false;
            }
            for (what, p) in [("send", send), ("recv", recv)] {
                if p >= h.ngpus as i32 {
                    let msg = format!("{what}={p}: no such rank in a {}-rank program", h.ngpus);
                    if rt.checks_peer_range() {
                        self.invalid(at, msg);
                    } else {
                        self.invalid(at, format!("{msg}; the runtime does not check it and connects to nothing"));
                    }
                    ok = false;
                }
            }
            if chan < 0 || chan as u32 > rt.max_channels() {
                self.invalid(at, format!("MSCCL: threadblock {bid} on GPU {id} has an invalid channel {chan}"));
                ok = false;
            } else if chan as u32 == rt.max_channels() {
                self.invalid(
                    at,
                    format!("chan={chan}: the runtime accepts a channel equal to MAXCHANNELS ({}) and indexes past its channel table", rt.max_channels()),
                );
            } else if chan as u32 >= h.nchannels {
                self.invalid(at, format!("chan={chan} but nchannels={}: the runtime never sets up this channel's connections (a hang or a crash)", h.nchannels));
            }
            if !ok {
                self.complete = false;
                continue;
            }
            let chan = chan as u32;
            let send = u32::try_from(send).ok();
            let recv = u32::try_from(recv).ok();
            for (peer, dir) in [(send, true), (recv, false)] {
                if let Some(p) = peer
                    && let Some(other) = users.insert((chan, p, dir), bid as u32)
                {
                    {
                        self.invalid(
                            at,
                            format!(
                                "tb {other} and tb {bid} both {} gpu {p} on channel {chan}: they share one connection and their messages interleave",
                                if dir { "send to" } else { "receive from" }
                            ),
                        );
                    }
                }
            }
            let mut tb = ThreadBlock { id: bid as u32, send, recv, chan, steps: Vec::new(), line: t.line };
            self.steps(
                t,
                gpu,
                &mut tb,
                senders.get(&chan).copied().unwrap_or(0),
                receivers.get(&chan).copied().unwrap_or(0),
            );
            if send.is_some() {
                *senders.entry(chan).or_default() += 1;
            }
            if recv.is_some() {
                *receivers.entry(chan).or_default() += 1;
            }
            gpu.tbs.push(tb);
        }
        for (expect, &b) in (0u32..).zip(&exists) {
            if b != expect {
                self.invalid(Place::gpu(g.line, id), format!("MSCCL: thread block {expect} is missing"));
                self.complete = false;
                break;
            }
        }
    }

    fn raw_step(&mut self, e: &Element, at: Place) -> Option<RawStep> {
        let s = self.int(e, "s", at);
        let srcoff = self.int(e, "srcoff", at);
        let srcbuf = self.text(e, "srcbuf", at);
        let dstoff = self.int(e, "dstoff", at);
        let dstbuf = self.text(e, "dstbuf", at);
        let count = self.int(e, "cnt", at);
        let ty = self.text(e, "type", at);
        let depid = self.int(e, "depid", at);
        let deps = self.int(e, "deps", at);
        let hasdep = self.int(e, "hasdep", at);
        let (
            Some(s),
            Some(srcoff),
            Some(srcbuf),
            Some(dstoff),
            Some(dstbuf),
            Some(count),
            Some(ty),
            Some(depid),
            Some(deps),
            Some(hasdep),
        ) = (s, srcoff, srcbuf, dstoff, dstbuf, count, ty, depid, deps, hasdep)
        else {
            return None;
        };
        let rt = self.runtime;
        let mut ok = true;
        if s >= rt.max_steps() as i32 {
            let key = (at.gpu.unwrap_or(0), at.tb.unwrap_or(0), "steps");
            self.invalid_once(
                key,
                at,
                format!("MSCCL: too many steps are requested. Max number of steps: {}, requested: {} (and on every later step of this thread block)", rt.max_steps(), s + 1),
            );
        }
        if s < 0 {
            self.invalid(at, format!("MSCCL: step must be positive: step {s}"));
            ok = false;
        }
        let kind = match StepKind::from_xml(ty) {
            Some(StepKind::ResAdd) if !rt.accepts_res_add() => None,
            Some(k) => Some(k),
            None => None,
        };
        let Some(kind) = kind else {
            self.invalid(at, format!("MSCCL: type of transfer is not supported: {ty}"));
            return None;
        };
        let buffer = |b: &str| match b {
            "i" => Some(Buffer::Input),
            "o" => Some(Buffer::Output),
            "s" => Some(Buffer::Scratch),
            _ => None,
        };
        let (sb, db) = (buffer(srcbuf), buffer(dstbuf));
        for (b, text) in [(sb, srcbuf), (db, dstbuf)] {
            if b.is_none() {
                self.invalid(at, format!("type of buffer is not supported: {text}"));
            }
        }
        let (Some(sb), Some(db)) = (sb, db) else { return None };
        if kind != StepKind::Nop {
            if count < 0 || count as u32 >= rt.max_count() {
                self.invalid(at, format!("MSCCL: count ({count}) must be positive and less than {}", rt.max_count()));
                ok = false;
            }
            if hasdep != 0 && hasdep != 1 {
                self.invalid(at, format!("MSCCL: hasDependence needs to be 0 or 1, but it was {hasdep}"));
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        Some(RawStep { s, kind, src: (sb, srcoff), dst: (db, dstoff), count, depid, deps, hasdep })
    }

    fn steps(&mut self, t: &Element, gpu: &Gpu, tb: &mut ThreadBlock, senders: u32, receivers: u32) {
        let rt = self.runtime;
        let (id, bid) = (gpu.id, tb.id);
        for (pos, e) in t.children.iter().filter(|e| e.name == "step").enumerate() {
            let at = Place::step(e.line, id, bid, pos as u32);
            let Some(raw) = self.raw_step(e, at) else {
                self.complete = false;
                continue;
            };
            if raw.s as usize != pos {
                self.warn(
                    at,
                    format!(
                        "s=\"{}\" but this is step {pos} of the thread block: the runtime numbers steps by position",
                        raw.s
                    ),
                );
            }
            if pos as u32 >= rt.max_steps() && (raw.s as u32) < rt.max_steps() {
                self.invalid(
                    at,
                    format!("step {pos} of a thread block: the runtime's step table holds {} and this one is written past it", rt.max_steps()),
                );
            }
            let k = raw.kind;
            if k.sends() && tb.send.is_none() {
                self.invalid(
                    at,
                    format!("MSCCL: there is a send in thread block {bid} on GPU {id} without a sendPeer."),
                );
            }
            if k.receives() && tb.recv.is_none() {
                self.invalid(
                    at,
                    format!("MSCCL: there is a recv in thread block {bid} on GPU {id} without a recvPeer."),
                );
            }
            if k != StepKind::Nop {
                if k.sends() && senders >= rt.max_tbs_per_channel() {
                    self.invalid_once(
                        (id, tb.chan, "sends"),
                        at,
                        format!("MSCCL: too many sends per channel. Max allowed {} (channel {} has more than that many thread blocks with a send peer from tb {bid} on)", rt.max_tbs_per_channel(), tb.chan),
                    );
                }
                if k.receives() && receivers >= rt.max_tbs_per_channel() {
                    self.invalid_once(
                        (id, tb.chan, "recvs"),
                        at,
                        format!("MSCCL: too many recvs per channel. Max allowed {} (channel {} has more than that many thread blocks with a receive peer from tb {bid} on)", rt.max_tbs_per_channel(), tb.chan),
                    );
                }
            }
            self.bounds(&raw, gpu, at);
            if k == StepKind::ResAdd {
                self.invalid(
                    at,
                    "type=\"ra\": the parser accepts it but no interpreter runs it, and the thread block stops there"
                        .into(),
                );
            }
            if k.is_fused() && !rt.runs_fused_steps() {
                self.invalid(
                    at,
                    format!("type=\"{k}\": RCCL's kernels are built without fused steps and the launch fails (\"this version of MSCCL build doesn't support full Ops\"); lower it to r, re/cpy and s"),
                );
            }
            if raw.count == 0 && k != StepKind::Nop {
                self.warn(at, "cnt=\"0\": the step moves nothing (it still publishes hasdep)".into());
            }
            let slot = |(buf, off): (Buffer, i32)| Slot { buf, off: u32::try_from(off).ok() };
            let dep =
                if raw.depid >= 0 { Some(Dep { tb: raw.depid as u32, step: raw.deps.max(0) as u32 }) } else { None };
            if raw.depid >= 0 && raw.deps < 0 {
                self.invalid(
                    at,
                    format!(
                        "depid={} with deps={}: the runtime waits for a step number below zero",
                        raw.depid, raw.deps
                    ),
                );
            }
            if raw.depid >= 128 {
                self.invalid(
                    at,
                    format!(
                        "depid={}: the runtime stores it in 8 bits and waits on thread block {}",
                        raw.depid, raw.depid as i8
                    ),
                );
            }
            tb.steps.push(Step {
                s: raw.s.max(0) as u32,
                kind: k,
                src: slot(raw.src),
                dst: slot(raw.dst),
                count: raw.count.max(0) as u32,
                dep,
                has_dep: raw.hasdep == 1,
                line: e.line,
            });
        }
    }

    /// Offsets against buffer sizes: the sides the runtime checks are errors it
    /// reports; a side it uses without checking, or a count running past the end, is
    /// memory the step reads or writes outside the buffer.
    fn bounds(&mut self, raw: &RawStep, gpu: &Gpu, at: Place) {
        let k = raw.kind;
        let (check_src, check_dst) = match k {
            StepKind::Send => (true, false),
            StepKind::Recv | StepKind::RecvCopySend => (false, true),
            StepKind::RecvReduceSend => (true, false),
            StepKind::RecvReduceCopy => (false, false),
            StepKind::RecvReduceCopySend | StepKind::Copy | StepKind::Reduce => (true, true),
            StepKind::Nop | StepKind::ResAdd => (false, false),
        };
        for (side, (buf, off), checked, used) in
            [("src", raw.src, check_src, k.reads_src()), ("dst", raw.dst, check_dst, k.writes_dst())]
        {
            let n = gpu.chunks(buf) as i64;
            let off = i64::from(off);
            if checked && (off < -1 || off >= n) {
                self.invalid(
                    at,
                    format!("Incorrect offset set for {} buffer: offset: {off} maximum allowed: {n}", buf.name()),
                );
                continue;
            }
            if !used {
                continue;
            }
            if off < 0 {
                self.invalid(
                    at,
                    format!(
                        "{side}off={off} on the {} buffer, which this step uses: it addresses memory before the buffer",
                        buf.name()
                    ),
                );
            } else if off >= n {
                self.invalid(
                    at,
                    format!("{side}off={off} but the {} buffer has {n} chunks: the runtime does not check this side for {k} and goes outside the buffer", buf.name()),
                );
            } else if off + i64::from(raw.count) > n {
                self.invalid(
                    at,
                    format!("{side}off={off} cnt={} runs past the {} buffer's {n} chunks (the runtime checks the first chunk only)", raw.count, buf.name()),
                );
            }
        }
    }

    /// Dependencies against the thread blocks they name.
    fn dependencies(&mut self, p: &Program) {
        for g in &p.gpus {
            for t in &g.tbs {
                for (pos, s) in t.steps.iter().enumerate() {
                    let Some(d) = s.dep else { continue };
                    let at = Place::step(s.line, g.id, t.id, pos as u32);
                    match g.tb(d.tb) {
                        None => self.invalid(
                            at,
                            format!(
                                "depid={}: gpu {} has no thread block {}, so the step waits forever",
                                d.tb, g.id, d.tb
                            ),
                        ),
                        Some(target) if target.id == t.id => {
                            if d.step as usize >= pos {
                                self.invalid(at, format!("waits on step {} of its own thread block, which has not run yet: it waits forever", d.step));
                            }
                        }
                        Some(_) => {}
                    }
                }
            }
        }
    }
}
