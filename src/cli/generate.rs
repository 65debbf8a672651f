//! The hidden `topo generate`: shell completions and man pages from the clap definition
//! (the committed copies under `completions/` and `man/` are refreshed with it, and a
//! test checks they are current).

use std::path::PathBuf;

use clap::{Args, CommandFactory};

use super::Cli;
use crate::error::Error;

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Folder to write `completions/` and `man/` into.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
}

/// Write completions for every shell clap_complete knows, and the man page.
pub fn generate(dir: &std::path::Path) -> Result<(), Error> {
    let comp = dir.join("completions");
    let man = dir.join("man");
    std::fs::create_dir_all(&comp).map_err(|e| Error::io(&comp, e))?;
    std::fs::create_dir_all(&man).map_err(|e| Error::io(&man, e))?;
    // Completions offer only the public commands (clap_complete lists hidden ones too).
    let full = Cli::command();
    let public = clap::Command::new("topo")
        .version(env!("CARGO_PKG_VERSION"))
        .about(full.get_about().cloned().unwrap_or_default())
        .propagate_version(true)
        .subcommand_required(true)
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    for shell in [
        clap_complete::Shell::Bash,
        clap_complete::Shell::Zsh,
        clap_complete::Shell::Fish,
        clap_complete::Shell::PowerShell,
        clap_complete::Shell::Elvish,
    ] {
        let mut cmd = public.clone();
        clap_complete::generate_to(shell, &mut cmd, "topo", &comp).map_err(|e| Error::io(&comp, e))?;
    }
    let cmd = Cli::command();
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf).map_err(|e| Error::io(&man, e))?;
    let p = man.join("topo.1");
    super::write_atomically(&p, &String::from_utf8_lossy(&buf))?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("topo-{}", sub.get_name());
        let static_name: &'static str = Box::leak(name.clone().into_boxed_str());
        let sub = sub.clone().name(static_name);
        let mut buf = Vec::new();
        clap_mangen::Man::new(sub).render(&mut buf).map_err(|e| Error::io(&man, e))?;
        let p = man.join(format!("{name}.1"));
        super::write_atomically(&p, &String::from_utf8_lossy(&buf))?;
    }
    Ok(())
}
