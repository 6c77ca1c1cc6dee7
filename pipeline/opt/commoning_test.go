package opt

import (
	"hash/maphash"
	"testing"

	"orilab/pipeline/ori"
)

func TestCommoning(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{
			name: "repeat through a copy, commuted",
			in:   commonThroughCopy,
			want: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 S2R %r3 = SR_CTAID.X ;
	#3 MOV %r5 = c[0x0][0x0] ;
	#4 IMAD %r6 = %r3, %r5, %r1 ;
	#5 MOV %r9 = %r5 ;
	#6 MOV %r7 = %r6 ;
	#7 IADD3 %r8 = %r7, %r6, RZ ;
	#8 STS [%r8], %r8 ;
	#9 EXIT ;
`,
		},
		{
			name: "redefined source, guarded, clock, load and 64-bit",
			in: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 IADD3 %r2 = %r1, 0x4, RZ ;
	#3 IADD3 %r1 = %r1, 0x1, RZ ;
	#4 IADD3 %r3 = %r1, 0x4, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r1, 0x0, PT ;
	#6 @%p0 IADD3 %r4 = %r1, 0x4, RZ ;
	#7 S2R %r5 = SR_CLOCKLO ;
	#8 S2R %r6 = SR_CLOCKLO ;
	#9 IMAD.WIDE.U32 %r7.64 = %r1, 0x4, RZ ;
	#10 IMAD.WIDE.U32 %r8.64 = %r1, 0x4, RZ ;
	#11 LDG.E %r9 = [%r7.64] ;
	#12 LDG.E %r10 = [%r7.64] ;
	#13 IADD3 %r11 = %r1, 0x4, RZ ;
	#14 EXIT ;
`,
			want: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 IADD3 %r2 = %r1, 0x4, RZ ;
	#3 IADD3 %r1 = %r1, 0x1, RZ ;
	#4 IADD3 %r3 = %r1, 0x4, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r1, 0x0, PT ;
	#6 @%p0 IADD3 %r4 = %r1, 0x4, RZ ;
	#7 S2R %r5 = SR_CLOCKLO ;
	#8 S2R %r6 = SR_CLOCKLO ;
	#9 IMAD.WIDE.U32 %r7.64 = %r1, 0x4, RZ ;
	#10 MOV %r8.64 = %r7.64 ;
	#11 LDG.E %r9 = [%r7.64] ;
	#12 LDG.E %r10 = [%r7.64] ;
	#13 MOV %r11 = %r3 ;
	#14 EXIT ;
`,
		},
		{
			name: "earlier result overwritten",
			in: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 SHF.L.U32 %r2 = %r1, 0x2, RZ ;
	#3 MOV %r2 = 0x0 ;
	#4 SHF.L.U32 %r3 = %r1, 0x2, RZ ;
	#5 SHF.L.U32 %r4 = %r1, 0x2, RZ ;
	#6 EXIT ;
`,
			want: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 SHF.L.U32 %r2 = %r1, 0x2, RZ ;
	#3 MOV %r2 = 0x0 ;
	#4 SHF.L.U32 %r3 = %r1, 0x2, RZ ;
	#5 MOV %r4 = %r3 ;
	#6 EXIT ;
`,
		},
		{
			name: "physical registers forgotten at a call",
			in: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 IADD3 R4 = %r1, 0x1, RZ ;
	#3 IADD3 %r2 = %r1, 0x1, RZ ;
	#4 CALL ` + "`f`" + ` ;
	#5 IADD3 %r3 = %r1, 0x1, RZ ;
	#6 IADD3 %r4 = R4, 0x1, RZ ;
	#7 IADD3 %r5 = R4, 0x1, RZ ;
	#8 EXIT ;
`,
			want: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 IADD3 R4 = %r1, 0x1, RZ ;
	#3 MOV %r2 = R4 ;
	#4 CALL ` + "`f`" + ` ;
	#5 IADD3 %r3 = %r1, 0x1, RZ ;
	#6 IADD3 %r4 = R4, 0x1, RZ ;
	#7 MOV %r5 = %r4 ;
	#8 EXIT ;
`,
		},
	}
	cases = append(cases, struct{ name, in, want string }{
		name: "across dominated blocks, stable registers only",
		in: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 MOV %r9 = 0x0 ;
	#3 SHF.L.U32 %r2 = %r1, 0x2, RZ ;
	#4 IADD3 %r3 = %r9, 0x1, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r1, 0x0, PT ;
	#6 @%p0 BRA BB2 ;
BB1:
	#7 SHF.L.U32 %r4 = %r1, 0x2, RZ ;
	#8 IADD3 %r9 = %r9, 0x1, RZ ;
	#9 IADD3 %r5 = %r9, 0x1, RZ ;
	#10 STS [%r4], %r5 ;
BB2:
	#11 SHF.L.U32 %r6 = %r1, 0x2, RZ ;
	#12 STS [%r6], %r3 ;
	#13 EXIT ;
`,
		want: `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 MOV %r9 = 0x0 ;
	#3 SHF.L.U32 %r2 = %r1, 0x2, RZ ;
	#4 IADD3 %r3 = %r9, 0x1, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r1, 0x0, PT ;
	#6 @%p0 BRA BB2 ;
BB1:
	#7 MOV %r4 = %r2 ;
	#8 IADD3 %r9 = %r9, 0x1, RZ ;
	#9 IADD3 %r5 = %r9, 0x1, RZ ;
	#10 STS [%r4], %r5 ;
BB2:
	#11 MOV %r6 = %r2 ;
	#12 STS [%r6], %r3 ;
	#13 EXIT ;
`,
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, name := range []string{"OriCommoning", "LateOriCommoning"} {
				got, changed := runPassText(t, name, boFunc(c.in), false)
				want := canonText(t, boFunc(c.want))
				if got != want {
					t.Errorf("%s got:\n%s\nwant:\n%s", name, got, want)
				}
				if !changed {
					t.Errorf("%s: changed = false", name)
				}
			}
		})
	}
}

func TestCommoningOnTestdata(t *testing.T) {
	p, _ := passByPhase("OriCommoning")
	total := 0
	for _, rel := range []string{"testdata/sample/sample.ptx", "testdata/lower/int_div.ptx", "testdata/lower/float_div.ptx", "testdata/lower/int_carry.ptx", "testdata/lower/mem_basic.ptx"} {
		m := lowerTestdata(t, rel)
		for _, f := range m.Funcs {
			before := f.String()
			changed, err := p.Run(f, &Context{OptLevel: 3, Arch: 75})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.ComputeCFG(); err != nil {
				t.Fatal(err)
			}
			if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
				t.Fatalf("%s %s: %v", rel, f.Name, err)
			}
			if changed != (before != f.String()) {
				t.Errorf("%s %s: changed = %v", rel, f.Name, changed)
			}
			if changed {
				total++
			}
		}
	}
	if total == 0 {
		t.Fatal("OriCommoning changed no testdata function")
	}
	t.Logf("changed %d functions", total)
}

// TestCSETableEntries checks the block table's entries: a key finds what
// was put under it, a second put replaces it, and other keys (a prefix,
// an extension) find nothing.
func TestCSETableEntries(t *testing.T) {
	s := &cseState{index: map[uint64]int32{}, seed: maphash.MakeSeed()}
	a := cseAvail{dst: ori.VReg(ori.ClassR, 1, 1), vns: []int{1}}
	b := cseAvail{dst: ori.VReg(ori.ClassR, 2, 2), vns: []int{2, 3}}
	s.put([]byte("IADD3|R1,|Rv1,Rv2"), a)
	s.put([]byte("IADD3|R1,|Rv1"), b)
	if e, ok := s.lookup([]byte("IADD3|R1,|Rv1,Rv2")); !ok || e.dst != a.dst {
		t.Fatalf("first key: %v %v", e, ok)
	}
	if e, ok := s.lookup([]byte("IADD3|R1,|Rv1")); !ok || e.dst != b.dst {
		t.Fatalf("second key: %v %v", e, ok)
	}
	if _, ok := s.lookup([]byte("IADD3|R1,|Rv1,Rv2,")); ok {
		t.Fatal("an extension of a key found an entry")
	}
	s.put([]byte("IADD3|R1,|Rv1"), a)
	if e, ok := s.lookup([]byte("IADD3|R1,|Rv1")); !ok || e.dst != a.dst || len(s.ents) != 2 {
		t.Fatalf("replaced key: %v %v, %d entries", e, ok, len(s.ents))
	}
	// Scoping (the dominator walk): what was added after a mark goes.
	s.add([]byte("LOP3|R1,|Rv4"), b)
	s.popTo(1)
	if _, ok := s.lookup([]byte("LOP3|R1,|Rv4")); ok {
		t.Fatal("an entry added after the mark survived popTo")
	}
	if _, ok := s.lookup([]byte("IADD3|R1,|Rv1")); ok {
		t.Fatal("the second entry survived popTo(1)")
	}
	if e, ok := s.lookup([]byte("IADD3|R1,|Rv1,Rv2")); !ok || e.dst != a.dst || len(s.index) != 1 {
		t.Fatalf("the first entry after popTo(1): %v %v, %d hashes", e, ok, len(s.index))
	}
}
