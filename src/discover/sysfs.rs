//! Reading the Linux `/sys` and `/proc` trees, live or under a fake root.
//!
//! Every path the detection code uses is a *logical* absolute path (`/sys/bus/pci/...`).
//! Under `--root DIR` it is read as `DIR/sys/bus/pci/...`, the layout hwloc's `fsroot`
//! uses, and symbolic links are resolved inside `DIR`: a link that leaves the tree is
//! reported and treated as missing. Reads are cached, so the many walks NCCL's algorithm
//! makes up the same PCI path cost one read per file.
//!
//! Nothing here fails: a missing file is `None`; a file that exists but cannot be read
//! (permissions, `EINVAL` from a driver) is `None` plus a [`Notice`] naming the path.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::ErrorKind;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// Largest sysfs attribute read (PCI `config` space is 4096 bytes).
pub const MAX_ATTR_BYTES: u64 = 64 << 10;
/// Largest /proc file read (`/proc/cpuinfo` of a 1000-core machine is about 1.5 MiB).
pub const MAX_PROC_BYTES: u64 = 8 << 20;

/// How much a notice matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Info,
    Warning,
}

/// Something detection noticed and went on from: an unreadable file, an odd value, a
/// fact that NCCL would read differently.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Notice {
    pub level: Level,
    /// The file concerned, as a logical path (`/sys/...`), when there is one.
    pub path: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lvl = match self.level {
            Level::Info => "note",
            Level::Warning => "warning",
        };
        match &self.path {
            Some(p) => write!(f, "{lvl}: {p}: {}", self.message),
            None => write!(f, "{lvl}: {}", self.message),
        }
    }
}

/// A view of `/sys` and `/proc`, live or under a fake root.
pub struct Sys {
    /// The directory standing for `/`, as given.
    root: PathBuf,
    /// `root`, absolute and resolved: every host path is built from it.
    base: PathBuf,
    live: bool,
    text: RefCell<HashMap<String, Option<String>>>,
    /// Resolved paths of every path prefix looked at (`None`: missing).
    resolved: RefCell<HashMap<String, Option<String>>>,
    notices: RefCell<Vec<Notice>>,
    noticed: RefCell<HashSet<String>>,
}

/// Symbolic links followed in one resolution before giving up (as the kernel's 40).
const MAX_LINKS: u32 = 40;

impl Sys {
    /// The running machine's `/sys` and `/proc`.
    pub fn live() -> Sys {
        Sys::with_root(PathBuf::from("/"), PathBuf::from("/"), true)
    }

    /// A fake machine: `dir/sys` and `dir/proc` stand for `/sys` and `/proc`.
    pub fn at(dir: &Path) -> Result<Sys, Error> {
        let canon = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        if !canon.is_dir() {
            return Err(Error::Input { file: dir.display().to_string(), message: "--root needs a directory".into() });
        }
        if !canon.join("sys").is_dir() {
            return Err(Error::Input {
                file: dir.display().to_string(),
                message:
                    "no sys/ folder here: --root DIR must hold DIR/sys (and DIR/proc), the layout of hwloc's fsroot"
                        .into(),
            });
        }
        Ok(Sys::with_root(dir.to_path_buf(), canon, false))
    }

    fn with_root(root: PathBuf, base: PathBuf, live: bool) -> Sys {
        Sys {
            root,
            base,
            live,
            text: RefCell::default(),
            resolved: RefCell::default(),
            notices: RefCell::default(),
            noticed: RefCell::default(),
        }
    }

    /// Whether this is the running machine (not a `--root` tree).
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// The directory standing for `/`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where a logical path lives on this machine's file system.
    pub fn host_path(&self, logical: &str) -> PathBuf {
        self.base.join(logical.trim_start_matches('/'))
    }

    /// Record a notice once (the same text for the same path is kept once).
    pub fn notice(&self, level: Level, path: Option<&str>, message: impl Into<String>) {
        let message = message.into();
        let key = format!("{}\u{0}{}", path.unwrap_or(""), message);
        if self.noticed.borrow_mut().insert(key) {
            self.notices.borrow_mut().push(Notice { level, path: path.map(str::to_string), message });
        }
    }

    /// Everything noticed so far, in order.
    pub fn take_notices(&self) -> Vec<Notice> {
        std::mem::take(&mut *self.notices.borrow_mut())
    }

    /// The text of a file with its trailing newline removed (sysfs ends every value with
    /// one; NCCL drops the last byte the same way). `None` when the file is missing or
    /// unreadable; unreadable files are noticed.
    pub fn read(&self, logical: &str) -> Option<String> {
        if let Some(v) = self.text.borrow().get(logical) {
            return v.clone();
        }
        let v = self.read_bytes(logical).map(|bytes| {
            let mut s = String::from_utf8_lossy(&bytes).into_owned();
            if s.ends_with('\n') {
                s.pop();
            }
            s
        });
        self.text.borrow_mut().insert(logical.to_string(), v.clone());
        v
    }

    /// Raw bytes of a file (for PCI `config` space). Same rules as [`Sys::read`], uncached.
    pub fn read_bytes(&self, logical: &str) -> Option<Vec<u8>> {
        let real = self.realpath(logical)?;
        // sysfs attributes are a page at most; /proc files a few pages. A bigger file
        // (a sparse or endless one in a --root tree) is not what the kernel writes.
        let cap: u64 = if logical.starts_with("/proc/") { MAX_PROC_BYTES } else { MAX_ATTR_BYTES };
        let host = self.host_path(&real);
        if std::fs::symlink_metadata(&host).is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket()) {
            self.notice(Level::Warning, Some(logical), "is a FIFO or socket, not a file; left out");
            return None;
        }
        let res = std::fs::File::open(&host).and_then(|f| {
            let mut b = Vec::with_capacity(64);
            std::io::Read::read_to_end(&mut std::io::Read::take(f, cap + 1), &mut b).map(|_| b)
        });
        match res {
            Ok(b) if b.len() as u64 > cap => {
                self.notice(Level::Warning, Some(logical), format!("holds more than {cap} bytes; left out"));
                None
            }
            Ok(b) => Some(b),
            Err(e) => {
                match e.kind() {
                    ErrorKind::NotFound => {}
                    ErrorKind::PermissionDenied => self.notice(
                        Level::Warning,
                        Some(logical),
                        "permission denied; the value is left out (run as root to read it)",
                    ),
                    ErrorKind::IsADirectory => {
                        self.notice(Level::Warning, Some(logical), "is a directory where a file was expected")
                    }
                    _ => {
                        // EINVAL and friends: drivers refuse some reads (`speed` of a link that is down).
                        if e.raw_os_error() == Some(22) {
                            self.notice(Level::Info, Some(logical), "the driver refuses to give this value (EINVAL)")
                        } else {
                            self.notice(Level::Warning, Some(logical), format!("cannot read: {e}"))
                        }
                    }
                }
                None
            }
        }
    }

    /// The resolved (logical) path: all symbolic links followed, `..` applied, never
    /// above the root. `None` when something on the way is missing, a link loops, or (in
    /// a fake tree) a link is absolute and would leave the tree.
    pub fn realpath(&self, logical: &str) -> Option<String> {
        self.resolve(logical, 0)
    }

    fn resolve(&self, logical: &str, depth: u32) -> Option<String> {
        let mut cur = String::new(); // "" stands for "/"
        for c in logical.split('/') {
            match c {
                "" | "." => continue,
                ".." => {
                    cur.truncate(cur.rfind('/').unwrap_or(0));
                    continue;
                }
                _ => {}
            }
            let cand = format!("{cur}/{c}");
            let cached = self.resolved.borrow().get(&cand).cloned();
            let next = match cached {
                Some(r) => r,
                None => {
                    let r = self.resolve_one(&cur, &cand, depth);
                    self.resolved.borrow_mut().insert(cand.clone(), r.clone());
                    r
                }
            };
            cur = next?;
            if cur == "/" {
                cur.clear();
            }
        }
        Some(if cur.is_empty() { "/".to_string() } else { cur })
    }

    /// Resolve the last component of `cand`, whose parent `dir` is already resolved.
    fn resolve_one(&self, dir: &str, cand: &str, depth: u32) -> Option<String> {
        let host = self.host_path(cand);
        let meta = match std::fs::symlink_metadata(&host) {
            Ok(m) => m,
            Err(e) => {
                if e.kind() == ErrorKind::PermissionDenied {
                    self.notice(Level::Warning, Some(cand), "permission denied while resolving the path");
                }
                return None;
            }
        };
        if !meta.file_type().is_symlink() {
            return Some(cand.to_string());
        }
        if depth >= MAX_LINKS {
            self.notice(Level::Warning, Some(cand), "too many levels of symbolic links (a loop?); ignored");
            return None;
        }
        let target = std::fs::read_link(&host).ok()?;
        let t = target.to_string_lossy();
        let joined = if t.starts_with('/') {
            if !self.live {
                self.notice(
                    Level::Warning,
                    Some(cand),
                    format!("absolute link to {t} would leave the --root tree; ignored (write fake trees with relative links)"),
                );
                return None;
            }
            t.into_owned()
        } else {
            format!("{dir}/{t}")
        };
        self.resolve(&joined, depth + 1)
    }

    /// Names in a directory, sorted. Empty when it is missing (unreadable ones are noticed).
    pub fn list(&self, logical: &str) -> Vec<String> {
        let Some(real) = self.realpath(logical) else { return Vec::new() };
        match std::fs::read_dir(self.host_path(&real)) {
            Ok(rd) => {
                let mut v: Vec<String> =
                    rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
                v.sort();
                v
            }
            Err(e) => {
                if e.kind() == ErrorKind::PermissionDenied {
                    self.notice(Level::Warning, Some(logical), "permission denied listing this folder");
                }
                Vec::new()
            }
        }
    }

    /// Whether something (file, folder or link target) exists at a logical path.
    pub fn exists(&self, logical: &str) -> bool {
        self.realpath(logical).is_some()
    }
}

/// Whether a NUMA node (`node3`) has CPUs: its cpumap has a bit set.
pub fn node_has_cpus(sys: &Sys, node: &str) -> bool {
    sys.read(&format!("/sys/devices/system/node/{node}/cpumap"))
        .is_some_and(|m| !crate::discover::cpumap::parse(&m).is_empty())
}

/// Whether a path component is a PCI address `DDDD:BB:DD.F` (NCCL's `checkBDFFormat`).
pub fn is_bdf(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && [0, 1, 2, 3, 5, 6, 8, 9, 11].iter().all(|&i| b[i].is_ascii_hexdigit())
}

/// The last component of a path.
pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The path without its last component.
pub fn dirname(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) => "/",
        Some(i) => &path[..i],
        None => "",
    }
}

/// Canonical lower-case `dddd:bb:dd.f` form of a bus id written with any domain width
/// (`00000000:3B:00.0` from NVML, `0000:3b:00.0` from sysfs). `None` if it is not one.
pub fn normalize_busid(s: &str) -> Option<String> {
    let s = s.trim().to_ascii_lowercase();
    let (dom, rest) = s.split_once(':')?;
    let (bus, rest) = rest.split_once(':')?;
    let (dev, func) = rest.split_once('.')?;
    let hex = |t: &str, max: usize| !t.is_empty() && t.len() <= max && t.chars().all(|c| c.is_ascii_hexdigit());
    if !(hex(dom, 8) && hex(bus, 2) && hex(dev, 2) && hex(func, 1)) {
        return None;
    }
    let d = u32::from_str_radix(dom, 16).ok()?;
    if d > 0xffff {
        return None;
    }
    let b = u32::from_str_radix(bus, 16).ok()?;
    let v = u32::from_str_radix(dev, 16).ok()?;
    let f = u32::from_str_radix(func, 16).ok()?;
    if v > 0x1f || f > 7 {
        return None;
    }
    Some(format!("{d:04x}:{b:02x}:{v:02x}.{f:x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bdf_format() {
        assert!(is_bdf("0000:00:01.0"));
        assert!(is_bdf("ffff:ff:1f.7"));
        assert!(!is_bdf("pci0000:00"));
        assert!(!is_bdf("0000:00:01.0x"));
        assert!(!is_bdf("virtio1"));
    }

    #[test]
    fn busid_normalization() {
        assert_eq!(normalize_busid("00000000:3B:00.0").as_deref(), Some("0000:3b:00.0"));
        assert_eq!(normalize_busid("0001:a8:1f.7").as_deref(), Some("0001:a8:1f.7"));
        assert_eq!(normalize_busid("fffffff:ffff:ff"), None);
        assert_eq!(normalize_busid(""), None);
    }

    #[test]
    fn paths() {
        assert_eq!(basename("/sys/devices/pci0000:00/0000:00:01.0"), "0000:00:01.0");
        assert_eq!(dirname("/sys/devices/pci0000:00/0000:00:01.0"), "/sys/devices/pci0000:00");
        assert_eq!(dirname("/sys"), "/");
    }

    #[test]
    fn fake_root_reads_and_resolves_inside() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("sys/devices/pci0000:00/0000:00:01.0")).unwrap();
        std::fs::create_dir_all(d.join("sys/bus/pci/devices")).unwrap();
        std::fs::write(d.join("sys/devices/pci0000:00/0000:00:01.0/class"), "0x030200\n").unwrap();
        std::os::unix::fs::symlink(
            "../../../devices/pci0000:00/0000:00:01.0",
            d.join("sys/bus/pci/devices/0000:00:01.0"),
        )
        .unwrap();
        std::os::unix::fs::symlink("/etc", d.join("sys/escape")).unwrap();
        std::os::unix::fs::symlink("../../../../../../../../etc", d.join("sys/up")).unwrap();
        std::os::unix::fs::symlink("loop2", d.join("sys/loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", d.join("sys/loop2")).unwrap();
        let sys = Sys::at(d).unwrap();
        assert_eq!(sys.read("/sys/bus/pci/devices/0000:00:01.0/class").as_deref(), Some("0x030200"));
        assert_eq!(
            sys.realpath("/sys/bus/pci/devices/0000:00:01.0").as_deref(),
            Some("/sys/devices/pci0000:00/0000:00:01.0")
        );
        assert_eq!(sys.read("/sys/missing"), None);
        assert_eq!(sys.realpath("/sys/escape"), None);
        // `..` stops at the root of the tree: this names DIR/etc, which is not there.
        assert_eq!(sys.realpath("/sys/up"), None);
        assert_eq!(sys.read("/sys/loop1/x"), None);
        let n = sys.take_notices();
        assert!(n.iter().any(|n| n.message.contains("would leave the --root tree")), "{n:?}");
        assert!(n.iter().any(|n| n.message.contains("too many levels")), "{n:?}");
        assert_eq!(sys.list("/sys/bus/pci/devices"), vec!["0000:00:01.0".to_string()]);
    }

    #[test]
    fn root_without_sys_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = Sys::at(dir.path()).err().unwrap();
        assert!(err.to_string().contains("no sys/"), "{err}");
    }
}
