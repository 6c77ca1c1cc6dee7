package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// KnobBisectSites enables only a range of one phase's rewrites:
// "PHASE:LO..HI" (1-based, inclusive), "PHASE:N" (sites 1..N) or
// "PHASE:0" (none). It is orilab's own knob (ptxas has no site counter);
// orilab bisect --mode sites sets it, and a user can replay a site
// bisection's answer with it.
const KnobBisectSites = "BisectSites"

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:     KnobBisectSites,
		Type:     knobs.TypeString,
		Doc:      "Apply only rewrites LO..HI of one phase: PHASE:LO..HI, PHASE:N (1..N) or PHASE:0 (none); orilab bisect --mode sites sets it.",
		Readers:  []string{"phase manager (every transforming phase counts its rewrites)"},
		Validate: func(v knobs.Value) error { _, err := ParseSiteLimit(v.Str()); return err },
	})
}

// SiteLimit restricts one phase to a range of its rewrites.
type SiteLimit struct {
	Phase  string
	Lo, Hi int
}

func (l SiteLimit) String() string {
	if l.Lo == 1 {
		return fmt.Sprintf("%s:%d", l.Phase, l.Hi)
	}
	if l.Hi < l.Lo {
		return l.Phase + ":0"
	}
	return fmt.Sprintf("%s:%d..%d", l.Phase, l.Lo, l.Hi)
}

// ParseSiteLimit parses a BisectSites value. The phase name is checked
// against the phase table.
func ParseSiteLimit(s string) (SiteLimit, error) {
	name, rng, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return SiteLimit{}, fmt.Errorf("want PHASE:LO..HI or PHASE:N, got %q", s)
	}
	i, err := LookupPhase(name)
	if err != nil {
		return SiteLimit{}, err
	}
	l := SiteLimit{Phase: PhaseTable[i].Name}
	num := func(t string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("site %q in %q is not a non-negative integer", t, s)
		}
		return n, nil
	}
	if lo, hi, isRange := strings.Cut(rng, ".."); isRange {
		if l.Lo, err = num(lo); err != nil {
			return SiteLimit{}, err
		}
		if l.Hi, err = num(hi); err != nil {
			return SiteLimit{}, err
		}
		if l.Lo == 0 || l.Hi < l.Lo {
			return SiteLimit{}, fmt.Errorf("site range %q: want 1 <= LO <= HI", rng)
		}
		return l, nil
	}
	n, err := num(rng)
	if err != nil {
		return SiteLimit{}, err
	}
	l.Lo, l.Hi = 1, n
	return l, nil
}

// Allow is for phase bodies outside package opt (and test overrides): it
// numbers a rewrite of the running phase and reports whether it may be
// applied under BisectSites.
func (c *PhaseContext) Allow(f *ori.Func, id int32, what string) bool {
	return c.Sites.Allow(f, id, what)
}
