package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/internal/zluda"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

// allSpecs returns every kernel spec that must pass: the ZLUDA
// conversions that pass, testdata/kernels (without the ones meant to
// fail), the sample, testdata/opt and the allocator's pressure kernels.
func allSpecs(t *testing.T) []*spec.Spec {
	t.Helper()
	var specs []*spec.Spec
	cases, err := zluda.Load(testenv.Shared(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Skip != "" || c.Spec == nil || c.Spec.CompileOnly {
			continue
		}
		if _, known := zludaKnownFailures[c.Name]; known {
			continue
		}
		specs = append(specs, c.Spec)
	}
	root := testenv.RepoRoot(t)
	var files []string
	for _, pat := range []string{"testdata/kernels/*.json", "testdata/sample/sample.json", "testdata/opt/*.json", "pipeline/regalloc/testdata/*.json"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		files = append(files, m...)
	}
	for _, f := range files {
		if _, failing := kernelErrors[strings.TrimSuffix(filepath.Base(f), ".json")]; failing && strings.Contains(f, "kernels") {
			continue
		}
		s, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	return specs
}

// TestBackEndFinalCode is the back end's acceptance test: every spec,
// compiled at -O0 and -O3, executes correctly after the last phase, where
// the code has only physical registers, spill code and control words that
// the hazard checker (run by the control-word phase) has proven
// sufficient.
func TestBackEndFinalCode(t *testing.T) {
	specs := allSpecs(t)
	for _, s := range specs {
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []int{0, 3} {
			sess, err := NewSession(s.PTXPath, src, Options{}, PhaseOptions{OptLevel: o, NoSnapshots: true})
			if err == nil {
				err = sess.RunAll()
			}
			if err != nil {
				t.Errorf("%s -O%d: %v", s.Name, o, firstLine(err.Error()))
				continue
			}
			m := sess.Module()
			if msg := finalCodeProblem(m); msg != "" {
				t.Errorf("%s -O%d: %s", s.Name, o, msg)
				continue
			}
			if sess.Backend() == nil || sess.Backend().SASS == "" {
				t.Errorf("%s -O%d: no SASS after the last phase", s.Name, o)
			}
			rep, err := Execute(m, s, RunOptions{MaxWarpSteps: 5_000_000})
			switch {
			case err != nil:
				t.Errorf("%s -O%d: %v", s.Name, o, firstLine(err.Error()))
			case !rep.Pass:
				t.Errorf("%s -O%d: %s", s.Name, o, strings.TrimSpace(spec.FormatResults(rep.Results)))
			}
		}
	}
	t.Logf("%d specs at -O0 and -O3 pass after the last phase", len(specs))
}

// finalCodeProblem says what is wrong with final code: a virtual
// register, or an instruction without a control word.
func finalCodeProblem(m *ori.Module) string {
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if !in.Ctrl.Set {
					return f.Name + ": #" + in.String() + " has no control word"
				}
				regs := []ori.Reg{in.Guard}
				for _, o := range append(append([]ori.Operand(nil), in.Dsts...), in.Srcs...) {
					if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
						regs = append(regs, o.Reg)
					}
				}
				for _, r := range regs {
					if r.Virtual {
						return f.Name + ": " + in.String() + " still has virtual register " + r.String()
					}
				}
			}
		}
	}
	return ""
}
