//go:build nogpu

package cuda

import "fmt"

// bind: a build with -tags nogpu leaves purego out, so that with
// CGO_ENABLED=0 orilab is a static executable. Measured (sm_80 compile
// of testdata/kernels/addr32.ptx and orilab --help, user+sys CPU, median
// of 600 alternated runs): the static binary saves about 0.3 ms per
// process (--help 3.54 -> 3.23 ms), the dynamic loader's mapping of
// libc and the cgo runtime's start; the default build keeps the loader
// for orilab gpu run.
func bind(f *funcs, lib string) error {
	return fmt.Errorf("this orilab was built with -tags nogpu, without the run-time loader for %s; build it without the tag to use the GPU", lib)
}
