package knobs

import (
	"math"
	"strings"
	"testing"
)

const (
	minI = math.MinInt32
	maxI = math.MaxInt32
)

func TestParseValueAccepts(t *testing.T) {
	tests := []struct {
		t    Type
		in   string
		want Value
	}{
		// OKT_NONE: presence is true; orilab also reads 0/false/off/no.
		{TypeBool, "", BoolValue(true)},
		{TypeBool, "1", BoolValue(true)},
		{TypeBool, "TRUE", BoolValue(true)},
		{TypeBool, "on", BoolValue(true)},
		{TypeBool, "yes", BoolValue(true)},
		{TypeBool, "0", BoolValue(false)},
		{TypeBool, " false ", BoolValue(false)},
		{TypeBool, "Off", BoolValue(false)},
		{TypeBool, "no", BoolValue(false)},
		// OKT_INT: strtol base 0.
		{TypeInt, "100", IntValue(100)},
		{TypeInt, "-7", IntValue(-7)},
		{TypeInt, "+7", IntValue(7)},
		{TypeInt, "0x1F", IntValue(31)},
		{TypeInt, "0X1f", IntValue(31)},
		{TypeInt, "017", IntValue(15)},
		{TypeInt, "0", IntValue(0)},
		{TypeInt, " 42\r", IntValue(42)},
		{TypeInt, "2147483647", IntValue(maxI)},
		{TypeInt, "-2147483648", IntValue(minI)},
		{TypeInt, "0xFFFFFFFF", IntValue(-1)},
		{TypeInt, "4294967295", IntValue(-1)},
		{TypeInt, "-0x10", IntValue(-16)},
		// OKT_BDGT: an INT with a zero secondary.
		{TypeBudget, "5000", Value{typ: TypeBudget, i: 5000}},
		{TypeBudget, "0x10", Value{typ: TypeBudget, i: 16}},
		// OKT_IRNG, the seed's five cases (000:268-272) and more.
		{TypeIntRange, "100..200", Value{typ: TypeIntRange, i: 100, j: 200}},
		{TypeIntRange, "100..", Value{typ: TypeIntRange, i: 100, j: maxI}},
		{TypeIntRange, "..200", Value{typ: TypeIntRange, i: minI, j: 200}},
		{TypeIntRange, "..", Value{typ: TypeIntRange, i: minI, j: maxI}},
		{TypeIntRange, "42", Value{typ: TypeIntRange, i: 42, j: 42}},
		{TypeIntRange, "-5..-3", Value{typ: TypeIntRange, i: -5, j: -3}},
		{TypeIntRange, "0x10..0x20", Value{typ: TypeIntRange, i: 16, j: 32}},
		{TypeIntRange, "7..7", Value{typ: TypeIntRange, i: 7, j: 7}},
		// OKT_ILIST.
		{TypeIntList, "1,2,3,4", Value{typ: TypeIntList, ints: []int32{1, 2, 3, 4}}},
		{TypeIntList, "-1", Value{typ: TypeIntList, ints: []int32{-1}}},
		{TypeIntList, "0x10,010,9", Value{typ: TypeIntList, ints: []int32{16, 8, 9}}},
		// OKT_FLOAT / OKT_DBL: sscanf syntax.
		{TypeFloat, "0.75", Value{typ: TypeFloat, f32: 0.75}},
		{TypeFloat, "1e3", Value{typ: TypeFloat, f32: 1000}},
		{TypeFloat, "-.5", Value{typ: TypeFloat, f32: -0.5}},
		{TypeFloat, "5.", Value{typ: TypeFloat, f32: 5}},
		{TypeFloat, "3", Value{typ: TypeFloat, f32: 3}},
		{TypeFloat, "0x10", Value{typ: TypeFloat, f32: 16}},
		{TypeFloat, "0x1p-2", Value{typ: TypeFloat, f32: 0.25}},
		{TypeFloat, "inf", Value{typ: TypeFloat, f32: float32(math.Inf(1))}},
		{TypeDouble, "1.5", Value{typ: TypeDouble, f64: 1.5}},
		{TypeDouble, "1e300", Value{typ: TypeDouble, f64: 1e300}},
		{TypeDouble, "-Infinity", Value{typ: TypeDouble, f64: math.Inf(-1)}},
		{TypeDouble, "nan", Value{typ: TypeDouble, f64: math.NaN()}},
		// OKT_STR: verbatim.
		{TypeString, "AllocateRegisters", StringValue("AllocateRegisters")},
		{TypeString, " spaced ", StringValue(" spaced ")},
		{TypeString, "", StringValue("")},
		// OKT_WHEN: one node; empty is allowed (000:285).
		{TypeWhen, "SH=0x1", Value{typ: TypeWhen, strs: []string{"SH=0x1"}}},
		{TypeWhen, "", Value{typ: TypeWhen, strs: []string{""}}},
		// OKT_OPCODE_STR_LIST (000:297).
		{TypeOpcodeIntList, "FADD,3,FMUL,2", Value{typ: TypeOpcodeIntList, pairs: []OpcodeInt{{"FADD", 3}, {"FMUL", 2}}}},
		{TypeOpcodeIntList, "IMAD, -1", Value{typ: TypeOpcodeIntList, pairs: []OpcodeInt{{"IMAD", -1}}}},
		{TypeOpcodeIntList, "FADD,010", Value{typ: TypeOpcodeIntList, pairs: []OpcodeInt{{"FADD", 10}}}}, // base 10
		// Tag 12 (000:306).
		{TypeOpcodeList, "FADD,FMUL,IADD3", Value{typ: TypeOpcodeList, strs: []string{"FADD", "FMUL", "IADD3"}}},
	}
	for _, tc := range tests {
		got, err := ParseValue(tc.t, tc.in)
		if err != nil {
			t.Errorf("ParseValue(%s, %q): %v", tc.t, tc.in, err)
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("ParseValue(%s, %q) = %#v, want %#v", tc.t, tc.in, got, tc.want)
		}
		// The printed form reads back to the same value.
		back, err := ParseValue(tc.t, got.String())
		if err != nil || !back.Equal(got) {
			t.Errorf("round trip of %s %q via %q: %#v, %v", tc.t, tc.in, got.String(), back, err)
		}
	}
}

// TestParseValueErrors covers every ParseKnobValue error text of the seed
// (001:39840-39856), each at the site the seed gives it, plus orilab's own.
func TestParseValueErrors(t *testing.T) {
	tests := []struct {
		t    Type
		in   string
		none bool // ParseNoValue: "-knob NAME" without '='
		want string
	}{
		{TypeWhen, "", true, "Empty when-string"},                                                    // 39840
		{TypeIntRange, "", false, "Empty integer range value"},                                       // 39841
		{TypeIntRange, "", true, "Empty integer range value"},                                        // 39841
		{TypeIntList, "", false, "Empty integer list value"},                                         // 39842
		{TypeIntList, "", true, "Empty integer list value"},                                          // 39842
		{TypeIntList, "a,1", false, "Integer list value is not an integer"},                          // 39843
		{TypeIntList, "1,,2", false, "Integer list value is not an integer"},                         // 39843
		{TypeIntList, "1,2,", false, "Integer list value is not an integer"},                         // 39843
		{TypeIntList, "+1", false, "Integer list value is not an integer"},                           // 39843
		{TypeIntList, "-", false, "Integer list value is not an integer"},                            // 39843
		{TypeIntList, "1, 2", false, "Integer list value is not an integer"},                         // 39843
		{TypeIntList, "1;2", false, "End of integer range value is not ',' or null character"},       // 39844
		{TypeIntList, "1x", false, "End of integer range value is not ',' or null character"},        // 39844
		{TypeIntList, "08", false, "End of integer range value is not ',' or null character"},        // 39844 (octal)
		{TypeIntList, "1 ,2", false, "End of integer range value is not ',' or null character"},      // 39844
		{TypeInt, "", false, "Empty integer value"},                                                  // 39845
		{TypeInt, "", true, "Empty integer value"},                                                   // 39845
		{TypeInt, "   ", false, "Empty integer value"},                                               // 39845
		{TypeBudget, "", false, "Empty integer value"},                                               // 39846
		{TypeBudget, "", true, "Empty integer value"},                                                // 39846
		{TypeFloat, "", false, "Empty floating point value"},                                         // 39847
		{TypeFloat, "", true, "Empty floating point value"},                                          // 39847
		{TypeFloat, "abc", false, "Invalid floating point value"},                                    // 39848
		{TypeFloat, "1.5x", false, "Invalid floating point value"},                                   // 39848 (strict)
		{TypeFloat, "1_0", false, "Invalid floating point value"},                                    // no '_' in C
		{TypeFloat, "1e39", false, "Invalid floating point value"},                                   // float32 overflow
		{TypeDouble, "", false, "Empty double value"},                                                // 39849
		{TypeDouble, "", true, "Empty double value"},                                                 // 39849
		{TypeDouble, "x1", false, "Invalid double value"},                                            // 39850
		{TypeDouble, "1.0.0", false, "Invalid double value"},                                         // 39850
		{TypeOpcodeIntList, "", true, "Empty value pair list"},                                       // 39851
		{TypeOpcodeIntList, "", false, "Empty opcode string"},                                        // 39852
		{TypeOpcodeIntList, ",3", false, "Empty opcode string"},                                      // 39852
		{TypeOpcodeIntList, "FADD,3,", false, "Empty opcode string"},                                 // 39852
		{TypeOpcodeIntList, "FADD", false, "Empty integer value"},                                    // 39853
		{TypeOpcodeIntList, "FADD,", false, "Empty integer value"},                                   // 39853
		{TypeOpcodeIntList, "FADD,3,FMUL", false, "Empty integer value"},                             // 39853
		{TypeOpcodeIntList, "FADD,0x3", false, "Invalid integer value"},                              // base 10 only
		{TypeOpcodeList, "", true, "Empty opcode list"},                                              // 39854
		{TypeOpcodeList, "", false, "Empty opcode list"},                                             // 39854
		{TypeOpcodeList, "FADD,,FMUL", false, "Empty opcode string"},                                 // 39852
		{Type(0), "1", false, "Invalid knob type"},                                                   // 39855
		{Type(11), "1", false, "Invalid knob type"},                                                  // 39855: 11 is TypeString here
		{Type(99), "", true, "Invalid knob type"},                                                    // 39855
		{TypeInt, "12abc", false, "Invalid integer value"},                                           // orilab
		{TypeInt, "abc", false, "Invalid integer value"},                                             // orilab
		{TypeInt, "0x", false, "Invalid integer value"},                                              // orilab
		{TypeInt, "09", false, "Invalid integer value"},                                              // orilab (octal)
		{TypeInt, "1_000", false, "Invalid integer value"},                                           // orilab
		{TypeInt, "4294967296", false, "Integer value out of range"},                                 // orilab
		{TypeInt, "-2147483649", false, "Integer value out of range"},                                // orilab
		{TypeInt, "99999999999999999999999", false, "Integer value out of range"},                    // orilab
		{TypeBudget, "x", false, "Invalid integer value"},                                            // orilab
		{TypeIntList, "1,99999999999", false, "Integer value out of range"},                          // orilab
		{TypeIntRange, "abc", false, "Invalid integer range value"},                                  // orilab
		{TypeIntRange, "1.2", false, "Invalid integer range value"},                                  // orilab
		{TypeIntRange, "1...3", false, "Invalid integer range value"},                                // orilab
		{TypeIntRange, "1..2..3", false, "Invalid integer range value"},                              // orilab
		{TypeIntRange, "..x", false, "Invalid integer range value"},                                  // orilab
		{TypeIntRange, "5..99999999999", false, "Integer value out of range"},                        // orilab
		{TypeIntRange, "200..100", false, "Integer range low bound is greater than its high bound"},  // orilab
		{TypeBool, "maybe", false, "Invalid boolean value (want 1/0, true/false, on/off or yes/no)"}, // orilab
	}
	for _, tc := range tests {
		var err error
		if tc.none {
			_, err = ParseNoValue(tc.t)
		} else {
			_, err = ParseValue(tc.t, tc.in)
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("parse %s %q (no value %v): error %v, want %q", tc.t, tc.in, tc.none, err, tc.want)
		}
	}
}

// TestSeventeenErrors pins the seed's table (001:39840-39856): 17 rows, 14
// distinct texts, each an exported error with exactly that text.
func TestSeventeenErrors(t *testing.T) {
	rows := []struct {
		err  error
		text string
	}{
		{ErrEmptyWhenString, "Empty when-string"},
		{ErrEmptyIntegerRangeValue, "Empty integer range value"},
		{ErrEmptyIntegerListValue, "Empty integer list value"},
		{ErrIntegerListNotInteger, "Integer list value is not an integer"},
		{ErrIntegerListEnd, "End of integer range value is not ',' or null character"},
		{ErrEmptyIntegerValue, "Empty integer value"}, // INT
		{ErrEmptyIntegerValue, "Empty integer value"}, // BDGT
		{ErrEmptyFloatingPointValue, "Empty floating point value"},
		{ErrInvalidFloatingPointValue, "Invalid floating point value"},
		{ErrEmptyDoubleValue, "Empty double value"},
		{ErrInvalidDoubleValue, "Invalid double value"},
		{ErrEmptyValuePairList, "Empty value pair list"},
		{ErrEmptyOpcodeString, "Empty opcode string"},
		{ErrEmptyIntegerValue, "Empty integer value"}, // pair integer
		{ErrEmptyOpcodeList, "Empty opcode list"},
		{ErrInvalidKnobType, "Invalid knob type"},
		{ErrInvalidKnobIdentifier, "Invalid knob identifier"},
	}
	if len(rows) != 17 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if r.err.Error() != r.text {
			t.Errorf("%q, want %q", r.err.Error(), r.text)
		}
	}
}

func TestParseNoValue(t *testing.T) {
	if v, err := ParseNoValue(TypeBool); err != nil || !v.Bool() {
		t.Errorf("bool: %v %v", v, err)
	}
	if v, err := ParseNoValue(TypeString); err != nil || v.Str() != "" {
		t.Errorf("string: %v %v", v, err)
	}
}

func TestValueAccessors(t *testing.T) {
	v, _ := ParseValue(TypeBudget, "7")
	if p, s := v.Budget(); p != 7 || s != 0 || v.Int() != 7 {
		t.Errorf("budget %d %d", p, s)
	}
	r, _ := ParseValue(TypeIntRange, "3..9")
	if !r.Range().Contains(3) || !r.Range().Contains(9) || r.Range().Contains(10) {
		t.Error("range contains")
	}
	l, _ := ParseValue(TypeIntList, "1,2")
	got := l.IntList()
	got[0] = 99 // a copy: the Value is immutable
	if l.IntList()[0] != 1 {
		t.Error("IntList aliases the Value")
	}
	if (Value{}).Type() != 0 || (Value{}).String() != "" {
		t.Error("zero Value")
	}
	if !strings.Contains(TypeOpcodeIntList.OKT(), "OPCODE_STR_LIST") || TypeIntRange.String() != "range" || Type(0).Valid() {
		t.Error("type names")
	}
	defer func() {
		if recover() == nil {
			t.Error("reading an int as a string did not panic")
		}
	}()
	_ = IntValue(1).Str()
}

func TestRangeString(t *testing.T) {
	for _, r := range []Range{{minI, minI}, {maxI, maxI}, {minI, maxI}, {-1, -1}, {0, 5}, {minI, 0}, {0, maxI}} {
		v, err := ParseValue(TypeIntRange, r.String())
		if err != nil || v.Range() != r {
			t.Errorf("%+v prints %q, reads %+v %v", r, r.String(), v, err)
		}
	}
}
