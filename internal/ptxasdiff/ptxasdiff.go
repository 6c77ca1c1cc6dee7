package ptxasdiff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"orilab/internal/atomicfile"
	"orilab/pipeline/ptx"
)

// Verdict is one tool's answer for one file.
type Verdict struct {
	Accept bool
	// Line is the line of the first error (0 when the tool named none).
	Line int
	// Msg is the first error message.
	Msg string
	// Excluded says why the file is not compared ("" when it is): ptxas
	// 13 refuses 32-bit addressing, which orilab still accepts (README).
	Excluded string
}

func (v Verdict) String() string {
	if v.Accept {
		return "accept"
	}
	return fmt.Sprintf("reject line %d: %s", v.Line, v.Msg)
}

// Case is one PTX file to compare.
type Case struct {
	Name string
	Src  []byte
}

// Result is the two verdicts on one case.
type Result struct {
	Case
	Ptxas, Orilab Verdict
}

// Agree reports whether both accept or both reject.
func (r Result) Agree() bool { return r.Ptxas.Accept == r.Orilab.Accept }

// LineAgree reports whether both reject at the same line.
func (r Result) LineAgree() bool {
	return !r.Ptxas.Accept && !r.Orilab.Accept && r.Ptxas.Line == r.Orilab.Line
}

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
var (
	targetRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\.target\s+([a-z_0-9]+)`) })
	// "ptxas FILE, line 12; error   : MESSAGE" and the fatal form.
	lineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^ptxas [^\n]*?, line (\d+); (?:error|fatal)\s*: ([^\n]*)$`)
	})
	fatRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^ptxas fatal\s*: ([^\n]*)$`) })
)

// Arch returns the -arch for a module: its own .target where ptxas 13 can
// compile for it, sm_75 (the oldest ptxas 13 supports) for older targets,
// whose PTX ptxas compiles for any newer architecture.
func Arch(src []byte) string {
	m := targetRE().FindSubmatch(src)
	if m == nil {
		return "sm_75"
	}
	t := string(m[1])
	if !strings.HasPrefix(t, "sm_") {
		return "sm_75"
	}
	digits := strings.TrimRight(t[3:], "abf")
	n, err := strconv.Atoi(digits)
	if err != nil || n < 75 {
		return "sm_75"
	}
	return t
}

// Ptxas runs ptxas on src (written to a file in dir) for Arch(src).
func Ptxas(ptxas, dir string, c Case) (Verdict, error) {
	name := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(c.Name))
	if !strings.HasSuffix(name, ".ptx") {
		name += ".ptx"
	}
	if err := atomicfile.Write(name, c.Src); err != nil {
		return Verdict{}, err
	}
	defer os.Remove(name)
	cmd := exec.Command(ptxas, "-arch="+Arch(c.Src), name, "-o", os.DevNull)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return Verdict{}, err
	}
	v := parsePtxas(out, err == nil)
	if ee != nil && ee.ProcessState != nil && !ee.ProcessState.Exited() {
		// A ptxas crash (13.0.88 segfaults on ZLUDA's implicit_param.ptx)
		// is no verdict on the PTX.
		v.Excluded = "ptxas crashed: " + ee.ProcessState.String()
	}
	return v, nil
}

func parsePtxas(out []byte, ok bool) Verdict {
	if ok {
		return Verdict{Accept: true}
	}
	v := Verdict{}
	if m := lineRE().FindSubmatch(out); m != nil {
		v.Line, _ = strconv.Atoi(string(m[1]))
		v.Msg = strings.TrimSpace(string(m[2]))
	} else if m := fatRE().FindSubmatch(out); m != nil {
		v.Msg = strings.TrimSpace(string(m[1]))
	} else {
		v.Msg = strings.TrimSpace(string(out))
	}
	// Decision: ptxas 13 dropped 32-bit addressing ("32-Bit ABI ... is not
	// supported on sm_90 or higher", and .address_size 32 everywhere);
	// orilab keeps compiling such PTX (old corpus kernels use it), so these
	// files are not compared.
	if bytes.Contains(out, []byte("32-Bit ABI")) || bytes.Contains(out, []byte("32-Bit compilation")) || bytes.Contains(out, []byte("32-bit address")) {
		v.Excluded = "32-bit addressing"
	}
	// Decision: "Unresolved extern function" is ptxas linking the module
	// as a whole program; it says nothing about the PTX, and orilab
	// compiles one module without linking, so such files are not compared.
	if bytes.Contains(out, []byte("Unresolved extern function")) {
		v.Excluded = "unresolved extern function (a link error)"
	}
	return v
}

// Orilab runs orilab's front end (lexer, parser, checker) on c.
func Orilab(c Case) Verdict {
	_, err := ptx.Parse(c.Name, c.Src)
	if err == nil {
		return Verdict{Accept: true}
	}
	var list ptx.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return Verdict{Line: int(list[0].Pos.Line), Msg: list[0].Msg}
	}
	return Verdict{Msg: err.Error()}
}

// Run compares every case, running up to jobs ptxas processes at once.
// cache, when not "", is a directory that keeps ptxas's verdicts by the
// hash of the source and -arch, so a rerun over unchanged files skips
// ptxas (developers' sweeps; the tests pass "").
func Run(ptxas string, cases []Case, jobs int, cache string) ([]Result, error) {
	if jobs < 1 {
		jobs = 1
	}
	dir, err := os.MkdirTemp("", "ptxasdiff")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := make([]Result, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := cases[i]
				// Names are made unique per case so parallel runs never
				// share a file.
				pv, err := cached(cache, c.Src, func() (Verdict, error) {
					return Ptxas(ptxas, dir, Case{Name: fmt.Sprintf("%d_%s", i, filepath.Base(c.Name)), Src: c.Src})
				})
				out[i] = Result{Case: c, Ptxas: pv, Orilab: Orilab(c)}
				errs[i] = err
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
}

func cached(dir string, src []byte, run func() (Verdict, error)) (Verdict, error) {
	if dir == "" {
		return run()
	}
	sum := sha256.Sum256(append([]byte(Arch(src)+"\n"), src...))
	name := filepath.Join(dir, hex.EncodeToString(sum[:16])+".json")
	var v Verdict
	if b, err := os.ReadFile(name); err == nil && json.Unmarshal(b, &v) == nil {
		return v, nil
	}
	v, err := run()
	if err != nil {
		return v, err
	}
	if b, err := json.Marshal(v); err == nil {
		_ = os.MkdirAll(dir, 0o755)
		_ = atomicfile.Write(name, b)
	}
	return v, nil
}

// Summary counts agreement over a set of results.
type Summary struct {
	Total, Excluded int
	Agree           int
	// Rejected counts the cases ptxas rejects (that are compared);
	// LineAgree those that orilab rejects at ptxas's line.
	Rejected, LineAgree int
	// Disagree lists the cases where the verdicts differ.
	Disagree []Result
	// LineDiffer lists the rejected cases where the lines differ.
	LineDiffer []Result
}

// Summarize counts rs.
func Summarize(rs []Result) Summary {
	var s Summary
	for _, r := range rs {
		if r.Ptxas.Excluded != "" {
			s.Excluded++
			continue
		}
		s.Total++
		if r.Agree() {
			s.Agree++
		} else {
			s.Disagree = append(s.Disagree, r)
		}
		if !r.Ptxas.Accept {
			s.Rejected++
			if r.LineAgree() {
				s.LineAgree++
			} else if !r.Orilab.Accept {
				s.LineDiffer = append(s.LineDiffer, r)
			}
		}
	}
	sort.Slice(s.Disagree, func(i, j int) bool { return s.Disagree[i].Name < s.Disagree[j].Name })
	return s
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// String is the one-line account: agreement and error-line agreement.
func (s Summary) String() string {
	return fmt.Sprintf("%d compared (%d excluded): verdicts agree on %d (%.2f%%); ptxas rejects %d, orilab at the same line %d (%.2f%%)",
		s.Total, s.Excluded, s.Agree, pct(s.Agree, s.Total), s.Rejected, s.LineAgree, pct(s.LineAgree, s.Rejected))
}

// Report lists the disagreements, one per line, at most max of them.
func (s Summary) Report(max int) string {
	var b strings.Builder
	for i, r := range s.Disagree {
		if i == max {
			fmt.Fprintf(&b, "... and %d more\n", len(s.Disagree)-max)
			break
		}
		fmt.Fprintf(&b, "%s: ptxas %s; orilab %s\n", r.Name, r.Ptxas, r.Orilab)
	}
	return b.String()
}
