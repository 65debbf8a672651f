//! Terminal escape sequences: the text a terminal shows without them. NCCL logs are
//! cleaned of them ([`crate::log`]); the width of topo's own coloured text is counted
//! without them ([`crate::render::term`]).

use std::iter::Peekable;
use std::str::Chars;

/// The characters of `s` a terminal shows: `s` less ANSI CSI (`ESC [ ... final`) and
/// OSC (`ESC ] ... BEL|ESC \`) sequences and any other `ESC x` pair.
pub fn visible(s: &str) -> Visible<'_> {
    Visible { it: s.chars().peekable() }
}

/// `s` without its escape sequences.
pub fn strip(s: &str) -> String {
    visible(s).collect()
}

/// The iterator of [`visible`].
pub struct Visible<'a> {
    it: Peekable<Chars<'a>>,
}

impl Iterator for Visible<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        loop {
            let c = self.it.next()?;
            if c != '\u{1b}' {
                return Some(c);
            }
            match self.it.next() {
                Some('[') => {
                    // Parameters and intermediates, then one final byte in @..~.
                    for d in self.it.by_ref() {
                        if ('@'..='~').contains(&d) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    while let Some(d) = self.it.next() {
                        if d == '\u{7}' {
                            break;
                        }
                        if d == '\u{1b}' && self.it.peek() == Some(&'\\') {
                            self.it.next();
                            break;
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_not_shown() {
        assert_eq!(strip("\x1b[1;31mred\x1b[0m text"), "red text");
        assert_eq!(strip("\x1b[38;5;10mgood\x1b[39m"), "good");
        assert_eq!(strip("\x1b]0;title\x07x\x1b]8;;u\x1b\\y"), "xy");
        assert_eq!(strip("cut\x1b["), "cut");
        assert_eq!(strip("a\x1b7b"), "ab", "another ESC x pair");
        assert_eq!(visible("\x1b[31mαβγ\x1b[39m").count(), 3, "characters, not bytes");
    }
}
