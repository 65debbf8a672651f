//! `topo diff A B` and `topo fleet FILE...|DIR`: what differs between topology dumps and
//! what it does to NCCL.
//!
//! Stages, each in its own file:
//! - [`inventory`]: a dump's devices (CPUs, switches, GPUs, NICs, ports) with their
//!   attributes and the device above each;
//! - [`matching`]: pairing the devices of two dumps by identity (bus id, then role);
//! - [`compare`]: devices added, removed, moved, and attribute changes;
//! - [`impact`]: the NCCL model run on both, compared path by path and verdict by
//!   verdict, with the channel graphs when a search is plugged in;
//! - [`fleet`]: many dumps grouped by a canonical signature, outliers against the
//!   largest group.
//!
//! Every difference is a [`Change`] with a [`Level`]: errors (a device lost, a P2P or
//! GDR verdict changed, a path type worse), warnings (less bandwidth, a narrower or
//! slower PCIe link, fewer NVLinks) and info (names, renumbering, host hash, affinity).

pub mod compare;
pub mod fleet;
pub mod impact;
pub mod inventory;
pub mod matching;

use std::collections::BTreeSet;

use serde_json::Value;

use crate::model::{self, Analysis};
use crate::release::{Release, Scope};
use crate::xml::Xml;

pub use impact::{GraphsFn, RingEstimate, allreduce_picks, no_graphs};
pub use inventory::DevKind;

/// How much a difference matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Info,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
        }
    }
}

/// What kind of difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum What {
    Added,
    Removed,
    Moved,
    Attribute,
    Nccl,
}

/// One difference between two dumps.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Change {
    pub level: Level,
    pub what: What,
    /// The device (its label in the reference dump), or `NCCL ...` for a model result.
    pub subject: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<DevKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The attribute concerned (`link_width`, `speed`, `nvlink`, `busid`...): what
    /// `--ignore` names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attr: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    pub message: String,
    /// For NCCL results: the GPUs, GPU pairs or GPU/NET pairs concerned.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
}

/// Differences hidden on request (`--ignore ATTR`): attribute names as they appear in the
/// dumps (`host_hash`, `guid`, `name`, `affinity`...), plus `busid` (renumbering),
/// `nvlink`, `c2c`, `parent` (moves) and `nccl` (every NCCL result).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ignore(pub BTreeSet<String>);

impl Ignore {
    pub fn new<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> Ignore {
        Ignore(words.into_iter().map(|s| s.as_ref().trim().to_string()).filter(|s| !s.is_empty()).collect())
    }
    pub fn hides(&self, c: &Change) -> bool {
        (c.what == What::Nccl && self.0.contains("nccl")) || c.attr.as_ref().is_some_and(|a| self.0.contains(a))
    }
    pub fn contains(&self, attr: &str) -> bool {
        self.0.contains(attr)
    }
}

/// One dump made ready for comparison: its devices and the model's results.
pub struct Side {
    pub label: String,
    /// The NCCL release modelled.
    pub release: Release,
    pub xml: Xml,
    pub inv: inventory::Inventory,
    /// The model's results, or why the model could not run on this dump.
    pub analysis: Result<Analysis, String>,
    /// The channel graphs (all null without a search).
    pub graphs: Value,
}

impl Side {
    pub fn new(label: &str, xml: Xml, opts: &model::Options, graphs: GraphsFn) -> Side {
        let inv = inventory::inventory(&xml);
        let analysis = model::analyze(&xml, label, opts).map_err(|e| e.to_string());
        let graphs = match &analysis {
            Ok(an) => graphs(an),
            Err(_) => Value::Null,
        };
        Side { label: label.to_string(), release: opts.env.release(), xml, inv, analysis, graphs }
    }

    /// The predicted ring bandwidth, when the model ran.
    pub fn ring(&self) -> Option<RingEstimate> {
        self.analysis.as_ref().ok().map(|an| impact::ring_estimate(an, &self.graphs))
    }
}

/// Every difference from `a` to `b`, most serious first, without those `ignore` hides.
/// Returns the differences shown and how many were hidden.
pub fn compare(a: &Side, b: &Side, ignore: &Ignore) -> (Vec<Change>, usize) {
    let m = matching::match_devices(&a.inv, &b.inv);
    let mut all = compare::structural(&a.inv, &b.inv, &m);
    all.extend(fabric_change(a, b));
    match (&a.analysis, &b.analysis) {
        (Ok(x), Ok(y)) => {
            let na = impact::Naming::new(x, &a.inv, &a.inv, None);
            let nb = impact::Naming::new(y, &b.inv, &a.inv, Some(&m.b_to_a));
            all.extend(impact::impact(x, &na, &a.graphs, y, &nb, &b.graphs));
        }
        (Ok(_), Err(e)) => all.push(model_failed(Level::Error, &b.label, e)),
        (Err(e), Ok(_)) => all.push(model_failed(Level::Warning, &a.label, e)),
        (Err(x), Err(y)) if x != y => all.push(model_failed(Level::Info, &b.label, y)),
        (Err(_), Err(_)) => {}
    }
    let before = all.len();
    all.retain(|c| !ignore.hides(c));
    let hidden = before - all.len();
    // Stable: errors, then warnings, then info, each in discovery order.
    all.sort_by_key(|c| c.level);
    (all, hidden)
}

/// The changes of NCCL's behaviour between the two sides' releases that can touch this
/// machine (none when both model the same release), oldest first.
pub fn release_changes(a: &Side, b: &Side) -> Vec<&'static crate::release::Change> {
    let an = match (&a.analysis, &b.analysis) {
        (Ok(x), _) | (_, Ok(x)) => Some(x),
        _ => None,
    };
    a.release.changes_between(b.release).filter(|c| an.is_none_or(|an| touches(an, c.scope))).collect()
}

/// Whether a change of this scope can touch the machine analysed.
fn touches(an: &Analysis, scope: Scope) -> bool {
    use crate::model::{LinkType, NodeType, cpu};
    let sys = &an.system;
    let gpus = sys.list(NodeType::Gpu);
    let cpus = sys.list(NodeType::Cpu);
    match scope {
        Scope::Any => true,
        Scope::Nets => sys.count(NodeType::Net) > 0 || an.options.nodes > 1,
        Scope::MultiNode => an.options.nodes > 1,
        Scope::NvSwitch => sys.count(NodeType::Nvs) > 0,
        Scope::Blackwell => gpus.iter().any(|g| g.cc() >= 100),
        Scope::Hopper => gpus.iter().any(|g| g.cc() >= 90),
        // GPUs, or from 2.30.3 their DEV nodes, hold the C2C links.
        Scope::C2c => [NodeType::Gpu, NodeType::Dev]
            .iter()
            .any(|&t| sys.list(t).iter().any(|g| g.links.iter().any(|l| l.ty == LinkType::C2c))),
        Scope::MultiSocket => cpus.len() > 1,
        Scope::TwoGpuNvSwitch => sys.count(NodeType::Nvs) > 0 && an.host_gpus() == 2,
        Scope::BareGuid => {
            let x = &an.prepared;
            (0..x.nodes.len()).any(|n| x.name(n) == "net" && x.attr(n, "guid").is_some_and(|g| !g.starts_with("0x")))
        }
        Scope::Mnnvl => an.options.mnnvl || (an.options.nodes > 1 && crate::model::mnnvl::rack_tray(&an.prepared)),
        Scope::Amd => cpus
            .iter()
            .any(|c| matches!(c.kind, crate::model::system::Kind::Cpu { vendor, .. } if vendor == cpu::VENDOR_AMD)),
    }
}

/// A tray of an NVL rack against a dump whose GPUs do not all reach the NVLink fabric
/// (or that is no tray): what it does to multi-node NVLink.
fn fabric_change(a: &Side, b: &Side) -> Option<Change> {
    use crate::model::mnnvl::{gpus_off_fabric, rack_tray};
    let (ta, tb) = (rack_tray(&a.xml), rack_tray(&b.xml));
    if ta == tb {
        return None;
    }
    let side = |tray: bool, x: &Xml| {
        if tray {
            "a tray with every GPU on the NVLink fabric".to_string()
        } else {
            match gpus_off_fabric(x).as_slice() {
                [] => "no tray (no C2C to its CPU)".to_string(),
                off => format!("GPUs off the NVLink fabric ({}: no NVLink to an NVSwitch)", off.join(", ")),
            }
        }
    };
    let message = format!(
        "{} -> {}: NCCL fuses NVL rack trays into one node (MNNVL) only when every rank's GPU is on the fabric; \
         a job that includes the second dump runs without it",
        side(ta, &a.xml),
        side(tb, &b.xml)
    );
    Some(mnnvl_change("mnnvl", None, message))
}

/// A warning about NCCL's multi-node NVLink between two dumps.
fn mnnvl_change(attr: &str, before_after: Option<(String, String)>, message: String) -> Change {
    let (before, after) = before_after.unzip();
    Change {
        level: Level::Warning,
        what: What::Nccl,
        subject: "NCCL multi-node NVLink".into(),
        kind: None,
        busid: None,
        name: None,
        attr: Some(attr.into()),
        before,
        after,
        message,
        items: Vec::new(),
    }
}

/// Two `detect --json` reports whose trays registered in different NVLink cliques
/// (cluster UUID, clique id): NCCL fuses trays of one clique only, so a job over both
/// runs as two nodes joined by the network. `None` when either is unknown or they agree.
pub fn clique_change(a: Option<&(String, u32)>, b: Option<&(String, u32)>) -> Option<Change> {
    let (Some(a), Some(b)) = (a, b) else { return None };
    let [ca, cb] = [a, b].map(|(uuid, clique)| format!("clique {clique:#x} of cluster {uuid}"));
    (a != b).then(|| {
        let message = format!(
            "the trays are registered in different NVLink cliques ({ca} -> {cb}): NCCL fuses only the trays of one \
             clique (MNNVL), so a job over both counts them as two nodes joined by the network{}",
            if a.0 == b.0 { " (NCCL_MNNVL_CROSS_CLIQUE=1, 2.30.3, lets them use P2P: one cluster)" } else { "" }
        );
        mnnvl_change("clique", Some((ca, cb)), message)
    })
}

fn model_failed(level: Level, label: &str, e: &str) -> Change {
    Change {
        level,
        what: What::Nccl,
        subject: "NCCL model".into(),
        kind: None,
        busid: None,
        name: None,
        attr: None,
        before: None,
        after: None,
        message: format!("cannot model {label}: {e}"),
        items: Vec::new(),
    }
}

/// How many changes of each level.
pub fn counts(changes: &[Change]) -> [usize; 3] {
    let mut n = [0; 3];
    for c in changes {
        n[c.level as usize] += 1;
    }
    n
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Planted changes on the built-in machines, shared by the unit tests.
    use crate::xml::{NodeId, Xml};

    pub fn fixture(name: &str) -> Xml {
        crate::fixtures::get(name).unwrap().load().unwrap().0
    }

    /// The first element with this name and attribute value.
    pub fn find(x: &Xml, name: &str, key: &str, value: &str) -> NodeId {
        x.preorder()
            .into_iter()
            .find(|&i| x.name(i) == name && x.attr(i, key) == Some(value))
            .unwrap_or_else(|| panic!("no <{name} {key}=\"{value}\">"))
    }

    /// Every element with this name, in document order.
    pub fn elements(x: &Xml, name: &str) -> Vec<NodeId> {
        x.preorder().into_iter().filter(|&i| x.name(i) == name).collect()
    }

    /// A dump made ready for comparison, with the default model settings.
    pub fn side(label: &str, x: Xml, graphs: crate::diff::GraphsFn) -> crate::diff::Side {
        let opts = crate::model::Options { nodes: 2, ..crate::model::Options::default() };
        crate::diff::Side::new(label, x, &opts, graphs)
    }

    /// Remove the `<pci>` holding the first `<name key="value">` (a GPU or NIC lost).
    pub fn remove_device(x: &mut Xml, name: &str, key: &str, value: &str) {
        let e = find(x, name, key, value);
        let mut p = x.parent(e).unwrap();
        while x.name(p) != "pci" {
            p = x.parent(p).unwrap();
        }
        x.remove(p);
    }

    /// Rewrite every bus id and NVLink target with `f` (as a VM renumbers them).
    pub fn renumber(x: &mut Xml, f: impl Fn(&str) -> String) {
        for id in x.preorder() {
            for key in ["busid", "target"] {
                if let Some(v) = x.attr(id, key).map(str::to_string)
                    && v != "fffffff:ffff:ff"
                {
                    x.set_attr(id, key, f(&v));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;

    fn diff(a: Xml, b: Xml, ignore: &[&str]) -> Vec<Change> {
        compare(&side("a", a, &no_graphs), &side("b", b, &no_graphs), &Ignore::new(ignore)).0
    }

    fn find_change(cs: &[Change], pred: impl Fn(&Change) -> bool) -> &Change {
        cs.iter().find(|c| pred(c)).unwrap_or_else(|| panic!("not found in:\n{cs:#?}"))
    }

    #[test]
    fn a_dump_equals_itself() {
        for f in crate::fixtures::all() {
            let x = fixture(f.name);
            assert!(diff(x.clone(), x, &[]).is_empty(), "{}", f.name);
        }
    }

    #[test]
    fn removed_nic_is_an_error_naming_it() {
        let a = fixture("dgx-h100");
        let mut b = a.clone();
        let p = find(&b, "pci", "busid", "0000:1b:00.0");
        b.remove(p);
        let cs = diff(a, b, &[]);
        let c = find_change(&cs, |c| c.what == What::Removed);
        assert_eq!(c.level, Level::Error);
        assert_eq!(c.subject, "NIC 0000:1b:00.0 (mlx5_0)");
        // GPU 0 (and GPU 1, on the same switch) now have one NIC at their best path.
        let n = find_change(&cs, |c| c.subject == "NCCL network devices at the best path");
        assert_eq!((n.level, n.message.as_str()), (Level::Warning, "2 -> 1"));
        assert_eq!(n.items, ["GPU 0000:1a:00.0 (dev 0)", "GPU 0000:1c:00.0 (dev 1)"]);
    }

    #[test]
    fn gpu_at_x8_is_a_warning_with_its_nccl_cost() {
        let a = fixture("dgx-h100");
        let mut b = a.clone();
        let p = find(&b, "pci", "busid", "0000:1a:00.0");
        b.set_attr(p, "link_width", "8");
        let cs = diff(a, b, &[]);
        let c = find_change(&cs, |c| c.attr.as_deref() == Some("link_width"));
        assert_eq!(c.level, Level::Warning);
        assert_eq!(c.subject, "GPU 0000:1a:00.0 (dev 0)");
        assert!(c.message.contains("x16 -> x8"), "{}", c.message);
        // NCCL now reaches the NICs of its switch through GPU 1 (PXN), and the storage
        // NIC on the CPU at half the bandwidth.
        let n = find_change(&cs, |c| c.subject == "NCCL GPU->NET path" && c.level == Level::Error);
        assert_eq!(n.message, "PIX 48.0 GB/s -> PXN 48.0 GB/s");
        assert!(n.items.iter().all(|i| i.starts_with("GPU 0000:1a:00.0 (dev 0) -> NET ")), "{n:?}");
        let n = find_change(&cs, |c| c.subject == "NCCL GPU->NET path" && c.level == Level::Warning);
        assert_eq!(n.message, "PHB 48.0 GB/s -> PHB 24.0 GB/s");
    }

    #[test]
    fn fewer_nvlinks_is_a_warning() {
        let a = fixture("dgx1-v100");
        let mut b = a.clone();
        let g = find(&b, "gpu", "dev", "0");
        let l = b.children_named(g, "nvlink").find(|&l| b.attr(l, "count") == Some("2")).unwrap();
        b.set_attr(l, "count", "1");
        let cs = diff(a, b, &[]);
        let c = find_change(&cs, |c| c.attr.as_deref() == Some("nvlink"));
        assert_eq!(c.level, Level::Warning);
        assert!(c.subject.starts_with("GPU ") && c.subject.contains("(dev 0)"));
        assert!(c.message.contains("6 -> 5"), "{}", c.message);
        assert!(cs.iter().any(|c| c.what == What::Nccl && c.subject == "NCCL GPU-GPU path"));
    }

    #[test]
    fn halved_nic_speed_and_new_cpu_model() {
        let a = fixture("dgx-h100");
        let mut b = a.clone();
        let n = find(&b, "net", "name", "mlx5_4");
        b.set_attr(n, "speed", "200000");
        let cpu = find(&b, "cpu", "numaid", "1");
        b.set_attr(cpu, "modelid", "85");
        let cs = diff(a, b, &[]);
        let s = find_change(&cs, |c| c.attr.as_deref() == Some("speed"));
        assert_eq!((s.level, s.subject.as_str()), (Level::Warning, "NET mlx5_4 (NIC 0000:43:00.0 port 1)"));
        assert!(s.message.contains("400 Gb/s -> 200 Gb/s"), "{}", s.message);
        let m = find_change(&cs, |c| c.attr.as_deref() == Some("modelid"));
        assert_eq!((m.level, m.subject.as_str()), (Level::Warning, "CPU 1"));
    }

    #[test]
    fn renumbered_vm_differs_only_in_bus_ids() {
        let a = fixture("dgx-h100");
        let mut b = a.clone();
        renumber(&mut b, |s| crate::xml::i64_to_busid(crate::xml::busid_to_i64(s) + 0x1_00000));
        let cs = diff(a.clone(), b.clone(), &[]);
        assert!(!cs.is_empty());
        assert!(cs.iter().all(|c| c.level == Level::Info && c.attr.as_deref() == Some("busid")), "{cs:#?}");
        assert!(diff(a, b, &["busid"]).is_empty());
    }

    #[test]
    fn ignore_hides_attributes_and_nccl() {
        let a = fixture("gh200");
        let mut b = a.clone();
        let cpu = find(&b, "cpu", "numaid", "0");
        b.set_attr(cpu, "host_hash", "0x1234");
        let cs = diff(a.clone(), b.clone(), &[]);
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].level, Level::Info);
        assert!(diff(a.clone(), b, &["host_hash"]).is_empty());
        let mut c = a.clone();
        let p = find(&c, "net", "dev", "0");
        c.set_attr(p, "speed", "100000");
        assert!(diff(a, c, &["speed", "nccl"]).is_empty());
    }

    #[test]
    fn lost_gpu_is_an_error() {
        let a = fixture("workstation-4gpu");
        let mut b = a.clone();
        remove_device(&mut b, "gpu", "dev", "3");
        let cs = diff(a, b, &[]);
        let c = find_change(&cs, |c| c.what == What::Removed);
        assert_eq!(c.level, Level::Error);
        assert!(c.subject.contains("(dev 3)"), "{}", c.subject);
    }
}
