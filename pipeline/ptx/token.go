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
	Line int // 1-based line number
	Col  int // 1-based column, counted in bytes
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// IsValid reports whether p names a real source position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// token is one lexical token. Text is a slice of the source (no copy).
type token struct {
	kind tokKind
	text string
	pos  Pos
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return "string " + t.text
	case tPunct:
		return "'" + t.text + "'"
	}
	return fmt.Sprintf("%s '%s'", t.kind, t.text)
}
