package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/sim/fp"
)

// The texture unit: TEX, TLD, TLD4 and TXQ over the launch's texture
// bindings (Launch.Textures). A handle is a binding's index plus one; the
// launch writes the handle of each .texref binding into the kernel's
// header word (ori.Func.TexRefs) and passes texture objects as 64-bit
// parameter values, as the CUDA driver does with its own handles.
//
// Fetch rules, from the CUDA programming guide's texture-fetching
// appendix:
//   - Normalized coordinates are scaled by the texture's size in each
//     dimension (x*N); the array layer is an integer, clamped to the
//     layers the texture has.
//   - Point filtering reads texel floor(x). Linear filtering reads the
//     texels floor(x-0.5) and floor(x-0.5)+1 in each dimension and
//     weights them by a = frac(x-0.5) held in 9-bit fixed point with 8
//     fraction bits (1.0 exact): (1-a)T[i] + aT[i+1], per dimension.
//   - The address mode places each texel index i that falls outside
//     [0, N): clamp reads T[clamp(i)], wrap T[i mod N], mirror reflects
//     (0..N-1, N-1..0, ...), border reads the border color 0.
//   - A texel of an integer format read as a normalized float is divided
//     by the format's maximum (u8: 255, s8: 127, then clamped to -1.0);
//     f16 texels become f32.
//
// Decision (unmeasured: no hardware texture results exist in hwtruth):
//   - The weight a is frac(x-0.5)*256 rounded to nearest, and the
//     weighted sum is computed exactly and rounded once to f32.
//   - Components a format lacks read as 0, and the fourth as 1 (1.0 for
//     float results), the convention of every graphics API.
//   - TLD (PTX tex with .s32 coordinates) follows the guide's rule for
//     integer-coordinate fetches (tex1Dfetch): no filtering, no
//     normalization, no address mode; a texel outside the texture reads
//     as 0 in every component.
//   - The texture's own dimensions decide which coordinates count: ptxas
//     fetches tex.1d as 2D at y = 0, and the header says 1D. Coordinates
//     beyond the texture's dimensions are ignored; missing ones are 0.
//   - TXQ's dimension query reports 1 for a dimension the texture lacks.

// Texture is one texture binding of a launch: a 1D, 2D or 3D image,
// possibly layered, with its sampler state.
type Texture struct {
	// Width, Height and Depth are the texel counts; Dims (1..3) says how
	// many of them the texture has (the others are 1).
	Dims                  int
	Width, Height, Depth  int
	Layers                int // 0: not layered; else the number of layers
	Channel               TexChannel
	Channels              int // 1, 2 or 4 components per texel
	Address               [3]TexAddress
	Linear                bool // linear filtering; else point
	Normalized            bool // coordinates in [0, 1)
	NormalizedFloat       bool // integer texels read as normalized floats
	Data                  []byte
	texelBytes, chanBytes int
}

// TexChannel is a component format.
type TexChannel uint8

// The component formats.
const (
	TexU8 TexChannel = iota
	TexS8
	TexU16
	TexS16
	TexU32
	TexS32
	TexF16
	TexF32
)

// TexChannelBytes is the size of one component of each format.
var TexChannelBytes = [...]int{TexU8: 1, TexS8: 1, TexU16: 2, TexS16: 2, TexU32: 4, TexS32: 4, TexF16: 2, TexF32: 4}

// TexAddress is an address mode.
type TexAddress uint8

// The address modes.
const (
	TexClamp TexAddress = iota
	TexWrap
	TexMirror
	TexBorder
)

// size returns the texel count of dimension k.
func (t *Texture) size(k int) int {
	switch k {
	case 0:
		return t.Width
	case 1:
		return t.Height
	}
	return t.Depth
}

// Bytes is the size of the texture's data.
func (t *Texture) Bytes() int {
	l := t.Layers
	if l == 0 {
		l = 1
	}
	return t.Width * t.Height * t.Depth * l * t.Channels * TexChannelBytes[t.Channel]
}

// texel returns the four components of texel (x, y, z) of layer l as
// f32 bits (float results) or integers, and false when it lies outside
// the texture.
func (t *Texture) texel(idx [3]int, layer int) ([4]uint32, bool) {
	for k := 0; k < 3; k++ {
		if idx[k] < 0 || idx[k] >= t.size(k) {
			return [4]uint32{}, false
		}
	}
	n := ((layer*t.Depth+idx[2])*t.Height+idx[1])*t.Width + idx[0]
	off := n * t.texelBytes
	var v [4]uint32
	for c := 0; c < 4; c++ {
		if c >= t.Channels {
			if c == 3 {
				v[c] = 1
				if t.floatResult() {
					v[c] = math.Float32bits(1)
				}
			}
			continue
		}
		b := t.Data[off+c*t.chanBytes:]
		raw := uint32(le(b, t.chanBytes))
		v[c] = t.convert(raw)
	}
	return v, true
}

// floatResult reports whether fetches return f32 values.
func (t *Texture) floatResult() bool {
	return t.Channel == TexF32 || t.Channel == TexF16 || t.NormalizedFloat
}

// convert turns one raw component into the fetch's result type.
func (t *Texture) convert(raw uint32) uint32 {
	norm := func(v, max float64) uint32 {
		return math.Float32bits(float32(math.Max(v/max, -1)))
	}
	switch t.Channel {
	case TexF16:
		return fp.F16toF32(uint16(raw))
	case TexF32, TexU32:
		return raw
	case TexS32:
		return raw
	case TexU8:
		if t.NormalizedFloat {
			return norm(float64(raw), 255)
		}
	case TexU16:
		if t.NormalizedFloat {
			return norm(float64(raw), 65535)
		}
	case TexS8:
		if t.NormalizedFloat {
			return norm(float64(int8(raw)), 127)
		}
		return uint32(int32(int8(raw)))
	case TexS16:
		if t.NormalizedFloat {
			return norm(float64(int16(raw)), 32767)
		}
		return uint32(int32(int16(raw)))
	}
	return raw
}

// address places texel index i of dimension k by the address mode; ok is
// false for the border.
func (t *Texture) address(k, i int) (int, bool) {
	n := t.size(k)
	if i >= 0 && i < n {
		return i, true
	}
	switch t.Address[k] {
	case TexWrap:
		return ((i % n) + n) % n, true
	case TexMirror:
		m := ((i % (2 * n)) + 2*n) % (2 * n)
		if m >= n {
			m = 2*n - 1 - m
		}
		return m, true
	case TexBorder:
		return 0, false
	}
	if i < 0 {
		return 0, true
	}
	return n - 1, true
}

// sample returns the components at coordinates x (unnormalized or
// normalized floats, per the texture) of layer l.
func (t *Texture) sample(x [3]float32, layer int) [4]uint32 {
	var u [3]float64
	for k := 0; k < t.Dims; k++ {
		u[k] = float64(x[k])
		if t.Normalized {
			u[k] *= float64(t.size(k))
		}
	}
	fetch := func(i [3]int) [4]uint32 {
		var p [3]int
		for k := 0; k < 3; k++ {
			p[k] = i[k]
			if k < t.Dims {
				var ok bool
				if p[k], ok = t.address(k, i[k]); !ok {
					return [4]uint32{}
				}
			}
		}
		v, _ := t.texel(p, layer)
		return v
	}
	if !t.Linear {
		var i [3]int
		for k := 0; k < t.Dims; k++ {
			i[k] = floorInt(u[k])
		}
		return fetch(i)
	}
	var base [3]int
	var a [3]float64
	for k := 0; k < t.Dims; k++ {
		xb := u[k] - 0.5
		fl := math.Floor(xb)
		base[k] = floorInt(xb)
		a[k] = math.Floor((xb-fl)*256+0.5) / 256
	}
	var sum [4]float64
	for corner := 0; corner < 1<<t.Dims; corner++ {
		wgt := 1.0
		var i [3]int
		for k := 0; k < t.Dims; k++ {
			i[k] = base[k]
			if corner>>k&1 == 1 {
				i[k]++
				wgt *= a[k]
			} else {
				wgt *= 1 - a[k]
			}
		}
		if wgt == 0 {
			continue
		}
		v := fetch(i)
		for c := 0; c < 4; c++ {
			sum[c] += wgt * float64(math.Float32frombits(v[c]))
		}
	}
	var r [4]uint32
	for c := range r {
		r[c] = math.Float32bits(float32(sum[c]))
	}
	return r
}

// gather returns TLD4's footprint: component comp of the four texels
// bilinear filtering at x reads, counter-clockwise from the lower left
// (i, j+1), (i+1, j+1), (i+1, j), (i, j).
func (t *Texture) gather(x [3]float32, layer, comp int) [4]uint32 {
	var base [2]int
	for k := 0; k < 2; k++ {
		u := float64(x[k])
		if t.Normalized {
			u *= float64(t.size(k))
		}
		base[k] = floorInt(u - 0.5)
	}
	offs := [4][2]int{{0, 1}, {1, 1}, {1, 0}, {0, 0}}
	var r [4]uint32
	for n, o := range offs {
		var p [3]int
		ok := true
		for k := 0; k < 2; k++ {
			if k < t.Dims {
				var in bool
				p[k], in = t.address(k, base[k]+o[k])
				ok = ok && in
			}
		}
		if ok {
			v, _ := t.texel(p, layer)
			r[n] = v[comp]
		}
	}
	return r
}

func floorInt(v float64) int {
	f := math.Floor(v)
	switch {
	case f < -1<<30:
		return -1 << 30
	case f > 1<<30:
		return 1 << 30
	case f != f:
		return 0
	}
	return int(f)
}

func init() {
	execTable[ori.OpTEX] = execTex
	execTable[ori.OpTLD] = execTex
	execTable[ori.OpTLD4] = execTex
	execTable[ori.OpTXQ] = execTex
}

// texDims returns the coordinate count and whether the instruction's
// dimension word (its last modifier) has an array layer.
func texDims(d *dinst) (n int, array bool, ok bool) {
	mods := d.in.Mods
	if _, masked := texWriteMask(d); masked {
		mods = mods[:len(mods)-1]
	}
	if len(mods) == 0 {
		return 0, false, false
	}
	switch mods[len(mods)-1] {
	case "1D":
		return 1, false, true
	case "2D":
		return 2, false, true
	case "3D":
		return 3, false, true
	case "ARRAY_1D":
		return 1, true, true
	case "ARRAY_2D":
		return 2, true, true
	case "TEX_HEADER_DIMENSION":
		return 0, false, true
	}
	return 0, false, false
}

// texWriteMask returns the narrowed write mask of a TEX, TLD or TLD4 (its
// last modifier, "0x1" .. "0xe", after the dimension: opt/texmask.go);
// ok is false for the whole result (mask 0xf, no modifier).
func texWriteMask(d *dinst) (mask uint32, ok bool) {
	mods := d.in.Mods
	if d.op == ori.OpTXQ || len(mods) < 2 {
		return 0xf, false
	}
	m := mods[len(mods)-1]
	v, err := strconv.ParseUint(strings.TrimPrefix(m, "0x"), 16, 8)
	if err != nil || !strings.HasPrefix(m, "0x") || v == 0 || v >= 0xf {
		return 0xf, false
	}
	return uint32(v), true
}

// execTex executes the texture instructions; lower/tex.go describes their
// operand layout.
func execTex(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	nc, array, ok := texDims(d)
	if !ok {
		return s.fault(w, f, d, mask, "%s has no dimension (1D, 2D, 3D, ARRAY_1D, ARRAY_2D)", d.in.Name())
	}
	bound := d.has("B")
	txq := d.op == ori.OpTXQ
	comp := 0
	if d.op == ori.OpTLD4 {
		// TLD4[.SCR].<R|G|B|A>[.B]: the component comes first, so a
		// second B is the bindless flag.
		mods := d.in.Mods
		at := 0
		if len(mods) > 0 && mods[0] == "SCR" {
			at = 1
		}
		if at >= len(mods) {
			return s.fault(w, f, d, mask, "%s names no component", d.in.Name())
		}
		comp = strings.Index("RGBA", mods[at])
		if comp < 0 || len(mods[at]) != 1 {
			return s.fault(w, f, d, mask, "%s names no component", d.in.Name())
		}
		bound = false
		for _, m := range mods[at+1:] {
			bound = bound || m == "B"
		}
	}
	n := nc // words in the coordinate list
	if array {
		n++
	}
	if bound {
		n++
	}
	if d.op == ori.OpTEX || txq {
		n++ // level of detail
	}
	var na int
	switch {
	case txq:
		na = n
	case d.has("SCR"):
		na = (n + 1) / 2
	default:
		na = nc
		if array {
			na++
		}
	}
	nsrc := 1
	if n > na {
		nsrc = 2
	}
	if len(d.src) < nsrc || len(d.dst) != 2 {
		return s.fault(w, f, d, mask, "%s has the wrong operand count", d.in.Name())
	}
	slot := -1
	var hreg *opnd // sm_90: the handle's uniform register pair
	if !bound {
		switch {
		case len(d.src) > nsrc && d.src[nsrc].kind == okReg && d.src[nsrc].uniform:
			hreg = &d.src[nsrc]
		case len(d.src) < nsrc+2 || d.src[nsrc+1].kind != okImm:
			return s.fault(w, f, d, mask, "%s names no header word", d.in.Name())
		default:
			slot = int(d.src[nsrc+1].imm)
		}
	}
	txqMask := uint32(0)
	if txq {
		last := d.src[len(d.src)-1]
		txqMask = uint32(last.imm)
	}
	wmask, _ := texWriteMask(d)
	eff := s.guardMask(w, f, d, mask)
	for lane := 0; lane < warpSize; lane++ {
		if eff&(1<<lane) == 0 {
			continue
		}
		list := make([]uint32, n)
		for i := 0; i < n; i++ {
			if i < na {
				list[i] = s.get(w, f, &d.src[0], lane, i)
			} else {
				list[i] = s.get(w, f, &d.src[1], lane, i-na)
			}
		}
		var handle uint32
		if bound {
			h := nc
			if array {
				h++
			}
			handle = list[h]
		} else if hreg != nil {
			handle = s.get(w, f, hreg, lane, 0)
		} else {
			handle = s.get(w, f, &opnd{kind: okCBank, bank: 0, imm: uint64(4 * slot)}, lane, 0)
		}
		if handle == 0 || int(handle) > len(s.launch.Textures) {
			if slot >= 0 {
				return s.faultLane(w, f, d, lane, "the texture header word c[0x0][%#x] holds %#x, which names no texture binding of the launch (%d bound): is the .texref bound in the spec?", 4*slot, handle, len(s.launch.Textures))
			}
			return s.faultLane(w, f, d, lane, "texture handle %#x names no texture binding of the launch (%d bound)", handle, len(s.launch.Textures))
		}
		t := s.launch.Textures[handle-1]
		var out [4]uint32
		if txq {
			k := 0
			for txqMask>>k&1 == 0 && k < 3 {
				k++
			}
			v := 1
			if k < t.Dims {
				v = t.size(k)
			}
			out[0] = uint32(v)
		} else {
			layer := 0
			cs := list
			if array {
				layer = int(list[0])
				if layer >= t.Layers {
					layer = t.Layers - 1
				}
				if layer < 0 {
					layer = 0
				}
				cs = list[1:]
			}
			switch d.op {
			case ori.OpTLD:
				var idx [3]int
				for k := 0; k < nc && k < 3; k++ {
					if k < t.Dims {
						idx[k] = int(int32(cs[k]))
					}
				}
				out, _ = t.texel(idx, layer)
			default:
				var x [3]float32
				for k := 0; k < nc; k++ {
					x[k] = math.Float32frombits(cs[k])
				}
				if d.op == ori.OpTLD4 {
					out = t.gather(x, layer, comp)
				} else {
					out = t.sample(x, layer)
				}
			}
		}
		if txq {
			// One result word: the queried dimension.
			s.set(w, f, &d.dst[1], lane, 0, out[0])
			continue
		}
		// The components the write mask selects, packed in order into Rd
		// (two words), then Rd2 (measured: ptxas's TEX ... 2D, 0xb puts
		// .x, .y in Rd and .w in Rd2).
		k := 0
		for comp := 0; comp < 4; comp++ {
			if wmask>>comp&1 == 0 {
				continue
			}
			if k < 2 {
				s.set(w, f, &d.dst[1], lane, k, out[comp])
			} else {
				s.set(w, f, &d.dst[0], lane, k-2, out[comp])
			}
			k++
		}
	}
	advance(f, mask)
	return nil
}

// checkTexture validates a binding before a launch.
func checkTexture(i int, t *Texture) error {
	if t.Dims < 1 || t.Dims > 3 {
		return fmt.Errorf("texture %d: %d dimensions", i, t.Dims)
	}
	if t.Channels != 1 && t.Channels != 2 && t.Channels != 4 {
		return fmt.Errorf("texture %d: %d channels (1, 2 or 4)", i, t.Channels)
	}
	if t.Width < 1 || t.Height < 1 || t.Depth < 1 || t.Layers < 0 {
		return fmt.Errorf("texture %d: empty extent %dx%dx%d", i, t.Width, t.Height, t.Depth)
	}
	t.chanBytes = TexChannelBytes[t.Channel]
	t.texelBytes = t.Channels * t.chanBytes
	if len(t.Data) < t.Bytes() {
		return fmt.Errorf("texture %d: %d bytes of data, the extent needs %d", i, len(t.Data), t.Bytes())
	}
	return nil
}
