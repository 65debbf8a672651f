//! Graphviz pictures, one file each: the machine (`topo paths --dot`, [`paths`]), the
//! searched channels (`topo search --dot`, [`search`]), the rings of a log (`topo log
//! --dot`, [`log`]) and a collective program's connections (`topo algo show --dot`,
//! [`algo`]). Beside them, what they share: the Graphviz statements, colours,
//! legend and printer (`graphviz.rs`), where each node of the machine goes
//! (`layout.rs`), and the machine drawn from that layout (`machine.rs`), which the
//! paths picture is and the search's `--channel` picture draws over; a multi-node NVLink
//! rack is drawn as its trays around one fabric (`rack.rs`).

pub mod algo;
mod graphviz;
mod layout;
pub mod log;
mod machine;
pub mod paths;
mod rack;
pub mod search;
