package ptx

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Module is one parsed PTX file. Items keeps every top-level directive and
// definition in source order so that printing reproduces the module's shape;
// the header fields are copies of the corresponding items for quick access.
type Module struct {
	File        string // file name given to Parse, used in diagnostics
	Version     Version
	Targets     []string // .target entries in order, e.g. ["sm_80"] or ["sm_20", "texmode_independent"]
	AddressSize int      // 32 or 64 from .address_size; 0 when the directive is absent
	Items       []Item
	// Src is the source text, kept so later stages (the lowering) can
	// report errors with the source line and a caret.
	Src []byte
}

// Errorf returns a diagnostic at p in the module's source, in the same
// format as the parser's.
func (m *Module) Errorf(p Pos, format string, args ...any) *Error {
	return &Error{File: m.File, Pos: p, Msg: fmt.Sprintf(format, args...), Line: sourceLine(m.Src, p.Line)}
}

// Version is a PTX ISA version from the .version directive.
type Version struct {
	Major, Minor int
}

// Num returns the version as major*10+minor, the form the ISA gates use.
func (v Version) Num() int { return v.Major*10 + v.Minor }

func (v Version) String() string { return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) }

// SM returns the numeric SM target (80 for "sm_80", 90 for "sm_90a") or 0
// when no sm_NN target is declared.
func (m *Module) SM() int {
	for _, t := range m.Targets {
		if n, ok := smNumber(t); ok {
			return n
		}
	}
	return 0
}

func smNumber(t string) (int, bool) {
	if !strings.HasPrefix(t, "sm_") {
		return 0, false
	}
	s := t[3:]
	end := 0
	for end < len(s) && isDigit(s[end]) {
		end++
	}
	if end == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(s[:end])
	return n, err == nil
}

// Funcs returns every .entry and .func in source order, declarations
// included (their Body is nil).
func (m *Module) Funcs() []*Func {
	var fs []*Func
	for _, it := range m.Items {
		if f, ok := it.(*Func); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// Func returns the definition (the one with a body) of the named function,
// or the last declaration when there is no definition, or nil.
func (m *Module) Func(name string) *Func {
	var found *Func
	for _, f := range m.Funcs() {
		if f.Name == name && (found == nil || f.Body != nil) {
			found = f
		}
	}
	return found
}

// Item is a top-level element: *Directive, *VarDecl, *Func or *Section.
type Item interface{ itemPos() Pos }

// Stmt is an element of a function body: *Instr, *Label, *VarDecl,
// *Directive, *Block or *Prototype.
type Stmt interface{ stmtPos() Pos }

// Directive is a simple directive kept verbatim: .version, .target,
// .address_size, .file, .loc, .pragma, .alias, performance directives
// (.maxntid and friends) and .branchtargets/.calltargets lists. Args are
// the tokens after the name, each as its source text; the printer joins
// them with the separators recorded in Seps.
type Directive struct {
	Pos   Pos
	Name  string   // with the dot: ".loc"
	Label string   // for "L: .branchtargets ..." and "L: .calltargets ...", else ""
	Args  []string // argument texts
	Seps  []string // Seps[i] goes before Args[i] (" ", ", ", "" ...); Seps[0] is unused
	Semi  bool     // the directive ended with ';'
}

func (d *Directive) itemPos() Pos { return d.Pos }
func (d *Directive) stmtPos() Pos { return d.Pos }

// Section is a debug section, ".section NAME { ... }". Its entries are kept
// and printed back but never interpreted: orilab does not produce DWARF.
type Section struct {
	Pos     Pos
	Name    string
	Entries []SectionEntry
}

func (s *Section) itemPos() Pos { return s.Pos }

// SectionEntry is one line of a section body: an optional label and an
// optional data directive (".b8 1, 2" or ".b32 .debug_abbrev").
type SectionEntry struct {
	Label  string   // "$L__info_string0" or ""
	Type   string   // ".b8", ".b16", ".b32", ".b64" or "" for a label-only entry
	Values []string // value texts, each possibly "sym+4" or "-1"
}

// VarDecl declares variables in one state space: ".reg .b32 %r<10>;",
// ".shared .align 4 .b8 smem[1024];", ".global .u32 g = 7;". Function
// parameters are VarDecls with a single name.
type VarDecl struct {
	Pos      Pos
	Linkage  []string // .visible .extern .weak .common, in source order
	Space    string   // .reg .sreg .const .global .local .param .shared .tex
	Attrs    []string // ".attribute(.managed)" and similar, verbatim
	Align    int      // .align N, 0 when absent
	Vec      int      // 2, 4 or 8 for .v2/.v4/.v8, 0 for scalars
	Type     string   // .b32 .f64 .pred .texref ...
	Ptr      bool     // .ptr (kernel parameters)
	PtrSpace string   // state space after .ptr, e.g. ".global", or ""
	PtrAlign int      // .align after .ptr, 0 when absent
	Names    []*VarName
}

func (v *VarDecl) itemPos() Pos { return v.Pos }
func (v *VarDecl) stmtPos() Pos { return v.Pos }

// VarName is one declared name with its shape and initializer.
type VarName struct {
	Pos   Pos
	Name  string
	Range int   // N for the parameterized form %r<N> (declares %r0..%rN-1), else 0
	Dims  []int // array dimensions; -1 for an unsized dimension "[]"
	Init  *Init // initializer after '=', or nil
}

// Init is an initializer: a scalar expression or a brace list.
type Init struct {
	Pos   Pos
	Expr  *Operand // scalar: OpInt, OpFloat, OpName (symbol address, with Off) or OpGeneric
	Elems []*Init  // brace list, when Expr is nil
}

// Func is an .entry (kernel) or .func (device function), or a declaration
// of one (Body == nil).
type Func struct {
	Pos       Pos
	Linkage   []string // .visible .extern .weak
	Entry     bool     // .entry rather than .func
	Name      string
	NamePos   Pos
	Rets      []*VarDecl   // return parameters of a .func
	HasRets   bool         // "( ... )" before the name was written
	Params    []*VarDecl   // parameters, each with one name
	HasParams bool         // "( ... )" after the name was written (PTX 1.x entries may omit it)
	Dirs      []*Directive // .maxntid .reqntid .minnctapersm .maxnreg .noreturn .pragma ... after the header
	Body      *Block       // nil for a declaration or prototype
}

func (f *Func) itemPos() Pos { return f.Pos }

// Block is a brace-delimited scope.
type Block struct {
	Pos   Pos
	Stmts []Stmt
}

func (b *Block) stmtPos() Pos { return b.Pos }

// Label marks a position in a function body: "$L__BB0_2:".
type Label struct {
	Pos  Pos
	Name string
}

func (l *Label) stmtPos() Pos { return l.Pos }

// Prototype is a call prototype, "proto: .callprototype (.param .b32 _) _ (.param .b64 _);",
// used by indirect calls.
type Prototype struct {
	Pos     Pos
	Name    string // the prototype's label
	FnName  string // the name slot, '_' in ISA-conforming PTX
	Rets    []*VarDecl
	HasRets bool
	Params  []*VarDecl
	Dirs    []*Directive // .noreturn and similar
}

func (p *Prototype) stmtPos() Pos { return p.Pos }

// Instr is one instruction: "@!%p1 add.s32 %r1, %r2, 4;".
type Instr struct {
	Pos   Pos
	Guard *Guard   // nil when unguarded
	Op    string   // base mnemonic: "add", "ld", "setp"
	OpPos Pos      // position of the mnemonic
	Mods  []string // modifiers in order, each with its dot: [".global", ".u32"]
	Args  []*Operand
}

func (i *Instr) stmtPos() Pos { return i.Pos }

// HasMod reports whether the instruction carries modifier m (with its dot).
func (i *Instr) HasMod(m string) bool {
	for _, x := range i.Mods {
		if x == m {
			return true
		}
	}
	return false
}

// Guard is an instruction predicate "@p" or "@!p".
type Guard struct {
	Pos Pos
	Neg bool
	Reg string
}

// OperandKind classifies an operand by its syntax. Whether a name is a
// register, a variable, a label or a function is decided by the checker,
// which resolves names through scopes.
type OperandKind uint8

const (
	OpName    OperandKind = iota // %r1, foo, $L__BB0_1, %tid.x (Comp ".x"), sym+4 (Off)
	OpSink                       // _
	OpInt                        // integer literal, Text keeps the source spelling (with a leading '-')
	OpFloat                      // float literal: 1.5, 0f3F800000, 0d...
	OpAddr                       // [base], [base+off], [tex, {coords}]: Elems holds the parts
	OpVec                        // {a, b, c, d}
	OpList                       // (a, b) argument and return lists of call
	OpPair                       // p|q: Elems[0] and Elems[1]
	OpGeneric                    // generic(sym) in initializers, Name holds sym
)

// Operand is one instruction operand or initializer expression. The
// one-byte fields sit together after Pos, where they share one word (104
// bytes instead of 120: the parser makes one per operand).
type Operand struct {
	Pos    Pos
	Kind   OperandKind
	Not    bool       // '!' prefix (negated predicate source)
	Neg    bool       // '-' prefix on a name (negated register source)
	HasIdx bool       // OpName: "A[5]", the address of an array element
	HasOff bool       // "+imm" / "-imm" after a name or inside an address
	Name   string     // OpName, OpGeneric: the identifier
	Comp   string     // OpName: component suffix such as ".x"; OpAddr: a qualifier after ']' such as ".unified"
	Text   string     // OpInt, OpFloat: source text, including a leading '-'
	Idx    int64      // the element index when HasIdx
	Off    int64      // the offset when HasOff
	Elems  []*Operand // OpAddr, OpVec, OpList, OpPair parts
}

// Int returns the value of an integer literal (two's complement for
// negative ones) and whether the text is a valid integer.
func (o *Operand) Int() (int64, bool) {
	if o.Kind != OpInt {
		return 0, false
	}
	return parseIntLit(o.Text)
}

// parseIntLit parses decimal, 0x hex, 0b binary and leading-zero octal
// literals with an optional U suffix and leading '-'. Values that only fit
// in 64 bits unsigned are returned as their two's-complement int64.
func parseIntLit(s string) (int64, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	}
	s = strings.TrimRight(s, "Uu")
	base := 10
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) > 2 && (s[:2] == "0b" || s[:2] == "0B"):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	u, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, false
	}
	v := int64(u)
	if neg {
		v = -v
	}
	return v, true
}

// Float returns the value of a float literal. 0f literals are widened from
// their f32 bit pattern; 0d literals are f64 bit patterns.
func (o *Operand) Float() (float64, bool) {
	if o.Kind != OpFloat {
		return 0, false
	}
	s := o.Text
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var v float64
	switch {
	case len(s) == 10 && (s[1] == 'f' || s[1] == 'F'):
		bits, err := strconv.ParseUint(s[2:], 16, 32)
		if err != nil {
			return 0, false
		}
		v = float64(math.Float32frombits(uint32(bits)))
	case len(s) == 18 && (s[1] == 'd' || s[1] == 'D'):
		bits, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, false
		}
		v = math.Float64frombits(bits)
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		v = f
	}
	if neg {
		v = -v
	}
	return v, true
}
