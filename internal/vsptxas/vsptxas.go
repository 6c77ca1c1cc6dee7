package vsptxas

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configures a comparison.
type Options struct {
	Orilab    string // orilab's binary
	Ptxas     string // ptxas
	Cuobjdump string // cuobjdump, for ptxas's instruction counts
	Arch      string // "sm_80"
	OptLevel  int
	Runs      int // timed runs per compiler and file (medians); 0 means 5
	// CPU times each run by the CPU time (user plus system) the compiler
	// process used instead of the wall-clock time: on a loaded machine the
	// wall clock mostly measures the wait for a core.
	CPU bool
	// Timeout bounds one compilation (0: 2 minutes).
	Timeout time.Duration
	// Progress, when set, is called after each file.
	Progress func(done, total int, file string)
}

// Kernel is one function as both compilers report it.
type Kernel struct {
	Name string `json:"name"`
	// Orilab and Ptxas are each compiler's figures (nil: the function is
	// missing from that compiler's output, e.g. inlined).
	Orilab *Figures `json:"orilab,omitempty"`
	Ptxas  *Figures `json:"ptxas,omitempty"`
}

// Figures are one compiler's numbers for one function.
type Figures struct {
	Regs        int `json:"registers"`
	SpillStores int `json:"spill_store_bytes"`
	SpillLoads  int `json:"spill_load_bytes"`
	Insts       int `json:"instructions"`
}

// File is one PTX file's comparison.
type File struct {
	Path    string   `json:"path"`
	Bytes   int64    `json:"bytes"`
	Kernels []Kernel `json:"kernels,omitempty"`
	// OrilabMs and PtxasMs are the median whole-process compile times.
	OrilabMs float64 `json:"orilab_ms"`
	PtxasMs  float64 `json:"ptxas_ms"`
	// OrilabErr and PtxasErr hold the first line of a compiler's error
	// when it rejected the file.
	OrilabErr string `json:"orilab_error,omitempty"`
	PtxasErr  string `json:"ptxas_error,omitempty"`
	// OrilabTimed is what orilab wrote in its timed runs: "cubin", as
	// ptxas does, or "sass" (text) for a file orilab cannot encode yet.
	OrilabTimed string `json:"orilab_timed_output,omitempty"`
}

// Report is a whole comparison.
type Report struct {
	Arch     string  `json:"arch"`
	OptLevel int     `json:"opt_level"`
	Runs     int     `json:"runs"`
	Files    []*File `json:"files"`
	Totals   Totals  `json:"totals"`
}

// Totals summarizes a report over the files both compilers accept.
type Totals struct {
	Files, Kernels int
	// OrilabMs and PtxasMs sum the median compile times.
	OrilabMs, PtxasMs float64
	// Geometric means of orilab/ptxas over kernels both compiled (the
	// instruction mean over kernels with at least one instruction each;
	// registers over kernels where ptxas used some).
	RegsGeomean, InstsGeomean, TimeGeomean float64
	// Kernels where orilab spills, where ptxas spills, and where orilab
	// spills and ptxas does not; their orilab spill bytes.
	OrilabSpills, PtxasSpills, SpillsOnlyOrilab int
	OrilabSpillBytes                            int
	// WorstRegs is the kernel with the highest register ratio.
	WorstRegs      string
	WorstRegsRatio float64
	// Rejected counts files one compiler or both rejected.
	RejectedByOrilab, RejectedByPtxas int
	// TimedAsText counts the files whose orilab times are of SASS text
	// because orilab could not write their cubin.
	TimedAsText int
}

// Compare runs the comparison over files.
func Compare(ctx context.Context, files []string, o Options) (*Report, error) {
	if o.Runs <= 0 {
		o.Runs = 5
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	tmp, err := os.MkdirTemp("", "orilab-vs-ptxas-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r := &Report{Arch: o.Arch, OptLevel: o.OptLevel, Runs: o.Runs}
	for i, path := range files {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		f, err := compareFile(ctx, path, tmp, o)
		if err != nil {
			return r, err
		}
		r.Files = append(r.Files, f)
		if o.Progress != nil {
			o.Progress(i+1, len(files), path)
		}
	}
	r.total()
	return r, nil
}

func compareFile(ctx context.Context, path, tmp string, o Options) (*File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, Bytes: st.Size()}
	cubin := filepath.Join(tmp, "k.cubin")
	sassOut := filepath.Join(tmp, "k.sass")
	opt := strconv.Itoa(o.OptLevel)
	ori := []string{o.Orilab, "compile", "-arch", o.Arch, "-O", opt, "-v", "-o", sassOut, path}
	ptx := []string{o.Ptxas, "-arch=" + o.Arch, "-O" + opt, "-v", "-o", cubin, path}
	// The timed runs have orilab write a cubin, as ptxas does: SASS text
	// (which the figures need) leaves the encoding out of a release
	// compile, so timing it would flatter orilab.
	oriTimed := []string{o.Orilab, "compile", "-arch", o.Arch, "-O", opt, "-v", "-o", filepath.Join(tmp, "orilab.cubin"), path}
	// The first run of each gives the figures (and the verdict); the
	// timed runs alternate between the two compilers so that a change of
	// machine load affects both alike.
	oriOut, oriErr := run(ctx, o.Timeout, ori)
	ptxOut, ptxErr := run(ctx, o.Timeout, ptx)
	if oriErr != nil {
		f.OrilabErr = firstLine(oriOut, oriErr)
	}
	if ptxErr != nil {
		f.PtxasErr = firstLine(ptxOut, ptxErr)
	}
	if oriErr != nil || ptxErr != nil {
		return f, nil
	}
	oriFig := parseVerbose(oriOut)
	sass, err := os.ReadFile(sassOut)
	if err != nil {
		return nil, err
	}
	for name, n := range countOrilab(string(sass)) {
		fig(oriFig, name).Insts = n
	}
	for name := range oriFig {
		if strings.HasPrefix(name, slowPrefix) {
			delete(oriFig, name) // counted in its callers (countOrilab)
		}
	}
	ptxFig := parseVerbose(ptxOut)
	dump, err := exec.CommandContext(ctx, o.Cuobjdump, "-sass", cubin).Output()
	if err != nil {
		return nil, fmt.Errorf("cuobjdump -sass on ptxas's cubin of %s: %v", path, err)
	}
	for name, n := range countCuobjdump(string(dump)) {
		fig(ptxFig, name).Insts = n
	}
	names := map[string]bool{}
	for n := range oriFig {
		names[n] = true
	}
	for n := range ptxFig {
		names[n] = true
	}
	for _, n := range sortedKeys(names) {
		f.Kernels = append(f.Kernels, Kernel{Name: n, Orilab: oriFig[n], Ptxas: ptxFig[n]})
	}
	f.OrilabTimed = "cubin"
	if _, err := run(ctx, o.Timeout, oriTimed); err != nil {
		f.OrilabTimed, oriTimed = "sass", ori
	}
	var ot, pt []float64
	timed := func(argv []string) (float64, error) {
		t0 := time.Now()
		cpu, err := runCPU(ctx, o.Timeout, argv)
		wall := time.Since(t0)
		if o.CPU {
			wall = cpu
		}
		return float64(wall.Microseconds()) / 1000, err
	}
	for i := 0; i < o.Runs; i++ {
		ms, err := timed(oriTimed)
		if err != nil {
			return nil, fmt.Errorf("orilab on %s failed on a timed run: %v", path, err)
		}
		ot = append(ot, ms)
		if ms, err = timed(ptx); err != nil {
			return nil, fmt.Errorf("ptxas on %s failed on a timed run: %v", path, err)
		}
		pt = append(pt, ms)
	}
	f.OrilabMs, f.PtxasMs = median(ot), median(pt)
	return f, nil
}

func fig(m map[string]*Figures, name string) *Figures {
	if m[name] == nil {
		m[name] = &Figures{}
	}
	return m[name]
}

// runCPU runs argv, discarding its output, and returns the CPU time (user
// plus system) the process used.
func runCPU(ctx context.Context, timeout time.Duration, argv []string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %v", timeout)
	}
	if cmd.ProcessState == nil {
		return 0, err
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), err
}

func run(ctx context.Context, timeout time.Duration, argv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %v", timeout)
	}
	return out.String(), err
}

func firstLine(out string, err error) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "error") || strings.Contains(l, "fatal") {
			return strings.TrimSpace(l)
		}
	}
	return err.Error()
}

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
var (
	reEntry = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Compiling entry function '([^']+)'`) })
	reProps = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Function properties for (\S+)`) })
	reSpill = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+) bytes spill stores, (\d+) bytes spill loads`) })
	reUsed  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Used (\d+) registers`) })
)

// parseVerbose reads ptxas -v style lines (orilab prints the same).
func parseVerbose(out string) map[string]*Figures {
	m := map[string]*Figures{}
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		if x := reEntry().FindStringSubmatch(l); x != nil {
			cur = x[1]
			fig(m, cur)
		} else if x := reProps().FindStringSubmatch(l); x != nil {
			cur = x[1]
		} else if x := reSpill().FindStringSubmatch(l); x != nil && cur != "" {
			f := fig(m, cur)
			f.SpillStores, _ = strconv.Atoi(x[1])
			f.SpillLoads, _ = strconv.Atoi(x[2])
		} else if x := reUsed().FindStringSubmatch(l); x != nil && cur != "" {
			fig(m, cur).Regs, _ = strconv.Atoi(x[1])
		}
	}
	// A device function ptxas only lists under "Function properties"
	// (it was inlined into every caller) has no code of its own.
	for n, f := range m {
		if *f == (Figures{}) {
			delete(m, n)
		}
	}
	return m
}

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
var (
	reInst     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;`) })
	reFunction = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*Function : (\S+)`) })
	reText     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.text\.(\S+):$`) })
	reSelfBRA  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^BRA 0x([0-9a-f]+)$`) })
)

// countOrilab counts the instructions of each function in orilab's SASS.
//
// orilab's slow-path subroutines (__orilab.*: the f64 division and
// rsqrt slow paths that lowering puts out of line) are separate functions
// in its SASS, while ptxas places its own (__cuda_sm20_div_rn_f64_full
// and the like) inside each calling kernel's code, where cuobjdump counts
// them. So that the counts compare like with like, each such subroutine
// is counted in every function that calls it, and not as a row of its own.
func countOrilab(sass string) map[string]int {
	m := count(sass, reText())
	calls := map[string]map[string]bool{}
	cur := ""
	for _, l := range strings.Split(sass, "\n") {
		if x := reText().FindStringSubmatch(l); x != nil {
			cur = x[1]
			continue
		}
		if x := reCallSlow().FindStringSubmatch(l); x != nil && cur != "" {
			if calls[cur] == nil {
				calls[cur] = map[string]bool{}
			}
			calls[cur][x[1]] = true
		}
	}
	for caller, callees := range calls {
		for callee := range callees {
			m[caller] += m[callee]
		}
	}
	for name := range m {
		if strings.HasPrefix(name, slowPrefix) {
			delete(m, name)
		}
	}
	return m
}

// slowPrefix starts the names of orilab's slow-path subroutines
// (pipeline/lower/slowpath.go); reCallSlow finds a call of one.
const slowPrefix = "__orilab."

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
var reCallSlow = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("CALL\\.\\S*\\s+`\\((__orilab\\.[^)]+)\\)") })

// countCuobjdump counts the instructions of each function in cuobjdump
// -sass output.
func countCuobjdump(dump string) map[string]int {
	return count(dump, reFunction())
}

func count(text string, header *regexp.Regexp) map[string]int {
	m := map[string]int{}
	cur := ""
	for _, l := range strings.Split(text, "\n") {
		if x := header.FindStringSubmatch(l); x != nil {
			cur = x[1]
			m[cur] += 0
			continue
		}
		x := reInst().FindStringSubmatch(l)
		if x == nil || cur == "" {
			continue
		}
		ins := strings.TrimSpace(x[2])
		if ins == "NOP" {
			continue
		}
		if b := reSelfBRA().FindStringSubmatch(ins); b != nil {
			if a, err := strconv.ParseUint(x[1], 16, 64); err == nil {
				if t, err := strconv.ParseUint(b[1], 16, 64); err == nil && t == a {
					continue // ptxas's trailing branch-to-self
				}
			}
		}
		m[cur]++
	}
	return m
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (r *Report) total() {
	t := &r.Totals
	var regs, insts, times []float64
	for _, f := range r.Files {
		if f.OrilabErr != "" {
			t.RejectedByOrilab++
		}
		if f.PtxasErr != "" {
			t.RejectedByPtxas++
		}
		if f.OrilabErr != "" || f.PtxasErr != "" {
			continue
		}
		t.Files++
		if f.OrilabTimed == "sass" {
			t.TimedAsText++
		}
		t.OrilabMs += f.OrilabMs
		t.PtxasMs += f.PtxasMs
		if f.OrilabMs > 0 && f.PtxasMs > 0 {
			times = append(times, f.OrilabMs/f.PtxasMs)
		}
		for _, k := range f.Kernels {
			if k.Orilab == nil || k.Ptxas == nil {
				continue
			}
			t.Kernels++
			if k.Ptxas.Regs > 0 && k.Orilab.Regs > 0 {
				ratio := float64(k.Orilab.Regs) / float64(k.Ptxas.Regs)
				regs = append(regs, ratio)
				if ratio > t.WorstRegsRatio {
					t.WorstRegsRatio, t.WorstRegs = ratio, filepath.Base(f.Path)+":"+k.Name
				}
			}
			if k.Ptxas.Insts > 0 && k.Orilab.Insts > 0 {
				insts = append(insts, float64(k.Orilab.Insts)/float64(k.Ptxas.Insts))
			}
			osp, ps := k.Orilab.SpillStores+k.Orilab.SpillLoads, k.Ptxas.SpillStores+k.Ptxas.SpillLoads
			if osp > 0 {
				t.OrilabSpills++
				t.OrilabSpillBytes += osp
				if ps == 0 {
					t.SpillsOnlyOrilab++
				}
			}
			if ps > 0 {
				t.PtxasSpills++
			}
		}
	}
	t.RegsGeomean, t.InstsGeomean, t.TimeGeomean = geomean(regs), geomean(insts), geomean(times)
}

// Text renders the report: one line per kernel, then the totals.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "orilab vs ptxas, -arch %s -O%d, compile time: median of %d alternated runs (whole process)\n\n", r.Arch, r.OptLevel, r.Runs)
	fmt.Fprintf(&b, "%-40s %-28s %9s %11s %11s\n", "file", "kernel", "regs o/p", "spill o/p", "insts o/p")
	for _, f := range r.Files {
		name := filepath.Base(f.Path)
		if f.OrilabErr != "" || f.PtxasErr != "" {
			fmt.Fprintf(&b, "%-40s rejected: orilab: %s; ptxas: %s\n", trunc(name, 40), or(f.OrilabErr, "ok"), or(f.PtxasErr, "ok"))
			continue
		}
		for _, k := range f.Kernels {
			fmt.Fprintf(&b, "%-40s %-28s %9s %11s %11s\n", trunc(name, 40), trunc(k.Name, 28),
				pair(k, func(x *Figures) int { return x.Regs }),
				pair(k, func(x *Figures) int { return x.SpillStores + x.SpillLoads }),
				pair(k, func(x *Figures) int { return x.Insts }))
		}
		fmt.Fprintf(&b, "%-40s %-28s time %.1f / %.1f ms\n", trunc(name, 40), "", f.OrilabMs, f.PtxasMs)
	}
	t := r.Totals
	fmt.Fprintf(&b, "\n%d files (%d kernels) compiled by both; rejected by orilab %d, by ptxas %d\n", t.Files, t.Kernels, t.RejectedByOrilab, t.RejectedByPtxas)
	ratio := 0.0
	if t.PtxasMs > 0 {
		ratio = t.OrilabMs / t.PtxasMs
	}
	fmt.Fprintf(&b, "compile time: orilab %.0f ms, ptxas %.0f ms in all (%.2fx); per-file geomean %.2fx\n", t.OrilabMs, t.PtxasMs, ratio, t.TimeGeomean)
	if t.TimedAsText > 0 {
		fmt.Fprintf(&b, "  (orilab timed writing SASS text for %d files whose cubin it cannot write; a cubin for the rest, as ptxas)\n", t.TimedAsText)
	}
	fmt.Fprintf(&b, "registers: geomean orilab/ptxas %.3f; worst %s at %.2fx\n", t.RegsGeomean, or(t.WorstRegs, "-"), t.WorstRegsRatio)
	fmt.Fprintf(&b, "instructions: geomean orilab/ptxas %.3f\n", t.InstsGeomean)
	fmt.Fprintf(&b, "spills: orilab in %d kernels (%d bytes), ptxas in %d; orilab only: %d\n", t.OrilabSpills, t.OrilabSpillBytes, t.PtxasSpills, t.SpillsOnlyOrilab)
	return b.String()
}

func pair(k Kernel, get func(*Figures) int) string {
	s := func(f *Figures) string {
		if f == nil {
			return "-"
		}
		return strconv.Itoa(get(f))
	}
	return s(k.Orilab) + "/" + s(k.Ptxas)
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
