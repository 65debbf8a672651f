//! Reading and writing NCCL topology XML gives the same bytes back.
//!
//! - every real NCCL file in `../shared/fixtures/nccl` (skipped, with a message, when
//!   that folder is absent): byte for byte, except three files people edited by hand,
//!   which come back in NCCL's own form and are then stable;
//! - our own fixtures, the synthetic NVL72 domain and the trees the model prepares;
//! - generated NCCL-style trees (proptest).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use topo::xml::{self, Xml};

mod common;

fn shared_dir(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl");
    if dir.is_dir() {
        Some(dir)
    } else {
        common::skip(test, &format!("{} is absent", dir.display()));
        None
    }
}

/// Read a file, write it, read and write that again; returns (original, first write).
fn round(path: &Path) -> (String, String) {
    let original = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (doc, _) = xml::read_file(path).unwrap_or_else(|e| panic!("{e}"));
    let written = xml::write(&doc);
    let (again, diags) = xml::parse(&written, None).unwrap_or_else(|e| panic!("{}: rewritten: {e}", path.display()));
    assert!(diags.is_empty(), "{}: our own output draws warnings: {diags:?}", path.display());
    assert_eq!(xml::write(&again), written, "{}: writing is not stable", path.display());
    (original, written)
}

#[test]
fn shared_nccl_files_round_trip_byte_for_byte() {
    let Some(dir) = shared_dir("shared_nccl_files_round_trip_byte_for_byte") else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "only {} files in {}", files.len(), dir.display());
    let mut exact = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let (original, written) = round(path);
        match name.as_str() {
            // An emptied element written as a start/end pair: NCCL writes `<pci .../>`.
            "aliyun-a100x1.xml" => {
                assert_ne!(original, written);
                assert!(original.contains("\">\n        </pci>\n"), "{name}: the hand edit moved");
                assert_eq!(original.replace("\">\n        </pci>\n", "\"/>\n"), written, "{name}");
            }
            "h800x8.xml" => {
                assert_eq!(format!("{written}\n"), original, "{name}: only the trailing blank line differs")
            }
            "oci-h100.xml" => {
                assert_eq!(format!("\n{written}"), original, "{name}: only the leading blank line differs")
            }
            _ => {
                assert_eq!(written, original, "{name}: not byte for byte");
                exact += 1;
            }
        }
    }
    assert_eq!(exact, files.len() - 3);
    println!("{} files, {exact} byte for byte", files.len());
}

#[test]
fn built_in_fixtures_round_trip() {
    for f in topo::fixtures::all() {
        let (doc, diags) = f.load().unwrap();
        assert!(diags.is_empty(), "{}: {diags:?}", f.name);
        assert_eq!(xml::write(&doc), f.xml, "{}", f.name);
    }
    for nics in [0, 18] {
        let text = xml::write(&topo::fixtures::synthetic_nvl72(nics).unwrap());
        let (doc, _) = xml::parse(&text, None).unwrap();
        assert_eq!(xml::write(&doc), text, "synthetic with {nics} NICs");
    }
}

#[test]
fn prepared_trees_round_trip() {
    // What `show --xml` prints and what the model builds from are our own writer's output too.
    for f in topo::fixtures::all() {
        let (doc, _) = f.load().unwrap();
        for tree in [
            topo::model::prepare::nccl_view(&doc),
            topo::model::analyze(&doc, f.name, &topo::model::Options::default()).unwrap().prepared,
        ] {
            let text = xml::write(&tree);
            let (back, diags) = xml::parse(&text, None).unwrap();
            assert!(diags.is_empty(), "{}: {diags:?}", f.name);
            assert_eq!(xml::write(&back), text, "{}", f.name);
        }
    }
}

/// A generated element: name, attributes (unique keys, in order) and children.
#[derive(Debug, Clone)]
struct Tree {
    name: String,
    attrs: Vec<(String, String)>,
    kids: Vec<Tree>,
}

fn attrs() -> impl Strategy<Value = Vec<(String, String)>> {
    let key = prop_oneof![
        Just("busid".to_string()),
        Just("class".to_string()),
        Just("dev".to_string()),
        Just("name".to_string()),
        Just("speed".to_string()),
        Just("link_speed".to_string()),
        "[a-z][a-z_]{0,10}",
    ];
    // Anything but quotes, angle brackets and ampersands, spaces included.
    let value = "[A-Za-z0-9 .:_+/,=-]{0,16}";
    prop::collection::vec((key, value), 0..6).prop_map(|kv| {
        let mut out: Vec<(String, String)> = Vec::new();
        for (k, v) in kv {
            if !out.iter().any(|(have, _)| *have == k) {
                out.push((k, v));
            }
        }
        out
    })
}

fn element() -> impl Strategy<Value = Tree> {
    let name = prop::sample::select(vec!["system", "cpu", "pci", "gpu", "nvlink", "nic", "net", "c2c", "pcilink"]);
    let leaf = (name.clone(), attrs()).prop_map(|(n, a)| Tree { name: n.to_string(), attrs: a, kids: vec![] });
    leaf.prop_recursive(5, 64, 6, move |inner| {
        (name.clone(), attrs(), prop::collection::vec(inner, 0..6)).prop_map(|(n, a, kids)| Tree {
            name: n.to_string(),
            attrs: a,
            kids,
        })
    })
}

fn document() -> impl Strategy<Value = Tree> {
    (attrs(), prop::collection::vec(element(), 0..5)).prop_map(|(a, kids)| Tree {
        name: "system".into(),
        attrs: a,
        kids,
    })
}

fn build(t: &Tree, doc: &mut Xml, parent: Option<usize>) {
    let id = doc.add(parent, &t.name);
    for (k, v) in &t.attrs {
        doc.set_attr(id, k, v.as_str());
    }
    for k in &t.kids {
        build(k, doc, Some(id));
    }
}

/// Same elements, attributes and nesting (lines aside).
fn same(a: &Xml, ia: usize, b: &Xml, ib: usize) -> bool {
    a.name(ia) == b.name(ib)
        && a.nodes[ia].attrs == b.nodes[ib].attrs
        && a.children(ia).len() == b.children(ib).len()
        && a.children(ia).iter().zip(b.children(ib)).all(|(&x, &y)| same(a, x, b, y))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn generated_trees_round_trip(t in document()) {
        let mut doc = Xml::default();
        build(&t, &mut doc, None);
        let text = xml::write(&doc);
        let (back, diags) = xml::parse(&text, None).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert!(diags.is_empty(), "{diags:?}\n{text}");
        prop_assert_eq!(xml::write(&back), text.clone());
        prop_assert!(same(&doc, 0, &back, 0), "structure differs after reading back:\n{}", text);
        prop_assert_eq!(back.live_count(), doc.live_count());
    }
}
