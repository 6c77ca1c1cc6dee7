package lower

import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// placeShared lays out the CTA's static shared window: module-scope
// .shared variables first, in declaration order at the same offsets in
// every kernel (so device functions can address them), then the kernel's
// own .shared variables. .extern .shared arrays are the dynamic part and
// start at the static size rounded up to 16.
func (c *fn) placeShared() error {
	var off int64
	var dynamic []string
	place := func(v *ptx.VarDecl, n *ptx.VarName, scope map[string]*varInfo) {
		if isExtern(v) && len(n.Dims) > 0 && n.Dims[0] < 0 {
			dynamic = append(dynamic, n.Name)
			return
		}
		size := declSize(v, n)
		off = alignUp(off, declAlign(v))
		scope[n.Name] = &varInfo{kind: vkShared, off: off, size: size}
		c.f.SharedVars = append(c.f.SharedVars, ori.SharedVar{Name: n.Name, Offset: off, Size: size})
		off += size
	}
	top := c.vars[0]
	for _, it := range c.l.m.Items {
		if v, ok := it.(*ptx.VarDecl); ok && v.Space == ".shared" {
			for _, n := range v.Names {
				place(v, n, top)
			}
		}
	}
	if c.pf.Body != nil {
		var walk func(b *ptx.Block)
		walk = func(b *ptx.Block) {
			for _, s := range b.Stmts {
				switch x := s.(type) {
				case *ptx.VarDecl:
					if x.Space == ".shared" {
						// Function-scope shared variables are placed up
						// front; block scoping does not matter for
						// addresses, and PTX names them uniquely in practice.
						for _, n := range x.Names {
							place(x, n, top)
						}
					}
				case *ptx.Block:
					walk(x)
				}
			}
		}
		walk(c.pf.Body)
	}
	c.sharedStatic = off
	dyn := alignUp(off, 16)
	for _, name := range dynamic {
		top[name] = &varInfo{kind: vkShared, off: dyn}
	}
	c.f.SharedBytes = off
	return nil
}

// setBlock makes b current and appends it to the layout.
func (c *fn) setBlock(b *ori.Block) {
	c.cur = b
	c.order = append(c.order, b)
}

// labelBlock returns the block a label names, creating it (outside the
// layout) on first reference.
func (c *fn) labelBlock(name string) *ori.Block {
	if b := c.labels[name]; b != nil {
		return b
	}
	b := c.f.NewBlock(name)
	c.labels[name] = b
	return b
}

// endBlock starts a new fall-through block after a terminator.
func (c *fn) endBlock() {
	c.setBlock(c.f.NewBlock(""))
}

func (c *fn) block(b *ptx.Block) error {
	c.pushScope()
	defer c.popScope()
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Label:
			nb := c.labelBlock(x.Name)
			if len(c.cur.Insts) == 0 && c.cur.Label == "" && len(c.order) > 1 {
				// An empty unlabeled fall-through block just before a
				// label: replace it, so the layout has no empty blocks.
				c.order = c.order[:len(c.order)-1]
			}
			c.setBlock(nb)
		case *ptx.VarDecl:
			if err := c.decl(x); err != nil {
				return err
			}
		case *ptx.Block:
			if err := c.block(x); err != nil {
				return err
			}
		case *ptx.Instr:
			if err := c.instr(x); err != nil {
				return err
			}
		case *ptx.Prototype, *ptx.Directive:
			// .loc/.pragma/prototypes carry no code; indirect calls look
			// prototypes up by name when they need them.
		}
	}
	return nil
}

// decl handles a declaration inside a function body.
func (c *fn) decl(v *ptx.VarDecl) error {
	switch v.Space {
	case ".reg":
		c.declareRegs(v)
	case ".local":
		scope := c.vars[len(c.vars)-1]
		for _, n := range v.Names {
			size := declSize(v, n)
			align := declAlign(v)
			c.frame = alignUp(c.frame, align)
			scope[n.Name] = &varInfo{kind: vkLocal, off: c.frame, size: size}
			c.frame += size
		}
	case ".shared":
		// Placed by placeShared.
	case ".param":
		// A call-site parameter: word registers passed in R4.. at the call.
		scope := c.vars[len(c.vars)-1]
		for _, n := range v.Names {
			size := declSize(v, n)
			slot := &paramSlot{size: size}
			for w := int64(0); w < (size+3)/4; w++ {
				r := c.f.NewVReg(ori.ClassR, 1)
				slot.words = append(slot.words, r)
				// Defined up front so partially written parameters are
				// well-defined.
				c.emitRaw(ori.OpMOV, nil, []ori.Operand{ori.R(r)}, ori.R(ori.RZ))
			}
			scope[n.Name] = &varInfo{kind: vkCallParm, size: size, slot: slot}
		}
	case ".global":
		// Laid out with the module's globals by collectGlobals.
	case ".const":
		if !isExtern(v) {
			return c.l.unsupported(v.Pos, ".const variables declared inside a function")
		}
	default:
		return c.l.unsupported(v.Pos, "%s declarations inside a function", v.Space)
	}
	return nil
}

func (c *fn) instr(in *ptx.Instr) error {
	c.in = in
	c.guard, c.gNot = ori.PT, false
	if in.Guard != nil {
		r := c.lookupReg(in.Guard.Reg)
		if r == nil || !r.pred {
			return c.l.errorf(in.Guard.Pos, "guard %s is not a predicate register", in.Guard.Reg)
		}
		c.guard, c.gNot = r.reg, in.Guard.Neg
	}
	h := handlers[in.Op]
	if h == nil {
		return c.l.unsupported(in.OpPos, "the %s instruction is not implemented in the lowering", in.Op)
	}
	return h(c, in)
}

// emit appends an instruction under the current PTX instruction's guard.
func (c *fn) emit(op ori.Opcode, mods []string, dsts []ori.Operand, srcs ...ori.Operand) *ori.Inst {
	in := c.emitRaw(op, mods, dsts, srcs...)
	in.Guard, in.GuardNot = c.guard, c.gNot
	return in
}

// emitRaw appends an unguarded instruction.
func (c *fn) emitRaw(op ori.Opcode, mods []string, dsts []ori.Operand, srcs ...ori.Operand) *ori.Inst {
	in := ori.NewInst(op, mods...)
	in.Dsts = dsts
	in.Srcs = srcs
	if c.in != nil {
		in.Line = c.in.Pos.Line
	}
	c.f.Add(c.cur, in)
	return in
}

// ret returns from the function: EXIT in a kernel; in a .func, the
// results go to R4.. and RET follows.
func (c *fn) ret(p ptx.Pos) {
	if c.f.Entry {
		c.emit(ori.OpEXIT, nil, nil)
		c.endBlock()
		return
	}
	for i, slot := range c.retSlots {
		base := int(c.f.Rets[i].Offset)
		if r := c.retRegs[i]; r != nil {
			if r.pred {
				c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(ori.PReg(ori.ClassR, base, 1))}, ori.Imm(1), ori.R(ori.RZ), ori.R(r.reg))
				continue
			}
			for w := 0; w < int(r.reg.Words); w++ {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(ori.PReg(ori.ClassR, base+w, 1))}, ori.R(r.reg.Word(w)))
			}
			continue
		}
		for w, r := range slot.words {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(ori.PReg(ori.ClassR, base+w, 1))}, ori.R(r))
		}
	}
	c.emit(ori.OpRET, nil, nil)
	c.endBlock()
}
