//! What the benchmark runs: the rings (one per channel), the transport of every ring
//! edge, and optionally the model's prediction. The channel search fills a [`Plan`];
//! without it, [`Plan::simple_ring`] or a graph file (`--graph-file`) does.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use crate::error::Error;
use crate::search::xml::{GraphFile, NotGraphFile};
use crate::xml::{self, Xml};

/// How data moves along one ring edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// The sender writes straight into the receiver's FIFO (CUDA peer access).
    P2p,
    /// The sender writes into a staging FIFO in host memory; a proxy thread copies
    /// each filled slot into the receiver's FIFO.
    HostStaged,
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Transport::P2p => "P2P",
            Transport::HostStaged => "host-staged",
        })
    }
}

/// One channel: the ranks in ring order (each rank sends to the one after it, the
/// last to the first).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RingChannel {
    pub order: Vec<usize>,
}

impl RingChannel {
    /// Position of `rank` in the ring.
    pub fn position(&self, rank: usize) -> Option<usize> {
        self.order.iter().position(|&r| r == rank)
    }
    /// The rank `rank` sends to.
    pub fn next(&self, rank: usize) -> Option<usize> {
        self.position(rank).map(|p| self.order[(p + 1) % self.order.len()])
    }
    /// The rank `rank` receives from.
    pub fn prev(&self, rank: usize) -> Option<usize> {
        let n = self.order.len();
        self.position(rank).map(|p| self.order[(p + n - 1) % n])
    }
}

/// The model's expectation for the run.
#[derive(Clone)]
pub struct Prediction {
    /// Predicted bus bandwidth in GB/s for a message of the given size in bytes.
    pub busbw_gbs: Arc<dyn Fn(u64) -> f64 + Send + Sync>,
    /// The link the model says limits the bandwidth, in words (e.g. "GPU0->GPU1 NVL").
    pub bottleneck: String,
}

impl fmt::Debug for Prediction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prediction").field("bottleneck", &self.bottleneck).finish_non_exhaustive()
    }
}

/// Everything the benchmark needs from the rest of topo.
#[derive(Debug, Clone)]
pub struct Plan {
    pub nranks: usize,
    pub channels: Vec<RingChannel>,
    /// `nranks * nranks` entries, `[from * nranks + to]`; only ring edges are read.
    pub transports: Vec<Transport>,
    pub prediction: Option<Prediction>,
    /// Where the rings came from, for the report.
    pub source: String,
    /// Things the report should mention (e.g. a graph file read leniently).
    pub notes: Vec<String>,
}

impl Plan {
    /// `channels` copies of the identity ring 0, 1, ..., n-1, every edge P2P: what the
    /// benchmark runs when no search result is available.
    pub fn simple_ring(nranks: usize, channels: usize) -> Plan {
        let nranks = nranks.max(1);
        Plan {
            nranks,
            channels: vec![RingChannel { order: (0..nranks).collect() }; channels.max(1)],
            transports: vec![Transport::P2p; nranks * nranks],
            prediction: None,
            source: "identity ring (no channel search)".into(),
            notes: Vec::new(),
        }
    }

    pub fn transport(&self, from: usize, to: usize) -> Transport {
        self.transports[from * self.nranks + to]
    }

    pub fn set_transport(&mut self, from: usize, to: usize, t: Transport) {
        self.transports[from * self.nranks + to] = t;
    }

    /// Use `t` on every edge.
    pub fn set_all_transports(&mut self, t: Transport) {
        self.transports.iter_mut().for_each(|x| *x = t);
    }

    /// Keep `n` channels: the first `n`, or the existing ones repeated in order.
    pub fn with_channels(mut self, n: usize) -> Plan {
        let have = self.channels.clone();
        self.channels = (0..n.max(1)).map(|i| have[i % have.len()].clone()).collect();
        self
    }

    /// Every channel is a permutation of `0..nranks` and the transport matrix fits.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |m: String| Err(Error::Usage(format!("benchmark plan: {m}")));
        if self.channels.is_empty() {
            return bad("no channel".into());
        }
        if self.transports.len() != self.nranks * self.nranks {
            return bad(format!("{} transports for {} ranks", self.transports.len(), self.nranks));
        }
        for (c, ch) in self.channels.iter().enumerate() {
            if let Err(m) = check_ring(&ch.order, self.nranks) {
                return bad(format!("channel {c}: {m}"));
            }
        }
        Ok(())
    }

    /// Ring edges (from, to) of all channels, without repeats, in channel order.
    pub fn ring_edges(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for ch in &self.channels {
            for (i, &r) in ch.order.iter().enumerate() {
                let e = (r, ch.order[(i + 1) % ch.order.len()]);
                if self.nranks > 1 && !out.contains(&e) {
                    out.push(e);
                }
            }
        }
        out
    }

    /// Read the ring channels (graph id 0, pattern 4) of an NCCL graph file
    /// (`NCCL_GRAPH_DUMP_FILE` format). `nranks`, when given, must match.
    pub fn from_graph_file(path: &Path, nranks: Option<usize>) -> Result<Plan, Error> {
        let (doc, diags) = xml::read_file(path)?;
        let mut plan = Plan::from_graph_xml(&doc, path, nranks)?;
        plan.notes.extend(diags.iter().map(|d| d.to_string()));
        Ok(plan)
    }

    /// Like [`Plan::from_graph_file`], from an already parsed document.
    pub fn from_graph_xml(doc: &Xml, path: &Path, nranks: Option<usize>) -> Result<Plan, Error> {
        let file = path.display().to_string();
        let err = |line: u32, m: String| Error::Input {
            file: if line > 0 { format!("{file}:{line}") } else { file.clone() },
            message: m,
        };
        // The file's structure is the search's reading (one reader of graph files); the
        // ring plan is this module's interpretation of it.
        let gf = GraphFile::new(doc).map_err(|e| match e {
            NotGraphFile::Empty => err(0, "empty document".into()),
            NotGraphFile::Root { name, line } => {
                err(line, format!("root element is <{name}>, expected <graphs> (an NCCL graph file)"))
            }
        })?;
        let root = gf.root;
        if let Some(v) = doc.attr(root, "version")
            && xml::parse_c_int(v) != Some(1)
        {
            return Err(err(doc.line(root), format!("<graphs version=\"{v}\">: only version 1 is known")));
        }
        let mut notes = Vec::new();
        let graph = gf
            .graphs()
            .find(|&g| doc.attr(g, "id").and_then(xml::parse_c_int) == Some(0))
            .ok_or_else(|| err(doc.line(root), "no <graph id=\"0\"> (the ring graph)".into()))?;
        match doc.attr(graph, "pattern").map(|p| (p, xml::parse_c_int(p))) {
            Some((_, Some(4))) => {}
            Some((p, _)) => {
                return Err(err(doc.line(graph), format!("graph 0 has pattern=\"{p}\", expected 4 (ring)")));
            }
            None => notes.push(format!("{file}:{}: graph 0 has no pattern attribute; read as a ring", doc.line(graph))),
        }
        let mut channels = Vec::new();
        for ch in gf.channels(graph).iter().copied().filter(|&c| doc.name(c) == "channel") {
            let mut order = Vec::new();
            for &el in gf.hops(ch) {
                let line = doc.line(el);
                match doc.name(el) {
                    "gpu" => {
                        let rank = if let Some(r) = doc.attr(el, "rank") {
                            xml::parse_c_int(r)
                                .filter(|&v| v >= 0)
                                .ok_or_else(|| err(line, format!("<gpu rank=\"{r}\">: not a rank number")))?
                        } else if let Some(d) = doc.attr(el, "dev") {
                            // NCCL reads dev as hex (strtol base 16): systemId << 56 | device.
                            let id =
                                i64::from_str_radix(d.trim().trim_start_matches("0x").trim_start_matches("0X"), 16)
                                    .map_err(|_| {
                                        err(line, format!("<gpu dev=\"{d}\">: not a hexadecimal device id"))
                                    })?;
                            if id >> 56 != 0 {
                                return Err(err(
                                    line,
                                    format!(
                                        "<gpu dev=\"{d}\"> is on system {} (another node): the benchmark runs one node",
                                        id >> 56
                                    ),
                                ));
                            }
                            notes.push(format!(
                                "{file}:{line}: <gpu dev=\"{d}\"> has no rank attribute; rank = device {id}"
                            ));
                            id
                        } else {
                            return Err(err(line, "<gpu> without rank or dev attribute".into()));
                        };
                        order.push(rank as usize);
                    }
                    "net" => {
                        return Err(err(
                            line,
                            "<net> in a ring channel: inter-node rings cannot run in this single-node benchmark".into(),
                        ));
                    }
                    other => return Err(err(line, format!("unexpected <{other}> in <channel>"))),
                }
            }
            if order.is_empty() {
                return Err(err(doc.line(ch), "<channel> without <gpu> elements".into()));
            }
            channels.push((doc.line(ch), order));
        }
        if channels.is_empty() {
            return Err(err(doc.line(graph), "graph 0 has no <channel>".into()));
        }
        if let Some(nc) = doc.attr(graph, "nchannels")
            && xml::parse_c_int(nc) != Some(channels.len() as i64)
        {
            notes.push(format!(
                "{file}:{}: nchannels=\"{nc}\" but {} <channel> elements; using the elements",
                doc.line(graph),
                channels.len()
            ));
        }
        let n = nranks.unwrap_or(channels[0].1.len());
        for (line, order) in &channels {
            check_ring(order, n).map_err(|m| err(*line, m))?;
        }
        let mut plan = Plan::simple_ring(n, channels.len());
        plan.channels = channels.into_iter().map(|(_, order)| RingChannel { order }).collect();
        plan.source = format!("graph file {file}");
        plan.notes = notes;
        Ok(plan)
    }
}

/// A ring must hold each of the `n` ranks exactly once.
fn check_ring(order: &[usize], n: usize) -> Result<(), String> {
    if order.len() != n {
        return Err(format!("channel has {} GPUs, expected {n} ranks", order.len()));
    }
    let mut seen = vec![false; n];
    for &r in order {
        if r >= n {
            return Err(format!("rank {r} out of range for {n} ranks"));
        }
        if seen[r] {
            return Err(format!("rank {r} appears twice in the ring"));
        }
        seen[r] = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, n: Option<usize>) -> Result<Plan, Error> {
        let (doc, _) = xml::parse(text, None).unwrap();
        Plan::from_graph_xml(&doc, Path::new("g.xml"), n)
    }

    const TWO_RINGS: &str = r#"<graphs version="1">
  <graph id="0" pattern="4" crossnic="0" nchannels="2" speedintra="20" speedinter="20" latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="0">
    <channel>
      <gpu dev="0" rank="0"/>
      <gpu dev="1" rank="1"/>
      <gpu dev="3" rank="3"/>
      <gpu dev="2" rank="2"/>
    </channel>
    <channel>
      <gpu dev="0" rank="0"/>
      <gpu dev="2" rank="2"/>
      <gpu dev="3" rank="3"/>
      <gpu dev="1" rank="1"/>
    </channel>
  </graph>
  <graph id="1" pattern="3" nchannels="1">
    <channel><gpu dev="0" rank="0"/><gpu dev="1" rank="1"/></channel>
  </graph>
</graphs>
"#;

    #[test]
    fn reads_ring_channels() {
        let p = parse(TWO_RINGS, None).unwrap();
        assert_eq!(p.nranks, 4);
        assert_eq!(p.channels[0].order, vec![0, 1, 3, 2]);
        assert_eq!(p.channels[1].order, vec![0, 2, 3, 1]);
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        p.validate().unwrap();
        assert_eq!(p.channels[1].next(1), Some(0));
        assert_eq!(p.channels[1].prev(0), Some(1));
        assert_eq!(p.ring_edges().len(), 8);
        let p3 = p.with_channels(3);
        assert_eq!(p3.channels[2].order, vec![0, 1, 3, 2]);
    }

    #[test]
    fn dev_without_rank_is_read_as_hex() {
        let p = parse(r#"<graphs version="1"><graph id="0" pattern="4"><channel><gpu dev="0x1"/><gpu dev="0"/></channel></graph></graphs>"#, None).unwrap();
        assert_eq!(p.channels[0].order, vec![1, 0]);
        assert_eq!(p.notes.len(), 2);
    }

    #[test]
    fn bad_graph_files_name_the_line() {
        let err = |text: &str, n: Option<usize>, want: &[&str]| {
            let e = parse(text, n).unwrap_err().to_string();
            assert!(want.iter().all(|w| e.contains(w)), "{e} lacks {want:?}");
        };
        err(TWO_RINGS, Some(8), &["g.xml:3", "expected 8"]);
        err("<system version=\"1\"/>", None, &["<graphs>"]);
        err(
            r#"<graphs version="1"><graph id="0" pattern="3"><channel><gpu rank="0"/></channel></graph></graphs>"#,
            None,
            &["pattern"],
        );
        let ring = |body: &str| {
            format!(
                "<graphs version=\"1\">\n<graph id=\"0\" pattern=\"4\">\n<channel>\n{body}</channel></graph></graphs>"
            )
        };
        err(&ring("<gpu rank=\"0\"/>\n<gpu rank=\"0\"/>\n"), None, &["g.xml:3", "twice"]);
        err(&ring("<net dev=\"0\"/>\n<gpu rank=\"0\"/>\n"), None, &["g.xml:4", "inter-node"]);
        err(&ring("<gpu rank=\"0\"/>\n<gpu rank=\"5\"/>\n"), None, &["g.xml:3", "out of range"]);
        err(r#"<graphs version="1"><graph id="1" pattern="4"/></graphs>"#, None, &["id=\"0\""]);
    }

    #[test]
    fn simple_ring_is_identity_and_p2p() {
        let p = Plan::simple_ring(3, 2);
        p.validate().unwrap();
        assert_eq!(p.channels.len(), 2);
        assert_eq!(p.transport(2, 0), Transport::P2p);
        assert_eq!(p.ring_edges(), vec![(0, 1), (1, 2), (2, 0)]);
    }
}
