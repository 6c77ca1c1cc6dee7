package lower

// atomic.go lowers the PTX atomics atom and red. Each becomes one SASS
// atomic chosen by the state space of the address:
//
//	atom.global  -> ATOMG.E.<op>.<type>   d = [a], b[, c]
//	atom.shared  -> ATOMS.<op>.<type>     d = [a], b[, c]
//	atom (generic) -> ATOM.E.<op>.<type>  d = [a], b[, c]
//	red.global   -> RED.E.<op>.<type> [a], b
//	red (generic) -> ATOM.E.<op>.<type> RZ = [a], b (the address may be shared)
//	red.shared   -> ATOMS.<op>.<type> RZ = [a], b (SASS has no shared RED;
//	                ptxas also uses ATOMS with the result discarded)
//
// op is ADD MIN MAX INC DEC AND OR XOR EXCH CAS; type is U32 S32 U64 S64
// (the .b32/.b64 bit types use U32/U64: only the bit pattern matters for
// the bitwise ops, exch and cas), F32.FTZ.RN (global and generic f32 add)
// F32.RN (shared f32 add) F64.RN F16x2.RN BF16x2.RN F16.RN BF16.RN.
// The scope follows as STRONG.SM (.cta), STRONG.GPU (.gpu, the default,
// and .cluster) or STRONG.SYS (.sys), except on ATOMS, which has none.
// The memory order becomes fences around the atomic, as ptxas 13.0
// writes them (measured on sm_80 and sm_90, -O0 and -O3, every order and
// scope, global, generic and shared):
//
//	.release, .acq_rel:  MEMBAR.ALL.<CTA|GPU|SYS> before it, then, at
//	                     GPU and system scope, ERRBAR and (sm_90)
//	                     CGAERRBAR;
//	.acquire, .acq_rel:  CCTL.IVALL after it, at GPU and system scope
//	                     (for shared memory on sm_90 only);
//
// and the atomic itself is the relaxed one (ATOMG.E.ADD.STRONG.GPU:
// SASS has no acquire or release atomic). The L2 cache-policy operand is
// a performance hint with no effect on results (PTX says so) and is
// dropped.
//
// Semantics: the atomic opcodes as SEMANTICS.md defines them, made
// precise here. Each instruction atomically reads the old value of the
// location, stores the new value and (except RED) writes the old value to
// d (a pair for 64-bit types; 16-bit types zero-extend it to 32 bits).
// With old value r and operand s (and t for CAS), the new value is:
//
//	ADD r + s (integers mod 2^n; F32/F64/F16/BF16 IEEE addition rounded
//	    to nearest even; the x2 types add each 16-bit half independently)
//	MIN/MAX signed for S32/S64, unsigned for U32/U64
//	INC (r >= s) ? 0 : r + 1        unsigned 32-bit, the PTX atom.inc
//	DEC (r == 0 || r > s) ? s : r - 1  unsigned 32-bit, the PTX atom.dec
//	AND OR XOR bitwise; EXCH s; CAS (r == s) ? t : r
//
// F32.FTZ.RN flushes subnormal inputs and results to sign-preserving zero
// when the location is in global memory (PTX: atom.add.f32 on global
// memory flushes); when a generic address (ATOM.E, RED.E) falls in the
// shared window the addition keeps subnormals, as for ATOMS.ADD.F32.RN,
// which never flushes. RED.E takes a generic address (a global address is
// also a generic address). The ordering and scope modifiers STRONG,
// SM, GPU, SYS and the fences are memory-model annotations: the operation
// is atomic on its location whatever they say, and they do not change any
// result.
import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerAtom, "atom")
	register(lowerRed, "red")
}

func lowerAtom(c *fn, in *ptx.Instr) error { return c.atomic(in, false) }

func lowerRed(c *fn, in *ptx.Instr) error { return c.atomic(in, true) }

// atomOps maps a PTX atomic operation modifier to its SASS name.
var atomOps = map[string]string{
	".add": "ADD", ".min": "MIN", ".max": "MAX", ".inc": "INC", ".dec": "DEC",
	".and": "AND", ".or": "OR", ".xor": "XOR", ".exch": "EXCH", ".cas": "CAS",
}

// atomType returns the SASS type modifiers of an atomic on PTX type t.
func atomType(t, op, space string) ([]string, bool) {
	switch t {
	case ".u32", ".b32":
		return []string{"U32"}, true
	case ".s32":
		return []string{"S32"}, true
	case ".u64", ".b64":
		return []string{"U64"}, true
	case ".s64":
		return []string{"S64"}, true
	}
	if op != "ADD" {
		return nil, false
	}
	switch t {
	case ".f32":
		if space == ".shared" {
			return []string{"F32", "RN"}, true
		}
		return []string{"F32", "FTZ", "RN"}, true
	case ".f64":
		return []string{"F64", "RN"}, true
	case ".f16x2":
		return []string{"F16x2", "RN"}, true
	case ".bf16x2":
		return []string{"BF16x2", "RN"}, true
	case ".f16":
		return []string{"F16", "RN"}, true
	case ".bf16":
		return []string{"BF16", "RN"}, true
	}
	return nil, false
}

// atomOrder returns an atomic's memory order (acquire, release: one or
// both) and its scope as MEMBAR names it (CTA, GPU, SYS).
func atomOrder(in *ptx.Instr) (acquire, release bool, scope string) {
	scope = "GPU"
	for _, m := range in.Mods {
		switch m {
		case ".acquire":
			acquire = true
		case ".release":
			release = true
		case ".acq_rel":
			acquire, release = true, true
		case ".cta":
			scope = "CTA"
		case ".sys":
			scope = "SYS"
		}
	}
	return acquire, release, scope
}

// strongScope is the ordering modifier of a global or generic atomic at
// MEMBAR scope sc: the CTA's scope is the SM's in SASS.
func strongScope(sc string) []string {
	if sc == "CTA" {
		return []string{"STRONG", "SM"}
	}
	return []string{"STRONG", sc}
}

// releaseFence emits the fences ptxas writes before a release atomic at
// scope sc (see the top of this file).
func (c *fn) releaseFence(sc string) {
	c.emit(ori.OpMEMBAR, []string{"ALL", sc}, nil)
	if sc == "CTA" {
		return
	}
	c.emit(ori.OpERRBAR, nil, nil)
	if c.l.out.Arch >= 90 {
		c.emit(ori.OpCGAERRBAR, nil, nil)
	}
}

// acquireFence emits the cache invalidation ptxas writes after an
// acquire atomic at scope sc on space sp.
func (c *fn) acquireFence(sc, sp string) {
	if sc == "CTA" || (sp == ".shared" && c.l.out.Arch < 90) {
		return
	}
	c.emit(ori.OpCCTL, []string{"IVALL"}, nil)
}

func (c *fn) atomic(in *ptx.Instr, red bool) error {
	name := "atom"
	if red {
		name = "red"
	}
	for _, m := range in.Mods {
		switch m {
		case ".v2", ".v4", ".v8":
			return c.l.unsupported(in.OpPos, "vector %s", name)
		case ".async", ".mmio", ".b128", ".b16":
			return c.l.unsupported(in.OpPos, "%s%s", name, m)
		}
	}
	op := ""
	for _, m := range in.Mods {
		if o, ok := atomOps[m]; ok {
			op = o
		}
	}
	if op == "" {
		return c.l.errorf(in.OpPos, "%s needs an operation", name)
	}
	if red && (op == "CAS" || op == "EXCH") {
		return c.l.errorf(in.OpPos, "red has no .%s", op)
	}
	t := lastType(in)
	sp := space(in)
	switch sp {
	case "", ".global", ".shared":
	default:
		return c.l.unsupported(in.OpPos, "%s in %s", name, sp)
	}
	tmods, ok := atomType(t, op, sp)
	if !ok {
		return c.l.unsupported(in.OpPos, "%s.%s%s", name, op, t)
	}
	if (op == "INC" || op == "DEC") && t != ".u32" {
		return c.l.unsupported(in.OpPos, "%s.%s%s (PTX defines inc/dec on .u32 only)", name, op, t)
	}
	// Operands: [d,] [a], b[, c] and an optional cache policy.
	args := in.Args
	var dArg *ptx.Operand
	if !red {
		if len(args) < 1 {
			return c.l.errorf(in.OpPos, "atom needs a destination")
		}
		dArg, args = args[0], args[1:]
	}
	nvals := 1
	if op == "CAS" {
		nvals = 2
	}
	if len(args) == 2+nvals && in.HasMod(".L2::cache_hint") {
		args = args[:1+nvals] // the policy is a hint only
	}
	if len(args) != 1+nvals {
		return c.l.errorf(in.OpPos, "%s.%s takes an address and %d value operand(s)", name, op, nvals)
	}
	ref, err := c.address(args[0], sp)
	if err != nil {
		return err
	}
	if ref.slot != nil || ref.space == ".param" || ref.space == ".const" || ref.space == ".local" {
		return c.l.errorf(args[0].Pos, "%s on a %s address", name, ref.space)
	}
	// The effective space decides the opcode (a named .global variable
	// used without a space is a global access).
	if sp == "" && ref.space != "" {
		sp = ref.space
		tmods, _ = atomType(t, op, sp)
	}
	words := wordsOf(t)
	var vals []ori.Operand
	for _, a := range args[1:] {
		v, err := c.src(a, t)
		if err != nil {
			return err
		}
		vals = append(vals, c.regOperand(v, words))
	}
	if sp == ".shared" && op == "ADD" && t == ".f32" {
		return c.sharedAddF32(in, ref.op, vals[0], dArg)
	}
	acquire, release, scope := atomOrder(in)
	mods := func(lead ...string) []string {
		m := append(lead, op)
		m = append(m, tmods...)
		if sp == ".shared" {
			// Decision: ATOMS has no ordering or scope field (ptxas
			// 13.0 writes ATOMS.ADD for atom.shared.add whatever its
			// .sem and .scope, with the fences above around it, and
			// orilab's ATOMS form measured from its words has none);
			// shared memory is only visible to the CTA, and the
			// simulator orders every atomic anyway.
			return m
		}
		return append(m, strongScope(scope)...)
	}
	if release {
		c.releaseFence(scope)
	}
	if acquire {
		defer c.acquireFence(scope, sp)
	}
	srcs := append([]ori.Operand{ref.op}, vals...)
	if red {
		switch sp {
		case ".shared":
			c.emit(ori.OpATOMS, mods(), []ori.Operand{ori.R(ori.RZ)}, srcs...)
		case ".global":
			c.emit(ori.OpRED, mods("E"), nil, srcs...)
		default:
			// A generic address may point into the shared or local
			// window, which RED (a global reduction) cannot reach: the
			// generic ATOM with its result discarded can.
			c.emit(ori.OpATOM, mods("E"), []ori.Operand{ori.R(ori.RZ)}, srcs...)
		}
		return nil
	}
	d, err := c.dst(dArg, t)
	if err != nil {
		return err
	}
	if int(d.Words) < words {
		return c.l.errorf(dArg.Pos, "destination is narrower than %s", t)
	}
	dst := []ori.Operand{ori.R(d.Wide(words))}
	switch sp {
	case ".global":
		c.emit(ori.OpATOMG, mods("E"), dst, srcs...)
	case ".shared":
		c.emit(ori.OpATOMS, mods(), dst, srcs...)
	default:
		c.emit(ori.OpATOM, mods("E"), dst, srcs...)
	}
	if int(d.Words) > words {
		c.extendTo(d, words, t)
	}
	return nil
}

// sharedAddF32 lowers atom/red.shared.add.f32 to ptxas's compare-and-swap
// loop, since no ATOMS word adds f32 (nvdisasm decodes none; ptxas 13.0
// -O3 writes this loop on sm_80 and sm_90, measured on an
// atom.shared.add.f32 probe):
//
//	loop: LDS old = [a]
//	      FADD new = old, v
//	      ATOMS.CAST.SPIN ok = [a], old, new
//	      ISETP.EQ.U32.AND p = ok, 0x1
//	      @!p BRA loop
//	      (MOV d = old)
//
// The convergence pass adds the BSSY/BSYNC pair ptxas puts around it.
// FADD without .FTZ rounds to nearest and keeps subnormals, as the PTX
// atom.shared.add.f32 does. The result is the value the successful swap
// replaced.
func (c *fn) sharedAddF32(in *ptx.Instr, addr, v ori.Operand, dArg *ptx.Operand) error {
	var d ori.Reg
	if dArg != nil {
		var err error
		if d, err = c.dst(dArg, ".f32"); err != nil {
			return err
		}
	}
	done := c.flBegin()
	old, sum, ok := c.newReg(1), c.newReg(1), c.newReg(1)
	loop := c.f.NewBlock("")
	c.setBlock(loop)
	c.emit(ori.OpLDS, nil, []ori.Operand{ori.R(old)}, addr)
	c.emit(ori.OpFADD, nil, []ori.Operand{ori.R(sum)}, ori.R(old), v)
	c.emit(ori.OpATOMS, []string{"CAST", "SPIN"}, []ori.Operand{ori.R(ok)}, addr, ori.R(old), ori.R(sum))
	p := c.intSetp("EQ", true, ori.R(ok), ori.Imm(1))
	c.flBranchIf(p, true, loop)
	if dArg != nil {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, ori.R(old))
	}
	done()
	return nil
}
