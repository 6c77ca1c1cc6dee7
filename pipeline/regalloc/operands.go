package regalloc

import "orilab/pipeline/ori"

// Operand walks shared by the analyses and the rewriter. They follow the
// same convention as ori's liveness: the guard, register sources and the
// base registers of addresses and constant-bank operands are reads;
// register results are writes (the base of an address among the results,
// as in a store, is a read).

// eachReg calls fn for every register operand of in.
func eachReg(in *ori.Inst, fn func(r ori.Reg, def bool)) {
	fn(in.Guard, false)
	for _, o := range in.Srcs {
		if r, ok := baseOrReg(o); ok {
			fn(r, false)
		}
	}
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg {
			fn(o.Reg, true)
		} else if r, ok := baseOrReg(o); ok {
			fn(r, false)
		}
	}
}

// mapRegs replaces every register operand of in by fn's result.
func mapRegs(in *ori.Inst, fn func(r ori.Reg, def bool) ori.Reg) {
	in.Guard = fn(in.Guard, false)
	for i := range in.Srcs {
		o := &in.Srcs[i]
		if _, ok := baseOrReg(*o); ok {
			o.Reg = fn(o.Reg, false)
		}
	}
	for i := range in.Dsts {
		o := &in.Dsts[i]
		if o.Kind == ori.OpdReg {
			o.Reg = fn(o.Reg, true)
		} else if _, ok := baseOrReg(*o); ok {
			o.Reg = fn(o.Reg, false)
		}
	}
}

// baseOrReg returns the register an operand reads: the register itself or
// the base of an address.
func baseOrReg(o ori.Operand) (ori.Reg, bool) {
	switch o.Kind {
	case ori.OpdReg:
		return o.Reg, true
	case ori.OpdMem, ori.OpdCBank:
		if o.HasBase {
			return o.Reg, true
		}
	}
	return ori.Reg{}, false
}

// wordMask returns the mask of words off..off+words-1.
func wordMask(off, words int) uint8 { return uint8((1<<words)-1) << off }
