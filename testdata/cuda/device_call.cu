// device_call: kernels calling non-inlined __device__ functions.
// Exercises: .func definitions with a return value
// (.func (.param .b32 func_retval0) name(...)), void .func, .param passing of
// scalars, pointers and an aggregate (.param .align 4 .b8 p[12]),
// call.uni with { // callseq } blocks, st.param/ld.param on both sides,
// a recursive .func, a helper defined after its caller (clang emits a
// forward declaration: a .func header with no body, ending in ';'), and
// (device_call_indirect) an indirect call through a function pointer, which
// emits a "prototype_N : .callprototype (...) _ (...);" label and
// "call (retval0), %rdN, (param0), prototype_N;".
#include "cuda_shim.h"

struct Vec3 {
  float x, y, z;
};

__device__ __noinline__ float poly(float x, const float *c, int n) {
  float r = 0.0f;
  for (int i = n - 1; i >= 0; --i)
    r = r * x + c[i];
  return r;
}

__device__ __noinline__ float dot3(Vec3 a, Vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

__device__ __noinline__ void store_pair(float *p, int i, float a, float b) {
  p[2 * i] = a;
  p[2 * i + 1] = b;
}

// Genuinely (non-tail) recursive, so it stays a call to itself.
__device__ __noinline__ unsigned int splits(unsigned int n) {
  return n < 2 ? 1u : splits(n / 2) + splits(n / 3) + 1u;
}

// Prototype only; defined at the end of the file.
__device__ __noinline__ float clamp_unit(float v);

extern "C" __global__ void device_call(const float *x, const float *coef,
                                       float *out, unsigned int *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = poly(x[i], coef, 4);
  Vec3 a = {x[i], v, 1.0f};
  Vec3 b = {coef[0], coef[1], coef[2]};
  float d = dot3(a, b);
  store_pair(out, i, v, clamp_unit(d));
  g[i] = splits(g[i] & 255u);
}

typedef float (*unary_fn)(float);

__device__ __noinline__ float op_square(float x) { return x * x; }
__device__ __noinline__ float op_half(float x) { return 0.5f * x; }
__device__ __noinline__ float op_neg(float x) { return -x; }

extern "C" __global__ void device_call_indirect(float *data, int which,
                                                int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unary_fn f = which == 0 ? op_square : (which == 1 ? op_half : op_neg);
  if (i < n)
    data[i] = f(data[i]);
}

__device__ __noinline__ float clamp_unit(float v) {
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}
