package lower

// sync.go lowers CTA barriers, memory barriers and the warp collectives:
//
//	bar.sync / bar / barrier.sync{.aligned} a{, b}   -> BAR.SYNC a[, b]
//	bar.arrive / barrier.arrive a, b                 -> BAR.ARV a, b
//	bar.red / barrier.red                            -> BAR.RED.<POPC|AND|OR> (see barRedHasResult)
//	bar.warp.sync mask                               -> WARPSYNC mask
//	membar.cta/.gl/.sys, fence{.sc|.acq_rel}.<scope> -> MEMBAR.CTA/GPU/SYS
//	fence.proxy.alias                                -> nothing (see lowerFence)
//	vote{.sync}.all/.any/.uni.pred p, {!}q           -> VOTE.ALL/ANY/EQ RZ, p = q
//	vote{.sync}.ballot.b32 d, {!}q                   -> VOTE.ANY d, PT = q
//	activemask.b32 d                                 -> VOTE.ANY d, PT = PT
//	shfl{.sync}.<mode>.b32 d[|p], a, b, c            -> SHFL.<IDX|UP|DOWN|BFLY> p, d = a, b, c
//	redux.sync.<op>.<type> d, a                      -> REDUX.<SUM|MIN|MAX|AND|OR|XOR>[.S32] d = a
//	match.any/.all.sync.<b32|b64> d[|p], a           -> MATCH.<ANY|ALL>[.U64] d[, p] = a
//	nanosleep.u32 t                                  -> NANOSLEEP t
//	elect.sync d|p, mask                             -> a VOTE/BREV/FLO sequence (see lowerElect)
//
// Membermasks: the .sync forms of vote, shfl, redux, match and elect take
// a membermask that SASS's VOTE/SHFL/REDUX/MATCH do not encode (their Ori
// signatures have no slot for it). As in ptxas output on sm_70+, the mask
// goes on a WARPSYNC mask emitted just before the collective, under the
// same guard: the threads of the mask synchronize there (PTX: "wait until
// all non-exited threads in membermask have executed the instruction"),
// then the collective runs over the converged active threads. The WARPSYNC
// is emitted for every mask, all-ones included, so the mask survives to
// later phases, which may drop a provably redundant one.
//
// Semantics: the warp opcodes as SEMANTICS.md defines them, made precise
// for the forms emitted here. "Active" lanes are the lanes of the warp
// executing the instruction with a true guard.
//
//	SHFL.<mode> p, d = a, b, c: the PTX shfl.sync computation: with
//	    lane = this lane, bval = b[4:0], cval = c[4:0], mask = c[12:8],
//	    maxLane = (lane & mask) | (cval & ~mask), minLane = lane & mask:
//	    UP j = lane - bval, p = j >= maxLane; DOWN j = lane + bval,
//	    p = j <= maxLane; BFLY j = lane ^ bval, p = j <= maxLane; IDX j =
//	    minLane | (bval & ~mask), p = j <= maxLane. If !p, j = lane.
//	    d = a of lane j (unspecified if lane j is not active).
//	VOTE.ALL d, p = q / VOTE.ANY / VOTE.EQ: d = the ballot (bit i = q of
//	    active lane i, 0 for inactive lanes); p = all active q true / any
//	    true / all active q equal.
//	REDUX.SUM d = a: sum mod 2^32 over the active lanes (.S32 gives the
//	    same bits); REDUX.MIN/MAX unsigned, REDUX.MIN.S32/MAX.S32 signed;
//	    REDUX.AND/OR/XOR bitwise. Every active lane gets the result.
//	MATCH.ANY[.U64] d = a: d = mask of active lanes whose a (32-bit, or
//	    the 64-bit pair with .U64) equals this lane's a.
//	MATCH.ALL[.U64] d, p = a: if a is equal in all active lanes, d = the
//	    active mask and p = true; otherwise d = 0 and p = false.
//	BAR.SYNC a[, b]: wait at CTA barrier a (0-15) until b threads (a
//	    multiple of 32; all threads of the CTA when absent) have arrived;
//	    orders memory like membar.cta. BAR.ARV a, b: arrive without
//	    waiting. When a and b are both registers SASS reads them from
//	    one: BAR.SYNC r, r (the same register twice) takes the barrier
//	    from r's bits 0-15 and the count from bits 16-27, and the
//	    lowering packs them as ptxas does (barOperands).
//	BAR.RED.POPC d = a[, b], q: BAR.SYNC that also returns in every thread
//	    the number of participating threads with q true; BAR.RED.AND/OR
//	    p = a[, b], q: p = AND/OR of q over the participating threads.
//	MEMBAR.CTA/GPU/SYS: memory fence at that scope; no effect on the
//	    results of a single thread.
//	WARPSYNC m: the active lanes in m wait until every non-exited lane of
//	    m has reached a WARPSYNC with the same mask; then they continue
//	    converged.
//	NANOSLEEP t: suspend the thread for up to t nanoseconds (may be 0).
import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerBar, "bar", "barrier")
	register(lowerMembar, "membar")
	register(lowerFence, "fence")
	register(lowerVote, "vote")
	register(lowerActivemask, "activemask")
	register(lowerShfl, "shfl")
	register(lowerRedux, "redux")
	register(lowerMatch, "match")
	register(lowerNanosleep, "nanosleep")
	register(lowerElect, "elect")
}

// barRedHasResult says whether the Ori opcode table lets BAR have
// results. BAR.RED.POPC d = ... and BAR.RED.AND/OR p = ... need one, but
// the table currently declares BAR with no results, so bar.red is
// reported unsupported until that changes (then set this to true).
const barRedHasResult = true

// syncWarpMask emits WARPSYNC for the membermask operand o of a .sync
// warp instruction.
func (c *fn) syncWarpMask(o *ptx.Operand) error {
	m, err := c.src(o, ".b32")
	if err != nil {
		return err
	}
	c.emit(ori.OpWARPSYNC, nil, nil, word(m, 0))
	return nil
}

// syncPredSrc returns a predicate source: a register (possibly negated)
// or a literal, which becomes PT or !PT.
func (c *fn) syncPredSrc(o *ptx.Operand) (ori.Operand, error) {
	if o.Kind == ptx.OpInt {
		v, _ := o.Int()
		p := ori.R(ori.PT)
		p.Not = v == 0
		return p, nil
	}
	r, _, ok := c.reg(o)
	if !ok || !r.pred {
		return ori.Operand{}, c.l.errorf(o.Pos, "expected a predicate")
	}
	p := ori.R(r.reg)
	p.Not = o.Not
	return p, nil
}

// syncPair splits a d|p destination; p is nil when absent.
func syncPair(o *ptx.Operand) (d, p *ptx.Operand) {
	if o.Kind == ptx.OpPair && len(o.Elems) == 2 {
		return o.Elems[0], o.Elems[1]
	}
	return o, nil
}

func lowerBar(c *fn, in *ptx.Instr) error {
	if in.HasMod(".cluster") {
		return c.l.unsupported(in.OpPos, "cluster barriers")
	}
	if in.HasMod(".warp") {
		if len(in.Args) != 1 {
			return c.l.errorf(in.OpPos, "bar.warp.sync takes a membermask")
		}
		return c.syncWarpMask(in.Args[0])
	}
	srcs := func(args []*ptx.Operand) ([]ori.Operand, error) {
		var out []ori.Operand
		for _, a := range args {
			v, err := c.src(a, ".u32")
			if err != nil {
				return nil, err
			}
			out = append(out, word(v, 0))
		}
		return out, nil
	}
	if in.HasMod(".red") {
		if !barRedHasResult {
			return c.l.unsupported(in.OpPos, "%s.red: the Ori BAR opcode has no result operand yet", in.Op)
		}
		if len(in.Args) < 3 || len(in.Args) > 4 {
			return c.l.errorf(in.OpPos, "%s.red takes a result, a barrier, an optional count and a predicate", in.Op)
		}
		kind, dt := "", ".u32"
		switch {
		case in.HasMod(".popc"):
			kind = "POPC"
		case in.HasMod(".and"):
			kind, dt = "AND", ".pred"
		case in.HasMod(".or"):
			kind, dt = "OR", ".pred"
		default:
			return c.l.errorf(in.OpPos, "%s.red needs .popc, .and or .or", in.Op)
		}
		n := len(in.Args)
		ops, err := srcs(in.Args[1 : n-1])
		if err != nil {
			return err
		}
		ops = c.barOperands(ops)
		q, err := c.syncPredSrc(in.Args[n-1])
		if err != nil {
			return err
		}
		d, err := c.dst(in.Args[0], dt)
		if err != nil {
			return err
		}
		c.emit(ori.OpBAR, []string{"RED", kind}, []ori.Operand{ori.R(d.Wide(1))}, append(ops, q)...)
		return nil
	}
	if len(in.Args) < 1 || len(in.Args) > 2 {
		return c.l.errorf(in.OpPos, "%s takes a barrier and an optional thread count", in.Op)
	}
	ops, err := srcs(in.Args)
	if err != nil {
		return err
	}
	ops = c.barOperands(ops)
	if in.HasMod(".arrive") {
		if len(ops) != 2 {
			return c.l.errorf(in.OpPos, "%s.arrive needs a thread count", in.Op)
		}
		c.emit(ori.OpBAR, []string{"ARV"}, nil, ops...)
		return nil
	}
	// bar, bar.sync, barrier.sync{.aligned}: the non-aligned barrier.sync
	// differs only in what the hardware tolerates for divergent callers.
	c.emit(ori.OpBAR, []string{"SYNC"}, nil, ops...)
	return nil
}

// barOperands packs a barrier and a thread count that are both
// registers into one, as the only SASS word with both in registers reads
// them (sass's barForms): r = (b << 16) & 0xfff0000 | a & ^0xfff0000,
// ptxas 13.0's SHF and LOP3.LUT ... 0xe2 (measured on bar.sync %r1, %r2
// at -O3 on sm_80 and sm_90); the result is BAR r, r.
func (c *fn) barOperands(ops []ori.Operand) []ori.Operand {
	if len(ops) != 2 || ops[0].Kind != ori.OpdReg || ops[1].Kind != ori.OpdReg {
		return ops
	}
	hi, packed := c.newReg(1), c.newReg(1)
	c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(hi)}, ops[1], ori.Imm(16), ori.R(ori.RZ))
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(packed)}, ori.R(hi), ori.Imm(0xfff0000), ops[0], ori.Imm(0xe2), bitsNotPT)
	return []ori.Operand{ori.R(packed), ori.R(packed)}
}

// syncScope maps a PTX scope modifier to MEMBAR's.
func syncScope(in *ptx.Instr) (string, bool) {
	for _, m := range in.Mods {
		switch m {
		case ".cta":
			return "CTA", true
		case ".gl", ".gpu", ".cluster":
			// A cluster is a set of CTAs of one grid on one GPU: a GPU
			// fence orders at least as much.
			return "GPU", true
		case ".sys":
			return "SYS", true
		}
	}
	return "", false
}

func lowerMembar(c *fn, in *ptx.Instr) error {
	if in.HasMod(".proxy") {
		return lowerFence(c, in)
	}
	sc, ok := syncScope(in)
	if !ok {
		return c.l.errorf(in.OpPos, "membar needs .cta, .gl or .sys")
	}
	c.emit(ori.OpMEMBAR, []string{sc}, nil)
	return nil
}

// lowerFence lowers fence{.sc,.acq_rel}.scope to MEMBAR at the scope.
// fence.proxy.alias (and membar.proxy.alias) orders accesses made through
// different virtual addresses of the same physical memory; Ori's memory
// has exactly one address per location in each window and no
// per-address caching, so there is nothing to order and it lowers to
// nothing. The other proxy fences involve the async/tensormap proxies,
// which the lowering does not support.
func lowerFence(c *fn, in *ptx.Instr) error {
	if in.HasMod(".proxy") {
		if in.HasMod(".alias") && len(in.Args) == 0 {
			return nil
		}
		return c.l.unsupported(in.OpPos, "%s.proxy fences other than .alias", in.Op)
	}
	for _, m := range in.Mods {
		switch m {
		case ".sc", ".acq_rel", ".cta", ".gpu", ".sys", ".cluster":
		default:
			return c.l.unsupported(in.OpPos, "fence%s", m)
		}
	}
	sc, ok := syncScope(in)
	if !ok || len(in.Args) != 0 {
		return c.l.errorf(in.OpPos, "fence needs a scope and no operands")
	}
	c.emit(ori.OpMEMBAR, []string{sc}, nil)
	return nil
}

func lowerVote(c *fn, in *ptx.Instr) error {
	sync := in.HasMod(".sync")
	want := 2
	if sync {
		want = 3
	}
	if len(in.Args) != want {
		return c.l.errorf(in.OpPos, "vote takes %d operands", want)
	}
	q, err := c.syncPredSrc(in.Args[1])
	if err != nil {
		return err
	}
	if sync {
		if err := c.syncWarpMask(in.Args[2]); err != nil {
			return err
		}
	}
	if in.HasMod(".ballot") {
		d, err := c.dst(in.Args[0], ".b32")
		if err != nil {
			return err
		}
		c.emit(ori.OpVOTE, []string{"ANY"}, []ori.Operand{ori.R(d.Word(0)), ori.R(ori.PT)}, q)
		return nil
	}
	mode := ""
	switch {
	case in.HasMod(".all"):
		mode = "ALL"
	case in.HasMod(".any"):
		mode = "ANY"
	case in.HasMod(".uni"):
		mode = "EQ"
	default:
		return c.l.errorf(in.OpPos, "vote needs .all, .any, .uni or .ballot")
	}
	p, err := c.dst(in.Args[0], ".pred")
	if err != nil {
		return err
	}
	c.emit(ori.OpVOTE, []string{mode}, []ori.Operand{ori.R(ori.RZ), ori.R(p)}, q)
	return nil
}

func lowerActivemask(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 1 {
		return c.l.errorf(in.OpPos, "activemask takes one operand")
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	// The ballot of "true" is the set of active lanes.
	c.emit(ori.OpVOTE, []string{"ANY"}, []ori.Operand{ori.R(d.Word(0)), ori.R(ori.PT)}, ori.R(ori.PT))
	return nil
}

func lowerShfl(c *fn, in *ptx.Instr) error {
	mode := ""
	switch {
	case in.HasMod(".idx"):
		mode = "IDX"
	case in.HasMod(".up"):
		mode = "UP"
	case in.HasMod(".down"):
		mode = "DOWN"
	case in.HasMod(".bfly"):
		mode = "BFLY"
	default:
		return c.l.errorf(in.OpPos, "shfl needs .idx, .up, .down or .bfly")
	}
	sync := in.HasMod(".sync")
	want := 4
	if sync {
		want = 5
	}
	if len(in.Args) != want {
		return c.l.errorf(in.OpPos, "shfl takes %d operands", want)
	}
	var ops [3]ori.Operand
	for i := range ops {
		v, err := c.src(in.Args[1+i], ".b32")
		if err != nil {
			return err
		}
		ops[i] = word(v, 0)
	}
	ops[0] = c.asReg(ops[0])
	if sync {
		if err := c.syncWarpMask(in.Args[4]); err != nil {
			return err
		}
	}
	dArg, pArg := syncPair(in.Args[0])
	d, err := c.dst(dArg, ".b32")
	if err != nil {
		return err
	}
	p := ori.PT
	if pArg != nil {
		if p, err = c.dst(pArg, ".pred"); err != nil {
			return err
		}
	}
	c.emit(ori.OpSHFL, []string{mode}, []ori.Operand{ori.R(p), ori.R(d.Word(0))}, ops[0], ops[1], ops[2])
	return nil
}

func lowerRedux(c *fn, in *ptx.Instr) error {
	if !in.HasMod(".sync") || len(in.Args) != 3 {
		return c.l.errorf(in.OpPos, "redux.sync takes a destination, a source and a membermask")
	}
	t := lastType(in)
	if t != ".u32" && t != ".s32" && t != ".b32" {
		return c.l.unsupported(in.OpPos, "redux.sync%s", t)
	}
	var mods []string
	switch {
	case in.HasMod(".add"):
		mods = []string{"SUM"}
	case in.HasMod(".min"):
		mods = []string{"MIN"}
	case in.HasMod(".max"):
		mods = []string{"MAX"}
	case in.HasMod(".and"):
		mods = []string{"AND"}
	case in.HasMod(".or"):
		mods = []string{"OR"}
	case in.HasMod(".xor"):
		mods = []string{"XOR"}
	default:
		return c.l.errorf(in.OpPos, "redux.sync needs an operation")
	}
	if t == ".s32" && mods[0] != "AND" && mods[0] != "OR" && mods[0] != "XOR" {
		mods = append(mods, "S32")
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	if err := c.syncWarpMask(in.Args[2]); err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	c.emit(ori.OpREDUX, mods, []ori.Operand{ori.R(d.Word(0))}, c.asReg(word(a, 0)))
	return nil
}

func lowerMatch(c *fn, in *ptx.Instr) error {
	if !in.HasMod(".sync") || len(in.Args) != 3 {
		return c.l.errorf(in.OpPos, "match.sync takes a destination, a value and a membermask")
	}
	t := lastType(in)
	words := 1
	switch t {
	case ".b32":
	case ".b64":
		words = 2
	default:
		return c.l.errorf(in.OpPos, "match.sync needs .b32 or .b64")
	}
	mode := "ANY"
	if in.HasMod(".all") {
		mode = "ALL"
	}
	mods := []string{mode}
	if words == 2 {
		mods = append(mods, "U64")
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	a = c.regOperand(a, words)
	if err := c.syncWarpMask(in.Args[2]); err != nil {
		return err
	}
	dArg, pArg := syncPair(in.Args[0])
	if pArg != nil && mode != "ALL" {
		return c.l.errorf(in.OpPos, "only match.all has a predicate result")
	}
	d, err := c.dst(dArg, ".b32")
	if err != nil {
		return err
	}
	dsts := []ori.Operand{ori.R(d.Word(0))}
	if pArg != nil {
		p, err := c.dst(pArg, ".pred")
		if err != nil {
			return err
		}
		dsts = append(dsts, ori.R(p))
	}
	c.emit(ori.OpMATCH, mods, dsts, a)
	return nil
}

func lowerNanosleep(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 1 {
		return c.l.errorf(in.OpPos, "nanosleep takes one operand")
	}
	t, err := c.src(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	c.emit(ori.OpNANOSLEEP, nil, nil, word(t, 0))
	return nil
}

// lowerElect lowers elect.sync d|p, membermask. PTX leaves the choice of
// leader to the implementation, asking only that it be an active thread
// of membermask, the same one for the same membermask every time; this
// lowering elects the lowest-numbered lane of (active lanes & membermask).
// Since every thread of membermask must execute elect.sync, that is the
// lowest lane of membermask, a deterministic choice:
//
//	WARPSYNC mask
//	VOTE.ANY act, PT = PT            active lanes
//	LOP3 m = act & mask
//	BREV r = m                       lowest set bit of m -> highest of r
//	FLO.U32.SH leader = r            31 - index of r's highest bit = index of m's lowest
//	S2R lane = SR_LANEID
//	ISETP.EQ.U32.AND p, PT = lane, leader, PT
func lowerElect(c *fn, in *ptx.Instr) error {
	if !in.HasMod(".sync") || len(in.Args) != 2 {
		return c.l.errorf(in.OpPos, "elect.sync takes d|p and a membermask")
	}
	mv, err := c.src(in.Args[1], ".b32")
	if err != nil {
		return err
	}
	mask := word(mv, 0)
	c.emit(ori.OpWARPSYNC, nil, nil, mask)
	act := c.newReg(1)
	c.emit(ori.OpVOTE, []string{"ANY"}, []ori.Operand{ori.R(act), ori.R(ori.PT)}, ori.R(ori.PT))
	m := c.newReg(1)
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(m)}, ori.R(act), mask, ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
	r := c.newReg(1)
	c.emit(ori.OpBREV, nil, []ori.Operand{ori.R(r)}, ori.R(m))
	dArg, pArg := syncPair(in.Args[0])
	d, err := c.dst(dArg, ".b32")
	if err != nil {
		return err
	}
	c.emit(ori.OpFLO, []string{"U32", "SH"}, []ori.Operand{ori.R(d.Word(0))}, ori.R(r))
	if pArg == nil {
		return nil
	}
	p, err := c.dst(pArg, ".pred")
	if err != nil {
		return err
	}
	lane := c.newReg(1)
	c.emit(ori.OpS2R, nil, []ori.Operand{ori.R(lane)}, ori.SR("SR_LANEID"))
	c.emit(ori.OpISETP, []string{"EQ", "U32", "AND"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, ori.R(lane), ori.R(d.Word(0)), ori.R(ori.PT))
	return nil
}
