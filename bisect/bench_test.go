package bisect

import (
	"context"
	"sort"
	"testing"

	"orilab/internal/testenv"
	"orilab/internal/zluda"
	"orilab/pipeline"
	"orilab/pipeline/spec"
)

// zludaBySize returns the runnable ZLUDA cases that pass at -O3, largest
// (in instructions after lowering) first.
func zludaBySize(tb testing.TB) []sized {
	tb.Helper()
	cases, err := zluda.Load(testenv.Shared(tb))
	if err != nil {
		tb.Fatal(err)
	}
	var out []sized
	for _, c := range cases {
		if c.Skip != "" || c.Spec == nil || c.Spec.CompileOnly {
			continue
		}
		rep, err := pipeline.RunSpec(c.Spec, pipeline.RunOptions{Request: pipeline.Request{OptLevel: 3}})
		if err != nil || !rep.Pass {
			continue
		}
		src, err := readPTX(c.Spec)
		if err != nil {
			tb.Fatal(err)
		}
		res, err := pipeline.CompileWith(c.Spec.PTXPath, src, pipeline.Options{}, pipeline.PhaseOptions{OptLevel: 0, NoSnapshots: true})
		if err != nil {
			continue
		}
		n := 0
		for _, f := range res.Lowered.Funcs {
			for _, b := range f.Blocks {
				n += len(b.Insts)
			}
		}
		out = append(out, sized{c.Spec, n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].insts > out[j].insts })
	return out
}

type sized struct {
	spec  *spec.Spec
	insts int
}

// BenchmarkPhaseBisectLargest times a whole phase-mode bisection (the
// oracle, the binary search, the confirmation) on the largest corpus
// kernel that a planted break can make fail, with the break in the last
// optional phase where it does. Target (issue 9): under 2 s.
func BenchmarkPhaseBisectLargest(b *testing.B) {
	var tr trial
	found := false
	for _, c := range zludaBySize(b) {
		if tr, found = plantLate(b, c.spec); found {
			b.Logf("kernel %s (%d lowered instructions), planted %s", c.spec.Name, c.insts, tr)
			break
		}
	}
	if !found {
		b.Fatal("no planted break makes any ZLUDA kernel fail")
	}
	s := tr.spec
	restore := pipeline.SetPhaseOverrideForTest(tr.phase, plant(tr.kind, tr.id))
	defer restore()
	execs := 0
	for b.Loop() {
		r, err := Phase(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}})
		if err != nil {
			b.Fatal(err)
		}
		if !r.Found || r.Name != tr.phase {
			b.Fatalf("bisect says %q (found %v: %s), planted in %s", r.Name, r.Found, r.Reason, tr.phase)
		}
		execs = r.Executions
	}
	b.ReportMetric(float64(execs), "execs/op")
}

// plantLate finds the latest active optional phase and break kind that
// make s fail, so the search has the most phases to cross.
func plantLate(tb testing.TB, s *spec.Spec) (trial, bool) {
	active := activeAtO3()
	for i := len(active) - 1; i >= 0; i-- {
		row := active[i]
		if row.Required {
			continue
		}
		for k := breakKind(0); k < numBreaks; k++ {
			tr := trial{spec: s, phase: row.Name, kind: k, id: -1}
			restore := pipeline.SetPhaseOverrideForTest(tr.phase, plant(tr.kind, tr.id))
			ok := breaks(tb, tr)
			restore()
			if ok {
				return tr, true
			}
		}
	}
	return trial{}, false
}
