//! External programs run by the tests (`dot`, `script`, a C++ compiler), each with a
//! time limit: a program that hangs, or an input that makes it run for minutes, fails
//! its test with what it was doing instead of stalling the suite.

// Not every test crate that includes this calls every function.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long one external call may run. Generous: the 2-core machines the suite runs on
/// are shared, and a laid-out 72-GPU drawing takes Graphviz seconds; minutes means a bug.
/// `TOPO_TEST_EXTERNAL_LIMIT_S` changes it.
pub fn external_limit() -> Duration {
    let secs = std::env::var("TOPO_TEST_EXTERNAL_LIMIT_S").ok().and_then(|v| v.parse().ok()).unwrap_or(120);
    Duration::from_secs(secs)
}

/// Run `cmd` with `input` on its standard input (none: an empty one) and collect its
/// output; `Err` when the program cannot be started (not installed). A program still
/// running after `limit` is killed and the test fails, naming `what`.
pub fn run_limited(cmd: &mut Command, input: Option<&[u8]>, what: &str, limit: Duration) -> std::io::Result<Output> {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    // Feed and drain on threads, so a full pipe never blocks the clock.
    let mut stdin = child.stdin.take().unwrap();
    let data = input.unwrap_or_default().to_vec();
    let feeder = std::thread::spawn(move || {
        // A program that exits without reading everything closes the pipe: not our failure.
        let _ = stdin.write_all(&data);
    });
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{what}: still running after {} s, killed (TOPO_TEST_EXTERNAL_LIMIT_S sets the limit)",
                limit.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = feeder.join();
    Ok(Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() })
}

/// [`run_limited`] with [`external_limit`].
pub fn run_external(cmd: &mut Command, input: Option<&[u8]>, what: &str) -> std::io::Result<Output> {
    run_limited(cmd, input, what, external_limit())
}
