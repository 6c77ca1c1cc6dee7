package opt

import "orilab/pipeline/ori"

// OriRemoveNopCode deletes instructions that do nothing: NOP, and moves of
// a register onto itself (MOV R5 = R5, which coalescing leaves behind, or
// the virtual %r3 = %r3 a copy propagation can produce). A guarded self-move
// is a no-op too: on the threads where it executes it writes the value the
// register already holds.
//
// Decision: it runs at every -O level. ptxas lists it without an O-level
// gate, and a NOP removed at -O0 changes no result and no timing the
// control-word phases have not yet computed (they run later).
// RemoveNopCode deletes NOPs and self-moves (phase OriRemoveNopCode).
var RemoveNopCode = Pass{Run: removeNopCode}

func removeNopCode(f *ori.Func, c *Context) (bool, error) {
	changed := false
	for _, b := range f.Blocks {
		kept := b.Insts[:0]
		for _, in := range b.Insts {
			if isNopCode(in) && c.Sites.Allow(f, in.ID, "delete a NOP or self-move") {
				changed = true
				continue
			}
			kept = append(kept, in)
		}
		for i := len(kept); i < len(b.Insts); i++ {
			b.Insts[i] = nil
		}
		b.Insts = kept
	}
	return changed, nil
}

func isNopCode(in *ori.Inst) bool {
	if in.Op == ori.OpNOP {
		return true
	}
	if in.Op != ori.OpMOV || len(in.Mods) != 0 || len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		return false
	}
	d, s := in.Dsts[0], in.Srcs[0]
	if d.Kind != ori.OpdReg || s.Kind != ori.OpdReg || s.Neg || s.Abs || s.Not {
		return false
	}
	return d.Reg == s.Reg && !d.Reg.IsZero()
}
