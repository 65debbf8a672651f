//! nccl-tests' text for `topo bench COLL --streams`: the header naming the plan that
//! runs, the rows of the program bench ([`super::bench_program::row`]), the footer.

use super::bench_program::{concluded, table_head, title, totals};
use crate::bench::Options;
use crate::bench::report::Summary;
use crate::bench::streams::{Exec, StreamsHost, collective, sweep};

/// The lines before the table, and the table header.
pub fn header(h: &StreamsHost, opts: &Options) -> String {
    let backend = if h.exec == Exec::Device { "cuda (streams and events)" } else { "host" };
    format!("{}# Plan: {}\n{}", title(collective(h.coll()), backend), sweep::describe(h), table_head(h.nranks(), opts))
}

/// nccl-tests' footer.
pub fn footer(h: &StreamsHost, s: &Summary) -> String {
    totals(s) + &concluded(collective(h.coll()))
}
