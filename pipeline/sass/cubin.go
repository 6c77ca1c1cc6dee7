package sass

// The cubin writer: an ELF64 file in the layout ptxas 13.0 writes, with
// the sections, symbols, relocations, program headers and .nv.info
// attributes the CUDA tools read. Layout facts are measured from ptxas's
// own cubins (readelf -S -s -l -r, cuobjdump -elf, and the raw bytes of
// .nv.info and .rel sections); TestCubin and the pipeline's cubin test
// read the result with cuobjdump -elf and nvdisasm.
//
// Calls: as ptxas does in whole-program mode, each kernel's .text section
// holds the kernel followed by every .func it reaches (local FUNC symbols
// $KERNEL$FUNC), and the CALL.REL.NOINC words get the relative offset
// of their callee there (ptxas's sm_80 CALL of a callee 0xc0 bytes past
// the next instruction is 0x000000c000007944; sm_90 splits the offset
// in 4-byte units as its BRA does). No relocation is left for the linker.
//
// Globals: .global variables are NOBITS in .nv.global (.nv.global.init
// when initialized), their 64-bit addresses sit in .nv.constant4 at the
// slot the lowering chose, filled by R_CUDA_64 relocations (type 2;
// .rel.nv.constant4 on sm_75-sm_89, .rela.nv.constant4 with addend 0 on
// sm_90, as ptxas 13.0 writes them); .const variables are the data of
// .nv.constant3 at their offsets.
//
// Literals: a kernel's literal pool (constant bank 2, ori.Func.Literals)
// is .nv.constant2.NAME, right before its .nv.constant0, as ptxas writes
// it.
//
// Textures and surfaces: a .texref or .surfref is a global symbol of
// type STT_CUDA_TEXTURE (10) or STT_CUDA_SURFACE (12) in no section; the
// driver binds a texture or surface to it by name and writes its header
// index into the kernel's bank-0 words that R_CUDA_TEX_HEADER_INDEX (6)
// and R_CUDA_SURF_HEADER_INDEX (52) relocations in
// .rel(a).nv.constant0.NAME point at; EIATTR_BINDLESS_TEXTURE_BANK and
// _SURFACE_BANK name bank 0 (kernelAttrs). A texture object needs
// nothing: its handle is a parameter's value.
//
// What ptxas 13.0 writes and this writer does not
// (TestCubinMetaMatchesPtxas in package pipeline lists every difference
// with ptxas's cubin for a fixed set of files, and its allow-list says
// why each may stay):
//   - .debug_frame and its relocations, the DWARF call-frame table of
//     cuda-gdb and the exception unwinder, and .note.nv.tkinfo, the
//     tool's name and command line. Decision: left out, as debugger
//     and tool data: the cubin writer of the TuringAs assembler
//     (daadaada/turingas, turingas/cubin.py) writes neither (nor the
//     cuinfo note or .nv.callgraph), and its examples load those cubins
//     with cuModuleLoad and launch them; orilab has no unwind model to
//     describe. Not confirmed on a GPU by orilab itself;
//   - the attributes that list code orilab does not track
//     (EIATTR_COOP_GROUP_INSTR_OFFSETS and _MASK_REGIDS for warp votes and
//     syncs, EIATTR_INT_WARP_WIDE_INSTR_OFFSETS,
//     EIATTR_INDIRECT_BRANCH_TARGETS), and those of extern calls through
//     the driver (EIATTR_EXTERNS, EIATTR_SYSCALL_OFFSETS, callgraph
//     edges), which the lowering does not emit;
//   - the empty .rela.text.NAME sections of sm_90.
//
// The CUDA driver has not loaded orilab's cubins yet (no GPU was lent
// to the sessions that wrote this).

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
)

// CubinFunc is one function for the cubin.
type CubinFunc struct {
	Name  string
	Entry bool // a kernel (.entry): STO_CUDA_ENTRY, parameters in constant bank 0
	Code  *Code
	Regs  int // registers per thread (EIATTR_REGCOUNT)
	// MaxRegs is the register limit the code was allocated under
	// (--maxrregcount; EIATTR_MAXREG_COUNT, which ptxas 13.0 writes as
	// that number, 255 without one); 0 means none.
	MaxRegs int
	Frame   int // bytes of stack frame (EIATTR_FRAME_SIZE)
	// Params are the kernel's parameters in order: byte offset from the
	// start of the parameter area and size.
	Params []CubinParam
	Shared int // bytes of .shared memory (.nv.shared.NAME)
	// ReqNtid and MaxNtid are .reqntid and .maxntid (zero: absent).
	ReqNtid, MaxNtid [3]int
	// Barriers is the number of named barriers the kernel uses
	// (EIATTR_NUM_BARRIERS; 0 writes none).
	Barriers int
	// Literals is a kernel's literal pool, constant bank 2
	// (ori.Func.Literals): the section .nv.constant2.NAME, none when
	// empty.
	Literals []uint64
	// TexRefs are the bank-0 words of a kernel where the driver writes
	// the header index of the texture or surface bound to a .texref or
	// .surfref (ori.Func.TexRefs): relocations in
	// .rel.nv.constant0.NAME, and bank 0 reaches past them.
	TexRefs []CubinTexRef
	// Textures: the code reads textures or surfaces (TEX, TLD, TLD4,
	// TXQ, SULD, SUST); sm_90's .nv.compat says so.
	Textures bool
	// BindlessQuery: the code queries a texture or surface object
	// (txq or suq on a handle, not on a .texref or .surfref); ptxas then
	// writes EIATTR_MAX_STACK_SIZE and no .nv.callgraph (measured on
	// tex_forms and surf_forms, and on a probe whose only texture
	// instruction is such a txq).
	BindlessQuery bool
	// Reconverges: the code has BSSY or calls a function; ptxas then
	// writes EIATTR_CRS_STACK_SIZE (0).
	Reconverges bool
}

// CubinTexRef is one bank-0 word of a kernel that names a .texref or
// .surfref.
type CubinTexRef struct {
	Name   string
	Offset int // byte offset in constant bank 0 (a multiple of 4)
}

// CubinParam is one kernel parameter.
type CubinParam struct{ Offset, Size int }

// CubinGlobal is a module-scope variable.
type CubinGlobal struct {
	Name  string
	Const bool // .const (constant bank 3), else .global
	Size  int  // bytes
	Align int  // bytes
	Init  []byte
	// Offset is a .const variable's offset in bank 3; AddrSlot the
	// offset in bank 4 where a .global variable's address goes.
	Offset, AddrSlot int
	// Ref, when not RefNone, makes the variable a .texref or .surfref
	// (ori.Module.TexVars): no storage, a global symbol of type
	// STT_CUDA_TEXTURE or STT_CUDA_SURFACE that the driver binds, and
	// only Name counts.
	Ref CubinRef
}

// CubinRef says whether a CubinGlobal is a texture or surface reference.
type CubinRef uint8

const (
	RefNone    CubinRef = iota
	RefTexture          // .texref
	RefSurface          // .surfref
)

// ELF and CUDA constants (measured from ptxas 13.0.88 cubins).
const (
	emCUDA          = 190
	elfOSABICUDA    = 0x41 // EI_OSABI of ptxas's cubins
	elfABIVer       = 8    // EI_ABIVERSION
	shtProgbits     = 1
	shtSymtab       = 2
	shtStrtab       = 3
	shtNobits       = 8
	shtRel          = 9
	shtRela         = 4
	shtNote         = 7
	shtCUDACompat   = 0x70000086 // .nv.compat
	shfCUInfo90     = 0x1000040  // .note.nv.cuinfo on sm_90 (info links .nv.compat)
	shtCUDAInfo     = 0x70000000 // .nv.info sections
	shtCUDACallgrph = 0x70000001 // .nv.callgraph
	shfWrite        = 0x1
	shfAlloc        = 0x2
	shfExec         = 0x4
	shfInfoLink     = 0x40
	shtCUDARelInfo  = 0x7000000b // .nv.rel.action
	stoCUDAEntry    = 0x10
	sttCUDATexture  = 10 // STT_CUDA_TEXTURE
	sttCUDASurface  = 12 // STT_CUDA_SURFACE
	rCUDA64         = 2  // R_CUDA_64: a 64-bit absolute address
	rCUDATexHeader  = 6  // R_CUDA_TEX_HEADER_INDEX
	rCUDASurfHeader = 52 // R_CUDA_SURF_HEADER_INDEX
	ptPhdr          = 6
	ptLoad          = 1

	eifmtNVAL = 1 // no value
	eifmtBVAL = 2 // an 8-bit value
	eifmtHVAL = 3 // a 16-bit value
	eifmtSVAL = 4 // a sized payload

	eiattrMaxThreads     = 0x05
	eiattrParamCBank     = 0x0a
	eiattrReqNtid        = 0x10
	eiattrFrameSize      = 0x11
	eiattrMinStackSize   = 0x12
	eiattrBindlessTex    = 0x15
	eiattrBindlessSurf   = 0x16
	eiattrKParamInfo     = 0x17
	eiattrCBankParamSize = 0x19
	eiattrMaxRegCount    = 0x1b
	eiattrExitOffsets    = 0x1c
	eiattrCRSStackSize   = 0x1e
	eiattrMaxStackSize   = 0x23
	eiattrRegCount       = 0x2f
	eiattr35             = 0x35 // NVAL; cuobjdump 13.5 does not name it
	eiattrSWWAR          = 0x36
	eiattrCUDAAPIVersion = 0x37
	eiattrNumBarriers    = 0x4c
	eiattrSparseMMAMask  = 0x50
	eiattr5F             = 0x5f // HVAL; cuobjdump 13.5 does not name it
)

// eiattrIndirectBranchTargets: per BRX of the kernel, its offset, two
// 16-bit zeros, the number of targets and their offsets (ptxas 13.0's
// for brx.idx, measured with cuobjdump -elf and nvdisasm).
const eiattrIndirectBranchTargets = 0x34

// CubinFlags returns e_flags for SM arch with 64-bit addresses: the SM
// number in bits 8-15 (ptxas 13.0: 0x6005004 for sm_80, 0x6005a04 for
// sm_90).
func CubinFlags(arch int) uint32 { return 0x6000004 | uint32(arch)<<8 }

type section struct {
	name           string
	typ            uint32
	flags          uint64
	data           []byte
	size           int // NOBITS size
	link, info     uint32
	align, entsize uint64
	// infoSym, infoSection, linkSection name the symbol or section that
	// sh_info and sh_link point to; they are resolved after layout.
	infoSym, infoSection, linkSection string
	// infoHigh goes into sh_info's bits 24-31: a .text section's
	// register count below sm_90 (ptxas: 0xc000008 for 12 registers and
	// symbol 8; nvdisasm prints it as SHI_REGISTERS).
	infoHigh uint32
}

type symbol struct {
	name  string
	info  uint8 // bind<<4 | type
	other uint8
	shndx string // section name
	value uint64
	size  uint64
}

// cuinfo is the .note.nv.cuinfo note: owner "NVIDIA Corp", type 1000,
// note version 2, the virtual SM (orilab names the real one) and the
// toolkit version 13.0 (0x82), as ptxas 13.0.88 writes it.
func cuinfo(arch int) []byte {
	b := u32(12, 8, 1000)
	b = append(b, "NVIDIA Corp\x00"...)
	var d [8]byte
	binary.LittleEndian.PutUint16(d[0:], 2)
	binary.LittleEndian.PutUint16(d[2:], uint16(arch))
	binary.LittleEndian.PutUint32(d[4:], 0x82)
	return append(b, d[:]...)
}

// compat returns .nv.compat for sm_90: ptxas 13.0.88's bytes (compat90),
// with ISA_CLASS 2 instead of 1 when the code reads textures or
// surfaces (measured on every sm_90 cubin of TestCubinMetaMatchesPtxas's
// set).
func compat(funcs []CubinFunc) []byte {
	b := append([]byte(nil), compat90...)
	for _, f := range funcs {
		if f.Textures {
			b[6] = 2
		}
	}
	return b
}

// compat90 is ptxas 13.0.88's .nv.compat for sm_90, byte for byte:
// EICOMPAT attributes ACCELERATOR_TARGET 0, ISA_CLASS 1,
// INST_TCGEN05_MMA 5, an attribute 0x07 (0x101) cuobjdump does not
// name, INST_TENSORMAP_V1 0, ENABLE_OPPORTUNISTIC_FINALIZATION 1,
// CAN_FASTPATH_FINALIZE 0 0. Decision: copied as measured; orilab has no
// model of what the driver does with them.
var compat90 = []byte{
	2, 0x09, 0, 0,
	2, 0x02, 1, 0,
	2, 0x05, 5, 0,
	3, 0x07, 1, 1,
	2, 0x03, 0, 0,
	2, 0x06, 1, 0,
	4, 0x0b, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0,
}

// reach returns the functions kernel k calls, directly or not, in the
// order first called.
func reach(k *CubinFunc, byName map[string]*CubinFunc) ([]*CubinFunc, error) {
	var out []*CubinFunc
	seen := map[string]bool{k.Name: true}
	var visit func(f *CubinFunc) error
	visit = func(f *CubinFunc) error {
		for _, r := range f.Code.Relocs {
			// A function whose address the code takes is reached too:
			// an indirect call may go there.
			if r.Kind != RelocCall && r.Kind != RelocFuncAddr || seen[r.Sym] {
				continue
			}
			g := byName[r.Sym]
			if g == nil {
				return fmt.Errorf("sass: %s calls %s, which is not a function of the module", f.Name, r.Sym)
			}
			if g.Entry && r.Kind == RelocFuncAddr {
				return fmt.Errorf("sass: %s takes the address of the kernel %s, which orilab cannot place in its code", f.Name, r.Sym)
			}
			if g.Entry {
				return fmt.Errorf("sass: %s calls the kernel %s", f.Name, r.Sym)
			}
			seen[r.Sym] = true
			out = append(out, g)
			if err := visit(g); err != nil {
				return err
			}
		}
		return nil
	}
	return out, visit(k)
}

// setBranchField writes the byte offset rel from the instruction after a
// CALL or RET to its target into the word: in 4-byte units at bit 34
// (sm_75-sm_89), or split as sm_90's branches (bits 16-23 and 34-81).
func setBranchField(w *Word, arch, rel int) {
	units := uint64(int64(rel) / 4)
	if arch >= 90 {
		w.SetField(16, 8, units)
		w.SetField(34, 48, uint64(int64(rel)/4>>8))
		return
	}
	w.SetField(34, 48, units)
}

// linkedText lays kernel k and the functions it reaches out in one
// section, resolving the calls; it returns the bytes and each function's
// start.
func linkedText(k *CubinFunc, callees []*CubinFunc, arch int) ([]byte, map[string]int) {
	all := append([]*CubinFunc{k}, callees...)
	start := map[string]int{}
	var words []Word
	for _, f := range all {
		start[f.Name] = 16 * len(words)
		words = append(words, f.Code.Words...)
	}
	for _, f := range all {
		for _, r := range f.Code.Relocs {
			at := start[f.Name] + r.Offset
			w := &words[at/16]
			switch r.Kind {
			case RelocCall:
				setBranchField(w, arch, start[r.Sym]-(at+16))
			case RelocBase:
				// The kernel starts the section.
				setBranchField(w, arch, -(at + 16))
			case RelocRetAddr:
				w.SetField(32, 32, w.Field(32, 32)+uint64(start[f.Name]))
			case RelocFuncAddr:
				w.SetField(32, 32, uint64(start[r.Sym]))
			}
		}
	}
	b := make([]byte, 0, 16*len(words))
	for _, w := range words {
		b = append(b, w.Bytes()...)
	}
	return b, start
}

// kernelText is a kernel laid out with the functions it reaches.
type kernelText struct {
	k       *CubinFunc
	callees []*CubinFunc
	start   map[string]int // each function's offset in the kernel's .text
}

// moduleInfo returns .nv.info: per kernel in module order its register
// count, the frame size of each function it reaches (last laid out
// first), its own frame size, then the minimum stack size of every
// kernel in reverse order, as ptxas 13.0 lists them (tex_func: k4's
// group, k5's group, then k5's and k4's minimum stack). A kernel that
// queries a texture through a register handle gets ptxas's other
// shape: register count, EIATTR_MAX_STACK_SIZE, minimum stack, frame.
//
// The minimum stack size is minStack's.
func moduleInfo(kts []kernelText, symIndex map[string]int) []byte {
	b := &bytes.Buffer{}
	stack := map[string]int{}
	for _, kt := range kts {
		k := uint32(symIndex[kt.k.Name])
		st := minStack(kt)
		stack[kt.k.Name] = st
		sval(b, eiattrRegCount, u32(k, uint32(kt.k.Regs)))
		if kt.k.BindlessQuery {
			sval(b, eiattrMaxStackSize, u32(k, uint32(st)))
			sval(b, eiattrMinStackSize, u32(k, uint32(st)))
			sval(b, eiattrFrameSize, u32(k, uint32(kt.k.Frame)))
			continue
		}
		for i := len(kt.callees) - 1; i >= 0; i-- {
			g := kt.callees[i]
			sval(b, eiattrFrameSize, u32(uint32(symIndex["$"+kt.k.Name+"$"+g.Name]), uint32(g.Frame)))
		}
		sval(b, eiattrFrameSize, u32(k, uint32(kt.k.Frame)))
	}
	for i := len(kts) - 1; i >= 0; i-- {
		if !kts[i].k.BindlessQuery {
			sval(b, eiattrMinStackSize, u32(uint32(symIndex[kts[i].k.Name]), uint32(stack[kts[i].k.Name])))
		}
	}
	if len(kts) == 0 {
		// A module without a kernel: ptxas 13.0 (whole-program mode,
		// no -c) still writes a cubin, with no code (its .funcs are
		// unreachable and dropped) and only the attribute 0x5f, 0,
		// here (measured on ZLUDA's param_func_array_0 and lud.ptx:
		// .nv.info is 03 5f 00 00).
		b.Write([]byte{eifmtHVAL, eiattr5F, 0, 0})
	}
	return b.Bytes()
}

// minStack is a kernel's EIATTR_MIN_STACK_SIZE as ptxas 13.0 computes
// it: the kernel's frame plus the deepest chain of frames of the
// functions it calls (directly, or through a function pointer it
// takes), where a function that can reach itself counts nothing, nor do
// the functions it calls: the stack of a recursion is not static, and
// the program sets its own limit (measured: func_frame at -O0, frame
// 0x18 and a callee with none, gives 0x18; a kernel calling a recursive
// function with a 16-byte frame gives 0).
func minStack(kt kernelText) int {
	byName := map[string]*CubinFunc{kt.k.Name: kt.k}
	for _, g := range kt.callees {
		byName[g.Name] = g
	}
	calls := func(f *CubinFunc) []string {
		var out []string
		for _, r := range f.Code.Relocs {
			if (r.Kind == RelocCall || r.Kind == RelocFuncAddr) && byName[r.Sym] != nil {
				out = append(out, r.Sym)
			}
		}
		return out
	}
	// recursive: f reaches itself.
	recursive := map[string]bool{}
	for _, g := range kt.callees {
		seen := map[string]bool{}
		var walk func(n string) bool
		walk = func(n string) bool {
			for _, c := range calls(byName[n]) {
				if c == g.Name {
					return true
				}
				if !seen[c] {
					seen[c] = true
					if walk(c) {
						return true
					}
				}
			}
			return false
		}
		recursive[g.Name] = walk(g.Name)
	}
	depth := map[string]int{}
	var deep func(n string) int
	deep = func(n string) int {
		if recursive[n] {
			return 0
		}
		if d, ok := depth[n]; ok {
			return d
		}
		d := 0
		for _, c := range calls(byName[n]) {
			if c != kt.k.Name {
				d = max(d, deep(c))
			}
		}
		d += byName[n].Frame
		depth[n] = d
		return d
	}
	return deep(kt.k.Name)
}

// kernelAttrs returns .nv.info.NAME, the kernel's attributes in ptxas
// 13.0's order, which differs between sm_75-sm_89 and sm_90:
//
//	sm_80: CUDA_API_VERSION, 0x35, PARAM_CBANK, CBANK_PARAM_SIZE,
//	       KPARAM_INFO (last parameter first), MAXREG_COUNT,
//	       BINDLESS_TEXTURE_BANK, BINDLESS_SURFACE_BANK, NUM_BARRIERS,
//	       0x5f, EXIT_INSTR_OFFSETS, CRS_STACK_SIZE, MAX_THREADS, REQNTID
//	sm_90: CUDA_API_VERSION, KPARAM_INFO, SPARSE_MMA_MASK, MAXREG_COUNT,
//	       NUM_BARRIERS, 0x5f, EXIT_INSTR_OFFSETS, CRS_STACK_SIZE,
//	       MAX_THREADS, REQNTID, CBANK_PARAM_SIZE, PARAM_CBANK, SW_WAR,
//	       BINDLESS_TEXTURE_BANK, BINDLESS_SURFACE_BANK
//
// (measured over testdata/kernels, ZLUDA's tex_read kernels and probes
// with .maxntid and .reqntid; TestCubinMetaMatchesPtxas compares them).
// A kernel without parameters has neither PARAM_CBANK nor
// CBANK_PARAM_SIZE (measured on an empty kernel). The bindless banks are
// bank 0, where the texref words are: below
// sm_90 each is written when a .texref (.surfref) word is, on sm_90 both
// when either is. 0x35 (no value) below sm_90, SPARSE_MMA_MASK 0 and
// SW_WAR 8 on sm_90, and 0x5f (0 below sm_90, 0x101 on sm_90) are
// written on every kernel, as measured: cuobjdump 13.5 names neither
// 0x35 nor 0x5f, and orilab has no model of what the driver does with
// them.
//
// Decision: where one kernel would need two of the optional
// attributes whose relative order no measured cubin shows (a texture
// and named barriers, CRS_STACK_SIZE and a launch bound, MAX_THREADS
// and REQNTID), they follow the numbering of the attributes.
func kernelAttrs(f *CubinFunc, arch int, symIndex map[string]int, refKind map[string]CubinRef) []byte {
	b := &bytes.Buffer{}
	psize := 0
	for _, p := range f.Params {
		psize = max(psize, p.Offset+p.Size)
	}
	var tex, surf bool
	for _, t := range f.TexRefs {
		if refKind[t.Name] == RefSurface {
			surf = true
		} else {
			tex = true
		}
	}
	params := func() {
		for i := len(f.Params) - 1; i >= 0; i-- {
			p := f.Params[i]
			var pl [12]byte
			binary.LittleEndian.PutUint16(pl[4:], uint16(i))
			binary.LittleEndian.PutUint16(pl[6:], uint16(p.Offset))
			binary.LittleEndian.PutUint32(pl[8:], uint32(p.Size)<<18|0x1f<<12)
			sval(b, eiattrKParamInfo, pl[:])
		}
	}
	cbank := func() {
		var pc [8]byte
		binary.LittleEndian.PutUint32(pc[0:], uint32(symIndex[".nv.constant0."+f.Name]))
		binary.LittleEndian.PutUint16(pc[4:], uint16(paramBase(arch)))
		binary.LittleEndian.PutUint16(pc[6:], uint16(psize))
		sval(b, eiattrParamCBank, pc[:])
	}
	bval := func(attr byte, v byte) { b.Write([]byte{eifmtBVAL, attr, v, 0}) }
	sval(b, eiattrCUDAAPIVersion, u32(0x82))
	if arch < 90 {
		b.Write([]byte{eifmtNVAL, eiattr35, 0, 0})
		if len(f.Params) > 0 {
			cbank()
			hval(b, eiattrCBankParamSize, uint16(psize))
		}
		params()
	} else {
		params()
		hval(b, eiattrSparseMMAMask, 0)
	}
	maxRegs := uint16(0xff)
	if f.MaxRegs > 0 {
		maxRegs = uint16(f.MaxRegs)
	}
	hval(b, eiattrMaxRegCount, maxRegs)
	if arch < 90 {
		if tex {
			bval(eiattrBindlessTex, 0)
		}
		if surf {
			bval(eiattrBindlessSurf, 0)
		}
	}
	if f.Barriers > 0 {
		bval(eiattrNumBarriers, byte(f.Barriers))
	}
	if arch < 90 {
		hval(b, eiattr5F, 0)
	} else {
		hval(b, eiattr5F, 0x101)
	}
	if exits := exitOffsets(f.Code); len(exits) > 0 {
		sval(b, eiattrExitOffsets, u32(exits...))
	}
	if len(f.Code.JumpTables) > 0 {
		// After the exits, as ptxas writes it for brx.idx.
		var pl []byte
		for _, jt := range f.Code.JumpTables {
			pl = append(pl, u32(uint32(jt.At), 0, uint32(len(jt.Targets)))...)
			for _, t := range jt.Targets {
				pl = append(pl, u32(uint32(t))...)
			}
		}
		sval(b, eiattrIndirectBranchTargets, pl)
	}
	if f.Reconverges {
		sval(b, eiattrCRSStackSize, u32(0))
	}
	if f.MaxNtid != [3]int{} {
		sval(b, eiattrMaxThreads, u32(uint32(f.MaxNtid[0]), uint32(f.MaxNtid[1]), uint32(f.MaxNtid[2])))
	}
	if f.ReqNtid != [3]int{} {
		sval(b, eiattrReqNtid, u32(uint32(f.ReqNtid[0]), uint32(f.ReqNtid[1]), uint32(f.ReqNtid[2])))
	}
	if arch >= 90 {
		if len(f.Params) > 0 {
			hval(b, eiattrCBankParamSize, uint16(psize))
			cbank()
		}
		sval(b, eiattrSWWAR, u32(8))
		if tex || surf {
			bval(eiattrBindlessTex, 0)
			bval(eiattrBindlessSurf, 0)
		}
	}
	return b.Bytes()
}

// exitOffsets lists the EXIT words of a kernel's own code.
func exitOffsets(c *Code) []uint32 {
	var exits []uint32
	for i, w := range c.Words {
		if w.Field(0, 12) == 0x94d {
			exits = append(exits, uint32(16*i))
		}
	}
	return exits
}

// stoReservedShared is st_other of the alias of sm_90's reserved shared
// memory (cuobjdump: RESERVED_SHARED; 0xa0 in ptxas's cubins).
const stoReservedShared = 0xa0

// WriteCubin returns the cubin of funcs and globals for SM arch.
func WriteCubin(arch int, funcs []CubinFunc, globals []CubinGlobal) ([]byte, error) {
	if err := checkArch(arch); err != nil {
		return nil, err
	}
	byName := map[string]*CubinFunc{}
	for i := range funcs {
		byName[funcs[i].Name] = &funcs[i]
	}
	// Sections in ptxas's order: tables and .nv.info first, then the
	// loaded PROGBITS (constant banks, code), then the NOBITS ones, so
	// that one LOAD segment covers each group.
	meta := []*section{{name: ""}, {name: ".shstrtab", typ: shtStrtab, align: 1}, {name: ".strtab", typ: shtStrtab, align: 1},
		{name: ".symtab", typ: shtSymtab, align: 8, entsize: 24, linkSection: ".strtab"},
		{name: ".nv.info", typ: shtCUDAInfo, align: 4, linkSection: ".symtab"}}
	if arch >= 90 {
		// sm_90: cuobjdump and nvdisasm 13.5 reject a cubin without the
		// compatibility section, which the cuinfo note points to.
		// Decision: the note goes to section index 6, where ptxas's
		// layout has it: cuobjdump 13.5 -elf calls the file "Invalid
		// ELF" when it sits anywhere else (measured by moving it in
		// orilab's and ptxas's cubins; nvdisasm does not care).
		meta = append(meta,
			&section{name: ".nv.compat", typ: shtCUDACompat, align: 4, data: compat(funcs)},
			&section{name: ".note.nv.cuinfo", typ: shtNote, flags: shfCUInfo90, align: 4, data: cuinfo(arch), infoSection: ".nv.compat"})
	}
	var consts, texts, nobits []*section
	locals := []symbol{{name: ".note.nv.cuinfo", info: 3, shndx: ".note.nv.cuinfo"}}
	var globalSyms []symbol
	// Module data.
	var gvars, cvars, refs []CubinGlobal
	for _, g := range globals {
		if g.Ref != RefNone {
			refs = append(refs, g)
			continue
		}
		if g.Const {
			cvars = append(cvars, g)
		} else {
			gvars = append(gvars, g)
		}
	}
	var rels []byte
	type relTo struct {
		off int
		sym string
	}
	var c4rels []relTo
	if len(gvars) > 0 {
		// .nv.global (and .nv.global.init for initialized variables).
		place := func(name string, vars []CubinGlobal, init bool) {
			if len(vars) == 0 {
				return
			}
			off, align := 0, 1
			var data []byte
			for _, g := range vars {
				a := max(g.Align, 1)
				off = (off + a - 1) / a * a
				align = max(align, a)
				if init {
					for len(data) < off {
						data = append(data, 0)
					}
					d := make([]byte, g.Size)
					copy(d, g.Init)
					data = append(data, d...)
				}
				locals = append(locals, symbol{name: g.Name, info: 1, shndx: name, value: uint64(off), size: uint64(g.Size)})
				off += g.Size
				c4rels = append(c4rels, relTo{g.AddrSlot, g.Name})
			}
			sec := &section{name: name, typ: shtNobits, flags: shfWrite | shfAlloc, size: off, align: uint64(align)}
			if init {
				sec.typ, sec.data = shtProgbits, data
				consts = append(consts, sec)
			} else {
				nobits = append(nobits, sec)
			}
			locals = append(locals, symbol{name: name, info: 3, shndx: name})
		}
		var plain, inited []CubinGlobal
		for _, g := range gvars {
			if len(g.Init) > 0 {
				inited = append(inited, g)
			} else {
				plain = append(plain, g)
			}
		}
		place(".nv.global.init", inited, true)
		place(".nv.global", plain, false)
		size := 0
		for _, r := range c4rels {
			size = max(size, r.off+8)
		}
		consts = append(consts, &section{name: ".nv.constant4", typ: shtProgbits, flags: shfAlloc, data: make([]byte, size), align: 8})
		locals = append(locals, symbol{name: ".nv.constant4", info: 3, shndx: ".nv.constant4"})
	}
	if len(cvars) > 0 {
		var data []byte
		for _, g := range cvars {
			for len(data) < g.Offset+g.Size {
				data = append(data, 0)
			}
			copy(data[g.Offset:], g.Init)
			locals = append(locals, symbol{name: g.Name, info: 1, shndx: ".nv.constant3", value: uint64(g.Offset), size: uint64(g.Size)})
		}
		consts = append(consts, &section{name: ".nv.constant3", typ: shtProgbits, flags: shfAlloc, data: data, align: 4})
		locals = append(locals, symbol{name: ".nv.constant3", info: 3, shndx: ".nv.constant3"})
	}
	// Kernels, each with the functions it calls in its own .text.
	var kts []kernelText
	for i := range funcs {
		k := &funcs[i]
		if !k.Entry {
			continue
		}
		callees, err := reach(k, byName)
		if err != nil {
			return nil, err
		}
		data, start := linkedText(k, callees, arch)
		text := ".text." + k.Name
		ts := &section{name: text, typ: shtProgbits, flags: shfAlloc | shfExec, data: data,
			align: 128, linkSection: ".symtab", infoSym: k.Name}
		if arch < 90 {
			ts.infoHigh = uint32(k.Regs)
		}
		texts = append(texts, ts)
		locals = append(locals, symbol{name: text, info: 3, shndx: text})
		for _, g := range callees {
			locals = append(locals, symbol{name: "$" + k.Name + "$" + g.Name, info: 2, shndx: text,
				value: uint64(start[g.Name]), size: uint64(16 * len(g.Code.Words))})
		}
		globalSyms = append(globalSyms, symbol{name: k.Name, info: 1<<4 | 2, other: stoCUDAEntry, shndx: text, size: uint64(16 * len(k.Code.Words))})
		if k.Shared > 0 {
			sh := ".nv.shared." + k.Name
			nobits = append([]*section{{name: sh, typ: shtNobits, flags: shfWrite | shfAlloc | shfInfoLink, size: k.Shared, align: 16, infoSection: text}}, nobits...)
			locals = append(locals, symbol{name: sh, info: 3, shndx: sh})
		}
		psize := 0
		for _, p := range k.Params {
			psize = max(psize, p.Offset+p.Size)
		}
		if len(k.Literals) > 0 {
			// As ptxas 13.0 writes it (cuobjdump -elf): PROGBITS, flags
			// ALLOC|INFO_LINK, info the kernel's .text, alignment 4, the
			// values 8 bytes apart, right before the kernel's bank 0
			// (section and symbol).
			c2 := ".nv.constant2." + k.Name
			data := make([]byte, 8*len(k.Literals))
			for i, v := range k.Literals {
				binary.LittleEndian.PutUint64(data[8*i:], v)
			}
			// Jump tables: each entry is its target's offset from the
			// kernel's start (Ori holds the target's number there).
			for _, jt := range k.Code.JumpTables {
				for i, t := range jt.Targets {
					if at := jt.Base + 4*i; at+4 <= len(data) {
						binary.LittleEndian.PutUint32(data[at:], uint32(t))
					}
				}
			}
			consts = append(consts, &section{name: c2, typ: shtProgbits, flags: shfAlloc | shfInfoLink, data: data, align: 4, infoSection: text})
			locals = append(locals, symbol{name: c2, info: 3, shndx: c2})
		}
		c0 := ".nv.constant0." + k.Name
		c0size := int(paramBase(arch)) + psize
		for _, t := range k.TexRefs {
			c0size = max(c0size, t.Offset+4)
		}
		consts = append(consts, &section{name: c0, typ: shtProgbits, flags: shfAlloc | shfInfoLink, data: make([]byte, c0size),
			align: 4, infoSection: text})
		locals = append(locals, symbol{name: c0, info: 3, shndx: c0})
		meta = append(meta, &section{name: ".nv.info." + k.Name, typ: shtCUDAInfo, flags: shfInfoLink, align: 4,
			linkSection: ".symtab", infoSection: text})
		kts = append(kts, kernelText{k, callees, start})
	}
	if arch >= 90 {
		// sm_90: the first KB of every CTA's shared window is the
		// system's (ori.SharedReserved; the lowering places shared
		// variables after it, and .nv.shared.NAME counts it). ptxas
		// 13.0 declares the reservation in every sm_90 cubin, with or
		// without shared memory: an empty NOBITS .nv.shared.reserved.0
		// (WRITE|ALLOC, alignment 1), a weak 4-byte object
		// .nv.reservedSmem.offset0 in no section, and a weak alias
		// __nv_reservedSMEM_offset_0_alias (RESERVED_SHARED) in that
		// section (measured on probes with static, dynamic and no
		// shared memory). Decision: the two weak symbols go after the
		// local ones, as ELF orders bindings; ptxas puts them among
		// its locals, and no tool reads their position.
		nobits = append(nobits, &section{name: ".nv.shared.reserved.0", typ: shtNobits, flags: shfWrite | shfAlloc, align: 1})
		globalSyms = append([]symbol{
			{name: ".nv.reservedSmem.offset0", info: 2<<4 | 1, size: 4},
			{name: "__nv_reservedSMEM_offset_0_alias", info: 2 << 4, other: stoReservedShared, shndx: ".nv.shared.reserved.0"},
		}, globalSyms...)
	}
	// .nv.callgraph: ptxas 13.0 writes it on every target, in
	// whole-program mode with no edges (calls are resolved in the
	// code), only the four entries 0 -> -1 ... 0 -> -4; none when a
	// kernel queries a texture through a register handle (TXQ.B;
	// measured on tex_forms and surf_forms, and on a probe with only
	// such a txq, where ptxas also writes EIATTR_MAX_STACK_SIZE).
	bindlessQuery := false
	for _, kt := range kts {
		bindlessQuery = bindlessQuery || kt.k.BindlessQuery
	}
	if !bindlessQuery {
		meta = append(meta, &section{name: ".nv.callgraph", typ: shtCUDACallgrph, align: 4, entsize: 8, linkSection: ".symtab",
			data: u32(0, 0xffffffff, 0, 0xfffffffe, 0, 0xfffffffd, 0, 0xfffffffc)})
		locals = append(locals, symbol{name: ".nv.callgraph", info: 3, shndx: ".nv.callgraph"})
	}
	if arch < 90 {
		// .nv.rel.action: the relocation action table ptxas 13.0 writes
		// below sm_90, byte for byte: R_CUDA_CONST_FIELD22_37 (0x73)
		// with its fields (EIVALUE_SYM_KIND_ADDR, shift 0, bits 0+17 to
		// 37, 0+5 to 54). orilab emits no relocation of that type; the
		// table describes one for the driver's linker.
		meta = append(meta, &section{name: ".nv.rel.action", typ: shtCUDARelInfo, align: 8, entsize: 8,
			data: []byte{0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0, 0x05, 0x36}})
		locals = append(locals, symbol{name: ".nv.rel.action", info: 3, shndx: ".nv.rel.action"})
	}
	if arch < 90 {
		// ptxas writes the cuinfo note (toolkit version, SM) on every
		// target; below sm_90 it links nothing (ptxas's links its
		// .note.nv.tkinfo, which orilab does not write). Decision: at
		// section index 6, after .nv.info and the first kernel's
		// .nv.info.NAME, as on sm_90: cuobjdump 13.5 reads the note
		// only there (moved to index 4 it reports toolkit 0.0; measured
		// by swapping section headers in orilab's cubin). It is placed
		// after .nv.callgraph and .nv.rel.action are appended, so that
		// a module without a kernel, which has no .nv.info.NAME, still
		// has it at 6 (after .nv.callgraph; ptxas's cubin has
		// .debug_frame and .note.nv.tkinfo there).
		note := &section{name: ".note.nv.cuinfo", typ: shtNote, flags: shfCUInfo90 &^ shfInfoLink, align: 4, data: cuinfo(arch)}
		at := min(6, len(meta)) // a module without a kernel has no .nv.info.NAME
		meta = append(meta[:at], append([]*section{note}, meta[at:]...)...)
	}
	// Texture and surface references: global symbols of their own
	// types in no section, and in each kernel that names one, a
	// relocation of its bank-0 word (R_CUDA_TEX_HEADER_INDEX or
	// R_CUDA_SURF_HEADER_INDEX, REL below sm_90 and RELA with addend 0
	// from sm_90, listed from the highest offset down, as ptxas 13.0
	// writes them).
	refKind := map[string]CubinRef{}
	for _, r := range refs {
		refKind[r.Name] = r.Ref
		typ := uint8(sttCUDATexture)
		if r.Ref == RefSurface {
			typ = sttCUDASurface
		}
		globalSyms = append(globalSyms, symbol{name: r.Name, info: 1<<4 | typ})
	}
	type texRel struct {
		sec  *section
		refs []CubinTexRef
	}
	var texRels []texRel
	for _, kt := range kts {
		if len(kt.k.TexRefs) == 0 {
			continue
		}
		trs := append([]CubinTexRef(nil), kt.k.TexRefs...)
		for _, t := range trs {
			if refKind[t.Name] == RefNone {
				return nil, fmt.Errorf("sass: %s reads the texture or surface %s, which the module does not declare", kt.k.Name, t.Name)
			}
		}
		sort.Slice(trs, func(i, j int) bool { return trs[i].Offset > trs[j].Offset })
		rs := &section{name: ".rel.nv.constant0." + kt.k.Name, typ: shtRel, flags: shfInfoLink, align: 8, entsize: 16,
			linkSection: ".symtab", infoSection: ".nv.constant0." + kt.k.Name}
		if arch >= 90 {
			rs.name, rs.typ, rs.entsize = ".rela.nv.constant0."+kt.k.Name, shtRela, 24
		}
		meta = append(meta, rs)
		texRels = append(texRels, texRel{rs, trs})
	}
	relSec := &section{name: ".rel.nv.constant4", typ: shtRel, flags: shfInfoLink, align: 8, entsize: 16,
		linkSection: ".symtab", infoSection: ".nv.constant4"}
	if arch >= 90 {
		relSec.name, relSec.typ, relSec.entsize = ".rela.nv.constant4", shtRela, 24
	}
	if len(c4rels) > 0 {
		meta = append(meta, relSec)
	}
	syms := append(locals, globalSyms...)
	symIndex := map[string]int{}
	for i, s := range syms {
		symIndex[s.name] = i + 1
	}
	secs := append(append(append(meta, consts...), texts...), nobits...)
	if arch >= 90 {
		// ptxas 13.0's sm_90 order: code, then NOBITS, then the banks.
		secs = append(append(append(meta, texts...), nobits...), consts...)
	}
	secIndex := map[string]int{}
	for i, s := range secs {
		secIndex[s.name] = i
	}
	secByName(secs, ".nv.info").data = moduleInfo(kts, symIndex)
	for _, kt := range kts {
		secByName(secs, ".nv.info."+kt.k.Name).data = kernelAttrs(kt.k, arch, symIndex, refKind)
	}
	for _, tr := range texRels {
		for _, t := range tr.refs {
			e := make([]byte, tr.sec.entsize) // a RELA's addend stays 0
			typ := uint64(rCUDATexHeader)
			if refKind[t.Name] == RefSurface {
				typ = rCUDASurfHeader
			}
			binary.LittleEndian.PutUint64(e[0:], uint64(t.Offset))
			binary.LittleEndian.PutUint64(e[8:], uint64(symIndex[t.Name])<<32|typ)
			tr.sec.data = append(tr.sec.data, e...)
		}
	}
	// Relocations of the global addresses in bank 4.
	sort.Slice(c4rels, func(i, j int) bool { return c4rels[i].off < c4rels[j].off })
	for _, r := range c4rels {
		e := make([]byte, relSec.entsize) // a RELA's addend stays 0
		binary.LittleEndian.PutUint64(e[0:], uint64(r.off))
		binary.LittleEndian.PutUint64(e[8:], uint64(symIndex[r.sym])<<32|rCUDA64)
		rels = append(rels, e...)
	}
	relSec.data = rels
	// String tables and the symbol table.
	shstr, shoff := strtab(secNames(secs))
	var names []string
	for _, s := range syms {
		names = append(names, s.name)
	}
	str, stroff := strtab(names)
	secByName(secs, ".shstrtab").data = shstr
	secByName(secs, ".strtab").data = str
	symtab := make([]byte, 24*(len(syms)+1))
	nlocal := 1
	for i, s := range syms {
		e := symtab[24*(i+1):]
		binary.LittleEndian.PutUint32(e, uint32(stroff[s.name]))
		e[4], e[5] = s.info, s.other
		binary.LittleEndian.PutUint16(e[6:], uint16(secIndex[s.shndx]))
		binary.LittleEndian.PutUint64(e[8:], s.value)
		binary.LittleEndian.PutUint64(e[16:], s.size)
		if s.info>>4 == 0 {
			nlocal = i + 2
		}
	}
	st := secByName(secs, ".symtab")
	st.data, st.info = symtab, uint32(nlocal)
	for _, s := range secs {
		if s.linkSection != "" {
			s.link = uint32(secIndex[s.linkSection])
		}
		switch {
		case s.infoSection != "":
			s.info = uint32(secIndex[s.infoSection])
		case s.infoSym != "":
			s.info = uint32(symIndex[s.infoSym]) | s.infoHigh<<24
		}
	}
	// Layout: header, section contents in order, section headers, then
	// the program headers (PHDR; LOAD of the constant banks and code;
	// LOAD of the NOBITS memory, RW; LOAD of the program headers), as
	// ptxas places them.
	out := make([]byte, 64)
	offs := make([]int, len(secs))
	for i, s := range secs {
		if i == 0 || s.typ == shtNobits {
			continue
		}
		a := int(max(s.align, 1))
		for len(out)%a != 0 {
			out = append(out, 0)
		}
		offs[i] = len(out)
		out = append(out, s.data...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shdr := len(out)
	nobitsSize := 0
	for i, s := range secs {
		var h [64]byte
		if i > 0 {
			size := uint64(len(s.data))
			if s.typ == shtNobits {
				size = uint64(s.size)
				offs[i] = shdr
				nobitsSize += s.size
			}
			binary.LittleEndian.PutUint32(h[0:], uint32(shoff[s.name]))
			binary.LittleEndian.PutUint32(h[4:], s.typ)
			binary.LittleEndian.PutUint64(h[8:], s.flags)
			binary.LittleEndian.PutUint64(h[24:], uint64(offs[i]))
			binary.LittleEndian.PutUint64(h[32:], size)
			binary.LittleEndian.PutUint32(h[40:], s.link)
			binary.LittleEndian.PutUint32(h[44:], s.info)
			binary.LittleEndian.PutUint64(h[48:], s.align)
			binary.LittleEndian.PutUint64(h[56:], s.entsize)
		}
		out = append(out, h[:]...)
	}
	span := func(group []*section) (int, int) {
		lo, hi := -1, 0
		for _, sec := range group {
			o := offs[secIndex[sec.name]]
			if lo < 0 || o < lo {
				lo = o
			}
			hi = max(hi, o+len(sec.data))
		}
		return lo, hi - lo
	}
	phoff := len(out)
	type phdr struct {
		typ, flags    uint32
		off, fsz, msz int
	}
	var phs []phdr
	nobitsLoad := phdr{ptLoad, 6, shdr, 0, nobitsSize}
	if arch >= 90 {
		// ptxas 13.0 on sm_90: PHDR and a LOAD of it (R), the code (R E),
		// the NOBITS memory (RW), the constant banks (R).
		to, tn := span(texts)
		co, cn := span(consts)
		phs = []phdr{{ptPhdr, 4, phoff, 0, 0}, {ptLoad, 4, phoff, 0, 0}, {ptLoad, 5, to, tn, tn}, nobitsLoad, {ptLoad, 4, co, cn, cn}}
	} else {
		// sm_75-sm_89: PHDR, the banks and the code (R E), the NOBITS
		// memory (RW) when there is any, a LOAD of the PHDR (R E).
		lo, n := span(append(append([]*section(nil), consts...), texts...))
		phs = []phdr{{ptPhdr, 5, phoff, 0, 0}, {ptLoad, 5, lo, n, n}}
		if nobitsSize > 0 {
			phs = append(phs, nobitsLoad)
		}
		phs = append(phs, phdr{ptLoad, 5, phoff, 0, 0})
	}
	// A module without a kernel has no code and no banks: ptxas 13.0
	// writes no LOAD for them (PHDR and its LOAD, and on sm_90 the
	// empty RW one; measured on ZLUDA's param_func_array_0).
	phs = slices.DeleteFunc(phs, func(p phdr) bool { return p.off < 0 })
	for i := range phs {
		if phs[i].off == phoff && phs[i].fsz == 0 && phs[i].flags != 6 {
			phs[i].fsz, phs[i].msz = 56*len(phs), 56*len(phs)
		}
	}
	for _, p := range phs {
		var h [56]byte
		binary.LittleEndian.PutUint32(h[0:], p.typ)
		binary.LittleEndian.PutUint32(h[4:], p.flags)
		binary.LittleEndian.PutUint64(h[8:], uint64(p.off))
		binary.LittleEndian.PutUint64(h[32:], uint64(p.fsz))
		binary.LittleEndian.PutUint64(h[40:], uint64(p.msz))
		binary.LittleEndian.PutUint64(h[48:], 8)
		out = append(out, h[:]...)
	}
	copy(out, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, elfOSABICUDA, elfABIVer})
	binary.LittleEndian.PutUint16(out[16:], 2) // ET_EXEC
	binary.LittleEndian.PutUint16(out[18:], emCUDA)
	binary.LittleEndian.PutUint32(out[20:], 1)
	binary.LittleEndian.PutUint64(out[32:], uint64(phoff))
	binary.LittleEndian.PutUint64(out[40:], uint64(shdr))
	binary.LittleEndian.PutUint32(out[48:], CubinFlags(arch))
	binary.LittleEndian.PutUint16(out[52:], 64)
	binary.LittleEndian.PutUint16(out[54:], 56)
	binary.LittleEndian.PutUint16(out[56:], uint16(len(phs)))
	binary.LittleEndian.PutUint16(out[58:], 64)
	binary.LittleEndian.PutUint16(out[60:], uint16(len(secs)))
	binary.LittleEndian.PutUint16(out[62:], 1) // .shstrtab
	return out, nil
}

func secByName(secs []*section, name string) *section {
	for _, s := range secs {
		if s.name == name {
			return s
		}
	}
	panic("sass: no section " + name)
}

func secNames(secs []*section) []string {
	var n []string
	for _, s := range secs {
		n = append(n, s.name)
	}
	return n
}

// strtab builds a string table (leading NUL) and each name's offset.
func strtab(names []string) ([]byte, map[string]int) {
	b := []byte{0}
	off := map[string]int{"": 0}
	for _, n := range names {
		if _, ok := off[n]; ok || n == "" {
			continue
		}
		off[n] = len(b)
		b = append(append(b, n...), 0)
	}
	return b, off
}

func u32(vs ...uint32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func sval(b *bytes.Buffer, attr byte, payload []byte) {
	b.Write([]byte{eifmtSVAL, attr})
	binary.Write(b, binary.LittleEndian, uint16(len(payload)))
	b.Write(payload)
}

func hval(b *bytes.Buffer, attr byte, v uint16) {
	b.Write([]byte{eifmtHVAL, attr})
	binary.Write(b, binary.LittleEndian, v)
}
