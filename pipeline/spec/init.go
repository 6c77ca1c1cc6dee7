package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Initial-content forms of a buffer's "init" field.
const (
	InitZero  = "zero"
	InitIndex = "index"
	// InitConst and InitLCG are prefixes: "const:V", "lcg:SEED".
	InitConst = "const:"
	InitLCG   = "lcg:"
)

// LCG constants of the lcg:SEED fill: x = (LCGMul*x + LCGAdd) mod 2^32.
const (
	LCGMul = 1664525
	LCGAdd = 1013904223
)

// maxBufferBytes bounds one buffer (and so what InitBytes allocates).
const maxBufferBytes = 1 << 30

// initForm is a parsed "init" string.
type initForm struct {
	kind string // InitZero, InitIndex, InitConst, InitLCG
	bits uint64 // const: the element's bit pattern
	seed uint32 // lcg
}

const initWant = "(want zero, index, const:V, lcg:SEED, init_hex_le or same_as)"

func parseInit(s, elem string) (initForm, error) {
	switch {
	case s == InitZero || s == InitIndex:
		return initForm{kind: s}, nil
	case strings.HasPrefix(s, InitConst):
		b, err := parseValue(s[len(InitConst):], elem)
		if err != nil {
			return initForm{}, err
		}
		return initForm{kind: InitConst, bits: b}, nil
	case strings.HasPrefix(s, InitLCG):
		v := s[len(InitLCG):]
		var n uint64
		var err error
		if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
			var ok bool
			n, ok = parseHexDigits(v[2:])
			if !ok {
				err = strconv.ErrSyntax
			}
		} else if isDecimalInt(v) && v[0] != '-' && v[0] != '+' {
			n, err = strconv.ParseUint(v, 10, 64)
		} else {
			err = strconv.ErrSyntax
		}
		if err != nil || n > math.MaxUint32 {
			return initForm{}, fmt.Errorf("lcg seed %q is not a decimal or 0x hex number below 2^32", v)
		}
		return initForm{kind: InitLCG, seed: uint32(n)}, nil
	}
	return initForm{}, fmt.Errorf("unknown init %q %s", s, initWant)
}

// LCG returns the first n values of the lcg:SEED sequence: x0 = seed, and
// element i takes x_{i+1} = (1664525*x_i + 1013904223) mod 2^32.
func LCG(seed uint32, n int) []uint32 {
	out := make([]uint32, n)
	x := seed
	for i := range out {
		x = LCGMul*x + LCGAdd
		out[i] = x
	}
	return out
}

// lcgBits converts one LCG value to an element: integers take x truncated
// to their width (zero-extended for 64-bit types); floats take
// (x >> 8) / 2^24, a value in [0,1) exact in f32 and f64, rounded to nearest
// even for f16 and bf16 (so it may round up to 1.0).
func lcgBits(x uint32, elem string, e elemInfo) uint64 {
	if !e.float {
		return uint64(x) & e.mask()
	}
	return floatBits(float64(x>>8)/(1<<24), elem)
}

// floatBits converts a float64 to a float element's bits, rounding to
// nearest even.
func floatBits(f float64, elem string) uint64 {
	if elem == "f32" {
		return uint64(math.Float32bits(float32(f)))
	}
	return fromFloat64Elem(f, elem)
}

// indexBits is element i of the "index" fill: i truncated to the width for
// integers, the value i rounded to nearest even for floats (f16 overflows
// to +Inf from 65520 on).
func indexBits(i int, elem string, e elemInfo) uint64 {
	if !e.float {
		return uint64(i) & e.mask()
	}
	return floatBits(float64(i), elem)
}

// Size returns the size in bytes of a buffer parameter's allocation
// (Count elements of Elem; 0 for same_as, which allocates nothing) or of a
// scalar parameter's value.
func (p Param) Size() int {
	if p.Kind == KindScalar {
		n, _ := ElemSize(p.Type)
		return n
	}
	if p.SameAs != "" {
		return 0
	}
	n, _ := ElemSize(p.Elem)
	return n * p.Count
}

// InitBytes returns the initial little-endian contents of a buffer
// parameter: Count elements of Elem filled per Init, or InitHexLE
// zero-padded to the buffer size. A same_as parameter allocates nothing
// and returns nil (the kernel receives the address of the buffer it names;
// see Spec.Owner).
func (p Param) InitBytes() ([]byte, error) {
	if p.Kind != KindBuffer {
		return nil, fmt.Errorf("parameter %q is not a buffer", p.Name)
	}
	if p.SameAs != "" {
		return nil, nil
	}
	e, ok := elemTypes[p.Elem]
	if !ok {
		return nil, fmt.Errorf("parameter %q: unknown element type %q", p.Name, p.Elem)
	}
	if p.Count <= 0 || p.Count > maxBufferBytes/e.size {
		return nil, fmt.Errorf("parameter %q: bad count %d", p.Name, p.Count)
	}
	buf := make([]byte, p.Count*e.size)
	if p.Init == "" {
		if p.InitHexLE == nil {
			return nil, fmt.Errorf("parameter %q: no init, init_hex_le or same_as", p.Name)
		}
		if len(p.InitHexLE) > len(buf) {
			return nil, fmt.Errorf("parameter %q: init_hex_le has %d bytes, more than the buffer's %d", p.Name, len(p.InitHexLE), len(buf))
		}
		copy(buf, p.InitHexLE)
		return buf, nil
	}
	if p.InitHexLE != nil {
		return nil, fmt.Errorf("parameter %q: both init and init_hex_le", p.Name)
	}
	f, err := parseInit(p.Init, p.Elem)
	if err != nil {
		return nil, fmt.Errorf("parameter %q: %v", p.Name, err)
	}
	switch f.kind {
	case InitIndex:
		for i := 0; i < p.Count; i++ {
			putLE(buf[i*e.size:], indexBits(i, p.Elem, e), e.size)
		}
	case InitConst:
		for i := 0; i < p.Count; i++ {
			putLE(buf[i*e.size:], f.bits, e.size)
		}
	case InitLCG:
		x := f.seed
		for i := 0; i < p.Count; i++ {
			x = LCGMul*x + LCGAdd
			putLE(buf[i*e.size:], lcgBits(x, p.Elem, e), e.size)
		}
	}
	return buf, nil
}

// ScalarBytes returns a scalar parameter's value as little-endian bytes of
// its Type's size, as the kernel's parameter space receives it.
func (p Param) ScalarBytes() ([]byte, error) {
	if p.Kind != KindScalar {
		return nil, fmt.Errorf("parameter %q is not a scalar", p.Name)
	}
	e, ok := elemTypes[p.Type]
	if !ok {
		return nil, fmt.Errorf("parameter %q: unknown type %q", p.Name, p.Type)
	}
	v, err := parseValue(p.Value, p.Type)
	if err != nil {
		return nil, fmt.Errorf("parameter %q: %v", p.Name, err)
	}
	b := make([]byte, e.size)
	putLE(b, v, e.size)
	return b, nil
}
