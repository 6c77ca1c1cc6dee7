// scan: work-efficient (Blelloch) exclusive prefix sum of one block in shared
// memory, plus a naive Hillis-Steele inclusive scan with double buffering.
// Exercises: up-sweep/down-sweep loops with shl/shr strides, bar.sync in both
// loops, shared-memory index arithmetic, a single-thread branch (tid == 0)
// clearing the last element, and 2-D shared arrays with a runtime buffer
// selector.
#include "cuda_shim.h"

#define N 512

extern "C" __global__ void scan(const int *in, int *out, int *blockSums) {
  __shared__ int temp[N];
  int tid = threadIdx.x; // N/2 threads
  int base = blockIdx.x * N;

  temp[2 * tid] = in[base + 2 * tid];
  temp[2 * tid + 1] = in[base + 2 * tid + 1];

  int offset = 1;
  for (int d = N >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset <<= 1;
  }

  if (tid == 0) {
    if (blockSums)
      blockSums[blockIdx.x] = temp[N - 1];
    temp[N - 1] = 0;
  }

  for (int d = 1; d < N; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      int t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();

  out[base + 2 * tid] = temp[2 * tid];
  out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

// Inclusive scan, one element per thread, ping-pong buffers.
extern "C" __global__ void scan_inclusive(const float *in, float *out, int n) {
  __shared__ float buf[2][256];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  buf[pout][tid] = tid < n ? in[tid] : 0.0f;
  __syncthreads();
  for (int off = 1; off < (int)blockDim.x; off *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= off)
      buf[pout][tid] = buf[pin][tid] + buf[pin][tid - off];
    else
      buf[pout][tid] = buf[pin][tid];
    __syncthreads();
  }
  if (tid < n)
    out[tid] = buf[pout][tid];
}
