//! What the search needs besides the system.

use crate::error::Error;

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
    /// NCCL_GRAPH_FILE contents, if set.
    pub graph_file: Option<(String, crate::xml::Xml)>,
}

impl SearchOptions {
    /// Options from the model options and the NCCL_* variables; reads NCCL_GRAPH_FILE.
    pub fn from_analysis(an: &crate::model::Analysis) -> Result<SearchOptions, Error> {
        let env = &an.options.env;
        let graph_file = match env.get("NCCL_GRAPH_FILE") {
            Some(f) if !f.is_empty() => {
                let (x, _) = crate::xml::read_file(std::path::Path::new(f))?;
                Some((f.to_string(), x))
            }
            _ => None,
        };
        Ok(SearchOptions {
            cross_nic: env.param("CROSS_NIC", 2) as i32,
            collnet: an.options.collnet,
            nvls: an.options.nvls && env.param("NVLS_ENABLE", 2) != 0,
            rail_per_host: env.param("MNNVL_RAIL_PER_HOST", 0) != 0,
            scatter: env.param("MNNVL_SCATTER_NETS_ENABLE", 1) != 0,
            graph_file,
        })
    }
}
