package pipeline

import "orilab/pipeline/knobs"

// KnobFMAContraction decides whether the lowering contracts a PTX mul and
// add (or sub) without rounding modifiers into one fused multiply-add, as
// ptxas does by default (lower/contract.go has the rules and the
// measurements). compile's --fmad=false sets it to false. It changes what
// a program computes, at every -O level alike.
const KnobFMAContraction = "FMAContraction"

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:    KnobFMAContraction,
		Type:    knobs.TypeBool,
		Default: "1",
		Doc:     "Contract mul+add/sub without a rounding modifier into FFMA/DFMA/HFMA2 at lowering, as ptxas --fmad=true (the default); 0 keeps them apart, as --fmad=false.",
		Readers: []string{"lowering (lower/contract.go)"},
	})
}

// noContract reports whether the knobs turn contraction off (nil: the
// defaults, contraction on).
func noContract(ks *knobs.Set) bool {
	return ks != nil && !ks.Bool(KnobFMAContraction)
}
