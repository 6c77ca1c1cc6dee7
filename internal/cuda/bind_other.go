//go:build !((darwin || freebsd || linux || netbsd) && !android) && !nogpu

package cuda

import "fmt"

// bind: purego's dlopen exists only on the Unix systems above.
func bind(f *funcs, lib string) error {
	return fmt.Errorf("loading %s at run time is not supported on this system", lib)
}
