package pipeline

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/lower"
)

// The f64 slow paths out of line, at ConvertUnsupportedOps (5, -O0),
// LateExpansionUnsupportedOps (86) and in the lowering (rsqrt.approx.f64):
// lower/slowpath.go has the design and ptxas's SASS it follows; this
// file is the knob and the choice of when it applies.
//
// Decision: both expansions outline, at -O0 too (ConvertUnsupportedOps,
// 5, and the lowering of rsqrt.approx.f64), as ptxas keeps its slow
// paths out of line at every level. Inline at -O0 only, a kernel that
// takes the slow path executed more instructions at -O3 than at -O0
// (the CALL, the RET and the argument moves; TestDynamicCountO3NotAboveO0:
// h100_div 161 against 133, rsqrt_f64_nan 115 against 73).

// KnobOutlineF64SlowPath switches the outlining off (0: the slow path
// stays inline in each division, as before).
const KnobOutlineF64SlowPath = "OutlineF64SlowPath"

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:    KnobOutlineF64SlowPath,
		Type:    knobs.TypeBool,
		Default: "1",
		Doc:     "Put the slow paths of f64 division and reciprocal (div.rnd.f64, rcp.rnd.f64: one subroutine per rounding mode) and of rsqrt.approx.f64 out of line behind a CALL, as ptxas does (__cuda_sm20_div_rn_f64_full, __cuda_sm20_drsqrt_f64_slowpath_v2); 0 keeps them inline.",
		Readers: []string{"lowering (rsqrt.approx.f64)", "ConvertUnsupportedOps", "LateExpansionUnsupportedOps"},
	})
}

// KnobOutlineF32SlowPath puts the f32 division's slow path (the exact
// f64 detour that FCHK.DIVIDE sends subnormal, huge and special operands
// to) out of line in the lowering, at every -O level like the f64 ones,
// as ptxas 13.0.88 does (__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath;
// 5 CALLs of it in rpes.ptx's ComputeX).
//
// Decision: off by default: with this slow path it does not pay. The
// subroutine takes R0-R17 (the detour's f64 pairs, the arguments in R4
// and R5, the return address in R2:R3), and every value its callers keep
// across the call goes above those, where inline the detour's
// temporaries share registers with the caller's dead ones. Measured at
// sm_80 -O3 over the 40 first corpus and testdata files with an IEEE f32
// division: 22 kernels gained 1-3 registers (simpleGL_kernel 18 -> 20,
// particles_kernel 46 -> 48, bodysystemcuda 39 -> 42) and 2 lost 2
// (find_ellipse 32 -> 30, imageDenoising 26 -> 24); ComputeX stays at 48
// (its peak is where the pre-allocation scheduler issues the texture
// fetches: 42 outlined and 46 inline with ScheduleInstructions off).
// ptxas's subroutine uses about six registers; outlining pays once this
// slow path is as lean.
const KnobOutlineF32SlowPath = "OutlineF32SlowPath"

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:    KnobOutlineF32SlowPath,
		Type:    knobs.TypeBool,
		Default: "0",
		Doc:     "Put the slow path of the IEEE f32 division (div.rnd.f32, rcp.rnd.f32: one subroutine per rounding and flush mode) out of line behind a CALL, as ptxas does (__cuda_sm3x_div_rn_noftz_f32_slowpath); 0 keeps it inline.",
		Readers: []string{"lowering (div.rnd.f32, rcp.rnd.f32)"},
	})
}

// outlineF32Div tells the lowering whether to put the slow path of the
// f32 division out of line: when the knob is on (nil knobs: the
// default, off).
func outlineF32Div(ks *knobs.Set) bool {
	return ks != nil && ks.Bool(KnobOutlineF32SlowPath)
}

// outlineAtLowering tells the lowering whether to put the slow path of
// rsqrt.approx.f64 out of line (it has no operation kept whole for the
// late expansion): unless the knob is off (nil knobs: the defaults, on).
func outlineAtLowering(ks *knobs.Set) bool {
	return ks == nil || ks.Bool(KnobOutlineF64SlowPath)
}

// slowPaths returns the outliner the expansion of phase c uses, nil when
// the slow paths stay inline.
func slowPaths(c *PhaseContext) *lower.SlowPaths {
	if !c.knobSet().Bool(KnobOutlineF64SlowPath) {
		return nil
	}
	return lower.NewSlowPaths(c.Module)
}
