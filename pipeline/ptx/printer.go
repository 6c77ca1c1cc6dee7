package ptx

import (
	"strconv"
	"strings"
)

// Print renders a module as PTX text in orilab's canonical layout: one
// directive or statement per line, tab indentation, functions and sections
// separated by blank lines. Comments are not kept. Printing a parsed
// printout gives the same text again (the corpus tests pin this).
func Print(m *Module) string {
	var pr printer
	var prev Item
	for _, it := range m.Items {
		if prev != nil && needsBlank(prev, it) {
			pr.b.WriteByte('\n')
		}
		switch x := it.(type) {
		case *Directive:
			pr.directive(x)
			pr.b.WriteByte('\n')
		case *VarDecl:
			pr.varDecl(x)
			pr.b.WriteByte('\n')
		case *Func:
			pr.function(x)
		case *Section:
			pr.section(x)
		}
		prev = it
	}
	return pr.b.String()
}

func needsBlank(prev, cur Item) bool {
	switch prev.(type) {
	case *Func, *Section:
		return true
	}
	switch cur.(type) {
	case *Func, *Section:
		return true
	}
	return false
}

// FormatInstr renders one instruction the way Print does, without
// indentation or newline.
func FormatInstr(in *Instr) string {
	var pr printer
	pr.instr(in)
	return pr.b.String()
}

type printer struct {
	b      strings.Builder
	indent int
}

func (pr *printer) tabs() {
	for i := 0; i < pr.indent; i++ {
		pr.b.WriteByte('\t')
	}
}

func (pr *printer) directive(d *Directive) {
	if d.Label != "" {
		pr.b.WriteString(d.Label)
		pr.b.WriteString(": ")
	}
	pr.b.WriteString(d.Name)
	for i, a := range d.Args {
		if i == 0 {
			pr.b.WriteByte(' ')
		} else {
			pr.b.WriteString(d.Seps[i])
		}
		pr.b.WriteString(a)
	}
	if d.Semi {
		pr.b.WriteByte(';')
	}
}

func (pr *printer) declHead(v *VarDecl) {
	for _, l := range v.Linkage {
		pr.b.WriteString(l)
		pr.b.WriteByte(' ')
	}
	pr.b.WriteString(v.Space)
	for _, a := range v.Attrs {
		pr.b.WriteByte(' ')
		pr.b.WriteString(a)
	}
	if v.Align != 0 {
		pr.b.WriteString(" .align ")
		pr.b.WriteString(strconv.Itoa(v.Align))
	}
	if v.Vec != 0 {
		pr.b.WriteString(" .v")
		pr.b.WriteString(strconv.Itoa(v.Vec))
	}
	pr.b.WriteByte(' ')
	pr.b.WriteString(v.Type)
	if v.Ptr {
		pr.b.WriteString(" .ptr")
		if v.PtrSpace != "" {
			pr.b.WriteByte(' ')
			pr.b.WriteString(v.PtrSpace)
		}
		if v.PtrAlign != 0 {
			pr.b.WriteString(" .align ")
			pr.b.WriteString(strconv.Itoa(v.PtrAlign))
		}
	}
}

func (pr *printer) varName(n *VarName) {
	pr.b.WriteString(n.Name)
	if n.Range > 0 {
		pr.b.WriteByte('<')
		pr.b.WriteString(strconv.Itoa(n.Range))
		pr.b.WriteByte('>')
	}
	for _, d := range n.Dims {
		pr.b.WriteByte('[')
		if d >= 0 {
			pr.b.WriteString(strconv.Itoa(d))
		}
		pr.b.WriteByte(']')
	}
	if n.Init != nil {
		pr.b.WriteString(" = ")
		pr.init(n.Init)
	}
}

func (pr *printer) init(in *Init) {
	if in.Expr != nil {
		pr.operand(in.Expr)
		return
	}
	pr.b.WriteByte('{')
	for i, e := range in.Elems {
		if i > 0 {
			pr.b.WriteString(", ")
		}
		pr.init(e)
	}
	pr.b.WriteByte('}')
}

func (pr *printer) varDecl(v *VarDecl) {
	pr.declHead(v)
	for i, n := range v.Names {
		if i == 0 {
			pr.b.WriteByte(' ')
		} else {
			pr.b.WriteString(", ")
		}
		pr.varName(n)
	}
	pr.b.WriteByte(';')
}

func (pr *printer) params(ps []*VarDecl, multiline bool) {
	pr.b.WriteByte('(')
	for i, p := range ps {
		if i > 0 {
			pr.b.WriteByte(',')
			if !multiline {
				pr.b.WriteByte(' ')
			}
		}
		if multiline {
			pr.b.WriteString("\n\t")
		}
		pr.declHead(p)
		if p.Names[0].Name != "" {
			pr.b.WriteByte(' ')
			pr.varName(p.Names[0])
		}
	}
	if multiline && len(ps) > 0 {
		pr.b.WriteByte('\n')
	}
	pr.b.WriteByte(')')
}

func (pr *printer) function(f *Func) {
	for _, l := range f.Linkage {
		pr.b.WriteString(l)
		pr.b.WriteByte(' ')
	}
	if f.Entry {
		pr.b.WriteString(".entry ")
	} else {
		pr.b.WriteString(".func ")
		if f.HasRets {
			pr.params(f.Rets, false)
			pr.b.WriteByte(' ')
		}
	}
	pr.b.WriteString(f.Name)
	if f.HasParams {
		pr.params(f.Params, len(f.Params) > 0)
	}
	for _, d := range f.Dirs {
		pr.b.WriteByte('\n')
		pr.directive(d)
	}
	if f.Body == nil {
		pr.b.WriteString(";\n")
		return
	}
	pr.b.WriteByte('\n')
	pr.block(f.Body)
	pr.b.WriteByte('\n')
}

func (pr *printer) block(b *Block) {
	pr.tabs()
	pr.b.WriteString("{\n")
	pr.indent++
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *Label:
			// Labels sit one level out, as compilers print them.
			for i := 0; i < pr.indent-1; i++ {
				pr.b.WriteByte('\t')
			}
			pr.b.WriteString(x.Name)
			pr.b.WriteString(":\n")
		case *Block:
			pr.block(x)
			pr.b.WriteByte('\n')
		case *Instr:
			pr.tabs()
			pr.instr(x)
			pr.b.WriteByte('\n')
		case *VarDecl:
			pr.tabs()
			pr.varDecl(x)
			pr.b.WriteByte('\n')
		case *Directive:
			pr.tabs()
			pr.directive(x)
			pr.b.WriteByte('\n')
		case *Prototype:
			pr.tabs()
			pr.b.WriteString(x.Name)
			pr.b.WriteString(": .callprototype ")
			if x.HasRets {
				pr.params(x.Rets, false)
				pr.b.WriteByte(' ')
			}
			pr.b.WriteString(x.FnName)
			pr.b.WriteByte(' ')
			pr.params(x.Params, false)
			for _, d := range x.Dirs {
				pr.b.WriteByte(' ')
				pr.directive(d)
			}
			pr.b.WriteString(";\n")
		}
	}
	pr.indent--
	pr.tabs()
	pr.b.WriteByte('}')
}

func (pr *printer) instr(in *Instr) {
	if in.Guard != nil {
		pr.b.WriteByte('@')
		if in.Guard.Neg {
			pr.b.WriteByte('!')
		}
		pr.b.WriteString(in.Guard.Reg)
		pr.b.WriteByte(' ')
	}
	pr.b.WriteString(in.Op)
	for _, m := range in.Mods {
		pr.b.WriteString(m)
	}
	for i, a := range in.Args {
		if i == 0 {
			pr.b.WriteByte(' ')
		} else {
			pr.b.WriteString(", ")
		}
		pr.operand(a)
	}
	pr.b.WriteByte(';')
}

func (pr *printer) operand(o *Operand) {
	if o.Not {
		pr.b.WriteByte('!')
	}
	if o.Neg {
		pr.b.WriteByte('-')
	}
	switch o.Kind {
	case OpName:
		pr.b.WriteString(o.Name)
		pr.b.WriteString(o.Comp)
		if o.HasIdx {
			pr.b.WriteByte('[')
			pr.b.WriteString(strconv.FormatInt(o.Idx, 10))
			pr.b.WriteByte(']')
		}
		pr.offset(o)
	case OpGeneric:
		pr.b.WriteString("generic(")
		pr.b.WriteString(o.Name)
		pr.b.WriteByte(')')
		pr.offset(o)
	case OpSink:
		pr.b.WriteByte('_')
	case OpInt, OpFloat:
		pr.b.WriteString(o.Text)
	case OpAddr:
		pr.b.WriteByte('[')
		for i, e := range o.Elems {
			if i > 0 {
				pr.b.WriteString(", ")
			}
			pr.operand(e)
		}
		pr.b.WriteByte(']')
		pr.b.WriteString(o.Comp)
	case OpVec:
		pr.b.WriteByte('{')
		for i, e := range o.Elems {
			if i > 0 {
				pr.b.WriteString(", ")
			}
			pr.operand(e)
		}
		pr.b.WriteByte('}')
	case OpList:
		pr.b.WriteByte('(')
		for i, e := range o.Elems {
			if i > 0 {
				pr.b.WriteString(", ")
			}
			pr.operand(e)
		}
		pr.b.WriteByte(')')
	case OpPair:
		pr.operand(o.Elems[0])
		pr.b.WriteByte('|')
		pr.operand(o.Elems[1])
	}
}

func (pr *printer) offset(o *Operand) {
	if !o.HasOff {
		return
	}
	if o.Off < 0 {
		pr.b.WriteByte('-')
		pr.b.WriteString(strconv.FormatUint(uint64(-o.Off), 10))
		return
	}
	pr.b.WriteByte('+')
	pr.b.WriteString(strconv.FormatInt(o.Off, 10))
}

func (pr *printer) section(s *Section) {
	pr.b.WriteString(".section ")
	pr.b.WriteString(s.Name)
	pr.b.WriteString("\n{\n")
	for _, e := range s.Entries {
		if e.Label != "" {
			pr.b.WriteString(e.Label)
			pr.b.WriteString(":\n")
			continue
		}
		pr.b.WriteByte('\t')
		pr.b.WriteString(e.Type)
		pr.b.WriteByte(' ')
		pr.b.WriteString(strings.Join(e.Values, ", "))
		pr.b.WriteByte('\n')
	}
	pr.b.WriteString("}\n")
}
