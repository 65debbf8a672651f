//! NCCL topology XML: reading, writing and linting.
//!
//! The tree is an arena of elements in document order, the way NCCL keeps it: several
//! NCCL rules depend on that order (the first `net` with a given name, the order in which
//! children are turned into nodes and links). Attribute values are kept verbatim, in file
//! order, so that writing a file in NCCL's own form gives the same bytes back.
//!
//! Reading is more tolerant than NCCL's hand-written parser (an `<?xml?>` declaration,
//! tabs, comments, single quotes are all fine here), but each place where NCCL would
//! fail, or would silently read something other than what the file says, produces a
//! [`Diagnostic`] with the line it concerns.

use std::path::{Path, PathBuf};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::error::Error;
use crate::release::XmlLimits;

/// Index of an element in an [`Xml`] arena.
pub type NodeId = usize;

/// Largest topology file we agree to read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Deepest nesting of elements topo reads. NCCL's trees are a few levels deep (system,
/// cpu, a handful of PCIe switches, a device, its links); deeper input is refused
/// rather than walked.
pub const MAX_DEPTH: usize = 256;
/// NCCL keeps at most this many attributes per element (`MAX_ATTR_COUNT`).
pub const NCCL_MAX_ATTRS: usize = 16;
/// NCCL truncates names and values to this many characters (`MAX_STR_LEN`).
pub const NCCL_MAX_STR: usize = 255;
/// NCCL 2.30 keeps at most this many children per element (`MAX_SUBS`; older releases:
/// [`crate::release::XmlLimits`]).
pub const NCCL_MAX_SUBS: usize = 640;
/// NCCL 2.30 sizes a rank's topology XML for this many elements (`NCCL_TOPO_XML_MAX_NODES`).
pub const NCCL_MAX_NODES: usize = 256;

/// One element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    /// Attributes in file order, values verbatim (entities are not decoded, as in NCCL).
    pub attrs: Vec<(String, String)>,
    pub children: Vec<NodeId>,
    pub parent: Option<NodeId>,
    /// 1-based line of the start tag; 0 for elements made by the program.
    pub line: u32,
    /// Removed elements stay in the arena (NCCL keeps them too) but are unlinked.
    pub removed: bool,
}

/// An XML document: an arena whose first element is the root.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Xml {
    pub nodes: Vec<Element>,
}

pub use crate::notice::{Diagnostic, Severity};

impl Xml {
    /// A document holding only `<system version="1">`.
    pub fn new_system() -> Xml {
        let mut xml = Xml::default();
        let root = xml.add(None, "system");
        xml.set_attr(root, "version", "1");
        xml
    }

    /// The root element (the first one read).
    pub fn root(&self) -> Option<NodeId> {
        if self.nodes.is_empty() { None } else { Some(0) }
    }

    pub fn name(&self, id: NodeId) -> &str {
        &self.nodes[id].name
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].parent
    }

    pub fn children(&self, id: NodeId) -> &[NodeId] {
        &self.nodes[id].children
    }

    /// Children with a given element name, in order.
    pub fn children_named<'a>(&'a self, id: NodeId, name: &'a str) -> impl Iterator<Item = NodeId> + 'a {
        self.nodes[id].children.iter().copied().filter(move |&c| self.nodes[c].name == name)
    }

    /// First child with that name (NCCL's `xmlGetSub`).
    pub fn child_named(&self, id: NodeId, name: &str) -> Option<NodeId> {
        self.children_named(id, name).next()
    }

    pub fn attr(&self, id: NodeId, key: &str) -> Option<&str> {
        self.nodes[id].attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    pub fn line(&self, id: NodeId) -> u32 {
        self.nodes[id].line
    }

    /// Set an attribute, replacing its value in place or appending it.
    pub fn set_attr(&mut self, id: NodeId, key: &str, value: impl Into<String>) {
        let value = value.into();
        let attrs = &mut self.nodes[id].attrs;
        match attrs.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => attrs.push((key.to_string(), value)),
        }
    }

    /// Set an attribute only when it is absent (NCCL's `xmlInitAttr*`).
    pub fn init_attr(&mut self, id: NodeId, key: &str, value: impl Into<String>) {
        if self.attr(id, key).is_none() {
            self.set_attr(id, key, value);
        }
    }

    pub fn unset_attr(&mut self, id: NodeId, key: &str) {
        self.nodes[id].attrs.retain(|(k, _)| k != key);
    }

    /// Append a new element under `parent` (or a detached root when `None`).
    pub fn add(&mut self, parent: Option<NodeId>, name: &str) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Element {
            name: name.to_string(),
            attrs: Vec::new(),
            children: Vec::new(),
            parent,
            line: 0,
            removed: false,
        });
        if let Some(p) = parent {
            self.nodes[p].children.push(id);
        }
        id
    }

    /// Unlink an element from its parent. It stays in the arena, marked removed.
    pub fn remove(&mut self, id: NodeId) {
        self.nodes[id].removed = true;
        if let Some(p) = self.nodes[id].parent {
            self.nodes[p].children.retain(|&c| c != id);
        }
    }

    /// Copy the subtree at `src_id` of `src` under `parent` of `self`; returns the new id.
    pub fn copy_tree(&mut self, parent: Option<NodeId>, src: &Xml, src_id: NodeId) -> NodeId {
        let id = self.add(parent, &src.nodes[src_id].name);
        self.nodes[id].attrs = src.nodes[src_id].attrs.clone();
        self.nodes[id].line = src.nodes[src_id].line;
        for &c in &src.nodes[src_id].children {
            self.copy_tree(Some(id), src, c);
        }
        id
    }

    /// The live elements in document (pre-)order, starting at the root.
    pub fn preorder(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        if let Some(r) = self.root() {
            let mut stack = vec![r];
            while let Some(n) = stack.pop() {
                out.push(n);
                for &c in self.nodes[n].children.iter().rev() {
                    stack.push(c);
                }
            }
        }
        out
    }

    /// First element, in arena order, with this name and attribute value (NCCL's
    /// `xmlFindTagKv`, which also looks at removed elements).
    pub fn find_tag_kv(&self, name: &str, key: &str, value: &str) -> Option<NodeId> {
        (0..self.nodes.len()).find(|&i| self.nodes[i].name == name && self.attr(i, key) == Some(value))
    }

    /// First element in arena order with this name (NCCL's `xmlFindTag`).
    pub fn find_tag(&self, name: &str) -> Option<NodeId> {
        (0..self.nodes.len()).find(|&i| self.nodes[i].name == name)
    }

    /// Live descendants of `id` (not `id` itself) with the given name, in document order.
    pub fn descendants_named(&self, id: NodeId, name: &str) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack: Vec<NodeId> = self.nodes[id].children.iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            if self.nodes[n].name == name {
                out.push(n);
            }
            for &c in self.nodes[n].children.iter().rev() {
                stack.push(c);
            }
        }
        out
    }

    /// Nearest ancestor (not `id` itself) with the given element name.
    pub fn ancestor_named(&self, id: NodeId, name: &str) -> Option<NodeId> {
        let mut cur = self.nodes[id].parent;
        while let Some(c) = cur {
            if self.nodes[c].name == name {
                return Some(c);
            }
            cur = self.nodes[c].parent;
        }
        None
    }

    /// Number of live elements.
    pub fn live_count(&self) -> usize {
        self.preorder().len()
    }
}

/// Parse a topology (or graph) XML document from text. `file` names it in messages.
pub fn parse(text: &str, file: Option<&Path>) -> Result<(Xml, Vec<Diagnostic>), Error> {
    let fname = file.map(|p| p.display().to_string());
    let mut diags = Vec::new();
    // A byte-order mark is read as text before the first element by NCCL's parser; the
    // offsets below are counted in the text after it.
    let bom = text.starts_with('\u{feff}');
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if bom {
        diags.push(Diagnostic {
            severity: Severity::Warning,
            file: fname.clone(),
            line: 1,
            message: "byte-order mark at the start: NCCL's XML parser does not expect one; topo skips it".into(),
        });
    }
    let line_starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let line_of = |offset: usize| -> u32 {
        match line_starts.binary_search(&offset) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    };
    let col_of = |offset: usize| -> u32 {
        let l = line_of(offset) as usize;
        (offset - line_starts[l - 1]) as u32 + 1
    };
    let warn = |diags: &mut Vec<Diagnostic>, line: u32, message: String| {
        diags.push(Diagnostic { severity: Severity::Warning, file: fname.clone(), line, message });
    };
    let syntax = |offset: usize, message: String| Error::XmlSyntax {
        file: fname.clone().unwrap_or_else(|| "<input>".into()),
        line: line_of(offset),
        column: col_of(offset),
        message,
    };

    if let Some(l) = text.lines().position(|l| l.starts_with('\t') || l.trim_start_matches(' ').starts_with('\t')) {
        warn(
            &mut diags,
            l as u32 + 1,
            "tab in indentation: NCCL's XML parser accepts only spaces and newlines between elements and fails here"
                .into(),
        );
    }

    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(false);
    reader.config_mut().check_end_names = true;
    let mut xml = Xml::default();
    let mut stack: Vec<NodeId> = Vec::new();
    let mut saw_root = false;
    loop {
        let pos = reader.buffer_position() as usize;
        let ev = match reader.read_event() {
            Ok(ev) => ev,
            Err(e) => {
                let at = reader.error_position() as usize;
                return Err(syntax(at, e.to_string()));
            }
        };
        // Offset of the start of this event (skip leading whitespace of the chunk).
        let rest = text.get(pos..).unwrap_or("");
        let start = pos + rest.len() - rest.trim_start().len();
        match ev {
            Event::Start(e) => {
                let id = open_element(
                    &mut xml,
                    &e,
                    &stack,
                    start,
                    &mut saw_root,
                    &syntax,
                    &mut diags,
                    &fname,
                    line_of(start),
                )?;
                if stack.len() >= MAX_DEPTH {
                    return Err(syntax(
                        start,
                        format!(
                            "elements nested deeper than {MAX_DEPTH} levels (NCCL's topology trees are a few levels deep)"
                        ),
                    ));
                }
                stack.push(id);
            }
            Event::Empty(e) => {
                open_element(&mut xml, &e, &stack, start, &mut saw_root, &syntax, &mut diags, &fname, line_of(start))?;
            }
            Event::End(_) => {
                stack.pop();
            }
            Event::Text(t) => {
                let raw = lossy(&*t);
                if !raw.trim().is_empty() {
                    warn(
                        &mut diags,
                        line_of(start),
                        format!(
                            "text '{}' between elements is ignored (NCCL's parser fails on it)",
                            raw.trim().chars().take(40).collect::<String>()
                        ),
                    );
                }
            }
            Event::CData(_) => warn(&mut diags, line_of(start), "CDATA section ignored".into()),
            Event::Comment(_) => {}
            Event::Decl(_) => warn(
                &mut diags,
                line_of(start),
                "XML declaration: NCCL's parser reads '<?xml' as an element and fails; topo writes files without it"
                    .into(),
            ),
            Event::PI(_) => {
                warn(&mut diags, line_of(start), "processing instruction ignored (NCCL fails on it)".into())
            }
            Event::DocType(_) => warn(&mut diags, line_of(start), "DOCTYPE ignored (NCCL fails on it)".into()),
            Event::GeneralRef(_) => {}
            Event::Eof => break,
        }
    }
    if let Some(&open) = stack.last() {
        return Err(syntax(
            text.len(),
            format!("end of file inside <{}> opened on line {}", xml.nodes[open].name, xml.nodes[open].line),
        ));
    }
    if xml.nodes.is_empty() {
        return Err(syntax(text.len(), "no element found".into()));
    }
    Ok((xml, diags))
}

fn lossy<B: AsRef<[u8]> + ?Sized>(b: &B) -> String {
    String::from_utf8_lossy(b.as_ref()).into_owned()
}

#[allow(clippy::too_many_arguments)]
fn open_element(
    xml: &mut Xml,
    e: &BytesStart<'_>,
    stack: &[NodeId],
    start: usize,
    saw_root: &mut bool,
    syntax: &dyn Fn(usize, String) -> Error,
    diags: &mut Vec<Diagnostic>,
    fname: &Option<String>,
    line: u32,
) -> Result<NodeId, Error> {
    let name = lossy(e.name().as_ref());
    let parent = stack.last().copied();
    if parent.is_none() {
        if *saw_root {
            return Err(syntax(start, format!("second top-level element <{name}>: a file holds one <system>")));
        }
        *saw_root = true;
    }
    let id = xml.add(parent, &name);
    xml.nodes[id].line = line;
    for attr in e.attributes().with_checks(false) {
        let attr = attr.map_err(|err| syntax(start, format!("bad attribute in <{name}>: {err}")))?;
        let key = lossy(attr.key.as_ref());
        let value = attr.value.to_string();
        if xml.attr(id, &key).is_some() {
            diags.push(Diagnostic {
                severity: Severity::Warning,
                file: fname.clone(),
                line,
                message: format!("<{name}> repeats attribute '{key}': NCCL and topo use the first value"),
            });
            continue;
        }
        xml.nodes[id].attrs.push((key, value));
    }
    Ok(id)
}

/// Write a document the way NCCL writes it: two-space indent, attributes in order,
/// `/>` for childless elements, no declaration, one trailing newline.
pub fn write(xml: &Xml) -> String {
    let mut out = String::new();
    if let Some(r) = xml.root() {
        write_rec(xml, r, 0, &mut out);
    }
    out
}

/// Write the subtree at `id` (used for fragments and tests).
pub fn write_node(xml: &Xml, id: NodeId) -> String {
    let mut out = String::new();
    write_rec(xml, id, 0, &mut out);
    out
}

fn write_rec(xml: &Xml, id: NodeId, indent: usize, out: &mut String) {
    let n = &xml.nodes[id];
    out.extend(std::iter::repeat_n(' ', indent));
    out.push('<');
    out.push_str(&n.name);
    for (k, v) in &n.attrs {
        out.push(' ');
        out.push_str(k);
        out.push_str("=\"");
        if v.contains('"') {
            out.push_str(&v.replace('"', "&quot;"));
        } else {
            out.push_str(v);
        }
        out.push('"');
    }
    if n.children.is_empty() {
        out.push_str("/>\n");
    } else {
        out.push_str(">\n");
        for &c in &n.children {
            write_rec(xml, c, indent + 2, out);
        }
        out.extend(std::iter::repeat_n(' ', indent));
        out.push_str("</");
        out.push_str(&n.name);
        out.push_str(">\n");
    }
}

/// Where a topology came from, for messages.
#[derive(Debug, Clone)]
pub struct Source {
    pub path: Option<PathBuf>,
    pub label: String,
}

/// Read a topology file from disk, refusing files over [`MAX_FILE_BYTES`].
pub fn read_file(path: &Path) -> Result<(Xml, Vec<Diagnostic>), Error> {
    let bytes = crate::fileio::read_capped(path, MAX_FILE_BYTES, "a topology file")?;
    let text = String::from_utf8(bytes).map_err(|e| Error::Input {
        file: path.display().to_string(),
        message: format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
    })?;
    parse(&text, Some(path))
}

const KNOWN_CHILDREN: &[(&str, &[&str])] = &[
    ("system", &["cpu"]),
    ("cpu", &["pci", "nic"]),
    ("pci", &["pci", "gpu", "nic", "pcilink"]),
    ("gpu", &["nvlink", "c2c"]),
    ("nic", &["net"]),
];

/// Whether NCCL's topology loader reads `child` under `parent` (unknown ones it skips).
pub fn nccl_reads(parent: &str, child: &str) -> bool {
    KNOWN_CHILDREN.iter().any(|(p, cs)| *p == parent && cs.contains(&child))
}

/// The PCIe generation strings NCCL knows, with per-lane speed in units of 100 Mb/s.
pub const PCI_GEN: &[(&str, i32)] = &[
    ("2.5 GT/s", 15),
    ("5 GT/s", 30),
    ("8 GT/s", 60),
    ("16 GT/s", 120),
    ("32 GT/s", 240),
    ("2.5 GT/s PCIe", 15),
    ("5.0 GT/s PCIe", 30),
    ("8.0 GT/s PCIe", 60),
    ("16.0 GT/s PCIe", 120),
    ("32.0 GT/s PCIe", 240),
    ("64.0 GT/s PCIe", 480),
];

/// NCCL's prefix lookup of a `link_speed` string; `None` when NCCL falls back to Gen3.
pub fn pci_gen_speed(s: &str) -> Option<i32> {
    PCI_GEN.iter().find(|(k, _)| s.starts_with(k)).map(|&(_, v)| v)
}

/// Check a topology document for what NCCL would reject or silently misread, within the
/// limits of the release modelled. Hard errors (wrong root or version) are returned as
/// `Err`.
pub fn lint_topology(xml: &Xml, file: Option<&Path>, limits: XmlLimits) -> Result<Vec<Diagnostic>, Error> {
    let fname = file.map(|p| p.display().to_string());
    let label = fname.clone().unwrap_or_else(|| "<input>".into());
    let mut out = Vec::new();
    let mut warn = |line: u32, message: String| {
        out.push(Diagnostic { severity: Severity::Warning, file: fname.clone(), line, message })
    };
    let root = xml.root().ok_or_else(|| Error::Input { file: label.clone(), message: "empty document".into() })?;
    if xml.name(root) != "system" {
        return Err(Error::Input {
            file: label,
            message: format!(
                "line {}: the top element is <{}>, expected <system version=\"1\">",
                xml.line(root),
                xml.name(root)
            ),
        });
    }
    match xml.attr(root, "version") {
        Some("1") => {}
        Some(v) => {
            let hint = if v == "2" { " (RCCL writes version 2; NCCL refuses it)" } else { "" };
            return Err(Error::Input {
                file: label,
                message: format!("line {}: <system version=\"{v}\">: NCCL reads only version 1{hint}", xml.line(root)),
            });
        }
        None => {
            return Err(Error::Input {
                file: label,
                message: format!(
                    "line {}: <system> has no version attribute; NCCL needs version=\"1\"",
                    xml.line(root)
                ),
            });
        }
    }
    let all = xml.preorder();
    if all.len() > limits.max_nodes {
        warn(
            0,
            format!(
                "{} elements: NCCL holds at most {} per rank and fails with 'too many XML nodes' (dumps keep only used devices)",
                all.len(),
                limits.max_nodes
            ),
        );
    }
    let mut busids: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for &id in &all {
        let n = &xml.nodes[id];
        let line = n.line;
        if n.attrs.len() > NCCL_MAX_ATTRS {
            warn(
                line,
                format!(
                    "<{}> has {} attributes: NCCL keeps the first {NCCL_MAX_ATTRS} and drops '{}'",
                    n.name,
                    n.attrs.len(),
                    n.attrs[NCCL_MAX_ATTRS..].iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join("', '")
                ),
            );
        }
        // From 2.27.3 such a value fails the init (model::validate refuses it).
        for (k, v) in &n.attrs {
            if !limits.values_checked && v.len() >= NCCL_MAX_STR - 1 {
                warn(
                    line,
                    format!(
                        "<{}> attribute '{k}' is {} bytes: this NCCL writes values of {} or more past the end of its \
                         {}-byte buffer (memory corruption; 2.27.3 and later refuse them)",
                        n.name,
                        v.len(),
                        NCCL_MAX_STR - 1,
                        NCCL_MAX_STR + 1
                    ),
                );
            }
        }
        if n.children.len() > limits.max_subs {
            let what = if limits.subs_checked { "fails" } else { "overruns its array (memory corruption)" };
            warn(
                line,
                format!("<{}> has {} children: NCCL {what} above {}", n.name, n.children.len(), limits.max_subs),
            );
        }
        if let Some(p) = n.parent
            && !nccl_reads(xml.name(p), &n.name)
        {
            warn(
                line,
                format!(
                    "<{}> inside <{}> is not read by NCCL (kept in the file, ignored by the model)",
                    n.name,
                    xml.name(p)
                ),
            );
        }
        match n.name.as_str() {
            "pci" => {
                match xml.attr(id, "busid") {
                    Some(b) => {
                        let key = b.to_ascii_lowercase();
                        if let Some(first) = busids.get(&key) {
                            warn(
                                line,
                                format!(
                                    "bus id {b} already used on line {first}: NCCL merges or confuses the two devices"
                                ),
                            );
                        } else {
                            busids.insert(key, line);
                        }
                        if b.chars().any(|c| c.is_ascii_uppercase()) {
                            warn(
                                line,
                                format!(
                                    "bus id {b} has upper-case letters: NCCL compares bus ids as lower-case strings"
                                ),
                            );
                        }
                    }
                    None => {
                        warn(line, "<pci> without busid: NCCL fails ('Attribute busid of node pci not found')".into())
                    }
                }
                if !n.children.is_empty() || xml.attr(id, "link_speed").is_some() {
                    match xml.attr(id, "link_speed") {
                        Some(s) if pci_gen_speed(s).is_none() => warn(
                            line,
                            format!("link_speed \"{s}\" is not a speed NCCL knows: it is read as Gen3 (8 GT/s)"),
                        ),
                        None if !xml.children(id).is_empty() => warn(
                            line,
                            "<pci> without link_speed: NCCL fails to read it ('Attribute link_speed of node pci not found')".into(),
                        ),
                        _ => {}
                    }
                    match xml.attr(id, "link_width") {
                        Some("0") => warn(line, "link_width=\"0\" is read by NCCL as x16".into()),
                        Some(w) if parse_c_int(w).is_none() => {
                            warn(line, format!("link_width \"{w}\" is not a number: NCCL reads it as 0, then as x16"))
                        }
                        _ => {}
                    }
                }
            }
            "gpu" => {
                if xml.attr(id, "rank").is_none() {
                    warn(
                        line,
                        "<gpu> without rank: NCCL skips this GPU's whole <pci> branch when it builds a system from this file; topo numbers ranks by dev".into(),
                    );
                }
                if xml.attr(id, "dev").is_none() {
                    warn(line, "<gpu> without dev (NVML index): topo cannot rank it and ignores it".into());
                }
                if xml.attr(id, "sm").is_none() {
                    warn(line, "<gpu> without sm: NCCL fails to read it".into());
                }
            }
            "net" => {
                if xml.attr(id, "dev").is_none() {
                    warn(
                        line,
                        format!(
                            "<net name=\"{}\"> without dev: NCCL does not add it to the system",
                            xml.attr(id, "name").unwrap_or("?")
                        ),
                    );
                }
                if let Some(s) = xml.attr(id, "speed")
                    && parse_c_int(s).is_none_or(|v| v <= 0)
                {
                    warn(line, format!("net speed \"{s}\": NCCL takes 10000 Mb/s (10 Gb/s) instead"));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Parse an integer the way C's `strtol(s, NULL, 0)` does on a whole, well-formed value
/// (decimal, `0x` hex, leading `0` octal, optional sign). `None` for anything else.
pub fn parse_c_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        i64::from_str_radix(&t[1..], 8).ok()?
    } else {
        t.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// C `strtol(s, NULL, 0)` semantics on arbitrary text: the longest valid prefix, 0 when none.
pub fn strtol(s: &str) -> i64 {
    let b = s.trim_start().as_bytes();
    let mut i = 0;
    let mut neg = false;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        neg = b[i] == b'-';
        i += 1;
    }
    let (radix, start) = if i + 1 < b.len()
        && b[i] == b'0'
        && (b[i + 1] == b'x' || b[i + 1] == b'X')
        && i + 2 < b.len()
        && b[i + 2].is_ascii_hexdigit()
    {
        (16, i + 2)
    } else if i < b.len() && b[i] == b'0' {
        (8, i)
    } else {
        (10, i)
    };
    let mut v: i64 = 0;
    let mut j = start;
    while j < b.len() {
        let d = match (b[j] as char).to_digit(radix) {
            Some(d) => d as i64,
            None => break,
        };
        v = v.saturating_mul(radix as i64).saturating_add(d);
        j += 1;
    }
    if neg { -v } else { v }
}

/// C `strtoull(s, NULL, 16)`: hex digits with an optional `0x` prefix.
pub fn strtoull_hex(s: &str) -> u64 {
    let t = s.trim_start();
    let t = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    let mut v: u64 = 0;
    for c in t.chars() {
        match c.to_digit(16) {
            Some(d) => v = v.wrapping_mul(16).wrapping_add(d as u64),
            None => break,
        }
    }
    v
}

/// C `sscanf(s, "0x%lx")`: the text must start with the two characters `0x`; then
/// `%lx` skips white space and takes an optional sign, an optional second `0x` and hex
/// digits. `None` when nothing was converted (the C variable keeps its value).
pub fn scan_prefixed_hex(s: &str) -> Option<u64> {
    let t = s.strip_prefix("0x")?.trim_start();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    if !digits.starts_with(|c: char| c.is_ascii_hexdigit()) {
        return None;
    }
    let v = strtoull_hex(digits);
    Some(if neg { v.wrapping_neg() } else { v })
}

/// C `strtof`: the longest float prefix, 0 when none. One pass finds the longest
/// prefix of the form Rust's `f32` parser takes (sign; `inf`, `infinity` or `nan`;
/// or digits with one optional point and an optional exponent with digits), which is
/// then parsed once: linear in the length, however long the text.
pub fn strtof(s: &str) -> f32 {
    let t = s.trim_start().as_bytes();
    let i = usize::from(matches!(t.first(), Some(b'+' | b'-')));
    let word = |i: usize, w: &str| t.len() >= i + w.len() && t[i..i + w.len()].eq_ignore_ascii_case(w.as_bytes());
    let end = if word(i, "infinity") {
        i + 8
    } else if word(i, "inf") || word(i, "nan") {
        i + 3
    } else {
        let digits = |mut j: usize| {
            while j < t.len() && t[j].is_ascii_digit() {
                j += 1;
            }
            j
        };
        let int_end = digits(i);
        let mut end = int_end;
        let mut any = int_end > i;
        if t.get(end) == Some(&b'.') {
            let frac_end = digits(end + 1);
            any |= frac_end > end + 1;
            end = frac_end;
        }
        if !any {
            0
        } else {
            if matches!(t.get(end), Some(b'e' | b'E')) {
                let mut j = end + 1;
                if matches!(t.get(j), Some(b'+' | b'-')) {
                    j += 1;
                }
                let exp_end = digits(j);
                if exp_end > j {
                    end = exp_end;
                }
            }
            end
        }
    };
    // The prefix is ASCII, so it ends on a character boundary.
    std::str::from_utf8(&t[..end]).ok().and_then(|p| p.parse().ok()).unwrap_or(0.0)
}

/// NCCL's `busIdToInt64`: the hex digits of a bus id, separators skipped, up to the
/// first other character.
pub fn busid_to_i64(s: &str) -> i64 {
    let mut hex = String::new();
    for c in s.chars() {
        if hex.len() >= 16 {
            break;
        }
        if c == '.' || c == ':' {
            continue;
        }
        if c.is_ascii_hexdigit() {
            hex.push(c);
        } else {
            break;
        }
    }
    // strtol saturates at i64::MAX on overflow.
    i64::from_str_radix(&hex, 16).unwrap_or(if hex.is_empty() { 0 } else { i64::MAX })
}

/// NCCL's `int64ToBusId`.
pub fn i64_to_busid(id: i64) -> String {
    let id = id as u64;
    format!("{:04x}:{:02x}:{:02x}.{:01x}", id >> 20, (id & 0xff000) >> 12, (id & 0xff0) >> 4, id & 0xf)
}

#[cfg(test)]
mod tests {
    #[test]
    fn scan_prefixed_hex_is_sscanf_0x_lx() {
        assert_eq!(super::scan_prefixed_hex("0x1f"), Some(0x1f));
        assert_eq!(super::scan_prefixed_hex("0x 1f"), Some(0x1f));
        assert_eq!(super::scan_prefixed_hex("1f"), None);
        assert_eq!(super::scan_prefixed_hex("31"), None);
        assert_eq!(super::scan_prefixed_hex("0x"), None);
        assert_eq!(super::scan_prefixed_hex("0xzz"), None);
        assert_eq!(super::scan_prefixed_hex("0x-1"), Some(u64::MAX));
    }

    use super::*;

    const SMALL: &str = "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\">\n    <pci busid=\"0000:01:00.0\" class=\"0x030000\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n      <gpu dev=\"0\" sm=\"80\" rank=\"0\" gdr=\"1\"/>\n    </pci>\n  </cpu>\n</system>\n";

    #[test]
    fn round_trip_is_byte_exact() {
        let (xml, diags) = parse(SMALL, None).unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(write(&xml), SMALL);
    }

    #[test]
    fn tolerant_reading_warns() {
        let text = "<?xml version=\"1.0\"?>\n<!-- c -->\n<system version='1'>\n\t<cpu numaid=\"0\"/>\n</system>\n";
        let (xml, diags) = parse(text, None).unwrap();
        assert_eq!(xml.attr(0, "version"), Some("1"));
        assert!(diags.iter().any(|d| d.message.contains("declaration")));
        assert!(diags.iter().any(|d| d.message.contains("tab")));
        assert_eq!(write(&xml), "<system version=\"1\">\n  <cpu numaid=\"0\"/>\n</system>\n");
    }

    #[test]
    fn a_byte_order_mark_is_skipped_with_a_warning() {
        let text = "\u{feff}<!--\n -->\n<system version=\"1\"><cpu numaid=\"0\" affinity=\"\u{663}\"/></system>\n";
        let (x, d) = parse(text, None).unwrap();
        assert_eq!(x.name(0), "system");
        assert!(d.iter().any(|d| d.message.contains("byte-order mark")), "{d:?}");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let depth = MAX_DEPTH + 1;
        let text = format!("<system version=\"1\">{}{}</system>", "<pci>".repeat(depth), "</pci>".repeat(depth));
        let e = parse(&text, None).unwrap_err().to_string();
        assert!(e.contains(&format!("nested deeper than {MAX_DEPTH}")), "{e}");
        let ok = format!("<system version=\"1\">{}{}</system>", "<pci>".repeat(10), "</pci>".repeat(10));
        assert!(parse(&ok, None).is_ok());
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let err =
            parse("<system version=\"1\">\n  <cpu>\n  </pci>\n</system>\n", Some(Path::new("t.xml"))).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("t.xml:3:"), "{msg}");
    }

    #[test]
    fn unterminated_document_is_an_error() {
        let err = parse("<system version=\"1\">\n  <cpu>\n", None).unwrap_err();
        assert!(err.to_string().contains("end of file"), "{err}");
    }

    #[test]
    fn lint_flags_nccl_misreadings() {
        let text = "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\" class=\"0x060400\" link_speed=\"Unknown\" link_width=\"0\">\n      <pci busid=\"0000:01:00.0\" class=\"0x030000\" link_speed=\"8 GT/s\" link_width=\"16\">\n        <gpu dev=\"0\" sm=\"80\"/>\n      </pci>\n    </pci>\n  </cpu>\n</system>\n";
        let (xml, _) = parse(text, None).unwrap();
        let d = lint_topology(&xml, None, Default::default()).unwrap();
        let all = d.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n");
        assert!(all.contains("line 3: link_speed \"Unknown\""), "{all}");
        assert!(all.contains("x16"), "{all}");
        assert!(all.contains("already used on line 3"), "{all}");
        assert!(all.contains("without rank"), "{all}");
    }

    /// The children limit is the release's: 2.20 overruns 32, 2.21 fails above 128,
    /// 2.29.7 above 640.
    #[test]
    fn lint_uses_the_releases_limits() {
        use crate::release::Release;
        let mut text = String::from("<system version=\"1\">\n  <cpu numaid=\"0\">\n");
        for i in 0..200 {
            text.push_str(&format!("    <pci busid=\"0000:{i:02x}:00.0\"/>\n"));
        }
        text.push_str("  </cpu>\n</system>\n");
        let (xml, _) = parse(&text, None).unwrap();
        let lint = |v: &str| {
            let d = lint_topology(&xml, None, Release::parse(v).unwrap().xml_limits()).unwrap();
            d.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n")
        };
        assert!(lint("2.20.5").contains("200 children: NCCL overruns its array (memory corruption) above 32"));
        assert!(lint("2.21.5").contains("200 children: NCCL fails above 128"));
        assert!(!lint("2.29.7").contains("children"));
    }

    #[test]
    fn wrong_version_is_an_error() {
        let (xml, _) = parse("<system version=\"2\"/>\n", None).unwrap();
        let err = lint_topology(&xml, None, Default::default()).unwrap_err();
        assert!(err.to_string().contains("version 1"), "{err}");
    }

    #[test]
    fn c_number_parsing() {
        assert_eq!(strtol("0x1f"), 31);
        assert_eq!(strtol("12abc"), 12);
        assert_eq!(strtol("-1"), -1);
        assert_eq!(strtol("010"), 8);
        assert_eq!(strtol("zz"), 0);
        assert_eq!(parse_c_int("16"), Some(16));
        assert_eq!(parse_c_int("x"), None);
        assert_eq!(strtoull_hex("0xa87cb10003e1a258"), 0xa87cb10003e1a258);
        assert_eq!(strtof("0.000000"), 0.0);
        assert_eq!(strtof("1.5us"), 1.5);
    }

    /// What `strtof` computes, by its definition: the longest prefix `f32` parses.
    /// Quadratic; the law below holds `strtof` to it.
    fn strtof_by_definition(s: &str) -> f32 {
        let t = s.trim_start();
        (1..=t.len()).rev().filter(|&i| t.is_char_boundary(i)).find_map(|i| t[..i].parse().ok()).unwrap_or(0.0)
    }

    #[test]
    fn strtof_is_the_longest_float_prefix() {
        for s in [
            "",
            " ",
            "+",
            "-",
            ".",
            "1.",
            ".5",
            "-.5e",
            "1e",
            "1e+",
            "1e+3x",
            "1.5.2",
            "2E-3",
            " \t7.25GB/s",
            "inf",
            "-Infinity!",
            "infin",
            "NaN",
            "nanx",
            "+-1",
            "0x1p3",
            "١٢",
            "12٣",
            "1e99",
            "5e-50",
            "e5",
            "--",
        ] {
            let (got, want) = (strtof(s), strtof_by_definition(s));
            assert!(got == want || (got.is_nan() && want.is_nan()), "{s:?}: {got} vs {want}");
        }
    }

    proptest::proptest! {
        #[test]
        fn strtof_agrees_with_its_definition(s in "[ +\\-.0-9eEinfatyINFATY x٣]{0,16}") {
            let (got, want) = (strtof(&s), strtof_by_definition(&s));
            proptest::prop_assert!(got == want || (got.is_nan() && want.is_nan()), "{:?}: {} vs {}", s, got, want);
        }
    }

    #[test]
    fn busid_conversions() {
        let id = busid_to_i64("0000:0f:00.0");
        assert_eq!(id, 0xf000);
        assert_eq!(i64_to_busid(id), "0000:0f:00.0");
        assert_eq!(i64_to_busid(busid_to_i64("0001:a8:1f.7")), "0001:a8:1f.7");
        assert_eq!(busid_to_i64("fffffff:ffff:ff"), 0xfffffffffffff);
    }
}
