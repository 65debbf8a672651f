//! One run of the whole model on one topology: preparation, system, paths (twice, around
//! the trimming, as NCCL's init does), and every decision with its reason.

use std::sync::Arc;

use crate::discover::nvml::FabricInfo;
use crate::env::Env;
use crate::error::Error;
use crate::model::build::{self, BuildOptions};
use crate::model::mnnvl::{self, Mnnvl};
use crate::model::paths::{self, Params};
use crate::model::prepare::{self, NetDevice, NetOptions, RankedGpu};
use crate::model::system::{self, NodeRef, System};
use crate::model::{GdrMode, LinkType, NodeType, PathType, Transport};
use crate::xml::{Diagnostic, Xml};

/// What the user asked for, beyond the XML.
#[derive(Debug, Clone)]
pub struct Options {
    /// Identical nodes in the job (`--nodes N`); the model sees node 0.
    pub nodes: usize,
    /// The driver reports P2P between GPUs (`--no-p2p-support` turns it off).
    pub p2p_support: bool,
    /// The network plugin fuses ports (`--no-nic-fusion` turns it off).
    pub nic_fusion: bool,
    /// Every NIC is CollNet capable (`--collnet`).
    pub collnet: bool,
    /// NVLink SHARP is available (`--no-nvls` turns it off).
    pub nvls: bool,
    /// The nodes are the trays of one multi-node NVLink clique (`--mnnvl`): every GPU
    /// with an NVLink to an NVSwitch is registered with one fabric.
    pub mnnvl: bool,
    /// The `--nodes` fall into this many equal NVLink cliques of consecutive nodes
    /// (`--mnnvl-cliques`, 1: one clique holds them all).
    pub mnnvl_cliques: usize,
    /// The cliques are partitions of one NVLink domain (one cluster UUID,
    /// `--mnnvl-one-domain`); else each is its own domain.
    pub mnnvl_one_domain: bool,
    /// The fabric registration of each GPU of the node, as detection read it from NVML
    /// (`None` for a GPU: not supported); `None` when not known (a topology file).
    pub fabric: Option<Vec<Option<FabricInfo>>>,
    /// NCCL_* variables in force.
    pub env: Env,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            nodes: 1,
            p2p_support: true,
            nic_fusion: true,
            collnet: false,
            nvls: true,
            mnnvl: false,
            mnnvl_cliques: 1,
            mnnvl_one_domain: false,
            fabric: None,
            env: Env::default(),
        }
    }
}

/// A path between two endpoints, for reports. In JSON: the keys that are set, `type`,
/// `bw`, `hops`, the `route` as one list of strings, and the same route as `steps`, one
/// object a node: `{"node": "GPU/0000:1a:00.0"}` first, then `{"link": "LOC", "bw":
/// 5000.0, "node": "DEV/0000:1a:00.0"}` for each link taken.
#[derive(Debug, Clone)]
pub struct PathRec {
    pub from: Option<i32>,
    pub to: Option<i32>,
    pub rank: Option<i32>,
    pub net: Option<i32>,
    /// The host of the NET device, when it is not rank 0's (a fused MNNVL system).
    pub net_host: Option<i64>,
    pub ty: PathType,
    pub bw: f32,
    pub hops: usize,
    /// The nodes along the path, as `TYPE/busid-or-id`, with the links between them
    /// (`-NVL->`). Shared strings: a large system has tens of thousands of route entries.
    pub route: Vec<Arc<str>>,
    /// The bandwidth of each link of the route, in order.
    pub link_bw: Vec<f32>,
}

impl serde::Serialize for PathRec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        for (k, v) in [("from", self.from), ("to", self.to), ("rank", self.rank), ("net", self.net)] {
            if let Some(v) = v {
                m.serialize_entry(k, &v)?;
            }
        }
        if let Some(h) = self.net_host.filter(|&h| h != 0) {
            m.serialize_entry("net_host", &h)?;
        }
        m.serialize_entry("type", &self.ty)?;
        m.serialize_entry("bw", &self.bw)?;
        m.serialize_entry("hops", &self.hops)?;
        if !self.route.is_empty() {
            m.serialize_entry("route", &self.route.iter().map(|x| &**x).collect::<Vec<&str>>())?;
            let steps: Vec<serde_json::Value> = self
                .route
                .iter()
                .step_by(2)
                .enumerate()
                .map(|(i, node)| match i {
                    0 => serde_json::json!({ "node": &**node }),
                    _ => serde_json::json!({
                        "link": self.route[2 * i - 1].trim_start_matches('-').trim_end_matches("->"),
                        // As an f32 prints (370.8), not its f64 widening (370.7999...).
                        "bw": self.link_bw.get(i - 1).and_then(|b| b.to_string().parse::<f64>().ok()),
                        "node": &**node,
                    }),
                })
                .collect();
            m.serialize_entry("steps", &steps)?;
        }
        m.end()
    }
}

/// The P2P decision between two local ranks.
#[derive(Debug, Clone, serde::Serialize)]
pub struct P2pRec {
    pub from: i32,
    pub to: i32,
    pub transport: Transport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p2p: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intermediate: Option<i32>,
    pub reason: String,
}

/// The GPUDirect RDMA decision for one GPU and one NIC.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GdrRec {
    pub rank: i32,
    pub net: i32,
    /// The host of the NET device, when it is not rank 0's (a fused MNNVL system).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net_host: Option<i64>,
    pub recv: GdrMode,
    pub send: GdrMode,
    pub proxy_rank: i32,
    pub recv_reason: String,
    pub send_reason: String,
}

/// Per-system figures.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SystemRec {
    pub max_bw: f32,
    pub total_bw: f32,
    pub inter: bool,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PathsRec {
    pub gpu_gpu: Vec<PathRec>,
    pub gpu_net: Vec<PathRec>,
    pub net_gpu: Vec<PathRec>,
    /// From NIC to NIC: `from` and `to` are the NICs' device numbers.
    pub net_net: Vec<PathRec>,
}

/// The levels in force, with where each comes from.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Levels {
    pub p2p: PathType,
    pub p2p_source: &'static str,
    pub gdr: PathType,
    pub gdr_source: &'static str,
}

/// Everything the model decided.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub input: String,
    pub options: Options,
    pub diags: Vec<Diagnostic>,
    pub gpus: Vec<RankedGpu>,
    pub nets: Vec<NetDevice>,
    pub prepared: Xml,
    /// The system after trimming, with final paths.
    pub system: System,
    /// The system every rank of the node starts from (fused, paths computed, not yet
    /// trimmed), kept only when trimming removed GPUs: what
    /// [`Analysis::system_of_rank`] trims for another rank.
    pub untrimmed: Option<System>,
    pub params: Params,
    pub trimmed: Vec<i32>,
    pub n_ranks: usize,
    pub sys_rec: SystemRec,
    pub paths: PathsRec,
    pub p2p: Vec<P2pRec>,
    pub gdr: Vec<GdrRec>,
    pub levels: Levels,
    /// Multi-node NVLink: what NCCL decided (off unless `--mnnvl` or NCCL_MNNVL_ENABLE=1).
    pub mnnvl: Mnnvl,
}

/// A short name for a node: `GPU/0000:0f:00.0`, `NET/mlx5_0`, `CPU/0`, `NVS/0`.
pub fn node_label(sys: &System, r: NodeRef) -> String {
    let n = sys.node(r);
    let what = match (&n.kind, &n.busid) {
        (system::Kind::Net(info), _) => info.name.clone(),
        (system::Kind::Cpu { .. }, _) => format!("{}", system::id_local(n.id)),
        (_, Some(b)) => b.clone(),
        _ => format!("{:x}", system::id_local(n.id)),
    };
    format!("{}/{}", r.ty.name(), what)
}

/// Every node's [`node_label`] and every link's arrow, made once for all the routes of
/// a report.
struct Labels {
    nodes: [Vec<Arc<str>>; NodeType::COUNT],
    arrows: [Arc<str>; 6],
}

impl Labels {
    const LINKS: [LinkType; 6] =
        [LinkType::Loc, LinkType::Nvl, LinkType::C2c, LinkType::Pci, LinkType::Sys, LinkType::Net];

    fn new(sys: &System) -> Labels {
        Labels {
            nodes: std::array::from_fn(|t| {
                let ty = NodeType::ALL[t];
                (0..sys.count(ty)).map(|i| Arc::from(node_label(sys, NodeRef::new(ty, i)))).collect()
            }),
            arrows: Labels::LINKS.map(|l| Arc::from(format!("-{}->", l.name()))),
        }
    }
    fn node(&self, r: NodeRef) -> Arc<str> {
        self.nodes[r.ty as usize][r.idx].clone()
    }
    fn arrow(&self, ty: LinkType) -> Arc<str> {
        let i = Labels::LINKS.iter().position(|&l| l == ty).unwrap_or(0);
        self.arrows[i].clone()
    }
}

/// A path's route and hop count as the release reports them: before 2.30.3 (no DEV
/// nodes) the GPU-DEV steps are left out and a DEV is named as its GPU.
fn route(
    sys: &System,
    labels: &Labels,
    from: NodeRef,
    p: &system::Path,
    dev_nodes: bool,
) -> (Vec<Arc<str>>, Vec<f32>, usize) {
    let mut out = Vec::with_capacity(2 * p.hops.len() + 1);
    let mut bws = Vec::with_capacity(p.hops.len());
    out.push(labels.node(from));
    let mut at = from;
    let mut hops = 0;
    for h in &p.hops {
        let l = sys.link(*h);
        let gpu_dev = matches!((at.ty, l.rem.ty), (NodeType::Gpu, NodeType::Dev) | (NodeType::Dev, NodeType::Gpu));
        at = l.rem;
        if !dev_nodes && l.ty == LinkType::Loc && gpu_dev {
            continue;
        }
        hops += 1;
        bws.push(l.bw);
        out.push(labels.arrow(l.ty));
        if !dev_nodes && l.rem.ty == NodeType::Dev {
            out.push(Arc::from(labels.node(l.rem).replacen("DEV/", "GPU/", 1)));
        } else {
            out.push(labels.node(l.rem));
        }
    }
    (out, bws, hops)
}

/// Run the model on a topology. `input` names it in messages.
pub fn analyze(xml: &Xml, input: &str, opts: &Options) -> Result<Analysis, Error> {
    if opts.nodes == 0 {
        return Err(Error::Usage("--nodes must be at least 1".into()));
    }
    let mut diags = crate::xml::lint_topology(xml, Some(std::path::Path::new(input)), opts.env.release().xml_limits())?;
    crate::model::validate::validate(xml, input, opts.env.release().xml_limits())?;
    let env = &opts.env;
    let net_opts = NetOptions {
        fusion: opts.nic_fusion,
        collnet: opts.collnet,
        merge_level: env.nets.merge_level,
        merge_rail: env.nets.merge_rail,
        force_merge: env.nets.force_merge.clone(),
        release: env.release(),
    };
    // Multi-node NVLink: NCCL fuses the hosts of one clique into one system. The GPUs of
    // one host come from the file's ranked GPUs (the preparation counts them).
    let per_host = prepare::prepare(xml, input, &net_opts)?;
    let view = prepare::nccl_view(xml);
    // On a detected machine NVML's registrations decide; on a file, `--mnnvl` says every
    // GPU on an NVSwitch is registered.
    let detected = opts.fabric.as_deref().map(|f| mnnvl::detected_clique(&opts.env, f));
    let registered = opts.mnnvl
        && match &detected {
            Some(d) => d.is_ok(),
            None => mnnvl::every_gpu_on_fabric(&view),
        };
    if opts.mnnvl_cliques == 0 || !opts.nodes.is_multiple_of(opts.mnnvl_cliques) {
        return Err(Error::Usage(format!(
            "--mnnvl-cliques {} must divide --nodes {} (the nodes fall into equal cliques)",
            opts.mnnvl_cliques, opts.nodes
        )));
    }
    let stated = mnnvl::Layout { cliques: opts.mnnvl_cliques, one_domain: opts.mnnvl_one_domain };
    let (layout, overridden) = stated.effective(&opts.env);
    let mnnvl = mnnvl::decide_in(&opts.env, opts.nodes, per_host.gpus.len(), registered, layout);
    diags.extend(
        mnnvl::note(&view, &opts.env, opts.nodes, opts.mnnvl, &mnnvl, detected.as_ref()).map(Diagnostic::warning),
    );
    if mnnvl.enabled {
        diags.extend(overridden.map(Diagnostic::warning));
        diags.extend(mnnvl::cliques_note(&opts.env, &mnnvl).map(Diagnostic::warning));
    }
    let gpus_per_host = per_host.gpus.len();
    let mut prep = if mnnvl.hosts > 1 { prepare::prepare_hosts(xml, input, &net_opts, mnnvl.hosts)? } else { per_host };
    if mnnvl.enabled {
        for g in prep.gpus.iter_mut() {
            g.host.get_or_insert(0);
        }
    }
    diags.extend(prep.diags.iter().cloned());
    let opts_build = BuildOptions { split_mlopart: env.nets.split_mlopart, release: env.release() };
    let mut sys = build::build(&prep.xml, input, opts_build)?;
    // Each rank's NCCL looks its own GPU up in the system it built
    // (ncclTopoGetCpuAffinity, after the trim, which keeps the rank's own GPU): a GPU
    // of the file that the build never added fails that rank's init.
    let built: Vec<i32> = sys.list(NodeType::Gpu).iter().map(|n| n.gpu_rank()).collect();
    if let Some(g) = prep.gpus.iter().find(|g| !built.contains(&g.rank)) {
        return Err(Error::Input {
            file: input.into(),
            message: format!(
                "GPU {} (dev {}, rank {}) is not in the system NCCL builds from this file (its <pci> is never \
                 reached as a GPU: it sits under a NIC's or another end device's <pci>, say), so that rank's init \
                 fails ('ncclTopoRankToIndex could not find rank {}')",
                g.busid, g.dev, g.rank, g.rank
            ),
        });
    }
    let params = Params::new(env, opts.p2p_support);
    diags.extend(env.warnings().iter().map(Diagnostic::warning));

    paths::compute_paths(&mut sys, &params)?;
    let n_ranks = gpus_per_host * opts.nodes;
    // Only a system that trimming changes is worth keeping whole (a copy of every path).
    let untrimmed = if paths::trims_any(&sys, 0) { Some(sys.clone()) } else { None };
    let trimmed = paths::trim_system(&mut sys, 0, n_ranks, env.release());
    paths::compute_paths(&mut sys, &params)?;
    paths::search_init(&mut sys, env.release());
    diags.extend(mnnvl::idle_variables(env, mnnvl.hosts, sys.inter).into_iter().map(Diagnostic::warning));

    let gpu_ranks: Vec<i32> = sys.list(NodeType::Gpu).iter().map(|g| g.gpu_rank()).collect();
    let labels = Labels::new(&sys);
    let mut out_paths = PathsRec::default();
    // The record of the path from `a` to `b`; `ids` are the (from, to, rank, net) keys.
    let rec = |a: NodeRef, b: NodeRef, ids: [Option<i32>; 4]| {
        let p = sys.path(a, b);
        let [from, to, rank, net] = ids;
        let (route, link_bw, hops) = route(&sys, &labels, a, p, env.release().dev_nodes());
        let net_host = [a, b].iter().find(|n| n.ty == NodeType::Net).map(|n| system::id_system(sys.node(*n).id));
        let net_host = net_host.filter(|_| net.is_some());
        PathRec { from, to, rank, net, net_host, ty: p.ty, bw: p.bw, hops, route, link_bw }
    };
    for (g, &rg) in gpu_ranks.iter().enumerate() {
        let gpu = NodeRef::new(NodeType::Gpu, g);
        for (q, &rq) in gpu_ranks.iter().enumerate() {
            out_paths.gpu_gpu.push(rec(gpu, NodeRef::new(NodeType::Gpu, q), [Some(rg), Some(rq), None, None]));
        }
        for n in 0..sys.count(NodeType::Net) {
            let dev = sys.list(NodeType::Net)[n].net().map_or(-1, |x| x.dev);
            let net = NodeRef::new(NodeType::Net, n);
            out_paths.gpu_net.push(rec(gpu, net, [None, None, Some(rg), Some(dev)]));
            out_paths.net_gpu.push(rec(net, gpu, [None, None, Some(rg), Some(dev)]));
        }
    }
    let net_dev = |n: usize| sys.list(NodeType::Net)[n].net().map_or(-1, |x| x.dev);
    for n in 0..sys.count(NodeType::Net) {
        for m in 0..sys.count(NodeType::Net) {
            let (a, b) = (NodeRef::new(NodeType::Net, n), NodeRef::new(NodeType::Net, m));
            out_paths.net_net.push(rec(a, b, [Some(net_dev(n)), Some(net_dev(m)), None, None]));
        }
    }

    let mut p2p = Vec::new();
    for a in &prep.gpus {
        for b in &prep.gpus {
            if a.rank == b.rank {
                continue;
            }
            if trimmed.contains(&a.rank) || trimmed.contains(&b.rank) {
                p2p.push(P2pRec {
                    from: a.rank,
                    to: b.rank,
                    transport: Transport::Net,
                    p2p: None,
                    read: None,
                    intermediate: None,
                    reason: format!(
                        "rank {} was trimmed: rank 0 reaches it only through the network",
                        if trimmed.contains(&a.rank) { a.rank } else { b.rank }
                    ),
                });
                continue;
            }
            let c = paths::check_p2p(&sys, &params, a.rank, b.rank)?;
            let (can_p2p, why_p2p) = paths::p2p_can_connect(&sys, &params, a.rank, b.rank)?;
            let (transport, reason) = if can_p2p {
                (Transport::P2p, why_p2p)
            } else {
                let (shm, why_shm) = paths::shm_can_connect(&sys, &params, a.rank, b.rank);
                if shm {
                    (Transport::Shm, format!("no P2P ({why_p2p}); {why_shm}"))
                } else {
                    (Transport::Net, format!("no P2P ({why_p2p}); no SHM ({why_shm})"))
                }
            };
            p2p.push(P2pRec {
                from: a.rank,
                to: b.rank,
                transport,
                p2p: Some(c.p2p),
                read: Some(c.read),
                intermediate: Some(c.intermediate),
                reason,
            });
        }
    }

    let mut gdr = Vec::new();
    for &rank in &gpu_ranks {
        for n in 0..sys.count(NodeType::Net) {
            let dev = sys.list(NodeType::Net)[n].net().map_or(-1, |x| x.dev);
            let (recv, recv_reason) = paths::check_gdr(&sys, &params, rank, n, false);
            let (send, send_reason) = paths::check_gdr(&sys, &params, rank, n, true);
            gdr.push(GdrRec {
                rank,
                net: dev,
                net_host: Some(system::id_system(sys.list(NodeType::Net)[n].id)).filter(|&h| h != 0),
                recv,
                send,
                proxy_rank: paths::intermediate_rank(&sys, rank, n).unwrap_or(rank),
                recv_reason,
                send_reason,
            });
        }
    }
    let (p2p_l, p2p_src) = paths::p2p_level(&sys, &params);
    let (gdr_l, gdr_src) = paths::gdr_level(&params);
    let sys_rec = SystemRec { max_bw: sys.max_bw, total_bw: sys.total_bw, inter: sys.inter };
    Ok(Analysis {
        input: input.to_string(),
        options: opts.clone(),
        diags,
        gpus: prep.gpus,
        nets: prep.nets,
        prepared: prep.xml,
        system: sys,
        untrimmed,
        params,
        trimmed,
        n_ranks,
        sys_rec,
        paths: out_paths,
        p2p,
        gdr,
        levels: Levels { p2p: p2p_l, p2p_source: p2p_src, gdr: gdr_l, gdr_source: gdr_src },
        mnnvl,
    })
}

impl Analysis {
    /// The system another GPU of the node ends up with: NCCL's init on that rank trims
    /// the same fused system to what *it* reaches without the network, recomputes the
    /// paths and starts its own search (`ncclTopoTrimSystem`, `ncclTopoComputePaths`,
    /// `ncclTopoSearchInit`). Returns it with the ranks that rank trimmed away.
    pub fn system_of_rank(&self, rank: i32) -> Result<(System, Vec<i32>), Error> {
        let mut sys = self.untrimmed.as_ref().unwrap_or(&self.system).clone();
        let trimmed = paths::trim_system(&mut sys, rank, self.n_ranks, self.params.release);
        paths::compute_paths(&mut sys, &self.params)?;
        paths::search_init(&mut sys, self.params.release);
        Ok((sys, trimmed))
    }

    /// The nodes NCCL counts: one a multi-node NVLink clique (the ring heads of each
    /// are on its fused system: one node when a clique holds the whole job), else
    /// `--nodes`.
    pub fn nccl_nodes(&self) -> usize {
        if self.mnnvl.enabled { self.mnnvl.cliques } else { self.options.nodes }
    }

    /// The job's nodes as titles name them: `2 node(s)`, or for a multi-node NVLink
    /// clique `1 node (18 trays fused by MNNVL)`.
    pub fn nodes_text(&self) -> String {
        if self.mnnvl.enabled && self.mnnvl.cliques > 1 {
            let m = &self.mnnvl;
            format!("{} nodes ({} cliques of {} trays fused by MNNVL)", m.cliques, m.cliques, m.hosts)
        } else if self.mnnvl.enabled && self.mnnvl.hosts > 1 {
            format!("1 node ({} trays fused by MNNVL)", self.mnnvl.hosts)
        } else {
            format!("{} node(s)", self.options.nodes)
        }
    }

    /// GPUs of the node, the trimmed ones included.
    pub fn host_gpus(&self) -> usize {
        self.system.count(NodeType::Gpu) + self.trimmed.len()
    }
}
