package opt

// GeneralOptimize bundles: ptxas's six compound cleanup passes (wiki
// "GeneralOptimize Bundles", seed lines 10188-11388; fixed-point iteration
// 11169-11223). Each instance runs copy propagation (copyprop.go) and
// constant folding with algebraic simplification (constfold.go) over the
// whole function, then floating-point folding (fpfold.go), f64 constants
// into operand slots (f64constop.go) and f64 division and square root of
// constants (ddivfold.go, which adds the second MOV of the result next to
// the folded instruction), repeating until neither changes anything or a bound of
// maxBundleRounds rounds is reached (ptxas bounds its per-block loop with
// knob 464, MergeEquivalentConditionalFlowBudget).
//
// The bundle only rewrites uses and instructions in place: definitions it
// leaves dead stay for the dead-code phases (EarlyOriSimpleLiveDead,
// OriPerformLiveDead*, OriSimpleLiveDead), and it never changes control
// flow, so the CFG stays valid across rounds.
//
// Example (after lowering a 64-bit add of a zero base):
//
//	#28 MOV %r18 = 0x0                      #28 MOV %r18 = 0x0
//	#29 MOV %r18[1] = RZ                    #29 MOV %r18[1] = RZ
//	#30 MOV %r17 = %r18              ==>    #30 MOV %r17 = 0x0
//	#31 MOV %r17[1] = %r18[1]               #31 MOV %r17[1] = RZ
//	#32 IADD3 %r19 = %r17, %r16, RZ         #32 MOV %r19 = %r16
//
// Known limits: ptxas's structural-equivalence matching (phase 13), the
// predicate simplifier of phase 29 and the memory-to-register promotion
// of phase 37 are not part of the bundle; MOV.PHI operands are left alone.

import (
	"fmt"
	"sync/atomic"

	"orilab/pipeline/ori"
)

// maxBundleRounds bounds the fixed-point iteration of one bundle run.
const maxBundleRounds = 8

// generalOptimize runs copy propagation and folding to a fixed point.
//
// A run that ends in a round changing nothing leaves f at a fixed point
// of the bundle; the next run skips f if its code is still the same
// (ori.Func.AtFixedPoint), since its one round would change nothing
// again. The memo is kept per value of the knobs the bundle reads,
// and not at all under a site limit, where a refused proposal leaves f
// short of the fixed point.
func generalOptimize(f *ori.Func, c *Context) (bool, error) {
	s := c.Sites
	cbank := c.Bool("CopyPropConstantBank")
	f64c := !c.Bool("DisableF64ConstOperands")
	memo := "GeneralOptimize"
	if cbank {
		memo += "+CopyPropConstantBank"
	}
	if f64c {
		memo += "+F64ConstOperands"
	}
	ddiv := !c.Bool("DisableDDIVFold")
	if !ddiv {
		memo += "-DDIVFold"
	}
	var fp uint64
	if s == nil {
		var at bool
		if at, fp = f.AtFixedPoint(memo); at {
			return false, nil
		}
	}
	// A sub-pass is skipped when its last run changed nothing and no
	// sub-pass has changed f since: it would see the same code and
	// change nothing again (each is a function of the code alone). In
	// the round that confirms a fixed point this leaves only the
	// sub-passes up to the last one that changed something (usually
	// copy propagation alone) to run. Under a site limit every
	// sub-pass runs, so that the proposals are numbered as before.
	//
	// step counts sub-pass slots in order, two apart; clean[i] is the
	// step of sub-pass i's last run that changed nothing (0: none), or
	// one past the step of a run that changed something and left
	// nothing for a second run of the same sub-pass (copy propagation's
	// settled result: the code after it is what a run changing nothing
	// would have left), and lastChange the step of the last run that
	// changed something.
	var clean [5]int
	step, lastChange := 0, 0
	check := CheckBundleSkips.Load()
	settled := false // set by the copy-propagation run
	sub := func(i int, run func() bool) bool {
		step += 2
		if s == nil && clean[i] > lastChange {
			if !check {
				clean[i] = step
				return false
			}
			BundleSkipsChecked.Add(1)
			before := ori.Fingerprint(f)
			if run() || ori.Fingerprint(f) != before {
				panic(fmt.Sprintf("opt: GeneralOptimize sub-pass %d changed %s after a skip", i, f.Name))
			}
		} else if run() {
			lastChange = step
			if settled {
				clean[i] = step + 1
			}
			return true
		}
		clean[i] = step
		return false
	}
	changed, fixed := false, false
	for round := 0; round < maxBundleRounds; round++ {
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		c1 := sub(0, func() bool {
			var ch bool
			ch, settled = copyProp(f, s, cbank)
			return ch
		})
		settled = false
		c2 := sub(1, func() bool { return constFold(f, s) })
		// The floating-point folds share one table of known MOVs
		// (built at the first lookup; fpFold drops it when it changes
		// anything).
		k := &fpKnown{f: f}
		c3 := sub(2, func() bool { return fpFold(f, s, k) })
		c4 := f64c && sub(3, func() bool { return f64ConstOperands(f, s, c.Arch, k) })
		k.drop()
		c5 := ddiv && sub(4, func() bool { return ddivFold(f, s) })
		if !c1 && !c2 && !c3 && !c4 && !c5 {
			fixed = true
			break
		}
		changed = true
	}
	if err := f.ComputeCFG(); err != nil {
		return changed, err
	}
	if fixed && s == nil {
		if changed {
			fp = ori.Fingerprint(f)
		}
		f.NoteFixedPoint(memo, fp)
	}
	return changed, nil
}

// CheckBundleSkips, when set, makes every GeneralOptimize sub-pass the
// bundle would skip run anyway and panic if it changes the function: the
// tests compile large kernels with it, to show that a skipped sub-pass
// had nothing to do.
var CheckBundleSkips atomic.Bool

// BundleSkipsChecked counts the skipped sub-passes run under
// CheckBundleSkips.
var BundleSkipsChecked atomic.Int64

// GeneralOptimize is the GeneralOptimize bundle: copy propagation,
// constant folding and algebraic simplification to a fixed point. Its six
// phases (GeneralOptimizeEarly, GeneralOptimize, GeneralOptimizeMid,
// GeneralOptimizeMid2, GeneralOptimizeLate, GeneralOptimizeLate2) run the
// same bundle.
var GeneralOptimize = Pass{Run: generalOptimize}
