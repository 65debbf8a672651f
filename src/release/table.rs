//! The releases topo models: the [`Release`] type, the table of every NCCL tag it
//! accepts and those checked against NCCL's own answers, and reading a version.

use std::fmt;

/// One NCCL release (a `vX.Y.Z-1` tag of NVIDIA/nccl).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    pub major: u8,
    pub minor: u8,
    pub patch: u8,
}

/// Every release topo accepts, oldest first: the NCCL tags from 2.18.1 to 2.30.7.
pub const RELEASES: &[Release] = &[
    r(2, 18, 1),
    r(2, 18, 3),
    r(2, 18, 5),
    r(2, 18, 6),
    r(2, 19, 1),
    r(2, 19, 3),
    r(2, 19, 4),
    r(2, 20, 3),
    r(2, 20, 5),
    r(2, 21, 5),
    r(2, 22, 3),
    r(2, 23, 4),
    r(2, 24, 3),
    r(2, 25, 1),
    r(2, 26, 2),
    r(2, 26, 3),
    r(2, 26, 5),
    r(2, 26, 6),
    r(2, 27, 3),
    r(2, 27, 5),
    r(2, 27, 6),
    r(2, 27, 7),
    r(2, 28, 3),
    r(2, 28, 7),
    r(2, 28, 9),
    r(2, 29, 2),
    r(2, 29, 3),
    r(2, 29, 7),
    r(2, 30, 3),
    r(2, 30, 4),
    r(2, 30, 7),
];

/// The releases whose answers on the shared machines were computed by NCCL itself and
/// are checked exactly.
pub const CHECKED: &[Release] = &[r(2, 21, 5), r(2, 27, 5), r(2, 28, 9), r(2, 30, 7)];

pub(super) const fn r(major: u8, minor: u8, patch: u8) -> Release {
    Release { major, minor, patch }
}

/// Why a version string is not a release topo models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not of the form X.Y.Z.
    Form(String),
    /// Well formed, but not a release topo knows.
    Unknown(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let range = format!("{} to {}", RELEASES[0], Release::NEWEST);
        match self {
            ParseError::Form(s) => write!(f, "'{s}' is not an NCCL version (X.Y.Z, e.g. 2.21.5); topo models {range}"),
            ParseError::Unknown(s) => write!(
                f,
                "NCCL {s} is not a release topo models; supported: {range} ({}), see `topo --version`",
                Release::list()
            ),
        }
    }
}

impl std::error::Error for ParseError {}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Default for Release {
    fn default() -> Release {
        Release::NEWEST
    }
}

impl Release {
    /// The newest release topo models, and the default for files and fixtures.
    pub const NEWEST: Release = r(2, 30, 7);

    /// Reads `2.21.5` (a leading `v`, a `-1` tag suffix and a `+cuda…` build suffix are
    /// accepted, as logs and package names print them).
    pub fn parse(s: &str) -> Result<Release, ParseError> {
        let t = s.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let t = t.split('+').next().unwrap_or(t);
        let t = t.strip_suffix("-1").unwrap_or(t);
        let parts: Vec<&str> = t.split('.').collect();
        let num = |p: &str| -> Option<u8> {
            if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse().ok()
        };
        let [a, b, c] = parts[..] else { return Err(ParseError::Form(s.trim().to_string())) };
        let (Some(major), Some(minor), Some(patch)) = (num(a), num(b), num(c)) else {
            return Err(ParseError::Form(s.trim().to_string()));
        };
        let rel = r(major, minor, patch);
        if RELEASES.contains(&rel) { Ok(rel) } else { Err(ParseError::Unknown(rel.to_string())) }
    }

    /// NCCL's own number for it (`NCCL_VERSION_CODE`: 22105 for 2.21.5).
    pub fn code(self) -> u32 {
        self.major as u32 * 10000 + self.minor as u32 * 100 + self.patch as u32
    }

    /// Reads NCCL's version code (`ncclGetVersion`).
    pub fn from_code(code: u32) -> Result<Release, ParseError> {
        let rel = Release { major: (code / 10000) as u8, minor: (code / 100 % 100) as u8, patch: (code % 100) as u8 };
        if RELEASES.contains(&rel) { Ok(rel) } else { Err(ParseError::Unknown(rel.to_string())) }
    }

    /// Whether NCCL's own answers for this release were checked exactly.
    pub fn checked(self) -> bool {
        CHECKED.contains(&self)
    }

    /// One line on how far to trust the answers for this release.
    pub fn provenance(self) -> String {
        if self.checked() {
            format!("NCCL {self}: checked against NCCL's own answers")
        } else {
            format!("NCCL {self}: modelled from its source, not checked against reference answers")
        }
    }

    /// The supported releases, comma-separated, the checked ones marked with `*`.
    pub fn list() -> String {
        RELEASES
            .iter()
            .map(|r| if r.checked() { format!("{r}*") } else { r.to_string() })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// At least release `major.minor.patch` (the boundary a behaviour appeared in).
    pub(super) const fn since(self, major: u8, minor: u8, patch: u8) -> bool {
        let a = (self.major as u32) << 16 | (self.minor as u32) << 8 | self.patch as u32;
        let b = (major as u32) << 16 | (minor as u32) << 8 | patch as u32;
        a >= b
    }
}
