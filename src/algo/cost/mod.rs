//! `topo algo cost` and `topo algo compare`: a program's time per message size on a
//! machine, from a timed run of the program over the machine's links ([`timed`]), with
//! NCCL's own pick and time from the tuning model beside it.
//!
//! The boundary every producer of programs plugs into is [`cost`]: a [`Program`] and a
//! [`Fabric`] in, one [`Row`] per size out. `algo cost FILE`, `algo compare FILE...` and
//! the programs `topo algo make` makes (`algo cost COLL --algo NAME`, `algo compare
//! COLL`) all go through it.
//!
//! How this differs from the tuning model: NCCL's model prices an algorithm it already
//! knows (ring, tree, NVLS) with one bandwidth and one latency per step; this one knows
//! nothing about the algorithm and replays what the program does, slice by slice, on
//! the links each connection crosses. The two share their constants (NCCL's per-hop
//! latencies, its ring bandwidth per channel as one thread block's rate, its protocol
//! shares), so a ring program over NCCL's rings must come out near NCCL's Ring time:
//! `topo algo make`'s `nccl` algorithm makes that program and the tests hold the two
//! together.

pub mod fabric;
pub mod timed;

use super::lower::lower;
use super::program::{Collective, Program};
use super::runtime::Runtime;
use crate::tune::{Algo, Func, Model, Proto};

pub use fabric::Fabric;

/// The tuning model's collective for a program's, where it has one.
pub fn func_of(c: Collective) -> Option<Func> {
    Some(match c {
        Collective::AllReduce => Func::AllReduce,
        Collective::AllGather => Func::AllGather,
        Collective::ReduceScatter => Func::ReduceScatter,
        Collective::Broadcast => Func::Broadcast,
        Collective::Reduce => Func::Reduce,
        _ => return None,
    })
}

/// nccl-tests' bus bandwidth factor (busbw = algbw x factor) for `n` ranks.
pub fn bus_factor(c: Collective, n: usize) -> f64 {
    match func_of(c) {
        Some(f) => f.bus_factor(n),
        None if matches!(c, Collective::AllToAll | Collective::AllToAllV) => (n as f64 - 1.0) / n as f64,
        None => 1.0,
    }
}

/// NCCL's choice for the same call, from the tuning model.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NcclPick {
    pub algo: Algo,
    pub proto: Proto,
    pub time_us: f64,
    pub busbw_gbs: f64,
    /// The tuning model's Ring/Simple time for the same call (µs), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ring_simple_us: Option<f64>,
}

/// What binds a program's time at one size.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Binding {
    /// The program's chain of dependent steps: latencies and store-and-forward, with no
    /// link or thread block busy half the time.
    Chain,
    /// One thread block's rate on its route (NCCL's ring bandwidth per channel).
    BlockRate { gbs: f64, route: String },
    /// A link, and the connections that share it.
    Link { link: String, bw_gbs: f64, connections: Vec<String> },
}

/// One size.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    /// The call's bytes, nccl-tests' `size` (for allgather and reducescatter all ranks').
    pub bytes: u64,
    pub time_us: f64,
    pub algbw_gbs: f64,
    pub busbw_gbs: f64,
    /// In words, as `topo tune` says it.
    pub bottleneck: String,
    pub binding: Binding,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nccl: Option<NcclPick>,
}

/// A program costed over sizes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Costed {
    pub name: String,
    pub coll: Collective,
    pub ngpus: u32,
    pub proto: super::program::Protocol,
    /// The sizes the header admits (the runtime selects the program only for these).
    pub min_bytes: u64,
    pub max_bytes: Option<u64>,
    /// Sizes of the sweep outside that range, left out.
    pub left_out: usize,
    pub rows: Vec<Row>,
}

/// The call sizes a program's header admits under a runtime (inclusive bounds).
pub fn admitted(p: &Program, runtime: Runtime) -> (u64, Option<u64>) {
    let h = &p.header;
    let lo = h.min_bytes.unwrap_or(0).max(0) as u64;
    let hi = match (runtime.max_bytes_inclusive(), h.max_bytes) {
        (true, None | Some(0)) => None,
        (true, Some(m)) => Some(m.max(0) as u64),
        (false, None) => Some((runtime.default_max_bytes() - 1).max(0) as u64),
        (false, Some(m)) => Some((m - 1).max(0) as u64),
    };
    (lo, hi)
}

/// The bytes of a call of nccl-tests size `size` with float data: whole elements, whole
/// elements per rank for the collectives whose size is all ranks' buffers.
pub fn call_bytes(c: Collective, n: usize, size: u64) -> u64 {
    let count = size / 4;
    match c {
        Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => count / n as u64 * n as u64 * 4,
        _ => count * 4,
    }
}

/// Cost a program on a fabric at every size (nccl-tests sizes; sizes that hold less
/// than one float per rank are left out). `Err` is one line: the program does not fit
/// the machine, or does not complete at the runtime's depth.
pub fn cost(p: &Program, runtime: Runtime, fabric: &Fabric, sizes: &[u64]) -> Result<Costed, String> {
    let n = p.header.ngpus as usize;
    if n > fabric.ranks() {
        return Err(format!(
            "the program has {n} GPUs and {} has {} ({} per node x {} node{}): give --nodes {}",
            fabric.label,
            fabric.ranks(),
            fabric.per_node,
            fabric.nodes,
            if fabric.nodes == 1 { "" } else { "s" },
            n.div_ceil(fabric.per_node.max(1))
        ));
    }
    let lowered: Vec<_> = p.gpus.iter().map(|g| lower(g, runtime).0).collect();
    let prep = timed::Prepared::new(p, runtime, &lowered, fabric)?;
    let pi = fabric::proto_index(p.header.proto);
    let (lo, hi) = admitted(p, runtime);
    let mut left_out = 0;
    let mut run = Vec::with_capacity(sizes.len());
    for &size in sizes {
        let bytes = call_bytes(p.header.coll, n, size);
        if bytes == 0 {
            continue;
        }
        if bytes < lo || hi.is_some_and(|h| bytes > h) {
            left_out += 1;
            continue;
        }
        run.push(bytes);
    }
    let timings = run_all(&prep, fabric, &run);
    let mut rows = Vec::with_capacity(run.len());
    for (bytes, t) in run.into_iter().zip(timings) {
        let t = t?;
        let time_us = t.span_us + fabric.base_us[pi];
        let algbw = bytes as f64 / time_us / 1e3;
        let binding = binding(&prep, fabric, &t, time_us, pi);
        rows.push(Row {
            bytes,
            time_us,
            algbw_gbs: algbw,
            busbw_gbs: algbw * bus_factor(p.header.coll, n),
            bottleneck: describe(&binding),
            binding,
            nccl: None,
        });
    }
    Ok(Costed {
        name: p.header.name.clone(),
        coll: p.header.coll,
        ngpus: p.header.ngpus,
        proto: p.header.proto,
        min_bytes: lo,
        max_bytes: hi,
        left_out,
        rows,
    })
}

/// The timed runs of every size, on as many threads as there are cores (the sizes are
/// independent runs of one prepared program), in the order of `sizes`.
fn run_all(prep: &timed::Prepared, fabric: &Fabric, sizes: &[u64]) -> Vec<Result<timed::Timing, String>> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(sizes.len());
    if workers <= 1 {
        return sizes.iter().map(|&b| prep.run(fabric, b)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, Result<timed::Timing, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&b) = sizes.get(i) else { break };
                        mine.push((i, prep.run(fabric, b)));
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// Put NCCL's pick (and its Ring/Simple time) beside every row, when the tuning model
/// has the collective and the program spans the model's ranks.
pub fn beside_nccl(c: &mut Costed, model: &Model) {
    let Some(f) = func_of(c.coll) else { return };
    if c.ngpus as usize != model.comm.n_ranks {
        return;
    }
    for r in &mut c.rows {
        let Ok(p) = model.predict(f, r.bytes) else { continue };
        let ring = model.cost_table(f, r.bytes)[Algo::Ring as usize][Proto::Simple as usize].map(f64::from);
        r.nccl = Some(NcclPick {
            algo: p.algo,
            proto: p.proto,
            time_us: p.time_us,
            busbw_gbs: p.busbw_gbs,
            ring_simple_us: ring,
        });
    }
}

fn binding(prep: &timed::Prepared, fabric: &Fabric, t: &timed::Timing, time_us: f64, pi: usize) -> Binding {
    let eff = fabric::EFFICIENCY[pi];
    let link_time = |l: usize| t.link_bytes[l] / (eff * fabric.resources[l].bw_gbs * 1e3);
    let top = (0..t.link_bytes.len()).map(|l| (l, link_time(l))).max_by(|a, b| a.1.total_cmp(&b.1));
    let busiest_link = top.map_or(0.0, |(_, us)| us);
    if busiest_link.max(t.busiest_block_us) < 0.5 * time_us {
        return Binding::Chain;
    }
    // The busiest link (its bytes at its bandwidth) against the longest any one thread
    // block spent sending at its own rate: whichever takes longer holds the program up.
    // Summing the block-rate time over every block would weigh each block's slices
    // against one link's, and name the block rate wherever many blocks run.
    match top {
        Some((l, us)) if us >= t.block_rate_us => {
            let connections = prep
                .conns_on(l as u32)
                .into_iter()
                .map(|i| {
                    let c = prep.conn(i);
                    format!("{}->{} ch{}", c.from, c.to, c.chan)
                })
                .collect();
            Binding::Link { link: fabric.resources[l].name.clone(), bw_gbs: fabric.resources[l].bw_gbs, connections }
        }
        _ => {
            let r = prep.routes.iter().min_by(|a, b| a.cap_gbs[pi].total_cmp(&b.cap_gbs[pi]));
            Binding::BlockRate {
                gbs: r.map_or(0.0, |r| r.cap_gbs[pi]),
                route: r.map_or(String::new(), |r| r.ty.to_string()),
            }
        }
    }
}

/// A binding in words.
pub fn describe(b: &Binding) -> String {
    match b {
        Binding::Chain => {
            "the chain of dependent steps (latency, store-and-forward): no link or block busy half the time".into()
        }
        Binding::BlockRate { gbs, route } => {
            format!("one thread block's rate, {gbs:.1} GB/s on {route} (NCCL's ring bandwidth per channel)")
        }
        Binding::Link { link, bw_gbs, connections } => {
            let shown: Vec<&str> = connections.iter().take(4).map(String::as_str).collect();
            let more = connections.len().saturating_sub(4);
            let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!(
                "{link} ({bw_gbs:.1} GB/s) shared by {} connection{}: {}{tail}",
                connections.len(),
                if connections.len() == 1 { "" } else { "s" },
                shown.join(", ")
            )
        }
    }
}

/// Programs side by side: per size, the fastest; and the size ranges each one wins.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    pub programs: Vec<Costed>,
    /// Per row of the first program's sizes, the index of the fastest program.
    pub winners: Vec<Option<usize>>,
    /// (first bytes, last bytes, program index) for runs of sizes with the same winner.
    pub ranges: Vec<(u64, u64, usize)>,
}

/// Compare programs costed over the same sizes.
pub fn compare(programs: Vec<Costed>) -> Comparison {
    let sizes: Vec<u64> = programs.first().map(|c| c.rows.iter().map(|r| r.bytes).collect()).unwrap_or_default();
    let mut winners = Vec::with_capacity(sizes.len());
    for &b in &sizes {
        let mut best: Option<(usize, f64)> = None;
        for (i, c) in programs.iter().enumerate() {
            if let Some(r) = c.rows.iter().find(|r| r.bytes == b)
                && best.is_none_or(|(_, t)| r.time_us < t)
            {
                best = Some((i, r.time_us));
            }
        }
        winners.push(best.map(|(i, _)| i));
    }
    let mut ranges: Vec<(u64, u64, usize)> = Vec::new();
    for (&b, w) in sizes.iter().zip(&winners) {
        let Some(w) = *w else { continue };
        match ranges.last_mut() {
            Some(last) if last.2 == w => last.1 = b,
            _ => ranges.push((b, b, w)),
        }
    }
    Comparison { programs, winners, ranges }
}

#[cfg(test)]
mod tests;
