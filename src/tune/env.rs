//! The NCCL_* variables the tuning model reads, parsed with NCCL's grammar.
//!
//! `NCCL_ALGO` and `NCCL_PROTO` are lists of names, optionally negated with a leading
//! `^`, optionally scoped to one collective with a `function:` prefix; entries are
//! separated by `;` and only the first may lack a prefix:
//!
//! ```text
//! NCCL_ALGO="ring,collnetdirect;allreduce:tree"   ring+collnetdirect everywhere, tree only for allreduce
//! NCCL_PROTO="^LL128"                             everything but LL128
//! NCCL_PROTO="LL,Simple;allreduce:^LL"            LL+Simple, but all except LL for allreduce
//! ```
//!
//! Like NCCL (which splits with `strtok`), empty items are skipped (`Tree,,Ring`), names
//! compare case-insensitively, and an unknown name or prefix is an error. Releases
//! before 2.24 read one list for every collective instead ([`parse_list_global`]).

use super::constants::WARP_SIZE;

/// Split like C's `strtok`: runs of delimiters separate tokens, empty tokens vanish.
/// Returns each token with its byte offset.
fn strtok(s: &str, delim: char) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c == delim {
            if let Some(b) = start.take() {
                out.push((b, &s[b..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(b) = start {
        out.push((b, &s[b..]));
    }
    out
}

/// Apply one `NCCL_ALGO`/`NCCL_PROTO` style string to `list` (`prefixes.len()` rows of
/// `elems.len()` flags, row-major). Entries without `^` enable exactly the listed items
/// for their functions; entries with `^` enable everything but them. Errors carry NCCL's
/// reason.
pub fn parse_list(value: &str, prefixes: &[&str], elems: &[&str], list: &mut [i32]) -> Result<(), String> {
    let n = elems.len();
    for (offset, entry) in strtok(value, ';') {
        let parts = strtok(entry, ':');
        let (prefix, items) = match parts.as_slice() {
            [] => return Err(format!("empty entry in \"{value}\"")),
            [(_, only)] => {
                if offset != 0 {
                    return Err(format!("all entries except the first must have a prefix: \"{value}\""));
                }
                (None, *only)
            }
            [(_, p), (_, e), ..] => (Some(*p), *e),
        };
        let (set, unset, items) = match items.strip_prefix('^') {
            Some(rest) => (0, 1, rest),
            None => (1, 0, items),
        };
        let mut found = false;
        for (row, name) in prefixes.iter().enumerate() {
            if prefix.is_some_and(|p| !p.eq_ignore_ascii_case(name)) {
                continue;
            }
            found = true;
            let cells = &mut list[row * n..(row + 1) * n];
            cells.fill(unset);
            for (_, item) in strtok(items, ',') {
                match elems.iter().position(|e| e.eq_ignore_ascii_case(item)) {
                    Some(e) => cells[e] = set,
                    None => {
                        return Err(format!(
                            "unrecognized element \"{item}\" in \"{value}\" (expected one of {})",
                            elems.join(", ")
                        ));
                    }
                }
            }
        }
        if !found {
            return Err(format!(
                "unrecognized prefix \"{}\" in \"{value}\" (expected one of {})",
                prefix.unwrap_or(""),
                prefixes.join(", ")
            ));
        }
    }
    Ok(())
}

/// NCCL_ALGO / NCCL_PROTO as releases before 2.24 read them: one list for every
/// collective, negated by a leading `^`, names separated by `,` (empty items skipped)
/// and compared case-insensitively; an unknown name is ignored. One flag per element.
pub fn parse_list_global(value: &str, elems: &[&str]) -> Vec<i32> {
    let (unlisted, listed, items) = match value.strip_prefix('^') {
        Some(rest) => (1, 0, rest),
        None => (0, 1, value),
    };
    let mut flags = vec![unlisted; elems.len()];
    for (_, item) in strtok(items, ',') {
        for (flag, name) in flags.iter_mut().zip(elems) {
            if name.eq_ignore_ascii_case(item) {
                *flag = listed;
            }
        }
    }
    flags
}

/// NCCL's `getNthreads`: a positive request must be a multiple of the warp size and
/// within [min, max]; otherwise NCCL corrects it (and says so). Unset or <= 0: default.
pub fn nthreads(name: &str, requested: i64, min: i32, max: i32, default: i32) -> (i32, Option<String>) {
    if requested <= 0 {
        return (default, None);
    }
    let nt = requested;
    if nt % WARP_SIZE as i64 != 0 {
        (max, Some(format!("{name}={nt} is not a multiple of {WARP_SIZE}: NCCL uses {max}")))
    } else if nt > max as i64 {
        (max, Some(format!("{name}={nt} is above the maximum {max}: NCCL uses {max}")))
    } else if nt < min as i64 {
        (min, Some(format!("{name}={nt} is below the minimum {min}: NCCL uses {min}")))
    } else {
        (nt as i32, None)
    }
}

/// `NCCL_THREAD_THRESHOLDS`, read as NCCL's `sscanf("%ld %ld %ld %ld %ld %ld")`: up to
/// six integers (Tree LL, LL128, Simple, then Ring LL, LL128, Simple); reading stops at
/// the first thing that is not a number. `None` marks a value not given.
pub fn thread_thresholds(value: &str) -> [Option<i64>; 6] {
    let mut out = [None; 6];
    let b = value.as_bytes();
    let mut i = 0;
    for slot in out.iter_mut() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let digits = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == digits {
            break;
        }
        match value[start..i].parse::<i64>() {
            Ok(v) => *slot = Some(v),
            Err(_) => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FUNCS: [&str; 5] = ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"];
    const ALGOS: [&str; 7] = ["Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"];
    const PROTOS: [&str; 3] = ["LL", "LL128", "Simple"];

    fn algos(s: &str) -> Result<Vec<i32>, String> {
        let mut l = vec![1; 5 * 7];
        parse_list(s, &FUNCS, &ALGOS, &mut l).map(|_| l)
    }
    fn protos(s: &str) -> Result<Vec<i32>, String> {
        let mut l: Vec<i32> = (0..15).map(|i| if i % 3 == 1 { 2 } else { 1 }).collect();
        parse_list(s, &FUNCS, &PROTOS, &mut l).map(|_| l)
    }
    fn row(l: &[i32], f: usize, n: usize) -> &[i32] {
        &l[f * n..(f + 1) * n]
    }

    #[test]
    fn prefixed_entries_override_the_first() {
        let l = algos("ring,collnetdirect;allreduce:tree").unwrap();
        for f in 0..4 {
            assert_eq!(row(&l, f, 7), &[0, 1, 1, 0, 0, 0, 0], "function {f}");
        }
        assert_eq!(row(&l, 4, 7), &[1, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn negation_enables_the_rest() {
        let l = protos("^LL128").unwrap();
        for f in 0..5 {
            assert_eq!(row(&l, f, 3), &[1, 0, 1]);
        }
        // A negated list forces the others on, LL128 included (no longer "auto").
        let l = protos("^LL").unwrap();
        assert_eq!(row(&l, 0, 3), &[0, 1, 1]);
        let l = protos("LL,Simple;allreduce:^LL").unwrap();
        assert_eq!(row(&l, 0, 3), &[1, 0, 1]);
        assert_eq!(row(&l, 4, 3), &[0, 1, 1]);
        let l = protos("^LL128;allreduce:LL128").unwrap();
        assert_eq!(row(&l, 2, 3), &[1, 0, 1]);
        assert_eq!(row(&l, 4, 3), &[0, 1, 0]);
    }

    #[test]
    fn names_are_case_insensitive_and_empty_items_skipped() {
        // As seen in a real log (NVIDIA/nccl#892).
        let l = algos("Tree,Ring,,CollnetDirect,CollnetChain,NVLS").unwrap();
        assert_eq!(row(&l, 4, 7), &[1, 1, 1, 1, 1, 0, 0]);
        let l = protos("simple").unwrap();
        assert_eq!(row(&l, 1, 3), &[0, 0, 1]);
        let l = algos("AllReduce:RING").unwrap();
        assert_eq!(row(&l, 4, 7), &[0, 1, 0, 0, 0, 0, 0]);
        assert_eq!(row(&l, 0, 7), &[1; 7]);
    }

    #[test]
    fn mistakes_are_errors() {
        assert!(algos("ring;tree").unwrap_err().contains("must have a prefix"));
        assert!(algos("rings").unwrap_err().contains("unrecognized element \"rings\""));
        assert!(algos("allreduce:ring;sendrecv:ring").unwrap_err().contains("unrecognized prefix \"sendrecv\""));
        assert!(protos("LL;allgather:LL256").unwrap_err().contains("LL256"));
        // strtok drops the empty first token, so the prefix-less entry is not first.
        assert!(algos(";ring").unwrap_err().contains("must have a prefix"));
    }

    /// tuning.cc parseList at 2.23.4: one list, `^` negates it, unknown names pass.
    #[test]
    fn older_grammar_is_one_list_and_ignores_unknown_names() {
        assert_eq!(parse_list_global("ring,TREE,pat", &ALGOS[..6]), [1, 1, 0, 0, 0, 0]);
        assert_eq!(parse_list_global("^LL128", &PROTOS), [1, 0, 1]);
        assert_eq!(parse_list_global("allreduce:ring", &ALGOS[..6]), [0; 6]);
        assert_eq!(parse_list_global("Simple,,LL", &PROTOS), [1, 0, 1]);
    }

    #[test]
    fn thread_counts_are_corrected_like_nccl() {
        assert_eq!(nthreads("NCCL_NTHREADS", -2, 64, 512, 256), (256, None));
        assert_eq!(nthreads("NCCL_NTHREADS", 128, 64, 512, 256), (128, None));
        assert_eq!(nthreads("NCCL_NTHREADS", 100, 64, 512, 256).0, 512);
        assert_eq!(nthreads("NCCL_NTHREADS", 1024, 64, 512, 256).0, 512);
        assert_eq!(nthreads("NCCL_NTHREADS", 32, 64, 512, 256).0, 64);
    }

    #[test]
    fn thresholds_read_like_sscanf() {
        assert_eq!(thread_thresholds("1 2 3 4 5 6"), [Some(1), Some(2), Some(3), Some(4), Some(5), Some(6)]);
        assert_eq!(thread_thresholds(" 16  -1 x 5"), [Some(16), Some(-1), None, None, None, None]);
        assert_eq!(thread_thresholds(""), [None; 6]);
    }
}
