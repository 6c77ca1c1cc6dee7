// reduce_shared: classic block-level sum reduction in shared memory.
// Exercises: a statically sized __shared__ array (demoted to a function-scope
// .shared variable), dynamic shared memory (extern __shared__ -> .extern
// .shared ... []), bar.sync inside a loop, ld/st.shared, halving-stride loop
// with shr, __launch_bounds__ -> .maxntid / .minnctapersm, grid-stride loop.
#include "cuda_shim.h"

#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK, 2)
reduce_shared(const float *in, float *out, unsigned int n) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;
  unsigned int gridSize = blockDim.x * 2 * gridDim.x;

  float sum = 0.0f;
  while (i < n) {
    sum += in[i];
    if (i + blockDim.x < n)
      sum += in[i + blockDim.x];
    i += gridSize;
  }
  sdata[tid] = sum;
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// Integer max reduction with a dynamically sized shared buffer.
extern "C" __global__ void reduce_shared_dyn(const int *in, int *out, int n) {
  extern __shared__ int sbuf[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  sbuf[tid] = i < n ? in[i] : -2147483647 - 1;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      int o = sbuf[tid + s];
      if (o > sbuf[tid])
        sbuf[tid] = o;
    }
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sbuf[0];
}
