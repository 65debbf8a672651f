//! `topo algo cost` and `topo algo compare`: programs timed over a machine's links, with
//! NCCL's own pick beside them.

use std::path::{Path, PathBuf};

use clap::Args;

use clap::builder::PossibleValuesParser;

use super::Ctx;
use super::algo_make::{ProtoArg, ShapeArgs, algorithm, collective};
use super::args::{InputArgs, ModelArgs, RuntimeArg, parse_size};
use crate::algo::cost::{self, Costed, Fabric};
use crate::algo::make::{self, Algo, Shape};
use crate::algo::program::{Program, Protocol};
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
    /// An MSCCL-IR file, or a collective (allreduce, allgather, reducescatter, alltoall,
    /// broadcast) to make with --algo as `topo algo make` makes it (./NAME for a file of
    /// that name).
    #[arg(value_name = "PROGRAM|COLL")]
    pub program: PathBuf,
    /// With a collective: the algorithm to make it by (as `topo algo make --algo`).
    #[arg(long, value_name = "NAME", value_parser = PossibleValuesParser::new(Algo::ALL.map(|a| a.name())))]
    pub algo: Option<String>,
    #[command(flatten)]
    pub shape: ShapeArgs,
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
    /// MSCCL-IR files of one collective, or one collective (allreduce, allgather,
    /// reducescatter, alltoall, broadcast): every algorithm `topo algo make` offers for it
    /// on the machine, made and costed (./NAME for a file of that name).
    #[arg(value_name = "PROGRAM|COLL", required = true)]
    pub programs: Vec<PathBuf>,
    /// With a collective: the protocol the made programs declare.
    #[command(flatten)]
    pub proto: ProtoArg,
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

/// The machine a program is costed on.
struct Machine {
    fabric: Fabric,
    model: Model,
    /// The job (NCCL's rings and trees with it, for programs to make).
    shape: Shape,
    /// The fabric with NCCL's own ring channels' NICs, where they can differ from the
    /// runtime's (a job across nodes of one domain).
    nccl_rings: Option<Fabric>,
}

/// The machine: fabric, tuning model and, for programs to make, the job (NCCL's rings
/// with it).
fn machine(input: &InputArgs, m: &ModelArgs, job: bool, ctx: &mut Ctx) -> Result<Machine, Error> {
    let (_, an) = super::analyze_input(input, m, ctx)?;
    let so = super::search_options(&an, ctx)?;
    let (graphs, _) = super::search_with_progress(&an, &so, ctx)?;
    let model = Model::new(&an, &graphs)?;
    for w in &model.warnings {
        ctx.warn(w)?;
    }
    let shape = if job { make::machine::shape_with(&an, &graphs)? } else { make::machine::shape(&an, false)? };
    let fabric = Fabric::new(&an, &model)?;
    let nccl_rings = fabric.with_ring_graph(&graphs.ring);
    Ok(Machine { fabric, model, shape, nccl_rings })
}

/// For `nccl`: where NCCL's own ring channels, which take the NICs their graph names,
/// would cost more than 1% apart from the program as the runtime connects it (each
/// GPU's own NIC for the channel, or a PXN relay's), one line saying so at the largest
/// size.
fn nccl_rings_note(p: &Program, runtime: crate::algo::Runtime, m: &Machine, c: &Costed) -> Option<String> {
    let rings = m.nccl_rings.as_ref()?;
    let last = c.rows.last()?;
    let own = cost::cost(p, runtime, rings, &[last.bytes]).ok()?;
    let t = own.rows.first()?.time_us;
    ((t - last.time_us).abs() > 0.01 * last.time_us).then(|| {
        format!(
            "at {} bytes NCCL's own rings cost {t:.0} us here, the program {:.0} us: NCCL's channels take the NICs \
             their ring graph names (graph->inter), while {} connects the program's peers with no graph, each GPU \
             through its own NIC for the channel or a PXN relay's (ncclTopoGetNetDev)",
            last.bytes,
            last.time_us,
            runtime.long_name()
        )
    })
}

/// The collective a command names instead of a program file, if it does.
fn named_collective(arg: &std::path::Path) -> Option<crate::algo::program::Collective> {
    arg.to_str().and_then(collective)
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
    let coll = named_collective(&a.program);
    let shaped = a.shape.channels.is_some() || a.shape.instances != 1 || a.shape.proto.protocol() != Protocol::Simple;
    let (p, file, made, m) = match (coll, &a.algo) {
        (Some(coll), Some(algo)) => {
            let algo = algorithm(algo)?;
            let m = machine(&a.input, &a.model, true, ctx)?;
            let opts = super::algo_make::options(coll, algo, runtime, &a.shape, &m.shape, ctx)?;
            (make::make(&opts, &m.shape).map_err(Error::Usage)?, algo.name().to_string(), Some(algo), m)
        }
        (Some(coll), None) => {
            return Err(Error::Usage(format!(
                "`{coll}` is a collective: name the algorithm to make it by with --algo (or ./{coll} for a file)"
            )));
        }
        (None, Some(_)) => {
            return Err(Error::Usage("--algo makes a program for a collective: give COLL, not a file".into()));
        }
        (None, None) if shaped => {
            return Err(Error::Usage(
                "--channels, --instances and --proto shape a made program: give COLL --algo NAME".into(),
            ));
        }
        (None, None) => {
            let p = load(&a.program, runtime, ctx)?;
            let m = machine(&a.input, &a.model, false, ctx)?;
            (p, a.program.display().to_string(), None, m)
        }
    };
    let c = cost_program(&p, runtime, &m.fabric, &m.model, &sizes, &file)?;
    if made == Some(Algo::Nccl)
        && let Some(note) = nccl_rings_note(&p, runtime, &m, &c)
    {
        ctx.note(&note)?;
    }
    let text = if a.json {
        render::algo_cost::cost_json(&file, &m.fabric, &c)
    } else {
        render::algo_cost::cost_text(&file, &m.fabric, &c)
    };
    ctx.print(&text)?;
    Ok(0)
}

pub fn run_compare(a: &CompareArgs, ctx: &mut Ctx) -> Result<i32, Error> {
    let runtime = a.runtime.runtime();
    let sizes = sizes(&a.sizes)?;
    if let [one] = a.programs.as_slice()
        && let Some(coll) = named_collective(one)
    {
        return compare_made(a, coll, &sizes, ctx);
    }
    if a.proto.protocol() != Protocol::Simple {
        return Err(Error::Usage("--proto is for the programs compare makes: give one collective, not files".into()));
    }
    if let Some(f) = a.programs.iter().find(|f| named_collective(f).is_some()) {
        return Err(Error::Usage(format!(
            "`{}` is a collective: compare either one collective or program files (./{} for a file)",
            f.display(),
            f.display()
        )));
    }
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
    let Machine { fabric, model, .. } = machine(&a.input, &a.model, false, ctx)?;
    let mut costed = Vec::new();
    let mut names = Vec::new();
    for (f, p) in &programs {
        costed.push(cost_program(p, runtime, &fabric, &model, &sizes, f)?);
        names.push(f.clone());
    }
    print_comparison(a, &names, false, &fabric, costed, ctx)
}

/// `compare COLL`: every algorithm `make` offers for the collective on the machine; the
/// ones it does not offer here are noted with the reason.
fn compare_made(
    a: &CompareArgs,
    coll: crate::algo::program::Collective,
    sizes: &[u64],
    ctx: &mut Ctx,
) -> Result<i32, Error> {
    let runtime = a.runtime.runtime();
    let Machine { fabric, model, shape, .. } = machine(&a.input, &a.model, true, ctx)?;
    let mut costed = Vec::new();
    let mut names = Vec::new();
    for (algo, made) in make::machine::every(coll, &shape, runtime, a.proto.protocol()) {
        match made {
            Ok(p) => {
                costed.push(cost_program(&p, runtime, &fabric, &model, sizes, algo.name())?);
                names.push(algo.name().to_string());
            }
            Err(why) => ctx.note(&format!("{} is not compared: {why}", algo.name()))?,
        }
    }
    if costed.is_empty() {
        return Err(Error::Usage(format!("no algorithm topo makes offers {coll} on this job")));
    }
    print_comparison(a, &names, true, &fabric, costed, ctx)
}

fn print_comparison(
    a: &CompareArgs,
    names: &[String],
    made: bool,
    fabric: &Fabric,
    costed: Vec<Costed>,
    ctx: &mut Ctx,
) -> Result<i32, Error> {
    let cmp = cost::compare(costed);
    let text = if a.json {
        render::algo_cost::compare_json(names, made, fabric, &cmp)
    } else {
        render::algo_cost::compare_text(names, fabric, &cmp)
    };
    ctx.print(&text)?;
    Ok(0)
}
