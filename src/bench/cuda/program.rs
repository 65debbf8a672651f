//! `topo bench <collective> --algo PROGRAM.xml --backend cuda`: the program interpreter
//! kernel (`kernels/msccl.cu`) with one GPU per rank, as the ring backend sets them up
//! (the same probing, modules and kernel cache).
//!
//! Memory, per rank: its physical input, output, scratch and staging buffers, its
//! blocks' [`MsBlock`]s and flags, the flattened operations of each mode. Per
//! connection, as the ring's P2P edges: the FIFO data and the control block of `tail`
//! in the receiver's memory, the block of `head` in the sender's. A connection between
//! GPUs without peer access both ways is host-staged, as the ring backend's edges: the
//! sender fills a staging FIFO in pinned, mapped host memory with one counter block
//! there, and the proxy thread copies each filled entry into the receiver's FIFO data
//! (the ring backend's [`HtoD`] mover) and publishes it in the receiver's one counter
//! block, also in pinned host memory. The kernel's protocol is the same either way.

use std::ffi::c_void;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cudarc::driver::{result as cu, sys};

use super::{Alloc, Device, HtoD, device_count, drv, no_nvrtc, nvrtc_present, open_device, release};
use crate::algo::program::Mode;
use crate::bench::dtype::{DataType, RedOp};
use crate::bench::kernel_abi::ConnArgs;
use crate::bench::program::image::{self, Image, MS_ERR_SLICE, MsArgs, MsBlock};
use crate::bench::program::{Loaded, ProgramBackend, avg_places};
use crate::bench::proxy::{CtrlPtr, FIFO_CTRL_BYTES, FifoCtrl, ProxyConn, ProxyThread, STALL_LIMIT, StagedCopy};
use crate::error::Error;

/// Threads per CUDA block.
const NTHREADS: u32 = super::NTHREADS;

struct RankDev {
    device: usize,
    stream: sys::CUstream,
    /// Physical input, output, scratch, staging, and their bytes.
    bufs: [sys::CUdeviceptr; 4],
    bytes: [usize; 4],
    blocks: sys::CUdeviceptr,
    flags: sys::CUdeviceptr,
    /// Operations and extras of each mode (out of place, in place), once uploaded.
    ops: [Option<(sys::CUdeviceptr, sys::CUdeviceptr)>; 2],
}

struct Staging {
    data: *mut u8,
    ctrl: *mut c_void,
    ctx: sys::CUcontext,
    stream: sys::CUstream,
}

pub struct ProgramCuda {
    loaded: Loaded,
    devices: Vec<Device>,
    ranks: Vec<RankDev>,
    allocs: Vec<Alloc>,
    images: [Option<Image>; 2],
    /// Per connection: FIFO data (in the receiver's memory) and its bytes.
    fifos: Vec<(sys::CUdeviceptr, usize)>,
    ctrls: Vec<(sys::CUdeviceptr, sys::CUdeviceptr)>,
    /// Per connection, when host-staged: the staging FIFO and its counter block (pinned
    /// host memory), and the stream of the proxy's copies into the receiver.
    staging: Vec<Option<Staging>>,
    /// Per (sender, receiver) GPU: no peer access both ways, so host-staged.
    staged: Vec<Vec<bool>>,
    proxy: Option<ProxyThread>,
    /// The entry size the proxy moves, 0 when it must be rebuilt.
    proxy_entry: usize,
    abort: Arc<AtomicBool>,
    /// Pinned host words: the abort flag and the first error.
    abort_flag: *mut u32,
    error: *mut u32,
    epoch: u64,
    broken: bool,
}

impl ProgramCuda {
    /// Set up every rank of the program on its own local GPU (rank r on GPU r).
    pub fn new(loaded: Loaded, kernel_cache: Option<&Path>, warnings: &mut Vec<String>) -> Result<ProgramCuda, Error> {
        let ngpu = device_count()?;
        if !nvrtc_present() {
            return Err(no_nvrtc());
        }
        let n = loaded.nranks();
        if n > ngpu {
            return Err(Error::Usage(format!(
                "{}: a program for {n} ranks on {ngpu} GPU(s): the CUDA backend runs one rank per GPU; use --backend host",
                loaded.file
            )));
        }
        let mut b = ProgramCuda {
            loaded,
            devices: Vec::new(),
            ranks: Vec::new(),
            allocs: Vec::new(),
            images: [None, None],
            fifos: Vec::new(),
            ctrls: Vec::new(),
            staging: Vec::new(),
            staged: vec![vec![false; n]; n],
            proxy: None,
            proxy_entry: 0,
            abort: Arc::new(AtomicBool::new(false)),
            abort_flag: std::ptr::null_mut(),
            error: std::ptr::null_mut(),
            epoch: 1,
            broken: false,
        };
        for ordinal in 0..n {
            b.devices.push(open_device(ordinal as i32, kernel_cache, warnings)?);
        }
        let mut blocked = Vec::new();
        for from in 0..n {
            for to in from + 1..n {
                if !(b.peer_access(from, to)? && b.peer_access(to, from)?) {
                    (b.staged[from][to], b.staged[to][from]) = (true, true);
                    blocked.push((from, to));
                }
            }
        }
        if !blocked.is_empty() {
            // Only the pairs the program connects, as the ring backend names its edges.
            let first = b.loaded.program.header.modes().first().copied().unwrap_or(Mode::OutOfPlace);
            let im = image::build(&b.loaded, first)?;
            let used = |&(x, y): &(usize, usize)| {
                im.conns.iter().any(|c| (c.from, c.to) == (x, y) || (c.from, c.to) == (y, x))
            };
            let pairs: Vec<String> = blocked
                .iter()
                .filter(|p| used(p))
                .map(|&(x, y)| format!("{}-{}", b.devices[x].ordinal, b.devices[y].ordinal))
                .collect();
            if !pairs.is_empty() {
                warnings.push(format!(
                    "GPU pairs without peer access: {}: their connections are host-staged (pinned host memory and \
                     the proxy thread)",
                    pairs.join(", ")
                ));
            }
        }
        let words = super::host_alloc(&mut b.allocs, 64)? as *mut u32;
        (b.abort_flag, b.error) = (words, words.wrapping_add(1));
        for r in 0..n {
            b.set_current(r)?;
            let stream = cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(drv("cuStreamCreate"))?;
            let nblocks = b.loaded.program.gpus[r].tbs.len();
            let blocks = b.dev_alloc(r, nblocks * std::mem::size_of::<MsBlock>())?;
            let flags = b.dev_alloc(r, nblocks * 8)?;
            b.ranks.push(RankDev { device: r, stream, bufs: [0; 4], bytes: [0; 4], blocks, flags, ops: [None, None] });
        }
        Ok(b)
    }

    fn set_current(&self, d: usize) -> Result<(), Error> {
        super::set_current(&self.devices, d)
    }

    fn dev_alloc(&mut self, d: usize, bytes: usize) -> Result<sys::CUdeviceptr, Error> {
        super::dev_alloc(&self.devices, &mut self.allocs, d, bytes)
    }

    /// Enable access from GPU `from` to GPU `to`; false without peer access.
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
        match unsafe { sys::cuCtxEnablePeerAccess(self.devices[to].ctx, 0) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(true),
            e => Err(drv("cuCtxEnablePeerAccess")(cu::DriverError(e))),
        }
    }

    /// Pinned host memory mapped at the same address on every GPU, which a staged
    /// connection needs (both GPUs and the proxy use one pointer); without it, staging
    /// cannot work and the connection is refused, saying why.
    fn staging_alloc(&mut self, from: usize, to: usize, bytes: usize) -> Result<*mut c_void, Error> {
        super::host_alloc(&mut self.allocs, bytes).map_err(|e| {
            Error::Unavailable(format!(
                "GPU {} cannot access GPU {} (no peer access) and their connection cannot be host-staged: {e}; \
                 use --backend host",
                self.devices[from].ordinal, self.devices[to].ordinal
            ))
        })
    }

    /// (Re)start the proxy over the staged connections' current FIFOs and entry size.
    fn start_proxy(&mut self, entries: usize, entry: usize) -> Result<(), Error> {
        if let Some(mut p) = self.proxy.take() {
            p.shutdown();
        }
        let mut work: Vec<Box<dyn ProxyConn>> = Vec::new();
        for (i, st) in self.staging.iter().enumerate() {
            let Some(st) = st else { continue };
            let mover = HtoD::new(st.ctx, st.stream, st.data, self.fifos[i].0, entry)?;
            // SAFETY: both counter blocks are pinned allocations of this backend, freed
            // only after the proxy is joined (Drop); every entry filled so far has
            // been moved and consumed (no kernel runs).
            work.push(Box::new(unsafe {
                StagedCopy::resume(
                    CtrlPtr(st.ctrl as *const FifoCtrl),
                    CtrlPtr(self.ctrls[i].0 as *const FifoCtrl),
                    entries,
                    mover,
                )
            }));
        }
        if !work.is_empty() {
            self.proxy = Some(ProxyThread::spawn(work, self.abort.clone(), None)?);
        }
        self.proxy_entry = entry;
        Ok(())
    }

    fn check(&self) -> Result<(), Error> {
        if self.broken {
            return Err(Error::Unavailable(
                "CUDA backend: an earlier run failed; the program is no longer usable".into(),
            ));
        }
        Ok(())
    }

    /// Buffers for a message of `count` elements of `dtype` in `mode`, and the
    /// flattened program of `mode` on every GPU.
    fn ensure(&mut self, dtype: DataType, count: usize, mode: Mode) -> Result<image::MsArgs, Error> {
        self.check()?;
        let g = self.loaded.geometry(dtype, count)?;
        for r in 0..self.ranks.len() {
            let l = self.loaded.layout(r, mode, &g, dtype.size());
            for i in 0..4 {
                if self.ranks[r].bytes[i] < l.bytes[i] {
                    let bytes = l.bytes[i].next_power_of_two();
                    let p = self.dev_alloc(r, bytes)?;
                    (self.ranks[r].bufs[i], self.ranks[r].bytes[i]) = (p, bytes);
                }
            }
        }
        let m = usize::from(mode == Mode::InPlace);
        if self.images[m].is_none() {
            let im = image::build(&self.loaded, mode)?;
            if self.ctrls.is_empty() {
                for c in &im.conns {
                    if self.staged[c.from][c.to] {
                        // The proxy writes the receiver's counters: one pinned host
                        // block for both; the sender's block goes with its staging FIFO.
                        let ctrl = self.staging_alloc(c.from, c.to, FIFO_CTRL_BYTES)? as u64;
                        let st_ctrl = self.staging_alloc(c.from, c.to, FIFO_CTRL_BYTES)?;
                        self.set_current(c.to)?;
                        let stream =
                            cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(drv("cuStreamCreate"))?;
                        let ctx = self.devices[c.to].ctx;
                        self.ctrls.push((ctrl, ctrl));
                        self.staging.push(Some(Staging { data: std::ptr::null_mut(), ctrl: st_ctrl, ctx, stream }));
                    } else {
                        let tail = self.dev_alloc(c.to, FIFO_CTRL_BYTES)?;
                        let head = self.dev_alloc(c.from, FIFO_CTRL_BYTES)?;
                        self.ctrls.push((tail, head));
                        self.staging.push(None);
                    }
                    self.fifos.push((0, 0));
                }
            }
            for (r, ri) in im.ranks.iter().enumerate() {
                let ops = self.upload(r, &ri.ops)?;
                let extra = self.upload(r, &ri.extra)?;
                self.ranks[r].ops[m] = Some((ops, extra));
            }
            self.images[m] = Some(im);
        }
        let bytes = image::fifo_bytes(&g, dtype);
        let im = self.images[m].clone().unwrap_or_default();
        let entry = g.slice_elems * dtype.size();
        let mut moved = self.proxy_entry != entry;
        for (i, c) in im.conns.iter().enumerate() {
            if self.fifos[i].1 < bytes {
                // Every entry is consumed between runs: new data memory keeps the counters.
                let p = self.dev_alloc(c.to, bytes.next_power_of_two())?;
                self.fifos[i] = (p, bytes.next_power_of_two());
                if self.staging[i].is_some() {
                    let d = self.staging_alloc(c.from, c.to, bytes.next_power_of_two())? as *mut u8;
                    if let Some(st) = self.staging[i].as_mut() {
                        st.data = d;
                    }
                    moved = true;
                }
            }
        }
        if moved && self.staging.iter().any(Option::is_some) {
            self.start_proxy(g.entries, entry)?;
        }
        // The blocks' connections and operations; their step counters stay on the GPU.
        for (r, ri) in im.ranks.iter().enumerate() {
            self.set_current(r)?;
            let mut blocks = vec![MsBlock::default(); ri.blocks.len()];
            // SAFETY: the device array holds one MsBlock per block; nothing runs.
            unsafe { cu::memcpy_dtoh_sync(&mut blocks, self.ranks[r].blocks) }.map_err(drv("cuMemcpyDtoH"))?;
            // A staged connection's sender fills the staging FIFO.
            let conn = |i: usize, sending: bool| match &self.staging[i] {
                Some(st) if sending => ConnArgs { data: st.data as u64, tail: st.ctrl as u64, head: st.ctrl as u64 },
                _ => ConnArgs { data: self.fifos[i].0, tail: self.ctrls[i].0, head: self.ctrls[i].1 },
            };
            for (k, (b, &(s, v))) in blocks.iter_mut().zip(ri.blocks.iter().zip(&ri.ends)) {
                (k.first_op, k.nops) = (b.first_op, b.nops);
                k.send = s.map(|i| conn(i, true)).unwrap_or_default();
                k.recv = v.map(|i| conn(i, false)).unwrap_or_default();
            }
            // SAFETY: as above.
            unsafe { cu::memcpy_htod_sync(self.ranks[r].blocks, &blocks) }.map_err(drv("cuMemcpyHtoD"))?;
        }
        Ok(MsArgs::new(&g, dtype, self.ranks.len(), 0, self.epoch))
    }

    fn upload<T: Copy>(&mut self, r: usize, v: &[T]) -> Result<sys::CUdeviceptr, Error> {
        let p = self.dev_alloc(r, std::mem::size_of_val(v))?;
        // SAFETY: the allocation holds the whole slice.
        unsafe { cu::memcpy_htod_sync(p, v) }.map_err(drv("cuMemcpyHtoD"))?;
        Ok(p)
    }

    /// A user region of a rank: device pointer and bytes.
    fn region(
        &mut self,
        rank: usize,
        mode: Mode,
        dtype: DataType,
        count: usize,
        recv: bool,
    ) -> Result<(u64, usize), Error> {
        self.ensure(dtype, count, mode)?;
        let g = self.loaded.geometry(dtype, count)?;
        let l = self.loaded.layout(rank, mode, &g, dtype.size());
        let ((p, off), len) = if recv { (l.recv, l.recv_bytes) } else { (l.send, l.send_bytes) };
        self.set_current(self.ranks[rank].device)?;
        Ok((self.ranks[rank].bufs[p] + off as u64, len))
    }

    fn wait_all(&mut self) -> Result<(), Error> {
        let t0 = Instant::now();
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
                // SAFETY: pinned host memory read by the kernels.
                unsafe { std::ptr::write_volatile(self.abort_flag, 1) };
                self.broken = true;
                return Err(e);
            }
            if t0.elapsed() > STALL_LIMIT {
                // SAFETY: pinned host memory read by the kernels.
                unsafe { std::ptr::write_volatile(self.abort_flag, 1) };
            }
            if t0.elapsed() > STALL_LIMIT * 2 {
                // Kernels that ignore the flag: nothing of theirs is freed (Drop).
                self.broken = true;
                return Err(Error::Unavailable("CUDA backend: the program's kernels did not stop".into()));
            }
            std::thread::yield_now();
        }
        // SAFETY: pinned host memory written by the kernels, which have all returned.
        let (abort, error) = unsafe { (std::ptr::read_volatile(self.abort_flag), std::ptr::read_volatile(self.error)) };
        if error == MS_ERR_SLICE {
            self.broken = true;
            return Err(Error::Unavailable(
                "CUDA backend: a block received a slice of another size than its step expects".into(),
            ));
        }
        if abort != 0 {
            self.broken = true;
            return Err(Error::Unavailable(format!(
                "CUDA backend: the program made no progress for {STALL_LIMIT:?}; aborted"
            )));
        }
        Ok(())
    }
}

impl Drop for ProgramCuda {
    fn drop(&mut self) {
        if self.broken {
            // Kernels may still run: leave their memory to the process's end.
            return;
        }
        let _ = self.wait_all();
        if let Some(mut p) = self.proxy.take() {
            p.shutdown();
        }
        // SAFETY: every handle below was created by this backend and is released once;
        // the proxy's copies wait for nothing and are let finish first.
        unsafe {
            for r in &self.ranks {
                let _ = cu::ctx::set_current(self.devices[r.device].ctx);
                let _ = cu::stream::destroy(r.stream);
            }
            for st in self.staging.iter().flatten() {
                let _ = cu::ctx::set_current(st.ctx);
                let _ = cu::stream::synchronize(st.stream);
                let _ = cu::stream::destroy(st.stream);
            }
            release(&mut self.allocs, &self.devices);
        }
    }
}

impl ProgramBackend for ProgramCuda {
    fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    fn name(&self) -> &'static str {
        "cuda"
    }

    fn set_input(&mut self, rank: usize, mode: Mode, dtype: DataType, count: usize, data: &[u8]) -> Result<(), Error> {
        let (p, len) = self.region(rank, mode, dtype, count, false)?;
        let n = data.len().min(len);
        // SAFETY: the region holds `len` bytes; nothing runs.
        unsafe { cu::memcpy_htod_sync(p, &data[..n]) }.map_err(drv("cuMemcpyHtoD"))
    }

    fn fill_output(&mut self, rank: usize, mode: Mode, dtype: DataType, count: usize, value: u8) -> Result<(), Error> {
        let (p, len) = self.region(rank, mode, dtype, count, true)?;
        // SAFETY: as above.
        unsafe { cu::memset_d8_sync(p, value, len) }.map_err(drv("cuMemsetD8"))
    }

    fn get_output(
        &mut self,
        rank: usize,
        mode: Mode,
        dtype: DataType,
        count: usize,
        out: &mut [u8],
    ) -> Result<(), Error> {
        let (p, len) = self.region(rank, mode, dtype, count, true)?;
        let n = out.len().min(len);
        // SAFETY: as above.
        unsafe { cu::memcpy_dtoh_sync(&mut out[..n], p) }.map_err(drv("cuMemcpyDtoH"))
    }

    fn run(&mut self, dtype: DataType, op: RedOp, count: usize, mode: Mode, iters: usize) -> Result<Duration, Error> {
        let base = self.ensure(dtype, count, mode)?;
        if count == 0 || iters == 0 {
            return Ok(Duration::ZERO);
        }
        let g = self.loaded.geometry(dtype, count)?;
        let m = usize::from(mode == Mode::InPlace);
        let name = image::kernel_name(op, dtype);
        let mut launches = Vec::with_capacity(self.ranks.len());
        for (r, rk) in self.ranks.iter().enumerate() {
            let l = self.loaded.layout(r, mode, &g, dtype.size());
            let (pre, input, post) = avg_places(self.loaded.coll(), dtype, op, mode, rk.bufs, &l);
            let (ops, extra) = rk.ops[m].ok_or_else(|| Error::Unavailable("program not uploaded".into()))?;
            let mut a = base;
            a.nblocks = self.loaded.program.gpus[r].tbs.len() as u32;
            a.bufs = [input, rk.bufs[1], rk.bufs[2]];
            (a.blocks, a.ops, a.extra, a.flags) = (rk.blocks, ops, extra, rk.flags);
            (a.abort_flag, a.error) = (self.abort_flag as u64, self.error as u64);
            if let Some((d, s)) = pre {
                (a.pre_dst, a.pre_src, a.pre_count) = (d, s, g.send as u64);
            }
            if let Some(p) = post {
                (a.post, a.post_count) = (p, g.recv as u64);
            }
            let dev = &self.devices[rk.device];
            let f = *dev.funcs.get(&name).ok_or_else(|| Error::Unavailable(format!("kernel {name} not loaded")))?;
            launches.push((dev.ctx, f, rk.stream, a));
        }
        let t0 = Instant::now();
        for i in 0..iters {
            for (ctx, f, stream, a) in launches.iter_mut() {
                a.epoch = self.epoch + i as u64;
                let mut params = [a as *mut MsArgs as *mut c_void];
                // SAFETY: the kernel takes one MsArgs by value; every pointer in it is a
                // live allocation of this backend.
                unsafe {
                    cu::ctx::set_current(*ctx).map_err(drv("cuCtxSetCurrent"))?;
                    cu::launch_kernel(*f, (a.nblocks, 1, 1), (NTHREADS, 1, 1), 0, *stream, &mut params)
                        .map_err(drv("cuLaunchKernel"))?;
                }
            }
        }
        self.epoch += iters as u64;
        self.wait_all()?;
        Ok(t0.elapsed())
    }
}
