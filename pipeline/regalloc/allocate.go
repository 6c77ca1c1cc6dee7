package regalloc

import (
	"fmt"
	"io"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// Options configures one allocation.
type Options struct {
	Arch     int // SM number (75 for sm_75): decides the ABI register minimum
	OptLevel int // -O level; -O0 makes one NOSPILL trial instead of two
	// MaxRegs is --maxrregcount, a register count as ptxas reports it
	// (HiddenRegs included: the highest R register used stays below
	// MaxRegs-HiddenRegs). 0 means no limit (255).
	MaxRegs int
	// Knobs holds the RA knobs (knobs.go); nil means every knob has its
	// default.
	Knobs *knobs.Set
	// Log, when set, receives the NOSPILL/SPILL attempt lines and, with
	// RegAllocPrintDetails, the allocator's guidance.
	Log io.Writer
	// Callees holds, by name, what a call to each whole-seen callee of
	// the function may change (ori.Clobbers of the allocated callee);
	// calls to them clobber only that, and a whole-seen function saves
	// nothing (interproc.go). Nil allocates every call under the ABI
	// and saves the callee-saved registers in every .func.
	Callees map[string]ori.RegSet
}

// Attempt is one allocation attempt of one register class.
type Attempt struct {
	Class   string `json:"class"`   // "R", "UR", "P" or "UP"
	Mode    string `json:"mode"`    // "NOSPILL" or "SPILL"
	N       int    `json:"n"`       // attempt number within the mode
	Used    int    `json:"used"`    // registers used: one past the highest (R counts R0-R3)
	Target  int    `json:"target"`  // the register budget
	Spilled int    `json:"spilled"` // values in memory (or recomputed) during the attempt
	OK      bool   `json:"ok"`      // the attempt fit the target and is the result
}

// Stats describes the allocation of one function.
type Stats struct {
	// Regs is the number of R registers used, counted as ptxas does: the
	// highest R register used plus one plus HiddenRegs.
	Regs int `json:"regs"`
	// URegs, Preds and UPreds count UR, P and UP registers the same way
	// (highest plus one; 0 when none is used).
	URegs  int `json:"uregs"`
	Preds  int `json:"preds"`
	UPreds int `json:"upreds"`
	// Target is the R register budget the allocation aimed at, counted
	// as Regs is.
	Target int `json:"target"`
	// SpillStores and SpillLoads count the STL (role spill) and LDL (role
	// refill) instructions; the byte counts add their access sizes.
	SpillStores     int `json:"spill_stores"`
	SpillLoads      int `json:"spill_loads"`
	SpillStoreBytes int `json:"spill_store_bytes"`
	SpillLoadBytes  int `json:"spill_load_bytes"`
	// PredSpills and PredRefills count the SEL/USEL and ISETP/UISETP that
	// keep spilled predicates in R (UR) registers.
	PredSpills  int `json:"pred_spills"`
	PredRefills int `json:"pred_refills"`
	// Remats counts rematerialization instructions.
	Remats int `json:"remats"`
	// SpilledValues and RematValues count the virtual registers that were
	// spilled (to memory or a holder register) and rematerialized.
	SpilledValues int `json:"spilled_values"`
	RematValues   int `json:"remat_values"`
	// CoalescedMoves counts the copies deleted because both sides got
	// one register; DroppedRefills the refills and remat clones deleted
	// because their register already held the value (refills.go).
	CoalescedMoves int `json:"coalesced_moves"`
	DroppedRefills int `json:"dropped_refills"`
	// DroppedStores counts spill stores deleted because a later store to
	// the same slot overwrote them unread.
	DroppedStores int `json:"dropped_stores"`
	// StackFrame is f.LocalBytes after allocation: .local variables plus
	// spill slots, rounded to 16.
	StackFrame int64 `json:"stack_frame"`
	// Attempts lists every attempt, class by class in allocation order
	// (UP, P, UR, R): the NOSPILL trials, then the SPILL retries.
	Attempts []Attempt `json:"attempts"`
	// Warnings are ptxas-style warnings, such as 7016 for a register
	// limit below the ABI minimum.
	Warnings []string `json:"warnings,omitempty"`
}

// reservedR is the number of ABI-reserved R registers (R0-R3).
const reservedR = 4

// HiddenRegs is what ptxas adds to the highest R register used plus one
// when it reports a register count (-v, EIATTR_REGCOUNT) and what it
// keeps free under --maxrregcount.
//
// Decision: orilab counts the same way. Measured with ptxas 13.0.88: its
// count is the highest register named in its SASS plus 3 in 60 of 60
// single-kernel ZLUDA files (an empty kernel, R1 only, reports 4), and
// under --maxrregcount N its highest register is at most R(N-3). The wiki
// has "total_R_regs = reserved + allocated" (001:8545). No GPU has told
// whether a cubin with the smaller count runs, so the cubin asks for what
// ptxas's would.
const HiddenRegs = 2

// lowRegisters reports whether the R allocation of f may use R0, R2 and
// R3 (knob RegAllocLowRegisters). R0-R3 are reserved by the calling
// convention (001:20829: the parameter allocator marks them occupied),
// so a .func and a kernel that make calls under the ABI keep starting at
// R4; a kernel without calls has no convention to honour, and ptxas gives
// it R0, R2 and R3 like any other register (60 of 60 single-kernel ZLUDA
// files: the highest register ptxas names is its reported count minus
// 3). Nor does a kernel or whole-seen .func whose calls all go to
// whole-seen callees (interproc.go): ptxas keeps a kernel's value in R0
// across such a call.
func (a *allocator) lowRegisters() bool {
	if !a.set.lowRegs || !a.f.Entry && !a.calls.private(a.f) {
		return false
	}
	return a.calls.onlyPrivateCalls(a.f)
}

// abiMinimum returns ptxas's minimum register count for functions that
// use the calling convention (001:20753-20766): 16 for sm_35-sm_53, 24
// for sm_60-sm_90a, no minimum before or after.
func abiMinimum(arch int) int {
	switch {
	case arch >= 35 && arch < 60:
		return 16
	case arch >= 60 && arch <= 90:
		return 24
	}
	return 0
}

// allocator is one Allocate call.
type allocator struct {
	f     *ori.Func
	opts  Options
	set   settings
	stats *Stats
	freq  []float64
	calls callModel
	// keep holds copies that are not deleted even when they become
	// "MOV Rx = Rx".
	keep map[*ori.Inst]bool
	// scr holds the buffers every class's problem and attempts reuse
	// (scratch.go).
	scr *scratch
}

// Allocate assigns physical registers to every virtual register of f,
// spilling to local memory and rematerializing as needed, and returns
// the statistics. See the package documentation for the algorithm. On
// error f may be partly rewritten; callers allocate a copy when they need
// the original.
func Allocate(f *ori.Func, opts Options) (*Stats, error) {
	scr := scratchPool.Get().(*scratch)
	// On every return: the spares have dropped their references to f
	// (scratch.recycle), and every buffer is reset before its next use.
	defer scratchPool.Put(scr)
	return allocate(f, opts, scr)
}

// allocate is Allocate with the buffers of scr.
func allocate(f *ori.Func, opts Options, scr *scratch) (*Stats, error) {
	set, err := readSettings(opts.Knobs, f.Name, opts.OptLevel)
	if err != nil {
		return nil, err
	}
	a := &allocator{f: f, opts: opts, set: set, stats: &Stats{}, keep: map[*ori.Inst]bool{}, calls: callModel{callees: opts.Callees}, scr: scr}
	if err := a.check(); err != nil {
		return nil, err
	}
	hoistPrologue(f)
	target := a.rTarget()
	a.stats.Target = target + HiddenRegs
	// Predicates first: their spills create R (UR) holder registers that
	// the R (UR) allocation then places.
	for _, c := range []ori.RegClass{ori.ClassUP, ori.ClassP, ori.ClassUR, ori.ClassR} {
		if err := a.class(c, target); err != nil {
			return nil, err
		}
	}
	return a.stats, a.finish()
}

// check rejects code the allocator does not handle.
func (a *allocator) check() error {
	for _, b := range a.f.Blocks {
		for _, in := range b.Insts {
			if in.IsPhi() {
				return fmt.Errorf("regalloc: %s BB%d #%d: MOV.PHI reaches register allocation; the partial-SSA form must be converted to moves first", a.f.Name, b.ID, in.ID)
			}
			if (in.Op == ori.OpP2R || in.Op == ori.OpR2P) && hasVirtual(in) {
				// R2P writes predicates its operands do not name, which the
				// liveness cannot see.
				return fmt.Errorf("regalloc: %s BB%d #%d: %s before register allocation is not supported (it reads or writes predicates implicitly)", a.f.Name, b.ID, in.ID, in.Name())
			}
		}
	}
	return nil
}

func hasVirtual(in *ori.Inst) bool {
	found := false
	eachReg(in, func(r ori.Reg, _ bool) { found = found || r.Virtual })
	return found
}

// rTarget computes the R register budget: --maxrregcount, raised to the
// ABI minimum for functions that use the calling convention.
//
// Decision: ptxas enforces its ABI minimum (24 registers on sm_60-sm_90)
// where the calling convention is in use, and orilab applies it exactly
// there: to a .func and to a kernel that makes calls, with warning 7016.
// A kernel without calls has no ABI frame to honour, so --maxrregcount is
// taken as given, down to what the kernel's widest instruction needs
// (below that allocation fails with ptxas's error).
func (a *allocator) rTarget() int {
	t := a.opts.MaxRegs
	if t <= 0 || t > ori.ClassR.Limit() {
		t = ori.ClassR.Limit()
	}
	usesABI := !a.f.Entry
	for _, b := range a.f.Blocks {
		for _, in := range b.Insts {
			usesABI = usesABI || in.Op == ori.OpCALL
		}
	}
	if m := abiMinimum(a.opts.Arch); usesABI && t < m {
		a.stats.Warnings = append(a.stats.Warnings, fmt.Sprintf("warning 7016: %s: regcount %d specified below abi_minimum of %d", a.f.Name, t, m))
		t = m
	}
	return t - HiddenRegs
}

// class allocates one register class.
func (a *allocator) class(c ori.RegClass, rTarget int) error {
	if err := a.f.ComputeCFG(); err != nil {
		return fmt.Errorf("regalloc: %w", err)
	}
	if a.freq == nil {
		a.freq = blockFrequencies(a.f, a.set.loopIters)
	}
	p, err := newProblem(a.f, c, a.freq, a.lowRegisters(), a.set.trimUndef, a.set.wordRanges, a.calls, a.scr)
	if err != nil {
		return err
	}
	if len(p.vregs) == 0 {
		a.scr.releaseProblem(p)
		return nil
	}
	p.coalesce = a.set.coalescing
	p.sameValue = a.set.sameValue
	for _, v := range p.vregs {
		v.remat = a.set.remat && rematerializable(v) &&
			!(a.set.rematRange != nil && a.set.rematRange.Contains(v.def.ID))
	}
	p.computeCosts()
	target, targets := p.limit, []int(nil)
	if c == ori.ClassR {
		target = rTarget
		for _, t := range a.set.targets {
			targets = append(targets, min(t-HiddenRegs, rTarget))
		}
	}
	res, err := a.allocateClass(p, target, targets)
	if err != nil {
		return err
	}
	if c == ori.ClassR {
		a.stats.Target = res.target + HiddenRegs
	}
	var homes map[int]home
	frame := a.f.LocalBytes
	switch c {
	case ori.ClassR:
		homes, frame = p.memoryHomes(res.spilled, a.f.LocalBytes)
	case ori.ClassP:
		homes = p.holderHomes(res.spilled, ori.ClassR)
	case ori.ClassUP:
		homes = p.holderHomes(res.spilled, ori.ClassUR)
	case ori.ClassUR:
		for _, vi := range spilledValues(res.spilled) {
			if !p.vregs[vi].remat {
				v := p.vregs[vi]
				return p.errorf(v.acc[0].g, "uniform register %s must be spilled (%s), but orilab cannot move a value from an R register back to a UR register (no R2UR)",
					p.name(vi), a.spillReason(v))
			}
		}
	}
	for _, vi := range spilledValues(res.spilled) {
		if p.vregs[vi].remat {
			a.stats.RematValues++
		} else {
			a.stats.SpilledValues++
		}
	}
	p.rewrite(res, homes, a.keep)
	p.recycle(res.at)
	a.scr.releaseProblem(p)
	// After the rewrite, which rebuilds the blocks from the analysed
	// instruction list.
	if frame > a.f.LocalBytes {
		setFrame(a.f, alignFrame(frame))
	}
	return nil
}

func (a *allocator) spillReason(v *vreg) string {
	if v.mustSpill {
		return "it is live across a call"
	}
	return "the class does not fit in its registers"
}

// record adds an attempt to the statistics and the log.
func (a *allocator) record(r Attempt) {
	if r.Class == "R" {
		// Counted as ptxas reports registers (HiddenRegs).
		r.Used += HiddenRegs
		r.Target += HiddenRegs
	}
	a.stats.Attempts = append(a.stats.Attempts, r)
	if a.opts.Log == nil {
		return
	}
	if r.Mode == "NOSPILL" {
		fmt.Fprintf(a.opts.Log, "%s-CLASS NOSPILL REGALLOC: attemp %d, used %d, target %d\n", r.Class, r.N, r.Used, r.Target)
	} else {
		fmt.Fprintf(a.opts.Log, "%s-CLASS SPILL REGALLOC: attemp %d, used %d, target %d, spilled %d\n", r.Class, r.N, r.Used, r.Target, r.Spilled)
	}
}

// detail writes a guidance line when RegAllocPrintDetails is set.
func (a *allocator) detail(format string, args ...any) {
	if a.set.print && a.opts.Log != nil {
		fmt.Fprintf(a.opts.Log, "  "+format+"\n", args...)
	}
}

// finish rounds the frame, deletes coalesced copies and counts. It
// reports a virtual register left in f, which would be an allocator bug
// (in the same walk: nothing changes the code after it).
func (a *allocator) finish() error {
	f, st := a.f, a.stats
	if f.LocalBytes > 0 {
		setFrame(f, alignFrame(f.LocalBytes))
	}
	st.DroppedRefills, st.DroppedStores = dropRedundantRefills(f)
	saveCalleeSaved(f, a.calls)
	st.StackFrame = f.LocalBytes
	high := [ori.NumClasses]int{}
	var leftErr error
	for _, b := range f.Blocks {
		kept := b.Insts[:0]
		for _, in := range b.Insts {
			if isSelfMove(in) && !a.keep[in] {
				st.CoalescedMoves++
				continue
			}
			kept = append(kept, in)
			var left ori.Reg
			eachReg(in, func(r ori.Reg, _ bool) {
				if r.Virtual {
					left = r
				} else if !r.IsZero() {
					if h := int(r.N) + int(r.Words); h > high[r.Class] {
						high[r.Class] = h
					}
				}
			})
			if left.Virtual && leftErr == nil {
				leftErr = fmt.Errorf("regalloc: %s BB%d #%d: internal error: %s is still virtual after allocation", a.f.Name, b.ID, in.ID, left)
			}
			switch in.Role {
			case ori.RoleSpill:
				if in.Op == ori.OpSTL {
					st.SpillStores++
					st.SpillStoreBytes += localAccessBytes(in)
				} else {
					st.PredSpills++
				}
			case ori.RoleRefill:
				if in.Op == ori.OpLDL {
					st.SpillLoads++
					st.SpillLoadBytes += localAccessBytes(in)
				} else {
					st.PredRefills++
				}
			case ori.RoleRemat:
				st.Remats++
			}
		}
		b.Insts = kept
	}
	st.Regs = max(high[ori.ClassR], 2) + HiddenRegs
	st.URegs, st.Preds, st.UPreds = high[ori.ClassUR], high[ori.ClassP], high[ori.ClassUP]
	return leftErr
}

// isSelfMove reports whether in is a copy of a register onto itself.
func isSelfMove(in *ori.Inst) bool {
	if in.Op != ori.OpMOV && in.Op != ori.OpUMOV || len(in.Mods) > 0 || len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		return false
	}
	d, s := in.Dsts[0], in.Srcs[0]
	return d.Kind == ori.OpdReg && s.Kind == ori.OpdReg && !d.Reg.Virtual && d.Reg == s.Reg &&
		!s.Neg && !s.Abs && !s.Not
}

// localAccessBytes is the access size of a local load or store.
func localAccessBytes(in *ori.Inst) int {
	switch {
	case in.HasMod("128"):
		return 16
	case in.HasMod("64"):
		return 8
	}
	return 4
}
