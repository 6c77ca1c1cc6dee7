package ptxgen

import (
	"fmt"
	"strings"
)

// Program is one generated PTX module: device functions and a kernel,
// with the launch and the kernel's parameters. Its text form is PTX
// (Program.PTX) and its launch description a kernel spec (Program.SpecJSON,
// Program.Spec).
//
// The body of every function is a tree of statements (Leaf, If, Loop,
// Break, Continue) over state variables that the function's prologue
// defines before the body runs and that are never undefined afterwards.
// Every statement reads only state variables, read-only inputs and
// temporaries it defines itself, and writes only state variables, its own
// temporaries and memory it owns. So any statement can be deleted and the
// program stays valid and free of undefined behaviour: the reducer
// (Shrink) depends on that.
type Program struct {
	// Seed generated the program: Generate(Seed) gives it back.
	Seed uint64
	// Target is the SM version of the .target directive (75, 80, 86, 90).
	Target int
	// Funcs are the device functions in definition order: a function
	// calls only functions before it, so there is no recursion.
	Funcs []*Func
	// Kernel is the .entry.
	Kernel *Func
	// Decls are module-scope declarations, one per line, written before
	// the functions. The dynamic shared array lives here: ptxas rejects
	// .extern .shared inside a function ("Parsing error near '.shared'").
	Decls []string
	// Launch is the grid, the block and the dynamic shared memory size.
	Launch Launch
	// Params are the kernel's parameters in order, with their contents.
	Params []Param
	// Profile says which statement families the generator drew from and
	// how often (swarm testing: each program enables a random subset).
	Profile Profile
}

// Launch is a kernel launch configuration.
type Launch struct {
	Grid, Block   [3]int
	DynamicShared int
}

// Threads returns the number of threads per CTA.
func (l Launch) Threads() int { return l.Block[0] * l.Block[1] * l.Block[2] }

// CTAs returns the number of CTAs.
func (l Launch) CTAs() int { return l.Grid[0] * l.Grid[1] * l.Grid[2] }

// Param is one kernel parameter and what the launch passes in it: a
// buffer (Elem, Count and the initial bytes Init, or SameAs naming an
// earlier buffer) or a scalar (Type and Value, in kernel-spec syntax).
type Param struct {
	Name   string
	Buffer bool
	Elem   string
	Count  int
	Init   []byte // little-endian contents; nil means zero
	SameAs string
	Type   string
	Value  string
}

// Func is one generated function.
type Func struct {
	Name  string
	Entry bool
	// Params are the PTX parameters: ".param .u64 out" is {".u64", "out"}.
	Params []FuncParam
	// Ret is the PTX type of the return value ("" for none) and RetName
	// its parameter name.
	Ret, RetName string
	// Decls are the .local and .shared declarations, one per line.
	Decls []string
	// Regs counts the registers of each class: %r<Regs[ClassB32]> and so on.
	Regs [numClasses]int
	// Prologue defines the read-only inputs, Inits every state variable
	// (in order: an init may read a state variable defined before it).
	// Setup prepares memory the body may use: the local array
	// ("setup.local") and the shared counters ("setup.shared"); Shrink
	// drops a section (and its declaration) once no statement uses it.
	// Observe makes the state variables visible (the kernel stores each
	// into the thread's dump slots, one statement per variable), and
	// Epilogue returns (a device function folds its state into the
	// return value first).
	Prologue []string
	Inits    []*Init
	Setup    []*Leaf
	Body     []Stmt
	Observe  []Stmt
	Epilogue []string
}

// FuncParam is one PTX parameter of a function.
type FuncParam struct{ Type, Name string }

// Class is a PTX register class of the generated code.
type Class int

// The register classes, with their names' prefixes.
const (
	ClassB32  Class = iota // %r: .b32/.u32/.s32
	ClassB64               // %rd: .b64/.u64/.s64
	ClassF32               // %f
	ClassF64               // %fd
	ClassPred              // %p
	ClassB16               // %rs: .b16/.u16/.s16/.f16
	numClasses
)

var classInfo = [numClasses]struct{ prefix, decl string }{
	ClassB32:  {"%r", ".b32"},
	ClassB64:  {"%rd", ".b64"},
	ClassF32:  {"%f", ".f32"},
	ClassF64:  {"%fd", ".f64"},
	ClassPred: {"%p", ".pred"},
	ClassB16:  {"%rs", ".b16"},
}

// Init defines one state variable. Shrink may replace its Lines by
// ZeroLine: the variable stays defined, with a simpler value.
type Init struct {
	Var   string
	Class Class
	Lines []string
}

// ZeroLine returns the one-line definition of the variable as zero
// (false for a predicate).
func (in *Init) ZeroLine() string {
	switch in.Class {
	case ClassB64:
		return fmt.Sprintf("mov.u64 %s, 0;", in.Var)
	case ClassF32:
		return fmt.Sprintf("mov.f32 %s, 0f00000000;", in.Var)
	case ClassF64:
		return fmt.Sprintf("mov.f64 %s, 0d0000000000000000;", in.Var)
	case ClassPred:
		return fmt.Sprintf("setp.ne.u32 %s, 0, 0;", in.Var)
	case ClassB16:
		return fmt.Sprintf("mov.u16 %s, 0;", in.Var)
	}
	return fmt.Sprintf("mov.u32 %s, 0;", in.Var)
}

// Stmt is a statement of a function body.
type Stmt interface {
	// kind names the statement for coverage counts ("int.add",
	// "if.divergent").
	kind() string
}

// Leaf is a straight-line statement: PTX lines, without labels or
// branches out of it.
type Leaf struct {
	Kind  string
	Lines []string
}

// If is a conditional: Cond computes the predicate Pred; Then runs when
// Pred is true (false with Neg), Else otherwise.
type If struct {
	Kind string
	Cond []string
	Pred string
	Neg  bool
	// Uniform says every thread of the CTA takes the same way (bra.uni).
	Uniform    bool
	Then, Else []Stmt
}

// Loop runs Body Trip times (fewer with a Break): Init sets Counter to
// zero and Trip to the trip count (at least 1 when Bottom). Bottom puts
// the test at the end (a do-while loop); Pred is the loop's own
// predicate register.
type Loop struct {
	Kind    string
	Init    []string
	Counter string
	Trip    string
	Pred    string
	Bottom  bool
	Uniform bool
	Body    []Stmt
}

// Break leaves the innermost loop when Pred (negated with Neg) holds;
// Continue goes on with its next iteration.
type Break struct {
	Cond []string
	Pred string
	Neg  bool
	Uni  bool
}

// Switch jumps through a branch table (brx.idx) to one of its arms: Cond
// sets Index to a value in [0, len(Arms)). Arm k falls through into arm
// k+1 when Fall[k] is set, as in a C switch without break. Uniform says
// every thread of the CTA takes the same arm. With Cascade (one predicate
// per arm) it is written the way nvcc writes a small switch instead: a
// chain of setp.eq + bra, one per arm, then a branch to the end (the
// default, which no index reaches), what DoSwitchOpt turns into a table.
type Switch struct {
	Kind    string
	Cond    []string
	Index   string
	Uniform bool
	Arms    [][]Stmt
	Fall    []bool
	Cascade []string
}

// Continue skips the rest of the innermost loop's body.
type Continue struct {
	Cond []string
	Pred string
	Neg  bool
	Uni  bool
}

func (l *Leaf) kind() string     { return l.Kind }
func (s *If) kind() string       { return s.Kind }
func (s *Loop) kind() string     { return s.Kind }
func (s *Switch) kind() string   { return s.Kind }
func (s *Break) kind() string    { return "break" }
func (s *Continue) kind() string { return "continue" }

// PTX returns the module text.
func (p *Program) PTX() string {
	var b strings.Builder
	fmt.Fprintf(&b, "// orilab ptxgen seed %d\n", p.Seed)
	b.WriteString(".version 8.0\n")
	fmt.Fprintf(&b, ".target sm_%d\n", p.Target)
	b.WriteString(".address_size 64\n")
	if len(p.Decls) > 0 {
		b.WriteString("\n")
	}
	for _, d := range p.Decls {
		b.WriteString(d + "\n")
	}
	for _, f := range p.Funcs {
		b.WriteString("\n")
		f.write(&b)
	}
	b.WriteString("\n")
	p.Kernel.write(&b)
	return b.String()
}

// emitter writes one function body, numbering its labels.
type emitter struct {
	b      *strings.Builder
	fn     string
	labels int
	// loops holds the innermost loop's continue and break labels last.
	loops [][2]string
}

func (e *emitter) label() string {
	e.labels++
	return fmt.Sprintf("$L_%s_%d", e.fn, e.labels)
}

func (e *emitter) line(s string) {
	if strings.HasSuffix(s, ":") {
		e.b.WriteString(s + "\n")
		return
	}
	e.b.WriteString("\t" + s + "\n")
}

func (e *emitter) lines(ls []string) {
	for _, l := range ls {
		e.line(l)
	}
}

// String returns the function's PTX text.
func (f *Func) String() string {
	var b strings.Builder
	f.write(&b)
	return b.String()
}

func (f *Func) write(b *strings.Builder) {
	if f.Entry {
		b.WriteString(".visible .entry " + f.Name + "(")
	} else {
		b.WriteString(".func ")
		if f.Ret != "" {
			fmt.Fprintf(b, "(.param %s %s) ", f.Ret, f.RetName)
		}
		b.WriteString(f.Name + "(")
	}
	for i, p := range f.Params {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(b, "\n\t.param %s %s", p.Type, p.Name)
	}
	b.WriteString("\n)\n{\n")
	for c := Class(0); c < numClasses; c++ {
		if f.Regs[c] > 0 {
			fmt.Fprintf(b, "\t.reg %s %s<%d>;\n", classInfo[c].decl, classInfo[c].prefix, f.Regs[c])
		}
	}
	for _, d := range f.Decls {
		b.WriteString("\t" + d + "\n")
	}
	e := &emitter{b: b, fn: f.Name}
	e.lines(f.Prologue)
	for _, in := range f.Inits {
		e.lines(in.Lines)
	}
	for _, l := range f.Setup {
		e.lines(l.Lines)
	}
	e.stmts(f.Body)
	e.stmts(f.Observe)
	e.lines(f.Epilogue)
	b.WriteString("}\n")
}

func (e *emitter) stmts(ss []Stmt) {
	for _, s := range ss {
		e.stmt(s)
	}
}

func guard(pred string, neg bool) string {
	if neg {
		return "@!" + pred
	}
	return "@" + pred
}

func braOp(uni bool) string {
	if uni {
		return "bra.uni"
	}
	return "bra"
}

func (e *emitter) stmt(s Stmt) {
	switch s := s.(type) {
	case *Leaf:
		e.lines(s.Lines)
	case *If:
		e.lines(s.Cond)
		end := e.label()
		if len(s.Else) == 0 {
			// Skip Then when the condition fails.
			e.line(fmt.Sprintf("%s %s %s;", guard(s.Pred, !s.Neg), braOp(s.Uniform), end))
			e.stmts(s.Then)
			e.line(end + ":")
			return
		}
		els := e.label()
		e.line(fmt.Sprintf("%s %s %s;", guard(s.Pred, !s.Neg), braOp(s.Uniform), els))
		e.stmts(s.Then)
		e.line(fmt.Sprintf("%s %s;", braOp(s.Uniform), end))
		e.line(els + ":")
		e.stmts(s.Else)
		e.line(end + ":")
	case *Loop:
		e.lines(s.Init)
		head, cont, end := e.label(), e.label(), e.label()
		e.loops = append(e.loops, [2]string{cont, end})
		e.line(head + ":")
		if !s.Bottom {
			e.line(fmt.Sprintf("setp.ge.u32 %s, %s, %s;", s.Pred, s.Counter, s.Trip))
			e.line(fmt.Sprintf("@%s %s %s;", s.Pred, braOp(s.Uniform), end))
		}
		e.stmts(s.Body)
		e.line(cont + ":")
		e.line(fmt.Sprintf("add.u32 %s, %s, 1;", s.Counter, s.Counter))
		if s.Bottom {
			e.line(fmt.Sprintf("setp.lt.u32 %s, %s, %s;", s.Pred, s.Counter, s.Trip))
			e.line(fmt.Sprintf("@%s %s %s;", s.Pred, braOp(s.Uniform), head))
		} else {
			e.line(fmt.Sprintf("%s %s;", braOp(s.Uniform), head))
		}
		e.line(end + ":")
		e.loops = e.loops[:len(e.loops)-1]
	case *Switch:
		e.lines(s.Cond)
		tab, end := e.label(), e.label()
		arms := make([]string, len(s.Arms))
		for k := range arms {
			arms[k] = e.label()
		}
		if len(s.Cascade) == len(arms) {
			for k := range arms {
				e.line(fmt.Sprintf("setp.eq.u32 %s, %s, %d;", s.Cascade[k], s.Index, k))
				e.line(fmt.Sprintf("@%s %s %s;", s.Cascade[k], braOp(s.Uniform), arms[k]))
			}
			e.line(fmt.Sprintf("%s %s;", braOp(s.Uniform), end))
		} else {
			e.line(fmt.Sprintf("%s: .branchtargets %s;", tab, strings.Join(arms, ", ")))
			op := "brx.idx"
			if s.Uniform {
				op = "brx.idx.uni"
			}
			e.line(fmt.Sprintf("%s %s, %s;", op, s.Index, tab))
		}
		for k, arm := range s.Arms {
			e.line(arms[k] + ":")
			e.stmts(arm)
			if k < len(s.Arms)-1 && !s.Fall[k] {
				e.line(fmt.Sprintf("%s %s;", braOp(s.Uniform), end))
			}
		}
		e.line(end + ":")
	case *Break:
		if len(e.loops) == 0 {
			return // a reduced program may have lost the loop; Shrink never does that, but stay valid
		}
		e.lines(s.Cond)
		e.line(fmt.Sprintf("%s %s %s;", guard(s.Pred, s.Neg), braOp(s.Uni), e.loops[len(e.loops)-1][1]))
	case *Continue:
		if len(e.loops) == 0 {
			return
		}
		e.lines(s.Cond)
		e.line(fmt.Sprintf("%s %s %s;", guard(s.Pred, s.Neg), braOp(s.Uni), e.loops[len(e.loops)-1][0]))
	default:
		// Only the statement types above exist; say so in the output
		// rather than panic.
		e.line(fmt.Sprintf("// unknown statement %T", s))
	}
}

// Kinds counts the statements of every function by kind ("int.add",
// "loop.divergent", ...): what the program exercises.
func (p *Program) Kinds() map[string]int {
	out := map[string]int{}
	for _, f := range p.Funcs {
		walkStmts(f.Body, func(s Stmt) { out[s.kind()]++ })
	}
	walkStmts(p.Kernel.Body, func(s Stmt) { out[s.kind()]++ })
	return out
}

// children returns the statement lists nested in s, for walking and
// editing the tree.
func children(s Stmt) []*[]Stmt {
	switch s := s.(type) {
	case *If:
		return []*[]Stmt{&s.Then, &s.Else}
	case *Loop:
		return []*[]Stmt{&s.Body}
	case *Switch:
		out := make([]*[]Stmt, len(s.Arms))
		for i := range s.Arms {
			out[i] = &s.Arms[i]
		}
		return out
	}
	return nil
}

// walkStmts calls visit for every statement of ss, in preorder.
func walkStmts(ss []Stmt, visit func(Stmt)) {
	for _, s := range ss {
		visit(s)
		for _, c := range children(s) {
			walkStmts(*c, visit)
		}
	}
}
