//! Which NCCL this machine would run, so that an analysis of the live machine models
//! that release by default.
//!
//! Two places are asked, in order: the dynamic loader (`libnccl.so.2`, as a program
//! linked against NCCL finds it, and its `ncclGetVersion`), then the Python packages
//! PyTorch installs NCCL from (`nvidia-nccl-cu12` and friends: their `.dist-info`
//! folder names carry the version). Nothing is loaded from the Python folders.

use std::path::{Path, PathBuf};

/// An NCCL found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// As NCCL numbers it, `2.21.5`.
    pub version: String,
    /// Where it was found, for the message that says which release is modelled.
    pub place: String,
}

/// Where to look besides the loader: the Python prefixes of the environment in use
/// (`VIRTUAL_ENV`, `CONDA_PREFIX`, `~/.local`) and the system's.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// Ask the dynamic loader for `libnccl.so.2`.
    pub loader: bool,
    /// Python prefixes (`PREFIX/lib/python3.X/site-packages` is searched).
    pub prefixes: Vec<PathBuf>,
}

impl Places {
    /// The usual places, from the environment's `VIRTUAL_ENV`, `CONDA_PREFIX` and
    /// `HOME` (given by the caller).
    pub fn usual(virtual_env: Option<&str>, conda_prefix: Option<&str>, home: Option<&str>) -> Places {
        let mut prefixes: Vec<PathBuf> = Vec::new();
        prefixes.extend(virtual_env.map(PathBuf::from));
        prefixes.extend(conda_prefix.map(PathBuf::from));
        prefixes.extend(home.map(|h| Path::new(h).join(".local")));
        prefixes.push(PathBuf::from("/usr/local"));
        prefixes.push(PathBuf::from("/usr"));
        Places { loader: true, prefixes }
    }
}

/// The NCCL found first, or `None`.
pub fn find(places: &Places) -> Option<Found> {
    if places.loader
        && let Some(f) = from_loader()
    {
        return Some(f);
    }
    places.prefixes.iter().find_map(|p| from_python_prefix(p))
}

/// `libnccl.so.2` through the dynamic loader, and its own answer to `ncclGetVersion`.
#[cfg(feature = "nvml")]
fn from_loader() -> Option<Found> {
    // SAFETY: loading NCCL runs no code of ours; the symbol is NCCL's documented
    // `ncclResult_t ncclGetVersion(int*)`, called with a valid pointer.
    unsafe {
        let lib = libloading::Library::new("libnccl.so.2").ok()?;
        let get: libloading::Symbol<unsafe extern "C" fn(*mut i32) -> i32> = lib.get(b"ncclGetVersion\0").ok()?;
        let mut code = 0i32;
        if get(&mut code) != 0 || code <= 0 {
            return None;
        }
        Some(Found { version: version_of_code(code as u32), place: "libnccl.so.2 (ncclGetVersion)".into() })
    }
}

#[cfg(not(feature = "nvml"))]
fn from_loader() -> Option<Found> {
    None
}

/// NCCL's version code as text: `major*10000 + minor*100 + patch` since 2.9, and
/// `major*1000 + minor*100 + patch` before.
pub fn version_of_code(code: u32) -> String {
    if code >= 10000 {
        format!("{}.{}.{}", code / 10000, code / 100 % 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, code / 100 % 10, code % 100)
    }
}

/// An `nvidia-nccl-cu1X` package under `prefix/lib/python3.*/{site,dist}-packages`.
fn from_python_prefix(prefix: &Path) -> Option<Found> {
    let lib = prefix.join("lib");
    let mut pythons: Vec<PathBuf> = std::fs::read_dir(&lib)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path())
        .collect();
    pythons.sort();
    for py in pythons {
        for site in ["site-packages", "dist-packages"] {
            let dir = py.join(site);
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            let mut names: Vec<String> =
                entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
            names.sort();
            for name in names {
                if let Some(v) = nccl_dist_info(&name) {
                    return Some(Found {
                        version: v.to_string(),
                        place: format!("Python package {} in {}", name.trim_end_matches(".dist-info"), dir.display()),
                    });
                }
            }
        }
    }
    None
}

/// The version in a folder name like `nvidia_nccl_cu12-2.21.5.dist-info`.
fn nccl_dist_info(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("nvidia_nccl_cu")?.strip_suffix(".dist-info")?;
    let (cuda, version) = rest.split_once('-')?;
    (cuda.chars().all(|c| c.is_ascii_digit()) && !cuda.is_empty()).then_some(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_package_folder_names() {
        assert_eq!(nccl_dist_info("nvidia_nccl_cu12-2.21.5.dist-info"), Some("2.21.5"));
        assert_eq!(nccl_dist_info("nvidia_nccl_cu11-2.14.3.dist-info"), Some("2.14.3"));
        assert_eq!(nccl_dist_info("nvidia_nccl_cu12-2.21.5"), None);
        assert_eq!(nccl_dist_info("nvidia_cudnn_cu12-9.1.0.70.dist-info"), None);
    }

    #[test]
    fn version_codes() {
        assert_eq!(version_of_code(22105), "2.21.5");
        assert_eq!(version_of_code(23007), "2.30.7");
        assert_eq!(version_of_code(2708), "2.7.8");
    }

    #[test]
    fn finds_the_package_in_a_virtual_env() {
        let dir = std::env::temp_dir().join(format!("topo-nccl-probe-{}", std::process::id()));
        let site = dir.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("nvidia_nccl_cu12-2.27.5.dist-info")).unwrap();
        std::fs::create_dir_all(site.join("torch-2.8.0.dist-info")).unwrap();
        let places = Places { loader: false, prefixes: vec![PathBuf::from("/nonexistent"), dir.clone()] };
        let f = find(&places).unwrap();
        assert_eq!(f.version, "2.27.5");
        assert!(f.place.contains("nvidia_nccl_cu12-2.27.5"), "{}", f.place);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(find(&Places { loader: false, prefixes: vec![dir] }), None);
    }
}
