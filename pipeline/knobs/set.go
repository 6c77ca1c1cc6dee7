package knobs

import (
	"fmt"
	"io"
	"maps"
	"strings"
)

// layers is everything Load parsed, kept apart by priority so that a Set
// can be evaluated for any function or instruction without reparsing.
type layers struct {
	reg *Registry
	// base: env < file < -knob < module .pragma, last write wins.
	base map[string]entry
	// funcPragmas: each function's own .pragma assignments, in order.
	funcPragmas map[string][]assignment
	// when: every WHEN= record, in source order (env, file, -knob, pragma).
	when []*whenRecord
	// dumpFile is DUMP_KNOBS_TO_FILE.
	dumpFile string
}

// entry is a knob's value in a Set and where it came from.
type entry struct {
	def    *entryDef
	val    Value
	origin string
}

// pragmasDisabled reports whether DisablePragmaKnobs is on in the base
// layer. Decision: it is read before any pragma is applied and without
// WHEN= records, so a pragma cannot re-enable pragmas and the answer is
// the same for every function.
func (l *layers) pragmasDisabled() bool {
	d := l.reg.lookup(KnobDisablePragmaKnobs)
	if d == nil || d.Type != TypeBool {
		return false
	}
	if e, ok := l.base[d.key]; ok {
		return e.val.Bool()
	}
	return d.hasDef && d.def.Bool()
}

// view evaluates the layers at ctx: the base, then the function's pragmas,
// then every WHEN= record whose conditions hold at ctx, in source order.
func (l *layers) view(ctx Context) *Set {
	vals := maps.Clone(l.base)
	for _, a := range l.funcPragmas[ctx.Function] {
		vals[a.def.key] = entry{def: a.def, val: a.val, origin: a.origin}
	}
	for _, w := range l.when {
		if w.function != "" && w.function != ctx.Function {
			continue
		}
		if !w.matches(ctx) {
			continue
		}
		for _, a := range w.assigns {
			vals[a.def.key] = entry{def: a.def, val: a.val, origin: a.origin + " (WHEN=)"}
		}
	}
	return &Set{l: l, ctx: ctx, vals: vals}
}

// Set is the knob values in effect at one place of one compilation: for
// the module, a function, or an instruction of a function (its Context).
// It is immutable and safe for concurrent use; ForFunction and ForInstr
// return new Sets.
//
// Reading a knob that is not registered, or as the wrong type, panics: the
// reader is supposed to have registered it (see Registry.Register).
type Set struct {
	l    *layers
	ctx  Context
	vals map[string]entry // keyed by lower-case primary name
}

// Empty returns a Set with no knob set, over reg (nil: Default), for
// callers that have no sources at all.
func Empty(reg *Registry) *Set {
	if reg == nil {
		reg = Default
	}
	return (&layers{reg: reg, base: map[string]entry{}}).view(Context{})
}

// Registry returns the registry the Set's knobs come from.
func (s *Set) Registry() *Registry { return s.l.reg }

// Context returns where the Set is evaluated.
func (s *Set) Context() Context { return s.ctx }

// ForFunction returns the Set for compiling function fn: its own .pragma
// knobs and the WHEN=SH= records whose hash range holds ShaderHash(fn)
// apply on top of the unconditional values. IH= records need ForInstr.
func (s *Set) ForFunction(fn string) *Set {
	return s.l.view(Context{Function: fn})
}

// ForInstr returns the Set for the instruction with hash ih (InstrHash) in
// the Set's function: WHEN= records with IH= conditions can match too.
func (s *Set) ForInstr(ih uint32) *Set {
	return s.l.view(Context{Function: s.ctx.Function, IH: ih, HasInstr: true})
}

// InstrSensitive reports whether some WHEN=IH= record exists, that is,
// whether a pass that reads knobs per instruction needs ForInstr at all.
func (s *Set) InstrSensitive() bool {
	for _, w := range s.l.when {
		if w.hasInstrCond() {
			return true
		}
	}
	return false
}

// Get returns the value a source set for the knob, and whether one did. A
// knob at its default is not set. An unregistered name returns false.
func (s *Set) Get(name string) (Value, bool) {
	d := s.l.reg.lookup(name)
	if d == nil {
		return Value{}, false
	}
	e, ok := s.vals[d.key]
	return e.val, ok
}

// IsSet reports whether a source set the knob (ptxas's IsKnobSet).
func (s *Set) IsSet(name string) bool { _, ok := s.Get(name); return ok }

// Origin names the source that set the knob ("-knob DUMPIR=X",
// "knobs.txt:3", ...), "default" if it has a registered default, or "".
func (s *Set) Origin(name string) string {
	d := s.l.reg.lookup(name)
	if d == nil {
		return ""
	}
	if e, ok := s.vals[d.key]; ok {
		return e.origin
	}
	if d.hasDef {
		return "default"
	}
	return ""
}

// value returns the knob's effective value: set, else its default, else
// the zero value of its type.
func (s *Set) value(name string, t ...Type) Value {
	d := s.l.reg.lookup(name)
	if d == nil {
		panic(fmt.Sprintf("knobs: read of unregistered knob %q", name))
	}
	ok := false
	for _, tt := range t {
		ok = ok || d.Type == tt
	}
	if !ok {
		panic(fmt.Sprintf("knobs: knob %s is %s, read as %s", d.Name, d.Type, t[0]))
	}
	if e, ok := s.vals[d.key]; ok {
		return e.val
	}
	if d.hasDef {
		return d.def
	}
	return Value{typ: d.Type}
}

// Bool returns a bool knob's value (false if unset with no default).
func (s *Set) Bool(name string) bool { return s.value(name, TypeBool).Bool() }

// Int returns an int or budget knob's (primary) value.
func (s *Set) Int(name string) int32 { return s.value(name, TypeInt, TypeBudget).Int() }

// Budget returns a budget knob's primary value and secondary counter.
func (s *Set) Budget(name string) (int32, int32) { return s.value(name, TypeBudget).Budget() }

// Range returns an int-range knob's value; unset with no default, the
// zero Range.
func (s *Set) Range(name string) Range { return s.value(name, TypeIntRange).Range() }

// IntList returns an int-list knob's value.
func (s *Set) IntList(name string) []int32 { return s.value(name, TypeIntList).IntList() }

// Float returns a float knob's value.
func (s *Set) Float(name string) float32 { return s.value(name, TypeFloat).Float() }

// Double returns a double knob's value.
func (s *Set) Double(name string) float64 { return s.value(name, TypeDouble).Double() }

// Str returns a string knob's value.
func (s *Set) Str(name string) string { return s.value(name, TypeString).Str() }

// When returns a when-list knob's value.
func (s *Set) When(name string) []string { return s.value(name, TypeWhen).When() }

// OpcodeInts returns an opcode-int-list knob's value.
func (s *Set) OpcodeInts(name string) []OpcodeInt {
	return s.value(name, TypeOpcodeIntList).OpcodeInts()
}

// Opcodes returns an opcode-list knob's value.
func (s *Set) Opcodes(name string) []string { return s.value(name, TypeOpcodeList).Opcodes() }

// DumpFile returns the DUMP_KNOBS_TO_FILE path from the environment, or "".
func (s *Set) DumpFile() string { return s.l.dumpFile }

// Dump writes every registered knob's value in the DumpKnobs format, which
// is itself a knobs file, so a dump can be fed back with -knobs-file to
// reproduce a compilation's settings:
//
//	; orilab DumpKnobs for function "k" (5 knobs)
//	[knobs]
//	; DisablePhases: string, from -knob DisablePhases=A+B
//	DisablePhases=A+B
//	; DisablePragmaKnobs: bool, unset
//	; DUMPIR: string, unset
//	; DumpKnobs: bool, from env ORILAB_KNOBS
//	DumpKnobs=1
//	; RegAllocBudget: int, default 5000
//
// Knobs are sorted by name ignoring case. A set knob is a comment line
// (name, type, source) followed by NAME=VALUE in the syntax ParseValue
// reads; an unset knob is one comment line, with its default if it has
// one. The header line says "module scope" for the zero Context and adds
// the instruction hash under ForInstr. Decision: ptxas's dump format is not
// in the seed (001:40639-40659, 41206); this one is orilab's, made a knobs
// file so that it is useful beyond reading. A string value containing
// '~' or a newline cannot be written back and is dumped as is.
func (s *Set) Dump(w io.Writer) error {
	_, err := io.WriteString(w, s.String())
	return err
}

// String returns the Dump text.
func (s *Set) String() string {
	var b strings.Builder
	defs := s.l.reg.sorted()
	where := "module scope"
	if s.ctx.Function != "" {
		where = fmt.Sprintf("function %q", s.ctx.Function)
	}
	if s.ctx.HasInstr {
		where += fmt.Sprintf(", instruction IH=0x%08X", s.ctx.IH)
	}
	fmt.Fprintf(&b, "; orilab DumpKnobs for %s (%d knobs)\n[knobs]\n", where, len(defs))
	for _, d := range defs {
		if e, ok := s.vals[d.key]; ok {
			fmt.Fprintf(&b, "; %s: %s, from %s\n%s=%s\n", d.Name, d.Type, e.origin, d.Name, e.val)
			continue
		}
		if d.hasDef {
			fmt.Fprintf(&b, "; %s: %s, default %s\n", d.Name, d.Type, d.def)
		} else {
			fmt.Fprintf(&b, "; %s: %s, unset\n", d.Name, d.Type)
		}
	}
	return b.String()
}
