package ptxasdiff

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"

	"orilab/pipeline/ptx"
)

// Mutation: each mutant is a valid module with one token of one
// instruction changed, the way a person gets PTX wrong: a modifier
// replaced by another of its kind, misspelled, dropped or added; an
// immediate replaced by an out-of-range or wrongly typed one; a register
// replaced by one of another type. Only the opcodes orilab lowers are
// mutated (the instructions that matter to it), and the mutants are the
// same for the same inputs and perFile (the random source is seeded by
// the file's name).

// modKinds are the modifier families a modifier is replaced within. The
// last entries of each are spellings no PTX has.
var modKinds = [][]string{
	{".b8", ".b16", ".b32", ".b64", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64", ".f16", ".f32", ".f64", ".f16x2", ".bf16", ".pred", ".b128", ".u33", ".s63", ".u16x2", ".f31"},
	{".global", ".shared", ".local", ".const", ".param", ".shared::cta", ".globl", ".glbal", ".parm", ".shard"},
	{".rn", ".rz", ".rm", ".rp", ".rni", ".rzi", ".rmi", ".approx", ".full", ".ftz", ".sat", ".rnd"},
	{".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs", ".equ", ".neu", ".ltu", ".gtu", ".num", ".nan", ".gee", ".neq"},
	{".lo", ".hi", ".wide", ".cc", ".sat", ".banana"},
	{".add", ".min", ".max", ".and", ".or", ".xor", ".inc", ".dec", ".exch", ".cas", ".sub", ".mul"},
	{".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt", ".nc", ".volatile", ".relaxed", ".acquire", ".release", ".gpu", ".sys", ".cta"},
	{".v2", ".v4", ".v8", ".v3"},
	{".up", ".down", ".bfly", ".idx", ".sync", ".all", ".any", ".uni", ".ballot"},
}

// lowered is the set of opcodes mutated.
var lowered = map[string]bool{}

func init() {
	for _, op := range strings.Fields(`add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz brev
		bfind bfe bfi bmsk szext fns prmt lop3 shf shl shr and or xor not cnot addc subc madc dp4a dp2a
		fma rcp sqrt rsqrt sin cos lg2 ex2 tanh testp copysign setp set selp slct mov cvt cvta ld ldu st
		atom red vote shfl match redux activemask nanosleep`) {
		lowered[op] = true
	}
}

var badImms = []string{"256", "-1", "255", "0x100000000", "4294967295", "-2147483649", "1.5", "0f3F800000", "0d3FF0000000000000", "300", "65536"}

type instrAt struct {
	in   *ptx.Instr
	regs []string // registers declared in the enclosing function
}

// Mutate returns up to perFile mutants of one valid module.
func Mutate(name string, src []byte, perFile int) []Case {
	return MutateSalted(name, src, perFile, "")
}

// MutateSalted is Mutate with the random source seeded by salt and the
// name: a different salt gives a different mutant set (a held-out set for
// measuring rules that were tuned on the default one).
func MutateSalted(name string, src []byte, perFile int, salt string) []Case {
	m, err := ptx.Parse(name, src)
	if err != nil {
		return nil
	}
	var ins []instrAt
	for _, it := range m.Items {
		f, ok := it.(*ptx.Func)
		if !ok || f.Body == nil {
			continue
		}
		var regs []string
		var walk func(b *ptx.Block, collect bool)
		walk = func(b *ptx.Block, collect bool) {
			for _, s := range b.Stmts {
				switch x := s.(type) {
				case *ptx.VarDecl:
					if collect && x.Space == ".reg" && x.Vec == 0 {
						for _, n := range x.Names {
							if n.Range > 0 {
								regs = append(regs, fmt.Sprintf("%s%d", n.Name, 0))
							} else if len(n.Dims) == 0 {
								regs = append(regs, n.Name)
							}
						}
					}
				case *ptx.Block:
					walk(x, collect)
				case *ptx.Instr:
					if !collect && lowered[x.Op] {
						ins = append(ins, instrAt{in: x, regs: regs})
					}
				}
			}
		}
		walk(f.Body, true)
		walk(f.Body, false)
	}
	if len(ins) == 0 {
		return nil
	}
	h := sha256.Sum256([]byte(salt + name))
	r := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
	lines := splitLines(src)
	seen := map[string]bool{}
	var out []Case
	for tries := 0; len(out) < perFile && tries < perFile*8; tries++ {
		at := ins[r.IntN(len(ins))]
		line, col, old, repl, kind := mutateOne(r, at)
		if repl == "" || repl == old {
			continue
		}
		li := int(line) - 1
		if li < 0 || li >= len(lines) {
			continue
		}
		text := lines[li]
		c := int(col) - 1
		if c < 0 || c+len(old) > len(text) || text[c:c+len(old)] != old {
			continue
		}
		newLine := text[:c] + repl + text[c+len(old):]
		mut := make([]byte, 0, len(src)+len(repl))
		for i, l := range lines {
			if i == li {
				mut = append(mut, newLine...)
			} else {
				mut = append(mut, l...)
			}
		}
		key := fmt.Sprintf("%d:%s", line, newLine)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Case{Name: fmt.Sprintf("%s@%d:%s:%s->%s", name, line, kind, old, repl), Src: mut})
	}
	return out
}

// splitLines splits src after each '\n', keeping the terminators.
func splitLines(src []byte) []string {
	var out []string
	s := string(src)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// mutateOne picks one change to at: the position and old text of the
// token, its replacement and the kind of change.
func mutateOne(r *rand.Rand, at instrAt) (line, col int32, old, repl, kind string) {
	in := at.in
	mn := in.Op + strings.Join(in.Mods, "")
	switch n := r.IntN(10); {
	case n < 6 && len(in.Mods) > 0:
		i := r.IntN(len(in.Mods))
		mods := append([]string(nil), in.Mods...)
		m := mods[i]
		var fam []string
		for _, k := range modKinds {
			for _, x := range k {
				if x == m {
					fam = k
				}
			}
		}
		switch k := r.IntN(10); {
		case k < 6 && fam != nil:
			mods[i] = fam[r.IntN(len(fam))]
			kind = "modifier"
		case k < 8:
			mods[i] = misspell(r, m)
			kind = "misspelling"
		case k < 9:
			mods = append(mods[:i], mods[i+1:]...)
			kind = "dropped"
		default:
			k := modKinds[r.IntN(len(modKinds))]
			add := k[r.IntN(len(k))]
			mods = append(mods[:i], append([]string{add}, mods[i:]...)...)
			kind = "added"
		}
		return in.OpPos.Line, in.OpPos.Col, mn, in.Op + strings.Join(mods, ""), kind
	case n < 8:
		var imms []*ptx.Operand
		for _, a := range in.Args {
			if a.Kind == ptx.OpInt || a.Kind == ptx.OpFloat {
				imms = append(imms, a)
			}
		}
		if len(imms) == 0 {
			return
		}
		a := imms[r.IntN(len(imms))]
		return a.Pos.Line, a.Pos.Col, a.Text, badImms[r.IntN(len(badImms))], "immediate"
	default:
		var rs []*ptx.Operand
		for _, a := range in.Args {
			if a.Kind == ptx.OpName && strings.HasPrefix(a.Name, "%") && !a.Neg && !a.Not {
				rs = append(rs, a)
			}
			if a.Kind == ptx.OpVec {
				for _, e := range a.Elems {
					if e.Kind == ptx.OpName && strings.HasPrefix(e.Name, "%") {
						rs = append(rs, e)
					}
				}
			}
		}
		if len(rs) == 0 || len(at.regs) == 0 {
			return
		}
		a := rs[r.IntN(len(rs))]
		repl := at.regs[r.IntN(len(at.regs))]
		if r.IntN(8) == 0 {
			repl = "%tid.x"
		}
		return a.Pos.Line, a.Pos.Col, a.Name, repl, "register"
	}
}

// misspell drops, doubles or changes one letter of a modifier.
func misspell(r *rand.Rand, m string) string {
	if len(m) < 3 {
		return m + "x"
	}
	i := 1 + r.IntN(len(m)-1)
	switch r.IntN(3) {
	case 0:
		return m[:i] + m[i+1:]
	case 1:
		return m[:i] + m[i:i+1] + m[i:]
	}
	return m[:i] + string(rune('a'+r.IntN(26))) + m[i+1:]
}
