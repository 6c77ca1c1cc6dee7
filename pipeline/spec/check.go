package spec

import (
	"fmt"
	"math"
	"strings"
)

// MaxMismatches is how many mismatches a Result lists (the first ones, in
// index order); Result.Mismatched counts them all.
const MaxMismatches = 10

// Result is the outcome of checking one expected buffer.
type Result struct {
	Param      string     `json:"param"`
	Elem       string     `json:"elem"`
	Count      int        `json:"count"`             // elements in the expectation
	Ignored    int        `json:"ignored,omitempty"` // of those, skipped by ignore_indices
	Pass       bool       `json:"pass"`
	Mismatched int        `json:"mismatched"`      // elements that differ
	First      []Mismatch `json:"first,omitempty"` // the first MaxMismatches of them
	// Error is set when the buffer could not be compared at all (too short,
	// malformed expectation); Pass is then false.
	Error string `json:"error,omitempty"`
}

// Mismatch is one differing element. Got and Want are bit patterns; the
// JSON form carries them as zero-padded hex and as values.
type Mismatch struct {
	Index     int    `json:"index"`
	Got       uint64 `json:"-"`
	Want      uint64 `json:"-"`
	GotHex    string `json:"got"`
	WantHex   string `json:"want"`
	GotValue  string `json:"got_value"`
	WantValue string `json:"want_value"`
}

// Check compares a buffer's contents (at least Count elements of Elem,
// little-endian; extra bytes are not looked at) with the expectation.
//
// Without a Tolerance an element passes when its bits equal the expected
// bits exactly (so +0 differs from -0, and NaN payloads must match). With a
// Tolerance (float elements only), an element also passes when
//   - both are NaN (any NaN matches any NaN; NaN never matches a number);
//   - rel/abs: both are numbers and |got-want| <= Abs + Rel*|want|, computed
//     in float64 (exact for f16, bf16 and f32 inputs); an infinity only
//     matches the same infinity;
//   - ulp: the ulp distance is at most ULP. The distance is |o(got)-o(want)|
//     where o maps a float's bits to an ordered integer: o(x) = magnitude
//     bits for a positive sign, -(magnitude bits) for a negative sign. So
//     +0 and -0 are 0 apart, adjacent floats 1 apart, and the largest finite
//     value is 1 ulp from infinity.
func (e Expect) Check(got []byte) Result {
	r := Result{Param: e.Param, Elem: e.Elem, Count: e.Count}
	info, ok := elemTypes[e.Elem]
	switch {
	case !ok:
		r.Error = fmt.Sprintf("unknown element type %q", e.Elem)
		return r
	case e.Count <= 0:
		r.Error = fmt.Sprintf("bad element count %d", e.Count)
		return r
	case e.AllEqual == nil && len(e.Values) != e.Count:
		r.Error = fmt.Sprintf("expectation has %d values for %d elements", len(e.Values), e.Count)
		return r
	case e.Tolerance != nil && !info.float:
		r.Error = fmt.Sprintf("tolerance given for %s elements", e.Elem)
		return r
	case len(got) < e.Count*info.size:
		r.Error = fmt.Sprintf("buffer has %d bytes, want at least %d (%d %s elements)", len(got), e.Count*info.size, e.Count, e.Elem)
		return r
	}
	for i := 0; i < e.Count; i++ {
		if e.IgnoreIndices[i] {
			r.Ignored++
			continue
		}
		g := getLE(got[i*info.size:], info.size)
		var w uint64
		if e.AllEqual != nil {
			w = *e.AllEqual & info.mask()
		} else {
			w = e.Values[i]
		}
		if match(g, w, info, e.Tolerance) {
			continue
		}
		r.Mismatched++
		if len(r.First) < MaxMismatches {
			r.First = append(r.First, Mismatch{
				Index: i, Got: g, Want: w,
				GotHex: FormatBits(g, e.Elem), WantHex: FormatBits(w, e.Elem),
				GotValue: FormatValue(g, e.Elem), WantValue: FormatValue(w, e.Elem),
			})
		}
	}
	r.Pass = r.Mismatched == 0
	return r
}

func match(g, w uint64, info elemInfo, t *Tolerance) bool {
	if g == w {
		return true
	}
	if t == nil || !info.float {
		return false
	}
	gn, wn := isNaNBits(g, info), isNaNBits(w, info)
	if gn || wn {
		return gn && wn
	}
	switch t.Kind {
	case TolRelAbs:
		gf, wf := bitsFloat(g, info), bitsFloat(w, info)
		if math.IsInf(gf, 0) || math.IsInf(wf, 0) {
			return gf == wf
		}
		return math.Abs(gf-wf) <= t.Abs+t.Rel*math.Abs(wf)
	case TolULP:
		return t.ULP >= 0 && ULPDistance(g, w, info.bits()) <= uint64(t.ULP)
	}
	return false
}

// bitsFloat converts a float element's bits to float64.
func bitsFloat(b uint64, info elemInfo) float64 {
	switch {
	case info.size == 8:
		return toFloat64(b, "f64")
	case info.size == 4:
		return toFloat64(b, "f32")
	case info.ebits == 5:
		return toFloat64(b, "f16")
	}
	return toFloat64(b, "bf16")
}

// ULPDistance returns the distance between two float bit patterns of the
// given width (16, 32 or 64) on the ordered integer representation (see
// Expect.Check). It is meaningless for NaNs.
func ULPDistance(a, b uint64, width int) uint64 {
	sign := uint64(1) << uint(width-1)
	ma, mb := a&(sign-1), b&(sign-1)
	na, nb := a&sign != 0, b&sign != 0
	if na == nb {
		if ma > mb {
			return ma - mb
		}
		return mb - ma
	}
	return ma + mb
}

// Check checks every expectation of the spec. buffers[i] holds the contents
// of parameter i's allocation after the launch (nil for scalars and
// same_as parameters); an expectation on a same_as parameter reads the
// buffer it names.
func (s *Spec) Check(buffers [][]byte) []Result {
	out := make([]Result, 0, len(s.Expect))
	for _, e := range s.Expect {
		o := s.Owner(e.ParamIndex)
		if o < 0 || o >= len(buffers) {
			out = append(out, Result{Param: e.Param, Elem: e.Elem, Count: e.Count,
				Error: fmt.Sprintf("no buffer for parameter %q", e.Param)})
			continue
		}
		out = append(out, e.Check(buffers[o]))
	}
	return out
}

// AllPass reports whether every result passed.
func AllPass(rs []Result) bool {
	for _, r := range rs {
		if !r.Pass {
			return false
		}
	}
	return true
}

// FormatResults renders results for people, one line per expectation plus
// one indented line per further listed mismatch:
//
//	c: PASS (512 elements)
//	c: PASS (512 elements, 3 ignored)
//	c: FAIL 3 of 512 elements differ; first: [7] got 0x3f800000 (1) want 0x40000000 (2)
//	    [9] got 0x00000000 (0) want 0x40400000 (3)
//	c: ERROR buffer has 12 bytes, want at least 16 (4 u32 elements)
func FormatResults(rs []Result) string {
	var b strings.Builder
	for _, r := range rs {
		ignored := ""
		if r.Ignored > 0 {
			ignored = fmt.Sprintf(", %d ignored", r.Ignored)
		}
		switch {
		case r.Error != "":
			fmt.Fprintf(&b, "%s: ERROR %s\n", r.Param, r.Error)
		case r.Pass:
			fmt.Fprintf(&b, "%s: PASS (%d elements%s)\n", r.Param, r.Count, ignored)
		default:
			if ignored != "" {
				ignored = " (" + ignored[2:] + ")"
			}
			fmt.Fprintf(&b, "%s: FAIL %d of %d elements differ%s", r.Param, r.Mismatched, r.Count, ignored)
			for i, m := range r.First {
				if i == 0 {
					fmt.Fprintf(&b, "; first: %s\n", m)
				} else {
					fmt.Fprintf(&b, "    %s\n", m)
				}
			}
			if len(r.First) == 0 {
				b.WriteString("\n")
			}
			if more := r.Mismatched - len(r.First); more > 0 && len(r.First) > 0 {
				fmt.Fprintf(&b, "    ... and %d more\n", more)
			}
		}
	}
	return b.String()
}

// String formats a mismatch as "[7] got 0x3f800000 (1) want 0x40000000 (2)".
func (m Mismatch) String() string {
	return fmt.Sprintf("[%d] got %s (%s) want %s (%s)", m.Index, m.GotHex, m.GotValue, m.WantHex, m.WantValue)
}
