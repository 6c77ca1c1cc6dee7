package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/opt"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/sass"
	"orilab/pipeline/spec"
)

// TestPostFixForMercTargetsIR: allocated IR in, legalized IR out.
// FSETP's immediate in source A is swapped with R2 (GT becomes LT), the
// LOP3 with two constants gets R2 into A and one constant into R0 (dead
// there), FCHK's immediate in A goes into R0, and the global load and
// store name the descriptor pair UR4 (UR0-UR3 unused, as ptxas), loaded
// first. The ORI text parses back (the descriptor's syntax).
func TestPostFixForMercTargetsIR(t *testing.T) {
	src := `.module sm_80 address_size=64

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 LDG.E R2 = [R4.64] ;
	#3 FSETP.GT.AND P0, PT = 0f3F800000, R2, PT ;
	#4 LOP3.LUT R3 = 0x5, R2, 0x3, 0xfe, !PT ;
	#5 STG.E [R4.64], R3 ;
	#10 FCHK.DIVIDE P1 = 0f3F800000, R2 ;
	#6 EXIT ;
}
`
	want := `	#11 ULDC.64 UR4.64 = c[0x0][0x118]
	#1 MOV R1 = c[0x0][0x28]
	#2 LDG.E R2 = desc[UR4][R4.64]
	#3 FSETP.LT.AND P0, PT = R2, 0f3F800000, PT
	#12 MOV R0 = 0x3
	#4 LOP3.LUT R3 = R2, 0x5, R0, 0xfe, !PT
	#5 STG.E desc[UR4][R4.64], R3
	#13 MOV R0 = 0f3F800000
	#10 FCHK.DIVIDE P1 = R0, R2
	#6 EXIT
`
	m, err := ori.ParseModule("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Funcs {
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
	}
	c := &PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}
	if err := postFixForMercTargets(c); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, in := range m.Funcs[0].Blocks[0].Insts {
		got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
	}
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
	if _, err := encodeModule(m, 80); err != nil {
		t.Errorf("the legalized code does not encode: %v", err)
	}
	back, err := ori.ParseModule("k.ori", []byte(m.String()))
	if err != nil {
		t.Fatalf("the legalized IR does not parse back: %v", err)
	}
	if back.String() != m.String() {
		t.Errorf("the legalized IR prints differently after parsing:\n%s", back)
	}
}

// TestThreeConstantLOP3IR: a LOP3 whose three sources are constants
// (rodinia hotspot's copysign(1.0f, x) at -O3: LOP3.LUT R4,
// c[0x0][0x190], 0x80000000, 0x3f800000, 0xea) needs two of them in
// registers: no single MOV makes it encodable (LOP3 has no immediate in
// C), so the constant in A goes into R0 and the immediate in C into R2
// (R1 is the stack pointer, R3 is read). The LOP3 reads as before.
func TestThreeConstantLOP3IR(t *testing.T) {
	src := `.module sm_80 address_size=64

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 MOV R3 = c[0x0][0x160] ;
	#3 LOP3.LUT R4 = c[0x0][0x190], -0x80000000, 0x3f800000, 0xea, !PT ;
	#4 IADD3 R4 = R4, R3, RZ ;
	#5 EXIT ;
}
`
	want := `	#1 MOV R1 = c[0x0][0x28]
	#2 MOV R3 = c[0x0][0x160]
	#6 MOV R0 = c[0x0][0x190]
	#7 MOV R2 = 0x3f800000
	#3 LOP3.LUT R4 = R0, -0x80000000, R2, 0xea, !PT
	#4 IADD3 R4 = R4, R3, RZ
	#5 EXIT
`
	m, err := ori.ParseModule("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, in := range f.Blocks[0].Insts {
		got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
	}
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
	if _, err := encodeModule(m, 80); err != nil {
		t.Errorf("the legalized code does not encode: %v", err)
	}
}

// TestBarRedResultsIR: BAR.RED's result moves into a B2R.RESULT right
// after it, which takes BAR.RED's guard: a predicate result as
// B2R.RESULT RZ, P (AND, OR), a count as B2R.RESULT R (POPC).
func TestBarRedResultsIR(t *testing.T) {
	src := `.module sm_80 address_size=64

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 BAR.RED.POPC R4 = 0x0, P0 ;
	#2 @!P1 BAR.RED.AND P2 = 0x1, !P0 ;
	#3 BAR.SYNC 0x0 ;
	#4 EXIT ;
}
`
	want := `	#1 BAR.RED.POPC 0x0, P0
	#5 B2R.RESULT R4 =
	#2 @!P1 BAR.RED.AND 0x1, !P0
	#6 @!P1 B2R.RESULT RZ, P2 =
	#3 BAR.SYNC 0x0
	#4 EXIT
`
	m, err := ori.ParseModule("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, in := range f.Blocks[0].Insts {
		got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
	}
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
	if _, err := encodeModule(m, 80); err != nil {
		t.Errorf("the legalized code does not encode: %v", err)
	}
}

// TestUniformBranchGuardIR: the BRA guarded by !UP0 gets its guard from
// a PLOP3 copy into P1, the lowest P register dead there (P0 is read
// after the branch, on both paths, which join again); the word encodes, and the branch
// still counts as uniform for the convergence pass (no BSSY).
func TestUniformBranchGuardIR(t *testing.T) {
	src := `.module sm_80 address_size=64

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 ISETP.GT.AND P0, PT = R2, RZ, PT ;
	#2 UISETP.EQ.U32.AND UP0, UPT = UR0, 0x0, UPT ;
	#3 @!UP0 BRA BB2 ;
BB1:
	#4 @P0 MOV R2 = RZ ;
	#5 BRA BB3 ;
BB2:
	#6 @P0 MOV R2 = 0x1 ;
BB3:
	#7 EXIT ;
}
`
	want := `	#1 ISETP.GT.AND P0, PT = R2, RZ, PT
	#2 UISETP.EQ.U32.AND UP0, UPT = UR0, 0x0, UPT
	#8 PLOP3.LUT P1, PT = PT, PT, UP0, 0x80, 0x0
	#3 @!P1 BRA BB2
`
	m, err := ori.ParseModule("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, in := range f.Blocks[0].Insts {
		got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
	}
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
	for _, arch := range []int{80, 90} {
		if _, err := encodeModule(m, arch); err != nil {
			t.Errorf("sm_%d: the legalized code does not encode: %v", arch, err)
		}
	}
	if _, err := opt.Convergence.Run(f, &opt.Context{}); err != nil {
		t.Fatal(err)
	}
	if s := f.String(); strings.Contains(s, "BSSY") {
		t.Errorf("the copied uniform guard got a convergence barrier:\n%s", s)
	}
}

// TestFuncScratchRegistersIR: in a .func, RET reads R0-R3 and the
// result registers, not every register, so FCHK's immediate goes into
// R8 (written by the function and dead after #2; R4-R7 are lower and
// written too, but the 4-byte result may be a .v4.u8 in four registers,
// live at RET on the path BB0-BB2) and the uniform guard into P1 (P0 is
// read in BB1). With RET reading everything both stayed
// unencodable (nbody_kernel.ptx's .funcs).
func TestFuncScratchRegistersIR(t *testing.T) {
	src := `.module sm_80 address_size=64

.func f
.param a offset=0x4 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R9 = R4 ;
	#2 MOV R8 = RZ ;
	#3 FCHK.DIVIDE P0 = 0f3F800000, R9 ;
	#4 UISETP.EQ.U32.AND UP0, UPT = UR5, 0x0, UPT ;
	#5 @UP0 BRA BB2 ;
BB1:
	#6 @P0 MOV R4 = R9 ;
BB2:
	#7 RET ;
}
`
	want := `	#1 MOV R9 = R4
	#2 MOV R8 = RZ
	#8 MOV R8 = 0f3F800000
	#3 FCHK.DIVIDE P0 = R8, R9
	#4 UISETP.EQ.U32.AND UP0, UPT = UR5, 0x0, UPT
	#9 PLOP3.LUT P1, PT = PT, PT, UP0, 0x80, 0x0
	#5 @P1 BRA BB2
`
	m, err := ori.ParseModule("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, in := range f.Blocks[0].Insts {
		got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
	}
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpRET {
				continue // orilab has no RET word (no return-address register)
			}
			if _, err := sass.Encode(in, 80, 0, map[int32]int{f.Blocks[2].ID: 0}); err != nil {
				t.Errorf("the legalized code does not encode: %v", err)
			}
		}
	}
}

// TestFuncResultWordsIR: a result's register count from the lowering
// (words=) bounds what RET keeps live. With words=0x1 the .b32 result is
// R4 alone and SHF's immediate A goes into R6 (written by the function,
// dead after #1); without it a 4-byte result may be a .v4.u8 in R4-R7, R6
// stays live, and the immediate goes into SHF's own result register R4,
// which it overwrites (the fallback of scratchReg; before it,
// bisect_small.ptx's ceilPow2 at -O3 kept the immediate and was
// refused).
func TestFuncResultWordsIR(t *testing.T) {
	for _, c := range []struct{ words, want string }{
		{" words=0x1", "\t#1 MOV R6 = RZ\n\t#2 MOV R5 = R4\n\t#5 MOV R6 = 0x1\n\t#3 SHF.L.U32 R4 = R6, R5, RZ\n\t#4 RET\n"},
		{"", "\t#1 MOV R6 = RZ\n\t#2 MOV R5 = R4\n\t#5 MOV R4 = 0x1\n\t#3 SHF.L.U32 R4 = R4, R5, RZ\n\t#4 RET\n"},
	} {
		src := `.module sm_80 address_size=64

.func f
.param a offset=0x4 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4` + c.words + `
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R6 = RZ ;
	#2 MOV R5 = R4 ;
	#3 SHF.L.U32 R4 = 0x1, R5, RZ ;
	#4 RET ;
}
`
		m, err := ori.ParseModule("k.ori", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		f := m.Funcs[0]
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, in := range f.Blocks[0].Insts {
			got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
		}
		if got.String() != c.want {
			t.Errorf("%q: got\n%s\nwant\n%s", c.words, got.String(), c.want)
		}
	}
}

// TestGuardedReturnKeepsLive: a guarded RET (EXIT) falls through, so
// what the code after it reads stays live before it: IMAD's first
// immediate goes into R12, not R8 (written by the function, dead at the
// RET itself, but read in BB1). fuzz5550969 of the H100 corpus computed wrong sums when R8 was
// taken.
func TestGuardedReturnKeepsLive(t *testing.T) {
	src := `.module sm_90 address_size=64

.func f
.ret r offset=0x4 size=0x4 align=0x4
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R12 = RZ ;
	#2 MOV R8 = R12 ;
	#8 MOV R11 = R12 ;
	#3 IMAD R10 = R11, 0x1f, 0x5 ;
	#4 @P1 RET ;
BB1:
	#5 IADD3 R4 = R8, R10, RZ ;
	#6 RET ;
}
`
	want := `	#1 MOV R12 = RZ
	#2 MOV R8 = R12
	#8 MOV R11 = R12
	#9 MOV R12 = 0x1f
	#3 IMAD R10 = R11, R12, 0x5
	#4 @P1 RET
`
	m, err := ori.ParseModule("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 90, Backend: &Backend{}}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, in := range f.Blocks[0].Insts {
		got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
	}
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
}

// TestReduxToURIR: REDUX's R destination becomes UR62 (UR63 is URZ;
// the module uses no other UR), and a MOV with REDUX's guard copies it
// into R3.
func TestReduxToURIR(t *testing.T) {
	src := `.module sm_80 address_size=64

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 @P0 REDUX.SUM.S32 R3 = R2 ;
	#2 EXIT ;
}
`
	want := `	#1 @P0 REDUX.SUM.S32 UR62 = R2
	#3 @P0 MOV R3 = UR62
	#2 EXIT
`
	m, err := ori.ParseModule("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, in := range f.Blocks[0].Insts {
		got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
	}
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
	if _, err := encodeModule(m, 80); err != nil {
		t.Errorf("the legalized code does not encode: %v", err)
	}
}

// TestLegalizedCodeRuns: every testdata kernel spec, at -O0 and -O3 for
// sm_80 and sm_90, computes the same buffers right before
// PostFixForMercTargets and after the last phase, and the final code
// passes its spec. The fix-ups must have inserted instructions somewhere
// (descriptor loads at least), or the comparison proves nothing.
func TestLegalizedCodeRuns(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "*.json"))
	before, err := LookupPhase("PostFixForMercTargets")
	if err != nil {
		t.Fatal(err)
	}
	inserted := 0
	for _, arch := range []int{80, 90} {
		for _, level := range []int{0, 3} {
			for _, file := range files {
				name := strings.TrimSuffix(filepath.Base(file), ".json")
				if _, failing := kernelErrors[name]; failing {
					continue
				}
				s, err := spec.Load(file)
				if err != nil {
					t.Fatal(err)
				}
				if s.CompileOnly {
					continue
				}
				req := Request{Arch: arch, OptLevel: level}
				src, err := os.ReadFile(s.PTXPath)
				if err != nil {
					t.Fatal(err)
				}
				if pm, err := ptx.ParseSyntax(s.PTXPath, src); err == nil && pm.SM() > arch {
					continue // refused, as ptxas refuses a .target newer than -arch
				}
				sess, err := req.StartFile(s.PTXPath, src, SessionControl{})
				if err != nil && strings.Contains(err.Error(), "error: unsupported: ") {
					// A construct this target lacks (tex_forms' bindless
					// fetch on sm_90).
					t.Logf("%s sm_%d -O%d: %v", name, arch, level, err)
					continue
				}
				if err != nil {
					t.Fatalf("%s sm_%d -O%d: %v", name, arch, level, err)
				}
				if err := sess.RunTo(before - 1); err != nil {
					t.Fatalf("%s sm_%d -O%d: %v", name, arch, level, err)
				}
				pre := sess.Module().Clone()
				if err := sess.RunTo(len(PhaseTable) - 1); err != nil {
					t.Fatalf("%s sm_%d -O%d: %v", name, arch, level, err)
				}
				post := sess.Module()
				inserted += post.Funcs[0].NumInsts() - pre.Funcs[0].NumInsts()
				b1, _, err := ExecuteBuffers(pre, s, RunOptions{})
				if err != nil {
					t.Fatalf("%s sm_%d -O%d before the fix-ups: %v", name, arch, level, err)
				}
				rep, err := Execute(post, s, RunOptions{})
				if err != nil {
					t.Fatalf("%s sm_%d -O%d after the fix-ups: %v", name, arch, level, err)
				}
				if !rep.Pass {
					t.Errorf("%s sm_%d -O%d: the legalized code fails its spec:\n%s", name, arch, level, spec.FormatResults(rep.Results))
				}
				b2, _, _ := ExecuteBuffers(post, s, RunOptions{})
				for i := range b1 {
					if !bytes.Equal(b1[i], b2[i]) {
						t.Errorf("%s sm_%d -O%d: buffer %d differs before and after the fix-ups", name, arch, level, i)
					}
				}
			}
		}
	}
	if inserted == 0 {
		t.Error("the fix-ups inserted no instruction in any kernel: the comparison is vacuous")
	}
	t.Logf("%d instructions inserted over all kernels, levels and targets", inserted)
}

// TestWholeSeenScratchPredicateIR: in a whole-seen .func (.retaddr R2)
// the uniform guard may only go into a P register the function writes
// itself, since its callers keep predicates across the call in the others
// (regalloc/interproc.go): P1 is dead there but never written, so the
// copy goes into P2, which #2 writes and nothing reads after it. Without
// such a register the guard stays uniform.
func TestWholeSeenScratchPredicateIR(t *testing.T) {
	for _, c := range []struct{ second, want string }{
		{"#2 ISETP.NE.AND P2, PT = R4, 0x1, PT ;", "\t#8 PLOP3.LUT P2, PT = PT, PT, UP0, 0x80, 0x0\n\t#5 @P2 BRA BB2\n"},
		{"#2 MOV R5 = R4 ;", "\t#5 @UP0 BRA BB2\n"},
	} {
		src := `.module sm_80 address_size=64

.func f
.param a offset=0x4 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.retaddr R2
.shared 0x0
.local 0x0
{
BB0:
	#1 ISETP.GT.AND P0, PT = R4, RZ, PT ;
	` + c.second + `
	#4 UISETP.EQ.U32.AND UP0, UPT = UR5, 0x0, UPT ;
	#5 @UP0 BRA BB2 ;
BB1:
	#6 @P0 MOV R4 = RZ ;
BB2:
	#7 RET.REL.NODEC R2.64 ;
}
`
		m, err := ori.ParseModule("k.ori", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		f := m.Funcs[0]
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, in := range f.Blocks[0].Insts[3:] {
			got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
		}
		if got.String() != c.want {
			t.Errorf("with %q: got\n%s\nwant\n%s", c.second, got.String(), c.want)
		}
	}
}

// TestIMADSplitAddendIR: in a .func whose written registers are all live
// at an IMAD with immediates in B and C (R0 is read by it and by #4, R4
// is the result that #4 adds to), no register can hold either immediate
// (fuzz finding regalloc-implicit-argument's fn2 at -O0), so the IMAD
// keeps B and an IADD3 adds C to its result.
func TestIMADSplitAddendIR(t *testing.T) {
	src := `.module sm_80 address_size=64

.func f
.param a offset=0x4 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R0 = R4 ;
	#2 MOV R4 = RZ ;
	#3 IMAD R0 = R0, 0x8, 0x80 ;
	#4 IADD3 R4 = R4, R0, RZ ;
	#5 RET ;
}
`
	want := "\t#1 MOV R0 = R4\n\t#2 MOV R4 = RZ\n\t#3 IMAD R0 = R0, 0x8, RZ\n\t#6 IADD3 R0 = R0, 0x80, RZ\n\t#4 IADD3 R4 = R4, R0, RZ\n\t#5 RET\n"
	m, err := ori.ParseModule("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := postFixForMercTargets(&PhaseContext{Module: m, Arch: 80, Backend: &Backend{}}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, in := range f.Blocks[0].Insts {
		got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
		if in.Op == ori.OpRET {
			continue // no return-address register in this IR
		}
		if _, err := sass.Encode(in, 80, 0, nil); err != nil {
			t.Errorf("the legalized code does not encode: %v", err)
		}
	}
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
}

// TestIMADSplitAddendRuns: the split computes what the IMAD did. A
// kernel's mad.lo.u32 with two immediates is compiled at -O0 up to
// PostFixForMercTargets, its IMAD split as the fix-up splits it where no
// register is free, and both versions run in the simulator: the buffers
// are equal and hold tid * 8 + 0x80.
func TestIMADSplitAddendRuns(t *testing.T) {
	dir := t.TempDir()
	ptxSrc := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mad.lo.u32 %r2, %r1, 8, 0x80;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
`
	var vals []string
	for i := 0; i < 32; i++ {
		vals = append(vals, fmt.Sprintf("%q", fmt.Sprintf("0x%08x", i*8+0x80)))
	}
	specSrc := `{"name": "k", "ptx": "k.ptx", "kernel": "k",
 "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]},
 "params": [{"name": "out", "kind": "buffer", "elem": "u32", "count": 32, "init": "zero"}],
 "expect": [{"param": "out", "elem": "u32", "count": 32, "values_hex": [` + strings.Join(vals, ", ") + `]}]}`
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(ptxSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "k.json"), []byte(specSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "k.json"))
	if err != nil {
		t.Fatal(err)
	}
	before, err := LookupPhase("PostFixForMercTargets")
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Arch: 80, OptLevel: 0}
	sess, err := req.StartFile(s.PTXPath, []byte(ptxSrc), SessionControl{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RunTo(before - 1); err != nil {
		t.Fatal(err)
	}
	pre := sess.Module().Clone()
	f := sess.Module().Func("k")
	split := 0
	for _, b := range f.Blocks {
		var out []*ori.Inst
		for _, in := range b.Insts {
			out = append(out, in)
			if add := splitIMADAddend(f, in, 80, newMirror(nil, f)); add != nil {
				out = append(out, add)
				split++
			}
		}
		b.Insts = out
	}
	if split != 1 {
		t.Fatalf("%d IMADs split, want 1:\n%s", split, f)
	}
	b1, _, err := ExecuteBuffers(pre, s, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Execute(sess.Module(), s, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Pass {
		t.Errorf("the split code fails its spec:\n%s", spec.FormatResults(rep.Results))
	}
	b2, _, _ := ExecuteBuffers(sess.Module(), s, RunOptions{})
	if !bytes.Equal(b1[0], b2[0]) {
		t.Error("the buffer differs before and after the split")
	}
}

// TestFCHKConstantNumeratorEncodes: rcp.rn.f32 is 1.0 / x, whose
// FCHK.DIVIDE reads the 1.0 in source A, which is a register in every
// FCHK word. The lowering moves it into a register; before, the fix-up
// had to find one, and in bodysystemcuda's gravitation (a .func) at -O3
// every register the .func writes is live at the FCHK, so
// FCHK.DIVIDE P1 = 0f3F800000, R15 was refused by the encoder. Every
// function of that module now encodes, and every FCHK reads a register.
func TestFCHKConstantNumeratorEncodes(t *testing.T) {
	p := filepath.Join(testenv.Shared(t), "corpus", "gpuocelot", "tests", "ptx", "sdk2.2", "bodysystemcuda.ptx")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []int{80, 90} {
		res, err := CompileWith(p, src, Options{Arch: arch}, PhaseOptions{OptLevel: 3, NoSnapshots: true})
		if err != nil {
			t.Fatal(err)
		}
		fchk := 0
		for _, f := range res.Final.Funcs {
			if _, err := sass.EncodeFunc(f, arch); err != nil {
				t.Errorf("sm_%d %s: %v", arch, f.Name, err)
			}
			for _, b := range f.Blocks {
				for _, in := range b.Insts {
					if in.Op == ori.OpFCHK {
						fchk++
						if in.Srcs[0].Kind != ori.OpdReg {
							t.Errorf("sm_%d %s: %s", arch, f.Name, in)
						}
					}
				}
			}
		}
		if fchk == 0 {
			t.Errorf("sm_%d: no FCHK in bodysystemcuda: the test checks nothing", arch)
		}
	}
}
