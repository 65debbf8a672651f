//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

mod skip;
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
