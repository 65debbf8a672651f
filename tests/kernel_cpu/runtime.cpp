// The ring kernels of kernels/allreduce.cu, the program interpreter of
// kernels/msccl.cu and the streams' reduces of kernels/streams.cu, compiled for the CPU, and launchers that run them like CUDA would:
// every rank's launches in order on its own "stream", the ranks at the same time, each
// launch a grid of blocks of OS threads.
//
//   c++ -std=c++17 -O2 -shared -fPIC -pthread -fno-strict-aliasing runtime.cpp
//
// tests/kernel_cpu.rs and tests/kernel_cpu_msccl.rs build it, load it and drive it
// through the bench's own validation.

#include "shim.h"

#include <system_error>
#include <thread>
#include <vector>

#include "../../kernels/allreduce.cu"
#include "../../kernels/msccl.cu"
#include "../../kernels/streams.cu"

typedef void (*TopoKernel)(KernelArgs);
typedef void (*MsKernel)(MsArgs);
typedef void (*StKernel)(StArgs);

// One launch: nblocks blocks of nthreads threads, all running at once.
template <typename Args>
static bool topo_launch(void (*kernel)(Args), const Args& args, int nblocks, int nthreads) {
  std::vector<TopoBlock> blocks(nblocks);
  std::vector<std::thread> threads;
  bool ok = true;
  for (int b = 0; b < nblocks; b++) blocks[b].nthreads = (unsigned)nthreads;
  try {
    threads.reserve((size_t)nblocks * nthreads);
    for (int b = 0; b < nblocks; b++) {
      for (int t = 0; t < nthreads; t++) {
        TopoBlock* block = &blocks[b];
        threads.emplace_back([=] {
          threadIdx = dim3{(unsigned)t, 0, 0};
          blockIdx = dim3{(unsigned)b, 0, 0};
          blockDim = dim3{(unsigned)nthreads, 0, 0};
          gridDim = dim3{(unsigned)nblocks, 0, 0};
          topo_block = block;
          kernel(args);
        });
      }
    }
  } catch (const std::system_error&) {
    // A block short of threads would wait at its barrier for ever: raise the abort
    // flag so that every launched thread returns, and report the failure.
    *(volatile u32*)args.abort_flag = 1;
    ok = false;
  }
  for (auto& t : threads) t.join();
  return ok;
}

// Run `iters` launches of `kernel` for each of `nranks` ranks, the ranks concurrently;
// launch(r, i) gives rank r's arguments and blocks of its i-th launch. Returns 0, or -1
// when threads could not be created.
template <typename Args, typename Launch>
static int topo_run_ranks(void (*kernel)(Args), const Args* args, int nranks, int nthreads, int iters,
                          Launch launch) {
  std::vector<std::thread> streams;
  std::vector<int> ok(nranks, 1);
  try {
    for (int r = 0; r < nranks; r++) {
      streams.emplace_back([=, &ok] {
        for (int i = 0; i < iters; i++) {
          int nblocks = 0;
          Args a = launch(r, i, &nblocks);
          if (!topo_launch(kernel, a, nblocks, nthreads)) {
            ok[r] = 0;
            return;
          }
        }
      });
    }
  } catch (const std::system_error&) {
    *(volatile u32*)args[0].abort_flag = 1;
    for (auto& s : streams) s.join();
    return -1;
  }
  for (auto& s : streams) s.join();
  for (int r = 0; r < nranks; r++)
    if (!ok[r]) return -1;
  return 0;
}

// The ring kernels: `iters` launches of nblocks (channels) blocks per rank.
extern "C" int topo_cpu_run(TopoKernel kernel, const KernelArgs* args, int nranks, int nblocks, int nthreads,
                            int iters) {
  return topo_run_ranks(kernel, args, nranks, nthreads, iters, [=](int r, int, int* nb) {
    *nb = nblocks;
    return args[r];
  });
}

// The interpreter: `iters` launches of args[r].nblocks blocks for rank r, the i-th with
// epoch args[r].epoch + i.
extern "C" int topo_cpu_run_msccl(MsKernel kernel, const MsArgs* args, int nranks, int nthreads, int iters) {
  return topo_run_ranks(kernel, args, nranks, nthreads, iters, [=](int r, int i, int* nb) {
    MsArgs a = args[r];
    a.epoch += (u64)i;
    *nb = (int)a.nblocks;
    return a;
  });
}

// A streams kernel (kernels/streams.cu: no barrier, no flag): nblocks blocks of
// nthreads threads, each thread's work in turn on the calling thread, as a fake
// device's stream runs it.
extern "C" void topo_cpu_run_streams(StKernel kernel, const StArgs* args, int nblocks, int nthreads) {
  TopoBlock block;
  block.nthreads = 1;
  for (int b = 0; b < nblocks; b++) {
    for (int t = 0; t < nthreads; t++) {
      threadIdx = dim3{(unsigned)t, 0, 0};
      blockIdx = dim3{(unsigned)b, 0, 0};
      blockDim = dim3{(unsigned)nthreads, 0, 0};
      gridDim = dim3{(unsigned)nblocks, 0, 0};
      topo_block = &block;
      kernel(*args);
    }
  }
}
