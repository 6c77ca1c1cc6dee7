package pipeline

// TestZLUDATextureKernels runs ZLUDA's 24 tex_read_* kernels (texture
// references and texture objects, 1D/2D/3D, f32 and s32 coordinates,
// float and integer results) as specs over every address mode, filter,
// coordinate normalization and format combination CUDA allows for them,
// at -O0 and -O3 for the module's target (sm_75) and at -O3 for sm_90,
// whose texture instructions take the handle in a uniform register. ZLUDA records no expected values for them
// (shared/corpus/ZLUDA/expect has none), so the expectations come from
// texRef below: the CUDA programming guide's texture-fetching formulas,
// written independently of the simulator's texture unit (which addresses
// integer texel indices; this applies the guide's coordinate transforms
// for point sampling).

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/sim/fp"
	"orilab/pipeline/spec"
)

// texCase is one texture configuration.
type texCase struct {
	channel  string
	channels int
	readMode string
	filter   string
	norm     bool
	address  string
}

// texel returns component c of texel idx of the test image: element
// k = ((z*H+y)*W+x)*channels+c holds lcg-free, easily checked values
// (k*37 mod 251; k*37 mod 201 minus 100 for signed types), so
// neighbours differ.
func texTexel(tc texCase, dims []int, idx [3]int, c int) float64 {
	if c >= tc.channels {
		if c == 3 {
			return 1
		}
		return 0
	}
	k := (((idx[2]*dimOr1(dims, 1))+idx[1])*dims[0]+idx[0])*tc.channels + c
	v := float64(k * 37 % 251)
	switch tc.channel {
	case "s8", "s16", "s32":
		v = float64(k*37%201) - 100 // within s8's range
	case "f32", "f16":
		v = v/4 - 20 // exact in f16
	}
	if tc.readMode == "normalized_float" {
		switch tc.channel {
		case "u8":
			v /= 255
		case "s8":
			v = math.Max(v/127, -1)
		case "u16":
			v /= 65535
		case "s16":
			v = math.Max(v/32767, -1)
		}
		v = float64(float32(v))
	}
	return v
}

func dimOr1(d []int, k int) int {
	if k < len(d) {
		return d[k]
	}
	return 1
}

// texBytes encodes the test image in the channel type.
func texBytes(tc texCase, dims []int) []byte {
	raw := tc
	raw.readMode = "element"
	var out []byte
	for z := 0; z < dimOr1(dims, 2); z++ {
		for y := 0; y < dimOr1(dims, 1); y++ {
			for x := 0; x < dims[0]; x++ {
				for c := 0; c < tc.channels; c++ {
					v := texTexel(raw, dims, [3]int{x, y, z}, c)
					switch tc.channel {
					case "u8", "s8":
						out = append(out, byte(int8(v)))
					case "u16", "s16":
						u := uint16(int16(v))
						out = append(out, byte(u), byte(u>>8))
					case "u32", "s32":
						u := uint32(int32(v))
						out = append(out, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
					case "f32":
						u := math.Float32bits(float32(v))
						out = append(out, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
					case "f16":
						// v is a multiple of 0.25 below 64: exact in f16.
						b := fp.F64toF16(math.Float64bits(v), fp.RN)
						out = append(out, byte(b), byte(b>>8))
					}
				}
			}
		}
	}
	return out
}

// texRef is the guide's fetch at coordinates x (as the kernel passes
// them) for the dimensions the texture has.
func texRef(tc texCase, dims []int, x []float64, intCoords bool) [4]float64 {
	nd := len(dims)
	if intCoords {
		var idx [3]int
		for k := 0; k < nd; k++ {
			idx[k] = int(x[k])
			if idx[k] < 0 || idx[k] >= dims[k] {
				return [4]float64{}
			}
		}
		var r [4]float64
		for c := range r {
			r[c] = texTexel(tc, dims, idx, c)
		}
		return r
	}
	// The guide's point sampling: transform the coordinate, then floor.
	if tc.filter == "point" {
		var idx [3]int
		for k := 0; k < nd; k++ {
			n := float64(dims[k])
			v := x[k]
			if !tc.norm {
				v /= n
			}
			switch tc.address {
			case "clamp":
				v = math.Max(math.Min(v, 1-1/n), 0)
			case "wrap":
				v -= math.Floor(v)
			case "mirror":
				f := v - math.Floor(v)
				if int(math.Floor(v))%2 != 0 {
					f = 1 - f
				}
				v = f
			case "border":
				if v < 0 || v >= 1 {
					return [4]float64{}
				}
			}
			idx[k] = int(math.Floor(v * n))
			if idx[k] >= dims[k] {
				idx[k] = dims[k] - 1
			}
		}
		var r [4]float64
		for c := range r {
			r[c] = texTexel(tc, dims, idx, c)
		}
		return r
	}
	// Linear: xB = x̂ - 0.5, i = floor(xB), α = frac(xB) in 1.8 fixed
	// point; neighbours outside the texture follow the address mode.
	var base [3]int
	var alpha [3]float64
	for k := 0; k < nd; k++ {
		v := x[k]
		if tc.norm {
			v *= float64(dims[k])
		}
		xb := v - 0.5
		base[k] = int(math.Floor(xb))
		alpha[k] = math.Round((xb-math.Floor(xb))*256) / 256
	}
	place := func(k, i int) (int, bool) {
		n := dims[k]
		switch {
		case i >= 0 && i < n:
			return i, true
		case tc.address == "border":
			return 0, false
		case tc.address == "wrap":
			return ((i % n) + n) % n, true
		case tc.address == "mirror":
			m := ((i % (2 * n)) + 2*n) % (2 * n)
			if m >= n {
				m = 2*n - 1 - m
			}
			return m, true
		case i < 0:
			return 0, true
		}
		return n - 1, true
	}
	var r [4]float64
	for corner := 0; corner < 1<<nd; corner++ {
		w := 1.0
		var idx [3]int
		ok := true
		for k := 0; k < nd; k++ {
			i := base[k]
			if corner>>k&1 == 1 {
				i++
				w *= alpha[k]
			} else {
				w *= 1 - alpha[k]
			}
			var in bool
			idx[k], in = place(k, i)
			ok = ok && in
		}
		for c := range r {
			if ok {
				r[c] += w * texTexel(tc, dims, idx, c)
			}
		}
	}
	return r
}

func TestZLUDATextureKernels(t *testing.T) {
	dir := filepath.Join(testenv.Shared(t), "corpus", "ZLUDA", "zluda", "src", "impl", "test_ptx")
	var cases []texCase
	for _, f := range []struct {
		channel  string
		channels int
		readMode string
	}{{"f32", 4, "element"}, {"f16", 2, "element"}, {"u8", 4, "normalized_float"}, {"s16", 1, "normalized_float"},
		{"u32", 4, "element"}, {"s8", 2, "element"}, {"s32", 1, "element"}} {
		for _, filter := range []string{"point", "linear"} {
			for _, norm := range []bool{false, true} {
				for _, addr := range []string{"clamp", "wrap", "mirror", "border"} {
					isFloat := f.channel == "f32" || f.channel == "f16" || f.readMode == "normalized_float"
					if (filter == "linear" && !isFloat) || (!norm && (addr == "wrap" || addr == "mirror")) {
						continue // CUDA rejects these descriptors
					}
					cases = append(cases, texCase{f.channel, f.channels, f.readMode, filter, norm, addr})
				}
			}
		}
	}
	shapes := map[string][]int{"1d": {7}, "2d": {5, 3}, "3d": {3, 4, 2}}
	// Coordinates, unnormalized; scaled for normalized cases. They cover
	// the inside, texel centres and edges, and both sides outside.
	coords := [][]float64{{2.3, 1.7, 0.6}, {-1.2, 2.9, 1.1}, {8.6, -0.4, 2.7}, {0.5, 0.5, 0.5}, {4.1, 3.6, -2.2}}
	runs := 0
	for _, dim := range []string{"1d", "2d", "3d"} {
		dims := shapes[dim]
		for _, result := range []string{"float", "int"} {
			for _, s32 := range []bool{false, true} {
				for _, obj := range []bool{false, true} {
					kernel := "tex_read_" + dim + "_" + result
					if s32 {
						kernel += "_s32coord"
					}
					if obj {
						kernel += "_texobj"
					}
					for ci, tc := range cases {
						isFloat := tc.channel == "f32" || tc.channel == "f16" || tc.readMode == "normalized_float"
						if (result == "float") != isFloat {
							continue
						}
						if s32 && (tc.filter != "point" || tc.norm || tc.address != "clamp") {
							continue // integer coordinates ignore the sampler
						}
						if testing.Short() && ci%3 != 0 {
							continue
						}
						co := coords[ci%len(coords)]
						runs++
						texCheck(t, dir, kernel, dims, tc, co, s32, obj, ci%2 == 0)
					}
				}
			}
		}
	}
	t.Logf("%d texture fetches checked at -O0 and -O3 (and sm_90 -O3)", runs)
}

// texCheck builds the spec for one fetch, runs it at -O0, -O3 and sm_90 -O3 and
// compares the four results with texRef (sm_0: the module's target).
func texCheck(t *testing.T, dir, kernel string, dims []int, tc texCase, co []float64, s32, obj, hexInit bool) {
	t.Helper()
	x := make([]float64, len(dims))
	for k := range x {
		x[k] = co[k]
		if s32 {
			x[k] = math.Floor(co[k])
		} else if tc.norm {
			x[k] = co[k] / float64(dims[k])
		}
		x[k] = float64(float32(x[k]))
	}
	tex := map[string]any{"name": "img", "dims": dims, "channel": tc.channel, "channels": tc.channels,
		"filter": tc.filter, "normalized_coords": tc.norm, "read_mode": tc.readMode,
		"init_hex_le": fmt.Sprintf("%x", texBytes(tc, dims))}
	var addr []string
	for range dims {
		addr = append(addr, tc.address)
	}
	tex["address"] = addr
	params := []map[string]any{{"name": "out", "kind": "buffer", "elem": "u32", "count": 4, "init": "zero"}}
	if obj {
		params = append(params, map[string]any{"name": "texobj", "kind": "texture", "texture": "img"})
	} else {
		tex["texref"] = "tex"
	}
	for k, v := range x {
		p := map[string]any{"name": string("xyz"[k]), "kind": "scalar"}
		if s32 {
			p["type"], p["value"] = "s32", fmt.Sprint(int(v))
		} else {
			p["type"], p["value"] = "f32", fmt.Sprintf("0x%08x", math.Float32bits(float32(v)))
		}
		params = append(params, p)
	}
	js, _ := json.Marshal(map[string]any{"ptx": kernel + ".ptx", "kernel": kernel,
		"launch": map[string]any{"grid": []int{1}, "block": []int{1}}, "params": params,
		"textures": []any{tex}})
	s, err := spec.Parse(kernel+".json", js, dir)
	if err != nil {
		t.Fatalf("%s: %v", kernel, err)
	}
	want := texRef(tc, dims, x, s32)
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct{ lvl, arch int }{{0, 0}, {3, 0}, {3, 90}} {
		lvl := run.lvl
		req := Request{OptLevel: lvl, Verify: true, Arch: run.arch}
		sess, err := req.StartFile(s.PTXPath, src, SessionControl{})
		if err != nil {
			t.Fatalf("%s -O%d: %v", kernel, lvl, err)
		}
		if err := sess.RunTo(len(PhaseTable) - 1); err != nil {
			t.Fatalf("%s -O%d sm_%d: %v", kernel, lvl, run.arch, err)
		}
		bufs, _, err := ExecuteBuffers(sess.Module(), s, RunOptions{})
		if err != nil {
			t.Fatalf("%s -O%d sm_%d %+v: %v", kernel, lvl, run.arch, tc, err)
		}
		for c := 0; c < 4; c++ {
			got := uint32(bufs[0][4*c]) | uint32(bufs[0][4*c+1])<<8 | uint32(bufs[0][4*c+2])<<16 | uint32(bufs[0][4*c+3])<<24
			var w uint32
			isFloat := tc.channel == "f32" || tc.channel == "f16" || tc.readMode == "normalized_float"
			if isFloat {
				w = math.Float32bits(float32(want[c]))
			} else {
				w = uint32(int32(want[c]))
			}
			if got != w {
				t.Errorf("%s -O%d sm_%d %+v at %v: component %d = %#x, want %#x (%v)", kernel, lvl, run.arch, tc, x, c, got, w, want[c])
			}
		}
	}
}

// TestTextureFaults: a surface access out of bounds in .trap mode and a
// fetch through an unbound .texref stop the run with an error naming the
// instruction, the thread and the cause.
func TestTextureFaults(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "kernels")
	s, err := spec.Load(filepath.Join(dir, "surf_forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	s.Params[s.Lookup("x")].Value = "40"
	_, err = RunSpec(s, RunOptions{})
	want := "SULD.D.BA.2D.STRONG.SM.TRAP), thread (0,0,0) of CTA (0,0,0): surface access out of bounds at (40, 1, 0) layer 0 (a 4-byte access; 16 bytes per row, 4 rows, depth 1, 1 layers)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("out-of-bounds .trap access: got %v, want ...%s", err, want)
	}

	s, err = spec.Load(filepath.Join(dir, "tex_forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	s.Textures = append(s.Textures[:1], s.Textures[2:]...) // unbind tA
	_, err = RunSpec(s, RunOptions{})
	want = "the texture header word c[0x0][0x17c] holds 0x0, which names no texture binding of the launch (5 bound): is the .texref bound in the spec?"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("unbound texref: got %v, want ...%s", err, want)
	}
}
