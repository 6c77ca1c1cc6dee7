// saxpy_fp: floating-point math beyond add/mul.
// Exercises: fma.rn.f32 (fmaf), div.rn.f32 (IEEE division), div.approx.f32
// (__fdividef), sqrt.rn.f32, rsqrt.approx.f32, min.f32/max.f32, abs.f32,
// cvt.sat (__saturatef), ex2.approx / lg2.approx (__expf/__logf),
// cvt.rni.s32.f32, float immediates (0fXXXXXXXX), __constant__ data
// (.const globals with initializers, ld.const) and double precision
// (fma.rn.f64, div.rn.f64, sqrt.rn.f64, cvt.f64.f32, 0dXXXXXXXXXXXXXXXX).
#include "cuda_shim.h"

__constant__ float kCoef[4] = {0.5f, -1.25f, 3.0f, 0.0625f};

extern "C" __global__ void saxpy_fp(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaf(a, x[i], y[i]);
}

extern "C" __global__ void saxpy_fp_math(const float *x, float *y, int *q,
                                         int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  float m = sqrtf(fabsf(v)) / (1.0f + v * v);
  float r = rsqrtf(1.0f + fabsf(v));
  float c = fminf(fmaxf(v, lo), hi);
  float e = __expf(-fabsf(v)) + __logf(1.0f + fabsf(v));
  float p = fmaf(kCoef[0], v, kCoef[1]) * kCoef[2] + kCoef[3];
  y[i] = m + r + c + e + p + __fdividef(v, hi) + __saturatef(v);
  q[i] = __float2int_rn(v * 8.0f);
}

extern "C" __global__ void saxpy_fp_double(double a, const double *x,
                                           double *y, const float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double v = fma(a, x[i], y[i]);
    y[i] = sqrt(v * v + 1.0) / (v - 3.5) + (double)f[i];
  }
}
