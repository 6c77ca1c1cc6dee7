// Package sass renders allocated Ori as SASS assembly text, in the syntax
// of NVIDIA's nvdisasm and cuobjdump (ptxas's phase DumpNVuCodeText),
// prints the ptxas -v resource lines, and encodes instructions into the
// 128-bit words of sm_75-sm_90 and decodes them back.
//
// It owns:
//
//   - Text and FuncText (text.go): the listing of a module or one
//     function;
//   - EncodeFunc, Encode (encode.go) and Decode, or a Decoder that
//     reuses its buffers (decode.go), driven by
//     one table of forms (form.go, forms.go) and the control word
//     (word.go); see "Encoding" below;
//   - LegalizeFunc and Legalize (legalize.go): the operand swaps that
//     make commuting instructions encodable (pipeline's
//     PostFixForMercTargets runs them, with the fix-ups that need new
//     instructions); TakesDesc (form.go): whether an access names a
//     memory descriptor;
//   - NvdisasmRaw, InstTexts and Normalize (check.go): comparing words
//     with NVIDIA's nvdisasm (the normalization keeps only spacing and
//     label names apart, TestNormalize);
//   - spell (spell.go): nvdisasm's spelling of an Ori instruction,
//     which the printer uses;
//   - WriteCubin (cubin.go): the ELF file around the words, with the
//     sections, symbols, relocations and .nv.info attributes ptxas 13.0
//     writes (texture and surface references included; a module
//     without a kernel gets ptxas's cubin with no code; cubin.go says
//     what it leaves out and why);
//   - the operand syntax (operand.go): registers, immediates, constant
//     banks, addresses, special registers, branch targets;
//   - Resources, Usage, UsageOf and SpillBytes (resources.go): "ptxas
//     info" lines from numbers the caller provides or derives from the
//     code.
//
// # Listing format
//
// A module starts with two directives naming the target:
//
//	.headerflags	@"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM75 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM75)"
//	.elftype	@"ET_EXEC"
//
// Each function follows as nvdisasm prints a .text section:
//
//	//--------------------- .text.vecadd --------------------------
//		.section	.text.vecadd,"ax",@progbits
//		.global		vecadd
//		.type		vecadd,@function
//		.other		vecadd,@"STO_CUDA_ENTRY STV_DEFAULT"
//	vecadd:
//	.text.vecadd:
//	        /*0000*/                   MOV R1, c[0x0][0x28] ;
//	        /*0010*/                   S2R R0, SR_TID.X ;
//	        /*0020*/              @P0  EXIT ;
//	.L_x_0:
//	        /*0030*/                   BRA `(.L_x_0) ;
//
// (.other, and STO_CUDA_ENTRY, only for kernels.) Every instruction line
// is 8 spaces, the address /*ADDR*/ (hex, at least four digits, 16 bytes
// per instruction from 0 in each function), the guard right-aligned in a
// 17-column field followed by two spaces, then the mnemonic with its
// modifiers and the operands, results first, separated by ", ", and " ;".
//
// Decision: control words are printed as a trailing comment in the
// notation of common SASS assemblers, when the scheduler has set them:
//
//	.L_x_3:
//	        /*0040*/                   ISETP.GE.AND P0, PT, R0, c[0x0][0x170], PT ;            /* [B------:R-:W-:Y:S04] */
//
// (wait barriers, read barrier, write barrier, yield, stall; the
// instruction text from the mnemonic to ";" is padded to 56 columns).
// nvdisasm prints the encoding there instead.
//
// Blocks that are branch targets (BRA, BRX, BSSY) get labels .L_x_N,
// numbered from 0 in layout order across the module (within the
// function for FuncText), and branch targets print as `(.L_x_N). Calls
// print as CALL.REL.NOINC `(name), returns as RET.REL.NODEC R20 `(0x0)
// (R2 for a function only called directly, ori.Func.RetAddr)
// (their branch field points at address 0 of the code, the kernel's
// start once linked; nvdisasm names the kernel there in a cubin), and
// the MOV that loads a call's return point (ori.RetAddrSym) as
// MOV R20, 0x1c0: the address after its CALL in the listing's layout,
// an offset from the kernel's start once linked (cubin.go's
// relocations RelocBase and RelocRetAddr). A call through a function
// pointer prints as CALL.REL.NOINC R2 `(0x0) (the same field); the MOV
// that loads the pointer (ori.FuncAddrOf) prints the function's name,
// `(name), in a listing, and its offset from the kernel's start once
// linked (RelocFuncAddr; LinkedInstTexts for a layout of one's own),
// as ptxas's UMOV UR4, 0x100.
//
// # Operands
//
// Registers print as R0-R254, RZ, UR0-UR62, URZ, P0-P6, PT, UP0-UP6, UPT;
// a register pair or quad prints as its first register (R2), except as
// the base of a memory address, where a 64-bit base prints [R2.64]. Ori's
// "!R" on an R or UR register (bitwise not) prints as ~R; on predicates
// "!P" stays. -R, |R| and .reuse print as in SASS. Integer immediates
// print in hex as 32-bit words (0xffffffff), signed only in IADD3, IMAD,
// ISETP and IMNMX (-0x1), as nvdisasm prints them; the 32-bit immediates
// of f32 arithmetic and of conversions from f32 print as f32 values.
// f32 and f64 immediates print in decimal with up to 20 significant
// digits (1, 0.5, 0.15915493667125701904, 1.175494350822287508e-38),
// from 1e16 up with 21 digits in exponent form
// (1.84467440737095516160e+19), and +INF, -INF, +QNAN, -QNAN, +SNAN,
// -SNAN. Constant banks print c[0x0][0x160] or
// c[0x0][R2+0x10], memory [R2.64+0x10], [R1+-0x8] (Decision: nvdisasm's
// "+-" for negative offsets), [0x10].
//
// Ori keeps SASS operand order, with two exceptions that are mapped here:
// LOP3 with a predicate result (Ori "LOP3.LUT Rd, Pp = ...") prints the
// predicate first (LOP3.LUT P0, R2, ...), as do ATOMG and ATOM, whose
// predicate result SASS always prints (PT when Ori has none). BSSY and
// BSYNC name their convergence barrier B0-B15 (Ori keeps its number as
// an immediate). BRX on an index prints its register, then its
// targets; the BRX of a jump table (PostFixForMercTargets: BRX R4.64,
// c[0x2][0x0], targets) prints as BRX R4 `(0x0), its branch field
// pointing at the kernel's start as RET's (nvdisasm: BRX R4 -0x90), and
// the cubin writer fills the table (Code.JumpTables) and writes
// EIATTR_INDIRECT_BRANCH_TARGETS.
//
// Mnemonics print as nvdisasm 13.5 prints the same word (spell.go):
// default modifiers are left out (I2F.F32.S32.RN R4, R4 is I2F R4, R4;
// F2I's S32 and F32, F2F.F32.F64's RN, the RN of any conversion to f16
// or bf16, ATOM's U32, FCHK's DIVIDE, FRND's RN, FLO's S32, REDUX's
// AND), FRND's RM/RP/RZ are FLOOR/CEIL/TRUNC, F2F's FTZ and a load's or
// store's size come first (LDG.E.64.STRONG.GPU), MEMBAR names .SC, IMAD
// prints its aliases IMAD.SHL (a power-of-two multiplier other than 1
// and 0x10000, and RZ; Ori's IMAD.SHL holds the shift count, the
// listing the multiplier), IMAD.MOV (a zero product, or a multiplier 1
// and RZ) and IMAD.IADD, IADD3 leaves out PT carry-outs, LOP3 a PT
// predicate result and VOTE an RZ result, MATCH.ALL prints its
// predicate result first (PT when Ori has none), an absolute address 0
// is [RZ] (and LDC's c[0x0][RZ]), ATOM.E.CAS's 64-bit address has no
// .64, sm_90's WARPSYNC with a full mask is WARPSYNC.ALL, and on sm_75 a
// weak global or generic load or store names .SYS (LDG.E.SYS R4,
// [R2+0x10]), a .nc one .CONSTANT.SYS, the .cta scope of any memory
// access is STRONG.CTA (orilab's STRONG.SM), and a global or generic
// access prints its address register without .64.
//
// Pseudo instructions (MOV.PHI and the pseudo opcodes) and virtual
// registers have no SASS form: they are errors naming the function,
// block and instruction.
//
// # Resource lines
//
// Resources prints, per function in module order, the ptxas -v lines:
//
//	ptxas info    : Compiling entry function 'vecadd' for 'sm_75'
//	ptxas info    : Function properties for vecadd
//	    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//	ptxas info    : Used 10 registers, 0 bytes smem, 372 bytes cmem[0]
//
// A .func gets only the "Function properties" pair. Decision: the "Used"
// line always has its smem field, as the wiki's format string does
// (ptxas leaves it out when it is 0); cmem[0] counts constant bank 0 up
// to the end of the kernel parameters (0x160 plus the parameters on
// sm_75-sm_89, 0x210 plus them on sm_90 and later). A module with
// .global variables starts with "ptxas info    : N bytes gmem".
//
// # Encoding
//
// Every instruction is one 128-bit word (word.go): the opcode in bits
// 0-11, the guard in 12-15, operands and modifiers above, and the control
// word in 105-125: stall (4 bits at 105), yield (bit 109, set when the
// instruction does NOT yield), write and read scoreboard (3 bits each at
// 110 and 113, 7 for none), wait mask (6 bits at 116) and operand reuse
// (4 bits at 122, one per logical source A, B, C).
//
// A form (forms.go) lists, for one opcode variant, where each operand and
// each modifier lives; the encoder and the decoder read the same form.
// ALU instructions share the Volta layout: A is a register (24-31), and
// one of B and C may be an immediate, a constant bank or a uniform
// register in bits 32-63, the "form" number in bits 9-11 saying which.
// The encoder tries the forms of an opcode in order and returns the first
// that holds the instruction; when none does, the error names the
// instruction and the reason (an immediate in A, two immediates, a
// modifier with no bits, an offset out of range). It never drops an
// operand or a modifier.
//
// sm_75 has no memory descriptor: its global and generic accesses, atomics
// and reductions are the Volta forms with a register address (LDG 0x381,
// STG 0x386, LD 0x980 and ST 0x385 with a signed 32-bit offset, ATOMG
// 0x3a8, ATOM 0x38a, RED 0x98e), the ordering in another layout (two
// bits of semantics and two of scope; forms.go's gOrder75), all measured
// on ptxas 13.0.88 -arch sm_75's words. Its texture words are sm_80's,
// its surface words sm_80's with that ordering, LDSM sm_80's, and its
// HMMA and IMMA have the Turing shapes only (m16n8k8 f16, m8n8k16).
//
// The memory descriptor: global and generic accesses on sm_80 and later
// name a uniform register pair (desc[UR4][R2.64]: ori.Operand's HasDesc
// and Desc) that the phase PostFixForMercTargets loads with ULDC.64 from
// c[0x0][0x118] (sm_80-sm_89) or c[0x0][0x208] (sm_90), as ptxas does.
// The encoder writes it into the form's descriptor field (bits 32-37 of
// loads, 64-69 of stores and atomics; URZ means none) and refuses an
// access without one, which could not run on a GPU. The printer shows
// desc[URx] from sm_90 only, as nvdisasm does (spell.go), although
// ptxas's sm_80 words carry UR4 there too (measured).
//
// Decision: IMAD.SHL d = a, k, c is orilab's spelling of a shift; the word
// is IMAD with the multiplier 1<<k (what nvdisasm prints), and it decodes
// as that IMAD.
//
// Where the facts come from is at the top of forms.go; what is missing
// (BRX outside a kernel, HADD2 and HMUL2 with a constant, an immediate
// or a half swizzle, 32-bit addresses under .E, ptxas's [UR+off]
// addresses) is refused, and the nvdisasm test in
// package pipeline counts it. So are forms the hardware lacks: IDP
// with an immediate or anything but a register in C, IMAD.HI with an
// immediate C, .NAN on sm_75, conversions to bf16 from integers and
// f64 before sm_90 (PostFixForMercTargets moves such immediates into
// registers). Conversions to f16 and bf16 name their result type in
// bits 75-77 (1 F16, 2 F32, 4 BF16) in I2F and F2F alike; FLO.S32 is
// nvdisasm's plain FLO. Under .X the negation bit of a register, a
// uniform register or a constant in B is a bitwise not (~UR1,
// ~c[0x0][0x164]); outside it a constant takes -, |.| like a register. The tensor-core forms (HMMA, IMMA, DMMA,
// LDSM, STSM) cover every shape issue 23 lowers; nvdisasm prints IMMA's
// A and B as R16.ROW, R20.COL and sm_90's DMMA.884 as DMMA.8x8x4 (text.go,
// spell.go). A uniform-datapath instruction's guard field names a UP:
// the encoder refuses a P guard there other than PT, and the decoder
// returns a UP guard. BAR.RED has no result field: PostFixForMercTargets
// moves orilab's result into a B2R.RESULT after it. No BRA word holds a
// uniform predicate and the only REDUX word has a
// UR destination: PostFixForMercTargets rewrites both (a PLOP3 copy of
// the guard into a P register, whose source C may be a UP; a UR result
// moved on), and the encoder refuses what it could not rewrite.
//
// Decision: a yielding instruction's reuse flags are encoded as the IR
// has them, although the hardware ignores them there (nvdisasm 13.5 does
// not print them; measured over every stall and yield); the scheduler
// should not set them. Stalls 0 and 12-15 without yield are refused:
// nvdisasm rejects those control words.
package sass
