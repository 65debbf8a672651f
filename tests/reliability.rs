//! Inputs that once made `topo` panic, abort, hang or take gigabytes, and output targets
//! it once replaced (issue 14). Every input is made here, in a temporary folder: deep
//! nesting, huge attributes, machines larger than NCCL holds, endless devices, FIFOs,
//! sparse files, absurd fake-NVML counts and bench arguments. Each must end with exit
//! status 0 or 1, or 2 with one `topo: error:` line and nothing on stdout.
//!
//! Time and memory are not measured here (a loaded machine would make such tests
//! flaky); the inputs are the ones that ran for ever or took gigabytes, and the tests
//! check they are now refused (or read) and say so.

use std::io::{Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use assert_cmd::Command;

mod common;

/// The binary, with no NCCL_* variable leaking in and the modelled release fixed.
fn topo() -> Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("topo");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("NCCL_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("TOPO_NCCL_VERSION", "2.30.7");
    // Every case here once ran for ever or blocked: a regression fails, never hangs.
    cmd.timeout(std::time::Duration::from_secs(120));
    cmd
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Exit status 2, nothing on stdout, exactly one `topo: error:` line holding every one
/// of `needles` (other lines may only be topo's notices), and no panic.
fn refused(args: &[&str], needles: &[&str]) -> String {
    refused_cmd(topo().args(args), args, needles)
}

fn refused_cmd(cmd: &mut Command, what: &[&str], needles: &[&str]) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{what:?}: exit status\n{err}");
    assert!(out.stdout.is_empty(), "{what:?}: stdout not empty: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!err.contains("panicked") && !err.contains("overflow"), "{what:?}: {err}");
    // (`topo detect` also prints its report, with findings such as `error [acs] ...`.)
    let errors: Vec<&str> = err.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{what:?}: one error line: {err}");
    assert!(errors[0].starts_with("topo: error: "), "{what:?}: {err}");
    assert!(!err.contains("Usage:") && !err.contains("For more information"), "{what:?}: clap's own format: {err}");
    for n in needles {
        assert!(errors[0].contains(n), "{what:?}: {n:?} not in {err}");
    }
    errors[0].to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A fixture's topology XML, as a file.
fn fixture_file(dir: &Path, name: &str) -> PathBuf {
    let (x, _) = topo::fixtures::get(name).unwrap().load().unwrap();
    write(dir, &format!("{name}.xml"), &topo::xml::write(&x))
}

fn mkfifo(p: &Path) {
    let made = std::process::Command::new("mkfifo").arg(p).status().is_ok_and(|s| s.success());
    assert!(made, "mkfifo is part of coreutils");
}

fn is_root() -> bool {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "owner", "");
    std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(p).unwrap()) == 0
}

const CPU: &str =
    r#"<cpu numaid="0" affinity="ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="106">"#;

/// One PCIe GPU branch with bus number `i + 1`.
fn gpu(i: usize) -> String {
    let b = i + 1;
    format!(
        r#"<pci busid="{:04x}:{:02x}:00.0" class="0x030200" vendor="0x10de" device="0x20b0" link_speed="16.0 GT/s PCIe" link_width="16"><gpu dev="{i}" sm="80" rank="{i}" gdr="1"/></pci>"#,
        (b >> 8) & 0xffff,
        b & 0xff
    ) + "\n"
}

/// One NIC branch.
fn nic(i: usize) -> String {
    let b = i + 0x10000;
    format!(
        r#"<pci busid="{:04x}:{:02x}:00.0" class="0x020000" vendor="0x15b3" device="0x101b" link_speed="16.0 GT/s PCIe" link_width="16"><nic><net name="mlx5_{i}" dev="{i}" speed="100000" port="1" latency="0" guid="0x{:x}" maxconn="131072" gdr="1"/></nic></pci>"#,
        (b >> 8) & 0xffff,
        b & 0xff,
        i + 1
    ) + "\n"
}

fn machine(cpus: &[String]) -> String {
    let body: String = cpus
        .iter()
        .enumerate()
        .map(|(n, c)| CPU.replace("numaid=\"0\"", &format!("numaid=\"{n}\"")) + "\n" + c + "</cpu>\n")
        .collect();
    format!("<system version=\"1\">\n{body}</system>\n")
}

// ------------------------------------------------------------- 1. output targets

/// `detect -o` where the output cannot go says only that: the path is checked before
/// anything is detected (a folder, a missing folder), and a device that refuses the
/// bytes (/dev/full) is written before the detection notes are said.
#[test]
fn detect_output_is_checked_first() {
    let d = tempfile::tempdir().unwrap();
    let root = common::fixtures().join("ws-4gpu");
    let missing = d.path().join("no/such/t.xml");
    for (out, says) in [
        (s(d.path()), "Is a directory"),
        (s(&missing), "No such file or directory"),
        ("/dev/full", "No space left on device"),
    ] {
        let o = topo().args(["detect", "--root", s(&root), "-o", out]).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{out}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{out}: the error alone:\n{err}");
        assert!(err.starts_with(&format!("topo: error: {out}")) && err.contains(says), "{err}");
    }
}

#[test]
fn output_follows_symlinks_and_writes_special_files_in_place() {
    let d = tempfile::tempdir().unwrap();
    let root = common::fixtures().join("ws-4gpu");
    let whole = d.path().join("whole.xml");
    topo().args(["detect", "--root", s(&root), "-o", s(&whole)]).assert().success();
    let expected = std::fs::read_to_string(&whole).unwrap();
    assert!(expected.contains("<system version=\"1\">"));

    // A symlink stays a symlink; its target gets the topology.
    let real = write(d.path(), "real.xml", "old");
    let link = d.path().join("link.xml");
    std::os::unix::fs::symlink("real.xml", &link).unwrap();
    topo().args(["detect", "--root", s(&root), "-o", s(&link)]).assert().success();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), expected);

    // A FIFO stays a FIFO, and its reader gets the whole topology.
    let fifo = d.path().join("fifo");
    mkfifo(&fifo);
    let f2 = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::fs::File::open(&f2).unwrap().read_to_string(&mut text).unwrap();
        text
    });
    topo().args(["detect", "--root", s(&root), "-o", s(&fifo)]).assert().success();
    assert_eq!(reader.join().unwrap(), expected);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

    // A FIFO nobody reads: a clear error after the time-out, never a hang.
    refused(&["detect", "--root", s(&root), "-o", s(&fifo)], &["fifo: no reader after 3 s"]);

    // /dev/full: the write error is exit 2, naming the device.
    refused(&["detect", "--root", s(&root), "-o", "/dev/full"], &["/dev/full: No space left on device"]);

    // A folder that does not exist: the message names the path, never a temporary file.
    let e = refused(&["detect", "--root", s(&root), "-o", s(&d.path().join("no/such/t.xml"))], &["no/such/t.xml"]);
    assert!(!e.contains(".tmp-"), "{e}");
    let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(names.iter().all(|n| !n.to_string_lossy().contains(".tmp-")), "no temporary file left: {names:?}");
}

#[test]
fn output_to_a_device_node_keeps_the_node() {
    if !is_root() {
        common::skip("output_to_a_device_node_keeps_the_node", "making a device node (mknod) needs root");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let node = d.path().join("null");
    // Character device 1:3 is /dev/null.
    let made = std::process::Command::new("mknod").arg(&node).args(["c", "1", "3"]).status();
    if !made.is_ok_and(|s| s.success()) {
        common::skip("output_to_a_device_node_keeps_the_node", "mknod failed (a container without CAP_MKNOD?)");
        return;
    }
    let root = common::fixtures().join("ws-4gpu");
    topo().args(["detect", "--root", s(&root), "-o", s(&node)]).assert().success();
    let ft = std::fs::symlink_metadata(&node).unwrap().file_type();
    assert!(ft.is_char_device(), "the device node was replaced: {ft:?}");
}

#[test]
fn bench_json_goes_to_devices_and_is_checked_before_running() {
    let d = tempfile::tempdir().unwrap();
    let small = ["bench", "allreduce", "--backend", "host", "-g", "2", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0"];
    // A device is written as it is (not /dev/null.0 beside it).
    let mut args = small.to_vec();
    args.extend(["-J", "/dev/null"]);
    topo().args(&args).assert().success();
    assert!(!Path::new("/dev/null.0").exists());
    // A folder that cannot hold the report: refused before any table is printed, and the
    // message names the path given.
    let file = write(d.path(), "plain", "");
    let bad = file.join("b.json");
    let mut args = small.to_vec();
    args.extend(["-J", s(&bad)]);
    let e = refused(&args, &["plain/b.json", "Not a directory"]);
    assert!(!e.contains(".tmp-") && !e.contains("probe"), "{e}");
}

/// A `-J` file that exists is kept, as nccl-tests keeps it, and the report written
/// beside it is said on stderr, not only in the table's header.
#[test]
fn bench_json_beside_an_existing_report_is_said() {
    let d = tempfile::tempdir().unwrap();
    let old = write(d.path(), "b.json", "old");
    let mut args = vec!["bench", "allreduce", "--backend", "host", "-g", "2", "-b", "1K", "-e", "1K", "-n", "1"];
    args.extend(["-w", "0", "-J", s(&old)]);
    let out = topo().args(&args).assert().success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.starts_with("topo: warning: ") && err.contains("b.json exists: the JSON report goes to"), "{err}");
    assert!(err.contains("b.json.0 instead"), "{err}");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "old");
    assert!(d.path().join("b.json.0").exists());
}

// ------------------------------------------------------------------ 2. panics

#[test]
fn a_bom_before_non_ascii_text_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let cut = write(
        d.path(),
        "cut.xml",
        "\u{feff}<!--\n -->\n    <pci busid=\"0000:c1:00.0\" class=\"0x060400\" link_speed=\"16 GT/s\" link_width=\"\u{0663}\">",
    );
    refused(&["show", "--topo", s(&cut)], &["cut.xml"]);
    // A whole topology with such a width loads (NCCL reads it as 0), with a warning.
    let whole = write(
        d.path(),
        "whole.xml",
        &format!(
            "\u{feff}<!-- \u{00e9}t\u{00e9} -->\n{}",
            machine(&[gpu(0).replace("link_width=\"16\"", "link_width=\"\u{0663}\"")])
        ),
    );
    let out = topo().args(["show", "--topo", s(&whole)]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("link_width \"\u{0663}\" is not a number") && !err.contains("panicked"), "{err}");
}

fn ring_graph(nchannels: usize, channels: usize, gpus_per_channel: usize) -> String {
    let ch: String = (0..channels)
        .map(|_| {
            let g: String = (0..gpus_per_channel).map(|i| format!("      <gpu dev=\"{i}\" rank=\"{i}\"/>\n")).collect();
            format!("    <channel>\n      <net dev=\"0\"/>\n{g}      <net dev=\"0\"/>\n    </channel>\n")
        })
        .collect();
    format!(
        "<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"{nchannels}\" speedintra=\"20\" speedinter=\"20\" latencyinter=\"0\" typeintra=\"SYS\" typeinter=\"SYS\" samechannels=\"1\">\n{ch}  </graph>\n</graphs>\n"
    )
}

#[test]
fn graph_files_over_nccls_channel_limit_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let one = write(d.path(), "one.xml", &machine(&[gpu(0) + &nic(0)]));
    let four = fixture_file(d.path(), "workstation-4gpu");
    for (name, graph, topo_file, nodes) in [
        ("n65.xml", ring_graph(65, 32, 1), &one, "1"),
        ("n65536.xml", ring_graph(65536, 0, 4), &four, "2"),
        ("e65.xml", ring_graph(64, 65, 4), &four, "2"),
        ("e260.xml", ring_graph(4, 260, 4), &four, "2"),
    ] {
        let g = write(d.path(), name, &graph);
        refused(&["search", "--topo", s(topo_file), "--graph-file", s(&g), "--nodes", nodes], &[name, "64"]);
    }
    // At the limit: 64 channels of more GPUs than the node has load (the extra ones are
    // ignored, as NCCL does), on one node and on many.
    let g = write(d.path(), "n64.xml", &ring_graph(64, 64, 10));
    for nodes in ["1", "2", "64"] {
        topo().args(["search", "--topo", s(&four), "--graph-file", s(&g), "--nodes", nodes]).assert().success();
        topo().args(["search", "--topo", s(&one), "--graph-file", s(&g), "--nodes", nodes]).assert().success();
    }
}

// ------------------------------------------------------------ 3. deep nesting

#[test]
fn deep_nesting_is_refused_by_every_reader() {
    let d = tempfile::tempdir().unwrap();
    let n = 100_000;
    let text = format!(
        "<system version=\"1\"><cpu numaid=\"0\">{}{}</cpu></system>\n",
        "<pci busid=\"0000:01:00.0\">".repeat(n),
        "</pci>".repeat(n)
    );
    let nest = write(d.path(), "nest.xml", &text);
    let p = s(&nest);
    for cmd in ["show", "paths", "search", "tune", "analyze"] {
        refused(&[cmd, "--topo", p], &["nest.xml:1:", "deeper than 256"]);
    }
    refused(&["detect", "--topo-file", p], &["nest.xml:1:", "deeper than 256"]);
    let good = fixture_file(d.path(), "gh200");
    refused(&["diff", s(&good), p], &["nest.xml:1:", "deeper than 256"]);
    let g = write(
        d.path(),
        "g.xml",
        &format!("<graphs version=\"1\">{}{}</graphs>", "<graph>".repeat(n), "</graph>".repeat(n)),
    );
    refused(&["search", "--topo", s(&good), "--graph-file", s(&g)], &["g.xml:1:", "deeper than 256"]);
}

#[test]
fn fleet_workers_survive_deep_nesting() {
    let d = tempfile::tempdir().unwrap();
    let dumps = d.path().join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    fixture_file(&dumps, "gh200");
    let n = 30_000;
    write(
        &dumps,
        "nest.xml",
        &format!(
            "<system version=\"1\"><cpu numaid=\"0\">{}{}</cpu></system>\n",
            "<foo>".repeat(n),
            "</foo>".repeat(n)
        ),
    );
    let out = topo().args(["fleet", "--skip-bad", s(&dumps)]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("nest.xml") && stdout.contains("deeper than 256"), "{stdout}");
    refused(&["fleet", s(&dumps)], &["nest.xml:1:", "deeper than 256"]);
}

// --------------------------------------------------------- 4. fake-NVML counts

#[test]
fn fake_nvml_counts_no_machine_has_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = common::fixtures().join("gh200");
    let base: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("nvml.json")).unwrap()).unwrap();
    let mut c2c = base.clone();
    c2c["gpus"][1]["c2c"]["count"] = (1u64 << 31).into();
    let f = write(d.path(), "c2c.json", &c2c.to_string());
    refused(&["check", "--root", s(&root), "--nvml-fake", s(&f)], &["c2c.json", "c2c count 2147483648"]);
    let mut nvl = base.clone();
    nvl["gpus"][2]["nvlinks"][0]["count"] = ((1u64 << 31) + 6).into();
    let f = write(d.path(), "nvl.json", &nvl.to_string());
    refused(&["search", "--root", s(&root), "--nvml-fake", s(&f)], &["nvl.json", "NVLinks"]);
    let mut sm = base.clone();
    sm["gpus"][0]["sm"] = 4_000_000_000u64.into();
    let f = write(d.path(), "sm.json", &sm.to_string());
    refused(&["detect", "--root", s(&root), "--nvml-fake", s(&f)], &["sm.json", "sm 4000000000"]);
    // The file as it is still loads.
    let f = write(d.path(), "ok.json", &base.to_string());
    topo().args(["search", "--root", s(&root), "--nvml-fake", s(&f)]).assert().success();
}

// ---------------------------------------------------------------- 5. bus ids

#[test]
fn a_huge_bus_id_is_refused_by_form_and_length() {
    let d = tempfile::tempdir().unwrap();
    let text =
        machine(&[gpu(0).replace("busid=\"0000:01:00.0\"", &format!("busid=\"{}\"", "&amp;".repeat(1_000_000)))]);
    let f = write(d.path(), "amp.xml", &text);
    // Releases before 2.27.3 take any length of value (into a 256-byte buffer):
    // the bus id is refused by its form.
    for args in [&["search", "--topo", s(&f)][..], &["analyze", "--json", "--topo", s(&f)], &["show", "--topo", s(&f)]]
    {
        let args = [args, &["--nccl-version", "2.26.6"]].concat();
        let e = refused(&args, &["amp.xml", "is not a PCI bus id", "5000000 characters"]);
        assert!(e.len() < 400, "the message does not repeat the value: {} characters", e.len());
    }
    // Later ones refuse the value's length first.
    let e = refused(&["show", "--topo", s(&f)], &["amp.xml", "busid", "5000000 bytes", "254 or more"]);
    assert!(e.len() < 400, "the message does not repeat the value: {} characters", e.len());
    // An NVLink target is an id too.
    let link = gpu(0).replace(
        "gdr=\"1\"/>",
        &format!("gdr=\"1\"><nvlink target=\"{}\" count=\"1\" tclass=\"0x030200\"/></gpu>", "0".repeat(200)),
    );
    let f = write(d.path(), "target.xml", &machine(&[link]));
    refused(&["show", "--topo", s(&f)], &["target.xml", "target=", "is not a PCI bus id"]);
}

/// NCCL's tokenizer holds a name or value in 256 bytes. A value of 254 bytes or more
/// fails the init from 2.27.3 and is written past the buffer before (a warning; topo
/// reads on, in time linear in the value: its float parser once took minutes on a
/// long number). Names too long fail in every release.
#[test]
fn names_and_values_longer_than_nccls_buffer() {
    let d = tempfile::tempdir().unwrap();
    let long = |v: &str| machine(&[gpu(0), nic(0).replace("latency=\"0\"", &format!("latency=\"{v}\""))]);
    let f = write(d.path(), "long.xml", &long(&"0".repeat(300_000)));
    refused(
        &["analyze", "--topo", s(&f)],
        &["long.xml", "line 6", "<net> attribute 'latency'", "300000 bytes", "254 or more"],
    );
    let out = topo().args(["analyze", "--topo", s(&f), "--nccl-version", "2.26.6"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("300000 bytes") && err.contains("memory corruption"), "{err}");
    // The limit is exact: 253 bytes are read, 254 are not.
    let f = write(d.path(), "253.xml", &long(&"0".repeat(253)));
    topo().args(["show", "--topo", s(&f)]).assert().success();
    let f = write(d.path(), "254.xml", &long(&"0".repeat(254)));
    refused(&["show", "--topo", s(&f)], &["254 bytes"]);
    // Names: an attribute name of 255 bytes, an element name of 254, in any release.
    let f = write(d.path(), "attr.xml", &machine(&[gpu(0).replace("sm=", &format!("{}=\"1\" sm=", "a".repeat(255)))]));
    refused(&["show", "--topo", s(&f), "--nccl-version", "2.18.1"], &["attribute name in <gpu>", "255 bytes"]);
    let f = write(d.path(), "elem.xml", &machine(&[gpu(0) + &format!("<{}/>", "e".repeat(254))]));
    refused(&["show", "--topo", s(&f), "--nccl-version", "2.18.1"], &["element name", "254 bytes"]);
}

/// A GPU below a NIC's <pci> is never added to NCCL's system (the build does not
/// descend a NIC), so its rank's init fails; the search once indexed the missing GPU
/// and panicked (fuzz seed 7, through `topo diff`).
#[test]
fn a_gpu_nccl_never_adds_fails_its_rank() {
    let d = tempfile::tempdir().unwrap();
    let under_nic = nic(0).trim_end().strip_suffix("</pci>").unwrap().to_string() + &gpu(8) + "</pci>\n";
    let text = machine(&[under_nic]);
    assert!(text.contains("class=\"0x020000\"") && text.contains("<gpu dev=\"8\""), "{text}");
    let f = write(d.path(), "gpu-under-nic.xml", &text);
    for args in [&["search", "--topo", s(&f)][..], &["analyze", "--json", "--topo", s(&f)], &["paths", "--topo", s(&f)]]
    {
        refused(args, &["gpu-under-nic.xml", "rank 0", "ncclTopoRankToIndex could not find rank 0"]);
    }
    let out = topo().args(["diff", s(&f), s(&f)]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    assert!(matches!(out.status.code(), Some(0..=2)), "{out:?}");
}

// ------------------------------------------------------------ 6. machine size

#[test]
fn machines_larger_than_nccl_holds_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let big = machine(&[(0..1000).map(gpu).chain((0..3000).map(nic)).collect()]);
    let big = write(d.path(), "big.xml", &big);
    let gpus4000 = write(d.path(), "g4000.xml", &machine(&[(0..4000).map(gpu).collect()]));
    // 600 GPUs over 8 CPUs: no element with too many children, far too many elements.
    let spread: Vec<String> = (0..8).map(|c| (0..75).map(|i| gpu(c * 75 + i)).collect()).collect();
    let spread = write(d.path(), "spread.xml", &machine(&spread));
    for f in [&big, &gpus4000, &spread] {
        for cmd in ["show", "paths", "search"] {
            refused(&[cmd, "--topo", s(f)], &["NCCL"]);
        }
    }
    refused(&["show", "--topo", s(&spread)], &["1209 elements NCCL reads", "limited to 256 nodes"]);
    // Older releases hold 1024 elements but 256 nodes of a type.
    let halves: Vec<String> = (0..4).map(|c| (0..75).map(|i| gpu(c * 75 + i)).collect()).collect();
    let half = write(d.path(), "half.xml", &machine(&halves));
    refused(&["show", "--nccl-version", "2.20.5", "--topo", s(&half)], &["more than 256 <pci> elements"]);
    refused(&["show", "--nccl-version", "2.20.5", "--topo", s(&spread)], &["1209 elements", "limited to 1024 nodes"]);
    // The largest machine NCCL 2.30 loads from a file (254 elements) is modelled.
    let most = write(d.path(), "most.xml", &machine(&[(0..126).map(gpu).collect()]));
    topo().args(["search", "--topo", s(&most)]).assert().success();
    let over = write(d.path(), "over.xml", &machine(&[(0..127).map(gpu).collect()]));
    refused(&["search", "--topo", s(&over)], &["256 elements NCCL reads"]);
}

// ------------------------------------------------- 7. endless and blocking reads

#[test]
fn endless_devices_are_read_up_to_the_cap() {
    let d = tempfile::tempdir().unwrap();
    let good = fixture_file(d.path(), "gh200");
    let g = s(&good);
    let root = common::fixtures().join("gh200");
    for dev in ["/dev/zero", "/dev/urandom"] {
        refused(&["show", "--topo", dev], &[dev, "more than 64 MiB"]);
        refused(&["diff", g, dev], &[dev, "more than 64 MiB"]);
        refused(&["search", "--topo", g, "--graph-file", dev], &[dev, "more than 64 MiB"]);
        refused(&["check", "--root", s(&root), "--nvml-fake", dev], &[dev, "more than 16 MiB"]);
        refused(&["detect", "--topo-file", dev], &[dev, "more than 64 MiB"]);
        refused_cmd(
            topo().args(["search", "--topo", g]).env("NCCL_GRAPH_FILE", dev),
            &[dev],
            &[dev, "more than 64 MiB"],
        );
    }
}

#[test]
fn a_fifo_input_is_read_from_its_writer_or_given_up() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo");
    mkfifo(&fifo);
    // Without a writer: a clear error after the time-out, for every reader.
    let good = fixture_file(d.path(), "gh200");
    refused(&["show", "--topo", s(&fifo)], &["fifo: no data after waiting 3.0 s"]);
    refused(&["search", "--topo", s(&good), "--graph-file", s(&fifo)], &["fifo: no data after waiting 3.0 s"]);
    // With one: its data is read.
    let text = std::fs::read_to_string(&good).unwrap();
    let f2 = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new().write(true).open(&f2).unwrap();
        let _ = f.write_all(text.as_bytes());
    });
    let out = topo().args(["show", "--topo", s(&fifo)]).output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("GPU"));
}

#[test]
fn endless_or_silent_logs_end() {
    // Binary data with no line end once made `topo log` read for ever.
    for dev in ["/dev/zero", "/dev/urandom"] {
        refused(&["log", dev], &[dev, "binary data, not an NCCL log"]);
    }
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo");
    mkfifo(&fifo);
    refused(&["log", s(&fifo)], &["fifo: no writer after 3 s"]);
}

#[test]
fn a_sparse_proc_cpuinfo_is_not_read_whole() {
    let d = common::scratch();
    let root = d.path().join("root");
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(common::fixtures().join("ws-4gpu"))
        .arg(&root)
        .status()
        .is_ok_and(|s| s.success());
    assert!(copied, "cp -a is part of coreutils");
    // 1 GiB that takes no disk: read whole, it took 2 GB and 9 s.
    std::fs::OpenOptions::new().write(true).open(root.join("proc/cpuinfo")).unwrap().set_len(1 << 30).unwrap();
    let out = topo().args(["detect", "--root", s(&root)]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("/proc/cpuinfo: holds more than"), "{err}");
}

// ------------------------------------------------------------ 8. bench arguments

#[test]
fn bench_arguments_are_bounded_before_any_work() {
    let base = ["bench", "allreduce", "--backend", "host"];
    for (extra, needle) in [
        (&["-n", "4294967296"][..], "-n/--iters must be between 1 and 1000000"),
        (&["-w", "1e12"], "--warmup_iters"),
        (&["-w", "1000000"], "-w/--warmup_iters must be at most 10000"),
        (&["-c", "1e12"], "--check"),
        (&["-c", "1000000"], "-c/--check must be at most 1000"),
        (&["-g", "10000"], "-g/--ngpus must be between 1 and 256"),
        (&["--channels", "100000"], "--channels must be between 1 and 64"),
        (&["-b", "1", "-e", "1G", "-i", "1"], "more than 4096 message sizes"),
        (&["--slot-bytes", "1G"], "--slot-bytes must be between 64 bytes and 64M"),
        // 256 ranks of 16 GiB in and out: no machine has the memory; refused, not tried.
        (&["-g", "256", "-b", "16G", "-e", "16G"], "the host backend needs about"),
    ] {
        let mut args = base.to_vec();
        args.extend(extra);
        refused(&args, &[needle]);
        // Checked before the release is chosen (which, with no TOPO_NCCL_VERSION, says
        // which NCCL it found here) or anything is detected: the error is all that is said.
        let out = topo().env_remove("TOPO_NCCL_VERSION").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: only the error line: {err}");
    }
}

// ------------------------------------------------------------------ 9. contract

#[test]
fn usage_errors_are_one_line() {
    for args in [
        &["search", "--fixture", "gh200", "--nodes", "0"][..],
        &["bench", "allreduce", "--backend", "host", "-f", "1.5"],
        &["search", "--fixture", "gh200", "--nodes", "-3"],
        &["detect", "--rank", "-1"],
    ] {
        refused(args, &[]);
    }
    refused(&["shwo"], &["tip: a similar subcommand exists: 'show'"]);
}

#[test]
fn fleet_of_a_missing_path_says_so_once() {
    refused(&["fleet", "/nonexistent/dumps"], &["/nonexistent/dumps", "No such file"]);
}

#[test]
fn the_exit_status_of_check_survives_a_closed_stdout() {
    let bin = assert_cmd::cargo::cargo_bin("topo");
    let root = common::fixtures().join("ws-4gpu");
    let with_stdout = topo().args(["check", "--root", s(&root)]).output().unwrap();
    assert_eq!(with_stdout.status.code(), Some(1), "ws-4gpu has error findings");
    let closed = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' check --root '{}' >&- 2>/dev/null", bin.display(), root.display()))
        .status()
        .unwrap();
    assert_eq!(closed.code(), Some(1));
    let mut child = std::process::Command::new(&bin)
        .args(["check", "--root", s(&root)])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

// ---------------------------------------------------------------------- 10. load

#[test]
fn concurrent_writers_leave_one_whole_file() {
    let d = tempfile::tempdir().unwrap();
    let root = common::fixtures().join("ws-4gpu");
    let alone = d.path().join("alone.xml");
    topo().args(["detect", "--root", s(&root), "-o", s(&alone)]).assert().success();
    let expected = std::fs::read_to_string(&alone).unwrap();
    let same = d.path().join("same.xml");
    let bin = assert_cmd::cargo::cargo_bin("topo");
    let children: Vec<_> = (0..16)
        .map(|_| {
            std::process::Command::new(&bin)
                .args(["detect", "--root", s(&root), "-o", s(&same)])
                .env("TOPO_NCCL_VERSION", "2.30.7")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert_eq!(c.wait().unwrap().code(), Some(0));
    }
    assert_eq!(std::fs::read_to_string(&same).unwrap(), expected, "one whole output, not a mix");
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
}

#[test]
fn a_fleet_of_many_dumps_groups_them() {
    // Hard links: a thousand dumps on disk for the price of one.
    let d = common::scratch();
    let dumps = d.path().join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    let one = fixture_file(d.path(), "dgx-h100");
    for i in 0..1000 {
        std::fs::hard_link(&one, dumps.join(format!("node{i:04}.xml"))).unwrap();
    }
    fixture_file(&dumps, "gh200");
    let out = topo().args(["fleet", s(&dumps)]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("1001 dumps") && stdout.contains("1000"), "{stdout}");
}
