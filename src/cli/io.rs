//! Where a command's output goes: standard output and standard error as given (the
//! process's streams, or buffers in tests), what the process environment said, and
//! files written whole.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;

use crate::env::Env;
use crate::error::Error;
use crate::notice::Diagnostic;

/// What a command may use of the process: its two streams and its environment, read
/// once at start-up.
pub struct Ctx<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    /// The NCCL_* variables, parsed.
    pub env: Env,
    /// Every variable of the process environment (the bench reports some of them).
    pub vars: BTreeMap<String, String>,
    /// The command line as given.
    pub argv: Vec<String>,
    /// Standard error is a terminal (progress bars and spinners only then).
    pub err_is_terminal: bool,
    /// Messages already printed on stderr, so each is said once.
    said: HashSet<String>,
}

impl<'a> Ctx<'a> {
    pub fn new(
        out: &'a mut dyn Write,
        err: &'a mut dyn Write,
        vars: BTreeMap<String, String>,
        argv: Vec<String>,
    ) -> Ctx<'a> {
        let env =
            Env::from_pairs(vars.iter().filter(|(k, _)| k.starts_with("NCCL_")).map(|(k, v)| (k.clone(), v.clone())));
        Ctx { out, err, env, vars, argv, err_is_terminal: false, said: HashSet::new() }
    }

    /// The text of a command, written whole to standard output.
    pub fn print(&mut self, text: &str) -> Result<(), Error> {
        let io = |e| Error::Io { file: "<stdout>".into(), source: e };
        self.out.write_all(text.as_bytes()).map_err(io)?;
        self.out.flush().map_err(io)
    }

    /// One line on standard error, `topo: ` in front.
    pub fn say(&mut self, line: &str) -> Result<(), Error> {
        writeln!(self.err, "topo: {line}").map_err(|e| Error::Io { file: "<stderr>".into(), source: e })
    }

    /// A line on standard error as it is (reports that have their own prefix).
    pub fn say_raw(&mut self, line: &str) -> Result<(), Error> {
        writeln!(self.err, "{line}").map_err(|e| Error::Io { file: "<stderr>".into(), source: e })
    }

    /// Notices, each said once per run.
    pub fn notices<'d>(&mut self, diags: impl IntoIterator<Item = &'d Diagnostic>) -> Result<(), Error> {
        for d in diags {
            let s = d.to_string();
            if self.said.insert(s.clone()) {
                self.say(&s)?;
            }
        }
        Ok(())
    }

    /// A warning, said once per run.
    pub fn warn(&mut self, message: &str) -> Result<(), Error> {
        self.notices([&Diagnostic::warning(message)])
    }
}

/// Write `text` to `path` whole: a temporary file in the same folder, then a rename.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), Error> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let res = std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = res {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_whole() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.xml");
        write_atomically(&p, "one").unwrap();
        write_atomically(&p, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        assert!(write_atomically(&d.path().join("no/such/dir/x"), "x").is_err());
    }

    #[test]
    fn each_notice_is_said_once() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut ctx = Ctx::new(&mut out, &mut err, BTreeMap::new(), vec![]);
        let d = Diagnostic::warning("twice");
        ctx.notices([&d, &d]).unwrap();
        ctx.warn("twice").unwrap();
        drop(ctx);
        assert_eq!(String::from_utf8(err).unwrap(), "topo: warning: twice\n");
    }
}
