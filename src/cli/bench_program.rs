//! `topo bench allreduce --algo PROGRAM.xml` and `topo bench allgather | reducescatter |
//! alltoall | broadcast | reduce --algo PROGRAM.xml`: an MSCCL-IR program on the host
//! interpreter or the CUDA interpreter kernel, in nccl-tests' columns.

use std::path::{Path, PathBuf};

use clap::Args;

use super::Ctx;
use crate::algo::program::Collective;
use crate::bench::program::{ProgramBackend, ProgramHost, load, sweep};
use crate::bench::{self, BackendKind};
use crate::error::Error;
use crate::render;

/// `--algo`: what runs instead of NCCL's rings.
#[derive(Debug, Clone, Args)]
pub struct ProgramArgs {
    /// Run this MSCCL-IR program instead of NCCL's rings (refused with `topo algo
    /// check`'s findings unless it passes), on host threads or with the CUDA
    /// interpreter kernel (one GPU per rank).
    #[arg(long = "algo", value_name = "PROGRAM.xml")]
    pub algo: Option<PathBuf>,
}

/// Run `p`'s program for collective `coll`: `opts` are nccl-tests' flags as the bench
/// stage takes them, `root` the `-r` of broadcast and reduce (`None` for allreduce).
pub fn run(
    coll: Collective,
    opts: bench::Options,
    root: Option<u32>,
    p: &ProgramArgs,
    json: Option<&Path>,
    ctx: &mut Ctx,
) -> Result<i32, Error> {
    let Some(path) = &p.algo else {
        return Err(Error::Usage(format!(
            "topo bench {coll} runs collective programs only for now: name one with --algo PROGRAM.xml"
        )));
    };
    opts.check()?;
    if opts.backend == BackendKind::Cuda {
        // No GPU to run on: say so (and point to the host backend) before the program
        // is read.
        bench::cuda::device_count()?;
    }
    let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let file = path.display().to_string();
    let loaded = load(&text, &file)?;
    if loaded.coll() != coll {
        return Err(Error::Input { file, message: format!("a {} program, not {coll}", loaded.coll()) });
    }
    if let Some(n) = opts.ngpus.filter(|&n| n != loaded.nranks()) {
        return Err(Error::Usage(format!("{file}: the program is for {} ranks, not -g {n}", loaded.nranks())));
    }
    if let Some(r) = root.filter(|&r| matches!(coll, Collective::Broadcast | Collective::Reduce) && r != loaded.root) {
        return Err(Error::Usage(format!("{file}: the program is for root {}, not -r {r}", loaded.root)));
    }
    let unit = loaded.count_unit();
    let mut backend: Box<dyn ProgramBackend> = match opts.backend {
        BackendKind::Host => Box::new(ProgramHost::new(loaded)),
        BackendKind::Cuda => {
            let mut warnings = Vec::new();
            let b =
                bench::cuda::ProgramCuda::new(loaded, super::bench::kernel_cache(&ctx.vars).as_deref(), &mut warnings)?;
            for w in warnings {
                ctx.say(&format!("warning: {w}"))?;
            }
            Box::new(b)
        }
    };
    let host = backend.as_mut();
    let rc = super::bench::run_context(ctx)?;
    let json = super::bench::json_target(json, ctx)?;
    let start_time = (rc.now)();
    ctx.print(&render::bench_program::header(&host.loaded().program, &file, host.name(), &opts))?;
    let rows = sweep::run(&opts, host, &mut |r| ctx.print(&render::bench_program::row(r)))?;
    if rows.is_empty() {
        return Err(Error::Usage(format!(
            "{file}: no size from -b to -e holds a count per rank of {unit}, the least the program runs"
        )));
    }
    let outcome = sweep::outcome(&opts, host, &rows, &rc, start_time, &file);
    ctx.print(&render::bench_program::footer(&host.loaded().program, &outcome.summary, unit))?;
    if let Some(p) = json {
        let mut doc = bench::report::JsonDoc::new(&outcome, &rc);
        // nccl-tests prints the root of broadcast and reduce, -1 for the others.
        for (res, row) in doc.results.iter_mut().zip(&rows) {
            res.root = format!("{:6}", row.root);
        }
        super::bench::write_json(&p, &doc)?;
    }
    Ok(outcome.status())
}
