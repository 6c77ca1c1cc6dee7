//go:build mufuextract

package pipeline

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/spec"
)

// TestMUFUExtract recovers single-instruction hardware data from the
// recorded programs of ../shared/hwtruth/fuzz-h100.tgz: which result the
// H100's tanh.approx.f32 gave for an operand the program computed. It
// wrote pipeline/sim/fp/testdata/tanh-h100-fuzz.txt (issue 18):
//
//	go test -tags mufuextract -run TestMUFUExtract -timeout 3h ./pipeline \
//		-mufuextract-out sim/fp/testdata/tanh-h100-fuzz.txt
//
// It takes about 40 minutes on one core. Each program with a
// tanh.approx statement runs at -O0 (sim.Options.MUFU sees every
// MUFU.TANH) and its operands are collected. Only the distinct operands
// in the ranges that the simulator's model did not reproduce when the
// data were extracted (|x| in (0x3b80c000, 0.5) and [2, 8)) are unknowns;
// the others keep the model's result. For each unknown x:
//
//   - which output words depend on its result: the words that change
//     when only x's result moves by 1 and by 97 ulps;
//   - if no other unknown shares one of those words, the run is repeated
//     with every unknown's result moved by c ulps (the bit pattern plus
//     c), c in [-160, 160]; the c for which all of x's words equal the
//     H100's are the candidates. One c gives the result exactly; a run of
//     them (a result that flows through a comparison or a rounding) a
//     range of results.
//
// A line of the output is "program x lo hi": the H100's tanh(x) lies in
// [lo, hi] (bit patterns, lo == hi when exact). Operands whose words are
// shared with another unknown, or whose results no word depends on, or
// for which no c matches (or the matches are not one run), give no line.
var mufuExtractOut = flag.String("mufuextract-out", "", "the file TestMUFUExtract writes")

func TestMUFUExtract(t *testing.T) {
	if *mufuExtractOut == "" {
		t.Fatal("-mufuextract-out FILE is required")
	}
	tgz := filepath.Join(testenv.Shared(t), "hwtruth", "fuzz-h100.tgz")
	dir := t.TempDir()
	if err := untgz(tgz, dir); err != nil {
		t.Fatalf("%s: %v", tgz, err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var b strings.Builder
	b.WriteString("# tanh.approx.f32 on the H100: operands and results recovered from the programs of\n")
	b.WriteString("# ../shared/hwtruth/fuzz-h100.tgz by TestMUFUExtract (pipeline/mufuextract_test.go).\n")
	b.WriteString("# program operand lo hi: the result lies in [lo, hi] (f32 bit patterns).\n")
	for _, file := range files {
		lines, err := extractTanh(file)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(file), err)
			continue
		}
		b.WriteString(lines)
	}
	if err := os.WriteFile(*mufuExtractOut, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tanhUnknown says whether x was in the ranges the tanh model did not
// reproduce when the data were extracted.
func tanhUnknown(x uint32) bool {
	m := x & 0x7fffffff
	return m > 0x3b80c000 && m < 0x3f000000 || m >= 0x40000000 && m < 0x41000000
}

// extractTanh returns the lines of one program (see TestMUFUExtract).
func extractTanh(file string) (string, error) {
	s, err := spec.Load(file)
	if err != nil {
		return "", err
	}
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		return "", err
	}
	if !strings.Contains(string(src), "tanh.approx.f32") {
		return "", nil
	}
	sess, err := NewSession(s.PTXPath, src, Options{Arch: 90}, PhaseOptions{OptLevel: 0, NoSnapshots: true})
	if err == nil {
		err = sess.RunTo(len(PhaseTable) - 1)
	}
	if err != nil {
		return "", err
	}
	m := sess.Module()
	var xs []uint32 // the unknowns, in order of appearance
	model := map[uint32]uint32{}
	var off map[uint32]int // x -> ulps added to its result
	baseline := true       // collecting the operands
	hook := func(fn string, x, y uint32) uint32 {
		if fn != "TANH" {
			return y
		}
		if _, ok := model[x]; !ok && baseline {
			model[x] = y
			if tanhUnknown(x) {
				xs = append(xs, x)
			}
		}
		return uint32(int64(y) + int64(off[x]))
	}
	// run returns every expected word and whether it is the H100's.
	type word struct {
		v  uint64
		ok bool
	}
	run := func() []word {
		bufs, _, err := ExecuteBuffers(m, s, RunOptions{MaxWarpSteps: 2_000_000, MUFU: hook})
		if err != nil {
			return nil
		}
		var ws []word
		for _, e := range s.Expect {
			buf := bufs[s.Owner(e.ParamIndex)]
			size, _ := spec.ElemSize(e.Elem)
			for i := 0; i < e.Count; i++ {
				var g uint64
				for k := size - 1; k >= 0; k-- {
					g = g<<8 | uint64(buf[i*size+k])
				}
				ws = append(ws, word{g, g == e.Values[i]})
			}
		}
		return ws
	}
	base := run()
	baseline = false
	if base == nil {
		return "", fmt.Errorf("does not run")
	}
	dep := make([][]int, len(xs))
	users := map[int]int{}
	for i, x := range xs {
		seen := map[int]bool{}
		for _, d := range []int{1, 97} {
			off = map[uint32]int{x: d}
			for j, w := range run() {
				if w.v != base[j].v && !seen[j] {
					seen[j] = true
					dep[i] = append(dep[i], j)
					users[j]++
				}
			}
		}
	}
	alone := func(i int) bool {
		for _, j := range dep[i] {
			if users[j] > 1 {
				return false
			}
		}
		return len(dep[i]) > 0
	}
	match := make([][]int, len(xs))
	for c := -160; c <= 160; c++ {
		off = map[uint32]int{}
		for _, x := range xs {
			off[x] = c
		}
		ws := run()
		if ws == nil {
			continue
		}
		for i := range xs {
			ok := alone(i)
			for _, j := range dep[i] {
				ok = ok && ws[j].ok
			}
			if ok {
				match[i] = append(match[i], c)
			}
		}
	}
	var b strings.Builder
	for i, x := range xs {
		c := match[i]
		if len(c) == 0 || c[len(c)-1]-c[0]+1 != len(c) {
			continue
		}
		y := int64(model[x])
		fmt.Fprintf(&b, "%s %08x %08x %08x\n", s.Name, x, y+int64(c[0]), y+int64(c[len(c)-1]))
	}
	return b.String(), nil
}
