package opt

// Rematerialization: the SinkRemat (29), OriDoRematEarly (59) and
// OriDoRemat (76) phases. All three run the same rematerialization
// engine; SinkRemat first sinks (sink.go), as ptxas's per-instruction
// worker tries sinking before it duplicates (001:15346-15356, 15626).
// Decision: the late positions do not sink themselves, because
// SinkCodeIntoBlock (77), the same sinking, runs right after OriDoRemat
// and also catches what the deletion of rematerialized originals frees.
//
// What rematerialization does. A cheap value that is kept in a register
// from its definition I to a distant use is recomputed next to that use
// instead: the instructions that compute it are cloned, into fresh virtual
// registers, right before the first distant use in the use block U, and
// the reads there are pointed at the clone. When every read of I's result
// has been redirected, I itself is deleted. The value no longer occupies a
// register between I and U, at the price of one more instruction per
// clone (001:15053-15064 explains why GPUs favour the trade).
//
// Eligibility follows the wiki's whitelist (15362-15376): MOV, IADD3,
// IMAD, SHF, LOP3, SEL, ISETP and constant loads (LDC; a MOV from a
// constant bank is the common case), plus S2R of a special register whose
// reads never differ (thread and CTA indices, lane masks; see cmStableSR).
// Each cloned instruction must be unguarded, the only definition of every
// word it writes, execute before the use on every path (dominate it), and
// read no physical register. ISETP, which produces a predicate, is
// rematerialized only with RematEnablePReg, and a guard is not pointed at
// a clone when the guarded instruction reads a value defined under the
// same predicate: the post-allocation verifier pairs guarded definitions
// and reads by predicate register and cannot prove the two equal.
//
// Sources (15378-15410). Every register a cloned instruction reads is
// either
//   - available: its words each have one unguarded definition that
//     dominates the instruction, and they are live before the use anyway,
//     so the clone reads the same value and stretches no live range; or
//   - rematerialized itself, recursively: the clones form a small tree
//     (at most RematCostInstLimit instructions) whose leaves are
//     immediates, constant-bank operands, stable special registers and
//     available registers. A 64-bit kernel parameter, two MOVs from bank
//     0, is a tree of two.
// The single-definition and dominance conditions make the value the clone
// computes equal to the value I computed: a path from I's last execution
// to the use cannot redefine a source without first passing through I.
//
// Cost model (a simplification of 15412-15426, with the knobs of
// 40548-40631). A candidate is a root I and a block U that reads it; the
// clones go before the first read in U that is
//   - at least RematMinDistance instructions after I in layout order (a
//     short live range gains nothing),
// and the candidate is considered only when
//   - after the redirection no read of I's result remains reachable from
//     there without passing through I, so the live range really ends
//     before U (use blocks are visited farthest first, so a value read in
//     two distant blocks can be freed from both);
//   - U does not run more often than I's block (U lies on no cycle that
//     avoids it). Decision: this is relaxed into "aggressive mode", which
//     also rematerializes into loops, when the function's R-register
//     pressure exceeds RematMaxRegCount;
//   - I's result is live where the pressure of its class peaks, and the
//     clones made in this run stay within RematInflationSlack.
// The register target (40593: "the pressure level below which
// rematerialization becomes profitable", occupancy-derived and scaled by
// RematRegTargetFactor) is the number of registers per thread that still
// gives full occupancy on the target (fullOccupancyRegs: 64 on sm_75, 32
// on sm_80, 40 on sm_86-89): while the peak R pressure is at or below it,
// nothing is cloned, as fewer registers would not let more warps run.
// Above it, candidates are applied in batches, each step kept only if it
// lowers the peak or the number of points at the peak, and a batch is
// committed only once the peak has dropped (see rematerialize), until the
// target is met. So the phase adds instructions only where they lower a
// peak that costs occupancy. Decision: the wiki gives no defaults for
// these knobs; orilab's are above (RematRegTargetFactor 1.0).
//
// Example (the address %r0.64 is read 30 instructions later, in BB3):
//
//	BB0: #1 MOV %r0 = c[0x0][0x160]      BB0: ...
//	     #2 MOV %r0[1] = c[0x0][0x164]   BB3: #40 MOV %r9 = c[0x0][0x160]
//	     ...                        =>        #41 MOV %r9[1] = c[0x0][0x164]
//	BB3: STG.E [%r0.64], %r7                  STG.E [%r9.64], %r7
//
// Positions. SinkRemat is ptxas's early sink+remat (15094-15192);
// OriDoRemat the late pass after predication (15194-15345). OriDoRematEarly
// is a no-op in ptxas unless a backend enables it (15091); here it
// runs the same engine when RematEarlyEnable is set (default off, as in
// ptxas). The commoning phases between SinkRemat and OriDoRemat merge an
// early clone of an S2R or of arithmetic back into its original where the
// original dominates it (MOV clones survive), so most rematerialization
// that lasts is OriDoRemat's: no commoning runs after it. All three run from -O2 ("Level <= 1: all three remat phases are
// disabled", 15554). ptxas's O5-only cutlass iteration mode is not built.
//
// Decision: clones are ordinary instructions (Role none, the original's
// line). ori.RoleRemat marks the register allocator's rematerializations,
// which the post-allocation verifier and the fault injector look for.
//
// Known limits: registers with several definitions (loop counters before
// SSA) are neither cloned nor used as available sources; reads by MOV.PHI
// are never redirected; instructions that read physical registers are not
// cloned.

import (
	"fmt"
	"sort"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	for _, k := range []knobs.Knob{
		{Name: "RematEnable", Type: knobs.TypeInt, Default: "1",
			Doc: "Master enable of late rematerialization (OriDoRemat); 0 switches the phase off."},
		{Name: "RematEarlyEnable", Type: knobs.TypeInt, Default: "0",
			Doc: "Enable the early remat position (OriDoRematEarly), a no-op by default as in ptxas."},
		{Name: "SinkRematEnable", Type: knobs.TypeInt, Default: "1",
			Doc: "Master enable of the early sink+remat phase (SinkRemat); 0 switches the phase off."},
		{Name: "RematEnablePReg", Type: knobs.TypeBool,
			Doc: "Also rematerialize predicate values (ISETP)."},
		{Name: "RematMinDistance", Type: knobs.TypeInt, Default: "8", Bounds: knobs.AtLeast(0),
			Doc: "Minimum distance in instructions from a definition to a use before the use is rematerialized."},
		{Name: "RematCostInstLimit", Type: knobs.TypeInt, Default: "3", Bounds: knobs.AtLeast(0),
			Doc: "Most instructions cloned to rematerialize one value at one use block."},
		{Name: "RematMaxRegCount", Type: knobs.TypeInt, Default: "64", Bounds: knobs.AtLeast(0),
			Doc: "R-register pressure above which rematerialization also clones into loops (aggressive mode)."},
		{Name: "RematInflationSlack", Type: knobs.TypeInt, Default: "32", Bounds: knobs.AtLeast(0),
			Doc: "Most instructions one remat phase run may clone in a function."},
		{Name: "RematRegTargetFactor", Type: knobs.TypeDouble, Default: "1.0",
			Doc: "Scales the register target (the registers per thread that still give full occupancy on the target SM); rematerialization stops once the peak R pressure is at or below it. 0: always rematerialize."},
	} {
		k.Readers = []string{"SinkRemat", "OriDoRematEarly", "OriDoRemat"}
		switch k.Name {
		case "RematEnable":
			k.Readers = []string{"OriDoRemat"}
		case "RematEarlyEnable":
			k.Readers = []string{"OriDoRematEarly"}
		case "SinkRematEnable":
			k.Readers = []string{"SinkRemat"}
		}
		knobs.Default.Register(k)
	}
}

// The three rematerialization positions, each switched by its own knob.
var (
	// SinkRemat is early sink+remat: it sinks single-block-use
	// computations and recomputes cheap values next to distant uses
	// (phase SinkRemat; knob SinkRematEnable).
	SinkRemat = rematPass("SinkRematEnable", true)
	// RematEarly is the early rematerialization position (phase
	// OriDoRematEarly); it runs only when RematEarlyEnable is set.
	RematEarly = rematPass("RematEarlyEnable", false)
	// Remat is late rematerialization: it recomputes cheap values
	// (constants, thread indices, simple arithmetic on them) next to
	// distant uses (phase OriDoRemat; knob RematEnable).
	Remat = rematPass("RematEnable", false)
)

func rematPass(enable string, sink bool) Pass {
	return Pass{
		Run: func(f *ori.Func, c *Context) (bool, error) {
			// The manager asks NoOp first; a direct caller (a test)
			// gets the same answer here.
			if c.Int(enable) == 0 {
				return false, nil
			}
			return sinkRemat(f, c, sink)
		},
		NoOp: func(c *Context) string {
			if c.Int(enable) == 0 {
				return fmt.Sprintf("switched off by the knob %s=0 (set it to 1 to run this position)", enable)
			}
			return ""
		},
	}
}

// rematConfig is the cost model's settings for one run.
type rematConfig struct {
	minDist    int
	maxTree    int
	budget     int
	aggressive bool
	preds      bool
	target     int // R-register pressure at or below which nothing is gained
	// maxRegCount is RematMaxRegCount; aggressive is decided from it
	// (resolved set) only when a step is planned: most functions are
	// below the target, and the pressure estimate it needs cost a
	// liveness computation per run.
	maxRegCount int
	resolved    bool
}

// resolve decides aggressive mode from f's pressure. It must run before
// the run changes f.
func (cfg *rematConfig) resolve(f *ori.Func) {
	if !cfg.resolved {
		cfg.aggressive = ori.MaxPressure(f).R > cfg.maxRegCount
		cfg.resolved = true
	}
}

func rematSettings(c *Context) rematConfig {
	cfg := rematConfig{
		minDist: c.Int("RematMinDistance"),
		maxTree: c.Int("RematCostInstLimit"),
		budget:  c.Int("RematInflationSlack"),
		preds:   c.Bool("RematEnablePReg"),
		target:  int(float64(fullOccupancyRegs(c.Arch)) * c.knobSet().Double("RematRegTargetFactor")),

		maxRegCount: c.Int("RematMaxRegCount"),
	}
	return cfg
}

// sinkRemat runs sinking (when sink is set) and then rematerialization.
func sinkRemat(f *ori.Func, c *Context, sink bool) (bool, error) {
	sunk := 0
	if sink {
		var err error
		if sunk, err = sinkCode(f, c.Sites); err != nil {
			return sunk > 0, err
		}
	}
	if err := f.ComputeCFG(); err != nil {
		return sunk > 0, err
	}
	n, err := rematerialize(f, rematSettings(c), c.Sites)
	return sunk+n > 0, err
}

// fullOccupancyRegs is the number of registers per thread at which a
// kernel still reaches the SM's full thread count, rounded down to the
// allocation granularity of 8: 65536 registers per SM over the maximum
// resident threads (1024 on sm_75, 2048 on sm_80, 1536 on sm_86, sm_87
// and sm_89).
func fullOccupancyRegs(arch int) int {
	threads := 1536
	switch arch {
	case 75:
		threads = 1024
	case 80:
		threads = 2048
	}
	return 65536 / threads &^ 7
}

// rematOp reports whether in's opcode and form may be cloned.
func rematOp(in *ori.Inst, preds bool) bool {
	switch in.Op {
	case ori.OpMOV:
		return len(in.Mods) == 0 && len(in.Srcs) == 1
	case ori.OpIADD3, ori.OpIMAD, ori.OpSHF, ori.OpLOP3, ori.OpSEL, ori.OpLDC, ori.OpS2R:
		return true
	case ori.OpISETP:
		return preds
	}
	return false
}

// rematOK reports whether in may be cloned: a whitelisted pure
// instruction, unguarded, writing only virtual (or zero) registers of
// class R or P, each word of which it alone defines.
func (a *cmAnalysis) rematOK(in *ori.Inst, preds bool) bool {
	if in.Guarded() || !rematOp(in, preds) || !cmPure(in) {
		return false
	}
	res, ok := cmResultWords(in)
	if !ok || len(res) == 0 {
		return false
	}
	for _, w := range res {
		if w.class != ori.ClassR && w.class != ori.ClassP {
			return false
		}
		if a.soleDef(w) != in {
			return false
		}
	}
	return true
}

// rematValue returns the result words of root whose reads are
// redirected: its R words, and its predicate words with preds (a carry-out
// of IADD3 stays with the original).
func rematValue(root *ori.Inst, preds bool) []cmWord {
	res, _ := cmResultWords(root)
	var out []cmWord
	for _, w := range res {
		if w.class == ori.ClassR || w.class == ori.ClassP && preds {
			out = append(out, w)
		}
	}
	return out
}

// rematPlan is one rematerialization: clone tree (in dependency order)
// before instruction p of block u, and redirect the reads listed in
// rewrite.
type rematPlan struct {
	u    *ori.Block
	p    int
	tree []*ori.Inst
	// remap[in][i] says that read operand i of in (numbered as cmOperands
	// numbers them) is redirected to the clones' registers.
	remap map[*ori.Inst]map[int]bool
	// rewrite lists the uses in u whose operands are redirected.
	rewrite []*ori.Inst
}

// cmOperands calls fn with an index and a pointer to every register
// operand in reads (guard first, then sources and address bases).
func cmOperands(in *ori.Inst, fn func(i int, r *ori.Reg)) {
	fn(0, &in.Guard)
	for j := range in.Srcs {
		o := &in.Srcs[j]
		if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fn(1+j, &o.Reg)
		}
	}
}

func cmRegWords(r ori.Reg) []cmWord {
	out := make([]cmWord, r.Words)
	for w := range out {
		out[w] = cmWordOf(r, w)
	}
	return out
}

// planRemat decides whether the value of root is rematerialized in block
// u, and how.
func (a *cmAnalysis) planRemat(root *ori.Inst, res []cmWord, u *ori.Block, cfg rematConfig) *rematPlan {
	isRes := map[cmWord]bool{}
	for _, w := range res {
		isRes[w] = true
	}
	reads := func(in *ori.Inst) bool {
		hit := false
		cmOperands(in, func(_ int, r *ori.Reg) {
			if r.Virtual {
				for _, w := range cmRegWords(*r) {
					hit = hit || isRes[w]
				}
			}
		})
		return hit
	}
	rs := a.at.at(root)
	p := -1
	for i, in := range u.Insts {
		if in.IsPhi() || !reads(in) || !a.dominates(root, in) {
			continue
		}
		d := a.at.at(in).order - a.at.at(root).order
		if d < 0 {
			d = -d
		}
		if d >= cfg.minDist {
			p = i
			break
		}
	}
	if p < 0 {
		return nil
	}
	if u != rs.b && !cfg.aggressive && a.onCycleAvoiding(u, rs.b) {
		return nil
	}
	plan := &rematPlan{u: u, p: p, remap: map[*ori.Inst]map[int]bool{}}
	rewritten := map[*ori.Inst]bool{}
	for _, in := range u.Insts[p:] {
		if !in.IsPhi() && reads(in) {
			plan.rewrite = append(plan.rewrite, in)
			rewritten[in] = true
		}
	}
	if a.stillLive(root, res, u, p, rewritten) {
		return nil
	}
	inTree := map[*ori.Inst]bool{}
	failed := false
	var need func(w cmWord) bool
	need = func(w cmWord) bool {
		d := a.soleDef(w)
		if d == nil {
			return false
		}
		if inTree[d] {
			return true
		}
		if !a.rematOK(d, cfg.preds) || !a.dominates(d, u.Insts[p]) || len(plan.tree) >= cfg.maxTree {
			return false
		}
		inTree[d] = true
		ok := true
		cmOperands(d, func(i int, r *ori.Reg) {
			if !ok || r.IsZero() {
				return
			}
			if !r.Virtual {
				ok = false
				return
			}
			avail := true
			for _, ws := range cmRegWords(*r) {
				ds := a.soleDef(ws)
				if ds == nil || ds.Guarded() || !a.dominates(ds, d) || !a.liveBefore(u, p, ws) {
					avail = false
				}
			}
			if avail {
				return
			}
			for _, ws := range cmRegWords(*r) {
				if !need(ws) {
					ok = false
					return
				}
			}
			if plan.remap[d] == nil {
				plan.remap[d] = map[int]bool{}
			}
			plan.remap[d][i] = true
		})
		if !ok || len(plan.tree) >= cfg.maxTree {
			return false
		}
		plan.tree = append(plan.tree, d)
		return true
	}
	for _, in := range plan.rewrite {
		cmOperands(in, func(i int, r *ori.Reg) {
			if failed || !r.Virtual {
				return
			}
			hit := false
			for _, w := range cmRegWords(*r) {
				hit = hit || isRes[w]
			}
			if !hit {
				return
			}
			if i == 0 && a.readsGuardedBy(in, *r) {
				// The guarded instruction reads a value defined under
				// the same predicate: pointed at a clone, its guard
				// would no longer be the one the definition had, and
				// the post-allocation verifier, which pairs guarded
				// definitions and reads by predicate register, cannot
				// tell that the two hold the same condition (fuzz seed
				// 11007514 with RematEnablePReg).
				failed = true
				return
			}
			for _, w := range cmRegWords(*r) {
				if !need(w) {
					failed = true
					return
				}
			}
			if plan.remap[in] == nil {
				plan.remap[in] = map[int]bool{}
			}
			plan.remap[in][i] = true
		})
	}
	if failed || len(plan.tree) == 0 {
		return nil
	}
	return plan
}

// readsGuardedBy reports whether in reads a virtual register word that
// some instruction of the function writes under the guard predicate p.
func (a *cmAnalysis) readsGuardedBy(in *ori.Inst, p ori.Reg) bool {
	found := false
	cmReads(in, func(r ori.Reg) {
		if !r.Virtual || r.SameValue(p) {
			return
		}
		for _, w := range cmRegWords(r) {
			for _, d := range a.defs(w) {
				if d.Guarded() && d.Guard.SameValue(p) {
					found = true
				}
			}
		}
	})
	return found
}

// stillLive reports whether, once the reads in rewritten are redirected,
// some other read of root's result words remains reachable from the
// point before u.Insts[p] without passing through root: then the value
// stays in its register anyway and rematerializing gains nothing.
func (a *cmAnalysis) stillLive(root *ori.Inst, res []cmWord, u *ori.Block, p int, rewritten map[*ori.Inst]bool) bool {
	rs := a.at.at(root)
	// Blocks holding another read (planRemat redirects every read in u
	// after the insertion point). A read in root's own block counts only
	// before root: after it, it reads root's next value.
	other := map[*ori.Block]bool{}
	for _, w := range res {
		for _, use := range a.uses(w) {
			if rewritten[use] {
				continue
			}
			s := a.at.at(use)
			if s.b == rs.b && s.i > rs.i {
				continue
			}
			other[s.b] = true
		}
		if a.phiUse(w) {
			for _, b := range a.f.Blocks {
				for _, in := range b.Insts {
					if !in.IsPhi() {
						continue
					}
					for j := 0; j+1 < len(in.Srcs); j += 2 {
						if o := in.Srcs[j]; o.Kind == ori.OpdReg && o.Reg.Overlaps(w.reg()) {
							if pb := a.f.BlockByID(in.Srcs[j+1].Block); pb != nil {
								if pb == u {
									return true
								}
								if pb != rs.b {
									other[pb] = true
								}
							}
						}
					}
				}
			}
		}
	}
	if len(other) == 0 {
		return false
	}
	seen := map[*ori.Block]bool{}
	work := append([]*ori.Block(nil), u.Succs...)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if other[b] {
			return true
		}
		if seen[b] || b == rs.b {
			continue
		}
		seen[b] = true
		work = append(work, b.Succs...)
	}
	return false
}

// rematUndo restores the blocks and instructions a trial changed.
type rematUndo struct {
	blocks map[*ori.Block][]*ori.Inst
	insts  map[*ori.Inst]*ori.Inst
}

func newRematUndo() *rematUndo {
	return &rematUndo{blocks: map[*ori.Block][]*ori.Inst{}, insts: map[*ori.Inst]*ori.Inst{}}
}

func (u *rematUndo) saveBlock(b *ori.Block) {
	if _, ok := u.blocks[b]; !ok {
		u.blocks[b] = append([]*ori.Inst(nil), b.Insts...)
	}
}

func (u *rematUndo) saveInst(in *ori.Inst) {
	if _, ok := u.insts[in]; !ok {
		u.insts[in] = in.Clone()
	}
}

func (u *rematUndo) restore() {
	for b, insts := range u.blocks {
		b.Insts = insts
	}
	for in, saved := range u.insts {
		*in = *saved
	}
}

// applyRemat clones plan.tree before plan.p and redirects the reads,
// saving what it changes in undo. It returns the number of clones.
func applyRemat(f *ori.Func, a *cmAnalysis, plan *rematPlan, undo *rematUndo) int {
	a.ensureWidth() // of f before the step
	fresh := map[cmReg]ori.Reg{}
	newReg := func(r ori.Reg) ori.Reg {
		k := cmRegOf(r)
		n, ok := fresh[k]
		if !ok {
			n = f.NewVReg(r.Class, max(a.width[k], int(r.Off)+int(r.Words)))
			fresh[k] = n
		}
		out := r
		out.N = n.N
		return out
	}
	// consumed are the words some redirected operand reads.
	consumed := map[cmWord]bool{}
	for in, ops := range plan.remap {
		cmOperands(in, func(i int, r *ori.Reg) {
			if ops[i] {
				for _, w := range cmRegWords(*r) {
					consumed[w] = true
				}
			}
		})
	}
	var clones []*ori.Inst
	for _, d := range plan.tree {
		cl := d.Clone()
		cl.ID = f.NewID()
		cl.Role, cl.Origin = ori.RoleNone, 0
		for j := range cl.Dsts {
			o := &cl.Dsts[j]
			if o.Kind != ori.OpdReg || !o.Reg.Virtual {
				continue
			}
			used := false
			for _, w := range cmRegWords(o.Reg) {
				used = used || consumed[w]
			}
			switch {
			case used || o.Reg.Words > 1:
				o.Reg = newReg(o.Reg)
			default:
				o.Reg = zeroReg(o.Reg.Class)
			}
		}
		ops := plan.remap[d]
		cmOperands(cl, func(i int, r *ori.Reg) {
			if ops[i] {
				*r = newReg(*r)
			}
		})
		clones = append(clones, cl)
	}
	for _, in := range plan.rewrite {
		undo.saveInst(in)
		ops := plan.remap[in]
		cmOperands(in, func(i int, r *ori.Reg) {
			if ops[i] {
				*r = newReg(*r)
			}
		})
	}
	u := plan.u
	undo.saveBlock(u)
	u.Insts = append(u.Insts[:plan.p:plan.p], append(clones, u.Insts[plan.p:]...)...)
	return len(clones)
}

// deleteUnused deletes the instructions of cands (pure, see rematOK) whose
// results nobody reads any more, repeatedly, saving the blocks in undo
// (nil: no undo). It returns how many it deleted; with sites, each
// deletion is a site.
func deleteUnused(f *ori.Func, cands map[*ori.Inst]bool, undo *rematUndo, sites *Sites) int {
	reads := map[cmWord]int{}
	count := func(in *ori.Inst, d int) {
		if in.IsPhi() {
			for j := 0; j < len(in.Srcs); j += 2 {
				if o := in.Srcs[j]; o.Kind == ori.OpdReg && o.Reg.Virtual {
					for _, w := range cmRegWords(o.Reg) {
						reads[w] += d
					}
				}
			}
			return
		}
		seen := map[cmWord]bool{}
		cmReads(in, func(r ori.Reg) {
			if r.Virtual {
				for _, w := range cmRegWords(r) {
					if !seen[w] {
						seen[w] = true
						reads[w] += d
					}
				}
			}
		})
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			count(in, 1)
		}
	}
	deleted := 0
	refused := map[*ori.Inst]bool{}
	for {
		var dead *ori.Block
		di := -1
		for _, b := range f.Blocks {
			for i, in := range b.Insts {
				if !cands[in] || refused[in] {
					continue
				}
				res, _ := cmResultWords(in)
				unused := true
				for _, w := range res {
					if reads[w] > 0 {
						unused = false
					}
				}
				if unused {
					dead, di = b, i
					break
				}
			}
			if dead != nil {
				break
			}
		}
		if dead == nil {
			return deleted
		}
		in := dead.Insts[di]
		if sites != nil && !sites.Allow(f, in.ID, "delete an instruction whose reads were all rematerialized") {
			refused[in] = true
			continue
		}
		if undo != nil {
			undo.saveBlock(dead)
		}
		count(in, -1)
		dead.Insts = append(dead.Insts[:di:di], dead.Insts[di+1:]...)
		delete(cands, in)
		deleted++
	}
}

// rematCheckPressure, when set (by a test), sees the pressure of every
// trial step as the incremental evaluation found it (with the words at the
// peak after a kept step, nil after an undone one), and the peak cmPeak
// found before a run's first R-class batch (at -1), to compare with
// cmPressure's.
var rematCheckPressure func(f *ori.Func, class ori.RegClass, peak, at int, hot map[cmWord]bool)

// rematStep is one tentative rematerialization of a batch.
type rematStep struct {
	root   *ori.Inst
	u      *ori.Block
	undo   *rematUndo
	tree   []*ori.Inst
	clones int
	gone   int
}

// rematerialize lowers the register pressure of f by rematerializing and
// returns the number of clones made plus instructions deleted.
//
// It works in batches, one register class at a time (R, then P with
// RematEnablePReg). A batch tries candidates (a root and a use block, in
// layout order, use blocks farthest first): the clones are made, the
// reads redirected and the originals that lost every reader deleted, and
// the step is kept if it lowers the class's pressure as cmPressure
// measures it, the peak or else the number of points at the peak;
// otherwise it is undone. The batch ends when the peak has dropped below
// where it started: then its steps are committed, each one a site (a
// refused site undoes it and every later step of the batch, and is not
// proposed again). A batch that
// cannot lower the peak is undone entirely, so rematerialization never
// adds instructions without lowering the pressure.
func rematerialize(f *ori.Func, cfg rematConfig, sites *Sites) (int, error) {
	if err := f.ComputeCFG(); err != nil {
		return 0, err
	}
	changes, cloned := 0, 0
	origins := map[*ori.Inst]bool{}
	classes := []ori.RegClass{ori.ClassR}
	if cfg.preds {
		classes = append(classes, ori.ClassP)
	}
	type candidate struct {
		root *ori.Inst
		u    *ori.Block
	}
	refused := map[candidate]bool{} // sites refused: not proposed again
	// Remat does not change the CFG: the trees hold for the whole phase.
	// They are computed on first use: most runs stop at the register
	// target before planning anything.
	var doms cmDoms
	haveDoms := false
	for _, class := range classes {
		// ps describes f as it is; kept steps are committed into it, and
		// only an undo outside a trial (a refused site) makes it stale.
		var ps *cmPressureState
		for cloned < cfg.budget {
			if ps == nil {
				live := ori.Liveness(f)
				// Most functions are at or below the register target:
				// their peak alone says so, without the state a batch
				// needs (building it was most of the phase).
				if class == ori.ClassR {
					p := cmPeak(f, class, live)
					if rematCheckPressure != nil {
						rematCheckPressure(f, class, p, -1, nil)
					}
					if p <= cfg.target {
						break
					}
				}
				ps = newCMPressure(f, class, live)
			}
			start, at := ps.peak, ps.at
			if class == ori.ClassR && start <= cfg.target {
				break // the register target is met: more copies buy nothing
			}
			hot := ps.hot()
			if !haveDoms {
				doms, haveDoms = newCMDoms(f), true
			}
			// The first time here f is still as the run found it (steps
			// are made only below), so aggressive mode is judged on the
			// unchanged function, as before any step.
			cfg.resolve(f)
			cur := [2]int{start, at}
			var batch []rematStep
			dropped := false
			for round := 0; round < cmMaxRounds && !dropped; round++ {
				found := false
				var walk []*ori.Inst
				for _, b := range f.Blocks {
					walk = append(walk, b.Insts...)
				}
				a := newCMAnalysis(f, doms)
				a.wordOnly = true
			roots:
				for _, root := range walk {
					if _, ok := a.at.get(root); !ok || !a.rematOK(root, cfg.preds) {
						continue
					}
					res := rematValue(root, cfg.preds)
					if len(res) == 0 || res[0].class != class {
						continue
					}
					// A step can only lower the pressure by ending live
					// ranges at the points where it peaks.
					isHot := false
					for _, w := range res {
						isHot = isHot || hot[w]
					}
					if !isHot {
						continue
					}
					// Use blocks, farthest (last in layout) first.
					var blocks []*ori.Block
					seen := map[*ori.Block]bool{}
					for _, w := range res {
						for _, use := range a.uses(w) {
							if b := a.at.at(use).b; !seen[b] {
								seen[b] = true
								blocks = append(blocks, b)
							}
						}
					}
					sort.Slice(blocks, func(i, j int) bool { return a.bpos[blocks[i]] > a.bpos[blocks[j]] })
					for _, u := range blocks {
						if _, ok := a.at.get(root); !ok {
							break
						}
						if refused[candidate{root, u}] {
							continue
						}
						plan := a.planRemat(root, res, u, cfg)
						if plan == nil || cloned+len(plan.tree) > cfg.budget {
							continue
						}
						st := rematStep{root: root, u: u, undo: newRematUndo(), tree: plan.tree}
						st.clones = applyRemat(f, a, plan, st.undo)
						trees := map[*ori.Inst]bool{}
						for _, d := range plan.tree {
							trees[d] = true
						}
						st.gone = deleteUnused(f, trees, st.undo, nil)
						tr := ps.trial(st.undo.blocks, st.undo.insts, func(in *ori.Inst) *ori.Block { return a.at.at(in).b })
						p, at := tr.peak, tr.at
						if p > cur[0] || p == cur[0] && at >= cur[1] {
							if rematCheckPressure != nil {
								rematCheckPressure(f, class, p, at, nil)
							}
							// The undo restores f exactly (the same
							// instructions in the same blocks), so the
							// analysis and the pressure still describe it.
							st.undo.restore()
							continue
						}
						ps.commit(tr)
						batch = append(batch, st)
						cloned += st.clones
						cur, hot = [2]int{p, at}, ps.hot()
						if rematCheckPressure != nil {
							rematCheckPressure(f, class, p, at, hot)
						}
						found = true
						if p < start {
							dropped = true
							break roots
						}
						// Rebuilt only when the walk goes on: a step that
						// drops the peak ends the batch, and the next
						// batch analyses f afresh anyway. Nothing kept
						// refers to the old analysis (plans copy what
						// they take from it), so its memory serves the
						// new one.
						releaseCMAnalysis(a)
						a = newCMAnalysis(f, doms)
						a.wordOnly = true
					}
				}
				releaseCMAnalysis(a)
				if !found {
					break
				}
			}
			if !dropped {
				ps = nil
				for i := len(batch) - 1; i >= 0; i-- {
					batch[i].undo.restore()
					cloned -= batch[i].clones
				}
				break
			}
			for i, st := range batch {
				if !sites.Allow(f, st.root.ID, fmt.Sprintf("rematerialize the result of #%d in BB%d", st.root.ID, st.u.ID)) {
					// The later steps were planned on top of this one.
					for j := len(batch) - 1; j >= i; j-- {
						batch[j].undo.restore()
						cloned -= batch[j].clones
					}
					ps = nil
					refused[candidate{st.root, st.u}] = true
					break
				}
				for _, d := range st.tree {
					origins[d] = true
				}
				changes += st.clones + st.gone
			}
		}
	}
	if changes == 0 {
		return 0, nil
	}
	// Originals that lost their last reader through a later step (the
	// feeders of a deleted instruction).
	changes += deleteUnused(f, origins, nil, sites)
	return changes, nil
}
