//! `topo algo show`: placeholder.
