package sim

import (
	"math/bits"

	"orilab/pipeline/ori"
)

// Provenance records, while a kernel runs, which PTX statement produced
// every value: a shadow of each register word and of each memory word
// holds the PTX source line of the instruction whose result it is. It is
// how a difference in an output buffer is traced back to one statement
// (the hardware-truth conformance test prints it).
//
// A value's line is the line of the instruction that computed it. Copies
// (MOV, MOV.PHI, and instructions without a source line, which the
// compiler inserted) pass their source's line on, and loads pass on the
// line that the stored word carried, so a value keeps the line of its
// computation through registers, spills and memory. A value read from a
// buffer the kernel did not write (an input) gets the load's own line.
//
// Taint marks values that depend on a chosen set of lines (Options'
// Provenance.Taint): a result is tainted when its instruction's line is in
// the set or any register or memory word it reads is tainted. The
// conformance test taints the .approx statements so that a difference
// downstream of one is counted with them.
//
// Predicates carry provenance too: a value selected by a predicate from
// operands without one (selp 1, 0, p) takes the predicate's line, so a
// difference in a comparison is traced to the setp. Recording costs a map update per register word
// written, so runs use it only to explain a difference.
type Provenance struct {
	// Taint lists the PTX lines whose results are tainted.
	Taint map[int32]bool

	regs  map[*frame][]prov
	phys  map[*warp][]prov
	preds map[predKey]prov
	mem   map[*byte]prov // first byte of a 4-byte (or smaller) memory word
}

// prov is one shadow entry: a PTX line (0: none recorded) and the taint.
type prov struct {
	line  int32
	taint bool
}

// Origin returns the PTX line that produced the memory word at b (the
// first byte of an element of a global allocation) and whether it is
// tainted; line 0 means no store of the kernel wrote it.
func (p *Provenance) Origin(b *byte) (line int32, taint bool) {
	v := p.mem[b]
	return v.line, v.taint
}

// GlobalOrigin is Origin for a global address in g.
func (p *Provenance) GlobalOrigin(g *Global, addr uint64) (line int32, taint bool) {
	a, off, ok := g.find(addr, 1)
	if !ok {
		return 0, false
	}
	return p.Origin(&a.Data[off])
}

func (p *Provenance) init() {
	if p.regs == nil {
		p.regs = map[*frame][]prov{}
		p.phys = map[*warp][]prov{}
		p.preds = map[predKey]prov{}
		p.mem = map[*byte]prov{}
	}
}

// reg returns the shadow slice of a register operand's words.
func (p *Provenance) slots(w *warp, f *frame, o *opnd) []prov {
	if o.phys {
		sh := p.phys[w]
		if sh == nil {
			sh = make([]prov, physSlots*warpSize)
			p.phys[w] = sh
		}
		return sh
	}
	sh := p.regs[f]
	if sh == nil {
		sh = make([]prov, len(f.regs))
		p.regs[f] = sh
	}
	return sh
}

func (p *Provenance) getReg(w *warp, f *frame, o *opnd, lane, word int) prov {
	if o.kind != okReg || o.zero {
		return prov{}
	}
	sh := p.slots(w, f, o)
	i := (int(o.slot)+word)*warpSize + lane
	if i >= len(sh) {
		return prov{}
	}
	return sh[i]
}

func (p *Provenance) setReg(w *warp, f *frame, o *opnd, lane, word int, v prov) {
	if o.kind != okReg || o.zero {
		return
	}
	sh := p.slots(w, f, o)
	if i := (int(o.slot)+word)*warpSize + lane; i < len(sh) {
		sh[i] = v
	}
}

// predKey names one lane of a predicate register: virtual predicates
// belong to a frame, physical ones to the warp.
type predKey struct {
	f    *frame
	w    *warp
	slot int32
	lane int8
}

func (p *Provenance) predAt(w *warp, f *frame, o *opnd, lane int) predKey {
	if o.phys {
		return predKey{w: w, slot: o.slot, lane: int8(lane)}
	}
	return predKey{f: f, slot: o.slot, lane: int8(lane)}
}

// memWords returns the shadow keys of the memory words instruction d
// accesses for one lane (nil when the address faults; execution reports
// that).
func (p *Provenance) memWords(s *machine, w *warp, f *frame, d *dinst, lane int) []*byte {
	var o *opnd
	for i := range d.src {
		if d.src[i].kind == okMem {
			o = &d.src[i]
			break
		}
	}
	if o == nil {
		return nil
	}
	n, _ := accessSize(d)
	if d.op == ori.OpATOMG || d.op == ori.OpATOMS || d.op == ori.OpATOM || d.op == ori.OpRED {
		n = 4
		if d.has("64") || d.has("F64") || d.has("U64") || d.has("S64") {
			n = 8
		}
	}
	b, err := s.resolve(w, f, d, o, lane, n, "load")
	if err != nil || len(b) == 0 {
		return nil
	}
	var keys []*byte
	for i := 0; i < len(b); i += 4 {
		keys = append(keys, &b[i])
	}
	return keys
}

// pending is what before saw of an instruction that after needs.
type pending struct {
	mem  [][]*byte       // per lane: the memory words accessed
	from [warpSize]int32 // per lane: the block a MOV.PHI group takes values for
	pc   int32
}

// before runs ahead of d for the lanes in mask: memory instructions
// compute their addresses here, before a load overwrites its base, and a
// MOV.PHI group notes the blocks the threads came from.
func (p *Provenance) before(s *machine, w *warp, f *frame, d *dinst, mask uint32) *pending {
	pd := &pending{from: f.from, pc: f.pc[bits.TrailingZeros32(mask)]}
	switch d.op {
	case ori.OpLDG, ori.OpLDS, ori.OpLDL, ori.OpLD, ori.OpSTG, ori.OpSTS, ori.OpSTL, ori.OpST,
		ori.OpATOMG, ori.OpATOMS, ori.OpATOM, ori.OpRED:
	default:
		return pd
	}
	pd.mem = make([][]*byte, warpSize)
	for m := s.guardMask(w, f, d, mask); m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		pd.mem[lane] = p.memWords(s, w, f, d, lane)
	}
	return pd
}

// after records the provenance of what d wrote for the lanes in eff (the
// lanes whose guard held). A MOV.PHI stands for its whole group.
func (p *Provenance) after(s *machine, w *warp, f *frame, d *dinst, eff uint32, pd *pending) {
	if d.in.IsPhi() && d.phiGroup > 0 && int(pd.pc)+d.phiGroup <= len(f.c.insts) {
		// A parallel copy: read every source before writing any result.
		group := f.c.insts[pd.pc : int(pd.pc)+d.phiGroup]
		vals := make([]prov, len(group))
		for m := eff; m != 0; m &= m - 1 {
			lane := bits.TrailingZeros32(m)
			for j := range group {
				g := &group[j]
				vals[j] = prov{}
				for i, b := range g.phiFrom {
					if b == pd.from[lane] && 2*i < len(g.src) {
						vals[j] = p.getReg(w, f, &g.src[2*i], lane, 0)
					}
				}
			}
			for j := range group {
				p.setReg(w, f, &group[j].dst[0], lane, 0, vals[j])
			}
		}
		return
	}
	mem := pd.mem
	line := d.in.Line
	own := prov{line: line, taint: p.Taint[line]}
	copies := d.op == ori.OpMOV || line == 0
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		// What the instruction read.
		var in, pin prov
		first := true
		for i := range d.src {
			o := &d.src[i]
			if o.kind == okPred && !o.zero {
				v := p.preds[p.predAt(w, f, o, lane)]
				if pin.line == 0 {
					pin.line = v.line
				}
				pin.taint = pin.taint || v.taint
				continue
			}
			if o.kind != okReg || o.zero {
				continue
			}
			for word := 0; word < int(o.words); word++ {
				v := p.getReg(w, f, o, lane, word)
				if first && v.line != 0 {
					in.line, first = v.line, false
				}
				in.taint = in.taint || v.taint
			}
		}
		var loaded prov
		if mem != nil {
			for _, k := range mem[lane] {
				v, ok := p.mem[k]
				if ok && loaded.line == 0 {
					loaded.line = v.line
				}
				loaded.taint = loaded.taint || v.taint
			}
		}
		if in.line == 0 && pin.line != 0 && d.op == ori.OpSEL {
			// Constants chosen by a predicate: the predicate made the value.
			in.line = pin.line
		}
		copies := copies || d.op == ori.OpSEL && in.line == pin.line
		res := own
		res.taint = res.taint || in.taint || pin.taint
		switch d.op {
		case ori.OpSTG, ori.OpSTS, ori.OpSTL, ori.OpST:
			// The stored words carry the data register's provenance.
			var data *opnd
			if len(d.src) > 1 {
				data = &d.src[1]
			}
			for i, k := range mem[lane] {
				v := own
				if data != nil && data.kind == okReg && !data.zero {
					if r := p.getReg(w, f, data, lane, i); r.line != 0 {
						v = r
					}
				}
				p.mem[k] = v
			}
			continue
		case ori.OpLDG, ori.OpLDS, ori.OpLDL, ori.OpLD:
			if loaded.line != 0 {
				res = loaded
			}
		case ori.OpATOMG, ori.OpATOMS, ori.OpATOM, ori.OpRED:
			res.taint = res.taint || loaded.taint
			for _, k := range mem[lane] {
				p.mem[k] = res
			}
		default:
			if copies && in.line != 0 {
				res.line = in.line
			}
		}
		for i := range d.dst {
			o := &d.dst[i]
			if o.kind == okPred && !o.zero {
				p.preds[p.predAt(w, f, o, lane)] = res
				continue
			}
			for word := 0; word < int(o.words); word++ {
				p.setReg(w, f, o, lane, word, res)
			}
		}
	}
}
