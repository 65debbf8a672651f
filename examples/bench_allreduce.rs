//! `topo bench allreduce` before the CLI wires it in: the same flags and output.
//!
//!     cargo run --release --example bench_allreduce -- --backend host -g 4 -b 1K -e 16M -f 4

use clap::Parser;

#[derive(Parser)]
#[command(name = "topo bench allreduce", about = "nccl-tests' all_reduce_perf over topo's rings")]
struct Cli {
    #[command(flatten)]
    args: topo::bench::AllreduceArgs,
}

fn main() {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match topo::bench::run(&cli.args, &mut out) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
