package ptxgen

import "strings"

// Calls to device functions. Arguments are state variables, inputs or
// immediates; a callee that takes the scratch pointer gets the caller's,
// so it writes the same thread's slots. The callee's return value folds
// every one of its state variables (returnLines), so a wrong value
// anywhere in it shows in the caller.

func paramClass(ty string) Class {
	switch ty {
	case ".f32":
		return ClassF32
	case ".u64", ".b64":
		return ClassB64
	}
	return ClassB32
}

func (fg *fgen) callLeaf(c ctx) Stmt {
	r := fg.r
	var ok []*Func
	for _, f := range fg.callees {
		if c.iters*max(1, fg.g.funcIters[f.Name]) <= maxIters {
			ok = append(ok, f)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	f := ok[r.intn(len(ok))]
	if it := c.iters * max(1, fg.g.funcIters[f.Name]); it > fg.iters {
		fg.iters = it
	}
	lines := []string{"{"}
	var args []string
	for i, p := range f.Params {
		name := sprintf("cp%d", i)
		args = append(args, name)
		lines = append(lines, sprintf(".param %s %s;", p.Type, name))
	}
	if f.Ret != "" {
		lines = append(lines, sprintf(".param %s cr;", f.Ret))
	}
	for i, p := range f.Params {
		var v string
		if p.Name == "fmid" {
			v = fg.mid
		} else {
			v = fg.src(paramClass(p.Type))
		}
		lines = append(lines, sprintf("st.param%s [cp%d], %s;", p.Type, i, v))
	}
	call := "call"
	if c.converged && r.percent(50) {
		call = "call.uni"
	}
	if f.Ret != "" {
		lines = append(lines, sprintf("%s (cr), %s, (%s);", call, f.Name, strings.Join(args, ", ")))
		lines = append(lines, sprintf("ld.param%s %s, [cr];", f.Ret, fg.sv(paramClass(f.Ret))))
	} else {
		lines = append(lines, sprintf("%s %s, (%s);", call, f.Name, strings.Join(args, ", ")))
	}
	lines = append(lines, "}")
	return leaf("call", lines...)
}

// fold returns lines that mix every state variable into a fresh b32
// register, and the register: t = t*31 + x for each 32-bit piece x, so
// no two differences cancel the way they can under xor.
func (fg *fgen) fold() ([]string, string) {
	t := fg.tmp(ClassB32)
	lines := []string{sprintf("mov.u32 %s, %d;", t, fg.r.intn(1000))}
	mix := func(x string) { lines = append(lines, sprintf("mad.lo.u32 %s, %s, 31, %s;", t, t, x)) }
	for _, s := range fg.state[ClassB32] {
		mix(s)
	}
	for _, s := range fg.state[ClassF32] {
		x := fg.tmp(ClassB32)
		lines = append(lines, sprintf("mov.b32 %s, %s;", x, s))
		mix(x)
	}
	for _, s := range fg.state[ClassB64] {
		lo, hi := fg.tmp(ClassB32), fg.tmp(ClassB32)
		lines = append(lines, sprintf("mov.b64 {%s, %s}, %s;", lo, hi, s))
		mix(lo)
		mix(hi)
	}
	for _, s := range fg.state[ClassF64] {
		lo, hi := fg.tmp(ClassB32), fg.tmp(ClassB32)
		lines = append(lines, sprintf("mov.b64 {%s, %s}, %s;", lo, hi, s))
		mix(lo)
		mix(hi)
	}
	for i, s := range fg.state[ClassPred] {
		x := fg.tmp(ClassB32)
		lines = append(lines, sprintf("selp.u32 %s, %d, 0, %s;", x, 1<<i, s))
		mix(x)
	}
	for _, s := range fg.state[ClassB16] {
		x := fg.tmp(ClassB32)
		lines = append(lines, sprintf("cvt.u32.u16 %s, %s;", x, s))
		mix(x)
	}
	return lines, t
}

// returnLines folds the state into the return value, stores it and
// returns; the last line is "ret;".
func (fg *fgen) returnLines() []string {
	f := fg.f
	var lines []string
	switch f.Ret {
	case ".b32":
		ls, t := fg.fold()
		lines = append(ls, sprintf("st.param.b32 [%s], %s;", f.RetName, t))
	case ".f32":
		ls, t := fg.fold()
		x := fg.tmp(ClassF32)
		lines = append(ls, sprintf("mov.b32 %s, %s;", x, t), sprintf("st.param.f32 [%s], %s;", f.RetName, x))
	}
	return append(lines, "ret;")
}
