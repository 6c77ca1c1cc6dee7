package sched

// How instructions constrain each other beyond their registers.
//
// Every instruction falls in one of four ordering kinds:
//
//   - kindPlain: only its registers order it (ALU, FP, conversions,
//     constant loads: constant banks are read-only while a kernel runs).
//   - kindMem: a load or store. Two memory instructions are ordered when
//     they may touch the same bytes and at least one of them writes. The
//     scheduler does no alias analysis beyond one safe case: the same base
//     register, unchanged in between, with disjoint offset ranges (spill
//     slots off R1, array elements off one pointer).
//   - kindOrder: an ordering point. Atomics (they carry memory-model
//     semantics such as .ACQUIRE and .RELEASE), BAR, MEMBAR, WARPSYNC,
//     BSSY/BSYNC, NANOSLEEP, BPT, the warp collectives (SHFL, VOTE, REDUX,
//     MATCH) and clock reads. Ordering points keep their order among
//     themselves and against every memory instruction; plain instructions
//     may still move across them, since nothing but registers connects
//     them (a warp collective reads the other lanes' registers, which the
//     lanes' own register dependencies order).
//   - kindFull: a full barrier that nothing crosses: CALL (it reads and
//     clobbers the ABI registers and may touch any memory), the block
//     terminator (BRA, BRX, EXIT, RET), and every write of the stack
//     pointer R1 (the prologue and epilogue must stay where the frame
//     layout expects them). Before allocation, plain instructions that
//     name only virtual registers may sink below a CALL (floatcalls.go).

import "orilab/pipeline/ori"

type kind uint8

const (
	kindPlain kind = iota
	kindMem
	kindOrder
	kindFull
)

// space is the memory space of a memory instruction.
type space uint8

const (
	spaceNone    space = iota
	spaceGlobal        // LDG, STG
	spaceShared        // LDS, STS
	spaceLocal         // LDL, STL (spill slots live here)
	spaceGeneric       // LD, ST: any of the three
)

// writesR1 reports whether in writes the stack pointer.
func writesR1(in *ori.Inst) bool {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && !o.Reg.Virtual && o.Reg.Class == ori.ClassR && !o.Reg.IsZero() &&
			o.Reg.N <= 1 && 1 < o.Reg.N+int32(max(o.Reg.Words, 1)) {
			return true
		}
	}
	return false
}

// orderKind classifies in.
func orderKind(in *ori.Inst) kind {
	f := in.Op.Flags()
	switch {
	case in.Op == ori.OpCALL || in.EndsBlock() || writesR1(in):
		return kindFull
	case f&(ori.FAtomic|ori.FBarrier|ori.FWarp) != 0:
		return kindOrder
	case in.Op == ori.OpLDC || in.Op == ori.OpULDC:
		return kindPlain
	case f&(ori.FLoad|ori.FStore) != 0:
		if in.HasMod("STRONG") {
			// volatile, relaxed, acquire or release in the PTX (the
			// lowering does not tell them apart): nothing moves across.
			return kindOrder
		}
		return kindMem
	case f&ori.FSideEffect != 0:
		return kindOrder // BSSY, NANOSLEEP, BPT
	case in.Op == ori.OpS2R || in.Op == ori.OpCS2R || in.Op == ori.OpS2UR:
		for _, o := range in.Srcs {
			if o.Kind == ori.OpdSR && isClockSR(o.Name) {
				return kindOrder
			}
		}
	}
	return kindPlain
}

// memRef describes one load or store for the alias test.
type memRef struct {
	space space
	store bool
	addr  ori.Operand // the [base+off] operand
	size  int64       // bytes accessed
}

// memRefOf returns the memory reference of a kindMem instruction.
func memRefOf(in *ori.Inst) memRef {
	r := memRef{store: in.Op.Has(ori.FStore), size: accessSize(in)}
	switch in.Op {
	case ori.OpLDG, ori.OpSTG:
		r.space = spaceGlobal
	case ori.OpLDS, ori.OpSTS:
		r.space = spaceShared
	case ori.OpLDL, ori.OpSTL:
		r.space = spaceLocal
	default:
		r.space = spaceGeneric
	}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdMem {
			r.addr = o
			break
		}
	}
	return r
}

// accessSize returns the bytes a load or store moves, from its size
// modifier (SEMANTICS.md: U8 S8 U16 S16, 32 by default, 64, 128).
func accessSize(in *ori.Inst) int64 {
	for _, m := range in.Mods {
		switch m {
		case "U8", "S8":
			return 1
		case "U16", "S16":
			return 2
		case "64":
			return 8
		case "128":
			return 16
		}
	}
	return 4
}

// mayAlias reports whether two memory references can touch a common byte
// with at least one of them writing. sameBase says whether their base
// registers hold the same value (the same register, not written between).
func mayAlias(a, b memRef, sameBase bool) bool {
	if !a.store && !b.store {
		return false
	}
	if a.space != b.space && a.space != spaceGeneric && b.space != spaceGeneric {
		return false
	}
	if a.addr.Kind != ori.OpdMem || b.addr.Kind != ori.OpdMem {
		return true
	}
	if a.space != b.space || a.addr.HasBase != b.addr.HasBase || (a.addr.HasBase && !sameBase) {
		// A register means different addresses in different spaces (a
		// generic address versus a shared offset), so only references of
		// one space compare their offsets.
		return true
	}
	// Same base value (or both absolute): disjoint ranges cannot alias.
	return a.addr.Imm < b.addr.Imm+b.size && b.addr.Imm < a.addr.Imm+a.size
}
