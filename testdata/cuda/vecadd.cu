// vecadd: element-wise vector add, the "hello world" of CUDA.
// Exercises: .entry with pointer/int params, ld.param, cvta.to.global,
// special registers (%tid/%ctaid/%ntid), mad.lo / mul.wide index math,
// a bounds-check branch (setp + @p bra), ld.global(.nc with __restrict__),
// st.global, and (vecadd4) 128-bit vector loads/stores ld.global.v4.f32 with
// brace-enclosed register lists.
#include "cuda_shim.h"

extern "C" __global__ void vecadd(const float *__restrict__ a,
                                  const float *__restrict__ b,
                                  float *__restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// Same thing, four elements per thread through float4.
extern "C" __global__ void vecadd4(const float4 *__restrict__ a,
                                   const float4 *__restrict__ b,
                                   float4 *__restrict__ c, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 x = a[i], y = b[i];
    float4 r;
    r.x = x.x + y.x;
    r.y = x.y + y.y;
    r.z = x.z + y.z;
    r.w = x.w + y.w;
    c[i] = r;
  }
}
