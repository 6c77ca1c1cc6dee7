package pipeline

import "orilab/pipeline/ori"

// ldgstsPads puts three never-executed shared loads, @!PT LDS RZ, [RZ],
// before an LDGSTS where ptxas 13.0.88 puts them, part of
// PostFixForMercTargets (129) so that the control-word passes see them.
//
// Where, measured on ptxas's -O3 code for probes at sm_80 and sm_90: before
// the first LDGSTS after an instruction that may touch shared memory (LDS,
// STS, ATOMS, LDSM, STSM, the generic LD, ST and ATOM) or a BAR, and on
// sm_90 also before the first LDGSTS of each block; never before the
// second of a run (ptxas writes LDGSTS; LDGSTS; LDGSTS without them) nor
// after a MEMBAR or a global access alone. On sm_80 a block starts with
// what its predecessors left (ptxas pads neither of
// testdata/lower/mem_cp_async's two LDGSTS at sm_80, the second in its own
// block, and both at sm_90). testdata/kernels/cp_async_pipeline has them
// after each bar.sync at sm_80-sm_89, and at the start on sm_90 too. Their
// guard is false, so they do nothing an instruction could observe; what
// they give the hardware (ordering the asynchronous shared write after
// earlier shared accesses, it seems) is not documented.
//
// Decision: orilab copies them. orilab's cubins are meant to run on a
// GPU, and a spacing ptxas keeps without exception looks like a hardware
// requirement rather than an optimization choice.
//
// It returns the pads it put before each LDGSTS, by the LDGSTS's ID, for
// the caller to mirror into the code from before allocation.
func ldgstsPads(f *ori.Func, arch int) map[int32][]*ori.Inst {
	if arch < 80 {
		return nil
	}
	pad := func(id, line int32) *ori.Inst {
		x := ori.NewInst(ori.OpLDS)
		x.ID, x.Line = id, line
		x.Guard, x.GuardNot = ori.PT, true
		x.Dsts = []ori.Operand{ori.R(ori.RZ)}
		x.Srcs = []ori.Operand{ori.AbsMem(0)}
		return x
	}
	// needIn: a block may start after a shared access or BAR with no
	// LDGSTS since (a forward dataflow over the CFG, union at joins).
	if f.ComputeCFG() != nil {
		return nil
	}
	needOut := make(map[*ori.Block]bool, len(f.Blocks))
	scan := func(b *ori.Block, need bool) bool {
		for _, in := range b.Insts {
			switch {
			case in.Op == ori.OpLDGSTS:
				need = false
			case sharedOrBar(in):
				need = true
			}
		}
		return need
	}
	needIn := func(b *ori.Block) bool {
		need := arch >= 90
		for _, p := range b.Preds {
			need = need || needOut[p]
		}
		return need
	}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			if o := scan(b, needIn(b)); o && !needOut[b] {
				needOut[b], changed = true, true
			}
		}
	}
	var added map[int32][]*ori.Inst
	for _, b := range f.Blocks {
		need := needIn(b)
		var out []*ori.Inst
		for k, in := range b.Insts {
			if in.Op != ori.OpLDGSTS || !need {
				need = need || sharedOrBar(in)
				if out != nil {
					out = append(out, in)
				}
				continue
			}
			need = false
			if out == nil {
				out = append(make([]*ori.Inst, 0, len(b.Insts)+6), b.Insts[:k]...)
			}
			for range 3 {
				p := pad(f.NewID(), in.Line)
				out = append(out, p)
				if added == nil {
					added = map[int32][]*ori.Inst{}
				}
				added[in.ID] = append(added[in.ID], p)
			}
			out = append(out, in)
		}
		if out != nil {
			b.Insts = out
		}
	}
	return added
}

// sharedOrBar reports whether in may access shared memory or is a CTA
// barrier: what makes ptxas pad the next LDGSTS.
func sharedOrBar(in *ori.Inst) bool {
	switch in.Op {
	case ori.OpLDS, ori.OpSTS, ori.OpATOMS, ori.OpLDSM, ori.OpSTSM, ori.OpLD, ori.OpST, ori.OpATOM, ori.OpBAR:
		return !(in.Guard == ori.PT && in.GuardNot) // not a pad (never executed)
	}
	return false
}
