package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

const twoFuncs = "testdata/twofuncs.ptx"

// headers returns the "// *** ... ***" lines of a --print-* output.
func headers(out string) []string {
	return regexp.MustCompile(`(?m)^// \*\*\* .* \*\*\*$`).FindAllString(out, -1)
}

// TestPrintChangedDiffOneFunction: --print-changed=diff --func prints the
// function after lowering, then a diff per phase that changed it, and no
// SASS.
func TestPrintChangedDiffOneFunction(t *testing.T) {
	code, out, errs := runCLI(t, "compile", "--print-changed=diff", "--func", "second", twoFuncs)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	h := headers(out)
	if len(h) < 3 || h[0] != "// *** IR of second after lowering ***" || h[1] != "// *** IR of second after #13 GeneralOptimizeEarly (changed) ***" {
		t.Errorf("headers %q", h)
	}
	for _, want := range []string{
		"-\t#7 IMAD %r4 = %r2, 0x3, RZ ; line 34\n+\t#7 IMAD %r4 = %r3, 0x3, RZ ; line 34\n",
		"--- before GeneralOptimizeEarly\n+++ after GeneralOptimizeEarly\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{".entry first", "SR_TID.X", ".headerflags", "(unchanged)"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q:\n%s", bad, out)
		}
	}
}

// TestPrintAfterList: --print-after prints the listed phases in pipeline
// order, changed or not, in full.
func TestPrintAfterList(t *testing.T) {
	code, out, errs := runCLI(t, "compile", "--print-after", "GeneralOptimizeEarly+OriSanitize", "--func", "first", twoFuncs)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	want := []string{
		"// *** IR of first after #12 OriSanitize (unchanged) ***",
		"// *** IR of first after #13 GeneralOptimizeEarly (changed) ***",
	}
	if h := headers(out); strings.Join(h, "\n") != strings.Join(want, "\n") {
		t.Errorf("headers %q, want %q", h, want)
	}
	if !strings.Contains(out, ".entry first\n") || strings.Contains(out, ".entry second") {
		t.Errorf("not the IR of first alone:\n%s", out)
	}
}

func TestPrintIRErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--print-changed", "--func", "secnd"}, "orilab compile: --func secnd: no such function (did you mean second?)\n"},
		{[]string{"--print-changed", "--func", "zzz"}, "orilab compile: --func zzz: no such function; the module has first, second\n"},
		{[]string{"--print-after", "Foo"}, "orilab compile: --print-after: unknown phase \"Foo\" (orilab phases lists them)\n"},
		{[]string{"--print-changed=full2"}, "invalid boolean value \"full2\" for -print-changed: want --print-changed or --print-changed=diff, not \"full2\"\nRun 'orilab compile --help' for usage.\n"},
	} {
		code, out, errs := runCLI(t, append(append([]string{"compile"}, tc.args...), twoFuncs)...)
		if code != 2 || out != "" || errs != tc.want {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q; want 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestHTMLExport: --html writes one page with a column per phase that
// changed the function, new lines highlighted and removed ones struck
// through; the SASS still goes to stdout.
func TestHTMLExport(t *testing.T) {
	page := t.TempDir() + "/second.html"
	code, out, errs := runCLI(t, "compile", "--html", page, "--func", "second", twoFuncs)
	if code != 0 || errs != "" || !strings.Contains(out, ".headerflags") {
		t.Fatalf("exit %d, stderr %s, stdout %.60q", code, errs, out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	cols := regexp.MustCompile(`<div class="col"><h2>([^<]*)</h2>`).FindAllStringSubmatch(text, -1)
	var titles []string
	for _, c := range cols {
		titles = append(titles, c[1])
	}
	want := "after lowering|#13 GeneralOptimizeEarly|#16 OriPerformLiveDeadFirst|#114 ScheduleInstructions|#122 AllocateRegisters|#131 AdvancedScoreboardsAndOpexes"
	if strings.Join(titles, "|") != want {
		t.Errorf("columns %q, want %q", titles, want)
	}
	for _, w := range []string{
		"<h1>testdata/twofuncs.ptx: second, 5 phases changed it</h1>",
		"<span class=\"add\">\t#7 IMAD %r4 = %r3, 0x3, RZ ; line 34</span>",
		"<span class=\"del\">\t#6 MOV %r2 = %r3 ; line 33</span>",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if strings.Contains(text, ".entry first") {
		t.Error("the page has the other function")
	}
}

// TestRemarks: --remarks prints, as FILE:LINE diagnostics, why
// OriLoopUnrolling left a loop alone (its rejection code) and what it did
// with the other; =LIST keeps only the phases named, and a bad name is
// refused before compiling.
func TestRemarks(t *testing.T) {
	const file = "testdata/remarks.ptx"
	want := file + `:23: remark: #23 OriLoopUnrolling: loops: loop BB1 rejected, code 11: the PTX marks the loop .pragma "nounroll"
` + file + `:29: remark: #23 OriLoopUnrolling: loops: loop BB3 fully unrolled, 4 iterations
`
	code, out, errs := runCLI(t, "compile", "--remarks", file)
	if code != 0 || errs != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errs, want)
	}
	if !strings.Contains(out, "EXIT") {
		t.Errorf("--remarks lost the SASS on stdout:\n%s", out)
	}
	if _, _, errs := runCLI(t, "compile", "--remarks=OriLoopUnrolling", "--func", "loops", file); errs != want {
		t.Errorf("--remarks=OriLoopUnrolling --func loops: stderr:\n%s", errs)
	}
	if _, _, errs := runCLI(t, "compile", "--remarks=GeneralOptimizeEarly", file); errs != "" {
		t.Errorf("--remarks=GeneralOptimizeEarly printed the unroller's remarks:\n%s", errs)
	}
	code, _, errs = runCLI(t, "compile", "--remarks=Foo", file)
	if code != 2 || errs != "orilab compile: --remarks: unknown phase \"Foo\" (orilab phases lists them)\n" {
		t.Errorf("--remarks=Foo: exit %d, stderr %q", code, errs)
	}
}
