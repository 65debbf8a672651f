//! `topo show`: the system as a tree from each CPU down, then the links that are not part
//! of the PCI tree (NVLink, C2C, inter-CPU, Broadcom P2P links).

use std::collections::HashMap;
use std::fmt::Write;

use crate::model::analysis::node_label;
use crate::model::system::{Kind, NodeRef, System, id_local};
use crate::model::{Analysis, LinkType, NodeType, cpu};
use crate::render::term::{Term, Tone};
use crate::render::{gbs, names};

/// A CPU in words: `x86_64 Intel Sapphire Rapids, cpus 0-55`.
pub fn cpu_desc(k: &Kind) -> String {
    let Kind::Cpu { arch, vendor, model, affinity } = k else { return String::new() };
    let model_name = match (*vendor, *model) {
        (cpu::VENDOR_INTEL, cpu::MODEL_INTEL_ERP) => "Emerald Rapids+",
        (cpu::VENDOR_INTEL, cpu::MODEL_INTEL_SRP) => "Sapphire Rapids",
        (cpu::VENDOR_INTEL, cpu::MODEL_INTEL_SKL) => "Skylake",
        (cpu::VENDOR_INTEL, cpu::MODEL_INTEL_BDW) => "Broadwell or older",
        (cpu::VENDOR_ZHAOXIN, cpu::MODEL_YONGFENG) => "Yongfeng",
        _ => "",
    };
    let mut s = [cpu::arch_name(*arch), cpu::vendor_name(*vendor), model_name]
        .into_iter()
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(a) = affinity {
        let _ = write!(s, ", cpus {}", affinity_ranges(a));
    }
    s
}

/// A cpumap string (`0000ffff,ffff0000`) as CPU ranges (`16-47`).
pub fn affinity_ranges(mask: &str) -> String {
    let ranges = crate::discover::cpumap::ranges(&crate::discover::cpumap::parse(mask));
    if ranges.is_empty() { "none".into() } else { ranges }
}

fn node_desc(an: &Analysis, r: NodeRef) -> String {
    let sys = &an.system;
    let n = sys.node(r);
    match (&n.kind, r.ty) {
        (Kind::Cpu { .. }, _) => format!("CPU {} ({})", id_local(n.id), cpu_desc(&n.kind)),
        (Kind::Pci { device }, _) => {
            let dev = match names::node_pci_name(an, r) {
                Some(name) => format!(" {name}"),
                None if *device != 0 => format!(" {:04x}:{:04x}", device >> 48, (device >> 32) & 0xffff),
                None => String::new(),
            };
            format!("PCI switch {}{dev}", n.busid.as_deref().unwrap_or("?"))
        }
        (Kind::Dev { cc, .. }, _) => {
            let gpus: Vec<&crate::model::system::Node> = n
                .links
                .iter()
                .filter(|l| l.ty == LinkType::Loc && l.rem.ty == NodeType::Gpu)
                .map(|l| sys.node(l.rem))
                .collect();
            let ranks: Vec<String> =
                gpus.iter().map(|g| format!("rank {} (dev {})", g.gpu_rank(), g.gpu_dev())).collect();
            let busid = n.busid.as_deref().unwrap_or("?");
            let who = match gpus.as_slice() {
                [g] => names::gpu(g.gpu_rank(), busid),
                _ => format!("GPU {busid}"),
            };
            let name = names::node_pci_name(an, r).map(|x| format!(" {x},")).unwrap_or_default();
            format!("{who}{name} sm{cc}, {}", ranks.join(", "))
        }
        (_, NodeType::Nic) => {
            let name = names::node_pci_name(an, r).map(|x| format!(" {x}")).unwrap_or_default();
            format!("NIC {}{name}", n.busid.as_deref().unwrap_or("(no PCI device)"))
        }
        (Kind::Net(info), _) => {
            let virt = an.nets.iter().find(|d| d.dev == info.dev).filter(|d| d.is_virtual);
            let mut s = format!("NET {} {} {:.0} Gb/s", info.dev, info.name, info.bw as f64 * 8.0);
            if let Some(v) = virt {
                let _ = write!(s, " (fused from devs {:?})", v.physdevs);
            }
            let _ = write!(s, ", port {}", info.port);
            if info.gdr != 0 {
                s.push_str(", GDR");
            }
            if info.coll != 0 {
                s.push_str(", CollNet");
            }
            s
        }
        _ => node_label(sys, r),
    }
}

/// The children of `r` in the tree (PCI links down, and NIC to NET), coming from `up`,
/// in bus order (as lspci and lstopo list them), NETs by number.
fn kids(sys: &System, r: NodeRef, up: Option<NodeRef>) -> Vec<(LinkType, f32, NodeRef)> {
    let mut v: Vec<(LinkType, f32, NodeRef)> = sys
        .node(r)
        .links
        .iter()
        .filter(|l| {
            Some(l.rem) != up && (l.ty == LinkType::Pci || (l.ty == LinkType::Net && l.rem.ty == NodeType::Net))
        })
        .map(|l| (l.ty, l.bw, l.rem))
        .collect();
    v.sort_by_cached_key(|&(_, _, k)| {
        let n = sys.node(k);
        let dev = n.net().map_or(-1, |x| x.dev);
        (n.busid.as_deref().map(str::to_ascii_lowercase), dev)
    });
    v
}

/// A node's line of the tree: its text wraps under itself, with the line down to its
/// children drawn beside when it has some.
fn node_line(line: &str, under: &str, has_kids: bool, term: &Term) -> String {
    term.wrap(line, &format!("{under}{}", if has_kids { "│  " } else { "   " }))
}

fn tree_rec(an: &Analysis, r: NodeRef, up: Option<NodeRef>, prefix: &str, term: &Term, out: &mut String) {
    let sys = &an.system;
    let kids_of_r = kids(sys, r, up);
    for (i, (ty, b, k)) in kids_of_r.iter().enumerate() {
        let last = i + 1 == kids_of_r.len();
        let p = format!("{prefix}{}", if last { "   " } else { "│  " });
        let below = if *ty == LinkType::Pci { kids(sys, *k, Some(r)) } else { Vec::new() };
        let line =
            format!("{prefix}{}{} [{} {}]", if last { "└─ " } else { "├─ " }, node_desc(an, *k), ty.name(), gbs(*b));
        let _ = writeln!(out, "{}", node_line(&line, &p, !below.is_empty(), term));
        if *ty == LinkType::Pci {
            tree_rec(an, *k, Some(r), &p, term, out);
        }
    }
}

/// The human tree, as wide as it takes.
pub fn tree(an: &Analysis) -> String {
    tree_with(an, &Term::default())
}

/// The human tree, fitted to `term`'s width: long lines wrap under themselves (the tree's
/// lines drawn beside); trimmed ranks and link types coloured when asked.
pub fn tree_with(an: &Analysis, term: &Term) -> String {
    let sys = &an.system;
    let mut out = String::new();
    let head = format!(
        "{}: {} GPU(s) as ranks 0..{} of {}, {} network device(s), {} CPU(s){}",
        an.input,
        an.gpus.len(),
        an.gpus.len().saturating_sub(1),
        an.n_ranks,
        an.nets.len(),
        sys.count(NodeType::Cpu),
        if an.mnnvl.enabled && an.mnnvl.cliques > 1 {
            format!(
                ", {} trays in {} cliques: each clique's {} trays fused into one node by multi-node NVLink (MNNVL)",
                an.options.nodes, an.mnnvl.cliques, an.mnnvl.hosts
            )
        } else if an.mnnvl.enabled && an.mnnvl.hosts > 1 {
            format!(", {} trays fused into one node by multi-node NVLink (MNNVL)", an.mnnvl.hosts)
        } else if an.options.nodes > 1 {
            format!(", {} nodes", an.options.nodes)
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "{}", term.wrap(&head, "  "));
    let system = format!(
        "NCCL system: maxBw {} GB/s per channel, totalBw {} GB/s, {}",
        gbs(sys.max_bw),
        gbs(sys.total_bw),
        if sys.inter { "inter-node (rings go through the network)" } else { "single node" }
    );
    let _ = writeln!(out, "{}", term.wrap(&system, "  "));
    if !an.trimmed.is_empty() {
        let line = format!(
            "{} (reachable from rank 0 only through the network): {:?}",
            term.paint("Trimmed ranks", Tone::Warn),
            an.trimmed
        );
        let _ = writeln!(out, "{}", term.wrap(&line, "  "));
    }
    out.push('\n');
    for c in 0..sys.count(NodeType::Cpu) {
        let r = NodeRef::new(NodeType::Cpu, c);
        let _ = writeln!(out, "{}", node_line(&node_desc(an, r), "", !kids(sys, r, None).is_empty(), term));
        tree_rec(an, r, None, "", term, &mut out);
    }
    let extra = other_links(an, term);
    if !extra.is_empty() {
        let title = "Other links (NVLink, C2C, inter-CPU, switch P2P; <-> both ways, -> one way; NV18: 18 \
                     NVLinks, as nvidia-smi topo -m writes them):";
        let _ = writeln!(out, "\n{}", term.wrap(title, "  "));
        for e in &extra {
            out.push_str(&term.wrap_more(e, 4));
            out.push('\n');
        }
        if extra.iter().any(|e| e.contains("DEV of GPU")) {
            let _ = writeln!(out, "{}", term.wrap(&format!("  {}.", names::DEV_NOTE), "    "));
        }
    }
    out
}

/// The colour of a link type outside the PCI tree, as `topo paths` colours path types:
/// NVLink and C2C green, the inter-CPU link red.
fn link_tone(ty: LinkType) -> Option<Tone> {
    match ty {
        LinkType::Nvl | LinkType::C2c => Some(Tone::Good),
        LinkType::Sys => Some(Tone::Bad),
        _ => None,
    }
}

/// The links outside the PCI tree, one line per pair of nodes and link type, in the
/// order the links are met. A pair linked both ways with the same bandwidth reads
/// `A <-> B  NVL 40.0 GB/s`; with different bandwidths each direction is given.
fn other_links(an: &Analysis, term: &Term) -> Vec<String> {
    let sys = &an.system;
    let names = names::RouteNames::new(sys);
    // (one end, other end, type) -> bandwidth one way, bandwidth back (if linked back).
    type Pair = (NodeRef, NodeRef, LinkType);
    let mut pairs: Vec<(Pair, f32, Option<f32>)> = Vec::new();
    let mut index: HashMap<Pair, usize> = HashMap::new();
    for t in NodeType::ALL {
        for (i, n) in sys.list(t).iter().enumerate() {
            let me = NodeRef::new(t, i);
            for l in &n.links {
                let shown = match l.ty {
                    LinkType::Nvl | LinkType::C2c | LinkType::Sys => true,
                    LinkType::Loc => t == NodeType::Pci || (t == NodeType::Dev && l.rem.ty == NodeType::Dev),
                    _ => false,
                };
                if !shown {
                    continue;
                }
                match index.get(&(l.rem, me, l.ty)) {
                    Some(&k) if pairs[k].2.is_none() => pairs[k].2 = Some(l.bw),
                    _ => {
                        index.insert((me, l.rem, l.ty), pairs.len());
                        pairs.push(((me, l.rem, l.ty), l.bw, None));
                    }
                }
            }
        }
    }
    pairs
        .into_iter()
        .map(|((a, b, ty), there, back)| {
            // NVLinks counted from the GPU's (or its DEV node's) end.
            let nv = match (ty, [a, b].into_iter().find(|x| matches!(x.ty, NodeType::Gpu | NodeType::Dev))) {
                (LinkType::Nvl, Some(g)) => format!(", NV{}", names::nvlink_count(an, g, there)),
                _ => String::new(),
            };
            let (a, b) = (names.node(&node_label(sys, a), sys), names.node(&node_label(sys, b), sys));
            let ty = match link_tone(ty) {
                Some(tone) => term.paint(ty.name(), tone),
                None => ty.name().to_string(),
            };
            match back {
                Some(back) if back == there => format!("  {a} <-> {b}  {ty} {} GB/s{nv}", gbs(there)),
                Some(back) => format!("  {a} <-> {b}  {ty} {} GB/s, {} GB/s back{nv}", gbs(there), gbs(back)),
                None => format!("  {a} -> {b}  {ty} {} GB/s{nv}", gbs(there)),
            }
        })
        .collect()
}

/// The system as JSON: nodes with their links.
pub fn system_json(an: &Analysis) -> serde_json::Value {
    let sys: &System = &an.system;
    let mut nodes = Vec::new();
    for t in NodeType::ALL {
        for (i, n) in sys.list(t).iter().enumerate() {
            let me = NodeRef::new(t, i);
            let links: Vec<serde_json::Value> = n
                .links
                .iter()
                .map(|l| serde_json::json!({"to": node_label(sys, l.rem), "type": l.ty.name(), "bw": l.bw}))
                .collect();
            let mut node = serde_json::json!({
                "node": node_label(sys, me),
                "type": t.name(),
                "id": format!("{:x}", n.id),
                "desc": node_desc(an, me),
                "links": links,
            });
            if let Some(name) = names::node_pci_name(an, me) {
                node["pci_name"] = name.into();
            }
            nodes.push(node);
        }
    }
    serde_json::json!({
        "schema": 1,
        "input": an.input,
        "system": an.sys_rec,
        "gpus": an.gpus,
        "nets": an.nets,
        "trimmed": an.trimmed,
        "nodes": nodes,
    })
}

/// `topo fixtures`: the built-in machines, one a line.
pub fn fixtures_list(all: &[crate::fixtures::Fixture]) -> String {
    fixtures_list_with(all, &Term::default())
}

/// The built-in machines, descriptions wrapped to the terminal's width.
pub fn fixtures_list_with(all: &[crate::fixtures::Fixture], term: &Term) -> String {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::NOTHING);
    crate::render::term::fit(&mut t, term.width);
    t.set_header(vec!["NAME", "DESCRIPTION"]);
    for f in all {
        t.add_row(vec![f.name, f.description]);
    }
    let first = all.first().map_or("NAME", |f| f.name);
    let table = crate::render::term::table_text(&t, term.width);
    let hint = format!("Use one with --fixture NAME, e.g. `topo paths --fixture {first}`.");
    format!("{table}\n\n{}\n", crate::render::term::wrap(&hint, term.width, ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis(text: &str) -> Analysis {
        let (x, _) = crate::xml::parse(text, None).unwrap();
        crate::model::analyze(&x, "t", &crate::model::Options::default()).unwrap()
    }

    #[test]
    fn other_links_print_each_pair_once() {
        let (x, _) = crate::fixtures::get("dgx1-v100").unwrap().load().unwrap();
        let an = crate::model::analyze(&x, "t", &crate::model::Options::default()).unwrap();
        let lines = other_links(&an, &Term::default());
        // One inter-CPU link and the 16 NVLink pairs of the cube mesh.
        assert_eq!(lines.iter().filter(|l| l.contains(" SYS ")).count(), 1, "{lines:#?}");
        assert_eq!(lines.iter().filter(|l| l.contains(" NVL ")).count(), 16, "{lines:#?}");
        assert!(lines.iter().all(|l| l.contains(" <-> ")), "{lines:#?}");
        assert!(lines.contains(&"  CPU/0 <-> CPU/1  SYS 6.0 GB/s".to_string()), "{lines:#?}");
    }

    #[test]
    fn other_links_give_both_bandwidths_when_they_differ() {
        let gpu = |bus: &str, dev: u32, peer: &str, count: u32| {
            format!(
                "    <pci busid=\"{bus}\" class=\"0x030000\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n      <gpu dev=\"{dev}\" sm=\"86\" rank=\"{dev}\" gdr=\"0\">\n        <nvlink target=\"{peer}\" count=\"{count}\" tclass=\"0x030000\"/>\n      </gpu>\n    </pci>\n"
            )
        };
        let text = format!(
            "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"25\" modelid=\"1\">\n{}{}  </cpu>\n</system>\n",
            gpu("0000:01:00.0", 0, "0000:02:00.0", 4),
            gpu("0000:02:00.0", 1, "0000:01:00.0", 2)
        );
        let lines = other_links(&analysis(&text), &Term::default());
        assert_eq!(lines, vec!["  DEV of GPU0 <-> DEV of GPU1  NVL 48.0 GB/s, 24.0 GB/s back, NV4".to_string()]);
    }

    #[test]
    fn the_tree_fits_the_width() {
        use crate::render::term::check::{coloured, fits, same_text};
        for name in ["dgx-h100", "dgx1-v100", "gb200-nvl72-tray"] {
            let (x, _) = crate::fixtures::get(name).unwrap().load().unwrap();
            let opts = crate::model::Options { nodes: 2, ..crate::model::Options::default() };
            let an = crate::model::analyze(&x, "a/long/path/to/the/topology/file/of/this/machine.xml", &opts).unwrap();
            let whole = tree(&an);
            assert!(whole.lines().any(|l| l.chars().count() > 80), "{name}: nothing to wrap");
            for width in [60, 80, 100] {
                let text = tree_with(&an, &Term { width: Some(width), color: false });
                fits(&text, width, name);
                same_text(&whole, &text, name);
            }
            // NVLink and inter-CPU links in colour, when asked.
            assert!(coloured(&tree_with(&an, &Term { width: None, color: true })), "{name}");
            assert!(!coloured(&whole));
        }
    }

    #[test]
    fn cpus_are_described_without_gaps() {
        let k = Kind::Cpu { arch: cpu::ARCH_ARM, vendor: -1, model: -1, affinity: Some("ff".into()) };
        assert_eq!(cpu_desc(&k), "arm64, cpus 0-7");
        let k =
            Kind::Cpu { arch: cpu::ARCH_X86, vendor: cpu::VENDOR_INTEL, model: cpu::MODEL_INTEL_SRP, affinity: None };
        assert_eq!(cpu_desc(&k), "x86_64 Intel Sapphire Rapids");
    }

    #[test]
    fn affinity_masks_become_ranges() {
        assert_eq!(affinity_ranges("0000ffff"), "0-15");
        assert_eq!(affinity_ranges("00000001,00000003"), "0-1,32");
        assert_eq!(affinity_ranges("00000000"), "none");
    }
}
