package opt_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/internal/zluda"
	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/opt"
	"orilab/pipeline/ori"
	"orilab/pipeline/sim"
	"orilab/pipeline/spec"
)

// loopPhases are the phases built in loops.go and its siblings.
var loopPhases = []string{
	"OriLoopSimplification", "OriStrengthReduce", "OriLoopUnrolling",
	"OriHoistInvariantsEarly", "OriHoistInvariantsLate", "OriHoistInvariantsLate2", "OriHoistInvariantsLate3",
}

func TestFindLoops(t *testing.T) {
	f, err := ori.ParseFunc("k.ori", []byte(`.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r1 = 0x0 ;
BB1:
	#2 MOV %r2 = 0x0 ;
BB2:
	#3 IADD3 %r2 = %r2, 0x1, RZ ;
	#4 ISETP.LT.AND %p0, PT = %r2, 0x4, PT ;
	#5 @%p0 BRA BB2 ;
BB3:
	#6 IADD3 %r1 = %r1, 0x1, RZ ;
	#7 ISETP.EQ.AND %p1, PT = %r1, 0x9, PT ;
	#8 @%p1 EXIT ;
BB5:
	#9 ISETP.LT.AND %p2, PT = %r1, 0x4, PT ;
	#10 @%p2 BRA BB1 ;
BB4:
	#11 EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	lf := opt.FindLoops(f)
	ids := func(bs []*ori.Block) string {
		var s []string
		for _, b := range bs {
			s = append(s, fmt.Sprintf("BB%d", b.ID))
		}
		return strings.Join(s, " ")
	}
	var got []string
	for _, l := range lf.InnerFirst() {
		pre := "none"
		if p := l.Preheader(); p != nil {
			pre = fmt.Sprintf("BB%d", p.ID)
		}
		got = append(got, fmt.Sprintf("header BB%d depth %d blocks [%s] latches [%s] exiting [%s] exits [%s] preheader %s innermost %v",
			l.Header.ID, l.Depth, ids(l.Blocks), ids(l.Latches), ids(l.Exiting), ids(l.Exits), pre, l.Innermost()))
	}
	want := []string{
		"header BB2 depth 2 blocks [BB2] latches [BB2] exiting [BB2] exits [BB3] preheader BB1 innermost true",
		// BB3 leaves through its guarded EXIT.
		"header BB1 depth 1 blocks [BB1 BB2 BB3 BB5] latches [BB5] exiting [BB3 BB5] exits [BB4] preheader BB0 innermost false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if lf.LoopOf(f.BlockByID(3)).Header.ID != 1 || lf.LoopOf(f.BlockByID(2)).Header.ID != 2 || lf.LoopOf(f.BlockByID(4)) != nil {
		t.Error("LoopOf does not give the innermost loop")
	}
	if lf.Irreducible {
		t.Error("a reducible CFG reported irreducible")
	}

	// Two entries into one cycle: no natural loop, and Irreducible.
	g, err := ori.ParseFunc("k.ori", []byte(`.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.LT.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r0 = %r0, 0x1, RZ ;
BB2:
	#5 ISETP.LT.AND %p1, PT = %r0, 0x10, PT ;
	#6 @%p1 BRA BB1 ;
BB3:
	#7 EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if lg := opt.FindLoops(g); len(lg.Loops) != 0 || !lg.Irreducible {
		t.Errorf("irreducible cycle: %d loops, Irreducible=%v", len(lg.Loops), lg.Irreducible)
	}
}

// loopSpecs loads testdata/opt/loop_*.json.
func loopSpecs(t *testing.T) []*spec.Spec {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "opt", "loop_*.json"))
	if len(files) == 0 {
		t.Fatal("no testdata/opt/loop_*.json")
	}
	var out []*spec.Spec
	for _, f := range files {
		s, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestLoopSpecsAfterLoopPhases compiles every loop spec at -O2, -O3 and
// -O4 (where OriLoopSimplification runs) with the verifier on, and
// executes the IR after every loop phase that changed it.
func TestLoopSpecsAfterLoopPhases(t *testing.T) {
	mine := map[string]bool{}
	for _, p := range loopPhases {
		mine[p] = true
	}
	for _, s := range loopSpecs(t) {
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []int{2, 3, 4} {
			sess, err := pipeline.NewSession(s.PTXPath, src, pipeline.Options{}, pipeline.PhaseOptions{OptLevel: o, Verify: true})
			if err != nil {
				t.Fatalf("%s -O%d: %v", s.Name, o, err)
			}
			if err := sess.RunAll(); err != nil {
				t.Fatalf("%s -O%d: %v", s.Name, o, err)
			}
			for _, sn := range sess.Snapshots {
				if sn.Status != pipeline.StatusChanged || !mine[sn.Name] {
					continue
				}
				rep, err := pipeline.Execute(sn.Module, s, pipeline.RunOptions{})
				switch {
				case err != nil:
					t.Errorf("%s -O%d after %s: %v", s.Name, o, sn.Name, err)
				case !rep.Pass:
					t.Errorf("%s -O%d after %s: %s", s.Name, o, sn.Name, strings.TrimSpace(spec.FormatResults(rep.Results)))
				}
			}
			rep, err := pipeline.Execute(sess.Module(), s, pipeline.RunOptions{})
			if err != nil || !rep.Pass {
				t.Errorf("%s -O%d: final IR: %v %+v", s.Name, o, err, rep)
			}
		}
	}
}

// loopSession compiles a spec's PTX at level o with knob settings and
// runs every phase.
func loopSession(t *testing.T, path string, o int, disable []string, settings ...string) *pipeline.Session {
	t.Helper()
	sess, err := loopCompile(path, o, disable, settings...)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func loopCompile(path string, o int, disable []string, settings ...string) (*pipeline.Session, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ks, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: settings})
	if err != nil {
		return nil, err
	}
	sess, err := pipeline.NewSession(path, src, pipeline.Options{}, pipeline.PhaseOptions{OptLevel: o, Knobs: ks, DisablePhases: disable, Verify: true})
	if err != nil {
		return nil, err
	}
	return sess, sess.RunAll()
}

func loopStatus(t *testing.T, sess *pipeline.Session, phase string) pipeline.Status {
	t.Helper()
	for _, sn := range sess.Snapshots {
		if sn.Name == phase {
			return sn.Status
		}
	}
	t.Fatalf("no snapshot of %s", phase)
	return 0
}

// TestLoopPhasesChangeTheirKernels checks that each loop phase changes
// the kernel written for it and that its knob switches it off.
func TestLoopPhasesChangeTheirKernels(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "opt")
	for _, c := range []struct {
		ptx, phase string
		o          int
		off        string
	}{
		{"loop_unroll.ptx", "OriLoopUnrolling", 3, "LoopUnroll=0"},
		{"loop_licm.ptx", "OriHoistInvariantsEarly", 3, "HoistLate=3"},
		{"loop_strength.ptx", "OriStrengthReduce", 3, "LoopMakeSingleEntry=0"},
		{"loop_licm.ptx", "OriLoopSimplification", 4, "DisablePhases=OriLoopSimplification"},
	} {
		path := filepath.Join(dir, c.ptx)
		if st := loopStatus(t, loopSession(t, path, c.o, nil), c.phase); st != pipeline.StatusChanged {
			t.Errorf("%s on %s: %s, want changed", c.phase, c.ptx, st)
		}
		var disable []string
		settings := []string{c.off}
		if v, ok := strings.CutPrefix(c.off, "DisablePhases="); ok {
			disable, settings = []string{v}, nil
		}
		if st := loopStatus(t, loopSession(t, path, c.o, disable, settings...), c.phase); st == pipeline.StatusChanged {
			t.Errorf("%s on %s with %s: still changed", c.phase, c.ptx, c.off)
		}
	}
}

// loopCount is the static and dynamic size of one compiled kernel.
type loopCount struct {
	static      int
	warpSteps   int64
	threadInsts int64
}

func loopMeasure(t *testing.T, s *spec.Spec, disable []string) (loopCount, error) {
	t.Helper()
	// The header-exit loops of loop_sum8 and loop_poly, which ptxas and
	// orilab's default leave rolled, are unrolled here: the table shows
	// what the loop phases can save.
	sess, err := loopCompile(s.PTXPath, 3, disable, "UnrollHeaderExitLoops=1")
	if err != nil {
		return loopCount{}, err
	}
	m := sess.Module()
	var c loopCount
	if f := m.Func(s.Kernel); f != nil {
		c.static = f.NumInsts()
	}
	rep, err := pipeline.Execute(m, s, pipeline.RunOptions{})
	if err != nil {
		return c, err
	}
	if !rep.Pass {
		return c, fmt.Errorf("%s", strings.TrimSpace(spec.FormatResults(rep.Results)))
	}
	c.warpSteps, c.threadInsts = rep.Stats.WarpSteps, rep.Stats.ThreadInsts
	return c, nil
}

// TestLoopPassesMeasure compares -O3 with and without the loop phases on
// the loop specs and on testdata/kernels: static instructions of the
// kernel, and the simulator's dynamic counts. Every loop spec must run
// fewer warp instructions with the loop phases; the table is logged (go
// test -v -run TestLoopPassesMeasure).
func TestLoopPassesMeasure(t *testing.T) {
	specs := loopSpecs(t)
	kfiles, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "*.json"))
	sort.Strings(kfiles)
	var others []*spec.Spec
	for _, f := range kfiles {
		s, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		others = append(others, s)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %13s %21s %23s\n", "spec", "static", "warp insts", "thread insts")
	row := func(s *spec.Spec) (loopCount, loopCount, error) {
		before, err := loopMeasure(t, s, loopPhases)
		if err != nil {
			// A kernel that fails without the loop phases (a known
			// failure of testdata/kernels) has nothing to compare.
			fmt.Fprintf(&b, "%-16s (fails without the loop phases)\n", s.Name)
			return before, before, nil
		}
		after, err := loopMeasure(t, s, nil)
		if err != nil {
			return before, after, fmt.Errorf("%s: with the loop phases: %v", s.Name, err)
		}
		fmt.Fprintf(&b, "%-16s %5d -> %5d %9d -> %9d %10d -> %10d\n", s.Name, before.static, after.static,
			before.warpSteps, after.warpSteps, before.threadInsts, after.threadInsts)
		return before, after, nil
	}
	for _, s := range specs {
		before, after, err := row(s)
		if err != nil {
			t.Error(err)
			continue
		}
		if s.Name == "loop_break" {
			continue // two exits: nothing for the loop phases to do
		}
		if after.warpSteps >= before.warpSteps {
			t.Errorf("%s: %d warp instructions with the loop phases, %d without", s.Name, after.warpSteps, before.warpSteps)
		}
	}
	for _, s := range others {
		if s.CompileOnly {
			continue
		}
		if _, _, err := row(s); err != nil {
			t.Error(err)
		}
	}
	// The ZLUDA conversions: totals, and a row for each spec the loop
	// phases change.
	cases, err := zluda.Load(testenv.Shared(t))
	if err != nil {
		t.Fatal(err)
	}
	var tb, ta loopCount
	n := 0
	for _, c := range cases {
		if c.Skip != "" || c.Spec == nil || c.Spec.CompileOnly {
			continue
		}
		before, err := loopMeasure(t, c.Spec, loopPhases)
		if err != nil {
			continue // a known failure of the conversion
		}
		after, err := loopMeasure(t, c.Spec, nil)
		if err != nil {
			t.Errorf("ZLUDA %s: with the loop phases: %v", c.Name, err)
			continue
		}
		n++
		tb.static += before.static
		ta.static += after.static
		tb.warpSteps += before.warpSteps
		ta.warpSteps += after.warpSteps
		tb.threadInsts += before.threadInsts
		ta.threadInsts += after.threadInsts
		if before != after {
			fmt.Fprintf(&b, "%-16s %5d -> %5d %9d -> %9d %10d -> %10d\n", c.Name, before.static, after.static,
				before.warpSteps, after.warpSteps, before.threadInsts, after.threadInsts)
		}
	}
	fmt.Fprintf(&b, "%-16s %5d -> %5d %9d -> %9d %10d -> %10d\n", fmt.Sprintf("ZLUDA (%d)", n), tb.static, ta.static,
		tb.warpSteps, ta.warpSteps, tb.threadInsts, ta.threadInsts)
	t.Logf("-O3 without -> with the loop phases\n%s", b.String())
}

// loopClangCase is a testdata/cuda kernel with a launch for measuring.
type loopClangCase struct {
	cu, kernel string
	grid       [3]int
	block      [3]int
	params     string // the spec's "params" list
}

var loopClangCases = []loopClangCase{
	{"matmul_tiled.cu", "matmul_tiled", [3]int{2, 2, 1}, [3]int{16, 16, 1}, `[
		{"name": "A", "kind": "buffer", "elem": "f32", "count": 1024, "init": "lcg:1"},
		{"name": "B", "kind": "buffer", "elem": "f32", "count": 1024, "init": "lcg:2"},
		{"name": "C", "kind": "buffer", "elem": "f32", "count": 1024, "init": "zero"},
		{"name": "M", "kind": "scalar", "type": "s32", "value": "32"},
		{"name": "N", "kind": "scalar", "type": "s32", "value": "32"},
		{"name": "K", "kind": "scalar", "type": "s32", "value": "32"}]`},
	{"reduce_shared.cu", "reduce_shared", [3]int{4, 1, 1}, [3]int{256, 1, 1}, `[
		{"name": "in", "kind": "buffer", "elem": "f32", "count": 4096, "init": "lcg:3"},
		{"name": "out", "kind": "buffer", "elem": "f32", "count": 4, "init": "zero"},
		{"name": "n", "kind": "scalar", "type": "u32", "value": "4096"}]`},
	{"predicated_loop.cu", "predicated_loop", [3]int{2, 1, 1}, [3]int{64, 1, 1}, `[
		{"name": "x", "kind": "buffer", "elem": "f32", "count": 1024, "init": "lcg:4"},
		{"name": "y", "kind": "buffer", "elem": "f32", "count": 1024, "init": "zero"},
		{"name": "count", "kind": "buffer", "elem": "s32", "count": 1, "init": "zero"},
		{"name": "n", "kind": "scalar", "type": "s32", "value": "1024"},
		{"name": "thr", "kind": "scalar", "type": "f32", "value": "0.5"},
		{"name": "alpha", "kind": "scalar", "type": "f32", "value": "0.25"}]`},
	{"predicated_loop.cu", "predicated_loop_int", [3]int{2, 1, 1}, [3]int{64, 1, 1}, `[
		{"name": "a", "kind": "buffer", "elem": "s32", "count": 1024, "init": "lcg:5"},
		{"name": "out", "kind": "buffer", "elem": "s32", "count": 128, "init": "zero"},
		{"name": "n", "kind": "scalar", "type": "s32", "value": "128"},
		{"name": "lo", "kind": "scalar", "type": "s32", "value": "-1000000"},
		{"name": "hi", "kind": "scalar", "type": "s32", "value": "1000000"}]`},
	{"scan.cu", "scan_inclusive", [3]int{1, 1, 1}, [3]int{256, 1, 1}, `[
		{"name": "in", "kind": "buffer", "elem": "f32", "count": 256, "init": "lcg:6"},
		{"name": "out", "kind": "buffer", "elem": "f32", "count": 256, "init": "zero"},
		{"name": "n", "kind": "scalar", "type": "s32", "value": "256"}]`},
}

// TestLoopPassesMeasureClang measures the loop phases on kernels of
// testdata/cuda compiled by clang-19 at -O0 and -O3 (skipped without
// clang-19): the output buffers must be identical with and without the
// loop phases, and the static and dynamic counts are logged.
func TestLoopPassesMeasureClang(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with clang-19")
	}
	clang := testenv.Clang(t)
	cudaDir := filepath.Join(testenv.RepoRoot(t), "testdata", "cuda")
	tmp := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "%-26s %13s %21s %23s\n", "kernel", "static", "warp insts", "thread insts")
	for _, c := range loopClangCases {
		for _, level := range []string{"O0", "O3"} {
			ptx := filepath.Join(tmp, strings.TrimSuffix(c.cu, ".cu")+"."+level+".ptx")
			if _, err := os.Stat(ptx); err != nil {
				cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
					"--cuda-gpu-arch=sm_75", "-"+level, "-I", cudaDir, "-S", filepath.Join(cudaDir, c.cu), "-o", ptx)
				if msg, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("clang-19 %s: %v: %s", c.cu, err, msg)
				}
			}
			text := fmt.Sprintf(`{"name": %q, "ptx": %q, "kernel": %q, "launch": {"grid": [%d, %d, %d], "block": [%d, %d, %d]}, "params": %s}`,
				c.kernel+"."+level, filepath.Base(ptx), c.kernel, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2], c.params)
			s, err := spec.Parse(c.kernel+".json", []byte(text), tmp)
			if err != nil {
				t.Fatal(err)
			}
			run := func(disable []string) ([][]byte, loopCount) {
				sess := loopSession(t, ptx, 3, disable)
				bufs, st, err := pipeline.ExecuteBuffers(sess.Module(), s, pipeline.RunOptions{})
				if err != nil {
					t.Fatalf("%s: %v", s.Name, err)
				}
				return bufs, loopCount{sess.Module().Func(c.kernel).NumInsts(), st.WarpSteps, st.ThreadInsts}
			}
			bb, before := run(loopPhases)
			ab, after := run(nil)
			for i := range bb {
				if !bytes.Equal(bb[i], ab[i]) {
					t.Errorf("%s: buffer %d differs with the loop phases", s.Name, i)
				}
			}
			fmt.Fprintf(&b, "%-26s %5d -> %5d %9d -> %9d %10d -> %10d\n", s.Name, before.static, after.static,
				before.warpSteps, after.warpSteps, before.threadInsts, after.threadInsts)
		}
	}
	t.Logf("clang-19 kernels, orilab -O3 without -> with the loop phases\n%s", b.String())
}

// loopRandomKernel generates a kernel with one counted loop of a random
// shape: start, step, comparison (signed or not, on either result of the
// ISETP, either branch polarity), the compare before or after the
// increment, a bottom-tested or clang-style loop, an optional if/else in
// the body, and the counter stored after the loop or not. Each lane
// stores its accumulator (and maybe the counter).
func loopRandomKernel(rng *rand.Rand) string {
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	imm := func(v int) string { return ori.Imm(int64(v)).String() }
	init := rng.Intn(11) - 5
	step := []int{1, 2, 3, -1, -2, 7}[rng.Intn(6)]
	trips := rng.Intn(12)
	if rng.Intn(3) == 0 {
		trips = 20 + rng.Intn(200) // too long for a full unroll
	}
	bound := init + step*trips + rng.Intn(3) - 1
	cmp := pick("LT", "LE", "GT", "GE", "NE", "EQ") + pick("", ".U32")
	onP := rng.Intn(2) == 0
	pdst := "%p0, PT"
	if !onP {
		pdst = "PT, %p0"
	}
	neg := pick("", "!")
	incFirst := rng.Intn(2) == 0
	shape := rng.Intn(3) // 0: bottom-tested, 1: clang's, 2: rotated (the latch falls into the header)
	clang := shape == 1
	twoEntries := rng.Intn(3) == 0
	ifElse := rng.Intn(2) == 0
	storeIV := rng.Intn(2) == 0
	mult := pick("0xc", "0x8", "-0x3", "c[0x0][0x168]")

	var b strings.Builder
	b.WriteString(".module sm_75 address_size=64\n\n.entry k\n.param out offset=0x160 size=0x8 align=0x8\n" +
		".param m offset=0x168 size=0x4 align=0x4\n.shared 0x0\n.local 0x0\n{\nBB0:\n" +
		"\t#1 MOV %r3 = c[0x0][0x160] ;\n\t#2 MOV %r3[1] = c[0x0][0x164] ;\n" +
		"\t#3 S2R %r6 = SR_LANEID ;\n\t#4 IMAD.WIDE.U32 %r3.64 = %r6, 0x8, %r3.64 ;\n" +
		"\t#5 MOV %r1 = 0x0 ;\n")
	fmt.Fprintf(&b, "\t#6 MOV %%r2 = %s ;\n", imm(init))
	if twoEntries {
		// A second way into the loop: no preheader.
		b.WriteString("\t#7 ISETP.LT.U32.AND %p7, PT = %r6, 0x5, PT ;\n\t#8 @%p7 BRA BB1 ;\nBB8:\n\t#9 IADD3 %r1 = %r1, 0x2, RZ ;\n")
	}
	inc := fmt.Sprintf("\t#30 IADD3 %%r2 = %%r2, %s, RZ ;\n", imm(step))
	test := fmt.Sprintf("\t#31 ISETP.%s.AND %s = %%r2, %s, PT ;\n", cmp, pdst, imm(bound))
	counter := inc + test
	if !incFirst {
		counter = test + inc
	}
	// The counter is read by the body only when useIV is set (otherwise
	// only through the multiply, so test replacement can retire it).
	useIV := rng.Intn(2) == 0
	mix := "0x5a"
	if useIV {
		mix = "%r2"
	}
	body := fmt.Sprintf("\t#20 IMAD %%r4 = %%r2, %s, %%r6 ;\n\t#21 IADD3 %%r7 = %%r6, 0x11, RZ ;\n"+
		"\t#22 IADD3 %%r1 = %%r1, %%r4, %%r7 ;\n\t#23 LOP3.LUT %%r1 = %%r1, %s, RZ, 0x3c, !PT ;\n", mult, mix)
	cond := "\t#24 ISETP.LT.U32.AND %p3, PT = %r6, 0x10, PT ;\n\t#25 @%p3 BRA BB5 ;\n" +
		"BB4:\n\t#26 IADD3 %r1 = %r1, 0x3, RZ ;\n\t#27 BRA BB6 ;\nBB5:\n" +
		fmt.Sprintf("\t#28 IADD3 %%r1 = %%r1, %s, %s ;\nBB6:\n", mix, mix)
	if shape == 2 {
		// The test alone in the header, laid out after the body.
		b.WriteString("\t#34 BRA BB1 ;\nBB10:\n" + body)
		if ifElse {
			b.WriteString(cond)
		}
		b.WriteString(inc + "BB1:\n" + test)
		fmt.Fprintf(&b, "\t#32 @%s%%p0 BRA BB10 ;\n", neg)
	} else if clang {
		// header: body, counter, exit branch; then (if/else); latch BRA.
		b.WriteString("BB1:\n" + body + counter)
		fmt.Fprintf(&b, "\t#32 @%s%%p0 BRA BB2 ;\n", neg)
		if ifElse {
			b.WriteString("BB7:\n" + cond)
		} else {
			b.WriteString("BB3:\n")
		}
		b.WriteString("\t#33 BRA BB1 ;\n")
	} else {
		b.WriteString("BB1:\n" + body)
		if ifElse {
			b.WriteString(cond)
		}
		b.WriteString(counter)
		fmt.Fprintf(&b, "\t#32 @%s%%p0 BRA BB1 ;\n", neg)
	}
	b.WriteString("BB2:\n\t#40 STG.E [%r3.64], %r1 ;\n")
	if storeIV {
		b.WriteString("\t#41 STG.E [%r3.64+0x4], %r2 ;\n")
	}
	b.WriteString("\t#42 EXIT ;\n}\n")
	return b.String()
}

// TestLoopPassesAgreeWithSimulator runs random counted loops through
// the unroller, strength reduction and LICM (each alone, and all in
// pipeline order) and compares what the transformed kernels store with
// the original, in the simulator.
func TestLoopPassesAgreeWithSimulator(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	run := func(m *ori.Module) ([64]uint32, error) {
		g := sim.NewGlobal()
		out := g.Alloc("out", 8*32)
		p := make([]byte, 8)
		binary.LittleEndian.PutUint64(p, out.Base)
		mp := []byte{37, 0, 0, 0}
		_, err := sim.Run(m, "k", sim.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Params: [][]byte{p, mp}}, g, sim.Options{MaxWarpSteps: 20000})
		var r [64]uint32
		for i := range r {
			r[i] = binary.LittleEndian.Uint32(out.Data[4*i:])
		}
		return r, err
	}
	ks, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: []string{"LoopUnroll=0"}})
	if err != nil {
		t.Fatal(err)
	}
	// The random loops have clang's header-exit shape as often as not:
	// unroll those too, so that path stays checked.
	hx, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: []string{"UnrollHeaderExitLoops=1"}})
	if err != nil {
		t.Fatal(err)
	}
	plans := []struct {
		name   string
		phases []string
		knobs  *knobs.Set
	}{
		{"unroll", []string{"OriLoopUnrolling"}, hx},
		{"strength", []string{"OriStrengthReduce"}, ks},
		{"licm", []string{"OriHoistInvariantsEarly"}, nil},
		{"all", []string{"OriLoopSimplification", "OriStrengthReduce", "OriLoopUnrolling", "OriHoistInvariantsEarly", "OriHoistInvariantsLate3"}, hx},
	}
	changed := map[string]int{}
	sites := map[string]int{}
	ran := 0
	for i := 0; i < 300; i++ {
		text := loopRandomKernel(rng)
		orig, err := ori.ParseModule("k.ori", []byte(text))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if err := orig.Funcs[0].ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		want, err := run(orig)
		if err != nil {
			continue // does not terminate within the step budget
		}
		ran++
		for _, p := range plans {
			m := orig.Clone()
			f := m.Funcs[0]
			any := false
			for _, name := range p.phases {
				pass, ok := opt.PassByPhase(name)
				if !ok {
					t.Fatalf("%s is not registered", name)
				}
				log := &opt.Sites{Record: true}
				c, err := pass.Run(f, &opt.Context{OptLevel: 4, Arch: 75, Module: m, Knobs: p.knobs, Sites: log})
				for _, st := range log.Log {
					what := st.What
					if i := strings.Index(what, " of "); i >= 0 {
						what = what[:i]
					}
					sites[p.name+": "+what]++
				}
				if err != nil {
					t.Fatalf("%s: %v\n%s", name, err, text)
				}
				if err := f.ComputeCFG(); err != nil {
					t.Fatal(err)
				}
				if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
					t.Fatalf("%s: %v\n%s\nafter:\n%s", p.name, err, text, f)
				}
				any = any || c
			}
			if !any {
				continue
			}
			changed[p.name]++
			got, err := run(m)
			if err != nil {
				t.Fatalf("%s: %v\n%s\nafter:\n%s", p.name, err, text, f)
			}
			if got != want {
				t.Fatalf("%s: stores %#x, original %#x\n%s\nafter:\n%s", p.name, got[:4], want[:4], text, f)
			}
		}
	}
	t.Logf("%d terminating kernels; changed and checked: %v", ran, changed)
	var keys []string
	for k := range sites {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%5d %s", sites[k], k)
	}
	for _, p := range plans {
		if changed[p.name] < ran/4 {
			t.Errorf("%s changed only %d of %d kernels", p.name, changed[p.name], ran)
		}
	}
}

func TestPassByPhaseNamesRows(t *testing.T) {
	n := 0
	for _, row := range pipeline.PhaseTable {
		if _, ok := opt.PassByPhase(row.Name); ok {
			n++
			if row.Fn.Run == nil {
				t.Errorf("%s: the tests run a pass for it, but its row has no code (%s)", row.Name, row.NoOp)
			}
		}
	}
	if n != 40 {
		t.Errorf("%d rows have a test pass, want 40", n)
	}
}
