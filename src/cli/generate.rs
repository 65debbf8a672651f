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

/// Write completions for every shell clap_complete knows, and the man pages: `topo.1`,
/// one per command, and one per nested command (`topo-bench-allreduce.1`).
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
    let p = man.join("topo.1");
    super::write_atomically(&p, &man_page(cmd.clone(), &[]).map_err(|e| Error::io(&man, e))?)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(&man, &["topo", sub.get_name()], sub)?;
    }
    Ok(())
}

/// The page of the command at `path` (`topo bench`), then one for each of its own
/// subcommands, named as git names them (`topo-bench-allreduce`).
fn write_pages(man: &std::path::Path, path: &[&str], cmd: &clap::Command) -> Result<(), Error> {
    let name = path.join("-");
    let static_name: &'static str = Box::leak(name.clone().into_boxed_str());
    let text = man_page(cmd.clone().name(static_name), &path[1..]).map_err(|e| Error::io(man, e))?;
    super::write_atomically(&man.join(format!("{name}.1")), &text)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(man, &[path, &[sub.get_name()]].concat(), sub)?;
    }
    Ok(())
}

/// A man page: clap_mangen's sections, with a synopsis that names every option's value,
/// an EXAMPLES section, and SEE ALSO naming the pages of the command above and below.
/// `path`: the command's words after `topo` (none for topo's own page).
fn man_page(cmd: clap::Command, path: &[&str]) -> std::io::Result<String> {
    // No `help` subcommand: it has no page to name. Built, the arguments know how many
    // values they take.
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let m = clap_mangen::Man::new(cmd.clone());
    let mut buf = Vec::new();
    m.render_title(&mut buf)?;
    m.render_name_section(&mut buf)?;
    buf.extend_from_slice(synopsis(&cmd).as_bytes());
    m.render_description_section(&mut buf)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        m.render_options_section(&mut buf)?;
    }
    if cmd.has_subcommands() {
        m.render_subcommands_section(&mut buf)?;
    }
    let ex = examples(&path.join(" "));
    if !ex.is_empty() {
        buf.extend_from_slice(b".SH EXAMPLES\n");
        for (line, what) in ex {
            buf.extend_from_slice(format!(".TP\n\\fB{}\\fR\n{}\n", roff(line), roff(what)).as_bytes());
        }
    }
    buf.extend_from_slice(exit_status(&path.join(" ")).as_bytes());
    buf.extend_from_slice(environment(path).as_bytes());
    buf.extend_from_slice(see_also(&cmd, path).as_bytes());
    if let Some(v) = cmd.get_long_version().or(cmd.get_version()) {
        buf.extend_from_slice(version_section(v).as_bytes());
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// EXIT STATUS: 0, what 1 means for the commands that say what they found by it, and 2.
fn exit_status(sub: &str) -> String {
    let one = match sub {
        "algo check" | "algo" => Some("algo check: a program (or one of a folder's) has a finding"),
        _ if sub.starts_with("algo") => None,
        _ => match sub.split(' ').next().unwrap_or("") {
            "diff" => Some("the dumps differ"),
            "fleet" => Some("some dumps differ from the reference, or could not be read (with \\-\\-skip\\-bad)"),
            "check" => Some("a finding is an error"),
            "log" => Some("the model disagrees with the log"),
            "bench" => Some("a result is wrong or below NCCL_TESTS_MIN_BW, as nccl\\-tests fails"),
            "" => Some(
                "diff, fleet, check, log, bench allreduce and algo check: what each says it found (see their pages)",
            ),
            _ => None,
        },
    };
    let mut s = String::from(".SH \"EXIT STATUS\"\n.TP\n0\nSuccess");
    s.push_str(if one.is_some() { ".\n" } else { "; nothing is wrong.\n" });
    if let Some(one) = one {
        s.push_str(&format!(".TP\n1\n{}.\n", one[..1].to_uppercase() + &one[1..]));
    }
    s.push_str(
        ".TP\n2\nBad input or usage: one \\fBtopo: error:\\fR line naming the file, line and attribute (or the \
         argument), and nothing on standard output.\n",
    );
    s
}

/// ENVIRONMENT: what topo reads from its environment; the command's own variables, and
/// the whole list on topo(1).
fn environment(path: &[&str]) -> String {
    let var = |name: &str, what: &str| format!(".TP\n\\fB{}\\fR\n{}\n", roff(name), roff(what));
    let mut s = String::from(".SH ENVIRONMENT\n");
    s.push_str(&var("TOPO_NCCL_VERSION", "The NCCL release to model, as --nccl-version (which wins over it)."));
    s.push_str(&var("COLUMNS", "The width text is fitted to (else the terminal's; piped, as wide as it takes)."));
    s.push_str(&var("NO_COLOR", "Set and not empty: no colours with --color auto."));
    s.push_str(&var(
        "NCCL_*",
        "NCCL's own variables, read with NCCL's parsing for the release modelled: NCCL_P2P_LEVEL, \
         NCCL_NET_GDR_LEVEL, NCCL_CROSS_NIC, NCCL_GRAPH_FILE, NCCL_ALGO, NCCL_PROTO and the others the README \
         lists (a value NCCL would ignore draws a warning).",
    ));
    if path.first() == Some(&"bench") || path.is_empty() {
        s.push_str(&var("NCCL_TESTS_MIN_BW", "topo bench allreduce: fail (exit 1) below this bus bandwidth, in GB/s."));
    }
    if path.is_empty() {
        s.push_str(&var(
            "VIRTUAL_ENV, CONDA_PREFIX, HOME",
            "Where to look for the nvidia-nccl Python packages whose NCCL a live machine would load.",
        ));
    }
    s
}

/// VERSION: the version, then the releases modelled as paragraphs that man fills to the
/// page (the text of `topo --version`, whose lines are cut for a terminal).
fn version_section(long: &str) -> String {
    let mut lines = long.lines();
    let mut s = format!(".SH VERSION\nv{}\n", roff(lines.next().unwrap_or("").trim()));
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, s: &mut String| {
        if !para.is_empty() {
            s.push_str(&format!(".PP\n{}\n", roff(&para.join(" "))));
            para.clear();
        }
    };
    for l in lines {
        let t = l.trim();
        // A new paragraph where the kind of line changes: prose, the list, the footnote.
        let kind = |x: &str| {
            if x.starts_with('*') {
                2
            } else if x.starts_with(|c: char| c.is_ascii_digit()) {
                1
            } else {
                0
            }
        };
        if para.last().is_some_and(|p| kind(p) != kind(t)) {
            flush(&mut para, &mut s);
        }
        para.push(t);
    }
    flush(&mut para, &mut s);
    s
}

/// `.SH "SEE ALSO"` for a nested command's page (the page of the command above it) and
/// for a page whose subcommands have pages of their own (theirs); nothing for the others,
/// whose SUBCOMMANDS section, if any, already names the pages.
fn see_also(cmd: &clap::Command, path: &[&str]) -> String {
    let mut pages = Vec::new();
    if path.len() > 1 {
        pages.push(format!("topo-{}", path[..path.len() - 1].join("-")));
    }
    if !path.is_empty() {
        let me = format!("topo-{}", path.join("-"));
        pages.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| format!("{me}-{}", s.get_name())));
    }
    if pages.is_empty() {
        return String::new();
    }
    let refs: Vec<String> = pages.iter().map(|p| format!("\\fB{}\\fR(1)", roff(p))).collect();
    format!(".SH \"SEE ALSO\"\n{}\n", refs.join(",\n"))
}

/// Text for roff: backslashes and dashes escaped, no line starting with a dot.
fn roff(s: &str) -> String {
    let t = s.replace('\\', "\\e").replace('-', "\\-");
    if t.starts_with('.') || t.starts_with('\'') { format!("\\&{t}") } else { t }
}

/// `.SH SYNOPSIS` with each option's value (`[--topo FILE]`) and the positionals.
fn synopsis(cmd: &clap::Command) -> String {
    let mut s = format!(".SH SYNOPSIS\n\\fB{}\\fR", roff(cmd.get_name()));
    for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let values =
            a.get_value_names().map(|v| v.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap_or_default();
        let takes = a.get_num_args().is_some_and(|n| n.takes_values());
        let value = if takes {
            let names = if values.is_empty() { vec![a.get_id().as_str().to_uppercase()] } else { values };
            names.iter().map(|n| format!(" \\fI{}\\fR", roff(n))).collect::<String>()
        } else {
            String::new()
        };
        if a.is_positional() {
            let n = a
                .get_value_names()
                .and_then(|v| v.first())
                .map_or(a.get_id().as_str().to_uppercase(), |n| n.to_string());
            let many = if a.get_num_args().is_some_and(|r| r.max_values() > 1) { "..." } else { "" };
            if a.is_required_set() {
                s.push_str(&format!(" \\fI{}\\fR{many}", roff(&n)));
            } else {
                s.push_str(&format!(" [\\fI{}\\fR]{many}", roff(&n)));
            }
            continue;
        }
        let flag = match (a.get_long(), a.get_short()) {
            (Some(l), Some(c)) => format!("\\fB\\-{c}\\fR|\\fB\\-\\-{}\\fR", roff(l)),
            (Some(l), None) => format!("\\fB\\-\\-{}\\fR", roff(l)),
            (None, Some(c)) => format!("\\fB\\-{c}\\fR"),
            (None, None) => continue,
        };
        s.push_str(&format!(" [{flag}{value}]"));
    }
    if cmd.has_subcommands() {
        s.push_str(" \\fICOMMAND\\fR");
    }
    s.push('\n');
    s
}

/// Examples of each command, for its man page: (command line, what it does).
fn examples(sub: &str) -> &'static [(&'static str, &'static str)] {
    match sub {
        "" => &[
            ("topo fixtures", "List the machines topo carries built in."),
            ("topo paths --fixture dgx-h100", "Paths and verdicts of a built-in DGX H100."),
            ("topo search --topo node.xml", "NCCL's channels for a topology NCCL dumped (NCCL_TOPO_DUMP_FILE)."),
            ("topo check", "Health checks of this machine."),
        ],
        "show" => &[
            ("topo show --fixture dgx-h100", "The system NCCL builds, as a tree."),
            ("topo show --xml --topo node.xml", "The topology as NCCL reads it back."),
        ],
        "paths" => &[
            ("topo paths --topo node.xml", "The path matrix, fitted to the terminal, and the P2P and GDR verdicts."),
            ("COLUMNS=100 topo paths --fixture dgx-h100", "Fit every line in 100 columns."),
            ("topo paths --explain --fixture gh200", "With the reason for each verdict and each path's route."),
            ("topo paths --dot --fixture dgx-h100 | dot -Tsvg > topo.svg", "A drawing of the machine."),
        ],
        "analyze" => &[("topo analyze --json --topo node.xml", "Everything the model decides, as JSON.")],
        "search" => &[
            ("topo search --fixture dgx-h100", "Ring, tree and NVLS graphs and the channels NCCL runs."),
            ("topo search --nodes 2 --topo node.xml", "The channels of a 2-node job."),
        ],
        "tune" => &[("topo tune --fixture dgx-h100", "Algorithm, protocol, time and bandwidth per message size.")],
        "diff" => &[("topo diff good.xml bad.xml", "What differs between two dumps and what it does to NCCL.")],
        "fleet" => &[("topo fleet dumps/", "Group the dumps of many nodes and explain every outlier.")],
        "log" => &[("topo log nccl.log", "What an NCCL_DEBUG=INFO log says, held against the model.")],
        "bench" => &[
            ("topo bench allreduce --backend host --fixture dgx-h100 -b 1K -e 16M -f 4", "Measure the host ring."),
            ("topo bench allreduce -g 8 -b 8 -e 8G -f 2", "Measure allreduce on 8 local GPUs (CUDA)."),
        ],
        "bench allreduce" => &[
            (
                "topo bench allreduce --backend host -g 4",
                "Four CPU threads, one per rank, run the ring protocol on 32 MiB messages (the default sizes); no \
                 GPU needed.",
            ),
            (
                "topo bench allreduce -b 8 -e 128M -f 2",
                "Every local GPU (CUDA), sizes doubling from 8 bytes to 128 MiB, as nccl-tests' all_reduce_perf \
                 prints them.",
            ),
            (
                "topo bench allreduce --compile-only --arch sm_90",
                "Compile every kernel for sm_90 with NVRTC and report registers and spills; no GPU needed.",
            ),
            (
                "topo bench allreduce --backend host --fixture dgx-h100 -J result.json",
                "Run along the channels NCCL would pick on a DGX H100 and also write nccl-tests' JSON report.",
            ),
        ],
        "detect" => &[
            ("topo detect > node.xml", "This machine's topology as NCCL would dump it."),
            ("topo detect --root fixtures/fsroot/dgx-h100", "Detect a fake machine tree."),
        ],
        "check" => &[
            ("topo check", "Health checks of this machine (exit 1 when a finding is an error)."),
            (
                "topo check --topo node.xml",
                "What a topology dump shows: downtrained links, NICs on other sockets, GDR off.",
            ),
        ],
        "fixtures" => &[("topo fixtures", "List the built-in machines.")],
        _ => &[],
    }
}
