package opt

import "orilab/pipeline/ori"

// Sites counts the rewrites ("sites") one run of a phase makes, and can
// enable only a range of them: orilab's counterpart of LLVM's
// -opt-bisect-limit and DebugCounter, and GCC's -fdbg-cnt. Site bisection
// (orilab bisect --mode sites) uses it to find the single rewrite of a
// culprit phase that causes a miscompile.
//
// Every transforming pass asks before each rewrite it makes. Sites are
// numbered from 1 in the order the pass proposes them, which is a
// deterministic walk of the IR. Enabling a prefix 1..k therefore keeps
// sites 1..k exactly as in the unrestricted run: disabling later sites
// cannot change what the pass saw before them. A range that does not start
// at 1 is well defined (the numbering then follows the restricted run) but
// only prefixes are guaranteed to be stable.
type Sites struct {
	// Lo and Hi are the enabled range, 1-based and inclusive. Limit
	// turns the range on; without it every site is enabled.
	Lo, Hi int
	Limit  bool
	// Record keeps a log of every site proposed.
	Record bool
	// N is the number of sites proposed so far.
	N   int
	Log []Site
}

// Site is one proposed rewrite.
type Site struct {
	N       int    `json:"n"`
	Func    string `json:"func"`
	Inst    int32  `json:"inst"` // the instruction rewritten (or deleted, or that ends the block changed)
	What    string `json:"what"`
	Allowed bool   `json:"allowed"`
}

// Allow numbers the next site and reports whether it may be applied. A nil
// Sites allows everything.
func (s *Sites) Allow(f *ori.Func, id int32, what string) bool {
	if s == nil {
		return true
	}
	s.N++
	ok := !s.Limit || (s.N >= s.Lo && s.N <= s.Hi)
	if s.Record {
		s.Log = append(s.Log, Site{N: s.N, Func: f.Name, Inst: id, What: what, Allowed: ok})
	}
	return ok
}

// limited reports whether some site may be refused, so a caller must keep
// a copy to undo a rewrite it has already made in place.
func (s *Sites) limited() bool { return s != nil && s.Limit }

// Try runs rewrite, which changes in in place and reports whether it did.
// When it did and the site is not enabled, in is restored. It returns
// whether in was (and stays) changed.
func (s *Sites) Try(f *ori.Func, in *ori.Inst, what string, rewrite func() bool) bool {
	if s == nil {
		return rewrite()
	}
	var saved *ori.Inst
	if s.limited() {
		saved = in.Clone()
	}
	if !rewrite() {
		return false
	}
	if s.Allow(f, in.ID, what) {
		return true
	}
	*in = *saved
	return false
}
