package sass

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/sim"
)

func TestResources(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "call.ori"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ori.ParseModule("call.ori", src)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Resources(&b, m.Arch, GlobalBytes(m), ModuleUsage(m, 0)); err != nil {
		t.Fatal(err)
	}
	want := `ptxas info    : 64 bytes gmem
ptxas info    : Function properties for helper
    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'k' for 'sm_86'
ptxas info    : Function properties for k
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers, 256 bytes smem, 360 bytes cmem[0]
`
	// k names up to R7 (10), the helper it calls R8:R9 (12): the
	// kernel's count covers its callee (RegsUsed).
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	// The caller's numbers win: the allocator's register count, a frame.
	b.Reset()
	u := Usage{Name: "vecadd", Entry: true, Regs: 24, Frame: 32, SpillStores: 8, SpillLoads: 12, Cmem: 0x174}
	if err := Resources(&b, 90, 0, []Usage{u}); err != nil {
		t.Fatal(err)
	}
	want = `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'vecadd' for 'sm_90'
ptxas info    : Function properties for vecadd
    32 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 372 bytes cmem[0]
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	// A literal pool of three f64 constants: ptxas 13.0 -v on the same
	// kernel says "368 bytes cmem[0], 24 bytes cmem[2]".
	m.Funcs[len(m.Funcs)-1].Literals = []uint64{1, 2, 3}
	us := ModuleUsage(m, 0)
	if got := us[len(us)-1].Cmem2; got != 24 {
		t.Errorf("Cmem2 of a pool of 3: %d, want 24", got)
	}
	b.Reset()
	if err := Resources(&b, 80, 0, []Usage{{Name: "k", Entry: true, Regs: 8, Cmem: 368, Cmem2: 24}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "ptxas info    : Used 8 registers, used 0 barriers, 368 bytes cmem[0], 24 bytes cmem[2]\n") {
		t.Errorf("got\n%s", b.String())
	}
}

// TestBarriersUsed checks ptxas's "used N barriers" rule: the highest
// constant ID plus one, 16 for an ID in a register, and a kernel counts
// the barriers of the functions it calls.
func TestBarriersUsed(t *testing.T) {
	m, err := ori.ParseModule("bar.ori", []byte(`.module sm_80 address_size=64
.func leaf
.shared 0x0
.local 0x0
{
BB0:
	#1 BAR.SYNC 0x5, 0x40 ;
	#2 RET.REL.NODEC R20 ;
}
.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 BAR.SYNC 0x0 ;
	#2 CALL.REL.NOINC `+"`leaf`"+` ;
	#3 EXIT ;
}
.entry r
.shared 0x0
.local 0x0
{
BB0:
	#1 BAR.SYNC R4 ;
	#2 EXIT ;
}
.entry none
.shared 0x0
.local 0x0
{
BB0:
	#1 EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := BarriersUsed(m)
	want := map[string]int{"leaf": 6, "k": 6, "r": 16, "none": 0}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: %d barriers, want %d", name, got[name], n)
		}
	}
}

func TestSpillBytes(t *testing.T) {
	f, err := ori.ParseFunc("f.ori", []byte(`.entry k
.shared 0x0
.local 0x40
{
BB0:
	#1 STL [R1], R4 ; spill
	#2 STL.64 [R1+0x8], R4.64 ; spill
	#3 STL.128 [R1+0x10], R4.128 ; spill
	#4 SEL R8 = 0x1, RZ, P0 ; spill
	#5 LDL.64 R4.64 = [R1+0x8] ; refill
	#6 ISETP.NE.U32.AND P0, PT = R8, RZ, PT ; refill
	#7 STL [R1+0x20], R9 ;
	#8 LDL R9 = [R1+0x20] ;
	#9 EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	if st, ld := SpillBytes(f); st != 28 || ld != 8 {
		t.Errorf("SpillBytes = %d stores, %d loads; want 28 and 8", st, ld)
	}
	if n := UsedRegs(f); n != 12 {
		t.Errorf("UsedRegs = %d, want 12 (R9 is the highest: 10, and the two ptxas adds)", n)
	}
}

// TestCmemMatchesLowering checks the cmem[0] rule against the lowering's
// parameter base and the simulator's parameter end on real kernels, for
// a pre-Hopper and a Hopper target.
func TestCmemMatchesLowering(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "*.ptx"))
	if len(files) == 0 {
		t.Fatal("no kernels")
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		pm, err := ptx.Parse(file, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, arch := range []int{75, 90} {
			if arch < pm.SM() {
				continue // refused, as ptxas refuses a .target newer than -arch
			}
			m, err := lower.Lower(pm, lower.Options{Arch: arch})
			if err != nil && strings.Contains(err.Error(), "error: unsupported: ") {
				continue // tex_forms' bindless fetch on sm_90
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range m.Funcs {
				if !f.Entry {
					continue
				}
				want := max(lower.ParamBase(arch), sim.ParamEnd(f))
				for _, tr := range f.TexRefs {
					want = max(want, tr.Offset+4)
				}
				if got := UsageOf(f, arch).Cmem; got != want {
					t.Errorf("%s sm_%d: cmem[0] = %d, want %d", f.Name, arch, got, want)
				}
			}
		}
	}
}
