//! `topo log` on synthetic NCCL logs: logs printed from topo's own model in the formats
//! of each era of NCCL releases (tests/support/nccl_log.rs), read back by
//! `topo::log::read_str`; the facts read must be the facts written. Also RCCL logs, a
//! 2.4 log and inputs that are not logs.

use proptest::prelude::*;

#[path = "support/nccl_log.rs"]
mod nccl_log;
use nccl_log::*;

mod common;

/// Read a synthetic log and list what differs from what it holds.
fn roundtrip(what: &str, log: &Log) -> Vec<String> {
    match topo::log::read_str(&log.text, "synthetic") {
        Ok(got) => differences(log, &got).into_iter().map(|d| format!("{what}: {d}")).collect(),
        Err(e) => vec![format!("{what}: read failed: {e}")],
    }
}

fn assert_none(failures: Vec<String>) {
    if !failures.is_empty() {
        let n = failures.len();
        // LOG_SYNTHETIC_SHOW=N shows more.
        let show = std::env::var("LOG_SYNTHETIC_SHOW").ok().and_then(|v| v.parse().ok()).unwrap_or(12);
        let shown: Vec<String> = failures.into_iter().take(show).collect();
        panic!("{n} difference(s):\n{}", shown.join("\n"));
    }
}

fn case(fixture: &'static str, nodes: usize, era: Era) -> Spec {
    Spec::new(fixture, nodes, era)
}

/// A topology of `fixtures/fsroot` (detection's test machines) as a writer input.
fn fsroot(name: &str) -> Topology {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/fsroot/{name}.xml"));
    Topology::Xml { name: name.to_string(), text: std::fs::read_to_string(path).unwrap() }
}

// ---------------------------------------------------------------------------------------
// Eras

#[test]
fn every_era_one_node() {
    let mut failures = Vec::new();
    for &era in ERAS {
        for fixture in ["dgx-h100", "workstation-4gpu", "dgx1-v100"] {
            let log = write(&case(fixture, 1, era), &Envelope::default());
            failures.extend(roundtrip(&format!("{fixture} x1 NCCL {}", era.name()), &log));
        }
    }
    assert_none(failures);
}

#[test]
fn every_era_two_nodes() {
    let mut failures = Vec::new();
    for &era in ERAS {
        for fixture in ["dgx-h100", "workstation-4gpu", "dgx1-v100"] {
            let log = write(&case(fixture, 2, era), &Envelope::default());
            failures.extend(roundtrip(&format!("{fixture} x2 NCCL {}", era.name()), &log));
        }
    }
    assert_none(failures);
}

/// The other machines: Grace Blackwell and Grace Hopper (C2C), and detection's test
/// machines read from their topology XML.
#[test]
fn other_machines() {
    let mut failures = Vec::new();
    for era in [Era::new(18, 1), Era::new(22, 3), Era::new(26, 6), Era::new(28, 9), Era::new(30, 7)] {
        for (fixture, nodes) in [("gb200-nvl72-tray", 1), ("gb200-nvl72-tray", 2), ("gh200", 2)] {
            let log = write(&case(fixture, nodes, era), &Envelope::default());
            failures.extend(roundtrip(&format!("{fixture} x{nodes} NCCL {}", era.name()), &log));
        }
        for name in ["ws-4gpu", "vm-flat", "dgx-h100"] {
            for nodes in [1, 2] {
                let mut spec = case("dgx-h100", nodes, era);
                spec.topology = fsroot(name);
                let log = write(&spec, &Envelope::default());
                failures.extend(roundtrip(&format!("fsroot {name} x{nodes} NCCL {}", era.name()), &log));
            }
        }
    }
    assert_none(failures);
}

/// Without NCCL_DEBUG_SUBSYS=GRAPH and TUNING: no system print, graphs, `Ring`/`Tree`
/// lines or tuning table; the INIT lines alone.
#[test]
fn init_lines_only() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let mut spec = case("dgx-h100", 2, era);
        spec.graph = false;
        spec.tuning = false;
        let log = write(&spec, &Envelope::default());
        assert!(log.expected.systems.is_empty() && log.expected.graphs.is_empty());
        failures.extend(roundtrip(&format!("INIT only, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// Split communicators: `ncclCommSplit ... parent ... color ... key` (2.21+), with the
/// commId until 2.22, `splitCount` 2.24 to 2.28, `childCount` 2.29+; 2.16 to 2.20 the
/// plain init lines with another commId (none are written before 2.16).
#[test]
fn split_communicators() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let mut spec = case("workstation-4gpu", 2, era);
        spec.split = true;
        let log = write(&spec, &Envelope::default());
        assert_eq!(log.expected.comms.len(), if era.since(16, 0) { 3 } else { 1 });
        failures.extend(roundtrip(&format!("split, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// `ncclCommInitRankConfig` names the init function from 2.23 (and `[Rank N]` START
/// lines from 2.29).
#[test]
fn init_function_names() {
    let mut failures = Vec::new();
    for era in [Era::new(23, 4), Era::new(28, 9), Era::new(29, 7), Era::new(30, 7)] {
        let mut spec = case("dgx1-v100", 1, era);
        spec.func = "ncclCommInitRankConfig";
        let log = write(&spec, &Envelope::default());
        failures.extend(roundtrip(&format!("InitRankConfig, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// Environment lines: numeric (`... to 4.`), level names, strings; the model runs with
/// the same variables.
#[test]
fn environment_lines() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let mut spec = case("dgx-h100", 2, era);
        spec.env = vec![
            ("NCCL_IB_TIMEOUT".into(), "20".into()),
            ("NCCL_MIN_NCHANNELS".into(), "4".into()),
            ("NCCL_NET_GDR_LEVEL".into(), "PHB".into()),
            ("NCCL_SOCKET_IFNAME".into(), "=eth0".into()),
            ("NCCL_ALGO".into(), "Ring,Tree".into()),
        ];
        let log = write(&spec, &Envelope::default());
        assert!(log.expected.env.iter().any(|e| e.name == "NCCL_MIN_NCHANNELS" && e.value == "4"));
        failures.extend(roundtrip(&format!("env, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// CollNet (every NIC CollNet capable): the CollNet graphs and their heads' `CollNet`
/// connection lines.
#[test]
fn collnet_lines() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let mut spec = case("dgx-h100", 2, era);
        spec.collnet = true;
        let log = write(&spec, &Envelope::default());
        if era.since(6, 0) {
            assert!(log.text.contains("via COLLNET/SHARP/"), "NCCL {}", era.name());
        }
        failures.extend(roundtrip(&format!("CollNet, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// Sockets instead of InfiniBand: `NET/Socket : Using [0]eth0:...`, `NET/Socket/N`.
#[test]
fn socket_network() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let mut spec = case("workstation-4gpu", 2, era);
        spec.net = Net::Socket;
        let log = write(&spec, &Envelope::default());
        assert!(log.text.contains("via NET/Socket/"));
        failures.extend(roundtrip(&format!("socket, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// Connection formats topo's model does not decide on the fixtures, forced: one process
/// per host (`P2P/direct pointer`), copy engines (`/CE`, `SHM/CE/CE`), P2P read, PXN
/// proxies `NET/IB/d(r)`, GDR over PCI `(PCI)`, multi-node NVLink `P2P/MNNVL`, and the
/// point-to-point connections after init (`Channel NN/1`, `/Shared`).
#[test]
fn forced_connection_formats() {
    let all = Variants {
        single_process: true,
        copy_engine: false,
        read: true,
        pxn: true,
        gdr_pci: true,
        mnnvl: false,
        p2p_ops: true,
    };
    let ce = Variants { copy_engine: true, mnnvl: true, p2p_ops: true, ..Variants::default() };
    let mut failures = Vec::new();
    for &era in ERAS {
        for (fixture, variants) in [("dgx-h100", all), ("workstation-4gpu", ce), ("dgx1-v100", ce)] {
            let mut spec = case(fixture, 2, era);
            spec.variants = variants;
            let log = write(&spec, &Envelope { order: Order::Mixed, ..envelope(13) });
            failures.extend(roundtrip(&format!("{fixture} {variants:?}, NCCL {}", era.name()), &log));
        }
    }
    assert_none(failures);
}

// ---------------------------------------------------------------------------------------
// NCCL's buffer sizes

/// 64 channels make `Trees` lines longer than NCCL's 1023-byte records (and, from 2.29,
/// than the 1022 characters of its own buffer): the items cut off are not read.
#[test]
fn long_lines_are_cut_as_nccl_cuts_them() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let mut spec = case("dgx-h100", 1, era);
        spec.env.push(("NCCL_MIN_NCHANNELS".into(), "64".into()));
        let log = write(&spec, &Envelope::default());
        let longest = log.text.lines().map(str::len).max().unwrap();
        if !era.since(29, 0) {
            assert!(longest <= 1023, "NCCL {}: a record of {longest} bytes", era.name());
        }
        let got = topo::log::read_str(&log.text, "synthetic").unwrap();
        if (got.lines.truncated > 0) != (log.truncated > 0) {
            failures.push(format!(
                "NCCL {}: {} records fill NCCL's buffers, {} counted cut",
                era.name(),
                log.truncated,
                got.lines.truncated
            ));
        }
        failures.extend(roundtrip(&format!("64 channels, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// Ring orders of 40 ranks: 20 printed without a mark until 2.22, `...` at 127
/// characters from 2.23.
#[test]
fn ring_orders_of_many_ranks() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let mut spec = case("dgx-h100", 5, era);
        spec.graph = false;
        let log = write(&spec, &Envelope::default());
        assert!(log.expected.rings.iter().all(|r| r.truncated));
        failures.extend(roundtrip(&format!("40 ranks, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

// ---------------------------------------------------------------------------------------
// Cases that once misread (each fixed in the reader)

/// Rank 0's tuning table in the three layouts: `Latency/AlgBw` (2.5; with `Max
/// NThreads` 2.6 to 2.17) and `Algorithm`/`Protocol` blocks (2.18+).
#[test]
fn tuning_tables() {
    let mut failures = Vec::new();
    for &era in ERAS {
        for (fixture, nodes) in [("dgx-h100", 2), ("workstation-4gpu", 1)] {
            let log = write(&case(fixture, nodes, era), &Envelope::default());
            assert!(log.expected.tuning.is_some());
            failures.extend(roundtrip(&format!("{fixture} x{nodes} tuning, NCCL {}", era.name()), &log));
        }
    }
    assert_none(failures);
}

/// 2.5-2.7 double-tree `Trees` lines of 32 channels pass NCCL's 1023-byte record: the
/// item cut (here before its `|` half) must not be read.
#[test]
fn double_trees_cut_at_1023_bytes() {
    let mut failures = Vec::new();
    for era in [Era::new(5, 6), Era::new(7, 8)] {
        let mut spec = case("dgx-h100", 2, era);
        spec.tuning = false;
        let log = write(&spec, &Envelope::default());
        failures.extend(roundtrip(&format!("double trees, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// 2.5 prints a NET node as `NET/x (n)`, n being the NET's network index (graph/topo.cc
/// `netNode->rank = info->net`), not a port: no asic/port/bw attributes.
#[test]
fn nccl_2_5_net_nodes() {
    let mut spec = case("dgx-h100", 2, Era::new(5, 6));
    spec.tuning = false;
    let log = write(&spec, &Envelope::default());
    assert_none(roundtrip("NET nodes, NCCL 2.5.6", &log));
}

/// 2.23+ split lines carry no commId: ranks with different `color` (after the same
/// parent) are in different communicators (init.cc: the child's hash is the parent's
/// with the split count and the color).
#[test]
fn split_communicators_by_color() {
    let mut failures = Vec::new();
    for &era in ERAS.iter().filter(|e| e.since(23, 0)) {
        let mut spec = case("workstation-4gpu", 2, era);
        spec.split = true;
        spec.tuning = false;
        let log = write(&spec, &Envelope::default());
        failures.extend(roundtrip(&format!("split, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// One process per host driving its GPUs from threads, split by color across hosts,
/// 2.23.4 (split lines with neither commId nor split count): every thread's `ncclComm`
/// has its own address, so each thread's split is its parent's first. The writer once
/// gave a process's threads one address, and the reader then counted a second split of
/// that parent (proptest seeds 1 and 4 of `facts_read_are_facts_written`).
#[test]
fn split_communicators_of_threads_across_hosts() {
    let mut failures = Vec::new();
    for (nodes, seed) in [(3, 1606676955956573516), (2, 143640073288893403)] {
        let mut spec = case("dgx-h100", nodes, Era::new(23, 4));
        spec.split = true;
        spec.graph = false;
        spec.tuning = false;
        spec.variants.single_process = true;
        let log = write(&spec, &Envelope { order: Order::Hosts, ..envelope(seed) });
        assert_eq!(log.expected.comms.len(), 3);
        failures.extend(roundtrip(&format!("threads, split across {nodes} hosts, NCCL 2.23.4"), &log));
    }
    assert_none(failures);
}

/// Until 2.18.1 there is no `Init START`: the connections a process sets up (on its
/// proxy thread) belong to the communicator whose `Init COMPLETE` follows them in that
/// process (init.cc: transports are set up inside the init).
#[test]
fn connections_before_init_complete() {
    let mut spec = case("workstation-4gpu", 2, Era::new(18, 1));
    spec.split = true;
    spec.tuning = false;
    let log = write(&spec, &Envelope::default());
    assert_none(roundtrip("split, NCCL 2.18.1", &log));
}

/// One process per host driving every GPU from its own thread, with split
/// communicators: a connection line belongs to the communicator that has its ranks
/// (here only the first one has them all).
#[test]
fn connections_of_a_process_with_threads() {
    let mut spec = case("dgx-h100", 1, Era::new(20, 5));
    spec.split = true;
    spec.graph = false;
    spec.tuning = false;
    spec.variants.single_process = true;
    let log = write(&spec, &Envelope { order: Order::Hosts, ..Envelope::default() });
    assert_none(roundtrip("one process, split, NCCL 2.20.5", &log));
}

/// Every graph a rank prints is a fact of its own (init.cc prints ring, tree, CollNet,
/// NVLS graphs in turn), even when two print the same text: with every NIC CollNet
/// capable the 2.18.1 model's tree graph and CollNet graph are equal.
#[test]
fn identical_graphs_of_one_init() {
    let mut failures = Vec::new();
    for era in [Era::new(7, 8), Era::new(12, 12), Era::new(18, 1)] {
        let mut spec = case("dgx-h100", 2, era);
        spec.collnet = true;
        spec.tuning = false;
        let log = write(&spec, &Envelope::default());
        failures.extend(roundtrip(&format!("CollNet, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// A log without NCCL's prefixes (one communicator): connection lines after the last
/// `Init COMPLETE` (point-to-point operations) belong to the only communicator.
#[test]
fn connections_after_the_last_init_complete() {
    let mut spec = case("dgx-h100", 1, Era::new(12, 12));
    spec.graph = false;
    spec.tuning = false;
    spec.variants.p2p_ops = true;
    let log = write(&spec, &Envelope { prefix: Prefix::Stripped, ..Envelope::default() });
    assert_none(roundtrip("stripped, p2p operations, NCCL 2.12.12", &log));
}

// ---------------------------------------------------------------------------------------
// The envelope

fn envelope(seed: u64) -> Envelope {
    Envelope { seed, ..Envelope::default() }
}

#[test]
fn prefix_forms() {
    let mut failures = Vec::new();
    for prefix in [Prefix::Nccl, Prefix::Stripped, Prefix::DevOnly, Prefix::OpenMpi, Prefix::Srun, Prefix::Torchrun] {
        for era in [Era::new(7, 8), Era::new(18, 1), Era::new(23, 4), Era::new(30, 7)] {
            let nodes = if matches!(prefix, Prefix::Stripped | Prefix::DevOnly) { 1 } else { 2 };
            let env = Envelope { prefix, ..envelope(3) };
            let log = write(&case("dgx1-v100", nodes, era), &env);
            failures.extend(roundtrip(&format!("{prefix:?}, NCCL {}", era.name()), &log));
        }
    }
    assert_none(failures);
}

#[test]
fn interleaved_ranks_and_hosts() {
    let mut failures = Vec::new();
    for order in [Order::Hosts, Order::Mixed] {
        for &era in ERAS {
            for seed in 1..3 {
                let env = Envelope { order, ..envelope(seed) };
                let log = write(&case("dgx-h100", 2, era), &env);
                failures.extend(roundtrip(&format!("{order:?} seed {seed}, NCCL {}", era.name()), &log));
            }
        }
    }
    assert_none(failures);
}

#[test]
fn crlf_and_ansi_colour() {
    let mut failures = Vec::new();
    for era in [Era::new(5, 6), Era::new(21, 5), Era::new(27, 5), Era::new(30, 7)] {
        for (crlf, ansi) in [(true, false), (false, true), (true, true)] {
            let env = Envelope { crlf, ansi, order: Order::Mixed, ..envelope(5) };
            let log = write(&case("workstation-4gpu", 2, era), &env);
            assert_eq!(log.text.contains('\r'), crlf);
            failures.extend(roundtrip(&format!("crlf {crlf} ansi {ansi}, NCCL {}", era.name()), &log));
        }
    }
    assert_none(failures);
}

/// Two processes writing at once: a record cut after a space of its message, the next
/// record on the same line. The cut record's facts are not read.
#[test]
fn spliced_records() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let env = Envelope { splices: 12, order: Order::Mixed, ..envelope(7) };
        let log = write(&case("dgx-h100", 2, era), &env);
        assert!(log.spliced > 0);
        let got = topo::log::read_str(&log.text, "synthetic").unwrap();
        if got.lines.cut != log.spliced as u64 {
            failures.push(format!("NCCL {}: {} records cut, {} counted", era.name(), log.spliced, got.lines.cut));
        }
        failures.extend(roundtrip(&format!("splices, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

#[test]
fn program_output_in_between() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let env = Envelope { foreign: 25, order: Order::Mixed, ..envelope(11) };
        let log = write(&case("dgx1-v100", 2, era), &env);
        failures.extend(roundtrip(&format!("foreign lines, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

/// WARN records: an empty line first, `file:line NCCL WARN`, a timestamp before the
/// host from 2.26.
#[test]
fn warnings_with_timestamps() {
    let mut failures = Vec::new();
    for &era in ERAS {
        let mut spec = case("workstation-4gpu", 2, era);
        spec.warn = true;
        let log = write(&spec, &Envelope { order: Order::Mixed, ..envelope(2) });
        assert_eq!(log.text.contains("] gpu-node-0:"), era.since(26, 0));
        failures.extend(roundtrip(&format!("WARN, NCCL {}", era.name()), &log));
    }
    assert_none(failures);
}

// ---------------------------------------------------------------------------------------
// Not NCCL 2.5+ logs

#[test]
fn rccl_logs_are_recognised() {
    // The banner, XGMI links, or only the ` comm 0x... nRanks NN` RCCL appends.
    for (banner, xgmi) in [(true, true), (false, true), (false, false)] {
        let text = rccl_log(banner, xgmi);
        let got = topo::log::read_str(&text, "rccl").expect("an RCCL log is read (and reported as RCCL)");
        assert_eq!(got.dialect, topo::log::Dialect::Rccl, "banner {banner}, XGMI {xgmi}");
        assert!(got.connections.is_empty() && got.trees.is_empty() && got.ring_links.is_empty());
    }
}

#[test]
fn nccl_2_4_is_recognised() {
    let text = nccl_2_4_log();
    let got = topo::log::read_str(&text, "nccl-2.4").expect("a 2.4 log is read with a warning");
    assert!(!got.warnings.is_empty(), "no warning for a 2.4 log");
    if let Some(v) = &got.nccl_version {
        assert_eq!((v.major, v.minor, v.patch), (2, 4, 8));
    }
}

/// 2.4's lines look like 2.5's in part (`Ring 00 : a[d] -> b[d] via P2P/IPC`, with the
/// CUDA device in brackets); none is read as a fact.
#[test]
fn nccl_2_4_lines_are_not_read() {
    let got = topo::log::read_str(&nccl_2_4_log(), "nccl-2.4").unwrap();
    assert!(got.trees.is_empty(), "2.4 Trees read");
    assert!(got.connections.is_empty(), "{} 2.4 connection lines read", got.connections.len());
    assert!(got.rings.is_empty() && got.ring_links.is_empty(), "2.4 rings read");
}

#[test]
fn non_logs_are_refused() {
    for (name, bytes) in non_logs() {
        let r = topo::log::read(&mut bytes.as_slice(), name);
        assert!(r.is_err(), "{name}: read as a log");
    }
}

// ---------------------------------------------------------------------------------------
// Any era, machine, job and envelope

fn arb_spec() -> impl Strategy<Value = (Spec, Envelope)> {
    let fixtures = prop::sample::select(vec!["dgx-h100", "dgx1-v100", "workstation-4gpu", "gb200-nvl72-tray"]);
    let eras = prop::sample::select(ERAS.to_vec());
    let orders = prop::sample::select(vec![Order::Sequential, Order::Hosts, Order::Mixed]);
    let prefixes = prop::sample::select(vec![
        Prefix::Nccl,
        Prefix::Stripped,
        Prefix::DevOnly,
        Prefix::OpenMpi,
        Prefix::Srun,
        Prefix::Torchrun,
    ]);
    (
        fixtures,
        eras,
        1usize..=3,
        any::<u64>(),
        orders,
        prefixes,
        any::<[bool; 6]>(),
        any::<[bool; 7]>(),
        0usize..6,
        0usize..8,
    )
        .prop_map(|(fixture, era, nodes, seed, order, prefix, flags, v, splices, foreign)| {
            let mut spec = Spec::new(fixture, nodes, era);
            spec.graph = flags[0] || flags[1];
            spec.tuning = flags[1];
            spec.split = flags[2];
            spec.warn = flags[3];
            spec.collnet = flags[0] && flags[4];
            spec.variants = Variants {
                single_process: v[0],
                copy_engine: v[1],
                read: v[2],
                pxn: v[3],
                gdr_pci: v[4],
                mnnvl: v[5],
                p2p_ops: v[6],
            };
            let env = Envelope { seed, order, prefix, crlf: flags[4], ansi: flags[5], splices, foreign };
            (spec, env)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn facts_read_are_facts_written((spec, env) in arb_spec()) {
        let log = write(&spec, &env);
        let what = format!("{:?} x{} NCCL {} {:?}", spec.topology, spec.nodes, spec.era.name(), env);
        let d = roundtrip(&what, &log);
        prop_assert!(d.is_empty(), "{}", d.join("\n"));
    }
}
