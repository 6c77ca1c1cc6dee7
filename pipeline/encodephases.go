package pipeline

// The encoding phases at the end of the table: the encode/decode round
// trip (MercEncodeAndDecode, 142), the words (MercGenerateSassUCode, 147)
// and the cubin (FormatCodeList, 153). The operand fix-ups they depend on
// run earlier, at PostFixForMercTargets (129, mercfixup.go).
//
// Decision: an instruction the encoder refuses (an opcode or operand form
// orilab has no word for yet) does not fail the compilation: the phase
// records the refusal, which names the instruction, in Backend.EncodeErr,
// the later encoding phases do nothing, and the SASS text is printed as
// before. Whoever asks for the binary (orilab compile -o k.cubin) gets
// the refusal as the error. A word that does not decode back to the same
// word is a compiler bug and fails the phase.

import (
	"fmt"

	"orilab/internal/par"
	"orilab/pipeline/ori"
	"orilab/pipeline/sass"
)

// needsEncoding makes an encoding phase a no-op, with a reason, where
// there is nothing it can encode.
func needsEncoding(c *PhaseContext) string {
	if why := needsAllocation(c); why != "" {
		return why
	}
	if err := checkEncodable(c.Arch); err != nil && !c.planning {
		return fmt.Sprintf("orilab has no encoding tables for sm_%d (it encodes sm_75, sm_80, sm_86, sm_89 and sm_90)", c.Arch)
	}
	return ""
}

// needsCubin makes FormatCodeList a no-op where nothing is encoded or
// the caller reads no cubin (PhaseOptions.NoCubin).
func needsCubin(c *PhaseContext) string {
	if why := needsEncoding(c); why != "" {
		return why
	}
	if c.noCubin {
		return "no cubin was asked for (the output is SASS text, IR or lowered code)"
	}
	return ""
}

// needsWords makes the phases that encode (MercEncodeAndDecode,
// MercGenerateSassUCode) no-ops where nothing is encoded, or in a release
// compilation that writes no cubin: the words then feed nothing but the
// round trip, which a release compilation does not run (see
// ReleaseVerifiers). The SASS text and the -v lines are made from the IR.
func needsWords(c *PhaseContext) string {
	if why := needsEncoding(c); why != "" {
		return why
	}
	if c.noCubin && c.Release {
		return "no cubin was asked for, and a release compilation does not check the encoding (the output is SASS text, IR or lowered code)"
	}
	return ""
}

// encodeModule encodes the kernels of m and the functions they call, in
// module order; a function no kernel reaches gets no code (nil), as
// ptxas leaves it out of the cubin.
func encodeModule(m *ori.Module, arch int) ([]*sass.Code, error) {
	codes, err, _ := encodeModuleJobs(m, arch, 1, false)
	return codes, err
}

// encodeModuleJobs is encodeModule on up to jobs functions at once, each
// function's words decoded back and re-encoded (RoundTrip) when
// roundTrip is set. encErr is the first refusal of the encoder in module
// order (encodeModule's error), and rtErr, when everything encoded, the
// first function's failed round trip: what encoding every function and
// then checking each, one after another, would report.
func encodeModuleJobs(m *ori.Module, arch, jobs int, roundTrip bool) (codes []*sass.Code, encErr, rtErr error) {
	live := reachable(m)
	codes = make([]*sass.Code, len(m.Funcs))
	encErrs := make([]error, len(m.Funcs))
	rtErrs := make([]error, len(m.Funcs))
	one := func(i int) {
		f := m.Funcs[i]
		if !live[f.Name] {
			return
		}
		codes[i], encErrs[i] = sass.EncodeFunc(f, arch)
		if roundTrip && encErrs[i] == nil {
			rtErrs[i] = RoundTrip(f, codes[i], arch)
		}
	}
	// The loop stops at the encoder's first refusal, as encodeModule
	// always did; a failed round trip is collected, not a stop.
	par.Do(len(m.Funcs), jobs, func(i int) error { one(i); return encErrs[i] })
	for _, err := range encErrs {
		if err != nil {
			return nil, err, nil
		}
	}
	for _, err := range rtErrs {
		if err != nil {
			return codes, nil, err
		}
	}
	return codes, nil, nil
}

// reachable names the kernels of m and every function they call,
// directly or not.
func reachable(m *ori.Module) map[string]bool {
	live := map[string]bool{}
	var work []*ori.Func
	for _, f := range m.Funcs {
		if f.Entry {
			live[f.Name] = true
			work = append(work, f)
		}
	}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				for _, o := range in.Srcs {
					if o.Kind == ori.OpdSym && !live[o.Name] {
						if g := m.Func(o.Name); g != nil {
							live[o.Name] = true
							work = append(work, g)
						}
					}
				}
			}
		}
	}
	return live
}

// mercEncodeAndDecode encodes the module and decodes every word back:
// the decoded instruction must encode to the same word. A release
// compilation encodes without the round trip (see ReleaseVerifiers).
func mercEncodeAndDecode(c *PhaseContext) error {
	codes, encErr, rtErr := encodeModuleJobs(c.Module, c.Arch, c.jobs, !c.Release)
	if encErr != nil {
		c.Backend.EncodeErr = encErr
		return nil
	}
	if rtErr != nil {
		return rtErr
	}
	c.Backend.checked, c.Backend.checkedOf = codes, c.Module
	return nil
}

// RoundTrip decodes each word of f's encoding code and re-encodes the
// result at the same address; it returns an error naming the first
// instruction whose word does not come back.
func RoundTrip(f *ori.Func, code *sass.Code, arch int) error {
	addr := map[int32]int{}
	blocks := map[int]int32{}
	var insts []*ori.Inst
	pc := 0
	for _, b := range f.Blocks {
		addr[b.ID] = pc
		if _, ok := blocks[pc]; !ok {
			blocks[pc] = b.ID
		}
		pc += 16 * len(b.Insts)
		insts = append(insts, b.Insts...)
	}
	syms := map[int]string{}
	for _, r := range code.Relocs {
		if r.Kind == sass.RelocCall {
			syms[r.Offset] = r.Sym
		}
	}
	var dec sass.Decoder // each decoded word is dropped once re-encoded
	for i, w := range code.Words {
		pc := 16 * i
		d, err := dec.Decode(w, arch, sass.DecodeContext{PC: pc, Blocks: blocks, Syms: syms})
		if err != nil {
			return fmt.Errorf("%s #%d %s: its word %v does not decode: %v", f.Name, insts[i].ID, insts[i].Name(), w, err)
		}
		w2, err := sass.Encode(d, arch, pc, addr)
		if err != nil {
			return fmt.Errorf("%s #%d %s: its word %v decodes as %s, which does not encode: %v", f.Name, insts[i].ID, insts[i].Name(), w, d.Name(), err)
		}
		if w2 != w {
			return fmt.Errorf("%s #%d %s: its word %v decodes as %s, which encodes as %v", f.Name, insts[i].ID, insts[i].Name(), w, d.Name(), w2)
		}
	}
	return nil
}

// mercGenerateSassUCode encodes the final instructions.
//
// The phases between MercEncodeAndDecode and this one change nothing
// (143-146 are no-ops), so when the module is still the one
// MercEncodeAndDecode encoded, its words are taken as they are: encoding
// every instruction again cost as much as the round trip's encoding. A
// module that is not that one (the manager runs each phase on a copy when
// it keeps snapshots; a planted fault or Session.Replace puts in another)
// is encoded afresh. The phases change a module only by running on it, so
// the same pointer means the same instructions.
func mercGenerateSassUCode(c *PhaseContext) error {
	if c.Backend.EncodeErr != nil {
		return nil
	}
	codes, checkedOf := c.Backend.checked, c.Backend.checkedOf
	c.Backend.checked, c.Backend.checkedOf = nil, nil
	if checkedOf != c.Module {
		var err error
		if codes, err, _ = encodeModuleJobs(c.Module, c.Arch, c.jobs, false); err != nil {
			c.Backend.EncodeErr = err
			return nil
		}
	}
	c.Backend.Code = codes
	return nil
}

// formatCodeList writes the cubin around the words.
func formatCodeList(c *PhaseContext) error {
	if c.Backend.EncodeErr != nil || c.Backend.Code == nil {
		return nil
	}
	funcs := CubinFuncs(c.Module, c.Arch, c.Backend)
	for i := range funcs {
		funcs[i].MaxRegs = c.MaxRegCount
	}
	cub, err := sass.WriteCubin(c.Arch, funcs, CubinGlobals(c.Module))
	if err != nil {
		c.Backend.EncodeErr = err
		return nil
	}
	c.Backend.Cubin = cub
	return nil
}

// CubinFuncs describes m's encoded functions for the cubin writer: the words of
// b.Code, the register count -v prints (the allocator's, and for a kernel
// at least what its callees name, sass.RegsUsed),
// the kernel parameters relative to the parameter area, the frame and
// shared sizes.
func CubinFuncs(m *ori.Module, arch int, b *Backend) []sass.CubinFunc {
	base := int64(0x160)
	if arch >= 90 {
		base = 0x210
	}
	var out []sass.CubinFunc
	regs := sass.RegsUsed(m)
	for i, f := range m.Funcs {
		if b.Code[i] == nil {
			continue // no kernel calls it
		}
		u := sass.UsageOf(f, arch)
		u.Regs = regs[f.Name] // a kernel's count covers its callees
		if st := b.RAStats[f.Name]; st != nil {
			// The fix-ups after allocation (mercfixup.go) may name a
			// register above the allocator's count.
			u.Regs = max(u.Regs, st.Regs)
		}
		cf := sass.CubinFunc{Name: f.Name, Entry: f.Entry, Code: b.Code[i], Regs: u.Regs, Frame: int(f.LocalBytes), Shared: int(f.SharedBytes),
			ReqNtid: f.ReqNtid, MaxNtid: f.MaxNtid, Barriers: barriers(f), Literals: f.Literals}
		if f.Entry {
			for _, p := range f.Params {
				cf.Params = append(cf.Params, sass.CubinParam{Offset: int(p.Offset - base), Size: int(p.Size)})
			}
			for _, t := range f.TexRefs {
				cf.TexRefs = append(cf.TexRefs, sass.CubinTexRef{Name: t.Name, Offset: int(t.Offset)})
			}
		}
		for _, bl := range f.Blocks {
			for _, in := range bl.Insts {
				switch in.Op {
				case ori.OpTEX, ori.OpTLD, ori.OpTLD4, ori.OpSULD, ori.OpSUST:
					cf.Textures = true
				case ori.OpTXQ:
					cf.Textures = true
					cf.BindlessQuery = cf.BindlessQuery || objectQuery(f, in)
				case ori.OpBSSY, ori.OpCALL:
					cf.Reconverges = true
				}
			}
		}
		out = append(out, cf)
	}
	return out
}

// objectQuery reports whether in, a TXQ, queries a texture or surface
// object (txq or suq on a handle) rather than a .texref or .surfref:
// the handle is in a register (TXQ.B), or it is a kernel parameter whose
// bank-0 word the query reads (its slot below the parameters' end),
// which ptxas treats alike (surf_forms: suq.height on a parameter's
// handle; see sass.CubinFunc.BindlessQuery).
func objectQuery(f *ori.Func, in *ori.Inst) bool {
	if in.HasMod("B") {
		return true
	}
	if !f.Entry || len(in.Srcs) < 3 || in.Srcs[2].Kind != ori.OpdImm {
		return false
	}
	end := int64(0)
	for _, p := range f.Params {
		end = max(end, p.Offset+p.Size)
	}
	return 4*in.Srcs[2].Imm < end
}

// barriers is the number of named barriers f uses: the highest constant
// barrier number of its BAR instructions plus one, or 16 when one takes
// its number from a register (ptxas counts all then).
func barriers(f *ori.Func) int {
	n := 0
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op != ori.OpBAR || len(in.Srcs) == 0 {
				continue
			}
			switch o := in.Srcs[0]; o.Kind {
			case ori.OpdImm:
				n = max(n, int(o.Imm)+1)
			case ori.OpdReg:
				n = 16
			}
		}
	}
	return n
}

// CubinGlobals describes m's .global and .const variables for the cubin
// writer (module-scope .shared variables live in each kernel's window).
func CubinGlobals(m *ori.Module) []sass.CubinGlobal {
	var out []sass.CubinGlobal
	for _, t := range m.TexVars {
		r := sass.RefTexture
		if t.Surface {
			r = sass.RefSurface
		}
		out = append(out, sass.CubinGlobal{Name: t.Name, Ref: r})
	}
	for _, g := range m.Globals {
		switch g.Space {
		case ori.SpaceGlobal:
			out = append(out, sass.CubinGlobal{Name: g.Name, Size: int(g.Size), Align: int(g.Align), Init: g.Init, AddrSlot: int(g.AddrSlot)})
		case ori.SpaceConst:
			out = append(out, sass.CubinGlobal{Name: g.Name, Const: true, Size: int(g.Size), Align: int(g.Align), Init: g.Init, Offset: int(g.Offset)})
		}
	}
	return out
}
