//! The interface of `kernels/streams.cu`: the reduce and avg kernels a device runs the
//! plan's streams with (copies are peer copies, notifies are events).

use crate::bench::dtype::{DataType, RedOp};

/// The kernels' argument (`struct StArgs`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StArgs {
    pub src: *const u8,
    pub dst: *mut u8,
    /// Elements.
    pub count: u64,
    /// 1/nranks: avg's pre-multiplier of half, bfloat16, float.
    pub inv_f32: f32,
    /// avg: 0 pre-multiplies `src` into `dst`, 1 post-divides `dst`.
    pub post: i32,
    /// 1/nranks for double.
    pub inv_f64: f64,
    /// avg's post-divisor of integers.
    pub nranks_u64: u64,
}

const _: () = assert!(std::mem::size_of::<StArgs>() == 48);

/// The kernel reducing one buffer into another with `op` on `dtype`.
pub fn reduce_kernel(op: RedOp, dtype: DataType) -> String {
    format!("streams_reduce_{}_{}", op.name(), dtype.name())
}

/// The kernel of avg's scalings on `dtype`.
pub fn avg_kernel(dtype: DataType) -> String {
    format!("streams_avg_{}", dtype.name())
}

/// Every kernel of `kernels/streams.cu`.
pub fn kernel_names() -> Vec<String> {
    let mut v: Vec<String> =
        RedOp::ALL.iter().flat_map(|&o| DataType::ALL.iter().map(move |&t| reduce_kernel(o, t))).collect();
    v.extend(DataType::ALL.iter().map(|&t| avg_kernel(t)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::kernel_abi::KERNEL_SOURCE;

    #[test]
    fn the_source_defines_every_kernel_and_the_same_layout() {
        assert!(KERNEL_SOURCE.contains("\nTOPO_EACH_OP(STREAMS_REDUCE_KERNEL)\n"));
        assert!(KERNEL_SOURCE.contains("\nTOPO_EACH_TYPE(STREAMS_AVG_KERNEL, avg, OP_AVG)\n"));
        assert!(KERNEL_SOURCE.contains("static_assert(sizeof(StArgs) == 48, \"StArgs layout\");"));
        assert_eq!(kernel_names().len(), RedOp::ALL.len() * DataType::ALL.len() + DataType::ALL.len());
    }
}
