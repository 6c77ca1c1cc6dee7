package lower

import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerBra, "bra")
	register(lowerBrx, "brx")
	register(lowerRet, "ret")
	register(lowerExit, "exit")
	register(lowerTrap, "trap")
	register(lowerCall, "call")
}

func lowerBra(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 1 || in.Args[0].Kind != ptx.OpName {
		return c.l.errorf(in.OpPos, "bra needs a label")
	}
	target := c.labelBlock(in.Args[0].Name)
	c.emit(ori.OpBRA, nil, nil, ori.BlockRef(int(target.ID)))
	c.endBlock()
	return nil
}

// lowerBrx lowers "brx.idx index, tlist;" where tlist names a
// .branchtargets list.
func lowerBrx(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 2 || in.Args[1].Kind != ptx.OpName {
		return c.l.errorf(in.OpPos, "brx.idx needs an index and a .branchtargets label")
	}
	list := c.findTargets(c.pf.Body, in.Args[1].Name)
	if list == nil {
		return c.l.errorf(in.Args[1].Pos, "%s is not a .branchtargets list", in.Args[1].Name)
	}
	idx, err := c.src(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	srcs := []ori.Operand{c.asReg(idx)}
	for _, name := range list.Args {
		srcs = append(srcs, ori.BlockRef(int(c.labelBlock(name).ID)))
	}
	c.emit(ori.OpBRX, nil, nil, srcs...)
	c.endBlock()
	return nil
}

func (c *fn) findTargets(b *ptx.Block, name string) *ptx.Directive {
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Directive:
			if x.Label == name && x.Name == ".branchtargets" {
				return x
			}
		case *ptx.Block:
			if d := c.findTargets(x, name); d != nil {
				return d
			}
		}
	}
	return nil
}

func lowerRet(c *fn, in *ptx.Instr) error {
	c.ret(in.Pos)
	return nil
}

func lowerExit(c *fn, in *ptx.Instr) error {
	c.emit(ori.OpEXIT, nil, nil)
	c.endBlock()
	return nil
}

func lowerTrap(c *fn, in *ptx.Instr) error {
	c.emit(ori.OpBPT, []string{"TRAP"}, nil, ori.Imm(1))
	return nil
}

// abiWords is the number of argument registers parameter p takes: its
// bytes in words, except that a vector .reg parameter keeps each element
// in its own word as the register itself does (regWords), so .v4.u16
// takes four words, not the two its bytes fill. Passing only two lost .z
// and .w (ZLUDA's mma_m16n8k32 kernels pack bytes through such a call).
func abiWords(p *ptx.VarDecl) int {
	if p.Space == ".reg" && p.Vec > 0 {
		return regWords(p.Type, p.Vec)
	}
	return int((declSize(p, p.Names[0]) + 3) / 4)
}

// abiLayout returns the first register of each parameter (or result)
// under the calling convention: consecutive registers from R4, each value
// aligned to its size in registers (pairs even, quads at multiples of 4).
func abiLayout(ps []*ptx.VarDecl) (bases []int, words []int) {
	next := firstABIParam
	for _, p := range ps {
		w := abiWords(p)
		if w == 0 {
			w = 1
		}
		next = alignRegs(next, w)
		bases = append(bases, next)
		words = append(words, w)
		next += w
	}
	return bases, words
}

// retAddrABI is the first register of the pair that carries a call's
// return address. Measured with ptxas 13.0 (sm_80, -O0 and -O3, calls
// that must follow the ABI: recursive and indirect ones): the caller
// writes the return point's offset from the start of the kernel's code
// into R20 and zero into R21 right before CALL.REL.NOINC, and the callee
// returns with RET.REL.NODEC R20, saving R20:R21 on its stack when it
// makes calls itself. (Calls ptxas can see whole get other registers at
// -O3, e.g. RET.REL.NODEC R2; orilab gives them R2:R3, private.go.)
const retAddrABI = 20

// retAddrReg returns the return-address pair of a function whose
// argument and result registers end before register end.
//
// Decision: ptxas passes at most 12 argument words in registers
// (R4-R15; measured: a 24-word call puts the other 12 on the caller's
// stack at [R1]), orilab passes every word in registers from R4. When
// they reach R20, the return address moves to the first even register
// after them; caller and callee derive it from the same signature, so
// they agree.
func retAddrReg(end int) int {
	if end <= retAddrABI {
		return retAddrABI
	}
	return (end + 1) &^ 1
}

// abiEnd returns the register after the last of a call's argument and
// result registers.
func abiEnd(params, rets []*ptx.VarDecl) int {
	end := firstABIParam
	for _, ps := range [][]*ptx.VarDecl{params, rets} {
		bases, words := abiLayout(ps)
		for i := range bases {
			end = max(end, bases[i]+words[i])
		}
	}
	return end
}

// retAddrOf returns the return-address pair of the named function
// (empty for an indirect call's target): R2 for a function every call
// sees whole (private.go), else the ABI's pair for its signature.
func (l *lowerer) retAddrOf(name string, params, rets []*ptx.VarDecl) int {
	if name != "" && l.private[name] {
		return retAddrPrivate
	}
	return retAddrReg(abiEnd(params, rets))
}

// setRetAddr writes the return point of the CALL that follows into the
// callee's return-address pair (low word; the high word is zero). name
// is the callee, empty for an indirect call.
func (c *fn) setRetAddr(name string, params, rets []*ptx.VarDecl) {
	ra := c.l.retAddrOf(name, params, rets)
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(ori.PReg(ori.ClassR, ra, 1))}, ori.RetAddr())
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(ori.PReg(ori.ClassR, ra+1, 1))}, ori.R(ori.RZ))
}

// lowerCall lowers "call{.uni} (rets), f, (args);": arguments move into
// R4.. per the calling convention, CALL transfers control, and results
// come back from R4...
func lowerCall(c *fn, in *ptx.Instr) error {
	i := 0
	var rets, args *ptx.Operand
	if i < len(in.Args) && in.Args[i].Kind == ptx.OpList {
		rets = in.Args[i]
		i++
	}
	if i >= len(in.Args) || in.Args[i].Kind != ptx.OpName {
		return c.l.errorf(in.OpPos, "call needs a target")
	}
	target := in.Args[i]
	i++
	if i < len(in.Args) && in.Args[i].Kind == ptx.OpList {
		args = in.Args[i]
		i++
	}
	if i < len(in.Args) {
		return c.indirectCall(in, rets, target, args, in.Args[i])
	}
	callee := c.l.funcs[target.Name]
	if callee == nil {
		return c.l.errorf(target.Pos, "%s is not a function", target.Name)
	}
	if callee.Body == nil {
		if callee.Name == "__assertfail" {
			// The CUDA runtime's assertion handler prints a message and
			// traps; there is no runtime to print, so the call traps.
			c.emit(ori.OpBPT, []string{"TRAP"}, nil, ori.Imm(1))
			return nil
		}
		// Decision: a call to a function this module only declares is
		// lowered with the declaration's calling convention; nothing in
		// orilab links modules, so executing it fails in the simulator
		// with "call to unknown function", which is the honest outcome.
	}
	bases, words := abiLayout(callee.Params)
	if args != nil {
		if len(args.Elems) != len(callee.Params) {
			return c.l.errorf(target.Pos, "call passes %d arguments, %s takes %d", len(args.Elems), callee.Name, len(callee.Params))
		}
		for k, a := range args.Elems {
			if err := c.passArg(a, callee.Params[k], bases[k], words[k]); err != nil {
				return err
			}
		}
	}
	c.setRetAddr(callee.Name, callee.Params, callee.Rets)
	c.emit(ori.OpCALL, []string{"REL", "NOINC"}, nil, ori.Sym(callee.Name))
	if rets != nil {
		rb, rw := abiLayout(callee.Rets)
		if len(rets.Elems) != len(callee.Rets) {
			return c.l.errorf(target.Pos, "call receives %d results, %s returns %d", len(rets.Elems), callee.Name, len(callee.Rets))
		}
		for k, r := range rets.Elems {
			if err := c.takeResult(r, callee.Rets[k], rb[k], rw[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *fn) passArg(a *ptx.Operand, p *ptx.VarDecl, base, words int) error {
	phys := func(w int) ori.Operand { return ori.R(ori.PReg(ori.ClassR, base+w, 1)) }
	if a.Kind == ptx.OpName {
		if v := c.lookupVar(a.Name); v != nil && v.slot != nil {
			for w := 0; w < words && w < len(v.slot.words); w++ {
				c.emit(ori.OpMOV, nil, []ori.Operand{phys(w)}, ori.R(v.slot.words[w]))
			}
			return nil
		}
		if r, reg, ok := c.reg(a); ok {
			if r.pred {
				c.emit(ori.OpSEL, nil, []ori.Operand{phys(0)}, ori.Imm(1), ori.R(ori.RZ), ori.R(reg))
				return nil
			}
			for w := 0; w < words && w < int(reg.Words); w++ {
				c.emit(ori.OpMOV, nil, []ori.Operand{phys(w)}, ori.R(reg.Word(w)))
			}
			return nil
		}
	}
	o, err := c.src(a, p.Type)
	if err != nil {
		return err
	}
	for w := 0; w < words; w++ {
		c.emit(ori.OpMOV, nil, []ori.Operand{phys(w)}, word(o, w))
	}
	return nil
}

func (c *fn) takeResult(r *ptx.Operand, p *ptx.VarDecl, base, words int) error {
	phys := func(w int) ori.Operand { return ori.R(ori.PReg(ori.ClassR, base+w, 1)) }
	if r.Kind != ptx.OpName {
		return c.l.errorf(r.Pos, "call results must be names")
	}
	if v := c.lookupVar(r.Name); v != nil && v.slot != nil {
		for w := 0; w < words && w < len(v.slot.words); w++ {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(v.slot.words[w])}, phys(w))
		}
		return nil
	}
	pr, reg, ok := c.reg(r)
	if !ok {
		return c.l.errorf(r.Pos, "%s is not a .param variable or register", r.Name)
	}
	if pr.pred {
		c.emit(ori.OpISETP, []string{"NE", "U32", "AND"}, []ori.Operand{ori.R(reg), ori.R(ori.PT)}, phys(0), ori.R(ori.RZ), ori.R(ori.PT))
		return nil
	}
	for w := 0; w < words && w < int(reg.Words); w++ {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(reg.Word(w))}, phys(w))
	}
	return nil
}

// indirectCall lowers "call (rets), %rd, (args), proto;": the prototype
// (or the first function of a .calltargets list) gives the parameter
// layout, and CALL takes the function address in a register.
func (c *fn) indirectCall(in *ptx.Instr, rets, target, args, proto *ptx.Operand) error {
	if proto.Kind != ptx.OpName {
		return c.l.errorf(proto.Pos, "expected a .callprototype or .calltargets label")
	}
	var params, results []*ptx.VarDecl
	if pr := c.findProto(c.pf.Body, proto.Name); pr != nil {
		params, results = pr.Params, pr.Rets
	} else if tl := c.findCallTargets(c.pf.Body, proto.Name); tl != nil && len(tl.Args) > 0 {
		f := c.l.funcs[tl.Args[0]]
		if f == nil {
			return c.l.errorf(proto.Pos, "%s names unknown function %s", proto.Name, tl.Args[0])
		}
		params, results = f.Params, f.Rets
	} else {
		return c.l.errorf(proto.Pos, "%s is not a .callprototype or .calltargets label", proto.Name)
	}
	_, addr, ok := c.reg(target)
	if !ok {
		return c.l.errorf(target.Pos, "indirect call target %s is not a register", target.Name)
	}
	bases, words := abiLayout(params)
	if args != nil {
		if len(args.Elems) != len(params) {
			return c.l.errorf(proto.Pos, "call passes %d arguments, the prototype takes %d", len(args.Elems), len(params))
		}
		for k, a := range args.Elems {
			if err := c.passArg(a, params[k], bases[k], words[k]); err != nil {
				return err
			}
		}
	}
	words64 := 2
	if c.l.out.AddressSize == 32 {
		words64 = 1
	}
	c.setRetAddr("", params, results)
	c.emit(ori.OpCALL, []string{"REL", "NOINC"}, nil, ori.R(addr.Wide(words64)))
	if rets != nil {
		rb, rw := abiLayout(results)
		if len(rets.Elems) != len(results) {
			return c.l.errorf(proto.Pos, "call receives %d results, the prototype returns %d", len(rets.Elems), len(results))
		}
		for k, r := range rets.Elems {
			if err := c.takeResult(r, results[k], rb[k], rw[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *fn) findProto(b *ptx.Block, name string) *ptx.Prototype {
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Prototype:
			if x.Name == name {
				return x
			}
		case *ptx.Block:
			if p := c.findProto(x, name); p != nil {
				return p
			}
		}
	}
	return nil
}

func (c *fn) findCallTargets(b *ptx.Block, name string) *ptx.Directive {
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Directive:
			if x.Label == name && x.Name == ".calltargets" {
				return x
			}
		case *ptx.Block:
			if d := c.findCallTargets(x, name); d != nil {
				return d
			}
		}
	}
	return nil
}
