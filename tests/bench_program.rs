//! The program interpreter on every real MSCCL-IR program in `../shared/fixtures/msccl`
//! (skipped, with a message, when that folder is absent): those `topo algo check`
//! passes run with 0 wrong for every type and operator, in every mode the header
//! declares, from the smallest count the runtime runs them for to about 1 MiB per rank
//! with odd byte counts; the others are refused with the checker's findings.
//!
//! And every program `topo algo make` makes, run exactly as `topo bench --algo NAME`
//! runs it (written, read back and checked), against each collective's definition:
//! every collective x every algorithm x 2 to 8 ranks (1 rank is refused by make with
//! one line), odd sizes and counts that are not a multiple of 4, several types and
//! operators, 0 wrong. The default test is a small slice that runs in seconds in a
//! debug build; the full sweep, nccl-tests' sizes from 8 B to 64 MiB with every type
//! and operator, is `#[ignore]`d:
//!
//! ```text
//! cargo test --release --test bench_program -- --ignored --nocapture
//! ```

use std::path::{Path, PathBuf};

use topo::algo::Runtime;
use topo::algo::make::{self, Algo, COLLECTIVES, Options, Shape};
use topo::algo::program::{Collective, Mode, Protocol};
use topo::bench::program::reference::validate;
use topo::bench::program::sweep::param_count;
use topo::bench::program::{ProgramBackend, ProgramHost, load, reduces};
use topo::bench::{DataType, RedOp};

mod common;
#[path = "support/made.rs"]
mod made;

use made::{every_program, made, shape};

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

/// Validate one size (nccl-tests' bytes, cut to a count as the bench cuts it) in the
/// modes the program declares (`only`: the one of them at that index, in turn); the runs
/// made (0 when the size holds no count).
fn check_size(host: &mut ProgramHost, dtype: DataType, op: RedOp, bytes: u64, seed: u64, only: Option<usize>) -> usize {
    let count = param_count(host, dtype, bytes);
    if count == 0 {
        return 0;
    }
    let op = if reduces(host.loaded().coll()) { op } else { RedOp::Sum };
    let mut modes: Vec<Mode> = host.loaded().program.header.modes();
    if let Some(i) = only {
        modes = vec![modes[i % modes.len()]];
    }
    for &mode in &modes {
        let what = format!("{} {dtype} {op} {bytes} B (count {count}) {mode}", host.loaded().file);
        let w = validate(host, dtype, op, count, mode, seed).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(w, 0, "{what}: {w} wrong");
    }
    modes.len()
}

#[test]
fn one_rank_is_refused_in_one_line() {
    for coll in COLLECTIVES {
        for algo in Algo::ALL.into_iter().filter(|a| a.collectives().contains(&coll)) {
            let shape = Shape { nodes: 1, gpus_per_node: 1, rings: vec![vec![0]], trees: Vec::new() };
            let e = make::make(&Options::new(coll, algo), &shape).unwrap_err();
            assert!(!e.contains('\n') && !e.is_empty(), "{coll} {}: {e}", algo.name());
        }
    }
}

/// Small and fast: every program at an odd int8 size, a half size whose count is odd,
/// and a float size a little over one chunk per rank, with operators in turn.
#[test]
fn every_made_program_runs_with_0_wrong() {
    let sizes = [
        (DataType::Int8, RedOp::Sum, 8 * 37 + 3),
        (DataType::Half, RedOp::Max, 8 * 2 * 41),
        (DataType::Float, RedOp::Avg, 4096 + 8 * 4 * 3),
    ];
    let (mut programs, mut runs) = (0, 0);
    for (k, (coll, algo, n)) in every_program().into_iter().enumerate() {
        let mut host = ProgramHost::new(made(coll, algo, n).expect("a program"));
        for (i, &(dtype, op, bytes)) in sizes.iter().enumerate() {
            runs += check_size(&mut host, dtype, op, bytes, (k * 7 + i) as u64, None);
        }
        programs += 1;
    }
    assert!(programs > 150, "{programs} programs");
    eprintln!("{programs} programs, {runs} validated runs, 0 wrong");
}

/// The full sweep: nccl-tests' sizes doubling from 8 B to 64 MiB (up to 1 MiB also
/// less 1 B, in every mode; above, one mode in turn), the types and operators in turn
/// over them, and every type and operator at a small size.
#[test]
#[ignore = "minutes: cargo test --release --test bench_program -- --ignored"]
fn every_made_program_from_8_bytes_to_64_mib() {
    let start = std::time::Instant::now();
    let (mut programs, mut runs) = (0, 0);
    for (k, (coll, algo, n)) in every_program().into_iter().enumerate() {
        let mut host = ProgramHost::new(made(coll, algo, n).expect("a program"));
        let ops: &[RedOp] = if reduces(coll) { &RedOp::ALL } else { &[RedOp::Sum] };
        for (i, dtype) in DataType::ALL.into_iter().enumerate() {
            for (j, &op) in ops.iter().enumerate() {
                runs += check_size(&mut host, dtype, op, 1000 + 8 * i as u64, (k * 100 + i * 10 + j) as u64, None);
            }
        }
        for e in 3..=26u32 {
            // Up to 1 MiB each size less 1 B too and every mode; above, one mode in turn.
            let sizes: &[(usize, u64)] = if e <= 20 { &[(0, 1 << e), (1, (1 << e) - 1)] } else { &[(0, 1 << e)] };
            let only = (e > 20).then_some(e as usize);
            for &(d, bytes) in sizes {
                let i = (e as usize * 2 + d) % DataType::ALL.len();
                let dtype = DataType::ALL[i];
                let op = ops[(e as usize + d) % ops.len()];
                runs += check_size(&mut host, dtype, op, bytes, (k * 1000 + e as usize * 2 + d) as u64, only);
            }
        }
        programs += 1;
        eprintln!("{coll} {} {n} ranks: ok ({:.0?})", algo.name(), start.elapsed());
    }
    eprintln!("{programs} programs, {runs} validated runs, 0 wrong, {:.0?}", start.elapsed());
}

/// Reduce and broadcast made for a root (`topo algo make -r`, `topo bench -r`): for
/// ring, nccl (two rings) and mesh (broadcast) on 2 to 8 ranks and several roots, the
/// program passes `algo check`, which finds it right for that root; it reads back as
/// the same text; and it runs with 0 wrong in both modes at two sizes.
#[test]
fn rooted_programs_are_right_for_their_root() {
    let runtime = Runtime::default();
    let mut programs = 0;
    for coll in [Collective::Reduce, Collective::Broadcast] {
        for algo in Algo::ALL.into_iter().filter(|a| a.collectives().contains(&coll)) {
            for n in 2..=8u32 {
                let Some(shape) = shape(algo, n) else { continue };
                let mut roots = vec![0, 1, n / 2, n - 1];
                roots.dedup();
                roots.sort_unstable();
                roots.dedup();
                for root in roots {
                    let opts =
                        Options { coll, algo, runtime, proto: Protocol::Simple, instances: 1, channels: None, root };
                    let what = format!("{coll} {} {n} ranks root {root}", algo.name());
                    let p = make::make(&opts, &shape).unwrap_or_else(|e| panic!("{what}: {e}"));
                    let text = topo::algo::write::write(&p, runtime).unwrap_or_else(|| panic!("{what}: not written"));
                    let report = topo::algo::check(text.as_bytes(), Default::default()).unwrap();
                    assert_eq!(report.verdict, topo::algo::Verdict::Ok, "{what}");
                    assert_eq!(report.root, Some(root), "{what}");
                    let back = topo::algo::read::read(text.as_bytes(), runtime).unwrap().program.unwrap();
                    assert_eq!(topo::algo::write::write(&back, runtime).as_deref(), Some(text.as_str()), "{what}");
                    let mut host = ProgramHost::new(load(text.as_bytes(), &what).unwrap());
                    assert_eq!(host.loaded().root, root, "{what}");
                    check_size(&mut host, DataType::Int32, RedOp::Sum, 8 * 4 * 5 + 4, u64::from(root), None);
                    check_size(&mut host, DataType::Float, RedOp::Prod, 2 * 8 * 4 * 9, u64::from(n), None);
                    programs += 1;
                }
            }
        }
    }
    assert!(programs > 80, "{programs} programs");
}
