//! The shape of the code, checked: the top-level modules of the library form no import
//! circle, each imports only the layers the README's layout puts below it, and only the
//! command layer (and `main.rs`) knows clap, the terminal, the standard streams and the
//! process environment.
//!
//! Read as text: every `crate::NAME` a file of module `M` mentions is an import of
//! `NAME` by `M` (its `super::` paths stay inside `M`). Only the code that ships
//! counts: unit tests (what follows `#[cfg(test)]`, and `tests.rs` files) may reach
//! any layer to check their module's output.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`cli` for `src/cli/args.rs`), or `None` for
/// `lib.rs` and `main.rs`.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel.components().next()?.as_os_str().to_string_lossy().into_owned();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The text of a file without its comments (doc examples may name anything).
fn code(file: &Path) -> String {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("//") || t.starts_with("/*") || t.starts_with('*'))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Module -> the modules it mentions as `crate::NAME`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &all {
        let Some(m) = module_of(f) else { continue };
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = code(f);
        let text = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
        let entry = g.entry(m.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name != m {
                entry.insert(name);
            }
        }
        // `use crate::{a, b}` groups.
        for (i, _) in text.match_indices("crate::{") {
            let group = &text[i + "crate::{".len()..];
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && name != m {
                    entry.insert(name);
                }
            }
        }
    }
    g
}

#[test]
fn no_import_circle_between_modules() {
    let g = imports();
    // Depth-first search for a back edge.
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(1) => {
                let at = path.iter().position(|p| p == m).unwrap();
                let mut c = path[at..].to_vec();
                c.push(m.to_string());
                return Some(c);
            }
            Some(2) => return None,
            _ => {}
        }
        state.insert(m.to_string(), 1);
        path.push(m.to_string());
        for n in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(n, g, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in g.keys() {
        if let Some(c) = visit(m, &g, &mut state, &mut Vec::new()) {
            panic!("import circle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn each_layer_imports_only_what_lies_below_it() {
    // The layers of the README's layout, lowest first; a module may import modules of
    // its own layer's predecessors only (and nothing may import `cli`).
    let layers: &[&[&str]] = &[
        &["types", "error", "notice", "release", "ansi"],
        &["fileio"],
        &["xml"],
        &["env"],
        &["discover"],
        &["model", "check", "fixtures"],
        &["input"],
        &["search"],
        &["tune"],
        &["algo"],
        &["diff", "bench", "log"],
        &["render"],
        &["cli"],
    ];
    let level = |m: &str| layers.iter().position(|l| l.contains(&m));
    let g = imports();
    let mut wrong = Vec::new();
    for (m, deps) in &g {
        let Some(lm) = level(m) else {
            wrong.push(format!("module `{m}` has no place in the layers of this test: add it"));
            continue;
        };
        for d in deps {
            match level(d) {
                Some(ld) if ld < lm => {}
                Some(_) => wrong.push(format!("{m} imports {d}, which is not below it")),
                None => {}
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn only_the_command_layer_meets_the_process() {
    // What belongs to the command layer: clap, the terminal and progress bars, the
    // standard streams, printing, and the process environment.
    let marks = [
        "clap::",
        "indicatif",
        "IsTerminal",
        "std::io::stdout",
        "std::io::stderr",
        "std::env::var",
        "println!",
        "print!(",
        "eprint",
    ];
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut wrong = Vec::new();
    for f in &all {
        let m = module_of(f);
        if m.is_none() || m.as_deref() == Some("cli") {
            continue;
        }
        // A `tests.rs` file is a unit-test module as a whole (its skip notes may print).
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        // Test modules may print (skip notes); they sit at the end of a file.
        let text = code(f);
        let text = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
        for mark in marks {
            if text.contains(mark) {
                wrong.push(format!("{} uses {mark}", f.strip_prefix(src()).unwrap().display()));
            }
        }
    }
    assert!(wrong.is_empty(), "outside src/cli/: {}", wrong.join("; "));
}
