package spec

// Element is one element of a checked buffer, for showing what lies
// around a mismatch: the workbench's Run pane shows the elements next to
// the first one that differs, got against want, so that a shifted or
// swapped result is seen as such.
type Element struct {
	Index     int
	Got, Want string // values as FormatValue writes them
	// Match reports whether the element passes (as Check judges it,
	// tolerance included); Ignored that ignore_indices skips it.
	Match, Ignored bool
}

// Around returns the elements index-radius to index+radius (clipped to
// the expectation) of buffer got against e. It returns nil when got is
// too short or e cannot be checked (Check says why).
func (e Expect) Around(got []byte, index, radius int) []Element {
	info, ok := elemTypes[e.Elem]
	if !ok || e.Count <= 0 || len(got) < e.Count*info.size || e.AllEqual == nil && len(e.Values) != e.Count {
		return nil
	}
	var out []Element
	for i := max(index-radius, 0); i <= index+radius && i < e.Count; i++ {
		g := getLE(got[i*info.size:], info.size)
		w := uint64(0)
		if e.AllEqual != nil {
			w = *e.AllEqual & info.mask()
		} else {
			w = e.Values[i]
		}
		out = append(out, Element{Index: i, Got: FormatValue(g, e.Elem), Want: FormatValue(w, e.Elem),
			Match: match(g, w, info, e.Tolerance), Ignored: e.IgnoreIndices[i]})
	}
	return out
}
