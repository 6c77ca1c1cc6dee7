package opt

import "orilab/pipeline/ori"

// eachRegReadOperand calls fn with every operand of in that reads a
// register through its name: register sources, and the base register of a
// memory or constant-bank operand, which is a read even where the operand
// is a destination (a store's address). The guard is not an operand; the
// passes that rename it do so themselves.
func eachRegReadOperand(in *ori.Inst, fn func(*ori.Operand)) {
	for i := range in.Srcs {
		o := &in.Srcs[i]
		if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fn(o)
		}
	}
	for i := range in.Dsts {
		o := &in.Dsts[i]
		if (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fn(o)
		}
	}
}

// defsAndCandidates counts the register-result definitions of every
// virtual register of f and lists, in order, the instructions cand
// accepts: the narrowing passes rewrite a candidate's result only where it
// has a single definition.
func defsAndCandidates(f *ori.Func, cand func(*ori.Inst) bool) (map[cmReg]int, []*ori.Inst) {
	defs := map[cmReg]int{}
	var cands []*ori.Inst
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual {
					defs[cmRegOf(o.Reg)]++
				}
			}
			if cand(in) {
				cands = append(cands, in)
			}
		}
	}
	return defs, cands
}
