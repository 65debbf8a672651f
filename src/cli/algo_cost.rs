//! `topo algo cost` and `topo algo compare`: programs timed over a machine's links, with
//! NCCL's own pick beside them.

use std::path::{Path, PathBuf};

use clap::Args;

use super::Ctx;
use super::args::{InputArgs, ModelArgs, RuntimeArg, parse_size};
use crate::algo::cost::{self, Costed, Fabric};
use crate::algo::program::Program;
use crate::algo::read;
use crate::error::Error;
use crate::render;
use crate::tune::{Model, Sweep};

/// The sizes, nccl-tests style.
#[derive(Debug, Args)]
pub struct SizeArgs {
    /// Smallest size in bytes, as nccl-tests' -b (K, M, G are powers of 1024).
    #[arg(short = 'b', long = "minbytes", value_name = "SIZE", default_value = "1K", value_parser = parse_size)]
    pub minbytes: u64,
    /// Largest size in bytes, as nccl-tests' -e.
    #[arg(short = 'e', long = "maxbytes", value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub maxbytes: u64,
    /// Multiply the size by this between rows, as nccl-tests' -f.
    #[arg(short = 'f', long = "stepfactor", value_name = "N", default_value_t = 2)]
    pub stepfactor: u64,
}

#[derive(Debug, Args)]
pub struct CostArgs {
    /// An MSCCL-IR file.
    #[arg(value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Whose rules the program is read and run by.
    #[arg(long, value_enum, value_name = "RUNTIME", default_value_t = RuntimeArg::Executor)]
    pub runtime: RuntimeArg,
    #[command(flatten)]
    pub sizes: SizeArgs,
    /// Write JSON (schema topo.algo.cost/1); rows carry topo tune's prediction fields.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// MSCCL-IR files of one collective.
    #[arg(value_name = "PROGRAM", required = true)]
    pub programs: Vec<PathBuf>,
    #[arg(long, value_enum, value_name = "RUNTIME", default_value_t = RuntimeArg::Executor)]
    pub runtime: RuntimeArg,
    #[command(flatten)]
    pub sizes: SizeArgs,
    /// Write JSON (schema topo.algo.compare/1).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Read a program the runtime would load, or one line saying why not.
fn load(path: &Path, runtime: crate::algo::Runtime, ctx: &mut Ctx) -> Result<Program, Error> {
    let file = path.display().to_string();
    let bytes = crate::fileio::read_capped(path, read::MAX_PROGRAM_BYTES, "an MSCCL-IR program")?;
    let input = |message: String| Error::Input { file: file.clone(), message };
    let reading = read::read(&bytes, runtime).map_err(input)?;
    let errors: Vec<_> = reading.findings.iter().filter(|f| f.is_error()).collect();
    let Some(program) = reading.program else {
        let why = errors.first().map_or("no header".to_string(), |f| format!("{}: {}", f.place, f.message));
        return Err(input(format!("cannot be costed: {why}")));
    };
    if !errors.is_empty() {
        ctx.warn(&format!(
            "{file}: {} findings of the runtime's rules (topo algo check {file} lists them); costed as written",
            errors.len()
        ))?;
    }
    Ok(program)
}

/// The machine: fabric and tuning model.
fn machine(input: &InputArgs, m: &ModelArgs, ctx: &mut Ctx) -> Result<(Fabric, Model), Error> {
    let (_, an) = super::analyze_input(input, m, ctx)?;
    let so = super::search_options(&an, ctx)?;
    let (graphs, _) = super::search_with_progress(&an, &so, ctx)?;
    let model = Model::new(&an, &graphs)?;
    for w in &model.warnings {
        ctx.warn(w)?;
    }
    Ok((Fabric::new(&an, &model), model))
}

fn sizes(s: &SizeArgs) -> Result<Vec<u64>, Error> {
    Sweep { min: s.minbytes, max: s.maxbytes, factor: Some(s.stepfactor), step: 0 }.sizes()
}

/// Cost one program: the boundary `topo algo make`'s programs go through too.
pub fn cost_program(
    p: &Program,
    runtime: crate::algo::Runtime,
    fabric: &Fabric,
    model: &Model,
    sizes: &[u64],
    file: &str,
) -> Result<Costed, Error> {
    let mut c =
        cost::cost(p, runtime, fabric, sizes).map_err(|message| Error::Input { file: file.to_string(), message })?;
    cost::beside_nccl(&mut c, model);
    Ok(c)
}

pub fn run_cost(a: &CostArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let runtime = a.runtime.runtime();
    let sizes = sizes(&a.sizes)?;
    let p = load(&a.program, runtime, ctx)?;
    let (fabric, model) = machine(&a.input, &a.model, ctx)?;
    let file = a.program.display().to_string();
    let c = cost_program(&p, runtime, &fabric, &model, &sizes, &file)?;
    let text = if a.json {
        render::algo_cost::cost_json(&file, &fabric, &c)
    } else {
        render::algo_cost::cost_text(&file, &fabric, &c)
    };
    ctx.print(&text)?;
    Ok(0)
}

pub fn run_compare(a: &CompareArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let runtime = a.runtime.runtime();
    let sizes = sizes(&a.sizes)?;
    let mut programs = Vec::new();
    for f in &a.programs {
        programs.push((f.display().to_string(), load(f, runtime, ctx)?));
    }
    let coll = programs[0].1.header.coll;
    if let Some((f, p)) = programs.iter().find(|(_, p)| p.header.coll != coll) {
        return Err(Error::Usage(format!(
            "{f} is a {} program and {} is {coll}: compare programs of one collective",
            p.header.coll, programs[0].0
        )));
    }
    let (fabric, model) = machine(&a.input, &a.model, ctx)?;
    let mut costed = Vec::new();
    let mut names = Vec::new();
    for (f, p) in &programs {
        costed.push(cost_program(p, runtime, &fabric, &model, &sizes, f)?);
        names.push(f.clone());
    }
    let cmp = cost::compare(costed);
    let text = if a.json {
        render::algo_cost::compare_json(&names, &fabric, &cmp)
    } else {
        render::algo_cost::compare_text(&names, &fabric, &cmp)
    };
    ctx.print(&text)?;
    Ok(0)
}
