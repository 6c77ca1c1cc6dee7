package pipeline

import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// Result is a compiled module.
type Result struct {
	PTX *ptx.Module
	// Lowered is the Ori right after the lowering, verified.
	Lowered *ori.Module
	// Final is the Ori after the last phase.
	Final *ori.Module
	// Snapshots has one entry per phase (empty with NoSnapshots).
	Snapshots []*Snapshot
}

// Compile parses, checks and lowers src and runs every phase.
func Compile(file string, src []byte, opts Options) (*Result, error) {
	return CompileWith(file, src, opts, PhaseOptions{OptLevel: 3})
}

// CompileWith is Compile with phase-manager options.
func CompileWith(file string, src []byte, opts Options, po PhaseOptions) (*Result, error) {
	s, err := NewSession(file, src, opts, po)
	if err != nil {
		return nil, err
	}
	if err := s.RunAll(); err != nil {
		return nil, err
	}
	return &Result{PTX: s.PTX, Lowered: s.Lowered, Final: s.Module(), Snapshots: s.Snapshots}, nil
}
