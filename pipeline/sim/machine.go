package sim

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"orilab/pipeline/ori"
)

// Launch describes one kernel launch.
type Launch struct {
	Grid, Block   [3]int
	DynamicShared int
	// Params holds the bytes of each kernel parameter, in order; they are
	// placed in constant bank 0 at the offsets the lowering chose.
	Params [][]byte
	// Textures are the launch's texture bindings (texture.go); the
	// handle of Textures[i] is i+1.
	Textures []*Texture
	// TexRefs maps a .texref or .surfref name to the index in Textures
	// of the binding bound to it; the launch writes its handle into the
	// kernel's header word for the name.
	TexRefs map[string]int
}

// Options tunes a run.
type Options struct {
	// MaxWarpSteps ends a run that does not terminate. Zero means
	// DefaultMaxWarpSteps.
	MaxWarpSteps int64
	// LocalBytes is the per-thread local window (stack). Zero sizes it from
	// the module: every function's frame, with room for call depth.
	LocalBytes int
	// Context, when set, ends the run early once it is done (a bisection's
	// --timeout, a cancel key): a kernel that loops takes seconds to reach
	// MaxWarpSteps. It is polled every ctxPollSteps warp-steps.
	Context context.Context
	// Provenance, when set, records which PTX line produced every value
	// written (see Provenance); nil runs at full speed.
	Provenance *Provenance
	// MUFU, when set, sees every result of a 32-bit MUFU (fn is the
	// function, "TANH", "EX2", ...; x the operand; y the model's result)
	// and returns the result to write instead. It is how the recorded
	// hardware programs are made to yield single-instruction data: a tool
	// perturbs one function's results and watches which outputs start to
	// agree with the hardware (pipeline's mufuextract tool, issue 18).
	// nil writes the models' results. The F16 forms and RCP64H/RSQ64H do
	// not call it.
	MUFU func(fn string, x, y uint32) uint32
}

// ctxPollSteps is how often a run checks Options.Context: a power of two,
// rare enough to cost nothing per step, and some 100 µs of simulation.
const ctxPollSteps = 1 << 12

// DefaultMaxWarpSteps is the step limit when Options.MaxWarpSteps is 0.
const DefaultMaxWarpSteps = 50_000_000

// Stats describes a finished run.
type Stats struct {
	WarpSteps   int64 // instructions issued, counted once per warp
	ThreadInsts int64 // instructions executed, counted once per thread
}

// Fault is a run-time error tied to an instruction and a thread.
type Fault struct {
	Kernel string
	Func   string
	Inst   int32 // instruction ID
	Op     string
	CTA    [3]int
	Thread [3]int
	Msg    string
}

func (e *Fault) Error() string {
	where := ""
	if e.Func != e.Kernel {
		where = " in " + e.Func
	}
	return fmt.Sprintf("kernel %s%s: instruction #%d (%s), thread (%d,%d,%d) of CTA (%d,%d,%d): %s",
		e.Kernel, where, e.Inst, e.Op, e.Thread[0], e.Thread[1], e.Thread[2], e.CTA[0], e.CTA[1], e.CTA[2], e.Msg)
}

// Physical register layout of a warp: R0-R254 in slots 0-254 (RZ is
// never stored), UR0-UR62 from uniformBase. Predicates likewise: P0-P6 at
// 0-6, UP0-UP6 from uniformBase.
const (
	uniformBase = 256
	physSlots   = uniformBase + 64
	warpSize    = 32
)

type machine struct {
	mod      *ori.Module
	codes    map[string]*code
	kernel   *code
	launch   Launch
	global   *Global
	bank     [5][]byte // constant banks 0-4
	sharedW  uint64    // generic base of the shared window
	localW   uint64
	constW   uint64  // generic base of the constant (bank 3) window
	paramW   uint64  // generic base of the kernel-parameter (bank 0) window; 0: none
	funcs    []*code // the module's functions in order: function addresses index it
	local    int     // per-thread local bytes
	shared   int     // per-CTA shared bytes
	steps    int64
	maxSteps int64
	ctx      context.Context // Options.Context
	tinsts   int64
	cta      *cta
	ctaID    [3]int
	prov     *Provenance
	mufu     func(fn string, x, y uint32) uint32 // Options.MUFU
}

type cta struct {
	id     [3]int
	shared []byte
	warps  []*warp
	bars   map[int32]*barrier
}

// barrier is the state of one CTA barrier (BAR id).
type barrier struct {
	arrived int    // threads counted so far
	want    int    // threads needed, 0 = every live thread
	red     uint32 // BAR.RED accumulator
	redN    int
	waiters []barWaiter
}

type barWaiter struct {
	w    *warp
	mask uint32
	d    *dinst
	f    *frame
}

type warp struct {
	id      int
	cta     *cta
	live    uint32 // lanes that exist
	exited  uint32
	tid     [warpSize][3]int
	phys    []uint32 // physSlots * 32
	ppred   [physSlots]uint32
	frames  []*frame
	local   []byte // warpSize * local bytes
	barWait uint32 // lanes waiting at a CTA barrier
	// barRes[l] is the reduction of the last BAR.RED without a result
	// that lane l passed, which B2R.RESULT reads.
	barRes [warpSize]uint32
	conv   uint32 // lanes waiting at WARPSYNC/BSYNC
	// convNeed[l] is the set of threads lane l waits for; convFrame[l] the
	// frame it waits in. bssy holds the convergence barriers B0-B15.
	convNeed  [warpSize]uint32
	convFrame [warpSize]*frame
	convKind  [warpSize]int8 // -1 WARPSYNC, b for BSYNC b
	bssy      [16]uint32
	done      bool
}

type frame struct {
	c      *code
	pc     [warpSize]int32
	active uint32 // lanes that entered this frame
	done   uint32 // lanes that returned
	regs   []uint32
	preds  []uint32
	// from[l] is the ID of the block lane l arrived from at the block it
	// is in (-1 on entry, unless the function starts with empty blocks):
	// the predecessor a MOV.PHI takes its value for. It follows the edge
	// the thread took, so a run of empty blocks it passed through counts.
	from [warpSize]int32
	// ret is the return point of the CALL that pushed the frame
	// (dinst.retPoint); RET.REL.NODEC faults unless its register pair
	// holds it, as the hardware would return elsewhere.
	ret uint32
}

func newFrame(c *code, active uint32) *frame {
	f := &frame{c: c, active: active, regs: make([]uint32, c.nSlots*warpSize), preds: make([]uint32, c.nPreds)}
	for i := range f.from {
		f.from[i] = c.entryFrom
	}
	return f
}

// ErrStepLimit is wrapped by the error of a run that hit its warp-step
// limit: the kernel hangs, or needs a higher limit.
var ErrStepLimit = errors.New("step limit reached")

// Run executes kernel in m for a launch. g holds the buffers; the
// module's .global variables are allocated in it too.
func Run(m *ori.Module, kernel string, l Launch, g *Global, opts Options) (*Stats, error) {
	codes, err := decodeModule(m)
	if err != nil {
		return nil, err
	}
	k := codes[kernel]
	if k == nil || !k.fn.Entry {
		return nil, fmt.Errorf("kernel %s is not an .entry of the module", kernel)
	}
	for i := 0; i < 3; i++ {
		if l.Grid[i] == 0 {
			l.Grid[i] = 1
		}
		if l.Block[i] == 0 {
			l.Block[i] = 1
		}
		if l.Grid[i] < 0 || l.Block[i] < 0 {
			return nil, fmt.Errorf("launch dimensions must be positive")
		}
	}
	if n := l.Block[0] * l.Block[1] * l.Block[2]; n > 1024 {
		return nil, fmt.Errorf("block of %d threads exceeds the 1024-thread limit", n)
	}
	if len(l.Params) != len(k.fn.Params) {
		return nil, fmt.Errorf("kernel %s takes %d parameters, the launch passes %d", kernel, len(k.fn.Params), len(l.Params))
	}
	s := &machine{mod: m, codes: codes, kernel: k, launch: l, global: g, maxSteps: opts.MaxWarpSteps, ctx: opts.Context, prov: opts.Provenance, mufu: opts.MUFU}
	if s.prov != nil {
		s.prov.init()
	}
	if s.maxSteps == 0 {
		s.maxSteps = DefaultMaxWarpSteps
	}
	s.sharedW, s.localW, s.constW = windows(m.AddressSize)
	if m.AddressSize == 64 {
		s.paramW = 4 << 32
	}
	for _, f := range m.Funcs {
		s.funcs = append(s.funcs, codes[f.Name])
	}
	s.local = opts.LocalBytes
	if s.local == 0 {
		s.local = 1024
		for _, f := range m.Funcs {
			s.local += int(f.LocalBytes) * 8
		}
		s.local = (s.local + 15) &^ 15
	}
	s.shared = int((k.fn.SharedBytes+15)&^15) + l.DynamicShared
	if err := s.setupBanks(); err != nil {
		return nil, err
	}
	for z := 0; z < l.Grid[2]; z++ {
		for y := 0; y < l.Grid[1]; y++ {
			for x := 0; x < l.Grid[0]; x++ {
				if err := s.runCTA([3]int{x, y, z}); err != nil {
					return nil, err
				}
			}
		}
	}
	return &Stats{WarpSteps: s.steps, ThreadInsts: s.tinsts}, nil
}

func (s *machine) setupBanks() error {
	l := s.launch
	end := ParamEnd(s.kernel.fn)
	for _, t := range s.kernel.fn.TexRefs {
		if t.Offset+4 > end {
			end = t.Offset + 4
		}
	}
	b0 := make([]byte, 0x1000+int(end))
	for i := 0; i < 3; i++ {
		putLE(b0[0x0+4*i:], uint64(l.Block[i]), 4)
		putLE(b0[0xc+4*i:], uint64(l.Grid[i]), 4)
	}
	putLE(b0[0x18:], s.sharedW, 8)
	putLE(b0[0x20:], s.localW, 8)
	putLE(b0[0x28:], uint64(s.local), 4)
	putLE(b0[0x30:], uint64(l.DynamicShared), 4)
	putLE(b0[0x34:], uint64(s.shared), 4)
	putLE(b0[0x38:], s.constW, 8)
	putLE(b0[0x40:], s.paramW, 8)
	for i, p := range s.kernel.fn.Params {
		v := l.Params[i]
		if int64(len(v)) != p.Size {
			return fmt.Errorf("parameter %d (%s) takes %d bytes, the launch passes %d", i, p.Name, p.Size, len(v))
		}
		copy(b0[p.Offset:], v)
	}
	for i, t := range l.Textures {
		if err := checkTexture(i, t); err != nil {
			return err
		}
	}
	for _, t := range s.kernel.fn.TexRefs {
		// An unbound .texref keeps handle 0: a fetch through it
		// faults (texture.go), a kernel that does not fetch is fine.
		if i, ok := l.TexRefs[t.Name]; ok && i >= 0 && i < len(l.Textures) {
			putLE(b0[t.Offset:], uint64(i+1), 4)
		}
	}
	s.bank[0] = b0
	// Bank 2 is the kernel's literal pool (ori.Func.Literals).
	b2 := make([]byte, 8*len(s.kernel.fn.Literals))
	for i, v := range s.kernel.fn.Literals {
		putLE(b2[8*i:], v, 8)
	}
	s.bank[2] = b2
	var constSize, slots int64
	for _, gv := range s.mod.Globals {
		switch gv.Space {
		case ori.SpaceConst:
			if e := gv.Offset + gv.Size; e > constSize {
				constSize = e
			}
		case ori.SpaceGlobal:
			if e := gv.AddrSlot + 8; e > slots {
				slots = e
			}
		}
	}
	s.bank[3] = make([]byte, constSize+16)
	s.bank[4] = make([]byte, slots+16)
	for _, gv := range s.mod.Globals {
		switch gv.Space {
		case ori.SpaceConst:
			copy(s.bank[3][gv.Offset:], gv.Init)
		case ori.SpaceGlobal:
			a := s.global.Alloc(gv.Name, int(gv.Size))
			copy(a.Data, gv.Init)
			putLE(s.bank[4][gv.AddrSlot:], a.Base, 8)
		}
	}
	return nil
}

// ParamEnd returns the first bank-0 offset after a kernel's parameters.
func ParamEnd(f *ori.Func) int64 {
	var end int64
	for _, p := range f.Params {
		if e := p.Offset + p.Size; e > end {
			end = e
		}
	}
	return end
}

func (s *machine) runCTA(id [3]int) error {
	l := s.launch
	c := &cta{id: id, shared: make([]byte, s.shared), bars: map[int32]*barrier{}}
	s.cta, s.ctaID = c, id
	n := l.Block[0] * l.Block[1] * l.Block[2]
	for wi := 0; wi*warpSize < n; wi++ {
		w := &warp{id: wi, cta: c, phys: make([]uint32, physSlots*warpSize), local: make([]byte, warpSize*s.local)}
		for lane := 0; lane < warpSize; lane++ {
			t := wi*warpSize + lane
			if t >= n {
				break
			}
			w.live |= 1 << lane
			w.tid[lane] = [3]int{t % l.Block[0], t / l.Block[0] % l.Block[1], t / (l.Block[0] * l.Block[1])}
		}
		w.ppred[7] = ^uint32(0)
		w.ppred[uniformBase+7] = ^uint32(0)
		w.frames = []*frame{newFrame(s.kernel, w.live)}
		c.warps = append(c.warps, w)
	}
	// Round-robin with a fixed quantum keeps runs deterministic and gives
	// spinning warps a fair share.
	const quantum = 256
	for {
		progress := false
		alive := false
		for _, w := range c.warps {
			if w.done {
				continue
			}
			alive = true
			for i := 0; i < quantum && !w.done; i++ {
				ran, err := s.step(w)
				if err != nil {
					return err
				}
				if !ran {
					// A warp whose last thread exited at the end of the
					// previous quantum finishes only now: that is
					// progress, not a deadlock.
					if w.done {
						progress = true
					}
					break
				}
				progress = true
			}
		}
		if !alive {
			return nil
		}
		released, err := s.releaseBarriers(c)
		if err != nil {
			return err
		}
		if !progress && !released {
			return s.deadlock(c)
		}
	}
}

// runnable returns the lanes of the top frame that can execute.
func (w *warp) runnable(f *frame) uint32 {
	return f.active &^ f.done &^ w.exited &^ w.barWait &^ w.conv
}

// step executes one instruction of w for the threads at the lowest
// program counter. It reports false when the warp cannot run (finished or
// waiting).
func (s *machine) step(w *warp) (bool, error) {
	for {
		if len(w.frames) == 0 {
			w.done = true
			return false, nil
		}
		f := w.frames[len(w.frames)-1]
		if f.active&^w.exited&^f.done == 0 {
			// Every thread of the frame returned or exited: pop it.
			w.frames = w.frames[:len(w.frames)-1]
			if len(w.frames) == 0 {
				w.done = true
				return false, nil
			}
			continue
		}
		run := w.runnable(f)
		if run == 0 {
			return false, nil
		}
		pc := int32(1 << 30)
		for m := run; m != 0; m &= m - 1 {
			if p := f.pc[bits.TrailingZeros32(m)]; p < pc {
				pc = p
			}
		}
		var mask uint32
		for m := run; m != 0; m &= m - 1 {
			lane := bits.TrailingZeros32(m)
			if f.pc[lane] == pc {
				mask |= 1 << lane
			}
		}
		if int(pc) >= len(f.c.insts) {
			return false, s.fault(w, f, nil, mask, "the thread ran past the end of the function (no EXIT or RET)")
		}
		s.steps++
		if s.ctx != nil && s.steps&(ctxPollSteps-1) == 0 && s.ctx.Err() != nil {
			return false, fmt.Errorf("kernel %s stopped after %d warp-steps: %w", s.kernel.fn.Name, s.steps, s.ctx.Err())
		}
		if s.steps > s.maxSteps {
			return false, fmt.Errorf("kernel %s did not finish within %d warp-steps (raise the limit with --max-steps): %w", s.kernel.fn.Name, s.maxSteps, ErrStepLimit)
		}
		s.tinsts += int64(bits.OnesCount32(mask))
		d := &f.c.insts[pc]
		var wrote uint32
		if d.uniformDst {
			wrote = s.guardMask(w, f, d, mask)
		}
		if s.prov != nil {
			eff, pd := s.guardMask(w, f, d, mask), s.prov.before(s, w, f, d, mask)
			if err := d.exec(s, w, f, d, mask); err != nil {
				return false, err
			}
			s.prov.after(s, w, f, d, eff, pd)
		} else if err := d.exec(s, w, f, d, mask); err != nil {
			return false, err
		}
		if d.last && !d.jumps {
			for m := mask; m != 0; m &= m - 1 {
				f.from[bits.TrailingZeros32(m)] = d.fall
			}
		}
		if wrote != 0 {
			s.broadcastUniform(w, f, d, bits.TrailingZeros32(wrote))
		}
		return true, nil
	}
}

// broadcastUniform gives every lane of the warp the value that lane from
// wrote into d's UR/UP results: a uniform register holds one value per
// warp, written by whichever threads run the instruction, even when the
// warp is diverged. (The instruction itself computes per lane, reading
// each lane's copy, so no lane sees another's result mid-instruction.)
func (s *machine) broadcastUniform(w *warp, f *frame, d *dinst, from int) {
	for i := range d.dst {
		o := &d.dst[i]
		if !o.uniform || o.zero {
			continue
		}
		switch o.kind {
		case okReg:
			regs := f.regs
			if o.phys {
				regs = w.phys
			}
			for word := 0; word < int(o.words); word++ {
				at := (int(o.slot) + word) * warpSize
				v := regs[at+from]
				for l := 0; l < warpSize; l++ {
					regs[at+l] = v
				}
			}
		case okPred:
			var p *uint32
			if o.phys {
				p = &w.ppred[o.slot]
			} else {
				p = &f.preds[o.slot]
			}
			if *p&(1<<from) != 0 {
				*p = ^uint32(0)
			} else {
				*p = 0
			}
		}
	}
}

// advance moves the lanes in mask to the next instruction.
func advance(f *frame, mask uint32) {
	for m := mask; m != 0; m &= m - 1 {
		f.pc[bits.TrailingZeros32(m)]++
	}
}

// guardMask returns the lanes of mask whose guard predicate holds.
func (s *machine) guardMask(w *warp, f *frame, d *dinst, mask uint32) uint32 {
	g := &d.guard
	if g.zero && !g.not {
		return mask
	}
	return s.pred(w, f, g) & mask
}

func (s *machine) fault(w *warp, f *frame, d *dinst, mask uint32, format string, args ...any) error {
	lane := bits.TrailingZeros32(mask)
	if lane >= warpSize {
		lane = 0
	}
	e := &Fault{Kernel: s.kernel.fn.Name, Func: f.c.fn.Name, CTA: s.ctaID, Thread: w.tid[lane], Msg: fmt.Sprintf(format, args...)}
	if d != nil {
		e.Inst = d.in.ID
		e.Op = d.in.Name()
	}
	return e
}

func (s *machine) faultLane(w *warp, f *frame, d *dinst, lane int, format string, args ...any) error {
	return s.fault(w, f, d, 1<<lane, format, args...)
}
