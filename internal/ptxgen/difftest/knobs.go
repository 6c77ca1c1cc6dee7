package difftest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"orilab/internal/ptxgen"
	"orilab/pipeline"
	"orilab/pipeline/knobs"
)

// Random knob settings.
//
// A random configuration disables a random subset of the optional phases
// that run at its -O level (the DisablePhases knob), and gives random
// values to a random subset of the code-generation knobs registered in
// knobs.Default. The candidates are found in the registry, not in a list
// kept here, so knobs that other packages register later are fuzzed too.
//
// Decision: which knobs are code-generation knobs, and their values. The
// registry records a knob's type and default but not its valid range, so:
//   - knobs the phase manager and the driver read (DisablePhases, which is
//     drawn separately, NamedPhases, DUMPIR, BisectSites, DumpKnobs,
//     DisablePragmaKnobs) and knobs that only print or report (names with
//     Dump, Print, Debug, Report, Verbose, Log or Stat) are left alone;
//   - knobs with a known meaning get values from knobDomains;
//   - other bool knobs get 0 or 1; int and budget knobs a value near
//     their default (0, 1, 2, half, the default, double); float and
//     double knobs 0, 0.5, 1, 2 or half and double the default; knobs of
//     other types (ranges, lists, strings) only through knobDomains.
//
// A value the knob's own validation rejects is dropped (the loader says
// so before any compilation), so the fuzzer never reports a bad knob
// value as a compiler bug.

// knobDomains are the values tried for knobs whose valid settings the
// type and the default do not tell.
var knobDomains = map[string][]string{
	"RegTargetList":                        {"24", "32", "24,48", "32,64,128", "40,255", "64"},
	"RegAllocRematDisableRange":            {"0..10", "5..", "..20", "0..1000"},
	"RegAllocEstimatedLoopIterations":      {"1", "2", "8", "100"},
	"RegAllocThresholdForDiscardConflicts": {"0", "1", "5", "50", "500"},
	"SchedMaxRTarget":                      {"0", "24", "32", "64", "128"},
	"LoopUnrollFactor":                     {"0", "1", "2", "3", "4", "8"},
}

// driverKnobs are read by the phase manager or the driver, not by code
// generation.
var driverKnobs = map[string]bool{
	"disablephases": true, "namedphases": true, "dumpir": true, "bisectsites": true,
	"dumpknobs": true, "disablepragmaknobs": true,
}

// meaningKnobs change what a program computes, not how: a configuration
// that set one would differ from the oracle (lowered with the defaults)
// without a bug. FMAContraction decides whether mul+add is fused,
// FoldApproxConstants whether an .approx function of a constant is
// ptxas's compile-time result.
var meaningKnobs = map[string]bool{
	strings.ToLower(pipeline.KnobFMAContraction):      true,
	strings.ToLower(pipeline.KnobFoldApproxConstants): true,
}

func isCodegenKnob(k knobs.Knob) bool {
	if driverKnobs[strings.ToLower(k.Name)] || meaningKnobs[strings.ToLower(k.Name)] {
		return false
	}
	for _, w := range []string{"Dump", "Print", "Debug", "Report", "Verbose", "Log", "Stat"} {
		if strings.Contains(k.Name, w) {
			return false
		}
	}
	return true
}

// knobValues returns the candidate values of a knob, or nil.
func knobValues(k knobs.Knob) []string {
	if d, ok := knobDomains[k.Name]; ok {
		return d
	}
	def, hasDef := knobs.Default.DefaultValue(k.Name)
	switch k.Type {
	case knobs.TypeBool:
		return []string{"0", "1"}
	case knobs.TypeInt, knobs.TypeBudget:
		d := int32(0)
		if hasDef {
			d = def.Int()
		}
		set := map[int32]bool{0: true, 1: true, 2: true}
		if d > 0 {
			set[d/2], set[d], set[2*d] = true, true, true
		}
		var out []string
		for v := range set {
			out = append(out, fmt.Sprint(v))
		}
		sort.Strings(out)
		return out
	case knobs.TypeFloat, knobs.TypeDouble:
		d := 1.0
		if hasDef {
			if k.Type == knobs.TypeFloat {
				d = float64(def.Float())
			} else {
				d = def.Double()
			}
		}
		return []string{"0", "0.5", "1", "2", fmt.Sprint(d / 2), fmt.Sprint(d * 2)}
	}
	return nil
}

// RandomKnobs returns random -knob settings for one compilation of a
// program for sm_arch at -O level, drawn from seed: reproducible from the
// three. It may return no settings (the defaults), which is a
// configuration worth testing too.
func RandomKnobs(seed uint64, level, arch int) []string {
	r := ptxgen.NewRand(seed ^ uint64(level+1)*0x9e3779b97f4a7c15)
	var out []string
	if r.Percent(60) {
		p := []int{10, 20, 40}[r.Intn(3)]
		var dis []string
		for _, row := range pipeline.PhasePlan(level, arch) {
			if row.Runs && !row.Required && r.Percent(p) {
				dis = append(dis, row.Name)
			}
		}
		if len(dis) > 0 {
			out = append(out, "DisablePhases="+strings.Join(dis, "+"))
		}
	}
	share := []int{10, 25, 50}[r.Intn(3)]
	for _, k := range knobs.Default.All() {
		if !isCodegenKnob(k) {
			continue
		}
		vals := knobValues(k)
		if len(vals) == 0 || !r.Percent(share) {
			continue
		}
		setting := k.Name + "=" + vals[r.Intn(len(vals))]
		if _, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: []string{setting}}); err != nil {
			continue // the knob's validation rejects this value
		}
		out = append(out, setting)
	}
	return out
}

// Configs returns the compilations to compare for a program: every level
// with the base settings and, with random, every level once more with
// random settings (drawn from the program's seed) on top of them.
func Configs(levels []int, seed uint64, arch int, random bool, base []string) []Config {
	var out []Config
	for _, l := range levels {
		out = append(out, Config{OptLevel: l, Knobs: mergeKnobs(base, nil)})
	}
	if random {
		for _, l := range levels {
			if k := RandomKnobs(seed, l, arch); len(k) > 0 {
				out = append(out, Config{OptLevel: l, Knobs: mergeKnobs(base, k), Random: true})
			}
		}
	}
	return out
}

// mergeKnobs returns base followed by extra, with the DisablePhases
// settings of both joined into one (a later DisablePhases would replace
// an earlier one). It returns nil when there is nothing.
func mergeKnobs(base, extra []string) []string {
	var out, dis []string
	for _, s := range append(append([]string(nil), base...), extra...) {
		n, v, _ := strings.Cut(s, "=")
		if strings.EqualFold(strings.TrimSpace(n), "DisablePhases") {
			if v != "" {
				dis = append(dis, v)
			}
			continue
		}
		out = append(out, s)
	}
	if len(dis) > 0 {
		out = append([]string{"DisablePhases=" + strings.Join(dis, "+")}, out...)
	}
	return out
}

// ParseLevels reads a list of -O levels: "3", "0,3" or "0-3" (and
// combinations, "0-1,3"), each 0 to 4, without repeats, in order of
// first mention.
func ParseLevels(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("%q is not a level", part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range of levels", part)
			}
		}
		for v := a; v <= b; v++ {
			if v < 0 || v > 4 {
				return nil, fmt.Errorf("level %d: want 0 to 4", v)
			}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out, nil
}
