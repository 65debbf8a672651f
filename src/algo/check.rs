//! `topo algo check`: everything that can be known about a program without running it
//! on GPUs: the runtime's static rules, the pairing of every connection, a simulation
//! with the protocol's real FIFO depth (and the smallest depth that completes), the
//! result of a symbolic run against the collective's definition in every declared
//! mode, and data races.

use std::collections::BTreeMap;

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

use super::finding::{Finding, Kind, Place};
use super::lower::{Lowered, lower};
use super::program::{Conn, Mode, Program};
use super::race::races;
use super::read::read;
use super::runtime::{NCCL_STEPS, Runtime};
use super::sim::{Blocked, Machine, Outcome, Regime, RunConfig, Wait};
use super::verify::{Correctness, verify};

/// What to check against.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOptions {
    pub runtime: Runtime,
    /// FIFO slots per connection to hold the program to (default: the runtime's 8).
    pub depth: Option<u32>,
}

/// The one-word answer: the first kind (in this order) with an error, else `ok`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Ok,
    Invalid,
    Deadlock,
    Wrong,
    Race,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Invalid => "invalid",
            Verdict::Deadlock => "deadlock",
            Verdict::Wrong => "wrong",
            Verdict::Race => "race",
        }
    }
}

/// The shape of the program, for the report's first lines.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Shape {
    pub name: String,
    pub coll: super::program::Collective,
    pub proto: super::program::Protocol,
    pub ngpus: u32,
    pub nchannels: u32,
    pub chunks_per_loop: u32,
    pub modes: Vec<Mode>,
    pub min_bytes: Option<i64>,
    pub max_bytes: Option<i64>,
    pub max_tbs: usize,
    pub max_steps: usize,
    pub connections: usize,
}

/// Everything `algo check` says about one file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub runtime: Runtime,
    pub verdict: Verdict,
    /// The smallest FIFO depth in slots at which the program completes (`None`: it
    /// deadlocks at any depth, or could not be simulated).
    pub min_depth: Option<u32>,
    /// The depth the program was held to.
    pub depth: u32,
    pub program: Option<Shape>,
    /// Checks that could not run, and why.
    pub skipped: Vec<String>,
    pub findings: Vec<Finding>,
    /// Root a rooted collective was found right for.
    pub root: Option<u32>,
    /// The message size the FIFO simulation is for, and how it cuts steps into calls.
    pub regime: Option<Regime>,
    /// Why the runtime's scan of an algorithm folder stops at this file.
    pub scan_error: Option<String>,
}

/// Races reported per mode before the rest are only counted.
const RACES_SHOWN: usize = 20;

/// Check a program's bytes. `Err`: the bytes are not an MSCCL-IR program (one line).
pub fn check(text: &[u8], opts: CheckOptions) -> Result<Report, String> {
    let reading = read(text, opts.runtime)?;
    let mut findings = reading.findings;
    let depth = opts.depth.unwrap_or(NCCL_STEPS);
    let mut report = Report {
        runtime: opts.runtime,
        verdict: Verdict::Ok,
        min_depth: None,
        depth,
        program: None,
        skipped: Vec::new(),
        findings: Vec::new(),
        root: None,
        regime: None,
        scan_error: reading.scan_error.clone(),
    };
    let Some(p) = reading.program else {
        report.skipped.push("simulation, correctness and races: the header could not be read".into());
        report.findings = findings;
        report.verdict = verdict(&report.findings);
        return Ok(report);
    };
    let mut lowered = Vec::new();
    for g in &p.gpus {
        let (l, f) = lower(g, opts.runtime);
        findings.extend(f);
        lowered.push(l);
    }
    findings.extend(dropped_operands(&p, &lowered, opts.runtime));
    let regime = Regime::largest(&p, opts.runtime);
    report.regime = Some(regime);
    let machine = Machine::new(&p, &lowered, regime, opts.runtime);
    report.program = Some(shape(&p, machine.conns().len()));
    if !reading.complete {
        report.skipped.push(
            "simulation, correctness and races: elements the reader could not type are missing from the model".into(),
        );
        report.findings = findings;
        report.verdict = verdict(&report.findings);
        return Ok(report);
    }
    findings.extend(pairing(&p, &lowered));
    report.min_depth = machine.min_depth();
    if let Outcome::Deadlock(stuck) = machine.run(RunConfig { depth: Some(depth), data: None }) {
        findings.extend(deadlock(&p, &lowered, &machine, &stuck, depth, report.min_depth));
    }
    let modes = p.header.modes();
    if modes.is_empty() {
        findings.push(Finding::warning(
            Kind::Invalid,
            Place::line(0),
            "inplace=\"0\" and outofplace=\"0\": the runtime never selects the program",
        ));
    }
    if report.min_depth.is_none() {
        report.skipped.push("correctness and races: the program deadlocks at any FIFO depth".into());
    } else {
        for &mode in &modes {
            if let Outcome::Completed { memory: Some(memory), uninit } =
                machine.run(RunConfig { depth: None, data: Some(mode) })
            {
                for u in uninit.iter().take(8) {
                    let g = &p.gpus[u.gpu];
                    let op = &lowered[u.gpu].tbs[u.tb][u.op];
                    findings.push(Finding::warning(
                        Kind::Wrong,
                        Place::step(op.line, g.id, g.tbs[u.tb].id, op.first as u32),
                        format!("{mode}: reads {} chunk {} before anything wrote it", u.buf.name(), u.chunk),
                    ));
                }
                match verify(&p, mode, &memory) {
                    Correctness::Right { root } => report.root = report.root.or(root),
                    Correctness::Undefined => {
                        let why = format!("correctness: {} has no chunk-level definition", p.header.coll);
                        if !report.skipped.contains(&why) {
                            report.skipped.push(why);
                        }
                    }
                    Correctness::Wrong { root, chunks } => {
                        let of_root = root.map(|r| format!(" (closest: root {r})")).unwrap_or_default();
                        for c in chunks {
                            let g = p.gpu(c.gpu).map_or(0, |g| g.line);
                            findings.push(Finding::error(
                                Kind::Wrong,
                                Place::gpu(g, c.gpu),
                                format!(
                                    "{mode}{of_root}: output chunk {} holds {}, should hold {} ({} of {} output chunks wrong on this GPU)",
                                    c.chunk, c.holds, c.wants, c.wrong, c.of
                                ),
                            ));
                        }
                    }
                }
            }
            match races(&p, &lowered, mode, RACES_SHOWN) {
                Some((found, total)) => {
                    for r in &found {
                        let rw = |w: bool| if w { "writes" } else { "reads" };
                        findings.push(Finding::error(
                            Kind::Race,
                            Place::step(r.line, r.gpu, r.first.0, r.first.1),
                            format!(
                                "{}: tb {} step {} {} and tb {} step {} {} {} chunk {} with nothing ordering them",
                                r.mode,
                                r.first.0,
                                r.first.1,
                                rw(r.first.2),
                                r.second.0,
                                r.second.1,
                                rw(r.second.2),
                                r.buf,
                                r.chunk
                            ),
                        ));
                    }
                    if total > found.len() {
                        findings.push(Finding::error(
                            Kind::Race,
                            Place::default(),
                            format!(
                                "{mode}: {} more races (--json lists the first {RACES_SHOWN})",
                                total - found.len()
                            ),
                        ));
                    }
                }
                None => report.skipped.push(format!("races ({mode}): the order of operations has a cycle")),
            }
        }
    }
    findings.sort_by(|a, b| (a.kind, b.severity, a.place).cmp(&(b.kind, a.severity, b.place)));
    findings.dedup();
    report.findings = findings;
    report.verdict = verdict(&report.findings);
    Ok(report)
}

/// Fused reductions whose operands the kernel does not all read (see
/// [`Runtime::fused_reduce_reads`]): the destination's own value is lost at the sizes
/// that fill a chunk with a block's threads, which the simulation then shows as a wrong
/// result; this says why, at the step.
fn dropped_operands(p: &Program, lowered: &[Lowered], runtime: Runtime) -> Vec<Finding> {
    let mut out = Vec::new();
    let proto = p.header.proto;
    for (g, l) in p.gpus.iter().zip(lowered) {
        for (t, ops) in g.tbs.iter().zip(&l.tbs) {
            for op in ops.iter().filter(|op| op.kind == super::program::StepKind::Reduce) {
                let n = op.reduce_srcs.len();
                let reads = runtime.fused_reduce_reads(proto, n);
                if reads.destination && reads.sources == n {
                    continue;
                }
                let lost = if reads.sources < n {
                    format!("the destination and sources {}..{} are not read", reads.sources + 1, n)
                } else {
                    "the destination's own value is not read".to_string()
                };
                out.push(Finding::error(
                    Kind::Wrong,
                    Place::step(op.line, g.id, t.id, op.first as u32),
                    format!(
                        "steps {}..{} fuse into one reduction of {n} sources; under {} the kernel adds the destination as one more source and reads at most {}, so {lost} once a chunk holds a block's threads worth of elements (split the chain, or give a step hasdep=\"1\")",
                        op.first,
                        op.last,
                        proto.xml_name(),
                        runtime.max_reduce_fusion()
                    ),
                ));
            }
        }
    }
    out
}

fn verdict(findings: &[Finding]) -> Verdict {
    let has = |k: Kind| findings.iter().any(|f| f.kind == k && f.is_error());
    if has(Kind::Invalid) {
        Verdict::Invalid
    } else if has(Kind::Deadlock) {
        Verdict::Deadlock
    } else if has(Kind::Wrong) || has(Kind::Pairing) {
        Verdict::Wrong
    } else if has(Kind::Race) {
        Verdict::Race
    } else {
        Verdict::Ok
    }
}

fn shape(p: &Program, connections: usize) -> Shape {
    let h = &p.header;
    let (max_tbs, max_steps) = p.shape();
    Shape {
        name: h.name.clone(),
        coll: h.coll,
        proto: h.proto,
        ngpus: h.ngpus,
        nchannels: h.nchannels,
        chunks_per_loop: h.chunks_per_loop,
        modes: h.modes(),
        min_bytes: h.min_bytes,
        max_bytes: h.max_bytes,
        max_tbs,
        max_steps,
        connections,
    }
}

/// One end's messages on a connection: (tb id, XML step, cnt, line) per operation.
type Side = Vec<(u32, usize, u32, u32)>;

/// For every connection, the sender's send-type operations and the receiver's
/// receive-type operations must match in number and in count, pairwise.
fn pairing(p: &Program, lowered: &[Lowered]) -> Vec<Finding> {
    let mut sent: BTreeMap<Conn, Side> = BTreeMap::new();
    let mut got: BTreeMap<Conn, Side> = BTreeMap::new();
    for (gi, g) in p.gpus.iter().enumerate() {
        for (ti, t) in g.tbs.iter().enumerate() {
            for op in &lowered[gi].tbs[ti] {
                if op.kind.sends()
                    && let Some(to) = t.send
                {
                    sent.entry(Conn { chan: t.chan, from: g.id, to })
                        .or_default()
                        .push((t.id, op.first, op.count, op.line));
                }
                if op.kind.receives()
                    && let Some(from) = t.recv
                {
                    got.entry(Conn { chan: t.chan, from, to: g.id })
                        .or_default()
                        .push((t.id, op.first, op.count, op.line));
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut conns: Vec<Conn> = sent.keys().chain(got.keys()).copied().collect();
    conns.sort();
    conns.dedup();
    let calls = |s: &Side| s.iter().map(|x| u64::from(x.2)).sum::<u64>();
    for c in conns {
        let (s, r) = (sent.get(&c).cloned().unwrap_or_default(), got.get(&c).cloned().unwrap_or_default());
        let place_of =
            |side: &Side, gpu: u32| side.first().map_or(Place::default(), |x| Place::step(x.3, gpu, x.0, x.1 as u32));
        if s.is_empty() {
            out.push(Finding::error(
                Kind::Pairing,
                place_of(&r, c.to),
                format!("{c}: gpu {} receives {} chunks that nothing sends", c.to, calls(&r)),
            ));
            continue;
        }
        if r.is_empty() {
            out.push(Finding::error(
                Kind::Pairing,
                place_of(&s, c.from),
                format!("{c}: gpu {} sends {} chunks that nothing receives", c.from, calls(&s)),
            ));
            continue;
        }
        if let Some(i) = (0..s.len().min(r.len())).find(|&i| s[i].2 != r[i].2) {
            let (a, b) = (s[i], r[i]);
            out.push(Finding::error(
                Kind::Pairing,
                Place::step(a.3, c.from, a.0, a.1 as u32),
                format!(
                    "{c}: message {} is sent with cnt={} (tb {} step {}) and received with cnt={} (gpu {} tb {} step {}): the two ends split it differently",
                    i, a.2, a.0, a.1, b.2, c.to, b.0, b.1
                ),
            ));
        } else if calls(&s) != calls(&r) {
            out.push(Finding::error(
                Kind::Pairing,
                place_of(&s, c.from),
                format!(
                    "{c}: {} chunks sent, {} received: {}",
                    calls(&s),
                    calls(&r),
                    if calls(&s) > calls(&r) {
                        "the rest stays in the connection and desynchronises later operations"
                    } else {
                        "the receiver waits for the rest forever"
                    }
                ),
            ));
        }
    }
    out
}

fn describe_wait(p: &Program, lowered: &[Lowered], b: &Blocked) -> String {
    let g = &p.gpus[b.gpu];
    match b.wait {
        Wait::Recv(c) => format!("waits to receive from gpu {} on channel {}", c.from, c.chan),
        Wait::Send(c) => format!("waits for room to send to gpu {} on channel {}", c.to, c.chan),
        Wait::Flag { tb, step, .. } if tb < g.tbs.len() => {
            let meant = lowered[b.gpu].tbs[tb].iter().find(|o| o.number >= step).map_or(step as usize, |o| o.last);
            format!("waits for tb {} to finish step {meant}", g.tbs[tb].id)
        }
        Wait::Flag { step, .. } => format!("waits on step {step} of a thread block that does not exist"),
    }
}

/// The wait-for graph of the blocks left: its cycles, or the chains that end at a
/// block that finished without sending what is waited for.
fn deadlock(
    p: &Program,
    lowered: &[Lowered],
    m: &Machine,
    stuck: &[Blocked],
    depth: u32,
    min_depth: Option<u32>,
) -> Vec<Finding> {
    let mut g: DiGraph<usize, ()> = DiGraph::new();
    let key = |b: &Blocked| (b.gpu, b.tb);
    let mut node: BTreeMap<(usize, usize), NodeIndex> = BTreeMap::new();
    for (i, b) in stuck.iter().enumerate() {
        node.insert(key(b), g.add_node(i));
    }
    let gpu_ix = |id: u32| p.gpus.iter().position(|g| g.id == id);
    for (i, b) in stuck.iter().enumerate() {
        let targets: Vec<(usize, usize)> = match b.wait {
            Wait::Recv(c) => gpu_ix(c.from)
                .map(|gi| {
                    p.gpus[gi]
                        .tbs
                        .iter()
                        .enumerate()
                        .filter(|(_, t)| t.chan == c.chan && t.send == Some(c.to))
                        .map(|(ti, _)| (gi, ti))
                        .collect()
                })
                .unwrap_or_default(),
            Wait::Send(c) => gpu_ix(c.to)
                .map(|gi| {
                    p.gpus[gi]
                        .tbs
                        .iter()
                        .enumerate()
                        .filter(|(_, t)| t.chan == c.chan && t.recv == Some(c.from))
                        .map(|(ti, _)| (gi, ti))
                        .collect()
                })
                .unwrap_or_default(),
            Wait::Flag { tb, .. } if tb < p.gpus[b.gpu].tbs.len() => vec![(b.gpu, tb)],
            Wait::Flag { .. } => Vec::new(),
        };
        for t in targets {
            if let Some(&n) = node.get(&t) {
                g.add_edge(node[&key(&stuck[i])], n, ());
            }
        }
    }
    let _ = m;
    let member = |i: usize| {
        let b = &stuck[i];
        let gp = &p.gpus[b.gpu];
        let op = lowered[b.gpu].tbs[b.tb].get(b.op);
        let step = op.map_or(0, |o| o.first);
        (
            format!("gpu {} tb {} step {} {}", gp.id, gp.tbs[b.tb].id, step, describe_wait(p, lowered, b)),
            Place::step(op.map_or(gp.line, |o| o.line), gp.id, gp.tbs[b.tb].id, step as u32),
        )
    };
    let depth_note = match min_depth {
        Some(d) => format!("at {depth} slots per connection (it completes from {d} slots)"),
        None => "at any FIFO depth".into(),
    };
    let mut out = Vec::new();
    let mut in_cycle = vec![false; stuck.len()];
    for scc in tarjan_scc(&g) {
        let cyclic = scc.len() > 1 || g.contains_edge(scc[0], scc[0]);
        if !cyclic {
            continue;
        }
        // Walk one cycle inside the component.
        let set: std::collections::BTreeSet<NodeIndex> = scc.iter().copied().collect();
        let mut path = vec![scc[0]];
        let mut seen = BTreeMap::new();
        seen.insert(scc[0], 0usize);
        let cycle = loop {
            let cur = *path.last().expect("non-empty");
            let next =
                g.neighbors(cur).find(|n| set.contains(n)).expect("a node of a cyclic component has a successor in it");
            if let Some(&at) = seen.get(&next) {
                break path[at..].to_vec();
            }
            seen.insert(next, path.len());
            path.push(next);
        };
        for n in &cycle {
            in_cycle[g[*n]] = true;
        }
        let members: Vec<(String, Place)> = cycle.iter().map(|n| member(g[*n])).collect();
        let text: Vec<String> = members.iter().map(|(t, _)| t.clone()).collect();
        out.push(Finding::error(
            Kind::Deadlock,
            members[0].1,
            format!(
                "deadlock {depth_note}: a cycle of {} thread blocks: {} -> back to the first",
                members.len(),
                text.join(" -> ")
            ),
        ));
        if out.len() >= 5 {
            break;
        }
    }
    if out.is_empty() {
        // No cycle: waits that end at blocks which finished or do not exist.
        for (i, b) in stuck.iter().enumerate().filter(|(i, _)| !in_cycle[*i]).take(5) {
            let (text, place) = member(i);
            let why = match b.wait {
                Wait::Recv(_) => "; the sender finished without sending it",
                Wait::Send(_) => "; the receiver finished without taking it",
                Wait::Flag { .. } => "; that step never publishes in this iteration",
            };
            out.push(Finding::error(Kind::Deadlock, place, format!("hang {depth_note}: {text}{why}")));
        }
    }
    if stuck.len() > 1 {
        out.push(Finding::warning(
            Kind::Deadlock,
            Place::default(),
            format!("{} thread blocks are stuck in all", stuck.len()),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program from a compact description: per GPU, per thread block (send, recv,
    /// chan), its steps as `type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep`.
    /// A thread block: send peer, receive peer, steps.
    type Tb<'a> = (i32, i32, &'a [&'a str]);

    fn program(head: &str, gpus: &[(&str, &[Tb])]) -> String {
        let mut s = format!("<algo name=\"t\" {head} minBytes=\"0\" maxBytes=\"0\">\n");
        for (g, (chunks, tbs)) in gpus.iter().enumerate() {
            s += &format!("  <gpu id=\"{g}\" {chunks}>\n");
            for (t, (send, recv, steps)) in tbs.iter().enumerate() {
                s += &format!("    <tb id=\"{t}\" send=\"{send}\" recv=\"{recv}\" chan=\"0\">\n");
                for (i, st) in steps.iter().enumerate() {
                    let f: Vec<&str> = st.split(' ').collect();
                    s += &format!(
                        "      <step s=\"{i}\" type=\"{}\" srcbuf=\"{}\" srcoff=\"{}\" dstbuf=\"{}\" dstoff=\"{}\" cnt=\"{}\" depid=\"{}\" deps=\"{}\" hasdep=\"{}\"/>\n",
                        f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]
                    );
                }
                s += "    </tb>\n";
            }
            s += "  </gpu>\n";
        }
        s + "</algo>\n"
    }

    fn run(text: &str) -> Report {
        check(text.as_bytes(), CheckOptions::default()).unwrap()
    }

    const AR2: &str = "proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allreduce\" inplace=\"0\" outofplace=\"1\"";

    /// A 2-rank out-of-place allreduce: each rank reduces one chunk and sends it back.
    fn allreduce2(reduce: bool) -> String {
        let kind = if reduce { "rrc" } else { "r" };
        let g = |me: u32| -> Vec<String> {
            let (mine, theirs) = (me, 1 - me);
            vec![
                format!("s i {theirs} o {theirs} 1 -1 -1 0"),
                format!("{kind} i {mine} o {mine} 1 -1 -1 0"),
                format!("s o {mine} o {mine} 1 -1 -1 0"),
                format!("r o {theirs} o {theirs} 1 -1 -1 0"),
            ]
        };
        let (a, b) = (g(0), g(1));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let b: Vec<&str> = b.iter().map(String::as_str).collect();
        program(
            AR2,
            &[
                ("i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"0\"", &[(1, 1, &a)]),
                ("i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"0\"", &[(0, 0, &b)]),
            ],
        )
    }

    #[test]
    fn a_right_allreduce_is_ok() {
        let r = run(&allreduce2(true));
        assert_eq!(r.verdict, Verdict::Ok, "{:?}", r.findings);
        assert_eq!(r.min_depth, Some(4));
    }

    #[test]
    fn a_receive_that_does_not_reduce_is_wrong() {
        let r = run(&allreduce2(false));
        assert_eq!(r.verdict, Verdict::Wrong);
        let f = r.findings.iter().find(|f| f.kind == Kind::Wrong).unwrap();
        assert!(
            f.message.contains("output chunk 0 holds in1[0], should hold in*[0] summed over all 2 ranks"),
            "{}",
            f.message
        );
    }

    #[test]
    fn two_blocks_writing_one_chunk_race() {
        let t0: &[&str] = &["cpy i 0 o 0 1 -1 -1 0"];
        let t1: &[&str] = &["cpy i 1 o 0 1 -1 -1 0"];
        let head = "proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"1\" coll=\"custom\" inplace=\"0\" outofplace=\"1\"";
        let text = program(head, &[("i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"0\"", &[(-1, -1, t0), (-1, -1, t1)])]);
        let r = check(text.as_bytes(), CheckOptions { runtime: Runtime::Legacy, depth: None }).unwrap();
        assert_eq!(r.verdict, Verdict::Race, "{:?}", r.findings);
        // Ordered by a dependency, it is no race.
        let t1: &[&str] = &["cpy i 1 o 0 1 0 0 0"];
        let t0: &[&str] = &["cpy i 0 o 0 1 -1 -1 1"];
        let text = program(head, &[("i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"0\"", &[(-1, -1, t0), (-1, -1, t1)])]);
        let r = check(text.as_bytes(), CheckOptions { runtime: Runtime::Legacy, depth: None }).unwrap();
        assert_eq!(r.verdict, Verdict::Ok, "{:?}", r.findings);
    }

    #[test]
    fn sending_three_calls_before_receiving_deadlocks_under_simple_only() {
        let steps: &[&str] = &[
            "s i 0 o 0 1 -1 -1 0",
            "s i 1 o 1 1 -1 -1 0",
            "s i 0 o 0 1 -1 -1 0",
            "r i 0 o 2 1 -1 -1 0",
            "r i 0 o 3 1 -1 -1 0",
            "r i 0 o 3 1 -1 -1 0",
        ];
        let chunks = "i_chunks=\"2\" o_chunks=\"4\" s_chunks=\"0\"";
        for (proto, verdict, depth) in [("Simple", Verdict::Deadlock, 12), ("LL", Verdict::Ok, 3)] {
            let head = format!(
                "proto=\"{proto}\" nchannels=\"1\" nchunksperloop=\"4\" ngpus=\"2\" coll=\"custom\" inplace=\"0\" outofplace=\"1\""
            );
            let text = program(&head, &[(chunks, &[(1, 1, steps)]), (chunks, &[(0, 0, steps)])]);
            let r = check(text.as_bytes(), CheckOptions { runtime: Runtime::Legacy, depth: None }).unwrap();
            assert_eq!((r.verdict, r.min_depth), (verdict, Some(depth)), "{proto}: {:?}", r.findings);
        }
    }
}
