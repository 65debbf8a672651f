//! The streams' reduce kernels (`kernels/streams.cu`) on the CPU: the fake device runs
//! `topo algo plan`'s streams in the device's enqueue order with every reduce done by
//! the CPU-compiled kernel, validated against each collective's definition, on one
//! node and across nodes, every type and operator; and the avg kernel's two passes.

use std::sync::Arc;

use libloading::Library;
use topo::algo::plan::{self, Coll, Forced};
use topo::algo::program::Mode;
use topo::bench::streams::kernel::{StArgs, avg_kernel, reduce_kernel};
use topo::bench::streams::sweep::validate;
use topo::bench::streams::{Exec, StreamsHost};
use topo::bench::{DataType, RedOp};

use super::library;

type StKernel = unsafe extern "C" fn(StArgs);
type StRunFn = unsafe extern "C" fn(StKernel, *const StArgs, i32, i32);

/// Launch kernel `name` of the CPU library on `args` (2 blocks of 3 threads: the
/// grid-stride loop crosses blocks).
fn launch(lib: &Library, name: &str, args: StArgs) {
    // SAFETY: symbols of our library with these signatures (kernels/streams.cu and
    // tests/kernel_cpu/runtime.cpp); the buffers hold `args.count` elements.
    unsafe {
        let kernel: libloading::Symbol<StKernel> = lib.get(name.as_bytes()).expect("kernel symbol");
        let run: libloading::Symbol<StRunFn> = lib.get(b"topo_cpu_run_streams").expect("launcher symbol");
        run(*kernel, &args, 2, 3);
    }
}

fn host(fixture: &str, nodes: usize, coll: Coll, forced: &Forced) -> StreamsHost {
    let (xml, _) = topo::fixtures::get(fixture).unwrap().load().unwrap();
    let opts = topo::model::Options { nodes, ..Default::default() };
    let an = topo::model::analyze(&xml, fixture, &opts).unwrap();
    StreamsHost::new(plan::plan(&an, coll, 1 << 20, forced).unwrap()).unwrap()
}

#[test]
fn the_plan_on_the_fake_device_with_the_reduce_kernel_is_right() {
    let Some(lib) = library("the_plan_on_the_fake_device_with_the_reduce_kernel_is_right") else { return };
    let kernel = Arc::new(move |dtype: DataType, op: RedOp, src: *const u8, dst: *mut u8, n: usize| {
        let args = StArgs { src, dst, count: n as u64, inv_f32: 0.0, post: 0, inv_f64: 0.0, nranks_u64: 1 };
        launch(lib, &reduce_kernel(op, dtype), args);
    });
    let ring = Forced { level0: Some(plan::Algo::Ring), level1: None };
    let nhr = Forced { level0: None, level1: Some(plan::Algo::Nhr) };
    for (fixture, nodes, forced) in
        [("dgx-h100", 1, Forced::default()), ("workstation-4gpu", 2, ring), ("gb200-nvl72-tray", 3, nhr)]
    {
        for coll in [Coll::ReduceScatter, Coll::AllReduce] {
            let mut h = host(fixture, nodes, coll, &forced);
            h.exec = Exec::Fake { seed: 7, ignore_waits: false };
            h.device_reduce = Some(kernel.clone());
            for dtype in DataType::ALL {
                for op in RedOp::ALL {
                    let w = validate(&mut h, dtype, op, 13, Mode::OutOfPlace, 3, None).unwrap();
                    assert_eq!(w, 0, "{fixture} x{nodes} {coll:?} {dtype} {op}");
                }
            }
        }
    }
}

#[test]
fn the_avg_kernel_scales_before_and_after() {
    let Some(lib) = library("the_avg_kernel_scales_before_and_after") else { return };
    // float: pre-multiplied by 1/4 into dst; int32: dst divided by 4 in place.
    let src: Vec<f32> = (0..7).map(|i| i as f32 * 2.0).collect();
    let mut dst = vec![0f32; 7];
    let a = StArgs {
        src: src.as_ptr() as *const u8,
        dst: dst.as_mut_ptr() as *mut u8,
        count: 7,
        inv_f32: 0.25,
        post: 0,
        inv_f64: 0.25,
        nranks_u64: 4,
    };
    launch(lib, &avg_kernel(DataType::Float), a);
    assert_eq!(dst, src.iter().map(|x| x * 0.25).collect::<Vec<_>>());
    let mut ints: Vec<i32> = vec![8, -8, 7, 100, 3];
    let a = StArgs { src: std::ptr::null(), dst: ints.as_mut_ptr() as *mut u8, count: 5, post: 1, ..a };
    launch(lib, &avg_kernel(DataType::Int32), a);
    assert_eq!(ints, [2, -2, 1, 25, 0]);
}
