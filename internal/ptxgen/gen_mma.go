package ptxgen

// Tensor-core statements: mma.sync.aligned over fragments taken from the
// kernel's registers, the statement kinds "mma.*".
//
// mma.sync.aligned needs every lane of the warp, converged, so these
// statements go only where the generator knows the whole warp executes:
// the top-level statement list of a kernel whose blocks are whole warps
// and which never exits early (Profile families warp or lanesplit on,
// the same condition as ctx.mask == maskFull at the top; kernelMayExit is
// false then). Every statement of that list runs on all threads together.
//
// The fragments are raw register bits: f16/bf16/tf32 pairs may be
// infinities or NaNs and s8 bytes any value, which the simulator's model
// defines (pipeline/sim/exec_mma.go). The results go into state
// variables, so they reach the observed outputs.
//
// Decision: like gen_partial.go, these are added after everything else,
// from a random stream of their own (Generate's fork 6), so a seed keeps
// every statement it had; about half the eligible kernels get one to
// three.

// mmaForm is one mma.sync form the generator emits.
type mmaForm struct {
	name       string // statement kind suffix
	ptx        string // after "mma.sync.aligned."
	minSM      int
	na, nb, nc int   // 32-bit registers per lane of A, B and C/D
	cd         Class // class of the C and D registers
}

var mmaForms = []mmaForm{
	{"f16.m16n8k8.f32", "m16n8k8.row.col.f32.f16.f16.f32", 75, 2, 1, 4, ClassF32},
	{"f16.m16n8k8.f16", "m16n8k8.row.col.f16.f16.f16.f16", 75, 2, 1, 2, ClassB32},
	{"s8.m8n8k16", "m8n8k16.row.col.s32.s8.s8.s32", 75, 1, 1, 2, ClassB32},
	{"f16.m16n8k16.f32", "m16n8k16.row.col.f32.f16.f16.f32", 80, 4, 2, 4, ClassF32},
	{"f16.m16n8k16.f16", "m16n8k16.row.col.f16.f16.f16.f16", 80, 4, 2, 2, ClassB32},
	{"bf16.m16n8k16", "m16n8k16.row.col.f32.bf16.bf16.f32", 80, 4, 2, 4, ClassF32},
	{"bf16.m16n8k8", "m16n8k8.row.col.f32.bf16.bf16.f32", 80, 2, 1, 4, ClassF32},
	{"tf32.m16n8k8", "m16n8k8.row.col.f32.tf32.tf32.f32", 80, 4, 2, 4, ClassF32},
	{"s8.m16n8k32", "m16n8k32.row.col.s32.s8.s8.s32", 80, 4, 2, 4, ClassB32},
	{"u8s8.m16n8k32.sat", "m16n8k32.row.col.satfinite.s32.u8.s8.s32", 80, 4, 2, 4, ClassB32},
	{"s8.m16n8k16", "m16n8k16.row.col.s32.s8.s8.s32", 80, 2, 1, 4, ClassB32},
}

// mmaKernelPercent is the share of eligible kernels that get mma
// statements.
const mmaKernelPercent = 50

// addTensorCores inserts mma statements into the kernel's top-level
// statement list, drawing from r.
func (g *gen) addTensorCores(r *rng) {
	p := g.p
	if g.avoid["tensor-cores"] || p.Profile.w("warp") == 0 && p.Profile.w("lanesplit") == 0 {
		return
	}
	if !r.percent(mmaKernelPercent) {
		return
	}
	var forms []mmaForm
	for _, f := range mmaForms {
		if p.Target >= f.minSM {
			forms = append(forms, f)
		}
	}
	k := p.Kernel
	fg := &fgen{g: g, f: k, r: r, kernel: true}
	for _, in := range k.Inits {
		fg.state[in.Class] = append(fg.state[in.Class], in.Var)
	}
	n := r.rangeIn(1, 3)
	for i := 0; i < n; i++ {
		l := fg.mmaLeaf(forms[r.intn(len(forms))])
		at := r.intn(len(k.Body) + 1)
		k.Body = append(k.Body[:at], append([]Stmt{l}, k.Body[at:]...)...)
	}
	g.addNarrowMMA(r.fork(1)) // gen_mma_narrow.go
}

// mmaLeaf is one mma with operands from the kernel's registers and its
// results moved into state variables.
func (fg *fgen) mmaLeaf(f mmaForm) *Leaf {
	regs := func(n int, c Class) string {
		s := "{"
		for i := 0; i < n; i++ {
			if i > 0 {
				s += ", "
			}
			s += fg.reg(c)
		}
		return s + "}"
	}
	a, b, c := regs(f.na, ClassB32), regs(f.nb, ClassB32), regs(f.nc, f.cd)
	var ds []string
	for i := 0; i < f.nc; i++ {
		ds = append(ds, fg.tmp(f.cd))
	}
	d := "{" + ds[0]
	for _, x := range ds[1:] {
		d += ", " + x
	}
	d += "}"
	lines := []string{sprintf("mma.sync.aligned.%s %s, %s, %s, %s;", f.ptx, d, a, b, c)}
	ty := "b32"
	if f.cd == ClassF32 {
		ty = "f32"
	}
	for _, x := range ds {
		lines = append(lines, sprintf("mov.%s %s, %s;", ty, fg.sv(f.cd), x))
	}
	return leaf("mma."+f.name, lines...)
}
