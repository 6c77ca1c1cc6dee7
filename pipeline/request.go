package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ptx"
)

// Request is one compilation as a user asked for it. Every front door
// (each orilab subcommand, bisection, the fault injector, the workbench
// and the differential tester) fills one in and starts its sessions with
// Start, so a flag means the same compilation everywhere: the knobs are
// resolved once, from every source in ptxas's priority order, the
// module's .pragma strings included; the fault, if any, is planted and
// judged by the same code.
type Request struct {
	// Arch is the SM target (75 for sm_75); 0 takes the module's .target
	// (at least sm_75).
	Arch int
	// OptLevel is -O, 0-4 (5 is accepted as 4). The zero value is -O0;
	// front doors default to ptxas's 3.
	OptLevel int
	// Knobs are the knob sources outside the PTX: the environment
	// (ORILAB_KNOBS), a knobs file and the -knob arguments (KnobSources
	// fills them from flags). Start adds the module's .pragma strings;
	// Pragmas, FuncPragmas and their positions set here are ignored.
	Knobs knobs.Sources
	// DisablePhases are disabled on top of the DisablePhases knob
	// (bisection's searches set them).
	DisablePhases []string
	// MaxRegCount is --maxrregcount (0: the hardware's limit).
	MaxRegCount int
	// Verify runs the IR verifier after every phase.
	Verify bool
	// Release skips the verifiers a compilation runs on its own result
	// (PhaseOptions.Release): orilab compile without --check.
	Release bool
	// Fault, when set, is planted after its phase (see Fault).
	Fault *Fault
	// Observer, when set, sees every snapshot as it is recorded.
	Observer func(*Snapshot)
	// Log receives the knob loader's warnings and, with the DumpKnobs
	// knob, the knob listing; nil drops them.
	Log io.Writer
	// DumpTo receives the IR the DUMPIR knob asks for (nil: not written).
	DumpTo io.Writer
	// Jobs bounds how many of the module's independent functions compile
	// at once (PhaseOptions.Jobs): 0 is GOMAXPROCS, 1 one after another.
	// The output does not depend on it.
	Jobs int
}

// Args returns the command-line arguments that ask for r again, unquoted:
// -O, -arch, every -knob, -knobs-file, --maxrregcount, --verify and the
// fault's flags, with DisablePhases as a -knob. ORILAB_KNOBS is not
// repeated: a replay in the same environment reads it again.
func (r *Request) Args() []string {
	out := []string{"-O", fmt.Sprint(r.OptLevel)}
	if r.Arch != 0 {
		out = append(out, "-arch", fmt.Sprintf("sm_%d", r.Arch))
	}
	if r.Knobs.File != nil {
		out = append(out, "-knobs-file", r.Knobs.File.Path)
	}
	for _, k := range r.Knobs.CLI {
		out = append(out, "-knob", k)
	}
	if len(r.DisablePhases) > 0 {
		out = append(out, "-knob", "DisablePhases="+strings.Join(r.DisablePhases, "+"))
	}
	if r.MaxRegCount != 0 {
		out = append(out, "--maxrregcount", fmt.Sprint(r.MaxRegCount))
	}
	if r.Verify {
		out = append(out, "--verify")
	}
	if r.Fault != nil {
		out = append(out, r.Fault.Args...)
	}
	return out
}

// KnobSources returns knob sources as the command line gives them: the
// ORILAB_KNOBS environment variable, the knobs file at path (none when
// path is "") and the -knob arguments, in command-line order.
func KnobSources(cli []string, path string) (knobs.Sources, error) {
	src := knobs.Sources{Env: knobs.EnvFromOS(), CLI: cli}
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return src, err
		}
		src.File = &knobs.File{Path: path, Content: b}
	}
	return src, nil
}

// WithKnobs returns a copy of r with cli after its own -knob arguments:
// later settings win, so cli overrides r's. Knob and sites bisection and
// the workbench's knob pane use it.
func (r Request) WithKnobs(cli ...string) Request {
	r.Knobs.CLI = append(append([]string(nil), r.Knobs.CLI...), cli...)
	return r
}

// ResolveKnobs loads the knob set of a compilation of m: r's sources plus
// m's .pragma strings (m may be nil: no pragmas).
func (r *Request) ResolveKnobs(m *ptx.Module) (*knobs.Set, error) {
	src := r.Knobs
	src.Pragmas, src.FuncPragmas = nil, nil
	src.PragmaPos, src.FuncPragmaPos = nil, nil
	if m != nil {
		src.Pragmas, src.FuncPragmas = Pragmas(m)
		src.PragmaPos, src.FuncPragmaPos = PragmaPositions(m)
	}
	set, warns, err := knobs.Load(knobs.Default, src)
	if err != nil {
		return nil, err
	}
	if r.Log != nil {
		for _, w := range warns {
			fmt.Fprintf(r.Log, "orilab: warning: %s\n", w)
		}
		if set.DumpKnobs() {
			set.Dump(r.Log)
		}
	}
	return set, nil
}

// SessionControl is what a front door wants from the phase manager beyond
// the compilation itself.
type SessionControl struct {
	// Context cancels the compilation between phases.
	Context context.Context
	// Snapshots records a snapshot per phase (the workbench, bisection's
	// phase mode); without it only the final IR is kept.
	Snapshots bool
	// RecordSites keeps each phase's list of rewrites in its snapshot.
	RecordSites bool
}

// PhaseOptions resolves r's knobs for m and returns the phase manager's
// options for it.
func (r *Request) PhaseOptions(m *ptx.Module, c SessionControl) (PhaseOptions, error) {
	set, err := r.ResolveKnobs(m)
	if err != nil {
		return PhaseOptions{}, err
	}
	po := PhaseOptions{
		OptLevel:      r.OptLevel,
		DisablePhases: append([]string(nil), r.DisablePhases...),
		Verify:        r.Verify,
		Release:       r.Release,
		Observer:      r.Observer,
		Context:       c.Context,
		NoSnapshots:   !c.Snapshots,
		RecordSites:   c.RecordSites,
		MaxRegCount:   r.MaxRegCount,
		Fault:         r.Fault,
		DumpTo:        r.DumpTo,
		Jobs:          r.Jobs,
	}
	if err := po.ApplyKnobs(set); err != nil {
		return PhaseOptions{}, err
	}
	return po, nil
}

// Start lowers m and prepares the phases of the compilation r asks for.
func (r *Request) Start(m *ptx.Module, c SessionControl) (*Session, error) {
	if r.MaxRegCount < 0 || r.MaxRegCount > 255 {
		return nil, fmt.Errorf("--maxrregcount %d: want 1 to 255 (0 for no limit)", r.MaxRegCount)
	}
	po, err := r.PhaseOptions(m, c)
	if err != nil {
		return nil, err
	}
	return NewSessionFrom(m, Options{Arch: r.Arch}, po)
}

// StartFile parses and checks src, then Starts it.
func (r *Request) StartFile(file string, src []byte, c SessionControl) (*Session, error) {
	m, err := ptx.Parse(file, src)
	if err != nil {
		return nil, err
	}
	return r.Start(m, c)
}
