//! Arguments several commands share, the size grammar of nccl-tests, and the clap
//! names of the library's enums (the library itself knows nothing of clap).

use std::path::PathBuf;

use clap::Args;
use clap::builder::PossibleValue;

use super::io::ColorChoice;
use crate::algo::Runtime;
use crate::env::Env;
use crate::input::Source;
use crate::{discover, model};

/// `--fixture NAME`: any text (an unknown name is refused with the list when loaded),
/// with the built-in names offered to shell completion and listed in help.
#[derive(Debug, Clone, Copy)]
pub struct FixtureName;

impl clap::builder::TypedValueParser for FixtureName {
    type Value = String;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(crate::fixtures::all().iter().map(|f| PossibleValue::new(f.name))))
    }
}

/// Where the topology comes from.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format).
    #[arg(long, value_name = "FILE", global = true, conflicts_with = "fixture")]
    pub topo: Option<PathBuf>,
    /// A machine topo carries built in (see `topo fixtures`).
    #[arg(long, value_name = "NAME", global = true, conflicts_with = "root", value_parser = FixtureName)]
    pub fixture: Option<String>,
    /// Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine.
    #[arg(long, value_name = "DIR", global = true, conflicts_with = "topo")]
    pub root: Option<PathBuf>,
    /// With live or --root detection: NVML's answers from this JSON file instead of
    /// libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus
    /// id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the
    /// README's "The fake-NVML file" describes every key).
    #[arg(long, value_name = "FILE", global = true)]
    pub nvml_fake: Option<PathBuf>,
}

impl InputArgs {
    /// The source these flags name: a file, a fixture, else detection.
    pub fn source(&self, env: &Env) -> Source {
        if let Some(p) = &self.topo {
            return Source::File(p.clone());
        }
        if let Some(f) = &self.fixture {
            return Source::Fixture(f.clone());
        }
        let src = discover::Source { root: self.root.clone(), nvml_fake: self.nvml_fake.clone() };
        Source::Detect(src, discover::Options::with_env(env))
    }

    /// Whether the user named an input (a file, a fixture or a tree) rather than this
    /// machine.
    pub fn named(&self) -> bool {
        self.topo.is_some() || self.fixture.is_some() || self.root.is_some()
    }
}

/// `--color` of the commands whose text is for people.
#[derive(Debug, Clone, Default, Args)]
pub struct TermArgs {
    /// Colour verdicts and severities (errors red, warnings yellow, what is fine green):
    /// auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the
    /// terminal's width (or COLUMNS when set); into a pipe without COLUMNS it is printed
    /// unwrapped, the same every time.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Facts about the job and the machine that are not in the XML.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// Model N identical nodes (NCCL then routes rings through the NICs); shows node 0.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub nodes: u32,
    /// The driver reports no peer-to-peer support between GPUs (as on GeForce cards).
    #[arg(long)]
    pub no_p2p_support: bool,
    /// The network plugin does not fuse the ports of a NIC into one virtual device.
    #[arg(long)]
    pub no_nic_fusion: bool,
    /// Every NIC is CollNet (SHARP) capable.
    #[arg(long)]
    pub collnet: bool,
    /// NVLink SHARP (NVLS) is not available.
    #[arg(long)]
    pub no_nvls: bool,
    /// The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink
    /// clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the
    /// trays into one system and searches them as one node.
    #[arg(long)]
    pub mnnvl: bool,
    /// With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL
    /// racks, say), each fused by NCCL into one node; NCCL then goes through the NICs
    /// between cliques. NVML's clique ids are per GPU, so the layout is stated here.
    #[arg(long, value_name = "K", default_value_t = 1, requires = "mnnvl",
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub mnnvl_cliques: u32,
    /// With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster
    /// UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it
    /// each clique is its own domain.
    #[arg(long, requires = "mnnvl")]
    pub mnnvl_one_domain: bool,
}

impl ModelArgs {
    pub fn options(&self, env: &Env) -> model::Options {
        model::Options {
            nodes: self.nodes as usize,
            p2p_support: !self.no_p2p_support,
            nic_fusion: !self.no_nic_fusion,
            collnet: self.collnet,
            nvls: !self.no_nvls,
            mnnvl: self.mnnvl,
            mnnvl_cliques: self.mnnvl_cliques as usize,
            mnnvl_one_domain: self.mnnvl_one_domain,
            fabric: None,
            env: env.clone(),
        }
    }
}

/// Model settings shared by `diff` and `fleet`.
#[derive(Debug, Clone, Args)]
pub struct ImpactArgs {
    /// Model each dump as one node of an N-node job (2 and more route rings and trees
    /// through the NICs, as on a cluster; 1 models a single machine).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub nodes: u32,
    /// The network plugin does not fuse the ports of a NIC into one virtual device.
    #[arg(long)]
    pub no_nic_fusion: bool,
}

impl ImpactArgs {
    pub fn options(&self, env: &Env) -> model::Options {
        model::Options {
            nodes: self.nodes as usize,
            nic_fusion: !self.no_nic_fusion,
            env: env.clone(),
            ..model::Options::default()
        }
    }
}

/// Where the machine facts come from (shared by `topo detect` and `topo check`).
#[derive(Args, Debug, Clone, Default)]
pub struct SourceArgs {
    /// Read DIR/sys and DIR/proc instead of /sys and /proc (hwloc's fsroot layout);
    /// NVML facts then come from DIR/nvml.json when it exists.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Take NVML's answers from this JSON file instead of libnvidia-ml (a JSON object
    /// with the driver version and, per GPU, its index, bus id, compute capability, PCIe
    /// link, NVLinks, C2C and GPUDirect attributes; the README's "The fake-NVML file"
    /// describes every key).
    #[arg(long, value_name = "FILE")]
    pub nvml_fake: Option<PathBuf>,
}

impl SourceArgs {
    pub fn source(&self) -> discover::Source {
        discover::Source { root: self.root.clone(), nvml_fake: self.nvml_fake.clone() }
    }
}

/// A message size as nccl-tests reads it (`-b`, `-e`, `-i`): a whole number of bytes
/// with an optional K, M or G (powers of 1024), optionally spelled `KB` or `KiB`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let bad = || format!("'{s}' is not a size: a whole number with an optional K, M or G (e.g. 8, 1K, 16M, 8G, 4KiB)");
    let n: u64 = match num.parse() {
        Ok(n) => n,
        // Digits, but more than 64 bits hold.
        Err(_) if !num.is_empty() => return Err(format!("'{s}' is too large: a size is at most 16E bytes (2^64 - 1)")),
        Err(_) => return Err(bad()),
    };
    let unit = unit.to_ascii_uppercase();
    let (prefix, rest) = unit.split_at(unit.len().min(1));
    let mult: u64 = match prefix {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "B" if rest.is_empty() => 1,
        _ => return Err(bad()),
    };
    if !(rest.is_empty() || (prefix != "B" && (rest == "B" || rest == "IB"))) {
        return Err(bad());
    }
    n.checked_mul(mult).ok_or_else(|| format!("'{s}' is too large: a size is at most 16E bytes (2^64 - 1)"))
}

/// `--runtime`: whose rules a program is read by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RuntimeArg {
    /// msccl-executor-nccl (NCCL 2.23 with MSCCL): 64 steps, 1024 thread blocks, channels 0-32.
    #[default]
    Executor,
    /// RCCL's MSCCL: 64 thread blocks, channels 0-128, no fused steps (rcs, rrs, rrc, rrcs).
    Rccl,
    /// microsoft/msccl (NCCL 2.12): 256 steps, 216 thread blocks, no outofplace/minBytes/maxBytes needed.
    Legacy,
}

impl RuntimeArg {
    pub fn runtime(self) -> Runtime {
        match self {
            RuntimeArg::Executor => Runtime::Executor,
            RuntimeArg::Rccl => Runtime::Rccl,
            RuntimeArg::Legacy => Runtime::Legacy,
        }
    }
}

/// Clap's view of a library enum: its variants and their command-line names (the first
/// name of each; the others are aliases).
macro_rules! value_enum {
    ($ty:ty { $($variant:path => [$name:literal $(, $alias:literal)*] $(: $help:literal)?),+ $(,)? }) => {
        impl clap::ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($variant),+]
            }
            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(match self {
                    $($variant => PossibleValue::new($name)$(.alias($alias))*$(.help($help))?,)+
                })
            }
        }
    };
}

value_enum!(crate::tune::Func {
    crate::tune::Func::Broadcast => ["broadcast"],
    crate::tune::Func::Reduce => ["reduce"],
    crate::tune::Func::AllGather => ["allgather"],
    crate::tune::Func::ReduceScatter => ["reducescatter"],
    crate::tune::Func::AllReduce => ["allreduce"],
});

value_enum!(crate::render::search::GraphSel {
    crate::render::search::GraphSel::Ring => ["ring"],
    crate::render::search::GraphSel::Tree => ["tree"],
    crate::render::search::GraphSel::Nvls => ["nvls"],
    crate::render::search::GraphSel::CollnetChain => ["collnet-chain"],
    crate::render::search::GraphSel::CollnetDirect => ["collnet-direct"],
    crate::render::search::GraphSel::All => ["all"],
});

value_enum!(crate::bench::BackendKind {
    crate::bench::BackendKind::Cuda => ["cuda"]: "CUDA kernels on the local GPUs",
    crate::bench::BackendKind::Host => ["host"]: "CPU threads (one per rank and channel): the same protocol, host measurements",
});

value_enum!(crate::bench::Transport {
    crate::bench::Transport::P2p => ["p2p"]: "The sender writes straight into the receiver's FIFO (CUDA peer access)",
    crate::bench::Transport::HostStaged => ["host-staged"]:
        "The sender writes into a staging FIFO in host memory; a proxy thread copies each filled slot into the receiver's FIFO",
});

value_enum!(crate::bench::DataType {
    crate::bench::DataType::Int8 => ["int8", "char"],
    crate::bench::DataType::Uint8 => ["uint8"],
    crate::bench::DataType::Int32 => ["int32", "int"],
    crate::bench::DataType::Uint32 => ["uint32"],
    crate::bench::DataType::Int64 => ["int64"],
    crate::bench::DataType::Uint64 => ["uint64"],
    crate::bench::DataType::Half => ["half", "float16", "f16"],
    crate::bench::DataType::Float => ["float", "float32", "f32"],
    crate::bench::DataType::Double => ["double", "float64", "f64"],
    crate::bench::DataType::Bfloat16 => ["bfloat16", "bf16"],
});

value_enum!(crate::bench::RedOp {
    crate::bench::RedOp::Sum => ["sum"],
    crate::bench::RedOp::Prod => ["prod"],
    crate::bench::RedOp::Max => ["max"],
    crate::bench::RedOp::Min => ["min"],
    crate::bench::RedOp::Avg => ["avg"],
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_nccl_tests_reads_them() {
        assert_eq!(parse_size("8"), Ok(8));
        assert_eq!(parse_size("1K"), Ok(1024));
        assert_eq!(parse_size("16M"), Ok(16 << 20));
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("2mb"), Ok(2 << 20));
        assert_eq!(parse_size("64B"), Ok(64));
        for bad in ["", "x", "1.5G", "12Q", "2x", "1KK", "-1", "1BB", "1iB"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert!(parse_size("99999999999G").is_err());
    }

    #[test]
    fn bench_enums_keep_their_names_and_aliases() {
        use crate::bench::{BackendKind, DataType, RedOp, Transport};
        use clap::ValueEnum;
        for t in DataType::ALL {
            assert_eq!(DataType::from_str(t.name(), false), Ok(t));
        }
        for o in RedOp::ALL {
            assert_eq!(RedOp::from_str(o.name(), false), Ok(o));
        }
        for (alias, t) in [("char", DataType::Int8), ("int", DataType::Int32), ("f16", DataType::Half)] {
            assert_eq!(DataType::from_str(alias, false), Ok(t));
        }
        assert_eq!(DataType::from_str("bf16", false), Ok(DataType::Bfloat16));
        assert_eq!(DataType::from_str("float64", false), Ok(DataType::Double));
        assert_eq!(Transport::from_str("host-staged", false), Ok(Transport::HostStaged));
        assert_eq!(BackendKind::from_str("host", false), Ok(BackendKind::Host));
        assert!(RedOp::from_str("mulsum", false).is_err());
    }
}
