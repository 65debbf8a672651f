//! `topo algo show`: a program's thread blocks and connections, and with a machine
//! (`--topo`, `--fixture`, `--root`) the path each connection runs over.

use std::path::PathBuf;

use clap::Args;

use super::Ctx;
use super::args::{InputArgs, ModelArgs, RuntimeArg, TermArgs};
use crate::algo::read::MAX_PROGRAM_BYTES;
use crate::algo::{read, show};
use crate::error::Error;
use crate::render;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// An MSCCL-IR file.
    #[arg(value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Whose rules the program is read by.
    #[arg(long, value_enum, value_name = "RUNTIME", default_value_t = RuntimeArg::Executor)]
    pub runtime: RuntimeArg,
    /// Write JSON (schema topo.algo.show/1).
    #[arg(long, conflicts_with = "dot")]
    pub json: bool,
    /// Write a Graphviz drawing of GPUs and connections by channel.
    #[arg(long)]
    pub dot: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub term: TermArgs,
}

pub fn run(a: &ShowArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let file = a.program.display().to_string();
    let bytes = crate::fileio::read_capped(&a.program, MAX_PROGRAM_BYTES, "an MSCCL-IR program")?;
    let input = |message: String| Error::Input { file: file.clone(), message };
    let reading = read::read(&bytes, a.runtime.runtime()).map_err(input)?;
    let Some(program) = reading.program else {
        let why = reading
            .findings
            .iter()
            .find(|f| f.is_error())
            .map_or("no header".to_string(), |f| format!("{}: {}", f.place, f.message));
        return Err(input(format!("cannot be shown: {why}")));
    };
    let errors = reading.findings.iter().filter(|f| f.is_error()).count();
    if errors > 0 {
        ctx.warn(&format!(
            "{file}: {errors} findings of the runtime's rules (topo algo check {file} lists them); shown as written"
        ))?;
    }
    let mut shown = show::shape(&program);
    if a.input.named() {
        let (_, an) = super::analyze_input(&a.input, &a.model, ctx)?;
        show::place(&mut shown, &program, &an).map_err(Error::Usage)?;
    }
    let text = if a.json {
        render::algo_show::show_json(&file, &program, &shown)
    } else if a.dot {
        render::dot::algo::picture(&file, &program, &shown)
    } else {
        render::algo_show::show_text(&file, &program, &shown, &ctx.term(a.term.color))
    };
    ctx.print(&text)?;
    Ok(0)
}
