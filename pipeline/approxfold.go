package pipeline

import "orilab/pipeline/knobs"

// KnobFoldApproxConstants decides whether the lowering folds rcp, sqrt,
// rsqrt, lg2, ex2, sin and cos .approx.f32 of a compile-time constant to
// the result ptxas 13.0 computes for it (lower/approxfold.go has the rule
// and the measurements). ptxas folds from -O1 on; orilab folds at every
// -O level, as it contracts FMAs, so that every level computes what
// ptxas's -O3 code computes. It changes what a program computes.
const KnobFoldApproxConstants = "FoldApproxConstants"

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:    KnobFoldApproxConstants,
		Type:    knobs.TypeBool,
		Default: "1",
		Doc:     "Fold rcp/sqrt/rsqrt/lg2/ex2/sin/cos .approx.f32 of a compile-time constant to ptxas's correctly rounded compile-time result at lowering, at every -O level (ptxas -O1 and above); 0 leaves them to the SFU.",
		Readers: []string{"lowering (lower/approxfold.go)"},
	})
}

// noApproxFold reports whether the knobs turn the fold off (nil: the
// defaults, folding on).
func noApproxFold(ks *knobs.Set) bool {
	return ks != nil && !ks.Bool(KnobFoldApproxConstants)
}
