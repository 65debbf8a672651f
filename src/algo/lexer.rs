//! MSCCL-IR text into a tree of elements, read twice over when needed: first by the
//! rules of the runtimes' own tokenizer (one hand-written tokenizer shared by
//! msccl-executor-nccl, RCCL and microsoft/msccl), whose every quirk decides whether
//! the runtime loads a file at all; then, when that tokenizer refuses the file, by a
//! real XML parser, so that the checker can still say what the author's program does.
//!
//! The runtime tokenizer, as its source behaves: elements only, no text content; only
//! space, `\n` and `\r` between elements; exactly one space before each attribute (a
//! newline or tab there ends the element badly); `name="value"` with nothing around
//! `=`; a value opens with `"` or `'` but always ends at the next `"`; entities are not
//! decoded; names of 254 bytes or more are refused; a value is copied into a 256-byte
//! buffer without a bound; comments are skipped anywhere a tag may start; `<?xml?>`
//! prologs and byte-order marks are refused.

use super::program::Collective;

/// An element and everything inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    /// Every attribute in the order written (the runtime keeps only the first 16).
    pub attrs: Vec<(String, String)>,
    pub line: u32,
    pub children: Vec<Element>,
    pub close: Close,
}

/// How an element ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Close {
    /// `<x .../>`
    Single,
    /// `</name>` (the name may differ from the element's: the loader decides whether
    /// the runtime notices).
    Tag { name: String, line: u32 },
    /// The file ended first.
    Unclosed,
}

/// A place where the runtime's tokenizer stops reading the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub line: u32,
    pub message: String,
}

/// What reading a file gave.
#[derive(Debug, Clone)]
pub struct Lexed {
    /// Top-level elements, from the runtime's tokenizer when it read the whole file,
    /// else from the lenient XML reader.
    pub roots: Vec<Element>,
    /// The runtime tokenizer's refusal, when it refused the file.
    pub runtime_error: Option<LexError>,
    /// Values longer than the runtime's 256-byte buffer: (line, attribute, length).
    pub long_values: Vec<(u32, String, usize)>,
}

/// Deeper nesting than this is no MSCCL-IR program (a real one is 4 deep).
pub const MAX_DEPTH: usize = 256;

/// Names this long or longer are refused by the runtime's tokenizer.
const MAX_NAME: usize = 254;
/// The runtime's value buffer holds 255 bytes and a terminator.
const VALUE_BUFFER: usize = 256;

/// Read `text` as the runtimes do; fall back to a lenient XML reading when they
/// refuse it. `Err` when neither reading gives elements (the message names the line).
pub fn lex(text: &[u8]) -> Result<Lexed, LexError> {
    let mut r = RuntimeLexer { text, pos: 0, line: 1, long_values: Vec::new() };
    match r.all() {
        Ok(roots) => Ok(Lexed { roots, runtime_error: None, long_values: r.long_values }),
        Err(e) => {
            if e.message.starts_with("nested deeper") {
                return Err(e);
            }
            match lenient(text) {
                Ok(roots) if !roots.is_empty() => {
                    Ok(Lexed { roots, runtime_error: Some(e), long_values: r.long_values })
                }
                Ok(_) => Err(e),
                Err(le) => Err(if e.line >= le.line { e } else { le }),
            }
        }
    }
}

enum Token {
    Open { name: String, attrs: Vec<(String, String)>, line: u32, single: bool },
    Close { name: String, line: u32 },
}

struct RuntimeLexer<'a> {
    text: &'a [u8],
    pos: usize,
    line: u32,
    long_values: Vec<(u32, String, usize)>,
}

fn show(c: u8) -> String {
    match c {
        b'\n' => "\\n".into(),
        b'\r' => "\\r".into(),
        b'\t' => "\\t".into(),
        0x20..=0x7e => (c as char).to_string(),
        _ => format!("\\x{c:02x}"),
    }
}

impl RuntimeLexer<'_> {
    fn err(&self, message: String) -> LexError {
        LexError { line: self.line, message }
    }

    fn next(&mut self) -> Result<u8, LexError> {
        let c = *self.text.get(self.pos).ok_or_else(|| self.err("XML Parse : Unexpected EOF".into()))?;
        self.pos += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Ok(c)
    }

    /// A name, then (when `value` is wanted and `=` follows) a quoted value; returns
    /// the name, the value and the byte that ended the token.
    fn token(&mut self, want_value: bool) -> Result<(String, Option<String>, u8), LexError> {
        let mut name = Vec::new();
        loop {
            let c = self.next()?;
            if c == b'=' {
                let name = String::from_utf8_lossy(&name).into_owned();
                if !want_value {
                    return Err(self.err(format!("XML Parse : Unexpected value with name {name}")));
                }
                let (value, last) = self.value(&name)?;
                return Ok((name, Some(value), last));
            }
            name.push(c);
            if name.len() == MAX_NAME + 1 {
                let shown = String::from_utf8_lossy(&name[..name.len() - 1]).into_owned();
                return Err(self.err(format!("Error : name {shown} too long (max 255)")));
            }
            if matches!(c, b' ' | b'>' | b'/' | b'\n' | b'\r') {
                name.pop();
                return Ok((String::from_utf8_lossy(&name).into_owned(), None, c));
            }
        }
    }

    fn value(&mut self, attr: &str) -> Result<(String, u8), LexError> {
        let line = self.line;
        let c = self.next()?;
        if c != b'"' && c != b'\'' {
            return Err(self.err("XML Parse : Expected (double) quote.".into()));
        }
        let mut v = Vec::new();
        loop {
            let c = self.next()?;
            if c == b'"' {
                break;
            }
            v.push(c);
        }
        if v.len() >= VALUE_BUFFER {
            self.long_values.push((line, attr.to_string(), v.len()));
        }
        let last = self.next()?;
        Ok((String::from_utf8_lossy(&v).into_owned(), last))
    }

    fn skip_comment(&mut self, start: &str, next: u8) -> Result<(), LexError> {
        let mut end = *b"...";
        let shift = |end: &mut [u8; 3], c: u8| {
            end[0] = end[1];
            end[1] = end[2];
            end[2] = c;
        };
        for c in start.bytes() {
            shift(&mut end, c);
        }
        shift(&mut end, next);
        while &end != b"-->" {
            let Some(&c) = self.text.get(self.pos) else {
                return Err(self.err("XML Parse error : unterminated comment".into()));
            };
            self.pos += 1;
            if c == b'\n' {
                self.line += 1;
            }
            shift(&mut end, c);
        }
        Ok(())
    }

    /// The next tag, or `None` at the end of the file.
    fn tag(&mut self) -> Result<Option<Token>, LexError> {
        loop {
            let c = loop {
                let Some(&c) = self.text.get(self.pos) else { return Ok(None) };
                self.pos += 1;
                match c {
                    b' ' | b'\r' => {}
                    b'\n' => self.line += 1,
                    _ => break c,
                }
            };
            let line = self.line;
            if c != b'<' {
                return Err(self.err(format!("XML Parse error : expecting '<', got '{}'", show(c))));
            }
            let (name, _, c) = self.token(false)?;
            if let Some(rest) = name.strip_prefix("!--") {
                self.skip_comment(rest, c)?;
                continue;
            }
            if name.is_empty() && c == b'/' {
                let (name, _, c) = self.token(false)?;
                if c != b'>' {
                    return Err(
                        self.err(format!("XML Parse error : unexpected trailing {} in closing tag {name}", show(c)))
                    );
                }
                return Ok(Some(Token::Close { name, line }));
            }
            let mut attrs = Vec::new();
            let mut c = c;
            while c == b' ' {
                let (key, value, last) = self.token(true)?;
                attrs.push((key, value.unwrap_or_default()));
                c = last;
            }
            let mut single = false;
            if c == b'/' {
                single = true;
                let (_, _, last) = self.token(false)?;
                c = last;
            }
            if c != b'>' {
                return Err(self.err(format!("XML Parse : expected >, got '{}'", show(c))));
            }
            return Ok(Some(Token::Open { name, attrs, line, single }));
        }
    }

    fn all(&mut self) -> Result<Vec<Element>, LexError> {
        build(|| self.tag())
    }
}

/// Elements from a stream of tags: a closing tag closes the innermost open element,
/// whatever its name (whether the runtime notices a wrong name depends on the rank
/// reading it; the loader decides).
fn build(mut next: impl FnMut() -> Result<Option<Token>, LexError>) -> Result<Vec<Element>, LexError> {
    let mut roots = Vec::new();
    let mut stack: Vec<Element> = Vec::new();
    let put = |stack: &mut Vec<Element>, roots: &mut Vec<Element>, e: Element| match stack.last_mut() {
        Some(top) => top.children.push(e),
        None => roots.push(e),
    };
    while let Some(tok) = next()? {
        match tok {
            Token::Open { name, attrs, line, single } => {
                let close = if single { Close::Single } else { Close::Unclosed };
                let e = Element { name, attrs, line, children: Vec::new(), close };
                if single {
                    put(&mut stack, &mut roots, e);
                } else {
                    if stack.len() >= MAX_DEPTH {
                        return Err(LexError { line, message: format!("nested deeper than {MAX_DEPTH} levels") });
                    }
                    stack.push(e);
                }
            }
            Token::Close { name, line } => {
                let Some(mut e) = stack.pop() else {
                    return Err(LexError {
                        line,
                        message: format!("XML Parse : closing tag </{name}> with no element open"),
                    });
                };
                e.close = Close::Tag { name, line };
                put(&mut stack, &mut roots, e);
            }
        }
    }
    if let Some(open) = stack.first() {
        let name = &stack.last().unwrap_or(open).name;
        return Err(LexError {
            line: stack.last().map_or(open.line, |e| e.line),
            message: format!("XML Parse : unterminated {name}"),
        });
    }
    Ok(roots)
}

/// A forgiving XML reading of what the runtime refused (prologs, tabs, attributes on
/// several lines, single quotes), for the checks that come after the refusal.
fn lenient(text: &[u8]) -> Result<Vec<Element>, LexError> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(text);
    reader.config_mut().check_end_names = false;
    // Lines by binary search in the newlines' offsets: counting from the start at every
    // element made a large refused file quadratic (26 s for 2 MB).
    let newlines: Vec<usize> = text.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i).collect();
    let line_at = |pos: usize| 1 + newlines.partition_point(|&p| p < pos) as u32;
    let mut buf = Vec::new();
    let mut pending: Option<Token> = None;
    let mut done = false;
    build(|| {
        if let Some(t) = pending.take() {
            return Ok(Some(t));
        }
        if done {
            return Ok(None);
        }
        loop {
            buf.clear();
            let pos = reader.buffer_position() as usize;
            let ev = reader.read_event_into(&mut buf).map_err(|e| LexError {
                line: line_at(reader.error_position() as usize),
                message: format!("not well-formed XML: {e}"),
            })?;
            let open = |e: &quick_xml::events::BytesStart, single: bool| -> Result<Token, LexError> {
                let name = lossy(e.name().as_ref());
                let mut attrs = Vec::new();
                for a in e.attributes().with_checks(false) {
                    let a = a.map_err(|err| LexError {
                        line: line_at(pos),
                        message: format!("not well-formed XML: {err}"),
                    })?;
                    let key = lossy(a.key.as_ref());
                    let value = a.value.to_string();
                    attrs.push((key, value));
                }
                Ok(Token::Open { name, attrs, line: line_at(pos), single })
            };
            match ev {
                Event::Start(e) => return open(&e, false).map(Some),
                Event::Empty(e) => return open(&e, true).map(Some),
                Event::End(e) => {
                    let name = lossy(e.name().as_ref());
                    return Ok(Some(Token::Close { name, line: line_at(pos) }));
                }
                Event::Eof => {
                    done = true;
                    return Ok(None);
                }
                Event::Text(t) if !lossy(&*t).trim().is_empty() => {
                    return Err(LexError { line: line_at(pos), message: "text between elements".into() });
                }
                _ => {}
            }
        }
    })
}

fn lossy<B: AsRef<[u8]> + ?Sized>(b: &B) -> String {
    String::from_utf8_lossy(b.as_ref()).into_owned()
}

/// The runtime's `strtol(s, NULL, 0)` stored into an `int`: leading white space, a
/// sign, `0x` hex or a leading `0` for octal, digits until the first that does not
/// belong, 0 when there are none; out-of-range values saturate as `long`, then keep
/// their low 32 bits as the `int` assignment does.
pub fn c_int(s: &str) -> i32 {
    c_long(s) as i32
}

/// `strtoll(s, NULL, 0)`.
pub fn c_long(s: &str) -> i64 {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let mut radix = 10;
    if i + 1 < b.len()
        && b[i] == b'0'
        && (b[i + 1] == b'x' || b[i + 1] == b'X')
        && b.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        radix = 16;
        i += 2;
    } else if i < b.len() && b[i] == b'0' {
        radix = 8;
    }
    let mut v: i128 = 0;
    let mut saturated = false;
    while i < b.len() {
        let Some(d) = (b[i] as char).to_digit(radix) else { break };
        if !saturated {
            v = v * i128::from(radix) + i128::from(d);
            if v > i128::from(i64::MAX) + 1 {
                saturated = true;
            }
        }
        i += 1;
    }
    if neg {
        if saturated || -v < i128::from(i64::MIN) { i64::MIN } else { (-v) as i64 }
    } else if saturated || v > i128::from(i64::MAX) {
        i64::MAX
    } else {
        v as i64
    }
}

/// Whether a value's text reads differently to the runtime than a person reads it:
/// octal (`010` is 8), trailing junk (`4x` is 4), no digits (`abc` is 0), or beyond the
/// range of an `int`.
pub fn surprising_number(s: &str) -> Option<String> {
    let t = s.trim_start();
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    if body.is_empty() || !body.as_bytes()[0].is_ascii_digit() {
        return Some(format!("\"{s}\" has no digits: the runtime reads 0"));
    }
    if body.len() > 1 && body.starts_with('0') && !body.starts_with("0x") && !body.starts_with("0X") {
        return Some(format!("\"{s}\" starts with 0: the runtime reads it as octal, {}", c_long(s)));
    }
    let digits = if body.starts_with("0x") || body.starts_with("0X") {
        body[2..].chars().take_while(char::is_ascii_hexdigit).count() + 2
    } else {
        body.chars().take_while(char::is_ascii_digit).count()
    };
    if digits < body.len() {
        return Some(format!("\"{s}\" has trailing text: the runtime reads {}", c_long(s)));
    }
    let v = c_long(s);
    if i64::from(v as i32) != v {
        return Some(format!("\"{s}\" does not fit an int: the runtime reads {}", v as i32));
    }
    None
}

/// The collective named by an attribute, for messages that list what a runtime knows.
pub fn collective_names(r: super::runtime::Runtime) -> Vec<&'static str> {
    let all = [
        Collective::AllReduce,
        Collective::AllGather,
        Collective::ReduceScatter,
        Collective::AllToAll,
        Collective::Broadcast,
        Collective::Reduce,
        Collective::Send,
        Collective::Recv,
        Collective::Gather,
        Collective::Scatter,
        Collective::AllToAllV,
        Collective::Custom,
    ];
    all.into_iter().filter_map(|c| r.collective_name(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(text: &str) -> Result<Vec<Element>, LexError> {
        RuntimeLexer { text: text.as_bytes(), pos: 0, line: 1, long_values: Vec::new() }.all()
    }

    #[test]
    fn reads_the_canonical_shape() {
        let t = "<algo a=\"1\">\n  <gpu id=\"0\">\n    <tb id=\"0\"/>\n  </gpu>\n</algo>\n";
        let roots = runtime(t).unwrap();
        assert_eq!(roots.len(), 1);
        assert_eq!(roots[0].children[0].children[0].name, "tb");
        assert_eq!(roots[0].children[0].children[0].line, 3);
        assert_eq!(roots[0].children[0].close, Close::Tag { name: "gpu".into(), line: 4 });
    }

    #[test]
    fn refuses_what_the_runtime_refuses() {
        let cases = [
            ("<?xml version=\"1.0\"?>\n<algo/>", "expected >, got '?'"),
            ("\u{feff}<algo/>", "expecting '<'"),
            ("<algo>\n\t<gpu/>\n</algo>", "expecting '<', got '\\t'"),
            ("<algo a=\"1\"\n b=\"2\"/>", "expected >, got '\\n'"),
            ("<algo a = \"1\"/>", "Expected (double) quote"),
            ("<algo>text</algo>", "expecting '<', got 't'"),
            ("<algo/>junk", "expecting '<', got 'j'"),
            ("<algo><!-- open", "unterminated comment"),
            ("<algo></algo >", "unexpected trailing"),
        ];
        for (text, want) in cases {
            let e = runtime(text).unwrap_err();
            assert!(e.message.contains(want), "{text:?}: {}", e.message);
        }
    }

    #[test]
    fn accepts_what_the_runtime_accepts() {
        for text in [
            "<!-- c --><algo a=\"1\" ><gpu></gpu></algo>",
            "<algo a=\"1\" />",
            "<algo a='1\"/>",
            "<algo a=\"x>y\"/>",
            "<algo>\r\n<gpu/>\r\n</algo>\r\n",
        ] {
            runtime(text).unwrap_or_else(|e| panic!("{text:?}: {}", e.message));
        }
        // Two spaces make an empty-named attribute; the first of two duplicates is kept.
        let r = runtime("<algo  a=\"1\" a=\"2\"/>").unwrap();
        assert_eq!(
            r[0].attrs,
            vec![(String::new(), String::new()), ("a".into(), "1".into()), ("a".into(), "2".into())]
        );
    }

    #[test]
    fn long_names_are_refused_at_254_bytes() {
        let ok = format!("<{}/>", "a".repeat(253));
        assert!(runtime(&ok).is_ok());
        let bad = format!("<{}/>", "a".repeat(254));
        assert!(runtime(&bad).unwrap_err().message.contains("too long"));
    }

    #[test]
    fn lenient_reading_follows_a_refusal() {
        let l = lex(b"<?xml version=\"1.0\"?>\n<algo a=\"1\">\n\t<gpu id=\"0\"/>\n</algo>\n").unwrap();
        assert!(l.runtime_error.is_some());
        assert_eq!(l.roots[0].name, "algo");
        assert_eq!(l.roots[0].children[0].line, 3);
        assert!(lex(b"").unwrap().roots.is_empty());
        assert!(lex(b"garbage").is_err());
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let text = "<a>".repeat(100_000);
        assert!(lex(text.as_bytes()).unwrap_err().message.contains("nested deeper"));
    }

    #[test]
    fn numbers_read_as_strtol_reads_them() {
        assert_eq!(c_int("10"), 10);
        assert_eq!(c_int("010"), 8);
        assert_eq!(c_int("0x10"), 16);
        assert_eq!(c_int("-1"), -1);
        assert_eq!(c_int("4x"), 4);
        assert_eq!(c_int("abc"), 0);
        assert_eq!(c_int(""), 0);
        assert_eq!(c_int(" 7"), 7);
        assert_eq!(c_int("0x"), 0);
        assert_eq!(c_int("4294967296"), 0);
        assert_eq!(c_int("10000000000"), 1_410_065_408);
        assert_eq!(c_int("99999999999999999999999"), -1);
        assert_eq!(c_long("-99999999999999999999999"), i64::MIN);
        assert!(surprising_number("010").unwrap().contains("octal, 8"));
        assert!(surprising_number("0").is_none());
        assert!(surprising_number("-1").is_none());
        assert!(surprising_number("0x1f").is_none());
        assert!(surprising_number("3 ").is_some());
        assert!(surprising_number("5000000000").is_some());
    }
}
