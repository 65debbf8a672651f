// topo bench allreduce: ring allreduce kernels, compiled at run time by NVRTC.
//
// Self-contained CUDA C++ (no #include). One CTA drives one channel of one rank;
// each kernel runs one allreduce of one (operator, type). The schedule, the FIFO
// protocol and the arithmetic are the ones of the host backend (src/bench/schedule.rs,
// src/bench/proxy.rs, src/bench/dtype.rs): keep them in step.
//
// FIFO protocol, per ring edge and channel: the receiver's FIFO has FIFO_SLOTS slots.
// The sender fills slot (step % FIFO_SLOTS) once head + FIFO_SLOTS > step, then
// publishes tail = step + 1; the receiver reads the slot once tail > step, then
// publishes head = step + 1. Each counter lives in the memory of the side that polls
// it: tail (and the slot sizes) with the receiver, head with the sender, so that every
// spin reads local memory and only the one store per step crosses the link. For a
// host-staged edge the sender's "FIFO" is a staging FIFO in pinned host memory that
// the proxy thread drains into the receiver's FIFO; the kernel does not know the
// difference.
//
// The file also compiles as plain C++ for the CPU (tests/kernel_cpu/, which runs these
// kernels on OS threads): only the few inline-PTX helpers have a C++ twin, chosen by
// __CUDACC__.

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;

#ifndef TOPO_NTHREADS
#define TOPO_NTHREADS 512
#endif
#define FIFO_SLOTS 8

#define OP_SUM 0
#define OP_PROD 1
#define OP_MIN 2
#define OP_MAX 3
#define OP_AVG 4

// Layouts shared with src/bench/cuda.rs (#[repr(C)] mirrors) and src/bench/proxy.rs.
struct FifoCtrl {
  u64 tail;
  u64 pad0[7];
  u64 head;
  u64 pad1[7];
  u64 sizes[FIFO_SLOTS];
};

struct Conn {
  char* data;       // FIFO_SLOTS slots of slot_bytes, in the receiver's memory
  FifoCtrl* tail;   // the block whose tail and sizes the receiver polls: its memory
  FifoCtrl* head;   // the block whose head the sender polls: its memory
};

struct ChannelArgs {
  Conn send;        // where this rank writes (next rank's FIFO, or a staging FIFO)
  Conn recv;        // this rank's own FIFO
  u64 send_step;    // running counters, kept between launches
  u64 recv_step;
  int ring_pos;
  int pad;
};

struct KernelArgs {
  const char* input;
  char* output;
  u64 count;        // elements
  u64 chunk_elems;  // largest chunk (one slot), a multiple of 16 bytes
  u64 slot_bytes;
  ChannelArgs* channels;
  const volatile u32* abort_flag;
  int nranks;
  int nchannels;
  float inv_f32;    // 1/nranks, the avg pre-multiplier of half, bfloat16, float
  int pad;
  double inv_f64;   // 1/nranks for double
  u64 nranks_u64;   // the avg post-divisor of integers
};

static_assert(sizeof(FifoCtrl) == 192, "FifoCtrl layout");
static_assert(sizeof(ChannelArgs) == 72, "ChannelArgs layout");
static_assert(sizeof(KernelArgs) == 88, "KernelArgs layout");

struct alignas(16) V16 {
  u32 x, y, z, w;
};

template <typename S>
union Pack {
  V16 v;
  S e[16 / sizeof(S)];
};

// ---------------------------------------------------------------------------------
// Memory access helpers

#ifdef __CUDACC__
// FIFO data is written by another GPU, the proxy or the copy engine: bypass L1.
__device__ __forceinline__ V16 ld_volatile_v16(const char* p) {
  V16 v;
  asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ void st_v16(char* p, V16 v) {
  asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ V16 ld_v16(const char* p) {
  V16 v;
  asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ u64 ld_volatile_u64(const u64* p) { return *(const volatile u64*)p; }
__device__ __forceinline__ void st_volatile_u64(u64* p, u64 v) { *(volatile u64*)p = v; }
#else
// The CPU twins: 16-byte copies, and the counters as acquire/release atomics (what the
// volatile accesses plus __threadfence_system give on the GPU). A counter is read only
// in wait_above's spin, where the CPU twin gives the core away (topo_cpu_relax, from
// the CPU shim): OS threads outnumber cores there.
__device__ __forceinline__ V16 ld_volatile_v16(const char* p) {
  const volatile u32* q = (const volatile u32*)p;
  return V16{q[0], q[1], q[2], q[3]};
}
__device__ __forceinline__ void st_v16(char* p, V16 v) { *(V16*)p = v; }
__device__ __forceinline__ V16 ld_v16(const char* p) { return *(const V16*)p; }
__device__ __forceinline__ u64 ld_volatile_u64(const u64* p) {
  topo_cpu_relax();
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
__device__ __forceinline__ void st_volatile_u64(u64* p, u64 v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
#endif

// ---------------------------------------------------------------------------------
// Element types

__device__ __forceinline__ float bits_to_float(u32 u) {
  union { u32 u; float f; } c;
  c.u = u;
  return c.f;
}
__device__ __forceinline__ u32 float_to_bits(float f) {
  union { u32 u; float f; } c;
  c.f = f;
  return c.u;
}
#ifdef __CUDACC__
__device__ __forceinline__ float half_to_float(u16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ u16 float_to_half(float f) {
  u16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
#else
// The compiler's _Float16 conversions round to nearest even, as cvt.rn does.
__device__ __forceinline__ float half_to_float(u16 h) {
  union { u16 u; _Float16 f; } c;
  c.u = h;
  return (float)c.f;
}
__device__ __forceinline__ u16 float_to_half(float f) {
  union { u16 u; _Float16 f; } c;
  c.f = (_Float16)f;
  return c.u;
}
#endif
__device__ __forceinline__ float bf16_to_float(u16 b) { return bits_to_float(((u32)b) << 16); }
__device__ __forceinline__ u16 float_to_bf16(float f) {
  u32 x = float_to_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (u16)((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);                                        // nearest even
  return (u16)(x >> 16);
}

template <int OP, typename F>
__device__ __forceinline__ F red_float(F a, F b) {
  if (OP == OP_PROD) return a * b;
  if (OP == OP_MIN) return b < a ? b : a;
  if (OP == OP_MAX) return b > a ? b : a;
  return a + b;
}

// Integers wrap (computed in the unsigned type).
template <typename ST, typename UT>
struct TInt {
  typedef ST S;
  static const bool FLOAT = false;
  template <int OP>
  static __device__ __forceinline__ S red(S a, S b) {
    if (OP == OP_PROD) return (S)(UT)((UT)a * (UT)b);
    if (OP == OP_MIN) return b < a ? b : a;
    if (OP == OP_MAX) return b > a ? b : a;
    return (S)(UT)((UT)a + (UT)b);
  }
  static __device__ __forceinline__ S premul(S x, const KernelArgs&) { return x; }
  static __device__ __forceinline__ S postdiv(S x, const KernelArgs& k) {
    if ((ST)-1 < (ST)0) return (S)((long long)x / (long long)k.nranks_u64);
    return (S)((u64)x / k.nranks_u64);
  }
};

struct TFloat {
  typedef float S;
  static const bool FLOAT = true;
  template <int OP>
  static __device__ __forceinline__ S red(S a, S b) { return red_float<OP, float>(a, b); }
  static __device__ __forceinline__ S premul(S x, const KernelArgs& k) { return x * k.inv_f32; }
  static __device__ __forceinline__ S postdiv(S x, const KernelArgs&) { return x; }
};

struct TDouble {
  typedef double S;
  static const bool FLOAT = true;
  template <int OP>
  static __device__ __forceinline__ S red(S a, S b) { return red_float<OP, double>(a, b); }
  static __device__ __forceinline__ S premul(S x, const KernelArgs& k) { return x * k.inv_f64; }
  static __device__ __forceinline__ S postdiv(S x, const KernelArgs&) { return x; }
};

// half and bfloat16 are computed in float and rounded to nearest even; min and max
// return one of the operands unchanged.
#define NARROW_FLOAT(NAME, TO_F, FROM_F)                                      \
  struct NAME {                                                               \
    typedef u16 S;                                                            \
    static const bool FLOAT = true;                                           \
    template <int OP>                                                         \
    static __device__ __forceinline__ S red(S a, S b) {                       \
      float x = TO_F(a), y = TO_F(b);                                         \
      if (OP == OP_MIN) return y < x ? b : a;                                 \
      if (OP == OP_MAX) return y > x ? b : a;                                 \
      return FROM_F(OP == OP_PROD ? x * y : x + y);                           \
    }                                                                         \
    static __device__ __forceinline__ S premul(S x, const KernelArgs& k) {    \
      return FROM_F(TO_F(x) * k.inv_f32);                                     \
    }                                                                         \
    static __device__ __forceinline__ S postdiv(S x, const KernelArgs&) { return x; } \
  };

NARROW_FLOAT(THalf, half_to_float, float_to_half)
NARROW_FLOAT(TBf16, bf16_to_float, float_to_bf16)

typedef TInt<signed char, unsigned char> TInt8;
typedef TInt<unsigned char, unsigned char> TUint8;
typedef TInt<int, unsigned int> TInt32;
typedef TInt<unsigned int, unsigned int> TUint32;
typedef TInt<long long, unsigned long long> TInt64;
typedef TInt<unsigned long long, unsigned long long> TUint64;

// ---------------------------------------------------------------------------------
// Steps

// What a step does to one element. r: received partial result; x: own input.
#define K_SEND_OWN 0     // send = own(x)
#define K_REDUCE_SEND 1  // send = r op own(x)
#define K_FINISH 2       // out = send = finish(r op own(x))
#define K_COPY_SEND 3    // out = send = r
#define K_COPY 4         // out = r
#define K_SINGLE 5       // out = finish(own(x)) (one rank)

template <typename TT, int OP, int KIND>
__device__ __forceinline__ typename TT::S step_elem(typename TT::S r, typename TT::S x, const KernelArgs& a) {
  typedef typename TT::S S;
  const bool avg_float = OP == OP_AVG && TT::FLOAT;
  const bool avg_int = OP == OP_AVG && !TT::FLOAT;
  S own = avg_float ? TT::premul(x, a) : x;
  if (KIND == K_SEND_OWN) return own;
  if (KIND == K_COPY_SEND || KIND == K_COPY) return r;
  if (KIND == K_SINGLE) return avg_int ? TT::postdiv(own, a) : own;
  S v = TT::template red<OP>(r, own);
  if (KIND == K_FINISH && avg_int) v = TT::postdiv(v, a);
  return v;
}

template <typename TT, int OP, int KIND>
__device__ __forceinline__ void run_step(char* out, char* snd, const char* rcv, const char* in, u64 len,
                                         const KernelArgs& a) {
  typedef typename TT::S S;
  const bool has_recv = KIND != K_SEND_OWN && KIND != K_SINGLE;
  const bool has_in = KIND == K_SEND_OWN || KIND == K_REDUCE_SEND || KIND == K_FINISH || KIND == K_SINGLE;
  const bool has_out = KIND == K_FINISH || KIND == K_COPY_SEND || KIND == K_COPY || KIND == K_SINGLE;
  const bool has_send = KIND == K_SEND_OWN || KIND == K_REDUCE_SEND || KIND == K_FINISH || KIND == K_COPY_SEND;
  const u64 EPV = 16 / sizeof(S);
  const u64 nvec = len / EPV;
  for (u64 i = threadIdx.x; i < nvec; i += blockDim.x) {
    Pack<S> r, x, o;
    r.v = V16{0, 0, 0, 0};
    x.v = V16{0, 0, 0, 0};
    if (has_recv) r.v = ld_volatile_v16(rcv + i * 16);
    if (has_in) x.v = ld_v16(in + i * 16);
#pragma unroll
    for (int j = 0; j < (int)(16 / sizeof(S)); j++) o.e[j] = step_elem<TT, OP, KIND>(r.e[j], x.e[j], a);
    if (has_out) st_v16(out + i * 16, o.v);
    if (has_send) st_v16(snd + i * 16, o.v);
  }
  for (u64 i = nvec * EPV + threadIdx.x; i < len; i += blockDim.x) {
    S r = 0, x = 0;
    if (has_recv) r = ((const volatile S*)rcv)[i];
    if (has_in) x = ((const S*)in)[i];
    S o = step_elem<TT, OP, KIND>(r, x, a);
    if (has_out) ((S*)out)[i] = o;
    if (has_send) ((S*)snd)[i] = o;
  }
}

// Thread 0 spins until *ctr > want (or the host raises the abort flag).
__device__ __forceinline__ bool wait_above(const u64* ctr, u64 want, const volatile u32* abort_flag) {
  u32 spins = 0;
  while (ld_volatile_u64(ctr) <= want) {
    if (++spins == 1024) {
      spins = 0;
      if (*abort_flag) return false;
    }
  }
  return true;
}

template <typename TT, int OP>
__device__ void allreduce_channel(const KernelArgs& a) {
  typedef typename TT::S S;
  ChannelArgs* ch = a.channels + blockIdx.x;
  const u64 n = (u64)a.nranks;
  const u64 nch = (u64)a.nchannels;
  const u64 es = sizeof(S);
  const u64 align = 16 / es;
  const u64 count = a.count;
  const u64 loop_elems = nch * n * a.chunk_elems;
  u64 nloops = (count + loop_elems - 1) / loop_elems;
  if (nloops == 0) nloops = 1;
  const u64 pos = (u64)ch->ring_pos;
  const Conn sc = ch->send;
  const Conn rc = ch->recv;
  u64 send_step = ch->send_step;
  u64 recv_step = ch->recv_step;

  for (u64 l = 0; l < nloops; l++) {
    // The last loop shrinks its chunks to spread the rest over every channel and rank.
    const u64 base = l * loop_elems;
    const u64 remaining = count > base ? count - base : 0;
    const u64 per = (remaining + nch * n - 1) / (nch * n);
    u64 chunk = (per + align - 1) / align * align;
    if (chunk > a.chunk_elems) chunk = a.chunk_elems;
    if (chunk < align) chunk = align;
    for (u64 s = 0; s < 2 * n - 1; s++) {
      const bool recv = s >= 1;
      const bool send = s + 3 <= 2 * n;
      const bool reduce = s < n;
      const bool fin = s == n - 1;
      const u64 ck = (pos + 2 * n - 1 - s) % n;
      u64 off = base + (blockIdx.x * n + ck) * chunk;
      const u64 len = off < count ? (count - off < chunk ? count - off : chunk) : 0;
      if (off > count) off = count;

      bool ok = true;
      if (threadIdx.x == 0) {
        if (recv) ok = wait_above(&rc.tail->tail, recv_step, a.abort_flag);
        // Slot send_step is free once head > send_step - FIFO_SLOTS.
        if (ok && send && send_step >= FIFO_SLOTS) ok = wait_above(&sc.head->head, send_step - FIFO_SLOTS, a.abort_flag);
        __threadfence_system();
      }
      // The barrier also tells every thread whether thread 0 gave up.
      if (__syncthreads_or(!ok)) return;

      char* out = a.output + off * es;
      const char* in = a.input + off * es;
      const char* rslot = rc.data + (recv_step % FIFO_SLOTS) * a.slot_bytes;
      char* sslot = sc.data + (send_step % FIFO_SLOTS) * a.slot_bytes;
      if (!recv) {
        if (send) run_step<TT, OP, K_SEND_OWN>(out, sslot, rslot, in, len, a);
        else run_step<TT, OP, K_SINGLE>(out, sslot, rslot, in, len, a);
      } else if (fin) {
        run_step<TT, OP, K_FINISH>(out, sslot, rslot, in, len, a);
      } else if (reduce) {
        run_step<TT, OP, K_REDUCE_SEND>(out, sslot, rslot, in, len, a);
      } else if (send) {
        run_step<TT, OP, K_COPY_SEND>(out, sslot, rslot, in, len, a);
      } else {
        run_step<TT, OP, K_COPY>(out, sslot, rslot, in, len, a);
      }
      // The barrier orders every thread's stores (and its reads of the received slot)
      // before thread 0's system-scope fence, which orders them before the counters.
      __syncthreads();
      if (threadIdx.x == 0) {
        if (send) st_volatile_u64(&sc.tail->sizes[send_step % FIFO_SLOTS], len * es);
        __threadfence_system();
        if (send) st_volatile_u64(&sc.tail->tail, send_step + 1);
        if (recv) st_volatile_u64(&rc.head->head, recv_step + 1);
      }
      if (send) send_step++;
      if (recv) recv_step++;
    }
  }
  if (threadIdx.x == 0) {
    ch->send_step = send_step;
    ch->recv_step = recv_step;
  }
}

// One kernel per (operator, type): allreduce_<op>_<type>.
#define ALLREDUCE_KERNEL(OPNAME, OPC, TNAME, TT)                                           \
  extern "C" __global__ void __launch_bounds__(TOPO_NTHREADS, 1) allreduce_##OPNAME##_##TNAME( \
      KernelArgs a) {                                                                      \
    allreduce_channel<TT, OPC>(a);                                                         \
  }

// KERNEL(OPNAME, OPC, TNAME, TT) for every type, and for every (operator, type); also
// what kernels/msccl.cu defines its kernels with.
#define TOPO_EACH_TYPE(KERNEL, OPNAME, OPC) \
  KERNEL(OPNAME, OPC, int8, TInt8)          \
  KERNEL(OPNAME, OPC, uint8, TUint8)        \
  KERNEL(OPNAME, OPC, int32, TInt32)        \
  KERNEL(OPNAME, OPC, uint32, TUint32)      \
  KERNEL(OPNAME, OPC, int64, TInt64)        \
  KERNEL(OPNAME, OPC, uint64, TUint64)      \
  KERNEL(OPNAME, OPC, half, THalf)          \
  KERNEL(OPNAME, OPC, float, TFloat)        \
  KERNEL(OPNAME, OPC, double, TDouble)      \
  KERNEL(OPNAME, OPC, bfloat16, TBf16)

#define TOPO_EACH_OP(KERNEL)                 \
  TOPO_EACH_TYPE(KERNEL, sum, OP_SUM)        \
  TOPO_EACH_TYPE(KERNEL, prod, OP_PROD)      \
  TOPO_EACH_TYPE(KERNEL, min, OP_MIN)        \
  TOPO_EACH_TYPE(KERNEL, max, OP_MAX)        \
  TOPO_EACH_TYPE(KERNEL, avg, OP_AVG)

TOPO_EACH_OP(ALLREDUCE_KERNEL)
