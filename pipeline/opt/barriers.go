package opt

// OriRemoveRedundantBarriers (phase 27): removes CTA barriers that order
// nothing.
//
// The wiki ("Synchronization & Barriers", phase 26 of its numbering, seed
// lines 16274-16330) describes dataflow-driven removal "when the compiler
// can prove that all threads ... must have already passed through a
// dominating synchronization point", gated at -O2 and above and by the
// knob DisableRedundantBarrierRemoval. Its reconstruction of sub_790A40
// (barrier result liveness, cross-function modes) is too vague to follow
// literally; orilab removes exactly the two cases it can prove:
//
//  1. Back-to-back barriers. A BAR.SYNC that follows an identical
//     BAR.SYNC (same barrier and thread count operands) in the same block
//     with no memory access, atomic, barrier, fence, warp collective or
//     call in between. Every thread that reaches the second has just
//     passed the first with only register arithmetic since, so the second
//     orders no memory operation the first did not.
//  2. A barrier with nothing after it. A BAR.SYNC followed in its block
//     only by such register arithmetic and then an unguarded EXIT (or a
//     kernel's RET). No thread does anything observable after it.
//
// Removing a barrier instruction changes how the barrier's generations
// line up between threads that wait at different instructions, which
// could deadlock or reorder them. So both cases also require that every
// thread of the CTA executes the same barrier instructions: the function
// is a kernel; every BAR in it is unguarded and sits in a block the
// uniformity analysis (uniform.go) proves CTA-uniform (not control
// dependent on any divergent branch or divergent early exit); and no
// function it may call contains a barrier.
//
// Example (case 1):
//
//	#35 BAR.SYNC 0x0                    #35 BAR.SYNC 0x0
//	#36 IADD3 %r9 = %r4, 0x1, RZ   =>   #36 IADD3 %r9 = %r4, 0x1, RZ
//	#37 BAR.SYNC 0x0
//	#38 LDS %r10 = [%r9]                #38 LDS %r10 = [%r9]

import (
	"fmt"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableRedundantBarrierRemoval", Type: knobs.TypeBool,
		Doc:     "Switch off the redundant barrier removal pass (OriRemoveRedundantBarriers).",
		Readers: []string{"OriRemoveRedundantBarriers"}})
}

// RemoveRedundantBarriers removes a BAR.SYNC right after an identical one
// (only register arithmetic between) or right before EXIT, when every
// thread runs the same barriers (phase OriRemoveRedundantBarriers).
var RemoveRedundantBarriers = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		if c.Bool("DisableRedundantBarrierRemoval") {
			return false, nil
		}
		return removeRedundantBarriers(f, c.Module, c.Sites)
	},
	NoOp: func(c *Context) string {
		if c.Bool("DisableRedundantBarrierRemoval") {
			return "switched off by the knob DisableRedundantBarrierRemoval"
		}
		return ""
	},
}

func removeRedundantBarriers(f *ori.Func, m *ori.Module, sites *Sites) (bool, error) {
	if !f.Entry || !hasBarrier(f) {
		return false, nil
	}
	if err := f.ComputeCFG(); err != nil {
		return false, err
	}
	if callsBarrier(f, m) {
		return false, nil
	}
	u := analyzeUniformity(f)
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpBAR && (in.Guarded() || u.divBlock[b]) {
				return false, nil
			}
		}
	}
	changed := false
	for _, b := range f.Blocks {
		var prev *ori.Inst // the last BAR.SYNC with only arithmetic since
		kept := b.Insts[:0]
		for i, in := range b.Insts {
			switch {
			case isBarSync(in) && prev != nil && sameBarrier(prev, in) &&
				sites.Allow(f, in.ID, fmt.Sprintf("remove the barrier right after #%d", prev.ID)):
				changed = true
				continue
			case isBarSync(in) && quietUntilExit(b.Insts[i+1:]) &&
				sites.Allow(f, in.ID, "remove the barrier before the exit"):
				changed = true
				continue
			case isBarSync(in):
				prev = in
			case orders(in):
				prev = nil
			}
			kept = append(kept, in)
		}
		for i := len(kept); i < len(b.Insts); i++ {
			b.Insts[i] = nil
		}
		b.Insts = kept
	}
	return changed, nil
}

// isBarSync matches an unguarded BAR.SYNC.
func isBarSync(in *ori.Inst) bool {
	return in.Op == ori.OpBAR && len(in.Mods) == 1 && in.Mods[0] == "SYNC" && !in.Guarded() && len(in.Dsts) == 0
}

// sameBarrier reports whether two BAR.SYNCs name the same barrier and
// thread count. Only immediate operands are compared: a register operand
// could change between the two, so two barriers with register operands
// never count as the same.
func sameBarrier(a, b *ori.Inst) bool {
	if len(a.Srcs) != len(b.Srcs) {
		return false
	}
	for i := range a.Srcs {
		x, y := a.Srcs[i], b.Srcs[i]
		if x.Kind != ori.OpdImm || y.Kind != ori.OpdImm || x.Imm != y.Imm {
			return false
		}
	}
	return true
}

// orders reports whether in accesses memory or synchronizes in a way a
// barrier orders (so a barrier after it is not redundant).
func orders(in *ori.Inst) bool {
	fl := in.Op.Flags()
	return fl&(ori.FLoad|ori.FStore|ori.FAtomic|ori.FBarrier|ori.FWarp|ori.FCall|ori.FIndirect) != 0 ||
		in.Op.Has(ori.FSideEffect) && !in.Op.Has(ori.FExit) && in.Op != ori.OpBRA
}

// quietUntilExit reports whether rest is only instructions that order
// nothing, then an unguarded EXIT or RET.
func quietUntilExit(rest []*ori.Inst) bool {
	for _, in := range rest {
		if (in.Op == ori.OpEXIT || in.Op == ori.OpRET) && !in.Guarded() {
			return true
		}
		if orders(in) || in.Op.Has(ori.FSideEffect) {
			return false
		}
	}
	return false
}

func hasBarrier(f *ori.Func) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpBAR {
				return true
			}
		}
	}
	return false
}

// callsBarrier reports whether f calls anything (directly, or
// indirectly through a function pointer) when the module has another
// function with a barrier.
func callsBarrier(f *ori.Func, m *ori.Module) bool {
	calls := false
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			calls = calls || in.Op.Has(ori.FCall)
		}
	}
	if !calls {
		return false
	}
	if m == nil {
		return true
	}
	for _, g := range m.Funcs {
		if g != f && hasBarrier(g) {
			return true
		}
	}
	return false
}
