package regalloc

import (
	"slices"
	"sort"

	"orilab/pipeline/ori"
)

// Rewriting a class's allocation into the code: every virtual register of
// the class becomes its physical register, and every spilled value gets
// its refills, stores and rematerializations around the instructions that
// touch it, exactly as the temporaries were modelled (cost.go):
//
//	#40 LDL R6 = [R1+0x10] ; line 12 refill        (or a remat clone)
//	#17 IADD3 R6 = R6, 0x1, RZ ; line 12
//	#41 STL [R1+0x10], R6 ; line 12 spill
//
// Inserted instructions take fresh IDs and the line of the instruction
// they serve (a remat clone keeps its original's line); survivors keep
// their IDs.

var sizeMods = map[int][]string{1: nil, 2: {"64"}, 4: {"128"}}

// rewrite applies res to the function. It adds to keep the copies that
// must survive even if they become "MOV Rx = Rx": those between two
// virtual registers one of which was spilled (see newAttempt).
func (p *problem) rewrite(res *classResult, homes map[int]home, keep map[*ori.Inst]bool) {
	at, spilled := res.at, res.spilled
	// The spilled values' accesses, by instruction and then by value
	// (perInst[k].g ascending).
	var perInst []spillAccess
	for _, vi := range spilledValues(spilled) {
		for _, a := range p.vregs[vi].acc {
			perInst = append(perInst, spillAccess{g: a.g, vi: vi})
		}
	}
	slices.SortStableFunc(perInst, func(x, y spillAccess) int { return x.g - y.g })
	for _, pr := range p.prefs {
		if pr.dst.v >= 0 && pr.src.v >= 0 && (spilled[pr.dst.v] || spilled[pr.src.v]) {
			keep[p.insts[pr.g]] = true
		}
	}
	rename := func(in *ori.Inst, g int) {
		mapRegs(in, func(r ori.Reg, _ bool) ori.Reg {
			if r.Class != p.class || !r.Virtual {
				return r
			}
			vi := p.index.at(r.N)
			if spilled[vi] {
				ti, _ := at.tempItem(vi, g)
				it := &at.items[ti]
				return ori.PReg(p.class, it.slot+int(r.Off)-it.start, int(r.Words))
			}
			return ori.PReg(p.class, at.items[at.itemOf[vi]].slot+int(r.Off), int(r.Words))
		})
	}
	k := 0 // the next entry of perInst
	for bi, b := range p.f.Blocks {
		if k == len(perInst) || perInst[k].g >= p.first[bi+1] {
			// Nothing to insert or drop: the block keeps its list
			// (the instructions of p.insts, in order) and is renamed
			// in place.
			for g := p.first[bi]; g < p.first[bi+1]; g++ {
				if len(p.touchesAt(g)) > 0 {
					rename(p.insts[g], g)
				}
			}
			continue
		}
		out := make([]*ori.Inst, 0, len(b.Insts))
		for g := p.first[bi]; g < p.first[bi+1]; g++ {
			in := p.insts[g]
			var pre, post []*ori.Inst
			drop := false
			for ; k < len(perInst) && perInst[k].g == g; k++ {
				vi := perInst[k].vi
				v := p.vregs[vi]
				t := tempAt(v, v.accessAt(g))
				if t.none {
					drop = true // the definition of a rematerialized value
					continue
				}
				ti, _ := at.tempItem(vi, g)
				it := &at.items[ti]
				reg := ori.PReg(p.class, it.slot, it.width)
				if v.remat {
					pre = append(pre, p.rematClone(v, reg))
					continue
				}
				h := homes[vi]
				if t.reload {
					pre = append(pre, p.refill(h, reg, it.start, in))
				}
				if t.store {
					post = append(post, p.store(h, reg, it.start, in))
				}
			}
			if n := len(out); in.Op == ori.OpRET && len(pre) > 0 && n > 0 && isSPAdjust(out[n-1]) && out[n-1].Srcs[1].Imm > 0 {
				// A .func's frame release must stay right before its RET
				// (setFrame and the verifier find it there; a refill
				// after it would address the released frame), so the
				// RET's own refills, the guard's for a guarded return,
				// go before the release. That is safe: the release reads
				// only R1 and its guard, which is a refill of the same
				// value, and everything else live at the release is live
				// at the RET, where the refills' registers were chosen.
				rel := out[n-1]
				out = append(append(out[:n-1], pre...), rel)
			} else {
				out = append(out, pre...)
			}
			switch {
			case drop:
			case len(p.touchesAt(g)) == 0:
				// No register of the class to rename (most instructions,
				// for every class but R).
				out = append(out, in)
			default:
				rename(in, g)
				out = append(out, in)
			}
			out = append(out, post...)
		}
		b.Insts = out
	}
}

// spillAccess is an access of spilled value vi at instruction g.
type spillAccess struct{ g, vi int }

// accessAt returns v's access at instruction g.
func (v *vreg) accessAt(g int) access {
	i := sort.Search(len(v.acc), func(i int) bool { return v.acc[i].g >= g })
	return v.acc[i]
}

// stackPointer is R1, the base of every spill slot address.
var stackPointer = ori.PReg(ori.ClassR, 1, 1)

// newInst makes an allocator instruction serving in.
func (p *problem) newInst(op ori.Opcode, role ori.Role, line int32, mods ...string) *ori.Inst {
	n := ori.NewInst(op, mods...)
	n.ID = p.f.NewID()
	n.Role = role
	n.Line = line
	return n
}

// refill loads words start.. of a spilled value into reg.
func (p *problem) refill(h home, reg ori.Reg, start int, in *ori.Inst) *ori.Inst {
	switch p.class {
	case ori.ClassP:
		n := p.newInst(ori.OpISETP, ori.RoleRefill, in.Line, "NE", "U32", "AND")
		n.Dsts = []ori.Operand{ori.R(reg), ori.R(ori.PT)}
		n.Srcs = []ori.Operand{ori.R(h.holder), ori.R(ori.RZ), ori.R(ori.PT)}
		return n
	case ori.ClassUP:
		n := p.newInst(ori.OpUISETP, ori.RoleRefill, in.Line, "NE", "U32", "AND")
		n.Dsts = []ori.Operand{ori.R(reg), ori.R(ori.UPT)}
		n.Srcs = []ori.Operand{ori.R(h.holder), ori.R(ori.URZ), ori.R(ori.UPT)}
		return n
	}
	n := p.newInst(ori.OpLDL, ori.RoleRefill, in.Line, sizeMods[int(reg.Words)]...)
	n.Dsts = []ori.Operand{ori.R(reg)}
	n.Srcs = []ori.Operand{ori.Mem(stackPointer, h.off+4*int64(start))}
	return n
}

// store saves reg into words start.. of a spilled value's home.
func (p *problem) store(h home, reg ori.Reg, start int, in *ori.Inst) *ori.Inst {
	switch p.class {
	case ori.ClassP:
		n := p.newInst(ori.OpSEL, ori.RoleSpill, in.Line)
		n.Dsts = []ori.Operand{ori.R(h.holder)}
		n.Srcs = []ori.Operand{ori.Imm(1), ori.R(ori.RZ), ori.R(reg)}
		return n
	case ori.ClassUP:
		n := p.newInst(ori.OpUSEL, ori.RoleSpill, in.Line)
		n.Dsts = []ori.Operand{ori.R(h.holder)}
		n.Srcs = []ori.Operand{ori.Imm(1), ori.R(ori.URZ), ori.R(reg)}
		return n
	}
	n := p.newInst(ori.OpSTL, ori.RoleSpill, in.Line, sizeMods[int(reg.Words)]...)
	n.Srcs = []ori.Operand{ori.Mem(stackPointer, h.off+4*int64(start)), ori.R(reg)}
	return n
}

// rematClone recomputes v into reg with a copy of its definition.
func (p *problem) rematClone(v *vreg, reg ori.Reg) *ori.Inst {
	d := v.def
	n := d.Clone()
	n.ID = p.f.NewID()
	n.Role = ori.RoleRemat
	n.Origin = d.ID
	if d.Role == ori.RoleRemat {
		n.Origin = d.Origin
	}
	n.Ctrl = ori.NoCtrl
	for i, o := range n.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == p.class && o.Reg.N == v.num {
			n.Dsts[i].Reg = reg
		}
	}
	return n
}
