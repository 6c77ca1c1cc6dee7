package lower

import (
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// Decision: shared memory has one layout for the whole module. Module-
// scope .shared variables come first (after the system's reserved KB on
// sm_90, ori.SharedReserved), then every function's own .shared
// variables (kernels' and device functions'), each at a fixed offset, so a
// device function finds its variables at the same place whichever kernel
// calls it. Every kernel's static window is the whole layout (ptxas sizes
// it per kernel from the call graph; orilab over-allocates instead), and
// .extern .shared arrays — the dynamic part — start at its size rounded
// up to 16.
type sharedLayout struct {
	module map[string]int64            // module-scope variable -> offset
	local  map[string]map[string]int64 // function -> its variables -> offset
	vars   []ori.SharedVar
	size   int64
	dyn    int64 // where dynamic shared memory starts
	dynOf  map[string]bool
}

func (l *lowerer) layoutShared() {
	sl := &sharedLayout{module: map[string]int64{}, local: map[string]map[string]int64{}, dynOf: map[string]bool{}}
	// On sm_90 the first KB of the window is the system's
	// (ori.SharedReserved): variables start after it, as ptxas places
	// them, and the window's size counts it.
	sl.size = ori.SharedReserved(l.out.Arch)
	place := func(v *ptx.VarDecl, n *ptx.VarName, into map[string]int64, qual string) {
		if isExtern(v) && len(n.Dims) > 0 && n.Dims[0] < 0 {
			sl.dynOf[n.Name] = true
			return
		}
		size := declSize(v, n)
		sl.size = alignUp(sl.size, declAlign(v))
		into[n.Name] = sl.size
		sl.vars = append(sl.vars, ori.SharedVar{Name: qual + n.Name, Offset: sl.size, Size: size})
		sl.size += size
	}
	for _, it := range l.m.Items {
		if v, ok := it.(*ptx.VarDecl); ok && v.Space == ".shared" {
			for _, n := range v.Names {
				place(v, n, sl.module, "")
			}
		}
	}
	for _, f := range l.m.Funcs() {
		if f.Body == nil {
			continue
		}
		own := map[string]int64{}
		sl.local[f.Name] = own
		var walk func(b *ptx.Block)
		walk = func(b *ptx.Block) {
			for _, s := range b.Stmts {
				switch x := s.(type) {
				case *ptx.VarDecl:
					if x.Space == ".shared" {
						for _, n := range x.Names {
							place(x, n, own, f.Name+".")
						}
					}
				case *ptx.Block:
					walk(x)
				}
			}
		}
		walk(f.Body)
	}
	if len(sl.vars) == 0 && len(sl.dynOf) == 0 {
		// Nothing shared: no window, and no reservation to keep.
		sl.size = 0
	}
	sl.dyn = alignUp(sl.size, 16)
	l.sharedL = sl
}

// placeShared binds the shared variables visible in the function.
func (c *fn) placeShared() error {
	sl := c.l.sharedL
	top := c.vars[0]
	for name, off := range sl.module {
		top[name] = &varInfo{kind: vkShared, off: off}
	}
	for name := range sl.dynOf {
		top[name] = &varInfo{kind: vkShared, off: sl.dyn}
	}
	for name, off := range sl.local[c.pf.Name] {
		top[name] = &varInfo{kind: vkShared, off: off}
	}
	c.f.SharedVars = append([]ori.SharedVar(nil), sl.vars...)
	c.f.SharedBytes = sl.size
	c.sharedStatic = sl.size
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

// retarget points every block operand naming block from at block to.
func (c *fn) retarget(from, to int32) {
	if int(from) >= len(c.targeted) || !c.targeted[from] {
		return
	}
	c.noteTargets([]ori.Operand{ori.BlockRef(int(to))})
	for _, b := range c.order {
		for _, in := range b.Insts {
			for i := range in.Srcs {
				if in.Srcs[i].Kind == ori.OpdBlock && in.Srcs[i].Block == from {
					in.Srcs[i].Block = to
				}
			}
		}
	}
}

// noteTargets records the blocks that srcs names in c.targeted.
func (c *fn) noteTargets(srcs []ori.Operand) {
	for _, o := range srcs {
		if o.Kind != ori.OpdBlock || o.Block < 0 {
			continue
		}
		if int(o.Block) >= len(c.targeted) {
			c.targeted = append(c.targeted, make([]bool, int(o.Block)+1-len(c.targeted))...)
		}
		c.targeted[o.Block] = true
	}
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
				// It may be a branch target (the skip block of a guarded
				// expansion): it falls through into the label, so its
				// branches go there instead.
				c.order = c.order[:len(c.order)-1]
				c.retarget(c.cur.ID, nb.ID)
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
		case *ptx.Directive:
			// .loc and most pragmas carry no code. "nounroll" marks the
			// block it stands in, the loop header (ptxas sets the same
			// bit in its block descriptor while lowering).
			if x.Name == ".pragma" {
				for _, a := range x.Args {
					if strings.Trim(a, `"`) == "nounroll" {
						c.cur.NoUnroll = true
					}
				}
			}
		case *ptx.Prototype:
			// Indirect calls look prototypes up by name when they need them.
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
	if f := hopperFeature(in); f != "" {
		return c.hopperUnsupported(in, f)
	}
	h := handlers[in.Op]
	if h == nil {
		return c.l.unsupported(in.OpPos, "the %s instruction is not implemented in the lowering", in.Op)
	}
	return h(c, in)
}

// newInst returns a zeroed instruction from c's slab: one allocation
// per run of instructions instead of one each (lowering makes most of
// a compilation's instructions). The slab grows from 16 to 256, so a
// small function leaves little of it unused.
func (c *fn) newInst() *ori.Inst {
	if len(c.instSlab) == 0 {
		c.instSlabN = min(max(2*c.instSlabN, 16), 256)
		c.instSlab = make([]ori.Inst, c.instSlabN)
	}
	in := &c.instSlab[0]
	c.instSlab = c.instSlab[1:]
	return in
}

// emit appends an instruction under the current PTX instruction's guard.
func (c *fn) emit(op ori.Opcode, mods []string, dsts []ori.Operand, srcs ...ori.Operand) *ori.Inst {
	in := c.emitRaw(op, mods, dsts, srcs...)
	in.Guard, in.GuardNot = c.guard, c.gNot
	return in
}

// emitRaw appends an unguarded instruction.
func (c *fn) emitRaw(op ori.Opcode, mods []string, dsts []ori.Operand, srcs ...ori.Operand) *ori.Inst {
	in := c.newInst()
	*in = ori.Inst{Op: op, Mods: mods, Guard: ori.PT, Ctrl: ori.NoCtrl, Dsts: dsts, Srcs: srcs}
	c.noteTargets(srcs)
	if c.in != nil {
		in.Line = c.in.Pos.Line
	}
	c.f.Add(c.cur, in)
	return in
}

// ret returns from the function: EXIT in a kernel; in a .func, the
// results go to R4.. and RET follows, returning through the address the
// caller passed (retAddr).
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
	// The callee pops its frame before returning, so the caller's stack
	// pointer (and its frame-relative locals and spill slots) are intact
	// after the call. The frame size is filled in by prologue.
	sp := ori.PReg(ori.ClassR, 1, 1)
	c.epilogues = append(c.epilogues, c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(sp)}, ori.R(sp), ori.Imm(0), ori.R(ori.RZ)))
	c.emit(ori.OpRET, []string{"REL", "NODEC"}, nil, ori.R(c.retAddr))
	c.endBlock()
}
