package pipeline

// TestEveryValidInputCompiles: every .ptx file of the repository's
// testdata and of the shared corpus that NVIDIA's ptxas accepts compiles
// at -O0 and -O3 with the IR verifier after every phase (and the post-RA
// verifier, which always runs): no internal error, no verifier failure,
// no panic. A file may fail only with an "unsupported: ..." error, which
// names the construct orilab does not implement; those are listed in the
// log.
//
// Which files ptxas accepts. Decision: the verdicts are cached in
// testdata/ptxas_verdicts.tsv (path, SHA-256 of the contents, the
// -arch used, the verdict and ptxas's first error line), because running
// ptxas over all ~430 files takes about a minute on two cores, as long
// as compiling them. The test trusts an entry only while the file's hash
// matches; a new or changed file is run through ptxas live. On every run
// it also re-runs ptxas on a sample of 12 cached entries (a different
// sample each day) and fails if a verdict changed, so the table cannot
// silently drift from the installed ptxas. `-ptxas-update` recomputes
// and rewrites the table:
//
//	go test ./pipeline -run TestEveryValidInputCompiles -args -ptxas-update
//
// ptxas runs as `ptxas -arch sm_N FILE` and, when that fails, as
// `ptxas -c -arch sm_N FILE` (relocatable code: an unresolved extern
// function is a link error, not invalid PTX; -c needs PTX ISA 3.1, so it
// cannot be the only try); a file is accepted when either passes. sm_N is the module's .target (with its a/f suffix) when newer than
// sm_75, else sm_75, the oldest target ptxas 13.0 compiles for. A ptxas
// crash counts as a rejection. Without ptxas (outside CI) the cached
// verdicts are used and files without one are skipped, with a log line.
//
// `-valid-levels 0,1,2,3` compiles at other levels (the default is 0,3).

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"orilab/internal/nvtools"
	"orilab/internal/testenv"
)

var (
	ptxasUpdate = flag.Bool("ptxas-update", false, "recompute testdata/ptxas_verdicts.tsv with ptxas")
	validLevels = flag.String("valid-levels", "0,3", "the -O levels TestEveryValidInputCompiles compiles at")
)

const verdictsFile = "testdata/ptxas_verdicts.tsv"

// verdict is ptxas's answer for one file.
type verdict struct {
	path   string // "testdata/..." or "corpus/..."
	hash   string // hex SHA-256 of the contents, first 16 digits
	arch   string // the -arch ptxas ran with
	accept bool
	why    string // first error line for a rejection
}

// validInput is one .ptx file to consider.
type validInput struct {
	rel  string // the path in the table
	abs  string
	src  []byte
	hash string
}

func validInputs(t *testing.T) []validInput {
	root := testenv.RepoRoot(t)
	shared := testenv.Shared(t)
	var out []validInput
	walk := func(dir, prefix string) {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".ptx") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			sum := sha256.Sum256(src)
			out = append(out, validInput{rel: prefix + filepath.ToSlash(rel), abs: p, src: src, hash: hex.EncodeToString(sum[:8])})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walk(filepath.Join(root, "testdata"), "testdata/")
	walk(filepath.Join(shared, "corpus"), "corpus/")
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}

var targetRe = regexp.MustCompile(`(?m)^\s*\.target\s+sm_(\d+)([a-z]?)`)

// ptxasArch is the -arch for a module: its .target when newer than
// sm_75, else sm_75.
func ptxasArch(src []byte) string {
	m := targetRe.FindSubmatch(src)
	if m == nil {
		return "sm_75"
	}
	n, _ := strconv.Atoi(string(m[1]))
	if n <= 75 {
		return "sm_75"
	}
	return "sm_" + string(m[1]) + string(m[2])
}

// runPtxas asks ptxas about one file: a whole-program compilation, and
// when that fails, a relocatable one (-c), which accepts calls to extern
// functions but needs PTX ISA 3.1 and the ABI.
func runPtxas(ptxas string, in validInput) verdict {
	v := verdict{path: in.rel, hash: in.hash, arch: ptxasArch(in.src)}
	for _, args := range [][]string{{"-arch", v.arch}, {"-c", "-arch", v.arch}} {
		out, err := exec.Command(ptxas, append(args, in.abs, "-o", os.DevNull)...).CombinedOutput()
		if err == nil {
			v.accept, v.why = true, ""
			return v
		}
		if v.why != "" {
			continue // keep the whole-program compilation's reason
		}
		v.why = err.Error()
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "error") || strings.Contains(line, "fatal") {
				v.why = strings.TrimSpace(strings.ReplaceAll(line, in.abs, filepath.Base(in.abs)))
				break
			}
		}
	}
	return v
}

func loadVerdicts(t *testing.T, path string) map[string]verdict {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]verdict{}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]verdict{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.SplitN(line, "\t", 5)
		if len(fs) < 4 || (fs[3] != "accept" && fs[3] != "reject") {
			t.Fatalf("%s:%d: want path, hash, arch, accept|reject[, reason]: %q", path, n, line)
		}
		v := verdict{path: fs[0], hash: fs[1], arch: fs[2], accept: fs[3] == "accept"}
		if len(fs) == 5 {
			v.why = fs[4]
		}
		out[v.path] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func writeVerdicts(t *testing.T, path string, vs []verdict) {
	var b strings.Builder
	b.WriteString("# ptxas 13.0 verdicts for every .ptx under testdata/ and ../shared/corpus (as corpus/...),\n")
	b.WriteString("# from `ptxas -arch ARCH FILE`, then `ptxas -c -arch ARCH FILE` (accept: either passes); written by\n")
	b.WriteString("#   go test ./pipeline -run TestEveryValidInputCompiles -args -ptxas-update\n")
	b.WriteString("# path\tsha256[:16]\tarch\tverdict\tfirst error line\n")
	for _, v := range vs {
		word := "reject"
		if v.accept {
			word = "accept"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s", v.path, v.hash, v.arch, word)
		if !v.accept {
			fmt.Fprintf(&b, "\t%s", strings.ReplaceAll(v.why, "\t", " "))
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// parallel runs f(i) for i in [0, n) on every CPU.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// unsupportedRe matches a compile error that names an unimplemented
// construct: "FILE:LINE:COL: error: unsupported: ...".
var unsupportedRe = regexp.MustCompile(`^[^\n]*:\d+:\d+: error: unsupported: `)

func TestEveryValidInputCompiles(t *testing.T) {
	var levels []int
	for _, s := range strings.Split(*validLevels, ",") {
		l, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || l < 0 || l > 4 {
			t.Fatalf("-valid-levels %q: want a comma-separated list of 0-4", *validLevels)
		}
		levels = append(levels, l)
	}
	root := testenv.RepoRoot(t)
	tablePath := filepath.Join(root, verdictsFile)
	inputs := validInputs(t)
	cached := loadVerdicts(t, tablePath)
	ptxas, ptxasErr := nvtools.Find(nvtools.Ptxas)
	if ptxasErr != nil && (nvtools.Required() || *ptxasUpdate) {
		t.Fatalf("%v (required in CI and for -ptxas-update)", ptxasErr)
	}

	// Verdicts: cached where the hash matches, else live.
	verdicts := make([]verdict, len(inputs))
	have := make([]bool, len(inputs))
	var live []int
	for i, in := range inputs {
		if v, ok := cached[in.rel]; ok && v.hash == in.hash && !*ptxasUpdate {
			verdicts[i], have[i] = v, true
			continue
		}
		live = append(live, i)
	}
	// The re-verified sample: 12 cached entries, spread over the table,
	// starting at an offset that changes every day.
	var sample []int
	if !*ptxasUpdate && len(inputs) > 0 {
		day := int(time.Now().Unix() / 86400)
		for k := 0; k < 12; k++ {
			i := (day*7 + k*len(inputs)/12) % len(inputs)
			if have[i] {
				sample = append(sample, i)
			}
		}
	}
	if ptxasErr == nil {
		start := time.Now()
		todo := append(append([]int(nil), live...), sample...)
		got := make([]verdict, len(todo))
		parallel(len(todo), func(k int) { got[k] = runPtxas(ptxas, inputs[todo[k]]) })
		for k, i := range todo {
			if k >= len(live) && got[k].accept != verdicts[i].accept {
				t.Errorf("%s: ptxas now says %v (%s), the table says %v: rerun with -ptxas-update", inputs[i].rel, got[k].accept, got[k].why, verdicts[i].accept)
			}
			verdicts[i], have[i] = got[k], true
		}
		t.Logf("ptxas ran on %d files (%d not cached or changed, %d re-verified) in %.1fs", len(todo), len(live), len(sample), time.Since(start).Seconds())
		if len(live) > 0 && !*ptxasUpdate {
			var names []string
			for _, i := range live {
				names = append(names, inputs[i].rel)
			}
			t.Logf("not in %s (run with -ptxas-update to cache them): %s", verdictsFile, strings.Join(names, " "))
		}
	} else {
		t.Logf("%v: using the cached verdicts; %d files without one are skipped", ptxasErr, len(live))
	}
	if *ptxasUpdate {
		writeVerdicts(t, tablePath, verdicts)
		t.Logf("wrote %s (%d files)", verdictsFile, len(verdicts))
	}

	// Compile every accepted file at every level.
	type job struct {
		in    validInput
		level int
	}
	var jobs []job
	accepted := 0
	for i, in := range inputs {
		if have[i] && verdicts[i].accept {
			accepted++
			for _, l := range levels {
				jobs = append(jobs, job{in, l})
			}
		}
	}
	if accepted == 0 {
		t.Fatalf("no file has a verdict: %s is missing and ptxas is not installed", verdictsFile)
	}
	errs := make([]error, len(jobs))
	start := time.Now()
	parallel(len(jobs), func(k int) {
		j := jobs[k]
		defer func() {
			if r := recover(); r != nil {
				errs[k] = fmt.Errorf("panic: %v", r)
			}
		}()
		_, errs[k] = CompileWith(j.in.rel, j.in.src, Options{}, PhaseOptions{OptLevel: j.level, Verify: true, NoSnapshots: true})
	})
	unsupported := map[string][]string{}
	for k, err := range errs {
		if err == nil {
			continue
		}
		j := jobs[k]
		msg := err.Error()
		if unsupportedRe.MatchString(msg) {
			first := strings.SplitN(msg, "\n", 2)[0]
			construct := first[strings.Index(first, "unsupported: "):]
			unsupported[construct] = append(unsupported[construct], fmt.Sprintf("%s -O%d", j.in.rel, j.level))
			continue
		}
		t.Errorf("%s -O%d: %s", j.in.rel, j.level, firstLines(msg, 3))
	}
	t.Logf("%d of %d files accepted by ptxas; %d compilations at -O%s in %.1fs", accepted, len(inputs), len(jobs), *validLevels, time.Since(start).Seconds())
	var keys []string
	n := 0
	for k, v := range unsupported {
		keys = append(keys, k)
		n += len(v)
	}
	sort.Strings(keys)
	t.Logf("%d compilations stop at an unsupported construct:", n)
	for _, k := range keys {
		t.Logf("  %s: %d (%s)", k, len(unsupported[k]), unsupported[k][0])
	}
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}
