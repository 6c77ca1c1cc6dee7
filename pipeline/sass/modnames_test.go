package sass

import "testing"

// TestModNamesDistinct: in every modifier group of every form, each value
// and each name appears once. The groups were maps, where a repeated
// value kept its last name and the encoder's search over names (match,
// valueOf) ran in map order; as slices of pairs both are first-come, so
// the tables must not depend on either.
func TestModNamesDistinct(t *testing.T) {
	for _, fm := range forms().all {
		for _, g := range fm.mods {
			values := map[uint64]bool{}
			names := map[string]bool{}
			for _, n := range g.names {
				if values[n.v] {
					t.Errorf("%s %v: group at bit %d names value %d twice", fm.op, fm.key, g.pos, n.v)
				}
				if names[n.name] {
					t.Errorf("%s %v: group at bit %d has the name %q twice", fm.op, fm.key, g.pos, n.name)
				}
				values[n.v], names[n.name] = true, true
			}
		}
	}
}
