package pipeline

import (
	"fmt"

	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// Options configures a compilation.
type Options struct {
	// Arch is the SM target (75 for sm_75); 0 takes the module's .target
	// (at least sm_75).
	Arch int
}

// Result is a compiled module.
type Result struct {
	PTX *ptx.Module
	// Lowered is the Ori right after the lowering, verified.
	Lowered *ori.Module
}

// Compile parses, checks and lowers src, then verifies every function.
func Compile(file string, src []byte, opts Options) (*Result, error) {
	pm, err := ptx.Parse(file, src)
	if err != nil {
		return nil, err
	}
	m, err := lower.Lower(pm, lower.Options{Arch: opts.Arch})
	if err != nil {
		return nil, err
	}
	for _, f := range m.Funcs {
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			return nil, fmt.Errorf("internal error: the lowering of %s does not verify:\n%w", f.Name, err)
		}
	}
	return &Result{PTX: pm, Lowered: m}, nil
}
