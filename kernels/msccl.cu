// topo bench --algo PROGRAM.xml --backend cuda: an interpreter of MSCCL-IR programs,
// compiled at run time by NVRTC in one program after kernels/allreduce.cu, whose element
// types, reduction operators, FIFO control block, 16-byte memory helpers and wait_above
// it uses (no #include: the two files are one translation unit).
//
// One CUDA block runs one thread block of the program on one rank. The host flattens
// the program beforehand (src/bench/program/image.rs): every block gets its operations
// in the order the runtime runs them (nops folded into waits, re chains fused, the
// runtime's step numbers), each with physical buffer indices and chunk indices already
// resolved for the call's mode, and its two connection ends. Loop iterations, calls
// and slices are cut here exactly as the host interpreter cuts them
// (src/bench/program/exec.rs): keep the two in step.
//
// Connections: one FIFO of `entries` slices per (channel, sender, receiver), with the
// ring kernels' protocol (the sender fills entry (sent % entries) once head + entries >
// sent, stores the slice's byte count in sizes[], then tail = sent + 1; the receiver
// reads the entry once tail > got, checks the byte count, then head = got + 1). The
// counters carry over from one launch to the next (MsBlock's steps).
//
// Dependencies: one 64-bit flag per block, holding the last (launch, iteration, step)
// it published, as (epoch << 40) | (iteration << 16) | (step + 1). A wait for step s of
// block t in iteration i of launch e ends once flag[t] >= that value. A block that has
// finished the program stores (epoch << 40) | (2^40 - 1), which releases every wait of
// the launch; a block entering the launch stores epoch << 40, which releases none. The
// two serve as the grid-wide barriers around the avg pre-multiplication and
// post-division.

#define MS_SEND 0
#define MS_RECV 1
#define MS_RCS 2
#define MS_RRS 3
#define MS_RRC 4
#define MS_RRCS 5
#define MS_COPY 6
#define MS_REDUCE 7
#define MS_NOP 8

#define MS_ERR_SLICE 1  // a received slice of another size than the step expects

// Layouts shared with src/bench/program/image.rs (#[repr(C)] mirrors).
struct MsOp {
  u32 kind;
  u32 count;      // chunks
  u32 src_buf;    // 0 input, 1 output, 2 scratch (physical, in this call's mode)
  u32 src_chunk;  // chunk index of the step's offset in that buffer
  u32 dst_buf;
  u32 dst_chunk;
  u32 nred;       // re: operands, chunk indices in src_buf at extra[red_at..]
  u32 red_at;
  u32 nwait;      // waits: (block index, step number) pairs at extra[wait_at..]
  u32 wait_at;
  u32 publish;
  u32 number;
};

struct MsBlock {
  Conn send;      // FIFO this block sends into (data null: none)
  Conn recv;      // FIFO this block receives from
  u64 send_step;  // slices sent and received so far, kept between launches
  u64 recv_step;
  u32 first_op;
  u32 nops;
};

struct MsArgs {
  char* bufs[3];            // physical input, output, scratch
  MsBlock* blocks;          // this rank's blocks (one per CUDA block)
  const MsOp* ops;
  const u32* extra;
  u64* flags;               // one per block of this rank
  volatile u32* abort_flag; // raised by the host after a stall, or by a block on error
  u32* error;               // MS_ERR_* of the first error a block saw
  char* pre_dst;            // floating avg: pre_dst[i] = pre_src[i] / nranks
  const char* pre_src;
  u64 pre_count;
  char* post;               // integer avg: post[i] /= nranks once the program is done
  u64 post_count;
  u64 chunk;                // elements per chunk
  u64 window;               // elements a loop iteration moves of each chunk
  u64 iterations;
  u64 per_call;             // whole chunks per call (one iteration)
  u64 slices;               // slices per call
  u64 entries;              // FIFO entries per connection
  u64 slice_elems;
  u64 entry_bytes;          // bytes between FIFO entries
  u64 epoch;                // launch number, > 0, increasing
  u32 nblocks;
  float inv_f32;
  double inv_f64;
  u64 nranks_u64;
};

static_assert(sizeof(MsOp) == 48, "MsOp layout");
static_assert(sizeof(MsBlock) == 72, "MsBlock layout");
static_assert(sizeof(MsArgs) == 208, "MsArgs layout");

#define MS_DONE ((1ull << 40) - 1)

__device__ __forceinline__ u64 ms_flag(u64 epoch, u64 it, u32 step) { return (epoch << 40) | (it << 16) | ((u64)step + 1); }

// The avg scalars in the shape the element types read them.
__device__ __forceinline__ KernelArgs ms_scalars(const MsArgs& a) {
  KernelArgs k = {};
  k.inv_f32 = a.inv_f32;
  k.inv_f64 = a.inv_f64;
  k.nranks_u64 = a.nranks_u64;
  return k;
}

// What one step does to an element: r received, x local source.
#define MK_COPY_SRC 0    // out = x          (s: send; cpy: dst)
#define MK_COPY_RECV 1   // out = r          (r, rcs)
#define MK_REDUCE 2      // out = r op x     (rrs, rrc, rrcs)
#define MK_ACCUM 3       // out = out op x   (re, one operand)

// out[i] (and, when snd is set, snd[i]) from rcv[i] and src[i], for n elements; the
// block's threads share them, 16 bytes at a time where every pointer allows.
template <typename TT, int OP, int KIND>
__device__ __forceinline__ void ms_apply(char* out, char* snd, const char* rcv, const char* src, u64 n) {
  typedef typename TT::S S;
  const u64 EPV = 16 / sizeof(S);
  u64 align = (u64)out | (u64)(snd ? snd : out) | (u64)(rcv ? rcv : out) | (u64)(src ? src : out);
  u64 nvec = (align & 15) == 0 ? n / EPV : 0;
  for (u64 i = threadIdx.x; i < nvec; i += blockDim.x) {
    Pack<S> r, x, o;
    r.v = V16{0, 0, 0, 0};
    x.v = V16{0, 0, 0, 0};
    if (KIND == MK_COPY_RECV || KIND == MK_REDUCE) r.v = ld_volatile_v16(rcv + i * 16);
    if (KIND == MK_ACCUM) r.v = ld_v16(out + i * 16);
    if (KIND != MK_COPY_RECV) x.v = ld_v16(src + i * 16);
#pragma unroll
    for (int j = 0; j < (int)EPV; j++) {
      if (KIND == MK_COPY_SRC) o.e[j] = x.e[j];
      else if (KIND == MK_COPY_RECV) o.e[j] = r.e[j];
      else o.e[j] = TT::template red<OP>(r.e[j], x.e[j]);
    }
    st_v16(out + i * 16, o.v);
    if (snd) st_v16(snd + i * 16, o.v);
  }
  for (u64 i = nvec * EPV + threadIdx.x; i < n; i += blockDim.x) {
    S r = 0, x = 0, o;
    if (KIND == MK_COPY_RECV || KIND == MK_REDUCE) r = ((const volatile S*)rcv)[i];
    if (KIND == MK_ACCUM) r = ((const S*)out)[i];
    if (KIND != MK_COPY_RECV) x = ((const S*)src)[i];
    if (KIND == MK_COPY_SRC) o = x;
    else if (KIND == MK_COPY_RECV) o = r;
    else o = TT::template red<OP>(r, x);
    ((S*)out)[i] = o;
    if (snd) ((S*)snd)[i] = o;
  }
}

// Thread 0 records the error and raises the abort flag, which stops every block.
__device__ __forceinline__ void ms_fail(const MsArgs& a, u32 code) {
  if (*a.error == 0) *a.error = code;
  __threadfence_system();
  *a.abort_flag = 1;
}

// Once every thread's stores are done, publish `value` in this block's flag.
__device__ __forceinline__ void ms_publish(const MsArgs& a, u64 value) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    st_volatile_u64(a.flags + blockIdx.x, value);
  }
}

// Every block of the rank waits until every flag has reached `goal`; false on abort.
__device__ __forceinline__ bool ms_all_reached(const MsArgs& a, u64 goal) {
  bool ok = true;
  if (threadIdx.x == 0) {
    for (u32 b = 0; ok && b < a.nblocks; b++) ok = wait_above(a.flags + b, goal - 1, a.abort_flag);
    __threadfence_system();
  }
  return !__syncthreads_or(!ok);
}

// The avg scalings, each element by one thread of one block of the rank.
template <typename TT>
__device__ __forceinline__ void ms_premul(const MsArgs& a, const KernelArgs& k) {
  typedef typename TT::S S;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < a.pre_count; i += (u64)a.nblocks * blockDim.x)
    ((S*)a.pre_dst)[i] = TT::premul(((const S*)a.pre_src)[i], k);
}

template <typename TT>
__device__ __forceinline__ void ms_postdiv(const MsArgs& a, const KernelArgs& k) {
  typedef typename TT::S S;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < a.post_count; i += (u64)a.nblocks * blockDim.x)
    ((S*)a.post)[i] = TT::postdiv(((S*)a.post)[i], k);
}

// One call of a step that receives, sends or both, slice by slice through the FIFOs.
template <typename TT, int OP>
__device__ bool ms_transfer(const MsArgs& a, const MsBlock& blk, u32 kind, char* src, char* dst, u64 len,
                            u64& sent, u64& got) {
  typedef typename TT::S S;
  const u64 es = sizeof(S);
  const bool recv = kind != MS_SEND;
  const bool send = kind == MS_SEND || kind == MS_RCS || kind == MS_RRS || kind == MS_RRCS;
  for (u64 s = 0; s < a.slices; s++) {
    u64 lo = s * a.slice_elems;
    if (lo > len) lo = len;
    const u64 hi = lo + a.slice_elems < len ? lo + a.slice_elems : len;
    const u64 n = hi - lo;
    const u64 re = got % a.entries, se = sent % a.entries;
    bool ok = true;
    if (threadIdx.x == 0) {
      if (recv) ok = wait_above(&blk.recv.tail->tail, got, a.abort_flag);
      if (ok && send && sent >= a.entries) ok = wait_above(&blk.send.head->head, sent - a.entries, a.abort_flag);
      __threadfence_system();
      if (ok && recv && ((const volatile u64*)blk.recv.tail->sizes)[re] != n * es) {
        ms_fail(a, MS_ERR_SLICE);
        ok = false;
      }
    }
    if (__syncthreads_or(!ok)) return false;
    const char* in = blk.recv.data + re * a.entry_bytes;
    char* out = blk.send.data + se * a.entry_bytes;
    char* sp = src + lo * es;
    char* dp = dst + lo * es;
    switch (kind) {
      case MS_SEND: ms_apply<TT, OP, MK_COPY_SRC>(out, 0, 0, sp, n); break;
      case MS_RECV: ms_apply<TT, OP, MK_COPY_RECV>(dp, 0, in, 0, n); break;
      case MS_RCS: ms_apply<TT, OP, MK_COPY_RECV>(dp, out, in, 0, n); break;
      case MS_RRS: ms_apply<TT, OP, MK_REDUCE>(out, 0, in, sp, n); break;
      case MS_RRC: ms_apply<TT, OP, MK_REDUCE>(dp, 0, in, sp, n); break;
      default: ms_apply<TT, OP, MK_REDUCE>(dp, out, in, sp, n); break;
    }
    // The barrier orders every thread's stores and reads of the entries before thread
    // 0's system-scope fence, which orders them before the counters.
    __syncthreads();
    if (threadIdx.x == 0) {
      if (send) st_volatile_u64(&blk.send.tail->sizes[se], n * es);
      __threadfence_system();
      if (send) st_volatile_u64(&blk.send.tail->tail, sent + 1);
      if (recv) st_volatile_u64(&blk.recv.head->head, got + 1);
    }
    if (send) sent++;
    if (recv) got++;
  }
  return true;
}

// One operation in loop iteration `it`: its calls (as the host interpreter cuts them).
template <typename TT, int OP>
__device__ bool ms_op(const MsArgs& a, const MsBlock& blk, const MsOp& op, u64 it, u64& sent, u64& got) {
  typedef typename TT::S S;
  const u64 es = sizeof(S);
  const bool single = a.iterations == 1;
  const u64 m = single ? a.per_call : 1;
  const u64 within = single ? 0 : it * a.window;
  const u64 rest = within < a.chunk ? a.chunk - within : 0;
  const u64 wlen = rest < a.window ? rest : a.window;
  const u64 ncalls = (op.count + m - 1) / m;
  for (u64 c = 0; c < ncalls; c++) {
    const u64 rel = c * m;
    const u64 len = single ? (m < op.count - rel ? m : op.count - rel) * a.chunk : wlen;
    char* src = a.bufs[op.src_buf] + ((op.src_chunk + rel) * a.chunk + within) * es;
    char* dst = a.bufs[op.dst_buf] + ((op.dst_chunk + rel) * a.chunk + within) * es;
    if (op.kind == MS_COPY) {
      ms_apply<TT, OP, MK_COPY_SRC>(dst, 0, 0, src, len);
    } else if (op.kind == MS_REDUCE) {
      for (u32 r = 0; r < op.nred; r++) {
        const char* s = a.bufs[op.src_buf] + (((u64)a.extra[op.red_at + r] + rel) * a.chunk + within) * es;
        ms_apply<TT, OP, MK_ACCUM>(dst, 0, 0, s, len);
        // The next operand may split the elements over the threads differently.
        __syncthreads();
      }
    } else if (!ms_transfer<TT, OP>(a, blk, op.kind, src, dst, len, sent, got)) {
      return false;
    }
  }
  return true;
}

template <typename TT, int OP>
__device__ void ms_block(const MsArgs& a) {
  MsBlock* blk = a.blocks + blockIdx.x;
  const KernelArgs k = ms_scalars(a);
  const u64 epoch = a.epoch << 40;
  if (a.pre_dst) {
    ms_premul<TT>(a, k);
    ms_publish(a, epoch);
    if (!ms_all_reached(a, epoch)) return;
  }
  u64 sent = blk->send_step;
  u64 got = blk->recv_step;
  for (u64 it = 0; it < a.iterations; it++) {
    for (u32 oi = 0; oi < blk->nops; oi++) {
      const MsOp op = a.ops[blk->first_op + oi];
      bool ok = true;
      if (threadIdx.x == 0) {
        for (u32 w = 0; ok && w < op.nwait; w++) {
          const u32 tb = a.extra[op.wait_at + 2 * w], step = a.extra[op.wait_at + 2 * w + 1];
          ok = wait_above(a.flags + tb, ms_flag(a.epoch, it, step) - 1, a.abort_flag);
        }
        __threadfence_system();
      }
      if (__syncthreads_or(!ok)) return;
      if (op.kind != MS_NOP && !ms_op<TT, OP>(a, *blk, op, it, sent, got)) return;
      // Every operation ends at a barrier: the next one (or the flag) sees its stores.
      __syncthreads();
      if (op.publish) ms_publish(a, ms_flag(a.epoch, it, op.number));
    }
  }
  if (threadIdx.x == 0) {
    blk->send_step = sent;
    blk->recv_step = got;
  }
  ms_publish(a, epoch | MS_DONE);
  if (a.post) {
    if (!ms_all_reached(a, epoch | MS_DONE)) return;
    ms_postdiv<TT>(a, k);
  }
}

// One kernel per (operator, type): msccl_<op>_<type>, one CUDA block per thread block.
#define MSCCL_KERNEL(OPNAME, OPC, TNAME, TT)                                                          \
  extern "C" __global__ void __launch_bounds__(TOPO_NTHREADS, 1) msccl_##OPNAME##_##TNAME(MsArgs a) { \
    ms_block<TT, OPC>(a);                                                                            \
  }

TOPO_EACH_OP(MSCCL_KERNEL)
