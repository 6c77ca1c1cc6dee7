package ptx

import (
	"strings"
	"sync"
)

// The modifier and operand-type checks: every modifier of an instruction
// must be one its opcode accepts (modTable), at most one of each group,
// with the required ones present; the operands' register types must fit
// the instruction type by ptxas's rules. They run after the operand forms
// matched, so every operand here is of the expected class.

// modEntry is an opcode's entry of modTable compiled: the group of every
// modifier and the set of instruction types.
type modEntry struct {
	spec   modSpec
	group  map[string]int // modifier -> group number
	types  map[string]bool
	ngroup int
}

// modEntries holds the modEntry of each opcode made so far (modEntryOf).
var modEntries sync.Map // opcode -> *modEntry

// modEntryOf returns op's entry of modTable compiled, nil when it has
// none. Each entry is made when the checker first meets its opcode: a
// file uses a few dozen of the table's opcodes, and every orilab process
// used to compile the whole table at initialization (0.2 ms, also in
// those that check no PTX).
func modEntryOf(op string) *modEntry {
	if e, ok := modEntries.Load(op); ok {
		return e.(*modEntry)
	}
	s, ok := modTable[op]
	if !ok {
		return nil
	}
	e := &modEntry{spec: s, group: map[string]int{}, types: map[string]bool{}}
	for t := range strings.FieldsSeq(s.types) {
		e.types[t] = true
	}
	if s.groups != "" {
		for i, g := range strings.Split(s.groups, "/") {
			for m := range strings.FieldsSeq(g) {
				e.group[m] = i
			}
			e.ngroup = i + 1
		}
	}
	got, _ := modEntries.LoadOrStore(op, e)
	return got.(*modEntry)
}

// knownMods returns the set of every modifier the tables know, built
// on first use: the checker asks only about a modifier its opcode does
// not take.
var knownMods = sync.OnceValue(func() map[string]bool {
	known := map[string]bool{}
	for t := range strings.FieldsSeq(tMemTypes + " " + tCvtTypes + " " + tFloatAll + " " + tInt16_64 + " .pred .u16x2 .s16x2 .b128 .f32x2") {
		known[t] = true
	}
	for _, s := range modTable {
		for _, g := range strings.Split(s.groups, "/") {
			for m := range strings.FieldsSeq(g) {
				known[m] = true
			}
		}
	}
	for _, s := range isaTable {
		for _, g := range s.gates {
			known[g.mod] = true
		}
		for _, f := range s.forms {
			for _, m := range strings.Split(f.when, "|") {
				if m != "" {
					known[m] = true
				}
			}
		}
	}
	return known
})

// typeInfo returns the kind ('b', 'u', 's', 'f', 'p') and width in bits of
// a PTX type, ok false for types that are not scalar values (.texref).
func typeInfo(t string) (kind byte, bits int, ok bool) {
	switch t {
	case ".pred":
		return 'p', 1, true
	case ".f16x2", ".bf16x2":
		return 'f', 32, true
	case ".bf16":
		return 'f', 16, true
	case ".tf32":
		return 'f', 32, true
	case ".e4m3x2", ".e5m2x2":
		return 'f', 16, true
	case ".u16x2", ".s16x2":
		return t[1], 32, true
	}
	if len(t) < 3 {
		return 0, 0, false
	}
	k := t[1]
	if k != 'b' && k != 'u' && k != 's' && k != 'f' {
		return 0, 0, false
	}
	n := 0
	for _, ch := range t[2:] {
		if ch < '0' || ch > '9' {
			return 0, 0, false
		}
		n = n*10 + int(ch-'0')
	}
	return k, n, n > 0
}

func isFloatType(t string) bool {
	k, _, ok := typeInfo(t)
	return ok && k == 'f'
}

func isIntType(t string) bool {
	k, _, ok := typeInfo(t)
	return ok && (k == 'u' || k == 's')
}

// mods checks in's modifiers and operand types against modTable. It
// reports at most one problem per instruction, the first ptxas would.
func (c *checker) mods(s *scope, in *Instr) {
	e := c.modEntry(in.Op)
	if e == nil {
		return
	}
	// Fixed-size buffers: this runs for every instruction, and an opcode
	// has at most a few groups and types.
	var typeBuf [2]string
	var seenBuf [8]string
	types := typeBuf[:0]
	var seen []string
	if e.ngroup <= len(seenBuf) {
		seen = seenBuf[:e.ngroup]
	} else {
		seen = make([]string, e.ngroup)
	}
	for _, m := range in.Mods {
		if _, _, ok := typeInfo(m); ok && (e.types[m] || knownMods()[m]) {
			if len(e.types) == 0 {
				c.d.errorf(in.OpPos, "%s takes no type, found %s", opName(in), m)
				return
			}
			if !e.types[m] {
				c.d.errorf(in.OpPos, "type %s is not allowed for %s", m, in.Op)
				return
			}
			types = append(types, m)
			continue
		}
		g, ok := e.group[m]
		if !ok {
			if knownMods()[m] {
				c.d.errorf(in.OpPos, "modifier %s is not allowed for %s", m, in.Op)
			} else {
				c.d.errorf(in.OpPos, "unknown modifier %s on %s", m, in.Op)
			}
			return
		}
		if seen[g] != "" {
			if seen[g] == m {
				c.d.errorf(in.OpPos, "modifier %s appears twice on %s", m, in.Op)
			} else {
				c.d.errorf(in.OpPos, "modifiers %s and %s cannot be combined on %s", seen[g], m, in.Op)
			}
			return
		}
		seen[g] = m
	}
	if in.Op == "cvt" && in.HasMod(".pack") {
		// cvt.pack.sat.u8.s32.b32 d, a, b, c: the sources are .s32 and
		// the third type .b32; the operands are not checked further.
		if len(types) == 3 && (types[1] != ".s32" || types[2] != ".b32") {
			c.d.errorf(in.OpPos, "%s: cvt.pack converts .s32 sources into a .b32 (cvt.pack.sat.u8.s32.b32)", opName(in))
		}
		return
	}
	if n := e.spec.ntypes; n > 0 && len(types) != n {
		if len(types) < n {
			c.d.errorf(in.OpPos, "%s needs %s", opName(in), map[int]string{1: "an instruction type", 2: "two instruction types"}[n])
		} else {
			c.d.errorf(in.OpPos, "%s has %d instruction types, want %d", opName(in), len(types), n)
		}
		return
	}
	if !c.modRules(in, types) || !c.addrSpace(s, in) {
		return
	}
	c.operandTypes(s, in, types)
}

// addrSpace checks that a variable named in an address lives in the
// instruction's state space (ptxas: "State space mismatch between
// instruction and address"). Generic addressing (no space) takes any.
func (c *checker) addrSpace(s *scope, in *Instr) bool {
	switch in.Op {
	case "ld", "st", "ldu", "atom", "red":
	default:
		return true
	}
	space := ""
	for _, m := range in.Mods {
		switch m {
		case ".global", ".shared", ".local", ".const", ".param":
			space = m
		case ".shared::cta":
			space = ".shared"
		case ".param::entry", ".param::func":
			space = ".param"
		}
	}
	if space == "" {
		// Generic addressing reaches every space but .param.
		for _, a := range in.Args {
			if a.Kind == OpAddr && len(a.Elems) > 0 && a.Elems[0].Kind == OpName {
				if d := s.lookup(a.Elems[0].Name); d != nil && d.kind == dkVar && d.space == ".param" {
					c.d.errorf(a.Pos, "%s has no state space, and generic addressing cannot reach the .param variable %s", opName(in), a.Elems[0].Name)
					return false
				}
			}
		}
		return true
	}
	for _, a := range in.Args {
		if a.Kind != OpAddr || len(a.Elems) == 0 || a.Elems[0].Kind != OpName {
			continue
		}
		d := s.lookup(a.Elems[0].Name)
		if d == nil || d.kind != dkVar {
			continue
		}
		switch d.space {
		case ".global", ".shared", ".local", ".const", ".param":
		default:
			continue
		}
		if d.space != space {
			c.d.errorf(a.Pos, "%s accesses %s, but %s is a %s variable", opName(in), space, a.Elems[0].Name, d.space)
			return false
		}
	}
	return true
}

// modRules checks the combinations ptxas requires or refuses. It returns
// false after reporting one.
func (c *checker) modRules(in *Instr, types []string) bool {
	t := ""
	if len(types) > 0 {
		t = types[len(types)-1]
	}
	name := lazyOpName{in}
	fail := func(format string, args ...any) bool {
		c.d.errorf(in.OpPos, format, args...)
		return false
	}
	has := func(list string) string { return firstMod(in, list) }
	flt, integer := isFloatType(t), isIntType(t)
	if in.Op != "cvt" && in.Op != "set" && in.Op != "slct" {
		if m := has(gFloatRnd + " .ftz .approx .full"); m != "" && !flt && t != "" {
			return fail("modifier %s of %s applies only to floating-point types", m, name)
		}
	}
	// Decision: the rounding requirements apply from sm_20 on. PTX for
	// sm_1x may omit the rounding of mad.f32 and div.f32 (the PTX ISA's
	// notes for those targets), and old corpus kernels do.
	modern := c.sm == 0 || c.sm >= 20
	switch in.Op {
	case "add", "sub", "mul", "mad":
		if m := has(".hi .lo .wide .cc"); m != "" && !integer {
			return fail("modifier %s of %s applies only to integer types", m, name)
		}
		if in.Op == "mul" || in.Op == "mad" {
			if integer && has(".hi .lo .wide") == "" {
				return fail("%s needs one of .lo, .hi or .wide", name)
			}
			if in.HasMod(".wide") && (t == ".u64" || t == ".s64") {
				return fail("%s: .wide applies only to 16- and 32-bit types", name)
			}
		}
		if in.HasMod(".cc") && t != ".u32" && t != ".s32" && t != ".u64" && t != ".s64" {
			return fail("modifier .cc of %s applies only to 32- and 64-bit integer types", name)
		}
		if in.HasMod(".cc") && (t == ".u64" || t == ".s64") {
			c.gate(in.OpPos, name.String()+" (.cc on a 64-bit type)", 43, 0)
		}
		if in.HasMod(".sat") && integer && (t != ".s32" || in.Op == "mul") {
			return fail("modifier .sat of %s applies only to .s32 among the integer types", name)
		}
		if in.Op == "mad" && flt && modern && t != ".f16" && t != ".f16x2" && t != ".bf16" && t != ".bf16x2" && has(gFloatRnd) == "" {
			return fail("%s needs a rounding modifier (.rn, .rz, .rm or .rp)", name)
		}
		if (t == ".u16x2" || t == ".s16x2") && has(".sat .cc") != "" {
			return fail("%s: %s takes no .sat or .cc", name, t)
		}
	case "abs", "neg":
		if t[1] == 'u' {
			return fail("%s applies only to signed and floating-point types", name)
		}
	case "div":
		if flt && modern && has(".approx .full "+gFloatRnd) == "" {
			return fail("%s needs a rounding modifier or .approx/.full", name)
		}
		if t == ".f64" && has(".approx .full") != "" {
			return fail("%s: .approx and .full apply only to .f32", name)
		}
	case "rcp", "sqrt":
		if modern && has(".approx "+gFloatRnd) == "" {
			return fail("%s needs a rounding modifier or .approx", name)
		}
	case "fma":
		if has(gFloatRnd) == "" {
			return fail("%s needs a rounding modifier (.rn, .rz, .rm or .rp)", name)
		}
	case "sin", "cos", "lg2", "ex2", "rsqrt", "tanh":
		if !in.HasMod(".approx") {
			return fail("%s needs .approx", name)
		}
	case "setp", "set":
		cmp := has(gCmp)
		if cmp == "" {
			if bad := firstUnknown(in, c.modEntry(in.Op)); bad != "" {
				return fail("unknown comparison %s on %s", bad, in.Op)
			}
			return fail("%s needs a comparison (.eq, .lt, ...)", name)
		}
		st := t
		if in.Op == "set" && len(types) == 2 {
			st = types[1]
		}
		sk, _, _ := typeInfo(st)
		switch {
		case inList(".equ .neu .ltu .leu .gtu .geu .num .nan", cmp) && sk != 'f':
			return fail("comparison %s of %s applies only to floating-point types", cmp, name)
		case inList(".lo .ls .hi .hs", cmp) && (sk == 'f' || sk == 's'):
			return fail("comparison %s of %s applies only to unsigned and bit-size types", cmp, name)
		case inList(".lt .le .gt .ge", cmp) && sk == 'b':
			return fail("comparison %s of %s does not apply to bit-size types", cmp, name)
		}
		if in.Op == "setp" && len(in.Args) > 0 && in.Args[0].Kind == OpPair && (t == ".f16" || t == ".bf16") {
			c.d.errorf(in.Args[0].Pos, "%s writes one predicate: a pair p|q needs .f16x2 or .bf16x2", name)
			return false
		}
		if in.Op == "set" && len(types) == 2 {
			switch types[0] {
			case ".u32", ".s32":
			case ".f32":
				if _, b, _ := typeInfo(types[1]); b < 32 || strings.HasSuffix(types[1], "x2") {
					return fail("%s: a .f32 result needs 32- or 64-bit sources", name)
				}
			case ".f16", ".f16x2", ".bf16", ".bf16x2":
				if types[1] != types[0] {
					return fail("%s: a %s result needs %s sources", name, types[0], types[0])
				}
			default:
				return fail("%s: the result type must be .u32, .s32 or .f32", name)
			}
		}
		if in.HasMod(".ftz") && sk != 'f' {
			return fail("modifier .ftz of %s applies only to floating-point types", name)
		}
	case "cvta":
		if has(".global .shared .shared::cta .shared::cluster .local .const .param .param::entry") == "" {
			return fail("%s needs a state space", name)
		}
	case "mov":
		if in.HasMod(".v8") {
			return fail("%s: mov takes .v2 or .v4", name)
		}
	case "mul24", "mad24":
		if has(".hi .lo") == "" {
			return fail("%s needs .lo or .hi", name)
		}
	case "shf":
		if has(".l .r") == "" || has(".clamp .wrap") == "" {
			return fail("%s needs a direction (.l or .r) and a mode (.clamp or .wrap)", name)
		}
	case "bmsk", "szext":
		if has(".clamp .wrap") == "" {
			return fail("%s needs .clamp or .wrap", name)
		}
	case "testp":
		if has(".finite .infinite .number .notanumber .normal .subnormal") == "" {
			return fail("%s needs a test (.finite, .number, ...)", name)
		}
	case "atom", "red":
		if has(".and .or .xor .cas .exch .add .inc .dec .min .max") == "" {
			return fail("%s needs an operation (.add, .min, ...)", name)
		}
		op := has(".and .or .xor .cas .exch .add .inc .dec .min .max")
		if ok := atomTypes[op]; ok != "" && vecWidth(in) == 1 && !inList(ok, t) {
			return fail("%s: %s takes %s", name, op, ok)
		}
		// The operand after the value is the cache policy of
		// .L2::cache_hint (or the new value of .cas, or the mbarrier of
		// red.async).
		n := 3
		if in.Op == "red" {
			n = 2
		}
		if op == ".cas" || in.HasMod(".mbarrier::complete_tx::bytes") {
			n++
		}
		if len(in.Args) > n && !in.HasMod(".L2::cache_hint") {
			return fail("%s: an operand after the value needs .L2::cache_hint", name)
		}
	case "vote":
		if has(".all .any .uni .ballot") == "" {
			return fail("%s needs a mode (.all, .any, .uni or .ballot)", name)
		}
		if in.HasMod(".ballot") != (t == ".b32") {
			return fail("%s: .ballot takes .b32, the other modes .pred", name)
		}
		// Decision: ptxas 13 refuses vote without .sync for sm_70 and
		// later from PTX 6.4 on ("vote.all.pred ... not supported on
		// .target sm_70 and higher"); older PTX for those targets is
		// still accepted.
		if !in.HasMod(".sync") && c.sm >= 70 && c.m.Version.Num() >= 64 {
			return fail("%s without .sync is not supported on sm_70 and later from PTX ISA 6.4 on", name)
		}
	case "shfl":
		if has(".up .down .bfly .idx") == "" {
			return fail("%s needs a mode (.up, .down, .bfly or .idx)", name)
		}
		if !in.HasMod(".sync") && c.sm >= 70 && c.m.Version.Num() >= 64 {
			return fail("%s without .sync is not supported on sm_70 and later from PTX ISA 6.4 on", name)
		}
	case "match":
		if has(".any .all") == "" || !in.HasMod(".sync") {
			return fail("%s needs .any or .all and .sync", name)
		}
	case "redux":
		op := has(".add .min .max .and .or .xor")
		if op == "" || !in.HasMod(".sync") {
			return fail("%s needs an operation and .sync", name)
		}
		if inList(".and .or .xor", op) != (t == ".b32") {
			return fail("%s: .and, .or and .xor take .b32, the arithmetic operations .u32 or .s32", name)
		}
	case "cvt":
		return c.cvtRules(in, types)
	case "ld", "st", "ldu":
		// 256-bit vectors (.v4 of a 64-bit type, .v8 of a 32-bit one)
		// are new in PTX 8.8 for sm_100 ("Feature '256 bit wide
		// load/store' requires .target sm_100 or higher").
		if _, b, ok := typeInfo(t); ok && vecWidth(in)*b == 256 && !in.HasMod(".v8") {
			c.gate(in.OpPos, name.String()+" (256 bits wide)", 88, 100)
		}
		return c.memRules(in)
	}
	return true
}

// atomTypes are the types each atom/red operation takes (ptxas:
// "Operation .inc requires .u32 type").
var atomTypes = map[string]string{
	".and": ".b32 .b64", ".or": ".b32 .b64", ".xor": ".b32 .b64",
	".cas":  ".b16 .b32 .b64 .b128",
	".exch": ".b16 .b32 .b64 .b128",
	".add":  ".u32 .s32 .u64 .f32 .f64 .f16 .f16x2 .bf16 .bf16x2",
	".inc":  ".u32", ".dec": ".u32",
	".min": ".u32 .s32 .u64 .s64 .f16 .f16x2 .bf16 .bf16x2",
	".max": ".u32 .s32 .u64 .s64 .f16 .f16x2 .bf16 .bf16x2",
}

// firstMod returns the first modifier of the space-separated list that
// in carries, or "". It looks in's few modifiers (one to three, mostly)
// up in the list rather than each word of the list up in in: splitting
// the lists at every question was most of the rules' time.
func firstMod(in *Instr, list string) string {
	best, m := -1, ""
	for _, x := range in.Mods {
		if i := wordIndex(list, x); i >= 0 && (best < 0 || i < best) {
			best, m = i, x
		}
	}
	return m
}

// wordIndex returns the position of w as a whole word of the
// space-separated list, or -1.
func wordIndex(list, w string) int {
	if w == "" || strings.IndexByte(w, ' ') >= 0 {
		return -1
	}
	for off := 0; ; {
		j := strings.Index(list[off:], w)
		if j < 0 {
			return -1
		}
		j += off
		if (j == 0 || list[j-1] == ' ') && (j+len(w) == len(list) || list[j+len(w)] == ' ') {
			return j
		}
		off = j + 1
	}
}

// inList reports whether m is one of the space-separated words of list.
func inList(list, m string) bool {
	for w := range strings.FieldsSeq(list) {
		if w == m {
			return true
		}
	}
	return false
}

// firstUnknown returns the first modifier of in that e does not know.
func firstUnknown(in *Instr, e *modEntry) string {
	for _, m := range in.Mods {
		if _, ok := e.group[m]; !ok && !e.types[m] {
			return m
		}
	}
	return ""
}

// cvtRules: which rounding modifier a conversion needs or refuses
// (ptxas: "Rounding modifier required", "Illegal rounding modifier").
// isF8x2 reports a packed pair of 8-bit floats.
func isF8x2(t string) bool { return t == ".e4m3x2" || t == ".e5m2x2" }

func (c *checker) cvtRules(in *Instr, types []string) bool {
	dk, db, _ := typeInfo(types[0])
	sk, sb, _ := typeInfo(types[1])
	frnd, irnd := "", ""
	for _, m := range in.Mods {
		switch m {
		case ".rn", ".rz", ".rm", ".rp", ".rna", ".rs":
			frnd = m
		case ".rni", ".rzi", ".rmi", ".rpi":
			irnd = m
		}
	}
	name := opName(in)
	for _, t := range types {
		switch t {
		case ".b32", ".u4", ".s4":
			// Only cvt.pack (handled before) takes these.
			return c.failAt(in, "type %s is not allowed for cvt (only cvt.pack takes it)", t)
		case ".bf16", ".bf16x2":
			c.gate(in.OpPos, name, 70, 80)
		}
	}
	// Decision: the 8-bit float pairs and the rounded (not .rna) tf32
	// conversions follow ptxas 13.0, which is stricter than the PTX
	// manual's sm_89 / sm_80: it refuses cvt with .e4m3x2/.e5m2x2 below
	// sm_90 except on sm_89 with .version 8.1 ("Feature 'cvt with
	// .e4m3x2/.e5m2x2' requires .target sm_90 or higher", and on sm_89
	// "... requires PTX ISA .version 8.1 or later"), and cvt.rn/.rz.tf32.f32
	// below sm_90 ("Feature 'cvt with .tf32.f32.rn' requires .target sm_90
	// or higher"; probed with .target sm_80, sm_86 and sm_89).
	if isF8x2(types[0]) || isF8x2(types[1]) {
		if c.sm == 89 {
			c.gate(in.OpPos, name+" (.e4m3x2/.e5m2x2 on sm_89)", 81, 0)
		} else {
			c.gate(in.OpPos, name+" (.e4m3x2/.e5m2x2)", 78, 90)
		}
	}
	if types[0] == ".tf32" && types[1] == ".f32" && (frnd == ".rn" || frnd == ".rz") {
		c.gate(in.OpPos, name+" (.tf32.f32"+frnd+")", 78, 90)
	}
	if in.HasMod(".satfinite") && (types[0] == ".bf16" || types[0] == ".f16" || types[0] == ".bf16x2" || types[0] == ".f16x2") {
		c.gate(in.OpPos, name+" (.satfinite)", 81, 0)
	}
	if strings.HasSuffix(types[0], "x2") && types[0] != ".u16x2" && types[0] != ".s16x2" {
		// Packed results (cvt.rn.f16x2.f32, cvt.rn.f16x2.e4m3x2):
		// ptxas refuses .sat, and from an 8-bit float pair any
		// rounding but .rn.
		if in.HasMod(".sat") {
			return c.failAt(in, "%s: .sat does not apply to a packed result", name)
		}
		if (types[1] == ".e4m3x2" || types[1] == ".e5m2x2") && frnd != ".rn" {
			return c.failAt(in, "%s: a conversion from %s rounds only with .rn", name, types[1])
		}
		if types[1] == ".f32" {
			if irnd != "" || (frnd != ".rn" && frnd != ".rz" && frnd != ".rs") {
				return c.failAt(in, "%s: a packed conversion from .f32 needs .rn or .rz", name)
			}
		} else if types[1] != ".e4m3x2" && types[1] != ".e5m2x2" && !strings.HasSuffix(types[1], "x2") {
			return c.failAt(in, "%s: a %s result is converted from .f32 pairs or packed 8-bit floats, not %s", name, types[0], types[1])
		}
	}
	switch {
	case dk == 'f' && sk == 'f':
		if irnd != "" && db != sb {
			return c.failAt(in, "%s: integer rounding %s applies only to conversions between floating-point types of one size", name, irnd)
		}
		if db < sb && frnd == "" && types[0] != ".tf32" {
			return c.failAt(in, "%s narrows and needs a rounding modifier (.rn, .rz, .rm or .rp)", name)
		}
		if (db > sb || types[0] == types[1]) && frnd != "" && !(types[0] == ".tf32" || strings.HasSuffix(types[0], "x2")) {
			return c.failAt(in, "%s does not round: %s is not allowed", name, frnd)
		}
	case dk == 'f':
		if irnd != "" {
			return c.failAt(in, "%s: integer rounding %s does not apply to a conversion to floating point", name, irnd)
		}
		if frnd == "" && c.sm >= 20 {
			return c.failAt(in, "%s needs a rounding modifier (.rn, .rz, .rm or .rp)", name)
		}
	case sk == 'f':
		if frnd != "" {
			return c.failAt(in, "%s: %s does not apply to a conversion to integer; use .rni, .rzi, .rmi or .rpi", name, frnd)
		}
		if irnd == "" && c.sm >= 20 {
			return c.failAt(in, "%s needs an integer rounding modifier (.rni, .rzi, .rmi or .rpi)", name)
		}
	default:
		if frnd != "" || irnd != "" {
			return c.failAt(in, "%s converts between integers and takes no rounding modifier", name)
		}
		// .sat only where the value can fall outside the result's range.
		if in.HasMod(".sat") && db >= sb && (dk == sk || (sk == 'u' && db > sb)) {
			return c.failAt(in, "%s: every %s value fits in %s, so .sat does not apply", name, types[1], types[0])
		}
	}
	return true
}

func (c *checker) failAt(in *Instr, format string, args ...any) bool {
	c.d.errorf(in.OpPos, format, args...)
	return false
}

// memRules: the combinations of ld/st modifiers ptxas refuses.
func (c *checker) memRules(in *Instr) bool {
	name := opName(in)
	has := func(list string) string { return firstMod(in, list) }
	if in.HasMod(".nc") && !in.HasMod(".global") {
		return c.failAt(in, "%s: .nc requires the .global state space", name)
	}
	if in.HasMod(".volatile") && has(".param .param::entry .param::func") != "" {
		return c.failAt(in, "%s: .volatile does not apply to the .param space", name)
	}
	if has(gLdSpace) == "" && c.sm > 0 && c.sm < 20 {
		return c.failAt(in, "%s: generic addressing (no state space) requires sm_20 or higher, but the module targets sm_%d", name, c.sm)
	}
	if in.HasMod(".volatile") {
		if m := has(".ca .cg .cs .lu .cv .wb .wt"); m != "" {
			return c.failAt(in, "%s: .volatile cannot be combined with %s", name, m)
		}
	}
	if sem := has(".relaxed .acquire .release"); sem != "" && has(gScope) == "" {
		return c.failAt(in, "%s: %s needs a scope (.cta, .cluster, .gpu or .sys)", name, sem)
	}
	if sc := has(gScope); sc != "" && has(".relaxed .acquire .release .mmio") == "" {
		return c.failAt(in, "%s: scope %s needs .relaxed, .acquire or .release", name, sc)
	}
	if in.Op == "st" {
		if m := has(".const .param::entry"); m != "" {
			return c.failAt(in, "%s: %s memory is read-only", name, m)
		}
		if in.HasMod(".acquire") {
			return c.failAt(in, "%s: a store cannot be .acquire", name)
		}
	}
	if in.Op == "ld" && in.HasMod(".release") {
		return c.failAt(in, "%s: a load cannot be .release", name)
	}
	return true
}

// operandTypes checks every register and immediate operand against the
// type its position needs (modSpec.sig).
func (c *checker) operandTypes(s *scope, in *Instr, types []string) {
	sig := c.modEntry(in.Op).spec.sig
	if sig == "" || len(types) == 0 {
		return
	}
	t := types[len(types)-1]
	n := len(in.Args)
	if in.HasMod(".L2::cache_hint") {
		n-- // the 64-bit cache policy
	}
	for i, a := range in.Args[:max(n, 0)] {
		if i >= len(sig) {
			break
		}
		role := sig[i]
		want := t
		strict := true
		switch role {
		case '-', 'P':
			continue
		case 'D':
			want = types[0]
		case 'S':
			want = types[len(types)-1]
		case 'L':
			want, strict = types[0], false
		case 'R':
			want, strict = types[len(types)-1], false
		case 'u':
			want = ".u32"
		case 'b':
			want = ".b32"
		case 'W':
			if in.HasMod(".wide") {
				k, b, _ := typeInfo(t)
				want = string([]byte{'.', k}) + itoa(2*b)
			}
		case 'M':
			if w := vecWidth(in); w > 1 && i == 0 && a.Kind != OpVec && !c.isVecReg(s, a) {
				c.d.errorf(a.Pos, "%s needs a vector destination", opName(in))
				return
			}
			if a.Kind == OpVec {
				if vecWidth(in) > 1 {
					// mov.v4.u16 {a, b, c, d}, ...: a vector copy whose
					// elements have the instruction type.
					for _, e := range a.Elems {
						if !c.operandType(s, in, e, i, t, true) {
							return
						}
					}
					continue
				}
				if !c.movVector(s, in, a, i, t) {
					return
				}
				continue
			}
			if a.Kind == OpGeneric {
				continue
			}
			if vecWidth(in) == 1 && c.isVecReg(s, a) {
				// mov.b32 %r1, %v where %v is .v2 .b16: a pack or
				// unpack, only of bit-size types of the same width.
				d := s.lookup(a.Name)
				tk, tb, _ := typeInfo(t)
				_, eb, ok := typeInfo(d.typ)
				if tk != 'b' || !ok || eb*d.vec != tb {
					c.d.errorf(a.Pos, "operand %d of %s: vector register %s (.v%d %s) does not match the type %s", i+1, opName(in), a.Name, d.vec, d.typ, t)
					return
				}
				continue
			}
			if a.Kind == OpName {
				if d := s.lookup(a.Name); d != nil && d.kind != dkReg {
					continue
				}
			}
		}
		// ld's destination and st's source may be a vector.
		if a.Kind == OpVec {
			if in.Op != "ld" && in.Op != "st" && in.Op != "ldu" {
				continue
			}
			if n := vecWidth(in); n != len(a.Elems) {
				c.d.errorf(a.Pos, "%s moves %d elements, but the vector has %d", opName(in), n, len(a.Elems))
				return
			}
			// ptxas: "Incompatible elements of vector expression".
			width := 0
			for _, e := range a.Elems {
				if e.Kind != OpName {
					continue
				}
				if d := s.lookup(e.Name); d != nil && d.kind == dkReg {
					if _, b, ok := typeInfo(d.typ); ok {
						if width != 0 && b != width {
							c.d.errorf(e.Pos, "operand %d of %s: the vector's registers differ in width (%s is %s)", i+1, opName(in), e.Name, d.typ)
							return
						}
						width = b
					}
				}
			}
			c.inVec = true
			for _, e := range a.Elems {
				if !c.operandType(s, in, e, i, want, strict) {
					c.inVec = false
					return
				}
			}
			c.inVec = false
			continue
		}
		if (in.Op == "ld" || in.Op == "st" || in.Op == "ldu") && vecWidth(in) > 1 && role != '-' && !c.isVecReg(s, a) {
			c.d.errorf(a.Pos, "%s needs a vector of %d elements, found %s", opName(in), vecWidth(in), describe(a, clsReg))
			return
		}
		if !c.operandType(s, in, a, i, want, strict) {
			return
		}
	}
	c.immRanges(in)
}

// movVector checks mov's pack/unpack form, mov.b64 %rd1, {%r1, %r2}: two
// or four registers of one width that together make the instruction type.
func (c *checker) movVector(s *scope, in *Instr, a *Operand, i int, t string) bool {
	tk, tb, _ := typeInfo(t)
	n := len(a.Elems)
	ok := (n == 2 || n == 4) && tk == 'b'
	for _, e := range a.Elems {
		if !ok {
			break
		}
		if e.Kind == OpSink {
			continue
		}
		d := (*decl)(nil)
		if e.Kind == OpName {
			d = s.lookup(e.Name)
		}
		if d == nil || d.kind != dkReg || d.vec > 0 {
			ok = false
			break
		}
		_, eb, tok := typeInfo(d.typ)
		ok = tok && eb*n == tb
	}
	if !ok {
		c.d.errorf(a.Pos, "operand %d of %s: a vector operand of mov needs 2 or 4 registers that together are %d bits wide", i+1, opName(in), tb)
	}
	return ok
}

// isVecReg reports whether a is a whole vector register (.v4 .u32 %v).
func (c *checker) isVecReg(s *scope, a *Operand) bool {
	if a.Kind != OpName || a.Comp != "" {
		return false
	}
	d := s.lookup(a.Name)
	return d != nil && d.vec > 0
}

func vecWidth(in *Instr) int {
	for _, m := range in.Mods {
		switch m {
		case ".v2":
			return 2
		case ".v4":
			return 4
		case ".v8":
			return 8
		}
	}
	return 1
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// operandType checks one operand against type want. strict is the rule of
// arithmetic (same size; integer and float registers do not mix; bit-size
// registers fit both); the relaxed rule of ld's destination, st's source
// and cvt's operands also accepts wider integer and bit-size registers.
//
// Decision: the rules are ptxas 13.0's as probed, where they are stricter
// or looser than the PTX ISA's tables: add.f32 on .b32 registers and
// add.s32 on .u32 ones are accepted, add.u32 on .f32 ones is not;
// ld.global.u32 into a .b64 register and ld.global.f32 into a .b64 one
// are accepted, into an .f32 (for .u32) or a .u32 (for .f32) not;
// ld.b8 into an .f32 register is accepted; .f16x2 and .f32 registers do
// not mix; an integer immediate never stands for a float operand
// (mov.f32 %f1, 1 is refused) and a decimal float never for an integer
// one.
func (c *checker) operandType(s *scope, in *Instr, a *Operand, i int, want string, strict bool) bool {
	wk, wb, ok := typeInfo(want)
	if !ok {
		return true
	}
	bad := func(what string) bool {
		c.d.errorf(a.Pos, "operand %d of %s: %s does not match the type %s", i+1, opName(in), what, want)
		return false
	}
	switch a.Kind {
	case OpInt, OpFloat:
		// ptxas takes no immediate of a half-precision or packed type.
		switch want {
		case ".f16", ".bf16", ".f16x2", ".bf16x2", ".u16x2", ".s16x2":
			return bad("immediate " + a.Text)
		}
		if a.Kind == OpInt && wk == 'f' {
			return bad("integer immediate " + a.Text)
		}
		if a.Kind == OpFloat && (wk == 'u' || wk == 's' || wk == 'p') {
			return bad("float immediate " + a.Text)
		}
		// A float literal has a width: 0fXXXXXXXX is 32 bits, 0d... and
		// a decimal literal 64. A bit-size operand takes only its own
		// width (ptxas accepts shfl.b32's 0f3F800000 and refuses 1.5).
		if a.Kind == OpFloat && wk == 'b' {
			fb := 64
			if strings.HasPrefix(strings.TrimPrefix(a.Text, "-"), "0f") || strings.HasPrefix(strings.TrimPrefix(a.Text, "-"), "0F") {
				fb = 32
			}
			if fb != wb {
				return bad("float immediate " + a.Text)
			}
		}
		return true
	case OpName:
		if a.Name == "WARP_SZ" && s.lookup(a.Name) == nil {
			if wk == 'f' {
				return bad("WARP_SZ, an integer constant,")
			}
			return true
		}
	default:
		return true
	}
	d := s.lookup(a.Name)
	if d == nil {
		if _, _, ok := isSpecialReg(a.Name); ok {
			if i == 0 && in.Op != "st" && in.Op != "red" {
				c.d.errorf(a.Pos, "operand 1 of %s: special register %s is read-only", opName(in), a.Name)
				return false
			}
			if in.Op == "st" && c.inVec {
				// ptxas takes special registers among the elements of
				// a vector store, but not as a scalar source.
				return true
			}
			return c.specialRegType(in, a, i, wk, wb)
		}
		return true
	}
	if d.kind != dkReg || a.HasOff {
		return true
	}
	if d.vec > 0 && a.Comp == "" {
		return true
	}
	rk, rb, ok := typeInfo(d.typ)
	if !ok {
		return true
	}
	// Spelled only for an error: this runs for every register operand.
	what := func() string { return "register " + a.Name + " (" + d.typ + ")" }
	if (rk == 'p') != (wk == 'p') {
		return bad(what())
	}
	if wk == 'p' {
		return true
	}
	sameClass := func() bool {
		switch wk {
		case 'b':
			return true
		case 'u', 's':
			return rk != 'f'
		}
		return rk == 'b' || rk == 'f'
	}
	if !sameClass() {
		return bad(what())
	}
	if rk == 'f' && wk == 'f' && d.typ != want && !(rb == 32 && wb == 32 && (want == ".tf32" || d.typ == ".tf32")) {
		// .f16x2 and .f32 registers are both 32 bits, but not
		// interchangeable.
		return bad(what())
	}
	if strict || (rk == 'f' && wk != 'b') {
		if rb != wb {
			return bad(what())
		}
		return true
	}
	if rb < wb {
		return bad(what())
	}
	return true
}

// specialRegType checks a special register operand: only mov and cvt
// read them (ptxas: "Special register argument not allowed"), %clock64,
// %gridid, %globaltimer and %pmN_64 are 64 bits wide and the rest 32 (a
// narrower mov, mov.u16 %rs1, %tid.x, is accepted).
func (c *checker) specialRegType(in *Instr, a *Operand, i int, wk byte, wb int) bool {
	if in.Op != "mov" && in.Op != "cvt" {
		c.d.errorf(a.Pos, "operand %d of %s: special register %s can only be read by mov or cvt", i+1, opName(in), a.Name)
		return false
	}
	bits := 32
	switch a.Name {
	case "%clock64", "%gridid", "%globaltimer":
		bits = 64
	default:
		if strings.HasSuffix(a.Name, "_64") {
			bits = 64
		}
	}
	if wk == 'f' || wb > bits || (bits == 64 && wb != 64 && in.Op == "mov") {
		c.d.errorf(a.Pos, "operand %d of %s: special register %s is %d bits wide and does not match the instruction type", i+1, opName(in), a.Name, bits)
		return false
	}
	return true
}

// immRanges rejects immediates ptxas range-checks: the position and
// length of bfe and bfi.
func (c *checker) immRanges(in *Instr) {
	var idx []int
	switch in.Op {
	case "bfe":
		idx = []int{2, 3}
	case "bfi":
		idx = []int{3, 4}
	default:
		return
	}
	for k, i := range idx {
		if i >= len(in.Args) || in.Args[i].Kind != OpInt {
			continue
		}
		v, _ := in.Args[i].Int()
		if v < 0 || v > 255 {
			what := [...]string{"position", "length"}[k]
			c.d.errorf(in.Args[i].Pos, "immediate %s is outside %s's %s range 0..255", in.Args[i].Text, in.Op, what)
			return
		}
	}
}
