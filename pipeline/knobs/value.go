package knobs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is a knob's definition type: it decides how ParseValue reads the
// knob's value text. The numeric values are ptxas's definition-table type
// tags (OKT_*, seed 001:39714-39726), so a Type prints the same number a
// ptxas knob descriptor stores at offset +16.
//
// Tag 11 (an OKT_STR variant with its own slot) is not a separate Type: it
// shares tag 8's parse handler and runtime type (001:39748), so a knob of
// that kind is registered as TypeString. The zero Type is invalid; parsing
// with it fails with ptxas's "Invalid knob type".
type Type uint8

const (
	// TypeBool is OKT_NONE: a flag whose presence means true.
	TypeBool Type = 1
	// TypeInt is OKT_INT: a 32-bit integer read like strtol(s, NULL, 0).
	TypeInt Type = 2
	// TypeBudget is OKT_BDGT: an INT whose runtime slot also carries a
	// secondary counter, zero when parsed, that cost models consume.
	TypeBudget Type = 3
	// TypeIntRange is OKT_IRNG: "lo..hi", either end may be open.
	TypeIntRange Type = 4
	// TypeIntList is OKT_ILIST: comma-separated integers, "1,2,3".
	TypeIntList Type = 5
	// TypeFloat is OKT_FLOAT: a float32 read like sscanf("%f").
	TypeFloat Type = 6
	// TypeDouble is OKT_DBL: a float64 read like sscanf("%lf").
	TypeDouble Type = 7
	// TypeString is OKT_STR (and its tag-11 variant): the text as written.
	TypeString Type = 8
	// TypeWhen is OKT_WHEN: a list of when-condition strings.
	TypeWhen Type = 9
	// TypeOpcodeIntList is OKT_OPCODE_STR_LIST: "FADD,3,FMUL,2", pairs of
	// an opcode name and a base-10 integer.
	TypeOpcodeIntList Type = 10
	// TypeOpcodeList is tag 12, the OKT_ILIST variant that holds opcodes:
	// "FADD,FMUL,IADD3", opcode names only.
	TypeOpcodeList Type = 12
)

// types lists every valid Type in tag order; tests and the fuzz targets
// iterate it.
var types = []Type{TypeBool, TypeInt, TypeBudget, TypeIntRange, TypeIntList,
	TypeFloat, TypeDouble, TypeString, TypeWhen, TypeOpcodeIntList, TypeOpcodeList}

var typeNames = map[Type][2]string{
	TypeBool:          {"bool", "OKT_NONE"},
	TypeInt:           {"int", "OKT_INT"},
	TypeBudget:        {"budget", "OKT_BDGT"},
	TypeIntRange:      {"range", "OKT_IRNG"},
	TypeIntList:       {"intlist", "OKT_ILIST"},
	TypeFloat:         {"float", "OKT_FLOAT"},
	TypeDouble:        {"double", "OKT_DBL"},
	TypeString:        {"string", "OKT_STR"},
	TypeWhen:          {"when", "OKT_WHEN"},
	TypeOpcodeIntList: {"opcode-int-list", "OKT_OPCODE_STR_LIST"},
	TypeOpcodeList:    {"opcode-list", "OKT_ILIST(opcodes)"},
}

// Valid reports whether t is one of the Type constants.
func (t Type) Valid() bool { _, ok := typeNames[t]; return ok }

// String returns the short name orilab prints ("int", "range", ...).
func (t Type) String() string {
	if n, ok := typeNames[t]; ok {
		return n[0]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// OKT returns ptxas's name for the type tag ("OKT_INT", ...), for listings
// that compare against the wiki.
func (t Type) OKT() string {
	if n, ok := typeNames[t]; ok {
		return n[1]
	}
	return fmt.Sprintf("OKT_%d", uint8(t))
}

// The errors of ptxas's ParseKnobValue (sub_79F540 / sub_6F7360) and
// GetKnobIndex, verbatim from the seed's table at 001:39840-39856 (000:315-331).
// Each comment gives the seed line and generic_knobs_impl.h's line. The
// texts are ptxas's, capitals included, so they are not Go-style errors on
// purpose: a user grepping ptxas's output finds the same words here.
var (
	// ErrEmptyWhenString: 001:39840, impl.h:435, OKT_WHEN with no value.
	ErrEmptyWhenString = errors.New("Empty when-string")
	// ErrEmptyIntegerRangeValue: 001:39841 (and 39798), impl.h:445,
	// OKT_IRNG with no or an empty value.
	ErrEmptyIntegerRangeValue = errors.New("Empty integer range value")
	// ErrEmptyIntegerListValue: 001:39842, impl.h:451, OKT_ILIST with no or
	// an empty value.
	ErrEmptyIntegerListValue = errors.New("Empty integer list value")
	// ErrIntegerListNotInteger: 001:39843, impl.h:453, an element that does
	// not start with a digit or '-'.
	ErrIntegerListNotInteger = errors.New("Integer list value is not an integer")
	// ErrIntegerListEnd: 001:39844, impl.h:457, an element followed by
	// something other than ',' or the end. ptxas says "range" although the
	// check belongs to OKT_ILIST; the text is kept as ptxas prints it.
	ErrIntegerListEnd = errors.New("End of integer range value is not ',' or null character")
	// ErrEmptyIntegerValue: three sites with one text. 001:39845 (impl.h:470,
	// OKT_INT), 001:39846 (impl.h:478, OKT_BDGT) and 001:39853 (impl.h:522,
	// the integer after an opcode in OKT_OPCODE_STR_LIST; also 001:39816).
	ErrEmptyIntegerValue = errors.New("Empty integer value")
	// ErrEmptyFloatingPointValue: 001:39847, impl.h:491, OKT_FLOAT empty.
	ErrEmptyFloatingPointValue = errors.New("Empty floating point value")
	// ErrInvalidFloatingPointValue: 001:39848, impl.h:496, sscanf("%f") != 1.
	ErrInvalidFloatingPointValue = errors.New("Invalid floating point value")
	// ErrEmptyDoubleValue: 001:39849, impl.h:502, OKT_DBL empty.
	ErrEmptyDoubleValue = errors.New("Empty double value")
	// ErrInvalidDoubleValue: 001:39850, impl.h:506, sscanf("%lf") != 1.
	ErrInvalidDoubleValue = errors.New("Invalid double value")
	// ErrEmptyValuePairList: 001:39851, impl.h:515, OKT_OPCODE_STR_LIST with
	// no value.
	ErrEmptyValuePairList = errors.New("Empty value pair list")
	// ErrEmptyOpcodeString: 001:39852 (and 39815), impl.h:520, a pair whose
	// opcode name is missing.
	ErrEmptyOpcodeString = errors.New("Empty opcode string")
	// ErrEmptyOpcodeList: 001:39854, impl.h:536, the tag-12 opcode list
	// with no value.
	ErrEmptyOpcodeList = errors.New("Empty opcode list")
	// ErrInvalidKnobType: 001:39855 (and 39833), impl.h:551, a type tag
	// ParseKnobValue does not know.
	ErrInvalidKnobType = errors.New("Invalid knob type")
	// ErrInvalidKnobIdentifier: 001:39856, impl.h:395, GetKnobIndex. orilab
	// reports it for a name that cannot be a knob name at all (empty, or
	// with characters other than letters, digits and '_'); a well-formed
	// name that is not registered gets ErrUnknownKnob with a suggestion.
	ErrInvalidKnobIdentifier = errors.New("Invalid knob identifier")
)

// Errors orilab adds where ptxas accepts the text silently. ptxas's strtol
// and sscanf stop at the first character they cannot use, so "12abc" is 12
// and "abc" is 0 for an INT knob; a knob typo then changes a heuristic
// without a word. orilab rejects the whole value instead. These texts are
// orilab's, written in ptxas's style; they are not in the seed.
var (
	// ErrInvalidIntegerValue: an INT, BDGT, ILIST element or pair integer
	// that is not entirely a C integer literal.
	ErrInvalidIntegerValue = errors.New("Invalid integer value")
	// ErrIntegerValueOutOfRange: an integer outside [-2^31, 2^32-1]. Values
	// above 2^31-1 wrap to their 32-bit pattern (0xFFFFFFFF is -1), as
	// ptxas's store of strtol's long into an int32 slot does.
	ErrIntegerValueOutOfRange = errors.New("Integer value out of range")
	// ErrInvalidIntegerRangeValue: an IRNG value that is not "lo..hi",
	// "lo..", "..hi", ".." or a single integer.
	ErrInvalidIntegerRangeValue = errors.New("Invalid integer range value")
	// ErrReversedIntegerRange: an IRNG value whose low bound is above its
	// high bound; the range would match nothing, which is never meant.
	ErrReversedIntegerRange = errors.New("Integer range low bound is greater than its high bound")
	// ErrInvalidBoolValue: a bool knob given a value other than 1/0,
	// true/false, on/off, yes/no. See ParseValue for why orilab reads the
	// value at all.
	ErrInvalidBoolValue = errors.New("Invalid boolean value (want 1/0, true/false, on/off or yes/no)")
)

// Range is an OKT_IRNG value, the inclusive interval [Lo, Hi]. An open end
// is stored as ptxas stores it: Lo = math.MinInt32 (0x80000000) and Hi =
// math.MaxInt32 (0x7FFFFFFF), 001:39793-39800.
type Range struct {
	Lo, Hi int32
}

// Contains reports whether Lo <= x <= Hi.
func (r Range) Contains(x int32) bool { return r.Lo <= x && x <= r.Hi }

// String prints the range the way ParseValue reads it back, open ends
// empty: "100..", "..200", "..", "42" for a degenerate range.
func (r Range) String() string {
	if r.Lo == r.Hi && r.Lo != math.MinInt32 && r.Hi != math.MaxInt32 {
		return strconv.Itoa(int(r.Lo))
	}
	var b strings.Builder
	if r.Lo != math.MinInt32 {
		b.WriteString(strconv.Itoa(int(r.Lo)))
	}
	b.WriteString("..")
	if r.Hi != math.MaxInt32 {
		b.WriteString(strconv.Itoa(int(r.Hi)))
	}
	return b.String()
}

// OpcodeInt is one (opcode, integer) pair of an OKT_OPCODE_STR_LIST value.
// Opcode is the name as written: ptxas resolves it through its SASS opcode
// table (001:39818), which lives with the reader of the knob (pipeline/ori
// for orilab), so this package neither resolves nor case-folds it.
type OpcodeInt struct {
	Opcode string
	N      int32
}

// Value is one parsed knob value. Its Type says which accessor is valid;
// calling another accessor panics, because reading a knob as the wrong type
// is a programming error in the reader, not a user mistake. The zero Value
// has no type and is what Get returns for an unset knob.
//
// A Value is immutable: accessors that return slices return copies, so a
// Set can hand the same Value to every function's view.
type Value struct {
	typ   Type
	b     bool
	i, j  int32 // int; budget primary/secondary; range lo/hi
	f32   float32
	f64   float64
	s     string
	ints  []int32
	strs  []string // when-list or opcode list
	pairs []OpcodeInt
}

// Type returns the value's type; zero for the zero Value.
func (v Value) Type() Type { return v.typ }

func (v Value) must(ts ...Type) {
	for _, t := range ts {
		if v.typ == t {
			return
		}
	}
	panic(fmt.Sprintf("knobs: %s value read as %s", v.typ, ts[0]))
}

// Bool returns a TypeBool value.
func (v Value) Bool() bool { v.must(TypeBool); return v.b }

// Int returns a TypeInt value, or a TypeBudget value's primary field.
func (v Value) Int() int32 { v.must(TypeInt, TypeBudget); return v.i }

// Budget returns a TypeBudget value's primary value and its secondary
// counter (zero after parsing, 001:39789).
func (v Value) Budget() (primary, secondary int32) { v.must(TypeBudget); return v.i, v.j }

// Range returns a TypeIntRange value.
func (v Value) Range() Range { v.must(TypeIntRange); return Range{v.i, v.j} }

// IntList returns a copy of a TypeIntList value.
func (v Value) IntList() []int32 { v.must(TypeIntList); return append([]int32(nil), v.ints...) }

// Float returns a TypeFloat value.
func (v Value) Float() float32 { v.must(TypeFloat); return v.f32 }

// Double returns a TypeDouble value.
func (v Value) Double() float64 { v.must(TypeDouble); return v.f64 }

// Str returns a TypeString value.
func (v Value) Str() string { v.must(TypeString); return v.s }

// When returns a copy of a TypeWhen value's condition strings.
func (v Value) When() []string { v.must(TypeWhen); return append([]string(nil), v.strs...) }

// OpcodeInts returns a copy of a TypeOpcodeIntList value's pairs.
func (v Value) OpcodeInts() []OpcodeInt {
	v.must(TypeOpcodeIntList)
	return append([]OpcodeInt(nil), v.pairs...)
}

// Opcodes returns a copy of a TypeOpcodeList value's opcode names.
func (v Value) Opcodes() []string { v.must(TypeOpcodeList); return append([]string(nil), v.strs...) }

// String returns the value in knob syntax; ParseValue(v.Type(), v.String())
// gives v back for every value ParseValue can produce (the fuzz target
// checks it). A bool prints as 1 or 0.
func (v Value) String() string {
	switch v.typ {
	case TypeBool:
		if v.b {
			return "1"
		}
		return "0"
	case TypeInt, TypeBudget:
		return strconv.Itoa(int(v.i))
	case TypeIntRange:
		return Range{v.i, v.j}.String()
	case TypeIntList:
		s := make([]string, len(v.ints))
		for k, n := range v.ints {
			s[k] = strconv.Itoa(int(n))
		}
		return strings.Join(s, ",")
	case TypeFloat:
		return strconv.FormatFloat(float64(v.f32), 'g', -1, 32)
	case TypeDouble:
		return strconv.FormatFloat(v.f64, 'g', -1, 64)
	case TypeString:
		return v.s
	case TypeWhen:
		// One parse makes one node (see ParseValue), so there is one string.
		return strings.Join(v.strs, "~")
	case TypeOpcodeIntList:
		s := make([]string, 0, 2*len(v.pairs))
		for _, p := range v.pairs {
			s = append(s, p.Opcode, strconv.Itoa(int(p.N)))
		}
		return strings.Join(s, ",")
	case TypeOpcodeList:
		return strings.Join(v.strs, ",")
	}
	return ""
}

// Equal reports whether two values have the same type and contents. NaN
// floats compare equal to NaN so that a parsed "nan" equals itself.
func (v Value) Equal(w Value) bool {
	if v.typ != w.typ {
		return false
	}
	switch v.typ {
	case TypeFloat:
		return v.f32 == w.f32 || (v.f32 != v.f32 && w.f32 != w.f32)
	case TypeDouble:
		return v.f64 == w.f64 || (v.f64 != v.f64 && w.f64 != w.f64)
	}
	if v.b != w.b || v.i != w.i || v.j != w.j || v.s != w.s ||
		len(v.ints) != len(w.ints) || len(v.strs) != len(w.strs) || len(v.pairs) != len(w.pairs) {
		return false
	}
	for k := range v.ints {
		if v.ints[k] != w.ints[k] {
			return false
		}
	}
	for k := range v.strs {
		if v.strs[k] != w.strs[k] {
			return false
		}
	}
	for k := range v.pairs {
		if v.pairs[k] != w.pairs[k] {
			return false
		}
	}
	return true
}

// BoolValue, IntValue, ... build Values directly, for defaults computed in
// code and for tests.
func BoolValue(b bool) Value { return Value{typ: TypeBool, b: b} }

// IntValue returns a TypeInt value.
func IntValue(n int32) Value { return Value{typ: TypeInt, i: n} }

// StringValue returns a TypeString value.
func StringValue(s string) Value { return Value{typ: TypeString, s: s} }

// ParseValue parses s, the text after "NAME=", as a value of type t, the way
// ptxas's ParseKnobValue does (001:39750-39834), and fails with its exact
// error texts. ParseNoValue handles "-knob NAME" with no "=".
//
// Per-type rules and where orilab is stricter than ptxas:
//
//   - Leading and trailing blanks are ignored for every type but TypeString
//     and TypeWhen (strtol and sscanf skip leading blanks; trailing ones are
//     accepted so "1\r" from a CRLF knobs file is 1). Strings are verbatim.
//   - TypeBool: empty means true (presence). Decision: ptxas ignores the
//     value of an OKT_NONE knob, so "DisableX=0" sets it (000:880). orilab
//     reads 1/true/on/yes as true and 0/false/off/no as false, because a
//     later source (say -knob) must be able to turn off a flag an earlier
//     one (the knobs file) turned on; anything else is an error.
//   - TypeInt, TypeBudget: strtol base 0 (decimal, 0x hex, 0 octal, sign).
//     The whole text must be the number (ErrInvalidIntegerValue otherwise)
//     and fit 32 bits (see ErrIntegerValueOutOfRange).
//   - TypeIntRange: "lo..hi", "lo..", "..hi", "..", "n" (000:268-275), each
//     bound like an INT.
//   - TypeIntList: every element must start with a digit or '-' and end at
//     ',' or the end (ptxas's two checks); elements read like an INT.
//     Decision: the seed does not give strtol's base here; orilab uses base
//     0 like OKT_INT so "0x10" means 16 in every integer knob. A trailing
//     comma is an element that does not start with a digit.
//   - TypeFloat, TypeDouble: sscanf("%f"/"%lf") syntax: decimal, exponent,
//     hex ("0x1p-3", and "0x10" without an exponent), inf, nan. The whole
//     text must be the number, and a float32 must not overflow.
//   - TypeWhen: one condition string, stored as a one-node list; an empty
//     string is allowed (000:285). Decision: a later assignment replaces the
//     list, like every other knob, instead of appending a node.
//   - TypeOpcodeIntList: "OP,N,OP,N..." with N in base 10 only (000:292).
//   - TypeOpcodeList: "OP,OP,...". Decision: the seed names only the
//     missing-value error; an empty value or an empty element (",,") is
//     reported as ErrEmptyOpcodeList / ErrEmptyOpcodeString.
//
// The returned error's text is exactly one of the Err* texts above.
func ParseValue(t Type, s string) (Value, error) {
	return parseValue(t, s, true)
}

// ParseNoValue is ParseValue for a knob written without "=" ("-knob NAME"):
// ptxas passes a NULL value, which is true for a bool, "" for a string, and
// the type's "Empty ..." error for every other type.
func ParseNoValue(t Type) (Value, error) {
	return parseValue(t, "", false)
}

func parseValue(t Type, s string, present bool) (Value, error) {
	switch t {
	case TypeString:
		return Value{typ: t, s: s}, nil
	case TypeWhen:
		if !present {
			return Value{}, ErrEmptyWhenString
		}
		return Value{typ: t, strs: []string{s}}, nil
	}
	s = strings.Trim(s, " \t\r\n\v\f")
	switch t {
	case TypeBool:
		switch strings.ToLower(s) {
		case "", "1", "true", "on", "yes":
			return Value{typ: t, b: true}, nil
		case "0", "false", "off", "no":
			return Value{typ: t, b: false}, nil
		}
		return Value{}, ErrInvalidBoolValue
	case TypeInt, TypeBudget:
		if s == "" {
			return Value{}, ErrEmptyIntegerValue
		}
		n, err := parseInt32(s, 0)
		if err != nil {
			return Value{}, err
		}
		return Value{typ: t, i: n}, nil
	case TypeIntRange:
		if s == "" {
			return Value{}, ErrEmptyIntegerRangeValue
		}
		return parseRange(s)
	case TypeIntList:
		if s == "" {
			return Value{}, ErrEmptyIntegerListValue
		}
		return parseIntList(s)
	case TypeFloat:
		if s == "" {
			return Value{}, ErrEmptyFloatingPointValue
		}
		f, ok := parseCFloat(s, 32)
		if !ok {
			return Value{}, ErrInvalidFloatingPointValue
		}
		return Value{typ: t, f32: float32(f)}, nil
	case TypeDouble:
		if s == "" {
			return Value{}, ErrEmptyDoubleValue
		}
		f, ok := parseCFloat(s, 64)
		if !ok {
			return Value{}, ErrInvalidDoubleValue
		}
		return Value{typ: t, f64: f}, nil
	case TypeOpcodeIntList:
		if !present {
			return Value{}, ErrEmptyValuePairList
		}
		return parsePairs(s)
	case TypeOpcodeList:
		if !present || s == "" {
			return Value{}, ErrEmptyOpcodeList
		}
		var ops []string
		for _, op := range strings.Split(s, ",") {
			op = strings.TrimSpace(op)
			if op == "" {
				return Value{}, ErrEmptyOpcodeString
			}
			ops = append(ops, op)
		}
		return Value{typ: t, strs: ops}, nil
	}
	return Value{}, ErrInvalidKnobType
}

func parseRange(s string) (Value, error) {
	lo, hi := int32(math.MinInt32), int32(math.MaxInt32)
	rest := s
	if !strings.HasPrefix(rest, "..") {
		n, r, err := strtol32(rest, 0)
		if err != nil {
			return Value{}, rangeErr(err)
		}
		lo, rest = n, r
		if rest == "" { // "42": a degenerate range
			return Value{typ: TypeIntRange, i: lo, j: lo}, nil
		}
		if !strings.HasPrefix(rest, "..") {
			return Value{}, ErrInvalidIntegerRangeValue
		}
	}
	rest = rest[2:]
	if rest != "" {
		n, r, err := strtol32(rest, 0)
		if err != nil {
			return Value{}, rangeErr(err)
		}
		if r != "" {
			return Value{}, ErrInvalidIntegerRangeValue
		}
		hi = n
	}
	if lo > hi {
		return Value{}, ErrReversedIntegerRange
	}
	return Value{typ: TypeIntRange, i: lo, j: hi}, nil
}

// rangeErr reports a bound that is not a number as a malformed range; an
// out-of-range bound keeps its own, more precise, error.
func rangeErr(err error) error {
	if err == ErrInvalidIntegerValue {
		return ErrInvalidIntegerRangeValue
	}
	return err
}

func parseIntList(s string) (Value, error) {
	var out []int32
	for {
		if s == "" || !(isDigit(s[0]) || s[0] == '-') {
			return Value{}, ErrIntegerListNotInteger
		}
		n, rest, err := strtol32(s, 0)
		if err == ErrInvalidIntegerValue {
			return Value{}, ErrIntegerListNotInteger // "-" alone, "-x"
		} else if err != nil {
			return Value{}, err
		}
		out = append(out, n)
		if rest == "" {
			return Value{typ: TypeIntList, ints: out}, nil
		}
		if rest[0] != ',' {
			return Value{}, ErrIntegerListEnd
		}
		s = rest[1:]
	}
}

func parsePairs(s string) (Value, error) {
	toks := strings.Split(s, ",")
	var out []OpcodeInt
	for k := 0; k < len(toks); k += 2 {
		op := strings.TrimSpace(toks[k])
		if op == "" {
			return Value{}, ErrEmptyOpcodeString
		}
		if k+1 >= len(toks) || strings.TrimSpace(toks[k+1]) == "" {
			return Value{}, ErrEmptyIntegerValue
		}
		n, err := parseInt32(strings.TrimSpace(toks[k+1]), 10)
		if err != nil {
			return Value{}, err
		}
		out = append(out, OpcodeInt{op, n})
	}
	return Value{typ: TypeOpcodeIntList, pairs: out}, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseInt32 reads all of s as a C integer in the given base (0: auto).
func parseInt32(s string, base int) (int32, error) {
	n, rest, err := strtol32(s, base)
	if err != nil {
		return 0, err
	}
	if rest != "" {
		return 0, ErrInvalidIntegerValue
	}
	return n, nil
}

// strtol32 reads a C integer literal at the start of s, as strtol does
// (optional sign; with base 0, "0x" means hex and a leading 0 octal), and
// returns it as ptxas's int32 slot holds it plus the unread rest. Unlike
// strtol it reports "no digits" and overflow instead of returning 0 or
// LONG_MAX. Blanks are not skipped: callers have trimmed the value, and
// "1, 2" is malformed in a list.
func strtol32(s string, base int) (int32, string, error) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 0 {
		switch {
		case i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && hexVal(s[i+2]) < 16:
			base, i = 16, i+2
		case i < len(s) && s[i] == '0':
			base = 8
		default:
			base = 10
		}
	}
	start := i
	var u uint64
	over := false
	for ; i < len(s); i++ {
		d := hexVal(s[i])
		if d >= uint64(base) {
			break
		}
		u = u*uint64(base) + d
		if u > math.MaxUint32+1 {
			over = true
			u = math.MaxUint32 + 2 // saturate; the value is rejected below
		}
	}
	if i == start {
		return 0, s, ErrInvalidIntegerValue
	}
	if over || (neg && u > 1<<31) || (!neg && u > math.MaxUint32) {
		return 0, s[i:], ErrIntegerValueOutOfRange
	}
	if neg {
		return int32(-int64(u)), s[i:], nil
	}
	return int32(uint32(u)), s[i:], nil
}

func hexVal(c byte) uint64 {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0')
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10
	}
	return 99
}

// parseCFloat accepts what sscanf("%f") would consume entirely. Go's
// ParseFloat is close; the differences handled here are that C has no '_'
// digit separators and accepts hex mantissas without a "p" exponent.
func parseCFloat(s string, bits int) (float64, bool) {
	if strings.ContainsRune(s, '_') {
		return 0, false
	}
	t := strings.TrimLeft(s, "+-")
	if (strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X")) && !strings.ContainsAny(t, "pP") {
		s += "p0"
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, false
	}
	return f, true
}
