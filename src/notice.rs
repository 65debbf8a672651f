//! Typed notices: what a stage found worth telling the user, with the place it concerns.
//!
//! Stages return them beside their data and never print; the command layer decides
//! where they go (stderr, a JSON field) and how they look.

use std::fmt;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// A finding about an input file, with the place it concerns.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub file: Option<String>,
    pub line: u32,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        match (&self.file, self.line) {
            (Some(file), 0) => write!(f, "{sev}: {file}: {}", self.message),
            (Some(file), line) => write!(f, "{sev}: {file}:{line}: {}", self.message),
            (None, 0) => write!(f, "{sev}: {}", self.message),
            (None, line) => write!(f, "{sev}: line {line}: {}", self.message),
        }
    }
}

impl Diagnostic {
    /// A warning that concerns no particular file.
    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, file: None, line: 0, message: message.into() }
    }
}
