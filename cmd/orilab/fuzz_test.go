package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuzzCommand runs a small campaign the way a nightly job would, with
// stderr going to a log rather than a terminal: the summary on stdout and
// a progress line on stderr.
func TestFuzzCommand(t *testing.T) {
	code, out, errb := runCLI(t, "fuzz", "--seed", "1", "--count", "2", "-O", "0,3", "--findings", "")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	for _, want := range []string{"fuzz: 2 programs from seed 1, 4 compilations", "outcomes: pass 4", "no failures"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errb, "fuzz: 2/2 programs, 0 failing, ") {
		t.Errorf("stderr lacks the final progress line:\n%s", errb)
	}
}

func TestFuzzCommandErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--count", "-1"}, "orilab fuzz: --count -1: want 0 or more\n"},
		{[]string{"--jobs", "-2"}, "orilab fuzz: --jobs -2: want 0 (one per CPU) or more\n"},
		{[]string{"--max-per-signature", "0"}, "orilab fuzz: --max-per-signature 0: want 1 or more\n"},
		{[]string{"--avoid", "loops"}, `orilab fuzz: --avoid "loops": want one of generic-shared-atomics, narrow-tensor-cores, partial-definitions, predicated-expansions, tensor-cores` + "\n"},
		{[]string{"extra"}, `orilab fuzz: unexpected argument "extra" (the programs come from --seed)` + "\n"},
	} {
		code, _, errb := runCLI(t, append([]string{"fuzz"}, c.args...)...)
		if code != exitError || errb != c.want {
			t.Errorf("fuzz %v: exit %d, stderr %q; want exit %d, %q", c.args, code, errb, exitError, c.want)
		}
	}
}

// TestFuzzEmit writes programs without checking them: each a PTX file and
// a spec that orilab run accepts.
func TestFuzzEmit(t *testing.T) {
	dir := t.TempDir()
	code, _, errb := runCLI(t, "fuzz", "--seed", "7", "--count", "2", "--emit", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, name := range []string{"fuzz7.ptx", "fuzz7.json", "fuzz8.ptx", "fuzz8.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if code, out, errb := runCLI(t, "run", "-O", "3", filepath.Join(dir, "fuzz7.json")); code != exitOK {
		t.Errorf("run fuzz7.json: exit %d\n%s%s", code, out, errb)
	}
}
