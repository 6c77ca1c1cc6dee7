// half_precision: _Float16 storage and arithmetic.
// Exercises: 16-bit registers (.reg .b16 %rs<N>), ld/st.global.b16,
// a by-value half kernel parameter (.param .align 2 .b8 name[2], read with
// ld.param.b16), cvt.f32.f16 / cvt.rn.f16.f32 conversions, native
// fma.rn.f16, max.f16 (sm_80+ at -O3) or setp.leu.f16 + selp (-O0), and a
// float accumulator over half inputs (mixed-precision dot product).
#include "cuda_shim.h"

typedef _Float16 half;

extern "C" __global__ void half_precision(const half *a, const half *b,
                                          half *c, half alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    half v = a[i] * alpha + b[i];
    c[i] = v > (half)0 ? v : (half)0;
  }
}

extern "C" __global__ void half_precision_dot(const half *a, const half *b,
                                              float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = i; k < n; k += blockDim.x * gridDim.x)
    acc += (float)a[k] * (float)b[k];
  atomicAdd(out, acc);
}
