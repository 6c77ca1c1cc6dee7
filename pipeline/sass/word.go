package sass

// The 128-bit instruction word of Volta-and-later SASS and its control
// bits. Bit n of the word is bit n of the little-endian 16 bytes the GPU
// fetches: bits 0-63 are Lo, bits 64-127 are Hi.

import (
	"encoding/binary"
	"fmt"

	"orilab/pipeline/ori"
)

// Word is one encoded instruction.
type Word struct {
	Lo, Hi uint64
}

// Bytes returns the 16 bytes of w in instruction-memory order.
func (w Word) Bytes() []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, w.Lo)
	binary.LittleEndian.PutUint64(b[8:], w.Hi)
	return b
}

// WordAt reads the instruction at byte offset off of b.
func WordAt(b []byte, off int) Word {
	return Word{Lo: binary.LittleEndian.Uint64(b[off:]), Hi: binary.LittleEndian.Uint64(b[off+8:])}
}

func (w Word) String() string { return fmt.Sprintf("0x%016x 0x%016x", w.Lo, w.Hi) }

// Field returns the n bits (n <= 64) of w starting at bit pos.
func (w Word) Field(pos, n int) uint64 {
	var v uint64
	for i := 0; i < n; i++ {
		if w.Bit(pos + i) {
			v |= 1 << i
		}
	}
	return v
}

// Bit reports bit pos of w.
func (w Word) Bit(pos int) bool {
	if pos < 64 {
		return w.Lo>>pos&1 != 0
	}
	return w.Hi>>(pos-64)&1 != 0
}

// SetField stores the low n bits of v at bit pos (bits above n are
// dropped; callers check ranges first).
func (w *Word) SetField(pos, n int, v uint64) {
	for i := 0; i < n; i++ {
		w.SetBit(pos+i, v>>i&1 != 0)
	}
}

// SetBit sets or clears bit pos.
func (w *Word) SetBit(pos int, on bool) {
	p, m := &w.Lo, uint64(1)<<pos
	if pos >= 64 {
		p, m = &w.Hi, uint64(1)<<(pos-64)
	}
	if on {
		*p |= m
	} else {
		*p &^= m
	}
}

// Control bits (Volta and later; sm_75-sm_90 share them). Facts:
// Mesa NAK's sm70_encode.rs (set_instr_deps), checked against ptxas
// 13.0's own words (pipeline/sass/testdata/ptxas).
const (
	bitStall  = 105 // 4 bits: cycles to stall after issue
	bitYield  = 109 // 1 bit, see encodeCtrl
	bitWrBar  = 110 // 3 bits: scoreboard set on write, 7 = none
	bitRdBar  = 113 // 3 bits: scoreboard set on read, 7 = none
	bitWait   = 116 // 6 bits: scoreboards waited for
	bitReuse  = 122 // 4 bits: operand reuse, one per source slot
	bitsGuard = 12  // 3 bits predicate + bit 15 negation
)

// Reuse slots: the reuse bit of each ALU source position.
const (
	reuseA = 0 // bits 24-31
	reuseB = 1 // bits 32-39
	reuseC = 2 // bits 64-71
)

// encodeCtrl stores the control word c.
//
// Decision: Ori's Yield (the "Y" of the assemblers' notation) is bit 109
// CLEAR. Evidence: ptxas 13.0 ends every kernel with a self-branch
// "BRA `(.L_x_N)" that must let other warps run; its word has bit 109 = 0,
// while straight-line code (MOV R1, c[0x0][0x28]: 0x000fe40000000f00) has
// bit 109 = 1. CuAssembler's listings print that BRA as [..:Y:S00].
func encodeCtrl(w *Word, c ori.Ctrl) error {
	if !c.Set {
		// Unscheduled code: ptxas's padding NOP's control word (no
		// barriers, stall 0, yield). nvdisasm rejects stall 0 without
		// yield ("undefined value 0x10 for table TABLES_opex_2").
		c = ori.NoCtrl
		c.Yield = true
	}
	if c.Stall > 15 {
		return fmt.Errorf("stall %d does not fit the 4-bit field", c.Stall)
	}
	if c.WrBar > 5 || c.RdBar > 5 {
		return fmt.Errorf("scoreboard barriers are 0-5 (write %d, read %d)", c.WrBar, c.RdBar)
	}
	if c.Wait >= 1<<6 {
		return fmt.Errorf("wait mask 0x%x has bits above barrier 5", c.Wait)
	}
	// Measured (nvdisasm 13.5 -b SM80 over every stall/yield pair):
	// without yield, stalls 0 and 12-15 are undefined ("undefined value
	// for table TABLES_opex"); a word that nvdisasm rejects is refused.
	if !c.Yield && (c.Stall == 0 || c.Stall >= 12) {
		return fmt.Errorf("control word %v: stall %d without yield has no encoding", c, c.Stall)
	}
	w.SetField(bitStall, 4, uint64(c.Stall))
	w.SetBit(bitYield, !c.Yield)
	w.SetField(bitWrBar, 3, barField(c.WrBar))
	w.SetField(bitRdBar, 3, barField(c.RdBar))
	w.SetField(bitWait, 6, uint64(c.Wait))
	return nil
}

func barField(b int8) uint64 {
	if b < 0 {
		return 7
	}
	return uint64(b)
}

// decodeCtrl reads the control word of w. A word whose barriers name the
// unused values 6 decodes as no barrier.
func decodeCtrl(w Word) ori.Ctrl {
	c := ori.Ctrl{Set: true, WrBar: -1, RdBar: -1}
	c.Stall = uint8(w.Field(bitStall, 4))
	c.Yield = !w.Bit(bitYield)
	if b := w.Field(bitWrBar, 3); b < 6 {
		c.WrBar = int8(b)
	}
	if b := w.Field(bitRdBar, 3); b < 6 {
		c.RdBar = int8(b)
	}
	c.Wait = uint8(w.Field(bitWait, 6))
	return c
}
