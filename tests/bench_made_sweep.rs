//! Every program `topo algo make` makes, run on the host interpreter exactly as `topo
//! bench --algo NAME` runs it (written, read back and checked), against each
//! collective's definition: every collective x every algorithm x 2 to 8 ranks (1 rank is
//! refused by make with one line), odd sizes and counts that are not a multiple of 4,
//! several types and operators, 0 wrong.
//!
//! The default test is a small slice that runs in seconds in a debug build. The full
//! sweep, nccl-tests' sizes from 8 B to 64 MiB with every type and operator, is
//! `#[ignore]`d:
//!
//! ```text
//! cargo test --release --test bench_made_sweep -- --ignored --nocapture
//! ```

use topo::algo::Runtime;
use topo::algo::make::{self, Algo, COLLECTIVES, Options, Shape};
use topo::algo::program::{Collective, Mode, Protocol};
use topo::bench::program::reference::validate;
use topo::bench::program::sweep::param_count;
use topo::bench::program::{Loaded, ProgramBackend, ProgramHost, load, reduces};
use topo::bench::{DataType, RedOp};

/// The job of `n` ranks for an algorithm: two nodes for `hierarchical` (which needs
/// them), and for `nccl` two rings as NCCL's search could give (in order, and
/// backwards).
fn shape(algo: Algo, n: u32) -> Option<Shape> {
    let (nodes, per) = match algo {
        Algo::Hierarchical if n % 2 == 0 && n >= 4 => (2, n / 2),
        Algo::Hierarchical => return None,
        _ => (1, n),
    };
    let rings = if algo == Algo::Nccl {
        vec![(0..n).collect(), std::iter::once(0).chain((1..n).rev()).collect()]
    } else {
        Vec::new()
    };
    Some(Shape { nodes, gpus_per_node: per, rings })
}

/// Make, write and load the program as `topo bench --algo NAME` does.
fn made(coll: Collective, algo: Algo, n: u32) -> Option<Loaded> {
    let shape = shape(algo, n)?;
    let runtime = Runtime::default();
    let opts = Options { coll, algo, runtime, proto: Protocol::Simple, instances: 1, channels: None };
    let what = format!("{coll} {} {n} ranks", algo.name());
    let p = make::make(&opts, &shape).unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = topo::algo::write::write(&p, runtime).unwrap_or_else(|| panic!("{what}: not written"));
    Some(load(text.as_bytes(), &what).unwrap_or_else(|e| panic!("{what}: {e}")))
}

/// Every (collective, algorithm, ranks) make offers, 2 to 8 ranks.
fn every_program() -> Vec<(Collective, Algo, u32)> {
    let mut all = Vec::new();
    for coll in COLLECTIVES {
        for algo in Algo::ALL.into_iter().filter(|a| a.collectives().contains(&coll)) {
            for n in 2..=8 {
                if shape(algo, n).is_some() {
                    all.push((coll, algo, n));
                }
            }
        }
    }
    all
}

/// Validate one size (nccl-tests' bytes, cut to a count as the bench cuts it) in every
/// mode the program declares; the runs made (0 when the size holds no count).
fn check(host: &mut ProgramHost, dtype: DataType, op: RedOp, bytes: u64, seed: u64) -> usize {
    let count = param_count(host, dtype, bytes);
    if count == 0 {
        return 0;
    }
    let op = if reduces(host.loaded().coll()) { op } else { RedOp::Sum };
    let modes: Vec<Mode> = host.loaded().program.header.modes();
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
            let shape = Shape { nodes: 1, gpus_per_node: 1, rings: vec![vec![0]] };
            let opts = Options {
                coll,
                algo,
                runtime: Runtime::default(),
                proto: Protocol::Simple,
                instances: 1,
                channels: None,
            };
            let e = make::make(&opts, &shape).unwrap_err();
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
            runs += check(&mut host, dtype, op, bytes, (k * 7 + i) as u64);
        }
        programs += 1;
    }
    assert!(programs > 150, "{programs} programs");
    eprintln!("{programs} programs, {runs} validated runs, 0 wrong");
}

/// The full sweep: nccl-tests' sizes doubling from 8 B to 64 MiB, each also less 1 B,
/// the types and operators in turn over them, and every type and operator at a small size.
#[test]
#[ignore = "minutes: cargo test --release --test bench_made_sweep -- --ignored"]
fn every_made_program_from_8_bytes_to_64_mib() {
    let start = std::time::Instant::now();
    let (mut programs, mut runs) = (0, 0);
    for (k, (coll, algo, n)) in every_program().into_iter().enumerate() {
        let mut host = ProgramHost::new(made(coll, algo, n).expect("a program"));
        let ops: &[RedOp] = if reduces(coll) { &RedOp::ALL } else { &[RedOp::Sum] };
        for (i, dtype) in DataType::ALL.into_iter().enumerate() {
            for (j, &op) in ops.iter().enumerate() {
                runs += check(&mut host, dtype, op, 1000 + 8 * i as u64, (k * 100 + i * 10 + j) as u64);
            }
        }
        for e in 3..=26u32 {
            for (d, bytes) in [(0, 1u64 << e), (1, (1u64 << e) - 1)] {
                let i = (e as usize * 2 + d) % DataType::ALL.len();
                let dtype = DataType::ALL[i];
                let op = ops[(e as usize + d) % ops.len()];
                runs += check(&mut host, dtype, op, bytes, (k * 1000 + e as usize * 2 + d) as u64);
            }
        }
        programs += 1;
        eprintln!("{coll} {} {n} ranks: ok ({:.0?})", algo.name(), start.elapsed());
    }
    eprintln!("{programs} programs, {runs} validated runs, 0 wrong, {:.0?}", start.elapsed());
}
