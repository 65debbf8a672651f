//! `topo log`: NCCL's own debug logs (`NCCL_DEBUG=INFO`), of any release from 2.5 to
//! 2.30, read into [`LogFacts`].
//!
//! Reading is one streaming pass (memory grows with the communicators, not the file):
//! physical lines ([`reader`]), then NCCL records (a line may hold several when
//! processes interleave, [`segment`]), then one parsed kind per record ([`classify`]), then facts
//! assembled per printing stream. Nothing here prints.

pub mod facts;
#[allow(dead_code)]
mod classify;
#[allow(dead_code)]
mod known;
#[allow(dead_code)]
mod reader;
#[allow(dead_code)]
mod scan;
#[allow(dead_code)]
mod segment;
#[allow(dead_code)]
mod system;

pub use facts::*;

use std::io::BufRead;

use crate::error::Error;

/// Read a log. `name` names it in messages (a path, or `-` for standard input).
///
/// Errors (exit status 2): input that is binary, an XML file, or holds nothing an
/// NCCL log holds.
pub fn read(input: &mut dyn BufRead, name: &str) -> Result<LogFacts, Error> {
    let _ = input;
    Err(Error::Input { file: name.to_string(), message: "reading NCCL logs is not built yet".into() })
}

/// Read a log held in memory.
pub fn read_str(text: &str, name: &str) -> Result<LogFacts, Error> {
    read(&mut text.as_bytes(), name)
}
