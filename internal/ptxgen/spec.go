package ptxgen

import (
	"fmt"
	"strings"

	"orilab/pipeline/spec"
)

// Expectation names a file of expected values for one buffer, for
// SpecJSON: the buffer parameter, its element type, and the
// values_hex_file beside the spec.
type Expectation struct {
	Param, Elem, File string
}

// Spec returns the program's kernel spec as the spec reader would return
// it, without expectations, for executing the program in memory. ptxPath
// is recorded as the spec's PTX file (it need not exist).
func (p *Program) Spec(name, ptxPath string) *spec.Spec {
	s := &spec.Spec{
		Name:    name,
		File:    name + ".json",
		PTX:     ptxPath,
		PTXPath: ptxPath,
		Kernel:  p.Kernel.Name,
		Launch: spec.Launch{
			Grid:               p.Launch.Grid,
			Block:              p.Launch.Block,
			DynamicSharedBytes: p.Launch.DynamicShared,
		},
	}
	for _, q := range p.Params {
		sp := spec.Param{Name: q.Name}
		switch {
		case !q.Buffer:
			sp.Kind, sp.Type, sp.Value = spec.KindScalar, q.Type, q.Value
		case q.SameAs != "":
			sp.Kind, sp.SameAs = spec.KindBuffer, q.SameAs
		default:
			sp.Kind, sp.Elem, sp.Count = spec.KindBuffer, q.Elem, q.Count
			if q.Init == nil {
				sp.Init = spec.InitZero
			} else {
				sp.InitHexLE = q.Init
			}
		}
		s.Params = append(s.Params, sp)
	}
	return s
}

// SpecJSON returns the program's kernel spec as a JSON file that points at
// ptxFile (relative to the spec), with the given expectations, written by
// the spec package's writer (spec.Spec.JSON).
func (p *Program) SpecJSON(name, ptxFile string, expect []Expectation) []byte {
	s := p.Spec(name, ptxFile)
	for _, e := range expect {
		s.Expect = append(s.Expect, spec.Expect{Param: e.Param, Elem: e.Elem, ValuesFile: e.File})
	}
	data, err := s.JSON()
	if err != nil {
		// Marshalling plain structs of strings and numbers cannot fail.
		panic(fmt.Sprintf("ptxgen: writing the spec of %s: %v", name, err))
	}
	return data
}

// HexValues formats a buffer as a values_hex_file: one little-endian
// element of size bytes per line, as 0x-prefixed hex.
func HexValues(buf []byte, size int) []byte {
	var b strings.Builder
	for i := 0; i+size <= len(buf); i += size {
		var v uint64
		for k := 0; k < size; k++ {
			v |= uint64(buf[i+k]) << (8 * k)
		}
		fmt.Fprintf(&b, "0x%0*x\n", 2*size, v)
	}
	return []byte(b.String())
}
