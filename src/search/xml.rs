//! NCCL's graph XML: what it writes to NCCL_GRAPH_DUMP_FILE and reads from
//! NCCL_GRAPH_FILE.

use crate::error::Error;
use crate::model::system::{System, id_system, topo_id};
use crate::model::{NodeType, PathType};
use crate::release::{DumpDialect, DumpGraph, Release};
use crate::search::{CrossNic, Graph, GraphId, Graphs, Pattern};
use crate::xml::{self, Xml};

/// C's `%g` for a float promoted to double: 6 significant digits, trailing zeros
/// removed, exponent form outside 1e-4..1e6.
pub fn fmt_g(v: f32) -> String {
    let d = v as f64;
    if d == 0.0 {
        return if d.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    if !d.is_finite() {
        return if d.is_nan() {
            "nan".into()
        } else if d > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // Round to 6 significant digits first, then decide on the notation from the exponent.
    let sci = format!("{:.5e}", d);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let mant = trim_zeros(mant);
        return format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    trim_zeros(&format!("{:.*}", decimals, d)).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

/// C's `%#lx` on a 64-bit value: `0` for zero, else `0x` and lower-case hex.
pub fn fmt_hex(v: i64) -> String {
    if v == 0 { "0".into() } else { format!("{:#x}", v as u64) }
}

/// The path types NCCL's graph XML has names for (its `kvDictLinkType`; no C2C, NET, DIS).
const GRAPH_TYPES: [PathType; 9] = [
    PathType::Loc,
    PathType::Nvl,
    PathType::Nvb,
    PathType::Pix,
    PathType::Pxb,
    PathType::P2c,
    PathType::Pxn,
    PathType::Phb,
    PathType::Sys,
];

fn type_name(t: PathType) -> Result<&'static str, Error> {
    if GRAPH_TYPES.contains(&t) {
        return Ok(t.name());
    }
    Err(Error::Input {
        file: "<graph>".into(),
        message: format!("path type {t} has no name in NCCL's graph XML (NCCL fails to dump it)"),
    })
}

/// NCCL's prefix lookup of a graph type name; LOC when unknown, as NCCL falls back.
fn type_from(s: &str) -> PathType {
    GRAPH_TYPES.iter().copied().find(|t| s.starts_with(t.name())).unwrap_or(PathType::Loc)
}

/// A channel hop's `dev`: NCCL's `%#lx` of the 64-bit id from 2.21, its `%d` of an int
/// before.
fn fmt_dev(v: i64, dialect: DumpDialect) -> String {
    if dialect.hex_ids { fmt_hex(v) } else { (v as i32).to_string() }
}

fn add_graph(
    x: &mut Xml,
    parent: usize,
    g: &Graph,
    number: i32,
    sys: &System,
    dialect: DumpDialect,
) -> Result<(), Error> {
    let id = x.add(Some(parent), "graph");
    x.set_attr(id, "id", number.to_string());
    x.set_attr(id, "pattern", g.pattern.number().to_string());
    x.set_attr(id, "crossnic", g.cross_nic.number().to_string());
    x.set_attr(id, "nchannels", g.n_channels.to_string());
    x.set_attr(id, "speedintra", fmt_g(g.bw_intra));
    x.set_attr(id, "speedinter", fmt_g(g.bw_inter));
    x.set_attr(id, "latencyinter", fmt_g(g.latency_inter));
    x.set_attr(id, "typeintra", type_name(g.type_intra)?);
    x.set_attr(id, "typeinter", type_name(g.type_inter)?);
    x.set_attr(id, "samechannels", (g.same_channels as i32).to_string());
    let ngpus = sys.count(NodeType::Gpu);
    for c in 0..g.n_channels as usize {
        let ch = x.add(Some(id), "channel");
        let nets = sys.inter && (dialect.nets_from_inter || sys.count(NodeType::Net) > 0);
        if nets {
            let n = x.add(Some(ch), "net");
            x.set_attr(n, "dev", fmt_dev(g.inter_number(c * 2), dialect));
        }
        for k in 0..ngpus {
            let rank = g.intra[c * ngpus + k];
            let gpu = sys.list(NodeType::Gpu).iter().find(|n| n.gpu_rank() == rank).ok_or_else(|| Error::Input {
                file: "<graph>".into(),
                message: format!("channel {c} names rank {rank}, which is not a GPU of this system"),
            })?;
            let dev =
                if dialect.hex_ids { topo_id(id_system(gpu.id), gpu.gpu_dev() as i64) } else { gpu.gpu_dev() as i64 };
            let n = x.add(Some(ch), "gpu");
            x.set_attr(n, "dev", fmt_dev(dev, dialect));
            if dialect.gpu_rank {
                x.set_attr(n, "rank", rank.to_string());
            }
            if g.id == GraphId::Nvls && dialect.hex_ids {
                break;
            }
        }
        if nets {
            let n = x.add(Some(ch), "net");
            x.set_attr(n, "dev", fmt_dev(g.inter_number(c * 2 + 1), dialect));
        }
    }
    Ok(())
}

/// The NCCL_GRAPH_DUMP_FILE text `release` writes: its graphs, numbered its way.
pub fn dump(sys: &System, gs: &Graphs, release: Release) -> Result<String, Error> {
    let dialect = release.dump_dialect();
    let mut x = Xml::default();
    let root = x.add(None, "graphs");
    x.set_attr(root, "version", "1");
    for &(which, number) in dialect.graphs {
        let g = match which {
            DumpGraph::Ring => &gs.ring,
            DumpGraph::Tree => &gs.tree,
            DumpGraph::CollNetDirect => &gs.collnet_direct,
            DumpGraph::CollNetChain => &gs.collnet_chain,
            DumpGraph::Nvls => &gs.nvls,
        };
        add_graph(&mut x, root, g, number, sys, dialect)?;
    }
    Ok(xml::write(&x))
}

/// The structure of an NCCL graph file, read once here for every reader of graph files
/// (the search's NCCL_GRAPH_FILE with [`load_graph`], the benchmark's `--graph-file`):
/// a `<graphs>` root whose `<graph>` elements hold one channel per child element, each
/// channel's children its `<gpu>` and `<net>` hops. The readers interpret the
/// attributes their own way.
#[derive(Debug, Clone, Copy)]
pub struct GraphFile<'x> {
    pub doc: &'x Xml,
    /// The `<graphs>` element.
    pub root: usize,
}

/// Why a document is not a graph file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotGraphFile {
    /// No element at all.
    Empty,
    /// The root element has another name (given, with its line).
    Root { name: String, line: u32 },
}

impl<'x> GraphFile<'x> {
    pub fn new(doc: &'x Xml) -> Result<GraphFile<'x>, NotGraphFile> {
        let root = doc.root().ok_or(NotGraphFile::Empty)?;
        if doc.name(root) != "graphs" {
            return Err(NotGraphFile::Root { name: doc.name(root).to_string(), line: doc.line(root) });
        }
        Ok(GraphFile { doc, root })
    }

    /// The `<graph>` elements, in the file's order.
    pub fn graphs(&self) -> impl Iterator<Item = usize> + 'x {
        self.doc.children_named(self.root, "graph")
    }

    /// The channels of a `<graph>`: NCCL takes every child element as one.
    pub fn channels(&self, graph: usize) -> &'x [usize] {
        self.doc.children(graph)
    }

    /// The hops of a channel (`<gpu>`, `<net>`, or whatever else the file holds), in order.
    pub fn hops(&self, channel: usize) -> &'x [usize] {
        self.doc.children(channel)
    }
}

/// Load the graph with `graph.id` from a graph file into `graph`, as NCCL does for
/// NCCL_GRAPH_FILE. Returns the number of channels read (0 when the file has none for
/// this graph, or when NCCL_CROSS_NIC=0 rules out a cross-NIC graph).
pub fn load_graph(
    gx: &Xml,
    file: &str,
    sys: &System,
    graph: &mut Graph,
    cross_nic_env: i32,
    release: Release,
) -> Result<usize, Error> {
    let gf = match GraphFile::new(gx) {
        Ok(gf) => gf,
        Err(NotGraphFile::Empty) => return Ok(0),
        Err(NotGraphFile::Root { name, .. }) => {
            return Err(Error::Input {
                file: file.into(),
                message: format!("top element is <{name}>, expected <graphs>"),
            });
        }
    };
    let req = |id: usize, k: &str| -> Result<String, Error> {
        gx.attr(id, k).map(str::to_string).ok_or_else(|| Error::Input {
            file: file.into(),
            message: format!("line {}: <{}> has no '{k}' attribute", gx.line(id), gx.name(id)),
        })
    };
    let ngpus = sys.count(NodeType::Gpu);
    let mut n_read = 0;
    for gid in gf.graphs() {
        if xml::strtol(&req(gid, "id")?) as i32 != graph.id.number() {
            continue;
        }
        let cross = xml::strtol(&req(gid, "crossnic")?) as i32;
        if cross_nic_env == 0 && cross == 1 {
            continue;
        }
        let bad = |what: &str, v: i32| Error::Input {
            file: file.into(),
            message: format!("line {}: {what}=\"{v}\" is not one NCCL knows", gx.line(gid)),
        };
        graph.cross_nic = CrossNic::from_number(cross).ok_or_else(|| bad("crossnic", cross))?;
        let pattern = xml::strtol(&req(gid, "pattern")?) as i32;
        graph.pattern = Pattern::from_number(pattern).ok_or_else(|| bad("pattern", pattern))?;
        let nch = xml::strtol(&req(gid, "nchannels")?);
        if !(0..=crate::search::MAXCHANNELS as i64).contains(&nch) {
            return Err(Error::Input {
                file: file.into(),
                message: format!(
                    "line {}: nchannels=\"{nch}\": NCCL holds 0 to {} channels in a graph",
                    gx.line(gid),
                    crate::search::MAXCHANNELS
                ),
            });
        }
        graph.n_channels = nch as i32;
        graph.bw_intra = xml::strtof(&req(gid, "speedintra")?);
        graph.bw_inter = xml::strtof(&req(gid, "speedinter")?);
        graph.latency_inter = gx.attr(gid, "latencyinter").map_or(0.0, xml::strtof);
        graph.type_intra = type_from(gx.attr(gid, "typeintra").unwrap_or(""));
        graph.type_inter = type_from(gx.attr(gid, "typeinter").unwrap_or(""));
        graph.same_channels = xml::strtol(&req(gid, "samechannels")?) != 0;
        let channels = gf.channels(gid);
        if channels.len() > crate::search::MAXCHANNELS {
            return Err(Error::Input {
                file: file.into(),
                message: format!("line {}: {} channels, NCCL holds at most 64", gx.line(gid), channels.len()),
            });
        }
        for (c, &ch) in channels.iter().enumerate() {
            // NCCL's graph starts zeroed: a NET the file leaves out reads as id 0.
            graph.inter[c * 2] = Some(0);
            graph.inter[c * 2 + 1] = Some(0);
            let (mut n, mut k) = (0, 0);
            for &sub in gf.hops(ch) {
                // `strtol(s, NULL, 16)` of a topology id (2.21), `strtol(s, NULL, 0)` of a
                // device number before.
                let text = req(sub, "dev")?;
                let dev = if release.graph_dump_hex_ids() {
                    i64::from_str_radix(text.trim_start_matches("0x"), 16).unwrap_or(0)
                } else {
                    xml::strtol(&text)
                };
                match gx.name(sub) {
                    "net" if n < 2 => {
                        graph.inter[c * 2 + n] = Some(dev);
                        n += 1;
                    }
                    "gpu" if k < ngpus => {
                        let rank = match gx.attr(sub, "rank") {
                            Some(r) => xml::strtol(r) as i32,
                            None => sys
                                .list(NodeType::Gpu)
                                .iter()
                                .find(|g| topo_id(0, g.gpu_dev() as i64) == dev)
                                .map(|g| g.gpu_rank())
                                .ok_or_else(|| Error::Input {
                                    file: file.into(),
                                    message: format!(
                                        "line {}: gpu dev {dev:#x} is not a GPU of this system",
                                        gx.line(sub)
                                    ),
                                })?,
                        };
                        graph.intra[c * ngpus + k] = rank;
                        k += 1;
                    }
                    _ => {}
                }
            }
        }
        n_read = channels.len();
    }
    Ok(n_read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_g_matches_c() {
        assert_eq!(fmt_g(0.0), "0");
        assert_eq!(fmt_g(45.0), "45");
        assert_eq!(fmt_g(0.1), "0.1");
        assert_eq!(fmt_g(370.8), "370.8");
        assert_eq!(fmt_g(22.5), "22.5");
        assert_eq!(fmt_g(0.24), "0.24");
        assert_eq!(fmt_g(17.5), "17.5");
        assert_eq!(fmt_g(1234567.0), "1.23457e+06");
        assert_eq!(fmt_g(0.00001), "1e-05");
        assert_eq!(fmt_g(3.3333333), "3.33333");
    }

    #[test]
    fn graph_files_beyond_nccls_limits_are_refused() {
        let (sys, _) = {
            let (x, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
            let an = crate::model::analyze(&x, "dgx-h100", &Default::default()).unwrap();
            (an.system, ())
        };
        for n in ["65", "-1", "65536"] {
            let text = format!(
                "<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"{n}\" speedintra=\"20\" speedinter=\"20\" latencyinter=\"0\" typeintra=\"NVL\" typeinter=\"PIX\" samechannels=\"0\"/>\n</graphs>\n"
            );
            let (gx, _) = xml::parse(&text, None).unwrap();
            let mut g = Graph::new(crate::search::GraphId::Ring, Pattern::Ring, 8);
            let e = load_graph(&gx, "g.xml", &sys, &mut g, 2, Release::NEWEST).unwrap_err().to_string();
            assert!(e.contains(&format!("nchannels=\"{n}\"")) && e.contains("0 to 64"), "{e}");
        }
    }

    /// search.cc ncclTopoGetXmlFromChannel: `dev` is `%d` of the device number until
    /// 2.20.5 (a real 2.18.1 dump writes `<gpu dev="1"/>`), `%#lx` of the topology id
    /// from 2.21.5, where an NVLS channel also names only its head.
    #[test]
    fn dev_format_and_nvls_channels_by_release() {
        let (x, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let dump_at = |v: &str| {
            let env = crate::env::Env::for_release(Release::parse(v).unwrap(), Vec::<(String, String)>::new());
            let opts = crate::model::Options { nodes: 2, env, ..Default::default() };
            let an = crate::model::analyze(&x, "dgx-h100", &opts).unwrap();
            let (gs, sys) = crate::search::run(&an, &crate::search::SearchOptions::from_analysis(&an)).unwrap();
            (dump(&sys, &gs, an.params.release).unwrap(), gs.nvls.n_channels)
        };
        let (old, old_nvls) = dump_at("2.20.5");
        assert!(old_nvls > 0);
        assert!(old.contains("<gpu dev=\"1\"/>") && !old.contains("dev=\"0x"), "{old}");
        let nvls = &old[old.find("<graph id=\"3\"").unwrap()..];
        assert_eq!(nvls.matches("<gpu ").count(), 8 * old_nvls as usize, "{nvls}");
        let (new, new_nvls) = dump_at("2.21.5");
        assert!(new.contains("<gpu dev=\"0x1\"/>"), "{new}");
        let nvls = &new[new.find("<graph id=\"3\"").unwrap()..];
        assert_eq!(nvls.matches("<gpu ").count(), new_nvls as usize, "{nvls}");
    }

    /// search.cc ncclTopoGetChannelFromXml reads `dev` with strtol base 0 until 2.20.5
    /// (base 16 from 2.21.5): a 2.20.5 dump reads back as the graph it was written from.
    #[test]
    fn decimal_dev_reads_back_before_2_21() {
        let (x, _) = crate::fixtures::get("dgx-h100").unwrap().load().unwrap();
        let env = crate::env::Env::for_release(Release::parse("2.20.5").unwrap(), Vec::<(String, String)>::new());
        let opts = crate::model::Options { nodes: 2, env, nic_fusion: false, ..Default::default() };
        let an = crate::model::analyze(&x, "dgx-h100", &opts).unwrap();
        let (gs, sys) = crate::search::run(&an, &crate::search::SearchOptions::from_analysis(&an)).unwrap();
        let text = dump(&sys, &gs, an.params.release).unwrap();
        assert!(text.contains("<net dev=\"10\"/>"), "{text}");
        let (gx, _) = xml::parse(&text, None).unwrap();
        let mut g = Graph::new(crate::search::GraphId::Ring, Pattern::Ring, sys.count(NodeType::Gpu));
        let n = load_graph(&gx, "g.xml", &sys, &mut g, 0, an.params.release).unwrap();
        assert_eq!(n, gs.ring.n_channels as usize);
        let c = 2 * n;
        assert_eq!(g.inter[..c], gs.ring.inter[..c]);
    }

    #[test]
    fn percent_lx_matches_c() {
        assert_eq!(fmt_hex(0), "0");
        assert_eq!(fmt_hex(16), "0x10");
    }
}
