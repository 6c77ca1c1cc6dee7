package opt

// LateArchOptimizeFirst (phase 83): fetch only the texture components
// the program reads.
//
// The lowering (lower/tex.go) gives every TEX, TLD and TLD4 two fresh
// register pairs, Rd (components 0 and 1) and Rd2 (2 and 3), with the
// implicit write mask 0xf. A texture fetch usually feeds one component
// (bicubicTexture's sixteen fetches read only .x), yet the allocator must
// give each fetch four registers, live from the fetch to its last read.
// ptxas 13.0.88 narrows the mask instead and packs the components it
// keeps into consecutive result registers, Rd first, then Rd2 (measured
// with `ptxas -arch sm_80` on tex.2d.v4.u32.f32 reading one or more of
// the four results):
//
//	reads .y        TEX.SCR.LL RZ, R5, R4, R0, 0x0, 0x5b, 2D, 0x2
//	reads .x, .z    TEX.SCR.LL RZ, R4, R4, R0, 0x0, 0x5b, 2D, 0x5    (.x R4, .z R5)
//	reads .x .y .w  TEX.SCR.LL R7, R4, R4, R7, 0x0, 0x5b, 2D, 0xb    (.w R7)
//	tex.1d s32, .z  TLD.SCR.LZ RZ, R5, R5, 0x0, 0x5b, 1D, 0x4
//	tld4.r, .y      TLD4.SCR.R RZ, R5, R5, R5, 0x0, 0x5b, 2D, 0x2
//
// This pass does the same. For a fetch whose result pairs are each
// defined by it alone and read one word at a time, with S the components
// read (neither empty nor all four):
//
//	TEX.SCR.LL.2D %r60.64, %r59.64 = %r57.64, %r58, 0x0, 0x61     ==>   TEX.SCR.LL.2D.0x1 RZ, %r400 = %r57.64, %r58, 0x0, 0x61
//	FMUL %r295 = %r273, %r59                                              FMUL %r295 = %r273, %r400
//
// the k-th component of S (in order) goes to word k of a fresh register
// of min(|S|, 2) words in Rd, the rest to a fresh one-word Rd2 (RZ when
// |S| <= 2), and the mask S becomes the instruction's last modifier,
// spelled as nvdisasm prints the operand ("0x1" .. "0xe"; the encoder's
// field at bits 72-75, sass/forms.go). A fetch nothing reads stays as it
// is (dead code is the dead-code pass's business), as does one a
// multi-word read or a second definition touches.
//
// Knob: DisableTexMaskNarrowing switches it off. Each fetch is one site.

import (
	"fmt"
	"math/bits"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableTexMaskNarrowing", Type: knobs.TypeBool,
		Doc:     "Switch off narrowing the write mask of TEX, TLD and TLD4 to the components the program reads (phase LateArchOptimizeFirst).",
		Readers: []string{"LateArchOptimizeFirst"}})
}

// NarrowTexMasks is the texture-mask part of LateArchOptimizeFirst.
var NarrowTexMasks = Pass{
	Run:  narrowTexMasks,
	NoOp: offBy("DisableTexMaskNarrowing"),
}

// TexMaskMod reports whether modifier m is a texture write mask as this
// pass spells it ("0x1" .. "0xe"); 0xf, the whole result, has no
// modifier.
func TexMaskMod(m string) (uint64, bool) {
	var v uint64
	if n, err := fmt.Sscanf(m, "0x%x", &v); n != 1 || err != nil || v == 0 || v > 0xe || m != fmt.Sprintf("%#x", v) {
		return 0, false
	}
	return v, true
}

// tmCand reports whether in is a fetch the pass may narrow: a TEX, TLD or
// TLD4 with its two virtual result pairs and no mask yet.
func tmCand(in *ori.Inst) bool {
	switch in.Op {
	case ori.OpTEX, ori.OpTLD, ori.OpTLD4:
	default:
		return false
	}
	if len(in.Dsts) != 2 || len(in.Mods) == 0 {
		return false
	}
	if _, masked := TexMaskMod(in.Mods[len(in.Mods)-1]); masked {
		return false
	}
	for _, d := range in.Dsts {
		if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassR || d.Reg.Off != 0 || d.Reg.Words != 2 {
			return false
		}
	}
	return in.Dsts[0].Reg.N != in.Dsts[1].Reg.N
}

func narrowTexMasks(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableTexMaskNarrowing") {
		return false, nil
	}
	defs, cands := defsAndCandidates(f, func(in *ori.Inst) bool { return tmCand(in) })
	if len(cands) == 0 {
		return false, nil
	}
	// read: the components read of each candidate's result pairs (Rd
	// words 0-1, Rd2 words 2-3); whole: a read spans several words.
	type use struct {
		read  uint64
		whole bool
	}
	uses := map[cmReg]*use{}
	for _, in := range cands {
		for _, d := range in.Dsts {
			uses[cmRegOf(d.Reg)] = &use{}
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			cmReads(in, func(r ori.Reg) {
				if u := uses[cmRegOf(r)]; u != nil && r.Virtual {
					if r.Words != 1 {
						u.whole = true
					}
					for w := int(r.Off); w < int(r.Off)+int(r.Words); w++ {
						u.read |= 1 << w
					}
				}
			})
		}
	}
	// remap: each narrowed result word's new register word.
	remap := map[cmWord]ori.Reg{}
	for _, in := range cands {
		hi, lo := in.Dsts[0].Reg, in.Dsts[1].Reg
		uh, ul := uses[cmRegOf(hi)], uses[cmRegOf(lo)]
		if defs[cmRegOf(hi)] != 1 || defs[cmRegOf(lo)] != 1 || uh.whole || ul.whole {
			continue
		}
		mask := ul.read&3 | (uh.read&3)<<2
		n := bits.OnesCount64(mask)
		if n == 0 || n == 4 {
			continue
		}
		if !c.Sites.Allow(f, in.ID, "fetch only the texture components read") {
			continue
		}
		nd := f.NewVReg(ori.ClassR, min(n, 2))
		nd2 := ori.RZ
		if n > 2 {
			nd2 = f.NewVReg(ori.ClassR, 1)
		}
		k := 0
		for comp := 0; comp < 4; comp++ {
			if mask>>comp&1 == 0 {
				continue
			}
			old := cmWordOf(lo, comp)
			if comp >= 2 {
				old = cmWordOf(hi, comp-2)
			}
			if k < 2 {
				remap[old] = nd.Word(k)
			} else {
				remap[old] = nd2
			}
			k++
		}
		in.Dsts[0], in.Dsts[1] = ori.R(nd2), ori.R(nd)
		in.Mods = append(in.Mods[:len(in.Mods):len(in.Mods)], fmt.Sprintf("%#x", mask))
	}
	if len(remap) == 0 {
		return false, nil
	}
	fix := func(o *ori.Operand) {
		if !o.Reg.Virtual || o.Reg.Words != 1 {
			return
		}
		if r, ok := remap[cmWordOf(o.Reg, 0)]; ok {
			o.Reg = r
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			eachRegReadOperand(in, fix)
		}
	}
	return true, nil
}
