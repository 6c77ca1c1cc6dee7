package faultinject

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Spec is a bug specification: how many faults to inject in each of the
// six categories. A count of zero or less disables its category; the
// values are kept as written so that String gives the line back.
type Spec struct {
	Counts [NumCategories]int
}

// Count returns the number of faults requested for category c (0 when the
// category is disabled).
func (s Spec) Count(c Category) int {
	if s.Counts[c] < 0 {
		return 0
	}
	return s.Counts[c]
}

// Total returns the number of faults requested over all categories.
func (s Spec) Total() int {
	n := 0
	for c := Category(0); c < NumCategories; c++ {
		n += s.Count(c)
	}
	return n
}

// String returns the canonical line "C0,C1,C2,C3 C4 C5".
func (s Spec) String() string {
	c := s.Counts
	return fmt.Sprintf("%d,%d,%d,%d %d %d", c[0], c[1], c[2], c[3], c[4], c[5])
}

// MarshalText gives the canonical line, so a Spec is a string in JSON.
func (s Spec) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a specification line.
func (s *Spec) UnmarshalText(b []byte) error {
	v, err := ParseSpec(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// SpecError is a malformed bug specification. Field is the 1-based field
// the problem is in (0 when it is about a separator or the line as a
// whole); Col is the 1-based byte column. File and Line are set only for
// specifications read from a file.
type SpecError struct {
	File  string
	Line  int
	Col   int
	Field int
	Msg   string
}

func (e *SpecError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	if e.Field > 0 {
		return "bugspec: " + e.Msg
	}
	return fmt.Sprintf("bugspec: column %d: %s", e.Col, e.Msg)
}

// specFormat is how errors describe the expected line.
const specFormat = `"C0,C1,C2,C3 C4 C5"`

// ParseSpec parses one bug specification line: four comma-separated
// integers, then two more separated by blanks, as in
//
//	3,2,1,0 0 1
//
// Decision: the grammar is the one ptxas's scanf-style reader accepts
// ("%d,%d,%d,%d %d %d"): blanks may precede any integer (so "1, 2,3,4 5 6"
// is valid) but not a comma, and each integer takes an optional sign.
// Unlike ptxas it rejects what scanf would silently ignore or misread:
// text after the sixth field, fields 4-6 not separated by blanks
// ("1,2,3,4-5 6"), and values outside the 32-bit int range. A trailing
// "\r" or "\n" is allowed.
func ParseSpec(line string) (Spec, error) {
	return parseSpec(strings.TrimRight(line, "\r\n"))
}

func parseSpec(s string) (Spec, error) {
	var sp Spec
	pos := 0
	isBlank := func(c byte) bool { return c == ' ' || c == '\t' }
	skipBlanks := func() {
		for pos < len(s) && isBlank(s[pos]) {
			pos++
		}
	}
	fail := func(field, col int, format string, args ...any) (Spec, error) {
		return Spec{}, &SpecError{Col: col, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if j := strings.IndexAny(s, "\r\n"); j >= 0 {
		return fail(0, j+1, "line break inside the specification (it is one line)")
	}
	skipBlanks()
	for i := 0; i < int(NumCategories); i++ {
		field := i + 1
		start := pos
		for pos < len(s) && s[pos] != ',' && !isBlank(s[pos]) {
			pos++
		}
		tok := s[start:pos]
		if tok == "" {
			if pos == len(s) {
				return fail(field, pos+1, "field %d: missing (want %d fields: %s)", field, NumCategories, specFormat)
			}
			return fail(field, pos+1, "field %d: empty (found %q where a number should be)", field, s[pos:pos+1])
		}
		v, err := parseCount(tok)
		if err != nil {
			return fail(field, start+1, "field %d (%q): %v", field, tok, err)
		}
		sp.Counts[i] = v
		switch {
		case field == int(NumCategories):
			skipBlanks()
			if pos < len(s) {
				return fail(0, pos+1, "unexpected text after field %d: %q", field, s[pos:])
			}
		case field < 4:
			if pos == len(s) {
				return fail(field+1, pos+1, "field %d: missing (want %d fields: %s)", field+1, NumCategories, specFormat)
			}
			if s[pos] != ',' {
				return fail(0, pos+1, "expected ',' after field %d, found %q", field, s[pos:pos+1])
			}
			pos++
			skipBlanks()
		default:
			if pos == len(s) {
				return fail(field+1, pos+1, "field %d: missing (want %d fields: %s)", field+1, NumCategories, specFormat)
			}
			if !isBlank(s[pos]) {
				return fail(0, pos+1, "expected a blank after field %d, found %q", field, s[pos:pos+1])
			}
			skipBlanks()
		}
	}
	return sp, nil
}

// parseCount reads an optionally signed decimal integer that fits in 32
// bits.
func parseCount(tok string) (int, error) {
	digits := strings.TrimLeft(tok, "+-")
	if len(tok)-len(digits) > 1 || digits == "" {
		return 0, errors.New("not an integer")
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, errors.New("not an integer")
		}
	}
	v, err := strconv.ParseInt(tok, 10, 32)
	if err != nil {
		return 0, errors.New("out of range (the counts are 32-bit integers)")
	}
	return int(v), nil
}

// ParseFile reads a bug specification file: one specification line,
// optionally surrounded by blank lines. Errors carry file:line:col.
func ParseFile(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, err
	}
	return parseFileData(path, string(data))
}

func parseFileData(path, text string) (Spec, error) {
	lines := strings.Split(text, "\n")
	found := -1
	var sp Spec
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if strings.Trim(l, " \t") == "" {
			continue
		}
		if found >= 0 {
			col := len(l) - len(strings.TrimLeft(l, " \t")) + 1
			return Spec{}, &SpecError{File: path, Line: i + 1, Col: col,
				Msg: fmt.Sprintf("unexpected second line (the specification is the single line on line %d)", found+1)}
		}
		found = i
		var err error
		if sp, err = parseSpec(l); err != nil {
			e := err.(*SpecError)
			e.File, e.Line = path, i+1
			return Spec{}, e
		}
	}
	if found < 0 {
		return Spec{}, &SpecError{File: path, Line: 1, Col: 1, Msg: "no bug specification (want one line " + specFormat + ")"}
	}
	return sp, nil
}

// CompatFileName is the file ptxas looks for in its working directory.
const CompatFileName = "bugspec.txt"

// CompatNoFileMessage is the line ptxas prints on stdout when there is no
// bugspec.txt; compilation then proceeds without faults.
const CompatNoFileMessage = "Cannot open file with bug specification"

// ReadCompatSpec implements ptxas's implicit lookup of ./bugspec.txt for
// the --ptxas-compat mode, with dir standing for the working directory:
// when dir/bugspec.txt cannot be opened it prints CompatNoFileMessage to
// stdout and returns ok == false and no error, as ptxas carries on. A file
// that exists but does not parse is an error (ptxas would read garbage).
func ReadCompatSpec(dir string, stdout io.Writer) (sp Spec, ok bool, err error) {
	path := filepath.Join(dir, CompatFileName)
	data, err := os.ReadFile(path)
	if err != nil {
		// Missing, unreadable, or a directory: ptxas cannot open it
		// either, says so and compiles without faults.
		fmt.Fprintln(stdout, CompatNoFileMessage)
		return Spec{}, false, nil
	}
	sp, err = parseFileData(path, string(data))
	if err != nil {
		return Spec{}, false, err
	}
	return sp, true, nil
}

// CompatSeed is the seed ptxas would use: the current time in seconds
// (srand(time(0))). orilab prints it in compat mode so that even a
// clock-seeded run can be replayed.
func CompatSeed() int64 { return time.Now().Unix() }
