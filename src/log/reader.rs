//! Physical lines: read with a bounded buffer, decoded leniently, cleaned of `\r` and
//! terminal escape sequences. The first bytes are checked for binary data.

use std::io::{self, BufRead, Read};

/// Longest physical line kept; the rest of a longer one is skipped (and counted).
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// Bytes looked at to tell text from binary data.
const SNIFF: usize = 8 * 1024;

/// Reads physical lines; memory is one line.
pub(crate) struct Lines<'r> {
    input: &'r mut dyn BufRead,
    buf: Vec<u8>,
    text: String,
    /// Physical lines read.
    pub physical: u64,
    /// Lines longer than [`MAX_LINE`].
    pub overlong: u64,
    /// Bytes read.
    pub bytes: u64,
    sniffed: usize,
    nul: bool,
    control: usize,
}

impl<'r> Lines<'r> {
    pub fn new(input: &'r mut dyn BufRead) -> Lines<'r> {
        Lines {
            input,
            buf: Vec::with_capacity(4096),
            text: String::with_capacity(4096),
            physical: 0,
            overlong: 0,
            bytes: 0,
            sniffed: 0,
            nul: false,
            control: 0,
        }
    }

    /// The next line without its line end, or `None` at the end of the input.
    pub fn next_line(&mut self) -> io::Result<Option<&str>> {
        self.buf.clear();
        let n = (&mut *self.input).take(MAX_LINE as u64).read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.bytes += n as u64;
        // Look at the first bytes before skipping the rest of an overlong line: binary
        // data (/dev/zero, /dev/urandom) may never have a line end to skip to.
        if self.sniffed < SNIFF {
            self.sniff();
        }
        if self.buf.last() != Some(&b'\n') && self.buf.len() >= MAX_LINE && !self.looks_binary() {
            self.overlong += 1;
            self.bytes += self.skip_to_newline()?;
        }
        self.physical += 1;
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        self.text.clear();
        match std::str::from_utf8(&self.buf) {
            Ok(s) => self.text.push_str(s),
            Err(_) => self.text.push_str(&String::from_utf8_lossy(&self.buf)),
        }
        if self.text.contains('\u{1b}') {
            self.text = crate::ansi::strip(&self.text);
        }
        Ok(Some(&self.text))
    }

    fn skip_to_newline(&mut self) -> io::Result<u64> {
        let mut skipped = 0u64;
        loop {
            let avail = self.input.fill_buf()?;
            if avail.is_empty() {
                return Ok(skipped);
            }
            match avail.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.input.consume(i + 1);
                    return Ok(skipped + i as u64 + 1);
                }
                None => {
                    let n = avail.len();
                    self.input.consume(n);
                    skipped += n as u64;
                }
            }
        }
    }

    fn sniff(&mut self) {
        for &b in self.buf.iter().take(SNIFF - self.sniffed) {
            match b {
                0 => self.nul = true,
                b'\t' | b'\n' | b'\r' | 0x0c | 0x1b | 0x08 => {}
                0..=0x1f | 0x7f => self.control += 1,
                _ => {}
            }
        }
        self.sniffed += self.buf.len().min(SNIFF - self.sniffed);
    }

    /// The first bytes look like binary data rather than text: a NUL byte, or more than
    /// one control character in twenty.
    pub fn looks_binary(&self) -> bool {
        self.nul || (self.sniffed > 0 && self.control * 20 > self.sniffed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &[u8]) -> (Vec<String>, u64) {
        let mut input = text;
        let mut r = Lines::new(&mut input);
        let mut v = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            v.push(l.to_string());
        }
        (v, r.overlong)
    }

    #[test]
    fn line_ends_and_escapes() {
        let (v, _) = all(b"a\r\nb\n\x1b[1;31mred\x1b[0m text\nno end");
        assert_eq!(v, ["a", "b", "red text", "no end"]);
    }

    #[test]
    fn long_lines_are_skipped_to_their_end() {
        let mut text = vec![b'x'; MAX_LINE + 10];
        text.extend_from_slice(b"\nnext\n");
        let (v, overlong) = all(&text);
        assert_eq!(overlong, 1);
        assert_eq!(v.len(), 2);
        assert_eq!(v[1], "next");
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let (v, _) = all(b"ab\xffcd\n");
        assert_eq!(v, ["ab\u{fffd}cd"]);
    }

    #[test]
    fn binary_is_told() {
        let mut input: &[u8] = b"\x00\x01\x02abc\n";
        let mut r = Lines::new(&mut input);
        r.next_line().unwrap();
        assert!(r.looks_binary());
        let mut input: &[u8] = b"host:1:2 [0] NCCL INFO x\n";
        let mut r = Lines::new(&mut input);
        r.next_line().unwrap();
        assert!(!r.looks_binary());
    }
}
