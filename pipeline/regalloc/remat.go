package regalloc

import (
	"strings"

	"orilab/pipeline/ori"
)

// Rematerialization: recomputing a value at each use instead of storing
// it to its spill slot and loading it back.
//
// Eligibility follows the wiki's whitelist of cheap single-cycle ALU
// opcodes (IADD3, SHF, IMAD, ISETP, MOV, constant loads, LOP3, SEL;
// 001:15358-15385), with their uniform-datapath twins, plus S2R of the
// special registers that keep their value for the whole thread. The
// wiki's operand-liveness test (every source still available at the
// remat point) is applied in its strongest form: every source must be a
// constant (immediate, constant-bank word without a register index) or a
// zero/true register, so it is available everywhere and the clone
// computes the same value wherever it is placed. And the value must have
// exactly one definition, unguarded and writing every word, so that every
// use reads that definition.
//
// Decision: a rematerialized value's original definition is deleted (all
// its uses now recompute it); the clones carry Role remat and Origin =
// the deleted instruction's ID, which is what the post-allocation
// verifier matches them against.

// rematOps are the opcodes whose results can be recomputed.
var rematOps = map[ori.Opcode]bool{
	ori.OpMOV: true, ori.OpIADD3: true, ori.OpIMAD: true, ori.OpSHF: true, ori.OpLOP3: true,
	ori.OpSEL: true, ori.OpISETP: true, ori.OpLDC: true, ori.OpS2R: true,
	ori.OpUMOV: true, ori.OpUIADD3: true, ori.OpUIMAD: true, ori.OpUSHF: true, ori.OpULOP3: true,
	ori.OpUSEL: true, ori.OpUISETP: true, ori.OpULDC: true,
}

// stableSR reports whether a special register keeps one value for the
// whole life of a thread: thread and block indices, lane masks, grid and
// machine geometry. Clocks, timers, SR_SMID and SR_WARPID (which PTX says
// may change under preemption) do not.
func stableSR(name string) bool {
	for _, p := range []string{"SR_TID", "SR_CTAID", "SR_LANEID", "SR_EQMASK", "SR_LTMASK", "SR_LEMASK",
		"SR_GTMASK", "SR_GEMASK", "SR_NSMID", "SR_NWARPID", "SR_GRIDID"} {
		if name == p || strings.HasPrefix(name, p+".") {
			return true
		}
	}
	return false
}

// rematerializable reports whether v's value can be recomputed from its
// only definition.
func rematerializable(v *vreg) bool {
	in := v.def
	if in == nil || in.Guarded() || !rematOps[in.Op] || in.IsPhi() || in.Role != ori.RoleNone && in.Role != ori.RoleRemat {
		return false
	}
	if in.Op == ori.OpMOV && len(in.Mods) > 0 {
		return false
	}
	results := 0
	for _, o := range in.Dsts {
		if o.Kind != ori.OpdReg {
			return false
		}
		if o.Reg.IsZero() {
			continue
		}
		results++
		if !o.Reg.Virtual || o.Reg.N != v.num || int(o.Reg.Off) != 0 || int(o.Reg.Words) != v.width {
			return false
		}
	}
	if results != 1 {
		return false
	}
	for _, o := range in.Srcs {
		switch o.Kind {
		case ori.OpdImm:
		case ori.OpdCBank:
			if o.HasBase {
				return false
			}
		case ori.OpdReg:
			if !o.Reg.IsZero() {
				return false
			}
		case ori.OpdSR:
			if in.Op != ori.OpS2R || !stableSR(o.Name) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
