package ptxasdiff

import (
	"flag"
	"os"
	"testing"

	"orilab/internal/nvtools"
)

var sweep = flag.String("sweep", "", "run a full comparison against ptxas and print the numbers: corpus, rejected, mutants or all")

// TestSweep is the full comparison behind the numbers in issue 19's
// closing note. It runs only with -sweep; ORILAB_PTXAS_CACHE names a
// directory that keeps ptxas's verdicts between runs.
//
//	go test ./internal/ptxasdiff -run TestSweep -sweep all -v
func TestSweep(t *testing.T) {
	if *sweep == "" {
		t.Skip("run with -sweep corpus|rejected|mutants|all")
	}
	ptxas := nvtools.Require(t, nvtools.Ptxas)
	sets := map[string]func(testing.TB) []Case{
		"corpus":   corpusCases,
		"rejected": rejectedCases,
		"mutants":  func(tb testing.TB) []Case { return mutantCases(tb, 0) },
	}
	for _, name := range []string{"corpus", "rejected", "mutants"} {
		if *sweep != "all" && *sweep != name {
			continue
		}
		rs, err := Run(ptxas, sets[name](t), jobs(), os.Getenv("ORILAB_PTXAS_CACHE"))
		if err != nil {
			t.Fatal(err)
		}
		s := Summarize(rs)
		t.Logf("%s: %s", name, s)
		t.Logf("%s disagreements:\n%s", name, s.Report(400))
		for i, r := range s.LineDiffer {
			if i == 60 {
				break
			}
			t.Logf("%s line differs: %s: ptxas %s; orilab %s", name, r.Name, r.Ptxas, r.Orilab)
		}
	}
}
