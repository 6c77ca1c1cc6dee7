package knobs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Environment variables the loader reads. Callers pass them in
// Sources.Env (EnvFromOS collects them), so tests never touch os.Environ.
const (
	// EnvKnobs holds knob records in the same syntax as -knob:
	// ORILAB_KNOBS='SchedNumBB_Limit=100~WHEN=SH=0x1234;DUMPIR=AllocateRegisters'.
	//
	// Decision: ptxas reads knobs from the environment in KnobsInitFromEnv
	// (001:39464), but the seed names no variable, and the one description
	// of its syntax ("comma-separated name=value pairs", 001:39464 and
	// 40039-40044) comes from attributing the NamedPhases parser to it, one
	// of the three NamedPhases descriptions that disagree. orilab uses its
	// own name, so it can never pick up settings meant for a real ptxas,
	// and the -knob syntax, so that list values ("1,2,3") and WHEN= work
	// and there is one syntax to learn.
	EnvKnobs = "ORILAB_KNOBS"
	// EnvDumpKnobsToFile is ptxas's DUMP_KNOBS_TO_FILE (001:40639-40659): a
	// path to write the resolved knob values to. The loader only records it
	// (Set.DumpFile), as ptxas's KnobInit only stores it; the driver writes
	// Set.Dump there once the knobs are resolved.
	EnvDumpKnobsToFile = "DUMP_KNOBS_TO_FILE"
)

// EnvFromOS returns the variables the loader reads from the process
// environment, and only those.
func EnvFromOS() map[string]string {
	env := map[string]string{}
	for _, k := range []string{EnvKnobs, EnvDumpKnobsToFile} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	return env
}

// File is a knobs file (-knobs-file). If Content is nil the loader reads
// Path from disk the way ptxas's ReadKnobsFile does (seek to the end to
// size it, rewind, read it whole, close); otherwise Content is the file's
// bytes and Path only names it in messages.
type File struct {
	Path    string
	Content []byte
}

// Context says where knob values are being evaluated, for WHEN= records:
// SH= conditions compare ShaderHash(Function), IH= conditions compare IH.
// The zero Context is module scope: no WHEN= record applies there.
type Context struct {
	// Function is the function being compiled, as named in the PTX; "" for
	// module scope. Its per-function .pragma knobs apply too.
	Function string
	// IH is the instruction hash (InstrHash) when HasInstr is true.
	IH       uint32
	HasInstr bool
}

// Sources are the places knob values come from, listed in ptxas's
// priority order (001:39459-39468, 000:409-419): each overrides the ones
// before it, and WHEN= records from any source override them all.
type Sources struct {
	// Env is the environment (see EnvKnobs, EnvDumpKnobsToFile); nil reads
	// nothing.
	Env map[string]string
	// File is the knobs file, or nil.
	File *File
	// CLI holds the argument of every -knob, in command-line order.
	CLI []string
	// Pragmas are the module-scope .pragma strings of the PTX, without
	// quotes. Pragmas that are PTX's own (IsPTXPragma) are skipped.
	Pragmas []string
	// FuncPragmas are the .pragma strings inside each function, keyed by
	// function name; they apply only in that function's Set.
	FuncPragmas map[string][]string
	// PragmaPos and FuncPragmaPos, when set, run parallel to Pragmas and
	// FuncPragmas: where each string stands in the PTX, as "FILE:LINE:COL",
	// so that an error in a .pragma knob names its place as every other
	// PTX error does.
	PragmaPos     []string
	FuncPragmaPos map[string][]string
	// Context is where the returned Set is evaluated; Set.ForFunction and
	// Set.ForInstr give the Set for other places.
	Context Context
}

// ErrUnknownKnob is the error (wrapped in *Error) for a well-formed name
// that no registered knob has.
var ErrUnknownKnob = errors.New("unknown knob")

// Printf formats of ptxas's ReadKnobsFile errors, verbatim from
// 001:39906-39910 (000:381-385), with generic_knobs_impl.h's line numbers.
const (
	// FmtFseekError: impl.h:1075. orilab uses it when seeking to the end
	// of the file (to size it) fails.
	FmtFseekError = "fseek() error knobsfile %s"
	// FmtFseekForError: impl.h:1080. Decision: the seed gives both fseek
	// texts for "SEEK_END fails"; orilab uses this one when the rewind
	// (SEEK_SET) fails, so each step has its own text.
	FmtFseekForError = "fseek() error for knobsfile %s"
	// FmtFreadError: impl.h:1070, fread returned <= 0. An empty knobs file
	// is therefore an error, as in ptxas.
	FmtFreadError = "fread() error knobsfile %s"
	// FmtHeaderNotFound: impl.h:1065, no "[knobs]" anywhere in the file.
	FmtHeaderNotFound = "Knobs header not found in %s"
	// FmtFcloseError: impl.h:1085.
	FmtFcloseError = "fclose() error for knobsfile %s"
	// FmtFopenError is orilab's: the seed lists no text for a failed fopen.
	FmtFopenError = "fopen() error knobsfile %s"
)

// Error is a knob error, naming where the bad text came from. Its Error
// text is "SOURCE: RECORD: MESSAGE", with SOURCE one of
//
//	-knob NAME=VALUE       (the -knob record; RECORD is then omitted)
//	knobs.txt:3            (file and line)
//	.pragma "..."          (the whole pragma string)
//	env ORILAB_KNOBS
//
// and MESSAGE ptxas's text where ptxas has one (Err is then one of the
// Err* variables of this package).
type Error struct {
	// Source names where the record came from; "" for an error about the
	// knobs file as a whole, whose message names the file.
	Source string
	// Record is the record, or part of it, the message is about.
	Record string
	// Knob is the name that was not found, for ErrUnknownKnob.
	Knob string
	// Hint is the registered name closest to Knob, or "".
	Hint string
	// Err is the cause.
	Err error
	// Ptxas is what ptxas reports where orilab's message differs: for an
	// unknown knob, warning 7203 "Invalid knob specified (NAME)"
	// (001:39432), which ptxas prints before it carries on.
	Ptxas string
	// shown is set when Source already spells out the one assignment the
	// error is about, so a RangeError gives only the range.
	shown bool
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString(e.Source)
		b.WriteString(": ")
	}
	if errors.Is(e.Err, ErrUnknownKnob) {
		fmt.Fprintf(&b, "unknown knob %q", e.Knob)
		if e.Hint != "" {
			fmt.Fprintf(&b, " (did you mean %q?)", e.Hint)
		}
		return b.String()
	}
	if e.Record != "" {
		b.WriteString(e.Record)
		b.WriteString(": ")
	}
	var re *RangeError
	if e.shown && errors.As(e.Err, &re) {
		b.WriteString("out of range: " + re.Bounds.describe())
		return b.String()
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Warning is something the loader did not do, reported without failing.
type Warning struct {
	// Source names where the text came from, as in Error.
	Source string
	// Code is ptxas's warning number where it has one (7203), else 0.
	Code int
	// Msg is the warning text.
	Msg string
}

func (w Warning) String() string {
	if w.Source == "" {
		return w.Msg
	}
	return w.Source + ": " + w.Msg
}

// Loader resolves knob values from their sources.
type Loader struct {
	// Registry holds the knobs; nil means Default.
	Registry *Registry
	// Compat makes an unknown knob name what it is in ptxas, warning 7203
	// "Invalid knob specified (NAME)", and skips the record. By default it
	// is an error: ptxas's behaviour lets a misspelled knob silently do
	// nothing, and the engineer then chases a heuristic change that never
	// happened.
	Compat bool

	// open replaces os.Open in tests that make file I/O fail.
	open func(path string) (knobsFile, error)
}

// knobsFile is what ReadKnobsFile does with a file: seek, read, close.
type knobsFile interface {
	io.ReadSeeker
	io.Closer
}

// Load resolves src against reg (nil: Default) with a default Loader.
func Load(reg *Registry, src Sources) (*Set, []Warning, error) {
	return Loader{Registry: reg}.Load(src)
}

// parser carries one Load's state.
type parser struct {
	reg           *Registry
	compat        bool
	compatSkipped []*recordError // unknown names skipped in compat mode, not yet reported
	errs          []error
	warns         []Warning
}

// Load reads every source in priority order and returns the Set for
// src.Context. All errors are collected, not just the first, so one run
// shows every typo; the error is then an errors.Join of *Error values and
// the Set is nil. Warnings are returned either way.
func (l Loader) Load(src Sources) (*Set, []Warning, error) {
	reg := l.Registry
	if reg == nil {
		reg = Default
	}
	p := &parser{reg: reg, compat: l.Compat}
	lay := &layers{reg: reg, base: map[string]entry{}, funcPragmas: map[string][]assignment{}}
	if src.Env != nil {
		lay.dumpFile = src.Env[EnvDumpKnobsToFile]
	}

	// 1. The environment.
	if v, ok := src.Env[EnvKnobs]; ok {
		p.run(lay, v, 1, false, "", func(record) (string, bool) { return "env " + EnvKnobs, true })
	}

	// 2. The knobs file.
	if src.File != nil {
		if text, line, ok := l.readFile(p, src.File); ok {
			name := fileLabel(src.File)
			p.run(lay, text, line, true, "", func(r record) (string, bool) {
				return fmt.Sprintf("%s:%d", name, r.line), true
			})
		}
	}

	// 3. -knob, in command-line order.
	for _, arg := range src.CLI {
		p.run(lay, arg, 1, false, "", func(r record) (string, bool) {
			return "-knob " + strings.TrimSpace(r.text), false
		})
	}

	// 4. .pragma strings, unless DisablePragmaKnobs is set by now. ptxas
	// applies them per function at compile time (000:416); module-scope
	// ones apply to every function, so they go into the base layer.
	pragmas := knobPragmas(src.Pragmas, src.PragmaPos)
	n := len(pragmas)
	for fn, ps := range src.FuncPragmas {
		n += len(knobPragmas(ps, src.FuncPragmaPos[fn]))
	}
	if n > 0 && lay.pragmasDisabled() {
		p.warns = append(p.warns, Warning{Msg: fmt.Sprintf(
			"%d .pragma knob string(s) ignored: %s is set", n, KnobDisablePragmaKnobs)})
	} else {
		for _, ps := range pragmas {
			p.run(lay, ps.text, 1, false, "", pragmaLabel(ps, ""))
		}
		for _, fn := range slices.Sorted(maps.Keys(src.FuncPragmas)) {
			for _, s := range knobPragmas(src.FuncPragmas[fn], src.FuncPragmaPos[fn]) {
				p.run(lay, s.text, 1, false, fn, pragmaLabel(s, fn))
			}
		}
	}

	// 5. WHEN= records are kept in lay.when, in source order, and applied
	// last by view.
	if len(p.errs) > 0 {
		return nil, p.warns, errors.Join(p.errs...)
	}
	return lay.view(src.Context), p.warns, nil
}

func pragmaLabel(s pragma, fn string) func(record) (string, bool) {
	src := ".pragma " + strconv.Quote(s.text)
	if s.pos != "" {
		src = s.pos + ": " + src
	}
	if fn != "" {
		src += " in " + fn
	}
	return func(record) (string, bool) { return src, true }
}

func fileLabel(f *File) string {
	if f.Path == "" {
		return "knobs file"
	}
	return f.Path
}

// run parses one source's text and applies it: plain assignments to the
// base layer (or to function fn's pragma layer), WHEN= records to the list.
// label names the source of a record and says whether messages should
// repeat the record (not for -knob, whose label already shows it).
func (p *parser) run(lay *layers, text string, firstLine int, comments bool, fn string,
	label func(record) (string, bool)) {
	for _, r := range splitRecords(text, firstLine, comments) {
		source, withRecord := label(r)
		as, w, inject, rerr := p.parseRecord(r.text, source)
		for _, sk := range p.compatSkipped {
			p.warns = append(p.warns, Warning{Source: source, Code: 7203,
				Msg: fmt.Sprintf("Invalid knob specified (%s)", sk.knob)})
		}
		p.compatSkipped = nil
		switch {
		case rerr != nil:
			e := &Error{Source: source, Knob: rerr.knob, Hint: rerr.hint, Err: rerr.err}
			var rng *RangeError
			switch {
			case errors.As(rerr.err, &rng):
				// The range error names knob=value itself; the label
				// may name it too (-knob X=-5, .pragma "X=-5").
				rec := strings.TrimSpace(r.text)
				e.shown = strings.HasSuffix(source, "-knob "+rec) ||
					strings.Contains(source, ".pragma "+strconv.Quote(rec))
			case withRecord || rerr.record != strings.TrimSpace(r.text):
				e.Record = rerr.record
			}
			if rerr.err == ErrUnknownKnob || rerr.err == ErrInvalidKnobIdentifier {
				e.Ptxas = fmt.Sprintf("Invalid knob specified (%s)", rerr.knob)
			}
			p.errs = append(p.errs, e)
		case inject:
			p.warns = append(p.warns, Warning{Source: source,
				Msg: "INJECTSTRING ignored: the seed does not say what it injects"})
		case w != nil:
			w.function = fn
			lay.when = append(lay.when, w)
		}
		for _, a := range as {
			if fn != "" {
				lay.funcPragmas[fn] = append(lay.funcPragmas[fn], a)
			} else {
				lay.base[a.def.key] = entry{def: a.def, val: a.val, origin: a.origin}
			}
		}
	}
}

// readFile returns the text after "[knobs]" and the line it starts on.
// Failures are recorded in p.errs; several can occur together (a failed
// read and a failed close), and ptxas chains them the same way (000:376).
func (l Loader) readFile(p *parser, f *File) (string, int, bool) {
	name := fileLabel(f)
	buf := f.Content
	if buf == nil {
		open := l.open
		if open == nil {
			open = func(path string) (knobsFile, error) { return os.Open(path) }
		}
		fh, err := open(f.Path)
		if err != nil {
			p.errs = append(p.errs, &Error{Err: fmt.Errorf(FmtFopenError+": %w", name, err)})
			return "", 0, false
		}
		var errs []error
		buf, errs = readKnobsFile(name, fh)
		for _, e := range errs {
			p.errs = append(p.errs, &Error{Err: e})
		}
		if len(errs) > 0 {
			return "", 0, false
		}
	} else if len(buf) == 0 {
		// ptxas's fread of an empty file returns 0, which it reports.
		p.errs = append(p.errs, &Error{Err: fmt.Errorf(FmtFreadError, name)})
		return "", 0, false
	}
	i := findHeader(buf)
	if i < 0 {
		p.errs = append(p.errs, &Error{Err: fmt.Errorf(FmtHeaderNotFound, name)})
		return "", 0, false
	}
	start := i + len("[knobs]")
	return string(buf[start:]), 1 + bytes.Count(buf[:start], []byte("\n")), true
}

// findHeader returns the offset of the "[knobs]" marker, or -1. Like
// ptxas's strstr it finds the marker anywhere, mid-line included, and
// everything before it is ignored (000:374).
//
// Decision: a marker inside a comment line (first non-blank character ';'
// or '#') does not count. The seed's own example file (000:347-354) says
// "ReadKnobsFile ignores everything until [knobs] is found." in a comment
// above the header, so plain strstr would start parsing at " is found."
// (ptxas then warns twice about invalid knobs; orilab would fail). Since
// orilab reads such lines as comments after the header, it reads them as
// comments before it too.
func findHeader(buf []byte) int {
	marker := []byte("[knobs]")
	for off := 0; ; {
		k := bytes.Index(buf[off:], marker)
		if k < 0 {
			return -1
		}
		i := off + k
		line := buf[bytes.LastIndexByte(buf[:i], '\n')+1 : i]
		line = bytes.TrimLeft(line, " \t\r")
		if len(line) == 0 || (line[0] != ';' && line[0] != '#') {
			return i
		}
		off = i + len(marker)
	}
}

// readKnobsFile is ReadKnobsFile's I/O (000:358-369): size the file by
// seeking to its end, rewind, read it whole, close it. Every failing step
// adds its ptxas text; the file is closed whatever happens.
func readKnobsFile(name string, fh knobsFile) ([]byte, []error) {
	var errs []error
	var buf []byte
	size, err := fh.Seek(0, io.SeekEnd)
	switch {
	case err != nil:
		errs = append(errs, fmt.Errorf(FmtFseekError, name))
	default:
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			errs = append(errs, fmt.Errorf(FmtFseekForError, name))
			break
		}
		buf = make([]byte, size)
		n, _ := io.ReadFull(fh, buf)
		if n <= 0 {
			errs = append(errs, fmt.Errorf(FmtFreadError, name))
		}
		buf = buf[:n]
	}
	if err := fh.Close(); err != nil {
		errs = append(errs, fmt.Errorf(FmtFcloseError, name))
	}
	return buf, errs
}

// ptxPragmas are the .pragma strings the PTX ISA itself defines; they are
// directives to the compiler, not knob records, and reach the loader only
// because callers pass every pragma string.
//
// Decision: the seed says pragma strings go through ParseKnobsString
// (000:389) but not which ones; "nounroll" is in real PTX (the corpus has
// it throughout), so an orilab that reported it as an unknown knob could
// compile nothing. These are skipped; every other pragma string is knobs.
var ptxPragmas = map[string]bool{
	"nounroll":             true,
	"used_bytes_mask":      true,
	"enable_smem_spilling": true,
}

// IsPTXPragma reports whether a .pragma string is one of PTX's own
// ("nounroll", "used_bytes_mask 0xf", "enable_smem_spilling") rather than
// knob records.
func IsPTXPragma(s string) bool {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return ptxPragmas[strings.TrimSuffix(w, ";")]
}

// pragma is one .pragma string and where it stands ("" when unknown).
type pragma struct{ text, pos string }

// knobPragmas returns the strings of ps that are knob settings, with
// their positions from pos (parallel to ps; it may be nil).
func knobPragmas(ps, pos []string) []pragma {
	var out []pragma
	for i, s := range ps {
		if !IsPTXPragma(s) && strings.TrimSpace(s) != "" {
			p := pragma{text: s}
			if i < len(pos) {
				p.pos = pos[i]
			}
			out = append(out, p)
		}
	}
	return out
}
