// loop_unroll: counted loops for OriLoopUnrolling (and the other loop
// passes), compiled by clang the way the other CUDA test kernels are:
//
//   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
//       --cuda-gpu-arch=sm_75 -O3 -fno-unroll-loops -I testdata/cuda \
//       -S testdata/opt/loop_unroll.cu -o - |
//     grep -v 'pragma "nounroll"' > testdata/opt/loop_unroll.ptx
//
// -fno-unroll-loops keeps LLVM from unrolling, and LLVM then marks each
// loop header with .pragma "nounroll", which the grep drops so that the
// loops are left to ptxas's (orilab's) unroller.
#include "cuda_shim.h"

// Full unroll: 8 iterations, clang's "@p bra exit; bra.uni header" shape.
extern "C" __global__ void loop_sum8(const int *a, int *out, int scale) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int k = 0; k < 8; ++k)
    acc += a[t * 8 + k] * (scale * 3 + 1);
  out[t] = acc;
}

// Partial unroll: 100 iterations of a body too large to unroll fully.
extern "C" __global__ void loop_poly(const unsigned *a, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = a[t], acc = 1;
  for (unsigned k = 0; k < 100; ++k) {
    acc = acc * 3 + (x ^ k);
    acc ^= acc >> 7;
    x = x * 5 + 1;
  }
  out[t] = acc;
}

// A counter that steps down by 3: 7 iterations.
extern "C" __global__ void loop_countdown(const unsigned *a, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = a[t], acc = 0;
  for (int k = 21; k > 0; k -= 3)
    acc = acc * 5 + (x >> (k & 7));
  out[t] = acc;
}

// A constant inner loop in a runtime outer loop.
extern "C" __global__ void loop_nested(const int *a, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 4; ++j)
      acc += a[(t + i * 4 + j) & 255] * (j + 1);
  out[t] = acc;
}

// Two exits: not unrolled, and must stay correct.
extern "C" __global__ void loop_break(const int *a, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int k = 0; k < 16; ++k) {
    int v = a[(t + k) & 255];
    if (v < 0)
      break;
    acc += v >> 8;
  }
  out[t] = acc;
}
