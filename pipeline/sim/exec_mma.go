package sim

import (
	"math"
	"math/big"

	"orilab/pipeline/ori"
	"orilab/pipeline/sim/fp"
)

// The tensor-core instructions execute warp-wide: all 32 lanes must be
// active (mma.sync.aligned and ldmatrix.sync.aligned require it), each
// lane holding a fragment of every matrix in an aligned register tuple.
//
// Fragment layouts (PTX manual, "Matrix fragments for mma.m16n8k*"). With
// g = lane/4 and t = lane%4, and e elements of ebits bits per 32-bit
// register (e = 32/ebits: 2 for f16/bf16, 4 for s8/u8/e4m3/e5m2, 8 for
// s4/u4, 32 for b1, 1 for tf32/f32/s32), element i in bits [i*ebits,
// (i+1)*ebits):
//
//	A (rows x K, row-major), register r, element i:
//	    row = g + 8*(r&1), col = t*e + (r>>1)*4*e + i
//	B (K x 8, column-major), register r, element i:
//	    row = t*e + r*4*e + i, col = g
//	C, D with one element per register (f32, s32), register r:
//	    row = g + 8*(r>>1), col = 2t + (r&1)
//	C, D in f16 (two halves per register), register r, half i:
//	    row = g + 8*r, col = 2t + i
//
// The m8n8 shapes (IMMA.8816, IMMA.8832, BMMA.88128, DMMA.884) are the same formulas with only
// the r = 0 rows: A row g, B column g, and C/D elements (g, 2t+i). An f64
// element takes two words.
//
// ldmatrix: lanes 8j..8j+7 give the row addresses of matrix j (x1: j=0,
// x2: j<2, x4: j<4), each row 8 b16 elements (16 bytes). Lane l receives
// in register j the pair (row l/4, cols 2(l%4), 2(l%4)+1) of matrix j,
// low half first; .trans (MT88) gives the pair of rows 2(l%4), 2(l%4)+1
// of column l/4 instead.

func init() {
	execTable[ori.OpLDSM] = execLDSM
	execTable[ori.OpSTSM] = execSTSM
	execTable[ori.OpHMMA] = execMMA
	execTable[ori.OpIMMA] = execMMA
	execTable[ori.OpDMMA] = execMMA
	execTable[ori.OpBMMA] = execMMA
	execTable[ori.OpQMMA] = execMMA
}

// fullWarp checks that all 32 lanes execute a warp-wide instruction.
func (s *machine) fullWarp(w *warp, f *frame, d *dinst, mask uint32) error {
	if eff := s.guardMask(w, f, d, mask); eff != ^uint32(0) {
		return s.fault(w, f, d, mask, "%s needs all 32 lanes of the warp converged and unguarded (active lanes 0x%08x)", d.in.Name(), eff)
	}
	return nil
}

// execLDSM: LDSM.16.<M88|MT88>.<1|2|4> d = [a].
func execLDSM(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	if err := s.fullWarp(w, f, d, mask); err != nil {
		return err
	}
	n := 1
	switch {
	case d.has("2"):
		n = 2
	case d.has("4"):
		n = 4
	}
	// rows[j][r] holds the 8 halves of row r of matrix j.
	var rows [4][8][8]uint16
	for j := 0; j < n; j++ {
		for r := 0; r < 8; r++ {
			lane := 8*j + r
			b, err := s.resolve(w, f, d, &d.src[0], lane, 16, "load")
			if err != nil {
				return err
			}
			for c := 0; c < 8; c++ {
				rows[j][r][c] = uint16(le(b[2*c:], 2))
			}
		}
	}
	trans := d.has("MT88")
	for lane := 0; lane < warpSize; lane++ {
		g, t := lane/4, lane%4
		for j := 0; j < n; j++ {
			var lo, hi uint16
			if trans {
				lo, hi = rows[j][2*t][g], rows[j][2*t+1][g]
			} else {
				lo, hi = rows[j][g][2*t], rows[j][g][2*t+1]
			}
			s.set(w, f, &d.dst[0], lane, j, uint32(hi)<<16|uint32(lo))
		}
	}
	advance(f, mask)
	return nil
}

// execSTSM: STSM.16.<M88|MT88>.<1|2|4> [a], r, the inverse of LDSM: lane
// l's word j holds the pair LDSM would have given it, and lanes 8j..8j+7
// give the row addresses of matrix j.
func execSTSM(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	if err := s.fullWarp(w, f, d, mask); err != nil {
		return err
	}
	n := 1
	switch {
	case d.has("2"):
		n = 2
	case d.has("4"):
		n = 4
	}
	var rows [4][8][8]uint16
	trans := d.has("MT88")
	for lane := 0; lane < warpSize; lane++ {
		g, t := lane/4, lane%4
		for j := 0; j < n; j++ {
			v := s.get(w, f, &d.src[1], lane, j)
			lo, hi := uint16(v), uint16(v>>16)
			if trans {
				rows[j][2*t][g], rows[j][2*t+1][g] = lo, hi
			} else {
				rows[j][g][2*t], rows[j][g][2*t+1] = lo, hi
			}
		}
	}
	for j := 0; j < n; j++ {
		for r := 0; r < 8; r++ {
			b, err := s.resolve(w, f, d, &d.src[0], 8*j+r, 16, "store")
			if err != nil {
				return err
			}
			for c := 0; c < 8; c++ {
				putLE(b[2*c:], uint64(rows[j][r][c]), 2)
			}
		}
	}
	advance(f, mask)
	return nil
}

// mmaKind is an element type of a fragment.
type mmaKind uint8

const (
	mkF16 mmaKind = iota
	mkBF16
	mkTF32
	mkF32
	mkF64
	mkS8
	mkU8
	mkS32
	mkS4
	mkU4
	mkB1
	mkE4M3
	mkE5M2
)

// perWord is the number of elements a 32-bit register holds (0 for f64,
// whose element takes two).
func (k mmaKind) perWord() int {
	switch k {
	case mkF16, mkBF16:
		return 2
	case mkS8, mkU8, mkE4M3, mkE5M2:
		return 4
	case mkS4, mkU4:
		return 8
	case mkB1:
		return 32
	case mkF64:
		return 0
	}
	return 1
}

// mmaConfig is a decoded HMMA/IMMA/DMMA.
type mmaConfig struct {
	m, k       int // rows of A and D (16 or 8), the reduction depth
	a, b, c, d mmaKind
	sat        bool
	xor        bool // BMMA: XOR instead of AND before the population count
}

func decodeMMA(d *dinst) mmaConfig {
	var cfg mmaConfig
	mods := d.in.Mods
	switch mods[0] {
	case "16816":
		cfg.m, cfg.k = 16, 16
	case "1688":
		cfg.m, cfg.k = 16, 8
	case "1684":
		cfg.m, cfg.k = 16, 4
	case "16832":
		cfg.m, cfg.k = 16, 32
	case "8816":
		cfg.m, cfg.k = 8, 16
	case "884":
		cfg.m, cfg.k = 8, 4
	case "8832":
		cfg.m, cfg.k = 8, 32
	case "16864":
		cfg.m, cfg.k = 16, 64
	case "88128":
		cfg.m, cfg.k = 8, 128
	case "168128":
		cfg.m, cfg.k = 16, 128
	case "168256":
		cfg.m, cfg.k = 16, 256
	}
	kind := func(name string) mmaKind {
		return map[string]mmaKind{"S8": mkS8, "U8": mkU8, "S4": mkS4, "U4": mkU4, "E4M3": mkE4M3, "E5M2": mkE5M2}[name]
	}
	switch d.op {
	case ori.OpDMMA:
		cfg.a, cfg.b, cfg.c, cfg.d = mkF64, mkF64, mkF64, mkF64
	case ori.OpIMMA:
		cfg.a, cfg.b, cfg.c, cfg.d = kind(mods[1]), kind(mods[2]), mkS32, mkS32
		cfg.sat = d.has("SAT")
	case ori.OpBMMA:
		cfg.a, cfg.b, cfg.c, cfg.d = mkB1, mkB1, mkS32, mkS32
		cfg.xor = d.has("XOR")
	case ori.OpQMMA:
		// QMMA.<16832|16816>.<F32|F16>.<A type>.<B type>
		cfg.a, cfg.b, cfg.c, cfg.d = kind(mods[2]), kind(mods[3]), mkF32, mkF32
		if mods[1] == "F16" {
			cfg.c, cfg.d = mkF16, mkF16
		}
	default:
		cfg.a, cfg.d = mkF16, mkF32
		if d.has("F16") {
			cfg.d = mkF16
		}
		switch {
		case d.has("BF16"):
			cfg.a = mkBF16
		case d.has("TF32"):
			cfg.a = mkTF32
		}
		cfg.b, cfg.c = cfg.a, cfg.d
	}
	return cfg
}

// mmaElem reads element (row, col) of a fragment operand from the lane
// and register the layout puts it in. which is 'A', 'B' or 'C'.
func (s *machine) mmaElem(w *warp, f *frame, o *opnd, which byte, k mmaKind, m, row, col int) uint64 {
	if k == mkF64 {
		// m8n8k4: A (g, t), B (t, g), C (g, 2t+i), one element per
		// word pair.
		var lane, reg int
		switch which {
		case 'A':
			lane = row*4 + col
		case 'B':
			lane = col*4 + row
		default:
			lane, reg = row*4+col/2, col%2
		}
		return uint64(s.get(w, f, o, lane, 2*reg)) | uint64(s.get(w, f, o, lane, 2*reg+1))<<32
	}
	e := k.perWord()
	var lane, reg, idx int
	switch which {
	case 'A':
		g := row % 8
		t := (col % (4 * e)) / e
		lane, reg, idx = g*4+t, row/8+2*(col/(4*e)), col%e
	case 'B':
		t := (row % (4 * e)) / e
		lane, reg, idx = col*4+t, row/(4*e), row%e
	default:
		g, t := row%8, col/2
		if e == 2 {
			lane, reg, idx = g*4+t, row/8, col%2
		} else {
			lane, reg = g*4+t, 2*(row/8)+col%2
		}
	}
	v := s.get(w, f, o, lane, reg)
	bitsPer := 32 / e
	v >>= uint(bitsPer * idx)
	if bitsPer < 32 {
		v &= 1<<uint(bitsPer) - 1
	}
	return uint64(v)
}

// setMMAElem writes element (row, col) of the D fragment.
func (s *machine) setMMAElem(w *warp, f *frame, o *opnd, k mmaKind, row, col int, v uint64) {
	g, t := row%8, col/2
	switch k {
	case mkF64:
		lane, reg := row*4+col/2, col%2
		s.set(w, f, o, lane, 2*reg, uint32(v))
		s.set(w, f, o, lane, 2*reg+1, uint32(v>>32))
	case mkF16:
		lane, reg := g*4+t, row/8
		old := s.get(w, f, o, lane, reg)
		sh := uint(16 * (col % 2))
		s.set(w, f, o, lane, reg, old&^(0xffff<<sh)|uint32(v&0xffff)<<sh)
	default:
		s.set(w, f, o, g*4+t, 2*(row/8)+col%2, uint32(v))
	}
}

// execMMA: HMMA/IMMA/DMMA d = a * b + c over the whole warp.
func execMMA(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	if err := s.fullWarp(w, f, d, mask); err != nil {
		return err
	}
	cfg := decodeMMA(d)
	a := make([][]uint64, cfg.m)
	for i := range a {
		a[i] = make([]uint64, cfg.k)
		for kk := range a[i] {
			a[i][kk] = s.mmaElem(w, f, &d.src[0], 'A', cfg.a, cfg.m, i, kk)
		}
	}
	b := make([][]uint64, cfg.k)
	for kk := range b {
		b[kk] = make([]uint64, 8)
		for j := range b[kk] {
			b[kk][j] = s.mmaElem(w, f, &d.src[1], 'B', cfg.b, cfg.m, kk, j)
		}
	}
	// Read all of C before writing D: they may share registers.
	c := make([][]uint64, cfg.m)
	for i := range c {
		c[i] = make([]uint64, 8)
		for j := range c[i] {
			c[i][j] = s.mmaElem(w, f, &d.src[2], 'C', cfg.c, cfg.m, i, j)
		}
	}
	res := make([][]uint64, cfg.m)
	for i := range res {
		res[i] = make([]uint64, 8)
		for j := 0; j < 8; j++ {
			switch cfg.d {
			case mkS32:
				if cfg.a == mkB1 {
					res[i][j] = uint64(mmaBits(cfg, a[i], b, j, int32(c[i][j])))
					break
				}
				res[i][j] = uint64(mmaInt(cfg, a[i], b, j, int32(c[i][j])))
			case mkF64:
				res[i][j] = mmaF64(a[i], b, j, c[i][j])
			default:
				res[i][j] = uint64(mmaFloat(cfg, a[i], b, j, c[i][j]))
			}
		}
	}
	for i := range res {
		for j := range res[i] {
			s.setMMAElem(w, f, &d.dst[0], cfg.d, i, j, res[i][j])
		}
	}
	advance(f, mask)
	return nil
}

// mmaInt is row a times column j of b plus c in 32-bit integers: the
// products and their sum are exact, the result wraps modulo 2^32, or with
// .satfinite (SAT) clamps to the s32 range.
func mmaInt(cfg mmaConfig, a []uint64, b [][]uint64, j int, c int32) int32 {
	sum := int64(c)
	val := func(v uint64, k mmaKind) int64 {
		switch k {
		case mkS8:
			return int64(int8(v))
		case mkS4:
			return int64(int8(v<<4)) >> 4
		}
		return int64(v) // u8, u4: mmaElem masked the element's bits
	}
	for kk := range a {
		sum += val(a[kk], cfg.a) * val(b[kk][j], cfg.b)
	}
	if cfg.sat {
		switch {
		case sum > math.MaxInt32:
			return math.MaxInt32
		case sum < math.MinInt32:
			return math.MinInt32
		}
	}
	return int32(sum)
}

// mmaBits is BMMA's row a times column j of b plus c: the number of k
// where a and b are both 1 (AND.POPC) or differ (XOR.POPC), added to c
// modulo 2^32.
func mmaBits(cfg mmaConfig, a []uint64, b [][]uint64, j int, c int32) int32 {
	n := int32(0)
	for kk := range a {
		bit := a[kk] & b[kk][j]
		if cfg.xor {
			bit = a[kk] ^ b[kk][j]
		}
		n += int32(bit)
	}
	return c + n
}

// mmaF64 is DMMA's row a times column j of b plus c: a chain of fused
// multiply-adds in k order, each rounded to nearest even.
//
// Decision: the PTX manual gives .f64 mma IEEE double precision with .rn;
// the order of the four steps is not specified and unmeasured here, so
// orilab takes k = 0..3 starting from c. Any NaN result is the default
// NaN 0xfff8000000000000, as DFMA gives for invalid operations.
func mmaF64(a []uint64, b [][]uint64, j int, c uint64) uint64 {
	acc := math.Float64frombits(c)
	for kk := range a {
		acc = math.FMA(math.Float64frombits(a[kk]), math.Float64frombits(b[kk][j]), acc)
	}
	if math.IsNaN(acc) {
		return 0xfff8000000000000
	}
	return math.Float64bits(acc)
}

// mmaFloat is HMMA's and QMMA's row a times column j of b plus c, as f32
// bits (or f16 bits in the low half for an f16 D).
//
// Decision: QMMA (sm_89's e4m3/e5m2 mma) takes the HMMA model below; every
// fp8 value is an f16 value, so its products are exact too. Unmeasured:
// hwtruth has no sm_89 results, and an H100 has no QMMA (ptxas 13.0
// emulates it with two HMMAs there, lower/mma_narrow.go).
//
// Decision: the products are exact and the sum of the k products and c is
// formed exactly, then rounded once toward zero to f32; an f16 D is that
// f32 rounded to nearest even. Fasi, Higham, Mikaitis and Pranesh
// ("Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021) measured
// exact products and truncating (round-toward-zero) alignment and
// normalization on V100, T4 and A100; modelling the alignment truncation
// of each addend is left until hardware results for HMMA exist in
// ../shared/hwtruth. Where the exact sum fits in f32 (integer-valued
// inputs like ZLUDA's) every model agrees. tf32 inputs are f32 registers
// whose low 13 fraction bits the unit ignores. A NaN operand or an
// invalid operation (inf*0, inf-inf) gives the canonical NaN 0x7fffffff;
// a sum that overflows f32 gives an infinity of its sign.
func mmaFloat(cfg mmaConfig, a []uint64, b [][]uint64, j int, c uint64) uint32 {
	toF64 := func(v uint64, k mmaKind) float64 {
		switch k {
		case mkF16:
			return float64(math.Float32frombits(fp.F16toF32(uint16(v))))
		case mkBF16:
			return float64(math.Float32frombits(uint32(v) << 16))
		case mkTF32:
			return float64(math.Float32frombits(uint32(v) &^ 0x1fff))
		case mkE4M3:
			return float64(math.Float32frombits(fp.F16toF32(e4m3ToF16(uint8(v)))))
		case mkE5M2:
			return float64(math.Float32frombits(fp.F16toF32(uint16(v) << 8)))
		}
		return float64(math.Float32frombits(uint32(v)))
	}
	terms := make([]float64, 0, len(a)+1)
	terms = append(terms, toF64(c, cfg.c))
	for kk := range a {
		// f16, bf16, tf32 and fp8 products have at most 22 significant bits
		// and stay in float64's exponent range: exact.
		terms = append(terms, toF64(a[kk], cfg.a)*toF64(b[kk][j], cfg.b))
	}
	var r uint32
	var posInf, negInf, nan bool
	for _, x := range terms {
		switch {
		case math.IsNaN(x):
			nan = true
		case math.IsInf(x, 1):
			posInf = true
		case math.IsInf(x, -1):
			negInf = true
		}
	}
	switch {
	case nan || posInf && negInf:
		r = 0x7fffffff
	case posInf:
		r = 0x7f800000
	case negInf:
		r = 0xff800000
	default:
		r = sumToF32RZ(terms)
	}
	if cfg.d == mkF16 {
		return uint32(fp.F32toF16(r, fp.RN, false))
	}
	return r
}

// sumToF32RZ returns the exact sum of finite terms rounded toward zero to
// f32 (subnormal results included); an exact zero is +0 unless every term
// is -0. A magnitude at or above 2^128 gives an infinity.
func sumToF32RZ(terms []float64) uint32 {
	sum := new(big.Float).SetPrec(2200)
	allNegZero := true
	for _, x := range terms {
		if x != 0 || !math.Signbit(x) {
			allNegZero = false
		}
		sum.Add(sum, new(big.Float).SetFloat64(x))
	}
	if sum.Sign() == 0 {
		if allNegZero {
			return 0x80000000
		}
		return 0
	}
	var sign uint32
	if sum.Sign() < 0 {
		sign = 1 << 31
		sum.Neg(sum)
	}
	exp := sum.MantExp(nil) // sum = mant * 2^exp, mant in [0.5, 1)
	if exp > 128 {
		return sign | 0x7f800000
	}
	// Keep 24 significant bits, or fewer for subnormals (the unit is
	// 2^-149), truncating.
	keep := 24
	if exp-24 < -149 {
		keep = exp + 149
	}
	if keep <= 0 {
		return sign
	}
	scaled := new(big.Float).SetMantExp(sum, keep-exp) // in [2^(keep-1), 2^keep)
	q, _ := scaled.Int(nil)                            // truncates toward zero
	v := new(big.Float).SetMantExp(new(big.Float).SetInt(q), exp-keep)
	f, _ := v.Float32()
	if math.IsInf(float64(f), 0) {
		return sign | 0x7f800000
	}
	return sign | math.Float32bits(f)&0x7fffffff
}
