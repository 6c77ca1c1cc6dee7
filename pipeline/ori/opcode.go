package ori

// Opcode is a SASS base mnemonic (IADD3, LDG, ...). Modifiers (.WIDE,
// .U32, .GE.AND, .E.64) are kept on the instruction, in order, so one
// opcode covers every variant. The table below is the machine description
// the verifier, the simulator and the scheduler share.
type Opcode uint16

// OpFlags describes what an opcode does, for analyses that must be
// conservative about it.
type OpFlags uint32

const (
	FPseudo     OpFlags = 1 << iota // not a hardware instruction; must be gone before emission
	FBranch                         // BRA: direct branch (conditional when guarded)
	FIndirect                       // BRX: indirect branch through a table of blocks
	FExit                           // EXIT: ends the thread
	FRet                            // RET: returns from a .func
	FCall                           // CALL
	FLoad                           // reads memory
	FStore                          // writes memory
	FAtomic                         // atomic read-modify-write
	FBarrier                        // CTA barrier or memory ordering
	FWarp                           // warp collective: reads other threads' registers or votes
	FSideEffect                     // must not be removed even if its results are unused
	FUniform                        // executes on the uniform datapath (UR/UP)
)

// opInfo is one row of the opcode table.
type opInfo struct {
	name  string
	flags OpFlags
	// dsts and srcs are operand signatures checked by the verifier: space
	// separated letters, each optionally followed by '?' (optional,
	// trailing positions only), or a lone "*" for "not checked".
	//	R  register of class R or UR (never P/UP)
	//	P  predicate register (P or UP)
	//	v  value: R/UR register, immediate, constant bank or special register
	//	M  memory address [..]
	//	C  constant bank c[..][..]
	//	B  block
	//	S  special register
	//	Y  symbol
	//	i  immediate
	dsts, srcs string
}

// Opcodes. The order is the table order and is not meaningful.
const (
	OpInvalid Opcode = iota
	// Integer ALU.
	OpIADD3
	OpIMAD
	OpISETP
	OpIMNMX
	OpIABS
	OpLOP3
	OpSHF
	OpLEA
	OpPOPC
	OpFLO
	OpBREV
	OpBMSK
	OpPRMT
	OpSEL
	OpSGXT
	OpIDP
	OpMOV
	OpPLOP3
	OpP2R
	OpR2P
	OpS2R
	OpCS2R
	OpS2UR
	// Floating point.
	OpFADD
	OpFMUL
	OpFFMA
	OpFMNMX
	OpFSETP
	OpFSEL
	OpFSET
	OpMUFU
	OpFCHK
	OpFRND
	OpF2F
	OpF2I
	OpI2F
	OpI2I
	OpF2FP
	OpDADD
	OpDMUL
	OpDFMA
	OpDSETP
	OpHADD2
	OpHMUL2
	OpHFMA2
	OpHSETP2
	OpHMNMX2
	// Memory.
	OpLDG
	OpSTG
	OpLDS
	OpSTS
	OpLDL
	OpSTL
	OpLDC
	OpLD
	OpST
	OpATOMG
	OpATOMS
	OpATOM
	OpRED
	// Synchronization and warp collectives.
	OpBAR
	OpB2R
	OpMEMBAR
	OpWARPSYNC
	OpBSSY
	OpBSYNC
	OpNANOSLEEP
	OpSHFL
	OpVOTE
	OpREDUX
	OpMATCH
	// Tensor cores (warp-wide: each lane holds a fragment).
	OpLDSM
	OpSTSM
	OpHMMA
	OpIMMA
	OpDMMA
	OpBMMA
	OpQMMA
	// Texture unit (pipeline/lower/tex.go).
	OpTEX
	OpTLD
	OpTLD4
	OpTXQ
	OpSULD
	OpSUST
	// Control.
	OpBRA
	OpBRX
	OpEXIT
	OpRET
	OpCALL
	OpBPT
	OpNOP
	// Uniform datapath.
	OpULDC
	OpUMOV
	OpUIADD3
	OpUIMAD
	OpULOP3
	OpUSHF
	OpUISETP
	OpUSEL
	OpULEA
	// Operations the target has no instruction for, kept whole by the
	// lowering until ConvertUnsupportedOps (-O0) or
	// LateExpansionUnsupportedOps expands them (SEMANTICS.md).
	OpIDIV
	OpDDIV
	OpDSQRT
	// Fences, appended here so that the numbers above (which the IR
	// hash of TestHashSeesEveryChange and the bisection site IDs see)
	// stay as they were.
	OpERRBAR
	OpCGAERRBAR
	OpCCTL
	// The asynchronous global-to-shared copy of sm_80 (cp.async;
	// lower/cpasync.go), appended for the same reason.
	OpLDGSTS
	OpLDGDEPBAR
	OpDEPBAR
	numOpcodes
)

const (
	fMem   = FSideEffect
	fCtl   = FSideEffect
	fUnifm = FUniform
)

var opTable = [numOpcodes]opInfo{
	OpInvalid: {name: "INVALID", dsts: "*", srcs: "*"},
	OpIADD3:   {name: "IADD3", dsts: "R P? P?", srcs: "v v v P? P?"},
	OpIMAD:    {name: "IMAD", dsts: "R P?", srcs: "v v v P?"},
	OpISETP:   {name: "ISETP", dsts: "P P", srcs: "v v P P?"},
	OpIMNMX:   {name: "IMNMX", dsts: "R", srcs: "v v P"},
	OpIABS:    {name: "IABS", dsts: "R", srcs: "v"},
	OpLOP3:    {name: "LOP3", dsts: "R P?", srcs: "v v v i P"},
	OpSHF:     {name: "SHF", dsts: "R", srcs: "v v v"},
	OpLEA:     {name: "LEA", dsts: "R P?", srcs: "v v v v? P?"}, // a, b, s or .HI: a, b, c, s
	OpPOPC:    {name: "POPC", dsts: "R", srcs: "v"},
	OpFLO:     {name: "FLO", dsts: "R P?", srcs: "v"},
	OpBREV:    {name: "BREV", dsts: "R", srcs: "v"},
	OpBMSK:    {name: "BMSK", dsts: "R", srcs: "v v"},
	OpPRMT:    {name: "PRMT", dsts: "R", srcs: "v v v"},
	OpSEL:     {name: "SEL", dsts: "R", srcs: "v v P"},
	OpSGXT:    {name: "SGXT", dsts: "R", srcs: "v v"},
	OpIDP:     {name: "IDP", dsts: "R", srcs: "v v v"},
	OpMOV:     {name: "MOV", dsts: "R", srcs: "a"}, // "a": also the return address of a call (RetAddrSym) or a function address (FuncAddrOf)
	OpPLOP3:   {name: "PLOP3", dsts: "P P", srcs: "P P P i i"},
	OpP2R:     {name: "P2R", dsts: "R", srcs: "*"},
	OpR2P:     {name: "R2P", dsts: "*", srcs: "*"},
	OpS2R:     {name: "S2R", dsts: "R", srcs: "S"},
	OpCS2R:    {name: "CS2R", dsts: "R", srcs: "S"},
	OpS2UR:    {name: "S2UR", dsts: "R", srcs: "S"},

	OpFADD:   {name: "FADD", dsts: "R", srcs: "v v"},
	OpFMUL:   {name: "FMUL", dsts: "R", srcs: "v v"},
	OpFFMA:   {name: "FFMA", dsts: "R", srcs: "v v v"},
	OpFMNMX:  {name: "FMNMX", dsts: "R", srcs: "v v P"},
	OpFSETP:  {name: "FSETP", dsts: "P P", srcs: "v v P P?"},
	OpFSEL:   {name: "FSEL", dsts: "R", srcs: "v v P"},
	OpFSET:   {name: "FSET", dsts: "R", srcs: "v v P"},
	OpMUFU:   {name: "MUFU", dsts: "R", srcs: "v"},
	OpFCHK:   {name: "FCHK", dsts: "P", srcs: "v v"},
	OpFRND:   {name: "FRND", dsts: "R", srcs: "v"},
	OpF2F:    {name: "F2F", dsts: "R", srcs: "v"},
	OpF2I:    {name: "F2I", dsts: "R", srcs: "v"},
	OpI2F:    {name: "I2F", dsts: "R", srcs: "v"},
	OpI2I:    {name: "I2I", dsts: "R", srcs: "v"},
	OpF2FP:   {name: "F2FP", dsts: "R", srcs: "v v"},
	OpDADD:   {name: "DADD", dsts: "R", srcs: "v v"},
	OpDMUL:   {name: "DMUL", dsts: "R", srcs: "v v"},
	OpDFMA:   {name: "DFMA", dsts: "R", srcs: "v v v"},
	OpDSETP:  {name: "DSETP", dsts: "P P", srcs: "v v P P?"},
	OpHADD2:  {name: "HADD2", dsts: "R", srcs: "v v"},
	OpHMUL2:  {name: "HMUL2", dsts: "R", srcs: "v v"},
	OpHFMA2:  {name: "HFMA2", dsts: "R", srcs: "v v v"},
	OpHSETP2: {name: "HSETP2", dsts: "P P", srcs: "v v P P?"},
	OpHMNMX2: {name: "HMNMX2", dsts: "R", srcs: "v v P"},

	OpLDG:   {name: "LDG", flags: FLoad, dsts: "R", srcs: "M"},
	OpSTG:   {name: "STG", flags: FStore | fMem, dsts: "", srcs: "M v"},
	OpLDS:   {name: "LDS", flags: FLoad, dsts: "R", srcs: "M"},
	OpSTS:   {name: "STS", flags: FStore | fMem, dsts: "", srcs: "M v"},
	OpLDL:   {name: "LDL", flags: FLoad, dsts: "R", srcs: "M"},
	OpSTL:   {name: "STL", flags: FStore | fMem, dsts: "", srcs: "M v"},
	OpLDC:   {name: "LDC", flags: FLoad, dsts: "R", srcs: "C"},
	OpLD:    {name: "LD", flags: FLoad, dsts: "R", srcs: "M"},
	OpST:    {name: "ST", flags: FStore | fMem, dsts: "", srcs: "M v"},
	OpATOMG: {name: "ATOMG", flags: FAtomic | FLoad | FStore | fMem, dsts: "R P?", srcs: "M v v?"},
	OpATOMS: {name: "ATOMS", flags: FAtomic | FLoad | FStore | fMem, dsts: "R", srcs: "M v v?"},
	OpATOM:  {name: "ATOM", flags: FAtomic | FLoad | FStore | fMem, dsts: "R P?", srcs: "M v v?"},
	OpRED:   {name: "RED", flags: FAtomic | FStore | fMem, dsts: "", srcs: "M v"},

	OpBAR: {name: "BAR", flags: FBarrier | fCtl, dsts: "*", srcs: "*"},
	// B2R.RESULT d[, p]: the reduction of the warp's last BAR.RED
	// (PostFixForMercTargets splits BAR.RED's result off into it, as
	// ptxas writes BAR.RED.AND 0x0, P0 ; B2R.RESULT RZ, P1).
	OpB2R:    {name: "B2R", flags: fCtl, dsts: "R P?", srcs: ""},
	OpMEMBAR: {name: "MEMBAR", flags: FBarrier | fCtl, dsts: "", srcs: ""},
	// ERRBAR, CGAERRBAR (sm_90) and CCTL.IVALL: the fences ptxas puts
	// around a release or acquire atomic at GPU or system scope (lower's
	// atomic.go); memory-model instructions with no effect on any result
	// in the simulator's sequentially consistent memory.
	OpERRBAR:    {name: "ERRBAR", flags: FBarrier | fCtl, dsts: "", srcs: ""},
	OpCGAERRBAR: {name: "CGAERRBAR", flags: FBarrier | fCtl, dsts: "", srcs: ""},
	OpCCTL:      {name: "CCTL", flags: FBarrier | fCtl, dsts: "", srcs: ""},
	// LDGSTS [s], [g], p copies 4, 8 or 16 bytes from global g to
	// shared s, zeroing them when p is false (ignore-src) and, with
	// .ZFILL, the last g%size bytes (src-size); LDGDEPBAR closes a
	// group of copies and DEPBAR.LE SBn, k waits until at most k groups
	// are pending (SEMANTICS.md). No FLoad/FStore: the analyses that
	// read those expect one address and a value or a result. FBarrier
	// keeps every memory access on its side of them (the copy may
	// land anywhere between LDGSTS and the DEPBAR).
	OpLDGSTS:    {name: "LDGSTS", flags: FBarrier | fMem, dsts: "", srcs: "M M P?"},
	OpLDGDEPBAR: {name: "LDGDEPBAR", flags: FBarrier | fCtl, dsts: "", srcs: ""},
	OpDEPBAR:    {name: "DEPBAR", flags: FBarrier | fCtl, dsts: "", srcs: "i i"},
	OpWARPSYNC:  {name: "WARPSYNC", flags: FBarrier | fCtl, dsts: "", srcs: "v"},
	OpBSSY:      {name: "BSSY", flags: fCtl, dsts: "", srcs: "i B"},
	OpBSYNC:     {name: "BSYNC", flags: FBarrier | fCtl, dsts: "", srcs: "i"},
	OpNANOSLEEP: {name: "NANOSLEEP", flags: fCtl, dsts: "", srcs: "v"},
	OpSHFL:      {name: "SHFL", flags: FWarp, dsts: "P R", srcs: "v v v"},
	OpVOTE:      {name: "VOTE", flags: FWarp, dsts: "R P", srcs: "P"},
	OpREDUX:     {name: "REDUX", flags: FWarp, dsts: "R", srcs: "v"},
	OpMATCH:     {name: "MATCH", flags: FWarp, dsts: "R P?", srcs: "v"},
	OpLDSM:      {name: "LDSM", flags: FLoad | FWarp, dsts: "R", srcs: "M"},
	OpSTSM:      {name: "STSM", flags: FStore | FWarp | fMem, dsts: "", srcs: "M v"},
	OpHMMA:      {name: "HMMA", flags: FWarp, dsts: "R", srcs: "v v v"},
	OpIMMA:      {name: "IMMA", flags: FWarp, dsts: "R", srcs: "v v v"},
	OpDMMA:      {name: "DMMA", flags: FWarp, dsts: "R", srcs: "v v v"},
	OpBMMA:      {name: "BMMA", flags: FWarp, dsts: "R", srcs: "v v v"},
	OpQMMA:      {name: "QMMA", flags: FWarp, dsts: "R", srcs: "v v v"},
	// Decision: texture reads carry no memory flags. A kernel cannot
	// write a texture it reads (CUDA leaves a write to memory bound to a
	// texture during the same launch undefined), so within a launch a
	// fetch is a pure function of its operands and the launch's
	// bindings, and the optimizer may CSE, move or delete it.
	OpTEX:  {name: "TEX", dsts: "R R", srcs: "*"},
	OpTLD:  {name: "TLD", dsts: "R R", srcs: "*"},
	OpTLD4: {name: "TLD4", dsts: "R R", srcs: "*"},
	OpTXQ:  {name: "TXQ", dsts: "R R", srcs: "*"},
	// Surfaces are writable: loads and stores keep their order and are
	// never removed (FSideEffect), without the memory flags whose
	// analyses expect an address operand.
	OpSULD: {name: "SULD", flags: fMem, dsts: "R", srcs: "*"},
	OpSUST: {name: "SUST", flags: fMem, dsts: "", srcs: "*"},

	OpBRA:  {name: "BRA", flags: FBranch | fCtl, dsts: "", srcs: "B"},
	OpBRX:  {name: "BRX", flags: FIndirect | fCtl, dsts: "", srcs: "*"},
	OpEXIT: {name: "EXIT", flags: FExit | fCtl, dsts: "", srcs: ""},
	OpRET:  {name: "RET", flags: FRet | fCtl, dsts: "", srcs: "*"},
	OpCALL: {name: "CALL", flags: FCall | fCtl, dsts: "*", srcs: "*"},
	OpBPT:  {name: "BPT", flags: fCtl, dsts: "", srcs: "*"},
	OpNOP:  {name: "NOP", dsts: "", srcs: ""},

	OpULDC:   {name: "ULDC", flags: fUnifm, dsts: "R", srcs: "C"},
	OpUMOV:   {name: "UMOV", flags: fUnifm, dsts: "R", srcs: "v"},
	OpUIADD3: {name: "UIADD3", flags: fUnifm, dsts: "R P? P?", srcs: "v v v P? P?"},
	OpUIMAD:  {name: "UIMAD", flags: fUnifm, dsts: "R P?", srcs: "v v v P?"},
	OpULOP3:  {name: "ULOP3", flags: fUnifm, dsts: "R P?", srcs: "v v v i P"},
	OpUSHF:   {name: "USHF", flags: fUnifm, dsts: "R", srcs: "v v v"},
	OpUISETP: {name: "UISETP", flags: fUnifm, dsts: "P P", srcs: "v v P P?"},
	OpUSEL:   {name: "USEL", flags: fUnifm, dsts: "R", srcs: "v v P"},
	OpULEA:   {name: "ULEA", flags: fUnifm, dsts: "R", srcs: "v v v"},

	OpIDIV:  {name: "IDIV", dsts: "R", srcs: "v v"},
	OpDDIV:  {name: "DDIV", dsts: "R", srcs: "v v"},
	OpDSQRT: {name: "DSQRT", dsts: "R", srcs: "v"},
}

var opByName = func() map[string]Opcode {
	m := make(map[string]Opcode, numOpcodes)
	for i := Opcode(1); i < numOpcodes; i++ {
		m[opTable[i].name] = i
	}
	return m
}()

// LookupOpcode returns the opcode named name ("IADD3"), or OpInvalid.
func LookupOpcode(name string) Opcode { return opByName[name] }

func (o Opcode) String() string {
	if int(o) < len(opTable) {
		return opTable[o].name
	}
	return "INVALID"
}

// Flags returns the opcode's properties.
func (o Opcode) Flags() OpFlags { return opTable[o].flags }

// Has reports whether the opcode has all of the given flags.
func (o Opcode) Has(f OpFlags) bool { return opTable[o].flags&f == f }

// AllOpcodes returns every valid opcode in table order.
func AllOpcodes() []Opcode {
	ops := make([]Opcode, 0, numOpcodes-1)
	for i := Opcode(1); i < numOpcodes; i++ {
		ops = append(ops, i)
	}
	return ops
}
