package opt

import (
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// prKernel wraps a block listing in a kernel header.
func prKernel(body string) string {
	return ".entry k\n.shared 0x0\n.local 0x0\n{\n" + body + "}\n"
}

// prRun parses in, runs the named pass with the given -knob settings
// and site limit, verifies the result (in partial-SSA mode with ssa) and
// returns its text.
func prRun(t *testing.T, pass, in string, ssa bool, sites *Sites, cli ...string) (string, bool) {
	t.Helper()
	return applyPass(t, pass, in, passRun{ssaIn: ssa, ssaOut: ssa, sites: sites, knobs: cli})
}

// prCanon parses and prints expected text.
func prCanon(t *testing.T, s string) string {
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

type prCase struct {
	name string
	knob []string
	ssa  bool
	in   string
	want string // "" means: unchanged
}

func prRunCases(t *testing.T, pass string, cases []prCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := prRun(t, pass, prKernel(c.in), c.ssa, nil, c.knob...)
			want := prCanon(t, prKernel(c.in))
			if c.want != "" {
				want = prCanon(t, prKernel(c.want))
			}
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if changed != (c.want != "") {
				t.Errorf("changed = %v", changed)
			}
		})
	}
}

// The diamond of the file comment: the fall-through arm's IMAD runs
// unguarded (%r4 is dead where the branch was), so the taken arm's SHF,
// which must not overwrite it for the fall-through threads, keeps its
// guard.
const ifcvtDiamond = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 LOP3.LUT %r1 = %r0, 0x1, RZ, 0xc0, !PT ;
	#3 ISETP.EQ.U32.AND %p0, PT = %r1, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 IMAD %r4 = %r0, 0x3, 0x1 ;
	#6 BRA BB3 ;
BB2:
	#7 SHF.R.U32.HI %r4 = RZ, 0x1, %r0 ;
BB3:
	#8 STG.E [R2.64], %r4 ;
	#9 EXIT ;
`

func TestPredicationShapes(t *testing.T) {
	prRunCases(t, "OriDoPredication", []prCase{
		{name: "diamond", in: ifcvtDiamond, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 LOP3.LUT %r1 = %r0, 0x1, RZ, 0xc0, !PT ;
	#3 ISETP.EQ.U32.AND %p0, PT = %r1, 0x0, PT ;
	#5 IMAD %r4 = %r0, 0x3, 0x1 ;
	#7 @%p0 SHF.R.U32.HI %r4 = RZ, 0x1, %r0 ;
BB3:
	#8 STG.E [R2.64], %r4 ;
	#9 EXIT ;
`},
		// The arm is the fall-through block; the store keeps the guard,
		// the address computation (dead where the branch was) runs for
		// every thread; %r5 is live across the branch and stays guarded.
		{name: "triangle with a store", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 IADD3 %r1, %p1 = %r0, c[0x0][0x160], RZ ;
	#6 IADD3.X %r1[1] = RZ, c[0x0][0x164], RZ, %p1, !PT ;
	#7 STG.E [%r1.64], %r0 ;
	#8 MOV %r5 = 0x1 ;
BB2:
	#9 STG.E [R2.64], %r5 ;
	#10 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#5 IADD3 %r1, %p1 = %r0, c[0x0][0x160], RZ ;
	#6 IADD3.X %r1[1] = RZ, c[0x0][0x164], RZ, %p1, !PT ;
	#7 @!%p0 STG.E [%r1.64], %r0 ;
	#8 @!%p0 MOV %r5 = 0x1 ;
BB2:
	#9 STG.E [R2.64], %r5 ;
	#10 EXIT ;
`},
		// The arm is the branch target, laid out after the merge block:
		// it runs under the branch condition and the header branches on
		// to the merge block... which follows it, so no branch is added.
		{name: "triangle on the taken side", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 STG.E [R2.64], %r5 ;
	#6 EXIT ;
BB2:
	#7 IADD3 %r5 = %r0, 0x5, RZ ;
	#8 BRA BB1 ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#7 @%p0 IADD3 %r5 = %r0, 0x5, RZ ;
BB1:
	#5 STG.E [R2.64], %r5 ;
	#6 EXIT ;
`},
		// if (tid >= 8) return: the EXIT itself is predicated.
		{name: "exit triangle", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.U32.AND %p0, PT = %r0, 0x8, PT ;
	#3 @!%p0 BRA BB2 ;
BB1:
	#4 EXIT ;
BB2:
	#5 STG.E [R2.64], %r0 ;
	#6 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.U32.AND %p0, PT = %r0, 0x8, PT ;
	#4 @%p0 EXIT ;
BB2:
	#5 STG.E [R2.64], %r0 ;
	#6 EXIT ;
`},
		// Guards already in the arm: one on another predicate is ANDed
		// with the arm's condition by a PLOP3 that the next instruction
		// with the same guard shares; one on the branch predicate in the
		// arm's own sense keeps it, in the other sense never runs.
		{name: "existing guards", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#4 ISETP.EQ.U32.AND %p1, PT = %r0, 0x9, PT ;
	#5 @%p0 BRA BB2 ;
BB1:
	#6 @!%p1 IADD3 %r5 = %r5, 0x1, RZ ;
	#7 @!%p1 IADD3 %r5 = %r5, 0x2, RZ ;
	#8 @!%p0 IADD3 %r5 = %r5, 0x3, RZ ;
	#9 @%p0 IADD3 %r5 = %r5, 0x4, RZ ;
BB2:
	#10 STG.E [R2.64], %r5 ;
	#11 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#4 ISETP.EQ.U32.AND %p1, PT = %r0, 0x9, PT ;
	#12 PLOP3.LUT %p2, PT = !%p0, !%p1, PT, 0x80, 0x0 ;
	#6 @%p2 IADD3 %r5 = %r5, 0x1, RZ ;
	#7 @%p2 IADD3 %r5 = %r5, 0x2, RZ ;
	#8 @!%p0 IADD3 %r5 = %r5, 0x3, RZ ;
	#9 @!PT IADD3 %r5 = %r5, 0x4, RZ ;
BB2:
	#10 STG.E [R2.64], %r5 ;
	#11 EXIT ;
`},
		// A load is never speculated; its result, dead where the branch
		// was and read after it, gets a kill so that it is not live from
		// the entry.
		{name: "kill before a guarded load", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 LDS %r3 = [0x10] ;
	#6 IADD3 %r5 = %r3, 0x1, RZ ;
BB2:
	#7 STG.E [R2.64], %r5 ;
	#8 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#9 MOV %r3 = RZ ;
	#5 @!%p0 LDS %r3 = [0x10] ;
	#6 @!%p0 IADD3 %r5 = %r3, 0x1, RZ ;
BB2:
	#7 STG.E [R2.64], %r5 ;
	#8 EXIT ;
`},
		// In partial SSA the merge block's phis become selects on the
		// branch condition (SEL for R, PLOP3 0xca for a predicate).
		{name: "phis become selects", ssa: true, in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r1 = %r0, 0x1, RZ ;
	#5 ISETP.EQ.U32.AND %p1, PT = %r0, 0x1, PT ;
	#6 BRA BB3 ;
BB2:
	#7 IADD3 %r2 = %r0, 0x2, RZ ;
	#8 ISETP.EQ.U32.AND %p2, PT = %r0, 0x9, PT ;
BB3:
	#9 MOV.PHI %r3 = %r1, BB1, %r2, BB2 ;
	#10 MOV.PHI %p3 = %p1, BB1, %p2, BB2 ;
	#11 @%p3 STG.E [R2.64], %r3 ;
	#12 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#4 IADD3 %r1 = %r0, 0x1, RZ ;
	#5 ISETP.EQ.U32.AND %p1, PT = %r0, 0x1, PT ;
	#7 IADD3 %r2 = %r0, 0x2, RZ ;
	#8 ISETP.EQ.U32.AND %p2, PT = %r0, 0x9, PT ;
	#9 SEL %r3 = %r2, %r1, %p0 ;
	#10 PLOP3.LUT %p3, PT = %p0, %p2, %p1, 0xca, 0x0 ;
BB3:
	#11 @%p3 STG.E [R2.64], %r3 ;
	#12 EXIT ;
`},
	})
}

// prInsts returns n copies of an instruction numbered #5 and up.
func prInsts(n int, text string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\t#%d %s ;\n", 5+i, text)
	}
	return b.String()
}

// TestPredicationRefuses lists regions that must stay branches.
func TestPredicationRefuses(t *testing.T) {
	triangle := func(arm string) string {
		return `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
` + arm + `BB2:
	#20 STG.E [R2.64], %r5 ;
	#21 EXIT ;
`
	}
	prRunCases(t, "OriDoPredication", []prCase{
		{name: "barrier", in: triangle("\t#5 BAR.SYNC 0x0 ;\n")},
		{name: "warp collective", in: triangle("\t#5 VOTE.ANY %r5, PT = PT ;\n")},
		{name: "writes the branch predicate", in: triangle("\t#5 ISETP.EQ.U32.AND %p0, PT = %r0, 0x3, PT ;\n\t#6 MOV %r5 = 0x1 ;\n")},
		{name: "call", in: triangle("\t#5 CALL `f` ;\n")},
		{name: "writes a physical register", in: triangle("\t#5 MOV R4 = %r0 ;\n")},
		{name: "too long", in: triangle(prInsts(9, "IADD3 %r5 = %r5, 0x1, RZ"))},
		{name: "limit raised", knob: []string{"PredicationBaseLimit=9"},
			in: triangle(prInsts(9, "IADD3 %r5 = %r5, 0x1, RZ")),
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
` + prInsts(9, "@!%p0 IADD3 %r5 = %r5, 0x1, RZ") + `BB2:
	#20 STG.E [R2.64], %r5 ;
	#21 EXIT ;
`},
		{name: "DisablePredication", knob: []string{"DisablePredication"}, in: ifcvtDiamond},
		// Both arms load: the branch lets each side hide its latency.
		{name: "long latency on both sides", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.U32.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 LDS %r4 = [0x0] ;
	#5 BRA BB3 ;
BB2:
	#6 LDS %r4 = [0x4] ;
BB3:
	#7 STG.E [R2.64], %r4 ;
	#8 EXIT ;
`},
		// A store in an arm laid out after the merge block: the skipping
		// threads run the merge block first, the predicated code would
		// store first.
		{name: "store out of layout order", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 STG.E [R2.64], %r0 ;
	#5 EXIT ;
BB2:
	#6 STS [0x0], %r0 ;
	#7 BRA BB1 ;
`},
		// The merge block has a third predecessor in partial SSA.
	})
}

// TestPredicationNestedPhi: in partial SSA, the inner diamond's merge
// block also has the outer branch as a predecessor. The region's two
// values become a select into a new register (%r4) and the phi keeps its
// operand from BB0 plus %r4 from the header; the next round converts the
// outer triangle and that phi becomes the second select.
func TestPredicationNestedPhi(t *testing.T) {
	prRunCases(t, "OriDoPredication", []prCase{
		{name: "phi with another predecessor", ssa: true, in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#3 ISETP.GT.U32.AND %p1, PT = %r0, 0x3, PT ;
	#4 @%p1 BRA BB3 ;
BB4:
	#5 @%p0 BRA BB2 ;
BB1:
	#6 IADD3 %r1 = %r0, 0x1, RZ ;
	#7 BRA BB3 ;
BB2:
	#8 IADD3 %r2 = %r0, 0x2, RZ ;
BB3:
	#9 MOV.PHI %r3 = %r0, BB0, %r1, BB1, %r2, BB2 ;
	#10 STG.E [R2.64], %r3 ;
	#11 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#3 ISETP.GT.U32.AND %p1, PT = %r0, 0x3, PT ;
	#6 IADD3 %r1 = %r0, 0x1, RZ ;
	#8 IADD3 %r2 = %r0, 0x2, RZ ;
	#12 SEL %r4 = %r2, %r1, %p0 ;
	#9 SEL %r3 = %r0, %r4, %p1 ;
BB3:
	#10 STG.E [R2.64], %r3 ;
	#11 EXIT ;
`},
	})
}

// TestPredicationNested converts an inner triangle, then in the next
// round the outer one whose arm now holds the guarded instruction.
func TestPredicationNested(t *testing.T) {
	prRunCases(t, "OriDoPredication", []prCase{{name: "nested", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#4 @%p0 BRA BB3 ;
BB1:
	#5 IADD3 %r5 = %r0, 0x1, RZ ;
	#6 ISETP.EQ.U32.AND %p1, PT = %r0, 0x2, PT ;
	#7 @%p1 BRA BB3 ;
BB2:
	#8 IADD3 %r5 = %r5, 0x10, RZ ;
BB3:
	#9 STG.E [R2.64], %r5 ;
	#10 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.GT.U32.AND %p0, PT = %r0, 0x7, PT ;
	#5 @!%p0 IADD3 %r5 = %r0, 0x1, RZ ;
	#6 ISETP.EQ.U32.AND %p1, PT = %r0, 0x2, PT ;
	#11 PLOP3.LUT %p2, PT = !%p0, !%p1, PT, 0x80, 0x0 ;
	#8 @%p2 IADD3 %r5 = %r5, 0x10, RZ ;
BB3:
	#9 STG.E [R2.64], %r5 ;
	#10 EXIT ;
`}})
}

// TestPredicationSites numbers one site per region: allowing only the
// first converts the first region and leaves the second alone.
func TestPredicationSites(t *testing.T) {
	in := prKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 MOV %r5 = 0x1 ;
BB2:
	#6 ISETP.NE.U32.AND %p1, PT = %r0, 0x1, PT ;
	#7 @%p1 BRA BB4 ;
BB3:
	#8 MOV %r5 = 0x2 ;
BB4:
	#9 STG.E [R2.64], %r5 ;
	#10 EXIT ;
`)
	s := &Sites{Limit: true, Lo: 1, Hi: 1, Record: true}
	got, changed := prRun(t, "OriDoPredication", in, false, s)
	want := prCanon(t, prKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = 0x0 ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#5 @!%p0 MOV %r5 = 0x1 ;
BB2:
	#6 ISETP.NE.U32.AND %p1, PT = %r0, 0x1, PT ;
	#7 @%p1 BRA BB4 ;
BB3:
	#8 MOV %r5 = 0x2 ;
BB4:
	#9 STG.E [R2.64], %r5 ;
	#10 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if s.N != 2 || len(s.Log) != 2 || s.Log[0].Inst != 4 || s.Log[1].Inst != 7 || s.Log[1].Allowed {
		t.Errorf("sites: %+v", s.Log)
	}
}
