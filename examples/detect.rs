//! Try `topo detect` / `topo check` before the CLI wires them in:
//! `cargo run --example detect -- detect --xml [--root DIR]`, `... -- check [--root DIR]`.

use clap::{Parser, Subcommand};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    Detect(topo::discover::DetectArgs),
    Check(topo::check::CheckArgs),
}

fn main() {
    let cli = Cli::parse();
    let mut out = std::io::stdout();
    let res = match &cli.cmd {
        Cmd::Detect(a) => topo::discover::run(a, &mut out),
        Cmd::Check(a) => topo::check::run(a, &mut out),
    };
    match res {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
