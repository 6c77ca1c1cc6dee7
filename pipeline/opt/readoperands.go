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
