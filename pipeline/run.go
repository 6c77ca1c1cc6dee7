package pipeline

import (
	"context"
	"fmt"
	"os"

	"orilab/pipeline/ori"
	"orilab/pipeline/sim"
	"orilab/pipeline/spec"
)

// RunOptions configures an execution.
type RunOptions struct {
	// Request is the compilation RunSpec runs (Execute and ExecuteBuffers
	// take compiled IR and ignore it).
	Request      Request
	MaxWarpSteps int64 // 0: sim.DefaultMaxWarpSteps
	// After names the phase after which the IR is executed; "" runs the
	// IR after the last phase, "lowering" the IR right after lowering.
	After string
	// Context, when set, stops an execution once it is done (see
	// sim.Options.Context).
	Context context.Context
	// Provenance, when set, records which PTX line produced every value
	// the run writes (sim.Provenance); it slows the run down.
	Provenance *sim.Provenance
	// MUFU, when set, may replace MUFU results (sim.Options.MUFU).
	MUFU func(fn string, x, y uint32) uint32
}

// RunReport is the outcome of executing a spec.
type RunReport struct {
	Spec    string        `json:"spec"`
	Kernel  string        `json:"kernel"`
	Pass    bool          `json:"pass"`
	Results []spec.Result `json:"results"`
	Stats   sim.Stats     `json:"stats"`
	// CompileOnly is set for specs that only have to compile.
	CompileOnly bool `json:"compile_only,omitempty"`
}

// RunSpec compiles the spec's PTX and executes its kernel.
func RunSpec(s *spec.Spec, opts RunOptions) (*RunReport, error) {
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		return nil, err
	}
	sess, err := opts.Request.StartFile(s.PTXPath, src, SessionControl{})
	if err != nil {
		return nil, err
	}
	m := sess.Lowered
	if opts.After != "lowering" {
		last := len(PhaseTable) - 1
		if opts.After != "" {
			if last, err = LookupPhase(opts.After); err != nil {
				return nil, fmt.Errorf("--after: %v", err)
			}
		}
		if err := sess.RunTo(last); err != nil {
			return nil, err
		}
		m = sess.Module()
	}
	if s.CompileOnly {
		return &RunReport{Spec: s.Name, Kernel: s.Kernel, Pass: true, CompileOnly: true}, nil
	}
	return Execute(m, s, opts)
}

// Execute runs the spec's kernel in m (Ori at any pipeline position) and
// checks the expected buffers. A failed expectation is not an error: the
// report says Pass false. Errors are for bad specs and simulator faults.
func Execute(m *ori.Module, s *spec.Spec, opts RunOptions) (*RunReport, error) {
	buffers, st, err := ExecuteBuffers(m, s, opts)
	if err != nil {
		return nil, err
	}
	results := s.Check(buffers)
	return &RunReport{Spec: s.Name, Kernel: s.Kernel, Pass: spec.AllPass(results), Results: results, Stats: *st}, nil
}

// ExecuteBuffers runs the spec's kernel in m and returns the contents of
// every parameter's own allocation after the launch (nil for scalars and
// same_as parameters), for callers that compare runs with each other.
func ExecuteBuffers(m *ori.Module, s *spec.Spec, opts RunOptions) ([][]byte, *sim.Stats, error) {
	f := m.Func(s.Kernel)
	if f == nil || !f.Entry {
		return nil, nil, fmt.Errorf("%s: kernel %q is not an .entry of %s", s.File, s.Kernel, s.PTX)
	}
	if len(f.Params) != len(s.Params) {
		return nil, nil, fmt.Errorf("%s: kernel %s takes %d parameters, the spec lists %d", s.File, s.Kernel, len(f.Params), len(s.Params))
	}
	g := sim.NewGlobal()
	allocs := make([]*sim.Alloc, len(s.Params))
	args := make([][]byte, len(s.Params))
	ptrSize := 8
	if m.AddressSize == 32 {
		ptrSize = 4
	}
	for i, p := range s.Params {
		switch {
		case p.Kind == spec.KindTexture:
			// The handle of a texture binding is its index plus one
			// (sim.Launch.Textures), passed as a 64-bit value.
			h := uint64(s.TextureIndex(p.Texture) + 1)
			args[i] = make([]byte, 8)
			for k := 0; k < 8; k++ {
				args[i][k] = byte(h >> (8 * k))
			}
		case p.Kind == spec.KindScalar:
			b, err := p.ScalarBytes()
			if err != nil {
				return nil, nil, fmt.Errorf("%s: params[%d]: %v", s.File, i, err)
			}
			args[i] = b
		default:
			o := s.Owner(i)
			if o < 0 {
				return nil, nil, fmt.Errorf("%s: params[%d]: same_as %q does not name an earlier buffer", s.File, i, p.SameAs)
			}
			if o == i {
				init, err := p.InitBytes()
				if err != nil {
					return nil, nil, fmt.Errorf("%s: params[%d]: %v", s.File, i, err)
				}
				a := g.Alloc(p.Name, len(init))
				copy(a.Data, init)
				allocs[i] = a
			}
			b := make([]byte, ptrSize)
			base := allocs[o].Base
			for k := 0; k < ptrSize; k++ {
				b[k] = byte(base >> (8 * k))
			}
			args[i] = b
		}
		if int64(len(args[i])) != f.Params[i].Size {
			return nil, nil, fmt.Errorf("%s: params[%d] (%s) is %d bytes, but the kernel's parameter %s is %d bytes", s.File, i, p.Name, len(args[i]), f.Params[i].Name, f.Params[i].Size)
		}
	}
	l := sim.Launch{Grid: s.Launch.Grid, Block: s.Launch.Block, DynamicShared: s.Launch.DynamicSharedBytes, Params: args}
	if len(s.Textures) > 0 {
		var err error
		if l.Textures, l.TexRefs, err = launchTextures(s, allocs); err != nil {
			return nil, nil, err
		}
	}
	st, err := sim.Run(m, s.Kernel, l, g, sim.Options{MaxWarpSteps: opts.MaxWarpSteps, Context: opts.Context, Provenance: opts.Provenance, MUFU: opts.MUFU})
	if err != nil {
		return nil, nil, err
	}
	buffers := make([][]byte, len(s.Params))
	for i, a := range allocs {
		if a != nil {
			buffers[i] = a.Data
		}
	}
	return buffers, st, nil
}
