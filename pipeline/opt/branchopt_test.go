package opt

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func boFunc(body string) string {
	return ".entry k\n.shared 0x0\n.local 0x0\n{\n" + body + "}\n"
}

// runPassText parses in, runs the named registered pass, verifies and
// returns the printed result.
func runPassText(t *testing.T, name, in string, ssa bool) (string, bool) {
	t.Helper()
	return runPassSSA(t, name, in, ssa, ssa)
}

// runPassSSA is runPassText for a pass that enters or leaves the
// partial-SSA window: the input and the output are verified in the
// modes ssaIn and ssaOut.
func runPassSSA(t *testing.T, name, in string, ssaIn, ssaOut bool) (string, bool) {
	t.Helper()
	return applyPass(t, name, in, passRun{ssaIn: ssaIn, ssaOut: ssaOut})
}

func canonText(t *testing.T, s string) string {
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

func TestBranchOpt(t *testing.T) {
	cases := []struct {
		name, in, want string
		ssa            bool
	}{
		{
			name: "branch to next block",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 BRA BB1 ;
BB1:
	#4 BRA BB2 ;
BB2:
	#5 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
BB2:
	#5 EXIT ;
`,
		},
		{
			name: "never taken and PT branches",
			in: `BB0:
	#1 @!PT BRA BB2 ;
BB1:
	#2 @PT BRA BB3 ;
BB2:
	#3 S2R %r0 = SR_TID.X ;
	#4 EXIT ;
BB3:
	#5 EXIT ;
`,
			want: `BB0:
BB3:
	#5 EXIT ;
`,
		},
		{
			name: "threading through a BRA-only block",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r1 = %r0, 0x1, RZ ;
	#5 EXIT ;
BB2:
	#6 BRA BB4 ;
BB3:
	#7 EXIT ;
BB4:
	#8 IADD3 %r2 = %r0, 0x2, RZ ;
	#9 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 BRA BB4 ;
BB1:
	#4 IADD3 %r1 = %r0, 0x1, RZ ;
	#5 EXIT ;
BB4:
	#8 IADD3 %r2 = %r0, 0x2, RZ ;
	#9 EXIT ;
`,
		},
		{
			name: "inversion over a BRA-only fall-through block",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 BRA BB3 ;
BB2:
	#5 IADD3 %r1 = %r0, 0x1, RZ ;
BB3:
	#6 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @!%p0 BRA BB3 ;
BB2:
	#5 IADD3 %r1 = %r0, 0x1, RZ ;
BB3:
	#6 EXIT ;
`,
		},
		{
			name: "equivalent targets",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 BRA BB3 ;
BB1:
	#4 BRA BB3 ;
BB2:
	#5 EXIT ;
BB3:
	#6 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
BB3:
	#6 EXIT ;
`,
		},
		{
			name: "backward chains and BSSY targets stay",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 BSSY 0x0, BB3 ;
	#3 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB3 ;
BB1:
	#5 IADD3 %r0 = %r0, 0x1, RZ ;
	#6 ISETP.LT.AND %p1, PT = %r0, 0x8, PT ;
	#7 @%p1 BRA BB4 ;
BB2:
	#8 BRA BB3 ;
BB4:
	#9 BRA BB1 ;
BB3:
	#10 BSYNC 0x0 ;
	#11 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 BSSY 0x0, BB3 ;
	#3 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB3 ;
BB1:
	#5 IADD3 %r0 = %r0, 0x1, RZ ;
	#6 ISETP.LT.AND %p1, PT = %r0, 0x8, PT ;
	#7 @!%p1 BRA BB3 ;
BB4:
	#9 BRA BB1 ;
BB3:
	#10 BSYNC 0x0 ;
	#11 EXIT ;
`,
		},
		{
			name: "unreachable block referenced by BRX of a reachable block stays",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 BRX %r0, BB1, BB2 ;
BB1:
	#3 EXIT ;
BB2:
	#4 EXIT ;
BB3:
	#5 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 BRX %r0, BB1, BB2 ;
BB1:
	#3 EXIT ;
BB2:
	#4 EXIT ;
`,
		},
		{
			name: "partial SSA: unreachable predecessor dropped from MOV.PHI",
			ssa:  true,
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 BRA BB2 ;
BB1:
	#3 MOV %r1 = 0x1 ;
	#4 BRA BB3 ;
BB2:
	#5 MOV %r2 = 0x2 ;
BB3:
	#6 MOV.PHI %r3 = %r1, BB1, %r2, BB2 ;
	#7 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
BB2:
	#5 MOV %r2 = 0x2 ;
BB3:
	#6 MOV.PHI %r3 = %r2, BB2 ;
	#7 EXIT ;
`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := runPassText(t, "OriBranchOpt", boFunc(c.in), c.ssa)
			want := canonText(t, boFunc(c.want))
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if changed != (canonText(t, boFunc(c.in)) != want) {
				t.Errorf("changed = %v", changed)
			}
		})
	}
}

// lowerTestdata lowers a testdata PTX file (path relative to the repo).
func lowerTestdata(t *testing.T, rel string) *ori.Module {
	t.Helper()
	root, _ := filepath.Abs("../..")
	path := filepath.Join(root, rel)
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
	for _, f := range m.Funcs {
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestBranchOptOnSample(t *testing.T) {
	m := lowerTestdata(t, "testdata/sample/sample.ptx")
	p, _ := passByPhase("OriBranchOpt")
	any := false
	for _, f := range m.Funcs {
		before := len(f.Blocks)
		changed, err := p.Run(f, &Context{OptLevel: 3, Arch: 75})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if changed {
			any = true
			t.Logf("%s: %d blocks before, %d after", f.Name, before, len(f.Blocks))
		}
		if again, _ := p.Run(f, &Context{OptLevel: 3, Arch: 75}); again {
			t.Errorf("%s: a second run still changed the function", f.Name)
		}
	}
	if !any {
		t.Fatal("OriBranchOpt changed nothing in testdata/sample/sample.ptx")
	}
}
