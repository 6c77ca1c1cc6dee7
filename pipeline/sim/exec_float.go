package sim

import (
	"fmt"
	"math/bits"

	"orilab/pipeline/ori"
	"orilab/pipeline/sim/fp"
)

func init() {
	execTable[ori.OpFADD] = execF32Arith
	execTable[ori.OpFMUL] = execF32Arith
	execTable[ori.OpFFMA] = execF32Arith
	execTable[ori.OpFMNMX] = execFMNMX
	execTable[ori.OpFSETP] = execFSETP
	execTable[ori.OpDSETP] = execFSETP
	execTable[ori.OpFSEL] = execSEL
	execTable[ori.OpFSET] = execFSET
	execTable[ori.OpMUFU] = execMUFU
	execTable[ori.OpFRND] = execFRND
	execTable[ori.OpF2F] = execF2F
	execTable[ori.OpF2I] = execF2I
	execTable[ori.OpI2F] = execI2F
	execTable[ori.OpF2FP] = execF2FP
	execTable[ori.OpDADD] = execF64Arith
	execTable[ori.OpDMUL] = execF64Arith
	execTable[ori.OpDDIV] = execDDIV
	execTable[ori.OpDSQRT] = execDDIV
	execTable[ori.OpDFMA] = execF64Arith
}

// rounding returns the rounding mode modifier (RN when absent).
func rounding(d *dinst) fp.Round {
	switch {
	case d.has("RZ"):
		return fp.RZ
	case d.has("RM"):
		return fp.RM
	case d.has("RP"):
		return fp.RP
	}
	return fp.RN
}

// f32 reads an f32 source with |x| and -x applied to the sign bit.
func (s *machine) f32(w *warp, f *frame, o *opnd, lane int) uint32 {
	v := s.get(w, f, o, lane, 0)
	if o.abs {
		v &^= 1 << 31
	}
	if o.neg {
		v ^= 1 << 31
	}
	return v
}

// f64 reads an f64 source (a pair, or an f64 immediate).
func (s *machine) f64(w *warp, f *frame, o *opnd, lane int) uint64 {
	var v uint64
	switch {
	case o.kind == okImm && o.fk == ori.ImmF32:
		v = fp.F32toF64(uint32(o.imm), false)
	case o.kind == okImm && o.fk == ori.ImmInt:
		v = uint64(int64(o.imm))
	default:
		v = s.get64(w, f, o, lane)
	}
	if v&^(1<<63) > 0x7ff0000000000000 {
		// Decision: .neg and .abs do not touch a NaN operand of the f64
		// unit. The H100 returned the NaN with its own sign from
		// sub.f64 x, NaN (DADD x, -NaN: fuzz5550023, fuzz5550492),
		// sub.f64 NaN, NaN (fuzz5550152, fuzz5550626) and neg.f64 NaN
		// (DADD -RZ, -NaN: fuzz5550071, fuzz5550436).
		return v
	}
	if o.abs {
		v &^= 1 << 63
	}
	if o.neg {
		v ^= 1 << 63
	}
	return v
}

func execF32Arith(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := rounding(d)
	ftz := d.has("FTZ")
	sat := d.has("SAT")
	s.each(w, f, d, mask, func(lane int) {
		a := s.f32(w, f, &d.src[0], lane)
		b := s.f32(w, f, &d.src[1], lane)
		var r uint32
		switch d.op {
		case ori.OpFADD:
			r = fp.Add32(a, b, rm, ftz)
		case ori.OpFMUL:
			r = fp.Mul32(a, b, rm, ftz)
		default:
			r = fp.Fma32(a, b, s.f32(w, f, &d.src[2], lane), rm, ftz)
		}
		if sat {
			r = fp.Sat32(r)
		}
		s.set(w, f, &d.dst[0], lane, 0, r)
	})
	return nil
}

func execF64Arith(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := rounding(d)
	s.each(w, f, d, mask, func(lane int) {
		a := s.f64(w, f, &d.src[0], lane)
		b := s.f64(w, f, &d.src[1], lane)
		var r uint64
		switch d.op {
		case ori.OpDADD:
			r = fp.Add64(a, b, rm)
		case ori.OpDMUL:
			r = fp.Mul64(a, b, rm)
		default:
			r = fp.Fma64(a, b, s.f64(w, f, &d.src[2], lane), rm)
		}
		s.set64(w, f, &d.dst[0], lane, r)
	})
	return nil
}

// execDDIV: DDIV.<rnd> d = a, b and DSQRT.<rnd> d = a, the f64 division
// and square root the lowering keeps whole for the optimizer
// (SEMANTICS.md): IEEE results rounded by rnd, which is what their
// expansions (pipeline/lower flDivF64, flSqrtF64) compute.
func execDDIV(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := rounding(d)
	s.each(w, f, d, mask, func(lane int) {
		a := s.f64(w, f, &d.src[0], lane)
		var r uint64
		if d.op == ori.OpDSQRT {
			r = fp.Sqrt64(a, rm)
		} else if b := s.f64(w, f, &d.src[1], lane); a&^(1<<63) > 0x7ff0000000000000 {
			// Decision: a NaN dividend gives itself, quieted, even when
			// b is a NaN too (fp.Div64 would take b's, in the order of
			// DMUL): ptxas 13.0's division tests a first (SASS:
			// DSETP.NAN a, then LOP3 a.hi | 0x80000), the expansion
			// (pipeline/lower flDivF64Slow) does the same, and the H100
			// agrees (fuzz5551939 in ../shared/hwtruth).
			r = a | 1<<51
		} else {
			r = fp.Div64(a, b, rm)
		}
		s.set64(w, f, &d.dst[0], lane, r)
	})
	return nil
}

// execFMNMX: p ? min(a, b) : max(a, b) with IEEE minNum/maxNum NaN
// handling (.NAN propagates NaN); .FTZ flushes denormal inputs.
func execFMNMX(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	nan := d.has("NAN")
	ftz := d.has("FTZ")
	p := s.pred(w, f, &d.src[2])
	s.each(w, f, d, mask, func(lane int) {
		a := s.f32(w, f, &d.src[0], lane)
		b := s.f32(w, f, &d.src[1], lane)
		if ftz {
			a, b = fp.Flush32(a), fp.Flush32(b)
		}
		var r uint32
		if p&(1<<lane) != 0 {
			r = fp.Min32(a, b, nan)
		} else {
			r = fp.Max32(a, b, nan)
		}
		s.set(w, f, &d.dst[0], lane, 0, r)
	})
	return nil
}

var fcmpNames = map[string]fp.Cmp{
	"LT": fp.LT, "EQ": fp.EQ, "LE": fp.LE, "GT": fp.GT, "NE": fp.NE, "GE": fp.GE,
	"LTU": fp.LTU, "EQU": fp.EQU, "LEU": fp.LEU, "GTU": fp.GTU, "NEU": fp.NEU, "GEU": fp.GEU,
	"NUM": fp.NUM, "NAN": fp.NAN,
}

func fcmpOf(d *dinst) (fp.Cmp, bool) {
	for _, m := range d.in.Mods {
		if c, ok := fcmpNames[m]; ok {
			return c, true
		}
	}
	return 0, false
}

// execFSETP: FSETP/DSETP.<cmp>.<bool>[.FTZ] p, q = a, b, c; t = a <cmp> b,
// p = t <bool> c, q = !t <bool> c.
func execFSETP(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	cmp, ok := fcmpOf(d)
	if !ok {
		return s.fault(w, f, d, mask, "no comparison modifier")
	}
	ftz := d.has("FTZ")
	comb := boolOp(d)
	eff := s.guardMask(w, f, d, mask)
	var t uint32
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		var r bool
		if d.op == ori.OpDSETP {
			r = fp.Cmp64(s.f64(w, f, &d.src[0], lane), s.f64(w, f, &d.src[1], lane), cmp)
		} else {
			r = fp.Cmp32(s.f32(w, f, &d.src[0], lane), s.f32(w, f, &d.src[1], lane), cmp, ftz)
		}
		if r {
			t |= 1 << lane
		}
	}
	c := s.pred(w, f, &d.src[2])
	s.setPred(w, f, &d.dst[0], eff, comb(t, c))
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, comb(^t, c))
	}
	advance(f, mask)
	return nil
}

// execFSET: FSET[.BF].<cmp>.<bool>[.FTZ] d = a, b, p: (a <cmp> b) <bool> p
// as 1.0f/0.0f with .BF, else 0xffffffff/0.
func execFSET(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	cmp, ok := fcmpOf(d)
	if !ok {
		return s.fault(w, f, d, mask, "no comparison modifier")
	}
	ftz := d.has("FTZ")
	comb := boolOp(d)
	bf := d.has("BF")
	p := s.pred(w, f, &d.src[2])
	s.each(w, f, d, mask, func(lane int) {
		var t uint32
		if fp.Cmp32(s.f32(w, f, &d.src[0], lane), s.f32(w, f, &d.src[1], lane), cmp, ftz) {
			t = 1
		}
		r := comb(t, p>>lane&1) & 1
		switch {
		case bf && r != 0:
			s.set(w, f, &d.dst[0], lane, 0, 0x3f800000)
		case bf:
			s.set(w, f, &d.dst[0], lane, 0, 0)
		default:
			s.set(w, f, &d.dst[0], lane, 0, -r)
		}
	})
	return nil
}

func execMUFU(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	if d.has("F16") {
		// MUFU.<EX2|TANH>.F16: the low half of the operand in, the
		// result in the low half, the high half zero (SEMANTICS.md).
		var fn16 func(uint16) uint16
		switch {
		case d.has("EX2"):
			fn16 = fp.Ex2SFU16
		case d.has("TANH"):
			fn16 = fp.TanhSFU16
		default:
			return s.fault(w, f, d, mask, "unknown MUFU.F16 function %s", modsString(d))
		}
		s.each(w, f, d, mask, func(lane int) {
			s.set(w, f, &d.dst[0], lane, 0, uint32(fn16(uint16(s.f32(w, f, &d.src[0], lane)))))
		})
		return nil
	}
	var fn32 func(uint32) uint32
	var fn64 func(uint64) uint64
	var name string // the function, for Options.MUFU
	switch {
	case d.has("RCP64H"):
		fn64 = fp.Rcp64HSFU
	case d.has("RSQ64H"):
		fn64 = fp.Rsq64HSFU
	case d.has("RCP"):
		fn32, name = fp.RcpSFU32, "RCP"
	case d.has("RSQ"):
		fn32, name = fp.RsqSFU32, "RSQ"
	case d.has("SQRT"):
		fn32, name = fp.SqrtSFU32, "SQRT"
	case d.has("EX2"):
		fn32, name = fp.Ex2SFU32, "EX2"
	case d.has("LG2"):
		fn32, name = fp.Lg2SFU32, "LG2"
	case d.has("SIN"):
		fn32, name = fp.SinRadSFU32, "SIN"
	case d.has("COS"):
		fn32, name = fp.CosRadSFU32, "COS"
	case d.has("TANH"):
		fn32, name = fp.TanhSFU32, "TANH"
	default:
		return s.fault(w, f, d, mask, "unknown MUFU function %s", modsString(d))
	}
	s.each(w, f, d, mask, func(lane int) {
		if fn64 != nil {
			// The 64-bit forms read the high word of an f64 and produce
			// the high word of the result (the low word is zero).
			a := uint64(s.f32(w, f, &d.src[0], lane)) << 32
			s.set(w, f, &d.dst[0], lane, 0, uint32(fn64(a)>>32))
			return
		}
		x := s.f32(w, f, &d.src[0], lane)
		y := fn32(x)
		if s.mufu != nil {
			y = s.mufu(name, x, y)
		}
		s.set(w, f, &d.dst[0], lane, 0, y)
	})
	return nil
}

// execFRND: FRND[.F64][.FTZ].RND d = a: round to an integral value in the
// same format.
func execFRND(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := rounding(d)
	ftz := d.has("FTZ")
	s.each(w, f, d, mask, func(lane int) {
		if d.has("F64") {
			s.set64(w, f, &d.dst[0], lane, fp.Rint64(s.f64(w, f, &d.src[0], lane), rm))
			return
		}
		s.set(w, f, &d.dst[0], lane, 0, fp.Rint32(s.f32(w, f, &d.src[0], lane), rm, ftz))
	})
	return nil
}

// typesOf returns the destination and source type modifiers of a
// conversion (the first two of F16 BF16 F32 F64 U32 S32 U64 S64).
func typesOf(d *dinst) (dst, src string) {
	var ts []string
	for _, m := range d.in.Mods {
		switch m {
		case "F16", "BF16", "F32", "F64", "U32", "S32", "U64", "S64", "U16", "S16", "U8", "S8":
			ts = append(ts, m)
		}
	}
	if len(ts) > 0 {
		dst = ts[0]
	}
	if len(ts) > 1 {
		src = ts[1]
	}
	return
}

func execF2F(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := rounding(d)
	ftz := d.has("FTZ")
	dt, st := typesOf(d)
	var err error
	s.each(w, f, d, mask, func(lane int) {
		switch {
		case dt == "F32" && st == "F16":
			s.set(w, f, &d.dst[0], lane, 0, fp.F16toF32(uint16(s.f32(w, f, &d.src[0], lane))))
		case dt == "F64" && st == "F32":
			s.set64(w, f, &d.dst[0], lane, fp.F32toF64(s.f32(w, f, &d.src[0], lane), ftz))
		case dt == "F32" && st == "F64":
			s.set(w, f, &d.dst[0], lane, 0, fp.F64toF32(s.f64(w, f, &d.src[0], lane), rm, ftz))
		case dt == "F16" && st == "F32":
			s.set(w, f, &d.dst[0], lane, 0, uint32(fp.F32toF16(s.f32(w, f, &d.src[0], lane), rm, ftz)))
		case dt == "BF16" && st == "F32":
			a := s.f32(w, f, &d.src[0], lane)
			if ftz {
				a = fp.Flush32(a)
			}
			s.set(w, f, &d.dst[0], lane, 0, uint32(fp.F32toBF16(a, rm)))
		case dt == "F16" && st == "F64":
			s.set(w, f, &d.dst[0], lane, 0, uint32(fp.F64toF16(s.f64(w, f, &d.src[0], lane), rm)))
		case dt == "BF16" && st == "F64":
			s.set(w, f, &d.dst[0], lane, 0, uint32(fp.F64toBF16(s.f64(w, f, &d.src[0], lane), rm)))
		default:
			err = fmt.Errorf("unsupported conversion %s", d.in.Name())
		}
	})
	if err != nil {
		return s.fault(w, f, d, mask, "%v", err)
	}
	return nil
}

// execF2I: F2I.<D>.<S>[.FTZ][.TRUNC|.FLOOR|.CEIL] d = a; round (nearest
// even by default), saturate to D's range, NaN gives 0.
func execF2I(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := fp.RN
	switch {
	case d.has("TRUNC"):
		rm = fp.RZ
	case d.has("FLOOR"):
		rm = fp.RM
	case d.has("CEIL"):
		rm = fp.RP
	}
	ftz := d.has("FTZ")
	dt, st := typesOf(d)
	if dt == "" {
		dt = "S32"
	}
	if st == "" {
		st = "F32"
	}
	signed := dt[0] == 'S'
	width := 32
	if dt == "U64" || dt == "S64" {
		width = 64
	}
	s.each(w, f, d, mask, func(lane int) {
		var v uint64
		switch st {
		case "F64":
			v = fp.F64toInt(s.f64(w, f, &d.src[0], lane), rm, signed, width)
		case "F16":
			v = fp.F16toInt(uint16(s.f32(w, f, &d.src[0], lane)), rm, signed, width)
		default:
			v = fp.F32toInt(s.f32(w, f, &d.src[0], lane), rm, signed, width, ftz)
		}
		if width == 64 {
			s.set64(w, f, &d.dst[0], lane, v)
		} else {
			s.set(w, f, &d.dst[0], lane, 0, uint32(v))
		}
	})
	return nil
}

// execI2F: I2F.<D>.<S>.RND d = a.
func execI2F(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := rounding(d)
	dt, st := typesOf(d)
	if dt == "" {
		dt = "F32"
	}
	if st == "" {
		st = "S32"
	}
	signed := st[0] == 'S'
	width := 32
	switch st {
	case "U64", "S64":
		width = 64
	case "U16", "S16":
		width = 16
	case "U8", "S8":
		width = 8
	}
	s.each(w, f, d, mask, func(lane int) {
		var v uint64
		if width == 64 {
			v = s.get64(w, f, &d.src[0], lane)
		} else {
			v = uint64(s.ival(w, f, &d.src[0], lane))
			if width < 32 {
				v &= 1<<width - 1
			}
		}
		switch dt {
		case "F64":
			s.set64(w, f, &d.dst[0], lane, fp.IntToF64(v, signed, width, rm))
		case "F16":
			s.set(w, f, &d.dst[0], lane, 0, uint32(fp.IntToF16(v, signed, width, rm)))
		case "BF16":
			s.set(w, f, &d.dst[0], lane, 0, uint32(fp.IntToBF16(v, signed, width, rm)))
		default:
			s.set(w, f, &d.dst[0], lane, 0, fp.IntToF32(v, signed, width, rm))
		}
	})
	return nil
}

// execF2FP packs two converted values (see the Semantics block of
// pipeline/lower/cvt.go): PACK_AB puts a in the high half and b in the low.
func execF2FP(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := fp.RN
	if d.has("RZ") {
		rm = fp.RZ
	}
	var err error
	s.each(w, f, d, mask, func(lane int) {
		a := s.f32(w, f, &d.src[0], lane)
		b := s.f32(w, f, &d.src[1], lane)
		switch {
		case d.has("UNPACK_B") && d.has("E4M3"):
			lo := e4m3ToF16(uint8(b))
			hi := e4m3ToF16(uint8(b >> 8))
			s.set(w, f, &d.dst[0], lane, 0, uint32(hi)<<16|uint32(lo))
		case d.has("UNPACK_B") && d.has("E5M2"):
			// Exact: an e5m2 value is the f16 with the same high byte.
			s.set(w, f, &d.dst[0], lane, 0, uint32(b>>8&0xff)<<24|uint32(b&0xff)<<8)
		case d.has("E4M3") || d.has("E5M2"):
			conv := fmtE4M3.fromF32
			if d.has("E5M2") {
				conv = fmtE5M2.fromF32
			}
			s.set(w, f, &d.dst[0], lane, 0, uint32(conv(a))<<8|uint32(conv(b)))
		case d.has("TF32"):
			s.set(w, f, &d.dst[0], lane, 0, f32ToTF32(b, rm == fp.RZ, d.has("RELU")))
		case d.has("BF16"):
			s.set(w, f, &d.dst[0], lane, 0, uint32(fp.F32toBF16(a, rm))<<16|uint32(fp.F32toBF16(b, rm)))
		case d.has("PACK_AB"):
			s.set(w, f, &d.dst[0], lane, 0, uint32(fp.F32toF16(a, rm, false))<<16|uint32(fp.F32toF16(b, rm, false)))
		default:
			err = fmt.Errorf("unsupported %s", d.in.Name())
		}
	})
	if err != nil {
		return s.fault(w, f, d, mask, "%v", err)
	}
	return nil
}

// floatAtomicAdd returns the read-modify-write of a floating-point atomic
// add of type t (see the Semantics block of pipeline/lower/atomic.go).
func floatAtomicAdd(t string) atomOp {
	switch t {
	case "F32":
		return func(o, b, _ uint64) uint64 { return uint64(fp.Add32(uint32(o), uint32(b), fp.RN, false)) }
	case "F32FTZ":
		return func(o, b, _ uint64) uint64 { return uint64(fp.Add32(uint32(o), uint32(b), fp.RN, true)) }
	case "F64":
		return func(o, b, _ uint64) uint64 { return fp.Add64(o, b, fp.RN) }
	case "F16x2":
		return func(o, b, _ uint64) uint64 {
			lo := fp.Add16(uint16(o), uint16(b), fp.RN, false)
			hi := fp.Add16(uint16(o>>16), uint16(b>>16), fp.RN, false)
			return uint64(hi)<<16 | uint64(lo)
		}
	case "BF16x2":
		return func(o, b, _ uint64) uint64 {
			lo := fp.AddBF16(uint16(o), uint16(b), fp.RN)
			hi := fp.AddBF16(uint16(o>>16), uint16(b>>16), fp.RN)
			return uint64(hi)<<16 | uint64(lo)
		}
	case "F16":
		return func(o, b, _ uint64) uint64 { return uint64(fp.Add16(uint16(o), uint16(b), fp.RN, false)) }
	case "BF16":
		return func(o, b, _ uint64) uint64 { return uint64(fp.AddBF16(uint16(o), uint16(b), fp.RN)) }
	}
	return nil
}

func errUnsupportedAtomic(d *dinst) error {
	return fmt.Errorf("the simulator does not implement the atomic %s", d.in.Name())
}

// f32ToTF32 rounds the f32 bit pattern x to tf32 (the f32 format with the
// low 13 fraction bits zero), to nearest even or toward zero, for
// F2FP.TF32.F32.PACK_B (cvt.rn/.rz{.relu}.tf32.f32).
//
// Decision: a NaN gives the canonical NaN 0x7fffffff, and .relu takes
// negative values (and -0) to +0, as F2FP's f16/bf16 forms do in this
// simulator; no hardware measurement of the tf32 form exists here.
func f32ToTF32(x uint32, rz, relu bool) uint32 {
	if x&0x7fffffff > 0x7f800000 {
		return 0x7fffffff
	}
	if relu && x>>31 != 0 {
		return 0
	}
	if !rz {
		// Adding 0xfff plus the kept lsb rounds half to even; a carry
		// into the exponent is the correct result, up to infinity.
		x += 0xfff + (x>>13)&1
	}
	return x &^ 0x1fff
}
