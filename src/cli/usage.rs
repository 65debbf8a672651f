//! Command-line mistakes said on one line: clap's message in the words a person needs
//! (the values a choice takes, what is wrong with a number), with its "did you mean"
//! tip kept, and a missing command named with the commands there are.

use std::ffi::OsString;

use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use super::Cli;

/// A usage error on one line, ending `(see --help)`.
pub(super) fn usage_line(e: &clap::Error, args: &[OsString]) -> String {
    if matches!(e.kind(), ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
        return missing_command(args);
    }
    if e.kind() == ErrorKind::UnknownArgument
        && let Some(line) = negative_number(e, args)
    {
        return line;
    }
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty()).peekable();
    let first = lines.next().unwrap_or("bad command line");
    let mut msg = plain_numbers(first.strip_prefix("error: ").unwrap_or(first));
    // "…were not provided:" is followed by the arguments it means, one per line.
    if msg.ends_with(':') {
        let mut items = Vec::new();
        while let Some(l) = lines.next_if(|l| !l.starts_with("Usage:") && !l.starts_with("tip: ")) {
            items.push(l);
        }
        msg.push(' ');
        msg.push_str(&items.join(", "));
    }
    for l in lines {
        if let Some(values) = l.strip_prefix("[possible values: ").and_then(|v| v.strip_suffix(']')) {
            msg.push_str("; it takes one of: ");
            msg.push_str(values);
        } else if l.starts_with("tip: ") {
            msg.push_str("; ");
            msg.push_str(l);
        }
    }
    msg.push_str(" (see --help)");
    msg
}

/// Rust's words for a number that does not parse, in a person's: a value too large
/// for the count, or one that is no whole number.
fn plain_numbers(msg: &str) -> String {
    msg.replace(": number too large to fit in target type", ": too large a number")
        .replace(": number too small to fit in target type", ": too small a number")
        .replace(": invalid digit found in string", ": not a whole number")
        .replace(": cannot parse integer from empty string", ": empty, where a number is needed")
}

/// `--nodes -1`: clap takes the `-1` for an option. Said as what it is: a negative
/// number given to an option that counts.
fn negative_number(e: &clap::Error, args: &[OsString]) -> Option<String> {
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else { return None };
    if arg.parse::<f64>().map_or(true, |v| v >= 0.0) {
        return None;
    }
    let at = args.iter().position(|a| a.to_string_lossy() == arg.as_str())?;
    let option = args.get(at.checked_sub(1)?)?.to_string_lossy().into_owned();
    if !option.starts_with('-') {
        return Some(format!("{arg} is a negative number where none is taken (see --help)"));
    }
    Some(format!("{option} {arg}: a negative number, where {option} takes a count (see --help)"))
}

/// "a command is missing" for the (sub)command the arguments name, with its commands.
fn missing_command(args: &[OsString]) -> String {
    let mut cmd = Cli::command();
    let mut path = vec![cmd.get_name().to_string()];
    for a in args.iter().skip(1) {
        let a = a.to_string_lossy();
        let Some(sub) = cmd.find_subcommand(a.as_ref()).cloned() else { continue };
        path.push(sub.get_name().to_string());
        cmd = sub;
    }
    let names: Vec<&str> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| s.get_name()).collect();
    let path = path.join(" ");
    format!("a command is missing: {path} COMMAND, where COMMAND is one of {} (see {path} --help)", names.join(", "))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::error::Error;

    fn usage(args: &[&str]) -> String {
        match crate::cli::run_args(args, BTreeMap::new(), &mut Vec::new(), &mut Vec::new()) {
            Err(Error::Usage(m)) => m,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    /// A choice lists what it takes; a negative count, a count too large and one that is
    /// no whole number are each said as what they are.
    #[test]
    fn argument_errors_say_what_is_wrong() {
        let e = usage(&["topo", "tune", "scatter", "--fixture", "gh200"]);
        assert!(e.starts_with("invalid value 'scatter' for '[FUNC]'; it takes one of: "), "{e}");
        assert!(e.contains(" allreduce") && e.contains(" allgather"), "{e}");
        assert_eq!(
            usage(&["topo", "show", "--fixture", "gh200", "--nodes", "-1"]),
            "--nodes -1: a negative number, where --nodes takes a count (see --help)"
        );
        let e = usage(&["topo", "show", "--fixture", "gh200", "--nodes", "99999999999999999999"]);
        assert_eq!(e, "invalid value '99999999999999999999' for '--nodes <N>': too large a number (see --help)");
        let e = usage(&["topo", "show", "--fixture", "gh200", "--nodes", "1.5"]);
        assert_eq!(e, "invalid value '1.5' for '--nodes <N>': not a whole number (see --help)");
        let e = usage(&["topo", "tune", "--fixture", "gh200", "-b", "99999999999999999999"]);
        assert!(e.contains("too large") && !e.contains("not a size"), "{e}");
    }
}
