package sched

// The latency and functional-unit model.
//
// ptxas classifies every instruction into a scheduling class (the
// "unit_id" of its per-SM dependency rules, Latency Model page 001:23293 and
// the per-SM table 002:872-907) and looks up, per SM, a latency and an
// inverse throughput for the class. orilab does the same with a table per
// supported SM (sm_75, sm_80, sm_86, sm_89) and one classification function
// over Ori opcodes and modifiers.
//
// Two numbers describe when a result is available:
//
//   - A fixed-latency instruction (integer ALU, FP32, half precision,
//     predicate logic) writes its results exactly Cycles after it issues
//     and reads its sources at issue. Only the stall count protects its
//     consumers, so Cycles must fit the 4-bit stall field (at most 15).
//   - A variable-latency instruction (memory, MUFU, conversions, FP64,
//     S2R, warp shuffles, uniform datapath) writes its results and reads
//     its sources at unknown times; only the dependency barriers (write
//     barrier, read barrier, wait mask) protect them. Its Cycles is the
//     scheduler's estimate, used for priorities and never for stall counts.
//
// Decision: the per-SM table (002:872-907) gives 17 cycles for the integer
// and FP32 classes, but the scoreboard page (001:24243) says ALU results
// take 4-6 cycles and are covered by the stall count, whose maximum is 15
// (001:24178). A 17-cycle fixed latency would force a barrier on every ALU
// result, so the table's value cannot be a result latency. orilab takes the
// fixed latencies from the scoreboard page's range: 4 cycles for the
// IADD3/predicate class (2) and the FP32 class (11), 5 for the
// IMAD/LOP3/SHF class (3), 6 for the wide IMAD forms that ptxas routes to
// the FMA pipe (IMAD.WIDE, IMAD.HI; 001:23976). The table's values are kept
// for every variable-latency class, where they are what the wiki says they
// are: "the scheduler's static cycle cost" (002:874).
//
// Decision: the table has no sm_75 column; Turing takes the sm_70 column
// (the wiki's profile for the Volta/Turing era). The sm_80 column's SFU
// (13) and conversion (5) latencies are called anomalous base-profile values
// that the full sm_80 profile corrects (002:900); orilab uses the sm_70 and
// sm_86 latencies (48, 31) there and keeps sm_80's throughputs.
//
// Decision: FP64 is variable-latency on every supported SM, sm_80 included:
// the table's FP64 latency is 42 cycles on all of them, beyond the stall
// range. The uniform datapath class is 255 ("unsupported") on sm_7x and
// sm_80 in the table, yet Turing and Ampere do have uniform registers; its
// latency (22 on sm_86+) also exceeds the stall range, so uniform ALU
// instructions are variable-latency everywhere, estimated at 22 cycles.

import (
	"strings"

	"orilab/pipeline/ori"
)

// Pipe is a functional unit: the 10 entries of ptxas's per-block resource
// vector (001:23431-23457), in the same order.
type Pipe uint8

const (
	PipeALU  Pipe = iota // integer ALU: IADD3, IMAD, ISETP, LOP3, SHF, moves
	PipeFMA              // FP32 and half precision: FADD, FFMA, FSETP, HFMA2; wide IMAD
	PipeFP64             // double precision: DADD, DFMA, DMUL, DSETP
	PipeMMA              // tensor cores (no Ori opcode uses them yet)
	PipeLSU              // load/store: LDG, STG, LDL, STL, LDS, STS, LD, ST, LDC, global atomics
	PipeTEX              // texture: TEX, TLD, TLD4, TXQ
	PipeCBU              // branch and control: BRA, EXIT, RET, CALL, BAR, BSSY, WARPSYNC
	PipeSMEM             // shared-memory atomics and the warp crossbar: ATOMS, SHFL, REDUX, MATCH
	PipeSFU              // special functions and conversions: MUFU, F2F, I2F, F2I, FRND
	PipeUDP              // uniform datapath: ULDC, UIADD3, UMOV, ...
	NumPipes             // the number of pipes
)

var pipeNames = [NumPipes]string{"alu", "fma", "fp64", "mma", "lsu", "tex", "cbu", "smem", "sfu", "udp"}

func (p Pipe) String() string {
	if p < NumPipes {
		return pipeNames[p]
	}
	return "pipe?"
}

// Class is a scheduling class: the wiki's unit_id of the per-SM dependency
// rules (002:872-907), or 0 for instructions the table has no row for.
type Class uint16

// The classes of the per-SM table that Ori opcodes map to.
const (
	ClassNone    Class = 0   // no row in the wiki's table (control, S2R)
	ClassALU     Class = 2   // IADD3, predicate logic, moves
	ClassIMAD    Class = 3   // IMAD, LOP3, SHF
	ClassFP32    Class = 11  // FADD, FFMA, FMUL, half precision
	ClassShared  Class = 20  // LDS, STS, ATOMS, warp crossbar
	ClassGlobal  Class = 22  // LDG, STG, LD, ST, LDL, STL, LDC, atomics
	ClassFP64    Class = 44  // DADD, DFMA, DMUL, DSETP
	ClassSFU     Class = 52  // MUFU
	ClassConvert Class = 72  // I2F, F2I, F2F, FRND, I2I
	ClassBranch  Class = 130 // BRA, EXIT, RET, CALL, BAR, ...
	ClassUniform Class = 152 // uniform datapath
)

// Info is what the model says about one instruction on one SM.
type Info struct {
	Class Class // the scheduling class of the wiki's table, ClassNone without one
	Pipe  Pipe  // the functional unit that executes it
	// Cycles is the result latency of a fixed-latency instruction (at most
	// MaxFixedLatency, within the stall field's range 0-15), or the
	// scheduler's estimate for a variable-latency one. Fixed-latency
	// control instructions write no register; theirs is the table's
	// branch latency and orders nothing.
	Cycles int
	// Variable says the instruction's results are written, and its
	// sources read, at times only a dependency barrier can tell.
	Variable bool
	// Issue is the inverse throughput: the cycles its pipe needs before it
	// accepts the next instruction (0: one per cycle). The scheduler models
	// it; the hardware throttles issue by itself, so control words do not.
	Issue int
}

// LongLatency reports ptxas's long-latency test (IsLongLatencyOp,
// 001:23724-23735): an estimated latency above 19 cycles.
func (i Info) LongLatency() bool { return i.Cycles > 19 }

// MaxFixedLatency is the largest fixed latency in the model. It fits the
// stall field, which is what lets a stall count alone cover every
// fixed-latency dependency.
const MaxFixedLatency = 6

// rate is one (latency, inverse throughput) cell of the per-SM table.
type rate struct{ lat, inv int }

// smTable holds the table's cells for the variable-latency classes and the
// issue rates of the fixed ones, for one SM column.
type smTable map[Class]rate

// tables are the columns of 002:872-907 used by orilab, with the decisions
// above applied (sm_75 = the sm_70 column; sm_80 SFU and conversion
// latencies corrected; uniform datapath at 22 cycles).
var tables = map[int]smTable{
	75: {ClassALU: {17, 0}, ClassIMAD: {17, 0}, ClassFP32: {17, 0}, ClassFP64: {42, 15}, ClassShared: {28, 5},
		ClassGlobal: {28, 5}, ClassSFU: {48, 19}, ClassBranch: {22, 2}, ClassConvert: {31, 1}, ClassUniform: {22, 35}},
	80: {ClassALU: {17, 0}, ClassIMAD: {17, 0}, ClassFP32: {17, 0}, ClassFP64: {42, 15}, ClassShared: {28, 5},
		ClassGlobal: {28, 5}, ClassSFU: {48, 19}, ClassBranch: {22, 2}, ClassConvert: {31, 9}, ClassUniform: {22, 35}},
	86: {ClassALU: {17, 0}, ClassIMAD: {17, 0}, ClassFP32: {17, 0}, ClassFP64: {42, 15}, ClassShared: {28, 5},
		ClassGlobal: {28, 5}, ClassSFU: {48, 19}, ClassBranch: {22, 2}, ClassConvert: {31, 12}, ClassUniform: {22, 2}},
	89: {ClassALU: {17, 0}, ClassIMAD: {17, 0}, ClassFP32: {17, 0}, ClassFP64: {42, 15}, ClassShared: {28, 5},
		ClassGlobal: {28, 5}, ClassSFU: {48, 19}, ClassBranch: {22, 2}, ClassConvert: {31, 12}, ClassUniform: {22, 2}},
}

// TableArch returns the SM whose table models arch.
//
// Decision: below sm_80 the Turing table applies, sm_80-85 use sm_80's,
// sm_86-88 sm_86's, and sm_89 and later sm_89's (ptxas falls back to a
// universal table for unknown SMs, 001:23620; the closest older profile is
// the nearest thing orilab has).
func TableArch(arch int) int {
	switch {
	case arch < 80:
		return 75
	case arch < 86:
		return 80
	case arch < 89:
		return 86
	}
	return 89
}

// fixedCycles are the fixed result latencies (see the Decision above).
var fixedCycles = map[Class]int{ClassALU: 4, ClassIMAD: 5, ClassFP32: 4}

// denseRates and denseFixed are tables and fixedCycles as arrays indexed
// by class (and table: tableIndex), built from them once: Latency runs
// for every instruction in several passes, and its three map lookups were
// most of its cost. A class missing from a map reads as zero in both.
var (
	denseRates [4][classSpan]rate
	denseFixed [classSpan]int
)

// classSpan bounds the Class values the tables use (ClassUniform is the
// largest).
const classSpan = 256

// tableIndex numbers the SMs TableArch returns.
func tableIndex(arch int) int {
	switch TableArch(arch) {
	case 75:
		return 0
	case 80:
		return 1
	case 86:
		return 2
	}
	return 3
}

func init() {
	for arch, t := range tables {
		for c, r := range t {
			denseRates[tableIndex(arch)][c] = r
		}
	}
	for c, v := range fixedCycles {
		denseFixed[c] = v
	}
}

// isClockSR reports a special register whose value depends on when it is
// read (the clocks and the global timer).
func isClockSR(name string) bool {
	return strings.HasPrefix(name, "SR_CLOCK") || strings.HasPrefix(name, "SR_GLOBALTIMER")
}

// Latency returns the model's view of in on SM arch.
func Latency(arch int, in *ori.Inst) Info {
	t := &denseRates[tableIndex(arch)]
	fixed := func(c Class, p Pipe) Info {
		return Info{Class: c, Pipe: p, Cycles: denseFixed[c], Issue: t[c].inv}
	}
	variable := func(c Class, p Pipe) Info {
		r := t[c]
		return Info{Class: c, Pipe: p, Cycles: r.lat, Variable: true, Issue: r.inv}
	}
	switch in.Op {
	case ori.OpIADD3, ori.OpISETP, ori.OpIMNMX, ori.OpIABS, ori.OpLEA, ori.OpPOPC, ori.OpFLO,
		ori.OpBREV, ori.OpBMSK, ori.OpPRMT, ori.OpSEL, ori.OpSGXT, ori.OpMOV, ori.OpPLOP3,
		ori.OpP2R, ori.OpR2P, ori.OpCS2R, ori.OpVOTE, ori.OpNOP, ori.OpInvalid:
		return fixed(ClassALU, PipeALU)
	case ori.OpIMAD:
		if in.HasMod("WIDE") || in.HasMod("HI") {
			// ptxas routes the wide forms to the FMA pipe (001:23976).
			i := fixed(ClassIMAD, PipeFMA)
			i.Cycles = MaxFixedLatency
			return i
		}
		return fixed(ClassIMAD, PipeALU)
	case ori.OpLOP3, ori.OpSHF, ori.OpIDP:
		return fixed(ClassIMAD, PipeALU)
	case ori.OpFADD, ori.OpFMUL, ori.OpFFMA, ori.OpFMNMX, ori.OpFSETP, ori.OpFSEL, ori.OpFSET,
		ori.OpFCHK, ori.OpF2FP, ori.OpHADD2, ori.OpHMUL2, ori.OpHFMA2, ori.OpHSETP2, ori.OpHMNMX2:
		return fixed(ClassFP32, PipeFMA)
	case ori.OpDADD, ori.OpDMUL, ori.OpDFMA, ori.OpDSETP:
		return variable(ClassFP64, PipeFP64)
	case ori.OpMUFU:
		return variable(ClassSFU, PipeSFU)
	case ori.OpF2F, ori.OpF2I, ori.OpI2F, ori.OpI2I, ori.OpFRND:
		return variable(ClassConvert, PipeSFU)
	case ori.OpLDS, ori.OpSTS, ori.OpLDSM, ori.OpSTSM:
		return variable(ClassShared, PipeLSU)
	case ori.OpATOMS, ori.OpSHFL, ori.OpREDUX, ori.OpMATCH:
		return variable(ClassShared, PipeSMEM)
	case ori.OpLDG, ori.OpSTG, ori.OpLDL, ori.OpSTL, ori.OpLD, ori.OpST, ori.OpLDC,
		ori.OpATOMG, ori.OpATOM, ori.OpRED, ori.OpLDGSTS:
		return variable(ClassGlobal, PipeLSU)
	case ori.OpTEX, ori.OpTLD, ori.OpTLD4, ori.OpTXQ, ori.OpSULD, ori.OpSUST:
		// Decision: the table has no texture class; a fetch is timed as
		// a global load (ptxas waits on it through a scoreboard too:
		// DEPBAR.LE SB5 after TEX).
		return variable(ClassGlobal, PipeTEX)
	case ori.OpS2R, ori.OpS2UR:
		// Decision: the table has no special-register class. S2R is
		// scoreboarded on Volta and later; orilab estimates it at the
		// branch class's 22 cycles, the table's smallest long latency.
		r := t[ClassBranch]
		return Info{Class: ClassNone, Pipe: PipeCBU, Cycles: r.lat, Variable: true, Issue: r.inv}
	case ori.OpULDC, ori.OpUMOV, ori.OpUIADD3, ori.OpUIMAD, ori.OpULOP3, ori.OpUSHF, ori.OpUISETP, ori.OpUSEL, ori.OpULEA:
		return variable(ClassUniform, PipeUDP)
	}
	// Branches, calls, returns, BAR and the other control instructions.
	// HMMA, IMMA and DMMA land here too: the latency table has no
	// tensor-core class, and a variable latency waited on through a
	// scoreboard is correct whatever the pipe's real depth.
	// Without register results their latency orders nothing. With
	// results (BAR.RED returns its reduction once the whole CTA has
	// arrived), only a barrier can say when they land; the same holds for
	// any opcode this switch does not know yet, which is the safe default.
	i := Info{Class: ClassBranch, Pipe: PipeCBU, Cycles: t[ClassBranch].lat, Issue: t[ClassBranch].inv}
	i.Variable = len(in.Dsts) > 0
	return i
}
