package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The reader decodes JSON into a small tree that keeps each value's byte
// offset, so that every error can name the field path and, for errors in
// the JSON itself (syntax, wrong type, unknown or duplicate field), the line
// and column. encoding/json's struct decoding with DisallowUnknownFields
// reports neither the path nor the position of an unknown field, which is
// why the reader walks tokens instead.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "a list", "an object"}[k]
}

type jvalue struct {
	kind  jkind
	off   int    // byte offset of the value's first byte
	b     bool   // jBool
	s     string // jString; jNumber: the literal
	elems []*jvalue
	mems  []jmember
}

type jmember struct {
	key string
	off int // offset of the key
	val *jvalue
}

// describe names a value for "want X, got Y" messages.
func (v *jvalue) describe() string {
	switch v.kind {
	case jString:
		s := v.s
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return fmt.Sprintf("string %q", s)
	case jNumber:
		return "number " + v.s
	case jBool:
		return fmt.Sprint(v.b)
	}
	return v.kind.String()
}

// maxDepth bounds nesting; a spec needs four levels.
const maxDepth = 64

type jparser struct {
	data []byte
	dec  *json.Decoder
}

// posError is an error at a byte offset of the input.
type posError struct {
	off int
	msg string
}

func (e *posError) Error() string { return e.msg }

// parseJSON parses data into a tree. Errors are *posError.
func parseJSON(data []byte) (*jvalue, error) {
	// json.Unmarshal checks the whole text before decoding, and its
	// SyntaxError.Offset is always one past the offending byte; the
	// Decoder's offsets are imprecise inside literals, so syntax is checked
	// here first.
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return nil, &posError{0, "malformed JSON: " + err.Error()}
		}
		off := int(se.Offset) - 1
		if strings.HasPrefix(se.Error(), "unexpected end") {
			off = int(se.Offset)
		}
		if off < 0 {
			off = 0
		}
		return nil, &posError{off, "malformed JSON: " + se.Error()}
	}
	p := &jparser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	off := p.start()
	if _, err := p.dec.Token(); err != io.EOF {
		if err != nil {
			return nil, p.convert(err)
		}
		return nil, &posError{off, "unexpected data after the top-level value"}
	}
	return v, nil
}

// start returns the offset where the next token begins.
func (p *jparser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (p *jparser) convert(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Not reached for input that json.Unmarshal accepts; the Decoder's
		// offset is where it stopped.
		return &posError{int(se.Offset), "malformed JSON: " + se.Error()}
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &posError{len(p.data), "malformed JSON: unexpected end of input"}
	}
	return &posError{int(p.dec.InputOffset()), "malformed JSON: " + err.Error()}
}

func (p *jparser) value(depth int) (*jvalue, error) {
	if depth > maxDepth {
		return nil, &posError{p.start(), "malformed JSON: nesting too deep"}
	}
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.convert(err)
	}
	v := &jvalue{off: off}
	switch t := tok.(type) {
	case nil:
		v.kind = jNull
	case bool:
		v.kind, v.b = jBool, t
	case json.Number:
		v.kind, v.s = jNumber, string(t)
	case string:
		v.kind, v.s = jString, t
	case json.Delim:
		switch t {
		case '[':
			v.kind = jArray
			for p.dec.More() {
				e, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, e)
			}
		case '{':
			v.kind = jObject
			seen := map[string]bool{}
			for p.dec.More() {
				koff := p.start()
				ktok, err := p.dec.Token()
				if err != nil {
					return nil, p.convert(err)
				}
				key, ok := ktok.(string)
				if !ok {
					return nil, &posError{koff, "malformed JSON: object key is not a string"}
				}
				if seen[key] {
					return nil, &posError{koff, fmt.Sprintf("duplicate field %q", key)}
				}
				seen[key] = true
				e, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.mems = append(v.mems, jmember{key, koff, e})
			}
		default:
			return nil, &posError{off, fmt.Sprintf("malformed JSON: unexpected %q", rune(t))}
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, p.convert(err)
		}
	default:
		return nil, &posError{off, fmt.Sprintf("malformed JSON: unexpected token %v", tok)}
	}
	return v, nil
}

// lineCol converts a byte offset to a 1-based line and column (in bytes).
func lineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
