package pipeline

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"orilab/internal/par"
	"orilab/pipeline/knobs"
	"orilab/pipeline/lower"
	"orilab/pipeline/opt"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// Status says what a phase did.
type Status uint8

const (
	StatusChanged   Status = iota // ran and changed the IR
	StatusUnchanged               // ran; the IR hash is the same afterwards
	StatusNoOp                    // did not run: Reason says why
	StatusDisabled                // did not run: disabled by the DisablePhases knob
)

func (s Status) String() string {
	switch s {
	case StatusChanged:
		return "changed"
	case StatusUnchanged:
		return "unchanged"
	case StatusNoOp:
		return "no-op"
	case StatusDisabled:
		return "disabled"
	}
	return "?"
}

// Snapshot records the state after one phase.
type Snapshot struct {
	Index  int
	Name   string
	Status Status
	Reason string // for StatusNoOp and StatusDisabled
	// Module is the IR after the phase. It is shared with the previous
	// snapshot when the phase did not change anything, and never mutated
	// after it is recorded, so keeping all 159 costs one copy per change.
	Module     *ori.Module
	Insts      int
	Blocks     int
	Hash       uint64 // FNV-1a of the IR text
	Duration   time.Duration
	AllocBytes uint64 // bytes allocated while the phase ran
	// Sites are the rewrites the phase proposed (with RecordSites), and
	// NumSites how many (counted whenever the phase was limited or
	// recorded).
	Sites    []opt.Site
	NumSites int
	// Remarks are what the phase's passes decided and why they declined
	// (opt.Remark), in the order they were made; a phase that ran and
	// changed nothing says why here when its pass weighs rewrites.
	Remarks []opt.Remark

	// pressure is computed on first use: only the TUI's timeline reads
	// it, and a liveness pass per changed phase cost a compile about 6%
	// of its CPU time. Snapshots sharing a Module share it.
	pressure *lazyPressure
}

// Pressure is the estimated number of live R-register words at the worst
// point (max over functions) of the snapshot's Module.
func (s *Snapshot) Pressure() int {
	if s.pressure == nil {
		return 0
	}
	return s.pressure.get()
}

type lazyPressure struct {
	once sync.Once
	m    *ori.Module
	r    int
}

func (l *lazyPressure) get() int {
	l.once.Do(func() {
		if l.m == nil {
			return
		}
		for _, f := range l.m.Funcs {
			l.r = max(l.r, ori.MaxPressure(f).R)
		}
		l.m = nil
	})
	return l.r
}

// Options configures a compilation.
type Options struct {
	// Arch is the SM target (75 for sm_75); 0 takes the module's .target
	// (at least sm_75).
	Arch int
}

// PhaseOptions configures the phase manager.
type PhaseOptions struct {
	OptLevel int // 0-4 (5 is accepted as 4); the zero value is -O0, so callers wanting ptxas's default set 3
	// DisablePhases names phases that must not run (the knob of the same
	// name). Required phases cannot be disabled.
	DisablePhases []string
	// NamedPhases, when set, replaces the pipeline: only these phases run,
	// in this order (the NamedPhases knob). Mercury pseudo-phases
	// (shuffle, swap1-6) are rejected: orilab has no Mercury pipeline.
	NamedPhases []string
	// DumpIR names a phase after which the IR is written to DumpTo with
	// the DUMPIR statistics header.
	DumpIR string
	DumpTo io.Writer
	// Verify runs the IR verifier after every phase that ran.
	Verify bool
	// Release skips the verifiers that a compilation otherwise runs on
	// its own result (see ReleaseVerifiers): orilab compile sets it unless
	// --check or --verify asks for them. The zero value keeps them, so
	// every test, the differential tester, bisection, reduction and the
	// fault injector, which count a verifier's complaint as a failed
	// compilation, still get it. A planted Fault is judged by the post-RA
	// verifiers either way, and Verify still verifies after every phase.
	Release bool
	// Observer, when set, sees every snapshot as it is recorded.
	Observer func(*Snapshot)
	// Context cancels a compilation between phases.
	Context context.Context
	// NoSnapshots skips recording per-phase snapshots (and the IR hashing
	// and pressure estimates they need): the plain compile path.
	NoSnapshots bool
	// Knobs are handed to the phases that read knobs (scheduling and
	// allocation); nil means every knob has its default.
	Knobs *knobs.Set
	// MaxRegCount is --maxrregcount: the allocator uses no register above
	// it. 0 leaves the hardware limit.
	MaxRegCount int
	// Sites, when set, applies only a range of one phase's rewrites (the
	// BisectSites knob).
	Sites *SiteLimit
	// RecordSites keeps, in each snapshot, the list of rewrites the phase
	// proposed.
	RecordSites bool
	// Fault, when set, is planted right after its phase; the snapshot of
	// that phase then carries the corruption, and the post-RA verifiers
	// judge it at once (see Fault and Planted).
	Fault *Fault
	// Jobs bounds how many goroutines compile the module's independent
	// functions at once (parallel.go): 0 is GOMAXPROCS, 1 compiles them
	// one after another. The output is the same either way.
	Jobs int
	// NoSASSText and NoCubin say that the caller will not read
	// Backend.SASS or Backend.Cubin: orilab compile writes one output,
	// and making the other cost it time for nothing. NoSASSText makes
	// DumpNVuCodeText a no-op (ptxas's own dumps SASS only when asked),
	// NoCubin makes FormatCodeList one. The zero value makes both.
	NoSASSText bool
	NoCubin    bool
}

// PhaseError is a compilation that failed in a phase: the phase returned
// an error or panicked, the verifier (Verify) found it broke an
// invariant, or a verifier caught the fault planted after it. Front doors
// that judge compilations (bisection, reduction, the fault injector) count
// it as a failure of the compiled kernel, like a wrong output; errors
// that are not PhaseErrors (bad PTX, bad knobs) are the user's.
type PhaseError struct {
	Index int
	Name  string
	Broke bool // the IR verifier found an invariant broken after the phase
	Err   error
}

func (e *PhaseError) Error() string {
	if e.Broke {
		return fmt.Sprintf("phase %d %s broke an invariant:\n%v", e.Index, e.Name, e.Err)
	}
	return fmt.Sprintf("phase %d %s: %v", e.Index, e.Name, e.Err)
}

func (e *PhaseError) Unwrap() error { return e.Err }

// Session is one compilation that can be stepped: it stops after any
// phase and resumes.
type Session struct {
	PTX       *ptx.Module
	Lowered   *ori.Module
	Snapshots []*Snapshot
	arch      int
	opts      PhaseOptions
	disabled  map[int]bool
	cur       *ori.Module
	curHash   uint64
	// order is the sequence of phase indices to run (0..158, or the
	// NamedPhases list); pos is the next position in it.
	order []int
	pos   int
	// backend is the state the back-end phases share.
	backend *Backend
	// planted is what became of opts.Fault (nil until it is planted).
	planted *Planted
	// lowerOpts lowered PTX; serialOnly is set in the sessions of a
	// split's components and after a failed split (parallel.go).
	lowerOpts  lower.Options
	serialOnly bool
	// splitInto is how many components the split compiled (0: none).
	splitInto int
	// stepCtx and stepSnap are the phase context and snapshot of every
	// step of a compilation that keeps no snapshot and has no observer,
	// where nothing holds on to them after the step: two allocations per
	// phase, 159 phases per function group, were most of what the phase
	// manager allocated itself.
	stepCtx  PhaseContext
	stepSnap Snapshot
}

// NewSession parses, checks and lowers src and prepares the phases.
func NewSession(file string, src []byte, o Options, po PhaseOptions) (*Session, error) {
	pm, err := ptx.Parse(file, src)
	if err != nil {
		return nil, err
	}
	return NewSessionFrom(pm, o, po)
}

// NewSessionFrom starts a compilation from an already parsed module, so a
// recompilation with other knobs does not parse again.
func NewSessionFrom(pm *ptx.Module, o Options, po PhaseOptions) (*Session, error) {
	if po.OptLevel < 0 || po.OptLevel > 5 {
		return nil, fmt.Errorf("-O%d: the optimization level must be 0 to 4 (5 is accepted as 4)", po.OptLevel)
	}
	if po.OptLevel == 5 {
		po.OptLevel = 4
	}
	s := &Session{PTX: pm, opts: po}
	for _, name := range po.DisablePhases {
		i, err := LookupPhase(name)
		if err != nil {
			return nil, fmt.Errorf("DisablePhases: %v", err)
		}
		if PhaseTable[i].Required {
			return nil, fmt.Errorf("DisablePhases: %s is a required phase and cannot be disabled", PhaseTable[i].Name)
		}
		if s.disabled == nil {
			s.disabled = map[int]bool{}
		}
		s.disabled[i] = true
	}
	if po.Fault != nil {
		i, err := LookupPhase(po.Fault.After)
		if err != nil {
			return nil, fmt.Errorf("planting a fault: %v", err)
		}
		f := *po.Fault
		f.After = PhaseTable[i].Name
		s.opts.Fault = &f
	}
	if po.DumpIR != "" {
		if _, err := LookupPhase(po.DumpIR); err != nil {
			return nil, fmt.Errorf("DUMPIR: %v", err)
		}
	}
	if len(po.NamedPhases) > 0 {
		for _, name := range po.NamedPhases {
			i, err := LookupPhase(name)
			if err != nil {
				return nil, fmt.Errorf("NamedPhases: %v", err)
			}
			s.order = append(s.order, i)
		}
	} else {
		s.order = defaultOrder()
	}
	s.lowerOpts = lower.Options{Arch: o.Arch, NoContract: noContract(po.Knobs), NoApproxFold: noApproxFold(po.Knobs), OutlineSlowPaths: outlineAtLowering(po.Knobs), OutlineF32Div: outlineF32Div(po.Knobs), CpAsyncLDGSTS: cpAsyncLDGSTS(po.Knobs), Jobs: s.jobs()}
	m, err := lower.Lower(pm, s.lowerOpts)
	if err != nil {
		return nil, err
	}
	for _, f := range m.Funcs {
		if po.Release {
			break
		}
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			return nil, fmt.Errorf("internal error: the lowering of %s does not verify:\n%w", f.Name, err)
		}
	}
	s.Lowered, s.cur, s.arch = m, m, m.Arch
	if !po.NoSnapshots {
		s.curHash = hashModule(m)
	}
	return s, nil
}

// defaultOrder is every phase index in table order, made once and shared
// by every session (an order is never modified).
var defaultOrder = sync.OnceValue(func() []int {
	order := make([]int, len(PhaseTable))
	for i := range order {
		order[i] = i
	}
	return order
})

// Fork returns a session that continues from this one's current state on
// a copy of its IR: running it leaves s untouched. The fork keeps no
// snapshots of its own (the fault injector forks one compilation per
// trial, and only the final IR matters there).
func (s *Session) Fork() *Session {
	f := *s
	f.cur = s.cur.Clone()
	f.Snapshots = nil
	f.opts.NoSnapshots = true
	f.opts.Observer = nil
	f.opts.Fault = nil // the fork continues from IR that already has it
	if s.backend != nil {
		b := *s.backend
		f.backend = &b
	}
	return &f
}

// Replace makes m the current IR: the next phase runs on it. The fault
// injector uses it to continue a compilation from mutated code.
func (s *Session) Replace(m *ori.Module) {
	s.cur = m
	if !s.opts.NoSnapshots {
		s.curHash = hashModule(m)
	}
}

// Next returns the index of the next phase to run (159 when done).
func (s *Session) Next() int {
	if s.pos >= len(s.order) {
		return len(PhaseTable)
	}
	return s.order[s.pos]
}

// Done reports whether every phase of the plan has run.
func (s *Session) Done() bool { return s.pos >= len(s.order) }

// Backend returns what the back-end phases recorded (nil before
// AllocateRegisters ran).
func (s *Session) Backend() *Backend { return s.backend }

// Module returns the IR after the last phase that ran.
func (s *Session) Module() *ori.Module { return s.cur }

// RunTo runs phases up to and including phase index last. With the
// default order that is every phase from the next one to last; with
// NamedPhases it runs the plan until it has run phase last (or to its end).
func (s *Session) RunTo(last int) error {
	if last >= len(PhaseTable) {
		last = len(PhaseTable) - 1
	}
	ctx := s.opts.Context
	if s.canSplit(last) {
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if _, err := s.runSplit(); err != nil {
			return err
		}
	}
	for s.pos < len(s.order) {
		i := s.order[s.pos]
		if len(s.opts.NamedPhases) == 0 && i > last {
			return nil
		}
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := s.step(i); err != nil {
			return err
		}
		if i == last && len(s.opts.NamedPhases) > 0 {
			return nil
		}
	}
	return nil
}

// RunAll runs every remaining phase of the plan.
func (s *Session) RunAll() error {
	for !s.Done() {
		if err := s.RunTo(len(PhaseTable) - 1); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) step(i int) error {
	p := &PhaseTable[i]
	pc, snap := &s.stepCtx, &s.stepSnap
	if !s.opts.NoSnapshots || s.opts.Observer != nil {
		pc, snap = new(PhaseContext), new(Snapshot)
	}
	*pc = PhaseContext{Module: s.cur, OptLevel: s.opts.OptLevel, Arch: s.arch, Knobs: s.opts.Knobs, MaxRegCount: s.opts.MaxRegCount, Backend: s.backend, Release: s.opts.Release, keepPreRA: s.opts.Fault != nil, noSASSText: s.opts.NoSASSText, noCubin: s.opts.NoCubin}
	if s.parallelOK() {
		pc.jobs = s.jobs()
	}
	*snap = Snapshot{Index: i, Name: p.Name, Module: s.cur, Hash: s.curHash}
	switch {
	case s.disabled[i]:
		snap.Status, snap.Reason = StatusDisabled, "disabled by the DisablePhases knob"
	default:
		if r := noOpReason(p, pc); r != "" {
			snap.Status, snap.Reason = StatusNoOp, r
			break
		}
		work := s.cur
		if !s.opts.NoSnapshots {
			// Phases run on a copy so that the previous snapshot stays
			// immutable.
			work = s.cur.Clone()
		}
		pc.Module = work
		pc.Sites = s.sitesFor(p.Name)
		pc.Remarks = &snap.Remarks
		// ReadMemStats stops the world; the plain compile path (no
		// snapshots) does not report memory and skips it.
		var ms runtime.MemStats
		if !s.opts.NoSnapshots {
			runtime.ReadMemStats(&ms)
		}
		before := ms.TotalAlloc
		start := time.Now()
		err := s.runPhase(p, pc)
		s.backend = pc.Backend
		if pc.Sites != nil {
			snap.Sites, snap.NumSites = pc.Sites.Log, pc.Sites.N
		}
		snap.Duration = time.Since(start)
		if !s.opts.NoSnapshots {
			runtime.ReadMemStats(&ms)
			snap.AllocBytes = ms.TotalAlloc - before
		}
		if err != nil {
			// The verifier's messages ask for DUMPIR of the failing phase:
			// show what the phase produced before giving up.
			if s.opts.DumpIR != "" && strings.EqualFold(s.opts.DumpIR, p.Name) && s.opts.DumpTo != nil {
				WriteDumpIR(s.opts.DumpTo, p.Name, work)
			}
			return &PhaseError{Index: i, Name: p.Name, Err: err}
		}
		if s.opts.Verify {
			for _, f := range work.Funcs {
				if err := ori.Verify(f, ori.VerifyOptions{SSA: InSSAWindow(i)}); err != nil {
					return &PhaseError{Index: i, Name: p.Name, Broke: true, Err: fmt.Errorf("%v\n--- IR before %s\n%s--- IR after %s\n%s", err, p.Name, s.cur.Func(f.Name), p.Name, f)}
				}
			}
		}
		if s.opts.NoSnapshots {
			s.cur = work
			snap.Status = StatusUnchanged
			break
		}
		h := hashModule(work)
		if h == s.curHash {
			snap.Status = StatusUnchanged
		} else {
			snap.Status = StatusChanged
			s.cur, s.curHash = work, h
			snap.Module, snap.Hash = work, h
		}
	}
	var caught error
	if f := s.opts.Fault; f != nil && f.After == p.Name && !s.disabled[i] {
		before := s.cur
		planted := before.Clone()
		rep, err := f.Inject(planted)
		if err != nil {
			return fmt.Errorf("planting a fault after phase %d %s: %w", i, p.Name, err)
		}
		s.Replace(planted)
		snap.Module, snap.Hash = planted, s.curHash
		snap.Status, snap.Reason = StatusChanged, ""
		s.planted = &Planted{Index: i, Phase: p.Name, Report: rep, Before: before, After: planted}
		var pre *ori.Module
		if s.backend != nil {
			pre = s.backend.PreRA
		}
		if ve := VerifyPostRA(planted, pre, s.arch); ve != nil {
			s.planted.Caught = ve
			caught = &PhaseError{Index: i, Name: p.Name, Err: fmt.Errorf("the planted fault is %w", ve)}
		}
	}
	if !s.opts.NoSnapshots {
		s.measure(snap)
		s.Snapshots = append(s.Snapshots, snap)
	}
	s.pos++
	if s.opts.Observer != nil {
		s.opts.Observer(snap)
	}
	if s.opts.DumpIR != "" && strings.EqualFold(s.opts.DumpIR, p.Name) && s.opts.DumpTo != nil {
		WriteDumpIR(s.opts.DumpTo, p.Name, snap.Module)
	}
	return caught
}

// Planted returns what became of the compilation's Fault (nil before it
// was planted, or without one).
func (s *Session) Planted() *Planted { return s.planted }

// runPhase runs a phase and turns a panic into an error that names it
// (Go's SSA backend does the same with a deferred hook).
func (s *Session) runPhase(p *PhaseInfo, pc *PhaseContext) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: the phase panicked: %v", r)
		}
	}()
	return p.Fn.Run(pc)
}

func (s *Session) measure(snap *Snapshot) {
	m := snap.Module
	for _, f := range m.Funcs {
		snap.Insts += f.NumInsts()
		snap.Blocks += len(f.Blocks)
	}
	if n := len(s.Snapshots); n > 0 && s.Snapshots[n-1].Module == m {
		snap.pressure = s.Snapshots[n-1].pressure
		return
	}
	snap.pressure = &lazyPressure{m: m}
}

func hashModule(m *ori.Module) uint64 { return ori.Hash(m) }

// sitesFor returns the site counter a run of phase name gets: limited when
// the session's BisectSites names it, recording when snapshots record
// sites, nil otherwise.
func (s *Session) sitesFor(name string) *opt.Sites {
	lim := s.opts.Sites
	limited := lim != nil && strings.EqualFold(lim.Phase, name)
	if !limited && !s.opts.RecordSites {
		return nil
	}
	// A limited phase always records its own sites: site bisection reports
	// the culprit's description from that log.
	st := &opt.Sites{Record: s.opts.RecordSites || limited}
	if limited {
		st.Limit, st.Lo, st.Hi = true, lim.Lo, lim.Hi
	}
	return st
}

// The split compilation (parallel.go explains it).

// splitEnd is the first phase that works on the whole module at once.
var splitEnd = mustPhase("PostFixForMercTargets")

// jobs is how many goroutines compile components at once.
func (s *Session) jobs() int {
	if s.opts.Jobs > 0 {
		return s.opts.Jobs
	}
	return runtime.GOMAXPROCS(0)
}

// parallelOK reports whether the session may compile functions at once
// (see the Decision above): nothing watches the phases in order.
func (s *Session) parallelOK() bool {
	o := &s.opts
	return !s.serialOnly && s.jobs() > 1 &&
		len(o.NamedPhases) == 0 && o.NoSnapshots && o.Observer == nil &&
		o.Fault == nil && o.Sites == nil && !o.RecordSites && o.DumpIR == "" &&
		phaseOverrides.Load() == 0
}

// canSplit reports whether the next phases up to last may run per
// component.
func (s *Session) canSplit(last int) bool {
	return s.pos == 0 && last >= splitEnd-1 && s.parallelOK()
}

// runSplit runs phases 0 to splitEnd-1 per component, when the module has
// more than one (ran is false otherwise, and nothing ran). On a phase's
// failure the module is lowered again and the caller runs it serially.
func (s *Session) runSplit() (ran bool, err error) {
	comps := components(s.cur)
	if len(comps) < 2 {
		return false, nil
	}
	m := s.cur
	subs := make([]*Session, len(comps))
	size := make([]int, len(comps))
	for i, fs := range comps {
		sub := &Session{PTX: s.PTX, opts: s.opts, disabled: s.disabled, arch: s.arch, order: s.order[:splitEnd:splitEnd], serialOnly: true}
		sub.cur = &ori.Module{Arch: m.Arch, AddressSize: m.AddressSize, Globals: m.Globals, TexVars: m.TexVars, Funcs: fs}
		subs[i] = sub
		for _, f := range fs {
			size[i] += f.NumInsts()
		}
	}
	// The largest components first, so that a big kernel does not start
	// last and leave the other workers idle; the results land by index,
	// so the order of work does not reach the output.
	byWork := make([]int, len(comps))
	for i := range byWork {
		byWork[i] = i
	}
	sort.SliceStable(byWork, func(a, b int) bool { return size[byWork[a]] > size[byWork[b]] })
	errs := make([]error, len(comps))
	par.Do(len(comps), s.jobs(), func(k int) error {
		i := byWork[k]
		errs[i] = subs[i].RunTo(splitEnd - 1)
		return nil
	})
	for _, e := range errs {
		if e == nil {
			continue
		}
		if ctx := s.opts.Context; ctx != nil && ctx.Err() != nil {
			return true, ctx.Err()
		}
		return true, s.relower()
	}
	// Functions a component's phases added (the DDIV slow paths; only
	// the one component with DDIVs adds any, see components) go to the
	// module's end, where the serial compilation appends them.
	for i, sub := range subs {
		in := make(map[*ori.Func]bool, len(comps[i]))
		for _, f := range comps[i] {
			in[f] = true
		}
		for _, f := range sub.cur.Funcs {
			if !in[f] {
				m.Funcs = append(m.Funcs, f)
			}
		}
	}
	backends := make([]*Backend, len(subs))
	for i, sub := range subs {
		backends[i] = sub.backend
	}
	s.backend = mergeBackends(m, backends)
	s.pos, s.splitInto = splitEnd, len(comps)
	return true, nil
}

// relower replaces the current IR, which the failed split left half
// compiled, by a fresh lowering, so that the serial run starts over.
func (s *Session) relower() error {
	m, err := lower.Lower(s.PTX, s.lowerOpts)
	if err != nil {
		return err
	}
	s.Lowered, s.cur, s.backend, s.pos = m, m, nil, 0
	s.serialOnly = true
	return nil
}
