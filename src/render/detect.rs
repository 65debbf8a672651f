//! `topo detect` and `topo check` reports: the JSON document of a detection, the health
//! findings as text and JSON.

use crate::check::{Finding, Severity};
use crate::discover::Detection;

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

/// Findings as text for people.
pub fn check_text(det: &Detection, findings: &[Finding]) -> String {
    findings_text(&det.summary(), findings)
}

/// Findings of a dump (`topo check --topo FILE`) as text for people.
pub fn check_dump_text(input: &str, findings: &[Finding]) -> String {
    findings_text(&format!("{input} (a dump: only what the file shows is checked)"), findings)
}

/// `topo check --topo FILE --json`.
pub fn check_dump_json(input: &str, findings: &[Finding]) -> String {
    let v = serde_json::json!({ "source": input, "findings": findings });
    crate::render::to_json_string(&v)
}

fn findings_text(title: &str, findings: &[Finding]) -> String {
    let mut s = format!("topo check: {title}\n");
    if findings.is_empty() {
        s.push_str("no problem found\n");
    }
    for f in findings {
        s.push_str(&format!("\n{}\n  why: {}\n  fix: {}\n", f.one_line(), f.why, f.fix));
    }
    let count = |sev| findings.iter().filter(|f| f.severity == sev).count();
    if !findings.is_empty() {
        s.push_str(&format!(
            "\n{} error(s), {} warning(s), {} note(s)\n",
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        ));
    }
    s
}

/// `topo check --json`.
pub fn check_json(det: &Detection, findings: &[Finding]) -> String {
    let v = serde_json::json!({ "source": det.source, "summary": det.summary(), "findings": findings });
    crate::render::to_json_string(&v)
}
