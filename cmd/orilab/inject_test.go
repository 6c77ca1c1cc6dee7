package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestInjectReplays pins the report of one injection and checks that the
// same seed replays it exactly and another seed does not.
func TestInjectReplays(t *testing.T) {
	spec := filepath.Join("..", "..", "testdata", "kernels", "iadd.json")
	code, out, errs := runCLI(t, "inject", spec, "--bugspec", "1,0,0,0 0 0", "--seed", "7")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		"bugspec 1,0,0,0 0 0, seed 7, injected after AllocateRegisters\n",
		"Num forced bugs 1\n",
		"Created a bug at index ",
		" : kind r-ur register inst # ",
		"outcome: verifier:reaching-defs: verify-ra iadd ",
		"replay: orilab inject " + spec + " --bugspec \"1,0,0,0 0 0\" --seed 7 --at AllocateRegisters -O 3\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, again, _ := runCLI(t, "inject", spec, "--bugspec", "1,0,0,0 0 0", "--seed", "7")
	if again != out {
		t.Errorf("the same seed gave a different injection:\n%s\n---\n%s", out, again)
	}
	differ := false
	for seed := 8; seed < 18 && !differ; seed++ {
		_, other, _ := runCLI(t, "inject", spec, "--bugspec", "1,0,0,0 0 0", "--seed", strconv.Itoa(seed))
		differ = strings.SplitN(other, "\n", 4)[2] != strings.SplitN(out, "\n", 4)[2]
	}
	if !differ {
		t.Error("ten other seeds all picked the same fault")
	}
	// Injection after a later phase sees control words, and still the
	// reaching-definitions verifier catches a wrong register.
	code, out, _ = runCLI(t, "inject", spec, "--bugspec", "1,0,0,0 0 0", "--seed", "7", "--at", "DumpNVuCodeText")
	if code != 0 || !strings.Contains(out, "injected after DumpNVuCodeText") || !strings.Contains(out, "[B") {
		t.Errorf("--at DumpNVuCodeText: exit %d:\n%s", code, out)
	}
}

// TestInjectErrors checks the refusals: no bugspec, a malformed one, an
// injection point before allocation, --ptxas-compat without bugspec.txt.
func TestInjectErrors(t *testing.T) {
	spec := filepath.Join("..", "..", "testdata", "kernels", "iadd.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inject", spec}, "orilab inject: --bugspec is required (for example --bugspec \"1,0,0,0 0 0\": one register fault), or --ptxas-compat to read ./bugspec.txt\n"},
		{[]string{"inject", spec, "--bugspec", "1,0,x,0 0 0"}, "orilab inject: bugspec: field 3 (\"x\"): not an integer\n"},
		{[]string{"inject", spec, "--bugspec", "1,0,0,0 0 0", "--at", "OriSanitize"}, "orilab inject: --at OriSanitize: phase 12 comes before AllocateRegisters (122); bugspec faults corrupt post-allocation code\n"},
		{[]string{"inject", spec, "--ptxas-compat", "--seed", "3"}, "orilab inject: --ptxas-compat reads ./bugspec.txt and seeds from the clock, as ptxas does; it takes no --bugspec, --seed or --trials\n"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || errs != c.want {
			t.Errorf("%v: exit %d, stderr %q\nwant %q", c.args[2:], code, errs, c.want)
		}
	}
	// ptxas's own message when ./bugspec.txt is missing, exit 0.
	dir := t.TempDir()
	wd, _ := os.Getwd()
	abs, _ := filepath.Abs(spec)
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, out, errs := runCLI(t, "inject", abs, "--ptxas-compat")
	if code != 0 || out != "Cannot open file with bug specification\n" {
		t.Errorf("--ptxas-compat without bugspec.txt: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	os.WriteFile(filepath.Join(dir, "bugspec.txt"), []byte("0,1,0,0 0 0\n"), 0o644)
	code, out, _ = runCLI(t, "inject", abs, "--ptxas-compat")
	if code != 0 || !strings.Contains(out, "Num forced bugs 1\nCreated a bug at index ") || !strings.Contains(out, "kind predicated bug") {
		t.Errorf("--ptxas-compat with bugspec.txt: exit %d:\n%s", code, out)
	}
}

// TestInjectCampaign runs a small campaign over two kernels and checks
// the JSON: every trial classified, no compiler crash, the matrix adds up.
func TestInjectCampaign(t *testing.T) {
	specs := []string{
		filepath.Join("..", "..", "testdata", "kernels", "iadd.json"),
		filepath.Join("..", "..", "pipeline", "regalloc", "testdata", "pressure.json"),
	}
	args := append([]string{"inject"}, specs...)
	args = append(args, "--bugspec", "1,0,1,0 0 0", "--seed", "5", "--trials", "20", "--jobs", "2", "--maxrregcount", "24", "--json")
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var r struct {
		Trials  int `json:"trials"`
		Kernels []struct {
			Kernel string `json:"kernel"`
			Trials []struct {
				Outcome string `json:"outcome"`
			} `json:"trials"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Trials != 40 || len(r.Kernels) != 2 {
		t.Fatalf("trials %d, kernels %d", r.Trials, len(r.Kernels))
	}
	for _, k := range r.Kernels {
		for i, tr := range k.Trials {
			if tr.Outcome == "" || tr.Outcome == "crash" {
				t.Errorf("%s trial %d: outcome %q", k.Kernel, i, tr.Outcome)
			}
		}
	}
	_, again, _ := runCLI(t, args...)
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, "seconds") && !strings.Contains(l, "trials_per_second") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(again) != strip(out) {
		t.Error("the same campaign seed gave a different result")
	}
}

// TestCompileBugspec injects during a compilation: the report goes to
// stderr with its seed. The post-RA verifiers judge the corrupted IR at
// once, as orilab inject does: a fault they catch ends the compilation
// (exit 2) with the verifier's message, and one they miss compiles on to
// SASS with the fault in it.
func TestCompileBugspec(t *testing.T) {
	ptx := filepath.Join("..", "..", "testdata", "kernels", "iadd.ptx")
	code, out, errs := runCLI(t, "compile", "--bugspec", "1,0,0,0 0 0", "--seed", "2", ptx)
	if code != 2 || !strings.HasPrefix(errs, "bugspec 1,0,0,0 0 0, seed 2, injected after AllocateRegisters\nNum forced bugs 1\nCreated a bug at index ") ||
		!strings.Contains(errs, "orilab compile: phase 122 AllocateRegisters: the planted fault is caught by the reaching-defs verifier: verify-ra iadd ") || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	_, out2, errs2 := runCLI(t, "compile", "--bugspec", "1,0,0,0 0 0", "--seed", "2", ptx)
	if out2 != out || errs2 != errs {
		t.Error("the same seed compiled differently")
	}
	// A spill-offset fault on a kernel without spills has no candidate:
	// nothing is corrupted, no verifier objects, and the SASS comes out.
	code, out, errs = runCLI(t, "compile", "--bugspec", "0,0,1,0 0 0", "--seed", "2", ptx)
	_, clean, _ := runCLI(t, "compile", ptx)
	if code != 0 || out != clean || !strings.Contains(errs, "Num forced bugs 0\n") || !strings.Contains(errs, "no verifier catches the fault at the injection point\n") {
		t.Errorf("no-candidate fault: exit %d, stderr %q", code, errs)
	}
}
