package knobs

import (
	"fmt"
	"math"
	"strings"
)

// This file is ptxas's ParseKnobsString (sub_79B530, 001:39914-39930): the
// one parser every source goes through. Its input is a string of records;
// a record is one of
//
//	NAME                          a bool knob, or a NULL value (ParseNoValue)
//	NAME=VALUE                    an assignment
//	K=NAME[=VALUE]                the same, spelled with the direct-knob prefix
//	WHEN=COND;...;NAME=VALUE;...  assignments that apply only where every COND holds
//	INJECTSTRING...;;             recognised and ignored, with a warning
//
// where COND is SH=HASH or IH=HASH and HASH is a 32-bit number (decimal,
// 0x hex, 0 octal) or a range lo..hi with either end open. The prefixes are
// matched ignoring case (001:39922).
//
// Where the seed is silent:
//   - Decision: records are separated by '~' and by newlines, in every
//     source: the seed gives '~' for -knob and WHEN= lists and newlines for
//     the knobs file, and all sources share this parser. Blanks around a
//     record, a name and a value are ignored (a CRLF file works), and empty
//     records are skipped.
//   - Decision: a WHEN= record may list several conditions, all of which
//     must hold, and several ';'-separated assignments after them. An
//     assignment inside WHEN= may use the K= prefix too.
//   - Decision: K= is a record prefix meaning "no condition" (001:39457
//     lists it with the condition prefixes); it lets a knob whose name
//     starts like a prefix still be set.
//   - Decision: INJECTSTRING runs to ";;" and may contain '~' and newlines
//     (000:403). The seed does not say what it injects, so orilab reports
//     a warning and does nothing with it, rather than guessing.
//   - Decision: in the knobs file only, a line whose first non-blank
//     character is ';' or '#' is a comment: the seed's own example file has
//     such lines before and after the [knobs] header (000:347-354). See
//     findHeader for the marker inside such a comment.

// record is one record of a knobs string.
type record struct {
	text string
	line int // line of the record's first character, counting from the first line of the text
}

// splitRecords cuts s into records. firstLine is the line number of s's
// first character; comments enables file comment lines.
func splitRecords(s string, firstLine int, comments bool) []record {
	var out []record
	line := firstLine
	atLineStart := true
	i := 0
	for i <= len(s) {
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
			j++
		}
		if comments && atLineStart && j < len(s) && (s[j] == ';' || s[j] == '#') {
			k := strings.IndexByte(s[j:], '\n')
			if k < 0 {
				return out
			}
			i, line = j+k+1, line+1
			continue
		}
		if hasPrefixFold(s[j:], "INJECTSTRING") {
			k := strings.Index(s[j:], ";;")
			end := len(s)
			if k >= 0 {
				end = j + k + 2
			}
			out = append(out, record{s[j:end], line})
			line += strings.Count(s[i:end], "\n")
			i, atLineStart = end, false
			if i == len(s) {
				return out
			}
			continue
		}
		k := strings.IndexAny(s[i:], "~\n")
		if k < 0 {
			out = append(out, record{s[i:], line})
			return out
		}
		out = append(out, record{s[i : i+k], line})
		atLineStart = s[i+k] == '\n'
		if atLineStart {
			line++
		}
		i += k + 1
	}
	return out
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// assignment is one parsed NAME=VALUE.
type assignment struct {
	def    *entryDef
	val    Value
	origin string // where it came from, for Set.Origin and the dump
}

// hashCond is one SH= or IH= condition: the hash must lie in [lo, hi].
type hashCond struct {
	instr  bool // IH= rather than SH=
	lo, hi uint32
}

// whenRecord is a parsed WHEN= record.
type whenRecord struct {
	conds    []hashCond
	assigns  []assignment
	function string // non-empty if it came from that function's pragmas
}

// recordError is a failure inside one record; the loader adds the source.
type recordError struct {
	record string // the part of the record the message is about, "" for the whole
	knob   string // set for unknown knob names
	hint   string // did-you-mean suggestion
	err    error
}

// parseRecord parses one record. It returns either assignments (plain
// record), a WHEN record, an INJECTSTRING flag, or an error.
func (p *parser) parseRecord(text, origin string) (as []assignment, w *whenRecord, inject bool, err *recordError) {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return nil, nil, false, nil
	case hasPrefixFold(t, "INJECTSTRING"):
		if !strings.HasSuffix(t, ";;") {
			return nil, nil, false, &recordError{err: fmt.Errorf("INJECTSTRING is not terminated by \";;\"")}
		}
		return nil, nil, true, nil
	case hasPrefixFold(t, "WHEN="):
		w, err := p.parseWhen(t[len("WHEN="):], origin)
		return nil, w, false, err
	}
	a, ok, err := p.parseAssign(t, origin)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	return []assignment{a}, nil, false, nil
}

// parseAssign parses NAME, NAME=VALUE or K=NAME[=VALUE]. ok is false (with
// a nil error) when the knob is unknown and the parser is in ptxas
// compatibility mode, which the caller has already turned into a warning.
func (p *parser) parseAssign(t, origin string) (assignment, bool, *recordError) {
	t = strings.TrimSpace(t)
	if hasPrefixFold(t, "K=") {
		t = strings.TrimSpace(t[2:])
	}
	name, val, hasVal := strings.Cut(t, "=")
	name = strings.TrimSpace(name)
	if validIdent(name) != nil {
		return assignment{}, false, p.unknown(t, name, ErrInvalidKnobIdentifier)
	}
	def := p.reg.lookup(name)
	if def == nil {
		return assignment{}, false, p.unknown(t, name, ErrUnknownKnob)
	}
	var v Value
	var err error
	if hasVal {
		v, err = ParseValue(def.Type, strings.TrimSpace(val))
	} else {
		v, err = ParseNoValue(def.Type)
	}
	if err == nil {
		err = def.Check(v)
	}
	if err != nil {
		return assignment{}, false, &recordError{record: t, err: err}
	}
	return assignment{def: def, val: v, origin: origin}, true, nil
}

// unknown reports a name that is not a registered knob: an error, or in
// compatibility mode ptxas's warning 7203 (the caller records it).
func (p *parser) unknown(rec, name string, err error) *recordError {
	re := &recordError{record: rec, knob: name, err: err}
	if err == ErrUnknownKnob {
		re.hint = p.reg.Suggest(name)
	}
	if p.compat {
		p.compatSkipped = append(p.compatSkipped, re)
		return nil
	}
	return re
}

func (p *parser) parseWhen(body, origin string) (*whenRecord, *recordError) {
	w := &whenRecord{}
	items := strings.Split(body, ";")
	k := 0
	for ; k < len(items); k++ {
		it := strings.TrimSpace(items[k])
		isSH, isIH := hasPrefixFold(it, "SH="), hasPrefixFold(it, "IH=")
		if !isSH && !isIH {
			break
		}
		lo, hi, err := parseHashSpec(strings.TrimSpace(it[3:]))
		if err != nil {
			return nil, &recordError{record: it, err: err}
		}
		w.conds = append(w.conds, hashCond{instr: isIH, lo: lo, hi: hi})
	}
	if len(w.conds) == 0 {
		return nil, &recordError{record: "WHEN=" + body, err: fmt.Errorf("WHEN= needs an SH= or IH= condition first")}
	}
	skipped := len(p.compatSkipped)
	for ; k < len(items); k++ {
		it := strings.TrimSpace(items[k])
		if it == "" {
			continue // "WHEN=SH=1;A=1;" has a harmless trailing ';'
		}
		a, ok, err := p.parseAssign(it, origin)
		if err != nil {
			return nil, err
		}
		if ok {
			w.assigns = append(w.assigns, a)
		}
	}
	if len(w.assigns) == 0 && len(p.compatSkipped) == skipped {
		return nil, &recordError{record: "WHEN=" + body, err: fmt.Errorf("WHEN= record sets no knob after its conditions")}
	}
	return w, nil
}

// parseHashSpec reads a SH=/IH= operand: a 32-bit number or lo..hi.
func parseHashSpec(s string) (lo, hi uint32, err error) {
	bad := fmt.Errorf("invalid hash %q: want a 32-bit number (decimal or 0x hex) or a lo..hi range", s)
	if s == "" {
		return 0, 0, bad
	}
	num := func(t string) (uint32, string, bool) {
		neg := strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")
		n, rest, err := strtol32(t, 0)
		if err != nil || neg {
			return 0, t, false
		}
		return uint32(n), rest, true
	}
	lo, hi = 0, math.MaxUint32
	rest := s
	if !strings.HasPrefix(rest, "..") {
		n, r, ok := num(rest)
		if !ok {
			return 0, 0, bad
		}
		lo, rest = n, r
		if rest == "" {
			return lo, lo, nil
		}
		if !strings.HasPrefix(rest, "..") {
			return 0, 0, bad
		}
	}
	if rest = rest[2:]; rest != "" {
		n, r, ok := num(rest)
		if !ok || r != "" {
			return 0, 0, bad
		}
		hi = n
	}
	if lo > hi {
		return 0, 0, bad
	}
	return lo, hi, nil
}

// matches reports whether every condition of w holds in ctx. An SH=
// condition needs a function and an IH= condition an instruction.
func (w *whenRecord) matches(ctx Context) bool {
	for _, c := range w.conds {
		var h uint32
		switch {
		case c.instr && ctx.HasInstr:
			h = ctx.IH
		case !c.instr && ctx.Function != "":
			h = ShaderHash(ctx.Function)
		default:
			return false
		}
		if h < c.lo || h > c.hi {
			return false
		}
	}
	return true
}

// hasInstrCond reports whether w needs an instruction hash.
func (w *whenRecord) hasInstrCond() bool {
	for _, c := range w.conds {
		if c.instr {
			return true
		}
	}
	return false
}
