package ori

import (
	"fmt"
	"strings"
)

// Which registers a call may change.
//
// A call under the ABI (recursive, indirect, to a .weak or undefined
// function) may change every register but R1, the stack pointer, and the
// callee-saved R16-R31, which the callee restores before it returns: all
// of UR, P and UP too. A call to a whole-seen function (WholeSeen: only
// called directly, not recursive, not address-taken, not .weak; the
// lowering gives it the private return-address pair R2:R3) may change
// exactly the registers the callee's allocated code writes, and what the
// calls it makes in turn may change (Clobbers): the allocator allocates
// such callees before their callers, records that set, and lets the
// callers keep values across the call in any register outside it; the
// callee saves nothing (regalloc/interproc.go has ptxas's evidence).

// PrivateRetAddr is the first register of the return-address pair of a
// whole-seen function (lower/private.go).
const PrivateRetAddr = 2

// WholeSeen reports whether f is a .func whose every call the compiler
// sees, which is what the lowering marks with the private return-address
// pair R2:R3 (Func.RetAddr; no ABI signature puts it there).
func (f *Func) WholeSeen() bool { return !f.Entry && f.RetAddr == PrivateRetAddr }

// Slow-path subroutines: the lowering (lower/slowpath.go) names the
// shared subroutines it puts the slow paths of f64 division, rsqrt and
// f32 division in __orilab.<operation>.slowpath[.<mode>]; the dots make
// names no PTX identifier can take.
const (
	SlowPathPrefix = "__orilab."
	SlowPathMark   = ".slowpath"
)

// IsSlowPathName reports whether name is that of a slow-path subroutine.
func IsSlowPathName(name string) bool {
	return strings.HasPrefix(name, SlowPathPrefix) && strings.Contains(name, SlowPathMark)
}

// CallTarget returns the name of the function a direct CALL targets
// ("CALL.REL.NOINC `name`"); false for an indirect call or another
// instruction.
func CallTarget(in *Inst) (string, bool) {
	if in.Op != OpCALL || len(in.Srcs) == 0 || in.Srcs[0].Kind != OpdSym || in.Srcs[0].IsRetAddr() {
		return "", false
	}
	return in.Srcs[0].Name, true
}

// RegSet is a set of physical registers of every class.
type RegSet [NumClasses][4]uint64

// Add adds register n of class c.
func (s *RegSet) Add(c RegClass, n int) { s[c][n/64] |= 1 << (n % 64) }

// Has reports whether register n of class c is in s.
func (s *RegSet) Has(c RegClass, n int) bool {
	return n >= 0 && n < 256 && s[c][n/64]&(1<<(n%64)) != 0
}

// AddReg adds every word of physical register r (nothing for a virtual
// register, RZ, URZ, PT or UPT).
func (s *RegSet) AddReg(r Reg) {
	if r.Virtual || r.IsZero() {
		return
	}
	for w := 0; w < max(int(r.Words), 1); w++ {
		if n := int(r.N) + w; n < r.Class.Limit() {
			s.Add(r.Class, n)
		}
	}
}

// Union adds every register of o to s.
func (s *RegSet) Union(o RegSet) {
	for c := range s {
		for i := range s[c] {
			s[c][i] |= o[c][i]
		}
	}
}

// String lists the registers, runs joined: "R2-R7 R16 P0".
func (s RegSet) String() string {
	var parts []string
	for c := RegClass(0); c < NumClasses; c++ {
		name := strings.TrimSuffix(PReg(c, 0, 1).String(), "0")
		for n := 0; n < c.Limit(); n++ {
			if !s.Has(c, n) {
				continue
			}
			m := n
			for m+1 < c.Limit() && s.Has(c, m+1) {
				m++
			}
			if m == n {
				parts = append(parts, fmt.Sprintf("%s%d", name, n))
			} else {
				parts = append(parts, fmt.Sprintf("%s%d-%s%d", name, n, name, m))
			}
			n = m
		}
	}
	return strings.Join(parts, " ")
}

// ABIClobbers is what a call under the ABI may change: every register
// but R1 and R16-R31.
func ABIClobbers() RegSet {
	var s RegSet
	for c := RegClass(0); c < NumClasses; c++ {
		for n := 0; n < c.Limit(); n++ {
			if c != ClassR || n != 1 && (n < 16 || n > 31) {
				s.Add(c, n)
			}
		}
	}
	return s
}

// Clobbers returns the registers a call to f, allocated, may change: the
// physical registers its code writes, but R1 (a frame it allocates it
// releases before RET), with every predicate for an R2P (whose mask
// names them), and for each CALL it makes what that call may change:
// callee(name) for a direct call to a whole-seen function (which the
// caller must have computed first: ok false is an error), ABIClobbers
// for the others.
func Clobbers(f *Func, callee func(name string) (RegSet, bool), wholeSeen func(name string) bool) (RegSet, error) {
	var s RegSet
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == OpdReg {
					s.AddReg(o.Reg)
				}
			}
			switch in.Op {
			case OpR2P:
				for n := 0; n < ClassP.Limit(); n++ {
					s.Add(ClassP, n)
				}
			case OpCALL:
				name, direct := CallTarget(in)
				if !direct || !wholeSeen(name) {
					s.Union(ABIClobbers())
					continue
				}
				c, ok := callee(name)
				if !ok {
					return RegSet{}, fmt.Errorf("%s #%d: calls %s, whose registers are not known yet (callees are allocated before their callers)", f.Name, in.ID, name)
				}
				s.Union(c)
			}
		}
	}
	s[ClassR][0] &^= 1 << 1
	return s, nil
}

// ModuleClobbers returns Clobbers of every whole-seen function of m that
// has a body, keyed by name. Whole-seen functions never reach themselves
// through calls, so the recursion ends; a cycle (which the lowering does
// not produce) is an error.
func ModuleClobbers(m *Module) (map[string]RegSet, error) {
	funcs := map[string]*Func{}
	for _, f := range m.Funcs {
		if f.WholeSeen() && len(f.Blocks) > 0 {
			funcs[f.Name] = f
		}
	}
	out := map[string]RegSet{}
	busy := map[string]bool{}
	wholeSeen := func(name string) bool { return funcs[name] != nil }
	var visit func(f *Func) error
	visit = func(f *Func) error {
		if _, done := out[f.Name]; done {
			return nil
		}
		if busy[f.Name] {
			return fmt.Errorf("%s reaches itself through calls but is marked whole-seen (.retaddr R%d)", f.Name, PrivateRetAddr)
		}
		busy[f.Name] = true
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if name, ok := CallTarget(in); ok && funcs[name] != nil {
					if err := visit(funcs[name]); err != nil {
						return err
					}
				}
			}
		}
		s, err := Clobbers(f, func(name string) (RegSet, bool) { c, ok := out[name]; return c, ok }, wholeSeen)
		if err != nil {
			return err
		}
		out[f.Name] = s
		return nil
	}
	for _, f := range m.Funcs {
		if funcs[f.Name] != nil {
			if err := visit(f); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// CalleesFirst returns m's functions in an order in which every
// whole-seen function comes before the functions that call it (a
// post-order of the direct calls to whole-seen functions), otherwise in
// module order.
func CalleesFirst(m *Module) []*Func {
	byName := map[string]*Func{}
	for _, f := range m.Funcs {
		byName[f.Name] = f
	}
	var out []*Func
	seen := map[*Func]bool{}
	var visit func(f *Func)
	visit = func(f *Func) {
		if seen[f] {
			return
		}
		seen[f] = true
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if name, ok := CallTarget(in); ok {
					if g := byName[name]; g != nil && g.WholeSeen() {
						visit(g)
					}
				}
			}
		}
		out = append(out, f)
	}
	for _, f := range m.Funcs {
		visit(f)
	}
	return out
}
