//! `topo detect` and `topo check` reports: the JSON document of a detection, the health
//! findings as text and JSON.

use std::collections::HashMap;

use crate::check::{Finding, Severity};
use crate::discover::Detection;
use crate::render::names;
use crate::render::term::{Term, Tone};
use crate::xml::Xml;

/// The JSON report of `topo detect --json`.
pub fn detect_json(det: &Detection, findings: &[Finding]) -> String {
    let mut v = serde_json::to_value(det).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("schema".into(), 1.into());
        m.insert("findings".into(), serde_json::to_value(findings).unwrap_or_default());
        m.insert("topology".into(), serde_json::Value::String(crate::xml::write(&det.xml)));
        m.insert("pci_names".into(), serde_json::to_value(pci_names(&det.xml)).unwrap_or_default());
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// The PCI ID Repository's name of every device of a topology with known ids, by bus id.
fn pci_names(x: &Xml) -> std::collections::BTreeMap<String, String> {
    let Some(root) = x.root() else { return Default::default() };
    x.descendants_named(root, "pci")
        .into_iter()
        .filter_map(|p| Some((x.attr(p, "busid")?.to_ascii_lowercase(), names::xml_pci_name(x, p)?)))
        .collect()
}

/// How findings name the devices of a topology: a GPU as `GPU0 (busid)` (its NVML index,
/// as nvidia-smi numbers it); and the PCI ID Repository's name of each GPU and NIC, said
/// once under the title (`GPU0, GPU1: NVIDIA H100 SXM5 80GB`).
struct DeviceNames {
    labels: HashMap<String, String>,
    kinds: Vec<(String, Vec<String>)>,
}

impl DeviceNames {
    /// `[check] devices: message`, the devices by name.
    fn finding(&self, f: &Finding) -> String {
        let devices: Vec<&str> = f
            .devices
            .iter()
            .map(|d| self.labels.get(&d.to_ascii_lowercase()).map_or(d.as_str(), String::as_str))
            .collect();
        if devices.is_empty() {
            format!("[{}] {}", f.check, f.message)
        } else {
            format!("[{}] {}: {}", f.check, devices.join(", "), f.message)
        }
    }
}

fn device_names(x: &Xml) -> DeviceNames {
    let mut gpus: Vec<(String, (i32, Option<String>))> = names::xml_gpus(x).into_iter().collect();
    gpus.sort_by_key(|(_, (dev, _))| *dev);
    let mut labels = HashMap::new();
    let mut kinds: Vec<(String, Vec<String>)> = Vec::new();
    let mut add_kind = |name: Option<String>, who: String| {
        let Some(name) = name else { return };
        match kinds.iter_mut().find(|k| k.0 == name) {
            Some(k) => k.1.push(who),
            None => kinds.push((name, vec![who])),
        }
    };
    for (b, (dev, name)) in gpus {
        labels.insert(b.clone(), names::gpu(dev, &b));
        add_kind(name, format!("GPU{dev}"));
    }
    if let Some(root) = x.root() {
        for nic in x.descendants_named(root, "nic") {
            let Some(p) = x.parent(nic).filter(|&p| x.name(p) == "pci") else { continue };
            let Some(b) = x.attr(p, "busid").map(str::to_ascii_lowercase) else { continue };
            add_kind(names::xml_pci_name(x, p), format!("NIC {b}"));
        }
    }
    DeviceNames { labels, kinds }
}

/// What `topo detect` says of the health findings on standard error, one line each
/// (without `topo: `): errors and warnings as warnings (detect succeeds; `topo check`
/// fails on an error), notes as notes, devices named as `topo check` names them.
pub fn finding_notes(det: &Detection, findings: &[Finding]) -> Vec<String> {
    let names = device_names(&det.xml);
    findings
        .iter()
        .map(|f| {
            let level = if f.severity == Severity::Info { "note" } else { "warning" };
            let what = if f.severity == Severity::Error { " (an error for topo check)" } else { "" };
            format!("{level}: {}{what}", names.finding(f))
        })
        .collect()
}

/// Findings as text for people, laid out as `term` says.
pub fn check_text(det: &Detection, findings: &[Finding], term: &Term) -> String {
    findings_text(&det.summary(), findings, &device_names(&det.xml), term)
}

/// Findings of a dump (`topo check --topo FILE`) as text for people, laid out as `term`
/// says; `xml` names its devices.
pub fn check_dump_text(input: &str, xml: &Xml, findings: &[Finding], term: &Term) -> String {
    let title = format!("{input} (a dump: only what the file shows is checked)");
    findings_text(&title, findings, &device_names(xml), term)
}

/// A severity as the text says it, and its count: `error`/`errors`, `warning`/`warnings`,
/// `note`/`notes` (NCCL's INFO level; `info` in JSON).
fn severity_word(sev: Severity, n: usize) -> String {
    let w = match sev {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    };
    if n == 1 { w.to_string() } else { format!("{w}s") }
}

/// `topo check --topo FILE --json`.
pub fn check_dump_json(input: &str, findings: &[Finding]) -> String {
    let v = serde_json::json!({ "schema": 1, "source": input, "findings": findings });
    crate::render::to_json_string(&v)
}

/// The tone of a severity: errors red, warnings yellow.
fn tone(sev: Severity) -> Option<Tone> {
    match sev {
        Severity::Error => Some(Tone::Bad),
        Severity::Warning => Some(Tone::Warn),
        Severity::Info => None,
    }
}

/// The findings, each with why and how to fix it, then their counts. Lines wrap at the
/// width (a finding under itself, why and fix after their label); severities are
/// coloured when colours are on, and "no problem found" is green.
fn findings_text(title: &str, findings: &[Finding], names: &DeviceNames, term: &Term) -> String {
    let mut s = format!("{}\n", term.wrap(&format!("topo check: {title}"), "  "));
    for (name, who) in &names.kinds {
        s.push_str(&format!("{}\n", term.wrap(&format!("  {}: {name}", who.join(", ")), "    ")));
    }
    if findings.is_empty() {
        s.push_str(&format!("{}\n", term.paint("no problem found", Tone::Good)));
    }
    for f in findings {
        let sev = severity_word(f.severity, 1);
        let sev = match tone(f.severity) {
            Some(t) => term.paint(&sev, t),
            None => sev,
        };
        let line = format!("{sev} {}", names.finding(f));
        s.push_str(&format!("\n{}\n", term.wrap(&line, "    ")));
        s.push_str(&format!("{}\n", term.wrap_hanging(&format!("  why: {}", f.why))));
        s.push_str(&format!("{}\n", term.wrap_hanging(&format!("  fix: {}", f.fix))));
    }
    let count = |sev| findings.iter().filter(|f| f.severity == sev).count();
    if !findings.is_empty() {
        let counted = |sev: Severity| {
            let text = format!("{} {}", count(sev), severity_word(sev, count(sev)));
            match tone(sev) {
                Some(t) if count(sev) > 0 => term.paint(&text, t),
                _ => text,
            }
        };
        s.push_str(&format!(
            "\n{}, {}, {}\n",
            counted(Severity::Error),
            counted(Severity::Warning),
            counted(Severity::Info)
        ));
    }
    s
}

/// `topo check --json`.
pub fn check_json(det: &Detection, findings: &[Finding]) -> String {
    let v = serde_json::json!({ "schema": 1, "source": det.source, "summary": det.summary(), "findings": findings });
    crate::render::to_json_string(&v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::term::check::{coloured, fits, same_text};

    fn finding(severity: Severity, devices: usize) -> Finding {
        Finding {
            check: "pcie-link",
            severity,
            devices: (0..devices).map(|i| format!("0000:{:02x}:00.0", 0x10 + i)).collect(),
            message: "link trained at x8, both ends support x16 (16.0 GT/s PCIe)".into(),
            why: "lanes are lost: PCIe bandwidth through this link is 50% of what NCCL's topology assumes, slowing \
                  GPU-GPU over PCIe and GPUDirect RDMA"
                .into(),
            fix: "reseat the card, cable or riser; check the slot's bifurcation setting in the BIOS; `lspci -vv` \
                  shows LnkSta '(downgraded)'"
                .into(),
        }
    }

    #[test]
    fn findings_fit_the_width() {
        let findings = [finding(Severity::Error, 32), finding(Severity::Warning, 1), finding(Severity::Info, 2)];
        let title = "../shared/fixtures/nccl/a-dump-with-a-rather-long-name.xml";
        let x = Xml::default();
        let whole = check_dump_text(title, &x, &findings, &Term::default());
        for width in [60, 80, 100] {
            let t = check_dump_text(title, &x, &findings, &Term { width: Some(width), color: false });
            fits(&t, width, "check");
            same_text(&whole, &t, "check");
        }
        assert!(!coloured(&whole));
        let c = check_dump_text(title, &x, &findings, &Term { width: None, color: true });
        assert!(c.contains("\x1b[38;5;9merror\x1b[39m [pcie-link]"), "{c}");
        assert!(c.contains("\x1b[38;5;11mwarning\x1b[39m [pcie-link]"), "{c}");
        assert!(c.contains("\nnote [pcie-link]"), "notes are not coloured: {c}");
        assert!(whole.contains("1 error, 1 warning, 1 note"), "counted in the words printed: {whole}");
        let none = check_dump_text(title, &x, &[], &Term { width: None, color: true });
        assert!(none.contains("\x1b[38;5;10mno problem found"), "{none}");
    }
}
