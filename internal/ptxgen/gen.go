package ptxgen

import (
	"fmt"
	"strings"
)

// Generation: how a seed becomes a program.
//
// Generate draws, in order: the target, the launch, a Profile (which
// statement families this program uses and how often: swarm testing, so
// that programs differ in kind and not only in detail), the device
// functions (each may call the ones before it), and the kernel. A
// function is a prologue that reads its inputs, one Init per state
// variable, setup of the memory its body may use, a body of random
// statements, and observation that makes every state variable visible:
// the kernel stores each into the thread's own dump slot of the out
// buffer, a device function folds them all into its return value.
//
// For example, a kernel with state variables %r15..%r20 might contain
//
//	mad.lo.u32 %r25, %r7, 7, 0;       // Init of %r15: a load of in_u32
//	and.b32 %r25, %r25, 255;          // at an index masked into it
//	mad.wide.u32 %rd17, %r25, 4, %rd4;
//	ld.global.u32 %r15, [%rd17];
//	...
//	and.b32 %r34, %r13, 1;            // a lane split: even lanes here,
//	setp.eq.u32 %p10, %r34, 0;        // odd lanes in the else arm
//	@!%p10 bra $L_fuzz_2;
//	shfl.sync.bfly.b32 %r17, %r15, 2, 0x1F, 0x55555555;
//	...
//	st.global.u32 [%rd10+40], %r15;   // Observe: the dump slot of %r15
//
// Freedom from undefined behaviour comes from a few invariants that every
// statement generator keeps (see the family files for the details):
//   - Registers: a statement reads only state variables (always defined),
//     read-only inputs, and temporaries it defined itself.
//   - Memory: a thread writes only its own slots of out (through the out
//     or the aliasing pointer), its local array, and shared memory in a
//     phase between two barriers; it reads inputs, its own slots, its
//     local array, and shared memory after a barrier. Every address is
//     masked into its buffer, and aligned.
//   - Atomics whose result is used touch only the thread's own slots; the
//     shared accumulators take only commutative operations (one kind per
//     region, float adds of small integers, which are exact in any order),
//     and their results are not used.
//   - Arithmetic: divisors are forced away from 0 and -1; float add, sub,
//     mul and fma carry a rounding modifier, which forbids contraction,
//     so the only legal result is the one the simulator computes.
//   - Convergence: bar.sync only where every thread of the CTA is
//     (ctx.converged); warp collectives only where the set of threads of
//     each warp is known exactly (ctx.mask), with that set as membermask
//     and, for shfl, source lanes inside it. Blocks are whole warps when
//     the program uses collectives.
//   - Termination: every loop has a counter it alone changes and a trip
//     count of at most 8; nested loops and calls inside loops are limited
//     so that a thread runs at most maxIters iterations of any body.

// maxIters bounds the product of the trip counts of nested loops
// (including those of functions called inside loops).
const maxIters = 48

// ctx describes where a statement is generated.
type ctx struct {
	depth int
	// iters is the product of the trip bounds of the enclosing loops.
	iters int
	// converged: every live thread of the CTA executes this statement
	// together (bar.sync is allowed).
	converged bool
	// mask is the exact set of threads of every warp here: "" when
	// unknown (no collectives), else one of the masks in gen_warp.go.
	mask string
	// inLoop: inside a loop body; exits says which break and continue
	// statements the innermost loop allows.
	inLoop bool
	exits  exitKind
}

// exitKind is what leaves a loop early: nothing, a break or continue
// that every thread takes together (the loop stays converged), or one
// that only some threads take (the loop body is divergent throughout).
type exitKind int

// divergentExits is what a loop's exits become inside a divergent region
// of its body: a loop that promises to stay converged (exitUniform) must
// not lose only some of its threads, so it gets no exits there.
func divergentExits(e exitKind) exitKind {
	if e == exitUniform {
		return exitNone
	}
	return e
}

const (
	exitNone exitKind = iota
	exitUniform
	exitDivergent
)

// fgen generates one function.
type fgen struct {
	g *gen
	f *Func
	r *rng
	// state are the state variables; thr the read-only inputs that differ
	// between threads; uni the read-only inputs every thread of the CTA
	// shares.
	state, thr, uni [numClasses][]string
	kernel          bool
	// mid is the generic address of the thread's own scratch slots (midN
	// words), midG the same through cvta.to.global, midA the same through
	// the aliasing parameter; "" where the function has none.
	mid, midG, midA string
	// loc is the .local array (locWords words), "" when none.
	loc string
	// Kernel-only memory: input buffers (global window), accumulators,
	// shared arrays.
	inU32, inF32, inF64, acc, acc64 string
	// accGen and acc64Gen are the accumulators' generic addresses.
	accGen, acc64Gen string
	shx, shc         string
	tid, lane        string
	// callees are the functions this one may call.
	callees []*Func
	budget  int
	// iters is the largest loop-iteration product this function reaches,
	// so callers inside loops can stay under maxIters.
	iters int
}

// gen holds the program being built.
type gen struct {
	r   *rng
	p   *Program
	mid int // the kernel's scratch slot count per thread
	// funcIters maps a device function to its iteration product.
	funcIters map[string]int
	// funcMid says which device functions take the scratch pointer.
	funcMid map[string]bool
	// incBound is the bound of every atom.inc and atom.dec on shared
	// accumulators: one bound per program keeps them order-independent.
	incBound uint32
	// avoid holds the Options.Avoid names.
	avoid map[string]bool
}

// Slot layout constants.
const (
	midWords  = 16  // scratch slots per thread
	locWords  = 16  // words of each function's local array
	inU32N    = 256 // in_u32 elements
	inF32N    = 256
	inF64N    = 64
	accRegion = 16 // words per accumulator region
)

func (fg *fgen) tmp(c Class) string {
	n := fg.f.Regs[c]
	if n == 0 {
		n = 1 // start at 1 like compilers do; %r0 stays unused
	}
	fg.f.Regs[c] = n + 1
	return fmt.Sprintf("%s%d", classInfo[c].prefix, n)
}

// sv returns a random state variable of class c.
func (fg *fgen) sv(c Class) string {
	s := fg.state[c]
	return s[fg.r.intn(len(s))]
}

// src returns a source operand of class c: mostly a state variable,
// sometimes a read-only input or an immediate.
func (fg *fgen) src(c Class) string {
	n := fg.r.intn(100)
	switch {
	case n < 65 || c == ClassPred:
		return fg.sv(c)
	case n < 85:
		ins := append(append([]string(nil), fg.thr[c]...), fg.uni[c]...)
		if len(ins) > 0 {
			return ins[fg.r.intn(len(ins))]
		}
		return fg.sv(c)
	}
	return fg.imm(c)
}

// reg returns a register source of class c (no immediate).
func (fg *fgen) reg(c Class) string {
	if fg.r.percent(80) || c == ClassPred {
		return fg.sv(c)
	}
	ins := append(append([]string(nil), fg.thr[c]...), fg.uni[c]...)
	if len(ins) > 0 {
		return ins[fg.r.intn(len(ins))]
	}
	return fg.sv(c)
}

// usrc returns a CTA-uniform source of class c: a uniform input or an
// immediate.
func (fg *fgen) usrc(c Class) string {
	if len(fg.uni[c]) > 0 && fg.r.percent(70) {
		return fg.uni[c][fg.r.intn(len(fg.uni[c]))]
	}
	return fg.imm(c)
}

var imm32s = []uint32{0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 24, 31, 32, 33, 63, 64, 100, 127, 128, 255, 256, 1000, 1023, 0x7fff,
	0x8000, 0xffff, 0x10000, 0x12345678, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0xdeadbeef}

var immF32s = []uint32{0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x40000000, 0x40400000, 0x41200000,
	0x3eaaaaab, 0x40490fdb, 0x7149f2ca, 0x00800000, 0x00000001, 0x007fffff, 0x7f800000, 0xff800000, 0x7fc00000,
	0x7f7fffff, 0x4b000000, 0x4f000000, 0xcf000000, 0x5f000000, 0x42f6e979, 0xc2c80000, 0x3dcccccd}

var immF64s = []uint64{0, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x3fe0000000000000,
	0x4000000000000000, 0x4024000000000000, 0x3fd5555555555555, 0x400921fb54442d18, 0x0010000000000000,
	0x0000000000000001, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0x7fefffffffffffff,
	0x4330000000000000, 0x43e0000000000000, 0xc3e0000000000000, 0x3fb999999999999a, 0x41dfffffffc00000}

var imm64s = []uint64{0, 1, 2, 3, 7, 8, 31, 32, 63, 64, 255, 0xffffffff, 0x100000000, 0x7fffffffffffffff,
	0x8000000000000000, 0xffffffffffffffff, 0xfffffffffffffffe, 0x123456789abcdef0, 0x8000000000000001}

// imm returns an immediate of class c.
func (fg *fgen) imm(c Class) string {
	r := fg.r
	switch c {
	case ClassB32:
		v := imm32s[r.intn(len(imm32s))]
		if r.percent(15) {
			v = uint32(r.next())
		}
		return hex32(v)
	case ClassB64:
		v := imm64s[r.intn(len(imm64s))]
		if r.percent(15) {
			v = r.next()
		}
		return fmt.Sprintf("0x%X", v)
	case ClassF32:
		v := immF32s[r.intn(len(immF32s))]
		if r.percent(10) {
			v = uint32(r.next())
		}
		return fmt.Sprintf("0f%08X", v)
	case ClassF64:
		v := immF64s[r.intn(len(immF64s))]
		if r.percent(10) {
			v = r.next()
		}
		return fmt.Sprintf("0d%016X", v)
	case ClassB16:
		return fmt.Sprint([]int{0, 1, 2, 7, 15, 16, 255, 256, 0x7fff, 0x8000, 0xffff, 12345}[r.intn(12)])
	}
	return "0"
}

func hex32(v uint32) string {
	if v < 10 {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("0x%X", v)
}

// leaf builds a Leaf from lines.
func leaf(kind string, lines ...string) *Leaf { return &Leaf{Kind: kind, Lines: lines} }

// sprintf is fmt.Sprintf, short for the family files.
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// families are the statement families of a Profile, in a fixed order.
var families = [...]string{
	"int", "bits", "int64", "carry", "f32", "f64", "approx", "b16", "f16", "cmp",
	"mem", "local", "atomic", "shared", "warp", "call", "pred",
	"if", "loop", "switch", "lanesplit", "exit",
}

// Profile weights the statement families of one program; zero disables
// a family.
type Profile struct {
	Weights [len(families)]int
}

func (p Profile) w(name string) int {
	for i, f := range families {
		if f == name {
			return p.Weights[i]
		}
	}
	return 0
}

// String lists the enabled families with their weights.
func (p Profile) String() string {
	var parts []string
	for i, f := range families {
		if p.Weights[i] > 0 {
			parts = append(parts, fmt.Sprintf("%s:%d", f, p.Weights[i]))
		}
	}
	return strings.Join(parts, " ")
}

// block generates up to n statements.
func (fg *fgen) block(c ctx, n int) []Stmt {
	var out []Stmt
	for i := 0; i < n && fg.budget > 0; i++ {
		if s := fg.stmt(c); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// stmt generates one statement allowed in c.
func (fg *fgen) stmt(c ctx) Stmt {
	p := fg.g.p.Profile
	ws := make([]int, len(families))
	for i, name := range families {
		if fg.allowed(name, c) {
			ws[i] = p.Weights[i]
		}
	}
	for tries := 0; tries < 8; tries++ {
		i := fg.r.weighted(ws)
		if i < 0 {
			break
		}
		if s := fg.family(families[i], c); s != nil {
			fg.budget--
			return s
		}
		ws[i] = 0
	}
	fg.budget--
	return fg.intLeaf()
}

// allowed says whether family name may produce a statement in c.
func (fg *fgen) allowed(name string, c ctx) bool {
	switch name {
	case "if", "loop", "switch", "lanesplit":
		if c.depth >= 3 {
			return false
		}
		if name == "loop" && c.iters*2 > maxIters {
			return false
		}
		if name == "lanesplit" {
			return fg.kernel && c.mask == maskFull
		}
	case "shared":
		return fg.kernel && (c.converged || fg.shc != "")
	case "warp":
		return fg.kernel && c.mask != ""
	case "atomic":
		return fg.mid != ""
	case "call":
		return len(fg.callees) > 0
	case "exit":
		return c.depth > 0 || !fg.kernel
	}
	return true
}

// family generates one statement of the named family, or nil when it has
// nothing to offer here.
func (fg *fgen) family(name string, c ctx) Stmt {
	switch name {
	case "int":
		return lf(fg.intLeaf())
	case "bits":
		return lf(fg.bitsLeaf())
	case "int64":
		return lf(fg.int64Leaf())
	case "carry":
		return lf(fg.carryLeaf())
	case "f32":
		return lf(fg.f32Leaf())
	case "f64":
		return lf(fg.f64Leaf())
	case "approx":
		return lf(fg.approxLeaf())
	case "b16":
		return lf(fg.b16Leaf())
	case "f16":
		return lf(fg.f16Leaf())
	case "cmp":
		return lf(fg.cmpLeaf())
	case "mem":
		return lf(fg.memLeaf())
	case "local":
		return lf(fg.localLeaf())
	case "atomic":
		return lf(fg.atomicLeaf())
	case "shared":
		return fg.sharedLeaf(c)
	case "warp":
		return fg.warpLeaf(c)
	case "call":
		return fg.callLeaf(c)
	case "pred":
		return fg.predicated()
	case "if":
		return fg.ifStmt(c)
	case "loop":
		return fg.loopStmt(c)
	case "switch":
		return fg.switchStmt(c)
	case "lanesplit":
		return fg.laneSplit(c)
	case "exit":
		return fg.exitStmt(c)
	}
	return nil
}

// lf turns a possibly nil *Leaf into a Stmt that is nil when it is.
func lf(l *Leaf) Stmt {
	if l == nil {
		return nil
	}
	return l
}

// cond returns lines that set a fresh predicate from thread-varying
// values, and the predicate.
func (fg *fgen) cond() ([]string, string) {
	p := fg.tmp(ClassPred)
	r := fg.r
	switch r.intn(6) {
	case 0:
		return nil, fg.sv(ClassPred)
	case 1:
		t := fg.tmp(ClassB32)
		return []string{
			sprintf("and.b32 %s, %s, %s;", t, fg.reg(ClassB32), hex32(uint32(1)<<r.intn(8))),
			sprintf("setp.ne.u32 %s, %s, 0;", p, t),
		}, p
	case 2:
		return []string{sprintf("setp.%s.f32 %s, %s, %s;", r.pick("lt", "ge", "gtu", "leu", "num"), p, fg.sv(ClassF32), fg.src(ClassF32))}, p
	case 3:
		t := fg.tmp(ClassB32)
		return []string{
			sprintf("rem.u32 %s, %s, %d;", t, fg.reg(ClassB32), r.rangeIn(2, 5)),
			sprintf("setp.eq.u32 %s, %s, 0;", p, t),
		}, p
	}
	return []string{sprintf("setp.%s.%s %s, %s, %s;", r.pick("lt", "le", "gt", "ge", "eq", "ne"), r.pick("s32", "u32"), p, fg.sv(ClassB32), fg.src(ClassB32))}, p
}

// ucond returns lines that set a fresh predicate that every thread of the
// CTA computes the same, and the predicate.
func (fg *fgen) ucond() ([]string, string) {
	p := fg.tmp(ClassPred)
	r := fg.r
	if len(fg.uni[ClassB32]) == 0 {
		return []string{sprintf("setp.%s.u32 %s, %d, %d;", r.pick("lt", "ge"), p, r.intn(4), r.intn(4))}, p
	}
	a := fg.uni[ClassB32][r.intn(len(fg.uni[ClassB32]))]
	if r.percent(50) {
		t := fg.tmp(ClassB32)
		return []string{
			sprintf("and.b32 %s, %s, %s;", t, a, hex32(uint32(1)<<r.intn(4))),
			sprintf("setp.%s.u32 %s, %s, 0;", r.pick("eq", "ne"), p, t),
		}, p
	}
	return []string{sprintf("setp.%s.u32 %s, %s, %s;", r.pick("lt", "le", "gt", "ge", "eq", "ne"), p, a, fg.usrc(ClassB32))}, p
}

func (fg *fgen) ifStmt(c ctx) Stmt {
	r := fg.r
	s := &If{}
	inner := c
	inner.depth++
	if r.percent(35) {
		s.Cond, s.Pred = fg.ucond()
		s.Uniform = true
		s.Kind = "if.uniform"
	} else {
		s.Cond, s.Pred = fg.cond()
		s.Kind = "if.divergent"
		inner.converged, inner.mask = false, ""
		inner.exits = divergentExits(inner.exits)
	}
	s.Neg = r.percent(30)
	s.Then = fg.block(inner, r.rangeIn(1, 4))
	if r.percent(50) {
		s.Else = fg.block(inner, r.rangeIn(1, 3))
		s.Kind += ".else"
	}
	return s
}

// switchStmt generates a multi-way branch through a table (brx.idx),
// with a uniform or a thread-dependent index and arms that may fall
// through.
func (fg *fgen) switchStmt(c ctx) Stmt {
	r := fg.r
	n := r.rangeIn(2, 5)
	s := &Switch{Index: fg.tmp(ClassB32), Arms: make([][]Stmt, n), Fall: make([]bool, n)}
	inner := c
	inner.depth++
	if r.percent(35) {
		t := fg.tmp(ClassB32)
		s.Cond = []string{sprintf("and.b32 %s, %s, 255;", t, fg.usrc(ClassB32)), sprintf("rem.u32 %s, %s, %d;", s.Index, t, n)}
		s.Uniform = true
		s.Kind = "switch.uniform"
	} else {
		s.Cond = []string{sprintf("rem.u32 %s, %s, %d;", s.Index, fg.reg(ClassB32), n)}
		s.Kind = "switch.divergent"
		inner.converged, inner.mask = false, ""
		inner.exits = divergentExits(inner.exits)
	}
	for k := range s.Arms {
		s.Arms[k] = fg.block(inner, r.rangeIn(0, 2))
		s.Fall[k] = r.percent(25)
	}
	// Every other switch (by the index register's number, so no random
	// draw is added and every seed keeps its program) is a cascade of
	// compare-and-branch, nvcc's form, which DoSwitchOpt lowers when it
	// has five arms.
	if num(s.Index)%2 == 0 {
		for range s.Arms {
			s.Cascade = append(s.Cascade, fg.tmp(ClassPred))
		}
		s.Kind += ".cascade"
	}
	return s
}

// num returns the number at the end of a register name ("%r12": 12).
func num(reg string) int {
	n, mul := 0, 1
	for i := len(reg) - 1; i >= 0 && reg[i] >= '0' && reg[i] <= '9'; i-- {
		n += int(reg[i]-'0') * mul
		mul *= 10
	}
	return n
}

func (fg *fgen) loopStmt(c ctx) Stmt {
	r := fg.r
	bound := min(8, maxIters/c.iters)
	if bound < 2 {
		return nil
	}
	s := &Loop{Counter: fg.tmp(ClassB32), Trip: fg.tmp(ClassB32), Pred: fg.tmp(ClassPred), Bottom: r.percent(40)}
	inner := c
	inner.depth++
	inner.iters = c.iters * bound
	inner.inLoop = true
	s.Init = []string{sprintf("mov.u32 %s, 0;", s.Counter)}
	divergent := r.percent(50)
	if divergent {
		// A thread-dependent trip count in [1, bound].
		t := fg.tmp(ClassB32)
		s.Init = append(s.Init,
			sprintf("and.b32 %s, %s, %d;", t, fg.reg(ClassB32), pow2floor(bound)-1),
			sprintf("add.u32 %s, %s, 1;", s.Trip, t))
		s.Kind = "loop.divergent"
	} else {
		s.Uniform = true
		if r.percent(50) && len(fg.uni[ClassB32]) > 0 {
			t := fg.tmp(ClassB32)
			s.Init = append(s.Init,
				sprintf("and.b32 %s, %s, %d;", t, fg.uni[ClassB32][r.intn(len(fg.uni[ClassB32]))], pow2floor(bound)-1),
				sprintf("add.u32 %s, %s, 1;", s.Trip, t))
		} else {
			s.Init = append(s.Init, sprintf("mov.u32 %s, %d;", s.Trip, r.rangeIn(1, bound)))
		}
		s.Kind = "loop.uniform"
	}
	switch {
	case r.percent(30):
		inner.exits = exitDivergent
		divergent = true
	case r.percent(20):
		inner.exits = exitUniform
	}
	if divergent {
		inner.converged, inner.mask = false, ""
		s.Uniform = false
	}
	if s.Bottom {
		s.Kind += ".bottom"
	}
	s.Body = fg.block(inner, r.rangeIn(1, 5))
	if c.iters*bound > fg.iters {
		fg.iters = c.iters * bound
	}
	return s
}

// exitStmt generates break or continue inside loops, and early returns
// where a function allows them.
func (fg *fgen) exitStmt(c ctx) Stmt {
	r := fg.r
	if c.inLoop && c.exits != exitNone && r.percent(80) {
		var lines []string
		var p string
		uni := c.exits == exitUniform
		if uni {
			lines, p = fg.ucond()
		} else {
			lines, p = fg.cond()
		}
		if r.percent(50) {
			return &Break{Cond: lines, Pred: p, Neg: r.percent(30), Uni: uni}
		}
		return &Continue{Cond: lines, Pred: p, Neg: r.percent(30), Uni: uni}
	}
	if c.depth == 0 || c.inLoop && c.exits != exitDivergent {
		// Returning from inside a loop that is not already divergent
		// would make a supposedly converged loop body divergent.
		return nil
	}
	if fg.kernel {
		if !fg.g.p.kernelMayExit() {
			return nil
		}
		lines, p := fg.cond()
		op := r.pick("exit", "ret")
		return leaf("exit.early", append(lines, sprintf("@%s %s;", p, op))...)
	}
	lines, p := fg.cond()
	ret := fg.returnLines()
	ret[len(ret)-1] = sprintf("@%s ret;", p)
	return leaf("ret.early", append(lines, ret...)...)
}

// kernelMayExit: threads may leave the kernel early only when nothing
// after needs all of them (barriers, collectives).
func (p *Program) kernelMayExit() bool {
	return p.Profile.w("shared") == 0 && p.Profile.w("warp") == 0 && p.Profile.w("lanesplit") == 0
}

// predicated wraps a one-instruction arithmetic statement in a guard on a
// state predicate.
func (fg *fgen) predicated() Stmt {
	var l *Leaf
	for tries := 0; tries < 4 && l == nil; tries++ {
		switch fg.r.intn(6) {
		case 0:
			l = fg.intLeaf()
		case 1:
			l = fg.bitsLeaf()
		case 2:
			l = fg.f32Leaf()
		case 3:
			if fg.mid != "" {
				l = fg.slotStore()
			}
		case 4:
			if fg.mid != "" {
				l = fg.slotLoad()
			}
		default:
			l = fg.cmpLeaf()
		}
		if l != nil && len(l.Lines) != 1 {
			l = nil
		}
		if l != nil && fg.g.avoid["predicated-expansions"] && (strings.HasPrefix(l.Kind, "f32.div") || l.Kind == "f32.sqrt" || l.Kind == "f32.rcp") {
			l = nil
		}
	}
	if l == nil {
		return nil
	}
	g := "@"
	if fg.r.percent(40) {
		g = "@!"
	}
	l.Lines[0] = g + fg.sv(ClassPred) + " " + l.Lines[0]
	l.Kind = "pred." + l.Kind
	return l
}

func pow2floor(n int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}
