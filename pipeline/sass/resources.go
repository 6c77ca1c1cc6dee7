package sass

// The ptxas -v resource report: per function, the stack frame and spill
// traffic, and per kernel the registers, shared memory and constant bank
// 0 it uses (wiki, Spill Mechanism, "Spill Statistics"; the "Used" format
// string of the --stat printer). The numbers come from the caller
// (register counts are the allocator's) or from the code (UsageOf).

import (
	"fmt"
	"io"

	"orilab/pipeline/ori"
)

// Usage is what the report says about one function.
type Usage struct {
	Name  string
	Entry bool  // a kernel: gets the "Compiling" and "Used" lines
	Regs  int   // R registers used, as ptxas counts them (highest used + 3; with the callees in ModuleUsage)
	Frame int64 // stack frame bytes (f.LocalBytes after allocation)
	// SpillStores and SpillLoads are the bytes the spill code moves to and
	// from local memory (SpillBytes).
	SpillStores, SpillLoads int64
	// Smem is the static shared memory in bytes.
	Smem int64
	// Cmem is the constant bank 0 bytes: up to the end of the parameters
	// and the texture header words after them.
	Cmem int64
	// Cmem2 is the kernel's literal pool in constant bank 2
	// (ori.Func.Literals), printed as ", N bytes cmem[2]" when not 0.
	Cmem2 int64
	// Barriers is the number of named barriers the function and what it
	// calls use (BarriersUsed).
	Barriers int
}

// paramBase is where kernel parameters start in constant bank 0
// (ori/SEMANTICS.md; lower.ParamBase, which this package may not import).
func paramBase(arch int) int64 {
	if arch >= 90 {
		return 0x210
	}
	return 0x160
}

// SpillBytes counts the bytes f's spill code moves: the sizes of its
// RoleSpill stores and RoleRefill loads to local memory. Predicate
// spills into R registers (SEL/ISETP) move no memory and count nothing.
func SpillBytes(f *ori.Func) (stores, loads int64) {
	size := func(in *ori.Inst) int64 {
		switch {
		case in.HasMod("128"):
			return 16
		case in.HasMod("64"):
			return 8
		}
		return 4
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			switch {
			case in.Role == ori.RoleSpill && in.Op == ori.OpSTL:
				stores += size(in)
			case in.Role == ori.RoleRefill && in.Op == ori.OpLDL:
				loads += size(in)
			}
		}
	}
	return stores, loads
}

// UsedRegs counts the R registers f uses as ptxas reports them: the
// highest R register named plus one, plus the two ptxas adds
// (regalloc.HiddenRegs has the evidence); R1, the stack pointer, is
// always there, so the least is 4.
func UsedRegs(f *ori.Func) int {
	high := 0
	note := func(r ori.Reg) {
		if r.Class == ori.ClassR && !r.Virtual && !r.IsZero() {
			high = max(high, int(r.N)+int(r.Words))
		}
	}
	notes := func(ops []ori.Operand) {
		for k := range ops {
			if o := &ops[k]; o.Kind == ori.OpdReg || o.HasBase {
				note(o.Reg)
			}
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			note(in.Guard)
			notes(in.Dsts)
			notes(in.Srcs)
		}
	}
	return max(high, 2) + 2
}

// UsageOf derives a function's report from its allocated code: the
// registers it names, its frame, its spill traffic, its shared memory and
// its parameters. A caller with the allocator's own counts overrides Regs.
func UsageOf(f *ori.Func, arch int) Usage {
	st, ld := SpillBytes(f)
	cmem := paramBase(arch)
	if f.Entry {
		for _, p := range f.Params {
			cmem = max(cmem, p.Offset+p.Size)
		}
		// The .texref/.surfref header words follow the parameters
		// (ptxas: "400 bytes cmem[0], 5 textures" for tex_forms).
		for _, t := range f.TexRefs {
			cmem = max(cmem, t.Offset+4)
		}
	}
	return Usage{
		Name: f.Name, Entry: f.Entry, Regs: UsedRegs(f), Frame: f.LocalBytes,
		SpillStores: st, SpillLoads: ld, Smem: f.SharedBytes, Cmem: cmem, Cmem2: int64(8 * len(f.Literals)),
		Barriers: ownBarriers(f),
	}
}

// ownBarriers is the number of barriers f's own BAR instructions need:
// the highest constant barrier ID plus one, or all 16 when an ID is in a
// register. Decision: ptxas 13.0.88's "used N barriers" counts the same
// way: bar.sync 0 and bar.sync 5, 64 report 6, bar.red.popc with ID 2
// reports 3, and bar.sync %r with %r loaded from memory reports 16
// (`ptxas -arch=sm_80 -v`).
func ownBarriers(f *ori.Func) int {
	n := 0
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op != ori.OpBAR || len(in.Srcs) == 0 {
				continue
			}
			switch o := in.Srcs[0]; o.Kind {
			case ori.OpdImm:
				n = max(n, int(o.Imm)+1)
			case ori.OpdReg:
				n = 16
			}
		}
	}
	return min(n, 16)
}

// BarriersUsed returns, per function of m, the barriers it and every
// function it calls (transitively) use.
func BarriersUsed(m *ori.Module) map[string]int {
	own := map[string]int{}
	for _, f := range m.Funcs {
		own[f.Name] = ownBarriers(f)
	}
	return overCallees(m, own)
}

// RegsUsed returns, per function of m, the registers (UsedRegs) it and
// every function it calls (transitively) name.
//
// Decision: ptxas's count for a kernel covers its callees, and so does
// orilab's: the hardware gives a thread the kernel's count, which the
// callees' code must fit in. Measured with ptxas 13.0.88 (sm_80): a
// kernel whose own code names R0-R5 and that calls a .func naming up to
// R20 reports "Used 23 registers" (R20 plus 3).
func RegsUsed(m *ori.Module) map[string]int {
	own := map[string]int{}
	for _, f := range m.Funcs {
		own[f.Name] = UsedRegs(f)
	}
	return overCallees(m, own)
}

// overCallees returns, per function of m, the largest own value over the
// function and every function it calls directly, transitively.
func overCallees(m *ori.Module, own map[string]int) map[string]int {
	calls := map[string][]string{}
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op != ori.OpCALL {
					continue
				}
				for _, o := range in.Srcs {
					if o.Kind == ori.OpdSym {
						calls[f.Name] = append(calls[f.Name], o.Name)
					}
				}
			}
		}
	}
	out := map[string]int{}
	for _, f := range m.Funcs {
		seen := map[string]bool{f.Name: true}
		work := []string{f.Name}
		n := 0
		for len(work) > 0 {
			g := work[len(work)-1]
			work = work[:len(work)-1]
			n = max(n, own[g])
			for _, c := range calls[g] {
				if !seen[c] {
					seen[c] = true
					work = append(work, c)
				}
			}
		}
		out[f.Name] = n
	}
	return out
}

// ModuleUsage derives the report of every function of m.
func ModuleUsage(m *ori.Module, arch int) []Usage {
	if arch == 0 {
		arch = m.Arch
	}
	bars, regs := BarriersUsed(m), RegsUsed(m)
	out := make([]Usage, len(m.Funcs))
	for i, f := range m.Funcs {
		out[i] = UsageOf(f, arch)
		out[i].Barriers = bars[f.Name]
		out[i].Regs = regs[f.Name]
	}
	return out
}

// GlobalBytes is the size of m's .global variables, the "gmem" of the
// report.
func GlobalBytes(m *ori.Module) int64 {
	var n int64
	for _, g := range m.Globals {
		if g.Space == ori.SpaceGlobal {
			n += g.Size
		}
	}
	return n
}

// Resources writes the ptxas -v report for funcs, in order, for target
// sm_<arch>, after the module's "bytes gmem" line.
//
// Decision: the lines have ptxas 13.0.88's shape: the gmem line always
// (ptxas prints "0 bytes gmem" too), "used N barriers" after the
// registers, and the smem part only when a kernel has static shared
// memory ("Used 12 registers, used 0 barriers, 380 bytes cmem[0]").
// ptxas's trailing "Compile time = N ms" line is left out: it is a
// measurement, not a property of the code, and would make the report
// differ from run to run.
func Resources(w io.Writer, arch int, gmem int64, funcs []Usage) error {
	const info = "ptxas info    : "
	if _, err := fmt.Fprintf(w, "%s%d bytes gmem\n", info, gmem); err != nil {
		return err
	}
	for _, r := range funcs {
		var err error
		if r.Entry {
			_, err = fmt.Fprintf(w, "%sCompiling entry function '%s' for 'sm_%d'\n", info, r.Name, arch)
		}
		if err == nil {
			_, err = fmt.Fprintf(w, "%sFunction properties for %s\n    %d bytes stack frame, %d bytes spill stores, %d bytes spill loads\n",
				info, r.Name, r.Frame, r.SpillStores, r.SpillLoads)
		}
		if err == nil && r.Entry {
			smem := ""
			if r.Smem > 0 {
				smem = fmt.Sprintf("%d bytes smem, ", r.Smem)
			}
			cmem2 := ""
			if r.Cmem2 > 0 {
				// ptxas 13.0: "..., 368 bytes cmem[0], 24 bytes cmem[2]".
				cmem2 = fmt.Sprintf(", %d bytes cmem[2]", r.Cmem2)
			}
			_, err = fmt.Fprintf(w, "%sUsed %d registers, used %d barriers, %s%d bytes cmem[0]%s\n", info, r.Regs, r.Barriers, smem, r.Cmem, cmem2)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
