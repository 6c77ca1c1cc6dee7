package lower

import (
	"fmt"
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// The sm_80-style tensor-core instructions: ldmatrix and mma.sync. Both
// are warp-wide: every lane contributes a fragment of each matrix in its
// registers, in the per-lane layouts of the PTX manual (the simulator's
// exec_mma.go holds them; the lowering only moves registers). A fragment
// becomes one aligned register tuple of 1, 2 or 4 words, as HMMA, IMMA,
// DMMA and LDSM read and write them on the hardware, with MOVs between
// the PTX registers and the tuple words that copy propagation and the
// allocator's coalescing remove where they can.

func init() {
	register(lowerLdmatrix, "ldmatrix", "stmatrix")
	register(lowerMma, "mma")
}

// lowerLdmatrix lowers
//
//	ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 d, [a];
//	stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 [a], r;
//
// to LDSM/STSM.16.{M88,MT88}[.2|.4], as ptxas 13.0 does (LDSM.16.MT88.4
// for ZLUDA's ldmatrix_trans, STSM.16.M88.4 on sm_90). The front end
// admits stmatrix only on sm_90 and later; the m16n8 .b8 shapes (sm_100)
// are not lowered.
func lowerLdmatrix(c *fn, in *ptx.Instr) error {
	n := 0
	for _, m := range in.Mods {
		switch m {
		case ".x1":
			n = 1
		case ".x2":
			n = 2
		case ".x4":
			n = 4
		case ".sync", ".aligned", ".m8n8", ".trans", ".shared", ".shared::cta", ".b16":
		default:
			return c.l.unsupported(in.OpPos, "%s%s", in.Op, strings.Join(in.Mods, ""))
		}
	}
	if n == 0 || !in.HasMod(".m8n8") || !in.HasMod(".b16") {
		return c.l.unsupported(in.OpPos, "%s%s", in.Op, strings.Join(in.Mods, ""))
	}
	st := in.Op == "stmatrix"
	if len(in.Args) != 2 {
		if st {
			return c.l.errorf(in.OpPos, "stmatrix takes an address and a source")
		}
		return c.l.errorf(in.OpPos, "ldmatrix takes a destination and an address")
	}
	regArg, addrArg := in.Args[0], in.Args[1]
	if st {
		regArg, addrArg = in.Args[1], in.Args[0]
	}
	regs, err := c.destRegs(regArg, ".b32", n)
	if err != nil {
		return err
	}
	ref, err := c.address(addrArg, ".shared")
	if err != nil {
		return err
	}
	if ref.space != ".shared" || ref.op.Kind != ori.OpdMem {
		return c.l.errorf(addrArg.Pos, "%s needs a .shared address", in.Op)
	}
	layout := "M88"
	if in.HasMod(".trans") {
		layout = "MT88"
	}
	mods := []string{"16", layout}
	if n > 1 {
		// ptxas spells one matrix LDSM.16.M88, without a count.
		mods = append(mods, fmt.Sprint(n))
	}
	t := c.newReg(n)
	if st {
		for i, r := range regs {
			c.mov(t.Word(i), ori.R(r), 1)
		}
		c.emit(ori.OpSTSM, mods, nil, ref.op, ori.R(t))
		return nil
	}
	c.emit(ori.OpLDSM, mods, []ori.Operand{ori.R(t)}, ref.op)
	for i, d := range regs {
		c.mov(d, ori.R(t.Word(i)), 1)
	}
	return nil
}

// mmaShape is one mma.sync shape and type combination: the SASS opcode and
// modifiers, and the number of 32-bit words of each fragment per lane.
type mmaShape struct {
	op         ori.Opcode
	mods       []string
	a, b, c, d int    // words per lane
	at, ct     string // PTX element types of a/b and c/d registers
}

// mmaKey names a combination as "shape.dtype.atype.btype.ctype".
func mmaKey(shape, d, a, b, cc string) string { return shape + d + a + b + cc }

// mmaShapes lists the combinations lowered, with ptxas 13.0's spelling of
// each (HMMA.16816.F32 for m16n8k16 f32 += f16 * f16, .BF16 and .TF32
// naming the input type when it is not f16, IMMA.16832.S8.S8 with the
// signedness of a and b, DMMA.884).
var mmaShapes = func() map[string]mmaShape {
	m := map[string]mmaShape{}
	// ptxas 13.0 requires .dtype = .ctype for the m16n8 f16 shapes
	// (".dtype must be '.f16' when .ctype is '.f16'").
	for _, dc := range []string{".f16", ".f32"} {
		acc := map[string]int{".f16": 2, ".f32": 4}[dc]
		mods := func(k string) []string { return []string{k, strings.ToUpper(dc[1:])} }
		m[mmaKey(".m16n8k16", dc, ".f16", ".f16", dc)] = mmaShape{ori.OpHMMA, mods("16816"), 4, 2, acc, acc, ".f16", dc}
		m[mmaKey(".m16n8k8", dc, ".f16", ".f16", dc)] = mmaShape{ori.OpHMMA, mods("1688"), 2, 1, acc, acc, ".f16", dc}
	}
	m[mmaKey(".m16n8k16", ".f32", ".bf16", ".bf16", ".f32")] = mmaShape{ori.OpHMMA, []string{"16816", "F32", "BF16"}, 4, 2, 4, 4, ".bf16", ".f32"}
	m[mmaKey(".m16n8k8", ".f32", ".bf16", ".bf16", ".f32")] = mmaShape{ori.OpHMMA, []string{"1688", "F32", "BF16"}, 2, 1, 4, 4, ".bf16", ".f32"}
	m[mmaKey(".m16n8k8", ".f32", ".tf32", ".tf32", ".f32")] = mmaShape{ori.OpHMMA, []string{"1688", "F32", "TF32"}, 4, 2, 4, 4, ".tf32", ".f32"}
	m[mmaKey(".m16n8k4", ".f32", ".tf32", ".tf32", ".f32")] = mmaShape{ori.OpHMMA, []string{"1684", "F32", "TF32"}, 2, 1, 4, 4, ".tf32", ".f32"}
	m[mmaKey(".m8n8k4", ".f64", ".f64", ".f64", ".f64")] = mmaShape{ori.OpDMMA, []string{"884"}, 2, 2, 4, 4, ".f64", ".f64"}
	for _, a := range []string{".s8", ".u8"} {
		for _, b := range []string{".s8", ".u8"} {
			ab := []string{strings.ToUpper(a[1:]), strings.ToUpper(b[1:])}
			m[mmaKey(".m16n8k32", ".s32", a, b, ".s32")] = mmaShape{ori.OpIMMA, append([]string{"16832"}, ab...), 4, 2, 4, 4, a, ".s32"}
			m[mmaKey(".m16n8k16", ".s32", a, b, ".s32")] = mmaShape{ori.OpIMMA, append([]string{"16816"}, ab...), 2, 1, 4, 4, a, ".s32"}
			m[mmaKey(".m8n8k16", ".s32", a, b, ".s32")] = mmaShape{ori.OpIMMA, append([]string{"8816"}, ab...), 1, 1, 2, 2, a, ".s32"}
		}
	}
	return m
}()

// lowerMma lowers mma.sync.aligned.SHAPE.row.col{.satfinite}.D.A.B.C
// d, a, b, c for the shapes and types of mmaShapes, and hands the 4-bit,
// single-bit and fp8 forms to lowerMmaNarrow (mma_narrow.go).
func lowerMma(c *fn, in *ptx.Instr) error {
	shape, sat, bitOp := "", false, ""
	var ts []string
	for _, m := range in.Mods {
		switch {
		case m == ".sync" || m == ".aligned" || m == ".row" || m == ".col":
		case m == ".satfinite":
			sat = true
		case m == ".xor" || m == ".and":
			bitOp = m
		case m == ".popc" && bitOp != "":
		case strings.HasPrefix(m, ".m") && strings.Contains(m, "n") && strings.Contains(m, "k"):
			shape = m
		case isType(m) || m == ".s4" || m == ".u4" || m == ".b1" || m == ".e4m3" || m == ".e5m2":
			ts = append(ts, m)
		default:
			return c.l.unsupported(in.OpPos, "mma%s", strings.Join(in.Mods, ""))
		}
	}
	// The m16n8 shapes only exist as .row.col; m8n8k4 .f16 (the sm_70
	// quad-pair form) takes other layouts and is not lowered.
	if !in.HasMod(".row") || !in.HasMod(".col") || len(ts) != 4 {
		return c.l.unsupported(in.OpPos, "mma%s", strings.Join(in.Mods, ""))
	}
	if isNarrowMMAType(ts[1]) {
		return lowerMmaNarrow(c, in, shape, ts, sat, bitOp)
	}
	s, ok := mmaShapes[mmaKey(shape, ts[0], ts[1], ts[2], ts[3])]
	if !ok || sat && s.op != ori.OpIMMA || bitOp != "" {
		return c.l.unsupported(in.OpPos, "mma%s", strings.Join(in.Mods, ""))
	}
	if len(in.Args) != 4 {
		return c.l.errorf(in.OpPos, "mma takes four operands d, a, b, c")
	}
	mods := append([]string(nil), s.mods...)
	if sat {
		mods = append(mods, "SAT")
	}
	frag := func(o *ptx.Operand, words int, t string) (ori.Reg, error) {
		r := c.newReg(words)
		elems := []*ptx.Operand{o}
		if o.Kind == ptx.OpVec {
			elems = o.Elems
		}
		ew := wordsOf(t)
		if ew == 0 || t == ".f16" || t == ".bf16" || t == ".tf32" || t == ".s8" || t == ".u8" {
			ew = 1 // packed into .b32 registers
		}
		if len(elems)*ew != words {
			return r, c.l.errorf(o.Pos, "this mma operand needs %d registers, found %d", words/ew, len(elems))
		}
		for i, e := range elems {
			v, err := c.src(e, map[int]string{1: ".b32", 2: ".b64"}[ew])
			if err != nil {
				return r, err
			}
			for j := 0; j < ew; j++ {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(i*ew + j))}, word(v, j))
			}
		}
		return r, nil
	}
	a, err := frag(in.Args[1], s.a, s.at)
	if err != nil {
		return err
	}
	b, err := frag(in.Args[2], s.b, s.at)
	if err != nil {
		return err
	}
	cr, err := frag(in.Args[3], s.c, s.ct)
	if err != nil {
		return err
	}
	dt := ts[0]
	ew := 1
	if dt == ".f64" {
		ew = 2
	}
	dsts, err := c.destRegs(in.Args[0], map[int]string{1: ".b32", 2: ".b64"}[ew], s.d/ew)
	if err != nil {
		return err
	}
	d := c.newReg(s.d)
	c.emit(s.op, mods, []ori.Operand{ori.R(d)}, ori.R(a), ori.R(b), ori.R(cr))
	for i, r := range dsts {
		for j := 0; j < ew; j++ {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(j))}, ori.R(d.Word(i*ew+j)))
		}
	}
	return nil
}
