//! What the checker finds in a program, each with the place it concerns.

use std::fmt;

pub use crate::notice::Severity;

/// The kind of a finding; the verdict is the first kind (in this order) that holds an
/// error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The runtime refuses the program, or accepts it and then misreads it, crashes or
    /// corrupts memory: a static rule.
    Invalid,
    /// The two ends of a connection disagree (number or size of messages).
    Pairing,
    /// The program hangs at the runtime's FIFO depth.
    Deadlock,
    /// The program completes with a result other than the collective's definition.
    Wrong,
    /// Two thread blocks of one GPU touch one chunk, one writing, with nothing ordering them.
    Race,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Invalid => "invalid",
            Kind::Pairing => "pairing",
            Kind::Deadlock => "deadlock",
            Kind::Wrong => "wrong",
            Kind::Race => "race",
        }
    }
}

/// Where a finding is: any of file line, GPU, thread block and step (the step's
/// position in its thread block as written).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Place {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tb: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
}

impl Place {
    pub fn line(line: u32) -> Place {
        Place { line: Some(line), ..Place::default() }
    }

    pub fn gpu(line: u32, gpu: u32) -> Place {
        Place { line: Some(line), gpu: Some(gpu), ..Place::default() }
    }

    pub fn tb(line: u32, gpu: u32, tb: u32) -> Place {
        Place { line: Some(line), gpu: Some(gpu), tb: Some(tb), step: None }
    }

    pub fn step(line: u32, gpu: u32, tb: u32, step: u32) -> Place {
        Place { line: Some(line), gpu: Some(gpu), tb: Some(tb), step: Some(step) }
    }
}

impl fmt::Display for Place {
    /// `line 12, gpu 0, tb 3, step 5`, leaving out what is unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(l) = self.line.filter(|&l| l > 0) {
            parts.push(format!("line {l}"));
        }
        if let Some(g) = self.gpu {
            parts.push(format!("gpu {g}"));
        }
        if let Some(t) = self.tb {
            parts.push(format!("tb {t}"));
        }
        if let Some(s) = self.step {
            parts.push(format!("step {s}"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    pub kind: Kind,
    pub severity: Severity,
    #[serde(flatten)]
    pub place: Place,
    pub message: String,
}

impl Finding {
    pub fn error(kind: Kind, place: Place, message: impl Into<String>) -> Finding {
        Finding { kind, severity: Severity::Error, place, message: message.into() }
    }

    pub fn warning(kind: Kind, place: Place, message: impl Into<String>) -> Finding {
        Finding { kind, severity: Severity::Warning, place, message: message.into() }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
