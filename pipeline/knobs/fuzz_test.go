package knobs

import (
	"strings"
	"testing"
)

// FuzzParseValue: no input panics, every error is one of the package's
// texts, and every accepted value prints back to itself.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"", "1", "0x1F", "-2147483648", "100..", "..", "1,2,3", "1,,2",
		"0.75", "0x10", "nan", "FADD,3,FMUL,2", "FADD,", "a,b", " 7 ", "99999999999", "1..2..3"} {
		for _, ty := range append(types, 0, 11) {
			f.Add(uint8(ty), s, true)
		}
		f.Add(uint8(TypeInt), s, false)
	}
	known := map[string]bool{}
	for _, e := range []error{ErrEmptyWhenString, ErrEmptyIntegerRangeValue, ErrEmptyIntegerListValue,
		ErrIntegerListNotInteger, ErrIntegerListEnd, ErrEmptyIntegerValue, ErrEmptyFloatingPointValue,
		ErrInvalidFloatingPointValue, ErrEmptyDoubleValue, ErrInvalidDoubleValue, ErrEmptyValuePairList,
		ErrEmptyOpcodeString, ErrEmptyOpcodeList, ErrInvalidKnobType, ErrInvalidIntegerValue,
		ErrIntegerValueOutOfRange, ErrInvalidIntegerRangeValue, ErrReversedIntegerRange, ErrInvalidBoolValue} {
		known[e.Error()] = true
	}
	f.Fuzz(func(t *testing.T, tag uint8, s string, present bool) {
		ty := Type(tag)
		var v Value
		var err error
		if present {
			v, err = ParseValue(ty, s)
		} else {
			v, err = ParseNoValue(ty)
		}
		if err != nil {
			if !known[err.Error()] {
				t.Fatalf("unknown error text %q", err)
			}
			return
		}
		if v.Type() != ty {
			t.Fatalf("type %v, want %v", v.Type(), ty)
		}
		back, err := ParseValue(ty, v.String())
		if err != nil || !back.Equal(v) {
			t.Fatalf("%s %q -> %q -> %v, %v", ty, s, v.String(), back, err)
		}
	})
}

// FuzzKnobsFile: loading any file content (and the same text as -knob,
// .pragma and environment) never panics, and errors are *Error values.
func FuzzKnobsFile(f *testing.F) {
	f.Add(seedFile)
	f.Add("[knobs]\nDisablePhases=A+B~WHEN=SH=0x1..;DUMPIR=X\nINJECTSTRING=~;;\n")
	f.Add("[knobs]\nWHEN=IH=..5;SH=3;K=RegTargetList=1,2;CostWeight=.5\n; c\n# d\nNamedPhases=a,b=1\n")
	f.Add("x[knobs]INJECTSTRING\n")
	f.Add("")
	f.Add("[knobs]\r\n=\r\n~~\r\nWHEN=\r\nWHEN=SH=;\r\nK=\r\n")
	reg := testRegistry()
	f.Fuzz(func(t *testing.T, text string) {
		for _, src := range []Sources{
			{File: &File{Path: "f", Content: []byte(text)}},
			{CLI: []string{text}},
			{Pragmas: []string{text}, FuncPragmas: map[string][]string{"k": {text}}},
			{Env: map[string]string{EnvKnobs: text}},
		} {
			for _, compat := range []bool{false, true} {
				s, _, err := Loader{Registry: reg, Compat: compat}.Load(src)
				if err != nil {
					for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
						if ke, ok := e.(*Error); !ok || ke.Err == nil || strings.TrimSpace(e.Error()) == "" {
							t.Fatalf("error %#v in %q", e, err)
						}
					}
					continue
				}
				f := s.ForFunction("k").ForInstr(InstrHash("k", 1))
				_ = f.String()
				_ = f.DisabledPhases()
				_ = f.NamedPhases()
			}
		}
	})
}
