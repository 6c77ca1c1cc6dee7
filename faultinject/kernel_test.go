package faultinject

import (
	"encoding/binary"
	"fmt"
	"testing"

	"orilab/pipeline/ori"
	"orilab/pipeline/sim"
)

// postRA is a hand-written post-allocation kernel with one instance of
// everything the categories look for: plain register code, guarded
// instructions, a 64-bit spill and refill at [R1+0x8], a predicate saved
// in a register bit by P2R and restored by R2P (a bit-spill), a
// multi-bit P2R, a predicate spilled through a register (SEL/ISETP with
// spill/refill roles), and three rematerializations (an immediate, a
// constant-bank read, an S2R).
//
// out[tid] = tid + 7 + ntid.x + 1000*(tid >= 16) + (tid == 3 ? 100 : tid +
// 10000), for 32 threads.
const postRA = `.module sm_75 address_size=64

.entry k
.param out offset=0x160 size=0x8 align=0x8
.shared 0x0
.local 0x10
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 IADD3 R1 = R1, -0x10, RZ ;
	#3 S2R R4 = SR_TID.X ;
	#4 MOV R6 = c[0x0][0x160] ;
	#5 MOV R7 = c[0x0][0x164] ;
	#6 IMAD.WIDE.U32 R6.64 = R4, 0x4, R6.64 ;
	#7 STL.64 [R1+0x8], R6.64 ; spill
	#8 ISETP.GE.U32.AND P0, PT = R4, 0x10, PT ;
	#9 P2R R5 = RZ, 0x1 ;
	#10 ISETP.EQ.U32.AND P1, PT = R4, 0x3, PT ;
	#11 SEL R9 = 0x1, RZ, P1 ; spill
	#12 ISETP.EQ.U32.AND P0, PT = R4, 0x3, PT ;
	#13 P2R R8 = RZ, 0x3 ;
	#14 MOV R6 = R4 ;
	#15 @P0 IADD3 R6 = R6, 0x64, RZ ;
	#16 R2P R5, 0x1 ;
	#17 ISETP.NE.AND P1, PT = R9, RZ, PT ; refill
	#18 MOV R7 = 0x7 ; remat #40
	#19 IADD3 R6 = R6, R7, RZ ;
	#20 MOV R7 = c[0x0][0x0] ; remat #41
	#21 IADD3 R6 = R6, R7, RZ ;
	#22 @P0 IADD3 R6 = R6, 0x3e8, RZ ;
	#23 LDL.64 R4.64 = [R1+0x8] ; refill
	#24 S2R R7 = SR_TID.X ; remat #3
	#25 @!P1 IADD3 R6 = R6, R7, RZ ;
	#26 @!P1 IADD3 R6 = R6, 0x2710, RZ ;
	#27 STG.E [R4.64], R6 ;
	#28 EXIT ;
}
`

const nThreads = 32

// expected is what postRA computes for each thread.
func expected() []uint32 {
	want := make([]uint32, nThreads)
	for i := range want {
		v := uint32(i + 7 + nThreads)
		if i == 3 {
			v += 100
		} else {
			v += uint32(i) + 10000
		}
		if i >= 16 {
			v += 1000
		}
		want[i] = v
	}
	return want
}

func parseModule(t testing.TB, text string) *ori.Module {
	t.Helper()
	m, err := ori.ParseModule("t.ori", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runKernel executes kernel k of m for one CTA of 32 threads and returns
// out[0..31].
func runKernel(m *ori.Module) ([]uint32, error) {
	g := sim.NewGlobal()
	out := g.Alloc("out", 4*nThreads)
	p := make([]byte, 8)
	binary.LittleEndian.PutUint64(p, out.Base)
	_, err := sim.Run(m, "k", sim.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{nThreads, 1, 1}, Params: [][]byte{p}}, g, sim.Options{MaxWarpSteps: 10000})
	res := make([]uint32, nThreads)
	for i := range res {
		res[i] = binary.LittleEndian.Uint32(out.Data[4*i:])
	}
	return res, err
}

func TestPostRAKernelRuns(t *testing.T) {
	m := parseModule(t, postRA)
	if o, msg := VerifyStructural(m); o != OutcomeNone {
		t.Fatalf("kernel does not verify: %s", msg)
	}
	got, err := runKernel(m)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(expected()) {
		t.Fatalf("got  %v\nwant %v", got, expected())
	}
}
