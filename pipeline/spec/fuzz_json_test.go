package spec

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseAgreesWithJSON is a differential target: the spec reader has
// its own JSON parser (for positions in errors), so it must never accept
// text that encoding/json rejects, and when it rejects text encoding/json
// also rejects, it must say the JSON is malformed, with a position.
// (The converse does not hold: the reader refuses duplicate fields, which
// encoding/json allows.)
func FuzzParseAgreesWithJSON(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{`{}`, `{"ptx": "vecadd.ptx",}`, "{\"a\":1e999}", `[1,2`, `{"a":"\ud800"}`, `{"a":"\u00e9"}`,
		"\ufeff{}", `{"a":01}`, `{"a":-0.0e-0}`, `  null  `, `{"a":tru}`, "{\"a\":\"\x01\"}", `{"a" : [ {} , [ ] ] }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("fuzz.json", data, "testdata")
		valid := json.Valid(data)
		if err == nil {
			if !valid {
				t.Fatalf("the reader accepts JSON that encoding/json rejects: %q", data)
			}
			return
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Fatalf("error %v is a %T, not an *Error", err, err)
		}
		if !valid && !strings.Contains(err.Error(), "malformed JSON") {
			t.Fatalf("invalid JSON %q rejected without saying so: %v", data, err)
		}
		if valid && strings.Contains(err.Error(), "malformed JSON") {
			t.Fatalf("valid JSON %q called malformed: %v", data, err)
		}
	})
}

// FuzzValuesHexFile feeds arbitrary content to a values_hex_file: the
// reader must not panic, must report problems as an *Error naming the
// file, and when it accepts the file must hold exactly count values that
// fit the element type.
func FuzzValuesHexFile(f *testing.F) {
	for _, s := range []string{"0x1\n0x2\n", "# c\n\n1\r\n2\n", "0xffffffff\n0x100000000\n", "0x\n1\n", "1 2\n3\n", "-1\n2\n", "\x00\n\n"} {
		for _, elem := range []string{"u32", "f16", "u8", "f64"} {
			f.Add([]byte(s), elem)
		}
	}
	f.Fuzz(func(t *testing.T, content []byte, elem string) {
		size, ok := ElemSize(elem)
		if !ok {
			return
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "k.ptx"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "v.hex"), content, 0o644); err != nil {
			t.Fatal(err)
		}
		js := `{"ptx": "k.ptx", "kernel": "k", "launch": {"grid": [1], "block": [1]},
  "params": [{"name": "a", "kind": "buffer", "elem": "` + elem + `", "count": 2, "init": "zero"}],
  "expect": {"param": "a", "values_hex_file": "v.hex"}}`
		s, err := Parse("fuzz.json", []byte(js), dir)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v is a %T, not an *Error", err, err)
			}
			if !strings.Contains(err.Error(), "v.hex") {
				t.Fatalf("error does not name the values file: %v", err)
			}
			return
		}
		vals := s.Expect[0].Values
		if len(vals) != 2 {
			t.Fatalf("%d values accepted for count 2", len(vals))
		}
		for _, v := range vals {
			if size < 8 && v>>(8*size) != 0 {
				t.Fatalf("value %#x does not fit %s", v, elem)
			}
		}
	})
}
