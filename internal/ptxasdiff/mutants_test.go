package ptxasdiff

import (
	"bytes"
	"flag"
	"testing"
)

var mutantSalt = flag.String("mutant-salt", "", "with -sweep: make a different mutant set (the CI set and its table use \"\")")

// mutantsPerFile makes about 3,500 mutants of the shared corpus.
const mutantsPerFile = 16

// mutantCases returns the mutants of every shared-corpus module that
// orilab accepts and that uses 64-bit addressing (ptxas 13 compiles no
// other); n > 0 keeps every k-th to return about n. The repository's
// testdata is left out: it changes with every commit, and the mutants'
// ptxas verdicts are kept in a table.
func mutantCases(tb testing.TB, n int) []Case {
	var out []Case
	for _, c := range sharedCorpus(tb) {
		if !bytes.Contains(c.Src, []byte(".address_size 64")) {
			continue
		}
		if !Orilab(c).Accept {
			continue
		}
		out = append(out, MutateSalted(c.Name, c.Src, mutantsPerFile, *mutantSalt)...)
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
