package tui

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"orilab/pipeline"
)

// TestWorkbenchTakesEveryKnobSource opens the workbench with
// RematEarlyEnable=1 given by -knob, by a knobs file, by ORILAB_KNOBS, by
// a .pragma in the PTX and by the knob pane, and checks that the
// compilation it shows ran OriDoRematEarly (off by default).
func TestWorkbenchTakesEveryKnobSource(t *testing.T) {
	var n atomic.Int64
	defer pipeline.SetPhaseOverrideForTest("OriDoRematEarly", func(*pipeline.PhaseContext) error {
		n.Add(1)
		return nil
	})()
	dir := t.TempDir()
	file := filepath.Join(dir, "knobs.txt")
	if err := os.WriteFile(file, []byte("[knobs]\nRematEarlyEnable=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withPragma := strings.Replace(string(samplePTX), ".address_size 64\n", ".address_size 64\n.pragma \"RematEarlyEnable=1\";\n", 1)
	cases := []struct {
		name  string
		src   string
		cli   []string
		file  string
		env   string
		knobs map[string]string
		runs  bool
	}{
		{name: "none"},
		{name: "-knob", cli: []string{"RematEarlyEnable=1"}, runs: true},
		{name: "-knobs-file", file: file, runs: true},
		{name: "ORILAB_KNOBS", env: "RematEarlyEnable=1", runs: true},
		{name: ".pragma", src: withPragma, runs: true},
		{name: "knob pane", knobs: map[string]string{"RematEarlyEnable": "1"}, runs: true},
		{name: "knob pane over -knob", cli: []string{"RematEarlyEnable=1"}, knobs: map[string]string{"RematEarlyEnable": "0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("ORILAB_KNOBS", c.env)
			src := c.src
			if src == "" {
				src = string(samplePTX)
			}
			if !strings.Contains(src, ".address_size 64\n") {
				t.Fatal("the sample has no .address_size 64 line")
			}
			w, err := Load("k.ptx", []byte(src), 3)
			if err != nil {
				t.Fatal(err)
			}
			ks, err := pipeline.KnobSources(c.cli, c.file)
			if err != nil {
				t.Fatal(err)
			}
			w.SetRequest(pipeline.Request{OptLevel: 3, Knobs: ks})
			for k, v := range c.knobs {
				w.Knobs[k] = v
			}
			n.Store(0)
			msg := compileNow(w)
			if msg.err != nil || (n.Load() > 0) != c.runs {
				t.Fatalf("err %v, OriDoRematEarly ran %d times, want it to run: %v", msg.err, n.Load(), c.runs)
			}
		})
	}
}
