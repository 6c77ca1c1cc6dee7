//go:build (darwin || freebsd || linux || netbsd) && !android && !nogpu

package cuda

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// bind opens lib and binds every entry point of f, or says which is
// missing.
func bind(f *funcs, lib string) error {
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return fmt.Errorf("cannot open %s: %v", lib, err)
	}
	for _, s := range f.symbols() {
		p, err := purego.Dlsym(h, s.name)
		if err != nil {
			return fmt.Errorf("%s has no %s: %v", lib, s.name, err)
		}
		purego.RegisterFunc(s.ptr, p)
	}
	return nil
}
