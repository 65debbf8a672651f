//! Text for a terminal, shared by every text renderer: the width lines must fit in, colours
//! for verdicts and severities, tables without borders, and lines wrapped at the width.
//!
//! Renderers stay pure: the command layer says how wide and whether to colour ([`Term`]).
//! With no width (output piped, no COLUMNS) text is as wide as it takes and the same every
//! time, for scripts. Colours are ANSI escapes the width of a line does not count.

use comfy_table::{Color, ContentArrangement, Table, presets};

/// How to lay text out for where it goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Term {
    /// Fit every line in this many columns (long lists wrap, wide tables split); `None`:
    /// as wide as it takes.
    pub width: Option<usize>,
    /// Colour verdicts and severities with ANSI escapes.
    pub color: bool,
}

/// What a coloured word says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Fine, or fast: green.
    Good,
    /// Worth a look: yellow.
    Warn,
    /// Wrong, or slow: red.
    Bad,
}

impl Tone {
    /// The colour of table cells of this tone.
    pub fn color(self) -> Color {
        match self {
            Tone::Good => Color::Green,
            Tone::Warn => Color::Yellow,
            Tone::Bad => Color::Red,
        }
    }

    /// The ANSI foreground code, the one comfy-table writes for [`Tone::color`].
    fn code(self) -> &'static str {
        match self {
            Tone::Good => "38;5;10",
            Tone::Warn => "38;5;11",
            Tone::Bad => "38;5;9",
        }
    }
}

impl Term {
    /// `text` in the colour of `tone` when colours are on.
    pub fn paint(&self, text: &str, tone: Tone) -> String {
        if self.color { format!("\x1b[{}m{text}\x1b[39m", tone.code()) } else { text.to_string() }
    }

    /// `line` wrapped at the width (see [`wrap`]).
    pub fn wrap(&self, line: &str, indent: &str) -> String {
        wrap(line, self.width, indent)
    }

    /// `line` wrapped at the width, pieces after the first indented as `line` is and by
    /// `more` spaces beyond.
    pub fn wrap_more(&self, line: &str, more: usize) -> String {
        wrap(line, self.width, &format!("{}{}", leading(line), " ".repeat(more)))
    }

    /// `line` wrapped at the width, pieces after the first lined up after its first `: `
    /// (a label and what it labels).
    pub fn wrap_hanging(&self, line: &str) -> String {
        let at = visible_len(&line[..line.find(": ").map_or(0, |i| i + 2)]);
        wrap(line, self.width, &" ".repeat(at.min(self.width.unwrap_or(0) / 2)))
    }

    /// `head` then `items`, broken only between items (see [`wrap_items`]).
    pub fn wrap_items<S: AsRef<str>>(&self, head: &str, items: &[S], sep: &str, indent: &str) -> String {
        wrap_items(head, items, sep, self.width, indent)
    }

    /// A table of this width (see [`fit`]), coloured when colours are on.
    pub fn table(&self) -> Table {
        let mut t = styled(self.color);
        fit(&mut t, self.width);
        t
    }
}

/// The spaces a line starts with.
pub fn leading(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The columns `s` takes on a terminal: its characters, less escape sequences.
pub fn visible_len(s: &str) -> usize {
    crate::ansi::visible(s).count()
}

/// A table without borders, as wide as its texts.
pub fn new_table() -> Table {
    let mut t = Table::new();
    t.load_style(presets::NOTHING);
    t.set_content_arrangement(ContentArrangement::Disabled);
    // Renderers are pure: never ask the terminal whether to style or how wide it is.
    t.force_no_tty();
    t
}

/// A table with colours when asked.
pub fn styled(color: bool) -> Table {
    let mut t = new_table();
    if color {
        t.enforce_styling();
    }
    t
}

/// A table that wraps its longest texts to fit in `width` columns, when given.
pub fn fit(t: &mut Table, width: Option<usize>) {
    if let Some(w) = width {
        t.set_content_arrangement(ContentArrangement::Dynamic);
        t.set_width(u16::try_from(w).unwrap_or(u16::MAX));
    }
}

/// A table's text; when fitted to a width, without the spaces that end its lines.
pub fn table_text(t: &Table, width: Option<usize>) -> String {
    if width.is_some() { trim_lines(&t.to_string()) } else { t.to_string() }
}

/// Tables of fixed-width columns end in spaces; a narrow terminal wraps on them.
pub fn trim_lines(s: &str) -> String {
    s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
}

/// `line` broken at spaces so that no piece is longer than `width`; the pieces after the
/// first start with `indent`. A run of spaces at a break keeps all but one (numbers
/// right-aligned in columns stay aligned); words longer than a line are cut. With no
/// width, or a line that fits, the line as it is.
pub fn wrap(line: &str, width: Option<usize>, indent: &str) -> String {
    let Some(width) = width else { return line.to_string() };
    if visible_len(line) <= width {
        return line.to_string();
    }
    let mut cur = leading(line).to_string();
    let mut placed = false;
    let mut out = String::new();
    let room = width.saturating_sub(visible_len(indent)).max(8);
    for (gap, word) in words(line.trim_start()) {
        for (k, piece) in cut(word, room).into_iter().enumerate() {
            let gap = if k == 0 && placed { gap } else { "" };
            if placed && visible_len(&cur) + gap.len() + visible_len(piece) > width {
                out.push_str(cur.trim_end());
                out.push('\n');
                cur = format!("{indent}{}", gap.get(1..).unwrap_or(""));
            } else {
                cur.push_str(gap);
            }
            cur.push_str(piece);
            placed = true;
        }
    }
    out.push_str(&cur);
    out
}

/// The words of `s`, each with the spaces before it.
fn words(s: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let start = rest.len() - rest.trim_start_matches(' ').len();
        if start == rest.len() {
            return None;
        }
        let end = rest[start..].find(' ').map_or(rest.len(), |i| start + i);
        let item = (&rest[..start], &rest[start..end]);
        rest = &rest[end..];
        Some(item)
    })
}

/// A word as pieces of at most `room` characters (a word with colour escapes is kept
/// whole).
fn cut(word: &str, room: usize) -> Vec<&str> {
    if word.contains('\x1b') || word.chars().count() <= room {
        return vec![word];
    }
    let mut pieces = Vec::new();
    let mut start = 0;
    for (n, (i, _)) in word.char_indices().enumerate() {
        if n > 0 && n % room == 0 {
            pieces.push(&word[start..i]);
            start = i;
        }
    }
    pieces.push(&word[start..]);
    pieces
}

/// `head` then `items` joined by `sep`, broken only between items when a width is given:
/// the separator's visible part (`;` of `"; "`) ends the line, and the next line starts
/// with `indent`. An item longer than a line is wrapped at its spaces.
pub fn wrap_items<S: AsRef<str>>(head: &str, items: &[S], sep: &str, width: Option<usize>, indent: &str) -> String {
    let joined = format!("{head}{}", items.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(sep));
    let Some(width) = width else { return joined };
    if visible_len(&joined) <= width {
        return joined;
    }
    let sep_mark = sep.trim_end();
    let glue = &sep[sep_mark.len()..];
    let mut out = String::new();
    let mut cur = head.to_string();
    let mut placed = false;
    for (i, item) in items.iter().enumerate() {
        let piece =
            if i + 1 < items.len() { format!("{}{sep_mark}", item.as_ref()) } else { item.as_ref().to_string() };
        let joined = if placed { format!("{cur}{glue}{piece}") } else { format!("{cur}{piece}") };
        let candidate = if placed && visible_len(&joined) > width {
            out.push_str(cur.trim_end());
            out.push('\n');
            format!("{indent}{piece}")
        } else {
            joined
        };
        // An item too long for a line of its own is wrapped; its last line goes on.
        let wrapped = wrap(&candidate, Some(width), indent);
        match wrapped.rsplit_once('\n') {
            Some((done, last)) => {
                out.push_str(done);
                out.push('\n');
                cur = last.to_string();
            }
            None => cur = wrapped,
        }
        placed = true;
    }
    out.push_str(&cur);
    out
}

/// Checks of text laid out for a width, for the renderers' tests.
#[cfg(test)]
pub(crate) mod check {
    use super::visible_len;

    /// Every line of `text` fits in `width` columns.
    pub fn fits(text: &str, width: usize, what: &str) {
        for l in text.lines() {
            assert!(visible_len(l) <= width, "{what}: a line of {} columns over {width}:\n{l}", visible_len(l));
        }
    }

    /// `wrapped` says what `whole` says, in the same order: the same characters but for
    /// spaces, line ends and the tree lines drawn beside wrapped lines (words longer than
    /// a line are cut).
    pub fn same_text(whole: &str, wrapped: &str, what: &str) {
        let text = |s: &str| s.chars().filter(|c| !c.is_whitespace() && *c != '│').collect::<String>();
        assert_eq!(text(whole), text(wrapped), "{what}: the wrapped text says something else");
    }

    /// `wrapped` says what `whole` says: the same words, maybe in another order (cells
    /// of a table wrap).
    pub fn same_words(whole: &str, wrapped: &str, what: &str) {
        let words = |s: &str| {
            let mut v: Vec<String> = s.split_whitespace().filter(|w| *w != "│").map(str::to_string).collect();
            v.sort();
            v
        };
        assert_eq!(words(whole), words(wrapped), "{what}: the wrapped text says something else");
    }

    /// Colour escapes in `text`.
    pub fn coloured(text: &str) -> bool {
        text.contains('\x1b')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fits(text: &str, width: usize) {
        for l in text.lines() {
            assert!(visible_len(l) <= width, "over {width}: {l:?}");
        }
    }

    #[test]
    fn lines_wrap_at_spaces_with_an_indent() {
        let line = "  one two three four five six seven eight nine ten eleven twelve";
        let w = wrap(line, Some(20), "    ");
        fits(&w, 20);
        assert!(w.starts_with("  one two three four\n    five"), "{w}");
        assert_eq!(w.split_whitespace().collect::<Vec<_>>(), line.split_whitespace().collect::<Vec<_>>());
        assert_eq!(wrap(line, None, "    "), line, "no width: as it is");
        assert_eq!(wrap("short", Some(20), "  "), "short");
        // A word longer than a line is cut.
        let w = wrap("x aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Some(12), "  ");
        fits(&w, 12);
        assert_eq!(w.replace(['\n', ' '], ""), "xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    }

    #[test]
    fn right_aligned_numbers_stay_aligned() {
        let line = "Channel 00/16 :  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15";
        let w = Term { width: Some(42), color: false }.wrap_hanging(line);
        fits(&w, 42);
        let lines: Vec<&str> = w.lines().collect();
        assert_eq!(lines[0], "Channel 00/16 :  0  1  2  3  4  5  6  7  8");
        assert_eq!(lines[1], format!("{}9 10 11 12 13 14 15", " ".repeat(17)));
    }

    #[test]
    fn items_break_between_items() {
        let items = ["GPU 0000:10:1c.0 (dev 0)", "GPU 0000:10:1d.0 (dev 1)", "GPU 0000:20:1c.0 (dev 2)"];
        let w = wrap_items("      ", &items, "; ", Some(60), "      ");
        fits(&w, 60);
        assert_eq!(w, "      GPU 0000:10:1c.0 (dev 0); GPU 0000:10:1d.0 (dev 1);\n      GPU 0000:20:1c.0 (dev 2)");
        assert_eq!(wrap_items("a: ", &items, "; ", None, "  "), format!("a: {}", items.join("; ")));
        // An item longer than the line is wrapped at its spaces.
        let long = ["a b c d e f g h i j k l m n o p q r s t u v w x y z"];
        let w = wrap_items("head: ", &long, ", ", Some(20), "  ");
        fits(&w, 20);
    }

    #[test]
    fn colours_take_no_width() {
        let t = Term { width: Some(12), color: true };
        let red = t.paint("error", Tone::Bad);
        assert_eq!(visible_len(&red), 5);
        assert!(red.contains('\x1b'));
        let w = t.wrap(&format!("{red}: one two three"), "  ");
        assert_eq!(w.lines().map(visible_len).max(), Some(11), "{w:?}");
        assert_eq!(Term { width: None, color: false }.paint("error", Tone::Bad), "error");
    }
}
