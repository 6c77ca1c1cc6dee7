package pipeline

import "orilab/pipeline/knobs"

// KnobCpAsyncLDGSTS chooses how the lowering writes cp.async on sm_80 and
// later: LDGSTS, LDGDEPBAR and DEPBAR as ptxas does (lower/cpasync.go),
// or, with 0, the synchronous copy through registers the lowering wrote
// before (a load into a register and a store per word, the partial words
// masked). sm_75 has no LDGSTS and always takes the synchronous copy.
const KnobCpAsyncLDGSTS = "CpAsyncLDGSTS"

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:    KnobCpAsyncLDGSTS,
		Type:    knobs.TypeBool,
		Default: "1",
		Doc:     "Lower cp.async on sm_80 and later to LDGSTS (global to shared without registers), LDGDEPBAR (commit_group) and DEPBAR.LE SB0, n (wait_group n), as ptxas does; 0 copies synchronously through registers.",
		Readers: []string{"lowering (cp.async)"},
	})
}

// cpAsyncLDGSTS tells the lowering whether to write LDGSTS for cp.async:
// unless the knob is off (nil knobs: the default, on).
func cpAsyncLDGSTS(ks *knobs.Set) bool {
	return ks == nil || ks.Bool(KnobCpAsyncLDGSTS)
}
