package ptx

// isaSpec describes the accepted operand forms of one PTX opcode and the
// oldest PTX ISA version and SM target that accept it. The data lives in
// isa_table.go; the matcher that applies it lives in check.go.
type isaSpec struct {
	// forms lists the operand shapes the opcode accepts. An instruction is
	// valid when one applicable form matches; see isaForm.when.
	forms []isaForm
	// minPTX is the oldest .version that accepts the opcode, as major*10+minor
	// (6.0 is 60); 0 means every version.
	minPTX int
	// minSM is the oldest .target sm_NN that accepts the opcode; 0 means every
	// target.
	minSM int
	// gates are extra version/target requirements triggered by a modifier
	// (for example shfl needs PTX 6.0 for .sync).
	gates []isaGate
}

// isaForm is one operand shape.
//
// ops is a space-separated sequence of operand classes, one letter each,
// optionally followed by '?' for a trailing optional operand:
//
//	d  destination: register (not .pred), vector brace of registers, or the sink _
//	a  source value: register (not .pred), integer or float immediate, or vector brace
//	A  like a, but a variable/function symbol (address) is also accepted
//	p  predicate register; a source may be negated (!p)
//	q  predicate destination, optionally a pair p|q (setp, set-with-pred forms)
//	m  memory address in brackets: [reg], [reg+imm], [sym], [sym+imm], [imm]
//	l  label or function name (branch and call targets)
//	i  integer immediate only
//	v  vector brace { ... }
//	*  anything (the opcode has its own checks, or is not validated)
//
// A form that is a lone "*" accepts any number of operands of any class.
//
// when, if non-empty, is a '|'-separated list of modifiers (with the leading
// dot, for example ".and|.or|.xor"); the form applies only when the
// instruction carries at least one of them. When any conditional form
// applies, only conditional forms are tried; otherwise only the forms with an
// empty when are tried.
type isaForm struct {
	when string
	ops  string
}

// isaGate adds a version/target requirement when the instruction carries the
// modifier mod (with its leading dot).
type isaGate struct {
	mod    string
	minPTX int
	minSM  int
}
