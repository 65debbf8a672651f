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

/// How long a FIFO (or another file that blocks) may keep topo waiting: for a writer
/// (or a reader) to open it, and then for each next piece of data. A writer that keeps
/// sending is read to the end (up to the cap); one that stops for this long is given up.
pub const BLOCKING_READ_TIMEOUT: Duration = Duration::from_secs(3);

/// The pieces a non-regular file is read in.
const CHUNK: usize = 64 << 10;

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
    // A FIFO blocks in open() until a writer comes, and in read() until it writes or
    // closes: both happen on a thread, and the wait for the open and for every next
    // piece of data is bounded by the timeout (the thread is left behind; the command
    // ends with the error).
    let (tx, rx) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(4);
    let owned = path.to_path_buf();
    let spawned = std::thread::Builder::new().name("topo-io".into()).spawn(move || {
        let mut f = match std::fs::File::open(&owned) {
            Ok(f) => f,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        loop {
            let mut buf = vec![0u8; CHUNK];
            match f.read(&mut buf) {
                Ok(n) => {
                    buf.truncate(n);
                    // The reader went away (the cap was reached, or it gave up): stop.
                    if tx.send(Ok(buf)).is_err() || n == 0 {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
    });
    spawned.map_err(|e| Error::io(path, e))?;
    let mut data = Vec::new();
    loop {
        match rx.recv_timeout(timeout) {
            Ok(Ok(piece)) if piece.is_empty() => return Ok(data),
            Ok(Ok(piece)) => {
                if (data.len() + piece.len()) as u64 > cap {
                    return Err(too_big(path, cap, what));
                }
                data.extend_from_slice(&piece);
            }
            Ok(Err(e)) => return Err(Error::io(path, e)),
            Err(_) => {
                let when = if data.is_empty() { "no data" } else { "no more data" };
                return Err(input(format!(
                    "{when} after waiting {:.1} s (a FIFO without a writer?); give a regular file",
                    timeout.as_secs_f64()
                )));
            }
        }
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
        assert!(e.contains("no data after waiting 0.2 s"), "{e}");
    }

    fn mkfifo(p: &Path) {
        let made = std::process::Command::new("mkfifo").arg(p).status().is_ok_and(|s| s.success());
        assert!(made, "mkfifo is part of coreutils");
    }

    #[test]
    fn a_fifo_writer_is_read_to_the_end_and_capped() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("fifo");
        mkfifo(&p);
        // A writer that pauses between pieces (shorter than the timeout) is read whole.
        let w = p.clone();
        let writer = std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(&w).unwrap();
            for piece in [&b"<system"[..], b" version=\"1\"/>"] {
                std::io::Write::write_all(&mut f, piece).unwrap();
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let got = read_capped_within(&p, 1 << 20, "x", Duration::from_secs(2)).unwrap();
        writer.join().unwrap();
        assert_eq!(got, b"<system version=\"1\"/>");
        // One that writes more than the cap is cut off at the cap. (A FIFO of its own:
        // the readers given up above may still hold the first one open.)
        let p = d.path().join("fifo2");
        mkfifo(&p);
        let w = p.clone();
        std::thread::spawn(move || {
            if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&w) {
                let _ = std::io::Write::write_all(&mut f, &vec![b'x'; 1 << 20]);
            }
        });
        let e = read_capped_within(&p, 1000, "x", Duration::from_secs(2)).unwrap_err().to_string();
        assert!(e.contains("more than 1000 bytes of data"), "{e}");
        // One that opens and then stalls is given up after the timeout.
        let p = d.path().join("fifo3");
        mkfifo(&p);
        let w = p.clone();
        let stall = std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(&w).unwrap();
            std::io::Write::write_all(&mut f, b"<sys").unwrap();
            std::thread::sleep(Duration::from_millis(700));
        });
        let e = read_capped_within(&p, 1 << 20, "x", Duration::from_millis(200)).unwrap_err().to_string();
        // ("no data" when a loaded machine runs the writer late.)
        assert!(e.contains("data after waiting 0.2 s"), "{e}");
        stall.join().unwrap();
    }
}
