package pipeline

// Compiling a module's functions in parallel.
//
// ptxas compiles the functions of a module one after another; orilab's
// phase manager runs each phase over every function before the next
// phase. Phases 0 (OriCheckInitialProgram) to 128
// (PlaceBlocksInSourceOrder) work on one function at a time and look at
// other functions only through calls: OriRemoveRedundantBarriers and the
// convergence pass read what a callee does, AllocateRegisters allocates
// whole-seen callees before their callers and reads their clobber sets.
// What a phase does to a function therefore depends only on that
// function, the functions it calls (transitively), the knobs, the target
// and -O. So the module splits into the connected components of its call
// graph, and each component goes through phases 0-128 as a module of its
// own, in its own session, on up to Jobs goroutines. The components'
// functions are the same *ori.Func values as the whole module's, which
// keeps them in module order; the sessions' back-end records are merged
// (register allocation statistics by name, the pre-allocation copy in
// module order) and the rest of the pipeline runs on the whole module as
// before: PostFixForMercTargets (129) picks the memory descriptor's
// uniform registers from those no function of the module uses, and the
// encoding, the cubin and the SASS text are the module's.
//
// What the components share is read-only while they run: the module's
// globals and texture variables (no phase before 129 writes them; the
// per-function data — shared-memory layout, the f64 literal pool, the
// local frame — lives on each ori.Func), the knob set (knobs.Set is
// immutable), the disabled-phase set and the phase table. Each function
// sees the same phases in the same order with the same context as in a
// serial compilation, so the output is byte for byte the serial one's
// (TestParallelSameOutput compares SASS, -v lines, cubins and the final
// IR; run under -race it finds state shared by accident: it passes).
//
// The later phases that work on each function alone
// (PostFixForMercTargets once it has chosen the descriptor's registers,
// the control words, the encoding and its round trip, the SASS text) run
// on up to Jobs functions at once through eachFunc and internal/par, and
// so does the lowering (lower.Options.Jobs); each reports the failure of
// the first function in module order, as the loop it replaces did.
//
// Decision: the split is only taken when nothing watches the phases one
// after another across the module: without snapshots (--stat,
// --trace, --print-*, --html, --remarks and the workbench record them),
// an Observer, DUMPIR, a planted fault, site bisection, NamedPhases or a
// test's phase override, and with more than one component and Jobs not 1.
// Those record or stream per-phase state of the whole module, and a
// component's phase run is not the module's. A phase that fails in any
// component makes the session lower the module again and run it
// serially from the start, so the error (which phase, which function,
// the message) is exactly the serial compilation's; failures are rare
// and the lowering is a small part of a compilation.

import (
	"sync/atomic"

	"orilab/internal/par"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
)

// phaseOverrides counts the phase overrides tests have installed
// (SetPhaseOverrideForTest): an override may treat the module as a whole
// (plant a fault in its first function), so none runs split.
var phaseOverrides atomic.Int32

// eachFunc runs fn on every function of c's module, on up to c.jobs
// goroutines, for the phases after the split whose work on a function
// reads and writes that function alone. The error (or panic) is the
// first function's in module order, as a loop stopping at the first
// failure would give (par.Do).
func eachFunc(c *PhaseContext, fn func(f *ori.Func) error) error {
	funcs := c.Module.Funcs
	return par.Do(len(funcs), c.jobs, func(i int) error { return fn(funcs[i]) })
}

// components returns m's functions grouped by the connected components
// of the call graph, each group in module order, the groups ordered by
// their first function. A function that names another (a call, or its
// address taken) is in its component; a function with an indirect call
// is in the component of every function that is not a kernel, as any of
// them could be its target. The functions with a DDIV are in one
// component: expanding a DDIV (ConvertUnsupportedOps at -O0,
// LateExpansionUnsupportedOps above) calls a slow-path subroutine the
// module's DDIVs share and the expansion makes on first use
// (OutlineF64SlowPath), so they share it in one sub-module, which adds
// it to its end as the serial compilation adds it to the module's
// (runSplit carries it over).
func components(m *ori.Module) [][]*ori.Func {
	index := make(map[string]int, len(m.Funcs))
	for i, f := range m.Funcs {
		index[f.Name] = i
	}
	parent := make([]int, len(m.Funcs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		a, b = find(a), find(b)
		if a < b {
			a, b = b, a
		}
		parent[a] = b
	}
	var indirect []int
	ddiv := -1 // the first function with a DDIV
	for i, f := range m.Funcs {
		hasIndirect := false
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpDDIV {
					if ddiv < 0 {
						ddiv = i
					}
					union(i, ddiv)
				}
				for k := range in.Srcs {
					if o := &in.Srcs[k]; o.Kind == ori.OpdSym {
						if j, ok := index[o.Name]; ok {
							union(i, j)
						}
					}
				}
				if in.Op == ori.OpCALL && (len(in.Srcs) == 0 || !in.Srcs[0].IsFuncAddr()) {
					hasIndirect = true
				}
			}
		}
		if hasIndirect {
			indirect = append(indirect, i)
		}
	}
	for _, i := range indirect {
		for j, g := range m.Funcs {
			if !g.Entry {
				union(i, j)
			}
		}
	}
	var out [][]*ori.Func
	slot := map[int]int{}
	for i, f := range m.Funcs {
		r := find(i)
		k, ok := slot[r]
		if !ok {
			k = len(out)
			slot[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], f)
	}
	return out
}

// mergeBackends joins the back-end records of the components' sessions into
// the module's: the allocation statistics (function names are distinct)
// and, where kept, the pre-allocation copy with its functions in module
// order.
func mergeBackends(m *ori.Module, backends []*Backend) *Backend {
	var out *Backend
	pre := map[string]*ori.Func{}
	var preMod *ori.Module
	for _, b := range backends {
		if b == nil {
			continue
		}
		if out == nil {
			out = &Backend{}
		}
		if b.RAStats != nil {
			if out.RAStats == nil {
				out.RAStats = map[string]*regalloc.Stats{}
			}
			for name, st := range b.RAStats {
				out.RAStats[name] = st
			}
		}
		if b.PreRA != nil {
			if preMod == nil {
				preMod = b.PreRA
			}
			for _, f := range b.PreRA.Funcs {
				pre[f.Name] = f
			}
		}
	}
	if preMod != nil {
		merged := *preMod
		merged.Funcs = make([]*ori.Func, 0, len(m.Funcs))
		for _, f := range m.Funcs {
			if g := pre[f.Name]; g != nil {
				merged.Funcs = append(merged.Funcs, g)
			}
		}
		out.PreRA = &merged
	}
	return out
}
