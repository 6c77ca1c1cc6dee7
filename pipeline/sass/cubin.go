package sass

// The cubin writer: an ELF64 file in the layout ptxas 13.0 writes, with
// the sections and .nv.info attributes the CUDA tools read. Layout facts
// are measured from ptxas's own cubins (readelf -S -s, cuobjdump -elf,
// and the raw bytes of .nv.info sections); TestCubin reads the result
// with cuobjdump -elf and nvdisasm.
//
// What ptxas writes and this writer does not (yet): program headers,
// .nv.callgraph, .nv.compat, the .note.nv.tkinfo/.note.nv.cuinfo notes,
// .debug_frame, EIATTR_MAX_THREADS and the other optional attributes,
// global variables (.nv.global, .nv.constant3) and relocations: a
// function with calls is refused. The CUDA driver has not loaded its
// output yet (no GPU run in this session).

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// CubinFunc is one function for the cubin.
type CubinFunc struct {
	Name  string
	Entry bool // a kernel (.entry): STO_CUDA_ENTRY, parameters in constant bank 0
	Code  *Code
	Regs  int // registers per thread (EIATTR_REGCOUNT)
	Frame int // bytes of stack frame (EIATTR_FRAME_SIZE)
	// Params are the kernel's parameters in order: byte offset from the
	// start of the parameter area and size.
	Params []CubinParam
	Shared int // bytes of .shared memory (.nv.shared.NAME)
}

// CubinParam is one kernel parameter.
type CubinParam struct{ Offset, Size int }

// ELF and CUDA constants (measured from ptxas 13.0.88 cubins).
const (
	emCUDA       = 190
	elfOSABICUDA = 0x41 // EI_OSABI of ptxas's cubins
	elfABIVer    = 8    // EI_ABIVERSION
	shtProgbits  = 1
	shtSymtab    = 2
	shtStrtab    = 3
	shtNobits    = 8
	shtCUDAInfo  = 0x70000000 // .nv.info sections
	shfWrite     = 0x1
	shfAlloc     = 0x2
	shfExec      = 0x4
	shfInfoLink  = 0x40
	stoCUDAEntry = 0x10

	eifmtHVAL = 3 // a 16-bit value
	eifmtSVAL = 4 // a sized payload

	eiattrParamCBank     = 0x0a
	eiattrFrameSize      = 0x11
	eiattrMinStackSize   = 0x12
	eiattrKParamInfo     = 0x17
	eiattrCBankParamSize = 0x19
	eiattrMaxRegCount    = 0x1b
	eiattrExitOffsets    = 0x1c
	eiattrRegCount       = 0x2f
	eiattrCUDAAPIVersion = 0x37
)

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
}

type symbol struct {
	name  string
	info  uint8 // bind<<4 | type
	other uint8
	shndx string // section name
	size  uint64
}

// WriteCubin returns the cubin of funcs for SM arch.
func WriteCubin(arch int, funcs []CubinFunc) ([]byte, error) {
	if err := checkArch(arch); err != nil {
		return nil, err
	}
	secs := []*section{{name: ""}, {name: ".shstrtab", typ: shtStrtab, align: 1}, {name: ".strtab", typ: shtStrtab, align: 1},
		{name: ".symtab", typ: shtSymtab, align: 8, entsize: 24, linkSection: ".strtab"}}
	var syms []symbol // locals first, then globals
	var globals []symbol
	info := &bytes.Buffer{}
	secs = append(secs, &section{name: ".nv.info", typ: shtCUDAInfo, align: 4, linkSection: ".symtab"})
	for _, f := range funcs {
		if len(f.Code.Relocs) > 0 {
			return nil, fmt.Errorf("sass: %s calls %s: the cubin writer does not write relocations yet", f.Name, f.Code.Relocs[0].Sym)
		}
		text := ".text." + f.Name
		secs = append(secs, &section{name: text, typ: shtProgbits, flags: shfAlloc | shfExec, data: f.Code.Bytes(),
			align: 128, linkSection: ".symtab", infoSym: f.Name})
		syms = append(syms, symbol{name: text, info: 3, shndx: text})
		other := uint8(0)
		if f.Entry {
			other = stoCUDAEntry
		}
		globals = append(globals, symbol{name: f.Name, info: 1<<4 | 2, other: other, shndx: text, size: uint64(16 * len(f.Code.Words))})
		if f.Shared > 0 {
			secs = append(secs, &section{name: ".nv.shared." + f.Name, typ: shtNobits, flags: shfWrite | shfAlloc, size: f.Shared, align: 16})
		}
		if !f.Entry {
			continue
		}
		c0 := ".nv.constant0." + f.Name
		psize := 0
		for _, p := range f.Params {
			psize = max(psize, p.Offset+p.Size)
		}
		secs = append(secs, &section{name: c0, typ: shtProgbits, flags: shfAlloc | shfInfoLink, data: make([]byte, int(paramBase(arch))+psize),
			align: 4, infoSection: text})
		syms = append(syms, symbol{name: c0, info: 3, shndx: c0})
		secs = append(secs, &section{name: ".nv.info." + f.Name, typ: shtCUDAInfo, flags: shfInfoLink, align: 4,
			linkSection: ".symtab", infoSection: text})
	}
	syms = append(syms, globals...)
	symIndex := map[string]int{}
	for i, s := range syms {
		symIndex[s.name] = i + 1
	}
	secIndex := map[string]int{}
	for i, s := range secs {
		secIndex[s.name] = i
	}
	// .nv.info: per function register count, frame and stack size.
	for _, f := range funcs {
		for _, a := range []struct {
			attr byte
			v    int
		}{{eiattrRegCount, f.Regs}, {eiattrFrameSize, f.Frame}, {eiattrMinStackSize, f.Frame}} {
			sval(info, a.attr, u32(uint32(symIndex[f.Name]), uint32(a.v)))
		}
	}
	secByName(secs, ".nv.info").data = info.Bytes()
	// .nv.info.NAME: the kernel's parameters and exits.
	for _, f := range funcs {
		if !f.Entry {
			continue
		}
		b := &bytes.Buffer{}
		sval(b, eiattrCUDAAPIVersion, u32(0x82))
		psize := 0
		for i := len(f.Params) - 1; i >= 0; i-- { // ptxas lists them last first
			p := f.Params[i]
			psize = max(psize, p.Offset+p.Size)
			var pl [12]byte
			binary.LittleEndian.PutUint16(pl[4:], uint16(i))
			binary.LittleEndian.PutUint16(pl[6:], uint16(p.Offset))
			binary.LittleEndian.PutUint32(pl[8:], uint32(p.Size)<<18|0x1f<<12)
			sval(b, eiattrKParamInfo, pl[:])
		}
		hval(b, eiattrMaxRegCount, 0xff)
		var exits []uint32
		for i, w := range f.Code.Words {
			if w.Field(0, 12) == 0x94d {
				exits = append(exits, uint32(16*i))
			}
		}
		if len(exits) > 0 {
			sval(b, eiattrExitOffsets, u32(exits...))
		}
		hval(b, eiattrCBankParamSize, uint16(psize))
		var pc [8]byte
		binary.LittleEndian.PutUint32(pc[0:], uint32(symIndex[".nv.constant0."+f.Name]))
		binary.LittleEndian.PutUint16(pc[4:], uint16(paramBase(arch)))
		binary.LittleEndian.PutUint16(pc[6:], uint16(psize))
		sval(b, eiattrParamCBank, pc[:])
		secByName(secs, ".nv.info."+f.Name).data = b.Bytes()
	}
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
			s.info = uint32(symIndex[s.infoSym])
		}
	}
	// Layout: header, section contents in order, section headers.
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
	for i, s := range secs {
		var h [64]byte
		if i > 0 {
			size := uint64(len(s.data))
			if s.typ == shtNobits {
				size = uint64(s.size)
				offs[i] = shdr
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
	copy(out, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, elfOSABICUDA, elfABIVer})
	binary.LittleEndian.PutUint16(out[16:], 2) // ET_EXEC
	binary.LittleEndian.PutUint16(out[18:], emCUDA)
	binary.LittleEndian.PutUint32(out[20:], 1)
	binary.LittleEndian.PutUint64(out[40:], uint64(shdr))
	binary.LittleEndian.PutUint32(out[48:], CubinFlags(arch))
	binary.LittleEndian.PutUint16(out[52:], 64)
	binary.LittleEndian.PutUint16(out[54:], 56)
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
