//! A log held against topo's model (`topo log --model`): the machine of the log (its
//! system print rebuilt, or a topology file given), the log's NCCL release, its
//! NCCL_* settings and its node count go through topo's model and search, and every
//! fact the log states that the model also decides is compared: paths, graphs, rings,
//! trees, channel counts, transports. Each difference comes with its likely cause.
//!
//! [`unusual`] lists what stands out in the log itself, with or without a model.

mod mnnvl;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::facts::{GraphPrint, LogFacts, SystemPrint, TreeSource};
use crate::env::Env;
use crate::error::Error;
use crate::model::{self, Analysis, Options};
use crate::release::Release;
use crate::search::{self, Graph, Graphs, SearchOptions, channels};
use crate::types::Transport;
use crate::xml::Xml;

/// How sure a finding is, and how much it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
}

/// One difference between the log and the model, or one unusual fact of the log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// A stable name: `graph`, `ring`, `tree`, `channels`, `path`, `transport`,
    /// `shm_between_nvlink_gpus`, `gdr_disabled`, `ring_orders_differ`, ...
    pub kind: String,
    pub severity: Severity,
    pub ranks: Vec<i64>,
    pub channel: Option<u32>,
    /// What the log says.
    pub log: String,
    /// What the model says (empty for findings of the log alone).
    pub model: String,
    /// The likely cause, in words.
    pub cause: String,
}

/// The machine the model runs on.
#[derive(Debug, Clone)]
pub enum Machine {
    /// A topology file (`--topo`), already read.
    File { xml: Xml, label: String },
    /// The log's own system print, rebuilt.
    Print,
}

/// What to hold the log against.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    pub release: Release,
    pub machine: Machine,
}

/// The comparison's result.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The release modelled.
    pub release: String,
    /// Where the machine came from.
    pub machine: String,
    pub nodes: usize,
    /// The NCCL_* settings of the log given to the model.
    pub env: Vec<(String, String)>,
    /// P2P between the GPUs as the driver reports it (false when the log's SHM
    /// connections show the driver refused it).
    pub p2p_support: bool,
    /// Facts compared, by kind.
    pub checked: BTreeMap<String, usize>,
    pub findings: Vec<Finding>,
    /// What the rebuilt machine had to assume (empty with `--topo`).
    pub assumed: Vec<String>,
    /// nccl-tests' measurements against the model's predictions.
    pub perf: Vec<super::perf_model::PerfComparison>,
}

/// Why the model cannot run on the log's own system print: there is none, or it
/// holds part of the machine only.
pub fn no_machine_reason(facts: &LogFacts) -> Option<String> {
    match chosen_print(facts) {
        None => Some(
            "the log has no system print (NCCL_DEBUG_SUBSYS must include GRAPH): give the machine with --topo FILE"
                .into(),
        ),
        Some(p) => partial_print(facts, p).map(|why| format!("{why}: give the machine with --topo FILE")),
    }
}

/// A system print that holds fewer GPUs than its host runs (an excerpt pasted into
/// an issue, or a cut log): what shows it.
pub fn partial_print(facts: &LogFacts, print: &SystemPrint) -> Option<String> {
    let shown = print.nodes.iter().filter(|n| n.kind == "GPU").count();
    let host = print.host.as_deref();
    let same_host = |h: Option<&str>| host.is_none() || h.is_none() || h == host;
    let primary = facts.primary();
    let mut seen: Vec<(usize, String)> = Vec::new();
    if let Some(n) = primary.and_then(|c| facts.comms.get(c)).and_then(|c| c.local_ranks) {
        seen.push((n as usize, "its communicator's localRanks".into()));
    }
    let ranks_here: BTreeSet<u32> = facts
        .ranks
        .iter()
        .filter(|r| Some(r.comm) == primary && same_host(r.host.as_deref()) && host.is_some())
        .map(|r| r.rank)
        .collect();
    seen.push((ranks_here.len(), "the ranks of its host".into()));
    let graph_gpus: BTreeSet<i64> = facts
        .graphs
        .iter()
        .filter(|g| g.host.as_deref() == host)
        .flat_map(|g| g.channels.iter().flat_map(|c| c.gpus.iter().copied()))
        .collect();
    seen.push((graph_gpus.len(), "the GPUs its graphs name".into()));
    // The path rows name every GPU of the host, from each GPU's row.
    let norm = |s: &str| s.to_ascii_lowercase().replace("/0-", "/");
    let path_gpus: BTreeSet<String> = print
        .paths
        .iter()
        .flat_map(|p| [&p.from, &p.to])
        .filter(|id| id.starts_with("GPU/"))
        .map(|id| norm(id))
        .collect();
    seen.push((path_gpus.len(), "the GPUs its path rows name".into()));
    let (most, what) = seen.into_iter().max_by_key(|(n, _)| *n)?;
    (most > shown).then(|| {
        let on = host.map(|h| format!(" of {h}")).unwrap_or_default();
        format!(
            "the system print{on} shows {shown} GPU{}, {what} {most}: it is an excerpt or a cut log, not the whole \
             machine",
            if shown == 1 { "" } else { "s" }
        )
    })
}

/// The system print the model starts from: that of the primary communicator's rank 0
/// host when printed, else the first.
pub fn chosen_print(facts: &LogFacts) -> Option<&SystemPrint> {
    let primary = facts.primary();
    let host0 = facts.ranks.iter().find(|r| Some(r.comm) == primary && r.rank == 0).and_then(|r| r.host.clone());
    let with_gpu = |s: &&SystemPrint| s.nodes.iter().any(|n| n.kind == "GPU");
    facts
        .systems
        .iter()
        .filter(with_gpu)
        .find(|s| host0.is_some() && s.host == host0)
        .or_else(|| facts.systems.iter().find(with_gpu))
}

/// Hold the log against the model.
pub fn compare(facts: &LogFacts, opts: &CompareOptions) -> Result<Comparison, Error> {
    let primary = facts.primary();
    let (xml, machine, assumed, print) = match &opts.machine {
        Machine::File { xml, label } => (xml.clone(), label.clone(), Vec::new(), chosen_print(facts)),
        Machine::Print => {
            let print = chosen_print(facts).ok_or_else(|| Error::Input {
                file: "log".into(),
                message: no_machine_reason(facts).unwrap_or_else(|| "no system print".into()),
            })?;
            let r = super::rebuild::topology(facts, print, opts.release)?;
            let who = match (&print.host, print.rank) {
                (Some(h), Some(r)) => format!("rebuilt from the system print of rank {r} on {h}"),
                (Some(h), None) => format!("rebuilt from the system print of {h}"),
                _ => "rebuilt from the log's system print".to_string(),
            };
            (r.xml, who, r.assumed, Some(print))
        }
    };
    let comm = primary.and_then(|c| facts.comms.get(c));
    // Nodes: NCCL's nNodes when printed; else the ranks over the GPUs of one printed
    // machine (a log often holds one host's lines only), at least the hosts seen.
    let print_gpus = print.map_or(0, |p| p.nodes.iter().filter(|n| n.kind == "GPU").count() as u32);
    let nodes = match comm {
        Some(c) if c.nnodes_source.as_deref() == Some("log") => c.nnodes.unwrap_or(1),
        Some(c) => {
            let by_ranks =
                if print_gpus > 0 && c.nranks.is_multiple_of(print_gpus) { c.nranks / print_gpus } else { 1 };
            by_ranks.max(c.nnodes.unwrap_or(1))
        }
        // No communicator lines: the ranks the rings and trees name.
        None => {
            let most = facts
                .ring_links
                .iter()
                .flat_map(|l| [l.rank as i64, l.prev, l.next])
                .chain(facts.trees.iter().flat_map(|t| [t.rank as i64, t.up]))
                .chain(facts.rings.iter().flat_map(|r| r.order.iter().copied()))
                // nccl-tests' own count of ranks, when that is all the log has.
                .chain(facts.perf.iter().filter_map(|t| t.ranks).map(|n| n as i64 - 1))
                .max()
                .unwrap_or(0) as u32
                + 1;
            let by_ranks = if print_gpus > 0 && most.is_multiple_of(print_gpus) { most / print_gpus } else { 1 };
            // Graphs that go through NETs are those of a job of several nodes: the
            // hosts that printed lines are its nodes (a log of several single-node
            // runs prints none).
            let through_nets = facts.graphs.iter().any(|g| g.channels.iter().any(|c| c.net_in.is_some()));
            if through_nets { by_ranks.max(facts.hosts.len().max(2) as u32) } else { by_ranks }
        }
    }
    .max(1) as usize;
    // Multi-node NVLink: on a tray's topology, the model fuses the log's trays (one
    // NCCL node) from the log's fabric registrations; a fused print cannot be split.
    let from_file = matches!(opts.machine, Machine::File { .. });
    let log_mnnvl = mnnvl::of_log(facts, comm);
    let fuse = log_mnnvl.as_ref().filter(|_| from_file);
    let nodes = match fuse.filter(|l| l.on).and_then(|_| mnnvl::trays(comm, &xml)) {
        Some(trays) => trays,
        None => nodes,
    };
    // NCCL_MNNVL_CLIQUE_ID=-2: each rack serial is a clique; equal racks are modelled
    // as that many cliques, their trays in one NVLink domain when one cluster UUID shows.
    let (cliques, one_domain) = mnnvl::cliques_of_log(facts, fuse.is_some_and(|l| l.on), nodes);
    let env_pairs = facts.nccl_settings();
    let env = Env::for_release(opts.release, env_pairs.clone());

    let run_model = |p2p_support: bool| -> Result<(Analysis, Graphs, channels::Run), Error> {
        let mopts = Options {
            nodes,
            p2p_support,
            env: env.clone(),
            mnnvl: fuse.is_some(),
            mnnvl_cliques: cliques,
            mnnvl_one_domain: one_domain,
            fabric: fuse.and_then(|l| l.fabric.clone()),
            ..Options::default()
        };
        let an = model::analyze(&xml, &machine, &mopts)?;
        let (gs, _) = search::run(&an, &SearchOptions::from_analysis(&an))?;
        let run = channels::for_analysis(&an, &gs)?;
        Ok((an, gs, run))
    };
    let ctx = Ctx { facts, release: opts.release, log_release: log_release(facts) };
    let evaluate = |p2p_support: bool| -> Result<Comparison, Error> {
        let (an, gs, run) = run_model(p2p_support)?;
        let mut c = Comparison {
            release: opts.release.to_string(),
            machine: machine.clone(),
            nodes,
            env: env_pairs.clone(),
            p2p_support,
            checked: BTreeMap::new(),
            findings: Vec::new(),
            assumed: assumed.clone(),
            perf: super::perf_model::against(&facts.perf, &an, &gs),
        };
        if let Some(print) = print {
            compare_paths(&ctx, print, &an, &mut c);
        }
        compare_graphs(&ctx, primary, print.and_then(|p| p.host.as_deref()), &gs, &mut c);
        compare_channels(&ctx, primary, &run, &mut c);
        compare_transports(&ctx, primary, &an, &mut c);
        compare_tuning(&ctx, &an, &gs, &mut c);
        match (&log_mnnvl, from_file) {
            (Some(l), true) => mnnvl::compare(&ctx, primary, l, &an, &run, &mut c),
            (Some(l), false) if l.on => c.findings.push(mnnvl::print_finding()),
            _ => {}
        }
        Ok(c)
    };
    let differences = |c: &Comparison| c.findings.iter().filter(|f| f.severity == Severity::Warning).count();
    let mut c = evaluate(true)?;
    // GeForce cards and some VMs have no P2P: NCCL then sends between local GPUs through
    // the CPU (PHB paths, SHM connections). When the log fits that better, say so.
    if differences(&c) > 0
        && let Ok(alt) = evaluate(false)
        && differences(&alt) < differences(&c)
    {
        c = alt;
        c.findings.insert(
            0,
            Finding {
                kind: "p2p_not_supported".into(),
                severity: Severity::Info,
                ranks: Vec::new(),
                channel: None,
                log: "local GPUs talk through the CPU (PHB paths, SHM connections)".into(),
                model: "P2P where the driver allows it".into(),
                cause: "the driver reports no P2P between these GPUs (GeForce cards, or P2P off in a VM or the BIOS); topo modelled that (--no-p2p-support)".into(),
            },
        );
    }
    Ok(c)
}

struct Ctx<'a> {
    facts: &'a LogFacts,
    release: Release,
    log_release: Option<Release>,
}

impl Ctx<'_> {
    /// The usual cause of a difference, given what is known about the run.
    fn cause(&self, specific: &str) -> String {
        let mut parts = Vec::new();
        if !specific.is_empty() {
            parts.push(specific.to_string());
        }
        match (self.log_release, log_release_text(self.facts)) {
            (Some(r), _) if r == self.release => {}
            (_, Some(t)) if older_than_modelled(self.facts) => parts.push(format!(
                "the log is {t}, older than every release topo models ({} and later): NCCL searched and \
                 tuned differently then; the model ran NCCL {}",
                crate::release::RELEASES[0],
                self.release
            )),
            (Some(_), Some(t)) => parts.push(format!("the model ran NCCL {}, the log is {t}", self.release)),
            (None, Some(t)) => parts.push(format!(
                "the log does not print its version (its formats fit {t}); the model ran NCCL {} (--nccl-version to choose)",
                self.release
            )),
            _ => parts.push(format!("the log's release is unknown; the model ran NCCL {}", self.release)),
        }
        if self.facts.env.is_empty() {
            parts.push("NCCL_* settings not printed in the log are not known to the model".into());
        }
        if parts.is_empty() {
            "topo and NCCL decide differently here: a bug in topo until shown otherwise (please report it)".into()
        } else {
            parts.join("; ")
        }
    }
}

/// The log's release when it says it exactly (a version line or nccl-tests' header).
fn log_release(facts: &LogFacts) -> Option<Release> {
    let v = facts.nccl_version.as_ref()?;
    if v.source == super::facts::VersionSource::Formats {
        return None;
    }
    Release::parse(&v.value).ok()
}

/// Whether the newest release the log can be is older than the oldest topo models.
fn older_than_modelled(facts: &LogFacts) -> bool {
    let Some(v) = facts.nccl_version.as_ref() else { return false };
    let newest = match &v.range {
        Some((_, b)) if v.source == super::facts::VersionSource::Formats => b.as_str(),
        _ => v.value.as_str(),
    };
    let key = |s: &str| -> Option<(u32, u32, u32)> {
        let mut it = s.split('.').map(|x| x.parse::<u32>().ok());
        Some((it.next()??, it.next()??, it.next()??))
    };
    let oldest = crate::release::RELEASES[0];
    match key(newest) {
        Some(k) => k < (oldest.major as u32, oldest.minor as u32, oldest.patch as u32),
        None => false,
    }
}

/// How the log's release reads in a cause: `NCCL 2.23.4`, or `NCCL 2.14.3 to 2.20.5`.
fn log_release_text(facts: &LogFacts) -> Option<String> {
    let v = facts.nccl_version.as_ref()?;
    Some(match &v.range {
        Some((a, b)) if v.source == super::facts::VersionSource::Formats && a != b => format!("NCCL {a} to {b}"),
        _ => format!("NCCL {}", v.value),
    })
}

/// topo's transport between each pair of local ranks (None when not local).
fn model_transports(an: &Analysis, pairs: &BTreeSet<(i64, i64)>) -> Vec<Option<Transport>> {
    pairs
        .iter()
        .map(|&(a, b)| {
            let local = |r: i64| (r as usize) % an.n_ranks.max(1);
            let (a, b) = (local(a) as i32, local(b) as i32);
            an.p2p.iter().find(|p| p.from == a && p.to == b).map(|p| p.transport)
        })
        .collect()
}

fn tally(c: &mut Comparison, kind: &str, n: usize) {
    *c.checked.entry(kind.to_string()).or_default() += n;
}

/// Path lines (GPU to GPU) against topo's paths.
fn compare_paths(ctx: &Ctx, print: &SystemPrint, an: &Analysis, c: &mut Comparison) {
    let rank_of: BTreeMap<&str, i64> =
        print.nodes.iter().filter(|n| n.kind == "GPU").filter_map(|n| n.rank.map(|r| (n.id.as_str(), r))).collect();
    // Printed ids may differ in case and system-id form between head and entries.
    let norm = |s: &str| s.to_ascii_lowercase().replace("/0-", "/");
    let rank_of_norm: BTreeMap<String, i64> = rank_of.iter().map(|(k, &v)| (norm(k), v)).collect();
    let mut n = 0;
    for p in &print.paths {
        let (Some(&a), Some(&b)) = (rank_of_norm.get(&norm(&p.from)), rank_of_norm.get(&norm(&p.to))) else {
            continue;
        };
        if a == b {
            continue;
        }
        let Some(ours) = an.paths.gpu_gpu.iter().find(|r| r.from == Some(a as i32) && r.to == Some(b as i32)) else {
            continue;
        };
        n += 1;
        let same_type = ours.ty.name() == p.kind;
        let same_bw = (ours.bw as f64 - p.bw).abs() <= 0.051 + 1e-6 * p.bw.abs();
        if !same_type || !same_bw {
            c.findings.push(Finding {
                kind: "path".into(),
                severity: Severity::Warning,
                ranks: vec![a, b],
                channel: None,
                log: format!("{} -> {}: {} {:.1} GB/s, {} hops", p.from, p.to, p.kind, p.bw, p.hops),
                model: format!("{} {:.1} GB/s, {} hops", ours.ty.name(), ours.bw, ours.hops),
                cause: ctx.cause(if c.assumed.is_empty() {
                    ""
                } else {
                    "the machine was rebuilt from the print (PCIe widths and GPU generations are guessed)"
                }),
            });
        }
    }
    tally(c, "path", n);
}

/// The graphs NCCL prints, in the order init computes them.
fn printed_graphs(gs: &Graphs) -> Vec<&Graph> {
    [&gs.ring, &gs.tree, &gs.collnet_chain, &gs.collnet_direct, &gs.nvls].into_iter().filter(|g| g.computed).collect()
}

fn graph_fields(g: &GraphPrint) -> String {
    format!(
        "Pattern {}, crossNic {}, nChannels {}, bw {:.6}/{:.6}, type {}/{}, sameChannels {}",
        g.pattern, g.crossnic, g.nchannels, g.bw_intra, g.bw_inter, g.type_intra, g.type_inter, g.same_channels
    )
}

fn compare_graphs(ctx: &Ctx, comm: Option<usize>, host: Option<&str>, gs: &Graphs, c: &mut Comparison) {
    // One printing rank is enough: ranks of one node print the same graphs. That of
    // the machine's host when it printed some, and one process of it.
    // (not the machine's host, host, rank)
    type Printer<'a> = (bool, Option<&'a str>, Option<u32>);
    let mut by_rank: BTreeMap<Printer, Vec<&GraphPrint>> = BTreeMap::new();
    for g in ctx.facts.graphs.iter().filter(|g| g.comm.is_none() || g.comm == comm) {
        let other_host = host.is_some() && g.host.as_deref() != host;
        by_rank.entry((other_host, g.host.as_deref(), g.rank)).or_default().push(g);
    }
    let Some((&(_, _, rank), logged)) = by_rank.iter().next() else { return };
    // Several processes of a host without ranks known: the graphs of one init.
    let first_index_again = logged.iter().skip(1).position(|g| g.index <= logged[0].index).map(|i| i + 1);
    let logged = &logged[..first_index_again.unwrap_or(logged.len())];
    let ours = printed_graphs(gs);
    let mut n = 0;
    // Which of topo's graphs each logged one is: by pattern (4 ring, 5 NVLS, 6 CollNet
    // direct, 1 and 2 tree, 3 the tree when none came yet, else the CollNet chain).
    let mut tree_seen = false;
    let pick = |g: &GraphPrint, tree_seen: &mut bool| -> Option<&Graph> {
        let want = match g.pattern {
            4 => &gs.ring,
            5 => &gs.nvls,
            6 => &gs.collnet_direct,
            1 | 2 => {
                *tree_seen = true;
                &gs.tree
            }
            3 if !*tree_seen => {
                *tree_seen = true;
                &gs.tree
            }
            3 => &gs.collnet_chain,
            _ => return None,
        };
        want.computed.then_some(want)
    };
    for g in logged.iter() {
        let Some(o) = pick(g, &mut tree_seen) else {
            let i = g.index;
            c.findings.push(Finding {
                kind: "graph".into(),
                severity: Severity::Warning,
                ranks: rank.map(|r| vec![r as i64]).unwrap_or_default(),
                channel: None,
                log: graph_fields(g),
                model: format!("no such graph (topo computes {}; this was graph {i} of the rank)", ours.len()),
                cause: ctx.cause("CollNet or NVLS enabled in the job but not in the model"),
            });
            continue;
        };
        n += 1;
        let mine = o.summary();
        if graph_fields(g) != mine {
            c.findings.push(Finding {
                kind: "graph".into(),
                severity: Severity::Warning,
                ranks: rank.map(|r| vec![r as i64]).unwrap_or_default(),
                channel: None,
                log: format!("{} graph: {}", o.name(), graph_fields(g)),
                model: mine,
                cause: ctx.cause(""),
            });
            continue;
        }
        // Channel lines: the GPUs in order.
        let ngpus = o.intra.len() / search::MAXCHANNELS;
        for ch in &g.channels {
            let k = ch.channel as usize;
            if k >= o.n_channels as usize || ngpus == 0 || ch.gpus.is_empty() {
                continue;
            }
            n += 1;
            let ours: Vec<i64> = o.intra[k * ngpus..(k + 1) * ngpus].iter().map(|&r| r as i64).collect();
            let logged_gpus: Vec<i64> = ch.gpus.clone();
            let cmp_len = logged_gpus.len().min(ours.len());
            if logged_gpus[..cmp_len] != ours[..cmp_len] {
                c.findings.push(Finding {
                    kind: "graph_channel".into(),
                    severity: Severity::Warning,
                    ranks: rank.map(|r| vec![r as i64]).unwrap_or_default(),
                    channel: Some(ch.channel),
                    log: format!("{} channel {}: GPUs {:?}", o.name(), ch.channel, logged_gpus),
                    model: format!("GPUs {:?}", &ours[..cmp_len]),
                    cause: ctx.cause(""),
                });
            }
        }
    }
    tally(c, "graph", n);
}

fn compare_channels(ctx: &Ctx, comm: Option<usize>, run: &channels::Run, c: &mut Comparison) {
    let f = ctx.facts;
    let in_comm = |x: Option<usize>| x.is_none() || x == comm;
    let mut n = 0;
    for l in f.ring_links.iter().filter(|l| in_comm(l.comm)) {
        let (rank, ch) = (l.rank as usize, l.channel as usize);
        n += 1;
        let model = if rank >= run.n_ranks || ch >= run.n_channels {
            format!("{} channels of {} ranks", run.n_channels, run.n_ranks)
        } else {
            let ours = (run.ring_prev(ch, rank) as i64, run.ring_next(ch, rank) as i64);
            if ours == (l.prev, l.next) {
                continue;
            }
            format!("{} -> {} -> {}", ours.0, l.rank, ours.1)
        };
        c.findings.push(Finding {
            kind: "ring".into(),
            severity: Severity::Warning,
            ranks: vec![l.rank as i64],
            channel: Some(l.channel),
            log: format!("Ring {:02} : {} -> {} -> {}", l.channel, l.prev, l.rank, l.next),
            model,
            cause: ctx.cause(""),
        });
    }
    for t in f.trees.iter().filter(|t| in_comm(t.comm) && t.source == TreeSource::Trees) {
        let (rank, ch) = (t.rank as usize, t.channel as usize);
        if rank >= run.n_ranks || ch >= run.n_channels {
            continue;
        }
        n += 1;
        let down = run.tree_down(ch, rank).map(|d| d as i64);
        let up = run.tree_up(ch, rank) as i64;
        if down != t.down || up != t.up {
            c.findings.push(Finding {
                kind: "tree".into(),
                severity: Severity::Warning,
                ranks: vec![t.rank as i64],
                channel: Some(t.channel),
                log: format!("[{}] {}/{}/{}->{}->{}", t.channel, t.down[0], t.down[1], t.down[2], t.rank, t.up),
                model: format!("{}/{}/{}->{}->{}", down[0], down[1], down[2], t.rank, up),
                cause: ctx.cause(""),
            });
        }
    }
    // The channel count: from the ring orders' `NN/MM`, and from the counts line.
    let model = format!("{} channels", run.n_channels);
    let from_rings = f.rings.iter().filter(|r| in_comm(r.comm)).map(|r| {
        let log = format!("{} channels (Channel {:02}/{:02})", r.nchannels, r.channel, r.nchannels);
        (
            r.nchannels,
            r.rank,
            Some(r.channel),
            log,
            "NCCL_MIN_NCHANNELS/NCCL_MAX_NCHANNELS or a CollNet/NVLS channel count not in the log",
        )
    });
    let from_counts = f
        .channel_counts
        .iter()
        .filter(|x| in_comm(x.comm))
        .map(|cc| (cc.coll, cc.rank, None, format!("{} coll channels", cc.coll), ""));
    // Each ring order line is compared (up to the first that differs), the counts
    // line once.
    for (counts, most) in
        [(Box::new(from_rings) as Box<dyn Iterator<Item = _>>, usize::MAX), (Box::new(from_counts), 1)]
    {
        let differing = counts.take(most).inspect(|_| n += 1).find(|x| x.0 as usize != run.n_channels);
        if let Some((_, rank, channel, log, why)) = differing {
            c.findings.push(Finding {
                kind: "channels".into(),
                severity: Severity::Warning,
                ranks: rank.map(|x| vec![x as i64]).unwrap_or_default(),
                channel,
                log,
                model: model.clone(),
                cause: ctx.cause(why),
            });
        }
    }
    tally(c, "ring_tree", n);
}

/// Rank 0's tuning table (latency and algorithm bandwidth per collective, algorithm
/// and protocol) against the model's, to the precision NCCL prints (`%.1f`): one
/// finding per algorithm and protocol that differs.
fn compare_tuning(ctx: &Ctx, an: &Analysis, gs: &Graphs, c: &mut Comparison) {
    use crate::tune::{Algo, Func, Proto};
    let Some(t) = &ctx.facts.tuning else { return };
    let Ok(m) = crate::tune::Model::new(an, gs) else { return };
    // Before 2.14 the one CollNet column is CollNet Direct.
    let algo = |name: &str| match name {
        "CollNet" => Some(Algo::CollNetDirect),
        _ => Algo::ALL.into_iter().find(|a| a.name() == name),
    };
    let func = |name: &str| Func::ALL.into_iter().find(|f| f.name() == name);
    let proto = |name: &str| Proto::ALL.into_iter().find(|p| p.name() == name);
    let close = |a: f64, b: f64| (a - b).abs() <= 0.05 + 1e-6 * b.abs().max(1.0);
    let mut n = 0;
    let mut differ: BTreeMap<(usize, usize), (Vec<String>, Vec<String>)> = BTreeMap::new();
    for row in &t.rows {
        let (Some(f), Some(a), Some(p)) = (func(&row.func), algo(&row.algo), proto(&row.proto)) else { continue };
        n += 1;
        let lat = f64::from(m.table.latency[(f, a, p)]);
        let bw = f64::from(m.table.bandwidth[(f, a, p)]);
        if !close(lat, row.latency) || !close(bw, row.bw) {
            let e = differ.entry((a as usize, p as usize)).or_default();
            e.0.push(format!("{} {:.1}/{:.1}", f.name(), row.latency, row.bw));
            e.1.push(format!("{} {lat:.1}/{bw:.1}", f.name()));
        }
    }
    for ((a, p), (log, model)) in differ {
        c.findings.push(Finding {
            kind: "tuning".into(),
            severity: Severity::Warning,
            ranks: t.rank.map(|r| vec![i64::from(r)]).unwrap_or_default(),
            channel: None,
            log: format!(
                "{}/{} latency us/bandwidth GB/s: {}",
                Algo::ALL[a].name(),
                Proto::ALL[p].name(),
                log.join(", ")
            ),
            model: model.join(", "),
            cause: ctx.cause(""),
        });
    }
    tally(c, "tuning", n);
}

fn compare_transports(ctx: &Ctx, comm: Option<usize>, an: &Analysis, c: &mut Comparison) {
    let mut n = 0;
    let mut seen = BTreeSet::new();
    for x in ctx.facts.connections.iter().filter(|x| x.comm.is_none() || x.comm == comm) {
        if !matches!(x.transport.as_str(), "P2P" | "SHM") || !seen.insert((x.from, x.to)) {
            continue;
        }
        let pair: BTreeSet<(i64, i64)> = [(x.from, x.to)].into();
        let Some(Some(ours)) = model_transports(an, &pair).first().copied() else { continue };
        n += 1;
        let logged = if x.transport == "P2P" { Transport::P2p } else { Transport::Shm };
        if ours != logged {
            c.findings.push(Finding {
                kind: "transport".into(),
                severity: Severity::Warning,
                ranks: vec![x.from, x.to],
                channel: Some(x.channel),
                log: format!("{} -> {} via {}/{}", x.from, x.to, x.transport, x.mode),
                model: format!("{ours:?}").to_uppercase(),
                cause: ctx.cause("NCCL_P2P_LEVEL/NCCL_P2P_DISABLE not printed, or the driver's P2P support differs"),
            });
        }
    }
    tally(c, "transport", n);
}

/// What stands out in the log itself.
pub fn unusual(facts: &LogFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    let primary = facts.primary();
    // SHM between GPUs the system print joins by NVLink.
    let nvlinked: BTreeSet<(i64, i64)> = facts
        .systems
        .iter()
        .flat_map(|s| {
            s.links.iter().filter(|l| l.kind == "NVL").filter_map(move |l| {
                let (a, b) = (&s.nodes[l.from], &s.nodes[l.to]);
                (a.kind == "GPU" && b.kind == "GPU").then(|| (a.rank.unwrap_or(-1), b.rank.unwrap_or(-1)))
            })
        })
        .collect();
    let mut shm_nvl = BTreeSet::new();
    for x in facts.connections.iter().filter(|x| x.transport == "SHM") {
        if nvlinked.contains(&(x.from, x.to)) || nvlinked.contains(&(x.to, x.from)) {
            shm_nvl.insert((x.from.min(x.to), x.from.max(x.to)));
        }
    }
    for (a, b) in shm_nvl {
        out.push(Finding {
            kind: "shm_between_nvlink_gpus".into(),
            severity: Severity::Warning,
            ranks: vec![a, b],
            channel: None,
            log: format!("ranks {a} and {b} connect through SHM although NVLink joins their GPUs"),
            model: String::new(),
            cause:
                "P2P is disabled (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL) or refused by the driver: the NVLink goes unused"
                    .into(),
        });
    }
    for g in facts.gdr.iter().filter(|g| !g.enabled) {
        out.push(Finding {
            kind: "gdr_disabled".into(),
            severity: Severity::Info,
            ranks: Vec::new(),
            channel: None,
            log: format!(
                "GPU Direct RDMA disabled for {}NIC {}{}",
                g.gpu.as_ref().map(|x| format!("GPU {x} / ")).unwrap_or_default(),
                g.nic,
                g.nic_name.as_ref().map(|n| format!(" ({n})")).unwrap_or_default()
            ),
            model: String::new(),
            cause: if g.detail.is_empty() { "see the log line".into() } else { g.detail.clone() },
        });
    }
    // Graphs that allow more channels than the job runs.
    let coll = facts.channel_counts.iter().find(|c| c.comm.is_none() || c.comm == primary).map(|c| c.coll);
    if let Some(coll) = coll {
        let ring = facts.graphs.iter().find(|g| (g.comm.is_none() || g.comm == primary) && g.pattern == 4);
        if let Some(r) = ring
            && coll < r.nchannels
        {
            out.push(Finding {
                kind: "fewer_channels".into(),
                severity: Severity::Warning,
                ranks: Vec::new(),
                channel: None,
                log: format!("{coll} coll channels, the ring graph found {}", r.nchannels),
                model: String::new(),
                cause: "NCCL_MAX_NCHANNELS (or NCCL_MAX_CTAS) caps the channels below what the search found".into(),
            });
        }
    }
    // Ranks of one host whose rings (orders) disagree between printing processes.
    let mut orders: BTreeMap<u32, BTreeSet<Vec<i64>>> = BTreeMap::new();
    for r in facts.rings.iter().filter(|r| r.comm.is_none() || r.comm == primary) {
        orders.entry(r.channel).or_default().insert(r.order.clone());
    }
    for (ch, set) in orders {
        if set.len() > 1 {
            out.push(Finding {
                kind: "ring_orders_differ".into(),
                severity: Severity::Warning,
                ranks: Vec::new(),
                channel: Some(ch),
                log: format!("channel {ch} is printed with {} different ring orders", set.len()),
                model: String::new(),
                cause: "processes of one job disagree on the ring: different topologies or settings per host".into(),
            });
        }
    }
    for p in &facts.problems {
        out.push(Finding {
            kind: p.kind.clone(),
            severity: if p.kind == "warn" { Severity::Warning } else { Severity::Info },
            ranks: p.rank.map(|r| vec![r as i64]).unwrap_or_default(),
            channel: None,
            log: p.text.clone(),
            model: String::new(),
            cause: String::new(),
        });
    }
    out
}
