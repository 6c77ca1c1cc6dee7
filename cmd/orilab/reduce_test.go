package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// reduceKernel adds 7 to a[i] into c[i] for i < n; 15 instructions.
const reduceKernel = header + `.visible .entry k(.param .u64 k_a, .param .u64 k_c, .param .u32 k_n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [k_a];
	ld.param.u64 %rd2, [k_c];
	ld.param.u32 %r1, [k_n];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.u32 %rd5, %r2, 4;
	add.s64 %rd6, %rd3, %rd5;
	ld.global.u32 %r3, [%rd6];
	add.s32 %r4, %r3, 7;
	add.s64 %rd7, %rd4, %rd5;
	st.global.u32 [%rd7], %r4;
DONE:
	ret;
}
`

// c has one element more than the kernel writes, so a store moved by one
// element stays inside it.
const reduceSpec = `{
  "name": "addseven",
  "ptx": "k.ptx",
  "kernel": "k",
  "launch": {"grid": [2], "block": [64]},
  "params": [
    {"name": "a", "kind": "buffer", "elem": "u32", "count": 64, "init": "index"},
    {"name": "c", "kind": "buffer", "elem": "u32", "count": 65, "init": "zero"},
    {"name": "n", "kind": "scalar", "type": "u32", "value": "64"}
  ]
}
`

// shiftStores is the planted miscompile: every global store lands 4 bytes
// too far.
func shiftStores(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpSTG && len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdMem {
					in.Srcs[0].Imm += 4
				}
			}
		}
	}
	return nil
}

func reduceFixture(t *testing.T) (dir, specPath string) {
	t.Helper()
	dir = t.TempDir()
	writeFile(t, dir, "k.ptx", reduceKernel)
	return dir, writeFile(t, dir, "k.json", reduceSpec)
}

func TestReduceCLI(t *testing.T) {
	dir, sp := reduceFixture(t)
	defer pipeline.SetPhaseOverrideForTest("GeneralOptimizeEarly", shiftStores)()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "reduce", sp, "-o", out)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	rptx, rjson := filepath.Join(out, "k.reduced.ptx"), filepath.Join(out, "k.reduced.json")
	// The counts, times and first mismatch depend on the search; the
	// shape of the report does not.
	want := regexp.MustCompile(`^addseven: reduced 15 to [1-6] PTX instructions \([0-9.]+%\)
  signature: miscompile in GeneralOptimizeEarly: wrong values in c
  launch: grid 2x1x1 block 64x1x1 -> grid 1x1x1 block 1x1x1
  [0-9]+ candidates \([0-9]+ more from the cache, [0-9]+ kept\), [0-9]+ executions, [0-9.]+s \(confirmed, re-run twice\)
(  [0-9]+ candidates kept the signature but were rejected for reading a register the original defines first
)?  c: FAIL [0-9]+ of [0-9]+ elements differ; first: \[0\] got .*
(    .*\n)*wrote ` + regexp.QuoteMeta(rptx) + ` and ` + regexp.QuoteMeta(rjson) + `
reproduce: orilab bisect ` + regexp.QuoteMeta(rjson) + ` -O 3 --mode phase
replay: orilab reduce ` + regexp.QuoteMeta(sp) + ` -O 3
$`)
	if !want.MatchString(stdout) {
		t.Errorf("stdout:\n%s", stdout)
	}
	b, err := os.ReadFile(rptx)
	if err != nil {
		t.Fatal(err)
	}
	const body = "{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<8>;\n" +
		"\tld.param.u64 %rd2, [k_c];\n\tcvta.to.global.u64 %rd4, %rd2;\n\tadd.s64 %rd7, %rd4, 0;\n" +
		"\tst.global.u32 [%rd7], 1;\n\tret;\n}\n"
	if !strings.HasSuffix(string(b), body) {
		t.Errorf("reduced PTX:\n%s\nwant the body:\n%s", b, body)
	}
	// The reduced spec runs and fails (its expectations are its lowered
	// IR's output), and bisect names the planted phase.
	code, stdout, stderr = runCLI(t, "run", rjson)
	if code != 1 || !strings.Contains(stdout, "c: FAIL") {
		t.Errorf("run reduced: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "bisect", rjson)
	if code != 0 || !strings.HasPrefix(stdout, "addseven.reduced: culprit phase 13 GeneralOptimizeEarly\n") {
		t.Errorf("bisect reduced: exit %d\n%s%s", code, stdout, stderr)
	}

	// --json, written next to the spec by default.
	code, stdout, stderr = runCLI(t, "reduce", sp, "--json")
	if code != 0 || stderr != "" {
		t.Fatalf("--json: exit %d, stderr %q", code, stderr)
	}
	var rep struct {
		Found      bool
		Signature  struct{ Kind, Phase, Failure string }
		InstsAfter int    `json:"insts_after"`
		SpecFile   string `json:"spec_file"`
		Replay     string
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if !rep.Found || rep.Signature.Kind != "miscompile" || rep.Signature.Phase != "GeneralOptimizeEarly" ||
		rep.Signature.Failure != "wrong values in c" || rep.SpecFile != filepath.Join(dir, "k.reduced.json") || rep.InstsAfter > 6 {
		t.Errorf("report: %+v", rep)
	}
	if _, err := os.Stat(rep.SpecFile); err != nil {
		t.Error(err)
	}
}

func TestReduceCLINotReproducible(t *testing.T) {
	dir, sp := reduceFixture(t)
	code, stdout, stderr := runCLI(t, "reduce", sp)
	if code != 1 || stderr != "" ||
		stdout != "addseven: not reproducible: the kernel passes at -O3 (every phase's output executes like the IR right after lowering): nothing to reduce\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "k.reduced.json")); err == nil {
		t.Error("a passing kernel wrote a reduction")
	}
	code, stdout, _ = runCLI(t, "reduce", "--json", sp)
	if code != 1 || !strings.Contains(stdout, `"found": false`) {
		t.Errorf("--json: exit %d\n%s", code, stdout)
	}
}

func TestReduceCLIErrors(t *testing.T) {
	dir, _ := reduceFixture(t)
	bad := writeFile(t, dir, "bad.json", `{"ptx": "k.ptx", "kernel": "k", "launch": {"grid": [1], "block": [1]}, "params": [{"name": "a", "kind": "buffer"}]}`)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{nil, "orilab reduce: want exactly one spec file, got 0 arguments\n"},
		{[]string{bad}, bad + ": params[0]: missing init (want zero, index, const:V, lcg:SEED, init_hex_le or same_as)\n"},
		{[]string{filepath.Join(dir, "k.json"), "-O", "9"}, "orilab reduce: -O 9: want 0 to 4 (5 is accepted as 4)\n"},
		{[]string{filepath.Join(dir, "k.json"), "--timeout", "1ns"}, "orilab reduce: gave up after --timeout 1ns, before the original's failure was established\n"},
		{[]string{filepath.Join(dir, "k.json"), "-knob", "NamedPhases=OriCopyProp"}, "orilab reduce: NamedPhases replaces the pipeline; bisect the default pipeline (with DisablePhases if needed) instead\n"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"reduce"}, tc.args...)...)
		if code != 2 || stdout != "" || stderr != tc.stderr {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tc.args, code, stdout, stderr, tc.stderr)
		}
	}
}
