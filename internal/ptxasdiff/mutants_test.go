package ptxasdiff

import (
	"bytes"
	"testing"
)

// mutantsPerFile makes about 4,000 mutants of the corpus and testdata.
const mutantsPerFile = 12

// mutantCases returns the mutants of every corpus and testdata module
// that orilab accepts and that uses 64-bit addressing (ptxas 13 compiles
// no other); n > 0 keeps every k-th to return about n.
func mutantCases(tb testing.TB, n int) []Case {
	var out []Case
	for _, c := range corpusCases(tb) {
		if !bytes.Contains(c.Src, []byte(".address_size 64")) {
			continue
		}
		if !Orilab(c).Accept {
			continue
		}
		out = append(out, Mutate(c.Name, c.Src, mutantsPerFile)...)
	}
	if n > 0 && len(out) > n {
		step := len(out) / n
		var keep []Case
		for i := 0; i < len(out); i += step {
			keep = append(keep, out[i])
		}
		out = keep
	}
	return out
}
