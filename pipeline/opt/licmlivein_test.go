package opt

import (
	"testing"

	"orilab/pipeline/ori"
)

// TestLICMLiveSearchMatchesLiveness compares the search's answer with
// ori.Liveness for every block and every virtual register of functions
// with the cases its rules cover: a guarded write (no kill), a read and
// write in one instruction, MOV.PHI sources read on their edge only, a
// register pair written one word at a time, and loops.
func TestLICMLiveSearchMatchesLiveness(t *testing.T) {
	for _, src := range []string{
		loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r3 = 0x0 ;
BB1:
	#4 ISETP.GE.AND %p0, PT = %r1, %r0, PT ;
	#5 @%p0 BRA BB3 ;
BB2:
	#6 SHF.L.U32 %r2 = %r0, 0x2, RZ ;
	#7 IADD3 %r3 = %r0, 0x5, RZ ;
	#8 @%p0 MOV %r4 = 0x1 ;
	#9 IADD3 %r1 = %r1, %r2, RZ ;
	#10 BRA BB1 ;
BB3:
	#11 STG.E [R4.64], %r3 ;
	#12 STG.E [R4.64], %r4 ;
	#13 EXIT ;
`),
		loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 MOV %r1 = 0x1 ;
	#14 MOV %r7 = 0x9 ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 MOV %r2 = 0x2 ;
	#6 MOV %r5[1] = 0x3 ;
	#7 BRA BB3 ;
BB2:
	#8 MOV %r6 = 0x4 ;
BB3:
	#9 MOV.PHI %r3 = %r2, BB1, %r7, BB2 ;
	#10 MOV %r5[0] = %r1 ;
	#11 IADD3 %r4 = %r3, %r1, RZ ;
	#12 STG.E.64 [%r5.64], %r4 ;
	#13 EXIT ;
`),
	} {
		f, err := ori.ParseFunc("k.ori", []byte(src))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		live := ori.Liveness(f)
		regs := map[ori.Reg]bool{}
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				note := func(r ori.Reg) {
					if r.Virtual {
						regs[r] = true
					}
				}
				note(in.Guard)
				for _, o := range in.Srcs {
					note(o.Reg)
				}
				for _, o := range in.Dsts {
					note(o.Reg)
				}
			}
		}
		s := newLICMLiveSearch(f)
		n, nLive := 0, 0
		for _, b := range f.Blocks {
			for r := range regs {
				got, ok := s.liveIn(b, r)
				if !ok {
					t.Fatalf("search ran out of budget on a %d-instruction function", f.NumInsts())
				}
				if want := live.LiveIn(b, r); got != want {
					t.Errorf("%v live into BB%d: search %v, liveness %v\n%s", r, b.ID, got, want, f)
				}
				n++
				if got {
					nLive++
				}
			}
		}
		if nLive == 0 || nLive == n {
			t.Errorf("%d of %d answers live: the function tests nothing", nLive, n)
		}
	}
}

// TestLICMLiveSearchBudget checks that a search past its budget reports
// that it has no answer (LICM then computes the liveness).
func TestLICMLiveSearchBudget(t *testing.T) {
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(`BB0:
	#1 MOV %r1 = 0x0 ;
	#2 BRA BB1 ;
BB1:
	#3 NOP ;
	#4 BRA BB2 ;
BB2:
	#5 STG.E [R4.64], %r1 ;
	#6 EXIT ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	s := newLICMLiveSearch(f)
	if live, ok := s.liveIn(f.Blocks[1], ori.VReg(ori.ClassR, 1, 1)); !ok || !live {
		t.Fatalf("with the budget: live %v ok %v, want true true", live, ok)
	}
	// A block costs one plus the instructions that name the word: BB1
	// costs 1 (it does not name %r1), BB2 costs 2.
	s.budget = 2
	if _, ok := s.liveIn(f.Blocks[1], ori.VReg(ori.ClassR, 1, 1)); ok {
		t.Fatal("past the budget the search still answered")
	}
}
