package ptx

// isaTable maps a PTX opcode base name (the mnemonic before the first dot) to
// its accepted operand forms and the oldest PTX ISA version / SM target that
// accepts it. Operand-class letters and the meaning of when/gates are defined
// in isa.go.
//
// Version/target numbers come from the "PTX ISA Notes" and "Target ISA Notes"
// of the NVIDIA PTX ISA reference. Where a requirement could not be confirmed
// it is left at 0 (permissive): a wrong gate would reject valid PTX. Gates sit
// on modifiers wherever only some forms of an opcode are new, so old-dialect
// PTX (PTX 1.x-3.x, sm_1x-sm_3x) keeps working.
//
// "*" stands for exactly one operand of any kind (used for d|p destination
// pairs and for operands the class letters cannot describe, such as
// [tex, {coords}] or r.b0 selectors); "*?" is an optional one, so opcodes whose
// operand shapes are not validated use a run of "*"/"*?" giving the legal
// operand-count range.
var isaTable = map[string]isaSpec{
	// ---------------------------------------------------------------- integer
	"add": {
		forms: []isaForm{{ops: "d a a"}},
		gates: []isaGate{
			{mod: ".u16x2", minPTX: 80, minSM: 90},
			{mod: ".s16x2", minPTX: 80, minSM: 90},
			{mod: ".f16", minPTX: 42, minSM: 53},
			{mod: ".f16x2", minPTX: 42, minSM: 53},
			{mod: ".bf16", minPTX: 78, minSM: 90},
			{mod: ".bf16x2", minPTX: 78, minSM: 90},
			{mod: ".f32x2", minPTX: 86, minSM: 100},
		},
	},
	"sub": {
		forms: []isaForm{{ops: "d a a"}},
		gates: []isaGate{
			{mod: ".f16", minPTX: 42, minSM: 53},
			{mod: ".f16x2", minPTX: 42, minSM: 53},
			{mod: ".bf16", minPTX: 78, minSM: 90},
			{mod: ".bf16x2", minPTX: 78, minSM: 90},
			{mod: ".f32x2", minPTX: 86, minSM: 100},
		},
	},
	"mul": {
		forms: []isaForm{{ops: "d a a"}},
		gates: []isaGate{
			{mod: ".f16", minPTX: 42, minSM: 53},
			{mod: ".f16x2", minPTX: 42, minSM: 53},
			{mod: ".bf16", minPTX: 78, minSM: 90},
			{mod: ".bf16x2", minPTX: 78, minSM: 90},
			{mod: ".f32x2", minPTX: 86, minSM: 100},
		},
	},
	"mad":   {forms: []isaForm{{ops: "d a a a"}}},
	"mul24": {forms: []isaForm{{ops: "d a a"}}},
	"mad24": {forms: []isaForm{{ops: "d a a a"}}},
	"sad":   {forms: []isaForm{{ops: "d a a a"}}},
	"div":   {forms: []isaForm{{ops: "d a a"}}},
	"rem":   {forms: []isaForm{{ops: "d a a"}}},
	"abs":   {forms: []isaForm{{ops: "d a"}}},
	"neg":   {forms: []isaForm{{ops: "d a"}}},
	// min/max: two sources, or three sources (f32, PTX 8.8 / sm_100).
	"min": {
		forms: []isaForm{{ops: "d a a"}, {ops: "d a a a"}},
		gates: []isaGate{
			{mod: ".relu", minPTX: 80, minSM: 90},
			{mod: ".u16x2", minPTX: 80, minSM: 90},
			{mod: ".s16x2", minPTX: 80, minSM: 90},
			{mod: ".NaN", minPTX: 70, minSM: 80},
			{mod: ".xorsign", minPTX: 72, minSM: 86},
		},
	},
	"max": {
		forms: []isaForm{{ops: "d a a"}, {ops: "d a a a"}},
		gates: []isaGate{
			{mod: ".relu", minPTX: 80, minSM: 90},
			{mod: ".u16x2", minPTX: 80, minSM: 90},
			{mod: ".s16x2", minPTX: 80, minSM: 90},
			{mod: ".NaN", minPTX: 70, minSM: 80},
			{mod: ".xorsign", minPTX: 72, minSM: 86},
		},
	},
	"popc":  {forms: []isaForm{{ops: "d a"}}, minPTX: 20, minSM: 20},
	"clz":   {forms: []isaForm{{ops: "d a"}}, minPTX: 20, minSM: 20},
	"bfind": {forms: []isaForm{{ops: "d a"}}, minPTX: 20, minSM: 20},
	"fns":   {forms: []isaForm{{ops: "d a a a"}}, minPTX: 60, minSM: 30},
	"brev":  {forms: []isaForm{{ops: "d a"}}, minPTX: 20, minSM: 20},
	"bfe":   {forms: []isaForm{{ops: "d a a a"}}, minPTX: 20, minSM: 20},
	"bfi":   {forms: []isaForm{{ops: "d a a a a"}}, minPTX: 20, minSM: 20},
	"szext": {forms: []isaForm{{ops: "d a a"}}, minPTX: 76, minSM: 70},
	"bmsk":  {forms: []isaForm{{ops: "d a a"}}, minPTX: 76, minSM: 70},
	"dp4a":  {forms: []isaForm{{ops: "d a a a"}}, minPTX: 50, minSM: 61},
	"dp2a":  {forms: []isaForm{{ops: "d a a a"}}, minPTX: 50, minSM: 61},

	// ------------------------------------------------ extended-precision integer
	"addc": {forms: []isaForm{{ops: "d a a"}}, minPTX: 12},
	"subc": {forms: []isaForm{{ops: "d a a"}}, minPTX: 12},
	"madc": {forms: []isaForm{{ops: "d a a a"}}, minPTX: 30, minSM: 20},

	// ---------------------------------------------------------- floating point
	"testp":    {forms: []isaForm{{ops: "q a"}}, minPTX: 20, minSM: 20},
	"copysign": {forms: []isaForm{{ops: "d a a"}}, minPTX: 20, minSM: 20},
	"fma": {
		forms: []isaForm{{ops: "d a a a"}},
		gates: []isaGate{
			{mod: ".f16", minPTX: 42, minSM: 53},
			{mod: ".f16x2", minPTX: 42, minSM: 53},
			{mod: ".bf16", minPTX: 70, minSM: 80},
			{mod: ".bf16x2", minPTX: 70, minSM: 80},
			{mod: ".relu", minPTX: 70, minSM: 80},
			{mod: ".oob", minPTX: 81, minSM: 90},
			{mod: ".f32x2", minPTX: 86, minSM: 100},
		},
	},
	"rcp":   {forms: []isaForm{{ops: "d a"}}},
	"sqrt":  {forms: []isaForm{{ops: "d a"}}},
	"rsqrt": {forms: []isaForm{{ops: "d a"}}},
	"sin":   {forms: []isaForm{{ops: "d a"}}},
	"cos":   {forms: []isaForm{{ops: "d a"}}},
	"lg2":   {forms: []isaForm{{ops: "d a"}}},
	"ex2":   {forms: []isaForm{{ops: "d a"}}},
	"tanh":  {forms: []isaForm{{ops: "d a"}}, minPTX: 70, minSM: 75},

	// -------------------------------------------------- comparison and select
	"set": {forms: []isaForm{
		{ops: "d a a"},
		{when: ".and|.or|.xor", ops: "d a a p"},
	}},
	"setp": {forms: []isaForm{
		{ops: "q a a"},
		{when: ".and|.or|.xor", ops: "q a a p"},
	}},
	"selp": {forms: []isaForm{{ops: "d a a p"}}},
	"slct": {forms: []isaForm{{ops: "d a a a"}}},

	// ---------------------------------------------------------- logic / shift
	"and": {forms: []isaForm{
		{ops: "d a a"},
		{when: ".pred", ops: "q p p"},
	}},
	"or": {forms: []isaForm{
		{ops: "d a a"},
		{when: ".pred", ops: "q p p"},
	}},
	"xor": {forms: []isaForm{
		{ops: "d a a"},
		{when: ".pred", ops: "q p p"},
	}},
	"not": {forms: []isaForm{
		{ops: "d a"},
		{when: ".pred", ops: "q p"},
	}},
	"cnot": {forms: []isaForm{{ops: "d a"}}},
	// lop3.BoolOp (PTX 8.2, sm_70): d|p, a, b, c, immLut, q.
	"lop3": {
		forms: []isaForm{
			{ops: "d a a a i"},
			{when: ".or|.and", ops: "* a a a i p"},
		},
		minPTX: 43, minSM: 50,
		gates: []isaGate{
			{mod: ".or", minPTX: 82, minSM: 70},
			{mod: ".and", minPTX: 82, minSM: 70},
		},
	},
	"shf": {forms: []isaForm{{ops: "d a a a"}}, minPTX: 31, minSM: 32},
	"shl": {forms: []isaForm{{ops: "d a a"}}},
	"shr": {forms: []isaForm{{ops: "d a a"}}},

	// ------------------------------------------------ data movement/conversion
	"mov": {forms: []isaForm{
		{ops: "d A"},
		{when: ".pred", ops: "q p"},
	}},
	// shfl (PTX 3.0, sm_30): d|p, a, b, c; shfl.sync (PTX 6.0) adds membermask.
	"shfl": {
		forms: []isaForm{
			{ops: "* a a a"},
			{when: ".sync", ops: "* a a a a"},
		},
		minPTX: 30, minSM: 30,
		gates: []isaGate{{mod: ".sync", minPTX: 60, minSM: 30}},
	},
	"prmt": {forms: []isaForm{{ops: "d a a a"}}, minPTX: 20, minSM: 20},
	"ld": {
		forms: []isaForm{{ops: "d m a?"}},
		gates: []isaGate{
			{mod: ".weak", minPTX: 60, minSM: 70},
			{mod: ".relaxed", minPTX: 60, minSM: 70},
			{mod: ".acquire", minPTX: 60, minSM: 70},
			{mod: ".cluster", minPTX: 78, minSM: 90},
			{mod: ".shared::cta", minPTX: 78, minSM: 30},
			{mod: ".shared::cluster", minPTX: 78, minSM: 90},
			{mod: ".nc", minPTX: 31, minSM: 32},
			{mod: ".L1::evict_normal", minPTX: 74, minSM: 70},
			{mod: ".L1::evict_unchanged", minPTX: 74, minSM: 70},
			{mod: ".L1::evict_first", minPTX: 74, minSM: 70},
			{mod: ".L1::evict_last", minPTX: 74, minSM: 70},
			{mod: ".L1::no_allocate", minPTX: 74, minSM: 70},
			{mod: ".L2::64B", minPTX: 74, minSM: 75},
			{mod: ".L2::128B", minPTX: 74, minSM: 75},
			{mod: ".L2::256B", minPTX: 74, minSM: 80},
			{mod: ".L2::cache_hint", minPTX: 74, minSM: 80},
			{mod: ".mmio", minPTX: 82, minSM: 70},
			{mod: ".b128", minPTX: 83, minSM: 70},
			{mod: ".v8", minPTX: 88, minSM: 100},
		},
	},
	"ldu": {
		forms:  []isaForm{{ops: "d m"}},
		minPTX: 20,
		gates:  []isaGate{{mod: ".b128", minPTX: 83, minSM: 70}},
	},
	// st.async (PTX 8.1, sm_90): [a], b, [mbar]; st.bulk (PTX 8.6, sm_100): [a], size, initval.
	"st": {
		forms: []isaForm{
			{ops: "m a a?"},
			{when: ".async", ops: "m a m"},
			{when: ".bulk", ops: "m a a"},
		},
		gates: []isaGate{
			{mod: ".weak", minPTX: 60, minSM: 70},
			{mod: ".relaxed", minPTX: 60, minSM: 70},
			{mod: ".release", minPTX: 60, minSM: 70},
			{mod: ".cluster", minPTX: 78, minSM: 90},
			{mod: ".shared::cta", minPTX: 78, minSM: 30},
			{mod: ".shared::cluster", minPTX: 78, minSM: 90},
			{mod: ".L1::evict_normal", minPTX: 74, minSM: 70},
			{mod: ".L1::evict_unchanged", minPTX: 74, minSM: 70},
			{mod: ".L1::evict_first", minPTX: 74, minSM: 70},
			{mod: ".L1::evict_last", minPTX: 74, minSM: 70},
			{mod: ".L1::no_allocate", minPTX: 74, minSM: 70},
			{mod: ".L2::cache_hint", minPTX: 74, minSM: 80},
			{mod: ".mmio", minPTX: 82, minSM: 70},
			{mod: ".b128", minPTX: 83, minSM: 70},
			{mod: ".v8", minPTX: 88, minSM: 100},
			{mod: ".async", minPTX: 81, minSM: 90},
			{mod: ".bulk", minPTX: 86, minSM: 100},
		},
	},
	"multimem": {
		forms:  []isaForm{{ops: "d m"}, {ops: "m a"}},
		minPTX: 81, minSM: 90,
		gates: []isaGate{{mod: ".async", minPTX: 93, minSM: 100}},
	},
	"prefetch": {
		forms:  []isaForm{{ops: "m"}},
		minPTX: 20, minSM: 20,
		gates: []isaGate{
			{mod: ".L2::evict_last", minPTX: 74, minSM: 80},
			{mod: ".L2::evict_normal", minPTX: 74, minSM: 80},
			{mod: ".tensormap", minPTX: 80, minSM: 90},
		},
	},
	"prefetchu":     {forms: []isaForm{{ops: "m"}}, minPTX: 20, minSM: 20},
	"applypriority": {forms: []isaForm{{ops: "m a"}}, minPTX: 74, minSM: 80},
	"discard":       {forms: []isaForm{{ops: "m a"}}, minPTX: 74, minSM: 80},
	"createpolicy": {
		forms: []isaForm{
			{when: ".fractional", ops: "d a?"},
			{when: ".range", ops: "d m a a"},
			{when: ".cvt", ops: "d a"},
		},
		minPTX: 74, minSM: 80,
	},
	"isspacep": {
		forms:  []isaForm{{ops: "q A"}},
		minPTX: 20, minSM: 20,
		gates: []isaGate{
			{mod: ".const", minPTX: 31},
			{mod: ".param", minPTX: 77, minSM: 70},
			{mod: ".param::entry", minPTX: 83, minSM: 70},
			{mod: ".shared::cta", minPTX: 78, minSM: 30},
			{mod: ".shared::cluster", minPTX: 78, minSM: 90},
		},
	},
	"cvta": {
		forms:  []isaForm{{ops: "d A"}},
		minPTX: 20, minSM: 20,
		gates: []isaGate{
			{mod: ".const", minPTX: 31},
			{mod: ".param", minPTX: 77, minSM: 70},
			{mod: ".param::entry", minPTX: 83, minSM: 70},
			{mod: ".shared::cta", minPTX: 78, minSM: 30},
			{mod: ".shared::cluster", minPTX: 78, minSM: 90},
		},
	},
	// cvt: d, a; packed forms d, a, b; .rs / cvt.pack.*.b32 forms d, a, b, c
	// (the x4 .rs forms use d, {a, b, e, f}, rbits which is also 3 operands).
	"cvt": {
		forms: []isaForm{{ops: "d a"}, {ops: "d a a"}, {ops: "d a a a"}},
		gates: []isaGate{{mod: ".pack", minPTX: 65, minSM: 72}},
	},
	"mapa":       {forms: []isaForm{{ops: "d A a"}}, minPTX: 78, minSM: 90},
	"getctarank": {forms: []isaForm{{ops: "d A"}}, minPTX: 78, minSM: 90},
	// cp.async{,.bulk{,.tensor}}, cp.reduce.async.bulk, commit/wait groups:
	// operand shapes vary widely ([tmap, {coords}] operands), so not validated.
	"cp": {
		forms:  []isaForm{{ops: "*? *? *? *? *? *? *? *? *? *?"}},
		minPTX: 70, minSM: 80,
		gates: []isaGate{
			{mod: ".bulk", minPTX: 80, minSM: 90},
			{mod: ".reduce", minPTX: 80, minSM: 90},
		},
	},
	"tensormap": {
		forms: []isaForm{
			{ops: "m a"},
			{ops: "m a a"},
			{when: ".cp_fenceproxy", ops: "m m a"},
		},
		minPTX: 83, minSM: 90,
	},

	// ---------------------------------------------------- texture and surface
	"tex": {forms: []isaForm{{ops: "* * *? *? *? *?"}}},
	"tld4": {
		forms:  []isaForm{{ops: "* * *? *?"}},
		minPTX: 22, minSM: 20,
		gates: []isaGate{
			{mod: ".a2d", minPTX: 43, minSM: 30},
			{mod: ".cube", minPTX: 43, minSM: 30},
			{mod: ".acube", minPTX: 43, minSM: 30},
		},
	},
	"txq": {
		forms:  []isaForm{{ops: "d m"}, {ops: "d m a"}},
		minPTX: 15,
		gates:  []isaGate{{mod: ".level", minPTX: 43, minSM: 30}},
	},
	"istypep": {forms: []isaForm{{ops: "q A"}}, minPTX: 40, minSM: 30},
	"suld": {
		forms:  []isaForm{{ops: "* *"}},
		minPTX: 15,
		gates: []isaGate{
			{mod: ".3d", minPTX: 30, minSM: 20},
			{mod: ".a1d", minPTX: 30, minSM: 20},
			{mod: ".a2d", minPTX: 30, minSM: 20},
		},
	},
	"sust": {
		forms:  []isaForm{{ops: "* *"}},
		minPTX: 15,
		gates: []isaGate{
			{mod: ".3d", minPTX: 30, minSM: 20},
			{mod: ".a1d", minPTX: 30, minSM: 20},
			{mod: ".a2d", minPTX: 30, minSM: 20},
		},
	},
	"sured": {forms: []isaForm{{ops: "* *"}}, minPTX: 20, minSM: 20},
	"suq":   {forms: []isaForm{{ops: "d m"}}, minPTX: 15},

	// ------------------------------------------------------------ control flow
	"bra":  {forms: []isaForm{{ops: "l"}}},
	"brx":  {forms: []isaForm{{ops: "a l"}}, minPTX: 60, minSM: 30},
	"call": {forms: []isaForm{{ops: "*? *? *? *? *? *? *? *? *? *?"}}},
	"ret":  {forms: []isaForm{{ops: ""}}},
	"exit": {forms: []isaForm{{ops: ""}}},

	// ------------------------------------ parallel synchronization/communication
	// bar.sync a{, b}; bar.arrive a, b; bar.warp.sync membermask;
	// bar.red.popc.u32 d, a{, b}, {!}c; bar.red.{and,or}.pred p, a{, b}, {!}c.
	"bar": {
		forms: []isaForm{
			{ops: "a a?"},
			{when: ".popc", ops: "d a p"},
			{when: ".popc", ops: "d a a p"},
			{when: ".and|.or", ops: "q a p"},
			{when: ".and|.or", ops: "q a a p"},
		},
		gates: []isaGate{
			{mod: ".arrive", minPTX: 20, minSM: 20},
			{mod: ".red", minPTX: 20, minSM: 20},
			{mod: ".cta", minPTX: 78},
			{mod: ".warp", minPTX: 60, minSM: 30},
		},
	},
	// barrier{.cta}.{sync,arrive,red} as bar; barrier.cluster.{arrive,wait} take no operands.
	"barrier": {
		forms: []isaForm{
			{ops: "a a?"},
			{when: ".popc", ops: "d a p"},
			{when: ".popc", ops: "d a a p"},
			{when: ".and|.or", ops: "q a p"},
			{when: ".and|.or", ops: "q a a p"},
			{when: ".cluster", ops: ""},
		},
		minPTX: 60, minSM: 30,
		gates: []isaGate{
			{mod: ".cta", minPTX: 78},
			{mod: ".cluster", minPTX: 78, minSM: 90},
			{mod: ".relaxed", minPTX: 80, minSM: 90},
			{mod: ".release", minPTX: 80, minSM: 90},
			{mod: ".acquire", minPTX: 80, minSM: 90},
		},
	},
	"membar": {
		forms:  []isaForm{{ops: ""}},
		minPTX: 14,
		gates: []isaGate{
			{mod: ".sys", minPTX: 20, minSM: 20},
			{mod: ".proxy", minPTX: 75, minSM: 60},
		},
	},
	// fence.proxy.<to>::<from>.acquire.scope [addr], size takes two operands.
	"fence": {
		forms:  []isaForm{{ops: ""}, {ops: "m a"}},
		minPTX: 60, minSM: 70,
		gates: []isaGate{
			{mod: ".cluster", minPTX: 78, minSM: 90},
			{mod: ".proxy", minPTX: 75, minSM: 70},
			{mod: ".mbarrier_init", minPTX: 80, minSM: 90},
			{mod: ".async", minPTX: 80, minSM: 90},
			{mod: ".tensormap::generic", minPTX: 83, minSM: 90},
			{mod: ".sync_restrict::shared::cta", minPTX: 86, minSM: 90},
			{mod: ".sync_restrict::shared::cluster", minPTX: 86, minSM: 90},
		},
	},
	// atom d, [a], b{, cache-policy}; atom.cas d, [a], b, c.
	"atom": {
		forms: []isaForm{
			{ops: "d m a a?"},
			{when: ".cas", ops: "d m a a"},
		},
		minPTX: 11, minSM: 11,
		gates: []isaGate{
			{mod: ".shared", minPTX: 12, minSM: 12},
			{mod: ".shared::cta", minPTX: 78, minSM: 30},
			{mod: ".shared::cluster", minPTX: 78, minSM: 90},
			{mod: ".relaxed", minPTX: 60, minSM: 70},
			{mod: ".acquire", minPTX: 60, minSM: 70},
			{mod: ".release", minPTX: 60, minSM: 70},
			{mod: ".acq_rel", minPTX: 60, minSM: 70},
			{mod: ".cta", minPTX: 50, minSM: 60},
			{mod: ".gpu", minPTX: 50, minSM: 60},
			{mod: ".sys", minPTX: 50, minSM: 60},
			{mod: ".cluster", minPTX: 78, minSM: 90},
			{mod: ".L2::cache_hint", minPTX: 74, minSM: 80},
			{mod: ".f64", minPTX: 50, minSM: 60},
			{mod: ".f16x2", minPTX: 62, minSM: 60},
			{mod: ".f16", minPTX: 63, minSM: 70},
			{mod: ".b16", minPTX: 63, minSM: 70},
			{mod: ".bf16", minPTX: 78, minSM: 90},
			{mod: ".bf16x2", minPTX: 78, minSM: 90},
			{mod: ".v2", minPTX: 81, minSM: 90},
			{mod: ".v4", minPTX: 81, minSM: 90},
			{mod: ".v8", minPTX: 81, minSM: 90},
			{mod: ".b128", minPTX: 83, minSM: 90},
		},
	},
	// red [a], b{, cache-policy}; red.async [a], b, [mbar] or red.async.release... [a], b.
	"red": {
		forms: []isaForm{
			{ops: "m a a?"},
			{when: ".async", ops: "m a m"},
			{when: ".async", ops: "m a"},
		},
		minPTX: 12, minSM: 11,
		gates: []isaGate{
			{mod: ".shared", minPTX: 12, minSM: 12},
			{mod: ".shared::cta", minPTX: 78, minSM: 30},
			{mod: ".shared::cluster", minPTX: 78, minSM: 90},
			{mod: ".relaxed", minPTX: 60, minSM: 70},
			{mod: ".release", minPTX: 60, minSM: 70},
			{mod: ".cta", minPTX: 50, minSM: 60},
			{mod: ".gpu", minPTX: 50, minSM: 60},
			{mod: ".sys", minPTX: 50, minSM: 60},
			{mod: ".cluster", minPTX: 78, minSM: 90},
			{mod: ".L2::cache_hint", minPTX: 74, minSM: 80},
			{mod: ".f64", minPTX: 50, minSM: 60},
			{mod: ".f16x2", minPTX: 62, minSM: 60},
			{mod: ".f16", minPTX: 63, minSM: 70},
			{mod: ".bf16", minPTX: 78, minSM: 90},
			{mod: ".bf16x2", minPTX: 78, minSM: 90},
			{mod: ".v2", minPTX: 81, minSM: 90},
			{mod: ".v4", minPTX: 81, minSM: 90},
			{mod: ".v8", minPTX: 81, minSM: 90},
			{mod: ".async", minPTX: 81, minSM: 90},
			{mod: ".mmio", minPTX: 87, minSM: 100},
		},
	},
	// vote.{all,any,uni}.pred d, {!}a; vote.ballot.b32 d, {!}a; .sync adds membermask.
	"vote": {
		forms: []isaForm{
			{ops: "q p"},
			{ops: "q p a"},
			{when: ".ballot", ops: "d p"},
			{when: ".ballot", ops: "d p a"},
		},
		minPTX: 12, minSM: 12,
		gates: []isaGate{
			{mod: ".ballot", minSM: 20},
			{mod: ".sync", minPTX: 60, minSM: 30},
		},
	},
	// match.any.sync d, a, mask; match.all.sync d[|p], a, mask.
	"match": {
		forms: []isaForm{
			{ops: "d a a"},
			{when: ".all", ops: "* a a"},
		},
		minPTX: 60, minSM: 70,
	},
	"activemask": {forms: []isaForm{{ops: "d"}}, minPTX: 62, minSM: 30},
	"redux": {
		forms:  []isaForm{{ops: "d a a"}},
		minPTX: 70, minSM: 80,
		gates: []isaGate{
			{mod: ".f32", minPTX: 86, minSM: 100},
			{mod: ".abs", minPTX: 86, minSM: 100},
			{mod: ".NaN", minPTX: 86, minSM: 100},
		},
	},
	"griddepcontrol": {forms: []isaForm{{ops: ""}}, minPTX: 78, minSM: 90},
	"elect":          {forms: []isaForm{{ops: "* a"}}, minPTX: 80, minSM: 90},
	// mbarrier.{init,inval,arrive,arrive_drop,expect_tx,complete_tx,test_wait,
	// try_wait,pending_count,check_layout}: operand shapes differ per sub-op.
	"mbarrier": {
		forms:  []isaForm{{ops: "* *? *? *? *? *?"}},
		minPTX: 70, minSM: 80,
		gates: []isaGate{
			{mod: ".parity", minPTX: 71, minSM: 80},
			{mod: ".try_wait", minPTX: 78, minSM: 90},
			{mod: ".expect_tx", minPTX: 80, minSM: 90},
			{mod: ".complete_tx", minPTX: 80, minSM: 90},
			{mod: ".shared::cluster", minPTX: 80, minSM: 90},
			{mod: ".cluster", minPTX: 80, minSM: 90},
		},
	},
	// try_cancel [addr], [mbar]; query_cancel p|d, handle.
	"clusterlaunchcontrol": {
		forms: []isaForm{
			{ops: "* a"},
			{when: ".try_cancel", ops: "m m"},
		},
		minPTX: 86, minSM: 100,
	},

	// ------------------------------------------------- warp-level matrix (MMA)
	"wmma": {
		forms:  []isaForm{{ops: "* * *? *?"}},
		minPTX: 60, minSM: 70,
		gates: []isaGate{
			{mod: ".m8n32k16", minPTX: 61, minSM: 70},
			{mod: ".m32n8k16", minPTX: 61, minSM: 70},
			{mod: ".s8", minPTX: 63, minSM: 72},
			{mod: ".u8", minPTX: 63, minSM: 72},
			{mod: ".s32", minPTX: 63, minSM: 72},
			{mod: ".s4", minPTX: 63, minSM: 75},
			{mod: ".u4", minPTX: 63, minSM: 75},
			{mod: ".b1", minPTX: 63, minSM: 75},
			{mod: ".m8n8k32", minPTX: 63, minSM: 75},
			{mod: ".m8n8k128", minPTX: 63, minSM: 75},
			{mod: ".m8n8k4", minPTX: 70, minSM: 80},
			{mod: ".m16n16k8", minPTX: 70, minSM: 80},
			{mod: ".bf16", minPTX: 70, minSM: 80},
			{mod: ".tf32", minPTX: 70, minSM: 80},
			{mod: ".f64", minPTX: 70, minSM: 80},
		},
	},
	// mma d, a, b, c (vector braces); block-scale and sparse forms take more.
	"mma": {
		forms: []isaForm{
			{ops: "d a a a"},
			{when: ".block_scale", ops: "* * * * *? *? *? *? *? *?"},
			{when: ".sp|.sp::ordered_metadata", ops: "* * * * *? *? *? *? *? *?"},
		},
		minPTX: 64, minSM: 70,
		gates: []isaGate{
			{mod: ".m16n8k8", minPTX: 65, minSM: 75},
			{mod: ".m8n8k16", minPTX: 65, minSM: 75},
			{mod: ".m8n8k32", minPTX: 65, minSM: 75},
			{mod: ".m8n8k128", minPTX: 70, minSM: 75},
			{mod: ".m16n8k4", minPTX: 70, minSM: 80},
			{mod: ".m16n8k16", minPTX: 70, minSM: 80},
			{mod: ".m16n8k32", minPTX: 70, minSM: 80},
			{mod: ".m16n8k64", minPTX: 70, minSM: 80},
			{mod: ".m16n8k128", minPTX: 70, minSM: 80},
			{mod: ".m16n8k256", minPTX: 70, minSM: 80},
			{mod: ".e4m3", minPTX: 84, minSM: 89},
			{mod: ".e5m2", minPTX: 84, minSM: 89},
			{mod: ".block_scale", minPTX: 87, minSM: 120},
		},
	},
	"ldmatrix": {
		forms:  []isaForm{{ops: "d m"}},
		minPTX: 65, minSM: 75,
		gates: []isaGate{
			{mod: ".shared::cta", minPTX: 78},
			{mod: ".m16n16", minPTX: 86, minSM: 100},
			{mod: ".m8n16", minPTX: 86, minSM: 100},
			{mod: ".b8", minPTX: 86, minSM: 100},
		},
	},
	"stmatrix": {
		forms:  []isaForm{{ops: "m a"}},
		minPTX: 78, minSM: 90,
		gates: []isaGate{
			{mod: ".m16n8", minPTX: 86, minSM: 100},
			{mod: ".b8", minPTX: 86, minSM: 100},
		},
	},
	"movmatrix": {forms: []isaForm{{ops: "d a"}}, minPTX: 78, minSM: 75},
	// wgmma.{fence,commit_group,wait_group,mma_async{,.sp}}: large brace operands.
	"wgmma": {forms: []isaForm{{ops: "*? *? *? *? *? *? *? *? *? *?"}}, minPTX: 80, minSM: 90},
	// tcgen05.{alloc,dealloc,relinquish_alloc_permit,ld,st,cp,mma,commit,...}.
	"tcgen05": {forms: []isaForm{{ops: "*? *? *? *? *? *? *? *? *? *?"}}, minPTX: 86, minSM: 100},

	// ------------------------------------------------------- stack manipulation
	"stacksave":    {forms: []isaForm{{ops: "d"}}, minPTX: 73, minSM: 52},
	"stackrestore": {forms: []isaForm{{ops: "a"}}, minPTX: 73, minSM: 52},
	"alloca":       {forms: []isaForm{{ops: "d a"}, {ops: "d a i"}}, minPTX: 73, minSM: 52},

	// ---------------------------------------------------------- video (scalar)
	// Operands carry byte/half-word selectors (r2.b0, r1.h10), so not validated.
	"vadd":     {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	"vsub":     {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	"vabsdiff": {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	"vmin":     {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	"vmax":     {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	"vshl":     {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	"vshr":     {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	"vmad":     {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	"vset":     {forms: []isaForm{{ops: "* * * *?"}}, minPTX: 20, minSM: 20},
	// ------------------------------------------------------------ video (SIMD)
	"vadd2":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vsub2":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vavrg2":    {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vabsdiff2": {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vmin2":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vmax2":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vset2":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vadd4":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vsub4":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vavrg4":    {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vabsdiff4": {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vmin4":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vmax4":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},
	"vset4":     {forms: []isaForm{{ops: "* * * *"}}, minPTX: 30, minSM: 30},

	// ----------------------------------------------------------- miscellaneous
	"brkpt":     {forms: []isaForm{{ops: ""}}, minSM: 11},
	"nanosleep": {forms: []isaForm{{ops: "a"}}, minPTX: 63, minSM: 70},
	"pmevent": {
		forms:  []isaForm{{ops: "i"}},
		minPTX: 14,
		gates:  []isaGate{{mod: ".mask", minPTX: 30, minSM: 20}},
	},
	"trap":       {forms: []isaForm{{ops: ""}}},
	"setmaxnreg": {forms: []isaForm{{ops: "i"}}, minPTX: 80, minSM: 90},
}
