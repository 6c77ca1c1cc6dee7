package spec

import (
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"sort"
)

// JSON returns s as a kernel spec file (../shared/KERNEL-SPEC.md), the
// inverse of Parse: Parse(name, s.JSON(), dir) gives back s. It is the one
// spec writer: the reducer's reduced specs, the random program generator's
// specs and tests all write through it.
//
// The PTX is written as s.PTX, as the file names it. Expected values are
// written as they came: a values_hex_file (by ValuesFile, relative to
// s.Dir) stays a file reference, AllEqual stays all_equal, other values
// are listed in values_hex. A buffer with neither Init nor init bytes is
// written as "init": "zero".
func (s *Spec) JSON() ([]byte, error) {
	f := specJSON{Name: s.Name, PTX: s.PTX, Kernel: s.Kernel,
		Launch: launchJSON{Grid: s.Launch.Grid, Block: s.Launch.Block, Dyn: s.Launch.DynamicSharedBytes},
		Params: []paramJSON{}}
	for _, p := range s.Params {
		q := paramJSON{Name: p.Name, Kind: p.Kind}
		switch {
		case p.Kind == KindScalar:
			q.Type, q.Value = p.Type, p.Value
		case p.Kind == KindTexture:
			q.Texture = p.Texture
		case p.SameAs != "":
			q.SameAs = p.SameAs
		default:
			q.Elem, q.Count = p.Elem, p.Count
			switch {
			case p.Init != "":
				q.Init = p.Init
			case len(p.InitHexLE) > 0:
				h := hex.EncodeToString(p.InitHexLE)
				q.InitHex = &h
			default:
				q.Init = InitZero
			}
		}
		f.Params = append(f.Params, q)
	}
	for _, t := range s.Textures {
		x := textureJSON{Name: t.Name, TexRef: t.TexRef, SurfRef: t.SurfRef, Dims: t.Dims, Layers: t.Layers, Channel: t.Channel,
			Channels: t.Channels, Address: t.Address, Filter: t.Filter, Normalized: t.Normalized,
			ReadMode: t.ReadMode, Init: t.Init, Buffer: t.Buffer}
		if t.Init == "" && t.Buffer == "" {
			h := hex.EncodeToString(t.InitHexLE)
			x.InitHex = &h
		}
		f.Textures = append(f.Textures, x)
	}
	if s.CompileOnly {
		f.Expect = []expectJSON{{CompileOnly: true}}
	}
	for _, e := range s.Expect {
		x := expectJSON{Param: e.Param, Elem: e.Elem, Count: e.Count}
		switch {
		case e.ValuesFile != "":
			rel := e.ValuesFile
			if r, err := filepath.Rel(s.Dir, e.ValuesFile); err == nil && s.Dir != "" {
				rel = r
			}
			x.ValuesFile = rel
		case e.AllEqual != nil:
			v := FormatBits(*e.AllEqual, e.Elem)
			x.AllEqual = &v
		default:
			x.Values = []string{}
			for _, v := range e.Values {
				x.Values = append(x.Values, FormatBits(v, e.Elem))
			}
		}
		if t := e.Tolerance; t != nil {
			x.Tolerance = &toleranceJSON{}
			if t.Kind == TolULP {
				x.Tolerance.ULP = &t.ULP
			} else {
				x.Tolerance.Rel, x.Tolerance.Abs = &t.Rel, &t.Abs
			}
		}
		for k := range e.IgnoreIndices {
			x.Ignore = append(x.Ignore, k)
		}
		sort.Ints(x.Ignore)
		f.Expect = append(f.Expect, x)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// The file's JSON shape, in the field order KERNEL-SPEC.md shows.
type specJSON struct {
	Name   string      `json:"name"`
	PTX    string      `json:"ptx"`
	Kernel string      `json:"kernel"`
	Launch launchJSON  `json:"launch"`
	Params []paramJSON `json:"params"`
	// Textures come after params, which they may name.
	Textures []textureJSON `json:"textures,omitempty"`
	Expect   []expectJSON  `json:"expect,omitempty"`
}

type textureJSON struct {
	Name       string   `json:"name"`
	TexRef     string   `json:"texref,omitempty"`
	SurfRef    string   `json:"surfref,omitempty"`
	Dims       []int    `json:"dims"`
	Layers     int      `json:"layers,omitempty"`
	Channel    string   `json:"channel"`
	Channels   int      `json:"channels"`
	Address    []string `json:"address,omitempty"`
	Filter     string   `json:"filter"`
	Normalized bool     `json:"normalized_coords,omitempty"`
	ReadMode   string   `json:"read_mode"`
	Init       string   `json:"init,omitempty"`
	InitHex    *string  `json:"init_hex_le,omitempty"`
	Buffer     string   `json:"buffer,omitempty"`
}

type launchJSON struct {
	Grid  [3]int `json:"grid"`
	Block [3]int `json:"block"`
	Dyn   int    `json:"dynamic_shared_bytes,omitempty"`
}

type paramJSON struct {
	Name    string  `json:"name"`
	Kind    string  `json:"kind"`
	Elem    string  `json:"elem,omitempty"`
	Count   int     `json:"count,omitempty"`
	Init    string  `json:"init,omitempty"`
	InitHex *string `json:"init_hex_le,omitempty"`
	SameAs  string  `json:"same_as,omitempty"`
	Type    string  `json:"type,omitempty"`
	Value   string  `json:"value,omitempty"`
	Texture string  `json:"texture,omitempty"`
}

type expectJSON struct {
	Param       string         `json:"param,omitempty"`
	Elem        string         `json:"elem,omitempty"`
	Count       int            `json:"count,omitempty"`
	Values      []string       `json:"values_hex,omitempty"`
	ValuesFile  string         `json:"values_hex_file,omitempty"`
	AllEqual    *string        `json:"all_equal,omitempty"`
	Tolerance   *toleranceJSON `json:"tolerance,omitempty"`
	Ignore      []int          `json:"ignore_indices,omitempty"`
	CompileOnly bool           `json:"compile_only,omitempty"`
}

type toleranceJSON struct {
	Rel *float64 `json:"rel,omitempty"`
	Abs *float64 `json:"abs,omitempty"`
	ULP *int64   `json:"ulp,omitempty"`
}
