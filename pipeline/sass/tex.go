package sass

import "orilab/pipeline/ori"

// Texture instructions keep one word of their SASS operand list as their
// last Ori modifier: the dimension of TEX, TLD and TLD4 (2D, ARRAY_1D),
// which nvdisasm prints as the last operand, and the query of TXQ
// (TEX_HEADER_DIMENSION), which it prints after the first source:
//
//	Ori:  TEX.SCR.LL.2D R6, R4 = R4, R6, 0x0, 0x5c
//	SASS: TEX.SCR.LL R6, R4, R4, R6, 0x0, 0x5c, 2D ;
//	Ori:  TXQ.TEX_HEADER_DIMENSION RZ, R6 = R6, 0x0, 0x5f, 0x4
//	SASS: TXQ RZ, R6, R6, TEX_HEADER_DIMENSION, 0x0, 0x5f, 0x4 ;
//
// A narrowed write mask (opt/texmask.go) follows the dimension as one
// more modifier, printed after it:
//
//	Ori:  TEX.SCR.LL.2D.0x1 RZ, R10 = R12, R0, 0x0, 0x61
//	SASS: TEX.SCR.LL RZ, R10, R12, R0, 0x0, 0x61, 2D, 0x1 ;

// texWord splits a texture instruction's operand word from its
// mnemonic: the mnemonic without it, the word, and the index in the
// printed operand list (dsts then srcs) it goes before. ok is false for
// other instructions.
func texWord(in *ori.Inst, nOps int) (name, word string, at int, ok bool) {
	switch in.Op {
	case ori.OpTEX, ori.OpTLD, ori.OpTLD4, ori.OpTXQ:
	default:
		return "", "", 0, false
	}
	if len(in.Mods) == 0 {
		return "", "", 0, false
	}
	word = in.Mods[len(in.Mods)-1]
	nm := 1
	if in.Op != ori.OpTXQ && len(in.Mods) >= 2 && isTexMask(word) {
		word = in.Mods[len(in.Mods)-2] + ", " + word
		nm = 2
	}
	c := *in
	c.Mods = in.Mods[:len(in.Mods)-nm]
	at = nOps
	if in.Op == ori.OpTXQ {
		at = len(in.Dsts) + 1
		if at > nOps {
			at = nOps
		}
	}
	return c.Name(), word, at, true
}

// surfAddress reports the index in the printed operand list of a surface
// instruction's coordinate tuple, which nvdisasm prints in brackets
// without a width ("SULD.D.BA.2D.STRONG.SM.TRAP R4, [R16], R11"), or -1.
func surfAddress(in *ori.Inst) int {
	switch in.Op {
	case ori.OpSULD:
		return len(in.Dsts)
	case ori.OpSUST:
		return 0
	}
	return -1
}

// isTexMask reports whether modifier m is a narrowed texture write mask
// ("0x1" .. "0xe", gTexMask).
func isTexMask(m string) bool {
	for _, n := range gTexMask.names {
		if n.v != 0xf && n.name == m {
			return true
		}
	}
	return false
}
