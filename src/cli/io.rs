//! Where a command's output goes: standard output and standard error as given (the
//! process's streams, or buffers in tests), what the process environment said, and
//! files written whole.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;

use crate::env::Env;
use crate::error::Error;
use crate::notice::Diagnostic;
use crate::release::Release;
use crate::render::term::Term;

fn nccl_env(release: Release, vars: &BTreeMap<String, String>) -> Env {
    Env::for_release(release, vars.iter().filter(|(k, _)| k.starts_with("NCCL_")).map(|(k, v)| (k.clone(), v.clone())))
}

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
    /// Standard output is a terminal (tables fit its width, and colours by default).
    pub out_is_terminal: bool,
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
        let env = nccl_env(Release::NEWEST, &vars);
        Ctx { out, err, env, vars, argv, err_is_terminal: false, out_is_terminal: false, said: HashSet::new() }
    }

    /// Model `release`: the NCCL_* variables are read again with its defaults.
    pub fn set_release(&mut self, release: Release) {
        self.env = nccl_env(release, &self.vars);
    }

    /// The NCCL_* variables as another release reads them.
    pub fn env_for(&self, release: Release) -> Env {
        nccl_env(release, &self.vars)
    }

    /// The width text must fit in: COLUMNS when set to a number, else the terminal's
    /// when standard output is one. `None` (piped, no COLUMNS): as wide as it takes.
    pub fn width(&self) -> Option<usize> {
        if let Some(c) = self.vars.get("COLUMNS").and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c > 0) {
            return Some(c);
        }
        if self.out_is_terminal {
            return comfy_table::Table::new().width().map(usize::from).filter(|&w| w > 0);
        }
        None
    }

    /// Whether to colour the output: `--color always` or `never` as said; `auto`, on a
    /// terminal unless NO_COLOR is set (and not empty).
    pub fn color(&self, choice: ColorChoice) -> bool {
        match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => self.out_is_terminal && self.vars.get("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    /// How text for people is laid out here: the width to fit ([`Ctx::width`]) and
    /// whether to colour ([`Ctx::color`]).
    pub fn term(&self, choice: ColorChoice) -> Term {
        Term { width: self.width(), color: self.color(choice) }
    }

    /// The NCCL release modelled.
    pub fn release(&self) -> Release {
        self.env.release()
    }

    /// The text of a command, written whole to standard output. A reader that went away
    /// (`| head`) or a closed standard output is no error: the exit status still says
    /// what the command found.
    pub fn print(&mut self, text: &str) -> Result<(), Error> {
        match self.out.write_all(text.as_bytes()).and_then(|_| self.out.flush()) {
            Err(e) if !gone(&e) => Err(Error::Io { file: "<stdout>".into(), source: e }),
            _ => Ok(()),
        }
    }

    /// One line on standard error, `topo: ` in front.
    pub fn say(&mut self, line: &str) -> Result<(), Error> {
        match writeln!(self.err, "topo: {line}") {
            Err(e) if !gone(&e) => Err(Error::Io { file: "<stderr>".into(), source: e }),
            _ => Ok(()),
        }
    }

    /// A note on standard error: `topo: note: ...`, the one form besides `topo: warning:`
    /// and `topo: error:`.
    pub fn note(&mut self, message: &str) -> Result<(), Error> {
        self.say(&format!("note: {message}"))
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

/// `--color`: when to colour the output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always, even into a pipe or a file.
    Always,
    /// Never.
    Never,
}

/// The reader of a pipe went away, or the stream was closed before topo started.
fn gone(e: &std::io::Error) -> bool {
    const EBADF: i32 = 9;
    e.kind() == std::io::ErrorKind::BrokenPipe || e.raw_os_error() == Some(EBADF)
}

/// Write `text` to `path`, never destroying what is not ours:
/// - a regular file, or a path that does not exist yet, is written whole: a temporary
///   file in the same folder, synced, then renamed over it (readers never see half a
///   file, and concurrent writers leave one whole file);
/// - a symbolic link is followed, and its target written that way (the link stays);
/// - anything else (a device such as /dev/null or /dev/full, a FIFO) is written to
///   directly, and a failed write (no space left on /dev/full) is an error.
///
/// Messages name `path`, never the temporary file.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), Error> {
    let target = resolve_links(path)?;
    match std::fs::metadata(&target) {
        Ok(m) if !m.is_file() => return write_special(path, &target, text),
        _ => {}
    }
    let tmp = temp_beside(&target);
    let res = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)
    })();
    if let Err(e) = res {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

/// Write `text` to `path` as a new file, never replacing one that exists (nccl-tests'
/// `-J` rule; the caller picks a free name): a temporary file in the same folder, synced,
/// then linked to `path` in one step, which fails if `path` appeared meanwhile. A
/// symbolic link is followed; a device or FIFO is written directly, as
/// [`write_atomically`] does. Messages name `path`, never the temporary file.
pub fn write_new(path: &Path, text: &str) -> Result<(), Error> {
    let target = resolve_links(path)?;
    if is_special(&target) {
        return write_special(path, &target, text);
    }
    let tmp = temp_beside(&target);
    let res = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::hard_link(&tmp, &target)
    })();
    let _ = std::fs::remove_file(&tmp);
    res.map_err(|e| Error::io(path, e))
}

/// An output path (`-o`, `-J`) checked before any work is spent on what goes there: a
/// folder is refused, and a file's folder must take a new file. A device or FIFO
/// (`/dev/null`, `/dev/full`, a pipe) passes: only writing it can tell whether it takes
/// the bytes. Messages name `path`.
pub fn check_output(path: &Path) -> Result<(), Error> {
    let target = resolve_links(path)?;
    if target.is_dir() {
        return Err(Error::io(path, std::io::Error::new(std::io::ErrorKind::IsADirectory, "Is a directory")));
    }
    if is_special(&target) {
        return Ok(());
    }
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let probe = dir.join(format!(".topo-probe-{}-{}", std::process::id(), unique()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

/// `path` is there and is neither a regular file nor a folder (a device, a FIFO, a
/// socket): written to as it is, never replaced.
pub fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// A hidden temporary name next to `target`, used by no other write of this process.
fn temp_beside(target: &Path) -> std::path::PathBuf {
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    dir.join(format!(".{name}.tmp-{}-{}", std::process::id(), unique()))
}

/// A number no other write of this process uses (threads may write at once).
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Follow symbolic links (at most 40, as the kernel does) to the path to write.
fn resolve_links(path: &Path) -> Result<std::path::PathBuf, Error> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p).map_err(|e| Error::io(path, e))?;
                p = if t.is_absolute() { t } else { p.parent().unwrap_or(Path::new(".")).join(t) };
            }
            _ => return Ok(p),
        }
    }
    Err(Error::Input { file: path.display().to_string(), message: "too many levels of symbolic links".into() })
}

/// Write to a device or FIFO as it is. Opening a FIFO waits for a reader: give up after
/// [`crate::fileio::BLOCKING_READ_TIMEOUT`].
fn write_special(path: &Path, target: &Path, text: &str) -> Result<(), Error> {
    let owned = target.to_path_buf();
    let timeout = crate::fileio::BLOCKING_READ_TIMEOUT;
    let mut f = match crate::fileio::within(timeout, move || std::fs::OpenOptions::new().write(true).open(&owned)) {
        Some(r) => r.map_err(|e| Error::io(path, e))?,
        None => {
            return Err(Error::Input {
                file: path.display().to_string(),
                message: format!("no reader after {} s (a FIFO nobody reads?)", timeout.as_secs()),
            });
        }
    };
    f.write_all(text.as_bytes()).and_then(|_| f.flush()).map_err(|e| Error::io(path, e))
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
        let e = write_atomically(&d.path().join("no/such/dir/x"), "x").unwrap_err().to_string();
        assert!(!e.contains(".tmp-"), "the temporary file is never named: {e}");
    }

    #[test]
    fn a_symlink_is_followed_and_kept() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("real.xml");
        let link = d.path().join("link.xml");
        std::fs::write(&target, "old").unwrap();
        std::os::unix::fs::symlink("real.xml", &link).unwrap();
        write_atomically(&link, "new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A dangling link gets its target created.
        let dangling = d.path().join("dangling.xml");
        std::os::unix::fs::symlink("made.xml", &dangling).unwrap();
        write_atomically(&dangling, "made").unwrap();
        assert_eq!(std::fs::read_to_string(d.path().join("made.xml")).unwrap(), "made");
    }

    #[test]
    fn devices_are_written_not_replaced() {
        write_atomically(Path::new("/dev/null"), "x").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file(), "/dev/null stays a device");
        if Path::new("/dev/full").exists() {
            let e = write_atomically(Path::new("/dev/full"), "x").unwrap_err().to_string();
            assert!(e.starts_with("/dev/full:"), "{e}");
        }
    }

    #[test]
    fn new_files_never_replace() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        write_new(&p, "one").unwrap();
        let e = write_new(&p, "two").unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:", p.display())) && !e.contains(".tmp-"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1, "no temporary file is left");
        let e = write_new(&d.path().join("no/such/r.json"), "x").unwrap_err().to_string();
        assert!(e.contains("no/such/r.json:") && !e.contains(".tmp-"), "{e}");
        write_new(Path::new("/dev/null"), "x").unwrap();
        assert!(is_special(Path::new("/dev/null")) && !is_special(&p) && !is_special(d.path()));
    }

    #[test]
    fn colours_and_width_follow_the_terminal_and_the_environment() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let vars = |kv: &[(&str, &str)]| kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let mut ctx = Ctx::new(&mut out, &mut err, vars(&[]), vec![]);
        // Into a pipe: no colour unless always, no width.
        assert_eq!(ctx.term(ColorChoice::Auto), Term { width: None, color: false });
        assert!(ctx.color(ColorChoice::Always) && !ctx.color(ColorChoice::Never));
        // On a terminal: colours by default.
        ctx.out_is_terminal = true;
        assert!(ctx.color(ColorChoice::Auto) && !ctx.color(ColorChoice::Never));
        // NO_COLOR (not empty) turns auto off; always stays always.
        ctx.vars = vars(&[("NO_COLOR", "1"), ("COLUMNS", "100")]);
        assert!(!ctx.color(ColorChoice::Auto) && ctx.color(ColorChoice::Always));
        assert_eq!(ctx.term(ColorChoice::Auto), Term { width: Some(100), color: false });
        ctx.vars = vars(&[("NO_COLOR", "")]);
        assert!(ctx.color(ColorChoice::Auto));
        // COLUMNS sets the width into a pipe too; nonsense is no width.
        ctx.out_is_terminal = false;
        ctx.vars = vars(&[("COLUMNS", "80")]);
        assert_eq!(ctx.width(), Some(80));
        ctx.vars = vars(&[("COLUMNS", "wide")]);
        assert_eq!(ctx.width(), None);
        ctx.vars = vars(&[("COLUMNS", "0")]);
        assert_eq!(ctx.width(), None);
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
