package pipeline

import (
	"fmt"

	"orilab/pipeline/sim"
	"orilab/pipeline/spec"
)

// launchTextures turns the spec's texture bindings into the simulator's:
// a texture backed by a buffer parameter reads that parameter's
// allocation (so it sees what the launch wrote before, as linear memory
// bound to a texture does), any other gets its own copy of its texels.
func launchTextures(s *spec.Spec, allocs []*sim.Alloc) ([]*sim.Texture, map[string]int, error) {
	channels := map[string]sim.TexChannel{"u8": sim.TexU8, "s8": sim.TexS8, "u16": sim.TexU16, "s16": sim.TexS16,
		"u32": sim.TexU32, "s32": sim.TexS32, "f16": sim.TexF16, "f32": sim.TexF32}
	modes := map[string]sim.TexAddress{"clamp": sim.TexClamp, "wrap": sim.TexWrap, "mirror": sim.TexMirror, "border": sim.TexBorder}
	var out []*sim.Texture
	refs := map[string]int{}
	for i := range s.Textures {
		st := &s.Textures[i]
		t := &sim.Texture{Dims: len(st.Dims), Width: 1, Height: 1, Depth: 1, Layers: st.Layers,
			Channel: channels[st.Channel], Channels: st.Channels, Linear: st.Filter == "linear",
			Normalized: st.Normalized, NormalizedFloat: st.ReadMode == "normalized_float"}
		ext := []*int{&t.Width, &t.Height, &t.Depth}
		for k, d := range st.Dims {
			*ext[k] = d
		}
		for k, a := range st.Address {
			t.Address[k] = modes[a]
		}
		if st.Buffer != "" {
			o := s.Owner(s.Lookup(st.Buffer))
			if o < 0 || allocs[o] == nil {
				return nil, nil, fmt.Errorf("%s: textures[%d].buffer: %q is not a buffer of the launch", s.File, i, st.Buffer)
			}
			t.Data = allocs[o].Data
		} else {
			b, err := st.InitBytes()
			if err != nil {
				return nil, nil, fmt.Errorf("%s: textures[%d]: %v", s.File, i, err)
			}
			t.Data = b
		}
		if st.TexRef != "" {
			refs[st.TexRef] = i
		}
		if st.SurfRef != "" {
			refs[st.SurfRef] = i
		}
		out = append(out, t)
	}
	return out, refs, nil
}
