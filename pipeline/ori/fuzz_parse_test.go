package ori

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addTextSeeds seeds an IR-text fuzz target with the lowering's golden
// files (whole modules), the sample function of the round-trip test, and
// a few hand-written edge cases.
func addTextSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "lower", "*.ori"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(sampleFunc))
	f.Add([]byte(".module sm_80 address_size=64\n\n.entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 EXIT ;\n}\n"))
	f.Add([]byte(".func f\n{\nBB0:\n\t#1 @!%p0 BRA BB0 ;\n\t#2 [B------:R-:W-:Y:S00] RET ; line 3 remat #1\n}\n"))
	f.Add([]byte(".entry k\n{\nBB0 <$L>:\n\t#7 IADD3 %r1.64 = -%r2[1], |c[0x0][0x160]|, 0d3FF0000000000000 ;\n}\n"))
	f.Add([]byte("{\n}\n#\n%r\n[\n"))
}

// FuzzParseModule checks that the IR text parser never panics, that every
// error is a *ParseError with a position inside the input, and that any
// module it accepts prints to text that parses back to the same text (the
// printer's output is a fixed point).
func FuzzParseModule(f *testing.F) {
	addTextSeeds(f)
	f.Fuzz(func(t *testing.T, text []byte) {
		m, err := ParseModule("fuzz.ori", text)
		if err != nil {
			checkParseError(t, err, text)
			return
		}
		out := m.String()
		m2, err := ParseModule("printed.ori", []byte(out))
		if err != nil {
			t.Fatalf("the printed module does not parse: %v\ninput:\n%s\nprinted:\n%s", err, text, out)
		}
		if out2 := m2.String(); out2 != out {
			t.Fatalf("print is not a fixed point:\n%s\n----\n%s", out, out2)
		}
	})
}

// FuzzParseFunc is FuzzParseModule for a single function, the form unit
// tests write inline.
func FuzzParseFunc(f *testing.F) {
	addTextSeeds(f)
	f.Fuzz(func(t *testing.T, text []byte) {
		fn, err := ParseFunc("fuzz.ori", text)
		if err != nil {
			checkParseError(t, err, text)
			return
		}
		out := fn.String()
		fn2, err := ParseFunc("printed.ori", []byte(out))
		if err != nil {
			t.Fatalf("the printed function does not parse: %v\ninput:\n%s\nprinted:\n%s", err, text, out)
		}
		if out2 := fn2.String(); out2 != out {
			t.Fatalf("print is not a fixed point:\n%s\n----\n%s", out, out2)
		}
		// Whatever parses can be verified without a panic (the verifier
		// runs between phases on IR read from text, too).
		_ = Verify(fn2, VerifyOptions{})
	})
}

func checkParseError(t *testing.T, err error, text []byte) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is a %T, not a *ParseError", err, err)
	}
	lines := strings.Count(string(text), "\n") + 1
	if pe.Line < 1 || pe.Line > lines+1 || pe.Col < 1 {
		t.Fatalf("error position %d:%d outside the %d-line input: %v", pe.Line, pe.Col, lines, err)
	}
	if strings.TrimSpace(pe.Msg) == "" {
		t.Fatalf("error without a message at %d:%d", pe.Line, pe.Col)
	}
}
