package ori

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// ParseError is a problem in Ori text, with its position.
type ParseError struct {
	File string
	Line int
	Col  int
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: error: %s", e.File, e.Line, e.Col, e.Msg)
}

// ParseModule reads the text form written by Module.String.
func ParseModule(file string, text []byte) (*Module, error) {
	p := &textParser{file: file, lines: strings.Split(string(text), "\n")}
	return p.module()
}

// ParseFunc reads one function in the text form written by Func.String.
func ParseFunc(file string, text []byte) (*Func, error) {
	p := &textParser{file: file, lines: strings.Split(string(text), "\n")}
	p.skipBlank()
	if p.i >= len(p.lines) {
		return nil, p.errf(1, "no function in input")
	}
	f, err := p.function()
	if err != nil {
		return nil, err
	}
	p.skipBlank()
	if p.i < len(p.lines) {
		return nil, p.errf(1, "unexpected text after the function")
	}
	return f, nil
}

type textParser struct {
	file  string
	lines []string
	i     int // index of the current line
}

func (p *textParser) errf(col int, format string, args ...any) error {
	return &ParseError{File: p.file, Line: p.i + 1, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// cur returns the current line without its comment, and the column offset
// of its first non-blank character.
func (p *textParser) cur() (string, int) {
	s := p.lines[p.i]
	if j := strings.Index(s, "//"); j >= 0 {
		s = s[:j]
	}
	s = strings.TrimRight(s, " \t\r")
	t := strings.TrimLeft(s, " \t")
	return t, len(s) - len(t) + 1
}

func (p *textParser) skipBlank() {
	for p.i < len(p.lines) {
		if s, _ := p.cur(); s != "" {
			return
		}
		p.i++
	}
}

// fields splits "name k=v k=v" into the name and a key/value map.
func (p *textParser) kv(s string, col int) (string, map[string]string, error) {
	parts := strings.Fields(s)
	if len(parts) == 0 {
		return "", nil, p.errf(col, "expected a name")
	}
	m := map[string]string{}
	for _, f := range parts[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return "", nil, p.errf(col, "expected key=value, found %q", f)
		}
		m[k] = v
	}
	return parts[0], m, nil
}

func (p *textParser) num(col int, kv map[string]string, key string, required bool) (int64, error) {
	v, ok := kv[key]
	if !ok {
		if required {
			return 0, p.errf(col, "missing %s=", key)
		}
		return 0, nil
	}
	n, err := parseHex(v)
	if err != nil {
		return 0, p.errf(col, "%s=%s: %v", key, v, err)
	}
	return n, nil
}

func parseHex(s string) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var u uint64
	var err error
	if strings.HasPrefix(s, "0x") {
		u, err = strconv.ParseUint(s[2:], 16, 64)
	} else {
		u, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	v := int64(u)
	if neg {
		v = -v
	}
	return v, nil
}

func (p *textParser) module() (*Module, error) {
	p.skipBlank()
	if p.i >= len(p.lines) {
		return nil, p.errf(1, "empty input: expected .module")
	}
	s, col := p.cur()
	var arch, asz int
	if _, err := fmt.Sscanf(s, ".module sm_%d address_size=%d", &arch, &asz); err != nil {
		return nil, p.errf(col, "expected \".module sm_NN address_size=N\", found %q", s)
	}
	m := &Module{Arch: arch, AddressSize: asz}
	p.i++
	for {
		p.skipBlank()
		if p.i >= len(p.lines) {
			return m, nil
		}
		s, col := p.cur()
		switch {
		case strings.HasPrefix(s, ".global ") || strings.HasPrefix(s, ".const ") || strings.HasPrefix(s, ".shared "):
			g, err := p.global(s, col)
			if err != nil {
				return nil, err
			}
			m.Globals = append(m.Globals, g)
			p.i++
		case strings.HasPrefix(s, ".texref ") || strings.HasPrefix(s, ".surfref "):
			dir, name, _ := strings.Cut(s, " ")
			if name = strings.TrimSpace(name); name == "" || strings.ContainsAny(name, " =") {
				return nil, p.errf(col, "expected \"%s NAME\", found %q", dir, s)
			}
			m.TexVars = append(m.TexVars, TexVar{Name: name, Surface: dir == ".surfref"})
			p.i++
		case strings.HasPrefix(s, ".entry ") || strings.HasPrefix(s, ".func "):
			f, err := p.function()
			if err != nil {
				return nil, err
			}
			m.Funcs = append(m.Funcs, f)
		default:
			return nil, p.errf(col, "expected .global, .const, .shared, .entry or .func, found %q", s)
		}
	}
}

func (p *textParser) global(s string, col int) (*Global, error) {
	sp, rest, _ := strings.Cut(s, " ")
	name, kv, err := p.kv(rest, col)
	if err != nil {
		return nil, err
	}
	g := &Global{Name: name}
	switch sp {
	case ".global":
		g.Space = SpaceGlobal
		if g.AddrSlot, err = p.num(col, kv, "slot", true); err != nil {
			return nil, err
		}
	case ".const":
		g.Space = SpaceConst
		if g.Offset, err = p.num(col, kv, "offset", true); err != nil {
			return nil, err
		}
	case ".shared":
		g.Space = SpaceShared
	}
	if g.Size, err = p.num(col, kv, "size", true); err != nil {
		return nil, err
	}
	if g.Align, err = p.num(col, kv, "align", true); err != nil {
		return nil, err
	}
	if v, ok := kv["init"]; ok {
		if g.Init, err = hex.DecodeString(v); err != nil {
			return nil, p.errf(col, "init=: %v", err)
		}
	}
	return g, nil
}

func (p *textParser) function() (*Func, error) {
	s, col := p.cur()
	f := &Func{}
	switch {
	case strings.HasPrefix(s, ".entry "):
		f.Entry = true
		f.Name = strings.TrimSpace(s[len(".entry "):])
	case strings.HasPrefix(s, ".func "):
		f.Name = strings.TrimSpace(s[len(".func "):])
	default:
		return nil, p.errf(col, "expected .entry or .func, found %q", s)
	}
	if f.Name == "" || strings.ContainsAny(f.Name, " \t") {
		return nil, p.errf(col, "bad function name %q", f.Name)
	}
	p.i++
	for {
		p.skipBlank()
		if p.i >= len(p.lines) {
			return nil, p.errf(1, "function %s has no body", f.Name)
		}
		s, col := p.cur()
		if s == "{" {
			p.i++
			break
		}
		dir, rest, _ := strings.Cut(s, " ")
		switch dir {
		case ".param", ".ret", ".shared_var", ".texref":
			name, kv, err := p.kv(rest, col)
			if err != nil {
				return nil, err
			}
			if dir == ".texref" {
				t := TexRef{Name: name}
				if t.Offset, err = p.num(col, kv, "offset", true); err != nil {
					return nil, err
				}
				f.TexRefs = append(f.TexRefs, t)
				break
			}
			if dir == ".shared_var" {
				v := SharedVar{Name: name}
				if v.Offset, err = p.num(col, kv, "offset", true); err != nil {
					return nil, err
				}
				if v.Size, err = p.num(col, kv, "size", true); err != nil {
					return nil, err
				}
				f.SharedVars = append(f.SharedVars, v)
				break
			}
			pr := Param{Name: name}
			if pr.Offset, err = p.num(col, kv, "offset", true); err != nil {
				return nil, err
			}
			if pr.Size, err = p.num(col, kv, "size", true); err != nil {
				return nil, err
			}
			if pr.Align, err = p.num(col, kv, "align", true); err != nil {
				return nil, err
			}
			if pr.Words, err = p.num(col, kv, "words", false); err != nil {
				return nil, err
			}
			if dir == ".param" {
				f.Params = append(f.Params, pr)
			} else {
				f.Rets = append(f.Rets, pr)
			}
		case ".literal":
			v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(rest), "0x"), 16, 64)
			if err != nil || !strings.HasPrefix(strings.TrimSpace(rest), "0x") {
				return nil, p.errf(col, ".literal %q: want a 64-bit hexadecimal value (0x...)", strings.TrimSpace(rest))
			}
			f.Literals = append(f.Literals, v)
		case ".retaddr":
			r := strings.TrimSpace(rest)
			n, err := strconv.Atoi(strings.TrimPrefix(r, "R"))
			if err != nil || !strings.HasPrefix(r, "R") || n < 0 || n%2 != 0 || n+1 >= ClassR.Limit() {
				return nil, p.errf(col, ".retaddr: %q is not an even R register", r)
			}
			f.RetAddr = int32(n)
		case ".shared", ".local":
			n, err := parseHex(strings.TrimSpace(rest))
			if err != nil {
				return nil, p.errf(col, "%s: %v", dir, err)
			}
			if dir == ".shared" {
				f.SharedBytes = n
			} else {
				f.LocalBytes = n
			}
		default:
			return nil, p.errf(col, "unexpected %q in the header of %s", s, f.Name)
		}
		p.i++
	}
	var cur *Block
	seenBlock := map[int32]bool{}
	seenID := map[int32]bool{}
	for {
		if p.i >= len(p.lines) {
			return nil, p.errf(1, "function %s: missing '}'", f.Name)
		}
		s, col := p.cur()
		switch {
		case s == "":
		case s == "}":
			p.i++
			f.noteIDs()
			if err := f.ComputeCFG(); err != nil {
				return nil, &ParseError{File: p.file, Line: p.i, Col: 1, Msg: err.Error()}
			}
			return f, nil
		case strings.HasPrefix(s, "BB") && strings.HasSuffix(s, ":"):
			head := strings.TrimSuffix(s, ":")
			noUnroll := strings.HasSuffix(head, " [nounroll]")
			head = strings.TrimSuffix(head, " [nounroll]")
			label := ""
			if j := strings.Index(head, " <"); j >= 0 && strings.HasSuffix(head, ">") {
				label = head[j+2 : len(head)-1]
				head = head[:j]
			}
			id, err := strconv.Atoi(head[2:])
			if err != nil || id < 0 {
				return nil, p.errf(col, "bad block name %q", head)
			}
			if seenBlock[int32(id)] {
				return nil, p.errf(col, "block BB%d defined twice", id)
			}
			seenBlock[int32(id)] = true
			cur = &Block{ID: int32(id), Label: label, NoUnroll: noUnroll}
			f.Blocks = append(f.Blocks, cur)
		case strings.HasPrefix(s, "#"):
			if cur == nil {
				return nil, p.errf(col, "instruction before the first block label")
			}
			in, err := p.inst(s, col)
			if err != nil {
				return nil, err
			}
			if seenID[in.ID] {
				return nil, p.errf(col, "instruction ID #%d used twice", in.ID)
			}
			seenID[in.ID] = true
			cur.Insts = append(cur.Insts, in)
		default:
			return nil, p.errf(col, "expected a block label, an instruction or '}', found %q", s)
		}
		p.i++
	}
}

// inst parses "#ID [ctrl] [@[!]P] NAME dsts = srcs ; [line N]".
func (p *textParser) inst(s string, col int) (*Inst, error) {
	in := NewInst(OpInvalid)
	semi := strings.LastIndex(s, ";")
	if semi < 0 {
		return nil, p.errf(col+len(s), "instruction must end with ';'")
	}
	if tail := strings.TrimSpace(s[semi+1:]); tail != "" {
		if err := parseTail(in, tail); err != "" {
			return nil, p.errf(col+semi+1, "%s", err)
		}
	}
	body := s[:semi]
	pos := 0
	next := func() (string, int) {
		for pos < len(body) && body[pos] == ' ' {
			pos++
		}
		start := pos
		for pos < len(body) && body[pos] != ' ' {
			pos++
		}
		return body[start:pos], start
	}
	tok, at := next()
	id, err := strconv.Atoi(tok[1:])
	if err != nil || id <= 0 {
		return nil, p.errf(col+at, "bad instruction ID %q", tok)
	}
	in.ID = int32(id)
	tok, at = next()
	if strings.HasPrefix(tok, "[B") {
		c, err := parseCtrl(tok)
		if err != nil {
			return nil, p.errf(col+at, "%v", err)
		}
		in.Ctrl = c
		tok, at = next()
	}
	if strings.HasPrefix(tok, "@") {
		g := tok[1:]
		if strings.HasPrefix(g, "!") {
			in.GuardNot = true
			g = g[1:]
		}
		r, err := parseReg(g)
		if err != nil || !r.Class.IsPred() {
			return nil, p.errf(col+at, "bad guard %q: want a predicate register", tok)
		}
		in.Guard = r
		tok, at = next()
	}
	parts := strings.Split(tok, ".")
	in.Op = LookupOpcode(parts[0])
	if in.Op == OpInvalid {
		return nil, p.errf(col+at, "unknown opcode %q", parts[0])
	}
	if len(parts) > 1 {
		in.Mods = parts[1:]
		for _, m := range in.Mods {
			if m == "" {
				return nil, p.errf(col+at, "empty modifier in %q", tok)
			}
		}
	}
	rest := body[pos:]
	restCol := col + pos
	dstText, srcText, hasEq := cutTop(rest, " =")
	if !hasEq {
		srcText = rest
	}
	if hasEq {
		if in.Dsts, err = p.operands(dstText, restCol); err != nil {
			return nil, err
		}
		restCol += len(dstText) + 2
	}
	if in.Srcs, err = p.operands(srcText, restCol); err != nil {
		return nil, err
	}
	return in, nil
}

// cutTop splits s at the first sep outside brackets.
func cutTop(s, sep string) (string, string, bool) {
	depth := 0
	for i := 0; i+len(sep) <= len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 && s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

func (p *textParser) operands(s string, col int) ([]Operand, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var ops []Operand
	for {
		part, rest, more := cutTop(s, ",")
		o, err := ParseOperand(strings.TrimSpace(part))
		if err != nil {
			return nil, p.errf(col+len(part)-len(strings.TrimLeft(part, " ")), "%v", err)
		}
		ops = append(ops, o)
		if !more {
			return ops, nil
		}
		col += len(part) + 1
		s = rest
	}
}

func parseCtrl(s string) (Ctrl, error) {
	c := NoCtrl
	c.Set = true
	// [B------:R-:W-:Y:S04]
	if len(s) != 21 || s[0] != '[' || s[20] != ']' || s[8] != ':' || s[9] != 'R' || s[11] != ':' || s[12] != 'W' || s[14] != ':' || s[16] != ':' || s[17] != 'S' {
		return c, fmt.Errorf("bad control word %q: want [B------:R-:W-:-:S00]", s)
	}
	for i := 0; i < 6; i++ {
		switch ch := s[2+i]; {
		case ch == '-':
		case ch == byte('0'+i):
			c.Wait |= 1 << i
		default:
			return c, fmt.Errorf("bad wait mask in %q", s)
		}
	}
	bar := func(ch byte) (int8, error) {
		if ch == '-' {
			return -1, nil
		}
		if ch >= '0' && ch <= '5' {
			return int8(ch - '0'), nil
		}
		return 0, fmt.Errorf("bad barrier %q in %q", ch, s)
	}
	var err error
	if c.RdBar, err = bar(s[10]); err != nil {
		return c, err
	}
	if c.WrBar, err = bar(s[13]); err != nil {
		return c, err
	}
	switch s[15] {
	case 'Y':
		c.Yield = true
	case '-':
	default:
		return c, fmt.Errorf("bad yield flag in %q", s)
	}
	st, err := strconv.Atoi(s[18:20])
	if err != nil || st > 15 {
		return c, fmt.Errorf("bad stall count in %q", s)
	}
	c.Stall = uint8(st)
	return c, nil
}

// parseReg reads a register name: %r5, %r5[1].64, R4.64, RZ, PT, %p2, UP1.
func parseReg(s string) (Reg, error) {
	switch s {
	case "RZ":
		return RZ, nil
	case "URZ":
		return URZ, nil
	case "PT":
		return PT, nil
	case "UPT":
		return UPT, nil
	}
	words := 1
	switch {
	case strings.HasSuffix(s, ".64"):
		words, s = 2, s[:len(s)-3]
	case strings.HasSuffix(s, ".128"):
		words, s = 4, s[:len(s)-4]
	}
	var r Reg
	if strings.HasPrefix(s, "%") {
		r.Virtual = true
		off := 0
		if j := strings.IndexByte(s, '['); j >= 0 && strings.HasSuffix(s, "]") {
			n, err := strconv.Atoi(s[j+1 : len(s)-1])
			if err != nil || n < 0 || n > 3 {
				return r, fmt.Errorf("bad word offset in %q", s)
			}
			off, s = n, s[:j]
		}
		r.Off = uint8(off)
		switch {
		case strings.HasPrefix(s, "%ur"):
			r.Class, s = ClassUR, s[3:]
		case strings.HasPrefix(s, "%up"):
			r.Class, s = ClassUP, s[3:]
		case strings.HasPrefix(s, "%r"):
			r.Class, s = ClassR, s[2:]
		case strings.HasPrefix(s, "%p"):
			r.Class, s = ClassP, s[2:]
		default:
			return r, fmt.Errorf("unknown virtual register %q", s)
		}
	} else {
		switch {
		case strings.HasPrefix(s, "UR"):
			r.Class, s = ClassUR, s[2:]
		case strings.HasPrefix(s, "UP"):
			r.Class, s = ClassUP, s[2:]
		case strings.HasPrefix(s, "R"):
			r.Class, s = ClassR, s[1:]
		case strings.HasPrefix(s, "P"):
			r.Class, s = ClassP, s[1:]
		default:
			return r, fmt.Errorf("unknown register %q", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || (!r.Virtual && n >= r.Class.Limit()) || n > 1<<24 {
		return r, fmt.Errorf("bad register number %q", s)
	}
	r.N = int32(n)
	r.Words = uint8(words)
	return r, nil
}

// ParseOperand reads one operand in the text form.
func ParseOperand(s string) (Operand, error) {
	var o Operand
	if s == "" {
		return o, fmt.Errorf("empty operand")
	}
	switch {
	case strings.HasPrefix(s, "BB"):
		n, err := strconv.Atoi(s[2:])
		if err != nil || n < 0 {
			return o, fmt.Errorf("bad block reference %q", s)
		}
		return BlockRef(n), nil
	case strings.HasPrefix(s, "SR_"):
		return SR(s), nil
	case strings.HasPrefix(s, "`") && strings.HasSuffix(s, "`") && len(s) > 2:
		return Sym(s[1 : len(s)-1]), nil
	case strings.HasPrefix(s, "0f") && len(s) == 10:
		v, err := strconv.ParseUint(s[2:], 16, 32)
		if err != nil {
			return o, fmt.Errorf("bad f32 immediate %q", s)
		}
		return Operand{Kind: OpdImm, Imm: int64(v), FKind: ImmF32}, nil
	case strings.HasPrefix(s, "0d") && len(s) == 18:
		v, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return o, fmt.Errorf("bad f64 immediate %q", s)
		}
		return Operand{Kind: OpdImm, Imm: int64(v), FKind: ImmF64}, nil
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "-0x"):
		v, err := parseHex(s)
		if err != nil {
			return o, err
		}
		return Imm(v), nil
	case strings.HasPrefix(s, "c[") && strings.HasSuffix(s, "]"):
		j := strings.Index(s, "][")
		if j < 0 {
			return o, fmt.Errorf("bad constant bank operand %q", s)
		}
		bank, err := parseHex(s[2:j])
		if err != nil || bank < 0 || bank > 17 {
			return o, fmt.Errorf("bad constant bank in %q", s)
		}
		o, err = parseAddr(s[j+2:len(s)-1], OpdCBank)
		if err != nil {
			return o, fmt.Errorf("%v in %q", err, s)
		}
		o.Bank = int32(bank)
		return o, nil
	case strings.HasPrefix(s, "desc[") && strings.HasSuffix(s, "]"):
		j := strings.Index(s, "][")
		if j < 0 {
			return o, fmt.Errorf("bad memory descriptor operand %q: want desc[URn][address]", s)
		}
		d, err := parseReg(s[5:j])
		if err != nil || d.Class != ClassUR {
			return o, fmt.Errorf("bad memory descriptor in %q: want a uniform register", s)
		}
		o, err = parseAddr(s[j+2:len(s)-1], OpdMem)
		if err != nil {
			return o, fmt.Errorf("%v in %q", err, s)
		}
		d.Words = 2 // a descriptor is a uniform pair; desc[UR4] names it by its first register
		o.HasDesc, o.Desc = true, d
		return o, nil
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		o, err := parseAddr(s[1:len(s)-1], OpdMem)
		if err != nil {
			return o, fmt.Errorf("%v in %q", err, s)
		}
		return o, nil
	}
	o.Kind = OpdReg
	if strings.HasPrefix(s, "!") {
		o.Not, s = true, s[1:]
	}
	if strings.HasPrefix(s, "-") {
		o.Neg, s = true, s[1:]
	}
	if strings.HasSuffix(s, ".reuse") {
		o.Reuse, s = true, strings.TrimSuffix(s, ".reuse")
	}
	if strings.HasPrefix(s, "|") && strings.HasSuffix(s, "|") && len(s) > 2 {
		o.Abs, s = true, s[1:len(s)-1]
	}
	r, err := parseReg(s)
	if err != nil {
		return o, err
	}
	o.Reg = r
	return o, nil
}

// parseAddr reads "R4.64+0x10", "%r3.64-0x8", "R2" or "0x10".
func parseAddr(s string, kind OpdKind) (Operand, error) {
	o := Operand{Kind: kind}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "-0x") {
		v, err := parseHex(s)
		if err != nil {
			return o, err
		}
		o.Imm = v
		return o, nil
	}
	base, off := s, ""
	if j := strings.LastIndexAny(s, "+-"); j > 0 {
		base, off = s[:j], s[j:]
	}
	r, err := parseReg(base)
	if err != nil {
		return o, err
	}
	o.Reg, o.HasBase = r, true
	if off != "" {
		v, err := parseHex(strings.TrimPrefix(off, "+"))
		if err != nil {
			return o, err
		}
		o.Imm = v
	}
	return o, nil
}

// parseTail reads what follows an instruction's ';': an optional
// "line N", then an optional role ("spill", "refill", "copy", "remat #ID").
func parseTail(in *Inst, tail string) string {
	f := strings.Fields(tail)
	if len(f) >= 2 && f[0] == "line" {
		n, err := strconv.Atoi(f[1])
		if err != nil || n <= 0 {
			return fmt.Sprintf("expected \"line N\" after ';', found %q", tail)
		}
		in.Line = int32(n)
		f = f[2:]
	}
	if len(f) == 0 {
		return ""
	}
	for r := RoleSpill; int(r) < len(roleNames); r++ {
		if f[0] != roleNames[r] {
			continue
		}
		in.Role = r
		if r == RoleRemat {
			if len(f) != 2 || !strings.HasPrefix(f[1], "#") {
				return fmt.Sprintf("expected \"remat #ID\" after ';', found %q", tail)
			}
			n, err := strconv.Atoi(f[1][1:])
			if err != nil || n <= 0 {
				return fmt.Sprintf("expected \"remat #ID\" after ';', found %q", tail)
			}
			in.Origin = int32(n)
			return ""
		}
		if len(f) != 1 {
			break
		}
		return ""
	}
	return fmt.Sprintf("expected \"line N\" or a role (spill, refill, remat #ID, copy) after ';', found %q", tail)
}
