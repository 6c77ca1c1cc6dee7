package ptx

import (
	"strconv"
	"strings"
)

// Parse lexes, parses and checks one PTX module. The error, when not nil,
// is an ErrorList whose entries read "FILE:LINE:COL: error: MESSAGE"
// followed by the source line and a caret. A syntax error stops parsing at
// the first problem; semantic errors are all collected (up to 20). The
// module is returned along with semantic errors so tools can still show it;
// it is nil after a syntax error.
func Parse(filename string, src []byte) (*Module, error) {
	m, d := parseOnly(filename, src)
	if m == nil {
		return nil, d.err()
	}
	check(d, m)
	return m, d.err()
}

// ParseSyntax parses without the semantic checks: names need not be
// declared and operand forms are not validated. The printer and the
// round-trip tests use it; compilers should use Parse.
func ParseSyntax(filename string, src []byte) (*Module, error) {
	m, d := parseOnly(filename, src)
	if m == nil {
		return nil, d.err()
	}
	return m, nil
}

func parseOnly(filename string, src []byte) (*Module, *diag) {
	d := &diag{file: filename, src: src}
	toks := lex(d, src)
	if len(d.errs) > 0 {
		return nil, d
	}
	p := &parser{toks: toks, d: d}
	m := &Module{File: filename}
	ok := p.module(m)
	if !ok {
		return nil, d
	}
	return m, d
}

// parser is a recursive-descent parser over the token slice. Every parse
// method returns false after recording the first syntax error; callers
// unwind without trying to recover, because a PTX syntax error almost
// always makes the rest of the file meaningless.
type parser struct {
	// protoParams is set while parsing a .callprototype's parameter lists,
	// where names are optional.
	protoParams bool
	toks        []token
	i           int
	d           *diag
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isPunct(s string) bool {
	t := p.toks[p.i]
	return t.kind == tPunct && t.text == s
}

func (p *parser) accept(s string) bool {
	if p.isPunct(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) fail(t token, format string, args ...any) bool {
	p.d.errorf(t.pos, format, args...)
	return false
}

func (p *parser) expect(s string, context string) bool {
	if p.accept(s) {
		return true
	}
	t := p.peek()
	return p.fail(t, "expected '%s' %s, found %s", s, context, t.describe())
}

// sameLine reports whether the next token is on line n (and not EOF).
func (p *parser) sameLine(n int) bool {
	t := p.peek()
	return t.kind != tEOF && t.pos.Line == n
}

var linkages = map[string]bool{".visible": true, ".extern": true, ".weak": true, ".common": true}

var stateSpaces = map[string]bool{
	".reg": true, ".sreg": true, ".const": true, ".global": true, ".local": true,
	".param": true, ".shared": true, ".tex": true,
}

var scalarTypes = map[string]bool{
	".b8": true, ".b16": true, ".b32": true, ".b64": true, ".b128": true,
	".u8": true, ".u16": true, ".u32": true, ".u64": true,
	".s8": true, ".s16": true, ".s32": true, ".s64": true,
	".f16": true, ".f16x2": true, ".f32": true, ".f64": true,
	".bf16": true, ".bf16x2": true, ".tf32": true,
	".e4m3": true, ".e5m2": true, ".e4m3x2": true, ".e5m2x2": true,
	".u16x2": true, ".s16x2": true,
	".pred": true, ".texref": true, ".samplerref": true, ".surfref": true,
}

// perfDirectives are the directives allowed between a function header and
// its body. Their arguments are integer lists (or a string for .pragma).
var perfDirectives = map[string]bool{
	".maxntid": true, ".reqntid": true, ".minnctapersm": true, ".maxnctapersm": true,
	".maxnreg": true, ".noreturn": true, ".pragma": true, ".explicitcluster": true,
	".reqnctapercluster": true, ".maxclusterrank": true, ".blocksareclusters": true,
	".abi_preserve": true, ".abi_preserve_control": true,
}

func (p *parser) module(m *Module) bool {
	for {
		t := p.peek()
		switch t.kind {
		case tEOF:
			return true
		case tDotName:
		default:
			return p.fail(t, "expected a directive at top level, found %s", t.describe())
		}
		switch t.text {
		case ".version":
			d, ok := p.lineDirective()
			if !ok {
				return false
			}
			v, ok := parseVersion(d.Args)
			if !ok {
				return p.fail(t, "malformed .version: want MAJOR.MINOR, found '%s'", strings.Join(d.Args, " "))
			}
			m.Version = v
			m.Items = append(m.Items, d)
		case ".target":
			d, ok := p.lineDirective()
			if !ok {
				return false
			}
			if len(d.Args) == 0 {
				return p.fail(t, ".target needs at least one target name")
			}
			m.Targets = append(m.Targets, d.Args...)
			m.Items = append(m.Items, d)
		case ".address_size":
			d, ok := p.lineDirective()
			if !ok {
				return false
			}
			n := 0
			if len(d.Args) == 1 {
				n, _ = strconv.Atoi(d.Args[0])
			}
			if n != 32 && n != 64 {
				return p.fail(t, ".address_size must be 32 or 64, found '%s'", strings.Join(d.Args, " "))
			}
			m.AddressSize = n
			m.Items = append(m.Items, d)
		case ".file", ".loc":
			d, ok := p.lineDirective()
			if !ok {
				return false
			}
			m.Items = append(m.Items, d)
		case ".pragma":
			d, ok := p.pragma()
			if !ok {
				return false
			}
			m.Items = append(m.Items, d)
		case ".alias":
			d, ok := p.alias()
			if !ok {
				return false
			}
			m.Items = append(m.Items, d)
		case ".section":
			s, ok := p.section()
			if !ok {
				return false
			}
			m.Items = append(m.Items, s)
		default:
			var link []string
			start := t.pos
			for p.peek().kind == tDotName && linkages[p.peek().text] {
				link = append(link, p.next().text)
			}
			t = p.peek()
			switch {
			case t.kind == tDotName && (t.text == ".entry" || t.text == ".func"):
				f, ok := p.function(start, link)
				if !ok {
					return false
				}
				m.Items = append(m.Items, f)
			case t.kind == tDotName && stateSpaces[t.text]:
				v, ok := p.varDecl(start, link)
				if !ok {
					return false
				}
				m.Items = append(m.Items, v)
			case t.kind == tDotName:
				return p.fail(t, "unknown directive '%s'", t.text)
			default:
				return p.fail(t, "expected .entry, .func or a state space after %s, found %s", strings.Join(link, " "), t.describe())
			}
		}
	}
}

func parseVersion(args []string) (Version, bool) {
	if len(args) != 1 {
		return Version{}, false
	}
	maj, min, ok := strings.Cut(args[0], ".")
	if !ok {
		return Version{}, false
	}
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if err1 != nil || err2 != nil || a < 0 || b < 0 || b > 9 {
		return Version{}, false
	}
	return Version{a, b}, true
}

// lineDirective parses a directive whose arguments end with its line:
// .version, .target, .address_size, .file and .loc carry no ';'.
func (p *parser) lineDirective() (*Directive, bool) {
	t := p.next()
	d := &Directive{Pos: t.pos, Name: t.text}
	sep := " "
	for p.sameLine(t.pos.Line) {
		a := p.peek()
		if a.kind == tPunct && a.text == "," {
			p.next()
			sep = ", "
			continue
		}
		if a.kind == tPunct && a.text == ";" {
			p.next()
			d.Semi = true
			break
		}
		if a.kind == tPunct && a.text != "-" && a.text != "+" {
			return nil, p.fail(a, "unexpected %s in %s directive", a.describe(), t.text)
		}
		p.next()
		text := a.text
		// Keep "-1" as one argument.
		if a.kind == tPunct && p.sameLine(t.pos.Line) {
			text += p.next().text
		}
		d.Args = append(d.Args, text)
		d.Seps = append(d.Seps, sep)
		sep = " "
	}
	return d, true
}

func (p *parser) pragma() (*Directive, bool) {
	t := p.next()
	d := &Directive{Pos: t.pos, Name: t.text, Semi: true}
	for {
		s := p.peek()
		if s.kind != tString {
			return nil, p.fail(s, "expected a string after .pragma, found %s", s.describe())
		}
		p.next()
		d.Args = append(d.Args, s.text)
		sep := " "
		if len(d.Args) > 1 {
			sep = ", "
		}
		d.Seps = append(d.Seps, sep)
		if !p.accept(",") {
			break
		}
	}
	return d, p.expect(";", "after .pragma")
}

func (p *parser) alias() (*Directive, bool) {
	t := p.next()
	d := &Directive{Pos: t.pos, Name: t.text, Semi: true}
	for i := 0; i < 2; i++ {
		a := p.peek()
		if a.kind != tIdent {
			return nil, p.fail(a, "expected a function name in .alias, found %s", a.describe())
		}
		p.next()
		d.Args = append(d.Args, a.text)
		d.Seps = append(d.Seps, ", ")
		if i == 0 && !p.expect(",", "between the names of .alias") {
			return nil, false
		}
	}
	return d, p.expect(";", "after .alias")
}

// section parses ".section NAME { entries }". Each entry is a label
// ("name:") or a data directive ".bN v1, v2, ..." whose values are
// numbers, symbols or symbol+offset; values may continue on following
// lines after a comma.
func (p *parser) section() (*Section, bool) {
	t := p.next()
	n := p.next()
	if n.kind != tDotName && n.kind != tIdent {
		return nil, p.fail(n, "expected a section name after .section, found %s", n.describe())
	}
	s := &Section{Pos: t.pos, Name: n.text}
	if !p.expect("{", "to open the section body") {
		return nil, false
	}
	for !p.accept("}") {
		a := p.peek()
		switch {
		case a.kind == tIdent && p.peekAt(1).kind == tPunct && p.peekAt(1).text == ":":
			p.next()
			p.next()
			s.Entries = append(s.Entries, SectionEntry{Label: a.text})
		case a.kind == tDotName && (a.text == ".b8" || a.text == ".b16" || a.text == ".b32" || a.text == ".b64"):
			p.next()
			e := SectionEntry{Type: a.text}
			for {
				v, ok := p.sectionValue()
				if !ok {
					return nil, false
				}
				e.Values = append(e.Values, v)
				if !p.accept(",") {
					break
				}
			}
			s.Entries = append(s.Entries, e)
		default:
			return nil, p.fail(a, "expected a label, .b8, .b16, .b32, .b64 or '}' in section %s, found %s", s.Name, a.describe())
		}
	}
	return s, true
}

func (p *parser) sectionValue() (string, bool) {
	a := p.peek()
	text := ""
	if a.kind == tPunct && a.text == "-" {
		p.next()
		text = "-"
		a = p.peek()
	}
	switch a.kind {
	case tInt, tIdent, tDotName, tString:
		p.next()
		text += a.text
	default:
		return "", p.fail(a, "expected a value in section data, found %s", a.describe())
	}
	for p.isPunct("+") || p.isPunct("-") {
		op := p.next().text
		b := p.next()
		if b.kind != tInt && b.kind != tIdent {
			return "", p.fail(b, "expected a number after '%s' in section data, found %s", op, b.describe())
		}
		text += op + b.text
	}
	return text, true
}

// declHeader is the part of a declaration before its names.
func (p *parser) declHeader(v *VarDecl) bool {
	sp := p.next()
	v.Space = sp.text
	for p.peek().kind == tDotName {
		t := p.peek()
		switch {
		case t.text == ".align":
			p.next()
			n := p.next()
			a, err := strconv.Atoi(n.text)
			if n.kind != tInt || err != nil || a <= 0 || a&(a-1) != 0 {
				return p.fail(n, ".align needs a power-of-two byte count, found %s", n.describe())
			}
			if v.Ptr {
				v.PtrAlign = a
			} else {
				v.Align = a
			}
		case t.text == ".v2" || t.text == ".v4" || t.text == ".v8":
			p.next()
			if v.Type != "" {
				return p.fail(t, "vector modifier %s must come before the type %s", t.text, v.Type)
			}
			v.Vec = int(t.text[2] - '0')
		case t.text == ".ptr":
			p.next()
			v.Ptr = true
		case t.text == ".attribute":
			p.next()
			if !p.expect("(", "after .attribute") {
				return false
			}
			a := p.next()
			if a.kind != tDotName {
				return p.fail(a, "expected an attribute such as .managed, found %s", a.describe())
			}
			if !p.expect(")", "after the attribute") {
				return false
			}
			v.Attrs = append(v.Attrs, ".attribute("+a.text+")")
		case v.Ptr && stateSpaces[t.text]:
			p.next()
			v.PtrSpace = t.text
		case scalarTypes[t.text]:
			p.next()
			if v.Type != "" {
				return p.fail(t, "declaration has two types, %s and %s", v.Type, t.text)
			}
			v.Type = t.text
		default:
			if v.Type == "" {
				return p.fail(t, "unknown type or modifier '%s' in %s declaration", t.text, v.Space)
			}
			return p.fail(t, "unexpected '%s' after the type %s", t.text, v.Type)
		}
	}
	if v.Type == "" {
		t := p.peek()
		return p.fail(t, "missing type in %s declaration before %s", v.Space, t.describe())
	}
	return true
}

// varName parses one declared name with its range, dimensions and
// initializer.
func (p *parser) varName() (*VarName, bool) {
	t := p.peek()
	if t.kind != tIdent {
		return nil, p.fail(t, "expected a name to declare, found %s", t.describe())
	}
	p.next()
	n := &VarName{Pos: t.pos, Name: t.text}
	if p.accept("<") {
		c := p.next()
		v, ok := parseIntLit(c.text)
		if c.kind != tInt || !ok || v <= 0 || v > 1<<20 {
			return nil, p.fail(c, "expected a positive register count in %s<N>, found %s", n.Name, c.describe())
		}
		n.Range = int(v)
		if !p.expect(">", "to close the register range") {
			return nil, false
		}
	}
	for p.accept("[") {
		if p.accept("]") {
			n.Dims = append(n.Dims, -1)
			continue
		}
		c := p.next()
		v, ok := parseIntLit(c.text)
		if c.kind != tInt || !ok || v < 0 || v > 1<<40 {
			return nil, p.fail(c, "expected an array size, found %s", c.describe())
		}
		n.Dims = append(n.Dims, int(v))
		if !p.expect("]", "to close the array size") {
			return nil, false
		}
	}
	if p.accept("=") {
		in, ok := p.init()
		if !ok {
			return nil, false
		}
		n.Init = in
	}
	return n, true
}

func (p *parser) init() (*Init, bool) {
	t := p.peek()
	if p.accept("{") {
		in := &Init{Pos: t.pos}
		if p.accept("}") {
			return in, true
		}
		for {
			e, ok := p.init()
			if !ok {
				return nil, false
			}
			in.Elems = append(in.Elems, e)
			if p.accept("}") {
				return in, true
			}
			if !p.expect(",", "or '}' in initializer list") {
				return nil, false
			}
		}
	}
	o, ok := p.operand()
	if !ok {
		return nil, false
	}
	switch o.Kind {
	case OpInt, OpFloat, OpName, OpGeneric:
	default:
		return nil, p.fail(t, "initializer must be a constant, a symbol or generic(symbol)")
	}
	return &Init{Pos: t.pos, Expr: o}, true
}

// varDecl parses a declaration statement ending in ';'.
func (p *parser) varDecl(start Pos, link []string) (*VarDecl, bool) {
	v := &VarDecl{Pos: start, Linkage: link}
	if !p.declHeader(v) {
		return nil, false
	}
	for {
		n, ok := p.varName()
		if !ok {
			return nil, false
		}
		v.Names = append(v.Names, n)
		if p.accept(";") {
			return v, true
		}
		if !p.expect(",", "or ';' after a declared name") {
			return nil, false
		}
	}
}

// paramList parses "( .param .u32 a, .reg .b32 b )"; the '(' is current.
func (p *parser) paramList() ([]*VarDecl, bool) {
	p.next()
	var ps []*VarDecl
	if p.accept(")") {
		return ps, true
	}
	for {
		t := p.peek()
		if t.kind != tDotName || (t.text != ".param" && t.text != ".reg") {
			return nil, p.fail(t, "expected .param or .reg in a parameter list, found %s", t.describe())
		}
		v := &VarDecl{Pos: t.pos}
		if !p.declHeader(v) {
			return nil, false
		}
		if p.protoParams && (p.isPunct(",") || p.isPunct(")")) {
			// A prototype may leave its parameters unnamed.
			v.Names = []*VarName{{Pos: p.peek().pos}}
			ps = append(ps, v)
			if p.accept(")") {
				return ps, true
			}
			p.next()
			continue
		}
		n, ok := p.varName()
		if !ok {
			return nil, false
		}
		if n.Init != nil {
			p.d.errorf(n.Init.Pos, "a parameter cannot have an initializer")
			return nil, false
		}
		v.Names = []*VarName{n}
		ps = append(ps, v)
		if p.accept(")") {
			return ps, true
		}
		if !p.expect(",", "or ')' in the parameter list") {
			return nil, false
		}
	}
}

func (p *parser) function(start Pos, link []string) (*Func, bool) {
	kw := p.next()
	f := &Func{Pos: start, Linkage: link, Entry: kw.text == ".entry"}
	if !f.Entry && p.isPunct("(") {
		rets, ok := p.paramList()
		if !ok {
			return nil, false
		}
		f.Rets, f.HasRets = rets, true
	}
	name := p.peek()
	if name.kind != tIdent {
		return nil, p.fail(name, "expected a function name after %s, found %s", kw.text, name.describe())
	}
	p.next()
	f.Name, f.NamePos = name.text, name.pos
	if p.isPunct("(") {
		ps, ok := p.paramList()
		if !ok {
			return nil, false
		}
		f.Params, f.HasParams = ps, true
	}
	dirs, ok := p.perfDirectives()
	if !ok {
		return nil, false
	}
	f.Dirs = dirs
	if p.accept(";") {
		return f, true
	}
	// Decision: PTX 1.x-2.x nvcc (nvopencc) wrote forward declarations
	// without a terminating ';' (".func f (.param .u32 a)" and then the next
	// directive). ptxas of that era accepted them, so a header followed by a
	// new top-level directive is a declaration. The printer always writes
	// the ';'.
	if t := p.peek(); t.kind == tEOF || t.kind == tDotName && startsTopLevel(t.text) {
		return f, true
	}
	if !p.isPunct("{") {
		t := p.peek()
		if t.kind == tDotName {
			return nil, p.fail(t, "unexpected '%s' in the header of %s", t.text, f.Name)
		}
		return nil, p.fail(t, "expected '{' or ';' after the header of %s, found %s", f.Name, t.describe())
	}
	b, ok := p.block()
	if !ok {
		return nil, false
	}
	f.Body = b
	return f, true
}

// startsTopLevel reports whether a directive can only begin a new top-level
// item, which ends a semicolon-less function declaration.
func startsTopLevel(name string) bool {
	switch name {
	case ".entry", ".func", ".file", ".loc", ".version", ".target", ".address_size", ".section", ".alias":
		return true
	}
	return linkages[name] || stateSpaces[name]
}

// perfDirectives parses the directives between a function header and its
// body: integer lists (".maxntid 256, 1, 1"), bare flags (".noreturn") and
// ".pragma" strings.
func (p *parser) perfDirectives() ([]*Directive, bool) {
	var ds []*Directive
	for p.peek().kind == tDotName && perfDirectives[p.peek().text] {
		if p.peek().text == ".pragma" {
			d, ok := p.pragma()
			if !ok {
				return nil, false
			}
			ds = append(ds, d)
			continue
		}
		t := p.next()
		d := &Directive{Pos: t.pos, Name: t.text}
		for p.peek().kind == tInt {
			d.Args = append(d.Args, p.next().text)
			d.Seps = append(d.Seps, ", ")
			if !p.accept(",") {
				break
			}
		}
		ds = append(ds, d)
	}
	return ds, true
}

// block parses "{ statements }"; the '{' is current.
func (p *parser) block() (*Block, bool) {
	open := p.next()
	b := &Block{Pos: open.pos}
	for {
		t := p.peek()
		switch t.kind {
		case tEOF:
			return nil, p.fail(open, "unclosed '{': the file ends before its '}'")
		case tPunct:
			switch t.text {
			case "}":
				p.next()
				return b, true
			case "{":
				nb, ok := p.block()
				if !ok {
					return nil, false
				}
				b.Stmts = append(b.Stmts, nb)
				continue
			case "@":
				in, ok := p.instr()
				if !ok {
					return nil, false
				}
				b.Stmts = append(b.Stmts, in)
				continue
			}
			return nil, p.fail(t, "expected an instruction, declaration or label, found %s", t.describe())
		case tDotName:
			switch {
			case t.text == ".loc" || t.text == ".file":
				d, ok := p.lineDirective()
				if !ok {
					return nil, false
				}
				b.Stmts = append(b.Stmts, d)
			case t.text == ".pragma":
				d, ok := p.pragma()
				if !ok {
					return nil, false
				}
				b.Stmts = append(b.Stmts, d)
			case stateSpaces[t.text] || linkages[t.text]:
				var link []string
				for p.peek().kind == tDotName && linkages[p.peek().text] {
					link = append(link, p.next().text)
				}
				if s := p.peek(); s.kind != tDotName || !stateSpaces[s.text] {
					return nil, p.fail(s, "expected a state space after %s, found %s", strings.Join(link, " "), s.describe())
				}
				v, ok := p.varDecl(t.pos, link)
				if !ok {
					return nil, false
				}
				b.Stmts = append(b.Stmts, v)
			default:
				return nil, p.fail(t, "unexpected directive '%s' inside a function body", t.text)
			}
		case tIdent:
			if n := p.peekAt(1); n.kind == tPunct && n.text == ":" {
				if d := p.peekAt(2); d.kind == tDotName {
					switch d.text {
					case ".callprototype":
						pr, ok := p.prototype()
						if !ok {
							return nil, false
						}
						b.Stmts = append(b.Stmts, pr)
						continue
					case ".branchtargets", ".calltargets":
						tl, ok := p.targetList()
						if !ok {
							return nil, false
						}
						b.Stmts = append(b.Stmts, tl)
						continue
					}
				}
				p.next()
				p.next()
				b.Stmts = append(b.Stmts, &Label{Pos: t.pos, Name: t.text})
				continue
			}
			in, ok := p.instr()
			if !ok {
				return nil, false
			}
			b.Stmts = append(b.Stmts, in)
		default:
			return nil, p.fail(t, "expected an instruction, declaration or label, found %s", t.describe())
		}
	}
}

func (p *parser) prototype() (*Prototype, bool) {
	name := p.next()
	p.next() // ':'
	p.next() // .callprototype
	pr := &Prototype{Pos: name.pos, Name: name.text}
	if p.isPunct("(") {
		p.protoParams = true
		rets, ok := p.paramList()
		p.protoParams = false
		if !ok {
			return nil, false
		}
		pr.Rets, pr.HasRets = rets, true
	}
	u := p.next()
	if u.kind != tIdent {
		return nil, p.fail(u, "expected '_' in place of the function name in .callprototype, found %s", u.describe())
	}
	// Decision: the ISA writes '_' here; gpuocelot's tests repeat the
	// prototype's own name instead, and nothing depends on the slot, so any
	// identifier is kept and printed back.
	pr.FnName = u.text
	if p.isPunct("(") {
		p.protoParams = true
		ps, ok := p.paramList()
		p.protoParams = false
		if !ok {
			return nil, false
		}
		pr.Params = ps
	}
	dirs, ok := p.perfDirectives()
	if !ok {
		return nil, false
	}
	pr.Dirs = dirs
	return pr, p.expect(";", "after .callprototype")
}

func (p *parser) targetList() (*Directive, bool) {
	name := p.next()
	p.next() // ':'
	kw := p.next()
	d := &Directive{Pos: name.pos, Name: kw.text, Label: name.text, Semi: true}
	for {
		a := p.peek()
		if a.kind != tIdent {
			return nil, p.fail(a, "expected a label in %s, found %s", kw.text, a.describe())
		}
		p.next()
		d.Args = append(d.Args, a.text)
		d.Seps = append(d.Seps, ", ")
		if !p.accept(",") {
			break
		}
	}
	return d, p.expect(";", "after the "+kw.text+" list")
}

func (p *parser) instr() (*Instr, bool) {
	start := p.peek()
	in := &Instr{Pos: start.pos}
	if p.accept("@") {
		g := &Guard{Pos: start.pos}
		if p.accept("!") {
			g.Neg = true
		}
		r := p.next()
		if r.kind != tIdent {
			return nil, p.fail(r, "expected a predicate register after '@', found %s", r.describe())
		}
		g.Reg = r.text
		in.Guard = g
	}
	op := p.next()
	if op.kind != tIdent {
		return nil, p.fail(op, "expected an instruction mnemonic, found %s", op.describe())
	}
	in.Op, in.OpPos = op.text, op.pos
	for p.peek().kind == tDotName {
		in.Mods = append(in.Mods, p.next().text)
	}
	if p.accept(";") {
		return in, true
	}
	for {
		o, ok := p.operand()
		if !ok {
			return nil, false
		}
		in.Args = append(in.Args, o)
		if p.accept(";") {
			return in, true
		}
		if !p.isPunct(",") {
			t := p.peek()
			return nil, p.fail(t, "expected ',' or ';' after operand %d of %s, found %s", len(in.Args), in.Op, t.describe())
		}
		p.next()
	}
}

// operand parses one operand: a primary, optionally followed by "|other"
// (the predicate pair of setp and friends).
func (p *parser) operand() (*Operand, bool) {
	o, ok := p.primary()
	if !ok {
		return nil, false
	}
	if p.isPunct("|") {
		p.next()
		q, ok := p.primary()
		if !ok {
			return nil, false
		}
		return &Operand{Pos: o.Pos, Kind: OpPair, Elems: []*Operand{o, q}}, true
	}
	return o, true
}

func (p *parser) primary() (*Operand, bool) {
	t := p.peek()
	switch {
	case t.kind == tPunct && t.text == "!":
		p.next()
		o, ok := p.primary()
		if !ok {
			return nil, false
		}
		if o.Kind != OpName || o.Not {
			return nil, p.fail(t, "'!' applies only to a predicate register")
		}
		o.Not = true
		o.Pos = t.pos
		return o, true
	case t.kind == tPunct && t.text == "-":
		p.next()
		n := p.peek()
		switch n.kind {
		case tInt, tFloat, tHexFloat:
			p.next()
			k := OpInt
			if n.kind != tInt {
				k = OpFloat
			}
			return &Operand{Pos: t.pos, Kind: k, Text: "-" + n.text}, true
		case tIdent:
			o, ok := p.primary()
			if !ok {
				return nil, false
			}
			o.Neg = true
			o.Pos = t.pos
			return o, true
		}
		return nil, p.fail(n, "expected a number or register after '-', found %s", n.describe())
	case t.kind == tInt:
		p.next()
		return &Operand{Pos: t.pos, Kind: OpInt, Text: t.text}, true
	case t.kind == tFloat || t.kind == tHexFloat:
		p.next()
		return &Operand{Pos: t.pos, Kind: OpFloat, Text: t.text}, true
	case t.kind == tIdent:
		p.next()
		if t.text == "_" {
			return &Operand{Pos: t.pos, Kind: OpSink}, true
		}
		o := &Operand{Pos: t.pos, Kind: OpName, Name: t.text}
		if t.text == "generic" && p.isPunct("(") {
			p.next()
			s := p.next()
			if s.kind != tIdent {
				return nil, p.fail(s, "expected a symbol inside generic( ), found %s", s.describe())
			}
			if !p.expect(")", "to close generic(") {
				return nil, false
			}
			o = &Operand{Pos: t.pos, Kind: OpGeneric, Name: s.text}
		} else if c := p.peek(); c.kind == tDotName && c.pos.Line == t.pos.Line && c.pos.Col == t.pos.Col+len(t.text) {
			// %tid.x, %r1.y: a component glued to the name.
			p.next()
			o.Comp = c.text
		}
		return p.offset(o)
	case t.kind == tPunct && t.text == "[":
		p.next()
		o := &Operand{Pos: t.pos, Kind: OpAddr}
		base, ok := p.addrBase()
		if !ok {
			return nil, false
		}
		o.Elems = append(o.Elems, base)
		for p.accept(",") {
			e, ok := p.operand()
			if !ok {
				return nil, false
			}
			o.Elems = append(o.Elems, e)
		}
		if !p.expect("]", "to close the address") {
			return nil, false
		}
		return o, true
	case t.kind == tPunct && t.text == "{":
		p.next()
		o := &Operand{Pos: t.pos, Kind: OpVec}
		for {
			e, ok := p.operand()
			if !ok {
				return nil, false
			}
			o.Elems = append(o.Elems, e)
			if p.accept("}") {
				return o, true
			}
			if !p.expect(",", "or '}' in the vector operand") {
				return nil, false
			}
		}
	case t.kind == tPunct && t.text == "(":
		p.next()
		o := &Operand{Pos: t.pos, Kind: OpList}
		if p.accept(")") {
			return o, true
		}
		for {
			e, ok := p.operand()
			if !ok {
				return nil, false
			}
			o.Elems = append(o.Elems, e)
			if p.accept(")") {
				return o, true
			}
			if !p.expect(",", "or ')' in the operand list") {
				return nil, false
			}
		}
	}
	return nil, p.fail(t, "expected an operand, found %s", t.describe())
}

// addrBase parses the first element of an address: "reg", "sym", "reg+imm",
// "sym+imm" or a bare integer address.
func (p *parser) addrBase() (*Operand, bool) {
	t := p.peek()
	switch t.kind {
	case tInt:
		p.next()
		return &Operand{Pos: t.pos, Kind: OpInt, Text: t.text}, true
	case tIdent:
		p.next()
		o := &Operand{Pos: t.pos, Kind: OpName, Name: t.text}
		if c := p.peek(); c.kind == tDotName && c.pos.Line == t.pos.Line && c.pos.Col == t.pos.Col+len(t.text) {
			p.next()
			o.Comp = c.text
		}
		return p.offset(o)
	}
	return nil, p.fail(t, "expected a register, symbol or integer address inside '[ ]', found %s", t.describe())
}

// offset parses an optional "+imm", "-imm" or "+-imm" after a name.
func (p *parser) offset(o *Operand) (*Operand, bool) {
	if !p.isPunct("+") && !p.isPunct("-") {
		return o, true
	}
	neg := p.next().text == "-"
	if p.isPunct("-") {
		p.next()
		neg = !neg
	}
	n := p.next()
	v, ok := parseIntLit(n.text)
	if n.kind != tInt || !ok {
		return nil, p.fail(n, "expected an integer offset after '%s', found %s", o.Name, n.describe())
	}
	if neg {
		v = -v
	}
	o.HasOff, o.Off = true, v
	return o, true
}
