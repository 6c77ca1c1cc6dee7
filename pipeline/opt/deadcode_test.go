package opt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// dcFunc wraps a block listing in a kernel header.
func dcFunc(body string) string {
	return ".entry k\n.shared 0x0\n.local 0x0\n{\n" + body + "}\n"
}

// runDeadCode parses in, runs the registered pass and returns the text.
func runDeadCode(t *testing.T, in string, ssa bool) (string, bool) {
	t.Helper()
	return applyPass(t, "OriPerformLiveDeadFirst", in, passRun{ssaIn: ssa, ssaOut: ssa})
}

// canon parses and prints expected text so comments and spacing match.
func canon(t *testing.T, s string) string {
	t.Helper()
	f, err := ori.ParseFunc("want.ori", []byte(s))
	if err != nil {
		t.Fatalf("parse want: %v", err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	return f.String()
}

func TestDeadCode(t *testing.T) {
	tests := []struct {
		name, in, want string
		ssa            bool
	}{
		{
			name: "dead init, dead chain and dead carry-out",
			in: `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 MOV %r1 = RZ ;
	#4 S2R %r2 = SR_TID.X ;
	#5 IADD3 %r1, %p0 = %r2, 0x1, RZ ;
	#6 IADD3 %r3 = %r1, 0x1, RZ ;
	#7 IMAD %r4 = %r3, 0x2, RZ ;
	#8 STG.E [%r0.64], %r1 ;
	#9 EXIT ;
`,
			want: `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#4 S2R %r2 = SR_TID.X ;
	#5 IADD3 %r1, PT = %r2, 0x1, RZ ;
	#8 STG.E [%r0.64], %r1 ;
	#9 EXIT ;
`,
		},
		{
			name: "partial write: a dead high word goes, the live low word stays",
			in: `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 MOV %r1 = 0x5 ;
	#4 MOV %r1[1] = 0x6 ;
	#5 STG.E [%r0.64], %r1 ;
	#6 EXIT ;
`,
			want: `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 MOV %r1 = 0x5 ;
	#5 STG.E [%r0.64], %r1 ;
	#6 EXIT ;
`,
		},
		{
			name: "guarded writes do not kill; dead guarded writes go",
			in: `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 S2R %r2 = SR_TID.X ;
	#4 ISETP.GE.AND %p0, PT = %r2, 0x20, PT ;
	#5 MOV %r1 = RZ ;
	#6 @%p0 MOV %r1 = 0x7 ;
	#7 @%p0 MOV %r3 = 0x8 ;
	#8 STG.E [%r0.64], %r1 ;
	#9 EXIT ;
`,
			want: `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 S2R %r2 = SR_TID.X ;
	#4 ISETP.GE.AND %p0, PT = %r2, 0x20, PT ;
	#5 MOV %r1 = RZ ;
	#6 @%p0 MOV %r1 = 0x7 ;
	#8 STG.E [%r0.64], %r1 ;
	#9 EXIT ;
`,
		},
		{
			name: "essential: loads, warp collectives, physical registers",
			in: `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 MOV %r0 = c[0x0][0x160] ;
	#3 MOV %r0[1] = c[0x0][0x164] ;
	#4 LDG.E %r1 = [%r0.64] ;
	#5 SHFL.IDX %p0, %r2 = %r1, 0x0, 0x1f ;
	#6 MOV R4 = %r1 ;
	#7 NOP ;
	#8 MOV %r3 = R4 ;
	#9 EXIT ;
`,
			want: `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 MOV %r0 = c[0x0][0x160] ;
	#3 MOV %r0[1] = c[0x0][0x164] ;
	#4 LDG.E %r1 = [%r0.64] ;
	#5 SHFL.IDX %p0, %r2 = %r1, 0x0, 0x1f ;
	#6 MOV R4 = %r1 ;
	#7 NOP ;
	#9 EXIT ;
`,
		},
		{
			// %r1 is a loop counter nobody reads after the loop and %r3 a
			// value that only feeds itself: both cycles are faint.
			name: "dead cycles across a back edge",
			in: `BB0:
	#1 MOV %r1 = RZ ;
	#2 MOV %r3 = RZ ;
	#3 S2R %r0 = SR_TID.X ;
BB1:
	#4 IADD3 %r3 = %r3, 0x2, RZ ;
	#5 IADD3 %r0 = %r0, 0x1, RZ ;
	#6 ISETP.LT.AND %p0, PT = %r0, 0x40, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 MOV %r2 = c[0x0][0x160] ;
	#9 MOV %r2[1] = c[0x0][0x164] ;
	#10 STG.E [%r2.64], %r0 ;
	#11 EXIT ;
`,
			want: `BB0:
	#3 S2R %r0 = SR_TID.X ;
BB1:
	#5 IADD3 %r0 = %r0, 0x1, RZ ;
	#6 ISETP.LT.AND %p0, PT = %r0, 0x40, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 MOV %r2 = c[0x0][0x160] ;
	#9 MOV %r2[1] = c[0x0][0x164] ;
	#10 STG.E [%r2.64], %r0 ;
	#11 EXIT ;
`,
		},
		{
			// A phi web that only feeds itself is removed with its
			// sources; a live phi keeps the sources it reads at the end
			// of each predecessor.
			name: "MOV.PHI in SSA form",
			ssa:  true,
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = RZ ;
	#3 MOV %r5 = 0x3 ;
BB1:
	#4 MOV.PHI %r2 = %r0, BB0, %r3, BB1 ;
	#5 MOV.PHI %r6 = %r5, BB0, %r7, BB1 ;
	#6 IADD3 %r3 = %r2, 0x1, RZ ;
	#7 IADD3 %r7 = %r6, 0x1, RZ ;
	#8 ISETP.LT.AND %p0, PT = %r3, 0x40, PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#12 STS [%r3], %r3 ;
	#13 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
BB1:
	#4 MOV.PHI %r2 = %r0, BB0, %r3, BB1 ;
	#6 IADD3 %r3 = %r2, 0x1, RZ ;
	#8 ISETP.LT.AND %p0, PT = %r3, 0x40, PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#12 STS [%r3], %r3 ;
	#13 EXIT ;
`,
		},
		{
			name: "nothing dead: no change",
			in: `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 STG.E [%r0.64], RZ ;
	#4 EXIT ;
`,
			want: `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 STG.E [%r0.64], RZ ;
	#4 EXIT ;
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := runDeadCode(t, dcFunc(tc.in), tc.ssa)
			want := canon(t, dcFunc(tc.want))
			if got != want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, want)
			}
			if wantChange := dcFunc(tc.in) != dcFunc(tc.want); changed != wantChange {
				t.Errorf("changed = %v, want %v", changed, wantChange)
			}
		})
	}
}

// TestDeadCodeOnSample checks that the pass removes the dead code the
// lowering leaves in the sample kernel, and that the result verifies.
func TestDeadCodeOnSample(t *testing.T) {
	root, _ := filepath.Abs("../..")
	path := filepath.Join(root, "testdata", "sample", "sample.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := ptx.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Lower(pm, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range m.Funcs {
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		before := f.NumInsts()
		removed, _, err := DeadCode(f)
		if err != nil {
			t.Fatal(err)
		}
		if f.NumInsts() != before-removed {
			t.Errorf("%s: %d instructions before, %d after, but %d reported removed", f.Name, before, f.NumInsts(), removed)
		}
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			t.Fatalf("%s after dead code elimination: %v", f.Name, err)
		}
		// A second run finds nothing more.
		if r, n, _ := DeadCode(f); r+n != 0 {
			t.Errorf("%s: second run changed %d+%d", f.Name, r, n)
		}
		total += removed
		if removed > 0 && !strings.Contains(f.String(), "EXIT") {
			t.Errorf("%s lost its EXIT", f.Name)
		}
	}
	if total == 0 {
		t.Fatal("the pass removed nothing from testdata/sample/sample.ptx")
	}
	t.Logf("removed %d instructions from the sample", total)
}
