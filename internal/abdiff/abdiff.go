// Package abdiff compares two compilations of one module phase by phase:
// the A/B engine behind orilab diff and the workbench's A/B pane. Given
// the snapshots of compilation A and of compilation B (the same PTX with
// two knob sets), it finds the phases where they part: where the two
// phases did different things (ran, changed, disabled, no-op), or where
// the number of lines by which A's IR differs from B's changed. The IR
// compared is one function's, or the whole module's.
package abdiff

import (
	"context"

	"orilab/internal/irdiff"
	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// NotRun is the status of a phase that is not in a compilation.
const NotRun = "not run"

// Row is one phase where A and B part.
type Row struct {
	Index int
	Name  string
	// StatusA and StatusB are the phase's status in A and in B
	// (pipeline.Status's text, or NotRun).
	StatusA, StatusB string
	// Lines counts the lines by which A's IR differs from B's after the
	// phase (a changed line counts once); 0 when they are the same.
	Lines int
	// Grew is set when Lines changed at this phase: the phase is where
	// the IR starts to differ, or where the difference grows or shrinks.
	Grew bool
	// A and B are the IR text after the phase (of the function compared,
	// or the module). A phase that did not run keeps the previous text.
	A, B string
}

// Result is the comparison.
type Result struct {
	// Rows are the phases where A and B part, in pipeline order.
	Rows []Row
	// First is the index in Rows of the first phase after which the IR
	// differs, or -1 when it never does.
	First int
	// Last names the last phase either compilation ran; FinalA, FinalB
	// and FinalLines are the IR after it and how many lines differ.
	Last           string
	FinalA, FinalB string
	FinalLines     int
}

// Compare compares the snapshots of A and of B, for function fn (the
// whole module when fn is ""). A phase in only one of them counts as
// NotRun in the other.
func Compare(a, b []*pipeline.Snapshot, fn string) Result {
	res, _ := CompareContext(context.Background(), a, b, fn, nil)
	return res
}

// CompareContext is Compare that stops at the next phase once ctx is
// done, returning ctx's error: on a large module the comparison prints
// and aligns the whole IR after every phase, which takes seconds, and the
// workbench's c must stop it as it stops the compilation before it.
// progress, if set, is called before each phase compared with its index.
func CompareContext(ctx context.Context, a, b []*pipeline.Snapshot, fn string, progress func(index int)) (Result, error) {
	var by [2][len(pipeline.PhaseTable)]*pipeline.Snapshot
	for i, snaps := range [][]*pipeline.Snapshot{a, b} {
		for _, s := range snaps {
			by[i][s.Index] = s
		}
	}
	res := Result{First: -1}
	prev := 0
	for i, p := range pipeline.PhaseTable {
		sa, sb := by[0][i], by[1][i]
		if sa == nil && sb == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Result{First: -1}, err
		}
		if progress != nil {
			progress(i)
		}
		if sa != nil {
			res.FinalA, _ = FuncText(sa.Module, fn)
		}
		if sb != nil {
			res.FinalB, _ = FuncText(sb.Module, fn)
		}
		res.Last = p.Name
		d := Lines(res.FinalA, res.FinalB)
		r := Row{Index: i, Name: p.Name, StatusA: status(sa), StatusB: status(sb), Lines: d, Grew: d != prev, A: res.FinalA, B: res.FinalB}
		prev = d
		if r.StatusA == r.StatusB && !r.Grew {
			continue
		}
		if r.Grew && d > 0 && res.First < 0 {
			res.First = len(res.Rows)
		}
		res.Rows = append(res.Rows, r)
	}
	res.FinalLines = prev
	return res, nil
}

func status(s *pipeline.Snapshot) string {
	if s == nil {
		return NotRun
	}
	return s.Status.String()
}

// FuncText returns the text of function fn in m (the whole module for
// ""), and whether m has it.
func FuncText(m *ori.Module, fn string) (string, bool) {
	if m == nil {
		return "", false
	}
	if fn == "" {
		return m.String(), true
	}
	if f := m.Func(fn); f != nil {
		return f.String(), true
	}
	return "", false
}

// Lines counts the lines an aligned diff of a and b marks as changed,
// removed or added (a changed line counts once).
func Lines(a, b string) int {
	if a == b {
		return 0
	}
	n := 0
	for _, o := range irdiff.Align(irdiff.Lines(a), irdiff.Lines(b)) {
		if o.Kind != irdiff.Same {
			n++
		}
	}
	return n
}
