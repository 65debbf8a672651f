//! The CUDA backend: one process drives every local GPU (or several ranks per GPU, as
//! streams), with the ring kernels of `kernels/allreduce.cu` compiled at run time by
//! NVRTC for each device's architecture and cached per architecture.
//!
//! Memory, per ring edge and channel (see [`super::proxy`] for the protocol):
//! * P2P edge: the receiver's FIFO data and the block of `tail` and slot sizes are in
//!   the receiver's device memory, the block of `head` in the sender's; each side spins
//!   on its own memory and writes the other's through peer access.
//! * host-staged edge: the sender writes into a staging FIFO in pinned, mapped host
//!   memory; the proxy thread copies each filled slot into the receiver's FIFO data (in
//!   device memory, asynchronously, several slots in flight) and publishes it in the
//!   receiver's control block, which is in pinned host memory so that the proxy can
//!   write it.
//!
//! cudarc panics when a CUDA library is missing, so every entry point first probes
//! the library ([`driver_present`], [`nvrtc_present`]) and returns
//! [`Error::Unavailable`] instead.

mod nvrtc;
pub mod program;
pub mod streams;

use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cudarc::driver::{result as cu, sys};
use cudarc::nvrtc::sys as nvrtc_sys;

use super::dtype::{DataType, RedOp};
use super::kernel_abi::{ChannelArgs, ConnArgs, KernelArgs};
pub use super::kernel_abi::{KERNEL_SOURCE, kernel_name, kernel_names};

/// Every kernel of [`KERNEL_SOURCE`]: the ring kernels, the program interpreter's, and
/// the streams' reduces.
pub fn all_kernel_names() -> Vec<String> {
    let mut v = kernel_names();
    v.extend(super::program::image::kernel_names());
    v.extend(super::streams::kernel::kernel_names());
    v
}
use super::plan::{Plan, Transport};
use super::proxy::{
    CtrlPtr, FIFO_CTRL_BYTES, FIFO_SLOTS, FifoCtrl, ProxyConn, ProxyThread, STALL_LIMIT, SlotMover, StagedCopy,
};
pub use super::report::{CompileReport, KernelStats};
use super::schedule::RingSchedule;
use super::{Backend, DeviceInfo};
use crate::error::Error;
pub use nvrtc::{Compiled, compile, compile_only, load_or_compile, normalize_arch, parse_ptxas_log};
pub use program::ProgramCuda;
pub use streams::StreamsCuda;

/// Threads per CTA (one CTA per channel).
pub const NTHREADS: u32 = 512;
/// Channels when there is no search result.
pub const DEFAULT_CHANNELS: usize = 8;
/// Default FIFO slot size on the GPU.
pub const DEFAULT_SLOT_BYTES: usize = 128 * 1024;

/// Whether the CUDA driver library can be loaded.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { sys::is_culib_present() }
}

/// Whether the NVRTC library can be loaded.
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { nvrtc_sys::is_culib_present() }
}

/// What to do on a machine where the CUDA backend cannot run.
const NO_GPU_HINT: &str = "use --backend host to measure the host ring, or --compile-only to check the kernels";

fn no_driver() -> Error {
    Error::Unavailable(format!("no CUDA driver/GPU here (libcuda.so cannot be loaded): {NO_GPU_HINT}"))
}

fn no_nvrtc() -> Error {
    Error::Unavailable(
        "NVRTC not found: libnvrtc.so cannot be loaded. Install it (e.g. `pip install nvidia-cuda-nvrtc-cu12`) \
         and put its lib directory on LD_LIBRARY_PATH (see ci/compile-kernels.sh)."
            .into(),
    )
}

fn drv(what: &'static str) -> impl Fn(cu::DriverError) -> Error {
    move |e| {
        let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
        Error::Unavailable(format!("CUDA {what} failed: {name}"))
    }
}

fn init_driver() -> Result<(), Error> {
    if !driver_present() {
        return Err(no_driver());
    }
    cu::init().map_err(|e| {
        let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
        Error::Unavailable(format!("no CUDA driver/GPU here (cuInit failed: {name}): {NO_GPU_HINT}"))
    })
}

/// Number of CUDA devices (probing the driver first).
pub fn device_count() -> Result<usize, Error> {
    init_driver()?;
    let n = cu::device::get_count().map_err(drv("cuDeviceGetCount"))?;
    if n <= 0 {
        return Err(Error::Unavailable(format!(
            "no CUDA driver/GPU here (the CUDA driver sees no GPU): {NO_GPU_HINT}"
        )));
    }
    Ok(n as usize)
}

fn local_archs() -> Result<Vec<String>, Error> {
    if !driver_present() {
        return Ok(Vec::new());
    }
    init_driver()?;
    let n = cu::device::get_count().map_err(drv("cuDeviceGetCount"))?;
    let mut v = Vec::new();
    for i in 0..n {
        let d = cu::device::get(i).map_err(drv("cuDeviceGet"))?;
        let a = device_arch(d)?;
        if !v.contains(&a) {
            v.push(a);
        }
    }
    Ok(v)
}

fn device_arch(d: sys::CUdevice) -> Result<String, Error> {
    use sys::CUdevice_attribute as A;
    // SAFETY: `d` comes from cuDeviceGet.
    let (maj, min) = unsafe {
        (
            cu::device::get_attribute(d, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
                .map_err(drv("cuDeviceGetAttribute"))?,
            cu::device::get_attribute(d, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
                .map_err(drv("cuDeviceGetAttribute"))?,
        )
    };
    Ok(format!("sm_{maj}{min}"))
}

// ---------------------------------------------------------------------------------
// The backend

struct Device {
    ordinal: i32,
    dev: sys::CUdevice,
    ctx: sys::CUcontext,
    module: sys::CUmodule,
    funcs: HashMap<String, sys::CUfunction>,
    name: String,
    bus: String,
}

struct Rank {
    device: usize,
    stream: sys::CUstream,
    send: sys::CUdeviceptr,
    recv: sys::CUdeviceptr,
    bytes: usize,
    /// Device array of `ChannelArgs`, one per channel.
    channels: sys::CUdeviceptr,
}

enum Alloc {
    Device { ctx: sys::CUcontext, ptr: sys::CUdeviceptr },
    Host { ptr: *mut c_void },
}

/// Proxy mover for the CUDA backend: host staging slot -> device FIFO slot, as an
/// asynchronous copy on the proxy's own stream with one event per slot, so that up to
/// [`FIFO_SLOTS`] copies are in flight while the proxy serves its other edges.
struct HtoD {
    ctx: sys::CUcontext,
    stream: sys::CUstream,
    events: [sys::CUevent; FIFO_SLOTS],
    src: *const u8,
    dst: sys::CUdeviceptr,
    slot_bytes: usize,
}

// SAFETY: the context, stream and memory outlive the proxy thread (joined in Drop
// before anything is freed); CUDA handles may be used from any thread.
unsafe impl Send for HtoD {}

impl HtoD {
    /// Create the per-slot events in `ctx`.
    fn new(
        ctx: sys::CUcontext,
        stream: sys::CUstream,
        src: *const u8,
        dst: sys::CUdeviceptr,
        slot_bytes: usize,
    ) -> Result<HtoD, Error> {
        let mut m = HtoD { ctx, stream, events: [std::ptr::null_mut(); FIFO_SLOTS], src, dst, slot_bytes };
        // SAFETY: a retained context; each event is created once and destroyed in Drop.
        unsafe {
            cu::ctx::set_current(ctx).map_err(drv("cuCtxSetCurrent"))?;
            for e in m.events.iter_mut() {
                *e = cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(drv("cuEventCreate"))?;
            }
        }
        Ok(m)
    }
}

impl Drop for HtoD {
    fn drop(&mut self) {
        // SAFETY: events of this mover; destroying one whose copy is pending is allowed
        // (its resources go when the copy completes).
        unsafe {
            let _ = cu::ctx::set_current(self.ctx);
            for e in self.events {
                if !e.is_null() {
                    let _ = cu::event::destroy(e);
                }
            }
        }
    }
}

impl SlotMover for HtoD {
    fn start(&mut self, slot: usize, bytes: usize) -> Result<(), Error> {
        if bytes > self.slot_bytes {
            return Err(Error::Unavailable(format!("proxy: slot of {bytes} bytes in a {}-byte FIFO", self.slot_bytes)));
        }
        let off = slot * self.slot_bytes;
        // SAFETY: both slots are inside their FIFOs; the counters give the proxy the
        // slots until it publishes them, which it does only after the event passed.
        unsafe {
            cu::ctx::set_current(self.ctx).map_err(drv("cuCtxSetCurrent"))?;
            if bytes > 0 {
                sys::cuMemcpyHtoDAsync_v2(
                    self.dst + off as u64,
                    self.src.add(off) as *const c_void,
                    bytes,
                    self.stream,
                )
                .result()
                .map_err(drv("cuMemcpyHtoDAsync"))?;
            }
            cu::event::record(self.events[slot], self.stream).map_err(drv("cuEventRecord"))?;
        }
        Ok(())
    }

    fn finished(&mut self, slot: usize) -> Result<bool, Error> {
        // SAFETY: an event of this mover, recorded by `start`.
        match unsafe { sys::cuEventQuery(self.events[slot]) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(drv("cuEventQuery")(cu::DriverError(e))),
        }
    }
}

/// The CUDA backend.
pub struct CudaBackend {
    nranks: usize,
    nchannels: usize,
    slot_bytes: usize,
    devices: Vec<Device>,
    ranks: Vec<Rank>,
    allocs: Vec<Alloc>,
    proxy: Option<ProxyThread>,
    proxy_streams: Vec<(sys::CUcontext, sys::CUstream)>,
    /// Pinned host flag the kernels poll; raised to stop them after a stall.
    abort_flag: *mut u32,
    abort: Arc<AtomicBool>,
    broken: bool,
    /// Kernels may still run (the wait gave up after an abort): nothing they can
    /// touch is freed, ever.
    may_run: bool,
    notes: Vec<String>,
    warnings: Vec<String>,
}

impl CudaBackend {
    /// Set up every rank of `plan` on its own local GPU (rank r on GPU r; more ranks than
    /// GPUs are refused), with the compiled kernels cached in `kernel_cache` when given.
    pub fn new(plan: &Plan, slot_bytes: usize, kernel_cache: Option<&Path>) -> Result<CudaBackend, Error> {
        plan.validate()?;
        let ngpu = device_count()?;
        if !nvrtc_present() {
            return Err(no_nvrtc());
        }
        let n = plan.nranks;
        let nch = plan.channels.len();
        let slot_bytes = slot_bytes.max(64) / 16 * 16;
        let mut b = CudaBackend {
            nranks: n,
            nchannels: nch,
            slot_bytes,
            devices: Vec::new(),
            ranks: Vec::new(),
            allocs: Vec::new(),
            proxy: None,
            proxy_streams: Vec::new(),
            abort_flag: std::ptr::null_mut(),
            abort: Arc::new(AtomicBool::new(false)),
            broken: false,
            may_run: false,
            notes: Vec::new(),
            warnings: Vec::new(),
        };
        // Two ranks on one GPU would spin on each other from separate streams, which
        // CUDA does not promise to run at the same time: NCCL refuses this too
        // ("Duplicate GPU detected").
        if n > ngpu {
            return Err(Error::Usage(format!(
                "{n} ranks on {ngpu} GPU(s): ranks would share a GPU, whose kernels CUDA does not promise to run \
                 at the same time (NCCL refuses this too); use -g {ngpu} or fewer, or --backend host"
            )));
        }
        // Devices used, each with its context and module.
        for ordinal in 0..ngpu.min(n) {
            b.devices.push(open_device(ordinal as i32, kernel_cache, &mut b.warnings)?);
        }
        b.set_current(0)?;
        b.abort_flag = b.host_alloc(64)? as *mut u32;

        // Per rank: stream and channel argument array.
        for r in 0..n {
            let d = r % b.devices.len();
            b.set_current(d)?;
            let stream = cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(drv("cuStreamCreate"))?;
            let channels = b.dev_alloc(d, nch * std::mem::size_of::<ChannelArgs>())?;
            b.ranks.push(Rank { device: d, stream, send: 0, recv: 0, bytes: 0, channels });
        }

        // FIFOs: for each channel and rank, the FIFO it receives on.
        let mut chan_args = vec![vec![ChannelArgs::default(); nch]; n];
        let mut conns: Vec<Box<dyn ProxyConn>> = Vec::new();
        let fifo_bytes = FIFO_SLOTS * slot_bytes;
        for (c, ch) in plan.channels.iter().enumerate() {
            for (p, &r) in ch.order.iter().enumerate() {
                let prev = ch.order[(p + n - 1) % n];
                let (dr, dp) = (b.ranks[r].device, b.ranks[prev].device);
                chan_args[r][c].ring_pos = p as i32;
                let mut t = if n > 1 { plan.transport(prev, r) } else { Transport::P2p };
                // A P2P edge needs access both ways: the sender writes the receiver's
                // FIFO and tail, the receiver writes the sender's head.
                if t == Transport::P2p && dr != dp {
                    let blocked = if !b.peer_access(dp, dr)? {
                        Some((dp, dr))
                    } else if !b.peer_access(dr, dp)? {
                        Some((dr, dp))
                    } else {
                        None
                    };
                    if let Some((from, to)) = blocked {
                        b.notes.push(format!(
                            "channel {c}: GPU {} cannot access GPU {} (no peer access): edge {prev}->{r} is host-staged",
                            b.devices[from].ordinal, b.devices[to].ordinal
                        ));
                        t = Transport::HostStaged;
                    }
                }
                let data = b.dev_alloc(dr, fifo_bytes)?;
                match t {
                    Transport::P2p => {
                        // Each side spins on its own memory: tail with the receiver,
                        // head with the sender.
                        let tail = b.dev_alloc(dr, FIFO_CTRL_BYTES)?;
                        let head = b.dev_alloc(dp, FIFO_CTRL_BYTES)?;
                        chan_args[r][c].recv = ConnArgs { data, tail, head };
                        chan_args[prev][c].send = ConnArgs { data, tail, head };
                    }
                    Transport::HostStaged => {
                        // The proxy reads and writes both counters of both FIFOs: one
                        // pinned host block each.
                        let ctrl = b.host_alloc(FIFO_CTRL_BYTES)? as u64;
                        let st_data = b.host_alloc(fifo_bytes)?;
                        let st_ctrl = b.host_alloc(FIFO_CTRL_BYTES)? as u64;
                        chan_args[r][c].recv = ConnArgs { data, tail: ctrl, head: ctrl };
                        chan_args[prev][c].send = ConnArgs { data: st_data as u64, tail: st_ctrl, head: st_ctrl };
                        b.set_current(dr)?;
                        let stream =
                            cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(drv("cuStreamCreate"))?;
                        b.proxy_streams.push((b.devices[dr].ctx, stream));
                        let mover = HtoD::new(b.devices[dr].ctx, stream, st_data as *const u8, data, slot_bytes)?;
                        // SAFETY: the control blocks are pinned allocations freed only
                        // after the proxy thread is joined (Drop).
                        conns.push(Box::new(unsafe {
                            StagedCopy::new(
                                CtrlPtr(st_ctrl as *const FifoCtrl),
                                CtrlPtr(ctrl as *const FifoCtrl),
                                mover,
                            )
                        }));
                    }
                }
            }
        }
        for (rank, args) in b.ranks.iter().zip(&chan_args) {
            b.set_current(rank.device)?;
            // SAFETY: the device array holds `nch` ChannelArgs.
            unsafe { cu::memcpy_htod_sync(rank.channels, args) }.map_err(drv("cuMemcpyHtoD"))?;
        }
        if !conns.is_empty() {
            b.proxy = Some(ProxyThread::spawn(conns, b.abort.clone(), None)?);
        }
        Ok(b)
    }

    fn set_current(&self, d: usize) -> Result<(), Error> {
        set_current(&self.devices, d)
    }

    fn dev_alloc(&mut self, d: usize, bytes: usize) -> Result<sys::CUdeviceptr, Error> {
        dev_alloc(&self.devices, &mut self.allocs, d, bytes)
    }

    fn host_alloc(&mut self, bytes: usize) -> Result<*mut c_void, Error> {
        host_alloc(&mut self.allocs, bytes)
    }

    /// Enable access from device `from` to device `to`; false when the driver refuses.
    fn peer_access(&self, from: usize, to: usize) -> Result<bool, Error> {
        let mut can = 0;
        // SAFETY: devices from cuDeviceGet.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, self.devices[from].dev, self.devices[to].dev) }
            .result()
            .map_err(drv("cuDeviceCanAccessPeer"))?;
        if can == 0 {
            return Ok(false);
        }
        self.set_current(from)?;
        // SAFETY: enabling access to a retained context.
        let r = unsafe { sys::cuCtxEnablePeerAccess(self.devices[to].ctx, 0) };
        match r {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(true),
            e => Err(drv("cuCtxEnablePeerAccess")(cu::DriverError(e))),
        }
    }

    /// Wait for every rank's stream, raising the abort flag after a stall.
    fn wait_all(&mut self) -> Result<(), Error> {
        let t0 = Instant::now();
        let mut aborted = false;
        loop {
            let mut busy = false;
            for r in &self.ranks {
                // SAFETY: a live stream.
                match unsafe { sys::cuStreamQuery(r.stream) } {
                    sys::CUresult::CUDA_SUCCESS => {}
                    sys::CUresult::CUDA_ERROR_NOT_READY => busy = true,
                    e => {
                        self.broken = true;
                        return Err(drv("kernel execution")(cu::DriverError(e)));
                    }
                }
            }
            if !busy {
                break;
            }
            if let Some(e) = self.proxy.as_ref().and_then(|p| p.take_error()) {
                self.raise_abort();
                self.broken = true;
                return Err(e);
            }
            if !aborted && t0.elapsed() > STALL_LIMIT {
                self.raise_abort();
                aborted = true;
            }
            if aborted && t0.elapsed() > STALL_LIMIT * 2 {
                // Kernels that ignore the abort flag: their memory stays allocated
                // until the process ends.
                self.may_run = true;
                self.warnings.push(format!(
                    "CUDA backend: kernels still ran {:?} after the abort; their buffers are kept (not freed) \
                     until topo exits",
                    STALL_LIMIT
                ));
                break;
            }
            // Poll like nccl-tests does (query and yield); nap only on long runs.
            if t0.elapsed() < Duration::from_millis(2) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(20));
            }
        }
        if aborted || self.abort.load(Ordering::Relaxed) {
            self.broken = true;
            return Err(Error::Unavailable(format!(
                "CUDA backend: the ring made no progress for {STALL_LIMIT:?}; kernels aborted"
            )));
        }
        Ok(())
    }

    fn raise_abort(&self) {
        self.abort.store(true, Ordering::Relaxed);
        // SAFETY: pinned host memory read by the kernels.
        unsafe { std::ptr::write_volatile(self.abort_flag, 1) };
    }

    fn buffers(&self, rank: usize, in_place: bool) -> (sys::CUdeviceptr, sys::CUdeviceptr) {
        let r = &self.ranks[rank];
        if in_place { (r.recv, r.recv) } else { (r.send, r.recv) }
    }

    fn check_bytes(&self, rank: usize, bytes: usize) -> Result<(), Error> {
        if self.broken {
            return Err(Error::Unavailable("CUDA backend: an earlier run failed; the ring is no longer usable".into()));
        }
        if bytes > self.ranks[rank].bytes {
            return Err(Error::Usage(format!("{bytes} bytes do not fit the {}-byte buffers", self.ranks[rank].bytes)));
        }
        Ok(())
    }
}

fn set_current(devices: &[Device], d: usize) -> Result<(), Error> {
    // SAFETY: a retained primary context.
    unsafe { cu::ctx::set_current(devices[d].ctx) }.map_err(drv("cuCtxSetCurrent"))
}

/// Zeroed device memory on device `d`, recorded in `allocs`.
fn dev_alloc(devices: &[Device], allocs: &mut Vec<Alloc>, d: usize, bytes: usize) -> Result<sys::CUdeviceptr, Error> {
    set_current(devices, d)?;
    // SAFETY: plain allocation in the current context, zeroed before use.
    let ptr = unsafe { cu::malloc_sync(bytes.max(256)) }.map_err(drv("cuMemAlloc"))?;
    allocs.push(Alloc::Device { ctx: devices[d].ctx, ptr });
    unsafe { cu::memset_d8_sync(ptr, 0, bytes.max(256)) }.map_err(drv("cuMemsetD8"))?;
    Ok(ptr)
}

/// Zeroed pinned host memory, mapped into every device (unified addressing: the
/// host pointer is the device pointer), recorded in `allocs`.
fn host_alloc(allocs: &mut Vec<Alloc>, bytes: usize) -> Result<*mut c_void, Error> {
    let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
    // SAFETY: allocation, then zeroing of exactly the allocated bytes.
    let ptr = unsafe { cu::malloc_host(bytes, flags) }.map_err(drv("cuMemHostAlloc"))?;
    allocs.push(Alloc::Host { ptr });
    unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, bytes) };
    let mut dptr: sys::CUdeviceptr = 0;
    // SAFETY: `ptr` was allocated with DEVICEMAP.
    unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dptr, ptr, 0) }
        .result()
        .map_err(drv("cuMemHostGetDevicePointer"))?;
    if dptr != ptr as u64 {
        return Err(Error::Unavailable(
            "mapped host memory has a different device address (no unified addressing)".into(),
        ));
    }
    Ok(ptr)
}

fn open_device(ordinal: i32, cache: Option<&Path>, warnings: &mut Vec<String>) -> Result<Device, Error> {
    use sys::CUdevice_attribute as A;
    let dev = cu::device::get(ordinal).map_err(drv("cuDeviceGet"))?;
    // SAFETY: `dev` comes from cuDeviceGet.
    let ctx = unsafe { cu::primary_ctx::retain(dev) }.map_err(drv("cuDevicePrimaryCtxRetain"))?;
    unsafe { cu::ctx::set_current(ctx) }.map_err(drv("cuCtxSetCurrent"))?;
    let attr = |a| unsafe { cu::device::get_attribute(dev, a) }.map_err(drv("cuDeviceGetAttribute"));
    if attr(A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING)? == 0 {
        return Err(Error::Unavailable(format!(
            "GPU {ordinal} lacks unified addressing, which the CUDA backend needs"
        )));
    }
    let bus = format!(
        "{:04x}:{:02x}:{:02x}",
        attr(A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
        attr(A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
        attr(A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?
    );
    let name = cu::device::get_name(dev).map_err(drv("cuDeviceGetName"))?;
    let arch = device_arch(dev)?;
    let cubin = load_or_compile(&arch, cache, warnings)?;
    // SAFETY: a complete cubin image for this architecture.
    let module = unsafe { cu::module::load_data(cubin.as_ptr() as *const c_void) }.map_err(drv("cuModuleLoadData"))?;
    let mut funcs = HashMap::new();
    for k in all_kernel_names() {
        let cname = CString::new(k.clone()).unwrap_or_default();
        // SAFETY: a loaded module.
        let f = unsafe { cu::module::get_function(module, cname) }.map_err(drv("cuModuleGetFunction"))?;
        funcs.insert(k, f);
    }
    Ok(Device { ordinal, dev, ctx, module, funcs, name, bus })
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        if !self.ranks.is_empty() && !self.broken {
            // Make sure nothing runs before freeing.
            let _ = self.wait_all();
        }
        if let Some(mut p) = self.proxy.take() {
            p.shutdown();
        }
        if self.may_run {
            // Freeing memory, streams or modules under a running kernel is undefined:
            // leave them all to the process's end.
            return;
        }
        // Copies the proxy started finish on their own (they wait for nothing): let
        // them, before their memory goes.
        for (ctx, s) in &self.proxy_streams {
            // SAFETY: live handles of this backend.
            unsafe {
                let _ = cu::ctx::set_current(*ctx);
                let _ = cu::stream::synchronize(*s);
            }
        }
        // SAFETY: every handle below was created by this backend and is released once.
        unsafe {
            for r in &self.ranks {
                let _ = cu::stream::destroy(r.stream);
            }
            for (ctx, s) in &self.proxy_streams {
                let _ = cu::ctx::set_current(*ctx);
                let _ = cu::stream::destroy(*s);
            }
            release(&mut self.allocs, &self.devices);
        }
    }
}

/// Free every allocation, unload every module and release every context.
///
/// # Safety
/// Nothing may still use them: no kernel running, no copy in flight.
unsafe fn release(allocs: &mut Vec<Alloc>, devices: &[Device]) {
    // SAFETY: the caller's contract; each handle is released once (drained).
    unsafe {
        for a in allocs.drain(..) {
            match a {
                Alloc::Device { ctx, ptr } => {
                    let _ = cu::ctx::set_current(ctx);
                    let _ = cu::free_sync(ptr);
                }
                Alloc::Host { ptr } => {
                    let _ = cu::free_host(ptr);
                }
            }
        }
        for d in devices {
            let _ = cu::ctx::set_current(d.ctx);
            let _ = cu::module::unload(d.module);
            let _ = cu::primary_ctx::release(d.dev);
        }
    }
}

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn nranks(&self) -> usize {
        self.nranks
    }

    fn devices(&self) -> Vec<DeviceInfo> {
        self.ranks
            .iter()
            .enumerate()
            .map(|(r, k)| {
                let d = &self.devices[k.device];
                DeviceInfo { rank: r, device: d.ordinal as usize, bus: d.bus.clone(), name: d.name.clone() }
            })
            .collect()
    }

    fn prepare(&mut self, max_bytes: usize) -> Result<(), Error> {
        if self.ranks.first().is_some_and(|r| r.bytes >= max_bytes) {
            return Ok(());
        }
        for r in 0..self.nranks {
            let d = self.ranks[r].device;
            let send = self.dev_alloc(d, max_bytes)?;
            let recv = self.dev_alloc(d, max_bytes)?;
            let rank = &mut self.ranks[r];
            (rank.send, rank.recv, rank.bytes) = (send, recv, max_bytes);
        }
        Ok(())
    }

    fn set_input(&mut self, rank: usize, in_place: bool, data: &[u8]) -> Result<(), Error> {
        self.check_bytes(rank, data.len())?;
        self.set_current(self.ranks[rank].device)?;
        let (inp, _) = self.buffers(rank, in_place);
        // SAFETY: the buffer holds at least `data.len()` bytes; nothing runs.
        unsafe { cu::memcpy_htod_sync(inp, data) }.map_err(drv("cuMemcpyHtoD"))
    }

    fn fill_output(&mut self, rank: usize, bytes: usize, value: u8) -> Result<(), Error> {
        self.check_bytes(rank, bytes)?;
        self.set_current(self.ranks[rank].device)?;
        // SAFETY: as above.
        unsafe { cu::memset_d8_sync(self.ranks[rank].recv, value, bytes) }.map_err(drv("cuMemsetD8"))
    }

    fn get_output(&mut self, rank: usize, out: &mut [u8]) -> Result<(), Error> {
        self.check_bytes(rank, out.len())?;
        self.set_current(self.ranks[rank].device)?;
        // SAFETY: as above.
        unsafe { cu::memcpy_dtoh_sync(out, self.ranks[rank].recv) }.map_err(drv("cuMemcpyDtoH"))
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn run(
        &mut self,
        dtype: DataType,
        op: RedOp,
        count: usize,
        in_place: bool,
        iters: usize,
    ) -> Result<Duration, Error> {
        self.check_bytes(0, count * dtype.size())?;
        let sched = RingSchedule::new(count, dtype.size(), self.nranks, self.nchannels, self.slot_bytes);
        let name = kernel_name(op, dtype);
        let mut launches = Vec::with_capacity(self.nranks);
        for r in 0..self.nranks {
            let (inp, outp) = self.buffers(r, in_place);
            let dev = &self.devices[self.ranks[r].device];
            let f = *dev.funcs.get(&name).ok_or_else(|| Error::Unavailable(format!("kernel {name} not loaded")))?;
            let args = KernelArgs::new(
                inp,
                outp,
                count,
                sched.chunk_elems,
                self.slot_bytes,
                self.ranks[r].channels,
                self.abort_flag as u64,
                self.nranks,
                self.nchannels,
            );
            launches.push((dev.ctx, f, self.ranks[r].stream, args));
        }
        let t0 = Instant::now();
        for _ in 0..iters {
            for (ctx, f, stream, args) in launches.iter_mut() {
                let mut params = [args as *mut KernelArgs as *mut c_void];
                // SAFETY: the kernel takes one KernelArgs by value; every pointer in it
                // is a live allocation of this backend.
                unsafe {
                    cu::ctx::set_current(*ctx).map_err(drv("cuCtxSetCurrent"))?;
                    cu::launch_kernel(*f, (self.nchannels as u32, 1, 1), (NTHREADS, 1, 1), 0, *stream, &mut params)
                        .map_err(drv("cuLaunchKernel"))?;
                }
            }
        }
        self.wait_all()?;
        Ok(t0.elapsed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_driver_the_backend_says_so() {
        if driver_present() {
            crate::test_skip::skip(
                "bench::cuda::tests::without_a_driver_the_backend_says_so",
                "a CUDA driver is present",
            );
            return;
        }
        let e = CudaBackend::new(&Plan::simple_ring(2, 1), DEFAULT_SLOT_BYTES, None).err().unwrap().to_string();
        assert!(e.contains("--backend host"), "{e}");
        assert!(device_count().unwrap_err().to_string().contains("--backend host"));
    }
}
