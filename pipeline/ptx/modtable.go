package ptx

// modTable lists, for every opcode the lowering handles, the modifiers and
// instruction types it accepts and the type each operand must have. The
// checker in mods.go applies it after the operand forms of isa_table.go
// matched. Opcodes without an entry (tensor-core, texture and bulk-copy
// instructions, which orilab parses but does not lower) keep only the
// operand-form and version checks.
//
// The rules were found with ptxas 13.0.88 (see internal/ptxasdiff), the
// PTX ISA reference giving the candidates: each entry's modifier sets are
// what ptxas accepts, not only what the manual lists.
//
// types is a space-separated list of the instruction types; ntypes is how
// many type modifiers the instruction carries (cvt has two). groups lists
// the other modifiers, '/' between mutually exclusive groups and spaces
// inside one ("at most one of .rn .rz .rm .rp"). sig gives the type each
// operand must have, one letter per operand (see opType in mods.go); a
// shorter sig leaves the remaining operands unchecked.
type modSpec struct {
	types  string
	ntypes int
	groups string
	sig    string
}

const (
	tInt16_64  = ".u16 .u32 .u64 .s16 .s32 .s64"
	tSigned    = ".s16 .s32 .s64"
	tFloatAll  = ".f32 .f64 .f16 .f16x2 .bf16 .bf16x2"
	tBits      = ".b16 .b32 .b64"
	tMovTypes  = ".pred .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64"
	tMemTypes  = ".b8 .b16 .b32 .b64 .b128 .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f32 .f64"
	tCvtTypes  = ".b32 .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f16 .f32 .f64 .bf16 .f16x2 .bf16x2 .tf32 .e4m3x2 .e5m2x2 .u4 .s4 .e2m1x2 .e2m3x2 .e3m2x2 .ue8m0x2"
	tAtomTypes = ".b16 .b32 .b64 .b128 .u32 .u64 .s32 .s64 .f32 .f64 .f16 .f16x2 .bf16 .bf16x2"
	gFloatRnd  = ".rn .rz .rm .rp"
	gCmp       = ".eq .ne .lt .le .gt .ge .lo .ls .hi .hs .equ .neu .ltu .leu .gtu .geu .num .nan"
	gLdSpace   = ".global .shared .shared::cta .shared::cluster .local .const .param .param::entry .param::func"
	gSem       = ".weak .volatile .relaxed .acquire .release .mmio"
	gScope     = ".cta .cluster .gpu .sys"
	gEvict1    = ".L1::evict_normal .L1::evict_unchanged .L1::evict_first .L1::evict_last .L1::no_allocate"
	gEvict2    = ".L2::evict_normal .L2::evict_first .L2::evict_last"
	gPrefSize  = ".L2::64B .L2::128B .L2::256B"
	gVec       = ".v2 .v4 .v8"
)

var modTable = map[string]modSpec{
	"add":   {types: tInt16_64 + " .u16x2 .s16x2 " + tFloatAll, ntypes: 1, groups: ".sat/.cc/" + gFloatRnd + "/.ftz", sig: "TTT"},
	"sub":   {types: tInt16_64 + " " + tFloatAll, ntypes: 1, groups: ".sat/.cc/" + gFloatRnd + "/.ftz", sig: "TTT"},
	"mul":   {types: tInt16_64 + " " + tFloatAll, ntypes: 1, groups: ".hi .lo .wide/" + gFloatRnd + "/.ftz/.sat", sig: "WTT"},
	"mad":   {types: tInt16_64 + " " + tFloatAll, ntypes: 1, groups: ".hi .lo .wide/.sat/.cc/" + gFloatRnd + "/.ftz", sig: "WTTW"},
	"mul24": {types: ".u32 .s32", ntypes: 1, groups: ".hi .lo", sig: "TTT"},
	"mad24": {types: ".u32 .s32", ntypes: 1, groups: ".hi .lo/.sat", sig: "TTTT"},
	"sad":   {types: tInt16_64, ntypes: 1, sig: "TTTT"},
	"div":   {types: tInt16_64 + " .f32 .f64", ntypes: 1, groups: ".approx .full " + gFloatRnd + "/.ftz", sig: "TTT"},
	"rem":   {types: tInt16_64, ntypes: 1, sig: "TTT"},
	"abs":   {types: tInt16_64 + " " + tFloatAll, ntypes: 1, groups: ".ftz", sig: "TT"},
	"neg":   {types: tInt16_64 + " " + tFloatAll, ntypes: 1, groups: ".ftz", sig: "TT"},
	"min":   {types: tInt16_64 + " .u16x2 .s16x2 " + tFloatAll, ntypes: 1, groups: ".ftz/.NaN/.xorsign/.abs/.relu", sig: "TTTT"},
	"max":   {types: tInt16_64 + " .u16x2 .s16x2 " + tFloatAll, ntypes: 1, groups: ".ftz/.NaN/.xorsign/.abs/.relu", sig: "TTTT"},
	"popc":  {types: ".b32 .b64", ntypes: 1, sig: "uT"},
	"clz":   {types: ".b32 .b64", ntypes: 1, sig: "uT"},
	"brev":  {types: ".b32 .b64", ntypes: 1, sig: "TT"},
	"bfind": {types: ".u32 .u64 .s32 .s64", ntypes: 1, groups: ".shiftamt", sig: "uT"},
	"bfe":   {types: ".u32 .u64 .s32 .s64", ntypes: 1, sig: "TTuu"},
	"bfi":   {types: ".b32 .b64", ntypes: 1, sig: "TTTuu"},
	"bmsk":  {types: ".b32", ntypes: 1, groups: ".clamp .wrap", sig: "TTT"},
	"szext": {types: ".u32 .s32", ntypes: 1, groups: ".clamp .wrap", sig: "TTT"},
	"fns":   {types: ".b32", ntypes: 1, sig: "TTTu"},
	"prmt":  {types: ".b32", ntypes: 1, groups: ".f4e .b4e .rc8 .ecl .ecr .rc16", sig: "TTTT"},
	"lop3":  {types: ".b32", ntypes: 1, groups: ".or .and", sig: "TTTT"},
	"shf":   {types: ".b32", ntypes: 1, groups: ".l .r/.clamp .wrap", sig: "TTTu"},
	"shl":   {types: tBits, ntypes: 1, sig: "TTu"},
	"shr":   {types: tBits + " " + tInt16_64, ntypes: 1, sig: "TTu"},
	"and":   {types: ".pred " + tBits, ntypes: 1, sig: "TTT"},
	"or":    {types: ".pred " + tBits, ntypes: 1, sig: "TTT"},
	"xor":   {types: ".pred " + tBits, ntypes: 1, sig: "TTT"},
	"not":   {types: ".pred " + tBits, ntypes: 1, sig: "TT"},
	"cnot":  {types: tBits, ntypes: 1, sig: "TT"},
	"addc":  {types: ".u32 .s32 .u64 .s64", ntypes: 1, groups: ".cc", sig: "TTT"},
	"subc":  {types: ".u32 .s32 .u64 .s64", ntypes: 1, groups: ".cc", sig: "TTT"},
	"madc":  {types: ".u32 .s32 .u64 .s64", ntypes: 1, groups: ".hi .lo/.cc", sig: "TTTT"},
	"dp4a":  {types: ".u32 .s32", ntypes: 2, sig: "DuuD"},
	"dp2a":  {types: ".u32 .s32", ntypes: 2, groups: ".lo .hi", sig: "DuuD"},

	"fma":      {types: tFloatAll, ntypes: 1, groups: gFloatRnd + "/.ftz/.sat/.relu/.oob", sig: "TTTT"},
	"rcp":      {types: ".f32 .f64", ntypes: 1, groups: ".approx " + gFloatRnd + "/.ftz", sig: "TT"},
	"sqrt":     {types: ".f32 .f64", ntypes: 1, groups: ".approx " + gFloatRnd + "/.ftz", sig: "TT"},
	"rsqrt":    {types: ".f32 .f64", ntypes: 1, groups: ".approx/.ftz", sig: "TT"},
	"sin":      {types: ".f32", ntypes: 1, groups: ".approx/.ftz", sig: "TT"},
	"cos":      {types: ".f32", ntypes: 1, groups: ".approx/.ftz", sig: "TT"},
	"lg2":      {types: ".f32", ntypes: 1, groups: ".approx/.ftz", sig: "TT"},
	"ex2":      {types: ".f32 .f16 .f16x2 .bf16 .bf16x2", ntypes: 1, groups: ".approx/.ftz", sig: "TT"},
	"tanh":     {types: ".f32 .f16 .f16x2 .bf16 .bf16x2", ntypes: 1, groups: ".approx", sig: "TT"},
	"testp":    {types: ".f32 .f64", ntypes: 1, groups: ".finite .infinite .number .notanumber .normal .subnormal", sig: "PT"},
	"copysign": {types: ".f32 .f64", ntypes: 1, sig: "TTT"},

	"setp": {types: tBits + " " + tInt16_64 + " " + tFloatAll, ntypes: 1, groups: gCmp + "/.and .or .xor/.ftz", sig: "PTTP"},
	"set":  {types: tBits + " " + tInt16_64 + " " + tFloatAll, ntypes: 2, groups: gCmp + "/.and .or .xor/.ftz", sig: "DSSP"},
	"selp": {types: tBits + " " + tInt16_64 + " .f32 .f64", ntypes: 1, sig: "TTTP"},
	"slct": {types: tBits + " " + tInt16_64 + " .f32 .f64", ntypes: 2, groups: ".ftz", sig: "DDDS"},

	"mov":      {types: tMovTypes, ntypes: 1, groups: gVec, sig: "MM"},
	"cvt":      {types: tCvtTypes, ntypes: 2, groups: gFloatRnd + " .rni .rzi .rmi .rpi .rna .rs/.ftz/.sat/.relu/.satfinite/.pack", sig: "LR"},
	"cvta":     {types: ".u32 .u64", ntypes: 1, groups: ".to/.global .shared .shared::cta .shared::cluster .local .const .param .param::entry", sig: "TT"},
	"isspacep": {types: "", groups: ".global .shared .shared::cta .shared::cluster .local .const .param .param::entry"},
	"ld": {types: tMemTypes, ntypes: 1,
		groups: gLdSpace + "/" + gSem + "/" + gScope + "/.ca .cg .cs .lu .cv/.nc/" + gEvict1 + "/" + gEvict2 + "/" + gPrefSize + "/.L2::cache_hint/" + gVec + "/.unified",
		sig:    "L"},
	"ldu": {types: tMemTypes, ntypes: 1, groups: ".global/" + gVec, sig: "L"},
	"st": {types: tMemTypes, ntypes: 1,
		groups: gLdSpace + "/" + gSem + "/" + gScope + "/.wb .cg .cs .wt/" + gEvict1 + "/" + gEvict2 + "/.L2::cache_hint/" + gVec + "/.async/.mbarrier::complete_tx::bytes",
		sig:    "-R"},
	"atom": {types: tAtomTypes, ntypes: 1,
		groups: ".global .shared .shared::cta .shared::cluster/.relaxed .acquire .release .acq_rel/" + gScope + "/.and .or .xor .cas .exch .add .inc .dec .min .max/.noftz/.L2::cache_hint/" + gVec,
		sig:    "T-TT"},
	"red": {types: tAtomTypes, ntypes: 1,
		groups: ".global .shared .shared::cta .shared::cluster/.relaxed .release/" + gScope + "/.and .or .xor .add .inc .dec .min .max/.noftz/.L2::cache_hint/" + gVec + "/.async/.mbarrier::complete_tx::bytes",
		sig:    "-T"},
	"vote":  {types: ".pred .b32", ntypes: 1, groups: ".all .any .uni .ballot/.sync", sig: "--u"},
	"shfl":  {types: ".b32", ntypes: 1, groups: ".up .down .bfly .idx/.sync", sig: "-Tbbu"},
	"match": {types: ".b32 .b64", ntypes: 1, groups: ".any .all/.sync", sig: "uTu"},
	"redux": {types: ".u32 .s32 .b32 .f32", ntypes: 1, groups: ".add .min .max .and .or .xor/.sync/.abs/.NaN", sig: "TTu"},

	"activemask": {types: ".b32", ntypes: 1, sig: "T"},
	"nanosleep":  {types: ".u32", ntypes: 1, sig: "T"},
	"bra":        {groups: ".uni"},
	"ret":        {groups: ".uni"},
	"exit":       {},
	"trap":       {},
	"call":       {groups: ".uni"},
	"membar":     {groups: ".cta .gl .sys"},
}
