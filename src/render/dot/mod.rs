//! Graphviz pictures, one file each: the machine (`topo paths --dot`, [`paths`]), the
//! searched channels (`topo search --dot`, [`search`]) and the rings of a log (`topo log
//! --dot`, [`log`]). Beside them, what they share: the Graphviz statements, colours,
//! legend and printer (`graphviz.rs`), where each node of the machine goes
//! (`layout.rs`), and the machine drawn from that layout (`machine.rs`), which the
//! paths picture is and the search's `--channel` picture draws over.

mod graphviz;
mod layout;
pub mod log;
mod machine;
pub mod paths;
pub mod search;
