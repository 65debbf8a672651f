//! The committed shell completions (`completions/`) and man pages (`man/`) are what the
//! current command line generates.

use std::collections::BTreeMap;
use std::path::Path;

const HINT: &str =
    "the command line changed: regenerate with `cargo run -- generate --out .` and commit completions/ and man/";

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            out.insert(e.file_name().to_string_lossy().to_string(), std::fs::read(e.path()).unwrap());
        }
    }
    out
}

#[test]
fn committed_completions_and_man_pages_are_current() {
    let tmp = tempfile::tempdir().unwrap();
    assert_cmd::cargo::cargo_bin_cmd!("topo").args(["generate", "--out"]).arg(tmp.path()).assert().success().stdout("");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for sub in ["completions", "man"] {
        let fresh = files(&tmp.path().join(sub));
        let committed = files(&root.join(sub));
        assert!(!fresh.is_empty(), "generate wrote nothing into {sub}/");
        let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(&committed), names(&fresh), "{sub}/: {HINT}");
        for (name, bytes) in &fresh {
            assert!(committed[name] == *bytes, "{sub}/{name} differs: {HINT}");
        }
    }
}

#[test]
fn completions_offer_the_public_commands_only() {
    let bash = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/topo.bash")).unwrap();
    for cmd in ["show", "paths", "analyze", "fixtures", "--fixture", "--nodes", "--explain"] {
        assert!(bash.contains(cmd), "{cmd}");
    }
    assert!(!bash.contains("generate"));
}

/// The committed man pages name each option's value and have examples; completions offer
/// the built-in fixtures.
#[test]
fn man_pages_and_completions_say_enough() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let paths = read("man/topo-paths.1");
    assert!(paths.contains("[\\fB\\-\\-topo\\fR \\fIFILE\\fR]"), "synopsis without the value name");
    assert!(paths.contains(".SH EXAMPLES") && paths.contains("COLUMNS=100 topo paths"), "no examples");
    assert!(read("man/topo-check.1").contains("topo check \\-\\-topo node.xml"));
    // A nested command has a page of its own, which its parent's page names.
    let allreduce = read("man/topo-bench-allreduce.1");
    assert!(allreduce.contains(".TH topo-bench-allreduce 1"), "{allreduce}");
    assert!(allreduce.contains("[\\fB\\-b\\fR|\\fB\\-\\-minbytes\\fR \\fISIZE\\fR]"), "{allreduce}");
    assert!(allreduce.contains("topo bench allreduce \\-\\-compile\\-only \\-\\-arch sm_90"), "{allreduce}");
    assert!(allreduce.contains(".SH \"SEE ALSO\"\n\\fBtopo\\-bench\\fR(1)"), "{allreduce}");
    let bench = read("man/topo-bench.1");
    assert!(bench.contains(".SH \"SEE ALSO\"\n\\fBtopo\\-bench\\-allreduce\\fR(1)"), "{bench}");
    // No page names the `help` subcommand's, which does not exist.
    assert!(!read("man/topo.1").contains("topo\\-help(1)") && !bench.contains("help(1)"));
    for f in ["completions/topo.bash", "completions/_topo", "completions/topo.fish"] {
        assert!(read(f).contains("gb200-nvl72-tray"), "{f}: no fixture names");
    }
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_topo")).args(["detect", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("fake-NVML") && !help.contains("topo::discover"), "{help}");
}

/// Every man page says what its exit statuses mean and which variables it reads, and the
/// VERSION text is paragraphs man fills (not terminal lines cut short).
#[test]
fn man_pages_have_exit_status_environment_and_a_filled_version() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    for (name, bytes) in files(&dir) {
        let page = String::from_utf8(bytes).unwrap();
        assert!(page.contains(".SH \"EXIT STATUS\"\n.TP\n0\n"), "{name}: no EXIT STATUS");
        assert!(page.contains(".TP\n2\nBad input or usage"), "{name}: exit status 2 not said");
        assert!(page.contains(".SH ENVIRONMENT\n") && page.contains("TOPO_NCCL_VERSION"), "{name}: no ENVIRONMENT");
    }
    let top = std::fs::read_to_string(dir.join("topo.1")).unwrap();
    let version = top.split(".SH VERSION\n").nth(1).expect("topo.1: VERSION");
    assert!(version.contains(".PP\n2.18.1, 2.18.3,"), "{version}");
    assert!(!version.lines().any(|l| l.starts_with("  ")), "indented terminal lines in VERSION: {version}");
    let diff = std::fs::read_to_string(dir.join("topo-diff.1")).unwrap();
    assert!(diff.contains(".TP\n1\nThe dumps differ.\n"), "{diff}");
}
