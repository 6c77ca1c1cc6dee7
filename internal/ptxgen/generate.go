package ptxgen

import (
	"encoding/binary"
	"fmt"
)

// Generate returns the program of a seed. The same seed gives the same
// program, byte for byte, on every platform and Go release.
func Generate(seed uint64) *Program { return GenerateWith(seed, Options{}) }

// Options adjusts what Generate produces.
type Options struct {
	// Avoid names constructs not to generate (see Avoidable): a way to
	// keep fuzzing past an open bug that would otherwise drown everything
	// else. A program generated with Avoid is not the program of its seed
	// without it.
	Avoid []string
}

// Avoidable lists the constructs Options.Avoid accepts, with what each
// leaves out.
var Avoidable = map[string]string{
	"generic-shared-atomics": "atom and red through generic addresses of shared memory (cvta.shared)",
	"predicated-expansions":  "guards on f32 div, sqrt and rcp, which the lowering expands into several blocks",
	"partial-definitions":    "registers defined only under a guard and then read (the partial.* statements of gen_partial.go)",
	"tensor-cores":           "mma.sync statements (the mma.* statements of gen_mma.go)",
	"narrow-tensor-cores":    "the 4-bit and single-bit mma.sync statements (gen_mma_narrow.go)",
}

// GenerateWith is Generate with options. Unknown Avoid names are ignored;
// callers check them against Avoidable.
func GenerateWith(seed uint64, o Options) *Program {
	r := newRNG(seed)
	p := &Program{Seed: seed}
	g := &gen{r: r, p: p, funcIters: map[string]int{}, funcMid: map[string]bool{}, avoid: map[string]bool{}}
	for _, a := range o.Avoid {
		g.avoid[a] = true
	}
	p.Target = []int{75, 80, 80, 86, 89, 90}[r.intn(6)]
	p.Profile = randomProfile(r.fork(1))
	g.incBound = []uint32{1, 3, 100, 1 << 20, 0xffffffff}[r.intn(5)]
	p.Launch = randomLaunch(r.fork(2), p)
	nf := 0
	if p.Profile.w("call") > 0 {
		nf = r.rangeIn(1, 3)
	}
	fr := r.fork(3)
	for i := 0; i < nf; i++ {
		p.Funcs = append(p.Funcs, g.deviceFunc(fr.fork(uint64(i)), i))
	}
	g.kernel(r.fork(4))
	g.addPartials(r.fork(5))    // after the body: see gen_partial.go
	g.addTensorCores(r.fork(6)) // after the body: see gen_mma.go
	return p
}

// randomProfile draws the statement families of one program: each is off
// with some probability, else weighted 1-5 (swarm testing).
func randomProfile(r *rng) Profile {
	var p Profile
	for i, f := range families {
		off := 25
		switch f {
		case "int", "if":
			off = 0
		case "exit", "approx", "f16", "lanesplit":
			off = 55
		}
		if !r.percent(off) {
			p.Weights[i] = r.rangeIn(1, 5)
		}
	}
	return p
}

func randomLaunch(r *rng, p *Program) Launch {
	var l Launch
	warps := p.Profile.w("warp") > 0 || p.Profile.w("lanesplit") > 0
	nt := 32 * r.rangeIn(1, 4)
	if !warps && r.percent(30) {
		nt = []int{1, 7, 17, 33, 40, 50, 100}[r.intn(7)]
	}
	l.Block = [3]int{nt, 1, 1}
	switch {
	case nt%4 == 0 && r.percent(15):
		l.Block = [3]int{nt / 4, 4, 1}
	case nt%2 == 0 && r.percent(20):
		l.Block = [3]int{nt / 2, 2, 1}
	}
	l.Grid = [3]int{r.rangeIn(1, 3), 1, 1}
	if r.percent(15) {
		l.Grid[1] = 2
	}
	if p.Profile.w("shared") > 0 && r.percent(40) {
		l.DynamicShared = 4 * nt
	}
	return l
}

// stateCounts draws how many state variables of each class a function
// has; every class has at least one, so any statement can find its
// operands.
func stateCounts(r *rng, kernel bool) [numClasses]int {
	if kernel {
		return [numClasses]int{ClassB32: r.rangeIn(6, 10), ClassB64: r.rangeIn(2, 3), ClassF32: r.rangeIn(3, 5),
			ClassF64: r.rangeIn(1, 2), ClassPred: r.rangeIn(2, 3), ClassB16: r.rangeIn(1, 2)}
	}
	return [numClasses]int{ClassB32: r.rangeIn(3, 5), ClassB64: r.rangeIn(1, 2), ClassF32: r.rangeIn(2, 3),
		ClassF64: 1, ClassPred: r.rangeIn(1, 2), ClassB16: 1}
}

// deviceFunc generates device function number i.
func (g *gen) deviceFunc(r *rng, i int) *Func {
	f := &Func{Name: fmt.Sprintf("fn%d", i), RetName: "fret"}
	fg := &fgen{g: g, f: f, r: r}
	nb := r.rangeIn(1, 3)
	for k := 0; k < nb; k++ {
		f.Params = append(f.Params, FuncParam{Type: r.pick(".b32", ".u32", ".s32"), Name: fmt.Sprintf("fa%d", k)})
	}
	if r.percent(50) {
		f.Params = append(f.Params, FuncParam{Type: ".f32", Name: "ff0"})
	}
	hasMid := r.percent(50)
	if hasMid {
		f.Params = append(f.Params, FuncParam{Type: ".u64", Name: "fmid"})
	}
	switch n := r.intn(100); {
	case n < 60:
		f.Ret = ".b32"
	case n < 85 || !hasMid:
		f.Ret = ".f32"
	}
	// Parameters become read-only inputs.
	for _, p := range f.Params {
		switch p.Name {
		case "fmid":
			fg.mid, fg.midG = fg.tmp(ClassB64), fg.tmp(ClassB64)
			f.Prologue = append(f.Prologue, sprintf("ld.param.u64 %s, [fmid];", fg.mid),
				sprintf("cvta.to.global.u64 %s, %s;", fg.midG, fg.mid))
		default:
			c := paramClass(p.Type)
			x := fg.tmp(c)
			f.Prologue = append(f.Prologue, sprintf("ld.param%s %s, [%s];", p.Type, x, p.Name))
			fg.thr[c] = append(fg.thr[c], x)
		}
	}
	if len(fg.thr[ClassF32]) == 0 {
		x := fg.tmp(ClassF32)
		f.Prologue = append(f.Prologue, sprintf("cvt.rn.f32.s32 %s, %s;", x, fg.thr[ClassB32][0]))
		fg.thr[ClassF32] = append(fg.thr[ClassF32], x)
	}
	fg.initState(stateCounts(r, false))
	if r.percent(50) {
		fg.initLocal()
	}
	for _, c := range g.p.Funcs[:i] {
		if g.funcMid[c.Name] && !hasMid {
			continue
		}
		fg.callees = append(fg.callees, c)
	}
	g.funcMid[f.Name] = hasMid
	fg.budget = r.rangeIn(4, 14)
	f.Body = fg.block(ctx{iters: 1}, fg.budget)
	f.Epilogue = fg.returnLines()
	g.funcIters[f.Name] = max(1, fg.iters)
	return f
}

// initState defines the state variables from the read-only inputs.
func (fg *fgen) initState(counts [numClasses]int) {
	r := fg.r
	f := fg.f
	add := func(v string, c Class, lines ...string) {
		f.Inits = append(f.Inits, &Init{Var: v, Class: c, Lines: lines})
	}
	in := func(c Class) string {
		xs := append(append([]string(nil), fg.thr[c]...), fg.uni[c]...)
		return xs[r.intn(len(xs))]
	}
	for c := Class(0); c < numClasses; c++ {
		for k := 0; k < counts[c]; k++ {
			fg.state[c] = append(fg.state[c], fg.tmp(c))
		}
	}
	for k, s := range fg.state[ClassB32] {
		switch {
		case fg.kernel && r.percent(50):
			t, a := fg.tmp(ClassB32), fg.tmp(ClassB64)
			add(s, ClassB32,
				sprintf("mad.lo.u32 %s, %s, %d, %d;", t, fg.tid, r.rangeIn(1, 9), k*37),
				sprintf("and.b32 %s, %s, %d;", t, t, inU32N-1),
				sprintf("mad.wide.u32 %s, %s, 4, %s;", a, t, fg.inU32),
				sprintf("ld.global.u32 %s, [%s];", s, a))
		case r.percent(40):
			add(s, ClassB32, sprintf("mad.lo.u32 %s, %s, %s, %s;", s, in(ClassB32), fg.imm(ClassB32), fg.imm(ClassB32)))
		case r.percent(50):
			add(s, ClassB32, sprintf("xor.b32 %s, %s, %s;", s, in(ClassB32), in(ClassB32)))
		default:
			add(s, ClassB32, sprintf("mov.u32 %s, %s;", s, fg.imm(ClassB32)))
		}
	}
	for k, s := range fg.state[ClassB64] {
		if fg.kernel && r.percent(50) {
			t, a := fg.tmp(ClassB32), fg.tmp(ClassB64)
			add(s, ClassB64,
				sprintf("add.u32 %s, %s, %d;", t, fg.tid, k*5),
				sprintf("and.b32 %s, %s, %d;", t, t, inU32N/2-1),
				sprintf("mad.wide.u32 %s, %s, 8, %s;", a, t, fg.inU32),
				sprintf("ld.global.u64 %s, [%s];", s, a))
			continue
		}
		add(s, ClassB64, sprintf("mul.wide.%s %s, %s, %s;", r.pick("u32", "s32"), s, in(ClassB32), fg.imm(ClassB32)))
	}
	for k, s := range fg.state[ClassF32] {
		switch {
		case fg.kernel && r.percent(50):
			t, a := fg.tmp(ClassB32), fg.tmp(ClassB64)
			add(s, ClassF32,
				sprintf("add.u32 %s, %s, %d;", t, fg.tid, k*11),
				sprintf("and.b32 %s, %s, %d;", t, t, inF32N-1),
				sprintf("mad.wide.u32 %s, %s, 4, %s;", a, t, fg.inF32),
				sprintf("ld.global.f32 %s, [%s];", s, a))
		case r.percent(40):
			add(s, ClassF32, sprintf("cvt.rn.f32.s32 %s, %s;", s, in(ClassB32)))
		case r.percent(50):
			add(s, ClassF32, sprintf("mov.f32 %s, %s;", s, in(ClassF32)))
		default:
			add(s, ClassF32, sprintf("mov.f32 %s, %s;", s, fg.imm(ClassF32)))
		}
	}
	for k, s := range fg.state[ClassF64] {
		if fg.kernel && r.percent(60) {
			t, a := fg.tmp(ClassB32), fg.tmp(ClassB64)
			add(s, ClassF64,
				sprintf("add.u32 %s, %s, %d;", t, fg.tid, k*3),
				sprintf("and.b32 %s, %s, %d;", t, t, inF64N-1),
				sprintf("mad.wide.u32 %s, %s, 8, %s;", a, t, fg.inF64),
				sprintf("ld.global.f64 %s, [%s];", s, a))
			continue
		}
		add(s, ClassF64, sprintf("cvt.f64.f32 %s, %s;", s, fg.state[ClassF32][r.intn(len(fg.state[ClassF32]))]))
	}
	for k, s := range fg.state[ClassPred] {
		t := fg.tmp(ClassB32)
		add(s, ClassPred,
			sprintf("and.b32 %s, %s, %d;", t, in(ClassB32), 1<<(k+r.intn(3))),
			sprintf("setp.ne.u32 %s, %s, 0;", s, t))
	}
	for _, s := range fg.state[ClassB16] {
		add(s, ClassB16, sprintf("cvt.u16.u32 %s, %s;", s, fg.state[ClassB32][r.intn(len(fg.state[ClassB32]))]))
	}
}

// initLocal declares the function's local array and fills every word.
func (fg *fgen) initLocal() {
	f := fg.f
	fg.loc = "loc"
	f.Decls = append(f.Decls, sprintf(".local .align 16 .b8 loc[%d];", 4*locWords))
	l := &Leaf{Kind: "setup.local"}
	for k := 0; k < locWords; k++ {
		v := fg.src(ClassB32)
		l.Lines = append(l.Lines, sprintf("st.local.u32 [loc+%d], %s;", 4*k, v))
	}
	f.Setup = append(f.Setup, l)
}

// kernel generates the .entry, its parameters and their contents.
func (g *gen) kernel(r *rng) {
	p := g.p
	f := &Func{Name: "fuzz", Entry: true}
	p.Kernel = f
	fg := &fgen{g: g, f: f, r: r, kernel: true}
	counts := stateCounts(r, true)
	dumpWords := 2*(counts[ClassB64]+counts[ClassF64]) + counts[ClassB32] + counts[ClassF32] + counts[ClassPred] + counts[ClassB16]
	dumpWords = (dumpWords + 3) &^ 3
	slotWords := dumpWords + midWords
	threads := p.Launch.Threads() * p.Launch.CTAs()
	alias := r.percent(50)

	// Parameters and their contents.
	p.Params = append(p.Params, Param{Name: "out", Buffer: true, Elem: "u32", Count: threads * slotWords})
	if alias {
		p.Params = append(p.Params, Param{Name: "alias", Buffer: true, SameAs: "out"})
	}
	p.Params = append(p.Params,
		Param{Name: "in_u32", Buffer: true, Elem: "u32", Count: inU32N, Init: inputU32(r.fork(10), inU32N)},
		Param{Name: "in_f32", Buffer: true, Elem: "f32", Count: inF32N, Init: inputF32(r.fork(11), inF32N)},
		Param{Name: "in_f64", Buffer: true, Elem: "f64", Count: inF64N, Init: inputF64(r.fork(12), inF64N)},
		Param{Name: "acc", Buffer: true, Elem: "u32", Count: len(accOps) * accRegion, Init: accInit()},
		Param{Name: "acc64", Buffer: true, Elem: "u64", Count: len(acc64Ops) * accRegion, Init: acc64Init()},
		Param{Name: "n", Type: "u32", Value: fmt.Sprint(imm32s[r.intn(len(imm32s))])},
		Param{Name: "x", Type: "f32", Value: fmt.Sprintf("0x%08X", immF32s[r.intn(len(immF32s))])},
	)
	for _, q := range p.Params {
		switch {
		case q.Buffer:
			f.Params = append(f.Params, FuncParam{Type: ".u64", Name: q.Name})
		default:
			f.Params = append(f.Params, FuncParam{Type: "." + q.Type, Name: q.Name})
		}
	}

	// Read-only inputs.
	pro := func(format string, args ...any) { f.Prologue = append(f.Prologue, sprintf(format, args...)) }
	out, outG := fg.tmp(ClassB64), fg.tmp(ClassB64)
	pro("ld.param.u64 %s, [out];", out)
	pro("cvta.to.global.u64 %s, %s;", outG, out)
	var aliasReg string
	if alias {
		aliasReg = fg.tmp(ClassB64)
		pro("ld.param.u64 %s, [alias];", aliasReg)
	}
	global := func(name string) string {
		a := fg.tmp(ClassB64)
		pro("ld.param.u64 %s, [%s];", a, name)
		pro("cvta.to.global.u64 %s, %s;", a, a)
		return a
	}
	generic := func(name string) string {
		a := fg.tmp(ClassB64)
		pro("ld.param.u64 %s, [%s];", a, name)
		return a
	}
	fg.inU32, fg.inF32, fg.inF64 = global("in_u32"), global("in_f32"), global("in_f64")
	fg.acc, fg.acc64 = global("acc"), global("acc64")
	fg.accGen, fg.acc64Gen = generic("acc"), generic("acc64")
	n, x := fg.tmp(ClassB32), fg.tmp(ClassF32)
	pro("ld.param.u32 %s, [n];", n)
	pro("ld.param.f32 %s, [x];", x)
	tx, ty, ntx, nty, nt := fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32)
	pro("mov.u32 %s, %%tid.x;", tx)
	pro("mov.u32 %s, %%tid.y;", ty)
	pro("mov.u32 %s, %%ntid.x;", ntx)
	pro("mov.u32 %s, %%ntid.y;", nty)
	tid := fg.tmp(ClassB32)
	pro("mad.lo.u32 %s, %s, %s, %s;", tid, ty, ntx, tx)
	pro("mul.lo.u32 %s, %s, %s;", nt, ntx, nty)
	cx, cy, ncx, cta := fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32)
	pro("mov.u32 %s, %%ctaid.x;", cx)
	pro("mov.u32 %s, %%ctaid.y;", cy)
	pro("mov.u32 %s, %%nctaid.x;", ncx)
	pro("mad.lo.u32 %s, %s, %s, %s;", cta, cy, ncx, cx)
	gtid, lane, warp := fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32)
	pro("mad.lo.u32 %s, %s, %s, %s;", gtid, cta, nt, tid)
	pro("mov.u32 %s, %%laneid;", lane)
	pro("shr.u32 %s, %s, 5;", warp, tid)
	fg.tid, fg.lane = tid, lane
	fg.thr[ClassB32] = []string{tid, gtid, lane, warp}
	fg.uni[ClassB32] = []string{nt, cta, n, ntx}
	fg.uni[ClassF32] = []string{x}
	off, slotG := fg.tmp(ClassB64), fg.tmp(ClassB64)
	pro("mul.wide.u32 %s, %s, %d;", off, gtid, 4*slotWords)
	pro("add.s64 %s, %s, %s;", slotG, outG, off)
	fg.midG, fg.mid = fg.tmp(ClassB64), fg.tmp(ClassB64)
	pro("add.s64 %s, %s, %d;", fg.midG, slotG, 4*dumpWords)
	pro("add.s64 %s, %s, %s;", fg.mid, out, off)
	pro("add.s64 %s, %s, %d;", fg.mid, fg.mid, 4*dumpWords)
	if alias {
		fg.midA = fg.tmp(ClassB64)
		pro("add.s64 %s, %s, %s;", fg.midA, aliasReg, off)
		pro("add.s64 %s, %s, %d;", fg.midA, fg.midA, 4*dumpWords)
	}

	fg.initState(counts)
	if r.percent(60) {
		fg.initLocal()
	}
	if p.Profile.w("shared") > 0 {
		fg.shx = "shx"
		f.Decls = append(f.Decls, sprintf(".shared .align 16 .b32 shx[%d];", p.Launch.Threads()))
		if p.Launch.DynamicShared > 0 {
			p.Decls = append(p.Decls, ".extern .shared .align 16 .b32 dsh[];")
		}
	}
	if p.Profile.w("shared") > 0 || p.Profile.w("atomic") > 0 {
		fg.shc = "shc"
		f.Decls = append(f.Decls, sprintf(".shared .align 4 .b32 shc[%d];", len(shcOps)))
		q := fg.tmp(ClassPred)
		l := &Leaf{Kind: "setup.shared", Lines: []string{sprintf("setp.eq.u32 %s, %s, 0;", q, tid)}}
		for k, o := range shcOps {
			l.Lines = append(l.Lines, sprintf("@%s st.shared.u32 [shc+%d], %s;", q, 4*k, hex32(o.init)))
		}
		l.Lines = append(l.Lines, "bar.sync 0;")
		f.Setup = append(f.Setup, l)
	}
	fg.callees = p.Funcs

	fg.budget = r.rangeIn(12, 55)
	top := ctx{iters: 1, converged: true}
	if p.Profile.w("warp") > 0 || p.Profile.w("lanesplit") > 0 {
		top.mask = maskFull
	}
	f.Body = fg.block(top, fg.budget)

	// Observe: every state variable into the thread's dump slots.
	obs := func(lines ...string) { f.Observe = append(f.Observe, leaf("observe", lines...)) }
	w := 0
	for _, s := range fg.state[ClassB64] {
		obs(sprintf("st.global.u64 [%s+%d], %s;", slotG, 4*w, s))
		w += 2
	}
	for _, s := range fg.state[ClassF64] {
		obs(sprintf("st.global.f64 [%s+%d], %s;", slotG, 4*w, s))
		w += 2
	}
	for _, s := range fg.state[ClassB32] {
		obs(sprintf("st.global.u32 [%s+%d], %s;", slotG, 4*w, s))
		w++
	}
	for _, s := range fg.state[ClassF32] {
		obs(sprintf("st.global.f32 [%s+%d], %s;", slotG, 4*w, s))
		w++
	}
	for _, s := range fg.state[ClassPred] {
		t := fg.tmp(ClassB32)
		obs(sprintf("selp.u32 %s, 1, 0, %s;", t, s), sprintf("st.global.u32 [%s+%d], %s;", slotG, 4*w, t))
		w++
	}
	for _, s := range fg.state[ClassB16] {
		obs(sprintf("st.global.u16 [%s+%d], %s;", slotG, 4*w, s))
		w++
	}
	f.Epilogue = []string{"ret;"}
}

// Input data: mostly ordinary values, with the edge cases arithmetic
// goes wrong on mixed in.

func inputU32(r *rng, n int) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		v := uint32(r.next())
		switch r.intn(4) {
		case 0:
			v = imm32s[r.intn(len(imm32s))]
		case 1:
			v &= 0xff
		}
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func inputF32(r *rng, n int) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		var v uint32
		switch r.intn(6) {
		case 0:
			v = immF32s[r.intn(len(immF32s))]
		case 1:
			v = uint32(r.next())
		default:
			// A value of moderate magnitude: sign, exponent 2^-8..2^15.
			v = uint32(r.next())&0x807fffff | uint32(119+r.intn(24))<<23
		}
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func inputF64(r *rng, n int) []byte {
	b := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		var v uint64
		switch r.intn(6) {
		case 0:
			v = immF64s[r.intn(len(immF64s))]
		case 1:
			v = r.next()
		default:
			v = r.next()&0x800fffffffffffff | uint64(1015+r.intn(30))<<52
		}
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

func accInit() []byte {
	b := make([]byte, 4*len(accOps)*accRegion)
	for k, o := range accOps {
		for i := 0; i < accRegion; i++ {
			binary.LittleEndian.PutUint32(b[4*(k*accRegion+i):], o.init)
		}
	}
	return b
}

func acc64Init() []byte {
	b := make([]byte, 8*len(acc64Ops)*accRegion)
	for k, o := range acc64Ops {
		for i := 0; i < accRegion; i++ {
			binary.LittleEndian.PutUint64(b[8*(k*accRegion+i):], o.init)
		}
	}
	return b
}
