package vsptxas

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"orilab/internal/nvtools"
	"orilab/internal/testenv"
)

func TestCountSkipsNOPAndTheTrailingSelfBranch(t *testing.T) {
	dump := `
		Function : k
	.headerflags	@"EF_CUDA_SM80"
        /*0000*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;            /* 0x00000a00ff017624 */
        /*0010*/                   BRA 0x30 ;                                         /* 0x0000000000007947 */
        /*0020*/                   EXIT ;                                             /* 0x000000000000794d */
        /*0030*/                   BRA 0x30;                                          /* 0xfffffff000007947 */
        /*0040*/                   NOP;                                               /* 0x0000000000007918 */
		Function : g
        /*0000*/                   EXIT ;
`
	if got := countCuobjdump(dump); !reflect.DeepEqual(got, map[string]int{"k": 3, "g": 1}) {
		t.Errorf("cuobjdump counts %v", got)
	}
	sass := ".text.k:\n        /*0000*/                   MOV R1, c[0x0][0x28] ;   /* [B------:R-:W-:-:S01] */\n.L_x_0:\n        /*0010*/                   EXIT ;  /* x */\n"
	if got := countOrilab(sass); !reflect.DeepEqual(got, map[string]int{"k": 2}) {
		t.Errorf("orilab counts %v", got)
	}
}

func TestParseVerbose(t *testing.T) {
	out := `ptxas info    : 0 bytes gmem
ptxas info    : Function properties for inlined_away
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'k' for 'sm_80'
ptxas info    : Function properties for k
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 30 registers, used 1 barriers, 372 bytes cmem[0]
`
	got := parseVerbose(out)
	want := map[string]*Figures{"k": {Regs: 30, SpillStores: 4, SpillLoads: 12}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
}

// TestCompareOnTwoKernels runs the harness end to end: orilab's binary
// and ptxas on two testdata files.
func TestCompareOnTwoKernels(t *testing.T) {
	ptxas := nvtools.Require(t, nvtools.Ptxas)
	cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
	root := testenv.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "orilab")
	build := exec.Command("go", "build", "-o", bin, "./cmd/orilab")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files := []string{filepath.Join(root, "testdata/sample/sample.ptx"), filepath.Join(root, "testdata/kernels/iadd.ptx")}
	rep, err := Compare(context.Background(), files, Options{Orilab: bin, Ptxas: ptxas, Cuobjdump: cuobjdump, Arch: "sm_80", OptLevel: 3, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Files != 2 || rep.Totals.Kernels != 2 {
		t.Fatalf("totals %+v\n%s", rep.Totals, rep.Text())
	}
	for _, f := range rep.Files {
		for _, k := range f.Kernels {
			if k.Orilab == nil || k.Ptxas == nil || k.Orilab.Regs == 0 || k.Ptxas.Regs == 0 || k.Orilab.Insts < 5 || k.Ptxas.Insts < 5 {
				t.Errorf("%s %s: orilab %+v ptxas %+v", filepath.Base(f.Path), k.Name, k.Orilab, k.Ptxas)
			}
		}
		if f.OrilabMs <= 0 || f.PtxasMs <= 0 {
			t.Errorf("%s: times %v %v", f.Path, f.OrilabMs, f.PtxasMs)
		}
		// Both files encode, so orilab is timed writing a cubin, as ptxas.
		if f.OrilabTimed != "cubin" {
			t.Errorf("%s: orilab timed writing %q, want cubin", f.Path, f.OrilabTimed)
		}
	}
	if rep.Totals.TimedAsText != 0 {
		t.Errorf("%d files timed as SASS text, want 0", rep.Totals.TimedAsText)
	}
	if txt := rep.Text(); !strings.Contains(txt, "block_sum") || !strings.Contains(txt, "registers: geomean orilab/ptxas") {
		t.Errorf("report:\n%s", txt)
	}
	cpu, err := Compare(context.Background(), files[:1], Options{Orilab: bin, Ptxas: ptxas, Cuobjdump: cuobjdump, Arch: "sm_80", OptLevel: 3, Runs: 1, CPU: true})
	if err != nil {
		t.Fatal(err)
	}
	if f := cpu.Files[0]; f.OrilabMs <= 0 || f.PtxasMs <= 0 {
		t.Errorf("--cpu: times %v %v", f.OrilabMs, f.PtxasMs)
	}
}

// TestRunCPU checks the CPU-time measurement of --cpu: a process that
// sleeps uses next to no CPU time however long it takes, one that spins
// uses some, and neither uses more than the wall clock saw.
func TestRunCPU(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	t0 := time.Now()
	sleep, err := runCPU(context.Background(), time.Minute, []string{sh, "-c", "sleep 0.3"})
	if err != nil {
		t.Fatal(err)
	}
	if wall := time.Since(t0); sleep > 50*time.Millisecond || wall < 300*time.Millisecond {
		t.Errorf("sleep 0.3: %v CPU in %v", sleep, wall)
	}
	t0 = time.Now()
	spin, err := runCPU(context.Background(), time.Minute, []string{sh, "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"})
	if err != nil {
		t.Fatal(err)
	}
	if wall := time.Since(t0); spin <= 0 || spin > wall {
		t.Errorf("spinning: %v CPU in %v", spin, wall)
	}
	if _, err := runCPU(context.Background(), time.Minute, []string{sh, "-c", "exit 3"}); err == nil {
		t.Error("exit 3: no error")
	}
}

// TestCountAddsSlowPathsToTheirCallers: orilab's out-of-line slow paths
// count in each function that calls them (ptxas's sit inside the calling
// kernel, where cuobjdump counts them) and are no row of their own; a
// function that calls none keeps its own count.
func TestCountAddsSlowPathsToTheirCallers(t *testing.T) {
	inst := func(a, text string) string {
		return "        /*" + a + "*/                   " + text + " ;   /* [B------:R-:W-:-:S01] */\n"
	}
	sass := ".text.k1:\n" + inst("0000", "MOV R1, c[0x0][0x28]") +
		inst("0010", "CALL.REL.NOINC `(__orilab.ddiv.slowpath.RN)") +
		inst("0020", "CALL.REL.NOINC `(__orilab.ddiv.slowpath.RN)") +
		inst("0030", "EXIT") +
		".text.k2:\n" + inst("0000", "EXIT") +
		".text.__orilab.ddiv.slowpath.RN:\n" + inst("0000", "DFMA R4, R4, R6, R8") + inst("0010", "RET.REL.NODEC R2 0x0")
	want := map[string]int{"k1": 6, "k2": 1}
	if got := countOrilab(sass); !reflect.DeepEqual(got, want) {
		t.Errorf("orilab counts %v, want %v", got, want)
	}
}
