//! Which NCCL release wrote a log: the version line when there is one, else nccl-tests'
//! `nccl-library=` header, else the formats of the lines read. Every format (a
//! fingerprint) holds in a range of releases; the candidates are the releases in all of
//! them. A fingerprint that would leave no candidate (a log mixing releases) is set
//! aside and reported.

use super::facts::{LogVersion, VersionSource};

/// NCCL releases 2.5.6 to 2.30.7 (the tags of NVIDIA/nccl), oldest first.
const TAGS: [(u32, u32, u32); 55] = [
    (2, 5, 6),
    (2, 5, 7),
    (2, 6, 4),
    (2, 7, 3),
    (2, 7, 5),
    (2, 7, 6),
    (2, 7, 8),
    (2, 8, 3),
    (2, 8, 4),
    (2, 9, 6),
    (2, 9, 8),
    (2, 9, 9),
    (2, 10, 3),
    (2, 11, 4),
    (2, 12, 7),
    (2, 12, 10),
    (2, 12, 12),
    (2, 13, 4),
    (2, 14, 3),
    (2, 15, 1),
    (2, 15, 5),
    (2, 16, 2),
    (2, 16, 5),
    (2, 17, 1),
    (2, 18, 1),
    (2, 18, 3),
    (2, 18, 5),
    (2, 18, 6),
    (2, 19, 1),
    (2, 19, 3),
    (2, 19, 4),
    (2, 20, 3),
    (2, 20, 5),
    (2, 21, 5),
    (2, 22, 3),
    (2, 23, 4),
    (2, 24, 3),
    (2, 25, 1),
    (2, 26, 2),
    (2, 26, 3),
    (2, 26, 5),
    (2, 26, 6),
    (2, 27, 3),
    (2, 27, 5),
    (2, 27, 6),
    (2, 27, 7),
    (2, 28, 3),
    (2, 28, 7),
    (2, 28, 9),
    (2, 29, 2),
    (2, 29, 3),
    (2, 29, 7),
    (2, 30, 3),
    (2, 30, 4),
    (2, 30, 7),
];

const fn code(v: (u32, u32, u32)) -> u32 {
    v.0 * 10000 + v.1 * 100 + v.2
}

/// The releases whose number lies in `lo..=hi` (codes `major*10000+minor*100+patch`).
fn mask(lo: u32, hi: u32) -> u64 {
    let mut m = 0u64;
    for (i, t) in TAGS.iter().enumerate() {
        let c = code(*t);
        if lo <= c && c <= hi {
            m |= 1 << i;
        }
    }
    m
}

const ALL: u64 = (1u64 << TAGS.len()) - 1;
const LAST: u32 = 999_999;

macro_rules! fingerprints {
    ($($name:ident = ($lo:expr, $hi:expr, $what:expr);)*) => {
        /// A format seen in a log that only some releases print.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[allow(clippy::upper_case_acronyms)]
        pub(crate) enum Fp { $($name),* }
        impl Fp {
            #[cfg(test)]
            const ALL: &'static [Fp] = &[$(Fp::$name),*];
            fn range(self) -> (u32, u32) { match self { $(Fp::$name => ($lo, $hi)),* } }
            fn what(self) -> &'static str { match self { $(Fp::$name => $what),* } }
        }
    };
}

fingerprints! {
    HeaderWidthSpeed = (20500, 20599, "`maxWidth N maxSpeed N` system header");
    HeaderWidth = (20600, 20799, "`maxWidth` system header without total");
    HeaderWidthTotal = (20800, 21399, "`maxWidth/totalWidth` system header");
    HeaderBw = (21400, LAST, "`maxBw/totalBw` system header");
    IntLinkBw = (20500, 20599, "integer link widths in the system print");
    FloatLinkBw = (20600, LAST, "decimal link bandwidths in the system print");
    CpuNoAttr = (20500, 20599, "CPU nodes without attributes");
    CpuAttr = (20600, LAST, "CPU nodes with arch/vendor/model");
    PciNoAttr = (20500, 20899, "PCI switches without device attribute");
    PciAttr = (20900, LAST, "PCI switches with device attribute");
    NetAttr1 = (20500, 20599, "NET nodes with one attribute");
    NetAttr3 = (20600, 22399, "NET nodes with asic/port/bw");
    NetAttr4 = (22400, LAST, "NET nodes with coll/asic/port/bw");
    TreeNodeUpper = (20500, 22099, "upper-case node ids in the system tree");
    TreeNodeDashed = (22100, LAST, "system-local node ids in the system tree");
    FarNodeUpper = (20500, 22299, "upper-case far node ids");
    FarNodeDashed = (22300, LAST, "system-local far node ids");
    LocLink = (22200, LAST, "LOC links in the system print");
    C2c = (22600, LAST, "C2C links or paths");
    P2c = (22700, LAST, "P2C paths");
    PxnPath = (21200, LAST, "PXN/DIS paths");
    NvbPath = (20800, LAST, "NVB paths");
    NewNodeTypes = (23003, LAST, "GIN/DEV nodes");
    NewestNodeTypes = (23007, LAST, "RMA/CXB nodes or MLOPart");
    PathInt = (20500, 20599, "integer path entries");
    PathF6 = (20600, 22099, "`%f` path bandwidths");
    PathF1 = (22100, LAST, "`%.1f` path bandwidths");
    PathHeadUpper = (20500, 22299, "upper-case path heads");
    PathHeadDashed = (22300, LAST, "system-local path heads");
    PatternInt = (20500, 20599, "`Pattern ... speed I/I, nvlink I, type I`");
    PatternSpeed = (20600, 21399, "`Pattern ... speed F/F`");
    PatternBw = (21400, LAST, "`Pattern ... bw F/F`");
    GraphNetHex = (22100, 22299, "hex NET ids in graph channels");
    GraphNetDashed = (22300, LAST, "system-local NET ids in graph channels");
    GraphGpuRank = (20500, 22703, "ranks in graph channels");
    GraphGpuId = (22705, LAST, "bus ids in graph channels");
    TreesDouble = (20500, 20799, "double-tree `Trees` items");
    TreesSingle = (20800, LAST, "single-tree `Trees` items");
    TreeGraph = (20800, LAST, "`Tree N :` lines");
    RingInfo = (21000, LAST, "`Ring NN : a -> b -> c` lines");
    OrderPadded = (20500, 22299, "padded `Channel NN/MM` orders");
    OrderMinimal = (22300, LAST, "minimal-width `Channel NN/MM` orders");
    ConnRingWord = (20500, 20699, "`Ring NN : a[x] -> b[y]` connections");
    CommonDevice = (20500, 20799, "`P2P/common device`");
    DirectShm = (20500, 21299, "`direct shared memory`");
    ShmTwo = (21300, 23004, "`SHM/a/b` connections");
    ShmOne = (23007, LAST, "`SHM/direct` connections");
    P2pNoConn = (20700, 21399, "P2P connections without connection index");
    P2pConn = (21400, LAST, "P2P connections with connection index");
    NetNoConn = (20500, 21199, "NET connections without connection index");
    NetConn = (21200, LAST, "NET connections with connection index");
    BusIdBrackets = (20500, 21801, "bus ids in connection brackets");
    DevBrackets = (21803, LAST, "device numbers in connection brackets");
    Cumem = (21801, LAST, "`P2P/CUMEM`");
    Mnnvl = (22000, LAST, "`P2P/MNNVL`");
    ReadSuffix = (20700, LAST, "`/read` on P2P connections");
    GdrPci = (22600, LAST, "`/GDRDMA(PCI)`");
    InitNoCommId = (20500, 21599, "comm lines without commId");
    InitNoNvml = (21600, 21801, "comm lines with commId and without nvmlDev");
    InitNvml = (21803, LAST, "comm lines with nvmlDev or Init START");
    InitFunc = (22100, LAST, "comm lines named by their function");
    InitAnyFunc = (22300, LAST, "comm lines of any init function");
    InitRankPrefix = (22900, LAST, "`[Rank N]` Init START");
    NodesLine = (22000, LAST, "`nRanks/nNodes/localRanks` lines");
    Counts3 = (20700, 21699, "channel counts with three numbers");
    Counts4 = (21700, 21999, "channel counts with nvls");
    Counts5 = (22000, LAST, "channel counts with collnet and nvls");
    Thresholds2 = (20500, 20599, "threadThresholds of two groups");
    Thresholds3 = (20600, 21399, "threadThresholds of three groups");
    Thresholds4 = (21400, LAST, "threadThresholds of four parts");
    AffinityOld = (20500, 22799, "`Setting affinity for GPU`");
    AffinityNew = (22800, LAST, "`ncclTopoGetCpuAffinity`");
    ConnectedRings = (20800, 22399, "`Connected all rings`");
    ConnectedRingsPxn = (22400, LAST, "`Connected all rings, use ring PXN`");
    ConnectedTrees = (20800, LAST, "`Connected all trees`");
    NvlsHead = (21800, LAST, "`NVLS Head`");
    NvlsTrees2 = (21800, 22099, "`NVLS Trees` with two children");
    NvlsTrees3 = (22100, LAST, "`NVLS Trees` with three children");
    UsingNetwork = (20600, LAST, "`Using network`");
    P2pChunksize = (21600, LAST, "`P2P Chunksize`");
    GitVersion = (22902, LAST, "`NCCL git version`");
    TuneLatency = (20500, 21799, "`Latency/AlgBw` tuning header");
    TuneAlgorithm = (21800, LAST, "`Algorithm` tuning header");
    CudaDriver = (21300, LAST, "`cudaDriverVersion`");
    InitTimings = (22200, LAST, "`Init timings`");
    BootstrapTimings = (22300, LAST, "`Bootstrap timings`");
    CcLine = (22200, LAST, "`CC ..., Multi-GPU CC`");
}

fn name(i: usize) -> String {
    let (a, b, c) = TAGS[i];
    format!("{a}.{b}.{c}")
}

/// Everything seen that tells the release.
#[derive(Debug, Default)]
pub(crate) struct Evidence {
    /// Version lines: (major, minor, patch, suffix, cuda), distinct, first first.
    lines: Vec<(u32, u32, u32, String, Option<String>)>,
    /// nccl-tests' `nccl-library=` codes, distinct.
    tests: Vec<u32>,
    /// Fingerprints in order of first appearance.
    seen: Vec<Fp>,
    seen_bits: u128,
}

impl Evidence {
    pub fn see(&mut self, fp: Fp) {
        let bit = 1u128 << (fp as u32);
        if self.seen_bits & bit == 0 {
            self.seen_bits |= bit;
            self.seen.push(fp);
        }
    }

    pub fn version_line(&mut self, major: u32, minor: u32, patch: u32, suffix: &str, cuda: Option<&str>) {
        let known = self.lines.iter().any(|l| (l.0, l.1, l.2) == (major, minor, patch) && l.3 == suffix);
        if !known && self.lines.len() < 16 {
            self.lines.push((major, minor, patch, suffix.to_string(), cuda.map(str::to_string)));
        }
    }

    /// nccl-tests' `nccl-library=N`: `major*10000+minor*100+patch` (2.9+), or
    /// `major*1000+minor*100+patch` before.
    pub fn tests_header(&mut self, n: u32) {
        if !self.tests.contains(&n) && self.tests.len() < 16 {
            self.tests.push(n);
        }
    }

    /// The candidate releases, and the fingerprints set aside because they fit none of
    /// the others.
    fn candidates(&self) -> (u64, Vec<Fp>) {
        let mut set = ALL;
        let mut aside = Vec::new();
        for &fp in &self.seen {
            let (lo, hi) = fp.range();
            let m = mask(lo, hi);
            if set & m == 0 {
                aside.push(fp);
            } else {
                set &= m;
            }
        }
        (set, aside)
    }

    fn range_text(set: u64) -> Option<(String, String)> {
        if set == 0 {
            return None;
        }
        let lo = set.trailing_zeros() as usize;
        let hi = 63 - set.leading_zeros() as usize;
        Some((name(lo), name(hi)))
    }

    /// The release, when anything tells it; notices go to `warnings`.
    pub fn result(&self, warnings: &mut Vec<String>) -> Option<LogVersion> {
        let (set, aside) = self.candidates();
        let aside_text = || {
            aside
                .iter()
                .map(|f| {
                    let (lo, hi) = f.range();
                    format!("{} ({})", f.what(), range_words(lo, hi))
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        if let Some(first) = self.lines.first() {
            let (ma, mi, pa) = (first.0, first.1, first.2);
            let value = format!("{ma}.{mi}.{pa}");
            let mut conflicts: Vec<String> = Vec::new();
            for l in &self.lines[1..] {
                let v = format!("{}.{}.{}{}", l.0, l.1, l.2, l.3);
                if !conflicts.contains(&v) && v != format!("{value}{}", first.3) {
                    conflicts.push(v);
                }
            }
            for &t in &self.tests {
                if let Some(v) = decode_tests(t) {
                    let v = format!("{}.{}.{}", v.0, v.1, v.2);
                    if v != value && !conflicts.contains(&v) {
                        conflicts.push(v);
                    }
                }
            }
            if !conflicts.is_empty() {
                warnings.push(format!("the log prints several NCCL versions: {value}, {}", conflicts.join(", ")));
            }
            let c = code((ma, mi, pa));
            let fits = TAGS.iter().enumerate().any(|(i, t)| code(*t) == c && set & (1 << i) != 0);
            let tagged = TAGS.iter().any(|t| code(*t) == c);
            if tagged && !self.seen.is_empty() && (!fits || !aside.is_empty()) {
                let mut msg = String::new();
                if !fits {
                    if let Some((lo, hi)) = Self::range_text(set) {
                        msg = format!("the formats read fit NCCL {lo} to {hi}, not the version line's {value}");
                    }
                } else {
                    msg = format!("some formats do not fit NCCL {value}: {}", aside_text());
                }
                if !msg.is_empty() {
                    warnings.push(format!("{msg} (a modified NCCL, or a log that mixes runs?)"));
                }
            }
            return Some(LogVersion {
                value: value.clone(),
                major: ma,
                minor: mi,
                patch: pa,
                cuda: first.4.clone(),
                suffix: (!first.3.is_empty()).then(|| first.3.clone()),
                source: VersionSource::VersionLine,
                range: Some((value.clone(), value)),
                conflicts,
            });
        }
        if let Some(&t) = self.tests.first()
            && let Some((ma, mi, pa)) = decode_tests(t)
        {
            let value = format!("{ma}.{mi}.{pa}");
            let conflicts: Vec<String> = self.tests[1..]
                .iter()
                .filter_map(|&x| decode_tests(x))
                .map(|(a, b, c)| format!("{a}.{b}.{c}"))
                .filter(|v| *v != value)
                .collect();
            return Some(LogVersion {
                value: value.clone(),
                major: ma,
                minor: mi,
                patch: pa,
                cuda: None,
                suffix: None,
                source: VersionSource::TestsHeader,
                range: Some((value.clone(), value)),
                conflicts,
            });
        }
        if self.seen.is_empty() {
            return None;
        }
        let (lo, hi) = Self::range_text(set)?;
        if !aside.is_empty() {
            warnings.push(format!(
                "the formats read fit NCCL {lo} to {hi} except: {} (a log that mixes releases?)",
                aside_text()
            ));
        }
        let top = 63 - set.leading_zeros() as usize;
        let (ma, mi, pa) = TAGS[top];
        Some(LogVersion {
            value: hi.clone(),
            major: ma,
            minor: mi,
            patch: pa,
            cuda: None,
            suffix: None,
            source: VersionSource::Formats,
            range: Some((lo, hi)),
            conflicts: Vec::new(),
        })
    }
}

fn range_words(lo: u32, hi: u32) -> String {
    let v = |c: u32| format!("{}.{}.{}", c / 10000, c / 100 % 100, c % 100);
    if hi == LAST { format!("{}+", v(lo)) } else { format!("{} to {}", v(lo), v(hi)) }
}

/// nccl-tests' `nccl-library=` number to a release.
pub(crate) fn decode_tests(n: u32) -> Option<(u32, u32, u32)> {
    if n >= 10000 {
        Some((n / 10000, n / 100 % 100, n % 100))
    } else if n >= 1000 {
        Some((n / 1000, n / 100 % 10, n % 100))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fingerprint_names_releases() {
        for fp in Fp::ALL {
            let (lo, hi) = fp.range();
            assert_ne!(mask(lo, hi), 0, "{fp:?}");
        }
        assert!(Fp::ALL.len() <= 128);
    }

    #[test]
    fn dating_from_formats() {
        let mut e = Evidence::default();
        for fp in [Fp::HeaderWidth, Fp::PatternSpeed, Fp::NetAttr3] {
            e.see(fp);
        }
        let v = e.result(&mut Vec::new()).unwrap();
        assert_eq!(v.range, Some(("2.6.4".into(), "2.7.8".into())));
        assert_eq!((v.value.as_str(), v.source), ("2.7.8", VersionSource::Formats));
    }

    #[test]
    fn mixed_releases_are_reported() {
        let mut e = Evidence::default();
        for fp in [Fp::TreesDouble, Fp::Thresholds3, Fp::ConnectedTrees] {
            e.see(fp);
        }
        let mut w = Vec::new();
        let v = e.result(&mut w).unwrap();
        assert_eq!(v.range, Some(("2.6.4".into(), "2.7.8".into())));
        assert!(w[0].contains("Connected all trees"), "{w:?}");
    }

    #[test]
    fn version_line_wins() {
        let mut e = Evidence::default();
        e.see(Fp::HeaderBw);
        e.version_line(2, 23, 4, "", Some("12.4"));
        e.version_line(2, 21, 5, "", None);
        e.tests_header(22304);
        let mut w = Vec::new();
        let v = e.result(&mut w).unwrap();
        assert_eq!((v.value.as_str(), v.cuda.as_deref()), ("2.23.4", Some("12.4")));
        assert_eq!(v.conflicts, ["2.21.5"]);
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn tests_header_codes() {
        assert_eq!(decode_tests(21805), Some((2, 18, 5)));
        assert_eq!(decode_tests(2708), Some((2, 7, 8)));
        assert_eq!(decode_tests(12), None);
        let mut e = Evidence::default();
        e.tests_header(23003);
        let v = e.result(&mut Vec::new()).unwrap();
        assert_eq!((v.value.as_str(), v.source), ("2.30.3", VersionSource::TestsHeader));
    }
}
