package lower

import (
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// Unformatted surface loads and stores, suld.b and sust.b, and suq,
// lowered to ptxas 13.0's sm_80 forms (probed with cuobjdump -sass):
//
//	suld.b.2d.v4.b32.trap d, [sref, {x, y}]   SULD.D.BA.2D.128.STRONG.SM.TRAP Rd, [Ra], 0x0, 0x5e
//	suld.b.2d.b32.trap d, [%rd, {x, y}]       SULD.D.BA.2D.STRONG.SM.TRAP Rd, [Ra], Rh
//	sust.b.1d.b8.trap [sref, {x}], r          SUST.D.BA.1D.U8.STRONG.SM.TRAP [Ra], Rs, 0x0, 0x5e
//	suq.width.b32 d, [sref]                   TXQ RZ, Rd, Ra, TEX_HEADER_DIMENSION, 0x0, 0x5e, 0x1
//
// The size modifier is the access size (U8, U16, none for 32 bits, 64,
// 128); the out-of-bounds mode is none for .clamp, TRAP for .trap and IGN
// for .zero. Ra holds the coordinates, x (in bytes) first, then y, z and,
// for a1d and a2d, the layer last (1D_ARRAY, 2D_ARRAY). A .surfref's
// header word is placed like a .texref's (tex.go); a handle every
// definition of which loads a kernel parameter reads that parameter's
// word; any other handle is a register after the data.
//
// On sm_90 the header word travels in a uniform register instead
// ("SULD.D.BA.2D.STRONG.SM.TRAP R8, [R8], UR4, 0x0"); a handle held in an
// ordinary register is "unsupported" there, as for textures.
//
// Known limits: formatted access (suld.p, sust.p), sured, and vectors of
// b8 and b16 (whose elements ptxas unpacks from one word) are not
// lowered.

func init() {
	register(lowerSurface, "suld", "sust")
	register(lowerSuq, "suq")
}

// surfGeoms maps a PTX geometry to its coordinate count, array flag and
// SASS dimension.
var surfGeoms = map[string]texGeom{
	".1d":  {1, false, "1D"},
	".2d":  {2, false, "2D"},
	".3d":  {3, false, "3D"},
	".a1d": {1, true, "1D_ARRAY"},
	".a2d": {2, true, "2D_ARRAY"},
}

func lowerSurface(c *fn, in *ptx.Instr) error {
	full := in.Op + strings.Join(in.Mods, "")
	st := in.Op == "sust"
	var g texGeom
	haveGeom := false
	vec, bits := 1, 0
	mode := ""
	for _, m := range in.Mods {
		switch m {
		case ".b":
		case ".v2":
			vec = 2
		case ".v4":
			vec = 4
		case ".b8", ".b16", ".b32", ".b64":
			bits = typeBits(m)
		case ".clamp":
			mode = ""
		case ".trap":
			mode = "TRAP"
		case ".zero":
			mode = "IGN"
		case ".ca", ".cg", ".cs", ".cv", ".wb", ".wt":
			// Cache hints: ptxas spells every suld/sust .STRONG.SM.
		default:
			gg, ok := surfGeoms[m]
			if !ok || haveGeom {
				return c.l.unsupported(in.OpPos, "%s (only unformatted .b access is lowered)", full)
			}
			g, haveGeom = gg, true
		}
	}
	if !haveGeom || bits == 0 || !in.HasMod(".b") || (vec > 1 && bits < 32) || vec*bits > 128 {
		return c.l.unsupported(in.OpPos, "%s", full)
	}
	addrArg, dataArg := in.Args[1], in.Args[0]
	if st {
		addrArg, dataArg = in.Args[0], in.Args[1]
	}
	if len(in.Args) != 2 || addrArg.Kind != ptx.OpAddr || len(addrArg.Elems) != 2 {
		return c.l.unsupported(in.OpPos, "%s with other than [surface, {coordinates}] and data", full)
	}
	src, err := c.texSource(in, addrArg.Elems[0])
	if err != nil {
		return err
	}
	cv := addrArg.Elems[1]
	celems := []*ptx.Operand{cv}
	if cv.Kind == ptx.OpVec {
		celems = cv.Elems
	}
	need := g.coords
	if g.array {
		need++
	}
	if len(celems) < need {
		return c.l.errorf(cv.Pos, "%s takes %d coordinate elements, the vector has %d", full, need, len(celems))
	}
	var list []ori.Operand
	for i := 0; i < need; i++ {
		o, err := c.src(celems[i], ".b32")
		if err != nil {
			return err
		}
		list = append(list, o)
	}
	if g.array {
		// The layer comes last in Ra.
		list = append(list[1:], list[0])
	}
	mods := []string{"D", "BA", g.dim}
	switch vec * bits {
	case 8:
		mods = append(mods, "U8")
	case 16:
		mods = append(mods, "U16")
	case 64:
		mods = append(mods, "64")
	case 128:
		mods = append(mods, "128")
	}
	mods = append(mods, "STRONG", "SM")
	if mode != "" {
		mods = append(mods, mode)
	}
	addr := c.texTuple(list)
	var tail []ori.Operand
	switch {
	case c.l.out.Arch >= 90:
		// sm_90: the header word in one uniform register, then 0x0
		// ("SULD.D.BA.1D.U8.STRONG.SM R0, [R0], UR5, 0x0").
		if src.bound {
			return c.l.unsupported(in.OpPos, "%s through a surface handle held in a register on sm_90 (ptxas moves it to a uniform register with R2UR)", in.Op)
		}
		u := c.f.NewVReg(ori.ClassUR, 1)
		c.emit(ori.OpULDC, nil, []ori.Operand{ori.R(u)}, ori.CBank(0, 4*src.slot))
		tail = []ori.Operand{ori.R(u), ori.Imm(0)}
	case src.bound:
		tail = []ori.Operand{ori.R(src.handle)}
	default:
		tail = []ori.Operand{ori.Imm(0), ori.Imm(src.slot)}
	}
	words := (vec*bits + 31) / 32
	ew := (bits + 31) / 32 // words per element
	t := ".b32"
	if bits == 64 {
		t = ".b64"
	} else if bits < 32 {
		t = typeName(bits)
	}
	regs, err := c.destRegs(dataArg, t, vec)
	if err != nil {
		return err
	}
	data := c.newReg(words)
	if st {
		for i, r := range regs {
			if bits < 32 {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(data)}, ori.R(r.Word(0)))
				continue
			}
			c.mov(data.Word(i*ew), ori.R(r), ew)
		}
		c.emit(ori.OpSUST, mods, nil, append([]ori.Operand{addr, ori.R(data)}, tail...)...)
		return nil
	}
	c.emit(ori.OpSULD, mods, []ori.Operand{ori.R(data)}, append([]ori.Operand{addr}, tail...)...)
	for i, r := range regs {
		if bits < 32 {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.R(data))
			continue
		}
		c.mov(r, ori.R(data.Word(i*ew)), ew)
	}
	return nil
}

// typeName is the .bN type of a width.
func typeName(bits int) string {
	switch bits {
	case 8:
		return ".b8"
	case 16:
		return ".b16"
	}
	return ".b32"
}

// lowerSuq lowers suq.{width,height,depth}.b32 like txq: ptxas emits the
// same TXQ for both.
func lowerSuq(c *fn, in *ptx.Instr) error {
	return lowerTxq(c, in)
}
