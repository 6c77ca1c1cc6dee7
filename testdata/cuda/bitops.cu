// bitops: integer bit-manipulation intrinsics.
// Exercises: popc.b32/.b64, clz.b32/.b64, brev.b32/.b64, __ffs (lowered to
// brev+clz or popc sequences), prmt.b32 (__byte_perm), mul.hi.u32/.s32,
// mul.hi.u64/.s64 (__umul64hi / __mul64hi), funnel shifts from inline PTX
// (shf.l.wrap / shf.r.clamp inside "// begin inline asm" blocks), a rotate
// that LLVM itself selects as shf.l.wrap, bfe-style shift/mask extraction,
// and 64-bit shl/shr/xor.
#include "cuda_shim.h"

extern "C" __global__ void bitops(const unsigned int *a,
                                  const unsigned long long *b,
                                  unsigned int *o32, unsigned long long *o64,
                                  int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned int x = a[i];
  unsigned int y = a[i + n];
  unsigned long long u = b[i];
  unsigned long long v = b[i + n];

  unsigned int r = 0;
  r += __popc(x);
  r += __clz((int)x) << 8;
  r += __ffs((int)y) << 16;
  r ^= __brev(x);
  r ^= __byte_perm(x, y, 0x5140);
  r += __umulhi(x, y);
  r += (unsigned int)__mulhi((int)x, (int)y);
  r ^= __funnelshift_l(x, y, i & 31);
  r ^= __funnelshift_rc(y, x, (unsigned int)i);
  r += (x << (y & 31)) | (x >> ((32 - y) & 31)); // rotate-left
  r += (x >> 7) & 0x3ff;                          // bit-field extract
  o32[i] = r;

  unsigned long long w = __umul64hi(u, v);
  w ^= (unsigned long long)__mul64hi((long long)u, (long long)v);
  w += __popcll(u) + __clzll((long long)v);
  w ^= __brevll(u);
  w += (u << 13) ^ (v >> 7) ^ (unsigned long long)((long long)v >> 3);
  o64[i] = w;
}
