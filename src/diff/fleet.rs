//! `topo fleet FILE...|DIR`: many dumps, one per node, grouped by a canonical signature;
//! the largest group is the reference and every other group is an outlier, shown with
//! its differences and its predicted ring bandwidth against the reference.
//!
//! The signature is a hash of the tree that ignores the order of children and the
//! attributes that differ from host to host (`host_hash`, `guid`, and whatever
//! `--ignore` adds), so a thousand identical nodes make one group. Files are read and
//! hashed on every core; the model runs once per group, on its first dump.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diff::{GraphsFn, Ignore, RingEstimate, Side, compare};
use crate::error::Error;
use crate::model;
use crate::xml::{self, NodeId, Xml};

/// Attributes that differ between any two hosts and never count in a fleet.
pub const HOST_NOISE: [&str; 2] = ["host_hash", "guid"];

/// What `topo fleet` compares, besides the model settings.
#[derive(Debug, Clone, Default)]
pub struct FleetOptions {
    /// Topology dumps (one per node), or directories holding them (every `*.xml` file
    /// directly inside).
    pub inputs: Vec<PathBuf>,
    /// Attributes to ignore besides [`HOST_NOISE`].
    pub ignore: Vec<String>,
    /// Compare with this dump's group instead of the largest group.
    pub reference: Option<PathBuf>,
    /// Report unreadable dumps and go on, instead of failing.
    pub skip_bad: bool,
}

impl FleetOptions {
    /// The defaults of the command line, for these inputs.
    pub fn new(inputs: Vec<PathBuf>) -> FleetOptions {
        FleetOptions { inputs, ..FleetOptions::default() }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= b as u64;
        *h = h.wrapping_mul(FNV_PRIME);
    }
}

/// The canonical signature of a dump: a hash of every element's name, its attributes
/// (sorted, without the ignored ones) and its children's hashes (sorted, so the order
/// of siblings does not count). Stable from run to run and machine to machine.
pub fn signature(x: &Xml, ignore: &Ignore) -> u64 {
    fn rec(x: &Xml, id: NodeId, ignore: &Ignore) -> u64 {
        let mut h = FNV_OFFSET;
        fnv(&mut h, x.name(id).as_bytes());
        fnv(&mut h, &[0]);
        let mut attrs: Vec<&(String, String)> = x.nodes[id].attrs.iter().filter(|(k, _)| !ignore.contains(k)).collect();
        attrs.sort_unstable();
        for (k, v) in attrs {
            fnv(&mut h, k.as_bytes());
            fnv(&mut h, b"=");
            fnv(&mut h, v.as_bytes());
            fnv(&mut h, &[0]);
        }
        let mut kids: Vec<u64> = x.children(id).iter().map(|&c| rec(x, c, ignore)).collect();
        kids.sort_unstable();
        for k in kids {
            fnv(&mut h, &k.to_le_bytes());
        }
        h
    }
    x.root().map_or(FNV_OFFSET, |r| rec(x, r, ignore))
}

/// `a` before `b` as people number nodes: runs of digits by their value, so `n2` comes
/// before `n10` and `n10` before `n100`; the rest by character.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let run = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
                let (m, n) = (run(x), run(y));
                // Values by their digits without leading zeros: longer is larger.
                let trim = |d: &[u8]| -> Vec<u8> { d.iter().copied().skip_while(|&c| c == b'0').collect() };
                let (dp, dq) = (trim(&x[..m]), trim(&y[..n]));
                let by_value = dp.len().cmp(&dq.len()).then_with(|| dp.cmp(&dq));
                if by_value != Ordering::Equal {
                    return by_value;
                }
                x = &x[m..];
                y = &y[n..];
            }
            (Some(p), Some(q)) if p != q => return p.cmp(q),
            _ => {
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

fn natural_path_cmp(a: &Path, b: &Path) -> std::cmp::Ordering {
    natural_cmp(&a.to_string_lossy(), &b.to_string_lossy())
}

/// The dumps named on the command line: files as given, directories expanded to the
/// `*.xml` files (and `topo detect --json` reports, `*.json`) directly inside them, in
/// natural order (`n2` before `n10`).
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Error::io(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| !f.is_dir())
                .filter(|f| {
                    // Other JSON beside the dumps (a saved report, say) is not a dump.
                    f.extension().is_some_and(|x| x.eq_ignore_ascii_case("xml"))
                        || (is_report(f) && std::fs::read_to_string(f).is_ok_and(|t| t.contains("\"topology\"")))
                })
                .collect();
            if files.is_empty() {
                return Err(Error::Input {
                    file: p.display().to_string(),
                    message: "no *.xml topology dump (or *.json `topo detect --json` report) in this directory".into(),
                });
            }
            files.sort_by(|a, b| natural_path_cmp(a, b));
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    Ok(out)
}

/// Read one dump and check that NCCL can read it at all.
fn read_checked(path: &Path) -> Result<Xml, Error> {
    let (x, _) = read_dump(path)?;
    xml::lint_topology(&x, Some(path), Default::default())?;
    Ok(x)
}

/// The NVLink clique a tray's GPUs registered in (cluster UUID, clique id), or why they
/// are not all registered in one.
pub type Registered = Result<(String, u32), String>;

/// Whether a dump is a `topo detect --json` report (by its name).
fn is_report(path: &Path) -> bool {
    path.extension().is_some_and(|x| x.eq_ignore_ascii_case("json"))
}

/// One dump: NCCL topology XML, or a `topo detect --json` report, whose `topology` is
/// the XML and whose GPUs carry the fabric registrations NVML gave (which NCCL's XML
/// does not hold: 2.30.7 writes no fabric attribute). With the report, the NVLink
/// clique its GPUs registered in ([`clique_of`]).
pub fn read_dump(path: &Path) -> Result<(Xml, Option<Registered>), Error> {
    if !is_report(path) {
        return Ok((xml::read_file(path)?.0, None));
    }
    let bad = |m: String| Error::Input { file: path.display().to_string(), message: m };
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON ({e})")))?;
    let Some(topology) = v["topology"].as_str() else {
        return Err(bad("no `topology` member: not a `topo detect --json` report".into()));
    };
    let (x, _) = xml::parse(topology, Some(path))?;
    Ok((x, clique_of(&v["nvml"]["gpus"])))
}

/// The NVLink clique (cluster UUID, clique id) of a report's GPUs, as NCCL's MNNVL check
/// reads their registrations: `None` when no GPU reports one, `Err` when a registration
/// is not completed or the GPUs are in different cliques.
fn clique_of(gpus: &serde_json::Value) -> Option<Registered> {
    let regs: Vec<&serde_json::Value> = gpus.as_array()?.iter().map(|g| &g["fabric"]).collect();
    if regs.iter().all(|f| f.is_null()) {
        return None;
    }
    let mut ids = Vec::new();
    for (i, f) in regs.iter().enumerate() {
        let state = f["state"].as_str().unwrap_or("not_supported");
        if state != "completed" {
            return Some(Err(format!("GPU {i}'s registration is {}", state.replace('_', " "))));
        }
        let uuid = f["cluster_uuid"].as_str().unwrap_or_default().to_ascii_lowercase();
        ids.push((uuid, f["clique_id"].as_u64().unwrap_or(0) as u32));
    }
    match ids.iter().find(|id| **id != ids[0]) {
        Some((u, c)) => Some(Err(format!("GPUs in two cliques ({c:#x} of {u}, {:#x} of {})", ids[0].1, ids[0].0))),
        None => Some(Ok(ids.swap_remove(0))),
    }
}

/// Read and hash every file, on every core. Keeps no tree: a thousand trees would cost
/// far more memory than reading a group's first file again.
fn hash_all(files: &[PathBuf], ignore: &Ignore) -> Vec<Result<u64, Error>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len().max(1));
    let chunk = files.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || part.iter().map(|f| read_checked(f).map(|x| signature(&x, ignore))).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![Err(Error::Unavailable("a worker thread panicked while reading dumps".into()))]
                })
            })
            .collect()
    })
}

/// One group of identical dumps.
#[derive(Debug, Clone)]
pub struct Group {
    pub signature: u64,
    pub files: Vec<PathBuf>,
    /// Its GPUs (`<gpu>`) and network devices (`<net>`), counted in its first dump
    /// (0 when that dump could not be read).
    pub gpus: usize,
    pub nets: usize,
}

impl Group {
    fn new(signature: u64, files: Vec<PathBuf>) -> Group {
        Group { signature, files, gpus: 0, nets: 0 }
    }

    /// Count the GPUs and network devices of the group's dump `x`.
    fn count(&mut self, x: &Xml) {
        let n = |name: &str| x.root().map_or(0, |r| x.descendants_named(r, name).len());
        (self.gpus, self.nets) = (n("gpu"), n("net"));
    }
}

/// Everything `topo fleet` found.
pub struct FleetReport {
    pub dumps: usize,
    pub ignore: Ignore,
    pub reference: Group,
    /// Whether the reference dump is one of the fleet's.
    pub reference_in_fleet: bool,
    pub reference_ring: Option<RingEstimate>,
    pub outliers: Vec<Outlier>,
    /// Dumps that could not be read (with `--skip-bad`).
    pub skipped: Vec<(PathBuf, String)>,
    /// When some dumps are trays of an NVL rack: which could form one multi-node
    /// NVLink clique and which are off the fabric.
    pub rack: Option<FleetRack>,
}

/// The dumps of a fleet as the trays of NVL racks (GB200/GB300): those whose every GPU
/// reaches the NVLink fabric and so may join one clique (NCCL fuses them when their
/// registrations, which a dump does not hold, agree), and those that cannot.
#[derive(Debug, Clone, Default)]
pub struct FleetRack {
    /// Dumps shaped as rack trays (every GPU on an NVSwitch, joined to its CPU by C2C).
    pub trays: Vec<PathBuf>,
    /// Other dumps, with the GPUs that have no NVLink to an NVSwitch (empty: they do,
    /// but the dump is not a tray's, no C2C).
    pub off: Vec<(PathBuf, Vec<String>)>,
    /// The cliques the trays given as `detect --json` reports registered in (cluster
    /// UUID, clique id, their dumps), in order of first tray: NCCL fuses only the trays
    /// of one clique.
    pub cliques: Vec<(String, u32, Vec<PathBuf>)>,
    /// Trays given as reports whose GPUs are not all registered in one clique, with why.
    pub unregistered: Vec<(PathBuf, String)>,
}

/// Sort the groups' dumps into rack trays and the others; `None` when none is a tray.
fn rack_of(groups: &[(&Group, Option<&Xml>)]) -> Option<FleetRack> {
    let mut rack = FleetRack::default();
    for (g, x) in groups {
        let Some(x) = x else { continue };
        if crate::model::mnnvl::rack_tray(x) {
            rack.trays.extend(g.files.iter().cloned());
        } else {
            let gpus = crate::model::mnnvl::gpus_off_fabric(x);
            rack.off.extend(g.files.iter().map(|f| (f.clone(), gpus.clone())));
        }
    }
    rack.trays.sort_by(|a, b| natural_path_cmp(a, b));
    rack.off.sort_by(|a, b| natural_path_cmp(&a.0, &b.0));
    for f in rack.trays.iter().filter(|f| is_report(f)) {
        match read_dump(f).ok().and_then(|(_, c)| c) {
            Some(Ok((u, c))) => match rack.cliques.iter_mut().find(|k| k.0 == u && k.1 == c) {
                Some(k) => k.2.push(f.clone()),
                None => rack.cliques.push((u, c, vec![f.clone()])),
            },
            Some(Err(why)) => rack.unregistered.push((f.clone(), why)),
            None => rack.unregistered.push((f.clone(), "no GPU reports a fabric registration".into())),
        }
    }
    (!rack.trays.is_empty()).then_some(rack)
}

/// A group that differs from the reference.
pub struct Outlier {
    pub group: Group,
    pub ring: Option<RingEstimate>,
    pub changes: Vec<crate::diff::Change>,
    pub hidden: usize,
    /// Why the group's first dump could not be compared (it was read fine before).
    pub error: Option<String>,
}

/// Group the dumps and compare each group with the reference.
/// Unreadable dumps fail the whole fleet (the first one's error, with a count of the
/// others) unless `skip_bad` is set; then they are listed in the report.
pub fn fleet(args: &FleetOptions, opts: &model::Options, graphs: GraphsFn) -> Result<FleetReport, Error> {
    let files = expand_inputs(&args.inputs)?;
    let ignore = Ignore::new(HOST_NOISE.iter().copied().chain(args.ignore.iter().map(String::as_str)));
    let hashes = hash_all(&files, &ignore);
    let mut skipped = Vec::new();
    let mut groups: BTreeMap<u64, Vec<PathBuf>> = BTreeMap::new();
    let mut first_err = None;
    for (f, h) in files.iter().zip(hashes) {
        match h {
            Ok(h) => groups.entry(h).or_default().push(f.clone()),
            Err(e) => {
                skipped.push((f.clone(), e.to_string()));
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err
        && !args.skip_bad
    {
        if skipped.len() > 1 {
            return Err(Error::Usage(format!(
                "{e}; and {} more dumps could not be read (--skip-bad reports them and goes on)",
                skipped.len() - 1
            )));
        }
        return Err(e);
    }
    // Largest first; on a tie, the group whose first file sorts first.
    let mut groups: Vec<Group> = groups.into_iter().map(|(signature, files)| Group::new(signature, files)).collect();
    groups.sort_by(|a, b| b.files.len().cmp(&a.files.len()).then_with(|| natural_path_cmp(&a.files[0], &b.files[0])));

    let (reference, reference_in_fleet, ref_xml) = match &args.reference {
        Some(r) => {
            let x = read_checked(r)?;
            let sig = signature(&x, &ignore);
            match groups.iter().position(|g| g.signature == sig) {
                Some(i) => (groups.remove(i), true, x),
                None => (Group::new(sig, vec![r.clone()]), false, x),
            }
        }
        None => {
            if groups.is_empty() {
                return Err(Error::Usage("no readable topology dump to compare".into()));
            }
            let g = groups.remove(0);
            let x = read_checked(&g.files[0])?;
            (g, true, x)
        }
    };
    let mut reference = reference;
    reference.count(&ref_xml);
    let ref_side_xml = ref_xml.clone();
    let ref_side = Side::new(&reference.files[0].display().to_string(), ref_xml, opts, graphs);
    let mut outliers = Vec::new();
    let mut shapes: Vec<(Group, Option<Xml>)> = Vec::new();
    for mut g in groups {
        let label = g.files[0].display().to_string();
        match read_checked(&g.files[0]) {
            Ok(x) => {
                g.count(&x);
                shapes.push((g.clone(), Some(x.clone())));
                let side = Side::new(&label, x, opts, graphs);
                let (changes, hidden) = compare(&ref_side, &side, &ignore);
                outliers.push(Outlier { ring: side.ring(), group: g, changes, hidden, error: None });
            }
            Err(e) => outliers.push(Outlier {
                ring: None,
                group: g,
                changes: Vec::new(),
                hidden: 0,
                error: Some(e.to_string()),
            }),
        }
    }
    let mut all: Vec<(&Group, Option<&Xml>)> = Vec::new();
    if reference_in_fleet {
        all.push((&reference, Some(&ref_side_xml)));
    }
    all.extend(shapes.iter().map(|(g, x)| (g, x.as_ref())));
    let rack = rack_of(&all);
    Ok(FleetReport {
        rack,
        dumps: files.len(),
        ignore,
        reference_ring: ref_side.ring(),
        reference,
        reference_in_fleet,
        outliers,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::testutil::{find, fixture};

    #[test]
    fn nodes_in_natural_order() {
        let mut v = ["n100", "n10", "n2", "n1", "n02", "a", "n1b", "n1a"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["a", "n1", "n1a", "n1b", "n02", "n2", "n10", "n100"]);
    }

    #[test]
    fn signature_ignores_order_and_host_noise() {
        let ignore = Ignore::new(HOST_NOISE);
        let a = fixture("dgx-h100");
        let mut b = a.clone();
        let cpu = find(&b, "cpu", "numaid", "0");
        b.set_attr(cpu, "host_hash", "0x1");
        let n = find(&b, "net", "name", "mlx5_0");
        b.set_attr(n, "guid", "0xabc");
        b.nodes[cpu].children.reverse();
        b.nodes[n].attrs.reverse();
        assert_eq!(signature(&a, &ignore), signature(&b, &ignore));
        b.set_attr(n, "speed", "200000");
        assert_ne!(signature(&a, &ignore), signature(&b, &ignore));
        // NIC names count unless ignored.
        let mut c = a.clone();
        let n = find(&c, "net", "name", "mlx5_0");
        c.set_attr(n, "name", "ib0");
        assert_ne!(signature(&a, &ignore), signature(&c, &ignore));
        let more = Ignore::new(["host_hash", "guid", "name"]);
        assert_eq!(signature(&a, &more), signature(&c, &more));
    }
}
