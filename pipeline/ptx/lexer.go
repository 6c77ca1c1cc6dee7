package ptx

// The lexer turns a whole source file into a token slice up front. PTX files
// are small enough (the largest real inputs are a few megabytes) that one
// slice is cheaper than a pull interface, and it gives the parser free
// lookahead. Newlines are not tokens; the few line-oriented directives
// (.file, .loc, .version) use token positions to find the end of their line.

// lex tokenizes src. On a lexical error it records the error in d and
// returns the tokens read so far followed by EOF.
func lex(d *diag, src []byte) []token {
	l := lexer{src: src, line: 1, lineStart: 0, d: d}
	// A token every ~4 bytes is typical of PTX; reserving that avoids most
	// slice growth without overshooting much.
	l.toks = make([]token, 0, len(src)/4+16)
	l.run()
	return l.toks
}

type lexer struct {
	src       []byte
	i         int
	line      int
	lineStart int
	toks      []token
	d         *diag
}

func (l *lexer) pos(at int) Pos { return Pos{Line: int32(l.line), Col: int32(at - l.lineStart + 1)} }

func (l *lexer) emit(k tokKind, start int) {
	l.toks = append(l.toks, token{kind: k, off: int32(start), end: int32(l.i), pos: l.pos(start)})
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '%'
}

func isIdentChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (l *lexer) run() {
	src := l.src
	for l.i < len(src) {
		c := src[l.i]
		switch {
		case c == '\n':
			l.i++
			l.line++
			l.lineStart = l.i
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.i++
		case c == '/' && l.i+1 < len(src) && src[l.i+1] == '/':
			for l.i < len(src) && src[l.i] != '\n' {
				l.i++
			}
		case c == '/' && l.i+1 < len(src) && src[l.i+1] == '*':
			start := l.pos(l.i)
			l.i += 2
			closed := false
			for l.i < len(src) {
				if src[l.i] == '*' && l.i+1 < len(src) && src[l.i+1] == '/' {
					l.i += 2
					closed = true
					break
				}
				if src[l.i] == '\n' {
					l.line++
					l.lineStart = l.i + 1
				}
				l.i++
			}
			if !closed {
				l.d.errorf(start, "unterminated /* comment")
				l.finish()
				return
			}
		case isIdentStart(c):
			start := l.i
			l.i++
			for l.i < len(src) && isIdentChar(src[l.i]) {
				l.i++
			}
			l.emit(tIdent, start)
		case isDigit(c):
			if !l.number() {
				l.finish()
				return
			}
		case c == '.':
			start := l.i
			l.i++
			if l.i < len(src) && isIdentChar(src[l.i]) {
				// A dot name: ".u32", ".shared::cta", ".L2::evict_last", ".1d".
				// Pure digits after the dot (".5") are a float literal.
				allDigits := true
				for l.i < len(src) {
					ch := src[l.i]
					if isIdentChar(ch) {
						if !isDigit(ch) {
							allDigits = false
						}
						l.i++
						continue
					}
					if ch == ':' && l.i+2 < len(src) && src[l.i+1] == ':' && isIdentChar(src[l.i+2]) {
						allDigits = false
						l.i += 2
						continue
					}
					break
				}
				if allDigits {
					l.i = start
					if !l.number() {
						l.finish()
						return
					}
					continue
				}
				l.emit(tDotName, start)
				continue
			}
			l.d.errorf(l.pos(start), "unexpected '.'")
			l.finish()
			return
		case c == '"':
			start := l.i
			l.i++
			for l.i < len(src) && src[l.i] != '"' && src[l.i] != '\n' {
				if src[l.i] == '\\' && l.i+1 < len(src) && src[l.i+1] != '\n' {
					l.i++
				}
				l.i++
			}
			if l.i >= len(src) || src[l.i] != '"' {
				l.d.errorf(l.pos(start), "unterminated string literal")
				l.finish()
				return
			}
			l.i++
			l.emit(tString, start)
		default:
			switch c {
			case '{', '}', '(', ')', '[', ']', ',', ';', ':', '+', '-', '!', '|', '@', '<', '>', '=', '*', '/', '~', '&', '^', '?':
				start := l.i
				l.i++
				l.emit(tPunct, start)
			default:
				if c >= 0x80 || c < 0x20 {
					l.d.errorf(l.pos(l.i), "invalid character 0x%02X", c)
				} else {
					l.d.errorf(l.pos(l.i), "invalid character '%c'", c)
				}
				l.finish()
				return
			}
		}
	}
	l.finish()
}

func (l *lexer) finish() {
	l.toks = append(l.toks, token{kind: tEOF, off: int32(l.i), end: int32(l.i), pos: l.pos(l.i)})
}

// number lexes an integer, a decimal float or a 0f/0d hex float starting at
// l.i. It reports false after recording an error.
func (l *lexer) number() bool {
	src := l.src
	start := l.i
	if src[l.i] == '0' && l.i+1 < len(src) {
		switch src[l.i+1] {
		case 'f', 'F', 'd', 'D':
			// 0fXXXXXXXX (f32 bits) or 0dXXXXXXXXXXXXXXXX (f64 bits).
			want := 8
			if src[l.i+1] == 'd' || src[l.i+1] == 'D' {
				want = 16
			}
			j := l.i + 2
			for j < len(src) && isHexDigit(src[j]) {
				j++
			}
			if j-(l.i+2) != want || j < len(src) && isIdentChar(src[j]) {
				for j < len(src) && isIdentChar(src[j]) {
					j++
				}
				l.d.errorf(l.pos(start), "malformed hex float literal '%s': want %d hex digits after '%s'", src[start:j], want, src[start:start+2])
				return false
			}
			l.i = j
			l.emit(tHexFloat, start)
			return true
		case 'x', 'X':
			j := l.i + 2
			for j < len(src) && isHexDigit(src[j]) {
				j++
			}
			if j == l.i+2 {
				l.d.errorf(l.pos(start), "malformed hex literal: no digits after '0x'")
				return false
			}
			l.i = j
			return l.intSuffix(start)
		case 'b', 'B':
			j := l.i + 2
			for j < len(src) && (src[j] == '0' || src[j] == '1') {
				j++
			}
			if j == l.i+2 {
				l.d.errorf(l.pos(start), "malformed binary literal: no digits after '0b'")
				return false
			}
			l.i = j
			return l.intSuffix(start)
		}
	}
	j := l.i
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	isFloat := false
	if j < len(src) && src[j] == '.' && !(j+1 < len(src) && (src[j+1] >= 'a' && src[j+1] <= 'z' || src[j+1] >= 'A' && src[j+1] <= 'Z' || src[j+1] == '_')) {
		isFloat = true
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			isFloat = true
			j = k
			for j < len(src) && isDigit(src[j]) {
				j++
			}
		}
	}
	l.i = j
	if isFloat {
		if l.i < len(src) && isIdentChar(src[l.i]) {
			return l.badSuffix(start)
		}
		l.emit(tFloat, start)
		return true
	}
	return l.intSuffix(start)
}

// intSuffix accepts the optional U suffix of an integer literal and rejects
// any other letters glued to it.
func (l *lexer) intSuffix(start int) bool {
	if l.i < len(l.src) && (l.src[l.i] == 'U' || l.src[l.i] == 'u') {
		l.i++
	}
	if l.i < len(l.src) && isIdentChar(l.src[l.i]) {
		return l.badSuffix(start)
	}
	l.emit(tInt, start)
	return true
}

func (l *lexer) badSuffix(start int) bool {
	j := l.i
	for j < len(l.src) && isIdentChar(l.src[j]) {
		j++
	}
	l.d.errorf(l.pos(start), "malformed number '%s'", l.src[start:j])
	return false
}
