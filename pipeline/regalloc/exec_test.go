package regalloc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/internal/zluda"
	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/spec"
)

// The allocator's correctness oracle is execution: every kernel spec that
// passes on the IR right before allocation must pass on the allocated IR,
// at -O0 and -O3, with no register limit and with --maxrregcount 16, 24
// and 32.

// specFiles lists the kernel specs under the repository's testdata and
// this package's testdata.
func specFiles(t *testing.T) []string {
	root := testenv.RepoRoot(t)
	var files []string
	for _, pat := range []string{
		filepath.Join(root, "testdata", "kernels", "*.json"),
		filepath.Join(root, "testdata", "sample", "*.json"),
		filepath.Join("testdata", "*.json"),
	} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no kernel specs found")
	}
	return files
}

// limits are the --maxrregcount values every kernel is allocated with.
var limits = []int{0, 16, 24, 32}

// TestTestdataSpecs allocates and runs every testdata kernel.
func TestTestdataSpecs(t *testing.T) {
	for _, file := range specFiles(t) {
		s, src := loadSpec(t, file)
		for _, opt := range []int{0, 3} {
			pre := preRA(t, s.PTXPath, src, specArch(s.PTXPath, src), opt)
			if err := execute(pre, s); err != nil {
				t.Logf("%s -O%d: skipped, fails before allocation too: %v", s.Name, opt, firstLine(err))
				continue
			}
			for _, maxRegs := range limits {
				name := fmt.Sprintf("%s/O%d/maxr%d", s.Name, opt, maxRegs)
				t.Run(name, func(t *testing.T) {
					res, err := allocate(t, pre, regalloc.Options{Arch: 75, OptLevel: opt, MaxRegs: maxRegs})
					if err != nil {
						t.Fatal(err)
					}
					if err := execute(res.m, s); err != nil {
						t.Fatalf("after allocation: %v", err)
					}
				})
			}
		}
	}
}

// TestSpillByteCounts allocates this package's kernels at the small
// limits, where they must spill, and checks that the statistics count
// exactly the spill instructions in the code: every STL with role spill
// and every LDL with role refill, with their access sizes (4, 8 or 16
// bytes). It also checks that the limit holds (the calls kernel has the
// ABI minimum of 24).
func TestSpillByteCounts(t *testing.T) {
	for _, name := range []string{"pressure", "wide", "calls"} {
		s, src := loadSpec(t, filepath.Join("testdata", name+".json"))
		pre := preRA(t, s.PTXPath, src, specArch(s.PTXPath, src), 3)
		for _, maxRegs := range []int{16, 24, 28} {
			res, err := allocate(t, pre, regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: maxRegs})
			if err != nil {
				t.Fatalf("%s maxr %d: %v", name, maxRegs, err)
			}
			for _, f := range res.m.Funcs {
				st := res.stats[f.Name]
				var stores, loads, storeB, loadB int
				for _, b := range f.Blocks {
					for _, in := range b.Insts {
						size := 4
						if in.HasMod("64") {
							size = 8
						} else if in.HasMod("128") {
							size = 16
						}
						switch {
						case in.Op == ori.OpSTL && in.Role == ori.RoleSpill:
							stores++
							storeB += size
						case in.Op == ori.OpLDL && in.Role == ori.RoleRefill:
							loads++
							loadB += size
						}
					}
				}
				if st.SpillStores != stores || st.SpillLoads != loads || st.SpillStoreBytes != storeB || st.SpillLoadBytes != loadB {
					t.Errorf("%s %s maxr %d: stats %d/%d B stores, %d/%d B loads; code %d/%d B, %d/%d B", name, f.Name, maxRegs,
						st.SpillStores, st.SpillStoreBytes, st.SpillLoads, st.SpillLoadBytes, stores, storeB, loads, loadB)
				}
				if f.Name == s.Kernel && (stores == 0 || loads == 0) {
					t.Errorf("%s maxr %d: no spills", name, maxRegs)
				}
				if limit := max(maxRegs, map[bool]int{true: 24}[name == "calls"]); st.Regs > limit {
					t.Errorf("%s %s maxr %d: %d registers", name, f.Name, maxRegs, st.Regs)
				}
			}
		}
	}
}

// TestZLUDAConformance allocates every ZLUDA case that passes before
// allocation and runs it again.
func TestZLUDAConformance(t *testing.T) {
	cases, err := zluda.Load(testenv.Shared(t))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	ran, skipped := 0, 0
	for _, c := range cases {
		if c.Skip != "" || c.Spec == nil || c.Spec.CompileOnly {
			continue
		}
		for _, opt := range []int{0, 3} {
			pre, ok := compileCase(c.Spec, opt)
			if !ok {
				skipped++
				continue
			}
			for _, maxRegs := range []int{0, 24} {
				res, err := allocate(t, pre, regalloc.Options{Arch: 75, OptLevel: opt, MaxRegs: maxRegs})
				if err != nil {
					t.Errorf("%s -O%d maxr %d: %v", c.Name, opt, maxRegs, err)
					continue
				}
				if err := execute(res.m, c.Spec); err != nil {
					t.Errorf("%s -O%d maxr %d: %v", c.Name, opt, maxRegs, firstLine(err))
				}
				ran++
			}
		}
	}
	t.Logf("ZLUDA: %d allocations ran and passed; %d compilations skipped (they fail before allocation)", ran, skipped)
	if ran < 200 {
		t.Errorf("only %d ZLUDA allocations ran", ran)
	}
}

// compileCase compiles a spec's PTX to pre-allocation IR and reports
// whether that IR passes the spec (cases that fail before allocation are
// not the allocator's to fix).
func compileCase(s *spec.Spec, opt int) (*ori.Module, bool) {
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		return nil, false
	}
	sess, err := pipeline.NewSession(s.PTXPath, src, pipeline.Options{Arch: 75}, pipeline.PhaseOptions{OptLevel: opt, NoSnapshots: true})
	if err != nil || sess.RunTo(lastPreRA) != nil {
		return nil, false
	}
	pre := sess.Module()
	if execute(pre, s) != nil {
		return nil, false
	}
	return pre, true
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// TestKnobVariants runs this package's kernels with the knobs that change
// the allocation's shape: every variant must still compute the right
// output and satisfy the verifier.
func TestKnobVariants(t *testing.T) {
	variants := [][]string{
		{"RegAllocCoalescing=0"},
		{"RegAllocRematEnable=0"},
		{"RegAllocNumNonSpillTrials=1", "RegAllocThresholdForDiscardConflicts=0"},
		{"RegAllocEstimatedLoopIterations=1"},
		{"RegTargetList=20,28"},
	}
	for _, name := range []string{"pressure", "wide", "calls"} {
		s, src := loadSpec(t, filepath.Join("testdata", name+".json"))
		pre := preRA(t, s.PTXPath, src, specArch(s.PTXPath, src), 3)
		for _, v := range variants {
			for _, maxRegs := range []int{0, 16} {
				res, err := allocate(t, pre, regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: maxRegs, Knobs: knobSet(t, v...)})
				if err != nil {
					t.Fatalf("%s %v maxr %d: %v", name, v, maxRegs, err)
				}
				if err := execute(res.m, s); err != nil {
					t.Errorf("%s %v maxr %d: %v", name, v, maxRegs, err)
				}
			}
		}
	}
}

// specArch is sm_75, or the module's .target where that is newer: a
// module is refused for an older target, as ptxas refuses it.
func specArch(path string, src []byte) int {
	if pm, err := ptx.ParseSyntax(path, src); err == nil && pm.SM() > 75 {
		return pm.SM()
	}
	return 75
}
