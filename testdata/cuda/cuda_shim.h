// cuda_shim.h: the small subset of what the CUDA SDK headers provide, so the
// kernels in this directory compile with clang-19 and no CUDA installation:
//
//   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
//       --cuda-gpu-arch=sm_80 -O2 -I testdata/cuda -S k.cu -o k.ptx
//
// Everything maps onto clang NVPTX builtins (as clang's own
// __clang_cuda_*.h wrappers do), with two exceptions:
//
//  * Without a CUDA installation clang assumes CUDA 7 and gives the front
//    end only the +ptx42 target feature, so it rejects the PTX 6.0 builtins
//    (__nvvm_shfl_sync_*, __nvvm_vote_*_sync, __nvvm_barrier_sync,
//    __nvvm_bar_warp_sync) with "needs target feature ptx60|...". The back
//    end still emits .version >= 6.3 for sm_75 and newer, so we declare the
//    LLVM intrinsics those builtins lower to directly, via asm labels. The
//    PTX is the same as the builtins give with a CUDA SDK installed.
//  * The funnel shifts use inline PTX, exactly as clang's
//    __clang_cuda_intrinsics.h does.
//
// Nothing here needs libdevice (-nocudalib): no sinf/expf etc.

#ifndef ORILAB_CUDA_SHIM_H
#define ORILAB_CUDA_SHIM_H

#if !defined(__CUDA__) || !defined(__NVPTX__)
#error "cuda_shim.h is for clang CUDA device compilation (--cuda-device-only)"
#endif

// ---- Qualifiers -----------------------------------------------------------

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict

#define __SHIM__ static __inline__ __attribute__((device, always_inline))

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;

// ---- Vector types ---------------------------------------------------------

struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) int2 { int x, y; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct uint3 { unsigned int x, y, z; };

// ---- Built-in variables (same technique as __clang_cuda_builtin_vars.h) ---

#define __SHIM_BUILTIN(FIELD, INTRINSIC)                                       \
  __declspec(property(get = __fetch_builtin_##FIELD)) unsigned int FIELD;      \
  static __inline__ __attribute__((always_inline)) __attribute__((device))     \
  unsigned int __fetch_builtin_##FIELD(void) {                                 \
    return INTRINSIC;                                                          \
  }

#define __SHIM_NO_INSTANCES(T)                                                 \
  __attribute__((device)) T() = delete;                                        \
  __attribute__((device)) T(const T &) = delete;                               \
  __attribute__((device)) void operator=(const T &) const = delete;            \
  __attribute__((device)) T *operator&() const = delete

struct __shim_threadIdx_t {
  __SHIM_BUILTIN(x, __nvvm_read_ptx_sreg_tid_x())
  __SHIM_BUILTIN(y, __nvvm_read_ptx_sreg_tid_y())
  __SHIM_BUILTIN(z, __nvvm_read_ptx_sreg_tid_z())
private:
  __SHIM_NO_INSTANCES(__shim_threadIdx_t);
};
struct __shim_blockIdx_t {
  __SHIM_BUILTIN(x, __nvvm_read_ptx_sreg_ctaid_x())
  __SHIM_BUILTIN(y, __nvvm_read_ptx_sreg_ctaid_y())
  __SHIM_BUILTIN(z, __nvvm_read_ptx_sreg_ctaid_z())
private:
  __SHIM_NO_INSTANCES(__shim_blockIdx_t);
};
struct __shim_blockDim_t {
  __SHIM_BUILTIN(x, __nvvm_read_ptx_sreg_ntid_x())
  __SHIM_BUILTIN(y, __nvvm_read_ptx_sreg_ntid_y())
  __SHIM_BUILTIN(z, __nvvm_read_ptx_sreg_ntid_z())
private:
  __SHIM_NO_INSTANCES(__shim_blockDim_t);
};
struct __shim_gridDim_t {
  __SHIM_BUILTIN(x, __nvvm_read_ptx_sreg_nctaid_x())
  __SHIM_BUILTIN(y, __nvvm_read_ptx_sreg_nctaid_y())
  __SHIM_BUILTIN(z, __nvvm_read_ptx_sreg_nctaid_z())
private:
  __SHIM_NO_INSTANCES(__shim_gridDim_t);
};

extern const __attribute__((device)) __attribute__((weak))
__shim_threadIdx_t threadIdx;
extern const __attribute__((device)) __attribute__((weak))
__shim_blockIdx_t blockIdx;
extern const __attribute__((device)) __attribute__((weak))
__shim_blockDim_t blockDim;
extern const __attribute__((device)) __attribute__((weak))
__shim_gridDim_t gridDim;

#define warpSize 32

#undef __SHIM_BUILTIN
#undef __SHIM_NO_INSTANCES

// Plain macro spellings, for code that prefers them.
#define TID_X __nvvm_read_ptx_sreg_tid_x()
#define TID_Y __nvvm_read_ptx_sreg_tid_y()
#define CTAID_X __nvvm_read_ptx_sreg_ctaid_x()
#define CTAID_Y __nvvm_read_ptx_sreg_ctaid_y()
#define NTID_X __nvvm_read_ptx_sreg_ntid_x()
#define NCTAID_X __nvvm_read_ptx_sreg_nctaid_x()
#define LANEID __nvvm_read_ptx_sreg_laneid()

// ---- Synchronization ------------------------------------------------------
//
// __syncthreads() is a clang NVPTX builtin already (bar.sync 0).

__SHIM__ void __threadfence(void) { __nvvm_membar_gl(); }
__SHIM__ void __threadfence_block(void) { __nvvm_membar_cta(); }
__SHIM__ void __threadfence_system(void) { __nvvm_membar_sys(); }

// PTX 6.0 intrinsics (see the top of the file for why these are asm labels).
extern "C" {
__device__ void __shim_barrier_sync(unsigned int) __asm("llvm.nvvm.barrier.sync");
__device__ void __shim_bar_warp_sync(unsigned int) __asm("llvm.nvvm.bar.warp.sync");
__device__ int __shim_shfl_sync_idx_i32(unsigned int, int, int, int) __asm("llvm.nvvm.shfl.sync.idx.i32");
__device__ int __shim_shfl_sync_up_i32(unsigned int, int, int, int) __asm("llvm.nvvm.shfl.sync.up.i32");
__device__ int __shim_shfl_sync_down_i32(unsigned int, int, int, int) __asm("llvm.nvvm.shfl.sync.down.i32");
__device__ int __shim_shfl_sync_bfly_i32(unsigned int, int, int, int) __asm("llvm.nvvm.shfl.sync.bfly.i32");
__device__ float __shim_shfl_sync_idx_f32(unsigned int, float, int, int) __asm("llvm.nvvm.shfl.sync.idx.f32");
__device__ float __shim_shfl_sync_up_f32(unsigned int, float, int, int) __asm("llvm.nvvm.shfl.sync.up.f32");
__device__ float __shim_shfl_sync_down_f32(unsigned int, float, int, int) __asm("llvm.nvvm.shfl.sync.down.f32");
__device__ float __shim_shfl_sync_bfly_f32(unsigned int, float, int, int) __asm("llvm.nvvm.shfl.sync.bfly.f32");
__device__ unsigned int __shim_vote_ballot_sync(unsigned int, bool) __asm("llvm.nvvm.vote.ballot.sync");
__device__ bool __shim_vote_any_sync(unsigned int, bool) __asm("llvm.nvvm.vote.any.sync");
__device__ bool __shim_vote_all_sync(unsigned int, bool) __asm("llvm.nvvm.vote.all.sync");
}

__SHIM__ void __syncwarp(unsigned int mask = 0xffffffffu) { __shim_bar_warp_sync(mask); }
__SHIM__ void __barrier_sync(unsigned int id) { __shim_barrier_sync(id); }

// ---- Warp shuffles and votes (argument encoding as in clang's headers) ----

#define __SHIM_SHFL(NAME, KIND, CLAMP, OFFT)                                   \
  __SHIM__ int NAME(unsigned int mask, int v, OFFT off, int width = warpSize) { \
    return __shim_shfl_sync_##KIND##_i32(mask, v, off,                         \
                                         ((warpSize - width) << 8) | CLAMP);   \
  }                                                                            \
  __SHIM__ unsigned int NAME(unsigned int mask, unsigned int v, OFFT off,      \
                             int width = warpSize) {                           \
    return (unsigned int)__shim_shfl_sync_##KIND##_i32(                        \
        mask, (int)v, off, ((warpSize - width) << 8) | CLAMP);                 \
  }                                                                            \
  __SHIM__ float NAME(unsigned int mask, float v, OFFT off,                    \
                      int width = warpSize) {                                  \
    return __shim_shfl_sync_##KIND##_f32(mask, v, off,                         \
                                         ((warpSize - width) << 8) | CLAMP);   \
  }

__SHIM_SHFL(__shfl_sync, idx, 0x1f, int)
__SHIM_SHFL(__shfl_up_sync, up, 0, unsigned int)
__SHIM_SHFL(__shfl_down_sync, down, 0x1f, unsigned int)
__SHIM_SHFL(__shfl_xor_sync, bfly, 0x1f, int)
#undef __SHIM_SHFL

__SHIM__ unsigned int __ballot_sync(unsigned int mask, int pred) {
  return __shim_vote_ballot_sync(mask, pred != 0);
}
__SHIM__ int __any_sync(unsigned int mask, int pred) {
  return __shim_vote_any_sync(mask, pred != 0);
}
__SHIM__ int __all_sync(unsigned int mask, int pred) {
  return __shim_vote_all_sync(mask, pred != 0);
}

// ---- Atomics (as in clang's __clang_cuda_device_functions.h) --------------

__SHIM__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__SHIM__ unsigned int atomicAdd(unsigned int *p, unsigned int v) {
  return __nvvm_atom_add_gen_i((int *)p, (int)v);
}
__SHIM__ unsigned long long atomicAdd(unsigned long long *p,
                                      unsigned long long v) {
  return __nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
__SHIM__ float atomicAdd(float *p, float v) {
  return __nvvm_atom_add_gen_f(p, v);
}
__SHIM__ double atomicAdd(double *p, double v) {
  return __nvvm_atom_add_gen_d(p, v);
}
__SHIM__ int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
__SHIM__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__SHIM__ int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__SHIM__ unsigned int atomicMax(unsigned int *p, unsigned int v) {
  return __nvvm_atom_max_gen_ui(p, v);
}
__SHIM__ unsigned int atomicMin(unsigned int *p, unsigned int v) {
  return __nvvm_atom_min_gen_ui(p, v);
}
__SHIM__ int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
__SHIM__ int atomicCAS(int *p, int cmp, int v) {
  return __nvvm_atom_cas_gen_i(p, cmp, v);
}
__SHIM__ unsigned int atomicCAS(unsigned int *p, unsigned int cmp,
                                unsigned int v) {
  return (unsigned int)__nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v);
}
__SHIM__ unsigned long long atomicCAS(unsigned long long *p,
                                      unsigned long long cmp,
                                      unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p,
                                                    (long long)cmp,
                                                    (long long)v);
}
__SHIM__ unsigned int atomicInc(unsigned int *p, unsigned int v) {
  return __nvvm_atom_inc_gen_ui(p, v);
}
__SHIM__ int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
__SHIM__ int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
__SHIM__ int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
__SHIM__ int atomicAdd_block(int *p, int v) {
  return __nvvm_atom_cta_add_gen_i(p, v);
}

// ---- Integer intrinsics ---------------------------------------------------

__SHIM__ int __popc(unsigned int x) { return __builtin_popcount(x); }
__SHIM__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__SHIM__ int __clz(int x) { return __builtin_clzg((unsigned int)x, 32); }
__SHIM__ int __clzll(long long x) {
  return __builtin_clzg((unsigned long long)x, 64);
}
__SHIM__ int __ffs(int x) { return __builtin_ffs(x); }
__SHIM__ unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__SHIM__ unsigned long long __brevll(unsigned long long x) {
  return __builtin_bitreverse64(x);
}
__SHIM__ unsigned int __byte_perm(unsigned int a, unsigned int b,
                                  unsigned int s) {
  return __nvvm_prmt(a, b, s);
}
__SHIM__ unsigned int __umulhi(unsigned int a, unsigned int b) {
  return __nvvm_mulhi_ui(a, b);
}
__SHIM__ int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }
__SHIM__ unsigned long long __umul64hi(unsigned long long a,
                                       unsigned long long b) {
  return __nvvm_mulhi_ull(a, b);
}
__SHIM__ long long __mul64hi(long long a, long long b) {
  return __nvvm_mulhi_ll(a, b);
}

__SHIM__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi,
                                      unsigned int shift) {
  unsigned int r;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
__SHIM__ unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi,
                                       unsigned int shift) {
  unsigned int r;
  asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
__SHIM__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi,
                                      unsigned int shift) {
  unsigned int r;
  asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
__SHIM__ unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi,
                                       unsigned int shift) {
  unsigned int r;
  asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}

// ---- Float intrinsics (no libdevice) ---------------------------------------

__SHIM__ float sqrtf(float x) { return __builtin_sqrtf(x); }
__SHIM__ double sqrt(double x) { return __builtin_sqrt(x); }
__SHIM__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__SHIM__ double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
__SHIM__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
__SHIM__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__SHIM__ float fabsf(float x) { return __builtin_fabsf(x); }
__SHIM__ float floorf(float x) { return __builtin_floorf(x); }
__SHIM__ float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
__SHIM__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
__SHIM__ float __saturatef(float x) { return __nvvm_saturate_f(x); }
__SHIM__ float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
__SHIM__ float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
__SHIM__ float __sinf(float x) { return __nvvm_sin_approx_f(x); }
__SHIM__ float __cosf(float x) { return __nvvm_cos_approx_f(x); }
__SHIM__ int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
__SHIM__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__SHIM__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }

// ---- Read-only cache loads ------------------------------------------------

__SHIM__ float __ldg(const float *p) { return __nvvm_ldg_f(p); }
__SHIM__ int __ldg(const int *p) { return __nvvm_ldg_i(p); }

#undef __SHIM__

#endif // ORILAB_CUDA_SHIM_H
