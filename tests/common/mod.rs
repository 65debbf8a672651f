//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

mod external;
mod skip;
#[allow(unused_imports)]
pub use external::{external_limit, run_external, run_limited};
#[allow(unused_imports)]
pub use skip::skip;

/// The fake machines of the project.
#[allow(dead_code)]
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fsroot")
}

/// A scratch folder, in memory when /dev/shm is there (trees have thousands of files).
#[allow(dead_code)]
pub fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(d) = tempfile::tempdir_in(shm)
    {
        return d;
    }
    tempfile::tempdir().unwrap()
}

/// `TOPO_UPDATE_SNAPSHOTS=1`: the snapshot tests write what they produce in place of the
/// stored copies instead of comparing.
#[allow(dead_code)]
pub fn update_snapshots() -> bool {
    std::env::var_os("TOPO_UPDATE_SNAPSHOTS").is_some_and(|v| v == "1")
}

/// End a snapshot test that wrote instead of comparing: it fails, so that an update run
/// never reads as a pass (nothing was checked).
#[allow(dead_code)]
pub fn updated_snapshots(what: &str) -> ! {
    panic!(
        "TOPO_UPDATE_SNAPSHOTS=1: {what}; nothing was compared. Review `git diff tests/snapshots`, \
         then run the tests again without the variable."
    )
}

/// The shared machines of `root` (`../shared/fixtures`): the real dumps, the synthetic
/// Grace nodes and the multi-node NVLink trays, as (`dir/file.xml`, path), sorted.
#[allow(dead_code)]
pub fn shared_machines(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in ["nccl", "synthetic", "mnnvl/xml"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|x| x == "xml"));
        files.sort();
        for f in files {
            out.push((format!("{dir}/{}", f.file_name().unwrap_or_default().to_string_lossy()), f));
        }
    }
    out
}
