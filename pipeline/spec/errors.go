package spec

import (
	"fmt"
	"strings"
)

// Error is a problem with a spec file. Its text is
//
//	FILE: PATH: MESSAGE            a value is wrong (PATH like params[2].init)
//	FILE:LINE:COL: PATH: MESSAGE   the JSON itself is wrong: malformed, a
//	                               value of the wrong JSON type, an unknown
//	                               or duplicate field
//
// PATH is left out when the problem concerns the whole file.
type Error struct {
	File      string // the spec file, as named to Load or Parse
	Line, Col int    // 1-based position in the file; 0 when not about the JSON text
	Path      string // field path, e.g. "params[2].init"; "" for the whole file
	Msg       string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}
