//! Text for people fits the terminal: every command that prints tables or verdicts
//! (show, analyze, search, tune, diff, fleet, check, log) keeps each line within
//! COLUMNS when it is set, colours its verdicts with `--color always` (or `auto` on a
//! terminal without NO_COLOR), and, piped without COLUMNS, prints what it always has.
//! (`topo paths` has its own tests in tests/cli.rs.)

use std::path::{Path, PathBuf};

use assert_cmd::Command;

mod common;

/// The binary, with no NCCL_* variable, COLUMNS or NO_COLOR leaking in.
fn topo() -> Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("topo");
    for (k, _) in std::env::vars_os() {
        let k_ = k.to_string_lossy();
        if k_.starts_with("NCCL_") || k_ == "COLUMNS" || k_ == "NO_COLOR" {
            cmd.env_remove(k);
        }
    }
    cmd
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// A dump of ../shared/fixtures/nccl, or `None` (the skip said) when ../shared is absent.
fn shared(test: &str, name: &str) -> Option<String> {
    let p = root().join("../shared/fixtures/nccl").join(name);
    if !p.exists() {
        common::skip(test, &format!("../shared/fixtures/nccl/{name} is absent"));
        return None;
    }
    Some(p.to_str().unwrap().to_string())
}

/// Standard output of `topo ARGS` with these variables (exit status 0 or 1: diff, fleet,
/// check and log say what they found by it).
fn stdout(args: &[&str], vars: &[(&str, &str)]) -> String {
    let mut c = topo();
    for (k, v) in vars {
        c.env(k, v);
    }
    let out = c.args(args).output().unwrap();
    let code = out.status.code();
    assert!(matches!(code, Some(0 | 1)), "topo {args:?}: {code:?}\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Every line of `text` fits in `width` columns.
fn assert_fits(text: &str, width: usize, what: &str) {
    assert!(!text.is_empty(), "{what}: no output");
    for l in text.lines() {
        let n = l.chars().count();
        assert!(n <= width, "{what}: a line of {n} characters over {width}:\n{l}");
    }
}

/// With COLUMNS=`width`, no line of `topo ARGS` is longer; piped without COLUMNS, the
/// same command has longer lines (there was something to fit) and no colour.
fn fits_at(args: &[&str], width: usize) {
    let what = args.join(" ");
    let fitted = stdout(args, &[("COLUMNS", &width.to_string())]);
    assert_fits(&fitted, width, &what);
    assert!(!fitted.contains('\x1b'), "{what}: colours into a pipe");
    let whole = stdout(args, &[]);
    assert!(whole.lines().any(|l| l.chars().count() > width), "{what}: nothing to fit in {width} columns");
    assert!(!whole.contains('\x1b'), "{what}: colours into a pipe");
}

/// `--color always` colours (NO_COLOR or not); `never`, `auto` into a pipe, and `auto`
/// with NO_COLOR do not; the text without its escapes is the text without colours.
fn colours_when_asked(args: &[&str]) {
    let what = args.join(" ");
    let with = |color: &str, vars: &[(&str, &str)]| stdout(&[args, &["--color", color]].concat(), vars);
    let coloured = with("always", &[]);
    assert!(coloured.contains('\x1b'), "{what}: no colour with --color always:\n{coloured}");
    assert!(with("always", &[("NO_COLOR", "1")]).contains('\x1b'), "{what}: --color always wins over NO_COLOR");
    let plain = with("never", &[]);
    assert!(!plain.contains('\x1b'), "{what}: colour with --color never");
    assert!(!with("auto", &[]).contains('\x1b'), "{what}: colour into a pipe");
    assert!(!with("auto", &[("NO_COLOR", "1")]).contains('\x1b'), "{what}: colour with NO_COLOR");
    assert_eq!(topo::ansi::strip(&coloured), plain, "{what}: colours change the text");
    assert_eq!(stdout(args, &[]), plain, "{what}: --color never is the default into a pipe");
}

#[test]
fn show_fits_and_colours() {
    fits_at(&["show", "--fixture", "dgx-h100", "--nodes", "2"], 80);
    colours_when_asked(&["show", "--fixture", "dgx1-v100"]);
    if let Some(f) = shared("show_fits_and_colours", "aws-p5-efa32.xml") {
        fits_at(&["show", "--topo", &f], 100);
        assert_fits(&stdout(&["show", "--topo", &f], &[("COLUMNS", "80")]), 80, "show aws-p5-efa32");
    }
}

/// `topo fixtures` and every `--help` fit the terminal (COLUMNS), breaking between words.
#[test]
fn fixtures_and_help_fit() {
    fits_at(&["fixtures"], 100);
    fits_at(&["fixtures"], 80);
    for args in [&["--help"][..], &["paths", "--help"], &["bench", "allreduce", "--help"], &["log", "--help"]] {
        for width in [60, 80, 100] {
            let text = stdout(args, &[("COLUMNS", &width.to_string())]);
            assert_fits(&text, width, &format!("{args:?} at {width}"));
        }
    }
}

#[test]
fn analyze_fits_and_colours() {
    fits_at(&["analyze", "--fixture", "dgx-h100"], 80);
    colours_when_asked(&["analyze", "--fixture", "dgx-h100"]);
    // JSON is never coloured nor wrapped.
    let json = stdout(&["analyze", "--json", "--fixture", "gh200", "--color", "always"], &[("COLUMNS", "40")]);
    assert!(!json.contains('\x1b'));
    assert_eq!(json, stdout(&["analyze", "--json", "--fixture", "gh200"], &[]));
    if let Some(f) = shared("analyze_fits_and_colours", "aws-p5-efa32.xml") {
        fits_at(&["analyze", "--topo", &f], 100);
    }
}

#[test]
fn search_fits_and_colours() {
    fits_at(&["search", "--fixture", "dgx-h100", "--nodes", "2"], 80);
    fits_at(&["search", "--fixture", "gb200-nvl72-tray"], 100);
    let graph_file = root().join("fixtures/graphs/workstation-4gpu-ring4.xml");
    let graph_file = graph_file.to_str().unwrap();
    colours_when_asked(&["search", "--fixture", "workstation-4gpu", "--graph-file", graph_file]);
    fits_at(&["search", "--fixture", "workstation-4gpu", "--graph-file", graph_file], 60);
    if let Some(f) = shared("search_fits_and_colours", "aws-p5-efa32.xml") {
        fits_at(&["search", "--topo", &f, "--nodes", "2"], 100);
        assert_fits(&stdout(&["search", "--topo", &f, "--nodes", "2"], &[("COLUMNS", "80")]), 80, "search");
    }
}

#[test]
fn tune_fits_and_colours() {
    fits_at(&["tune", "--table", "--fixture", "dgx-h100", "--nodes", "2"], 80);
    colours_when_asked(&["tune", "--fixture", "dgx-h100"]);
    // The sweep's rows stay rows: one per size, a note for each bottleneck.
    let t = stdout(&["tune", "--fixture", "dgx-h100", "-b", "1K", "-e", "1M"], &[("COLUMNS", "80")]);
    let rows: Vec<&str> = t.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rows.len(), 11, "{t}");
    assert!(rows.iter().all(|r| r.trim_end().ends_with(']')), "{t}");
    assert!(t.contains("\n# bottlenecks"), "{t}");
    if let Some(f) = shared("tune_fits_and_colours", "aws-p5-efa32.xml") {
        fits_at(&["tune", "--table", "--topo", &f, "--nodes", "2"], 100);
    }
}

#[test]
fn diff_fits_and_colours() {
    fits_at(&["diff", "fixture:dgx-h100", "fixture:dgx1-v100"], 80);
    fits_at(&["diff", "fixture:dgx-h100", "--nccl-version", "2.21.5", "--against-version", "2.28.9"], 80);
    colours_when_asked(&["diff", "fixture:dgx-h100", "fixture:dgx1-v100"]);
    let same = stdout(&["diff", "fixture:gh200", "fixture:gh200", "--color", "always"], &[]);
    assert!(same.contains("\x1b[38;5;10msame topology\x1b[39m"), "{same}");
    if let (Some(a), Some(b)) =
        (shared("diff_fits_and_colours", "aws-p4d.xml"), shared("diff_fits_and_colours", "aws-p5-efa32.xml"))
    {
        fits_at(&["diff", &a, &b], 100);
    }
}

#[test]
fn fleet_fits_and_colours() {
    let dir = tempfile::tempdir().unwrap();
    for (i, name) in ["dgx-h100", "dgx-h100", "dgx-h100", "dgx1-v100"].iter().enumerate() {
        let text = topo::fixtures::get(name).unwrap().load().unwrap().0;
        std::fs::write(dir.path().join(format!("node{i}.xml")), topo::xml::write(&text)).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    fits_at(&["fleet", d], 80);
    colours_when_asked(&["fleet", d]);
    let alike = stdout(&["fleet", &format!("{d}/node0.xml"), &format!("{d}/node1.xml"), "--color", "always"], &[]);
    assert!(alike.contains("\x1b[38;5;10mall alike\x1b[39m"), "{alike}");
    if let Some(f) = shared("fleet_fits_and_colours", "aws-p5-efa32.xml") {
        let shared_dir = Path::new(&f).parent().unwrap().to_str().unwrap().to_string();
        fits_at(&["fleet", &shared_dir], 100);
    }
}

#[test]
fn check_fits_and_colours() {
    let ws = root().join("fixtures/fsroot/ws-4gpu");
    let ws = ws.to_str().unwrap();
    fits_at(&["check", "--root", ws], 80);
    colours_when_asked(&["check", "--root", ws]);
    let fine = stdout(&["check", "--fixture", "dgx-h100", "--color", "always"], &[]);
    assert!(fine.contains("\x1b[38;5;10mno problem found"), "{fine}");
    if let Some(f) = shared("check_fits_and_colours", "aws-p5-efa32.xml") {
        let out = stdout(&["check", "--topo", &f], &[("COLUMNS", "100")]);
        assert_fits(&out, 100, "check aws-p5-efa32");
    }
}

#[test]
fn log_fits_and_colours() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("nccl.log");
    // A log of 64 ranks with long lines: the ring orders and trees of 16 channels.
    let mut text = String::from("host-a:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.8\n");
    text.push_str("host-a:1:1 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /a/very/long/path/to/a/folder/of/topology/files/for/this/cluster/node-0042.xml\n");
    for c in 0..16 {
        let order: Vec<String> = (0..64).map(|r| format!("{:>2}", (r * 3 + c) % 64)).collect();
        text.push_str(&format!("host-a:1:1 [0] NCCL INFO Channel {c:02}/16 :  {}\n", order.join(" ")));
    }
    text.push_str("host-a:1:1 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n");
    let trees: Vec<String> = (0..16).map(|c| format!("[{c}] 1/-1/-1->0->-1")).collect();
    text.push_str(&format!("host-a:1:1 [0] NCCL INFO Trees {}\n", trees.join(" ")));
    std::fs::write(&log, text).unwrap();
    let log = log.to_str().unwrap();
    fits_at(&["log", log], 60);
    colours_when_asked(&["log", log]);
    // Written to a file, the text is as into a pipe: unwrapped, no colour unless always.
    let out = dir.path().join("report.txt");
    let o = out.to_str().unwrap();
    stdout(&["log", log, "-o", o], &[("COLUMNS", "60")]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), stdout(&["log", log], &[]));
    if let Some(f) = shared("log_fits_and_colours", "aws-p5-efa32.xml") {
        let logs = Path::new(&f).parent().unwrap().parent().unwrap().join("logs");
        for l in
            std::fs::read_dir(logs).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".txt"))
        {
            let p = l.path();
            // (A log topo cannot read exits 2 with nothing on stdout.)
            let out = topo().env("COLUMNS", "100").args(["log", "-v"]).arg(&p).output().unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(out.status.code() == Some(2) || !text.is_empty(), "{}", p.display());
            for l in text.lines() {
                assert!(l.chars().count() <= 100, "{}: a line over 100:\n{l}", p.display());
            }
        }
    }
}

/// On a terminal, `auto` colours unless NO_COLOR is set, and text fits the terminal.
/// Needs `script` (util-linux) to give topo a terminal.
#[test]
fn auto_colours_on_a_terminal_unless_no_color() {
    let has_script =
        common::run_external(std::process::Command::new("script").arg("--version"), None, "script --version")
            .is_ok_and(|o| o.status.success());
    if !has_script {
        common::skip("auto_colours_on_a_terminal_unless_no_color", "`script` (util-linux) is not installed");
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("topo");
    let on_tty = |no_color: bool| {
        let mut c = std::process::Command::new("script");
        c.args(["-qec", &format!("'{}' diff fixture:dgx-h100 fixture:dgx1-v100", bin.display()), "/dev/null"]);
        c.env("COLUMNS", "70").env_remove("NO_COLOR");
        if no_color {
            c.env("NO_COLOR", "1");
        }
        let out = common::run_external(&mut c, None, "script -qec 'topo diff ...'").unwrap();
        String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n")
    };
    let coloured = on_tty(false);
    assert!(coloured.contains("\x1b[38;5;9merrors\x1b[39m"), "{coloured}");
    assert_fits(&topo::ansi::strip(&coloured), 70, "diff on a terminal");
    let plain = on_tty(true);
    assert!(plain.contains("errors:") && !plain.contains('\x1b'), "{plain}");
}
