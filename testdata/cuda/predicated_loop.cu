// predicated_loop: loops whose bodies have small data-dependent conditions
// that the compiler turns into predicated code instead of branches.
// Exercises: setp.{lt,gt,ge,ne}.{s32,f32}, selp.{b32,u32,f32}, min.s32,
// abs.s32, predicate logic (or.pred / xor.pred / not.pred, mov.pred at -O0),
// @p guarded branches, loop back-edges with bra.uni, and a dense switch
// lowered to a tree of setp.*.s16 compares.
#include "cuda_shim.h"

extern "C" __global__ void predicated_loop(const float *x, float *y,
                                           int *count, int n, float thr,
                                           float alpha) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  int hits = 0;
  for (int i = tid; i < n; i += stride) {
    float v = x[i];
    // leaky ReLU, clamped
    float r = v > 0.0f ? v : alpha * v;
    r = r > thr ? thr : r;
    hits += (v > thr || v < -thr) ? 1 : 0;
    y[i] = r;
  }
  if (hits != 0)
    atomicAdd(count, hits);
}

// Integer clamp / sign / abs with a conditional accumulator.
extern "C" __global__ void predicated_loop_int(const int *a, int *out, int n,
                                               int lo, int hi) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n)
    return;
  int acc = 0;
  for (int k = 0; k < 8; ++k) {
    int v = a[tid * 8 + k];
    int c = v < lo ? lo : (v > hi ? hi : v);
    int s = (v > 0) - (v < 0);
    int m = v < 0 ? -v : v;
    if ((k & 1) != 0 && m > 3)
      acc += c * s;
    else
      acc ^= m;
  }
  out[tid] = acc;
}

// A state machine: switch over an opcode stream.
extern "C" __global__ void predicated_loop_switch(const unsigned char *ops,
                                                  int *regs, int len) {
  int t = threadIdx.x;
  int acc = regs[t];
  for (int pc = 0; pc < len; ++pc) {
    switch (ops[pc]) {
    case 0: acc += 1; break;
    case 1: acc -= 3; break;
    case 2: acc *= 5; break;
    case 3: acc ^= 0x55; break;
    case 4: acc >>= 1; break;
    case 5: acc = acc < 0 ? -acc : acc; break;
    case 6: acc |= t; break;
    default: acc = 0; break;
    }
  }
  regs[t] = acc;
}
