package sass

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// ptxasFloor is, per target, how many of ptxas's words in
// testdata/ptxas orilab's decoder must turn into nvdisasm's text; it only
// rises. The rest are opcodes and forms orilab does not emit.
var ptxasFloor = map[int]int{75: 183, 80: 412, 86: 411, 89: 417, 90: 421}

// TestDecodePtxasWords decodes the words ptxas 13.0.88 wrote for the
// testdata kernels (collected by internal/gen) and compares orilab's text
// for them with nvdisasm's: the tables checked against NVIDIA's encoder
// rather than against orilab's own.
func TestDecodePtxasWords(t *testing.T) {
	for _, arch := range Archs {
		f, err := os.Open(filepath.Join("testdata", "ptxas", fmt.Sprintf("sm%d.txt", arch)))
		if err != nil {
			t.Fatal(err)
		}
		var total, known, matched int
		unknown := map[string]int{}
		var diffs []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") {
				continue
			}
			fs := strings.SplitN(line, " ", 4)
			addr, _ := strconv.ParseInt(fs[0], 16, 64)
			lo, _ := strconv.ParseUint(fs[1], 16, 64)
			hi, _ := strconv.ParseUint(fs[2], 16, 64)
			want := Normalize(fs[3])
			total++
			d, err := Decode(Word{lo, hi}, arch, DecodeContext{PC: int(addr), Raw: true})
			if err != nil {
				f := strings.Fields(want)
				if strings.HasPrefix(f[0], "@") {
					f = f[1:]
				}
				unknown[f[0]]++
				continue
			}
			known++
			got, err := InstTextRaw(d, arch)
			if err != nil {
				t.Errorf("sm_%d %s: %v", arch, want, err)
				continue
			}
			got = Normalize(got)
			if d.Ctrl.Yield {
				// A yielding instruction's reuse flags have no effect
				// and nvdisasm does not print them (orilab's scheduler
				// sets none there).
				got = strings.ReplaceAll(got, ".reuse", "")
			}
			if got == want {
				matched++
			} else {
				diffs = append(diffs, fmt.Sprintf("\n\tnvdisasm: %s\n\t  orilab: %s", want, got))
			}
		}
		f.Close()
		var un []string
		for k, v := range unknown {
			un = append(un, fmt.Sprintf("%s:%d", k, v))
		}
		sort.Strings(un)
		t.Logf("sm_%d: %d of ptxas's %d words decode to nvdisasm's text; %d decode differently; %d have no orilab form (%s)",
			arch, matched, total, known-matched, total-known, strings.Join(un, " "))
		if testing.Verbose() {
			t.Log(strings.Join(diffs, ""))
		}
		if known != matched {
			t.Errorf("sm_%d: %d of ptxas's words decode to another text than nvdisasm's", arch, known-matched)
		}
		if matched < ptxasFloor[arch] {
			t.Errorf("sm_%d: %d matched, below the floor %d", arch, matched, ptxasFloor[arch])
		}
	}
}
