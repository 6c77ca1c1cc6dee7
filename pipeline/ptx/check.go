package ptx

import (
	"fmt"
	"strings"
	"sync"
)

// The checker resolves every name in a module and validates instruction
// operand forms and version/target gates. It works on the AST as parsed and
// never rewrites it; the lowering trusts a module that passed it.

// declKind says what a name denotes.
type declKind uint8

const (
	dkReg     declKind = iota // .reg variable (Pred tells predicates apart)
	dkVar                     // variable in an addressable state space (.global .shared .const .local .param .tex)
	dkFunc                    // .entry or .func
	dkLabel                   // code label
	dkProto                   // .callprototype label
	dkTargets                 // .branchtargets / .calltargets label
)

// decl is one declared name.
type decl struct {
	kind  declKind
	pos   Pos
	space string // state space for dkReg/dkVar
	typ   string // declared type
	pred  bool   // a .pred register
	count int    // parameterized %r<N>: N; else 0
	fn    *Func  // dkFunc: the definition or the latest declaration
	param bool   // declared as a function parameter
	ext   bool   // .extern declaration (a later definition is not a duplicate)
	vec   int    // .v2/.v4/.v8 declarations: the width
}

// scope is one level of name visibility. Parameterized register ranges
// (%r<100>) are kept apart so that %r57 resolves without materializing
// a hundred entries.
type scope struct {
	parent *scope
	names  map[string]*decl
	ranges map[string]*decl // prefix ("%r") -> range declaration
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, names: map[string]*decl{}}
}

// local finds name in this scope only.
func (s *scope) local(name string) *decl {
	if d := s.names[name]; d != nil {
		return d
	}
	if len(s.ranges) > 0 {
		i := len(name)
		for i > 0 && isDigit(name[i-1]) {
			i--
		}
		if i < len(name) && i > 0 {
			if r := s.ranges[name[:i]]; r != nil {
				if n, ok := numberedSuffix(name, name[:i]); ok && n < r.count {
					return r
				}
			}
		}
	}
	return nil
}

func (s *scope) lookup(name string) *decl {
	for sc := s; sc != nil; sc = sc.parent {
		if d := sc.local(name); d != nil {
			return d
		}
	}
	return nil
}

type checker struct {
	d      *diag
	m      *Module
	sm     int // numeric target, 0 when unknown
	global *scope
	fn     *Func
	labels map[string]*decl // labels of the function being checked
	inVec  bool             // operandType is checking an element of a vector operand
	// isa and mod cache isaEntryOf and modEntryOf for this module: a
	// plain map is several times faster per instruction than their
	// shared sync.Map.
	isa map[string]*isaEntry
	mod map[string]*modEntry
}

// isaEntry returns isaEntryOf(op) through c's cache.
func (c *checker) isaEntry(op string) (*isaEntry, bool) {
	if e, ok := c.isa[op]; ok {
		return e, e != nil
	}
	e, ok := isaEntryOf(op)
	if c.isa == nil {
		c.isa = map[string]*isaEntry{}
	}
	c.isa[op] = e
	return e, ok
}

// modEntry returns modEntryOf(op) through c's cache.
func (c *checker) modEntry(op string) *modEntry {
	if e, ok := c.mod[op]; ok {
		return e
	}
	e := modEntryOf(op)
	if c.mod == nil {
		c.mod = map[string]*modEntry{}
	}
	c.mod[op] = e
	return e
}

func check(d *diag, m *Module) {
	c := &checker{d: d, m: m, sm: m.SM(), global: newScope(nil)}
	c.header()
	// Module-scope names first, so functions may refer to later ones.
	for _, it := range m.Items {
		switch x := it.(type) {
		case *VarDecl:
			c.declareVars(c.global, x, true)
		case *Func:
			c.declareFunc(x)
		}
	}
	for _, it := range m.Items {
		switch x := it.(type) {
		case *VarDecl:
			c.checkModuleVar(x)
		case *Func:
			c.function(x)
		}
	}
}

func (c *checker) header() {
	var first Item
	if len(c.m.Items) > 0 {
		first = c.m.Items[0]
	}
	if d, ok := first.(*Directive); !ok || d.Name != ".version" {
		pos := Pos{Line: 1, Col: 1}
		if first != nil {
			pos = first.itemPos()
		}
		c.d.errorf(pos, "the module must begin with a .version directive")
	}
	c.headerTargets()
	for _, it := range c.m.Items {
		if d, ok := it.(*Directive); ok && d.Name == ".target" {
			return
		}
	}
	// ptxas reports the missing .target at the first statement after
	// .version, where it expected it.
	for _, it := range c.m.Items {
		if d, ok := it.(*Directive); ok && d.Name == ".version" {
			continue
		}
		c.d.errorf(it.itemPos(), "missing .target directive")
		return
	}
	if len(c.m.Items) > 0 {
		c.d.errorf(c.m.Items[0].itemPos(), "missing .target directive")
	}
}

// declareVars adds the names of a declaration to scope s.
func (c *checker) declareVars(s *scope, v *VarDecl, module bool) {
	kind := dkVar
	if v.Space == ".reg" || v.Space == ".sreg" {
		kind = dkReg
	}
	ext := false
	for _, l := range v.Linkage {
		if l == ".extern" {
			ext = true
		}
	}
	for _, n := range v.Names {
		if n.Name == "" {
			continue
		}
		nd := &decl{kind: kind, pos: n.Pos, space: v.Space, typ: v.Type, pred: v.Type == ".pred", ext: ext, vec: v.Vec}
		if n.Range > 0 {
			if s.ranges == nil {
				s.ranges = map[string]*decl{}
			}
			if old := s.ranges[n.Name]; old != nil {
				c.d.errorf(n.Pos, "duplicate declaration of %s<%d> (first declared at %s)", n.Name, n.Range, old.pos)
				continue
			}
			nd.count = n.Range
			s.ranges[n.Name] = nd
			continue
		}
		if old := s.local(n.Name); old != nil {
			if module && (old.ext || ext) && old.kind == dkVar {
				// An .extern declaration and the definition may both appear.
				if !ext {
					s.names[n.Name] = nd
				}
				continue
			}
			c.d.errorf(n.Pos, "duplicate declaration of %s (first declared at %s)", n.Name, old.pos)
			continue
		}
		s.names[n.Name] = nd
	}
}

func (c *checker) declareFunc(f *Func) {
	old := c.global.names[f.Name]
	if old == nil {
		c.global.names[f.Name] = &decl{kind: dkFunc, pos: f.NamePos, fn: f}
		return
	}
	if old.kind != dkFunc {
		c.d.errorf(f.NamePos, "duplicate declaration of %s (first declared at %s)", f.Name, old.pos)
		return
	}
	if old.fn.Body != nil && f.Body != nil {
		c.d.errorf(f.NamePos, "function %s is defined twice (first definition at %s)", f.Name, old.pos)
		return
	}
	if old.fn.Entry != f.Entry {
		c.d.errorf(f.NamePos, "%s is declared both as .entry and as .func (first at %s)", f.Name, old.pos)
		return
	}
	if f.Body != nil {
		old.fn, old.pos = f, f.NamePos
	}
}

func (c *checker) checkModuleVar(v *VarDecl) {
	ext := false
	for _, l := range v.Linkage {
		ext = ext || l == ".extern"
	}
	// Decision: .reg at module scope is accepted. PTX 1.x-2.x allowed it
	// (gpuocelot's matrixMulDynlinkJIT kernel uses it), and later ISAs
	// only stopped documenting it. .param at module scope never existed.
	if v.Space == ".param" {
		c.d.errorf(v.Pos, ".param variables cannot be declared at module scope")
	}
	// ptxas compiles module-scope .local variables only without the ABI,
	// which it turns off for PTX before 3.0 ("Module-scoped variables in
	// .local state space are not allowed with ABI" from 3.0 on).
	if v.Space == ".local" && c.m.Version.Num() >= 30 {
		c.d.errorf(v.Pos, "module-scope .local variables need PTX ISA before 3.0 (ptxas compiles them only without the ABI), but the module declares .version %s", c.m.Version)
	}
	for _, n := range v.Names {
		c.unsized(v, n, ext)
		if n.Init != nil {
			c.initializer(n.Init)
		}
	}
}

// unsized rejects "x[]" unless the size comes from elsewhere: .extern
// (sized by the linker or, for .shared, by the launch) or an initializer.
func (c *checker) unsized(v *VarDecl, n *VarName, ext bool) {
	for i, d := range n.Dims {
		if d >= 0 {
			continue
		}
		if i == 0 && (ext || n.Init != nil) {
			continue
		}
		c.d.errorf(n.Pos, "array %s has no size: only .extern arrays and arrays with an initializer may omit it", n.Name)
		return
	}
}

func (c *checker) initializer(in *Init) {
	if in.Expr == nil {
		for _, e := range in.Elems {
			c.initializer(e)
		}
		return
	}
	if in.Expr.Kind == OpName || in.Expr.Kind == OpGeneric {
		d := c.global.lookup(in.Expr.Name)
		if d == nil {
			c.d.errorf(in.Expr.Pos, "use of undeclared identifier '%s' in initializer", in.Expr.Name)
		} else if d.kind != dkVar && d.kind != dkFunc {
			c.d.errorf(in.Expr.Pos, "initializer refers to %s, which is not a variable or function", in.Expr.Name)
		}
	}
}

func (c *checker) function(f *Func) {
	c.fn = f
	s := newScope(c.global)
	for _, r := range f.Rets {
		c.declareParam(s, f, r)
	}
	for _, p := range f.Params {
		c.declareParam(s, f, p)
		n := p.Names[0]
		if f.Entry && p.Space == ".param" && len(n.Dims) > 0 && n.Dims[0] < 0 {
			c.d.errorf(n.Pos, "kernel parameter %s is an array without a size", n.Name)
		}
	}
	for _, d := range f.Dirs {
		c.perfDirective(f, d)
	}
	if f.Body == nil {
		return
	}
	c.labels = map[string]*decl{}
	c.collectLabels(f.Body)
	c.block(s, f.Body)
	c.fn = nil
}

func (c *checker) declareParam(s *scope, f *Func, p *VarDecl) {
	n := p.Names[0]
	if n.Name == "" {
		return
	}
	kind := dkVar
	if p.Space == ".reg" {
		kind = dkReg
	}
	if old := s.local(n.Name); old != nil {
		c.d.errorf(n.Pos, "duplicate parameter %s of %s (first declared at %s)", n.Name, f.Name, old.pos)
		return
	}
	s.names[n.Name] = &decl{kind: kind, pos: n.Pos, space: p.Space, typ: p.Type, pred: p.Type == ".pred", param: true, vec: p.Vec}
}

func (c *checker) perfDirective(f *Func, d *Directive) {
	switch d.Name {
	case ".maxntid", ".reqntid", ".reqnctapercluster":
		if len(d.Args) < 1 || len(d.Args) > 3 {
			c.d.errorf(d.Pos, "%s takes 1 to 3 integers, found %d", d.Name, len(d.Args))
		}
	case ".minnctapersm", ".maxnreg", ".maxnctapersm", ".maxclusterrank":
		if len(d.Args) != 1 {
			c.d.errorf(d.Pos, "%s takes one integer, found %d", d.Name, len(d.Args))
		}
	case ".noreturn", ".explicitcluster", ".blocksareclusters":
		if len(d.Args) != 0 {
			c.d.errorf(d.Pos, "%s takes no arguments", d.Name)
		}
	}
	switch d.Name {
	case ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".explicitcluster", ".reqnctapercluster", ".maxclusterrank":
		if !f.Entry {
			c.d.errorf(d.Pos, "%s applies only to .entry functions", d.Name)
		}
	}
	if d.Name == ".noreturn" && f.Entry {
		// ptxas: "Parsing error near '.noreturn'" on a kernel.
		c.d.errorf(d.Pos, ".noreturn applies only to .func functions")
	}
	switch d.Name {
	case ".explicitcluster", ".reqnctapercluster", ".maxclusterrank":
		c.gate(d.Pos, d.Name, 78, 90)
	}
}

func (c *checker) collectLabels(b *Block) {
	for _, s := range b.Stmts {
		var name string
		var kind declKind
		var pos Pos
		switch x := s.(type) {
		case *Label:
			name, kind, pos = x.Name, dkLabel, x.Pos
		case *Prototype:
			name, kind, pos = x.Name, dkProto, x.Pos
		case *Directive:
			if x.Label == "" {
				continue
			}
			name, kind, pos = x.Label, dkTargets, x.Pos
		case *Block:
			c.collectLabels(x)
			continue
		default:
			continue
		}
		if old := c.labels[name]; old != nil {
			c.d.errorf(pos, "duplicate label %s (first defined at %s)", name, old.pos)
			continue
		}
		c.labels[name] = &decl{kind: kind, pos: pos}
	}
}

func (c *checker) block(parent *scope, b *Block) {
	s := newScope(parent)
	for _, st := range b.Stmts {
		switch x := st.(type) {
		case *VarDecl:
			// Decision: ptxas 13 refuses every linkage directive inside a
			// function, .extern included ("Parsing error near '.shared'"
			// for a function-scope .extern .shared array, the construct
			// behind 568 of the 677 fuzz programs NVIDIA's JIT refused).
			for _, l := range x.Linkage {
				if l == ".extern" {
					c.d.errorf(x.Pos, ".extern is not allowed inside a function: declare %s %s at module scope", x.Space, declNames(x))
					break
				}
				c.d.errorf(x.Pos, "%s is not allowed on declarations inside a function", l)
			}
			c.declareVars(s, x, false)
			ext := false
			for _, l := range x.Linkage {
				ext = ext || l == ".extern"
			}
			for _, n := range x.Names {
				c.unsized(x, n, ext)
				if n.Init != nil {
					if x.Space == ".reg" || x.Space == ".local" || x.Space == ".shared" || x.Space == ".param" {
						c.d.errorf(n.Init.Pos, "%s variables cannot have an initializer", x.Space)
					} else {
						c.initializer(n.Init)
					}
				}
			}
		case *Block:
			c.block(s, x)
		case *Instr:
			c.instr(s, x)
		case *Directive:
			if x.Label != "" {
				for i, a := range x.Args {
					if l := c.labels[a]; l == nil || l.kind != dkLabel {
						if x.Name == ".calltargets" {
							if d := s.lookup(a); d != nil && d.kind == dkFunc {
								continue
							}
							c.d.errorf(x.Pos, "%s entry %d: %s is not a declared function", x.Name, i+1, a)
							continue
						}
						c.d.errorf(x.Pos, "%s entry %d: use of undeclared label '%s'", x.Name, i+1, a)
					}
				}
			}
		}
	}
}

// declNames lists a declaration's names for messages.
func declNames(v *VarDecl) string {
	var ns []string
	for _, n := range v.Names {
		ns = append(ns, n.Name)
	}
	return strings.Join(ns, ", ")
}

// opName is the full mnemonic for messages: "ld.global.u32".
func opName(in *Instr) string { return in.Op + strings.Join(in.Mods, "") }

// lazyOpName prints as opName(in) where a message formats it (%s): the
// checkers that name the instruction in many messages make the name only
// when they report one, not for every instruction.
type lazyOpName struct{ in *Instr }

func (n lazyOpName) String() string { return opName(n.in) }

func (c *checker) gate(p Pos, what string, minPTX, minSM int) {
	if minPTX > 0 && c.m.Version.Num() > 0 && c.m.Version.Num() < minPTX {
		c.d.errorf(p, "%s requires PTX ISA %d.%d or later, but the module declares .version %s", what, minPTX/10, minPTX%10, c.m.Version)
	}
	if minSM > 0 && c.sm > 0 && c.sm < minSM {
		c.d.errorf(p, "%s requires sm_%d or higher, but the module targets sm_%d", what, minSM, c.sm)
	}
}

func (c *checker) instr(s *scope, in *Instr) {
	if in.Guard != nil {
		d := s.lookup(in.Guard.Reg)
		switch {
		case d == nil:
			c.undeclared(in.Guard.Pos, in.Guard.Reg, "register")
		case d.kind != dkReg || !d.pred:
			c.d.errorf(in.Guard.Pos, "guard %s is not a predicate register", in.Guard.Reg)
		}
	}
	entry, ok := c.isaEntry(in.Op)
	if !ok {
		c.d.errorf(in.OpPos, "unknown instruction '%s'", in.Op)
		return
	}
	spec := entry.spec
	c.gate(in.OpPos, in.Op, spec.minPTX, spec.minSM)
	for _, g := range spec.gates {
		if in.HasMod(g.mod) {
			c.gate(in.OpPos, in.Op+g.mod, g.minPTX, g.minSM)
		}
	}
	// Resolve every name first, so undeclared names are reported even when
	// the operand form is also wrong.
	var clsBuf [8]opClass
	cls := clsBuf[:0]
	if len(in.Args) > len(clsBuf) {
		cls = make([]opClass, 0, len(in.Args))
	}
	cls = cls[:len(in.Args)]
	bad := false
	for i, a := range in.Args {
		cls[i] = c.classify(s, in, a)
		bad = bad || cls[i] == clsError
	}
	if bad {
		return
	}
	switch in.Op {
	case "call":
		c.call(s, in, cls)
		return
	case "bra":
		if len(in.Args) == 1 && cls[0] != clsLabel && cls[0] != clsError {
			c.d.errorf(in.Args[0].Pos, "branch target of %s must be a label, found %s", opName(in), describe(in.Args[0], cls[0]))
			return
		}
	}
	if c.forms(in, entry.forms, cls) {
		c.mods(s, in)
	}
}

// opClass is the resolved category of an operand.
type opClass uint8

const (
	clsError    opClass = iota // already reported
	clsReg                     // non-predicate register or special register
	clsRegOff                  // register+imm outside an address
	clsPred                    // predicate register
	clsImm                     // integer immediate
	clsFloatImm                // float immediate
	clsSym                     // variable address or generic(var)
	clsFunc                    // function name
	clsLabel                   // code label
	clsProto                   // .callprototype or .calltargets/.branchtargets label
	clsAddr                    // [ ... ]
	clsVec                     // { ... }
	clsList                    // ( ... )
	clsPair                    // a|b
	clsSink                    // _
)

func (c *checker) undeclared(p Pos, name, what string) {
	if strings.HasPrefix(name, "%") && what != "parameter" {
		what = "register"
	}
	c.d.errorf(p, "use of undeclared %s '%s'", what, name)
}

// classify resolves an operand's names and returns its class.
func (c *checker) classify(s *scope, in *Instr, o *Operand) opClass {
	switch o.Kind {
	case OpSink:
		return clsSink
	case OpInt:
		if _, ok := o.Int(); !ok {
			c.d.errorf(o.Pos, "integer literal %s does not fit in 64 bits", o.Text)
			return clsError
		}
		return clsImm
	case OpFloat:
		if _, ok := o.Float(); !ok {
			c.d.errorf(o.Pos, "malformed float literal %s", o.Text)
			return clsError
		}
		return clsFloatImm
	case OpGeneric:
		d := s.lookup(o.Name)
		if d == nil || d.kind != dkVar {
			c.d.errorf(o.Pos, "generic( ) needs a variable, and %s is not one", o.Name)
			return clsError
		}
		return clsSym
	case OpName:
		return c.classifyName(s, in, o, false)
	case OpAddr:
		base := o.Elems[0]
		if base.Kind == OpName {
			cl := c.classifyName(s, in, base, true)
			switch cl {
			case clsError:
				return clsError
			case clsReg, clsRegOff, clsSym, clsFunc:
			default:
				c.d.errorf(base.Pos, "address base %s must be a register or a variable", base.Name)
				return clsError
			}
		}
		for _, e := range o.Elems[1:] {
			if c.classify(s, in, e) == clsError {
				return clsError
			}
		}
		if o.Comp != "" && o.Comp != ".unified" {
			c.d.errorf(o.Pos, "unknown address qualifier %s (only .unified is defined)", o.Comp)
			return clsError
		}
		return clsAddr
	case OpVec, OpList, OpPair:
		for _, e := range o.Elems {
			cl := c.classify(s, in, e)
			if cl == clsError {
				return clsError
			}
			if o.Kind == OpVec && cl != clsReg && cl != clsPred && cl != clsImm && cl != clsFloatImm && cl != clsSink {
				c.d.errorf(e.Pos, "vector elements must be registers or immediates, found %s", describe(e, cl))
				return clsError
			}
		}
		switch o.Kind {
		case OpVec:
			return clsVec
		case OpList:
			return clsList
		}
		return clsPair
	}
	return clsError
}

func (c *checker) classifyName(s *scope, in *Instr, o *Operand, inAddr bool) opClass {
	// Declared names come first: they are by far the most common operands,
	// and a declaration shadows the predefined names below.
	if d := s.lookup(o.Name); d != nil {
		return c.classifyDecl(d, o, inAddr)
	}
	if l := c.labels[o.Name]; l != nil {
		if l.kind == dkLabel {
			return clsLabel
		}
		return clsProto
	}
	// WARP_SZ is PTX's one predefined constant (the warp size, 32).
	if o.Name == "WARP_SZ" && o.Comp == "" {
		return clsImm
	}
	if comps, minSM, ok := isSpecialReg(o.Name); ok {
		if o.Comp != "" && (len(o.Comp) != 2 || !strings.Contains(comps, o.Comp[1:])) {
			c.d.errorf(o.Pos, "special register %s has no component %s", o.Name, o.Comp)
			return clsError
		}
		if minSM > 0 && c.sm > 0 && c.sm < minSM {
			c.d.errorf(o.Pos, "%s requires sm_%d or higher, but the module targets sm_%d", o.Name, minSM, c.sm)
			return clsError
		}
		return clsReg
	}
	what := "identifier"
	switch {
	case inAddr && (in.Op == "ld" || in.Op == "st") && (in.HasMod(".param")):
		what = "parameter"
	case in.Op == "bra" || in.Op == "brx":
		what = "label"
	case inAddr:
		what = "symbol"
	case in.Op == "call":
		what = "function"
	}
	c.undeclared(o.Pos, o.Name, what)
	return clsError
}

func (c *checker) classifyDecl(d *decl, o *Operand, inAddr bool) opClass {
	if o.HasIdx && d.kind != dkVar {
		c.d.errorf(o.Pos, "%s[%d]: only variables can be indexed", o.Name, o.Idx)
		return clsError
	}
	switch d.kind {
	case dkReg:
		// Vector components, and the byte/half selectors of the video
		// instructions (%r1.b0, %r2.h1).
		if o.Comp != "" && !validComponent(o.Comp) {
			c.d.errorf(o.Pos, "unknown vector component %s on %s", o.Comp, o.Name)
			return clsError
		}
		// ptxas reads .x/.y/.z/.w (and .r/.g/.b/.a) on a scalar register
		// as a video selector and rejects it ("Unknown video selector").
		if d.vec == 0 && strings.Contains(" .x .y .z .w .r .g .b .a ", " "+o.Comp+" ") {
			c.d.errorf(o.Pos, "%s is not a vector register: it has no component %s", o.Name, o.Comp)
			return clsError
		}
		if d.pred {
			if o.HasOff {
				c.d.errorf(o.Pos, "a predicate register cannot take an offset")
				return clsError
			}
			return clsPred
		}
		if o.HasOff && !inAddr {
			return clsRegOff
		}
		return clsReg
	case dkVar:
		return clsSym
	case dkFunc:
		if o.HasIdx {
			c.d.errorf(o.Pos, "%s is a function, not an array", o.Name)
			return clsError
		}
		return clsFunc
	}
	return clsError
}

func describe(o *Operand, cl opClass) string {
	switch cl {
	case clsReg, clsRegOff:
		return "register " + o.Name
	case clsPred:
		return "predicate " + o.Name
	case clsImm, clsFloatImm:
		return "immediate " + o.Text
	case clsSym:
		return "symbol " + o.Name
	case clsFunc:
		return "function " + o.Name
	case clsLabel:
		return "label " + o.Name
	case clsProto:
		return "prototype " + o.Name
	case clsAddr:
		return "an address"
	case clsVec:
		return "a vector"
	case clsList:
		return "an operand list"
	case clsPair:
		return "a predicate pair"
	case clsSink:
		return "'_'"
	}
	return "an operand"
}

var classWant = map[byte]string{
	'd': "a destination register",
	'a': "a register or immediate",
	'A': "a register, immediate or symbol",
	'p': "a predicate register",
	'q': "a predicate destination",
	'm': "a memory address [...]",
	'l': "a label or function name",
	'i': "an integer immediate",
	'v': "a vector {...}",
}

// fits reports whether an operand of class cl is accepted by letter.
func fits(letter byte, cl opClass) bool {
	switch letter {
	case '*':
		return true
	case 'd':
		return cl == clsReg || cl == clsVec || cl == clsSink
	case 'a':
		// Decision: "reg+imm" outside an address is accepted as a source
		// value. The ISA only documents it in addresses, but ZLUDA's
		// operand tests (corpus test/operands.ptx) use it in add and setp,
		// and the lowering treats it as an addition.
		return cl == clsReg || cl == clsRegOff || cl == clsImm || cl == clsFloatImm || cl == clsVec
	case 'A':
		return fits('a', cl) || cl == clsSym || cl == clsFunc
	case 'p':
		return cl == clsPred || cl == clsImm
	case 'q':
		return cl == clsPred || cl == clsPair || cl == clsSink
	case 'm':
		return cl == clsAddr
	case 'l':
		return cl == clsLabel || cl == clsFunc || cl == clsProto
	case 'i':
		return cl == clsImm
	case 'v':
		return cl == clsVec
	}
	return false
}

// formOps splits a form string into letters and the count of required
// operands.
func formOps(ops string) (letters []byte, required int) {
	for f := range strings.FieldsSeq(ops) {
		letters = append(letters, f[0])
		if !strings.HasSuffix(f, "?") {
			required = len(letters)
		}
	}
	return letters, required
}

// compiledForm is an isaForm with its when-list and letters split once.
type compiledForm struct {
	when     []string // modifiers that enable the form; empty for a default form
	any      bool     // a lone "*": any operand list
	letters  []byte
	required int
}

// isaEntry is an opcode's spec with its forms parsed once.
type isaEntry struct {
	spec  isaSpec
	forms []compiledForm
}

// isaEntries holds the isaEntry of each opcode made so far (isaEntryOf).
var isaEntries sync.Map // opcode -> *isaEntry

// isaEntryOf returns op's entry of isaTable with its forms compiled, ok
// false for an opcode the table lacks. Each entry is made when the
// checker first meets its opcode: every orilab process used to compile
// the whole table at initialization, also those that check no PTX.
func isaEntryOf(op string) (*isaEntry, bool) {
	if e, ok := isaEntries.Load(op); ok {
		return e.(*isaEntry), true
	}
	spec, ok := isaTable[op]
	if !ok {
		return nil, false
	}
	e := &isaEntry{spec: spec}
	for _, f := range spec.forms {
		cf := compiledForm{any: strings.TrimSpace(f.ops) == "*"}
		if f.when != "" {
			cf.when = strings.Split(f.when, "|")
		}
		cf.letters, cf.required = formOps(f.ops)
		e.forms = append(e.forms, cf)
	}
	got, _ := isaEntries.LoadOrStore(op, e)
	return got.(*isaEntry), true
}

// forms reports whether the operands match one applicable form, and
// reports the mismatch when they do not.
func (c *checker) forms(in *Instr, all []compiledForm, cls []opClass) bool {
	// Conditional forms take precedence when one of their modifiers is
	// present; otherwise the default forms apply. Most opcodes have one or
	// two forms, so a fixed-size buffer avoids allocating.
	var buf [8]*compiledForm
	applicable := buf[:0]
	for i := range all {
		f := &all[i]
		for _, m := range f.when {
			if in.HasMod(m) {
				applicable = append(applicable, f)
				break
			}
		}
	}
	if len(applicable) == 0 {
		for i := range all {
			if all[i].when == nil {
				applicable = append(applicable, &all[i])
			}
		}
	}
	if len(applicable) == 0 {
		return true
	}
	var counts []int
	var firstFit []byte
	for _, f := range applicable {
		if f.any {
			// A lone '*' accepts any operand list: the opcode is not
			// validated beyond name resolution.
			return true
		}
		if len(in.Args) < f.required || len(in.Args) > len(f.letters) {
			for n := f.required; n <= len(f.letters); n++ {
				counts = appendUnique(counts, n)
			}
			continue
		}
		ok := true
		for i, cl := range cls {
			if !fits(f.letters[i], cl) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
		if firstFit == nil {
			firstFit = f.letters
		}
	}
	name := opName(in)
	if firstFit == nil {
		c.d.errorf(in.OpPos, "wrong number of operands for %s: got %d, want %s", name, len(in.Args), joinCounts(counts))
		return false
	}
	for i, cl := range cls {
		if !fits(firstFit[i], cl) {
			c.d.errorf(in.Args[i].Pos, "operand %d of %s must be %s, found %s", i+1, name, classWant[firstFit[i]], describe(in.Args[i], cl))
			return false
		}
	}
	return false
}

func appendUnique(xs []int, n int) []int {
	for _, x := range xs {
		if x == n {
			return xs
		}
	}
	return append(xs, n)
}

func joinCounts(ns []int) string {
	// Small insertion sort: at most a handful of counts.
	for i := 1; i < len(ns); i++ {
		for j := i; j > 0 && ns[j] < ns[j-1]; j-- {
			ns[j], ns[j-1] = ns[j-1], ns[j]
		}
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// call validates "call{.uni} (rets), target, (args){, proto};".
func (c *checker) call(s *scope, in *Instr, cls []opClass) {
	i := 0
	var rets, args *Operand
	if i < len(in.Args) && cls[i] == clsList {
		rets = in.Args[i]
		i++
	}
	if i >= len(in.Args) {
		c.d.errorf(in.OpPos, "call needs a target function")
		return
	}
	target, tcls := in.Args[i], cls[i]
	i++
	if i < len(in.Args) && cls[i] == clsList {
		args = in.Args[i]
		i++
	}
	var proto *Operand
	if i < len(in.Args) {
		proto = in.Args[i]
		if cls[i] != clsProto {
			c.d.errorf(proto.Pos, "the last operand of an indirect call must be a .callprototype or .calltargets label, found %s", describe(proto, cls[i]))
			return
		}
		i++
	}
	if i < len(in.Args) {
		c.d.errorf(in.Args[i].Pos, "unexpected operand %d of call", i+1)
		return
	}
	switch tcls {
	case clsFunc:
		if proto != nil {
			c.d.errorf(proto.Pos, "a direct call to %s takes no prototype", target.Name)
			return
		}
		fd := s.lookup(target.Name)
		f := fd.fn
		if f.Entry {
			c.d.errorf(target.Pos, "cannot call %s: it is an .entry kernel", target.Name)
			return
		}
		nr, na := 0, 0
		if rets != nil {
			nr = len(rets.Elems)
		}
		if args != nil {
			na = len(args.Elems)
		}
		if nr != len(f.Rets) {
			c.d.errorf(target.Pos, "call to %s receives %d return values, but %s returns %d", f.Name, nr, f.Name, len(f.Rets))
			return
		}
		if na != len(f.Params) {
			c.d.errorf(target.Pos, "call to %s passes %d arguments, but %s takes %d", f.Name, na, f.Name, len(f.Params))
		}
	case clsReg:
		if proto == nil {
			c.d.errorf(target.Pos, "indirect call through %s needs a .callprototype or .calltargets label as its last operand", target.Name)
		}
	default:
		c.d.errorf(target.Pos, "call target must be a function or a register, found %s", describe(target, tcls))
	}
}

func validComponent(c string) bool {
	switch c {
	case ".x", ".y", ".z", ".w", ".r", ".g", ".b", ".a",
		".b0", ".b1", ".b2", ".b3", ".h0", ".h1":
		return true
	}
	return simdSelector(c)
}

// simdSelector reports whether c is a selector or mask of the SIMD video
// instructions: .hxy (one or two half-words 0-3: .h10, .h32, the masks
// .h0 .h1 .h10) or .bxyzw (one to four bytes 0-7: .b3210, .b7654, the
// masks .b20, .b321 ...). Which of them an instruction takes is checked
// where it is lowered.
func simdSelector(c string) bool {
	if len(c) < 3 || c[0] != '.' || c[1] != 'h' && c[1] != 'b' {
		return false
	}
	digits, max := c[2:], byte('7')
	if c[1] == 'h' {
		max = '3'
	}
	if len(digits) > 4 || c[1] == 'h' && len(digits) > 2 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > max {
			return false
		}
	}
	return true
}
