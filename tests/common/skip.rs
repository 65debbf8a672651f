//! Skipped tests, made visible: every test that cannot run its checks here (a tool, a
//! library or `../shared` is missing, or the user is root) calls [`skip`], which prints
//! the reason and appends one line to a tally file. `.ci/run` empties the tally before
//! `cargo test` and prints it in its summary, so a skip never reads as a pass.
//!
//! The tally is `$TOPO_SKIP_TALLY` when set, else `<target dir>/test-skips.txt`. Shared
//! by the integration tests (`tests/common/mod.rs`) and the library's unit tests
//! (`src/lib.rs` includes this file under `cfg(test)`).

// Not every test crate that includes this calls every function.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// Where skips are tallied.
pub fn tally_file() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TOPO_SKIP_TALLY").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    // Integration tests know the target dir's tmp folder; unit tests run from
    // <target dir>/<profile>/deps/.
    let target = match option_env!("CARGO_TARGET_TMPDIR") {
        Some(tmp) => PathBuf::from(tmp).parent()?.to_path_buf(),
        None => std::env::current_exe().ok()?.parent()?.parent()?.parent()?.to_path_buf(),
    };
    Some(target.join("test-skips.txt"))
}

/// Record that `test` skipped (all or part of) its checks, and why. The line names the
/// test binary too: `<crate>::<test>: <reason>`.
pub fn skip(test: &str, reason: &str) {
    let line = format!("{}::{test}: {reason}\n", env!("CARGO_CRATE_NAME"));
    eprint!("SKIPPED {line}");
    if let Some(path) = tally_file() {
        // One write per line: appends from parallel tests and test binaries stay whole.
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("warning: cannot record the skip in {}: {e}", path.display());
        }
    }
}
