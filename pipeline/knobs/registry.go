package knobs

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"orilab/internal/suggest"
)

// Knob describes one knob: ptxas's 64-byte descriptor (name, alias, type
// tag; 001:39617-39634) plus what orilab needs to explain the knob.
type Knob struct {
	// Name is the primary name, spelled as ptxas spells it ("DUMPIR",
	// "SchedNumBB_Limit"). Lookups ignore case, as ptxas's GetKnobIndex
	// does (001:39599-39611).
	Name string
	// Aliases are other accepted names, like the descriptor's alias field
	// that lets ptxas rename a knob without breaking old command lines.
	Aliases []string
	// Type decides how values are parsed.
	Type Type
	// Default is the value, in knob syntax, that readers get while no
	// source sets the knob; "" means the type's zero value. It is parsed
	// when the knob is registered.
	Default string
	// Doc says what the knob does, in one sentence.
	Doc string
	// Readers names the phases or components that read the knob. It must
	// not be empty: orilab registers a knob only when code reads it.
	Readers []string
	// Validate, if set, checks a parsed value beyond its type (a phase list
	// syntax, say). Its error is reported against the source that set the
	// value, like a parse error.
	Validate func(Value) error
	// Bounds, if set, is the inclusive range a TypeInt knob's value must
	// lie in (AtLeast(0) for a count, say). A value outside it is an
	// error naming the knob and the range, reported like a parse error:
	// a negative unroll factor or budget would otherwise be read as
	// "off" or clamped somewhere deep in a phase, and the engineer would
	// never learn the setting did not mean what they typed.
	Bounds *Range
}

// AtLeast returns the Bounds of a knob whose values are lo or more.
func AtLeast(lo int32) *Range { return &Range{Lo: lo, Hi: math.MaxInt32} }

// Between returns the Bounds of a knob whose values are lo..hi.
func Between(lo, hi int32) *Range { return &Range{Lo: lo, Hi: hi} }

// Check applies the knob's Bounds and Validate to a parsed value: what
// the loader does after parsing, for callers that parse values themselves.
func (k *Knob) Check(v Value) error {
	if k.Bounds != nil {
		if x := v.Int(); !k.Bounds.Contains(x) {
			return &RangeError{Knob: k.Name, Value: x, Bounds: *k.Bounds}
		}
	}
	if k.Validate != nil {
		return k.Validate(v)
	}
	return nil
}

// RangeError is a TypeInt value outside its knob's Bounds. It is a type
// of its own so that the loader can leave out the knob=value part where
// the source label already shows it (-knob X=-5, .pragma "X=-5"): the
// message would otherwise name the knob three times.
type RangeError struct {
	Knob   string // the registered name
	Value  int32
	Bounds Range
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("%s=%d is out of range: %s", e.Knob, e.Value, e.Bounds.describe())
}

// describe says in words which values a Bounds range admits.
func (r Range) describe() string {
	switch {
	case r.Hi == math.MaxInt32:
		return fmt.Sprintf("must be at least %d", r.Lo)
	case r.Lo == math.MinInt32:
		return fmt.Sprintf("must be at most %d", r.Hi)
	}
	return fmt.Sprintf("must be in %d..%d", r.Lo, r.Hi)
}

// Registry is a table of knobs, the counterpart of ptxas's knob definition
// table. It is safe for concurrent use; registering normally happens from
// package init functions and lookups during compilation.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*entryDef // lower-case name or alias
	// exact maps each name and alias as registered: the code reads its
	// knobs by those spellings, so a lookup rarely needs the lower-case
	// copy (an allocation per read of a CamelCase name).
	exact map[string]*entryDef
	all   []*entryDef
}

type entryDef struct {
	Knob
	key    string // lower-case primary name; the Set's map key
	def    Value
	hasDef bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]*entryDef{}, exact: map[string]*entryDef{}}
}

// Default is the registry the compiler uses. Packages that read a knob
// register it here from an init function, next to the code that reads it.
var Default = NewRegistry()

// Register adds k. It panics if k is malformed (bad name, invalid type,
// no readers, a Default that does not parse or validate) or if its name or
// an alias is taken, ignoring case: all of those are programming errors
// that the first test run finds.
func (r *Registry) Register(k Knob) {
	if err := validIdent(k.Name); err != nil {
		panic(fmt.Sprintf("knobs: Register(%q): bad name", k.Name))
	}
	if !k.Type.Valid() {
		panic(fmt.Sprintf("knobs: Register(%q): invalid type %d", k.Name, k.Type))
	}
	if k.Bounds != nil && (k.Type != TypeInt || k.Bounds.Lo > k.Bounds.Hi) {
		panic(fmt.Sprintf("knobs: Register(%q): Bounds %v on a %s knob", k.Name, *k.Bounds, k.Type))
	}
	if len(k.Readers) == 0 {
		panic(fmt.Sprintf("knobs: Register(%q): no readers; register a knob only where code reads it", k.Name))
	}
	e := &entryDef{Knob: k, key: strings.ToLower(k.Name)}
	e.Aliases = append([]string(nil), k.Aliases...)
	e.Readers = append([]string(nil), k.Readers...)
	if k.Bounds != nil {
		b := *k.Bounds
		e.Bounds = &b
		if k.Default == "" && !b.Contains(0) {
			panic(fmt.Sprintf("knobs: Register(%q): zero default outside Bounds %v", k.Name, b))
		}
	}
	if k.Default != "" {
		v, err := ParseValue(k.Type, k.Default)
		if err == nil {
			err = k.Check(v)
		}
		if err != nil {
			panic(fmt.Sprintf("knobs: Register(%q): default %q: %v", k.Name, k.Default, err))
		}
		e.def, e.hasDef = v, true
	}
	names := append([]string{k.Name}, k.Aliases...)
	r.mu.Lock()
	defer r.mu.Unlock()
	// Check every name before adding any, so a panic leaves r unchanged.
	keys := make([]string, len(names))
	for i, n := range names {
		if validIdent(n) != nil {
			panic(fmt.Sprintf("knobs: Register(%q): bad alias %q", k.Name, n))
		}
		keys[i] = strings.ToLower(n)
		if old, ok := r.byName[keys[i]]; ok {
			panic(fmt.Sprintf("knobs: Register(%q): name %q already registered by %q", k.Name, n, old.Name))
		}
		if slices.Contains(keys[:i], keys[i]) {
			panic(fmt.Sprintf("knobs: Register(%q): name %q given twice", k.Name, n))
		}
	}
	for i, n := range names {
		r.byName[keys[i]] = e
		r.exact[n] = e
	}
	r.all = append(r.all, e)
}

// Lookup finds a knob by name or alias, ignoring case.
func (r *Registry) Lookup(name string) (Knob, bool) {
	e := r.lookup(name)
	if e == nil {
		return Knob{}, false
	}
	return e.Knob, true
}

func (r *Registry) lookup(name string) *entryDef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e := r.exact[name]; e != nil {
		return e
	}
	return r.byName[strings.ToLower(name)]
}

// All returns every knob, sorted by name ignoring case.
func (r *Registry) All() []Knob {
	es := r.sorted()
	out := make([]Knob, len(es))
	for i, e := range es {
		out[i] = e.Knob
	}
	return out
}

func (r *Registry) sorted() []*entryDef {
	r.mu.RLock()
	es := append([]*entryDef(nil), r.all...)
	r.mu.RUnlock()
	sort.Slice(es, func(i, j int) bool {
		if es[i].key != es[j].key {
			return es[i].key < es[j].key
		}
		return es[i].Name < es[j].Name
	})
	return es
}

// DefaultValue returns a knob's parsed Default and whether it has one.
func (r *Registry) DefaultValue(name string) (Value, bool) {
	if e := r.lookup(name); e != nil {
		return e.def, e.hasDef
	}
	return Value{}, false
}

// Suggest returns the registered name (or alias) closest to name, for a
// "did you mean" hint, or "" if none is close. Close means an edit
// distance, ignoring case, of at most a third of the name's length, and
// at least 2 so short names still get a hint.
func (r *Registry) Suggest(name string) string {
	q := strings.ToLower(name)
	limit := max(2, len(q)/3)
	best, bestD := "", limit+1
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, e := range r.all {
		for _, n := range append([]string{e.Name}, e.Aliases...) {
			// With bound bestD+1, a result equal to bestD is exact, so
			// ties go to the alphabetically first name deterministically.
			d := suggest.Distance(q, strings.ToLower(n), bestD+1)
			if d < bestD || (d == bestD && n < best) {
				best, bestD = n, d
			}
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

// validIdent reports whether s can be a knob name: letters, digits and
// '_', as in every knob name the seed lists.
func validIdent(s string) error {
	if s == "" {
		return ErrInvalidKnobIdentifier
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return ErrInvalidKnobIdentifier
		}
	}
	return nil
}
