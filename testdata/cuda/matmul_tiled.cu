// matmul_tiled: C = A * B with 16x16 shared-memory tiles.
// Exercises: two 2-D __shared__ tiles, 2-D thread/block indices (%tid.y,
// %ctaid.y), bar.sync twice per iteration, an unrolled inner product that
// becomes a long run of fma.rn.f32 with ld.shared [reg+imm] addressing,
// boundary predicates for the partial edge tiles, and .maxntid from
// __launch_bounds__.
#include "cuda_shim.h"

#define TILE 16

extern "C" __global__ void __launch_bounds__(TILE *TILE)
matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];

  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;

  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + tx;
    int br = t * TILE + ty;
    As[ty][tx] = (row < M && ac < K) ? A[row * K + ac] : 0.0f;
    Bs[ty][tx] = (br < K && col < N) ? B[br * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}
