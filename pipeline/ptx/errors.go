package ptx

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one diagnostic with its position. Its Error method gives the
// three-line form: "FILE:LINE:COL: error: MESSAGE", the source line, and a
// caret under the column.
type Error struct {
	File string // file name as given to Parse
	Pos  Pos    // position of the offending token
	Msg  string // message, without the "error: " prefix
	Line string // the source line Pos points into, without its newline
}

// Header is the first line of the diagnostic, without source and caret.
func (e *Error) Header() string {
	return fmt.Sprintf("%s:%d:%d: error: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

func (e *Error) Error() string {
	if e.Line == "" && !e.Pos.IsValid() {
		return e.Header()
	}
	var b strings.Builder
	b.WriteString(e.Header())
	b.WriteByte('\n')
	// Tabs are kept in the echoed line and mirrored in the caret line so the
	// caret lines up in any terminal, whatever its tab width.
	b.WriteString(e.Line)
	b.WriteByte('\n')
	col := int(e.Pos.Col) - 1
	for i := 0; i < col && i < len(e.Line); i++ {
		if e.Line[i] == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('^')
	return b.String()
}

// ErrorList is every diagnostic of one Parse call, sorted by position.
type ErrorList []*Error

func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap lets errors.As find the individual diagnostics.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// maxErrors bounds how many semantic diagnostics one Parse reports; past it
// the rest are almost always consequences of the first ones.
const maxErrors = 20

// diag collects diagnostics for one source file.
type diag struct {
	file string
	src  []byte
	errs ErrorList
}

func (d *diag) errorf(p Pos, format string, args ...any) {
	if len(d.errs) >= maxErrors {
		return
	}
	d.errs = append(d.errs, &Error{File: d.file, Pos: p, Msg: fmt.Sprintf(format, args...), Line: sourceLine(d.src, p.Line)})
}

func (d *diag) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	sort.SliceStable(d.errs, func(i, j int) bool {
		a, b := d.errs[i].Pos, d.errs[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return d.errs
}

// sourceLine returns line n (1-based) of src without its line terminator.
func sourceLine(src []byte, n32 int32) string {
	n := int(n32)
	if n <= 0 {
		return ""
	}
	line := 1
	start := 0
	for i := 0; i < len(src) && line < n; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	if line != n {
		return ""
	}
	end := start
	for end < len(src) && src[end] != '\n' {
		end++
	}
	return strings.TrimRight(string(src[start:end]), "\r")
}
