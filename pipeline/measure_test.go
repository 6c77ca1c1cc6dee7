package pipeline

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// TestO3VersusO0 measures what the optimizer buys over the whole spec
// set (allSpecs): each spec is compiled at -O0 and -O3 through the last
// phase, its static instruction count (every function of the module) is
// taken from the final code, and its dynamic count (instructions executed,
// once per thread) from the simulator, which must also pass the spec at
// both levels. It fails when -O3 executes more instructions than -O0 over
// the whole set; go test -v -run TestO3VersusO0 prints the ratios, their
// means and the worst kernels (the closing note's numbers).
func TestO3VersusO0(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs every spec twice")
	}
	type row struct {
		name              string
		s0, s3, d0, d3    int64
		staticR, dynamicR float64
	}
	var rows []row
	var tot row
	for _, s := range allSpecs(t) {
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		var r row
		r.name = s.Name
		for _, o := range []int{0, 3} {
			res, err := CompileWith(s.PTXPath, src, Options{}, PhaseOptions{OptLevel: o, NoSnapshots: true})
			if err != nil {
				t.Errorf("%s -O%d: %v", s.Name, o, err)
				continue
			}
			static := int64(0)
			for _, f := range res.Final.Funcs {
				static += int64(f.NumInsts())
			}
			rep, err := Execute(res.Final, s, RunOptions{MaxWarpSteps: 5_000_000})
			if err != nil || !rep.Pass {
				t.Errorf("%s -O%d does not pass: %v", s.Name, o, err)
				continue
			}
			if o == 0 {
				r.s0, r.d0 = static, rep.Stats.ThreadInsts
			} else {
				r.s3, r.d3 = static, rep.Stats.ThreadInsts
			}
		}
		if r.s0 == 0 || r.d0 == 0 || r.s3 == 0 {
			continue
		}
		r.staticR, r.dynamicR = float64(r.s3)/float64(r.s0), float64(r.d3)/float64(r.d0)
		rows = append(rows, r)
		tot.s0, tot.s3, tot.d0, tot.d3 = tot.s0+r.s0, tot.s3+r.s3, tot.d0+r.d0, tot.d3+r.d3
	}
	if len(rows) == 0 {
		t.Fatal("no spec measured")
	}
	var sumS, sumD float64
	for _, r := range rows {
		sumS += r.staticR
		sumD += r.dynamicR
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d specs, -O3 / -O0: static mean %.1f%% (total %d -> %d), dynamic mean %.1f%% (total %d -> %d thread instructions)\n",
		len(rows), 100*sumS/float64(len(rows)), tot.s0, tot.s3, 100*sumD/float64(len(rows)), tot.d0, tot.d3)
	worst := func(what string, key func(r row) float64, counts func(r row) (int64, int64)) {
		sort.Slice(rows, func(i, j int) bool { return key(rows[i]) > key(rows[j]) })
		fmt.Fprintf(&b, "worst %s:", what)
		for _, r := range rows[:min(3, len(rows))] {
			o0, o3 := counts(r)
			fmt.Fprintf(&b, " %s %.1f%% (%d -> %d)", r.name, 100*key(r), o0, o3)
		}
		b.WriteString("\n")
	}
	worst("static", func(r row) float64 { return r.staticR }, func(r row) (int64, int64) { return r.s0, r.s3 })
	worst("dynamic", func(r row) float64 { return r.dynamicR }, func(r row) (int64, int64) { return r.d0, r.d3 })
	best := rows[len(rows)-1]
	fmt.Fprintf(&b, "best dynamic: %s %.1f%%\n", best.name, 100*best.dynamicR)
	t.Log("\n" + b.String())
	if tot.d3 > tot.d0 {
		t.Errorf("-O3 executes more instructions than -O0 over the spec set: %d > %d", tot.d3, tot.d0)
	}
}
