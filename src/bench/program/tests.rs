//! Tests of the program interpreter on small programs written here, one per collective
//! and step type. The shared real programs are run by `tests/bench_program.rs`.

use super::*;
use crate::bench::program::reference::validate;

/// A step: type, src buffer and offset, dst buffer and offset, count, dependency
/// (tb, step), hasdep.
type St = (&'static str, &'static str, i64, &'static str, i64, u32, Option<(u32, u32)>, bool);
/// A thread block: send peer, recv peer, channel, steps.
type Tb = (i64, i64, u32, Vec<St>);
/// A GPU: input, output and scratch chunks, thread blocks.
type Gp = (u32, u32, u32, Vec<Tb>);

pub(crate) fn xml(coll: &str, proto: &str, n: u32, c: u32, gpus: &[Gp]) -> String {
    let mut s = format!(
        "<algo name=\"t\" proto=\"{proto}\" nchannels=\"2\" nchunksperloop=\"{c}\" ngpus=\"{n}\" coll=\"{coll}\" inplace=\"1\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n"
    );
    for (id, (i, o, sc, tbs)) in gpus.iter().enumerate() {
        s += &format!("  <gpu id=\"{id}\" i_chunks=\"{i}\" o_chunks=\"{o}\" s_chunks=\"{sc}\">\n");
        for (tid, (send, recv, chan, steps)) in tbs.iter().enumerate() {
            s += &format!("    <tb id=\"{tid}\" send=\"{send}\" recv=\"{recv}\" chan=\"{chan}\">\n");
            for (k, (ty, sb, so, db, d, cnt, dep, has)) in steps.iter().enumerate() {
                let (di, ds) = dep.map_or((-1, -1), |(a, b)| (i64::from(a), i64::from(b)));
                s += &format!(
                    "      <step s=\"{k}\" type=\"{ty}\" srcbuf=\"{sb}\" srcoff=\"{so}\" dstbuf=\"{db}\" dstoff=\"{d}\" cnt=\"{cnt}\" depid=\"{di}\" deps=\"{ds}\" hasdep=\"{}\"/>\n",
                    u8::from(*has)
                );
            }
            s += "    </tb>\n";
        }
        s += "  </gpu>\n";
    }
    s + "</algo>\n"
}

fn m(a: i64, n: u32) -> i64 {
    a.rem_euclid(i64::from(n))
}

/// Ring allreduce with fused steps: s, rrs, rrcs, rcs, r.
pub(crate) fn ring_allreduce(n: u32, proto: &str) -> String {
    let gpus: Vec<Gp> = (0..n)
        .map(|r| {
            let r = i64::from(r);
            let mut st: Vec<St> = vec![("s", "i", r, "o", -1, 1, None, false)];
            for k in 1..i64::from(n) - 1 {
                st.push(("rrs", "i", m(r - k, n), "o", -1, 1, None, false));
            }
            let c = m(r + 1, n);
            st.push(("rrcs", "i", c, "o", c, 1, None, false));
            for k in 1..i64::from(n) - 1 {
                let c = m(r - k + 1, n);
                st.push(("rcs", "i", -1, "o", c, 1, None, false));
            }
            let c = m(r + 2, n);
            st.push(("r", "i", -1, "o", c, 1, None, false));
            (n, n, 0, vec![(m(r + 1, n), m(r - 1, n), 0, st)])
        })
        .collect();
    xml("allreduce", proto, n, n, &gpus)
}

/// Allreduce through scratch: one tb per peer sends the whole input (cnt = n, several
/// chunks per call) and receives the peer's; a local tb waits on all of them (nops),
/// copies and reduces with a fused `re` chain.
pub(crate) fn direct_allreduce(n: u32, proto: &str) -> String {
    let gpus: Vec<Gp> = (0..n)
        .map(|r| {
            let peers: Vec<u32> = (0..n).filter(|&p| p != r).collect();
            // Two chunks per send at most: a Simple call is 4 of the 8 slots, so more
            // before the first receive would deadlock.
            let pieces: Vec<(i64, u32)> = (0..n).step_by(2).map(|k| (i64::from(k), 2.min(n - k))).collect();
            let last = 2 * pieces.len() as u32 - 1;
            let mut tbs: Vec<Tb> = peers
                .iter()
                .enumerate()
                .map(|(t, &p)| {
                    let mut st: Vec<St> = Vec::new();
                    for (i, &(k, c)) in pieces.iter().enumerate() {
                        st.push(("s", "i", k, "o", -1, c, None, false));
                        let has = i + 1 == pieces.len();
                        st.push(("r", "i", -1, "s", (t as i64) * i64::from(n) + k, c, None, has));
                    }
                    (i64::from(p), i64::from(p), 0, st)
                })
                .collect();
            let mut local: Vec<St> = Vec::new();
            for t in 1..peers.len() {
                local.push(("nop", "i", -1, "o", -1, 0, Some((t as u32, last)), false));
            }
            let first = (!peers.is_empty()).then_some((0, last));
            local.push(("cpy", "i", 0, "o", 0, n, first, false));
            for t in 0..peers.len() {
                local.push(("re", "s", (t as i64) * i64::from(n), "o", 0, n, None, false));
            }
            tbs.push((-1, -1, 1, local));
            (n, n, n * (n - 1), tbs)
        })
        .collect();
    xml("allreduce", proto, n, n, &gpus)
}

/// Ring allgather: cpy into place, s, rcs, r.
pub(crate) fn ring_allgather(n: u32, proto: &str) -> String {
    let gpus: Vec<Gp> = (0..n)
        .map(|r| {
            let r = i64::from(r);
            let mut st: Vec<St> = vec![("cpy", "i", 0, "o", r, 1, None, false)];
            if n > 1 {
                st.push(("s", "o", r, "o", -1, 1, None, false));
                for k in 1..i64::from(n) - 1 {
                    st.push(("rcs", "i", -1, "o", m(r - k, n), 1, None, false));
                }
                st.push(("r", "i", -1, "o", m(r + 1, n), 1, None, false));
            }
            let (s, rv) = if n > 1 { (m(r + 1, n), m(r - 1, n)) } else { (-1, -1) };
            (1, n, 0, vec![(s, rv, 0, st)])
        })
        .collect();
    xml("allgather", proto, n, n, &gpus)
}

/// Ring reduce-scatter: s, rrs, rrc.
pub(crate) fn ring_reducescatter(n: u32, proto: &str) -> String {
    let gpus: Vec<Gp> = (0..n)
        .map(|r| {
            let r = i64::from(r);
            let mut st: Vec<St> = vec![("s", "i", m(r - 1, n), "o", -1, 1, None, false)];
            for k in 1..i64::from(n) - 1 {
                st.push(("rrs", "i", m(r - 1 - k, n), "o", -1, 1, None, false));
            }
            st.push(("rrc", "i", r, "o", 0, 1, None, false));
            (n, 1, 0, vec![(m(r + 1, n), m(r - 1, n), 0, st)])
        })
        .collect();
    xml("reducescatter", proto, n, n, &gpus)
}

/// Direct alltoall through scratch (in place needs it), 2 chunks per pair.
pub(crate) fn direct_alltoall(n: u32, proto: &str) -> String {
    let c = 2 * n;
    let gpus: Vec<Gp> = (0..n)
        .map(|r| {
            let mut tbs: Vec<Tb> = (0..n)
                .filter(|&p| p != r)
                .map(|p| {
                    let p2 = 2 * i64::from(p);
                    let st: Vec<St> = vec![
                        ("s", "i", p2, "o", -1, 2, None, false),
                        ("r", "i", -1, "s", p2, 2, None, false),
                        ("cpy", "s", p2, "o", p2, 2, None, false),
                    ];
                    (i64::from(p), i64::from(p), 0, st)
                })
                .collect();
            let r2 = 2 * i64::from(r);
            tbs.push((-1, -1, 0, vec![("cpy", "i", r2, "o", r2, 2, None, false)]));
            (c, c, c, tbs)
        })
        .collect();
    xml("alltoall", proto, n, c, &gpus)
}

/// Chain broadcast from rank 0 (2 chunks in one step).
pub(crate) fn chain_broadcast(n: u32, proto: &str) -> String {
    let gpus: Vec<Gp> = (0..n)
        .map(|r| {
            let (st, s, rv): (Vec<St>, i64, i64) = match r {
                0 if n == 1 => (vec![("cpy", "i", 0, "o", 0, 2, None, false)], -1, -1),
                0 => (vec![("cpy", "i", 0, "o", 0, 2, None, false), ("s", "i", 0, "o", -1, 2, None, false)], 1, -1),
                r if r == n - 1 => (vec![("r", "i", -1, "o", 0, 2, None, false)], -1, i64::from(r) - 1),
                r => (vec![("rcs", "i", -1, "o", 0, 2, None, false)], i64::from(r) + 1, i64::from(r) - 1),
            };
            (2, 2, 0, vec![(s, rv, 0, st)])
        })
        .collect();
    xml("broadcast", proto, n, 2, &gpus)
}

/// Chain reduce to rank 0.
pub(crate) fn chain_reduce(n: u32, proto: &str) -> String {
    let gpus: Vec<Gp> = (0..n)
        .map(|r| {
            let last = n - 1;
            let (st, s, rv): (Vec<St>, i64, i64) = match r {
                0 if n == 1 => (vec![("cpy", "i", 0, "o", 0, 2, None, false)], -1, -1),
                0 => (vec![("rrc", "i", 0, "o", 0, 2, None, false)], -1, 1),
                r if r == last => (vec![("s", "i", 0, "o", -1, 2, None, false)], i64::from(r) - 1, -1),
                r => (vec![("rrs", "i", 0, "o", -1, 2, None, false)], i64::from(r) - 1, i64::from(r) + 1),
            };
            (2, 2, 0, vec![(s, rv, 0, st)])
        })
        .collect();
    xml("reduce", proto, n, 2, &gpus)
}

type Maker = fn(u32, &str) -> String;

const MAKERS: [(&str, Maker, u32); 7] = [
    ("ring allreduce", ring_allreduce, 2),
    ("direct allreduce", direct_allreduce, 1),
    ("ring allgather", ring_allgather, 1),
    ("ring reducescatter", ring_reducescatter, 2),
    ("direct alltoall", direct_alltoall, 1),
    ("chain broadcast", chain_broadcast, 1),
    ("chain reduce", chain_reduce, 1),
];

fn loaded(text: &str, what: &str) -> Loaded {
    match load(text.as_bytes(), what) {
        Ok(l) => l,
        Err(e) => panic!("{what}: {e}\n{text}"),
    }
}

fn sweep(host: &mut ProgramHost, what: &str, dtypes: &[DataType], ops: &[RedOp], counts: &[usize]) -> usize {
    let unit = host.loaded().count_unit();
    let ops = if reduces(host.loaded().coll()) { ops } else { &ops[..1] };
    let mut runs = 0;
    for &dtype in dtypes {
        for &op in ops {
            for &k in counts {
                let count = k * unit;
                for mode in host.loaded().program.header.modes() {
                    let seed = (k as u64) ^ 0x5eed;
                    let wrong = validate(host, dtype, op, count, mode, seed)
                        .unwrap_or_else(|e| panic!("{what} {dtype} {op} count={count} {mode}: {e}"));
                    assert_eq!(wrong, 0, "{what} {dtype} {op} count={count} {mode}");
                    runs += 1;
                }
            }
        }
    }
    runs
}

#[test]
fn every_small_program_every_rank_count_type_and_op() {
    // Every type and operator at two sizes, for every rank count; the protocol rotates
    // with the rank count, and two more sizes (odd byte counts) run in every protocol.
    let mut runs = 0;
    for (what, make, min_n) in MAKERS {
        for n in min_n..=8 {
            for (pi, proto) in ["Simple", "LL", "LL128"].into_iter().enumerate() {
                let what = format!("{what} n={n} {proto}");
                let mut host = ProgramHost::new(loaded(&make(n, proto), &what));
                if pi == n as usize % 3 {
                    runs += sweep(&mut host, &what, &DataType::ALL, &RedOp::ALL, &[1, 3]);
                }
                runs += sweep(&mut host, &what, &[DataType::Int8, DataType::Half], &[RedOp::Sum], &[37, 1001]);
            }
        }
    }
    eprintln!("{runs} validated runs, 0 wrong");
}

#[test]
fn several_loop_iterations_and_calls_per_step() {
    // LL's window is 32 KiB: 100 KiB chunks take 4 iterations; Simple's is 2 MiB.
    for (what, make, _) in MAKERS {
        for (n, proto, bytes) in [(3, "LL", 300 << 10), (2, "Simple", (4 << 20) + 24), (4, "LL128", 1 << 20)] {
            let what = format!("{what} n={n} {proto}");
            let mut host = ProgramHost::new(loaded(&make(n, proto), &what));
            // Per-rank bytes about `bytes`, in counts of whole units plus an odd tail.
            let k = (bytes / host.loaded().count_unit()).max(1);
            sweep(&mut host, &what, &[DataType::Float], &[RedOp::Sum], &[k / 4 + 1]);
            sweep(&mut host, &what, &[DataType::Uint8], &[RedOp::Max], &[k / 2 + 7]);
        }
    }
}

#[test]
fn the_geometry_cuts_steps_as_the_runtime_does() {
    let l = loaded(&ring_allreduce(4, "Simple"), "ring");
    // 4 chunks of 1 MiB floats: one iteration, 2 chunks per call (2 MiB payload).
    let g = l.geometry(DataType::Float, 1 << 20).unwrap();
    assert_eq!((g.chunk, g.iterations, g.per_call, g.slices, g.entries), (1 << 18, 1, 2, 2, 4));
    // 4 chunks of 4 MiB: two iterations of a 2 MiB window, one chunk per call.
    let g = l.geometry(DataType::Float, 4 << 20).unwrap();
    assert_eq!((g.iterations, g.per_call, g.window), (2, 1, 1 << 19));
    let l = loaded(&ring_allgather(4, "LL"), "ag");
    let g = l.geometry(DataType::Half, 12).unwrap();
    assert_eq!((g.chunk, g.send, g.recv, g.per_call, g.entries, g.slices), (12, 12, 48, 71, 8, 1));
    assert!(l.geometry(DataType::Half, 0).is_ok());
    let l = loaded(&direct_alltoall(3, "LL"), "a2a");
    assert_eq!(l.count_unit(), 2);
    assert!(l.geometry(DataType::Float, 5).is_err());
}

#[test]
fn a_program_the_checker_refuses_is_not_run() {
    // Each rank sends 3 calls before receiving: 12 Simple slots, more than 8.
    let st: Vec<St> = (0..3)
        .map(|k| ("s", "i", k, "o", -1, 1, None, false))
        .chain((0..3).map(|k| ("r", "i", -1, "o", k, 1, None, false)))
        .collect();
    let text =
        xml("allgather", "Simple", 2, 6, &[(3, 6, 0, vec![(1, 1, 0, st.clone())]), (3, 6, 0, vec![(0, 0, 0, st)])]);
    let e = load(text.as_bytes(), "x.xml").unwrap_err().to_string();
    assert!(e.contains("x.xml") && e.contains("not run"), "{e}");
}

#[test]
fn repeated_runs_keep_connections_and_flags_in_step() {
    let mut host = ProgramHost::new(loaded(&direct_allreduce(4, "LL"), "direct"));
    host.run(DataType::Float, RedOp::Sum, 4000, Mode::OutOfPlace, 7).unwrap();
    assert_eq!(validate(&mut host, DataType::Int32, RedOp::Prod, 4 * 999, Mode::InPlace, 3).unwrap(), 0);
    host.run(DataType::Double, RedOp::Sum, 8 << 10, Mode::InPlace, 5).unwrap();
    assert_eq!(validate(&mut host, DataType::Bfloat16, RedOp::Avg, 4 * 77, Mode::OutOfPlace, 4).unwrap(), 0);
}
