//! The program interpreter on every real MSCCL-IR program in `../shared/fixtures/msccl`
//! (skipped, with a message, when that folder is absent): those `topo algo check`
//! passes run with 0 wrong for every type and operator, in every mode the header
//! declares, from the smallest count the runtime runs them for to about 1 MiB per rank
//! with odd byte counts; the others are refused with the checker's findings.

use std::path::{Path, PathBuf};

use topo::algo::program::Mode;
use topo::bench::program::reference::validate;
use topo::bench::program::{ProgramBackend, ProgramHost, load, reduces};
use topo::bench::{DataType, RedOp};

mod common;

fn programs(test: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/msccl");
    if !dir.is_dir() {
        common::skip(test, &format!("{} is absent", dir.display()));
        return Vec::new();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    files.sort();
    files
}

fn check(host: &mut ProgramHost, name: &str, dtype: DataType, op: RedOp, count: usize) -> usize {
    let modes: Vec<Mode> = host.loaded().program.header.modes();
    for &mode in &modes {
        let w = validate(host, dtype, op, count, mode, count as u64 + 11)
            .unwrap_or_else(|e| panic!("{name} {dtype} {op} count={count} {mode}: {e}"));
        assert_eq!(w, 0, "{name} {dtype} {op} count={count} {mode}: {w} wrong");
    }
    modes.len()
}

#[test]
fn every_valid_shared_program_runs_with_0_wrong() {
    let mut ran = 0;
    let mut runs = 0;
    for path in programs("every_valid_shared_program_runs_with_0_wrong") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read(&path).unwrap();
        let verdict = topo::algo::check(&text, Default::default()).unwrap().verdict;
        let loaded = load(&text, &name);
        if verdict != topo::algo::Verdict::Ok {
            let e = loaded.err().unwrap_or_else(|| panic!("{name}: {} yet loaded", verdict.name())).to_string();
            assert!(e.contains("not run") && e.contains(verdict.name()), "{name}: {e}");
            continue;
        }
        let mut host = ProgramHost::new(loaded.unwrap_or_else(|e| panic!("{name}: {e}")));
        let unit = host.loaded().count_unit();
        let ops: &[RedOp] = if reduces(host.loaded().coll()) { &RedOp::ALL } else { &[RedOp::Sum] };
        for dtype in DataType::ALL {
            for &op in ops {
                runs += check(&mut host, &name, dtype, op, unit);
            }
        }
        // Larger sizes: about 1 KiB, 40 KiB (several LL windows) and 1 MiB per rank.
        for (dtype, bytes) in [(DataType::Int8, 1000), (DataType::Half, 40_000), (DataType::Float, 1 << 20)] {
            let count = (bytes / dtype.size() / unit).max(1) * unit;
            runs += check(&mut host, &name, dtype, RedOp::Sum, count);
            runs += check(&mut host, &name, dtype, RedOp::Max, count + unit);
        }
        ran += 1;
    }
    eprintln!("{ran} programs, {runs} validated runs, 0 wrong");
}
