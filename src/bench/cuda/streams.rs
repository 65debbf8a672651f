//! `topo bench COLL --streams HCCL_ALGO --backend cuda`: the plan's streams on CUDA
//! streams, one process driving every GPU (rank r on GPU r). The logic (enqueue order,
//! one event per Post/Wait pair, what each task becomes, the mirrored buffers) is
//! [`crate::bench::streams::enqueue`], tested on the fake device; this is the thin part:
//!
//! * a stream per plan stream, on its rank's GPU;
//! * an event per Post/Wait pair, made on the recording stream's GPU the first time it
//!   is recorded (a record needs its event and stream in one context; a wait may be on
//!   any GPU's stream);
//! * copies as `cuMemcpyAsync` (peer copies through unified addressing, peer access
//!   enabled between every pair: refused without it, since a reduce kernel reads its
//!   peer's buffer directly);
//! * reduces as `streams_reduce_<op>_<type>` of `kernels/streams.cu`;
//! * avg's scalings stay on the host, around the device's run (its kernels are in
//!   `kernels/streams.cu` and tested on the CPU, not yet launched here).

use std::collections::HashMap;
use std::ffi::c_void;
use std::path::Path;

use cudarc::driver::{result as cu, sys};

use super::{Alloc, Device as Gpu, NTHREADS, device_count, drv, no_nvrtc, nvrtc_present, open_device, release};
use crate::bench::dtype::{DataType, RedOp};
use crate::bench::streams::enqueue::{Cmd, Device};
use crate::bench::streams::kernel::{StArgs, reduce_kernel};
use crate::error::Error;

/// At most this many blocks a reduce (a grid-stride loop covers the rest).
const MAX_BLOCKS: usize = 1024;

pub struct StreamsCuda {
    gpus: Vec<Gpu>,
    allocs: Vec<Alloc>,
    /// (rank, buffer) -> (address, bytes).
    mem: HashMap<(usize, usize), (u64, usize)>,
    /// Per stream: its GPU and handle.
    streams: Vec<(usize, sys::CUstream)>,
    /// Per event: the GPU it was made on and its handle.
    events: Vec<Option<(usize, sys::CUevent)>>,
    /// The reduce kernel of the run's type and operator, per GPU.
    reduce: Vec<sys::CUfunction>,
    size: usize,
}

fn err(e: Error) -> String {
    e.to_string()
}

impl StreamsCuda {
    /// Open `nranks` GPUs (refused in one line without a GPU, as every CUDA bench).
    pub fn new(nranks: usize, kernel_cache: Option<&Path>, warnings: &mut Vec<String>) -> Result<StreamsCuda, Error> {
        let ngpu = device_count()?;
        if !nvrtc_present() {
            return Err(no_nvrtc());
        }
        if nranks > ngpu {
            return Err(Error::Usage(format!(
                "a plan of {nranks} ranks on {ngpu} GPU(s): the CUDA backend runs one rank per GPU; use --backend host"
            )));
        }
        let mut gpus = Vec::new();
        for ordinal in 0..nranks {
            gpus.push(open_device(ordinal as i32, kernel_cache, warnings)?);
        }
        for from in 0..nranks {
            for to in (0..nranks).filter(|&t| t != from) {
                let mut can = 0;
                // SAFETY: devices from cuDeviceGet.
                unsafe { sys::cuDeviceCanAccessPeer(&mut can, gpus[from].dev, gpus[to].dev) }
                    .result()
                    .map_err(drv("cuDeviceCanAccessPeer"))?;
                if can == 0 {
                    // A reduce kernel reads its peer's buffer directly.
                    return Err(Error::Unavailable(format!(
                        "GPU {from} cannot access GPU {to} (no peer access): the CUDA backend runs streams over P2P only for now; use --backend host"
                    )));
                }
                super::set_current(&gpus, from)?;
                // SAFETY: enabling access to a retained context.
                match unsafe { sys::cuCtxEnablePeerAccess(gpus[to].ctx, 0) } {
                    sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
                    e => return Err(drv("cuCtxEnablePeerAccess")(cu::DriverError(e))),
                }
            }
        }
        Ok(StreamsCuda {
            gpus,
            allocs: Vec::new(),
            mem: HashMap::new(),
            streams: Vec::new(),
            events: Vec::new(),
            reduce: Vec::new(),
            size: 1,
        })
    }

    fn release_streams(&mut self) {
        // SAFETY: handles this backend made, each released once (drained); nothing runs
        // (every run ends in a synchronize).
        unsafe {
            for (g, s) in self.streams.drain(..) {
                let _ = cu::ctx::set_current(self.gpus[g].ctx);
                let _ = cu::stream::destroy(s);
            }
            for (g, e) in self.events.drain(..).flatten() {
                let _ = cu::ctx::set_current(self.gpus[g].ctx);
                let _ = cu::event::destroy(e);
            }
        }
    }
}

impl Drop for StreamsCuda {
    fn drop(&mut self) {
        for g in 0..self.gpus.len() {
            if super::set_current(&self.gpus, g).is_ok() {
                let _ = cu::ctx::synchronize();
            }
        }
        self.release_streams();
        // SAFETY: every allocation of this backend, nothing running.
        unsafe { release(&mut self.allocs, &self.gpus) };
    }
}

impl Device for StreamsCuda {
    fn alloc(&mut self, rank: usize, buf: usize, bytes: usize) -> Result<u64, String> {
        if let Some(&(addr, have)) = self.mem.get(&(rank, buf))
            && have >= bytes
        {
            return Ok(addr);
        }
        let g = rank % self.gpus.len();
        let addr = super::dev_alloc(&self.gpus, &mut self.allocs, g, bytes).map_err(err)?;
        self.mem.insert((rank, buf), (addr, bytes));
        Ok(addr)
    }

    fn upload(&mut self, addr: u64, data: &[u8]) -> Result<(), String> {
        // SAFETY: `addr` is an allocation of at least `data.len()` bytes (the mirror).
        unsafe { cu::memcpy_htod_sync(addr, data) }.map_err(|e| err(drv("cuMemcpyHtoD")(e)))
    }

    fn download(&mut self, addr: u64, out: &mut [u8]) -> Result<(), String> {
        // SAFETY: as for uploads.
        unsafe { cu::memcpy_dtoh_sync(out, addr) }.map_err(|e| err(drv("cuMemcpyDtoH")(e)))
    }

    fn prepare(&mut self, ranks: &[usize], events: usize, dtype: DataType, op: RedOp) -> Result<(), String> {
        self.release_streams();
        for &r in ranks {
            let g = r % self.gpus.len();
            super::set_current(&self.gpus, g).map_err(err)?;
            let s =
                cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(|e| err(drv("cuStreamCreate")(e)))?;
            self.streams.push((g, s));
        }
        self.events = vec![None; events];
        let name = reduce_kernel(op, dtype);
        self.reduce = self
            .gpus
            .iter()
            .map(|g| g.funcs.get(&name).copied().ok_or_else(|| format!("kernel {name} is not in the module")))
            .collect::<Result<_, _>>()?;
        self.size = dtype.size();
        Ok(())
    }

    fn enqueue(&mut self, stream: usize, cmd: Cmd) -> Result<(), String> {
        let &(g, s) = self.streams.get(stream).ok_or_else(|| format!("stream {stream} was not made"))?;
        super::set_current(&self.gpus, g).map_err(err)?;
        match cmd {
            Cmd::Copy { src, dst, bytes } => {
                // SAFETY: device addresses within mirrored allocations (mapped by the caller).
                unsafe { sys::cuMemcpyAsync(dst as u64, src as u64, bytes, s) }
                    .result()
                    .map_err(|e| err(drv("cuMemcpyAsync")(e)))
            }
            Cmd::Reduce { src, dst, elems, .. } => {
                let args = StArgs { src, dst, count: elems as u64, inv_f32: 0.0, post: 0, inv_f64: 0.0, nranks_u64: 1 };
                let blocks = elems.div_ceil(NTHREADS as usize).clamp(1, MAX_BLOCKS) as u32;
                let mut params = [&args as *const StArgs as *mut c_void];
                // SAFETY: the kernel takes one StArgs (kernels/streams.cu, same layout),
                // whose addresses are within mirrored allocations.
                unsafe { cu::launch_kernel(self.reduce[g], (blocks, 1, 1), (NTHREADS, 1, 1), 0, s, &mut params) }
                    .map_err(|e| err(drv("cuLaunchKernel")(e)))
            }
            Cmd::Record(e) => {
                let slot = self.events.get_mut(e).ok_or_else(|| format!("event {e} was not made"))?;
                let ev = match *slot {
                    Some((eg, ev)) if eg == g => ev,
                    Some((eg, _)) => return Err(format!("event {e} made on GPU {eg} is recorded on GPU {g}")),
                    None => {
                        let ev = cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                            .map_err(|e| err(drv("cuEventCreate")(e)))?;
                        *slot = Some((g, ev));
                        ev
                    }
                };
                // SAFETY: a live event and stream of one context.
                unsafe { cu::event::record(ev, s) }.map_err(|e| err(drv("cuEventRecord")(e)))
            }
            Cmd::Wait(e) => {
                let Some(Some((_, ev))) = self.events.get(e) else {
                    return Err(format!("event {e} waited before any record: the enqueue order is wrong"));
                };
                // SAFETY: a live event and stream; waits across GPUs are allowed.
                unsafe { cu::stream::wait_event(s, *ev, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
                    .map_err(|e| err(drv("cuStreamWaitEvent")(e)))
            }
        }
    }

    fn synchronize(&mut self) -> Result<(), String> {
        for &(g, s) in &self.streams {
            super::set_current(&self.gpus, g).map_err(err)?;
            // SAFETY: a live stream.
            unsafe { cu::stream::synchronize(s) }.map_err(|e| err(drv("cuStreamSynchronize")(e)))?;
        }
        Ok(())
    }
}
