package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/sass"
)

// TestRegisterCounts pins the register counts of corpus kernels whose
// pressure came from the middle end rather than the allocator: f64
// constants that LICM hoisted out of a loop (HoistMaxRegCount) and that
// the scheduler's ILP pass moved above the DFMA chain reading them
// (SchedKeepPressure). Before those limits: binomialOptionsKernel 56
// registers, quasirandomGeneratorKernel 37, MonteCarloKernel 61 (counted
// then as the highest register plus one; ptxas 13.0.88 at -O3: 27, 23,
// 28). Each ceiling is what orilab uses now, counted as ptxas counts
// (regalloc.HiddenRegs). needle_cuda_shared_1/2 (ptxas 32) kept 16 wide
// products live across two loops (48 registers) before
// opt/imadwideshared.go. simpleTexture's transformKernel (ptxas 19)
// kept sinf's table address and local array base live through the whole
// kernel and each unrolled address in its own register: 27 before
// opt/sameconst.go and opt/addrchain.go. rodinia hotspot's
// calculate_temp (ptxas 32) kept its block offsets and loop bounds in R
// because they are computed after an if on the thread index: 43 before
// opt/uniformdiverge.go at the module's target, sm_75 (41 at sm_80, 36
// now). bicubicTexture's d_renderBicubic
// (ptxas 32) fetched all four components of its sixteen
// one-component texture reads (52 registers) before opt/texmask.go (38),
// and its ILP pass ended nine words above the cap it was given before
// SchedCapKeepInput (29); simpleTexture's transformKernel in the CUDA 3.2
// build (ptxas 14) took 22 before SchedCapKeepInput.
// parboil pns's PetrinetKernel (ptxas 30 at sm_80) compares
// %tid.x with five constants before its main loop and reads the twelve
// live predicates all through it; the five the predicate file could not
// hold each took an R register: 39 at sm_75 (40 at sm_80) before
// opt/predremat.go recomputed them next to their reads.
func TestRegisterCounts(t *testing.T) {
	shared := testenv.Shared(t)
	cases := []struct {
		file, kernel string
		max          int
	}{
		{"sdk2.2/binomialOptions_SM13.ptx", "_Z21binomialOptionsKernelv", 26},
		{"sdk2.2/quasirandomGenerator_SM13.ptx", "_Z26quasirandomGeneratorKernelPfjj", 20},
		{"rodinia/needle.ptx", "_Z20needle_cuda_shared_1PiS_S_iiii", 34},
		{"rodinia/needle.ptx", "_Z20needle_cuda_shared_2PiS_S_iiii", 34},
		{"sdk2.2/simpleTexture_kernel.ptx", "_Z15transformKernelPfiif", 25},
		{"rodinia/hotspot.ptx", "_Z14calculate_tempiPfS_S_iiiiffffff", 37},
		{"sdk2.2/bicubicTexture.ptx", "_Z15d_renderBicubicP6uchar4jjfffff", 29},
		{"../cuda3.2/data/simpleTexture_kernel.ptx", "transformKernel", 18},
		{"parboil/pns.ptx", "_Z14PetrinetKernelPiPfS_iii", 34},
	}
	if !testing.Short() {
		cases = append(cases, struct {
			file, kernel string
			max          int
		}{"sdk2.2/MonteCarlo_SM13.ptx", "_Z16MonteCarloKernelP14__TOptionValuePfi", 32})
	}
	for _, c := range cases {
		file := filepath.Join(shared, "corpus/gpuocelot/tests/ptx", c.file)
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := CompileWith(file, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		f := res.Final.Func(c.kernel)
		if f == nil {
			t.Fatalf("%s: no kernel %s", c.file, c.kernel)
		}
		if n := sass.UsedRegs(f); n > c.max {
			t.Errorf("%s %s: %d registers, want at most %d", c.file, c.kernel, n, c.max)
		}
	}
}

// TestRegisterCountDDIVOfConstants: fuzz finding regtarget-mismatch
// divides an f64 zero by itself in a branch (div.rz.f64 %fd1, %fd1,
// %fd1). The division was expanded after the last constant fold, with
// its fast-path check and slow-path CALL, and the store address stayed
// live across it: 23 registers at sm_80 (ptxas 13.0.88: 18) before
// opt/ddivfold.go folded it to NaN.
func TestRegisterCountDDIVOfConstants(t *testing.T) {
	file := "../testdata/fuzzfindings/regtarget-mismatch/shrunk.ptx"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := CompileWith(file, src, Options{Arch: 80}, PhaseOptions{OptLevel: 3, NoSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := sass.UsedRegs(res.Final.Func("fuzz")); n > 10 {
		t.Errorf("fuzz: %d registers, want at most 10", n)
	}
}
