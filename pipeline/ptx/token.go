package ptx

import "fmt"

// tokKind classifies a lexical token.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tIdent            // identifiers, registers (%r1), labels ($L__BB0_1), _ sink
	tDotName          // .u32, .shared::cta, .v4, .1d: a dot followed by a name
	tInt              // 123, 0x1f, 017, 0b101, with optional U suffix
	tFloat            // 1.5, 2e10 (decimal float literal)
	tHexFloat         // 0f3F800000, 0d3FF0000000000000
	tString           // "text", with the quotes kept in Text
	tPunct            // one of { } ( ) [ ] , ; : + - ! | @ < > = * / ~ & ^ ?
)

func (k tokKind) String() string {
	switch k {
	case tEOF:
		return "end of file"
	case tIdent:
		return "identifier"
	case tDotName:
		return "directive or modifier"
	case tInt:
		return "integer"
	case tFloat, tHexFloat:
		return "float literal"
	case tString:
		return "string"
	case tPunct:
		return "punctuation"
	}
	return fmt.Sprintf("token(%d)", int(k))
}

// Pos is a 1-based source position. The zero Pos means "no position".
type Pos struct {
	Line int32 // 1-based line number
	Col  int32 // 1-based column, counted in bytes
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// IsValid reports whether p names a real source position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// token is one lexical token. It holds byte offsets instead of a string so
// that a token slice contains no pointers: the garbage collector never has
// to scan it, which matters for multi-megabyte inputs.
type token struct {
	kind tokKind
	off  int32 // byte offset of the first character in the source
	end  int32 // byte offset just past the last character
	pos  Pos
}

// tx returns the source text of t.
func (p *parser) tx(t token) string { return p.src[t.off:t.end] }

// describe names a token for diagnostics: "identifier 'foo'", "';'".
func (p *parser) describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return "string " + p.tx(t)
	case tPunct:
		return "'" + p.tx(t) + "'"
	}
	return fmt.Sprintf("%s '%s'", t.kind, p.tx(t))
}
