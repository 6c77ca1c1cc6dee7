package opt

// Floating-point constant folding: a sub-pass of the GeneralOptimize
// bundles, next to the integer folding of constfold.go.
//
// An f32 instruction whose sources are all known is rewritten in place
// (same ID and guard) into the constant it computes:
//
//	FADD / FMUL / FFMA [.RZ|.RM|.RP][.FTZ][.SAT] d = a, b[, c] -> MOV d = imm
//	FSETP.<cmp>.<bool>[.FTZ] p, q = a, b, c                -> PLOP3.LUT p, q = PT, PT, PT, lut, lut2
//	FCHK.DIVIDE p = a, b                                   -> PLOP3.LUT p, PT = PT, PT, PT, lut, 0x0
//	MUFU.RCP d = a, a zero, subnormal, infinite or NaN     -> MOV d = +-inf, +-0 or the canonical NaN
//
// A source is known when it is an integer or f32 immediate, RZ, or a
// virtual register word whose only definition in the function is an
// unguarded MOV of such an immediate (MUFU and FCHK take no immediate,
// so copy propagation leaves their operands in registers); '-' and
// '|..|' apply to the sign bit as the f32 units read them. The constant
// predicate combined by FSETP must be PT or !PT.
//
// The value is computed by pipeline/sim/fp, the simulator's
// floating-point unit, so a folded instruction gives bit for bit what the
// simulator (and, as far as sim/fp is measured, the GPU) computes for it.
// Decision: package opt imports sim/fp, a leaf with no orilab imports,
// rather than a second copy of IEEE rounding in four modes with .FTZ and
// .SAT; it does not import the simulator. MUFU.RCP is folded only where
// its result is exact by definition (rcp(+-0) = +-inf, rcp(+-inf) =
// +-0, NaN gives 0x7fffffff; a subnormal operand counts as zero): the
// approximation of other operands is the hardware's, which sim/fp models
// but which this pass does not commit to a constant.
//
// Why: a rounding-mode division or reciprocal of a constant (rcp.rm.f32
// of 0 in fuzz finding fixup-bar-sync-deadlock) lowers to MUFU.RCP, FCHK
// and a branch to an f64 slow path; with every operand known, the FCHK
// decides the branch, the slow path's selects become copies and the f64
// code dies. ptxas 13.0.88 folds that reciprocal to +inf (MOV R5,
// 0x7f800000) and uses 8 registers; orilab kept the slow path's f64
// temporaries, 18.
//
// Known limits: no f64, f16 or conversion folding; MUFU functions other
// than RCP are not folded.

import (
	"orilab/internal/keep"
	"orilab/pipeline/ori"
	"orilab/pipeline/sim/fp"
)

// fpKnown maps a virtual register word to the 32-bit immediate its only
// definition, an unguarded MOV, writes. It is built on the first lookup
// of a register operand.
type fpKnown struct {
	f *ori.Func
	m *fpKnownWords
}

// words returns the known MOVs of f, building them on the first call.
func (k *fpKnown) words() *fpKnownWords {
	if k.m == nil {
		k.m = fpKnownMovs(k.f)
	}
	return k.m
}

// drop releases the known MOVs (after an edit that may change them).
func (k *fpKnown) drop() {
	k.m.release()
	k.m = nil
}

// fpKnownWords is what fpKnownMovs found: for every virtual register word
// of the function, how often it is written and, for the 32-bit R words a
// MOV of a constant writes, that constant.
type fpKnownWords struct {
	t wordTable[fpWordDefs]
}

type fpWordDefs struct {
	defs  int32
	v     uint32
	isMov bool // a MOV of constant v writes the word
}

// get returns the constant of k when k's only definition is such a MOV.
func (k *fpKnownWords) get(w wkey) (uint32, bool) {
	d, ok := k.t.get(w)
	return d.v, ok && d.defs == 1 && d.isMov
}

// fpKnownPool keeps the tables of fpKnownMovs between calls: the bundle
// builds one up to twice a round, in every GeneralOptimize phase, and
// allocating dense tables sized by the function's register count each
// time cost more than the maps they replaced. (A pool, as functions
// compile concurrently.)
var fpKnownPool keep.Pool[fpKnownWords]

// release hands k back for another fpKnownMovs; k must not be used after.
func (k *fpKnownWords) release() {
	if k != nil {
		fpKnownPool.Put(k)
	}
}

// fpKnownMovs collects the words of f defined once, by an unguarded MOV
// of a 32-bit immediate or RZ. The caller releases the result.
func fpKnownMovs(f *ori.Func) *fpKnownWords {
	k := fpKnownPool.Get()
	k.t.reset()
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual {
					for i := 0; i < int(o.Reg.Words); i++ {
						w := wordKey(o.Reg, i)
						d, _ := k.t.get(w)
						d.defs++
						k.t.set(w, d)
					}
				}
			}
			if in.Op != ori.OpMOV || in.Guarded() || in.IsPhi() || len(in.Dsts) != 1 || len(in.Srcs) != 1 {
				continue
			}
			d := in.Dsts[0]
			if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassR || d.Reg.Words != 1 {
				continue
			}
			if v, ok := constVal(in.Srcs[0]); ok {
				w := wordKey(d.Reg, 0)
				x, _ := k.t.get(w)
				x.v, x.isMov = v, true
				k.t.set(w, x)
			}
		}
	}
	return k
}

// f32 returns the bits an f32 unit reads from o ('|..|' clears the sign,
// then '-' flips it), if known.
func (k *fpKnown) f32(o ori.Operand) (uint32, bool) {
	var v uint32
	switch {
	case o.Kind == ori.OpdImm && o.FKind != ori.ImmF64:
		v = uint32(o.Imm)
	case o.Kind == ori.OpdReg && o.Reg.IsZero() && !o.Reg.Class.IsPred():
	case o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassR && o.Reg.Words == 1:
		x, ok := k.words().get(wordKey(o.Reg, 0))
		if !ok {
			return 0, false
		}
		v = x
	default:
		return 0, false
	}
	if o.Not {
		return 0, false
	}
	if o.Abs {
		v &^= 1 << 31
	}
	if o.Neg {
		v ^= 1 << 31
	}
	return v, true
}

// fpFold folds every f32 instruction of f whose sources are known. k
// holds the known MOVs of f, built at the first lookup; when the fold
// changes f, it drops them (they may no longer hold), and otherwise
// leaves them to the caller (f64ConstOperands reads the same table).
func fpFold(f *ori.Func, s *Sites, k *fpKnown) bool {
	changed := false
	defer func() {
		if changed {
			k.drop()
		}
	}()
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			switch in.Op {
			case ori.OpFADD, ori.OpFMUL, ori.OpFFMA, ori.OpFSETP, ori.OpFCHK, ori.OpMUFU:
			default:
				continue
			}
			if s.Try(f, in, "fold a floating-point constant", func() bool { return fpFoldInst(in, k) }) {
				changed = true
			}
		}
	}
	return changed
}

// fpRound returns the rounding modifier of an f32 arithmetic instruction,
// and false for a modifier the fold does not know.
func fpRound(in *ori.Inst) (fp.Round, bool) {
	rm := fp.RN
	for _, m := range in.Mods {
		switch m {
		case "RN":
		case "RZ":
			rm = fp.RZ
		case "RM":
			rm = fp.RM
		case "RP":
			rm = fp.RP
		case "FTZ", "SAT":
		default:
			return 0, false
		}
	}
	return rm, true
}

// fpCmps are FSETP's comparison modifiers.
var fpCmps = map[string]fp.Cmp{
	"LT": fp.LT, "EQ": fp.EQ, "LE": fp.LE, "GT": fp.GT, "NE": fp.NE, "GE": fp.GE,
	"LTU": fp.LTU, "EQU": fp.EQU, "LEU": fp.LEU, "GTU": fp.GTU, "NEU": fp.NEU, "GEU": fp.GEU,
	"NUM": fp.NUM, "NAN": fp.NAN,
}

func fpFoldInst(in *ori.Inst, k *fpKnown) bool {
	srcs := make([]uint32, len(in.Srcs))
	known := func(n int) bool {
		if len(in.Srcs) < n {
			return false
		}
		for i := 0; i < n; i++ {
			v, ok := k.f32(in.Srcs[i])
			if !ok {
				return false
			}
			srcs[i] = v
		}
		return true
	}
	switch in.Op {
	case ori.OpFADD, ori.OpFMUL, ori.OpFFMA:
		n := 2
		if in.Op == ori.OpFFMA {
			n = 3
		}
		rm, ok := fpRound(in)
		if !ok || len(in.Srcs) != n || !onlyMainResult(in) || in.Dsts[0].Reg.Words != 1 || !known(n) {
			return false
		}
		ftz := in.HasMod("FTZ")
		var r uint32
		switch in.Op {
		case ori.OpFADD:
			r = fp.Add32(srcs[0], srcs[1], rm, ftz)
		case ori.OpFMUL:
			r = fp.Mul32(srcs[0], srcs[1], rm, ftz)
		default:
			r = fp.Fma32(srcs[0], srcs[1], srcs[2], rm, ftz)
		}
		if in.HasMod("SAT") {
			r = fp.Sat32(r)
		}
		toMov(in, immOperand(r))
		return true
	case ori.OpMUFU:
		if len(in.Mods) != 1 || in.Mods[0] != "RCP" || len(in.Srcs) != 1 || !onlyMainResult(in) ||
			in.Dsts[0].Reg.Words != 1 || !known(1) {
			return false
		}
		if e := srcs[0] >> 23 & 0xff; e != 0 && e != 0xff {
			return false // a finite normal operand: the approximation is the hardware's
		}
		toMov(in, immOperand(fp.RcpSFU32(srcs[0])))
		return true
	case ori.OpFCHK:
		if len(in.Mods) != 1 || in.Mods[0] != "DIVIDE" || len(in.Srcs) != 2 || len(in.Dsts) != 1 ||
			in.Dsts[0].Kind != ori.OpdReg || in.Dsts[0].Reg.Class != ori.ClassP || !known(2) {
			return false
		}
		// SEMANTICS.md: p is false exactly when 25 <= Ea <= 254,
		// 2 <= Eb <= 252 and -125 <= Ea - Eb <= 126.
		ea, eb := int(srcs[0]>>23&0xff), int(srcs[1]>>23&0xff)
		slow := !(ea >= 25 && ea <= 254 && eb >= 2 && eb <= 252 && ea-eb >= -125 && ea-eb <= 126)
		fpToPLOP3(in, slow, false)
		return true
	case ori.OpFSETP:
		var cmp fp.Cmp
		ncmp := 0
		for _, m := range in.Mods {
			switch m {
			case "AND", "OR", "XOR", "FTZ":
			default:
				c, ok := fpCmps[m]
				if !ok {
					return false // F64 and anything unknown
				}
				cmp = c
				ncmp++
			}
		}
		if ncmp != 1 || len(in.Srcs) != 3 || len(in.Dsts) != 2 || !known(2) {
			return false
		}
		for _, d := range in.Dsts {
			if d.Kind != ori.OpdReg || d.Reg.Class != ori.ClassP {
				return false
			}
		}
		c, ok := constPred(in.Srcs[2])
		if !ok {
			return false
		}
		t := fp.Cmp32(srcs[0], srcs[1], cmp, in.HasMod("FTZ"))
		comb := func(x, y bool) bool {
			switch {
			case in.HasMod("OR"):
				return x || y
			case in.HasMod("XOR"):
				return x != y
			}
			return x && y
		}
		fpToPLOP3(in, comb(t, c), comb(!t, c))
		return true
	}
	return false
}

// fpToPLOP3 rewrites a predicate-writing instruction in place into the
// PLOP3 that writes the constants p and q (q into PT when in has one
// result).
func fpToPLOP3(in *ori.Inst, p, q bool) {
	lut := func(v bool) ori.Operand {
		if v {
			return ori.Imm(0xff)
		}
		return ori.Imm(0)
	}
	if len(in.Dsts) == 1 {
		// A new slice: the operands may share a backing array with the
		// next instruction's (ori.Func.Clone).
		in.Dsts = []ori.Operand{in.Dsts[0], ori.R(ori.PT)}
	}
	in.Op = ori.OpPLOP3
	in.Mods = []string{"LUT"}
	in.Srcs = []ori.Operand{ori.R(ori.PT), ori.R(ori.PT), ori.R(ori.PT), lut(p), lut(q)}
}
