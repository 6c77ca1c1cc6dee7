// atomics_cas: atomics that need compare-and-swap loops, plus the other
// read-modify-write flavours.
// Exercises: atom.global.cas.b32 / .b64 in a retry loop (float max via
// int bit casts, double add emulation), atom.exch, atom.and/or/xor,
// atom.min, block-scoped atom.cta.add, membar (__threadfence), and a
// last-block-done pattern with a global ticket counter.
#include "cuda_shim.h"

__device__ float atomicMaxFloat(float *addr, float val) {
  int *ia = (int *)addr;
  int old = *ia, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val)
      break;
    old = atomicCAS(ia, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}

__device__ double atomicAddDouble(double *addr, double val) {
  unsigned long long *ua = (unsigned long long *)addr;
  unsigned long long old = *ua, assumed;
  do {
    assumed = old;
    old = atomicCAS(ua, assumed,
                    __builtin_bit_cast(unsigned long long,
                                       __builtin_bit_cast(double, assumed) +
                                           val));
  } while (assumed != old);
  return __builtin_bit_cast(double, old);
}

extern "C" __global__ void atomics_cas(const float *x, float *maxOut,
                                       double *sumOut, int *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  atomicMaxFloat(maxOut, v);
  atomicAddDouble(sumOut, (double)v);
  int bit = 1 << (i & 31);
  atomicOr(&flags[0], bit);
  atomicAnd(&flags[1], ~bit);
  atomicXor(&flags[2], bit);
  atomicMin(&flags[3], i);
  atomicExch(&flags[4], i);
  atomicAdd_block(&flags[5], 1);
}

__device__ unsigned int gTicket;

extern "C" __global__ void atomics_cas_lastblock(const float *partial,
                                                 float *result) {
  __shared__ bool amLast;
  __threadfence();
  if (threadIdx.x == 0) {
    unsigned int t = atomicInc(&gTicket, gridDim.x);
    amLast = (t == gridDim.x - 1);
  }
  __syncthreads();
  if (amLast && threadIdx.x == 0) {
    float s = 0.0f;
    for (unsigned int b = 0; b < gridDim.x; ++b)
      s += partial[b];
    *result = s;
    gTicket = 0;
  }
}
