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
// (TestParallelSameOutput compares SASS, -v lines and cubins, under
// -race in CI's race job).
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
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
)

// splitEnd is the first phase that works on the whole module at once.
var splitEnd = mustPhase("PostFixForMercTargets")

// phaseOverrides counts the phase overrides tests have installed
// (SetPhaseOverrideForTest): an override may treat the module as a whole
// (plant a fault in its first function), so none runs split.
var phaseOverrides atomic.Int32

// jobs is how many goroutines compile components at once.
func (s *Session) jobs() int {
	if s.opts.Jobs > 0 {
		return s.opts.Jobs
	}
	return runtime.GOMAXPROCS(0)
}

// parallelOK reports whether the session may compile functions at once
// (see the Decision above): nothing watches the phases in order.
func (s *Session) parallelOK() bool {
	o := &s.opts
	return !s.serialOnly && s.jobs() > 1 &&
		len(o.NamedPhases) == 0 && o.NoSnapshots && o.Observer == nil &&
		o.Fault == nil && o.Sites == nil && !o.RecordSites && o.DumpIR == "" &&
		phaseOverrides.Load() == 0
}

// canSplit reports whether the next phases up to last may run per
// component.
func (s *Session) canSplit(last int) bool {
	return s.pos == 0 && last >= splitEnd-1 && s.parallelOK()
}

// eachFunc runs fn on every function of c's module, on up to c.jobs
// goroutines, for the phases after the split whose work on a function
// reads and writes that function alone. The error is the first
// function's in module order, as a loop stopping at the first failure
// would return.
func eachFunc(c *PhaseContext, fn func(f *ori.Func) error) error {
	funcs := c.Module.Funcs
	if c.jobs <= 1 || len(funcs) < 2 {
		for _, f := range funcs {
			if err := fn(f); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(funcs))
	parallelFor(len(funcs), c.jobs, func(i int) { errs[i] = fn(funcs[i]) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// components returns m's functions grouped by the connected components
// of the call graph, each group in module order, the groups ordered by
// their first function. A function that names another (a call, or its
// address taken) is in its component; a function with an indirect call
// is in the component of every function that is not a kernel, as any of
// them could be its target.
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
	for i, f := range m.Funcs {
		hasIndirect := false
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
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

// runSplit runs phases 0 to splitEnd-1 per component, when the module has
// more than one (ran is false otherwise, and nothing ran). On a phase's
// failure the module is lowered again and the caller runs it serially.
func (s *Session) runSplit() (ran bool, err error) {
	comps := components(s.cur)
	if len(comps) < 2 {
		return false, nil
	}
	m := s.cur
	subs := make([]*Session, len(comps))
	size := make([]int, len(comps))
	for i, fs := range comps {
		sub := &Session{PTX: s.PTX, opts: s.opts, disabled: s.disabled, arch: s.arch, order: s.order[:splitEnd], serialOnly: true}
		sub.cur = &ori.Module{Arch: m.Arch, AddressSize: m.AddressSize, Globals: m.Globals, TexVars: m.TexVars, Funcs: fs}
		subs[i] = sub
		for _, f := range fs {
			size[i] += f.NumInsts()
		}
	}
	// The largest components first, so that a big kernel does not start
	// last and leave the other workers idle; the results land by index,
	// so the order of work does not reach the output.
	byWork := make([]int, len(comps))
	for i := range byWork {
		byWork[i] = i
	}
	sort.SliceStable(byWork, func(a, b int) bool { return size[byWork[a]] > size[byWork[b]] })
	errs := make([]error, len(comps))
	parallelFor(len(comps), s.jobs(), func(k int) {
		i := byWork[k]
		errs[i] = subs[i].RunTo(splitEnd - 1)
	})
	for _, e := range errs {
		if e == nil {
			continue
		}
		if ctx := s.opts.Context; ctx != nil && ctx.Err() != nil {
			return true, ctx.Err()
		}
		return true, s.relower()
	}
	s.backend = mergeBackends(m, subs)
	s.pos, s.splitInto = splitEnd, len(comps)
	return true, nil
}

// parallelFor calls fn(0) ... fn(n-1) on up to jobs goroutines, taking
// the indices in order, and returns when every call has returned.
func parallelFor(n, jobs int, fn func(i int)) {
	var next atomic.Int32
	var wg sync.WaitGroup
	for w := min(jobs, n); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// relower replaces the current IR, which the failed split left half
// compiled, by a fresh lowering, so that the serial run starts over.
func (s *Session) relower() error {
	m, err := lower.Lower(s.PTX, s.lowerOpts)
	if err != nil {
		return err
	}
	s.Lowered, s.cur, s.backend, s.pos = m, m, nil, 0
	s.serialOnly = true
	return nil
}

// mergeBackends joins the back-end records of the component sessions into
// the module's: the allocation statistics (function names are distinct)
// and, where kept, the pre-allocation copy with its functions in module
// order.
func mergeBackends(m *ori.Module, subs []*Session) *Backend {
	var out *Backend
	pre := map[string]*ori.Func{}
	var preMod *ori.Module
	for _, sub := range subs {
		b := sub.backend
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
