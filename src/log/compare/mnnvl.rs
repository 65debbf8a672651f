//! Multi-node NVLink (MNNVL) in a log held against the model. A rank's lines say what
//! NCCL read from the fabric (`MNNVL busId ... fabric UUID ... cliqueId ... state ...`,
//! init.cc) and what it decided (`MNNVL 1 cliqueId ... cliqueSize ... cliqueRank ...`,
//! mnnvl.cc; `comm ... nNodes 1 localRanks 4N ... MNNVL 1`). With a tray's topology
//! (`--topo`), the model fuses `nRanks / GPUs a tray` trays as NCCL does, from the
//! log's registrations when it printed them, and each verdict is compared.

use super::{Comparison, Ctx, Finding, Severity, tally};
use crate::discover::nvml::{FabricInfo, FabricState, format_uuid};
use crate::log::facts::{CliqueLine, Comm, LogFacts};
use crate::model::Analysis;
use crate::search::channels;
use crate::xml::{self, Xml};

/// What the log says about multi-node NVLink, when it says anything.
#[derive(Debug, Clone)]
pub(super) struct LogMnnvl {
    /// NCCL turned it on (the `MNNVL 1` of the communicator or of a clique line).
    pub on: bool,
    /// The registrations one host printed, in order (`None`: no line printed them).
    pub fabric: Option<Vec<Option<FabricInfo>>>,
}

/// The log's MNNVL facts: `None` for a log that names no fabric and never turned it on.
pub(super) fn of_log(facts: &LogFacts, comm: Option<&Comm>) -> Option<LogMnnvl> {
    let on = comm.and_then(|c| c.mnnvl).unwrap_or(false) || facts.cliques.iter().any(|c| c.mnnvl);
    let host = facts.fabric.first().map(|f| f.host.clone());
    let fabric: Vec<Option<FabricInfo>> = facts
        .fabric
        .iter()
        .filter(|f| Some(&f.host) == host.as_ref())
        .map(|f| {
            let (lo, hi) = f.cluster_uuid.split_once('.').unwrap_or(("0", "0"));
            let half = |s: &str| u64::from_str_radix(s, 16).unwrap_or(0).to_le_bytes();
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&half(lo));
            b[8..].copy_from_slice(&half(hi));
            Some(FabricInfo {
                state: FabricState::from_nvml(f.state.min(255) as u8),
                status: 0,
                cluster_uuid: format_uuid(&b),
                clique_id: f.clique_id,
            })
        })
        .collect();
    (on || !fabric.is_empty()).then(|| LogMnnvl { on, fabric: (!fabric.is_empty()).then_some(fabric) })
}

/// The trays of an MNNVL job on a tray's topology: `nRanks` over the tray's GPUs, when
/// that divides.
pub(super) fn trays(comm: Option<&Comm>, tray: &Xml) -> Option<usize> {
    let root = tray.root()?;
    let gpus = tray
        .descendants_named(root, "gpu")
        .into_iter()
        .filter(|&g| tray.attr(g, "dev").is_some_and(|d| xml::strtol(d) >= 0))
        .count();
    let nranks = comm?.nranks as usize;
    (gpus > 0 && nranks.is_multiple_of(gpus)).then_some(nranks / gpus)
}

/// The cliques to model a fused job of `trays` trays as, from the log's rack serials
/// (NCCL_MNNVL_CLIQUE_ID=-2 makes each rack's serial its clique): their number when the
/// racks divide the trays, else 1; and whether they share one NVLink domain (every
/// fabric registration printed one cluster UUID).
pub(super) fn cliques_of_log(facts: &LogFacts, on: bool, trays: usize) -> (usize, bool) {
    let racks = facts.racks_by_serial().len();
    let cliques = if on && racks > 1 && trays.is_multiple_of(racks) { racks } else { 1 };
    let uuids: std::collections::BTreeSet<&str> = facts.fabric.iter().map(|f| f.cluster_uuid.as_str()).collect();
    (cliques, uuids.len() == 1)
}

/// The clique line of the communicator (any, when none names it).
fn clique_line(facts: &LogFacts, comm: Option<usize>) -> Option<&CliqueLine> {
    facts.cliques.iter().find(|c| c.comm.is_some() && c.comm == comm).or_else(|| facts.cliques.first())
}

/// The log's MNNVL verdicts against the model's.
pub(super) fn compare(
    ctx: &Ctx,
    comm: Option<usize>,
    log: &LogMnnvl,
    an: &Analysis,
    run: &channels::Run,
    c: &mut Comparison,
) {
    let facts = ctx.facts;
    let m = &an.mnnvl;
    let mut n = 1;
    let mut differ = |what: &str, log: String, model: String, cause: String| {
        c.findings.push(Finding {
            kind: format!("mnnvl_{what}"),
            severity: Severity::Warning,
            ranks: Vec::new(),
            channel: None,
            log,
            model,
            cause,
        });
    };
    if log.on != m.enabled {
        let cause = if log.on {
            "the model keeps MNNVL off (see its notes: a GPU without a completed fabric registration, or without an \
             NVLink to an NVSwitch in the topology)"
        } else {
            "NCCL also needs CUDA's FABRIC memory handles (cuMem, IMEX channels) to turn MNNVL on, which neither the \
             log nor the topology shows; or the job's ranks are not all on the fabric"
        };
        differ(
            "enabled",
            format!("MNNVL {}", u8::from(log.on)),
            format!("MNNVL {}", u8::from(m.enabled)),
            ctx.cause(cause),
        );
    }
    if log.on && m.enabled {
        // (kind, NCCL's name, the log's number, the model's, the likely cause)
        let clique = clique_line(facts, comm);
        let cm = comm.and_then(|i| facts.comms.get(i));
        let counts = [
            (
                "clique_size",
                "cliqueSize",
                clique.map(|l| l.clique_size),
                m.clique_size,
                "the job's ranks are not all in one clique (NCCL_MNNVL_CLIQUE_ID, or GPUs registered in different \
                 cliques)",
            ),
            (
                "nvl_domain_size",
                "nvlDomainSize",
                clique.and_then(|l| l.nvl_domain_size),
                m.nvl_domain_size,
                "ranks registered in different clusters (cluster UUIDs)",
            ),
            // The clique searched as one node.
            (
                "nnodes",
                "nNodes",
                cm.and_then(|c| c.nnodes.filter(|_| c.nnodes_source.as_deref() == Some("log"))),
                run.nodes,
                "the clique was searched as more than one node",
            ),
            (
                "local_ranks",
                "localRanks",
                cm.and_then(|c| c.local_ranks),
                run.local_ranks,
                "the trays of the clique hold other GPU counts than the topology's",
            ),
        ];
        for (what, name, seen, model, cause) in counts {
            let Some(seen) = seen else { continue };
            n += 1;
            if seen as usize != model {
                differ(what, format!("{name} {seen}"), format!("{name} {model}"), ctx.cause(cause));
            }
        }
        // NCCL_MNNVL_CLIQUE_ID=-2: the rack serials are the cliques, each of the model's
        // size (it models equal cliques of consecutive trays).
        let racks = facts.racks_by_serial();
        if !racks.is_empty() {
            n += 1;
            let uneven: Vec<String> =
                racks.iter().filter(|r| r.1 != m.hosts).map(|(s, t)| format!("rack {s}: {t} tray(s)")).collect();
            if racks.len() != m.cliques || !uneven.is_empty() {
                let log = format!(
                    "{} rack serial(s){}",
                    racks.len(),
                    if uneven.is_empty() { String::new() } else { format!(" ({})", uneven.join(", ")) }
                );
                differ(
                    "racks",
                    log,
                    format!("{} clique(s) of {} tray(s)", m.cliques, m.hosts),
                    ctx.cause(
                        "NCCL_MNNVL_CLIQUE_ID=-2 makes each rack serial a clique; topo models equal cliques of \
                         consecutive trays (--mnnvl-cliques), and the log's racks do not divide its trays so, or \
                         its lines name only some of each rack's trays",
                    ),
                );
            }
        }
    }
    tally(c, "mnnvl", n);
}

/// Why a log's MNNVL job cannot be modelled from its own system print.
pub(super) fn print_finding() -> Finding {
    Finding {
        kind: "mnnvl_print".into(),
        severity: Severity::Info,
        ranks: Vec::new(),
        channel: None,
        log: "multi-node NVLink (MNNVL): the system print is the rack's trays fused into one system".into(),
        model: "the print rebuilt as one machine, not fused as NCCL fuses trays".into(),
        cause: "give one tray's topology with --topo FILE: topo then fuses nRanks / GPUs-a-tray trays as NCCL does \
                and holds the log's MNNVL verdicts against it"
            .into(),
    }
}
