//! Property tests beside the fuzzer (`examples/fuzz.rs`): generated topology trees and
//! fake-NVML documents, plausible with some values no machine has, run through the
//! library as the commands run them. Every stage returns Ok or a typed error with a
//! one-line message; none panics. Kept to a few seconds of `cargo test`; the fuzzer is
//! the long run.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{Value, json};
use topo::error::Error;
use topo::xml::Xml;

mod common;

/// A typed error as the CLI prints it: `topo: error: <one line>`.
fn one_line(stage: &str, e: &Error) -> Result<(), TestCaseError> {
    let msg = e.to_string();
    prop_assert!(!msg.trim().is_empty(), "{stage}: an empty error message");
    prop_assert!(!msg.contains('\n'), "{stage}: an error message of more than one line: {msg:?}");
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Topology trees

/// An element of a generated tree.
#[derive(Debug, Clone)]
struct Node {
    name: &'static str,
    attrs: Vec<(&'static str, String)>,
    children: Vec<Node>,
}

/// Mostly `plausible`, sometimes a value no machine has.
fn value(plausible: impl Strategy<Value = String> + 'static) -> BoxedStrategy<String> {
    let extreme = prop::sample::select(vec![
        "",
        "-1",
        "0",
        "4294967296",
        "-2147483648",
        "9223372036854775807",
        "1e308",
        "nan",
        "inf",
        "0x",
        "\u{663}",
        "&amp;",
        "zz",
    ])
    .prop_map(str::to_string);
    prop_oneof![40 => plausible, 1 => extreme].boxed()
}

fn int(range: std::ops::RangeInclusive<i64>) -> BoxedStrategy<String> {
    value(range.prop_map(|v| v.to_string()))
}

/// Bus ids from a small pool, so that NVLink targets find their GPUs (and ids repeat).
fn busid() -> BoxedStrategy<String> {
    value((1u32..12).prop_map(|b| format!("0000:{b:02x}:00.0")))
}

fn gpu_pci() -> impl Strategy<Value = Node> {
    let link = (busid(), int(1..=18), value(Just("0x068000".to_string()))).prop_map(|(t, c, tc)| Node {
        name: "nvlink",
        attrs: vec![("target", t), ("count", c), ("tclass", tc)],
        children: vec![],
    });
    (
        busid(),
        int(0..=7),
        value(prop::sample::select(vec!["70", "80", "90", "100"]).prop_map(str::to_string)),
        int(0..=7),
        int(0..=1),
        value(prop::sample::select(vec!["8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe"]).prop_map(str::to_string)),
        value(prop::sample::select(vec!["1", "2", "4", "8", "16"]).prop_map(str::to_string)),
        prop::collection::vec(link, 0..4),
    )
        .prop_map(|(bus, dev, sm, rank, gdr, speed, width, links)| Node {
            name: "pci",
            attrs: vec![
                ("busid", bus),
                ("class", "0x030000".into()),
                ("vendor", "0x10de".into()),
                ("device", "0x2330".into()),
                ("link_speed", speed),
                ("link_width", width),
            ],
            children: vec![Node {
                name: "gpu",
                attrs: vec![("dev", dev), ("sm", sm), ("rank", rank), ("gdr", gdr)],
                children: links,
            }],
        })
}

fn nic_pci() -> impl Strategy<Value = Node> {
    let net = (int(0..=3), int(0..=400_000), int(1..=2), int(0..=1), value("[a-z]{3,8}[0-9]".prop_map(|s| s)))
        .prop_map(|(dev, speed, port, gdr, name)| Node {
            name: "net",
            attrs: vec![
                ("name", name),
                ("dev", dev),
                ("speed", speed),
                ("port", port),
                ("latency", "0".into()),
                ("guid", "0x1".into()),
                ("maxconn", "131072".into()),
                ("gdr", gdr),
            ],
            children: vec![],
        });
    (busid(), prop::collection::vec(net, 1..3)).prop_map(|(bus, nets)| Node {
        name: "pci",
        attrs: vec![
            ("busid", bus),
            ("class", "0x020000".into()),
            ("vendor", "0x15b3".into()),
            ("link_speed", "32.0 GT/s PCIe".into()),
            ("link_width", "16".into()),
        ],
        children: vec![Node { name: "nic", attrs: vec![], children: nets }],
    })
}

/// A device, or a PCIe switch with devices under it.
fn device() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![3 => gpu_pci(), 1 => nic_pci()];
    prop_oneof![
        3 => leaf.clone(),
        1 => (busid(), prop::collection::vec(leaf, 1..4)).prop_map(|(bus, children)| Node {
            name: "pci",
            attrs: vec![("busid", bus), ("class", "0x060400".into()), ("link_speed", "32.0 GT/s PCIe".into()), ("link_width", "16".into())],
            children,
        }),
    ]
}

fn cpu() -> impl Strategy<Value = Node> {
    (
        int(0..=3),
        value("[0-9a-f]{1,8}".prop_map(|s| s)),
        prop::sample::select(vec!["x86_64", "arm64", "ppc64", "riscv"]),
        prop::sample::select(vec!["GenuineIntel", "AuthenticAMD"]),
        prop::collection::vec(device(), 1..4),
    )
        .prop_map(|(numa, aff, arch, vendor, children)| {
            let mut attrs = vec![("numaid", numa), ("affinity", aff), ("arch", arch.to_string())];
            if arch != "arm64" {
                attrs.extend([("vendor", vendor.to_string()), ("familyid", "6".into()), ("modelid", "143".into())]);
            }
            Node { name: "cpu", attrs, children }
        })
}

fn system() -> impl Strategy<Value = Node> {
    prop::collection::vec(cpu(), 1..3).prop_map(|cpus| {
        let mut sys = Node { name: "system", attrs: vec![("version", "1".into())], children: cpus };
        // Devices numbered in order, so that bus ids are unique (unless made extreme) and
        // the NVLink targets of the pool name the first devices.
        fn number(n: &mut Node, next: &mut u32) {
            if n.name == "pci" {
                for (k, v) in &mut n.attrs {
                    if *k == "busid" && v.len() == 12 && v.starts_with("0000:") {
                        *next += 1;
                        *v = format!("0000:{:02x}:00.0", *next);
                    }
                }
            }
            for c in &mut n.children {
                number(c, next);
            }
        }
        number(&mut sys, &mut 0);
        sys
    })
}

fn build(n: &Node, x: &mut Xml, parent: Option<usize>) {
    let id = x.add(parent, n.name);
    for (k, v) in &n.attrs {
        x.set_attr(id, k, v.clone());
    }
    for c in &n.children {
        build(c, x, Some(id));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A generated machine, as `topo analyze --json --nodes N` runs it: read, modelled,
    /// searched, its channels and tuning computed, rendered.
    #[test]
    fn generated_topologies_never_panic(t in system(), nodes in 1usize..3) {
        let mut x = Xml::default();
        build(&t, &mut x, None);
        let text = topo::xml::write(&x);
        let (x, _) = match topo::xml::parse(&text, None) {
            Ok(r) => r,
            Err(e) => return one_line("read", &e),
        };
        let opts = topo::model::Options { nodes, ..Default::default() };
        let an = match topo::model::analyze(&x, "generated.xml", &opts) {
            Ok(an) => an,
            Err(e) => return one_line("model", &e),
        };
        let _ = topo::render::paths::text(&an, true);
        let so = topo::search::SearchOptions::from_analysis(&an);
        let (gs, sys) = match topo::search::run(&an, &so) {
            Ok(r) => r,
            Err(e) => return one_line("search", &e),
        };
        let _ = topo::render::analysis::json(&an, topo::render::graphs::graphs_json(&sys, &gs));
        let _ = topo::search::channels::for_analysis(&an, &gs);
        match topo::tune::Model::new(&an, &gs) {
            Ok(m) => {
                for bytes in [0, 1 << 20, u64::MAX / 2] {
                    if let Err(e) = m.predict(topo::tune::Func::AllReduce, bytes) {
                        one_line("tune", &e)?;
                    }
                }
            }
            Err(e) => one_line("tune", &e)?,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Fake-NVML documents

/// Mostly a plausible number, sometimes one at or past the type's ends.
fn num(range: std::ops::RangeInclusive<i64>) -> BoxedStrategy<Value> {
    prop_oneof![
        40 => range.prop_map(|v| json!(v)),
        1 => prop::sample::select(vec![json!(0), json!(-1), json!(u32::MAX), json!(1u64 << 31), json!(i64::MAX), json!(1.5), json!("7")]),
    ]
    .boxed()
}

/// The GPUs of `fixtures/fsroot/ws-4gpu`.
const WS_BUSIDS: &[&str] = &["0000:01:00.0", "0000:21:00.0", "0000:41:00.0", "0000:61:00.0"];

/// The bus ids of `fixtures/fsroot/ws-4gpu`, and some others.
fn nvml_busid() -> BoxedStrategy<Value> {
    prop_oneof![
        30 => prop::sample::select(WS_BUSIDS).prop_map(|s| json!(s)),
        1 => prop::sample::select(vec!["", "zz", "00000000:01:00.0", "0000:01:00", "&amp;"]).prop_map(|s| json!(s)),
    ]
    .boxed()
}

fn hex16() -> BoxedStrategy<Value> {
    prop_oneof![
        30 => (0u32..0x10000).prop_map(|v| json!(format!("0x{v:04x}"))),
        1 => prop::sample::select(vec!["", "0x", "0x10000", "zz", "-1"]).prop_map(|s| json!(s)),
    ]
    .boxed()
}

fn nvml_gpu() -> impl Strategy<Value = Value> {
    let link = (nvml_busid(), num(0..=4), any::<bool>(), any::<bool>())
        .prop_map(|(r, c, a, p)| json!({"remote": r, "count": c, "active": a, "p2p": p}));
    let pci = (hex16(), hex16(), prop::option::of((hex16(), hex16()))).prop_map(|(v, d, s)| {
        let mut o = json!({"vendor": v, "device": d});
        if let Some((sv, sd)) = s {
            o["subsystem_vendor"] = sv;
            o["subsystem_device"] = sd;
        }
        o
    });
    let width =
        || prop_oneof![20 => prop::sample::select(vec![1, 2, 4, 8, 16, 32]).prop_map(|w| json!(w)), 1 => num(0..=64)];
    let pcie = (num(1..=7), width(), num(1..=7), width())
        .prop_map(|(g, w, mg, mw)| json!({"gen": g, "width": w, "max_gen": mg, "max_width": mw}));
    let c2c = (num(2..=10), num(0..=100_000), num(0..=2)).prop_map(|(c, b, d)| json!({"count": c, "bw": b, "down": d}));
    (
        (
            prop_oneof![6 => Just(Value::Null), 1 => num(0..=7)],
            nvml_busid(),
            prop::option::of(pci),
            prop::option::of(num(60..=100)),
        ),
        (prop::option::of(pcie), prop::collection::vec(link, 0..4), prop::option::of(c2c)),
        (prop::option::of(any::<bool>()), prop::option::of(any::<bool>()), prop::option::of(num(-1..=1))),
    )
        .prop_map(|((index, bus, pci, sm), (pcie, links, c2c), (gdr, dmabuf, mlopart))| {
            let mut g = json!({"index": index, "busid": bus, "nvlinks": links});
            for (k, v) in [("pci", pci), ("sm", sm), ("pcie", pcie), ("c2c", c2c), ("mlopart", mlopart)] {
                if let Some(v) = v {
                    g[k] = v;
                }
            }
            for (k, v) in [("gdr", gdr), ("dmabuf", dmabuf)] {
                if let Some(v) = v {
                    g[k] = json!(v);
                }
            }
            g
        })
}

fn nvml_document() -> impl Strategy<Value = Value> {
    let ib = (prop::sample::select(vec!["mlx5_0", "mlx5_1", ""]), num(0..=1 << 20))
        .prop_map(|(n, q)| json!({"name": n, "max_qp": q}));
    (
        prop::collection::vec(nvml_gpu(), 0..5),
        prop::collection::vec(ib, 0..3),
        prop::option::of(prop::sample::select(vec!["550.90.07", "", "\u{663}"])),
    )
        .prop_flat_map(|(gpus, ib, driver)| {
            // The P2P matrices: mostly one row and column per GPU, sometimes not.
            let code = prop::sample::select(vec!["OK", "OK", "OK", "CNS", "GNS", "TNS", "DBR", "NS", "U", "??"]);
            let n = gpus.len();
            let size = prop_oneof![8 => Just(n), 1 => 0usize..6];
            let matrix = size.prop_flat_map(move |m| {
                prop::collection::vec(prop::collection::vec(code.clone().prop_map(str::to_string), m..=m), m..=m)
            });
            let p2p = prop::option::of((prop::option::of(matrix.clone()), prop::option::of(matrix)));
            (Just(gpus), Just(ib), Just(driver), p2p)
        })
        .prop_map(|(mut gpus, ib, driver, p2p)| {
            for (i, g) in gpus.iter_mut().enumerate() {
                if g["index"].is_null() {
                    g["index"] = json!(i);
                }
                if g["busid"].is_null() {
                    g["busid"] = json!(WS_BUSIDS[i % WS_BUSIDS.len()]);
                }
            }
            let mut d = json!({"comment": "generated", "gpus": gpus, "ib": ib});
            if let Some((r, w)) = p2p {
                let mut p = json!({});
                if let Some(r) = r {
                    p["read"] = json!(r);
                }
                if let Some(w) = w {
                    p["write"] = json!(w);
                }
                d["p2p"] = p;
            }
            if let Some(v) = driver {
                d["driver_version"] = json!(v);
            }
            d
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A generated fake-NVML document: parsed, written back and parsed again (the same
    /// snapshot, the same text when written once more), then used
    /// by detection of the ws-4gpu tree (`topo detect --root ... --nvml-fake FILE`) and
    /// the model on what detection wrote.
    #[test]
    fn generated_nvml_documents_never_panic(doc in nvml_document()) {
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let snap = match topo::discover::nvml::parse_fake(&text, Path::new("gen.json")) {
            Ok(s) => s,
            Err(e) => return one_line("parse", &e),
        };
        // What topo writes as a fake-NVML file reads back.
        let back = topo::discover::nvml::to_fake_json(&snap, "again");
        // (Read under the first file's name: the snapshot records where it came from.)
        let again = topo::discover::nvml::parse_fake(&back, Path::new("gen.json"));
        prop_assert!(again.is_ok(), "written back, the document does not read: {:?}\n{back}", again.err());
        // ... and says the same.
        let again = again.unwrap();
        prop_assert_eq!(&again, &snap, "written back, the document reads differently:\n{}", back);
        prop_assert_eq!(topo::discover::nvml::to_fake_json(&again, "again"), back, "a second write differs");

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("nvml.json");
        std::fs::write(&file, &text).unwrap();
        let src = topo::discover::Source { root: Some(common::fixtures().join("ws-4gpu")), nvml_fake: Some(file) };
        let (sys, nvml) = match src.open() {
            Ok(r) => r,
            Err(e) => return one_line("open", &e),
        };
        let det = match topo::discover::detect(&sys, nvml.as_ref(), &topo::discover::Options::default()) {
            Ok(d) => d,
            Err(e) => return one_line("detect", &e),
        };
        let written = topo::xml::write(&det.xml);
        let (x, _) = topo::xml::parse(&written, None).map_err(|e| TestCaseError::fail(format!("detect wrote XML that does not read: {e}")))?;
        if let Err(e) = topo::model::analyze(&x, "detected", &topo::model::Options::default()) {
            one_line("model", &e)?;
        }
    }
}
