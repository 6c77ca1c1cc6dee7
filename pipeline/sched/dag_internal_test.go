package sched

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// dagOf parses one block of instructions and builds its DAG.
func dagOf(t *testing.T, insts string) *dag {
	t.Helper()
	f, err := ori.ParseFunc("t.ori", []byte(".entry t\n.shared 0x0\n.local 0x0\n{\nBB0:\n"+insts+"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return buildDAG(f.Blocks[0].Insts, 75, false)
}

// edgeList renders d's edges as "#from->#to kinds lat", sorted.
func edgeList(d *dag) string {
	var out []string
	for i, es := range d.succ {
		for _, e := range es {
			var ks []string
			for k, n := range map[depKind]string{depRAW: "raw", depWAR: "war", depWAW: "waw", depMem: "mem", depOrder: "order"} {
				if e.kind&k != 0 {
					ks = append(ks, n)
				}
			}
			sort.Strings(ks)
			out = append(out, fmt.Sprintf("#%d->#%d %s %d", d.insts[i].ID, d.insts[e.to].ID, strings.Join(ks, "+"), e.lat))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func TestDAGWorkedExample(t *testing.T) {
	d := dagOf(t, `	#1 LDG.E %r1 = [%r0.64] ;
	#2 IADD3 %r2 = %r3, 0x1, RZ ;
	#3 IMAD %r4 = %r1, %r2, RZ ;
	#4 STG.E [%r0.64], %r4 ;
	#5 EXIT ;
`)
	want := `#1->#3 raw 28
#1->#4 mem 1
#1->#5 mem+order 0
#2->#3 raw 4
#2->#5 order 0
#3->#4 raw 5
#3->#5 order 0
#4->#5 mem+order 0`
	if got := edgeList(d); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := fmt.Sprint(d.height); got != "[34 10 6 1 1]" {
		t.Errorf("heights %s", got)
	}
	if got := fmt.Sprint(d.waits); got != "[false false true false false]" {
		t.Errorf("barrier targets %s", got)
	}
}

func TestDAGRegisters(t *testing.T) {
	// Word-level overlap (R5 is word 1 of R4.64), WAR and WAW, a guard
	// read, a guarded write, and the predicates P2R reads and R2P writes.
	d := dagOf(t, `	#1 IMAD.WIDE R4.64 = R2, 0x4, RZ ;
	#2 IADD3 R6 = R5, 0x1, RZ ;
	#3 IADD3 R5 = R7, 0x1, RZ ;
	#4 ISETP.GE.AND P0, PT = R6, R7, PT ;
	#5 @P0 MOV R6 = R8 ;
	#6 IADD3 R9 = R6, 0x1, RZ ;
	#7 P2R R10 = RZ, 0x1 ;
	#8 R2P R11, 0x3 ;
`)
	want := `#1->#2 raw 6
#1->#3 waw 1
#2->#3 war 0
#2->#4 raw 4
#2->#5 waw 1
#4->#5 raw 4
#4->#5 war 0
#4->#7 raw 4
#4->#8 waw 1
#5->#6 raw 4
#5->#8 war 0
#7->#8 war 0`
	got := edgeList(d)
	// #4->#5 carries both reasons on one edge.
	want = strings.Replace(want, "#4->#5 raw 4\n#4->#5 war 0", "#4->#5 raw+war 4", 1)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDAGMemory(t *testing.T) {
	d := dagOf(t, `	#1 STL [R1+0x8], R4 ;
	#2 LDL R5 = [R1+0x10] ;
	#3 LDL R6 = [R1+0x8] ;
	#4 STS [R2], R4 ;
	#5 LDG.E R7 = [R20.64] ;
	#6 LD.E R9 = [R20.64] ;
	#7 LDC R10 = c[0x3][R2] ;
	#8 STG.E [R20.64+0x4], R11 ;
	#9 LDG.E R12 = [R20.64] ;
	#10 IADD3 R20 = R20, 0x4, RZ ;
	#11 LDG.E R13 = [R20.64] ;
`)
	// The spill slot at +0x8 conflicts with the refill of +0x8 only;
	// shared, local and global never alias each other, but the generic
	// load may read any of them; the constant load orders with nothing;
	// the global store at +0x4 misses both global loads at +0 off the same
	// base, but not #11, whose base has a new value.
	want := `#1->#3 mem 1
#1->#6 mem 1
#10->#11 raw 4
#4->#6 mem 1
#5->#10 war 0
#6->#10 war 0
#6->#8 mem 1
#8->#10 war 0
#8->#11 mem 1
#9->#10 war 0`
	if got := edgeList(d); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDAGOrderingPoints(t *testing.T) {
	d := dagOf(t, `	#1 STS [R2], R4 ;
	#2 IADD3 R5 = R6, 0x1, RZ ;
	#3 BAR.SYNC 0x0 ;
	#4 LDS R7 = [R3] ;
	#5 IADD3 R8 = R6, 0x2, RZ ;
	#6 SHFL.IDX PT, R9 = R8, 0x0, 0x1f ;
	#7 CALL.REL.NOINC `+"`f`"+` ;
	#8 IADD3 R10 = R6, 0x3, RZ ;
	#9 IADD3 R1 = R1, 0x10, RZ ;
	#10 EXIT ;
`)
	// The ALU instructions cross the BAR freely; memory and the shuffle
	// do not; CALL, the R1 write and EXIT are full barriers (each depends
	// on everything since the previous one, which orders the rest).
	want := `#1->#3 mem 0
#1->#7 order 0
#2->#7 order 0
#3->#4 mem 0
#3->#6 order 0
#3->#7 order 0
#4->#6 mem 0
#4->#7 order 0
#5->#6 raw 4
#5->#7 order 0
#6->#7 order 0
#7->#8 order 0
#7->#9 order 0
#8->#9 order 0
#9->#10 order 0`
	if got := edgeList(d); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestDAGOrderedAccesses: a STRONG access (ld.volatile, ld.acquire,
// st.release... in the PTX) is an ordering point: the weak load after it
// depends on it although two loads never conflict, and the next one
// depends on the weak store before it, off another base.
func TestDAGOrderedAccesses(t *testing.T) {
	d := dagOf(t, `	#1 LDG.E.STRONG.GPU %r1 = [%r10.64] ;
	#2 LDG.E %r2 = [%r12.64] ;
	#3 STG.E [%r14.64], %r2 ;
	#4 STG.E.STRONG.SYS [%r16.64], %r1 ;
`)
	got := edgeList(d)
	for _, want := range []string{"#1->#2 mem", "#3->#4 mem"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
