package opt

import (
	"strings"

	"orilab/pipeline/ori"
)

// Sequence returns one pass that runs ps in order on each function: the
// architecture hook rows (LateArchOptimizeFirst, LateArchOptimizeSecond)
// hold several independent SASS-form folds, each in its own file with its
// own knob. The sequence is a no-op only when every part is (its reason
// then lists theirs); a part that is switched off is skipped.
func Sequence(ps ...Pass) Pass {
	return Pass{
		Run: func(f *ori.Func, c *Context) (bool, error) {
			changed := false
			for _, p := range ps {
				if p.NoOp != nil && p.NoOp(c) != "" {
					continue
				}
				ch, err := p.Run(f, c)
				changed = changed || ch
				if err != nil {
					return changed, err
				}
			}
			return changed, nil
		},
		NoOp: func(c *Context) string {
			var why []string
			for _, p := range ps {
				if p.NoOp == nil {
					return ""
				}
				r := p.NoOp(c)
				if r == "" {
					return ""
				}
				why = append(why, r)
			}
			return strings.Join(why, "; ")
		},
	}
}

// The rows of the phase table that hold several folds.
var (
	// LateArchFirst is LateArchOptimizeFirst: the IMAD.WIDE fold, load
	// narrowing, texture write-mask narrowing, then loop inversion and the
	// back edge of header-exit loops moved to the header's end.
	LateArchFirst = Sequence(FoldIMADWide, NarrowLoads, NarrowTexMasks, InvertLoops, FoldHeaderExitLoops)
	// LateArchSecond is LateArchOptimizeSecond: the address-offset fold,
	// the same-constant remat, the address-chain fold (which folds what
	// the remat leaves), the 32- and 64-bit LEA folds and the
	// comparison-predicate fold.
	LateArchSecond = Sequence(FoldOffsets, RematSameConsts, FoldAddressChains, FoldLEA, FoldLEAHI, FoldSetpPred, RematPredicates)
	// LiveDeadLoops is OriPerformLiveDeadFourth: dead loops and the
	// argument moves whole-seen callees do not read, constants loaded
	// again after the calls they were live across, then dead code
	// (which all three leave more of), then the split of tuples that the
	// remaining code accesses only word by word.
	LiveDeadLoops = Sequence(DeadLoops, DeadCallArgs, CallRemat, LiveDead, SplitTuples)
)
