package sim

import (
	"math/bits"

	"orilab/pipeline/ori"
)

// The asynchronous copy of sm_80 (PTX cp.async; ori/SEMANTICS.md).
//
// LDGSTS [s], [g], p copies size bytes (4, .64: 8, .128: 16) from global
// g to shared s. The PTX manual lets the copy land at any point between
// the cp.async and the cp.async.wait_group that covers it; the simulator
// performs it when LDGSTS executes, which is one of the executions the
// manual allows (a program that reads the destination before its wait
// races with the copy and may see either value). LDGDEPBAR and DEPBAR
// then have nothing left to wait for and do nothing.
//
// The two ways to copy less than size bytes:
//   - p false (ignore-src, or a src-size of 0): nothing is read and all
//     size bytes of s are zeroed;
//   - .ZFILL: the low bits of g, z = g % size, are a zero-fill count: the
//     copy reads size-z bytes from g-z and zeroes the last z bytes of s.
//     This is how ptxas 13.0.88 encodes a src-size n: the address is
//     g + ((size-n) & (size-1)) with p = (n != 0) (LDGSTS.E.64.ZFILL
//     [RZ], [R2.64], P0 for testdata/lower/mem_cp_async.ptx).
//
// Decision: the simulator reads only the size-z bytes the copy keeps.
// The hardware may fetch the whole aligned block (it cannot fault there:
// an aligned block lies in one page), but the simulator's buffers end at
// their exact size, and the bytes past src-size never reach the result.
//
// Decision: a shared destination, or a global source without .ZFILL, that
// is not aligned to the copy's size faults, as any access of that width
// does. The PTX manual refers cp.async's alignment to its addressing
// rules (addresses aligned to the access size), and ptxas 13.0.88 writes
// LDGSTS.E.128 for a 16-byte copy whatever the address, so a misaligned
// one raises the hardware's misaligned-address error (not run on a GPU
// here). testdata/kernels/cp_async_srcsize copied 16 bytes to rows 24
// bytes apart until LDGSTS; its rows are 32 bytes apart now, with the
// same results.
func init() {
	execTable[ori.OpLDGSTS] = execLDGSTS
	noop := func(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
		advance(f, mask)
		return nil
	}
	execTable[ori.OpLDGDEPBAR] = noop
	execTable[ori.OpDEPBAR] = noop
}

func execLDGSTS(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	n, _ := accessSize(d)
	eff := s.guardMask(w, f, d, mask)
	valid := ^uint32(0)
	if len(d.src) > 2 {
		valid = s.pred(w, f, &d.src[2])
	}
	zfill := d.has("ZFILL")
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		dst, err := s.locate(w, f, d, spShared, s.address(w, f, &d.src[0], lane), lane, n, "store")
		if err != nil {
			return err
		}
		keep := 0
		if valid&(1<<lane) != 0 {
			g := s.address(w, f, &d.src[1], lane)
			if zfill {
				z := g % uint64(n)
				g -= z
				keep = n - int(z)
			} else {
				if g%uint64(n) != 0 {
					return s.faultLane(w, f, d, lane, "misaligned global load of %d bytes at address 0x%x", n, g)
				}
				keep = n
			}
			a, off, ok := s.global.find(g, keep)
			if !ok {
				return s.faultLane(w, f, d, lane, "out-of-bounds global load of %d bytes at address 0x%x (%s)", keep, g, s.global.describe(g))
			}
			copy(dst, a.Data[off:off+keep])
		}
		clear(dst[keep:])
	}
	advance(f, mask)
	return nil
}
