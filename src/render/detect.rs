//! `topo detect` and `topo check` reports: the JSON document of a detection, the health
//! findings as text and JSON.

use crate::check::{Finding, Severity};
use crate::discover::Detection;
use crate::render::term::{Term, Tone};

/// The JSON report of `topo detect --json`.
pub fn detect_json(det: &Detection, findings: &[Finding]) -> String {
    let mut v = serde_json::to_value(det).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("findings".into(), serde_json::to_value(findings).unwrap_or_default());
        m.insert("topology".into(), serde_json::Value::String(crate::xml::write(&det.xml)));
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// Findings as text for people, laid out as `term` says.
pub fn check_text(det: &Detection, findings: &[Finding], term: &Term) -> String {
    findings_text(&det.summary(), findings, term)
}

/// Findings of a dump (`topo check --topo FILE`) as text for people, laid out as `term`
/// says.
pub fn check_dump_text(input: &str, findings: &[Finding], term: &Term) -> String {
    findings_text(&format!("{input} (a dump: only what the file shows is checked)"), findings, term)
}

/// `topo check --topo FILE --json`.
pub fn check_dump_json(input: &str, findings: &[Finding]) -> String {
    let v = serde_json::json!({ "source": input, "findings": findings });
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
fn findings_text(title: &str, findings: &[Finding], term: &Term) -> String {
    let mut s = format!("{}\n", term.wrap(&format!("topo check: {title}"), "  "));
    if findings.is_empty() {
        s.push_str(&format!("{}\n", term.paint("no problem found", Tone::Good)));
    }
    for f in findings {
        let sev = f.severity.as_str();
        let line = f.one_line();
        let line = match tone(f.severity) {
            Some(t) => format!("{}{}", term.paint(sev, t), &line[sev.len()..]),
            None => line,
        };
        s.push_str(&format!("\n{}\n", term.wrap(&line, "    ")));
        s.push_str(&format!("{}\n", term.wrap_hanging(&format!("  why: {}", f.why))));
        s.push_str(&format!("{}\n", term.wrap_hanging(&format!("  fix: {}", f.fix))));
    }
    let count = |sev| findings.iter().filter(|f| f.severity == sev).count();
    if !findings.is_empty() {
        let counted = |sev: Severity, what: &str| {
            let text = format!("{} {what}", count(sev));
            match tone(sev) {
                Some(t) if count(sev) > 0 => term.paint(&text, t),
                _ => text,
            }
        };
        s.push_str(&format!(
            "\n{}, {}, {}\n",
            counted(Severity::Error, "error(s)"),
            counted(Severity::Warning, "warning(s)"),
            counted(Severity::Info, "note(s)")
        ));
    }
    s
}

/// `topo check --json`.
pub fn check_json(det: &Detection, findings: &[Finding]) -> String {
    let v = serde_json::json!({ "source": det.source, "summary": det.summary(), "findings": findings });
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
        let whole = check_dump_text(title, &findings, &Term::default());
        for width in [60, 80, 100] {
            let t = check_dump_text(title, &findings, &Term { width: Some(width), color: false });
            fits(&t, width, "check");
            same_text(&whole, &t, "check");
        }
        assert!(!coloured(&whole));
        let c = check_dump_text(title, &findings, &Term { width: None, color: true });
        assert!(c.contains("\x1b[38;5;9merror\x1b[39m [pcie-link]"), "{c}");
        assert!(c.contains("\x1b[38;5;11mwarning\x1b[39m [pcie-link]"), "{c}");
        assert!(c.contains("\ninfo [pcie-link]"), "notes are not coloured: {c}");
        let none = check_dump_text(title, &[], &Term { width: None, color: true });
        assert!(none.contains("\x1b[38;5;10mno problem found"), "{none}");
    }
}
