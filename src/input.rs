//! Every input becomes the same XML tree: a topology file, a machine topo carries built
//! in, a `--root` tree, or this machine detected live.
//!
//! The command layer says which with a [`Source`]; [`load`] returns the tree with the
//! notices met on the way (lint warnings of the file, detection notices) and a label
//! that names the input in messages. Nothing here prints.

use std::path::{Path, PathBuf};

use crate::discover;
use crate::discover::nvml::FabricInfo;
use crate::error::Error;
use crate::notice::Diagnostic;
use crate::xml::{self, Xml};

/// Where a topology comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format).
    File(PathBuf),
    /// A machine topo carries built in (see [`crate::fixtures`]).
    Fixture(String),
    /// Detection, of this machine or of a `--root` tree.
    Detect(discover::Source, discover::Options),
}

/// A topology loaded from some source, with the notices met on the way.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub xml: Xml,
    /// Names the input in messages: the file's path, `fixture:NAME`, `detected:...`.
    pub label: String,
    pub diags: Vec<Diagnostic>,
    /// Detected machines: each GPU's NVLink fabric registration in NVML index order
    /// (`None` for a GPU: not supported), when NVML was asked for it.
    pub fabric: Option<Vec<Option<FabricInfo>>>,
}

/// Load the topology a source names.
pub fn load(source: &Source) -> Result<Loaded, Error> {
    match source {
        Source::File(path) => {
            let (xml, diags) = xml::read_file(path)?;
            Ok(Loaded { xml, label: path.display().to_string(), diags, fabric: None })
        }
        Source::Fixture(name) => {
            let (xml, diags) = crate::fixtures::get(name)?.load()?;
            Ok(Loaded { xml, label: format!("fixture:{name}"), diags, fabric: None })
        }
        Source::Detect(src, opts) => {
            let (sys, nvml) = src.open()?;
            let det = discover::detect(&sys, nvml.as_ref(), opts)?;
            let diags = det.notices.iter().map(|n| Diagnostic::warning(n.to_string())).collect();
            let fabric =
                det.nvml.as_ref().filter(|n| n.fabric_known).map(|n| n.gpus.iter().map(|g| g.fabric.clone()).collect());
            Ok(Loaded { xml: det.xml, label: src.label(), diags, fabric })
        }
    }
}

/// A dump named on a command line that takes several (`topo diff A B`): a file, or
/// `fixture:NAME` when no file has that name.
pub fn dump(path: &Path) -> Result<Loaded, Error> {
    let s = path.to_string_lossy();
    if let Some(name) = s.strip_prefix("fixture:")
        && !path.exists()
    {
        let (xml, diags) = crate::fixtures::get(name)?.load()?;
        return Ok(Loaded { xml, label: s.into_owned(), diags, fabric: None });
    }
    load(&Source::File(path.to_path_buf()))
}

/// An NCCL graph file (NCCL_GRAPH_FILE / NCCL_GRAPH_DUMP_FILE format), named as the
/// search reports it.
#[derive(Debug, Clone)]
pub struct GraphFile {
    pub name: String,
    pub xml: Xml,
    pub diags: Vec<Diagnostic>,
}

/// Read a graph file.
pub fn graph_file(path: &Path) -> Result<GraphFile, Error> {
    let (xml, diags) = xml::read_file(path)?;
    Ok(GraphFile { name: path.display().to_string(), xml, diags })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixtures_and_files_load_alike() {
        let a = load(&Source::Fixture("dgx-h100".into())).unwrap();
        assert_eq!(a.label, "fixture:dgx-h100");
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("m.xml");
        std::fs::write(&p, xml::write(&a.xml)).unwrap();
        let b = load(&Source::File(p.clone())).unwrap();
        assert_eq!(xml::write(&a.xml), xml::write(&b.xml));
        assert_eq!(b.label, p.display().to_string());
        let c = dump(Path::new("fixture:dgx-h100")).unwrap();
        assert_eq!(xml::write(&a.xml), xml::write(&c.xml));
    }

    #[test]
    fn missing_inputs_are_errors() {
        assert!(load(&Source::Fixture("no-such-machine".into())).is_err());
        assert!(load(&Source::File("/no/such/file.xml".into())).is_err());
        assert!(graph_file(Path::new("/no/such/graph.xml")).is_err());
    }
}
