//! `topo::log::read` on logs written here from NCCL's formats (release forms no shared
//! log holds), and on input that is not a clean log: binary data, XML, empty input, a
//! log cut short, CRLF, terminal colours, spliced lines, random text and mutated logs.
//! Nothing may panic.

use topo::log::{Dialect, LogFacts, TreeSource, VersionSource, read, read_str};

fn ok(text: &str) -> LogFacts {
    read_str(text, "t.log").unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> String {
    read_str(text, "t.log").expect_err("an error").to_string()
}

/// xorshift64*: deterministic noise without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Two ranks of a 2.23-style job: version, comm lines, system print, paths, graphs,
/// rings, trees, connections.
fn job_2_23() -> String {
    let mut s = String::new();
    for (tid, rank, bus) in [(11, 0, "7000"), (12, 1, "8000")] {
        let p = format!("gpu-a:100{rank}:{tid} [{rank}] NCCL INFO ");
        s += &format!("{p}NCCL version 2.23.4+cuda12.6\n");
        s += &format!(
            "{p}ncclCommInitRank comm 0xa{rank} rank {rank} nranks 2 cudaDev {rank} nvmlDev {rank} busId {bus} commId 0xfeed - Init START\n"
        );
        s += &format!("{p}=== System : maxBw 48.0 totalBw 48.0 ===\n");
        s += &format!("{p}CPU/0-0 (1/1/2)\n");
        s += &format!("{p}+ PCI[24.0] - GPU/0-7000 (0)\n");
        s += &format!("{p}              + NVL[48.0] - GPU/0-8000\n");
        s += &format!("{p}+ PCI[24.0] - GPU/0-8000 (1)\n");
        s += &format!("{p}              + NVL[48.0] - GPU/0-7000\n");
        s += &format!("{p}==========================================\n");
        s += &format!("{p}GPU/0-7000 :GPU/0-7000 (0/5000.0/LOC) GPU/0-8000 (1/48.0/NVL) CPU/0-0 (1/24.0/PHB) \n");
        s += &format!("{p}GPU/0-8000 :GPU/0-7000 (1/48.0/NVL) GPU/0-8000 (0/5000.0/LOC) CPU/0-0 (1/24.0/PHB) \n");
        s += &format!("{p}Pattern 4, crossNic 0, nChannels 1, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1\n");
        s += &format!("{p} 0 : GPU/0 GPU/1\n");
        s += &format!("{p}comm 0xa{rank} rank {rank} nRanks 2 nNodes 1 localRanks 2 localRank {rank} MNNVL 0\n");
        s += &format!("{p}Ring 00 : {o} -> {rank} -> {o}\n", o = 1 - rank);
        if rank == 0 {
            s += &format!("{p}Channel 00/02 : 0 1\n");
            s += &format!("{p}Channel 01/02 : 0 1\n");
        }
        s += &format!(
            "{p}Trees [0] {}->{rank}->{}\n",
            if rank == 0 { "1/-1/-1" } else { "-1/-1/-1" },
            if rank == 0 { -1 } else { 0 }
        );
        s += &format!(
            "gpu-a:100{rank}:9{rank} [{rank}] NCCL INFO Channel 00/0 : {rank}[{rank}] -> {o}[{o}] via P2P/CUMEM/read\n",
            o = 1 - rank
        );
        s += &format!(
            "{p}ncclCommInitRank comm 0xa{rank} rank {rank} nranks 2 cudaDev {rank} nvmlDev {rank} busId {bus} commId 0xfeed - Init COMPLETE\n"
        );
    }
    s
}

#[test]
fn a_clean_job() {
    let f = ok(&job_2_23());
    let v = f.nccl_version.as_ref().unwrap();
    assert_eq!((v.value.as_str(), v.source), ("2.23.4", VersionSource::VersionLine));
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    assert_eq!(f.lines.unknown, 0);
    assert_eq!(f.comms.len(), 1);
    assert_eq!((f.comms[0].nranks, f.comms[0].nnodes, f.comms[0].primary), (2, Some(1), true));
    assert_eq!(f.ranks.len(), 2);
    assert!(f.ranks.iter().all(|r| r.complete && r.local_rank == Some(r.rank)));
    // One host, one complete print kept (rank 1's repeats it).
    assert_eq!(f.systems.len(), 1);
    assert_eq!((f.systems[0].nodes.len(), f.systems[0].links.len(), f.systems[0].paths.len()), (3, 3, 6));
    assert_eq!(f.graphs.len(), 2);
    assert_eq!(f.graphs.iter().map(|g| g.rank).collect::<Vec<_>>(), [Some(0), Some(1)]);
    assert_eq!(f.rings.len(), 2);
    assert_eq!(f.rings[0].rank, Some(0));
    assert_eq!(f.ring_links.len(), 2);
    assert_eq!(f.trees.len(), 2);
    assert_eq!(f.connections.len(), 2);
    assert!(f.connections.iter().all(|c| c.read && c.comm == Some(0) && c.role.as_deref() == Some("ring")));
}

#[test]
fn repeated_input_dedupes() {
    let one = ok(&job_2_23());
    let many = ok(&job_2_23().repeat(50));
    assert_eq!(many.graphs.len(), one.graphs.len());
    assert_eq!(many.connections.len(), one.connections.len());
    assert_eq!(many.trees.len(), one.trees.len());
    assert_eq!(many.systems.len(), 1);
    assert_eq!(many.lines.physical, one.lines.physical * 50);
}

#[test]
fn crlf_and_colours_read_the_same() {
    let plain = ok(&job_2_23());
    let crlf = ok(&job_2_23().replace('\n', "\r\n"));
    assert_eq!(crlf.graphs, plain.graphs);
    assert_eq!(crlf.systems, plain.systems);
    let coloured: String = job_2_23()
        .lines()
        .map(|l| match l.find("NCCL INFO") {
            Some(i) => format!("\x1b[32m{}\x1b[0m{}\x1b]0;title\x07\n", &l[..i], &l[i..]),
            None => format!("{l}\n"),
        })
        .collect();
    let c = ok(&coloured);
    assert_eq!(c.graphs, plain.graphs);
    assert_eq!(c.connections, plain.connections);
}

#[test]
fn a_log_cut_in_a_system_print() {
    let text = job_2_23();
    let cut = text.find("+ PCI[24.0] - GPU/0-8000 (1)").unwrap();
    let f = ok(&text[..cut + 10]);
    assert_eq!(f.systems.len(), 1);
    assert!(f.systems[0].truncated);
    assert!(f.warnings.iter().any(|w| w.contains("ends inside a system print")), "{:?}", f.warnings);
}

#[test]
fn spliced_lines() {
    let text = "h:1:2 [0] NCCL INFO Trees [0] h:1:3 [1] NCCL INFO Ring 00 : 0 -> 1 -> 0\n\
                h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodesh:1:3 [1] NCCL INFO Tree 0 : 0 -> 1 -> -1/-1/-1\n\
                h:1:2 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1\n";
    let f = ok(text);
    assert_eq!((f.lines.records, f.lines.cut, f.lines.read), (5, 2, 3));
    assert_eq!(f.ring_links.len(), 2);
    assert_eq!(f.trees.len(), 1);
    assert_eq!(f.hosts, ["h"]);
}

#[test]
fn refused_inputs() {
    assert!(err("").contains("empty"));
    assert!(err(" \n\n\t\n").contains("empty"));
    let e = err("<?xml version=\"1.0\"?>\n<system version=\"1\">\n  <cpu numaid=\"0\"/>\n</system>\n");
    assert!(e.contains("topology XML") && e.contains("--topo"), "{e}");
    let e = err("<graphs version=\"1\">\n</graphs>\n");
    assert!(e.contains("graph XML"), "{e}");
    let e = err("hello\nworld\n");
    assert!(e.contains("no NCCL debug lines"), "{e}");
    let mut bin = vec![0u8; 4096];
    let mut r = Rng(7);
    for b in bin.iter_mut() {
        *b = r.next() as u8;
    }
    let e = read(&mut bin.as_slice(), "core").unwrap_err().to_string();
    assert!(e.contains("binary"), "{e}");
    // NUL bytes after a valid start.
    let mut text = job_2_23().into_bytes();
    text.truncate(300);
    text.extend_from_slice(&[0, 0, 1, 2, 0]);
    assert!(read(&mut text.as_slice(), "x").unwrap_err().to_string().contains("binary"));
}

#[test]
fn random_text_is_refused_without_panic() {
    let mut r = Rng(42);
    let words =
        ["the", "NCCL", "INFO", "Ring", "00", ":", "->", "[0]", "comm", "0x1", "GPU/0", "+", "=", "|", "é", "\t"];
    let mut text = String::new();
    while text.len() < 2 * 1024 * 1024 {
        text.push_str(words[r.below(words.len())]);
        text.push(if r.below(12) == 0 { '\n' } else { ' ' });
    }
    // Whatever it is, reading it ends without a panic; it holds no NCCL record prefix.
    match read_str(&text, "noise") {
        Ok(f) => assert!(f.lines.physical > 0),
        Err(e) => assert!(e.to_string().contains("no NCCL debug lines"), "{e}"),
    }
}

#[test]
fn mutated_logs_do_not_panic() {
    let base = job_2_23().into_bytes();
    let mut r = Rng(1234);
    for _ in 0..400 {
        let mut t = base.clone();
        for _ in 0..1 + r.below(20) {
            let at = r.below(t.len());
            match r.below(5) {
                0 => t.truncate(at),
                1 => {
                    t.insert(at, r.next() as u8);
                }
                2 => {
                    t.remove(at.min(t.len().saturating_sub(1)));
                }
                3 => {
                    // Splice: copy a piece of another line here.
                    let from = r.below(base.len());
                    let len = r.below(80).min(base.len() - from);
                    let piece = base[from..from + len].to_vec();
                    let at = at.min(t.len());
                    t.splice(at..at, piece);
                }
                _ => {
                    if at < t.len() {
                        t[at] = b"0123456789-/[]: \n"[r.below(17)];
                    }
                }
            }
            if t.is_empty() {
                break;
            }
        }
        let _ = read(&mut t.as_slice(), "m");
    }
}

#[test]
fn overlong_lines_are_cut() {
    let mut text = job_2_23();
    text.push_str(&"x".repeat(100_000));
    text.push('\n');
    let f = ok(&text);
    assert_eq!(f.lines.overlong, 1);
}

/// 2.5: bare version line behind an MPI tag, integer widths, CPUs without attributes,
/// `(n/n/n)` paths, the graph line with `nvlink`, `Ring NN :` connections, double trees.
#[test]
fn release_2_5_forms() {
    let p = "[1,0]<stdout>:n1:5:6 [0] NCCL INFO ";
    let text = format!(
        "[1,0]<stdout>:NCCL version 2.5.6+cuda10.2\n\
         {p}=== System : maxWidth 21 maxSpeed 12 ===\n\
         {p}CPU/0\n\
         {p}+ PCI[12] - GPU/6000 (0)\n\
         {p}            + NVL[21] - GPU/7000\n\
         {p}+ PCI[12] - GPU/7000 (1)\n\
         {p}            + NVL[21] - GPU/6000\n\
         {p}+ PCI[ 6] - NIC/9000\n\
         {p}            + NET[ 6] - NET/0 (0)\n\
         {p}==========================================\n\
         {p}GPU/6000 :GPU/6000 (0/0/0) GPU/7000 (1/21/1) \n\
         {p}Pattern 2, crossNic 0, nChannels 1, speed 21/21, nvlink 1, type 1, sameChannels 1\n\
         {p} 0 : NET/0 GPU/0 GPU/1 NET/0\n\
         {p}Pattern 4, crossNic 0, nChannels 1, speed 21/21, nvlink 1, type 1, sameChannels 1\n\
         {p} 0 : NET/0 GPU/0 GPU/1 NET/0\n\
         {p}threadThresholds 8/8/64 | 256/8/64\n\
         {p}Trees [0] 1/-1/-1->0->-1|-1->0->1/-1/-1\n\
         {p}Ring 00 : 0[6000] -> 1[7000] via P2P/IPC\n\
         {p}Ring 00 : 1[7000] -> 2[6000] [send] via NET/IB/0/GDRDMA\n\
         {p}comm 0x7f rank 0 nranks 4 cudaDev 0 busId 6000 - Init COMPLETE\n"
    );
    let f = ok(&text);
    let v = f.nccl_version.as_ref().unwrap();
    assert_eq!((v.value.as_str(), v.cuda.as_deref()), ("2.5.6", Some("10.2")));
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    assert_eq!(f.lines.unknown, 0);
    let s = &f.systems[0];
    assert_eq!((s.max_bw, s.nodes.len(), s.links.len()), (21.0, 5, 5));
    // 2.5's `(0)` is the network index, which the id already is: no port read.
    assert_eq!(s.nodes.iter().find(|n| n.id == "NET/0").unwrap().net, None);
    assert_eq!(s.paths[1].kind, "1");
    assert_eq!(
        f.graphs.iter().map(|g| (g.pattern, g.nvlink, g.index)).collect::<Vec<_>>(),
        [(2, Some(1), 0), (4, Some(1), 1)]
    );
    // All waited for the comm line: rank 0 of the one communicator.
    assert!(f.graphs.iter().all(|g| g.rank == Some(0) && g.comm == Some(0)));
    assert_eq!(f.trees[0].dn_down, Some([1, -1, -1]));
    assert_eq!(f.connections.len(), 2);
    assert_eq!(f.connections[1].side.as_deref(), Some("send"));
    assert_eq!(f.connections[0].id_kind.as_deref(), Some("bus_id"));
}

/// Before 2.18.3 a thread's rank is known at its Init COMPLETE; a second init on the
/// same thread starts unannounced.
#[test]
fn deferred_ranks_and_two_inits() {
    let p = "h:1:2 [3] NCCL INFO ";
    let text = format!(
        "{p}Pattern 4, crossNic 0, nChannels 1, bw 20.000000/20.000000, type NVL/PIX, sameChannels 1\n\
         {p} 0 : GPU/0 GPU/1 GPU/2 GPU/3\n\
         {p}4 coll channels, 0 nvls channels, 4 p2p channels, 4 p2p channels per peer\n\
         {p}comm 0x10 rank 3 nranks 4 cudaDev 3 busId 4000 commId 0x99 - Init COMPLETE\n\
         {p}Pattern 4, crossNic 0, nChannels 1, bw 10.000000/10.000000, type NVL/PIX, sameChannels 1\n\
         {p} 0 : GPU/0 GPU/1\n\
         {p}comm 0x20 rank 1 nranks 2 cudaDev 3 busId 4000 commId 0x77 - Init COMPLETE\n"
    );
    let f = ok(&text);
    assert_eq!(f.comms.len(), 2);
    assert_eq!(f.comms.iter().map(|c| (c.nranks, c.primary)).collect::<Vec<_>>(), [(4, true), (2, false)]);
    let g: Vec<_> = f.graphs.iter().map(|g| (g.comm, g.rank, g.index, g.bw_intra)).collect();
    assert_eq!(g, [(Some(0), Some(3), 0, 20.0), (Some(1), Some(1), 0, 10.0)]);
    assert_eq!(
        (f.channel_counts[0].comm, f.channel_counts[0].rank, f.channel_counts[0].nvls),
        (Some(0), Some(3), Some(0))
    );
    let v = f.nccl_version.as_ref().unwrap();
    assert_eq!(v.range, Some(("2.17.1".into(), "2.18.1".into())));
}

/// 2.16-: ranks of several processes join into one communicator by size; a rank seen
/// twice starts another.
#[test]
fn communicators_without_ids() {
    let mut text = String::new();
    for (run, ptrs) in [(0, ["a", "b"]), (1, ["c", "d"])] {
        for (rank, ptr) in ptrs.iter().enumerate() {
            text += &format!(
                "n{rank}:{pid}:{pid} [0] NCCL INFO comm 0x{ptr}0 rank {rank} nranks 2 cudaDev 0 busId 7000 - Init COMPLETE\n",
                pid = 10 + run * 2 + rank
            );
        }
    }
    let f = ok(&text);
    assert_eq!(f.comms.len(), 2);
    assert!(
        f.comms.iter().all(|c| c.nranks == 2 && c.nnodes == Some(2) && c.nnodes_source.as_deref() == Some("hosts"))
    );
    assert_eq!(f.ranks.iter().map(|r| r.comm).collect::<Vec<_>>(), [0, 0, 1, 1]);
}

/// 2.27.5+ graph channels print bus ids; with no system print the comm lines map them.
#[test]
fn bus_ids_in_graphs_map_through_comm_lines() {
    let mut text = String::new();
    for (rank, bus) in [(0, "1b000"), (1, "2c000")] {
        let p = format!("h:5:{rank} [{rank}] NCCL INFO ");
        text += &format!(
            "{p}[Rank {rank}] ncclCommInitRank comm 0x{rank}1 rank {rank} nranks 2 cudaDev {rank} nvmlDev {rank} busId {bus} commId 0x5 - Init START\n"
        );
    }
    text += "h:5:0 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 1, bw 20.000000/20.000000, type PIX/PIX, sameChannels 1\n";
    text += "h:5:0 [0] NCCL INFO  0 : GPU/0-2c000 GPU/0-1b000\n";
    text += "h:5:0 [0] NCCL INFO  1 : GPU/0-2c000 GPU/0-ffff\n";
    let f = ok(&text);
    let g = &f.graphs[0];
    assert_eq!(g.channels[0].gpus, [1, 0]);
    // One id no line names: the channel keeps the ids only.
    assert!(g.channels.len() == 1 || g.channels[1].gpus.is_empty());
    let v = f.nccl_version.as_ref().unwrap();
    assert_eq!(v.range, Some(("2.29.2".into(), "2.30.7".into())));
}

#[test]
fn rccl_logs_are_recognised_not_read() {
    let text = "RCCL version : 2.22.3-HEAD:abc\n\
                HIP version  : 6.4.1\n\
                node:1:2 [0] NCCL INFO Ring 00 : 7 -> 0 -> 1 comm 0x55 nRanks 08 busId 23000\n\
                node:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 comm 0x55 nRanks 08 busId 23000\n";
    let f = ok(text);
    assert_eq!(f.dialect, Dialect::Rccl);
    assert!(f.ring_links.is_empty() && f.trees.is_empty() && f.nccl_version.is_none());
    assert!(f.warnings[0].contains("RCCL"), "{:?}", f.warnings);
    // Without the banner, RCCL's trailing comm fields tell it too.
    let f = ok("node:1:2 [0] NCCL INFO Connected all rings comm 0x55 nRanks 08 busId 23000\n");
    assert_eq!(f.dialect, Dialect::Rccl);
}

#[test]
fn pre_2_5_lines_are_reported() {
    let text = "h:1:2 [0] NCCL INFO Ring 00 : 34 -> 33 [send] via NET/Socket/0\n\
                h:1:2 [0] NCCL INFO Trees [0] 26->25->-1/-1/-1\n\
                h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE\n";
    let f = ok(text);
    assert_eq!(f.dialect, Dialect::Nccl);
    assert!(f.connections.is_empty() && f.trees.is_empty() && f.comms.is_empty());
    assert_eq!(f.lines.skipped_known, 3);
    assert!(f.warnings.iter().any(|w| w.contains("before 2.5")), "{:?}", f.warnings);
}

#[test]
fn tuning_tables() {
    // 2.23-2.30: blocks of three algorithms; the last block of 2.24+ prints nine
    // protocol headers over one algorithm.
    let p = "h:1:2 [0] NCCL INFO ";
    let mut text = String::new();
    text += &format!("{p}  Algorithm   |            Tree                |            Ring                |\n");
    text += &format!("{p}  Protocol    |   LL | LL128 | Simple |   LL | LL128 | Simple |\n");
    text += &format!("{p} Max NThreads |  512 |   640 |    512 |  512 |   640 |    512 |\n");
    text +=
        &format!("{p}    Broadcast |   6.3/   1.0 |  8.4/  2.0 | 14.0/ 3.0 |  4.2/ 4.0 |  5.0/ 5.0 | 12.0/ 6.0 |\n");
    text += &format!("{p}  Algorithm   |             PAT                |\n");
    text += &format!("{p}  Protocol    |   LL | LL128 | Simple |   LL | LL128 | Simple |   LL | LL128 | Simple |\n");
    text += &format!("{p} Max NThreads |    0 |     0 |    512 |\n");
    text += &format!("{p}    AllGather |   0.0/   0.0 |  0.0/  0.0 |  9.0/ 7.0 |\n");
    text += &format!("{p}Enabled NCCL Func/Proto/Algo Matrix:\n");
    text += "     Function |       LL     LL128    Simple   |          Tree           Ring\n";
    text += "    Broadcast |        1         1         1   |             1              1\n";
    text += "\n";
    let f = ok(&text);
    let t = f.tuning.as_ref().expect("a table");
    assert_eq!(t.rank, Some(0));
    assert_eq!(t.rows.len(), 9);
    let pat = t.rows.iter().find(|r| r.algo == "PAT" && r.proto == "Simple").unwrap();
    assert_eq!((pat.func.as_str(), pat.latency, pat.bw), ("AllGather", 9.0, 7.0));
    assert_eq!(t.max_threads.len(), 9);
    assert_eq!((f.lines.unknown, f.lines.foreign), (0, 1));
    let v = f.nccl_version.as_ref().unwrap();
    assert_eq!(v.range.as_ref().unwrap().0, "2.18.1");

    // 2.6-2.17: `Latency/AlgBw` pairs.
    let text = format!(
        "{p}Latency/AlgBw |    Tree/    LL |    Tree/ LL128 |    Ring/    LL |\n\
         {p} Max NThreads |            512 |            640 |            512 |\n\
         {p}    AllReduce |    10.4/   1.2 |    12.0/   0.0 |     6.8/  22.4 |\n"
    );
    let t = ok(&text).tuning.unwrap();
    assert_eq!(t.rows.len(), 3);
    assert_eq!((t.rows[2].algo.as_str(), t.rows[2].proto.as_str(), t.rows[2].bw), ("Ring", "LL", 22.4));
}

#[test]
fn stripped_prefixes_and_settings() {
    // Pastes without prefixes keep the kinds that name themselves.
    let text = "Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1\n\
                Ring 00 : 3 -> 0 -> 1\n\
                NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/MNNVL\n\
                [4] NCCL INFO NVLS Trees : 5/6/-1->4->-1 7/-1/-1->4->0\n\
                NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]={[0] mlx5_1:1/RoCE, [1] mlx5_2:1/RoCE} [RO]; OOB ib0:10.0.0.1<0>\n\
                NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1\n\
                [2025-03-01 10:00:00] h:1:2 [0] enqueue.cc:99 NCCL WARN Cuda failure 'out of memory'\n\
                some program output\n";
    let f = ok(text);
    assert_eq!(f.lines.unknown, 0);
    assert_eq!(f.lines.foreign, 1);
    assert_eq!(f.trees.iter().filter(|t| t.source == TreeSource::Trees).count(), 2);
    let nv: Vec<_> =
        f.trees.iter().filter(|t| t.source == TreeSource::Nvls).map(|t| (t.channel, t.down, t.up)).collect();
    assert_eq!(nv, [(0, [5, 6, -1], -1), (1, [7, -1, -1], 0)]);
    assert_eq!(f.connections[0].mode, "MNNVL");
    let n = &f.nets[0];
    assert_eq!((n.kind.as_str(), n.devices.len(), n.oob.as_deref()), ("IB", 2, Some("ib0:10.0.0.1<0>")));
    assert_eq!(n.devices[1].name, "mlx5_1+mlx5_2");
    assert!(f.env.iter().any(|e| e.name == "NCCL_IB_HCA" && e.source == "set"));
    assert!(f.problems.iter().any(|p| p.kind == "warn" && p.text.contains("out of memory")));
    let v = f.nccl_version.as_ref().unwrap();
    assert_eq!(v.range.as_ref().unwrap().0, "2.21.5");
}

#[test]
fn nccl_tests_header_dates_the_log() {
    let text = "# nccl-tests version 2.13.10 nccl-headers=21903 nccl-library=21903\n\
                h:1:2 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1\n";
    let v = ok(text).nccl_version.unwrap();
    assert_eq!((v.value.as_str(), v.source), ("2.19.3", VersionSource::TestsHeader));
}
