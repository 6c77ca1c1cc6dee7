package ptxgen

import (
	"encoding/hex"
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
// ptxFile (relative to the spec), with the given expectations.
func (p *Program) SpecJSON(name, ptxFile string, expect []Expectation) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"name\": %q,\n  \"ptx\": %q,\n  \"kernel\": %q,\n", name, ptxFile, p.Kernel.Name)
	l := p.Launch
	fmt.Fprintf(&b, "  \"launch\": {\"grid\": [%d, %d, %d], \"block\": [%d, %d, %d], \"dynamic_shared_bytes\": %d},\n",
		l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2], l.DynamicShared)
	b.WriteString("  \"params\": [")
	for i, q := range p.Params {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		switch {
		case !q.Buffer:
			fmt.Fprintf(&b, `{"name": %q, "kind": "scalar", "type": %q, "value": %q}`, q.Name, q.Type, q.Value)
		case q.SameAs != "":
			fmt.Fprintf(&b, `{"name": %q, "kind": "buffer", "same_as": %q}`, q.Name, q.SameAs)
		case q.Init == nil:
			fmt.Fprintf(&b, `{"name": %q, "kind": "buffer", "elem": %q, "count": %d, "init": "zero"}`, q.Name, q.Elem, q.Count)
		default:
			fmt.Fprintf(&b, `{"name": %q, "kind": "buffer", "elem": %q, "count": %d, "init_hex_le": %q}`, q.Name, q.Elem, q.Count, hex.EncodeToString(q.Init))
		}
	}
	b.WriteString("\n  ]")
	if len(expect) > 0 {
		b.WriteString(",\n  \"expect\": [")
		for i, e := range expect {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n    {\"param\": %q, \"elem\": %q, \"values_hex_file\": %q}", e.Param, e.Elem, e.File)
		}
		b.WriteString("\n  ]")
	}
	b.WriteString("\n}\n")
	return []byte(b.String())
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
