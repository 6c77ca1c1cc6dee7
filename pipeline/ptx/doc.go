// Package ptx is orilab's PTX front end: lexer, parser, abstract syntax tree,
// semantic checker and printer.
//
// It owns everything that is true of PTX text before any code generation
// decision: source positions, the shape of directives and instructions, name
// resolution (registers, symbols, labels, parameters), per-opcode operand
// forms and the PTX-version and target gates that the ISA documents. It
// imports nothing else of orilab's.
//
// The entry point is Parse, which lexes, parses and checks one module and
// reports every problem as "FILE:LINE:COL: error: MESSAGE" followed by the
// source line and a caret. Print turns a Module back into PTX text; printing,
// parsing and printing again is a fixed point, which the corpus tests pin.
//
// What is valid is what NVIDIA's ptxas 13.0 accepts: the checker
// (check.go) resolves names and matches operand forms and version/target
// gates (isa_table.go), then checks every modifier, instruction type and
// operand register type of the instructions orilab lowers against
// modtable.go (mods.go), and the .version/.target pairing (targets.go).
// internal/ptxasdiff measures the agreement with ptxas.
//
// Decisions where PTX compilers disagree or the ISA text is silent are
// written down next to the code that makes them; search for "Decision:".
package ptx
