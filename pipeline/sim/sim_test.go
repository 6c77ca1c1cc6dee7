package sim

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// runText parses an Ori module, allocates one output buffer of n words and
// runs kernel k with its address as the only parameter.
func runText(t *testing.T, text string, grid, block [3]int, n int) ([]uint32, error) {
	t.Helper()
	m, err := ori.ParseModule("t.ori", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Funcs {
		// SSA mode: tests may hold MOV.PHI (it only adds the phi rules).
		if err := ori.Verify(f, ori.VerifyOptions{SSA: true}); err != nil {
			t.Fatal(err)
		}
	}
	g := NewGlobal()
	out := g.Alloc("out", 4*n)
	p := make([]byte, 8)
	binary.LittleEndian.PutUint64(p, out.Base)
	_, err = Run(m, "k", Launch{Grid: grid, Block: block, Params: [][]byte{p}}, g, Options{MaxWarpSteps: 100000})
	res := make([]uint32, n)
	for i := range res {
		res[i] = binary.LittleEndian.Uint32(out.Data[4*i:])
	}
	return res, err
}

const header = ".module sm_75 address_size=64\n\n.entry k\n.param out offset=0x160 size=0x8 align=0x8\n.shared 0x100\n.local 0x0\n{\n"

// storeTid is a prologue that computes %r10.64 = &out[global thread id].
const storeAddr = `	#100 S2R %r0 = SR_TID.X ;
	#101 S2R %r1 = SR_CTAID.X ;
	#102 IMAD %r2 = %r1, c[0x0][0x0], %r0 ;
	#103 MOV %r3 = c[0x0][0x160] ;
	#104 MOV %r3[1] = c[0x0][0x164] ;
	#105 IMAD.WIDE.U32 %r10.64 = %r2, 0x4, %r3.64 ;
`

func TestStoreThreadIndex(t *testing.T) {
	text := header + "BB0:\n" + storeAddr + "\t#1 STG.E [%r10.64], %r2 ;\n\t#2 EXIT ;\n}\n"
	got, err := runText(t, text, [3]int{2, 1, 1}, [3]int{40, 1, 1}, 80)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != uint32(i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, i)
		}
	}
}

func TestDivergentLoopAndShuffle(t *testing.T) {
	// Each thread loops tid%4 times adding 10, then a butterfly shuffle
	// reads the neighbour's value (lane ^ 1), and the result is stored.
	text := header + `BB0:
` + storeAddr + `	#1 MOV %r20 = RZ ;
	#2 LOP3.LUT %r21 = %r0, 0x3, RZ, 0xc0, !PT ;
BB1:
	#3 ISETP.EQ.U32.AND %p0, PT = %r21, RZ, PT ;
	#4 @%p0 BRA BB3 ;
BB2:
	#5 IADD3 %r20 = %r20, 0xa, RZ ;
	#6 IADD3 %r21 = %r21, -0x1, RZ ;
	#7 BRA BB1 ;
BB3:
	#8 SHFL.BFLY %p1, %r22 = %r20, 0x1, 0x1f ;
	#9 STG.E [%r10.64], %r22 ;
	#10 EXIT ;
}
`
	got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := uint32((i ^ 1) % 4 * 10)
		if v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
}

func TestOutOfBoundsNamesInstructionThreadAddress(t *testing.T) {
	text := header + "BB0:\n" + storeAddr + "\t#1 STG.E [%r10.64+0x100], %r2 ;\n\t#2 EXIT ;\n}\n"
	_, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"instruction #1 (STG.E)", "thread (0,0,0) of CTA (0,0,0)", "out-of-bounds global store of 4 bytes at address 0x100100", "past the end of out"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestStepLimit(t *testing.T) {
	text := header + "BB0:\n\t#1 BRA BB0 ;\n}\n"
	_, err := runText(t, text, [3]int{1, 1, 1}, [3]int{1, 1, 1}, 1)
	if err == nil || err.Error() != "kernel k did not finish within 100000 warp-steps (raise the limit with --max-steps): step limit reached" {
		t.Fatalf("got %v", err)
	}
}

func TestBarrierInDivergentCodeIsAnError(t *testing.T) {
	// The two halves of the warp execute different BAR.SYNC instructions.
	text := header + `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.LT.U32.AND %p0, PT = %r0, 0x10, PT ;
	#3 @!%p0 BRA BB2 ;
BB1:
	#4 BAR.SYNC 0x0 ;
	#5 BRA BB3 ;
BB2:
	#6 BAR.SYNC 0x0 ;
BB3:
	#7 EXIT ;
}
`
	_, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 1)
	want := "kernel k: instruction #4 (BAR.SYNC), thread (0,0,0) of CTA (0,0,0): barrier 0 executed in divergent code: threads 0-15 of warp 0 wait at #4 (BAR.SYNC) while threads 16-31 wait at #6 (BAR.SYNC); bar.sync is .aligned, so every thread of a warp must execute the same barrier instruction"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

func TestBarrierReachedAtDifferentTimes(t *testing.T) {
	// Threads that skip the body reach the barrier (laid out before the
	// loop header, as clang does) before the others: legal, and the
	// barrier waits for the whole warp.
	text := header + `BB0:
` + storeAddr + `	#1 MOV %r20 = RZ ;
	#2 MOV %r21 = 0x2 ;
	#3 BRA BB2 ;
BB1:
	#4 BAR.SYNC 0x0 ;
	#5 IADD3 %r21 = %r21, -0x1, RZ ;
	#6 ISETP.EQ.U32.AND %p1, PT = %r21, RZ, PT ;
	#7 @%p1 BRA BB4 ;
BB2:
	#8 ISETP.GE.U32.AND %p0, PT = %r0, 0x10, PT ;
	#9 @%p0 BRA BB1 ;
BB3:
	#10 IADD3 %r20 = %r20, 0x1, RZ ;
	#11 BRA BB1 ;
BB4:
	#12 STG.E [%r10.64], %r20 ;
	#13 EXIT ;
}
`
	got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := uint32(0)
		if i < 16 {
			want = 2
		}
		if v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
}

func TestBarrierAcrossWarpsAndShared(t *testing.T) {
	// Thread t writes t to shared[t]; after the barrier it reads
	// shared[63-t]; 64 threads in two warps.
	text := header + `BB0:
` + storeAddr + `	#1 SHF.L.U32 %r30 = %r0, 0x2, RZ ;
	#2 STS [%r30], %r0 ;
	#3 BAR.SYNC 0x0 ;
	#4 IADD3 %r31 = -%r0, 0x3f, RZ ;
	#5 SHF.L.U32 %r32 = %r31, 0x2, RZ ;
	#6 LDS %r33 = [%r32] ;
	#7 STG.E [%r10.64], %r33 ;
	#8 EXIT ;
}
`
	got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{64, 1, 1}, 64)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != uint32(63-i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 63-i)
		}
	}
}

func TestDeadlockReported(t *testing.T) {
	// Warp 0 waits at a barrier that warp 1 never reaches: warp 1 spins
	// on a WARPSYNC for lanes that never arrive... simpler: warp 1 waits at
	// barrier 1, warp 0 at barrier 0.
	text := header + `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.LT.U32.AND %p0, PT = %r0, 0x20, PT ;
	#3 @!%p0 BRA BB2 ;
BB1:
	#4 BAR.SYNC 0x0 ;
	#5 EXIT ;
BB2:
	#6 BAR.SYNC 0x1 ;
	#7 EXIT ;
}
`
	_, err := runText(t, text, [3]int{1, 1, 1}, [3]int{64, 1, 1}, 1)
	if err == nil || !strings.Contains(err.Error(), "deadlocked in CTA (0,0,0)") || !strings.Contains(err.Error(), "warp 1: threads 0-31 wait at barrier #6") {
		t.Fatalf("got %v", err)
	}
}

func TestCallAndReturn(t *testing.T) {
	text := `.module sm_75 address_size=64

.func twice
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#2 IADD3 R4 = %r0, %r0, RZ ;
	#3 RET ;
}

.entry k
.param out offset=0x160 size=0x8 align=0x8
.shared 0x0
.local 0x0
{
BB0:
` + storeAddr + `	#1 MOV R4 = %r2 ;
	#2 CALL.REL.NOINC ` + "`twice`" + ` ;
	#3 MOV %r5 = R4 ;
	#4 STG.E [%r10.64], %r5 ;
	#5 EXIT ;
}
`
	got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != uint32(2*i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 2*i)
		}
	}
}

// TestReturnAddress: the caller passes the return point in R20:R21 and
// the callee returns through RET.REL.NODEC; a callee that loses its
// return address (here it returns through R22:R23, which it overwrote)
// would return elsewhere on the hardware, and the simulator says so.
func TestReturnAddress(t *testing.T) {
	module := func(ret string) string {
		return `.module sm_75 address_size=64

.func twice
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#5 MOV %r8 = R20 ;
	#6 MOV %r8[1] = R21 ;
	#7 MOV R22 = 0x40 ;
	#8 MOV R23 = RZ ;
	#2 IADD3 R4 = %r0, %r0, RZ ;
	#3 RET.REL.NODEC ` + ret + ` ;
}

.entry k
.param out offset=0x160 size=0x8 align=0x8
.shared 0x0
.local 0x0
{
BB0:
` + storeAddr + `	#1 MOV R4 = %r2 ;
	#6 MOV R20 = ` + "`.ret`" + ` ;
	#7 MOV R21 = RZ ;
	#2 CALL.REL.NOINC ` + "`twice`" + ` ;
	#3 MOV %r5 = R4 ;
	#4 STG.E [%r10.64], %r5 ;
	#5 EXIT ;
}
`
	}
	got, err := runText(t, module("%r8.64"), [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != uint32(2*i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 2*i)
		}
	}
	_, err = runText(t, module("R22.64"), [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err == nil || !strings.Contains(err.Error(), "RET to 0x40, but the call returns to 0x") {
		t.Fatalf("a lost return address: got %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	text := header + "BB0:\n" + storeAddr + "\t#1 CS2R %r40.64 = SR_CLOCKLO ;\n\t#2 STG.E [%r10.64], %r40 ;\n\t#3 EXIT ;\n}\n"
	a, err := runText(t, text, [3]int{2, 1, 1}, [3]int{64, 1, 1}, 128)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := runText(t, text, [3]int{2, 1, 1}, [3]int{64, 1, 1}, 128)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("run differs at %d: %d vs %d", i, a[i], b[i])
		}
	}
}

func TestBSSYBSYNCReconverge(t *testing.T) {
	// Lanes below 8 take a longer path; BSSY/BSYNC make all 32 meet before
	// the ballot, which therefore sees every lane.
	text := header + `BB0:
` + storeAddr + `	#1 BSSY 0x0, BB3 ;
	#2 ISETP.LT.U32.AND %p0, PT = %r0, 0x8, PT ;
	#3 @!%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r20 = %r0, 0x1, RZ ;
	#5 IADD3 %r20 = %r20, 0x1, RZ ;
BB2:
	#6 BSYNC 0x0 ;
BB3:
	#7 VOTE.ANY %r21, PT = PT ;
	#8 STG.E [%r10.64], %r21 ;
	#9 EXIT ;
}
`
	got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 0xffffffff {
			t.Fatalf("out[%d] = %#x, want all 32 lanes in the ballot", i, v)
		}
	}
}

func TestLOP3FastPathsMatchTheTruthTable(t *testing.T) {
	// The named fast paths must agree with the general minterm evaluation.
	a, b, c := uint32(0xF0F0F0F0), uint32(0xCCCCCCCC), uint32(0xAAAAAAAA)
	for lut := uint32(0); lut < 256; lut++ {
		got := lop3(lut, a, b, c)
		want := lut | lut<<8 | lut<<16 | lut<<24
		if got != want {
			t.Fatalf("lop3(%#x) = %#x, want %#x", lut, got, want)
		}
	}
}

// TestExitAtQuantumEnd runs a one-warp kernel whose EXIT is exactly the
// 256th warp-step of a round: the warp finishes in the next round, which
// must not be mistaken for a deadlock.
func TestExitAtQuantumEnd(t *testing.T) {
	var body strings.Builder
	body.WriteString(".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n")
	for i := 1; i < 256; i++ {
		fmt.Fprintf(&body, "\t#%d NOP ;\n", i)
	}
	body.WriteString("\t#256 EXIT ;\n}\n")
	f, err := ori.ParseFunc("q.ori", []byte(body.String()))
	if err != nil {
		t.Fatal(err)
	}
	m := &ori.Module{Arch: 75, AddressSize: 64, Funcs: []*ori.Func{f}}
	if _, err := Run(m, "k", Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}, NewGlobal(), Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestUniformRegisterIsPerWarp: a UR (and UP) written by the lanes of one
// side of a divergent branch holds that value for the whole warp, as on
// the uniform datapath; an R register written the same way does not. A
// uniform instruction that reads and writes the same UR adds once, not
// once per lane.
func TestUniformRegisterIsPerWarp(t *testing.T) {
	text := header + `BB0:
` + storeAddr + `	#1 UMOV %ur0 = 0x5 ;
	#11 UISETP.EQ.U32.AND %up0, UPT = %ur0, 0x6, UPT ;
	#2 MOV %r20 = 0x5 ;
	#3 ISETP.LT.U32.AND %p0, PT = %r0, 0x8, PT ;
	#4 @!%p0 BRA BB2 ;
BB1:
	#5 UMOV %ur0 = 0x7 ;
	#6 MOV %r20 = 0x7 ;
	#7 UISETP.NE.U32.AND %up0, UPT = %ur0, 0x5, UPT ;
BB2:
	#12 SEL %r22 = 0x64, RZ, %up0 ;
	#13 UIADD3 %ur0 = %ur0, 0x3, URZ ;
	#8 IADD3 %r21 = %ur0, %r20, %r22 ;
	#9 STG.E [%r10.64], %r21 ;
	#10 EXIT ;
}
`
	got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := uint32(100 + 10 + 5)
		if i < 8 {
			want = 100 + 10 + 7
		}
		if v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
}

// TestPhiParallelCopy runs a loop whose header phis swap two values: the
// phis of a block are one parallel copy (read all, then write all), and
// each thread takes the values of the edge it came along. The trip count
// depends on the thread, so the warp diverges: thread t swaps t&3 times,
// and stores b*1000 + a.
func TestPhiParallelCopy(t *testing.T) {
	text := header + "BB0:\n" + storeAddr + `	#1 MOV %r20 = %r0 ;
	#2 MOV %r21 = 0x64 ;
	#3 MOV %r22 = 0x0 ;
	#4 LOP3.LUT %r23 = %r0, 0x3, RZ, 0xc0, !PT ;
BB1:
	#5 MOV.PHI %r30 = %r20, BB0, %r31, BB1 ;
	#6 MOV.PHI %r31 = %r21, BB0, %r30, BB1 ;
	#7 MOV.PHI %r32 = %r22, BB0, %r33, BB1 ;
	#8 IADD3 %r33 = %r32, 0x1, RZ ;
	#9 ISETP.LE.U32.AND %p0, PT = %r33, %r23, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 IMAD %r34 = %r31, 0x3e8, %r30 ;
	#12 STG.E [%r10.64], %r34 ;
	#13 EXIT ;
}
`
	got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := uint32(100*1000 + i)
		if i&3%2 == 1 {
			want = uint32(i*1000 + 100)
		}
		if v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
}

// TestPhiWithoutPredecessorValue: a thread that reaches a phi from a
// block the phi does not name is a fault naming the block, not a silent
// zero.
func TestPhiWithoutPredecessorValue(t *testing.T) {
	m, err := ori.ParseModule("t.ori", []byte(header+`BB0:
	#1 MOV %r1 = 0x1 ;
BB1:
	#2 MOV.PHI %r2 = %r1, BB1 ;
	#3 EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGlobal()
	out := g.Alloc("out", 4)
	p := make([]byte, 8)
	binary.LittleEndian.PutUint64(p, out.Base)
	_, err = Run(m, "k", Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}, Params: [][]byte{p}}, g, Options{MaxWarpSteps: 100})
	if err == nil || !strings.Contains(err.Error(), "MOV.PHI has no value for BB0, the block the thread came from") {
		t.Fatalf("err = %v", err)
	}
}

// TestPhiAfterEmptyBlock: a block may be empty (loop-invariant hoisting
// can empty one), and a thread that passes through it comes to the next
// block from the empty block, not from the block before it. Each case
// stores, per thread, the value its phi took.
func TestPhiAfterEmptyBlock(t *testing.T) {
	cases := []struct {
		name string
		body string
		want func(lane int) uint32
	}{{
		// BB0 branches straight to the phi's block or falls through the
		// empty BB1: both edges reach BB2, and only the edge tells them
		// apart (the old bookkeeping gave every thread BB0's value).
		name: "fall-through",
		body: `	#2 @%p0 BRA BB2 ;
BB1:
BB2:
	#10 MOV.PHI %r40 = %r20, BB0, %r21, BB1 ;
`,
		want: func(l int) uint32 {
			if l&3 == 0 {
				return 0xa
			}
			return 0xb
		},
	}, {
		// Threads reach the empty BB2 by a taken branch and by falling
		// through BB1; both leave BB2 into BB3.
		name: "branch into empty block",
		body: `	#2 @%p0 BRA BB3 ;
BB1:
	#3 @%p1 BRA BB2 ;
BB2:
BB3:
	#10 MOV.PHI %r40 = %r20, BB0, %r21, BB2 ;
`,
		want: func(l int) uint32 {
			if l&3 == 0 {
				return 0xa
			}
			return 0xb
		},
	}, {
		// A chain of empty blocks, entered at its start (falling out of
		// BB1) and in its middle (BB1's branch): the thread comes from the
		// last one.
		name: "chain",
		body: `	#2 @%p0 BRA BB4 ;
BB1:
	#3 @%p1 BRA BB3 ;
BB2:
BB3:
BB4:
	#10 MOV.PHI %r40 = %r20, BB0, %r21, BB3 ;
`,
		want: func(l int) uint32 {
			if l&3 == 0 {
				return 0xa
			}
			return 0xb
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := header + "BB0:\n" + storeAddr + `	#1 MOV %r20 = 0xa ;
	#5 MOV %r21 = 0xb ;
	#6 LOP3.LUT %r23 = %r0, 0x3, RZ, 0xc0, !PT ;
	#7 ISETP.EQ.U32.AND %p0, PT = %r23, 0x0, PT ;
	#8 ISETP.EQ.U32.AND %p1, PT = %r23, 0x1, PT ;
` + c.body + `	#11 STG.E [%r10.64], %r40 ;
	#12 EXIT ;
}
`
			got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				if w := c.want(i); v != w {
					t.Fatalf("out[%d] = %#x, want %#x", i, v, w)
				}
			}
		})
	}
}

// TestPhiAfterEmptyEntryBlock: an empty entry block is the predecessor of
// the block it falls into, so a phi there takes the value for it.
func TestPhiAfterEmptyEntryBlock(t *testing.T) {
	text := header + `BB0:
BB1:
	#1 MOV.PHI %r40 = 0x7, BB0 ;
` + storeAddr + `	#11 STG.E [%r10.64], %r40 ;
	#12 EXIT ;
}
`
	got, err := runText(t, text, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 7 {
			t.Fatalf("out[%d] = %#x, want 0x7", i, v)
		}
	}
}

// TestSharedClusterRankSM90: on sm_90 SR_CgaCtaId is the CTA's rank in
// its cluster, 0 in a launch without clusters, and a shared address
// with that rank in bits 24-31 (ptxas's LEA by 24) is the CTA's own
// window; another rank names a CTA the simulator does not run. Before
// sm_90 the high bits are part of the offset.
func TestSharedClusterRankSM90(t *testing.T) {
	h90 := strings.NewReplacer("sm_75", "sm_90", "offset=0x160", "offset=0x210", ".shared 0x100", ".shared 0x500").Replace(header)
	sa := strings.NewReplacer("c[0x0][0x160]", "c[0x0][0x210]", "c[0x0][0x164]", "c[0x0][0x214]").Replace(storeAddr)
	// Thread t stores t+1 at 0x404 + 4t through the rank address and
	// reads it back at [0x404 + 4t] without the rank bits; out[t] =
	// t+1 + 100*rank.
	body := func(rankSrc string) string {
		return h90 + "BB0:\n" + sa + `	#1 S2R %r20 = SR_CgaCtaId ;
	#2 MOV %r21 = 0x404 ;
	#3 LEA %r22 = ` + rankSrc + `, %r21, 0x18 ;
	#4 LEA %r23 = %r0, %r22, 0x2 ;
	#5 IADD3 %r24 = %r0, 0x1, RZ ;
	#6 STS [%r23], %r24 ;
	#7 LEA %r25 = %r0, 0x404, 0x2 ;
	#8 LDS %r26 = [%r25] ;
	#9 IMAD %r27 = %r20, 0x64, %r26 ;
	#10 STG.E [%r10.64], %r27 ;
	#11 EXIT ;
}
`
	}
	got, err := runText(t, body("%r20"), [3]int{2, 1, 1}, [3]int{32, 1, 1}, 64)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if want := uint32(i%32 + 1); v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
	// Rank 1: a CTA of the cluster that does not exist here.
	_, err = runText(t, strings.Replace(body("%r20"), "#1 S2R %r20 = SR_CgaCtaId", "#1 MOV %r20 = 0x1", 1), [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err == nil || !strings.Contains(err.Error(), "shared store of 4 bytes at address 0x1000404 names CTA 1 of the cluster; the simulator runs one CTA per cluster (rank 0)") {
		t.Fatalf("rank 1: got %v", err)
	}
	// sm_75: the same address is offset 0x1000404, outside the window.
	_, err = runText(t, strings.Replace(strings.Replace(body("%r20"), "#1 S2R %r20 = SR_CgaCtaId", "#1 MOV %r20 = 0x1", 1), "sm_90", "sm_75", 1), [3]int{1, 1, 1}, [3]int{32, 1, 1}, 32)
	if err == nil || !strings.Contains(err.Error(), "out-of-bounds shared store of 4 bytes at offset 0x1000404") {
		t.Fatalf("sm_75: got %v", err)
	}
}
