package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"orilab/bisect"
	"orilab/internal/atomicfile"
	"orilab/internal/ptxgen"
	"orilab/pipeline/spec"
)

// Findings: what happens to a failure.
//
// Every failure gets a signature: its kind, the phase behind it and the
// first line of its message with numbers, registers and lane lists
// normalized away. The phase is found by bisect.Phase (the first phase
// whose output executes differently), or read from the message of a
// compile error; a failure that needs knob settings other than
// DisablePhases is narrowed by bisect.Knobs to the knobs that matter.
//
// The first MaxPerSignature failures of a signature are saved in their
// own directory under the findings directory:
//
//	case.ptx, case.json      the program and its spec; the spec expects the
//	                         oracle's buffers (case.PARAM.hex), so
//	                         `orilab run case.json` fails the same way
//	shrunk.ptx, shrunk.json  the program after ptxgen.Shrink (statement
//	                         deletion, always a valid program)
//	*.reduced.ptx/.json      bisect.Reduce's PTX-level reduction of it
//	finding.txt              what failed, the bisection, the replay commands
//	finding.json             the same, for tools
//	detail.txt               the whole message, when it is long (a
//	                         verifier error with the IR around the phase)
//
// The rest are counted under their signature.

// Finding is one failing compilation.
type Finding struct {
	Seed   uint64 `json:"seed"`
	Config Config `json:"config"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
	// Phase is the culprit phase ("" when unknown); Knobs the minimal
	// knob settings the failure needs, when bisect.Knobs narrowed them.
	Phase     string   `json:"phase,omitempty"`
	Knobs     []string `json:"knobs,omitempty"`
	Signature string   `json:"signature"`
	// Dir is where the failure was saved ("" when only counted).
	Dir string `json:"dir,omitempty"`
	// Bisect is the bisection's answer in one line.
	Bisect string `json:"bisect,omitempty"`
	// Shrunk and Reduced name the reduced cases' specs, with their sizes.
	Shrunk  string `json:"shrunk,omitempty"`
	Reduced string `json:"reduced,omitempty"`
	// ShrunkInsts and ReducedInsts are those cases' PTX instruction
	// counts (0: none), by which a merge of shards keeps the smallest.
	ShrunkInsts  int `json:"shrunk_insts,omitempty"`
	ReducedInsts int `json:"reduced_insts,omitempty"`
	// Replay lists commands that show the failure again.
	Replay []string `json:"replay,omitempty"`
	// Notes says what could not be done (a reduction that timed out...).
	Notes []string `json:"notes,omitempty"`
}

// Line is the one-line form of a finding.
func (f *Finding) Line() string {
	where := ""
	if f.Dir != "" {
		where = " -> " + f.Dir
	}
	return fmt.Sprintf("seed %d %s: %s%s", f.Seed, f.Config, f.Signature, where)
}

// recorder saves failures.
type recorder struct {
	opts  CampaignOptions
	mu    sync.Mutex
	saved map[string]int // signature -> failures saved
	// culprits counts, per failure class (kind and normalized message of
	// a configuration without other knobs than DisablePhases), the
	// culprit phases its bisections found.
	culprits map[string]map[string]int
}

// trustBisections is how many bisections of a class, all naming the same
// phase, make the recorder assume that phase for the next failures of
// the class instead of bisecting them (a campaign meets the same bug
// hundreds of times; each bisection compiles with snapshots and runs
// several executions).
const trustBisections = 5

// knownCulprit returns the phase every one of at least trustBisections
// bisections of class found, or "".
func (r *recorder) knownCulprit(class string) (string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.culprits[class]
	if len(m) != 1 {
		return "", 0
	}
	for p, n := range m {
		if n >= trustBisections && p != "" {
			return p, n
		}
	}
	return "", 0
}

func (r *recorder) noteCulprit(class, phase string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.culprits == nil {
		r.culprits = map[string]map[string]int{}
	}
	if r.culprits[class] == nil {
		r.culprits[class] = map[string]int{}
	}
	r.culprits[class][phase]++
}

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
var (
	reNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(0x[0-9a-fA-F]+|\d+)\b`) })
	reReg    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%([a-z]+)\d+`) })
	rePhys   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(R|P|UR|UP)\d+\b`) })
	reLanes  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`threads [N,\-]+`) })
	reBlock  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(BB|fn)\d+`) })
	reFile   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^\s:]+\.ptx:`) })
	reFunc   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(fnN|fuzz)\b`) })
	reOpcode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)*\b`) })
	rePhase  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^phase \d+ ([A-Za-z0-9_]+)`) })
)

// notOpcodes are the upper-case words of messages that are not SASS
// opcodes (including normalize's own placeholders).
var notOpcodes = map[string]bool{"FUNC": true, "BBN": true, "FILE": true, "CTA": true, "PTX": true, "ABI": true, "OP": true,
	"DUMPIR": true}

// normalize reduces a message to its class: first line, with numbers,
// registers, blocks, file names, the generated functions' names (the
// kernel "fuzz" and the device functions "fnN" become FUNC), lane lists
// and SASS opcodes (OP) replaced, at most 140 characters. One bug shows
// up at many opcodes (a deadlock at whichever instruction the stuck
// threads are at, a verifier error at whichever instruction it checks),
// so the opcode would split a signature without telling bugs apart.
func normalize(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = reFile().ReplaceAllString(s, "FILE.ptx:")
	s = reBlock().ReplaceAllString(s, "${1}N")
	s = reFunc().ReplaceAllString(s, "FUNC")
	s = reOpcode().ReplaceAllStringFunc(s, func(w string) string {
		if len(w) < 3 || notOpcodes[w] {
			return w
		}
		return "OP"
	})
	s = reReg().ReplaceAllString(s, "%${1}N")
	s = rePhys().ReplaceAllString(s, "${1}N")
	s = reNumber().ReplaceAllString(s, "N")
	s = reLanes().ReplaceAllString(s, "threads L")
	if len(s) > 140 {
		s = s[:140] + "..."
	}
	return s
}

// failureClass is the part of a signature the message gives: for a
// mismatch, which buffers differ.
func failureClass(kind, detail string) string {
	if kind != KindMismatch {
		return normalize(detail)
	}
	seen := map[string]bool{}
	var bufs []string
	for _, l := range strings.Split(detail, "\n") {
		name, _, ok := strings.Cut(l, " word ")
		if ok && !seen[name] {
			seen[name] = true
			bufs = append(bufs, name)
		}
	}
	return "wrong values in " + strings.Join(bufs, ", ")
}

func signatureOf(f *Finding) string {
	where := ""
	switch {
	case f.Phase != "":
		where = " in " + f.Phase
	case len(f.Knobs) > 0:
		where = " with " + strings.Join(f.Knobs, "~")
	}
	return f.Kind + where + ": " + failureClass(f.Kind, f.Detail)
}

// knobMap turns settings into the map bisect.Knobs takes.
func knobMap(settings []string) map[string]string {
	m := map[string]string{}
	for _, s := range settings {
		n, v, _ := strings.Cut(s, "=")
		m[n] = v
	}
	return m
}

// disabled returns the DisablePhases entries of a configuration, and
// whether it sets any other knob.
func disabled(c Config) (phases []string, others bool) {
	for _, s := range c.Knobs {
		n, v, _ := strings.Cut(s, "=")
		if strings.EqualFold(n, "DisablePhases") {
			phases = append(phases, strings.Split(v, "+")...)
		} else {
			others = true
		}
	}
	return phases, others
}

// record classifies a failure and, if its signature has room, saves it.
func (r *recorder) record(ctx context.Context, p *ptxgen.Program, rep *Report, res Result) (*Finding, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	f := &Finding{Seed: p.Seed, Config: res.Config, Kind: res.Kind, Detail: shorten(res.Detail)}
	f.Replay = append(f.Replay, fuzzReplay(p.Seed, res.Config, r.opts))
	if m := rePhase().FindStringSubmatch(res.Detail); m != nil {
		f.Phase = m[1]
	}
	if r.opts.Findings == "" {
		f.Signature = signatureOf(f)
		return f, nil
	}
	// A failure of a class whose culprit is known needs no bisection, and
	// once its signature has all its saved cases, no files either.
	bisectable := f.Kind == KindMismatch || f.Kind == KindExecError
	class := f.Kind + ": " + failureClass(f.Kind, f.Detail)
	_, others := disabled(f.Config)
	if ph, n := r.knownCulprit(class); bisectable && ph != "" && !others {
		f.Phase, bisectable = ph, false
		f.Bisect = fmt.Sprintf("not bisected: the %d earlier failures of this class all bisected to %s", n, ph)
		f.Signature = signatureOf(f)
		r.mu.Lock()
		full := r.saved[f.Signature] >= r.opts.MaxPerSignature
		r.mu.Unlock()
		if full {
			return f, nil
		}
	}
	// Write the case where bisect can read it, then decide whether to keep
	// it under its signature.
	tmp, err := os.MkdirTemp(r.opts.Findings, ".case-")
	if err != nil {
		if err := os.MkdirAll(r.opts.Findings, 0o755); err != nil {
			return f, fmt.Errorf("findings: %v", err)
		}
		if tmp, err = os.MkdirTemp(r.opts.Findings, ".case-"); err != nil {
			return f, fmt.Errorf("findings: %v", err)
		}
	}
	keep := false
	defer func() {
		if !keep {
			os.RemoveAll(tmp)
		}
	}()
	specPath, err := writeCase(tmp, "case", p, rep.Oracle)
	if err != nil {
		return f, err
	}
	fctx, cancel := context.WithTimeout(ctx, r.opts.FindingTime)
	defer cancel()
	if bisectable {
		r.bisect(fctx, f, specPath)
		if !others {
			r.noteCulprit(class, f.Phase)
		}
	}
	f.Signature = signatureOf(f)
	r.mu.Lock()
	n := r.saved[f.Signature]
	if n < r.opts.MaxPerSignature {
		r.saved[f.Signature] = n + 1
	}
	r.mu.Unlock()
	if n >= r.opts.MaxPerSignature {
		return f, nil
	}
	dir := filepath.Join(r.opts.Findings, fmt.Sprintf("%s-seed%d-O%d", f.Kind, p.Seed, res.Config.OptLevel))
	if res.Config.Random {
		dir += "-knobs"
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return f, fmt.Errorf("findings: %v", err)
	}
	keep = true
	f.Dir = dir
	if f.Detail != res.Detail {
		if err := atomicfile.Write(filepath.Join(dir, "detail.txt"), []byte(res.Detail+"\n")); err != nil {
			return f, fmt.Errorf("findings: %v", err)
		}
	}
	for i := range f.Replay {
		f.Replay[i] = strings.ReplaceAll(f.Replay[i], tmp, dir)
	}
	specPath = filepath.Join(dir, "case.json")
	f.Replay = append([]string{runReplay(specPath, res.Config, f.Kind)}, f.Replay...)
	if r.opts.Reduce {
		r.reduce(fctx, f, p, dir)
	}
	return f, writeFinding(f)
}

// bisect finds the culprit phase, or the knobs a failure needs.
func (r *recorder) bisect(ctx context.Context, f *Finding, specPath string) {
	s, err := spec.Load(specPath)
	if err != nil {
		f.Notes = append(f.Notes, "bisect: "+err.Error())
		return
	}
	_, others := disabled(f.Config)
	opts := bisect.Options{Request: f.Config.Request(r.opts.KnobSources), MaxWarpSteps: r.opts.MaxWarpSteps}
	pr, err := bisect.Phase(ctx, s, opts)
	if err != nil {
		f.Notes = append(f.Notes, "bisect --mode phase: "+err.Error())
		return
	}
	if pr.Found {
		f.Phase = pr.Name
		f.Bisect = fmt.Sprintf("culprit phase %d %s (the output after %s still matches; %d executions)", pr.Index, pr.Name, pr.Previous, pr.Executions)
		f.Replay = append(f.Replay, pr.Replay)
		return
	}
	if !others {
		f.Bisect = "bisect --mode phase: " + pr.Reason
		return
	}
	// The failure needs knobs the phase mode does not apply: narrow the
	// knob settings instead.
	base := Config{OptLevel: f.Config.OptLevel}.Request(r.opts.KnobSources)
	kr, err := bisect.Knobs(ctx, s, bisect.Options{Request: base, MaxWarpSteps: r.opts.MaxWarpSteps}, map[string]string{}, knobMap(f.Config.Knobs))
	if err != nil {
		f.Notes = append(f.Notes, "bisect --mode knobs: "+err.Error())
		return
	}
	if kr.Found {
		f.Knobs = kr.Minimal
		f.Bisect = fmt.Sprintf("the default knobs pass; %s makes it fail (%d executions)", strings.Join(kr.Minimal, "~"), kr.Executions)
		return
	}
	f.Bisect = "bisect --mode knobs: " + kr.Reason
}

// reduce shrinks the saved program structurally, then runs the PTX-level
// reducer on the result.
func (r *recorder) reduce(ctx context.Context, f *Finding, p *ptxgen.Program, dir string) {
	cfg := f.Config
	q, tests := ptxgen.Shrink(p, r.keeper(ctx, f), 400)
	rep := Check(q, Options{Configs: []Config{cfg}, MaxWarpSteps: r.opts.MaxWarpSteps, Timeout: r.opts.Timeout})
	shrunk, err := writeCase(dir, "shrunk", q, rep.Oracle)
	if err != nil {
		f.Notes = append(f.Notes, "shrink: "+err.Error())
		return
	}
	f.ShrunkInsts = countInsts(q.PTX())
	f.Shrunk = fmt.Sprintf("%s (%d of %d PTX instructions, %d tests)", shrunk, f.ShrunkInsts, countInsts(p.PTX()), tests)
	f.Replay = append(f.Replay, runReplay(shrunk, cfg, f.Kind))
	if ctx.Err() != nil {
		f.Notes = append(f.Notes, "shrink: the time for this finding ran out; the shrunk case is the smallest found so far")
		return
	}
	if f.Kind == KindBadProgram || f.Kind == KindCrash || f.Kind == KindTimeout {
		// bisect.Reduce needs a program whose lowered IR executes and a
		// failure it can reproduce in one compilation.
		return
	}
	s, err := spec.Load(shrunk)
	if err != nil {
		f.Notes = append(f.Notes, "reduce: "+err.Error())
		return
	}
	s.Expect = nil // the reducer's oracle is the lowered IR's output
	res, err := bisect.Reduce(ctx, s, bisect.ReduceOptions{
		Options: bisect.Options{Request: cfg.Request(r.opts.KnobSources), MaxWarpSteps: r.opts.MaxWarpSteps},
	})
	if err != nil {
		f.Notes = append(f.Notes, "reduce: "+err.Error())
		return
	}
	if !res.Found {
		f.Notes = append(f.Notes, "reduce: "+res.Reason)
		return
	}
	if err := bisect.WriteReduced(res, dir); err != nil {
		f.Notes = append(f.Notes, "reduce: "+err.Error())
		return
	}
	f.ReducedInsts = res.InstsAfter
	f.Reduced = fmt.Sprintf("%s (%d of %d PTX instructions; %s)", res.SpecFile, res.InstsAfter, res.InstsBefore, res.Signature)
	if res.TimedOut {
		f.Notes = append(f.Notes, "reduce: the time ran out; the reduction is the best found so far")
	}
	if res.Reproduce != "" {
		f.Replay = append(f.Replay, res.Reproduce)
	}
}

// keeper returns the shrinker's test: does a candidate still fail the way
// f does? The kind and the failure class must match and, when f has a
// culprit phase (a miscompile or an execution error that phase mode
// bisected), phase mode must name the same phase for the candidate: the
// class alone ("wrong values in out") says little, and a shrink that
// drifts to another phase's bug saves a case of a different failure.
func (r *recorder) keeper(ctx context.Context, f *Finding) func(*ptxgen.Program) bool {
	cfg := f.Config
	class := failureClass(f.Kind, f.Detail)
	_, others := disabled(cfg)
	phase := ""
	if (f.Kind == KindMismatch || f.Kind == KindExecError) && !others {
		phase = f.Phase
	}
	return func(q *ptxgen.Program) bool {
		if ctx.Err() != nil {
			return false
		}
		rep := Check(q, Options{Configs: []Config{cfg}, MaxWarpSteps: r.opts.MaxWarpSteps, Timeout: r.opts.Timeout})
		same := false
		for _, x := range rep.Failed() {
			if x.Kind == f.Kind && failureClass(x.Kind, x.Detail) == class {
				same = true
			}
		}
		if !same || phase == "" {
			return same
		}
		return r.culprit(ctx, q, cfg, rep.Oracle) == phase
	}
}

// culprit is the phase that phase mode blames for q's failure under cfg,
// or "" when it blames none (or q cannot be bisected).
func (r *recorder) culprit(ctx context.Context, q *ptxgen.Program, cfg Config, oracle [][]byte) string {
	tmp, err := os.MkdirTemp("", "orilab-shrink-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(tmp)
	path, err := writeCase(tmp, "candidate", q, oracle)
	if err != nil {
		return ""
	}
	s, err := spec.Load(path)
	if err != nil {
		return ""
	}
	pr, err := bisect.Phase(ctx, s, bisect.Options{Request: cfg.Request(r.opts.KnobSources), MaxWarpSteps: r.opts.MaxWarpSteps})
	if err != nil || !pr.Found {
		return ""
	}
	return pr.Name
}

// maxDetail bounds the message a Finding keeps: a verifier error carries
// the IR before and after the phase, which goes to detail.txt instead.
const maxDetail = 2000

func shorten(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	return s[:maxDetail] + fmt.Sprintf("\n... (%d more bytes; the whole message is in detail.txt when the finding is saved)", len(s)-maxDetail)
}

// writeCase writes NAME.ptx and NAME.json (with the oracle's buffers as
// NAME.PARAM.hex expectations when there is an oracle) into dir and
// returns the spec's path.
func writeCase(dir, name string, p *ptxgen.Program, oracle [][]byte) (string, error) {
	var exp []ptxgen.Expectation
	for i, q := range p.Params {
		if oracle == nil || !q.Buffer || q.SameAs != "" || oracle[i] == nil {
			continue
		}
		size, _ := spec.ElemSize(q.Elem)
		file := fmt.Sprintf("%s.%s.hex", name, q.Name)
		if err := atomicfile.Write(filepath.Join(dir, file), ptxgen.HexValues(oracle[i], size)); err != nil {
			return "", fmt.Errorf("findings: %v", err)
		}
		exp = append(exp, ptxgen.Expectation{Param: q.Name, Elem: q.Elem, File: file})
	}
	if err := atomicfile.Write(filepath.Join(dir, name+".ptx"), []byte(p.PTX())); err != nil {
		return "", fmt.Errorf("findings: %v", err)
	}
	path := filepath.Join(dir, name+".json")
	if err := atomicfile.Write(path, p.SpecJSON(name, name+".ptx", exp)); err != nil {
		return "", fmt.Errorf("findings: %v", err)
	}
	if _, err := spec.Load(path); err != nil {
		return "", fmt.Errorf("internal error: the saved spec does not load: %v", err)
	}
	return path, nil
}

// countInsts counts the instructions of PTX text.
func countInsts(src string) int {
	n := 0
	for _, c := range PTXOpcodes(src) {
		n += c
	}
	return n
}

// runReplay is the `orilab run` command that shows a saved failure.
func runReplay(specPath string, c Config, kind string) string {
	b := fmt.Sprintf("orilab run %s -O %d", bisect.ShellQuote(specPath), c.OptLevel)
	if len(c.Knobs) > 0 {
		b += " -knob " + bisect.ShellQuote(c.KnobArg())
	}
	if kind == KindBadProgram {
		b += " --after lowering"
	}
	return b
}

// fuzzReplay is the `orilab fuzz` command that regenerates a program and
// repeats the configuration's check.
func fuzzReplay(seed uint64, c Config, o CampaignOptions) string {
	b := fmt.Sprintf("orilab fuzz --seed %d --count 1 -O %d", seed, c.OptLevel)
	if len(o.Avoid) > 0 {
		b += " --avoid " + strings.Join(o.Avoid, ",")
	}
	if len(o.Knobs) > 0 {
		b += " -knob " + bisect.ShellQuote(strings.Join(o.Knobs, "~"))
	}
	if c.Random {
		b += " --random-knobs"
	}
	return b
}

// writeFinding writes finding.txt and finding.json.
func writeFinding(f *Finding) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nseed %d, %s\n%s: %s\n", f.Signature, f.Seed, f.Config, f.Kind, f.Detail)
	if f.Bisect != "" {
		fmt.Fprintf(&b, "\nbisection: %s\n", f.Bisect)
	}
	if f.Shrunk != "" {
		fmt.Fprintf(&b, "shrunk: %s\n", f.Shrunk)
	}
	if f.Reduced != "" {
		fmt.Fprintf(&b, "reduced: %s\n", f.Reduced)
	}
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	b.WriteString("\nreplay:\n")
	for _, r := range f.Replay {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	if err := atomicfile.Write(filepath.Join(f.Dir, "finding.txt"), []byte(b.String())); err != nil {
		return fmt.Errorf("findings: %v", err)
	}
	js, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(f.Dir, "finding.json"), append(js, '\n')); err != nil {
		return fmt.Errorf("findings: %v", err)
	}
	return nil
}
