// ---------------------------------------------------------------------------------
// HCCL-style streams on CUDA (`topo bench COLL --streams HCCL_ALGO --backend cuda`):
// the plan's copies are peer copies between the ranks' buffers and its notifies are
// events; what is left to a kernel is the reduce of one buffer into another, and the
// avg scalings before and after a collective. Uses the ring kernels' types (TInt8 ...
// TBf16) and operators (kernels/allreduce.cu comes first in the same program).

struct StArgs {
  const char* src;
  char* dst;
  u64 count;        // elements
  float inv_f32;    // 1/nranks: avg's pre-multiplier of half, bfloat16, float
  int post;         // avg scaling: 0 pre-multiply src into dst, 1 post-divide dst
  double inv_f64;   // 1/nranks for double
  u64 nranks_u64;   // avg's post-divisor of integers
};

static_assert(sizeof(StArgs) == 48, "StArgs layout");

// dst[i] = dst[i] op src[i], a grid-stride loop (avg sums; its scalings are apart).
template <typename TT, int OP>
__device__ __forceinline__ void st_reduce(const StArgs& a) {
  typedef typename TT::S S;
  const S* s = (const S*)a.src;
  S* d = (S*)a.dst;
  const u64 stride = (u64)blockDim.x * gridDim.x;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < a.count; i += stride) {
    d[i] = TT::template red<OP>(d[i], s[i]);
  }
}

// avg: floating types pre-multiply the input by 1/nranks into dst (post 0); integers
// divide the result by nranks in place (post 1). The other type of each pass is a copy
// (pre) or nothing (post).
template <typename TT>
__device__ __forceinline__ void st_avg(const StArgs& a) {
  typedef typename TT::S S;
  KernelArgs k = {};
  k.inv_f32 = a.inv_f32;
  k.inv_f64 = a.inv_f64;
  k.nranks_u64 = a.nranks_u64;
  const S* s = (const S*)a.src;
  S* d = (S*)a.dst;
  const u64 stride = (u64)blockDim.x * gridDim.x;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < a.count; i += stride) {
    if (a.post) {
      if (!TT::FLOAT) d[i] = TT::postdiv(d[i], k);
    } else {
      d[i] = TT::FLOAT ? TT::premul(s[i], k) : s[i];
    }
  }
}

// streams_reduce_<op>_<type> for every (operator, type); streams_avg_<type>.
#define STREAMS_REDUCE_KERNEL(OPNAME, OPC, TNAME, TT)                                                         \
  extern "C" __global__ void __launch_bounds__(TOPO_NTHREADS, 1) streams_reduce_##OPNAME##_##TNAME(StArgs a) { \
    st_reduce<TT, OPC>(a);                                                                                  \
  }
#define STREAMS_AVG_KERNEL(OPNAME, OPC, TNAME, TT)                                                \
  extern "C" __global__ void __launch_bounds__(TOPO_NTHREADS, 1) streams_avg_##TNAME(StArgs a) { \
    st_avg<TT>(a);                                                                              \
  }

TOPO_EACH_OP(STREAMS_REDUCE_KERNEL)
TOPO_EACH_TYPE(STREAMS_AVG_KERNEL, avg, OP_AVG)
