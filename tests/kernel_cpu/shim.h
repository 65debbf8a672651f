// CUDA's names for the CPU, so that kernels/allreduce.cu compiles as C++ and runs on
// OS threads: one thread per CUDA thread, a barrier per block. Only what the ring
// kernels use is here.
//
// Memory model: __syncthreads is a mutex-protected barrier (it orders every thread's
// memory accesses before it against every thread's after it, as on the GPU);
// __threadfence_system is a sequentially consistent fence; the kernel's CPU twins of
// its counter loads and stores are acquire/release atomics.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

#include <sched.h>

#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(threads, blocks)

struct dim3 {
  unsigned x, y, z;
};

// One block's barrier. sync(pred) returns whether any thread passed a true pred
// (__syncthreads_or); the last thread to arrive opens the next phase.
struct TopoBlock {
  std::mutex m;
  std::condition_variable cv;
  unsigned nthreads = 0;
  unsigned arrived = 0;
  unsigned long phase = 0;
  int any = 0;
  int result = 0;

  int sync(int pred) {
    std::unique_lock<std::mutex> lock(m);
    any |= pred != 0;
    if (++arrived == nthreads) {
      result = any;
      any = 0;
      arrived = 0;
      phase++;
      cv.notify_all();
      return result;
    }
    unsigned long mine = phase;
    cv.wait(lock, [&] { return phase != mine; });
    // The next phase cannot end before this thread arrives at it: result is still ours.
    return result;
  }
};

static thread_local dim3 threadIdx;
static thread_local dim3 blockIdx;
static thread_local dim3 blockDim;
static thread_local dim3 gridDim;
static thread_local TopoBlock* topo_block;

static inline void __syncthreads() { topo_block->sync(0); }
static inline int __syncthreads_or(int pred) { return topo_block->sync(pred); }
static inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// Called by the kernel's CPU twin of its spin read: let a thread that can progress run.
static inline void topo_cpu_relax() { sched_yield(); }
