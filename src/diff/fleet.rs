//! `topo fleet FILE...|DIR`: many dumps, one per node, grouped by a canonical signature;
//! the largest group is the reference and every other group is an outlier, shown with
//! its differences and its predicted ring bandwidth against the reference.
//!
//! The signature is a hash of the tree that ignores the order of children and the
//! attributes that differ from host to host (`host_hash`, `guid`, and whatever
//! `--ignore` adds), so a thousand identical nodes make one group. Files are read and
//! hashed on every core; the model runs once per group, on its first dump.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::diff::{self, GraphsFn, Ignore, ImpactArgs, RingEstimate, Side, compare, render_changes, summary};
use crate::env::Env;
use crate::error::Error;
use crate::render::gbs;
use crate::xml::{self, NodeId, Xml};

/// Attributes that differ between any two hosts and never count in a fleet.
pub const HOST_NOISE: [&str; 2] = ["host_hash", "guid"];

/// `topo fleet`: group many dumps and explain the outliers.
#[derive(Debug, Clone, clap::Args)]
pub struct FleetArgs {
    /// Topology dumps (one per node), or directories holding them (every `*.xml` file
    /// directly inside).
    #[arg(value_name = "FILE|DIR", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Print JSON for scripts.
    #[arg(long)]
    pub json: bool,
    /// Also ignore these attributes (comma-separated or repeated), e.g. name to ignore
    /// NIC names; host_hash and guid are always ignored.
    #[arg(long, value_name = "ATTR", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Compare with this dump's group instead of the largest group (a file of the fleet,
    /// or any other dump).
    #[arg(long, value_name = "FILE")]
    pub reference: Option<PathBuf>,
    /// Report unreadable dumps and go on, instead of stopping with exit status 2.
    #[arg(long)]
    pub skip_bad: bool,
    #[command(flatten)]
    pub model: ImpactArgs,
}

impl FleetArgs {
    /// The defaults of the command line, for these inputs.
    pub fn new(inputs: Vec<PathBuf>) -> FleetArgs {
        FleetArgs {
            inputs,
            json: false,
            ignore: Vec::new(),
            reference: None,
            skip_bad: false,
            model: ImpactArgs::default(),
        }
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

/// The dumps named on the command line: files as given, directories expanded to the
/// `*.xml` files directly inside them, sorted.
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Error::io(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x.eq_ignore_ascii_case("xml")) && !f.is_dir())
                .collect();
            if files.is_empty() {
                return Err(Error::Input {
                    file: p.display().to_string(),
                    message: "no *.xml topology dump in this directory".into(),
                });
            }
            files.sort();
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
    let (x, _) = xml::read_file(path)?;
    xml::lint_topology(&x, Some(path))?;
    Ok(x)
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
}

/// A group that differs from the reference.
pub struct Outlier {
    pub group: Group,
    pub ring: Option<RingEstimate>,
    pub changes: Vec<diff::Change>,
    pub hidden: usize,
    /// Why the group's first dump could not be compared (it was read fine before).
    pub error: Option<String>,
}

/// Group the dumps and compare each group with the reference.
pub fn fleet(args: &FleetArgs, graphs: GraphsFn) -> Result<FleetReport, Error> {
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
                if !args.skip_bad {
                    eprintln!("topo: error: {e}");
                }
                skipped.push((f.clone(), e.to_string()));
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err
        && !args.skip_bad
    {
        if skipped.len() > 1 {
            eprintln!("topo: {} dumps could not be read; --skip-bad reports them and goes on", skipped.len());
        }
        return Err(e);
    }
    // Largest first; on a tie, the group whose first file sorts first.
    let mut groups: Vec<Group> = groups.into_iter().map(|(signature, files)| Group { signature, files }).collect();
    groups.sort_by(|a, b| b.files.len().cmp(&a.files.len()).then_with(|| a.files[0].cmp(&b.files[0])));
    let opts = args.model.options(Env::from_process());

    let (reference, reference_in_fleet, ref_xml) = match &args.reference {
        Some(r) => {
            let x = read_checked(r)?;
            let sig = signature(&x, &ignore);
            match groups.iter().position(|g| g.signature == sig) {
                Some(i) => (groups.remove(i), true, x),
                None => (Group { signature: sig, files: vec![r.clone()] }, false, x),
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
    let ref_side = Side::new(&reference.files[0].display().to_string(), ref_xml, &opts, graphs);
    let mut outliers = Vec::new();
    for g in groups {
        let label = g.files[0].display().to_string();
        match read_checked(&g.files[0]) {
            Ok(x) => {
                let side = Side::new(&label, x, &opts, graphs);
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
    Ok(FleetReport {
        dumps: files.len(),
        ignore,
        reference_ring: ref_side.ring(),
        reference,
        reference_in_fleet,
        outliers,
        skipped,
    })
}

/// Most file names listed for one group in the text output.
const MAX_FILES: usize = 8;

fn file_list(files: &[PathBuf]) -> String {
    let mut s = files.iter().take(MAX_FILES).map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ");
    if files.len() > MAX_FILES {
        s.push_str(&format!(" and {} more", files.len() - MAX_FILES));
    }
    s
}

fn dumps(n: usize) -> String {
    format!("{n} dump{}", if n == 1 { "" } else { "s" })
}

fn ring_text(r: &Option<RingEstimate>, reference: &Option<RingEstimate>) -> String {
    let Some(r) = r else { return "predicted ring bandwidth: none (the model cannot run on this dump)".into() };
    let pct = |x: f32, base: f32| (x as f64 / base as f64 - 1.0) * 100.0;
    let mut s = format!("predicted ring bandwidth {} GB/s", gbs(r.bw));
    if let Some(b) = reference.as_ref().filter(|b| b.bw > 0.0) {
        s.push_str(&format!(" against {} GB/s for the reference ({:+.0}%)", gbs(b.bw), pct(r.bw, b.bw)));
    }
    s.push_str(&format!(", {}", r.basis));
    if let Some(t) = r.net_total {
        s.push_str(&format!("; all network devices together {} GB/s", gbs(t)));
        if let Some(bt) = reference.as_ref().and_then(|b| b.net_total).filter(|&bt| bt > 0.0 && bt != t) {
            s.push_str(&format!(" against {} GB/s ({:+.0}%)", gbs(bt), pct(t, bt)));
        }
    }
    s
}

/// The text report.
pub fn text(r: &FleetReport) -> String {
    let mut s = String::new();
    let ngroups = r.outliers.len() + usize::from(r.reference_in_fleet);
    let ignored: Vec<&str> = r.ignore.0.iter().map(String::as_str).collect();
    if r.outliers.is_empty() && r.reference_in_fleet {
        s.push_str(&format!(
            "{}: all alike (signature {:016x}; ignoring {})\n",
            dumps(r.dumps - r.skipped.len()),
            r.reference.signature,
            ignored.join(", ")
        ));
    } else {
        s.push_str(&format!(
            "{}, {ngroups} groups (ignoring {})\n",
            dumps(r.dumps - r.skipped.len()),
            ignored.join(", ")
        ));
    }
    let how = if r.reference_in_fleet { "" } else { " (given with --reference, not one of the fleet)" };
    s.push_str(&format!(
        "reference: {} (signature {:016x}){how}: {}\n  {}\n",
        dumps(r.reference.files.len()),
        r.reference.signature,
        file_list(&r.reference.files),
        ring_text(&r.reference_ring, &None)
    ));
    for (k, o) in r.outliers.iter().enumerate() {
        s.push_str(&format!(
            "\noutlier {} of {}: {} (signature {:016x}): {}\n",
            k + 1,
            r.outliers.len(),
            dumps(o.group.files.len()),
            o.group.signature,
            file_list(&o.group.files)
        ));
        if let Some(e) = &o.error {
            s.push_str(&format!("  cannot compare: {e}\n"));
            continue;
        }
        s.push_str(&format!("  {}\n", ring_text(&o.ring, &r.reference_ring)));
        if o.changes.is_empty() {
            s.push_str(
                "  no difference topo compares (only in elements NCCL does not read, or in ignored attributes)\n",
            );
        } else {
            s.push_str(&format!("  {}\n", summary(&o.changes)));
            s.push_str(&render_changes(&o.changes, "  "));
        }
    }
    if !r.skipped.is_empty() {
        s.push_str(&format!("\nskipped {} that could not be read:\n", dumps(r.skipped.len())));
        for (_, e) in &r.skipped {
            s.push_str(&format!("  {e}\n"));
        }
    }
    s
}

fn ring_json(r: &Option<RingEstimate>) -> Value {
    r.as_ref().map_or(Value::Null, |r| json!(r))
}

/// The JSON report.
pub fn to_json(r: &FleetReport) -> Value {
    let files = |g: &Group| g.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>();
    json!({
        "schema": 1,
        "dumps": r.dumps,
        "ignore": r.ignore.0,
        "reference": {
            "signature": format!("{:016x}", r.reference.signature),
            "in_fleet": r.reference_in_fleet,
            "files": files(&r.reference),
            "ring": ring_json(&r.reference_ring),
        },
        "outliers": r.outliers.iter().map(|o| {
            let [e, w, i] = diff::counts(&o.changes);
            json!({
                "signature": format!("{:016x}", o.group.signature),
                "files": files(&o.group),
                "ring": ring_json(&o.ring),
                "ring_ratio": match (&o.ring, &r.reference_ring) {
                    (Some(x), Some(b)) if b.bw > 0.0 => json!(x.bw / b.bw),
                    _ => Value::Null,
                },
                "error": o.error,
                "counts": {"error": e, "warning": w, "info": i},
                "hidden": o.hidden,
                "changes": o.changes,
            })
        }).collect::<Vec<_>>(),
        "skipped": r.skipped.iter().map(|(f, e)| json!({"file": f.display().to_string(), "error": e})).collect::<Vec<_>>(),
    })
}

/// Run `topo fleet` without a channel search. Exit status 0 when every dump is alike,
/// 1 when there are outliers or skipped dumps; errors are exit status 2.
pub fn run(args: &FleetArgs, out: &mut dyn Write) -> Result<i32, Error> {
    run_with_graphs(args, out, &diff::no_graphs)
}

/// Run `topo fleet` with `graphs` giving each analysis its channel graphs.
pub fn run_with_graphs(args: &FleetArgs, out: &mut dyn Write, graphs: GraphsFn) -> Result<i32, Error> {
    let r = fleet(args, graphs)?;
    let text = if args.json { crate::render::to_json_string(&to_json(&r)) } else { text(&r) };
    let io = |e| Error::Io { file: "<stdout>".into(), source: e };
    out.write_all(text.as_bytes()).map_err(io)?;
    out.flush().map_err(io)?;
    let alike = r.outliers.is_empty() && r.reference_in_fleet && r.skipped.is_empty();
    Ok(if alike { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::testutil::{find, fixture};

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

    #[test]
    fn fleet_names_the_outlier() {
        let dir = tempfile::tempdir().unwrap();
        let a = fixture("gh200");
        for i in 0..5 {
            let mut x = a.clone();
            let cpu = find(&x, "cpu", "numaid", "0");
            x.set_attr(cpu, "host_hash", format!("{i:#x}"));
            if i == 3 {
                let p = find(&x, "pci", "busid", "0009:01:00.0");
                x.set_attr(p, "link_width", "8");
            }
            std::fs::write(dir.path().join(format!("node{i}.xml")), xml::write(&x)).unwrap();
        }
        let args = FleetArgs::new(vec![dir.path().to_path_buf()]);
        let r = fleet(&args, &diff::no_graphs).unwrap();
        assert_eq!(r.reference.files.len(), 4);
        assert_eq!(r.outliers.len(), 1);
        assert!(r.outliers[0].group.files[0].ends_with("node3.xml"));
        assert!(r.outliers[0].changes.iter().any(|c| c.attr.as_deref() == Some("link_width")));
        let t = text(&r);
        assert!(t.contains("outlier 1 of 1: 1 dump"), "{t}");
    }
}
