//! The CUDA backend of a build without the `cuda` feature: the names of `cuda.rs` that
//! the rest of topo uses, every one of which says that this build has no CUDA support.
//! The host backend is unaffected.

use std::path::Path;
use std::time::Duration;

use super::dtype::{DataType, RedOp};
use super::plan::Plan;
pub use super::report::{CompileReport, KernelStats};
use super::{Backend, DeviceInfo};
use crate::algo::program::Mode;
use crate::error::Error;

/// Channels when there is no search result (as in the CUDA build).
pub const DEFAULT_CHANNELS: usize = 8;
/// Default FIFO slot size on the GPU (as in the CUDA build).
pub const DEFAULT_SLOT_BYTES: usize = 128 * 1024;

/// What every CUDA entry point of this build answers.
pub fn unsupported() -> Error {
    Error::Unavailable(
        "this build of topo has no CUDA support (built without the `cuda` feature): \
         use --backend host, or rebuild with `cargo install --path . --features cuda`"
            .into(),
    )
}

/// Whether the CUDA driver library can be loaded: never, in this build.
pub fn driver_present() -> bool {
    false
}

/// Whether the NVRTC library can be loaded: never, in this build.
pub fn nvrtc_present() -> bool {
    false
}

/// Number of CUDA devices: an error in this build.
pub fn device_count() -> Result<usize, Error> {
    Err(unsupported())
}

/// `--compile-only`: an error in this build.
pub fn compile_only(_archs: &[String]) -> Result<Vec<CompileReport>, Error> {
    Err(unsupported())
}

/// The CUDA backend, which this build cannot make (no value of it exists).
pub enum CudaBackend {}

impl CudaBackend {
    pub fn new(_plan: &Plan, _slot_bytes: usize, _kernel_cache: Option<&Path>) -> Result<CudaBackend, Error> {
        Err(unsupported())
    }
}

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        match *self {}
    }
    fn nranks(&self) -> usize {
        match *self {}
    }
    fn devices(&self) -> Vec<DeviceInfo> {
        match *self {}
    }
    fn prepare(&mut self, _max_bytes: usize) -> Result<(), Error> {
        match *self {}
    }
    fn set_input(&mut self, _rank: usize, _in_place: bool, _data: &[u8]) -> Result<(), Error> {
        match *self {}
    }
    fn fill_output(&mut self, _rank: usize, _bytes: usize, _value: u8) -> Result<(), Error> {
        match *self {}
    }
    fn get_output(&mut self, _rank: usize, _out: &mut [u8]) -> Result<(), Error> {
        match *self {}
    }
    fn run(&mut self, _: DataType, _: RedOp, _: usize, _: bool, _: usize) -> Result<Duration, Error> {
        match *self {}
    }
}

/// The program interpreter's CUDA backend, which this build cannot make.
pub enum ProgramCuda {}

impl ProgramCuda {
    pub fn new(
        _loaded: super::program::Loaded,
        _kernel_cache: Option<&Path>,
        _warnings: &mut Vec<String>,
    ) -> Result<ProgramCuda, Error> {
        Err(unsupported())
    }
}

impl super::program::ProgramBackend for ProgramCuda {
    fn loaded(&self) -> &super::program::Loaded {
        match *self {}
    }
    fn name(&self) -> &'static str {
        match *self {}
    }
    fn set_input(&mut self, _: usize, _: Mode, _: DataType, _: usize, _: &[u8]) -> Result<(), Error> {
        match *self {}
    }
    fn fill_output(&mut self, _: usize, _: Mode, _: DataType, _: usize, _: u8) -> Result<(), Error> {
        match *self {}
    }
    fn get_output(&mut self, _: usize, _: Mode, _: DataType, _: usize, _: &mut [u8]) -> Result<(), Error> {
        match *self {}
    }
    fn run(&mut self, _: DataType, _: RedOp, _: usize, _: Mode, _: usize) -> Result<Duration, Error> {
        match *self {}
    }
}

/// The streams' CUDA device, which this build cannot make.
pub enum StreamsCuda {}

impl StreamsCuda {
    pub fn new(
        _nranks: usize,
        _kernel_cache: Option<&Path>,
        _warnings: &mut Vec<String>,
    ) -> Result<StreamsCuda, Error> {
        Err(unsupported())
    }
}

impl super::streams::enqueue::Device for StreamsCuda {
    fn alloc(&mut self, _: usize, _: usize, _: usize) -> Result<u64, String> {
        match *self {}
    }
    fn upload(&mut self, _: u64, _: &[u8]) -> Result<(), String> {
        match *self {}
    }
    fn download(&mut self, _: u64, _: &mut [u8]) -> Result<(), String> {
        match *self {}
    }
    fn prepare(&mut self, _: &[usize], _: usize, _: DataType, _: RedOp) -> Result<(), String> {
        match *self {}
    }
    fn enqueue(&mut self, _: usize, _: super::streams::enqueue::Cmd) -> Result<(), String> {
        match *self {}
    }
    fn synchronize(&mut self) -> Result<(), String> {
        match *self {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_point_names_the_missing_feature() {
        let e = device_count().unwrap_err().to_string();
        assert!(e.contains("`cuda` feature") && e.contains("--backend host"), "{e}");
        assert!(compile_only(&["sm_90".into()]).is_err());
        assert!(CudaBackend::new(&Plan::simple_ring(2, 1), DEFAULT_SLOT_BYTES, None).is_err());
        assert!(!driver_present() && !nvrtc_present());
    }
}
