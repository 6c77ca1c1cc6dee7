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
	walkPragmas(m, func(fn, text string, _ ptx.Pos) {
		if fn == "" {
			module = append(module, text)
		} else {
			funcs[fn] = append(funcs[fn], text)
		}
	})
	return module, funcs
}

// PragmaPositions returns where each string Pragmas returns stands, as
// "FILE:LINE:COL" of its .pragma directive, in the same order.
func PragmaPositions(m *ptx.Module) (module []string, funcs map[string][]string) {
	funcs = map[string][]string{}
	walkPragmas(m, func(fn, _ string, p ptx.Pos) {
		pos := fmt.Sprintf("%s:%s", m.File, p)
		if fn == "" {
			module = append(module, pos)
		} else {
			funcs[fn] = append(funcs[fn], pos)
		}
	})
	return module, funcs
}

// walkPragmas calls visit for every string of every .pragma directive of
// m, in source order, with its function ("" at module scope).
func walkPragmas(m *ptx.Module, visit func(fn, text string, pos ptx.Pos)) {
	each := func(fn string, d *ptx.Directive) {
		if d.Name != ".pragma" {
			return
		}
		for _, a := range d.Args {
			visit(fn, strings.Trim(a, `"`), d.Pos)
		}
	}
	for _, it := range m.Items {
		switch x := it.(type) {
		case *ptx.Directive:
			each("", x)
		case *ptx.Func:
			for _, d := range x.Dirs {
				each(x.Name, d)
			}
			if x.Body != nil {
				var walk func(b *ptx.Block)
				walk = func(b *ptx.Block) {
					for _, s := range b.Stmts {
						switch y := s.(type) {
						case *ptx.Directive:
							each(x.Name, y)
						case *ptx.Block:
							walk(y)
						}
					}
				}
				walk(x.Body)
			}
		}
	}
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
