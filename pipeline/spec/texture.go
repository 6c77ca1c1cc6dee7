package spec

import (
	"fmt"
	"strings"
)

// KindTexture is the parameter kind of a texture object: the kernel
// receives the 64-bit handle of the texture binding the parameter names.
const KindTexture = "texture"

// Texture is one texture binding ("textures" in the spec): an image with
// its sampler state, bound to a .texref of the module (TexRef), a
// .surfref (SurfRef), texture-object parameters (params of kind
// "texture" that name it), or several of these.
//
// Its texels come from Init or InitHexLE (as a buffer's, with elements of
// the channel type, Channels per texel, x fastest, then y, z and layer),
// or from the allocation of the buffer parameter Buffer (linear memory,
// read when the kernel fetches).
type Texture struct {
	Name   string
	TexRef string // the .texref bound to it, or ""
	// SurfRef is the .surfref bound to it, or "": the same binding
	// serves suld/sust (surface.go in the simulator), and a
	// texture-object parameter's handle names it for either.
	SurfRef  string
	Dims     []int  // 1 to 3 extents: width, height, depth
	Layers   int    // 0: not layered; else the layer count (1D and 2D only)
	Channel  string // u8 s8 u16 s16 u32 s32 f16 f32
	Channels int    // components per texel: 1, 2 or 4
	// Address holds the address mode of each dimension (clamp, wrap,
	// mirror, border); dimensions not listed are clamp.
	Address         []string
	Filter          string // point or linear
	Normalized      bool   // normalized coordinates
	ReadMode        string // element or normalized_float
	Init            string
	InitHexLE       []byte
	Buffer          string // buffer parameter whose allocation holds the texels
	initParamPseudo Param
}

// Texels returns the number of texels (all layers).
func (t *Texture) Texels() int {
	n := 1
	for _, d := range t.Dims {
		n *= d
	}
	if t.Layers > 0 {
		n *= t.Layers
	}
	return n
}

// InitBytes returns the texture's initial contents (nil for a texture
// backed by a buffer parameter).
func (t *Texture) InitBytes() ([]byte, error) {
	if t.Buffer != "" {
		return nil, nil
	}
	return t.initParamPseudo.InitBytes()
}

// TextureIndex returns the index of the texture named name, or -1.
func (s *Spec) TextureIndex(name string) int {
	for i := range s.Textures {
		if s.Textures[i].Name == name {
			return i
		}
	}
	return -1
}

var texChannels = map[string]bool{"u8": true, "s8": true, "u16": true, "s16": true, "u32": true, "s32": true, "f16": true, "f32": true}

var texAddress = map[string]bool{"clamp": true, "wrap": true, "mirror": true, "border": true}

// textures reads "textures"; it runs after params, which it may name.
func (r *reader) textures(s *Spec, v *jvalue) {
	if v.kind != jArray {
		r.fatalAt(v.off, "textures", "want a list, got %s", v.describe())
	}
	for i, tv := range v.elems {
		path := index("textures", i)
		m := r.object(tv, path, "name", "texref", "surfref", "dims", "layers", "channel", "channels", "address",
			"filter", "normalized_coords", "read_mode", "init", "init_hex_le", "buffer")
		t := Texture{Name: r.nonEmpty(r.require(m, path, "name"), field(path, "name"))}
		if j := s.TextureIndex(t.Name); j >= 0 {
			r.fatal(field(path, "name"), "duplicate name %q (also textures[%d])", t.Name, j)
		}
		if tr := m["texref"]; tr != nil {
			t.TexRef = r.nonEmpty(tr, field(path, "texref"))
			for j := range s.Textures {
				if s.Textures[j].TexRef == t.TexRef {
					r.fatal(field(path, "texref"), "the .texref %s is already bound by textures[%d]", t.TexRef, j)
				}
			}
		}
		if sr := m["surfref"]; sr != nil {
			t.SurfRef = r.nonEmpty(sr, field(path, "surfref"))
			for j := range s.Textures {
				if s.Textures[j].SurfRef == t.SurfRef {
					r.fatal(field(path, "surfref"), "the .surfref %s is already bound by textures[%d]", t.SurfRef, j)
				}
			}
		}
		dv := r.require(m, path, "dims")
		if dv.kind != jArray {
			r.fatalAt(dv.off, field(path, "dims"), "want a list of 1 to 3 extents, got %s", dv.describe())
		}
		if len(dv.elems) == 0 || len(dv.elems) > 3 {
			r.fatal(field(path, "dims"), "want 1 to 3 extents, got %d", len(dv.elems))
		}
		for k, e := range dv.elems {
			p := index(field(path, "dims"), k)
			n := r.integer(e, p)
			if n <= 0 || n > 65536 {
				r.fatal(p, "must be in [1, 65536], got %d", n)
			}
			t.Dims = append(t.Dims, n)
		}
		if lv := m["layers"]; lv != nil {
			t.Layers = r.integer(lv, field(path, "layers"))
			if t.Layers < 1 || t.Layers > 2048 {
				r.fatal(field(path, "layers"), "must be in [1, 2048], got %d", t.Layers)
			}
			if len(t.Dims) == 3 {
				r.fatal(field(path, "layers"), "a 3D texture cannot be layered")
			}
		}
		t.Channel = r.str(r.require(m, path, "channel"), field(path, "channel"))
		if !texChannels[t.Channel] {
			r.fatal(field(path, "channel"), "unknown channel type %q (want u8, s8, u16, s16, u32, s32, f16 or f32)", t.Channel)
		}
		t.Channels = 1
		if cv := m["channels"]; cv != nil {
			t.Channels = r.integer(cv, field(path, "channels"))
			if t.Channels != 1 && t.Channels != 2 && t.Channels != 4 {
				r.fatal(field(path, "channels"), "want 1, 2 or 4, got %d", t.Channels)
			}
		}
		if av := m["address"]; av != nil {
			if av.kind != jArray {
				r.fatalAt(av.off, field(path, "address"), "want a list of address modes (one per dimension), got %s", av.describe())
			}
			if len(av.elems) == 0 || len(av.elems) > len(t.Dims) {
				r.fatal(field(path, "address"), "want 1 to %d address modes (one per dimension), got %d", len(t.Dims), len(av.elems))
			}
			for k, e := range av.elems {
				p := index(field(path, "address"), k)
				a := r.str(e, p)
				if !texAddress[a] {
					r.fatal(p, "unknown address mode %q (want clamp, wrap, mirror or border)", a)
				}
				t.Address = append(t.Address, a)
			}
		}
		t.Filter = "point"
		if fv := m["filter"]; fv != nil {
			t.Filter = r.str(fv, field(path, "filter"))
			if t.Filter != "point" && t.Filter != "linear" {
				r.fatal(field(path, "filter"), "unknown filter %q (want point or linear)", t.Filter)
			}
		}
		if nv := m["normalized_coords"]; nv != nil {
			t.Normalized = r.boolean(nv, field(path, "normalized_coords"))
		}
		t.ReadMode = "element"
		if rv := m["read_mode"]; rv != nil {
			t.ReadMode = r.str(rv, field(path, "read_mode"))
			if t.ReadMode != "element" && t.ReadMode != "normalized_float" {
				r.fatal(field(path, "read_mode"), "unknown read mode %q (want element or normalized_float)", t.ReadMode)
			}
		}
		// CUDA's rules for a texture object's descriptors.
		if t.ReadMode == "normalized_float" && !strings.Contains("u8 s8 u16 s16", t.Channel) {
			r.fatal(field(path, "read_mode"), "normalized_float needs an 8- or 16-bit integer channel, not %s", t.Channel)
		}
		floatResult := t.Channel == "f16" || t.Channel == "f32" || t.ReadMode == "normalized_float"
		if t.Filter == "linear" && !floatResult {
			r.fatal(field(path, "filter"), "linear filtering needs float results (an f16/f32 channel or read_mode normalized_float)")
		}
		for k, a := range t.Address {
			if (a == "wrap" || a == "mirror") && !t.Normalized {
				r.fatal(index(field(path, "address"), k), "%s needs normalized_coords (CUDA supports it only with normalized coordinates)", a)
			}
		}
		var given []string
		for _, f := range []string{"init", "init_hex_le", "buffer"} {
			if m[f] != nil {
				given = append(given, f)
			}
		}
		if len(given) != 1 {
			r.fatal(path, "want exactly one of init, init_hex_le, buffer (got %d)", len(given))
		}
		count := t.Texels() * t.Channels
		size, _ := ElemSize(t.Channel)
		if count > maxBufferBytes/size {
			r.fatal(field(path, "dims"), "%d texels exceed the limit of %d bytes", t.Texels(), maxBufferBytes)
		}
		t.initParamPseudo = Param{Name: t.Name, Kind: KindBuffer, Elem: t.Channel, Count: count}
		switch {
		case m["init"] != nil:
			t.Init = r.str(m["init"], field(path, "init"))
			if _, err := parseInit(t.Init, t.Channel); err != nil {
				r.fatal(field(path, "init"), "%v", err)
			}
			t.initParamPseudo.Init = t.Init
		case m["init_hex_le"] != nil:
			b, err := decodeHexLE(r.str(m["init_hex_le"], field(path, "init_hex_le")))
			if err != nil {
				r.fatal(field(path, "init_hex_le"), "%v", err)
			}
			if len(b) > count*size {
				r.fatal(field(path, "init_hex_le"), "%d bytes exceed the texture's %d", len(b), count*size)
			}
			t.InitHexLE = b
			t.initParamPseudo.InitHexLE = b
		default:
			t.Buffer = r.nonEmpty(m["buffer"], field(path, "buffer"))
			j := s.paramIndex(t.Buffer)
			switch {
			case j < 0:
				r.fatal(field(path, "buffer"), "%q names no parameter", t.Buffer)
			case s.Params[j].Kind != KindBuffer:
				r.fatal(field(path, "buffer"), "%q is not a buffer parameter", t.Buffer)
			}
			o := s.Owner(j)
			if bytes := s.Params[o].Count * elemSize(s.Params[o].Elem); bytes < count*size {
				r.fatal(field(path, "buffer"), "buffer %q has %d bytes, the texture needs %d", t.Buffer, bytes, count*size)
			}
		}
		s.Textures = append(s.Textures, t)
	}
}

func elemSize(e string) int {
	n, _ := ElemSize(e)
	return n
}

// textureParams checks that every texture parameter names a texture.
func (r *reader) textureParams(s *Spec) {
	for i, p := range s.Params {
		if p.Kind == KindTexture && s.TextureIndex(p.Texture) < 0 {
			r.fatal(field(index("params", i), "texture"), "%q names no entry of textures", p.Texture)
		}
	}
}

// String describes the binding for messages.
func (t *Texture) String() string {
	return fmt.Sprintf("%s (%v %sx%d)", t.Name, t.Dims, t.Channel, t.Channels)
}
