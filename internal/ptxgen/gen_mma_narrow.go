package ptxgen

// The 4-bit and single-bit mma.sync forms (statement kinds "mma.s4.*",
// "mma.u4.*" and "mma.b1.*"): integer fragments whose every bit pattern
// is a value, so raw register bits make valid operands. On sm_90 ptxas
// 13.0 emulates them with two 8-bit IMMAs or two AND.POPC BMMAs, which
// orilab copies (pipeline/lower/mma_narrow.go), so the optimizer sees
// those sequences too.
//
// Decision: they are drawn after the other mma statements, from a fork of
// the tensor-core stream taken once those are placed, and only in kernels
// that got mma statements. A seed therefore keeps every statement it had,
// its other mma statements included, and some kernels gain one narrow
// mma. The fp8 forms (.e4m3/.e5m2) are left out: they need PTX ISA 8.4,
// and raising the programs' .version 8.0 would change every seed's text.

// narrowMMAForms are the narrow forms the generator emits.
var narrowMMAForms = []mmaForm{
	{"s4.m8n8k32", "m8n8k32.row.col.s32.s4.s4.s32", 75, 1, 1, 2, ClassB32},
	{"u4.m8n8k32.sat", "m8n8k32.row.col.satfinite.s32.u4.s4.s32", 75, 1, 1, 2, ClassB32},
	{"s4.m16n8k32", "m16n8k32.row.col.s32.s4.u4.s32", 80, 2, 1, 4, ClassB32},
	{"u4.m16n8k64", "m16n8k64.row.col.s32.u4.u4.s32", 80, 4, 2, 4, ClassB32},
	{"s4.m16n8k64.sat", "m16n8k64.row.col.satfinite.s32.s4.s4.s32", 80, 4, 2, 4, ClassB32},
	{"b1.m8n8k128.xor", "m8n8k128.row.col.s32.b1.b1.s32.xor.popc", 75, 1, 1, 2, ClassB32},
	{"b1.m8n8k128.and", "m8n8k128.row.col.s32.b1.b1.s32.and.popc", 80, 1, 1, 2, ClassB32},
	{"b1.m16n8k128.xor", "m16n8k128.row.col.s32.b1.b1.s32.xor.popc", 80, 2, 1, 4, ClassB32},
	{"b1.m16n8k256.and", "m16n8k256.row.col.s32.b1.b1.s32.and.popc", 80, 4, 2, 4, ClassB32},
	{"b1.m16n8k256.xor", "m16n8k256.row.col.s32.b1.b1.s32.xor.popc", 80, 4, 2, 4, ClassB32},
}

// narrowMMAPercent is the share of kernels with mma statements that also
// get one narrow mma.
const narrowMMAPercent = 50

// addNarrowMMA inserts at most one narrow mma into the kernel's top-level
// statement list, drawing from r (see the Decision above).
func (g *gen) addNarrowMMA(r *rng) {
	if g.avoid["narrow-tensor-cores"] || !r.percent(narrowMMAPercent) {
		return
	}
	p := g.p
	var forms []mmaForm
	for _, f := range narrowMMAForms {
		if p.Target >= f.minSM {
			forms = append(forms, f)
		}
	}
	k := p.Kernel
	fg := &fgen{g: g, f: k, r: r, kernel: true}
	for _, in := range k.Inits {
		fg.state[in.Class] = append(fg.state[in.Class], in.Var)
	}
	l := fg.mmaLeaf(forms[r.intn(len(forms))])
	at := r.intn(len(k.Body) + 1)
	k.Body = append(k.Body[:at], append([]Stmt{l}, k.Body[at:]...)...)
}
