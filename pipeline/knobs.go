package pipeline

import (
	"fmt"
	"strings"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ptx"
)

// Pragmas returns the .pragma strings of a module, without quotes: the
// module-scope ones, and per function the ones in its header and body.
// The knob loader reads knob settings from them.
func Pragmas(m *ptx.Module) (module []string, funcs map[string][]string) {
	funcs = map[string][]string{}
	unquote := func(d *ptx.Directive) []string {
		var out []string
		for _, a := range d.Args {
			out = append(out, strings.Trim(a, `"`))
		}
		return out
	}
	for _, it := range m.Items {
		switch x := it.(type) {
		case *ptx.Directive:
			if x.Name == ".pragma" {
				module = append(module, unquote(x)...)
			}
		case *ptx.Func:
			for _, d := range x.Dirs {
				if d.Name == ".pragma" {
					funcs[x.Name] = append(funcs[x.Name], unquote(d)...)
				}
			}
			if x.Body != nil {
				var walk func(b *ptx.Block)
				walk = func(b *ptx.Block) {
					for _, s := range b.Stmts {
						switch y := s.(type) {
						case *ptx.Directive:
							if y.Name == ".pragma" {
								funcs[x.Name] = append(funcs[x.Name], unquote(y)...)
							}
						case *ptx.Block:
							walk(y)
						}
					}
				}
				walk(x.Body)
			}
		}
	}
	return module, funcs
}

// ApplyKnobs sets the phase-manager options that knobs control:
// DisablePhases, NamedPhases and DUMPIR. Names are validated when the
// session starts.
func (po *PhaseOptions) ApplyKnobs(s *knobs.Set) error {
	if s == nil {
		return nil
	}
	po.Knobs = s
	po.DisablePhases = append(po.DisablePhases, s.DisabledPhases()...)
	if _, known := s.Registry().Lookup(KnobBisectSites); known && s.Str(KnobBisectSites) != "" {
		v := s.Str(KnobBisectSites)
		l, err := ParseSiteLimit(v)
		if err != nil {
			return fmt.Errorf("%s: %v", KnobBisectSites, err)
		}
		po.Sites = &l
	}
	if d := s.DumpIR(); d != "" {
		po.DumpIR = d
	}
	for _, np := range s.NamedPhases() {
		if np.Param != "" {
			return fmt.Errorf("NamedPhases: %s=%s: orilab's phases take no parameters", np.Name, np.Param)
		}
		po.NamedPhases = append(po.NamedPhases, np.Name)
	}
	return nil
}
