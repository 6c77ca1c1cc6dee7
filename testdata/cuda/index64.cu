// index64: 64-bit indexing for arrays larger than 2^31 elements.
// Exercises: size_t / long long arithmetic (mul.wide.u32, mul.lo.s64,
// add.s64, shl.b64), 64-bit compares (setp.lt.u64 / setp.ge.s64),
// cvt.u64.u32 / cvt.s64.s32 widening, a 64-bit grid-stride loop, 64-bit
// loads/stores (ld.global.u64 / st.global.u64), 64-bit division/remainder
// (div.u64 / rem.u64, plus LLVM's div.u32 fast path when both operands fit
// in 32 bits) and 2-D indexing with a 64-bit row pitch.
#include "cuda_shim.h"

extern "C" __global__ void index64(const long long *in, long long *out,
                                   size_t n, long long scale) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)blockDim.x * gridDim.x;
  for (; i < n; i += stride)
    out[i] = in[i] * scale + (long long)i;
}

extern "C" __global__ void index64_2d(const float *in, float *out,
                                      size_t pitchElems, long long rows,
                                      int cols) {
  long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || c >= cols)
    return;
  size_t idx = (size_t)r * pitchElems + (size_t)c;
  out[idx] = in[idx] * 2.0f;
}

// Unflatten a 64-bit linear index into (row, col) with 64-bit div/rem.
extern "C" __global__ void index64_divmod(unsigned long long *rc,
                                          unsigned long long total,
                                          unsigned long long cols) {
  unsigned long long i =
      (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) {
    rc[2 * i] = i / cols;
    rc[2 * i + 1] = i % cols;
  }
}
