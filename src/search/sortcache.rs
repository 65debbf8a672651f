//! The cache behind the recursion's GPU sort with a NET (see `sort.rs`): its data and
//! limits, apart from the code that fills it so that the recursion can hold one.

use std::rc::Rc;

/// The GPU sort with a NET, made once per channel visit.
///
/// NCCL sorts the free GPUs by their PCI bandwidth (among fixed keys). A GPU's PCI
/// links carry only paths that start or end at that GPU, unless some path crosses
/// them (PXN does: a NIC reached through another GPU); see `ok`. So while a channel
/// is searched, a GPU not yet in it has the PCI bandwidth it had when the channel's
/// search was entered: reservations of earlier channels stay, and those of this
/// channel's backtracking and of later channels are given back exactly (links in
/// thousandths). The sort of all GPUs by those bandwidths, filtered by the free ones,
/// is then NCCL's sort of the free ones.
pub(super) struct SortCache {
    /// The above holds: no NVSwitch (a different sort), the GPUs' PCI links come
    /// back exactly from a round trip, and no path made so far crosses another GPU's
    /// PCI links.
    pub(super) ok: bool,
    /// Per link: the GPU whose PCI bandwidth the sort reads from it, or `u32::MAX`.
    pub(super) owner: Vec<u32>,
    /// The distinct sets of the GPUs' PCI bandwidths seen when a channel's search was
    /// entered, numbered, and the number of each channel's current one.
    pub(super) snaps: std::collections::HashMap<Rc<[i32]>, u32>,
    pub(super) snap_pci: Vec<Rc<[i32]>>,
    pub(super) snap_of: Vec<u32>,
    /// Per (GPU, NET) pair: the set of bandwidths its order was made with, and the
    /// order (`ngpus` entries per pair).
    pub(super) made: Vec<u32>,
    pub(super) order: Vec<u32>,
}

/// More distinct sets than this and the search goes on without the cache.
pub(super) const MAX_SNAPS: usize = 1 << 14;
