//! The error type of the library. Every variant says what is wrong and where; the CLI
//! prints it and exits with status 2.

use std::path::Path;

/// Everything that stops a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{file}: {source}")]
    Io { file: String, source: std::io::Error },
    /// The XML is not well formed.
    #[error("{file}:{line}:{column}: malformed XML: {message}")]
    XmlSyntax { file: String, line: u32, column: u32, message: String },
    /// The input is well formed but says something topo cannot use.
    #[error("{file}: {message}")]
    Input { file: String, message: String },
    /// A command-line value or environment variable is wrong.
    #[error("{0}")]
    Usage(String),
    /// Something needed is not available on this machine (no GPU driver, no NVML...).
    #[error("{0}")]
    Unavailable(String),
}

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io { file: path.display().to_string(), source }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
