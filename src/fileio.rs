//! Reading input files with a bound: every file topo reads (topologies, graph files,
//! fake-NVML files, dumps) goes through [`read_capped`], so that `/dev/zero`, a huge
//! sparse file or a FIFO without a writer ends in a clear error instead of gigabytes
//! of memory or a hang.

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use crate::error::Error;

/// How long a FIFO (or another file that blocks) may keep topo waiting for its data.
pub const BLOCKING_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The whole content of `path`, refused when it holds more than `cap` bytes. Regular
/// files are checked by size first; other files (devices, FIFOs, `/proc` entries that
/// report no size) are read up to the cap, and a read that blocks is given up after
/// [`BLOCKING_READ_TIMEOUT`]. `what` names the kind of file in messages.
pub fn read_capped(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, Error> {
    read_capped_within(path, cap, what, BLOCKING_READ_TIMEOUT)
}

fn read_capped_within(path: &Path, cap: u64, what: &str, timeout: Duration) -> Result<Vec<u8>, Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let ft = meta.file_type();
    let input = |message: String| Error::Input { file: path.display().to_string(), message };
    if ft.is_dir() {
        return Err(input(format!("is a directory, not {what}")));
    }
    if ft.is_file() {
        if meta.len() > cap {
            return Err(input(format!("{} bytes is over the {} limit for {what}", meta.len(), size_text(cap))));
        }
        let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        return read_to_cap(f, cap).map_err(|e| Error::io(path, e))?.ok_or_else(|| too_big(path, cap, what));
    }
    if ft.is_socket() {
        return Err(input(format!("is a socket, not {what}")));
    }
    // A FIFO blocks in open() until a writer comes, and in read() until it closes: do
    // both on a thread and stop waiting after the timeout (the thread is left behind;
    // the command ends with the error).
    let owned = path.to_path_buf();
    match within(timeout, move || std::fs::File::open(&owned).and_then(|f| read_to_cap(f, cap))) {
        Some(Ok(Some(bytes))) => Ok(bytes),
        Some(Ok(None)) => Err(too_big(path, cap, what)),
        Some(Err(e)) => Err(Error::io(path, e)),
        None => Err(input(format!(
            "no data after {:.1} s (a FIFO without a writer?); give a regular file",
            timeout.as_secs_f64()
        ))),
    }
}

/// Run `work` (an `open` or `read` that may block, on a FIFO say) on a thread of its
/// own and wait for it at most `timeout`: `None` when it has not finished by then (the
/// thread is left behind; the command ends with an error about it).
pub fn within<T: Send + 'static>(timeout: Duration, work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().name("topo-io".into()).spawn(move || {
        let _ = tx.send(work());
    });
    spawned.ok()?;
    rx.recv_timeout(timeout).ok()
}

/// Read at most `cap` bytes; `None` when there is more.
fn read_to_cap(f: impl Read, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    f.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    Ok(if buf.len() as u64 > cap { None } else { Some(buf) })
}

fn too_big(path: &Path, cap: u64, what: &str) -> Error {
    Error::Input {
        file: path.display().to_string(),
        message: format!("more than {} of data, over the limit for {what}", size_text(cap)),
    }
}

fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_and_caps() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_capped(&p, 5, "a test file").unwrap(), b"12345");
        let e = read_capped(&p, 4, "a test file").unwrap_err().to_string();
        assert!(e.contains("5 bytes is over the 4 bytes limit for a test file"), "{e}");
        assert!(read_capped(d.path(), 4, "a test file").unwrap_err().to_string().contains("is a directory"));
        assert!(read_capped(&d.path().join("none"), 4, "x").is_err());
    }

    #[test]
    fn endless_devices_stop_at_the_cap() {
        let e = read_capped(Path::new("/dev/zero"), 1 << 20, "a topology file").unwrap_err().to_string();
        assert!(e.contains("more than 1 MiB of data"), "{e}");
        assert_eq!(read_capped(Path::new("/dev/null"), 16, "x").unwrap(), b"");
    }

    #[test]
    fn a_fifo_without_writer_times_out() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&p).status().is_ok_and(|s| s.success());
        assert!(made, "mkfifo is part of coreutils");
        let e = read_capped_within(&p, 16, "x", Duration::from_millis(200)).unwrap_err().to_string();
        assert!(e.contains("no data after 0.2 s"), "{e}");
    }
}
