// sample: block-level sum reduction in shared memory, the workbench's
// built-in kernel. A grid-stride loop accumulates 3*in[i]+1 per thread, then
// a halving-stride tree in shared memory (bar.sync in the loop) sums a block.
#include "cuda_shim.h"

extern "C" __global__ void block_sum(const unsigned *in, unsigned *out, unsigned n) {
  __shared__ unsigned s[128];
  unsigned tid = threadIdx.x;
  unsigned sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    sum += in[i] * 3u + 1u;
  s[tid] = sum;
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
    if (tid < st)
      s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s[0];
}
