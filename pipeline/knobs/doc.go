// Package knobs is orilab's knob system, after ptxas's (seed 000, "Knobs
// System", and the -knob section of the CLI page, 001:39417-39490): the
// internal settings beneath the public flags that turn phases off, dump the
// IR and tune heuristics.
//
// The package owns
//
//   - the knob types and their value syntax: Type, Value, ParseValue, with
//     ptxas's ParseKnobValue error texts verbatim (value.go);
//   - the registry of knobs: Registry, Knob and the Default registry that
//     every package reading a knob registers it in (registry.go);
//   - the loader that reads the sources in ptxas's priority order:
//     environment (ORILAB_KNOBS) < knobs file < -knob < .pragma < WHEN=
//     records, and reports errors naming the source (load.go, parse.go);
//   - Set, the values in effect for one compilation, one function or one
//     instruction, and its DumpKnobs text (set.go);
//   - the FNV-1a hashes that WHEN=SH= and WHEN=IH= records match
//     (ShaderHash, InstrHash; hash.go);
//   - the knobs it reads itself or parses for the phase manager:
//     DisablePhases, NamedPhases, DUMPIR, DumpKnobs, DisablePragmaKnobs
//     (phases.go).
//
// It does not own the phase table, so phase names are not checked here:
// the phase manager checks the names DisabledPhases, NamedPhases and
// DumpIR return.
//
// Register a knob only when code reads it. ptxas has 1,294 knobs; orilab
// registers the ones its code consults, each with the readers that consult
// it, so `orilab knobs` lists only knobs that do something. A package that
// reads a knob registers it in an init function next to the reader:
//
//	func init() {
//		knobs.Default.Register(knobs.Knob{Name: "SchedNumBB_Limit", Type: knobs.TypeInt,
//			Default: "100", Doc: "...", Readers: []string{"scheduler"}})
//	}
//
// and reads it through the Set the compilation was given:
// set.ForFunction(fn).Int("SchedNumBB_Limit").
//
// Where orilab differs from ptxas, on purpose:
//
//   - An unknown knob name is an error with a "did you mean" suggestion.
//     ptxas prints warning 7203 "Invalid knob specified (%s)" and goes on
//     (001:39432), so a misspelled knob silently does nothing and an
//     engineer chases an effect that never happened. Loader.Compat restores
//     ptxas's warning, and Error.Ptxas keeps its text.
//   - Values must be entirely valid ("12abc" is not 12), and "=0" turns a
//     bool knob off (see ParseValue).
//   - An integer knob may declare Bounds (AtLeast, Between) where it is
//     registered; a value outside them is an error naming the knob and the
//     range, where ptxas stores whatever strtol returns.
//   - DisablePhases is a list of whole phase names, not a substring search
//     (see ParsePhaseList).
//   - Names are plain text: ptxas stores them ROT13-encoded (000:72-90),
//     which is obfuscation and nothing orilab needs.
//
// Where the seed is contradictory or silent the choice is marked
// "Decision:" next to the code: the environment variable and its syntax,
// what SH= and IH= hash, the NamedPhases syntax, DUMPIR's single name, the
// record grammar of WHEN= and INJECTSTRING, and the knobs file's fseek
// texts.
package knobs
