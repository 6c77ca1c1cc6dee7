package pipeline

import "orilab/pipeline/ori"

// ldgstsPads puts three never-executed shared loads, @!PT LDS RZ, [RZ],
// right before every LDGSTS on sm_90 and later, part of
// PostFixForMercTargets (129) so that the control-word passes see them.
//
// ptxas 13.0.88 -arch sm_90 writes exactly that before each LDGSTS, at
// -O0 and -O3, and on sm_80-sm_89 never (testdata/lower/mem_cp_async.ptx,
// testdata/kernels/cp_async_srcsize.ptx, ZLUDA's cp_async.ptx; each LDS
// with an empty control word but a stall of 1). Their guard is false, so
// they do nothing an instruction could observe; what they give the
// hardware is not documented.
//
// Decision: orilab copies them. orilab's cubins are meant to run on an
// H100, and a spacing that ptxas keeps before every LDGSTS on that
// target without exception looks like a hardware requirement, not an
// optimization choice; three instructions per copy is the price.
func ldgstsPads(f *ori.Func, arch int, m *mirror) {
	if arch < 90 {
		return
	}
	pad := func(id int32) *ori.Inst {
		x := ori.NewInst(ori.OpLDS)
		x.ID = id
		x.Guard, x.GuardNot = ori.PT, true
		x.Dsts = []ori.Operand{ori.R(ori.RZ)}
		x.Srcs = []ori.Operand{ori.AbsMem(0)}
		return x
	}
	for _, b := range f.Blocks {
		n := 0
		for _, in := range b.Insts {
			if in.Op == ori.OpLDGSTS {
				n++
			}
		}
		if n == 0 {
			continue
		}
		out := make([]*ori.Inst, 0, len(b.Insts)+3*n)
		for _, in := range b.Insts {
			if in.Op == ori.OpLDGSTS {
				var pads, mpads []*ori.Inst
				for range 3 {
					p := pad(f.NewID())
					p.Line = in.Line
					pads = append(pads, p)
					mp := *p
					mp.Dsts = append([]ori.Operand(nil), p.Dsts...)
					mp.Srcs = append([]ori.Operand(nil), p.Srcs...)
					mpads = append(mpads, &mp)
				}
				out = append(out, pads...)
				if pre := m.byID[in.ID]; pre != nil {
					m.insertBefore(pre.ID, mpads...)
				}
			}
			out = append(out, in)
		}
		b.Insts = out
	}
}
