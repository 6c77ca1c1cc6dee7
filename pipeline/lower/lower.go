package lower

import (
	"sort"
	"strconv"
	"strings"

	"orilab/internal/par"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// Options configures the lowering.
type Options struct {
	// Arch is the SM target (75 for sm_75). Zero takes the module's
	// .target, and sm_75 (ptxas's default) when that is older than sm_75:
	// orilab generates code for Turing and later only.
	Arch int
	// NoContract keeps every mul and add of PTX apart (ptxas --fmad=false);
	// by default those without a rounding modifier are contracted into
	// fused multiply-adds where ptxas contracts them (contract.go).
	NoContract bool
	// NoApproxFold keeps rcp, sqrt, rsqrt, lg2, ex2, sin and cos
	// .approx.f32 of compile-time constants on the unit; by default they
	// are folded to ptxas's compile-time result (approxfold.go).
	NoApproxFold bool
	// UndefinedReads, when set, is called for every function whose PTX
	// reads registers before writing them on some path from the entry,
	// with the function's name and those registers' PTX names (each once,
	// in program order), before the lowering defines them as zero (see
	// defineUndefined). The reducer uses it to reject candidates whose
	// deletions leave a register undefined.
	UndefinedReads func(fn string, regs []string)
	// Jobs bounds how many functions are lowered at once (0 and 1: one
	// after another). Each function is lowered from the module's
	// read-only tables (globals, the shared-memory and texture layouts),
	// so the result is the same; with UndefinedReads set the functions
	// are lowered in order, so that it is called in program order.
	Jobs int
	// OutlineSlowPaths puts the slow path of rsqrt.approx.f64 into a
	// subroutine the module shares (slowpath.go) instead of inline in
	// every instruction; the pipeline sets it unless the knob
	// OutlineF64SlowPath is off.
	OutlineSlowPaths bool
	// OutlineF32Div puts the slow path of the IEEE f32 division
	// (div.rnd.f32, rcp.rnd.f32: the f64 detour behind FCHK.DIVIDE) into
	// a subroutine the module shares, one per rounding mode and flush
	// mode (slowpath.go); the pipeline sets it unless the knob
	// OutlineF32SlowPath is off.
	OutlineF32Div bool
	// CpAsyncLDGSTS lowers cp.async on sm_80 and later to LDGSTS,
	// LDGDEPBAR and DEPBAR as ptxas does (cpasync.go) instead of loads
	// into registers and stores; the pipeline sets it unless the knob
	// CpAsyncLDGSTS is off.
	CpAsyncLDGSTS bool
}

// ParamBase returns the constant bank 0 offset of the first kernel
// parameter for an SM target.
func ParamBase(arch int) int64 {
	if arch >= 90 {
		return 0x210
	}
	return 0x160
}

// Constant bank 0 layout (see ori/SEMANTICS.md).
const (
	cbNtid        = 0x0
	cbNctaid      = 0xc
	cbSharedWin   = 0x18
	cbLocalWin    = 0x20
	cbStack       = 0x28
	cbDynSmem     = 0x30
	cbTotalSmem   = 0x34
	cbConstWin    = 0x38
	cbParamWin    = 0x40
	globalBank    = 4
	constBank     = 3
	firstABIParam = 4 // .func arguments and results start at R4 (R0-R3 are ABI-reserved)
)

// handler lowers one PTX instruction.
type handler func(c *fn, in *ptx.Instr) error

// handlers maps a PTX base opcode to its lowering; family files register
// theirs in init functions.
var handlers = map[string]handler{}

func register(h handler, ops ...string) {
	for _, op := range ops {
		if _, dup := handlers[op]; dup {
			panic("lower: two handlers for " + op)
		}
		handlers[op] = h
	}
}

// Lower translates m. The error, when not nil, is a *ptx.Error (or a list
// of them) in the front end's format.
func Lower(m *ptx.Module, opts Options) (*ori.Module, error) {
	arch := opts.Arch
	if arch == 0 {
		arch = m.SM()
	}
	// ptxas refuses a module whose .target is newer than -arch ("SM
	// version specified by .target is higher than default SM version
	// assumed"): its code may use what the older target lacks.
	if t := m.SM(); opts.Arch > 0 && t > opts.Arch {
		return nil, m.Errorf(targetPos(m), "the module's .target sm_%d is newer than the compilation target sm_%d (ptxas: SM version specified by .target is higher than default SM version assumed)", t, opts.Arch)
	}
	if arch < 75 {
		arch = 75
	}
	asz := m.AddressSize
	if asz == 0 {
		asz = 32 // PTX's default when .address_size is absent
	}
	m = inlineBRXFuncs(m)
	l := &lowerer{m: m, out: &ori.Module{Arch: arch, AddressSize: asz}, globals: map[string]*ori.Global{}, funcs: map[string]*ptx.Func{}, opts: opts}
	if err := l.collectGlobals(); err != nil {
		return nil, err
	}
	l.layoutShared()
	l.private = privateFuncs(m)
	if opts.OutlineSlowPaths || opts.OutlineF32Div {
		l.slow = NewSlowPaths(l.out)
	}
	for _, f := range m.Funcs() {
		if f.Body != nil || l.funcs[f.Name] == nil {
			l.funcs[f.Name] = f
		}
	}
	var bodies []*ptx.Func
	for _, f := range m.Funcs() {
		if f.Body != nil {
			bodies = append(bodies, f)
		}
	}
	if opts.Jobs > 1 && opts.UndefinedReads == nil && len(bodies) > 1 {
		return l.functions(bodies, opts.Jobs)
	}
	for _, f := range bodies {
		of, err := l.function(f, l.slow)
		if err != nil {
			return nil, err
		}
		l.out.Funcs = append(l.out.Funcs, of)
	}
	if err := l.slow.Finish(); err != nil {
		return nil, err
	}
	return l.out, nil
}

// functions lowers fs on up to jobs goroutines and returns the module
// with them in order, or the first function's error in order (the error
// a lowering one after another stops at; par.Do). The texture layout, otherwise
// built when a function first needs it, is built before: it is the one
// piece of the lowerer a function's lowering would write. The slow-path
// subroutines (rsqrt.approx.f64) are made through a view per function
// and placed where the serial lowering appends them (slowpath.go).
func (l *lowerer) functions(fs []*ptx.Func, jobs int) (*ori.Module, error) {
	l.texLayout()
	out := make([]*ori.Func, len(fs))
	views := make([]*SlowPaths, len(fs))
	err := par.Do(len(fs), jobs, func(i int) error {
		var err error
		if l.slow != nil {
			views[i] = l.slow.forFunction()
		}
		out[i], err = l.function(fs[i], views[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	if l.slow == nil {
		l.out.Funcs = out
		return l.out, nil
	}
	l.slow.place(out, views)
	if err := l.slow.Finish(); err != nil {
		return nil, err
	}
	return l.out, nil
}

type lowerer struct {
	m       *ptx.Module
	out     *ori.Module
	globals map[string]*ori.Global // module .global and .const variables
	funcs   map[string]*ptx.Func   // definitions (or declarations) by name
	sharedL *sharedLayout          // the module-wide shared-memory layout
	private map[string]bool        // functions called with the private return pair (private.go)
	opts    Options
	texL    *texLayout // where .texref header words go (tex.go; built on first use)
	// slow makes the slow-path subroutines of the lowering's expansions
	// (rsqrt.approx.f64, the f32 division), nil unless
	// Options.OutlineSlowPaths or Options.OutlineF32Div.
	slow *SlowPaths
}

func (l *lowerer) errorf(p ptx.Pos, format string, args ...any) error {
	return l.m.Errorf(p, format, args...)
}

func (l *lowerer) unsupported(p ptx.Pos, format string, args ...any) error {
	return l.m.Errorf(p, "unsupported: "+format, args...)
}

// collectGlobals lays out module-scope .global and .const variables: .const
// data packed into bank 3, one bank-4 address slot per .global. .global
// variables declared inside a function body are static storage too and
// are laid out the same way (PTX gives them module lifetime). .texref and
// .surfref variables get no storage: they go to ori.Module.TexVars.
func (l *lowerer) collectGlobals() error {
	var constOff, slot int64
	type pending struct {
		v *ptx.VarDecl
		n *ptx.VarName
		g *ori.Global
	}
	var withInit []pending
	texVars := map[string]bool{}
	add := func(v *ptx.VarDecl) error {
		switch {
		case v.Type == ".texref", v.Type == ".surfref", v.Space == ".tex":
			// No storage: the driver binds a texture or surface to the
			// name (ori.Module.TexVars; cubin symbols of type
			// STT_CUDA_TEXTURE/SURFACE, as ptxas writes them).
			for _, n := range v.Names {
				if !texVars[n.Name] {
					texVars[n.Name] = true
					l.out.TexVars = append(l.out.TexVars, ori.TexVar{Name: n.Name, Surface: v.Type == ".surfref"})
				}
			}
			return nil
		case v.Type == ".samplerref":
			// Only independent texturing mode has samplers, and the
			// lowering refuses their use (tex.go); nothing to lay out.
			return nil
		}
		for _, n := range v.Names {
			size := declSize(v, n)
			align := declAlign(v)
			switch v.Space {
			case ".global", ".const":
				if prev := l.globals[n.Name]; prev != nil {
					if isExtern(v) {
						continue
					}
				}
				g := &ori.Global{Name: n.Name, Size: size, Align: align}
				if v.Space == ".const" {
					g.Space = ori.SpaceConst
					constOff = alignUp(constOff, align)
					g.Offset = constOff
					constOff += size
				} else {
					g.Space = ori.SpaceGlobal
					g.AddrSlot = slot
					slot += 8
				}
				l.globals[n.Name] = g
				if n.Init != nil {
					withInit = append(withInit, pending{v, n, g})
				}
			}
		}
		return nil
	}
	for _, it := range l.m.Items {
		switch x := it.(type) {
		case *ptx.VarDecl:
			if err := add(x); err != nil {
				return err
			}
		case *ptx.Func:
			if x.Body == nil {
				continue
			}
			var walk func(b *ptx.Block) error
			walk = func(b *ptx.Block) error {
				for _, st := range b.Stmts {
					switch y := st.(type) {
					case *ptx.VarDecl:
						if y.Space == ".global" && !isExtern(y) {
							for _, n := range y.Names {
								if l.globals[n.Name] != nil {
									return l.unsupported(n.Pos, "function-scope .global %s has the name of another global", n.Name)
								}
							}
							if err := add(y); err != nil {
								return err
							}
						}
					case *ptx.Block:
						if err := walk(y); err != nil {
							return err
						}
					}
				}
				return nil
			}
			if err := walk(x.Body); err != nil {
				return err
			}
		}
	}
	// Initializers last, so they can name any variable's address.
	for _, p := range withInit {
		b, err := l.initBytes(p.v, p.n)
		if err != nil {
			return err
		}
		p.g.Init = b
	}
	names := make([]string, 0, len(l.globals))
	for n := range l.globals {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := l.globals[names[i]], l.globals[names[j]]
		if a.Space != b.Space {
			return a.Space < b.Space
		}
		if a.Space == ori.SpaceConst {
			return a.Offset < b.Offset
		}
		return a.AddrSlot < b.AddrSlot
	})
	for _, n := range names {
		l.out.Globals = append(l.out.Globals, l.globals[n])
	}
	return nil
}

func isExtern(v *ptx.VarDecl) bool {
	for _, l := range v.Linkage {
		if l == ".extern" {
			return true
		}
	}
	return false
}

func alignUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

// typeBytes returns the size of a PTX scalar type.
func typeBytes(t string) int64 {
	switch t {
	case ".b8", ".u8", ".s8", ".e4m3", ".e5m2":
		return 1
	case ".b16", ".u16", ".s16", ".f16", ".bf16", ".e4m3x2", ".e5m2x2":
		return 2
	case ".b32", ".u32", ".s32", ".f32", ".f16x2", ".bf16x2", ".u16x2", ".s16x2", ".tf32":
		return 4
	case ".b64", ".u64", ".s64", ".f64", ".texref", ".samplerref", ".surfref":
		return 8
	case ".b128":
		return 16
	case ".pred":
		return 1
	}
	return 4
}

func declSize(v *ptx.VarDecl, n *ptx.VarName) int64 {
	size := typeBytes(v.Type)
	if v.Vec > 0 {
		size *= int64(v.Vec)
	}
	for i, d := range n.Dims {
		if d < 0 {
			if i == 0 && n.Init != nil {
				d = len(n.Init.Elems)
			} else {
				d = 0
			}
		}
		size *= int64(d)
	}
	return size
}

func declAlign(v *ptx.VarDecl) int64 {
	if v.Align > 0 {
		return int64(v.Align)
	}
	a := typeBytes(v.Type)
	if v.Vec > 0 {
		a *= int64(v.Vec)
	}
	return a
}

// initBytes flattens an initializer into little-endian bytes. A symbol
// in an initializer stands for its address: a .const variable's address is
// its offset in the constant bank (the .const space address). Addresses of
// .global variables or functions would need relocations, which orilab does
// not model; they are reported as unsupported.
func (l *lowerer) initBytes(v *ptx.VarDecl, n *ptx.VarName) ([]byte, error) {
	elem := typeBytes(v.Type)
	var out []byte
	var walk func(in *ptx.Init) error
	walk = func(in *ptx.Init) error {
		if in.Expr == nil {
			for _, e := range in.Elems {
				if err := walk(e); err != nil {
					return err
				}
			}
			return nil
		}
		var bits uint64
		switch in.Expr.Kind {
		case ptx.OpName, ptx.OpGeneric:
			g := l.globals[in.Expr.Name]
			if g == nil || g.Space != ori.SpaceConst || in.Expr.Kind == ptx.OpGeneric {
				return l.unsupported(in.Expr.Pos, "an initializer holding the address of %s (only .const variables' own addresses are supported)", in.Expr.Name)
			}
			bits = uint64(g.Offset + in.Expr.Off)
		default:
			bits = constBits(in.Expr, v.Type)
		}
		for i := int64(0); i < elem; i++ {
			out = append(out, byte(bits>>(8*i)))
		}
		return nil
	}
	if err := walk(n.Init); err != nil {
		return nil, err
	}
	return out, nil
}

// constBits converts a literal operand to the bit pattern of type t.
func constBits(o *ptx.Operand, t string) uint64 {
	switch o.Kind {
	case ptx.OpInt:
		v, _ := o.Int()
		if isFloatType(t) {
			return floatBits(float64(v), t)
		}
		return uint64(v)
	case ptx.OpFloat:
		if strings.HasPrefix(strings.TrimPrefix(o.Text, "-"), "0f") || strings.HasPrefix(strings.TrimPrefix(o.Text, "-"), "0F") {
			f, _ := o.Float()
			if t == ".f32" || t == ".b32" || t == ".u32" || t == ".s32" {
				return uint64(f32bits(f))
			}
			return floatBits(f, t)
		}
		if strings.HasPrefix(strings.TrimPrefix(o.Text, "-"), "0d") || strings.HasPrefix(strings.TrimPrefix(o.Text, "-"), "0D") {
			f, _ := o.Float()
			if t == ".f64" || t == ".b64" || t == ".u64" || t == ".s64" {
				return f64bits(f)
			}
			return floatBits(f, t)
		}
		f, _ := o.Float()
		return floatBits(f, t)
	}
	return 0
}

func isFloatType(t string) bool {
	switch t {
	case ".f16", ".f16x2", ".f32", ".f64", ".bf16", ".bf16x2", ".tf32":
		return true
	}
	return false
}

// fn is the lowering state of one function.
type fn struct {
	l      *lowerer
	pf     *ptx.Func
	f      *ori.Func
	cur    *ori.Block
	scopes []map[string]*preg
	ranges []map[string]*rangeDecl
	labels map[string]*ori.Block
	// targeted[id] is set once an emitted instruction names block id:
	// retarget scans the function only for such a block (it runs at
	// every label after an empty block, and scanning the whole body
	// each time was quadratic in the size of large kernels).
	targeted []bool
	// instSlab and instSlabN: newInst's slab and its current size.
	instSlab  []ori.Inst
	instSlabN int
	in        *ptx.Instr // instruction being lowered (for guards and lines)
	guard     ori.Reg
	gNot      bool
	// slow, when set, takes the f64 division's slow path out of line
	// (slowpath.go); nil keeps it inline.
	slow *SlowPaths
	// vars maps .local/.shared/.param variable names visible in the
	// function to their placement.
	vars []map[string]*varInfo
	// frame is the size of the .local frame so far.
	frame int64
	// ptxNames maps the virtual registers of PTX registers back to their
	// names, kept only for Options.UndefinedReads (its one reader).
	ptxNames map[regKey]string
	// epilogues are the stack-pointer restores emitted before each RET
	// of a .func; their immediate is the frame size, known only when the
	// whole body is lowered (prologue fills them in or drops them).
	epilogues []*ori.Inst
	// usesStack is set when the function addresses its local frame
	// through R1.
	usesStack bool
	// pflow is the control flow of the PTX statements, for reaching
	// definitions (ptxreach.go; built on first use).
	pflow *ptxFlow
	// cplan is the function's mul+add contractions (contract.go; built
	// on first use).
	cplan *contractPlan
	// retRegs and retSlots are the function's results: a PTX register
	// for a .reg result, a word slot for a .param result.
	retRegs  []*preg
	retSlots []*paramSlot
	// retAddr is a .func's return address: a virtual pair copied from
	// the ABI's pair (retAddrReg) at entry and read by every RET, so the
	// allocator keeps it (in a register, or spilled across calls).
	retAddr ori.Reg
	// order is the block layout, in the order blocks become current.
	order []*ori.Block
	// sharedStatic is the kernel's static shared size; dynamic shared
	// memory starts at sharedStatic rounded up to 16.
	sharedStatic int64
}

// preg is a lowered PTX register.
type preg struct {
	reg  ori.Reg // the whole value (Words = 1, 2 or 4)
	typ  string  // declared PTX type
	vec  int     // vector length of a .v2/.v4 register, else 0
	pred bool
}

type rangeDecl struct {
	typ   string
	vec   int
	count int
	// made holds the members made so far, by number: a slice for the
	// usual declaration of the registers a function uses (%r<120>), a
	// map for a range too large to hold one slot per member.
	made    []*preg
	madeMap map[int]*preg
}

// maxDenseRange is the largest range whose members are kept in a slice.
const maxDenseRange = 1 << 14

// member returns member n of the range, nil before it is made.
func (rd *rangeDecl) member(n int) *preg {
	if rd.count <= maxDenseRange {
		if n < len(rd.made) {
			return rd.made[n]
		}
		return nil
	}
	return rd.madeMap[n]
}

// setMember records r as member n (0 <= n < count).
func (rd *rangeDecl) setMember(n int, r *preg) {
	if rd.count <= maxDenseRange {
		if rd.made == nil {
			rd.made = make([]*preg, rd.count)
		}
		rd.made[n] = r
		return
	}
	if rd.madeMap == nil {
		rd.madeMap = map[int]*preg{}
	}
	rd.madeMap[n] = r
}

// varKind says where a named variable lives.
type varKind uint8

const (
	vkLocal      varKind = iota // .local in this function's frame: address R1+off
	vkShared                    // .shared: offset in the CTA window
	vkKernelParm                // kernel .param: c[0x0][off]
	vkFuncParm                  // .func .param: words in slot
	vkCallParm                  // call-site .param: words in slot
)

type varInfo struct {
	kind varKind
	off  int64 // local/shared offset, or constant-bank offset
	size int64
	slot *paramSlot
	// hasCopy and copyOff: a .func parameter whose address is taken gets a
	// copy in the local frame at copyOff.
	hasCopy bool
	copyOff int64
}

// paramSlot holds a .func parameter or a call-site .param variable as
// 32-bit word registers: the calling convention passes it in consecutive
// registers from R4 on.
type paramSlot struct {
	words []ori.Reg
	size  int64
}

// ntid reads a .reqntid or .maxntid list (checked by ptx.Check: one to
// three positive integers); missing dimensions are 1.
func ntid(args []string) [3]int {
	n := [3]int{1, 1, 1}
	for i, a := range args {
		if i < 3 {
			if v, err := strconv.ParseInt(a, 0, 64); err == nil {
				n[i] = int(v)
			}
		}
	}
	return n
}

// function lowers pf; slow (nil: the slow paths stay inline) makes the
// slow-path subroutines it calls.
func (l *lowerer) function(pf *ptx.Func, slow *SlowPaths) (*ori.Func, error) {
	c := &fn{l: l, pf: pf, f: &ori.Func{Name: pf.Name, Entry: pf.Entry}, labels: map[string]*ori.Block{}}
	if slow != nil && (pf.Entry || hasCall(pf.Body)) {
		// A .func without calls returns through the physical pair it
		// received, which a call would overwrite (slowpath.go, CanCall).
		c.slow = slow
	}
	c.guard = ori.PT
	for _, d := range pf.Dirs {
		switch d.Name {
		case ".reqntid":
			c.f.ReqNtid = ntid(d.Args)
		case ".maxntid":
			c.f.MaxNtid = ntid(d.Args)
		}
	}
	c.pushScope()
	entry := c.f.NewBlock("")
	c.cur = entry
	c.order = append(c.order, entry)
	if err := c.params(); err != nil {
		return nil, err
	}
	c.kernelTexRefs()
	if err := c.placeShared(); err != nil {
		return nil, err
	}
	c.moduleLocals()
	if err := c.block(pf.Body); err != nil {
		return nil, err
	}
	// A body that falls off its end returns. An empty unlabeled block
	// after an unconditional terminator is unreachable and needs nothing.
	if c.fallsOffEnd() {
		c.in = nil
		c.guard, c.gNot = ori.PT, false
		c.ret(ptx.Pos{})
	}
	// Every non-empty frame is a multiple of 16 bytes from the start, as
	// the allocator keeps it (pipeline/regalloc/frame.go): R1 is then
	// 16-byte aligned at every phase, which the vectorizer relies on to
	// merge local accesses.
	if c.frame > 0 {
		c.frame = alignUp(c.frame, 16)
	}
	c.f.LocalBytes = c.frame
	c.f.Blocks = c.order
	c.prologue(entry)
	c.removeEmptyBlocks()
	if err := c.f.ComputeCFG(); err != nil {
		return nil, l.errorf(pf.Pos, "internal: %v", err)
	}
	c.defineUndefined()
	return c.f, nil
}

// prologue inserts the stack-pointer setup at the top of a kernel, and the
// frame allocation of a function that uses local memory.
func (c *fn) prologue(entry *ori.Block) {
	var pro []*ori.Inst
	sp := ori.PReg(ori.ClassR, 1, 1)
	if c.f.Entry {
		in := ori.NewInst(ori.OpMOV)
		in.Dsts = []ori.Operand{ori.R(sp)}
		in.Srcs = []ori.Operand{ori.CBank(0, cbStack)}
		in.ID = c.f.NewID()
		in.Line = int32(c.pf.Pos.Line)
		pro = append(pro, in)
	}
	for _, ep := range c.epilogues {
		ep.Srcs[1] = ori.Imm(c.frame)
	}
	if c.frame == 0 && len(c.epilogues) > 0 {
		drop := map[*ori.Inst]bool{}
		for _, ep := range c.epilogues {
			drop[ep] = true
		}
		for _, b := range c.f.Blocks {
			kept := b.Insts[:0]
			for _, in := range b.Insts {
				if !drop[in] {
					kept = append(kept, in)
				}
			}
			b.Insts = kept
		}
	}
	if c.frame > 0 {
		in := ori.NewInst(ori.OpIADD3)
		in.Dsts = []ori.Operand{ori.R(sp)}
		in.Srcs = []ori.Operand{ori.R(sp), ori.Imm(-c.frame), ori.R(ori.RZ)}
		in.ID = c.f.NewID()
		in.Line = int32(c.pf.Pos.Line)
		pro = append(pro, in)
	}
	entry.Insts = append(pro, entry.Insts...)
}

func (c *fn) removeEmptyBlocks() {
	// Empty blocks that are not branch targets are dropped; empty targets
	// stay (they fall through), so labels at the end keep their meaning.
	targets := map[int32]bool{}
	for _, b := range c.f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdBlock {
					targets[o.Block] = true
				}
			}
		}
	}
	out := c.f.Blocks[:0]
	for i, b := range c.f.Blocks {
		if len(b.Insts) == 0 && !targets[b.ID] && i != 0 {
			continue
		}
		out = append(out, b)
	}
	c.f.Blocks = out
}

// moduleLocals places the module-scope .local variables (PTX before 3.0,
// which ptxas compiles without the ABI) in a kernel's frame, as if the
// kernel had declared them.
//
// Decision: a kernel's frame, not a static region of local memory. Each
// thread has one copy either way; the difference is a device function
// that names one, which would need the kernel's frame pointer, and is
// reported as unsupported (l.moduleLocal).
func (c *fn) moduleLocals() {
	if !c.pf.Entry {
		return
	}
	for _, it := range c.l.m.Items {
		if v, ok := it.(*ptx.VarDecl); ok && v.Space == ".local" {
			_ = c.decl(v)
		}
	}
}

// moduleLocal reports whether name is a module-scope .local variable.
func (l *lowerer) moduleLocal(name string) bool {
	for _, it := range l.m.Items {
		if v, ok := it.(*ptx.VarDecl); ok && v.Space == ".local" {
			for _, n := range v.Names {
				if n.Name == name {
					return true
				}
			}
		}
	}
	return false
}

func (c *fn) pushScope() {
	c.scopes = append(c.scopes, map[string]*preg{})
	c.ranges = append(c.ranges, map[string]*rangeDecl{})
	c.vars = append(c.vars, map[string]*varInfo{})
}

func (c *fn) popScope() {
	c.scopes = c.scopes[:len(c.scopes)-1]
	c.ranges = c.ranges[:len(c.ranges)-1]
	c.vars = c.vars[:len(c.vars)-1]
}

// regWords returns how many 32-bit words a register of PTX type t with
// vector length vec occupies.
func regWords(t string, vec int) int {
	w := 1
	if b := typeBytes(t); b > 4 {
		w = int(b / 4)
	}
	if vec > 0 {
		w *= vec
	}
	return w
}

func (c *fn) newPReg(t string, vec int) *preg {
	if t == ".pred" {
		return &preg{reg: c.f.NewVReg(ori.ClassP, 1), typ: t, pred: true}
	}
	w := regWords(t, vec)
	return &preg{reg: c.f.NewVReg(ori.ClassR, w), typ: t, vec: vec}
}

func (c *fn) declareRegs(v *ptx.VarDecl) {
	s := c.scopes[len(c.scopes)-1]
	for _, n := range v.Names {
		if n.Range > 0 {
			c.ranges[len(c.ranges)-1][n.Name] = &rangeDecl{typ: v.Type, vec: v.Vec, count: n.Range}
			continue
		}
		s[n.Name] = c.named(n.Name, c.newPReg(v.Type, v.Vec))
	}
}

// regKey identifies a virtual register regardless of the slice an
// operand takes of it.
type regKey struct {
	class ori.RegClass
	n     int32
}

// named records p as the register of the PTX register name, where
// Options.UndefinedReads may ask for it.
func (c *fn) named(name string, p *preg) *preg {
	if c.l.opts.UndefinedReads == nil {
		return p
	}
	if c.ptxNames == nil {
		c.ptxNames = map[regKey]string{}
	}
	c.ptxNames[regKey{p.reg.Class, p.reg.N}] = name
	return p
}

// lookupReg resolves a PTX register name through the scopes; range
// members are created on first use.
func (c *fn) lookupReg(name string) *preg {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if r := c.scopes[i][name]; r != nil {
			return r
		}
		if len(c.ranges[i]) == 0 {
			continue
		}
		j := len(name)
		for j > 0 && name[j-1] >= '0' && name[j-1] <= '9' {
			j--
		}
		if j == len(name) || j == 0 {
			continue
		}
		rd := c.ranges[i][name[:j]]
		if rd == nil {
			continue
		}
		// name[j:] is all digits; a number too large for an int names
		// no member (fmt.Sscanf, used before, left n at 0 then).
		n, err := strconv.Atoi(name[j:])
		if err != nil || n >= rd.count {
			continue
		}
		if r := rd.member(n); r != nil {
			return r
		}
		// The member is found through its range from now on, not added
		// to the scope's map: a function's registers are mostly range
		// members, and the map grew to hold each of them.
		r := c.named(name, c.newPReg(rd.typ, rd.vec))
		rd.setMember(n, r)
		return r
	}
	return nil
}

func (c *fn) lookupVar(name string) *varInfo {
	for i := len(c.vars) - 1; i >= 0; i-- {
		if v := c.vars[i][name]; v != nil {
			return v
		}
	}
	return nil
}

// params binds the function's parameters: kernel parameters to constant
// bank 0, .func parameters to word registers copied from R4 on.
func (c *fn) params() error {
	top := c.vars[0]
	if c.f.Entry {
		off := ParamBase(c.l.out.Arch)
		for _, p := range c.pf.Params {
			n := p.Names[0]
			size := declSize(p, n)
			align := declAlign(p)
			if align < 4 && size >= 4 {
				align = 4
			}
			off = alignUp(off, align)
			c.f.Params = append(c.f.Params, ori.Param{Name: n.Name, Size: size, Align: align, Offset: off})
			top[n.Name] = &varInfo{kind: vkKernelParm, off: off, size: size}
			off += size
		}
		return nil
	}
	// .func: arguments arrive in R4.., each aligned to its size in
	// registers; results leave the same way.
	regNext := firstABIParam
	for _, p := range c.pf.Params {
		n := p.Names[0]
		size := declSize(p, n)
		words := abiWords(p)
		regNext = alignRegs(regNext, words)
		slot := &paramSlot{size: size}
		for w := 0; w < words; w++ {
			slot.words = append(slot.words, c.f.NewVReg(ori.ClassR, 1))
		}
		c.f.Params = append(c.f.Params, ori.Param{Name: n.Name, Size: size, Align: declAlign(p), Offset: int64(regNext), Words: int64(words)})
		if p.Space == ".reg" {
			// A .reg parameter is a register in the callee; a predicate
			// travels as a 32-bit 0/1.
			r := c.newPReg(p.Type, p.Vec)
			c.scopes[0][n.Name] = r
			if r.pred {
				c.emitRaw(ori.OpISETP, []string{"NE", "U32", "AND"}, []ori.Operand{ori.R(r.reg), ori.R(ori.PT)}, ori.R(ori.PReg(ori.ClassR, regNext, 1)), ori.R(ori.RZ), ori.R(ori.PT))
			} else {
				for w := 0; w < int(r.reg.Words) && w < words; w++ {
					c.emitRaw(ori.OpMOV, nil, []ori.Operand{ori.R(r.reg.Word(w))}, ori.R(ori.PReg(ori.ClassR, regNext+w, 1)))
				}
			}
		} else {
			for w := 0; w < words; w++ {
				c.emitRaw(ori.OpMOV, nil, []ori.Operand{ori.R(slot.words[w])}, ori.R(ori.PReg(ori.ClassR, regNext+w, 1)))
			}
			top[n.Name] = &varInfo{kind: vkFuncParm, size: size, slot: slot}
		}
		regNext += words
	}
	regNext = firstABIParam
	for _, p := range c.pf.Rets {
		n := p.Names[0]
		size := declSize(p, n)
		words := abiWords(p)
		regNext = alignRegs(regNext, words)
		slot := &paramSlot{size: size}
		for w := 0; w < words; w++ {
			slot.words = append(slot.words, c.f.NewVReg(ori.ClassR, 1))
			// Results start defined (as zero) so partial writes are
			// well-defined; the optimizer removes the dead moves.
			c.emitRaw(ori.OpMOV, nil, []ori.Operand{ori.R(slot.words[w])}, ori.R(ori.RZ))
		}
		c.f.Rets = append(c.f.Rets, ori.Param{Name: n.Name, Size: size, Align: declAlign(p), Offset: int64(regNext), Words: int64(words)})
		if p.Space == ".reg" {
			r := c.newPReg(p.Type, p.Vec)
			c.scopes[0][n.Name] = r
			if r.pred {
				c.emitRaw(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(r.reg), ori.R(ori.PT)}, ori.R(ori.PT), ori.R(ori.PT), ori.R(ori.PT), ori.Imm(0), ori.Imm(0))
			} else {
				for w := 0; w < int(r.reg.Words); w++ {
					c.emitRaw(ori.OpMOV, nil, []ori.Operand{ori.R(r.reg.Word(w))}, ori.R(ori.RZ))
				}
			}
			// A .reg result is the register itself: no slot name.
			c.retRegs = append(c.retRegs, r)
		} else {
			top[n.Name] = &varInfo{kind: vkFuncParm, size: size, slot: slot}
			c.retRegs = append(c.retRegs, nil)
		}
		c.retSlots = append(c.retSlots, slot)
		regNext += words
	}
	// The return address arrives in the ABI's pair (retAddrReg), or in
	// R2:R3 for a function only called directly (private.go). A
	// function without calls returns through that pair itself, which
	// then stays occupied until each RET (ptxas's leaves do the same);
	// one with calls writes the pair before each of them, so it keeps
	// the address in a virtual pair the allocator places (callee-saved
	// or spilled). Decision: a pair copy is two word moves, and the
	// allocator, which gives a pair one live range, cannot coalesce them
	// with R20 and R21 (each word is read at its own move), so copying
	// in a leaf would cost two moves per function for nothing.
	ra := c.l.retAddrOf(c.pf.Name, c.pf.Params, c.pf.Rets)
	if ra != retAddrABI {
		c.f.RetAddr = int32(ra)
	}
	if !hasCall(c.pf.Body) {
		c.retAddr = ori.PReg(ori.ClassR, ra, 2)
		return nil
	}
	c.retAddr = c.f.NewVReg(ori.ClassR, 2)
	for w := 0; w < 2; w++ {
		c.emitRaw(ori.OpMOV, nil, []ori.Operand{ori.R(c.retAddr.Word(w))}, ori.R(ori.PReg(ori.ClassR, ra+w, 1)))
	}
	return nil
}

// hasCall reports whether a function body contains a call instruction.
func hasCall(b *ptx.Block) bool {
	if b == nil {
		return false
	}
	for _, st := range b.Stmts {
		switch x := st.(type) {
		case *ptx.Instr:
			if x.Op == "call" {
				return true
			}
		case *ptx.Block:
			if hasCall(x) {
				return true
			}
		}
	}
	return false
}

func alignRegs(r, words int) int {
	a := 1
	for a < words && a < 4 {
		a *= 2
	}
	return (r + a - 1) / a * a
}

// fallsOffEnd reports whether control can reach the end of the body.
func (c *fn) fallsOffEnd() bool {
	b := c.cur
	if n := len(b.Insts); n > 0 {
		last := b.Insts[n-1]
		return !last.EndsBlock() || last.Guarded()
	}
	if b.Label != "" || len(c.order) < 2 {
		return true
	}
	prev := c.order[len(c.order)-2]
	if n := len(prev.Insts); n > 0 {
		last := prev.Insts[n-1]
		return !last.EndsBlock() || last.Guarded()
	}
	return true
}

// defineUndefined gives a definite value to registers the PTX reads
// before writing on some path.
//
// Decision: PTX registers start undefined and a program may read one
// before writing it (ZLUDA's block.ptx reads a shadowing register; its
// bar_sync.ptx uses an unset barrier number). Ori's verifier requires a
// definition on every path, so the lowering defines such registers as 0
// (predicates as false) at the function entry. Any value is a correct
// implementation of "undefined"; zero is deterministic.
func (c *fn) defineUndefined() {
	regs := ori.UndefinedReads(c.f)
	if len(regs) == 0 {
		return
	}
	if report := c.l.opts.UndefinedReads; report != nil {
		var names []string
		seen := map[string]bool{}
		for _, r := range regs {
			n, ok := c.ptxNames[regKey{r.Class, r.N}]
			if !ok {
				// A register the lowering made: it stands for no PTX
				// register, so it is reported by its Ori name.
				n = r.String()
			}
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		report(c.pf.Name, names)
	}
	var pre []*ori.Inst
	for _, r := range regs {
		var in *ori.Inst
		if r.Class.IsPred() {
			in = ori.NewInst(ori.OpPLOP3, "LUT")
			in.Dsts = []ori.Operand{ori.R(r), ori.R(ori.PT)}
			in.Srcs = []ori.Operand{ori.R(ori.PT), ori.R(ori.PT), ori.R(ori.PT), ori.Imm(0), ori.Imm(0)}
		} else {
			in = ori.NewInst(ori.OpMOV)
			in.Dsts = []ori.Operand{ori.R(r)}
			in.Srcs = []ori.Operand{ori.R(ori.RZ)}
		}
		in.ID = c.f.NewID()
		in.Line = c.pf.Pos.Line
		pre = append(pre, in)
	}
	// The definitions go after the prologue (stack pointer and frame
	// set-up): a value the allocator spills is stored through R1, which
	// must already hold the frame.
	entry := c.f.Blocks[0]
	at := 0
	for at < len(entry.Insts) && writesSP(entry.Insts[at]) {
		at++
	}
	rest := append([]*ori.Inst(nil), entry.Insts[at:]...)
	entry.Insts = append(append(entry.Insts[:at:at], pre...), rest...)
}

// funcIndex returns the position of the defined function name among the
// module's defined functions (the order of Module.Funcs), or -1.
func (l *lowerer) funcIndex(name string) int {
	i := 0
	for _, f := range l.m.Funcs() {
		if f.Body == nil {
			continue
		}
		if f.Name == name {
			return i
		}
		i++
	}
	return -1
}

// writesSP reports whether in is one of the prologue instructions that
// set the stack pointer R1.
func writesSP(in *ori.Inst) bool {
	for _, d := range in.Dsts {
		if d.Kind == ori.OpdReg && !d.Reg.Virtual && d.Reg.Class == ori.ClassR && d.Reg.N == 1 {
			return true
		}
	}
	return false
}

// targetPos is the position of the module's .target directive.
func targetPos(m *ptx.Module) ptx.Pos {
	for _, it := range m.Items {
		if d, ok := it.(*ptx.Directive); ok && d.Name == ".target" {
			return d.Pos
		}
	}
	return ptx.Pos{Line: 1, Col: 1}
}
