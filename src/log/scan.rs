//! Small cursor functions the line parsers are built from. Each takes the text still to
//! read and returns what it read with the rest, or `None`. They look at ASCII bytes only,
//! so every slice they make falls on a character boundary, and every number is checked
//! for overflow.

/// Leading decimal digits (at least one).
pub(crate) fn nat(s: &str) -> Option<(u64, &str)> {
    let b = s.as_bytes();
    let mut v: u64 = 0;
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        v = v.checked_mul(10)?.checked_add(u64::from(b[i] - b'0'))?;
        i += 1;
    }
    if i == 0 { None } else { Some((v, &s[i..])) }
}

/// Leading decimal digits as a `u32`.
pub(crate) fn nat32(s: &str) -> Option<(u32, &str)> {
    let (v, r) = nat(s)?;
    Some((u32::try_from(v).ok()?, r))
}

/// An optional minus sign and decimal digits.
pub(crate) fn int(s: &str) -> Option<(i64, &str)> {
    match s.strip_prefix('-') {
        Some(r) => {
            let (v, r) = nat(r)?;
            Some((-i64::try_from(v).ok()?, r))
        }
        None => {
            let (v, r) = nat(s)?;
            Some((i64::try_from(v).ok()?, r))
        }
    }
}

/// Leading hex digits (either case, at least one, at most 16).
pub(crate) fn hex(s: &str) -> Option<(u64, &str)> {
    let b = s.as_bytes();
    let n = b.iter().take_while(|c| c.is_ascii_hexdigit()).count();
    if n == 0 || n > 16 {
        return None;
    }
    Some((u64::from_str_radix(&s[..n], 16).ok()?, &s[n..]))
}

/// `0x` and hex digits, or glibc's `(nil)` for a null pointer.
pub(crate) fn ptr(s: &str) -> Option<(u64, &str)> {
    if let Some(r) = s.strip_prefix("(nil)") {
        return Some((0, r));
    }
    hex(s.strip_prefix("0x")?)
}

/// A decimal number as C's `%f`/`%.1f`/`%d` print it: optional `-`, digits, optional
/// `.digits`. Returns the value, the number of decimals printed and the rest.
pub(crate) fn float(s: &str) -> Option<(f64, usize, &str)> {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == int_start {
        return None;
    }
    let mut decimals = 0;
    if i < b.len() && b[i] == b'.' {
        let f = i + 1;
        let mut j = f;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > f {
            decimals = j - f;
            i = j;
        }
    }
    let v: f64 = s[..i].parse().ok()?;
    Some((v, decimals, &s[i..]))
}

/// Skip spaces.
pub(crate) fn sp(s: &str) -> &str {
    s.trim_start_matches(' ')
}

/// One space or more.
pub(crate) fn sp1(s: &str) -> Option<&str> {
    if s.starts_with(' ') { Some(sp(s)) } else { None }
}

/// Text up to the next space (may be empty) and the rest.
pub(crate) fn word(s: &str) -> (&str, &str) {
    match s.find(' ') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

/// An identifier: ASCII letters, digits and `_`, at least one.
pub(crate) fn ident(s: &str) -> Option<(&str, &str)> {
    let n = s.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
    if n == 0 { None } else { Some((&s[..n], &s[n..])) }
}

/// Upper-case letters and digits starting with a letter (`PCI`, `NVL`, `C2C`).
pub(crate) fn upper(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    if !b.first()?.is_ascii_uppercase() {
        return None;
    }
    let n = b.iter().take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit()).count();
    Some((&s[..n], &s[n..]))
}

/// `a/b/c` integers (at least one).
pub(crate) fn int_list<'a>(mut s: &'a str, out: &mut Vec<i64>) -> Option<&'a str> {
    loop {
        let (v, r) = int(s)?;
        out.push(v);
        match r.strip_prefix('/') {
            Some(r) => s = r,
            None => return Some(r),
        }
    }
}

/// `hay.find(needle)` through memchr on the needle's first character: on short lines
/// cheaper than the substring searcher `str::find(&str)` builds for every call.
pub(crate) fn find(hay: &str, needle: &str) -> Option<usize> {
    let first = needle.chars().next()?;
    let mut from = 0;
    while let Some(i) = hay[from..].find(first) {
        let at = from + i;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + first.len_utf8();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_checked() {
        assert_eq!(nat("12ab"), Some((12, "ab")));
        assert_eq!(nat("ab"), None);
        assert_eq!(nat("99999999999999999999999"), None);
        assert_eq!(nat32("4294967296"), None);
        assert_eq!(int("-1/2"), Some((-1, "/2")));
        assert_eq!(int("-"), None);
        assert_eq!(hex("8c000 x"), Some((0x8c000, " x")));
        assert_eq!(hex("FFFFFFFFFFFFFFFF"), Some((u64::MAX, "")));
        assert_eq!(hex("1FFFFFFFFFFFFFFFF"), None);
        assert_eq!(ptr("(nil) a"), Some((0, " a")));
        assert_eq!(ptr("0x55d3 a"), Some((0x55d3, " a")));
        assert_eq!(float("370.800018/"), Some((370.800018, 6, "/")));
        assert_eq!(float("48.0]"), Some((48.0, 1, "]")));
        assert_eq!(float("6]"), Some((6.0, 0, "]")));
        assert_eq!(float("5."), Some((5.0, 0, ".")));
        assert_eq!(float("-x"), None);
        assert_eq!(upper("NVL[4"), Some(("NVL", "[4")));
        assert_eq!(upper("nvl"), None);
    }

    #[test]
    fn find_is_str_find() {
        for (h, n) in
            [("a set to b", " set to "), ("xx", "x"), ("é set é", "é"), ("abc", "d"), ("", "a"), ("aaab", "aab")]
        {
            assert_eq!(find(h, n), h.find(n), "{h} {n}");
        }
    }

    #[test]
    fn multibyte_text_is_safe() {
        assert_eq!(nat("é1"), None);
        assert_eq!(word("aé b"), ("aé", " b"));
        assert_eq!(ident("é"), None);
        assert_eq!(float("1.é"), Some((1.0, 0, ".é")));
    }
}
