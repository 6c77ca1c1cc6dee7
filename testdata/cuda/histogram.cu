// histogram: 256-bin byte histogram, privatized per block in shared memory.
// Exercises: atom.shared.add (atomicAdd on __shared__), atom.global.add to
// merge, byte loads (ld.global.u8) and zero-extension, a grid-stride loop,
// a shared-memory clear loop, bar.sync, and (histogram_global) the
// non-privatized version with a 64-bit atomicAdd and atomicInc/atomicMax.
#include "cuda_shim.h"

#define BINS 256

extern "C" __global__ void histogram(const unsigned char *data, size_t n,
                                     unsigned int *hist) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();

  size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();

  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    unsigned int c = local[b];
    if (c)
      atomicAdd(&hist[b], c);
  }
}

// Direct global atomics, plus a 64-bit total and a clamped ring counter.
extern "C" __global__ void histogram_global(const int *keys, int n, int *hist,
                                            unsigned long long *total,
                                            unsigned int *ring, int *maxKey) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int k = keys[i];
  atomicAdd(&hist[k & (BINS - 1)], 1);
  atomicAdd(total, (unsigned long long)(unsigned int)k);
  atomicMax(maxKey, k);
  unsigned int slot = atomicInc(ring, 1023u);
  hist[BINS + (slot & 15)] = k;
}
