//! Reading speed of `topo log`: a 512-rank job on 64 hosts of 8 GPUs (NCCL 2.23 formats,
//! NCCL_DEBUG_SUBSYS=INIT,GRAPH: version, comm lines, system prints and path rows,
//! graphs, ring orders, `Ring`/`Trees`/`Tree` lines, connections) written in memory,
//! repeated to about 100 MB, and read with `topo::log::read`. Target: under 2 s.
//! Run with `cargo bench --bench log`; `TOPO_LOG_BENCH_MB=20` sets the size.

use std::fmt::Write;
use std::time::{Duration, Instant};

const HOSTS: usize = 64;
const GPUS: usize = 8;
const RANKS: usize = HOSTS * GPUS;
const CHANNELS: usize = 16;
const TARGET: Duration = Duration::from_secs(2);

fn bus(g: usize) -> String {
    format!("{:x}000", [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb][g])
}

/// Everything one rank prints during init.
fn rank_block(out: &mut String, rank: usize) {
    let host = rank / GPUS;
    let g = rank % GPUS;
    let pid = 4000 + rank;
    let tid = 5000 + rank;
    let p = format!("gpu-node-{host:03}:{pid}:{tid} [{g}] NCCL INFO ");
    let w = |out: &mut String, s: &str| {
        out.push_str(&p);
        out.push_str(s);
        out.push('\n');
    };
    w(out, "NCCL version 2.23.4+cuda12.6");
    w(out, "cudaDriverVersion 12060");
    w(out, "NCCL_IB_HCA set by environment to mlx5");
    w(out, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; OOB ib0:10.0.0.1<0>");
    w(out, "Using network IB");
    w(
        out,
        &format!(
            "ncclCommInitRank comm 0x7f{rank:04x} rank {rank} nranks {RANKS} cudaDev {g} nvmlDev {g} busId {} commId 0x1234abcd - Init START",
            bus(g)
        ),
    );
    // System print.
    w(out, "=== System : maxBw 48.0 totalBw 370.8 ===");
    for cpu in 0..2 {
        w(out, &format!("CPU/0-{cpu} (1/1/3)"));
        for sw in 0..2 {
            let s = cpu * 2 + sw;
            w(out, &format!("+ PCI[48.0] - PCI/0-{:x}000 (1000c03015d91d25)", 0x10 + s * 0x20));
            for k in 0..2 {
                let gg = s * 2 + k;
                w(out, &format!("               + PCI[48.0] - GPU/0-{} ({})", bus(gg), host * GPUS + gg));
                w(out, "                             + NVL[370.8] - NVS/0-0");
                w(out, &format!("               + PCI[48.0] - NIC/0-{:x}000", 0x11 + gg * 0x10));
                w(
                    out,
                    &format!(
                        "                             + NET[50.0] - NET/0-{gg} (0/a87cb10003e1a2{gg:02x}/1/50.000000)"
                    ),
                );
            }
        }
        w(out, &format!("+ SYS[16.0] - CPU/0-{}", 1 - cpu));
    }
    w(out, "==========================================");
    for row in 0..GPUS * 2 {
        let head = if row < GPUS { format!("GPU/0-{}", bus(row)) } else { format!("NET/0-{}", row - GPUS) };
        let mut l = format!("{head} :");
        for gg in 0..GPUS {
            let _ = write!(l, "GPU/0-{} (2/370.8/NVL) ", bus(gg));
        }
        l.push_str("CPU/0-0 (2/48.0/PHB) CPU/0-1 (3/16.0/SYS) ");
        for n in 0..GPUS {
            let _ = write!(l, "NET/0-{n} (4/48.0/PXB) ");
        }
        w(out, &l);
    }
    // Graphs: ring, tree, collnet chain and direct.
    for (pat, nch) in [(4, CHANNELS), (1, CHANNELS), (3, 2), (6, 2)] {
        w(
            out,
            &format!(
                "Pattern {pat}, crossNic 0, nChannels {nch}, bw 40.000000/40.000000, type NVL/PIX, sameChannels 0"
            ),
        );
        for c in 0..nch {
            let mut l = format!("{c:2} : NET/0-{}", c % GPUS);
            for k in 0..GPUS {
                let _ = write!(l, " GPU/{}", host * GPUS + (k + c) % GPUS);
            }
            let _ = write!(l, " NET/0-{}", c % GPUS);
            w(out, &l);
        }
    }
    w(
        out,
        &format!(
            "comm 0x7f{rank:04x} rank {rank} nRanks {RANKS} nNodes {HOSTS} localRanks {GPUS} localRank {g} MNNVL 0"
        ),
    );
    if rank == 0 {
        for c in 0..CHANNELS {
            let mut l = format!("Channel {c:02}/{CHANNELS:02} :");
            for r in 0..RANKS {
                if l.len() >= 124 {
                    l.push_str("...");
                    break;
                }
                let _ = write!(l, " {r:3}");
            }
            w(out, &l);
        }
    }
    let (prev, next) = ((rank + RANKS - 1) % RANKS, (rank + 1) % RANKS);
    for c in 0..CHANNELS {
        w(out, &format!("Ring {c:02} : {prev} -> {rank} -> {next}"));
    }
    for c in 0..CHANNELS * 2 {
        w(
            out,
            &format!("Tree {c} : {} -> {rank} -> {}/-1/-1", rank as i64 - 1, if next == 0 { -1 } else { next as i64 }),
        );
    }
    let mut trees = String::from("Trees");
    for c in 0..CHANNELS {
        let _ = write!(trees, " [{c}] {}/-1/-1->{rank}->{}", if next == 0 { -1 } else { next as i64 }, rank as i64 - 1);
    }
    w(out, &trees);
    w(out, "P2P Chunksize set to 131072");
    // Connections come from the connect thread.
    let pc = format!("gpu-node-{host:03}:{pid}:{} [{g}] NCCL INFO ", tid + 7);
    for c in 0..CHANNELS {
        if g + 1 < GPUS {
            let _ = writeln!(out, "{pc}Channel {c:02}/0 : {rank}[{g}] -> {next}[{}] via P2P/CUMEM/read", g + 1);
        } else {
            let _ = writeln!(out, "{pc}Channel {c:02}/0 : {rank}[{g}] -> {next}[0] [send] via NET/IB/{}/GDRDMA", c % 4);
            let _ = writeln!(
                out,
                "{pc}Channel {c:02}/0 : {prev}[{}] -> {rank}[{g}] [receive] via NET/IB/{}/GDRDMA",
                GPUS - 1,
                c % 4
            );
        }
    }
    w(out, "Connected all rings");
    w(out, "Connected all trees");
    w(out, "threadThresholds 8/8/64 | 4096/8/64 | 512 | 512");
    w(
        out,
        &format!(
            "{CHANNELS} coll channels, {CHANNELS} collnet channels, 0 nvls channels, 32 p2p channels, 2 p2p channels per peer"
        ),
    );
    w(
        out,
        &format!(
            "ncclCommInitRank comm 0x7f{rank:04x} rank {rank} nranks {RANKS} cudaDev {g} nvmlDev {g} busId {} commId 0x1234abcd - Init COMPLETE",
            bus(g)
        ),
    );
}

fn main() {
    let mb: usize = std::env::var("TOPO_LOG_BENCH_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let mut job = String::new();
    for r in 0..RANKS {
        rank_block(&mut job, r);
    }
    let mut text = String::with_capacity(mb << 20);
    while text.len() < mb << 20 {
        text.push_str(&job);
    }
    let size = text.len() as f64 / (1u64 << 20) as f64;
    eprintln!(
        "log: {size:.1} MiB, {} lines, {RANKS} ranks on {HOSTS} hosts (one job: {:.1} MiB)",
        text.lines().count(),
        job.len() as f64 / (1u64 << 20) as f64
    );
    let mut times = Vec::new();
    let mut facts = None;
    for _ in 0..3 {
        let t = Instant::now();
        let f = topo::log::read_str(&text, "bench.log").expect("the generated log reads");
        times.push(t.elapsed());
        facts = Some(f);
    }
    let f = facts.unwrap();
    times.sort();
    let best = times[0];
    let median = times[times.len() / 2];
    eprintln!(
        "facts: {} ranks, {} systems, {} graphs, {} ring links, {} trees, {} connections; {} records, {} unknown",
        f.ranks.len(),
        f.systems.len(),
        f.graphs.len(),
        f.ring_links.len(),
        f.trees.len(),
        f.connections.len(),
        f.lines.records,
        f.lines.unknown
    );
    println!(
        "read {size:.1} MiB in {:.2} s median, {:.2} s best: {:.0} MiB/s (target: 100 MiB in {} s){}",
        median.as_secs_f64(),
        best.as_secs_f64(),
        size / median.as_secs_f64(),
        TARGET.as_secs(),
        if median.as_secs_f64() * 100.0 / size > TARGET.as_secs_f64() { "  SLOWER THAN TARGET" } else { "" }
    );
}
