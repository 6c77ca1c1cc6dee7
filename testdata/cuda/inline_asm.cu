// inline_asm: user inline PTX, as CUDA headers and hand-tuned kernels use it.
// Exercises: clang's "// begin inline asm" / "// end inline asm" bracketing,
// inline-asm text spliced verbatim (tab/space layout as written), nested
// { } scopes with local .reg declarations (.reg .pred %p;), sreg reads
// (%laneid, %clock, %globaltimer), vote.any.pred via asm, mov.b64
// {lo, hi} pack/unpack vector syntax, asm volatile membar, and escaped %%.
#include "cuda_shim.h"

__device__ __forceinline__ unsigned int lane_id() {
  unsigned int r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ int any_nonzero(int v) {
  int r;
  asm volatile("{\n\t"
               ".reg .pred p, q;\n\t"
               "setp.ne.s32 p, %1, 0;\n\t"
               "vote.sync.any.pred q, p, 0xffffffff;\n\t"
               "selp.s32 %0, 1, 0, q;\n\t"
               "}"
               : "=r"(r)
               : "r"(v));
  return r;
}

__device__ __forceinline__ unsigned long long pack(unsigned int lo,
                                                   unsigned int hi) {
  unsigned long long r;
  asm("mov.b64 %0, {%1, %2};" : "=l"(r) : "r"(lo), "r"(hi));
  return r;
}

__device__ __forceinline__ void unpack(unsigned long long v, unsigned int &lo,
                                       unsigned int &hi) {
  asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(v));
}

__device__ __forceinline__ float fast_add_rz(float a, float b) {
  float r;
  asm("add.rz.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

extern "C" __global__ void inline_asm(const int *in, int *out,
                                      unsigned long long *stamps,
                                      float *f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int t0, lo, hi;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t0));
  unsigned long long gt;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  int v = in[i];
  int a = any_nonzero(v);
  unsigned long long p = pack((unsigned int)v, lane_id());
  unpack(p ^ gt, lo, hi);
  asm volatile("membar.gl;" ::: "memory");
  out[i] = a + (int)(lo ^ hi) + (int)t0;
  stamps[i] = p;
  f[i] = fast_add_rz(f[i], 1.0f);
}
