// globals_local: module-scope device variables and thread-local arrays.
// Exercises: .global variables with and without initializers
// (".global .align 4 .b8 name[N] = {..}", ".global .align 4 .u32 name;",
// ".global .align 4 .f32 name = 0f40200000;"; clang drops trailing zero
// bytes, so an initializer list may be shorter than the array), a .const
// lookup table, taking the address of a global (mov.u64 %rd, name /
// cvta.global), a global used directly as an address ([name]), atomics on a
// global counter, a dynamically indexed local array (.local __local_depot,
// %SP/%SPL, ld.local / st.local), and .visible vs internal (static) linkage.
#include "cuda_shim.h"

__device__ int gCounter;
__device__ unsigned int gTable[8] = {1, 1, 2, 3, 5, 8, 13, 21};
__device__ float gScale = 2.5f;
static __device__ int gHidden[4] = {7, 0, 0, 9};
__constant__ int cPerm[8] = {3, 1, 4, 1, 5, 2, 6, 0};

extern "C" __global__ void globals_local(const int *idx, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int scratch[16];
  for (int k = 0; k < 16; ++k)
    scratch[k] = (int)gTable[k & 7] * (k + i) + gHidden[k & 3];
  int j = idx[i] & 15; // dynamic index forces a local-memory array
  scratch[j] += cPerm[j & 7];
  int slot = atomicAdd(&gCounter, 1);
  out[i] = scratch[(j + slot) & 15] + (int)(gScale * (float)scratch[0]);
}

extern "C" __global__ void globals_local_reset(int v) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    gCounter = v;
    gScale = 1.0f;
    gHidden[1] = v; // keeps the internal-linkage global alive at -O3
  }
}
