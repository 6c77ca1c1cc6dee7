package lower

import (
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// Texture fetches and queries: tex, tld4 and txq, lowered to the sm_80
// forms ptxas 13.0 emits (probed with `ptxas -arch sm_80` and
// `cuobjdump -sass`):
//
//	tex.2d.v4.f32.f32 d, [tref, {x, y}]   TEX.SCR.LL Rd2, Rd, Ra, Rb, 0x0, 0x5c, 2D
//	tex.2d.v4.s32.s32 d, [%rd, {x, y}]    TLD.SCR.B.LZ Rd2, Rd, Ra, Rb, 2D
//	tld4.r.2d.v4.f32.f32 d, [tref, {x,y}] TLD4.SCR.R Rd2, Rd, Ra, Rb, 0x0, 0x5f, 2D
//	txq.width.b32 r, [tref]               TXQ Rd2, Rd, Ra, TEX_HEADER_DIMENSION, 0x0, 0x5f, 0x1
//
// f32 coordinates give TEX with an explicit level of detail (LL, the
// constant -32.0, which selects level 0); s32 coordinates give TLD at
// level zero (LZ). The four results come back in two register pairs,
// Rd (components 0 and 1) and Rd2 (2 and 3); SASS prints Rd2 first.
//
// Where the texture comes from:
//   - a .texref: the driver writes the texture's header index into a word
//     of constant bank 0 after the kernel's parameters, one word per
//     texref in the order the kernel first uses them (tB at 0x178 and tA
//     at 0x17c when tB's fetch comes first), and the instruction names
//     that word by its index ("0x0, 0x5f": bank 0, word 0x5f = byte 0x17c).
//     The Ori function records the placement in Func.TexRefs.
//   - a texture object held in a register: the bindless form (.B), whose
//     handle is the first register after the coordinates. A handle every
//     definition of which is ld.param of a kernel parameter is read from
//     the parameter's own bank-0 word instead, as ptxas does.
//
// The coordinate list, in order, is: the array index (a1d, a2d; clamped to
// 0xffff with ISETP and SEL as ptxas does), the coordinates, the handle
// (bindless), the level of detail (TEX). With up to four words the list is
// split between two operands, the first ceil(n/2) words in Ra and the rest
// in Rb (.SCR); with five (a bindless 3D or a2d TEX) Ra holds the index
// and coordinates and Rb the handle and level, without .SCR. tex.1d with
// f32 coordinates is fetched as 2D with y = 0, as ptxas does; the texture
// header, not the instruction, says the texture is one-dimensional.
//
// The dimension (1D, 2D, 3D, ARRAY_1D, ARRAY_2D) is kept as the last
// modifier in Ori and printed as the last operand in SASS text
// (pipeline/sass/tex.go); TXQ keeps its query the same way.
//
// Known limits:
//   - cube and acube geometries, multisample, mipmap forms (.level,
//     .grad, .base), offsets, depth compare and the sparse predicate
//     result are "unsupported".
//   - On sm_90 the handle travels in a uniform register pair (texSM90);
//     a handle held in an ordinary register is "unsupported" there.
//   - The lowering fetches all four components; opt/texmask.go narrows
//     the result mask to the components the program reads later, as
//     ptxas does (TEX.SCR.LL RZ, R0, ..., 2D, 0x1).
//   - Independent texturing mode (a separate .samplerref operand) and
//     txq queries other than width, height and depth are "unsupported".

func init() {
	register(lowerTex, "tex", "tld4")
	register(lowerTxq, "txq")
}

// texLOD is the level of detail ptxas passes to TEX.LL: -32.0, below
// every level, which clamps to level 0.
const texLOD = 0xc2000000

// texGeom describes one PTX geometry.
type texGeom struct {
	coords int    // coordinate words read from the vector (without the array index)
	array  bool   // the vector starts with an array index
	dim    string // SASS dimension word
}

var texGeoms = map[string]texGeom{
	".1d":  {1, false, "1D"},
	".2d":  {2, false, "2D"},
	".3d":  {3, false, "3D"},
	".a1d": {1, true, "ARRAY_1D"},
	".a2d": {2, true, "ARRAY_2D"},
}

// texSource is where a fetch's texture header comes from.
type texSource struct {
	slot   int64   // bank-0 word index (not bindless)
	handle ori.Reg // bindless: the handle word
	bound  bool    // bindless
}

func lowerTex(c *fn, in *ptx.Instr) error {
	full := in.Op + strings.Join(in.Mods, "")
	var g texGeom
	haveGeom := false
	comp := ""
	var dtype, ctype string
	for _, m := range in.Mods {
		switch m {
		case ".v4":
		case ".r", ".g", ".b", ".a":
			if in.Op != "tld4" {
				return c.l.unsupported(in.OpPos, "%s", full)
			}
			comp = strings.ToUpper(m[1:])
		case ".f32", ".s32", ".u32":
			if dtype == "" {
				dtype = m
			} else if ctype == "" {
				ctype = m
			} else {
				return c.l.unsupported(in.OpPos, "%s", full)
			}
		default:
			gg, ok := texGeoms[m]
			if !ok || haveGeom {
				return c.l.unsupported(in.OpPos, "%s (only the 1d, 2d, 3d, a1d and a2d geometries with .v4 results are lowered)", full)
			}
			g, haveGeom = gg, true
		}
	}
	if !haveGeom || !in.HasMod(".v4") || ctype == "" || (in.Op == "tld4" && (comp == "" || ctype != ".f32" || g.dim != "2D")) {
		return c.l.unsupported(in.OpPos, "%s", full)
	}
	if len(in.Args) != 2 || in.Args[1].Kind != ptx.OpAddr {
		return c.l.unsupported(in.OpPos, "%s with other than a destination vector and [texture, {coordinates}]", full)
	}
	addr := in.Args[1]
	if len(addr.Elems) != 2 {
		return c.l.unsupported(addr.Pos, "%s with a separate sampler (independent texturing mode)", full)
	}
	dregs, err := c.destRegs(in.Args[0], dtype, 4)
	if err != nil {
		return err
	}
	src, err := c.texSource(in, addr.Elems[0])
	if err != nil {
		return err
	}
	// The coordinate vector: index and coordinates, padded in PTX to a
	// power of two (3d and a2d carry a fourth, ignored element).
	cv := addr.Elems[1]
	var celems []*ptx.Operand
	if cv.Kind == ptx.OpVec {
		celems = cv.Elems
	} else {
		celems = []*ptx.Operand{cv}
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
		t := ctype
		if g.array && i == 0 {
			t = ".u32"
		}
		o, err := c.src(celems[i], t)
		if err != nil {
			return err
		}
		if g.array && i == 0 {
			// ptxas clamps the layer to the 16 bits the header has.
			p := c.newPred()
			c.emit(ori.OpISETP, []string{"GT", "U32", "AND"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, o, ori.Imm(0xffff), ori.R(ori.PT))
			r := c.newReg(1)
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(r)}, o, ori.Imm(0xffff), ori.Operand{Kind: ori.OpdReg, Reg: p, Not: true})
			o = ori.R(r)
		}
		list = append(list, o)
	}
	op := ori.OpTEX
	dim := g.dim
	switch {
	case in.Op == "tld4":
		op = ori.OpTLD4
	case ctype == ".s32":
		op = ori.OpTLD
	case g.dim == "1D":
		// ptxas fetches tex.1d with f32 coordinates as 2D at y = 0.
		dim = "2D"
		list = append(list, ori.Imm(0))
	}
	if c.l.out.Arch >= 90 {
		return c.texSM90(in, op, comp, dim, list, src, dregs)
	}
	if src.bound {
		list = append(list, ori.R(src.handle))
	}
	if op == ori.OpTEX {
		list = append(list, ori.Imm(texLOD))
	}
	var mods []string
	na := (len(list) + 1) / 2
	if len(list) <= 4 {
		mods = append(mods, "SCR")
	} else {
		na = need
		if dim == "2D" && g.dim == "1D" {
			na++
		}
	}
	switch op {
	case ori.OpTLD4:
		mods = append(mods, comp)
		if src.bound {
			mods = append(mods, "B")
		}
	case ori.OpTEX:
		if src.bound {
			mods = append(mods, "B")
		}
		mods = append(mods, "LL")
	case ori.OpTLD:
		if src.bound {
			mods = append(mods, "B")
		}
		mods = append(mods, "LZ")
	}
	mods = append(mods, dim)
	srcs := []ori.Operand{c.texTuple(list[:na])}
	if len(list) > na {
		srcs = append(srcs, c.texTuple(list[na:]))
	}
	if !src.bound {
		srcs = append(srcs, ori.Imm(0), ori.Imm(src.slot))
	}
	lo, hi := c.newReg(2), c.newReg(2)
	c.emit(op, mods, []ori.Operand{ori.R(hi), ori.R(lo)}, srcs...)
	for i, d := range dregs {
		w := lo.Word(i)
		if i >= 2 {
			w = hi.Word(i - 2)
		}
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, ori.R(w))
	}
	return nil
}

// texTuple copies operands into a fresh register tuple (one word: the
// register itself when it is one). Three words travel in a four-word
// tuple, whose last word is zero: tuples are 1, 2 or 4 aligned words
// (ptxas also puts x, y, z in R12..R14 of an aligned quad).
func (c *fn) texTuple(ops []ori.Operand) ori.Operand {
	if len(ops) == 1 && ops[0].Kind == ori.OpdReg && !ops[0].Neg && !ops[0].Abs && !ops[0].Not && ops[0].Reg.Words == 1 {
		return ops[0]
	}
	if len(ops) == 3 {
		ops = append(ops[:3:3], ori.R(ori.RZ))
	}
	t := c.newReg(len(ops))
	for i, o := range ops {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(t.Word(i))}, o)
	}
	return ori.R(t)
}

// lowerTxq lowers txq.{width,height,depth}.b32 d, [t] to TXQ with the
// TEX_HEADER_DIMENSION query at level 0 and the component mask that picks
// the dimension (0x1, 0x2, 0x4), as ptxas does.
func lowerTxq(c *fn, in *ptx.Instr) error {
	full := in.Op + strings.Join(in.Mods, "")
	mask := int64(0)
	for _, m := range in.Mods {
		switch m {
		case ".width":
			mask = 1
		case ".height":
			mask = 2
		case ".depth":
			mask = 4
		case ".b32":
		default:
			return c.l.unsupported(in.OpPos, "%s (only the width, height and depth queries are lowered)", full)
		}
	}
	if mask == 0 || len(in.Args) != 2 || in.Args[1].Kind != ptx.OpAddr || len(in.Args[1].Elems) != 1 {
		return c.l.unsupported(in.OpPos, "%s", full)
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	src, err := c.texSource(in, in.Args[1].Elems[0])
	if err != nil {
		return err
	}
	if c.l.out.Arch >= 90 {
		h, err := c.texHandleUR(in, src)
		if err != nil {
			return err
		}
		lod := c.newReg(1)
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(lod)}, ori.R(ori.RZ))
		r := c.newReg(1)
		c.emit(ori.OpTXQ, []string{"TEX_HEADER_DIMENSION"}, []ori.Operand{ori.R(ori.RZ), ori.R(r)}, ori.R(lod), h, ori.Imm(0), ori.Imm(mask))
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, ori.R(r))
		return nil
	}
	var srcs []ori.Operand
	mods := []string{}
	if src.bound {
		mods = append(mods, "B")
		srcs = append(srcs, c.texTuple([]ori.Operand{ori.R(src.handle), ori.R(ori.RZ)}))
	} else {
		lod := c.newReg(1)
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(lod)}, ori.R(ori.RZ))
		srcs = append(srcs, ori.R(lod))
	}
	mods = append(mods, "TEX_HEADER_DIMENSION")
	if !src.bound {
		srcs = append(srcs, ori.Imm(0), ori.Imm(src.slot))
	}
	srcs = append(srcs, ori.Imm(mask))
	r := c.newReg(1)
	c.emit(ori.OpTXQ, mods, []ori.Operand{ori.R(ori.RZ), ori.R(r)}, srcs...)
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, ori.R(r))
	return nil
}

// texSource resolves the texture operand of in: a .texref name (given a
// bank-0 word of the kernel), a texture-object register whose every
// definition loads one kernel parameter (that parameter's word), or any
// other register (bindless, the low word of the handle).
func (c *fn) texSource(in *ptx.Instr, o *ptx.Operand) (texSource, error) {
	if o.Kind != ptx.OpName {
		return texSource{}, c.l.errorf(o.Pos, "%s needs a .texref or a texture-object register", in.Op)
	}
	if _, reg, ok := c.reg(o); ok {
		if p := c.paramHandle(in, o.Name); p != nil {
			return texSource{slot: p.Offset / 4}, nil
		}
		return texSource{handle: reg.Word(0).Wide(1), bound: true}, nil
	}
	surf := strings.HasPrefix(in.Op, "su")
	switch k := c.l.texKind(o.Name); {
	case k == ".texref" && !surf, k == ".surfref" && surf:
	case k == ".texref", k == ".surfref", k == ".samplerref":
		return texSource{}, c.l.errorf(o.Pos, "%s cannot read the %s %s", in.Op, k, o.Name)
	default:
		return texSource{}, c.l.errorf(o.Pos, "%s is not a .texref or a register", o.Name)
	}
	if lay := c.l.texLayout(); lay.shared != nil {
		return texSource{slot: lay.shared[o.Name] / 4}, nil
	}
	for _, t := range c.f.TexRefs {
		if t.Name == o.Name {
			return texSource{slot: t.Offset / 4}, nil
		}
	}
	off := (paramEnd(c.f)+3)&^3 + 4*int64(len(c.f.TexRefs))
	c.f.TexRefs = append(c.f.TexRefs, ori.TexRef{Name: o.Name, Offset: off})
	return texSource{slot: off / 4}, nil
}

// texLayout says where a module's .texref (and .surfref) header words go.
//
// Decision: when a .func fetches through a .texref, every kernel of the
// module places every .texref's word at one module-wide offset (after the
// largest kernel parameter area, in declaration order), and lists them
// all in Func.TexRefs. ptxas instead clones such a function into each
// kernel that calls it and gives each copy its kernel's own offsets
// (probed: f reads c[0x0][0x16c] in k4 and c[0x0][0x180] in k5);
// orilab compiles one body per .func, which needs one offset. Modules
// whose .texrefs only kernels use keep ptxas's per-kernel placement.
type texLayout struct {
	shared map[string]int64 // nil: per-kernel placement
	order  []string         // the module's .texrefs in declaration order
}

func (l *lowerer) texLayout() *texLayout {
	if l.texL != nil {
		return l.texL
	}
	lay := &texLayout{}
	l.texL = lay
	refs := map[string]bool{}
	for _, it := range l.m.Items {
		if v, ok := it.(*ptx.VarDecl); ok && (v.Type == ".texref" || v.Type == ".surfref" || v.Space == ".tex") {
			for _, n := range v.Names {
				refs[n.Name] = true
				lay.order = append(lay.order, n.Name)
			}
		}
	}
	inFunc := false
	var base int64
	for _, it := range l.m.Items {
		f, ok := it.(*ptx.Func)
		if !ok || f.Body == nil {
			continue
		}
		if f.Entry {
			off := ParamBase(l.out.Arch)
			for _, p := range f.Params {
				n := p.Names[0]
				size, align := declSize(p, n), declAlign(p)
				if align < 4 && size >= 4 {
					align = 4
				}
				off = alignUp(off, align) + size
			}
			if off > base {
				base = off
			}
			continue
		}
		walkInstrs(f.Body, func(in *ptx.Instr) {
			for _, a := range in.Args {
				if a.Kind == ptx.OpAddr && len(a.Elems) > 0 && refs[a.Elems[0].Name] {
					switch in.Op {
					case "tex", "tld4", "txq", "suld", "sust", "suq":
						inFunc = true
					}
				}
			}
		})
	}
	if !inFunc {
		return lay
	}
	lay.shared = map[string]int64{}
	base = (base + 3) &^ 3
	for i, n := range lay.order {
		lay.shared[n] = base + 4*int64(i)
	}
	return lay
}

// walkInstrs calls f for every instruction of b, nested blocks included.
func walkInstrs(b *ptx.Block, f func(*ptx.Instr)) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			walkInstrs(s, f)
		case *ptx.Instr:
			f(s)
		}
	}
}

// kernelTexRefs gives a kernel every .texref word of a module-wide
// layout, for the functions it may call (texLayout).
func (c *fn) kernelTexRefs() {
	lay := c.l.texLayout()
	if lay.shared == nil || !c.f.Entry {
		return
	}
	for _, n := range lay.order {
		c.f.TexRefs = append(c.f.TexRefs, ori.TexRef{Name: n, Offset: lay.shared[n]})
	}
}

// paramEnd is the first bank-0 byte after the kernel's parameters.
func paramEnd(f *ori.Func) int64 {
	var end int64
	for _, p := range f.Params {
		if e := p.Offset + p.Size; e > end {
			end = e
		}
	}
	return end
}

// paramHandle returns the kernel parameter that every definition of the
// 64-bit register name reaching in loads whole (ld.param.u64/.b64 of
// [param]), or nil.
func (c *fn) paramHandle(in *ptx.Instr, name string) *ori.Param {
	if !c.f.Entry {
		return nil
	}
	var param string
	ok := c.allReachingDefs(in, name, func(d *ptx.Instr) bool {
		if d.Op != "ld" || !d.HasMod(".param") || len(d.Args) != 2 || d.Guard != nil {
			return false
		}
		if !d.HasMod(".u64") && !d.HasMod(".b64") && !d.HasMod(".s64") {
			return false
		}
		a := d.Args[1]
		if a.Kind != ptx.OpAddr || len(a.Elems) != 1 || a.Elems[0].Kind != ptx.OpName || a.Elems[0].Off != 0 {
			return false
		}
		if param != "" && param != a.Elems[0].Name {
			return false
		}
		param = a.Elems[0].Name
		return true
	})
	if !ok {
		return nil
	}
	for i := range c.f.Params {
		if c.f.Params[i].Name == param && c.f.Params[i].Size == 8 {
			return &c.f.Params[i]
		}
	}
	return nil
}

// texKind returns the type (.texref, .samplerref, .surfref) of the
// module-scope variable name, or "". A variable of the old .tex state
// space (".tex .u64 tex;", PTX 1.x) is a .texref.
func (l *lowerer) texKind(name string) string {
	for _, it := range l.m.Items {
		if v, ok := it.(*ptx.VarDecl); ok {
			if v.Space == ".tex" {
				for _, n := range v.Names {
					if n.Name == name {
						return ".texref"
					}
				}
			}
			switch v.Type {
			case ".texref", ".samplerref", ".surfref":
				for _, n := range v.Names {
					if n.Name == name {
						return v.Type
					}
				}
			}
		}
	}
	return ""
}

// texSM90 emits the sm_90 form (probed with ptxas 13.0 -arch sm_90):
// the texture's handle travels in a uniform register pair (the header
// word loaded with ULDC, the high word zero), followed by 0x0; Ra holds
// the array index and coordinates, Rb the level of detail of TEX; there
// is no .SCR split and no .B form:
//
//	TEX.LL R6, R4, R22, R0, UR4, 0x0, 2D
//	TLD.LZ R14, R12, R12, UR6, 0x0, ARRAY_2D
//	TLD4.G R26, R24, R16, UR4, 0x0, 2D
//	TXQ RZ, R2, R2, TEX_HEADER_DIMENSION, UR6, 0x0, 0x1
func (c *fn) texSM90(in *ptx.Instr, op ori.Opcode, comp, dim string, list []ori.Operand, src texSource, dregs []ori.Reg) error {
	h, err := c.texHandleUR(in, src)
	if err != nil {
		return err
	}
	var mods []string
	switch op {
	case ori.OpTLD4:
		mods = append(mods, comp)
	case ori.OpTEX:
		mods = append(mods, "LL")
	case ori.OpTLD:
		mods = append(mods, "LZ")
	}
	mods = append(mods, dim)
	srcs := []ori.Operand{c.texTuple(list)}
	if op == ori.OpTEX {
		srcs = append(srcs, c.texTuple([]ori.Operand{ori.Imm(texLOD)}))
	}
	srcs = append(srcs, h, ori.Imm(0))
	lo, hi := c.newReg(2), c.newReg(2)
	c.emit(op, mods, []ori.Operand{ori.R(hi), ori.R(lo)}, srcs...)
	for i, d := range dregs {
		w := lo.Word(i)
		if i >= 2 {
			w = hi.Word(i - 2)
		}
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, ori.R(w))
	}
	return nil
}

// texHandleUR loads a texture's header word into a uniform register pair
// for the sm_90 forms. A handle held in an ordinary register would need
// R2UR (and a loop over the distinct handles of a warp, where they
// differ), which orilab does not have.
func (c *fn) texHandleUR(in *ptx.Instr, src texSource) (ori.Operand, error) {
	if src.bound {
		return ori.Operand{}, c.l.unsupported(in.OpPos, "%s through a texture handle held in a register on sm_90 (ptxas moves it to a uniform register with R2UR)", in.Op)
	}
	u := c.f.NewVReg(ori.ClassUR, 2)
	c.emit(ori.OpULDC, nil, []ori.Operand{ori.R(u.Word(0))}, ori.CBank(0, 4*src.slot))
	c.emit(ori.OpUMOV, nil, []ori.Operand{ori.R(u.Word(1))}, ori.R(ori.URZ))
	return ori.R(u), nil
}
