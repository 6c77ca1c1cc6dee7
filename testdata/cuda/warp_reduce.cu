// warp_reduce: sum reduction with warp shuffles, then across warps through
// shared memory, finished with a float atomicAdd.
// Exercises: shfl.sync.down / shfl.sync.bfly / shfl.sync.idx / shfl.sync.up
// (immediate lane and clamp operands, -1 member mask), vote.sync.ballot /
// vote.sync.any, popc of a ballot, %laneid, float atom.global.add.f32,
// a fully unrolled offset loop and bar.sync.
#include "cuda_shim.h"

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int off = warpSize / 2; off > 0; off >>= 1)
    v += __shfl_down_sync(FULL_MASK, v, off);
  return v;
}

__device__ __forceinline__ int warpAllMax(int v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    int o = __shfl_xor_sync(FULL_MASK, v, m);
    v = o > v ? o : v;
  }
  return v;
}

extern "C" __global__ void warp_reduce(const float *in, float *out, int n) {
  __shared__ float warpSums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & (warpSize - 1);
  int warp = threadIdx.x / warpSize;

  float v = i < n ? in[i] : 0.0f;
  v = warpSum(v);
  if (lane == 0)
    warpSums[warp] = v;
  __syncthreads();

  if (warp == 0) {
    int nwarps = (blockDim.x + warpSize - 1) / warpSize;
    v = lane < nwarps ? warpSums[lane] : 0.0f;
    v = warpSum(v);
    if (lane == 0)
      atomicAdd(out, v);
  }
}

// Count positives per warp with a ballot; broadcast the warp max from lane 0;
// inclusive warp prefix sum with shfl.up.
extern "C" __global__ void warp_reduce_vote(const int *in, int *counts,
                                            int *maxes, int *prefix) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  unsigned int lane = __nvvm_read_ptx_sreg_laneid();
  unsigned int ballot = __ballot_sync(FULL_MASK, v > 0);
  int m = warpAllMax(v);
  m = __shfl_sync(FULL_MASK, m, 0);
  int s = v;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(FULL_MASK, s, d);
    if (lane >= (unsigned)d)
      s += t;
  }
  prefix[i] = s;
  if (__any_sync(FULL_MASK, v < 0))
    __syncwarp();
  if (lane == 0) {
    counts[i / 32] = __popc(ballot);
    maxes[i / 32] = m;
  }
}
