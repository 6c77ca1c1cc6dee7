package pipeline

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/lower"
)

// The f64 division's slow path out of line, at LateExpansionUnsupportedOps
// (86): lower/slowpath.go has the design and ptxas's SASS it follows;
// this file is the knob and the choice of when it applies.
//
// Decision: only the late expansion outlines. At -O0 ConvertUnsupportedOps
// (5) keeps the slow path inline: -O0 is for reading and stepping
// through the code, and there a CALL to a subroutine the PTX never named
// is one more thing to explain, while the register count it saves is
// not what -O0 is for.

// KnobOutlineF64SlowPath switches the outlining off (0: the slow path
// stays inline in each division, as before).
const KnobOutlineF64SlowPath = "OutlineF64SlowPath"

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:    KnobOutlineF64SlowPath,
		Type:    knobs.TypeBool,
		Default: "1",
		Doc:     "Expand the exact slow path of f64 division (div.rnd.f64) as a CALL to one subroutine per rounding mode, as ptxas does (__cuda_sm20_div_rn_f64_full); 0 keeps it inline in every division.",
		Readers: []string{"LateExpansionUnsupportedOps"},
	})
}

// slowPaths returns the outliner the expansion of phase c uses, nil when
// the slow paths stay inline.
func slowPaths(c *PhaseContext, late bool) *lower.SlowPaths {
	if !late || !c.knobSet().Bool(KnobOutlineF64SlowPath) {
		return nil
	}
	return lower.NewSlowPaths(c.Module)
}
