//! From the ordered instruction DAG to thread blocks: channels, thread blocks,
//! cross-thread-block dependencies, and the [`Program`]'s GPUs.
//!
//! - **Flows.** A send, the fused steps that forward what it sent, and the receive that
//!   ends the chain share one channel (one thread block forwards on the channel it
//!   received on). Each flow takes its phase's channel (the algorithm's hint, else 0),
//!   or the lowest channel above it that it has not been moved off.
//! - **Thread blocks**, per rank, in the global topological order: an instruction goes
//!   to the thread block that already owns its send connection or its receive
//!   connection on its channel (one thread block per connection and direction); one
//!   that owns one side and not the other takes the other side on; otherwise a new one.
//!   A local step goes to the thread block of its latest same-rank predecessor, or to
//!   the one whose last step is earliest.
//! - **Repairs.** Where a connection would be owned twice, or where a connection's
//!   receives would come in another order than its sends, the flow at fault moves to
//!   a higher channel and the assignment runs again.
//! - **Dependencies**: per instruction, the last predecessor in each other thread block,
//!   less those an earlier step of its own thread block already waits for; the first
//!   goes on the step, the others on `nop`s before it; targets get `hasdep`.

use std::collections::{BTreeMap, HashMap};

use petgraph::stable_graph::NodeIndex;

use super::super::program::{Buffer, Dep, Gpu, Slot, Step, StepKind, ThreadBlock};
use super::dag::Dag;

/// The limits the schedule must keep.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Channels a program may use (`chan` below this).
    pub channels: u32,
    /// Sending (and receiving) thread blocks a channel may hold.
    pub tbs_per_channel: u32,
}

/// One flow: the instructions one piece of data passes through, sender to receiver.
#[derive(Debug)]
struct Flow {
    base: u32,
    /// Channels it was moved off.
    excluded: Vec<u32>,
    chan: u32,
}

impl Flow {
    fn pick(&mut self) {
        let mut c = self.base;
        while self.excluded.contains(&c) {
            c += 1;
        }
        self.chan = c;
    }
}

#[derive(Debug, Clone)]
struct Tb {
    send: Option<u32>,
    recv: Option<u32>,
    inst: u32,
    chan: u32,
    ops: Vec<NodeIndex>,
    last_depth: u32,
}

/// Thread blocks of every rank, and where each instruction went.
struct Assignment {
    tbs: Vec<Vec<Tb>>,
    /// Instruction -> (its thread block, its index there).
    place: HashMap<NodeIndex, (usize, usize)>,
}

/// Why an assignment was given up: the flow to move.
struct Bump(usize);

/// The scheduled GPUs and the channel count.
pub struct Scheduled {
    pub gpus: Vec<Gpu>,
    pub nchannels: u32,
}

pub fn schedule(dag: &Dag, order: &[NodeIndex], ranks: u32, limits: Limits) -> Result<Scheduled, String> {
    let (mut flows, flow_of) = flows(dag, order);
    // Each repair moves one flow up one channel; bound the loop by what could happen.
    let max_rounds = 64 + flows.len() * limits.channels as usize;
    for _ in 0..max_rounds {
        let too_high = flows.iter().map(|f| f.chan).max().unwrap_or(0);
        if too_high >= limits.channels {
            return Err(format!(
                "the schedule needs more than {} channels (the runtime's limit); try fewer instances or channels",
                limits.channels
            ));
        }
        match assign(dag, order, ranks, &flows, &flow_of, limits) {
            Ok(a) => return Ok(emit(dag, a, ranks)),
            Err(Bump(f)) => {
                let fl = &mut flows[f];
                fl.excluded.push(fl.chan);
                fl.pick();
            }
        }
    }
    Err("the channel assignment did not settle".into())
}

/// The flows, and the flow of every communicating instruction.
fn flows(dag: &Dag, order: &[NodeIndex]) -> (Vec<Flow>, HashMap<NodeIndex, usize>) {
    let mut flows = Vec::new();
    let mut flow_of = HashMap::new();
    for &n in order {
        let i = &dag.g[n];
        if !i.sends() || i.receives() {
            continue;
        }
        let id = flows.len();
        let base = i.hint.unwrap_or(0);
        flows.push(Flow { base, excluded: Vec::new(), chan: base });
        let mut cur = n;
        loop {
            flow_of.insert(cur, id);
            if !dag.g[cur].sends() {
                break;
            }
            match dag.partner(cur) {
                Some(next) => cur = next,
                None => break,
            }
        }
    }
    (flows, flow_of)
}

/// One thread-block assignment with the flows' current channels.
fn assign(
    dag: &Dag,
    order: &[NodeIndex],
    ranks: u32,
    flows: &[Flow],
    flow_of: &HashMap<NodeIndex, usize>,
    limits: Limits,
) -> Result<Assignment, Bump> {
    let mut tbs: Vec<Vec<Tb>> = vec![Vec::new(); ranks as usize];
    let mut place: HashMap<NodeIndex, (usize, usize)> = HashMap::with_capacity(order.len());
    // (rank, instance, channel, peer) -> thread block, per direction.
    let mut send_owner: HashMap<(u32, u32, u32, u32), usize> = HashMap::new();
    let mut recv_owner: HashMap<(u32, u32, u32, u32), usize> = HashMap::new();
    // (rank, instance, channel) -> (sending, receiving) thread blocks.
    let mut per_chan: HashMap<(u32, u32, u32), (u32, u32)> = HashMap::new();
    for &n in order {
        let i = &dag.g[n];
        let rank = i.rank;
        let r = rank as usize;
        let t = match flow_of.get(&n) {
            None => local_tb(dag, n, &tbs[r], &place),
            Some(&f) => {
                let ch = flows[f].chan;
                let key = |p: u32| (rank, i.instance, ch, p);
                let ts = i.send_to.and_then(|p| send_owner.get(&key(p)).copied());
                let tr = i.recv_from.and_then(|p| recv_owner.get(&key(p)).copied());
                let found = match (i.send_to, i.recv_from, ts, tr) {
                    (_, _, Some(a), Some(b)) if a == b => Some(a),
                    (_, _, Some(_), Some(_)) => return Err(Bump(f)),
                    (Some(_), Some(_), Some(a), None) if tbs[r][a].recv.is_some() => return Err(Bump(f)),
                    (Some(_), Some(_), None, Some(b)) if tbs[r][b].send.is_some() => return Err(Bump(f)),
                    (_, _, Some(a), None) => Some(a),
                    (_, _, None, Some(b)) => Some(b),
                    _ => None,
                };
                let t = match found {
                    Some(t) => t,
                    None => {
                        tbs[r].push(Tb {
                            send: None,
                            recv: None,
                            inst: i.instance,
                            chan: ch,
                            ops: Vec::new(),
                            last_depth: 0,
                        });
                        tbs[r].len() - 1
                    }
                };
                let counts = per_chan.entry((rank, i.instance, ch)).or_default();
                if let Some(p) = i.send_to
                    && tbs[r][t].send.is_none()
                {
                    if counts.0 >= limits.tbs_per_channel {
                        return Err(Bump(f));
                    }
                    counts.0 += 1;
                    tbs[r][t].send = Some(p);
                    send_owner.insert(key(p), t);
                }
                if let Some(p) = i.recv_from
                    && tbs[r][t].recv.is_none()
                {
                    if counts.1 >= limits.tbs_per_channel {
                        return Err(Bump(f));
                    }
                    counts.1 += 1;
                    tbs[r][t].recv = Some(p);
                    recv_owner.insert(key(p), t);
                }
                Some(t)
            }
        };
        let t = match t {
            Some(t) => t,
            None => {
                let chan = i.hint.unwrap_or(0);
                tbs[r].push(Tb { send: None, recv: None, inst: i.instance, chan, ops: Vec::new(), last_depth: 0 });
                tbs[r].len() - 1
            }
        };
        let tb = &mut tbs[r][t];
        place.insert(n, (t, tb.ops.len()));
        tb.ops.push(n);
        tb.last_depth = i.depth;
    }
    // Every connection's receives in the order of its sends.
    for (r, list) in tbs.iter().enumerate() {
        for tb in list {
            let Some(peer) = tb.send else { continue };
            let sent: Vec<NodeIndex> =
                tb.ops.iter().filter(|&&o| dag.g[o].sends()).filter_map(|&o| dag.partner(o)).collect();
            let Some(&first) = sent.first() else { continue };
            let (rt, _) = place[&first];
            let got: Vec<NodeIndex> =
                tbs[peer as usize][rt].ops.iter().copied().filter(|&o| dag.g[o].recv_from == Some(r as u32)).collect();
            if let Some(k) = (0..sent.len()).find(|&k| got.get(k) != Some(&sent[k])) {
                let culprit = got.get(k).copied().unwrap_or(sent[k]);
                return Err(Bump(flow_of[&culprit]));
            }
        }
    }
    Ok(Assignment { tbs, place })
}

/// Where a local step goes: among the thread blocks of its instance on its phase's
/// channel, its latest same-rank predecessor's, else the one whose last step is
/// earliest (`None`: none there yet).
fn local_tb(dag: &Dag, n: NodeIndex, tbs: &[Tb], place: &HashMap<NodeIndex, (usize, usize)>) -> Option<usize> {
    let i = &dag.g[n];
    let fits = |t: &Tb| t.inst == i.instance && i.hint.is_none_or(|h| t.chan == h);
    let latest = dag
        .local_preds(n)
        .into_iter()
        .filter_map(|p| place.get(&p).map(|&(t, _)| (dag.g[p].depth, t)))
        .filter(|&(_, t)| fits(&tbs[t]))
        .max();
    if let Some((_, t)) = latest {
        return Some(t);
    }
    tbs.iter().enumerate().filter(|(_, t)| fits(t)).min_by_key(|(i, t)| (t.last_depth, *i)).map(|(i, _)| i)
}

/// Thread-block ids, channels, dependencies, nops and step numbers.
fn emit(dag: &Dag, a: Assignment, ranks: u32) -> Scheduled {
    let width = a.tbs.iter().flatten().map(|t| t.chan + 1).max().unwrap_or(1);
    let mut nchannels = 0;
    let mut gpus = Vec::with_capacity(ranks as usize);
    for (r, list) in a.tbs.iter().enumerate() {
        // Ids by (channel, send peer, receive peer), as the runtime lists connections.
        let chan = |t: &Tb| t.inst * width + t.chan;
        let mut ids: Vec<usize> = (0..list.len()).collect();
        let peer = |p: Option<u32>| p.map_or(-1, i64::from);
        ids.sort_by_key(|&t| (chan(&list[t]), peer(list[t].send), peer(list[t].recv), t));
        let mut id_of = vec![0u32; list.len()];
        for (new, &old) in ids.iter().enumerate() {
            id_of[old] = new as u32;
        }
        // Dependencies per instruction, as (thread block, op index) of the old numbering.
        let mut deps: Vec<Vec<Vec<(usize, usize)>>> = Vec::with_capacity(list.len());
        let mut targets: Vec<Vec<bool>> = list.iter().map(|t| vec![false; t.ops.len()]).collect();
        for (t, tb) in list.iter().enumerate() {
            let mut waited: HashMap<usize, usize> = HashMap::new();
            let mut per_op = Vec::with_capacity(tb.ops.len());
            for &n in &tb.ops {
                let mut latest: BTreeMap<usize, usize> = BTreeMap::new();
                for p in dag.local_preds(n) {
                    let (pt, pi) = a.place[&p];
                    if pt != t {
                        let e = latest.entry(pt).or_insert(pi);
                        *e = (*e).max(pi);
                    }
                }
                let mut keep = Vec::new();
                for (pt, pi) in latest {
                    if waited.get(&pt).is_some_and(|&w| w >= pi) {
                        continue;
                    }
                    waited.insert(pt, pi);
                    targets[pt][pi] = true;
                    keep.push((pt, pi));
                }
                keep.sort_by_key(|&(pt, pi)| (id_of[pt], pi));
                per_op.push(keep);
            }
            deps.push(per_op);
        }
        // Runtime step numbers: every op after the nops that carry its extra dependencies.
        let mut pos: Vec<Vec<u32>> = Vec::with_capacity(list.len());
        for d in &deps {
            let mut p = 0u32;
            let mut v = Vec::with_capacity(d.len());
            for ds in d {
                p += ds.len().saturating_sub(1) as u32;
                v.push(p);
                p += 1;
            }
            pos.push(v);
        }
        let dep_of = |(pt, pi): (usize, usize)| Dep { tb: id_of[pt], step: pos[pt][pi] };
        let mut out: Vec<ThreadBlock> = Vec::with_capacity(list.len());
        for &t in &ids {
            let tb = &list[t];
            let mut steps = Vec::new();
            for (k, &n) in tb.ops.iter().enumerate() {
                let ds = &deps[t][k];
                for &extra in ds.iter().skip(1) {
                    steps.push(Step {
                        s: steps.len() as u32,
                        kind: StepKind::Nop,
                        src: Slot { buf: Buffer::Input, off: None },
                        dst: Slot { buf: Buffer::Output, off: None },
                        count: 0,
                        dep: Some(dep_of(extra)),
                        has_dep: false,
                        line: 0,
                    });
                }
                let i = &dag.g[n];
                steps.push(Step {
                    s: steps.len() as u32,
                    kind: i.kind,
                    src: i.src,
                    dst: i.dst,
                    count: i.count,
                    dep: ds.first().map(|&d| dep_of(d)),
                    has_dep: targets[t][k],
                    line: 0,
                });
            }
            nchannels = nchannels.max(chan(tb) + 1);
            out.push(ThreadBlock { id: id_of[t], send: tb.send, recv: tb.recv, chan: chan(tb), steps, line: 0 });
        }
        gpus.push(Gpu { id: r as u32, input_chunks: 0, output_chunks: 0, scratch_chunks: 0, tbs: out, line: 0 });
    }
    compact_scratch(&mut gpus);
    Scheduled { gpus, nchannels }
}

/// Number each rank's scratch chunks densely in order (chunks the algorithm named but
/// no step touches take no room), and size its scratch buffer.
fn compact_scratch(gpus: &mut [Gpu]) {
    for g in gpus {
        let mut used: Vec<u32> = Vec::new();
        for t in &g.tbs {
            for s in &t.steps {
                for slot in [s.src, s.dst] {
                    if let (Buffer::Scratch, Some(o)) = (slot.buf, slot.off) {
                        used.extend(o..o + s.count.max(1));
                    }
                }
            }
        }
        used.sort_unstable();
        used.dedup();
        let map: HashMap<u32, u32> = used.iter().enumerate().map(|(i, &o)| (o, i as u32)).collect();
        for t in &mut g.tbs {
            for s in &mut t.steps {
                for slot in [&mut s.src, &mut s.dst] {
                    if let (Buffer::Scratch, Some(o)) = (slot.buf, slot.off) {
                        slot.off = Some(map[&o]);
                    }
                }
            }
        }
        g.scratch_chunks = used.len() as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::program::Collective;
    use super::super::dag::{self, Tracer};
    use super::super::layout::Layout;
    use super::*;

    fn mesh(n: u32, limits: Limits) -> Result<Scheduled, String> {
        let l = Layout { coll: Collective::AllGather, ranks: n, per: 1, instances: 1 };
        let mut t = Tracer::new(&l, true);
        super::super::mesh::trace(&mut t, Collective::AllGather, n, 0);
        let mut d = t.dag;
        dag::fuse(&mut d);
        dag::complete(&mut d)?;
        let o = dag::order(&d);
        schedule(&d, &o, n, limits)
    }

    #[test]
    fn a_full_channel_moves_flows_to_the_next() {
        let s = mesh(4, Limits { channels: 32, tbs_per_channel: 1 }).unwrap();
        assert_eq!(s.nchannels, 3);
        for g in &s.gpus {
            for c in 0..3 {
                let senders = g.tbs.iter().filter(|t| t.chan == c && t.send.is_some()).count();
                assert!(senders <= 1, "gpu {} channel {c}: {senders}", g.id);
            }
        }
        let e = mesh(4, Limits { channels: 2, tbs_per_channel: 1 }).err().unwrap();
        assert!(e.contains("more than 2 channels"), "{e}");
    }

    #[test]
    fn dependencies_point_at_published_steps() {
        let s = mesh(4, Limits { channels: 32, tbs_per_channel: 32 }).unwrap();
        for g in &s.gpus {
            for t in &g.tbs {
                for st in &t.steps {
                    if let Some(d) = st.dep {
                        let target = &g.tbs[d.tb as usize].steps[d.step as usize];
                        assert!(target.has_dep && target.kind != StepKind::Nop);
                    }
                }
            }
        }
    }
}
