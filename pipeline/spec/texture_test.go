package spec

import (
	"bytes"
	"reflect"
	"testing"
)

// tdoc is a spec with the texture list textures and a texture-object
// parameter t naming "img".
func tdoc(textures string) string {
	return doc(`"textures":`+textures, `[{"name":"a","kind":"buffer","elem":"u8","count":64,"init":"zero"},`+
		`{"name":"t","kind":"texture","texture":"img"}]`, "")
}

func TestTextureParseErrors(t *testing.T) {
	const ok = `"name":"img","dims":[4,4],"channel":"f32"`
	tests := []struct{ name, src, want string }{
		{"unknown field", tdoc(`[{` + ok + `,"init":"zero","filtr":"point"}]`), `t.json:1:265: textures[0]: unknown field "filtr" (want name, texref, surfref, dims, layers, channel, channels, address, filter, normalized_coords, read_mode, init, init_hex_le, buffer)`},
		{"no texels", tdoc(`[{` + ok + `}]`), `t.json: textures[0]: want exactly one of init, init_hex_le, buffer (got 0)`},
		{"two sources", tdoc(`[{` + ok + `,"init":"zero","buffer":"a"}]`), `t.json: textures[0]: want exactly one of init, init_hex_le, buffer (got 2)`},
		{"dims empty", tdoc(`[{"name":"img","dims":[],"channel":"f32","init":"zero"}]`), `t.json: textures[0].dims: want 1 to 3 extents, got 0`},
		{"dims zero", tdoc(`[{"name":"img","dims":[4,0],"channel":"f32","init":"zero"}]`), `t.json: textures[0].dims[1]: must be in [1, 65536], got 0`},
		{"channel", tdoc(`[{"name":"img","dims":[4],"channel":"f64","init":"zero"}]`), `t.json: textures[0].channel: unknown channel type "f64" (want u8, s8, u16, s16, u32, s32, f16 or f32)`},
		{"channels", tdoc(`[{` + ok + `,"channels":3,"init":"zero"}]`), `t.json: textures[0].channels: want 1, 2 or 4, got 3`},
		{"address mode", tdoc(`[{` + ok + `,"address":["clamp","repeat"],"init":"zero"}]`), `t.json: textures[0].address[1]: unknown address mode "repeat" (want clamp, wrap, mirror or border)`},
		{"address count", tdoc(`[{` + ok + `,"address":["clamp","clamp","clamp"],"init":"zero"}]`), `t.json: textures[0].address: want 1 to 2 address modes (one per dimension), got 3`},
		{"wrap unnormalized", tdoc(`[{` + ok + `,"address":["wrap"],"init":"zero"}]`), `t.json: textures[0].address[0]: wrap needs normalized_coords (CUDA supports it only with normalized coordinates)`},
		{"filter", tdoc(`[{` + ok + `,"filter":"bilinear","init":"zero"}]`), `t.json: textures[0].filter: unknown filter "bilinear" (want point or linear)`},
		{"linear integer", tdoc(`[{"name":"img","dims":[4],"channel":"u8","filter":"linear","init":"zero"}]`), `t.json: textures[0].filter: linear filtering needs float results (an f16/f32 channel or read_mode normalized_float)`},
		{"read mode", tdoc(`[{` + ok + `,"read_mode":"float","init":"zero"}]`), `t.json: textures[0].read_mode: unknown read mode "float" (want element or normalized_float)`},
		{"normalized f32", tdoc(`[{` + ok + `,"read_mode":"normalized_float","init":"zero"}]`), `t.json: textures[0].read_mode: normalized_float needs an 8- or 16-bit integer channel, not f32`},
		{"layers 3d", tdoc(`[{"name":"img","dims":[2,2,2],"layers":2,"channel":"f32","init":"zero"}]`), `t.json: textures[0].layers: a 3D texture cannot be layered`},
		{"hex too long", tdoc(`[{"name":"img","dims":[1],"channel":"u8","init_hex_le":"0102"}]`), `t.json: textures[0].init_hex_le: 2 bytes exceed the texture's 1`},
		{"init", tdoc(`[{` + ok + `,"init":"ones"}]`), `t.json: textures[0].init: unknown init "ones" (want zero, index, const:V, lcg:SEED, init_hex_le or same_as)`},
		{"buffer unknown", tdoc(`[{` + ok + `,"buffer":"b"}]`), `t.json: textures[0].buffer: "b" names no parameter`},
		{"buffer small", tdoc(`[{"name":"img","dims":[4,5],"channel":"f32","buffer":"a"}]`), `t.json: textures[0].buffer: buffer "a" has 64 bytes, the texture needs 80`},
		{"duplicate", tdoc(`[{` + ok + `,"init":"zero"},{` + ok + `,"init":"zero"}]`), `t.json: textures[1].name: duplicate name "img" (also textures[0])`},
		{"texref twice", tdoc(`[{` + ok + `,"texref":"tex","init":"zero"},{"name":"b","texref":"tex","dims":[1],"channel":"u8","init":"zero"}]`), `t.json: textures[1].texref: the .texref tex is already bound by textures[0]`},
		{"param names nothing", doc(``, `[{"name":"t","kind":"texture","texture":"img"}]`, ""), `t.json: params[0].texture: "img" names no entry of textures`},
		{"param texture missing", doc(``, `[{"name":"t","kind":"texture"}]`, ""), `t.json: params[0]: missing required field "texture"`},
		{"param texture value", doc(``, `[{"name":"t","kind":"texture","texture":"img","value":"1"}]`, ""), `t.json: params[0].value: not allowed for a texture (the kernel receives the texture's handle)`},
		{"texture on buffer", doc(``, `[{"name":"t","kind":"buffer","elem":"u8","count":1,"init":"zero","texture":"img"}]`, ""), `t.json: params[0].texture: only a parameter of kind texture names a texture`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.json", []byte(tt.src), "testdata")
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got  %v\n want %s\nsource %s", err, tt.want, tt.src)
			}
		})
	}
}

// TestTextureRoundTrip: a spec with textures parses, and JSON writes it
// back so that Parse gives the same spec.
func TestTextureRoundTrip(t *testing.T) {
	src := tdoc(`[{"name":"img","texref":"tex","surfref":"surf","dims":[4,4],"layers":2,"channel":"u8","channels":4,` +
		`"address":["wrap","border"],"filter":"linear","normalized_coords":true,"read_mode":"normalized_float","init_hex_le":"0102"},` +
		`{"name":"lin","dims":[16],"channel":"u32","buffer":"a"}]`)
	s, err := Parse("t.json", []byte(src), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	img := s.Textures[0]
	if img.TexRef != "tex" || img.SurfRef != "surf" || img.Layers != 2 || img.Channels != 4 || !img.Normalized || img.Filter != "linear" ||
		img.ReadMode != "normalized_float" || !reflect.DeepEqual(img.Address, []string{"wrap", "border"}) {
		t.Fatalf("parsed %+v", img)
	}
	b, err := img.InitBytes()
	if err != nil || len(b) != 4*4*2*4 || !bytes.Equal(b[:3], []byte{1, 2, 0}) {
		t.Fatalf("InitBytes = %x, %v", b, err)
	}
	if s.Textures[1].Filter != "point" || s.Textures[1].ReadMode != "element" || s.Textures[1].Buffer != "a" {
		t.Fatalf("defaults: %+v", s.Textures[1])
	}
	if s.Params[1].Kind != KindTexture || s.Params[1].Texture != "img" {
		t.Fatalf("texture param %+v", s.Params[1])
	}
	js, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Parse("t.json", js, "testdata")
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if !reflect.DeepEqual(s.Textures, s2.Textures) || !reflect.DeepEqual(s.Params, s2.Params) {
		t.Errorf("round trip changed the spec:\n%+v\n%+v", s.Textures, s2.Textures)
	}
}
