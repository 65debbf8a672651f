//! What the search needs besides the system.

/// What the search needs besides the system.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// NCCL_CROSS_NIC (default 2).
    pub cross_nic: i32,
    /// CollNet enabled (`--collnet`).
    pub collnet: bool,
    /// NVLS support reported by the driver (`--no-nvls` turns it off); NCCL_NVLS_ENABLE.
    pub nvls: bool,
    /// NCCL_MNNVL_RAIL_PER_HOST.
    pub rail_per_host: bool,
    /// NCCL_MNNVL_SCATTER_NETS_ENABLE.
    pub scatter: bool,
    /// Graphs to load instead of searching (NCCL_GRAPH_FILE, or `search --graph-file`):
    /// the file's name and its XML, read by the caller.
    pub graph_file: Option<(String, crate::xml::Xml)>,
}

impl SearchOptions {
    /// Options from the model options and the NCCL_* variables. NCCL_GRAPH_FILE names
    /// a file; the caller reads it and sets [`SearchOptions::graph_file`].
    pub fn from_analysis(an: &crate::model::Analysis) -> SearchOptions {
        let env = &an.options.env.search;
        SearchOptions {
            cross_nic: env.cross_nic as i32,
            collnet: an.options.collnet,
            nvls: an.options.nvls && env.nvls_enable != 0,
            rail_per_host: env.rail_per_host,
            scatter: env.scatter_nets,
            graph_file: None,
        }
    }
}
