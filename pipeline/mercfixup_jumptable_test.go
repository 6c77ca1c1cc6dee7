package pipeline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/internal/testenv"
	"orilab/pipeline/ori"
)

// TestJumpTableCubin: brx.idx becomes ptxas's jump table (mercfixup.go, jumpTables):
// in the cubin for sm_80 and sm_90 at -O0 and -O3, .nv.constant2 holds
// the offsets of the BRX's targets from the kernel's start, in the
// BRX's order, and EIATTR_INDIRECT_BRANCH_TARGETS names the BRX's offset
// and the same targets, as cuobjdump -elf lists them; the offsets are
// those of orilab's own layout of the final code.
func TestJumpTableCubin(t *testing.T) {
	cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
	file := filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "brx_idx.ptx")
	dir := t.TempDir()
	for _, arch := range []int{80, 90} {
		for _, level := range []int{0, 3} {
			sess, cub, err := cubinOf(file, arch, level)
			if err != nil {
				t.Fatalf("sm_%d -O%d: %v", arch, level, err)
			}
			f := sess.Module().Func("brx_idx")
			at, targets := -1, []string(nil)
			addr := map[int32]int{}
			pc := 0
			for _, b := range f.Blocks {
				addr[b.ID] = pc
				pc += 16 * len(b.Insts)
			}
			pc = 0
			for _, b := range f.Blocks {
				for _, in := range b.Insts {
					if in.Op == ori.OpBRX {
						if len(in.Srcs) < 2 || in.Srcs[1].Kind != ori.OpdCBank {
							t.Fatalf("sm_%d -O%d: the BRX reads no jump table: %s", arch, level, in)
						}
						at = pc
						for _, o := range in.Srcs[2:] {
							targets = append(targets, fmt.Sprintf("0x%x", addr[o.Block]))
						}
					}
					pc += 16
				}
			}
			if at < 0 || len(targets) != 4 {
				t.Fatalf("sm_%d -O%d: BRX at %d with targets %v", arch, level, at, targets)
			}
			path := filepath.Join(dir, fmt.Sprintf("brx_%d_%d.cubin", arch, level))
			if err := os.WriteFile(path, cub, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(cuobjdump, "-elf", path).CombinedOutput()
			if err != nil {
				t.Fatalf("cuobjdump -elf: %v\n%s", err, out)
			}
			elf := string(out)
			want := fmt.Sprintf("Offset of Indirect Branch: 0x%x\t Number of targets: 4\n\t\tTargets: %s", at, strings.Join(targets, " "))
			if !strings.Contains(kernelInfo(elf, "brx_idx"), want) {
				t.Errorf("sm_%d -O%d: .nv.info.brx_idx has no %q:\n%s", arch, level, want, kernelInfo(elf, "brx_idx"))
			}
			var words []string
			for _, w := range targets {
				words = append(words, fmt.Sprintf("0x%08s", strings.TrimPrefix(w, "0x")))
			}
			if got := constBankWords(elf, ".nv.constant2.brx_idx"); strings.Join(got, " ") != strings.Join(words, " ") {
				t.Errorf("sm_%d -O%d: .nv.constant2.brx_idx holds %v, want the targets %v", arch, level, got, words)
			}
		}
	}
}
