// transpose: matrix transpose through a padded 32x33 shared tile (avoids bank
// conflicts), 32x8 thread blocks each handling four rows.
// Exercises: 2-D shared array with odd row pitch (132-byte stride), an
// unrolled loop of guarded loads/stores with per-iteration predicates,
// bar.sync between the read and write phases, 2-D %tid/%ctaid.
#include "cuda_shim.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose(float *odata, const float *idata,
                                     int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x; // swapped block offsets
  y = blockIdx.x * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
