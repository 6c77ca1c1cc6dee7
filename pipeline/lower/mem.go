package lower

import (
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerLd, "ld", "ldu")
	register(lowerSt, "st")
	register(lowerMov, "mov")
	register(lowerCvta, "cvta")
	register(lowerIsspacep, "isspacep")
	register(lowerPrefetch, "prefetch", "prefetchu")
	register(lowerCreatepolicy, "createpolicy")
	register(lowerCp, "cp")
}

// lowerCreatepolicy: a cache eviction policy is an opaque 64-bit hint that
// only ld/st with .L2::cache_hint consume, and they ignore it here. The
// lowering gives it the value 0.
func lowerCreatepolicy(c *fn, in *ptx.Instr) error {
	if len(in.Args) < 1 {
		return c.l.errorf(in.OpPos, "createpolicy needs a destination")
	}
	d, err := c.dst(in.Args[0], ".b64")
	if err != nil {
		return err
	}
	c.mov(d, ori.Imm(0), int(d.Words))
	return nil
}

// lowerCp handles cp.async. With Options.CpAsyncLDGSTS on sm_80 and
// later it is LDGSTS (cpasync.go); otherwise the asynchronous copy from
// global to shared memory is performed synchronously (loads then stores, zero-filling
// beyond src-size), which is one valid execution of it: commit_group and
// wait_group then have nothing left to wait for.
func lowerCp(c *fn, in *ptx.Instr) error {
	if !in.HasMod(".async") {
		return c.l.unsupported(in.OpPos, "cp%s", strings.Join(in.Mods, ""))
	}
	if c.l.opts.CpAsyncLDGSTS && c.l.out.Arch >= 80 && !in.HasMod(".bulk") && !in.HasMod(".mbarrier") &&
		(len(in.Args) >= 3 || in.HasMod(".commit_group") || in.HasMod(".wait_group") || in.HasMod(".wait_all")) {
		return cpAsyncLDGSTS(c, in) // cpasync.go
	}
	if in.HasMod(".commit_group") || in.HasMod(".wait_group") || in.HasMod(".wait_all") {
		return nil
	}
	if in.HasMod(".bulk") || len(in.Args) < 3 {
		return c.l.unsupported(in.OpPos, "cp%s", strings.Join(in.Mods, ""))
	}
	dst, src, size, err := c.cpOperands(in)
	if err != nil {
		return err
	}
	srcSize := size
	if len(in.Args) > 3 {
		v, ok := in.Args[3].Int()
		if !ok {
			return c.cpAsyncDynamic(in, dst, src, size)
		}
		srcSize = v
	}
	for off := int64(0); off < size; off += 4 {
		r := c.newReg(1)
		switch {
		case off+4 <= srcSize:
			a := src.op
			a.Imm += off
			c.emit(ori.OpLDG, []string{"E"}, []ori.Operand{ori.R(r)}, a)
		case off < srcSize:
			// A partial word: load it bytewise and zero the rest.
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r)}, ori.R(ori.RZ))
			for b := off; b < srcSize; b++ {
				t := c.newReg(1)
				a := src.op
				a.Imm += b
				c.emit(ori.OpLDG, []string{"E", "U8"}, []ori.Operand{ori.R(t)}, a)
				c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(t)}, ori.R(t), ori.Imm(8*(b-off)), ori.R(ori.RZ))
				c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(r)}, ori.R(r), ori.R(t), ori.R(ori.RZ), ori.Imm(0xfc), ori.R(ori.PT))
			}
		default:
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r)}, ori.R(ori.RZ))
		}
		a := dst.op
		a.Imm += off
		c.emit(ori.OpSTS, nil, nil, a, ori.R(r))
	}
	return nil
}

// cpOperands returns cp.async's shared destination, global source and
// copy size (4, 8 or 16 bytes), the operands both lowerings read alike.
func (c *fn) cpOperands(in *ptx.Instr) (dst, src memRef, size int64, err error) {
	if dst, err = c.address(in.Args[0], ".shared"); err != nil {
		return
	}
	if src, err = c.address(in.Args[1], ".global"); err != nil {
		return
	}
	size, ok := in.Args[2].Int()
	if !ok || size != 4 && size != 8 && size != 16 {
		err = c.l.errorf(in.Args[2].Pos, "cp.async copies 4, 8 or 16 bytes")
	}
	return
}

// cpAsyncDynamic lowers cp.async whose fourth operand is a register:
// src-size (a .u32: copy that many bytes, zero the rest up to cp-size) or
// ignore-src (a predicate: when true, copy nothing and zero all).
//
// Each word that holds a byte below src-size is loaded whole (guarded by
// src-size > off, and by the instruction's own guard), and the bytes at
// or past src-size are masked off: with n = min(src-size, cp-size),
//
//	MOV r = RZ ; @(n > off) LDG.E r = [src+off]
//	BMSK m = RZ, 8*n - 8*off   (a width of 32 or more keeps the word)
//	LOP3.LUT r = r & m ; STS [dst+off], r
//
// six instructions and one live value a word (it was a word load plus
// four guarded byte loads, shifts and ORs: cp_async_srcsize needed 41
// registers where ptxas needs 18). A word with no byte below src-size is
// not read at all (Triton masks out-of-bounds tiles with src-size 0).
// With ignore-src the words are all copied or all zeroed: one predicate
// guards every load, and nothing is masked.
//
// Decision: the partial word is read whole, up to three bytes past
// src-size inside the aligned word. ptxas's own code reads more: it
// lowers this cp.async to LDGSTS.E.128.ZFILL, which reads the aligned
// 16-byte block and takes the zero-fill count in the source address's
// low bits (ptxas 13.0.88 computes the address as src + ((16 - n) & 15)
// for testdata/kernels/cp_async_srcsize), and the manual lets cp.async
// fetch beyond its data (.level::prefetch_size). An aligned word that
// holds a valid byte cannot cross a page, so the extra bytes cannot
// fault on a GPU; orilab's simulator, whose buffers end at their exact
// size, would fault only for a buffer whose length is not a multiple of 4.
// Decision: a src-size above cp-size copies cp-size bytes (the manual
// leaves it undefined).
func (c *fn) cpAsyncDynamic(in *ptx.Instr, dst, src memRef, size int64) error {
	n := c.newReg(1)
	guard := ori.Operand{Kind: ori.OpdReg, Reg: c.guard, Not: c.gNot}
	// With ignore-src every word is copied whole or not at all: one
	// predicate (not ignored, and the instruction's guard) and no masks.
	var whole ori.Reg
	if r, reg, ok := c.reg(in.Args[3]); ok && r.pred {
		c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(n)}, ori.R(ori.RZ), ori.Imm(size), ori.R(reg))
		whole = c.newPred()
		c.emitRaw(ori.OpISETP, []string{"NE", "U32", "AND"}, []ori.Operand{ori.R(whole), ori.R(ori.PT)}, ori.R(n), ori.R(ori.RZ), guard)
	} else {
		o, err := c.src(in.Args[3], ".u32")
		if err != nil {
			return err
		}
		c.emit(ori.OpIMNMX, []string{"U32"}, []ori.Operand{ori.R(n)}, c.asReg(word(o, 0)), ori.Imm(size), ori.R(ori.PT))
	}
	var bits ori.Reg
	if !whole.Virtual {
		bits = c.newReg(1)
		c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(bits)}, ori.R(n), ori.Imm(3), ori.R(ori.RZ))
	}
	for off := int64(0); off < size; off += 4 {
		r := c.newReg(1)
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r)}, ori.R(ori.RZ))
		p := whole
		if !whole.Virtual {
			p = c.newPred()
			c.emitRaw(ori.OpISETP, []string{"GT", "U32", "AND"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, ori.R(n), ori.Imm(off), guard)
		}
		a := src.op
		a.Imm += off
		ld := c.emitRaw(ori.OpLDG, []string{"E"}, []ori.Operand{ori.R(r)}, a)
		ld.Guard = p
		if whole.Virtual {
			d := dst.op
			d.Imm += off
			c.emit(ori.OpSTS, nil, nil, d, ori.R(r))
			continue
		}
		w := bits
		if off > 0 {
			w = c.newReg(1)
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(w)}, ori.R(bits), ori.Imm(-8*off), ori.R(ori.RZ))
		}
		m := c.newReg(1)
		c.emit(ori.OpBMSK, nil, []ori.Operand{ori.R(m)}, ori.R(ori.RZ), ori.R(w))
		c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(r)}, ori.R(r), ori.R(m), ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
		d := dst.op
		d.Imm += off
		c.emit(ori.OpSTS, nil, nil, d, ori.R(r))
	}
	return nil
}

// space returns the state space modifier of a memory instruction, or ""
// for generic addressing.
func space(in *ptx.Instr) string {
	for _, m := range in.Mods {
		switch m {
		case ".global", ".shared", ".shared::cta", ".local", ".const", ".param", ".param::entry", ".param::func":
			switch m {
			case ".shared::cta":
				return ".shared"
			case ".param::entry", ".param::func":
				return ".param"
			}
			return m
		case ".shared::cluster":
			return m
		}
	}
	return ""
}

// vecLen returns 2, 4 or 8 for .v2/.v4/.v8 and 1 otherwise.
func vecLen(in *ptx.Instr) int {
	for _, m := range in.Mods {
		switch m {
		case ".v2":
			return 2
		case ".v4":
			return 4
		case ".v8":
			return 8
		}
	}
	return 1
}

// sizeMod returns the SASS size modifier for an access of bytes bytes of
// type t: U8/S8/U16/S16, none for 32 bits, 64 or 128.
func sizeMod(bytes int64, t string) []string {
	switch bytes {
	case 1:
		if isSigned(t) {
			return []string{"S8"}
		}
		return []string{"U8"}
	case 2:
		if isSigned(t) {
			return []string{"S16"}
		}
		return []string{"U16"}
	case 8:
		return []string{"64"}
	case 16:
		return []string{"128"}
	}
	return nil
}

// memRef is a resolved address.
type memRef struct {
	op    ori.Operand // OpdMem or OpdCBank
	space string      // effective space: .global .shared .local .const .param (kernel) or "" generic
	slot  *paramSlot  // .func/call-site parameter: the words, with byte offset off
	off   int64
}

// address resolves the address operand of a memory instruction in the
// given space.
//
// Decision: with .address_size 32 a global or generic access takes its
// 32-bit address zero-extended into a register pair (MOV lo = a, MOV
// hi = RZ). From sm_70 on, LD/ST/LDG/STG/ATOM/RED address memory through
// the 64-bit .E form (the encoder refuses a 32-bit base there, and
// ptxas 13.0 rejects .address_size 32 outright: "32-Bit compilation is
// no longer supported", so there is no newer ptxas output to follow);
// zero extension keeps every 32-bit address, generic windows included
// (ori/SEMANTICS.md), where it was, so the simulator's results do not
// change.
func (c *fn) address(o *ptx.Operand, sp string) (memRef, error) {
	m, err := c.address32(o, sp)
	if err != nil || c.l.out.AddressSize != 32 || (m.space != "" && m.space != ".global") {
		return m, err
	}
	if m.op.Kind == ori.OpdMem && m.op.HasBase && m.op.Reg.Words == 1 && !m.op.Reg.IsZero() {
		r := c.newReg(2)
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.R(m.op.Reg))
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(1))}, ori.R(ori.RZ))
		m.op.Reg = r
	}
	return m, nil
}

// address32 resolves an address as the module's address size has it (a
// 32-bit register for 32-bit global and generic addresses).
func (c *fn) address32(o *ptx.Operand, sp string) (memRef, error) {
	if o.Kind != ptx.OpAddr {
		return memRef{}, c.l.errorf(o.Pos, "expected an address")
	}
	if len(o.Elems) != 1 {
		return memRef{}, c.l.unsupported(o.Pos, "multi-part addresses outside texture instructions")
	}
	base := o.Elems[0]
	off := base.Off
	if base.Kind == ptx.OpInt {
		v, _ := base.Int()
		return memRef{op: ori.AbsMem(v), space: sp}, nil
	}
	if _, reg, ok := c.reg(base); ok {
		if sp == ".param" {
			if c.pf.Entry {
				// A kernel parameter's address is its bank-0 offset
				// (symAddr).
				o := ori.CBank(0, off)
				o.Reg, o.HasBase = reg.Word(0), true
				return memRef{op: o, space: ".param"}, nil
			}
			// A .func parameter's address is that of its copy in the
			// local frame (symAddr).
			return memRef{op: ori.Mem(reg.Word(0), off), space: ".local"}, nil
		}
		if sp == ".const" {
			// A .const address is an offset into bank 3: LDC with an index.
			o := ori.CBank(constBank, off)
			o.Reg, o.HasBase = reg.Word(0), true
			return memRef{op: o, space: ".const"}, nil
		}
		words := 1
		if (sp == "" || sp == ".global") && c.l.out.AddressSize == 64 {
			words = 2
		}
		if reg.Words < uint8(words) {
			return memRef{}, c.l.unsupported(base.Pos, "a 32-bit register as a 64-bit address")
		}
		return memRef{op: ori.Mem(reg.Wide(words), off), space: sp}, nil
	}
	// A named variable.
	if v := c.lookupVar(base.Name); v != nil {
		switch v.kind {
		case vkKernelParm:
			return memRef{op: ori.CBank(0, v.off+off), space: ".param"}, nil
		case vkFuncParm, vkCallParm:
			return memRef{slot: v.slot, off: off, space: ".param"}, nil
		case vkShared:
			if sp != ".shared" && sp != "" {
				return memRef{}, c.l.errorf(base.Pos, "%s is a .shared variable, accessed as %s", base.Name, sp)
			}
			// A generic access to the variable itself is a shared
			// access (its generic address lies in the shared window),
			// as a named .global variable used without a space is a
			// global one: ptxas 13.0.88 writes LDS.128 [RZ] for ZLUDA
			// cp_async's ld.b32 [to], [to+4], ... of a .shared array.
			return memRef{op: ori.AbsMem(v.off + off), space: ".shared"}, nil
		case vkLocal:
			if sp == "" {
				a := c.newReg(1)
				c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(a)}, ori.R(ori.PReg(ori.ClassR, 1, 1)), ori.Imm(v.off), ori.R(ori.RZ))
				return memRef{op: ori.Mem(c.genericAddr(".local", ori.R(a)), off), space: ""}, nil
			}
			return memRef{op: ori.Mem(ori.PReg(ori.ClassR, 1, 1), v.off+off), space: ".local"}, nil
		}
	}
	if g := c.l.globals[base.Name]; g != nil {
		if g.Space == ori.SpaceConst {
			return memRef{op: ori.CBank(constBank, g.Offset+off), space: ".const"}, nil
		}
		a := c.globalAddr(g)
		return memRef{op: ori.Mem(a, off), space: ".global"}, nil
	}
	if c.l.moduleLocal(base.Name) {
		return memRef{}, c.l.unsupported(base.Pos, "the module-scope .local variable %s in device function %s (orilab places those in the kernel's frame)", base.Name, c.pf.Name)
	}
	return memRef{}, c.l.unsupported(base.Pos, "the address %s", base.Name)
}

// sharedAddr writes into d the 32-bit shared address of the window
// offset off: the offset itself before sm_90; from sm_90 on, the offset
// with the CTA's rank in its cluster in bits 24-31, which is also the
// variable's .shared::cluster address:
//
//	MOV  %b = off
//	S2R  %c = SR_CgaCtaId
//	LEA  d  = %c, %b, 0x18
//
// Decision: this is ptxas 13.0.88's sequence for mov.u32 %r, sym on
// sm_90 (at -O0 MOV R3, 0x400; S2R R6, SR_CgaCtaId; LEA R3, R6, R3,
// 0x18; at -O3 the same in the uniform datapath: UMOV, S2UR, ULEA).
// ptxas also addresses ld/st.shared [sym+k] through that register
// ([UR4+0x4]); orilab keeps the absolute address there ([0x404]), which
// is the same address while the CTA's rank is 0, as it is in every
// launch without a cluster: the lowering refuses the cluster
// instructions (lower/hopper.go), orilab's cubins declare no cluster
// dimensions and orilab gpu run launches with cuLaunchKernel.
// The generic address of a variable (cvta, or ld [sym] without a
// space) is the window base plus the offset, without the rank bits, for
// the same reason.
func (c *fn) sharedAddr(d ori.Reg, off int64) {
	if c.l.out.Arch < 90 {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, ori.Imm(off))
		return
	}
	b := c.newReg(1)
	rank := c.newReg(1)
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(b)}, ori.Imm(off))
	c.emit(ori.OpS2R, nil, []ori.Operand{ori.R(rank)}, ori.SR("SR_CgaCtaId"))
	c.emit(ori.OpLEA, nil, []ori.Operand{ori.R(d)}, ori.R(rank), ori.R(b), ori.Imm(24))
}

// globalAddr loads the 64-bit address of a module .global variable from
// its bank-4 slot.
func (c *fn) globalAddr(g *ori.Global) ori.Reg {
	r := c.newReg(2)
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.CBank(globalBank, g.AddrSlot))
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(1))}, ori.CBank(globalBank, g.AddrSlot+4))
	if c.l.out.AddressSize == 32 {
		return r.Word(0)
	}
	return r
}

// memOps returns the load and store opcodes and leading modifiers for a
// space.
func (c *fn) memOps(in *ptx.Instr, sp string) (ld, st ori.Opcode, mods []string, err error) {
	switch sp {
	case ".global":
		mods = []string{"E"}
		if in.HasMod(".nc") || in.Op == "ldu" {
			mods = append(mods, "CONSTANT")
		}
		return ori.OpLDG, ori.OpSTG, append(mods, memOrder(in)...), nil
	case ".shared":
		return ori.OpLDS, ori.OpSTS, nil, nil
	case ".local":
		return ori.OpLDL, ori.OpSTL, nil, nil
	case "":
		return ori.OpLD, ori.OpST, append([]string{"E"}, memOrder(in)...), nil
	case ".const":
		return ori.OpLDC, ori.OpInvalid, nil, nil
	}
	return 0, 0, nil, c.l.unsupported(in.OpPos, "memory accesses in %s", sp)
}

// memOrder returns the SASS ordering modifiers of a global or generic
// ld/st: .volatile is STRONG.SYS (what ptxas emits for it on sm_70 and
// later), .relaxed, .acquire and .release are STRONG with their scope
// (.cta: SM, .gpu or none: GPU, .sys: SYS). Weak accesses have none. The
// simulator is sequentially consistent, so the modifiers change no
// result; they tell the optimizer which loads must not be hoisted,
// commoned or merged (LICM and vectorization leave ordered accesses
// alone), as a spin loop on a volatile flag needs.
func memOrder(in *ptx.Instr) []string {
	strong := in.HasMod(".relaxed") || in.HasMod(".acquire") || in.HasMod(".release")
	switch {
	case in.HasMod(".volatile"):
		return []string{"STRONG", "SYS"}
	case !strong:
		return nil
	case in.HasMod(".cta"):
		return []string{"STRONG", "SM"}
	case in.HasMod(".sys"):
		return []string{"STRONG", "SYS"}
	}
	return []string{"STRONG", "GPU"}
}

// destRegs returns the element registers of a load's destination: one
// register, or the elements of a vector brace.
func (c *fn) destRegs(o *ptx.Operand, t string, n int) ([]ori.Reg, error) {
	if o.Kind == ptx.OpVec {
		if len(o.Elems) != n {
			return nil, c.l.errorf(o.Pos, "vector has %d elements, the instruction moves %d", len(o.Elems), n)
		}
		regs := make([]ori.Reg, n)
		for i, e := range o.Elems {
			r, err := c.dst(e, t)
			if err != nil {
				return nil, err
			}
			regs[i] = r
		}
		return regs, nil
	}
	if n != 1 {
		// A vector register (.v4 .f32 %v) as the whole destination.
		if _, reg, ok := c.reg(o); ok && int(reg.Words) >= n*wordsOf(t) {
			regs := make([]ori.Reg, n)
			for i := range regs {
				regs[i] = reg.Word(i * wordsOf(t)).Wide(wordsOf(t))
			}
			return regs, nil
		}
		return nil, c.l.errorf(o.Pos, "a .v%d access needs a vector operand", n)
	}
	r, err := c.dst(o, t)
	if err != nil {
		return nil, err
	}
	return []ori.Reg{r}, nil
}

// extendTo fills the words of r above the loaded width: zero, or copies
// of the sign for signed types.
func (c *fn) extendTo(r ori.Reg, loadedWords int, t string) {
	for w := loadedWords; w < int(r.Words); w++ {
		if isSigned(t) {
			c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(r.Word(w))}, ori.R(ori.RZ), ori.Imm(31), ori.R(r.Word(loadedWords-1)))
		} else {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(w))}, ori.R(ori.RZ))
		}
	}
}

func lowerLd(c *fn, in *ptx.Instr) error {
	if len(in.Args) < 2 {
		return c.l.errorf(in.OpPos, "ld needs a destination and an address")
	}
	// A third operand is an L2 cache policy (ld.global.L2::cache_hint):
	// a performance hint with no effect on the result.
	t := lastType(in)
	n := vecLen(in)
	sp := space(in)
	regs, err := c.destRegs(in.Args[0], t, n)
	if err != nil {
		return err
	}
	ref, err := c.address(in.Args[1], sp)
	if err != nil {
		return err
	}
	eb := typeBytes(t)
	if ref.slot != nil {
		for i, r := range regs {
			c.readSlot(r, ref.slot, ref.off+int64(i)*eb, eb, t)
		}
		return nil
	}
	if ref.space == ".param" || ref.space == ".const" {
		// Constant-bank data: MOV for aligned words, LDC otherwise.
		for i, r := range regs {
			cb := ref.op
			cb.Imm += int64(i) * eb
			if eb >= 4 {
				for w := 0; w < int(eb/4); w++ {
					cw := cb
					cw.Imm += int64(4 * w)
					if cb.HasBase {
						c.emit(ori.OpLDC, nil, []ori.Operand{ori.R(r.Word(w))}, cw)
					} else {
						c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(w))}, cw)
					}
				}
				c.extendTo(r, int(eb/4), t)
				continue
			}
			c.emit(ori.OpLDC, sizeMod(eb, t), []ori.Operand{ori.R(r.Word(0))}, cb)
			c.extendTo(r, 1, t)
		}
		return nil
	}
	ldOp, _, mods, err := c.memOps(in, ref.space)
	if err != nil {
		return err
	}
	total := eb * int64(n)
	// One wide access when the elements are words and the vector fits a
	// 64- or 128-bit load; per-element accesses otherwise.
	if eb >= 4 && n > 1 && total <= 16 {
		tmp := c.newReg(int(total / 4))
		c.emit(ldOp, append(append([]string{}, mods...), sizeMod(total, t)...), []ori.Operand{ori.R(tmp)}, ref.op)
		ew := int(eb / 4)
		for i, r := range regs {
			for w := 0; w < ew; w++ {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(w))}, ori.R(tmp.Word(i*ew+w)))
			}
			c.extendTo(r, ew, t)
		}
		return nil
	}
	for i, r := range regs {
		addr := ref.op
		addr.Imm += int64(i) * eb
		words := int((eb + 3) / 4)
		dst := r.Wide(words)
		if int(r.Words) < words {
			return c.l.errorf(in.Args[0].Pos, "destination is narrower than the %d-byte load", eb)
		}
		c.emit(ldOp, append(append([]string{}, mods...), sizeMod(eb, t)...), []ori.Operand{ori.R(dst)}, addr)
		c.extendTo(r, words, t)
	}
	return nil
}

func lowerSt(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 2 && len(in.Args) != 3 {
		return c.l.unsupported(in.OpPos, "st with %d operands", len(in.Args))
	}
	// A third operand is a cache policy hint; it does not change the store.
	t := lastType(in)
	n := vecLen(in)
	sp := space(in)
	ref, err := c.address(in.Args[0], sp)
	if err != nil {
		return err
	}
	var vals []ori.Operand
	v := in.Args[1]
	if v.Kind == ptx.OpVec {
		if len(v.Elems) != n {
			return c.l.errorf(v.Pos, "vector has %d elements, the instruction moves %d", len(v.Elems), n)
		}
		for _, e := range v.Elems {
			o, err := c.src(e, t)
			if err != nil {
				return err
			}
			vals = append(vals, o)
		}
	} else if n > 1 {
		_, reg, ok := c.reg(v)
		if !ok {
			return c.l.errorf(v.Pos, "a .v%d store needs a vector operand", n)
		}
		for i := 0; i < n; i++ {
			vals = append(vals, ori.R(reg.Word(i*wordsOf(t)).Wide(wordsOf(t))))
		}
	} else {
		o, err := c.src(v, t)
		if err != nil {
			return err
		}
		vals = []ori.Operand{o}
	}
	if typeBits(t) == 8 {
		elems := []*ptx.Operand{v}
		if v.Kind == ptx.OpVec {
			elems = v.Elems
		}
		for i, e := range elems {
			if i < len(vals) {
				vals[i] = c.ptxasByteStore(in, e, t, vals[i])
			}
		}
	}
	eb := typeBytes(t)
	if ref.slot != nil {
		for i, val := range vals {
			c.writeSlot(ref.slot, ref.off+int64(i)*eb, eb, val)
		}
		return nil
	}
	if ref.space == ".param" || ref.space == ".const" {
		return c.l.unsupported(in.OpPos, "stores to %s", ref.space)
	}
	_, stOp, mods, err := c.memOps(in, ref.space)
	if err != nil {
		return err
	}
	total := eb * int64(n)
	if eb >= 4 && n > 1 && total <= 16 {
		tmp := c.newReg(int(total / 4))
		ew := int(eb / 4)
		for i, val := range vals {
			for w := 0; w < ew; w++ {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(tmp.Word(i*ew + w))}, word(val, w))
			}
		}
		c.emit(stOp, append(append([]string{}, mods...), sizeMod(total, t)...), nil, ref.op, ori.R(tmp))
		return nil
	}
	for i, val := range vals {
		addr := ref.op
		addr.Imm += int64(i) * eb
		val = c.regOperand(val, int((eb+3)/4))
		c.emit(stOp, append(append([]string{}, mods...), sizeMod(eb, t)...), nil, addr, val)
	}
	return nil
}

// regOperand returns val as a register operand of words words, moving an
// immediate or constant into a fresh register first (stores take a
// register value).
func (c *fn) regOperand(val ori.Operand, words int) ori.Operand {
	if val.Kind == ori.OpdReg && !val.Neg && !val.Not {
		if val.Reg.IsZero() && words > 1 {
			tmp := c.newReg(words)
			c.mov(tmp, val, words)
			return ori.R(tmp)
		}
		val.Reg = val.Reg.Wide(words)
		return val
	}
	if val.Kind == ori.OpdImm && val.Imm == 0 && words == 1 {
		return ori.R(ori.RZ) // STS [a], RZ as ptxas writes it
	}
	tmp := c.newReg(words)
	c.movFresh(tmp, val, words)
	return ori.R(tmp)
}

// movFresh moves val into tmp, a register fresh for it. An immediate is
// moved without the instruction's guard: writing a constant into a
// register nothing else defines has no effect a guard could withhold,
// and an unguarded constant is one that copy propagation and constant
// folding can see (a guarded "@p st [a], 0" stores RZ instead of holding
// a register for the zero; fixup-bar-red-deadlock's eight guarded
// stores of constants held eight registers). Anything else keeps the
// guard.
func (c *fn) movFresh(tmp ori.Reg, val ori.Operand, words int) {
	if val.Kind != ori.OpdImm {
		c.mov(tmp, val, words)
		return
	}
	for i := 0; i < words; i++ {
		w := word(val, i)
		if w.Kind == ori.OpdImm && w.Imm == 0 {
			w = ori.R(ori.RZ) // a register copy, which copy propagation folds into the use
		}
		c.emitRaw(ori.OpMOV, nil, []ori.Operand{ori.R(tmp.Word(i))}, w)
	}
}

// readSlot reads bytes [off, off+size) of a parameter slot into r.
func (c *fn) readSlot(r ori.Reg, s *paramSlot, off, size int64, t string) {
	if off%4 == 0 && size >= 4 {
		for w := int64(0); w < size/4; w++ {
			idx := (off / 4) + w
			if int(idx) < len(s.words) {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(int(w)))}, ori.R(s.words[idx]))
			}
		}
		c.extendTo(r, int(size/4), t)
		return
	}
	// A sub-word piece: shift it down and extend.
	src := s.words[off/4]
	sh := (off % 4) * 8
	bits := size * 8
	tmp := c.newReg(1)
	c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(tmp)}, ori.R(ori.RZ), ori.Imm(sh), ori.R(src))
	mods := []string{"U32"}
	if isSigned(t) {
		mods = nil
	}
	c.emit(ori.OpSGXT, mods, []ori.Operand{ori.R(r.Word(0))}, ori.R(tmp), ori.Imm(bits))
	c.extendTo(r, 1, t)
}

// writeSlot writes size bytes of val at byte offset off of a parameter
// slot.
func (c *fn) writeSlot(s *paramSlot, off, size int64, val ori.Operand) {
	if off%4 == 0 && size >= 4 {
		for w := int64(0); w < size/4; w++ {
			idx := off/4 + w
			if int(idx) < len(s.words) {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(s.words[idx])}, word(val, int(w)))
			}
		}
		return
	}
	dst := s.words[off/4]
	sh := (off % 4) * 8
	mask := uint32(1)<<(uint(size)*8) - 1
	shifted := c.newReg(1)
	c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(shifted)}, word(val, 0), ori.Imm(sh), ori.R(ori.RZ))
	// dst = (dst & ~m) | (shifted & m)
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(dst)}, ori.R(dst), ori.R(shifted), ori.Imm(int64(mask<<uint(sh))), ori.Imm(int64(lut3(func(a, b, m bool) bool { return a && !m || b && m }))), ori.R(ori.PT))
}

// lut3 computes the LOP3 truth table of f: bit (a<<2|b<<1|c) is f(a,b,c),
// the convention of the SASS LOP3.LUT immediate (a=0xF0, b=0xCC, c=0xAA).
func lut3(f func(a, b, c bool) bool) uint8 {
	var t uint8
	for i := 0; i < 8; i++ {
		if f(i&4 != 0, i&2 != 0, i&1 != 0) {
			t |= 1 << i
		}
	}
	return t
}

func lowerMov(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 2 {
		return c.l.errorf(in.OpPos, "mov needs two operands")
	}
	t := lastType(in)
	d, s := in.Args[0], in.Args[1]
	if t == ".pred" {
		dr, err := c.dst(d, t)
		if err != nil {
			return err
		}
		return c.setPred(dr, s)
	}
	// Vector moves (mov.v4.u16 foo, {a, b, c, d} and back): element-wise.
	if n := vecLen(in); n > 1 {
		dsts, err := c.destRegs(d, t, n)
		if err != nil {
			return err
		}
		var srcs []ori.Operand
		if s.Kind == ptx.OpVec {
			if len(s.Elems) != n {
				return c.l.errorf(s.Pos, "vector has %d elements, the instruction moves %d", len(s.Elems), n)
			}
			for _, e := range s.Elems {
				o, err := c.src(e, t)
				if err != nil {
					return err
				}
				srcs = append(srcs, o)
			}
		} else {
			regs, err := c.destRegs(s, t, n)
			if err != nil {
				return err
			}
			for _, r := range regs {
				srcs = append(srcs, ori.R(r))
			}
		}
		// Copy through temporaries: the element lists may overlap
		// ({a, b} = {b, a}).
		tmps := make([]ori.Reg, n)
		for i, o := range srcs {
			tmps[i] = c.newReg(wordsOf(t))
			c.mov(tmps[i], o, wordsOf(t))
		}
		for i, r := range dsts {
			c.mov(r, ori.R(tmps[i]), wordsOf(t))
		}
		return nil
	}
	// Unpack: mov.b64 {a, b}, %rd / mov.b32 {lo, hi}, %r.
	if d.Kind == ptx.OpVec {
		src, err := c.src(s, t)
		if err != nil {
			return err
		}
		n := len(d.Elems)
		pieceBits := typeBits(t) / n
		for i, e := range d.Elems {
			if e.Kind == ptx.OpSink {
				continue
			}
			r, err := c.dst(e, ".b32")
			if err != nil {
				return err
			}
			c.extractBits(r, src, i*pieceBits, pieceBits)
		}
		return nil
	}
	dr, err := c.dst(d, t)
	if err != nil {
		return err
	}
	// Pack: mov.b64 %rd, {a, b} / mov.b32 %r, {lo, hi}.
	if s.Kind == ptx.OpVec {
		n := len(s.Elems)
		pieceBits := typeBits(t) / n
		var parts []ori.Operand
		for _, e := range s.Elems {
			o, err := c.src(e, ".b32")
			if err != nil {
				return err
			}
			parts = append(parts, o)
		}
		c.pack(dr, parts, pieceBits)
		return nil
	}
	// A vector register of sub-word elements (.v2.b16, .v4.u8) keeps
	// each element in its own word: a scalar moved into it is split into
	// elements, and moved out of it packed from them (mov.b32 %x, %v).
	if pr, _, ok := c.reg(d); ok && d.Comp == "" && pr.vec > 0 && typeBytes(pr.typ) < 4 {
		src, err := c.src(s, t)
		if err != nil {
			return err
		}
		eb := int(typeBytes(pr.typ)) * 8
		for i := 0; i < pr.vec && i*eb < typeBits(t); i++ {
			c.extractBits(dr.Word(i), src, i*eb, eb)
		}
		return nil
	}
	if pr, sr, ok := c.reg(s); ok && s.Comp == "" && pr.vec > 0 && typeBytes(pr.typ) < 4 && typeBits(t) == pr.vec*int(typeBytes(pr.typ))*8 && typeBits(t)%32 == 0 {
		var parts []ori.Operand
		for i := 0; i < pr.vec; i++ {
			parts = append(parts, ori.R(sr.Word(i)))
		}
		c.pack(dr, parts, int(typeBytes(pr.typ))*8)
		return nil
	}
	src, err := c.src(s, t)
	if err != nil {
		return err
	}
	words := wordsOf(t)
	if int(dr.Words) < words {
		words = int(dr.Words)
	}
	c.mov(dr, src, words)
	if words < int(dr.Words) {
		c.extendTo(dr, words, ".u32")
	}
	return nil
}

// setPred sets predicate p from a predicate source or an immediate.
func (c *fn) setPred(p ori.Reg, s *ptx.Operand) error {
	if s.Kind == ptx.OpInt {
		v, _ := s.Int()
		lut := int64(0)
		if v != 0 {
			lut = 0xff
		}
		c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, ori.R(ori.PT), ori.R(ori.PT), ori.R(ori.PT), ori.Imm(lut), ori.Imm(0))
		return nil
	}
	r, _, ok := c.reg(s)
	if !ok || !r.pred {
		return c.l.errorf(s.Pos, "mov.pred needs a predicate source")
	}
	src := ori.R(r.reg)
	src.Not = s.Not
	// PLOP3 with the table "a": 0xF0.
	c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, src, ori.R(ori.PT), ori.R(ori.PT), ori.Imm(0xf0), ori.Imm(0))
	return nil
}

// extractBits sets the 32-bit register r to bits [lo, lo+n) of src (a 32-
// or 64-bit operand), zero-extended.
func (c *fn) extractBits(r ori.Reg, src ori.Operand, lo, n int) {
	w := lo / 32
	sh := lo % 32
	if n == 32 && sh == 0 {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r)}, word(src, w))
		return
	}
	if sh == 0 {
		c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(r)}, word(src, w), ori.Imm(int64(uint32(1)<<uint(n)-1)), ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
		return
	}
	c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(r)}, ori.R(ori.RZ), ori.Imm(int64(sh)), c.asReg(word(src, w)))
	if sh+n < 32 {
		c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(r)}, ori.R(r), ori.Imm(int64(uint32(1)<<uint(n)-1)), ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
	}
}

// asReg returns o as a register operand, moving a non-register into a
// fresh register.
func (c *fn) asReg(o ori.Operand) ori.Operand {
	if o.Kind == ori.OpdReg {
		return o
	}
	r := c.newReg(1)
	c.movFresh(r, o, 1)
	return ori.R(r)
}

// pack builds dst from pieces of pieceBits bits each, lowest first.
func (c *fn) pack(dst ori.Reg, parts []ori.Operand, pieceBits int) {
	if pieceBits >= 32 {
		pw := pieceBits / 32
		for i, p := range parts {
			for w := 0; w < pw; w++ {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(dst.Word(i*pw + w))}, word(p, w))
			}
		}
		return
	}
	per := 32 / pieceBits
	for w := 0; w < len(parts)/per; w++ {
		group := parts[w*per : (w+1)*per]
		out := dst.Word(w)
		if pieceBits == 16 {
			// PRMT picks bytes 0-1 of a and bytes 0-1 of b (4-5 of b:a).
			c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(out)}, c.asReg(group[0]), ori.Imm(0x5410), c.asReg(group[1]))
			continue
		}
		// 8-bit pieces: two PRMTs.
		lo := c.newReg(1)
		hi := c.newReg(1)
		c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(lo)}, c.asReg(group[0]), ori.Imm(0x0040), c.asReg(group[1]))
		c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(hi)}, c.asReg(group[2]), ori.Imm(0x0040), c.asReg(group[3]))
		c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(out)}, ori.R(lo), ori.Imm(0x5410), ori.R(hi))
	}
}

// symAddr returns the address of a variable used as a value (mov
// %rd, sym): a global address from bank 4, a shared-window offset, or a
// local-window address relative to the stack pointer.
func (c *fn) symAddr(o *ptx.Operand, t string) (ori.Operand, error) {
	words := wordsOf(t)
	off := o.Off
	if o.HasIdx {
		return ori.Operand{}, c.l.unsupported(o.Pos, "array element addresses (%s[%d])", o.Name, o.Idx)
	}
	if v := c.lookupVar(o.Name); v != nil {
		switch v.kind {
		case vkShared:
			r := c.newReg(words)
			c.sharedAddr(r.Word(0), v.off+off)
			c.extendTo(r, 1, ".u32")
			return ori.R(r), nil
		case vkLocal:
			r := c.newReg(words)
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(r.Word(0))}, ori.R(ori.PReg(ori.ClassR, 1, 1)), ori.Imm(v.off+off), ori.R(ori.RZ))
			c.extendTo(r, 1, ".u32")
			return ori.R(r), nil
		case vkKernelParm:
			// Decision: the .param-space address of a kernel parameter
			// is its byte offset in constant bank 0, where the driver
			// puts it; ld.param through the address then reads
			// c[0x0][Rx+off] with LDC (address). ptxas folds a constant
			// one into c[0x0][0x16c] directly. Generic use (cvta.param)
			// is refused there.
			r := c.newReg(words)
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.Imm(v.off+off))
			c.extendTo(r, 1, ".u32")
			return ori.R(r), nil
		}
		if v.kind == vkFuncParm && v.slot != nil {
			// The parameter lives in registers; its address is that of a
			// copy in the local frame, written where the address is taken
			// (parameters are read-only, so every copy is the same).
			if !v.hasCopy {
				c.frame = alignUp(c.frame, 8)
				v.hasCopy, v.copyOff = true, c.frame
				c.frame += int64(len(v.slot.words)) * 4
			}
			sp := ori.PReg(ori.ClassR, 1, 1)
			for i, wr := range v.slot.words {
				c.emit(ori.OpSTL, nil, nil, ori.Mem(sp, v.copyOff+int64(4*i)), ori.R(wr))
			}
			r := c.newReg(words)
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(r.Word(0))}, ori.R(sp), ori.Imm(v.copyOff+off), ori.R(ori.RZ))
			c.extendTo(r, 1, ".u32")
			return ori.R(r), nil
		}
		return ori.Operand{}, c.l.unsupported(o.Pos, "taking the address of parameter %s", o.Name)
	}
	if g := c.l.globals[o.Name]; g != nil {
		if g.Space == ori.SpaceConst {
			// The .const-space address: the offset in bank 3.
			r := c.newReg(words)
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.Imm(g.Offset+off))
			c.extendTo(r, 1, ".u32")
			return ori.R(r), nil
		}
		a := c.globalAddr(g)
		if off == 0 {
			return ori.R(a), nil
		}
		r := c.newReg(int(a.Words))
		c.add(r, ori.R(a), ori.Imm(off), int(a.Words))
		return ori.R(r), nil
	}
	if c.l.funcs[o.Name] != nil {
		idx := c.l.funcIndex(o.Name)
		if idx < 0 {
			return ori.Operand{}, c.l.unsupported(o.Pos, "the address of %s, which this module declares but does not define", o.Name)
		}
		// The address is the callee's offset from the kernel's start,
		// known only when the cubin writer lays the kernel out.
		r := c.newReg(words)
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.FuncAddrOf(o.Name))
		if words > 1 {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(1))}, ori.Imm(0))
		}
		return ori.R(r), nil
	}
	if c.l.moduleLocal(o.Name) {
		return ori.Operand{}, c.l.unsupported(o.Pos, "the module-scope .local variable %s in device function %s (orilab places those in the kernel's frame)", o.Name, c.pf.Name)
	}
	if clusterSpecialRegs[o.Name] {
		return ori.Operand{}, c.l.unsupported(o.Pos, "the special register %s (%s)", o.Name, hopperCluster)
	}
	return ori.Operand{}, c.l.errorf(o.Pos, "%s is not a register or variable", o.Name)
}

// windowBase returns a register pair holding the generic-address base of
// the shared, local, constant or kernel-parameter window.
func (c *fn) windowBase(sp string) ori.Reg {
	off := int64(cbSharedWin)
	switch sp {
	case ".local":
		off = cbLocalWin
	case ".const":
		off = cbConstWin
	case ".param":
		off = cbParamWin
	}
	r := c.newReg(2)
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.CBank(0, off))
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(1))}, ori.CBank(0, off+4))
	return r
}

// genericAddr returns a 64-bit register holding the generic address of a
// shared or local window offset.
func (c *fn) genericAddr(sp string, off ori.Operand) ori.Reg {
	base := c.windowBase(sp)
	r := c.newReg(2)
	carry := c.newPred()
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(r.Word(0)), ori.R(carry)}, off, ori.R(base.Word(0)), ori.R(ori.RZ))
	c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(r.Word(1))}, ori.R(ori.RZ), ori.R(base.Word(1)), ori.R(ori.RZ), ori.R(carry), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
	return r
}

func lowerCvta(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 2 {
		return c.l.errorf(in.OpPos, "cvta needs two operands")
	}
	t := lastType(in)
	to := in.HasMod(".to")
	sp := ""
	for _, m := range in.Mods {
		switch m {
		case ".global", ".shared", ".shared::cta", ".local", ".const", ".param":
			sp = m
		}
	}
	if sp == ".shared::cta" {
		sp = ".shared"
	}
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	src, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	words := wordsOf(t)
	if sp == ".param" {
		// Decision: the generic window of the kernel parameters maps
		// window base + x to constant bank 0 offset x, the .param-space
		// address of a kernel parameter (lowerAddrOf). ptxas 13.0 does
		// the same with its own base, c[0x0][0x198] on sm_90 (c[0x0][0x40]
		// on sm_80), and parameter-relative offsets: cvta.param of q at
		// offset 8 then LD.E [R4.64+0x8]. With 32-bit addresses the
		// windows fill the top of the space and there is no room for it.
		if c.l.out.AddressSize != 64 || words != 2 {
			return c.l.unsupported(in.OpPos, "cvta for the .param space with 32-bit addresses")
		}
		if c.pf != nil && !c.pf.Entry {
			return c.l.unsupported(in.OpPos, "cvta for the .param space in a device function (its parameters live in registers)")
		}
	}
	switch sp {
	case ".global":
		c.mov(d, src, words)
		return nil
	case ".shared", ".local", ".const", ".param":
		base := c.windowBase(sp)
		if to {
			// generic -> window offset: subtract the base.
			if words == 2 {
				carry := c.newPred()
				neg := ori.R(base.Word(0))
				neg.Neg = true
				c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0)), ori.R(carry)}, word(src, 0), neg, ori.R(ori.RZ))
				inv := ori.R(base.Word(1))
				inv.Not = true
				c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(d.Word(1))}, word(src, 1), inv, ori.R(ori.RZ), ori.R(carry), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
			} else {
				neg := ori.R(base.Word(0))
				neg.Neg = true
				c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0))}, word(src, 0), neg, ori.R(ori.RZ))
			}
			return nil
		}
		// window offset -> generic: add the base to the 32-bit offset.
		if words == 2 {
			carry := c.newPred()
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0)), ori.R(carry)}, word(src, 0), ori.R(base.Word(0)), ori.R(ori.RZ))
			c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(d.Word(1))}, ori.R(ori.RZ), ori.R(base.Word(1)), ori.R(ori.RZ), ori.R(carry), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
		} else {
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0))}, word(src, 0), ori.R(base.Word(0)), ori.R(ori.RZ))
		}
		return nil
	}
	return c.l.unsupported(in.OpPos, "cvta for the %s space", sp)
}

func lowerIsspacep(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 2 {
		return c.l.errorf(in.OpPos, "isspacep needs two operands")
	}
	p, err := c.dst(in.Args[0], ".pred")
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], ".u64")
	if err != nil {
		return err
	}
	if c.l.out.AddressSize == 32 {
		return c.isspacep32(in, p, word(a, 0))
	}
	hi := word(a, 1)
	// Windows are 4 GiB-aligned: an address is in a window when its high
	// word equals the window base's high word.
	inWin := func(off int64) ori.Reg {
		q := c.newPred()
		c.emit(ori.OpISETP, []string{"EQ", "U32", "AND"}, []ori.Operand{ori.R(q), ori.R(ori.PT)}, hi, ori.CBank(0, off+4), ori.R(ori.PT))
		return q
	}
	switch {
	case in.HasMod(".shared") || in.HasMod(".shared::cta"):
		q := inWin(cbSharedWin)
		c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, ori.R(q), ori.R(ori.PT), ori.R(ori.PT), ori.Imm(0xf0), ori.Imm(0))
	case in.HasMod(".local"):
		q := inWin(cbLocalWin)
		c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, ori.R(q), ori.R(ori.PT), ori.R(ori.PT), ori.Imm(0xf0), ori.Imm(0))
	case in.HasMod(".global"):
		s := inWin(cbSharedWin)
		l := inWin(cbLocalWin)
		// p = !s && !l
		c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, ori.R(s), ori.R(l), ori.R(ori.PT), ori.Imm(int64(lut3(func(a, b, _ bool) bool { return !a && !b }))), ori.Imm(0))
	default:
		return c.l.unsupported(in.OpPos, "isspacep for this space")
	}
	return nil
}

// isspacep32 lowers isspacep for 32-bit generic addresses (a 64-bit
// operand's high word is zero there: cvta adds a 32-bit window base).
//
// Decision: ptxas 13.0 no longer compiles 32-bit code, so the windows are
// orilab's own (sim/mem.go windows): shared at 0xC000_0000, constant at
// 0xD000_0000, local from 0xE000_0000 to the top of the space. An address
// is shared in [shared base, constant base), local at or above the local
// base, and global below the shared base; the constant window is none of
// the three, as on 64-bit targets where it lies outside every window but
// the global test (which there counts it as global, not having a bound).
func (c *fn) isspacep32(in *ptx.Instr, p ori.Reg, lo ori.Operand) error {
	setp := func(d ori.Reg, cmp string, win int64, in ori.Reg) {
		c.emit(ori.OpISETP, []string{cmp, "U32", "AND"}, []ori.Operand{ori.R(d), ori.R(ori.PT)}, lo, ori.CBank(0, win), ori.R(in))
	}
	switch {
	case in.HasMod(".shared") || in.HasMod(".shared::cta"):
		q := c.newPred()
		setp(q, "GE", cbSharedWin, ori.PT)
		setp(p, "LT", cbConstWin, q)
	case in.HasMod(".local"):
		setp(p, "GE", cbLocalWin, ori.PT)
	case in.HasMod(".global"):
		setp(p, "LT", cbSharedWin, ori.PT)
	default:
		return c.l.unsupported(in.OpPos, "isspacep for this space")
	}
	return nil
}

func lowerPrefetch(c *fn, in *ptx.Instr) error {
	// Prefetches are performance hints with no architectural effect; the
	// lowering drops them (ptxas emits CCTL, which the simulator would
	// treat as a no-op too).
	return nil
}
