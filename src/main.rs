//! The `topo` binary: parse the command line, run, map errors to exit status 2.

use std::process::ExitCode;

fn main() -> ExitCode {
    match topo::cli::main_with_args(std::env::args_os()) {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            if let topo::error::Error::Io { source, .. } = &e
                && source.kind() == std::io::ErrorKind::BrokenPipe
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("topo: error: {e}");
            ExitCode::from(2)
        }
    }
}
