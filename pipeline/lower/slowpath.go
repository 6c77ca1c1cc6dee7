package lower

import (
	"fmt"
	"sync"

	"orilab/pipeline/ori"
)

// Out-of-line slow paths: the exact part of the f64 division behind a
// CALL.
//
// The DDIV expansion (flDivF64) is a Newton fast path, a range check and
// an exact slow path that only subnormal operands or results and huge
// exponent gaps reach. Inline, the slow path's ~110 instructions and
// their temporaries are allocated together with everything the caller
// keeps live around the division, so the fast path of a kernel pays for
// registers it only needs on the rare path (srad_cuda_1: 38 registers,
// ptxas 22). ptxas 13.0.88 (sm_80, -O3) keeps that path out of line:
//
//	@P0 BRA P1, `(.L_x_0) ;
//	MOV R0, 0x160 ;
//	CALL.REL.NOINC `($__internal_0_$__cuda_sm20_div_rn_f64_full) ;
//	.L_x_0:
//
// a subroutine after the kernel's code that returns with RET.REL.NODEC
// and saves nothing: its caller knows which registers it writes.
//
// SlowPaths does the same in Ori. The slow path of each rounding mode
// becomes one .func of the module (made on first use, shared by every
// division of every function): operands a in R4:R5 and b in R6:R7,
// result in R4:R5, return address in R2:R3 (PrivateRetAddr), so it is a
// whole-seen callee (ori.Func.WholeSeen). The allocator then allocates
// it before its callers and charges each CALL only with the registers
// the subroutine writes (regalloc/interproc.go); the caller's values
// live across the call take the others, and nothing is saved.
//
// Decision: orilab keeps the argument registers of its private calling
// convention (R4.. and R2:R3) where ptxas places the operands freely
// (ptxas passes them in the registers the fast path already uses and
// the return address in R0). The cost is at most four moves on the
// slow path and the argument registers in every caller's count.
//
// The outlining runs where the DDIV is expanded (ConvertUnsupportedOps
// at -O0, LateExpansionUnsupportedOps at -O1 and above; the wiki puts
// ptxas's templates for DDIV, "__ori_template_DDIV1..3", in the same
// expansion) and, for rsqrt.approx.f64, in the lowering, behind the knob
// OutlineF64SlowPath (pipeline/outlineslow.go).
//
// A lowering that runs several functions at once shares one SlowPaths
// through a view per function (forFunction): the subroutines are made
// under a lock, each once, and each view lists the ones its function
// uses, in the order of first use; place then puts them into the module
// where a lowering one function after another appends them, before the
// first function that uses them. A subroutine's code depends only on
// its key (it is made in a function of its own, from its parameters),
// and its name is its key (no PTX identifier has a dot, and the keys
// are distinct), so whichever function makes it first, the module is
// the serial one.
type SlowPaths struct {
	m *ori.Module
	// mu guards funcs, which the views of a parallel lowering share.
	mu sync.Mutex
	// funcs holds the subroutine made for each rounding mode.
	funcs map[string]*ori.Func
	// parent is the shared outliner of a view (forFunction); nil for
	// the outliner itself, which appends each subroutine to m.Funcs
	// when it makes it.
	parent *SlowPaths
	// uses lists, in a view, the subroutines its function called, each
	// once, in the order of first use.
	uses []*ori.Func
}

// NewSlowPaths returns the outliner for module m: the subroutines it
// makes are appended to m.Funcs.
func NewSlowPaths(m *ori.Module) *SlowPaths {
	return &SlowPaths{m: m, funcs: map[string]*ori.Func{}}
}

// forFunction returns a view of s for one function of a parallel
// lowering: it makes subroutines in s without appending them to the
// module, and records its function's uses for place.
func (s *SlowPaths) forFunction() *SlowPaths {
	return &SlowPaths{m: s.m, parent: s}
}

// place appends to s.m.Funcs, in order, each function of fs preceded by
// the subroutines that its view (views[i], nil when it has none) uses
// and that no earlier function used: where a lowering one function
// after another puts them.
func (s *SlowPaths) place(fs []*ori.Func, views []*SlowPaths) {
	placed := map[*ori.Func]bool{}
	for i, f := range fs {
		if v := views[i]; v != nil {
			for _, g := range v.uses {
				if !placed[g] {
					placed[g] = true
					s.m.Funcs = append(s.m.Funcs, g)
				}
			}
		}
		s.m.Funcs = append(s.m.Funcs, f)
	}
}

// Registers of the subroutine's convention (first words): the i-th
// operand in R4+w*i (w words per operand: 2 for the f64 subroutines, 1
// for the f32 division), the result in R4 (R4:R5 for f64).
const (
	slowArg0 = 4
	slowRet  = 4
)

// slowPathPrefix and slowPathMark make the names of the subroutines:
// __orilab.<operation>.slowpath[.<rounding>] (ori.IsSlowPathName).
const (
	slowPathPrefix = ori.SlowPathPrefix
	slowPathMark   = ori.SlowPathMark
)

// name returns the subroutine name for key, unique in the module.
func (s *SlowPaths) name(key string) string {
	name := key
	for i := 1; s.m.Func(name) != nil; i++ {
		name = fmt.Sprintf("%s.%d", key, i)
	}
	return name
}

// subroutine returns the slow-path subroutine named key (made on first
// use): it takes nargs operands of words words each (2: f64, 1: f32)
// and returns body's result t of the same size.
func (s *SlowPaths) subroutine(key string, nargs, words int, body func(c *fn, args []ori.Operand, t ori.Reg)) *ori.Func {
	if p := s.parent; p != nil {
		p.mu.Lock()
		g := p.make(key, nargs, words, body, false)
		p.mu.Unlock()
		for _, u := range s.uses {
			if u == g {
				return g
			}
		}
		s.uses = append(s.uses, g)
		return g
	}
	return s.make(key, nargs, words, body, true)
}

// make returns the subroutine named key, made on first use; a new one
// goes to the end of s.m.Funcs when add is set.
func (s *SlowPaths) make(key string, nargs, words int, body func(c *fn, args []ori.Operand, t ori.Reg), add bool) *ori.Func {
	if g := s.funcs[key]; g != nil {
		return g
	}
	size := int64(4 * words)
	g := &ori.Func{
		Name:    s.name(key),
		Rets:    []ori.Param{{Name: "r", Size: size, Align: size, Offset: slowRet, Words: int64(words)}},
		RetAddr: ori.PrivateRetAddr,
	}
	c := &fn{f: g, guard: ori.PT}
	c.setBlock(g.NewBlock(""))
	phys := func(n int) ori.Operand { return ori.R(ori.PReg(ori.ClassR, n, 1)) }
	var args []ori.Operand
	for i := 0; i < nargs; i++ {
		g.Params = append(g.Params, ori.Param{Name: fmt.Sprintf("a%d", i), Size: size, Align: size, Offset: int64(slowArg0 + words*i), Words: int64(words)})
		a := c.newReg(words)
		for w := 0; w < words; w++ {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(a.Word(w))}, phys(slowArg0+words*i+w))
		}
		args = append(args, ori.R(a))
	}
	t := c.newReg(words)
	body(c, args, t)
	for w := 0; w < words; w++ {
		c.emit(ori.OpMOV, nil, []ori.Operand{phys(slowRet + w)}, ori.R(t.Word(w)))
	}
	// A leaf returns through the pair it received (lowering's .func
	// convention for functions without calls).
	c.emit(ori.OpRET, []string{"REL", "NODEC"}, nil, ori.R(ori.PReg(ori.ClassR, ori.PrivateRetAddr, 2)))
	g.Blocks = c.order
	s.funcs[key] = g
	if add {
		s.m.Funcs = append(s.m.Funcs, g)
	}
	return g
}

// callSlow emits the call t = g(args...) of a slow-path subroutine
// whose operands and result have t's size.
func (c *fn) callSlow(g *ori.Func, t ori.Reg, args ...ori.Operand) {
	phys := func(n int) ori.Operand { return ori.R(ori.PReg(ori.ClassR, n, 1)) }
	words := int(t.Words)
	for i, a := range args {
		for w := 0; w < words; w++ {
			c.emit(ori.OpMOV, nil, []ori.Operand{phys(slowArg0 + words*i + w)}, word(a, w))
		}
	}
	c.emit(ori.OpMOV, nil, []ori.Operand{phys(ori.PrivateRetAddr)}, ori.RetAddr())
	c.emit(ori.OpMOV, nil, []ori.Operand{phys(ori.PrivateRetAddr + 1)}, ori.R(ori.RZ))
	c.emit(ori.OpCALL, []string{"REL", "NOINC"}, nil, ori.Sym(g.Name))
	for w := 0; w < words; w++ {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(t.Word(w))}, phys(slowRet+w))
	}
}

// callDivSlow emits, in place of the inline slow path, the call
// t = __orilab.ddiv.slowpath.<rnd>(a, b).
func (c *fn) callDivSlow(t ori.Reg, a, b ori.Operand, rnd string) {
	g := c.slow.subroutine(slowPathPrefix+"ddiv"+slowPathMark+"."+rnd, 2, 2, func(c *fn, args []ori.Operand, t ori.Reg) {
		c.flDivF64Slow(t, args[0], args[1], rnd)
	})
	c.callSlow(g, t, a, b)
}

// callFDivSlow emits, in place of the inline slow path of the f32
// division (flDivF32), the call t = __orilab.fdiv.slowpath.<rnd>[.ftz](a, b):
// the operands FCHK.DIVIDE sends off the fast path. ptxas 13.0.88 does
// the same (sm_80 -O3: CALL.REL.NOINC to
// __internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath after FCHK).
func (c *fn) callFDivSlow(t ori.Reg, a, b ori.Operand, rnd string, ftz bool) {
	key := slowPathPrefix + "fdiv" + slowPathMark + "." + rnd
	if ftz {
		key += ".ftz"
	}
	g := c.slow.subroutine(key, 2, 1, func(c *fn, args []ori.Operand, t ori.Reg) {
		c.flDivF32Slow(t, args[0], args[1], rnd, ftz)
	})
	c.callSlow(g, t, a, b)
}

// callRsqrtSlow emits the call t = __orilab.drsqrt.slowpath(a): every
// operand but the positive normal ones (flRsqrtF64).
func (c *fn) callRsqrtSlow(t ori.Reg, a ori.Operand) {
	g := c.slow.subroutine(slowPathPrefix+"drsqrt"+slowPathMark, 1, 2, func(c *fn, args []ori.Operand, t ori.Reg) {
		c.flRsqrtF64Full(t, args[0])
	})
	c.callSlow(g, t, a)
}

// Finish computes the control flow of the subroutines made so far; the
// expansion calls it once every division is expanded.
func (s *SlowPaths) Finish() error {
	if s == nil {
		return nil
	}
	for _, g := range s.funcs {
		if err := g.ComputeCFG(); err != nil {
			return fmt.Errorf("%s: %w", g.Name, err)
		}
	}
	return nil
}

// CanCall reports whether a CALL may be added to f: a kernel, or a .func
// that keeps its return address in a virtual pair. A .func the lowering
// saw without calls returns through the physical pair it received
// (R2:R3 or the ABI's), which stays occupied until each RET; the
// caller side of a new call writes that pair, so such a function keeps
// its slow paths inline. Found by TestHWTruthConformance: 102 fuzz
// programs whose leaf .funcs divide in f64 returned through a clobbered
// R2 (the post-allocation verifier refused them).
func CanCall(f *ori.Func) bool {
	if f.Entry {
		return true
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpRET {
				for _, o := range in.Srcs {
					if o.Kind == ori.OpdReg && !o.Reg.Virtual {
						return false
					}
				}
			}
		}
	}
	return true
}

// IsSlowPath reports whether f is a slow-path subroutine made by
// SlowPaths.
func IsSlowPath(f *ori.Func) bool {
	return !f.Entry && ori.IsSlowPathName(f.Name)
}
