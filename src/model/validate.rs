//! Checks that stop a command before the model runs: values no real machine has, and
//! links NCCL would silently drop. Every command goes through [`validate`] (it is part of
//! [`crate::model::analyze`]), so each of them refuses the same inputs with the same words.
//!
//! Only what NCCL's loader reads is checked (see [`crate::xml::nccl_reads`]); elements it
//! skips are the lint's business.

use std::collections::HashSet;

use crate::error::Error;
use crate::model::NodeType;
use crate::model::build::class_type;
use crate::release::XmlLimits;
use crate::xml::{self, NCCL_MAX_STR, NodeId, Xml};

/// Widest PCIe link.
pub const MAX_LINK_WIDTH: i64 = 32;
/// Fastest network port we believe in, in Mb/s (3.2 Tb/s).
pub const MAX_NET_SPEED: i64 = 3_200_000;
/// Compute capabilities (major * 10 + minor) we believe in.
pub const SM_RANGE: std::ops::RangeInclusive<i64> = 10..=200;
/// Most NVLinks from one GPU to one target.
pub const MAX_NVLINKS: i64 = 36;
/// Most C2C links from one GPU.
pub const MAX_C2C_LINKS: i64 = 64;
/// Fastest single C2C link, MB/s (1 TB/s).
pub const MAX_C2C_BW: i64 = 1_000_000;
/// Most nodes of one type NCCL 2.30.7 builds (`NCCL_TOPO_MAX_NODES`; older releases:
/// [`XmlLimits`]).
pub const MAX_NODES_PER_TYPE: usize = 640;
/// Most children of one XML element topo reads, whatever the release (2.30.7's
/// `MAX_SUBS`; releases before 2.21 overrun 32 without failing).
pub const MAX_CHILDREN: usize = 640;
/// Longest bus id accepted (NCCL writes 12 characters, `0000:0f:00.0`).
pub const MAX_BUSID_LEN: usize = 32;
/// The bus id NCCL writes for an NVLink target it cannot see (an NVSwitch).
pub const INVISIBLE_TARGET: &str = "fffffff:ffff:ff";

/// The message for a name or value NCCL's tokenizer has no room for (`at`: the
/// shortest length it refuses; `token`: "name" or "value", as its message says).
fn too_long(what: &str, text: &str, token: &str, at: usize) -> String {
    let shown: String = text.chars().take(40).collect();
    format!(
        "{what} \"{shown}...\" is {} bytes: NCCL fails its init at {at} or more ('Error : {token} ... too long (max {NCCL_MAX_STR})')",
        text.len()
    )
}

/// Refuse a topology with absurd numbers or NVLinks to GPUs that are not in it.
/// `file` names the input in messages.
pub fn validate(x: &Xml, file: &str, limits: XmlLimits) -> Result<(), Error> {
    let Some(root) = x.root() else { return Ok(()) };
    let err = |id: NodeId, message: String| Error::Input {
        file: file.to_string(),
        message: format!("line {}: {message}", x.line(id)),
    };

    // Elements NCCL reads, in document order.
    let mut read = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        read.push(n);
        for &c in x.children(n).iter().rev() {
            if xml::nccl_reads(x.name(n), x.name(c)) {
                stack.push(c);
            }
        }
    }
    // Bus ids of the GPUs NCCL ranks (a <gpu> with a dev under a <pci>), as NCCL compares them.
    let gpus: HashSet<i64> = read
        .iter()
        .filter(|&&n| x.name(n) == "gpu" && x.attr(n, "dev").is_some_and(|d| xml::strtol(d) >= 0))
        .filter_map(|&g| x.parent(g).and_then(|p| x.attr(p, "busid")))
        .map(xml::busid_to_i64)
        .collect();

    // Sizes NCCL refuses (it fails its init), checked before anything is built from them.
    // Its parser keeps the elements it reads in an array of `max_nodes` (unknown
    // elements are skipped and take no room), and fails as soon as the array is full
    // and one more tag (even a closing one) is to be read: a file holds at most
    // `max_nodes - 1` elements NCCL reads.
    if read.len() >= limits.max_nodes {
        return Err(err(
            read[limits.max_nodes - 1],
            format!(
                "{} elements NCCL reads; its XML parser holds fewer than {} ('XML parser is limited to {} nodes')",
                read.len(),
                limits.max_nodes,
                limits.max_nodes
            ),
        ));
    }
    // NCCL's tokenizer reads every tag of the file, read or skipped, into buffers of
    // NCCL_MAX_STR + 1 bytes, and fails when a name or value does not fit: an element
    // name or a value of 254 bytes, an attribute name of 255 (its '=' ends it before
    // the check). Values are checked from 2.27.3; before, a long one runs past the
    // buffer (a warning of the XML lint).
    for (id, n) in x.nodes.iter().enumerate().filter(|(_, n)| !n.removed && n.line > 0) {
        if n.name.len() >= NCCL_MAX_STR - 1 {
            return Err(err(id, too_long("element name", &n.name, "name", NCCL_MAX_STR - 1)));
        }
        for (k, v) in &n.attrs {
            if k.len() >= NCCL_MAX_STR {
                let what = format!("attribute name in <{}>", n.name);
                return Err(err(id, too_long(&what, k, "name", NCCL_MAX_STR)));
            }
            if limits.values_checked && v.len() >= NCCL_MAX_STR - 1 {
                let what = format!("<{}> attribute '{k}'", n.name);
                return Err(err(id, too_long(&what, v, "value", NCCL_MAX_STR - 1)));
            }
        }
    }

    let mut per_type: std::collections::HashMap<&str, usize> = Default::default();
    for &id in &read {
        let children = x.children(id).len();
        let max = if limits.subs_checked { limits.max_subs.min(MAX_CHILDREN) } else { MAX_CHILDREN };
        if children > max {
            return Err(err(
                id,
                format!(
                    "<{}> has {children} children; NCCL keeps at most {max} ('XML parser is limited to {max} subnodes')",
                    x.name(id)
                ),
            ));
        }
        let name = x.name(id);
        if matches!(name, "cpu" | "pci" | "gpu" | "nic" | "net") {
            let n = per_type.entry(name).or_default();
            *n += 1;
            if *n > limits.max_nodes_per_type {
                return Err(err(
                    id,
                    format!(
                        "more than {} <{name}> elements: NCCL's limit of nodes of one type",
                        limits.max_nodes_per_type
                    ),
                ));
            }
        }
        for key in ["busid", "target"] {
            // NCCL before 2.30.7 writes `target=""` for an NVLink remote NVML cannot
            // name (a hidden NVSwitch); the target is only read for GPU remotes.
            let hidden_remote = key == "target" && name == "nvlink" && x.attr(id, key) == Some("");
            if let Some(b) = x.attr(id, key)
                && !hidden_remote
                && !is_busid_like(b)
            {
                let shown: String = b.chars().take(40).collect();
                let more = if b.chars().count() > 40 { "..." } else { "" };
                return Err(err(
                    id,
                    format!(
                        "<{name}> {key}=\"{shown}{more}\" ({} characters) is not a PCI bus id (hex digits, ':' and '.', at most {MAX_BUSID_LEN})",
                        b.chars().count()
                    ),
                ));
            }
        }
    }

    for &id in &read {
        match x.name(id) {
            "pci" => {
                if let Some(w) = x.attr(id, "link_width").and_then(xml::parse_c_int)
                    && (!(0..=MAX_LINK_WIDTH).contains(&w) || (w != 0 && w & (w - 1) != 0))
                {
                    return Err(err(
                        id,
                        format!(
                            "<pci busid=\"{}\"> link_width=\"{w}\" is not a PCIe link width (0, 1, 2, 4, 8, 16 or 32)",
                            x.attr(id, "busid").unwrap_or("?")
                        ),
                    ));
                }
            }
            "gpu" => {
                if let Some(s) = x.attr(id, "sm") {
                    match xml::parse_c_int(s) {
                        Some(v) if SM_RANGE.contains(&v) => {}
                        Some(v) => {
                            return Err(err(
                                id,
                                format!(
                                    "<gpu> sm=\"{v}\" is not a compute capability (major*10+minor, {} to {})",
                                    SM_RANGE.start(),
                                    SM_RANGE.end()
                                ),
                            ));
                        }
                        None => {
                            return Err(err(
                                id,
                                format!("<gpu> sm=\"{s}\" is not a number (compute capability, e.g. 90)"),
                            ));
                        }
                    }
                }
            }
            "net" => {
                if let Some(v) = x.attr(id, "speed").and_then(xml::parse_c_int)
                    && !(0..=MAX_NET_SPEED).contains(&v)
                {
                    return Err(err(
                        id,
                        format!(
                            "<net name=\"{}\"> speed=\"{v}\" is not a port speed in Mb/s (0 to {MAX_NET_SPEED})",
                            x.attr(id, "name").unwrap_or("?")
                        ),
                    ));
                }
            }
            "nvlink" => check_nvlink(x, id, &gpus, &err)?,
            "c2c" => {
                for (key, max, unit) in [("count", MAX_C2C_LINKS, "links"), ("bw", MAX_C2C_BW, "MB/s per link")] {
                    let Some(s) = x.attr(id, key) else { continue };
                    match xml::parse_c_int(s) {
                        Some(v) if (0..=max).contains(&v) => {}
                        _ => return Err(err(id, format!("<c2c> {key}=\"{s}\" is out of range (0 to {max} {unit})"))),
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A bus id in any form NCCL reads: hex digits with ':' and '.' separators, short.
fn is_busid_like(b: &str) -> bool {
    !b.is_empty() && b.len() <= MAX_BUSID_LEN && b.bytes().all(|c| c.is_ascii_hexdigit() || c == b':' || c == b'.')
}

fn check_nvlink(x: &Xml, id: NodeId, gpus: &HashSet<i64>, err: &dyn Fn(NodeId, String) -> Error) -> Result<(), Error> {
    let count = x.attr(id, "count");
    if let Some(s) = count {
        match xml::parse_c_int(s) {
            Some(v) if (0..=MAX_NVLINKS).contains(&v) => {}
            _ => return Err(err(id, format!("<nvlink> count=\"{s}\" is out of range (0 to {MAX_NVLINKS} links)"))),
        }
    }
    let (Some(tclass), Some(target)) = (x.attr(id, "tclass"), x.attr(id, "target")) else { return Ok(()) };
    if class_type(tclass) != NodeType::Gpu || target.eq_ignore_ascii_case(INVISIBLE_TARGET) {
        return Ok(());
    }
    if !gpus.contains(&xml::busid_to_i64(target)) {
        return Err(err(
            id,
            format!(
                "NVLink target {target} is not a GPU in this file (NCCL would silently drop these {} links); fix or remove the <nvlink>",
                count.unwrap_or("?")
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(body: &str) -> Result<(), Error> {
        check_for(body, XmlLimits::default())
    }

    fn check_for(body: &str, limits: XmlLimits) -> Result<(), Error> {
        let text = format!(
            "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\">\n{body}  </cpu>\n</system>\n"
        );
        let (x, _) = xml::parse(&text, None).unwrap();
        validate(&x, "t.xml", limits)
    }

    fn gpu(busid: &str, width: &str, sm: &str, inner: &str) -> String {
        format!(
            "    <pci busid=\"{busid}\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"{width}\">\n      <gpu dev=\"0\" sm=\"{sm}\" rank=\"0\" gdr=\"1\">\n{inner}      </gpu>\n    </pci>\n"
        )
    }

    fn msg(r: Result<(), Error>) -> String {
        r.expect_err("expected an error").to_string()
    }

    #[test]
    fn sane_files_pass() {
        let link = "        <nvlink target=\"0000:02:00.0\" count=\"12\" tclass=\"0x030200\"/>\n";
        let body = gpu("0000:01:00.0", "16", "80", link) + &gpu("0000:02:00.0", "0", "80", "");
        check(&body).unwrap();
        // The invisible NVSwitch and a link to the GPU itself (seen in Azure dumps) are fine.
        let odd = "        <nvlink target=\"fffffff:ffff:ff\" count=\"12\" tclass=\"0x068000\"/>\n        <nvlink target=\"0000:01:00.0\" count=\"2\" tclass=\"0x030200\"/>\n        <c2c bw=\"40000\" count=\"10\"/>\n";
        check(&gpu("0000:01:00.0", "16", "90", odd)).unwrap();
    }

    #[test]
    fn dangling_nvlink_is_an_error_naming_the_line() {
        let link = "        <nvlink target=\"0000:09:00.0\" count=\"4\" tclass=\"0x030200\"/>\n";
        let m = msg(check(&gpu("0000:01:00.0", "16", "80", link)));
        assert!(m.starts_with("t.xml: line 5: NVLink target 0000:09:00.0 is not a GPU in this file"), "{m}");
        assert!(m.contains("drop these 4 links"), "{m}");
        // Links to an NVSwitch or CPU class are not GPU targets.
        let sw = "        <nvlink target=\"0000:09:00.0\" count=\"4\" tclass=\"0x068000\"/>\n";
        check(&gpu("0000:01:00.0", "16", "80", sw)).unwrap();
    }

    #[test]
    fn absurd_numbers_are_errors() {
        assert!(
            msg(check(&gpu("0000:01:00.0", "12", "80", "")))
                .contains("line 3: <pci busid=\"0000:01:00.0\"> link_width=\"12\"")
        );
        assert!(msg(check(&gpu("0000:01:00.0", "64", "80", ""))).contains("link_width=\"64\""));
        assert!(msg(check(&gpu("0000:01:00.0", "-4", "80", ""))).contains("link_width=\"-4\""));
        assert!(msg(check(&gpu("0000:01:00.0", "16", "9", ""))).contains("line 4: <gpu> sm=\"9\""));
        assert!(msg(check(&gpu("0000:01:00.0", "16", "900", ""))).contains("sm=\"900\""));
        assert!(msg(check(&gpu("0000:01:00.0", "16", "abc", ""))).contains("sm=\"abc\" is not a number"));
        let nv = |c: &str| {
            gpu(
                "0000:01:00.0",
                "16",
                "90",
                &format!("        <nvlink target=\"fffffff:ffff:ff\" count=\"{c}\" tclass=\"0x068000\"/>\n"),
            )
        };
        assert!(msg(check(&nv("37"))).contains("line 5: <nvlink> count=\"37\""));
        assert!(msg(check(&nv("-1"))).contains("count=\"-1\""));
        let c2c =
            |bw: &str, n: &str| gpu("0000:01:00.0", "16", "90", &format!("        <c2c bw=\"{bw}\" count=\"{n}\"/>\n"));
        assert!(msg(check(&c2c("-5", "10"))).contains("<c2c> bw=\"-5\""));
        assert!(msg(check(&c2c("40000", "1000"))).contains("<c2c> count=\"1000\""));
        let net = |speed: &str| {
            format!(
                "    <pci busid=\"0000:05:00.0\" class=\"0x020000\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n      <nic>\n        <net name=\"mlx5_0\" dev=\"0\" speed=\"{speed}\"/>\n      </nic>\n    </pci>\n"
            )
        };
        assert!(msg(check(&net("-100"))).contains("line 5: <net name=\"mlx5_0\"> speed=\"-100\""));
        assert!(msg(check(&net("4000000"))).contains("speed=\"4000000\""));
        check(&net("400000")).unwrap();
        check(&net("0")).unwrap();
    }

    #[test]
    fn sizes_nccl_refuses_are_errors() {
        let m = msg(check(&gpu(&"&amp;".repeat(50), "16", "80", "")));
        assert!(m.contains("busid=\"&amp;&amp;") && m.contains("(250 characters) is not a PCI bus id"), "{m}");
        assert!(m.len() < 300, "the message does not repeat a long value: {m}");
        // Longer values fail NCCL's tokenizer first (2.27.3 and later).
        let m = msg(check(&gpu(&"&amp;".repeat(1000), "16", "80", "")));
        assert!(m.contains("busid") && m.contains("5000 bytes: NCCL fails its init at 254 or more"), "{m}");
        assert!(m.len() < 300, "the message does not repeat a huge value: {m}");
        let branches = |n: usize| -> String {
            (0..n).map(|i| gpu(&format!("0000:{:02x}:{:02x}.0", i / 32, i % 32), "16", "80", "")).collect()
        };
        // <system>, <cpu> and two elements per GPU: 254 load, 256 fill NCCL's array.
        check(&branches(126)).unwrap();
        let m = msg(check(&branches(127)));
        assert!(m.contains("256 elements NCCL reads; its XML parser holds fewer than 256"), "{m}");
        // Thousands of GPUs stop there, before anything is built.
        let m = msg(check(&branches(MAX_NODES_PER_TYPE + 1)));
        assert!(m.contains("1284 elements NCCL reads"), "{m}");
        // Elements NCCL skips take no room.
        let skipped: String = (0..300).map(|i| format!("    <foo n=\"{i}\"/>\n")).collect();
        check(&(branches(2) + &skipped)).unwrap();
    }

    /// The limits are the release's: 130 bridges under one CPU load in 2.29.7, fail
    /// 2.21.5's 128 children; 200 GPU branches load before 2.21 (1024 elements), fail
    /// from 2.21 (256); 303 <pci> fail 2.20.5's 256 nodes per type.
    #[test]
    fn sizes_follow_the_release() {
        use crate::release::Release;
        let limits = |v: &str| Release::parse(v).unwrap().xml_limits();
        let branches = |n: usize| -> String {
            (0..n).map(|i| gpu(&format!("0000:{:02x}:{:02x}.0", i / 32, i % 32), "16", "80", "")).collect()
        };
        let bridges: String =
            (0..130).map(|i| format!("    <pci busid=\"0000:{:02x}:00.0\" class=\"0x060400\"/>\n", i + 1)).collect();
        check_for(&bridges, limits("2.29.7")).unwrap();
        let m = msg(check_for(&bridges, limits("2.21.5")));
        assert!(m.contains("<cpu> has 130 children; NCCL keeps at most 128"), "{m}");
        // Before 2.21 the children array overruns silently: the lint warns, the model reads.
        check_for(&branches(200), limits("2.20.5")).unwrap();
        let m = msg(check_for(&branches(200), limits("2.29.7")));
        assert!(m.contains("402 elements NCCL reads; its XML parser holds fewer than 256"), "{m}");
        // Three switches of 100 GPUs each: 303 <pci>, no element above 128 children.
        let switches: String = (0..3)
            .map(|s| {
                let inner: String = (0..100)
                    .map(|i| gpu(&format!("0000:{:02x}:{:02x}.0", 8 * s + i / 16, i % 16), "16", "80", ""))
                    .collect();
                format!("    <pci busid=\"0001:{s:02x}:00.0\" class=\"0x060400\">\n{inner}    </pci>\n")
            })
            .collect();
        let m = msg(check_for(&switches, limits("2.20.5")));
        assert!(m.contains("more than 256 <pci> elements"), "{m}");
        let m = msg(check_for(&switches, limits("2.27.3")));
        assert!(m.contains("605 elements NCCL reads"), "{m}");
    }

    #[test]
    fn elements_nccl_skips_are_not_checked() {
        let body = "    <pci busid=\"0000:01:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n      <gpu dev=\"0\" sm=\"80\" rank=\"0\" gdr=\"1\"/>\n      <extra>\n        <gpu sm=\"1\"/>\n      </extra>\n    </pci>\n";
        check(body).unwrap();
    }
}
