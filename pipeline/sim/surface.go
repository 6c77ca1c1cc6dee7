package sim

import (
	"orilab/pipeline/ori"
)

// Surface loads and stores: SULD and SUST (the unformatted .b forms of
// suld and sust, pipeline/lower/surface.go) over the launch's bindings,
// the same Texture values textures use: a handle names a binding for
// either. The coordinates are x in bytes, then y, z, then the layer for
// the array forms. An access of n bytes at x reads or writes bytes x to
// x+n-1 of row (y, z, layer), whose texels are laid out as a texture's.
//
// Out-of-bounds accesses follow the instruction's mode (PTX's .clamp,
// .trap, .zero): TRAP faults, IGN loads zeros and drops stores, and the
// default (clamp) moves each coordinate to the nearest in-bounds
// position, x to [0, row bytes - n] and the layer to the last layer.
//
// Decision (unmeasured): an x that is not a multiple of the access size
// is a fault, naming the coordinate; PTX calls the behaviour undefined
// ("may fault").

func init() {
	execTable[ori.OpSULD] = execSurface
	execTable[ori.OpSUST] = execSurface
}

func execSurface(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	st := d.op == ori.OpSUST
	nc, array := 0, false
	size := 4
	mode := ""
	for _, m := range d.in.Mods {
		switch m {
		case "1D":
			nc = 1
		case "2D":
			nc = 2
		case "3D":
			nc = 3
		case "1D_ARRAY":
			nc, array = 1, true
		case "2D_ARRAY":
			nc, array = 2, true
		case "U8":
			size = 1
		case "U16":
			size = 2
		case "64":
			size = 8
		case "128":
			size = 16
		case "TRAP", "IGN":
			mode = m
		}
	}
	if nc == 0 {
		return s.fault(w, f, d, mask, "%s has no dimension", d.in.Name())
	}
	first := 1 // the operand after the coordinates
	if st {
		first = 2
	}
	if len(d.src) < first+1 {
		return s.fault(w, f, d, mask, "%s has the wrong operand count", d.in.Name())
	}
	// The header word's index (0x0, slot), or the handle in a register
	// (bindless on sm_80, a uniform register on sm_90).
	slot := -1
	if d.src[first].kind == okImm {
		if len(d.src) < first+2 {
			return s.fault(w, f, d, mask, "%s names no header word", d.in.Name())
		}
		slot = int(d.src[first+1].imm)
	}
	eff := s.guardMask(w, f, d, mask)
	for lane := 0; lane < warpSize; lane++ {
		if eff&(1<<lane) == 0 {
			continue
		}
		var handle uint32
		if slot >= 0 {
			handle = s.get(w, f, &opnd{kind: okCBank, bank: 0, imm: uint64(4 * slot)}, lane, 0)
		} else {
			handle = s.get(w, f, &d.src[first], lane, 0)
		}
		if handle == 0 || int(handle) > len(s.launch.Textures) {
			return s.faultLane(w, f, d, lane, "surface handle %#x names no binding of the launch (%d bound)", handle, len(s.launch.Textures))
		}
		t := s.launch.Textures[handle-1]
		var co [3]int
		for k := 0; k < nc; k++ {
			co[k] = int(int32(s.get(w, f, &d.src[0], lane, k)))
		}
		layer := 0
		if array {
			layer = int(s.get(w, f, &d.src[0], lane, nc))
		}
		if co[0]%size != 0 {
			return s.faultLane(w, f, d, lane, "surface byte coordinate x = %d is not a multiple of the %d-byte access", co[0], size)
		}
		row := t.Width * t.texelBytes
		lim := [3]int{row - size + 1, 1, 1}
		for k := 1; k < 3; k++ {
			if k < t.Dims {
				lim[k] = t.size(k)
			}
		}
		layers := t.Layers
		if layers == 0 {
			layers = 1
		}
		in := layer >= 0 && layer < layers
		for k := 0; k < 3; k++ {
			in = in && co[k] >= 0 && co[k] < lim[k]
		}
		if !in {
			switch mode {
			case "TRAP":
				return s.faultLane(w, f, d, lane, "surface access out of bounds at (%d, %d, %d) layer %d (a %d-byte access; %d bytes per row, %d rows, depth %d, %d layers)", co[0], co[1], co[2], layer, size, row, t.Height, t.Depth, layers)
			case "IGN":
				if !st {
					for i := 0; i < (size+3)/4; i++ {
						s.set(w, f, &d.dst[0], lane, i, 0)
					}
				}
				continue
			}
			for k := 0; k < 3; k++ {
				co[k] = max(0, min(co[k], lim[k]-1))
			}
			co[0] -= co[0] % size
			layer = max(0, min(layer, layers-1))
		}
		off := ((layer*t.Depth+co[2])*t.Height+co[1])*row + co[0]
		b := t.Data[off : off+size]
		if st {
			for i := 0; i < size; i += 4 {
				v := s.get(w, f, &d.src[1], lane, i/4)
				n := min(4, size-i)
				putLE(b[i:], uint64(v), n)
			}
			continue
		}
		for i := 0; i < size; i += 4 {
			n := min(4, size-i)
			s.set(w, f, &d.dst[0], lane, i/4, uint32(le(b[i:], n)))
		}
	}
	advance(f, mask)
	return nil
}
