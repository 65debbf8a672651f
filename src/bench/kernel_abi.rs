//! The interface of the ring kernels (`kernels/allreduce.cu`): their source, their
//! names, and the `#[repr(C)]` mirrors of the argument structs they take. The CUDA
//! backend fills these for the GPU; the CPU execution test (tests/kernel_cpu.rs) fills
//! them for the same source compiled as C++. The kernel checks the sizes with
//! `static_assert`, this module with `const` assertions.

use super::dtype::{DataType, RedOp};
use super::proxy::FIFO_CTRL_BYTES;

/// The kernel source, embedded at build time: the ring kernels, then the program
/// interpreter (`kernels/msccl.cu`, which uses the ring kernels' types and helpers),
/// compiled as one NVRTC program.
pub const KERNEL_SOURCE: &str = concat!(
    include_str!("../../kernels/allreduce.cu"),
    include_str!("../../kernels/msccl.cu"),
    include_str!("../../kernels/streams.cu")
);

/// Kernel name for an (operator, type).
pub fn kernel_name(op: RedOp, dtype: DataType) -> String {
    format!("allreduce_{}_{}", op.name(), dtype.name())
}

/// Every kernel in `kernels/allreduce.cu`.
pub fn kernel_names() -> Vec<String> {
    RedOp::ALL.iter().flat_map(|&o| DataType::ALL.iter().map(move |&t| kernel_name(o, t))).collect()
}

/// One side of a ring edge (`struct Conn`): the receiver's FIFO data and the two
/// control blocks (see [`super::proxy`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ConnArgs {
    /// FIFO slots, in the receiver's memory.
    pub data: u64,
    /// Block of `tail` and `sizes` (polled by the receiver: in its memory).
    pub tail: u64,
    /// Block of `head` (polled by the sender: in its memory).
    pub head: u64,
}

/// One channel of one rank (`struct ChannelArgs`); the step counters carry over from
/// one launch to the next.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ChannelArgs {
    pub send: ConnArgs,
    pub recv: ConnArgs,
    pub send_step: u64,
    pub recv_step: u64,
    pub ring_pos: i32,
    pub pad: i32,
}

/// The one argument of every kernel (`struct KernelArgs`), passed by value.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct KernelArgs {
    pub input: u64,
    pub output: u64,
    /// Elements.
    pub count: u64,
    /// Largest chunk (one slot), a multiple of 16 bytes.
    pub chunk_elems: u64,
    pub slot_bytes: u64,
    /// Array of `nchannels` [`ChannelArgs`].
    pub channels: u64,
    /// A `u32` the host raises to stop spinning kernels.
    pub abort_flag: u64,
    pub nranks: i32,
    pub nchannels: i32,
    /// 1/nranks: the avg pre-multiplier of half, bfloat16 and float.
    pub inv_f32: f32,
    pub pad: i32,
    /// 1/nranks for double.
    pub inv_f64: f64,
    /// The avg post-divisor of integers.
    pub nranks_u64: u64,
}

impl KernelArgs {
    /// The arguments of one rank's launch (`chunk_elems` from the [`super::schedule::RingSchedule`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        input: u64,
        output: u64,
        count: usize,
        chunk_elems: usize,
        slot_bytes: usize,
        channels: u64,
        abort_flag: u64,
        nranks: usize,
        nchannels: usize,
    ) -> KernelArgs {
        KernelArgs {
            input,
            output,
            count: count as u64,
            chunk_elems: chunk_elems as u64,
            slot_bytes: slot_bytes as u64,
            channels,
            abort_flag,
            nranks: nranks as i32,
            nchannels: nchannels as i32,
            inv_f32: 1.0 / nranks as f32,
            pad: 0,
            inv_f64: 1.0 / nranks as f64,
            nranks_u64: nranks as u64,
        }
    }
}

const _: () = assert!(std::mem::size_of::<ConnArgs>() == 24);
const _: () = assert!(std::mem::size_of::<ChannelArgs>() == 72);
const _: () = assert!(std::mem::size_of::<KernelArgs>() == 88);
const _: () = assert!(FIFO_CTRL_BYTES == 192);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_defined_in_the_source() {
        let names = kernel_names();
        assert_eq!(names.len(), 50);
        assert!(KERNEL_SOURCE.contains("\nTOPO_EACH_OP(ALLREDUCE_KERNEL)\n"));
        for op in RedOp::ALL {
            assert!(KERNEL_SOURCE.contains(&format!("TOPO_EACH_TYPE(KERNEL, {}, ", op.name())));
        }
        for t in DataType::ALL {
            assert!(KERNEL_SOURCE.contains(&format!("KERNEL(OPNAME, OPC, {}, ", t.name())));
        }
        assert!(!KERNEL_SOURCE.lines().any(|l| l.trim_start().starts_with("#include")));
    }

    #[test]
    fn the_kernel_asserts_the_same_sizes() {
        for (name, size) in [
            ("FifoCtrl", FIFO_CTRL_BYTES),
            ("ChannelArgs", std::mem::size_of::<ChannelArgs>()),
            ("KernelArgs", std::mem::size_of::<KernelArgs>()),
        ] {
            let line = format!("static_assert(sizeof({name}) == {size}, ");
            assert!(KERNEL_SOURCE.contains(&line), "kernels/allreduce.cu should say {line}");
        }
    }
}
