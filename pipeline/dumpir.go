package pipeline

import (
	"fmt"
	"io"

	"orilab/pipeline/ori"
)

// WriteDumpIR writes what ptxas's DUMPIR knob prints after a phase: for
// each function, the statistics header ("# [inst=...] [rregs=...]" in the
// wiki's format) and the Ori listing.
//
// Every field is either computed from the IR or printed as n/a; none is
// invented. Computed now: the instruction count, texture instructions
// (Ori has none, so 0 is the honest count), R registers once every
// register is physical, FP16 instruction counts, conditional branches as
// the divergent-branch estimate, loops. Latency and throughput estimates,
// occupancy, spill traffic and program size need the back end and print
// n/a. The typo "trancedental" is ptxas's own and kept.
func WriteDumpIR(w io.Writer, phase string, m *ori.Module) {
	fmt.Fprintf(w, "// DUMPIR after %s\n", phase)
	for _, f := range m.Funcs {
		writeStatsHeader(w, f)
		io.WriteString(w, f.String())
	}
}

func writeStatsHeader(w io.Writer, f *ori.Func) {
	st := funcStats(f)
	rregs := "n/a"
	if st.physical {
		rregs = fmt.Sprint(st.rregs)
	}
	pct := "0.00"
	if st.fp16 > 0 {
		pct = fmt.Sprintf("%.2f", 100*float64(st.fp16Vec)/float64(st.fp16))
	}
	fmt.Fprintf(w, "# %d instructions, %s R-regs\n", st.insts, rregs)
	fmt.Fprintf(w, "# [inst=%d] [texInst=0] [tepid=n/a] [rregs=%s]\n", st.insts, rregs)
	fmt.Fprintf(w, "# [FP16 inst=%d] [FP16 VectInst=%d] [Percentage Vectorized=%s]\n", st.fp16, st.fp16Vec, pct)
	fmt.Fprintf(w, "# [est latency = n/a] [LSpillB=n/a] [LRefillB=n/a], [SSpillB=n/a], [SRefillB=n/a], [LowLmemSpillSize=n/a] [FrameLmemSpillSize=n/a]\n")
	fmt.Fprintf(w, "# [LNonSpillB=n/a] [LNonRefillB=n/a], [NonSpillSize=n/a]\n")
	fmt.Fprintf(w, "# [Occupancy = n/a], [est numDivergentBranches=%d] [attributeMemUsage=0], [programSize=n/a]\n", st.condBranches)
	fmt.Fprintf(w, "# [est fp=n/a] [est half=n/a], [est trancedental=n/a], [est ipa=n/a], [est shared=n/a], [est controlFlow=n/a], [est loadStore=n/a]\n")
	fmt.Fprintf(w, "# [est tex=n/a] [est pairs=n/a]\n")
	fmt.Fprintf(w, "# [issue thru=n/a] [fp thru=n/a] [half thru=n/a], [trancedental thru=n/a], [ipa thru=n/a]\n")
	fmt.Fprintf(w, "# [shared thru=n/a] [controlFlow thru=n/a] [texLoadStore thru=n/a], [reg thru=n/a], [warp thru=n/a]\n")
	fmt.Fprintf(w, "# [partially unrolled loops=n/a] [non-unrolled loops=n/a]\n")
	fmt.Fprintf(w, "# [CB-Bound Tex=0] [UR-Bound Tex=0] [Bindless Tex=0] [Partially Bound Tex=0]\n")
	fmt.Fprintf(w, "# [UDP inst=%d] [numVecToURConverts inst=n/a]\n", st.uniform)
	fmt.Fprintf(w, "# [maxNumLiveValuesAtSuspend=n/a]\n")
	fmt.Fprintf(w, "# [instHint=%d] [instPairs=n/a]\n", st.insts)
	fmt.Fprintf(w, "# [worstcaseLat=n/a]\n")
	fmt.Fprintf(w, "# [avgcaseLat=n/a]\n")
	fmt.Fprintf(w, "# [SharedMem Alloc thru=n/a]\n")
	fmt.Fprintf(w, "# [Precise inst=n/a]\n")
}

type stats struct {
	insts, fp16, fp16Vec, condBranches, uniform int
	physical                                    bool
	rregs                                       int
}

func funcStats(f *ori.Func) stats {
	st := stats{physical: true}
	maxR := -1
	note := func(r ori.Reg) {
		if r.Virtual {
			st.physical = false
			return
		}
		if r.Class == ori.ClassR && !r.IsZero() && int(r.N)+int(r.Words)-1 > maxR {
			maxR = int(r.N) + int(r.Words) - 1
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			st.insts++
			switch in.Op {
			case ori.OpHADD2, ori.OpHMUL2, ori.OpHFMA2, ori.OpHSETP2, ori.OpHMNMX2:
				st.fp16++
				st.fp16Vec++
			case ori.OpBRA, ori.OpBRX:
				if in.Guarded() {
					st.condBranches++
				}
			}
			if in.Op.Has(ori.FUniform) {
				st.uniform++
			}
			note(in.Guard)
			for _, o := range append(append([]ori.Operand(nil), in.Dsts...), in.Srcs...) {
				if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
					note(o.Reg)
				}
			}
		}
	}
	st.rregs = maxR + 1
	return st
}
