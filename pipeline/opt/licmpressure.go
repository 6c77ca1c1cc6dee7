package opt

// Register-pressure limit for loop-invariant code motion.
//
// Hoisting an instruction out of a loop saves its execution in every
// iteration but keeps its result live across the whole loop, where it
// used to live only from its definition to its last use. Without a limit
// LICM turned inverseCNDKernel (gpuocelot MonteCarlo_SM13 and
// quasirandomGenerator_SM13) into 255 registers and 164 bytes of spills:
// its loop body evaluates rational approximations with 212 distinct f64
// constants, and every one of them was hoisted into a register pair. A
// spill costs a store and a load per use, far more than the MOV the
// hoisting saved, and every register above the occupancy steps costs
// warps.
//
// So each loop gets a register budget: the largest number of R words live
// at any point inside the loop (from the liveness LICM already computed)
// plus the words that earlier hoists out of loops nested in it added,
// subtracted from the limit. An instruction is hoisted only while the
// words its result keeps live across the loop fit in what is left. The
// count is kept exact for chains that are hoisted together: a result read
// only by other hoisted instructions (the low word of an address that a
// hoisted IADD3 consumes) stops counting once its last reader in the loop
// has been hoisted too, and a source whose last reader in the loop is the
// hoisted instruction is not charged twice.
//
// Decision (the limit): HoistMaxRegCount, default 16 R words, and never
// more than the 255 registers an sm_75-sm_90 thread can address (so LICM
// never hoists constants into more registers than the target has).
// Measured with `orilab vs-ptxas --runs 1 /work/shared/corpus testdata`
// (sm_80 -O3, 376 kernels compiled by both) and ORILAB_KNOBS setting the
// limit: without a limit inverseCNDKernel used 255 registers and spilled
// 332 bytes; with 64 it used 88 and the register geomean orilab/ptxas was
// 0.963 (49 kernels above 1.25x ptxas); with 32, 56 registers, geomean
// 0.947 and 39 kernels above 1.25x. The static instruction geomean was
// the same for both (0.931); ptxas itself uses 30 registers there, loading
// the constants inside the loop. The default went from 32 to 16 once the
// scheduler stopped raising each block's pressure (sched's
// SchedKeepPressure), with R0, R2 and R3 allocated in kernels without
// calls: on the eleven heaviest corpus files (MonteCarlo_SM13,
// binomialOptions_SM13, quasirandomGenerator_SM13, srad, lud_kernel,
// needle, pns, BlackScholes, hotspot, dct8x8_kernel2, MersenneTwister)
// 16 was never worse than 24 or 32 and better on binomialOptionsKernel
// (32: 52, 24: 28, 16: 24 registers; ptxas 27), quasirandomGeneratorKernel
// (34, 26, 18; ptxas 23), BoxMullerGPU (31, 30, 21; ptxas 16),
// MonteCarloKernel (38, 30, 30; ptxas 28), inverseCNDKernel (48, 42, 42;
// ptxas 30) and BlackScholesGPU (41, 27, 27; ptxas 31). Over
// all 389 kernels the register geomean orilab/ptxas is then 0.747 and the
// static instruction geomean 1.021 (1.022 before). Only the R class is
// counted: LICM runs before
// ConvertToUniformReg, when every data value is still an R register.
//
// In a loop that contains a CALL the room is zero (licmHasCall): only
// chains whose results the loop does not keep are hoisted
// (HoistAcrossCalls lifts that).
//
// Known limits: the in-loop pressure comes from liveness computed before
// any hoisting in this phase run (LICM computes it once, see
// hoistInvariants) and the extra words of inner-loop hoists are added to
// every block of the inner loop as an upper bound; a hoisted value used in
// only part of the loop is charged to all of it. Candidates are taken in
// LICM's order (reverse postorder), not by payoff.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// licmTargetRegs is the number of R registers an sm_75-sm_90 thread can
// address (R0-R254; R255 is RZ).
const licmTargetRegs = 255

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:    "HoistMaxRegCount",
		Type:    knobs.TypeInt,
		Default: "16",
		Bounds:  knobs.AtLeast(0),
		Doc:     "Register-pressure limit of loop-invariant hoisting: R words live in a loop after hoisting (0 = only the target's 255 registers).",
		Readers: licmPositions,
	})
	knobs.Default.Register(knobs.Knob{
		Name:    "HoistAcrossCalls",
		Type:    knobs.TypeBool,
		Doc:     "Let loop-invariant hoisting keep values live across a CALL in the loop (every register is caller-saved, so the allocator spills them).",
		Readers: licmPositions,
	})
}

// licmExtra records, per block, how many R words the hoists of this phase
// run keep live there beyond what the (stale) liveness says.
type licmExtra struct {
	words map[*ori.Block]int
	known map[*ori.Block]bool // the blocks the liveness describes
}

// newLICMExtra starts a phase run on f, before anything moved.
func newLICMExtra(f *ori.Func) *licmExtra {
	x := &licmExtra{words: map[*ori.Block]int{}, known: map[*ori.Block]bool{}}
	for _, b := range f.Blocks {
		x.known[b] = true
	}
	return x
}

// licmPressure tracks the R words one loop's hoists keep live. Its
// per-word tables (in-loop reads not hoisted yet, live after the loop,
// defined by a hoisted instruction) are the run's pressure tables.
type licmPressure struct {
	run    *licmRun
	room   int     // words left before the limit
	readLo []int32 // a marked candidate's R reads: run.reads[readLo[i]:readHi[i]]
	readHi []int32
	added  int // words charged so far
}

// newLICMPressure measures l's pressure and returns its budget; the
// candidates marked in inv are the ones admit will be asked about.
func newLICMPressure(c *Context, l *Loop, live *ori.LiveSets, extra *licmExtra, run *licmRun, cands []*ori.Inst, inv []bool) *licmPressure {
	limit := c.Int("HoistMaxRegCount")
	if limit <= 0 || limit > licmTargetRegs {
		limit = licmTargetRegs
	}
	run.startPressure()
	run.readLo, run.readHi = licmInt32s(run.readLo, len(cands)), licmInt32s(run.readHi, len(cands))
	p := &licmPressure{run: run, readLo: run.readLo, readHi: run.readHi}
	peak := 0
	for _, b := range l.Blocks {
		n := extra.words[b]
		if extra.known[b] { // a preheader made in this run holds hoisted values only
			pk, ok := run.peaks[b]
			if !ok {
				pk = licmBlockPeak(b, live, run)
				run.peaks[b] = pk
			}
			n += pk
		}
		if n > peak {
			peak = n
		}
		for _, in := range b.Insts {
			cmReads(in, func(r ori.Reg) {
				if r.Virtual && r.Class == ori.ClassR {
					for w := 0; w < int(r.Words); w++ {
						run.left[run.pentry(cmWordOf(r, w))]++
					}
				}
			})
		}
	}
	for i, in := range cands {
		if !inv[i] {
			continue
		}
		p.readLo[i] = int32(len(run.reads))
		cmReads(in, func(r ori.Reg) {
			if r.Virtual && r.Class == ori.ClassR {
				for w := 0; w < int(r.Words); w++ {
					run.reads = append(run.reads, run.pentry(cmWordOf(r, w)))
				}
			}
		})
		p.readHi[i] = int32(len(run.reads))
	}
	// A word read after the loop stays live across it.
	for _, e := range l.Exits {
		if !extra.known[e] {
			continue
		}
		for _, r := range live.LiveInWords(e) {
			if r.Class == ori.ClassR {
				run.out[run.pentry(cmWordOf(r, 0))] = true
			}
		}
	}
	p.room = limit - peak
	if licmHasCall(l) && !c.Bool("HoistAcrossCalls") {
		p.room = 0
	}
	return p
}

// licmHasCall reports whether l contains a CALL. Every register is
// caller-saved (regalloc's convention), so a hoisted value that stays live
// in such a loop is live across the call: the allocator keeps it in the
// frame and refills it at every use, a load where the hoisting saved one
// ALU instruction. hwtruth fuzz5551379 issued 167,541 warp-instructions at
// -O3 against 157,056 with LICM off and 160,917 at -O0.
func licmHasCall(l *Loop) bool {
	for _, b := range l.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpCALL {
				return true
			}
		}
	}
	return false
}

// admit reports whether hoisting in (candidate i) fits the budget and,
// if so, charges it. in's in-loop sources have been hoisted already
// (sourcesHoisted).
func (p *licmPressure) admit(in *ori.Inst, i int) bool {
	run := p.run
	res, _ := cmResultWords(in)
	charge := 0
	for _, w := range res {
		if id := run.pentry(w); w.class == ori.ClassR && (run.left[id] > 0 || run.out[id]) {
			charge++
		}
	}
	// Sources hoisted earlier whose last in-loop reader is in stop
	// counting. seen counts in's reads of each word (a few words: a
	// list, not a map).
	type wordReads struct{ id, n int32 }
	var buf [8]wordReads
	seen := buf[:0]
next:
	for _, id := range run.reads[p.readLo[i]:p.readHi[i]] {
		for k := range seen {
			if seen[k].id == id {
				seen[k].n++
				continue next
			}
		}
		seen = append(seen, wordReads{id, 1})
	}
	relief := 0
	for _, x := range seen {
		if run.defBy[x.id] && run.left[x.id] == x.n && !run.out[x.id] {
			relief++
		}
	}
	if p.added+charge-relief > p.room && charge > relief {
		return false
	}
	for _, x := range seen {
		run.left[x.id] -= x.n
	}
	for _, w := range res {
		run.defBy[run.pentry(w)] = true
	}
	p.added += charge - relief
	return true
}

// commit records the words l's hoists keep live in every block of l and
// in its preheader pre.
func (p *licmPressure) commit(l *Loop, pre *ori.Block, extra *licmExtra) {
	if p.added <= 0 {
		return
	}
	for _, b := range l.Blocks {
		extra.words[b] += p.added
	}
	extra.words[pre] += p.added
}

// licmBlockPeak is the largest number of virtual R words live at a point
// of b. The live set is run.inSet under a fresh peakGen: the words are
// members while their stamp is the block's generation.
func licmBlockPeak(b *ori.Block, live *ori.LiveSets, run *licmRun) int {
	run.peakGen++
	gen, n := run.peakGen, 0
	add := func(w cmWord) {
		if id := run.idCM(w); run.inSet[id] != gen {
			run.inSet[id] = gen
			n++
		}
	}
	for _, r := range live.LiveOutWords(b) {
		if r.Class == ori.ClassR {
			add(cmWordOf(r, 0))
		}
	}
	peak := n
	for i := len(b.Insts) - 1; i >= 0; i-- {
		in := b.Insts[i]
		if !in.Guarded() {
			res, _ := cmResultWords(in)
			for _, w := range res {
				if id := run.idCM(w); run.inSet[id] == gen {
					run.inSet[id] = 0
					n--
				}
			}
		}
		if !in.IsPhi() {
			cmReads(in, func(r ori.Reg) {
				if r.Virtual && r.Class == ori.ClassR {
					for w := 0; w < int(r.Words); w++ {
						add(cmWordOf(r, w))
					}
				}
			})
		}
		if n > peak {
			peak = n
		}
	}
	return peak
}
