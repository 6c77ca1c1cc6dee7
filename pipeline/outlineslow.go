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
		Doc:     "Above -O0, put the slow paths of f64 division and reciprocal (div.rnd.f64, rcp.rnd.f64: one subroutine per rounding mode) and of rsqrt.approx.f64 out of line behind a CALL, as ptxas does (__cuda_sm20_div_rn_f64_full, __cuda_sm20_drsqrt_f64_slowpath_v2); 0 keeps them inline.",
		Readers: []string{"lowering (rsqrt.approx.f64)", "LateExpansionUnsupportedOps"},
	})
}

// outlineAtLowering tells the lowering whether to put the slow path of
// rsqrt.approx.f64 out of line (it has no operation kept whole for the
// late expansion): above -O0, unless the knob is off (nil knobs: the
// defaults, on).
func outlineAtLowering(po PhaseOptions) bool {
	return po.OptLevel > 0 && (po.Knobs == nil || po.Knobs.Bool(KnobOutlineF64SlowPath))
}

// slowPaths returns the outliner the expansion of phase c uses, nil when
// the slow paths stay inline.
func slowPaths(c *PhaseContext, late bool) *lower.SlowPaths {
	if !late || !c.knobSet().Bool(KnobOutlineF64SlowPath) {
		return nil
	}
	return lower.NewSlowPaths(c.Module)
}
