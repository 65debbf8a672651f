//! The `topo` binary end to end: every command on the built-in fixtures, and every kind
//! of bad input (exit status 2, a message naming the file/line/attribute, nothing on
//! stdout).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;

mod common;

/// The binary, with no NCCL_* variable leaking in from the environment running the tests.
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

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

fn stdout_of(args: &[&str]) -> String {
    let out = topo().args(args).assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

/// A topology file in a fresh folder; the folder lives as long as the returned guard.
fn write_topo(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.xml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// Exit status 2, nothing on stdout, and stderr holding every one of `needles`.
fn fails_with(args: &[&str], needles: &[&str]) {
    let mut a = topo().args(args).assert().code(2).stdout(predicate::str::is_empty());
    for n in needles {
        a = a.stderr(contains(*n));
    }
    a.stderr(contains("panicked").not());
}

/// One CPU with two GPUs; `gpu0_inner` goes inside the first `<gpu>`, `extra` after the GPUs.
fn two_gpus(width: &str, sm: &str, gpu0_inner: &str, extra: &str) -> String {
    format!(
        r#"<system version="1">
  <cpu numaid="0" affinity="ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:01:00.0" class="0x030000" link_speed="16.0 GT/s PCIe" link_width="{width}">
      <gpu dev="0" sm="{sm}" rank="0" gdr="1">
{gpu0_inner}      </gpu>
    </pci>
    <pci busid="0000:02:00.0" class="0x030000" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="{sm}" rank="1" gdr="1"/>
    </pci>
{extra}  </cpu>
</system>
"#
    )
}

fn nic(speed: &str) -> String {
    format!(
        r#"    <pci busid="0000:05:00.0" class="0x020000" link_speed="16.0 GT/s PCIe" link_width="16">
      <nic>
        <net name="mlx5_0" dev="0" speed="{speed}" port="1" gdr="1"/>
      </nic>
    </pci>
"#
    )
}

fn path_arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---------------------------------------------------------------- errors

#[test]
fn missing_file() {
    fails_with(&["show", "--topo", "/nonexistent/topo.xml"], &["topo: error: /nonexistent/topo.xml", "No such file"]);
}

#[test]
fn directory_instead_of_file() {
    let dir = tempfile::tempdir().unwrap();
    fails_with(&["paths", "--topo", path_arg(dir.path())], &["is a directory"]);
}

#[test]
fn unreadable_file() {
    // A path that runs through a regular file cannot be opened, whoever runs the tests.
    let (_dir, path) = write_topo("<system version=\"1\"/>\n");
    let through = path.join("inner.xml");
    fails_with(&["show", "--topo", path_arg(&through)], &["inner.xml", "Not a directory"]);
    // Bytes that are not text.
    let (_d2, bin) = write_topo("");
    std::fs::write(&bin, b"<system version=\"1\">\xff\xfe</system>\n").unwrap();
    fails_with(&["show", "--topo", path_arg(&bin)], &["not UTF-8"]);
    // No read permission (root reads it anyway: then there is nothing to check).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let (_d3, locked) = write_topo(&two_gpus("16", "80", "", ""));
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        if std::fs::read(&locked).is_ok() {
            common::skip("unreadable_file", "the permission case: this user reads files with mode 000 (root)");
        } else {
            fails_with(&["show", "--topo", path_arg(&locked)], &["Permission denied"]);
        }
    }
}

#[test]
fn malformed_xml_names_line_and_column() {
    let (_dir, path) = write_topo("<system version=\"1\">\n  <cpu numaid=\"0\">\n  </pci>\n</system>\n");
    fails_with(&["show", "--topo", path_arg(&path)], &["t.xml:3:", "malformed XML"]);
    let (_d2, path) = write_topo("<system version=\"1\">\n  <cpu numaid=\"0\">\n");
    fails_with(
        &["analyze", "--json", "--topo", path_arg(&path)],
        &["malformed XML", "end of file inside <cpu> opened on line 2"],
    );
}

#[test]
fn wrong_version() {
    let (_dir, path) = write_topo("<system version=\"2\">\n  <cpu numaid=\"0\"/>\n</system>\n");
    fails_with(&["show", "--topo", path_arg(&path)], &["line 1", "version=\"2\"", "RCCL"]);
    let (_d2, path) = write_topo("<system version=\"3\"/>\n");
    fails_with(&["paths", "--topo", path_arg(&path)], &["NCCL reads only version 1"]);
    let (_d3, path) = write_topo("<topology version=\"1\"/>\n");
    fails_with(&["paths", "--topo", path_arg(&path)], &["<topology>"]);
}

#[test]
fn dangling_nvlink_target_in_every_command() {
    let link = "        <nvlink target=\"0000:09:00.0\" count=\"4\" tclass=\"0x030000\"/>\n";
    let (_dir, path) = write_topo(&two_gpus("16", "80", link, ""));
    let p = path_arg(&path);
    let needles =
        ["t.xml: line 5: NVLink target 0000:09:00.0 is not a GPU in this file", "drop these 4 links", "<nvlink>"];
    for args in [
        vec!["show", "--topo", p],
        vec!["show", "--xml", "--topo", p],
        vec!["show", "--json", "--topo", p],
        vec!["paths", "--topo", p],
        vec!["paths", "--dot", "--topo", p],
        vec!["analyze", "--json", "--topo", p],
    ] {
        fails_with(&args, &needles);
    }
}

#[test]
fn nvlinks_nccl_writes_itself_are_accepted() {
    // To the invisible NVSwitch, to the peer GPU, and to the GPU itself (Azure dumps).
    let links = "        <nvlink target=\"fffffff:ffff:ff\" count=\"12\" tclass=\"0x068000\"/>\n        <nvlink target=\"0000:02:00.0\" count=\"2\" tclass=\"0x030000\"/>\n        <nvlink target=\"0000:01:00.0\" count=\"2\" tclass=\"0x030000\"/>\n";
    let (_dir, path) = write_topo(&two_gpus("16", "80", links, ""));
    topo().args(["paths", "--topo", path_arg(&path)]).assert().success().stdout(contains("GPU0"));
}

#[test]
fn absurd_numbers_name_the_attribute_and_line() {
    let cases: Vec<(String, Vec<&str>)> = vec![
        (two_gpus("12", "80", "", ""), vec!["line 3", "link_width=\"12\""]),
        (two_gpus("64", "80", "", ""), vec!["line 3", "link_width=\"64\""]),
        (two_gpus("16", "5", "", ""), vec!["line 4", "sm=\"5\""]),
        (two_gpus("16", "1000", "", ""), vec!["line 4", "sm=\"1000\""]),
        (
            two_gpus("16", "90", "        <nvlink target=\"fffffff:ffff:ff\" count=\"40\" tclass=\"0x068000\"/>\n", ""),
            vec!["line 5", "<nvlink> count=\"40\""],
        ),
        (
            two_gpus("16", "90", "        <nvlink target=\"fffffff:ffff:ff\" count=\"-2\" tclass=\"0x068000\"/>\n", ""),
            vec!["line 5", "count=\"-2\""],
        ),
        (two_gpus("16", "90", "        <c2c bw=\"-3\" count=\"10\"/>\n", ""), vec!["line 5", "<c2c> bw=\"-3\""]),
        (
            two_gpus("16", "90", "        <c2c bw=\"40000\" count=\"5000\"/>\n", ""),
            vec!["line 5", "<c2c> count=\"5000\""],
        ),
        (two_gpus("16", "80", "", &nic("-100000")), vec!["line 12", "speed=\"-100000\""]),
        (two_gpus("16", "80", "", &nic("40000000")), vec!["line 12", "speed=\"40000000\""]),
    ];
    for (text, needles) in &cases {
        let (_dir, path) = write_topo(text);
        let mut all = vec!["t.xml"];
        all.extend(needles);
        fails_with(&["show", "--topo", path_arg(&path)], &all);
    }
    // The same file with sane numbers goes through.
    let (_dir, path) = write_topo(&two_gpus("16", "80", "", &nic("400000")));
    topo().args(["show", "--topo", path_arg(&path)]).assert().success();
}

#[test]
fn file_over_64_mib_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.xml");
    let f = std::fs::File::create(&path).unwrap();
    // Sparse: no disk space is used.
    f.set_len(64 * 1024 * 1024 + 1).unwrap();
    drop(f);
    fails_with(&["show", "--topo", path_arg(&path)], &["huge.xml", "over the 64 MiB limit"]);
}

#[test]
fn usage_errors() {
    fails_with(&["show", "--fixture", "dgx-z9"], &["unknown fixture 'dgx-z9'", "dgx-h100"]);
    fails_with(&["paths", "--fixture", "gh200", "--nodes", "0"], &["--nodes"]);
    fails_with(&["paths", "--json", "--dot", "--fixture", "gh200"], &["cannot be used with"]);
    fails_with(&["frobnicate"], &["unrecognized subcommand"]);
    fails_with(&["show", "--topo", "a.xml", "--fixture", "gh200"], &["cannot be used with"]);
    // Every usage error is one `topo: error:` line; clap's "did you mean" tip stays.
    for args in [&["show", "--nodes", "0"][..], &["shwo"], &["tune", "-f", "1.5"], &["search", "--rank", "-1"]] {
        let out = topo().args(args).assert().code(2).stdout(predicate::str::is_empty()).get_output().clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("topo: error: "), "{args:?}: {err}");
    }
    fails_with(&["show", "--node", "2"], &["tip: a similar argument exists: '--nodes'"]);
}

#[test]
fn bad_nccl_variable_values_are_refused_or_warned() {
    // NCCL_NET_FORCE_MERGE naming a device that does not exist stops the command.
    let mut cmd = topo();
    cmd.env("NCCL_NET_FORCE_MERGE", "mlx5_0,nosuch0").args(["paths", "--fixture", "dgx-h100"]);
    cmd.assert().code(2).stdout(predicate::str::is_empty()).stderr(contains("NCCL_NET_FORCE_MERGE"));
    // A value NCCL ignores is a warning, and the command goes on.
    topo()
        .env("NCCL_P2P_LEVEL", "fast")
        .args(["paths", "--fixture", "gh200"])
        .assert()
        .success()
        .stderr(contains("NCCL_P2P_LEVEL=\"fast\""));
}

// ---------------------------------------------------------------- normal use

#[test]
fn show_describes_the_system() {
    let out = stdout_of(&["show", "--fixture", "dgx-h100"]);
    assert!(out.starts_with("fixture:dgx-h100: 8 GPU(s) as ranks 0..7 of 8"), "{out}");
    assert!(out.contains("CPU 0 (x86_64 Intel Sapphire Rapids"), "{out}");
    assert!(out.contains("NVS/0 <-> DEV of GPU0  NVL 370.8 GB/s"), "{out}");
    assert!(out.contains("CPU/0 <-> CPU/1  SYS 22.0 GB/s"), "{out}");
    assert!(!out.contains("CPU/1 <-> CPU/0"), "{out}");
}

#[test]
fn show_xml_is_nccl_xml() {
    let out = stdout_of(&["show", "--xml", "--fixture", "dgx1-v100"]);
    assert!(out.starts_with("<system version=\"1\">\n"), "{out}");
    let (doc, diags) = topo::xml::parse(&out, None).unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(topo::xml::write(&doc), out);
    assert_eq!(doc.preorder().iter().filter(|&&i| doc.name(i) == "gpu").count(), 8);
}

#[test]
fn show_json_lists_nodes_and_links() {
    let v = json(&topo().args(["show", "--json", "--fixture", "gh200"]).assert().success().get_output().stdout);
    assert_eq!(v["input"], "fixture:gh200");
    let nodes = v["nodes"].as_array().unwrap();
    assert!(nodes.iter().any(|n| n["type"] == "GPU"));
    let c2c = nodes.iter().flat_map(|n| n["links"].as_array().unwrap()).filter(|l| l["type"] == "C2C").count();
    assert_eq!(c2c, 2, "one C2C link each way");
}

#[test]
fn paths_prints_the_matrix_and_verdicts() {
    let out = stdout_of(&["paths", "--fixture", "dgx-h100"]);
    assert!(out.contains("Paths (NCCL path type and bandwidth"), "{out}");
    assert!(out.contains("NVL 370.8"), "{out}");
    assert!(out.contains("P2P level PXB (default PXB)"), "{out}");
    assert!(out.contains("GPUDirect RDMA:"), "{out}");
    assert!(!out.contains("Routes:"), "{out}");
    let explained = stdout_of(&["paths", "--explain", "--fixture", "dgx-h100"]);
    assert!(explained.contains("Routes:"), "{explained}");
    assert!(explained.contains("GPU0 (0000:1a:00.0) -LOC-> DEV of GPU0 -NVL-> NVS/0"), "{explained}");
    assert!(explained.contains("is within the P2P level PXB"), "{explained}");
}

#[test]
fn paths_json_has_paths_and_verdicts() {
    let v = json(&topo().args(["paths", "--json", "--fixture", "dgx1-v100"]).assert().success().get_output().stdout);
    for key in ["input", "levels", "nets", "paths", "p2p", "gdr", "trimmed"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["paths"]["gpu_gpu"].as_array().unwrap().len(), 64);
    assert_eq!(v["p2p"].as_array().unwrap().len(), 56);
    assert_eq!(v["gdr"].as_array().unwrap().len(), 32);
}

/// The NIC-to-NIC paths the terminal's note points to are in `--json`, as the whole
/// matrix prints them.
#[test]
fn paths_json_has_nic_to_nic_paths() {
    let v = json(&topo().args(["paths", "--json", "--fixture", "dgx-h100"]).assert().success().get_output().stdout);
    let nn = v["paths"]["net_net"].as_array().expect("paths.net_net");
    assert_eq!(nn.len(), 10 * 10, "every pair of the 10 NETs");
    let p = nn.iter().find(|p| p["from"] == 12 && p["to"] == 13).expect("NET12 to NET13");
    assert_eq!((p["type"].as_str(), p["bw"].as_f64()), (Some("SYS"), Some(22.0)), "{p}");
    let whole = stdout_of(&["paths", "--fixture", "dgx-h100"]);
    let row = whole.lines().find(|l| l.trim_start().starts_with("NET12 ")).unwrap();
    assert!(row.contains("SYS 22.0"), "{row}");
}

#[test]
fn paths_dot_is_graphviz() {
    let out = stdout_of(&["paths", "--dot", "--fixture", "dgx-h100"]);
    assert!(out.starts_with("graph topo {"), "{out}");
    assert!(out.trim_end().ends_with('}'), "{out}");
    // Render it when Graphviz is installed.
    let Ok(res) =
        common::run_external(std::process::Command::new("dot").arg("-Tsvg"), Some(out.as_bytes()), "dot -Tsvg")
    else {
        common::skip("paths_dot_is_graphviz", "rendering with Graphviz: `dot` is not installed");
        return;
    };
    assert!(res.status.success(), "dot failed: {}", String::from_utf8_lossy(&res.stderr));
    assert!(res.stderr.is_empty(), "dot warned: {}", String::from_utf8_lossy(&res.stderr));
    assert!(String::from_utf8_lossy(&res.stdout).contains("<svg"));
}

#[test]
fn analyze_json_is_schema_1() {
    let v = json(&topo().args(["analyze", "--json", "--fixture", "dgx-h100"]).assert().success().get_output().stdout);
    for key in [
        "schema",
        "nccl_version",
        "input",
        "nodes",
        "env",
        "flags",
        "gpus",
        "nets",
        "system",
        "levels",
        "trimmed",
        "paths",
        "p2p",
        "gdr",
        "graphs",
        "warnings",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["schema"], 1);
    assert_eq!(v["nccl_version"], "2.30.7");
    assert_eq!(v["nodes"], 1);
    assert_eq!(v["gpus"].as_array().unwrap().len(), 8);
    assert_eq!(v["gpus"][0]["busid"], "0000:1a:00.0");
    assert_eq!(v["system"]["inter"], false);
    for g in ["ring", "tree", "nvls", "collnet_chain", "collnet_direct"] {
        assert!(v["graphs"].get(g).is_some(), "graphs.{g}");
    }
    // The text form is the show tree and the paths report.
    let text = stdout_of(&["analyze", "--fixture", "gh200"]);
    assert!(text.contains("NCCL system:") && text.contains("Paths (NCCL"), "{text}");
}

#[test]
fn fixtures_lists_every_machine() {
    let out = stdout_of(&["fixtures"]);
    for f in topo::fixtures::all() {
        assert!(out.contains(f.name), "{out}");
    }
}

#[test]
fn several_nodes_route_through_the_network() {
    let one = json(&topo().args(["analyze", "--json", "--fixture", "dgx-h100"]).assert().success().get_output().stdout);
    let two = json(
        &topo()
            .args(["analyze", "--json", "--nodes", "2", "--fixture", "dgx-h100"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(two["nodes"], 2);
    assert_eq!(two["system"]["inter"], true);
    assert_ne!(one["system"]["max_bw"], two["system"]["max_bw"]);
    let out = stdout_of(&["show", "--nodes", "2", "--fixture", "dgx-h100"]);
    assert!(out.contains("ranks 0..7 of 16, ") && out.contains(", 2 nodes"), "{out}");
    assert!(out.contains("inter-node"), "{out}");
}

/// (from, to) -> transport, from `paths --json`.
fn transports(cmd: &mut Command) -> Vec<(i64, i64, String)> {
    let v = json(&cmd.assert().success().get_output().stdout);
    v["p2p"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["from"].as_i64().unwrap(), p["to"].as_i64().unwrap(), p["transport"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn nccl_variables_change_the_verdicts() {
    // Four GPUs on CPU root ports: PHB paths, above the default PXB level.
    let default = transports(topo().args(["paths", "--json", "--fixture", "workstation-4gpu"]));
    assert!(default.iter().all(|t| t.2 == "SHM"), "{default:?}");
    let sys =
        transports(topo().env("NCCL_P2P_LEVEL", "SYS").args(["paths", "--json", "--fixture", "workstation-4gpu"]));
    assert!(sys.iter().all(|t| t.2 == "P2P"), "{sys:?}");
    // The driver saying no peer access wins over the level.
    let geforce = transports(topo().env("NCCL_P2P_LEVEL", "SYS").args([
        "paths",
        "--json",
        "--no-p2p-support",
        "--fixture",
        "workstation-4gpu",
    ]));
    assert!(geforce.iter().all(|t| t.2 == "SHM"), "{geforce:?}");
    // NVLink is P2P unless P2P is disabled.
    let nvl = transports(topo().args(["paths", "--json", "--fixture", "dgx-h100"]));
    assert!(nvl.iter().all(|t| t.2 == "P2P"), "{nvl:?}");
    let off = transports(topo().env("NCCL_P2P_DISABLE", "1").args(["paths", "--json", "--fixture", "dgx-h100"]));
    assert!(off.iter().all(|t| t.2 != "P2P"), "{off:?}");
    // The variables in force are reported.
    let v = json(
        &topo()
            .env("NCCL_P2P_LEVEL", "SYS")
            .args(["analyze", "--json", "--fixture", "gh200"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(v["env"]["NCCL_P2P_LEVEL"], "SYS");
    assert_eq!(v["levels"]["p2p"], "SYS");
}

#[test]
fn model_flags_are_reported() {
    let v = json(
        &topo()
            .args(["analyze", "--json", "--no-nic-fusion", "--collnet", "--no-nvls", "--fixture", "dgx-h100"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(
        v["flags"],
        serde_json::json!({"p2p_support": true, "nic_fusion": false, "collnet": true, "nvls": false})
    );
    assert!(v["nets"].as_array().unwrap().iter().all(|n| n.get("virtual").is_none()), "no fused NICs");
}

#[test]
fn version_and_help() {
    topo().arg("-V").assert().success().stdout(format!("topo {}\n", env!("CARGO_PKG_VERSION")));
    // The long form lists the NCCL releases modelled, the checked ones marked.
    let long = stdout_of(&["--version"]);
    assert!(long.starts_with(&format!("topo {}\nmodels NCCL 2.18.1 to 2.30.7", env!("CARGO_PKG_VERSION"))), "{long}");
    assert!(long.contains("2.21.5*") && long.contains("2.26.2,") && long.contains("2.30.7*"), "{long}");
    let help = stdout_of(&["--help"]);
    for cmd in ["show", "paths", "analyze", "fixtures"] {
        assert!(help.contains(cmd), "{help}");
    }
    assert!(!help.contains("generate"), "the generate command is hidden: {help}");
    let paths = stdout_of(&["paths", "--help"]);
    for flag in [
        "--topo",
        "--fixture",
        "--nodes",
        "--no-p2p-support",
        "--no-nic-fusion",
        "--collnet",
        "--no-nvls",
        "--explain",
        "--dot",
    ] {
        assert!(paths.contains(flag), "{paths}");
    }
}

/// `topo diff` of one machine under two NCCL releases: what an upgrade changes, with the
/// changes of NCCL that explain it. Guards the 2.28.3 PXN_C2C default (C2C GPUs reach
/// the other socket's NICs through a peer from then on).
#[test]
fn diff_across_releases_explains_the_upgrade() {
    let args = ["diff", "fixture:gb200-nvl72-tray", "--nccl-version", "2.27.5", "--against-version", "2.30.7"];
    let out = topo().args(args).args(["--nodes", "2"]).assert().code(1).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("fixture:gb200-nvl72-tray (NCCL 2.27.5) -> fixture:gb200-nvl72-tray (NCCL 2.30.7)"),
        "{text}"
    );
    assert!(text.contains("NCCL GPU->NET path: SYS 6.0 GB/s -> PXN 48.0 GB/s"), "{text}");
    assert!(text.contains("what NCCL changed from 2.27.5 to 2.30.7 that applies to this machine:"), "{text}");
    assert!(text.contains("2.28.3  NCCL_PXN_C2C defaults to 1"), "{text}");
    // A change that cannot touch this machine (two GPUs on NVSwitch) is not listed.
    assert!(!text.contains("NVLS) is set up with two GPUs"), "{text}");
    let json: serde_json::Value =
        serde_json::from_slice(&topo().args(args).args(["--nodes", "2", "--json"]).output().unwrap().stdout).unwrap();
    assert_eq!(json["nccl"]["a"], "2.27.5");
    assert_eq!(json["nccl"]["b"], "2.30.7");
    assert!(json["nccl"]["changes"].as_array().unwrap().iter().any(|c| c["since"] == "2.28.3" && c["scope"] == "c2c"));
    // One release against itself: the same decisions, exit 0, no release notes.
    let same = stdout_of(&["diff", "fixture:dgx-h100", "--against-version", "2.30.7"]);
    assert!(same.contains("same topology") && !same.contains("what NCCL changed"), "{same}");
    topo()
        .args(["diff", "fixture:dgx-h100", "--against-version", "2.26.4"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--against-version: NCCL 2.26.4 is not a release topo models"));
    topo()
        .args(["diff", "fixture:dgx-h100"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("were not provided: <B>"));
}

/// Two Hopper GPUs with one NVLink each to an NVSwitch, under one PCIe Gen5 switch
/// (48 GB/s, faster than the 20.6 GB/s link). NCCL 2.30.7 keeps the path of the
/// better type (NVL); before (paths.cc ncclTopoSetPaths at 2.30.4), the faster path of
/// the same length won (PIX).
#[test]
fn path_update_rule_by_release() {
    let (_dir, file) = write_topo(ONE_NVLINK_UNDER_GEN5);
    let path = |v: &str| {
        let out = topo().args(["analyze", "--json", "--nccl-version", v, "--topo"]).arg(&file).assert().success();
        let v = json(&out.get_output().stdout);
        let p =
            v["paths"]["gpu_gpu"].as_array().unwrap().iter().find(|p| p["from"] == 0 && p["to"] == 1).unwrap().clone();
        (p["type"].as_str().unwrap().to_string(), p["bw"].as_f64().unwrap())
    };
    assert_eq!(path("2.30.7"), ("NVL".to_string(), 20.6f32 as f64));
    assert_eq!(path("2.30.4"), ("PIX".to_string(), 48.0));
}

/// Titles and headers name the release modelled, never a fixed one.
#[test]
fn outputs_name_the_release_modelled() {
    let first_line = |args: &[&str]| {
        let out = topo().args(args).args(["--nccl-version", "2.21.5"]).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).lines().take(3).collect::<Vec<_>>().join("\n")
    };
    let s = first_line(&["search", "--fixture", "dgx-h100"]);
    assert!(s.contains("graphs as NCCL 2.21.5 computes them"), "{s}");
    let s = first_line(&["search", "--fixture", "dgx-h100", "--dot"]);
    assert!(s.contains("NCCL 2.21.5 channels"), "{s}");
    let s = first_line(&["paths", "--fixture", "dgx-h100", "--dot"]);
    assert!(s.contains("NCCL 2.21.5 model"), "{s}");
}

const ONE_NVLINK_UNDER_GEN5: &str = r#"<system version="1">
  <cpu numaid="0" affinity="ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" vendor="0x1000" device="0xc030" subsystem_vendor="0x1000" subsystem_device="0x100b" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0" gdr="1">
          <nvlink target="0000:99:00.0" count="1" tclass="0x068000"/>
        </gpu>
      </pci>
      <pci busid="0000:12:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="90" rank="1" gdr="1">
          <nvlink target="0000:99:00.0" count="1" tclass="0x068000"/>
        </gpu>
      </pci>
    </pci>
  </cpu>
</system>
"#;

/// connect.cc ncclTopoPostset: a ring that crosses NICs with crossNic 1 makes odd nodes
/// swap channel pairs in 2.21 to 2.25; from 2.26 only crossNic 2 does (2.28: per rank).
#[test]
fn ring_pair_swap_by_release() {
    let ring01 = |v: &str| {
        let out = topo()
            .env("NCCL_CROSS_NIC", "1")
            .args(["search", "--fixture", "dgx-h100", "--nodes", "2", "--rank", "8", "--nccl-version", v])
            .assert()
            .success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        let rings: Vec<String> =
            text.lines().filter(|l| l.trim_start().starts_with("Ring 0")).map(|l| l.trim().to_string()).collect();
        (text.contains("odd nodes swap channel pairs"), rings[..2].to_vec())
    };
    let (swapped, old) = ring01("2.21.5");
    assert!(swapped);
    assert_eq!(old, ["Ring 00 : 15 -> 8 -> 0", "Ring 01 : 0 -> 8 -> 15"]);
    let (swapped, new) = ring01("2.28.9");
    assert!(!swapped);
    assert_eq!(new[0], "Ring 00 : 1 -> 8 -> 15");
}

/// topo.h: 2.27.3 numbers PATH_P2C (7) after PATH_PXN (6); 2.27.5 swapped them. With
/// NCCL_NET_GDR_LEVEL=PXN (and the C2C rule off), Grace Hopper's P2C path to its NICs
/// is above the level in 2.27.3 and within it in 2.27.5. Two nodes: before 2.28.7 a
/// one-node job has no NET left after trimming, and so no GDR verdict.
#[test]
fn p2c_after_pxn_in_2_27_3() {
    let gdr = |v: &str| {
        let out = topo()
            .env("NCCL_NET_GDR_C2C", "0")
            .env("NCCL_NET_GDR_LEVEL", "PXN")
            .args(["analyze", "--json", "--fixture", "gh200", "--nodes", "2", "--nccl-version", v])
            .assert()
            .success();
        json(&out.get_output().stdout)["gdr"][0]["recv"].as_str().unwrap().to_string()
    };
    assert_eq!(gdr("2.27.3"), "Disabled");
    assert_ne!(gdr("2.27.5"), "Disabled");
}

/// search.cc ncclTopoSearchNextGpuSort: behind NVSwitches, 2.19.3 moves a GPU's
/// neighbours (next, previous) to the front of the sorted list; 2.19.1 sorts them like
/// any other GPU. On a 2-node DGX H100 ring channel 1 then walks 1 2 3 ... (2.19.3)
/// instead of 1 7 6 ... (2.19.1).
#[test]
fn nvswitch_neighbours_by_release() {
    let channel1 = |v: &str| {
        let out =
            topo().args(["search", "--fixture", "dgx-h100", "--nodes", "2", "--nccl-version", v]).assert().success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        let line = text.lines().find(|l| l.trim_start().starts_with("1  NET/1")).unwrap().to_string();
        line.split_whitespace().skip(3).step_by(2).take(3).map(String::from).collect::<Vec<_>>()
    };
    assert_eq!(channel1("2.19.1"), ["1", "7", "6"]);
    assert_eq!(channel1("2.19.3"), ["1", "2", "3"]);
}

/// search.cc ncclTopoCompute's end: 2.18.1 duplicates channels only up to sm 90 (a
/// GB200 tray keeps 6 channels at 60 GB/s; 2.18.3's gate doubles them); NVLS's inter
/// speed is raised by a third pass from 2.19.1 (40/48 on two DGX H100; 2.18.6: 40/40).
#[test]
fn search_end_by_release() {
    let patterns = |fixture: &str, nodes: &str, v: &str| {
        let out =
            topo().args(["search", "--fixture", fixture, "--nodes", nodes, "--nccl-version", v]).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .filter(|l| l.trim_start().starts_with("Pattern"))
            .map(|l| l.trim().to_string())
            .collect::<Vec<_>>()
    };
    assert!(patterns("gb200-nvl72-tray", "1", "2.18.1")[0].contains("nChannels 6, bw 60.000000/60.000000"));
    assert!(patterns("gb200-nvl72-tray", "1", "2.18.3")[0].contains("nChannels 12, bw 30.000000/30.000000"));
    let nvls = |v: &str| patterns("dgx-h100", "2", v).into_iter().find(|l| l.starts_with("Pattern 5")).unwrap();
    assert!(nvls("2.18.6").contains("bw 40.000000/40.000000"), "{}", nvls("2.18.6"));
    assert!(nvls("2.19.1").contains("bw 40.000000/48.000000"), "{}", nvls("2.19.1"));
}

/// topo.cc: DEV nodes (a GPU's physical device) arrive in 2.30.3. Before, NCCL counts
/// two hops between NVSwitch-connected GPUs (four from 2.30.3) and names no DEV.
#[test]
fn path_hops_by_release() {
    let nvl = |v: &str| {
        let out = topo().args(["analyze", "--json", "--fixture", "dgx-h100", "--nccl-version", v]).assert().success();
        let j = json(&out.get_output().stdout);
        let p = &j["paths"]["gpu_gpu"][1];
        (p["hops"].as_u64().unwrap(), p["route"].to_string().contains("DEV/"))
    };
    assert_eq!(nvl("2.30.3"), (4, true));
    assert_eq!(nvl("2.29.7"), (2, false));
}

/// nvls.cc ncclNvlsTreeSm100Tuning (2.30.3): Blackwell across more than two nodes with
/// 400G NICs runs 24 NVLS channels, not the default 32.
#[test]
fn nvls_sm100_multi_node_tuning_by_release() {
    let nvls = |v: &str, nodes: &str| {
        let out = topo()
            .args(["analyze", "--json", "--fixture", "gb200-nvl72-tray", "--nodes", nodes, "--nccl-version", v])
            .assert()
            .success();
        json(&out.get_output().stdout)["tuning"]["channels"]["nvls"].as_u64().unwrap()
    };
    assert_eq!(nvls("2.29.7", "4"), 32);
    assert_eq!(nvls("2.30.3", "4"), 24);
    assert_eq!(nvls("2.30.7", "2"), 32);
}

/// Every line of `text` fits in `width` columns.
fn assert_fits(text: &str, width: usize, what: &str) {
    for l in text.lines() {
        assert!(l.chars().count() <= width, "{what}: a line of {} characters over {width}:\n{l}", l.chars().count());
    }
}

/// The NET numbers of a matrix header line, in the order printed.
fn net_numbers(text: &str) -> Vec<i32> {
    text.split_whitespace().filter_map(|w| w.strip_prefix("NET")?.parse().ok()).collect()
}

#[test]
fn paths_fit_columns_and_order_nets() {
    for (fixture, width) in [("dgx-h100", "80"), ("dgx-h100", "100"), ("gb200-nvl72-tray", "60"), ("dgx1-v100", "80")] {
        let out = topo().env("COLUMNS", width).args(["paths", "--explain", "--fixture", fixture]).assert().success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_fits(&text, width.parse().unwrap(), fixture);
        assert!(!text.contains('\x1b'), "{fixture}: colours into a pipe");
    }
    // NETs by number, in the wrapped tables and in the whole matrix printed into a pipe.
    let wrapped = topo().env("COLUMNS", "100").args(["paths", "--fixture", "dgx-h100"]).assert().success();
    let wrapped = String::from_utf8(wrapped.get_output().stdout.clone()).unwrap();
    let header: Vec<i32> =
        wrapped.lines().filter(|l| l.trim_start().starts_with("GPU ")).flat_map(net_numbers).collect();
    assert_eq!(header, vec![0, 1, 4, 5, 6, 7, 10, 11, 12, 13]);
    let whole = stdout_of(&["paths", "--fixture", "dgx-h100"]);
    let first = whole.lines().nth(1).unwrap();
    assert_eq!(net_numbers(first), vec![0, 1, 4, 5, 6, 7, 10, 11, 12, 13]);
    assert!(first.len() > 150, "piped without COLUMNS: one matrix, as wide as it takes");
}

#[test]
fn paths_colour_only_when_asked() {
    let esc = |args: &[&str], vars: &[(&str, &str)]| {
        let mut c = topo();
        for (k, v) in vars {
            c.env(k, v);
        }
        let out = c.args(args).assert().success();
        out.get_output().stdout.contains(&0x1b)
    };
    let base = ["paths", "--fixture", "dgx-h100"];
    assert!(!esc(&base, &[]), "auto into a pipe: no colour");
    assert!(esc(&[&base[..], &["--color", "always"]].concat(), &[]));
    assert!(esc(&[&base[..], &["--color", "always"]].concat(), &[("NO_COLOR", "1"), ("COLUMNS", "90")]));
    assert!(!esc(&[&base[..], &["--color", "never"]].concat(), &[]));
    fails_with(&["paths", "--color", "sometimes", "--fixture", "gh200"], &["--color"]);
}

#[test]
fn paths_of_a_32_nic_dump_fit_100_columns() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl/aws-p5-efa32.xml");
    if !file.exists() {
        common::skip("paths_of_a_32_nic_dump_fit_100_columns", "../shared/fixtures/nccl/aws-p5-efa32.xml is absent");
        return;
    }
    let out = topo().env("COLUMNS", "100").args(["paths", "--topo", path_arg(&file)]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_fits(&text, 100, "aws-p5-efa32");
    let header: Vec<i32> = text.lines().filter(|l| l.trim_start().starts_with("GPU ")).flat_map(net_numbers).collect();
    assert_eq!(header, (0..32).collect::<Vec<_>>());
}

/// Devices by the names people know: GPUs by number with their bus id and the PCI ID
/// Repository's name, NICs and switches by name, children in bus order, NVLink counts as
/// nvidia-smi writes them, and DEV nodes explained.
#[test]
fn show_names_devices_and_orders_them_by_bus() {
    let out = stdout_of(&["show", "--fixture", "dgx-h100"]);
    assert!(out.contains("├─ GPU0 (0000:1a:00.0) NVIDIA H100 SXM5 80GB, sm90, rank 0 (dev 0) [PCI 48.0]"), "{out}");
    assert!(out.contains("NIC 0000:1b:00.0 Mellanox ConnectX-7 [PCI 48.0]"), "{out}");
    assert!(out.contains("PCI switch 0000:18:00.0 Broadcom PEX890xx PCIe Gen 5 Switch"), "{out}");
    let order: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_once("(0000:").map(|x| x.1).or_else(|| l.split_once("NIC 0000:").map(|x| x.1)))
        .map(|r| &r[..2])
        .take(4)
        .collect();
    assert_eq!(order, ["1a", "1b", "1c", "1d"], "bus order under the first switch:\n{out}");
    assert!(out.contains("NVS/0 <-> DEV of GPU0  NVL 370.8 GB/s, NV18"), "{out}");
    assert!(out.contains("DEV of GPUn: the GPU's physical device"), "{out}");
    let j = json(&topo().args(["show", "--json", "--fixture", "dgx-h100"]).assert().success().get_output().stdout);
    let gpu = j["nodes"].as_array().unwrap().iter().find(|n| n["node"] == "GPU/0000:1a:00.0").unwrap();
    assert_eq!(gpu["pci_name"], "NVIDIA H100 SXM5 80GB");
}

/// `paths` in words people read: the legend beside nvidia-smi's names, the NVLink
/// count, GPUDirect RDMA verdicts as on/off with NETs in numeric order, and routes that
/// name their ends.
#[test]
fn paths_speak_nvidia_smi_and_number_order() {
    let out = stdout_of(&["paths", "--explain", "--fixture", "dgx-h100"]);
    assert!(out.contains("  NVL  NV#       direct NVLink (or through NVSwitch); # = NVLinks"), "{out}");
    assert!(out.contains("  PHB  PHB/NODE  through a CPU host bridge"), "{out}");
    assert!(out.contains("NVL paths here: NV18"), "{out}");
    let gdr: Vec<i32> = out
        .lines()
        .skip_while(|l| !l.starts_with("GPUDirect RDMA:"))
        .filter(|l| l.starts_with(" 0 "))
        .filter_map(|l| l.split_whitespace().nth(1)?.strip_prefix("NET")?.parse().ok())
        .collect();
    assert_eq!(gdr, [0, 1, 4, 5, 6, 7, 10, 11, 12, 13], "{out}");
    assert!(out.contains(" 0     NET0   on                on "), "{out}");
    assert!(out.contains(" 0     NET12  off               off "), "{out}");
    assert!(
        out.contains("  GPU0 -> GPU1: NVL 370.8, 4 hops: GPU0 (0000:1a:00.0) -LOC-> DEV of GPU0 -NVL-> NVS/0"),
        "{out}"
    );
    // The JSON keeps NCCL's own words for the checker and scripts.
    let j = json(&topo().args(["paths", "--json", "--fixture", "dgx-h100"]).assert().success().get_output().stdout);
    assert_eq!(j["gdr"][0]["recv"], "Default");
}

/// `check` names GPUs by NVML index with bus id and device name, and counts in the words
/// it prints.
#[test]
fn check_names_devices_and_counts_in_its_words() {
    let root = common::fixtures().join("ws-4gpu");
    let out = topo().args(["check", "--root", path_arg(&root)]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("error [pcie-link] GPU3 (0000:61:00.0): link trained at x8"), "{text}");
    assert!(text.contains("\n  GPU0, GPU1, GPU2, GPU3: NVIDIA RTX 6000 Ada Generation\n"), "{text}");
    assert!(text.contains("\nnote [") && !text.contains("\ninfo ["), "{text}");
    assert!(text.contains("2 errors, 1 warning, 2 notes"), "{text}");
    let j = json(&topo().args(["detect", "--json", "--root", path_arg(&root)]).output().unwrap().stdout);
    assert_eq!(j["pci_names"]["0000:61:00.0"], "NVIDIA RTX 6000 Ada Generation", "{}", j["pci_names"]);
}

/// Every JSON document names its schema, and routes come as structured steps too.
#[test]
fn json_documents_have_a_schema_and_routes_have_steps() {
    let ws = common::fixtures().join("ws-4gpu");
    let docs: [&[&str]; 8] = [
        &["show", "--json", "--fixture", "gh200"],
        &["paths", "--json", "--fixture", "gh200"],
        &["analyze", "--json", "--fixture", "gh200"],
        &["search", "--json", "--fixture", "gh200"],
        &["tune", "allreduce", "--json", "--fixture", "gh200"],
        &["check", "--json", "--fixture", "gh200"],
        &["detect", "--json", "--root", path_arg(&ws)],
        &["diff", "--json", "fixture:gh200", "fixture:gh200"],
    ];
    for args in docs {
        let out = topo().args(args).output().unwrap();
        let v = json(&out.stdout);
        assert_eq!(v["schema"], 1, "{args:?}");
    }
    let v = json(&topo().args(["paths", "--json", "--fixture", "dgx-h100"]).assert().success().get_output().stdout);
    let p = v["paths"]["gpu_gpu"].as_array().unwrap().iter().find(|p| p["from"] == 0 && p["to"] == 1).unwrap();
    assert_eq!(p["steps"][0], serde_json::json!({"node": "GPU/0000:1a:00.0"}));
    assert_eq!(p["steps"][2], serde_json::json!({"link": "NVL", "bw": 370.8, "node": "NVS/0"}));
    assert_eq!(p["steps"].as_array().unwrap().len(), 5, "{p}");
}

/// One style of stderr: every line `topo: note: `, `topo: warning: ` or `topo: error: `.
#[test]
fn stderr_lines_share_one_prefix_style() {
    let ws = common::fixtures().join("ws-4gpu");
    let runs: [&[&str]; 2] =
        [&["detect", "--root", path_arg(&ws)], &["show", "--fixture", "gh200", "--nccl-version", "2.26.2"]];
    for args in runs {
        let out = topo().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.is_empty(), "{args:?}: nothing said");
        for l in err.lines() {
            assert!(
                ["topo: note: ", "topo: warning: ", "topo: error: "].iter().any(|p| l.starts_with(p)),
                "{args:?}: {l}"
            );
        }
    }
}

/// `topo analyze`'s text is everything the model decides: the system, paths and
/// verdicts, then the graphs, the channels NCCL runs and the tuning summary.
#[test]
fn analyze_text_has_graphs_channels_and_tuning() {
    let out = stdout_of(&["analyze", "--fixture", "dgx-h100", "--nodes", "2"]);
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("no {s:?} in:\n{out}"));
    let order = [
        at("NCCL system:"),
        at("Paths (NCCL path type"),
        at("ring graph\n"),
        at("Channels NCCL runs"),
        at("Tuning (NCCL"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(out.contains("1073741824       NVLSTree  Simple"), "{out}");
}
