package pipeline

// Generated from the conformance test's dump (ORILAB_HWTRUTH_FULL=1
// ORILAB_HWTRUTH_DUMP=FILE) by counting the programs whose only family is
// approx and listing every other program that differs with its verdict;
// see TestHWTruthConformance and the report of issue 18 for what each
// family is.

const (
	hwApproxO0 = 333
	hwApproxO3 = 334
)

// hwResidual maps "O<level> <program>" to the program's verdict: the
// differences not explained yet. Most are a value that differed earlier
// in the program and flowed into the statement named (the provenance names
// the last statement that computed the value, not the first that went
// wrong).
var hwResidual = map[string]string{
	"O0 fuzz5550054": "mad.lo.u32",
	"O0 fuzz5550209": "approx,bfi.b64,cvt.u16.u32,madc.hi.u32,min.u16,mul.wide.s16,mul.wide.u32,selp.u32",
	"O0 fuzz5550302": "selp.u32",
	"O0 fuzz5550303": "approx,atom.sys.exch.b32,fns.b32,ld.global.u32",
	"O0 fuzz5550319": "approx,ld.global.u64,subc.u32",
	"O0 fuzz5550489": "ld.global.u32",
	"O0 fuzz5550537": "approx,cvt.u16.u32",
	"O0 fuzz5550625": "approx,cvt.f32.f16,cvt.rn.f32.s32,ld.global.f32,ld.global.f64,mad.lo.u32,selp.s32,selp.u32,unattributed",
	"O0 fuzz5550689": "approx,shf.r.clamp.b32",
	"O0 fuzz5550705": "activemask.b32",
	"O0 fuzz5550748": "selp.f32,setp.ne.u32",
	"O0 fuzz5550794": "approx,shl.b64",
	"O0 fuzz5550890": "approx,vote.sync.all.pred",
	"O0 fuzz5550914": "approx,red.relaxed.gpu.global.min.u32",
	"O0 fuzz5551048": "add.u32,addc.u32,bfe.s32,ld.global.nc.u32,ld.global.u32,ld.param.f32,mad.lo.u32,setp.ne.u32,vote.sync.uni.pred",
	"O0 fuzz5551097": "mad.lo.u32",
	"O0 fuzz5551106": "approx,div.s32",
	"O0 fuzz5551119": "approx,atom.global.min.s32,unattributed",
	"O0 fuzz5551123": "addc.u32,mad.lo.u32",
	"O0 fuzz5551125": "approx,xor.b32",
	"O0 fuzz5551189": "activemask.b32,mad.wide.u32",
	"O0 fuzz5551241": "activemask.b32,approx,ld.global.u32,mul.rn.f64,selp.b32",
	"O0 fuzz5551248": "approx,bfind.shiftamt.u32,ld.global.u32,mad.lo.u32,mov.u32,mul.lo.u32,shr.u32,sub.rn.sat.f16,sub.s32,xor.b32",
	"O0 fuzz5551300": "approx,sub.rn.f16x2",
	"O0 fuzz5551336": "add.u32,approx,mov.f32,mul.wide.s16,slct.f32.f32,xor.b32",
	"O0 fuzz5551367": "approx,selp.u32,st.local.u32,xor.b32",
	"O0 fuzz5551370": "approx,cvt.f64.f32,unattributed",
	"O0 fuzz5551509": "ld.global.nc.u8,selp.u32",
	"O0 fuzz5551537": "setp.gtu.f16",
	"O0 fuzz5551567": "fns.b32",
	"O0 fuzz5551595": "approx,cnot.b32,cvt.rn.f32.f64,ld.global.f32,ld.global.s32,ld.param.f32,ld.u8,mad.rm.ftz.f32,mov.u32,mul.hi.s64",
	"O0 fuzz5551626": "f32-nan-pattern",
	"O0 fuzz5551637": "unattributed",
	"O0 fuzz5551649": "approx,ld.global.nc.u64",
	"O0 fuzz5551687": "approx,unattributed",
	"O0 fuzz5551797": "mul.rm.f64",
	"O0 fuzz5551842": "bfi.b64,shl.b64",
	"O3 fuzz5550054": "mad.lo.u32",
	"O3 fuzz5550209": "approx,bfi.b64,cvt.u16.u32,madc.hi.u32,min.u16,mul.wide.s16,mul.wide.u32,selp.u32",
	"O3 fuzz5550302": "selp.u32",
	"O3 fuzz5550303": "approx,atom.sys.exch.b32,fns.b32,ld.global.u32",
	"O3 fuzz5550319": "approx,ld.global.u64,subc.u32",
	"O3 fuzz5550489": "ld.global.u32",
	"O3 fuzz5550625": "approx,cvt.f32.f16,cvt.rn.f32.s32,ld.global.f32,ld.global.f64,mad.lo.u32,selp.s32,selp.u32,unattributed",
	"O3 fuzz5550689": "approx,shf.r.clamp.b32",
	"O3 fuzz5550705": "activemask.b32",
	"O3 fuzz5550748": "selp.f32,setp.ne.u32",
	"O3 fuzz5550794": "approx,shl.b64",
	"O3 fuzz5550890": "approx,vote.sync.all.pred",
	"O3 fuzz5550914": "approx,red.relaxed.gpu.global.min.u32",
	"O3 fuzz5551048": "add.u32,bfe.s32,ld.global.nc.u32,ld.global.u32,mad.lo.u32,mov.f32,setp.ne.u32,st.global.v4.u32,vote.sync.uni.pred",
	"O3 fuzz5551097": "mad.lo.u32",
	"O3 fuzz5551106": "approx,div.s32",
	"O3 fuzz5551119": "approx,atom.global.min.s32,unattributed",
	"O3 fuzz5551123": "addc.u32,mad.lo.u32",
	"O3 fuzz5551125": "approx,xor.b32",
	"O3 fuzz5551189": "activemask.b32,mad.wide.u32",
	"O3 fuzz5551241": "activemask.b32,approx,ld.global.u32,mul.rn.f64,selp.b32",
	"O3 fuzz5551248": "approx,bfind.shiftamt.u32,ld.global.u32,mad.lo.u32,mov.u32,mul.lo.u32,shr.u32,st.local.u32,sub.rn.sat.f16,sub.s32,xor.b32",
	"O3 fuzz5551300": "approx,sub.rn.f16x2",
	"O3 fuzz5551336": "add.u32,approx,mov.f32,mul.wide.s16,slct.f32.f32,xor.b32",
	"O3 fuzz5551367": "approx,selp.u32,st.local.u32,xor.b32",
	"O3 fuzz5551370": "approx,cvt.f64.f32,unattributed",
	"O3 fuzz5551509": "approx,mul.rm.f64,selp.u32",
	"O3 fuzz5551537": "setp.gtu.f16",
	"O3 fuzz5551567": "fns.b32",
	"O3 fuzz5551595": "approx,cnot.b32,cvt.rn.f32.f64,ld.global.f32,ld.global.s32,ld.u8,mad.rm.ftz.f32,mov.f32,mov.u32,mul.hi.s64",
	"O3 fuzz5551626": "f32-nan-pattern",
	"O3 fuzz5551637": "unattributed",
	"O3 fuzz5551649": "approx,ld.global.nc.u64",
	"O3 fuzz5551687": "approx,unattributed",
	"O3 fuzz5551797": "mul.rm.f64",
	"O3 fuzz5551842": "bfi.b64,shl.b64",
}
